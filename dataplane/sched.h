/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress port scheduler: 8 queues, ETS (strict priority + DWRR), and a
 * per-port token-bucket shaper.  No EAL: a queued element is the caller's
 * (the worker queues rte_mbufs; tests any struct), with a length in bytes
 * that the caller supplies.
 *
 * Queues are intrusive FIFOs: every element carries a struct
 * aif_sched_node (next element + length, 12 bytes) at the byte offset
 * node_off the config names, and a queue is its head and tail elements
 * plus counters.  Memory: struct aif_sched (768 bytes on x86-64, inline
 * in the caller's state) and nothing else: init allocates nothing, a
 * queued packet costs nothing beyond its own node, and a queue holds any
 * number of them (no "full": the caller's buffer accounting is the only
 * limit).  An element sits in at most one queue at a time, and its node is
 * the scheduler's from enqueue until dequeue or drain hands it back.
 *
 * Reads:  the caller's elements (their node) at enqueue, dequeue, drain;
 *         now_ns and the PFC paused_mask at dequeue.
 * Writes: the queued elements' nodes, queue heads and tails, DWRR
 *         deficits, shaper tokens, counters (struct aif_sched: one worker
 *         owns it).  Buffer (MMU) accounting is the caller's: enqueue never
 *         drops.
 *
 * Knobs (struct aif_sched_params; zero means "default" where noted):
 *   q[i].mode           AIF_SCHED_SP or AIF_SCHED_DWRR
 *   q[i].weight         DWRR weight, 1..AIF_SCHED_WEIGHT_MAX (SP: ignored)
 *   mtu_bytes           largest ordinary frame; 0 = 1500
 *   quantum_base_bytes  DWRR quantum per unit of weight; 0 = mtu_bytes
 *   rate_bps            shaper rate in bits/s on the wire; 0 = unshaped
 *   burst_bytes         shaper bucket depth in wire bytes; 0 = mtu + 20
 *   node_off            where the node is in an element, a multiple of 4;
 *                       fixed for the scheduler's life (set_config refuses
 *                       another)
 *
 * Counters: per queue AIF_FOREACH_SCHED_QCTR (enqueued, dequeued, drained),
 * per port AIF_FOREACH_SCHED_PCTR.
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
 *	p.node_off = node_dynfield_offset;      (the node inside each rte_mbuf)
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
#define AIF_SCHED_MTU_MIN_BYTES 64
#define AIF_SCHED_MTU_MAX_BYTES 16384
#define AIF_SCHED_WEIGHT_MAX 1000
#define AIF_SCHED_QUANTUM_MIN_BYTES 64
#define AIF_SCHED_QUANTUM_MAX_BYTES 65536
#define AIF_SCHED_RATE_MAX_BPS 1600000000000ull /* 1.6 Tb/s */
#define AIF_SCHED_BURST_MAX_BYTES (64u << 20)
#define AIF_SCHED_PKT_MAX_BYTES (1u << 17) /* larger: enqueue says -2 */
#define AIF_SCHED_NEVER_NS UINT64_MAX

/* aif_sched_enqueue() results */
#define AIF_SCHED_ENQ_OK 0
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
	_(NODE, -7, "node_off not a multiple of 4, or not the queues' own")

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
	uint32_t node_off;           /* byte offset of the node in an element */
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
	uint32_t node_off;      /* multiple of 4 */
};

/*
 * The link every queued element carries at node_off: 12 bytes, 4-aligned
 * (the switch keeps it with the MMU charge in an mbuf dynfield, where
 * there is room for 24 bytes at 4-byte alignment).  The scheduler's while
 * the element is queued; the caller never reads it.
 */
struct aif_sched_node {
	void *next;          /* the element queued after this one; NULL at the tail */
	uint32_t next_bytes; /* next's bytes, as given to enqueue (the head's
			      * own are the queue's head_bytes) */
} __attribute__((packed, aligned(4)));

_Static_assert(sizeof(struct aif_sched_node) == sizeof(void *) + 4,
	       "aif_sched_node: a pointer and 4 bytes, no padding");
_Static_assert(_Alignof(struct aif_sched_node) == 4, "aif_sched_node: 4-aligned");

/* One queue: a FIFO threaded through its elements' nodes. */
struct aif_sched_queue {
	void *head;          /* next to dequeue; NULL when empty */
	void *tail;          /* last enqueued (valid when head != NULL) */
	uint64_t qlen_bytes;
	uint32_t qlen_pkts;
	uint32_t head_bytes; /* head's bytes: the scheduler looks at them on
			      * every pick, the head's own node is read once */
};

/* DWRR position: small enough to copy for a side-effect-free peek. */
struct aif_sched_dwrr {
	uint32_t deficit_bytes[AIF_SCHED_NQ];
	uint8_t cur;     /* queue whose turn it is */
	uint8_t started; /* cur's quantum for this turn already added */
};

/* One egress port's scheduler state; one worker mutates it. */
struct aif_sched {
	/* (aif_sched_idle's two fields in the first 64 bytes) */
	uint8_t nonempty_mask;       /* bit q: queue q holds packets */
	uint8_t paused_mask;         /* from the last dequeue, for next_event */
	struct aif_sched_config cfg; /* copy of control's config */
	struct aif_sched_dwrr dwrr;
	int64_t tokens_nbit;         /* may go negative after an oversized frame */
	aif_time_ns last_ns;         /* time of the last refill */
	struct aif_sched_queue q[AIF_SCHED_NQ];
	struct aif_sched_qctr qctr[AIF_SCHED_NQ];
	struct aif_sched_pctr pctr;
};

/* All 8 queues DWRR weight 1, mtu 1500, unshaped, node at offset 0. */
void aif_sched_params_default(struct aif_sched_params *p);

/* Check params and precompute a config.  Returns 0 or an AIF_SCHED_ERR_*
 * (negative, one per bad field); c is untouched on error. */
int aif_sched_config_init(struct aif_sched_config *c,
			  const struct aif_sched_params *p);

/* Start with empty queues and a full bucket at now_ns.  Allocates nothing.
 * Returns 0 or AIF_SCHED_ERR_NODE (a node_off config_init would refuse). */
int aif_sched_init(struct aif_sched *s, const struct aif_sched_config *c,
		   aif_time_ns now_ns);
/* Forget the queues (not the packets still queued: drain them first);
 * frees nothing, kept so that every init has its pair. */
void aif_sched_free(struct aif_sched *s);

/* Swap in a new config (weights, modes, rate, burst) keeping the queued
 * packets: tokens are refilled at now_ns under the old rate, then clamped
 * to the new depth.  node_off must not change (AIF_SCHED_ERR_NODE): the
 * queued elements hold their nodes where they are. */
int aif_sched_set_config(struct aif_sched *s, const struct aif_sched_config *c,
			 aif_time_ns now_ns);

/* Append a packet of `bytes` to queue q, linking it through its node (pkt
 * must not be queued already).  Returns AIF_SCHED_ENQ_OK, or
 * AIF_SCHED_ENQ_INVALID (q >= 8 or bytes > AIF_SCHED_PKT_MAX_BYTES: the
 * packet stays the caller's); a queue is never full. */
int aif_sched_enqueue(struct aif_sched *s, uint8_t q, void *pkt,
		      uint32_t bytes);

/* Up to max packets in scheduling order, skipping queues whose bit is set
 * in paused_mask, stopping early when the shaper holds the next packet.
 * pkts[i], lens[i] (lens may be NULL) and qids[i] (may be NULL) are
 * filled. */
unsigned aif_sched_dequeue_qid(struct aif_sched *s, aif_time_ns now_ns,
			       uint8_t paused_mask, void **pkts, uint32_t *lens,
			       uint8_t *qids, unsigned max);

/*
 * A packet of `bytes` through queue q of an idle scheduler (aif_sched_idle),
 * q not in paused_mask, sent at once: what aif_sched_enqueue and then
 * aif_sched_dequeue_qid(paused_mask, max 1) would leave (counters, the DWRR
 * turn, the queue's fields), without linking pkt.  0, or
 * AIF_SCHED_ENQ_INVALID as enqueue (nothing changed).
 */
int aif_sched_pass(struct aif_sched *s, uint8_t q, void *pkt, uint32_t bytes,
		   uint8_t paused_mask);

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
	return s->q[q].qlen_pkts;
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
