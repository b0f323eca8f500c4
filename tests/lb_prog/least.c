/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The least loaded of the first 16 members (test_lb_prog.c): valid, but
 * its unrolled comparisons make 2^15 paths, which DPDK's validator walks
 * one by one (more than a minute): it must load at once and run on the
 * interpreter.
 */
#include <aifabric/lb_prog.h>

AIF_LB_PROG("least16")
uint64_t
least16(const struct aif_lb_prog_ctx *c)
{
	uint32_t best = 0, q = c->member[0].queued_bytes;

#pragma unroll
	for (int i = 1; i < 16; i++)
		if (c->member[i].queued_bytes < q) {
			q = c->member[i].queued_bytes;
			best = i;
		}
	return best;
}
