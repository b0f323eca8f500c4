/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction and notification points (dataplane/dcqcn.c): the derived
 * check of the reference (HPCC's model with alpha every 1 us, decrease
 * every 4 us, RP timer 300 us, g 1/256, F 1, AI 40 Mb/s: one CNP on a 100G
 * flow gives 50.78, 75.39 and 87.69 Gb/s), repeated CNPs down to the floor,
 * recovery to line rate through fast recovery, additive and hyper
 * increase, the timers' next event, the notification point with and
 * without a CNP interval, HPCC's defaults and ConWeave's settings (RATE_AI
 * 40 Mb/s, RATE_HAI 100 Mb/s at 100G, no CNP interval), and every
 * parameter taking effect on its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "dcqcn.h"

static struct aif_dcqcn_params
derived_params(void)
{
	struct aif_dcqcn_params p;

	aif_dcqcn_params_default(&p, 100000000000ull);
	p.alpha_period_ns = 1000;
	p.decrease_period_ns = 4000;
	p.rp_timer_ns = 300000;
	p.g = 1.0 / 256;
	p.fast_recovery = 1;
	p.rai_bps = 40000000;
	return p;
}

static void
assert_within(double got, double want, double rel)
{
	if (fabs(got - want) > rel * want)
		fail_msg("got %.6g, want %.6g (within %.2g)", got, want, rel);
}

static void
test_derived_check(void **state)
{
	const struct aif_dcqcn_params p = derived_params();
	struct aif_dcqcn_rp rp;
	const aif_time_ns t0 = 1000000;

	(void)state;
	aif_dcqcn_rp_init(&rp, &p);
	assert_int_equal(aif_dcqcn_rp_next_event_ns(&rp), AIF_TIME_NS_NEVER);
	aif_dcqcn_rp_cnp(&rp, &p, t0);
	assert_within(rp.rate_bps, 100e9, 1e-12);         /* no cut at the first CNP */
	assert_int_equal(aif_dcqcn_rp_next_event_ns(&rp), t0 + 1000);
	aif_dcqcn_rp_advance(&rp, &p, t0 + 4000);
	assert_within(rp.rate_bps, 100e9, 1e-12);         /* the decrease is 1 ns later */
	aif_dcqcn_rp_advance(&rp, &p, t0 + 4001);
	/* four alpha ticks without a CNP: alpha = (255/256)^4 */
	assert_within(rp.rate_bps, 100e9 * (1 - pow(255.0 / 256, 4) / 2), 1e-12);
	assert_within(rp.rate_bps / 1e9, 50.78, 0.001);
	aif_dcqcn_rp_advance(&rp, &p, t0 + 4001 + 299999);
	assert_within(rp.rate_bps / 1e9, 50.78, 0.001);   /* not yet */
	aif_dcqcn_rp_advance(&rp, &p, t0 + 4001 + 300000);
	assert_within(rp.rate_bps / 1e9, 75.39, 0.001);   /* fast recovery */
	double at300 = rp.rate_bps;
	aif_dcqcn_rp_advance(&rp, &p, t0 + 4001 + 600000);
	assert_within(rp.rate_bps / 1e9, 87.69, 0.001);   /* additive: target at line rate */
	assert_within(rp.target_bps, 100e9, 1e-12);
	assert_int_equal(rp.stage, 2);                    /* two increases since the cut */
	print_message("Rc after one CNP: %.3f Gb/s at +4 us, %.3f at +300 us, %.3f at +600 us\n",
		      100 * (1 - pow(255.0 / 256, 4) / 2), at300 / 1e9, rp.rate_bps / 1e9);
}

/* CNPs every 50 us hold alpha near 1 and take the rate down to the floor;
 * then, no more CNPs: back to line rate. */
static void
test_floor_and_recovery(void **state)
{
	struct aif_dcqcn_params p = derived_params();
	struct aif_dcqcn_rp rp;
	aif_time_ns t = 0;

	(void)state;
	p.min_rate_bps = 1000000000ull;
	aif_dcqcn_rp_init(&rp, &p);
	for (int i = 0; i < 400; i++, t += 50000)
		aif_dcqcn_rp_cnp(&rp, &p, t);
	aif_dcqcn_rp_advance(&rp, &p, t);
	assert_within(rp.rate_bps, 1e9, 1e-9);            /* MIN_RATE */
	/* alpha settles where one CNP per 50 ticks holds it: about 0.018 */
	assert_true(rp.alpha > 0.015 && rp.alpha < 0.025);
	/* recovery: fast recovery halves the gap to the target, then the target
	 * climbs by AI once and HAI after, capped at line rate */
	uint32_t stage0 = rp.stage;
	aif_dcqcn_rp_advance(&rp, &p, t + 2 * AIF_NS_PER_S);
	assert_within(rp.rate_bps, 100e9, 1e-3);
	assert_within(rp.target_bps, 100e9, 1e-12);
	assert_true(rp.stage > stage0 + 100);
	/* the timers keep running (as HPCC's do) */
	assert_true(aif_dcqcn_rp_next_event_ns(&rp) <= t + 2 * AIF_NS_PER_S + 300000);
}

/* With clamping, a decrease sets the target to the rate it started from. */
static void
test_clamp(void **state)
{
	struct aif_dcqcn_params p = derived_params();
	struct aif_dcqcn_rp rp;

	(void)state;
	p.clamp_target = true;
	p.rate_on_first_cnp = 0.5;
	aif_dcqcn_rp_init(&rp, &p);
	aif_dcqcn_rp_cnp(&rp, &p, 0);
	assert_within(rp.rate_bps, 50e9, 1e-12);          /* cut at the first CNP */
	aif_dcqcn_rp_advance(&rp, &p, 4001);
	assert_within(rp.target_bps, 50e9, 1e-12);        /* clamped to Rc before */
	assert_within(rp.rate_bps, 50e9 * (1 - pow(255.0 / 256, 4) / 2), 1e-12);
}

static void
test_notification_point(void **state)
{
	struct aif_dcqcn_params p = derived_params();
	struct aif_dcqcn_np np = { 0 };
	unsigned sent = 0;

	(void)state;
	/* no interval (every preset, as ns-3): a CNP per CE-marked packet */
	for (aif_time_ns t = 0; t < 100; t++)
		sent += aif_dcqcn_np_ce(&np, &p, t);
	assert_int_equal(sent, 100);
	/* 50 us (ConnectX's, the DCQCN paper's) */
	p.cnp_interval_ns = 50000;
	np = (struct aif_dcqcn_np){ 0 };
	sent = 0;
	/* CE-marked packets every 1 us for 1 ms: a CNP every 50 us */
	for (aif_time_ns t = 0; t < AIF_NS_PER_MS; t += 1000)
		sent += aif_dcqcn_np_ce(&np, &p, t);
	assert_int_equal(sent, 20);
	assert_false(aif_dcqcn_np_ce(&np, &p, 950000 + 49999));
	assert_true(aif_dcqcn_np_ce(&np, &p, 950000 + 50000));
}

static void
test_hpcc_defaults(void **state)
{
	struct aif_dcqcn_params p;

	(void)state;
	aif_dcqcn_params_default(&p, 100000000000ull);
	assert_true(p.g == 1.0 / 16);
	assert_int_equal(p.alpha_period_ns, 55000);
	assert_int_equal(p.decrease_period_ns, 4000);
	assert_int_equal(p.rp_timer_ns, 1500000);
	assert_int_equal(p.fast_recovery, 5);
	assert_int_equal(p.rai_bps, 20000000);   /* 5 Mb/s x 100/25 */
	assert_int_equal(p.rhai_bps, 200000000); /* 50 Mb/s x 100/25 */
	assert_int_equal(p.min_rate_bps, 100000000);
	assert_int_equal(p.cnp_interval_ns, 0);
	/* the experiments' settings: faster timers, the same steps */
	aif_dcqcn_params_hpcc_run(&p, 100000000000ull);
	assert_true(p.g == 1.0 / 256);
	assert_int_equal(p.alpha_period_ns, 1000);
	assert_int_equal(p.decrease_period_ns, 4000);
	assert_int_equal(p.rp_timer_ns, 300000);
	assert_int_equal(p.fast_recovery, 1);
	assert_int_equal(p.rai_bps, 20000000);
	assert_int_equal(p.min_rate_bps, 100000000);
}

/* ConWeave's runs: hpcc_run's timers, RATE_AI 40 Mb/s and RATE_HAI 100
 * Mb/s at 100G (run.py: 10 x bw / 25, 25 x bw / 25), scaled with the rate. */
static void
test_conweave(void **state)
{
	struct aif_dcqcn_params p;

	(void)state;
	aif_dcqcn_params_conweave(&p, 100000000000ull);
	assert_true(p.g == 1.0 / 256);
	assert_int_equal(p.alpha_period_ns, 1000);
	assert_int_equal(p.decrease_period_ns, 4000);
	assert_int_equal(p.rp_timer_ns, 300000);
	assert_int_equal(p.fast_recovery, 1);
	assert_int_equal(p.rai_bps, 40000000);
	assert_int_equal(p.rhai_bps, 100000000);
	assert_int_equal(p.min_rate_bps, 100000000);
	assert_false(p.clamp_target);
	assert_true(p.rate_on_first_cnp == 1.0);
	assert_int_equal(p.cnp_interval_ns, 0);
	aif_dcqcn_params_conweave(&p, 400000000000ull);
	assert_int_equal(p.rai_bps, 160000000);
	assert_int_equal(p.rhai_bps, 400000000);
}

/* The rate after a fixed story: a CNP at 0, then one every 10 us up to
 * 100 us, then none until 2.5 ms. */
static double
story(const struct aif_dcqcn_params *p, aif_time_ns until, struct aif_dcqcn_rp *out)
{
	struct aif_dcqcn_rp rp;

	aif_dcqcn_rp_init(&rp, p);
	for (aif_time_ns t = 0; t <= 100000; t += 10000)
		aif_dcqcn_rp_cnp(&rp, p, t);
	aif_dcqcn_rp_advance(&rp, p, until);
	if (out != NULL)
		*out = rp;
	return rp.rate_bps;
}

/* Each parameter on its own changes the story's rate (and the way its
 * meaning says). */
static void
test_each_parameter(void **state)
{
	struct aif_dcqcn_params base, p;
	struct aif_dcqcn_rp rp;

	(void)state;
	aif_dcqcn_params_conweave(&base, 100000000000ull);
	const double r0 = story(&base, 104001, NULL);      /* after the last decrease */
	print_message("story: %.3f Gb/s after the CNPs\n", r0 / 1e9);

	p = base, p.g = 1.0 / 16;                           /* EWMA_GAIN */
	assert_true(story(&p, 104001, NULL) != r0);
	p = base, p.alpha_period_ns = 55000;                /* ALPHA_RESUME_INTERVAL */
	assert_true(story(&p, 104001, NULL) < r0);         /* alpha stays near 1 longer */
	p = base, p.decrease_period_ns = 50000;             /* RATE_DECREASE_INTERVAL */
	assert_true(story(&p, 104001, NULL) > r0);         /* fewer cuts */
	/* the increase: with the target clamped, so that it climbs from below */
	struct aif_dcqcn_params c = base;
	c.clamp_target = true;
	const double c0 = story(&c, 1500000, NULL);
	p = c, p.rp_timer_ns = 100000;                      /* RP_TIMER */
	assert_true(story(&p, 1500000, NULL) > c0);        /* faster recovery */
	p = c, p.fast_recovery = 5;                         /* FAST_RECOVERY_TIMES */
	assert_true(story(&p, 1500000, NULL) < c0);        /* the target climbs later */
	p = c, p.rai_bps = 1000000000;                      /* RATE_AI */
	assert_true(story(&p, 1500000, NULL) > c0);
	p = c, p.rhai_bps = 2000000000;                     /* RATE_HAI */
	assert_true(story(&p, 1500000, NULL) > c0);
	p = base, p.min_rate_bps = 60000000000ull;          /* MIN_RATE */
	assert_true(story(&p, 104001, &rp) == 60e9);
	p = base, p.clamp_target = true;                    /* CLAMP_TARGET_RATE */
	story(&p, 104001, &rp);
	struct aif_dcqcn_rp rb;
	story(&base, 104001, &rb);
	assert_true(rp.target_bps < rb.target_bps);
	p = base, p.rate_on_first_cnp = 0.5;                /* RateOnFirstCnp */
	assert_true(story(&p, 104001, NULL) < r0);
	aif_dcqcn_rp_init(&rp, &p);
	aif_dcqcn_rp_cnp(&rp, &p, 0);
	assert_true(rp.rate_bps == 50e9);                  /* cut at once */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derived_check),
		cmocka_unit_test(test_floor_and_recovery),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_notification_point),
		cmocka_unit_test(test_hpcc_defaults),
		cmocka_unit_test(test_conweave),
		cmocka_unit_test(test_each_parameter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
