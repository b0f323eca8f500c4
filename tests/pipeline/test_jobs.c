/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives on a fabric in virtual time: a generated 4-leaf x 2-spine
 * leaf-spine, two virtual RoCE hosts per leaf (control/vhosts.c on
 * hosts/rhost*.c), jobs from hosts/jobs.c, the whole driven by the
 * virtual-time loop (dataplane/evloop.h, as the daemon runs it).
 *
 *  - ring all-reduce with packet spraying and out-of-order-tolerant hosts
 *    finishes within 10% of its ideal, a lower bound (jobs.h); every kind
 *    of job, sprayed, finishes at or after its ideal;
 *  - two elephants that ECMP puts on one uplink (the host seed that does
 *    it is searched for, not made up) take about twice as long as with
 *    flowlets (least loaded) or spraying;
 *  - incast with PFC and DCQCN off drops, retransmits and is late; with
 *    both on, nothing drops and the queue stays under its buffer; with
 *    selective repeat (SACKs, RTO_low) it is late by a small factor only;
 *  - hosts at 0.1 Gb/s, nothing lost: no timeout, no resend;
 *  - 0.1% loss on one link with go-back-N: retransmissions and a longer JCT;
 *  - spraying an all-to-all into go-back-N hosts: spurious retransmissions
 *    with nothing lost; into out-of-order-tolerant hosts: none;
 *  - two runs with one seed give the same times and counters;
 *  - the base RTT across the spines counts each host's cable (1 us, the
 *    fabric's link delay, both ways): a 1000-B flow's FCT is the base RTT's
 *    parts, and ns-3's ideal is 8,320 ns + (bytes + 48 n) x 0.08;
 *  - two DCQCN senders into one 100G port (ConWeave's parameters): their
 *    rates, as a time series, are cut and share the port.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
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
#include "link.h"
#include "qos.h"
#include "shard.h"
#include "vhosts.h"
#include "ctl_events.h"
#include "evloop.h"
#include "runner.h"

#include "test_eal.h"

#define N_HOSTS 8

static struct rte_mempool *pool;

struct scen {
	const char *scheme;        /* "ecmp", "spray", ... */
	const char *lb_extra;      /* more of "load_balancing", or "" */
	bool pfc, ecn, dcqcn, ooo;
	uint32_t buffer_bytes;     /* 0: default */
	double loss;               /* on link 0 (leaf0 - spine0) */
	uint64_t host_seed;
	uint32_t planes;           /* 0: 1 */
	double gbps;               /* hosts and uplinks; 0: 100 */
	uint16_t mtu;              /* 0: the default */
	bool wire_ns3;             /* "wire_model": "ns3" (links, buffers, hosts) */
	bool sample_rates;         /* the first QP of job 0's ranks 1 and 2, every 10 us */
	struct aif_job_params job[2];
	uint32_t n_jobs;
	uint32_t hosts[2][2 * N_HOSTS]; /* rank r's plane k: [r * planes + k] */
};

struct result {
	aif_time_ns jct[2][4], ideal[2];
	aif_time_ns end_ns;
	uint64_t drops, retx, naks, timeouts, cnps, ce;
	uint32_t peak_queue;       /* bytes, any switch queue */
	uint64_t uplink_bytes[2];  /* leaf0's u0, u1 */
	uint64_t digest;
	aif_time_ns fct0, ideal0, rtt0; /* job 0's first flow, the base RTT of its path */
	uint32_t n_samples;
	double rate[2][1024];      /* sample_rates: Gb/s */
	uint64_t qp_cnps[2];
};

struct sampler {
	const struct scen *s;
	struct aif_vhosts *v;
	struct result *res;
};

static void
sample_rates(aif_time_ns t, void *arg)
{
	struct sampler *x = arg;
	struct aif_rhost_qp_state st;

	if (x->res->n_samples == 1024)
		return;
	for (int k = 0; k < 2; k++) {
		uint32_t h = x->s->hosts[0][1 + k];
		assert_int_equal(aif_rhost_qp_state(x->v->h[h], 0, t, &st), 0);
		x->res->rate[k][x->res->n_samples] = st.rate_bps / 1e9;
		x->res->qp_cnps[k] = st.cnps_rx;
	}
	x->res->n_samples++;
}

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

/* Another process's copy of the set that ran none of its ranks: every
 * value 0 (unset), as the reduce of control/ranks.c sees it. */
static void
reduce_with_idle_peer(uint64_t *v, size_t n, enum aif_jobs_reduce_op op, void *arg)
{
	unsigned *calls = arg;

	(*calls)++;
	for (size_t i = 0; i < n; i++) {
		uint64_t peer = 0;
		if (op == AIF_JOBS_RED_SUM)
			v[i] += peer;
		else if (op == AIF_JOBS_RED_MAX)
			v[i] = v[i] > peer ? v[i] : peer;
		else if (v[i] == 0 || (peer != 0 && peer < v[i]))
			v[i] = peer;
	}
}

/* What the processes of a run on several ranks put together: a run's own
 * results with nothing from elsewhere stay as they are. */
static void
check_merge(struct aif_jobs *js, uint32_t n_jobs)
{
	uint32_t nf, calls = 0;
	const struct aif_flow *fl = aif_jobs_flows(js, &nf);
	struct aif_flow *f0 = malloc((nf ? nf : 1) * sizeof(*f0));
	struct aif_job_iter it0[AIF_JOBS_MAX][4];

	assert_non_null(f0);
	if (nf > 0) /* a run without flows has no array to copy */
		memcpy(f0, fl, nf * sizeof(*f0));
	for (uint32_t k = 0; k < n_jobs; k++) {
		uint32_t n;
		const struct aif_job_iter *it = aif_jobs_iters(js, k, &n);
		if (n > 0)
			memcpy(it0[k], it, RTE_MIN(n, 4u) * sizeof(*it));
	}
	assert_int_equal(aif_jobs_ranks_done(js), aif_jobs_ranks_total(js));
	assert_int_equal(aif_jobs_merge(js, reduce_with_idle_peer, &calls), 0);
	assert_true(calls > 0);
	assert_true(aif_jobs_done(js));
	assert_int_equal(aif_jobs_ranks_done(js), aif_jobs_ranks_total(js));
	fl = aif_jobs_flows(js, &nf);
	if (nf > 0)
		assert_memory_equal(fl, f0, nf * sizeof(*f0));
	for (uint32_t k = 0; k < n_jobs; k++) {
		uint32_t n;
		const struct aif_job_iter *it = aif_jobs_iters(js, k, &n);
		if (n > 0)
			assert_memory_equal(it, it0[k], RTE_MIN(n, 4u) * sizeof(*it));
	}
	free(f0);
}

static void
run(const struct scen *s, struct result *res)
{
	char json[2048], err[AIF_ERR_MAX] = "";
	struct aif_config *cfg;
	struct aif_fabric fab;
	static struct aif_ctl ctl;
	struct aif_vhosts v;
	struct aif_rhost_params tmpl;
	double gbps = s->gbps > 0 ? s->gbps : 100;

	memset(res, 0, sizeof(*res));
	snprintf(json, sizeof(json),
		 "{%s\"policies\": {\"default\": {\"load_balancing\": {\"scheme\": \"%s\"%s},"
		 " \"qos\": {\"pfc_enable\": %s, \"ecn\": {\"mode\": \"%s\"}%s}}},"
		 " \"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2,"
		 " \"hosts_per_leaf\": 2, \"host_gbps\": %g, \"uplink_gbps\": %g,"
		 " \"planes\": %u, \"delay_ns\": 1000}}}",
		 s->wire_ns3 ? "\"wire_model\": \"ns3\", " : "", s->scheme, s->lb_extra,
		 s->pfc ? "[3]" : "[]", s->ecn ? "ecn" : "off",
		 s->buffer_bytes ? ", \"buffer\": {\"size_bytes\": 2000000}" : "",
		 gbps, gbps, s->planes ? s->planes : 1);
	if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	if (s->loss > 0)
		cfg->links[0].loss_rate = s->loss;
	memset(&fab, 0, sizeof(fab));
	memset(&ctl, 0, sizeof(ctl));
	if (aif_fabric_build(&fab, cfg, pool, 1, 0x5eed, err, sizeof(err)) != 0)
		fail_msg("fabric: %s", err);
	aif_rhost_params_default(&tmpl, (uint64_t)(gbps * 1e9));
	tmpl.ooo = s->ooo;
	tmpl.dcqcn = s->dcqcn;
	tmpl.seed = s->host_seed;
	tmpl.icrc = false; /* nothing on the way checks it; rhost's own tests do */
	if (s->mtu)
		tmpl.mtu = s->mtu;
	if (aif_vhosts_build(&v, cfg, &fab, &tmpl, NULL, NULL, pool, err, sizeof(err)) != 0)
		fail_msg("hosts: %s", err);
	assert_int_equal(v.n, N_HOSTS * (s->planes ? s->planes : 1));
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

	struct aif_jobs *js = aif_jobs_create(v.h, v.n, v.rate_bps, aif_vhosts_rtt, &v);
	assert_non_null(js);
	aif_jobs_set_path(js, aif_vhosts_path);
	aif_jobs_set_ns3_path(js, aif_vhosts_ns3_path);
	for (uint32_t k = 0; k < s->n_jobs; k++) {
		struct aif_job_params p = s->job[k];
		p.hosts = s->hosts[k];
		if (aif_jobs_add(js, &p, err, sizeof(err)) < 0)
			fail_msg("job: %s", err);
	}
	struct { struct aif_jobs *js; struct aif_vhosts *v; } ia = { js, &v };
	/* the loop main's virtual time runs: samples, control's tick, the runner */
	struct aif_evloop loop;
	struct aif_ev_periodic smp;
	struct aif_ctl_tick tick;
	struct sampler sa = { s, &v, res };
	aif_evloop_init(&loop, &ctl.clock, (aif_time_ns)(100 * AIF_NS_PER_MS * (100 / gbps)));
	if (s->sample_rates) {
		aif_ev_periodic_init(&smp, 0, 10 * AIF_NS_PER_US, sample_rates, &sa);
		assert_int_equal(aif_evloop_add(&loop, &smp.src), 0);
	}
	aif_ctl_tick_init(&tick, &ctl, 0, AIF_CTL_TICK_NS);
	assert_int_equal(aif_evloop_add(&loop, &tick.src), 0);
	assert_int_equal(aif_evloop_add(&loop, aif_runner_source(w)), 0);
	loop.idle = idle;
	loop.idle_arg = &ia;
	assert_int_equal(aif_vhosts_wake_by(&v, w), 0);
	/* each host woken through its own port's RX queue (drive i: switch i) */
	for (uint32_t i = 0; i < v.n; i++) {
		assert_ptr_equal(v.wake[i].w, w);
		assert_int_equal(w->rxq[v.wake[i].rxq].drive, v.sw[i]);
		assert_int_equal(w->rxq[v.wake[i].rxq].port, v.port[i]);
	}
	aif_evloop_run(&loop);
	res->end_ns = loop.now_ns;
	assert_true(aif_jobs_done(js));
	check_merge(js, s->n_jobs);

	for (uint32_t k = 0; k < s->n_jobs; k++) {
		uint32_t n;
		const struct aif_job_iter *it = aif_jobs_iters(js, k, &n);
		for (uint32_t i = 0; i < n && i < 4; i++)
			res->jct[k][i] = it[i].end_ns - it[i].start_ns;
		res->ideal[k] = it[0].ideal_ns;
	}
	uint32_t nf;
	const struct aif_flow *fl = aif_jobs_flows(js, &nf);
	if (nf > 0) {
		res->fct0 = fl[0].end_ns - fl[0].start_ns;
		res->ideal0 = fl[0].standalone_ns;
		res->rtt0 = aif_vhosts_rtt(fl[0].src, fl[0].dst, &v);
	}
	for (uint32_t i = 0; i < v.n; i++) {
		const struct aif_rhost_ctr *c = aif_rhost_ctr(v.h[i]);
		res->retx += c->qp.retx;
		res->naks += c->qp.naks_rx;
		res->timeouts += c->qp.timeouts;
		res->cnps += c->qp.cnps_rx;
		res->ce += c->qp.rx_ce;
		res->digest = (res->digest ^ c->tx_frames ^ (c->qp.retx << 20) ^ (c->qp.cnps_rx << 40)) *
			      0x100000001b3ull;
	}
	for (uint16_t i = 0; i < fab.n_sw; i++) {
		const struct aif_switch *sw = fab.sw[i];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			for (unsigned d = 0; d < AIF_DROP_MAX; d++)
				res->drops += sw->shards[0]->port_ctr[p].drops[d];
			for (unsigned q = 0; q < 8; q++)
				if (sw->qos->mmu.wm.queue_bytes[p][q] > res->peak_queue)
					res->peak_queue = sw->qos->mmu.wm.queue_bytes[p][q];
		}
	}
	/* leaf0 (switch 0): ports h0, h1, then u0, u1 */
	res->uplink_bytes[0] = fab.sw[0]->shards[0]->port_ctr[2].tx_bytes;
	res->uplink_bytes[1] = fab.sw[0]->shards[0]->port_ctr[3].tx_bytes;
	res->digest ^= res->end_ns;

	aif_jobs_free(js);
	aif_runner_free(w);
	aif_fabric_free(&fab);
	aif_vhosts_free(&v);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static struct aif_job_params
job(enum aif_job_kind kind, uint32_t n, uint64_t bytes, uint32_t iters)
{
	return (struct aif_job_params){ .kind = kind, .n_ranks = n, .bytes = bytes,
					.iterations = iters, .chunks = 1, .straggler = -1,
					.seed = 1 };
}

static void
all_hosts(struct scen *s, uint32_t k)
{
	for (uint32_t i = 0; i < N_HOSTS; i++)
		s->hosts[k][i] = i;
}

static struct scen
lossless(const char *scheme, bool ooo)
{
	return (struct scen){ .scheme = scheme, .lb_extra = "", .pfc = true, .ecn = true,
			      .dcqcn = true, .ooo = ooo, .host_seed = 1 };
}

static aif_time_ns
no_rtt(uint32_t a, uint32_t b, void *arg)
{
	(void)a;
	(void)b;
	(void)arg;
	return 10000;
}

/* A job's ranks and hosts, checked before anything is made: 2 to 65,536
 * ranks (every host a fabric may have: a k=28 fat-tree has 5,488), hosts
 * that exist, one rank per host. */
static void
test_ranks_and_hosts_checked(void **state)
{
	struct aif_rhost_params hp;
	struct aif_rhost *h[3];
	char err[AIF_ERR_MAX];
	static uint32_t hosts[65537];

	(void)state;
	aif_rhost_params_default(&hp, 100000000000ull);
	for (int i = 0; i < 3; i++) {
		hp.ip = 0x0a000002u + ((uint32_t)i << 8);
		h[i] = aif_rhost_create(&hp, pool, 64, err, sizeof(err));
		if (h[i] == NULL)
			fail_msg("host: %s", err);
	}
	struct aif_jobs *js = aif_jobs_create(h, 3, hp.rate_bps, no_rtt, NULL);
	assert_non_null(js);
	struct { uint32_t n, h0, h1, h2; const char *err; } cases[] = {
		{ 65537, 0, 1, 2, "ranks: 2 or more, at most 65536" },
		{ 1, 0, 1, 2, "ranks: 2 or more, at most 65536" },
		{ 3, 0, 1, 3, "hosts: no such host" },
		{ 3, 2, 1, 2, "hosts: one rank per host (and plane)" },
		{ 3, 0, 0, 9, "hosts: one rank per host (and plane)" }, /* the first found */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct aif_job_params p = job(AIF_JOB_ALLTOALL, cases[c].n, 1000, 1);
		hosts[0] = cases[c].h0;
		hosts[1] = cases[c].h1;
		hosts[2] = cases[c].h2;
		p.hosts = hosts;
		err[0] = '\0';
		assert_int_equal(aif_jobs_add(js, &p, err, sizeof(err)), -1);
		assert_string_equal(err, cases[c].err);
	}
	/* 4,097 ranks pass the ranks' check (at most 4,096 before), to fail on
	 * the fourth host, which this set does not have */
	for (uint32_t r = 0; r < 4097; r++)
		hosts[r] = r;
	struct aif_job_params big = job(AIF_JOB_PERMUTATION, 4097, 1000, 1);
	big.hosts = hosts;
	assert_int_equal(aif_jobs_add(js, &big, err, sizeof(err)), -1);
	assert_string_equal(err, "hosts: no such host");
	/* the three, each once: taken */
	struct aif_job_params p = job(AIF_JOB_ALLTOALL, 3, 1000, 1);
	hosts[0] = 2;
	hosts[1] = 0;
	hosts[2] = 1;
	p.hosts = hosts;
	if (aif_jobs_add(js, &p, err, sizeof(err)) != 0)
		fail_msg("job: %s", err);
	aif_jobs_free(js);
	for (int i = 0; i < 3; i++)
		aif_rhost_free(h[i]);
}

static void
test_ring_allreduce_near_bound(void **state)
{
	struct scen s = lossless("spray", true);
	struct result a, b;

	(void)state;
	s.job[0] = job(AIF_JOB_ALLREDUCE_RING, N_HOSTS, 4 << 20, 2);
	s.n_jobs = 1;
	all_hosts(&s, 0);
	run(&s, &a);
	print_message("ring all-reduce 8 x 4 MiB, spray: JCT %.1f / %.1f us, ideal %.1f us, "
		      "retx %lu, drops %lu\n", a.jct[0][0] / 1e3, a.jct[0][1] / 1e3,
		      a.ideal[0] / 1e3, a.retx, a.drops);
	for (int i = 0; i < 2; i++) {
		assert_true(a.jct[0][i] <= a.ideal[0] * 1.10);
		assert_true(a.jct[0][i] >= a.ideal[0]);
	}
	assert_int_equal(a.drops, 0);
	assert_int_equal(a.retx, 0);
	/* the same seed: the same run */
	run(&s, &b);
	assert_int_equal(a.jct[0][0], b.jct[0][0]);
	assert_int_equal(a.jct[0][1], b.jct[0][1]);
	assert_int_equal(a.digest, b.digest);
}

/* leaf0-0 <-> leaf1-0 and leaf0-1 <-> leaf1-1: 8 iterations of 1 MiB each
 * way with 150 us of compute between them (longer than the flowlet gap). */
static struct scen
elephants(const char *scheme, const char *extra, uint64_t seed)
{
	struct scen s = lossless(scheme, true);
	s.lb_extra = extra;
	s.host_seed = seed;
	s.job[0] = job(AIF_JOB_PERMUTATION, 2, 1 << 20, 8);
	s.job[0].compute_ns = 150 * AIF_NS_PER_US;
	s.job[1] = s.job[0];
	s.n_jobs = 2;
	s.hosts[0][0] = 0, s.hosts[0][1] = 2;
	s.hosts[1][0] = 1, s.hosts[1][1] = 3;
	return s;
}

/* Sum over the iterations of the slower job's JCT. */
static aif_time_ns
elephant_time(const struct result *r)
{
	aif_time_ns t = 0;
	for (int i = 0; i < 4; i++)
		t += RTE_MAX(r->jct[0][i], r->jct[1][i]);
	return t;
}

static void
test_low_entropy(void **state)
{
	struct result r, f, sp;
	struct scen s;
	uint64_t seed, seeds[3];
	unsigned n = 0, both = 0;
	aif_time_ns e_all = 0, fl_all = 0;

	(void)state;
	/* host seeds whose two elephants ECMP puts on one uplink of leaf0 */
	for (seed = 1; seed < 128 && n < 3; seed++) {
		s = elephants("ecmp", "", seed);
		run(&s, &r);
		if (r.uplink_bytes[0] != 0 && r.uplink_bytes[1] != 0)
			continue;
		seeds[n++] = seed;
		e_all += elephant_time(&r);
		s = elephants("flowlet", "", seed);
		run(&s, &f);
		fl_all += elephant_time(&f);
		both += f.uplink_bytes[0] != 0 && f.uplink_bytes[1] != 0;
	}
	assert_int_equal(n, 3);
	s = elephants("ecmp", "", seeds[0]);
	run(&s, &r);
	s = elephants("spray", ", \"spray\": {\"mode\": \"random\"}", seeds[0]);
	run(&s, &sp);
	aif_time_ns e = elephant_time(&r), spr = elephant_time(&sp);
	print_message("elephants (host seed %lu), first 4 iterations: ECMP %.1f us, spray %.1f "
		      "us, ideal %.1f us; over host seeds %lu, %lu, %lu: ECMP %.1f us, LetFlow "
		      "%.1f us\n", seeds[0], e / 1e3, spr / 1e3, 4 * r.ideal[0] / 1e3, seeds[0],
		      seeds[1], seeds[2], e_all / 1e3, fl_all / 1e3);
	/* ECMP: both on one 100G uplink, every iteration */
	assert_true(e > 1.7 * spr && e < 3.5 * spr);
	assert_true(spr < 4 * r.ideal[0] * 1.15);
	/* LetFlow: a fresh random uplink per iteration, so both uplinks carry
	 * the elephants; but DCQCN with ConWeave's parameters recovers a cut
	 * flow slowly (100 Mb/s of target every 300 us), so moving apart after
	 * a collision buys little: LetFlow stays within a quarter of ECMP */
	assert_true(both >= 2);
	assert_true(fl_all < e_all * 5 / 4 && fl_all > e_all * 3 / 4);
}

static struct scen
incast(bool on)
{
	struct scen s = lossless("ecmp", false);
	s.pfc = s.dcqcn = s.ecn = on;
	s.buffer_bytes = 2000000;
	s.job[0] = job(AIF_JOB_INCAST, N_HOSTS, 1 << 20, 1);
	s.n_jobs = 1;
	for (uint32_t i = 0; i < N_HOSTS; i++)
		s.hosts[0][i] = (N_HOSTS - 1 + i) % N_HOSTS; /* leaf3-1 receives */
	return s;
}

static void
test_incast_lossless_or_not(void **state)
{
	struct result off, on;
	struct scen s;

	(void)state;
	s = incast(false);
	run(&s, &off);
	s = incast(true);
	run(&s, &on);
	print_message("incast 7 -> 1 x 1 MiB: PFC+DCQCN off: JCT %.1f us (ideal %.1f), drops "
		      "%lu, retx %lu, timeouts %lu; on: JCT %.1f us, drops %lu, peak queue %u B, "
		      "CNPs %lu\n", off.jct[0][0] / 1e3, off.ideal[0] / 1e3, off.drops, off.retx,
		      off.timeouts, on.jct[0][0] / 1e3, on.drops, on.peak_queue, on.cnps);
	assert_true(off.drops > 0);
	assert_true(off.retx > 0);
	assert_true(off.jct[0][0] > on.jct[0][0]);
	assert_int_equal(on.drops, 0);
	assert_int_equal(on.retx, 0);
	assert_true(on.peak_queue < 2000000);
	assert_true(on.cnps > 0);
}

/* PFC and DCQCN off, 7 -> 1: selective repeat resends the holes the SACKs
 * show and, at the burst's end, what a short timeout finds (RTO_low: few
 * packets in flight past the highest SACK), not one hole per 500 us
 * timeout; so it is late by a small factor only. */
static void
test_incast_selective_repeat(void **state)
{
	struct result gbn, sr;
	struct scen s = incast(false);

	(void)state;
	run(&s, &gbn);
	s.ooo = true;
	run(&s, &sr);
	double xg = (double)gbn.jct[0][0] / (double)gbn.ideal[0];
	double xs = (double)sr.jct[0][0] / (double)sr.ideal[0];
	print_message("incast 7 -> 1 x 1 MiB, PFC+DCQCN off: go-back-N %.1f us (%.2f x ideal), "
		      "retx %lu, timeouts %lu; selective repeat %.1f us (%.2f x ideal), drops %lu, "
		      "retx %lu, timeouts %lu\n", gbn.jct[0][0] / 1e3, xg, gbn.retx, gbn.timeouts,
		      sr.jct[0][0] / 1e3, xs, sr.drops, sr.retx, sr.timeouts);
	assert_true(sr.drops > 0);
	assert_true(xs < 2.5);
	assert_true(sr.jct[0][0] < gbn.jct[0][0]);
	/* what it resends was lost (give or take a timeout's worth) */
	assert_true(sr.retx >= sr.drops && sr.retx < sr.drops + sr.drops / 20);
}

/* Hosts and links at 0.1 Gb/s (a packet takes 87 us): an all-to-all with
 * PFC loses nothing, and neither selective repeat (sprayed) nor go-back-N
 * (ECMP) times out or resends. */
static void
test_slow_hosts_no_spurious_timeouts(void **state)
{
	struct result r;

	(void)state;
	for (int ooo = 1; ooo >= 0; ooo--) {
		struct scen s = lossless(ooo ? "spray" : "ecmp", ooo);
		s.gbps = 0.1;
		s.job[0] = job(AIF_JOB_ALLTOALL, N_HOSTS, 1 << 20, 1);
		s.n_jobs = 1;
		all_hosts(&s, 0);
		run(&s, &r);
		print_message("0.1 Gb/s all-to-all 8 x 1 MiB, %s: JCT %.1f ms (ideal %.1f), drops "
			      "%lu, retx %lu, timeouts %lu\n", ooo ? "spray, selective repeat" :
			      "ECMP, go-back-N", r.jct[0][0] / 1e6, r.ideal[0] / 1e6, r.drops, r.retx,
			      r.timeouts);
		assert_int_equal(r.drops, 0);
		assert_int_equal(r.timeouts, 0);
		assert_int_equal(r.retx, 0);
	}
}

static void
test_loss_go_back_n(void **state)
{
	struct result clean, lossy;
	struct scen s = lossless("ecmp", false);

	(void)state;
	s.job[0] = job(AIF_JOB_ALLREDUCE_RING, N_HOSTS, 4 << 20, 2);
	s.n_jobs = 1;
	all_hosts(&s, 0);
	run(&s, &clean);
	s.loss = 0.001;
	run(&s, &lossy);
	double infl = (double)(lossy.jct[0][0] + lossy.jct[0][1]) /
		      (double)(clean.jct[0][0] + clean.jct[0][1]);
	print_message("0.1%% loss on leaf0-spine0, go-back-N: JCT x %.3f (%.1f -> %.1f us), "
		      "retx %lu, NAKs %lu, timeouts %lu\n", infl,
		      (clean.jct[0][0] + clean.jct[0][1]) / 2e3,
		      (lossy.jct[0][0] + lossy.jct[0][1]) / 2e3, lossy.retx, lossy.naks,
		      lossy.timeouts);
	assert_int_equal(clean.retx, 0);
	assert_true(lossy.retx > 0);
	assert_true(lossy.naks + lossy.timeouts > 0);
	assert_true(infl > 1.0);
}

/* leaf1-0 sends 1000 B to leaf0-0 across a spine, mtu 1000: 4 links of
 * 1 us, two of them the hosts' cables.  The flow's FCT is one data frame
 * (a WRITE ONLY, with its RETH) and its ACK over each link; the base RTT
 * (a full middle frame) and ns-3's ideal of the same path (8,320 ns +
 * (1000 + 48) x 0.08).  With "wire_model": "ns3" the frames are ns-3's on
 * every link, the hosts' cables too: 1,036 and 48 bytes, each frame's
 * time rounded up to the ns as ns-3 schedules it (83 and 4 ns): the base
 * RTT and the FCT are ns-3's, 8,348 ns. */
static void
test_base_rtt_and_ns3_ideal(void **state)
{
	struct result r;
	struct aif_rhost_params hp;

	(void)state;
	aif_rhost_params_default(&hp, 100000000000ull);
	hp.mtu = 1000;
	for (int ns3 = 0; ns3 <= 1; ns3++) {
		struct scen s = lossless("ecmp", false);
		s.mtu = 1000;
		s.job[0] = job(AIF_JOB_INCAST, 2, 1000, 1);
		s.job[0].ideal = ns3 ? AIF_JOB_IDEAL_NS3 : AIF_JOB_IDEAL_BASE;
		s.n_jobs = 1;
		s.hosts[0][0] = 0, s.hosts[0][1] = 2; /* leaf0-0 <- leaf1-0 */
		run(&s, &r);
		/* ps: 4 x (1 us + the frame at 100G) each way */
		double data = aif_link_wire_bytes(aif_rhost_data_frame_len(&hp, 1000, true)) * 80.0;
		double mid = aif_link_wire_bytes(aif_rhost_data_frame_len(&hp, 1000, false)) * 80.0;
		double ack = aif_link_wire_bytes(aif_rhost_ack_frame_len()) * 80.0;
		print_message("1000 B across the spines: FCT %lu ns (ideal %s %lu ns), base RTT "
			      "%lu ns\n", r.fct0, ns3 ? "ns3" : "base", r.ideal0, r.rtt0);
		assert_true(fabs((double)r.fct0 - (8000 + 4 * (data + ack) / 1e3)) < 4);
		assert_int_equal(r.rtt0, (aif_time_ns)ceil(8000 + 4 * (mid + ack) / 1e3));
		if (ns3)
			assert_int_equal(r.ideal0, 8320 + (1000 + 48) * 8 / 100);
		else
			assert_int_equal(r.ideal0, r.rtt0 + (aif_time_ns)(data / 1e3));
	}
	struct scen s = lossless("ecmp", false);
	s.mtu = 1000;
	s.wire_ns3 = true;
	s.job[0] = job(AIF_JOB_INCAST, 2, 1000, 1);
	s.job[0].ideal = AIF_JOB_IDEAL_BASE;
	s.n_jobs = 1;
	s.hosts[0][0] = 0, s.hosts[0][1] = 2;
	run(&s, &r);
	print_message("the same, wire model ns3: FCT %lu ns, base RTT %lu ns, ideal %lu ns\n",
		      r.fct0, r.rtt0, r.ideal0);
	assert_int_equal(r.rtt0, 8348);        /* 8000 + 4 x (83 + 4): whole ns per frame */
	assert_int_equal(r.fct0, 8348);        /* ns-3's FCT of this flow */
	assert_int_equal(r.ideal0, 8348 + 82); /* + 1,036 B at 100G */

	/* the formula alone: ns-3's integers, 0 bytes as 1 */
	struct aif_jobs_ns3_path p = { .prop_ns = 4000, .tx_ns = 320, .rate_bps = 100000000000ull,
				       .hops = 4 };
	assert_int_equal(aif_jobs_ideal_ns3(0, 1000, 48, &p), 8320 + 3);         /* 49 B: 3.92 */
	assert_int_equal(aif_jobs_ideal_ns3(3931, 1000, 48, &p), 8320 + 329);    /* 4123 B */
	assert_int_equal(aif_jobs_ideal_ns3(1000000, 1000, 48, &p), 8320 + 83840);
}

/* Two DCQCN senders (ConWeave's parameters) into leaf3-1's 100G port:
 * their rates every 10 us.  Both are cut (notifications on their ACKs)
 * and, once cut, share the port rather than one starving. */
static void
test_dcqcn_two_flows(void **state)
{
	struct scen s = lossless("ecmp", false);
	static struct result r;

	(void)state;
	s.job[0] = job(AIF_JOB_INCAST, 3, 16 << 20, 1);
	s.n_jobs = 1;
	s.hosts[0][0] = 7, s.hosts[0][1] = 0, s.hosts[0][2] = 2; /* leaf0-0, leaf1-0 -> leaf3-1 */
	s.sample_rates = true;
	run(&s, &r);
	assert_true(r.n_samples > 100);
	double min[2] = { 1e9, 1e9 }, sum[2] = { 0, 0 };
	uint32_t half = r.n_samples / 2, n = 0;
	for (uint32_t i = 0; i < r.n_samples; i++)
		for (int k = 0; k < 2; k++) {
			min[k] = fmin(min[k], r.rate[k][i]);
			if (i >= half / 2 && i < half)
				sum[k] += r.rate[k][i], n += k == 0;
		}
	print_message("two flows into one 100G port: JCT %.1f us (ideal %.1f), CNPs %lu, %lu; "
		      "lowest rate %.2f, %.2f Gb/s; mean rate in the 2nd quarter %.1f, %.1f Gb/s\n",
		      r.jct[0][0] / 1e3, r.ideal[0] / 1e3, r.qp_cnps[0], r.qp_cnps[1], min[0], min[1],
		      sum[0] / n, sum[1] / n);
	for (uint32_t i = 0; i < r.n_samples; i += r.n_samples / 8)
		print_message("  t %4u us: %6.2f %6.2f Gb/s\n", i * 10, r.rate[0][i], r.rate[1][i]);
	for (int k = 0; k < 2; k++) {
		assert_true(r.qp_cnps[k] > 0);
		assert_true(min[k] < 50);
	}
	assert_int_equal(r.drops, 0);
}

static void
test_spray_needs_ooo_hosts(void **state)
{
	struct result gbn, ooo;
	struct scen s = lossless("spray", false);

	(void)state;
	s.lb_extra = ", \"spray\": {\"mode\": \"random\"}";
	s.job[0] = job(AIF_JOB_ALLTOALL, N_HOSTS, 4 << 20, 1);
	s.n_jobs = 1;
	all_hosts(&s, 0);
	run(&s, &gbn);
	s.ooo = true;
	run(&s, &ooo);
	print_message("random spray, all-to-all 8 x 4 MiB: go-back-N hosts JCT %.1f us, retx %lu "
		      "(NAKs %lu, CNPs %lu); out-of-order hosts JCT %.1f us, retx %lu\n",
		      gbn.jct[0][0] / 1e3, gbn.retx, gbn.naks, gbn.cnps, ooo.jct[0][0] / 1e3,
		      ooo.retx);
	assert_int_equal(gbn.drops, 0);
	assert_true(gbn.retx > 0); /* spurious: nothing was lost */
	assert_int_equal(ooo.drops, 0);
	assert_int_equal(ooo.retx, 0);
	assert_true(gbn.jct[0][0] > ooo.jct[0][0]);
}

/* The other collectives and a straggler, sprayed to out-of-order hosts:
 * each within 20% of its bound; a rank that computes 50 us longer delays
 * every iteration by about that.  The ACKs are sprayed too ("control_tc":
 * []): round-robin spraying balances what it carries, and halving-doubling's
 * two-way exchanges put two flows' ACKs on one uplink when ECMP hashes them
 * together (1.18x and 1.6x the bound then). */
static void
test_collectives_and_straggler(void **state)
{
	static const enum aif_job_kind kinds[] = { AIF_JOB_ALLREDUCE_HD, AIF_JOB_ALLGATHER,
						   AIF_JOB_REDUCE_SCATTER, AIF_JOB_ALLTOALL };
	struct result r, base, slow;

	(void)state;
	for (unsigned k = 0; k < RTE_DIM(kinds); k++) {
		struct scen s = lossless("spray", true);
		s.lb_extra = ", \"control_tc\": []";
		s.job[0] = job(kinds[k], N_HOSTS, 2 << 20, 2);
		s.n_jobs = 1;
		all_hosts(&s, 0);
		run(&s, &r);
		print_message("%s 8 x 2 MiB, spray: JCT %.1f / %.1f us, ideal %.1f us\n",
			      aif_job_kind_name(kinds[k]), r.jct[0][0] / 1e3, r.jct[0][1] / 1e3,
			      r.ideal[0] / 1e3);
		for (int i = 0; i < 2; i++) {
			assert_true(r.jct[0][i] >= r.ideal[0]);
			assert_true(r.jct[0][i] <= r.ideal[0] * 1.2);
		}
	}
	struct scen s = lossless("spray", true);
	s.lb_extra = ", \"control_tc\": []";
	s.job[0] = job(AIF_JOB_ALLREDUCE_RING, N_HOSTS, 1 << 20, 3);
	s.n_jobs = 1;
	all_hosts(&s, 0);
	run(&s, &base);
	s.job[0].straggler = 5;
	s.job[0].straggler_ns = 50 * AIF_NS_PER_US;
	run(&s, &slow);
	print_message("ring all-reduce, rank 5 computing 50 us longer: JCT %.1f -> %.1f us\n",
		      base.jct[0][1] / 1e3, slow.jct[0][1] / 1e3);
	for (int i = 0; i < 3; i++)
		assert_true(slow.jct[0][i] >= base.jct[0][i] + 45 * AIF_NS_PER_US);
}

/* The ideal is a lower bound: every kind, sprayed over an uncongested
 * fabric (the ring kinds also in 4 pipelined chunks), finishes every
 * iteration at or after it. */
static void
test_ideal_is_a_lower_bound(void **state)
{
	static const struct { enum aif_job_kind kind; uint32_t chunks; } jobs[] = {
		{ AIF_JOB_ALLREDUCE_RING, 1 }, { AIF_JOB_ALLREDUCE_RING, 4 },
		{ AIF_JOB_ALLREDUCE_HD, 1 }, { AIF_JOB_ALLGATHER, 1 }, { AIF_JOB_ALLGATHER, 4 },
		{ AIF_JOB_REDUCE_SCATTER, 4 }, { AIF_JOB_ALLTOALL, 1 }, { AIF_JOB_INCAST, 1 },
		{ AIF_JOB_PERMUTATION, 1 },
	};
	struct result r;

	(void)state;
	for (unsigned k = 0; k < RTE_DIM(jobs); k++) {
		struct scen s = lossless("spray", true);
		s.job[0] = job(jobs[k].kind, N_HOSTS, 1 << 20, 2);
		s.job[0].chunks = jobs[k].chunks;
		s.n_jobs = 1;
		all_hosts(&s, 0);
		run(&s, &r);
		print_message("%s, %u chunks, 8 x 1 MiB, spray: JCT %.1f / %.1f us, ideal %.1f us "
			      "(x %.3f)\n", aif_job_kind_name(jobs[k].kind), jobs[k].chunks,
			      r.jct[0][0] / 1e3, r.jct[0][1] / 1e3, r.ideal[0] / 1e3,
			      (double)RTE_MIN(r.jct[0][0], r.jct[0][1]) / (double)r.ideal[0]);
		assert_true(r.ideal[0] > 0);
		for (int i = 0; i < 2; i++)
			assert_true(r.jct[0][i] >= r.ideal[0]);
	}
}

/* Two planes (a host with a port on each, a QP per plane, messages split
 * over both): the ring all-reduce takes about half as long as on one. */
static void
test_multi_plane(void **state)
{
	struct result one, two;

	(void)state;
	struct scen s = lossless("spray", true);
	s.job[0] = job(AIF_JOB_ALLREDUCE_RING, N_HOSTS, 4 << 20, 1);
	s.n_jobs = 1;
	all_hosts(&s, 0);
	run(&s, &one);
	s.planes = 2;
	s.job[0].planes = 2;
	for (uint32_t r = 0; r < N_HOSTS; r++)
		for (uint32_t k = 0; k < 2; k++)
			s.hosts[0][r * 2 + k] = k * N_HOSTS + r; /* p<k>-leaf.. in config order */
	run(&s, &two);
	print_message("ring all-reduce 8 x 4 MiB: one plane %.1f us (ideal %.1f), two planes "
		      "%.1f us (ideal %.1f)\n", one.jct[0][0] / 1e3, one.ideal[0] / 1e3,
		      two.jct[0][0] / 1e3, two.ideal[0] / 1e3);
	assert_true(two.ideal[0] < one.ideal[0] * 0.55);
	assert_true(two.jct[0][0] < one.jct[0][0] * 0.7);
	assert_int_equal(two.drops, 0);
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_jobs", "aif-pl-jobs", 1024) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("jobs_pool", 65535, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
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
		cmocka_unit_test(test_ranks_and_hosts_checked),
		cmocka_unit_test(test_ring_allreduce_near_bound),
		cmocka_unit_test(test_low_entropy),
		cmocka_unit_test(test_incast_lossless_or_not),
		cmocka_unit_test(test_incast_selective_repeat),
		cmocka_unit_test(test_slow_hosts_no_spurious_timeouts),
		cmocka_unit_test(test_loss_go_back_n),
		cmocka_unit_test(test_spray_needs_ooo_hosts),
		cmocka_unit_test(test_collectives_and_straggler),
		cmocka_unit_test(test_ideal_is_a_lower_bound),
		cmocka_unit_test(test_multi_plane),
		cmocka_unit_test(test_base_rtt_and_ns3_ideal),
		cmocka_unit_test(test_dcqcn_two_flows),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
