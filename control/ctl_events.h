/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control's event sources (dataplane/evloop.h): what control does in a loop
 * beside the runners, in real and virtual time alike.
 *
 * The tick (AIF_EV_TICK): neighbour learning and packet-capture copies
 * every period_ns (virtual time: AIF_CTL_TICK_NS, so a run depends on
 * nothing but its inputs and seeds), neighbour aging every
 * AIF_NEIGH_AGE_NS.  Scheduled actions (AIF_EV_URGENT): a link going down
 * or up, its loss rate, or a control request (lb load, lb unload), each at
 * its own time before anything else then.  The socket (real time): a
 * client's requests, waiting up to timeout_ms for one.  Each tells the
 * loop that something changed (AIF_EV_CHANGED): the runners look again.
 *
 *	struct aif_ctl_tick tick;
 *	aif_ctl_tick_init(&tick, &ctl, aif_clock_now(&ctl.clock), AIF_CTL_TICK_NS);
 *	aif_evloop_add(&loop, &tick.src);
 */
#ifndef AIF_CTL_EVENTS_H
#define AIF_CTL_EVENTS_H

#include <stdint.h>

#include "../dataplane/evloop.h"
#include "../dataplane/types.h"

struct aif_ctl;
struct aif_ctl_server;

#define AIF_CTL_TICK_NS (10 * AIF_NS_PER_US)

struct aif_ctl_tick {
	struct aif_ev_source src;
	struct aif_ctl *ctl;
	aif_time_ns period_ns, at_ns, next_age_ns;
};

/* Control's periodic work from start_ns on, every period_ns. */
void aif_ctl_tick_init(struct aif_ctl_tick *t, struct aif_ctl *c, aif_time_ns start_ns,
		       aif_time_ns period_ns);

/* A control action at a time: link k up or down, its rates; or a request. */
struct aif_ctl_action {
	aif_time_ns at_ns;
	char *request;        /* a control request line dispatched then (lb load,
			       * lb unload), owned by the caller; NULL: the link
			       * change below */
	uint32_t link;
	int up;               /* 1, 0, or -1: as it is */
	double loss_rate;     /* -1: as it is */
	double corrupt_rate;  /* -1: as it is */
};

struct aif_ctl_schedule {
	struct aif_ev_source src;
	struct aif_ctl *ctl;
	const struct aif_ctl_action *acts; /* by at_ns, ties in order */
	unsigned n, next;
};

/* The actions acts[0..n) (sorted by time), those before start_ns left out;
 * each done at its time (aif_ctl_link_set, or the request as a client's:
 * its result said on stdout, a refusal on stderr). */
void aif_ctl_schedule_init(struct aif_ctl_schedule *s, struct aif_ctl *c,
			   const struct aif_ctl_action *acts, unsigned n, aif_time_ns start_ns);

struct aif_ctl_socket {
	struct aif_ev_source src;
	struct aif_ctl_server *srv;
	int timeout_ms;
};

/* The socket's requests, at every turn of the loop (real time). */
void aif_ctl_socket_init(struct aif_ctl_socket *s, struct aif_ctl_server *srv, int timeout_ms);

#endif /* AIF_CTL_EVENTS_H */
