/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A min tree over n times (a switch's ports, a runner's switches): the
 * earliest, the lowest slot holding it, and (n up to 64) every slot due by
 * a time, without a scan of all.  A primitive.
 *
 * One array: node 1 the root, node v's children 2v and 2v + 1, slot i's
 * leaf at cap + i; slots past n hold AIF_TIME_NS_NEVER.  Setting a slot
 * walks up until a node's minimum stays as it was: O(log n), most often a
 * level or two.  The due slots are found by a descent that enters only
 * subtrees whose minimum is due: O(k log n) for k of them.
 *
 *	if (aif_mintree_init(&m, n_ports, 0) != 0) ... out of memory
 *	aif_mintree_set(&m, p, next_ns);
 *	aif_time_ns first = aif_mintree_min(&m);
 *	uint64_t due = aif_mintree_due(&m, now_ns);   // bit i: slot i <= now_ns
 *	aif_mintree_free(&m);
 */
#ifndef AIF_MINTREE_H
#define AIF_MINTREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "types.h"

#define AIF_MINTREE_DUE_MAX 64 /* slots aif_mintree_due can say */

struct aif_mintree {
	aif_time_ns *t;            /* [2 * cap] */
	uint32_t cap;              /* leaves: a power of two, at least n */
};

/* n slots (at least one), each at time v (a tree there already is freed).
 * 0, or -1 out of memory (then m holds no tree). */
static inline int
aif_mintree_init(struct aif_mintree *m, unsigned n, aif_time_ns v)
{
	free(m->t);
	m->cap = 2; /* (a root above the leaves, even for one) */
	while (m->cap < n)
		m->cap *= 2;
	m->t = malloc(2 * (size_t)m->cap * sizeof(*m->t));
	if (m->t == NULL) {
		m->cap = 0;
		return -1;
	}
	for (uint32_t i = 0; i < m->cap; i++)
		m->t[m->cap + i] = i < n ? v : AIF_TIME_NS_NEVER;
	for (uint32_t x = m->cap - 1; x >= 1; x--)
		m->t[x] = m->t[2 * x] < m->t[2 * x + 1] ? m->t[2 * x] : m->t[2 * x + 1];
	m->t[0] = AIF_TIME_NS_NEVER; /* (unused) */
	return 0;
}

static inline void
aif_mintree_free(struct aif_mintree *m)
{
	free(m->t);
	m->t = NULL;
	m->cap = 0;
}

static inline aif_time_ns
aif_mintree_get(const struct aif_mintree *m, unsigned i)
{
	return m->t[m->cap + i];
}

static inline void
aif_mintree_set(struct aif_mintree *m, unsigned i, aif_time_ns v)
{
	uint32_t x = m->cap + i;

	if (m->t[x] == v)
		return;
	m->t[x] = v;
	for (x >>= 1; x != 0; x >>= 1) {
		aif_time_ns l = m->t[2 * x], r = m->t[2 * x + 1], lo = l < r ? l : r;
		if (m->t[x] == lo)
			break;
		m->t[x] = lo;
	}
}

static inline aif_time_ns
aif_mintree_min(const struct aif_mintree *m)
{
	return m->t[1];
}

/* The lowest slot holding the minimum (what a scan keeping the first of
 * equals finds). */
static inline unsigned
aif_mintree_argmin(const struct aif_mintree *m)
{
	uint32_t x = 1;

	while (x < m->cap)
		x = m->t[2 * x] <= m->t[2 * x + 1] ? 2 * x : 2 * x + 1;
	return x - m->cap;
}

/* Bit i set for every slot i at or before now (a tree of at most
 * AIF_MINTREE_DUE_MAX slots). */
static inline uint64_t
aif_mintree_due(const struct aif_mintree *m, aif_time_ns now)
{
	uint32_t stack[16], sp = 0, x = 1;
	uint64_t due = 0;

	if (m->t[1] > now)
		return 0;
	for (;;) {
		/* x is due, so one of its children is at least: down to a due
		 * leaf, keeping the right child where both are (one a level) */
		while (x < m->cap) {
			bool l = m->t[2 * x] <= now, r = m->t[2 * x + 1] <= now;
			if (l && r)
				stack[sp++] = 2 * x + 1;
			x = l ? 2 * x : 2 * x + 1;
		}
		due |= 1ull << (x - m->cap);
		if (sp == 0)
			return due;
		x = stack[--sp];
	}
}

#endif /* AIF_MINTREE_H */
