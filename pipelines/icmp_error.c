/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP time exceeded and packet too big (what, to whom, how often:
 * icmp_error.h).  The message is built in a fresh mbuf from the switch's
 * pool; the packet it is about is only read.
 */
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "../dataplane/frame.h"
#include "../dataplane/mbuf.h"
#include "icmp_error.h"
#include "rewrite.h"

#define ICMP4_TIME_EXCEEDED 11
#define ICMP6_TIME_EXCEEDED 3
#define ICMP4_UNREACH 3
#define ICMP4_FRAG_NEEDED 4 /* its code */
#define ICMP6_TOO_BIG 2
#define ICMP_ERR_HLEN 8 /* type, code, checksum, 4 unused bytes */
#define IPV4_HLEN 20
#define IPV6_HLEN 40

/* Never an error about an error, a later fragment, a group or unspecified
 * sender, or a group destination (RFC 1812 4.3.2.7, RFC 4443 2.4 (e)). */
static bool
ineligible(const uint8_t *frame, const struct aif_pkt *m)
{
	if (m->kind == AIF_PKT_IPV4) {
		const uint8_t *ip = frame + m->l3_off;
		unsigned hlen = (ip[0] & 0xfu) * 4u;
		uint8_t s = m->src.b[0];
		if ((((unsigned)ip[6] << 8 | ip[7]) & 0x1fffu) != 0)
			return true; /* not the first fragment */
		if (s == 0 || s == 127 || s >= 224 || m->dst.b[0] >= 224)
			return true;
		if (ip[9] == IPPROTO_ICMP && m->l3_len > hlen) {
			uint8_t type = ip[hlen];
			return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
		}
		return false;
	}
	static const uint8_t unspec[16];
	if (memcmp(m->src.b, unspec, sizeof(unspec)) == 0 || m->src.b[0] == 0xff ||
	    m->dst.b[0] == 0xff)
		return true;
	return m->l4_proto == IPPROTO_ICMPV6 && m->l4_off != 0 && frame[m->l4_off] < 128;
}

/* Generic cell rate: AIF_ICMP_ERR_RATE_PPS per port, bursts of
 * AIF_ICMP_ERR_BURST.  True: over it. */
static bool
over_rate(struct aif_fwd *f, uint16_t port, aif_time_ns now_ns)
{
	const aif_time_ns interval = AIF_NS_PER_S / AIF_ICMP_ERR_RATE_PPS;
	aif_time_ns tat = f->icmp_tat_ns[port];

	if (tat < now_ns)
		tat = now_ns;
	if (tat - now_ns > interval * (AIF_ICMP_ERR_BURST - 1))
		return true;
	f->icmp_tat_ns[port] = tat + interval;
	return false;
}

/* The address to speak from on port to a sender at to: the port's on the
 * sender's subnet, else its first of that family, else the switch's. */
static const struct aif_ip *
src_addr(const struct aif_tables *t, uint16_t port, const struct aif_ip *to)
{
	const struct aif_port_l3 *l3 = &t->ports[port];
	const struct aif_ip *any = NULL;

	for (unsigned i = 0; i < l3->n_addrs; i++) {
		if (l3->addrs[i].addr.family != to->family)
			continue;
		if (aif_prefix_contains(&l3->addrs[i], to))
			return &l3->addrs[i].addr;
		if (any == NULL)
			any = &l3->addrs[i].addr;
	}
	for (uint16_t p = 0; any == NULL && p < t->n_ports; p++)
		for (unsigned i = 0; any == NULL && i < t->ports[p].n_addrs; i++)
			if (t->ports[p].addrs[i].addr.family == to->family)
				any = &t->ports[p].addrs[i].addr;
	return any;
}

/* Ethernet header (and the port's tag) to dst from the port; returns its
 * length. */
static unsigned
l2_header(uint8_t *d, const uint8_t *dst, const struct aif_port_l3 *l3, uint16_t type)
{
	unsigned n = 12;

	memcpy(d, dst, 6);
	memcpy(d + 6, l3->mac.b, 6);
	if (l3->tagged) {
		d[12] = AIF_ETHERTYPE_VLAN >> 8;
		d[13] = AIF_ETHERTYPE_VLAN & 0xff;
		d[14] = (uint8_t)(l3->vlan_id >> 8); /* PCP 0, DEI 0 */
		d[15] = (uint8_t)l3->vlan_id;
		n = 16;
	}
	d[n] = (uint8_t)(type >> 8);
	d[n + 1] = (uint8_t)type;
	return n + 2;
}

/* An ICMP error about mb to its sender: IPv4 type4/code4, IPv6 type6 code
 * 0, mtu in the header's last 4 bytes (0: none; IPv4: its last 2, RFC
 * 1191).  True when built. */
static bool
icmp_error(struct aif_fwd *f, const struct aif_tables *t, const struct rte_mbuf *mb,
	   const struct aif_pkt *m, aif_time_ns now_ns, struct aif_fwd_out *o,
	   uint8_t type4, uint8_t code4, uint8_t type6, uint32_t mtu)
{
	const uint8_t *frame = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint16_t port = m->in_port;
	bool v4 = m->kind == AIF_PKT_IPV4;

	if (port >= t->n_ports || o->n_built >= AIF_BURST || ineligible(frame, m))
		return false;
	const struct aif_port_l3 *l3 = &t->ports[port];
	const struct aif_ip *src = src_addr(t, port, &m->src);
	if (src == NULL)
		return false;
	if (over_rate(f, port, now_ns)) {
		f->port_ctr[port].icmp_ratelimited++;
		return false;
	}
	/* the quote: the packet from its IP header, within the size limits */
	unsigned hdr = (v4 ? IPV4_HLEN : IPV6_HLEN) + ICMP_ERR_HLEN;
	unsigned max_ip = v4 ? AIF_ICMP4_ERR_MAX_BYTES : AIF_ICMP6_ERR_MAX_BYTES;
	if (l3->mtu < max_ip)
		max_ip = l3->mtu;
	if (max_ip <= hdr)
		return false;
	unsigned quote = m->l3_len;
	if (quote > max_ip - hdr)
		quote = max_ip - hdr;
	unsigned have = aif_frame_parse_len(mb) - m->l3_off; /* a light frame's all */
	if (quote > have)
		quote = have;

	struct rte_mbuf *out = aif_mbuf_alloc(f->pool);
	if (out == NULL)
		return false;
	unsigned l2_len = l3->tagged ? 18 : 14;
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(out, (uint16_t)(l2_len + hdr + quote));
	if (d == NULL) {
		rte_pktmbuf_free(out);
		return false;
	}
	l2_header(d, frame + 6, l3, v4 ? AIF_ETHERTYPE_IPV4 : AIF_ETHERTYPE_IPV6);
	uint8_t *ip = d + l2_len;
	uint8_t *icmp = ip + (v4 ? IPV4_HLEN : IPV6_HLEN);
	memset(ip, 0, hdr);
	const uint8_t *q = aif_frame_read(mb, m->l3_off, quote, icmp + ICMP_ERR_HLEN);
	if (q == NULL) {
		rte_pktmbuf_free(out);
		return false;
	}
	if (q != icmp + ICMP_ERR_HLEN)
		memcpy(icmp + ICMP_ERR_HLEN, q, quote);
	if (v4) {
		uint16_t tot = (uint16_t)(hdr + quote), sum;
		ip[0] = 0x45;
		ip[1] = 0xc0; /* precedence: internetwork control */
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[8] = 64;
		ip[9] = IPPROTO_ICMP;
		memcpy(ip + 12, src->b, 4);
		memcpy(ip + 16, m->src.b, 4);
		sum = aif_ipv4_csum(ip, IPV4_HLEN);
		memcpy(ip + 10, &sum, sizeof(sum));
		icmp[0] = type4;
		icmp[1] = code4;
		icmp[6] = (uint8_t)(mtu >> 8);
		icmp[7] = (uint8_t)mtu;
		sum = (uint16_t)~rte_raw_cksum(icmp, ICMP_ERR_HLEN + quote);
		memcpy(icmp + 2, &sum, sizeof(sum));
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)ip;
		uint16_t sum;
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(ICMP_ERR_HLEN + quote));
		ip6->proto = IPPROTO_ICMPV6;
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, src->b, 16);
		memcpy(ip6->dst_addr, m->src.b, 16);
		icmp[0] = type6;
		icmp[4] = (uint8_t)(mtu >> 24);
		icmp[5] = (uint8_t)(mtu >> 16);
		icmp[6] = (uint8_t)(mtu >> 8);
		icmp[7] = (uint8_t)mtu;
		sum = rte_ipv6_udptcp_cksum(ip6, icmp);
		memcpy(icmp + 2, &sum, sizeof(sum));
	}
	aif_fwd_built(o, out, port);
	return true;
}

void
aif_icmp_time_exceeded(struct aif_fwd *f, const struct aif_tables *t,
		       const struct rte_mbuf *mb, const struct aif_pkt *m,
		       aif_time_ns now_ns, struct aif_fwd_out *o)
{
	if (icmp_error(f, t, mb, m, now_ns, o, ICMP4_TIME_EXCEEDED, 0, ICMP6_TIME_EXCEEDED, 0))
		f->port_ctr[m->in_port].icmp_time_exceeded++;
}

void
aif_icmp_too_big(struct aif_fwd *f, const struct aif_tables *t, const struct rte_mbuf *mb,
		 const struct aif_pkt *m, uint32_t mtu, aif_time_ns now_ns,
		 struct aif_fwd_out *o)
{
	if (m->kind == AIF_PKT_IPV4) {
		const uint8_t *ip = rte_pktmbuf_mtod(mb, const uint8_t *) + m->l3_off;
		if (!(ip[6] & 0x40))
			return; /* DF clear: the sender allowed fragments, none is made */
	}
	if (icmp_error(f, t, mb, m, now_ns, o, ICMP4_UNREACH, ICMP4_FRAG_NEEDED, ICMP6_TOO_BIG,
		       mtu))
		f->port_ctr[m->in_port].icmp_too_big++;
}
