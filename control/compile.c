/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config -> tables compiler (see compile.h).  Runs on the control thread.
 *
 * FIB contents (of one prefix the later wins; the config refuses a route
 * equal to a connected subnet or to an address of the switch, so only a
 * port's /32 or /128 subnet meets its own address):
 *   1. each port subnet            -> CONNECTED(port)
 *   2. each configured route       -> GROUP(g) or DROP
 *   3. each interface address /32, /128 -> LOCAL(port)
 * IPv4 entries go in in that order; IPv6 ones shortest first, with synthetic
 * entries that change no lookup (see "FIB sizing").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_fib6.h>

#include "../dataplane/qos.h"
#include "../dataplane/shard.h"
#include "../pipelines/lb.h"
#include "../pipelines/lb_buckets.h"
#include "compile.h"

static const char *const nh_type_names[] = {
	[AIF_NH_MISS] = "none", [AIF_NH_GROUP] = "group",
	[AIF_NH_CONNECTED] = "connected", [AIF_NH_DROP] = "drop",
	[AIF_NH_LOCAL] = "local",
};

const char *
aif_nh_type_name(enum aif_nh_type type)
{
	return (unsigned)type < RTE_DIM(nh_type_names) ? nh_type_names[type] : "?";
}

static int
fib_add(struct aif_tables *t, const struct aif_prefix *p, uint64_t nh)
{
	if (p->addr.family == AIF_AF_INET4)
		return rte_fib_add(t->fib4, aif_ip4_host(&p->addr), p->len, nh);
	return rte_fib6_add(t->fib6, p->addr.b, p->len, nh);
}

/*
 * Counter slot of a group member, stable across reloads for the same key; a
 * member new to the switch takes a free slot, whose counts start from zero
 * (the slot's last owner left the published tables, so its counts are final).
 */
static uint32_t
member_ctr_slot(struct aif_switch *sw, const char *group, const struct aif_ip *ip,
		uint16_t port)
{
	uint32_t free_slot = UINT32_MAX;
	for (uint32_t s = 0; s < sw->n_member_slots; s++) {
		struct aif_member_key *k = &sw->member_keys[s];
		if (!k->used) {
			if (free_slot == UINT32_MAX)
				free_slot = s;
			continue;
		}
		if (k->port == port && aif_ip_equal(&k->ip, ip) &&
		    strcmp(k->group, group) == 0)
			return s;
	}
	if (free_slot == UINT32_MAX && sw->n_member_slots < AIF_MAX_MEMBER_SLOTS) {
		uint32_t n = sw->n_member_slots;
		if (aif_switch_member_slots_grow(sw, n + 1) == 0)
			free_slot = n;
	}
	if (free_slot != UINT32_MAX) {
		struct aif_member_key *k = &sw->member_keys[free_slot];
		snprintf(k->group, sizeof(k->group), "%s", group);
		k->ip = *ip;
		k->port = port;
		k->used = 1;
		aif_switch_member_slot_reset(sw, free_slot);
	}
	return free_slot;
}

/*
 * FIB sizing.  Both FIBs keep a table of 2^24 entries (64 MiB at 4 bytes)
 * and a pool of tbl8 groups (256 entries, 1 KiB each) for the bits past
 * /24, allocated when the FIB is created; rte_fib*_add fails with -ENOSPC
 * when the pool cannot cover a new route.  Sizing that pool for the worst
 * case (14 groups per IPv6 route: 896 MiB for 65,536 routes) exhausts an
 * EAL -m 1024, so it is sized from what the entries need.
 *
 * IPv4 (DIR24_8) reserves one group per /24 block holding an entry longer
 * than /24: the count of such distinct blocks is exact.
 *
 * IPv6 (trie) needs one group per distinct (level, prefix) node: for each
 * level b = 24, 32, ..., 120, the distinct b-bit prefixes of the entries
 * longer than b.  But DPDK 22.11 (lib/fib/trie.c, trie_modify) admits a
 * route only if its own reservation fits, and reserves per route the levels
 * between it and the longest route covering it: 5 for a /64 under nothing,
 * 8 for a /128 under a /64, however many groups the routes share (65,536
 * host routes in one /64 would reserve 524,288 groups and use 268).  So the
 * entries go in shortest first, each path through the trie already held by
 * a route at every level above: where no entry of the config is, a
 * "synthetic" one at that node's prefix carrying the next hop the lookup
 * gives there at that moment.  That next hop is what the entries shorter
 * than it give (those longer come later), so lookups are unchanged, and the
 * trie skips the data plane for a route whose next hop is its parent's (no
 * reservation either).  Each config entry then reserves at most one group,
 * each /32 synthetic (it may have no parent) one, and the pool needs
 * max(distinct nodes, those reservations).  Measured (the smallest pool
 * that loads, against this count): 65,536 /64s in distinct /56s 131,331
 * (131,330); 65,536 host routes in one /64 65,537 (65,536); 65,536
 * /48../64 65,537..92,648 (92,647).  FIB_SLACK_TBL8 covers the difference.
 */
#define FIB_SLACK_TBL8 64

/* One IPv6 FIB entry (build_fib6). */
struct fib6_ent {
	uint8_t a[16];  /* host bits zero */
	uint8_t len;
	uint8_t rank;   /* of entries with one prefix the highest wins (below) */
	uint16_t port;  /* connected, local: port; route: - */
	uint32_t src;   /* route index, or address index in the port */
	uint64_t nh;
};
enum { FIB6_SYNTH = 0, FIB6_CONNECTED = 1, FIB6_ROUTE = 2, FIB6_LOCAL = 3 };

static void
mask6(uint8_t *a, unsigned int len)
{
	for (unsigned int i = 0; i < 16; i++, len = len > 8 ? len - 8 : 0)
		if (len < 8)
			a[i] &= (uint8_t)(0xff00u >> len);
}

/* By address, then length, then rank. */
static int
fib6_addr_cmp(const void *va, const void *vb)
{
	const struct fib6_ent *x = va, *y = vb;
	int d = memcmp(x->a, y->a, 16);

	if (d != 0)
		return d;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->rank - (int)y->rank;
}

/* By address, then length: one prefix (e[] holds each once). */
static int
fib6_prefix_cmp(const void *va, const void *vb)
{
	const struct fib6_ent *x = va, *y = vb;
	int d = memcmp(x->a, y->a, 16);

	return d != 0 ? d : (int)x->len - (int)y->len;
}

/* By length (the insertion order), then address. */
static int
fib6_len_cmp(const void *va, const void *vb)
{
	const struct fib6_ent *x = va, *y = vb;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->a, y->a, 16);
}

static int
u32_cmp(const void *va, const void *vb)
{
	uint32_t x = *(const uint32_t *)va, y = *(const uint32_t *)vb;

	return x < y ? -1 : x > y;
}

/* DPDK heap free in all (*free_bytes) and its largest block, in bytes. */
static void
dpdk_free_mem(uint64_t *free_bytes, uint64_t *largest_bytes)
{
	*free_bytes = *largest_bytes = 0;
	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) != 0)
			continue;
		*free_bytes += st.heap_freesz_bytes;
		*largest_bytes = RTE_MAX(*largest_bytes, (uint64_t)st.greatest_free_size);
	}
}

/* A FIB that could not be created: what it needs, what there is. */
static void
fib_create_fail(const char *fam, uint32_t routes, uint32_t tbl8, uint64_t tbl8_bytes,
		char *err, size_t err_len)
{
	/* the 2^24 table, the groups, and the RIB: two nodes per entry, each
	 * about 212 bytes as its mempool lays them out (measured), say 256 */
	uint64_t need = (1ull << 24) * 4 + (uint64_t)(tbl8 + 1) * tbl8_bytes +
			(uint64_t)routes * 2 * 256;
	uint64_t free_b, largest;

	/* rte_errno says EINVAL after a failed trie allocation: memory it is */
	dpdk_free_mem(&free_b, &largest);
	snprintf(err, err_len, "cannot create the %s FIB for %u entries: it needs about "
		 "%" PRIu64 " MiB of DPDK memory (%u tbl8 groups of %" PRIu64 " B), DPDK "
		 "has %" PRIu64 " MiB free (largest block %" PRIu64 " MiB); raise EAL -m",
		 fam, routes, (need + (1 << 20) - 1) >> 20, tbl8, tbl8_bytes, free_b >> 20,
		 largest >> 20);
}

/* An entry rte_fib*_add refused, at its JSON path. */
static void
fib_add_fail(const struct aif_switch_params *sp, uint16_t sw_index, bool route,
	     uint16_t port, uint32_t src, const struct aif_prefix *pf, int rc,
	     char *err, size_t err_len)
{
	char buf[64];

	aif_prefix_fmt(pf, buf, sizeof(buf));
	if (route)
		snprintf(err, err_len, "$.switches[%u].routes[%u].prefix: cannot add %s "
			 "to the FIB: %s", sw_index, src, buf, rte_strerror(-rc));
	else
		snprintf(err, err_len, "$.switches[%u].ports[%u].addresses[%u]: cannot add "
			 "%s (port %s) to the FIB: %s", sw_index, port, src, buf,
			 sp->ports[port].name, rte_strerror(-rc));
}

/* IPv4: connected subnets, then routes, then the switch's own /32s (a later
 * add of the same prefix wins). */
static int
build_fib4(struct aif_tables *t, const struct aif_switch_params *sp, uint16_t sw_index,
	   const char *name, char *err, size_t err_len)
{
	uint32_t n4 = 0, nlong = 0, blocks = 0, *keys;
	int rc;

	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++)
			n4 += sp->ports[p].addrs[a].addr.family == AIF_AF_INET4 ? 2 : 0;
	for (uint32_t r = 0; r < sp->n_routes; r++)
		n4 += sp->routes[r].prefix.addr.family == AIF_AF_INET4;
	/* the /24 blocks that hold an entry longer than /24 */
	keys = malloc((n4 ? n4 : 1) * sizeof(*keys));
	if (keys == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			const struct aif_prefix *pf = &sp->ports[p].addrs[a];
			if (pf->addr.family != AIF_AF_INET4)
				continue;
			keys[nlong++] = aif_ip4_host(&pf->addr) >> 8; /* its /32 */
			if (pf->len > 24)
				keys[nlong++] = aif_ip4_host(&pf->addr) >> 8;
		}
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_prefix *pf = &sp->routes[r].prefix;
		if (pf->addr.family == AIF_AF_INET4 && pf->len > 24)
			keys[nlong++] = aif_ip4_host(&pf->addr) >> 8;
	}
	qsort(keys, nlong, sizeof(*keys), u32_cmp);
	for (uint32_t i = 0; i < nlong; i++)
		blocks += i == 0 || keys[i] != keys[i - 1];
	free(keys);

	/* the 2^24-entry first level (64 MiB) that looks up a burst fastest
	 * (a fabric of many switches has lpm.h tables instead) */
	struct rte_fib_conf c4 = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = aif_nh_make(AIF_NH_MISS, 0),
		.max_routes = (int)n4 + 16,
		.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = blocks + FIB_SLACK_TBL8 },
	};
	t->fib4 = rte_fib_create(name, SOCKET_ID_ANY, &c4);
	if (t->fib4 == NULL) {
		fib_create_fail("IPv4", n4, c4.dir24_8.num_tbl8, 256 * 4, err, err_len);
		return -1;
	}
	/* 1. connected subnets, 2. configured routes, 3. the switch's own addresses */
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			struct aif_prefix net = sp->ports[p].addrs[a];
			if (net.addr.family != AIF_AF_INET4)
				continue;
			aif_prefix_normalize(&net);
			if ((rc = fib_add(t, &net, aif_nh_make(AIF_NH_CONNECTED, p))) != 0) {
				fib_add_fail(sp, sw_index, false, p, a, &net, rc, err, err_len);
				return -1;
			}
		}
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_route_params *rp = &sp->routes[r];
		uint64_t nh = rp->kind == AIF_ROUTE_DROP
			? aif_nh_make(AIF_NH_DROP, 0)
			: aif_nh_make(AIF_NH_GROUP, rp->group);
		if (rp->prefix.addr.family != AIF_AF_INET4)
			continue;
		if ((rc = fib_add(t, &rp->prefix, nh)) != 0) {
			fib_add_fail(sp, sw_index, true, 0, r, &rp->prefix, rc, err, err_len);
			return -1;
		}
	}
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			struct aif_prefix host = sp->ports[p].addrs[a];
			if (host.addr.family != AIF_AF_INET4)
				continue;
			host.len = 32;
			if ((rc = fib_add(t, &host, aif_nh_make(AIF_NH_LOCAL, p))) != 0) {
				fib_add_fail(sp, sw_index, false, p, a, &host, rc, err, err_len);
				return -1;
			}
		}
	return 0;
}

/* IPv6: the config's entries and their synthetic parents, shortest first
 * (see "FIB sizing" above). */
static int
build_fib6(struct aif_tables *t, const struct aif_switch_params *sp, uint16_t sw_index,
	   const char *name, char *err, size_t err_len)
{
	uint32_t n = 0, m = 0, n_deep = 0, n_syn32 = 0, distinct = 0;
	struct fib6_ent *e, *all = NULL;
	uint8_t last[16][16];
	bool have[16] = { false };
	int rc = 0;

	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++)
			n += sp->ports[p].addrs[a].addr.family == AIF_AF_INET6 ? 2 : 0;
	for (uint32_t r = 0; r < sp->n_routes; r++)
		n += sp->routes[r].prefix.addr.family == AIF_AF_INET6;
	e = malloc((n ? n : 1) * sizeof(*e));
	if (e == NULL)
		goto nomem;
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			const struct aif_prefix *pf = &sp->ports[p].addrs[a];
			if (pf->addr.family != AIF_AF_INET6)
				continue;
			struct fib6_ent c = { .len = pf->len, .rank = FIB6_CONNECTED, .port = p,
					      .src = a, .nh = aif_nh_make(AIF_NH_CONNECTED, p) };
			memcpy(c.a, pf->addr.b, 16);
			mask6(c.a, c.len);
			e[m++] = c;
			struct fib6_ent l = { .len = 128, .rank = FIB6_LOCAL, .port = p, .src = a,
					      .nh = aif_nh_make(AIF_NH_LOCAL, p) };
			memcpy(l.a, pf->addr.b, 16);
			e[m++] = l;
		}
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_route_params *rp = &sp->routes[r];
		if (rp->prefix.addr.family != AIF_AF_INET6)
			continue;
		struct fib6_ent x = { .len = rp->prefix.len, .rank = FIB6_ROUTE, .src = r,
				      .nh = rp->kind == AIF_ROUTE_DROP
					    ? aif_nh_make(AIF_NH_DROP, 0)
					    : aif_nh_make(AIF_NH_GROUP, rp->group) };
		memcpy(x.a, rp->prefix.addr.b, 16);
		e[m++] = x;
	}
	/* one entry per prefix, the highest rank (a port's own /128 over its /128
	 * subnet), as if added in rank order with the later add winning */
	qsort(e, m, sizeof(*e), fib6_addr_cmp);
	n = 0;
	for (uint32_t i = 0; i < m; i++) {
		if (n > 0 && e[n - 1].len == e[i].len && memcmp(e[n - 1].a, e[i].a, 16) == 0)
			n--;
		e[n++] = e[i];
	}
	/* Trie nodes, in address order: entries that share a b-bit prefix are
	 * adjacent, so one "last prefix seen" per level counts each once; a
	 * node at level b >= 32 gets a synthetic entry at its prefix (/b)
	 * unless the config has one there. */
	all = malloc(((size_t)n * 13 + 1) * sizeof(*all));
	if (all == NULL)
		goto nomem;
	memcpy(all, e, n * sizeof(*e));
	m = n;
	for (uint32_t i = 0; i < n; i++) {
		n_deep += e[i].len > 24;
		for (unsigned b = 24; b < e[i].len && b <= 120; b += 8) {
			struct fib6_ent s = { .len = (uint8_t)b, .rank = FIB6_SYNTH };
			memcpy(s.a, e[i].a, 16);
			mask6(s.a, b);
			if (have[b / 8] && memcmp(last[b / 8], s.a, 16) == 0)
				continue;
			have[b / 8] = true;
			memcpy(last[b / 8], s.a, 16);
			distinct++;
			if (b < 32 || bsearch(&s, e, n, sizeof(*e), fib6_prefix_cmp) != NULL)
				continue;
			n_syn32 += b == 32;
			all[m++] = s;
		}
	}
	free(e);
	e = NULL;
	qsort(all, m, sizeof(*all), fib6_len_cmp);

	struct rte_fib6_conf c6 = {
		.type = RTE_FIB6_TRIE,
		.default_nh = aif_nh_make(AIF_NH_MISS, 0),
		.max_routes = (int)m + 16,
		.trie = { .nh_sz = RTE_FIB6_TRIE_4B,
			  .num_tbl8 = RTE_MAX(distinct, n_deep + n_syn32) + FIB_SLACK_TBL8 },
	};
	t->fib6 = rte_fib6_create(name, SOCKET_ID_ANY, &c6);
	if (t->fib6 == NULL) {
		fib_create_fail("IPv6", m, c6.trie.num_tbl8, 256 * 4, err, err_len);
		goto err;
	}
	for (uint32_t i = 0; i < m; i++) {
		uint64_t nh = all[i].nh;
		if (all[i].rank == FIB6_SYNTH) {
			uint8_t ip[1][RTE_FIB6_IPV6_ADDR_SIZE];
			memcpy(ip[0], all[i].a, 16);
			rte_fib6_lookup_bulk(t->fib6, ip, &nh, 1);
		}
		rc = rte_fib6_add(t->fib6, all[i].a, all[i].len, nh);
		if (rc != 0) {
			struct aif_prefix pf = { .addr = { .family = AIF_AF_INET6 },
						 .len = all[i].len };
			memcpy(pf.addr.b, all[i].a, 16);
			if (all[i].rank == FIB6_SYNTH) {
				char buf[64];
				snprintf(err, err_len, "cannot add the trie node %s to the IPv6 "
					 "FIB (%u groups for %u entries): %s",
					 aif_prefix_fmt(&pf, buf, sizeof(buf)),
					 c6.trie.num_tbl8, m, rte_strerror(-rc));
			} else
				fib_add_fail(sp, sw_index, all[i].rank == FIB6_ROUTE,
					     all[i].port, all[i].src, &pf, rc, err, err_len);
			goto err;
		}
	}
	free(all);
	return 0;
nomem:
	snprintf(err, err_len, "out of memory");
err:
	free(e);
	free(all);
	return -1;
}

/*
 * A fabric switch's tables (lpm.h): connected subnets, then routes, then
 * the switch's own addresses, a later entry with the same prefix winning,
 * as the FIBs are filled.
 */
static int
build_lpm(struct aif_tables *t, const struct aif_switch_params *sp, char *err,
	  size_t err_len)
{
	uint32_t n = sp->n_routes, m = 0;
	struct aif_prefix *pf;
	uint64_t *nh;

	for (uint16_t p = 0; p < sp->n_ports; p++)
		n += 2u * sp->ports[p].n_addrs;
	pf = malloc((n ? n : 1) * sizeof(*pf));
	nh = malloc((n ? n : 1) * sizeof(*nh));
	if (pf == NULL || nh == NULL)
		goto nomem;
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			pf[m] = sp->ports[p].addrs[a];
			aif_prefix_normalize(&pf[m]);
			nh[m++] = aif_nh_make(AIF_NH_CONNECTED, p);
		}
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_route_params *rp = &sp->routes[r];
		pf[m] = rp->prefix;
		nh[m++] = rp->kind == AIF_ROUTE_DROP ? aif_nh_make(AIF_NH_DROP, 0)
						     : aif_nh_make(AIF_NH_GROUP, rp->group);
	}
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			pf[m] = sp->ports[p].addrs[a];
			pf[m].len = pf[m].addr.family == AIF_AF_INET4 ? 32 : 128;
			nh[m++] = aif_nh_make(AIF_NH_LOCAL, p);
		}
	t->lpm4 = aif_lpm_create(AIF_AF_INET4, pf, nh, m, aif_nh_make(AIF_NH_MISS, 0));
	t->lpm6 = aif_lpm_create(AIF_AF_INET6, pf, nh, m, aif_nh_make(AIF_NH_MISS, 0));
	if (t->lpm4 == NULL || t->lpm6 == NULL)
		goto nomem;
	free(pf);
	free(nh);
	return 0;
nomem:
	free(pf);
	free(nh);
	snprintf(err, err_len, "out of memory");
	return -1;
}

static int
build_fibs(struct aif_tables *t, const struct aif_switch_params *sp, uint16_t sw_index,
	   bool compact, char *err, size_t err_len)
{
	static uint64_t seq; /* FIB names must be unique in the process */
	char name[64];

	if (compact)
		return build_lpm(t, sp, err, err_len);

	snprintf(name, sizeof(name), "aif4_%u_%" PRIu64, sw_index, ++seq);
	if (build_fib4(t, sp, sw_index, name, err, err_len) != 0)
		return -1;
	snprintf(name, sizeof(name), "aif6_%u_%" PRIu64, sw_index, seq);
	return build_fib6(t, sp, sw_index, name, err, err_len);
}

/*
 * A group member that got no neighbour or counter slot, at its JSON path: a
 * group of the file is nexthop_groups[g] (they come first, in file order),
 * an implicit one ("<ip>@<port>", no file name has '@') is the "nexthop" of
 * the first route that uses it.
 */
static void
member_fail(const struct aif_switch_params *sp, uint16_t sw_index, uint32_t g,
	    uint16_t k, bool no_neigh, char *err, size_t err_len)
{
	const struct aif_group_params *gp = &sp->groups[g];
	const struct aif_nexthop_params *np = &gp->members[k];
	char path[96], ip[64];
	uint32_t r = 0;

	if (strchr(gp->name, '@') == NULL) {
		snprintf(path, sizeof(path), "$.switches[%u].nexthop_groups[%u].members[%u]",
			 sw_index, g, k);
	} else {
		while (r + 1 < sp->n_routes &&
		       !(sp->routes[r].kind == AIF_ROUTE_GROUP && sp->routes[r].group == g))
			r++;
		snprintf(path, sizeof(path), "$.switches[%u].routes[%u].nexthop", sw_index, r);
	}
	aif_ip_fmt(&np->ip, ip, sizeof(ip));
	if (no_neigh)
		snprintf(err, err_len, "%s: no free neighbour slot for %s on port %s "
			 "(%u slots hold configured neighbours and next hops)", path, ip,
			 sp->ports[np->port].name, AIF_NEIGH_CONFIGURED_MAX);
	else
		snprintf(err, err_len, "%s: no free counter slot for member %s@%s of "
			 "group %s (%u slots, all taken)", path, ip, sp->ports[np->port].name,
			 gp->name, AIF_MAX_MEMBER_SLOTS);
}

/* The same next hops (IP and port) at the same offsets: buckets, which name
 * offsets, may then be kept. */
static bool
same_members(const struct aif_tables *a, const struct aif_group *ga,
	     const struct aif_tables *b, const struct aif_group *gb)
{
	if (ga->n != gb->n || ga->n_buckets != gb->n_buckets)
		return false;
	for (uint16_t k = 0; k < ga->n; k++) {
		const struct aif_member *x = &a->members[ga->first + k];
		const struct aif_member *y = &b->members[gb->first + k];
		if (x->port != y->port || !aif_ip_equal(&x->ip, &y->ip))
			return false;
	}
	return true;
}

struct aif_tables *
aif_tables_compile(struct aif_switch *sw, const struct aif_config *cfg,
		   uint16_t sw_index, char *err, size_t err_len)
{
	const struct aif_switch_params *sp;
	struct aif_tables *t;

	if (sw_index >= cfg->n_switches) {
		snprintf(err, err_len, "$.switches: no switch %u in the config (it has %u)",
			 sw_index, cfg->n_switches);
		return NULL;
	}
	sp = &cfg->switches[sw_index];
	if (sp->n_ports != sw->n_ports) {
		snprintf(err, err_len, "$.switches[%u].ports: switch %s has %u ports, "
			 "the running switch %u", sw_index, sp->name, sp->n_ports,
			 sw->n_ports);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	t->generation = sw->generation + 1;
	t->n_ports = sp->n_ports;
	for (uint16_t p = 0; p < sp->n_ports; p++) {
		const struct aif_port_params *pp = &sp->ports[p];
		struct aif_port_l3 *l3 = &t->ports[p];
		l3->mac = pp->mac_set ? pp->mac : sw->ports[p].dev_mac;
		l3->mtu = pp->mtu;
		l3->tagged = pp->vlan_set;
		l3->vlan_id = pp->vlan;
		l3->n_addrs = pp->n_addrs;
		memcpy(l3->addrs, pp->addrs, sizeof(l3->addrs));
		l3->bfd = pp->bfd_interval_us != 0 && sw->bfd_rx != NULL; /* (sessions run) */
	}

	const struct aif_policy_params *pol = &cfg->policies[sp->policy];
	t->trust = pol->trust;
	memcpy(t->dscp_to_tc, pol->dscp_to_tc, sizeof(t->dscp_to_tc));
	memcpy(t->pcp_to_tc, pol->pcp_to_tc, sizeof(t->pcp_to_tc));
	t->lb = pol->lb;
	for (unsigned tc = 0; tc < 8; tc++) {
		uint8_t sc = t->lb.scheme_by_tc[tc];
		t->lb_adaptive |= sc == AIF_LB_ADAPTIVE;
		t->lb_load_aware |= sc == AIF_LB_ADAPTIVE ||
				    (sc == AIF_LB_FLOWLET &&
				     t->lb.flowlet_mode == AIF_FLOWLET_LEAST_LOADED) ||
				    (sc == AIF_LB_SPRAY && t->lb.spray_mode == AIF_SPRAY_DRILL);
	}
	/* a shard's flowlet table (1 MiB) exists once a scheme needs it */
	for (uint16_t i = 0; aif_lb_uses_flowlet(&t->lb) && i < sw->n_shards; i++)
		if (aif_lb_flowlet_table(sw->shards[i]->fwd.lb) != 0) {
			snprintf(err, err_len, "out of DPDK memory for the flowlet table "
				 "(%zu bytes a worker)",
				 (size_t)AIF_FLOWLET_MAX * sizeof(struct aif_flowlet_entry));
			goto err;
		}
	/* hash murmur3_ns3 keys on ns-3's seed, the switch's node id */
	t->seed = t->lb.hash_alg == AIF_HASH_MURMUR3_NS3 ? sp->ecmp_seed : sp->seed;
	t->proxy_arp = sp->proxy_arp;
	t->neigh = sp->neigh;

	uint32_t n_members = 0;
	for (uint32_t g = 0; g < sp->n_groups; g++)
		n_members += sp->groups[g].n_members;
	t->n_groups = sp->n_groups;
	t->n_members = n_members;
	t->groups = calloc(sp->n_groups ? sp->n_groups : 1, sizeof(*t->groups));
	t->members = calloc(n_members ? n_members : 1, sizeof(*t->members));
	if (t->groups == NULL || t->members == NULL) {
		snprintf(err, err_len, "out of memory");
		goto err;
	}
	uint32_t n_buckets = 0;
	for (uint32_t g = 0; g < sp->n_groups; g++)
		n_buckets += (uint32_t)sp->groups[g].n_members * t->lb.buckets_per_member;
	t->buckets = malloc(n_buckets ? n_buckets : 1);
	if (t->buckets == NULL) {
		snprintf(err, err_len, "out of memory");
		goto err;
	}
	const struct aif_tables *prev = sw->tables;
	uint32_t m = 0, b = 0;
	for (uint32_t g = 0; g < sp->n_groups; g++) {
		const struct aif_group_params *gp = &sp->groups[g];
		struct aif_group *gr = &t->groups[g];
		snprintf(gr->name, sizeof(gr->name), "%s", gp->name);
		gr->withdrawn = gp->withdrawn;
		gr->first = m;
		gr->n = gp->n_members;
		gr->scheme = t->lb.scheme;
		gr->bucket_first = b;
		gr->n_buckets = (uint32_t)gp->n_members * t->lb.buckets_per_member;
		b += gr->n_buckets;
		for (uint16_t k = 0; k < gp->n_members; k++, m++) {
			const struct aif_nexthop_params *np = &gp->members[k];
			struct aif_member *mem = &t->members[m];
			mem->ip = np->ip;
			mem->port = np->port;
			mem->weight = (uint16_t)np->weight;
			mem->neigh_slot = aif_neigh_get(sw->neigh, &np->ip, np->port);
			mem->ctr_slot = member_ctr_slot(sw, gp->name, &np->ip, np->port);
			if (mem->neigh_slot == AIF_NEIGH_NONE ||
			    mem->ctr_slot == UINT32_MAX) {
				member_fail(sp, sw_index, g, k,
					    mem->neigh_slot == AIF_NEIGH_NONE, err, err_len);
				goto err;
			}
		}
	}
	/* Bucket tables: weights count for WCMP only; members on ports whose link
	 * is down get none, nor those withdrawn (withdraw.h); the running table
	 * of a group with the same name and members is the starting point, so
	 * only the flows that must move do. */
	for (uint32_t g = 0; g < t->n_groups; g++) {
		struct aif_group *gr = &t->groups[g];
		uint32_t weights[AIF_MAX_MEMBERS];
		bool up[AIF_MAX_MEMBERS];
		const uint8_t *pb = NULL;
		uint32_t pn = 0;
		for (uint16_t k = 0; k < gr->n; k++) {
			const struct aif_member *mem = &t->members[gr->first + k];
			weights[k] = t->lb.scheme == AIF_LB_WCMP ? mem->weight : 1;
			up[k] = sw->ports[mem->port].link_up != 0 &&
				!((sp->groups[g].withdrawn >> k) & 1);
			if (up[k]) {
				gr->up_mask |= 1ull << k;
				gr->up[gr->n_up++] = (uint8_t)k;
			}
		}
		for (uint32_t q = 0; prev != NULL && q < prev->n_groups; q++) {
			const struct aif_group *pg = &prev->groups[q];
			if (strcmp(pg->name, gr->name) == 0 && same_members(prev, pg, t, gr)) {
				pb = prev->buckets + pg->bucket_first;
				pn = pg->n_buckets;
				break;
			}
		}
		aif_lb_buckets_build(t->buckets + gr->bucket_first, gr->n_buckets, gr->n,
				     weights, up, pb, pn);
	}
	/* Static neighbours get their slot now, so that a table full of
	 * learned entries cannot turn a load into "ok" without them. */
	for (uint32_t i = 0; i < sp->n_neighbors; i++) {
		const struct aif_neighbor_params *np = &sp->neighbors[i];
		if (aif_neigh_get(sw->neigh, &np->ip, np->port) == AIF_NEIGH_NONE) {
			char ip[64];
			aif_ip_fmt(&np->ip, ip, sizeof(ip));
			snprintf(err, err_len, "$.switches[%u].neighbors[%u]: no free neighbour "
				 "slot for %s (%u slots hold configured neighbours and next hops)",
				 sw_index, i, ip, AIF_NEIGH_CONFIGURED_MAX);
			goto err;
		}
	}
	if (build_fibs(t, sp, sw_index, sw->fib_compact, err, err_len) != 0)
		goto err;
	t->fib_compact = sw->fib_compact;

	/* Lossless QoS; ports of unknown speed count as 10 Gb/s; the
	 * headroom's cable: a port's own, or the link's delay where the port
	 * is a link's end, when longer than the policy's. */
	uint64_t speed_bps[AIF_MAX_PORTS], delay_ns[AIF_MAX_PORTS] = { 0 };
	for (uint16_t p = 0; p < sp->n_ports; p++) {
		uint64_t mbps = sp->ports[p].speed_mbps ? sp->ports[p].speed_mbps
							: sw->ports[p].speed_mbps;
		speed_bps[p] = (mbps ? mbps : 10000) * 1000000ull;
		delay_ns[p] = sp->ports[p].cable_delay_ns;
	}
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *lk = &cfg->links[k];
		if (lk->a_switch == sw_index && lk->a_port < sp->n_ports)
			delay_ns[lk->a_port] = RTE_MAX(delay_ns[lk->a_port], lk->delay_ns);
		if (lk->b_switch == sw_index && lk->b_port < sp->n_ports)
			delay_ns[lk->b_port] = RTE_MAX(delay_ns[lk->b_port], lk->delay_ns);
	}
	t->qos = malloc(sizeof(*t->qos));
	if (t->qos == NULL) {
		snprintf(err, err_len, "out of memory");
		goto err;
	}
	if (aif_qos_compile(t->qos, &pol->qos, sp->ports, sp->n_ports, speed_bps, delay_ns,
			    pol->name, sw_index, err, err_len) != 0)
		goto err;
	t->qos->wire_model = cfg->wire_model; /* what the buffer charges */
	return t;
err:
	aif_tables_free(t);
	/* give back the slots this attempt took: the running tables' remain */
	aif_switch_gc_neighbors(sw, sw->tables, NULL);
	aif_switch_gc_member_slots(sw, sw->tables);
	return NULL;
}

static bool
on_subnet(const struct aif_tables *t, uint16_t port, const struct aif_ip *ip)
{
	const struct aif_port_l3 *l3 = &t->ports[port];
	for (unsigned i = 0; i < l3->n_addrs; i++)
		if (aif_prefix_contains(&l3->addrs[i], ip))
			return true;
	return false;
}

void
aif_switch_apply_neighbors(struct aif_switch *sw, const struct aif_switch_params *sp,
			   aif_time_ns now_ns)
{
	struct aif_neigh *nb = sw->neigh;

	for (uint32_t i = 0; i < sp->n_neighbors; i++) {
		const struct aif_neighbor_params *np = &sp->neighbors[i];
		uint32_t s = aif_neigh_get(nb, &np->ip, np->port); /* taken at compile */
		if (s == AIF_NEIGH_NONE)
			continue;
		if (!np->learned)
			aif_neigh_set(nb, s, &np->mac, np->port, AIF_NEIGH_STATIC, now_ns);
		else if (nb->meta[s].type == AIF_NEIGH_STATIC)
			/* a MAC the config gave before: the host's own is learned */
			aif_neigh_unresolve(nb, s);
	}
}

void
aif_switch_gc_member_slots(struct aif_switch *sw, const struct aif_tables *t)
{
	bool keep[AIF_MAX_MEMBER_SLOTS] = { false };

	for (uint32_t m = 0; t != NULL && m < t->n_members; m++)
		keep[t->members[m].ctr_slot] = true;
	for (uint32_t s = 0; s < sw->n_member_slots; s++)
		if (!keep[s])
			sw->member_keys[s].used = 0;
}

void
aif_switch_gc_neighbors(struct aif_switch *sw, const struct aif_tables *t,
			const struct aif_switch_params *sp)
{
	struct aif_neigh *nb = sw->neigh;
	bool keep[AIF_NEIGH_SLOTS] = { false }, is_static[AIF_NEIGH_SLOTS] = { false };

	if (t != NULL) {
		for (uint32_t i = 0; sp != NULL && i < sp->n_neighbors; i++) {
			uint32_t s = aif_neigh_find(nb, &sp->neighbors[i].ip);
			if (s != AIF_NEIGH_NONE) {
				keep[s] = true;
				is_static[s] = !sp->neighbors[i].learned;
			}
		}
		/* no params (a load undone): what the running config named
		 * stays as it is, static entries and hosts to be learned */
		for (uint32_t s = 0; sp == NULL && s < nb->cap; s++)
			if (nb->meta[s].type == AIF_NEIGH_STATIC || nb->meta[s].pinned) {
				keep[s] = true;
				is_static[s] = nb->meta[s].type == AIF_NEIGH_STATIC;
			}
		for (uint32_t m = 0; m < t->n_members; m++)
			keep[t->members[m].neigh_slot] = true;
	}
	for (uint32_t s = 0; s < nb->cap; s++) {
		struct aif_neigh_meta *mt = &nb->meta[s];
		mt->pinned = keep[s];
		/* a static entry the new config dropped keeps its MAC as learned */
		if (mt->type == AIF_NEIGH_STATIC && !is_static[s])
			mt->type = AIF_NEIGH_LEARNED;
	}
	aif_neigh_recount(nb);
	for (uint32_t s = 0; s < nb->cap; s++) {
		struct aif_neigh_meta *mt = &nb->meta[s];
		if (mt->type == AIF_NEIGH_FREE || keep[s])
			continue;
		/* learned entries stay while their subnet is still configured
		 * (until they age out) */
		if (mt->type == AIF_NEIGH_LEARNED && t != NULL && mt->port < t->n_ports &&
		    on_subnet(t, mt->port, &mt->ip))
			continue;
		aif_neigh_del(nb, s);
	}
}
