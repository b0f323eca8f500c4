/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config -> tables compiler (see compile.h).  Runs on the control thread.
 *
 * FIB contents, in order of insertion (a later add of the same prefix wins):
 *   1. each port subnet            -> CONNECTED(port)
 *   2. each configured route       -> GROUP(g) or DROP
 *   3. each interface address /32, /128 -> LOCAL(port)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_memory.h>
#include <rte_fib6.h>

#include "../dataplane/qos.h"
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

void
aif_tables_free(struct aif_tables *t)
{
	if (t == NULL)
		return;
	rte_fib_free(t->fib4);
	rte_fib6_free(t->fib6);
	free(t->groups);
	free(t->members);
	free(t->buckets);
	free(t->qos);
	aif_config_free(t->cfg);
	free(t);
}

static int
fib_add(struct aif_tables *t, const struct aif_prefix *p, uint64_t nh)
{
	if (p->addr.family == AIF_AF_INET4)
		return rte_fib_add(t->fib4, aif_ip4_host(&p->addr), p->len, nh);
	return rte_fib6_add(t->fib6, p->addr.b, p->len, nh);
}

/* Counter slot of a group member, stable across reloads for the same key. */
static uint32_t
member_ctr_slot(struct aif_switch *sw, const char *group, const struct aif_ip *ip,
		uint16_t port)
{
	uint32_t free_slot = UINT32_MAX;
	for (uint32_t s = 0; s < AIF_MAX_MEMBER_SLOTS; s++) {
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
	if (free_slot != UINT32_MAX) {
		struct aif_member_key *k = &sw->member_keys[free_slot];
		snprintf(k->group, sizeof(k->group), "%s", group);
		k->ip = *ip;
		k->port = port;
		k->used = 1;
	}
	return free_slot;
}

static int
build_fibs(struct aif_tables *t, const struct aif_switch_params *sp,
	   char *err, size_t err_len)
{
	static uint64_t seq; /* FIB names must be unique in the process */
	char name[64];
	uint32_t n4 = 0, n6 = 0, long4 = 0;

	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			if (sp->ports[p].addrs[a].addr.family == AIF_AF_INET4)
				n4 += 2, long4++;
			else
				n6 += 2;
		}
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_prefix *pf = &sp->routes[r].prefix;
		if (pf->addr.family == AIF_AF_INET4) {
			n4++;
			long4 += pf->len > 24;
		} else {
			n6++;
		}
	}
	struct rte_fib_conf c4 = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = aif_nh_make(AIF_NH_MISS, 0),
		.max_routes = (int)n4 + 16,
		.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = long4 + 16 },
	};
	snprintf(name, sizeof(name), "aif4_%u_%" PRIu64, t->sw_index, ++seq);
	t->fib4 = rte_fib_create(name, SOCKET_ID_ANY, &c4);
	struct rte_fib6_conf c6 = {
		.type = RTE_FIB6_TRIE,
		.default_nh = aif_nh_make(AIF_NH_MISS, 0),
		.max_routes = (int)n6 + 16,
		.trie = { .nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = n6 * 14 + 64 },
	};
	snprintf(name, sizeof(name), "aif6_%u_%" PRIu64, t->sw_index, seq);
	t->fib6 = rte_fib6_create(name, SOCKET_ID_ANY, &c6);
	if (t->fib4 == NULL || t->fib6 == NULL) {
		snprintf(err, err_len, "cannot create FIB: %s", rte_strerror(rte_errno));
		return -1;
	}

	/* 1. connected subnets */
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			struct aif_prefix net = sp->ports[p].addrs[a];
			aif_prefix_normalize(&net);
			if (fib_add(t, &net, aif_nh_make(AIF_NH_CONNECTED, p)) != 0)
				goto add_err;
		}
	/* 2. configured routes */
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_route_params *rp = &sp->routes[r];
		uint64_t nh = rp->kind == AIF_ROUTE_DROP
			? aif_nh_make(AIF_NH_DROP, 0)
			: aif_nh_make(AIF_NH_GROUP, rp->group);
		if (fib_add(t, &rp->prefix, nh) != 0)
			goto add_err;
	}
	/* 3. the switch's own addresses */
	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			struct aif_prefix host = sp->ports[p].addrs[a];
			host.len = host.addr.family == AIF_AF_INET4 ? 32 : 128;
			if (fib_add(t, &host, aif_nh_make(AIF_NH_LOCAL, p)) != 0)
				goto add_err;
		}
	return 0;
add_err:
	snprintf(err, err_len, "cannot add route to FIB (table full?)");
	return -1;
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
			 "(the table holds %u entries)", path, ip, sp->ports[np->port].name,
			 AIF_MAX_NEIGHBORS);
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
aif_tables_compile(struct aif_switch *sw, struct aif_config *cfg,
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
	t->sw_index = sw_index;
	t->generation = sw->generation + 1;
	t->n_ports = sp->n_ports;
	for (uint16_t p = 0; p < sp->n_ports; p++) {
		const struct aif_port_params *pp = &sp->ports[p];
		struct aif_port_l3 *l3 = &t->ports[p];
		l3->mac = pp->mac_set ? pp->mac : sw->ports[p].dev_mac;
		l3->mtu = pp->mtu;
		l3->n_addrs = pp->n_addrs;
		memcpy(l3->addrs, pp->addrs, sizeof(l3->addrs));
	}

	const struct aif_policy_params *pol = &cfg->policies[sp->policy];
	t->trust = pol->trust;
	memcpy(t->dscp_to_tc, pol->dscp_to_tc, sizeof(t->dscp_to_tc));
	memcpy(t->pcp_to_tc, pol->pcp_to_tc, sizeof(t->pcp_to_tc));
	t->lb = pol->lb;
	for (unsigned tc = 0; tc < 8; tc++)
		t->lb_adaptive |= t->lb.scheme_by_tc[tc] == AIF_LB_ADAPTIVE;
	t->seed = sp->seed;
	t->proxy_arp = sp->proxy_arp;

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
	 * is down get none; the running table of a group with the same name and
	 * members is the starting point, so only the flows that must move do. */
	for (uint32_t g = 0; g < t->n_groups; g++) {
		struct aif_group *gr = &t->groups[g];
		uint32_t weights[AIF_MAX_MEMBERS];
		bool up[AIF_MAX_MEMBERS];
		const uint8_t *pb = NULL;
		uint32_t pn = 0;
		for (uint16_t k = 0; k < gr->n; k++) {
			const struct aif_member *mem = &t->members[gr->first + k];
			weights[k] = t->lb.scheme == AIF_LB_WCMP ? mem->weight : 1;
			up[k] = sw->ports[mem->port].link_up != 0;
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
	if (build_fibs(t, sp, err, err_len) != 0)
		goto err;

	/* Lossless QoS; ports of unknown speed count as 10 Gb/s. */
	uint64_t speed_bps[AIF_MAX_PORTS];
	for (uint16_t p = 0; p < sp->n_ports; p++) {
		uint64_t mbps = sp->ports[p].speed_mbps ? sp->ports[p].speed_mbps
							: sw->ports[p].speed_mbps;
		speed_bps[p] = (mbps ? mbps : 10000) * 1000000ull;
	}
	t->qos = malloc(sizeof(*t->qos));
	if (t->qos == NULL) {
		snprintf(err, err_len, "out of memory");
		goto err;
	}
	if (aif_qos_compile(t->qos, &pol->qos, sp->ports, sp->n_ports, speed_bps,
			    pol->name, sw_index, err, err_len) != 0)
		goto err;
	t->cfg = cfg;
	return t;
err:
	t->cfg = NULL;
	aif_tables_free(t);
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
aif_switch_apply_neighbors(struct aif_switch *sw, const struct aif_tables *t,
			   aif_time_ns now_ns)
{
	const struct aif_switch_params *sp = &t->cfg->switches[t->sw_index];
	struct aif_neigh *nb = sw->neigh;

	for (uint32_t i = 0; i < sp->n_neighbors; i++) {
		const struct aif_neighbor_params *np = &sp->neighbors[i];
		uint32_t s = aif_neigh_get(nb, &np->ip, np->port);
		if (s == AIF_NEIGH_NONE)
			continue;
		aif_neigh_set(nb, s, &np->mac, np->port, AIF_NEIGH_STATIC, now_ns);
	}
}

void
aif_switch_gc_neighbors(struct aif_switch *sw, const struct aif_tables *t)
{
	const struct aif_switch_params *sp = &t->cfg->switches[t->sw_index];
	struct aif_neigh *nb = sw->neigh;
	bool keep[AIF_MAX_NEIGHBORS] = { false };
	bool is_static[AIF_MAX_NEIGHBORS] = { false };

	for (uint32_t i = 0; i < sp->n_neighbors; i++) {
		uint32_t s = aif_neigh_find(nb, &sp->neighbors[i].ip);
		if (s != AIF_NEIGH_NONE)
			keep[s] = is_static[s] = true;
	}
	for (uint32_t m = 0; m < t->n_members; m++)
		keep[t->members[m].neigh_slot] = true;
	for (uint32_t s = 0; s < nb->cap; s++) {
		struct aif_neigh_meta *mt = &nb->meta[s];
		/* a static entry the new config dropped keeps its MAC as learned */
		if (mt->type == AIF_NEIGH_STATIC && !is_static[s])
			mt->type = AIF_NEIGH_LEARNED;
		if (mt->type == AIF_NEIGH_FREE || keep[s])
			continue;
		/* learned entries stay while their subnet is still configured */
		if (mt->type == AIF_NEIGH_LEARNED && mt->port < t->n_ports &&
		    on_subnet(t, mt->port, &mt->ip))
			continue;
		aif_neigh_del(nb, s);
	}
}
