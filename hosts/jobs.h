/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workloads on virtual RoCE hosts (rhost.h): collectives, incast,
 * permutation and Poisson flows, several jobs at once, and what they
 * measure (job completion time per iteration and its ideal, algorithm and
 * bus bandwidth as NCCL's tests report them, flow completion times).
 *
 * A job has n_ranks ranks, rank i on host hosts[i] (jobs may share hosts).
 * Multi-plane (planes P > 1): a rank is a host with one NIC port per plane
 * (hosts[i * P + k] on plane k); each pair of ranks has a QP per plane and
 * every message is split evenly over the planes (a ring's chunk j of a step
 * forwarded on the plane it came by; Poisson flows take the planes in
 * turn); ideals count the P ports' rate together.
 * Every rank runs on its own: it starts an iteration, sends what the
 * algorithm says as its data arrives, and finishes the iteration when
 * every message it expects has arrived and everything it sent is
 * acknowledged; after compute_ns (plus straggler_ns for the straggler
 * rank) it starts the next.  Nothing waits for another host except
 * through packets, so a run depends only on the fabric, the parameters and
 * the seeds.  An iteration's JCT is the last rank's finish minus the first
 * rank's start.
 *
 *   allreduce_ring     2(N-1) steps of size/N to the next rank, each in
 *                      `chunks` messages, chunk j of a step sent when chunk j
 *                      of the step before arrived (NCCL's ring)
 *   allreduce_hd       recursive halving then doubling (N a power of two):
 *                      2 log2 N steps with the partner rank^distance
 *   allgather, reduce_scatter   N-1 ring steps of size/N
 *   alltoall           size/N to every other rank at once (the MoE pattern)
 *   incast             ranks 1..N-1 send size each to rank 0
 *   permutation        rank i sends size to a random other rank, each rank
 *                      receiving from one (seeded)
 *   poisson            from every rank, flows with sizes from a CDF and
 *                      exponential gaps for `load` x the host rate, each to
 *                      a uniformly random other rank, one QP per flow, until
 *                      stop_ns (seeded; one iteration)
 *   flow_file          the flows given (a simulator's flow file, read by
 *                      hosts/flowfile.h): each from rank src to rank dst at
 *                      start_ns + its start, one QP per flow; a rank's flows
 *                      that start at the same time start in the order given
 *                      (one iteration, one plane)
 *
 * Ideal JCT: a lower bound on one iteration (no run finishes it sooner),
 * the largest of these, per plane (its ports carry 1/P of every message)
 * and with the base paths of aif_jobs_set_path (data: a full-MTU frame's
 * one way, first bit out to last bit in; ack: an ACK's way back; the NIC's
 * ACK delay between them):
 *   - every rank's send wire: the wire bytes it sends (data frames with
 *     headers, RETH and overhead, and at least one ACK per ack_every
 *     packets it receives) x 8 / rate, then an ACK's way from its wire;
 *   - every rank's receive wire: from the earliest a first packet (or an
 *     ACK of its own first) can come in, the wire bytes it receives x 8 /
 *     rate, then the ACK of the last data packet if it only receives data;
 *   - every chain of messages that wait for one another, one path latency
 *     per message in it, not per step: a message's first packet's way, the
 *     rest of it through the receiver's wire, the next message leaving when
 *     it is in; then the last ACK.  Ring kinds: the last chunk's chain (the
 *     chunks ahead of it on the first rank's wire, then a hop per step
 *     along the ring), halving-doubling: each rank's chain of partners,
 *     others: every message alone.
 * So JCT / ideal is at least 1; where chunks pipeline, the latencies hide
 * behind the bandwidth term and the ideal is that and one path's latency.
 * algbw = size / JCT; busbw = algbw x 2(N-1)/N (allreduce),
 * x (N-1)/N (allgather, reduce_scatter, alltoall), x 1 otherwise.  Flows
 * (incast, permutation, poisson) are recorded with their FCT (post to the
 * last ACK, as HPCC's simulator counts it) and the standalone FCT, one of
 * (the job's `ideal`):
 *   AIF_JOB_IDEAL_BASE   the base RTT + wire bytes x 8 / rate (aifabric's
 *                        frames, RETH and overhead counted; the default of
 *                        these kinds)
 *   AIF_JOB_IDEAL_NS3    ns-3's (ConWeave's and HPCC's qp_finish): 2 x the
 *                        one-way propagation + one mtu payload's
 *                        serialization per link + (bytes + 48 per packet) x
 *                        8 / the slowest link's rate, in whole ns
 *                        (aif_jobs_ideal_ns3; for flows read from a flow
 *                        file, for the same slowdowns as ns-3's)
 * slowdown = max(1, FCT / standalone).  Neither is below every unloaded
 * FCT: the base ideal counts a full frame's way for a short flow, ns-3's a
 * full payload per link and 48 B of headers per packet (ns-3's own
 * unloaded flows come in under it too, hence the max with 1, as its
 * fctAnalysis.py).  The ideal JCT above is the lower bound.
 *
 * Threads: the callbacks of one rank's hosts (its ports on every plane)
 * run on one runner; the ranks of a job may be on several (virtual time on
 * several runners, dataplane/windows.h), and what they share (an
 * iteration's start and end, ranks finished, jobs done) is kept with
 * atomics whose results do not depend on order.  Results are read after
 * the runners stop, aif_jobs_all_done at any time.
 */
#ifndef AIF_JOBS_H
#define AIF_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../dataplane/types.h"
#include "rhost.h"

#define AIF_JOBS_MAX 64
#define AIF_JOB_MAX_RANKS 65536 /* every host a fabric may have (capacity.h) */

enum aif_job_kind {
	AIF_JOB_ALLREDUCE_RING,
	AIF_JOB_ALLREDUCE_HD,
	AIF_JOB_ALLGATHER,
	AIF_JOB_REDUCE_SCATTER,
	AIF_JOB_ALLTOALL,
	AIF_JOB_INCAST,
	AIF_JOB_PERMUTATION,
	AIF_JOB_POISSON,
	AIF_JOB_FLOW_FILE,
	AIF_JOB_N_KINDS
};

/* "allreduce_ring", ...; -1 if name is none of them. */
int aif_job_kind_parse(const char *name);
const char *aif_job_kind_name(enum aif_job_kind k);

/* A flow-size CDF: sizes (bytes) ascending with cumulative percent, as
 * HPCC's traffic_gen files ("size percent" per line, the first at 0, the
 * last at 100). */
#define AIF_CDF_MAX_POINTS 4096 /* HPCC's GoogleRPC2008 has 843 */
struct aif_cdf {
	uint32_t n;
	double size[AIF_CDF_MAX_POINTS];
	double pct[AIF_CDF_MAX_POINTS];
};
#define AIF_CDF_SIZE_MAX 1e12  /* bytes, as a job's "bytes" */
/* Parse one from len bytes of text (a file's, named name in errors): a
 * point a line ("size percent", blank lines and # comments between),
 * finite numbers, whole sizes, neither going down, the first at 0%, the
 * last at 100%, a mean of at least 1 byte; 0, or -1 with err (name:line
 * and why). */
int aif_cdf_parse(const char *text, size_t len, const char *name, struct aif_cdf *cdf,
		  char *err, size_t err_len);
/* Mean size; a size for u in [0, 1) (linear between points, as traffic_gen). */
double aif_cdf_mean(const struct aif_cdf *cdf);
double aif_cdf_sample(const struct aif_cdf *cdf, double u);

enum aif_job_ideal { AIF_JOB_IDEAL_BASE, AIF_JOB_IDEAL_NS3 };

/* A flow of a flow_file job. */
struct aif_job_flow {
	uint32_t src, dst;         /* ranks */
	uint64_t bytes;            /* >= 1 */
	aif_time_ns start_ns;      /* after the job's start */
	uint16_t sport, dport;     /* its identity in the results (0: the QP's UDP
				    * source port, 4791); with set_sport the QP
				    * sends from sport */
	aif_time_ns ideal_ns;      /* its standalone FCT; 0: the set's own (base
				    * RTT + wire bytes x 8 / rate) */
};

struct aif_job_params {
	char name[32];
	enum aif_job_kind kind;
	enum aif_job_ideal ideal;  /* flows' standalone FCT (above) */
	uint32_t n_ranks;
	uint32_t planes;           /* 0 or 1: one host per rank; P: multi-plane, rank
				    * r's plane k on hosts[r * P + k] */
	const uint32_t *hosts;     /* host index of each rank (and plane; copied) */
	uint64_t bytes;            /* collective size per rank; incast and
				    * permutation: per flow */
	uint32_t iterations;       /* >= 1 (poisson: 1) */
	uint32_t chunks;           /* ring steps in this many messages (>= 1) */
	aif_time_ns start_ns;
	aif_time_ns compute_ns;    /* between a rank's iterations */
	int32_t straggler;         /* a rank that computes longer, or -1 */
	aif_time_ns straggler_ns;  /* how much longer, per iteration */
	/* poisson */
	double load;               /* (0, 1]: offered per host, of the host rate */
	const struct aif_cdf *cdf; /* copied */
	aif_time_ns stop_ns;       /* no flow starts at or after */
	uint64_t seed;
	/* flow_file */
	const struct aif_job_flow *flows; /* n_flows of them, in order (copied) */
	uint32_t n_flows;
	bool set_sport;            /* QPs send from their flow's sport */
};

/* The base RTT between two hosts (for slowdowns). */
typedef aif_time_ns (*aif_jobs_rtt_fn)(uint32_t a, uint32_t b, void *arg);
/* Its parts, rounded down (for ideals): a full-MTU data frame from a (its
 * first bit leaving a's wire) to b (its last bit in), and an ACK's way back
 * from b's wire to a's (without the NIC's ACK delay). */
typedef void (*aif_jobs_path_fn)(uint32_t a, uint32_t b, aif_time_ns *data_ns,
				 aif_time_ns *ack_ns, void *arg);

/* A path as ns-3 counts it for its ideal FCT: the one-way propagation of
 * every link, host links included; the serialization of one mtu payload at
 * each link, summed (integer ns per link, as ns-3); the slowest link's
 * rate; the links. */
struct aif_jobs_ns3_path {
	aif_time_ns prop_ns;
	aif_time_ns tx_ns;
	uint64_t rate_bps;
	uint32_t hops;
};
typedef void (*aif_jobs_ns3_path_fn)(uint32_t a, uint32_t b, struct aif_jobs_ns3_path *p,
				     void *arg);
/* The ideal FCT of a flow of bytes on path p, as ConWeave's ns-3 computes
 * it (qp_finish): 2 x prop_ns + tx_ns + (bytes + hdr_bytes x packets of
 * payload_bytes) x 8e9 / rate_bps, truncated to ns; 0 bytes count as 1.
 * ns-3: payload_bytes 1000, hdr_bytes 48.  Across a 100 Gb/s leaf-spine
 * with 1 us links (4 links): 8,320 ns + (bytes + 48 n) x 0.08 ns. */
aif_time_ns aif_jobs_ideal_ns3(uint64_t bytes, uint32_t payload_bytes, uint32_t hdr_bytes,
			       const struct aif_jobs_ns3_path *p);
#define AIF_JOBS_NS3_HDR_BYTES 48

struct aif_job_iter {
	aif_time_ns start_ns, end_ns; /* end 0: not finished */
	aif_time_ns ideal_ns;
};

struct aif_flow {
	uint32_t job;
	uint32_t src, dst;         /* hosts */
	uint32_t qp;               /* on src */
	uint16_t sport;
	uint64_t bytes;
	aif_time_ns start_ns, end_ns; /* end 0: not finished */
	aif_time_ns standalone_ns;
	uint16_t dport;            /* as the results name it: 4791, or a flow
				    * file's identity */
};

struct aif_jobs;

/* A set of jobs over hosts[0..n_hosts) (each host's callback becomes the
 * set's), hosts of rate_bps; rtt gives base RTTs. */
struct aif_jobs *aif_jobs_create(struct aif_rhost **hosts, uint32_t n_hosts,
				 uint64_t rate_bps, aif_jobs_rtt_fn rtt, void *rtt_arg);
void aif_jobs_free(struct aif_jobs *js);
/* Base paths for the ideals (called with rtt_arg), before jobs are added;
 * without, ideals count no latency. */
void aif_jobs_set_path(struct aif_jobs *js, aif_jobs_path_fn path);
/* Paths for ns-3's ideal FCT (AIF_JOB_IDEAL_NS3; called with rtt_arg),
 * before jobs are added; without, such jobs are refused. */
void aif_jobs_set_ns3_path(struct aif_jobs *js, aif_jobs_ns3_path_fn path);
/* Add a job: its QPs are connected now, its first iteration set to start;
 * returns its index, or -1 with err (the parameter and why). */
int aif_jobs_add(struct aif_jobs *js, const struct aif_job_params *p, char *err,
		 size_t err_len);

uint32_t aif_jobs_n(const struct aif_jobs *js);
const struct aif_job_params *aif_jobs_params(const struct aif_jobs *js, uint32_t job);
/* Every iteration of every job finished. */
bool aif_jobs_done(const struct aif_jobs *js);
/* The same, safe to ask from another thread than the hosts' runner (real
 * time: the control thread); a job added later is not waited for. */
bool aif_jobs_all_done(const struct aif_jobs *js);
/* Iterations of a job (n_iter of them, finished or not). */
const struct aif_job_iter *aif_jobs_iters(const struct aif_jobs *js, uint32_t job,
					  uint32_t *n_iter);
/* algbw and busbw of an iteration, Gb/s (0 if unfinished). */
double aif_jobs_algbw_gbps(const struct aif_jobs *js, uint32_t job, const struct aif_job_iter *it);
double aif_jobs_busbw_gbps(const struct aif_jobs *js, uint32_t job, const struct aif_job_iter *it);
/* Flows of every job, in the order they were drawn (flow_file: given). */
const struct aif_flow *aif_jobs_flows(const struct aif_jobs *js, uint32_t *n_flows);
/* A job's QPs on host h whose peers are hosts: for counters per QP
 * (retransmissions, NAKs, CNPs): calls fn for every QP the set made. */
void aif_jobs_foreach_qp(const struct aif_jobs *js,
			 void (*fn)(uint32_t job, uint32_t host, uint32_t qp, void *arg),
			 void *arg);

/* Ranks (of every job) that finished their last iteration; every job's
 * ranks. */
uint32_t aif_jobs_ranks_done(const struct aif_jobs *js);
uint32_t aif_jobs_ranks_total(const struct aif_jobs *js);

/*
 * Several processes, each with its own copy of the set, each running the
 * ranks on its own hosts (control/ranks.h): what they share put together,
 * after the run, so that every copy holds what one process would have.
 * reduce(v, n, op, arg) makes v[0..n) the same in every process: with
 * AIF_JOBS_RED_MIN_SET the least of the values that are not 0 (0: none),
 * AIF_JOBS_RED_MAX the greatest, AIF_JOBS_RED_SUM the sum.  Every process calls
 * it, in the same order.  0, or -1 (out of memory: nothing changed).
 */
enum aif_jobs_reduce_op { AIF_JOBS_RED_MIN_SET, AIF_JOBS_RED_MAX, AIF_JOBS_RED_SUM };
typedef void (*aif_jobs_reduce_fn)(uint64_t *v, size_t n, enum aif_jobs_reduce_op op,
				   void *arg);
int aif_jobs_merge(struct aif_jobs *js, aif_jobs_reduce_fn reduce, void *arg);

/* The ranks that have not finished their last iteration, and where they are. */
void aif_jobs_print_pending(const struct aif_jobs *js, FILE *f);

#endif /* AIF_JOBS_H */
