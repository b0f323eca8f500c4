/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: load balancing, and the seam every scheme plugs into.
 *
 * A scheme is one function that picks a member of a next-hop group for one
 * packet.  It is given the group, its members, the packet metadata (with
 * pkt->hash already computed), the worker (its random source and state) and
 * now_ns.  Adding a scheme is one file in pipelines/ plus one line in
 * aif_lb_schemes (lb.c).
 *
 * Reads:  pkt->hash; the group.   Writes: nothing (returns a member offset).
 */
#ifndef AIF_LB_H
#define AIF_LB_H

#include <stdint.h>

#include "../dataplane/pkt.h"
#include "../dataplane/tables.h"
#include "../dataplane/types.h"

struct aif_worker;

/* Returns the member offset in [0, g->n). */
typedef uint32_t (*aif_lb_select_fn)(const struct aif_group *g,
				     const struct aif_member *members,
				     const struct aif_pkt *m,
				     struct aif_worker *w, aif_time_ns now_ns);

struct aif_lb_scheme_ops {
	const char *name;       /* as in the policy file */
	aif_lb_select_fn select;
};

/* Indexed by enum aif_lb_scheme. */
extern const struct aif_lb_scheme_ops aif_lb_schemes[];
extern const unsigned aif_lb_n_schemes;

/* ECMP: hash -> member, multiply-shift onto [0, n) (no modulo bias worth the name). */
static inline uint32_t
aif_lb_ecmp_pick(uint32_t hash, uint32_t n)
{
	return (uint32_t)(((uint64_t)hash * n) >> 32);
}

uint32_t aif_lb_ecmp_select(const struct aif_group *g,
			    const struct aif_member *members,
			    const struct aif_pkt *m, struct aif_worker *w,
			    aif_time_ns now_ns);

#endif /* AIF_LB_H */
