/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DRILL-like power of two choices, per packet: two members that are up,
 * drawn at random, and the previous best of the group; the one with the
 * fewest bytes queued on its port wins (the first on a tie).  The previous
 * best is kept in the flow table under the group's index.
 * Counters: 0 packets that went to the previous best.
 */
#include <aifabric/lb_prog.h>

#define SAMPLES 2

AIF_LB_PROG("drill")
uint64_t
drill(const struct aif_lb_prog_ctx *c)
{
	uint32_t idx = c->table_size - 1 - (c->group & (c->table_size - 1));
	struct aif_lb_prog_entry *e = aif_lb_table_entry(idx); /* the previous best */
	uint32_t best, q, k;

	best = aif_lb_random_up(c);
	q = c->member[best].queued_bytes;
#pragma unroll
	for (int i = 1; i < SAMPLES; i++) {
		k = aif_lb_random_up(c);
		if (c->member[k].queued_bytes < q) {
			best = k;
			q = c->member[k].queued_bytes;
		}
	}
	k = e->value & (AIF_LB_PROG_MAX_MEMBERS - 1);
	if (e->last_ns != 0 && k < c->n_members && (c->n_up == 0 || c->member[k].up) &&
	    c->member[k].queued_bytes < q) {
		best = k;
		aif_lb_counter_add(0, 1);
	}
	e->last_ns = c->now_ns ? c->now_ns : 1;
	e->value = best;
	return best;
}
