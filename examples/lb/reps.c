/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Recycled-entropy spraying (after Ultra Ethernet's REPS), at a switch: a
 * flow's packets keep reusing the member they last took for as long as it
 * comes back uncongested (its port's queue under THRESHOLD bytes and its
 * link up); when it does not, the flow explores: the packet takes the less
 * loaded of two members drawn at random, and that one is recycled next.
 * Unlike a flowlet scheme it moves a flow only away from a queue, not after
 * a gap; unlike spraying it keeps an uncongested flow on one path (no
 * reordering while nothing is congested).  None of the built-in schemes
 * does this.
 * Counters: 0 packets recycled, 1 explorations (a move forced by
 * congestion or a link down), 2 new flows (or their entry aged out).
 */
#include <aifabric/lb_prog.h>

#define THRESHOLD 65536            /* bytes queued: congested above */
#define AGE_NS (2 * 1000 * 1000)   /* a flow silent this long starts afresh */

AIF_LB_PROG("reps")
uint64_t
reps(const struct aif_lb_prog_ctx *c)
{
	uint32_t idx = c->hash ^ ((uint32_t)c->group * 0x9E3779B9u);
	uint32_t key = c->hash | 1, k, b;
	struct aif_lb_prog_entry *e = aif_lb_table_entry(idx);
	uint64_t now = c->now_ns ? c->now_ns : 1; /* (0 marks an empty entry) */

	if (e->last_ns != 0 && e->key == key && c->now_ns - e->last_ns < AGE_NS) {
		k = e->value & (AIF_LB_PROG_MAX_MEMBERS - 1);
		if (k < c->n_members && (c->n_up == 0 || c->member[k].up) &&
		    c->member[k].queued_bytes < THRESHOLD) {
			e->last_ns = now; /* recycled: it came back uncongested */
			aif_lb_counter_add(0, 1);
			return k;
		}
		aif_lb_counter_add(1, 1);
	} else {
		aif_lb_counter_add(2, 1);
	}
	k = aif_lb_random_up(c); /* explore: the less loaded of two */
	b = aif_lb_random_up(c);
	if (c->member[b].queued_bytes < c->member[k].queued_bytes)
		k = b;
	e->last_ns = now;
	e->key = key;
	e->value = k;
	return k;
}
