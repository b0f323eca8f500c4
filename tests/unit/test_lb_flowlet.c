/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_flowlet.c: the flowlet scheme and its table.
 * No EAL: groups, members, a calloc'ed aif_lb_state and an aif_lb_ctx are
 * built by hand; time is the number the test puts in ctx.now_ns; random
 * numbers come from seeded xorshifts (one for the scheme, one for the test),
 * so every figure is exact and repeats.
 *
 *   - Gaps below flowlet_gap_ns never move a flow: 10,000 packets, random
 *     gaps in [0, gap); one flowlet start, no reselection.
 *   - LetFlow: after a gap in [gap, aging), the member changes with
 *     probability (n-1)/n: 20,000 flowlet boundaries for n = 2, 4, 8, within
 *     3 standard errors root(p(1-p)/N); reselections equal the changes.
 *   - least_loaded: a new flowlet takes the member with the fewest queued
 *     bytes; ties spread over the tied members only.
 *   - Aging frees an entry (no collision, no reselection); a live entry of
 *     another key or group is a collision, taken over.
 *   - Counters exact in a scripted case, gap boundary included.
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

#define GAP_NS (100 * AIF_NS_PER_US)
#define AGE_NS (2 * AIF_NS_PER_MS)
#define SLOT0 100u /* member i has ctr_slot SLOT0 + i */

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

/* Square root by Newton's method: the build does not link libm. */
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

static struct fix *
fix_new(uint16_t n, uint8_t mode, uint32_t table_size)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->st = calloc(1, sizeof(*f->st));
	assert_non_null(f->st);
	f->g.n = n;
	f->g.scheme = AIF_LB_FLOWLET;
	for (uint16_t i = 0; i < n; i++) {
		f->mem[i].port = i;
		f->mem[i].ctr_slot = SLOT0 + i;
	}
	f->p.scheme = AIF_LB_FLOWLET;
	f->p.flowlet_gap_ns = GAP_NS;
	f->p.flowlet_age_ns = AGE_NS;
	f->p.flowlet_table_size = table_size;
	f->p.flowlet_mode = mode;
	aif_rng_seed(&f->rng, 0xf10e1e75eedull);
	f->x.st = f->st;
	f->x.p = &f->p;
	f->x.port_qbytes = f->qb;
	f->x.rng = &f->rng;
	f->x.group = 3;
	return f;
}

static void
fix_free(struct fix *f)
{
	free(f->st);
	free(f);
}

static uint32_t
sel(struct fix *f, uint32_t hash, aif_time_ns now_ns)
{
	uint32_t r;

	f->pkt.hash = hash;
	f->x.now_ns = now_ns;
	r = aif_lb_flowlet_select(&f->g, f->mem, NULL, &f->pkt, &f->x);
	assert_true(r < f->g.n);
	return r;
}

static uint64_t
sum(const uint64_t *a, unsigned n)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* 10,000 packets, gaps uniformly in [0, gap): one flowlet. */
static void
test_short_gaps_keep_member(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_RANDOM, 4096);
	struct aif_rng gaps;
	aif_time_ns t = 5 * AIF_NS_PER_MS;
	uint32_t first;

	(void)state;
	aif_rng_seed(&gaps, 77);
	first = sel(f, 0xabcdef12u, t);
	for (int i = 0; i < 10000; i++) {
		t += aif_rng_below(&gaps, (uint32_t)GAP_NS); /* 0 .. gap-1 */
		assert_int_equal(sel(f, 0xabcdef12u, t), first);
	}
	assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), 1);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + first], 1);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 0);
	assert_int_equal(f->st->flowlet_collisions, 0);
	fix_free(f);
}

/*
 * LetFlow: after a gap in [gap, aging) the new flowlet's member is uniform,
 * so it differs from the old one with probability (n-1)/n.
 */
static void
test_random_change_rate(void **state)
{
	static const uint16_t ns[] = { 2, 4, 8 };
	const unsigned boundaries = 20000;

	(void)state;
	for (unsigned k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		struct fix *f = fix_new(ns[k], AIF_FLOWLET_RANDOM, 4096);
		struct aif_rng gaps;
		aif_time_ns t = 0;
		unsigned changes = 0;
		uint32_t cur, prev;

		aif_rng_seed(&gaps, 1000 + k);
		cur = sel(f, 0x13579bdfu, t);
		for (unsigned b = 0; b < boundaries; b++) {
			/* a few packets inside the flowlet ... */
			for (int i = 0; i < 3; i++) {
				t += aif_rng_below(&gaps, (uint32_t)GAP_NS);
				assert_int_equal(sel(f, 0x13579bdfu, t), cur);
			}
			/* ... then a gap in [gap, aging) */
			t += GAP_NS + aif_rng_below(&gaps, (uint32_t)(AGE_NS - GAP_NS));
			prev = cur;
			cur = sel(f, 0x13579bdfu, t);
			changes += cur != prev;
		}
		double p = (double)(ns[k] - 1) / ns[k];
		double rate = (double)changes / boundaries;
		double se = root(p * (1 - p) / boundaries);
		print_message("flowlet random n=%u: P(change) %.5f expected %.5f "
			      "(SE %.5f, %+.2f SE) over %u boundaries\n",
			      ns[k], rate, p, se, (rate - p) / se, boundaries);
		assert_true(rate > p - 3 * se && rate < p + 3 * se);
		assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), changes);
		assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS),
				 boundaries + 1);
		assert_int_equal(f->st->flowlet_collisions, 0);
		fix_free(f);
	}
}

/* A new flowlet takes the member whose port has the fewest queued bytes. */
static void
test_least_loaded(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_LEAST_LOADED, 4096);
	unsigned count[8] = { 0 };

	(void)state;
	for (int i = 0; i < 8; i++)
		f->qb[i] = 1000000;
	f->qb[5] = 4096;
	/* 2000 distinct flows: all on member 5 */
	for (uint32_t h = 0; h < 2000; h++)
		assert_int_equal(sel(f, h * 0x9E3779B1u, 0), 5);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + 5], 2000);

	/* ties between members 2 and 6 (empty): only they, both used */
	f->qb[5] = 1000000;
	f->qb[2] = 0;
	f->qb[6] = 0;
	for (uint32_t h = 0; h < 2000; h++)
		count[sel(f, h * 0x9E3779B1u, 10 * AIF_NS_PER_MS)]++;
	print_message("least_loaded ties (members 2, 6): %u / %u of 2000 flows\n",
		      count[2], count[6]);
	assert_int_equal(count[2] + count[6], 2000);
	/* binomial(2000, 1/2): mean 1000, SE 22.4; 5 SE */
	assert_true(count[2] > 1000 - 112 && count[2] < 1000 + 112);

	/* all tied: every member in use */
	memset(f->qb, 0, sizeof(f->qb));
	memset(count, 0, sizeof(count));
	for (uint32_t h = 0; h < 8000; h++)
		count[sel(f, h * 0x9E3779B1u, 20 * AIF_NS_PER_MS)]++;
	for (int i = 0; i < 8; i++)
		assert_true(count[i] > 1000 - 5 * 30 && count[i] < 1000 + 5 * 30);
	fix_free(f);
}

/* An entry idle for aging or longer is free; younger, another key collides. */
static void
test_aging_and_collisions(void **state)
{
	struct fix *f = fix_new(8, AIF_FLOWLET_RANDOM, 16);
	const uint32_t a = 0x00000105u, b = 0x00000205u; /* same entry (5) of 16 */
	aif_time_ns t = 0;

	(void)state;
	sel(f, a, t);
	/* b at exactly aging after a: a's entry is free, no collision */
	t += AGE_NS;
	sel(f, b, t);
	assert_int_equal(f->st->flowlet_collisions, 0);
	/* a one ns before b's entry ages: a collision, a takes it over */
	t += AGE_NS - 1;
	sel(f, a, t);
	assert_int_equal(f->st->flowlet_collisions, 1);
	/* a again, inside its flowlet: its own entry now, no collision */
	t += 1;
	sel(f, a, t);
	assert_int_equal(f->st->flowlet_collisions, 1);
	/* 100 alternations a, b within the gap: each one a collision */
	for (int i = 0; i < 100; i++) {
		t += 10;
		sel(f, (i & 1) ? a : b, t);
	}
	assert_int_equal(f->st->flowlet_collisions, 101);
	/* the same hash through another group: another flow, a collision */
	t += 10;
	f->x.group = 4;
	sel(f, a, t);
	assert_int_equal(f->st->flowlet_collisions, 102);
	f->x.group = 3;

	/* a flow that returns after aging is a new flow: member changes (often,
	 * random) count no reselection */
	unsigned changes = 0;
	uint32_t cur = sel(f, 0x77u, t += AGE_NS);
	uint64_t starts0 = sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS);
	for (int i = 0; i < 200; i++) {
		uint32_t m = sel(f, 0x77u, t += AGE_NS + (aif_time_ns)i);
		changes += m != cur;
		cur = m;
	}
	print_message("aged returns: %u of 200 changed member, 0 reselections\n", changes);
	assert_true(changes > 100);
	assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), 0);
	assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), starts0 + 200);
	assert_int_equal(f->st->flowlet_collisions, 102);
	fix_free(f);
}

/* A scripted case (least_loaded: no random draw matters), counters exact. */
static void
test_counters_exact(void **state)
{
	struct fix *f = fix_new(4, AIF_FLOWLET_LEAST_LOADED, 16);
	const uint32_t a = 0x00000a03u, b = 0x00000b03u; /* same entry (3) */
	uint64_t starts[4] = { 0 }, resel[4] = { 0 }, coll = 0;
	aif_time_ns t = 1000;

	(void)state;
	for (int i = 0; i < 4; i++)
		f->qb[i] = 50000;
#define LIGHT(i) do { for (int j_ = 0; j_ < 4; j_++) f->qb[j_] = 50000; f->qb[i] = 100; } while (0)
#define CHECK() do { \
		for (int i_ = 0; i_ < 4; i_++) { \
			assert_int_equal(f->st->flowlet_starts[SLOT0 + i_], starts[i_]); \
			assert_int_equal(f->st->reselections[SLOT0 + i_], resel[i_]); \
		} \
		assert_int_equal(f->st->flowlet_collisions, coll); \
		assert_int_equal(sum(f->st->flowlet_starts, AIF_MAX_MEMBER_SLOTS), \
				 starts[0] + starts[1] + starts[2] + starts[3]); \
		assert_int_equal(sum(f->st->reselections, AIF_MAX_MEMBER_SLOTS), \
				 resel[0] + resel[1] + resel[2] + resel[3]); \
	} while (0)

	LIGHT(2);
	assert_int_equal(sel(f, a, t), 2);          /* new flow */
	starts[2]++;
	CHECK();
	LIGHT(1);
	assert_int_equal(sel(f, a, t += GAP_NS - 1), 2); /* gap - 1: same flowlet */
	CHECK();
	assert_int_equal(sel(f, a, t += GAP_NS), 1); /* gap: new flowlet, moved */
	starts[1]++;
	resel[1]++;
	CHECK();
	assert_int_equal(sel(f, a, t += GAP_NS), 1); /* new flowlet, same member */
	starts[1]++;
	CHECK();
	LIGHT(3);
	assert_int_equal(sel(f, a, t += 10), 1);     /* open flowlet keeps member */
	CHECK();
	assert_int_equal(sel(f, b, t += 10), 3);     /* b evicts a */
	starts[3]++;
	coll++;
	CHECK();
	LIGHT(0);
	assert_int_equal(sel(f, a, t += 10), 0);     /* a evicts b: not a reselection */
	starts[0]++;
	coll++;
	CHECK();
	LIGHT(2);
	assert_int_equal(sel(f, a, t += AGE_NS), 2); /* aged: a new flow */
	starts[2]++;
	CHECK();
	assert_int_equal(sel(f, a, t += AGE_NS - 1), 2); /* known flow, same member */
	starts[2]++;
	CHECK();
	LIGHT(3);
	assert_int_equal(sel(f, a, t += AGE_NS - 1), 3); /* known flow, moved */
	starts[3]++;
	resel[3]++;
	CHECK();
	/* the group shrinks under a new table: an open flowlet on member 3 of a
	 * 3-member group picks again */
	f->g.n = 3;
	LIGHT(1);
	assert_int_equal(sel(f, a, t += 1), 1);
	starts[1]++;
	resel[1]++;
	CHECK();
#undef LIGHT
#undef CHECK
	fix_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_gaps_keep_member),
		cmocka_unit_test(test_random_change_rate),
		cmocka_unit_test(test_least_loaded),
		cmocka_unit_test(test_aging_and_collisions),
		cmocka_unit_test(test_counters_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
