/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP as a program: the member the group's resilient bucket table gives
 * the flow hash, as the built-in ECMP and WCMP do (so weights, and members
 * going down moving only their own flows, carry over).  It picks exactly
 * what the built-in picks; it is the baseline for what a program costs.
 */
#include <aifabric/lb_prog.h>

AIF_LB_PROG("ecmp")
uint64_t
ecmp(const struct aif_lb_prog_ctx *c)
{
	return aif_lb_bucket(c->hash);
}
