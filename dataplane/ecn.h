/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking and WRED for DCQCN, on one egress queue.
 *
 * Reads:  the queue's instantaneous occupancy in bytes (no EWMA), the
 *         packet's ECN codepoint (struct aif_pkt.ecn, or aif_ecn_bits()),
 *         whether the queue is lossless (PFC on its priority), one 32-bit
 *         draw from the worker's struct aif_rng.
 * Writes: nothing in the packet: aif_ecn_decide() returns a verdict and the
 *         caller acts on it (aif_ecn_mark_ce() on MARK, free + count on
 *         DROP); it bumps the counters of the struct aif_ecn_ctr it is given.
 *
 * Knobs (struct aif_ecn_params; SONiC WRED_PROFILE field in brackets):
 *   kmin_bytes  [green_min_threshold]  below or at it, never congested
 *   kmax_bytes  [green_max_threshold]  above it, always congested
 *   pmax        [green_drop_probability / 100]  probability at Kmax, as a
 *               plain probability in [0, 1] (SONiC's percent 20 -> 0.2;
 *               the DCQCN study's 1% -> 0.01).  One representation only.
 *   mode        [ecn + wred_green_enable]  AIF_ECN_MODE_ECN (ecn_all: mark
 *               ECT, WRED-drop Not-ECT), AIF_ECN_MODE_WRED (ecn_none: drop
 *               only, the ECN field is ignored), AIF_ECN_MODE_OFF
 *               (wred_green_enable false: always pass).
 *   mark_point  enqueue or dequeue: carried for the integrator, never read
 *               here.  HPCC decides at dequeue, on the bytes left behind the
 *               departing packet (it subtracts the packet first); the P4
 *               tutorial exercises/ecn decides on the depth at enqueue.
 *   lossless    per queue, given to each decision.
 *   qmin_bytes  the queue's guaranteed minimum: the decision reads
 *               q' = max(0, q - qmin) where it reads q below.  ConWeave's
 *               ns-3 (switch-mmu.cc ShouldSendCN) marks on a queue's shared
 *               bytes, those beyond m_q_min_cell = 1 + MTU = 1,049 B; 0
 *               (the default) reads the whole queue.  Folded into the
 *               thresholds: Kmin + qmin and Kmax + qmin (saturating).
 *
 * The decision (HPCC switch-mmu.cc ShouldSendCN, boundaries exactly so):
 *   q <= Kmin            not congested; no random number drawn
 *   Kmin < q <= Kmax     congested with probability
 *                            p(q) = Pmax * (q - Kmin) / (Kmax - Kmin)
 *                        one 32-bit random number drawn.  At q == Kmin
 *                        p is 0; at q == Kmax p is Pmax, NOT 1 (HPCC:
 *                        "if (q > kmax) return true; if (q > kmin) ...p").
 *   q > Kmax             always congested; no random number drawn
 *   Kmin == Kmax is allowed: a step at K (DCTCP), congested iff q > K.
 *
 *   congested + ECT(0)/ECT(1), mode ECN   -> AIF_ECN_MARK (set CE)
 *   congested + CE,             mode ECN   -> AIF_ECN_PASS (already marked)
 *   congested + Not-ECT (or any codepoint in mode WRED):
 *                 lossy queue              -> AIF_ECN_DROP (WRED drop)
 *                 lossless queue           -> AIF_ECN_PASS (never dropped
 *                                             for ECN/WRED; PFC holds it)
 *   not congested                          -> AIF_ECN_PASS
 * HPCC itself sets CE on every congested packet whatever its codepoint
 * (all its traffic is ECT); the Not-ECT rows follow RFC 3168 instead.
 * HPCC also never marks its queue 0 (ACK/CNP/PFC): give that queue a
 * profile in AIF_ECN_MODE_OFF, or do not call decide for it.
 *
 * Fixed point (config, computed once by aif_ecn_config_init):
 *   pmax_q32 = round(Pmax * 2^32)                        (0 .. 2^32)
 *   slope    = ceil(pmax_q32 * 2^31 / (Kmax - Kmin))     (< 2^63 + 2^32)
 * per packet, with d = q - Kmin in 1 .. Kmax - Kmin (bytes):
 *   t = (slope * d) >> 31     p(q) * 2^32; slope * d < 2^64
 *   congested iff (uint32_t)(aif_rng_next() >> 32) < t
 * so p as applied is t / 2^32, within 3 * 2^-32 of Pmax*d/(Kmax-Kmin)
 * (pmax_q32 rounding, slope rounded up, t rounded down); t at d = range is
 * at least pmax_q32, so Pmax 1 at q == Kmax gives t >= 2^32: always.
 * One multiply, one shift, one compare.
 *
 * Counters (struct aif_ecn_ctr, per queue and per worker, one writer):
 *   ect_seen                 packets arriving ECT(0) or ECT(1)
 *   ce_marked                MARK verdicts (this switch set CE)
 *   ce_on_arrival            packets arriving CE (marked upstream)
 *   wred_drops               DROP verdicts
 *   not_ect_lossless_passed  congested, would be dropped, but the queue
 *                            is lossless so it passed
 * ect_seen and ce_on_arrival count every call, whatever q.  decide updates
 * them itself (not_ect_lossless_passed needs "congested", which a PASS
 * verdict does not carry), once per call: call it once per packet.
 *
 * Marking: aif_ecn_mark_ce() sets the two ECN bits to 11 (CE).  IPv4: TOS
 * byte (offset 1) |= 3 and the header checksum patched incrementally on the
 * version/IHL/TOS word (RFC 1624 eqn. 3, aif_csum_update16).  IPv6: the low
 * two bits of the traffic class, bits 20-21 of the first 32-bit word
 * (version 31-28, traffic class 27-20, flow label 19-0), i.e. byte 1 |= 0x30.
 * The RoCEv2 ICRC masks the IPv4 TOS and checksum and the IPv6 traffic
 * class (and flow label), so a marked RoCE packet keeps a valid ICRC.
 */
#ifndef AIF_ECN_H
#define AIF_ECN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rng.h"
#include "cksum.h"

/* ECN codepoints, the low two bits of the IPv4 TOS / IPv6 traffic class. */
#define AIF_ECN_NOT_ECT 0x0
#define AIF_ECN_ECT1 0x1
#define AIF_ECN_ECT0 0x2
#define AIF_ECN_CE 0x3
#define AIF_ECN_MASK 0x3

#define AIF_ECN_SLOPE_SHIFT 31

enum aif_ecn_mode {
	AIF_ECN_MODE_ECN = 0, /* mark ECT, WRED-drop Not-ECT (SONiC ecn_all) */
	AIF_ECN_MODE_WRED,    /* WRED drop only (SONiC ecn_none) */
	AIF_ECN_MODE_OFF,     /* pass everything (wred_green_enable false) */
	AIF_ECN_MODE_MAX
};

/* Where the integrator calls aif_ecn_decide(); carried, not used here. */
enum aif_ecn_mark_point {
	AIF_ECN_AT_DEQUEUE = 0, /* HPCC: q = bytes left after the packet leaves */
	AIF_ECN_AT_ENQUEUE,     /* P4 exercises/ecn: q = bytes before it joins */
	AIF_ECN_MARK_POINT_MAX
};

enum aif_ecn_verdict {
	AIF_ECN_PASS = 0,
	AIF_ECN_MARK, /* caller: aif_ecn_mark_ce() and forward */
	AIF_ECN_DROP, /* caller: free it (WRED drop) */
};

/* What the user wrote (one WRED_PROFILE). */
struct aif_ecn_params {
	uint32_t kmin_bytes;
	uint32_t kmax_bytes;
	double pmax;         /* probability at Kmax, 0..1 (SONiC percent / 100) */
	enum aif_ecn_mode mode;
	enum aif_ecn_mark_point mark_point;
	uint32_t qmin_bytes; /* taken off q before the comparisons (ns-3: 1,049) */
};

/* Precomputed, read-only for workers. */
struct aif_ecn_config {
	uint32_t kmin_bytes;  /* UINT32_MAX in mode OFF: never congested */
	uint32_t kmax_bytes;  /* UINT32_MAX in mode OFF */
	uint64_t slope;       /* ceil(pmax_q32 << 31 / (Kmax - Kmin)); 0 if equal */
	uint64_t pmax_q32;    /* round(pmax * 2^32), 0..2^32 */
	uint8_t ecn;          /* 1 in mode ECN: ECT packets are marked, not dropped */
	uint8_t mode;         /* enum aif_ecn_mode, as given */
	uint8_t mark_point;   /* enum aif_ecn_mark_point, as given */
};

/* Errors of aif_ecn_config_init, one per bad field. */
#define AIF_FOREACH_ECN_ERR(_)                                               \
	_(NULL_ARG, -1, "null argument")                                     \
	_(KMIN_GT_KMAX, -2, "kmin_bytes greater than kmax_bytes")            \
	_(PMAX_RANGE, -3, "pmax not within [0, 1]")                          \
	_(MODE, -4, "unknown ecn mode")                                      \
	_(MARK_POINT, -5, "unknown mark point")

enum aif_ecn_err {
	AIF_ECN_OK = 0,
#define AIF_ECN_ERR_ENUM(id, val, text) AIF_ECN_ERR_##id = (val),
	AIF_FOREACH_ECN_ERR(AIF_ECN_ERR_ENUM)
#undef AIF_ECN_ERR_ENUM
};

/* Counters, declared once. */
#define AIF_FOREACH_ECN_CTR(_)    \
	_(ect_seen)               \
	_(ce_marked)              \
	_(ce_on_arrival)          \
	_(wred_drops)             \
	_(not_ect_lossless_passed)

struct aif_ecn_ctr {
#define AIF_ECN_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_ECN_CTR(AIF_ECN_CTR_FIELD)
#undef AIF_ECN_CTR_FIELD
};

#define AIF_ECN_CTR_WORDS (sizeof(struct aif_ecn_ctr) / sizeof(uint64_t))

/* Names of struct aif_ecn_ctr's fields, in order. */
extern const char *const aif_ecn_ctr_names[];
extern const unsigned aif_ecn_ctr_n;

/*
 * Check params and fill the config.  Returns 0 or a negative
 * enum aif_ecn_err naming the first bad field; c is untouched on error.
 *
 *	struct aif_ecn_params p = { .kmin_bytes = 400000, .kmax_bytes = 1600000,
 *				    .pmax = 0.2, .mode = AIF_ECN_MODE_ECN };
 *	int rc = aif_ecn_config_init(&cfg, &p);
 *	if (rc < 0) printf("%s\n", aif_ecn_err_name(rc));
 */
int aif_ecn_config_init(struct aif_ecn_config *c, const struct aif_ecn_params *p);

/* Text for a return value of aif_ecn_config_init ("ok" for 0). */
const char *aif_ecn_err_name(int err);

/*
 * Is the queue congested at q bytes?  Draws one random number only when
 * Kmin < q <= Kmax.  Exposed for tests and for a caller that wants the
 * curve without the ECN rules; aif_ecn_decide uses it.
 */
static inline bool
aif_ecn_congested(const struct aif_ecn_config *c, uint32_t qlen_bytes,
		  struct aif_rng *rng)
{
	uint64_t t;

	if (qlen_bytes <= c->kmin_bytes)
		return false;
	if (qlen_bytes > c->kmax_bytes)
		return true;
	t = (c->slope * (uint64_t)(qlen_bytes - c->kmin_bytes)) >> AIF_ECN_SLOPE_SHIFT;
	return (uint64_t)(uint32_t)(aif_rng_next(rng) >> 32) < t;
}

/*
 * The per-packet decision (rules in the comment at the top).  ecn_bits is
 * the packet's codepoint (only its low two bits are read); lossless is the
 * queue's class; ctr is this queue's counters (not NULL).
 *
 *	v = aif_ecn_decide(&q->ecn_cfg, q->bytes, m->ecn, q->lossless, &w->rng,
 *			   &w->ecn_ctr[port][q]);
 *	if (v == AIF_ECN_MARK) aif_ecn_mark_ce(frame + m->l3_off,
 *					       m->kind == AIF_PKT_IPV6);
 *	else if (v == AIF_ECN_DROP) drop it;
 */
static inline enum aif_ecn_verdict
aif_ecn_decide(const struct aif_ecn_config *c, uint32_t qlen_bytes,
	       uint8_t ecn_bits, bool lossless, struct aif_rng *rng,
	       struct aif_ecn_ctr *ctr)
{
	ecn_bits &= AIF_ECN_MASK;
	if (ecn_bits == AIF_ECN_CE)
		ctr->ce_on_arrival++;
	else if (ecn_bits != AIF_ECN_NOT_ECT)
		ctr->ect_seen++;

	if (!aif_ecn_congested(c, qlen_bytes, rng))
		return AIF_ECN_PASS;
	if (c->ecn && ecn_bits != AIF_ECN_NOT_ECT) {
		if (ecn_bits == AIF_ECN_CE)
			return AIF_ECN_PASS;
		ctr->ce_marked++;
		return AIF_ECN_MARK;
	}
	if (lossless) {
		ctr->not_ect_lossless_passed++;
		return AIF_ECN_PASS;
	}
	ctr->wred_drops++;
	return AIF_ECN_DROP;
}

/* The ECN codepoint of an IPv4 or IPv6 header. */
static inline uint8_t
aif_ecn_bits(const uint8_t *l3, int is_ipv6)
{
	return is_ipv6 ? (l3[1] >> 4) & AIF_ECN_MASK : l3[1] & AIF_ECN_MASK;
}

/*
 * Set CE in an IPv4 or IPv6 header in place (IPv4: checksum patched).
 * Idempotent: a CE packet is left as it is, checksum included.
 */
static inline void
aif_ecn_mark_ce(uint8_t *l3, int is_ipv6)
{
	uint16_t old_word, new_word, csum;

	if (is_ipv6) {
		l3[1] |= AIF_ECN_CE << 4;
		return;
	}
	if ((l3[1] & AIF_ECN_MASK) == AIF_ECN_CE)
		return;
	memcpy(&old_word, l3, sizeof(old_word));
	new_word = old_word | rte_cpu_to_be_16(AIF_ECN_CE);
	memcpy(l3, &new_word, sizeof(new_word));
	memcpy(&csum, l3 + AIF_IPV4_CSUM_OFF, sizeof(csum));
	csum = aif_csum_update16(csum, old_word, new_word);
	memcpy(l3 + AIF_IPV4_CSUM_OFF, &csum, sizeof(csum));
}

#endif /* AIF_ECN_H */
