/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_spray.c: per-packet spraying.  No EAL: the
 * group, members, a calloc'ed aif_lb_state and the aif_lb_ctx are built by
 * hand; random numbers come from seeded xorshifts, so figures repeat.
 *
 *   - Round robin, n = 1..8, 100,000 packets: after every packet the
 *     per-member counts differ by at most 1, the order is 0, 1, .., n-1, and
 *     two groups keep separate positions.
 *   - Random, n = 8, 100,000 packets: every member within 5 standard errors
 *     of N/n; chi-square printed.
 *   - DRILL (d = 2, n = 8): all ports 1 MB queued but one empty: converges
 *     to the light member and stays there for the rest of 1000 packets
 *     (1000 seeds; convergence packet reported); and, with random queue
 *     depths, every pick equals the lightest of {previous best, the d
 *     samples} with ties to the previous best then the first sample, the
 *     samples replayed from a copy of the random state (n = 2..16, d = 0..4)
 *     (memory "group", "distinct": false).
 *   - DRILL as ConWeave's ns-3: d = 2 distinct samples (never the same
 *     member twice, every ordered pair equally likely: chi-square over the
 *     56 pairs of n = 8), the previous best remembered per destination IP
 *     (two destinations through one group keep two bests; the first packet
 *     to a destination takes the first sample whatever its bytes); and
 *     every pick checked against a replay of the shuffle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lb.h"
#include "rng.h"

#define N_PKTS 100000u
#define MB 1000000u

struct fix {
	struct aif_group g;
	struct aif_member mem[AIF_MAX_MEMBERS];
	struct aif_lb_state *st;
	struct aif_lb_params p;
	uint32_t qb[AIF_MAX_PORTS];
	struct aif_rng rng;
	struct aif_lb_ctx x;
	struct aif_pkt pkt;
};

static double
root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++)
		r = 0.5 * (r + x / r);
	return r;
}

/* Members on ports in reverse order, so member offset != port. */
static struct fix *
fix_new(uint16_t n, uint8_t mode, uint64_t seed)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->st = calloc(1, sizeof(*f->st));
	assert_non_null(f->st);
	f->g.n = n;
	f->g.scheme = AIF_LB_SPRAY;
	for (uint16_t i = 0; i < n; i++) {
		f->mem[i].port = (uint16_t)(n - 1 - i);
		f->mem[i].ctr_slot = 10 + i;
	}
	f->p.scheme = AIF_LB_SPRAY;
	f->p.spray_mode = mode;
	f->p.drill_samples = 2;
	/* the tests below from "group" on use the aif options; ns-3's
	 * (distinct samples, memory per destination) have their own */
	f->p.drill_distinct = false;
	f->p.drill_memory = AIF_DRILL_MEM_GROUP;
	aif_rng_seed(&f->rng, seed);
	f->x.st = f->st;
	f->x.p = &f->p;
	f->x.port_qbytes = f->qb;
	f->x.rng = &f->rng;
	f->x.group = 7;
	return f;
}

static void
fix_free(struct fix *f)
{
	free(f->st);
	free(f);
}

static uint32_t
sel(struct fix *f)
{
	uint32_t r;

	f->pkt.hash = 0x12345678u; /* spray ignores it */
	r = aif_lb_spray_select(&f->g, f->mem, NULL, &f->pkt, &f->x);
	assert_true(r < f->g.n);
	return r;
}

static void
test_round_robin_exact(void **state)
{
	(void)state;
	for (uint16_t n = 1; n <= 8; n++) {
		struct fix *f = fix_new(n, AIF_SPRAY_RR, 1);
		uint32_t count[8] = { 0 }, max = 0, min = 0;

		f->x.group = n;
		for (uint32_t k = 0; k < N_PKTS; k++) {
			uint32_t m = sel(f);
			assert_int_equal(m, k % n);
			count[m]++;
			max = min = count[0];
			for (uint16_t i = 1; i < n; i++) {
				max = count[i] > max ? count[i] : max;
				min = count[i] < min ? count[i] : min;
			}
			assert_true(max - min <= 1);
		}
		print_message("round robin n=%u: %u packets, max-min %u\n", n, N_PKTS, max - min);
		fix_free(f);
	}

	/* two groups keep their own positions */
	struct fix *f = fix_new(4, AIF_SPRAY_RR, 1);
	f->x.group = 1;
	assert_int_equal(sel(f), 0);
	assert_int_equal(sel(f), 1);
	f->x.group = 2;
	assert_int_equal(sel(f), 0);
	f->x.group = 1;
	assert_int_equal(sel(f), 2);
	/* a position past a shrunk group restarts at 0 */
	assert_int_equal(sel(f), 3);
	f->g.n = 3;
	assert_int_equal(sel(f), 0);
	fix_free(f);
}

static void
test_random_uniform(void **state)
{
	const uint16_t n = 8;
	struct fix *f = fix_new(n, AIF_SPRAY_RANDOM, 0xdecafbadull);
	uint32_t count[8] = { 0 };
	double mean = (double)N_PKTS / n;
	double se = root(N_PKTS * (1.0 / n) * (1 - 1.0 / n));
	double chi2 = 0;

	(void)state;
	for (uint32_t k = 0; k < N_PKTS; k++)
		count[sel(f)]++;
	for (uint16_t i = 0; i < n; i++) {
		double d = count[i] - mean;
		chi2 += d * d / mean;
		assert_true(d < 5 * se && d > -5 * se);
	}
	print_message("random n=8: counts %u %u %u %u %u %u %u %u, chi2 %.2f (7 dof)\n",
		      count[0], count[1], count[2], count[3], count[4], count[5],
		      count[6], count[7], chi2);
	/* 7 degrees of freedom: P(chi2 > 24.3) = 0.001 */
	assert_true(chi2 < 24.3);
	fix_free(f);
}

/* One port empty, the rest 1 MB: DRILL finds it and stays. */
static void
test_drill_converges(void **state)
{
	const uint16_t n = 8, light = 5;
	const unsigned seeds = 1000, pkts = 1000;
	unsigned worst = 0, total = 0;

	(void)state;
	for (unsigned s = 0; s < seeds; s++) {
		struct fix *f = fix_new(n, AIF_SPRAY_DRILL, 0xd1111ull + s);
		unsigned first = pkts;

		for (uint16_t i = 0; i < n; i++)
			f->qb[f->mem[i].port] = MB;
		f->qb[f->mem[light].port] = 0;
		for (unsigned k = 0; k < pkts; k++) {
			uint32_t m = sel(f);
			if (first == pkts && m == light)
				first = k;
			if (first != pkts)
				assert_int_equal(m, light); /* stays */
		}
		assert_true(first < pkts);
		assert_int_equal(f->st->drill_best[f->x.group], light);
		worst = first > worst ? first : worst;
		total += first;
		fix_free(f);
	}
	/* P(not found in k packets) = (7/8)^(2k): mean 1/(1-(7/8)^2) = 4.27 */
	print_message("drill d=2 n=8: first on the light member at packet %.2f on "
		      "average (expected 4.27 - 1 = 3.27), worst %u, over %u seeds; "
		      "then on it for the rest of %u packets\n",
		      (double)total / seeds, worst, seeds, pkts);
	assert_true(worst < 60);
}

/* Every pick = the lightest of {previous best, samples}, ties as documented. */
static void
test_drill_never_heavier(void **state)
{
	struct aif_rng qrng;
	unsigned checked = 0, took_prev = 0, took_sample = 0;

	(void)state;
	aif_rng_seed(&qrng, 4242);
	for (uint16_t n = 2; n <= 16; n++) {
		for (uint8_t d = 0; d <= 4; d++) {
			struct fix *f = fix_new(n, AIF_SPRAY_DRILL, 99 + n * 7 + d);

			f->p.drill_samples = d;
			for (unsigned k = 0; k < 2000; k++) {
				/* few distinct depths: ties are frequent */
				for (uint16_t i = 0; i < n; i++)
					f->qb[i] = aif_rng_below(&qrng, 4) * 1500;
				uint32_t prev = f->st->drill_best[f->x.group];
				struct aif_rng replay = f->rng;
				uint32_t want = prev, want_q = f->qb[f->mem[prev].port];
				for (unsigned j = 0; j < (d ? d : 1u); j++) {
					uint32_t s = aif_rng_below(&replay, n);
					if (f->qb[f->mem[s].port] < want_q) {
						want = s;
						want_q = f->qb[f->mem[s].port];
					}
				}
				uint32_t m = sel(f);
				assert_int_equal(m, want);
				assert_int_equal(f->rng.s, replay.s); /* d draws exactly */
				assert_int_equal(f->st->drill_best[f->x.group], m);
				took_prev += m == prev;
				took_sample += m != prev;
				checked++;
			}
			fix_free(f);
		}
	}
	print_message("drill: %u picks checked against the replayed samples "
		      "(%u kept the previous best, %u moved)\n", checked, took_prev, took_sample);
	assert_true(took_prev > 0 && took_sample > 0);
}

/* ns-3's DRILL: d = 2 distinct samples, uniform over the ordered pairs. */
static void
test_drill_distinct(void **state)
{
	const uint16_t n = 8;
	static unsigned pair[8][8];
	struct fix *f = fix_new(n, AIF_SPRAY_DRILL, 0xd15);
	double chi2 = 0;
	unsigned total = 0;

	(void)state;
	f->p.drill_distinct = true;
	for (unsigned k = 0; k < 56000; k++) {
		/* the replayed shuffle: two draws, j0 in [0, 8), j1 in [1, 8) */
		struct aif_rng r = f->rng;
		uint8_t idx[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
		uint32_t j0 = aif_rng_below(&r, n), t;
		t = idx[0]; idx[0] = idx[j0]; idx[j0] = (uint8_t)t;
		uint32_t j1 = 1 + aif_rng_below(&r, n - 1);
		t = idx[1]; idx[1] = idx[j1]; idx[j1] = (uint8_t)t;
		assert_int_not_equal(idx[0], idx[1]);
		/* loads: the second sample always the lighter, the remembered
		 * member heavier than both */
		for (uint16_t i = 0; i < n; i++)
			f->qb[f->mem[i].port] = 3 * MB;
		f->qb[f->mem[idx[0]].port] = 2 * MB;
		f->qb[f->mem[idx[1]].port] = MB;
		assert_int_equal(sel(f), idx[1]);
		assert_int_equal(f->rng.s, r.s); /* two draws exactly */
		pair[idx[0]][idx[1]]++;
		f->st->drill_dst[0].used = 0; /* no memory: forget the best */
		memset(f->st->drill_dst, 0, sizeof(f->st->drill_dst));
	}
	for (unsigned a = 0; a < n; a++)
		for (unsigned b = 0; b < n; b++) {
			if (a == b) {
				assert_int_equal(pair[a][b], 0);
				continue;
			}
			double d = pair[a][b] - 1000.0;
			chi2 += d * d / 1000.0;
			total += pair[a][b];
		}
	assert_int_equal(total, 56000);
	print_message("drill distinct n=8: 56 ordered pairs, chi2 %.1f (55 dof)\n", chi2);
	assert_true(chi2 < 93.2); /* P(chi2 > 93.2) = 0.001 at 55 dof */
	/* with replacement the same member comes twice (1 in 8 picks) */
	f->p.drill_distinct = false;
	unsigned same = 0;
	for (unsigned k = 0; k < 8000; k++) {
		struct aif_rng r = f->rng;
		same += aif_rng_below(&r, n) == aif_rng_below(&r, n);
		sel(f);
	}
	assert_true(same > 800 && same < 1200);
	fix_free(f);
}

/* ns-3's DRILL memory: the previous best per destination IP. */
static void
test_drill_memory_destination(void **state)
{
	const uint16_t n = 4;
	struct fix *f = fix_new(n, AIF_SPRAY_DRILL, 0xde57);

	(void)state;
	f->p.drill_distinct = true;
	f->p.drill_memory = AIF_DRILL_MEM_DESTINATION;
	f->p.drill_samples = 1;
	f->pkt.dst.family = AIF_AF_INET4;
	/* destination A: only member 2 light, until found */
	for (uint16_t i = 0; i < n; i++)
		f->qb[f->mem[i].port] = MB;
	f->qb[f->mem[2].port] = 0;
	memcpy(f->pkt.dst.b, "\x0b\x00\x01\x01", 4);
	unsigned k;
	for (k = 0; k < 200 && sel(f) != 2; k++)
		;
	assert_true(k < 200);
	/* destination B, same group: its first packet takes its one sample
	 * whatever the bytes (no memory of its own: member 2 is not kept) */
	f->qb[f->mem[2].port] = 0;
	memcpy(f->pkt.dst.b, "\x0b\x00\x02\x01", 4);
	struct aif_rng r = f->rng;
	uint32_t s = aif_rng_below(&r, n);
	assert_int_equal(sel(f), s);
	/* A still remembers 2: with 2 the lightest its packets stay there */
	memcpy(f->pkt.dst.b, "\x0b\x00\x01\x01", 4);
	for (k = 0; k < 100; k++)
		assert_int_equal(sel(f), 2);
	/* with memory per group, B's first packet starts from the group's
	 * best (2, the lightest) and stays */
	f->p.drill_memory = AIF_DRILL_MEM_GROUP;
	f->st->drill_best[f->x.group] = 2;
	memcpy(f->pkt.dst.b, "\x0b\x00\x03\x01", 4);
	assert_int_equal(sel(f), 2);
	fix_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin_exact),
		cmocka_unit_test(test_random_uniform),
		cmocka_unit_test(test_drill_converges),
		cmocka_unit_test(test_drill_never_heavier),
		cmocka_unit_test(test_drill_distinct),
		cmocka_unit_test(test_drill_memory_destination),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
