/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing scheme flowlet: a flow keeps its member while its packets
 * come closer than flowlet_gap_ns apart; a longer gap ends the flowlet, and
 * the next packet starts a new one on a member picked afresh, uniformly at
 * random (LetFlow, "mode": "random") or the one whose egress port has the
 * fewest bytes queued ("least_loaded"; ties broken uniformly at random).
 * A gap longer than the path-delay difference lets a flow move without
 * reordering (ConWeave letflow-routing.cc: gap 100 us, aging 2 ms).
 *
 * The flowlet table is the worker's (aif_lb_state.flowlet), direct-mapped:
 * flowlet_table_size entries (a power of two <= AIF_FLOWLET_MAX), entry
 * hash & (size - 1), key hash | 1 (0 marks an empty entry), plus the group
 * index, so one flow hash routed through two groups is two flows.
 *
 * For a packet of flow k at now_ns, entry e:
 *   e is k's (key and group match) and
 *     now - e.last < gap               same flowlet: keep e.member (unless
 *                                      e.member >= g->n: the group shrank
 *                                      under a new table; then as below);
 *     gap <= now - e.last < aging      new flowlet of a known flow: pick;
 *                                      reselections[new] += (new != e.member);
 *   e is empty, or any e with now - e.last >= aging: free, a new flow: pick;
 *   e is another live flow's (key or group differ, now - e.last < aging):
 *                                      a collision: flowlet_collisions += 1,
 *                                      k takes the entry over and picks.
 * Taking over is what LetFlow does: the evicted flow loses its history and
 * picks again on its next packet (it may move while its flowlet is still
 * open, i.e. may reorder); the alternative, leaving it the entry, would put
 * k on a member chosen for another flow and let k never move.  The
 * collision counter says how often the table is too small.
 * Every pick counts flowlet_starts[ctr_slot of the picked member].
 * Time is unsigned: a last_ns after now_ns (never, with one clock) counts as
 * a gap.
 *
 * Reads:  pkt->hash; ctx now_ns, rng (random picks), port_qbytes
 *         (least_loaded), params flowlet_gap_ns, flowlet_age_ns,
 *         flowlet_table_size, flowlet_mode.
 * Writes: aif_lb_state.flowlet[], flowlet_starts, reselections,
 *         flowlet_collisions.
 * Random draws: random mode one aif_rng_below(n) per new flowlet;
 * least_loaded one aif_rng_below(k) at the k-th tied minimum (k >= 2).
 */
#include "lb.h"

/* LetFlow: uniformly random. */
static uint32_t
pick_random(const struct aif_group *g, const struct aif_member *members,
	    const struct aif_pkt *m, struct aif_lb_ctx *x)
{
	(void)members;
	(void)m;
	return aif_rng_below(x->rng, g->n);
}

/* Fewest bytes queued on the member's port; ties uniformly at random
 * (reservoir sampling: the k-th tie replaces the choice with prob. 1/k). */
static uint32_t
pick_least_loaded(const struct aif_group *g, const struct aif_member *members,
		  const struct aif_pkt *m, struct aif_lb_ctx *x)
{
	const uint32_t *qb = x->port_qbytes;
	uint32_t best = 0, best_q, ties = 1;

	(void)m;
	if (qb == NULL)
		return aif_rng_below(x->rng, g->n);
	best_q = qb[members[0].port];
	for (uint32_t i = 1; i < g->n; i++) {
		uint32_t q = qb[members[i].port];
		if (q < best_q) {
			best = i;
			best_q = q;
			ties = 1;
		} else if (q == best_q && aif_rng_below(x->rng, ++ties) == 0) {
			best = i;
		}
	}
	return best;
}

uint32_t
aif_lb_flowlet_track(const struct aif_group *g, const struct aif_member *members,
		     const struct aif_pkt *m, struct aif_lb_ctx *x,
		     aif_lb_pick_fn pick)
{
	struct aif_lb_state *st = x->st;
	const struct aif_lb_params *p = x->p;
	/* a size that is not a power of two <= the maximum still stays inside
	 * the table (0 uses all of it) */
	uint32_t idx = m->hash & (p->flowlet_table_size - 1) & (AIF_FLOWLET_MAX - 1);
	struct aif_flowlet_entry *e = &st->flowlet[idx];
	uint32_t key = m->hash | 1;
	aif_time_ns now = x->now_ns;
	aif_time_ns idle = now - e->last_ns;
	bool mine = e->key == key && e->group == x->group;
	uint32_t pick_off;

	/* (a member past g->n: the group shrank under a new table) */
	if (mine && idle < p->flowlet_gap_ns && e->member < g->n) {
		e->last_ns = now;
		return e->member;
	}
	pick_off = pick(g, members, m, x);
	if (mine && idle < p->flowlet_age_ns) {
		if (pick_off != e->member)
			st->reselections[members[pick_off].ctr_slot]++;
	} else if (!mine && e->key != 0 && idle < p->flowlet_age_ns) {
		st->flowlet_collisions++;
	}
	st->flowlet_starts[members[pick_off].ctr_slot]++;
	e->key = key;
	e->group = x->group;
	e->member = (uint8_t)pick_off;
	e->last_ns = now;
	return pick_off;
}

uint32_t
aif_lb_flowlet_select(const struct aif_group *g, const struct aif_member *members,
		      const uint8_t *buckets, const struct aif_pkt *m,
		      struct aif_lb_ctx *x)
{
	(void)buckets;
	return aif_lb_flowlet_track(g, members, m, x,
				    x->p->flowlet_mode == AIF_FLOWLET_LEAST_LOADED ?
				    pick_least_loaded : pick_random);
}
