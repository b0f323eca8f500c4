/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lossless QoS: compiling the policy into module configs, and the state's
 * life cycle (see qos.h).  The per-packet code is in pipelines/egress.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "qos.h"

int aif_qos_charge_off = -1;

int
aif_qos_register_dynfield(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "aifabric_mmu_charge",
		.size = sizeof(struct aif_mmu_charge),
		.align = __alignof__(struct aif_mmu_charge),
	};
	if (aif_qos_charge_off < 0)
		aif_qos_charge_off = rte_mbuf_dynfield_register(&desc);
	return aif_qos_charge_off < 0 ? -1 : 0;
}

/* Queue rings hold what the buffer can: bytes / 256 packets, 1024..65536. */
static uint32_t
ring_pkts_for(uint64_t buffer_bytes)
{
	uint32_t want = (uint32_t)RTE_MIN(buffer_bytes / 256, (uint64_t)65536);
	uint32_t r = 1024;
	while (r < want)
		r <<= 1;
	return r;
}

int
aif_qos_compile(struct aif_qos_config *qc, const struct aif_qos_params *qp,
		const struct aif_port_params *ports, uint16_t n_ports,
		const uint64_t *speed_bps, uint16_t policy_index, char *err,
		size_t err_len)
{
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
	qc->n_ports = n_ports;

	aif_mmu_params_default(&mp, qp->buffer_model == AIF_QOS_BUF_BROADCOM
					    ? AIF_MMU_BROADCOM : AIF_MMU_HPCC, n_ports);
	mp.buffer_bytes = qp->buffer_bytes;
	mp.reserve_bytes = qp->reserve_bytes;
	mp.dynamic_th = qp->dynamic_th;
	mp.resume_offset_bytes = qp->resume_offset_bytes;
	for (uint16_t p = 0; p < n_ports; p++) {
		mp.port[p].speed_bps = speed_bps[p];
		mp.port[p].cable_delay_ns = qp->cable_delay_ns;
		mp.port[p].headroom_bytes = qp->headroom_bytes;
		mp.port[p].pfc_enable = qp->pfc_enable;
	}
	if ((rc = aif_mmu_config_init(&qc->mmu, &mp)) != 0) {
		snprintf(err, err_len, "$.policies[%u].qos.buffer: %s", policy_index,
			 aif_mmu_err_name(rc));
		return -1;
	}

	memset(&ep, 0, sizeof(ep));
	ep.kmin_bytes = qp->kmin_bytes;
	ep.kmax_bytes = qp->kmax_bytes;
	ep.pmax = qp->pmax;
	ep.mode = qp->ecn_mode == AIF_QOS_ECN_ON ? AIF_ECN_MODE_ECN
		: qp->ecn_mode == AIF_QOS_ECN_WRED ? AIF_ECN_MODE_WRED : AIF_ECN_MODE_OFF;
	ep.mark_point = qc->ecn_at_enqueue ? AIF_ECN_AT_ENQUEUE : AIF_ECN_AT_DEQUEUE;
	if ((rc = aif_ecn_config_init(&qc->ecn, &ep)) != 0) {
		snprintf(err, err_len, "$.policies[%u].qos.ecn: %s", policy_index,
			 aif_ecn_err_name(rc));
		return -1;
	}

	memset(&wp, 0, sizeof(wp));
	wp.detection_ns = qp->wd_detection_ns;
	wp.restoration_ns = qp->wd_restoration_ns;
	wp.action = qp->wd_action == AIF_QOS_WD_FORWARD ? AIF_PFCWD_FORWARD
		  : qp->wd_action == AIF_QOS_WD_ALERT ? AIF_PFCWD_ALERT : AIF_PFCWD_DROP;
	if ((rc = aif_pfcwd_config_init(&qc->wd, &wp)) != 0) {
		snprintf(err, err_len, "$.policies[%u].qos.pfc.watchdog: %s", policy_index,
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
		if (sp.rate_bps != 0) /* see AIF_QOS_SHAPER_SLACK_NS */
			sp.burst_bytes = sp.mtu_bytes + AIF_SCHED_WIRE_OVERHEAD_BYTES +
				(uint32_t)((sp.rate_bps * AIF_QOS_SHAPER_SLACK_NS + 8 * AIF_NS_PER_S - 1) /
					   (8 * AIF_NS_PER_S));
		sp.ring_pkts = ring_pkts_for(qp->buffer_bytes);
		if ((rc = aif_sched_config_init(&qc->sched[p], &sp)) != 0) {
			snprintf(err, err_len, "$.policies[%u].qos.scheduler (port %s): %s",
				 policy_index, ports[p].name, aif_sched_err_name(rc));
			return -1;
		}
		memset(&tp, 0, sizeof(tp));
		for (unsigned q = 0; q < AIF_PFC_PRIOS; q++)
			tp.quanta[q] = qp->pfc_quanta;
		tp.speed_bps = speed_bps[p];
		/* with hardware PFC the NIC pauses the sender from its own buffer */
		tp.pfc_enable = ports[p].pfc_mode == AIF_PFC_MODE_HARDWARE ? 0 : qp->pfc_enable;
		if ((rc = aif_pfc_tx_config_init(&qc->pfc_tx[p], &tp)) != 0) {
			snprintf(err, err_len, "$.policies[%u].qos.pfc (port %s): %s",
				 policy_index, ports[p].name, aif_pfc_err_name(rc));
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
	free(q);
}

struct aif_qos *
aif_qos_create(const struct aif_qos_config *qc, uint16_t n_ports,
	       aif_time_ns now_ns)
{
	struct aif_qos *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->cfg = *qc;
	q->n_ports = n_ports;
	aif_mmu_init(&q->mmu, &q->cfg.mmu);
	for (uint16_t p = 0; p < n_ports; p++) {
		struct aif_qos_port *qp = &q->port[p];
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
	q->next_wd_ns = now_ns + AIF_QOS_WD_PERIOD_NS;
	return q;
}

int
aif_qos_apply(struct aif_qos *q, const struct aif_qos_config *qc,
	      uint64_t generation, aif_time_ns now_ns)
{
	q->cfg = *qc;
	q->generation = generation;
	q->mmu.cfg = &q->cfg.mmu; /* the state carries over: packets stay queued */
	for (uint16_t p = 0; p < q->n_ports; p++) {
		/* rings keep the size they were created with */
		q->cfg.sched[p].ring_pkts = q->port[p].sched.cfg.ring_pkts;
		if (aif_sched_set_config(&q->port[p].sched, &q->cfg.sched[p], now_ns) != 0)
			return -1;
	}
	q->check_xoff = ~0ull; /* thresholds may have moved */
	return 0;
}
