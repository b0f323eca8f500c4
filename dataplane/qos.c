/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lossless QoS: compiling the policy into module configs, and the state's
 * life cycle (see qos.h).  The per-packet code is in dataplane/egress.c.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "qos.h"

int aif_qos_dynfield_off = -1;

/*
 * The mbuf's dynamic field area is 36 bytes at offset 92, 4-aligned.  A
 * driver may take part of it before the switch exists: net_pcap registers
 * the 8-byte Rx timestamp at probe, at offset 96, which leaves 4 + 24
 * bytes.  So the record is 4-aligned and at most 24 bytes, and then an Rx
 * timestamp registered after it still finds 8 aligned bytes.
 */
_Static_assert(_Alignof(struct aif_qos_dynfield) == 4, "aif_qos_dynfield: 4-aligned");
_Static_assert(sizeof(struct aif_qos_dynfield) <= 24,
	       "aif_qos_dynfield: more than what is left beside an Rx timestamp");
_Static_assert(sizeof(((struct rte_mbuf *)0)->dynfield1) == 36,
	       "the mbuf's dynamic field area changed: check the arithmetic above");

int
aif_qos_register_dynfield(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "aifabric_qos",
		.size = sizeof(struct aif_qos_dynfield),
		.align = _Alignof(struct aif_qos_dynfield),
	};
	if (aif_qos_dynfield_off < 0)
		aif_qos_dynfield_off = rte_mbuf_dynfield_register(&desc);
	return aif_qos_dynfield_off < 0 ? -1 : 0;
}

/*
 * Why aif_mmu_config_init refused the buffer, as "<json path>: <reason>" with
 * the numbers it compared: the field at fault is the one the user can turn
 * (headroom_bytes when given, else size_bytes for the derived headroom).
 * The sums are those of mmu.c ("Pool arithmetic" in mmu.h): one headroom
 * and (HPCC) one reserve per port, which its lossless PGs share.
 */
static void
mmu_fail(int rc, const struct aif_mmu_params *mp, const struct aif_qos_params *qp,
	 const struct aif_port_params *ports, const char *pol, uint16_t sw_index, char *err,
	 size_t err_len)
{
	uint64_t hdrm = 0, rsrv, max_h = 0;
	uint16_t max_p = 0;

	for (uint16_t p = 0; p < mp->n_ports; p++) {
		uint64_t h = mp->port[p].headroom_bytes;
		if (h == 0)
			h = aif_mmu_headroom_bytes(mp->model, mp->port[p].speed_bps,
						   mp->port[p].cable_delay_ns,
						   mp->port[p].mtu_bytes);
		hdrm += h;
		if (h > max_h) {
			max_h = h;
			max_p = p;
		}
	}
	rsrv = mp->model == AIF_MMU_BROADCOM
		? (uint64_t)mp->n_ports * ((uint64_t)AIF_MMU_N_PG * mp->reserve_bytes +
					    mp->port_reserve_bytes)
		: mp->model == AIF_MMU_CONWEAVE
		? (uint64_t)mp->n_ports * AIF_MMU_N_PG * mp->reserve_bytes
		: (uint64_t)mp->n_ports * mp->reserve_bytes;
	switch (-rc) {
	case AIF_MMU_ERR_RESERVE:
		snprintf(err, err_len, "$.policies.%s.qos.buffer.reserve_bytes: %u B %s x %u "
			 "ports = %" PRIu64 " B of reserves, not below size_bytes %" PRIu64,
			 pol, mp->reserve_bytes,
			 mp->model == AIF_MMU_BROADCOM ? "x 8 PGs (+ 1 MTU per port)" : "per port",
			 mp->n_ports, rsrv, mp->buffer_bytes);
		return;
	case AIF_MMU_ERR_POOL:
		if (qp->headroom_bytes != 0)
			snprintf(err, err_len, "$.policies.%s.qos.buffer.headroom_bytes: %u B x %u "
				 "ports = %" PRIu64 " B of headroom + %" PRIu64 " B of reserves "
				 "leave no shared pool in size_bytes %" PRIu64,
				 pol, qp->headroom_bytes, mp->n_ports, hdrm, rsrv,
				 mp->buffer_bytes);
		else
			snprintf(err, err_len, "$.policies.%s.qos.buffer.size_bytes: %" PRIu64
				 " B leaves no shared pool: %" PRIu64 " B of headroom (derived "
				 "from port speeds and cable_delay_ns %u, up to %" PRIu64
				 " B on port %s) + %" PRIu64 " B of reserves over %u ports",
				 pol, mp->buffer_bytes, hdrm, qp->cable_delay_ns, max_h,
				 ports[max_p].name, rsrv, mp->n_ports);
		return;
	case AIF_MMU_ERR_RESUME_OFFSET:
		snprintf(err, err_len, "$.policies.%s.qos.buffer.resume_offset_bytes: %u B "
			 "is not below the shared pool (%" PRIu64 " B = size_bytes %" PRIu64
			 " - %" PRIu64 " B of headroom - %" PRIu64 " B of reserves)",
			 pol, mp->resume_offset_bytes, mp->buffer_bytes - hdrm - rsrv,
			 mp->buffer_bytes, hdrm, rsrv);
		return;
	case AIF_MMU_ERR_HEADROOM_LOW: {
		/* the first lossless port whose worst case is above it */
		const struct aif_mmu_port_params *pp = &mp->port[0];
		uint32_t min = 0;
		for (max_p = 0; max_p < mp->n_ports; max_p++) {
			pp = &mp->port[max_p];
			min = aif_mmu_headroom_min_bytes(mp->model, pp->speed_bps, pp->cable_delay_ns,
							 pp->mtu_bytes);
			if (pp->pfc_enable != 0 && pp->speed_bps != 0 && pp->headroom_bytes < min)
				break;
		}
		if (max_p == mp->n_ports)
			max_p = 0;
		unsigned frames = AIF_MMU_WORST_FRAMES(mp->model);
		uint64_t cable = min - frames * ((uint64_t)pp->mtu_bytes +
						  AIF_MMU_FRAME_OVERHEAD_BYTES) -
				 AIF_MMU_PFC_FRAME_WIRE_BYTES - AIF_MMU_RESPONSE_BITS / 8;
		snprintf(err, err_len, "$.policies.%s.qos.buffer.headroom_bytes: %u B is below "
			 "the worst case %u B of lossless port %s of $.switches[%u] (%" PRIu64
			 " Mb/s, MTU %u, cable %u ns: %u x %u B frames + %u B PFC + %u B response"
			 " + %" PRIu64 " B cable)", pol, pp->headroom_bytes, min,
			 ports[max_p].name, sw_index, pp->speed_bps / 1000000, pp->mtu_bytes,
			 pp->cable_delay_ns, frames, pp->mtu_bytes + AIF_MMU_FRAME_OVERHEAD_BYTES,
			 AIF_MMU_PFC_FRAME_WIRE_BYTES, AIF_MMU_RESPONSE_BITS / 8, cable);
		return;
	}
	case AIF_MMU_ERR_HEADROOM:
		for (max_p = 0; max_p + 1 < mp->n_ports; max_p++)
			if (mp->port[max_p].pfc_enable != 0 &&
			    aif_mmu_headroom_bytes(mp->model, mp->port[max_p].speed_bps,
						   mp->port[max_p].cable_delay_ns,
						   mp->port[max_p].mtu_bytes) == 0)
				break;
		snprintf(err, err_len, "$.policies.%s.qos.buffer.%s: headroom_bytes 0 derives "
			 "the headroom from the port speed and cable_delay_ns, which gives "
			 "port %s (%" PRIu64 " Mb/s, %u ns) none for its lossless priorities; "
			 "set headroom_bytes or a longer cable_delay_ns", pol,
			 qp->cable_delay_ns == 0 ? "cable_delay_ns" : "headroom_bytes",
			 ports[max_p].name, mp->port[max_p].speed_bps / 1000000,
			 qp->cable_delay_ns);
		return;
	default: /* fields the policy does not set */
		snprintf(err, err_len, "$.policies.%s.qos.buffer: %s", pol,
			 aif_mmu_err_name(rc));
	}
}

int
aif_qos_compile(struct aif_qos_config *qc, const struct aif_qos_params *qp,
		const struct aif_port_params *ports, uint16_t n_ports,
		const uint64_t *speed_bps, const uint64_t *link_delay_ns,
		const char *policy_name, uint16_t sw_index, char *err, size_t err_len)
{
	const char *pol = policy_name;
	struct aif_mmu_params mp;
	struct aif_ecn_params ep;
	struct aif_pfcwd_params wp;
	int rc;

	memset(qc, 0, sizeof(*qc));
	qc->enable = qp->enable;
	memcpy(qc->tc_to_queue, qp->tc_to_queue, 8);
	memcpy(qc->tc_to_pg, qp->tc_to_pg, 8);
	qc->pfc_enable = qp->pfc_enable;
	qc->ecn_queues = qp->ecn_queues;
	qc->ecn_at_enqueue = qp->ecn_mark_point == AIF_QOS_MARK_ENQUEUE;
	/* trimming applies to lossy queues only: a lossless one never overflows */
	qc->trim_queues = qp->trim_queues;
	qc->trim_queue = qp->trim_queue;
	qc->trim_dscp = qp->trim_dscp;
	qc->trim_size_bytes = qp->trim_size_bytes;
	qc->bypass_tcs = qp->mmu_bypass;
	qc->bypass_limit_bytes = qp->bypass_limit_bytes;
	qc->n_ports = n_ports;

	aif_mmu_params_default(&mp, qp->buffer_model == AIF_QOS_BUF_BROADCOM ? AIF_MMU_BROADCOM
				    : qp->buffer_model == AIF_QOS_BUF_CONWEAVE ? AIF_MMU_CONWEAVE
				    : AIF_MMU_HPCC, n_ports);
	mp.headroom_slot0_quirk = qp->headroom_slot0_quirk;
	mp.buffer_bytes = qp->buffer_bytes;
	mp.reserve_bytes = qp->reserve_bytes;
	mp.dynamic_th = qp->dynamic_th;
	mp.resume_offset_bytes = qp->resume_offset_bytes;
	for (uint16_t p = 0; p < n_ports; p++) {
		/* the cable: the policy's, or the emulated link's if longer */
		uint64_t d = link_delay_ns != NULL ? link_delay_ns[p] : 0;
		mp.port[p].speed_bps = speed_bps[p];
		mp.port[p].cable_delay_ns = d > qp->cable_delay_ns ? (uint32_t)d
								 : qp->cable_delay_ns;
		mp.port[p].mtu_bytes = ports[p].mtu;
		mp.port[p].headroom_bytes = qp->headroom_bytes;
		mp.port[p].pfc_enable = qp->pfc_enable;
	}
	if ((rc = aif_mmu_config_init(&qc->mmu, &mp)) != 0) {
		mmu_fail(rc, &mp, qp, ports, pol, sw_index, err, err_len);
		return -1;
	}

	memset(&ep, 0, sizeof(ep));
	ep.kmin_bytes = qp->kmin_bytes;
	ep.kmax_bytes = qp->kmax_bytes;
	ep.pmax = qp->pmax;
	ep.mode = qp->ecn_mode == AIF_QOS_ECN_ON ? AIF_ECN_MODE_ECN
		: qp->ecn_mode == AIF_QOS_ECN_WRED ? AIF_ECN_MODE_WRED : AIF_ECN_MODE_OFF;
	ep.mark_point = qc->ecn_at_enqueue ? AIF_ECN_AT_ENQUEUE : AIF_ECN_AT_DEQUEUE;
	ep.qmin_bytes = qp->ecn_qmin_bytes;
	if ((rc = aif_ecn_config_init(&qc->ecn, &ep)) != 0) {
		/* the parser checks these already; the path names the field */
		snprintf(err, err_len, "$.policies.%s.qos.ecn%s: %s", pol,
			 rc == AIF_ECN_ERR_KMIN_GT_KMAX ? ".kmax_bytes"
			 : rc == AIF_ECN_ERR_PMAX_RANGE ? ".pmax"
			 : rc == AIF_ECN_ERR_MODE ? ".mode"
			 : rc == AIF_ECN_ERR_MARK_POINT ? ".mark" : "",
			 aif_ecn_err_name(rc));
		return -1;
	}

	memset(&wp, 0, sizeof(wp));
	wp.detection_ns = qp->wd_detection_ns;
	wp.restoration_ns = qp->wd_restoration_ns;
	wp.action = qp->wd_action == AIF_QOS_WD_FORWARD ? AIF_PFCWD_FORWARD
		  : qp->wd_action == AIF_QOS_WD_ALERT ? AIF_PFCWD_ALERT : AIF_PFCWD_DROP;
	if ((rc = aif_pfcwd_config_init(&qc->wd, &wp)) != 0) {
		snprintf(err, err_len, "$.policies.%s.qos.pfc.watchdog%s: %s", pol,
			 rc == AIF_PFCWD_ERR_DETECTION ? ".detection_ms"
			 : rc == AIF_PFCWD_ERR_RESTORATION ? ".restoration_ms"
			 : rc == AIF_PFCWD_ERR_ACTION ? ".action" : "",
			 aif_pfcwd_err_name(rc));
		return -1;
	}

	for (uint16_t p = 0; p < n_ports; p++) {
		struct aif_sched_params sp;
		struct aif_pfc_tx_params tp;

		aif_sched_params_default(&sp);
		for (unsigned q = 0; q < AIF_QOS_NQ; q++) {
			sp.q[q].mode = (qp->strict_queues >> q) & 1 ? AIF_SCHED_SP : AIF_SCHED_DWRR;
			sp.q[q].weight = qp->weight[q];
		}
		sp.mtu_bytes = (uint32_t)ports[p].mtu + 18; /* frame: + Ethernet + FCS */
		sp.rate_bps = ports[p].shaper_bps;
		if (sp.rate_bps != 0 && ports[p].shaper_burst_bytes != 0)
			sp.burst_bytes = ports[p].shaper_burst_bytes; /* as configured */
		else if (sp.rate_bps != 0) /* see AIF_QOS_SHAPER_SLACK_NS */
			sp.burst_bytes = sp.mtu_bytes + AIF_SCHED_WIRE_OVERHEAD_BYTES +
				(uint32_t)((sp.rate_bps * AIF_QOS_SHAPER_SLACK_NS + 8 * AIF_NS_PER_S - 1) /
					   (8 * AIF_NS_PER_S));
		/* sp.node_off: the mbuf's, which aif_qos_create and aif_qos_apply
		 * fill in the worker's copy (the queues hold any number of
		 * packets: the buffer's admission is their only limit) */
		if ((rc = aif_sched_config_init(&qc->sched[p], &sp)) != 0) {
			unsigned q = 0;
			while (q + 1 < AIF_QOS_NQ && (sp.q[q].mode != AIF_SCHED_DWRR ||
						      sp.q[q].weight <= AIF_SCHED_WEIGHT_MAX))
				q++;
			if (rc == AIF_SCHED_ERR_WEIGHT)
				snprintf(err, err_len, "$.policies.%s.qos.scheduler.weights.%u: "
					 "%u is over the scheduler's limit %u", pol, q,
					 sp.q[q].weight, AIF_SCHED_WEIGHT_MAX);
			else if (rc == AIF_SCHED_ERR_RATE || rc == AIF_SCHED_ERR_BURST)
				snprintf(err, err_len, "$.switches[%u].ports[%u].shaper_gbps: %s",
					 sw_index, p, aif_sched_err_name(rc));
			else if (rc == AIF_SCHED_ERR_MTU)
				snprintf(err, err_len, "$.switches[%u].ports[%u].mtu: %s",
					 sw_index, p, aif_sched_err_name(rc));
			else
				snprintf(err, err_len, "$.policies.%s.qos.scheduler (port %s): %s",
					 pol, ports[p].name, aif_sched_err_name(rc));
			return -1;
		}
		memset(&tp, 0, sizeof(tp));
		for (unsigned q = 0; q < AIF_PFC_PRIOS; q++)
			tp.quanta[q] = qp->pfc_quanta;
		tp.speed_bps = speed_bps[p];
		tp.mode = qp->pfc_mode;
		tp.ns3_pause_ns = qp->pfc_pause_ns;
		/* with hardware PFC the NIC pauses the sender from its own buffer */
		tp.pfc_enable = ports[p].pfc_mode == AIF_PFC_MODE_HARDWARE ? 0 : qp->pfc_enable;
		if ((rc = aif_pfc_tx_config_init(&qc->pfc_tx[p], &tp)) != 0) {
			if (rc == AIF_PFC_E_CFG_QUANTA)
				snprintf(err, err_len, "$.policies.%s.qos.pfc.quanta: %u quanta "
					 "pause port %s for %" PRIu64 " ns at %" PRIu64 " Mb/s; "
					 "XOFF is refreshed at half that, sooner than one "
					 "minimum frame takes", pol, qp->pfc_quanta, ports[p].name,
					 aif_pfc_quanta_to_ns(qp->pfc_quanta, speed_bps[p]),
					 speed_bps[p] / 1000000);
			else
				snprintf(err, err_len, "$.policies.%s.qos.pfc (port %s): %s",
					 pol, ports[p].name, aif_pfc_err_name(rc));
			return -1;
		}
		qc->speed_bps[p] = speed_bps[p];
	}
	return 0;
}

unsigned
aif_qos_discard(struct aif_qos *q)
{
	void *pkts[64];
	uint32_t lens[64];
	unsigned n, total = 0;

	for (uint16_t p = 0; p < q->n_ports; p++)
		for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
			while ((n = aif_sched_drain(&q->port[p].sched, k, pkts, lens, 64)) > 0) {
				for (unsigned i = 0; i < n; i++)
					aif_mmu_release(&q->mmu, aif_qos_charge(pkts[i]));
				rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
				total += n;
			}
	return total;
}

void
aif_qos_free(struct aif_qos *q)
{
	if (q == NULL)
		return;
	aif_qos_discard(q);
	for (uint16_t p = 0; p < q->n_ports; p++)
		aif_sched_free(&q->port[p].sched);
	aif_mintree_free(&q->next);
	free(q);
}

struct aif_qos *
aif_qos_create(const struct aif_qos_config *qc, uint16_t n_ports,
	       aif_time_ns now_ns)
{
	struct aif_qos *q;
	uint32_t node_off;

	if (aif_qos_register_dynfield() != 0)
		return NULL;
	node_off = (uint32_t)aif_qos_dynfield_off + offsetof(struct aif_qos_dynfield, node);
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return NULL;
	q->cfg = *qc;
	q->n_ports = n_ports;
	aif_mmu_init(&q->mmu, &q->cfg.mmu);
	for (uint16_t p = 0; p < n_ports; p++) {
		struct aif_qos_port *qp = &q->port[p];
		q->cfg.sched[p].node_off = node_off; /* the queues link the mbufs */
		if (aif_sched_init(&qp->sched, &q->cfg.sched[p], now_ns) != 0) {
			q->n_ports = p;
			aif_qos_free(q);
			return NULL;
		}
		aif_pfc_rx_init(&qp->pfc_rx);
		aif_pfc_tx_init(&qp->pfc_tx);
		for (unsigned k = 0; k < AIF_QOS_NQ; k++)
			aif_pfcwd_state_init(&qp->wd[k]);
	}
	if (aif_mintree_init(&q->next, n_ports, 0) != 0) { /* all due (none: never) */
		aif_qos_free(q);
		return NULL;
	}
	q->next_wd_ns = now_ns + AIF_QOS_WD_PERIOD_NS;
	return q;
}

int
aif_qos_apply(struct aif_qos *q, const struct aif_qos_config *qc,
	      uint64_t generation, aif_time_ns now_ns)
{
	q->cfg = *qc;
	q->generation = generation;
	q->active = ~0ull; /* each port looked at once, then as it fills */
	q->mmu.cfg = &q->cfg.mmu; /* the state carries over: packets stay queued */
	for (uint16_t p = 0; p < q->n_ports; p++) {
		/* the queued mbufs keep their nodes where they are */
		q->cfg.sched[p].node_off = q->port[p].sched.cfg.node_off;
		if (aif_sched_set_config(&q->port[p].sched, &q->cfg.sched[p], now_ns) != 0)
			return -1;
	}
	q->check_xoff = ~0ull; /* thresholds may have moved */
	return 0;
}
