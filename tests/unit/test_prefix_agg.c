/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for control/prefix_agg.c: siblings of one way merged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prefix_agg.h"

/* r[i] from "prefix=way" strings; returns n. */
static uint32_t
make(struct aif_prefix_way *r, const char *const *in, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		char pf[64];
		const char *eq = strchr(in[i], '=');
		assert_non_null(eq);
		snprintf(pf, sizeof(pf), "%.*s", (int)(eq - in[i]), in[i]);
		memset(&r[i], 0, sizeof(r[i]));
		assert_int_equal(aif_prefix_parse(pf, &r[i].pf), 0);
		r[i].way = (uint32_t)atoi(eq + 1);
		r[i].first = i;
	}
	return n;
}

/* Aggregate in[] and compare with want[] ("prefix=way", by address). */
static void
check(const char *const *in, uint32_t n_in, const char *const *want, uint32_t n_want)
{
	struct aif_prefix_way r[32];
	char buf[64], got[80];

	assert_true(n_in <= 32);
	uint32_t n = aif_prefix_aggregate(r, make(r, in, n_in));
	for (uint32_t i = 0; i < n && i < n_want; i++) {
		snprintf(got, sizeof(got), "%s=%u", aif_prefix_fmt(&r[i].pf, buf, sizeof(buf)),
			 r[i].way);
		if (strcmp(got, want[i]) != 0)
			fail_msg("entry %u: got %s, want %s", i, got, want[i]);
	}
	assert_int_equal(n, n_want);
}

#define CHECK(in, want) check(in, sizeof(in) / sizeof(in[0]), want, sizeof(want) / sizeof(want[0]))

/* Four /24s of one way that fill a /22 become it, and the merged prefix
 * keeps its lower half's first. */
static void
test_siblings_merge(void **state)
{
	static const char *const in[] = { "10.1.0.0/24=3", "10.1.1.0/24=3", "10.1.2.0/24=3",
					  "10.1.3.0/24=3" };
	static const char *const want[] = { "10.1.0.0/22=3" };
	struct aif_prefix_way r[4];

	(void)state;
	CHECK(in, want);
	static const char *const in2[] = { "10.1.2.0/24=3", "10.1.3.0/24=3" };
	assert_int_equal(aif_prefix_aggregate(r, make(r, in2, 2)), 1);
	assert_int_equal(r[0].first, 0);
	assert_int_equal(r[0].pf.len, 23);
}

/* Different ways never merge; a way on one half splits the parent. */
static void
test_ways_split(void **state)
{
	static const char *const in[] = { "10.1.0.0/24=1", "10.1.1.0/24=1", "10.1.2.0/24=2",
					  "10.1.3.0/24=1" };
	static const char *const want[] = { "10.1.0.0/23=1", "10.1.2.0/24=2", "10.1.3.0/24=1" };

	(void)state;
	CHECK(in, want);
}

/* Neighbours that are not siblings (10.1.1.0 and 10.1.2.0: the halves of
 * no /23) stay apart, as does a run that does not fill its parent: no
 * route for an address no subnet holds. */
static void
test_not_siblings(void **state)
{
	static const char *const in[] = { "10.1.1.0/24=0", "10.1.2.0/24=0", "10.1.4.0/24=0",
					  "10.1.5.0/24=0", "10.1.6.0/24=0" };
	static const char *const want[] = { "10.1.1.0/24=0", "10.1.2.0/24=0", "10.1.4.0/23=0",
					    "10.1.6.0/24=0" };

	(void)state;
	CHECK(in, want);
}

/* Out of order in, by address out; merges cascade (eight /24s, a /21). */
static void
test_unsorted_cascade(void **state)
{
	static const char *const in[] = { "10.0.7.0/24=5", "10.0.3.0/24=5", "10.0.5.0/24=5",
					  "10.0.0.0/24=5", "10.0.6.0/24=5", "10.0.1.0/24=5",
					  "10.0.4.0/24=5", "10.0.2.0/24=5", "9.0.0.0/8=1" };
	static const char *const want[] = { "9.0.0.0/8=1", "10.0.0.0/21=5" };

	(void)state;
	CHECK(in, want);
}

/* A prefix inside another, or of another length, never merges with it;
 * the more specific stays (the longest match still picks it); duplicates
 * stay duplicates. */
static void
test_nested(void **state)
{
	static const char *const in[] = { "10.0.0.0/24=1", "10.0.0.0/25=2", "10.0.1.0/24=1" };
	static const char *const want[] = { "10.0.0.0/24=1", "10.0.0.0/25=2", "10.0.1.0/24=1" };
	static const char *const in2[] = { "10.0.0.0/23=1", "10.0.2.0/24=1" };
	static const char *const want2[] = { "10.0.0.0/23=1", "10.0.2.0/24=1" };
	/* an upper half twice is no pair of halves */
	static const char *const in3[] = { "10.0.1.0/24=1", "10.0.1.0/24=1" };
	static const char *const want3[] = { "10.0.1.0/24=1", "10.0.1.0/24=1" };

	(void)state;
	CHECK(in, want);
	CHECK(in2, want2);
	CHECK(in3, want3);
}

/* Families apart; IPv6 siblings merge; the two /1 halves make /0; /0 is
 * nobody's half; none in, none out. */
static void
test_families_and_edges(void **state)
{
	static const char *const in[] = { "2001:db8::/48=1", "2001:db8:1::/48=1",
					  "0.0.0.0/1=4", "128.0.0.0/1=4", "::/1=4" };
	static const char *const want[] = { "0.0.0.0/0=4", "::/1=4", "2001:db8::/47=1" };
	static const char *const in2[] = { "0.0.0.0/0=1", "0.0.0.0/0=1" };
	static const char *const want2[] = { "0.0.0.0/0=1", "0.0.0.0/0=1" };
	struct aif_prefix_way r[1];

	(void)state;
	CHECK(in, want);
	CHECK(in2, want2);
	assert_int_equal(aif_prefix_aggregate(r, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siblings_merge),
		cmocka_unit_test(test_ways_split),
		cmocka_unit_test(test_not_siblings),
		cmocka_unit_test(test_unsorted_cascade),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_families_and_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
