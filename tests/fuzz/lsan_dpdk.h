/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the harnesses whose switches outlive an input (fuzz_ctl.c,
 * fuzz_switch.c): DPDK's memory, where a switch lives (rte_malloc),
 * scanned by LeakSanitizer as it scans the C heap, so that what only a
 * switch points to is not taken for a leak.  After EAL has started (with
 * --no-huge -m N its memory is one segment, mapped whole).
 *
 *	if (rte_eal_init(argc, argv) < 0) ...
 *	lsan_dpdk_roots();
 */
#ifndef AIF_FUZZ_LSAN_DPDK_H
#define AIF_FUZZ_LSAN_DPDK_H

#include <stddef.h>

#include <rte_memory.h>
#include <sanitizer/lsan_interface.h>

static int
lsan_dpdk_root(const struct rte_memseg_list *msl, const struct rte_memseg *ms, size_t len,
	       void *arg)
{
	(void)msl;
	(void)arg;
	__lsan_register_root_region(ms->addr, len);
	return 0;
}

static inline void
lsan_dpdk_roots(void)
{
	rte_memseg_contig_walk(lsan_dpdk_root, NULL);
}

#endif /* AIF_FUZZ_LSAN_DPDK_H */
