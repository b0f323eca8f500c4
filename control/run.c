/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run's set-up, report and end (run.h); the two modes are run_real.c and
 * run_sim.c.
 *
 * Start-up: the options, the config file (read and checked once; the same
 * text is applied and kept as the running config) and the control socket
 * (not one another daemon listens on) come before EAL; then EAL, the mbuf
 * pool, the ports, the config applied, the runners.  A failure at any step
 * ends the run with its reason, every port EAL made closed before the pool
 * is freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#include "../dataplane/capture.h"
#include "../dataplane/clock.h"
#include "../dataplane/groups.h"
#include "../dataplane/link.h"
#include "../dataplane/mbuf.h"
#include "../dataplane/roce.h"
#include "../dataplane/runner.h"
#include "../dataplane/switch.h"
#include "../pipelines/lb_prog.h"
#include "build_id.h"
#include "ctl_server.h"
#include "eal_ports.h"
#include "ranks.h"
#include "report.h"
#include "run.h"
#include "summary.h"

#define POOL_CACHE 256

volatile sig_atomic_t aif_run_stop;

static void
on_signal(int sig)
{
	(void)sig;
	aif_run_stop = 1;
}

/* Real time: every port that is not a link's end (nor, with --jobs, a
 * virtual host's) is bound to a DPDK device. */
static int
check_devices(const struct aif_opts *o, const struct aif_config *cfg)
{
	for (uint16_t s = 0; s < cfg->n_switches; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++) {
			bool link_end = false;
			for (uint32_t k = 0; k < cfg->n_links && !link_end; k++)
				link_end = (cfg->links[k].a_switch == s && cfg->links[k].a_port == p) ||
					   (cfg->links[k].b_switch == s && cfg->links[k].b_port == p);
			bool host = false; /* --jobs: a virtual host's port */
			for (uint32_t h = 0; o->jobs != NULL && h < cfg->n_hosts && !host; h++)
				host = cfg->hosts[h].sw == s && cfg->hosts[h].port == p;
			if (!link_end && !host && cfg->switches[s].ports[p].device[0] == '\0') {
				fprintf(stderr, "config %s: $.switches[%u].ports[%u].device: required: "
					"in real time every port that is not a link's end is bound to "
					"a DPDK device (or run it with --virtual-time)\n", o->config, s, p);
				return -1;
			}
		}
	return 0;
}

int
aif_run_prepare(struct aif_run *r, int argc, char **argv)
{
	struct aif_opts *o = &r->o;
	char err[AIF_ERR_MAX], *text;
	size_t text_len = 0;
	int n = aif_opts_parse(argc, argv, o);

	if (n != 0)
		return n; /* --help: done */
	/* The config file is read and parsed once; what is applied (and kept
	 * as the running config) is that one parse (a file changed meanwhile
	 * cannot mix in). */
	text = aif_config_read_file(o->config, &text_len, err, sizeof(err));
	if (text == NULL || aif_config_parse(text, text_len, &r->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "config %s: %s\n", o->config, err);
		free(text);
		return -1;
	}
	free(text);
	if (o->jobs != NULL && aif_workload_load(&r->wl, o->jobs, err, sizeof(err)) != 0) {
		fprintf(stderr, "--jobs %s\n", err);
		return -1;
	}
	if (!o->vtime && (check_devices(o, r->cfg) != 0 || aif_opts_socket_free(o->socket) != 0))
		return -1;
	/* the outputs' directories, once the inputs are known to be good */
	if (aif_ranks_check_opts(o) != 0)
		return -1;
	return aif_opts_make_dirs(o);
}

/* FNV-1a (64 bits) of n bytes, on from h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* h on over the regular file's bytes (what cannot be read: its error). */
static uint64_t
fnv_file(uint64_t h, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	uint8_t buf[65536];
	ssize_t got;
	int e = 0;

	if (fd < 0 || fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	while (e == 0 && (got = read(fd, buf, sizeof(buf))) != 0) {
		if (got > 0)
			h = fnv(h, buf, (size_t)got);
		else if (errno != EINTR)
			e = errno;
	}
	if (fd >= 0)
		close(fd);
	return e != 0 ? fnv(h, &e, sizeof(e)) : h;
}

uint64_t
aif_run_inputs_digest(const struct aif_run *r)
{
	const struct aif_opts *o = &r->o;
	uint64_t h = fnv(0xcbf29ce484222325ull, AIF_BUILD_ID, sizeof(AIF_BUILD_ID));

	h = fnv_file(h, o->config);

	if (o->jobs != NULL) {
		h = fnv_file(h, o->jobs);
		for (uint32_t i = 0; i < r->wl.n_jobs; i++) {
			const struct aif_workload_job *j = &r->wl.job[i];
			if (j->p.kind == AIF_JOB_POISSON)
				h = fnv_file(h, j->cdf_path);
			else if (j->p.kind == AIF_JOB_FLOW_FILE)
				h = fnv_file(h, j->file_path);
		}
	}
	struct {
		double duration_s, traffic_load, sample_us;
		uint64_t seed;
		uint32_t traffic_bytes, runners;
		uint8_t vtime, jobs, results, samples;
	} v;
	memset(&v, 0, sizeof(v)); /* (the padding too) */
	v.duration_s = o->duration_s;
	v.traffic_load = o->traffic_load;
	v.sample_us = o->sample_us;
	v.seed = o->seed;
	v.traffic_bytes = o->traffic_bytes;
	v.runners = o->runners;
	v.vtime = o->vtime;
	v.jobs = o->jobs != NULL;
	v.results = o->results != NULL;
	v.samples = o->samples != NULL;
	h = fnv(h, &v, sizeof(v));
	const char *const *lists[] = { o->link_ev, o->lb_ev, o->pcap_in, o->capture };
	const unsigned ns[] = { o->n_link_ev, o->n_lb_ev, o->n_pcap_in, o->n_capture };
	for (unsigned l = 0; l < RTE_DIM(lists); l++) {
		h = fnv(h, &ns[l], sizeof(ns[l]));
		for (unsigned i = 0; i < ns[l]; i++)
			h = fnv(h, lists[l][i], strlen(lists[l][i]) + 1);
	}
	return h;
}

/* The cores this process may run on (at most AIF_MAX_RUNNERS): those it
 * was given, not the one lcore EAL pins the main thread to. */
static unsigned
cores_available(void)
{
	unsigned n = aif_eal_cores_given();

	return n > AIF_MAX_RUNNERS ? AIF_MAX_RUNNERS : n;
}

/* Virtual time: the threads that run the runners (--threads, or a core
 * each), at most one a runner (nr: the runners, as many as there are). */
static unsigned
vt_threads(const struct aif_run *r, unsigned nr)
{
	return RTE_MIN(r->o.threads ? r->o.threads : cores_available(), nr);
}

/* The main lcore of a virtual-time run: 0; on several ranks, each its own
 * core of those it may run on (mpirun binds each to one, or to none). */
static unsigned
rank_lcore(void)
{
	cpu_set_t set;
	int k = aif_ranks_rank();

	if (!aif_ranks_on() || sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) < 1)
		return 0;
	k %= CPU_COUNT(&set);
	for (unsigned c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && k-- == 0)
			return c;
	return 0;
}

/* The mbuf pools' sizes: *n_mbufs mbufs of *room bytes, and in virtual
 * time *n_small small ones (pool_create). */
static void
pool_sizes(const struct aif_run *r, uint16_t n_shards, unsigned *n_mbufs_out,
	   uint16_t *room_out, unsigned *n_small_out)
{
	const struct aif_config *cfg = r->cfg;
	bool vtime = r->o.vtime;
	uint16_t max_mtu = 1500;
	unsigned n_mbufs = 1024, qos_mbufs = 0;

	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		for (uint16_t p = 0; p < sp->n_ports; p++) {
			max_mtu = RTE_MAX(max_mtu, sp->ports[p].mtu);
			if (!vtime && sp->ports[p].device[0] != '\0')
				n_mbufs += AIF_EAL_RX_DESC + AIF_EAL_TX_DESC + n_shards * 2 * AIF_BURST;
		}
		/* Packets held in the egress queues: as many as the shared buffer
		 * holds at 256 bytes each, up to 65536 a switch, 131072 a fabric. */
		const struct aif_qos_params *qp = &cfg->policies[sp->policy].qos;
		if (qp->enable)
			qos_mbufs += (unsigned)RTE_MIN(qp->buffer_bytes / 256, (uint64_t)65536);
	}
	/* every core's cache, and in virtual time on several runners every
	 * runner thread's (the partition is not made yet: at most this many) */
	unsigned vt_runners = vt_threads(r, r->o.runners ? r->o.runners : AIF_MAX_RUNNERS);
	unsigned caches = r->n_workers + 1 + (vtime && vt_runners > 1 ? vt_runners : 0);
	n_mbufs += RTE_MIN(qos_mbufs, 131072u) + caches * POOL_CACHE * 2;
	/* NIC drivers want at least the default 2 KiB of room; virtual time
	 * has no NIC, and its pool, touched whole at start-up, is a quarter
	 * smaller for it. */
	uint16_t room = RTE_ALIGN_CEIL(max_mtu + RTE_ETHER_HDR_LEN + 8 + RTE_PKTMBUF_HEADROOM,
				       RTE_CACHE_LINE_SIZE);
	if (!vtime)
		room = RTE_MAX(room, RTE_MBUF_DEFAULT_BUF_SIZE);
	/* Virtual time: small frames (the hosts' light data frames, ACKs,
	 * CNPs: most of those in flight) in a pool of small rooms as large as
	 * that count, whole frames in one a quarter of it (both get spares,
	 * so neither size changes a result: dataplane/mbuf.h) */
	unsigned n_small = vtime ? n_mbufs : 0, least = 1024 + caches * POOL_CACHE * 2;
	if (vtime)
		n_mbufs = RTE_MAX(n_mbufs / 4, least);
	*n_mbufs_out = n_mbufs;
	*room_out = room;
	*n_small_out = n_small;
}

/* The mbuf pool: the NICs' rings, the packets the egress queues may hold,
 * the caches; one frame of the largest MTU, tagged, in one mbuf. */
static struct rte_mempool *
pool_create(const struct aif_run *r, uint16_t n_shards, struct rte_mempool **small)
{
	bool vtime = r->o.vtime;
	unsigned n_mbufs, n_small;
	uint16_t room;

	pool_sizes(r, n_shards, &n_mbufs, &room, &n_small);
	struct rte_mempool *pool = rte_pktmbuf_pool_create("aif_pool", n_mbufs, POOL_CACHE, 0,
							   room, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "cannot create mbuf pool: %s\n", rte_strerror(rte_errno));
		return NULL;
	}
	if (!vtime)
		return pool;
	/* a pool that runs dry gets spares, so that no frame waits for the
	 * emulator's memory */
	*small = rte_pktmbuf_pool_create("aif_pool_small", n_small, POOL_CACHE, 0,
					 RTE_PKTMBUF_HEADROOM + AIF_MBUF_SMALL_DATA, rte_socket_id());
	if (*small == NULL)
		fprintf(stderr, "cannot create the small frames' mbuf pool: %s\n",
			rte_strerror(rte_errno));
	else if (aif_mbuf_spares_enable(pool) != 0 || aif_mbuf_spares_enable(*small) != 0)
		fprintf(stderr, "cannot give the mbuf pools spares\n");
	else {
		aif_mbuf_small_set(*small, pool);
		return pool;
	}
	aif_mbuf_spares_free(pool);
	rte_mempool_free(pool);
	if (*small != NULL) {
		aif_mbuf_spares_free(*small);
		rte_mempool_free(*small);
		*small = NULL;
	}
	return NULL;
}

/* --jobs in virtual time: the ports given --pcap-in stay pcap ports. */
static int
pcap_in_port(uint16_t s, uint16_t p, void *arg)
{
	const struct aif_run *r = arg;

	return aif_edges_input_of(&r->o, r->fab.sw[s]->name, r->fab.sw[s]->ports[p].name) != NULL;
}

/* The edge: virtual hosts and pcap ports (virtual time), or DPDK devices
 * and virtual hosts (real time). */
static int
edge_build(struct aif_run *r, uint16_t n_shards)
{
	const struct aif_config *cfg = r->cfg;
	struct aif_fabric *fab = &r->fab;
	char err[AIF_ERR_MAX];

	if (r->o.vtime) {
		if (aif_edges_check(&r->o, cfg, fab) != 0)
			return -1;
		if (r->o.jobs != NULL &&
		    (aif_workload_hosts(&r->wl, cfg, fab, pcap_in_port, r, r->pool, r->o.seed,
					err, sizeof(err)) != 0 ||
		     aif_workload_jobs(&r->wl, cfg, 0, err, sizeof(err)) != 0)) {
			fprintf(stderr, "--jobs %s: %s\n", r->o.jobs, err);
			return -1;
		}
		return aif_edges_bind(&r->o, cfg, fab, &r->edges, r->pool);
	}
	for (uint16_t s = 0; s < fab->n_sw; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		const struct aif_qos_params *qp = &cfg->policies[sp->policy].qos;
		for (uint16_t p = 0; p < sp->n_ports; p++) {
			if (aif_link_is_end(&fab->sw[s]->ports[p]) || sp->ports[p].device[0] == '\0')
				continue; /* a link end, or a virtual host's port */
			if (r->ctl.pinfo[s] == NULL &&
			    (r->ctl.pinfo[s] = calloc(AIF_MAX_PORTS, sizeof(*r->ctl.pinfo[s]))) == NULL)
				return -1;
			if (aif_eal_port_init(fab->sw[s], s, r->ctl.pinfo[s], p, &sp->ports[p], r->pool,
					      n_shards, qp->enable ? qp->pfc_enable : 0) != 0)
				return -1;
		}
	}
	if (r->o.jobs != NULL &&
	    aif_workload_hosts(&r->wl, cfg, fab, NULL, NULL, r->pool, r->o.seed, err,
			       sizeof(err)) != 0) {
		fprintf(stderr, "--jobs %s: %s\n", r->o.jobs, err);
		return -1;
	}
	return 0;
}

static void
tie_add(uint16_t a, uint16_t b, void *arg)
{
	struct { struct aif_partition_tie *t; unsigned n, cap; } *ties = arg;

	if (ties->n == ties->cap) {
		unsigned cap = ties->cap ? 2 * ties->cap : 64;
		struct aif_partition_tie *x = realloc(ties->t, cap * sizeof(*x));
		if (x == NULL)
			return; /* (reported by the caller: cap unchanged) */
		ties->t = x;
		ties->cap = cap;
	}
	ties->t[ties->n++] = (struct aif_partition_tie){ a, b };
}

/* Virtual time: the fabric split over --runners (partition.h), each
 * switch on one runner, added in the fabric's order, its shard seeded as
 * one runner seeds it (seed + its index): the same run for any split. */
static int
runners_build_vtime(struct aif_run *r)
{
	struct aif_fabric *fab = &r->fab;
	struct { struct aif_partition_tie *t; unsigned n, cap; } ties = { NULL, 0, 0 };
	/* by default as many runners as the fabric has parts (AIF_MAX_RUNNERS
	 * at most), on as many threads as there are cores: a thread runs its
	 * runners one after the other in each window, each keeping its
	 * switches' state in the cache through its share (dataplane/windows.h;
	 * a k=16 fat-tree's 64, switch by switch, beat its 16 pods on 2 cores) */
	unsigned want = r->o.runners ? r->o.runners : AIF_MAX_RUNNERS;
	uint64_t seed = r->o.seed;
	int d;

	/* (the ties also keep a runner's switches in one time order) */
	if (r->o.jobs != NULL)
		aif_workload_ties(&r->wl, tie_add, &ties);
	uint16_t *drive_of = calloc(fab->n_sw ? fab->n_sw : 1, sizeof(*drive_of));
	int rc = drive_of != NULL ? aif_partition_make(&r->part, r->cfg, want, ties.t, ties.n)
				  : -1;
	if (rc != 0) {
		fprintf(stderr, "runners: out of memory\n");
		free(ties.t);
		free(drive_of);
		return -1;
	}
	r->n_run = r->part.n_run;
	if (aif_ranks_check_parts(r->n_run, r->part.lookahead_ns) != 0)
		goto fail;
	/* several ranks: this one's parts (ranks.h) */
	r->n_mine = 0;
	for (unsigned i = 0; i < r->n_run; i++)
		if (aif_ranks_of_part(i) == aif_ranks_rank())
			r->mine[r->n_mine++] = (uint16_t)i;
	r->n_threads = vt_threads(r, r->n_mine);
	for (uint16_t s = 0; s < fab->n_sw; s++) {
		struct aif_switch *sw = fab->sw[s];
		unsigned i = r->part.runner_of[s];
		r->runner_of[s] = (uint16_t)i;
		if (r->runners[i] == NULL) {
			r->runners[i] = aif_runner_create(sw, 0, seed + s);
			d = r->runners[i] != NULL ? 0 : -1;
		} else {
			d = aif_runner_add_switch(r->runners[i], sw, 0, seed + s);
		}
		if (d < 0) {
			fprintf(stderr, "cannot add switch %s to runner %u\n", sw->name, i);
			goto fail;
		}
		drive_of[s] = (uint16_t)d;
		for (uint16_t p = 0; p < sw->n_ports; p++)
			if (sw->ports[p].base != &aif_port_detached_ops &&
			    aif_runner_add_rxq_of(r->runners[i], (uint16_t)d, p, 0) != 0) {
				fprintf(stderr, "runner %u: too many RX queues\n", i);
				goto fail;
			}
	}
	for (unsigned k = 0; k < ties.n; k++) {
		uint16_t a = ties.t[k].a, b = ties.t[k].b;
		if (a < fab->n_sw && b < fab->n_sw && r->runner_of[a] == r->runner_of[b])
			aif_runner_tie(r->runners[r->runner_of[a]], drive_of[a], drive_of[b]);
	}
	free(ties.t);
	free(drive_of);
	for (unsigned k = 0; k < r->n_mine; k++)
		r->mine_run[k] = r->runners[r->mine[k]];
	return 0;
fail:
	free(ties.t);
	free(drive_of);
	return -1;
}

/* Switches a and b in one group (arg: the union-find, dataplane/groups.h). */
static void
tie_join(uint16_t a, uint16_t b, void *arg)
{
	aif_groups_join(arg, a, b);
}

/* Real time: the groups of switches one runner drives together, numbered
 * in the order of their first switch: every switch alone but those whose
 * virtual hosts hand each other work without a packet (a multi-plane
 * host's ports, control/workload.h), whose jobs' callbacks run on the
 * runner of the hosts they touch.  How many groups. */
static uint16_t
groups_real(struct aif_run *r, uint16_t *group_of)
{
	uint16_t up[AIF_MAX_SWITCHES];

	for (uint16_t s = 0; s < r->fab.n_sw; s++)
		up[s] = s;
	if (r->o.jobs != NULL)
		aif_workload_plane_ties(&r->wl, r->cfg, tie_join, up);
	return aif_groups_number(up, r->fab.n_sw, group_of);
}

/* Runners: which drives what (runner_of), and their RX queues.  One switch
 * in real time: every runner drives a shard of it (RSS).  A fabric: each
 * switch has one shard, on one runner: in real time the groups above in
 * turn over the worker lcores (a fabric without ties: switch s on runner
 * s mod the runners), virtual hosts and their jobs' callbacks run by the
 * runner of their switch. */
static int
runners_build(struct aif_run *r)
{
	struct aif_fabric *fab = &r->fab;
	bool single = r->single;
	uint64_t seed = r->o.seed;
	uint16_t group_of[AIF_MAX_SWITCHES];

	if (r->o.vtime)
		return runners_build_vtime(r);
	r->lookahead_ns = AIF_TIME_NS_NEVER; /* (one switch: no link) */
	if (single) {
		r->n_run = r->n_workers;
		for (unsigned i = 0; i < r->n_run; i++) {
			r->runners[i] = aif_runner_create(fab->sw[0], (uint16_t)i, seed + i);
			if (r->runners[i] == NULL) {
				fprintf(stderr, "cannot create runner %u\n", i);
				return -1;
			}
			aif_runner_set_clock(r->runners[i], &r->ctl.clock);
		}
		for (uint16_t p = 0; p < fab->sw[0]->n_ports; p++)
			for (unsigned w = 0; w < r->n_run; w++)
				if (w < fab->sw[0]->ports[p].n_rxq)
					aif_runner_add_rxq(r->runners[w], p, (uint16_t)w);
		return 0;
	}
	r->n_run = RTE_MIN(r->n_workers, (unsigned)groups_real(r, group_of));
	for (uint16_t s = 0; s < fab->n_sw; s++)
		r->runner_of[s] = (uint16_t)(group_of[s] % r->n_run);
	r->lookahead_ns = aif_partition_lookahead(r->cfg, r->runner_of, NULL);
	if (r->n_run > 1 && r->lookahead_ns == 0 && r->o.jobs != NULL) {
		/* nothing to hold the runners together by (run_real.c) */
		printf("--jobs: one runner drives every switch and virtual host: a link between "
		       "runners would have no delay\n");
		r->n_run = 1;
		memset(r->runner_of, 0, sizeof(r->runner_of));
		r->lookahead_ns = AIF_TIME_NS_NEVER;
	}
	for (uint16_t s = 0; s < fab->n_sw; s++) {
		struct aif_switch *sw = fab->sw[s];
		unsigned i = r->runner_of[s];
		int d;
		if (r->runners[i] == NULL) {
			r->runners[i] = aif_runner_create(sw, 0, seed + s);
			d = r->runners[i] != NULL ? 0 : -1;
			if (d == 0) /* real time: control's clock, one time base for all */
				aif_runner_set_clock(r->runners[i], &r->ctl.clock);
		} else {
			d = aif_runner_add_switch(r->runners[i], sw, 0, seed + s);
		}
		if (d < 0) {
			fprintf(stderr, "cannot add switch %s to runner %u\n", sw->name, i);
			return -1;
		}
		for (uint16_t p = 0; p < sw->n_ports; p++)
			if (sw->ports[p].base != &aif_port_detached_ops &&
			    aif_runner_add_rxq_of(r->runners[i], (uint16_t)d, p, 0) != 0) {
				fprintf(stderr, "runner %u: too many RX queues\n", i);
				return -1;
			}
	}
	return 0;
}

/*
 * The DPDK memory a virtual-time run will take, about, in MiB: the links'
 * rings (aif_link_mem_bytes: 25 KiB a 100 Gb/s 1 us link, 2.1 GiB of a
 * k=56 fat-tree), the switches (their tables, QoS state and shard, 0.13 to
 * 0.15 MiB each measured: 0.25 counted), the mbuf pools, and room for EAL.
 * What picks hugepages or 4 KiB pages for the default EAL arguments
 * (eal_ports.h).
 */
static unsigned
dpdk_need_mb(const struct aif_run *r)
{
	const struct aif_config *cfg = r->cfg;
	unsigned n_mbufs, n_small;
	uint16_t room;
	uint64_t b = 64ull << 20;

	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_link_params lp = aif_fabric_link_params(cfg, k, 0);
		b += aif_link_mem_bytes(&lp) + 2 * RTE_CACHE_LINE_SIZE;
	}
	b += (uint64_t)cfg->n_switches * (256u << 10);
	pool_sizes(r, 1, &n_mbufs, &room, &n_small);
	b += (uint64_t)n_mbufs * (sizeof(struct rte_mbuf) + room + 2 * RTE_CACHE_LINE_SIZE);
	b += (uint64_t)n_small * (sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM +
				  AIF_MBUF_SMALL_DATA + 2 * RTE_CACHE_LINE_SIZE);
	return (unsigned)RTE_MIN((b + (1u << 20) - 1) >> 20, (uint64_t)UINT_MAX);
}

/* What fabric building said (err), and when DPDK's memory ran out, what
 * to give it. */
static void
build_failed(const struct aif_run *r, const char *err)
{
	fprintf(stderr, "config %s: %s\n", r->o.config, err);
	if (strstr(err, "out of memory") == NULL)
		return;
	unsigned need = dpdk_need_mb(r);
	if (rte_eal_has_hugepages())
		fprintf(stderr, "  DPDK's memory ran out: this fabric takes about %u MiB of it, "
			"more than EAL's 2 MiB hugepages hold: free more (%ld MiB free now), or "
			"run it on 4 KiB pages (EAL --no-huge -m %u)\n", need,
			aif_eal_free_hugepages_mb(), aif_eal_no_huge_mb(need));
	else
		fprintf(stderr, "  DPDK's memory ran out: this fabric takes about %u MiB of it, "
			"more than EAL's -m gives (--no-huge -m %u)\n", need,
			aif_eal_no_huge_mb(need));
}

int
aif_run_build(struct aif_run *r, int argc, char **argv)
{
	const struct aif_opts *o = &r->o;
	struct aif_ctl *ctl = &r->ctl;
	char err[AIF_ERR_MAX];

	if (aif_eal_start(argc, argv, o->vtime, rank_lcore(), o->vtime ? dpdk_need_mb(r) : 0,
			  (unsigned)aif_ranks_local(), &r->eal_argv) != 0)
		return -1;
	r->eal_up = true;
	aif_roce_init();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (!o->vtime)
		rte_pdump_init();
	r->n_workers = rte_lcore_count() - 1;
	if (!o->vtime && (r->n_workers == 0 || r->n_workers > AIF_MAX_SHARDS)) {
		fprintf(stderr, "need 1..%u worker lcores besides the main one (e.g. EAL -l 0-1)\n",
			AIF_MAX_SHARDS);
		return -1;
	}
	r->single = r->cfg->n_switches == 1 && !o->vtime && o->jobs == NULL;
	uint16_t n_shards = r->single ? (uint16_t)r->n_workers : 1;
	r->pool = pool_create(r, n_shards, &r->small_pool);
	if (r->pool == NULL)
		return -1;
	if (aif_fabric_build(&r->fab, r->cfg, r->pool, n_shards, o->seed, err, sizeof(err)) != 0) {
		build_failed(r, err);
		return -1;
	}
	r->built = true;
	for (uint16_t s = 0; s < r->fab.n_sw; s++)
		aif_ctl_add_switch(ctl, r->fab.sw[s]);
	ctl->links = r->fab.link;
	ctl->n_links = r->fab.n_links;
	if (o->vtime)
		aif_clock_init_virtual(&ctl->clock, 0);
	else
		aif_clock_init_real(&ctl->clock);
	ctl->start_ns = aif_clock_now(&ctl->clock);
	ctl->capture_dir = o->capture_dir;
	ctl->config_dir = o->config_dir;
	if (edge_build(r, n_shards) != 0)
		return -1;
	/* Applied as a load is (control owns a reference from here); the
	 * operator's config names program objects by path, a client's only by
	 * name in --config-dir */
	ctl->lb.objects_by_path = true;
	int n = aif_ctl_apply_config(ctl, aif_config_ref(r->cfg), err, sizeof(err));
	ctl->lb.objects_by_path = false;
	if (n != 0) {
		build_failed(r, err);
		return -1;
	}
	ctl->loads_ok++;
	if (runners_build(r) != 0)
		return -1;
	ctl->n_runners = r->n_run;
	if (r->single)
		aif_report_ports(ctl);
	else
		aif_report_fabric(ctl, r->cfg, r->runner_of, r->n_run, o->vtime);
	if (o->vtime && (r->n_run > 1 || r->part.why_one != NULL))
		aif_partition_print(&r->part, r->cfg, stdout);
	return 0;
}

/* Every capture stopped, and what it wrote said. */
static void
captures_stop(const struct aif_run *r)
{
	char err[AIF_ERR_MAX];
	bool named = !r->single;

	for (uint16_t s = 0; s < r->fab.n_sw; s++)
		for (uint16_t p = 0; p < r->fab.sw[s]->n_ports; p++) {
			struct aif_switch *sw = r->fab.sw[s];
			struct aif_capture_info ci;
			if (!aif_capture_get(sw, p, NULL) ||
			    aif_capture_stop(sw, p, &ci, err, sizeof(err)) != 0)
				continue;
			printf("  capture %s%s%s: %" PRIu64 " packets written to %s, %" PRIu64
			       " skipped%s%s%s%s\n", named ? sw->name : "", named ? ":" : "",
			       sw->ports[p].name, ci.written, ci.path, ci.skipped,
			       ci.limit ? ", stopped at " : "", ci.limit ? ci.limit : "",
			       ci.write_errno ? ", write error: " : "",
			       ci.write_errno ? strerror(ci.write_errno) : "");
		}
}

static json_int_t
jint(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/*
 * The end, both modes: captures closed, every peer still paused released
 * (XON; the runners are done, so their TX queues are free), the counters
 * (a switch's, or a fabric's with its links, edge ports and the run's
 * figures), the jobs' results, the stats file.
 */
int
aif_run_report(struct aif_run *r)
{
	const struct aif_opts *o = &r->o;
	struct aif_ctl *ctl = &r->ctl;
	aif_time_ns end = o->vtime ? r->end_ns : aif_ctl_now(ctl);
	struct aif_egress_stop_info stop = { 0 };
	json_t *fj = NULL;
	int rc = 0;

	captures_stop(r);
	for (uint16_t s = 0; s < r->fab.n_sw; s++) {
		struct aif_switch *sw = r->fab.sw[s];
		unsigned before = stop.discarded;
		if (sw->qos != NULL)
			aif_egress_shutdown(sw, sw->shards[0], sw->qos, end, &stop);
		if (o->vtime && stop.discarded > before)
			printf("  %s: %u packets still queued at the end were discarded\n",
			       sw->name, stop.discarded - before);
	}
	if (r->single) {
		json_t *c = aif_ctl_counters_json(r->fab.sw[0]);
		aif_summary_print_switch(stdout, c, r->elapsed_s);
		json_decref(c);
	} else {
		struct aif_summary_run sr = { .elapsed_s = r->elapsed_s, .stats_path = o->stats };
		fj = aif_report_fabric_json(ctl, end, o->stats != NULL);
		if (o->vtime) {
			json_object_set_new(fj, "edge_ports", aif_edges_json(&r->edges));
			json_object_set_new(fj, "virtual_ns", json_integer((json_int_t)end));
			json_object_set_new(fj, "events", json_integer((json_int_t)r->events));
			json_object_set_new(fj, "packet_hops", json_integer((json_int_t)r->packets));
			if (r->vt_runners != NULL) {
				json_object_set_new(fj, "runners", r->vt_runners);
				r->vt_runners = NULL;
			}
			sr.virtual_ns = end;
			sr.packet_hops = r->packets;
			sr.pcap_out = o->pcap_out;
		} else {
			json_t *sw, *p;
			size_t i, j;
			json_array_foreach(json_object_get(fj, "switches"), i, sw)
				json_array_foreach(json_object_get(sw, "ports"), j, p)
					sr.packet_hops += (uint64_t)jint(p, "rx_packets");
			sr.virtual_ns = AIF_TIME_NS_NEVER;
		}
		aif_summary_print_fabric(stdout, fj, &sr);
		json_object_set_new(fj, "elapsed_s", json_real(r->elapsed_s));
		if (!o->vtime) {
			json_object_set_new(fj, "packet_hops", json_integer((json_int_t)sr.packet_hops));
			json_object_set_new(fj, "workers", json_integer(r->n_run));
			if (ctl->behind_ns != NULL)
				json_object_set_new(fj, "pace", aif_report_pace_json(
					r->runners, r->n_run, r->quantum_ns, r->behind_ns));
		}
		if (o->jobs != NULL &&
		    aif_report_workload(&r->wl, ctl, r->cfg, o->results, fj) != 0)
			rc = -1;
		/* the peak once the results are written: writing a million flows'
		 * may take more than the run did */
		long peak_kb = aif_report_peak_rss_kb();
		json_object_set_new(fj, "peak_rss_kb", json_integer(peak_kb));
		if (o->vtime)
			printf("  peak resident memory %.1f MiB\n", (double)peak_kb / 1024);
	}
	if (ctl->behind_ns != NULL)
		aif_report_pace(r->runners, r->n_run, r->quantum_ns, r->behind_ns, r->elapsed_s);
	if (!o->vtime && stop.discarded)
		printf("  %u packets still in the egress queues at stop were discarded\n",
		       stop.discarded);
	if (stop.xon_frames || stop.xon_unsent)
		printf("  PFC XON at stop: %u frame(s) released %u paused priorit%s;"
		       " %u could not be sent (no mbuf, or the port refused it)\n",
		       stop.xon_frames, stop.xon_prios, stop.xon_prios == 1 ? "y" : "ies",
		       stop.xon_unsent);
	if (rc == 0 && o->stats != NULL &&
	    (r->single ? aif_report_write_stats(o->stats, r->fab.sw[0], r->elapsed_s)
		       : aif_report_write_json(o->stats, fj)) != 0)
		rc = -1;
	json_decref(fj);
	return rc;
}

int
aif_run_end(struct aif_run *r, int rc)
{
	struct aif_ctl *ctl = &r->ctl;
	int ret = rc == 0 ? 0 : 1;

	/* Every exit, start-up failures included: ports closed before the
	 * switches (their queues return their mbufs) and the pool are freed. */
	if (rc > 0) /* --help */
		ret = 0;
	aif_ctl_server_destroy(r->srv);
	if (r->eal_up)
		aif_eal_ports_close(ctl, r->pool, r->pool_ports, &r->n_pool_ports);
	if (aif_edges_close(&r->edges) != 0 && ret == 0)
		ret = 1;
	for (unsigned i = 0; i < AIF_MAX_RUNNERS; i++)
		aif_runner_free(r->runners[i]);
	for (uint16_t s = 0; s < r->fab.n_sw; s++)
		aif_capture_free(r->fab.sw[s]);
	struct aif_lb_env lbv = aif_ctl_lb_env(ctl);
	aif_lb_progs_free(&ctl->lb, &lbv); /* (its states are per switch shard) */
	aif_bfd_sessions_free(ctl->bfd);
	ctl->bfd = NULL;
	if (r->built) /* (the process ends after this) */
		aif_fabric_free_at_exit(&r->fab);
	aif_workload_free(&r->wl); /* the hosts, after the ports that were theirs */
	for (uint16_t s = 0; s < AIF_MAX_SWITCHES; s++)
		free(ctl->pinfo[s]);
	aif_config_free(ctl->cfg);
	if (r->pool != NULL) {
		struct aif_mbuf_spares_info mi, ms = { 0 };
		aif_mbuf_spares_settle(r->pool); /* (the one being made ahead) */
		aif_mbuf_spares_info(r->pool, &mi);
		if (r->small_pool != NULL) {
			aif_mbuf_spares_settle(r->small_pool);
			aif_mbuf_spares_info(r->small_pool, &ms);
		}
		unsigned in_use = mi.in_use + ms.in_use;
		char msg[768];
		if (r->ran && mi.pools > 0)
			printf("mbufs: the pool of %u ran dry: %u spare pool%s made, %u mbufs "
			       "in all\n", r->pool->size, mi.pools, mi.pools == 1 ? "" : "s",
			       mi.size);
		if (r->ran && ms.pools > 0)
			printf("mbufs: the small frames' pool of %u ran dry: %u spare pool%s made, "
			       "%u mbufs in all\n", r->small_pool->size, ms.pools,
			       ms.pools == 1 ? "" : "s", ms.size);
		if (r->ran && mi.failed + ms.failed > 0)
			printf("mbufs: no memory for another spare pool: %" PRIu64 " frames "
			       "waited for an mbuf (hosts) or were not made; the results "
			       "depend on the memory%s\n", mi.failed + ms.failed,
			       r->n_run > 1 ? ", and on several runners on their threads' timing"
					    : "");
		if (r->ran) {
			if (aif_pool_check(in_use, mi.size + ms.size, r->pool_ports, r->n_pool_ports,
					   msg, sizeof(msg)) == 0)
				in_use = 0; /* every one back, or kept by a driver */
			printf("%s\n", msg);
		} else if (in_use) /* e.g. net_pcap keeps a frame it refused */
			printf("mbufs: %u of %u still held by a driver after its port "
			       "was closed\n", in_use, mi.size + ms.size);
		if (in_use && ret == 0)
			ret = 1;
		aif_mbuf_small_set(NULL, NULL);
		aif_mbuf_spares_free(r->pool);
		rte_mempool_free(r->pool);
		if (r->small_pool != NULL) {
			aif_mbuf_spares_free(r->small_pool);
			rte_mempool_free(r->small_pool);
		}
	}
	aif_config_free(r->cfg);
	json_decref(r->vt_runners);
	free(r->eal_argv);
	if (r->eal_up)
		rte_eal_cleanup();
	return ret;
}
