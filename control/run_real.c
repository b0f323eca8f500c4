/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time (run.h aif_run_real): every runner on a worker lcore in a loop
 * of its own (dataplane/evloop.h) whose only source is the runner, on
 * control's real clock (one time base for the process); control on the
 * main lcore in another loop: the socket (waiting up to 10 ms for a
 * client), control's tick, the BFD sessions and the DPDK ports' links
 * every 10 ms.  It ends on
 * SIGINT/SIGTERM, at --duration, or when the jobs are done; then the
 * runners stop and flush their TX buffers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "../dataplane/evloop.h"
#include "../dataplane/runner.h"
#include "ctl_events.h"
#include "ctl_server.h"
#include "eal_ports.h"
#include "report.h"
#include "run.h"

#define SOCKET_WAIT_MS 10

static int
runner_main(void *arg)
{
	aif_evloop_run(arg);
	return 0;
}

/* The BFD sessions, then the ports' links (their carrier and, where a
 * session runs, its state). */
static void
links_poll(aif_time_ns t, void *arg)
{
	struct aif_ctl *c = arg;

	(void)t;
	aif_ctl_bfd_poll(c);
	aif_eal_links_poll(c);
}

struct until {
	double t0, duration_s;
	const struct aif_workload *wl;
};

/* --duration over, or the jobs done. */
static int
done(void *arg)
{
	const struct until *u = arg;

	if (u->duration_s > 0 && aif_report_mono_s() - u->t0 >= u->duration_s)
		return 1;
	return u->wl->js != NULL && aif_jobs_all_done(u->wl->js);
}

/* The control socket, its directory made if missing. */
static int
socket_open(struct aif_run *r)
{
	char err[AIF_ERR_MAX];
	const char *path = r->o.socket;

	if (strchr(path, '/') != NULL) {
		char dir[512];
		snprintf(dir, sizeof(dir), "%s", path);
		*strrchr(dir, '/') = '\0';
		if (dir[0] != '\0')
			mkdir(dir, 0770);
	}
	r->srv = aif_ctl_server_create(path, aif_ctl_dispatch, &r->ctl, err, sizeof(err));
	if (r->srv == NULL) {
		fprintf(stderr, "control socket %s: %s\n", path, err);
		return -1;
	}
	printf("control socket %s\n", path);
	fflush(stdout);
	return 0;
}

/* The worker lcore runner i runs on (launched in order, below). */
static unsigned
runner_lcore(unsigned i)
{
	unsigned lcore, w = 0;

	RTE_LCORE_FOREACH_WORKER(lcore)
		if (w++ == i)
			return lcore;
	return RTE_MAX_LCORE;
}

/* May another runner run on a CPU runner i may run on? */
static bool
shares_core(const struct aif_run *r, unsigned i)
{
	unsigned li = runner_lcore(i);

	if (li == RTE_MAX_LCORE)
		return false;
	rte_cpuset_t mine = rte_lcore_cpuset(li);
	for (unsigned j = 0; j < r->n_run; j++) {
		unsigned lj = runner_lcore(j);
		if (j == i || lj == RTE_MAX_LCORE)
			continue;
		rte_cpuset_t theirs = rte_lcore_cpuset(lj), both;
		CPU_AND(&both, &mine, &theirs);
		if (CPU_COUNT(&both) != 0)
			return true;
	}
	return false;
}

int
aif_run_real(struct aif_run *r)
{
	/* the loops and their sources live as long as the run: this frame */
	struct aif_evloop rloop[AIF_MAX_RUNNERS], cloop;
	struct aif_ctl_tick ctick;
	struct aif_ctl_socket sock;
	struct aif_ev_periodic links;
	volatile int runners_stop = 0;
	struct aif_ctl *ctl = &r->ctl;
	char err[AIF_ERR_MAX];

	if (socket_open(r) != 0)
		return -1;
	if (aif_ctl_bfd_start(ctl, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	/* the jobs' times count from now, as the runners start, and so does
	 * the paced emulation: a runner launched later starts behind */
	aif_time_ns start_ns = aif_clock_now(&ctl->clock);
	if (r->o.jobs != NULL && aif_workload_jobs(&r->wl, r->cfg, start_ns, err, sizeof(err)) != 0) {
		fprintf(stderr, "--jobs %s: %s\n", r->o.jobs, err);
		return -1;
	}
	/* Pacing (runner.h): the emulation's time advances by at most the
	 * quantum its fastest emulated port needs per step, the runners'
	 * shortest; a runner that falls behind slows it (behind_ns) */
	r->quantum_ns = AIF_TIME_NS_NEVER;
	for (unsigned i = 0; i < r->n_run; i++)
		r->quantum_ns = RTE_MIN(r->quantum_ns, aif_runner_pace_quantum_ns(r->runners[i]));
	if (r->quantum_ns != AIF_TIME_NS_NEVER) {
		/* runners joined by links: each held within the shortest delay
		 * of a link between two of them (clock.h) */
		bool hold = r->n_run > 1 && r->lookahead_ns != 0 &&
			    r->lookahead_ns != AIF_TIME_NS_NEVER;
		memset(r->peers, 0, sizeof(r->peers));
		for (unsigned i = 0; i < r->n_run; i++) {
			aif_runner_set_pace(r->runners[i], r->quantum_ns, start_ns, &r->behind_ns);
			if (hold)
				aif_runner_set_pace_hold(r->runners[i], r->peers, r->n_run, i,
							 r->lookahead_ns, shares_core(r, i));
		}
		ctl->behind_ns = &r->behind_ns;
		printf("  paced: the emulation advances at most %" PRIu64 " ns per step (3840 "
		       "bit times at its fastest emulated port); a runner that falls behind "
		       "slows it\n", (uint64_t)r->quantum_ns);
		if (hold)
			printf("  %u runners held within %" PRIu64 " ns of one another (the "
			       "shortest delay of a link between two)\n", r->n_run,
			       (uint64_t)r->lookahead_ns);
		else if (r->n_run > 1 && r->lookahead_ns == 0)
			printf("  the runners are not held together: a link between two has no "
			       "delay\n");
		fflush(stdout);
	}
	for (unsigned i = 0; i < r->n_run; i++) {
		struct aif_ev_source *s = aif_runner_source(r->runners[i]);
		if (s == NULL) {
			fprintf(stderr, "runner %u: out of memory\n", i);
			return -1;
		}
		aif_evloop_init(&rloop[i], &ctl->clock, AIF_TIME_NS_NEVER);
		aif_evloop_add(&rloop[i], s);
		rloop[i].stop = &runners_stop;
		rloop[i].check_every = 1;
	}
	aif_time_ns now = aif_clock_now(&ctl->clock);
	aif_evloop_init(&cloop, &ctl->clock, AIF_TIME_NS_NEVER);
	aif_ctl_socket_init(&sock, r->srv, SOCKET_WAIT_MS);
	aif_ctl_tick_init(&ctick, ctl, now, AIF_CTL_TICK_NS);
	aif_ev_periodic_init(&links, now, AIF_EAL_LINK_POLL_NS, links_poll, ctl);
	aif_evloop_add(&cloop, &sock.src);
	aif_evloop_add(&cloop, &ctick.src);
	aif_evloop_add(&cloop, &links.src);
	struct until u = { aif_report_mono_s(), r->o.duration_s, &r->wl };
	cloop.idle = done;
	cloop.idle_arg = &u;
	cloop.stop = &aif_run_stop;
	cloop.check_every = 1;

	unsigned lcore, w = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (w < r->n_run)
			rte_eal_remote_launch(runner_main, &rloop[w], lcore);
		w++;
	}
	r->ran = true;
	aif_evloop_run(&cloop);
	aif_ctl_bfd_stop(ctl); /* the peers told, while the runners still send */
	runners_stop = 1;
	rte_eal_mp_wait_lcore();
	r->elapsed_s = aif_report_mono_s() - u.t0;
	return 0;
}
