/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several runners advancing one fabric together in virtual time: a
 * conservative parallel simulation, window by window.
 *
 * Each runner drives a part of the fabric (its switches and their ports:
 * virtual hosts, pcap ports) in its own event loop (evloop.h) on its own
 * thread and virtual clock.  The links between parts are the cut.  A frame
 * sent on a link at t arrives no sooner than t + the link's delay
 * (link.h), so with the lookahead L the smallest delay of a cut link,
 * nothing a runner does in [T, T + L) can reach another runner before
 * T + L: each runs its events in the window [T, E), E <= T + L, alone, and
 * all meet at a barrier at E.
 *
 * The frames that cross the cut travel on the links' own delay lines,
 * rings with one producer (the sending runner) and one consumer (the
 * receiving one), in the order they arrive.  At a window's start each
 * runner takes in what the others put on them (aif_runner_absorb: its
 * switches' next events brought as close as the frames' arrivals), and
 * its switches take them in when they arrive, in the order a step always
 * takes its frames: by time, then by port.  So the order of everything
 * that happens to one switch is the one a single runner gives it, and a
 * run's results are the same for any number of runners and any
 * partition, byte for byte:
 *   - a switch's state changes only in its own steps, and at equal times
 *     a runner steps its switches in the order one runner would (its
 *     switches are added in the fabric's order);
 *   - what crosses between switches crosses a link, later by its delay;
 *   - the sources that are not a runner's (control's tick, scheduled
 *     actions, samples) run on the coordinating thread at window
 *     boundaries: a window ends where the next of them is due, and they
 *     run before the runners' events of the same time, as in one loop
 *     where they were added first;
 *   - work that one virtual host hands to another without a packet (the
 *     ports of a multi-plane host's rank) stays within one runner: the
 *     partition keeps such switches together (control/partition.h);
 *   - state the hosts share across runners (a job's iterations, finished
 *     ranks) is kept with atomics whose results do not depend on order
 *     (min, max, counts).
 *
 * The run ends as one loop's does (evloop.h): the idle question asked at
 * the boundaries where a control source neither urgent nor quiet is due
 * and no runner has an event before the next tick, and before every tick
 * (where one loop asks every check_every events); the end is the last
 * event's time.  Samples are quiet, so that the runners' own (each its
 * switches', aif_windows_add_to) run to the boundary as one loop's do.
 *
 * A thread may run several parts, one after the other in each window
 * (n_threads): the parts are as independent in a window on one thread as
 * on many, and each keeps its switches' state in the cache through its
 * share of the window rather than interleaving them.  A thread done with
 * its own parts takes those another has not started yet: each part still
 * runs once a window, and which thread ran it changes nothing but the
 * time.
 *
 * The window: from the earliest of every runner's next event, every
 * frame's arrival sent across in the last window and the control sources'
 * next events (time with nothing in it is skipped), to the lookahead or
 * the next control event.  The coordinating thread is runner 0's.
 *
 *	struct aif_windows win;
 *	aif_windows_init(&win, runners, n, lookahead_ns, &ctl_clock, end_ns);
 *	aif_windows_add(&win, &tick.src);    // control's sources, in tie order
 *	aif_windows_add_to(&win, i, &qlen[i].src); // runner i's own samples
 *	win.idle = inputs_done;
 *	win.n_threads = 2;                   // (default: a thread a part)
 *	aif_windows_run(&win);               // win.now_ns, per part: busy, waiting
 *	aif_windows_free(&win);
 */
#ifndef AIF_WINDOWS_H
#define AIF_WINDOWS_H

#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>

#include <rte_common.h>

#include "capacity.h"
#include "clock.h"
#include "evloop.h"
#include "types.h"

struct aif_runner;
struct aif_windows;

/*
 * Runners in other processes (control/ranks.h): each process runs its
 * own runners' windows, and all of them agree on every window.  min_ns:
 * the earliest of every process's t (its runners' next event), at the
 * start and after control changed what they depend on; window_end: after
 * each window, the frames sent to another process's switches handed over
 * and those from the others taken in, and the earliest of every process's
 * t (as min_ns).  Every process calls them at the same points.  NULL: one
 * process, nothing asked.
 */
struct aif_windows_net {
	aif_time_ns (*min_ns)(void *arg, aif_time_ns t);
	aif_time_ns (*window_end)(void *arg, aif_time_ns t);
	void *arg;
};

#define AIF_WINDOWS_HIST 40 /* barrier_hist: bucket i, [2^i, 2^(i+1)) ns */

/* One runner's part (cache aligned: each is written by the thread running
 * it). */
struct aif_windows_part {
	struct aif_windows *win;
	struct aif_runner *w;
	struct aif_ev_source *src;   /* the runner as an event source */
	struct aif_clock clock;      /* its own virtual clock */
	struct aif_evloop loop;      /* its sources (aif_windows_add_to), its runner */
	pthread_t thread;
	int started;                 /* thread running */
	cpu_set_t cores;             /* the cores its thread may run on */
	/* out of the last window */
	aif_time_ns next_ns;         /* its earliest event after it */
	aif_time_ns sent_ns;         /* earliest arrival of what it sent across */
	uint64_t cpu_ns;             /* thread CPU time in it (its share of its thread's) */
	uint64_t wall_ns;            /* wall time in it */
	unsigned ran_by;             /* the thread that ran it */
	uint64_t thread_cpu_ns;      /* part t < n_threads: thread t's CPU time in it */
	/* totals */
	uint64_t busy_ns, wait_ns;   /* wall time in its windows, at the barrier */
	uint64_t cpu_total_ns;       /* thread CPU time in its windows */
	uint64_t windows;
} __rte_cache_aligned;

struct aif_windows {
	unsigned n;
	struct aif_windows_part *part;   /* [n] */
	/* threads that run the parts (0: n, one each): thread t runs parts t,
	 * t + n_threads, ... in turn in every window, then takes those of the
	 * others not started yet; t 0 the coordinator's (set before the run) */
	unsigned n_threads;
	struct aif_windows_cursor {
		uint32_t next;           /* thread t's list: the next part to take */
	} __rte_cache_aligned *cursor;   /* [n] */
	bool timed_spin;                 /* (the run's: a core for every thread) */
	aif_time_ns lookahead_ns;
	struct aif_clock *ctl_clock;     /* control's: set to each boundary */
	aif_time_ns end_ns;              /* no event after it (AIF_TIME_NS_NEVER: none) */
	unsigned n_ctl;
	struct aif_ev_source *ctl[AIF_EVLOOP_MAX_SOURCES];
	int (*idle)(void *arg);          /* NULL: never idle */
	void *idle_arg;
	const volatile int *stop;        /* non-zero: stop */
	const struct aif_windows_net *net; /* other processes' runners (NULL: none) */
	/* progress, optional: at a boundary, every progress_ns of virtual time */
	void (*progress)(const struct aif_windows *win, void *arg);
	void *progress_arg;
	aif_time_ns progress_ns;
	/* the window the runners run (written by the coordinator before go) */
	aif_time_ns win_start_ns, win_end_ns;
	uint32_t go __rte_cache_aligned;   /* window number: the runners start it */
	uint32_t done __rte_cache_aligned; /* runners done with the current window */
	int quit;
	/* out */
	aif_time_ns now_ns;              /* the last event's time */
	aif_time_ns stop_ns;             /* where the run stopped: the boundary
					  * it did not pass (idle, stopped
					  * there), or end_ns (none before it) */
	uint64_t windows;                /* windows run */
	uint64_t crit_cpu_ns;            /* sum over windows of the busiest runner's CPU */
	uint64_t work_cpu_ns;            /* sum over windows of all runners' CPU */
	uint64_t crit_wall_ns;           /* sum over windows of the busiest thread's wall time */
	uint64_t crit_part_ns;           /* sum over windows of the longest part's wall time:
					  * the loop on a free core per runner, barriers
					  * aside (measured where each thread has a core) */
	uint64_t barrier_ns;             /* sum over windows of the window's wall time (go to
					  * the last done) less its longest runner's */
	uint64_t barrier_hist[AIF_WINDOWS_HIST]; /* windows by that, log2 ns */
	uint64_t serial_ns;              /* wall time the coordinator spent between windows */
	double wall_s;
};

/* n runners (each with its switches and queues added, not yet run), the
 * lookahead (> 0), control's clock, the end.  0, or -1 (out of memory). */
int aif_windows_init(struct aif_windows *win, struct aif_runner *const *runners, unsigned n,
		     aif_time_ns lookahead_ns, struct aif_clock *ctl_clock, aif_time_ns end_ns);
/* A control source (before the run; ties go to the first added, and to
 * every control source before the runners); 0, or -1 when full. */
int aif_windows_add(struct aif_windows *win, struct aif_ev_source *s);
/* A source of runner i's own, in its loop before its runner (ties go to
 * it): what samples the runner's switches.  Its events are work the
 * windows do not skip.  0, or -1 when full. */
int aif_windows_add_to(struct aif_windows *win, unsigned i, struct aif_ev_source *s);
/* Run to the end (threads started and joined here); returns win->now_ns,
 * or AIF_TIME_NS_NEVER if a thread could not start. */
aif_time_ns aif_windows_run(struct aif_windows *win);
/* The barrier's cost per window at quantile q (0..1) of the windows: the
 * top of its log2 bucket, in ns (an over-estimate by at most 2x). */
uint64_t aif_windows_barrier_ns_at(const struct aif_windows *win, double q);
/* Events and packets the runners' sources fired and received. */
uint64_t aif_windows_events(const struct aif_windows *win);
uint64_t aif_windows_packets(const struct aif_windows *win);
/* The cores the runners' threads may run on between them (after a run):
 * how many, and the set into *set when not NULL.  Fewer than runners: they
 * take turns on a core (taskset, a cgroup) and the run is no faster. */
unsigned aif_windows_cores(const struct aif_windows *win, cpu_set_t *set);
void aif_windows_free(struct aif_windows *win);

#endif /* AIF_WINDOWS_H */
