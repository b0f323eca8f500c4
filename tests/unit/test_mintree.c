/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The min tree (dataplane/mintree.h) against a scan of the same times:
 * the minimum, the lowest slot holding it, and the slots due by a time,
 * on random times drawn from a few values (so that ties are common)
 * through random sets, for every size from 1 to 64 slots.  By hand: one
 * slot, every slot never, every slot due, a slot set to what it holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "mintree.h"
#include "rng.h"

static void
check(const struct aif_mintree *m, const aif_time_ns *v, unsigned n, aif_time_ns now)
{
	aif_time_ns lo = AIF_TIME_NS_NEVER;
	unsigned at = 0;
	uint64_t due = 0;

	for (unsigned i = 0; i < n; i++) {
		if (v[i] < lo) {
			lo = v[i];
			at = i;
		}
		due |= (uint64_t)(v[i] <= now) << i;
		assert_int_equal(aif_mintree_get(m, i), v[i]);
	}
	assert_int_equal(aif_mintree_min(m), lo);
	if (lo != AIF_TIME_NS_NEVER)
		assert_int_equal(aif_mintree_argmin(m), at);
	assert_int_equal(aif_mintree_due(m, now), due);
}

static void
test_random(void **state)
{
	struct aif_mintree m = { 0 };
	aif_time_ns v[AIF_MINTREE_DUE_MAX];
	struct aif_rng rng;

	(void)state;
	aif_rng_seed(&rng, 12345);
	for (unsigned n = 1; n <= AIF_MINTREE_DUE_MAX; n++) {
		assert_int_equal(aif_mintree_init(&m, n, 7), 0);
		for (unsigned i = 0; i < n; i++)
			v[i] = 7;
		check(&m, v, n, 6);
		check(&m, v, n, 7);
		for (unsigned k = 0; k < 2000; k++) {
			unsigned i = (unsigned)(aif_rng_next(&rng) % n);
			uint64_t r = aif_rng_next(&rng) % 12;
			v[i] = r == 11 ? AIF_TIME_NS_NEVER : 100 + r * 10;
			aif_mintree_set(&m, i, v[i]);
			check(&m, v, n, 90 + (aif_rng_next(&rng) % 14) * 10);
		}
	}
	aif_mintree_free(&m);
}

static void
test_edges(void **state)
{
	struct aif_mintree m = { 0 };
	aif_time_ns v[AIF_MINTREE_DUE_MAX];

	(void)state;
	/* one slot */
	aif_mintree_init(&m, 1, AIF_TIME_NS_NEVER);
	assert_int_equal(aif_mintree_min(&m), AIF_TIME_NS_NEVER);
	assert_int_equal(aif_mintree_due(&m, 1000), 0);
	aif_mintree_set(&m, 0, 5);
	assert_int_equal(aif_mintree_argmin(&m), 0);
	assert_int_equal(aif_mintree_due(&m, 5), 1);
	assert_int_equal(aif_mintree_due(&m, 4), 0);
	/* 64 slots, every one due; then the last alone the earliest */
	aif_mintree_init(&m, 64, 0);
	for (unsigned i = 0; i < 64; i++)
		v[i] = 0;
	assert_true(aif_mintree_due(&m, 0) == ~0ull);
	for (unsigned i = 0; i < 64; i++) {
		v[i] = i == 63 ? 3 : 9;
		aif_mintree_set(&m, i, v[i]);
	}
	check(&m, v, 64, 3);
	assert_int_equal(aif_mintree_argmin(&m), 63);
	/* setting what a slot holds changes nothing */
	aif_mintree_set(&m, 63, 3);
	check(&m, v, 64, 8);
	/* slots past n are never: 5 slots in a tree of 8 leaves */
	aif_mintree_init(&m, 5, 1);
	assert_int_equal(aif_mintree_due(&m, AIF_TIME_NS_NEVER - 1), 0x1f);
	/* a large one (a runner's switches): the minimum and where */
	assert_int_equal(aif_mintree_init(&m, 320, 50), 0);
	aif_mintree_set(&m, 300, 20);
	aif_mintree_set(&m, 301, 20);
	assert_int_equal(aif_mintree_min(&m), 20);
	assert_int_equal(aif_mintree_argmin(&m), 300);
	aif_mintree_set(&m, 300, 60);
	assert_int_equal(aif_mintree_argmin(&m), 301);
	aif_mintree_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
