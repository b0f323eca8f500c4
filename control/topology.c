/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology generators (topology.h): build the switches, links, hosts and
 * computed routes of a fabric as config JSON.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/capacity.h"
#include "../dataplane/types.h"
#include "topology.h"

#define MAX_SW 128          /* switches a generator builds */
#define NAME_LEN 32

/* The fabric as a graph: switches, their ports, and who is behind each. */
struct tport {
	char name[NAME_LEN];
	int peer;               /* switch at the other end, or -1 (host port) */
	uint32_t ip;            /* host order: the port's address */
	uint32_t peer_ip;       /* the neighbour's address (fabric ports) */
	uint8_t plen;
};

struct tsw {
	char name[NAME_LEN];
	unsigned n_ports;
	struct tport port[AIF_MAX_PORTS];
};

struct topo {
	unsigned n_sw;
	struct tsw sw[MAX_SW];
	/* host subnets: on switch sw[at], port pidx */
	unsigned n_subnets;
	struct { uint32_t net; unsigned at; } subnet[MAX_SW * AIF_MAX_PORTS];
};

static int
fail(char *err, size_t err_len, const char *path, const char *why)
{
	snprintf(err, err_len, "%s: %s", path, why);
	return -1;
}

static void
ip_str(uint32_t ip, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static json_t *
mac_json(unsigned sw, unsigned port)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "02:1f:%02x:%02x:%02x:00", (sw >> 8) & 255, sw & 255, port);
	return json_string(buf);
}

static json_t *
addr_json(uint32_t ip, unsigned plen)
{
	char ipb[20], buf[32];
	ip_str(ip, ipb, sizeof(ipb));
	snprintf(buf, sizeof(buf), "%s/%u", ipb, plen);
	return json_string(buf);
}

/* An optional integer in lo..hi (default dflt). */
static int
get_uint(const json_t *o, const char *key, long long lo, long long hi, long long dflt,
	 long long *out, const char *path, char *err, size_t err_len)
{
	const json_t *v = json_object_get(o, key);
	char p[128], why[96];

	*out = dflt;
	if (v == NULL)
		return 0;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		snprintf(why, sizeof(why), "must be an integer %lld..%lld", lo, hi);
		return fail(err, err_len, p, why);
	}
	*out = json_integer_value(v);
	return 0;
}

static int
get_gbps(const json_t *o, const char *key, double dflt, double *out, const char *path,
	 char *err, size_t err_len)
{
	const json_t *v = json_object_get(o, key);
	char p[128];

	*out = dflt;
	if (v == NULL)
		return 0;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1600)
		return fail(err, err_len, p, "must be a number > 0 and at most 1600");
	*out = json_number_value(v);
	return 0;
}

/* A fabric link between port pa of switch a and pb of b, on the /31 net31. */
static void
join(struct topo *t, unsigned a, const char *pa, unsigned b, const char *pb,
     uint32_t net31)
{
	struct tport *x = &t->sw[a].port[t->sw[a].n_ports++];
	struct tport *y = &t->sw[b].port[t->sw[b].n_ports++];

	*x = (struct tport){ .peer = (int)b, .ip = net31, .peer_ip = net31 + 1, .plen = 31 };
	*y = (struct tport){ .peer = (int)a, .ip = net31 + 1, .peer_ip = net31, .plen = 31 };
	snprintf(x->name, sizeof(x->name), "%s", pa);
	snprintf(y->name, sizeof(y->name), "%s", pb);
}

/* dist[s] = links from s to dst (breadth first); unreachable: -1. */
static void
bfs(const struct topo *t, unsigned dst, int *dist)
{
	unsigned queue[MAX_SW], head = 0, tail = 0;

	for (unsigned i = 0; i < t->n_sw; i++)
		dist[i] = -1;
	dist[dst] = 0;
	queue[tail++] = dst;
	while (head < tail) {
		unsigned s = queue[head++];
		for (unsigned p = 0; p < t->sw[s].n_ports; p++) {
			int n = t->sw[s].port[p].peer;
			if (n >= 0 && dist[n] < 0) {
				dist[n] = dist[s] + 1;
				queue[tail++] = (unsigned)n;
			}
		}
	}
}

/*
 * Groups and routes of switch s: every subnet on another switch, through
 * the neighbours one hop closer to it; one group per set of next hops.
 */
static void
routes_of(const struct topo *t, unsigned s, int (*dist)[MAX_SW], json_t *groups,
	  json_t *routes)
{
	for (unsigned k = 0; k < t->n_subnets; k++) {
		unsigned d = t->subnet[k].at;
		if (d == s || dist[d][s] <= 0)
			continue;
		char gname[AIF_NAME_MAX * 2] = "via";
		json_t *members = json_array();
		for (unsigned p = 0; p < t->sw[s].n_ports; p++) {
			const struct tport *tp = &t->sw[s].port[p];
			if (tp->peer < 0 || dist[d][tp->peer] != dist[d][s] - 1)
				continue;
			char ipb[20];
			ip_str(tp->peer_ip, ipb, sizeof(ipb));
			json_array_append_new(members, json_pack("{s:s, s:s}", "ip", ipb,
								 "port", tp->name));
			size_t n = strlen(gname);
			snprintf(gname + n, sizeof(gname) - n, "-%s", t->sw[tp->peer].name);
		}
		gname[AIF_NAME_MAX - 1] = '\0'; /* long sets: the prefix names it */
		/* one group per set of next hops */
		bool have = false;
		size_t i;
		json_t *g;
		json_array_foreach(groups, i, g)
			if (json_equal(json_object_get(g, "members"), members)) {
				snprintf(gname, sizeof(gname), "%s",
					 json_string_value(json_object_get(g, "name")));
				have = true;
				break;
			}
		if (!have) {
			/* a truncated name that is taken: number it */
			json_array_foreach(groups, i, g)
				if (strcmp(json_string_value(json_object_get(g, "name")), gname) == 0) {
					snprintf(gname, sizeof(gname), "g%zu", json_array_size(groups));
					break;
				}
			json_array_append_new(groups, json_pack("{s:s, s:O}", "name", gname,
								"members", members));
		}
		json_decref(members);
		json_array_append_new(routes, json_pack("{s:o, s:s}", "prefix",
							addr_json(t->subnet[k].net, 24),
							"group", gname));
	}
}

static int
leaf_spine(json_t *root, const json_t *ls, char *err, size_t err_len)
{
	static const char *const path = "$.topology.leaf_spine";
	static int dist[MAX_SW][MAX_SW];
	long long leaves, spines, hosts, delay;
	double host_gbps, up_gbps;
	const json_t *pol = json_object_get(ls, "policy");
	const json_t *devs = json_object_get(ls, "host_devices");
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)ls, key, v)
		if (strcmp(key, "leaves") && strcmp(key, "spines") && strcmp(key, "hosts_per_leaf") &&
		    strcmp(key, "host_gbps") && strcmp(key, "uplink_gbps") &&
		    strcmp(key, "delay_ns") && strcmp(key, "policy") && strcmp(key, "host_devices")) {
			char p[160];
			snprintf(p, sizeof(p), "%s.%s", path, key);
			return fail(err, err_len, p, "unknown field (leaves, spines, hosts_per_leaf, "
				    "host_gbps, uplink_gbps, delay_ns, policy, host_devices)");
		}
	if (get_uint(ls, "leaves", 1, AIF_MAX_PORTS, 2, &leaves, path, err, err_len) ||
	    get_uint(ls, "spines", 1, AIF_MAX_PORTS - 1, 1, &spines, path, err, err_len) ||
	    get_uint(ls, "hosts_per_leaf", 1, AIF_MAX_PORTS - spines, 1, &hosts, path, err,
		     err_len) ||
	    get_uint(ls, "delay_ns", 0, 10000000, 1000, &delay, path, err, err_len) ||
	    get_gbps(ls, "host_gbps", 100, &host_gbps, path, err, err_len) ||
	    get_gbps(ls, "uplink_gbps", 100, &up_gbps, path, err, err_len))
		return -1;
	if (pol != NULL && !json_is_string(pol))
		return fail(err, err_len, "$.topology.leaf_spine.policy", "must be a policy name");
	if (devs != NULL && (!json_is_array(devs) ||
			     json_array_size(devs) > (size_t)(leaves * hosts)))
		return fail(err, err_len, "$.topology.leaf_spine.host_devices",
			    "must be an array of at most leaves x hosts_per_leaf device names");

	struct topo *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return fail(err, err_len, path, "out of memory");
	t->n_sw = (unsigned)(leaves + spines);
	for (unsigned i = 0; i < leaves; i++) {
		snprintf(t->sw[i].name, NAME_LEN, "leaf%u", i);
		for (unsigned j = 0; j < hosts; j++) {
			struct tport *p = &t->sw[i].port[t->sw[i].n_ports++];
			*p = (struct tport){ .peer = -1, .ip = (10u << 24) | (i << 16) | (j << 8) | 1,
					     .plen = 24 };
			snprintf(p->name, NAME_LEN, "h%u", j);
			t->subnet[t->n_subnets].net = p->ip & ~0xffu;
			t->subnet[t->n_subnets++].at = i;
		}
	}
	for (unsigned s = 0; s < spines; s++)
		snprintf(t->sw[leaves + s].name, NAME_LEN, "spine%u", s);
	for (unsigned i = 0; i < leaves; i++)
		for (unsigned s = 0; s < spines; s++) {
			char pa[16], pb[16];
			snprintf(pa, sizeof(pa), "u%u", s);
			snprintf(pb, sizeof(pb), "d%u", i);
			join(t, i, pa, (unsigned)(leaves + s), pb,
				(172u << 24) | (16u << 16) | (2 * (i * (unsigned)spines + s)));
		}
	for (unsigned k = 0; k < t->n_subnets; k++)
		bfs(t, t->subnet[k].at, dist[t->subnet[k].at]);

	json_t *switches = json_array(), *links = json_array(), *hosts_j = json_array();
	for (unsigned s = 0; s < t->n_sw; s++) {
		const struct tsw *sw = &t->sw[s];
		json_t *ports = json_array(), *nb = json_array();
		json_t *groups = json_array(), *routes = json_array();
		for (unsigned p = 0; p < sw->n_ports; p++) {
			const struct tport *tp = &sw->port[p];
			json_t *o = json_pack("{s:s, s:o, s:f, s:[o]}", "name", tp->name,
					      "mac", mac_json(s, p), "speed_gbps",
					      tp->peer < 0 ? host_gbps : up_gbps,
					      "addresses", addr_json(tp->ip, tp->plen));
			if (tp->peer < 0 && devs != NULL) {
				size_t h = s * (size_t)hosts + p;
				const char *d = json_string_value(json_array_get(devs, h));
				if (d != NULL)
					json_object_set_new(o, "device", json_string(d));
			}
			json_array_append_new(ports, o);
			if (tp->peer >= 0) {
				/* the peer's port facing us: its MAC */
				const struct tsw *ps = &t->sw[tp->peer];
				unsigned q = 0;
				while (q < ps->n_ports && ps->port[q].peer != (int)s)
					q++;
				char ipb[20];
				ip_str(tp->peer_ip, ipb, sizeof(ipb));
				json_array_append_new(nb, json_pack("{s:s, s:o, s:s}", "ip", ipb,
								    "mac", mac_json((unsigned)tp->peer, q),
								    "port", tp->name));
			}
		}
		routes_of(t, s, dist, groups, routes);
		json_t *o = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o}", "name", sw->name,
				      "seed", (int)s + 1, "ports", ports, "neighbors", nb,
				      "nexthop_groups", groups, "routes", routes);
		if (pol != NULL)
			json_object_set(o, "policy", (json_t *)pol);
		json_array_append_new(switches, o);
	}
	for (unsigned i = 0; i < leaves; i++) {
		for (unsigned s = 0; s < spines; s++) {
			char a[64], b[64];
			snprintf(a, sizeof(a), "leaf%u:u%u", i, s);
			snprintf(b, sizeof(b), "spine%u:d%u", s, i);
			json_array_append_new(links, json_pack("{s:s, s:s, s:f, s:I}", "a", a, "b", b,
							       "rate_gbps", up_gbps,
							       "delay_ns", (json_int_t)delay));
		}
		for (unsigned j = 0; j < hosts; j++) {
			char name[32], sw[32], port[16], ip[20], mac[32];
			snprintf(name, sizeof(name), "leaf%u-%u", i, j);
			snprintf(sw, sizeof(sw), "leaf%u", i);
			snprintf(port, sizeof(port), "h%u", j);
			ip_str((10u << 24) | (i << 16) | (j << 8) | 2, ip, sizeof(ip));
			snprintf(mac, sizeof(mac), "02:0a:00:%02x:%02x:02", i, j);
			json_array_append_new(hosts_j, json_pack("{s:s, s:s, s:s, s:s, s:s}", "name",
								 name, "switch", sw, "port", port,
								 "ip", ip, "mac", mac));
		}
	}
	free(t);
	json_object_set_new(root, "switches", switches);
	json_object_set_new(root, "links", links);
	json_object_set_new(root, "hosts", hosts_j);
	return 0;
}

int
aif_topology_expand(json_t *root, char *err, size_t err_len)
{
	const json_t *topo = json_object_get(root, "topology");
	const char *key;
	json_t *v;

	if (topo == NULL)
		return 0;
	if (!json_is_object(topo) || json_object_size(topo) != 1)
		return fail(err, err_len, "$.topology",
			    "must be an object with one generator (\"leaf_spine\")");
	if (json_object_get(root, "switches") || json_object_get(root, "links") ||
	    json_object_get(root, "hosts"))
		return fail(err, err_len, "$.topology", "generates switches, links and hosts: "
			    "the file cannot give them too");
	json_object_foreach((json_t *)topo, key, v) {
		if (strcmp(key, "leaf_spine") == 0) {
			if (!json_is_object(v))
				return fail(err, err_len, "$.topology.leaf_spine",
					    "must be an object");
			if (leaf_spine(root, v, err, err_len) != 0)
				return -1;
		} else {
			char p[128];
			snprintf(p, sizeof(p), "$.topology.%s", key);
			return fail(err, err_len, p, "unknown generator (leaf_spine)");
		}
	}
	json_object_del(root, "topology");
	return 0;
}
