/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time (run.h aif_run_virtual): one loop (dataplane/evloop.h) on
 * control's virtual clock, over, in this order on a tie: the scheduled
 * actions (--link, --lb), the samples and monitors (--samples, the
 * --results monitors), control's tick, and the runner that drives every
 * switch and virtual host.  Control's periodic work runs at fixed virtual
 * times, so a run depends on nothing but its inputs and seeds.
 *
 * The run ends at --duration (with --traffic: when the hosts stopped
 * sending and the fabric drained, at most 10 ms later), or when the
 * inputs are done (every pcap read, every job done or stuck) and no packet
 * is anywhere in the fabric.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/capture.h"
#include "../dataplane/clock.h"
#include "../dataplane/evloop.h"
#include "../dataplane/runner.h"
#include "../dataplane/switch.h"
#include "../hosts/monitors.h"
#include "ctl_events.h"
#include "report.h"
#include "run.h"
#include "samples.h"
#include "schedule.h"

/* What runs at fixed virtual times besides the switches: --samples and
 * the monitors of --results (pfc.txt, qlen.txt); each keeps its own period
 * on the loop's grid. */
struct ticks {
	struct aif_samples *sm;
	struct aif_monitors *mon;
};

static void
tick(aif_time_ns t, void *arg)
{
	struct ticks *k = arg;

	if (k->mon != NULL)
		aif_monitors_sample(k->mon, t);
	if (k->sm != NULL)
		aif_samples_take(k->sm, t);
}

static aif_time_ns
gcd_ns(aif_time_ns a, aif_time_ns b)
{
	while (b != 0) {
		aif_time_ns r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* The edge ports' inputs are done, the jobs too, and nothing is in flight. */
static int
inputs_idle(void *arg)
{
	struct aif_run *r = arg;

	if (!aif_edges_idle(&r->edges))
		return 0;
	/* unfinished jobs on hosts with nothing left to do, an empty fabric:
	 * nothing will ever happen again (said at the end) */
	return r->o.jobs == NULL || aif_workload_idle(&r->wl) || aif_workload_stuck(&r->wl);
}

struct progress {
	double t0, last;
	const struct aif_runner *w;
};

static void
progress(const struct aif_evloop *loop, void *arg)
{
	struct progress *pr = arg;
	double now = aif_report_mono_s();

	if (now - pr->last < 1.0)
		return;
	pr->last = now;
	fprintf(stderr, "  virtual %.3f ms, %" PRIu64 " events, %" PRIu64 " packet-hops, "
		"%.1f s\n", (double)loop->now_ns / 1e6, loop->events,
		aif_runner_source_packets(pr->w), now - pr->t0);
}

/* --capture SWITCH:PORT: both ways from the start. */
static int
captures_start(struct aif_run *r)
{
	const struct aif_opts *o = &r->o;
	const struct aif_fabric *fab = &r->fab;
	char err[AIF_ERR_MAX];

	for (unsigned i = 0; i < o->n_capture; i++) {
		char sw_name[AIF_NAME_MAX], file[2 * AIF_NAME_MAX + 16];
		const char *colon = strchr(o->capture[i], ':');
		snprintf(sw_name, sizeof(sw_name), "%.*s", (int)(colon - o->capture[i]),
			 o->capture[i]);
		int si = -1, pi = -1;
		for (uint16_t x = 0; x < fab->n_sw && si < 0; x++)
			if (strcmp(fab->sw[x]->name, sw_name) == 0)
				si = x;
		for (uint16_t x = 0; si >= 0 && x < fab->sw[si]->n_ports && pi < 0; x++)
			if (strcmp(fab->sw[si]->ports[x].name, colon + 1) == 0)
				pi = x;
		if (pi < 0) {
			fprintf(stderr, "--capture %s: no such switch port\n", o->capture[i]);
			return -1;
		}
		snprintf(file, sizeof(file), "%s-%s.pcapng", sw_name, colon + 1);
		struct aif_capture_params cp = { .snaplen = 65535, .drops = true };
		if (aif_capture_start(fab->sw[si], (uint16_t)pi, o->capture_dir, file, &cp,
				      aif_clock_now(&r->ctl.clock), err, sizeof(err)) != 0) {
			fprintf(stderr, "--capture %s: %s\n", o->capture[i], err);
			return -1;
		}
	}
	return 0;
}

int
aif_run_virtual(struct aif_run *r)
{
	const struct aif_opts *o = &r->o;
	struct aif_ctl_action *acts = calloc(o->n_link_ev + o->n_lb_ev + 1, sizeof(*acts));
	struct ticks tk = { 0 };
	struct aif_ctl *ctl = &r->ctl;
	struct aif_workload *wl = &r->wl;
	unsigned n_acts = o->n_link_ev + o->n_lb_ev;
	char err[AIF_ERR_MAX];
	int rc = -1;

	if (acts == NULL || aif_schedule_parse(o, ctl, acts) != 0)
		goto out;
	aif_time_ns sample_ns = (aif_time_ns)((o->sample_us > 0 ? o->sample_us : 10) * 1e3 + 0.5);
	aif_time_ns tick_ns = 0;
	if (o->samples != NULL) {
		tk.sm = aif_samples_open(o->samples, ctl, o->jobs != NULL ? &wl->v : NULL,
					 sample_ns, err, sizeof(err));
		if (tk.sm == NULL) {
			fprintf(stderr, "--samples %s\n", err);
			goto out;
		}
		tick_ns = sample_ns;
	}
	if (o->jobs != NULL && o->results != NULL && (wl->mon_params.pfc || wl->mon_params.qlen)) {
		if (aif_workload_monitors(wl, ctl) != 0) {
			fprintf(stderr, "--results: out of memory\n");
			goto out;
		}
		tk.mon = wl->mon;
		if (wl->mon_params.qlen)
			tick_ns = tick_ns ? gcd_ns(tick_ns, wl->mon_params.qlen_interval_ns)
					  : wl->mon_params.qlen_interval_ns;
	}
	if (captures_start(r) != 0)
		goto out;

	/* --traffic: the hosts send for --duration, then the fabric drains (at
	 * most 10 ms more: a fabric that cannot empty itself, a PFC deadlock,
	 * is stopped there) */
	aif_time_ns now = aif_clock_now(&ctl->clock), dur = (aif_time_ns)(o->duration_s * 1e9 + 0.5);
	aif_time_ns end = o->traffic_load > 0 ? dur + 10 * AIF_NS_PER_MS
			: o->duration_s > 0 ? dur : AIF_TIME_NS_NEVER;
	struct aif_evloop loop;
	struct aif_ctl_schedule sched;
	struct aif_ev_periodic samples;
	struct aif_ctl_tick ctick;
	struct aif_ev_source *rs = aif_runner_source(r->runners[0]);
	struct progress pr = { aif_report_mono_s(), aif_report_mono_s(), r->runners[0] };
	if (rs == NULL) {
		fprintf(stderr, "virtual time: out of memory\n");
		goto out;
	}
	aif_evloop_init(&loop, &ctl->clock, end);
	aif_ctl_schedule_init(&sched, ctl, acts, n_acts, now);
	aif_evloop_add(&loop, &sched.src);
	if (tick_ns) {
		aif_ev_periodic_init(&samples, now, tick_ns, tick, &tk);
		aif_evloop_add(&loop, &samples.src);
	}
	aif_ctl_tick_init(&ctick, ctl, now, AIF_CTL_TICK_NS);
	aif_evloop_add(&loop, &ctick.src);
	aif_evloop_add(&loop, rs);
	if (!(o->duration_s > 0 && o->traffic_load <= 0 && o->jobs == NULL)) {
		loop.idle = inputs_idle;
		loop.idle_arg = r;
	}
	loop.stop = &aif_run_stop;
	loop.progress = progress;
	loop.progress_arg = &pr;
	loop.progress_ns = 100 * AIF_NS_PER_US;
	if (o->jobs != NULL && aif_vhosts_wake_by(&wl->v, r->runners[0]) != 0) {
		fprintf(stderr, "out of memory\n");
		goto out;
	}
	if (o->duration_s <= 0 && inputs_idle(r))
		printf("no input: nothing to run (--pcap-in SWITCH:PORT=FILE, --jobs FILE)\n");
	if (o->jobs != NULL && wl->planes > 1)
		/* a host has a port (a virtual NIC) on every plane */
		printf("  %u virtual hosts, each with a port on %u planes (%u host ports), "
		       "%u job%s from %s\n", wl->n_hosts, wl->planes, wl->v.n,
		       wl->n_jobs, wl->n_jobs == 1 ? "" : "s", o->jobs);
	else if (o->jobs != NULL)
		printf("  %u virtual hosts, %u job%s from %s\n", wl->v.n, wl->n_jobs,
		       wl->n_jobs == 1 ? "" : "s", o->jobs);
	r->ran = true;
	aif_evloop_run(&loop);
	r->elapsed_s = aif_report_mono_s() - pr.t0;
	r->end_ns = aif_clock_now(&ctl->clock);
	r->events = loop.events;
	r->packets = aif_runner_source_packets(r->runners[0]);
	wl->end_ns = r->end_ns;
	rc = 0;
	if (o->samples != NULL) {
		/* the last stretch, so that the samples add up to the totals */
		int bad = aif_samples_close(tk.sm, r->end_ns);
		tk.sm = NULL;
		if (bad) {
			fprintf(stderr, "--samples %s: could not write in full\n", o->samples);
			rc = -1;
		} else {
			printf("  samples every %.3f us: %s-links.csv, %s-queues.csv%s%s%s\n",
			       (double)sample_ns / 1e3, o->samples, o->samples,
			       o->jobs != NULL ? ", " : "", o->jobs != NULL ? o->samples : "",
			       o->jobs != NULL ? "-qps.csv" : "");
		}
	}
out:
	if (acts != NULL)
		aif_schedule_free(acts, n_acts);
	free(acts);
	return rc;
}
