/* SPDX-License-Identifier: BSD-3-Clause */
/* Bucket tables for ECMP/WCMP (contract in lb_buckets.h). */
#include <string.h>

#include "lb_buckets.h"

#define NO_MEMBER 0xFF /* a bucket not assigned yet (offsets are < 64) */

/*
 * Largest-remainder counts: want[k] = floor(N * w[k] / total), then one more
 * for the extra members with the largest remainders; ties to the member
 * holding more buckets now (held), then to the lower offset.  O(n * n).
 */
static void
shares(uint32_t *want, const uint64_t *w, uint64_t total, uint32_t n_buckets,
       uint16_t n, const uint32_t *held)
{
	uint64_t rem[AIF_LB_BUCKETS_MAX_MEMBERS], given = 0;
	uint32_t acc = 0, extra;
	uint16_t k;

	for (k = 0; k < n; k++) {
		want[k] = (uint32_t)(w[k] * n_buckets / total);
		rem[k] = w[k] * n_buckets % total;
		acc += want[k];
	}
	/* sum(rem) = extra * total and each rem < total: extra < members with w > 0 */
	for (extra = n_buckets - acc; extra > 0; extra--) {
		int best = -1;
		for (k = 0; k < n; k++) {
			if (w[k] == 0 || ((given >> k) & 1))
				continue;
			if (best < 0 || rem[k] > rem[best] ||
			    (rem[k] == rem[best] && held[k] > held[best]))
				best = k;
		}
		want[best]++;
		given |= 1ull << best;
	}
}

int
aif_lb_buckets_build(uint8_t *out, uint32_t n_buckets, uint16_t n,
		     const uint32_t *weights, const bool *up,
		     const uint8_t *prev, uint32_t prev_n)
{
	uint64_t w[AIF_LB_BUCKETS_MAX_MEMBERS], total = 0;
	uint32_t want[AIF_LB_BUCKETS_MAX_MEMBERS], have[AIF_LB_BUCKETS_MAX_MEMBERS] = { 0 };
	uint32_t held[AIF_LB_BUCKETS_MAX_MEMBERS] = { 0 };
	uint8_t ring[AIF_LB_BUCKETS_MAX_MEMBERS];
	uint32_t i, n_ring = 0, pos = 0;
	uint16_t k;

	if (n == 0 || n > AIF_LB_BUCKETS_MAX_MEMBERS) {
		memset(out, 0, n_buckets);
		return -1;
	}
	for (k = 0; k < n; k++) {
		w[k] = (up == NULL || up[k]) ? (weights != NULL ? weights[k] : 1) : 0;
		total += w[k];
	}
	if (total == 0) {
		memset(out, 0, n_buckets);
		return -1;
	}
	if (prev != NULL && prev_n != n_buckets)
		prev = NULL;
	if (prev != NULL)
		for (i = 0; i < n_buckets; i++)
			if (prev[i] < n)
				held[prev[i]]++;
	shares(want, w, total, n_buckets, n, held);

	/* keep: a bucket stays with its member while that member is under its count */
	for (i = 0; i < n_buckets; i++) {
		uint8_t p = prev != NULL ? prev[i] : NO_MEMBER;

		if (p < n && have[p] < want[p]) {
			out[i] = p;
			have[p]++;
		} else {
			out[i] = NO_MEMBER;
		}
	}
	/* reassign: round robin over the members below their count, in offset order */
	for (k = 0; k < n; k++)
		if (have[k] < want[k])
			ring[n_ring++] = (uint8_t)k;
	for (i = 0; i < n_buckets; i++) {
		if (out[i] != NO_MEMBER)
			continue;
		k = ring[pos];
		out[i] = (uint8_t)k;
		if (++have[k] == want[k]) {
			/* full: drop it from the ring; pos now names the next one */
			n_ring--;
			memmove(&ring[pos], &ring[pos + 1], n_ring - pos);
		} else {
			pos++;
		}
		if (pos >= n_ring)
			pos = 0;
	}
	return 0;
}
