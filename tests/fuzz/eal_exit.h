/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the harnesses that start EAL: EAL leaves its runtime directory
 * (/var/run/dpdk/<file-prefix>, empty with --no-shconf and --no-telemetry)
 * behind when a process ends without rte_eal_cleanup(), as a fuzzer's run
 * does, one more a run.  eal_exit_cleanup() has it removed at exit (only if
 * empty: never another process's files).  After rte_eal_init().
 */
#ifndef AIF_FUZZ_EAL_EXIT_H
#define AIF_FUZZ_EAL_EXIT_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>

static char eal_exit_dir[PATH_MAX];

static void
eal_exit_rmdir(void)
{
	if (eal_exit_dir[0] != '\0')
		rmdir(eal_exit_dir);
}

static inline void
eal_exit_cleanup(void)
{
	snprintf(eal_exit_dir, sizeof(eal_exit_dir), "%s", rte_eal_get_runtime_dir());
	atexit(eal_exit_rmdir);
}

#endif /* AIF_FUZZ_EAL_EXIT_H */
