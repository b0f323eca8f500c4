/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host's insides (rhost.h), shared by the files that make
 * it up and by nothing else:
 *
 *   rhost_core.c   parameters, create, connect, post, timers, the host's
 *                  event loop, its port, its views
 *   rhost_tx.c     the next frame: which, when; frames built and put on
 *                  the wire
 *   rhost_req.c    the requester: ACKs, NAKs, SACKs and timeouts, the
 *                  timeouts' floors and the RTT estimator
 *   rhost_resp.c   the responder: frames from the switch parsed, data
 *                  accepted, ACKs, NAKs and CNPs queued
 *
 * Functions one of them gives the others are rhost_<verb>; small ones the
 * hot path calls from several are static inline here.
 */
#ifndef AIF_RHOST_INT_H
#define AIF_RHOST_INT_H

#include <stdlib.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "../dataplane/frame.h"
#include "../dataplane/link.h"
#include "../dataplane/pfc.h"
#include "../dataplane/rng.h"
#include "../dataplane/roce.h"
#include "../dataplane/wire.h"
#include "rhost.h"
#include "rhost_busy.h"

#define PS_PER_NS AIF_PS_PER_NS
#define PS_PER_S 1000000000000ull
#define NEVER_PS UINT64_MAX
#define PSN_MASK 0xFFFFFFu
#define PSN_HALF 0x800000u
#define OOO_WORDS (AIF_RHOST_OOO_WINDOW / 64)
#define NONE_IDX UINT64_MAX

/* Frame layout (no VLAN tag, IPv4 without options). */
#define ETH_LEN 14
#define IP_OFF 14
#define UDP_OFF 34
#define BTH_OFF 42
#define HDR_LEN 54 /* up to the end of the BTH */
#define RETH_LEN 16
#define AETH_LEN 4
#define SACK_LEN 4 /* the SACK extension after a selective-repeat NAK's AETH */
#define CNP_PAD 16
#define BTH_BECN 0x40 /* in the BTH's FECN/BECN/reserved byte */

enum {
	OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE = 0x01, OP_SEND_LAST = 0x02, OP_SEND_ONLY = 0x04,
	OP_WRITE_FIRST = 0x06, OP_WRITE_MIDDLE = 0x07, OP_WRITE_LAST = 0x08,
	OP_WRITE_ONLY = 0x0A, OP_ACK = 0x11, OP_CNP = 0x81,
};

/* K_SACK: a NAK with the SACK extension (an out-of-order responder's) */
enum ctrl_kind { K_ACK, K_NAK, K_CNP, K_SACK };

struct msg {
	uint64_t first;      /* its first packet's index */
	uint64_t bytes;
	uint64_t cookie;
	uint32_t npkts;
	aif_time_ns ready_ns;
};

/* An ACK, NAK or CNP waiting to leave, or one received. */
struct ctrl {
	aif_time_ns at;
	uint32_t qp;
	uint32_t psn;
	uint32_t sack;           /* K_SACK: the PSN that arrived out of order */
	uint8_t kind;
	bool cnp;                /* ACK, NAK: congestion notification on it (BECN) */
};

/* Selective repeat, a requester's (its peer places out of order): which
 * packets in [una, high) the peer SACKed, by index mod the window; holes
 * below rtx_lim are lost, and resent from rtx_scan (always an unSACKed one
 * at or above una) up.  Beside the QP, only for such a peer. */
struct qp_sr {
	uint64_t rtx_scan, rtx_lim;
	uint64_t sack_high;      /* one past the highest SACKed */
	uint32_t n_sacked;
	uint64_t sacked[OOO_WORDS];
};

/* Out-of-order placement, a responder's (p.ooo): the PSNs received ahead
 * and the message ends among them, by PSN mod the window. */
struct qp_ooo {
	uint64_t bits[OOO_WORDS], lasts[OOO_WORDS];
};

struct qp {
	/* what deciding the next frame reads of every busy QP: one cache line */
	bool rtx_pending;        /* selective repeat: a lost packet to resend */
	bool peer_ooo;
	uint32_t m_head, m_n, m_cap;
	/* requester: packet indices from 0; PSN = psn0 + index */
	uint64_t nxt, una, end;
	uint64_t next_tx_ps;     /* pacing: the next data frame starts no earlier */
	aif_time_ns rto_at;      /* AIF_TIME_NS_NEVER: nothing outstanding */
	struct msg *m;           /* ring of unacknowledged messages */
	/* the rest */
	struct qp_sr *sr;        /* selective repeat: a peer that places out
				  * of order (peer_ooo); else NULL */
	aif_time_ns rto_base;    /* when the timer last started */
	/* RTT: one packet timed at a time (not a resent one) */
	uint64_t rtt_idx;        /* NONE_IDX: none */
	aif_time_ns rtt_t0;
	aif_time_ns srtt_ns, rttvar_ns; /* srtt 0: no sample yet */
	uint64_t high;
	uint32_t rqpn, rip;      /* the peer QP and its host's address */
	uint16_t sport;
	uint32_t psn0;
	uint32_t busy_pos;       /* in busy[], or UINT32_MAX */
	struct aif_dcqcn_rp rp;
	/* responder */
	uint32_t epsn;           /* the PSN expected next */
	uint32_t msn;            /* messages received */
	uint16_t since_ack;
	bool nak_any;            /* a NAK went, for nak_psn, */
	bool cnp_pending;        /* ack_flag: a mark for the next ACK/NAK */
	uint32_t nak_psn;
	aif_time_ns nak_next_ns; /* ... and the next for it may go from then */
	struct qp_ooo *ooo;      /* placing out of order (p.ooo); else NULL */
	struct aif_dcqcn_np np;
	struct aif_rhost_qp_ctr ctr;
} __rte_cache_aligned;

_Static_assert(offsetof(struct qp, sr) == RTE_CACHE_LINE_SIZE,
	       "struct qp: the fields the next frame's choice reads fill its first line");

/* A FIFO of ctrl records (power-of-two ring, grows). */
struct cfifo {
	struct ctrl *e;
	uint32_t h, n, cap;
};

struct tmr {
	aif_time_ns at;
	uint64_t seq, cookie;
};

struct outf {
	struct rte_mbuf *m;
	aif_time_ns at;          /* its last bit reaches the switch */
};

#define OUT_MIN 64        /* out[]: frames on their way, a ring that grows ... */
#define OUT_MAX (1u << 20) /* ... up to this many (a long cable at a high rate) */

/* What the host sends next. */
struct next {
	uint64_t start_ps;       /* NEVER_PS: nothing */
	uint64_t unpaused_ps;    /* when it would start but for a pause */
	uint32_t len;            /* frame bytes */
	uint32_t wire;           /* its bytes on the wire */
	int kind;                /* -1 data, else the ctrl FIFO: 0 acks, 1 cnps */
	uint32_t busy_i;         /* data: the QP's place in busy[] */
	aif_time_ns rto_ns;      /* the earliest retransmit timeout */
};

struct aif_rhost {
	struct aif_rhost_params p;
	struct rte_mempool *pool;
	aif_rhost_cb cb;
	void *cb_arg;
	void (*waker)(void *arg); /* a post or timer from outside its own calls */
	void *waker_arg;
	int active;               /* inside one of its port calls */
	struct aif_rng rng;
	uint32_t n_qps, cap_qps, max_qps;
	struct qp *qps;
	uint32_t *busy, n_busy, rr;
	/* beside busy[]: each busy QP's qp_ready_ps and rto_at, as its last
	 * change left them (qp_changed), so that choosing the next frame reads
	 * these (O(log n_busy)) and only the chosen QP */
	struct rhost_busy bt;
	struct cfifo acks, cnps;  /* to send */
	struct cfifo in;          /* ACK/NAK/CNP received, to act on */
	struct cfifo react;       /* CNPs to apply to the rate (kind unused) */
	struct cfifo soon;        /* received records that matter now (.at only) */
	struct tmr *tm;           /* min-heap */
	uint32_t tm_n, tm_cap;
	uint64_t tm_seq;
	struct outf *out;         /* decided, on their way: a ring of out_cap */
	uint32_t out_h, out_n, out_cap;
	bool out_nomem;           /* it could not grow */
	uint64_t wire_free_ps;    /* the host's send wire */
	uint64_t rx_free_ps;      /* its receive wire */
	aif_time_ns rto_high_ns;  /* the timeouts' floors: the parameters, raised */
	aif_time_ns rto_low_ns;   /* for the path (rto_floors) */
	aif_time_ns rto_gbn_ns;
	uint64_t clock_ps;        /* the last event acted on: nothing is decided
				   * to start before it (a timeout or a NAK at t
				   * makes a frame that starts at t at the
				   * earliest, whatever the QP's pacing said) */
	uint16_t ip_id;
	uint8_t prio_data, prio_ack, prio_cnp;
	aif_time_ns pause_from_ns[AIF_PFC_PRIOS];
	struct aif_pfc_rx_state pause;
	/* next_send as advance last computed it, while nothing changed since
	 * (nx_ok: cleared by every call from outside that changes anything) */
	struct next nx;
	bool nx_ok;
	/* what rhost_rx_next_ns last answered, while nothing it reads (out[],
	 * soon, the timers, nx) changed since (said_ok: cleared with nx_ok and
	 * wherever those change) */
	bool said_ok;
	aif_time_ns said;
	bool light;               /* data frames light (frame.h) */
	uint8_t frame[AIF_RHOST_MTU_MAX + 128];
	struct aif_rhost_ctr ctr;
};

/* ---- small containers ---- */

static inline int
cfifo_push(struct cfifo *f, const struct ctrl *c)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 64;
		struct ctrl *e = malloc(sizeof(*e) * cap);
		if (e == NULL)
			return -1;
		for (uint32_t i = 0; i < f->n; i++)
			e[i] = f->e[(f->h + i) & (f->cap - 1)];
		free(f->e);
		f->e = e;
		f->h = 0;
		f->cap = cap;
	}
	f->e[(f->h + f->n++) & (f->cap - 1)] = *c;
	return 0;
}

static inline const struct ctrl *
cfifo_head(const struct cfifo *f)
{
	return f->n ? &f->e[f->h] : NULL;
}

static inline void
cfifo_pop(struct cfifo *f)
{
	f->h = (f->h + 1) & (f->cap - 1);
	f->n--;
}

/* The message holding packet idx of q (it is unacknowledged). */
static inline const struct msg *
msg_of(const struct qp *q, uint64_t idx)
{
	/* m_cap is a power of two (1, doubled when full) */
	for (uint32_t i = 0, j = q->m_head; i < q->m_n; i++, j = (j + 1) & (q->m_cap - 1)) {
		const struct msg *m = &q->m[j];
		if (idx < m->first + m->npkts)
			return m;
	}
	return NULL;
}

/* The packet of q that goes next: a selective resend, else nxt. */
static inline uint64_t
next_idx(const struct qp *q)
{
	return q->rtx_pending ? q->sr->rtx_scan : q->nxt;
}

/* When q's next data packet may start (ps), NEVER_PS: none to send. */
static inline uint64_t
qp_ready_ps(const struct qp *q)
{
	if (q->rtx_pending)
		return q->next_tx_ps;
	if (q->nxt >= q->end ||
	    (q->peer_ooo && q->nxt - q->una >= AIF_RHOST_OOO_WINDOW))
		return NEVER_PS;
	const struct msg *m = msg_of(q, q->nxt);
	return RTE_MAX(q->next_tx_ps, m->ready_ns * PS_PER_NS);
}

/* What qi's next frame and timeout are now: after anything changed them. */
static inline void
qp_changed(struct aif_rhost *h, uint32_t qi)
{
	const struct qp *q = &h->qps[qi];

	if (q->busy_pos == UINT32_MAX)
		return;
	rhost_busy_set(&h->bt, q->busy_pos, qp_ready_ps(q), q->rto_at);
}

static inline void
busy_add(struct aif_rhost *h, uint32_t qi)
{
	struct qp *q = &h->qps[qi];

	if (q->busy_pos == UINT32_MAX) {
		q->busy_pos = h->n_busy;
		h->busy[h->n_busy++] = qi;
	}
	qp_changed(h, qi);
}

static inline void
busy_del(struct aif_rhost *h, uint32_t qi)
{
	struct qp *q = &h->qps[qi];
	uint32_t pos = q->busy_pos, last = h->busy[--h->n_busy];

	h->busy[pos] = last;
	rhost_busy_set(&h->bt, pos, rhost_busy_ready(&h->bt, h->n_busy),
		       rhost_busy_rto(&h->bt, h->n_busy));
	rhost_busy_set(&h->bt, h->n_busy, UINT64_MAX, AIF_TIME_NS_NEVER);
	h->qps[last].busy_pos = pos;
	q->busy_pos = UINT32_MAX;
	if (h->rr > h->n_busy)
		h->rr = 0;
}

/* The wire time of wire bytes at the host's rate, ps (wire.h: whole ns
 * under ns-3's model). */
static inline uint64_t
ser_ps(const struct aif_rhost *h, uint32_t wire)
{
	return aif_wire_ser_ps((enum aif_wire_model)h->p.wire_model, wire, h->p.rate_bps);
}

/* Wire bytes of a frame the host builds: a data packet of payload bytes
 * (frame len flen), or an ACK, NAK or CNP frame (payload 0), under the
 * host's wire model (wire.h: what aif_wire_ns3_bytes makes of the frame). */
static inline uint32_t
wire_bytes(const struct aif_rhost *h, uint32_t flen, uint32_t payload, bool data)
{
	if (likely(h->p.wire_model == AIF_WIRE_ETHERNET))
		return aif_link_wire_bytes(flen);
	return data ? payload + AIF_WIRE_NS3_DATA_HDR_BYTES : AIF_WIRE_NS3_ACK_BYTES;
}

static inline void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8), b[1] = (uint8_t)v;
}

static inline void
put24(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 16), b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)v;
}

static inline void
put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}

static inline uint32_t
get24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

static inline uint32_t
get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* s, or when prio's pause ends if the host knows of one at s. */
static inline uint64_t
unpaused_ps(const struct aif_rhost *h, uint8_t prio, uint64_t s)
{
	uint64_t until = (uint64_t)h->pause.paused_until_ns[prio] * PS_PER_NS;

	if (until > s && (uint64_t)h->pause_from_ns[prio] * PS_PER_NS <= s)
		return until;
	return s;
}

#define ACK_LEN (HDR_LEN + AETH_LEN + AIF_ROCE_ICRC_LEN)
#define CNP_LEN (HDR_LEN + CNP_PAD + AIF_ROCE_ICRC_LEN)

/* Index of psn relative to q's unacknowledged packets; UINT64_MAX if it is
 * behind una or past what was sent. */
static inline uint64_t
idx_of(const struct qp *q, uint32_t psn)
{
	uint32_t d = (psn - (q->psn0 + (uint32_t)q->una)) & PSN_MASK;
	if (d >= PSN_HALF || q->una + d > q->high)
		return UINT64_MAX;
	return q->una + d;
}

/* Room in out[] for one more frame, or it may grow. */
static inline bool
out_room(const struct aif_rhost *h)
{
	return h->out_n < h->out_cap || (h->out_cap < OUT_MAX && !h->out_nomem);
}

/* rhost_tx.c */
/* What the host sends next and when, and the earliest retransmit timeout. */
void rhost_next_send(const struct aif_rhost *h, struct next *nx);
/* Send the ACK, NAK or CNP (nx->kind >= 0), or the data packet, nx says. */
void rhost_send_ctrl(struct aif_rhost *h, const struct next *nx);
void rhost_send_data(struct aif_rhost *h, const struct next *nx);

/* rhost_req.c */
/* The timeouts' floors from the parameters, base RTT and rate. */
void rhost_rto_floors(struct aif_rhost *h);
/* The first packet at or after i that q's peer has not SACKed. */
uint64_t rhost_sack_next(const struct qp *q, uint64_t i);
/* q's retransmit timer from rto_base and what is in flight. */
void rhost_rto_arm(const struct aif_rhost *h, struct qp *q);
/* A received ACK, NAK or CNP, acted on at its time. */
void rhost_on_ack(struct aif_rhost *h, const struct ctrl *c);
/* qi's retransmit timer fired at at. */
void rhost_on_timeout(struct aif_rhost *h, uint32_t qi, aif_time_ns at);

/* rhost_resp.c */
/* A frame from the switch whose last bit arrives at at. */
void rhost_on_frame(struct aif_rhost *h, struct rte_mbuf *m, aif_time_ns at);

#endif /* AIF_RHOST_INT_H */
