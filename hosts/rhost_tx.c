/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host's sending side (rhost_int.h): which frame goes
 * next and when (data paced per QP, round robin, ACKs, NAKs and CNPs
 * first, PFC honoured), frames built and put on the wire.
 */
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "../dataplane/link.h"
#include "rhost_int.h"

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

uint32_t
aif_rhost_data_wire_bytes(const struct aif_rhost_params *p, uint32_t len, bool first)
{
	if (p->wire_model == AIF_WIRE_NS3)
		return len + AIF_WIRE_NS3_DATA_HDR_BYTES;
	return aif_link_wire_bytes(aif_rhost_data_frame_len(p, len, first));
}

uint32_t
aif_rhost_ack_wire_bytes(const struct aif_rhost_params *p)
{
	if (p->wire_model == AIF_WIRE_NS3)
		return AIF_WIRE_NS3_ACK_BYTES;
	return aif_link_wire_bytes(aif_rhost_ack_frame_len());
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

/* A light frame (frame.h) of h->frame's head bytes, zeros zero bytes and
 * its ICRC, computed where its bytes are observed (none without ICRCs);
 * NULL: no mbuf. */
static struct rte_mbuf *
light_mbuf(struct aif_rhost *h, uint32_t head, uint32_t zeros)
{
	memset(h->frame + head, 0, AIF_ROCE_ICRC_LEN);
	struct rte_mbuf *m = aif_frame_light_from_bytes(h->pool, h->frame, head, zeros);
	if (m != NULL && h->p.icrc)
		aif_frame_icrc_defer(m);
	return m;
}

/* An mbuf with h->frame's len bytes (chained if need be); NULL: no mbuf.
 * With light frames and ICRCs, a light one of no zeros: its bytes are all
 * there but the ICRC's. */
static struct rte_mbuf *
frame_mbuf(struct aif_rhost *h, uint32_t len)
{
	if (h->light && h->p.icrc)
		return light_mbuf(h, len - AIF_ROCE_ICRC_LEN, 0);
	if (h->p.icrc)
		aif_roce_icrc_put(h->frame + ETH_LEN, len - ETH_LEN);
	else
		memset(h->frame + len - 4, 0, 4);
	return aif_mbuf_from_bytes(h->pool, h->frame, len);
}

/* A data frame of len bytes whose headers, head bytes, are in h->frame and
 * whose payload is zeros: light (frame.h), its ICRC computed where its
 * bytes are observed (none without ICRCs), or whole. */
static struct rte_mbuf *
data_mbuf(struct aif_rhost *h, uint32_t head, uint32_t len)
{
	uint32_t zeros = len - head - AIF_ROCE_ICRC_LEN;

	if (!h->light || zeros == 0) {
		memset(h->frame + head, 0, zeros);
		return frame_mbuf(h, len);
	}
	return light_mbuf(h, head, zeros);
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

static inline __attribute__((always_inline)) void
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
		nx->wire = wire_bytes(h, len, 0, false);
		nx->kind = kind;
	}
}

void
rhost_next_send(const struct aif_rhost *h, struct next *nx)
{
	nx->start_ps = NEVER_PS;
	nx->kind = -1;
	nx->rto_ns = AIF_TIME_NS_NEVER;
	nx->busy_i = UINT32_MAX;
	if (h->n_busy == 0)
		goto ctrl;
	/* data: the earliest any QP may start, but no earlier than the wire
	 * and the clock allow; round robin among those: the first QP from rr
	 * ready by the wire's time if any, else the first of the earliest.
	 * The earliest timeout (its QP: rhost_busy_first_rto when it fires). */
	uint64_t floor_ps = RTE_MAX(h->wire_free_ps, h->clock_ps), best = NEVER_PS;
	nx->rto_ns = rhost_busy_min_rto(&h->bt);
	uint32_t i = rhost_busy_next(&h->bt, h->n_busy, h->rr % h->n_busy, floor_ps, &best);
	if (i != UINT32_MAX) {
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
		nx->wire = wire_bytes(h, nx->len, len, true);
	}
ctrl:
	ctrl_candidate(h, &h->acks, h->prio_ack, 0, nx);
	ctrl_candidate(h, &h->cnps, h->prio_cnp, 1, nx);
}

/* Hand a decided frame to the wire: it reaches the switch at start + ser
 * + the cable's delay. */
static void
wire_put(struct aif_rhost *h, struct rte_mbuf *m, uint64_t start_ps, uint32_t wire)
{
	uint64_t fin = start_ps + ser_ps(h, wire);

	h->wire_free_ps = fin;
	h->ctr.tx_frames++;
	h->ctr.tx_wire_bytes += wire;
	h->out[(h->out_h + h->out_n++) & (h->out_cap - 1)] = (struct outf){
		.m = m, .at = (fin + PS_PER_NS - 1) / PS_PER_NS + h->p.link_delay_ns };
}

void
rhost_send_ctrl(struct aif_rhost *h, const struct next *nx)
{
	struct cfifo *f = nx->kind == 0 ? &h->acks : &h->cnps;
	struct ctrl c = *cfifo_head(f);
	struct qp *q = &h->qps[c.qp];
	struct rte_mbuf *m;

	if (c.kind == K_CNP) {
		headers(h, q, CNP_LEN, h->p.cnp_dscp, 0, OP_CNP, 0, BTH_BECN, false, 0);
		memset(h->frame + HDR_LEN, 0, CNP_PAD);
	} else {
		/* congestion notification on it: the BTH's BECN bit */
		headers(h, q, nx->len, h->p.ack_dscp, 0, OP_ACK, 0, c.cnp ? BTH_BECN : 0, false,
			c.psn);
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
		h->wire_free_ps = nx->start_ps + ser_ps(h, nx->wire);
		return;
	}
	cfifo_pop(f);
	if (c.kind == K_CNP)
		q->ctr.cnps_tx++, h->ctr.qp.cnps_tx++;
	else if (c.kind == K_ACK)
		q->ctr.acks_tx++, h->ctr.qp.acks_tx++;
	else
		q->ctr.naks_tx++, h->ctr.qp.naks_tx++;
	if (c.cnp && c.kind != K_CNP)
		q->ctr.cnps_tx++, h->ctr.qp.cnps_tx++;
	wire_put(h, m, nx->start_ps, nx->wire);
}

void
rhost_send_data(struct aif_rhost *h, const struct next *nx)
{
	uint32_t qi = h->busy[nx->busy_i];
	struct qp *q = &h->qps[qi];
	uint64_t idx = next_idx(q);
	const struct msg *mm = msg_of(q, idx);
	uint32_t len, flen, wire;
	uint8_t op;
	bool first;
	struct rte_mbuf *m;

	pkt_shape(h, mm, idx, &len, &op, &first);
	flen = aif_rhost_data_frame_len(&h->p, len, first);
	wire = wire_bytes(h, flen, len, true);
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
	m = data_mbuf(h, off, flen);
	if (m == NULL) {
		h->ctr.nombuf++;
		h->wire_free_ps = nx->start_ps + ser_ps(h, wire);
		return;
	}
	aif_time_ns start_ns = nx->start_ps / PS_PER_NS;
	if (q->rtx_pending) {
		q->sr->rtx_scan = rhost_sack_next(q, idx + 1);
		q->rtx_pending = q->sr->rtx_scan < q->sr->rtx_lim;
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
	if (h->p.wire_model == AIF_WIRE_NS3)
		q->next_tx_ps = nx->start_ps + aif_wire_ns3_pace_ps(wire, rate);
	else
		q->next_tx_ps = nx->start_ps + (uint64_t)((double)wire * 8 * 1e12 / rate + 0.5);
	/* go-back-N's per-packet timer restarts at every packet sent */
	if (q->rto_at == AIF_TIME_NS_NEVER ||
	    (q->sr == NULL && h->p.gbn_timer == AIF_RHOST_GBN_TIMER_PER_PACKET))
		q->rto_base = start_ns;
	rhost_rto_arm(h, q); /* RTO_low may no longer apply */
	h->rr = (nx->busy_i + 1) % (h->n_busy ? h->n_busy : 1);
	wire_put(h, m, nx->start_ps, wire);
}

