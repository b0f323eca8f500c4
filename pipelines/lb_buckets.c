/* SPDX-License-Identifier: BSD-3-Clause */
/* Bucket tables for ECMP/WCMP (contract in lb_buckets.h). */
#include <string.h>

#include "lb_buckets.h"

int
aif_lb_buckets_build(uint8_t *out, uint32_t n_buckets, uint16_t n,
		     const uint32_t *weights, const bool *up,
		     const uint8_t *prev, uint32_t prev_n)
{
	uint64_t total = 0, want[64], have[64] = { 0 }, acc = 0;
	uint16_t k;

	for (k = 0; k < n; k++)
		total += (up == NULL || up[k]) ? (weights ? weights[k] : 1) : 0;
	if (total == 0) {
		memset(out, 0, n_buckets);
		return -1;
	}
	/* largest-remainder shares of the buckets */
	for (k = 0; k < n; k++) {
		uint64_t w = (up == NULL || up[k]) ? (weights ? weights[k] : 1) : 0;
		want[k] = w * n_buckets / total;
		acc += want[k];
	}
	for (k = 0; acc < n_buckets; k = (uint16_t)((k + 1) % n))
		if (up == NULL || up[k]) {
			want[k]++;
			acc++;
		}
	/* keep what can be kept */
	uint32_t i;
	for (i = 0; i < n_buckets; i++) {
		out[i] = 0xFF;
		if (prev != NULL && prev_n == n_buckets && prev[i] < n &&
		    have[prev[i]] < want[prev[i]]) {
			out[i] = prev[i];
			have[prev[i]]++;
		}
	}
	/* hand the rest out round robin, so members interleave */
	k = 0;
	for (i = 0; i < n_buckets; i++) {
		if (out[i] != 0xFF)
			continue;
		while (have[k] >= want[k])
			k = (uint16_t)((k + 1) % n);
		out[i] = (uint8_t)k;
		have[k]++;
		k = (uint16_t)((k + 1) % n);
	}
	return 0;
}
