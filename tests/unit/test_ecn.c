/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/ecn.c and ecn.h.
 *
 * Config: one distinct error per bad field; the fixed-point slope checked
 * exhaustively (every q in the band) against Pmax*(q-Kmin)/(Kmax-Kmin).
 * Decision: the congested fraction at fixed depths (25/50/75/100% of the
 * band) over 100,000 packets from a seeded aif_rng, table-driven over four
 * profiles (100/400 KB/0.2, the DCQCN study's 10/100 KB/0.01, HPCC's 100G
 * and 400G defaults), must lie within 3 standard errors root(p(1-p)/n) of
 * the expected p, for ECT (MARK) and for Not-ECT on a lossy queue (DROP).
 * Boundaries as HPCC ShouldSendCN: q <= Kmin never (and draws nothing),
 * q == Kmax with probability Pmax, q > Kmax always (draws nothing).
 * KB here is 1000 bytes, as HPCC's ConfigEcn multiplies by 1000.
 * Marking: random IPv4 headers with options, checksums steered around
 * 0x0000, against a from-scratch checksum; IPv6 traffic class bits.
 * Needs no EAL.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ecn.h"
#include "rewrite.h"

#define KB 1000u
#define N_PKTS 100000u
#define RANDOM_HEADERS 200000u

/* Square root by Newton's method: the build does not link libm. */
static double
root(double x)
{
	double r = x > 1 ? x : 1;
	int i;

	if (x <= 0)
		return 0;
	for (i = 0; i < 200; i++)
		r = 0.5 * (r + x / r);
	return r;
}

static struct aif_ecn_config
cfg_of(uint32_t kmin, uint32_t kmax, double pmax, enum aif_ecn_mode mode)
{
	struct aif_ecn_params p = { .kmin_bytes = kmin, .kmax_bytes = kmax,
				    .pmax = pmax, .mode = mode };
	struct aif_ecn_config c;

	assert_int_equal(aif_ecn_config_init(&c, &p), 0);
	return c;
}

/* ---- config ---- */

static void
test_config_errors(void **state)
{
	const struct aif_ecn_params good = { .kmin_bytes = 100 * KB,
					     .kmax_bytes = 400 * KB, .pmax = 0.2,
					     .mode = AIF_ECN_MODE_ECN,
					     .mark_point = AIF_ECN_AT_DEQUEUE };
	struct aif_ecn_params p;
	struct aif_ecn_config c, before;
	const int errs[] = { AIF_ECN_ERR_NULL_ARG, AIF_ECN_ERR_KMIN_GT_KMAX,
			     AIF_ECN_ERR_PMAX_RANGE, AIF_ECN_ERR_MODE,
			     AIF_ECN_ERR_MARK_POINT };
	unsigned i, j;

	(void)state;
	assert_int_equal(aif_ecn_config_init(&c, &good), AIF_ECN_OK);
	assert_int_equal(aif_ecn_config_init(NULL, &good), AIF_ECN_ERR_NULL_ARG);
	assert_int_equal(aif_ecn_config_init(&c, NULL), AIF_ECN_ERR_NULL_ARG);

	memset(&c, 0x5a, sizeof(c));
	before = c;

	p = good;
	p.kmin_bytes = p.kmax_bytes + 1;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_KMIN_GT_KMAX);
	p.kmin_bytes = p.kmax_bytes; /* a step at K is fine */
	assert_int_equal(aif_ecn_config_init(&before, &p), AIF_ECN_OK);
	memset(&before, 0x5a, sizeof(before));

	p = good;
	p.pmax = -0.01;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_PMAX_RANGE);
	p.pmax = 1.0001;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_PMAX_RANGE);
	p.pmax = 20; /* SONiC percent given as is */
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_PMAX_RANGE);
	p.pmax = NAN;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_PMAX_RANGE);

	p = good;
	p.mode = AIF_ECN_MODE_MAX;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_MODE);
	p.mode = (enum aif_ecn_mode)-1;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_MODE);

	p = good;
	p.mark_point = AIF_ECN_MARK_POINT_MAX;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_ERR_MARK_POINT);

	/* c untouched by every failure */
	assert_memory_equal(&c, &before, sizeof(c));

	/* the edges that are allowed */
	p = good;
	p.pmax = 0.0;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_OK);
	p.pmax = 1.0;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_OK);
	p.kmin_bytes = 0;
	p.kmax_bytes = UINT32_MAX;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_OK);
	p.mark_point = AIF_ECN_AT_ENQUEUE;
	p.mode = AIF_ECN_MODE_OFF;
	assert_int_equal(aif_ecn_config_init(&c, &p), AIF_ECN_OK);
	assert_int_equal(c.mark_point, AIF_ECN_AT_ENQUEUE);
	assert_int_equal(c.mode, AIF_ECN_MODE_OFF);

	/* distinct, named errors */
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		assert_true(errs[i] < 0);
		assert_string_not_equal(aif_ecn_err_name(errs[i]), "unknown error");
		for (j = 0; j < i; j++) {
			assert_int_not_equal(errs[i], errs[j]);
			assert_string_not_equal(aif_ecn_err_name(errs[i]),
						aif_ecn_err_name(errs[j]));
		}
	}
	assert_string_equal(aif_ecn_err_name(0), "ok");
	assert_string_equal(aif_ecn_err_name(-99), "unknown error");
	assert_string_equal(aif_ecn_err_name(AIF_ECN_ERR_PMAX_RANGE),
			    "pmax not within [0, 1]");
}

/* Exact precomputed values for the 100/400 KB/0.2 profile. */
static void
test_config_fixed_point_values(void **state)
{
	struct aif_ecn_config c = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_ECN);

	(void)state;
	/* round(0.2 * 2^32) = round(858993459.2) */
	assert_true(c.pmax_q32 == 858993459ull);
	/* ceil(858993459 * 2^31 / 300000) = ceil(6148914689804.86) */
	assert_true(c.slope == 6148914689805ull);
	assert_int_equal(c.kmin_bytes, 100 * KB);
	assert_int_equal(c.kmax_bytes, 400 * KB);
	assert_int_equal(c.ecn, 1);

	c = cfg_of(7, 7, 0.5, AIF_ECN_MODE_WRED);
	assert_true(c.slope == 0);
	assert_int_equal(c.ecn, 0);
	c = cfg_of(0, 1, 1.0, AIF_ECN_MODE_ECN);
	assert_true(c.pmax_q32 == (1ull << 32));
	assert_true(c.slope == (1ull << 63));
	c = cfg_of(100, 200, 0.5, AIF_ECN_MODE_OFF);
	assert_int_equal(c.kmin_bytes, UINT32_MAX);
	assert_int_equal(c.kmax_bytes, UINT32_MAX);
}

/*
 * For every q in the band, t = (slope * d) >> 31 is within 3 of
 * Pmax * d / range * 2^32, and t never exceeds 2^32 + 3 (no overflow).
 */
static void
test_config_fixed_point_exhaustive(void **state)
{
	static const struct {
		uint32_t kmin, kmax;
		double pmax;
	} rows[] = {
		{ 100 * KB, 400 * KB, 0.2 },
		{ 10 * KB, 100 * KB, 0.01 },
		{ 400 * KB, 1600 * KB, 0.2 },
		{ 0, 3, 1.0 },
		{ 5, 6, 1.0 },
		{ 1000, 1000 + 65537, 1.0 },
		{ 12345, 12345 + 999983, 0.73 },
	};
	unsigned r;

	(void)state;
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct aif_ecn_config c = cfg_of(rows[r].kmin, rows[r].kmax,
						 rows[r].pmax, AIF_ECN_MODE_ECN);
		uint32_t range = rows[r].kmax - rows[r].kmin, d;
		double worst = 0;

		for (d = 1; d <= range; d++) {
			uint64_t t = (c.slope * (uint64_t)d) >> AIF_ECN_SLOPE_SHIFT;
			double exact = rows[r].pmax * d / range * 4294967296.0;
			double err = fabs((double)t - exact);

			if (err > worst)
				worst = err;
			assert_true(err <= 3.0);
		}
		if (rows[r].pmax == 1.0) /* always at Kmax */
			assert_true(((c.slope * (uint64_t)range) >> AIF_ECN_SLOPE_SHIFT) >=
				    (1ull << 32));
		print_message("fixed point %u..%u B Pmax %.2f: worst |t - p*2^32| = %.3f\n",
			      rows[r].kmin, rows[r].kmax, rows[r].pmax, worst);
	}
	/* the widest band does not overflow either */
	{
		struct aif_ecn_config c = cfg_of(0, UINT32_MAX, 1.0, AIF_ECN_MODE_ECN);
		uint64_t t = (c.slope * (uint64_t)UINT32_MAX) >> AIF_ECN_SLOPE_SHIFT;

		assert_true(t >= (1ull << 32) && t <= (1ull << 32) + 3);
		t = (c.slope * (uint64_t)(UINT32_MAX / 2)) >> AIF_ECN_SLOPE_SHIFT;
		assert_true(t >= (1ull << 31) - 3 && t <= (1ull << 31) + 3);
	}
}

/* ---- the curve ---- */

struct curve_row {
	const char *profile;
	uint32_t kmin, kmax;
	double pmax;
};

/* HPCC run.py: Kmin = 100*bw/25 KB, Kmax = 400*bw/25 KB, bw in Gb/s. */
#define HPCC_KMIN(gbps) (100u * (gbps) / 25u * KB)
#define HPCC_KMAX(gbps) (400u * (gbps) / 25u * KB)

static const struct curve_row curve_rows[] = {
	{ "100K/400K/0.2 (ConWeave)", 100 * KB, 400 * KB, 0.2 },
	{ "DCQCN study 10K/100K/0.01", 10 * KB, 100 * KB, 0.01 },
	{ "HPCC 100G", HPCC_KMIN(100), HPCC_KMAX(100), 0.2 },
	{ "HPCC 400G", HPCC_KMIN(400), HPCC_KMAX(400), 0.2 },
};

static const unsigned quarters[] = { 25, 50, 75, 100 };

/*
 * Runs N_PKTS decisions at one depth; returns how many got verdict want.
 * Checks the other counters stay consistent.
 */
static unsigned
run_depth(const struct aif_ecn_config *c, uint32_t q, uint8_t ecn, bool lossless,
	  uint64_t seed, enum aif_ecn_verdict want, struct aif_ecn_ctr *ctr)
{
	struct aif_rng rng;
	unsigned i, hits = 0;

	aif_rng_seed(&rng, seed);
	memset(ctr, 0, sizeof(*ctr));
	for (i = 0; i < N_PKTS; i++) {
		enum aif_ecn_verdict v = aif_ecn_decide(c, q, ecn, lossless, &rng, ctr);

		if (v == want)
			hits++;
		else
			assert_int_equal(v, AIF_ECN_PASS);
	}
	return hits;
}

static void
check_fraction(const char *what, const struct curve_row *row, unsigned pct,
	       unsigned hits)
{
	double p = row->pmax * pct / 100.0;
	double f = (double)hits / N_PKTS;
	double se = root(p * (1 - p) / N_PKTS);
	double z = se > 0 ? (f - p) / se : 0;

	print_message("%-26s %-4s q=Kmin+%3u%%: measured %.5f expected %.5f "
		      "(3 SE %.5f, z %+.2f)\n",
		      row->profile, what, pct, f, p, 3 * se, z);
	assert_true(fabs(f - p) <= 3 * se);
}

/* ECT(0) on a lossy queue: MARK fraction follows the curve. */
static void
test_mark_fraction(void **state)
{
	unsigned r, k;

	(void)state;
	for (r = 0; r < sizeof(curve_rows) / sizeof(curve_rows[0]); r++) {
		const struct curve_row *row = &curve_rows[r];
		struct aif_ecn_config c = cfg_of(row->kmin, row->kmax, row->pmax,
						 AIF_ECN_MODE_ECN);

		for (k = 0; k < sizeof(quarters) / sizeof(quarters[0]); k++) {
			uint32_t q = row->kmin +
				     (uint32_t)((uint64_t)(row->kmax - row->kmin) *
						quarters[k] / 100);
			struct aif_ecn_ctr ctr;
			unsigned hits = run_depth(&c, q, AIF_ECN_ECT0, false,
						  1000 + 10 * r + k, AIF_ECN_MARK, &ctr);

			check_fraction("mark", row, quarters[k], hits);
			assert_true(ctr.ce_marked == hits);
			assert_true(ctr.ect_seen == N_PKTS);
			assert_true(ctr.ce_on_arrival == 0);
			assert_true(ctr.wred_drops == 0);
			assert_true(ctr.not_ect_lossless_passed == 0);
		}
	}
}

/* Not-ECT on a lossy queue: DROP with the same curve. */
static void
test_wred_drop_fraction(void **state)
{
	unsigned r, k;

	(void)state;
	for (r = 0; r < sizeof(curve_rows) / sizeof(curve_rows[0]); r++) {
		const struct curve_row *row = &curve_rows[r];
		struct aif_ecn_config c = cfg_of(row->kmin, row->kmax, row->pmax,
						 AIF_ECN_MODE_ECN);

		for (k = 0; k < sizeof(quarters) / sizeof(quarters[0]); k++) {
			uint32_t q = row->kmin +
				     (uint32_t)((uint64_t)(row->kmax - row->kmin) *
						quarters[k] / 100);
			struct aif_ecn_ctr ctr;
			unsigned hits = run_depth(&c, q, AIF_ECN_NOT_ECT, false,
						  5000 + 10 * r + k, AIF_ECN_DROP, &ctr);

			check_fraction("drop", row, quarters[k], hits);
			assert_true(ctr.wred_drops == hits);
			assert_true(ctr.ect_seen == 0);
			assert_true(ctr.ce_marked == 0);
			assert_true(ctr.not_ect_lossless_passed == 0);
		}
	}
}

/* Same seed, same decisions; a different seed, different ones. */
static void
test_seeded_repeatable(void **state)
{
	struct aif_ecn_config c = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_ECN);
	struct aif_ecn_ctr a, b, d;
	unsigned ha, hb, hd;

	(void)state;
	ha = run_depth(&c, 250 * KB, AIF_ECN_ECT0, false, 42, AIF_ECN_MARK, &a);
	hb = run_depth(&c, 250 * KB, AIF_ECN_ECT0, false, 42, AIF_ECN_MARK, &b);
	hd = run_depth(&c, 250 * KB, AIF_ECN_ECT0, false, 43, AIF_ECN_MARK, &d);
	assert_int_equal(ha, hb);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_not_equal(ha, hd);
}

/* ---- boundaries ---- */

/* q <= Kmin: nothing marked or dropped, and no random number drawn. */
static void
test_below_kmin(void **state)
{
	const uint32_t qs[] = { 0, 1, 100 * KB - 1, 100 * KB };
	const uint8_t cps[] = { AIF_ECN_NOT_ECT, AIF_ECN_ECT1, AIF_ECN_ECT0, AIF_ECN_CE };
	struct aif_ecn_config c = cfg_of(100 * KB, 400 * KB, 1.0, AIF_ECN_MODE_ECN);
	struct aif_ecn_ctr ctr = { 0 };
	struct aif_rng rng;
	unsigned i, j, n;

	(void)state;
	aif_rng_seed(&rng, 7);
	uint64_t s0 = rng.s;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		for (j = 0; j < 4; j++)
			for (n = 0; n < N_PKTS / 16; n++)
				assert_int_equal(aif_ecn_decide(&c, qs[i], cps[j], false,
								&rng, &ctr),
						 AIF_ECN_PASS);
	assert_true(rng.s == s0); /* untouched */
	assert_true(ctr.ce_marked == 0 && ctr.wred_drops == 0 &&
		    ctr.not_ect_lossless_passed == 0);
	assert_true(ctr.ect_seen == 2 * 4 * (N_PKTS / 16));
	assert_true(ctr.ce_on_arrival == 4 * (N_PKTS / 16));

	/* Kmin + 1 with Pmax 1: p = 1/300000 > 0, a draw happens */
	assert_int_equal(aif_ecn_decide(&c, 100 * KB + 1, AIF_ECN_ECT0, false, &rng, &ctr),
			 AIF_ECN_PASS);
	assert_true(rng.s != 7);
}

/* q > Kmax: everything congested, no draw; q == Kmax: probability Pmax. */
static void
test_at_and_above_kmax(void **state)
{
	const uint32_t qs[] = { 400 * KB + 1, 400 * KB + 1500, 10 * 1000 * KB, UINT32_MAX };
	struct aif_ecn_config c = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_ECN);
	struct aif_ecn_ctr ctr;
	struct aif_rng rng;
	unsigned i, n, hits;
	double se = root(0.2 * 0.8 / N_PKTS);

	(void)state;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		memset(&ctr, 0, sizeof(ctr));
		aif_rng_seed(&rng, 9);
		uint64_t s9 = rng.s;
		for (n = 0; n < N_PKTS; n++) {
			assert_int_equal(aif_ecn_decide(&c, qs[i], AIF_ECN_ECT0, false,
							&rng, &ctr),
					 AIF_ECN_MARK);
			assert_int_equal(aif_ecn_decide(&c, qs[i], AIF_ECN_NOT_ECT, false,
							&rng, &ctr),
					 AIF_ECN_DROP);
		}
		assert_true(rng.s == s9);
		assert_true(ctr.ce_marked == N_PKTS && ctr.wred_drops == N_PKTS);
	}

	/* HPCC: at q == Kmax the probability is Pmax, not 1 */
	hits = run_depth(&c, 400 * KB, AIF_ECN_ECT0, false, 11, AIF_ECN_MARK, &ctr);
	print_message("q == Kmax, Pmax 0.2: marked %.5f (HPCC rule: Pmax)\n",
		      (double)hits / N_PKTS);
	assert_true(fabs((double)hits / N_PKTS - 0.2) <= 3 * se);

	/* with Pmax 1, q == Kmax marks every packet */
	c = cfg_of(100 * KB, 400 * KB, 1.0, AIF_ECN_MODE_ECN);
	hits = run_depth(&c, 400 * KB, AIF_ECN_ECT0, false, 12, AIF_ECN_MARK, &ctr);
	assert_int_equal(hits, N_PKTS);

	/* a step at K (Kmin == Kmax): K passes, K + 1 marks, no draws */
	c = cfg_of(65 * KB, 65 * KB, 0.3, AIF_ECN_MODE_ECN);
	aif_rng_seed(&rng, 13);
	uint64_t s13 = rng.s;
	memset(&ctr, 0, sizeof(ctr));
	assert_int_equal(aif_ecn_decide(&c, 65 * KB, AIF_ECN_ECT1, false, &rng, &ctr),
			 AIF_ECN_PASS);
	assert_int_equal(aif_ecn_decide(&c, 65 * KB + 1, AIF_ECN_ECT1, false, &rng, &ctr),
			 AIF_ECN_MARK);
	assert_true(rng.s == s13);

	/* Pmax 0: nothing in the band, everything above Kmax */
	c = cfg_of(100 * KB, 400 * KB, 0.0, AIF_ECN_MODE_ECN);
	hits = run_depth(&c, 400 * KB, AIF_ECN_ECT0, false, 14, AIF_ECN_MARK, &ctr);
	assert_int_equal(hits, 0);
	hits = run_depth(&c, 400 * KB + 1, AIF_ECN_ECT0, false, 14, AIF_ECN_MARK, &ctr);
	assert_int_equal(hits, N_PKTS);
}

/* ---- the codepoint rules ---- */

/* Not-ECT on a lossless queue is never dropped, at any depth. */
static void
test_not_ect_lossless(void **state)
{
	const uint32_t qs[] = { 0, 100 * KB, 250 * KB, 400 * KB, 400 * KB + 1, UINT32_MAX };
	struct aif_ecn_config c = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_ECN);
	struct aif_ecn_ctr ctr;
	unsigned i, hits;

	(void)state;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		hits = run_depth(&c, qs[i], AIF_ECN_NOT_ECT, true, 20 + i, AIF_ECN_DROP, &ctr);
		assert_int_equal(hits, 0);
		assert_true(ctr.wred_drops == 0);
		if (qs[i] > 400 * KB)
			assert_true(ctr.not_ect_lossless_passed == N_PKTS);
		if (qs[i] <= 100 * KB)
			assert_true(ctr.not_ect_lossless_passed == 0);
	}
	/* in the band the counter follows the curve (q = Kmin + 50%, p 0.1) */
	run_depth(&c, 250 * KB, AIF_ECN_NOT_ECT, true, 5011, AIF_ECN_DROP, &ctr);
	assert_true(fabs((double)ctr.not_ect_lossless_passed / N_PKTS - 0.1) <=
		    3 * root(0.1 * 0.9 / N_PKTS));
	/* same seed and depth as the lossy drop run: exactly as many */
	{
		struct aif_ecn_ctr lossy;
		unsigned drops = run_depth(&c, 250 * KB, AIF_ECN_NOT_ECT, false, 5011,
					   AIF_ECN_DROP, &lossy);

		assert_true(ctr.not_ect_lossless_passed == drops);
	}
	/* ECT on a lossless queue is still marked */
	hits = run_depth(&c, UINT32_MAX, AIF_ECN_ECT0, true, 30, AIF_ECN_MARK, &ctr);
	assert_int_equal(hits, N_PKTS);
}

/* CE on arrival: passes (never re-marked, never dropped) and is counted. */
static void
test_ce_on_arrival(void **state)
{
	const uint32_t qs[] = { 0, 250 * KB, 400 * KB + 1 };
	struct aif_ecn_config c = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_ECN);
	struct aif_ecn_ctr ctr;
	unsigned i, lossless;

	(void)state;
	for (lossless = 0; lossless < 2; lossless++)
		for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
			unsigned hits = run_depth(&c, qs[i], AIF_ECN_CE, lossless, 40 + i,
						  AIF_ECN_MARK, &ctr);

			assert_int_equal(hits, 0);
			assert_true(ctr.ce_on_arrival == N_PKTS);
			assert_true(ctr.ce_marked == 0 && ctr.wred_drops == 0 &&
				    ctr.ect_seen == 0 && ctr.not_ect_lossless_passed == 0);
		}
	/* only the low two bits are read: TOS 0x6b (DSCP 26, CE) is CE */
	memset(&ctr, 0, sizeof(ctr));
	{
		struct aif_rng rng;

		aif_rng_seed(&rng, 1);
		assert_int_equal(aif_ecn_decide(&c, UINT32_MAX, 0x6b, false, &rng, &ctr),
				 AIF_ECN_PASS);
		assert_int_equal(aif_ecn_decide(&c, UINT32_MAX, 0x69, false, &rng, &ctr),
				 AIF_ECN_MARK); /* ECT(1) */
		assert_int_equal(aif_ecn_decide(&c, UINT32_MAX, 0x68, false, &rng, &ctr),
				 AIF_ECN_DROP); /* Not-ECT */
	}
	assert_true(ctr.ce_on_arrival == 1 && ctr.ect_seen == 1 && ctr.ce_marked == 1 &&
		    ctr.wred_drops == 1);
}

/* Mode WRED ignores ECN (ECT is dropped on lossy); mode OFF passes all. */
static void
test_modes(void **state)
{
	const uint8_t cps[] = { AIF_ECN_NOT_ECT, AIF_ECN_ECT1, AIF_ECN_ECT0, AIF_ECN_CE };
	struct aif_ecn_config w = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_WRED);
	struct aif_ecn_config off = cfg_of(100 * KB, 400 * KB, 0.2, AIF_ECN_MODE_OFF);
	const struct curve_row row = { "WRED mode 100K/400K/0.2", 100 * KB, 400 * KB, 0.2 };
	struct aif_ecn_ctr ctr = { 0 };
	struct aif_rng rng;
	unsigned j, hits;

	(void)state;
	aif_rng_seed(&rng, 50);
	uint64_t s50 = rng.s;
	for (j = 0; j < 4; j++) {
		assert_int_equal(aif_ecn_decide(&w, 400 * KB + 1, cps[j], false, &rng, &ctr),
				 AIF_ECN_DROP);
		assert_int_equal(aif_ecn_decide(&w, 400 * KB + 1, cps[j], true, &rng, &ctr),
				 AIF_ECN_PASS);
		assert_int_equal(aif_ecn_decide(&off, UINT32_MAX, cps[j], false, &rng, &ctr),
				 AIF_ECN_PASS);
		assert_int_equal(aif_ecn_decide(&off, 250 * KB, cps[j], false, &rng, &ctr),
				 AIF_ECN_PASS);
	}
	assert_true(rng.s == s50);
	assert_true(ctr.wred_drops == 4 && ctr.not_ect_lossless_passed == 4 &&
		    ctr.ce_marked == 0);
	assert_true(ctr.ect_seen == 2 * 4 && ctr.ce_on_arrival == 4);

	hits = run_depth(&w, 250 * KB, AIF_ECN_ECT0, false, 51, AIF_ECN_DROP, &ctr);
	check_fraction("drop", &row, 50, hits);
}

/* ---- marking ---- */

static uint64_t hdr_rng = 0x2545f4914f6cdd1dull;

static uint32_t
rnd(void)
{
	hdr_rng ^= hdr_rng >> 12;
	hdr_rng ^= hdr_rng << 25;
	hdr_rng ^= hdr_rng >> 27;
	return (uint32_t)((hdr_rng * 0x2545f4914f6cdd1dull) >> 32);
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

/* Reference checksum, big-endian words, host-order result. */
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

static uint16_t
oc_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/* Checksums before marking; marking lowers them by 0..3 (wrapping at 0). */
static const uint16_t csum_targets[] = {
	0x0000, 0x0001, 0x0002, 0x0003, 0x0004, 0x00ff, 0x0100, 0xfffc, 0xfffd, 0xfffe,
};

static void
test_mark_ipv4(void **state)
{
	uint8_t h[60], want[60];
	unsigned n, i, ihl, per_cp[4] = { 0 }, wraps = 0;

	(void)state;
	for (n = 0; n < RANDOM_HEADERS; n++) {
		uint16_t c0, target;
		uint8_t cp;

		ihl = (5 + rnd() % 11) * 4;
		for (i = 0; i < ihl; i++)
			h[i] = (uint8_t)rnd();
		h[0] = (uint8_t)(0x40 | ihl / 4);
		put16(h + 10, 0);
		if (n % 4 == 0) {
			/* steer the checksum with the id field (bytes 4-5) */
			target = csum_targets[(n / 4) % (sizeof(csum_targets) / 2)];
			put16(h + 4, 0);
			c0 = ref_csum(h, ihl);
			put16(h + 4, oc_add((uint16_t)~target, c0));
		}
		put16(h + 10, ref_csum(h, ihl));
		if (n % 4 == 0)
			assert_int_equal(get16(h + 10),
					 csum_targets[(n / 4) % (sizeof(csum_targets) / 2)]);
		cp = h[1] & 3;
		per_cp[cp]++;
		assert_int_equal(aif_ecn_bits(h, 0), cp);

		memcpy(want, h, ihl);
		want[1] |= 3;
		put16(want + 10, 0);
		put16(want + 10, ref_csum(want, ihl));
		if (get16(want + 10) > get16(h + 10))
			wraps++;

		aif_ecn_mark_ce(h, 0);
		assert_memory_equal(h, want, ihl);
		assert_int_equal(aif_ecn_bits(h, 0), AIF_ECN_CE);
		assert_int_equal(aif_ipv4_csum(h, ihl), 0);
		/* marking again changes nothing */
		aif_ecn_mark_ce(h, 0);
		assert_memory_equal(h, want, ihl);
	}
	for (i = 0; i < 4; i++)
		assert_true(per_cp[i] > RANDOM_HEADERS / 5);
	assert_true(wraps > 0); /* the 0x0000 wrap was exercised */
	print_message("IPv4: %u headers (IHL 5..15), checksum wrapped past 0 in %u\n",
		      RANDOM_HEADERS, wraps);

	/* a known vector: 45 00 ... csum b861, TOS 0x02 -> 0x03 lowers it by 1 */
	{
		uint8_t v[20] = { 0x45, 0x02, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
				  0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
				  0xc0, 0xa8, 0x00, 0xc7 };

		put16(v + 10, ref_csum(v, 20));
		assert_int_equal(get16(v + 10), 0xb85f);
		aif_ecn_mark_ce(v, 0);
		assert_int_equal(v[1], 0x03);
		assert_int_equal(get16(v + 10), 0xb85e);
	}
}

static void
test_mark_ipv6(void **state)
{
	uint8_t h[40], want[40];
	unsigned n, i;

	(void)state;
	for (n = 0; n < RANDOM_HEADERS / 4; n++) {
		uint32_t w0, w1;

		for (i = 0; i < 40; i++)
			h[i] = (uint8_t)rnd();
		h[0] = (uint8_t)(0x60 | (h[0] & 0x0f));
		memcpy(want, h, 40);
		w0 = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
		assert_int_equal(aif_ecn_bits(h, 1), (w0 >> 20) & 3);

		aif_ecn_mark_ce(h, 1);
		w1 = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
		assert_int_equal(w1, w0 | (3u << 20));          /* bits 20-21 set */
		assert_int_equal(w1 >> 28, 6);                   /* version */
		assert_int_equal((w1 >> 22) & 0x3f, (w0 >> 22) & 0x3f); /* DSCP */
		assert_int_equal(w1 & 0xfffff, w0 & 0xfffff);   /* flow label */
		assert_memory_equal(h + 4, want + 4, 36);
		assert_int_equal(aif_ecn_bits(h, 1), AIF_ECN_CE);
	}
	/* DSCP 26 ECT(0): traffic class 0x6a -> 0x6b */
	{
		uint8_t v[4] = { 0x66, 0xa1, 0x23, 0x45 };

		aif_ecn_mark_ce(v, 1);
		assert_int_equal(v[0], 0x66);
		assert_int_equal(v[1], 0xb1);
		assert_int_equal(v[2], 0x23);
		assert_int_equal(v[3], 0x45);
	}
}

/* Decide + mark together, as the integrator will. */
static void
test_decide_then_mark(void **state)
{
	struct aif_ecn_config c = cfg_of(10 * KB, 100 * KB, 0.01, AIF_ECN_MODE_ECN);
	struct aif_ecn_ctr ctr = { 0 };
	struct aif_rng rng;
	uint8_t h[20] = { 0x45, 0x6a, 0x04, 0x00, 0x12, 0x34, 0x40, 0x00,
			  0x40, 0x11, 0x00, 0x00, 10, 0, 0, 1, 10, 0, 0, 2 };

	(void)state;
	put16(h + 10, ref_csum(h, 20));
	aif_rng_seed(&rng, 60);
	if (aif_ecn_decide(&c, 100 * KB + 1, aif_ecn_bits(h, 0), false, &rng, &ctr) ==
	    AIF_ECN_MARK)
		aif_ecn_mark_ce(h, 0);
	assert_int_equal(h[1], 0x6b);
	assert_int_equal(aif_ipv4_csum(h, 20), 0);
	/* the next hop sees CE: passes, counted as CE on arrival */
	assert_int_equal(aif_ecn_decide(&c, 100 * KB + 1, aif_ecn_bits(h, 0), false, &rng,
					&ctr),
			 AIF_ECN_PASS);
	assert_true(ctr.ect_seen == 1 && ctr.ce_marked == 1 && ctr.ce_on_arrival == 1);
}

static void
test_ctr_names(void **state)
{
	static const char *const want[] = { "ect_seen", "ce_marked", "ce_on_arrival",
					    "wred_drops", "not_ect_lossless_passed" };
	unsigned i;

	(void)state;
	assert_int_equal(aif_ecn_ctr_n, 5);
	assert_int_equal(AIF_ECN_CTR_WORDS, 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(aif_ecn_ctr_names[i], want[i]);
}

/* ns-3 marks on the queue's bytes beyond 1,049 (qmin_bytes): the
 * boundaries move up by qmin, the probabilities with them. */
static void
test_qmin(void **state)
{
	struct aif_ecn_params p = { .kmin_bytes = 100 * KB, .kmax_bytes = 400 * KB,
				    .pmax = 0.2, .mode = AIF_ECN_MODE_ECN,
				    .mark_point = AIF_ECN_AT_DEQUEUE, .qmin_bytes = 1049 };
	struct aif_ecn_config c, c0;
	struct aif_ecn_ctr ctr = { 0 };
	struct aif_rng rng;

	(void)state;
	assert_int_equal(aif_ecn_config_init(&c, &p), 0);
	p.qmin_bytes = 0;
	assert_int_equal(aif_ecn_config_init(&c0, &p), 0);
	assert_int_equal(c.kmin_bytes, 100 * KB + 1049);
	assert_int_equal(c.kmax_bytes, 400 * KB + 1049);
	assert_true(c.slope == c0.slope);
	aif_rng_seed(&rng, 9);
	/* 400,000 + 1,049 + 1: over Kmax only with the minimum taken off
	 * ... i.e. q' = 400,001: always marked; q = 400,001 without qmin too,
	 * but with it q' = 398,952: marked with p < 0.2 only */
	assert_int_equal(aif_ecn_decide(&c, 400 * KB + 1050, AIF_ECN_ECT0, false, &rng, &ctr),
			 AIF_ECN_MARK);
	unsigned marks = 0, marks0 = 0;
	for (unsigned i = 0; i < 10000; i++) {
		marks += aif_ecn_decide(&c, 400 * KB + 1, AIF_ECN_ECT0, false, &rng, &ctr) ==
			 AIF_ECN_MARK;
		marks0 += aif_ecn_decide(&c0, 400 * KB + 1, AIF_ECN_ECT0, false, &rng, &ctr) ==
			  AIF_ECN_MARK;
	}
	assert_int_equal(marks0, 10000);
	assert_true(marks > 1700 && marks < 2300);
	/* 100,000 + 1,049 is not above Kmin: no draw */
	uint64_t s = rng.s;
	assert_int_equal(aif_ecn_decide(&c, 100 * KB + 1049, AIF_ECN_ECT0, false, &rng, &ctr),
			 AIF_ECN_PASS);
	assert_true(rng.s == s);
	/* saturation */
	p.kmax_bytes = UINT32_MAX;
	p.qmin_bytes = 5;
	assert_int_equal(aif_ecn_config_init(&c, &p), 0);
	assert_int_equal(c.kmax_bytes, UINT32_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_fixed_point_values),
		cmocka_unit_test(test_config_fixed_point_exhaustive),
		cmocka_unit_test(test_mark_fraction),
		cmocka_unit_test(test_wred_drop_fraction),
		cmocka_unit_test(test_seeded_repeatable),
		cmocka_unit_test(test_below_kmin),
		cmocka_unit_test(test_qmin),
		cmocka_unit_test(test_at_and_above_kmax),
		cmocka_unit_test(test_not_ect_lossless),
		cmocka_unit_test(test_ce_on_arrival),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_mark_ipv4),
		cmocka_unit_test(test_mark_ipv6),
		cmocka_unit_test(test_decide_then_mark),
		cmocka_unit_test(test_ctr_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
