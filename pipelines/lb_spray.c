/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing scheme spray: every packet picks its member afresh, so a
 * flow's packets share all paths and arrive out of order (RoCE NICs without
 * out-of-order placement see loss: lossless-fabric.md section 6).
 * "mode":
 *   round_robin  members in turn, per group: st->rr[group] is the next
 *                offset.  Exact: over any n packets of a group each member
 *                gets floor or ceil of n / members (max - min <= 1).
 *   random       uniformly at random: one aif_rng_below(g->n) per packet.
 *   drill        DRILL (Ghorbani et al., SIGCOMM 2017): d = drill_samples
 *                (0 is taken as 1) members drawn uniformly at random, with
 *                replacement (d aif_rng_below(g->n) in order), plus the
 *                group's previous best (st->drill_best[group]); the one whose
 *                port has the fewest bytes queued wins, ties to the previous
 *                best, then to the earliest sample; it becomes the previous
 *                best.  The remembered best is what makes DRILL stick to a
 *                lighter member that the samples alone would often miss.
 * DRILL without queue depths (ctx port_qbytes NULL) sprays at random.
 * Every mode chooses among the members whose link is up (struct aif_group
 * up[]; all of them when none is): round robin walks that list, so a member
 * going down or up shifts the rotation, never stalls it.  Positions saved in
 * the state that are past the list (the group shrank under a new table)
 * restart at 0; a remembered DRILL best that is down is forgotten.
 *
 * Reads:  ctx rng (random, drill), port_qbytes (drill), params spray_mode,
 *         drill_samples.
 * Writes: aif_lb_state.rr[group] or drill_best[group].
 * Counters: none (a spray never reselects: every packet is its own pick).
 */
#include "lb.h"

static uint32_t
round_robin(const struct aif_group *g, struct aif_lb_ctx *x)
{
	uint32_t *rr = &x->st->rr[x->group];
	uint32_t n = aif_lb_up_n(g);
	uint32_t i = *rr < n ? *rr : 0;

	*rr = i + 1 < n ? i + 1 : 0;
	return aif_lb_up_at(g, i);
}

static uint32_t
drill(const struct aif_group *g, const struct aif_member *members, struct aif_lb_ctx *x)
{
	const uint32_t *qb = x->port_qbytes;
	uint8_t *prev = &x->st->drill_best[x->group];
	uint32_t d = x->p->drill_samples ? x->p->drill_samples : 1;
	uint32_t n = aif_lb_up_n(g);
	uint32_t best = *prev < g->n && aif_lb_member_up(g, *prev) ? *prev
								  : aif_lb_up_at(g, 0);
	uint32_t best_q = qb[members[best].port];

	for (uint32_t i = 0; i < d; i++) {
		uint32_t s = aif_lb_up_at(g, aif_rng_below(x->rng, n));
		uint32_t q = qb[members[s].port];
		if (q < best_q) {
			best = s;
			best_q = q;
		}
	}
	*prev = (uint8_t)best;
	return best;
}

uint32_t
aif_lb_spray_select(const struct aif_group *g, const struct aif_member *members,
		    const uint8_t *buckets, const struct aif_pkt *m,
		    struct aif_lb_ctx *x)
{
	(void)buckets;
	(void)m;
	switch (x->p->spray_mode) {
	case AIF_SPRAY_RANDOM:
		return aif_lb_up_at(g, aif_rng_below(x->rng, aif_lb_up_n(g)));
	case AIF_SPRAY_DRILL:
		if (x->port_qbytes != NULL)
			return drill(g, members, x);
		return aif_lb_up_at(g, aif_rng_below(x->rng, aif_lb_up_n(g)));
	default:
		return round_robin(g, x);
	}
}
