/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/flow_hash.c (and flow_hash.h) and pipelines/lb.h,
 * lb_ecmp.c: the flow hash and the ECMP member pick.  No EAL.
 *
 * Packets are struct aif_pkt filled by hand as aif_parse() would fill them
 * (addresses and ports in network order, dest_qp in host order).  Flows are
 * drawn from a seeded xorshift (dataplane/rng.h), so every run sees the same
 * flows and every figure below is exact.
 *
 *   - ECMP spread: 1024 RoCEv2 flows (one src/dst pair, dport 4791, random
 *     sport in 0xC000..0xFFFF) over groups of 2..16 members, CRC32C and
 *     Toeplitz: the busiest member carries no more than random placement
 *     would, within four standard deviations (1 + 4 sqrt((k - 1) / 1024)
 *     times the mean: 1.13 for 2 members, 1.48 for 16).
 *   - Determinism, and a different switch seed remapping most flows.
 *   - Which fields reach the hash (hash_fields, AIF_PKT_F_L4/ROCE, IPv6).
 *   - CRC32C path against an independent bitwise CRC-32C + fmix32 model.
 *   - Toeplitz against the Microsoft RSS verification suite (IPv4, IPv6).
 *   - aif_lb_ecmp_pick/select stay in [0, n).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>

#include "flow_hash.h"
#include "lb.h"
#include "lb_buckets.h"
#include "pkt.h"
#include "rng.h"

#define N_FLOWS 1024
#define RNG_SEED 0x5eed0f10ab1e5eedull
#define SW_SEED 0xa99b55ffu /* FNV-1a of "leaf0", the default switch seed */
#define SW_SEED_OTHER 0x2c1b3c6du

/* ---- packets ---- */

static void
ip4(struct aif_ip *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
	memset(a, 0, sizeof(*a));
	a->family = AIF_AF_INET4;
	a->b[0] = b0;
	a->b[1] = b1;
	a->b[2] = b2;
	a->b[3] = b3;
}

static void
ip6(struct aif_ip *a, const uint8_t b[16])
{
	memset(a, 0, sizeof(*a));
	a->family = AIF_AF_INET6;
	memcpy(a->b, b, 16);
}

/* An IPv4 RoCEv2 packet as the parser leaves it; ports in host order here. */
static struct aif_pkt
roce4(const struct aif_ip *src, const struct aif_ip *dst, uint16_t sport,
      uint16_t dport, uint32_t qp)
{
	struct aif_pkt m;

	memset(&m, 0, sizeof(m));
	m.kind = AIF_PKT_IPV4;
	m.flags = AIF_PKT_F_L4 | AIF_PKT_F_ROCE;
	m.l4_proto = 17;
	m.l3_off = 14;
	m.l4_off = 34;
	m.ttl = 64;
	m.src = *src;
	m.dst = *dst;
	m.src_port = rte_cpu_to_be_16(sport);
	m.dst_port = rte_cpu_to_be_16(dport);
	m.dest_qp = qp & 0xFFFFFF;
	return m;
}

static struct aif_pkt
roce6(const uint8_t src[16], const uint8_t dst[16], uint16_t sport, uint16_t dport,
      uint32_t qp, uint32_t flow_label)
{
	struct aif_pkt m;

	memset(&m, 0, sizeof(m));
	m.kind = AIF_PKT_IPV6;
	m.flags = AIF_PKT_F_L4 | AIF_PKT_F_ROCE;
	m.l4_proto = 17;
	m.l3_off = 14;
	m.l4_off = 54;
	m.ttl = 64;
	ip6(&m.src, src);
	ip6(&m.dst, dst);
	m.src_port = rte_cpu_to_be_16(sport);
	m.dst_port = rte_cpu_to_be_16(dport);
	m.dest_qp = qp & 0xFFFFFF;
	m.flow_label = flow_label & 0xFFFFF;
	return m;
}

static const uint8_t v6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a };
static const uint8_t v6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b };

/* flows[i]: the fixed pair 10.0.0.2 -> 10.1.2.3, dport 4791, random sport. */
static void
make_flows(struct aif_pkt *flows, unsigned n, uint64_t rng_seed)
{
	struct aif_ip s, d;
	struct aif_rng r;

	ip4(&s, 10, 0, 0, 2);
	ip4(&d, 10, 1, 2, 3);
	aif_rng_seed(&r, rng_seed);
	for (unsigned i = 0; i < n; i++) {
		uint16_t sport = (uint16_t)(0xC000 + aif_rng_below(&r, 0x4000));
		uint32_t qp = aif_rng_below(&r, 1u << 24);
		flows[i] = roce4(&s, &d, sport, AIF_UDP_PORT_ROCEV2, qp);
	}
}

/* ---- spread ---- */

/* max member load / mean member load of flows over a group of n. */
static double
spread(const struct aif_pkt *flows, unsigned n_flows, uint32_t n, uint8_t alg,
       uint32_t fields, uint32_t seed, unsigned *max_out)
{
	/* through the real path: a resilient bucket table, 64 buckets a member */
	struct aif_group g = { .first = 0, .n = (uint16_t)n, .scheme = AIF_LB_ECMP,
			       .n_buckets = n * 64 };
	static uint8_t buckets[64 * 64];
	unsigned load[64] = { 0 };
	unsigned max = 0;

	assert_true(n <= 64);
	assert_int_equal(aif_lb_buckets_build(buckets, g.n_buckets, (uint16_t)n, NULL, NULL,
					      NULL, 0), 0);
	for (unsigned i = 0; i < n_flows; i++) {
		struct aif_pkt m = flows[i];
		m.hash = aif_flow_hash(&m, fields, alg, seed);
		uint32_t k = aif_lb_schemes[AIF_LB_ECMP].select(&g, NULL, buckets, &m, NULL);
		assert_true(k < n);
		load[k]++;
	}
	for (uint32_t k = 0; k < n; k++)
		if (load[k] > max)
			max = load[k];
	*max_out = max;
	return (double)max / ((double)n_flows / n);
}

static void
check_spread(uint8_t alg, const char *alg_name, const uint32_t *sizes, unsigned n_sizes)
{
	static struct aif_pkt flows[N_FLOWS];
	int bad = 0;

	make_flows(flows, N_FLOWS, RNG_SEED);
	for (unsigned i = 0; i < n_sizes; i++) {
		unsigned max;
		double ratio = spread(flows, N_FLOWS, sizes[i], alg, AIF_HF_DEFAULT,
				      SW_SEED, &max);
		printf("# %s spread: %u flows over %2u members: max %u, mean %.1f, "
		       "max/mean %.3f\n", alg_name, N_FLOWS, sizes[i], max,
		       (double)N_FLOWS / sizes[i], ratio);
		/* random placement: the fullest member within four standard
		 * deviations of the mean, sd / mean = sqrt((k - 1) / flows) */
		if (ratio > 1 + 4 * sqrt((sizes[i] - 1.0) / N_FLOWS))
			bad++;
	}
	assert_int_equal(bad, 0);
}

static void
test_ecmp_spread_crc(void **state)
{
	static const uint32_t sizes[] = { 2, 3, 4, 8, 16 };

	(void)state;
	check_spread(AIF_HASH_CRC32C, "crc32c", sizes, 5);
}

static void
test_ecmp_spread_toeplitz(void **state)
{
	static const uint32_t sizes[] = { 4, 8 };

	(void)state;
	check_spread(AIF_HASH_TOEPLITZ, "toeplitz", sizes, 2);
}

/* ---- determinism and seeds ---- */

static void
test_determinism(void **state)
{
	static struct aif_pkt a[N_FLOWS], b[N_FLOWS];
	unsigned moved = 0, hash_same = 0;
	const uint8_t algs[] = { AIF_HASH_CRC32C, AIF_HASH_TOEPLITZ };

	(void)state;
	make_flows(a, N_FLOWS, RNG_SEED);
	make_flows(b, N_FLOWS, RNG_SEED);
	assert_memory_equal(a, b, sizeof(a));

	for (unsigned j = 0; j < 2; j++) {
		moved = hash_same = 0;
		for (unsigned i = 0; i < N_FLOWS; i++) {
			uint32_t h1 = aif_flow_hash(&a[i], AIF_HF_DEFAULT, algs[j], SW_SEED);
			uint32_t h2 = aif_flow_hash(&b[i], AIF_HF_DEFAULT, algs[j], SW_SEED);
			uint32_t h3 = aif_flow_hash(&a[i], AIF_HF_DEFAULT, algs[j],
						    SW_SEED_OTHER);
			assert_int_equal(h1, h2);
			assert_int_equal(aif_lb_ecmp_pick(h1, 8), aif_lb_ecmp_pick(h2, 8));
			hash_same += h1 == h3;
			moved += aif_lb_ecmp_pick(h1, 8) != aif_lb_ecmp_pick(h3, 8);
		}
		printf("# %s: seed %#x -> %#x moves %u of %u flows over 8 members\n",
		       j == 0 ? "crc32c" : "toeplitz", SW_SEED, SW_SEED_OTHER, moved,
		       N_FLOWS);
		/* Independent picks would agree for 1/8 of the flows. */
		assert_int_equal(hash_same, 0);
		assert_true(moved > N_FLOWS / 2);
	}
}

/* The seed is not a mere XOR on the output: the tiers' choices decorrelate. */
static void
test_seed_not_linear(void **state)
{
	static struct aif_pkt f[N_FLOWS];
	unsigned same_xor = 0;

	(void)state;
	make_flows(f, N_FLOWS, RNG_SEED);
	uint32_t d0 = aif_flow_hash(&f[0], AIF_HF_DEFAULT, AIF_HASH_CRC32C, SW_SEED) ^
		      aif_flow_hash(&f[0], AIF_HF_DEFAULT, AIF_HASH_CRC32C, SW_SEED_OTHER);
	for (unsigned i = 1; i < N_FLOWS; i++) {
		uint32_t d = aif_flow_hash(&f[i], AIF_HF_DEFAULT, AIF_HASH_CRC32C, SW_SEED) ^
			     aif_flow_hash(&f[i], AIF_HF_DEFAULT, AIF_HASH_CRC32C,
					   SW_SEED_OTHER);
		same_xor += d == d0;
	}
	assert_int_equal(same_xor, 0);
}

/* ---- field selection ---- */

static const uint8_t all_algs[] = { AIF_HASH_CRC32C, AIF_HASH_TOEPLITZ };

static uint32_t
H(const struct aif_pkt *m, uint32_t fields, uint8_t alg)
{
	return aif_flow_hash(m, fields, alg, SW_SEED);
}

static void
test_fields_ports(void **state)
{
	struct aif_ip s, d;
	const uint32_t no_sport = AIF_HF_DEFAULT & ~AIF_HF_SRC_PORT;
	const uint32_t no_dport = AIF_HF_DEFAULT & ~AIF_HF_DST_PORT;

	(void)state;
	ip4(&s, 10, 0, 0, 2);
	ip4(&d, 10, 1, 2, 3);
	for (unsigned j = 0; j < 2; j++) {
		uint8_t alg = all_algs[j];
		for (uint32_t p = 0xC000; p < 0xC000 + 256; p++) {
			struct aif_pkt a = roce4(&s, &d, (uint16_t)p, 4791, 7);
			struct aif_pkt b = roce4(&s, &d, (uint16_t)(p ^ 0x2A5), 4791, 7);
			struct aif_pkt c = roce4(&s, &d, (uint16_t)p, (uint16_t)(p + 1), 7);

			assert_int_equal(H(&a, no_sport, alg), H(&b, no_sport, alg));
			assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&b, AIF_HF_DEFAULT, alg));
			assert_int_equal(H(&a, no_dport, alg), H(&c, no_dport, alg));
			assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&c, AIF_HF_DEFAULT, alg));

			/* without AIF_PKT_F_L4 the ports are not looked at */
			a.flags = b.flags = 0;
			assert_int_equal(H(&a, AIF_HF_DEFAULT, alg), H(&b, AIF_HF_DEFAULT, alg));
		}
	}
}

static void
test_fields_ip_proto(void **state)
{
	struct aif_ip s, s2, d, d2;

	(void)state;
	ip4(&s, 10, 0, 0, 2);
	ip4(&s2, 10, 0, 0, 3);
	ip4(&d, 10, 1, 2, 3);
	ip4(&d2, 10, 1, 2, 4);
	for (unsigned j = 0; j < 2; j++) {
		uint8_t alg = all_algs[j];
		struct aif_pkt a = roce4(&s, &d, 0xC123, 4791, 7);
		struct aif_pkt bs = roce4(&s2, &d, 0xC123, 4791, 7);
		struct aif_pkt bd = roce4(&s, &d2, 0xC123, 4791, 7);
		struct aif_pkt tcp = a;

		tcp.l4_proto = 6;
		assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&bs, AIF_HF_DEFAULT, alg));
		assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&bd, AIF_HF_DEFAULT, alg));
		assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&tcp, AIF_HF_DEFAULT, alg));
		assert_int_equal(H(&a, AIF_HF_DEFAULT & ~AIF_HF_SRC_IP, alg),
				 H(&bs, AIF_HF_DEFAULT & ~AIF_HF_SRC_IP, alg));
		assert_int_equal(H(&a, AIF_HF_DEFAULT & ~AIF_HF_DST_IP, alg),
				 H(&bd, AIF_HF_DEFAULT & ~AIF_HF_DST_IP, alg));
		assert_int_equal(H(&a, AIF_HF_DEFAULT & ~AIF_HF_PROTO, alg),
				 H(&tcp, AIF_HF_DEFAULT & ~AIF_HF_PROTO, alg));
		/* IPv4 has no flow label: selecting it changes nothing */
		struct aif_pkt fl = a;
		fl.flow_label = 0x12345;
		assert_int_equal(H(&a, AIF_HF_DEFAULT | AIF_HF_FLOW_LABEL, alg),
				 H(&fl, AIF_HF_DEFAULT | AIF_HF_FLOW_LABEL, alg));
	}
}

static void
test_fields_dest_qp(void **state)
{
	struct aif_ip s, d;
	const uint32_t with_qp = AIF_HF_DEFAULT | AIF_HF_DEST_QP;

	(void)state;
	ip4(&s, 10, 0, 0, 2);
	ip4(&d, 10, 1, 2, 3);
	for (unsigned j = 0; j < 2; j++) {
		uint8_t alg = all_algs[j];
		for (uint32_t qp = 1; qp < 1u << 24; qp = qp * 3 + 1) {
			struct aif_pkt a = roce4(&s, &d, 0xC123, 4791, qp);
			struct aif_pkt b = roce4(&s, &d, 0xC123, 4791, qp + 0x111);

			assert_int_not_equal(H(&a, with_qp, alg), H(&b, with_qp, alg));
			assert_int_equal(H(&a, AIF_HF_DEFAULT, alg), H(&b, AIF_HF_DEFAULT, alg));
			/* not RoCE: dest_qp is not a header field, ignored */
			a.flags = b.flags = AIF_PKT_F_L4;
			assert_int_equal(H(&a, with_qp, alg), H(&b, with_qp, alg));
			assert_int_equal(H(&a, with_qp, alg), H(&a, AIF_HF_DEFAULT, alg));
		}
	}
}

static void
test_fields_ipv6(void **state)
{
	const uint32_t with_fl = AIF_HF_DEFAULT | AIF_HF_FLOW_LABEL;

	(void)state;
	for (unsigned j = 0; j < 2; j++) {
		uint8_t alg = all_algs[j];
		struct aif_pkt a = roce6(v6_a, v6_b, 0xC123, 4791, 7, 0x12345);

		/* every byte of both addresses reaches the hash */
		for (unsigned byte = 0; byte < 16; byte++) {
			struct aif_pkt bs = a, bd = a;
			bs.src.b[byte] ^= 0x10;
			bd.dst.b[byte] ^= 0x01;
			assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&bs, AIF_HF_DEFAULT, alg));
			assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&bd, AIF_HF_DEFAULT, alg));
			assert_int_equal(H(&a, AIF_HF_DEFAULT & ~AIF_HF_SRC_IP, alg),
					 H(&bs, AIF_HF_DEFAULT & ~AIF_HF_SRC_IP, alg));
			assert_int_equal(H(&a, AIF_HF_DEFAULT & ~AIF_HF_DST_IP, alg),
					 H(&bd, AIF_HF_DEFAULT & ~AIF_HF_DST_IP, alg));
		}
		/* the flow label only when selected */
		for (uint32_t fl = 1; fl < 1u << 20; fl = fl * 5 + 3) {
			struct aif_pkt b = a;
			b.flow_label = a.flow_label ^ fl;
			assert_int_not_equal(H(&a, with_fl, alg), H(&b, with_fl, alg));
			assert_int_equal(H(&a, AIF_HF_DEFAULT, alg), H(&b, AIF_HF_DEFAULT, alg));
		}
		/* every field at once (the longest Toeplitz tuple, 12 words) */
		const uint32_t all = AIF_HF_DEFAULT | AIF_HF_FLOW_LABEL | AIF_HF_DEST_QP;
		struct aif_pkt q2 = a;
		q2.dest_qp ^= 0x800001;
		assert_int_not_equal(H(&a, all, alg), H(&q2, all, alg));
		assert_int_equal(H(&a, all & ~AIF_HF_DEST_QP, alg),
				 H(&q2, all & ~AIF_HF_DEST_QP, alg));
		/* an IPv4 packet with the same first four bytes is another flow */
		struct aif_pkt v4 = a;
		v4.src.family = v4.dst.family = AIF_AF_INET4;
		assert_int_not_equal(H(&a, AIF_HF_DEFAULT, alg), H(&v4, AIF_HF_DEFAULT, alg));
	}
}

/* ---- CRC32C path against an independent model ---- */

static uint32_t
ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
	}
	return crc;
}

/* A host-order word as rte_hash_crc_4byte consumes it (little-endian bytes). */
static uint32_t
ref_crc32c_u32(uint32_t crc, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 24) };
	return ref_crc32c(crc, b, 4);
}

static uint32_t
ref_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* The documented CRC32C flow hash, written out from flow_hash.h's contract. */
static uint32_t
ref_flow_hash(const struct aif_pkt *m, uint32_t fields, uint32_t seed)
{
	unsigned alen = m->src.family == AIF_AF_INET4 ? 4 : 16;
	uint32_t h = seed;

	if (fields & AIF_HF_SRC_IP)
		h = ref_crc32c(h, m->src.b, alen);
	if (fields & AIF_HF_DST_IP)
		h = ref_crc32c(h, m->dst.b, alen);
	if (m->src.family == AIF_AF_INET6 && (fields & AIF_HF_FLOW_LABEL))
		h = ref_crc32c_u32(h, m->flow_label);
	if (fields & AIF_HF_PROTO)
		h = ref_crc32c(h, &m->l4_proto, 1);
	if (m->flags & AIF_PKT_F_L4) {
		uint32_t ports = 0;
		if (fields & AIF_HF_SRC_PORT)
			ports = m->src_port;
		if (fields & AIF_HF_DST_PORT)
			ports |= (uint32_t)m->dst_port << 16;
		h = ref_crc32c_u32(h, ports);
	}
	if ((fields & AIF_HF_DEST_QP) && (m->flags & AIF_PKT_F_ROCE))
		h = ref_crc32c_u32(h, m->dest_qp);
	return ref_fmix32(h ^ seed);
}

static void
test_crc_reference(void **state)
{
	static struct aif_pkt f[N_FLOWS];
	const uint32_t masks[] = {
		AIF_HF_DEFAULT, AIF_HF_DEFAULT | AIF_HF_DEST_QP,
		AIF_HF_SRC_IP | AIF_HF_DST_IP, AIF_HF_SRC_PORT, AIF_HF_DEST_QP,
		AIF_HF_DEFAULT | AIF_HF_FLOW_LABEL | AIF_HF_DEST_QP,
	};
	uint8_t one[4] = { 0x31, 0x32, 0x33, 0x34 };

	(void)state;
	/* the model itself: CRC-32C("123456789") = 0xE3069283 */
	assert_int_equal(~ref_crc32c(~0u, (const uint8_t *)"123456789", 9), 0xE3069283u);
	assert_int_equal(rte_hash_crc(one, 4, 0xFFFFFFFFu), ref_crc32c(~0u, one, 4));

	make_flows(f, N_FLOWS, RNG_SEED);
	for (unsigned i = 0; i < N_FLOWS; i++) {
		struct aif_pkt v6 = roce6(v6_a, v6_b, rte_be_to_cpu_16(f[i].src_port), 4791,
					  f[i].dest_qp, f[i].dest_qp >> 4);
		for (unsigned k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
			assert_int_equal(aif_flow_hash(&f[i], masks[k], AIF_HASH_CRC32C, SW_SEED),
					 ref_flow_hash(&f[i], masks[k], SW_SEED));
			assert_int_equal(aif_flow_hash(&v6, masks[k], AIF_HASH_CRC32C, SW_SEED),
					 ref_flow_hash(&v6, masks[k], SW_SEED));
		}
	}
}

/* ---- Toeplitz: the Microsoft RSS verification suite ---- */

struct rss_vec4 {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint32_t hash_ip, hash_ip_ports;
};

struct rss_vec6 {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t hash_ip, hash_ip_ports;
};

/* "Verifying the RSS Hash Calculation" (Microsoft), also 82599 7.1.2.8.3. */
static const struct rss_vec4 rss4[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0x82989176, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};

static const struct rss_vec6 rss6[] = {
	{ /* 3ffe:2501:200:1fff::7 -> 3ffe:2501:200:3::1 */
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07 },
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01 },
	  2794, 1766, 0x2cc18cd5, 0x40207d3d },
	{ /* 3ffe:501:8::260:97ff:fe40:efab -> ff02::1 */
	  { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0, 0, 0x02, 0x60, 0x97, 0xff, 0xfe, 0x40,
	    0xef, 0xab },
	  { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 },
	  14230, 4739, 0x0f0c461c, 0xdde51bbf },
	{ /* 3ffe:1900:4545:3:200:f8ff:fe21:67cf -> fe80::200:f8ff:fe21:67cf */
	  { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03, 0x02, 0x00, 0xf8, 0xff, 0xfe,
	    0x21, 0x67, 0xcf },
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
	  44251, 38024, 0x4b61e985, 0x02d1feef },
};

#define RSS_IP (AIF_HF_SRC_IP | AIF_HF_DST_IP)
#define RSS_IP_PORTS (RSS_IP | AIF_HF_SRC_PORT | AIF_HF_DST_PORT)

static void
test_toeplitz_vectors(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(rss4) / sizeof(rss4[0]); i++) {
		const struct rss_vec4 *v = &rss4[i];
		struct aif_ip s, d;
		ip4(&s, v->src[0], v->src[1], v->src[2], v->src[3]);
		ip4(&d, v->dst[0], v->dst[1], v->dst[2], v->dst[3]);
		struct aif_pkt m = roce4(&s, &d, v->sport, v->dport, 0);
		m.l4_proto = 6; /* the suite is TCP; proto is not selected */
		m.flags = AIF_PKT_F_L4;

		assert_int_equal(aif_flow_hash_toeplitz(&m, RSS_IP_PORTS), v->hash_ip_ports);
		assert_int_equal(aif_flow_hash_toeplitz(&m, RSS_IP), v->hash_ip);
		/* without L4 ports (a fragment) the 2-tuple hash */
		m.flags = 0;
		assert_int_equal(aif_flow_hash_toeplitz(&m, RSS_IP_PORTS), v->hash_ip);
		/* the flow hash finalises the same value with the seed */
		m.flags = AIF_PKT_F_L4;
		assert_int_equal(aif_flow_hash(&m, RSS_IP_PORTS, AIF_HASH_TOEPLITZ, SW_SEED),
				 ref_fmix32(v->hash_ip_ports ^ SW_SEED));
	}
	for (unsigned i = 0; i < sizeof(rss6) / sizeof(rss6[0]); i++) {
		const struct rss_vec6 *v = &rss6[i];
		struct aif_pkt m = roce6(v->src, v->dst, v->sport, v->dport, 0, 0xABCDE);
		m.l4_proto = 6;
		m.flags = AIF_PKT_F_L4;

		assert_int_equal(aif_flow_hash_toeplitz(&m, RSS_IP_PORTS), v->hash_ip_ports);
		assert_int_equal(aif_flow_hash_toeplitz(&m, RSS_IP), v->hash_ip);
	}
}

/* ---- the member pick ---- */

static void
test_ecmp_pick_range(void **state)
{
	struct aif_rng r;

	(void)state;
	aif_rng_seed(&r, RNG_SEED);
	assert_ptr_equal(aif_lb_schemes[AIF_LB_ECMP].select, aif_lb_ecmp_select);
	assert_string_equal(aif_lb_schemes[AIF_LB_ECMP].name, "ecmp");
	for (uint32_t n = 1; n <= 64; n++) {
		struct aif_group g = { .n = (uint16_t)n, .n_buckets = n };
		uint8_t ident[64];
		for (uint32_t k = 0; k < n; k++)
			ident[k] = (uint8_t)k;
		struct aif_pkt m;

		memset(&m, 0, sizeof(m));
		assert_int_equal(aif_lb_ecmp_pick(0, n), 0);
		assert_int_equal(aif_lb_ecmp_pick(0xFFFFFFFFu, n), n - 1);
		/* multiply-shift: member k owns [k * 2^32 / n, (k + 1) * 2^32 / n) */
		for (uint32_t k = 0; k < n; k++) {
			uint32_t lo = (uint32_t)(((uint64_t)k << 32) / n +
						 (((uint64_t)k << 32) % n != 0));
			assert_int_equal(aif_lb_ecmp_pick(lo, n), k);
			if (k > 0)
				assert_int_equal(aif_lb_ecmp_pick(lo - 1, n), k - 1);
		}
		for (unsigned i = 0; i < 4096; i++) {
			uint32_t h = (uint32_t)aif_rng_next(&r);
			uint32_t k = aif_lb_ecmp_pick(h, n);
			assert_true(k < n);
			m.hash = h;
			/* an identity bucket table: select is exactly the pick */
			assert_int_equal(aif_lb_ecmp_select(&g, NULL, ident, &m, NULL), k);
		}
	}
}

/*
 * hash "murmur3_ns3": ns-3's EcmpHash over (sip, dip, sport | dport << 16)
 * as little-endian words with the node id as seed.  Expected values from
 * an independent byte-wise MurmurHash3 x86_32 (the reference code, with
 * mmh3's "hello" -> 0x248bfa47 as its check): ns-3 hosts 0 -> 1
 * (0x0b000001 -> 0x0b000101), ports 10000 -> 100.
 */
static void
test_murmur3_ns3(void **state)
{
	struct aif_pkt m;
	(void)state;
	memset(&m, 0, sizeof(m));
	m.src.family = m.dst.family = AIF_AF_INET4;
	memcpy(m.src.b, "\x0b\x00\x00\x01", 4);
	memcpy(m.dst.b, "\x0b\x00\x01\x01", 4);
	m.l4_proto = 17;
	m.flags = AIF_PKT_F_L4;
	m.src_port = rte_cpu_to_be_16(10000);
	m.dst_port = rte_cpu_to_be_16(100);
	assert_int_equal(aif_flow_hash(&m, AIF_HF_DEFAULT, AIF_HASH_MURMUR3_NS3, 128), 0x9f51ab24u);
	assert_int_equal(aif_flow_hash(&m, AIF_HF_DEFAULT, AIF_HASH_MURMUR3_NS3, 129), 0xb9b82692u);
	assert_int_equal(aif_flow_hash(&m, AIF_HF_DEFAULT, AIF_HASH_MURMUR3_NS3, 136), 0xef04f1e5u);
	/* next hop = hash % n: member 4 of 8 at switch 128 */
	assert_int_equal(0x9f51ab24u % 8, 4);
	/* the fields are fixed: hash_fields do not change it */
	assert_int_equal(aif_flow_hash(&m, AIF_HF_SRC_IP, AIF_HASH_MURMUR3_NS3, 128), 0x9f51ab24u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecmp_spread_crc),
		cmocka_unit_test(test_ecmp_spread_toeplitz),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_murmur3_ns3),
		cmocka_unit_test(test_seed_not_linear),
		cmocka_unit_test(test_fields_ports),
		cmocka_unit_test(test_fields_ip_proto),
		cmocka_unit_test(test_fields_dest_qp),
		cmocka_unit_test(test_fields_ipv6),
		cmocka_unit_test(test_crc_reference),
		cmocka_unit_test(test_toeplitz_vectors),
		cmocka_unit_test(test_ecmp_pick_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
