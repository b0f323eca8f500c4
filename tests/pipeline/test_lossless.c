/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lossless invariant, in virtual time: with PFC on, nothing on the
 * lossless class is dropped, at any port rate and MTU, with the headroom
 * the switch derives by itself (mmu.h, "Headroom").
 *
 * A 2-leaf x 1-spine leaf-spine, two virtual RoCE hosts per leaf
 * (control/vhosts.c on hosts/rhost*.c), hosts and uplinks at one rate,
 * 1 us links, every port's MTU set to the case's, the hosts' packets as
 * large as that MTU lets them be (at most 8 KiB of payload), PFC on
 * priority 3, no ECN, no DCQCN (PFC alone must hold), a buffer whose
 * shared pool is small (128 KiB past the headroom and reserves of a
 * leaf's three ports: the dynamic threshold is about 16 KiB, a few
 * frames) so that PFC acts.  For every
 * rate of 0.1, 1, 10, 25, 100 and 400 Gb/s and every MTU of 1500, 4200 and
 * 9000, with the headroom the switch derives and with the least a config
 * may give (aif_mmu_headroom_min_bytes):
 *  - incast, three hosts -> one (the receiver's port is the bottleneck,
 *    the pauses go back through the spine to the senders' leaves and
 *    hosts);
 *  - all-to-all over the four hosts (two hosts per leaf share one uplink:
 *    the leaves' uplinks are the bottleneck, the hosts are paused);
 * and each run asserts zero drops on the lossless class anywhere
 * (lossless_headroom_overflow, the PFC watchdog, every non-admit verdict
 * of a lossless priority group, on every port of every switch, host ports
 * included), no data packet sent again (nothing was lost between hosts),
 * and that PFC did pause (XOFF transitions), so that the case tests
 * something.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
#include "fabric.h"
#include "jobs.h"
#include "qos.h"
#include "shard.h"
#include "vhosts.h"
#include "ctl_events.h"
#include "evloop.h"
#include "runner.h"

#include "test_eal.h"

#define N_HOSTS 4
#define PG_LOSSLESS 3
#define DELAY_NS 1000
#define SHARED_BYTES (128 * 1024)
#define FLOW_PKTS 48

static struct rte_mempool *pool;

struct result {
	uint64_t lossless_drops; /* every kind, every port */
	uint64_t drops;          /* any reason (ACKs, CNPs included) */
	uint64_t xoff;           /* XOFF transitions, every switch */
	uint64_t host_pauses;    /* PFC frames that paused a host */
	uint64_t retx;
	uint32_t peak_headroom;  /* bytes, any PG */
	uint32_t headroom;       /* the derived headroom of a host port */
	aif_time_ns end_ns;
	bool done;
	/* real time */
	uint64_t wd_drops;       /* the PFC watchdog's */
	aif_time_ns quantum_ns, behind_ns;
	uint64_t late_steps;
};

static int
idle(void *arg)
{
	struct { struct aif_jobs *js; struct aif_vhosts *v; } *a = arg;
	if (!aif_jobs_done(a->js))
		return 0;
	for (uint32_t i = 0; i < a->v->n; i++)
		if (!aif_rhost_idle(a->v->h[i]))
			return 0;
	return 1;
}

/* The hosts' payload per packet: the largest multiple of 4 whose frame fits
 * the IP MTU (IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 = 60), at most
 * the host's limit. */
static uint16_t
host_mtu(uint32_t ip_mtu)
{
	uint32_t m = (ip_mtu - 60) & ~3u;
	return (uint16_t)(m > AIF_RHOST_MTU_MAX ? AIF_RHOST_MTU_MAX : m);
}

/*
 * A runner in real time that falls behind: the test's "real" clock moves
 * step_ns between steps, and every jump_every steps by jump_ns instead (the
 * runner was preempted, or a step overran), and the loop steps the runner
 * as the daemon's does (control/run_real.c: a loop with the runner as its one source), paced or not.  The
 * jobs count from real time 0, as the daemon gives them their times before
 * it launches its runners; the first step comes first_ns after (a late
 * launch), or step_ns.  With a seed the gaps are irregular: a step's drawn
 * from 0 to 2 step_ns, a jump's from step_ns to jump_ns.
 */
struct late_runner {
	bool paced;            /* aif_runner_set_pace with the runner's quantum */
	aif_time_ns step_ns;
	unsigned jump_every;
	aif_time_ns jump_ns;
	aif_time_ns limit_ns;  /* of real time */
	aif_time_ns first_ns;  /* the first step's real time; 0: step_ns */
	aif_time_ns start_ns;  /* where the pace starts the emulation */
	uint64_t seed;         /* irregular gaps; 0: regular */
};

/* The real time between step k - 1 and step k (k from 1). */
static aif_time_ns
late_gap_ns(const struct late_runner *rt, unsigned k, uint64_t *x)
{
	bool jump = k % rt->jump_every == 0;

	if (k == 1 && rt->first_ns != 0)
		return rt->first_ns;
	if (rt->seed == 0)
		return jump ? rt->jump_ns : rt->step_ns;
	/* xorshift64 */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return jump ? rt->step_ns + *x % (rt->jump_ns - rt->step_ns + 1)
		    : *x % (2 * rt->step_ns + 1);
}

/* headroom_bytes: the policy's (0: derived); rt: NULL in virtual time */
static void
run(uint64_t rate_bps, uint32_t mtu, enum aif_job_kind kind, uint32_t headroom_bytes,
    const struct late_runner *rt, struct result *res)
{
	char json[1024], err[AIF_ERR_MAX] = "";
	struct aif_config *cfg;
	struct aif_fabric fab;
	static struct aif_ctl ctl;
	struct aif_vhosts v;
	struct aif_rhost_params tmpl;

	memset(res, 0, sizeof(*res));
	/* the buffer: room for a leaf's three ports' headroom and reserve (at
	 * most the larger of 3 BDP and 2 BDP + 2 frames + PFC + response, and
	 * 4 KiB), then a small shared pool */
	uint64_t bdp = rate_bps * DELAY_NS / 8 / AIF_NS_PER_S;
	uint64_t per_port = RTE_MAX(3 * bdp, 2 * bdp + 2 * (mtu + 64) + 1024) + 4096;
	uint64_t buffer = 3 * per_port + SHARED_BYTES;
	snprintf(json, sizeof(json),
		 "{\"policies\": {\"default\": {\"qos\": {\"pfc_enable\": [3],"
		 " \"ecn\": {\"mode\": \"off\"}, \"buffer\": {\"size_bytes\": %llu,"
		 " \"headroom_bytes\": %u}}}},"
		 " \"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 1,"
		 " \"hosts_per_leaf\": 2, \"host_gbps\": %g, \"uplink_gbps\": %g,"
		 " \"delay_ns\": %u}}}",
		 (unsigned long long)buffer, headroom_bytes, rate_bps / 1e9, rate_bps / 1e9, DELAY_NS);
	if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++)
			cfg->switches[s].ports[p].mtu = (uint16_t)mtu;
	memset(&fab, 0, sizeof(fab));
	memset(&ctl, 0, sizeof(ctl));
	if (aif_fabric_build(&fab, cfg, pool, 1, 0x5eed, err, sizeof(err)) != 0)
		fail_msg("fabric: %s", err);
	aif_rhost_params_default(&tmpl, rate_bps);
	tmpl.mtu = host_mtu(mtu);
	tmpl.dcqcn = false;
	tmpl.icrc = false;
	tmpl.rto_ns = AIF_NS_PER_S; /* a paused queue is no loss: no timeouts */
	tmpl.rto_gbn_ns = AIF_NS_PER_S;
	if (aif_vhosts_build(&v, cfg, &fab, &tmpl, NULL, NULL, pool, err, sizeof(err)) != 0)
		fail_msg("hosts: %s", err);
	assert_int_equal(v.n, N_HOSTS);
	aif_clock_init_virtual(&ctl.clock, 0);
	for (uint16_t i = 0; i < fab.n_sw; i++)
		aif_ctl_add_switch(&ctl, fab.sw[i]);
	if (aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err)) != 0)
		fail_msg("load: %s", err);
	struct aif_runner *w = aif_runner_create(fab.sw[0], 0, 0x5eed);
	assert_non_null(w);
	for (uint16_t i = 1; i < fab.n_sw; i++)
		assert_int_equal(aif_runner_add_switch(w, fab.sw[i], 0, 0x5eed), i);
	for (uint16_t i = 0; i < fab.n_sw; i++)
		for (uint16_t p = 0; p < fab.sw[i]->n_ports; p++)
			assert_int_equal(aif_runner_add_rxq_of(w, i, p, 0), 0);

	struct aif_jobs *js = aif_jobs_create(v.h, v.n, rate_bps, aif_vhosts_rtt, &v);
	assert_non_null(js);
	uint32_t hosts[N_HOSTS];
	for (uint32_t i = 0; i < N_HOSTS; i++)
		hosts[i] = (N_HOSTS - 1 + i) % N_HOSTS; /* incast: the last host receives */
	/* FLOW_PKTS packets a flow: dozens of frames past the threshold */
	struct aif_job_params jp = { .kind = kind, .n_ranks = N_HOSTS, .hosts = hosts,
				     .bytes = (uint64_t)FLOW_PKTS * tmpl.mtu * (kind == AIF_JOB_ALLTOALL ?
								  N_HOSTS : 1),
				     .iterations = 1, .chunks = 1, .straggler = -1, .seed = 1 };
	if (aif_jobs_add(js, &jp, err, sizeof(err)) < 0)
		fail_msg("job: %s", err);
	struct { struct aif_jobs *js; struct aif_vhosts *v; } ia = { js, &v };
	if (rt == NULL) {
		struct aif_evloop loop;
		struct aif_ctl_tick tick;
		aif_evloop_init(&loop, &ctl.clock, 10 * AIF_NS_PER_S);
		aif_ctl_tick_init(&tick, &ctl, 0, AIF_CTL_TICK_NS);
		assert_int_equal(aif_evloop_add(&loop, &tick.src), 0);
		assert_int_equal(aif_evloop_add(&loop, aif_runner_source(w)), 0);
		loop.idle = idle;
		loop.idle_arg = &ia;
		assert_int_equal(aif_vhosts_wake_by(&v, w), 0);
		aif_evloop_run(&loop);
		res->end_ns = loop.now_ns;
	} else {
		/* the real-time loop: every port polled every step, no waker */
		struct aif_clock real;
		aif_clock_init_virtual(&real, 0);
		aif_runner_set_clock(w, &real);
		if (rt->paced) {
			aif_time_ns q = aif_runner_pace_quantum_ns(w);
			assert_true(q > 0 && q < AIF_TIME_NS_NEVER);
			res->quantum_ns = q;
			aif_runner_set_pace(w, q, rt->start_ns, NULL);
		}
		uint64_t x = rt->seed;
		for (unsigned k = 1; !idle(&ia) && aif_clock_now(&real) < rt->limit_ns; k++) {
			aif_clock_advance(&real, late_gap_ns(rt, k, &x));
			aif_runner_step(w, aif_clock_now(&real));
		}
		res->end_ns = aif_clock_now(&real);
		res->behind_ns = w->pace.behind_ns;
		res->late_steps = w->pace.late_steps;
	}
	res->done = aif_jobs_done(js);

	for (uint32_t i = 0; i < v.n; i++) {
		const struct aif_rhost_ctr *c = aif_rhost_ctr(v.h[i]);
		res->retx += c->qp.retx;
		res->host_pauses += c->rx_pfc;
	}
	for (uint16_t i = 0; i < fab.n_sw; i++) {
		const struct aif_switch *sw = fab.sw[i];
		const struct aif_mmu *m = &sw->qos->mmu;
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			const struct aif_port_ctr *pc = &sw->shards[0]->port_ctr[p];
			for (unsigned d = 0; d < AIF_DROP_MAX; d++)
				res->drops += pc->drops[d];
			/* (headroom overflows are the MMU's verdicts, below) */
			res->lossless_drops += pc->drops[AIF_DROP_PFCWD];
			res->wd_drops += pc->drops[AIF_DROP_PFCWD];
			for (unsigned g = 0; g < AIF_MMU_N_PG; g++) {
				if (!aif_mmu_pg_lossless(m, p, (uint8_t)g))
					continue;
				for (unsigned vd = AIF_MMU_ADMIT + 1; vd < AIF_MMU_VERDICT_MAX; vd++)
					res->lossless_drops += m->pg_ctr[p][g].packets[vd];
				res->xoff += m->pg_ctr[p][g].xoff_events;
				if (m->wm.pg_headroom_bytes[p][g] > res->peak_headroom)
					res->peak_headroom = m->wm.pg_headroom_bytes[p][g];
			}
		}
	}
	res->headroom = fab.sw[0]->qos->cfg.mmu.headroom_bytes[0]; /* leaf0's h0 */

	aif_jobs_free(js);
	aif_runner_free(w);
	aif_fabric_free(&fab);
	aif_vhosts_free(&v);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_lossless_invariant(void **state)
{
	static const uint64_t rates_mbps[] = { 100, 1000, 10000, 25000, 100000, 400000 };
	static const uint32_t mtus[] = { 1500, 4200, 9000 };
	static const struct { enum aif_job_kind kind; const char *name; } kinds[] = {
		{ AIF_JOB_INCAST, "incast 3 -> 1" },
		{ AIF_JOB_ALLTOALL, "all-to-all x 4" },
	};
	unsigned bad = 0;

	(void)state;
	for (unsigned k = 0; k < RTE_DIM(kinds); k++)
		for (unsigned r = 0; r < RTE_DIM(rates_mbps); r++)
			for (unsigned m = 0; m < RTE_DIM(mtus); m++)
				for (unsigned h = 0; h < 2; h++) {
					uint64_t rate = rates_mbps[r] * 1000000ull;
					/* derived, then the least a config may give */
					uint32_t hr = h ? aif_mmu_headroom_min_bytes(AIF_MMU_HPCC, rate, DELAY_NS,
										     mtus[m]) : 0;
					struct result res;
					run(rate, mtus[m], kinds[k].kind, hr, NULL, &res);
					bool ok = res.done && res.lossless_drops == 0 &&
						  res.retx == 0 && res.xoff > 0;
					print_message("%-14s %5.1f Gb/s MTU %4u: headroom %6u B%s, "
						      "peak %6u B, %3lu XOFF, %3lu host pauses, "
						      "%3lu lossless drops (%lu in all), %3lu retx, "
						      "%.3f ms%s\n", kinds[k].name,
						      rates_mbps[r] / 1000.0, mtus[m], res.headroom,
						      h ? " (least)" : "        ", res.peak_headroom,
						      res.xoff, res.host_pauses, res.lossless_drops,
						      res.drops, res.retx, res.end_ns / 1e6,
						      ok ? "" : "  <- FAILS");
					bad += !ok;
				}
	assert_int_equal(bad, 0);
	print_message("Lossless invariant test: PFC on, incast and all-to-all, rates 0.1 to "
		      "400 Gb/s, MTU 1500 to 9000: zero lossless drops in virtual time (%u runs, "
		      "derived headroom and the least accepted)\n",
		      (unsigned)(RTE_DIM(kinds) * RTE_DIM(rates_mbps) * RTE_DIM(mtus) * 2));
}

/*
 * A late runner in real time: incast and all-to-all at 0.1, 1 and 10 Gb/s
 * with 1 us between steps, and every 100th step comes 250 ms late (longer
 * than the watchdog's 200 ms detection).  Paced, the emulation moves one quantum at a late step and
 * falls behind real time instead: zero lossless drops, zero watchdog drops,
 * PFC paused, the lag counted.  Not paced (each step at real time, as the
 * runner stepped before), the hosts send at once what they would have sent
 * during the jump and the watchdog sees queues paused for the whole jump:
 * the same scenario drops, so it tests something.
 */
static void
test_late_runner(void **state)
{
	static const struct { uint64_t rate_mbps; uint32_t mtu; } cases[] = {
		{ 100, 1500 }, { 1000, 1500 }, { 10000, 9000 },
	};
	static const struct { enum aif_job_kind kind; const char *name; } kinds[] = {
		{ AIF_JOB_INCAST, "incast 3 -> 1" },
		{ AIF_JOB_ALLTOALL, "all-to-all x 4" },
	};
	uint64_t wd_unpaced = 0;
	unsigned bad = 0;

	(void)state;
	for (unsigned k = 0; k < RTE_DIM(kinds); k++)
		for (unsigned c = 0; c < RTE_DIM(cases); c++)
			for (int paced = 1; paced >= 0; paced--) {
				struct late_runner rt = { .paced = paced, .step_ns = AIF_NS_PER_US,
							  .jump_every = 100,
							  .jump_ns = 250 * AIF_NS_PER_MS,
							  .limit_ns = 60 * AIF_NS_PER_S };
				struct result res;
				run(cases[c].rate_mbps * 1000000ull, cases[c].mtu, kinds[k].kind, 0,
				    &rt, &res);
				bool ok = paced ? res.done && res.lossless_drops == 0 &&
							  res.wd_drops == 0 && res.retx == 0 &&
							  res.xoff > 0 && res.late_steps > 0 &&
							  res.behind_ns > 0
						: res.lossless_drops > 0;
				if (!paced)
					wd_unpaced += res.wd_drops;
				print_message("late runner, %-14s %4.1f Gb/s MTU %4u, %s: %3lu XOFF, "
					      "%5lu lossless drops (%2lu by the watchdog), %5lu retx, "
					      "%s; %5lu late steps of %5lu ns, %5.0f ms behind in "
					      "%5.0f ms%s\n", kinds[k].name, cases[c].rate_mbps / 1000.0,
					      cases[c].mtu, paced ? "paced    " : "not paced", res.xoff,
					      res.lossless_drops, res.wd_drops, res.retx,
					      res.done ? "done    " : "not done", res.late_steps,
					      res.quantum_ns, res.behind_ns / 1e6, res.end_ns / 1e6,
					      ok ? "" : "  <- FAILS");
				bad += !ok;
			}
	assert_int_equal(bad, 0);
	assert_true(wd_unpaced > 0); /* the watchdog is part of what is tested */
}

/*
 * A runner launched late, then irregular: the jobs start at 0 and the
 * first step comes 5 ms later, then steps 0 to 2 us apart with every 50th
 * 1 us to 20 ms late, at 0.1, 1, 10 and 100 Gb/s (the quantum a frame's
 * fraction at 10 and 100 Gb/s).  Paced from the jobs' start (the daemon's
 * way), the launch is a late step like any other: zero lossless and
 * watchdog drops, no retransmission, PFC paused.  Paced from the first
 * step instead, the emulation jumps 5 ms at once and each host hands its
 * leaf the frames of those 5 ms in one step, none of which a pause can
 * stop any more: the same runs drop past the headroom, so the case tests
 * something.
 */
static void
test_late_start(void **state)
{
	static const struct { uint64_t rate_mbps; uint32_t mtu; } cases[] = {
		{ 100, 1500 }, { 1000, 1500 }, { 10000, 9000 }, { 100000, 9000 },
	};
	static const struct { enum aif_job_kind kind; const char *name; } kinds[] = {
		{ AIF_JOB_INCAST, "incast 3 -> 1" },
		{ AIF_JOB_ALLTOALL, "all-to-all x 4" },
	};
	const aif_time_ns first_ns = 5 * AIF_NS_PER_MS;
	unsigned bad = 0;

	(void)state;
	for (unsigned k = 0; k < RTE_DIM(kinds); k++)
		for (unsigned c = 0; c < RTE_DIM(cases); c++)
			for (int from_start = 1; from_start >= 0; from_start--) {
				struct late_runner rt = { .paced = true, .step_ns = AIF_NS_PER_US,
							  .jump_every = 50,
							  .jump_ns = 20 * AIF_NS_PER_MS,
							  .limit_ns = 60 * AIF_NS_PER_S,
							  .first_ns = first_ns,
							  .start_ns = from_start ? 0 : first_ns,
							  .seed = 0x9e3779b97f4a7c15ull + c };
				struct result res;
				run(cases[c].rate_mbps * 1000000ull, cases[c].mtu, kinds[k].kind, 0,
				    &rt, &res);
				bool ok = from_start ? res.done && res.lossless_drops == 0 &&
							       res.wd_drops == 0 && res.retx == 0 &&
							       res.xoff > 0 && res.late_steps > 0 &&
							       res.behind_ns >= first_ns - res.quantum_ns
						     : res.lossless_drops > 0;
				print_message("late start, %-14s %5.1f Gb/s MTU %4u, paced from the %s: "
					      "%3lu XOFF, %5lu lossless drops (%2lu by the watchdog), "
					      "%5lu retx, %s; %5lu late steps of %5lu ns, %5.0f ms "
					      "behind in %5.0f ms%s\n", kinds[k].name,
					      cases[c].rate_mbps / 1000.0, cases[c].mtu,
					      from_start ? "jobs' start" : "first step ", res.xoff,
					      res.lossless_drops, res.wd_drops, res.retx,
					      res.done ? "done    " : "not done", res.late_steps,
					      res.quantum_ns, res.behind_ns / 1e6, res.end_ns / 1e6,
					      ok ? "" : "  <- FAILS");
				bad += !ok;
			}
	assert_int_equal(bad, 0);
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_lossless", "aif-pl-lossless", 512) != 0)
		return -1;
	/* frames up to 9000 + Ethernet in one mbuf (the hosts build them so) */
	pool = rte_pktmbuf_pool_create("lossless_pool", 16383, 0, 0,
				       9216 + RTE_PKTMBUF_HEADROOM, 0);
	return pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lossless_invariant),
		cmocka_unit_test(test_late_runner),
		cmocka_unit_test(test_late_start),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
