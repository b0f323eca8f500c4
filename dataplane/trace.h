/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path trace: which group member each packet of chosen flows took.
 *
 * Control sets a filter (destination, optionally source and L4 ports) and
 * switches the trace on; workers, which load the switch's trace pointer once
 * per burst, append one fixed-size record per matching routed packet to
 * their own SP/SC ring (never blocking: a full ring counts the record as
 * lost).  Control drains the rings into its list when asked (show_trace) and
 * owns everything else.  The filter is written only while the trace is off.
 */
#ifndef AIF_TRACE_H
#define AIF_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"
#include "types.h"

struct rte_ring;

#define AIF_TRACE_RING 4096     /* records per worker ring */
#define AIF_TRACE_KEEP 65536    /* records control keeps */

struct aif_trace_filter {
	struct aif_ip dst;          /* required */
	struct aif_ip src;          /* family AIF_AF_NONE: any */
	uint16_t src_port, dst_port; /* network order; 0: any */
};

struct aif_trace_rec {
	aif_time_ns t_ns;
	struct aif_ip src, dst;
	uint16_t src_port, dst_port; /* network order */
	uint32_t hash;
	uint32_t psn;               /* RoCE BTH PSN, 0 otherwise */
	uint16_t group;             /* group index in the tables of the time */
	uint16_t member;            /* member offset in the group */
	uint16_t out_port;
	uint8_t scheme;
	uint8_t pad;
};

struct aif_trace {
	uint8_t on;                 /* workers: record while set */
	struct aif_trace_filter f;
	struct rte_ring *ring[16];  /* per worker */
	/* control only */
	uint64_t lost;
	uint32_t n_kept;
	struct aif_trace_rec *kept; /* [AIF_TRACE_KEEP] */
};

static inline bool
aif_trace_match(const struct aif_trace_filter *f, const struct aif_pkt *m)
{
	if (!aif_ip_equal(&f->dst, &m->dst))
		return false;
	if (f->src.family != AIF_AF_NONE && !aif_ip_equal(&f->src, &m->src))
		return false;
	if ((f->src_port || f->dst_port) && !(m->flags & AIF_PKT_F_L4))
		return false;
	return (!f->src_port || f->src_port == m->src_port) &&
	       (!f->dst_port || f->dst_port == m->dst_port);
}

/* Control: create (off) for n_workers; NULL on failure. */
struct aif_trace *aif_trace_create(uint16_t sw_index, uint16_t n_workers);
void aif_trace_free(struct aif_trace *tr, uint16_t n_workers);
/* Control: move what the workers recorded into tr->kept. */
void aif_trace_drain(struct aif_trace *tr, uint16_t n_workers);

/* Worker: record one packet (counts a full ring as lost in the ring's own way). */
void aif_trace_record(struct aif_trace *tr, uint16_t worker, const struct aif_trace_rec *r);

#endif /* AIF_TRACE_H */
