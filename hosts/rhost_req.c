/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host's requester (rhost_int.h): what ACKs, NAKs and
 * SACKs acknowledge, go-back-N and selective repeat, retransmit timeouts,
 * their floors and the RTT estimator.
 */
#include <rte_common.h>

#include "rhost_int.h"

/* The timeouts' floors (rhost.h): the parameters, or RTO_K x (the base RTT
 * + the serialization of a few packets at the host rate) when that is
 * longer. */
void
rhost_rto_floors(struct aif_rhost *h)
{
	const struct aif_rhost_params *p = &h->p;
	aif_time_ns pkt = (ser_ps(h, aif_rhost_data_wire_bytes(p, p->mtu, false)) + PS_PER_NS - 1) /
			  PS_PER_NS;

	h->rto_high_ns = RTE_MAX(p->rto_ns,
				 AIF_RHOST_RTO_K * (p->base_rtt_ns + AIF_RHOST_RTO_PKTS * pkt));
	h->rto_gbn_ns = RTE_MAX(p->rto_gbn_ns,
				AIF_RHOST_RTO_K * (p->base_rtt_ns + AIF_RHOST_RTO_PKTS * pkt));
	h->rto_low_ns = RTE_MAX(p->rto_low_ns,
				AIF_RHOST_RTO_K * (p->base_rtt_ns + (aif_time_ns)p->rto_low_pkts * pkt));
}

void
aif_rhost_set_base_rtt(struct aif_rhost *h, aif_time_ns rtt_ns)
{
	h->p.base_rtt_ns = rtt_ns;
	rhost_rto_floors(h);
}

aif_time_ns
aif_rhost_rto_ns(const struct aif_rhost *h, bool low)
{
	return low ? h->rto_low_ns : h->rto_high_ns;
}

aif_time_ns
aif_rhost_rto_gbn_ns(const struct aif_rhost *h)
{
	return h->rto_gbn_ns;
}

/* The first packet at or after i that q's peer has not SACKed (q->high if
 * none). */
uint64_t
rhost_sack_next(const struct qp *q, uint64_t i)
{
	if (q->sr == NULL)
		return i;
	while (i < q->high) {
		uint32_t b = (uint32_t)(i % AIF_RHOST_OOO_WINDOW);
		uint64_t w = ~q->sr->sacked[b / 64] >> (b % 64);
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
		uint64_t *w = &q->sr->sacked[b / 64];
		q->sr->n_sacked -= (uint32_t)__builtin_popcountll(*w & m);
		*w &= ~m;
		from += n;
	}
}

/* q's timer.  Go-back-N peer: rto_base + go-back-N's timeout (with the
 * per-packet timer nothing more, as ns-3).  Selective repeat: rto_base +
 * RTO_low when at most rto_low_pkts packets are in flight, else +
 * RTO_high.  Never less than the measured SRTT + 4 RTTVAR but with the
 * per-packet timer.  In flight: sent after the highest SACKed packet and
 * not acknowledged (below it a packet arrived, or is lost, or is late). */
void
rhost_rto_arm(const struct aif_rhost *h, struct qp *q)
{
	if (q->una >= q->high) {
		q->rto_at = AIF_TIME_NS_NEVER;
		return;
	}
	if (q->sr == NULL && h->p.gbn_timer == AIF_RHOST_GBN_TIMER_PER_PACKET) {
		q->rto_at = q->rto_base + h->rto_gbn_ns;
		return;
	}
	bool low = q->sr != NULL && q->high - RTE_MAX(q->una, q->sr->sack_high) <= h->p.rto_low_pkts;
	aif_time_ns r = q->sr == NULL ? h->rto_gbn_ns : low ? h->rto_low_ns : h->rto_high_ns;
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

/* ---- the requester's side of ACKs, NAKs, timeouts ---- */

/* Everything before idx arrived: messages done, timer. */
static void
acked_to(struct aif_rhost *h, uint32_t qi, uint64_t idx, aif_time_ns at)
{
	struct qp *q = &h->qps[qi];

	if (idx <= q->una)
		return;
	if (q->sr != NULL)
		sack_clear(q, q->una, idx);
	q->una = idx;
	if (q->nxt < q->una)
		q->nxt = q->una;
	if (q->sr != NULL) {
		q->sr->sack_high = RTE_MAX(q->sr->sack_high, q->una);
		q->sr->rtx_scan = rhost_sack_next(q, RTE_MAX(q->sr->rtx_scan, q->una));
		q->rtx_pending = q->sr->rtx_scan < q->sr->rtx_lim;
	}
	if (q->rtt_idx != NONE_IDX && q->rtt_idx < idx) {
		rtt_sample(q, at - q->rtt_t0);
		q->rtt_idx = NONE_IDX;
	}
	q->rto_base = at;
	rhost_rto_arm(h, q);
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
		if (!((q->sr->sacked[b / 64] >> (b % 64)) & 1)) {
			q->sr->sacked[b / 64] |= 1ull << (b % 64);
			q->sr->n_sacked++;
			q->rto_base = c->at; /* progress */
		}
		if (s == q->rtt_idx) {
			rtt_sample(q, c->at - q->rtt_t0);
			q->rtt_idx = NONE_IDX;
		}
		q->sr->sack_high = RTE_MAX(q->sr->sack_high, s + 1);
		if (q->sr->sack_high > q->una + h->p.nak_gap)
			q->sr->rtx_lim = RTE_MAX(q->sr->rtx_lim, q->sr->sack_high - h->p.nak_gap);
	} else if (c->kind == K_NAK && idx < q->high) {
		q->sr->rtx_lim = RTE_MAX(q->sr->rtx_lim, idx + 1); /* no SACK: that one is lost */
	}
	q->sr->rtx_scan = rhost_sack_next(q, RTE_MAX(q->sr->rtx_scan, q->una));
	q->rtx_pending = q->sr->rtx_scan < q->sr->rtx_lim;
	rhost_rto_arm(h, q);
}

/* Congestion notification (a CNP, or the flag on an ACK or NAK): to the
 * reaction point react_delay_ns later. */
static void
notified(struct aif_rhost *h, struct qp *q, const struct ctrl *c)
{
	q->ctr.cnps_rx++, h->ctr.qp.cnps_rx++;
	if (h->p.dcqcn)
		cfifo_push(&h->react, &(struct ctrl){ .at = c->at + h->p.react_delay_ns,
						     .qp = c->qp });
}

/* An ACK or NAK to a go-back-N requester: as rdma-hw.cc, on every NAK it
 * goes back to the oldest unacknowledged packet, one for a PSN it knows
 * arrived included (nak_rewind_stale), and the per-packet timer restarts at
 * every ACK or NAK while packets are outstanding. */
static void
gbn_ack(struct aif_rhost *h, struct qp *q, uint64_t idx, const struct ctrl *c)
{
	bool per_packet = h->p.gbn_timer == AIF_RHOST_GBN_TIMER_PER_PACKET;

	if (idx == UINT64_MAX) { /* behind una: old news */
		if (c->kind == K_NAK && h->p.nak_rewind_stale)
			q->nxt = q->una;
	} else if (c->kind == K_ACK) {
		acked_to(h, c->qp, idx + 1 > q->high ? q->high : idx + 1, c->at);
	} else {
		acked_to(h, c->qp, idx, c->at);
		if (idx < q->high || per_packet) {
			q->nxt = q->una; /* go back */
			q->rto_base = c->at;
		}
	}
	if (per_packet)
		q->rto_base = c->at;
	rhost_rto_arm(h, q);
}

void
rhost_on_ack(struct aif_rhost *h, const struct ctrl *c)
{
	struct qp *q = &h->qps[c->qp];
	uint64_t idx = idx_of(q, c->psn);

	if (c->kind == K_CNP) {
		notified(h, q, c);
		return;
	}
	if (c->kind != K_ACK)
		q->ctr.naks_rx++, h->ctr.qp.naks_rx++;
	if (q->sr == NULL) {
		gbn_ack(h, q, idx, c);
	} else if (idx == UINT64_MAX) {
		/* old news */
	} else if (c->kind == K_ACK) {
		acked_to(h, c->qp, idx + 1 > q->high ? q->high : idx + 1, c->at);
	} else {
		/* NAK: idx is what the responder expects */
		acked_to(h, c->qp, idx, c->at);
		on_sack(h, q, idx, c);
	}
	if (c->cnp) /* after the ACK, as rdma-hw.cc */
		notified(h, q, c);
}

void
rhost_on_timeout(struct aif_rhost *h, uint32_t qi, aif_time_ns at)
{
	struct qp *q = &h->qps[qi];

	q->rto_at = AIF_TIME_NS_NEVER;
	if (q->una >= q->high)
		return;
	q->ctr.timeouts++, h->ctr.qp.timeouts++;
	if (q->sr != NULL) {
		/* everything not SACKed, from una, before new data */
		q->sr->rtx_scan = rhost_sack_next(q, q->una);
		q->sr->rtx_lim = q->high;
		q->rtx_pending = q->sr->rtx_scan < q->sr->rtx_lim;
	} else {
		q->nxt = q->una;
	}
	q->rtt_idx = NONE_IDX;
	q->rto_base = at;
	rhost_rto_arm(h, q);
}

