/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress port scheduler: 8 queues, ETS (strict priority + DWRR), and a
 * per-port token-bucket shaper.  No EAL: a queued element is an opaque
 * pointer (the worker stores an rte_mbuf *) with a length in bytes that the
 * caller supplies.
 *
 * Reads:  the caller's packets (pointer + bytes) at enqueue; now_ns and the
 *         PFC paused_mask at dequeue.
 * Writes: the per-queue rings, DWRR deficits, shaper tokens, counters
 *         (struct aif_sched: one worker owns it).  Buffer (MMU) accounting
 *         is the caller's: enqueue never drops except when a ring is full.
 *
 * Knobs (struct aif_sched_params; zero means "default" where noted):
 *   q[i].mode           AIF_SCHED_SP or AIF_SCHED_DWRR
 *   q[i].weight         DWRR weight, 1..AIF_SCHED_WEIGHT_MAX (SP: ignored)
 *   mtu_bytes           largest ordinary frame; 0 = 1500
 *   quantum_base_bytes  DWRR quantum per unit of weight; 0 = mtu_bytes
 *   rate_bps            shaper rate in bits/s on the wire; 0 = unshaped
 *   burst_bytes         shaper bucket depth in wire bytes; 0 = mtu + 20
 *   ring_pkts           ring capacity per queue, power of two; 0 = 1024
 *
 * Counters: per queue AIF_FOREACH_SCHED_QCTR (enqueued, rejected because the
 * ring was full, dequeued, drained), per port AIF_FOREACH_SCHED_PCTR.
 *
 * Order of service (ETS):
 *   1. SP queues first, the highest queue index first.
 *   2. Then DWRR among the other queues (deficit round robin, Shreedhar &
 *      Varghese): queues are visited in index order 0..7, wrapping; on each
 *      visit a queue's deficit grows by its quantum
 *          quantum_bytes = weight * quantum_base_bytes
 *      and it sends head packets while head bytes <= deficit, each send
 *      taking its bytes off the deficit.  A queue that empties has its
 *      deficit set to 0.  With all queues backlogged, queue i gets
 *      weight_i / sum(weight) of the DWRR bytes, to within one quantum plus
 *      one packet per round.
 *   PFC: a queue whose bit is set in paused_mask is skipped: it is not
 *   served, its deficit neither grows nor resets, and the others share its
 *   bandwidth.  When the bit clears it takes its turns again as before.
 *
 * Shaper (token bucket, exact integer arithmetic):
 *   tokens are kept in nanobits (1 token = 1e-9 bit), so that refilling
 *   over dt_ns at rate_bps adds exactly dt_ns * rate_bps tokens (no
 *   rounding, no drift).
 *       cost(pkt)  = (bytes + 20) * 8 * 1e9   (20 = preamble 7 + SFD 1 + IFG 12)
 *       depth      = burst_bytes * 8 * 1e9
 *       tokens(t)  = min(depth, tokens(last) + (t - last) * rate_bps)
 *   The scheduler's next packet may go when tokens >= min(cost, depth), and
 *   its cost is then taken off (so a frame larger than the bucket waits for
 *   a full bucket and leaves the bucket negative: the long-run rate stays
 *   exact).  A dequeue stops at the first packet the shaper holds: it never
 *   skips ahead to a smaller packet.  `bytes` is whatever length the caller
 *   counts for a frame (mbuf pkt_len excludes the 4-byte FCS: pass
 *   pkt_len + 4 to shape exactly on the wire).
 *   aif_sched_next_event_ns() gives the first ns at which that packet may
 *   go:  now + ceil((min(cost, depth) - tokens(now)) / rate_bps).
 *
 *	struct aif_sched_params p;
 *	struct aif_sched_config c;
 *	struct aif_sched s;
 *	aif_sched_params_default(&p);
 *	p.q[3].weight = 4;                      (RoCE gets 4 shares)
 *	p.q[6].mode = AIF_SCHED_SP;             (CNP strict priority)
 *	p.rate_bps = 10000000000ull;            (emulate 10G)
 *	if (aif_sched_config_init(&c, &p) < 0 || aif_sched_init(&s, &c, now_ns) < 0)
 *		goto err;
 *	aif_sched_enqueue(&s, tc, mbuf, mbuf->pkt_len + 4);
 *	n = aif_sched_dequeue(&s, now_ns, pfc_paused, pkts, lens, 32);
 *	aif_sched_free(&s);
 */
#ifndef AIF_SCHED_H
#define AIF_SCHED_H

#include <stdint.h>

#include "types.h"

#define AIF_SCHED_NQ 8
#define AIF_SCHED_WIRE_OVERHEAD_BYTES 20 /* preamble 7 + SFD 1 + IFG 12 */
#define AIF_SCHED_DEFAULT_MTU_BYTES 1500
#define AIF_SCHED_DEFAULT_RING_PKTS 1024
#define AIF_SCHED_MTU_MIN_BYTES 64
#define AIF_SCHED_MTU_MAX_BYTES 16384
#define AIF_SCHED_WEIGHT_MAX 1000
#define AIF_SCHED_QUANTUM_MIN_BYTES 64
#define AIF_SCHED_QUANTUM_MAX_BYTES 65536
#define AIF_SCHED_RATE_MAX_BPS 1600000000000ull /* 1.6 Tb/s */
#define AIF_SCHED_BURST_MAX_BYTES (64u << 20)
#define AIF_SCHED_RING_MAX_PKTS (1u << 20)
#define AIF_SCHED_PKT_MAX_BYTES (1u << 17) /* larger: enqueue says -2 */
#define AIF_SCHED_NEVER_NS UINT64_MAX

/* aif_sched_enqueue() results */
#define AIF_SCHED_ENQ_OK 0
#define AIF_SCHED_ENQ_FULL (-1)   /* ring full: caller drops and counts */
#define AIF_SCHED_ENQ_INVALID (-2) /* q >= 8 or bytes > AIF_SCHED_PKT_MAX_BYTES */

enum aif_sched_mode {
	AIF_SCHED_DWRR = 0,
	AIF_SCHED_SP = 1,
};

/* Config-init errors: (id, value, name). */
#define AIF_FOREACH_SCHED_ERR(_)                                               \
	_(OK, 0, "ok")                                                         \
	_(MODE, -1, "bad queue mode")                                          \
	_(WEIGHT, -2, "DWRR weight out of 1..1000")                            \
	_(MTU, -3, "mtu_bytes out of 64..16384")                               \
	_(QUANTUM, -4, "quantum_base_bytes out of 64..65536")                  \
	_(RATE, -5, "rate_bps above 1.6 Tb/s")                                 \
	_(BURST, -6, "burst_bytes above 64 MiB")                               \
	_(RING, -7, "ring_pkts not a power of two in 2..2^20")                 \
	_(NOMEM, -8, "out of memory")

enum aif_sched_err {
#define AIF_SCHED_ERR_ENUM(id, val, name) AIF_SCHED_ERR_##id = (val),
	AIF_FOREACH_SCHED_ERR(AIF_SCHED_ERR_ENUM)
#undef AIF_SCHED_ERR_ENUM
};

/* Name of an aif_sched_err value ("unknown" for others). */
const char *aif_sched_err_name(int err);

/* Per-queue counters. */
#define AIF_FOREACH_SCHED_QCTR(_) \
	_(enq_packets)            \
	_(enq_bytes)              \
	_(full_packets)           \
	_(full_bytes)             \
	_(deq_packets)            \
	_(deq_bytes)              \
	_(drain_packets)          \
	_(drain_bytes)

struct aif_sched_qctr {
#define AIF_SCHED_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_SCHED_QCTR(AIF_SCHED_CTR_FIELD)
#undef AIF_SCHED_CTR_FIELD
};

/* Per-port counters. */
#define AIF_FOREACH_SCHED_PCTR(_) \
	_(shaper_holds) /* dequeue calls that stopped for lack of tokens */

struct aif_sched_pctr {
#define AIF_SCHED_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_SCHED_PCTR(AIF_SCHED_CTR_FIELD)
#undef AIF_SCHED_CTR_FIELD
};

extern const char *const aif_sched_qctr_names[];
extern const unsigned aif_sched_qctr_n;
extern const char *const aif_sched_pctr_names[];
extern const unsigned aif_sched_pctr_n;

/* What the user wrote. */
struct aif_sched_queue_params {
	uint8_t mode;    /* enum aif_sched_mode */
	uint32_t weight; /* DWRR: 1..AIF_SCHED_WEIGHT_MAX; SP: ignored */
};

struct aif_sched_params {
	struct aif_sched_queue_params q[AIF_SCHED_NQ];
	uint32_t mtu_bytes;          /* 0 = 1500 */
	uint32_t quantum_base_bytes; /* 0 = mtu_bytes */
	uint64_t rate_bps;           /* 0 = unshaped */
	uint32_t burst_bytes;        /* 0 = mtu_bytes + 20 */
	uint32_t ring_pkts;          /* 0 = 1024 */
};

/* What control precomputed; read-only for the worker. */
struct aif_sched_config {
	uint8_t sp_mask;    /* bit q: queue q is strict priority */
	uint8_t dwrr_mask;  /* bit q: queue q is DWRR */
	uint32_t quantum_bytes[AIF_SCHED_NQ]; /* weight * base; 0 for SP */
	uint32_t mtu_bytes;
	uint64_t rate_bps;      /* 0 = unshaped */
	uint64_t depth_nbit;    /* bucket depth, nanobits: burst_bytes * 8e9 */
	uint32_t burst_bytes;
	uint32_t ring_pkts;     /* power of two */
};

struct aif_sched_slot {
	void *pkt;
	uint32_t bytes;
};

struct aif_sched_ring {
	struct aif_sched_slot *slot; /* ring_pkts slots */
	uint32_t head;               /* next to dequeue, free running */
	uint32_t tail;               /* next free, free running */
	uint64_t qlen_bytes;
};

/* DWRR position: small enough to copy for a side-effect-free peek. */
struct aif_sched_dwrr {
	uint32_t deficit_bytes[AIF_SCHED_NQ];
	uint8_t cur;     /* queue whose turn it is */
	uint8_t started; /* cur's quantum for this turn already added */
};

/* One egress port's scheduler state; one worker mutates it. */
struct aif_sched {
	struct aif_sched_config cfg; /* copy of control's config */
	struct aif_sched_slot *mem;  /* 8 * ring_pkts slots, calloc'd */
	uint32_t ring_mask;
	uint8_t nonempty_mask;       /* bit q: ring q holds packets */
	uint8_t paused_mask;         /* from the last dequeue, for next_event */
	struct aif_sched_dwrr dwrr;
	int64_t tokens_nbit;         /* may go negative after an oversized frame */
	aif_time_ns last_ns;         /* time of the last refill */
	struct aif_sched_ring q[AIF_SCHED_NQ];
	struct aif_sched_qctr qctr[AIF_SCHED_NQ];
	struct aif_sched_pctr pctr;
};

/* All 8 queues DWRR weight 1, mtu 1500, unshaped, 1024-packet rings. */
void aif_sched_params_default(struct aif_sched_params *p);

/* Check params and precompute a config.  Returns 0 or an AIF_SCHED_ERR_*
 * (negative, one per bad field); c is untouched on error. */
int aif_sched_config_init(struct aif_sched_config *c,
			  const struct aif_sched_params *p);

/* Allocate the rings (calloc) and start with a full bucket at now_ns.
 * Returns 0 or AIF_SCHED_ERR_NOMEM / AIF_SCHED_ERR_RING.  Pair with
 * aif_sched_free(). */
int aif_sched_init(struct aif_sched *s, const struct aif_sched_config *c,
		   aif_time_ns now_ns);
/* Free the rings (not the packets still queued: drain them first). */
void aif_sched_free(struct aif_sched *s);

/* Swap in a new config (weights, modes, rate, burst) keeping the queued
 * packets: tokens are refilled at now_ns under the old rate, then clamped
 * to the new depth.  The ring size must not change (AIF_SCHED_ERR_RING). */
int aif_sched_set_config(struct aif_sched *s, const struct aif_sched_config *c,
			 aif_time_ns now_ns);

/* Append a packet of `bytes` to queue q.  Returns AIF_SCHED_ENQ_OK, or
 * AIF_SCHED_ENQ_FULL (-1) when the ring is full (counted in full_*; the
 * caller frees the packet), or AIF_SCHED_ENQ_INVALID. */
int aif_sched_enqueue(struct aif_sched *s, uint8_t q, void *pkt,
		      uint32_t bytes);

/* Up to max packets in scheduling order, skipping queues whose bit is set
 * in paused_mask, stopping early when the shaper holds the next packet.
 * pkts[i], lens[i] (lens may be NULL) and qids[i] (may be NULL) are
 * filled. */
unsigned aif_sched_dequeue_qid(struct aif_sched *s, aif_time_ns now_ns,
			       uint8_t paused_mask, void **pkts, uint32_t *lens,
			       uint8_t *qids, unsigned max);

static inline unsigned
aif_sched_dequeue(struct aif_sched *s, aif_time_ns now_ns, uint8_t paused_mask,
		  void **pkts, uint32_t *lens, unsigned max)
{
	return aif_sched_dequeue_qid(s, now_ns, paused_mask, pkts, lens, NULL,
				     max);
}

/* The first time >= now_ns at which the shaper lets the packet the
 * scheduler would send next go, under the paused_mask given to the last
 * dequeue; now_ns when unshaped and a packet is eligible;
 * AIF_SCHED_NEVER_NS when no queue is both non-empty and unpaused. */
aif_time_ns aif_sched_next_event_ns(const struct aif_sched *s,
				    aif_time_ns now_ns);
/* The same for an explicit paused_mask. */
aif_time_ns aif_sched_next_event_mask_ns(const struct aif_sched *s,
					 aif_time_ns now_ns,
					 uint8_t paused_mask);

/* Take up to max packets off queue q regardless of scheduling, pause and
 * shaper (PFC watchdog drop action, port down, shutdown).  Counted in
 * drain_*.  Returns how many. */
unsigned aif_sched_drain(struct aif_sched *s, uint8_t q, void **pkts,
			 uint32_t *lens, unsigned max);

static inline uint64_t
aif_sched_qlen_bytes(const struct aif_sched *s, uint8_t q)
{
	return s->q[q].qlen_bytes;
}

static inline uint32_t
aif_sched_qlen_pkts(const struct aif_sched *s, uint8_t q)
{
	return s->q[q].tail - s->q[q].head;
}

/* True when nothing is queued on the port and it is not shaped: a packet
 * would be the very next one sent, so it may skip the queue. */
static inline bool
aif_sched_idle(const struct aif_sched *s)
{
	return s->nonempty_mask == 0 && s->cfg.rate_bps == 0;
}

/* Count a packet that went straight through an idle scheduler as queued and
 * sent, so the queue counters still see it. */
static inline void
aif_sched_count_through(struct aif_sched *s, uint8_t q, uint32_t bytes)
{
	s->qctr[q].enq_packets++;
	s->qctr[q].enq_bytes += bytes;
	s->qctr[q].deq_packets++;
	s->qctr[q].deq_bytes += bytes;
}

static inline const struct aif_sched_qctr *
aif_sched_queue_ctr(const struct aif_sched *s, uint8_t q)
{
	return &s->qctr[q];
}

#endif /* AIF_SCHED_H */
