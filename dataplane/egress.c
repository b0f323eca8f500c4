/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress with lossless QoS: MMU admission, ECN/WRED, queues, scheduler,
 * PFC reception and generation, watchdog (contract in egress.h).
 */
#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "../pipelines/rewrite.h"
#include "egress.h"
#include "frame.h"
#include "mbuf.h"
#include "shard.h"
#include "switch.h"
#include "wire.h"

static const uint8_t mmu_drop[] = {
	[AIF_MMU_DROP_SHARED_LIMIT] = AIF_DROP_BUFFER_LIMIT,
	[AIF_MMU_DROP_HEADROOM_OVERFLOW] = AIF_DROP_LOSSLESS_VIOLATION,
	[AIF_MMU_DROP_EGRESS_LIMIT] = AIF_DROP_EGRESS_LIMIT,
	[AIF_MMU_DROP_POOL_FULL] = AIF_DROP_POOL_FULL,
};

/* What the MMU charges a frame: its bytes, or under the ns-3 wire model what
 * ns-3's switch counts (wire.h: a 1,000-byte RoCE payload 1,048). */
static inline uint32_t
charge_bytes(const struct aif_qos_config *c, const struct rte_mbuf *mb)
{
	uint32_t len = rte_pktmbuf_pkt_len(mb);

	if (likely(c->wire_model == AIF_WIRE_ETHERNET))
		return len;
	return aif_wire_ns3_mmu_bytes(rte_pktmbuf_mtod(mb, const uint8_t *),
				      aif_frame_head_len(mb), len);
}

/* Frame bytes as the scheduler and shaper count them: the FCS too. */
static inline uint32_t
wire_bytes(const struct rte_mbuf *mb)
{
	return rte_pktmbuf_pkt_len(mb) + RTE_ETHER_CRC_LEN;
}

/*
 * Packet trimming (Ultra Ethernet, SAI PACKET_DISCARD_ACTION TRIM): instead
 * of dropping a UDP packet that overflows a lossy queue, keep its first
 * trim_size_bytes, mark it with trim_dscp (ECN bits kept), fix the IP and UDP
 * lengths and checksums, and queue it on trim_queue so the receiver learns of
 * the loss at once.  The RoCE ICRC no longer matches: the DSCP says why.
 * Returns false when the packet cannot be trimmed (not UDP, already short).
 */
static bool
trim(const struct aif_qos_config *c, struct rte_mbuf *mb, const struct aif_pkt *m)
{
	uint16_t keep = c->trim_size_bytes;

	if (m->l4_proto != IPPROTO_UDP || !(m->flags & AIF_PKT_F_L4) ||
	    rte_pktmbuf_pkt_len(mb) <= keep || m->l4_off + sizeof(struct rte_udp_hdr) > keep ||
	    aif_frame_materialise(mb) != 0 || rte_pktmbuf_trim(mb, (uint16_t)(rte_pktmbuf_pkt_len(mb) - keep)) != 0)
		return false;
	uint8_t *f = rte_pktmbuf_mtod(mb, uint8_t *);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f + m->l4_off);
	uint16_t l3_len = keep - m->l3_off;

	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(keep - m->l4_off));
	udp->dgram_cksum = 0;
	if (m->kind == AIF_PKT_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + m->l3_off);
		ip->total_length = rte_cpu_to_be_16(l3_len);
		ip->type_of_service = (uint8_t)(c->trim_dscp << 2 | (ip->type_of_service & 3));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = aif_ipv4_csum((const uint8_t *)ip, rte_ipv4_hdr_len(ip));
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(f + m->l3_off);
		uint32_t vtc = rte_be_to_cpu_32(ip6->vtc_flow);
		vtc = (vtc & ~(0x3Fu << 22)) | ((uint32_t)c->trim_dscp << 22);
		ip6->vtc_flow = rte_cpu_to_be_32(vtc);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(l3_len - sizeof(*ip6)));
		/* IPv6 needs the checksum (a zero one is discarded), extension
		 * headers or not: the pseudo-header's length and next header are
		 * the UDP ones, which DPDK takes from the header it is given */
		struct rte_ipv6_hdr ph = *ip6;
		ph.payload_len = udp->dgram_len;
		ph.proto = IPPROTO_UDP;
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(&ph, udp);
	}
	return true;
}

/* PFC ns-3 mode: after a packet from in is admitted, the lossless PGs of
 * in over their threshold now (ns-3's GetPauseClasses, evaluated after
 * each admission with the bytes held at that packet): a PAUSE is owed. */
static inline void
ns3_admitted(struct aif_qos *q, uint16_t in)
{
	const struct aif_pfc_tx_config *tc = &q->cfg.pfc_tx[in];
	uint8_t over = 0;

	if (likely(tc->mode != AIF_PFC_TX_NS3))
		return;
	for (uint8_t g = 0, en = tc->pfc_enable; en; g++, en >>= 1)
		if ((en & 1) && aif_mmu_should_pause(&q->mmu, in, g))
			over |= (uint8_t)(1u << g);
	if (over) {
		q->ns3_admits[in]++;
		q->ns3_over[in] |= over;
	}
}

static inline void
through_add(struct aif_qos_port *qp, struct rte_mbuf *mb, uint8_t queue, uint8_t charged)
{
	qp->through_q[qp->n_through] = queue;
	qp->through_charged[qp->n_through] = charged;
	qp->through[qp->n_through++] = mb;
}

/* Cut-through list entry i on its way into the queues: a passing packet
 * (admitted without a charge) is charged now, it will be held after all.
 * True when admitted; else counted and freed. */
static inline bool
through_admit(struct aif_shard *sh, struct aif_qos *q, struct aif_qos_port *qp, uint16_t i)
{
	struct rte_mbuf *mb = qp->through[i];
	struct aif_mmu_charge *ch = aif_qos_charge(mb);
	enum aif_mmu_verdict v;

	if (qp->through_charged[i])
		return true;
	v = aif_mmu_admit(&q->mmu, ch->in_port, ch->pg, ch->out_port, ch->queue, ch->bytes,
			  ch->lossless, ch);
	q->check_xoff |= 1ull << ch->in_port;
	if (v == AIF_MMU_ADMIT) {
		ns3_admitted(q, ch->in_port);
		return true;
	}
	sh->port_ctr[ch->in_port].drops[mmu_drop[v]]++;
	rte_pktmbuf_free(mb);
	return false;
}

/* A frame the scheduler refused (only one over AIF_SCHED_PKT_MAX_BYTES, far
 * beyond any port's MTU): its charge back, counted, freed. */
static void
sched_refused(struct aif_shard *sh, struct aif_qos *q, struct rte_mbuf *mb)
{
	struct aif_mmu_charge *ch = aif_qos_charge(mb);

	aif_mmu_release(&q->mmu, ch);
	sh->port_ctr[ch->in_port].drops[AIF_DROP_MTU_EXCEEDED]++;
	rte_pktmbuf_free(mb);
}

/* Move the cut-through list into the queues, in order. */
static void
through_to_queues(struct aif_shard *sh, struct aif_qos *q, struct aif_qos_port *qp)
{
	for (uint16_t i = 0; i < qp->n_through; i++) {
		struct rte_mbuf *mb = qp->through[i];
		if (through_admit(sh, q, qp, i) &&
		    aif_sched_enqueue(&qp->sched, qp->through_q[i], mb, wire_bytes(mb)) != 0)
			sched_refused(sh, q, mb);
	}
	qp->n_through = 0;
}

/*
 * A packet of a class outside the buffer (qos.h, bypass_tcs): counted only
 * in the port's queued bytes, never ECN-marked, queued unless its queue
 * holds bypass_limit_bytes of frames already (AIF_DROP_BYPASS_FULL).
 */
static enum aif_drop_reason
enqueue_bypass(struct aif_shard *sh, struct aif_qos *q, struct aif_qos_port *qp,
	       struct rte_mbuf *mb, const struct aif_pkt *m, uint16_t out, uint8_t queue,
	       uint8_t pg, uint32_t bytes)
{
	struct aif_mmu_charge *ch = aif_qos_charge(mb);
	uint32_t wire = wire_bytes(mb);

	if (qp->sched.q[queue].qlen_bytes + wire > q->cfg.bypass_limit_bytes)
		return AIF_DROP_BYPASS_FULL;
	aif_mmu_bypass(&q->mmu, m->in_port, pg, out, queue, bytes, ch);
	if (aif_sched_idle(&qp->sched) && qp->n_through < RTE_DIM(qp->through)) {
		through_add(qp, mb, queue, 1);
		return AIF_DROP_NONE;
	}
	if (qp->n_through != 0)
		through_to_queues(sh, q, qp); /* keep them ahead of this one */
	if (unlikely(aif_sched_enqueue(&qp->sched, queue, mb, wire) != 0)) {
		aif_mmu_release(&q->mmu, ch);
		return AIF_DROP_MTU_EXCEEDED;
	}
	return AIF_DROP_NONE;
}

enum aif_drop_reason
aif_egress_enqueue(struct aif_shard *sh, struct aif_qos *q, struct rte_mbuf *mb,
		   const struct aif_pkt *m, uint16_t out)
{
	const struct aif_qos_config *c = &q->cfg;
	struct aif_mmu_charge *ch = aif_qos_charge(mb);
	uint8_t queue = c->tc_to_queue[m->tc & 7], pg = c->tc_to_pg[m->tc & 7];
	bool lossless = (c->pfc_enable >> pg) & 1;
	uint32_t bytes = charge_bytes(c, mb);
	struct aif_qos_port *qp = &q->port[out];

	q->stale_next |= 1ull << out;
	q->active |= 1ull << out;
	if (unlikely((q->wd_storm_ports >> out) & 1) && aif_pfcwd_drop(&qp->wd[queue], &c->wd)) {
		aif_pfcwd_count_drop(&qp->wd[queue], 1, bytes);
		return AIF_DROP_PFCWD;
	}
	mb->l2_len = m->l3_off;
	mb->packet_type = m->kind == AIF_PKT_IPV6 ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV4;
	if (unlikely((c->bypass_tcs >> (m->tc & 7)) & 1))
		return enqueue_bypass(sh, q, qp, mb, m, out, queue, pg, bytes);
	/* what a later aif_mmu_admit (or a drop count) needs, if it comes */
	ch->bytes = bytes;
	ch->in_port = m->in_port;
	ch->out_port = out;
	ch->pg = pg;
	ch->queue = queue;
	ch->lossless = lossless;
	ch->bypass = 0; /* (the mbuf's last use may have set it) */
	/* the codepoint ECN at dequeue decides on, as parsed (ECN at enqueue
	 * decides on it too): nothing changes it in the queue (a trim keeps
	 * it; ECN at enqueue leaves no ECN at dequeue).  At dequeue the
	 * frame's line is cold: reading it there was 2% of a large run's
	 * cycles. */
	ch->ecn = m->ecn;

	/* Cut-through: with nothing queued on an unshaped port the packet would be
	 * the next one sent anyway, so it skips the queue and waits in a short
	 * list for this step's egress service (which still honours a pause that
	 * arrives later in the step).  If it fits in its PG's unused reserve it is
	 * admitted without holding buffer at all. */
	bool idle = aif_sched_idle(&qp->sched) && qp->n_through < RTE_DIM(qp->through);
	if (likely(idle) && (!c->ecn_at_enqueue || !((c->ecn_queues >> queue) & 1)) &&
	    aif_mmu_admit_passing(&q->mmu, m->in_port, pg, out, queue, bytes)) {
		through_add(qp, mb, queue, 0);
		return AIF_DROP_NONE;
	}

	enum aif_mmu_verdict v = aif_mmu_admit(&q->mmu, m->in_port, pg, out, queue,
					       bytes, lossless, ch);
	q->check_xoff |= 1ull << m->in_port;
	if (v == AIF_MMU_ADMIT)
		ns3_admitted(q, m->in_port);
	if (unlikely(v != AIF_MMU_ADMIT)) {
		/* the trimmed header is charged to the trim queue's own PG: the
		 * PG that just overflowed would refuse it for the same reason */
		if (!lossless && ((c->trim_queues >> queue) & 1) && trim(c, mb, m) &&
		    aif_mmu_admit(&q->mmu, m->in_port, c->trim_queue, out, c->trim_queue,
				  charge_bytes(c, mb), false, ch) == AIF_MMU_ADMIT) {
			qp->trimmed[queue]++;
			queue = c->trim_queue;
			/* the trimmed packet's ECN bits are as they were: go on */
		} else {
			return (enum aif_drop_reason)mmu_drop[v];
		}
	}

	if (c->ecn_at_enqueue && ((c->ecn_queues >> queue) & 1)) {
		/* the bytes queued before this packet joins (admit added it) */
		enum aif_ecn_verdict e = aif_ecn_decide(&c->ecn,
			(uint32_t)(aif_mmu_queue_bytes(&q->mmu, out, queue) - ch->bytes),
			m->ecn, lossless, &sh->fwd.rng, &qp->ecn[queue]);
		if (e == AIF_ECN_MARK) {
			aif_ecn_mark_ce(rte_pktmbuf_mtod_offset(mb, uint8_t *, m->l3_off),
					m->kind == AIF_PKT_IPV6);
		} else if (unlikely(e == AIF_ECN_DROP)) {
			aif_mmu_release(&q->mmu, ch);
			return AIF_DROP_WRED;
		}
	}
	if (idle && aif_sched_idle(&qp->sched)) {
		through_add(qp, mb, queue, 1);
		return AIF_DROP_NONE;
	}
	if (unlikely(qp->n_through != 0))
		through_to_queues(sh, q, qp); /* keep them ahead of this one */
	if (unlikely(aif_sched_enqueue(&qp->sched, queue, mb, wire_bytes(mb)) != 0)) {
		/* never full: only a frame over AIF_SCHED_PKT_MAX_BYTES is refused */
		aif_mmu_release(&q->mmu, ch);
		return AIF_DROP_MTU_EXCEEDED;
	}
	return AIF_DROP_NONE;
}

enum aif_drop_reason
aif_egress_pfc_input(struct aif_qos *q, uint16_t port, const struct aif_mac *port_mac,
		     const uint8_t *frame, uint32_t len, aif_time_ns now_ns)
{
	/* refused frames (bad format or destination) are counted by reason
	 * in the port's pfc_rx.ctr.rx_err[] */
	q->stale_next |= 1ull << port;
	if (aif_pfc_rx_input(&q->port[port].pfc_rx, frame, len, port_mac,
			     q->cfg.speed_bps[port], now_ns) < 0)
		return AIF_DROP_MALFORMED;
	return AIF_DROP_NONE;
}

/* ECN at dequeue on one packet leaving queue qid of port p; false: dropped. */
static inline bool
ecn_dequeue(struct aif_shard *sh, struct aif_qos *q, struct rte_mbuf *mb,
	    uint16_t p, uint8_t qid, const struct aif_mmu_charge *ch)
{
	const struct aif_qos_config *c = &q->cfg;
	enum aif_ecn_verdict e = aif_ecn_decide(&c->ecn,
		(uint32_t)aif_mmu_queue_bytes(&q->mmu, p, qid), ch->ecn,
		ch->lossless, &sh->fwd.rng, &q->port[p].ecn[qid]);

	if (e == AIF_ECN_MARK) /* (the frame's line: only now) */
		aif_ecn_mark_ce(rte_pktmbuf_mtod_offset(mb, uint8_t *, mb->l2_len),
				mb->packet_type == RTE_PTYPE_L3_IPV6);
	else if (unlikely(e == AIF_ECN_DROP))
		return false;
	return true;
}

/* Build the PFC frame aif_pfc_tx_update asked for and buffer it for port
 * p; false (the request undone) when no mbuf is left. */
static bool
pfc_frame_send(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q, uint16_t p,
	       uint8_t ce, const uint16_t quanta[AIF_PFC_PRIOS], aif_time_ns now_ns)
{
	/* ns-3 mode keeps no "told" state to undo: the next packet asks again */
	bool undo = q->cfg.pfc_tx[p].mode != AIF_PFC_TX_NS3;
	const struct aif_tables *t = sw->tables;
	struct rte_mbuf *mb = aif_mbuf_alloc(sw->pool);
	uint8_t *buf = mb ? (uint8_t *)rte_pktmbuf_append(mb, AIF_PFC_FRAME_LEN) : NULL;

	if (buf == NULL) {
		rte_pktmbuf_free(mb);
		if (undo)
			aif_pfc_tx_unsent(&q->port[p].pfc_tx, ce, quanta);
		return false;
	}
	aif_pfc_frame_build(buf, AIF_PFC_FRAME_LEN, &t->ports[p].mac, ce, quanta);
	/* MAC control goes straight to the port, never behind queued data */
	struct aif_port *port = &sw->ports[p];
	struct aif_port_ctr *c = &sh->port_ctr[p];
	if (aif_port_ops(port)->tx_ctrl(port, sh->id, mb, now_ns) == 0) {
		/* not sent: the state says so, and the frame goes again */
		c->drops[AIF_DROP_TX_FULL]++;
		rte_pktmbuf_free(mb);
		if (undo)
			aif_pfc_tx_unsent(&q->port[p].pfc_tx, ce, quanta);
		return false;
	}
	c->tx_packets++;
	c->tx_bytes += AIF_PFC_FRAME_LEN;
	sh->wake_ports |= 1ull << p; /* its peer may now send sooner or later */
	sh->sent_ports |= 1ull << p;
	return true;
}

static void
send_pfc(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q, uint16_t p, aif_time_ns now_ns)
{
	struct aif_qos_port *qp = &q->port[p];
	uint16_t quanta[AIF_PFC_PRIOS];
	uint8_t mask, ce;

	/* nothing paused or told paused, nothing over a threshold: as the
	 * full check would find (mask 0, no frame, no refresh) */
	if (qp->pfc_tx.xoff == 0 && aif_mmu_port_calm(&q->mmu, p)) {
		qp->xoff_mask = 0;
		q->xoff_ports &= ~(1ull << p);
		return;
	}
	mask = aif_mmu_xoff_mask(&q->mmu, p);
	qp->xoff_mask = mask;
	if (aif_pfc_tx_update(&qp->pfc_tx, &q->cfg.pfc_tx[p], mask, now_ns, &ce, quanta)) {
		/* what it tells the peer changed: its next refresh moves (the
		 * port's next event reads nothing else of this) */
		q->stale_next |= 1ull << p;
		pfc_frame_send(sw, sh, q, p, ce, quanta, now_ns);
	}
	if (qp->pfc_tx.xoff)
		q->xoff_ports |= 1ull << p;
	else
		q->xoff_ports &= ~(1ull << p);
}

/*
 * PFC in ns-3 mode for port p (pfc.h, AIF_PFC_TX_NS3): a PAUSE for every
 * packet admitted from p since the last check that found a lossless PG of
 * p over its threshold (ns3_admitted: evaluated at each admission, with
 * the bytes held then, as ns-3's CheckAndSendPfc; of packets that arrive
 * in the same ns the first may find the PG under the threshold and the
 * later ones over it), then an XON for the PGs that may resume now and
 * whose last PAUSE has not run out.  The frames go once per step, in that
 * order (ns-3: a dequeue's resume check comes after the arrivals of its
 * ns).
 */
static void
send_pfc_ns3(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q, uint16_t p,
	     aif_time_ns now_ns)
{
	struct aif_qos_port *qp = &q->port[p];
	const struct aif_pfc_tx_config *tc = &q->cfg.pfc_tx[p];
	unsigned n = q->ns3_admits[p];
	uint8_t pause = q->ns3_over[p], resume = 0, ce, fresh;
	uint16_t quanta[AIF_PFC_PRIOS];

	q->ns3_admits[p] = 0;
	q->ns3_over[p] = 0;
	for (uint8_t g = 0; g < AIF_MMU_N_PG; g++) {
		if (!((tc->pfc_enable >> g) & 1))
			continue;
		if (!aif_mmu_should_pause(&q->mmu, p, g) && aif_mmu_should_resume(&q->mmu, p, g))
			resume |= (uint8_t)(1u << g);
	}
	for (unsigned i = 0; i < n && pause; i++) {
		if (!aif_pfc_tx_ns3_pause(&qp->pfc_tx, tc, pause, now_ns, &ce, quanta, &fresh))
			break;
		for (uint8_t g = 0; fresh; g++, fresh >>= 1)
			q->mmu.pg_ctr[p][g].xoff_events += fresh & 1;
		pfc_frame_send(sw, sh, q, p, ce, quanta, now_ns);
	}
	if (resume && aif_pfc_tx_ns3_resume(&qp->pfc_tx, resume, now_ns, &ce, quanta)) {
		for (uint8_t g = 0, b = ce; b; g++, b >>= 1)
			q->mmu.pg_ctr[p][g].xon_events += b & 1;
		pfc_frame_send(sw, sh, q, p, ce, quanta, now_ns);
	}
	qp->xoff_mask = qp->pfc_tx.ns3_paused;
	q->stale_next |= 1ull << p;
}

static void
watchdog(struct aif_shard *sh, struct aif_qos *q, uint16_t p, uint8_t rx_paused,
	 aif_time_ns now_ns)
{
	struct aif_qos_port *qp = &q->port[p];
	void *pkts[AIF_BURST];
	uint32_t lens[AIF_BURST];
	bool storm = false;

	for (uint8_t k = 0; k < AIF_QOS_NQ; k++) {
		aif_pfcwd_update(&qp->wd[k], &q->cfg.wd, (rx_paused >> k) & 1,
				 aif_sched_qlen_pkts(&qp->sched, k) != 0, now_ns);
		storm |= qp->wd[k].storm;
		if (!aif_pfcwd_drop(&qp->wd[k], &q->cfg.wd))
			continue;
		unsigned n;
		while ((n = aif_sched_drain(&qp->sched, k, pkts, lens, AIF_BURST)) > 0) {
			uint64_t bytes = 0;
			for (unsigned i = 0; i < n; i++) {
				struct rte_mbuf *mb = pkts[i];
				const struct aif_mmu_charge *ch = aif_qos_charge(mb);
				sh->port_ctr[ch->in_port].drops[AIF_DROP_PFCWD]++;
				bytes += rte_pktmbuf_pkt_len(mb);
				aif_mmu_release(&q->mmu, ch);
			}
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
			aif_pfcwd_count_drop(&qp->wd[k], n, bytes);
			/* a release: see aif_egress_service on check_xoff */
		}
	}
	if (storm)
		q->wd_storm_ports |= 1ull << p;
	else
		q->wd_storm_ports &= ~(1ull << p);
}

/* The queues of port p a pause holds (paused, bit k), less those whose
 * pause the watchdog ignores in a storm (read only while one is on). */
static inline uint8_t
storm_unpaused(const struct aif_qos *q, uint16_t p, uint8_t paused)
{
	if (likely(paused == 0 || !((q->wd_storm_ports >> p) & 1)))
		return paused;
	for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
		if (aif_pfcwd_ignore_pause(&q->port[p].wd[k], &q->cfg.wd))
			paused &= (uint8_t)~(1u << k);
	return paused;
}

/* Send the port's cut-through list, unless a pause arrived for its queue. */
static void
serve_through(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q,
	      struct aif_qos_port *qp, uint16_t p, uint8_t paused, aif_time_ns now_ns)
{
	uint8_t seen = 0;

	for (uint16_t i = 0; i < qp->n_through; i++)
		seen |= (uint8_t)(1u << qp->through_q[i]);
	if (unlikely(seen & paused) || sh->tx[p].n + qp->n_through > AIF_BURST) {
		through_to_queues(sh, q, qp); /* the scheduler sorts it out */
		return;
	}
	for (uint16_t i = 0; i < qp->n_through; i++) {
		struct rte_mbuf *mb = qp->through[i];
		const struct aif_mmu_charge *ch = aif_qos_charge(mb);
		uint8_t k = qp->through_q[i];
		if (qp->through_charged[i])
			aif_mmu_release(&q->mmu, ch);
		aif_sched_count_through(&qp->sched, k, wire_bytes(mb));
		if (!ch->bypass)
			q->check_xon |= 1ull << ch->in_port;
		if (!q->cfg.ecn_at_enqueue && ((q->cfg.ecn_queues >> k) & 1) && !ch->bypass &&
		    !ecn_dequeue(sh, q, mb, p, k, ch)) {
			sh->port_ctr[ch->in_port].drops[AIF_DROP_WRED]++;
			rte_pktmbuf_free(mb);
			continue;
		}
		aif_shard_send(sh, sw->ports, p, mb, now_ns);
	}
	qp->n_through = 0;
	/* a release: see aif_egress_service on check_xoff */
}

/* Release a dequeued packet's charge and apply ECN at dequeue; false: the
 * packet was dropped (WRED), counted and freed. */
static inline bool
leave_queue(struct aif_shard *sh, struct aif_qos *q, struct rte_mbuf *mb, uint16_t p,
	    uint8_t qid)
{
	const struct aif_mmu_charge *ch = aif_qos_charge(mb);

	aif_mmu_release(&q->mmu, ch);
	if (unlikely(ch->bypass)) /* outside the buffer: no XON, no ECN */
		return true;
	q->check_xon |= 1ull << ch->in_port;
	if (!q->cfg.ecn_at_enqueue && ((q->cfg.ecn_queues >> qid) & 1) &&
	    !ecn_dequeue(sh, q, mb, p, qid, ch)) {
		sh->port_ctr[ch->in_port].drops[AIF_DROP_WRED]++;
		rte_pktmbuf_free(mb);
		return false;
	}
	return true;
}

/* A frame out of port p's queue qid onto the paced port: its charge
 * released, ECN at dequeue, sent (the port said it was ready). */
static inline void
paced_send(struct aif_shard *sh, struct aif_qos *q, struct aif_port *port,
	   const struct aif_port_ops *ops, struct rte_mbuf *mb, uint8_t qid, aif_time_ns now_ns)
{
	uint16_t p = port->index;
	struct aif_port_ctr *c = &sh->port_ctr[p];

	if (!leave_queue(sh, q, mb, p, qid))
		return;
	uint32_t bytes = rte_pktmbuf_pkt_len(mb);
	if (ops->tx_burst(port, sh->id, &mb, 1, now_ns) != 1) {
		c->drops[AIF_DROP_TX_FULL]++; /* it said it was ready */
		rte_pktmbuf_free(mb);
		return;
	}
	c->tx_packets++;
	c->tx_bytes += bytes;
}

/* Can the paced port take a frame now? */
static inline bool
paced_ready(const struct aif_shard *sh, struct aif_port *port, const struct aif_port_ops *ops,
	    aif_time_ns now_ns)
{
	return ops->tx_ready_ns(port, sh->id, now_ns) <= now_ns;
}

/*
 * A port that paces its transmit (an emulated link: tx_ready_ns): one
 * frame whenever it is ready, straight from the queues (no cut-through and
 * no TX buffer, which would hand it frames it must refuse).  One frame
 * passing an idle, unshaped port that can take it now goes as through the
 * queues (admitted, counted, the DWRR turn: aif_sched_pass), without them.
 */
static void
serve_paced(struct aif_shard *sh, struct aif_qos *q, struct aif_qos_port *qp,
	    struct aif_port *port, const struct aif_port_ops *ops, uint8_t paused,
	    aif_time_ns now_ns)
{
	uint16_t p = port->index;
	struct aif_port_ctr *c = &sh->port_ctr[p];
	uint64_t sent = c->tx_packets;
	bool ready = paced_ready(sh, port, ops, now_ns);
	void *pkt;
	uint32_t len;
	uint8_t qid;

	if (qp->n_through == 1 && ready && aif_sched_idle(&qp->sched) &&
	    !((paused >> qp->through_q[0]) & 1)) {
		qp->n_through = 0;
		pkt = qp->through[0];
		qid = qp->through_q[0];
		if (through_admit(sh, q, qp, 0)) {
			if (aif_sched_pass(&qp->sched, qid, pkt, wire_bytes(pkt), paused) == 0) {
				paced_send(sh, q, port, ops, pkt, qid, now_ns);
				/* the scheduler as it was, idle: nothing more to send
				 * (as the loop below would find, the port unasked) */
				ready = false;
			} else {
				sched_refused(sh, q, pkt);
				ready = paced_ready(sh, port, ops, now_ns);
			}
		}
	} else if (qp->n_through != 0) {
		through_to_queues(sh, q, qp);
	}
	while (ready && aif_sched_dequeue_qid(&qp->sched, now_ns, paused, &pkt, &len, &qid, 1) == 1) {
		paced_send(sh, q, port, ops, pkt, qid, now_ns);
		/* (emptied: the dequeue would find nothing, the port unasked) */
		ready = !aif_sched_idle(&qp->sched) && paced_ready(sh, port, ops, now_ns);
	}
	if (c->tx_packets != sent) {
		sh->sent_ports |= 1ull << p;
		/* a host answers what it is sent: ask its next frame again */
		if (port->base->wakes_rx)
			sh->wake_ports |= 1ull << p;
	}
}

void
aif_egress_service(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q, aif_time_ns now_ns)
{
	void *pkts[AIF_BURST];
	uint32_t lens[AIF_BURST];
	uint8_t qids[AIF_BURST];
	bool wd_tick = now_ns >= q->next_wd_ns;

	if (wd_tick)
		q->next_wd_ns = now_ns + AIF_QOS_WD_PERIOD_NS;
	uint32_t req = __atomic_load_n(&q->clear_wm_req, __ATOMIC_ACQUIRE);
	if (unlikely(req != q->clear_wm_done)) {
		aif_mmu_watermarks_clear(&q->mmu);
		q->clear_wm_done = req;
	}
	/* the ports that may hold something; the watchdog looks at every port
	 * on its tick */
	uint64_t todo = wd_tick ? ~0ull : q->active;
	/* and of those, the ones whose next event has come or that changed
	 * since it was computed (enqueued to, PFC in or out): the others
	 * would find nothing to do.  (A port packets pass through is stale:
	 * they were enqueued; the port's own state is not touched for
	 * nothing.) */
	if (!wd_tick && q->next_generation == q->generation)
		todo &= q->stale_next | aif_mintree_due(&q->next, now_ns);
	while (todo) {
		uint16_t p = (uint16_t)__builtin_ctzll(todo);
		todo &= todo - 1;
		if (p >= q->n_ports)
			break;
		struct aif_qos_port *qp = &q->port[p];
		if (!wd_tick && qp->n_through == 0 && aif_sched_idle(&qp->sched)) {
			q->active &= ~(1ull << p); /* nothing queued, nothing passing */
			continue;
		}
		q->stale_next |= 1ull << p; /* served: its next event moves */
		uint8_t paused = aif_pfc_rx_paused_mask(&qp->pfc_rx, now_ns);

		if (unlikely(wd_tick))
			watchdog(sh, q, p, paused, now_ns);
		paused = storm_unpaused(q, p, paused);
		struct aif_port *port = &sw->ports[p];
		const struct aif_port_ops *ops = aif_port_ops(port);
		if (ops->tx_ready_ns != NULL) {
			serve_paced(sh, q, qp, port, ops, paused, now_ns);
			continue;
		}
		if (qp->n_through != 0)
			serve_through(sw, sh, q, qp, p, paused, now_ns);
		unsigned room = AIF_BURST - sh->tx[p].n;
		unsigned n = aif_sched_dequeue_qid(&qp->sched, now_ns, paused, pkts,
						   lens, qids, room);
		for (unsigned i = 0; i < n; i++) {
			struct rte_mbuf *mb = pkts[i];
			if (leave_queue(sh, q, mb, p, qids[i]))
				aif_shard_send(sh, sw->ports, p, mb, now_ns);
		}
	}
	/* PFC: ports whose XOFF mask may have changed, and refreshes due.  An
	 * admission marks its ingress port (check_xoff); a release raises
	 * every threshold, which can only end an XOFF, and the ports in XOFF
	 * are looked at every time (pfc_tx.xoff): a release marks nothing. */
	uint64_t std = q->check_xoff | q->xoff_ports;
	uint64_t pfc = std | q->check_xon;
	q->check_xoff = 0;
	q->check_xon = 0;
	while (pfc) {
		uint16_t p = (uint16_t)__builtin_ctzll(pfc);
		pfc &= pfc - 1;
		if (p >= q->n_ports)
			break;
		if (unlikely(q->cfg.pfc_tx[p].mode == AIF_PFC_TX_NS3))
			send_pfc_ns3(sw, sh, q, p, now_ns);
		else if ((std >> p) & 1)
			send_pfc(sw, sh, q, p, now_ns);
	}
}

/* Free the port's cut-through list (empty between steps, but the stop may
 * come from anywhere); returns how many. */
static unsigned
through_discard(struct aif_qos *q, struct aif_qos_port *qp)
{
	unsigned n = qp->n_through;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *mb = qp->through[i];
		if (qp->through_charged[i])
			aif_mmu_release(&q->mmu, aif_qos_charge(mb));
		rte_pktmbuf_free(mb);
	}
	qp->n_through = 0;
	return n;
}

void
aif_egress_shutdown(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q, aif_time_ns now_ns,
		    struct aif_egress_stop_info *info)
{
	uint16_t quanta[AIF_PFC_PRIOS];
	uint8_t ce;

	memset(info, 0, sizeof(*info));
	for (uint16_t p = 0; p < q->n_ports; p++)
		info->discarded += through_discard(q, &q->port[p]);
	info->discarded += aif_qos_discard(q);

	for (uint16_t p = 0; p < q->n_ports; p++) {
		struct aif_qos_port *qp = &q->port[p];

		if (!qp->pfc_tx.xoff)
			continue;
		/* an empty mask: every priority the peer was told XOFF clears */
		if (!aif_pfc_tx_update(&qp->pfc_tx, &q->cfg.pfc_tx[p], 0, now_ns, &ce, quanta))
			continue;
		if (!pfc_frame_send(sw, sh, q, p, ce, quanta, now_ns)) {
			info->xon_unsent++;
			continue;
		}
		info->xon_frames++;
		info->xon_prios += (unsigned)__builtin_popcount(ce);
	}
	aif_shard_flush(sh, sw->ports, sw->n_ports, now_ns);
}

static aif_time_ns port_next_ns(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q,
				uint16_t p, aif_time_ns now_ns);

aif_time_ns
aif_egress_next_event_ns(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q,
			 aif_time_ns now_ns)
{
	aif_time_ns next = q->next_wd_ns;

	/* a port's next event changes only when it is enqueued to, served,
	 * receives or sends PFC, or the config or the watchdog's period
	 * turns: the others keep what was computed.  (Packets pass through
	 * only within a step, and a port they pass is marked stale.) */
	if (q->next_generation != q->generation || now_ns >= q->next_wd_ns) {
		q->stale_next = ~0ull;
		q->next_generation = q->generation;
	}
	uint64_t stale = q->n_ports < 64 ? q->stale_next & ((1ull << q->n_ports) - 1)
					 : q->stale_next;
	while (stale) {
		uint16_t p = (uint16_t)__builtin_ctzll(stale);
		stale &= stale - 1;
		if (q->port[p].n_through != 0)
			return now_ns; /* (stays stale) */
		aif_mintree_set(&q->next, p, port_next_ns(sw, sh, q, p, now_ns));
	}
	q->stale_next = 0;
	return RTE_MIN(next, aif_mintree_min(&q->next));
}

/* Port p's next event: a PFC refresh, a paused queue's pause ending, the
 * scheduler's next packet once the port can take it. */
static aif_time_ns
port_next_ns(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q, uint16_t p,
	     aif_time_ns now_ns)
{
	struct aif_qos_port *qp = &q->port[p];
	struct aif_port *port = &sw->ports[p];
	aif_time_ns next = AIF_TIME_NS_NEVER, t;

	{
		t = aif_pfc_tx_next_event_ns(&qp->pfc_tx);
		next = RTE_MIN(next, t);
		if (aif_sched_idle(&qp->sched))
			return next;
		uint8_t paused = aif_pfc_rx_paused_mask(&qp->pfc_rx, now_ns);
		paused = storm_unpaused(q, p, paused);
		/* a paused queue holding packets: its pause ends */
		for (uint8_t k = 0; paused >> k; k++)
			if (((paused >> k) & 1) && aif_sched_qlen_pkts(&qp->sched, k) != 0)
				next = RTE_MIN(next, qp->pfc_rx.paused_until_ns[k]);
		t = aif_sched_next_event_mask_ns(&qp->sched, now_ns, paused);
		if (t == AIF_SCHED_NEVER_NS)
			return next;
		const struct aif_port_ops *ops = aif_port_ops(port);
		t = RTE_MAX(t, aif_port_tx_ready_ns(port, ops, sh->id, now_ns));
		next = RTE_MIN(next, t);
	}
	return next;
}
