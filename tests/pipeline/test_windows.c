/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runners in windows (dataplane/windows.c): a generated 4-leaf x 2-spine
 * leaf-spine with virtual RoCE hosts and jobs, run by one loop and by 2, 3
 * and 6 runners (the fabric split as the daemon splits it,
 * control/partition.h), each on its own thread:
 *
 *  - an all-to-all, a ring all-reduce and an incast into a small buffer
 *    with PFC (pauses crossing between runners): every iteration's start
 *    and end, every flow's, every host's, switch port's and link
 *    direction's counters and the end time are the same, to the
 *    nanosecond and the packet;
 *  - two planes (a rank's ports on two leaves, tied to one runner), a
 *    ring all-reduce: the same;
 *  - the windows skip time with nothing in it (the jobs start late), no
 *    window is longer than the lookahead, and every runner worked;
 *  - a runner's own times for each switch (a queue monitor's samples) see
 *    what a source of the loop sampling every switch at once sees;
 *  - a pool an eighth the size of what the jobs hold at once, given spares
 *    as virtual time gives its pool (dataplane/mbuf.h): no host waits for
 *    an mbuf, and 1, 2, 3 and 6 runners, three times over, give the
 *    results of the large pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "clock.h"
#include "commands.h"
#include "config.h"
#include "ctl_events.h"
#include "evloop.h"
#include "fabric.h"
#include "frame.h"
#include "jobs.h"
#include "link.h"
#include "mbuf.h"
#include "partition.h"
#include "qos.h"
#include "runner.h"
#include "shard.h"
#include "vhosts.h"
#include "windows.h"

#include "test_eal.h"

#define N_HOSTS 8
#define START_NS (300 * AIF_NS_PER_US)
#define DRY_MBUFS 128 /* an eighth of what the jobs hold at once */

static struct rte_mempool *main_pool;

struct run_out {
	uint64_t digest;      /* everything the run did, folded */
	aif_time_ns end_ns;
	uint64_t windows, pauses;
	unsigned n_run;
	uint64_t part_events[AIF_MAX_RUNNERS];
	uint64_t nombuf;      /* frames the hosts could not send for want of an mbuf */
	unsigned spares;      /* spare pools the pool was given */
};

static inline void
fold(uint64_t *h, uint64_t v)
{
	*h = (*h ^ v) * 0x100000001b3ull;
}

/* b is the run a was: its end and everything it did (the digest). */
static void
assert_same_run(const struct run_out *a, const struct run_out *b)
{
	assert_int_equal(a->end_ns, b->end_ns);
	assert_int_equal(a->digest, b->digest);
}

struct idle_arg {
	struct aif_jobs *js;
	struct aif_vhosts *v;
};

static int
idle(void *arg)
{
	struct idle_arg *a = arg;

	if (!aif_jobs_done(a->js))
		return 0;
	for (uint32_t i = 0; i < a->v->n; i++)
		if (!aif_rhost_idle(a->v->h[i]))
			return 0;
	return 1;
}

/*
 * The windows as processes would run them (control/ranks.h), in one: after
 * each window every frame on a link between two runners leaves its line
 * (aif_link_take) and a copy of it comes back (aif_link_put_arrival), as
 * the sender's rank would send it and the receiver's take it in.
 */
struct fake_net {
	struct aif_windows_net ops;
	const struct aif_config *cfg;
	const struct aif_fabric *fab;
	const uint16_t *runner_of;
	struct rte_mempool *pool; /* where the copies come from */
	uint64_t min_calls, window_ends, frames;
};

static struct fake_net *use_net; /* run_with() joins its windows to it */

static aif_time_ns
fake_min_ns(void *arg, aif_time_ns t)
{
	((struct fake_net *)arg)->min_calls++;
	return t;
}

static aif_time_ns
fake_window_end(void *arg, aif_time_ns t)
{
	struct fake_net *f = arg;
	struct aif_link_slot s[4096];

	f->window_ends++;
	for (uint32_t k = 0; k < f->cfg->n_links; k++) {
		if (f->runner_of[f->cfg->links[k].a_switch] == f->runner_of[f->cfg->links[k].b_switch])
			continue;
		for (uint8_t d = 0; d < 2; d++) {
			unsigned n = 0;
			while (n < RTE_DIM(s) && aif_link_take(f->fab->link[k], d, &s[n]))
				n++;
			assert_true(n < RTE_DIM(s)); /* all of them: back in order */
			for (unsigned i = 0; i < n; i++) {
				struct rte_mbuf *m = aif_frame_copy(s[i].m, f->pool, UINT32_MAX);
				assert_non_null(m);
				rte_pktmbuf_free(s[i].m);
				s[i].m = m;
				assert_int_equal(aif_link_put_arrival(f->fab->link[k], d, &s[i]), 0);
			}
			f->frames += n;
		}
	}
	return t;
}

/*
 * A sample of every switch every TICK_NS (what the queue monitor takes):
 * 0 none; 1 a source of the loop, every switch at once; 2 the runner's own
 * times, each switch in its own time order (runner.h
 * aif_runner_drive_ticks).  What each saw: its port counters and its
 * buffer's bytes, at each time.
 */
#define TICK_NS 250
static int tick_mode;
struct tick_rec {
	aif_time_ns t;
	uint64_t seen;
};
static struct tick_rec *recs[AIF_MAX_SWITCHES];
static uint32_t n_recs[AIF_MAX_SWITCHES], cap_recs[AIF_MAX_SWITCHES];

static void
record(const struct aif_switch *sw, uint16_t s, aif_time_ns t)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint16_t p = 0; p < sw->n_ports; p++) {
		fold(&h, sw->shards[0]->port_ctr[p].rx_packets);
		fold(&h, sw->shards[0]->port_ctr[p].tx_packets);
	}
	fold(&h, sw->qos->mmu.used_bytes);
	if (n_recs[s] == cap_recs[s]) {
		cap_recs[s] = cap_recs[s] ? 2 * cap_recs[s] : 1024;
		assert_non_null(recs[s] = realloc(recs[s], cap_recs[s] * sizeof(*recs[s])));
	}
	recs[s][n_recs[s]++] = (struct tick_rec){ t, h };
}

static void
loop_tick(aif_time_ns t, void *arg)
{
	const struct aif_fabric *fab = arg;

	for (uint16_t s = 0; s < fab->n_sw; s++)
		record(fab->sw[s], s, t);
}

static const struct aif_fabric *tick_fab;

static aif_time_ns
drive_tick(void *arg, uint16_t d, aif_time_ns t)
{
	(void)arg;
	record(tick_fab->sw[d], d, t); /* (one runner: drive d is switch d) */
	return t + TICK_NS;
}

/* Threads the next run's runners go on (0: one each). */
static unsigned run_threads;
static bool run_tie_all;  /* every switch of a runner tied (one group) */

/* Jobs on planes (1 or 2) run by n runners (1: one loop, as the daemon's),
 * their frames from pool. */
static void
run_with(unsigned planes, unsigned n, struct rte_mempool *pool, struct run_out *out)
{
	char json[1024], err[AIF_ERR_MAX] = "";
	struct aif_config *cfg;
	struct aif_fabric fab;
	static struct aif_ctl ctl;
	struct aif_vhosts v;
	struct aif_rhost_params tmpl;
	struct aif_runner *w[AIF_MAX_RUNNERS] = { NULL };

	memset(out, 0, sizeof(*out));
	snprintf(json, sizeof(json),
		 "{\"policies\": {\"default\": {\"load_balancing\": {\"scheme\": \"ecmp\"},"
		 " \"qos\": {\"pfc_enable\": [3], \"buffer\": {\"size_bytes\": 300000}}}},"
		 " \"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2,"
		 " \"hosts_per_leaf\": 2, \"host_gbps\": 100, \"uplink_gbps\": 100,"
		 " \"planes\": %u, \"delay_ns\": 1000}}}", planes);
	if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	memset(&fab, 0, sizeof(fab));
	memset(&ctl, 0, sizeof(ctl));
	if (aif_fabric_build(&fab, cfg, pool, 1, 0x5eed, err, sizeof(err)) != 0)
		fail_msg("fabric: %s", err);
	aif_rhost_params_default(&tmpl, 100000000000ull);
	tmpl.icrc = false;
	if (aif_vhosts_build(&v, cfg, &fab, &tmpl, NULL, NULL, pool, err, sizeof(err)) != 0)
		fail_msg("hosts: %s", err);
	assert_int_equal(v.n, N_HOSTS * planes);
	aif_clock_init_virtual(&ctl.clock, 0);
	for (uint16_t i = 0; i < fab.n_sw; i++)
		aif_ctl_add_switch(&ctl, fab.sw[i]);
	if (aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err)) != 0)
		fail_msg("load: %s", err);

	/* the jobs: rank r's plane k on host k * N_HOSTS + r (config order) */
	struct aif_jobs *js = aif_jobs_create(v.h, v.n, v.rate_bps, aif_vhosts_rtt, &v);
	assert_non_null(js);
	aif_jobs_set_path(js, aif_vhosts_path);
	uint32_t all[2 * N_HOSTS], inc[4 * 2];
	for (uint32_t r = 0; r < N_HOSTS; r++)
		for (uint32_t k = 0; k < planes; k++)
			all[r * planes + k] = k * N_HOSTS + r;
	for (uint32_t r = 0; r < 4; r++) /* into leaf3's first host from the other leaves */
		for (uint32_t k = 0; k < planes; k++)
			inc[r * planes + k] = k * N_HOSTS + (r == 0 ? 6 : 2 * (r - 1));
	struct aif_job_params jp[3] = {
		{ .kind = AIF_JOB_ALLREDUCE_RING, .n_ranks = N_HOSTS, .planes = planes,
		  .hosts = all, .bytes = 2 << 20, .iterations = 2, .chunks = 2,
		  .start_ns = START_NS, .straggler = -1 },
		{ .kind = AIF_JOB_ALLTOALL, .n_ranks = N_HOSTS, .planes = planes, .hosts = all,
		  .bytes = 1 << 20, .iterations = 1, .chunks = 1, .start_ns = START_NS,
		  .straggler = -1 },
		{ .kind = AIF_JOB_INCAST, .n_ranks = 4, .planes = planes, .hosts = inc,
		  .bytes = 400000, .iterations = 2, .chunks = 1, .start_ns = START_NS + 20000,
		  .straggler = -1 },
	};
	for (unsigned k = 0; k < (planes == 1 ? 3u : 1u); k++)
		if (aif_jobs_add(js, &jp[k], err, sizeof(err)) < 0)
			fail_msg("job: %s", err);

	/* the split: ties where a rank's planes sit on two leaves */
	struct aif_partition pt;
	struct aif_partition_tie ties[2 * N_HOSTS];
	unsigned n_ties = 0;
	for (uint32_t r = 0; planes > 1 && r < N_HOSTS; r++)
		ties[n_ties++] = (struct aif_partition_tie){ v.sw[all[r * planes]],
							     v.sw[all[r * planes + 1]] };
	assert_int_equal(aif_partition_make(&pt, cfg, n, ties, n_ties), 0);
	out->n_run = pt.n_run;
	uint16_t drive_of[AIF_MAX_SWITCHES];
	for (uint16_t s = 0; s < fab.n_sw; s++) {
		unsigned i = pt.runner_of[s];
		int d = 0;
		if (w[i] == NULL)
			assert_non_null(w[i] = aif_runner_create(fab.sw[s], 0, 0x5eed + s));
		else
			assert_true((d = aif_runner_add_switch(w[i], fab.sw[s], 0, 0x5eed + s)) > 0);
		drive_of[s] = (uint16_t)d;
		for (uint16_t p = 0; p < fab.sw[s]->n_ports; p++)
			assert_int_equal(aif_runner_add_rxq_of(w[i], (uint16_t)d, p, 0), 0);
	}
	/* tied switches on one runner step in one time order (runner.h);
	 * every switch of a runner tied: one order over all of them, as a
	 * runner stepped before its own windows */
	for (unsigned i = 0; run_tie_all && i < pt.n_run; i++)
		for (uint16_t d = 1; d < w[i]->n_drive; d++)
			aif_runner_tie(w[i], 0, d);
	for (unsigned k = 0; k < n_ties; k++)
		if (pt.runner_of[ties[k].a] == pt.runner_of[ties[k].b])
			aif_runner_tie(w[pt.runner_of[ties[k].a]], drive_of[ties[k].a],
				       drive_of[ties[k].b]);
	for (unsigned i = 0; i < pt.n_run; i++)
		assert_int_equal(aif_vhosts_wake_by(&v, w[i]), 0);

	struct idle_arg ia = { js, &v };
	struct aif_ctl_tick tick;
	aif_ctl_tick_init(&tick, &ctl, 0, AIF_CTL_TICK_NS);
	if (pt.n_run == 1) {
		struct aif_evloop loop;
		struct aif_ev_periodic per;
		aif_evloop_init(&loop, &ctl.clock, 100 * AIF_NS_PER_MS);
		if (tick_mode == 1) { /* control's sources first on a tie */
			aif_ev_periodic_init(&per, 0, TICK_NS, loop_tick, &fab);
			per.src.flags |= AIF_EV_QUIET;
			assert_int_equal(aif_evloop_add(&loop, &per.src), 0);
		}
		assert_int_equal(aif_evloop_add(&loop, &tick.src), 0);
		assert_int_equal(aif_evloop_add(&loop, aif_runner_source(w[0])), 0);
		tick_fab = &fab;
		if (tick_mode == 2)
			assert_int_equal(aif_runner_drive_ticks(w[0], 0, drive_tick, NULL), 0);
		loop.idle = idle;
		loop.idle_arg = &ia;
		out->end_ns = aif_evloop_run(&loop);
		if (tick_mode == 2) {
			/* those after each switch's last event, to where the loop
			 * stopped, as the loop's source took them (the last, as
			 * the source's, an event of the run's) */
			out->end_ns = RTE_MAX(out->end_ns,
					      aif_runner_drive_ticks_until(w[0], loop.stop_ns));
		}
		out->part_events[0] = loop.events;
	} else {
		struct aif_windows win;
		assert_int_equal(pt.lookahead_ns, 1000);
		assert_int_equal(aif_windows_init(&win, w, pt.n_run, pt.lookahead_ns, &ctl.clock,
						  100 * AIF_NS_PER_MS), 0);
		assert_int_equal(aif_windows_add(&win, &tick.src), 0);
		win.idle = idle;
		win.idle_arg = &ia;
		win.n_threads = run_threads;
		if (use_net != NULL) {
			use_net->ops = (struct aif_windows_net){ fake_min_ns, fake_window_end, use_net };
			use_net->cfg = cfg;
			use_net->fab = &fab;
			use_net->runner_of = pt.runner_of;
			use_net->pool = pool;
			win.net = &use_net->ops;
		}
		out->end_ns = aif_windows_run(&win);
		if (use_net != NULL)
			assert_int_equal(use_net->window_ends, win.windows);
		assert_int_not_equal(out->end_ns, AIF_TIME_NS_NEVER);
		out->windows = win.windows;
		/* every window's barrier counted once; no runner's window longer
		 * than the run, the busiest's CPU no more than all of theirs */
		uint64_t nb = 0;
		for (unsigned i = 0; i < AIF_WINDOWS_HIST; i++)
			nb += win.barrier_hist[i];
		assert_int_equal(nb, win.windows);
		assert_true(win.crit_wall_ns <= (uint64_t)(win.wall_s * 1e9));
		assert_true(win.crit_cpu_ns <= win.work_cpu_ns);
		assert_true(aif_windows_barrier_ns_at(&win, 0.1) <=
			    aif_windows_barrier_ns_at(&win, 0.5));
		for (unsigned i = 0; i < pt.n_run; i++)
			out->part_events[i] = win.part[i].loop.events;
		aif_windows_free(&win);
	}
	assert_true(aif_jobs_done(js));

	/* everything it did */
	uint64_t h = 0xcbf29ce484222325ull;
	fold(&h, out->end_ns);
	for (uint32_t k = 0; k < aif_jobs_n(js); k++) {
		uint32_t ni;
		const struct aif_job_iter *it = aif_jobs_iters(js, k, &ni);
		for (uint32_t i = 0; i < ni; i++) {
			fold(&h, it[i].start_ns);
			fold(&h, it[i].end_ns);
		}
	}
	uint32_t nf;
	const struct aif_flow *fl = aif_jobs_flows(js, &nf);
	for (uint32_t i = 0; i < nf; i++) {
		fold(&h, fl[i].start_ns);
		fold(&h, fl[i].end_ns);
	}
	for (uint32_t i = 0; i < v.n; i++) {
		const struct aif_rhost_ctr *c = aif_rhost_ctr(v.h[i]);
		fold(&h, c->tx_frames);
		fold(&h, c->qp.retx);
		fold(&h, c->qp.cnps_rx);
		fold(&h, c->qp.rx_ce);
		out->nombuf += c->nombuf;
	}
	for (uint16_t s = 0; s < fab.n_sw; s++)
		for (uint16_t p = 0; p < fab.sw[s]->n_ports; p++) {
			const struct aif_port_ctr *c = &fab.sw[s]->shards[0]->port_ctr[p];
			fold(&h, c->rx_packets);
			fold(&h, c->tx_bytes);
			for (unsigned q = 0; q < 8; q++)
				fold(&h, fab.sw[s]->qos->mmu.wm.queue_bytes[p][q]);
			for (unsigned q = 0; q < 8; q++)
				out->pauses += fab.sw[s]->qos->port[p].pfc_tx.ctr.tx_pfc[q];
		}
	for (uint32_t k = 0; k < fab.n_links; k++)
		for (int d = 0; d < 2; d++) {
			fold(&h, fab.link[k]->dir[d].ctr.tx_packets);
			fold(&h, fab.link[k]->dir[d].ctr.busy_ps);
		}
	fold(&h, out->pauses);
	out->digest = h;

	aif_jobs_free(js);
	for (unsigned i = 0; i < AIF_MAX_RUNNERS; i++)
		aif_runner_free(w[i]);
	aif_fabric_free(&fab);
	aif_vhosts_free(&v);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
	struct aif_mbuf_spares_info mi;
	aif_mbuf_spares_info(pool, &mi);
	out->spares = mi.pools;
	assert_int_equal(mi.in_use, 0); /* the spares' too */
	assert_int_equal(mi.failed, 0);
}

static void
run(unsigned planes, unsigned n, struct run_out *out)
{
	run_with(planes, n, main_pool, out);
}

static void
test_same_for_any_split(void **state)
{
	static const unsigned ns[] = { 2, 3, 6 };
	struct run_out one, par;

	(void)state;
	run(1, 1, &one);
	assert_int_equal(one.n_run, 1);
	assert_true(one.pauses > 0); /* the incast pauses across runners below */
	for (unsigned k = 0; k < RTE_DIM(ns); k++) {
		run(1, ns[k], &par);
		print_message("%u runners: %" PRIu64 " windows, end %.3f us, %" PRIu64
			      " pauses\n", par.n_run, par.windows, par.end_ns / 1e3, par.pauses);
		assert_int_equal(par.n_run, ns[k]);
		assert_int_equal(par.pauses, one.pauses);
		assert_same_run(&par, &one);
		uint64_t sum = 0;
		for (unsigned i = 0; i < par.n_run; i++) {
			assert_true(par.part_events[i] > 0);
			sum += par.part_events[i];
		}
		assert_true(sum > 1000);
		/* nothing before the jobs start: skipped, not run window by window;
		 * and no window longer than the lookahead */
		assert_true(par.windows < (par.end_ns - START_NS) / 1000 + 10);
		assert_true(par.windows >= (par.end_ns - START_NS) / 1000 / 2);
	}
	/* several runners on a thread, in turn in each window: the same */
	static const unsigned tr[][2] = { { 6, 1 }, { 6, 2 }, { 3, 2 } };
	for (unsigned k = 0; k < RTE_DIM(tr); k++) {
		run_threads = tr[k][1];
		run(1, tr[k][0], &par);
		run_threads = 0;
		print_message("%u runners on %u thread(s): end %.3f us\n", par.n_run, tr[k][1],
			      par.end_ns / 1e3);
		assert_int_equal(par.n_run, tr[k][0]);
		assert_int_equal(par.pauses, one.pauses);
		assert_same_run(&par, &one);
		for (unsigned i = 0; i < par.n_run; i++)
			assert_true(par.part_events[i] > 0);
	}
}

/*
 * One runner's own windows (runner.h): each switch's steps in a window
 * together, switch by switch, give what one time order over all its
 * switches gives (every switch tied into one group), on one plane and on
 * two (a rank's leaves tied), and on several runners.
 */
static void
test_runner_windows(void **state)
{
	static const unsigned ns[] = { 1, 3 };
	struct run_out win, one_order;

	(void)state;
	for (unsigned planes = 1; planes <= 2; planes++)
		for (unsigned k = 0; k < RTE_DIM(ns); k++) {
			run(planes, ns[k], &win);
			run_tie_all = true;
			run(planes, ns[k], &one_order);
			run_tie_all = false;
			print_message("%u plane(s), %u runner(s): end %.3f us, %" PRIu64
				      " pauses, in windows and in one order\n", planes, win.n_run,
				      win.end_ns / 1e3, win.pauses);
			assert_int_equal(win.n_run, one_order.n_run);
			assert_int_equal(win.pauses, one_order.pauses);
			assert_same_run(&win, &one_order);
		}
}

/*
 * A runner's own times for each switch (runner.h aif_runner_drive_ticks)
 * see each switch as a source of the loop sampling all at once sees it:
 * at every time, in the same state (its events before the time done,
 * none at or after it), from the start to where the loop stopped; the
 * run's results the same.  With the switches in windows of their own and
 * all in one group.
 */
static void
test_drive_ticks(void **state)
{
	struct run_out loop, own;
	struct tick_rec *a[AIF_MAX_SWITCHES];
	uint32_t na[AIF_MAX_SWITCHES];

	(void)state;
	for (int tie = 0; tie <= 1; tie++) {
		run_tie_all = tie;
		memset(n_recs, 0, sizeof(n_recs));
		tick_mode = 1;
		run(1, 1, &loop);
		memcpy(a, recs, sizeof(a));
		memcpy(na, n_recs, sizeof(na));
		memset(recs, 0, sizeof(recs));
		memset(cap_recs, 0, sizeof(cap_recs));
		memset(n_recs, 0, sizeof(n_recs));
		tick_mode = 2;
		run(1, 1, &own);
		tick_mode = 0;
		run_tie_all = false;
		print_message("%s: %u samples a switch to %.3f us\n",
			      tie ? "one group" : "a group a switch", na[0], own.end_ns / 1e3);
		assert_same_run(&own, &loop);
		for (uint16_t s = 0; s < AIF_MAX_SWITCHES; s++) {
			assert_int_equal(n_recs[s], na[s]);
			for (uint32_t i = 0; i < na[s]; i++) {
				assert_int_equal(recs[s][i].t, a[s][i].t);
				assert_int_equal(recs[s][i].seen, a[s][i].seen);
			}
			free(a[s]);
			free(recs[s]);
			recs[s] = NULL;
			cap_recs[s] = n_recs[s] = 0;
		}
		/* from the start to past the jobs' start, every switch */
		assert_true(na[0] > START_NS / TICK_NS);
		assert_int_equal(na[5], na[0]);
	}
}

/* Frames between runners taken off their lines and put back, copied,
 * after every window, as between processes: the same run. */
static void
test_frames_between_processes(void **state)
{
	struct run_out one, par;
	struct fake_net f = { 0 };

	(void)state;
	run(1, 1, &one);
	use_net = &f;
	run(1, 3, &par);
	use_net = NULL;
	print_message("3 runners as processes: %" PRIu64 " windows, %" PRIu64 " frames across, "
		      "%" PRIu64 " other agreements\n", f.window_ends, f.frames, f.min_calls);
	assert_true(f.frames > 1000);
	assert_true(f.min_calls > 0);
	assert_int_equal(par.pauses, one.pauses);
	assert_same_run(&par, &one);
}

static void
test_planes_tied(void **state)
{
	struct run_out one, par;

	(void)state;
	run(2, 1, &one);
	run(2, 2, &par);
	assert_int_equal(par.n_run, 2);
	assert_same_run(&par, &one);
}

/*
 * A pool too small for what the jobs hold at once: the hosts' frames, the
 * queues' and the wires' are one pool's, and one runner's host finding it
 * empty at t would depend on what the other runners have taken and given
 * back by then, which is their threads' timing.  The results are those of
 * a pool that never runs dry, on one runner and on several, every time.
 */
static void
test_pool_dry(void **state)
{
	static const unsigned ns[] = { 1, 2, 3, 6 };
	struct run_out big, one;

	(void)state;
	struct rte_mempool *dry = rte_pktmbuf_pool_create("win_dry", DRY_MBUFS, 0, 0,
							  RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	assert_non_null(dry);
	assert_int_equal(aif_mbuf_spares_enable(dry), 0); /* as virtual time's pool */
	run(1, 1, &big);
	assert_int_equal(big.nombuf, 0);
	for (unsigned rep = 0; rep < 3; rep++)
		for (unsigned k = 0; k < RTE_DIM(ns); k++) {
			run_with(1, ns[k], dry, &one);
			print_message("%u runners, a pool of %u: end %.3f us, %" PRIu64
				      " frames waited for an mbuf, %u spare pools\n", one.n_run,
				      DRY_MBUFS, one.end_ns / 1e3, one.nombuf, one.spares);
			assert_true(one.spares > 0); /* it ran dry */
			assert_int_equal(one.n_run, ns[k]);
			assert_int_equal(one.nombuf, 0);
			assert_same_run(&one, &big);
		}
	aif_mbuf_spares_free(dry);
	rte_mempool_free(dry);
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_windows", "aif-pl-windows", 1024) != 0)
		return -1;
	main_pool = rte_pktmbuf_pool_create("win_pool", 65535, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	return main_pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(main_pool);
	test_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_for_any_split),
		cmocka_unit_test(test_planes_tied),
		cmocka_unit_test(test_runner_windows),
		cmocka_unit_test(test_drive_ticks),
		cmocka_unit_test(test_frames_between_processes),
		cmocka_unit_test(test_pool_dry),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
