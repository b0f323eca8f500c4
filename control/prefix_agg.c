/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sibling prefixes of one way merged (prefix_agg.h): by address, a stack
 * whose top two merge while they are siblings; a subnet can only merge
 * with what is next to it, so one pass does it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prefix_agg.h"

static int
cmp_way(const void *x, const void *y)
{
	return aif_prefix_cmp(&((const struct aif_prefix_way *)x)->pf,
		      &((const struct aif_prefix_way *)y)->pf);
}

/* lo and hi the two halves of one prefix, lo the lower, of one way? */
static bool
siblings(const struct aif_prefix_way *lo, const struct aif_prefix_way *hi)
{
	unsigned bits = lo->pf.addr.family == AIF_AF_INET4 ? 32 : 128, l = lo->pf.len;

	if (lo->way != hi->way || lo->pf.addr.family != hi->pf.addr.family ||
	    l != hi->pf.len || l == 0 || l > bits)
		return false;
	uint8_t bit = (uint8_t)(0x80u >> ((l - 1) % 8));
	if (lo->pf.addr.b[(l - 1) / 8] & bit)
		return false; /* lo is an upper half */
	struct aif_ip up = lo->pf.addr;
	up.b[(l - 1) / 8] |= bit;
	return memcmp(up.b, hi->pf.addr.b, sizeof(up.b)) == 0;
}

uint32_t
aif_prefix_aggregate(struct aif_prefix_way *r, uint32_t n)
{
	uint32_t top = 0; /* r[0..top): the merged so far */

	for (uint32_t i = 1; i < n; i++)
		if (aif_prefix_cmp(&r[i - 1].pf, &r[i].pf) > 0) {
			qsort(r, n, sizeof(*r), cmp_way);
			break;
		}
	for (uint32_t i = 0; i < n; i++) {
		r[top++] = r[i];
		while (top >= 2 && siblings(&r[top - 2], &r[top - 1])) {
			r[top - 2].pf.len--; /* the lower half's address is the parent's */
			top--;
		}
	}
	return top;
}
