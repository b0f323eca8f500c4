/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run of the daemon, in the order main() takes it:
 *
 *	aif_run_prepare   options, the config (read and parsed once), the jobs,
 *	                  the control socket free, the outputs' directories:
 *	                  before EAL, so that nothing wrong starts a device
 *	aif_run_build     EAL, the mbuf pool, the fabric, its ports (DPDK
 *	                  devices in real time, pcap files in virtual time),
 *	                  the virtual hosts, the config applied, the runners
 *	aif_run_real      real time: the runners on their cores, each in its
 *	                  own loop, control's loop on the main one (run_real.c)
 *	aif_run_virtual   virtual time: one loop over control and the runner,
 *	                  as fast as the CPU allows, or runners that each drive
 *	                  a part of the fabric, window by window (run_sim.c)
 *	aif_run_report    the end: captures closed, paused peers released,
 *	                  the counters, the jobs' results, the stats file
 *	aif_run_end       everything freed, ports closed before the pool
 *	                  (the switches' neighbour slots left to the
 *	                  process's exit: aif_fabric_free_at_exit); the exit
 *	                  status
 *
 * Each returns 0, or -1 having said why (aif_run_prepare: 1 when --help
 * was all).  Both modes drive the same objects through the same event loop
 * (dataplane/evloop.h); they differ in the clock.
 */
#ifndef AIF_RUN_H
#define AIF_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "../dataplane/capacity.h"
#include "../dataplane/clock.h"
#include "../dataplane/egress.h"
#include "../dataplane/types.h"
#include "commands.h"
#include "config.h"
#include "edges.h"
#include "fabric.h"
#include "opts.h"
#include "partition.h"
#include "pool_check.h"
#include "workload.h"

struct aif_ctl_server;
struct aif_runner;
struct rte_mempool;

struct aif_run {
	struct aif_opts o;
	struct aif_config *cfg;         /* as parsed (the running one: ctl.cfg) */
	struct aif_ctl ctl;
	struct aif_fabric fab;
	struct aif_edges edges;         /* virtual time: the pcap edge ports */
	struct aif_workload wl;         /* --jobs: virtual hosts and their jobs */
	struct rte_mempool *pool;
	struct rte_mempool *small_pool; /* virtual time: small frames (dataplane/mbuf.h) */
	struct aif_ctl_server *srv;     /* real time: the control socket */
	char **eal_argv;                /* EAL's arguments when made here */
	unsigned n_workers;             /* lcores besides the main one */
	bool single;                    /* one switch, a shard on every runner (RSS) */
	unsigned n_run;                 /* runners; in virtual time, the parts */
	unsigned n_threads;             /* virtual time: the threads that run them */
	struct aif_runner *runners[AIF_MAX_RUNNERS];
	/* virtual time: the parts this process runs (all, but on several MPI
	 * ranks: ranks.h), their runners */
	unsigned n_mine;
	uint16_t mine[AIF_MAX_RUNNERS];
	struct aif_runner *mine_run[AIF_MAX_RUNNERS];
	uint16_t runner_of[AIF_MAX_SWITCHES];
	struct aif_partition part;      /* virtual time: the fabric over the runners */
	bool eal_up, built, ran;
	/* how it went */
	double elapsed_s;
	aif_time_ns end_ns;             /* virtual time: where it ended */
	uint64_t events, packets;       /* virtual time: events, packet-hops */
	json_t *vt_runners;             /* virtual time, several runners: their shares */
	aif_time_ns quantum_ns;         /* real time: the pacing quantum (NEVER: none) */
	aif_time_ns behind_ns;          /* real time, paced: the runners' lag */
	/* real time, paced, several runners: each one's emulated time, and
	 * the shortest delay of a link between two (NEVER: none) */
	struct aif_clock_peer peers[AIF_MAX_RUNNERS];
	aif_time_ns lookahead_ns;
	struct aif_pool_port pool_ports[RTE_MAX_ETHPORTS];
	unsigned n_pool_ports;
};

/* SIGINT, SIGTERM: the run stops (both loops look at it). */
extern volatile sig_atomic_t aif_run_stop;

int aif_run_prepare(struct aif_run *r, int argc, char **argv);
/* After aif_run_prepare: a digest of what shapes the run, for several
 * ranks to compare (ranks.h aif_ranks_agree): the commit the daemon was
 * built from (build_id.h), the bytes of the config, of the jobs file and
 * of the CDF and flow files it names (not their paths), and the options
 * that change the results (not where outputs go, nor the threads). */
uint64_t aif_run_inputs_digest(const struct aif_run *r);
int aif_run_build(struct aif_run *r, int argc, char **argv);
int aif_run_real(struct aif_run *r);
int aif_run_virtual(struct aif_run *r);
int aif_run_report(struct aif_run *r);
/* rc: the run's so far (0: good); returns the exit status.  The process
 * ends after it. */
int aif_run_end(struct aif_run *r, int rc);

#endif /* AIF_RUN_H */
