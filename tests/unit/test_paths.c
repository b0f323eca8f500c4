/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for control/paths.c: the search against Floyd-Warshall, its
 * tables kept for some switches only, the farthest peer by kinds against
 * every pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../config_ok.h"
#include "config.h"
#include "paths.h"
#include "wire.h"

static const uint32_t data_wire[AIF_WIRE_MODEL_MAX] = { 1086, 1048 };
static const uint32_t ack_wire[AIF_WIRE_MODEL_MAX] = { 84, 60 };

/* The tables of the search (every link the same) equal Floyd-Warshall's. */
static void
same_as_floyd(const char *text)
{
	struct aif_config *cfg = parse_ok(text);
	struct aif_paths a, b;
	size_t nn = (size_t)cfg->n_switches * cfg->n_switches;

	assert_int_equal(aif_paths_build(&a, cfg, data_wire, ack_wire, 1000, false, NULL), 0);
	assert_int_equal(aif_paths_build(&b, cfg, data_wire, ack_wire, 1000, true, NULL), 0);
	assert_int_equal(a.n, cfg->n_switches);
	assert_memory_equal(a.data_ps, b.data_ps, nn * sizeof(*a.data_ps));
	assert_memory_equal(a.ack_ps, b.ack_ps, nn * sizeof(*a.ack_ps));
	assert_memory_equal(a.prop_ns, b.prop_ns, nn * sizeof(*a.prop_ns));
	assert_memory_equal(a.tx_ns, b.tx_ns, nn * sizeof(*a.tx_ns));
	assert_memory_equal(a.rate_bps, b.rate_bps, nn * sizeof(*a.rate_bps));
	assert_memory_equal(a.hops, b.hops, nn * sizeof(*a.hops));
	aif_paths_free(&a);
	aif_paths_free(&b);
	aif_config_free(cfg);
}

static void
test_search_is_floyd(void **state)
{
	(void)state;
	same_as_floyd("{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2}}}");
	same_as_floyd("{\"topology\": {\"leaf_spine\": {\"leaves\": 3, \"spines\": 2, "
		      "\"uplink_gbps\": 400, \"delay_ns\": 700}}}");
	same_as_floyd("{\"topology\": {\"fat_tree\": {\"k\": 4}}}");
	same_as_floyd("{\"topology\": {\"fat_tree\": {\"k\": 8, \"down_links\": "
		      "[\"pod0-edge0:u0\", \"core3:d1\"]}}}");
}

/* Tables of some switches (those with hosts, as the virtual hosts ask):
 * rows for them only, each entry what the whole fabric's table has; with
 * links that differ, Floyd-Warshall's rows for every switch. */
static void
test_ends_only(void **state)
{
	struct aif_config *cfg = parse_ok("{\"topology\": {\"fat_tree\": {\"k\": 8, "
					  "\"down_links\": [\"pod0-edge0:u0\", \"core3:d1\"]}}}");
	struct aif_paths all, some;
	uint32_t n = cfg->n_switches, m = 0;
	bool *ends = calloc(n, sizeof(*ends));

	(void)state;
	assert_non_null(ends);
	for (uint32_t h = 0; h < cfg->n_hosts; h++)
		ends[cfg->hosts[h].sw] = true;
	ends[n - 1] = true; /* and a core */
	for (uint32_t s = 0; s < n; s++)
		m += ends[s];
	assert_int_equal(m, 33);
	assert_int_equal(aif_paths_build(&all, cfg, data_wire, ack_wire, 1000, false, NULL), 0);
	assert_int_equal(aif_paths_build(&some, cfg, data_wire, ack_wire, 1000, false, ends), 0);
	assert_int_equal(some.n, m);
	for (uint32_t a = 0; a < n; a++) {
		if (!ends[a]) {
			assert_int_equal(some.row[a], UINT32_MAX);
			continue;
		}
		for (uint32_t b = 0; b < n; b++) {
			if (!ends[b])
				continue;
			size_t x = aif_paths_at(&some, a, b), y = aif_paths_at(&all, a, b);
			assert_true(some.data_ps[x] == all.data_ps[y]);
			assert_true(some.ack_ps[x] == all.ack_ps[y]);
			assert_true(some.prop_ns[x] == all.prop_ns[y]);
			assert_true(some.tx_ns[x] == all.tx_ns[y]);
			assert_true(some.rate_bps[x] == all.rate_bps[y]);
			assert_int_equal(some.hops[x], all.hops[y]);
		}
	}
	/* pod0-edge0 to pod1-edge0: up, across a core, down; to itself none */
	assert_int_equal(some.hops[aif_paths_at(&some, 0, 8)], 4);
	assert_int_equal(some.hops[aif_paths_at(&some, 0, 0)], 0);
	aif_paths_free(&all);
	aif_paths_free(&some);
	/* links of two rates: Floyd-Warshall, every switch a row */
	cfg->links[0].rate_bps = 40000000000ull;
	assert_int_equal(aif_paths_build(&some, cfg, data_wire, ack_wire, 1000, false, ends), 0);
	assert_int_equal(some.n, n);
	aif_paths_free(&some);
	free(ends);
	aif_config_free(cfg);
}

/* Planes are apart: no path between them (the unreachable entries as
 * Floyd-Warshall leaves them); links down still count. */
static void
test_planes_and_down(void **state)
{
	(void)state;
	same_as_floyd("{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 2, "
		      "\"planes\": 2, \"down_links\": [\"p0-leaf0:u0\"]}}}");
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 1, \"planes\": 2}}}");
	struct aif_paths p;
	assert_int_equal(aif_paths_build(&p, cfg, data_wire, ack_wire, 1000, false, NULL), 0);
	/* p0-leaf0 (0) to p0-leaf1 (1): two links; to p1-leaf0 (3): none */
	assert_int_equal(p.hops[0 * p.n + 1], 2);
	assert_int_equal(p.prop_ns[0 * p.n + 1], 2000);
	assert_true(p.data_ps[0 * p.n + 3] >= UINT64_MAX / 4);
	assert_int_equal(p.hops[0 * p.n + 3], 0);
	assert_true(p.rate_bps[0 * p.n + 3] == UINT64_MAX);
	assert_int_equal(p.data_ps[0], 0);
	aif_paths_free(&p);
	aif_config_free(cfg);
}

/* Links that differ: Floyd-Warshall, fewest delay, not fewest links (a
 * triangle whose direct link is slower than the way round). */
static void
test_links_differ(void **state)
{
	struct aif_config *cfg = parse_ok(
		"{\"switches\": ["
		"{\"name\": \"a\", \"ports\": [{\"name\": \"p0\", \"addresses\": [\"172.16.0.0/31\"]},"
		" {\"name\": \"p1\", \"addresses\": [\"172.16.0.2/31\"]}]},"
		"{\"name\": \"b\", \"ports\": [{\"name\": \"p0\", \"addresses\": [\"172.16.0.1/31\"]},"
		" {\"name\": \"p1\", \"addresses\": [\"172.16.0.4/31\"]}]},"
		"{\"name\": \"c\", \"ports\": [{\"name\": \"p0\", \"addresses\": [\"172.16.0.3/31\"]},"
		" {\"name\": \"p1\", \"addresses\": [\"172.16.0.5/31\"]}]}],"
		" \"links\": [{\"a\": \"a:p0\", \"b\": \"b:p0\", \"delay_ns\": 5000},"
		" {\"a\": \"a:p1\", \"b\": \"c:p0\", \"delay_ns\": 1000},"
		" {\"a\": \"c:p1\", \"b\": \"b:p1\", \"delay_ns\": 1000}]}");
	struct aif_paths p;

	(void)state;
	assert_int_equal(aif_paths_build(&p, cfg, data_wire, ack_wire, 1000, false, NULL), 0);
	assert_int_equal(p.hops[0 * p.n + 1], 2); /* a -> c -> b */
	assert_int_equal(p.prop_ns[0 * p.n + 1], 2000);
	aif_paths_free(&p);
	aif_config_free(cfg);
}

/* A made-up RTT that depends on each end only through its kind. */
static struct aif_peer_kind kinds[64];
static uint32_t sw_of[64], wire_of[64], cable_of[64];

static uint64_t
fake_rtt(uint32_t a, uint32_t b, void *arg)
{
	(void)arg;
	return (uint64_t)((sw_of[a] * 31u + sw_of[b] * 7u) % 13u) * 1000 + wire_of[b] * 3 +
	       cable_of[b] + wire_of[a] * 5 + cable_of[a] * 2;
}

static void
test_farthest(void **state)
{
	uint64_t far[64];
	uint32_t seed = 12345;

	(void)state;
	for (uint32_t n = 0; n <= 40; n += 5) {
		for (uint32_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			sw_of[i] = (seed >> 16) % 5;
			wire_of[i] = (seed >> 8) % 2 ? 100 : 200;
			cable_of[i] = (seed >> 20) % 3 == 0 ? 7 : 0;
			kinds[i] = (struct aif_peer_kind){ .sw = (uint16_t)sw_of[i],
							   .wire_ps = wire_of[i],
							   .cable_ns = cable_of[i], .host = i };
		}
		/* (shuffled: kind[] need not come in host order) */
		for (uint32_t i = 0; n > 1 && i < n; i++) {
			uint32_t j = (i * 7 + 3) % n;
			struct aif_peer_kind t = kinds[i];
			kinds[i] = kinds[j];
			kinds[j] = t;
		}
		assert_int_equal(aif_paths_farthest(kinds, n, fake_rtt, NULL, far), 0);
		for (uint32_t a = 0; a < n; a++) {
			uint64_t want = 0;
			for (uint32_t b = 0; b < n; b++)
				if (b != a && fake_rtt(a, b, NULL) > want)
					want = fake_rtt(a, b, NULL);
			assert_int_equal(far[a], want);
		}
	}
	/* one host: no peer */
	kinds[0] = (struct aif_peer_kind){ .sw = 1, .host = 0 };
	sw_of[0] = 1;
	assert_int_equal(aif_paths_farthest(kinds, 1, fake_rtt, NULL, far), 0);
	assert_int_equal(far[0], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_is_floyd),
		cmocka_unit_test(test_planes_and_down),
		cmocka_unit_test(test_ends_only),
		cmocka_unit_test(test_links_differ),
		cmocka_unit_test(test_farthest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
