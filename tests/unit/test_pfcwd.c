/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/pfcwd.c (and pfcwd.h): the PFC watchdog state
 * machine in virtual time.  No EAL.
 *
 *   - config-init: defaults 200 ms / 200 ms / drop, one error per bad field,
 *     SONiC action names both ways.
 *   - Detection exactly at detection_ns of continuous pause with packets
 *     waiting, not one ns before; sampled every 10 ms and every 1 ns.
 *   - A pause broken before detection (unpaused, or queue empty) restarts
 *     the timer from the next paused sample.
 *   - Restoration exactly at restoration_ns without pause; a pause during
 *     the storm restarts that timer; detection works again afterwards.
 *   - Actions: ignore_pause / drop per action, before, in and after a storm.
 *   - Counters: storms detected and restored, packets/bytes dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pfcwd.h"

#define MS AIF_NS_PER_MS

static struct aif_pfcwd_config
cfg(aif_time_ns det, aif_time_ns rest, enum aif_pfcwd_action a)
{
	struct aif_pfcwd_params p = {det, rest, (uint8_t)a};
	struct aif_pfcwd_config c;

	assert_int_equal(aif_pfcwd_config_init(&c, &p), AIF_PFCWD_ERR_OK);
	return c;
}

static void
test_config(void **state)
{
	(void)state;
	struct aif_pfcwd_params p;
	struct aif_pfcwd_config c;
	enum aif_pfcwd_action a;

	memset(&p, 0, sizeof(p));
	assert_int_equal(aif_pfcwd_config_init(&c, &p), 0);
	assert_true(c.detection_ns == 200 * MS);
	assert_true(c.restoration_ns == 200 * MS);
	assert_int_equal(c.action, AIF_PFCWD_DROP);

	p.detection_ns = 5000 * MS + 1;
	assert_int_equal(aif_pfcwd_config_init(&c, &p), AIF_PFCWD_ERR_DETECTION);
	p.detection_ns = 5000 * MS;
	p.restoration_ns = 60000 * MS + 1;
	assert_int_equal(aif_pfcwd_config_init(&c, &p), AIF_PFCWD_ERR_RESTORATION);
	p.restoration_ns = 60000 * MS;
	p.action = AIF_PFCWD_ACTION_MAX;
	assert_int_equal(aif_pfcwd_config_init(&c, &p), AIF_PFCWD_ERR_ACTION);
	p.action = AIF_PFCWD_ALERT;
	assert_int_equal(aif_pfcwd_config_init(&c, &p), 0);
	assert_true(c.detection_ns == 5000 * MS && c.restoration_ns == 60000 * MS);

	assert_string_equal(aif_pfcwd_err_name(AIF_PFCWD_ERR_DETECTION),
			    "detection_time above 5000 ms");
	assert_string_not_equal(aif_pfcwd_err_name(AIF_PFCWD_ERR_RESTORATION),
				aif_pfcwd_err_name(AIF_PFCWD_ERR_ACTION));
	assert_string_equal(aif_pfcwd_err_name(-4), "unknown");

	assert_string_equal(aif_pfcwd_action_name(AIF_PFCWD_DROP), "drop");
	assert_string_equal(aif_pfcwd_action_name(AIF_PFCWD_FORWARD), "forward");
	assert_string_equal(aif_pfcwd_action_name(AIF_PFCWD_ALERT), "alert");
	assert_int_equal(aif_pfcwd_action_parse("forward", &a), 0);
	assert_int_equal(a, AIF_PFCWD_FORWARD);
	assert_int_equal(aif_pfcwd_action_parse("alert", &a), 0);
	assert_int_equal(a, AIF_PFCWD_ALERT);
	assert_int_equal(aif_pfcwd_action_parse("Drop", &a), -1);
	assert_string_equal(aif_pfcwd_event_name(AIF_PFCWD_STORM_DETECTED),
			    "storm_detected");
	assert_string_equal(aif_pfcwd_event_name(AIF_PFCWD_STORM_RESTORED),
			    "storm_restored");
	assert_int_equal(aif_pfcwd_ctr_n, 4);
	assert_string_equal(aif_pfcwd_ctr_names[0], "storms_detected");
}

/* Sampled every 10 ms from t0: the storm is seen at the sample t0 + 200 ms. */
static void
test_detection_sampled(void **state)
{
	(void)state;
	struct aif_pfcwd_config c = cfg(0, 0, AIF_PFCWD_DROP);
	struct aif_pfcwd_state s;
	const aif_time_ns t0 = 1234567;
	aif_time_ns t;

	aif_pfcwd_state_init(&s);
	for (t = t0; t < t0 + 200 * MS; t += 10 * MS)
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t),
				 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t0 + 200 * MS),
			 AIF_PFCWD_STORM_DETECTED);
	assert_true(s.storm);
	/* the storm goes on: no second event */
	for (t = t0 + 210 * MS; t < t0 + 1000 * MS; t += 10 * MS)
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t),
				 AIF_PFCWD_NONE);
	assert_int_equal(s.ctr.storms_detected, 1);
	assert_int_equal(s.ctr.storms_restored, 0);
}

/* Exact to the ns: detection_ns - 1 is not enough. */
static void
test_detection_exact(void **state)
{
	(void)state;
	struct aif_pfcwd_config c = cfg(200 * MS, 0, AIF_PFCWD_FORWARD);
	struct aif_pfcwd_state s;

	aif_pfcwd_state_init(&s);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 1000), AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 1000 + 200 * MS - 1),
			 AIF_PFCWD_NONE);
	assert_false(s.storm);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 1000 + 200 * MS),
			 AIF_PFCWD_STORM_DETECTED);
	assert_true(s.storm);

	/* a 3 ns detection time sampled every ns */
	c = cfg(3, 5, AIF_PFCWD_DROP);
	aif_pfcwd_state_init(&s);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 10), AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 11), AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 12), AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 13),
			 AIF_PFCWD_STORM_DETECTED);
}

static void
test_interrupted_pause_resets(void **state)
{
	(void)state;
	struct aif_pfcwd_config c = cfg(200 * MS, 200 * MS, AIF_PFCWD_DROP);
	struct aif_pfcwd_state s;
	aif_time_ns t;

	aif_pfcwd_state_init(&s);
	/* paused 0..190 ms, one unpaused sample at 195 ms */
	for (t = 0; t <= 190 * MS; t += 5 * MS)
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t),
				 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, false, true, 195 * MS),
			 AIF_PFCWD_NONE);
	/* paused again from 200 ms: nothing at 200..395, storm at 400 */
	for (t = 200 * MS; t < 400 * MS; t += 5 * MS)
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t),
				 AIF_PFCWD_NONE);
	/* and an empty queue breaks the run too (paused, nothing waiting) */
	assert_int_equal(aif_pfcwd_update(&s, &c, true, false, 400 * MS),
			 AIF_PFCWD_NONE);
	for (t = 405 * MS; t < 605 * MS; t += 5 * MS)
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t),
				 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 605 * MS),
			 AIF_PFCWD_STORM_DETECTED);
	assert_int_equal(s.ctr.storms_detected, 1);
}

static void
test_restoration_exact(void **state)
{
	(void)state;
	struct aif_pfcwd_config c = cfg(100 * MS, 300 * MS, AIF_PFCWD_DROP);
	struct aif_pfcwd_state s;
	aif_time_ns t;

	aif_pfcwd_state_init(&s);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 0), AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 100 * MS),
			 AIF_PFCWD_STORM_DETECTED);
	/* still paused: no restoration however long */
	assert_int_equal(aif_pfcwd_update(&s, &c, true, false, 900 * MS),
			 AIF_PFCWD_NONE);
	/* unpaused from 1000 ms, one paused sample at 1200 ms restarts */
	assert_int_equal(aif_pfcwd_update(&s, &c, false, true, 1000 * MS),
			 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 1200 * MS),
			 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, false, false, 1210 * MS),
			 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, false, true, 1300 * MS + 1),
			 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, false, false, 1510 * MS - 1),
			 AIF_PFCWD_NONE);
	assert_true(s.storm);
	assert_int_equal(aif_pfcwd_update(&s, &c, false, false, 1510 * MS),
			 AIF_PFCWD_STORM_RESTORED);
	assert_false(s.storm);
	/* detection starts afresh */
	for (t = 1520 * MS; t < 1620 * MS; t += 10 * MS)
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, t),
				 AIF_PFCWD_NONE);
	assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 1620 * MS),
			 AIF_PFCWD_STORM_DETECTED);
	assert_int_equal(s.ctr.storms_detected, 2);
	assert_int_equal(s.ctr.storms_restored, 1);
}

static void
test_actions_and_counters(void **state)
{
	(void)state;
	static const struct {
		enum aif_pfcwd_action a;
		bool ignore, drop;
	} want[] = {
		{AIF_PFCWD_DROP, true, true},
		{AIF_PFCWD_FORWARD, true, false},
		{AIF_PFCWD_ALERT, false, false},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct aif_pfcwd_config c = cfg(10 * MS, 20 * MS, want[i].a);
		struct aif_pfcwd_state s;

		aif_pfcwd_state_init(&s);
		aif_pfcwd_update(&s, &c, true, true, 0);
		assert_false(aif_pfcwd_ignore_pause(&s, &c));
		assert_false(aif_pfcwd_drop(&s, &c));
		assert_int_equal(aif_pfcwd_update(&s, &c, true, true, 10 * MS),
				 AIF_PFCWD_STORM_DETECTED);
		assert_true(aif_pfcwd_ignore_pause(&s, &c) == want[i].ignore);
		assert_true(aif_pfcwd_drop(&s, &c) == want[i].drop);
		if (aif_pfcwd_drop(&s, &c))
			aif_pfcwd_count_drop(&s, 7, 7 * 1024);
		aif_pfcwd_update(&s, &c, false, false, 15 * MS);
		assert_int_equal(aif_pfcwd_update(&s, &c, false, false, 35 * MS),
				 AIF_PFCWD_STORM_RESTORED);
		assert_false(aif_pfcwd_ignore_pause(&s, &c));
		assert_false(aif_pfcwd_drop(&s, &c));
		assert_int_equal(s.ctr.storms_detected, 1);
		assert_int_equal(s.ctr.storms_restored, 1);
		assert_int_equal(s.ctr.drop_packets, want[i].drop ? 7 : 0);
		assert_int_equal(s.ctr.drop_bytes, want[i].drop ? 7 * 1024 : 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_detection_sampled),
		cmocka_unit_test(test_detection_exact),
		cmocka_unit_test(test_interrupted_pause_resets),
		cmocka_unit_test(test_restoration_exact),
		cmocka_unit_test(test_actions_and_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
