/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A min tree over up to 64 times (a switch's ports, a runner's switches):
 * the earliest, the lowest slot holding it, and every slot due by a time,
 * without a scan of all.  A primitive.
 *
 * One array: node 1 the root, node v's children 2v and 2v + 1, slot i's
 * leaf at cap + i; slots past n hold AIF_TIME_NS_NEVER.  Setting a slot
 * walks up until a node's minimum stays as it was: O(log n), most often a
 * level or two.  The due slots are found by a descent that enters only
 * subtrees whose minimum is due: O(k log n) for k of them.
 *
 *	aif_mintree_init(&m, n_ports, 0);
 *	aif_mintree_set(&m, p, next_ns);
 *	aif_time_ns first = aif_mintree_min(&m);
 *	uint64_t due = aif_mintree_due(&m, now_ns);   // bit i: slot i <= now_ns
 */
#ifndef AIF_MINTREE_H
#define AIF_MINTREE_H

#include <stdint.h>

#include "types.h"

#define AIF_MINTREE_MAX 64

struct aif_mintree {
	aif_time_ns t[2 * AIF_MINTREE_MAX];
	uint32_t cap;              /* leaves: a power of two, at least n */
};

/* n slots (1..64), each at time v. */
static inline void
aif_mintree_init(struct aif_mintree *m, unsigned n, aif_time_ns v)
{
	m->cap = 1;
	while (m->cap < n)
		m->cap *= 2;
	for (uint32_t i = 0; i < m->cap; i++)
		m->t[m->cap + i] = i < n ? v : AIF_TIME_NS_NEVER;
	for (uint32_t x = m->cap - 1; x >= 1; x--)
		m->t[x] = m->t[2 * x] < m->t[2 * x + 1] ? m->t[2 * x] : m->t[2 * x + 1];
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

/* Bit i set for every slot i at or before now. */
static inline uint64_t
aif_mintree_due(const struct aif_mintree *m, aif_time_ns now)
{
	uint32_t stack[16], sp = 0;
	uint64_t due = 0;

	if (m->t[1] > now)
		return 0;
	stack[sp++] = 1;
	while (sp) {
		uint32_t x = stack[--sp];
		if (x >= m->cap) {
			due |= 1ull << (x - m->cap);
			continue;
		}
		/* (depth first: the stack holds at most one node a level, plus one) */
		if (m->t[2 * x + 1] <= now)
			stack[sp++] = 2 * x + 1;
		if (m->t[2 * x] <= now)
			stack[sp++] = 2 * x;
	}
	return due;
}

#endif /* AIF_MINTREE_H */
