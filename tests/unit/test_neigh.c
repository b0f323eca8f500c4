/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour table (dataplane/neigh.c), on its own, in virtual time:
 *   - learning: an unknown host is added only when it talked to the switch
 *     (create), a known one is refreshed, a static one keeps its MAC; one
 *     made unresolved again is resolved by the next it says;
 *   - aging: reachable -> stale (the slot word's stale bit) after
 *     reachable_s, removed stale_s later, except a pinned (configured) one;
 *   - max_learned: then the oldest stale entry gives its place, or, none
 *     being stale, the host is refused;
 *   - configured entries first: with every learned slot taken, the config
 *     still gets AIF_NEIGH_CONFIGURED_MAX slots, and past those it takes
 *     learned entries' places;
 *   - a freed slot is not reused while a worker may still read it (RCU);
 *   - growth: AIF_NEIGH_CAP_MIN slots at first, doubled as entries come,
 *     every entry keeping its slot; a view a worker holds stays readable,
 *     with what it held, until the worker passes a quiescent state;
 *   - the index: hosts learned and removed by the thousand leave
 *     tombstones that make it again (same slots, same size), a view held
 *     across that still finding what it held; an IPv4 and an IPv6 address
 *     of the same bytes two keys; no DPDK memzone taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_rcu_qsbr.h>

#include "neigh.h"

#include "test_eal.h"

static struct aif_neigh *nb;
static struct rte_rcu_qsbr *qsv;
static const struct aif_mac mac_a = { { 0x02, 0, 0, 0, 0, 0x0a } };
static const struct aif_mac mac_b = { { 0x02, 0, 0, 0, 0, 0x0b } };

static struct aif_ip
ip4(uint32_t host)
{
	struct aif_ip ip = { .family = AIF_AF_INET4 };
	ip.b[0] = (uint8_t)(host >> 24);
	ip.b[1] = (uint8_t)(host >> 16);
	ip.b[2] = (uint8_t)(host >> 8);
	ip.b[3] = (uint8_t)host;
	return ip;
}

#define HOST(i) ip4(0x0a000000u + (uint32_t)(i)) /* 10.0.0.0 + i */
#define S(x) ((aif_time_ns)(x) * AIF_NS_PER_S)

static int
setup(void **state)
{
	static unsigned n;
	char name[32];

	(void)state;
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	qsv = rte_zmalloc("ut_qsv", sz, RTE_CACHE_LINE_SIZE);
	if (qsv == NULL || rte_rcu_qsbr_init(qsv, 1) != 0)
		return -1;
	snprintf(name, sizeof(name), "ut_nb_%u", n++);
	nb = aif_neigh_create(name, AIF_NEIGH_SLOTS, qsv);
	return nb == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	aif_neigh_free(nb);
	rte_free(qsv);
	return 0;
}

static void
test_learn_refresh_static(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	struct aif_ip a = HOST(1), b = HOST(2), c = HOST(3);
	struct aif_mac mac;
	uint16_t port;

	(void)state;
	/* heard, but not talking to the switch: not added */
	assert_int_equal(aif_neigh_learn(nb, &a, &mac_a, 0, false, &p, S(1)), AIF_NEIGH_NONE);
	assert_int_equal(nb->ctr.update_only, 1);
	assert_int_equal(aif_neigh_find(nb, &a), AIF_NEIGH_NONE);
	/* talking to it: added; later heard again: refreshed, new MAC and port */
	uint32_t s = aif_neigh_learn(nb, &a, &mac_a, 0, true, &p, S(1));
	assert_int_not_equal(s, AIF_NEIGH_NONE);
	assert_int_equal(nb->n_learned, 1);
	assert_int_equal(aif_neigh_learn(nb, &a, &mac_b, 2, false, &p, S(2)), s);
	aif_neigh_unpack(aif_neigh_read(nb, s), &mac, &port);
	assert_memory_equal(&mac, &mac_b, 6);
	assert_int_equal(port, 2);
	assert_int_equal(nb->meta[s].updated_ns, S(2));
	assert_int_equal(nb->ctr.learned, 1);
	assert_int_equal(nb->ctr.refreshed, 1);
	/* a static entry keeps its MAC */
	uint32_t st = aif_neigh_get(nb, &b, 1);
	aif_neigh_set(nb, st, &mac_a, 1, AIF_NEIGH_STATIC, S(2));
	assert_int_equal(aif_neigh_learn(nb, &b, &mac_b, 1, true, &p, S(3)), AIF_NEIGH_NONE);
	aif_neigh_unpack(aif_neigh_read(nb, st), &mac, &port);
	assert_memory_equal(&mac, &mac_a, 6);
	assert_int_equal(nb->ctr.static_kept, 1);
	/* an unresolved next hop that answers is resolved, and counts as learned */
	uint32_t nh = aif_neigh_get(nb, &c, 1);
	assert_int_equal(aif_neigh_read(nb, nh), 0);
	assert_int_equal(aif_neigh_learn(nb, &c, &mac_b, 1, false, &p, S(3)), nh);
	assert_true(aif_neigh_read(nb, nh) & AIF_NEIGH_VALID);
	assert_int_equal(nb->n_learned, 2);
}

/* A static entry the config now leaves to be learned: its MAC is
 * forgotten, its slot kept; a gratuitous ARP (not to the switch) then
 * resolves it, as for any configured entry. */
static void
test_unresolve(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	struct aif_ip a = HOST(1);
	struct aif_mac mac;
	uint16_t port;

	(void)state;
	uint32_t s = aif_neigh_get(nb, &a, 1);
	aif_neigh_set(nb, s, &mac_a, 1, AIF_NEIGH_STATIC, S(1));
	aif_neigh_unresolve(nb, s);
	assert_int_equal(aif_neigh_read(nb, s), 0);
	assert_int_equal(nb->meta[s].type, AIF_NEIGH_UNRESOLVED);
	assert_int_equal(aif_neigh_find(nb, &a), s);
	assert_int_equal(aif_neigh_learn(nb, &a, &mac_b, 1, false, &p, S(2)), s);
	aif_neigh_unpack(aif_neigh_read(nb, s), &mac, &port);
	assert_memory_equal(&mac, &mac_b, 6);
	assert_int_equal(nb->meta[s].type, AIF_NEIGH_LEARNED);
	/* a learned one (not configured) counts no more once unresolved */
	assert_int_equal(nb->n_learned, 1);
	aif_neigh_unresolve(nb, s);
	assert_int_equal(nb->n_learned, 0);
}

static void
test_aging(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	struct aif_ip a = HOST(1), b = HOST(2), st = HOST(3);

	(void)state;
	p.reachable_s = 30;
	p.stale_s = 10;
	uint32_t sa = aif_neigh_learn(nb, &a, &mac_a, 0, true, &p, S(100));
	uint32_t sb = aif_neigh_learn(nb, &b, &mac_b, 0, true, &p, S(100));
	uint32_t ss = aif_neigh_get(nb, &st, 0);
	aif_neigh_set(nb, ss, &mac_a, 0, AIF_NEIGH_STATIC, S(100));
	nb->meta[sb].pinned = 1; /* a next hop of the config */
	aif_neigh_recount(nb);
	assert_int_equal(nb->n_learned, 1);

	aif_neigh_age(nb, &p, S(129));
	assert_false(aif_neigh_read(nb, sa) & AIF_NEIGH_STALE);
	aif_neigh_age(nb, &p, S(130));
	assert_true(aif_neigh_read(nb, sa) & AIF_NEIGH_STALE);
	assert_true(aif_neigh_read(nb, sa) & AIF_NEIGH_VALID); /* still used */
	assert_true(aif_neigh_read(nb, sb) & AIF_NEIGH_STALE);
	assert_false(aif_neigh_read(nb, ss) & AIF_NEIGH_STALE); /* static: never */
	assert_int_equal(nb->ctr.went_stale, 2);

	/* a refresh makes it fresh again, and restarts its clock */
	assert_int_equal(aif_neigh_learn(nb, &a, &mac_a, 0, false, &p, S(135)), sa);
	assert_false(aif_neigh_read(nb, sa) & AIF_NEIGH_STALE);
	aif_neigh_age(nb, &p, S(164));
	assert_false(aif_neigh_read(nb, sa) & AIF_NEIGH_STALE);
	aif_neigh_age(nb, &p, S(165));
	assert_true(aif_neigh_read(nb, sa) & AIF_NEIGH_STALE);
	aif_neigh_age(nb, &p, S(175));
	assert_int_equal(aif_neigh_find(nb, &a), AIF_NEIGH_NONE);
	assert_int_equal(aif_neigh_read(nb, sa), 0);
	assert_int_equal(nb->ctr.aged_out, 1);
	assert_int_equal(nb->n_learned, 0);
	/* the pinned one stays, stale; the static one stays */
	assert_int_equal(aif_neigh_find(nb, &b), sb);
	assert_true(aif_neigh_read(nb, sb) & AIF_NEIGH_STALE);
	assert_int_equal(aif_neigh_find(nb, &st), ss);
}

static void
test_max_learned(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;

	(void)state;
	p.max_learned = 8;
	p.reachable_s = 10;
	for (unsigned i = 0; i < 8; i++) {
		struct aif_ip ip = HOST(i);
		assert_int_not_equal(aif_neigh_learn(nb, &ip, &mac_a, 0, true, &p, S(i)),
				     AIF_NEIGH_NONE);
	}
	struct aif_ip ip = HOST(100);
	assert_int_equal(aif_neigh_learn(nb, &ip, &mac_a, 0, true, &p, S(8)), AIF_NEIGH_NONE);
	assert_int_equal(nb->ctr.learn_refused, 1);
	/* hosts 0 and 1 go stale; the newcomer takes host 0's place */
	aif_neigh_age(nb, &p, S(11));
	assert_int_not_equal(aif_neigh_learn(nb, &ip, &mac_a, 0, true, &p, S(11)),
			     AIF_NEIGH_NONE);
	struct aif_ip h0 = HOST(0), h1 = HOST(1);
	assert_int_equal(aif_neigh_find(nb, &h0), AIF_NEIGH_NONE);
	assert_int_not_equal(aif_neigh_find(nb, &h1), AIF_NEIGH_NONE);
	assert_int_equal(nb->ctr.replaced, 1);
	assert_int_equal(nb->n_learned, 8);
	rte_rcu_qsbr_quiescent(qsv, 0); /* nothing registered: no wait anyway */
}

static void
test_configured_first(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	uint32_t i;

	(void)state;
	for (i = 0; i < AIF_NEIGH_LEARNED_MAX; i++) {
		struct aif_ip ip = HOST(i);
		assert_int_not_equal(aif_neigh_learn(nb, &ip, &mac_a, 0, true, &p, S(1) + i),
				     AIF_NEIGH_NONE);
	}
	struct aif_ip more = HOST(99999);
	assert_int_equal(aif_neigh_learn(nb, &more, &mac_a, 0, true, &p, S(2)), AIF_NEIGH_NONE);
	/* every configured entry still finds a slot */
	for (i = 0; i < AIF_NEIGH_CONFIGURED_MAX; i++) {
		struct aif_ip ip = HOST(0x100000 + i);
		uint32_t s = aif_neigh_get(nb, &ip, 1);
		assert_int_not_equal(s, AIF_NEIGH_NONE);
		nb->meta[s].pinned = 1;
	}
	assert_int_equal(nb->ctr.evicted_for_config, 0);
	/* and past them, the oldest learned entry gives its place */
	struct aif_ip extra = HOST(0x200000);
	assert_int_not_equal(aif_neigh_get(nb, &extra, 1), AIF_NEIGH_NONE);
	assert_int_equal(nb->ctr.evicted_for_config, 1);
	struct aif_ip oldest = HOST(0);
	assert_int_equal(aif_neigh_find(nb, &oldest), AIF_NEIGH_NONE);
	assert_int_equal(nb->n_learned, AIF_NEIGH_LEARNED_MAX - 1);
}

static void
test_freed_slot_waits_for_workers(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	struct aif_ip a = HOST(1), b = HOST(2);

	(void)state;
	/* a worker, online: it may hold a slot number found in the hash */
	assert_int_equal(rte_rcu_qsbr_thread_register(qsv, 0), 0);
	rte_rcu_qsbr_thread_online(qsv, 0);
	uint32_t sa = aif_neigh_learn(nb, &a, &mac_a, 0, true, &p, S(1));
	aif_neigh_del(nb, sa);
	uint32_t sb = aif_neigh_learn(nb, &b, &mac_b, 0, true, &p, S(1));
	assert_int_not_equal(sb, sa); /* not while the worker may read it */
	aif_neigh_del(nb, sb);
	/* the worker passes a quiescent state: both slots may be taken again */
	rte_rcu_qsbr_quiescent(qsv, 0);
	uint32_t sc = aif_neigh_learn(nb, &a, &mac_a, 0, true, &p, S(2));
	assert_true(sc == sa || sc == sb);
	rte_rcu_qsbr_thread_offline(qsv, 0);
	rte_rcu_qsbr_thread_unregister(qsv, 0);
}

static void
test_grows_keeps_slots_and_old_views(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	const uint32_t n = 1000;

	(void)state;
	assert_int_equal(nb->cap, AIF_NEIGH_CAP_MIN);
	for (uint32_t i = 0; i < AIF_NEIGH_CAP_MIN; i++) {
		struct aif_ip ip = HOST(i);
		struct aif_mac m = mac_a;
		m.b[4] = (uint8_t)(i >> 8), m.b[5] = (uint8_t)i;
		assert_int_equal(aif_neigh_get(nb, &ip, 1), i);
		aif_neigh_set(nb, i, &m, 1, AIF_NEIGH_STATIC, S(1));
	}
	assert_int_equal(nb->cap, AIF_NEIGH_CAP_MIN); /* full, not grown */
	/* a worker, online, holds the view */
	assert_int_equal(rte_rcu_qsbr_thread_register(qsv, 0), 0);
	rte_rcu_qsbr_thread_online(qsv, 0);
	const struct aif_neigh_view *v0 = aif_neigh_view(nb);
	for (uint32_t i = AIF_NEIGH_CAP_MIN; i < n; i++) {
		struct aif_ip ip = HOST(i);
		struct aif_mac m = mac_b;
		m.b[4] = (uint8_t)(i >> 8), m.b[5] = (uint8_t)i;
		/* the lowest free slot, as a table of every slot at once */
		assert_int_equal(aif_neigh_get(nb, &ip, 2), i);
		aif_neigh_set(nb, i, &m, 2, AIF_NEIGH_STATIC, S(1));
	}
	assert_int_equal(nb->cap, 1024);
	assert_int_equal(nb->n_retired, 4); /* 64 -> 128 -> 256 -> 512 -> 1024 */
	const struct aif_neigh_view *v = aif_neigh_view(nb);
	assert_ptr_not_equal(v, v0);
	for (uint32_t i = 0; i < n; i++) {
		struct aif_ip ip = HOST(i);
		struct aif_mac m;
		uint16_t port;
		assert_int_equal(aif_neigh_view_find(v, &ip), i);
		aif_neigh_unpack(v->slot[i], &m, &port);
		assert_int_equal(m.b[5], (uint8_t)i);
		assert_int_equal(port, i < AIF_NEIGH_CAP_MIN ? 1 : 2);
		/* the old view: what it held, and nothing it never held */
		if (i < AIF_NEIGH_CAP_MIN) {
			assert_int_equal(aif_neigh_view_find(v0, &ip), i);
			assert_int_equal(v0->slot[i], v->slot[i]);
		} else {
			assert_int_equal(aif_neigh_view_find(v0, &ip), AIF_NEIGH_NONE);
		}
	}
	/* aging frees nothing a worker may still read ... */
	aif_neigh_age(nb, &p, S(2));
	assert_int_equal(nb->n_retired, 4);
	/* ... and every old view once it passed a quiescent state */
	rte_rcu_qsbr_quiescent(qsv, 0);
	aif_neigh_age(nb, &p, S(3));
	assert_int_equal(nb->n_retired, 0);
	rte_rcu_qsbr_thread_offline(qsv, 0);
	rte_rcu_qsbr_thread_unregister(qsv, 0);
	/* up to the most it was made for, not past it */
	for (uint32_t i = n; i < AIF_NEIGH_SLOTS; i++) {
		struct aif_ip ip = HOST(i);
		assert_int_equal(aif_neigh_get(nb, &ip, 2), i);
		nb->meta[i].pinned = 1;
	}
	assert_int_equal(nb->cap, AIF_NEIGH_SLOTS);
	struct aif_ip past = HOST(AIF_NEIGH_SLOTS);
	assert_int_equal(aif_neigh_get(nb, &past, 2), AIF_NEIGH_NONE);
	assert_int_equal(nb->cap, AIF_NEIGH_SLOTS);
}

/* Is ip found, by control and in the current view, at slot s (or not at
 * all: AIF_NEIGH_NONE)? */
static void
assert_found(const struct aif_ip *ip, uint32_t s)
{
	assert_int_equal(aif_neigh_find(nb, ip), s);
	assert_int_equal(aif_neigh_view_find(aif_neigh_view(nb), ip), s);
}

static void
test_index_churn_remakes_it(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	const uint32_t live = 40, rounds = 5000;
	uint32_t grows0 = nb->grows, remade = 0, slot_of[40];
	const struct aif_neigh_view *v0 = NULL;
	uint32_t held_from = 0;

	(void)state;
	for (uint32_t i = 0; i < live; i++) {
		struct aif_ip ip = HOST(i);
		slot_of[i] = aif_neigh_learn(nb, &ip, &mac_a, 1, true, &p, S(1));
		assert_int_not_equal(slot_of[i], AIF_NEIGH_NONE);
	}
	/* each round one host goes and another comes: a tombstone each */
	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t k = r % live;
		struct aif_ip gone = HOST(r), come = HOST(r + live);
		const struct aif_neigh_view *before = aif_neigh_view(nb);
		bool crowded = (before->idx_used + 1) * 4 > 3 * (before->idx_mask + 1);
		aif_neigh_del(nb, slot_of[k]);
		if (crowded && v0 == NULL) {
			/* a worker holds the view the next add makes again */
			assert_int_equal(rte_rcu_qsbr_thread_register(qsv, 0), 0);
			rte_rcu_qsbr_thread_online(qsv, 0);
			v0 = before;
			held_from = r;
		}
		slot_of[k] = aif_neigh_learn(nb, &come, &mac_b, 2, true, &p, S(1));
		assert_int_not_equal(slot_of[k], AIF_NEIGH_NONE);
		remade += aif_neigh_view(nb) != before;
		assert_found(&gone, AIF_NEIGH_NONE);
		assert_found(&come, slot_of[k]);
		if (v0 != NULL && r == held_from) {
			/* the held view: what it held then, the slots unchanged */
			assert_ptr_not_equal(aif_neigh_view(nb), v0);
			for (uint32_t i = held_from + 1; i < held_from + live; i++) {
				struct aif_ip ip = HOST(i);
				assert_int_equal(aif_neigh_view_find(v0, &ip),
						 aif_neigh_find(nb, &ip));
			}
			struct aif_ip old = HOST(held_from);
			assert_int_equal(aif_neigh_view_find(v0, &old), AIF_NEIGH_NONE);
			/* the worker passes on: the old view freed, slots reused */
			rte_rcu_qsbr_quiescent(qsv, 0);
			rte_rcu_qsbr_thread_offline(qsv, 0);
			rte_rcu_qsbr_thread_unregister(qsv, 0);
			aif_neigh_age(nb, &p, S(1));
			assert_int_equal(nb->n_retired, 0);
		}
	}
	/* the same size, made again several times, never crowded */
	assert_int_equal(nb->cap, AIF_NEIGH_CAP_MIN);
	assert_non_null(v0);
	assert_true(remade >= 10);
	assert_int_equal(nb->grows - grows0, remade);
	const struct aif_neigh_view *v = aif_neigh_view(nb);
	assert_true(v->idx_used * 4 <= 3 * (v->idx_mask + 1));
	for (uint32_t i = rounds; i < rounds + live; i++) {
		struct aif_ip ip = HOST(i);
		assert_int_equal(aif_neigh_find(nb, &ip), slot_of[i % live]);
	}
	for (uint32_t i = 0; i < rounds; i++) {
		struct aif_ip ip = HOST(i);
		assert_int_equal(aif_neigh_find(nb, &ip), AIF_NEIGH_NONE);
	}
	assert_int_equal(nb->n_learned, live);
}

static void
test_index_probes_past_tombstones(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	/* of 64 slots, an index of 128; scattered addresses (consecutive
	 * ones may all hash apart): keys collide */
	const uint32_t n = 48;
	uint32_t slot_of[48];
#define SCATTERED(i) ip4(0x0a000000u | (((uint32_t)(i) * 0x9E3779B1u) >> 8))

	(void)state;
	for (uint32_t i = 0; i < n; i++) {
		struct aif_ip ip = SCATTERED(i);
		slot_of[i] = aif_neigh_learn(nb, &ip, &mac_a, 1, true, &p, S(1));
	}
	/* each one gone in the order they came (a key that collided sits past
	 * the one before it): every other still found */
	for (uint32_t i = 0; i < n; i++) {
		aif_neigh_del(nb, slot_of[i]);
		for (uint32_t j = 0; j < n; j++) {
			struct aif_ip ip = SCATTERED(j);
			assert_found(&ip, j <= i ? AIF_NEIGH_NONE : slot_of[j]);
		}
	}
}

static void
test_index_keys_and_families(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	struct aif_ip v4 = HOST(1), v6 = { .family = AIF_AF_INET6 };

	(void)state;
	memcpy(v6.b, v4.b, 4); /* the same first bytes, the rest zero */
	uint32_t s4 = aif_neigh_learn(nb, &v4, &mac_a, 1, true, &p, S(1));
	assert_found(&v6, AIF_NEIGH_NONE);
	uint32_t s6 = aif_neigh_learn(nb, &v6, &mac_b, 2, true, &p, S(1));
	assert_int_not_equal(s4, s6);
	assert_found(&v4, s4);
	assert_found(&v6, s6);
	/* an IPv4 address's bytes past the fourth are not its key */
	struct aif_ip noisy = v4;
	memset(noisy.b + 4, 0xee, 12);
	noisy.pad[1] = 7;
	assert_found(&noisy, s4);
	aif_neigh_del(nb, s4);
	assert_found(&v4, AIF_NEIGH_NONE);
	assert_found(&v6, s6);
}

static void
count_zone(const struct rte_memzone *mz, void *arg)
{
	(void)mz;
	++*(unsigned *)arg;
}

static unsigned
memzones(void)
{
	unsigned n = 0;
	rte_memzone_walk(count_zone, &n);
	return n;
}

static void
test_no_memzone(void **state)
{
	struct aif_neigh_params p = AIF_NEIGH_PARAMS_DEFAULT;
	unsigned mz0 = memzones();

	(void)state;
	/* tables beside the fixture's, grown to thousands of entries: a
	 * fabric's switches are not bounded by DPDK's memzones */
	struct aif_neigh *t[3];
	for (unsigned i = 0; i < 3; i++) {
		t[i] = aif_neigh_create("same-name", AIF_NEIGH_SLOTS, qsv);
		assert_non_null(t[i]);
		for (uint32_t h = 0; h < 3000; h++) {
			struct aif_ip ip = HOST(h);
			assert_int_equal(aif_neigh_learn(t[i], &ip, &mac_a, 1, true, &p, S(1)), h);
		}
	}
	assert_int_equal(memzones(), mz0);
	for (unsigned i = 0; i < 3; i++)
		aif_neigh_free(t[i]);
}

static int
group_setup(void **state)
{
	(void)state;
	return test_eal_init("test_neigh", "aif-ut-neigh", 256);
}

static int
group_teardown(void **state)
{
	(void)state;
	test_eal_cleanup();
	return 0;
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_learn_refresh_static),
		T(test_unresolve),
		T(test_aging),
		T(test_max_learned),
		T(test_configured_first),
		T(test_freed_slot_waits_for_workers),
		T(test_grows_keeps_slots_and_old_views),
		T(test_index_churn_remakes_it),
		T(test_index_probes_past_tombstones),
		T(test_index_keys_and_families),
		T(test_no_memzone),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
