/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time (run.h aif_run_virtual): one loop (dataplane/evloop.h) on
 * control's virtual clock, over, in this order on a tie: the scheduled
 * actions (--link, --lb), the samples and monitors (--samples, the
 * --results monitors), control's tick, and the runner that drives every
 * switch and virtual host.  Control's periodic work runs at fixed virtual
 * times, so a run depends on nothing but its inputs and seeds.
 *
 * On several runners (--runners, control/partition.h) the same sources,
 * each runner in its own loop on its own thread, window by window
 * (dataplane/windows.h): the same results, byte for byte.  Each runner's
 * busy and waiting times are said at the end.  Under mpirun, each rank
 * runs its share of the runners (its windows' parts) and the windows meet
 * the other ranks' through MPI (control/ranks.h); rank 0 reports.
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
#include "../dataplane/windows.h"
#include "ctl_events.h"
#include "monitors.h"
#include "ranks.h"
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

/* Several runners, a runner without windows among them (AIF_RUNNER_GROUP_MAX):
 * its part samples its switches' queues for qlen.txt, in the part's own
 * loop, at the times the one loop's tick would (every tick_ns from base_ns,
 * from the monitors' next sample on).  The others' runners do it
 * themselves (qlen_drives). */
struct qlen_src {
	struct aif_ev_source src;
	struct aif_monitors *mon;
	uint16_t sw[AIF_MAX_SWITCHES];
	uint16_t n_sw;
	aif_time_ns base_ns, tick_ns;
	aif_time_ns due_ns;       /* the monitors' next sample */
};

/* The tick's first time at or after due (every tick_ns from base_ns). */
static aif_time_ns
on_tick(aif_time_ns base_ns, aif_time_ns tick_ns, aif_time_ns due)
{
	if (due == AIF_TIME_NS_NEVER || due <= base_ns)
		return due == AIF_TIME_NS_NEVER ? AIF_TIME_NS_NEVER : base_ns;
	return base_ns + (due - base_ns + tick_ns - 1) / tick_ns * tick_ns;
}

static aif_time_ns
qlen_next(struct aif_ev_source *s, aif_time_ns now_ns)
{
	const struct qlen_src *q = (const struct qlen_src *)s;

	(void)now_ns;
	return on_tick(q->base_ns, q->tick_ns, q->due_ns);
}

static unsigned
qlen_fire(struct aif_ev_source *s, aif_time_ns t)
{
	struct qlen_src *q = (struct qlen_src *)s;

	if (aif_monitors_qlen_over(q->mon, t)) {
		q->due_ns = AIF_TIME_NS_NEVER;
		return 0;
	}
	for (uint16_t i = 0; i < q->n_sw; i++)
		aif_monitors_qlen_take(q->mon, t, q->sw[i]);
	q->due_ns = aif_monitors_qlen_after(q->mon, t);
	return 0;
}

static const struct aif_ev_ops qlen_ops = { .next_ns = qlen_next, .fire = qlen_fire };

static struct qlen_drives *qlen_drives(struct aif_runner *w, struct aif_monitors *mon,
				       aif_time_ns base_ns, aif_time_ns tick_ns);

/* Each part's runner samples its switches (qd[k], the k-th part of this
 * rank's) where it can (qlen_drives), a source of the part's loop where it
 * cannot. */
static struct qlen_src *
qlen_srcs(const struct aif_run *r, struct aif_monitors *mon, aif_time_ns base_ns,
	  aif_time_ns tick_ns, struct aif_windows *win, struct qlen_drives **qd)
{
	struct qlen_src *q = calloc(r->n_run, sizeof(*q));

	/* several ranks: this one's parts' (its windows' k-th: part mine[k]) */
	for (unsigned k = 0; q != NULL && k < r->n_mine; k++) {
		unsigned i = r->mine[k];
		if ((qd[k] = qlen_drives(r->mine_run[k], mon, base_ns, tick_ns)) != NULL)
			continue;
		q[i] = (struct qlen_src){ .src = { .ops = &qlen_ops, .flags = AIF_EV_QUIET },
					  .mon = mon, .base_ns = base_ns, .tick_ns = tick_ns,
					  .due_ns = aif_monitors_qlen_first_ns(mon) };
		for (uint16_t s = 0; s < r->fab.n_sw; s++)
			if (r->runner_of[s] == i)
				q[i].sw[q[i].n_sw++] = s;
		if (aif_windows_add_to(win, k, &q[i].src) != 0) {
			free(q);
			return NULL;
		}
	}
	return q;
}

/*
 * A runner samples its switches' queues for qlen.txt itself, each in that
 * switch's own time order (runner.h aif_runner_drive_ticks), at the times
 * the loop's tick would.  As a source of the loop, every 100 ns by
 * default, the samples ended every window of the runner there: one runner
 * went through all its switches ten times a microsecond, their state out
 * of the caches each time (a k=16 fat-tree's all-to-all on one runner 1.6
 * times as long as with the monitor off, a k=12 one's 1.15 times; on 36
 * runners taking turns on one thread, each a few switches, 1.02 times).
 */
struct qlen_drives {
	struct aif_monitors *mon;
	aif_time_ns base_ns, tick_ns;
	uint16_t sw[AIF_RUNNER_MAX_SWITCHES]; /* drive d's switch */
};

static aif_time_ns
qlen_drive_tick(void *arg, uint16_t d, aif_time_ns t)
{
	struct qlen_drives *q = arg;

	if (aif_monitors_qlen_over(q->mon, t))
		return AIF_TIME_NS_NEVER;
	aif_monitors_qlen_take(q->mon, t, q->sw[d]);
	return on_tick(q->base_ns, q->tick_ns, aif_monitors_qlen_after(q->mon, t));
}

/* Runner w samples its switches (NULL: it cannot, a source does). */
static struct qlen_drives *
qlen_drives(struct aif_runner *w, struct aif_monitors *mon, aif_time_ns base_ns,
	    aif_time_ns tick_ns)
{
	struct qlen_drives *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	*q = (struct qlen_drives){ .mon = mon, .base_ns = base_ns, .tick_ns = tick_ns };
	for (uint16_t d = 0; d < w->n_drive; d++)
		q->sw[d] = w->drive[d].sw->index; /* (its place in the fabric: fabric.c) */
	if (aif_runner_drive_ticks(w, on_tick(base_ns, tick_ns, aif_monitors_qlen_first_ns(mon)),
				   qlen_drive_tick, q) != 0) {
		free(q);
		return NULL;
	}
	return q;
}

/* The samples that no event of their switch's came after, to where the run
 * stopped; the last of them an event of the run's (clock), as a source's
 * is. */
static void
qlen_drives_end(const struct aif_run *r, struct qlen_drives *const *qd, aif_time_ns stop_ns,
		struct aif_clock *clock)
{
	for (unsigned k = 0; k < r->n_mine && stop_ns != AIF_TIME_NS_NEVER; k++) {
		aif_time_ns last = qd[k] != NULL ? aif_runner_drive_ticks_until(r->mine_run[k], stop_ns)
						 : 0;
		if (last > aif_clock_now(clock))
			aif_clock_set(clock, last);
	}
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

static void
progress_win(const struct aif_windows *win, void *arg)
{
	struct progress *pr = arg;
	double now = aif_report_mono_s();

	if (now - pr->last < 1.0)
		return;
	pr->last = now;
	fprintf(stderr, "  virtual %.3f ms, %" PRIu64 " events, %" PRIu64 " packet-hops, "
		"%.1f s (%u %s)\n", (double)win->win_end_ns / 1e6, aif_windows_events(win),
		aif_windows_packets(win), now - pr->t0, aif_ranks_on() ? (unsigned)aif_ranks_size() : win->n,
		aif_ranks_on() ? "ranks; rank 0's events" : "runners");
}

/* The set as a list of ranges ("0-3,8"). */
static const char *
cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && k < len; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		int w = e > c ? snprintf(buf + k, len - k, "%s%d-%d", k ? "," : "", c, e)
			      : snprintf(buf + k, len - k, "%s%d", k ? "," : "", c);
		if (w < 0 || (size_t)w >= len - k) {
			snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
			break;
		}
		k += (size_t)w;
		c = e;
	}
	return buf;
}

/* Each runner's share of the run: busy (its windows' wall and CPU time),
 * waiting at the barrier; and what the windows say of the speed-up. */
static json_t *
windows_report(const struct aif_windows *win)
{
	json_t *arr = json_array();
	cpu_set_t set;
	unsigned cores = aif_windows_cores(win, &set);
	char list[128];

	printf("  %u runners: %" PRIu64 " windows of at most %.3f us, %.3f s between "
	       "windows on runner 0's thread\n", win->n, win->windows,
	       (double)win->lookahead_ns / 1e3, (double)win->serial_ns / 1e9);
	if (win->n_threads < win->n)
		printf("    the %u runners in turn on %u thread%s, one a core\n", win->n,
		       win->n_threads, win->n_threads == 1 ? "" : "s");
	printf("    on %u core%s (%s)%s\n", cores, cores == 1 ? "" : "s",
	       cpu_list(&set, list, sizeof(list)),
	       cores < win->n_threads ? ": fewer than the runners' threads, which take turns "
					"(taskset, a cgroup)" : "");
	for (unsigned i = 0; i < win->n; i++) {
		const struct aif_windows_part *p = &win->part[i];
		printf("    runner %u: busy %.3f s (CPU %.3f s), waiting %.3f s, %" PRIu64
		       " events, %" PRIu64 " packet-hops\n", i, (double)p->busy_ns / 1e9,
		       (double)p->cpu_total_ns / 1e9, (double)p->wait_ns / 1e9, p->loop.events,
		       aif_runner_source_packets(p->w));
		json_array_append_new(arr, json_pack(
			"{s:f, s:f, s:f, s:I, s:I}", "busy_s", (double)p->busy_ns / 1e9,
			"cpu_s", (double)p->cpu_total_ns / 1e9, "wait_s", (double)p->wait_ns / 1e9,
			"events", (json_int_t)p->loop.events,
			"packet_hops", (json_int_t)aif_runner_source_packets(p->w)));
	}
	/* the busiest runner's CPU per window, summed: the run's time on as
	 * many free cores, barriers aside */
	if (win->crit_cpu_ns > 0)
		printf("    critical path %.3f s of %.3f s of work (CPU, the busiest runner of "
		       "each window): %.2fx one runner's work at most\n",
		       (double)win->crit_cpu_ns / 1e9, (double)win->work_cpu_ns / 1e9,
		       (double)win->work_cpu_ns / (double)win->crit_cpu_ns);
	/* the longest runner of each window, summed: the loop on a free core
	 * per runner, barriers aside (what the model of more cores reads:
	 * README; clean where each thread has a core, --threads 1 on a busy
	 * machine) */
	if (win->windows > 0 && win->n > 1)
		printf("    longest runner of each window %.3f s (wall, summed: the loop on a free core "
		       "per runner, barriers aside)\n", (double)win->crit_part_ns / 1e9);
	/* what a window costs beyond its longest runner: the barrier (and, on
	 * a machine with fewer free cores than runners, waiting for one) */
	if (win->windows > 0)
		printf("    barrier %.3f s, %.2f us per window (wall: each window's, less its "
		       "longest runner's; windows: a tenth under %.1f us, half under %.1f us)\n",
		       (double)win->barrier_ns / 1e9,
		       (double)win->barrier_ns / 1e3 / (double)win->windows,
		       (double)aif_windows_barrier_ns_at(win, 0.1) / 1e3,
		       (double)aif_windows_barrier_ns_at(win, 0.5) / 1e3);
	return json_pack("{s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}",
			 "n", (int)win->n, "cores", (int)cores,
			 "windows", (json_int_t)win->windows,
			 "lookahead_us", (double)win->lookahead_ns / 1e3,
			 "serial_s", (double)win->serial_ns / 1e9,
			 "critical_cpu_s", (double)win->crit_cpu_ns / 1e9,
			 "work_cpu_s", (double)win->work_cpu_ns / 1e9,
			 "critical_wall_s", (double)win->crit_wall_ns / 1e9,
			 "critical_runner_s", (double)win->crit_part_ns / 1e9,
			 "barrier_s", (double)win->barrier_ns / 1e9,
			 "barrier_p10_us", (double)aif_windows_barrier_ns_at(win, 0.1) / 1e3,
			 "barrier_p50_us", (double)aif_windows_barrier_ns_at(win, 0.5) / 1e3,
			 "runners", arr);
}

/* Several ranks: each says its own share (on stderr: rank 0's stdout is
 * the run's). */
static void
ranks_report(const struct aif_run *r, const struct aif_windows *win)
{
	uint64_t busy = 0, cpu = 0, events = 0, hops = 0;

	for (unsigned i = 0; i < win->n; i++) {
		const struct aif_windows_part *p = &win->part[i];
		busy += p->busy_ns;
		cpu += p->cpu_total_ns;
		events += p->loop.events;
		hops += aif_runner_source_packets(p->w);
	}
	char which[8 * AIF_MAX_RUNNERS];
	size_t at = (size_t)snprintf(which, sizeof(which), "runner%s", win->n == 1 ? "" : "s");
	for (unsigned k = 0; k < r->n_mine && at < sizeof(which); k++)
		at += (size_t)snprintf(which + at, sizeof(which) - at, "%s%u", k ? "," : " ",
				       r->mine[k]);
	/* (one write: the ranks share the terminal) */
	fprintf(stderr, "  rank %d of %d: %" PRIu64 " windows of at most %.3f us, %s on %u "
		"thread%s, busy %.3f s (CPU %.3f s), %" PRIu64 " events, %" PRIu64 " packet-hops, "
		"%.3f s in all, peak resident memory %.1f MiB\n", aif_ranks_rank(),
		aif_ranks_size(), win->windows, (double)win->lookahead_ns / 1e3, which,
		win->n_threads, win->n_threads == 1 ? "" : "s", (double)busy / 1e9,
		(double)cpu / 1e9, events, hops, win->wall_s,
		(double)aif_report_peak_rss_kb() / 1024);
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
	struct aif_windows win = { 0 };
	struct qlen_src *qlen = NULL;
	struct qlen_drives *qd[AIF_MAX_RUNNERS] = { NULL }; /* this rank's k-th runner's */
	struct aif_ctl *ctl = &r->ctl;
	struct aif_workload *wl = &r->wl;
	unsigned n_acts = o->n_link_ev + o->n_lb_ev;
	char err[AIF_ERR_MAX];
	int rc = -1;
	bool agreed = false;

	if (acts == NULL || aif_schedule_parse(o, ctl, acts) != 0)
		goto out;
	aif_time_ns sample_ns = (aif_time_ns)((o->sample_us > 0 ? o->sample_us : 10) * 1e3 + 0.5);
	aif_time_ns tick_ns = 0, qlen_tick_ns = 0;
	if (o->samples != NULL) {
		tk.sm = aif_samples_open(o->samples, ctl, o->jobs != NULL ? &wl->v : NULL,
					 sample_ns, err, sizeof(err));
		if (tk.sm == NULL) {
			fprintf(stderr, "--samples %s\n", err);
			goto out;
		}
		tick_ns = sample_ns;
	}
	bool ranks = aif_ranks_on();
	if (o->jobs != NULL && o->results != NULL && (wl->mon_params.pfc || wl->mon_params.qlen)) {
		if (aif_workload_monitors(wl, ctl) != 0) {
			fprintf(stderr, "--results: out of memory\n");
			goto out;
		}
		tk.mon = wl->mon;
		if (wl->mon_params.qlen)
			qlen_tick_ns = tick_ns ? gcd_ns(tick_ns, wl->mon_params.qlen_interval_ns)
					       : wl->mon_params.qlen_interval_ns;
	}
	/* the queue monitor on the samples' tick: each runner's own (below,
	 * qlen_drives), else one loop's tick or each part's source */
	bool par = r->n_run > 1;
	if (par)
		tk.mon = NULL;
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
	struct progress pr = { aif_report_mono_s(), aif_report_mono_s(), r->runners[0] };
	struct aif_ev_source *rs = par ? NULL : aif_runner_source(r->runners[0]);
	/* several ranks: this one's runners, the others' through MPI */
	if (par ? aif_windows_init(&win, r->mine_run, r->n_mine,
				   r->part.lookahead_ns, &ctl->clock, end) != 0
		: rs == NULL) {
		fprintf(stderr, "virtual time: out of memory\n");
		goto out;
	}
	if (par)
		win.n_threads = r->n_threads;
	/* one runner: the queue monitor in the runner, else on the loop's tick */
	if (!par && qlen_tick_ns && tk.mon != NULL &&
	    (qd[0] = qlen_drives(r->runners[0], tk.mon, now, qlen_tick_ns)) != NULL)
		tk.mon = NULL;
	if (tk.mon != NULL && qlen_tick_ns)
		tick_ns = qlen_tick_ns;
	aif_evloop_init(&loop, &ctl->clock, end);
	aif_ctl_schedule_init(&sched, ctl, acts, n_acts, now);
	/* control's sources, in this order on a tie, before the runners */
	struct aif_ev_source *srcs[3];
	unsigned n_srcs = 0;
	srcs[n_srcs++] = &sched.src;
	if (tick_ns) {
		aif_ev_periodic_init(&samples, now, tick_ns, tick, &tk);
		samples.src.flags |= AIF_EV_QUIET;
		srcs[n_srcs++] = &samples.src;
	}
	aif_ctl_tick_init(&ctick, ctl, now, AIF_CTL_TICK_NS);
	srcs[n_srcs++] = &ctick.src;
	for (unsigned i = 0; i < n_srcs; i++)
		if (par)
			aif_windows_add(&win, srcs[i]);
		else
			aif_evloop_add(&loop, srcs[i]);
	if (!par)
		aif_evloop_add(&loop, rs);
	if (par && qlen_tick_ns && wl->mon != NULL &&
	    (qlen = qlen_srcs(r, wl->mon, now, qlen_tick_ns, &win, qd)) == NULL) {
		fprintf(stderr, "virtual time: out of memory\n");
		goto out;
	}
	if (!(o->duration_s > 0 && o->traffic_load <= 0 && o->jobs == NULL)) {
		loop.idle = win.idle = inputs_idle;
		loop.idle_arg = win.idle_arg = r;
	}
	loop.stop = win.stop = &aif_run_stop;
	loop.progress = progress;
	loop.progress_arg = win.progress_arg = &pr;
	loop.progress_ns = win.progress_ns = 100 * AIF_NS_PER_US;
	win.progress = progress_win;
	if (ranks && aif_ranks_rank() != 0)
		win.progress = NULL;
	struct aif_ranks_fabric rf = { r->cfg, &r->fab, wl, &r->edges, r->pool, r->runner_of };
	if (ranks && aif_ranks_join(&rf, &win) != 0) {
		fprintf(stderr, "virtual time: out of memory\n");
		goto out;
	}
	for (unsigned i = 0; o->jobs != NULL && i < r->n_run; i++)
		if (aif_vhosts_wake_by(&wl->v, r->runners[i]) != 0) {
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
	/* several ranks: the first window taken by all or by none (a rank
	 * that stopped before says so at out) */
	agreed = true;
	if (aif_ranks_agree(0, 0) != 0)
		goto out;
	r->ran = true;
	if (par) {
		if (aif_windows_run(&win) == AIF_TIME_NS_NEVER) {
			fprintf(stderr, "virtual time: cannot start the runners' threads\n");
			goto out;
		}
		qlen_drives_end(r, qd, win.stop_ns, &ctl->clock);
		r->events = aif_windows_events(&win);
		r->packets = aif_windows_packets(&win);
		if (ranks)
			ranks_report(r, &win);
		else
			r->vt_runners = windows_report(&win);
	} else {
		aif_evloop_run(&loop);
		qlen_drives_end(r, qd, loop.stop_ns, &ctl->clock);
		r->events = loop.events;
		r->packets = aif_runner_source_packets(r->runners[0]);
	}
	r->elapsed_s = aif_report_mono_s() - pr.t0;
	r->end_ns = aif_clock_now(&ctl->clock);
	wl->end_ns = r->end_ns;
	if (ranks) {
		/* the last event, events and packets of every rank; its results */
		uint64_t v[3] = { r->end_ns, r->events, r->packets };
		if (aif_ranks_gather(&win, v, 3) != 0)
			goto out;
		r->end_ns = wl->end_ns = v[0];
		r->events = v[1];
		r->packets = v[2];
		aif_clock_set(&ctl->clock, r->end_ns);
		if (aif_ranks_rank() != 0)
			r->o.results = NULL; /* one writer: rank 0 */
	}
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
	if (!agreed)
		(void)aif_ranks_agree(-1, 0);
	aif_windows_free(&win);
	free(qlen);
	for (unsigned k = 0; k < AIF_MAX_RUNNERS; k++)
		free(qd[k]);
	if (acts != NULL)
		aif_schedule_free(acts, n_acts);
	free(acts);
	return rc;
}
