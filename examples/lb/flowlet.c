/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LetFlow as a program, with the built-in flowlet scheme's decisions: a
 * flow keeps its member while its packets come closer than the policy's
 * flowlet gap; after a longer gap the next packet picks a member that is up
 * uniformly at random.  The flow table is direct-mapped by the hash with
 * the group mixed in; an entry holds one flowlet (key: the hash that
 * started it, value: member | group << 8) which every flow hashing to it
 * shares, so no flow moves inside its flowlet.
 *
 * Load it with a flow table at least the policy's flowlet table_size.
 * Counters: 0 flowlets started, 1 packets that kept their flowlet.
 */
#include <aifabric/lb_prog.h>

AIF_LB_PROG("flowlet")
uint64_t
flowlet(const struct aif_lb_prog_ctx *c)
{
	uint32_t n = c->n_members;
	uint32_t idx = (c->hash ^ ((uint32_t)c->group * 0x9E3779B9u)) &
		       (c->flowlet_table_size - 1);
	struct aif_lb_prog_entry *e = aif_lb_table_entry(idx);
	uint32_t off = ((e->value & 0xff) % n) & (AIF_LB_PROG_MAX_MEMBERS - 1);
	uint64_t now = c->now_ns ? c->now_ns : 1; /* (0 marks an empty entry) */

	if (e->last_ns != 0 && c->now_ns - e->last_ns < c->flowlet_gap_ns &&
	    (c->n_up == 0 || c->member[off].up)) {
		e->last_ns = now; /* the flowlet goes on */
		aif_lb_counter_add(1, 1);
		return off;
	}
	off = aif_lb_random_up(c); /* a new flowlet */
	e->last_ns = now;
	e->key = c->hash | 1;
	e->value = off | (uint32_t)c->group << 8;
	aif_lb_counter_add(0, 1);
	return off;
}
