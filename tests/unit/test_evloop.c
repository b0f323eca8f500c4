/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dataplane/evloop.c without EAL, on a virtual clock, with sources that
 * record what they were asked:
 *
 *  - the earliest event first, a tie to the source added first, the clock
 *    at each event's time;
 *  - no event after the end; the loop's time is the last event's;
 *  - idle asked when the work has nothing before the next tick (and the
 *    loop stops there), never before an urgent event nor a quiet one
 *    (samples go on to the tick);
 *  - an event that changed something: every source refreshed and asked;
 *  - run again with a later end (a window), it goes on where it stopped;
 *  - a periodic source keeps its grid; the stop flag stops the loop;
 *  - a work source's run of events between the others' (fired without a
 *    scan): ties still to the source added first, the idle question every
 *    check_every events, progress on its grid, a change ends the run;
 *  - a source that runs its own events (ops->run): the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "evloop.h"

#define MAX_LOG 64

/* A source with a list of event times; logs "name@t" as it fires. */
struct fake {
	struct aif_ev_source src;
	char name;
	const aif_time_ns *at;
	unsigned n, next;
	unsigned refreshed;
	unsigned ret;           /* what fire returns */
	unsigned changed_on;    /* 1..n: that event returns AIF_EV_CHANGED */
	const aif_time_ns *at2; /* the times from its second refresh on */
	unsigned n2;
};

static char log_buf[MAX_LOG * 16];

static aif_time_ns
fake_next(struct aif_ev_source *s, aif_time_ns now_ns)
{
	const struct fake *f = (const struct fake *)s;

	(void)now_ns;
	return f->next < f->n ? f->at[f->next] : AIF_TIME_NS_NEVER;
}

static unsigned
fake_fire(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct fake *f = (struct fake *)s;
	char e[16];

	snprintf(e, sizeof(e), "%c@%u ", f->name, (unsigned)now_ns);
	strcat(log_buf, e);
	f->next++;
	return f->changed_on != 0 && f->next == f->changed_on ? AIF_EV_CHANGED : f->ret;
}

static void
fake_refresh(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct fake *f = (struct fake *)s;

	(void)now_ns;
	if (++f->refreshed == 2 && f->at2 != NULL) {
		f->at = f->at2;
		f->n = f->n2;
		f->next = 0;
	}
}

static const struct aif_ev_ops fake_ops = {
	.next_ns = fake_next, .fire = fake_fire, .refresh = fake_refresh,
};

static void
fake_init(struct fake *f, char name, unsigned flags, const aif_time_ns *at, unsigned n)
{
	*f = (struct fake){ .src = { .ops = &fake_ops, .flags = flags }, .name = name, .at = at,
			    .n = n };
}

static int idle_asked;
static aif_time_ns idle_from; /* idle once the clock is here */
static struct aif_clock *idle_clock;

static int
idle_fn(void *arg)
{
	(void)arg;
	idle_asked++;
	return aif_clock_now(idle_clock) >= idle_from;
}

static int
setup(void **state)
{
	(void)state;
	log_buf[0] = '\0';
	idle_asked = 0;
	idle_from = AIF_TIME_NS_NEVER;
	return 0;
}

static void
test_order_and_ties(void **state)
{
	static const aif_time_ns a_at[] = { 10, 30 }, b_at[] = { 10, 20, 40 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake a, b;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, AIF_TIME_NS_NEVER);
	fake_init(&a, 'a', 0, a_at, 2);
	fake_init(&b, 'b', AIF_EV_WORK, b_at, 3);
	assert_int_equal(aif_evloop_add(&loop, &a.src), 0);
	assert_int_equal(aif_evloop_add(&loop, &b.src), 0);
	assert_int_equal(aif_evloop_run(&loop), 40);
	assert_string_equal(log_buf, "a@10 b@10 b@20 a@30 b@40 ");
	assert_int_equal(aif_clock_now(&c), 40);
	assert_int_equal(loop.events, 3); /* b's: work */
	assert_int_equal(a.src.fired, 2);
}

static void
test_end(void **state)
{
	static const aif_time_ns at[] = { 5, 15, 25 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake a;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, 20);
	fake_init(&a, 'a', AIF_EV_WORK, at, 3);
	aif_evloop_add(&loop, &a.src);
	assert_int_equal(aif_evloop_run(&loop), 15);
	assert_string_equal(log_buf, "a@5 a@15 ");
	/* the next window: on from there */
	loop.end_ns = 100;
	assert_int_equal(aif_evloop_run(&loop), 25);
	assert_string_equal(log_buf, "a@5 a@15 a@25 ");
}

static void
test_idle_between_ticks(void **state)
{
	static const aif_time_ns work_at[] = { 1, 2, 35 }, tick_at[] = { 0, 10, 20, 30, 40, 50 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake w, t;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	idle_clock = &c;
	idle_from = 20; /* nothing more would come from here (says the test) */
	aif_evloop_init(&loop, &c, AIF_TIME_NS_NEVER);
	fake_init(&t, 't', AIF_EV_TICK, tick_at, 6);
	fake_init(&w, 'w', AIF_EV_WORK, work_at, 3);
	aif_evloop_add(&loop, &t.src);
	aif_evloop_add(&loop, &w.src);
	loop.idle = idle_fn;
	/* asked only when the work's next is past the next tick's: before
	 * t@0 (work at 1), never between w@1 and w@2, then before each tick
	 * once the work's next is 35; idle from 20 on, so the tick at 30 is
	 * not done */
	assert_int_equal(aif_evloop_run(&loop), 20);
	assert_string_equal(log_buf, "t@0 w@1 w@2 t@10 t@20 ");
	assert_int_equal(idle_asked, 4);
}

static void
test_quiet_samples(void **state)
{
	static const aif_time_ns s_at[] = { 0, 5, 10, 15, 20, 25 }, t_at[] = { 0, 10, 20, 30 },
				 w_at[] = { 1, 2 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake sm, t, w;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	idle_clock = &c;
	idle_from = 20;
	aif_evloop_init(&loop, &c, AIF_TIME_NS_NEVER);
	fake_init(&sm, 's', AIF_EV_QUIET, s_at, 6);
	fake_init(&t, 't', AIF_EV_TICK, t_at, 4);
	fake_init(&w, 'w', AIF_EV_WORK, w_at, 2);
	aif_evloop_add(&loop, &sm.src);
	aif_evloop_add(&loop, &t.src);
	aif_evloop_add(&loop, &w.src);
	loop.idle = idle_fn;
	/* samples go on to the tick, where the question is asked (before t@0,
	 * t@10, t@20: never before a sample); the sample at 20 comes before
	 * the tick whose question ends the run */
	assert_int_equal(aif_evloop_run(&loop), 20);
	assert_string_equal(log_buf, "s@0 t@0 w@1 w@2 s@5 s@10 t@10 s@15 s@20 ");
	assert_int_equal(idle_asked, 3);
}

static void
test_urgent_before_idle(void **state)
{
	static const aif_time_ns u_at[] = { 30 }, tick_at[] = { 0, 10, 20, 30, 40 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake u, t;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	idle_clock = &c;
	idle_from = 30;
	aif_evloop_init(&loop, &c, AIF_TIME_NS_NEVER);
	fake_init(&u, 'u', AIF_EV_URGENT, u_at, 1);
	fake_init(&t, 't', AIF_EV_TICK, tick_at, 5);
	aif_evloop_add(&loop, &u.src);
	aif_evloop_add(&loop, &t.src);
	loop.idle = idle_fn;
	/* the action at 30 happens although the loop is idle from 30 on */
	assert_int_equal(aif_evloop_run(&loop), 30);
	assert_string_equal(log_buf, "t@0 t@10 t@20 u@30 ");
}

static void
test_changed_refreshes(void **state)
{
	static const aif_time_ns a_at[] = { 1, 2 }, b_at[] = { 3 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake a, b;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, AIF_TIME_NS_NEVER);
	fake_init(&a, 'a', 0, a_at, 2);
	fake_init(&b, 'b', 0, b_at, 1);
	a.ret = AIF_EV_CHANGED;
	aif_evloop_add(&loop, &a.src);
	aif_evloop_add(&loop, &b.src);
	aif_evloop_run(&loop);
	assert_string_equal(log_buf, "a@1 a@2 b@3 ");
	/* once at the start, once after each of a's */
	assert_int_equal(a.refreshed, 3);
	assert_int_equal(b.refreshed, 3);
}

static void
record(aif_time_ns t, void *arg)
{
	char e[16];

	(void)arg;
	snprintf(e, sizeof(e), "p@%u ", (unsigned)t);
	strcat(log_buf, e);
}

static void
test_periodic_and_stop(void **state)
{
	static const aif_time_ns w_at[] = { 3, 7, 12, 18, 25 };
	struct aif_clock c;
	struct aif_evloop loop;
	struct aif_ev_periodic p;
	struct fake w;
	volatile int stop = 0;

	(void)state;
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, 20);
	aif_ev_periodic_init(&p, 0, 5, record, NULL);
	fake_init(&w, 'w', AIF_EV_WORK, w_at, 5);
	aif_evloop_add(&loop, &p.src);
	aif_evloop_add(&loop, &w.src);
	assert_int_equal(aif_evloop_run(&loop), 20);
	assert_string_equal(log_buf, "p@0 w@3 p@5 w@7 p@10 w@12 p@15 w@18 p@20 ");
	/* the stop flag: looked at with the idle question (every event here) */
	log_buf[0] = '\0';
	stop = 1;
	loop.stop = (const volatile int *)&stop;
	loop.check_every = 1;
	loop.end_ns = 100;
	assert_int_equal(aif_evloop_run(&loop), 20);
	assert_string_equal(log_buf, "");
}

static void
progress_fn(const struct aif_evloop *loop, void *arg)
{
	char e[16];

	(void)arg;
	snprintf(e, sizeof(e), "P@%u ", (unsigned)loop->now_ns);
	strcat(log_buf, e);
}

static const aif_time_ns work_at[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

/* A work source w of 11 events (1..11 ns, its ops w_ops) between a's two
 * (5, 9) and a tick at 100, the idle question every 4 events, progress
 * every 3 ns, the end at 50. */
static void
work_loop(struct aif_evloop *loop, struct aif_clock *c, struct fake *a, struct fake *t,
	  struct fake *w, const struct aif_ev_ops *w_ops)
{
	static const aif_time_ns a_at[] = { 5, 9 }, t_at[] = { 100 };

	aif_clock_init_virtual(c, 0);
	idle_clock = c;
	aif_evloop_init(loop, c, 50);
	fake_init(a, 'a', 0, a_at, 2);
	fake_init(t, 't', AIF_EV_TICK, t_at, 1);
	fake_init(w, 'w', AIF_EV_WORK, work_at, 11);
	w->src.ops = w_ops;
	aif_evloop_add(loop, &a->src);
	aif_evloop_add(loop, &t->src);
	aif_evloop_add(loop, &w->src);
	loop->idle = idle_fn;
	loop->check_every = 4;
	loop->progress = progress_fn;
	loop->progress_ns = 3;
}

static void
test_work_runs(void **state)
{
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake a, t, w;

	(void)state;
	work_loop(&loop, &c, &a, &t, &w, &fake_ops);
	/* a first on its ties; the question before every 4th event (4 w@4, 8
	 * w@7, 12 w@10) and before the tick past the work's end; progress
	 * after the work event at or past each 3 ns */
	assert_int_equal(aif_evloop_run(&loop), 11);
	assert_string_equal(log_buf, "w@1 w@2 w@3 P@3 w@4 a@5 w@5 w@6 P@6 w@7 w@8 a@9 w@9 P@9 "
				     "w@10 w@11 ");
	assert_int_equal(idle_asked, 4);
	assert_int_equal(loop.events, 11);
	assert_int_equal(aif_clock_now(&c), 11);

	/* a work event that changes something (w@2): every source asked
	 * again before the next, so a's new event at 3 comes first on the tie */
	static const aif_time_ns w2_at[] = { 1, 2, 3 }, a2_at[] = { 3 };
	log_buf[0] = '\0';
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, 50);
	fake_init(&a, 'a', 0, NULL, 0);
	a.at2 = a2_at;
	a.n2 = 1;
	fake_init(&w, 'w', AIF_EV_WORK, w2_at, 3);
	w.changed_on = 2;
	aif_evloop_add(&loop, &a.src);
	aif_evloop_add(&loop, &w.src);
	assert_int_equal(aif_evloop_run(&loop), 3);
	assert_string_equal(log_buf, "w@1 w@2 a@3 w@3 ");
	assert_int_equal(a.refreshed, 2); /* the start, then after w@2 */
}

/* A source that runs its own events (ops->run), as a runner does. */
static unsigned fake_runs;

static unsigned
fake_run(struct aif_ev_source *s, struct aif_clock *clock, aif_time_ns before_ns,
	 aif_time_ns end_ns, unsigned max, aif_time_ns *last_ns)
{
	unsigned n = 0;
	aif_time_ns t;

	fake_runs++;
	while (n < max && (t = fake_next(s, 0)) < before_ns && t <= end_ns &&
	       t != AIF_TIME_NS_NEVER) {
		aif_clock_set(clock, t);
		fake_fire(s, t);
		*last_ns = t;
		n++;
	}
	return n;
}

static const struct aif_ev_ops fake_run_ops = {
	.next_ns = fake_next, .fire = fake_fire, .refresh = fake_refresh, .run = fake_run,
};

/* The work source of test_work_runs running its own events: the same
 * events in the same order, the idle question as often, progress on its
 * grid; alone in a loop (a window's part), to the end. */
static void
test_source_runs(void **state)
{
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake a, t, w;

	(void)state;
	work_loop(&loop, &c, &a, &t, &w, &fake_run_ops);
	fake_runs = 0;
	assert_int_equal(aif_evloop_run(&loop), 11);
	assert_string_equal(log_buf, "w@1 w@2 w@3 P@3 w@4 a@5 w@5 w@6 P@6 w@7 w@8 a@9 w@9 P@9 "
				     "w@10 w@11 ");
	assert_int_equal(idle_asked, 4);
	assert_int_equal(loop.events, 11);
	assert_int_equal(w.src.fired, 11);
	assert_int_equal(aif_clock_now(&c), 11);
	assert_true(fake_runs > 0);

	/* alone: every event in one run, up to the end (8), the loop's time
	 * the last event's */
	log_buf[0] = '\0';
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, 8);
	fake_init(&w, 'w', AIF_EV_WORK, work_at, 11);
	w.src.ops = &fake_run_ops;
	aif_evloop_add(&loop, &w.src);
	fake_runs = 0;
	assert_int_equal(aif_evloop_run(&loop), 8);
	assert_string_equal(log_buf, "w@1 w@2 w@3 w@4 w@5 w@6 w@7 w@8 ");
	assert_int_equal(loop.events, 8);
	assert_int_equal(fake_runs, 1);
	assert_int_equal(w.src.next_ns, 9);
}

static void
test_full(void **state)
{
	struct aif_clock c;
	struct aif_evloop loop;
	struct fake f[AIF_EVLOOP_MAX_SOURCES + 1];

	(void)state;
	aif_clock_init_virtual(&c, 0);
	aif_evloop_init(&loop, &c, AIF_TIME_NS_NEVER);
	for (unsigned i = 0; i < AIF_EVLOOP_MAX_SOURCES; i++) {
		fake_init(&f[i], 'x', 0, NULL, 0);
		assert_int_equal(aif_evloop_add(&loop, &f[i].src), 0);
	}
	fake_init(&f[AIF_EVLOOP_MAX_SOURCES], 'x', 0, NULL, 0);
	assert_int_equal(aif_evloop_add(&loop, &f[AIF_EVLOOP_MAX_SOURCES].src), -1);
	/* nothing due anywhere: it returns at once */
	assert_int_equal(aif_evloop_run(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_order_and_ties, setup),
		cmocka_unit_test_setup(test_end, setup),
		cmocka_unit_test_setup(test_idle_between_ticks, setup),
		cmocka_unit_test_setup(test_urgent_before_idle, setup),
		cmocka_unit_test_setup(test_quiet_samples, setup),
		cmocka_unit_test_setup(test_changed_refreshes, setup),
		cmocka_unit_test_setup(test_periodic_and_stop, setup),
		cmocka_unit_test_setup(test_work_runs, setup),
		cmocka_unit_test_setup(test_source_runs, setup),
		cmocka_unit_test_setup(test_full, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
