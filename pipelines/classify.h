/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: classify.
 *
 * Reads:  pkt->dscp, pkt->pcp, pkt->flags (VLAN); the policy's trust mode and
 *         dscp_to_tc / pcp_to_tc maps (flattened into aif_tables).
 * Writes: pkt->tc.
 * Knobs:  policy "trust" (dscp|pcp), "dscp_to_tc_map", "pcp_to_tc_map".
 * Trust PCP on an untagged frame falls back to the DSCP map.
 */
#ifndef AIF_CLASSIFY_H
#define AIF_CLASSIFY_H

#include "../dataplane/pkt.h"
#include "../dataplane/tables.h"

static inline void
aif_classify(const struct aif_tables *t, struct aif_pkt *m)
{
	if (t->trust == AIF_TRUST_PCP && (m->flags & AIF_PKT_F_VLAN))
		m->tc = t->pcp_to_tc[m->pcp & 7];
	else
		m->tc = t->dscp_to_tc[m->dscp & 63];
}

#endif /* AIF_CLASSIFY_H */
