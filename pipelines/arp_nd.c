/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP, IPv6 neighbour discovery and ping for the switch's own addresses
 * (what, and which counters, in arp_nd.h).  Replies are built in place in
 * the request's mbuf; solicitations come from the switch's pool.
 */
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../dataplane/bfd.h"
#include "../dataplane/mbuf.h"
#include "../dataplane/neigh.h"
#include "arp_nd.h"
#include "rewrite.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ND_NS 135
#define ND_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_NA_FLAGS_RSO 0xE0000000u
#define ND_NA_FLAGS_RO 0xA0000000u
#define ND_LEN 24  /* ICMPv6 NS/NA without options */
#define ND_OPT_LL_LEN 8

static bool
port_has_addr(const struct aif_tables *t, uint16_t port, const struct aif_ip *ip)
{
	const struct aif_port_l3 *l3 = &t->ports[port];
	for (unsigned i = 0; i < l3->n_addrs; i++)
		if (aif_ip_equal(&l3->addrs[i].addr, ip))
			return true;
	return false;
}

/* The port's address to source a request to target from: same subnet first. */
static const struct aif_ip *
port_src_addr(const struct aif_tables *t, uint16_t port, const struct aif_ip *target)
{
	const struct aif_port_l3 *l3 = &t->ports[port];
	const struct aif_ip *any = NULL;
	for (unsigned i = 0; i < l3->n_addrs; i++) {
		if (l3->addrs[i].addr.family != target->family)
			continue;
		if (aif_prefix_contains(&l3->addrs[i], target))
			return &l3->addrs[i].addr;
		if (any == NULL)
			any = &l3->addrs[i].addr;
	}
	return any;
}

/* proxy_arp: answer for destinations routed through another port. */
static bool
proxy_ok(const struct aif_tables *t, uint16_t port, const struct aif_ip *ip)
{
	uint64_t nh;
	if (!t->proxy_arp)
		return false;
	if (ip->family == AIF_AF_INET4) {
		uint32_t a = aif_ip4_host(ip);
		aif_tables_lookup4(t, &a, &nh, 1);
	} else {
		uint8_t a[1][16];
		memcpy(a[0], ip->b, 16);
		aif_tables_lookup6(t, a, &nh, 1);
	}
	switch (aif_nh_type(nh)) {
	case AIF_NH_GROUP:
		return true;
	case AIF_NH_CONNECTED:
		return aif_nh_index(nh) != port;
	default:
		return false;
	}
}

/*
 * Report a host heard in ARP/ND to control, within the port's learn rate
 * (t->neigh.rate_pps per worker, bursts of t->neigh.burst): a generic cell
 * rate algorithm, one theoretical arrival time per port.  create: the
 * frame was for the switch (a request for its address, an answer to it),
 * so an unknown host may be added; otherwise known ones are only refreshed.
 */
static void
learn(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
      const struct aif_ip *ip, const uint8_t *mac, bool create, aif_time_ns now)
{
	struct aif_learn ev;

	if (t->neigh.rate_pps != 0) {
		aif_time_ns interval = AIF_NS_PER_S / t->neigh.rate_pps;
		aif_time_ns tat = f->learn_tat_ns[port];
		if (tat < now)
			tat = now;
		if (tat - now > interval * (t->neigh.burst - 1)) {
			f->port_ctr[port].learn_ratelimited++;
			return;
		}
		f->learn_tat_ns[port] = tat + interval;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ip = *ip;
	memcpy(ev.mac.b, mac, 6);
	ev.port = port;
	ev.create = create;
	/* a full ring loses a learn event, counted, never blocks: the next
	 * ARP retries */
	if (rte_ring_enqueue_elem(f->learn_ring, &ev, sizeof(ev)) != 0)
		f->port_ctr[port].learn_ring_full++;
}

void
aif_arp_input(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
	      struct rte_mbuf *mb, const struct aif_pkt *m, aif_time_ns now_ns,
	      struct aif_fwd_out *o, uint16_t i)
{
	uint8_t *data = rte_pktmbuf_mtod(mb, uint8_t *);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)data;
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(data + m->l3_off);
	struct rte_arp_ipv4 *a = &ah->arp_data;
	const struct aif_mac *pmac = &t->ports[port].mac;

	f->port_ctr[port].arp_rx++;
	bool answer = ah->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) &&
		      (port_has_addr(t, port, &m->dst) || proxy_ok(t, port, &m->dst));
	if (a->arp_sip != 0)
		learn(f, t, port, &m->src, a->arp_sha.addr_bytes,
		      answer || memcmp(eh->dst_addr.addr_bytes, pmac->b, 6) == 0, now_ns);
	if (answer) {
		uint32_t tip = a->arp_tip;
		ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
		a->arp_tha = a->arp_sha;
		a->arp_tip = a->arp_sip;
		memcpy(a->arp_sha.addr_bytes, pmac->b, 6);
		a->arp_sip = tip;
		eh->dst_addr = eh->src_addr;
		memcpy(eh->src_addr.addr_bytes, pmac->b, 6);
		f->port_ctr[port].arp_tx++;
		aif_fwd_to(o, i, AIF_NEXT_REPLY, port);
		return;
	}
	aif_fwd_to(o, i, AIF_NEXT_CONSUMED, port);
}

/* Find a link-layer address option of type want in ND options. */
static const uint8_t *
nd_ll_option(const uint8_t *opt, int len, uint8_t want)
{
	while (len >= 2) {
		int olen = opt[1] * 8;
		if (olen == 0 || olen > len)
			return NULL;
		if (opt[0] == want && olen >= ND_OPT_LL_LEN)
			return opt + 2;
		opt += olen;
		len -= olen;
	}
	return NULL;
}

/* ICMPv6 checksum over the pseudo-header (rte_ipv6_udptcp_cksum sums any L4). */
static uint16_t
icmp6_csum(const struct rte_ipv6_hdr *ip6, const void *l4)
{
	return rte_ipv6_udptcp_cksum(ip6, l4);
}

void
aif_nd_input(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
	     struct rte_mbuf *mb, const struct aif_pkt *m, aif_time_ns now_ns,
	     struct aif_fwd_out *o, uint16_t i)
{
	uint8_t *data = rte_pktmbuf_mtod(mb, uint8_t *);
	const uint8_t *icmp = data + m->l4_off;
	int icmp_len = (int)m->l3_off + m->l3_len - m->l4_off;
	static const uint8_t unspec[16];

	f->port_ctr[port].nd_rx++;
	if (m->ttl != 255 || icmp_len < ND_LEN) {
		aif_fwd_drop(f, o, i, port, AIF_DROP_MALFORMED);
		return;
	}
	struct aif_ip target = { .family = AIF_AF_INET6 };
	memcpy(target.b, icmp + 8, 16);
	const uint8_t *opts = icmp + ND_LEN;
	int opts_len = icmp_len - ND_LEN;

	if (icmp[0] == ND_NA) {
		const uint8_t *ll = nd_ll_option(opts, opts_len, ND_OPT_TLLA);
		learn(f, t, port, &target, ll ? ll : data + 6,
		      memcmp(data, t->ports[port].mac.b, 6) == 0, now_ns);
		aif_fwd_to(o, i, AIF_NEXT_CONSUMED, port);
		return;
	}
	/* neighbour solicitation */
	bool from_unspec = memcmp(m->src.b, unspec, 16) == 0;
	bool answer = port_has_addr(t, port, &target) || proxy_ok(t, port, &target);
	if (!from_unspec) {
		const uint8_t *ll = nd_ll_option(opts, opts_len, ND_OPT_SLLA);
		learn(f, t, port, &m->src, ll ? ll : data + 6, answer, now_ns);
	}
	if (!answer) {
		aif_fwd_to(o, i, AIF_NEXT_CONSUMED, port);
		return;
	}
	/* Answer in place with a neighbour advertisement carrying our MAC. */
	uint16_t want = m->l3_off + sizeof(struct rte_ipv6_hdr) + ND_LEN + ND_OPT_LL_LEN;
	if (rte_pktmbuf_data_len(mb) > want)
		rte_pktmbuf_trim(mb, rte_pktmbuf_data_len(mb) - want);
	else if (rte_pktmbuf_data_len(mb) < want &&
		 rte_pktmbuf_append(mb, want - rte_pktmbuf_data_len(mb)) == NULL) {
		aif_fwd_to(o, i, AIF_NEXT_CONSUMED, port);
		return;
	}
	data = rte_pktmbuf_mtod(mb, uint8_t *);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)data;
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(data + m->l3_off);
	uint8_t *na = (uint8_t *)(ip6 + 1);
	const struct aif_mac *pmac = &t->ports[port].mac;
	struct aif_ip src = m->src;

	eh->dst_addr = eh->src_addr;
	memcpy(eh->src_addr.addr_bytes, pmac->b, 6);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(ND_LEN + ND_OPT_LL_LEN);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = 255;
	memcpy(ip6->src_addr, target.b, 16);
	if (from_unspec) { /* RFC 4861 7.2.4: to all-nodes, S clear */
		static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
		memcpy(ip6->dst_addr, all_nodes, 16);
	} else {
		memcpy(ip6->dst_addr, src.b, 16);
	}
	memset(na, 0, ND_LEN + ND_OPT_LL_LEN);
	na[0] = ND_NA;
	/* na + 4 is only 2-byte aligned (14 + 40 + 4 from the frame start) */
	uint32_t na_flags = rte_cpu_to_be_32(from_unspec ? ND_NA_FLAGS_RO
							 : ND_NA_FLAGS_RSO);
	memcpy(na + 4, &na_flags, sizeof(na_flags));
	memcpy(na + 8, target.b, 16);
	na[ND_LEN] = ND_OPT_TLLA;
	na[ND_LEN + 1] = 1;
	memcpy(na + ND_LEN + 2, pmac->b, 6);
	*(uint16_t *)(na + 2) = icmp6_csum(ip6, na);
	f->port_ctr[port].nd_tx++;
	aif_fwd_to(o, i, AIF_NEXT_REPLY, port);
}

/* A BFD control packet to the switch on port: to control (bfd.h). */
static void
bfd_heard(struct aif_fwd *f, uint16_t port, const struct rte_mbuf *mb, const struct aif_pkt *m)
{
	const uint8_t *udp = rte_pktmbuf_mtod(mb, const uint8_t *) + m->l4_off;
	uint32_t have = rte_pktmbuf_data_len(mb) > m->l4_off + 8u
			? rte_pktmbuf_data_len(mb) - m->l4_off - 8u : 0;
	uint32_t udp_len = (uint32_t)udp[4] << 8 | udp[5];
	uint32_t len = RTE_MIN(have, udp_len >= 8 ? udp_len - 8 : 0);
	struct aif_bfd_heard h = {
		.src_ip = aif_ip4_host(&m->src), .port = port, .ttl = m->ttl,
		.len = (uint8_t)RTE_MIN(len, 255u),
	};

	memcpy(h.pkt, udp + 8, RTE_MIN(len, (uint32_t)AIF_BFD_PKT_LEN));
	f->port_ctr[port].bfd_rx++;
	if (f->bfd_rx == NULL || rte_ring_mp_enqueue_elem(f->bfd_rx, &h, sizeof(h)) != 0)
		f->port_ctr[port].bfd_ring_full++;
}

void
aif_local_input(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
		struct rte_mbuf *mb, const struct aif_pkt *m, struct aif_fwd_out *o,
		uint16_t i)
{
	uint8_t *data = rte_pktmbuf_mtod(mb, uint8_t *);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)data;
	uint8_t *icmp = data + m->l4_off;

	if (unlikely(t->ports[port].bfd) && m->kind == AIF_PKT_IPV4 && m->l4_off != 0 &&
	    m->l4_proto == IPPROTO_UDP && m->dst_port == RTE_BE16(AIF_BFD_UDP_PORT)) {
		bfd_heard(f, port, mb, m);
		aif_fwd_to(o, i, AIF_NEXT_CONSUMED, port);
		return;
	}
	if (!(m->flags & AIF_PKT_F_ICMP_ECHO) || m->l4_off == 0) {
		aif_fwd_drop(f, o, i, port, AIF_DROP_TO_SWITCH);
		return;
	}
	uint16_t *csum = (uint16_t *)(icmp + 2);
	uint16_t old_word = *(uint16_t *)icmp;
	if (m->kind == AIF_PKT_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(data + m->l3_off);
		uint32_t a = ip->src_addr;
		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
		ip->time_to_live = 64;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = aif_ipv4_csum((const uint8_t *)ip,
						 rte_ipv4_hdr_len(ip));
		icmp[0] = RTE_IP_ICMP_ECHO_REPLY;
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(data + m->l3_off);
		uint8_t a[16];
		memcpy(a, ip6->src_addr, 16);
		memcpy(ip6->src_addr, ip6->dst_addr, 16);
		memcpy(ip6->dst_addr, a, 16);
		ip6->hop_limits = 64;
		icmp[0] = ICMP6_ECHO_REPLY;
	}
	/* the pseudo-header sum is unchanged by swapping addresses */
	*csum = aif_csum_update16(*csum, old_word, *(uint16_t *)icmp);
	eh->dst_addr = eh->src_addr;
	memcpy(eh->src_addr.addr_bytes, t->ports[port].mac.b, 6);
	f->port_ctr[port].icmp_echo_replies++;
	aif_fwd_to(o, i, AIF_NEXT_REPLY, port);
}

static bool
rate_limited(struct aif_fwd *f, const struct aif_ip *ip, aif_time_ns now_ns)
{
	uint64_t key[2]; /* rte_hash_crc loads 8 bytes at a time: aligned copy */
	memcpy(key, ip->b, sizeof(key));
	uint32_t b = rte_hash_crc(key, sizeof(key), 0) % AIF_ARP_RL_BUCKETS;
	if (f->arp_req_ns[b] != 0 && now_ns - f->arp_req_ns[b] < AIF_ARP_RL_NS)
		return true;
	f->arp_req_ns[b] = now_ns ? now_ns : 1;
	return false;
}

static int
build_arp_request(struct rte_mbuf *mb, const struct aif_mac *smac,
		  const struct aif_ip *sip, const struct aif_ip *tip)
{
	uint8_t *data = (uint8_t *)rte_pktmbuf_append(mb, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	if (data == NULL)
		return -1;
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)data;
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(eh + 1);

	memset(data, 0, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	memset(eh->dst_addr.addr_bytes, 0xff, 6);
	memcpy(eh->src_addr.addr_bytes, smac->b, 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = 6;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	memcpy(ah->arp_data.arp_sha.addr_bytes, smac->b, 6);
	memcpy(&ah->arp_data.arp_sip, sip->b, 4);
	memcpy(&ah->arp_data.arp_tip, tip->b, 4);
	return 0;
}

static int
build_ns(struct rte_mbuf *mb, const struct aif_mac *smac,
	 const struct aif_ip *sip, const struct aif_ip *tip)
{
	uint16_t len = sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv6_hdr) +
		       ND_LEN + ND_OPT_LL_LEN;
	uint8_t *data = (uint8_t *)rte_pktmbuf_append(mb, len);
	if (data == NULL)
		return -1;
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)data;
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1);
	uint8_t *ns = (uint8_t *)(ip6 + 1);

	memset(data, 0, len);
	/* solicited-node multicast ff02::1:ffXX:XXXX and its MAC 33:33:ff:XX:XX:XX */
	uint8_t dst[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	memcpy(dst + 13, tip->b + 13, 3);
	uint8_t dmac[6] = { 0x33, 0x33, 0xff, tip->b[13], tip->b[14], tip->b[15] };
	memcpy(eh->dst_addr.addr_bytes, dmac, 6);
	memcpy(eh->src_addr.addr_bytes, smac->b, 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(ND_LEN + ND_OPT_LL_LEN);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = 255;
	memcpy(ip6->src_addr, sip->b, 16);
	memcpy(ip6->dst_addr, dst, 16);
	ns[0] = ND_NS;
	memcpy(ns + 8, tip->b, 16);
	ns[ND_LEN] = ND_OPT_SLLA;
	ns[ND_LEN + 1] = 1;
	memcpy(ns + ND_LEN + 2, smac->b, 6);
	*(uint16_t *)(ns + 2) = icmp6_csum(ip6, ns);
	return 0;
}

/*
 * A frame the switch built (untagged, from the start of a fresh mbuf) as
 * port l3 sends it: on a port with "vlan" it carries the port's VID (or a
 * priority tag) with PCP 0, so hosts on that VLAN see the switch's
 * requests.  -1 when the mbuf has no headroom (a fresh one has 128 bytes).
 */
static int
tag_for_port(struct rte_mbuf *mb, const struct aif_port_l3 *l3)
{
	uint16_t tpid = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	uint16_t tci = rte_cpu_to_be_16(l3->vlan_id);
	uint8_t *f;

	if (!l3->tagged)
		return 0;
	f = (uint8_t *)rte_pktmbuf_prepend(mb, sizeof(struct rte_vlan_hdr));
	if (f == NULL)
		return -1;
	memmove(f, f + sizeof(struct rte_vlan_hdr), 2 * RTE_ETHER_ADDR_LEN);
	memcpy(f + 2 * RTE_ETHER_ADDR_LEN, &tpid, sizeof(tpid));
	memcpy(f + 2 * RTE_ETHER_ADDR_LEN + sizeof(tpid), &tci, sizeof(tci));
	return 0;
}

void
aif_neigh_solicit(struct aif_fwd *f, const struct aif_tables *t,
		  uint16_t port, const struct aif_ip *target, aif_time_ns now_ns,
		  struct aif_fwd_out *o)
{
	const struct aif_ip *src;
	struct rte_mbuf *mb;

	if (port >= t->n_ports || o->n_built >= AIF_BURST || rate_limited(f, target, now_ns))
		return;
	src = port_src_addr(t, port, target);
	if (src == NULL || (mb = aif_mbuf_alloc(f->pool)) == NULL)
		return;
	int rc = target->family == AIF_AF_INET4
		? build_arp_request(mb, &t->ports[port].mac, src, target)
		: build_ns(mb, &t->ports[port].mac, src, target);
	if (rc != 0 || tag_for_port(mb, &t->ports[port]) != 0) {
		rte_pktmbuf_free(mb);
		return;
	}
	if (target->family == AIF_AF_INET4)
		f->port_ctr[port].arp_tx++;
	else
		f->port_ctr[port].nd_tx++;
	aif_fwd_built(o, mb, port);
}
