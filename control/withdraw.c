/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A written-out fabric's routes around its links that are down
 * (withdraw.h).  Rounds over every switch's routes until no next hop
 * becomes usable (as many as the longest chain of switches a route's
 * reach crosses).  A check of a next hop looks up what the next switch
 * reaches (its routes and its own subnets) in an index sorted by prefix:
 * what contains the prefix, one lookup per shorter length the index has,
 * and what lies inside it, a range.  It runs only while some link of the
 * fabric is down.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "withdraw.h"

struct reach {
	const struct aif_config *cfg;
	const uint8_t *up;      /* [s * AIF_MAX_PORTS + p] */
	int32_t *peer;          /* [s * AIF_MAX_PORTS + p]: the switch behind the link, or -1 */
	uint64_t **usable;      /* [s][r]: route r's members usable (bit k) */
	/* [s]: what switch s reaches, sorted by prefix (aif_prefix_cmp): its
	 * routes and the subnets of its ports that are up */
	struct ent { struct aif_prefix p; int32_t r; /* route, or -1: its own */ } **idx;
	uint32_t *n_idx;
	uint8_t (*lens)[2][129]; /* [s][v6][len]: an entry of that length */
};

static int
ent_cmp(const void *a, const void *b)
{
	return aif_prefix_cmp(&((const struct ent *)a)->p, &((const struct ent *)b)->p);
}

/* The first place in switch t's index whose prefix is not below p. */
static uint32_t
lower_bound(const struct reach *x, uint16_t t, const struct aif_prefix *p)
{
	uint32_t lo = 0, hi = x->n_idx[t];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (aif_prefix_cmp(&x->idx[t][mid].p, p) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does route r of switch t reach on through a usable next hop that does
 * not lead back to switch from? */
static bool
route_on(const struct reach *x, uint16_t t, uint32_t r, uint16_t from)
{
	const struct aif_switch_params *sp = &x->cfg->switches[t];
	const struct aif_group_params *g = &sp->groups[sp->routes[r].group];

	for (uint64_t u = x->usable[t][r]; u; u &= u - 1)
		if (x->peer[(size_t)t * AIF_MAX_PORTS + g->members[__builtin_ctzll(u)].port] != from)
			return true;
	return false;
}

/* Does entry e of switch t reach on: its own subnet, or a route through a
 * usable next hop that does not lead back to switch from? */
static inline bool
ent_on(const struct reach *x, uint16_t t, const struct ent *e, uint16_t from)
{
	return e->r < 0 || route_on(x, t, (uint32_t)e->r, from);
}

/* Does switch t reach p: a subnet of its own or a route whose prefix
 * overlaps it, the route through a usable next hop that does not lead
 * back to switch from? */
static bool
reach(const struct reach *x, uint16_t t, const struct aif_prefix *p, uint16_t from)
{
	const struct ent *idx = x->idx[t];
	unsigned bits = p->addr.family == AIF_AF_INET6 ? 128 : 32;

	/* those containing it: one prefix a shorter length (of the lengths
	 * it has) */
	for (unsigned l = 0; l < p->len && l < bits; l++) {
		if (!x->lens[t][bits == 128][l])
			continue;
		struct aif_prefix q = { .addr = p->addr, .len = (uint8_t)l };
		aif_prefix_normalize(&q);
		for (uint32_t i = lower_bound(x, t, &q);
		     i < x->n_idx[t] && aif_prefix_cmp(&idx[i].p, &q) == 0; i++)
			if (ent_on(x, t, &idx[i], from))
				return true;
	}
	/* and those inside it (itself included): a range of the index */
	for (uint32_t i = lower_bound(x, t, p); i < x->n_idx[t]; i++) {
		if (!aif_prefix_contains(p, &idx[i].p.addr))
			break;
		if (ent_on(x, t, &idx[i], from))
			return true;
	}
	return false;
}

/* One round: the next hops that became usable; true if any did. */
static bool
round_of(struct reach *x)
{
	const struct aif_config *cfg = x->cfg;
	bool changed = false;

	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		for (uint32_t r = 0; r < sp->n_routes; r++) {
			const struct aif_route_params *rt = &sp->routes[r];
			if (rt->kind != AIF_ROUTE_GROUP)
				continue;
			const struct aif_group_params *g = &sp->groups[rt->group];
			for (uint16_t k = 0; k < g->n_members && k < 64; k++) {
				uint16_t port = g->members[k].port;
				if (((x->usable[s][r] >> k) & 1) ||
				    !x->up[(size_t)s * AIF_MAX_PORTS + port])
					continue;
				int32_t t = x->peer[(size_t)s * AIF_MAX_PORTS + port];
				if (t >= 0 && !reach(x, (uint16_t)t, &rt->prefix, s))
					continue;
				x->usable[s][r] |= 1ull << k;
				changed = true;
			}
		}
	}
	return changed;
}

/* Members of g on ports that are up (bit k). */
static uint64_t
members_up(const struct reach *x, uint16_t s, const struct aif_group_params *g)
{
	uint64_t m = 0;

	for (uint16_t k = 0; k < g->n_members && k < 64; k++)
		if (x->up[(size_t)s * AIF_MAX_PORTS + g->members[k].port])
			m |= 1ull << k;
	return m;
}

/* Switch s's groups and routes with the withdrawals (into to, from its
 * own arrays); 0, or -1 out of memory.  to keeps from's arrays when
 * nothing of s is withdrawn. */
static int
switch_withdraw(const struct reach *x, uint16_t s, struct aif_switch_params *to)
{
	const struct aif_switch_params *from = &x->cfg->switches[s];
	struct aif_group_params *groups = NULL;
	struct aif_route_params *routes = NULL;
	uint32_t n_groups = from->n_groups;

	for (uint32_t r = 0; r < from->n_routes; r++) {
		const struct aif_route_params *rt = &from->routes[r];
		if (rt->kind != AIF_ROUTE_GROUP)
			continue;
		const struct aif_group_params *g = &from->groups[rt->group];
		/* (only members on ports that are up become usable) */
		uint64_t use = x->usable[s][r], out = members_up(x, s, g) & ~use;
		if (out == 0 || use == 0)
			continue; /* nothing withdrawn, or nothing left: as it is */
		if (groups == NULL) {
			groups = malloc(AIF_MAX_GROUPS * sizeof(*groups));
			routes = malloc((from->n_routes ? from->n_routes : 1) * sizeof(*routes));
			if (groups == NULL || routes == NULL) {
				free(groups);
				free(routes);
				return -1;
			}
			memcpy(groups, from->groups, from->n_groups * sizeof(*groups));
			memcpy(routes, from->routes, from->n_routes * sizeof(*routes));
		}
		/* a copy of its group with these withdrawn, made once */
		uint32_t c = from->n_groups;
		while (c < n_groups && !(strcmp(groups[c].name, g->name) == 0 &&
					 groups[c].withdrawn == out))
			c++;
		if (c == n_groups) {
			if (n_groups == AIF_MAX_GROUPS)
				continue; /* no room: this route as it is */
			groups[n_groups] = *g;
			groups[n_groups++].withdrawn = out;
		}
		routes[r].group = (uint16_t)c;
	}
	if (groups == NULL)
		return 0;
	struct aif_group_params *kept = realloc(groups, n_groups * sizeof(*groups));
	to->groups = kept != NULL ? kept : groups;
	to->n_groups = n_groups;
	to->routes = routes;
	return 0;
}

int
aif_withdraw(const struct aif_config *cfg, const uint8_t *port_up, struct aif_config **out,
	     char *err, size_t err_len)
{
	struct reach x = { .cfg = cfg, .up = port_up };
	struct aif_config *w = NULL;
	size_t n_ports = (size_t)cfg->n_switches * AIF_MAX_PORTS;
	bool any_down = false;
	int rc = -1;

	*out = NULL;
	x.peer = malloc((n_ports ? n_ports : 1) * sizeof(*x.peer));
	x.usable = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*x.usable));
	if (x.peer == NULL || x.usable == NULL)
		goto done;
	for (size_t i = 0; i < n_ports; i++)
		x.peer[i] = -1;
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		x.peer[(size_t)l->a_switch * AIF_MAX_PORTS + l->a_port] = l->b_switch;
		x.peer[(size_t)l->b_switch * AIF_MAX_PORTS + l->b_port] = l->a_switch;
		any_down = any_down ||
			   !port_up[(size_t)l->a_switch * AIF_MAX_PORTS + l->a_port] ||
			   !port_up[(size_t)l->b_switch * AIF_MAX_PORTS + l->b_port];
	}
	/* and a next hop's port that is no link's end (a cut link's, a
	 * device's to the outside) */
	for (uint16_t s = 0; s < cfg->n_switches && !any_down; s++)
		for (uint32_t i = 0; i < cfg->switches[s].n_groups && !any_down; i++) {
			const struct aif_group_params *g = &cfg->switches[s].groups[i];
			uint64_t all = g->n_members >= 64 ? ~0ull : (1ull << g->n_members) - 1;
			any_down = members_up(&x, s, g) != all;
		}
	if (!any_down || (cfg->topology != NULL && !cfg->topology_split)) {
		rc = 0; /* every link up (or a whole generated fabric: reroute.h) */
		goto done;
	}
	x.idx = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*x.idx));
	x.n_idx = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*x.n_idx));
	x.lens = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*x.lens));
	if (x.idx == NULL || x.n_idx == NULL || x.lens == NULL)
		goto done;
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		uint32_t n = sp->n_routes, m = 0;
		for (uint16_t q = 0; q < sp->n_ports; q++)
			m += sp->ports[q].n_addrs;
		x.usable[s] = calloc(n ? n : 1, sizeof(**x.usable));
		x.idx[s] = malloc((n + m ? n + m : 1) * sizeof(**x.idx));
		if (x.usable[s] == NULL || x.idx[s] == NULL)
			goto done;
		struct ent *e = x.idx[s];
		for (uint32_t r = 0; r < n; r++)
			*e++ = (struct ent){ .p = sp->routes[r].prefix, .r = (int32_t)r };
		for (uint16_t q = 0; q < sp->n_ports; q++) {
			if (!port_up[(size_t)s * AIF_MAX_PORTS + q])
				continue;
			for (uint16_t a = 0; a < sp->ports[q].n_addrs; a++) {
				*e = (struct ent){ .p = sp->ports[q].addrs[a], .r = -1 };
				aif_prefix_normalize(&e->p);
				e++;
			}
		}
		x.n_idx[s] = (uint32_t)(e - x.idx[s]);
		for (uint32_t i = 0; i < x.n_idx[s]; i++) {
			const struct aif_prefix *ep = &x.idx[s][i].p;
			x.lens[s][ep->addr.family == AIF_AF_INET6][ep->len <= 128 ? ep->len : 128] = 1;
		}
		qsort(x.idx[s], x.n_idx[s], sizeof(**x.idx), ent_cmp);
	}
	while (round_of(&x))
		;
	w = malloc(sizeof(*w));
	struct aif_switch_params *sws = malloc((cfg->n_switches ? cfg->n_switches : 1) *
					       sizeof(*sws));
	if (w == NULL || sws == NULL) {
		free(w);
		free(sws);
		w = NULL;
		goto done;
	}
	*w = *cfg;
	w->refs = 0;
	w->switches = sws;
	memcpy(sws, cfg->switches, cfg->n_switches * sizeof(*sws));
	bool changed = false;
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		if (switch_withdraw(&x, s, &sws[s]) != 0) {
			aif_withdraw_free(w, cfg);
			w = NULL;
			goto done;
		}
		changed = changed || sws[s].routes != cfg->switches[s].routes;
	}
	if (!changed) {
		aif_withdraw_free(w, cfg);
		w = NULL;
	}
	*out = w;
	rc = 0;
done:
	if (rc != 0)
		snprintf(err, err_len, "routing around the links down: out of memory");
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		if (x.usable != NULL)
			free(x.usable[s]);
		if (x.idx != NULL)
			free(x.idx[s]);
	}
	free(x.usable);
	free(x.idx);
	free(x.n_idx);
	free(x.lens);
	free(x.peer);
	return rc;
}

void
aif_withdraw_free(struct aif_config *w, const struct aif_config *base)
{
	if (w == NULL)
		return;
	for (uint16_t s = 0; s < w->n_switches; s++) {
		if (w->switches[s].groups != base->switches[s].groups)
			free(w->switches[s].groups);
		if (w->switches[s].routes != base->switches[s].routes)
			free(w->switches[s].routes);
	}
	free(w->switches);
	free(w);
}
