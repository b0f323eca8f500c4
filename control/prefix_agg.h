/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes to many subnets as few prefixes, exactly: two sibling prefixes
 * (the halves of one prefix a bit shorter) that go the same way become
 * their parent, again and again.  A prefix made so covers exactly the
 * subnets merged into it, no address more (no route where there was none),
 * so a longest-prefix match gives every address the way it had.  What the
 * generators' routes are made with (topology.c, reroute.c): a k=28
 * fat-tree's core switch reaches 5,488 host /24s through 84 prefixes.
 *
 *	struct aif_prefix_way r[n];     // r[i].pf, r[i].way (a group), r[i].first = i
 *	n = aif_prefix_aggregate(r, n); // r[0..n): by address, each its way
 */
#ifndef AIF_PREFIX_AGG_H
#define AIF_PREFIX_AGG_H

#include <stdint.h>

#include "../dataplane/types.h"

struct aif_prefix_way {
	struct aif_prefix pf; /* normalised (host bits zero) */
	uint32_t way;         /* where it goes (a group): only equal ways merge */
	uint32_t first;       /* the caller's; a merged prefix keeps its lower half's */
};

/* Sorts r[0..n) by address (then length) and merges siblings of the same
 * way in place; returns how many are left, by address.  Prefixes of
 * different families, or one inside another, never merge with each other;
 * duplicates stay duplicates. */
uint32_t aif_prefix_aggregate(struct aif_prefix_way *r, uint32_t n);

#endif /* AIF_PREFIX_AGG_H */
