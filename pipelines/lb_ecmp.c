/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing scheme: ECMP.  The member is a function of the flow hash
 * only, so every packet of a flow takes the same path.
 * Knobs: policy load_balancing.hash / hash_fields, switch seed.
 */
#include "lb.h"

uint32_t
aif_lb_ecmp_select(const struct aif_group *g, const struct aif_member *members,
		   const struct aif_pkt *m, struct aif_worker *w,
		   aif_time_ns now_ns)
{
	(void)members;
	(void)w;
	(void)now_ns;
	return aif_lb_ecmp_pick(m->hash, g->n);
}
