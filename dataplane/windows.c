/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runners in windows (windows.h).
 *
 * The barrier: the coordinator (runner 0's thread) writes the window, sets
 * done to 0 and bumps go (release); each other runner waits for go to
 * move, runs its window, and adds one to done (release); the coordinator
 * runs runner 0's window and waits for done to reach n - 1.  Everything a
 * runner wrote in a window is visible to all after the barrier.  Waiting
 * spins a while (a window on a busy fabric is tens to hundreds of
 * microseconds of work, and its end is near when a runner arrives), then
 * sleeps on the word (futex) until the one that moves it wakes it: the
 * coordinator wakes the runners after bumping go, the last runner done
 * wakes the coordinator.  With a core for every thread (the daemon's
 * default: control/run.c) a waiter spins SPIN_NS, 30 us, before it sleeps,
 * else a few hundred pauses: sleeping after some 5 us put a wake-up on
 * most windows' path (a barrier of 30 us a window on the 128-host hosts
 * run; with 30 us of spinning 11 us, the run 5.90 -> 5.63 s, the traffic
 * fabric on 2 runners 5.10 -> 4.82 s, no more CPU; spinning 200 us slowed
 * the working thread on this 2-core machine: the fabric's work 8.4 -> 12.2
 * s).  A waiter that yields instead stays runnable and keeps asking for a
 * core it has no use for: on 2 cores shared with other work, 2 runners
 * ran the bench's fabric 6% faster sleeping than yielding (median of 3
 * interleaved pairs), 8 runners on those 2 cores as fast.
 *
 * The barrier's cost: each window's wall time, from go to the last done,
 * less its longest runner's (barrier_ns, and its distribution over the
 * windows in barrier_hist, windows.h).  On cores shared with other work it
 * holds the time a runner waited for a core too.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "runner.h"
#include "windows.h"

#define SPINS_BEFORE_SLEEP 256 /* with more threads than cores */
/* with a core for every thread: about as long as a window's shares
 * commonly differ on a busy fabric (the waker's futex call and the
 * sleeper's wake-up, tens of microseconds, land on the window's path) */
#define SPIN_NS 30000ull

static inline uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int
aif_windows_init(struct aif_windows *win, struct aif_runner *const *runners, unsigned n,
		 aif_time_ns lookahead_ns, struct aif_clock *ctl_clock, aif_time_ns end_ns)
{
	aif_time_ns now = aif_clock_now(ctl_clock);

	*win = (struct aif_windows){ .n = n, .lookahead_ns = lookahead_ns ? lookahead_ns : 1,
				     .ctl_clock = ctl_clock, .end_ns = end_ns };
	if (n == 0 || n > AIF_MAX_RUNNERS)
		return -1;
	win->part = rte_zmalloc("aif_windows", n * sizeof(*win->part), RTE_CACHE_LINE_SIZE);
	win->cursor = rte_zmalloc("aif_windows", n * sizeof(*win->cursor), RTE_CACHE_LINE_SIZE);
	if (win->part == NULL || win->cursor == NULL)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		struct aif_windows_part *p = &win->part[i];
		p->win = win;
		p->w = runners[i];
		p->src = aif_runner_source(runners[i]);
		if (p->src == NULL)
			return -1;
		aif_clock_init_virtual(&p->clock, now);
		aif_evloop_init(&p->loop, &p->clock, now);
	}
	return 0;
}

int
aif_windows_add_to(struct aif_windows *win, unsigned i, struct aif_ev_source *s)
{
	/* (one place kept for the runner, added last) */
	if (i >= win->n || win->part[i].loop.n_src + 1 >= AIF_EVLOOP_MAX_SOURCES)
		return -1;
	return aif_evloop_add(&win->part[i].loop, s);
}

int
aif_windows_add(struct aif_windows *win, struct aif_ev_source *s)
{
	if (win->n_ctl == AIF_EVLOOP_MAX_SOURCES)
		return -1;
	s->next_ns = AIF_TIME_NS_NEVER;
	s->fired = 0;
	win->ctl[win->n_ctl++] = s;
	return 0;
}

/* The part's earliest event: its runner's, its own sources'. */
static aif_time_ns
part_next(const struct aif_windows_part *p)
{
	aif_time_ns t = AIF_TIME_NS_NEVER;

	for (unsigned i = 0; i < p->loop.n_src; i++)
		t = RTE_MIN(t, p->loop.src[i]->next_ns);
	return t;
}

/* One runner's window [win_start_ns, win_end_ns), on thread t (its wall
 * time; its CPU time is its thread's share, thread_window). */
static void
part_window(struct aif_windows *win, struct aif_windows_part *p, unsigned t)
{
	aif_time_ns s = win->win_start_ns;
	uint64_t w0 = wall_ns();

	aif_runner_absorb(p->w, s);
	aif_evloop_ask(p->src, s);
	p->loop.end_ns = win->win_end_ns - 1;
	aif_evloop_run(&p->loop);
	p->next_ns = part_next(p);
	p->sent_ns = aif_runner_sent_across(p->w);
	p->wall_ns = wall_ns() - w0;
	p->busy_ns += p->wall_ns;
	p->ran_by = t;
	p->windows++;
}

static inline void
futex_wait(uint32_t *x, uint32_t v)
{
	/* (returns at once when *x != v: EAGAIN; EINTR: asked again) */
	syscall(SYS_futex, x, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static inline void
futex_wake(uint32_t *x, int n)
{
	syscall(SYS_futex, x, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Spin, then sleep, until *x != v (want_ne) or *x == v: spin SPIN_NS
 * when every thread has a core (timed), else SPINS_BEFORE_SLEEP pauses. */
static inline void
wait_for(uint32_t *x, uint32_t v, int want_ne, bool timed)
{
	unsigned spins = 0;
	uint64_t t0 = 0;
	uint32_t now;

	while (((now = __atomic_load_n(x, __ATOMIC_ACQUIRE)) != v) != want_ne) {
		if (!timed) {
			if (++spins < SPINS_BEFORE_SLEEP)
				rte_pause();
			else
				futex_wait(x, now);
			continue;
		}
		if ((++spins & 63) != 0) {
			rte_pause();
			continue;
		}
		uint64_t t = wall_ns();
		if (t0 == 0)
			t0 = t;
		else if (t - t0 >= SPIN_NS)
			futex_wait(x, now);
	}
}

/*
 * Thread t's window: its own parts (t, t + n_threads, ...) one after the
 * other, then those of the threads after it that have not started them
 * yet.  Every list's next part is taken from its cursor, so each part runs
 * once whoever takes it; a part's state is its own, and the barrier orders
 * it between windows whichever threads run it.  A thread done early takes
 * work from one still busy instead of waiting for it (windows' shares
 * differ: 4.73 s of the 16 runners' 9.04 s of CPU on the 128-host hosts
 * run was the busier thread's, 4.52 an even split).  The thread's CPU time
 * is read once a window (a system call, ~0.4 us): each part's is its share
 * by wall time.
 */
static void
thread_window(struct aif_windows *win, unsigned t)
{
	unsigned nt = win->n_threads;
	uint64_t c0 = cpu_ns();

	for (unsigned k = 0; k < nt; k++) {
		unsigned u = t + k < nt ? t + k : t + k - nt;
		unsigned len = (win->n - u + nt - 1) / nt;
		for (;;) {
			uint32_t j = __atomic_fetch_add(&win->cursor[u].next, 1, __ATOMIC_RELAXED);
			if (j >= len)
				break;
			part_window(win, &win->part[u + j * nt], t);
		}
	}
	win->part[t].thread_cpu_ns = cpu_ns() - c0;
}

static void *
part_thread(void *arg)
{
	struct aif_windows_part *p = arg;
	struct aif_windows *win = p->win;
	unsigned t = (unsigned)(p - win->part);
	uint32_t seen = 0;

	rte_thread_register(); /* an lcore id: the mbuf pool's per-core cache */
	if (sched_getaffinity(0, sizeof(p->cores), &p->cores) != 0)
		CPU_ZERO(&p->cores);
	for (;;) {
		uint64_t t0 = wall_ns();
		wait_for(&win->go, seen, 1, win->timed_spin);
		p->wait_ns += wall_ns() - t0;
		seen = __atomic_load_n(&win->go, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&win->quit, __ATOMIC_ACQUIRE))
			break;
		thread_window(win, t);
		if (__atomic_add_fetch(&win->done, 1, __ATOMIC_RELEASE) == win->n_threads - 1)
			futex_wake(&win->done, 1);
	}
	rte_thread_unregister();
	return NULL;
}

/* The earliest next event of the control sources with flags (0: any). */
static aif_time_ns
ctl_next(const struct aif_windows *win, unsigned flags)
{
	aif_time_ns t = AIF_TIME_NS_NEVER;

	for (unsigned i = 0; i < win->n_ctl; i++)
		if ((flags == 0 || (win->ctl[i]->flags & flags)) && win->ctl[i]->next_ns < t)
			t = win->ctl[i]->next_ns;
	return t;
}

/* The runners' earliest event: their own, and the frames sent across. */
static aif_time_ns
work_local(const struct aif_windows *win)
{
	aif_time_ns t = AIF_TIME_NS_NEVER;

	for (unsigned i = 0; i < win->n; i++) {
		t = RTE_MIN(t, win->part[i].next_ns);
		t = RTE_MIN(t, win->part[i].sent_ns);
	}
	return t;
}

/* ... and the other processes' (windows.h aif_windows_net). */
static aif_time_ns
work_next(const struct aif_windows *win)
{
	aif_time_ns t = work_local(win);

	return unlikely(win->net != NULL) ? win->net->min_ns(win->net->arg, t) : t;
}

static int
stopped(const struct aif_windows *win)
{
	return win->stop != NULL && *win->stop;
}

/* Every runner looks again at everything (a control source changed what
 * they depend on): at the boundary, so that the next window starts where
 * their events are. */
static void
refresh_parts(struct aif_windows *win, aif_time_ns t)
{
	for (unsigned i = 0; i < win->n; i++) {
		struct aif_windows_part *p = &win->part[i];
		aif_evloop_refresh(&p->loop, t);
		p->next_ns = part_next(p);
	}
}

/* The run stops at t: the runners' own sources due at t (samples) fire
 * still, as one loop fires its samples before the tick whose idle question
 * ends it. */
static void
last_samples(struct aif_windows *win, aif_time_ns t)
{
	for (unsigned i = 0; i < win->n; i++) {
		struct aif_windows_part *p = &win->part[i];
		for (unsigned k = 0; k < p->loop.n_src; k++) {
			struct aif_ev_source *s = p->loop.src[k];
			if (s == p->src || s->next_ns != t)
				continue;
			aif_clock_set(&p->clock, t);
			s->ops->fire(s, t);
			s->fired++;
			s->next_ns = s->ops->next_ns(s, t);
		}
	}
}

/*
 * Control's sources due at t, in the order one loop fires them, with its
 * idle question (evloop.c); *work is the runners' next event.  1 when the
 * run is over (stop, idle).
 */
static int
boundary(struct aif_windows *win, aif_time_ns t, aif_time_ns *work)
{
	for (;;) {
		struct aif_ev_source *e = NULL;
		for (unsigned i = 0; i < win->n_ctl && e == NULL; i++)
			if (win->ctl[i]->next_ns == t)
				e = win->ctl[i];
		if (e == NULL)
			return 0;
		if (!(e->flags & (AIF_EV_URGENT | AIF_EV_QUIET)) &&
		    (*work > ctl_next(win, AIF_EV_TICK) || (e->flags & AIF_EV_TICK)) &&
		    (stopped(win) || (win->idle != NULL && win->idle(win->idle_arg)))) {
			last_samples(win, t);
			return 1;
		}
		aif_clock_set(win->ctl_clock, t);
		unsigned r = e->ops->fire(e, t);
		e->fired++;
		e->next_ns = e->ops->next_ns(e, t);
		win->now_ns = RTE_MAX(win->now_ns, t);
		if (r & AIF_EV_CHANGED) {
			for (unsigned i = 0; i < win->n_ctl; i++) {
				struct aif_ev_source *s = win->ctl[i];
				if (s->ops->refresh != NULL)
					s->ops->refresh(s, t);
				s->next_ns = s->ops->next_ns(s, t);
			}
			refresh_parts(win, t);
			*work = work_next(win);
		}
	}
}

aif_time_ns
aif_windows_run(struct aif_windows *win)
{
	aif_time_ns t = aif_clock_now(win->ctl_clock), edge = t;
	aif_time_ns next_progress = win->progress != NULL ? t + win->progress_ns
							  : AIF_TIME_NS_NEVER;
	uint64_t start = wall_ns();
	unsigned started = 1;

	win->now_ns = t;
	if (win->n_threads == 0 || win->n_threads > win->n)
		win->n_threads = win->n;
	if (sched_getaffinity(0, sizeof(win->part[0].cores), &win->part[0].cores) != 0)
		CPU_ZERO(&win->part[0].cores);
	/* a core for every thread: spin SPIN_NS at the barrier */
	win->timed_spin = (unsigned)CPU_COUNT(&win->part[0].cores) >= win->n_threads;
	for (unsigned i = 0; i < win->n; i++)
		aif_evloop_add(&win->part[i].loop, win->part[i].src); /* (room kept) */
	/* every source asked, the runners' on this thread before theirs start */
	for (unsigned i = 0; i < win->n_ctl; i++) {
		struct aif_ev_source *s = win->ctl[i];
		if (s->ops->refresh != NULL)
			s->ops->refresh(s, t);
		s->next_ns = s->ops->next_ns(s, t);
	}
	refresh_parts(win, t);
	for (unsigned i = 0; i < win->n; i++)
		win->part[i].sent_ns = AIF_TIME_NS_NEVER;
	for (unsigned i = 1; i < win->n_threads; i++, started++)
		if (pthread_create(&win->part[i].thread, NULL, part_thread, &win->part[i]) != 0)
			break;
	for (unsigned i = 1; i < started; i++)
		win->part[i].started = 1;
	aif_time_ns work = work_next(win);
	while (started == win->n_threads) {
		uint64_t s0 = wall_ns();
		/* the next boundary: the earliest work or control event */
		t = RTE_MAX(edge, RTE_MIN(work, ctl_next(win, 0)));
		win->stop_ns = RTE_MIN(t, win->end_ns);
		if (t == AIF_TIME_NS_NEVER || t > win->end_ns || stopped(win))
			break;
		if (boundary(win, t, &work))
			break;
		if (t >= next_progress) {
			win->progress(win, win->progress_arg);
			next_progress = t + win->progress_ns;
		}
		/* the window: to the lookahead, the next control event, the end */
		aif_time_ns e = t + win->lookahead_ns;
		e = RTE_MIN(e, ctl_next(win, 0));
		if (win->end_ns != AIF_TIME_NS_NEVER)
			e = RTE_MIN(e, win->end_ns + 1);
		if (work >= e) { /* nothing in it: the next boundary */
			edge = e;
			win->serial_ns += wall_ns() - s0;
			continue;
		}
		win->win_start_ns = t;
		win->win_end_ns = e;
		__atomic_store_n(&win->done, 0, __ATOMIC_RELAXED);
		for (unsigned u = 0; u < win->n_threads; u++)
			__atomic_store_n(&win->cursor[u].next, 0, __ATOMIC_RELAXED);
		uint64_t g0 = wall_ns();
		__atomic_add_fetch(&win->go, 1, __ATOMIC_RELEASE);
		futex_wake(&win->go, INT_MAX);
		win->serial_ns += g0 - s0;
		thread_window(win, 0);
		uint64_t w0 = wall_ns();
		wait_for(&win->done, win->n_threads - 1, 0, win->timed_spin);
		uint64_t w1 = wall_ns();
		win->part[0].wait_ns += w1 - w0;
		/* the busiest thread's CPU and wall time (the parts it ran,
		 * summed); each part's CPU time its share of its thread's */
		uint64_t mx = 0, mx_wall = 0, mx_part = 0, tw[AIF_MAX_RUNNERS] = { 0 };
		for (unsigned i = 0; i < win->n; i++) {
			tw[win->part[i].ran_by] += win->part[i].wall_ns;
			mx_part = RTE_MAX(mx_part, win->part[i].wall_ns);
		}
		win->crit_part_ns += mx_part;
		for (unsigned i = 0; i < win->n; i++) {
			struct aif_windows_part *p = &win->part[i];
			uint64_t tc = win->part[p->ran_by].thread_cpu_ns, w = tw[p->ran_by];
			p->cpu_ns = w ? (uint64_t)((double)tc * (double)p->wall_ns / (double)w) : 0;
			p->cpu_total_ns += p->cpu_ns;
		}
		for (unsigned t = 0; t < win->n_threads; t++) {
			mx = RTE_MAX(mx, win->part[t].thread_cpu_ns);
			mx_wall = RTE_MAX(mx_wall, tw[t]);
			win->work_cpu_ns += win->part[t].thread_cpu_ns;
		}
		win->crit_cpu_ns += mx;
		win->crit_wall_ns += mx_wall;
		uint64_t b = w1 - g0 > mx_wall ? w1 - g0 - mx_wall : 0;
		win->barrier_ns += b;
		win->barrier_hist[b ? RTE_MIN(63u - (unsigned)__builtin_clzll(b),
					      AIF_WINDOWS_HIST - 1u) : 0]++;
		win->windows++;
		work = unlikely(win->net != NULL) ? win->net->window_end(win->net->arg, work_local(win))
						  : work_local(win);
		edge = e;
	}
	__atomic_store_n(&win->quit, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&win->go, 1, __ATOMIC_RELEASE);
	futex_wake(&win->go, INT_MAX);
	for (unsigned i = 1; i < win->n_threads; i++)
		if (win->part[i].started) {
			pthread_join(win->part[i].thread, NULL);
			win->part[i].started = 0;
		}
	win->wall_s = (double)(wall_ns() - start) / 1e9;
	if (started != win->n_threads)
		return AIF_TIME_NS_NEVER;
	/* the end: the last event */
	for (unsigned i = 0; i < win->n; i++)
		win->now_ns = RTE_MAX(win->now_ns, aif_clock_now(&win->part[i].clock));
	aif_clock_set(win->ctl_clock, win->now_ns);
	return win->now_ns;
}

uint64_t
aif_windows_barrier_ns_at(const struct aif_windows *win, double q)
{
	uint64_t n = 0, k = 0;

	for (unsigned i = 0; i < AIF_WINDOWS_HIST; i++)
		n += win->barrier_hist[i];
	if (n == 0)
		return 0;
	for (unsigned i = 0; i < AIF_WINDOWS_HIST; i++) {
		k += win->barrier_hist[i];
		if ((double)k >= q * (double)n)
			return i ? 2ull << i : 1; /* the bucket's top */
	}
	return UINT64_MAX;
}

unsigned
aif_windows_cores(const struct aif_windows *win, cpu_set_t *set)
{
	cpu_set_t all;

	CPU_ZERO(&all);
	for (unsigned i = 0; i < win->n; i++)
		CPU_OR(&all, &all, &win->part[i].cores);
	if (set != NULL)
		*set = all;
	return (unsigned)CPU_COUNT(&all);
}

uint64_t
aif_windows_events(const struct aif_windows *win)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < win->n; i++)
		n += win->part[i].loop.events;
	return n;
}

uint64_t
aif_windows_packets(const struct aif_windows *win)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < win->n; i++)
		n += aif_runner_source_packets(win->part[i].w);
	return n;
}

void
aif_windows_free(struct aif_windows *win)
{
	rte_free(win->part);
	rte_free(win->cursor);
	win->part = NULL;
	win->cursor = NULL;
}
