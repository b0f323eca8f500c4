/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_buckets.c: the resilient ECMP/WCMP bucket
 * tables, checked through the path a packet takes (aif_flow_hash with the
 * switch seed, then aif_lb_bucket_pick on the table).  No EAL.
 *
 * Flows are 100,000 RoCEv2 flows drawn from a seeded xorshift
 * (dataplane/rng.h): source 10.0.x.y, destination 10.1.x.y, UDP destination
 * port 4791, random UDP source port in 0xC000..0xFFFF.  Every run sees the
 * same flows, so every figure printed below is exact.
 *
 *   - Resilient hashing (8 members, 64 buckets each, ECMP and weights 1..8):
 *     taking member 3 down moves exactly the flows that were on member 3
 *     (at most its share + 2% of all flows), bringing it back moves only
 *     flows onto member 3 (at most its share + 2%).
 *   - WCMP 1:2:3:4 and 1:1:1:5: bucket counts exact (largest remainder);
 *     each member's fraction of the flows within 3 points (absolute) of
 *     w / W and within 5% of w / W (relative).
 *   - Polarisation over two tiers, same seed (badly skewed) against the
 *     default per-switch seeds (FNV-1a of the names: even).
 *   - Determinism; a different seed remaps most flows.
 *   - Edge cases, and a randomised check of the whole header contract.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

#define N_FLOWS 100000
#define RNG_SEED 0x5eed0f10ab1e5eedull
#define BPM 64 /* buckets per member, the config default */
#define MAXB (64 * 256)

/* ---- flows ---- */

static struct aif_pkt flows[N_FLOWS];

static void
make_flows(void)
{
	struct aif_rng r;

	aif_rng_seed(&r, RNG_SEED);
	for (unsigned i = 0; i < N_FLOWS; i++) {
		struct aif_pkt *m = &flows[i];
		uint32_t s = aif_rng_below(&r, 1u << 16), d = aif_rng_below(&r, 1u << 16);
		uint16_t sport = (uint16_t)(0xC000 + aif_rng_below(&r, 0x4000));

		memset(m, 0, sizeof(*m));
		m->kind = AIF_PKT_IPV4;
		m->flags = AIF_PKT_F_L4 | AIF_PKT_F_ROCE;
		m->l4_proto = 17;
		m->src.family = m->dst.family = AIF_AF_INET4;
		m->src.b[0] = 10;
		m->src.b[2] = (uint8_t)(s >> 8);
		m->src.b[3] = (uint8_t)s;
		m->dst.b[0] = 10;
		m->dst.b[1] = 1;
		m->dst.b[2] = (uint8_t)(d >> 8);
		m->dst.b[3] = (uint8_t)d;
		m->src_port = rte_cpu_to_be_16(sport);
		m->dst_port = rte_cpu_to_be_16(AIF_UDP_PORT_ROCEV2);
		m->dest_qp = aif_rng_below(&r, 1u << 24);
	}
}

static int
setup(void **state)
{
	(void)state;
	make_flows();
	return 0;
}

/* The default switch seed (control/config.c): FNV-1a of the switch name. */
static uint32_t
fnv1a32(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 16777619u;
	}
	return h;
}

static uint32_t
flow_hash(unsigned i, uint32_t seed)
{
	return aif_flow_hash(&flows[i], AIF_HF_DEFAULT, AIF_HASH_CRC32C, seed);
}

/* What a worker does: the group's table, indexed by the hash. */
static uint32_t
pick(const uint8_t *buckets, uint32_t n, uint32_t n_buckets, uint32_t hash)
{
	struct aif_group g = { .n = (uint16_t)n, .n_buckets = n_buckets };
	uint32_t k = aif_lb_bucket_pick(&g, buckets, hash);

	assert_true(k < n);
	return k;
}

static void
count_members(const uint8_t *b, uint32_t n_buckets, uint32_t *cnt, uint32_t n)
{
	memset(cnt, 0, n * sizeof(*cnt));
	for (uint32_t i = 0; i < n_buckets; i++) {
		assert_true(b[i] < n);
		cnt[b[i]]++;
	}
}

/* ---- resilient hashing ---- */

/*
 * n members (weights or NULL), member `down` goes down then comes back.
 * Returns nothing; prints the moved fractions and asserts the contract.
 */
static void
check_remove_restore(const char *what, uint32_t n, const uint32_t *weights,
		     uint32_t down, uint32_t seed)
{
	static uint8_t t0[MAXB], t1[MAXB], t2[MAXB];
	const uint32_t nb = n * BPM;
	bool up[64];
	uint32_t cnt0[64], cnt1[64], cnt2[64];
	uint64_t wsum = 0;
	unsigned moved1 = 0, moved2 = 0, on_down = 0, back = 0, not_same = 0;

	for (uint32_t k = 0; k < n; k++) {
		up[k] = true;
		wsum += weights ? weights[k] : 1;
	}
	const double share = (double)(weights ? weights[down] : 1) / (double)wsum;

	assert_int_equal(aif_lb_buckets_build(t0, nb, (uint16_t)n, weights, NULL, NULL, 0), 0);
	up[down] = false;
	assert_int_equal(aif_lb_buckets_build(t1, nb, (uint16_t)n, weights, up, t0, nb), 0);
	up[down] = true;
	assert_int_equal(aif_lb_buckets_build(t2, nb, (uint16_t)n, weights, up, t1, nb), 0);

	/* buckets: exactly the down member's change, then only buckets go back to it */
	count_members(t0, nb, cnt0, n);
	count_members(t1, nb, cnt1, n);
	count_members(t2, nb, cnt2, n);
	assert_int_equal(cnt1[down], 0);
	for (uint32_t i = 0; i < nb; i++) {
		assert_true((t1[i] != t0[i]) == (t0[i] == down));
		if (t2[i] != t1[i])
			assert_int_equal(t2[i], down);
	}
	assert_memory_equal(cnt0, cnt2, n * sizeof(cnt0[0]));
	for (uint32_t k = 0; k < n; k++)
		if (k != down)
			assert_true(cnt1[k] >= cnt0[k]);

	/* flows */
	for (unsigned i = 0; i < N_FLOWS; i++) {
		uint32_t h = flow_hash(i, seed);
		uint32_t m0 = pick(t0, n, nb, h), m1 = pick(t1, n, nb, h), m2 = pick(t2, n, nb, h);

		on_down += m0 == down;
		moved1 += m1 != m0;
		/* the flows that move are exactly those that were on `down` */
		assert_true((m1 != m0) == (m0 == down));
		assert_true(m1 != down);
		moved2 += m2 != m1;
		if (m2 != m1)
			assert_int_equal(m2, down);
		back += m2 == down;
		not_same += m2 != m0;
	}
	assert_int_equal(moved1, on_down);
	assert_int_equal(moved2, back);
	double f1 = (double)moved1 / N_FLOWS, f2 = (double)moved2 / N_FLOWS;
	printf("# %s: member %u down: %u of %d flows move (%.4f; its share %.4f), "
	       "back up: %u move (%.4f); vs the first table %u differ (%.4f)\n",
	       what, down, moved1, N_FLOWS, f1, share, moved2, f2, not_same,
	       (double)not_same / N_FLOWS);
	assert_true(f1 <= share + 0.02);
	assert_true(f2 <= share + 0.02);
}

static void
test_resilient_ecmp(void **state)
{
	(void)state;
	check_remove_restore("ecmp 8x64", 8, NULL, 3, fnv1a32("leaf0"));
}

static void
test_resilient_wcmp(void **state)
{
	static const uint32_t w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint32_t w2[8] = { 1, 2, 3, 4, 1, 2, 3, 4 };

	(void)state;
	check_remove_restore("wcmp 1..8", 8, w, 3, fnv1a32("leaf0"));
	check_remove_restore("wcmp 1:2:3:4:1:2:3:4", 8, w2, 3, fnv1a32("leaf0"));
	check_remove_restore("wcmp 1..8, member 0", 8, w, 0, fnv1a32("leaf1"));
}

/* ECMP, one member out of 8: the others gain floor or ceil of 64/7 each. */
static void
test_resilient_even_spread(void **state)
{
	static uint8_t t0[8 * BPM], t1[8 * BPM], t2[8 * BPM];
	bool up[8] = { true, true, true, true, true, true, true, true };
	uint32_t c0[8], c1[8];

	(void)state;
	aif_lb_buckets_build(t0, 8 * BPM, 8, NULL, NULL, NULL, 0);
	for (uint32_t i = 0; i < 8 * BPM; i++)
		assert_int_equal(t0[i], i % 8);
	up[3] = false;
	aif_lb_buckets_build(t1, 8 * BPM, 8, NULL, up, t0, 8 * BPM);
	count_members(t0, 8 * BPM, c0, 8);
	count_members(t1, 8 * BPM, c1, 8);
	for (uint32_t k = 0; k < 8; k++) {
		if (k == 3)
			continue;
		assert_true(c1[k] - c0[k] == BPM / 7 || c1[k] - c0[k] == BPM / 7 + 1);
	}
	/* back: 64 buckets, taken floor or ceil of 64/7 from each other member */
	up[3] = true;
	aif_lb_buckets_build(t2, 8 * BPM, 8, NULL, up, t1, 8 * BPM);
	uint32_t taken[8] = { 0 };
	for (uint32_t i = 0; i < 8 * BPM; i++)
		if (t2[i] != t1[i])
			taken[t1[i]]++;
	for (uint32_t k = 0; k < 8; k++) {
		if (k == 3)
			assert_int_equal(taken[k], 0);
		else
			assert_true(taken[k] == BPM / 7 || taken[k] == BPM / 7 + 1);
	}
}

/* ---- WCMP ---- */

static void
check_wcmp(const uint32_t *w, const uint32_t *expect_cnt, uint32_t n)
{
	static uint8_t t[MAXB];
	const uint32_t nb = n * BPM, seed = fnv1a32("leaf0");
	uint32_t cnt[64], load[64] = { 0 }, wsum = 0;

	for (uint32_t k = 0; k < n; k++)
		wsum += w[k];
	assert_int_equal(aif_lb_buckets_build(t, nb, (uint16_t)n, w, NULL, NULL, 0), 0);
	count_members(t, nb, cnt, n);
	assert_memory_equal(cnt, expect_cnt, n * sizeof(cnt[0]));
	for (unsigned i = 0; i < N_FLOWS; i++)
		load[pick(t, n, nb, flow_hash(i, seed))]++;
	for (uint32_t k = 0; k < n; k++) {
		double want = (double)w[k] / wsum, got = (double)load[k] / N_FLOWS;
		double abs_err = got - want, rel_err = (got - want) / want;
		printf("# wcmp member %u weight %u: %u buckets of %u, %u flows: share %.4f, "
		       "w/W %.4f, error %+.4f absolute, %+.2f%% relative\n",
		       k, w[k], cnt[k], nb, load[k], got, want, abs_err, 100 * rel_err);
		assert_true(abs_err <= 0.03 && abs_err >= -0.03);
		assert_true(rel_err <= 0.05 && rel_err >= -0.05);
	}
}

static void
test_wcmp_shares(void **state)
{
	static const uint32_t w1[4] = { 1, 2, 3, 4 };
	/* 25.6 51.2 76.8 102.4: the two extra buckets to remainders .8 and .6 */
	static const uint32_t c1[4] = { 26, 51, 77, 102 };
	static const uint32_t w2[4] = { 1, 1, 1, 5 };
	static const uint32_t c2[4] = { 32, 32, 32, 160 };

	(void)state;
	check_wcmp(w1, c1, 4);
	check_wcmp(w2, c2, 4);
}

/* ---- polarisation ---- */

/*
 * Tier 1 hashes every flow with seed s1 over 4 uplinks; the flows it sends
 * to uplink 0 reach one tier-2 switch, which hashes them with s2 over its 4
 * members.  Returns max/mean of the tier-2 load; *n_out = flows at tier 2.
 */
static double
two_tiers(uint32_t s1, uint32_t s2, unsigned *n_out, unsigned *max_out)
{
	static uint8_t t1[4 * BPM], t2[4 * BPM];
	unsigned load[4] = { 0 }, n2 = 0, max = 0;

	assert_int_equal(aif_lb_buckets_build(t1, 4 * BPM, 4, NULL, NULL, NULL, 0), 0);
	assert_int_equal(aif_lb_buckets_build(t2, 4 * BPM, 4, NULL, NULL, NULL, 0), 0);
	for (unsigned i = 0; i < N_FLOWS; i++) {
		if (pick(t1, 4, 4 * BPM, flow_hash(i, s1)) != 0)
			continue;
		n2++;
		load[pick(t2, 4, 4 * BPM, flow_hash(i, s2))]++;
	}
	for (unsigned k = 0; k < 4; k++)
		if (load[k] > max)
			max = load[k];
	*n_out = n2;
	*max_out = max;
	printf("#   tier 2 loads %u %u %u %u\n", load[0], load[1], load[2], load[3]);
	return n2 ? (double)max / ((double)n2 / 4) : 0;
}

static void
test_polarization(void **state)
{
	const uint32_t leaf = fnv1a32("leaf0"), spine = fnv1a32("spine0");
	unsigned n2, max;
	double r;

	(void)state;
	/* the default seed of a switch named leaf0, as test_flow_hash.c has it */
	assert_int_equal(leaf, 0xa99b55ffu);

	r = two_tiers(leaf, leaf, &n2, &max);
	printf("# polarisation, same seed %#x at both tiers: %u flows reach tier 2, "
	       "max %u, max/mean %.3f\n", leaf, n2, max, r);
	assert_true(n2 >= 10000);
	assert_true(r >= 2.0);

	r = two_tiers(leaf, spine, &n2, &max);
	printf("# polarisation, seeds %#x (leaf0) -> %#x (spine0): %u flows reach "
	       "tier 2, max %u, max/mean %.3f\n", leaf, spine, n2, max, r);
	assert_true(n2 >= 10000);
	assert_true(r <= 1.25);

	/* seeds one bit apart are independent too (the finaliser is keyed) */
	r = two_tiers(leaf, leaf ^ 1, &n2, &max);
	printf("# polarisation, seeds %#x -> %#x: %u flows reach tier 2, max %u, "
	       "max/mean %.3f\n", leaf, leaf ^ 1, n2, max, r);
	assert_true(r <= 1.25);
}

/* ---- determinism ---- */

static void
test_determinism(void **state)
{
	static uint8_t a[8 * BPM], b[8 * BPM];
	static const uint32_t w[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
	bool up[8] = { true, true, false, true, true, true, true, true };
	const uint32_t s1 = fnv1a32("leaf0"), s2 = fnv1a32("leaf1");
	unsigned differ = 0;

	(void)state;
	aif_lb_buckets_build(a, 8 * BPM, 8, w, up, NULL, 0);
	aif_lb_buckets_build(b, 8 * BPM, 8, w, up, NULL, 0);
	assert_memory_equal(a, b, sizeof(a));
	aif_lb_buckets_build(a, 8 * BPM, 8, NULL, NULL, NULL, 0);
	aif_lb_buckets_build(b, 8 * BPM, 8, NULL, NULL, NULL, 0);
	assert_memory_equal(a, b, sizeof(a));
	for (unsigned i = 0; i < N_FLOWS; i++) {
		assert_int_equal(pick(a, 8, 8 * BPM, flow_hash(i, s1)),
				 pick(b, 8, 8 * BPM, flow_hash(i, s1)));
		differ += pick(a, 8, 8 * BPM, flow_hash(i, s1)) !=
			  pick(a, 8, 8 * BPM, flow_hash(i, s2));
	}
	printf("# seed %#x -> %#x: %u of %d flows change member over 8 (%.4f; "
	       "independent picks: 0.875)\n", s1, s2, differ, N_FLOWS,
	       (double)differ / N_FLOWS);
	assert_true(differ > N_FLOWS * 3 / 4);
}

/* ---- edge cases ---- */

static void
test_edges(void **state)
{
	static uint8_t t[256], p[256], f[256];
	bool up[8] = { false, false, false, false, false, false, false, false };
	uint32_t c[8];

	(void)state;
	/* one member */
	memset(t, 0xAB, sizeof(t));
	assert_int_equal(aif_lb_buckets_build(t, 64, 1, NULL, NULL, NULL, 0), 0);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(t[i], 0);
	memset(t, 0xAB, sizeof(t));
	assert_int_equal(aif_lb_buckets_build(t, 64, 1, NULL, up, NULL, 0), -1);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(t[i], 0);
	assert_int_equal(t[64], 0xAB); /* nothing written past n_buckets */

	/* all down: -1, every bucket to member 0; then back up from that table */
	memset(t, 0xAB, sizeof(t));
	assert_int_equal(aif_lb_buckets_build(t, 256, 4, NULL, up, NULL, 0), -1);
	for (unsigned i = 0; i < 256; i++)
		assert_int_equal(t[i], 0);
	assert_int_equal(aif_lb_buckets_build(p, 256, 4, NULL, NULL, t, 256), 0);
	count_members(p, 256, c, 4);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(c[k], 64);
	for (unsigned i = 0; i < 64; i++) /* member 0 kept its first 64 */
		assert_int_equal(p[i], 0);

	/* no members, too many members */
	assert_int_equal(aif_lb_buckets_build(t, 0, 0, NULL, NULL, NULL, 0), -1);
	assert_int_equal(aif_lb_buckets_build(t, 65, 65, NULL, NULL, NULL, 0), -1);

	/* a zero weight counts as down */
	static const uint32_t wz[4] = { 1, 0, 1, 1 };
	assert_int_equal(aif_lb_buckets_build(t, 256, 4, wz, NULL, NULL, 0), 0);
	count_members(t, 256, c, 4);
	assert_int_equal(c[0], 86); /* 85.33 each: the extra bucket to offset 0 */
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 85);
	assert_int_equal(c[3], 85);
	bool up3[4] = { true, false, true, true };
	assert_int_equal(aif_lb_buckets_build(f, 256, 4, NULL, up3, NULL, 0), 0);
	assert_memory_equal(t, f, 256); /* same table as member 1 down */
	static const uint32_t w0[4] = { 0, 0, 0, 0 };
	assert_int_equal(aif_lb_buckets_build(t, 256, 4, w0, NULL, NULL, 0), -1);

	/* NULL weights are weights of 1 */
	static const uint32_t w1[4] = { 1, 1, 1, 1 };
	aif_lb_buckets_build(t, 256, 4, NULL, NULL, NULL, 0);
	aif_lb_buckets_build(f, 256, 4, w1, NULL, NULL, 0);
	assert_memory_equal(t, f, 256);

	/* a prev of another size is ignored: same as no prev */
	static const uint32_t w4[4] = { 4, 3, 2, 1 };
	aif_lb_buckets_build(f, 256, 4, w4, NULL, NULL, 0);
	memset(p, 1, sizeof(p));
	aif_lb_buckets_build(t, 256, 4, w4, NULL, p, 255);
	assert_memory_equal(t, f, 256);
	/* entries >= n in prev are no member: reassigned, the rest kept */
	for (unsigned i = 0; i < 256; i++)
		p[i] = i % 2 ? 0xFF : (uint8_t)(i % 7);
	aif_lb_buckets_build(t, 256, 4, NULL, NULL, p, 256);
	count_members(t, 256, c, 4);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(c[k], 64);

	/* fewer buckets than members: one bucket each for the lowest offsets */
	aif_lb_buckets_build(t, 3, 4, NULL, NULL, NULL, 0);
	assert_int_equal(t[0], 0);
	assert_int_equal(t[1], 1);
	assert_int_equal(t[2], 2);

	/* weights at the config's limit, 64 members of 256 buckets */
	static uint32_t wbig[64];
	static uint8_t big[MAXB];
	for (unsigned k = 0; k < 64; k++)
		wbig[k] = k % 2 ? 65535 : 1;
	assert_int_equal(aif_lb_buckets_build(big, MAXB, 64, wbig, NULL, NULL, 0), 0);
	uint32_t cb[64];
	count_members(big, MAXB, cb, 64);
	for (unsigned k = 0; k < 64; k++)
		assert_true(k % 2 ? (cb[k] == 511 || cb[k] == 512) : cb[k] == 0);
}

/* ---- the whole contract, on random histories ---- */

static void
check_contract(const uint8_t *out, int rc, uint32_t nb, uint16_t n, const uint32_t *w,
	       const bool *up, const uint8_t *prev)
{
	uint64_t W = 0, rem[64], min_given = UINT64_MAX, max_not = 0;
	uint32_t cnt[64], held[64] = { 0 }, kept[64] = { 0 }, sum_floor = 0, n_extra = 0;
	bool elig[64];
	unsigned changed = 0, must = 0;

	for (uint16_t k = 0; k < n; k++) {
		elig[k] = up[k] && w[k] != 0;
		W += elig[k] ? w[k] : 0;
	}
	if (W == 0) {
		assert_int_equal(rc, -1);
		for (uint32_t i = 0; i < nb; i++)
			assert_int_equal(out[i], 0);
		return;
	}
	assert_int_equal(rc, 0);
	count_members(out, nb, cnt, n);
	for (uint16_t k = 0; k < n; k++) {
		uint64_t fl = elig[k] ? (uint64_t)w[k] * nb / W : 0;
		rem[k] = elig[k] ? (uint64_t)w[k] * nb % W : 0;
		sum_floor += (uint32_t)fl;
		if (!elig[k]) {
			assert_int_equal(cnt[k], 0);
			continue;
		}
		assert_true(cnt[k] == fl || cnt[k] == fl + 1);
		if (cnt[k] == fl + 1) {
			n_extra++;
			if (rem[k] < min_given)
				min_given = rem[k];
		} else if (rem[k] > max_not) {
			max_not = rem[k];
		}
	}
	assert_int_equal(n_extra, nb - sum_floor);
	if (n_extra > 0)
		assert_true(min_given >= max_not); /* largest remainders */
	if (prev == NULL)
		return;
	for (uint32_t i = 0; i < nb; i++)
		if (prev[i] < n)
			held[prev[i]]++;
	for (uint32_t i = 0; i < nb; i++) {
		uint8_t q = prev[i];
		bool keep = q < n && elig[q] && kept[q] < cnt[q];

		if (keep)
			kept[q]++;
		assert_true((out[i] == q) == keep);
		changed += out[i] != q;
	}
	for (uint16_t k = 0; k < n; k++)
		must += elig[k] ? (held[k] > cnt[k] ? held[k] - cnt[k] : 0) : held[k];
	uint32_t none = 0;
	for (uint32_t i = 0; i < nb; i++)
		none += prev[i] >= n;
	assert_int_equal(changed, must + none);
}

static void
test_contract_random(void **state)
{
	static uint8_t a[MAXB], b[MAXB];
	static const uint32_t bpms[] = { 1, 2, 3, 7, 16, 64, 256 };
	struct aif_rng r;
	unsigned steps = 0;

	(void)state;
	aif_rng_seed(&r, RNG_SEED ^ 0xC0FFEE);
	for (unsigned hist = 0; hist < 200; hist++) {
		uint16_t n = (uint16_t)(1 + aif_rng_below(&r, 64));
		uint32_t nb = n * bpms[aif_rng_below(&r, 7)];
		uint32_t w[64];
		bool up[64];
		uint8_t *cur = a, *nxt = b;
		bool weighted = aif_rng_below(&r, 2);

		for (uint16_t k = 0; k < n; k++) {
			w[k] = weighted ? 1 + aif_rng_below(&r, 16) : 1;
			up[k] = true;
		}
		check_contract(cur, aif_lb_buckets_build(cur, nb, n, w, up, NULL, 0),
			       nb, n, w, up, NULL);
		for (unsigned step = 0; step < 20; step++, steps++) {
			/* one or two members flap, or a weight changes */
			for (unsigned c = 0; c < 1 + aif_rng_below(&r, 2); c++) {
				uint16_t k = (uint16_t)aif_rng_below(&r, n);
				if (weighted && aif_rng_below(&r, 3) == 0)
					w[k] = aif_rng_below(&r, 17); /* 0 sometimes */
				else
					up[k] = !up[k];
			}
			int rc = aif_lb_buckets_build(nxt, nb, n, w, up, cur, nb);
			check_contract(nxt, rc, nb, n, w, up, cur);
			uint8_t *tmp = cur;
			cur = nxt;
			nxt = tmp;
		}
	}
	printf("# contract held over %u random rebuilds\n", steps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resilient_ecmp),
		cmocka_unit_test(test_resilient_wcmp),
		cmocka_unit_test(test_resilient_even_spread),
		cmocka_unit_test(test_wcmp_shares),
		cmocka_unit_test(test_polarization),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_contract_random),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
