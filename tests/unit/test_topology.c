/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology generators (control/topology.c), read back through the config
 * reader: a generated leaf-spine has the switches, ports, links and hosts
 * it should, and routes over all shortest paths (a leaf reaches another
 * leaf's hosts through every spine, a spine through the one leaf), with
 * one group per set of next hops; hosts on real devices are learned, the
 * emulated ones get a MAC.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../config_ok.h"
#include "config.h"

/* The group of the longest route of sp that holds the address of prefix
 * ("10.3.1.0/24": 10.3.1.0), as the switch's lookup finds it; NULL: none. */
static const struct aif_group_params *
group_of(const struct aif_switch_params *sp, const char *prefix)
{
	struct aif_prefix want;
	int best = -1;

	assert_int_equal(aif_prefix_parse(prefix, &want), 0);
	for (uint32_t r = 0; r < sp->n_routes; r++)
		if (aif_prefix_contains(&sp->routes[r].prefix, &want.addr) &&
		    (best < 0 || sp->routes[r].prefix.len > sp->routes[best].prefix.len))
			best = (int)r;
	return best < 0 ? NULL : &sp->groups[sp->routes[best].group];
}

/*
 * Every switch's routes, as its lookup reads them, against the rule they
 * are made by: for each host on another switch, the longest route holding
 * the host's address goes to the neighbours one hop closer to the host's
 * switch (breadth first over the links up, here), all of them, in port
 * order; and a route holds no address outside the hosts' /24s (merged
 * siblings cover what they merged and nothing more).
 */
static void
assert_routes_exact(const struct aif_config *cfg)
{
	uint16_t n = cfg->n_switches;
	int *dist = malloc((size_t)n * sizeof(*dist));
	uint16_t *queue = malloc((size_t)n * sizeof(*queue));
	assert_true(dist != NULL && queue != NULL);

	for (uint32_t h = 0; h < cfg->n_hosts; h++) {
		const struct aif_host_params *host = &cfg->hosts[h];
		unsigned head = 0, tail = 0;
		for (uint16_t s = 0; s < n; s++)
			dist[s] = -1;
		dist[host->sw] = 0;
		queue[tail++] = host->sw;
		while (head < tail) {
			uint16_t s = queue[head++];
			for (uint32_t k = 0; k < cfg->n_links; k++) {
				const struct aif_topo_link *l = &cfg->links[k];
				int o = l->a_switch == s ? l->b_switch : l->b_switch == s ? l->a_switch : -1;
				if (o >= 0 && !l->down && dist[o] < 0) {
					dist[o] = dist[s] + 1;
					queue[tail++] = (uint16_t)o;
				}
			}
		}
		char a[64];
		aif_ip_fmt(&host->ip, a, sizeof(a));
		for (uint16_t s = 0; s < n; s++) {
			const struct aif_switch_params *sp = &cfg->switches[s];
			const struct aif_group_params *g = group_of(sp, a);
			if (s == host->sw || dist[s] <= 0) {
				if (g != NULL)
					fail_msg("%s: a route to %s, its own or out of reach", sp->name, a);
				continue;
			}
			if (g == NULL)
				fail_msg("%s: no route to %s", sp->name, a);
			uint16_t m = 0;
			for (uint32_t k = 0; k < cfg->n_links; k++) {
				const struct aif_topo_link *l = &cfg->links[k];
				int o = -1, port = -1;
				if (l->a_switch == s) {
					o = l->b_switch;
					port = l->a_port;
				} else if (l->b_switch == s) {
					o = l->a_switch;
					port = l->b_port;
				}
				if (o < 0 || l->down || dist[o] != dist[s] - 1)
					continue;
				bool in = false;
				for (uint16_t x = 0; x < g->n_members; x++)
					in = in || g->members[x].port == port;
				if (!in)
					fail_msg("%s: %s not through port %d", sp->name, a, port);
				m++;
			}
			assert_int_equal(g->n_members, m);
		}
	}
	/* each route's /24s are hosts' */
	for (uint16_t s = 0; s < n; s++)
		for (uint32_t r = 0; r < cfg->switches[s].n_routes; r++) {
			struct aif_prefix pf = cfg->switches[s].routes[r].prefix;
			assert_true(pf.addr.family == AIF_AF_INET4 && pf.len <= 24);
			uint32_t base = (uint32_t)pf.addr.b[0] << 24 | (uint32_t)pf.addr.b[1] << 16 |
					(uint32_t)pf.addr.b[2] << 8;
			for (uint32_t i = 0; i < 1u << (24 - pf.len); i++) {
				uint32_t net = base + (i << 8);
				bool found = false;
				for (uint32_t h = 0; h < cfg->n_hosts && !found; h++) {
					const uint8_t *b = cfg->hosts[h].ip.b;
					found = ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
						 (uint32_t)b[2] << 8) == net;
				}
				if (!found)
					fail_msg("%s: route %u holds %u.%u.%u.0/24, no host's",
						 cfg->switches[s].name, r, net >> 24, (net >> 16) & 255,
						 (net >> 8) & 255);
			}
		}
	free(dist);
	free(queue);
}

/* One group per set of next hops on every switch: no two groups with the
 * same members, each named by some route. */
static void
assert_groups_distinct(const struct aif_config *cfg)
{
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		for (uint32_t a = 0; a < sp->n_groups; a++) {
			const struct aif_group_params *ga = &sp->groups[a];
			bool used = false;
			for (uint32_t r = 0; r < sp->n_routes && !used; r++)
				used = sp->routes[r].group == a;
			if (!used)
				fail_msg("%s: group %s named by no route", sp->name, ga->name);
			for (uint32_t b = a + 1; b < sp->n_groups; b++) {
				const struct aif_group_params *gb = &sp->groups[b];
				if (ga->n_members == gb->n_members &&
				    memcmp(ga->members, gb->members,
					   ga->n_members * sizeof(ga->members[0])) == 0)
					fail_msg("%s: groups %s and %s have the same members",
						 sp->name, ga->name, gb->name);
			}
		}
	}
}

static void
test_leaf_spine_4x2(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 2,"
		" \"host_gbps\": 25, \"uplink_gbps\": 100, \"delay_ns\": 500,"
		" \"host_devices\": [\"net_pcap0\", \"net_pcap1\"]}}}");
	char buf[64];

	(void)state;
	assert_int_equal(cfg->n_switches, 6);
	assert_int_equal(cfg->n_links, 8);
	assert_int_equal(cfg->n_hosts, 8);
	const struct aif_switch_params *leaf0 = &cfg->switches[0], *leaf3 = &cfg->switches[3];
	const struct aif_switch_params *spine1 = &cfg->switches[5];
	assert_string_equal(leaf3->name, "leaf3");
	assert_string_equal(spine1->name, "spine1");
	assert_int_equal(leaf0->n_ports, 4); /* h0 h1 u0 u1 */
	assert_int_equal(spine1->n_ports, 4); /* d0..d3 */
	assert_string_equal(leaf0->ports[0].device, "net_pcap0");
	assert_string_equal(leaf0->ports[1].device, "net_pcap1");
	assert_string_equal(leaf0->ports[2].device, ""); /* a link end */
	assert_int_equal(leaf0->ports[0].speed_mbps, 25000);
	assert_int_equal(leaf0->ports[2].speed_mbps, 100000);
	assert_int_equal(cfg->links[0].delay_ns, 500);
	assert_int_equal(cfg->links[0].rate_bps, 100000000000ull);

	/* a leaf: the 6 subnets of the other leaves, each through both spines,
	 * a leaf's two /24s as one /23 */
	assert_int_equal(leaf0->n_routes, 3);
	assert_string_equal(aif_prefix_fmt(&leaf0->routes[0].prefix, buf, sizeof(buf)),
			    "10.1.0.0/23");
	assert_int_equal(leaf0->n_groups, 1);
	const struct aif_group_params *g = group_of(leaf0, "10.3.1.0/24");
	assert_non_null(g);
	assert_string_equal(g->name, "via-spine0-spine1");
	assert_int_equal(g->n_members, 2);
	assert_string_equal(aif_ip_fmt(&g->members[0].ip, buf, sizeof(buf)), "172.16.0.1");
	assert_string_equal(leaf0->ports[g->members[1].port].name, "u1");
	assert_null(group_of(leaf0, "10.0.1.0/24")); /* its own: connected */
	/* a spine: every subnet through the one leaf that has it */
	assert_int_equal(spine1->n_routes, 4);
	assert_int_equal(spine1->n_groups, 4);
	g = group_of(spine1, "10.2.0.0/24");
	assert_non_null(g);
	assert_int_equal(g->n_members, 1);
	assert_string_equal(spine1->ports[g->members[0].port].name, "d2");
	/* leaf2's u1 is 172.16.0.(2 * (2 * 2 + 1)) = .10: the spine asks .10 */
	assert_string_equal(aif_ip_fmt(&g->members[0].ip, buf, sizeof(buf)), "172.16.0.10");
	/* hosts: static neighbours of their leaf */
	assert_string_equal(cfg->hosts[7].name, "leaf3-1");
	assert_string_equal(aif_ip_fmt(&cfg->hosts[7].ip, buf, sizeof(buf)), "10.3.1.2");
	assert_groups_distinct(cfg);
	assert_routes_exact(cfg);
	aif_config_free(cfg);
}

/*
 * Who gets a MAC of ours: a host on a real device (af_packet here) has none,
 * its switch learns it from the host's ARP; a net_pcap port's host and a
 * host with no device have one (nothing there answers ARP); a MAC and an
 * address given in host_devices are the host's.
 */
static void
test_host_macs(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 1,"
		" \"hosts_per_leaf\": 2, \"host_devices\": [\"net_af_packet0\", \"net_pcap1\","
		" {\"device\": \"net_af_packet2\", \"mac\": \"02:42:ac:11:00:09\","
		" \"ip\": \"10.1.0.9\"}]}}}");
	const struct aif_switch_params *leaf0 = &cfg->switches[0], *leaf1 = &cfg->switches[1];
	char buf[64];

	(void)state;
	assert_int_equal(cfg->n_hosts, 4);
	/* leaf0-0 on an af_packet veth: learned, a configured neighbour */
	assert_true(cfg->hosts[0].learned);
	assert_true(leaf0->neighbors[leaf0->n_neighbors - 2].learned);
	assert_string_equal(aif_ip_fmt(&leaf0->neighbors[leaf0->n_neighbors - 2].ip, buf,
				       sizeof(buf)), "10.0.0.2");
	/* leaf0-1 on a pcap file: ours */
	assert_false(cfg->hosts[1].learned);
	assert_string_equal(aif_mac_fmt(&cfg->hosts[1].mac, buf, sizeof(buf)),
			    "02:0a:00:00:01:02");
	/* leaf1-0: given, at the address given */
	assert_false(cfg->hosts[2].learned);
	assert_string_equal(aif_mac_fmt(&cfg->hosts[2].mac, buf, sizeof(buf)),
			    "02:42:ac:11:00:09");
	assert_string_equal(aif_ip_fmt(&cfg->hosts[2].ip, buf, sizeof(buf)), "10.1.0.9");
	assert_string_equal(leaf1->ports[0].device, "net_af_packet2");
	/* leaf1-1: no device, a virtual host: ours */
	assert_false(cfg->hosts[3].learned);
	assert_string_equal(aif_mac_fmt(&cfg->hosts[3].mac, buf, sizeof(buf)),
			    "02:0a:00:01:01:02");
	aif_config_free(cfg);
}

/* A link down in the generator: no path through it, on any switch; the
 * link comes out with "up": false; the generator's source is kept. */
static void
test_leaf_spine_down_link(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2,"
		" \"down_links\": [\"leaf0:u0-spine0:d0\"]}}}");

	(void)state;
	assert_true(cfg->links[0].down);
	assert_false(cfg->links[1].down);
	assert_non_null(cfg->topology);
	assert_non_null(strstr(cfg->topology, "down_links"));
	/* leaf0 reaches the others through spine1 only */
	const struct aif_group_params *g = group_of(&cfg->switches[0], "10.3.0.0/24");
	assert_string_equal(g->name, "via-spine1");
	/* leaf3 reaches leaf0 through spine1 only, the others through both */
	g = group_of(&cfg->switches[3], "10.0.0.0/24");
	assert_string_equal(g->name, "via-spine1");
	g = group_of(&cfg->switches[3], "10.1.0.0/24");
	assert_string_equal(g->name, "via-spine0-spine1");
	/* spine0 reaches leaf0 the long way only (down to another leaf, up to
	 * spine1), never through its down port d0 */
	const struct aif_switch_params *spine0 = &cfg->switches[4];
	g = group_of(spine0, "10.0.0.0/24");
	assert_non_null(g);
	assert_int_equal(g->n_members, 3);
	for (uint32_t m = 0; m < g->n_members; m++)
		assert_string_not_equal(spine0->ports[g->members[m].port].name, "d0");
	assert_groups_distinct(cfg);
	assert_routes_exact(cfg);
	aif_config_free(cfg);
}

/* A link down in a fat-tree splits what would merge: with pod2-edge0's
 * uplink to pod2-agg0 down, pod0-edge0 reaches pod2-edge0's hosts
 * (10.2.0.0/23) through pod0-agg1 only and pod2-edge1's (10.2.2.0/23)
 * through both aggregations, so no 10.2.0.0/22 there. */
static void
test_fat_tree_down_links(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"fat_tree\": {\"k\": 4, \"down_links\": [\"pod2-edge0:u0\"]}}}");
	char buf[64];

	(void)state;
	const struct aif_switch_params *e00 = &cfg->switches[aif_config_switch_find(cfg,
										    "pod0-edge0")];
	bool split = false;
	for (uint32_t r = 0; r < e00->n_routes; r++) {
		aif_prefix_fmt(&e00->routes[r].prefix, buf, sizeof(buf));
		assert_string_not_equal(buf, "10.2.0.0/22");
		split = split || strcmp(buf, "10.2.0.0/23") == 0;
	}
	assert_true(split);
	assert_string_equal(group_of(e00, "10.2.0.0/24")->name, "via-pod0-agg1");
	assert_string_equal(group_of(e00, "10.2.2.0/24")->name, "via-pod0-agg0-pod0-agg1");
	/* without it, one /22 */
	struct aif_config *up = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 4}}}");
	const struct aif_switch_params *u00 = &up->switches[aif_config_switch_find(up,
										   "pod0-edge0")];
	split = false;
	for (uint32_t r = 0; r < u00->n_routes; r++)
		split = split || strcmp(aif_prefix_fmt(&u00->routes[r].prefix, buf, sizeof(buf)),
					"10.2.0.0/22") == 0;
	assert_true(split);
	aif_config_free(up);
	assert_groups_distinct(cfg);
	assert_routes_exact(cfg);
	aif_config_free(cfg);
}

static void
test_leaf_spine_errors(void **state)
{
	static const struct { const char *text, *err; } cases[] = {
		{ "{\"topology\": {\"leaf_spine\": {\"spines\": 64}}}",
		  "$.topology.leaf_spine.spines: must be an integer 1..63" },
		{ "{\"topology\": {\"leaf_spine\": {\"leaves\": 65}}}",
		  "$.topology.leaf_spine.leaves: must be an integer 1..64" },
		{ "{\"topology\": {\"leaf_spine\": {\"spines\": 60, \"hosts_per_leaf\": 5}}}",
		  "$.topology.leaf_spine.hosts_per_leaf: must be an integer 1..4" },
		{ "{\"topology\": {\"leaf_spine\": {\"racks\": 2}}}",
		  "$.topology.leaf_spine.racks: unknown field (leaves, spines, hosts_per_leaf, "
		  "planes, host_gbps, uplink_gbps, delay_ns, policy, host_devices, down_links, "
		  "emulate, link_devices, bfd)" },
		{ "{\"topology\": {\"leaf_spine\": {\"down_links\": [\"leaf0:u7\"]}}}",
		  "$.topology.leaf_spine.down_links[0]: no link 'leaf0:u7' (\"leaf0:u0-spine0:d0\", "
		  "or an end, \"leaf0:u0\")" },
		{ "{\"topology\": {\"leaf_spine\": {\"down_links\": \"leaf0:u0\"}}}",
		  "$.topology.leaf_spine.down_links: must be an array of link names" },
		{ "{\"topology\": {\"torus\": {}}}",
		  "$.topology.torus: unknown generator (leaf_spine, fat_tree)" },
		{ "{\"topology\": {\"fat_tree\": {\"k\": 5}}}", "$.topology.fat_tree.k: must be even" },
		{ "{\"topology\": {\"fat_tree\": {\"link_gbps\": 1e-12}}}",
		  "$.topology.fat_tree.link_gbps: must be a number 0.001..1600 (1 Mb/s to 1.6 Tb/s)" },
		{ "{\"topology\": {\"fat_tree\": {\"k\": 58}}}",
		  "$.topology.fat_tree.k: k=58 makes 4205 switches, more than a fabric may have "
		  "(4096): k is at most 56" },
		{ "{\"topology\": {\"fat_tree\": {\"k\": 32, \"planes\": 4}}}",
		  "$.topology.fat_tree.planes: 5120 switches: planes x 5k^2/4 must be at most 4096 "
		  "(switches in a fabric)" },
		{ "{\"topology\": {\"fat_tree\": {\"k\": 42, \"planes\": 2}}}",
		  "$.topology.fat_tree.planes: 4410 switches: planes x 5k^2/4 must be at most 4096 "
		  "(switches in a fabric)" },
		{ "{\"topology\": {\"fat_tree\": {\"planes\": 9}}}",
		  "$.topology.fat_tree.planes: must be an integer 1..8" },
		{ "{\"topology\": {\"fat_tree\": {\"k\": 66}}}",
		  "$.topology.fat_tree.k: must be an integer 2..64" },
		{ "{\"topology\": {\"leaf_spine\": {\"planes\": 9}}}",
		  "$.topology.leaf_spine.planes: must be an integer 1..8" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [\"a\", \"b\", \"c\"]}}}",
		  "$.topology.leaf_spine.host_devices: more devices than host ports" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [7]}}}",
		  "$.topology.leaf_spine.host_devices[0]: must be a device name, or an object "
		  "{\"device\", \"mac\", \"ip\"}" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [{\"mac\": \"02:00:00:00:00:01\"}]}}}",
		  "$.topology.leaf_spine.host_devices[0].device: required: the host port's device name" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [\"d0\", {\"device\": \"d1\","
		  " \"mac\": \"01:00:5e:00:00:01\"}]}}}",
		  "$.topology.leaf_spine.host_devices[1].mac: must be a unicast, non-zero MAC "
		  "(\"02:00:00:00:00:02\")" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [{\"device\": \"d0\","
		  " \"ip\": \"10.0.1.2\"}]}}}",
		  "$.topology.leaf_spine.host_devices[0].ip: must be an IPv4 address in 10.0.0.0/24 "
		  "other than the network, the switch's .1 and the broadcast" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [{\"device\": \"d0\","
		  " \"ip\": \"10.0.0.1\"}]}}}",
		  "$.topology.leaf_spine.host_devices[0].ip: must be an IPv4 address in 10.0.0.0/24 "
		  "other than the network, the switch's .1 and the broadcast" },
		{ "{\"topology\": {\"leaf_spine\": {\"host_devices\": [{\"device\": \"d0\","
		  " \"port\": 1}]}}}",
		  "$.topology.leaf_spine.host_devices[0].port: unknown field (device, mac, ip)" },
		{ "{\"topology\": {\"leaf_spine\": {}}, \"switches\": []}",
		  "$.topology: generates switches, links and hosts: the file cannot give them too" },
		{ "{\"topology\": {\"leaf_spine\": {\"policy\": \"gold\"}}}",
		  "$.switches[0].policy: unknown policy 'gold'" },
	};
	char err[AIF_ERR_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct aif_config *cfg = NULL;
		err[0] = '\0';
		assert_int_equal(aif_config_parse(cases[i].text, strlen(cases[i].text), &cfg, err,
						  sizeof(err)), -1);
		assert_null(cfg);
		if (strcmp(err, cases[i].err) != 0)
			fail_msg("case %zu: got\n  %s\nwant\n  %s", i, err, cases[i].err);
	}
}

/* A k=4 fat-tree: 20 switches, 32 links, 16 hosts; an edge reaches other
 * edges through both aggregations of its pod, an aggregation reaches other
 * pods through its two cores, a core reaches a pod through its one
 * aggregation there. */
static void
test_fat_tree_k4(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 4}}}");
	int e00, a00, c1;

	(void)state;
	assert_int_equal(cfg->n_switches, 20);
	assert_int_equal(cfg->n_links, 32);
	assert_int_equal(cfg->n_hosts, 16);
	e00 = aif_config_switch_find(cfg, "pod0-edge0");
	a00 = aif_config_switch_find(cfg, "pod0-agg0");
	c1 = aif_config_switch_find(cfg, "core1");
	assert_true(e00 >= 0 && a00 >= 0 && c1 >= 0);
	const struct aif_group_params *g = group_of(&cfg->switches[e00], "10.1.3.0/24");
	assert_non_null(g);
	assert_string_equal(g->name, "via-pod0-agg0-pod0-agg1");
	g = group_of(&cfg->switches[e00], "10.0.2.0/24"); /* pod0-edge1's first host */
	assert_non_null(g);
	assert_int_equal(g->n_members, 2);
	g = group_of(&cfg->switches[a00], "10.3.0.0/24");
	assert_non_null(g);
	assert_string_equal(g->name, "via-core0-core1");
	g = group_of(&cfg->switches[a00], "10.0.3.0/24"); /* down to pod0-edge1 */
	assert_int_equal(g->n_members, 1);
	assert_string_equal(cfg->switches[a00].ports[g->members[0].port].name, "d1");
	g = group_of(&cfg->switches[c1], "10.2.1.0/24"); /* core1: pod2's agg0 */
	assert_int_equal(g->n_members, 1);
	assert_string_equal(cfg->switches[c1].ports[g->members[0].port].name, "d2");
	/* a core: a pod's four /24s (10.2.0.0 .. 10.2.3.0) one /22 */
	assert_int_equal(cfg->switches[c1].n_routes, 4);
	char buf[64];
	assert_string_equal(aif_prefix_fmt(&cfg->switches[c1].routes[2].prefix, buf, sizeof(buf)),
			    "10.2.0.0/22");
	/* an edge: one group (both aggs, to every other subnet); an agg: the
	 * cores, and each edge below; a core: each pod */
	assert_int_equal(cfg->switches[e00].n_groups, 1);
	assert_int_equal(cfg->switches[a00].n_groups, 3);
	assert_int_equal(cfg->switches[c1].n_groups, 4);
	assert_groups_distinct(cfg);
	assert_routes_exact(cfg);
	aif_config_free(cfg);
}

/* A k=16 fat-tree: 320 switches of 16 ports, 2,048 links, 1,024 hosts;
 * an edge switch routes every other edge's hosts over its 8 uplinks. */
static void
test_fat_tree_k16(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 16}}}");

	(void)state;
	assert_int_equal(cfg->n_switches, 320);
	assert_int_equal(cfg->n_links, 2048);
	assert_int_equal(cfg->n_hosts, 1024);
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		assert_int_equal(cfg->switches[s].n_ports, 16);
	int e = aif_config_switch_find(cfg, "pod15-edge7");
	assert_true(e >= 0);
	const struct aif_group_params *g = group_of(&cfg->switches[e], "10.0.0.0/24");
	assert_non_null(g);
	assert_int_equal(g->n_members, 8);
	/* routes by pod and edge, not by host: an edge, the 7 other edges of
	 * its pod in 3 prefixes (10.15.0.0/21 .. 10.15.48.0/21 but its own
	 * 10.15.56.0/21) and each other pod's /18; an aggregation, its 8 edges
	 * and 15 pods; a core, the 16 pods */
	assert_int_equal(cfg->switches[e].n_routes, 18);
	assert_int_equal(cfg->switches[aif_config_switch_find(cfg, "pod3-agg2")].n_routes, 23);
	assert_int_equal(cfg->switches[aif_config_switch_find(cfg, "core7")].n_routes, 16);
	assert_groups_distinct(cfg);
	aif_config_free(cfg);
}

/* The largest fat-tree, k=28: 980 switches, 10,976 links, 5,488 hosts;
 * names of two-digit pods and ports make link names of 32 characters
 * (pod27-edge13:u13-pod27-agg13:d13), more than one config name holds. */
static void
test_fat_tree_k28(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 28}}}");

	(void)state;
	assert_int_equal(cfg->n_switches, 980);
	assert_true(cfg->n_switches <= AIF_MAX_SWITCHES);
	assert_int_equal(cfg->n_links, 10976);
	assert_int_equal(cfg->n_hosts, 5488);
	int e = aif_config_switch_find(cfg, "pod27-edge13");
	assert_true(e >= 0);
	assert_string_equal(cfg->switches[e].ports[27].name, "u13");
	const struct aif_group_params *g = group_of(&cfg->switches[e], "10.0.0.0/24");
	assert_non_null(g);
	assert_int_equal(g->n_members, 14);
	/* a pod's 196 /24s (10.p.0.0 .. 10.p.195.0) in 3 prefixes: /17, /18, /22 */
	const struct aif_switch_params *core = &cfg->switches[aif_config_switch_find(cfg, "core7")];
	assert_int_equal(core->n_routes, 84);
	char buf[64];
	assert_string_equal(aif_prefix_fmt(&core->routes[0].prefix, buf, sizeof(buf)), "10.0.0.0/17");
	assert_string_equal(aif_prefix_fmt(&core->routes[1].prefix, buf, sizeof(buf)),
			    "10.0.128.0/18");
	assert_string_equal(aif_prefix_fmt(&core->routes[2].prefix, buf, sizeof(buf)),
			    "10.0.192.0/22");
	aif_config_free(cfg);
}

/* Past k=32 a pod's hosts no longer fit an octet: k=34, 1,445 switches
 * (more than DPDK's memzones once allowed), 9,826 hosts, 289 a pod, host i
 * of pod p at 10.(4p + i / 256).(i % 256).2; a core reaches each pod in
 * three prefixes, none holding another pod's or no host's address. */
static void
test_fat_tree_k34(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 34}}}");
	char buf[64];

	(void)state;
	assert_int_equal(cfg->n_switches, 1445);
	assert_int_equal(cfg->n_links, 19652);
	assert_int_equal(cfg->n_hosts, 9826);
	int e = aif_config_switch_find(cfg, "pod1-edge16");
	assert_true(e >= 0);
	const struct aif_port_params *h16 = &cfg->switches[e].ports[16];
	assert_string_equal(h16->name, "h16");
	assert_int_equal(h16->n_addrs, 1);
	assert_string_equal(aif_prefix_fmt(&h16->addrs[0], buf, sizeof(buf)), "10.5.32.1/24");
	const struct aif_switch_params *core = &cfg->switches[aif_config_switch_find(cfg, "core7")];
	assert_int_equal(core->n_routes, 3 * 34);
	assert_string_equal(aif_prefix_fmt(&core->routes[3].prefix, buf, sizeof(buf)), "10.4.0.0/16");
	assert_string_equal(aif_prefix_fmt(&core->routes[4].prefix, buf, sizeof(buf)), "10.5.0.0/19");
	assert_string_equal(aif_prefix_fmt(&core->routes[5].prefix, buf, sizeof(buf)),
			    "10.5.32.0/24");
	aif_config_free(cfg);
}

/* Two planes of a k=4 fat-tree: disjoint copies, a port per plane; plane
 * 1's pods are pods 4..7 in the addresses; no route leaves its plane. */
static void
test_fat_tree_planes(void **state)
{
	struct aif_config *cfg =
		parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 4, \"planes\": 2}}}");
	char buf[64];

	(void)state;
	assert_int_equal(cfg->n_switches, 40);
	assert_int_equal(cfg->n_links, 64);
	assert_int_equal(cfg->n_hosts, 32);
	assert_string_equal(cfg->switches[0].name, "p0-pod0-edge0");
	assert_string_equal(cfg->switches[20].name, "p1-pod0-edge0");
	assert_string_equal(cfg->switches[39].name, "p1-core3");
	assert_string_equal(cfg->hosts[31].name, "p1-pod3-edge1-1");
	assert_string_equal(aif_ip_fmt(&cfg->hosts[31].ip, buf, sizeof(buf)), "10.7.3.2");
	assert_string_equal(aif_ip_fmt(&cfg->hosts[0].ip, buf, sizeof(buf)), "10.0.0.2");
	/* a core reaches its own plane's four pods only */
	const struct aif_switch_params *core = &cfg->switches[aif_config_switch_find(cfg, "p1-core3")];
	assert_int_equal(core->n_routes, 4);
	assert_null(group_of(core, "10.0.0.0/24"));
	assert_non_null(group_of(core, "10.4.0.0/24"));
	assert_routes_exact(cfg);
	aif_config_free(cfg);
	/* one plane: the names and addresses of no planes */
	cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 4, \"planes\": 1}}}");
	assert_string_equal(cfg->switches[0].name, "pod0-edge0");
	aif_config_free(cfg);
}

/* Two planes of a 2 x 1 leaf-spine: disjoint switches, a port per plane. */
static void
test_leaf_spine_planes(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 1, \"planes\": 2}}}");
	char buf[64];

	(void)state;
	assert_int_equal(cfg->n_switches, 6);
	assert_int_equal(cfg->n_links, 4);
	assert_int_equal(cfg->n_hosts, 4);
	assert_string_equal(cfg->switches[3].name, "p1-leaf0");
	assert_string_equal(cfg->hosts[3].name, "p1-leaf1-0");
	assert_string_equal(aif_ip_fmt(&cfg->hosts[3].ip, buf, sizeof(buf)), "10.3.0.2");
	/* plane 0's leaf routes plane 0's other leaf only */
	assert_int_equal(cfg->switches[0].n_routes, 1);
	assert_non_null(group_of(&cfg->switches[0], "10.1.0.0/24"));
	aif_config_free(cfg);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Host port i is name, at ip. */
static void
assert_host(const struct aif_config *cfg, uint32_t i, const char *name, const char *ip)
{
	char buf[64];

	assert_string_equal(cfg->hosts[i].name, name);
	assert_string_equal(aif_ip_fmt(&cfg->hosts[i].ip, buf, sizeof(buf)), ip);
}

/* The port of switch sw_name that the longest route holding prefix's
 * address leaves by, its only way (NULL: no route). */
static const char *
way_out(const struct aif_config *cfg, const char *sw_name, const char *prefix)
{
	const struct aif_switch_params *sw = &cfg->switches[aif_config_switch_find(cfg, sw_name)];
	const struct aif_group_params *g = group_of(sw, prefix);

	if (g == NULL)
		return NULL;
	assert_int_equal(g->n_members, 1);
	return sw->ports[g->members[0].port].name;
}

/* Every host port's address its own. */
static void
assert_host_ips_distinct(const struct aif_config *cfg)
{
	uint32_t *ip = malloc(cfg->n_hosts * sizeof(*ip));
	assert_non_null(ip);
	for (uint32_t h = 0; h < cfg->n_hosts; h++)
		memcpy(&ip[h], cfg->hosts[h].ip.b, 4);
	qsort(ip, cfg->n_hosts, sizeof(*ip), cmp_u32);
	for (uint32_t h = 1; h < cfg->n_hosts; h++)
		assert_true(ip[h] != ip[h - 1]);
	free(ip);
}

/*
 * Leaf-spines past 256 leaves in all (8 planes of 64): host j of leaf g
 * at 10.<g / 4>.<(g % 4) x 64 + j>.2; up to 256 leaves the addresses of
 * before, 10.<g>.<j>.2.  Routes as the rule makes them.
 */
static void
test_leaf_spine_planes_wide(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 64, \"spines\": 1, \"planes\": 8,"
		" \"hosts_per_leaf\": 2}}}");

	(void)state;
	assert_int_equal(cfg->n_switches, 520);
	assert_int_equal(cfg->n_hosts, 1024);
	/* host (g = plane x 64 + leaf) x 2 + j */
	assert_host(cfg, 0, "p0-leaf0-0", "10.0.0.2");
	assert_host(cfg, 601, "p4-leaf44-1", "10.75.1.2");
	assert_host(cfg, 1023, "p7-leaf63-1", "10.127.193.2");
	assert_host_ips_distinct(cfg);
	/* plane 4's spine: its own plane's 64 leaves, each one /23, through
	 * the one leaf */
	assert_string_equal(way_out(cfg, "p4-spine0", "10.75.1.0/24"), "d44");
	/* plane 4's leaf 0 (g = 256) */
	assert_string_equal(way_out(cfg, "p4-spine0", "10.64.0.0/24"), "d0");
	assert_null(way_out(cfg, "p4-spine0", "10.63.193.0/24")); /* plane 3's last */
	assert_routes_exact(cfg);
	aif_config_free(cfg);
	/* 256 leaves in all: the octet's addresses */
	cfg = parse_ok("{\"topology\": {\"leaf_spine\": {\"leaves\": 64, \"spines\": 1,"
		       " \"planes\": 4}}}");
	assert_host(cfg, 255, "p3-leaf63-0", "10.255.0.2");
	aif_config_free(cfg);
}

/*
 * Two planes of k = 34 .. 40 (a pod's hosts past an octet, 68 to 80 pods):
 * 9 bits for a pod's host, 10.<2p + i / 256>.<i % 256>.2 (10 would need
 * more /24s than 10/8 has); one plane of k = 34 keeps its 10 bits.
 */
static void
test_fat_tree_planes_wide(void **state)
{
	struct aif_config *cfg =
		parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 36, \"planes\": 2}}}");

	(void)state;
	assert_int_equal(cfg->n_switches, 2 * 1620);
	assert_int_equal(cfg->n_hosts, 2 * 11664);
	/* plane 1's pod 35 (pod 71), edge 17's host 17: i = 17 x 18 + 17 = 323 */
	assert_host(cfg, 23327, "p1-pod35-edge17-17", "10.143.67.2");
	assert_host_ips_distinct(cfg);
	assert_string_equal(way_out(cfg, "p1-core0", "10.143.67.0/24"), "d35");
	assert_null(way_out(cfg, "p1-core0", "10.71.67.0/24")); /* plane 0's */
	aif_config_free(cfg);
	cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 34}}}");
	/* pod 33, edge 16's host 16: i = 16 x 17 + 16 = 288: 10.(4 x 33 + 1).32 */
	assert_host(cfg, 9825, "pod33-edge16-16", "10.133.32.2");
	aif_config_free(cfg);
}

/*
 * A 2 x 1 leaf-spine split over two daemons: one runs leaf0, the other
 * leaf1 and spine0.  Each has only its switches, the links between two of
 * them and their hosts; the cut link's end is a device port; routes, MACs
 * and seeds are the whole fabric's, so the two halves agree on the wire.
 */
#define SPLIT_LS "{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 1," \
	" \"host_devices\": [\"net_pcap0\", \"net_pcap1\"], "

static void
test_leaf_spine_split(void **state)
{
	struct aif_config *a = parse_ok(SPLIT_LS "\"emulate\": [\"leaf0\"], \"delay_ns\": 3000,"
		" \"link_devices\": {\"leaf0:u0\": \"net_af_packet0\"}}}}");
	struct aif_config *b = parse_ok(SPLIT_LS "\"emulate\": [\"spine0\", \"leaf1\"],"
		" \"link_devices\": {\"spine0:d0\": \"net_af_packet1\"}}}}");
	struct aif_config *whole = parse_ok(SPLIT_LS "\"delay_ns\": 1000}}}");
	struct aif_config *bfd = parse_ok(SPLIT_LS "\"emulate\": [\"spine0\", \"leaf1\"],"
		" \"link_devices\": {\"spine0:d0\": \"net_af_packet1\"},"
		" \"bfd\": {\"interval_ms\": 20}}}}");
	char buf[64];

	(void)state;
	assert_true(a->topology_split);
	assert_false(whole->topology_split);
	/* leaf0 alone: its host, its uplink on a device, no emulated link */
	assert_int_equal(a->n_switches, 1);
	assert_int_equal(a->n_links, 0);
	assert_int_equal(a->n_hosts, 1);
	const struct aif_switch_params *leaf0 = &a->switches[0];
	assert_string_equal(leaf0->name, "leaf0");
	assert_int_equal(leaf0->n_ports, 2);
	assert_string_equal(leaf0->ports[0].device, "net_pcap0");
	assert_string_equal(leaf0->ports[1].name, "u0");
	assert_string_equal(leaf0->ports[1].device, "net_af_packet0");
	assert_int_equal(leaf0->ports[1].speed_mbps, 100000);
	/* the cut link's cable is the fabric's link, for its PFC headroom;
	 * a host's device port keeps the policy's */
	assert_int_equal(leaf0->ports[1].cable_delay_ns, 3000);
	assert_int_equal(leaf0->ports[0].cable_delay_ns, 0);
	assert_string_equal(a->hosts[0].name, "leaf0-0");
	/* leaf1's hosts through the wire, to spine0's d0 (its MAC, its /31) */
	const struct aif_group_params *g = group_of(leaf0, "10.1.0.0/24");
	assert_non_null(g);
	assert_int_equal(g->n_members, 1);
	assert_int_equal(g->members[0].port, 1);
	assert_string_equal(aif_ip_fmt(&g->members[0].ip, buf, sizeof(buf)), "172.16.0.1");
	const struct aif_switch_params *w_leaf0 = &whole->switches[0];
	assert_int_equal(leaf0->seed, w_leaf0->seed);
	assert_int_equal(leaf0->n_neighbors, w_leaf0->n_neighbors);
	for (uint32_t i = 0; i < leaf0->n_neighbors; i++) {
		assert_memory_equal(&leaf0->neighbors[i].ip, &w_leaf0->neighbors[i].ip,
				    sizeof(leaf0->neighbors[i].ip));
		assert_memory_equal(&leaf0->neighbors[i].mac, &w_leaf0->neighbors[i].mac, 6);
	}
	assert_string_equal(aif_mac_fmt(&leaf0->neighbors[0].mac, buf, sizeof(buf)),
			    "02:1f:00:02:00:00"); /* spine0 (switch 2) port d0 */
	/* leaf1 and spine0, in the fabric's order: one link, one host */
	assert_int_equal(b->n_switches, 2);
	assert_string_equal(b->switches[0].name, "leaf1");
	assert_string_equal(b->switches[1].name, "spine0");
	assert_int_equal(b->n_links, 1);
	assert_int_equal(b->n_hosts, 1);
	assert_string_equal(b->hosts[0].name, "leaf1-0");
	assert_string_equal(b->switches[0].ports[0].device, "net_pcap1");
	assert_string_equal(b->switches[1].ports[0].device, "net_af_packet1");
	assert_string_equal(b->switches[1].ports[1].device, ""); /* the emulated link */
	assert_int_equal(b->switches[1].ports[0].cable_delay_ns, 1000);
	assert_int_equal(b->switches[1].ports[1].cable_delay_ns, 0); /* the link's own */
	assert_int_equal(b->switches[0].seed, whole->switches[1].seed);
	assert_int_equal(b->switches[1].seed, whole->switches[2].seed);
	assert_memory_equal(&b->switches[1].ports[0].mac, &whole->switches[2].ports[0].mac, 6);
	g = group_of(&b->switches[1], "10.0.0.0/24");
	assert_non_null(g);
	assert_int_equal(g->members[0].port, 0); /* d0: the wire to leaf0 */
	assert_string_equal(aif_ip_fmt(&g->members[0].ip, buf, sizeof(buf)), "172.16.0.0");
	/* "bfd": a session on the cut link's end alone, to the far end's
	 * address (the neighbour the generator writes), from its own */
	assert_int_equal(a->switches[0].ports[1].bfd_interval_us, 0);
	const struct aif_switch_params *sp0 = &bfd->switches[1];
	assert_int_equal(sp0->ports[0].bfd_interval_us, 20000);
	assert_int_equal(sp0->ports[0].bfd_mult, 3);
	assert_int_equal(sp0->ports[1].bfd_interval_us, 0); /* the emulated link */
	assert_int_equal(bfd->switches[0].ports[0].bfd_interval_us, 0); /* a host */
	const struct aif_neighbor_params *peer = &sp0->neighbors[sp0->ports[0].bfd_neighbor];
	assert_int_equal(peer->port, 0);
	assert_string_equal(aif_ip_fmt(&peer->ip, buf, sizeof(buf)), "172.16.0.0");
	assert_string_equal(aif_ip_fmt(&sp0->ports[0].addrs[sp0->ports[0].bfd_addr].addr, buf,
				       sizeof(buf)), "172.16.0.1");
	aif_config_free(a);
	aif_config_free(b);
	aif_config_free(whole);
	aif_config_free(bfd);
}

/* What a split refuses, with the path: a cut link without a device, a
 * switch the fabric does not have, devices where no link is cut. */
static void
test_leaf_spine_split_errors(void **state)
{
	static const struct { const char *text, *err; } cases[] = {
		{ SPLIT_LS "\"emulate\": [\"leaf0\"]}}}",
		  "$.topology.leaf_spine.link_devices: no device for leaf0:u0, this daemon's end "
		  "of the link to spine0, which runs elsewhere (\"leaf0:u0\": \"net_af_packet0\")" },
		{ SPLIT_LS "\"emulate\": [\"leaf1\", \"spine0\"], \"link_devices\": {}}}}",
		  "$.topology.leaf_spine.link_devices: no device for spine0:d0, this daemon's end "
		  "of the link to leaf0, which runs elsewhere (\"spine0:d0\": \"net_af_packet0\")" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\", \"leaf9\"]}}}",
		  "$.topology.leaf_spine.emulate[1]: no switch 'leaf9' in this fabric (leaf0 .. "
		  "spine0)" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\", \"leaf0\"]}}}",
		  "$.topology.leaf_spine.emulate[1]: names a switch twice" },
		{ SPLIT_LS "\"emulate\": []}}}",
		  "$.topology.leaf_spine.emulate: must be an array of the switches this daemon "
		  "runs (\"leaf0\", ...), at least one" },
		{ SPLIT_LS "\"emulate\": [3]}}}",
		  "$.topology.leaf_spine.emulate[0]: must be a switch name (\"leaf0\")" },
		{ SPLIT_LS "\"link_devices\": {\"leaf0:u0\": \"net_af_packet0\"}}}}",
		  "$.topology.leaf_spine.link_devices: only with \"emulate\": links are cut where "
		  "the fabric is split over daemons" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\"], \"link_devices\": {\"leaf0:u0\": "
		  "\"d0\", \"spine0:d1\": \"d1\"}}}}",
		  "$.topology.leaf_spine.link_devices.spine0:d1: spine0 runs elsewhere (not in "
		  "emulate): only this daemon's end of a cut link takes a device" },
		{ SPLIT_LS "\"emulate\": [\"leaf1\", \"spine0\"], \"link_devices\": "
		  "{\"spine0:d0\": \"d0\", \"leaf1:u0\": \"d1\"}}}}",
		  "$.topology.leaf_spine.link_devices.leaf1:u0: both ends of this link run here "
		  "(spine0 too): it is emulated, not cut, and takes no device" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\"], \"link_devices\": {\"leaf0:h0\": \"d0\"}}}}",
		  "$.topology.leaf_spine.link_devices.leaf0:h0: no link end of that name "
		  "(\"leaf0:u1\")" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\"], \"link_devices\": {\"leaf0:u0\": 1}}}}",
		  "$.topology.leaf_spine.link_devices.leaf0:u0: must be a device name "
		  "(\"net_af_packet0\")" },
		/* a host's device and a link's: one device, one port */
		{ SPLIT_LS "\"emulate\": [\"leaf0\"], \"link_devices\": "
		  "{\"leaf0:u0\": \"net_pcap0\"}}}}",
		  "$.switches[0].ports[1].device: device 'net_pcap0' is already used by leaf0:h0" },
		{ SPLIT_LS "\"bfd\": {}}}}",
		  "$.topology.leaf_spine.bfd: only with \"emulate\": BFD runs on the links cut "
		  "between daemons" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\"], \"link_devices\": {\"leaf0:u0\": \"d0\"}, "
		  "\"bfd\": {\"interval_ms\": 5}}}}",
		  "$.topology.leaf_spine.bfd.interval_ms: must be an integer 10..10000" },
		{ SPLIT_LS "\"emulate\": [\"leaf0\"], \"link_devices\": {\"leaf0:u0\": \"d0\"}, "
		  "\"bfd\": {\"every_ms\": 5}}}}",
		  "$.topology.leaf_spine.bfd.every_ms: unknown field (interval_ms, multiplier)" },
		{ "{\"topology\": {\"fat_tree\": {\"k\": 4, \"emulate\": [\"core0\"]}}}",
		  "$.topology.fat_tree.link_devices: no device for core0:d0, this daemon's end of "
		  "the link to pod0-agg0, which runs elsewhere (\"core0:d0\": \"net_af_packet0\")" },
	};
	char err[AIF_ERR_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct aif_config *cfg = NULL;
		err[0] = '\0';
		assert_int_equal(aif_config_parse(cases[i].text, strlen(cases[i].text), &cfg, err,
						  sizeof(err)), -1);
		assert_null(cfg);
		if (strcmp(err, cases[i].err) != 0)
			fail_msg("case %zu: got\n  %s\nwant\n  %s", i, err, cases[i].err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine_4x2),
		cmocka_unit_test(test_leaf_spine_errors),
		cmocka_unit_test(test_leaf_spine_split),
		cmocka_unit_test(test_leaf_spine_split_errors),
		cmocka_unit_test(test_host_macs),
		cmocka_unit_test(test_leaf_spine_down_link),
		cmocka_unit_test(test_fat_tree_down_links),
		cmocka_unit_test(test_fat_tree_k4),
		cmocka_unit_test(test_fat_tree_k16),
		cmocka_unit_test(test_fat_tree_k28),
		cmocka_unit_test(test_fat_tree_k34),
		cmocka_unit_test(test_leaf_spine_planes),
		cmocka_unit_test(test_leaf_spine_planes_wide),
		cmocka_unit_test(test_fat_tree_planes_wide),
		cmocka_unit_test(test_fat_tree_planes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
