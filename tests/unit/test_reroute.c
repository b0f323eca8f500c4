/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * control/reroute.c without EAL: a generated fabric routed again around
 * the links that are down, from the parsed config, gives every switch the
 * groups and routes the generator gives it when told the same links are
 * down ("down_links"): names, members in order, routes in order.  Fabrics:
 * a leaf-spine with an uplink down, a leaf cut off (its subnets left
 * unrouted), two planes, an 8 x 8 (group names cut short and numbered), a
 * k=4 fat-tree with links down on two tiers, a k=8 one with links down on
 * three, two planes of k=4; and the link state and
 * everything else copied as it was.
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

#include "config.h"
#include "../config_ok.h"
#include "reroute.h"

/* topo: the generator's object without its closing brace; down: a JSON
 * list of links or ends. */
static void
check(const char *topo, const char *down)
{
	char a[1024], b[1024], err[256];

	snprintf(a, sizeof(a), "{\"topology\": %s}}}", topo);
	snprintf(b, sizeof(b), "{\"topology\": %s, \"down_links\": %s}}}", topo, down);
	/* the generator's object is inside "topology": {"kind": {...}} */
	struct aif_config *up = parse_ok(a), *want = parse_ok(b);
	bool *d = calloc(want->n_links, sizeof(*d));
	unsigned n_down = 0;
	assert_non_null(d);
	for (uint32_t k = 0; k < want->n_links; k++)
		n_down += d[k] = want->links[k].down;
	assert_true(n_down > 0);
	struct aif_config *got = aif_reroute(up, d, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(got->n_switches, want->n_switches);
	for (uint32_t k = 0; k < want->n_links; k++)
		assert_int_equal(got->links[k].down, want->links[k].down);
	unsigned routes = 0;
	for (uint16_t s = 0; s < want->n_switches; s++) {
		const struct aif_switch_params *g = &got->switches[s], *w = &want->switches[s];
		assert_int_equal(g->n_groups, w->n_groups);
		for (uint32_t i = 0; i < w->n_groups; i++) {
			assert_string_equal(g->groups[i].name, w->groups[i].name);
			assert_int_equal(g->groups[i].n_members, w->groups[i].n_members);
			for (uint16_t m = 0; m < w->groups[i].n_members; m++)
				assert_memory_equal(&g->groups[i].members[m], &w->groups[i].members[m],
						    sizeof(w->groups[i].members[m]));
		}
		assert_int_equal(g->n_routes, w->n_routes);
		for (uint32_t i = 0; i < w->n_routes; i++)
			assert_memory_equal(&g->routes[i], &w->routes[i], sizeof(w->routes[i]));
		routes += w->n_routes;
		/* the rest as it was */
		assert_int_equal(g->n_ports, up->switches[s].n_ports);
		assert_int_equal(g->n_neighbors, up->switches[s].n_neighbors);
		assert_int_equal(g->seed, up->switches[s].seed);
	}
	assert_true(routes > 0);
	assert_int_equal(got->n_hosts, up->n_hosts);
	assert_non_null(got->topology);
	free(d);
	aif_config_free(got);
	aif_config_free(up);
	aif_config_free(want);
}

static void
test_uplink_down(void **state)
{
	(void)state;
	check("{\"leaf_spine\": {\"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 2",
	      "[\"leaf0:u0\"]");
}

static void
test_leaf_cut_off(void **state)
{
	(void)state;
	/* leaf1 has no uplink left: nobody routes to its subnets, it to none */
	check("{\"leaf_spine\": {\"leaves\": 3, \"spines\": 2, \"hosts_per_leaf\": 1",
	      "[\"leaf1:u0\", \"leaf1:u1-spine1:d1\"]");
}

static void
test_two_planes(void **state)
{
	(void)state;
	check("{\"leaf_spine\": {\"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 2, "
	      "\"planes\": 2", "[\"p1-leaf0:u1\"]");
}

static void
test_names_cut_short(void **state)
{
	(void)state;
	/* "via-spine0-...-spine7" is longer than a name: cut, then numbered */
	check("{\"leaf_spine\": {\"leaves\": 8, \"spines\": 8, \"hosts_per_leaf\": 1",
	      "[\"leaf0:u0\", \"leaf3:u5\"]");
}

static void
test_fat_tree(void **state)
{
	(void)state;
	check("{\"fat_tree\": {\"k\": 4", "[\"pod0-edge0:u0\", \"pod1-agg1:u0\"]");
}

static void
test_fat_tree_k8(void **state)
{
	(void)state;
	/* each edge's four /24s one prefix, split again where a link down
	 * sends some of a pod's traffic another way; a plane of two */
	check("{\"fat_tree\": {\"k\": 8", "[\"pod0-edge0:u0\", \"pod2-agg3:u1\", "
	      "\"pod5-edge3:u2-pod5-agg2:d3\"]");
	check("{\"fat_tree\": {\"k\": 4, \"planes\": 2", "[\"p1-pod1-edge0:u1\"]");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uplink_down),
		cmocka_unit_test(test_leaf_cut_off),
		cmocka_unit_test(test_two_planes),
		cmocka_unit_test(test_names_cut_short),
		cmocka_unit_test(test_fat_tree),
		cmocka_unit_test(test_fat_tree_k8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
