/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the tests that start EAL: rte_eal_cleanup() leaves the process's
 * runtime directory (/var/run/dpdk/<file-prefix>) behind, one more per test
 * run.  This removes it as well; it is empty with --no-shconf and
 * --no-telemetry (the telemetry socket would go only at exit).
 *
 *	test_eal_cleanup();   // instead of rte_eal_cleanup()
 */
#ifndef AIF_TEST_EAL_CLEANUP_H
#define AIF_TEST_EAL_CLEANUP_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

static inline void
test_eal_cleanup(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (dir[0] != '\0')
		rmdir(dir); /* only if empty: never another process's files */
}

#endif /* AIF_TEST_EAL_CLEANUP_H */
