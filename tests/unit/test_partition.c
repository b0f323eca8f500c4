/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fabric split over runners (control/partition.c): a leaf-spine by leaf
 * with the spines spread, a fat-tree by pod with the cores spread, switches
 * tied together staying together, no more runners than the fabric can use,
 * the lookahead the shortest cut link, one runner when a cut link has no
 * delay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../config_ok.h"
#include "config.h"
#include "partition.h"

static int
sw(const struct aif_config *cfg, const char *name)
{
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		if (strcmp(cfg->switches[s].name, name) == 0)
			return s;
	fail_msg("no switch %s", name);
	return -1;
}

static unsigned
run_of(const struct aif_partition *pt, const struct aif_config *cfg, const char *name)
{
	return pt->runner_of[sw(cfg, name)];
}

#define LS_4X4 "{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 4, " \
	"\"hosts_per_leaf\": 4, \"host_gbps\": 100, \"uplink_gbps\": 100, \"delay_ns\": %u}}}"

static struct aif_config *
leaf_spine(unsigned delay_ns)
{
	char text[512];

	snprintf(text, sizeof(text), LS_4X4, delay_ns);
	return parse_ok(text);
}

static void
test_leaf_spine_two(void **state)
{
	struct aif_config *cfg = leaf_spine(1000);
	struct aif_partition pt;

	(void)state;
	assert_int_equal(aif_partition_make(&pt, cfg, 2, NULL, 0), 0);
	assert_int_equal(pt.n_run, 2);
	assert_int_equal(pt.n_groups, 4);
	assert_int_equal(pt.n_top, 4);
	assert_int_equal(aif_partition_max(&pt), 8);
	/* leaves 0 and 2 with spines 0 and 2; the others on runner 1 */
	const char *r0[] = { "leaf0", "leaf2", "spine0", "spine2" };
	const char *r1[] = { "leaf1", "leaf3", "spine1", "spine3" };
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(run_of(&pt, cfg, r0[i]), 0);
		assert_int_equal(run_of(&pt, cfg, r1[i]), 1);
	}
	/* each leaf's uplinks to the other runner's two spines: 8 cut */
	assert_int_equal(pt.n_cut, 8);
	assert_int_equal(pt.lookahead_ns, 1000);
	assert_null(pt.why_one);
	aif_config_free(cfg);
}

static void
test_leaf_spine_three_and_many(void **state)
{
	struct aif_config *cfg = leaf_spine(500);
	struct aif_partition pt;
	unsigned ports[AIF_MAX_RUNNERS] = { 0 }, leaves[AIF_MAX_RUNNERS] = { 0 };

	(void)state;
	assert_int_equal(aif_partition_make(&pt, cfg, 3, NULL, 0), 0);
	assert_int_equal(pt.n_run, 3);
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		ports[pt.runner_of[s]] += cfg->switches[s].n_ports;
		leaves[pt.runner_of[s]] += strncmp(cfg->switches[s].name, "leaf", 4) == 0;
	}
	/* 48 ports in all: 16 each, every runner with a leaf */
	for (unsigned r = 0; r < 3; r++) {
		assert_int_equal(ports[r], 16);
		assert_true(leaves[r] >= 1);
	}
	assert_int_equal(pt.lookahead_ns, 500);
	/* 16 asked: no more than the 4 leaves and 4 spines alone (a leaf is
	 * more than twice a runner's share, but alone already) */
	assert_int_equal(aif_partition_make(&pt, cfg, 16, NULL, 0), 0);
	assert_int_equal(pt.n_run, 8);
	assert_false(pt.by_switch);
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		for (uint16_t x = 0; x < s; x++)
			assert_int_not_equal(pt.runner_of[s], pt.runner_of[x]);
	assert_int_equal(pt.n_cut, 16);
	/* one asked: nothing cut */
	assert_int_equal(aif_partition_make(&pt, cfg, 1, NULL, 0), 0);
	assert_int_equal(pt.n_run, 1);
	assert_int_equal(pt.n_cut, 0);
	assert_int_equal(pt.lookahead_ns, AIF_TIME_NS_NEVER);
	aif_config_free(cfg);
}

static void
test_fat_tree_by_pod(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 4}}}");
	struct aif_partition pt;
	int pod_run[4] = { -1, -1, -1, -1 };
	unsigned cores[AIF_MAX_RUNNERS] = { 0 };

	(void)state;
	assert_int_equal(aif_partition_make(&pt, cfg, 2, NULL, 0), 0);
	assert_int_equal(pt.n_run, 2);
	assert_int_equal(pt.n_groups, 4); /* the pods */
	assert_int_equal(pt.n_top, 4);    /* the cores */
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const char *name = cfg->switches[s].name;
		unsigned pod;
		if (sscanf(name, "pod%u-", &pod) == 1) {
			/* a pod's edge and aggregation switches on one runner */
			if (pod_run[pod] < 0)
				pod_run[pod] = pt.runner_of[s];
			assert_int_equal(pt.runner_of[s], pod_run[pod]);
		} else {
			cores[pt.runner_of[s]]++;
		}
	}
	assert_int_not_equal(pod_run[0], pod_run[1]);
	assert_int_equal(cores[0], 2);
	assert_int_equal(cores[1], 2);
	aif_config_free(cfg);
}

/* A k=8 fat-tree (8 pods of 8 switches, 8 ports each; 16 cores): a pod is
 * a tenth of the ports, within twice a runner's share on 16 runners (pods
 * kept), beyond it on 32 (every switch alone, ties still kept). */
static void
test_fat_tree_by_switch(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 8}}}");
	struct aif_partition pt;
	struct aif_partition_tie tie = { (uint16_t)sw(cfg, "pod0-edge0"),
					  (uint16_t)sw(cfg, "pod1-edge0") };
	unsigned on[AIF_MAX_RUNNERS] = { 0 };

	(void)state;
	assert_int_equal(cfg->n_switches, 80);
	assert_int_equal(aif_partition_make(&pt, cfg, 16, NULL, 0), 0);
	assert_false(pt.by_switch);
	assert_int_equal(pt.n_run, 16);
	assert_int_equal(pt.n_groups, 8);
	assert_int_equal(run_of(&pt, cfg, "pod3-edge0"), run_of(&pt, cfg, "pod3-agg3"));
	assert_int_equal(aif_partition_make(&pt, cfg, 32, &tie, 1), 0);
	assert_true(pt.by_switch);
	assert_int_equal(pt.n_run, 32);
	assert_int_equal(pt.n_groups, 63); /* the 64 edge and aggregation switches, two tied */
	assert_int_equal(pt.n_top, 16);
	assert_int_not_equal(run_of(&pt, cfg, "pod3-edge0"), run_of(&pt, cfg, "pod3-agg3"));
	assert_int_equal(run_of(&pt, cfg, "pod0-edge0"), run_of(&pt, cfg, "pod1-edge0"));
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		on[pt.runner_of[s]]++;
	for (unsigned r = 0; r < pt.n_run; r++) /* 80 switches: 2 or 3 each */
		assert_true(on[r] == 2 || on[r] == 3);
	assert_true(pt.n_cut * 10 > cfg->n_links * 9); /* (neighbours rarely share one) */
	/* 64 asked: one switch a runner but for the tie's and spread cores */
	assert_int_equal(aif_partition_make(&pt, cfg, 64, NULL, 0), 0);
	assert_true(pt.by_switch);
	assert_int_equal(pt.n_run, 64);
	aif_config_free(cfg);
}

static void
test_ties(void **state)
{
	struct aif_config *cfg = leaf_spine(1000);
	struct aif_partition pt;
	/* leaf0 with leaf1 and leaf2 with leaf3 (a host's ports on two
	 * planes' leaves, say) */
	struct aif_partition_tie ties[] = {
		{ (uint16_t)sw(cfg, "leaf0"), (uint16_t)sw(cfg, "leaf1") },
		{ (uint16_t)sw(cfg, "leaf3"), (uint16_t)sw(cfg, "leaf2") },
	};

	(void)state;
	assert_int_equal(aif_partition_make(&pt, cfg, 4, ties, 2), 0);
	assert_int_equal(pt.n_groups, 2);
	assert_int_equal(run_of(&pt, cfg, "leaf0"), run_of(&pt, cfg, "leaf1"));
	assert_int_equal(run_of(&pt, cfg, "leaf2"), run_of(&pt, cfg, "leaf3"));
	assert_int_not_equal(run_of(&pt, cfg, "leaf0"), run_of(&pt, cfg, "leaf2"));
	assert_int_equal(pt.n_run, 4); /* the two groups, two runners of spines */
	aif_config_free(cfg);
}

static void
test_no_delay_one_runner(void **state)
{
	struct aif_config *cfg = leaf_spine(0);
	struct aif_partition pt;

	(void)state;
	assert_int_equal(aif_partition_make(&pt, cfg, 2, NULL, 0), 0);
	assert_int_equal(pt.n_run, 1);
	assert_non_null(pt.why_one);
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		assert_int_equal(pt.runner_of[s], 0);
	aif_config_free(cfg);
	/* one switch: nothing to split */
	cfg = parse_ok("{\"switches\": [{\"name\": \"s\", \"ports\": [{\"name\": \"p0\"}]}]}");
	assert_int_equal(aif_partition_make(&pt, cfg, 4, NULL, 0), 0);
	assert_int_equal(pt.n_run, 1);
	assert_non_null(pt.why_one);
	aif_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine_two),
		cmocka_unit_test(test_leaf_spine_three_and_many),
		cmocka_unit_test(test_fat_tree_by_pod),
		cmocka_unit_test(test_fat_tree_by_switch),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_no_delay_one_runner),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
