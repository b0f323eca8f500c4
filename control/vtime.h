/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time: the discrete-event loop that drives a fabric's switches,
 * links and edge ports single-threaded, deterministically, as fast as the
 * CPU allows.  The same runner, switch, queue, buffer, PFC, ECN and
 * load-balancing code as in real time; only the clock differs.
 *
 * There is no global event heap: every object keeps its own next event (a
 * link direction its next arrival, a port its next departure, an egress
 * queue its shaper, a PFC state its refresh and expiry, the adaptive bands
 * their refresh; runner.h aif_runner_next_event_ns), and the loop asks the
 * runner for the earliest, sets the clock there, and steps:
 *
 *	struct aif_vtime v = { .ctl = &ctl, .w = runner, .end_ns = 10 * AIF_NS_PER_MS,
 *			       .idle = inputs_done, .idle_arg = &edges };
 *	aif_vtime_run(&v);       // v.now_ns, v.steps: where and how far it got
 *
 * Control's periodic work runs inside the loop at fixed virtual times, so
 * a run depends on nothing but its inputs and seeds: neighbour learning
 * and packet-capture copies every AIF_VTIME_CONTROL_NS, neighbour aging
 * every AIF_NEIGH_AGE_NS, and scheduled actions (a link going down or up,
 * its loss rate) at their own times.
 *
 * The loop ends at end_ns, or earlier when idle(idle_arg) says nothing
 * more will come (its inputs are done and no packet is anywhere in the
 * fabric); asked when the runner has no event before end_ns other than
 * periodic ones, and every AIF_VTIME_IDLE_CHECK_STEPS steps.
 */
#ifndef AIF_VTIME_H
#define AIF_VTIME_H

#include <stdint.h>

#include "../dataplane/types.h"

struct aif_ctl;
struct aif_runner;

#define AIF_VTIME_CONTROL_NS (10 * AIF_NS_PER_US)
#define AIF_VTIME_IDLE_CHECK_STEPS 4096

/* A control action at a virtual time: link k up or down, its rates. */
struct aif_vtime_action {
	aif_time_ns at_ns;
	char *request;        /* a control request line dispatched then (lb load,
			       * lb unload), owned by the caller; NULL: the link
			       * change below */
	uint32_t link;
	int up;               /* 1, 0, or -1: as it is */
	double loss_rate;     /* -1: as it is */
	double corrupt_rate;  /* -1: as it is */
};

struct aif_vtime {
	struct aif_ctl *ctl;      /* its clock must be virtual; moved to each event */
	struct aif_runner *w;     /* the runner over every switch */
	aif_time_ns end_ns;       /* stop there (AIF_TIME_NS_NEVER: only when idle) */
	int (*idle)(void *arg);   /* NULL: run to end_ns */
	void *idle_arg;
	/* optional: non-zero stops the loop (a signal handler's flag); looked
	 * at with the idle checks and at control's ticks */
	const volatile int *stop;
	/* progress, optional: called about every progress_ns of virtual time */
	void (*progress)(const struct aif_vtime *v, void *arg);
	void *progress_arg;
	aif_time_ns progress_ns;
	/* control actions, by at_ns (ties in order), each done at its time
	 * before the runner steps there (aif_ctl_link_set) */
	const struct aif_vtime_action *actions;
	unsigned n_actions;
	/* samples, optional: called every sample_ns of virtual time from the
	 * start, before the switches' events at that time (state is read,
	 * never changed) */
	void (*sample)(aif_time_ns t, void *arg);
	void *sample_arg;
	aif_time_ns sample_ns;
	/* RX queues whose port was given work from outside (aif_vtime_wake):
	 * asked again after each step */
	uint32_t *woken;
	uint32_t n_woken, cap_woken;
	/* out */
	aif_time_ns now_ns;       /* the last event's time */
	uint64_t steps;           /* runner steps (events) */
	uint64_t packets;         /* packets received by the switches */
};

/* Run; returns v->now_ns. */
aif_time_ns aif_vtime_run(struct aif_vtime *v);
/* RX queue rxq of the runner (its index in w->rxq) may have its next frame
 * sooner: a port woken from outside its own calls (rhost.h waker); it is
 * asked again after the current step.  Frees nothing: woken is freed by
 * aif_vtime_run on return. */
void aif_vtime_wake(struct aif_vtime *v, uint32_t rxq);

#endif /* AIF_VTIME_H */
