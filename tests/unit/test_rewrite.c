/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/rewrite.c.
 *
 * The checksum helpers are checked against known vectors (RFC 1624 section
 * 4, a textbook IPv4 header).  aif_rewrite_routed is checked on many random
 * IPv4 frames from a fixed-seed generator (IHL 5..15 with option bytes,
 * TTL 2..255, optional VLAN tag, header checksums steered to the values
 * around 0x0000/0xffff where eqn. 2 of RFC 1624 goes wrong): the result
 * must equal the frame rewritten by hand with the checksum recomputed from
 * scratch by a reference sum, byte for byte, and must parse again.
 * Needs no EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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

/* ---- aif_rewrite_routed ---- */

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

	aif_rewrite_routed(b, &m, &new_src, &new_dst);

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
		aif_rewrite_routed(b, &m, &new_src, &new_dst);

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
	aif_rewrite_routed(b, &m, &new_src, &new_dst);
	assert_memory_equal(b, new_dst.b, 6);
	assert_memory_equal(b + 6, new_src.b, 6);
	assert_memory_equal(b + 12, orig + 12, sizeof(b) - 12);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
