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

#include "../dataplane/link.h"
#include "rhost_int.h"

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
	aif_dcqcn_params_conweave(&p->dc, rate_bps);
	p->cnp = AIF_RHOST_CNP_ACK_FLAG;
	p->ack_every = 1;
	p->nak_gap = 256;
	p->nak_interval_ns = 4 * AIF_NS_PER_US;
	p->nak_rewind_stale = true;
	p->gbn_timer = AIF_RHOST_GBN_TIMER_PER_PACKET;
	p->rto_gbn_ns = 4 * AIF_NS_PER_MS;
	p->rto_ns = 500 * AIF_NS_PER_US;
	p->rto_low_ns = 100 * AIF_NS_PER_US;
	p->rto_low_pkts = 3;
	p->link_delay_ns = AIF_RHOST_LINK_DELAY_FABRIC;
	p->ack_delay_ns = 0;
	p->cnp_delay_ns = 0;
	p->react_delay_ns = 0;
	p->icrc = true;
	p->light_frames = true;
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
	h->said_ok = false;
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
	    p->rto_low_pkts >= AIF_RHOST_OOO_WINDOW || p->rto_gbn_ns == 0) {
		snprintf(err, err_len, "ack_every, rto and rto_gbn at least 1, rto_low in 1..rto, "
			 "rto_low_pkts and nak_gap in 1..%u, DSCPs in 0..63",
			 AIF_RHOST_OOO_WINDOW - 1);
		return NULL;
	}
	if (p->link_delay_ns > AIF_RHOST_LINK_DELAY_MAX &&
	    p->link_delay_ns != AIF_RHOST_LINK_DELAY_FABRIC) {
		snprintf(err, err_len, "link_delay_ns %llu out of 0..%llu",
			 (unsigned long long)p->link_delay_ns,
			 (unsigned long long)AIF_RHOST_LINK_DELAY_MAX);
		return NULL;
	}
	if (p->wire_model >= AIF_WIRE_MODEL_MAX) {
		snprintf(err, err_len, "wire model %u unknown", p->wire_model);
		return NULL;
	}
	if ((unsigned)p->cnp > AIF_RHOST_CNP_FRAME ||
	    (unsigned)p->gbn_timer > AIF_RHOST_GBN_TIMER_PROGRESS) {
		snprintf(err, err_len, "cnp or gbn_timer: not one of the modes");
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
	if (h->p.link_delay_ns == AIF_RHOST_LINK_DELAY_FABRIC)
		h->p.link_delay_ns = 0; /* on its own: no fabric */
	h->out_cap = OUT_MIN;
	h->out = malloc(sizeof(*h->out) * h->out_cap);
	if (h->out == NULL) {
		free(h);
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	h->pool = pool;
	h->max_qps = max_qps;
	aif_rng_seed(&h->rng, (p->seed * 0x9E3779B97F4A7C15ull) ^ p->ip ^ 0x5bd1e995);
	h->prio_data = p->prio_of_dscp[p->dscp] & 7;
	h->prio_ack = p->prio_of_dscp[p->ack_dscp] & 7;
	h->prio_cnp = p->prio_of_dscp[p->cnp_dscp] & 7;
	aif_pfc_rx_init(&h->pause);
	if (p->wire_model == AIF_WIRE_NS3)
		h->pause.round_ns = AIF_NS_PER_US; /* ns-3's PauseHeader: whole us */
	rhost_rto_floors(h);
	/* without the flag's registration frames stay whole */
	h->light = p->light_frames && aif_frame_light_enable() == 0;
	return h;
}

void
aif_rhost_free(struct aif_rhost *h)
{
	if (h == NULL)
		return;
	for (uint32_t i = 0; i < h->out_n; i++)
		rte_pktmbuf_free(h->out[(h->out_h + i) & (h->out_cap - 1)].m);
	for (uint32_t i = 0; i < h->n_qps; i++) {
		free(h->qps[i].m);
		free(h->qps[i].ooo);
		free(h->qps[i].sr);
	}
	free(h->qps);
	free(h->busy);
	rhost_busy_free(&h->bt);
	free(h->acks.e);
	free(h->cnps.e);
	free(h->in.e);
	free(h->react.e);
	free(h->soon.e);
	free(h->tm);
	free(h->out);
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

/* Room for cap QPs (set-up time only, connect before the run: QPs move). */
static int
qps_room(struct aif_rhost *h, uint32_t cap)
{
	if (cap <= h->cap_qps)
		return 0;
	struct qp *qps = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*qps) * cap);
	if (qps == NULL)
		return -1;
	if (h->n_qps)
		memcpy(qps, h->qps, sizeof(*qps) * h->n_qps);
	free(h->qps);
	h->qps = qps;
	if (grow((void **)&h->busy, sizeof(*h->busy), cap) != 0)
		return -1;
	h->cap_qps = cap;
	return 0;
}

int
aif_rhost_reserve_qps(struct aif_rhost *h, uint32_t n)
{
	uint64_t want = (uint64_t)h->n_qps + n;

	return qps_room(h, want < h->max_qps ? (uint32_t)want : h->max_qps);
}

static int
qp_new(struct aif_rhost *h, uint32_t *qi)
{
	if (h->n_qps == h->max_qps)
		return -1;
	if (h->n_qps == h->cap_qps &&
	    qps_room(h, RTE_MIN(h->max_qps, h->cap_qps ? h->cap_qps * 2 : 16)) != 0)
		return -1;
	struct qp *q = &h->qps[h->n_qps];
	memset(q, 0, sizeof(*q));
	if (h->p.ooo) {
		q->ooo = calloc(1, sizeof(*q->ooo));
		if (q->ooo == NULL)
			return -1;
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

	free(q->ooo);
	free(q->sr);
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
	if ((b->p.ooo && (x->sr = calloc(1, sizeof(*x->sr))) == NULL) ||
	    (a->p.ooo && (y->sr = calloc(1, sizeof(*y->sr))) == NULL)) {
		qp_drop_last(b);
		qp_drop_last(a);
		return -1;
	}
	a->nx_ok = b->nx_ok = false;
	a->said_ok = b->said_ok = false;
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
	/* the busy QPs' trees grow with the most busy at once, not the QPs */
	if (q->busy_pos == UINT32_MAX && h->n_busy == h->bt.cap &&
	    rhost_busy_reserve(&h->bt, h->n_busy + 1) != 0)
		return -1;
	if (q->m_n == q->m_cap) {
		uint32_t cap = q->m_cap ? q->m_cap * 2 : 1;
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

/* ---- the host's loop ---- */

/* out[] twice as long (full); 0, or -1 when it cannot grow. */
static int
out_grow(struct aif_rhost *h)
{
	uint32_t cap = h->out_cap * 2;
	struct outf *o = cap <= OUT_MAX ? malloc(sizeof(*o) * cap) : NULL;

	if (o == NULL) {
		h->out_nomem = true;
		return -1;
	}
	for (uint32_t i = 0; i < h->out_n; i++)
		o[i] = h->out[(h->out_h + i) & (h->out_cap - 1)];
	free(h->out);
	h->out = o;
	h->out_h = 0;
	h->out_cap = cap;
	return 0;
}

/* Run every event due at or before now_ns, in time order; true when it
 * stopped for want of room in out[]. */
static bool
advance(struct aif_rhost *h, aif_time_ns now_ns)
{
	uint64_t now_ps = now_ns * PS_PER_NS;
	struct next nx;
	bool full = false, known = h->nx_ok;

	if (known) /* what the last call left, nothing changed since */
		nx = h->nx;
	for (;;) {
		const struct ctrl *in = cfifo_head(&h->in), *re = cfifo_head(&h->react);
		uint64_t t_in = in ? in->at * PS_PER_NS : NEVER_PS;
		uint64_t t_re = re ? re->at * PS_PER_NS : NEVER_PS;
		uint64_t t_tm = h->tm_n ? h->tm[0].at * PS_PER_NS : NEVER_PS;
		if (!known)
			rhost_next_send(h, &nx);
		known = false;
		uint64_t t_rto = nx.rto_ns == AIF_TIME_NS_NEVER ? NEVER_PS : nx.rto_ns * PS_PER_NS;
		uint64_t e = RTE_MIN(RTE_MIN(t_in, t_re), RTE_MIN(RTE_MIN(t_tm, t_rto), nx.start_ps));
		if (e > now_ps || e == NEVER_PS)
			break;
		h->said_ok = false; /* an event acted on: what it said may move */
		if (e > h->clock_ps && (e != nx.start_ps || out_room(h)))
			h->clock_ps = e;
		if (e == t_in) {
			struct ctrl c = *in;
			cfifo_pop(&h->in);
			rhost_on_ack(h, &c);
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
			aif_time_ns rto_ns;
			uint32_t qi = h->busy[rhost_busy_first_rto(&h->bt, h->n_busy, &rto_ns)];
			rhost_on_timeout(h, qi, nx.rto_ns);
			qp_changed(h, qi);
		} else if (h->out_n == h->out_cap && out_grow(h) != 0) {
			full = true;
			break; /* nobody collects: wait */
		} else if (nx.kind < 0) {
			uint32_t qi = h->busy[nx.busy_i];
			rhost_send_data(h, &nx);
			qp_changed(h, qi);
		} else {
			rhost_send_ctrl(h, &nx);
		}
	}
	while (h->soon.n && cfifo_head(&h->soon)->at <= now_ns) {
		cfifo_pop(&h->soon);
		h->said_ok = false;
	}
	h->nx = nx; /* computed last, nothing changed since */
	h->nx_ok = true;
	return full;
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
		h->out_h = (h->out_h + 1) & (h->out_cap - 1);
		h->out_n--;
	}
	if (k != 0)
		h->said_ok = false;
	if (k < n && full)
		advance(h, now_ns); /* room in out[] again */
	h->active--;
	return k;
}

static aif_time_ns
rhost_rx_next_ns(struct aif_port *port, uint16_t queue)
{
	struct aif_rhost *h = port->ctx;
	aif_time_ns t = AIF_TIME_NS_NEVER;

	(void)queue;
	if (h->said_ok) /* nothing it reads changed since it was asked */
		return h->said;
	if (h->out_n)
		t = h->out[h->out_h].at;
	if (out_room(h)) {
		if (h->soon.n)
			t = RTE_MIN(t, cfifo_head(&h->soon)->at);
		if (h->tm_n)
			t = RTE_MIN(t, h->tm[0].at);
		if (!h->nx_ok) { /* kept for the next advance: nothing changes before it */
			rhost_next_send(h, &h->nx);
			h->nx_ok = true;
		}
		const struct next *nx = &h->nx;
		t = RTE_MIN(t, nx->rto_ns);
		if (nx->start_ps != NEVER_PS) /* when it would reach the switch */
			t = RTE_MIN(t, (nx->start_ps + ser_ps(h, nx->wire) + PS_PER_NS - 1) /
					       PS_PER_NS + h->p.link_delay_ns);
	}
	h->said = t;
	h->said_ok = true;
	return t;
}

/* Wire bytes of a frame the switch sends the host, under its wire model. */
static inline uint32_t
rx_wire_bytes(const struct aif_rhost *h, const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t buf[AIF_WIRE_PARSE_BYTES];

	if (likely(h->p.wire_model == AIF_WIRE_ETHERNET))
		return aif_link_wire_bytes(len);
	uint32_t n = RTE_MIN(len, (uint32_t)AIF_WIRE_PARSE_BYTES);
	const uint8_t *f = aif_frame_read(m, 0, n, buf);
	return aif_wire_ns3_bytes(f, f != NULL ? n : 0, len);
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
	uint32_t acks = h->acks.n, cnps = h->cnps.n, soon = h->soon.n;
	uint64_t msgs = h->ctr.qp.msgs_rcvd;
	for (i = 0; i < n; i++) {
		uint64_t s = aif_link_start_ps(h->rx_free_ps, now_ps);
		if (s > now_ps)
			break;
		uint32_t wire = rx_wire_bytes(h, pkts[i]);
		h->rx_free_ps = s + ser_ps(h, wire);
		h->ctr.rx_wire_bytes += wire;
		/* its last bit in: off the switch's wire, then the cable */
		rhost_on_frame(h, pkts[i],
			       (h->rx_free_ps + PS_PER_NS - 1) / PS_PER_NS + h->p.link_delay_ns);
		rte_pktmbuf_free(pkts[i]);
	}
	h->ctr.refused += n - i;
	/* what it was sent changes what it sends next only where it queued an
	 * ACK, NAK or CNP, or a callback ran (a post or timer also wakes it);
	 * what it says of its next frame, also where a record matters now
	 * (an ACK, NAK or CNP received only waits in in[] and react[]) */
	if (h->acks.n != acks || h->cnps.n != cnps || h->ctr.qp.msgs_rcvd != msgs)
		h->nx_ok = false;
	if (!h->nx_ok || h->soon.n != soon)
		h->said_ok = false;
	h->active--;
	return i;
}

/* PFC or PAUSE from the switch: the host stops sending on those priorities. */
static uint16_t
rhost_tx_ctrl(struct aif_port *port, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	struct aif_rhost *h = port->ctx;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t s = aif_link_start_ps(h->rx_free_ps, now_ns * PS_PER_NS);
	uint8_t buf[64];
	const uint8_t *d = aif_frame_read(m, 0, RTE_MIN(len, 64u), buf);

	(void)queue;
	h->active++;
	advance(h, now_ns);
	h->active--;
	h->nx_ok = false; /* a pause moves the next start */
	h->said_ok = false;
	uint32_t wire = rx_wire_bytes(h, m);
	h->rx_free_ps = s + ser_ps(h, wire);
	h->ctr.rx_wire_bytes += wire;
	int xoff = aif_pfc_host_hear(&h->pause, h->pause_from_ns, d, RTE_MIN(len, 64u),
				     h->p.rate_bps,
				     (h->rx_free_ps + PS_PER_NS - 1) / PS_PER_NS + h->p.link_delay_ns);
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
	aif_port_attach(port, &aif_port_rhost_ops, h, (uint32_t)(h->p.rate_bps / 1000000), 1, 1);
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

void
aif_rhost_ctr_ranges(struct aif_rhost *h, void (*fn)(void *p, size_t len, void *arg), void *arg)
{
	fn(&h->ctr, sizeof(h->ctr), arg);
	for (uint32_t i = 0; i < h->n_qps; i++)
		fn(&h->qps[i].ctr, sizeof(h->qps[i].ctr), arg);
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

int
aif_rhost_qp_state(const struct aif_rhost *h, uint32_t qp, aif_time_ns now_ns,
		   struct aif_rhost_qp_state *st)
{
	if (qp >= h->n_qps)
		return -1;
	const struct qp *q = &h->qps[qp];
	struct aif_dcqcn_rp rp = q->rp; /* its timers run up to now_ns */
	uint64_t bytes = 0;

	if (h->p.dcqcn && now_ns != AIF_TIME_NS_NEVER)
		aif_dcqcn_rp_advance(&rp, &h->p.dc, now_ns);
	/* payload of packets [una, high): message by message */
	for (uint32_t i = 0, j = q->m_head; i < q->m_n; i++, j = (j + 1) & (q->m_cap - 1)) {
		const struct msg *m = &q->m[j];
		uint64_t lo = RTE_MAX(q->una, m->first), hi = RTE_MIN(q->high, m->first + m->npkts);
		if (m->first >= q->high)
			break;
		if (lo >= hi)
			continue;
		bytes += (hi - lo) * h->p.mtu;
		if (hi == m->first + m->npkts) /* the last is shorter */
			bytes -= (uint64_t)m->npkts * h->p.mtu - m->bytes;
	}
	*st = (struct aif_rhost_qp_state){
		.rate_bps = h->p.dcqcn ? rp.rate_bps : (double)h->p.rate_bps,
		.target_bps = h->p.dcqcn ? rp.target_bps : (double)h->p.rate_bps,
		.alpha = rp.alpha,
		.inflight_pkts = q->nxt > q->una ? q->nxt - q->una : 0,
		.inflight_bytes = bytes,
		.unsent_pkts = q->end > q->nxt ? q->end - q->nxt : 0,
		.cnps_rx = q->ctr.cnps_rx,
		.naks_rx = q->ctr.naks_rx,
	};
	return 0;
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
