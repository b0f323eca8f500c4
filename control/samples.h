/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time series in virtual time (--samples PREFIX, every --sample-us): what
 * each link direction carried since the sample before, every non-empty
 * egress queue, and what each virtual host's QPs are doing; for plots
 * (scripts/compare) and for watching the mechanisms work.
 *
 *   PREFIX-links.csv   time_us,from,to,utilization,bytes,pauses
 *	every fabric link direction (busy time / span, wire bytes, PFC
 *	frames), and every virtual host's edge both ways: host -> switch
 *	(the host's wire bytes / span; hosts send no PFC) and switch -> host
 *	(the wire bytes of its frames, PFC included, / span, the PFC frames
 *	the port sent), wire bytes by the host's wire model
 *   PREFIX-queues.csv  time_us,switch,port,queue,bytes
 *	every egress queue holding bytes at the sample (absent rows: empty)
 *   PREFIX-qps.csv     time_us,host,qp,sport,rate_gbps,target_gbps,alpha,
 *	                inflight_bytes,cnps,naks
 *	(with --jobs) every QP that has data in flight or to send, or that
 *	received CNPs or NAKs since the sample before: DCQCN's current and
 *	target rate and alpha, payload bytes sent and not acknowledged, and
 *	CNPs and NAKs received since the sample before
 *
 * A last sample at the end of the run covers the last stretch, so that a
 * link's rows add up to its counters.  State is read, never changed.
 */
#ifndef AIF_SAMPLES_H
#define AIF_SAMPLES_H

#include <stddef.h>

#include "../dataplane/types.h"

struct aif_ctl;
struct aif_vhosts;
struct aif_samples;

/* Open the files of prefix; v: the virtual hosts (NULL: none); NULL with
 * err on failure. */
struct aif_samples *aif_samples_open(const char *prefix, const struct aif_ctl *ctl,
				     const struct aif_vhosts *v, aif_time_ns every_ns, char *err,
				     size_t err_len);
/* A sample at t if one is due (every every_ns from 0). */
void aif_samples_take(struct aif_samples *s, aif_time_ns t);
/* The last stretch (to end_ns), and close; 0, or -1 if a file could not
 * be written in full. */
int aif_samples_close(struct aif_samples *s, aif_time_ns end_ns);

#endif /* AIF_SAMPLES_H */
