/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The busy QPs' min trees and the choice of the next (rhost_busy.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rhost_busy.h"

/* Up to this many busy places a scan of the leaves beats the search */
#define BUSY_SCAN_MAX 8

/* t (2 * cap nodes) with the leaves of old (2 * ocap nodes), the rest never. */
static void
tree_fill(uint64_t *t, uint32_t cap, const uint64_t *old, uint32_t ocap)
{
	memset(t, 0xff, sizeof(*t) * 2 * cap);
	if (ocap)
		memcpy(t + cap, old + ocap, sizeof(*t) * ocap);
	for (uint32_t v = cap - 1; v >= 1; v--)
		t[v] = RTE_MIN(t[2 * v], t[2 * v + 1]);
}

int
rhost_busy_reserve(struct rhost_busy *b, uint32_t cap)
{
	cap = rte_align32pow2(cap ? cap : 1);
	if (cap <= b->cap)
		return 0;
	uint64_t *ready = malloc(sizeof(*ready) * 2 * cap);
	aif_time_ns *rto = malloc(sizeof(*rto) * 2 * cap);
	if (ready == NULL || rto == NULL) {
		free(ready);
		free(rto);
		return -1;
	}
	tree_fill(ready, cap, b->ready, b->cap);
	tree_fill(rto, cap, b->rto, b->cap);
	free(b->ready);
	free(b->rto);
	b->ready = ready;
	b->rto = rto;
	b->cap = cap;
	return 0;
}

void
rhost_busy_free(struct rhost_busy *b)
{
	free(b->ready);
	free(b->rto);
	memset(b, 0, sizeof(*b));
}

/* The first leaf at or after place from whose time is at or before x (up
 * to the cap: past the busy places too), UINT32_MAX: none.  Up from the
 * leaf to the first subtree on its right that holds one, then down to
 * that subtree's first. */
static uint32_t
first_at_or_before(const uint64_t *t, uint32_t cap, uint32_t from, uint64_t x)
{
	uint32_t v = cap + from;

	while (t[v] > x) {
		while (v & 1) /* a right child: its parent's right ends where it does */
			v >>= 1;
		if (v == 0)
			return UINT32_MAX; /* up past the root: none to the right */
		v++;
	}
	while (v < cap) {
		v *= 2;
		if (t[v] > x)
			v++;
	}
	return v - cap;
}

uint32_t
rhost_busy_next(const struct rhost_busy *b, uint32_t n, uint32_t from, uint64_t floor_ps,
		uint64_t *ready_ps)
{
	if (n == 0 || b->ready[1] == UINT64_MAX)
		return UINT32_MAX;
	uint64_t best = b->ready[1];
	uint64_t x = RTE_MAX(floor_ps, best);
	*ready_ps = best;
	if (n <= BUSY_SCAN_MAX) {
		const uint64_t *leaf = b->ready + b->cap;
		for (uint32_t k = 0, i = from; k < n; k++, i = i + 1 == n ? 0 : i + 1)
			if (leaf[i] <= x)
				return i;
	}
	uint32_t i = first_at_or_before(b->ready, b->cap, from, x);
	if (i >= n) /* none from there to the last busy place: round to the first */
		i = first_at_or_before(b->ready, b->cap, 0, x);
	return i;
}

uint32_t
rhost_busy_first_rto(const struct rhost_busy *b, uint32_t n, aif_time_ns *rto_ns)
{
	(void)n; /* the places past the busy ones are never: the first is below n */
	*rto_ns = b->rto[1];
	return first_at_or_before(b->rto, b->cap, 0, b->rto[1]);
}
