/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing scheme spray: every packet picks its member afresh, so a
 * flow's packets share all paths and arrive out of order (RoCE NICs without
 * out-of-order placement see loss: go-back-N drops what comes early).
 * "mode":
 *   round_robin  members in turn, per group: st->rr[group] is the next
 *                offset.  Exact: over any n packets of a group each member
 *                gets floor or ceil of n / members (max - min <= 1).
 *   random       uniformly at random: one aif_rng_below(g->n) per packet.
 *   drill        DRILL (Ghorbani et al., SIGCOMM 2017), as ConWeave's ns-3
 *                runs it (switch-node.cc DoLbDrill) by default: d =
 *                drill_samples (0 is taken as 1) members drawn uniformly at
 *                random, DISTINCT ("distinct": true, a partial Fisher-Yates
 *                shuffle, aif_rng_below(n - i) for the i-th; min(d, n) of
 *                them; ns-3 shuffles all and takes the first d, the same
 *                distribution) or with replacement ("distinct": false, d
 *                aif_rng_below(n)), plus the previous best: remembered per
 *                destination address ("memory": "destination", ns-3's map
 *                keyed by the destination IP: st->drill_dst, open
 *                addressing, 8 probes, AIF_DRILL_DST_MAX entries; a full
 *                window overwrites its first entry) or per group ("group":
 *                st->drill_best[group]).  Start from the previous best's
 *                bytes (none remembered: destination memory takes the first
 *                sample whatever its bytes, as ns-3 starts from UINT32_MAX;
 *                group memory from the first member that is up); a sample
 *                wins only with strictly fewer bytes queued; the winner is
 *                remembered.  The bytes are ctx port_qbytes: with
 *                "queue_read": "packet" (default) the MMU's count at the
 *                packet's step (runner.c), updated by every admission and
 *                release (packets of one rx burst see the queues as the
 *                burst found them), with "step" a copy taken once per
 *                worker step.  The remembered best is what makes DRILL
 *                stick to a lighter member that the samples alone would
 *                often miss.
 * DRILL without queue depths (ctx port_qbytes NULL) sprays at random.
 * Every mode chooses among the members whose link is up (struct aif_group
 * up[]; all of them when none is): round robin walks that list, so a member
 * going down or up shifts the rotation, never stalls it.  Positions saved in
 * the state that are past the list (the group shrank under a new table)
 * restart at 0; a remembered DRILL best that is down is forgotten.
 *
 * Reads:  ctx rng (random, drill), port_qbytes (drill), pkt dst (drill
 *         memory "destination"), params spray_mode, drill_samples,
 *         drill_distinct, drill_memory.
 * Writes: aif_lb_state.rr[group], drill_best[group] or drill_dst[].
 * Counters: none (a spray never reselects: every packet is its own pick).
 */
#include <string.h>

#include "flow_hash.h"
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

/* The destination's memory entry (found, or where it goes). */
static struct aif_drill_dst *
dst_entry(struct aif_lb_state *st, const struct aif_pkt *m, bool *found)
{
	uint32_t w[4];

	memcpy(w, m->dst.b, sizeof(w));
	uint32_t h = aif_fmix32(w[0] ^ w[1] * 0x9E3779B1u ^ w[2] * 0x85EBCA77u ^ w[3]);
	struct aif_drill_dst *empty = NULL;

	for (uint32_t i = 0; i < 8; i++) {
		struct aif_drill_dst *e = &st->drill_dst[(h + i) & (AIF_DRILL_DST_MAX - 1)];
		if (!e->used) {
			if (empty == NULL)
				empty = e;
			continue;
		}
		if (memcmp(e->addr, m->dst.b, sizeof(e->addr)) == 0) {
			*found = true;
			return e;
		}
	}
	*found = false;
	return empty != NULL ? empty : &st->drill_dst[h & (AIF_DRILL_DST_MAX - 1)];
}

static uint32_t
drill(const struct aif_group *g, const struct aif_member *members, const struct aif_pkt *m,
      struct aif_lb_ctx *x)
{
	const struct aif_lb_params *p = x->p;
	const uint32_t *qb = x->port_qbytes;
	uint32_t d = p->drill_samples ? p->drill_samples : 1;
	uint32_t n = aif_lb_up_n(g);
	bool by_dst = p->drill_memory == AIF_DRILL_MEM_DESTINATION, have = true;
	struct aif_drill_dst *e = NULL;
	uint32_t best, best_q;

	if (by_dst) {
		bool found;
		e = dst_entry(x->st, m, &found);
		have = found && e->group == x->group && e->member < g->n &&
		       aif_lb_member_up(g, e->member);
		best = have ? e->member : 0;
	} else {
		uint8_t prev = x->st->drill_best[x->group];
		best = prev < g->n && aif_lb_member_up(g, prev) ? prev : aif_lb_up_at(g, 0);
	}
	best_q = have ? qb[members[best].port] : UINT32_MAX;

	if (p->drill_distinct) {
		uint8_t idx[AIF_MAX_MEMBERS];
		if (d > n)
			d = n;
		for (uint32_t i = 0; i < n; i++)
			idx[i] = (uint8_t)i;
		for (uint32_t i = 0; i < d; i++) {
			uint32_t j = i + aif_rng_below(x->rng, n - i);
			uint8_t t = idx[i];
			idx[i] = idx[j];
			idx[j] = t;
			uint32_t s = aif_lb_up_at(g, idx[i]);
			uint32_t q = qb[members[s].port];
			if (q < best_q || !have) {
				best = s;
				best_q = q;
				have = true;
			}
		}
	} else {
		for (uint32_t i = 0; i < d; i++) {
			uint32_t s = aif_lb_up_at(g, aif_rng_below(x->rng, n));
			uint32_t q = qb[members[s].port];
			if (q < best_q || !have) {
				best = s;
				best_q = q;
				have = true;
			}
		}
	}
	if (by_dst) {
		memcpy(e->addr, m->dst.b, sizeof(e->addr));
		e->group = x->group;
		e->member = (uint8_t)best;
		e->used = 1;
	} else {
		x->st->drill_best[x->group] = (uint8_t)best;
	}
	return best;
}

uint32_t
aif_lb_spray_select(const struct aif_group *g, const struct aif_member *members,
		    const uint8_t *buckets, const struct aif_pkt *m,
		    struct aif_lb_ctx *x)
{
	(void)buckets;
	switch (x->p->spray_mode) {
	case AIF_SPRAY_RANDOM:
		return aif_lb_up_at(g, aif_rng_below(x->rng, aif_lb_up_n(g)));
	case AIF_SPRAY_DRILL:
		if (x->port_qbytes != NULL)
			return drill(g, members, m, x);
		return aif_lb_up_at(g, aif_rng_below(x->rng, aif_lb_up_n(g)));
	default:
		return round_robin(g, x);
	}
}
