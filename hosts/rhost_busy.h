/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host's busy QPs (rhost_int.h), by their place in busy[]:
 * when each may send its next data frame (ps) and its retransmit timeout
 * (ns), and which of them goes next, in O(log n) rather than a scan of all.
 *
 * Two min trees over the places, one for each time, in one array each:
 * node 1 the root, node v's children 2v and 2v + 1, place i's leaf at
 * cap + i; leaves past the busy ones hold UINT64_MAX (never).  Setting a
 * place walks up until a node's minimum stays as it was.  A few busy
 * places (BUSY_SCAN_MAX) are scanned instead of searched.
 *
 * The choice is the one a scan of busy[] in round-robin order (from rr)
 * makes, ties included, which the results depend on:
 *   data:    the first place, from rr round, whose time is at or before the
 *            floor (the wire's and the clock's), else the first whose time is
 *            the earliest; that is the first whose time is at or before
 *            max(floor, earliest);
 *   timeout: the earliest, the lowest place among equals.
 *
 *	rhost_busy_set(&b, pos, ready_ps, rto_ns);   // after any change
 *	uint32_t i = rhost_busy_next(&b, n_busy, rr % n_busy, floor_ps, &ready_ps);
 */
#ifndef AIF_RHOST_BUSY_H
#define AIF_RHOST_BUSY_H

#include <stdint.h>

#include "../dataplane/types.h"

struct rhost_busy {
	uint64_t *ready;         /* 2 * cap: the data frames' min tree, ps */
	aif_time_ns *rto;        /* 2 * cap: the timeouts' */
	uint32_t cap;            /* leaves: 0, or a power of two */
};

/* Room for cap places (rounded up to a power of two); the places kept.
 * 0, or -1 (out of memory) with b as it was. */
int rhost_busy_reserve(struct rhost_busy *b, uint32_t cap);

void rhost_busy_free(struct rhost_busy *b);

static inline void
rhost_busy_up(uint64_t *t, uint32_t v, uint64_t x)
{
	t[v] = x;
	for (v >>= 1; v != 0; v >>= 1) {
		uint64_t l = t[2 * v], r = t[2 * v + 1], m = l < r ? l : r;
		if (t[v] == m)
			break;
		t[v] = m;
	}
}

/* Place pos (under cap) may send at ready_ps and times out at rto_ns
 * (UINT64_MAX: never, as a place no QP holds). */
static inline void
rhost_busy_set(struct rhost_busy *b, uint32_t pos, uint64_t ready_ps, aif_time_ns rto_ns)
{
	if (b->ready[b->cap + pos] != ready_ps)
		rhost_busy_up(b->ready, b->cap + pos, ready_ps);
	if (b->rto[b->cap + pos] != rto_ns)
		rhost_busy_up(b->rto, b->cap + pos, rto_ns);
}

static inline uint64_t
rhost_busy_ready(const struct rhost_busy *b, uint32_t pos)
{
	return b->ready[b->cap + pos];
}

static inline aif_time_ns
rhost_busy_rto(const struct rhost_busy *b, uint32_t pos)
{
	return b->rto[b->cap + pos];
}

/* The place whose data frame goes next among the n busy ones, round robin
 * from place from (under n), with the wire and clock's floor_ps: its time
 * in *ready_ps; UINT32_MAX when none has one (every time UINT64_MAX). */
uint32_t rhost_busy_next(const struct rhost_busy *b, uint32_t n, uint32_t from,
			 uint64_t floor_ps, uint64_t *ready_ps);

/* The earliest timeout (AIF_TIME_NS_NEVER: none, or no place busy). */
static inline aif_time_ns
rhost_busy_min_rto(const struct rhost_busy *b)
{
	return b->cap ? b->rto[1] : AIF_TIME_NS_NEVER;
}

/* The earliest timeout among the n busy places (n at least 1), in *rto_ns,
 * and its place: the lowest among equals (AIF_TIME_NS_NEVER: place 0). */
uint32_t rhost_busy_first_rto(const struct rhost_busy *b, uint32_t n, aif_time_ns *rto_ns);

#endif
