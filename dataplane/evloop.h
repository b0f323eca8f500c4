/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event loop: one per thread that drives something (a runner's core in
 * real time, the control thread, a whole fabric in virtual time).  It owns
 * neither what it drives nor who set it up: event sources say when their
 * next event is and do it when asked; the loop picks the earliest, brings
 * its clock there, and fires it.  Real and virtual time differ only in the
 * clock: a virtual one is set to the event's time (as fast as the CPU
 * allows, deterministic), a real one is read (the event runs when it is
 * due, or at once when it is late).
 *
 *	struct aif_evloop loop;
 *	aif_evloop_init(&loop, &clock, 10 * AIF_NS_PER_MS);   // end (NEVER: idle only)
 *	aif_evloop_add(&loop, &tick.src);                      // control's tick
 *	aif_evloop_add(&loop, aif_runner_source(w));           // a runner's switches
 *	loop.idle = inputs_done;
 *	aif_evloop_run(&loop);      // loop.now_ns, loop.events: where and how far
 *
 * Sources (struct aif_ev_source): a runner's switches (runner.h), control's
 * periodic work and its scheduled actions (control/ctl_events.h), samples
 * (aif_ev_periodic below), the control socket in real time.  Ties go to
 * the source added first.  A source's next event is asked again after it
 * fired, and after a source fired with AIF_EV_CHANGED (something every
 * source may depend on changed: a link, a config), when every source is
 * refreshed first.
 *
 * The end: at end_ns (an event after it is not fired), or earlier when the
 * stop flag is set or idle(idle_arg) says nothing more will come.  Those
 * two are asked before an event that is not AIF_EV_URGENT nor AIF_EV_QUIET,
 * when no work source (AIF_EV_WORK) has an event before the next tick
 * (AIF_EV_TICK: the periodic work whose period paces the question), and
 * every check_every events in any case.  (Not before a sample: samples go
 * on to the next tick, as they do where each runner samples its own
 * switches, windows.h.)
 *
 * One loop is one thread's and has no global state: several loops may run
 * side by side, each with its own clock and sources (real time: one per
 * runner's core and one for control).  A loop may be run to an end, then
 * its end moved and run again: it goes on where it stopped.  That is the
 * window of a conservative parallel simulation: runners that each own a
 * partition of the fabric advance window by window, a window being the
 * smallest delay of the links between partitions.
 */
#ifndef AIF_EVLOOP_H
#define AIF_EVLOOP_H

#include <stdint.h>

#include "clock.h"
#include "types.h"

#define AIF_EVLOOP_MAX_SOURCES 16
#define AIF_EVLOOP_CHECK_EVENTS 4096 /* the idle question at least this often */

/* Source flags */
#define AIF_EV_WORK   1u /* it has work of its own (a runner): counted, progress */
#define AIF_EV_TICK   2u /* its period paces the idle question (control's tick) */
#define AIF_EV_URGENT 4u /* fired before the idle question (a scheduled action) */
#define AIF_EV_QUIET  8u /* the idle question is not asked before it (a sample:
			  * it reads state and changes none) */

/* What fire returns */
#define AIF_EV_CHANGED 1u /* every source looks again (refresh, next_ns) */

struct aif_ev_source;

struct aif_ev_ops {
	/* When the next event is, at or after now_ns; AIF_TIME_NS_NEVER: none. */
	aif_time_ns (*next_ns)(struct aif_ev_source *s, aif_time_ns now_ns);
	/* Do the event due at now_ns; AIF_EV_CHANGED or 0. */
	unsigned (*fire)(struct aif_ev_source *s, aif_time_ns now_ns);
	/* Forget what was known of the next event (NULL: nothing kept):
	 * something outside the source changed. */
	void (*refresh)(struct aif_ev_source *s, aif_time_ns now_ns);
	/* Optional, virtual time: fire its events before before_ns and at or
	 * before end_ns, at most max, one after the other as the loop would
	 * (clock set to each event's time), with nothing between them; how
	 * many, *last_ns the last one's time.  Only for a source whose fire
	 * never returns AIF_EV_CHANGED.  (The runners' switches: the loop's
	 * calls and bookkeeping per event, 1.5% of a packet-hop.) */
	unsigned (*run)(struct aif_ev_source *s, struct aif_clock *clock, aif_time_ns before_ns,
			aif_time_ns end_ns, unsigned max, aif_time_ns *last_ns);
};

struct aif_ev_source {
	const struct aif_ev_ops *ops;
	unsigned flags;        /* AIF_EV_* */
	aif_time_ns next_ns;   /* the loop's copy of ops->next_ns */
	uint64_t fired;        /* events fired */
};

struct aif_evloop {
	struct aif_clock *clock;  /* virtual: set to each event; real: read */
	aif_time_ns end_ns;       /* no event after it (AIF_TIME_NS_NEVER: none) */
	int (*idle)(void *arg);   /* NULL: never idle */
	void *idle_arg;
	const volatile int *stop; /* non-zero: stop (a signal's flag); NULL: none */
	uint32_t check_every;     /* events between idle questions at most */
	/* progress, optional: after a work event, every progress_ns */
	void (*progress)(const struct aif_evloop *loop, void *arg);
	void *progress_arg;
	aif_time_ns progress_ns;
	unsigned n_src;
	struct aif_ev_source *src[AIF_EVLOOP_MAX_SOURCES];
	/* out */
	aif_time_ns now_ns;       /* the last event's time */
	aif_time_ns stop_ns;      /* where the last run stopped: the time of the
				   * event it did not fire (asked idle, or
				   * stopped, there), or end_ns (none before it) */
	uint64_t events;          /* work events fired */
	/* kept between runs */
	uint32_t since_check;
	uint8_t started;
};

/* An empty loop on clock, ending at end_ns. */
void aif_evloop_init(struct aif_evloop *loop, struct aif_clock *clock, aif_time_ns end_ns);
/* Add a source (ties go to the first added); 0, or -1 when full.  Before
 * the first run. */
int aif_evloop_add(struct aif_evloop *loop, struct aif_ev_source *s);
/* Run until the end, the stop flag or idle; returns loop->now_ns.  Run
 * again (a later end_ns), it goes on from there. */
aif_time_ns aif_evloop_run(struct aif_evloop *loop);
/* Between runs: s's next event asked again (something outside the loop
 * changed it: frames from another runner, windows.h), or every source
 * refreshed and asked (after a change every source may depend on). */
void aif_evloop_ask(struct aif_ev_source *s, aif_time_ns now_ns);
void aif_evloop_refresh(struct aif_evloop *loop, aif_time_ns now_ns);

/* A periodic source: fn(t, arg) every period_ns from first_ns on (state is
 * read, not changed: samples, monitors). */
struct aif_ev_periodic {
	struct aif_ev_source src;
	aif_time_ns period_ns;
	aif_time_ns at_ns;        /* the next one */
	void (*fn)(aif_time_ns t, void *arg);
	void *arg;
};

void aif_ev_periodic_init(struct aif_ev_periodic *p, aif_time_ns first_ns,
			  aif_time_ns period_ns, void (*fn)(aif_time_ns t, void *arg), void *arg);

#endif /* AIF_EVLOOP_H */
