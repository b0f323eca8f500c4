/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same flows as ConWeave's ns-3, in virtual time, against what ns-3
 * wrote for them (tests/data/ns3/, README there): one switch, hosts on
 * 100G links of 1 us, like for like with ns-3 (the config's "wire_model":
 * "ns3": ns-3's frame sizes and times on the hosts' wires and in the
 * buffer), the switch in ns-3's mode (buffer model conweave, PFC mode
 * ns3), hosts as ns-3's by default, each flow file replayed by a
 * flow_file job as `--jobs` does.
 *
 *  - DCQCN, two 50 MB flows into one 100G port (dcqcn2: the second 1 ms
 *    after the first; dcqcn2sim: together).  ECN marks between Kmin and
 *    Kmax are random draws, so no two runs with other draws agree sample
 *    for sample: ns-3 with RANDOM_SEED 2..10 is off its seed-1 run by more
 *    than 10% at 7 to 128 of ~165 rate samples.  What is asserted: at every
 *    100-us sample after 500 us (until the first flow ends), each QP's rate
 *    within 10% of the range ns-3's ten runs span and the bottleneck queue
 *    within 10% + 30 KB of theirs, failing at no more than 5% of the
 *    samples; the FCTs within 10% of theirs.
 *  - PFC incast 16 -> 1 x 1 MB, 9 MiB buffer (incast16noecn: no ECN;
 *    incast16: DCQCN): the first XOFF comes exactly where ns-3's formula
 *    puts it (a PG's bytes past 2 x 1,048 over (sp_limit - bytes held) / 16,
 *    sp_limit 8,846,524 on 17 ports), not a nanosecond before; without ECN
 *    at ns-3's nanosecond on ns-3's 13 ports; with DCQCN whether PFC comes
 *    at all is a matter of the ECN draws, and it comes in about as many
 *    seeds as in ns-3's forty.
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
#include "qos.h"
#include "shard.h"
#include "vhosts.h"
#include "ctl_events.h"
#include "evloop.h"
#include "workload.h"
#include "runner.h"

#include "test_eal.h"

#define DATA AIF_SOURCE_ROOT "/tests/data/ns3/"
#define MAX_HOSTS 17
#define MAX_ROWS 2048
#define N_SEEDS 10
#define PG 3

static struct rte_mempool *pool;

/* ---- ns-3's data ---- */

/* A row of <scenario>_100us.csv: rate -1 while the flow is not running. */
struct ns3_row {
	uint32_t t_us, seed;
	double rate[2];
	double queue;
};

static uint32_t
ns3_rows(const char *file, struct ns3_row *r)
{
	char path[512], line[256];
	uint32_t n = 0;

	snprintf(path, sizeof(path), DATA "%s", file);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f)); /* header */
	while (fgets(line, sizeof(line), f) != NULL && n < MAX_ROWS) {
		assert_int_equal(sscanf(line, "%u,%u,%lf,%lf,%lf", &r[n].t_us, &r[n].seed,
					&r[n].rate[0], &r[n].rate[1], &r[n].queue), 5);
		n++;
	}
	fclose(f);
	assert_true(n > 0 && n < MAX_ROWS);
	return n;
}

/* ---- the run ---- */

struct setup {
	const char *flows;       /* file under tests/data/ns3/ */
	uint16_t n_hosts;
	bool ecn;
	aif_time_ns sample_ns;   /* 0: none */
	void (*sample)(aif_time_ns t, void *arg);
	void *arg;
	uint64_t seed;           /* the run's (--seed); 0: 0x5eed */
};

struct outcome {
	aif_time_ns fct_ns[MAX_HOSTS];  /* by flow */
	uint32_t n_flows;
	uint64_t pauses_rx[MAX_HOSTS];  /* PAUSE / RESUME frames each host received */
	uint64_t resumes_rx[MAX_HOSTS];
	uint64_t drops;
	uint64_t sp_limit_bytes;
	aif_time_ns first_pause_ns;     /* the first PAUSE a host heard; 0: none */
};

/* The run in progress (its switch, its hosts), for the samplers. */
static struct aif_fabric fab;
static struct aif_workload wl;
static struct outcome *cur;

static void
host_pfc(void *arg, aif_time_ns now_ns, bool pause)
{
	uintptr_t h = (uintptr_t)arg;

	if (pause && cur->first_pause_ns == 0)
		cur->first_pause_ns = now_ns;
	if (pause)
		cur->pauses_rx[h]++;
	else
		cur->resumes_rx[h]++;
}

static void
run(const struct setup *s, struct outcome *o)
{
	char json[8192], err[AIF_ERR_MAX] = "", jobs_path[] = "/tmp/aif-ns3-jobs-XXXXXX";
	struct aif_config *cfg;
	static struct aif_ctl ctl;
	size_t n = 0;

	uint64_t seed = s->seed ? s->seed : 0x5eed;

	memset(o, 0, sizeof(*o));
	cur = o;
	n += (size_t)snprintf(json + n, sizeof(json) - n,
		"{\"wire_model\": \"ns3\", \"policies\": {\"default\": {\"qos\": {\"buffer\": {\"model\": \"conweave\"},"
		" \"pfc\": {\"mode\": \"ns3\"}, \"ecn\": {\"mode\": \"%s\"}}}},"
		" \"switches\": [{\"name\": \"sw\", \"ports\": [", s->ecn ? "ecn" : "off");
	for (uint16_t h = 0; h < s->n_hosts; h++)
		n += (size_t)snprintf(json + n, sizeof(json) - n,
			"%s{\"name\": \"p%u\", \"speed_gbps\": 100, \"addresses\": [\"10.0.%u.1/24\"]}",
			h ? ", " : "", h + 1, h);
	n += (size_t)snprintf(json + n, sizeof(json) - n, "]}], \"hosts\": [");
	for (uint16_t h = 0; h < s->n_hosts; h++)
		n += (size_t)snprintf(json + n, sizeof(json) - n,
			"%s{\"name\": \"h%u\", \"switch\": \"sw\", \"port\": \"p%u\", \"ip\": "
			"\"10.0.%u.2\", \"mac\": \"02:00:00:00:01:%02x\"}", h ? ", " : "", h, h + 1,
			h, h);
	snprintf(json + n, sizeof(json) - n, "]}");
	if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);

	/* the jobs file as a user writes it: ns-3's hosts (the defaults),
	 * 1000-byte payloads, ns-3's source ports */
	int fd = mkstemp(jobs_path);
	assert_true(fd >= 0);
	FILE *jf = fdopen(fd, "w");
	assert_non_null(jf);
	fprintf(jf, "{\"hosts\": {\"mtu\": 1000, \"icrc\": false, \"identities\": \"ns3\","
		    " \"host_link_delay_ns\": 1000},"
		    " \"pfc_log\": false, \"qlen_monitor\": false,"
		    " \"jobs\": [{\"name\": \"f\", \"kind\": \"flow_file\", \"file\": \"" DATA
		    "%s\", \"format\": \"conweave\"}]}", s->flows);
	fclose(jf);
	memset(&wl, 0, sizeof(wl));
	int rc = aif_workload_load(&wl, jobs_path, err, sizeof(err));
	unlink(jobs_path);
	if (rc != 0)
		fail_msg("jobs: %s", err);

	memset(&fab, 0, sizeof(fab));
	memset(&ctl, 0, sizeof(ctl));
	if (aif_fabric_build(&fab, cfg, pool, 1, seed, err, sizeof(err)) != 0)
		fail_msg("fabric: %s", err);
	if (aif_workload_hosts(&wl, cfg, &fab, NULL, NULL, pool, seed, err, sizeof(err)) != 0)
		fail_msg("hosts: %s", err);
	assert_int_equal(wl.v.n, s->n_hosts);
	for (uintptr_t h = 0; h < s->n_hosts; h++)
		aif_rhost_set_pfc_log(wl.v.h[h], host_pfc, (void *)h);
	aif_clock_init_virtual(&ctl.clock, 0);
	aif_ctl_add_switch(&ctl, fab.sw[0]);
	if (aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err)) != 0)
		fail_msg("load: %s", err);
	struct aif_runner *w = aif_runner_create(fab.sw[0], 0, seed);
	assert_non_null(w);
	for (uint16_t p = 0; p < fab.sw[0]->n_ports; p++)
		assert_int_equal(aif_runner_add_rxq_of(w, 0, p, 0), 0);
	if (aif_workload_jobs(&wl, cfg, 0, err, sizeof(err)) != 0)
		fail_msg("jobs: %s", err);

	struct aif_evloop loop;
	struct aif_ev_periodic smp;
	struct aif_ctl_tick tick;
	aif_evloop_init(&loop, &ctl.clock, 50 * AIF_NS_PER_MS);
	if (s->sample != NULL && s->sample_ns > 0) {
		aif_ev_periodic_init(&smp, 0, s->sample_ns, s->sample, s->arg);
		assert_int_equal(aif_evloop_add(&loop, &smp.src), 0);
	}
	aif_ctl_tick_init(&tick, &ctl, 0, AIF_CTL_TICK_NS);
	assert_int_equal(aif_evloop_add(&loop, &tick.src), 0);
	assert_int_equal(aif_evloop_add(&loop, aif_runner_source(w)), 0);
	loop.idle = aif_workload_idle;
	loop.idle_arg = &wl;
	assert_int_equal(aif_vhosts_wake_by(&wl.v, w), 0);
	aif_evloop_run(&loop);
	assert_true(aif_workload_idle(&wl));

	const struct aif_flow *fl = aif_jobs_flows(wl.js, &o->n_flows);
	assert_true(o->n_flows <= MAX_HOSTS);
	for (uint32_t i = 0; i < o->n_flows; i++)
		o->fct_ns[i] = fl[i].end_ns - fl[i].start_ns;
	const struct aif_switch *sw = fab.sw[0];
	for (uint16_t p = 0; p < sw->n_ports; p++)
		for (unsigned d = 0; d < AIF_DROP_MAX; d++)
			o->drops += sw->shards[0]->port_ctr[p].drops[d];
	o->sp_limit_bytes = sw->qos->cfg.mmu.shared_limit_bytes;

	aif_runner_free(w);
	aif_fabric_free(&fab);
	aif_workload_free(&wl);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
	cur = NULL;
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* ---- DCQCN, two flows ---- */

struct series {
	uint32_t n;
	uint32_t t_us[MAX_ROWS];
	double rate[MAX_ROWS][2];  /* -1: not running */
	double queue[MAX_ROWS];    /* bytes waiting at the bottleneck (to h2) */
};

/* Each QP's rate (DCQCN's Rc, the pacing rate, as ns-3's m_rate) while it
 * has something to send, and the bytes waiting in the bottleneck port's
 * queues (ns-3's GetNBytesTotal: the frame on the wire not counted). */
static void
sample_two(aif_time_ns t, void *arg)
{
	struct series *s = arg;
	const struct aif_switch *sw = fab.sw[0];

	if (s->n == MAX_ROWS)
		return;
	s->t_us[s->n] = (uint32_t)(t / AIF_NS_PER_US);
	for (int k = 0; k < 2; k++) {
		struct aif_rhost_qp_state st;
		s->rate[s->n][k] = -1;
		if (aif_rhost_qp_state(wl.v.h[k], 0, t, &st) == 0 &&
		    (st.inflight_pkts || st.unsent_pkts))
			s->rate[s->n][k] = st.rate_bps / 1e9;
	}
	s->queue[s->n] = (double)sw->qos->mmu.port_bytes[2];
	s->n++;
}

struct band {
	double lo, hi;
	uint32_t n;
};

static void
dcqcn_vs_ns3(const char *scen)
{
	static struct ns3_row ref[MAX_ROWS];
	static struct series a;
	char file[64], path[512], line[128];
	struct outcome o;

	snprintf(file, sizeof(file), "%s_100us.csv", scen);
	uint32_t nr = ns3_rows(file, ref);
	snprintf(file, sizeof(file), "%s_flows.txt", scen);
	memset(&a, 0, sizeof(a));
	run(&(struct setup){ .flows = file, .n_hosts = 3, .ecn = true,
			     .sample_ns = 100 * AIF_NS_PER_US, .sample = sample_two, .arg = &a },
	    &o);
	assert_int_equal(o.n_flows, 2);
	assert_int_equal(o.drops, 0);

	/* until the first flow of any run (aifabric's, ns-3's ten) ends */
	uint32_t end_us = UINT32_MAX;
	for (uint32_t seed = 1; seed <= N_SEEDS; seed++) {
		uint32_t last = 0;
		for (uint32_t i = 0; i < nr; i++)
			if (ref[i].seed == seed && ref[i].rate[0] >= 0 && ref[i].rate[1] >= 0)
				last = ref[i].t_us;
		end_us = RTE_MIN(end_us, last);
	}
	for (uint32_t i = 0; i < a.n; i++)
		if (a.t_us[i] >= 1000 && (a.rate[i][0] < 0 || a.rate[i][1] < 0)) {
			end_us = RTE_MIN(end_us, a.t_us[i] - 100);
			break;
		}

	uint32_t n_rate = 0, out_rate = 0, n_q = 0, out_q = 0, off_seed1 = 0;
	for (uint32_t i = 0; i < a.n; i++) {
		uint32_t t = a.t_us[i];
		if (t <= 500 || t > end_us)
			continue;
		struct band r[2] = { { INFINITY, -INFINITY, 0 }, { INFINITY, -INFINITY, 0 } };
		struct band q = { INFINITY, -INFINITY, 0 };
		double seed1[2] = { -1, -1 };
		for (uint32_t j = 0; j < nr; j++) {
			if (ref[j].t_us != t)
				continue;
			for (int k = 0; k < 2; k++)
				if (ref[j].rate[k] >= 0) {
					r[k].lo = fmin(r[k].lo, ref[j].rate[k]);
					r[k].hi = fmax(r[k].hi, ref[j].rate[k]);
					r[k].n++;
					if (ref[j].seed == 1)
						seed1[k] = ref[j].rate[k];
				}
			q.lo = fmin(q.lo, ref[j].queue);
			q.hi = fmax(q.hi, ref[j].queue);
			q.n++;
		}
		for (int k = 0; k < 2; k++) {
			if (a.rate[i][k] < 0 || r[k].n < N_SEEDS)
				continue;
			n_rate++;
			if (a.rate[i][k] < 0.9 * r[k].lo || a.rate[i][k] > 1.1 * r[k].hi) {
				out_rate++;
				print_message("  %s t %u us qp %d: %.2f Gb/s, ns-3 %.2f..%.2f\n", scen,
					      t, k, a.rate[i][k], r[k].lo, r[k].hi);
			}
			if (seed1[k] >= 0 && fabs(a.rate[i][k] - seed1[k]) > 0.1 * seed1[k])
				off_seed1++;
		}
		if (q.n < N_SEEDS)
			continue;
		n_q++;
		if (a.queue[i] < 0.9 * q.lo - 30000 || a.queue[i] > 1.1 * q.hi + 30000) {
			out_q++;
			print_message("  %s t %u us queue: %.0f B, ns-3 %.0f..%.0f\n", scen, t,
				      a.queue[i], q.lo, q.hi);
		}
	}

	/* FCTs: within 10% of the range of ns-3's */
	double lo[2] = { INFINITY, INFINITY }, hi[2] = { 0, 0 };
	snprintf(path, sizeof(path), DATA "%s_fct.csv", scen);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	unsigned seed, flow;
	double fct;
	while (fgets(line, sizeof(line), f) != NULL) {
		assert_int_equal(sscanf(line, "%u,%u,%lf", &seed, &flow, &fct), 3);
		assert_true(flow < 2);
		lo[flow] = fmin(lo[flow], fct);
		hi[flow] = fmax(hi[flow], fct);
	}
	fclose(f);

	print_message("%s: %u rate samples (after 500 us, to %u us), %u outside ns-3's ten runs "
		      "+-10%%, %u off ns-3's seed-1 run by > 10%%; %u queue samples, %u outside "
		      "+-10%% + 30 KB; FCT %.3f, %.3f ms (ns-3 %.3f..%.3f, %.3f..%.3f)\n", scen,
		      n_rate, end_us, out_rate, off_seed1, n_q, out_q, o.fct_ns[0] / 1e6,
		      o.fct_ns[1] / 1e6, lo[0] / 1e6, hi[0] / 1e6, lo[1] / 1e6, hi[1] / 1e6);
	assert_true(n_rate >= 120);
	assert_true(n_q >= 60);
	assert_true(out_rate * 20 <= n_rate);
	assert_true(out_q * 20 <= n_q);
	for (int k = 0; k < 2; k++) {
		assert_true(o.fct_ns[k] >= 0.9 * lo[k]);
		assert_true(o.fct_ns[k] <= 1.1 * hi[k]);
	}
}

static void
test_dcqcn2(void **state)
{
	(void)state;
	dcqcn_vs_ns3("dcqcn2");
}

static void
test_dcqcn2sim(void **state)
{
	(void)state;
	dcqcn_vs_ns3("dcqcn2sim");
}

/* ---- PFC incast 16 -> 1 ---- */

struct xoff_watch {
	bool seen;
	aif_time_ns t_ns;
	uint16_t port;           /* switch port (0-based: host h on port h) */
	uint64_t pg_bytes, held_bytes, over_before;
	uint32_t n_ports;        /* XOFF at that sample */
	bool before_ok;          /* 1 ns before: no PG over the threshold */
	bool prev_clear;
};

static uint64_t
pg_bytes_of(const struct aif_mmu_pg *g)
{
	return (uint64_t)g->reserve_bytes + g->port_reserve_bytes + g->shared_bytes +
	       g->headroom_bytes;
}

/* ns-3's XOFF rule (GetPauseClasses): PG - 2 x 1,048 > (sp_limit - held) / 16. */
static bool
over_threshold(const struct aif_mmu *m, uint64_t pg)
{
	return pg > 2096 &&
	       16 * ((int64_t)pg - 2096) > (int64_t)m->cfg->shared_limit_bytes - (int64_t)m->used_bytes;
}

/* Every ns until the first XOFF: the state before the events of t. */
static void
watch_xoff(aif_time_ns t, void *arg)
{
	struct xoff_watch *x = arg;
	const struct aif_switch *sw = fab.sw[0];
	const struct aif_mmu *m = &sw->qos->mmu;

	if (x->seen)
		return;
	bool any_over = false;
	uint32_t n_xoff = 0;
	for (uint16_t p = 0; p < sw->n_ports; p++) {
		if (over_threshold(m, pg_bytes_of(&m->port[p].pg[PG])))
			any_over = true;
		if (m->pg_ctr[p][PG].xoff_events) {
			if (n_xoff++ == 0) {
				x->port = p;
				x->pg_bytes = pg_bytes_of(&m->port[p].pg[PG]);
			}
		}
	}
	if (n_xoff == 0) {
		x->prev_clear = !any_over;
		return;
	}
	x->seen = true;
	x->t_ns = t - 1; /* it happened in the step before this sample */
	x->n_ports = n_xoff;
	x->held_bytes = m->used_bytes;
	x->before_ok = x->prev_clear;
}

/* ns-3's first XOFF of a run (incast16_first_xoff.csv); false: none. */
static bool
ns3_first_xoff(const char *scen, unsigned seed, double *t_ns, double *pg, double *held)
{
	char line[256], name[32];
	unsigned sd;
	double port, sp, thr;
	bool found = false;

	FILE *f = fopen(DATA "incast16_first_xoff.csv", "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		assert_int_equal(sscanf(line, "%31[^,],%u,%lf,%lf,%lf,%lf,%lf,%lf", name, &sd, t_ns,
					&port, pg, held, &sp, &thr), 8);
		found = strcmp(name, scen) == 0 && sd == seed && *t_ns >= 0;
	}
	fclose(f);
	return found;
}

/* ns-3's PAUSE frames per host (incast16_pfc.csv), and how many links. */
static uint64_t
ns3_pauses(const char *scen, unsigned seed, uint64_t per_host[MAX_HOSTS], uint32_t *links)
{
	char line[128], name[32];
	unsigned sd, h;
	uint64_t p, r, total = 0;

	memset(per_host, 0, MAX_HOSTS * sizeof(per_host[0]));
	*links = 0;
	FILE *f = fopen(DATA "incast16_pfc.csv", "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f) != NULL) {
		assert_int_equal(sscanf(line, "%31[^,],%u,%u,%lu,%lu", name, &sd, &h, &p, &r), 5);
		if (strcmp(name, scen) != 0 || sd != seed || h >= MAX_HOSTS)
			continue;
		per_host[h] = p;
		total += p;
		*links += p > 0;
	}
	fclose(f);
	return total;
}

static void
print_pauses(const char *scen, const struct outcome *o, const uint64_t ns3[MAX_HOSTS])
{
	for (int h = 1; h < 17; h++)
		print_message("  %s host %2d: %4lu PAUSE, %3lu RESUME (ns-3: %4lu PAUSE)\n", scen, h,
			      o->pauses_rx[h], o->resumes_rx[h], ns3[h]);
}

/* No ECN: nothing random in either simulator.  The first XOFF at ns-3's
 * nanosecond (24,489 ns), on ns-3's 13 ports (the first three of the 16
 * packets that arrive in that ns find the threshold not yet crossed), PG
 * 277,720 B as ns-3's, the bytes held within 1% (ns-3 logs them at the
 * first pausing packet, here after the whole ns); then PFC on every link
 * and the bottleneck at its egress limit, dropping, as in ns-3.  Every
 * host sends at ns-3's instants until 72.5 us, where ns-3 orders packets
 * that arrive in the same ns by its event queue and this switch by port,
 * and so drops others at the egress limit: from then on the runs part.
 * PAUSE frames per link do not follow ns-3's; their total within 20%,
 * the drops within 15%. */
static void
test_incast16noecn(void **state)
{
	struct xoff_watch x = { .prev_clear = true };
	struct outcome o;
	uint64_t ns3[MAX_HOSTS], total = 0;
	uint32_t ns3_links, links = 0;
	double t_ns, pg, held;

	(void)state;
	assert_true(ns3_first_xoff("incast16noecn", 1, &t_ns, &pg, &held));
	uint64_t ns3_total = ns3_pauses("incast16noecn", 1, ns3, &ns3_links);
	run(&(struct setup){ .flows = "incast16_flows.txt", .n_hosts = 17, .ecn = false,
			     .sample_ns = 1, .sample = watch_xoff, .arg = &x },
	    &o);
	for (int h = 1; h < 17; h++) {
		total += o.pauses_rx[h];
		links += o.pauses_rx[h] > 0;
	}
	print_message("incast16noecn: sp_limit %lu B; first XOFF at %lu ns on %u port(s), PG %lu B, "
		      "held %lu B, threshold then %.2f B (ns-3: %.0f ns, PG %.0f, held %.0f); "
		      "PAUSE frames %lu on %u links (ns-3 %lu on %u); drops %lu (ns-3 13398)\n",
		      o.sp_limit_bytes, x.t_ns, x.n_ports, x.pg_bytes, x.held_bytes,
		      2096 + ((double)o.sp_limit_bytes - (double)x.held_bytes) / 16, t_ns, pg, held,
		      total, links, ns3_total, ns3_links, o.drops);
	print_pauses("incast16noecn", &o, ns3);
	assert_int_equal(o.sp_limit_bytes, 8846524);
	assert_true(x.seen);
	assert_true(x.before_ok);
	assert_int_equal(x.t_ns, (aif_time_ns)t_ns);
	assert_int_equal(x.n_ports, 13);
	assert_int_equal(x.pg_bytes, (uint64_t)pg);
	assert_true(fabs((double)x.held_bytes - held) <= 0.01 * held);
	assert_int_equal(links, ns3_links);
	assert_true(fabs((double)total - (double)ns3_total) <= 0.2 * (double)ns3_total);
	assert_true(fabs((double)o.drops - 13398) <= 0.15 * 13398);
}

/* DCQCN on: every sender is cut to 0.1 Gb/s within 50 us and leaves it at
 * its fast recovery, 300 us after its last cut, on its packet grid (one
 * packet per 83,840 ns); a sender that recovers just after the grid point
 * the others left on waits a period and then runs at 50 Gb/s behind their
 * queue, with no notification for ~150 us: its PG crosses the threshold.
 * Whether one does is a matter of the ECN draws: ns-3 paused in 24 of 40
 * seeds, 139 to 571 PAUSE frames on one to four links, the first heard
 * 649 to 693 us in.  Asserted over seeds 1..N_PFC_SEEDS: as often within
 * what 40 binomial draws allow (7 to 17 of 20), in each pausing run the
 * first PAUSE in 640..700 us and 130..230 PAUSE frames per paused link;
 * in every run no drop and the incast's end within 10% of ns-3's forty;
 * with the default seed the XOFF rule where the PG crosses (as above). */
#define N_PFC_SEEDS 20
static void
test_incast16(void **state)
{
	struct xoff_watch x = { .prev_clear = true };
	struct outcome o;
	uint64_t ns3[MAX_HOSTS];
	uint32_t ns3_links, paused = 0;
	double lo = INFINITY, hi = 0, mn, mx;
	char line[128];
	unsigned seed;

	(void)state;
	uint32_t ns3_paused = 0;
	for (unsigned sd = 1; sd <= 40; sd++)
		ns3_paused += ns3_pauses("incast16", sd, ns3, &ns3_links) > 0;
	ns3_pauses("incast16", 1, ns3, &ns3_links);
	FILE *f = fopen(DATA "incast16_fct.csv", "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f) != NULL) {
		assert_int_equal(sscanf(line, "%u,%lf,%lf", &seed, &mn, &mx), 3);
		lo = fmin(lo, mx);
		hi = fmax(hi, mx);
	}
	fclose(f);
	for (uint64_t sd = 0; sd <= N_PFC_SEEDS; sd++) {
		/* seed 0: the default, watched every ns for the XOFF rule */
		run(&(struct setup){ .flows = "incast16_flows.txt", .n_hosts = 17, .ecn = true,
				     .sample_ns = sd == 0 ? 1 : 0, .sample = watch_xoff,
				     .arg = &x, .seed = sd },
		    &o);
		aif_time_ns last = 0;
		uint64_t total = 0;
		uint32_t links = 0;
		for (uint32_t i = 0; i < o.n_flows; i++)
			last = RTE_MAX(last, o.fct_ns[i]);
		for (int h = 1; h < 17; h++) {
			total += o.pauses_rx[h];
			links += o.pauses_rx[h] > 0;
		}
		print_message("incast16 seed %lu: %lu PAUSE on %u link(s), first heard %.3f us; "
			      "last FCT %.3f ms (ns-3 %.3f..%.3f); drops %lu\n",
			      sd ? sd : 0x5eed, total, links, o.first_pause_ns / 1e3, last / 1e6,
			      lo / 1e6, hi / 1e6, o.drops);
		assert_int_equal(o.n_flows, 16);
		assert_int_equal(o.drops, 0);
		assert_true(last >= 0.9 * lo && last <= 1.1 * hi);
		if (sd == 0) {
			print_pauses("incast16", &o, ns3);
			if (x.seen)
				assert_true(x.before_ok);
			continue;
		}
		if (links == 0)
			continue;
		paused++;
		assert_true(o.first_pause_ns >= 640 * AIF_NS_PER_US &&
			    o.first_pause_ns <= 700 * AIF_NS_PER_US);
		assert_true(total >= 130 * links && total <= 230 * links);
	}
	print_message("incast16: PFC in %u of %u seeds (ns-3: %u of 40)\n", paused, N_PFC_SEEDS,
		      ns3_paused);
	assert_int_equal(ns3_paused, 24);
	assert_true(paused >= 7 && paused <= 17);
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_ns3_ref", "aif-pl-ns3", 1024) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("ns3_pool", 65535, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
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
		cmocka_unit_test(test_dcqcn2),
		cmocka_unit_test(test_dcqcn2sim),
		cmocka_unit_test(test_incast16noecn),
		cmocka_unit_test(test_incast16),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
