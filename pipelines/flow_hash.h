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

/*
 * MurmurHash3 x86_32 of n little-endian 32-bit words (no tail bytes), as
 * ConWeave's ns-3 SwitchNode::EcmpHash computes it over a 12-byte key.
 */
static inline uint32_t
aif_murmur3_words(const uint32_t *w, unsigned n, uint32_t seed)
{
	uint32_t h = seed;

	for (unsigned i = 0; i < n; i++) {
		uint32_t k = w[i] * 0xcc9e2d51u;
		k = (k << 15) | (k >> 17);
		h ^= k * 0x1b873593u;
		h = (h << 13) | (h >> 19);
		h = h * 5 + 0xe6546b64u;
	}
	return aif_fmix32(h ^ (n * 4));
}

/*
 * ns-3's ECMP key (switch-node.cc DoLbFlowECMP): source IP, destination IP
 * as host-order integers (0x0b000001 for 11.0.0.1), then sport | dport <<
 * 16, hashed by aif_murmur3_words with the switch's seed (ns-3: its node
 * id); the next hop is hash % n over the group's members in order.  The
 * fields and the finaliser are fixed (hash_fields is not read).  IPv6: the
 * last 32 bits of each address stand in.
 *	ns-3's hosts 0 -> 1, ports 10000 -> 100, switch 128:
 *	aif_flow_hash_ns3 over {0x0b000001, 0x0b000101, 10000 | 100 << 16}
 */
static inline uint32_t
aif_flow_hash_ns3(const struct aif_pkt *m, uint32_t seed)
{
	uint32_t w[3], a, b;
	unsigned off = m->src.family == AIF_AF_INET4 ? 0 : 12;

	memcpy(&a, m->src.b + off, 4);
	memcpy(&b, m->dst.b + off, 4);
	w[0] = rte_be_to_cpu_32(a);
	w[1] = rte_be_to_cpu_32(b);
	w[2] = (m->flags & AIF_PKT_F_L4) ? (uint32_t)rte_be_to_cpu_16(m->src_port) |
					   (uint32_t)rte_be_to_cpu_16(m->dst_port) << 16
					 : 0;
	return aif_murmur3_words(w, 3, seed);
}

/* Toeplitz over the selected fields, as host-order 32-bit words. */
uint32_t aif_flow_hash_toeplitz(const struct aif_pkt *m, uint32_t fields);

static inline uint32_t
aif_flow_hash(const struct aif_pkt *m, uint32_t fields, uint8_t alg,
	      uint32_t seed)
{
	uint32_t h;

	if (unlikely(alg == AIF_HASH_MURMUR3_NS3))
		return aif_flow_hash_ns3(m, seed);
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
