/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resilient bucket tables for ECMP and WCMP (built by control, read by the
 * workers through aif_lb_bucket_pick in lb.h: member = out[(hash * N) >> 32]).
 *
 * A group of n members gets N = n * buckets_per_member buckets, each naming
 * a member offset.  Members get buckets in proportion to their weights (all
 * equal for ECMP), members that are down get none, and when the previous
 * table of the same size is given, a bucket changes member only when its
 * member must lose buckets (it went down, or its share fell): only the flows
 * of those buckets move, and a member that comes back takes its share as
 * evenly as the shares allow from the others.
 *
 * Contract of aif_lb_buckets_build (N = n_buckets):
 *
 *   Eligible members.  Member k is eligible when it is up (up == NULL or
 *   up[k]) and its weight w_k (weights == NULL: 1) is not 0.  A weight of 0
 *   counts as down; the config accepts 1..65535 only, so compile never
 *   passes one.  W = sum of the eligible weights.
 *
 *   Shares (largest remainder, Hamilton).  Eligible member k gets
 *   q_k = floor(N * w_k / W) buckets, plus one for the N - sum(q_k) eligible
 *   members with the largest remainders (N * w_k) mod W; ties go first to
 *   the member holding more buckets in prev (so the fewest buckets move),
 *   then to the lower offset.  So every count is floor or ceil of its exact
 *   share N * w_k / W (|count_k / N - w_k / W| < 1 / N), the counts sum to
 *   N, and members that are not eligible get 0.  The counts depend on
 *   weights, up and (for ties only) prev, never on the hash.
 *
 *   Resilience.  prev is used when it is not NULL and prev_n == N; entries
 *   >= n count as no member.  Scanning prev in index order, bucket i keeps
 *   prev[i] when that member is eligible and has kept fewer buckets than its
 *   new count so far.  Hence exactly these buckets change member:
 *     - every bucket of a member that is no longer eligible, and
 *     - for an eligible member holding h_k > count_k buckets in prev, its
 *       last h_k - count_k buckets (in index order), and no others;
 *   a member whose count did not fall below what it held keeps all of its
 *   buckets, and the number moved, sum over k of max(0, h_k - count_k), is
 *   the least any table with these counts can move.  Examples (ECMP, n
 *   members, b buckets each, prev from the all-up table): one member goes
 *   down: only its b buckets move, each other member gains floor or ceil of
 *   b / (n - 1); it comes back: it takes exactly b buckets, floor or ceil of
 *   b / (n - 1) from each other member; no other bucket moves either time.
 *
 *   Reassignment.  The buckets without a member after that (all of them
 *   without prev) are handed out in index order, round robin over the
 *   members still below their count (in offset order), each until it
 *   reaches its count: every member receives exactly its deficit, and the
 *   receivers interleave.  Without prev and with equal shares (ECMP, all
 *   up) bucket i goes to member i mod n.
 *
 *   Determinism.  out is a function of the arguments only (no state, no
 *   randomness): two switches given the same inputs build the same table.
 *
 * Cost: O(N + n * n) time, no allocation (about 2 KB of stack); n <= 64
 * (AIF_LB_BUCKETS_MAX_MEMBERS), any N (products are taken in 64 bits).
 */
#ifndef AIF_LB_BUCKETS_H
#define AIF_LB_BUCKETS_H

#include <stdbool.h>
#include <stdint.h>

#define AIF_LB_BUCKETS_MAX_MEMBERS 64

/*
 * Fill out[0..n_buckets) for n members (1 <= n <= 64) with weights[] (NULL:
 * all 1) and up[] (NULL: all up), as the contract above says.  prev (or
 * NULL) is the group's running table of prev_n buckets over the same
 * members at the same offsets; it is ignored unless prev_n == n_buckets.
 * out and prev may not overlap.  Returns 0, or -1 when no member is
 * eligible or n is 0 or above 64 (out then maps every bucket to member 0).
 *
 *	uint8_t b[4 * 64];
 *	aif_lb_buckets_build(b, 4 * 64, 4, NULL, NULL, NULL, 0);  // i -> i % 4
 */
int aif_lb_buckets_build(uint8_t *out, uint32_t n_buckets, uint16_t n,
			 const uint32_t *weights, const bool *up,
			 const uint8_t *prev, uint32_t prev_n);

#endif /* AIF_LB_BUCKETS_H */
