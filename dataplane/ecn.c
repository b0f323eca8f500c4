/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking and WRED: the control-side half.  The rules, the fixed-point
 * arithmetic and the per-packet code (inline) are in ecn.h; here are the
 * config check and precomputation, the error texts and the counter names.
 *
 * Reads:  struct aif_ecn_params (what the user wrote).
 * Writes: struct aif_ecn_config (read-only for the workers afterwards).
 *
 * Arithmetic, once per profile (integers after one rounding of Pmax):
 *   pmax_q32 = round(Pmax * 2^32)                       in 0 .. 2^32
 *   range    = Kmax - Kmin                              bytes
 *   slope    = ceil((pmax_q32 << 31) / range)           2^-63 per byte
 * (pmax_q32 << 31) <= 2^63 and slope * range < 2^63 + range, so the
 * per-packet product slope * (q - Kmin) never overflows 64 bits.
 */
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "ecn.h"

const char *const aif_ecn_ctr_names[] = {
#define AIF_ECN_CTR_NAME(n) #n,
	AIF_FOREACH_ECN_CTR(AIF_ECN_CTR_NAME)
#undef AIF_ECN_CTR_NAME
};

const unsigned aif_ecn_ctr_n = RTE_DIM(aif_ecn_ctr_names);

const char *
aif_ecn_err_name(int err)
{
	switch (err) {
	case AIF_ECN_OK:
		return "ok";
#define AIF_ECN_ERR_CASE(id, val, text) \
	case (val):                     \
		return text;
	AIF_FOREACH_ECN_ERR(AIF_ECN_ERR_CASE)
#undef AIF_ECN_ERR_CASE
	}
	return "unknown error";
}

int
aif_ecn_config_init(struct aif_ecn_config *c, const struct aif_ecn_params *p)
{
	struct aif_ecn_config n = { 0 };
	uint32_t range;

	if (c == NULL || p == NULL)
		return AIF_ECN_ERR_NULL_ARG;
	if (p->kmin_bytes > p->kmax_bytes)
		return AIF_ECN_ERR_KMIN_GT_KMAX;
	if (!(p->pmax >= 0.0 && p->pmax <= 1.0)) /* NaN fails too */
		return AIF_ECN_ERR_PMAX_RANGE;
	if ((unsigned)p->mode >= AIF_ECN_MODE_MAX)
		return AIF_ECN_ERR_MODE;
	if ((unsigned)p->mark_point >= AIF_ECN_MARK_POINT_MAX)
		return AIF_ECN_ERR_MARK_POINT;

	n.mode = (uint8_t)p->mode;
	n.mark_point = (uint8_t)p->mark_point;
	n.ecn = p->mode == AIF_ECN_MODE_ECN;
	n.pmax_q32 = (uint64_t)(p->pmax * 4294967296.0 + 0.5); /* no libm */
	if (p->mode == AIF_ECN_MODE_OFF) {
		/* q <= UINT32_MAX always: never congested, no branch per packet */
		n.kmin_bytes = UINT32_MAX;
		n.kmax_bytes = UINT32_MAX;
		n.slope = 0;
	} else {
		/* q - qmin > K  <=>  q > K + qmin; the slope is unchanged */
		uint64_t kmin = (uint64_t)p->kmin_bytes + p->qmin_bytes;
		uint64_t kmax = (uint64_t)p->kmax_bytes + p->qmin_bytes;
		n.kmin_bytes = kmin > UINT32_MAX ? UINT32_MAX : (uint32_t)kmin;
		n.kmax_bytes = kmax > UINT32_MAX ? UINT32_MAX : (uint32_t)kmax;
		range = p->kmax_bytes - p->kmin_bytes;
		n.slope = range == 0 ? 0 :
			((n.pmax_q32 << AIF_ECN_SLOPE_SHIFT) + range - 1) / range;
	}
	*c = n;
	return AIF_ECN_OK;
}
