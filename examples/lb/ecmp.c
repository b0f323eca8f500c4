/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP as a program: the member the group's resilient bucket table gives
 * the flow hash, as the built-in ECMP and WCMP do (so weights, and members
 * going down moving only their own flows, carry over).  The context has it
 * ready (ecmp_member, computed only for programs that read it); a program
 * that hashes differently asks the table with aif_lb_bucket(hash).  It
 * picks exactly what the built-in picks: the baseline for what running a
 * program costs.
 */
#include <aifabric/lb_prog.h>

AIF_LB_PROG("ecmp")
uint64_t
ecmp(const struct aif_lb_prog_ctx *c)
{
	return c->ecmp_member;
}
