/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host (rhost.h).
 *
 * The host is its own small event loop, run up to the time it is called
 * at (advance): received ACKs, NAKs and CNPs (in arrival order), DCQCN
 * rate cuts, timers, retransmit timeouts and the next frame's start, the
 * earliest first.  Frames it decided are held until their last bit reaches
 * the switch.  The next data frame is found by one pass over the QPs with
 * something to send or to wait for (busy[]), round robin among those that
 * may start first.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "link.h"
#include "pfc.h"
#include "rhost.h"
#include "rng.h"
#include "roce.h"

#define PS_PER_NS 1000ull
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
	/* selective repeat (peer_ooo): packets in [una, high) the peer SACKed,
	 * by index mod the window; holes below rtx_lim are lost, and resent
	 * from rtx_scan (always an unSACKed one at or above una) up */
	uint64_t rtx_scan, rtx_lim;
	uint64_t sack_high;      /* one past the highest SACKed */
	uint64_t *sacked;
	uint32_t n_sacked;
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
	bool nak_sent;           /* for epsn */
	uint64_t *bits, *lasts;  /* ooo: received / message ends, by PSN mod window */
	struct aif_dcqcn_np np;
	struct aif_rhost_qp_ctr ctr;
} __rte_cache_aligned;

_Static_assert(offsetof(struct qp, rtx_scan) == RTE_CACHE_LINE_SIZE,
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

#define OUT_MAX 64

/* What the host sends next. */
struct next {
	uint64_t start_ps;       /* NEVER_PS: nothing */
	uint64_t unpaused_ps;    /* when it would start but for a pause */
	uint32_t len;            /* frame bytes */
	int kind;                /* -1 data, else the ctrl FIFO: 0 acks, 1 cnps */
	uint32_t busy_i;         /* data: the QP's place in busy[] */
	aif_time_ns rto_ns;      /* the earliest retransmit timeout */
	uint32_t rto_busy_i;
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
	 * these alone and only the chosen QP */
	uint64_t *busy_ready;
	aif_time_ns *busy_rto;
	struct cfifo acks, cnps;  /* to send */
	struct cfifo in;          /* ACK/NAK/CNP received, to act on */
	struct cfifo react;       /* CNPs to apply to the rate (kind unused) */
	struct cfifo soon;        /* received records that matter now (.at only) */
	struct tmr *tm;           /* min-heap */
	uint32_t tm_n, tm_cap;
	uint64_t tm_seq;
	struct outf out[OUT_MAX]; /* decided, on their way */
	uint32_t out_h, out_n;
	uint64_t wire_free_ps;    /* the host's send wire */
	uint64_t rx_free_ps;      /* its receive wire */
	aif_time_ns rto_high_ns;  /* the timeouts' floors: the parameters, raised */
	aif_time_ns rto_low_ns;   /* for the path (rto_floors) */
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
	uint8_t frame[AIF_RHOST_MTU_MAX + 128];
	struct aif_rhost_ctr ctr;
};

void
aif_rhost_params_default(struct aif_rhost_params *p, uint64_t rate_bps)
{
	memset(p, 0, sizeof(*p));
	p->rate_bps = rate_bps;
	p->mtu = 1024;
	p->verb = AIF_RHOST_WRITE;
	p->dscp = 26;
	p->ack_dscp = 48;
	p->cnp_dscp = 48;
	p->prio_of_dscp[26] = 3;
	p->prio_of_dscp[48] = 6;
	p->cnp_on_ooo = true;
	p->dcqcn = true;
	aif_dcqcn_params_hpcc_run(&p->dc, rate_bps);
	p->ack_every = 1;
	p->nak_gap = 256;
	p->rto_ns = 500 * AIF_NS_PER_US;
	p->rto_low_ns = 100 * AIF_NS_PER_US;
	p->rto_low_pkts = 3;
	p->ack_delay_ns = 1 * AIF_NS_PER_US;
	p->cnp_delay_ns = 4 * AIF_NS_PER_US;
	p->react_delay_ns = 1 * AIF_NS_PER_US;
	p->icrc = true;
}

/* ---- small containers ---- */

static int
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

static inline bool
tmr_less(const struct tmr *a, const struct tmr *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void
aif_rhost_set_waker(struct aif_rhost *h, void (*fn)(void *arg), void *arg)
{
	h->waker = fn;
	h->waker_arg = arg;
}

/* Work given from outside the host's own calls (another host's callback):
 * its runner must ask its next frame again. */
static inline void
wake(struct aif_rhost *h)
{
	h->nx_ok = false; /* a post or a timer: what goes next may change */
	if (!h->active && h->waker != NULL)
		h->waker(h->waker_arg);
}

int
aif_rhost_timer(struct aif_rhost *h, aif_time_ns at_ns, uint64_t cookie)
{
	wake(h);
	if (h->tm_n == h->tm_cap) {
		uint32_t cap = h->tm_cap ? h->tm_cap * 2 : 16;
		struct tmr *t = realloc(h->tm, sizeof(*t) * cap);
		if (t == NULL)
			return -1;
		h->tm = t;
		h->tm_cap = cap;
	}
	uint32_t i = h->tm_n++;
	struct tmr x = { .at = at_ns, .seq = h->tm_seq++, .cookie = cookie };
	while (i > 0 && tmr_less(&x, &h->tm[(i - 1) / 2])) {
		h->tm[i] = h->tm[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->tm[i] = x;
	return 0;
}

static struct tmr
tmr_pop(struct aif_rhost *h)
{
	struct tmr top = h->tm[0], x = h->tm[--h->tm_n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->tm_n)
			break;
		if (c + 1 < h->tm_n && tmr_less(&h->tm[c + 1], &h->tm[c]))
			c++;
		if (!tmr_less(&h->tm[c], &x))
			break;
		h->tm[i] = h->tm[c];
		i = c;
	}
	if (h->tm_n)
		h->tm[i] = x;
	return top;
}

static uint64_t qp_ready_ps(const struct qp *q);
static void rto_floors(struct aif_rhost *h);

/* What qi's next frame and timeout are now: after anything changed them. */
static inline void
qp_changed(struct aif_rhost *h, uint32_t qi)
{
	const struct qp *q = &h->qps[qi];

	if (q->busy_pos == UINT32_MAX)
		return;
	h->busy_ready[q->busy_pos] = qp_ready_ps(q);
	h->busy_rto[q->busy_pos] = q->rto_at;
}

static void
busy_add(struct aif_rhost *h, uint32_t qi)
{
	struct qp *q = &h->qps[qi];

	if (q->busy_pos == UINT32_MAX) {
		q->busy_pos = h->n_busy;
		h->busy[h->n_busy++] = qi;
	}
	qp_changed(h, qi);
}

static void
busy_del(struct aif_rhost *h, uint32_t qi)
{
	struct qp *q = &h->qps[qi];
	uint32_t pos = q->busy_pos, last = h->busy[--h->n_busy];

	h->busy[pos] = last;
	h->busy_ready[pos] = h->busy_ready[h->n_busy];
	h->busy_rto[pos] = h->busy_rto[h->n_busy];
	h->qps[last].busy_pos = pos;
	q->busy_pos = UINT32_MAX;
	if (h->rr > h->n_busy)
		h->rr = 0;
}

/* ---- create, connect, post ---- */

struct aif_rhost *
aif_rhost_create(const struct aif_rhost_params *p, struct rte_mempool *pool, uint32_t max_qps,
		 char *err, size_t err_len)
{
	struct aif_rhost *h;

	if (p->rate_bps == 0 || p->rate_bps > AIF_LINK_RATE_MAX_BPS) {
		snprintf(err, err_len, "rate %llu b/s out of 1..%llu",
			 (unsigned long long)p->rate_bps, AIF_LINK_RATE_MAX_BPS);
		return NULL;
	}
	if (p->mtu < AIF_RHOST_MTU_MIN || p->mtu > AIF_RHOST_MTU_MAX || p->mtu % 4) {
		snprintf(err, err_len, "mtu %u: a multiple of 4 in %u..%u", p->mtu,
			 AIF_RHOST_MTU_MIN, AIF_RHOST_MTU_MAX);
		return NULL;
	}
	if (p->ack_every == 0 || p->nak_gap == 0 || p->nak_gap >= AIF_RHOST_OOO_WINDOW ||
	    p->dscp > 63 || p->ack_dscp > 63 || p->cnp_dscp > 63 || p->rto_ns == 0 ||
	    p->rto_low_ns == 0 || p->rto_low_ns > p->rto_ns ||
	    p->rto_low_pkts >= AIF_RHOST_OOO_WINDOW) {
		snprintf(err, err_len, "ack_every and rto at least 1, rto_low in 1..rto, "
			 "rto_low_pkts and nak_gap in 1..%u, DSCPs in 0..63",
			 AIF_RHOST_OOO_WINDOW - 1);
		return NULL;
	}
	if (max_qps == 0 || max_qps > (1u << 20)) {
		snprintf(err, err_len, "max_qps %u out of 1..%u", max_qps, 1u << 20);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	h->p = *p;
	h->pool = pool;
	h->max_qps = max_qps;
	aif_rng_seed(&h->rng, (p->seed * 0x9E3779B97F4A7C15ull) ^ p->ip ^ 0x5bd1e995);
	h->prio_data = p->prio_of_dscp[p->dscp] & 7;
	h->prio_ack = p->prio_of_dscp[p->ack_dscp] & 7;
	h->prio_cnp = p->prio_of_dscp[p->cnp_dscp] & 7;
	aif_pfc_rx_init(&h->pause);
	rto_floors(h);
	return h;
}

void
aif_rhost_free(struct aif_rhost *h)
{
	if (h == NULL)
		return;
	for (uint32_t i = 0; i < h->out_n; i++)
		rte_pktmbuf_free(h->out[(h->out_h + i) % OUT_MAX].m);
	for (uint32_t i = 0; i < h->n_qps; i++) {
		free(h->qps[i].m);
		free(h->qps[i].bits);
		free(h->qps[i].lasts);
		free(h->qps[i].sacked);
	}
	free(h->qps);
	free(h->busy);
	free(h->busy_ready);
	free(h->busy_rto);
	free(h->acks.e);
	free(h->cnps.e);
	free(h->in.e);
	free(h->react.e);
	free(h->soon.e);
	free(h->tm);
	free(h);
}

const struct aif_rhost_params *
aif_rhost_params(const struct aif_rhost *h)
{
	return &h->p;
}

void
aif_rhost_set_callback(struct aif_rhost *h, aif_rhost_cb cb, void *arg)
{
	h->cb = cb;
	h->cb_arg = arg;
}

/* *p to n elements of size bytes (kept on failure: -1). */
static int
grow(void **p, size_t size, uint32_t n)
{
	void *x = realloc(*p, size * n);

	if (x == NULL)
		return -1;
	*p = x;
	return 0;
}

static int
qp_new(struct aif_rhost *h, uint32_t *qi)
{
	if (h->n_qps == h->max_qps)
		return -1;
	if (h->n_qps == h->cap_qps) {
		/* set-up time only (connect before the run): QPs move */
		uint32_t cap = RTE_MIN(h->max_qps, h->cap_qps ? h->cap_qps * 2 : 16);
		struct qp *qps = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*qps) * cap);
		if (qps == NULL)
			return -1;
		if (h->n_qps)
			memcpy(qps, h->qps, sizeof(*qps) * h->n_qps);
		free(h->qps);
		h->qps = qps;
		if (grow((void **)&h->busy, sizeof(*h->busy), cap) != 0 ||
		    grow((void **)&h->busy_ready, sizeof(*h->busy_ready), cap) != 0 ||
		    grow((void **)&h->busy_rto, sizeof(*h->busy_rto), cap) != 0)
			return -1;
		h->cap_qps = cap;
	}
	struct qp *q = &h->qps[h->n_qps];
	memset(q, 0, sizeof(*q));
	if (h->p.ooo) {
		q->bits = calloc(OOO_WORDS, sizeof(uint64_t));
		q->lasts = calloc(OOO_WORDS, sizeof(uint64_t));
		if (q->bits == NULL || q->lasts == NULL) {
			free(q->bits);
			free(q->lasts);
			return -1;
		}
	}
	q->busy_pos = UINT32_MAX;
	q->rto_at = AIF_TIME_NS_NEVER;
	q->rtt_idx = NONE_IDX;
	q->psn0 = (uint32_t)aif_rng_next(&h->rng) & PSN_MASK;
	q->sport = (uint16_t)(0xC000 | (aif_rng_next(&h->rng) & 0x3FFF));
	aif_dcqcn_rp_init(&q->rp, &h->p.dc);
	*qi = h->n_qps++;
	return 0;
}

static void
qp_drop_last(struct aif_rhost *h)
{
	struct qp *q = &h->qps[--h->n_qps];

	free(q->bits);
	free(q->lasts);
	free(q->sacked);
}

int
aif_rhost_connect(struct aif_rhost *a, struct aif_rhost *b, uint32_t *qa, uint32_t *qb)
{
	if (qp_new(a, qa) != 0)
		return -1;
	if (qp_new(b, qb) != 0) {
		qp_drop_last(a);
		return -1;
	}
	struct qp *x = &a->qps[*qa], *y = &b->qps[*qb];
	/* a requester whose peer places out of order keeps what it SACKed */
	if ((b->p.ooo && (x->sacked = calloc(OOO_WORDS, sizeof(uint64_t))) == NULL) ||
	    (a->p.ooo && (y->sacked = calloc(OOO_WORDS, sizeof(uint64_t))) == NULL)) {
		qp_drop_last(b);
		qp_drop_last(a);
		return -1;
	}
	a->nx_ok = b->nx_ok = false;
	x->rqpn = AIF_RHOST_QPN_BASE + *qb;
	y->rqpn = AIF_RHOST_QPN_BASE + *qa;
	x->rip = b->p.ip;
	y->rip = a->p.ip;
	x->peer_ooo = b->p.ooo;
	y->peer_ooo = a->p.ooo;
	x->epsn = y->psn0;
	y->epsn = x->psn0;
	return 0;
}

int
aif_rhost_connect_psn(struct aif_rhost *a, struct aif_rhost *b, uint32_t psn_a,
		      uint32_t psn_b, uint32_t *qa, uint32_t *qb)
{
	if (aif_rhost_connect(a, b, qa, qb) != 0)
		return -1;
	a->qps[*qa].psn0 = b->qps[*qb].epsn = psn_a & PSN_MASK;
	b->qps[*qb].psn0 = a->qps[*qa].epsn = psn_b & PSN_MASK;
	return 0;
}

int
aif_rhost_post(struct aif_rhost *h, uint32_t qi, uint64_t bytes, uint64_t cookie,
	       aif_time_ns ready_ns)
{
	if (qi >= h->n_qps || bytes == 0 || bytes > UINT32_MAX)
		return -1;
	wake(h);
	struct qp *q = &h->qps[qi];
	if (q->m_n == q->m_cap) {
		uint32_t cap = q->m_cap ? q->m_cap * 2 : 4;
		struct msg *m = malloc(sizeof(*m) * cap);
		if (m == NULL)
			return -1;
		for (uint32_t i = 0; i < q->m_n; i++)
			m[i] = q->m[(q->m_head + i) % q->m_cap];
		free(q->m);
		q->m = m;
		q->m_head = 0;
		q->m_cap = cap;
	}
	uint32_t npkts = (uint32_t)((bytes + h->p.mtu - 1) / h->p.mtu);
	q->m[(q->m_head + q->m_n++) % q->m_cap] = (struct msg){
		.first = q->end, .bytes = bytes, .cookie = cookie, .npkts = npkts,
		.ready_ns = ready_ns,
	};
	q->end += npkts;
	busy_add(h, qi);
	return 0;
}

/* ---- frames ---- */

uint32_t
aif_rhost_ack_frame_len(void)
{
	return HDR_LEN + AETH_LEN + AIF_ROCE_ICRC_LEN;
}

uint32_t
aif_rhost_data_frame_len(const struct aif_rhost_params *p, uint32_t len, bool first)
{
	uint32_t pad = (4 - len % 4) % 4;
	return HDR_LEN + (first && p->verb == AIF_RHOST_WRITE ? RETH_LEN : 0) + len + pad +
	       AIF_ROCE_ICRC_LEN;
}

static inline uint64_t
ser_ps(const struct aif_rhost *h, uint32_t len)
{
	return ((uint64_t)aif_link_wire_bytes(len) * 8 * PS_PER_S + h->p.rate_bps - 1) /
	       h->p.rate_bps;
}

/* The timeouts' floors (rhost.h): the parameters, or RTO_K x (the base RTT
 * + the serialization of a few packets at the host rate) when that is
 * longer. */
static void
rto_floors(struct aif_rhost *h)
{
	const struct aif_rhost_params *p = &h->p;
	aif_time_ns pkt = (ser_ps(h, aif_rhost_data_frame_len(p, p->mtu, false)) + PS_PER_NS - 1) /
			  PS_PER_NS;

	h->rto_high_ns = RTE_MAX(p->rto_ns,
				 AIF_RHOST_RTO_K * (p->base_rtt_ns + AIF_RHOST_RTO_PKTS * pkt));
	h->rto_low_ns = RTE_MAX(p->rto_low_ns,
				AIF_RHOST_RTO_K * (p->base_rtt_ns + (aif_time_ns)p->rto_low_pkts * pkt));
}

void
aif_rhost_set_base_rtt(struct aif_rhost *h, aif_time_ns rtt_ns)
{
	h->p.base_rtt_ns = rtt_ns;
	rto_floors(h);
}

aif_time_ns
aif_rhost_rto_ns(const struct aif_rhost *h, bool low)
{
	return low ? h->rto_low_ns : h->rto_high_ns;
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

/* Ethernet, IPv4, UDP and BTH of a len-byte frame into h->frame. */
static void
headers(struct aif_rhost *h, const struct qp *q, uint32_t len, uint8_t dscp, uint8_t ecn,
	uint8_t opcode, uint8_t flags, uint8_t resv8a, bool ackreq, uint32_t psn)
{
	uint8_t *f = h->frame;
	uint16_t l3 = (uint16_t)(len - ETH_LEN);

	memcpy(f, h->p.gw_mac.b, 6);
	memcpy(f + 6, h->p.mac.b, 6);
	f[12] = 0x08, f[13] = 0x00;
	f[14] = 0x45;
	f[15] = (uint8_t)(dscp << 2 | ecn);
	put16(f + 16, l3);
	put16(f + 18, h->ip_id++);
	f[20] = 0x40, f[21] = 0;            /* DF */
	f[22] = 64, f[23] = 17;             /* TTL, UDP */
	f[24] = f[25] = 0;
	put32(f + 26, h->p.ip);
	put32(f + 30, q->rip);
	uint16_t ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)(f + IP_OFF));
	memcpy(f + 24, &ck, sizeof(ck));
	put16(f + 34, q->sport);
	put16(f + 36, AIF_ROCE_UDP_PORT);
	put16(f + 38, (uint16_t)(l3 - 20));
	f[40] = f[41] = 0;                  /* no UDP checksum */
	f[42] = opcode;
	f[43] = flags;
	f[44] = 0xFF, f[45] = 0xFF;         /* P_Key */
	f[46] = resv8a;
	put24(f + 47, q->rqpn);
	f[50] = ackreq ? 0x80 : 0;
	put24(f + 51, psn);
}

/* An mbuf with h->frame's len bytes (chained if need be); NULL: no mbuf. */
static struct rte_mbuf *
frame_mbuf(struct aif_rhost *h, uint32_t len)
{
	if (h->p.icrc) {
		aif_roce_icrc_put(h->frame + ETH_LEN, len - ETH_LEN);
	} else {
		memset(h->frame + len - 4, 0, 4);
	}
	return aif_mbuf_from_bytes(h->pool, h->frame, len);
}

/* The message holding packet idx of q (it is unacknowledged). */
static const struct msg *
msg_of(const struct qp *q, uint64_t idx)
{
	/* m_cap is a power of two (4, doubled when full) */
	for (uint32_t i = 0, j = q->m_head; i < q->m_n; i++, j = (j + 1) & (q->m_cap - 1)) {
		const struct msg *m = &q->m[j];
		if (idx < m->first + m->npkts)
			return m;
	}
	return NULL;
}

/* Packet idx of q: payload length, opcode, whether first. */
static void
pkt_shape(const struct aif_rhost *h, const struct msg *m, uint64_t idx, uint32_t *len,
	  uint8_t *op, bool *first)
{
	uint32_t k = (uint32_t)(idx - m->first);
	bool w = h->p.verb == AIF_RHOST_WRITE;

	*len = k + 1 < m->npkts ? h->p.mtu : (uint32_t)(m->bytes - (uint64_t)k * h->p.mtu);
	*first = k == 0;
	if (m->npkts == 1)
		*op = w ? OP_WRITE_ONLY : OP_SEND_ONLY;
	else if (k == 0)
		*op = w ? OP_WRITE_FIRST : OP_SEND_FIRST;
	else if (k + 1 == m->npkts)
		*op = w ? OP_WRITE_LAST : OP_SEND_LAST;
	else
		*op = w ? OP_WRITE_MIDDLE : OP_SEND_MIDDLE;
}

/* The packet of q that goes next: a selective resend, else nxt. */
static inline uint64_t
next_idx(const struct qp *q)
{
	return q->rtx_pending ? q->rtx_scan : q->nxt;
}

/* When q's next data packet may start (ps), NEVER_PS: none to send. */
static uint64_t
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

static void
ctrl_candidate(const struct aif_rhost *h, const struct cfifo *f, uint8_t prio, int kind,
	       struct next *nx)
{
	const struct ctrl *c = cfifo_head(f);
	if (c == NULL)
		return;
	uint32_t len = c->kind == K_CNP ? CNP_LEN : c->kind == K_SACK ? ACK_LEN + SACK_LEN : ACK_LEN;
	uint64_t s = RTE_MAX(RTE_MAX(c->at * PS_PER_NS, h->wire_free_ps), h->clock_ps);
	uint64_t u = unpaused_ps(h, prio, s);
	if (u < nx->start_ps || (u == nx->start_ps && nx->kind < 0)) {
		nx->start_ps = u;
		nx->unpaused_ps = s;
		nx->len = len;
		nx->kind = kind;
	}
}

static void
next_send(const struct aif_rhost *h, struct next *nx)
{
	nx->start_ps = NEVER_PS;
	nx->kind = -1;
	nx->rto_ns = AIF_TIME_NS_NEVER;
	nx->rto_busy_i = UINT32_MAX;
	nx->busy_i = UINT32_MAX;
	if (h->n_busy == 0)
		goto ctrl;
	/* data: the earliest any QP may start, but no earlier than the wire
	 * and the clock allow; round robin among those.  One pass in round
	 * robin order: the first QP ready by the wire's time if any, else the
	 * first of the earliest.  The earliest timeout: the first in busy[]. */
	uint64_t floor_ps = RTE_MAX(h->wire_free_ps, h->clock_ps), best = NEVER_PS;
	uint32_t best_i = UINT32_MAX, by_floor_i = UINT32_MAX;
	for (uint32_t k = 0, i = h->rr % h->n_busy; k < h->n_busy;
	     k++, i = i + 1 == h->n_busy ? 0 : i + 1) {
		uint64_t r = h->busy_ready[i];
		aif_time_ns rto = h->busy_rto[i];
		if (rto < nx->rto_ns || (rto == nx->rto_ns && i < nx->rto_busy_i)) {
			nx->rto_ns = rto;
			nx->rto_busy_i = i;
		}
		if (r < best) {
			best = r;
			best_i = i;
		}
		if (r <= floor_ps && by_floor_i == UINT32_MAX)
			by_floor_i = i;
	}
	if (best != NEVER_PS) {
		uint32_t i = by_floor_i != UINT32_MAX ? by_floor_i : best_i;
		uint64_t s = RTE_MAX(best, floor_ps);
		const struct qp *q = &h->qps[h->busy[i]];
		uint64_t idx = next_idx(q);
		const struct msg *m = msg_of(q, idx);
		uint32_t len;
		uint8_t op;
		bool first;
		pkt_shape(h, m, idx, &len, &op, &first);
		nx->busy_i = i;
		nx->unpaused_ps = s;
		nx->start_ps = unpaused_ps(h, h->prio_data, s);
		nx->len = aif_rhost_data_frame_len(&h->p, len, first);
	}
ctrl:
	ctrl_candidate(h, &h->acks, h->prio_ack, 0, nx);
	ctrl_candidate(h, &h->cnps, h->prio_cnp, 1, nx);
}

/* The first packet at or after i that q's peer has not SACKed (q->high if
 * none). */
static uint64_t
sack_next(const struct qp *q, uint64_t i)
{
	if (q->sacked == NULL)
		return i;
	while (i < q->high) {
		uint32_t b = (uint32_t)(i % AIF_RHOST_OOO_WINDOW);
		uint64_t w = ~q->sacked[b / 64] >> (b % 64);
		if (w)
			return RTE_MIN(i + (uint64_t)__builtin_ctzll(w), q->high);
		i += 64 - b % 64;
	}
	return q->high;
}

/* Forget the SACKs of [from, to) (acknowledged now). */
static void
sack_clear(struct qp *q, uint64_t from, uint64_t to)
{
	while (from < to) {
		uint32_t b = (uint32_t)(from % AIF_RHOST_OOO_WINDOW), k = b % 64;
		uint64_t n = RTE_MIN((uint64_t)(64 - k), to - from);
		uint64_t m = (n == 64 ? ~0ull : (1ull << n) - 1) << k;
		uint64_t *w = &q->sacked[b / 64];
		q->n_sacked -= (uint32_t)__builtin_popcountll(*w & m);
		*w &= ~m;
		from += n;
	}
}

/* q's timer: rto_base + RTO_low when the peer places out of order and at
 * most rto_low_pkts packets are in flight, else + RTO_high; never less than
 * the measured SRTT + 4 RTTVAR.  In flight: sent after the highest SACKed
 * packet and not acknowledged (below it a packet arrived, or is lost, or
 * is late). */
static void
rto_arm(const struct aif_rhost *h, struct qp *q)
{
	if (q->una >= q->high) {
		q->rto_at = AIF_TIME_NS_NEVER;
		return;
	}
	bool low = q->sacked != NULL && q->high - RTE_MAX(q->una, q->sack_high) <= h->p.rto_low_pkts;
	aif_time_ns r = low ? h->rto_low_ns : h->rto_high_ns;
	if (q->srtt_ns)
		r = RTE_MAX(r, q->srtt_ns + 4 * q->rttvar_ns);
	q->rto_at = q->rto_base + r;
}

/* An RTT sample (RFC 6298's estimator). */
static void
rtt_sample(struct qp *q, aif_time_ns r)
{
	if (q->srtt_ns == 0) {
		q->srtt_ns = r;
		q->rttvar_ns = r / 2;
	} else {
		aif_time_ns d = q->srtt_ns > r ? q->srtt_ns - r : r - q->srtt_ns;
		q->rttvar_ns = (3 * q->rttvar_ns + d) / 4;
		q->srtt_ns = (7 * q->srtt_ns + r) / 8;
	}
	if (q->srtt_ns == 0)
		q->srtt_ns = 1;
}

/* Hand a decided frame to the wire: it reaches the switch at start + ser. */
static void
wire_put(struct aif_rhost *h, struct rte_mbuf *m, uint64_t start_ps, uint32_t len)
{
	uint64_t fin = start_ps + ser_ps(h, len);

	h->wire_free_ps = fin;
	h->ctr.tx_frames++;
	h->ctr.tx_wire_bytes += len;
	h->out[(h->out_h + h->out_n++) % OUT_MAX] =
		(struct outf){ .m = m, .at = (fin + PS_PER_NS - 1) / PS_PER_NS };
}

static void
send_ctrl(struct aif_rhost *h, const struct next *nx)
{
	struct cfifo *f = nx->kind == 0 ? &h->acks : &h->cnps;
	struct ctrl c = *cfifo_head(f);
	struct qp *q = &h->qps[c.qp];
	struct rte_mbuf *m;

	if (c.kind == K_CNP) {
		headers(h, q, CNP_LEN, h->p.cnp_dscp, 0, OP_CNP, 0, 0x40 /* BECN */, false, 0);
		memset(h->frame + HDR_LEN, 0, CNP_PAD);
	} else {
		headers(h, q, nx->len, h->p.ack_dscp, 0, OP_ACK, 0, 0, false, c.psn);
		/* AETH: ACK with no credit count (0x1F), or NAK: PSN sequence error */
		h->frame[HDR_LEN] = c.kind == K_ACK ? 0x1F : 0x60;
		put24(h->frame + HDR_LEN + 1, q->msn & PSN_MASK);
		if (c.kind == K_SACK) /* reserved, the PSN that arrived */
			put32(h->frame + HDR_LEN + AETH_LEN, c.sack & PSN_MASK);
	}
	m = frame_mbuf(h, nx->len);
	if (m == NULL) {
		/* no mbuf: the wire idles one frame's time and tries again */
		h->ctr.nombuf++;
		h->wire_free_ps = nx->start_ps + ser_ps(h, nx->len);
		return;
	}
	cfifo_pop(f);
	if (c.kind == K_CNP)
		q->ctr.cnps_tx++, h->ctr.qp.cnps_tx++;
	else if (c.kind == K_ACK)
		q->ctr.acks_tx++, h->ctr.qp.acks_tx++;
	else
		q->ctr.naks_tx++, h->ctr.qp.naks_tx++;
	wire_put(h, m, nx->start_ps, nx->len);
}

static void
send_data(struct aif_rhost *h, const struct next *nx)
{
	uint32_t qi = h->busy[nx->busy_i];
	struct qp *q = &h->qps[qi];
	uint64_t idx = next_idx(q);
	const struct msg *mm = msg_of(q, idx);
	uint32_t len, flen;
	uint8_t op;
	bool first;
	struct rte_mbuf *m;

	pkt_shape(h, mm, idx, &len, &op, &first);
	flen = aif_rhost_data_frame_len(&h->p, len, first);
	uint32_t pad = (4 - len % 4) % 4;
	bool last = op == OP_WRITE_LAST || op == OP_WRITE_ONLY || op == OP_SEND_LAST ||
		    op == OP_SEND_ONLY;
	headers(h, q, flen, h->p.dscp, 2 /* ECT(0) */, op, (uint8_t)(pad << 4), 0, last,
		(q->psn0 + (uint32_t)idx) & PSN_MASK);
	uint32_t off = HDR_LEN;
	if (first && h->p.verb == AIF_RHOST_WRITE) {
		memset(h->frame + off, 0, 12);       /* virtual address 0, R_Key 0 */
		put32(h->frame + off + 12, (uint32_t)mm->bytes);
		off += RETH_LEN;
	}
	memset(h->frame + off, 0, len + pad);
	m = frame_mbuf(h, flen);
	if (m == NULL) {
		h->ctr.nombuf++;
		h->wire_free_ps = nx->start_ps + ser_ps(h, flen);
		return;
	}
	aif_time_ns start_ns = nx->start_ps / PS_PER_NS;
	if (q->rtx_pending) {
		q->rtx_scan = sack_next(q, idx + 1);
		q->rtx_pending = q->rtx_scan < q->rtx_lim;
	} else {
		q->nxt++;
	}
	if (idx < q->high) {
		q->ctr.retx++, h->ctr.qp.retx++;
		if (idx == q->rtt_idx) /* its ACK would time nothing (Karn) */
			q->rtt_idx = NONE_IDX;
	} else if (q->rtt_idx == NONE_IDX) {
		q->rtt_idx = idx;
		q->rtt_t0 = start_ns;
	}
	q->high = RTE_MAX(q->high, idx + 1);
	q->ctr.tx_packets++, h->ctr.qp.tx_packets++;
	q->ctr.tx_bytes += len, h->ctr.qp.tx_bytes += len;
	h->ctr.paused_ns += (nx->start_ps - nx->unpaused_ps) / PS_PER_NS;
	/* pacing at the QP's rate */
	double rate = (double)h->p.rate_bps;
	if (h->p.dcqcn) {
		aif_dcqcn_rp_advance(&q->rp, &h->p.dc, nx->start_ps / PS_PER_NS);
		rate = q->rp.rate_bps;
	}
	q->next_tx_ps = nx->start_ps +
			(uint64_t)((double)aif_link_wire_bytes(flen) * 8 * 1e12 / rate + 0.5);
	if (q->rto_at == AIF_TIME_NS_NEVER)
		q->rto_base = start_ns;
	rto_arm(h, q); /* RTO_low may no longer apply */
	h->rr = (nx->busy_i + 1) % (h->n_busy ? h->n_busy : 1);
	wire_put(h, m, nx->start_ps, flen);
}

/* ---- the requester's side of ACKs, NAKs, timeouts ---- */

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

/* Everything before idx arrived: messages done, timer. */
static void
acked_to(struct aif_rhost *h, uint32_t qi, uint64_t idx, aif_time_ns at)
{
	struct qp *q = &h->qps[qi];

	if (idx <= q->una)
		return;
	if (q->sacked != NULL)
		sack_clear(q, q->una, idx);
	q->una = idx;
	if (q->nxt < q->una)
		q->nxt = q->una;
	if (q->sacked != NULL) {
		q->sack_high = RTE_MAX(q->sack_high, q->una);
		q->rtx_scan = sack_next(q, RTE_MAX(q->rtx_scan, q->una));
		q->rtx_pending = q->rtx_scan < q->rtx_lim;
	}
	if (q->rtt_idx != NONE_IDX && q->rtt_idx < idx) {
		rtt_sample(q, at - q->rtt_t0);
		q->rtt_idx = NONE_IDX;
	}
	q->rto_base = at;
	rto_arm(h, q);
	while (q->m_n) {
		struct msg *m = &q->m[q->m_head];
		if (m->first + m->npkts > q->una)
			break;
		uint64_t cookie = m->cookie;
		q->m_head = (q->m_head + 1) % q->m_cap;
		q->m_n--;
		q->ctr.msgs_sent++, h->ctr.qp.msgs_sent++;
		if (h->cb != NULL)
			h->cb(h, AIF_RHOST_SENT, qi, cookie, at, h->cb_arg);
	}
	if (q->una == q->end && q->busy_pos != UINT32_MAX)
		busy_del(h, qi);
}

/* A NAK from a peer that places out of order: with the SACK extension, the
 * PSN that arrived ahead of idx (the cumulative point).  A hole is lost once
 * a packet nak_gap past it is SACKed (less is what spraying reorders): the
 * holes below are resent, each once, before new data. */
static void
on_sack(struct aif_rhost *h, struct qp *q, uint64_t idx, const struct ctrl *c)
{
	uint64_t s = c->kind == K_SACK ? idx_of(q, c->sack) : NONE_IDX;

	if (s != NONE_IDX && s < q->high) {
		uint32_t b = (uint32_t)(s % AIF_RHOST_OOO_WINDOW);
		if (!((q->sacked[b / 64] >> (b % 64)) & 1)) {
			q->sacked[b / 64] |= 1ull << (b % 64);
			q->n_sacked++;
			q->rto_base = c->at; /* progress */
		}
		if (s == q->rtt_idx) {
			rtt_sample(q, c->at - q->rtt_t0);
			q->rtt_idx = NONE_IDX;
		}
		q->sack_high = RTE_MAX(q->sack_high, s + 1);
		if (q->sack_high > q->una + h->p.nak_gap)
			q->rtx_lim = RTE_MAX(q->rtx_lim, q->sack_high - h->p.nak_gap);
	} else if (c->kind == K_NAK && idx < q->high) {
		q->rtx_lim = RTE_MAX(q->rtx_lim, idx + 1); /* no SACK: that one is lost */
	}
	q->rtx_scan = sack_next(q, RTE_MAX(q->rtx_scan, q->una));
	q->rtx_pending = q->rtx_scan < q->rtx_lim;
	rto_arm(h, q);
}

static void
on_ack(struct aif_rhost *h, const struct ctrl *c)
{
	struct qp *q = &h->qps[c->qp];
	uint64_t idx = idx_of(q, c->psn);

	if (c->kind == K_CNP) {
		q->ctr.cnps_rx++, h->ctr.qp.cnps_rx++;
		if (h->p.dcqcn)
			cfifo_push(&h->react, &(struct ctrl){ .at = c->at + h->p.react_delay_ns,
							     .qp = c->qp });
		return;
	}
	if (idx == UINT64_MAX)
		return; /* old news */
	if (c->kind == K_ACK) {
		acked_to(h, c->qp, idx + 1 > q->high ? q->high : idx + 1, c->at);
		return;
	}
	/* NAK: idx is what the responder expects */
	q->ctr.naks_rx++, h->ctr.qp.naks_rx++;
	acked_to(h, c->qp, idx, c->at);
	if (q->sacked != NULL) {
		on_sack(h, q, idx, c);
		return;
	}
	if (idx >= q->high)
		return;
	q->nxt = idx; /* go back */
	q->rto_base = c->at;
	rto_arm(h, q);
}

static void
on_timeout(struct aif_rhost *h, uint32_t qi, aif_time_ns at)
{
	struct qp *q = &h->qps[qi];

	q->rto_at = AIF_TIME_NS_NEVER;
	if (q->una >= q->high)
		return;
	q->ctr.timeouts++, h->ctr.qp.timeouts++;
	if (q->sacked != NULL) {
		/* everything not SACKed, from una, before new data */
		q->rtx_scan = sack_next(q, q->una);
		q->rtx_lim = q->high;
		q->rtx_pending = q->rtx_scan < q->rtx_lim;
	} else {
		q->nxt = q->una;
	}
	q->rtt_idx = NONE_IDX;
	q->rto_base = at;
	rto_arm(h, q);
}

/* ---- the host's loop ---- */

/* Run every event due at or before now_ns, in time order; true when it
 * stopped for want of room in out[]. */
static bool
advance(struct aif_rhost *h, aif_time_ns now_ns)
{
	uint64_t now_ps = now_ns * PS_PER_NS;
	struct next nx;
	bool full = false;

	for (;;) {
		const struct ctrl *in = cfifo_head(&h->in), *re = cfifo_head(&h->react);
		uint64_t t_in = in ? in->at * PS_PER_NS : NEVER_PS;
		uint64_t t_re = re ? re->at * PS_PER_NS : NEVER_PS;
		uint64_t t_tm = h->tm_n ? h->tm[0].at * PS_PER_NS : NEVER_PS;
		next_send(h, &nx);
		uint64_t t_rto = nx.rto_ns == AIF_TIME_NS_NEVER ? NEVER_PS : nx.rto_ns * PS_PER_NS;
		uint64_t e = RTE_MIN(RTE_MIN(t_in, t_re), RTE_MIN(RTE_MIN(t_tm, t_rto), nx.start_ps));
		if (e > now_ps || e == NEVER_PS)
			break;
		if (e > h->clock_ps && (e != nx.start_ps || h->out_n < OUT_MAX))
			h->clock_ps = e;
		if (e == t_in) {
			struct ctrl c = *in;
			cfifo_pop(&h->in);
			on_ack(h, &c);
			qp_changed(h, c.qp);
		} else if (e == t_re) {
			struct ctrl c = *re;
			cfifo_pop(&h->react);
			aif_dcqcn_rp_cnp(&h->qps[c.qp].rp, &h->p.dc, c.at);
		} else if (e == t_tm) {
			struct tmr t = tmr_pop(h);
			if (h->cb != NULL)
				h->cb(h, AIF_RHOST_TIMER, 0, t.cookie, t.at, h->cb_arg);
		} else if (e == t_rto) {
			uint32_t qi = h->busy[nx.rto_busy_i];
			on_timeout(h, qi, nx.rto_ns);
			qp_changed(h, qi);
		} else if (h->out_n == OUT_MAX) {
			full = true;
			break; /* nobody collects: wait */
		} else if (nx.kind < 0) {
			uint32_t qi = h->busy[nx.busy_i];
			send_data(h, &nx);
			qp_changed(h, qi);
		} else {
			send_ctrl(h, &nx);
		}
	}
	while (h->soon.n && cfifo_head(&h->soon)->at <= now_ns)
		cfifo_pop(&h->soon);
	h->nx = nx; /* computed last, nothing changed since */
	h->nx_ok = true;
	return full;
}

/* ---- the responder: a data frame arrived at at ---- */

static void
queue_ctrl(struct aif_rhost *h, struct cfifo *f, uint32_t qi, uint8_t kind, uint32_t psn,
	   uint32_t sack, aif_time_ns at)
{
	if (cfifo_push(f, &(struct ctrl){ .at = at, .qp = qi, .psn = psn, .sack = sack,
					  .kind = kind }) != 0)
		h->ctr.ctrl_overflow++;
}

static void
cnp_maybe(struct aif_rhost *h, uint32_t qi, aif_time_ns at)
{
	if (h->p.dcqcn && aif_dcqcn_np_ce(&h->qps[qi].np, &h->p.dc, at))
		queue_ctrl(h, &h->cnps, qi, K_CNP, 0, 0, at + h->p.cnp_delay_ns);
}

static void
received_msg(struct aif_rhost *h, uint32_t qi, aif_time_ns at)
{
	struct qp *q = &h->qps[qi];
	uint32_t n = q->msn;

	q->msn++;
	q->ctr.msgs_rcvd++, h->ctr.qp.msgs_rcvd++;
	if (h->cb != NULL)
		h->cb(h, AIF_RHOST_RECEIVED, qi, n, at, h->cb_arg);
}

static inline bool
bit_get(const uint64_t *b, uint32_t psn)
{
	uint32_t i = psn % AIF_RHOST_OOO_WINDOW;
	return (b[i / 64] >> (i % 64)) & 1;
}

static inline void
bit_set(uint64_t *b, uint32_t psn, bool v)
{
	uint32_t i = psn % AIF_RHOST_OOO_WINDOW;
	if (v)
		b[i / 64] |= 1ull << (i % 64);
	else
		b[i / 64] &= ~(1ull << (i % 64));
}

static void
on_data(struct aif_rhost *h, uint32_t qi, const uint8_t *f, uint32_t payload,
	aif_time_ns at)
{
	struct qp *q = &h->qps[qi];
	uint8_t op = f[BTH_OFF];
	bool last = op == OP_WRITE_LAST || op == OP_WRITE_ONLY || op == OP_SEND_LAST ||
		    op == OP_SEND_ONLY;
	bool ackreq = f[BTH_OFF + 8] & 0x80;
	uint32_t psn = get24(f + BTH_OFF + 9);
	uint32_t d = (psn - q->epsn) & PSN_MASK;

	if ((f[15] & 3) == 3) {
		q->ctr.rx_ce++, h->ctr.qp.rx_ce++;
		cnp_maybe(h, qi, at);
	}
	if (d >= PSN_HALF) {
		/* behind: a duplicate (a go-back resend of what arrived) */
		q->ctr.rx_dup++, h->ctr.qp.rx_dup++;
		if (ackreq || ++q->since_ack >= h->p.ack_every) {
			q->since_ack = 0;
			queue_ctrl(h, &h->acks, qi, K_ACK, (q->epsn - 1) & PSN_MASK, 0,
				   at + h->p.ack_delay_ns);
		}
		return;
	}
	if (d > 0) {
		q->ctr.rx_ooo++, h->ctr.qp.rx_ooo++;
		if (!h->p.ooo) {
			q->ctr.rx_ooo_drop++, h->ctr.qp.rx_ooo_drop++;
			if (!q->nak_sent) {
				q->nak_sent = true;
				queue_ctrl(h, &h->acks, qi, K_NAK, q->epsn, 0,
					   at + h->p.ack_delay_ns);
			}
			if (h->p.cnp_on_ooo)
				cnp_maybe(h, qi, at);
			return;
		}
		if (d >= AIF_RHOST_OOO_WINDOW) {
			q->ctr.rx_ooo_drop++, h->ctr.qp.rx_ooo_drop++;
			return;
		}
		if (bit_get(q->bits, psn)) {
			q->ctr.rx_dup++, h->ctr.qp.rx_dup++;
		} else {
			bit_set(q->bits, psn, true);
			bit_set(q->lasts, psn, last);
			q->ctr.rx_packets++, h->ctr.qp.rx_packets++;
			q->ctr.rx_bytes += payload, h->ctr.qp.rx_bytes += payload;
		}
		/* a NAK with the cumulative point and this PSN (IRN's SACK; again
		 * for a duplicate: the requester did not know) */
		queue_ctrl(h, &h->acks, qi, K_SACK, q->epsn, psn, at + h->p.ack_delay_ns);
		return;
	}
	/* the expected PSN */
	q->ctr.rx_packets++, h->ctr.qp.rx_packets++;
	q->ctr.rx_bytes += payload, h->ctr.qp.rx_bytes += payload;
	q->epsn = (q->epsn + 1) & PSN_MASK;
	q->nak_sent = false;
	bool end = last;
	if (last)
		received_msg(h, qi, at);
	if (h->p.ooo) {
		/* what arrived ahead of it is in order now */
		while (bit_get(q->bits, q->epsn)) {
			bool l = bit_get(q->lasts, q->epsn);
			bit_set(q->bits, q->epsn, false);
			q->epsn = (q->epsn + 1) & PSN_MASK;
			q->since_ack++;
			if (l) {
				end = true;
				received_msg(h, qi, at);
			}
		}
	}
	if (end || ackreq || ++q->since_ack >= h->p.ack_every) {
		q->since_ack = 0;
		queue_ctrl(h, &h->acks, qi, K_ACK, (q->epsn - 1) & PSN_MASK, 0,
			   at + h->p.ack_delay_ns);
	}
}

/* An ACK/NAK/CNP for the requester: acted on in time order (advance); the
 * host wakes for it if it may finish a message or change what is sent. */
static void
on_ctrl_frame(struct aif_rhost *h, uint32_t qi, uint8_t kind, uint32_t psn, uint32_t sack,
	      aif_time_ns at)
{
	struct qp *q = &h->qps[qi];
	/* a NAK changes what is sent, a SACK may; an ACK may end a message or
	 * open the window an ooo peer allows */
	bool wake = kind == K_NAK || kind == K_SACK ||
		    (kind == K_ACK && q->peer_ooo && q->nxt - q->una >= AIF_RHOST_OOO_WINDOW);

	if (kind == K_ACK && q->m_n) {
		uint64_t idx = idx_of(q, psn);
		const struct msg *m = &q->m[q->m_head];
		wake = wake || (idx != UINT64_MAX && idx + 1 >= m->first + m->npkts);
	}
	if (cfifo_push(&h->in, &(struct ctrl){ .at = at, .qp = qi, .psn = psn, .sack = sack,
					       .kind = kind }) != 0 ||
	    (wake && cfifo_push(&h->soon, &(struct ctrl){ .at = at }) != 0))
		h->ctr.ctrl_overflow++;
}

/* A frame from the switch whose last bit arrives at at. */
static void
on_frame(struct aif_rhost *h, struct rte_mbuf *m, aif_time_ns at)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *f;

	h->ctr.rx_frames++;
	if (len < HDR_LEN + AIF_ROCE_ICRC_LEN || len > sizeof(h->frame) ||
	    (f = rte_pktmbuf_read(m, 0, len, h->frame)) == NULL)
		goto other;
	if (f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 || f[23] != 17 ||
	    get32(f + 30) != h->p.ip || f[36] != 0x12 || f[37] != 0xb7)
		goto other;
	uint32_t l3 = (uint32_t)(f[16] << 8 | f[17]);
	if (l3 + ETH_LEN > len || l3 < 20 + 8 + AIF_ROCE_BTH_LEN + AIF_ROCE_ICRC_LEN)
		goto other;
	if (h->p.icrc && !aif_roce_icrc_ok(f + ETH_LEN, l3)) {
		h->ctr.rx_icrc_bad++;
		return;
	}
	uint32_t qpn = get24(f + BTH_OFF + 5);
	if (qpn < AIF_RHOST_QPN_BASE || qpn - AIF_RHOST_QPN_BASE >= h->n_qps)
		goto other;
	uint32_t qi = qpn - AIF_RHOST_QPN_BASE;
	uint8_t op = f[BTH_OFF];
	uint32_t body = l3 - 20 - 8 - AIF_ROCE_BTH_LEN - AIF_ROCE_ICRC_LEN;
	switch (op) {
	case OP_SEND_FIRST: case OP_SEND_MIDDLE: case OP_SEND_LAST: case OP_SEND_ONLY:
	case OP_WRITE_MIDDLE: case OP_WRITE_LAST:
		on_data(h, qi, f, body - ((f[BTH_OFF + 1] >> 4) & 3), at);
		return;
	case OP_WRITE_FIRST: case OP_WRITE_ONLY:
		if (body < RETH_LEN)
			goto other;
		on_data(h, qi, f, body - RETH_LEN - ((f[BTH_OFF + 1] >> 4) & 3), at);
		return;
	case OP_ACK: {
		if (body < AETH_LEN)
			goto other;
		uint8_t syn = f[HDR_LEN];
		if (syn >> 5 == 0)
			on_ctrl_frame(h, qi, K_ACK, get24(f + BTH_OFF + 9), 0, at);
		else if (syn >> 5 == 3 && (syn & 0x1F) == 0 && body >= AETH_LEN + SACK_LEN)
			on_ctrl_frame(h, qi, K_SACK, get24(f + BTH_OFF + 9),
				      get24(f + HDR_LEN + AETH_LEN + 1), at);
		else if (syn >> 5 == 3 && (syn & 0x1F) == 0)
			on_ctrl_frame(h, qi, K_NAK, get24(f + BTH_OFF + 9), 0, at);
		else
			goto other;
		return;
	}
	case OP_CNP:
		on_ctrl_frame(h, qi, K_CNP, 0, 0, at);
		return;
	default:
		break;
	}
other:
	h->ctr.rx_other++;
}

/* ---- the port ---- */

/* Frames the host sends: to the switch (its RX). */
static uint16_t
rhost_rx(struct aif_port *port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	 aif_time_ns now_ns)
{
	struct aif_rhost *h = port->ctx;
	uint16_t k = 0;

	(void)queue;
	h->active++;
	bool full = advance(h, now_ns);
	while (k < n && h->out_n && h->out[h->out_h].at <= now_ns) {
		pkts[k++] = h->out[h->out_h].m;
		h->out_h = (h->out_h + 1) % OUT_MAX;
		h->out_n--;
	}
	if (k < n && full)
		advance(h, now_ns); /* room in out[] again */
	h->active--;
	return k;
}

static aif_time_ns
rhost_rx_next_ns(struct aif_port *port, uint16_t queue)
{
	const struct aif_rhost *h = port->ctx;
	aif_time_ns t = AIF_TIME_NS_NEVER;
	struct next nx;

	(void)queue;
	if (h->out_n)
		t = h->out[h->out_h].at;
	if (h->out_n == OUT_MAX)
		return t;
	if (h->soon.n)
		t = RTE_MIN(t, cfifo_head(&h->soon)->at);
	if (h->tm_n)
		t = RTE_MIN(t, h->tm[0].at);
	if (h->nx_ok)
		nx = h->nx;
	else
		next_send(h, &nx);
	t = RTE_MIN(t, nx.rto_ns);
	if (nx.start_ps != NEVER_PS)
		t = RTE_MIN(t, (nx.start_ps + ser_ps(h, nx.len) + PS_PER_NS - 1) / PS_PER_NS);
	return t;
}

static inline uint64_t
rx_start_ps(const struct aif_rhost *h, uint64_t now_ps)
{
	return h->rx_free_ps + PS_PER_NS > now_ps ? h->rx_free_ps : now_ps;
}

/* Frames the switch sends the host (its TX). */
static uint16_t
rhost_tx(struct aif_port *port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	 aif_time_ns now_ns)
{
	struct aif_rhost *h = port->ctx;
	uint64_t now_ps = now_ns * PS_PER_NS;
	uint16_t i;

	(void)queue;
	h->active++;
	advance(h, now_ns);
	for (i = 0; i < n; i++) {
		uint64_t s = rx_start_ps(h, now_ps);
		if (s > now_ps)
			break;
		uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);
		h->rx_free_ps = s + ser_ps(h, len);
		on_frame(h, pkts[i], (h->rx_free_ps + PS_PER_NS - 1) / PS_PER_NS);
		rte_pktmbuf_free(pkts[i]);
	}
	h->ctr.refused += n - i;
	h->nx_ok = false;
	h->active--;
	return i;
}

/* PFC or PAUSE from the switch: the host stops sending on those priorities. */
static uint16_t
rhost_tx_ctrl(struct aif_port *port, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	struct aif_rhost *h = port->ctx;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t s = rx_start_ps(h, now_ns * PS_PER_NS);
	uint8_t buf[64];
	const uint8_t *d = rte_pktmbuf_read(m, 0, RTE_MIN(len, 64u), buf);

	(void)queue;
	h->active++;
	advance(h, now_ns);
	h->active--;
	h->nx_ok = false; /* a pause moves the next start */
	h->rx_free_ps = s + ser_ps(h, len);
	int xoff = aif_pfc_host_hear(&h->pause, h->pause_from_ns, d, RTE_MIN(len, 64u),
				     h->p.rate_bps, (h->rx_free_ps + PS_PER_NS - 1) / PS_PER_NS);
	if (xoff < 0)
		h->ctr.rx_other++;
	else if (xoff)
		h->ctr.rx_pfc++;
	else
		h->ctr.rx_xon++;
	h->ctr.rx_frames++;
	rte_pktmbuf_free(m);
	return 1;
}

static aif_time_ns
rhost_tx_ready_ns(struct aif_port *port, uint16_t queue, aif_time_ns now_ns)
{
	const struct aif_rhost *h = port->ctx;
	aif_time_ns free_ns = (h->rx_free_ps + PS_PER_NS - 1) / PS_PER_NS;

	(void)queue;
	return free_ns <= now_ns ? now_ns : free_ns;
}

const struct aif_port_ops aif_port_rhost_ops = {
	.kind = "rhost", .rx_burst = rhost_rx, .tx_burst = rhost_tx, .tx_ctrl = rhost_tx_ctrl,
	.rx_next_ns = rhost_rx_next_ns, .tx_ready_ns = rhost_tx_ready_ns, .wakes_rx = true,
};

void
aif_rhost_attach(struct aif_rhost *h, struct aif_port *port)
{
	port->ctx = h;
	port->base = &aif_port_rhost_ops;
	port->speed_mbps = (uint32_t)(h->p.rate_bps / 1000000);
	port->n_rxq = port->n_txq = 1;
	aif_port_set_link_up(port, true);
	__atomic_store_n(&port->ops, &aif_port_rhost_ops, __ATOMIC_RELEASE);
}

/* ---- views ---- */

const struct aif_rhost_ctr *
aif_rhost_ctr(const struct aif_rhost *h)
{
	return &h->ctr;
}

const struct aif_rhost_qp_ctr *
aif_rhost_qp_ctr(const struct aif_rhost *h, uint32_t qp)
{
	return qp < h->n_qps ? &h->qps[qp].ctr : NULL;
}

uint32_t
aif_rhost_n_qps(const struct aif_rhost *h)
{
	return h->n_qps;
}

uint16_t
aif_rhost_qp_sport(const struct aif_rhost *h, uint32_t qp)
{
	return qp < h->n_qps ? h->qps[qp].sport : 0;
}

double
aif_rhost_qp_rate(const struct aif_rhost *h, uint32_t qp)
{
	return qp < h->n_qps ? h->qps[qp].rp.rate_bps : 0;
}

void
aif_rhost_qp_set_sport(struct aif_rhost *h, uint32_t qp, uint16_t sport)
{
	if (qp < h->n_qps)
		h->qps[qp].sport = sport;
}

void
aif_rhost_set_pfc_log(struct aif_rhost *h, void (*log)(void *arg, aif_time_ns now_ns, bool pause),
		      void *arg)
{
	h->pause.log = log;
	h->pause.log_arg = arg;
}

void
aif_rhost_qp_state(const struct aif_rhost *h, uint32_t qp, struct aif_rhost_qp_state *st)
{
	memset(st, 0, sizeof(*st));
	if (qp >= h->n_qps)
		return;
	const struct qp *q = &h->qps[qp];
	st->rate_bps = q->rp.rate_bps;
	st->target_bps = q->rp.target_bps;
	st->alpha = q->rp.alpha;
	st->inflight_pkts = q->nxt > q->una ? q->nxt - q->una : 0;
	st->unsent_pkts = q->end > q->nxt ? q->end - q->nxt : 0;
	/* payload: full packets but the last of the messages in flight */
	uint64_t b = 0;
	for (uint32_t k = 0; k < q->m_n; k++) {
		const struct msg *m = &q->m[(q->m_head + k) % q->m_cap];
		uint64_t end = m->first + m->npkts;
		uint64_t lo = RTE_MAX(m->first, q->una), hi = RTE_MIN(end, q->nxt);
		if (hi <= lo)
			continue;
		b += (hi - lo) * h->p.mtu;
		if (hi == end) /* its last packet: the rest of the message */
			b -= (uint64_t)m->npkts * h->p.mtu - m->bytes;
	}
	st->inflight_bytes = b;
}

bool
aif_rhost_idle(const struct aif_rhost *h)
{
	/* ACKs and CNPs received and not yet acted on change nothing now: they
	 * are acted on before the next frame is decided */
	return h->n_busy == 0 && h->acks.n == 0 && h->cnps.n == 0 && h->out_n == 0 &&
	       h->tm_n == 0;
}

aif_time_ns
aif_rhost_next_ns(const struct aif_rhost *h)
{
	struct aif_port p = { .ctx = (void *)(uintptr_t)h };
	return rhost_rx_next_ns(&p, 0);
}
