/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routing a generated fabric again (reroute.h).  The generator's rules
 * (topology.c routes_of), on the parsed config: the host subnets in the
 * order the generator made them (switch by switch, port by port: a port
 * that is no link's end carries one /24), distances breadth first from
 * each subnet's switch over the links that are up, and for every switch
 * and every subnet elsewhere that it can reach, the neighbours one hop
 * closer (port order) as a group; sibling prefixes of one group merged
 * (prefix_agg.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prefix_agg.h"
#include "reroute.h"

struct graph {
	uint16_t n_sw;
	int32_t *peer;      /* [sw * AIF_MAX_PORTS + port]: the switch behind it, or -1 */
	uint8_t *down;      /* ... its link is down */
	uint32_t n_subnets;
	struct aif_prefix *net;
	uint16_t *at;       /* the subnet's switch */
	int32_t *dist;      /* [dst * n_sw + sw]: links from sw to dst, -1: none */
	/* the subnets in runs on one switch (subnet order), each run's merged
	 * among themselves, own[first, first + n): every switch's routes are
	 * merged from these (topology.c's runs) */
	uint32_t n_runs;
	struct run { uint16_t at; uint32_t first, n; } *run;
	struct aif_prefix_way *own;
};

static void
graph_free(struct graph *g)
{
	free(g->peer);
	free(g->down);
	free(g->net);
	free(g->at);
	free(g->dist);
	free(g->run);
	free(g->own);
}

/* g->run, g->own: the subnets' runs, each merged. */
static int
runs_build(struct graph *g)
{
	uint32_t o = 0;

	g->run = calloc(g->n_subnets ? g->n_subnets : 1, sizeof(*g->run));
	g->own = calloc(g->n_subnets ? g->n_subnets : 1, sizeof(*g->own));
	if (g->run == NULL || g->own == NULL)
		return -1;
	for (uint32_t k = 0; k < g->n_subnets;) {
		uint32_t e = k + 1;
		while (e < g->n_subnets && g->at[e] == g->at[k])
			e++;
		for (uint32_t i = k; i < e; i++)
			g->own[o + i - k] = (struct aif_prefix_way){ .pf = g->net[i], .first = i };
		uint32_t n = aif_prefix_aggregate(&g->own[o], e - k);
		g->run[g->n_runs++] = (struct run){ .at = g->at[k], .first = o, .n = n };
		o += n;
		k = e;
	}
	return 0;
}

static int
graph_build(struct graph *g, const struct aif_config *cfg, const bool *down)
{
	size_t nports = (size_t)cfg->n_switches * AIF_MAX_PORTS;
	uint32_t n_host_ports = 0;

	g->n_sw = cfg->n_switches;
	g->peer = malloc(nports * sizeof(*g->peer));
	g->down = calloc(nports, 1);
	g->dist = malloc((size_t)g->n_sw * g->n_sw * sizeof(*g->dist));
	if (g->peer == NULL || g->down == NULL || g->dist == NULL)
		return -1;
	for (size_t i = 0; i < nports; i++)
		g->peer[i] = -1;
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		size_t a = (size_t)l->a_switch * AIF_MAX_PORTS + l->a_port;
		size_t b = (size_t)l->b_switch * AIF_MAX_PORTS + l->b_port;
		g->peer[a] = l->b_switch;
		g->peer[b] = l->a_switch;
		g->down[a] = g->down[b] = down[k];
	}
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		n_host_ports += cfg->switches[s].n_ports;
	g->net = calloc(n_host_ports ? n_host_ports : 1, sizeof(*g->net));
	g->at = calloc(n_host_ports ? n_host_ports : 1, sizeof(*g->at));
	if (g->net == NULL || g->at == NULL)
		return -1;
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sw = &cfg->switches[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			if (g->peer[(size_t)s * AIF_MAX_PORTS + p] >= 0 || sw->ports[p].n_addrs == 0)
				continue;
			g->net[g->n_subnets] = sw->ports[p].addrs[0];
			aif_prefix_normalize(&g->net[g->n_subnets]);
			g->at[g->n_subnets++] = s;
		}
	}
	return 0;
}

/* dist[dst * n + s]: links from s to dst over the links that are up. */
static void
bfs(struct graph *g, const struct aif_config *cfg, uint16_t dst, uint16_t *queue)
{
	int32_t *dist = &g->dist[(size_t)dst * g->n_sw];
	unsigned head = 0, tail = 0;

	for (uint16_t i = 0; i < g->n_sw; i++)
		dist[i] = -1;
	dist[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		uint16_t s = queue[head++];
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++) {
			size_t i = (size_t)s * AIF_MAX_PORTS + p;
			int32_t n = g->peer[i];
			if (n >= 0 && !g->down[i] && dist[n] < 0) {
				dist[n] = dist[s] + 1;
				queue[tail++] = (uint16_t)n;
			}
		}
	}
}

/* The address of the neighbour on port p (the link's far end). */
static const struct aif_ip *
neighbor_on(const struct aif_switch_params *sw, uint16_t p)
{
	for (uint32_t i = 0; i < sw->n_neighbors; i++)
		if (sw->neighbors[i].port == p)
			return &sw->neighbors[i].ip;
	return NULL;
}

/* Switch s's groups and routes (topology.c routes_of: the subnets of one
 * switch share a group, siblings going the same way merged).  A group is
 * found by its ports (a neighbour's address is its port's), named and
 * filled only when new. */
static int
routes_of(const struct graph *g, const struct aif_config *cfg, uint16_t s,
	  struct aif_switch_params *out)
{
	const struct aif_switch_params *sw = &cfg->switches[s];
	const int32_t *peer = &g->peer[(size_t)s * AIF_MAX_PORTS];
	const uint8_t *down = &g->down[(size_t)s * AIF_MAX_PORTS];
	/* a group at most for each destination switch (a run each) */
	uint32_t cap = g->n_subnets ? g->n_subnets : 1, cap_g = g->n_runs ? g->n_runs : 1;
	struct aif_group_params *groups = calloc(cap_g, sizeof(*groups));
	uint64_t *gports = calloc(cap_g, sizeof(*gports));
	struct aif_prefix_way *way = calloc(cap, sizeof(*way));
	const struct aif_ip *nip[AIF_MAX_PORTS];
	uint32_t n_groups = 0, n = 0, gi = 0;
	int32_t last_d = -1;

	if (groups == NULL || gports == NULL || way == NULL) {
		free(groups);
		free(gports);
		free(way);
		return -1;
	}
	for (uint16_t p = 0; p < sw->n_ports; p++)
		nip[p] = peer[p] >= 0 && !down[p] ? neighbor_on(sw, p) : NULL;
	for (uint32_t r = 0; r < g->n_runs; r++) {
		uint16_t d = g->run[r].at;
		const int32_t *dist = &g->dist[(size_t)d * g->n_sw];
		if (d == s || dist[s] <= 0)
			continue;
		if (d != last_d) { /* (the same switch: the same group) */
			last_d = d;
			/* the neighbours one hop closer, in port order (up to a
			 * group's members) */
			uint64_t ports = 0;
			unsigned members = 0;
			for (uint16_t p = 0; p < sw->n_ports && members < AIF_MAX_MEMBERS; p++)
				if (nip[p] != NULL && dist[peer[p]] == dist[s] - 1) {
					ports |= 1ull << p;
					members++;
				}
			gi = 0;
			while (gi < n_groups && gports[gi] != ports)
				gi++;
			if (gi == n_groups) { /* a new set of next hops */
				struct aif_group_params *cand = &groups[n_groups];
				char gname[AIF_NAME_MAX * 2] = "via";
				for (uint16_t p = 0; p < sw->n_ports; p++) {
					if (!((ports >> p) & 1))
						continue;
					cand->members[cand->n_members++] = (struct aif_nexthop_params){
						.ip = *nip[p], .port = p, .weight = 1 };
					size_t len = strlen(gname);
					snprintf(gname + len, sizeof(gname) - len, "-%s",
						 cfg->switches[peer[p]].name);
				}
				gname[AIF_NAME_MAX - 1] = '\0'; /* long sets: the prefix names it */
				/* a truncated name that is taken: number it */
				for (uint32_t x = 0; x < n_groups; x++)
					if (strcmp(groups[x].name, gname) == 0) {
						snprintf(gname, sizeof(gname), "g%u", n_groups);
						break;
					}
				snprintf(cand->name, sizeof(cand->name), "%.*s", AIF_NAME_MAX - 1, gname);
				gports[n_groups++] = ports;
			}
		}
		for (uint32_t j = 0; j < g->run[r].n; j++) {
			way[n] = g->own[g->run[r].first + j];
			way[n++].way = gi;
		}
	}
	free(gports);
	n = aif_prefix_aggregate(way, n);
	struct aif_route_params *routes = calloc(n ? n : 1, sizeof(*routes));
	if (routes == NULL) {
		free(groups);
		free(way);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		routes[i] = (struct aif_route_params){ .prefix = way[i].pf,
						       .kind = AIF_ROUTE_GROUP,
						       .group = (uint16_t)way[i].way };
	free(way);
	/* the config keeps only the groups made */
	struct aif_group_params *kept = realloc(groups, (n_groups ? n_groups : 1) * sizeof(*groups));
	out->groups = kept != NULL ? kept : groups;
	out->n_groups = n_groups;
	out->routes = routes;
	out->n_routes = n;
	return 0;
}

static void *
dup_array(const void *p, size_t n, size_t size)
{
	void *q = malloc(n ? n * size : 1);

	if (q != NULL && n)
		memcpy(q, p, n * size);
	return q;
}

static char *
dup_str(const char *s, bool *bad)
{
	char *d = s != NULL ? strdup(s) : NULL;

	if (s != NULL && d == NULL)
		*bad = true;
	return d;
}

/* A copy of cfg but for the switches' groups and routes (NULL there). */
static struct aif_config *
copy_config(const struct aif_config *cfg)
{
	struct aif_config *c = calloc(1, sizeof(*c));
	bool bad = false;

	if (c == NULL)
		return NULL;
	*c = *cfg;
	c->refs = 1;
	c->switches = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*c->switches));
	c->lb_programs = dup_array(cfg->lb_programs, cfg->n_lb_programs, sizeof(*c->lb_programs));
	c->policies = dup_array(cfg->policies, cfg->n_policies, sizeof(*c->policies));
	c->links = dup_array(cfg->links, cfg->n_links, sizeof(*c->links));
	c->hosts = dup_array(cfg->hosts, cfg->n_hosts, sizeof(*c->hosts));
	c->topology = dup_str(cfg->topology, &bad);
	c->topology_policies = dup_str(cfg->topology_policies, &bad);
	c->topology_lb_programs = dup_str(cfg->topology_lb_programs, &bad);
	if (c->switches == NULL)
		c->n_switches = 0;
	bad = bad || c->switches == NULL || c->lb_programs == NULL || c->policies == NULL ||
	      c->links == NULL || c->hosts == NULL;
	for (uint16_t s = 0; !bad && s < cfg->n_switches; s++) {
		const struct aif_switch_params *from = &cfg->switches[s];
		struct aif_switch_params *to = &c->switches[s];
		*to = *from;
		to->groups = NULL;
		to->routes = NULL;
		to->n_groups = to->n_routes = 0;
		to->ports = dup_array(from->ports, from->n_ports, sizeof(*to->ports));
		to->neighbors = dup_array(from->neighbors, from->n_neighbors,
					  sizeof(*to->neighbors));
		bad = to->ports == NULL || to->neighbors == NULL;
	}
	if (bad) {
		aif_config_free(c);
		return NULL;
	}
	return c;
}

struct aif_config *
aif_reroute(const struct aif_config *cfg, const bool *down, char *err, size_t err_len)
{
	struct graph g = { 0 };
	struct aif_config *c = NULL;
	uint16_t *queue = malloc((cfg->n_switches ? cfg->n_switches : 1) * sizeof(*queue));

	if (cfg->topology == NULL) {
		snprintf(err, err_len, "not a generated fabric: no routes to make");
		free(queue);
		return NULL;
	}
	if (queue == NULL || graph_build(&g, cfg, down) != 0 || runs_build(&g) != 0 ||
	    (c = copy_config(cfg)) == NULL)
		goto oom;
	for (uint32_t k = 0; k < cfg->n_links; k++)
		c->links[k].down = down[k];
	/* distances to every switch that has a subnet */
	for (uint32_t k = 0; k < g.n_subnets; k++)
		if (k == 0 || g.at[k] != g.at[k - 1])
			bfs(&g, cfg, g.at[k], queue);
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		if (routes_of(&g, cfg, s, &c->switches[s]) != 0)
			goto oom;
	graph_free(&g);
	free(queue);
	return c;
oom:
	snprintf(err, err_len, "routing around the links down: out of memory");
	aif_config_free(c);
	graph_free(&g);
	free(queue);
	return NULL;
}
