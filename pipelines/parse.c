/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: parse.  The contract (what is read, written and rejected) is in
 * parse.h; the fields are described in dataplane/pkt.h.
 *
 * Plain C, no DPDK: the frame is read byte by byte with big-endian helpers
 * (which compile to a load and a bswap), so any alignment is safe and the
 * unit tests need no EAL.  The only loop over data is the IPv4 header
 * checksum (IHL 32-bit words); the IPv6 extension-header walk loops over
 * headers, at most IPV6_EXT_MAX of them.
 *
 * Bounds: every header is checked against the bytes that hold it.  The IP
 * header against the frame; what follows it against the IP packet's own
 * length (l3_len), so Ethernet padding and the RoCEv2 ICRC after the IP
 * packet are never read as headers, and a header that the IP length cuts
 * is TRUNCATED even when the frame has more bytes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parse.h"

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define ARP_FIXED_LEN 8   /* htype, ptype, hlen, plen, oper */
#define ARP_ETH_IP4_LEN 28
#define IPV4_HLEN 20
#define IPV6_HLEN 40
#define IPV6_EXT_MIN 8    /* every extension header is a multiple of 8 */
#define IPV6_EXT_MAX 8    /* extension headers skipped before giving up on L4 */
#define UDP_HLEN 8
#define TCP_HLEN 20
#define ICMP_HLEN 4       /* type, code, checksum */

#define IP_PROTO_HOPOPTS 0
#define IP_PROTO_ICMP 1
#define IP_PROTO_TCP 6
#define IP_PROTO_UDP 17
#define IP_PROTO_ROUTING 43
#define IP_PROTO_FRAGMENT 44
#define IP_PROTO_ICMPV6 58
#define IP_PROTO_DSTOPTS 60

#define IPV4_FRAG_MASK 0x3fff /* MF and fragment offset */

#define ICMP_ECHO_REQUEST 8
#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_ND_NS 135
#define ICMPV6_ND_NA 136

#define ARP_HTYPE_ETHER 1

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline enum aif_drop_reason
fail(struct aif_pkt *m, enum aif_drop_reason r)
{
	m->drop = (uint8_t)r;
	return r;
}

/*
 * True when the one's complement sum of the header, checksum included,
 * is 0xffff.  Sums 32-bit words into 64 bits and folds: the result does not
 * depend on host byte order (RFC 1071).  n is IHL * 4.
 */
static inline __attribute__((always_inline)) uint64_t
sum32(const uint8_t *h, unsigned n)
{
	uint64_t sum = 0;
	uint32_t w;

	for (unsigned i = 0; i < n; i += 4) {
		memcpy(&w, h + i, sizeof(w));
		sum += w;
	}
	return sum;
}

static inline bool
ipv4_csum_ok(const uint8_t *h, unsigned n)
{
	/* no options (nearly all): a constant length, unrolled */
	uint64_t sum = __builtin_expect(n == 20, 1) ? sum32(h, 20) : sum32(h, n);

	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static inline void
set_ip(struct aif_ip *a, uint8_t family, const uint8_t *p, size_t n)
{
	a->family = family;
	memcpy(a->b, p, n);
}

/*
 * The header after IPv4 or the last IPv6 extension header: l4 points at
 * it, l4_len bytes of the IP packet remain, l4_off is its frame offset.
 */
static inline int
parse_l4(const uint8_t *l4, uint32_t l4_len, uint32_t l4_off, uint8_t proto,
	 bool v6, struct aif_pkt *m)
{
	unsigned doff;

	m->l4_proto = proto;
	switch (proto) {
	case IP_PROTO_UDP:
		if (l4_len < UDP_HLEN)
			return fail(m, AIF_DROP_TRUNCATED);
		m->l4_off = (uint16_t)l4_off;
		memcpy(&m->src_port, l4, 2);
		memcpy(&m->dst_port, l4 + 2, 2);
		m->flags |= AIF_PKT_F_L4;
		if (rd16(l4 + 2) == AIF_UDP_PORT_ROCEV2) {
			const uint8_t *bth = l4 + UDP_HLEN;

			if (l4_len < UDP_HLEN + AIF_BTH_LEN)
				return fail(m, AIF_DROP_TRUNCATED);
			m->bth_opcode = bth[0];
			m->dest_qp = rd32(bth + 4) & 0xffffff;
			m->psn = rd32(bth + 8) & 0xffffff;
			m->flags |= AIF_PKT_F_ROCE;
		}
		return 0;
	case IP_PROTO_TCP:
		if (l4_len < TCP_HLEN)
			return fail(m, AIF_DROP_TRUNCATED);
		doff = l4[12] >> 4;
		if (doff < TCP_HLEN / 4)
			return fail(m, AIF_DROP_MALFORMED);
		if (doff * 4 > l4_len)
			return fail(m, AIF_DROP_TRUNCATED);
		m->l4_off = (uint16_t)l4_off;
		memcpy(&m->src_port, l4, 2);
		memcpy(&m->dst_port, l4 + 2, 2);
		m->flags |= AIF_PKT_F_L4;
		return 0;
	case IP_PROTO_ICMP:
		if (v6)
			return 0;
		if (l4_len < ICMP_HLEN)
			return fail(m, AIF_DROP_TRUNCATED);
		m->l4_off = (uint16_t)l4_off;
		if (l4[0] == ICMP_ECHO_REQUEST)
			m->flags |= AIF_PKT_F_ICMP_ECHO;
		return 0;
	case IP_PROTO_ICMPV6:
		if (!v6)
			return 0;
		if (l4_len < ICMP_HLEN)
			return fail(m, AIF_DROP_TRUNCATED);
		m->l4_off = (uint16_t)l4_off;
		if (l4[0] == ICMPV6_ECHO_REQUEST)
			m->flags |= AIF_PKT_F_ICMP_ECHO;
		else if (l4[0] == ICMPV6_ND_NS || l4[0] == ICMPV6_ND_NA)
			m->flags |= AIF_PKT_F_ND;
		return 0;
	default:
		return 0;
	}
}

static inline int
parse_ipv4(const uint8_t *frame, uint32_t off, uint32_t len, struct aif_pkt *m)
{
	const uint8_t *ip = frame + off;
	uint32_t avail = len - off;
	unsigned hlen, tot;

	m->kind = AIF_PKT_IPV4;
	m->l3_off = (uint16_t)off;
	if (avail < IPV4_HLEN)
		return fail(m, AIF_DROP_TRUNCATED);
	if ((ip[0] >> 4) != 4)
		return fail(m, AIF_DROP_MALFORMED);
	hlen = (ip[0] & 0xf) * 4u;
	if (hlen < IPV4_HLEN)
		return fail(m, AIF_DROP_MALFORMED);
	tot = rd16(ip + 2);
	if (tot < hlen)
		return fail(m, AIF_DROP_MALFORMED);
	if (tot > avail) /* also covers hlen > avail */
		return fail(m, AIF_DROP_TRUNCATED);
	if (!ipv4_csum_ok(ip, hlen))
		return fail(m, AIF_DROP_MALFORMED);

	m->dscp = ip[1] >> 2;
	m->ecn = ip[1] & 3;
	m->ttl = ip[8];
	m->l3_len = (uint16_t)tot;
	set_ip(&m->src, AIF_AF_INET4, ip + 12, 4);
	set_ip(&m->dst, AIF_AF_INET4, ip + 16, 4);
	if (rd16(ip + 6) & IPV4_FRAG_MASK) {
		m->l4_proto = ip[9];
		m->flags |= AIF_PKT_F_FRAG;
		return 0;
	}
	return parse_l4(ip + hlen, tot - hlen, off + hlen, ip[9], false, m);
}

static inline int
parse_ipv6(const uint8_t *frame, uint32_t off, uint32_t len, struct aif_pkt *m)
{
	const uint8_t *ip = frame + off;
	uint32_t avail = len - off;
	uint32_t vtf, end, hoff, ext_len;
	uint8_t nh;
	unsigned i;

	m->kind = AIF_PKT_IPV6;
	m->l3_off = (uint16_t)off;
	if (avail < IPV6_HLEN)
		return fail(m, AIF_DROP_TRUNCATED);
	vtf = rd32(ip);
	if ((vtf >> 28) != 6)
		return fail(m, AIF_DROP_MALFORMED);
	end = IPV6_HLEN + rd16(ip + 4);
	if (end > avail)
		return fail(m, AIF_DROP_TRUNCATED);

	m->dscp = (vtf >> 22) & 0x3f;
	m->ecn = (vtf >> 20) & 3;
	m->flow_label = vtf & 0xfffff;
	m->ttl = ip[7];
	m->l3_len = (uint16_t)end; /* end <= avail < 64 KiB */
	set_ip(&m->src, AIF_AF_INET6, ip + 8, 16);
	set_ip(&m->dst, AIF_AF_INET6, ip + 24, 16);

	nh = ip[6];
	hoff = IPV6_HLEN;
	for (i = 0; i < IPV6_EXT_MAX; i++) {
		switch (nh) {
		case IP_PROTO_HOPOPTS:
		case IP_PROTO_ROUTING:
		case IP_PROTO_DSTOPTS:
			if (hoff + IPV6_EXT_MIN > end)
				return fail(m, AIF_DROP_TRUNCATED);
			ext_len = (ip[hoff + 1] + 1u) * 8;
			if (hoff + ext_len > end)
				return fail(m, AIF_DROP_TRUNCATED);
			nh = ip[hoff];
			hoff += ext_len;
			continue;
		case IP_PROTO_FRAGMENT:
			/*
			 * Later fragments have no L4 header; the first one has,
			 * but is flagged the same so a flow hashes one way.
			 */
			if (hoff + IPV6_EXT_MIN > end)
				return fail(m, AIF_DROP_TRUNCATED);
			m->l4_proto = ip[hoff];
			m->flags |= AIF_PKT_F_FRAG;
			return 0;
		default:
			return parse_l4(ip + hoff, end - hoff, off + hoff, nh,
					true, m);
		}
	}
	/* Too many extension headers: forwarded, without L4 fields. */
	m->l4_proto = nh;
	return 0;
}

static inline int
parse_arp(const uint8_t *frame, uint32_t off, uint32_t len, struct aif_pkt *m)
{
	const uint8_t *a = frame + off;
	uint32_t avail = len - off;

	m->kind = AIF_PKT_ARP;
	m->l3_off = (uint16_t)off;
	if (avail < ARP_FIXED_LEN)
		return fail(m, AIF_DROP_TRUNCATED);
	if (rd16(a) != ARP_HTYPE_ETHER || rd16(a + 2) != AIF_ETHERTYPE_IPV4 ||
	    a[4] != 6 || a[5] != 4)
		return fail(m, AIF_DROP_MALFORMED);
	if (avail < ARP_ETH_IP4_LEN)
		return fail(m, AIF_DROP_TRUNCATED);
	set_ip(&m->src, AIF_AF_INET4, a + 14, 4); /* sender protocol address */
	set_ip(&m->dst, AIF_AF_INET4, a + 24, 4); /* target protocol address */
	return 0;
}

/*
 * Zero the metadata.  A plain memset of this size becomes "rep stos", whose
 * start-up cost was a third of the parser's time; 16-byte stores are not.
 */
static inline void
pkt_zero(struct aif_pkt *m)
{
#ifdef __SSE2__
	uint8_t *p = (uint8_t *)m;
	size_t i;
	for (i = 0; i + 16 <= sizeof(*m); i += 16)
		_mm_storeu_si128((__m128i *)(p + i), _mm_setzero_si128());
	for (; i < sizeof(*m); i++)
		p[i] = 0;
#else
	memset(m, 0, sizeof(*m));
#endif
}

/*
 * The frame nearly every packet-hop carries, an untagged IPv4 UDP RoCEv2
 * one without IP options or fragmentation: the general path's checks and
 * fields below for it, tested and written at once.  False (nothing
 * written) for any other frame, which the general path takes, and so for
 * every frame it would drop.
 */
static inline __attribute__((always_inline)) bool
parse_roce4(const uint8_t *frame, uint32_t len, struct aif_pkt *m)
{
	const uint8_t *ip = frame + ETH_HLEN, *l4 = ip + IPV4_HLEN, *bth = l4 + UDP_HLEN;

	if (len < ETH_HLEN + IPV4_HLEN + UDP_HLEN + AIF_BTH_LEN ||
	    rd16(frame + 12) != AIF_ETHERTYPE_IPV4 || ip[0] != 0x45 || ip[9] != IP_PROTO_UDP ||
	    (rd16(ip + 6) & IPV4_FRAG_MASK) != 0 || rd16(l4 + 2) != AIF_UDP_PORT_ROCEV2)
		return false;
	unsigned tot = rd16(ip + 2);
	if (tot > len - ETH_HLEN || tot < IPV4_HLEN + UDP_HLEN + AIF_BTH_LEN ||
	    !ipv4_csum_ok(ip, IPV4_HLEN))
		return false;
	pkt_zero(m);
	m->kind = AIF_PKT_IPV4;
	m->flags = (frame[0] & 1 ? AIF_PKT_F_L2_BCAST : 0) | AIF_PKT_F_L4 | AIF_PKT_F_ROCE;
	m->l4_proto = IP_PROTO_UDP;
	m->l3_off = ETH_HLEN;
	m->l4_off = ETH_HLEN + IPV4_HLEN;
	m->l3_len = (uint16_t)tot;
	m->dscp = ip[1] >> 2;
	m->ecn = ip[1] & 3;
	m->ttl = ip[8];
	m->bth_opcode = bth[0];
	memcpy(&m->src_port, l4, 2);
	memcpy(&m->dst_port, l4 + 2, 2);
	m->dest_qp = rd32(bth + 4) & 0xffffff;
	m->psn = rd32(bth + 8) & 0xffffff;
	set_ip(&m->src, AIF_AF_INET4, ip + 12, 4);
	set_ip(&m->dst, AIF_AF_INET4, ip + 16, 4);
	return true;
}

enum aif_drop_reason
aif_parse(const uint8_t *frame, uint32_t len, struct aif_pkt *m)
{
	uint32_t off = ETH_HLEN;
	uint16_t type, tci;

	if (__builtin_expect(parse_roce4(frame, len, m), 1))
		return 0;
	pkt_zero(m);
	m->kind = AIF_PKT_OTHER;
	if (len < ETH_HLEN)
		return fail(m, AIF_DROP_TRUNCATED);
	if (frame[0] & 1)
		m->flags = AIF_PKT_F_L2_BCAST;
	type = rd16(frame + 12);
	if (type == AIF_ETHERTYPE_VLAN) {
		if (len < ETH_HLEN + VLAN_HLEN)
			return fail(m, AIF_DROP_TRUNCATED);
		tci = rd16(frame + 14);
		m->pcp = (uint8_t)(tci >> 13);
		m->vlan_id = tci & 0xfff;
		m->flags |= AIF_PKT_F_VLAN;
		type = rd16(frame + 16);
		off += VLAN_HLEN;
		if (type == AIF_ETHERTYPE_VLAN) /* 0x88A8 inside: default */
			return fail(m, AIF_DROP_UNSUPPORTED);
	}

	switch (type) {
	case AIF_ETHERTYPE_IPV4:
		return parse_ipv4(frame, off, len, m);
	case AIF_ETHERTYPE_IPV6:
		return parse_ipv6(frame, off, len, m);
	case AIF_ETHERTYPE_ARP:
		return parse_arp(frame, off, len, m);
	case AIF_ETHERTYPE_MAC_CTRL:
		m->kind = AIF_PKT_MAC_CTRL;
		return 0;
	default: /* includes a 0x88A8 (QinQ) tag, outer or inner */
		return fail(m, AIF_DROP_UNSUPPORTED);
	}
}
