/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/parse.c.
 *
 * Frames are built by hand in byte arrays with the put_* helpers below,
 * which write big-endian fields and compute the IPv4 header checksum with
 * their own 16-bit reference sum.  Valid frames are checked field by field
 * against a complete expected struct aif_pkt (check_pkt), so a stray write
 * to any field fails.  Truncation is table-driven: every prefix of a valid
 * frame shorter than the bytes its headers announce must be TRUNCATED.
 * Needs no EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse.h"

#define R_OK 0
#define R_TRUNC AIF_DROP_TRUNCATED
#define R_MALF AIF_DROP_MALFORMED
#define R_UNSUP AIF_DROP_UNSUPPORTED

#define FRAME_MAX 256

static const uint8_t mac_uc[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_pfc[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
static const uint8_t mac_nd[6] = { 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 };

static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 0x01 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0x02,
				   0, 0, 0, 0, 0xab, 0xcd, 0, 0x02 };
static const uint8_t ip6_sn[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
				    0, 0, 0, 0x01, 0xff, 0x00, 0x00, 0x01 };

#define IP4(a, b, c, d) \
	(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

/* ---- frame builders ---- */

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* Reference checksum: big-endian 16-bit words, host-order result. */
static uint16_t
ref_csum(const uint8_t *p, unsigned n)
{
	uint32_t sum = 0;
	unsigned i;

	for (i = 0; i < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
ipv4_fix_csum(uint8_t *ip)
{
	unsigned hlen = (ip[0] & 0xf) * 4;

	put16(ip + 10, 0);
	put16(ip + 10, ref_csum(ip, hlen));
}

static uint32_t
put_eth(uint8_t *p, const uint8_t *dst, uint16_t type)
{
	memcpy(p, dst, 6);
	memcpy(p + 6, mac_src, 6);
	put16(p + 12, type);
	return 14;
}

/* Ethernet + one 802.1Q tag. */
static uint32_t
put_eth_vlan(uint8_t *p, const uint8_t *dst, uint16_t tci, uint16_t type)
{
	put_eth(p, dst, AIF_ETHERTYPE_VLAN);
	put16(p + 14, tci);
	put16(p + 16, type);
	return 18;
}

/* IPv4 header of ihl words (options are NOPs), valid checksum. */
static uint32_t
put_ipv4(uint8_t *p, unsigned ihl, uint8_t tos, uint16_t tot, uint16_t frag,
	 uint8_t ttl, uint8_t proto, uint32_t src, uint32_t dst)
{
	memset(p, 1, ihl * 4);
	p[0] = (uint8_t)(0x40 | ihl);
	p[1] = tos;
	put16(p + 2, tot);
	put16(p + 4, 0x1234);
	put16(p + 6, frag);
	p[8] = ttl;
	p[9] = proto;
	put32(p + 12, src);
	put32(p + 16, dst);
	ipv4_fix_csum(p);
	return ihl * 4;
}

static uint32_t
put_ipv6(uint8_t *p, uint8_t tc, uint32_t flow, uint16_t plen, uint8_t nh,
	 uint8_t hlim, const uint8_t *src, const uint8_t *dst)
{
	put32(p, (6u << 28) | ((uint32_t)tc << 20) | (flow & 0xfffff));
	put16(p + 4, plen);
	p[6] = nh;
	p[7] = hlim;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	return 40;
}

/* IPv6 extension header of (len8 + 1) * 8 bytes, padded with PadN. */
static uint32_t
put_ext(uint8_t *p, uint8_t nh, uint8_t len8)
{
	uint32_t n = (len8 + 1u) * 8;

	memset(p, 0, n);
	p[0] = nh;
	p[1] = len8;
	p[2] = 1; /* PadN */
	p[3] = (uint8_t)(n - 4);
	return n;
}

static uint32_t
put_frag6(uint8_t *p, uint8_t nh, uint16_t off8, int more)
{
	p[0] = nh;
	p[1] = 0;
	put16(p + 2, (uint16_t)(off8 << 3 | (more ? 1 : 0)));
	put32(p + 4, 0xcafef00d);
	return 8;
}

static uint32_t
put_udp(uint8_t *p, uint16_t sport, uint16_t dport, uint16_t ulen)
{
	put16(p, sport);
	put16(p + 2, dport);
	put16(p + 4, ulen);
	put16(p + 6, 0);
	return 8;
}

static uint32_t
put_tcp(uint8_t *p, uint16_t sport, uint16_t dport, unsigned doff)
{
	memset(p, 0, 20);
	put16(p, sport);
	put16(p + 2, dport);
	put32(p + 4, 1000);
	p[12] = (uint8_t)(doff << 4);
	p[13] = 0x02; /* SYN */
	put16(p + 14, 65535);
	return 20;
}

/* BTH with reserved bits set, so the parser must mask them. */
static uint32_t
put_bth(uint8_t *p, uint8_t opcode, uint32_t qp, uint32_t psn)
{
	p[0] = opcode;
	p[1] = 0x40;
	put16(p + 2, 0xffff);
	put32(p + 4, 0xff000000 | qp);
	put32(p + 8, 0x80000000 | psn); /* AckReq */
	return 12;
}

static uint32_t
put_icrc(uint8_t *p)
{
	put32(p, 0xdeadbeef);
	return 4;
}

/* ---- reference frames ---- */

#define ROCE_OPCODE 0x0a /* RC RDMA WRITE Only */
#define ROCE_QP 0xabcdef
#define ROCE_PSN 0x123456
#define ROCE_SPORT 0xc123
#define ROCE_DSCP 26
#define ROCE_ECN 2

/*
 * Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 = 58, padded to 60.  The IP
 * total length (44) ends with the ICRC: every cut below 58 is TRUNCATED.
 */
static uint32_t
build_roce4(uint8_t *b)
{
	uint32_t off;

	memset(b, 0, FRAME_MAX);
	off = put_eth(b, mac_uc, AIF_ETHERTYPE_IPV4);
	off += put_ipv4(b + off, 5, ROCE_DSCP << 2 | ROCE_ECN, 44, 0x4000, 64,
			17, IP4(10, 0, 0, 1), IP4(10, 0, 1, 2));
	off += put_udp(b + off, ROCE_SPORT, 4791, 24);
	off += put_bth(b + off, ROCE_OPCODE, ROCE_QP, ROCE_PSN);
	off += put_icrc(b + off);
	return off + 2;
}

/* Eth 14 + IPv6 40 + UDP 8 + BTH 12 + ICRC 4 = 78. */
static uint32_t
build_roce6(uint8_t *b)
{
	uint32_t off;

	memset(b, 0, FRAME_MAX);
	off = put_eth(b, mac_uc, AIF_ETHERTYPE_IPV6);
	off += put_ipv6(b + off, ROCE_DSCP << 2 | ROCE_ECN, 0xbeef1, 24, 17, 63,
			ip6_a, ip6_b);
	off += put_udp(b + off, ROCE_SPORT, 4791, 24);
	off += put_bth(b + off, ROCE_OPCODE, ROCE_QP, ROCE_PSN);
	off += put_icrc(b + off);
	return off;
}

/* VLAN pcp 5 vid 100, IPv4 UDP, 8 bytes of payload: 18+20+8+8 = 54, pad 60. */
static uint32_t
build_vlan_udp4(uint8_t *b)
{
	uint32_t off;

	memset(b, 0, FRAME_MAX);
	off = put_eth_vlan(b, mac_uc, 5u << 13 | 100, AIF_ETHERTYPE_IPV4);
	off += put_ipv4(b + off, 5, 0, 36, 0, 64, 17, IP4(192, 168, 0, 1),
			IP4(192, 168, 0, 2));
	off += put_udp(b + off, 1234, 5678, 16);
	memset(b + off, 0x55, 8);
	return 60;
}

/* IPv6, hop-by-hop (8 bytes), UDP, 8 bytes payload: 14+40+8+8+8 = 78. */
static uint32_t
build_hbh_udp6(uint8_t *b)
{
	uint32_t off;

	memset(b, 0, FRAME_MAX);
	off = put_eth(b, mac_uc, AIF_ETHERTYPE_IPV6);
	off += put_ipv6(b + off, 0, 0, 24, 0, 64, ip6_a, ip6_b);
	off += put_ext(b + off, 17, 0);
	off += put_udp(b + off, 1000, 2000, 16);
	memset(b + off, 0x77, 8);
	return off + 8;
}

/* ARP request, who has 10.0.0.2 tell 10.0.0.1: 14+28 = 42, pad 60. */
static uint32_t
build_arp(uint8_t *b)
{
	uint8_t *a;

	memset(b, 0, FRAME_MAX);
	a = b + put_eth(b, mac_bcast, AIF_ETHERTYPE_ARP);
	put16(a, 1);
	put16(a + 2, AIF_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, 1);
	memcpy(a + 8, mac_src, 6);
	put32(a + 14, IP4(10, 0, 0, 1));
	put32(a + 24, IP4(10, 0, 0, 2));
	return 60;
}

/* TCP SYN with 4 bytes of options (doff 6): 14+20+24 = 58, pad 60. */
static uint32_t
build_tcp4(uint8_t *b)
{
	uint32_t off;

	memset(b, 0, FRAME_MAX);
	off = put_eth(b, mac_uc, AIF_ETHERTYPE_IPV4);
	off += put_ipv4(b + off, 5, 0x10, 44, 0x4000, 128, 6,
			IP4(172, 16, 0, 1), IP4(172, 16, 0, 9));
	put_tcp(b + off, 40000, 443, 6);
	put32(b + off + 20, 0x020405b4); /* MSS 1460 */
	return 60;
}

/* ---- expected values ---- */

static struct aif_ip
ip4(uint32_t a)
{
	struct aif_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.family = AIF_AF_INET4;
	put32(ip.b, a);
	return ip;
}

static struct aif_ip
ip6(const uint8_t *a)
{
	struct aif_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.family = AIF_AF_INET6;
	memcpy(ip.b, a, 16);
	return ip;
}

static uint16_t
net16(uint16_t v)
{
	uint16_t n;
	uint8_t b[2];

	put16(b, v);
	memcpy(&n, b, 2);
	return n;
}

/* Every field of m, including those parse must leave zero. */
static void
check_pkt(const struct aif_pkt *m, const struct aif_pkt *e)
{
	assert_int_equal(m->kind, e->kind);
	assert_int_equal(m->flags, e->flags);
	assert_int_equal(m->l4_proto, e->l4_proto);
	assert_int_equal(m->pcp, e->pcp);
	assert_int_equal(m->vlan_id, e->vlan_id);
	assert_int_equal(m->l3_off, e->l3_off);
	assert_int_equal(m->l4_off, e->l4_off);
	assert_int_equal(m->l3_len, e->l3_len);
	assert_int_equal(m->dscp, e->dscp);
	assert_int_equal(m->ecn, e->ecn);
	assert_int_equal(m->ttl, e->ttl);
	assert_int_equal(m->bth_opcode, e->bth_opcode);
	assert_int_equal(m->src_port, e->src_port);
	assert_int_equal(m->dst_port, e->dst_port);
	assert_int_equal(m->flow_label, e->flow_label);
	assert_int_equal(m->dest_qp, e->dest_qp);
	assert_int_equal(m->psn, e->psn);
	assert_memory_equal(&m->src, &e->src, sizeof(m->src));
	assert_memory_equal(&m->dst, &e->dst, sizeof(m->dst));
	assert_int_equal(m->tc, e->tc);
	assert_int_equal(m->drop, e->drop);
	assert_int_equal(m->in_port, e->in_port);
	assert_int_equal(m->out_port, e->out_port);
	assert_int_equal(m->nh_group, e->nh_group);
	assert_int_equal(m->nh_slot, e->nh_slot);
	assert_int_equal(m->hash, e->hash);
	assert_int_equal(m->member, e->member);
}

/* Parse into a struct full of garbage, so zeroing is checked too. */
static int
parse(const uint8_t *b, uint32_t len, struct aif_pkt *m)
{
	memset(m, 0xa5, sizeof(*m));
	return aif_parse(b, len, m);
}

/* Parse and expect reason (R_*), with m->drop agreeing. */
static void
expect_ret(const uint8_t *b, uint32_t len, int ret)
{
	struct aif_pkt m;

	assert_int_equal(parse(b, len, &m), ret);
	assert_int_equal(m.drop, ret);
}

/* ---- valid frames ---- */

static void
test_ipv4_udp(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_pkt m;

	(void)state;
	memset(b, 0, sizeof(b));
	put_eth(b, mac_uc, AIF_ETHERTYPE_IPV4);
	put_ipv4(b + 14, 5, 0xb8, 40, 0, 17, 17, IP4(10, 1, 2, 3),
		 IP4(10, 4, 5, 6));
	put_udp(b + 34, 53, 33333, 20);
	/* 54 bytes of headers and payload, then 6 bytes of padding */
	memset(b + 54, 0xee, 6);

	assert_int_equal(parse(b, 60, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV4, .flags = AIF_PKT_F_L4, .l4_proto = 17,
		.l3_off = 14, .l4_off = 34, .l3_len = 40,
		.dscp = 46, .ecn = 0, .ttl = 17,
		.src_port = net16(53), .dst_port = net16(33333),
		.src = ip4(IP4(10, 1, 2, 3)), .dst = ip4(IP4(10, 4, 5, 6)),
	});
}

static void
test_ipv4_options_udp(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_pkt m;

	(void)state;
	memset(b, 0, sizeof(b));
	put_eth(b, mac_uc, AIF_ETHERTYPE_IPV4);
	put_ipv4(b + 14, 7, 0, 36, 0, 5, 17, IP4(1, 1, 1, 1), IP4(2, 2, 2, 2));
	put_udp(b + 42, 7, 9, 8);

	assert_int_equal(parse(b, 60, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV4, .flags = AIF_PKT_F_L4, .l4_proto = 17,
		.l3_off = 14, .l4_off = 42, .l3_len = 36, .ttl = 5,
		.src_port = net16(7), .dst_port = net16(9),
		.src = ip4(IP4(1, 1, 1, 1)), .dst = ip4(IP4(2, 2, 2, 2)),
	});
}

static void
test_ipv4_roce(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce4(b);
	struct aif_pkt m;

	(void)state;
	assert_int_equal(len, 60);
	assert_int_equal(parse(b, len, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV4, .flags = AIF_PKT_F_L4 | AIF_PKT_F_ROCE,
		.l4_proto = 17, .l3_off = 14, .l4_off = 34, .l3_len = 44,
		.dscp = ROCE_DSCP, .ecn = ROCE_ECN, .ttl = 64,
		.bth_opcode = ROCE_OPCODE, .dest_qp = ROCE_QP, .psn = ROCE_PSN,
		.src_port = net16(ROCE_SPORT), .dst_port = net16(4791),
		.src = ip4(IP4(10, 0, 0, 1)), .dst = ip4(IP4(10, 0, 1, 2)),
	});
}

static void
test_ipv6_roce(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce6(b);
	struct aif_pkt m;

	(void)state;
	assert_int_equal(len, 78);
	assert_int_equal(parse(b, len, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV6, .flags = AIF_PKT_F_L4 | AIF_PKT_F_ROCE,
		.l4_proto = 17, .l3_off = 14, .l4_off = 54, .l3_len = 64,
		.dscp = ROCE_DSCP, .ecn = ROCE_ECN, .ttl = 63,
		.flow_label = 0xbeef1,
		.bth_opcode = ROCE_OPCODE, .dest_qp = ROCE_QP, .psn = ROCE_PSN,
		.src_port = net16(ROCE_SPORT), .dst_port = net16(4791),
		.src = ip6(ip6_a), .dst = ip6(ip6_b),
	});
}

static void
test_ipv6_hbh_udp(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_hbh_udp6(b);
	struct aif_pkt m;

	(void)state;
	assert_int_equal(parse(b, len, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV6, .flags = AIF_PKT_F_L4, .l4_proto = 17,
		.l3_off = 14, .l4_off = 62, .l3_len = 64, .ttl = 64,
		.src_port = net16(1000), .dst_port = net16(2000),
		.src = ip6(ip6_a), .dst = ip6(ip6_b),
	});
}

/* hop-by-hop (16) -> routing (8) -> destination options (24) -> TCP */
static void
test_ipv6_ext_chain_tcp(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t off;
	struct aif_pkt m;

	(void)state;
	memset(b, 0, sizeof(b));
	off = put_eth(b, mac_uc, AIF_ETHERTYPE_IPV6);
	off += put_ipv6(b + off, 0, 7, 16 + 8 + 24 + 20, 0, 9, ip6_b, ip6_a);
	off += put_ext(b + off, 43, 1);
	off += put_ext(b + off, 60, 0);
	off += put_ext(b + off, 6, 2);
	assert_int_equal(off, 102);
	off += put_tcp(b + off, 179, 50000, 5);

	assert_int_equal(parse(b, off, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV6, .flags = AIF_PKT_F_L4, .l4_proto = 6,
		.l3_off = 14, .l4_off = 102, .l3_len = 108, .ttl = 9,
		.flow_label = 7,
		.src_port = net16(179), .dst_port = net16(50000),
		.src = ip6(ip6_b), .dst = ip6(ip6_a),
	});
}

static void
test_vlan_ipv4(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_vlan_udp4(b);
	struct aif_pkt m;

	(void)state;
	assert_int_equal(parse(b, len, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV4, .flags = AIF_PKT_F_VLAN | AIF_PKT_F_L4,
		.pcp = 5, .vlan_id = 100, .l4_proto = 17,
		.l3_off = 18, .l4_off = 38, .l3_len = 36, .ttl = 64,
		.src_port = net16(1234), .dst_port = net16(5678),
		.src = ip4(IP4(192, 168, 0, 1)), .dst = ip4(IP4(192, 168, 0, 2)),
	});

	/* PCP 7, VID 4095, DEI set: all 16 bits of the TCI */
	put16(b + 14, 0xffff);
	assert_int_equal(parse(b, len, &m), 0);
	assert_int_equal(m.pcp, 7);
	assert_int_equal(m.vlan_id, 4095);
}

static void
test_tcp(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_tcp4(b);
	struct aif_pkt m;

	(void)state;
	assert_int_equal(parse(b, len, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_IPV4, .flags = AIF_PKT_F_L4, .l4_proto = 6,
		.l3_off = 14, .l4_off = 34, .l3_len = 44,
		.dscp = 4, .ttl = 128,
		.src_port = net16(40000), .dst_port = net16(443),
		.src = ip4(IP4(172, 16, 0, 1)), .dst = ip4(IP4(172, 16, 0, 9)),
	});
}

static void
test_tcp_bad_doff(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_tcp4(b);

	(void)state;
	b[34 + 12] = 4 << 4; /* data offset < 5 */
	expect_ret(b, len, R_MALF);
	b[34 + 12] = 7 << 4; /* 28 bytes, only 24 in the IP packet */
	expect_ret(b, len, R_TRUNC);
	b[34 + 12] = 6 << 4;
	expect_ret(b, len, R_OK);
}

static void
test_arp_request(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_arp(b);
	struct aif_pkt m;

	(void)state;
	assert_int_equal(parse(b, len, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_ARP, .flags = AIF_PKT_F_L2_BCAST, .l3_off = 14,
		.src = ip4(IP4(10, 0, 0, 1)), .dst = ip4(IP4(10, 0, 0, 2)),
	});
}

static void
test_icmp_echo(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_pkt m;
	const struct aif_pkt e = {
		.kind = AIF_PKT_IPV4, .flags = AIF_PKT_F_ICMP_ECHO,
		.l4_proto = 1, .l3_off = 14, .l4_off = 34, .l3_len = 84,
		.ttl = 64,
		.src = ip4(IP4(10, 0, 0, 1)), .dst = ip4(IP4(10, 0, 0, 254)),
	};

	(void)state;
	memset(b, 0, sizeof(b));
	put_eth(b, mac_uc, AIF_ETHERTYPE_IPV4);
	put_ipv4(b + 14, 5, 0, 84, 0x4000, 64, 1, IP4(10, 0, 0, 1),
		 IP4(10, 0, 0, 254));
	b[34] = 8; /* echo request */
	put16(b + 38, 0x0042);
	put16(b + 40, 1);

	assert_int_equal(parse(b, 98, &m), 0);
	check_pkt(&m, &e);

	/* an echo reply is not flagged */
	b[34] = 0;
	assert_int_equal(parse(b, 98, &m), 0);
	assert_int_equal(m.flags, 0);
	assert_int_equal(m.l4_off, 34);
}

static void
test_icmpv6_nd(void **state)
{
	static const struct {
		uint8_t type;
		uint8_t flags;
	} cases[] = {
		{ 135, AIF_PKT_F_ND },
		{ 136, AIF_PKT_F_ND },
		{ 128, AIF_PKT_F_ICMP_ECHO },
		{ 129, 0 },
		{ 134, 0 }, /* router advertisement: not ND as we mean it */
	};
	uint8_t b[FRAME_MAX];
	struct aif_pkt m;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(b, 0, sizeof(b));
		put_eth(b, mac_nd, AIF_ETHERTYPE_IPV6);
		put_ipv6(b + 14, 0, 0, 24, 58, 255, ip6_a, ip6_sn);
		b[54] = cases[i].type;
		memcpy(b + 62, ip6_b, 16); /* NS target */

		assert_int_equal(parse(b, 78, &m), 0);
		check_pkt(&m, &(struct aif_pkt){
			.kind = AIF_PKT_IPV6,
			.flags = AIF_PKT_F_L2_BCAST | cases[i].flags,
			.l4_proto = 58, .l3_off = 14, .l4_off = 54,
			.l3_len = 64, .ttl = 255,
			.src = ip6(ip6_a), .dst = ip6(ip6_sn),
		});
	}
}

static void
test_pfc_mac_ctrl(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_pkt m;
	unsigned i;

	(void)state;
	memset(b, 0, sizeof(b));
	put_eth(b, mac_pfc, AIF_ETHERTYPE_MAC_CTRL);
	put16(b + 14, 0x0101); /* PFC opcode */
	put16(b + 16, 0x0008); /* class 3 */
	for (i = 0; i < 8; i++)
		put16(b + 18 + 2 * i, i == 3 ? 0xffff : 0);

	assert_int_equal(parse(b, 60, &m), 0);
	check_pkt(&m, &(struct aif_pkt){
		.kind = AIF_PKT_MAC_CTRL, .flags = AIF_PKT_F_L2_BCAST,
	});

	/* the bare Ethernet header is enough */
	assert_int_equal(parse(b, 14, &m), 0);
	assert_int_equal(m.kind, AIF_PKT_MAC_CTRL);
}

static void
test_padding_ignored(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce4(b);
	struct aif_pkt m;

	(void)state;
	/* garbage after the IP packet (ICRC and padding) changes nothing */
	memset(b + 54, 0xff, len - 54);
	assert_int_equal(parse(b, len, &m), 0);
	assert_int_equal(m.l3_len, 44);
	assert_int_equal(m.flags, AIF_PKT_F_L4 | AIF_PKT_F_ROCE);
	assert_int_equal(m.psn, ROCE_PSN);
}

/* ---- malformed ---- */

static void
test_ipv4_bad_version(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce4(b);
	struct aif_pkt m;

	(void)state;
	b[14] = 0x65;
	ipv4_fix_csum(b + 14);
	assert_int_equal(parse(b, len, &m), R_MALF);
	assert_int_equal(m.drop, R_MALF);
	assert_int_equal(m.kind, AIF_PKT_IPV4);
	assert_int_equal(m.flags, 0);
}

static void
test_ipv4_ihl_too_small(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce4(b);
	unsigned ihl;

	(void)state;
	for (ihl = 0; ihl < 5; ihl++) {
		b[14] = (uint8_t)(0x40 | ihl);
		/* IHL 3 and 4 cover the checksum field: make it verify */
		ipv4_fix_csum(b + 14);
		expect_ret(b, len, R_MALF);
	}
}

static void
test_ipv4_total_len_below_ihl(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce4(b);

	(void)state;
	put16(b + 16, 19);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_MALF);

	/* IHL 6 (24 bytes) with total length 20 */
	build_roce4(b);
	b[14] = 0x46;
	put16(b + 16, 20);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_MALF);

	/* equal to the header: an empty IP packet is fine */
	build_roce4(b);
	put16(b + 16, 20);
	b[23] = 253; /* experimental protocol, no L4 */
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_OK);
}

static void
test_ipv4_bad_csum(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce4(b);
	unsigned i;

	(void)state;
	/* one flipped bit anywhere in the header */
	for (i = 0; i < 20 * 8; i++) {
		if (i / 8 == 0 || i / 8 == 2 || i / 8 == 3)
			continue; /* version/IHL and length fail otherwise */
		build_roce4(b);
		b[14 + i / 8] ^= (uint8_t)(1u << (i % 8));
		expect_ret(b, len, R_MALF);
	}
	/* the complemented checksum */
	build_roce4(b);
	put16(b + 24, (uint16_t)~(b[24] << 8 | b[25]));
	expect_ret(b, len, R_MALF);
}

static void
test_arp_bad_fields(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len;

	(void)state;
	len = build_arp(b);
	put16(b + 14, 6); /* htype IEEE 802 */
	expect_ret(b, len, R_MALF);

	build_arp(b);
	put16(b + 16, AIF_ETHERTYPE_IPV6);
	expect_ret(b, len, R_MALF);

	build_arp(b);
	b[18] = 8;
	expect_ret(b, len, R_MALF);

	build_arp(b);
	b[19] = 16;
	expect_ret(b, len, R_MALF);
}

static void
test_ipv6_bad_version(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce6(b);
	struct aif_pkt m;

	(void)state;
	b[14] = (uint8_t)(0x40 | (b[14] & 0x0f));
	assert_int_equal(parse(b, len, &m), R_MALF);
	assert_int_equal(m.kind, AIF_PKT_IPV6);
}

/* ---- truncated ---- */

/*
 * The first n bytes of a frame in a buffer of exactly n bytes, so that an
 * ASan build catches any read past the length the parser was given.
 */
static uint8_t *
prefix_copy(const uint8_t *full, uint32_t n)
{
	uint8_t *b = malloc(n ? n : 1);

	assert_non_null(b);
	memcpy(b, full, n);
	return b;
}

/* Every prefix of the 60-byte RoCEv2 frame, one expected result each. */
static void
test_roce4_prefixes(void **state)
{
	uint8_t full[FRAME_MAX], *b;
	uint32_t len = build_roce4(full), cut;
	struct aif_pkt m;
	int ret;

	(void)state;
	for (cut = 0; cut <= len; cut++) {
		b = prefix_copy(full, cut);
		ret = parse(b, cut, &m);
		free(b);
		if (cut < 14 + 44) {
			if (ret != R_TRUNC)
				fail_msg("length %u: got %d, want TRUNCATED",
					 cut, ret);
			assert_int_equal(m.drop, R_TRUNC);
		} else {
			if (ret != R_OK)
				fail_msg("length %u: got %d, want 0", cut, ret);
			assert_int_equal(m.flags, AIF_PKT_F_L4 | AIF_PKT_F_ROCE);
			assert_int_equal(m.psn, ROCE_PSN);
			assert_int_equal(m.drop, 0);
		}
	}
}

/*
 * The untagged RoCEv2 frame has a path of its own in the parser; a tag
 * (VID 0) in front sends the same headers through the general one.  Every
 * value of every IP, UDP and BTH byte, the IPv4 checksum fixed or not, and
 * every length: the same verdict and the same fields, but for the tag's
 * own (its flag, the offsets 4 further on).
 */
static void
test_roce4_same_as_general(void **state)
{
	uint8_t b[FRAME_MAX], t[FRAME_MAX];
	uint32_t len = build_roce4(b);
	struct aif_pkt m, g;
	unsigned checked = 0, ok = 0;

	(void)state;
	for (unsigned i = 14; i < 14 + 20 + 8 + 12; i++)
		for (unsigned v = 0; v < 256; v++)
			for (unsigned fix = 0; fix < 2; fix++) {
				build_roce4(b);
				b[i] = (uint8_t)v;
				if (fix && (b[14] & 0xf) >= 5 && i < 14 + (b[14] & 0xf) * 4u)
					ipv4_fix_csum(b + 14);
				for (uint32_t n = len - 8; n <= len; n += 4) {
					memcpy(t, b, 12);
					put16(t + 12, AIF_ETHERTYPE_VLAN);
					put16(t + 14, 0);
					memcpy(t + 16, b + 12, n - 12);
					int r = parse(b, n, &m), rg = parse(t, n + 4, &g);
					if (r != rg)
						fail_msg("byte %u = %u (fix %u), %u bytes: %d, general %d",
							 i, v, fix, n, r, rg);
					assert_int_equal(m.drop, g.drop);
					assert_int_equal(m.kind, g.kind);
					checked++;
					if (r != 0)
						continue;
					ok++;
					assert_int_equal(g.flags, m.flags | AIF_PKT_F_VLAN);
					assert_int_equal(g.l3_off, m.l3_off + 4);
					assert_int_equal(g.l4_off, m.l4_off ? m.l4_off + 4 : 0);
					g.flags = m.flags;
					g.l3_off = m.l3_off;
					g.l4_off = m.l4_off;
					assert_memory_equal(&m, &g, sizeof(m));
				}
			}
	/* both verdicts, thousands of each (14,627 of 61,440 parse) */
	assert_true(ok > checked / 8 && ok < checked);
}

/*
 * For other valid frames: every cut shorter than need is TRUNCATED, every
 * longer one parses.
 */
static void
test_other_prefixes(void **state)
{
	static const struct {
		const char *name;
		uint32_t (*build)(uint8_t *b);
		uint32_t need;
	} cases[] = {
		{ "roce6", build_roce6, 78 },
		{ "vlan udp4", build_vlan_udp4, 18 + 36 },
		{ "hbh udp6", build_hbh_udp6, 78 },
		{ "arp", build_arp, 14 + 28 },
		{ "tcp4", build_tcp4, 14 + 44 },
	};
	uint8_t full[FRAME_MAX], *b;
	uint32_t len, cut;
	unsigned i;
	int ret, want;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = cases[i].build(full);
		for (cut = 0; cut <= len; cut++) {
			b = prefix_copy(full, cut);
			want = cut < cases[i].need ? R_TRUNC : R_OK;
			ret = aif_parse(b, cut, &(struct aif_pkt){ 0 });
			free(b);
			if (ret != want)
				fail_msg("%s length %u: got %d, want %d",
					 cases[i].name, cut, ret, want);
		}
	}
}

/* Headers that do not fit in the IP packet, though the frame is long. */
static void
test_l4_cut_by_ip_length(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len;

	(void)state;
	/* UDP to 4791 with 8 of the 12 BTH bytes */
	len = build_roce4(b);
	put16(b + 16, 20 + 8 + 8);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_TRUNC);

	/* ... with exactly 12: fine */
	put16(b + 16, 20 + 8 + 12);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_OK);

	/* half a UDP header */
	put16(b + 16, 20 + 4);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_TRUNC);

	/* half a TCP header */
	len = build_tcp4(b);
	put16(b + 16, 20 + 10);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_TRUNC);

	/* half an ICMP header */
	len = build_tcp4(b);
	b[23] = 1;
	put16(b + 16, 20 + 3);
	ipv4_fix_csum(b + 14);
	expect_ret(b, len, R_TRUNC);

	/* IPv6: hop-by-hop header says 16 bytes, payload length 8 */
	len = build_hbh_udp6(b);
	put16(b + 18, 8);
	b[55] = 1;
	expect_ret(b, len, R_TRUNC);
	/* hop-by-hop header fills the payload, UDP announced: cut */
	b[55] = 0;
	expect_ret(b, len, R_TRUNC);
	/* ... with "no next header": fine, no L4 */
	b[54] = 59;
	expect_ret(b, len, R_OK);

	/* IPv6: fragment header cut */
	len = build_hbh_udp6(b);
	b[20] = 44;
	put16(b + 18, 4);
	expect_ret(b, len, R_TRUNC);
}

static void
test_ipv6_payload_beyond_frame(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_roce6(b);

	(void)state;
	put16(b + 18, 25);
	expect_ret(b, len, R_TRUNC);
	put16(b + 18, 23);
	expect_ret(b, len, R_OK);
}

/* ---- unsupported ---- */

static void
test_double_vlan(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t len = build_vlan_udp4(b);
	struct aif_pkt m;

	(void)state;
	put16(b + 16, AIF_ETHERTYPE_VLAN); /* 802.1Q in 802.1Q */
	assert_int_equal(parse(b, len, &m), R_UNSUP);
	assert_int_equal(m.drop, R_UNSUP);
	assert_int_equal(m.kind, AIF_PKT_OTHER);

	put16(b + 16, AIF_ETHERTYPE_QINQ);
	expect_ret(b, len, R_UNSUP);

	/* 802.1ad outer tag */
	build_vlan_udp4(b);
	put16(b + 12, AIF_ETHERTYPE_QINQ);
	expect_ret(b, len, R_UNSUP);
}

static void
test_other_ethertype(void **state)
{
	static const uint16_t types[] = { 0x88cc, 0x8847, 0x0842, 0x0000,
					  0x05dc, 0xffff };
	uint8_t b[FRAME_MAX];
	struct aif_pkt m;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(b, 0, sizeof(b));
		put_eth(b, mac_pfc, types[i]);
		assert_int_equal(parse(b, 60, &m), R_UNSUP);
		check_pkt(&m, &(struct aif_pkt){
			.kind = AIF_PKT_OTHER, .flags = AIF_PKT_F_L2_BCAST,
			.drop = R_UNSUP,
		});
	}
}

/* ---- fragments ---- */

static void
test_ipv6_fragment(void **state)
{
	uint8_t b[FRAME_MAX];
	uint32_t off;
	struct aif_pkt m;
	int first;

	(void)state;
	for (first = 0; first <= 1; first++) {
		memset(b, 0, sizeof(b));
		off = put_eth(b, mac_uc, AIF_ETHERTYPE_IPV6);
		off += put_ipv6(b + off, 0, 0x12345, 8 + 24, 44, 64, ip6_a,
				ip6_b);
		off += put_frag6(b + off, 17, first ? 0 : 185, first);
		/* looks like UDP to 4791, must not be read as such */
		off += put_udp(b + off, 1, 4791, 24);
		off += put_bth(b + off, 1, 2, 3);
		off += put_icrc(b + off);
		assert_int_equal(off, 86);

		assert_int_equal(parse(b, off, &m), 0);
		check_pkt(&m, &(struct aif_pkt){
			.kind = AIF_PKT_IPV6, .flags = AIF_PKT_F_FRAG,
			.l4_proto = 17, .l3_off = 14, .l3_len = 72, .ttl = 64,
			.flow_label = 0x12345,
			.src = ip6(ip6_a), .dst = ip6(ip6_b),
		});
	}
}

static void
test_ipv4_fragment(void **state)
{
	static const struct {
		uint16_t frag;
		uint8_t flags;
	} cases[] = {
		{ 0x2000, AIF_PKT_F_FRAG },           /* MF, offset 0 */
		{ 0x00b9, AIF_PKT_F_FRAG },           /* last fragment */
		{ 0x2001, AIF_PKT_F_FRAG },           /* MF and offset */
		{ 0x4000, AIF_PKT_F_L4 | AIF_PKT_F_ROCE }, /* DF only */
		{ 0x8000, AIF_PKT_F_L4 | AIF_PKT_F_ROCE }, /* reserved bit */
	};
	uint8_t b[FRAME_MAX];
	uint32_t len;
	struct aif_pkt m;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = build_roce4(b);
		put16(b + 20, cases[i].frag);
		ipv4_fix_csum(b + 14);
		assert_int_equal(parse(b, len, &m), 0);
		assert_int_equal(m.flags, cases[i].flags);
		assert_int_equal(m.l4_proto, 17);
		assert_int_equal(m.l3_len, 44);
		if (cases[i].flags & AIF_PKT_F_FRAG) {
			assert_int_equal(m.l4_off, 0);
			assert_int_equal(m.src_port, 0);
			assert_int_equal(m.dst_port, 0);
			assert_int_equal(m.psn, 0);
		} else {
			assert_int_equal(m.l4_off, 34);
			assert_int_equal(m.psn, ROCE_PSN);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_udp),
		cmocka_unit_test(test_ipv4_options_udp),
		cmocka_unit_test(test_ipv4_roce),
		cmocka_unit_test(test_ipv6_roce),
		cmocka_unit_test(test_ipv6_hbh_udp),
		cmocka_unit_test(test_ipv6_ext_chain_tcp),
		cmocka_unit_test(test_vlan_ipv4),
		cmocka_unit_test(test_tcp),
		cmocka_unit_test(test_tcp_bad_doff),
		cmocka_unit_test(test_arp_request),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_icmpv6_nd),
		cmocka_unit_test(test_pfc_mac_ctrl),
		cmocka_unit_test(test_padding_ignored),
		cmocka_unit_test(test_ipv4_bad_version),
		cmocka_unit_test(test_ipv4_ihl_too_small),
		cmocka_unit_test(test_ipv4_total_len_below_ihl),
		cmocka_unit_test(test_ipv4_bad_csum),
		cmocka_unit_test(test_arp_bad_fields),
		cmocka_unit_test(test_ipv6_bad_version),
		cmocka_unit_test(test_roce4_prefixes),
		cmocka_unit_test(test_roce4_same_as_general),
		cmocka_unit_test(test_other_prefixes),
		cmocka_unit_test(test_l4_cut_by_ip_length),
		cmocka_unit_test(test_ipv6_payload_beyond_frame),
		cmocka_unit_test(test_double_vlan),
		cmocka_unit_test(test_other_ethertype),
		cmocka_unit_test(test_ipv6_fragment),
		cmocka_unit_test(test_ipv4_fragment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
