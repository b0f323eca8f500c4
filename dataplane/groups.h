/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Groups of n things (switches, a runner's drives): a union-find over
 * up[0..n), each group's root its lowest member, and the groups numbered
 * in the order of their lowest member.  A primitive: the partition's
 * groups of switches (control/partition.h) and a runner's groups of
 * drives (runner.h: its windows) are the same structure.
 *
 *	for (uint16_t i = 0; i < n; i++) up[i] = i;
 *	aif_groups_join(up, a, b);                     // a and b together
 *	uint16_t k = aif_groups_number(up, n, num);    // num[i]: i's group, k groups
 */
#ifndef AIF_GROUPS_H
#define AIF_GROUPS_H

#include <stdint.h>

/* x's root (halving the path as it goes). */
static inline uint16_t
aif_groups_find(uint16_t *up, uint16_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

/* a's and b's groups joined; the lower root stays a root. */
static inline void
aif_groups_join(uint16_t *up, uint16_t a, uint16_t b)
{
	a = aif_groups_find(up, a);
	b = aif_groups_find(up, b);
	if (a < b)
		up[b] = a;
	else if (b < a)
		up[a] = b;
}

/* The groups of up[0..n) numbered in the order of their lowest member,
 * into num[] (another array than up); how many. */
static inline uint16_t
aif_groups_number(uint16_t *up, uint16_t n, uint16_t *num)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		/* a root is its group's lowest member: numbered before the rest */
		uint16_t root = aif_groups_find(up, i);
		num[i] = root == i ? k++ : num[root];
	}
	return k;
}

#endif /* AIF_GROUPS_H */
