/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time on several processes: the runners' partitions as MPI ranks
 * (Open MPI), started by mpirun:
 *
 *	mpirun -np 2 build/aifabric -- --config F --virtual-time --jobs J --results D
 *
 * Every rank builds the whole fabric from the same inputs, split in parts
 * as one process splits it (control/partition.h: --runners, by default as
 * many as it has, 64 at most; at least as many as there are ranks), and
 * runs its share of the parts: rank k of n the parts k, k + n, k + 2n, ...
 * (as the threads of one process share them: a leaf-spine's leaves and
 * spines come in that order, and both ranks get some of each), on a
 * thread per core it was given (mpirun
 * binds a rank to one core unless told otherwise: --bind-to none, or
 * --map-by slot:PE=N), window by window as the threads of one process do
 * (dataplane/windows.h).  Between its own parts frames cross as they do in
 * one process; to the other ranks' parts, with these in place of what
 * threads share:
 *   - the frames that cross to another rank's switches: at each window's
 *     end the sender's rank takes them off its copy of the link's delay
 *     line and sends them (link, side, when their first bit left and when
 *     they arrive, the frame's bytes, or a light frame's head and length:
 *     dataplane/frame.h); the receiver's rank puts them on its copy of the
 *     line in the order they were sent (MPI_Alltoallv);
 *   - the next window: the earliest next event of every rank
 *     (MPI_Allreduce, minimum), so that time with nothing in it is still
 *     skipped, the same on every rank;
 *   - the idle question: each rank's edge ports and hosts idle, its pool
 *     empty, and the jobs' ranks that finished (summed);
 *   - a stop (SIGINT, SIGTERM to any rank): every rank stops after the
 *     same window;
 *   - after the run, what one process would have: the jobs' iterations
 *     and flows (minima, maxima, counts: hosts/jobs.h aif_jobs_merge), each
 *     host's and each switch's counters, each device's PFC log and each
 *     switch's queue-length dumps from the rank that ran it (MPI_Bcast); rank 0 reports and writes the results,
 *     byte for byte those of one process.
 * The start is taken together (aif_ranks_agree): after the options and
 * inputs are read (with a digest of them and of the build, the same on
 * every rank or none goes on), after EAL and the fabric are built, and
 * before the first window; a rank that stops there stops them all.
 * The other ranks print nothing on stdout.  What would need more than that
 * is refused under mpirun, with its option named: --samples, --capture,
 * --link, --lb, --pcap-in, --pcap-out, --traffic, --stats; --runners
 * fewer than the ranks.
 *
 * MPI is optional (meson -Dmpi=enabled, or auto when Open MPI's
 * development files are there).  With it, aifabric-mpi is the daemon
 * linked with MPI, and aifabric started under mpirun (its environment says
 * so) hands over to it (execv, the same arguments), so that a run in one
 * process loads none of MPI's libraries; without it, a start under mpirun
 * is refused.
 */
#ifndef AIF_RANKS_H
#define AIF_RANKS_H

#include <stdbool.h>

#include <stdint.h>

#include "../dataplane/types.h"

struct aif_config;
struct aif_edges;
struct aif_fabric;
struct aif_opts;
struct aif_windows;
struct aif_workload;
struct rte_mempool;

/* What a rank runs and shares: the same on every rank but its own part. */
struct aif_ranks_fabric {
	const struct aif_config *cfg;
	struct aif_fabric *fab;
	struct aif_workload *wl;
	struct aif_edges *edges;       /* its idle question */
	struct rte_mempool *pool;      /* the frames from other ranks */
	const uint16_t *runner_of;     /* [switch]: its part */
};

/* MPI started when the process was started by mpirun: 0 (this process's
 * rank and the ranks' number set, 0 and 1 without mpirun), or -1 with a
 * message (MPI not built in, or it failed).  Before anything else. */
int aif_ranks_start(int *argc, char ***argv);
int aif_ranks_rank(void);
int aif_ranks_size(void);
/* Several ranks run (mpirun -np N, N > 1). */
bool aif_ranks_on(void);
/* The ranks on this machine, this one among them (they share its
 * hugepages); 1 without mpirun. */
int aif_ranks_local(void);
/* The options a run on several ranks cannot take refused (0, or -1 with a
 * message naming one); the parts, once the partition is made (0, or -1:
 * it did not split in as many parts as there are ranks). */
int aif_ranks_check_opts(const struct aif_opts *o);
int aif_ranks_check_parts(unsigned n_parts, aif_time_ns lookahead_ns);
/* Every rank at the same step of the start, with its status there (rc:
 * 0 good, -1 failed having said why, 1 --help done) and a digest of the
 * inputs that shape the run (aif_run_inputs_digest; 0 where not asked):
 * rc when every rank has the same and, with rc 0, the same digest; else -1,
 * rank 0 saying which rank stopped or differs.  A rank that stops alone
 * would leave the others waiting for it in their first window, and ranks
 * started from different inputs would run one fabric that is none of
 * theirs.  Every rank calls it at each step (main.c, and before the first
 * window: run_sim.c), whatever its own status; one rank: rc. */
int aif_ranks_agree(int rc, uint64_t digest);
/* The rank that runs part i: i modulo the ranks' number (0: one rank). */
int aif_ranks_of_part(unsigned i);
/* The windows joined to the other ranks' (win->net, win->idle): 0, or -1
 * (out of memory). */
int aif_ranks_join(const struct aif_ranks_fabric *f, struct aif_windows *win);
/* After the run: the results put together on every rank (as one
 * process's); v[0] the latest of every rank's, v[1..n) summed.  0, or -1. */
int aif_ranks_gather(struct aif_windows *win, uint64_t *v, unsigned n);
/* After aif_ranks_gather: every job done and every rank's hosts idle (one
 * process: aif_workload_idle). */
bool aif_ranks_jobs_idle(void);
/* MPI finalised; a rank that failed once the run started (ran) aborts the
 * others, which would wait for it (before it, every rank fails alike). */
void aif_ranks_end(int status, bool ran);

#endif /* AIF_RANKS_H */
