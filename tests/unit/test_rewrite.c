/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/rewrite.c.
 *
 * The checksum helpers are checked against known vectors (RFC 1624 section
 * 4, a textbook IPv4 header).  aif_rewrite_inplace is checked on many random
 * IPv4 frames from a fixed-seed generator (IHL 5..15 with option bytes,
 * TTL 2..255, optional VLAN tag, header checksums steered to the values
 * around 0x0000/0xffff where eqn. 2 of RFC 1624 goes wrong): the result
 * must equal the frame rewritten by hand with the checksum recomputed from
 * scratch by a reference sum, byte for byte, and must parse again.
 *
 * aif_rewrite_routed (the 802.1Q tag as the egress port wants it) is checked
 * on mbufs built here around a plain buffer (the inline mbuf helpers it
 * uses need no EAL): tagged in and untagged out, untagged in and tagged out
 * with PCP from the traffic class, tagged in and out with the egress VID,
 * the priority tag (VID 0), IPv6, no headroom; and on random frames against
 * a frame built by hand.
 * Needs no EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "parse.h"
#include "rewrite.h"

#define FRAME_MAX 256
#define RANDOM_FRAMES 200000

static const struct aif_mac new_src = { { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0x01 } };
static const struct aif_mac new_dst = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } };

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: fixed seed, so a failure reproduces. */
static uint32_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One's complement add of two host-order 16-bit values. */
static uint16_t
oc_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/* Reference checksum: big-endian words, host-order result. */
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

/* ---- checksum helpers ---- */

/* RFC 1624 section 4: eqn. 2 would give 0xffff, eqn. 3 gives 0x0000. */
static void
test_csum_update16_rfc1624(void **state)
{
	uint8_t hc[2], m[2], m2[2];
	uint16_t nhc, nm, nm2, r;

	(void)state;
	/* one's complement sums do not care about byte order: both ways */
	assert_int_equal(aif_csum_update16(0xdd2f, 0x5555, 0x3285), 0x0000);
	assert_int_equal(aif_csum_update16(0x2fdd, 0x5555, 0x8532), 0x0000);

	put16(hc, 0xdd2f);
	put16(m, 0x5555);
	put16(m2, 0x3285);
	memcpy(&nhc, hc, 2);
	memcpy(&nm, m, 2);
	memcpy(&nm2, m2, 2);
	r = aif_csum_update16(nhc, nm, nm2);
	assert_int_equal(r, 0);

	/* no change, no checksum change */
	assert_int_equal(aif_csum_update16(0x1234, 0xabcd, 0xabcd), 0x1234);
	/* TTL 64 -> 63 with protocol UDP: checksum grows by 0x0100 */
	assert_int_equal(aif_csum_update16(0xb861, 0x4011, 0x3f11), 0xb961);
	assert_int_equal(aif_csum_update16(0xfeff, 0x4011, 0x3f11), 0x0000);
	assert_int_equal(aif_csum_update16(0xff00, 0x4011, 0x3f11), 0x0001);
}

/* The classic example header: checksum 0xb861. */
static void
test_ipv4_csum_vector(void **state)
{
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
			  0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
			  0xc0, 0xa8, 0x00, 0xc7 };
	uint16_t c;
	uint8_t cb[2];

	(void)state;
	c = aif_ipv4_csum(h, sizeof(h));
	memcpy(cb, &c, 2);
	assert_int_equal(cb[0], 0xb8);
	assert_int_equal(cb[1], 0x61);

	/* over a header holding its checksum, the result is 0 */
	memcpy(h + 10, cb, 2);
	assert_int_equal(aif_ipv4_csum(h, sizeof(h)), 0);

	/* an odd length pads with a zero byte */
	assert_int_equal(aif_ipv4_csum((const uint8_t *)"\x12", 1),
			 aif_ipv4_csum((const uint8_t *)"\x12\x00", 2));
}

/* ---- aif_rewrite_inplace ---- */

static const uint16_t csum_targets[] = {
	0x0000, 0x0001, 0x00fe, 0x00ff, 0x0100, 0x01ff, 0xfe00, 0xfeff,
	0xfefe, 0xff00, 0xfffe,
};

struct gen {
	uint32_t len;
	uint32_t l3_off;
	unsigned ihl_bytes;
};

/*
 * A random Ethernet (+ optional VLAN) / IPv4 / UDP (RoCEv2 half the time)
 * frame with a valid header checksum.  steer >= 0 picks the id field so
 * that the checksum is csum_targets[steer].
 */
static struct gen
gen_ipv4(uint8_t *b, uint8_t ttl, int steer)
{
	struct gen g;
	uint8_t *ip, *l4;
	uint32_t plen, i;
	uint16_t c0, id;

	memset(b, 0, FRAME_MAX);
	for (i = 0; i < 12; i++)
		b[i] = (uint8_t)rnd();
	b[0] &= 0xfe; /* unicast */
	g.l3_off = 14;
	if (rnd() & 1) {
		put16(b + 12, AIF_ETHERTYPE_VLAN);
		put16(b + 14, (uint16_t)rnd());
		g.l3_off = 18;
	}
	put16(b + g.l3_off - 2, AIF_ETHERTYPE_IPV4);

	ip = b + g.l3_off;
	g.ihl_bytes = (5 + rnd() % 11) * 4;
	for (i = 20; i < g.ihl_bytes; i++)
		ip[i] = (uint8_t)rnd();
	plen = 8 + AIF_BTH_LEN + rnd() % 64 + AIF_ICRC_LEN;
	ip[0] = (uint8_t)(0x40 | g.ihl_bytes / 4);
	ip[1] = (uint8_t)rnd();
	put16(ip + 2, (uint16_t)(g.ihl_bytes + plen));
	put16(ip + 6, (rnd() & 3) ? 0x4000 : (uint16_t)rnd()); /* DF or any */
	ip[8] = ttl;
	ip[9] = (rnd() & 3) ? 17 : 253;
	for (i = 12; i < 20; i++)
		ip[i] = (uint8_t)rnd();

	l4 = ip + g.ihl_bytes;
	for (i = 0; i < plen; i++)
		l4[i] = (uint8_t)rnd();
	if (rnd() & 1)
		put16(l4 + 2, AIF_UDP_PORT_ROCEV2);

	/* id = ~target - (sum of the rest), in one's complement */
	put16(ip + 4, 0);
	put16(ip + 10, 0);
	if (steer >= 0) {
		c0 = ref_csum(ip, g.ihl_bytes);
		id = oc_add((uint16_t)~csum_targets[steer], c0);
		put16(ip + 4, id);
	} else {
		put16(ip + 4, (uint16_t)rnd());
	}
	ipv4_fix_csum(ip);
	if (steer >= 0)
		assert_int_equal(get16(ip + 10), csum_targets[steer]);

	g.len = g.l3_off + g.ihl_bytes + plen + rnd() % 8; /* some padding */
	return g;
}

/* Rewrite b; check it against a by-hand rewrite; return the new checksum. */
static uint16_t
rewrite_and_check(uint8_t *b, const struct gen *g)
{
	uint8_t want[FRAME_MAX], hdr[60];
	struct aif_pkt m, m2;
	uint8_t *ip = b + g->l3_off;
	uint16_t c;
	int ret;

	ret = aif_parse(b, g->len, &m);
	if (ret != 0)
		fail_msg("generated frame does not parse: %d", ret);

	memcpy(want, b, FRAME_MAX);
	memcpy(want, new_dst.b, 6);
	memcpy(want + 6, new_src.b, 6);
	want[g->l3_off + 8]--;
	put16(want + g->l3_off + 10, 0);
	put16(want + g->l3_off + 10, ref_csum(want + g->l3_off, g->ihl_bytes));

	aif_rewrite_inplace(b, &m, &new_src, &new_dst);

	assert_memory_equal(b, want, FRAME_MAX);

	/* the same, said as the brief says it */
	memcpy(hdr, ip, g->ihl_bytes);
	memset(hdr + 10, 0, 2);
	c = aif_ipv4_csum(hdr, g->ihl_bytes);
	assert_memory_equal(&c, ip + 10, 2);
	assert_memory_equal(b, new_dst.b, 6);
	assert_memory_equal(b + 6, new_src.b, 6);

	ret = aif_parse(b, g->len, &m2);
	if (ret != 0)
		fail_msg("rewritten frame does not parse: %d", ret);
	assert_int_equal(m2.ttl, m.ttl - 1);
	assert_int_equal(m2.flags, m.flags);
	assert_int_equal(m2.dscp, m.dscp);
	assert_int_equal(m2.ecn, m.ecn);
	assert_int_equal(m2.src_port, m.src_port);
	assert_int_equal(m2.dst_port, m.dst_port);
	assert_int_equal(m2.psn, m.psn);
	assert_int_equal(m2.dest_qp, m.dest_qp);
	return get16(ip + 10);
}

static void
test_rewrite_ipv4_random(void **state)
{
	uint8_t b[FRAME_MAX], orig[FRAME_MAX];
	unsigned i, ntargets = sizeof(csum_targets) / sizeof(csum_targets[0]);
	unsigned to_zero = 0, from_edge = 0;
	struct gen g;
	uint16_t before, after;
	uint8_t ttl;
	int steer;

	(void)state;
	for (i = 0; i < RANDOM_FRAMES; i++) {
		switch (i % 4) {
		case 0:
			ttl = 255;
			break;
		case 1:
			ttl = 2;
			break;
		default:
			ttl = (uint8_t)(2 + rnd() % 254);
			break;
		}
		steer = (i % 3) ? (int)(rnd() % ntargets) : -1;
		g = gen_ipv4(b, ttl, steer);
		before = get16(b + g.l3_off + 10);
		memcpy(orig, b, FRAME_MAX);

		after = rewrite_and_check(b, &g);

		/* L4 header, BTH, payload, ICRC and padding untouched */
		assert_memory_equal(b + g.l3_off + g.ihl_bytes,
				    orig + g.l3_off + g.ihl_bytes,
				    FRAME_MAX - g.l3_off - g.ihl_bytes);
		/* VLAN tag and EtherType untouched */
		assert_memory_equal(b + 12, orig + 12, g.l3_off - 12);
		to_zero += after == 0x0000;
		from_edge += before >= 0xfe00 || before <= 0x00ff;
	}
	/* the edge cases were really visited */
	assert_true(to_zero >= 100);
	assert_true(from_edge >= 1000);
}

static void
test_rewrite_ipv4_fixed(void **state)
{
	uint8_t b[FRAME_MAX];
	struct gen g;
	struct aif_pkt m;

	(void)state;
	/* TTL 2 -> 1: the caller's limit; checksum 0xfeff -> 0x0000 */
	g = gen_ipv4(b, 2, 7);
	assert_int_equal(get16(b + g.l3_off + 10), 0xfeff);
	assert_int_equal(rewrite_and_check(b, &g), 0x0000);
	assert_int_equal(b[g.l3_off + 8], 1);

	/* TTL 255 -> 254 */
	g = gen_ipv4(b, 255, 0);
	rewrite_and_check(b, &g);
	assert_int_equal(b[g.l3_off + 8], 254);
	assert_int_equal(aif_parse(b, g.len, &m), 0);
	assert_int_equal(m.ttl, 254);
}

static void
test_rewrite_ipv6(void **state)
{
	static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	uint8_t b[FRAME_MAX], orig[FRAME_MAX];
	struct aif_pkt m;
	uint32_t i, len = 18 + 40 + 8 + 12 + 16 + 4;
	int vlan;

	(void)state;
	for (vlan = 0; vlan <= 1; vlan++) {
		uint32_t l3 = vlan ? 18 : 14;
		uint8_t *ip = b + l3;

		memset(b, 0, sizeof(b));
		memset(b, 0xee, 12);
		if (vlan) {
			put16(b + 12, AIF_ETHERTYPE_VLAN);
			put16(b + 14, 0x6064);
		}
		put16(b + l3 - 2, AIF_ETHERTYPE_IPV6);
		put16(ip, 0x66a0); /* version 6, TC 0x6a, flow label */
		put16(ip + 2, 0xbeef);
		put16(ip + 4, 8 + 12 + 16 + 4);
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, ip6_a, 16);
		memcpy(ip + 24, ip6_b, 16);
		put16(ip + 40, 49152);
		put16(ip + 42, AIF_UDP_PORT_ROCEV2);
		put16(ip + 44, 8 + 12 + 16 + 4);
		for (i = 48; i < 40 + 8 + 12 + 16 + 4; i++)
			ip[i] = (uint8_t)(i * 7);
		memcpy(orig, b, sizeof(b));

		assert_int_equal(aif_parse(b, len - 4 + 4 * vlan, &m), 0);
		assert_int_equal(m.flags & AIF_PKT_F_ROCE, AIF_PKT_F_ROCE);
		aif_rewrite_inplace(b, &m, &new_src, &new_dst);

		assert_memory_equal(b, new_dst.b, 6);
		assert_memory_equal(b + 6, new_src.b, 6);
		assert_int_equal(ip[7], 63);
		assert_memory_equal(b + 12, orig + 12, l3 + 7 - 12);
		assert_memory_equal(b + l3 + 8, orig + l3 + 8,
				    sizeof(b) - l3 - 8);

		assert_int_equal(aif_parse(b, len - 4 + 4 * vlan, &m), 0);
		assert_int_equal(m.ttl, 63);
		assert_int_equal(m.flags & AIF_PKT_F_ROCE, AIF_PKT_F_ROCE);
	}
}

/* Non-IP kinds get their MACs and nothing else. */
static void
test_rewrite_other_kind(void **state)
{
	uint8_t b[FRAME_MAX], orig[FRAME_MAX];
	struct aif_pkt m;
	uint32_t i;

	(void)state;
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)i;
	memcpy(orig, b, sizeof(b));
	memset(&m, 0, sizeof(m));
	m.kind = AIF_PKT_ARP;
	m.l3_off = 14;
	aif_rewrite_inplace(b, &m, &new_src, &new_dst);
	assert_memory_equal(b, new_dst.b, 6);
	assert_memory_equal(b + 6, new_src.b, 6);
	assert_memory_equal(b + 12, orig + 12, sizeof(b) - 12);
}

/* ---- aif_rewrite_routed: the egress port's 802.1Q tag ---- */

#define HEADROOM 128

/* An mbuf around a plain buffer: enough for the inline mbuf helpers. */
struct test_mbuf {
	struct rte_mbuf mb;
	uint8_t buf[HEADROOM + FRAME_MAX];
};

static struct rte_mbuf *
mbuf_of(struct test_mbuf *t, const uint8_t *f, uint16_t len, uint16_t headroom)
{
	memset(t, 0, sizeof(*t));
	t->mb.buf_addr = t->buf;
	t->mb.buf_len = sizeof(t->buf);
	t->mb.data_off = headroom;
	t->mb.nb_segs = 1;
	rte_mbuf_refcnt_set(&t->mb, 1);
	t->mb.data_len = len;
	t->mb.pkt_len = len;
	memcpy(t->buf + headroom, f, len);
	return &t->mb;
}

static struct aif_port_l3
port_l3(bool tagged, uint16_t vid)
{
	struct aif_port_l3 l3;

	memset(&l3, 0, sizeof(l3));
	l3.mac = new_src;
	l3.mtu = 9000;
	l3.tagged = tagged;
	l3.vlan_id = vid;
	return l3;
}

/*
 * Ethernet [+ tag tci] / IPv4 (IHL 5, TTL 64, DSCP 26) / UDP 4791 / BTH /
 * 16 bytes of payload / ICRC; returns the length.
 */
static uint32_t
build_roce4(uint8_t *b, int tci)
{
	uint32_t l3 = tci >= 0 ? 18 : 14, i;
	uint8_t *ip = b + l3, *udp = ip + 20;

	memset(b, 0, FRAME_MAX);
	memset(b, 0xee, 6);
	memset(b + 6, 0xdd, 6);
	if (tci >= 0) {
		put16(b + 12, AIF_ETHERTYPE_VLAN);
		put16(b + 14, (uint16_t)tci);
	}
	put16(b + l3 - 2, AIF_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = 26 << 2 | 2;
	put16(ip + 2, 20 + 8 + 12 + 16 + 4);
	put16(ip + 4, 0x1234);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	put16(ip + 12, 0x0a00);
	put16(ip + 14, 0x0002);
	put16(ip + 16, 0x0a01);
	put16(ip + 18, 0x0203);
	ipv4_fix_csum(ip);
	put16(udp, 0xc001);
	put16(udp + 2, AIF_UDP_PORT_ROCEV2);
	put16(udp + 4, 8 + 12 + 16 + 4);
	for (i = 8; i < 8 + 12 + 16 + 4; i++)
		udp[i] = (uint8_t)(i * 11);
	return l3 + 20 + 8 + 12 + 16 + 4;
}

/*
 * What the rewrite must produce: in's MACs replaced, its tag (if any)
 * replaced by out_tci (< 0: none), TTL - 1 and the checksum recomputed by
 * the reference sum, the rest as it was.  Returns the length.
 */
static uint32_t
expected_frame(uint8_t *want, const uint8_t *in, uint32_t in_len, int out_tci,
	       bool v6)
{
	uint32_t in_l3 = get16(in + 12) == AIF_ETHERTYPE_VLAN ? 18 : 14;
	uint32_t out_l3 = out_tci >= 0 ? 18 : 14;
	uint32_t len = in_len - in_l3 + out_l3;

	memset(want, 0, FRAME_MAX);
	memcpy(want, new_dst.b, 6);
	memcpy(want + 6, new_src.b, 6);
	if (out_tci >= 0) {
		put16(want + 12, AIF_ETHERTYPE_VLAN);
		put16(want + 14, (uint16_t)out_tci);
	}
	memcpy(want + out_l3 - 2, in + in_l3 - 2, in_len - in_l3 + 2);
	if (v6) {
		want[out_l3 + 7]--;
	} else {
		want[out_l3 + 8]--;
		ipv4_fix_csum(want + out_l3);
	}
	return len;
}

/* Rewrite frame f for port l3 with traffic class tc; compare with want. */
static void
rewrite_mbuf_and_check(const uint8_t *f, uint32_t len, const struct aif_port_l3 *l3,
		       uint8_t tc, int out_tci, bool v6)
{
	uint8_t want[FRAME_MAX];
	uint32_t want_len = expected_frame(want, f, len, out_tci, v6);
	struct test_mbuf t;
	struct rte_mbuf *mb = mbuf_of(&t, f, (uint16_t)len, HEADROOM);
	struct aif_pkt m, m2;
	uint32_t m2_l3_in;

	assert_int_equal(aif_parse(f, len, &m), 0);
	m2_l3_in = m.l3_off;
	m.tc = tc;
	assert_int_equal(aif_rewrite_routed(mb, &m, l3, &new_dst), 0);

	const uint8_t *out = rte_pktmbuf_mtod(mb, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), want_len);
	assert_int_equal(rte_pktmbuf_data_len(mb), want_len);
	/* the start of the frame moved, not the L3 header */
	assert_ptr_equal(out + (out_tci >= 0 ? 18 : 14), t.buf + HEADROOM + m2_l3_in);
	assert_memory_equal(out, want, want_len);

	/* the metadata describes the frame as sent, for egress QoS */
	assert_int_equal(aif_parse(out, want_len, &m2), 0);
	assert_int_equal(m.l3_off, m2.l3_off);
	assert_int_equal(m.l4_off, m2.l4_off);
	assert_int_equal(m.flags, m2.flags);
	assert_int_equal(m.vlan_id, m2.vlan_id);
	assert_int_equal(m.pcp, m2.pcp);
	assert_int_equal(m2.ttl, 63);
	if (!v6)
		assert_int_equal(ref_csum(out + m2.l3_off, 20), 0);
}

/* Tagged VID 100 PCP 3 in, out of a port without "vlan": untagged. */
static void
test_tagged_in_untagged_out(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_port_l3 l3 = port_l3(false, 0);
	uint32_t len = build_roce4(b, 3 << 13 | 100);

	(void)state;
	rewrite_mbuf_and_check(b, len, &l3, 3, -1, false);
}

/* Untagged in, out of a port with "vlan": 200: VID 200, PCP = TC. */
static void
test_untagged_in_tagged_out(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_port_l3 l3 = port_l3(true, 200);
	uint32_t len = build_roce4(b, -1);

	(void)state;
	for (uint8_t tc = 0; tc < 8; tc++)
		rewrite_mbuf_and_check(b, len, &l3, tc, tc << 13 | 200, false);
}

/* Tagged in (VID 100 PCP 3, DEI set), tagged out: the egress VID, PCP = TC,
 * DEI clear. */
static void
test_tagged_in_tagged_out(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_port_l3 l3 = port_l3(true, 4094);
	uint32_t len = build_roce4(b, 3 << 13 | 1 << 12 | 100);

	(void)state;
	rewrite_mbuf_and_check(b, len, &l3, 6, 6 << 13 | 4094, false);
	/* the same VID in and out: only the PCP follows the class */
	l3 = port_l3(true, 100);
	rewrite_mbuf_and_check(b, len, &l3, 0, 100, false);
}

/* "vlan": 0: a priority tag, VID 0 carrying the PCP. */
static void
test_priority_tag(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_port_l3 l3 = port_l3(true, 0);
	uint32_t len = build_roce4(b, -1);

	(void)state;
	rewrite_mbuf_and_check(b, len, &l3, 3, 3 << 13, false);
	len = build_roce4(b, 5 << 13 | 7);
	rewrite_mbuf_and_check(b, len, &l3, 3, 3 << 13, false);
}

/* Untagged in and out: the frame stays where it is. */
static void
test_untagged_in_untagged_out(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_port_l3 l3 = port_l3(false, 0);
	uint32_t len = build_roce4(b, -1);

	(void)state;
	rewrite_mbuf_and_check(b, len, &l3, 3, -1, false);
}

/* IPv6 RoCE: each of the four tag cases. */
static void
test_tag_ipv6(void **state)
{
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t b6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
	uint8_t b[FRAME_MAX];
	uint32_t i;

	(void)state;
	for (int tagged_in = 0; tagged_in <= 1; tagged_in++) {
		uint32_t l3off = tagged_in ? 18 : 14, len;
		uint8_t *ip = b + l3off;

		memset(b, 0, sizeof(b));
		memset(b, 0xee, 12);
		if (tagged_in) {
			put16(b + 12, AIF_ETHERTYPE_VLAN);
			put16(b + 14, 3 << 13 | 100);
		}
		put16(b + l3off - 2, AIF_ETHERTYPE_IPV6);
		put16(ip, 0x66a0);
		put16(ip + 2, 0xbeef);
		put16(ip + 4, 8 + 12 + 16 + 4);
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, a6, 16);
		memcpy(ip + 24, b6, 16);
		put16(ip + 40, 49152);
		put16(ip + 42, AIF_UDP_PORT_ROCEV2);
		put16(ip + 44, 8 + 12 + 16 + 4);
		for (i = 48; i < 40 + 8 + 12 + 16 + 4; i++)
			ip[i] = (uint8_t)(i * 7);
		len = l3off + 40 + 8 + 12 + 16 + 4;

		struct aif_port_l3 plain = port_l3(false, 0), tagged = port_l3(true, 300);
		rewrite_mbuf_and_check(b, len, &plain, 3, -1, true);
		rewrite_mbuf_and_check(b, len, &tagged, 3, 3 << 13 | 300, true);
	}
}

/* No headroom for the tag: -1 and nothing changed. */
static void
test_tag_no_headroom(void **state)
{
	uint8_t b[FRAME_MAX];
	struct aif_port_l3 l3 = port_l3(true, 200);
	uint32_t len = build_roce4(b, -1);
	struct test_mbuf t;
	struct rte_mbuf *mb = mbuf_of(&t, b, (uint16_t)len, 2);
	struct aif_pkt m, m0;

	(void)state;
	assert_int_equal(aif_parse(b, len, &m), 0);
	m0 = m;
	assert_int_equal(aif_rewrite_routed(mb, &m, &l3, &new_dst), -1);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_memory_equal(rte_pktmbuf_mtod(mb, const uint8_t *), b, len);
	assert_memory_equal(&m, &m0, sizeof(m));
}

/* Random IPv4 frames (tagged or not, options, any checksum) out of random
 * ports (tagged or not): byte for byte as built by hand. */
static void
test_tag_random(void **state)
{
	uint8_t b[FRAME_MAX];
	unsigned i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		struct gen g = gen_ipv4(b, (uint8_t)(2 + rnd() % 254), (int)(rnd() % 11));
		bool tagged = rnd() & 1;
		uint16_t vid = (uint16_t)(rnd() % 4095);
		uint8_t tc = (uint8_t)(rnd() & 7);
		struct aif_port_l3 l3 = port_l3(tagged, vid);
		uint8_t want[FRAME_MAX];
		uint32_t want_len = expected_frame(want, b, g.len, tagged ? tc << 13 | vid : -1,
						   false);
		struct test_mbuf t;
		struct rte_mbuf *mb = mbuf_of(&t, b, (uint16_t)g.len, HEADROOM);
		struct aif_pkt m;

		assert_int_equal(aif_parse(b, g.len, &m), 0);
		m.tc = tc;
		assert_int_equal(aif_rewrite_routed(mb, &m, &l3, &new_dst), 0);
		assert_int_equal(rte_pktmbuf_pkt_len(mb), want_len);
		assert_memory_equal(rte_pktmbuf_mtod(mb, const uint8_t *), want, want_len);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_update16_rfc1624),
		cmocka_unit_test(test_ipv4_csum_vector),
		cmocka_unit_test(test_rewrite_ipv4_random),
		cmocka_unit_test(test_rewrite_ipv4_fixed),
		cmocka_unit_test(test_rewrite_ipv6),
		cmocka_unit_test(test_rewrite_other_kind),
		cmocka_unit_test(test_tagged_in_untagged_out),
		cmocka_unit_test(test_untagged_in_tagged_out),
		cmocka_unit_test(test_tagged_in_tagged_out),
		cmocka_unit_test(test_priority_tag),
		cmocka_unit_test(test_untagged_in_untagged_out),
		cmocka_unit_test(test_tag_ipv6),
		cmocka_unit_test(test_tag_no_headroom),
		cmocka_unit_test(test_tag_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
