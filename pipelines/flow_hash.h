/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: flow hash (input to every load-balancing scheme).
 *
 * Reads:  pkt src/dst, l4_proto, src_port/dst_port (when AIF_PKT_F_L4),
 *         flow_label, dest_qp (when AIF_PKT_F_ROCE); the policy's hash
 *         fields and algorithm; the switch seed.
 * Writes: nothing (returns the hash; the caller stores pkt->hash).
 *
 * CRC32C (rte_hash_crc, SSE4.2) by default, Toeplitz (rte_softrss, the NIC
 * RSS function with the common Microsoft key) as an option.  Both are
 * linear in their seed, so a per-switch seed alone would only XOR a constant
 * into every hash and two tiers would still choose alike; the result is
 * therefore passed through a non-linear finaliser keyed by the seed
 * (murmur3 fmix32), which is what keeps tiers with different seeds from
 * polarising.
 */
#ifndef AIF_FLOW_HASH_H
#define AIF_FLOW_HASH_H

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_hash_crc.h>
#include <rte_thash.h>

#include "../dataplane/params.h"
#include "../dataplane/pkt.h"

static inline uint32_t
aif_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/*
 * CRC32C of a 16-byte address.  Same value as rte_hash_crc(b, 16, h), which
 * loads uint64_t words through a cast: the address sits at 4-byte alignment
 * in struct aif_pkt, so that load is misaligned (UBSan stops on it).
 */
static inline uint32_t
aif_crc_ip6(const uint8_t *b, uint32_t h)
{
	uint64_t w[2];

	memcpy(w, b, sizeof(w));
	h = rte_hash_crc_8byte(w[0], h);
	return rte_hash_crc_8byte(w[1], h);
}

/* Toeplitz over the selected fields, as host-order 32-bit words. */
uint32_t aif_flow_hash_toeplitz(const struct aif_pkt *m, uint32_t fields);

static inline uint32_t
aif_flow_hash(const struct aif_pkt *m, uint32_t fields, uint8_t alg,
	      uint32_t seed)
{
	uint32_t h;

	if (unlikely(alg == AIF_HASH_TOEPLITZ)) {
		h = aif_flow_hash_toeplitz(m, fields);
	} else {
		h = seed;
		if (m->src.family == AIF_AF_INET4) {
			if (fields & AIF_HF_SRC_IP)
				h = rte_hash_crc_4byte(*(const uint32_t *)m->src.b, h);
			if (fields & AIF_HF_DST_IP)
				h = rte_hash_crc_4byte(*(const uint32_t *)m->dst.b, h);
		} else {
			if (fields & AIF_HF_SRC_IP)
				h = aif_crc_ip6(m->src.b, h);
			if (fields & AIF_HF_DST_IP)
				h = aif_crc_ip6(m->dst.b, h);
			if (fields & AIF_HF_FLOW_LABEL)
				h = rte_hash_crc_4byte(m->flow_label, h);
		}
		if (fields & AIF_HF_PROTO)
			h = rte_hash_crc_1byte(m->l4_proto, h);
		if (m->flags & AIF_PKT_F_L4) {
			uint32_t ports = 0;
			if (fields & AIF_HF_SRC_PORT)
				ports = m->src_port;
			if (fields & AIF_HF_DST_PORT)
				ports |= (uint32_t)m->dst_port << 16;
			h = rte_hash_crc_4byte(ports, h);
		}
		if ((fields & AIF_HF_DEST_QP) && (m->flags & AIF_PKT_F_ROCE))
			h = rte_hash_crc_4byte(m->dest_qp, h);
	}
	return aif_fmix32(h ^ seed);
}

#endif /* AIF_FLOW_HASH_H */
