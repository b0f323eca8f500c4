/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The busy QPs' choice of the next data frame and the earliest timeout
 * (hosts/rhost_busy.c) against the scan of every busy QP it replaces, on
 * random states: the same place, ties included (the first in round-robin
 * order from rr at or before the floor, else the first of the earliest;
 * the lowest place among equal timeouts), through QPs becoming busy,
 * idle (the last moved into the freed place, as busy_del does), changing
 * times, and the trees growing while busy.  Small edge cases by hand: no
 * place, every time never, the floor past or before the times, growing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rhost_busy.h"
#include "rng.h"

#define NEVER UINT64_MAX

/* What the choice was before the trees: one pass over every busy place in
 * round-robin order from rr. */
static void
scan(const uint64_t *ready, const uint64_t *rto, uint32_t n, uint32_t rr, uint64_t floor_ps,
     uint32_t *data_i, uint64_t *best_ps, uint32_t *rto_i, uint64_t *rto_ns)
{
	uint64_t best = NEVER;
	uint32_t best_i = UINT32_MAX, by_floor_i = UINT32_MAX;

	*rto_ns = NEVER;
	*rto_i = UINT32_MAX;
	for (uint32_t k = 0, i = rr % n; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
		if (rto[i] < *rto_ns || (rto[i] == *rto_ns && i < *rto_i)) {
			*rto_ns = rto[i];
			*rto_i = i;
		}
		if (ready[i] < best) {
			best = ready[i];
			best_i = i;
		}
		if (ready[i] <= floor_ps && by_floor_i == UINT32_MAX)
			by_floor_i = i;
	}
	*best_ps = best;
	*data_i = best == NEVER ? UINT32_MAX : by_floor_i != UINT32_MAX ? by_floor_i : best_i;
}

static void
check(const struct rhost_busy *b, const uint64_t *ready, const uint64_t *rto, uint32_t n,
      uint32_t rr, uint64_t floor_ps)
{
	uint32_t di, ri;
	uint64_t best, rto_ns, got_best = 0, got_rto;

	scan(ready, rto, n, rr, floor_ps, &di, &best, &ri, &rto_ns);
	uint32_t gi = rhost_busy_next(b, n, rr % n, floor_ps, &got_best);
	assert_int_equal(gi, di);
	if (di != UINT32_MAX)
		assert_int_equal(got_best, best);
	uint32_t gr = rhost_busy_first_rto(b, n, &got_rto);
	assert_int_equal(gr, ri);
	assert_int_equal(got_rto, rto_ns);
}

/* A time from a few values (ties are the point), or never. */
static uint64_t
some_time(struct aif_rng *r, uint32_t spread)
{
	uint32_t k = aif_rng_below(r, spread + 2);
	return k == spread + 1 ? NEVER : 1000 + (uint64_t)k * 10;
}

static void
random_run(uint64_t seed, uint32_t max_n, uint32_t spread, uint32_t rounds)
{
	struct aif_rng r;
	struct rhost_busy b = {0};
	uint64_t *ready = calloc(max_n, sizeof(*ready)), *rto = calloc(max_n, sizeof(*rto));
	uint32_t n = 0, cap = 0;

	assert_non_null(ready);
	assert_non_null(rto);
	aif_rng_seed(&r, seed);
	for (uint32_t round = 0; round < rounds; round++) {
		uint32_t op = aif_rng_below(&r, 10);
		if (n == cap && cap < max_n) {
			/* the host grows its QPs (by doubling, not always a power of two) */
			cap = cap ? cap * 2 : 3;
			cap = cap > max_n ? max_n : cap;
			assert_int_equal(rhost_busy_reserve(&b, cap), 0);
		}
		if ((op < 3 && n < cap) || n == 0) { /* a QP becomes busy, last */
			ready[n] = some_time(&r, spread);
			rto[n] = some_time(&r, spread);
			rhost_busy_set(&b, n, ready[n], rto[n]);
			n++;
		} else if (op < 5) { /* one goes idle: the last takes its place */
			uint32_t pos = aif_rng_below(&r, n);
			n--;
			ready[pos] = ready[n];
			rto[pos] = rto[n];
			rhost_busy_set(&b, pos, rhost_busy_ready(&b, n), rhost_busy_rto(&b, n));
			rhost_busy_set(&b, n, NEVER, NEVER);
		} else { /* one's times change */
			uint32_t pos = aif_rng_below(&r, n);
			ready[pos] = some_time(&r, spread);
			rto[pos] = some_time(&r, spread);
			rhost_busy_set(&b, pos, ready[pos], rto[pos]);
		}
		if (n == 0)
			continue;
		for (uint32_t k = 0; k < 4; k++) {
			uint32_t rr = aif_rng_below(&r, n + 1); /* rr may equal n (busy_del) */
			uint64_t floor_ps = k == 3 ? 0 : some_time(&r, spread + 2);
			check(&b, ready, rto, n, rr, floor_ps);
		}
	}
	rhost_busy_free(&b);
	free(ready);
	free(rto);
}

static void
test_random_states_match_the_scan(void **state)
{
	(void)state;
	/* few distinct times: many ties; many: few */
	for (uint64_t seed = 1; seed <= 20; seed++)
		random_run(seed, 1 + (uint32_t)(seed * 37 % 300), 1 + (uint32_t)seed % 6, 4000);
	random_run(99, 1100, 40, 20000);
	random_run(100, 2, 1, 500);
	random_run(101, 1, 2, 200);
}

static void
test_edges(void **state)
{
	struct rhost_busy b = {0};
	uint64_t got = 0, rto;

	(void)state;
	assert_int_equal(rhost_busy_next(&b, 0, 0, 0, &got), UINT32_MAX);
	assert_int_equal(rhost_busy_reserve(&b, 5), 0);
	assert_int_equal(b.cap, 8);
	/* every place never: no data frame; the timeout at place 0, never */
	for (uint32_t i = 0; i < 5; i++)
		rhost_busy_set(&b, i, NEVER, NEVER);
	assert_int_equal(rhost_busy_next(&b, 5, 3, 100, &got), UINT32_MAX);
	assert_int_equal(rhost_busy_first_rto(&b, 5, &rto), 0);
	assert_true(rto == NEVER);
	/* a floor past both: the first from rr round of those ready by it,
	 * never the places past the busy ones */
	rhost_busy_set(&b, 1, 500, 7);
	rhost_busy_set(&b, 2, 400, 7);
	assert_int_equal(rhost_busy_next(&b, 5, 3, 600, &got), 1);
	assert_int_equal(got, 400);
	assert_int_equal(rhost_busy_next(&b, 5, 2, 600, &got), 2);
	/* a floor below both: the earliest (2), from anywhere */
	assert_int_equal(rhost_busy_next(&b, 5, 4, 0, &got), 2);
	/* equal timeouts: the lower place */
	assert_int_equal(rhost_busy_first_rto(&b, 5, &rto), 1);
	assert_int_equal(rto, 7);
	/* growing keeps the places */
	assert_int_equal(rhost_busy_reserve(&b, 9), 0);
	assert_int_equal(b.cap, 16);
	assert_int_equal(rhost_busy_next(&b, 5, 4, 0, &got), 2);
	assert_int_equal(rhost_busy_first_rto(&b, 5, &rto), 1);
	rhost_busy_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_states_match_the_scan),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
