/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control views of the lossless QoS state, named after the SONiC commands
 * users know:
 *
 *   show_pfc        `show pfc counters`: PFC frames received and sent per
 *                   priority, XOFF and XON apart (apart from rx/tx
 *                   packets), time paused, PAUSE frames received, and the
 *                   MAC control frames refused, in all and per reason
 *   show_queues     `show queue counters`: per queue packets, bytes, drops,
 *                   ECN marks, WRED drops, depth and watermark
 *   show_buffer     `show buffer_pool watermark` + `show priority-group
 *                   watermark shared|headroom`: pool use, threshold, PGs
 *   show_pfcwd      `show pfcwd stats`
 *   clear_watermarks
 *
 * The state belongs to the switch's worker (dataplane/qos.h): these read
 * its counters (64-bit loads) and never write it; clearing watermarks is a
 * request the worker carries out at its next step.
 */
#include <stdio.h>

#include "../dataplane/qos.h"
#include "commands.h"

static json_t *
u64_array(const uint64_t *v, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

static const struct aif_qos *
qos_of(const struct aif_switch *sw, char *err, size_t err_len)
{
	const struct aif_qos *q = __atomic_load_n(&sw->qos, __ATOMIC_ACQUIRE);
	if (q == NULL)
		snprintf(err, err_len, "lossless QoS is off for this switch (policy qos.enable)");
	return q;
}

json_t *
aif_ctl_show_pfc(const struct aif_switch *sw, aif_time_ns now_ns, char *err,
		 size_t err_len)
{
	const struct aif_qos *q = qos_of(sw, err, err_len);
	if (q == NULL)
		return NULL;
	json_t *rows = json_array();
	for (uint16_t p = 0; p < q->n_ports; p++) {
		const struct aif_qos_port *qp = &q->port[p];
		uint64_t paused_us[AIF_PFC_PRIOS];
		for (unsigned k = 0; k < AIF_PFC_PRIOS; k++) {
			/* the open pause, if any, counted up to now */
			uint64_t ns = qp->pfc_rx.pause_ns_total[k];
			aif_time_ns until = qp->pfc_rx.paused_until_ns[k];
			aif_time_ns from = qp->pfc_rx.accounted_ns[k];
			if (until > from && now_ns > from)
				ns += (now_ns < until ? now_ns : until) - from;
			paused_us[k] = ns / AIF_NS_PER_US;
		}
		const struct aif_pfc_rx_ctr *rc = &qp->pfc_rx.ctr;
		/* refused frames per reason, in the order of AIF_FOREACH_PFC_RX_ERR */
		json_t *errs = json_object();
		for (unsigned i = 0; i < AIF_PFC_RX_ERR_N; i++)
			json_object_set_new(errs, aif_pfc_err_name(-(int)i - 1),
					    json_integer((json_int_t)rc->rx_err[i]));
		json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:I, s:s}",
			"name", sw->ports[p].name,
			"rx_pfc", u64_array(rc->rx_pfc, AIF_PFC_PRIOS),
			"rx_xon", u64_array(rc->rx_xon, AIF_PFC_PRIOS),
			"tx_pfc", u64_array(qp->pfc_tx.ctr.tx_pfc, AIF_PFC_PRIOS),
			"tx_xon", u64_array(qp->pfc_tx.ctr.tx_xon, AIF_PFC_PRIOS),
			"paused_us", u64_array(paused_us, AIF_PFC_PRIOS),
			"rx_pause", (json_int_t)rc->rx_pause,
			"rx_pause_port_mac", (json_int_t)rc->rx_pause_port_mac,
			"rx_malformed", (json_int_t)aif_pfc_rx_err_total(rc),
			"rx_errors", errs,
			"tx_frames", (json_int_t)qp->pfc_tx.ctr.tx_frames,
			"xoff_sent", "");
		char mask[9];
		for (unsigned k = 0; k < 8; k++)
			mask[k] = (qp->pfc_tx.xoff >> k) & 1 ? '0' + k : '.';
		mask[8] = '\0';
		json_object_set_new(o, "xoff_sent", json_string(mask));
		json_array_append_new(rows, o);
	}
	return rows;
}

json_t *
aif_ctl_show_queues(const struct aif_switch *sw, char *err, size_t err_len)
{
	const struct aif_qos *q = qos_of(sw, err, err_len);
	if (q == NULL)
		return NULL;
	json_t *rows = json_array();
	for (uint16_t p = 0; p < q->n_ports; p++) {
		const struct aif_qos_port *qp = &q->port[p];
		for (uint8_t k = 0; k < AIF_QOS_NQ; k++) {
			const struct aif_sched_qctr *sc = aif_sched_queue_ctr(&qp->sched, k);
			const struct aif_mmu_queue_ctr *mc = &q->mmu.queue_ctr[p][k];
			const struct aif_ecn_ctr *ec = &qp->ecn[k];
			json_array_append_new(rows, json_pack(
				"{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				"port", sw->ports[p].name, "queue", k,
				"packets", (json_int_t)sc->deq_packets,
				"bytes", (json_int_t)sc->deq_bytes,
				"drop_packets", (json_int_t)(mc->drop_packets + sc->drain_packets),
				"drop_bytes", (json_int_t)(mc->drop_bytes + sc->drain_bytes),
				"ecn_marked", (json_int_t)ec->ce_marked,
				"wred_drops", (json_int_t)ec->wred_drops,
				"trimmed", (json_int_t)qp->trimmed[k],
				"depth_bytes", (json_int_t)q->mmu.port[p].queue_bytes[k],
				"watermark_bytes", (json_int_t)q->mmu.wm.queue_bytes[p][k]));
		}
	}
	return rows;
}

json_t *
aif_ctl_show_buffer(const struct aif_switch *sw, char *err, size_t err_len)
{
	const struct aif_qos *q = qos_of(sw, err, err_len);
	if (q == NULL)
		return NULL;
	const struct aif_mmu *m = &q->mmu;
	json_t *pool = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"model", q->cfg.mmu.model == AIF_MMU_BROADCOM ? "broadcom"
			 : q->cfg.mmu.model == AIF_MMU_CONWEAVE ? "conweave" : "hpcc",
		"size_bytes", (json_int_t)q->cfg.mmu.buffer_bytes,
		"used_bytes", (json_int_t)m->used_bytes,
		"shared_bytes", (json_int_t)m->shared_used_bytes,
		"headroom_bytes", (json_int_t)m->headroom_used_bytes,
		"threshold_bytes", (json_int_t)aif_mmu_threshold_bytes(m),
		"watermark_used_bytes", (json_int_t)m->wm.pool_used_bytes,
		"watermark_shared_bytes", (json_int_t)m->wm.pool_shared_bytes,
		"watermark_headroom_bytes", (json_int_t)m->wm.pool_headroom_bytes);
	json_t *pgs = json_array();
	for (uint16_t p = 0; p < q->n_ports; p++)
		for (uint8_t g = 0; g < AIF_MMU_N_PG; g++) {
			const struct aif_mmu_pg *pg = &m->port[p].pg[g];
			const struct aif_mmu_pg_ctr *pc = &m->pg_ctr[p][g];
			bool lossless = (q->cfg.pfc_enable >> g) & 1;
			if (!lossless && pc->packets[AIF_MMU_ADMIT] == 0)
				continue; /* an idle lossy PG says nothing */
			json_array_append_new(pgs, json_pack(
				"{s:s, s:i, s:b, s:b, s:I, s:I, s:I, s:I, s:I, s:I}",
				"port", sw->ports[p].name, "pg", g, "lossless", lossless,
				"xoff", (m->port[p].xoff_mask >> g) & 1,
				"shared_bytes", (json_int_t)pg->shared_bytes,
				"headroom_bytes", (json_int_t)pg->headroom_bytes,
				"shared_watermark_bytes", (json_int_t)m->wm.pg_shared_bytes[p][g],
				"headroom_watermark_bytes", (json_int_t)m->wm.pg_headroom_bytes[p][g],
				"xoff_events", (json_int_t)pc->xoff_events,
				"xon_events", (json_int_t)pc->xon_events));
		}
	return json_pack("{s:o, s:o}", "pool", pool, "priority_groups", pgs);
}

json_t *
aif_ctl_show_pfcwd(const struct aif_switch *sw, char *err, size_t err_len)
{
	const struct aif_qos *q = qos_of(sw, err, err_len);
	if (q == NULL)
		return NULL;
	json_t *rows = json_array();
	for (uint16_t p = 0; p < q->n_ports; p++)
		for (uint8_t k = 0; k < AIF_QOS_NQ; k++) {
			const struct aif_pfcwd_state *wd = &q->port[p].wd[k];
			if (!((q->cfg.pfc_enable >> k) & 1) && wd->ctr.storms_detected == 0)
				continue;
			json_array_append_new(rows, json_pack(
				"{s:s, s:i, s:s, s:s, s:I, s:I, s:I}",
				"port", sw->ports[p].name, "queue", k,
				"status", wd->storm ? "stormed" : "operational",
				"action", aif_pfcwd_action_name(q->cfg.wd.action),
				"storms_detected", (json_int_t)wd->ctr.storms_detected,
				"storms_restored", (json_int_t)wd->ctr.storms_restored,
				"drop_packets", (json_int_t)wd->ctr.drop_packets));
		}
	return rows;
}

json_t *
aif_ctl_clear_watermarks(struct aif_switch *sw, char *err, size_t err_len)
{
	struct aif_qos *q = (struct aif_qos *)qos_of(sw, err, err_len);
	if (q == NULL)
		return NULL;
	__atomic_add_fetch(&q->clear_wm_req, 1, __ATOMIC_RELEASE);
	return json_pack("{s:b}", "requested", 1);
}
