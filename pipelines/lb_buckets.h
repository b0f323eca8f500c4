/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resilient bucket tables for ECMP and WCMP (built by control, read by the
 * workers through aif_lb_bucket_pick in lb.h).
 *
 * A group of n members gets n_buckets = n * buckets_per_member buckets, each
 * naming a member offset.  Members get buckets in proportion to their weights
 * (all equal for ECMP), members that are down get none, and when a previous
 * table of the same size is given, buckets keep their member unless that
 * member lost buckets (it went down, or its weight share fell): only those
 * flows move.
 */
#ifndef AIF_LB_BUCKETS_H
#define AIF_LB_BUCKETS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Fill out[0..n_buckets) for n members (n <= 64) with weights[] (NULL: all
 * equal) and up[] (NULL: all up).  prev (or NULL) is the group's previous
 * table of prev_n buckets over the same members.  Returns 0, or -1 when no
 * member is up (out then maps every bucket to member 0).
 */
int aif_lb_buckets_build(uint8_t *out, uint32_t n_buckets, uint16_t n,
			 const uint32_t *weights, const bool *up,
			 const uint8_t *prev, uint32_t prev_n);

#endif /* AIF_LB_BUCKETS_H */
