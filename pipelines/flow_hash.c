/* SPDX-License-Identifier: BSD-3-Clause */
/* Toeplitz variant of the flow hash (see flow_hash.h). */
#include <rte_byteorder.h>
#include <rte_common.h>

#include "flow_hash.h"

/* Longest tuple: two IPv6 addresses, ports, proto, flow label, dest QP. */
#define MAX_WORDS (4 + 4 + 1 + 1 + 1 + 1)

/*
 * The RSS key most NICs ship with (Microsoft's verification key), 40 bytes,
 * then its first 12 bytes again: rte_softrss reads (n + 1) key words for an
 * n-word tuple, and the 40-byte key covers only the 9 words of an IPv6
 * 4-tuple.  The tuples a NIC hashes see only the first 40 bytes, so they
 * hash as on the NIC.
 */
static const uint8_t rss_key[(MAX_WORDS + 1) * 4] __rte_aligned(4) = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d,
};

static unsigned
put_addr(uint32_t *t, unsigned n, const struct aif_ip *a)
{
	unsigned words = a->family == AIF_AF_INET4 ? 1 : 4;
	for (unsigned i = 0; i < words; i++) {
		uint32_t v;
		memcpy(&v, a->b + 4 * i, 4);
		t[n++] = rte_be_to_cpu_32(v);
	}
	return n;
}

uint32_t
aif_flow_hash_toeplitz(const struct aif_pkt *m, uint32_t fields)
{
	uint32_t t[MAX_WORDS];
	unsigned n = 0;

	if (fields & AIF_HF_SRC_IP)
		n = put_addr(t, n, &m->src);
	if (fields & AIF_HF_DST_IP)
		n = put_addr(t, n, &m->dst);
	if (m->flags & AIF_PKT_F_L4) {
		uint32_t sp = (fields & AIF_HF_SRC_PORT) ? rte_be_to_cpu_16(m->src_port) : 0;
		uint32_t dp = (fields & AIF_HF_DST_PORT) ? rte_be_to_cpu_16(m->dst_port) : 0;
		t[n++] = (sp << 16) | dp;
	}
	if (fields & AIF_HF_PROTO)
		t[n++] = m->l4_proto;
	if ((fields & AIF_HF_FLOW_LABEL) && m->src.family == AIF_AF_INET6)
		t[n++] = m->flow_label;
	if ((fields & AIF_HF_DEST_QP) && (m->flags & AIF_PKT_F_ROCE))
		t[n++] = m->dest_qp;
	return rte_softrss(t, n, rss_key);
}
