/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dataplane/clock.c without EAL: the virtual clock and the pacing of a
 * real-time runner (struct aif_clock_pace), time given as an argument.
 *
 *  - virtual: advances and sets only forwards;
 *  - pacing off (quantum 0): every step at the time it is given;
 *  - on time (steps closer than the quantum): emulated = real, no lag;
 *  - a late step advances one quantum, the rest is lag, kept from then on
 *    (never made up: emulated time then runs at real time's pace);
 *  - two runners sharing the lag: one's late step slows the other, whose
 *    time never goes back but waits for real time to catch up;
 *  - a burst's stamp is real - lag, within [now, now + quantum];
 *  - the emulation starts at its start, not the first step: a late
 *    launch is a late step;
 *  - runners held together: none past the slowest's time plus the
 *    lookahead, the lag grown when held long, progress by turns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "clock.h"

static void
test_virtual(void **state)
{
	struct aif_clock c;

	(void)state;
	aif_clock_init_virtual(&c, 100);
	assert_int_equal(aif_clock_now(&c), 100);
	aif_clock_advance(&c, 5);
	assert_int_equal(aif_clock_now(&c), 105);
	aif_clock_set(&c, 50); /* never backwards */
	assert_int_equal(aif_clock_now(&c), 105);
	aif_clock_set(&c, 200);
	assert_int_equal(aif_clock_now(&c), 200);
}

static void
test_pace_off(void **state)
{
	struct aif_clock_pace p;

	(void)state;
	aif_clock_pace_init(&p, 0, 0, NULL);
	assert_int_equal(aif_clock_pace_step(&p, 1000), 1000);
	assert_int_equal(aif_clock_pace_step(&p, 5000000), 5000000);
	assert_int_equal(p.late_steps, 0);
	assert_int_equal(aif_clock_pace_stamp(&p, 5000123), 5000123);
}

static void
test_pace_late(void **state)
{
	struct aif_clock_pace p;

	(void)state;
	aif_clock_pace_init(&p, 4000, 2000000, NULL);
	/* the first step, at the start */
	assert_int_equal(aif_clock_pace_step(&p, 2000000), 2000000);
	assert_int_equal(p.behind_ns, 0);
	/* on time: steps 1 us apart */
	assert_int_equal(aif_clock_pace_step(&p, 2001000), 2001000);
	assert_int_equal(aif_clock_pace_step(&p, 2004999), 2004999);
	assert_int_equal(p.late_steps, 0);
	/* exactly one quantum later: still on time */
	assert_int_equal(aif_clock_pace_step(&p, 2008999), 2008999);
	assert_int_equal(p.late_steps, 0);
	/* 10 ms late: one quantum, the rest is lag */
	assert_int_equal(aif_clock_pace_step(&p, 12008999), 2012999);
	assert_int_equal(p.behind_ns, 9996000);
	assert_int_equal(p.late_steps, 1);
	assert_int_equal(p.late_max_ns, 9996000);
	/* then on time again: real time's pace, the lag kept */
	assert_int_equal(aif_clock_pace_step(&p, 12010000), 2014000);
	assert_int_equal(aif_clock_pace_step(&p, 12013000), 2017000);
	assert_int_equal(p.behind_ns, 9996000);
	assert_int_equal(p.late_steps, 1);
	/* a second late step adds to it */
	assert_int_equal(aif_clock_pace_step(&p, 12113000), 2021000);
	assert_int_equal(p.behind_ns, 10092000);
	assert_int_equal(p.late_steps, 2);
	assert_int_equal(p.late_max_ns, 9996000);
	/* stamps: real - lag, never before the step nor past a quantum after */
	assert_int_equal(aif_clock_pace_stamp(&p, 12114000), 2022000);
	assert_int_equal(aif_clock_pace_stamp(&p, 12112000), 2021000);
	assert_int_equal(aif_clock_pace_stamp(&p, 13000000), 2025000);
}

static void
test_pace_shared(void **state)
{
	aif_time_ns shared = 0;
	struct aif_clock_pace a, b;

	(void)state;
	aif_clock_pace_init(&a, 1000, 10000, &shared);
	aif_clock_pace_init(&b, 1000, 10000, &shared);
	assert_int_equal(aif_clock_pace_step(&a, 10000), 10000);
	assert_int_equal(aif_clock_pace_step(&b, 10500), 10500);
	/* a is 1 ms late: the lag is everyone's */
	assert_int_equal(aif_clock_pace_step(&a, 1010000), 11000);
	assert_int_equal(shared, 999000);
	/* b, on time by its own steps, now runs 999 us behind too: its time
	 * (real 1010200 - 999000 = 11200) goes on from there */
	assert_int_equal(aif_clock_pace_step(&b, 1010200), 11200);
	assert_int_equal(b.late_steps, 0);
	/* b late by less than a: its own lag is below the shared one, which
	 * stays the larger */
	assert_int_equal(aif_clock_pace_step(&b, 1013000), 12200);
	assert_int_equal(b.behind_ns, 1000800);
	assert_int_equal(shared, 1000800);
	/* a's time never goes back: it waits until real time passes its own */
	assert_int_equal(aif_clock_pace_step(&a, 1011500), 11000);
	assert_int_equal(aif_clock_pace_step(&a, 1012000), 11200);
}

/*
 * The emulation starts at its start (when the hosts' jobs were given their
 * times), not at the first step: a runner launched late makes a late step
 * (one quantum, the rest lag), and a step before the start waits for it.
 */
static void
test_pace_start(void **state)
{
	aif_time_ns shared = 0;
	struct aif_clock_pace p, a, b;

	(void)state;
	aif_clock_pace_init(&p, 4000, 1000, NULL);
	/* launched 5 ms after the start */
	assert_int_equal(aif_clock_pace_step(&p, 5001000), 5000);
	assert_int_equal(p.behind_ns, 4996000);
	assert_int_equal(p.late_steps, 1);
	assert_int_equal(p.late_max_ns, 4996000);
	assert_int_equal(aif_clock_pace_step(&p, 5003000), 7000);
	assert_int_equal(p.late_steps, 1);
	/* a first step before the start waits for it */
	aif_clock_pace_init(&p, 4000, 10000, NULL);
	assert_int_equal(aif_clock_pace_step(&p, 5000), 10000);
	assert_int_equal(p.late_steps, 0);
	assert_int_equal(aif_clock_pace_step(&p, 12000), 12000);
	/* shared: two runners launched 1 ms after the start; the first to
	 * step takes the lag, the other's first step follows it */
	aif_clock_pace_init(&a, 1000, 0, &shared);
	aif_clock_pace_init(&b, 1000, 0, &shared);
	assert_int_equal(aif_clock_pace_step(&a, 1000000), 1000);
	assert_int_equal(shared, 999000);
	assert_int_equal(aif_clock_pace_step(&b, 1000000), 1000);
	assert_int_equal(b.late_steps, 0);
	assert_int_equal(aif_clock_pace_step(&b, 1000400), 1400);
}

/*
 * Runners held together (aif_clock_pace_hold): a step goes no further than
 * the slowest other runner's published time plus the lookahead; its
 * stamps neither.  A held step is not late; held more than a quantum short
 * of real time, the shared lag grows by the rest.  Two runners held by
 * each other still advance, by turns.
 */
static void
test_pace_hold(void **state)
{
	aif_time_ns shared = 0;
	struct aif_clock_peer peers[2] = { { 0 }, { 0 } }, one[1] = { { 0 } };
	struct aif_clock_pace a, b, c;

	(void)state;
	aif_clock_pace_init(&a, 4000, 1000000, &shared);
	aif_clock_pace_init(&b, 4000, 1000000, &shared);
	aif_clock_pace_hold(&a, peers, 2, 0, 1000);
	aif_clock_pace_hold(&b, peers, 2, 1, 1000);
	assert_int_equal(peers[0].now_ns, 1000000);
	assert_int_equal(peers[1].now_ns, 1000000);
	/* within the lookahead of b: on time; its stamps not past b's + 1 us */
	assert_int_equal(aif_clock_pace_step(&a, 1000500), 1000500);
	assert_int_equal(peers[0].now_ns, 1000500);
	assert_int_equal(aif_clock_pace_stamp(&a, 1000700), 1000700);
	assert_int_equal(aif_clock_pace_stamp(&a, 1003000), 1001000);
	/* b off its core: a held at b's time + 1 us, not late */
	assert_int_equal(aif_clock_pace_step(&a, 1003000), 1001000);
	assert_int_equal(a.held_steps, 1);
	assert_int_equal(a.late_steps, 0);
	assert_int_equal(shared, 0);
	/* held 9 us, more than a quantum short of real time: the lag grows
	 * by the rest (9 us - 4 us) */
	assert_int_equal(aif_clock_pace_step(&a, 1010000), 1001000);
	assert_int_equal(a.held_steps, 2);
	assert_int_equal(a.late_steps, 0);
	assert_int_equal(shared, 5000);
	/* b back: held by a in turn; each goes 1 us past the other */
	assert_int_equal(aif_clock_pace_step(&b, 1010000), 1002000);
	assert_int_equal(b.held_steps, 1);
	assert_int_equal(b.late_steps, 0);
	assert_int_equal(aif_clock_pace_step(&a, 1010100), 1003000);
	assert_int_equal(aif_clock_pace_step(&b, 1010200), 1004000);
	assert_int_equal(aif_clock_pace_step(&a, 1010300), 1005000);
	/* caught up: b's time is real - lag again, a's is within 1 us */
	assert_int_equal(aif_clock_pace_step(&b, 1010400), 1005400);
	assert_int_equal(b.held_run, 0);
	assert_int_equal(aif_clock_pace_step(&a, 1010900), 1005900);
	assert_int_equal(shared, 5000);
	assert_int_equal(a.late_steps + b.late_steps, 0);
	/* a runner alone in its array is never held: late as without */
	aif_clock_pace_init(&c, 4000, 0, NULL);
	aif_clock_pace_hold(&c, one, 1, 0, 1000);
	assert_int_equal(aif_clock_pace_step(&c, 3000), 3000);
	assert_int_equal(aif_clock_pace_step(&c, 20000), 7000);
	assert_int_equal(c.held_steps, 0);
	assert_int_equal(c.late_steps, 1);
	assert_int_equal(one[0].now_ns, 7000);
}

/*
 * Three runners held together, stepped in a seeded random order at random
 * real times, one of them now and then off its core for a while: none
 * ever goes back, past real time, or past the slowest other's time plus
 * the lookahead (unless it was there already); its stamps neither; what
 * each publishes is its time; and the slowest keeps advancing.
 */
static void
test_pace_hold_random(void **state)
{
	enum { N = 3 };
	aif_time_ns shared = 0, real = 1000000;
	struct aif_clock_peer peers[N];
	struct aif_clock_pace p[N];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned off = N, off_left = 0;

	(void)state;
	memset(peers, 0, sizeof(peers));
	for (unsigned i = 0; i < N; i++) {
		aif_clock_pace_init(&p[i], 4000, real, &shared);
		aif_clock_pace_hold(&p[i], peers, N, i, 1000);
	}
	for (unsigned k = 0; k < 200000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		real += x % 3000;
		if (off_left == 0 && x % 1000 == 0) {
			off = (unsigned)(x >> 20) % N; /* off its core for a while */
			off_left = 500 + (unsigned)(x >> 40) % 5000;
		}
		unsigned i = (unsigned)(x >> 32) % N;
		if (off_left > 0) {
			off_left--;
			if (i == off)
				continue;
		}
		aif_time_ns before = p[i].now_ns, slowest = AIF_TIME_NS_NEVER;
		for (unsigned j = 0; j < N; j++)
			if (j != i && peers[j].now_ns < slowest)
				slowest = peers[j].now_ns;
		aif_time_ns t = aif_clock_pace_step(&p[i], real);
		aif_time_ns bound = slowest + 1000 > before ? slowest + 1000 : before;
		assert_true(t >= before);
		assert_true(t <= real);
		assert_true(t <= bound);
		assert_true(p[i].cap_ns >= t && p[i].cap_ns <= bound);
		assert_int_equal(peers[i].now_ns, t);
		assert_true(aif_clock_pace_stamp(&p[i], real + 500) <= bound);
	}
	aif_time_ns slowest = AIF_TIME_NS_NEVER;
	for (unsigned i = 0; i < N; i++)
		slowest = p[i].now_ns < slowest ? p[i].now_ns : slowest;
	/* no deadlock: the slowest went on (some 10 ms of emulated time in the
	 * 300 ms of real time, off-core spells included; a runner held at
	 * every step moves at most the lookahead past the slowest other) */
	assert_true(slowest > 1000000 + 2000000);
	assert_true(p[0].held_steps > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtual),
		cmocka_unit_test(test_pace_off),
		cmocka_unit_test(test_pace_late),
		cmocka_unit_test(test_pace_shared),
		cmocka_unit_test(test_pace_start),
		cmocka_unit_test(test_pace_hold),
		cmocka_unit_test(test_pace_hold_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
