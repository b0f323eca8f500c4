/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing schemes ECMP and WCMP: the member is a function of the flow
 * hash only, through the group's resilient bucket table (control builds it;
 * WCMP gives members buckets in proportion to their weights), so every
 * packet of a flow takes the same path and removing a member moves only
 * the flows that used it.
 * Knobs: policy load_balancing.hash / hash_fields / buckets_per_member,
 * switch seed.
 */
#include "lb.h"

uint32_t
aif_lb_ecmp_select(const struct aif_group *g, const struct aif_member *members,
		   const uint8_t *buckets, const struct aif_pkt *m,
		   struct aif_lb_ctx *x)
{
	(void)members;
	(void)x;
	return aif_lb_bucket_pick(g, buckets, m->hash);
}
