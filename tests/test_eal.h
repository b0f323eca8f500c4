/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL for the tests that need it, started and stopped the same way in
 * each.
 *
 * test_eal_init: 4 KiB pages (mem_mb of them), no PCI devices, no shared
 * config, no telemetry, lcore 0, errors only, and a runtime directory of
 * its own (file prefix "<stem>-<pid>", so that tests run side by side never
 * share one).
 *
 * test_eal_cleanup: rte_eal_cleanup() leaves the process's runtime
 * directory (/var/run/dpdk/<file-prefix>) behind, one more per test run.
 * This removes it as well; it is empty with --no-shconf and --no-telemetry
 * (the telemetry socket would go only at exit).
 *
 * test_eal_rmdir_at_exit: for a program that ends without
 * test_eal_cleanup() (a fuzzer's run ends in exit(), its mempools and
 * switches live): the runtime directory removed at exit, only if empty.
 *
 *	if (test_eal_init("test_mbuf", "aif-ut-mbuf", 64) != 0) return -1;
 *	...
 *	test_eal_cleanup();   // instead of rte_eal_cleanup()
 */
#ifndef AIF_TEST_EAL_H
#define AIF_TEST_EAL_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>

/* 0, or -1 (EAL did not start). */
static inline int
test_eal_init(const char *prog, const char *stem, unsigned mem_mb)
{
	/* (EAL may keep pointers into its arguments) */
	static char name[64], mem[16], prefix[96];

	snprintf(name, sizeof(name), "%s", prog);
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	snprintf(prefix, sizeof(prefix), "%s-%d", stem, (int)getpid());
	char *argv[] = { name, "--no-huge", "-m", mem, "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", prefix, "-l", "0",
			 "--log-level", "error" };
	return rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0 ? -1 : 0;
}

static inline void
test_eal_cleanup(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (dir[0] != '\0')
		rmdir(dir); /* only if empty: never another process's files */
}

static inline char *
test_eal_dir(void)
{
	static char dir[PATH_MAX];
	return dir;
}

static inline void
test_eal_rmdir(void)
{
	if (test_eal_dir()[0] != '\0')
		rmdir(test_eal_dir()); /* only if empty: never another process's files */
}

static inline void
test_eal_rmdir_at_exit(void)
{
	snprintf(test_eal_dir(), PATH_MAX, "%s", rte_eal_get_runtime_dir());
	atexit(test_eal_rmdir);
}

#endif /* AIF_TEST_EAL_H */
