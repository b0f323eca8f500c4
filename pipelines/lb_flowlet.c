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
 * aif_lb_flowlet_index(hash, group): the hash's low bits with the group
 * index mixed in, so one flow hash routed through two groups is two flows
 * on two entries.  An entry holds ONE flowlet: the member it is on, the
 * flow that started it (owner: key hash | 1, 0 marks an empty entry, and
 * the group) and the time of the last packet of ANY flow on it.
 *
 * For a packet of flow k (group g) at now_ns, entry e, idle = now - e.last
 * ("gap_test": "le", the default, as ConWeave's ns-3 letflow-routing.cc,
 * reads idle <= gap where "idle < gap" stands below; "lt" as written):
 *   e is not empty, idle < gap         an open flowlet: k is on it, whether
 *                                      it is k's own or another flow's
 *                                      (key or group differ): member
 *                                      e.member (mod g->n, below);
 *                                      e.last = now;
 *   otherwise (empty, or idle >= gap)  a new flowlet: pick; k owns e;
 *     k was the owner, idle < aging    reselections[new] += (new != e.member)
 *                                      (a known flow after a gap);
 *     else                             a new flow (or the previous owner's
 *                                      history is lost: no reselection).
 * Every pick counts flowlet_starts[ctr_slot of the picked member].
 *
 * Sharing, not taking over.  Two flows on one entry share its flowlet: the
 * newcomer rides on the incumbent's member.  Every packet of every flow on
 * the entry refreshes e.last, so e's idle time is never longer than any of
 * its flows' own idle time, and e.member changes (a pick) only when idle >=
 * gap: when EVERY flow that used the entry has been silent for a gap.  A flow
 * whose previous packet is less than gap_ns old therefore finds the same
 * e.member it left: no flow moves inside its flowlet, whoever else hashes
 * to its entry.  (Taking the entry over, as LetFlow does, re-picks the
 * evicted flow on its next packet, inside its flowlet: reordering that a
 * RoCE receiver pays for with go-back-N, on almost every packet when two
 * busy flows alternate.)  The price: flows sharing an entry move together,
 * only after a gap common to all of them; flowlet_collisions says how often
 * that happens, i.e. how much the table is too small.
 *
 * A member whose link went down (the tables are rebuilt on a link change;
 * struct aif_group up_mask) ends the flowlet at once: its flows must move,
 * and the next packet picks among the members that are up, as every pick
 * does.
 *
 * e.member >= g->n: the group shrank under a new table, or k is a flow of
 * a smaller group than the owner's that hashed to the same entry: k
 * takes e.member % g->n.  That is a function of e.member alone, which does
 * not change inside the flowlet, so k does not move again before its gap;
 * it needs no write, so it cannot move the entry's other flows either (a
 * re-pick stored in e.member would move the owner's flows in their group).
 *
 * Collisions count flows, not packets: a flow that is not the owner and
 * whose guest bit (1 << (hash >> 29)) is not yet set in e.guests counts
 * flowlet_collisions[ctr_slot of the shared member] += 1 and sets it; a
 * new flowlet clears e.guests.  So each flow counts once per flowlet it
 * shares; two guests of one flowlet with the same top three hash bits count
 * once (the counter is a lower bound).
 *
 * Table "exact" ("table": "exact", the default: ConWeave's ns-3 keeps a map
 * with one entry per QP, key (dip, sport, dport, pg), and every 2 ms
 * removes the entries idle for over 2 ms): one entry per flow, found by
 * open addressing.  A flow's entry is the first of the AIF_FLOWLET_PROBES
 * entries from aif_lb_flowlet_index(hash, group) on (wrapping in
 * flowlet_table_size) whose key, group and tag (aif_lb_flow_tag, a second
 * hash of addresses, protocol, ports and destination QP) are the flow's;
 * the search stops at an empty entry (entries are never emptied, only
 * reused, so none lies past it).  A flow not found takes, in that order,
 * the first entry of the window that is empty or idle longer than
 * flowlet_age_ns (ns-3's aging, done when the entry is needed), else the
 * one idle longest if that is longer than the gap (its flowlet has ended:
 * nothing moves), and starts a flowlet there.  When every entry of the
 * window holds an open flowlet the table is full for that flow: it goes by
 * its hash (member hash * n >> 32 of those up, so it does not move while
 * that lasts), counted in flowlet_untracked per packet.  Such a flow may
 * find room before its own gap: so while any flow went by its hash less than
 * a gap ago, a flow that starts an entry starts it on its hash's member, not
 * on pick()'s (it may have been one of them; a new flow loses nothing by
 * it but the draw).  No flow ever
 * shares another's flowlet, so flowlet_collisions stays 0; per packet the
 * tag (five multiplies) and usually one entry read.
 *
 * Time is unsigned: a last_ns after now_ns (never, with one clock) counts as
 * a gap.  Per packet of an open flowlet: the group mix (a multiply and an
 * xor), the gap and empty-entry compares, the owner compare; no writes but
 * last_ns (and the guest bit, once per guest).
 *
 * Reads:  pkt->hash; ctx now_ns, group, rng (random picks), port_qbytes
 *         (least_loaded), params flowlet_gap_ns, flowlet_age_ns,
 *         flowlet_table_size, flowlet_mode.
 * Writes: aif_lb_state.flowlet[], flowlet_starts, reselections,
 *         flowlet_collisions.
 * Random draws: random mode one aif_rng_below(n) per new flowlet;
 * least_loaded one aif_rng_below(k) at the k-th tied minimum (k >= 2).
 */
#include <rte_branch_prediction.h>
#include <rte_malloc.h>

#include "lb.h"

/* LetFlow: uniformly random. */
static uint32_t
pick_random(const struct aif_group *g, const struct aif_member *members,
	    const struct aif_pkt *m, struct aif_lb_ctx *x)
{
	(void)members;
	(void)m;
	return aif_lb_up_at(g, aif_rng_below(x->rng, aif_lb_up_n(g)));
}

/* Fewest bytes queued on the member's port; ties uniformly at random
 * (reservoir sampling: the k-th tie replaces the choice with prob. 1/k). */
static uint32_t
pick_least_loaded(const struct aif_group *g, const struct aif_member *members,
		  const struct aif_pkt *m, struct aif_lb_ctx *x)
{
	const uint32_t *qb = x->port_qbytes;
	uint32_t n = aif_lb_up_n(g), best = aif_lb_up_at(g, 0), best_q, ties = 1;

	(void)m;
	if (qb == NULL)
		return aif_lb_up_at(g, aif_rng_below(x->rng, n));
	best_q = qb[members[best].port];
	for (uint32_t i = 1; i < n; i++) {
		uint32_t k = aif_lb_up_at(g, i);
		uint32_t q = qb[members[k].port];
		if (q < best_q) {
			best = k;
			best_q = q;
			ties = 1;
		} else if (q == best_q && aif_rng_below(x->rng, ++ties) == 0) {
			best = k;
		}
	}
	return best;
}

/* Table "exact": the flow's entry, or where it may start one (*found
 * false); NULL when the window is full of open flowlets. */
static struct aif_flowlet_entry *
exact_entry(struct aif_lb_state *st, const struct aif_lb_params *p, uint32_t key,
	    uint32_t tag, uint16_t group, uint32_t home, aif_time_ns now, bool *found)
{
	uint32_t mask = (p->flowlet_table_size - 1) & (AIF_FLOWLET_MAX - 1);
	struct aif_flowlet_entry *room = NULL, *oldest = NULL;

	*found = false;
	for (uint32_t k = 0, i = home; k < AIF_FLOWLET_PROBES; k++, i = (i + 1) & mask) {
		struct aif_flowlet_entry *e = &st->flowlet[i];
		if (e->key == 0)
			return room != NULL ? room : e; /* the flow is not further on */
		if (e->key == key && e->tag == tag && e->group == group) {
			*found = true;
			return e;
		}
		if (room == NULL && now - e->last_ns > p->flowlet_age_ns)
			room = e;
		else if (oldest == NULL || e->last_ns < oldest->last_ns)
			oldest = e;
	}
	if (room != NULL)
		return room;
	bool ended = p->flowlet_gap_le ? now - oldest->last_ns > p->flowlet_gap_ns
				       : now - oldest->last_ns >= p->flowlet_gap_ns;
	return ended ? oldest : NULL;
}

static uint32_t
track_exact(const struct aif_group *g, const struct aif_member *members,
	    const struct aif_pkt *m, struct aif_lb_ctx *x, aif_lb_pick_fn pick)
{
	struct aif_lb_state *st = x->st;
	const struct aif_lb_params *p = x->p;
	aif_time_ns now = x->now_ns;
	uint32_t key = m->hash | 1, tag = aif_lb_flow_tag(m), off;
	bool found;
	struct aif_flowlet_entry *e = exact_entry(st, p, key, tag, x->group,
		aif_lb_flowlet_index(m->hash, x->group, p->flowlet_table_size), now, &found);

	if (unlikely(e == NULL)) {
		off = aif_lb_up_at(g, aif_lb_ecmp_pick(m->hash, aif_lb_up_n(g)));
		st->flowlet_untracked[members[off].ctr_slot]++;
		st->untracked_ns = now + 1;
		return off;
	}
	aif_time_ns idle = now - e->last_ns;
	if (found) {
		off = e->member;
		if (off >= g->n) /* the group shrank under a new table */
			off %= g->n;
		bool open = p->flowlet_gap_le ? idle <= p->flowlet_gap_ns
					      : idle < p->flowlet_gap_ns;
		if (open && aif_lb_member_up(g, off)) {
			e->last_ns = now;
			return off;
		}
	}
	if (unlikely(!found && st->untracked_ns != 0 && now + 1 - st->untracked_ns <= p->flowlet_gap_ns))
		off = aif_lb_up_at(g, aif_lb_ecmp_pick(m->hash, aif_lb_up_n(g)));
	else
		off = pick(g, members, m, x);
	if (found && idle < p->flowlet_age_ns && off != e->member)
		st->reselections[members[off].ctr_slot]++;
	st->flowlet_starts[members[off].ctr_slot]++;
	e->key = key;
	e->tag = tag;
	e->group = x->group;
	e->member = (uint8_t)off;
	e->guests = 0;
	e->last_ns = now;
	return off;
}

uint32_t
aif_lb_flowlet_track(const struct aif_group *g, const struct aif_member *members,
		     const struct aif_pkt *m, struct aif_lb_ctx *x,
		     aif_lb_pick_fn pick)
{
	if (x->p->flowlet_table == AIF_FLOWLET_TABLE_EXACT)
		return track_exact(g, members, m, x, pick);

	struct aif_lb_state *st = x->st;
	const struct aif_lb_params *p = x->p;
	struct aif_flowlet_entry *e =
		&st->flowlet[aif_lb_flowlet_index(m->hash, x->group, p->flowlet_table_size)];
	uint32_t key = m->hash | 1;
	aif_time_ns now = x->now_ns;
	aif_time_ns idle = now - e->last_ns;
	bool mine = e->key == key && e->group == x->group;
	uint32_t off;

	/* an open flowlet (an empty entry's last_ns means nothing) on a member
	 * that is still up */
	off = e->member;
	if (off >= g->n) /* the group shrank, or is not the owner's */
		off %= g->n;
	/* ns-3's LetFlow keeps the path at exactly the gap ("gap_test": "le") */
	bool open = p->flowlet_gap_le ? idle <= p->flowlet_gap_ns : idle < p->flowlet_gap_ns;
	if (open && e->key != 0 && aif_lb_member_up(g, off)) {
		if (!mine) {
			uint8_t bit = (uint8_t)(1u << (m->hash >> 29));
			if (!(e->guests & bit)) {
				e->guests |= bit;
				st->flowlet_collisions[members[off].ctr_slot]++;
			}
		}
		e->last_ns = now;
		return off;
	}
	off = pick(g, members, m, x);
	if (mine && idle < p->flowlet_age_ns && off != e->member)
		st->reselections[members[off].ctr_slot]++;
	st->flowlet_starts[members[off].ctr_slot]++;
	e->key = key;
	e->group = x->group;
	e->member = (uint8_t)off;
	e->guests = 0;
	e->last_ns = now;
	return off;
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

int
aif_lb_flowlet_table(struct aif_lb_state *st)
{
	struct aif_flowlet_entry *f;

	if (st->flowlet != NULL)
		return 0;
	f = rte_zmalloc("aif_flowlet", AIF_FLOWLET_MAX * sizeof(*f), RTE_CACHE_LINE_SIZE);
	if (f == NULL)
		return -1;
	__atomic_store_n(&st->flowlet, f, __ATOMIC_RELEASE);
	return 0;
}

void
aif_lb_flowlet_table_free(struct aif_lb_state *st)
{
	rte_free(st->flowlet);
	st->flowlet = NULL;
}

bool
aif_lb_uses_flowlet(const struct aif_lb_params *p)
{
	for (unsigned tc = 0; tc < 8; tc++)
		if (p->scheme_by_tc[tc] == AIF_LB_FLOWLET ||
		    (p->scheme_by_tc[tc] == AIF_LB_ADAPTIVE &&
		     p->adaptive_mode == AIF_ADAPTIVE_FLOWLET))
			return true;
	return false;
}
