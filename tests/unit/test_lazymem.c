/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for dataplane/lazymem.h: zeroed, and paid for by what is
 * touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "lazymem.h"

/* Resident pages of this process (statm's second field). */
static long
resident_pages(void)
{
	long size = 0, rss = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f != NULL) {
		if (fscanf(f, "%ld %ld", &size, &rss) != 2)
			rss = -1;
		fclose(f);
	}
	return rss;
}

static void
test_zeroed_and_writable(void **state)
{
	size_t n = 100000;
	uint64_t *x = aif_lazy_zalloc(n * sizeof(*x));

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < n; i += 511)
		assert_int_equal(x[i], 0);
	x[0] = 1;
	x[n - 1] = 2;
	assert_int_equal(x[0] + x[n - 1], 3);
	aif_lazy_free(x, n * sizeof(*x));
	aif_lazy_free(NULL, 0);
	/* a zero size is one byte's mapping */
	char *z = aif_lazy_zalloc(0);
	assert_non_null(z);
	aif_lazy_free(z, 0);
}

/* 256 MiB taken, three pages touched: the process grows by those pages,
 * not by the table. */
static void
test_pays_for_what_is_touched(void **state)
{
	size_t size = (size_t)256 << 20;
	long before = resident_pages();
	char *p = aif_lazy_zalloc(size);

	(void)state;
	assert_non_null(p);
	assert_true(before > 0);
	p[0] = 1;
	p[size / 2] = 1;
	p[size - 1] = 1;
	long grown = resident_pages() - before;
	assert_true(grown >= 3);
	assert_true(grown < 256); /* under 1 MiB of 4 KiB pages */
	aif_lazy_free(p, size);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroed_and_writable),
		cmocka_unit_test(test_pays_for_what_is_touched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
