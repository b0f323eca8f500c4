/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policy options where the switch can follow ConWeave's ns-3 (the
 * reference simulator) or its own defaults, read from the file's "qos" and
 * "load_balancing" objects (config.c reads the rest of them and calls in
 * here; the format is documented there and in README.md):
 *
 *   qos.buffer.model "conweave"     ns-3's switch-mmu.cc (mmu.h CONWEAVE);
 *                                   size_bytes, reserve_bytes, dynamic_th,
 *                                   resume_offset_bytes not given take the
 *                                   model's values (9 MiB, 1048, -4, 16),
 *                                   and ecn.qmin_bytes not given 1,049
 *   qos.buffer.headroom_slot0_quirk true (conweave): port 0 sets aside
 *                                   14,596 B of headroom as ns-3 does
 *   qos.ecn.qmin_bytes    0..1048576: bytes taken off the queue before
 *                                   Kmin/Kmax (ns-3 m_q_min_cell, 1,049)
 *   qos.pfc.mode          "standard" | "ns3" (pfc.h)
 *   qos.pfc.pause_us      ns3 mode: 0.01..300, default 5 (ns-3 PAUSE_TIME)
 *   load_balancing.spray.distinct   bool, default true
 *   load_balancing.spray.memory     "destination" | "group"
 *   load_balancing.spray.queue_read "packet" | "step"
 *   load_balancing.flowlet.gap_test "le" | "lt"
 *   load_balancing.flowlet.queue_read  as spray's (least_loaded)
 *   load_balancing.flowlet.table    "exact" (one entry per flow, ns-3's
 *                                   LetFlow map; default) | "direct"
 *   load_balancing.control_tc       [6]: classes routed by ECMP whatever
 *                                   the scheme unless per_tc names them
 *                                   (ns-3 routes ACK/NAK by flow hash)
 *   qos.mmu_bypass        [6]: classes kept outside the buffer (ns-3's
 *                                   ACK/NAK queue 0); the default leaves
 *                                   out a class whose PG is lossless, a
 *                                   given list may not hold one
 *   qos.buffer.bypass_limit_bytes   2048..16777216, default 262,144:
 *                                   a bypass class's queue per port
 *   wire_model (the file's, a link's)  "ethernet" | "ns3" (wire.h)
 */
#include <string.h>

#include "config_read.h"

#include "../dataplane/mmu.h"
#include "../dataplane/pfc.h"

int
aif_cfg_qos_buffer(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q)
{
	bool quirk = q->headroom_slot0_quirk;
	long long limit = q->bypass_limit_bytes;
	int rc = aif_cfg_get_int(c, j, path, "bypass_limit_bytes", false, 2048, 1 << 24, &limit);

	if (rc < 0)
		return -1;
	q->bypass_limit_bytes = (uint32_t)limit;
	rc = aif_cfg_get_bool(c, j, path, "headroom_slot0_quirk", &quirk);
	if (rc < 0)
		return -1;
	if (rc > 0 && q->buffer_model != AIF_QOS_BUF_CONWEAVE) {
		char fp[AIF_CFG_PATH_LEN];
		aif_cfg_path_key(fp, path, "headroom_slot0_quirk");
		return aif_cfg_fail(c, fp, "only with \"model\": \"conweave\"");
	}
	q->headroom_slot0_quirk = quirk;
	if (q->buffer_model != AIF_QOS_BUF_CONWEAVE ||
	    json_object_get(j, "model") == NULL)
		return 0;
	/* the model's own values where the policy gives none */
	struct aif_mmu_params mp;
	aif_mmu_params_default(&mp, AIF_MMU_CONWEAVE, 1);
	if (json_object_get(j, "size_bytes") == NULL)
		q->buffer_bytes = mp.buffer_bytes;
	if (json_object_get(j, "reserve_bytes") == NULL)
		q->reserve_bytes = mp.reserve_bytes;
	if (json_object_get(j, "dynamic_th") == NULL)
		q->dynamic_th = mp.dynamic_th;
	if (json_object_get(j, "resume_offset_bytes") == NULL)
		q->resume_offset_bytes = mp.resume_offset_bytes;
	if (rc == 0)
		q->headroom_slot0_quirk = mp.headroom_slot0_quirk;
	/* ns-3 marks on the queue's bytes beyond 1 + MTU (ecn.qmin_bytes,
	 * read after this, may say otherwise) */
	q->ecn_qmin_bytes = mp.mtu_bytes + 1;
	return 0;
}

int
aif_cfg_qos_ecn(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q)
{
	long long qmin = q->ecn_qmin_bytes;
	int rc = aif_cfg_get_int(c, j, path, "qmin_bytes", false, 0, 1 << 20, &qmin);

	if (rc < 0)
		return -1;
	q->ecn_qmin_bytes = (uint32_t)qmin;
	return 0;
}

int
aif_cfg_qos_pfc(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q)
{
	static const char *const modes[] = {"standard", "ns3", NULL};
	double us = (double)q->pfc_pause_ns / 1e3;
	int rc;

	if (aif_cfg_get_enum(c, j, path, "mode", modes, "mode", &q->pfc_mode) < 0 ||
	    (rc = aif_cfg_get_real(c, j, path, "pause_us", 0.01, false, 300, &us)) < 0)
		return -1;
	if (rc > 0 && q->pfc_mode != AIF_PFC_TX_NS3) {
		char fp[AIF_CFG_PATH_LEN];
		aif_cfg_path_key(fp, path, "pause_us");
		return aif_cfg_fail(c, fp, "only with \"mode\": \"ns3\" (the standard "
				    "mode's time is \"quanta\")");
	}
	q->pfc_pause_ns = (aif_time_ns)(us * 1e3 + 0.5);
	return 0;
}

static int
queue_read(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb)
{
	static const char *const reads[] = {"packet", "step", NULL};

	return aif_cfg_get_enum(c, j, path, "queue_read", reads, "queue read",
				&lb->queue_read) < 0 ? -1 : 0;
}

int
aif_cfg_lb_spray(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb)
{
	static const char *const mems[] = {"destination", "group", NULL};

	if (aif_cfg_get_bool(c, j, path, "distinct", &lb->drill_distinct) < 0 ||
	    aif_cfg_get_enum(c, j, path, "memory", mems, "memory", &lb->drill_memory) < 0)
		return -1;
	return queue_read(c, j, path, lb);
}

int
aif_cfg_lb_flowlet(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb)
{
	static const char *const tests[] = {"lt", "le", NULL};
	static const char *const tables[] = {"direct", "exact", NULL};
	uint8_t t = lb->flowlet_gap_le;

	if (aif_cfg_get_enum(c, j, path, "gap_test", tests, "gap test", &t) < 0 ||
	    aif_cfg_get_enum(c, j, path, "table", tables, "table", &lb->flowlet_table) < 0)
		return -1;
	lb->flowlet_gap_le = t != 0;
	return queue_read(c, j, path, lb);
}

int
aif_cfg_lb_control(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb)
{
	return aif_cfg_get_bitset8(c, j, path, "control_tc", "traffic class",
				   &lb->control_tcs) < 0 ? -1 : 0;
}

int
aif_cfg_qos_bypass(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q)
{
	uint8_t tcs = q->mmu_bypass;
	int rc = aif_cfg_get_bitset8(c, j, path, "mmu_bypass", "traffic class", &tcs);

	if (rc < 0)
		return -1;
	for (unsigned tc = 0; tc < 8; tc++) {
		uint8_t pg = q->tc_to_pg[tc];
		if (!((tcs >> tc) & 1) || !((q->pfc_enable >> pg) & 1))
			continue;
		if (rc == 0) { /* the default gives way to a lossless class */
			tcs &= (uint8_t)~(1u << tc);
			continue;
		}
		char fp[AIF_CFG_PATH_LEN];
		aif_cfg_path_key(fp, path, "mmu_bypass");
		return aif_cfg_fail(c, fp, "traffic class %u is lossless (its priority group "
				    "%u is in pfc_enable): a class outside the buffer is "
				    "never paused", tc, pg);
	}
	q->mmu_bypass = tcs;
	return 0;
}

int
aif_cfg_wire_model(struct pctx *c, json_t *j, const char *path, uint8_t *model)
{
	static const char *const models[] = {"ethernet", "ns3", NULL};

	return aif_cfg_get_enum(c, j, path, "wire_model", models, "wire model", model) < 0 ? -1 : 0;
}
