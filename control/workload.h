/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A workload file (--jobs FILE): virtual RoCE hosts on a fabric's free host
 * ports and the jobs they run, and what the run measured, written as files
 * and printed as a table.
 *
 * {
 *   "hosts": {                  optional; every field optional; defaults
 *                               are ConWeave's ns-3 (README, "Virtual hosts")
 *     "mtu": 1024,              payload bytes per packet, 64..8192, multiple of 4
 *     "verb": "write"|"send",   default "write"
 *     "receive": "go_back_n"|"out_of_order",   default "go_back_n"
 *     "host_link_delay_ns": N,  the hosts' cables (absent: the fabric's link delay)
 *     "cnp": "ack_flag"|"frame",   notification on the ACK/NAK (BECN), or CNPs
 *     "cnp_interval_ns": 0, "cnp_delay_ns": 0, "react_delay_ns": 0,
 *     "cnp_on_ooo": true,       go-back-N: notification on out-of-order arrival
 *     "dcqcn": true | false | {"preset": "conweave"|"hpcc_run"|"hpcc_default",
 *              "ewma_gain", "alpha_interval_ns", "decrease_interval_ns",
 *              "rp_timer_ns", "fast_recovery", "rate_ai_mbps", "rate_hai_mbps",
 *              "min_rate_mbps", "clamp_target", "rate_on_first_cnp"},
 *     "dcqcn_preset": "conweave",  (the same as "dcqcn": {"preset": ...})
 *     "ack_every": 1, "ack_delay_ns": 0, "nak_gap": 256,
 *     "nak_interval_ns": 4000,  go-back-N: NAK again for the same PSN after
 *     "nak_rewind_stale": true, go-back-N: a stale NAK goes back too
 *     "gbn_timer": "per_packet"|"progress", "rto_gbn_us": 4000,
 *     "rto_us": 500,            RTO_high: selective repeat's with more than
 *                               rto_low_packets in flight
 *     "rto_low_us": 100, "rto_low_packets": 3,   RTO_low and IRN's N
 *                               (raised for long paths and slow hosts, and by
 *                               the measured RTT: rhost.h)
 *     "icrc": true,             valid ICRCs out, checked in (false: zero, for speed)
 *     "light_frames": true,     data frames in flight without their payload
 *                               (dataplane/frame.h); false: whole in every mbuf
 *     "dscp": 26, "cnp_dscp": 48, "ack_dscp": 48,
 *     "identities": "ns3"       flow_file jobs: each QP sends from ns-3's UDP
 *                               source port for its flow (10000 + the n-th flow
 *                               its host sends); see below
 *   },
 *   "qlen_monitor": {           optional (results): HPCC's queue-length
 *     "interval_ns": 100,       histogram, sampled every interval_ns from
 *     "start_us": 0, "end_us": 0    start_us to end_us (0: the end of the run);
 *   } | false,                  false: none.  On by default with --results
 *   "pfc_log": true,            pfc.txt with --results (default true)
 *   "jobs": [                   1..AIF_JOBS_MAX
 *     {
 *       "name": "allreduce",    1..31 characters
 *       "kind": "allreduce_ring"|"allreduce_hd"|"allgather"|"reduce_scatter"|
 *               "alltoall"|"incast"|"permutation"|"poisson",
 *       "hosts": "all" | ["leaf0-0", ...],   rank i on the i-th (incast: the
 *                               first receives); "all": every virtual host
 *       "bytes": 4194304,       collectives: size per rank (NCCL's); incast,
 *                               permutation: per flow
 *       "iterations": 1, "chunks": 1,   bytes, iterations, chunks, seed:
 *                               whole numbers
 *       "start_us": 0, "compute_us": 0,
 *       "straggler": {"host": "leaf1-0", "us": 50},
 *       "load": 0.25, "cdf": "workloads/AliStorage2019.txt", "stop_us": 1000,
 *                               poisson: offered load per host, the size CDF
 *                               (relative to the workload file; a regular
 *                               file of at most 1 MiB, "size percent" lines,
 *                               sizes whole bytes, finite, averaging at
 *                               least 1 byte), arrivals until
 *       "seed": 1,
 *       "ideal": "base"|"ns3"   flows' standalone FCT (jobs.h), default "base"
 *     },
 *     {
 *       "name": "trace", "kind": "flow_file",
 *       "file": "flows.txt",    relative to the workload file
 *       "format": "conweave"|"hpcc",   (flowfile.h)
 *       "hosts": "all" | [...], host id i is the i-th (default: the fabric's
 *                               hosts in order, leaf by leaf)
 *       "absolute": false,      start times as the file says (default: from
 *                               the earliest flow's, which starts at start_us)
 *       "ideal": "ns3"|"base"   the standalone FCT of fct.txt: ns-3's
 *                               formula (default) or aifabric's base RTT +
 *                               wire bytes
 *     }
 *   ]
 * }
 *
 * A flow_file job runs exactly the file's flows, one QP each, and names
 * them in fct.txt as ns-3 does: ConWeave's format with decimal host ids,
 * HPCC's with ns-3's hex IPs (0x0b000001 + (id / 256 << 16) + (id % 256 <<
 * 8)); sport 10000 + the n-th flow its source sends and dport 100 + the
 * m-th flow its destination receives (HPCC: the file's dport), counted in
 * file order; start times as the file's (the earliest flow's time added
 * back), so that its lines can be joined with ns-3's.  On the wire the
 * hosts keep the fabric's addresses (a generated fabric gives leaf L's
 * host j 10.L.j.2) and RoCEv2's UDP port 4791; with "identities": "ns3"
 * the UDP source port is ns-3's.
 *
 * Results (aif_workload_write, into a directory): jobs.csv (per iteration:
 * JCT, ideal, algbw, busbw), fct.txt (HPCC's format: source and destination
 * IP in hex, ports, bytes, start ns, FCT ns, standalone FCT ns; a flow
 * file's flows as above), pfc.txt and qlen.txt (monitors.h), qps.csv
 * (per QP: packets, retransmissions, NAKs, timeouts, CNPs, out-of-order and
 * duplicate arrivals), summary.json (all of it and the fabric's pauses,
 * drops, CE marks and path imbalance).
 */
#ifndef AIF_WORKLOAD_H
#define AIF_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../hosts/flowfile.h"
#include "../hosts/jobs.h"
#include "../hosts/rhost.h"
#include "commands.h"
#include "config.h"
#include "fabric.h"
#include "monitors.h"
#include "vhosts.h"

struct rte_mempool;

struct aif_workload_job {
	struct aif_job_params p;
	char **host_names;        /* NULL: "all" */
	uint32_t n_host_names;
	char *straggler_host;
	char cdf_path[512];
	struct aif_cdf cdf;
	/* flow_file */
	char file_path[512];
	struct aif_flowfile ff;
	bool absolute;
	bool ideal_ns3;
};

struct aif_workload {
	struct aif_rhost_params host;   /* the template */
	uint32_t n_jobs;
	struct aif_workload_job job[AIF_JOBS_MAX];
	bool ns3_sport;                 /* hosts.identities "ns3" */
	struct aif_monitor_params mon_params; /* pfc.txt, qlen.txt */
	aif_time_ns time_offset_ns;     /* results' times: virtual + this (a flow
					 * file's earliest start) */
	/* once started */
	struct aif_vhosts v;            /* one per host port: v.n = ranks x planes */
	uint32_t planes;                /* of a multi-plane fabric (1: one plane) */
	uint32_t n_hosts;               /* hosts as jobs name them (those of plane 0) */
	struct aif_jobs *js;
	bool started;
	struct aif_monitors *mon;       /* NULL: none */
	aif_time_ns end_ns;             /* the run's end (virtual): qlen.txt's last dump */
};

/* Read and check a workload file; 0, or -1 with err ("FILE: $.jobs[1].kind: why"). */
int aif_workload_load(struct aif_workload *w, const char *path, char *err, size_t err_len);
/* Hosts on cfg's free host ports (skip keeps a port for something else);
 * 0 or -1 with err.  Before the runners are set up. */
int aif_workload_hosts(struct aif_workload *w, const struct aif_config *cfg,
		       struct aif_fabric *f, int (*skip)(uint16_t sw, uint16_t port, void *arg),
		       void *skip_arg, struct rte_mempool *pool, uint64_t seed, char *err,
		       size_t err_len);
/* The jobs on them, their times counted from t0_ns (real time: when the
 * runners start, so that nothing is due before they run); 0 or -1. */
int aif_workload_jobs(struct aif_workload *w, const struct aif_config *cfg, aif_time_ns t0_ns,
		      char *err, size_t err_len);
/* pfc.txt and qlen.txt's monitors (as the workload file asks) on ctl's
 * switches and the hosts: virtual time, with --results, after the jobs
 * are made and the config applied; 0 or -1 (out of memory). */
int aif_workload_monitors(struct aif_workload *w, const struct aif_ctl *ctl);
/* Switches whose hosts hand each other work without a packet (a rank's
 * ports on every plane): tie(sw_a, sw_b, arg) for each such pair, so that
 * one runner drives both (control/partition.h).  After aif_workload_jobs. */
void aif_workload_ties(const struct aif_workload *w,
		       void (*tie)(uint16_t sw_a, uint16_t sw_b, void *arg), void *arg);
/* The same before the jobs are made (real time makes them as the runners
 * start): every host's ports on every plane tied, whichever jobs use them
 * (what aif_workload_ties ties, and more).  After aif_workload_hosts. */
void aif_workload_plane_ties(const struct aif_workload *w, const struct aif_config *cfg,
			     void (*tie)(uint16_t sw_a, uint16_t sw_b, void *arg), void *arg);
/* Every job done and every host idle (for the virtual-time loop). */
int aif_workload_idle(void *w);
/* Jobs unfinished and no host with anything left to do: waiting forever. */
int aif_workload_stuck(const struct aif_workload *w);
/* The results as JSON (caller owns it), and as a table on stdout. */
json_t *aif_workload_json(const struct aif_workload *w, const struct aif_ctl *ctl,
			  const struct aif_config *cfg);
void aif_workload_print(const json_t *summary);
/* jobs.csv, fct.txt, qps.csv, summary.json (and pfc.txt, qlen.txt when
 * monitored) into dir (made if missing); 0 or -1. */
int aif_workload_write(const struct aif_workload *w, const struct aif_config *cfg,
		       const json_t *summary, const char *dir, char *err, size_t err_len);
/* After the switches are freed. */
void aif_workload_free(struct aif_workload *w);

#endif /* AIF_WORKLOAD_H */
