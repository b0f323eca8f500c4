/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_flowlet.c: the flowlet scheme and its table.
 * No EAL: groups, members, a calloc'ed aif_lb_state and an aif_lb_ctx are
 * built by hand; time is the number the test puts in ctx.now_ns; random
 * numbers come from seeded xorshifts (one for the scheme, one for the test),
 * so every figure is exact and repeats.
 *
 *   - Gaps below flowlet_gap_ns never move a flow: 10,000 packets, random
 *     gaps in [0, gap); one flowlet start, no reselection.
 *   - LetFlow: after a gap in [gap, aging), the member changes with
 *     probability (n-1)/n: 20,000 flowlet boundaries for n = 2, 4, 8, within
 *     3 standard errors root(p(1-p)/N); reselections equal the changes.
 *   - least_loaded: a new flowlet takes the member with the fewest queued
 *     bytes; ties spread over the tied members only.
 *   - An entry idle for a gap starts a new flowlet for whichever flow comes
 *     (aging only decides whether a move is a reselection); a live entry of
 *     another flow is shared: the newcomer rides on its member, counted
 *     once per flow as a collision.
 *   - Counters exact in scripted cases, gap boundary included: sharing by
 *     three flows, guests counted once, a group smaller than the owner's,
 *     a group that shrank.
 *   - Many flows on shared entries (64 and 1,024 flows, 4,096 entries,
 *     hashes forced to collide, and random): for every packet whose flow's
 *     previous packet is less than a gap old, the member is the same; for
 *     flowlet random, least_loaded and adaptive-flowlet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lb.h"
#include "rng.h"

#define GAP_NS (100 * AIF_NS_PER_US)
#define AGE_NS (2 * AIF_NS_PER_MS)
#define SLOT0 100u /* member i has ctr_slot SLOT0 + i */

struct fix {
	struct aif_group g;
	struct aif_member mem[AIF_MAX_MEMBERS];
	struct aif_lb_state *st;
	struct aif_lb_params p;
	uint32_t qb[AIF_MAX_PORTS];
	struct aif_rng rng;
	struct aif_lb_ctx x;
	struct aif_pkt pkt;
};

/* Square root by Newton's method: the build does not link libm. */
static double
root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++)
		r = 0.5 * (r + x / r);
	return r;
}

static struct fix *
fix_new(uint16_t n, uint8_t mode, uint32_t table_size)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->st = calloc(1, sizeof(*f->st));
	assert_non_null(f->st);
	f->st->flowlet = calloc(AIF_FLOWLET_MAX, sizeof(*f->st->flowlet)); /* control's part */
	assert_non_null(f->st->flowlet);
	f->g.n = n;
	f->g.scheme = AIF_LB_FLOWLET;
	for (uint16_t i = 0; i < n; i++) {
		f->mem[i].port = i;
		f->mem[i].ctr_slot = SLOT0 + i;
	}
	f->p.scheme = AIF_LB_FLOWLET;
	f->p.flowlet_gap_ns = GAP_NS;
	f->p.flowlet_age_ns = AGE_NS;
	f->p.flowlet_table_size = table_size;
	f->p.flowlet_mode = mode;
	aif_rng_seed(&f->rng, 0xf10e1e75eedull);
	f->x.st = f->st;
	f->x.p = &f->p;
	f->x.port_qbytes = f->qb;
	f->x.rng = &f->rng;
	f->x.group = 3;
	return f;
}

static void
fix_free(struct fix *f)
{
	free(f->st->flowlet);
	free(f->st);
	free(f);
}

static uint32_t
sel(struct fix *f, uint32_t hash, aif_time_ns now_ns)
{
	uint32_t r;

	f->pkt.hash = hash;
	f->x.now_ns = now_ns;
	r = aif_lb_flowlet_select(&f->g, f->mem, NULL, &f->pkt, &f->x);
	assert_true(r < f->g.n);
	return r;
}

static uint64_t
sum(const uint64_t *a, unsigned n)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < n; i++)
		s += a[i];
	return s;
}

static uint64_t
collisions(const struct fix *f)
{
	return sum(f->st->flowlet_collisions, AIF_MAX_MEMBER_SLOTS);
}

/* 10,000 packets, gaps uniformly in [0, gap): one flowlet. */
static void
test_short_gaps_keep_member(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_RANDOM, 4096);
	struct aif_rng gaps;
	aif_time_ns t = 5 * AIF_NS_PER_MS;
	uint32_t first;

	(void)state;
	aif_rng_seed(&gaps, 77);
	first = sel(f, 0xabcdef12u, t);
	for (int i = 0; i < 10000; i++) {
		t += aif_rng_below(&gaps, (uint32_t)GAP_NS); /* 0 .. gap-1 */
		assert_int_equal(sel(f, 0xabcdef12u, t), first);
	}
	assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), 1);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + first], 1);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 0);
	assert_int_equal(collisions(f), 0);
	fix_free(f);
}

/*
 * LetFlow: after a gap in [gap, aging) the new flowlet's member is uniform,
 * so it differs from the old one with probability (n-1)/n.
 */
static void
test_random_change_rate(void **state)
{
	static const uint16_t ns[] = { 2, 4, 8 };
	const unsigned boundaries = 20000;

	(void)state;
	for (unsigned k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		struct fix *f = fix_new(ns[k], AIF_FLOWLET_RANDOM, 4096);
		struct aif_rng gaps;
		aif_time_ns t = 0;
		unsigned changes = 0;
		uint32_t cur, prev;

		aif_rng_seed(&gaps, 1000 + k);
		cur = sel(f, 0x13579bdfu, t);
		for (unsigned b = 0; b < boundaries; b++) {
			/* a few packets inside the flowlet ... */
			for (int i = 0; i < 3; i++) {
				t += aif_rng_below(&gaps, (uint32_t)GAP_NS);
				assert_int_equal(sel(f, 0x13579bdfu, t), cur);
			}
			/* ... then a gap in [gap, aging) */
			t += GAP_NS + aif_rng_below(&gaps, (uint32_t)(AGE_NS - GAP_NS));
			prev = cur;
			cur = sel(f, 0x13579bdfu, t);
			changes += cur != prev;
		}
		double p = (double)(ns[k] - 1) / ns[k];
		double rate = (double)changes / boundaries;
		double se = root(p * (1 - p) / boundaries);
		print_message("flowlet random n=%u: P(change) %.5f expected %.5f "
			      "(SE %.5f, %+.2f SE) over %u boundaries\n",
			      ns[k], rate, p, se, (rate - p) / se, boundaries);
		assert_true(rate > p - 3 * se && rate < p + 3 * se);
		assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), changes);
		assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS),
				 boundaries + 1);
		assert_int_equal(collisions(f), 0);
		fix_free(f);
	}
}

/* A new flowlet takes the member whose port has the fewest queued bytes. */
static void
test_least_loaded(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_LEAST_LOADED, 4096);
	unsigned count[8] = { 0 };

	(void)state;
	for (int i = 0; i < 8; i++)
		f->qb[i] = 1000000;
	f->qb[5] = 4096;
	/* 2000 distinct flows: all on member 5 */
	for (uint32_t h = 0; h < 2000; h++)
		assert_int_equal(sel(f, h * 0x9E3779B1u, 0), 5);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + 5], 2000);

	/* ties between members 2 and 6 (empty): only they, both used */
	f->qb[5] = 1000000;
	f->qb[2] = 0;
	f->qb[6] = 0;
	for (uint32_t h = 0; h < 2000; h++)
		count[sel(f, h * 0x9E3779B1u, 10 * AIF_NS_PER_MS)]++;
	print_message("least_loaded ties (members 2, 6): %u / %u of 2000 flows\n",
		      count[2], count[6]);
	assert_int_equal(count[2] + count[6], 2000);
	/* binomial(2000, 1/2): mean 1000, SE 22.4; 5 SE */
	assert_true(count[2] > 1000 - 112 && count[2] < 1000 + 112);

	/* all tied: every member in use */
	memset(f->qb, 0, sizeof(f->qb));
	memset(count, 0, sizeof(count));
	for (uint32_t h = 0; h < 8000; h++)
		count[sel(f, h * 0x9E3779B1u, 20 * AIF_NS_PER_MS)]++;
	for (int i = 0; i < 8; i++)
		assert_true(count[i] > 1000 - 5 * 30 && count[i] < 1000 + 5 * 30);
	fix_free(f);
}

/*
 * An entry idle for a gap or longer starts a new flowlet for whoever comes
 * (no collision); a live entry of another flow is shared, counted once.
 */
static void
test_aging_and_collisions(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_RANDOM, 16);
	const uint32_t a = 0x00000105u, b = 0x20000205u; /* same entry of 16 */
	aif_time_ns t = 0;
	uint32_t ma;

	(void)state;
	assert_int_equal(aif_lb_flowlet_index(a, 3, 16), aif_lb_flowlet_index(b, 3, 16));
	sel(f, a, t);
	/* b at exactly aging after a: a's entry is free, no collision */
	t += AGE_NS;
	sel(f, b, t);
	assert_int_equal(collisions(f), 0);
	/* a one ns before b's entry ages, but after b's gap: a new flowlet, a's */
	t += AGE_NS - 1;
	ma = sel(f, a, t);
	assert_int_equal(collisions(f), 0);
	/* a again, inside its flowlet: its own entry, no collision */
	t += 1;
	assert_int_equal(sel(f, a, t), ma);
	/* 100 alternations a, b within the gap: b shares a's flowlet (one
	 * collision: b's first packet), nobody moves */
	for (int i = 0; i < 100; i++) {
		t += 10;
		assert_int_equal(sel(f, (i & 1) ? a : b, t), ma);
	}
	assert_int_equal(collisions(f), 1);
	assert_int_equal(f->st->flowlet_collisions[SLOT0 + ma], 1);
	/* the same hash through another group: another flow on another entry */
	assert_int_not_equal(aif_lb_flowlet_index(a, 4, 16), aif_lb_flowlet_index(a, 3, 16));
	t += 10;
	f->x.group = 4;
	sel(f, a, t);
	assert_int_equal(collisions(f), 1);
	f->x.group = 3;

	/* a flow that returns after aging is a new flow: member changes (often,
	 * random) count no reselection */
	unsigned changes = 0;
	uint32_t cur = sel(f, 0x77u, t += AGE_NS);
	uint64_t starts0 = sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS);
	for (int i = 0; i < 200; i++) {
		uint32_t m = sel(f, 0x77u, t += AGE_NS + (aif_time_ns)i);
		changes += m != cur;
		cur = m;
	}
	print_message("aged returns: %u of 200 changed member, 0 reselections\n", changes);
	assert_true(changes > 100);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 0);
	assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), starts0 + 200);
	assert_int_equal(collisions(f), 1);
	fix_free(f);
}

/* A scripted case (least_loaded: no random draw matters), counters exact. */
static void
test_counters_exact(void **state)
{
	struct fix *f = fix_new(4, AIF_FLOWLET_LEAST_LOADED, 16);
	const uint32_t a = 0x00000a03u, b = 0x00000b03u; /* same entry (3) */
	uint64_t starts[4] = { 0 }, resel[4] = { 0 }, coll = 0;
	aif_time_ns t = 1000;

	(void)state;
	for (int i = 0; i < 4; i++)
		f->qb[i] = 50000;
#define LIGHT(i) do { for (int j_ = 0; j_ < 4; j_++) f->qb[j_] = 50000; f->qb[i] = 100; } while (0)
#define CHECK() do { \
		for (int i_ = 0; i_ < 4; i_++) { \
			assert_int_equal(f->st->flowlet_starts[SLOT0 + i_], starts[i_]); \
			assert_int_equal(f->st->reselections[SLOT0 + i_], resel[i_]); \
		} \
		assert_int_equal(collisions(f), coll); \
		assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), \
				 starts[0] + starts[1] + starts[2] + starts[3]); \
		assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), \
				 resel[0] + resel[1] + resel[2] + resel[3]); \
	} while (0)

	LIGHT(2);
	assert_int_equal(sel(f, a, t), 2);          /* new flow */
	starts[2]++;
	CHECK();
	LIGHT(1);
	assert_int_equal(sel(f, a, t += GAP_NS - 1), 2); /* gap - 1: same flowlet */
	CHECK();
	assert_int_equal(sel(f, a, t += GAP_NS), 1); /* gap: new flowlet, moved */
	starts[1]++;
	resel[1]++;
	CHECK();
	assert_int_equal(sel(f, a, t += GAP_NS), 1); /* new flowlet, same member */
	starts[1]++;
	CHECK();
	LIGHT(3);
	assert_int_equal(sel(f, a, t += 10), 1);     /* open flowlet keeps member */
	CHECK();
	assert_int_equal(sel(f, b, t += 10), 1);     /* b shares a's flowlet */
	coll++;
	CHECK();
	LIGHT(0);
	assert_int_equal(sel(f, a, t += 10), 1);     /* a keeps its member */
	assert_int_equal(sel(f, b, t += 10), 1);     /* b counted once */
	CHECK();
	LIGHT(2);
	assert_int_equal(sel(f, a, t += AGE_NS), 2); /* aged: a new flow */
	starts[2]++;
	CHECK();
	assert_int_equal(sel(f, a, t += AGE_NS - 1), 2); /* known flow, same member */
	starts[2]++;
	CHECK();
	LIGHT(3);
	assert_int_equal(sel(f, a, t += AGE_NS - 1), 3); /* known flow, moved */
	starts[3]++;
	resel[3]++;
	CHECK();
	/* the group shrinks under a new table: an open flowlet on member 3 of a
	 * 3-member group goes on 3 mod 3 = 0 until its gap, no pick */
	f->g.n = 3;
	LIGHT(1);
	assert_int_equal(sel(f, a, t += 1), 0);
	assert_int_equal(sel(f, a, t += GAP_NS - 1), 0);
	CHECK();
	/* after the gap: a new flowlet, moved from (stored) member 3 */
	assert_int_equal(sel(f, a, t += GAP_NS), 1);
	starts[1]++;
	resel[1]++;
	CHECK();
#undef LIGHT
#undef CHECK
	fix_free(f);
}

/*
 * Three flows on one entry, hand-made: the owner keeps its member, the
 * others share it; collisions count flows (guests), not packets; a new
 * flowlet starts only after a gap common to all; a flow of a smaller group
 * takes the member mod its size.
 */
static void
test_sharing_exact(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_LEAST_LOADED, 16);
	/* same entry of 16 in group 3, guest bits 0, 1, 2 (top three bits) */
	const uint32_t a = 0x00000a07u, b = 0x20000b07u, c = 0x40000c07u;
	const uint32_t gap = GAP_NS;
	aif_time_ns t = 1000;

	(void)state;
	assert_int_equal(aif_lb_flowlet_index(b, 3, 16), aif_lb_flowlet_index(a, 3, 16));
	assert_int_equal(aif_lb_flowlet_index(c, 3, 16), aif_lb_flowlet_index(a, 3, 16));
#define LIGHT(i) do { for (int j_ = 0; j_ < 8; j_++) f->qb[j_] = 50000; f->qb[i] = 100; } while (0)
	LIGHT(5);
	assert_int_equal(sel(f, a, t), 5);                 /* a: new flow, owner */
	LIGHT(2);
	assert_int_equal(sel(f, b, t += 10), 5);           /* b shares: collision 1 */
	assert_int_equal(collisions(f), 1);
	assert_int_equal(f->st->flowlet_collisions[SLOT0 + 5], 1);
	assert_int_equal(sel(f, b, t += gap - 1), 5);      /* b again: not counted */
	assert_int_equal(sel(f, a, t += gap - 1), 5);      /* a: 2 gaps - 2 after its last */
	assert_int_equal(sel(f, c, t += 1), 5);            /* c shares: collision 2 */
	for (int i = 0; i < 30; i++)                       /* b, c alternate: no more */
		assert_int_equal(sel(f, (i & 1) ? b : c, t += gap / 2), 5);
	assert_int_equal(collisions(f), 2);
	/* a came back more than a gap after its own last packet, but the entry
	 * was busy: a stays too (it could have moved; it need not) */
	assert_int_equal(sel(f, a, t += gap - 1), 5);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + 5], 1);
	assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), 1);

	/* everyone silent for a gap: c comes first, starts a new flowlet and
	 * owns the entry; a and b are now guests (counted again: a new flowlet) */
	LIGHT(2);
	assert_int_equal(sel(f, c, t += gap), 2);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 0); /* c was a guest */
	LIGHT(6);
	assert_int_equal(sel(f, a, t += 10), 2);
	assert_int_equal(sel(f, b, t += 10), 2);
	assert_int_equal(sel(f, a, t += 10), 2);
	assert_int_equal(collisions(f), 4);
	assert_int_equal(f->st->flowlet_collisions[SLOT0 + 2], 2);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + 2], 1);

	/* a flow of a 3-member group on the same entry (found by its index):
	 * member 2 of the owner's group; a new table moves the owner to 7 of 8:
	 * 7 mod 3 = 1 for the small group's flow, for as long as it is open */
	t += gap;
	LIGHT(7);
	assert_int_equal(sel(f, c, t), 7);                 /* c: new flowlet on 7 */
	uint32_t d = 0x60000000u;
	while (aif_lb_flowlet_index(d, 9, 16) != aif_lb_flowlet_index(c, 3, 16))
		d++;
	uint16_t n8 = f->g.n;
	f->x.group = 9;
	f->g.n = 3;
	for (int i = 0; i < 10; i++)
		assert_int_equal(sel(f, d, t += gap - 1), 1);
	assert_int_equal(f->st->flowlet_collisions[SLOT0 + 1], 1);
	f->x.group = 3;
	f->g.n = n8;
	assert_int_equal(sel(f, c, t += gap - 1), 7);      /* c kept its member */
	assert_int_equal(collisions(f), 5);
	assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), 3);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 1); /* c: 2 -> 7 */
#undef LIGHT
	fix_free(f);
}

/* ---------------------------------------------------------------- */
/* Flows sharing entries: nobody moves inside its flowlet            */

#define SIM_GAP_NS AIF_NS_PER_MS
#define SIM_AGE_NS (10 * AIF_NS_PER_MS)
#define SIM_PER_ENTRY 4   /* forced: flows per shared entry */

enum sim_kind { SIM_RANDOM, SIM_LEAST_LOADED, SIM_ADAPTIVE };

struct sim_event {
	aif_time_ns t_ns;
	uint32_t flow;
};

struct sim_result {
	unsigned packets;
	unsigned inside;      /* packets < gap after their flow's previous one */
	unsigned moved_inside; /* of those, on another member: must be 0 */
	unsigned moved_after; /* flows moved after a gap >= gap (allowed) */
	uint64_t collisions;
};

static int
event_cmp(const void *a, const void *b)
{
	const struct sim_event *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/*
 * n_flows flows of 8 members on a 4,096-entry table, gap 1 ms.  forced:
 * SIM_PER_ENTRY flows per entry (hashes equal in their low 12 bits, random
 * above); else random hashes.  Each flow sends pkts_per_flow packets, its
 * inter-packet times uniform in [1 us, gap) three times in four, else in
 * [gap, 3 gap).  Random mode picks at random; least_loaded and adaptive
 * see queue depths / bands redrawn before every packet, so every new
 * flowlet picks afresh (the worst case for a scheme that re-picks).
 */
/* The table the simulations run on (test_exact_keeps_flowlets changes it). */
static uint8_t sim_table = AIF_FLOWLET_TABLE_DIRECT;
static uint32_t sim_table_size = 4096;

static struct sim_result
sim_run(enum sim_kind kind, unsigned n_flows, bool forced, unsigned pkts_per_flow,
	uint64_t seed)
{
	struct fix *f = fix_new(8, kind == SIM_LEAST_LOADED ? AIF_FLOWLET_LEAST_LOADED
							    : AIF_FLOWLET_RANDOM, sim_table_size);
	unsigned n_ev = n_flows * pkts_per_flow;
	struct sim_event *ev = calloc(n_ev, sizeof(*ev));
	uint32_t *hash = calloc(n_flows, sizeof(*hash));
	uint32_t *member = calloc(n_flows, sizeof(*member));
	aif_time_ns *last = calloc(n_flows, sizeof(*last));
	struct sim_result r = { 0 };
	struct aif_rng rng;

	assert_non_null(ev);
	assert_non_null(hash);
	assert_non_null(member);
	assert_non_null(last);
	aif_rng_seed(&rng, seed);
	aif_rng_seed(&f->rng, seed ^ 0x5eed);
	f->p.flowlet_table = sim_table;
	f->p.flowlet_gap_ns = SIM_GAP_NS;
	f->p.flowlet_age_ns = SIM_AGE_NS;
	if (kind == SIM_ADAPTIVE) {
		f->g.scheme = AIF_LB_ADAPTIVE;
		f->p.scheme = AIF_LB_ADAPTIVE;
		f->p.adaptive_mode = AIF_ADAPTIVE_FLOWLET;
	}
	for (uint32_t i = 0; i < n_flows; i++) {
		bool dup;
		do {
			uint32_t h = (uint32_t)aif_rng_next(&rng);
			if (forced)
				h = (h & ~0xfffu) | ((i / SIM_PER_ENTRY) * 37u & 0xfffu);
			hash[i] = h;
			dup = false;
			for (uint32_t j = 0; j < i; j++)
				dup |= (hash[j] | 1) == (h | 1);
		} while (dup);
	}
	for (uint32_t i = 0, k = 0; i < n_flows; i++) {
		aif_time_ns t = aif_rng_below(&rng, 2 * SIM_GAP_NS);
		for (unsigned p = 0; p < pkts_per_flow; p++, k++) {
			ev[k] = (struct sim_event){ .t_ns = t, .flow = i };
			if (aif_rng_below(&rng, 4) != 0)
				t += 1000 + aif_rng_below(&rng, SIM_GAP_NS - 1000);
			else
				t += SIM_GAP_NS + aif_rng_below(&rng, 2 * SIM_GAP_NS);
		}
	}
	qsort(ev, n_ev, sizeof(*ev), event_cmp);
	for (unsigned k = 0; k < n_ev; k++) {
		uint32_t i = ev[k].flow, mem;
		bool seen = last[i] != 0;

		if (kind == SIM_LEAST_LOADED)
			for (int q = 0; q < 8; q++)
				f->qb[q] = aif_rng_below(&rng, 1u << 20);
		if (kind == SIM_ADAPTIVE)
			for (int q = 0; q < 8; q++)
				f->st->band[q] = (uint8_t)aif_rng_below(&rng, 8);
		f->pkt.hash = hash[i];
		f->x.now_ns = ev[k].t_ns + 1; /* last[] == 0: not seen yet */
		if (kind == SIM_ADAPTIVE)
			mem = aif_lb_adaptive_select(&f->g, f->mem, NULL, &f->pkt, &f->x);
		else
			mem = aif_lb_flowlet_select(&f->g, f->mem, NULL, &f->pkt, &f->x);
		assert_true(mem < f->g.n);
		r.packets++;
		if (seen && f->x.now_ns - last[i] < SIM_GAP_NS) {
			r.inside++;
			r.moved_inside += mem != member[i];
		} else if (seen) {
			r.moved_after += mem != member[i];
		}
		member[i] = mem;
		last[i] = f->x.now_ns;
	}
	r.collisions = collisions(f);
	free(ev);
	free(hash);
	free(member);
	free(last);
	fix_free(f);
	return r;
}

static void
test_shared_entries_keep_flowlets(void **state)
{
	static const char *const kind_name[] = { "flowlet random", "flowlet least_loaded",
						 "adaptive flowlet" };
	static const struct {
		enum sim_kind kind;
		unsigned flows, pkts;
		bool forced;
	} cases[] = {
		{ SIM_RANDOM, 64, 400, true },
		{ SIM_RANDOM, 64, 400, false },
		{ SIM_RANDOM, 1024, 40, true },
		{ SIM_RANDOM, 1024, 40, false },
		{ SIM_LEAST_LOADED, 64, 400, true },
		{ SIM_LEAST_LOADED, 1024, 40, true },
		{ SIM_ADAPTIVE, 64, 400, true },
		{ SIM_ADAPTIVE, 1024, 40, true },
	};
	unsigned bad = 0;

	(void)state;
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sim_result r = sim_run(cases[c].kind, cases[c].flows, cases[c].forced,
					      cases[c].pkts, 0xc0111de + c);
		print_message("%s, %u flows, %s hashes: %u packets, %u inside a flowlet, "
			      "%u of them moved; %u moves after a gap; %llu collisions\n",
			      kind_name[cases[c].kind], cases[c].flows,
			      cases[c].forced ? "forced" : "random", r.packets, r.inside,
			      r.moved_inside, r.moved_after, (unsigned long long)r.collisions);
		bad += r.moved_inside;
		/* the flows' own gaps still end flowlets: flows do move after them */
		if (cases[c].kind != SIM_ADAPTIVE || cases[c].forced)
			assert_true(r.moved_after > 0);
		if (cases[c].forced)
			assert_true(r.collisions > 0);
	}
	assert_int_equal(bad, 0);
}

/* ns-3's LetFlow keeps the path when the gap is exactly gap_ns ("le");
 * "lt" starts a new flowlet there. */
static void
test_gap_test_le(void **state)
{
	(void)state;
	for (int le = 0; le <= 1; le++) {
		struct fix *f = fix_new(8, AIF_FLOWLET_RANDOM, 4096);
		aif_time_ns t = 5 * AIF_NS_PER_MS;
		f->p.flowlet_gap_le = le;
		uint32_t first = sel(f, 0x5eedu, t);
		for (int i = 0; i < 100; i++) {
			t += GAP_NS; /* exactly the gap */
			uint32_t m = sel(f, 0x5eedu, t);
			if (le)
				assert_int_equal(m, first);
		}
		assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), le ? 1 : 101);
		/* one ns more is a gap either way */
		t += GAP_NS + 1;
		sel(f, 0x5eedu, t);
		assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), le ? 2 : 102);
		fix_free(f);
	}
}

/* The same simulations on the exact table, roomy and too small: no flow
 * moves inside its flowlet, no flow shares another's. */
static void
test_exact_keeps_flowlets(void **state)
{
	static const uint32_t sizes[] = { 4096, 256 };

	(void)state;
	sim_table = AIF_FLOWLET_TABLE_EXACT;
	for (unsigned k = 0; k < 2; k++) {
		sim_table_size = sizes[k];
		for (unsigned c = 0; c < 2; c++) {
			struct sim_result r = sim_run(SIM_RANDOM, 1024, c == 0, 40, 0xe8ac7 + c);
			print_message("exact table of %u, 1024 flows, %s hashes: %u packets, %u "
				      "inside a flowlet, %u of them moved; %u moves after a gap; "
				      "%llu collisions\n", sizes[k], c == 0 ? "forced" : "random",
				      r.packets, r.inside, r.moved_inside, r.moved_after,
				      (unsigned long long)r.collisions);
			assert_int_equal(r.moved_inside, 0);
			assert_int_equal(r.collisions, 0);
			assert_true(r.moved_after > 0);
		}
	}
	sim_table = AIF_FLOWLET_TABLE_DIRECT;
	sim_table_size = 4096;
}

static uint64_t
starts(const struct fix *f)
{
	return sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS);
}

/*
 * Two flows whose hashes pick the same direct-mapped entry (equal low bits):
 * flow A sends once, flow B every 50 us, A again 500 us later.  Direct
 * table: B shares A's flowlet (one collision) and keeps the entry open, so
 * A's 500 us gap ends nothing: one flowlet start in all, A back on the
 * member it left.  Exact table: each has its own entry: A, B, and A after
 * its gap start three flowlets, no collision.  Over 200 trials A's new
 * flowlet after the gap lands elsewhere (n-1)/n of the time under exact, never under direct.
 */
static void
test_exact_separates_colliding_flows(void **state)
{
	const uint32_t ha = 0x00000a5a, hb = 0x7fff0a5a; /* same index below 2^16 */
	unsigned moved[2] = { 0, 0 };

	(void)state;
	assert_int_equal(aif_lb_flowlet_index(ha, 3, 4096), aif_lb_flowlet_index(hb, 3, 4096));
	for (unsigned trial = 0; trial < 200; trial++) {
		for (uint8_t table = 0; table <= 1; table++) {
			struct fix *f = fix_new(8, AIF_FLOWLET_RANDOM, 4096);
			aif_time_ns t = (1 + trial) * AIF_NS_PER_MS;
			f->p.flowlet_table = table;
			f->p.flowlet_gap_le = true;
			aif_rng_seed(&f->rng, 0x5eed0000ull + trial); /* the same for both */
			uint32_t a0 = sel(f, ha, t);
			for (unsigned i = 1; i <= 10; i++)
				sel(f, hb, t + i * 50 * AIF_NS_PER_US);
			uint32_t a1 = sel(f, ha, t + 500 * AIF_NS_PER_US);
			moved[table] += a1 != a0;
			if (table == AIF_FLOWLET_TABLE_DIRECT) {
				assert_int_equal(starts(f), 1);
				assert_int_equal(collisions(f), 1);
				assert_int_equal(a1, a0);
			} else {
				assert_int_equal(starts(f), 3);
				assert_int_equal(collisions(f), 0);
			}
			fix_free(f);
		}
	}
	print_message("A after a 500 us gap, B busy on the same direct entry: moved %u of 200 "
		      "(direct), %u of 200 (exact)\n", moved[0], moved[1]);
	assert_int_equal(moved[0], 0);
	/* 7/8 of 200 = 175, standard error 4.7 */
	assert_true(moved[1] > 160 && moved[1] < 190);
}

/*
 * The exact table's bound: 16 entries, 17 flows inside one gap: the 17th
 * finds every entry holding an open flowlet and goes by its hash, counted
 * per packet, without moving; once the others' flowlets have ended it takes
 * the oldest entry.  Entries idle past aging are taken first; a flow finds
 * its entry past others (linear probing) and the tag tells apart two flows
 * of one hash.
 */
static void
test_exact_bound_and_aging(void **state)
{
	struct fix *f = fix_new(4, AIF_FLOWLET_RANDOM, 16);
	aif_time_ns t = AIF_NS_PER_MS;
	uint64_t untracked;

	(void)state;
	f->p.flowlet_table = AIF_FLOWLET_TABLE_EXACT;
	f->p.flowlet_gap_le = true;
	for (uint32_t i = 0; i < 16; i++)
		sel(f, i * 16 + 3, t); /* every one on entry 3 first: probing */
	assert_int_equal(starts(f), 16);
	uint32_t m17 = sel(f, 0xabcd0003, t + 10);
	uint32_t want = (uint32_t)(((uint64_t)0xabcd0003 * 4) >> 32);
	assert_int_equal(m17, want);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sel(f, 0xabcd0003, t + 20 + (aif_time_ns)i), want);
	untracked = sum(f->st->flowlet_untracked, AIF_MAX_MEMBER_SLOTS);
	assert_int_equal(untracked, 6);
	assert_int_equal(starts(f), 16);
	/* the 16 keep their entries: found past each other, none restarts */
	for (uint32_t i = 0; i < 16; i++)
		sel(f, i * 16 + 3, t + 50 * AIF_NS_PER_US + i);
	assert_int_equal(starts(f), 16);
	/* the same hash, another flow (another port): a flow of its own */
	f->pkt.src_port = 0x1234;
	sel(f, 0xabcd0003, t + 60 * AIF_NS_PER_US);
	assert_int_equal(sum(f->st->flowlet_untracked, AIF_MAX_MEMBER_SLOTS), 7);
	f->pkt.src_port = 0;
	/* 200 us on, flow 0's flowlet (last seen at t + 50 us) has ended and is
	 * the oldest: the 17th flow starts a flowlet in its entry */
	t += 160 * AIF_NS_PER_US;
	sel(f, 0xabcd0003, t);
	assert_int_equal(starts(f), 17);
	assert_int_equal(sum(f->st->flowlet_untracked, AIF_MAX_MEMBER_SLOTS), 7);
	/* all idle past aging: a new flow takes an entry, no reselection */
	t += 3 * AGE_NS;
	sel(f, 0x99990003, t);
	assert_int_equal(starts(f), 18);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 0);
	assert_int_equal(collisions(f), 0);
	fix_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_gaps_keep_member),
		cmocka_unit_test(test_gap_test_le),
		cmocka_unit_test(test_random_change_rate),
		cmocka_unit_test(test_least_loaded),
		cmocka_unit_test(test_aging_and_collisions),
		cmocka_unit_test(test_counters_exact),
		cmocka_unit_test(test_sharing_exact),
		cmocka_unit_test(test_shared_entries_keep_flowlets),
		cmocka_unit_test(test_exact_separates_colliding_flows),
		cmocka_unit_test(test_exact_keeps_flowlets),
		cmocka_unit_test(test_exact_bound_and_aging),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
