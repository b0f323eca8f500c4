/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A flowlet scheme with two choices (test_lb_prog.c): a flow keeps its
 * member while its packets come closer than the flowlet gap and the member
 * is up; a new flowlet takes the less loaded of two members drawn at
 * random.  clang -O2 keeps the flow-table entry pointer on the stack across
 * the helper calls and writes through it once read back: valid, and it
 * must load.
 * Counters: 0 flowlets started.
 */
#include <aifabric/lb_prog.h>

AIF_LB_PROG("flowlet2")
uint64_t
flowlet2(const struct aif_lb_prog_ctx *c)
{
	uint32_t idx = c->hash ^ ((uint32_t)c->group * 0x9E3779B9u);
	struct aif_lb_prog_entry *e = aif_lb_table_entry(idx);
	uint64_t now = c->now_ns ? c->now_ns : 1;
	uint32_t k;

	if (e->last_ns != 0 && e->key == (c->hash | 1) && now - e->last_ns < c->flowlet_gap_ns) {
		k = e->value & (AIF_LB_PROG_MAX_MEMBERS - 1);
		if (k < c->n_members && (c->n_up == 0 || c->member[k].up)) {
			e->last_ns = now;
			return k;
		}
	}
	uint32_t a = aif_lb_random_up(c);
	uint32_t b = aif_lb_random_up(c);
	if (c->member[b].queued_bytes < c->member[a].queued_bytes)
		a = b;
	aif_lb_counter_add(0, 1);
	e->last_ns = now;
	e->key = c->hash | 1;
	e->value = a;
	return a;
}
