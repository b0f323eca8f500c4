/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host's responder (rhost_int.h): frames from the switch
 * parsed and checked, data accepted in order (or kept out of order), and
 * the ACKs, NAKs and CNPs that answer it queued.
 */
#include <rte_mbuf.h>

#include "rhost_int.h"

/* ---- the responder: a data frame arrived at at ---- */

static void
queue_ctrl(struct aif_rhost *h, struct cfifo *f, uint32_t qi, uint8_t kind, uint32_t psn,
	   uint32_t sack, aif_time_ns at)
{
	if (cfifo_push(f, &(struct ctrl){ .at = at, .qp = qi, .psn = psn, .sack = sack,
					  .kind = kind }) != 0)
		h->ctr.ctrl_overflow++;
}

/* An ACK or NAK for a packet that came in at at: with ack_flag, a pending
 * congestion notification rides on it. */
static void
answer(struct aif_rhost *h, uint32_t qi, uint8_t kind, uint32_t psn, uint32_t sack,
       aif_time_ns at)
{
	struct qp *q = &h->qps[qi];

	if (cfifo_push(&h->acks, &(struct ctrl){ .at = at + h->p.ack_delay_ns, .qp = qi,
						 .psn = psn, .sack = sack, .kind = kind,
						 .cnp = q->cnp_pending }) != 0) {
		h->ctr.ctrl_overflow++;
		return;
	}
	q->cnp_pending = false;
}

/* A packet that calls for congestion notification (CE-marked, or out of
 * order with cnp_on_ooo) came in at at: a CNP frame, or a mark for the
 * next ACK/NAK, if the notification point lets one go. */
static void
cnp_maybe(struct aif_rhost *h, uint32_t qi, aif_time_ns at)
{
	if (!h->p.dcqcn || !aif_dcqcn_np_ce(&h->qps[qi].np, &h->p.dc, at))
		return;
	if (h->p.cnp == AIF_RHOST_CNP_FRAME)
		queue_ctrl(h, &h->cnps, qi, K_CNP, 0, 0, at + h->p.cnp_delay_ns);
	else
		h->qps[qi].cnp_pending = true;
}

/* Go-back-N, a packet ahead of the expected PSN (dropped): a NAK for the
 * expected one if none went for it yet or the last went nak_interval_ns
 * ago; else nothing (ns-3's ReceiverCheckSeq). */
static void
gbn_ahead(struct aif_rhost *h, uint32_t qi, bool ce, aif_time_ns at)
{
	struct qp *q = &h->qps[qi];
	bool flag = h->p.cnp == AIF_RHOST_CNP_ACK_FLAG;

	if (!flag && ce)
		cnp_maybe(h, qi, at);
	if (!flag && h->p.cnp_on_ooo)
		cnp_maybe(h, qi, at);
	if (q->nak_any && q->nak_psn == q->epsn && at < q->nak_next_ns)
		return; /* with ack_flag, no notification either */
	q->nak_any = true;
	q->nak_psn = q->epsn;
	q->nak_next_ns = at + RTE_MIN(h->p.nak_interval_ns, AIF_TIME_NS_NEVER - at);
	if (flag && (ce || h->p.cnp_on_ooo))
		cnp_maybe(h, qi, at);
	answer(h, qi, K_NAK, q->epsn, 0, at);
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

	bool ce = (f[15] & 3) == 3;

	if (ce)
		q->ctr.rx_ce++, h->ctr.qp.rx_ce++;
	if (d > 0 && d < PSN_HALF && !h->p.ooo) {
		q->ctr.rx_ooo++, h->ctr.qp.rx_ooo++;
		q->ctr.rx_ooo_drop++, h->ctr.qp.rx_ooo_drop++;
		gbn_ahead(h, qi, ce, at);
		return;
	}
	if (ce)
		cnp_maybe(h, qi, at);
	if (d >= PSN_HALF) {
		/* behind: a duplicate (a go-back resend of what arrived) */
		q->ctr.rx_dup++, h->ctr.qp.rx_dup++;
		if (ackreq || ++q->since_ack >= h->p.ack_every) {
			q->since_ack = 0;
			answer(h, qi, K_ACK, (q->epsn - 1) & PSN_MASK, 0, at);
		}
		return;
	}
	if (d > 0) {
		q->ctr.rx_ooo++, h->ctr.qp.rx_ooo++;
		if (d >= AIF_RHOST_OOO_WINDOW) {
			q->ctr.rx_ooo_drop++, h->ctr.qp.rx_ooo_drop++;
			return;
		}
		if (bit_get(q->ooo->bits, psn)) {
			q->ctr.rx_dup++, h->ctr.qp.rx_dup++;
		} else {
			bit_set(q->ooo->bits, psn, true);
			bit_set(q->ooo->lasts, psn, last);
			q->ctr.rx_packets++, h->ctr.qp.rx_packets++;
			q->ctr.rx_bytes += payload, h->ctr.qp.rx_bytes += payload;
		}
		/* a NAK with the cumulative point and this PSN (IRN's SACK; again
		 * for a duplicate: the requester did not know) */
		answer(h, qi, K_SACK, q->epsn, psn, at);
		return;
	}
	/* the expected PSN */
	q->ctr.rx_packets++, h->ctr.qp.rx_packets++;
	q->ctr.rx_bytes += payload, h->ctr.qp.rx_bytes += payload;
	q->epsn = (q->epsn + 1) & PSN_MASK;
	bool end = last;
	if (last)
		received_msg(h, qi, at);
	if (h->p.ooo) {
		/* what arrived ahead of it is in order now */
		while (bit_get(q->ooo->bits, q->epsn)) {
			bool l = bit_get(q->ooo->lasts, q->epsn);
			bit_set(q->ooo->bits, q->epsn, false);
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
		answer(h, qi, K_ACK, (q->epsn - 1) & PSN_MASK, 0, at);
	}
}

/* An ACK/NAK/CNP for the requester: acted on in time order (advance); the
 * host wakes for it if it may finish a message or change what is sent. */
static void
on_ctrl_frame(struct aif_rhost *h, uint32_t qi, uint8_t kind, uint32_t psn, uint32_t sack,
	      bool cnp, aif_time_ns at)
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
					       .kind = kind, .cnp = cnp }) != 0 ||
	    (wake && cfifo_push(&h->soon, &(struct ctrl){ .at = at }) != 0))
		h->ctr.ctrl_overflow++;
}

/* The ICRC of the IP packet of l3 bytes in frame m, of which f holds the
 * first have bytes: all of it, or (a light frame) the headers, the rest
 * up to the ICRC being zeros.  The same check either way: the ICRC of the
 * bytes that arrived against the one carried.  A light frame whose ICRC
 * waits (frame.h) carries the one these bytes give: nothing to compute. */
static bool
icrc_ok(const struct rte_mbuf *m, const uint8_t *f, uint32_t have, uint32_t l3)
{
	uint8_t tb[AIF_ROCE_ICRC_LEN];
	const uint8_t *t;

	if (have < ETH_LEN + l3 && aif_frame_icrc_deferred(m) &&
	    rte_pktmbuf_pkt_len(m) == ETH_LEN + l3)
		return true;
	if (have >= ETH_LEN + l3)
		return aif_roce_icrc_ok(f + ETH_LEN, l3);
	t = aif_frame_read(m, ETH_LEN + l3 - AIF_ROCE_ICRC_LEN, AIF_ROCE_ICRC_LEN, tb);
	return t != NULL &&
	       aif_roce_icrc_zeros(f + ETH_LEN, have - ETH_LEN,
				   l3 - (have - ETH_LEN) - AIF_ROCE_ICRC_LEN) ==
		       ((uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
			(uint32_t)t[3] << 24);
}

/* A frame from the switch whose last bit arrives at at. */
void
rhost_on_frame(struct aif_rhost *h, struct rte_mbuf *m, aif_time_ns at)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	/* a light frame (frame.h): its headers, read where they are */
	uint32_t have = aif_frame_is_light(m) ? aif_frame_head_len(m) : len;
	const uint8_t *f;

	h->ctr.rx_frames++;
	if (len < HDR_LEN + AIF_ROCE_ICRC_LEN || len > sizeof(h->frame) || have < HDR_LEN ||
	    (f = aif_frame_read(m, 0, have, h->frame)) == NULL)
		goto other;
	if (f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 || f[23] != 17 ||
	    get32(f + 30) != h->p.ip || f[36] != 0x12 || f[37] != 0xb7)
		goto other;
	uint32_t l3 = (uint32_t)(f[16] << 8 | f[17]);
	if (l3 + ETH_LEN > len || l3 < 20 + 8 + AIF_ROCE_BTH_LEN + AIF_ROCE_ICRC_LEN)
		goto other;
	uint8_t op = f[BTH_OFF];
	bool data = op <= OP_WRITE_ONLY && op != 0x03 && op != 0x05 && op != 0x09;
	if (have < len && !(have + AIF_ROCE_ICRC_LEN == len && aif_frame_icrc_deferred(m)) &&
	    (!data || have + AIF_ROCE_ICRC_LEN > ETH_LEN + l3)) {
		/* not a payload of zeros after the headers, nor every byte but
		 * an ICRC that waits: read it whole */
		if ((f = aif_frame_read(m, 0, len, h->frame)) == NULL)
			goto other;
		have = len;
	}
	if (h->p.icrc && !icrc_ok(m, f, have, l3)) {
		h->ctr.rx_icrc_bad++;
		return;
	}
	uint32_t qpn = get24(f + BTH_OFF + 5);
	if (qpn < AIF_RHOST_QPN_BASE || qpn - AIF_RHOST_QPN_BASE >= h->n_qps)
		goto other;
	uint32_t qi = qpn - AIF_RHOST_QPN_BASE;
	uint32_t body = l3 - 20 - 8 - AIF_ROCE_BTH_LEN - AIF_ROCE_ICRC_LEN;
	uint32_t pad = (f[BTH_OFF + 1] >> 4) & 3;
	switch (op) {
	case OP_SEND_FIRST: case OP_SEND_MIDDLE: case OP_SEND_LAST: case OP_SEND_ONLY:
	case OP_WRITE_MIDDLE: case OP_WRITE_LAST:
		if (body < pad)
			goto other; /* more padding than payload: malformed */
		on_data(h, qi, f, body - pad, at);
		return;
	case OP_WRITE_FIRST: case OP_WRITE_ONLY:
		if (body < RETH_LEN + pad)
			goto other;
		on_data(h, qi, f, body - RETH_LEN - pad, at);
		return;
	case OP_ACK: {
		if (body < AETH_LEN)
			goto other;
		uint8_t syn = f[HDR_LEN];
		bool becn = f[BTH_OFF + 4] & BTH_BECN; /* congestion notification on it */
		if (syn >> 5 == 0)
			on_ctrl_frame(h, qi, K_ACK, get24(f + BTH_OFF + 9), 0, becn, at);
		else if (syn >> 5 == 3 && (syn & 0x1F) == 0 && body >= AETH_LEN + SACK_LEN)
			on_ctrl_frame(h, qi, K_SACK, get24(f + BTH_OFF + 9),
				      get24(f + HDR_LEN + AETH_LEN + 1), becn, at);
		else if (syn >> 5 == 3 && (syn & 0x1F) == 0)
			on_ctrl_frame(h, qi, K_NAK, get24(f + BTH_OFF + 9), 0, becn, at);
		else
			goto other;
		return;
	}
	case OP_CNP:
		on_ctrl_frame(h, qi, K_CNP, 0, 0, false, at);
		return;
	default:
		break;
	}
other:
	h->ctr.rx_other++;
}

