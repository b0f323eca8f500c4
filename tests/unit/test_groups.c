/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The union-find groups (dataplane/groups.h) that the partition's switches
 * and a runner's drives are grouped with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "groups.h"

/*
 * Groups numbered in the order of their lowest member, whatever the
 * union-find's chains: {0, 1} and {2, 3} are groups 0 and 1 (member 3's
 * chain runs through 2, numbered 1; numbers written over the parents still
 * to be read put 3 in group 0).
 */
static void
test_groups(void **state)
{
	uint16_t up[6], g[6];

	(void)state;
	for (uint16_t s = 0; s < 6; s++)
		up[s] = s;
	aif_groups_join(up, 0, 1);
	aif_groups_join(up, 2, 3);
	aif_groups_join(up, 5, 3);
	assert_int_equal(aif_groups_number(up, 6, g), 3);
	static const uint16_t want[6] = { 0, 0, 1, 1, 2, 1 };
	for (unsigned s = 0; s < 6; s++)
		assert_int_equal(g[s], want[s]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
