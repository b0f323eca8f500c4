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

#include "../dataplane/bfd.h"
#include "../dataplane/capacity.h"
#include "../dataplane/types.h"
#include "prefix_agg.h"
#include "topology.h"

#define MAX_SW AIF_MAX_SWITCHES /* switches a generator builds */
#define NAME_LEN 32
#define MAX_LINKS (MAX_SW * AIF_MAX_PORTS / 2)
#define MAX_HOSTS (MAX_SW * AIF_MAX_PORTS)
/* the largest even k whose 5k^2/4 switches fit MAX_SW */
#define FAT_TREE_K_MAX 56
_Static_assert(5 * FAT_TREE_K_MAX * FAT_TREE_K_MAX / 4 <= MAX_SW &&
	       5 * (FAT_TREE_K_MAX + 2) * (FAT_TREE_K_MAX + 2) / 4 > MAX_SW, "FAT_TREE_K_MAX");

/* The fabric as a graph: switches, their ports, and who is behind each. */
struct tport {
	char name[NAME_LEN];
	int peer;               /* switch at the other end, or -1 (host port) */
	uint32_t ip;            /* host order: the port's address */
	uint32_t peer_ip;       /* the neighbour's address (fabric ports) */
	uint8_t plen;
	uint8_t down;           /* its link is down: no route goes through it */
	const char *device;     /* a cut link's end here: its device (link_devices) */
};

struct tsw {
	char name[NAME_LEN];
	unsigned n_ports;
	struct tport port[AIF_MAX_PORTS];
};

struct topo {
	unsigned n_sw;
	struct tsw sw[MAX_SW];
	unsigned n_links;
	struct { unsigned a, pa, b, pb, down; } link[MAX_LINKS];
	unsigned n_hosts;       /* one per host port, in the order added */
	struct { unsigned sw, port; char name[NAME_LEN]; } host[MAX_HOSTS];
	/* host subnets: on switch sw[at] */
	unsigned n_subnets;
	struct { uint32_t net; unsigned at; } subnet[MAX_HOSTS];
	uint32_t next_net31;    /* fabric /31s are taken from 172.16.0.0/12 */
	/* emit's: hops from each subnet's switch; the switches this config
	 * runs; switch s's index in its "switches" (-1: not here) */
	int dist[MAX_SW][MAX_SW];
	bool here[MAX_SW];
	int idx[MAX_SW];
	uint64_t group_ports[MAX_HOSTS]; /* routes_of's, one switch at a time */
	json_t *group_name[MAX_HOSTS];   /* (and each group's name) */
	json_t *prefix[MAX_HOSTS];       /* emit's: each subnet's prefix, for every
					  * switch's routes to it (one string each) */
	struct aif_prefix_way way[MAX_HOSTS]; /* routes_of's: each subnet's group */
	/* emit's: the subnets in runs on one switch each (subnet order), each
	 * run's subnets merged among themselves (own[first, first + n)): a
	 * route to one goes the way of all, so every switch's routes are
	 * merged from these, not from every subnet (a k=56 fat-tree: 1,568
	 * runs of 28 /24s, 3 prefixes each) */
	unsigned n_runs;
	struct trun { unsigned at, first, n; } run[MAX_HOSTS];
	struct aif_prefix_way own[MAX_HOSTS];
	/* emit's: each switch's links that are up, (port, peer) in port
	 * order, adj[adj_first[s] .. adj_first[s + 1]) (what the searches and
	 * the routes walk, four bytes a link end, not a port's whole entry) */
	unsigned adj_first[MAX_SW + 1];
	struct tadj { uint16_t port, peer; } adj[2 * MAX_LINKS];
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
	/* 1 Mb/s: a port's speed is kept in Mb/s, and a link of less would
	 * round to 0, which means "the port's speed" */
	if (!json_is_number(v) || !(json_number_value(v) >= 0.001) || json_number_value(v) > 1600)
		return fail(err, err_len, p, "must be a number 0.001..1600 (1 Mb/s to 1.6 Tb/s)");
	*out = json_number_value(v);
	return 0;
}

static unsigned
add_switch(struct topo *t, const char *name)
{
	snprintf(t->sw[t->n_sw].name, NAME_LEN, "%s", name);
	return t->n_sw++;
}

/* A host port pname on switch sw: subnet net/24, the switch at .1, the
 * host called hname at .2. */
static void
add_host_port(struct topo *t, unsigned sw, const char *pname, uint32_t net, const char *hname)
{
	unsigned p = t->sw[sw].n_ports++;
	struct tport *tp = &t->sw[sw].port[p];

	*tp = (struct tport){ .peer = -1, .ip = net | 1, .plen = 24 };
	snprintf(tp->name, NAME_LEN, "%s", pname);
	t->subnet[t->n_subnets].net = net;
	t->subnet[t->n_subnets++].at = sw;
	t->host[t->n_hosts].sw = sw;
	t->host[t->n_hosts].port = p;
	snprintf(t->host[t->n_hosts++].name, NAME_LEN, "%s", hname);
}

/* A fabric link between port pa of switch a and pb of b, on the next /31. */
static void
join(struct topo *t, unsigned a, const char *pa, unsigned b, const char *pb)
{
	uint32_t net31 = (172u << 24) | (16u << 16) | t->next_net31;
	unsigned xa = t->sw[a].n_ports++, xb = t->sw[b].n_ports++;
	struct tport *x = &t->sw[a].port[xa];
	struct tport *y = &t->sw[b].port[xb];

	t->next_net31 += 2;
	*x = (struct tport){ .peer = (int)b, .ip = net31, .peer_ip = net31 + 1, .plen = 31 };
	*y = (struct tport){ .peer = (int)a, .ip = net31 + 1, .peer_ip = net31, .plen = 31 };
	snprintf(x->name, sizeof(x->name), "%s", pa);
	snprintf(y->name, sizeof(y->name), "%s", pb);
	t->link[t->n_links].a = a;
	t->link[t->n_links].pa = xa;
	t->link[t->n_links].b = b;
	t->link[t->n_links++].pb = xb;
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
		for (unsigned a = t->adj_first[s]; a < t->adj_first[s + 1]; a++) {
			unsigned n = t->adj[a].peer;
			if (dist[n] < 0) {
				dist[n] = dist[s] + 1;
				queue[tail++] = n;
			}
		}
	}
}

/* t->adj: the links that are up, from each switch. */
static void
adjacency(struct topo *t)
{
	unsigned a = 0;

	for (unsigned s = 0; s < t->n_sw; s++) {
		t->adj_first[s] = a;
		for (unsigned p = 0; p < t->sw[s].n_ports; p++) {
			const struct tport *tp = &t->sw[s].port[p];
			if (tp->peer >= 0 && !tp->down)
				t->adj[a++] = (struct tadj){ .port = (uint16_t)p,
							     .peer = (uint16_t)tp->peer };
		}
	}
	t->adj_first[t->n_sw] = a;
}

/* Group n_groups of switch s: the neighbours on ports (a bit each), named
 * after them (t->group_name[n_groups]), appended to groups. */
static void
new_group(struct topo *t, unsigned s, uint64_t ports, unsigned n_groups, json_t *groups)
{
	char gname[AIF_NAME_MAX * 2] = "via";
	json_t *members = json_array();

	for (unsigned p = 0; p < t->sw[s].n_ports; p++) {
		const struct tport *tp = &t->sw[s].port[p];
		if (!((ports >> p) & 1))
			continue;
		char ipb[20];
		ip_str(tp->peer_ip, ipb, sizeof(ipb));
		json_array_append_new(members, json_pack("{s:s, s:s}", "ip", ipb, "port",
							 tp->name));
		size_t n = strlen(gname);
		snprintf(gname + n, sizeof(gname) - n, "-%s", t->sw[tp->peer].name);
	}
	gname[AIF_NAME_MAX - 1] = '\0'; /* long sets: the prefix names it */
	/* a truncated name that is taken: number it */
	size_t i;
	json_t *o;
	json_array_foreach(groups, i, o)
		if (strcmp(json_string_value(json_object_get(o, "name")), gname) == 0) {
			snprintf(gname, sizeof(gname), "g%u", n_groups);
			break;
		}
	t->group_name[n_groups] = json_string(gname);
	json_array_append_new(groups, json_pack("{s:O, s:o}", "name", t->group_name[n_groups],
						"members", members));
}

/*
 * Groups and routes of switch s: every subnet on another switch, through
 * the neighbours one hop closer to it; one group per set of next hops.  A
 * group's members are its ports in order, so a set of ports is a group:
 * group_ports[g] is group g's (scratch, a slot per subnet), and a subnet
 * finds its group by its ports, its members built only for a new one (a
 * k=16 fat-tree's 320 switches x 128 subnets: each route's members built
 * as JSON and compared with every group took most of its 0.9 s); the
 * subnets of one switch, next to each other, share the first's.  The
 * routes are the subnets' prefixes merged where siblings go the same way
 * (prefix_agg.h: a switch's routes grow with the fabric's pods and edge
 * switches, not its hosts; a k=28 fat-tree's 980 switches would have 5.4
 * M routes of a /24 each); a /24 left alone shares its prefix's string
 * (t->prefix), each route its group's name (t->group_name).
 */
static void
routes_of(struct topo *t, unsigned s, int (*dist)[MAX_SW], uint64_t *group_ports,
	  json_t *groups, json_t *routes)
{
	unsigned n_groups = 0, n = 0, g = 0;
	int last_d = -1;

	for (unsigned r = 0; r < t->n_runs; r++) {
		unsigned d = t->run[r].at;
		if (d == s || dist[d][s] <= 0)
			continue;
		if ((int)d != last_d) { /* (the same switch: the same group) */
			last_d = (int)d;
			uint64_t ports = 0;
			const int *dd = dist[d], want = dd[s] - 1;
			for (unsigned a = t->adj_first[s]; a < t->adj_first[s + 1]; a++)
				if (dd[t->adj[a].peer] == want)
					ports |= 1ull << t->adj[a].port;
			g = 0;
			while (g < n_groups && group_ports[g] != ports)
				g++;
			if (g == n_groups) { /* a new set of next hops */
				new_group(t, s, ports, n_groups, groups);
				group_ports[n_groups++] = ports;
			}
		}
		for (unsigned j = 0; j < t->run[r].n; j++) {
			t->way[n] = t->own[t->run[r].first + j];
			t->way[n++].way = g;
		}
	}
	/* (the same prefixes as merging every subnet's route: a run's
	 * prefixes are whole subtrees of one way, which that merge makes
	 * too, no other route inside them) */
	n = aif_prefix_aggregate(t->way, n);
	for (unsigned i = 0; i < n; i++) {
		const struct aif_prefix_way *w = &t->way[i];
		json_t *r = json_object();
		if (w->pf.len == 24) {
			json_object_set_nocheck(r, "prefix", t->prefix[w->first]);
		} else {
			const uint8_t *b = w->pf.addr.b;
			json_object_set_new_nocheck(r, "prefix", addr_json(
				(uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
				(uint32_t)b[2] << 8 | b[3], w->pf.len));
		}
		json_object_set_nocheck(r, "group", t->group_name[w->way]);
		json_array_append_new(routes, r);
	}
	for (unsigned x = 0; x < n_groups; x++)
		json_decref(t->group_name[x]);
}

/* What every generator shares: rates, delay, policy, host devices, and
 * which switches this daemon runs. */
struct common {
	double host_gbps, link_gbps;
	long long delay_ns;
	const json_t *policy, *devs;
	const json_t *down;     /* "down_links": names of links that are down */
	const json_t *emulate;  /* "emulate": the switches run here (NULL: all) */
	const json_t *link_devs; /* "link_devices": cut links' ends here -> device */
	long long bfd_ms, bfd_mult; /* "bfd": on every cut link's end here (0: none) */
};

static int
check_keys(const json_t *o, const char *path, const char *const *keys, const char *list,
	   char *err, size_t err_len)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)o, key, v) {
		bool known = false;
		for (unsigned i = 0; keys[i] != NULL; i++)
			known = known || strcmp(key, keys[i]) == 0;
		if (!known) {
			char p[160], why[200];
			snprintf(p, sizeof(p), "%s.%s", path, key);
			snprintf(why, sizeof(why), "unknown field (%s)", list);
			return fail(err, err_len, p, why);
		}
	}
	return 0;
}

static int
get_common(const json_t *o, const char *path, const char *link_key, struct common *c,
	   char *err, size_t err_len)
{
	char p[128];

	c->policy = json_object_get(o, "policy");
	c->devs = json_object_get(o, "host_devices");
	c->down = json_object_get(o, "down_links");
	if (c->down != NULL) {
		size_t i;
		json_t *v;
		snprintf(p, sizeof(p), "%s.down_links", path);
		if (!json_is_array(c->down))
			return fail(err, err_len, p, "must be an array of link names");
		json_array_foreach(c->down, i, v)
			if (!json_is_string(v))
				return fail(err, err_len, p, "must be an array of link names "
					    "(\"leaf0:u0-spine0:d0\", or an end, \"leaf0:u0\")");
	}
	if (get_uint(o, "delay_ns", 0, 10000000, 1000, &c->delay_ns, path, err, err_len) ||
	    get_gbps(o, "host_gbps", 100, &c->host_gbps, path, err, err_len) ||
	    get_gbps(o, link_key, 100, &c->link_gbps, path, err, err_len))
		return -1;
	if (c->policy != NULL && !json_is_string(c->policy)) {
		snprintf(p, sizeof(p), "%s.policy", path);
		return fail(err, err_len, p, "must be a policy name");
	}
	if (c->devs != NULL && !json_is_array(c->devs)) {
		snprintf(p, sizeof(p), "%s.host_devices", path);
		return fail(err, err_len, p, "must be an array of device names");
	}
	c->emulate = json_object_get(o, "emulate");
	c->link_devs = json_object_get(o, "link_devices");
	if (c->emulate != NULL && (!json_is_array(c->emulate) || json_array_size(c->emulate) == 0)) {
		snprintf(p, sizeof(p), "%s.emulate", path);
		return fail(err, err_len, p, "must be an array of the switches this daemon runs "
			    "(\"leaf0\", ...), at least one");
	}
	if (c->link_devs != NULL && !json_is_object(c->link_devs)) {
		snprintf(p, sizeof(p), "%s.link_devices", path);
		return fail(err, err_len, p, "must be an object: a cut link's end here -> its "
			    "device ({\"leaf0:u1\": \"net_af_packet0\"})");
	}
	if (c->link_devs != NULL && c->emulate == NULL) {
		snprintf(p, sizeof(p), "%s.link_devices", path);
		return fail(err, err_len, p, "only with \"emulate\": links are cut where the "
			    "fabric is split over daemons");
	}
	/* "bfd": {"interval_ms", "multiplier"}: a session on each cut link */
	static const char *const bfd_keys[] = { "interval_ms", "multiplier", NULL };
	const json_t *bfd = json_object_get(o, "bfd");
	c->bfd_ms = 0;
	if (bfd == NULL)
		return 0;
	snprintf(p, sizeof(p), "%s.bfd", path);
	if (!json_is_object(bfd))
		return fail(err, err_len, p, "must be an object ({\"interval_ms\": 50, "
			    "\"multiplier\": 3})");
	if (c->emulate == NULL)
		return fail(err, err_len, p, "only with \"emulate\": BFD runs on the links cut "
			    "between daemons");
	return check_keys(bfd, p, bfd_keys, "interval_ms, multiplier", err, err_len) ||
	       get_uint(bfd, "interval_ms", AIF_BFD_INTERVAL_MIN_MS, AIF_BFD_INTERVAL_MAX_MS,
			AIF_BFD_INTERVAL_DEFAULT_MS, &c->bfd_ms, p, err, err_len) ||
	       get_uint(bfd, "multiplier", 1, AIF_BFD_MULT_MAX, AIF_BFD_MULT_DEFAULT,
			&c->bfd_mult, p, err, err_len) ? -1 : 0;
}

/* The switch called name, or -1. */
static int
switch_by_name(const struct topo *t, const char *name, size_t len)
{
	for (unsigned s = 0; s < t->n_sw; s++)
		if (strlen(t->sw[s].name) == len && strncmp(t->sw[s].name, name, len) == 0)
			return (int)s;
	return -1;
}

/*
 * A fabric split over daemons ("emulate"): here[s] says which switches run
 * here (all of them without "emulate").  A link with one end here and one
 * elsewhere is cut: its end here is a DPDK port, the device link_devices
 * gives it (tport.device), which every cut link must have; a device for
 * anything else is refused.
 */
static int
split_of(struct topo *t, const struct common *c, bool *here, const char *path, char *err,
	 size_t err_len)
{
	char p[200], why[300];
	const char *key;
	size_t i;
	json_t *v;

	for (unsigned s = 0; s < t->n_sw; s++)
		here[s] = c->emulate == NULL;
	json_array_foreach(c->emulate, i, v) {
		const char *name = json_string_value(v);
		int s = name != NULL ? switch_by_name(t, name, strlen(name)) : -1;
		snprintf(p, sizeof(p), "%s.emulate[%zu]", path, i);
		if (name == NULL)
			return fail(err, err_len, p, "must be a switch name (\"leaf0\")");
		if (s < 0) {
			snprintf(why, sizeof(why), "no switch '%.64s' in this fabric (%s .. %s)",
				 name, t->sw[0].name, t->sw[t->n_sw - 1].name);
			return fail(err, err_len, p, why);
		}
		if (here[s])
			return fail(err, err_len, p, "names a switch twice");
		here[s] = true;
	}
	json_object_foreach((json_t *)c->link_devs, key, v) {
		const char *colon = strchr(key, ':');
		int s = colon != NULL ? switch_by_name(t, key, (size_t)(colon - key)) : -1;
		unsigned q = 0;
		snprintf(p, sizeof(p), "%s.link_devices.%.64s", path, key);
		while (s >= 0 && q < t->sw[s].n_ports && strcmp(t->sw[s].port[q].name, colon + 1) != 0)
			q++;
		if (s < 0 || q == t->sw[s].n_ports || t->sw[s].port[q].peer < 0)
			return fail(err, err_len, p, "no link end of that name (\"leaf0:u1\")");
		const struct tport *tp = &t->sw[s].port[q];
		if (!here[s]) {
			snprintf(why, sizeof(why), "%s runs elsewhere (not in emulate): only "
				 "this daemon's end of a cut link takes a device", t->sw[s].name);
			return fail(err, err_len, p, why);
		}
		if (here[tp->peer]) {
			snprintf(why, sizeof(why), "both ends of this link run here (%s too): it "
				 "is emulated, not cut, and takes no device", t->sw[tp->peer].name);
			return fail(err, err_len, p, why);
		}
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    json_string_length(v) >= AIF_DEV_NAME_MAX)
			return fail(err, err_len, p, "must be a device name (\"net_af_packet0\")");
		t->sw[s].port[q].device = json_string_value(v);
	}
	for (unsigned k = 0; k < t->n_links; k++) {
		unsigned a = t->link[k].a, b = t->link[k].b;
		if (here[a] == here[b])
			continue;
		unsigned s = here[a] ? a : b, q = here[a] ? t->link[k].pa : t->link[k].pb;
		if (t->sw[s].port[q].device != NULL)
			continue;
		snprintf(p, sizeof(p), "%s.link_devices", path);
		snprintf(why, sizeof(why), "no device for %s:%s, this daemon's end of the link to "
			 "%s, which runs elsewhere (\"%s:%s\": \"net_af_packet0\")", t->sw[s].name,
			 t->sw[s].port[q].name, t->sw[here[a] ? b : a].name, t->sw[s].name,
			 t->sw[s].port[q].name);
		return fail(err, err_len, p, why);
	}
	return 0;
}

/* What host_devices[n] says of host port n's host. */
struct host_dev {
	const char *device; /* NULL: none */
	const char *mac;    /* given; NULL: learned, or ours (emit) */
	uint32_t ip;        /* host order */
};

/*
 * host_devices[n] (v, NULL past the end): a device name, or an object
 * {"device": NAME, "mac": MAC, "ip": IP} giving the real host's MAC (the
 * switch then needs no ARP from it) or another address in the port's /24.
 */
static int
host_dev(const json_t *v, unsigned n, const struct tport *tp, struct host_dev *hd,
	 const char *path, char *err, size_t err_len)
{
	static const char *const keys[] = { "device", "mac", "ip", NULL };
	char p[160], fp[200];

	*hd = (struct host_dev){ .ip = tp->ip + 1 };
	snprintf(p, sizeof(p), "%s.host_devices[%u]", path, n);
	if (v == NULL)
		return 0;
	if (json_is_string(v)) {
		hd->device = json_string_value(v);
		return 0;
	}
	if (!json_is_object(v))
		return fail(err, err_len, p, "must be a device name, or an object "
			    "{\"device\", \"mac\", \"ip\"}");
	if (check_keys(v, p, keys, "device, mac, ip", err, err_len) != 0)
		return -1;
	const json_t *d = json_object_get(v, "device"), *m = json_object_get(v, "mac");
	const json_t *a = json_object_get(v, "ip");
	if (!json_is_string(d)) {
		snprintf(fp, sizeof(fp), "%s.device", p);
		return fail(err, err_len, fp, "required: the host port's device name");
	}
	hd->device = json_string_value(d);
	if (m != NULL) {
		static const struct aif_mac zero;
		struct aif_mac mac;
		snprintf(fp, sizeof(fp), "%s.mac", p);
		if (!json_is_string(m) || aif_mac_parse(json_string_value(m), &mac) != 0 ||
		    (mac.b[0] & 1) || memcmp(&mac, &zero, sizeof(zero)) == 0)
			return fail(err, err_len, fp, "must be a unicast, non-zero MAC "
				    "(\"02:00:00:00:00:02\")");
		hd->mac = json_string_value(m);
	}
	if (a != NULL) {
		uint32_t net = tp->ip & ~0xffu, host = 0;
		struct aif_ip ip;
		char why[128], nb[20];
		snprintf(fp, sizeof(fp), "%s.ip", p);
		ip_str(net, nb, sizeof(nb));
		snprintf(why, sizeof(why), "must be an IPv4 address in %s/24 other than the "
			 "network, the switch's .1 and the broadcast", nb);
		if (json_is_string(a) && aif_ip_parse(json_string_value(a), &ip) == 0 &&
		    ip.family == AIF_AF_INET4)
			host = aif_ip4_host(&ip);
		if ((host & ~0xffu) != net || (host & 0xff) == 0 || (host & 0xff) == 1 ||
		    (host & 0xff) == 255)
			return fail(err, err_len, fp, why);
		hd->ip = host;
	}
	return 0;
}

/* The subnets' runs on one switch, each merged (t->run, t->own). */
static void
subnet_runs(struct topo *t)
{
	unsigned o = 0;

	t->n_runs = 0;
	for (unsigned k = 0; k < t->n_subnets;) {
		unsigned e = k + 1;
		while (e < t->n_subnets && t->subnet[e].at == t->subnet[k].at)
			e++;
		for (unsigned i = k; i < e; i++) {
			struct aif_prefix_way *w = &t->own[o + i - k];
			uint32_t net = t->subnet[i].net;
			*w = (struct aif_prefix_way){ .first = i };
			w->pf.addr.family = AIF_AF_INET4;
			w->pf.addr.b[0] = (uint8_t)(net >> 24);
			w->pf.addr.b[1] = (uint8_t)(net >> 16);
			w->pf.addr.b[2] = (uint8_t)(net >> 8);
			w->pf.addr.b[3] = (uint8_t)net;
			w->pf.len = 24;
		}
		unsigned n = aif_prefix_aggregate(&t->own[o], e - k);
		t->run[t->n_runs++] = (struct trun){ .at = t->subnet[k].at, .first = o, .n = n };
		o += n;
		k = e;
	}
}

/* The config JSON of t: switches with ports, neighbours, groups and
 * routes; links; hosts. */
static int
emit(json_t *root, struct topo *t, const struct common *c, const char *path, char *err,
     size_t err_len)
{
	int (*dist)[MAX_SW] = t->dist;
	bool *here = t->here;
	int *idx = t->idx;
	char p[128];

	if (c->devs != NULL && json_array_size(c->devs) > t->n_hosts) {
		snprintf(p, sizeof(p), "%s.host_devices", path);
		return fail(err, err_len, p, "more devices than host ports");
	}
	/* links that are down: no shortest path goes through them */
	size_t i;
	json_t *v;
	json_array_foreach(c->down, i, v) {
		const char *name = json_string_value(v);
		bool found = false;
		for (unsigned k = 0; k < t->n_links; k++) {
			char a[80], b[80], ab[170];
			snprintf(a, sizeof(a), "%s:%s", t->sw[t->link[k].a].name,
				 t->sw[t->link[k].a].port[t->link[k].pa].name);
			snprintf(b, sizeof(b), "%s:%s", t->sw[t->link[k].b].name,
				 t->sw[t->link[k].b].port[t->link[k].pb].name);
			snprintf(ab, sizeof(ab), "%s-%s", a, b);
			if (strcmp(name, ab) != 0 && strcmp(name, a) != 0 && strcmp(name, b) != 0)
				continue;
			t->link[k].down = 1;
			t->sw[t->link[k].a].port[t->link[k].pa].down = 1;
			t->sw[t->link[k].b].port[t->link[k].pb].down = 1;
			found = true;
		}
		if (!found) {
			char why[160];
			snprintf(p, sizeof(p), "%s.down_links[%zu]", path, i);
			snprintf(why, sizeof(why), "no link '%s' (\"leaf0:u0-spine0:d0\", or an end, "
				 "\"leaf0:u0\")", name);
			return fail(err, err_len, p, why);
		}
	}
	if (split_of(t, c, here, path, err, err_len) != 0)
		return -1;
	adjacency(t);
	for (unsigned k = 0; k < t->n_subnets; k++)
		if (k == 0 || t->subnet[k].at != t->subnet[k - 1].at)
			bfs(t, t->subnet[k].at, dist[t->subnet[k].at]);

	for (unsigned k = 0; k < t->n_subnets; k++)
		t->prefix[k] = addr_json(t->subnet[k].net, 24);
	subnet_runs(t);
	json_t *switches = json_array(), *links = json_array(), *hosts_j = json_array();
	for (unsigned s = 0; s < t->n_sw; s++) {
		const struct tsw *sw = &t->sw[s];
		/* routes, MACs and seeds are the whole fabric's, whoever runs it */
		idx[s] = here[s] ? (int)json_array_size(switches) : -1;
		if (!here[s])
			continue;
		json_t *ports = json_array(), *nb = json_array();
		json_t *groups = json_array(), *routes = json_array();
		for (unsigned q = 0; q < sw->n_ports; q++) {
			const struct tport *tp = &sw->port[q];
			json_t *o = json_pack("{s:s, s:o, s:f, s:[o]}", "name", tp->name,
					      "mac", mac_json(s, q), "speed_gbps",
					      tp->peer < 0 ? c->host_gbps : c->link_gbps,
					      "addresses", addr_json(tp->ip, tp->plen));
			if (tp->device != NULL)
				json_object_set_new(o, "device", json_string(tp->device));
			/* a cut link's end: its cable is the fabric's link (the
			 * PFC headroom's), as an emulated link's end counts it */
			if (tp->device != NULL && tp->peer >= 0 && !here[tp->peer]) {
				json_object_set_new(o, "cable_delay_ns",
						    json_integer((json_int_t)c->delay_ns));
				if (c->bfd_ms != 0)
					json_object_set_new(o, "bfd", json_pack(
						"{s:I, s:I}", "interval_ms", (json_int_t)c->bfd_ms,
						"multiplier", (json_int_t)c->bfd_mult));
			}
			json_array_append_new(ports, o);
			if (tp->peer < 0)
				continue;
			/* the peer's port facing us: its MAC */
			const struct tsw *ps = &t->sw[tp->peer];
			unsigned r = 0;
			while (r < ps->n_ports && ps->port[r].peer_ip != tp->ip)
				r++;
			char ipb[20];
			ip_str(tp->peer_ip, ipb, sizeof(ipb));
			json_array_append_new(nb, json_pack("{s:s, s:o, s:s}", "ip", ipb, "mac",
							    mac_json((unsigned)tp->peer, r),
							    "port", tp->name));
		}
		routes_of(t, s, dist, t->group_ports, groups, routes);
		json_t *o = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o}", "name", sw->name,
				      "seed", (int)s + 1, "ports", ports, "neighbors", nb,
				      "nexthop_groups", groups, "routes", routes);
		if (c->policy != NULL)
			json_object_set(o, "policy", (json_t *)c->policy);
		json_array_append_new(switches, o);
	}
	for (unsigned k = 0; k < t->n_subnets; k++)
		json_decref(t->prefix[k]);
	for (unsigned k = 0; k < t->n_links; k++) {
		char a[80], b[80];
		if (!here[t->link[k].a] || !here[t->link[k].b])
			continue; /* cut (a device port here), or elsewhere */
		snprintf(a, sizeof(a), "%s:%s", t->sw[t->link[k].a].name,
			 t->sw[t->link[k].a].port[t->link[k].pa].name);
		snprintf(b, sizeof(b), "%s:%s", t->sw[t->link[k].b].name,
			 t->sw[t->link[k].b].port[t->link[k].pb].name);
		json_t *lj = json_pack("{s:s, s:s, s:f, s:I}", "a", a, "b", b,
				       "rate_gbps", c->link_gbps, "delay_ns", (json_int_t)c->delay_ns);
		if (t->link[k].down)
			json_object_set_new(lj, "up", json_false());
		json_array_append_new(links, lj);
	}
	for (unsigned h = 0; h < t->n_hosts; h++) {
		unsigned s = t->host[h].sw, q = t->host[h].port;
		const struct tport *tp = &t->sw[s].port[q];
		struct host_dev hd;
		char ip[20], mac[32];
		if (host_dev(json_array_get(c->devs, h), h, tp, &hd, path, err, err_len) != 0) {
			json_decref(switches);
			json_decref(links);
			json_decref(hosts_j);
			return -1;
		}
		if (!here[s])
			continue;
		ip_str(hd.ip, ip, sizeof(ip));
		json_t *hj = json_pack("{s:s, s:s, s:s, s:s}", "name", t->host[h].name, "switch",
				       t->sw[s].name, "port", tp->name, "ip", ip);
		if (hd.mac != NULL) {
			json_object_set_new(hj, "mac", json_string(hd.mac));
		} else if (hd.device == NULL || strncmp(hd.device, "net_pcap", 8) == 0) {
			/* an emulated host (virtual, or a pcap file): a MAC of ours */
			snprintf(mac, sizeof(mac), "02:0a:%02x:%02x:%02x:02", (s >> 8) & 255,
				 s & 255, q);
			json_object_set_new(hj, "mac", json_string(mac));
		} /* else a real host: the switch learns its MAC from its ARP/ND */
		json_array_append_new(hosts_j, hj);
		json_t *pj = json_array_get(json_object_get(json_array_get(switches, (size_t)idx[s]),
							    "ports"), q);
		if (hd.device != NULL && pj != NULL)
			json_object_set_new(pj, "device", json_string(hd.device));
	}
	json_object_set_new(root, "switches", switches);
	json_object_set_new(root, "links", links);
	json_object_set_new(root, "hosts", hosts_j);
	return 0;
}

/* The names' prefix of plane m of planes: "p<m>-", none for one plane. */
static void
plane_prefix(char pre[8], unsigned planes, unsigned m)
{
	pre[0] = '\0';
	if (planes > 1)
		snprintf(pre, 8, "p%u-", m);
}

/*
 * Leaf-spine, in planes parallel copies ("p<k>-leaf<i>" when planes > 1): a
 * host has one port per plane, on leaf i of each.  Host j of leaf g = k *
 * leaves + i at 10.<g>.<j>.2 while the leaves fit an octet (planes x leaves
 * <= 256), else 6 bits for j (a leaf has at most 63 hosts): 10.<g / 4>.<(g
 * % 4) x 64 + j>.2, up to 8 planes of 64 leaves.
 */
static int
leaf_spine(json_t *root, const json_t *ls, char *err, size_t err_len)
{
	static const char *const path = "$.topology.leaf_spine";
	static const char *const keys[] = { "leaves", "spines", "hosts_per_leaf", "planes",
					    "host_gbps", "uplink_gbps", "delay_ns", "policy",
					    "host_devices", "down_links", "emulate", "link_devices",
					    "bfd", NULL };
	long long leaves, spines, hosts, planes;
	struct common c;

	if (check_keys(ls, path, keys, "leaves, spines, hosts_per_leaf, planes, host_gbps, "
		       "uplink_gbps, delay_ns, policy, host_devices, down_links, emulate, "
		       "link_devices, bfd", err, err_len) ||
	    get_uint(ls, "leaves", 1, AIF_MAX_PORTS, 2, &leaves, path, err, err_len) ||
	    get_uint(ls, "spines", 1, AIF_MAX_PORTS - 1, 1, &spines, path, err, err_len) ||
	    get_uint(ls, "hosts_per_leaf", 1, AIF_MAX_PORTS - spines, 1, &hosts, path, err,
		     err_len) ||
	    get_uint(ls, "planes", 1, 8, 1, &planes, path, err, err_len) ||
	    get_common(ls, path, "uplink_gbps", &c, err, err_len))
		return -1;
	if (planes * (leaves + spines) > MAX_SW) {
		char why[128];
		snprintf(why, sizeof(why), "%lld switches: planes x (leaves + spines) must be at "
			 "most %u (switches in a fabric)", planes * (leaves + spines), MAX_SW);
		return fail(err, err_len, "$.topology.leaf_spine.planes", why);
	}
	/* host j of leaf g: ((g << jbits) | j) << 8, 10.g.j.0/24 as long as
	 * the leaves fit an octet (today's fabrics keep their addresses) */
	unsigned jbits = planes * leaves <= 256 ? 8 : 6;
	_Static_assert(AIF_MAX_PORTS <= 64, "a leaf's hosts in 6 bits, 8 x 64 leaves in 10");
	struct topo *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return fail(err, err_len, path, "out of memory");
	for (unsigned k = 0; k < planes; k++) {
		char pre[8];
		plane_prefix(pre, (unsigned)planes, k);
		unsigned leaf0 = t->n_sw;
		for (unsigned i = 0; i < leaves; i++) {
			char name[NAME_LEN];
			snprintf(name, sizeof(name), "%sleaf%u", pre, i);
			unsigned s = add_switch(t, name);
			for (unsigned j = 0; j < hosts; j++) {
				char pn[16], hn[NAME_LEN];
				snprintf(pn, sizeof(pn), "h%u", j);
				snprintf(hn, sizeof(hn), "%sleaf%u-%u", pre, i, j);
				add_host_port(t, s, pn, (10u << 24) |
					      ((((k * (unsigned)leaves + i) << jbits) | j) << 8),
					      hn);
			}
		}
		unsigned spine0 = t->n_sw;
		for (unsigned s = 0; s < spines; s++) {
			char name[NAME_LEN];
			snprintf(name, sizeof(name), "%sspine%u", pre, s);
			add_switch(t, name);
		}
		for (unsigned i = 0; i < leaves; i++)
			for (unsigned s = 0; s < spines; s++) {
				char pa[16], pb[16];
				snprintf(pa, sizeof(pa), "u%u", s);
				snprintf(pb, sizeof(pb), "d%u", i);
				join(t, leaf0 + i, pa, spine0 + s, pb);
			}
	}
	int rc = emit(root, t, &c, path, err, err_len);
	free(t);
	return rc;
}

/* One fat-tree of t: switches and hosts named with pre, pods addressed
 * from pod0 (host i of a pod takes ibits; fat_tree). */
static void
fat_tree_plane(struct topo *t, unsigned k, const char *pre, unsigned pod0, unsigned ibits)
{
	unsigned h = k / 2, base = t->n_sw, core0 = base + k * h * 2;

	for (unsigned p = 0; p < k; p++) {
		for (unsigned e = 0; e < h; e++) {
			char name[NAME_LEN];
			snprintf(name, sizeof(name), "%spod%u-edge%u", pre, p, e);
			unsigned s = add_switch(t, name);
			for (unsigned x = 0; x < h; x++) {
				char pn[16], hn[NAME_LEN];
				snprintf(pn, sizeof(pn), "h%u", x);
				snprintf(hn, sizeof(hn), "%spod%u-edge%u-%u", pre, (uint8_t)p,
					 (uint8_t)e, (uint8_t)x); /* (k <= 64) */
				add_host_port(t, s, pn, (10u << 24) |
					      ((((pod0 + p) << ibits) | (e * h + x)) << 8), hn);
			}
		}
		for (unsigned a = 0; a < h; a++) {
			char name[NAME_LEN];
			snprintf(name, sizeof(name), "%spod%u-agg%u", pre, p, a);
			add_switch(t, name);
		}
	}
	for (unsigned m = 0; m < h * h; m++) {
		char name[NAME_LEN];
		snprintf(name, sizeof(name), "%score%u", pre, m);
		add_switch(t, name);
	}
	for (unsigned p = 0; p < k; p++) {
		unsigned edge0 = base + p * 2 * h, agg0 = edge0 + h;
		for (unsigned e = 0; e < h; e++)
			for (unsigned a = 0; a < h; a++) {
				char pa[16], pb[16];
				snprintf(pa, sizeof(pa), "u%u", a);
				snprintf(pb, sizeof(pb), "d%u", e);
				join(t, edge0 + e, pa, agg0 + a, pb);
			}
		for (unsigned a = 0; a < h; a++)
			for (unsigned m = 0; m < h; m++) {
				char pa[16], pb[16];
				snprintf(pa, sizeof(pa), "u%u", m);
				snprintf(pb, sizeof(pb), "d%u", p);
				join(t, agg0 + a, pa, core0 + a * h + m, pb);
			}
	}
}

/*
 * k-ary fat-tree (three tiers): k pods of k/2 edge and k/2 aggregation
 * switches, (k/2)^2 cores; edge switch e of pod p has hosts h0.. at
 * 10.<p>.<e * k/2 + h>.2 and uplinks u<j> to aggregation j of its pod;
 * aggregation j has downlinks d<e> and uplinks u<m> to cores j * k/2 + m,
 * which have downlinks d<p>, one per pod.  In planes parallel copies
 * ("p<m>-pod<p>-edge<e>" when planes > 1): a host has one port per plane,
 * plane m's pods numbered m * k + p in the addresses.
 */
static int
fat_tree(json_t *root, const json_t *ft, char *err, size_t err_len)
{
	static const char *const path = "$.topology.fat_tree";
	static const char *const keys[] = { "k", "planes", "host_gbps", "link_gbps", "delay_ns",
					    "policy", "host_devices", "down_links", "emulate",
					    "link_devices", "bfd", NULL };
	long long k, planes;
	struct common c;

	if (check_keys(ft, path, keys, "k, planes, host_gbps, link_gbps, delay_ns, policy, "
		       "host_devices, down_links, emulate, link_devices, bfd", err, err_len) ||
	    get_uint(ft, "k", 2, AIF_MAX_PORTS, 4, &k, path, err, err_len) ||
	    get_uint(ft, "planes", 1, 8, 1, &planes, path, err, err_len) ||
	    get_common(ft, path, "link_gbps", &c, err, err_len))
		return -1;
	if (k % 2 != 0)
		return fail(err, err_len, "$.topology.fat_tree.k", "must be even");
	if (5 * k * k / 4 > MAX_SW) {
		char why[128];
		snprintf(why, sizeof(why), "k=%lld makes %lld switches, more than a fabric may have "
			 "(%d): k is at most %d", k, 5 * k * k / 4, MAX_SW, FAT_TREE_K_MAX);
		return fail(err, err_len, "$.topology.fat_tree.k", why);
	}
	unsigned h = (unsigned)k / 2;
	/* host i of a pod (e x h + x): 10.p.i.0/24 while a pod's hosts fit
	 * one octet (k <= 32), else 10 bits for i: 10.(4p + i / 256).(i %
	 * 256).0/24 (k <= 56: 64 pods of up to 784), or 9 where 10 leave too
	 * few for the pods; plane m's pod p is pod m * k + p there */
	unsigned ibits = h * h <= 256 ? 8 : 10;
	if (ibits == 10 && (planes * k) << ibits > 65536 && h * h <= 512)
		ibits = 9; /* two planes of k = 34 .. 40: 10.(2p + i / 256).(i % 256) */
	if (planes * 5 * k * k / 4 > MAX_SW) {
		char why[128];
		snprintf(why, sizeof(why), "%lld switches: planes x 5k^2/4 must be at most %u "
			 "(switches in a fabric)", planes * 5 * k * k / 4, MAX_SW);
		return fail(err, err_len, "$.topology.fat_tree.planes", why);
	}
	if ((planes * k) << ibits > 65536) { /* (none within the switches' bound) */
		char why[128];
		snprintf(why, sizeof(why), "%lld pods of %u hosts: more host /24s than 10.0.0.0/8 "
			 "holds", planes * k, h * h);
		return fail(err, err_len, "$.topology.fat_tree.planes", why);
	}
	struct topo *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return fail(err, err_len, path, "out of memory");
	for (unsigned pl = 0; pl < planes; pl++) {
		char pre[8];
		plane_prefix(pre, (unsigned)planes, pl);
		fat_tree_plane(t, (unsigned)k, pre, pl * (unsigned)k, ibits);
	}
	int rc = emit(root, t, &c, path, err, err_len);
	free(t);
	return rc;
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
			    "must be an object with one generator (\"leaf_spine\" or \"fat_tree\")");
	if (json_object_get(root, "switches") || json_object_get(root, "links") ||
	    json_object_get(root, "hosts"))
		return fail(err, err_len, "$.topology", "generates switches, links and hosts: "
			    "the file cannot give them too");
	json_object_foreach((json_t *)topo, key, v) {
		char p[128];
		snprintf(p, sizeof(p), "$.topology.%s", key);
		bool ls = strcmp(key, "leaf_spine") == 0, ft = strcmp(key, "fat_tree") == 0;
		if (!ls && !ft)
			return fail(err, err_len, p, "unknown generator (leaf_spine, fat_tree)");
		if (!json_is_object(v))
			return fail(err, err_len, p, "must be an object");
		if ((ls ? leaf_spine(root, v, err, err_len) : fat_tree(root, v, err, err_len)) != 0)
			return -1;
	}
	json_object_del(root, "topology");
	return 0;
}

bool
aif_topology_split(const json_t *topo)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)topo, key, v)
		if (json_is_object(v) && json_object_get(v, "emulate") != NULL)
			return true;
	return false;
}
