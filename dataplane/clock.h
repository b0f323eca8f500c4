/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock: one per worker loop (or per simulation), read once per
 * iteration into now_ns and passed down to every stage, and once per
 * received burst to stamp it (runner.h: Time).  No stage reads the TSC
 * itself.
 *
 * Two backends:
 *   real:    TSC, converted to ns since aif_clock_init_real();
 *   virtual: a counter that only aif_clock_advance()/aif_clock_set() move,
 *            for tests and the deterministic simulator.
 *
 *	struct aif_clock c;
 *	aif_clock_init_virtual(&c, 0);
 *	aif_clock_advance(&c, 5 * AIF_NS_PER_US);
 *	aif_runner_step(w, aif_clock_now(&c));
 */
#ifndef AIF_CLOCK_H
#define AIF_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

struct aif_clock {
	bool is_virtual;
	aif_time_ns virt_ns;  /* virtual: current time */
	uint64_t tsc_start;   /* real: TSC at init */
	uint64_t tsc_hz;      /* real: TSC frequency */
	uint64_t ns_per_tsc_q32; /* real: ns per TSC tick, 32.32 fixed point */
};

/* Real clock starting at 0 now; tsc_hz from rte_get_tsc_hz(). */
void aif_clock_init_real(struct aif_clock *c);
/* Virtual clock starting at start_ns. */
void aif_clock_init_virtual(struct aif_clock *c, aif_time_ns start_ns);
/* Current time in ns. */
aif_time_ns aif_clock_now(const struct aif_clock *c);
/* Virtual only: move forward by delta_ns / to t_ns (never backwards). */
void aif_clock_advance(struct aif_clock *c, aif_time_ns delta_ns);
void aif_clock_set(struct aif_clock *c, aif_time_ns t_ns);

/*
 * Pacing: the emulated time of a real-time runner.  An emulated fabric
 * (links, virtual hosts, PFC timers, the watchdog) moves by the time a
 * step is given.  A runner that comes back late (a step that overran, the
 * core taken by another process) would hand its objects a jump: hosts
 * would send at once what they should have sent during it, before the
 * pauses that would have stopped them could act, and the watchdog would
 * see a queue paused for the whole jump.  So the emulation runs on its own
 * time, which follows the real clock but never advances by more than
 * quantum_ns in one step: a late step advances it by quantum_ns and the
 * rest is lag, kept from then on (behind_ns: real - emulated; it never
 * shrinks, so time never runs faster than real time to catch up).
 *
 *	emulated = real - behind
 *	if emulated > last + quantum:  emulated = last + quantum,
 *	                               behind = real - emulated (late step)
 *
 * Several runners share one lag (shared_ns: each raises it to its own,
 * atomically; all read it), so their emulated times stay within a step
 * of one another across the links between them.
 *
 * The emulation starts at start_ns: the real time its world was given its
 * times from (the jobs' origin, when the virtual hosts post their first
 * messages), not the first step's.  A runner launched late (a busy core,
 * a slow start under a sanitizer) makes a late step like any other: it
 * advances one quantum, the rest is lag.  Started at the first step, the
 * emulation would jump over the launch delay at once, and every host hand
 * the switch the frames of that whole gap in one step, before a pause
 * could stop any of them: far past the headroom.
 *
 * The shared lag keeps runners together only once a late one has stepped
 * again: while one is off its core (descheduled, stopped), the others
 * would run on, and the frames they send it, the pauses it would have sent
 * them, are then far apart in emulated time (a lossless fabric overflows).
 * So runners joined by links also hold each other (aif_clock_pace_hold):
 * each publishes its emulated time after every step, and a step goes no
 * further than the slowest other runner's time plus the lookahead, the
 * shortest delay of a link between two runners; a frame or a pause sent by
 * the slowest then reaches every other no earlier than its own time.  A
 * held step is not late (the lag is the late runner's to raise when it
 * steps again); a held runner keeps polling, at its time.
 *
 *	struct aif_clock_pace p;
 *	aif_clock_pace_init(&p, 3840, aif_clock_now(&real), NULL);
 *	aif_runner_step(w, aif_clock_pace_step(&p, aif_clock_now(&real)));
 */

/* A runner's emulated time as the others read it (atomic; a cache line of
 * its own). */
struct aif_clock_peer {
	aif_time_ns now_ns;
} __attribute__((aligned(64)));

struct aif_clock_pace {
	aif_time_ns quantum_ns;  /* the most a step advances; 0: not paced */
	aif_time_ns now_ns;      /* emulated time of the last step */
	aif_time_ns cap_ns;      /* the latest stamp within that step */
	aif_time_ns behind_ns;   /* real - emulated, as of the last step */
	aif_time_ns *shared_ns;  /* the lag of all runners (atomic), or NULL */
	uint64_t late_steps;     /* steps that would have advanced more */
	aif_time_ns late_max_ns; /* the most one step came late by, past quantum */
	/* holding (aif_clock_pace_hold): every runner's published time, this
	 * one's slot, the lookahead */
	struct aif_clock_peer *peers;
	unsigned n_peers, self;
	aif_time_ns lookahead_ns;
	aif_time_ns limit_ns;    /* the others' times + lookahead, when last read */
	uint64_t held_steps;     /* steps held back for a slower runner */
	uint32_t held_run;       /* ... one after the other, up to the last */
};

/* Pacing by quantum_ns (0: none, every step at real time), the emulation
 * starting at start_ns, sharing the lag in *shared_ns (or NULL; the caller
 * zeroes it). */
void aif_clock_pace_init(struct aif_clock_pace *p, aif_time_ns quantum_ns,
			 aif_time_ns start_ns, aif_time_ns *shared_ns);
/* Hold this runner within lookahead_ns (> 0) of the others: peers[n]
 * every runner's published time, peers[self] this one's (published from
 * here on; the caller zeroes the array).  After aif_clock_pace_init. */
void aif_clock_pace_hold(struct aif_clock_pace *p, struct aif_clock_peer *peers, unsigned n,
			 unsigned self, aif_time_ns lookahead_ns);
/* The emulated time of a step that starts at real time real_ns. */
aif_time_ns aif_clock_pace_step(struct aif_clock_pace *p, aif_time_ns real_ns);
/* The emulated time of an event within the step (a received burst) at
 * real time real_ns: real - behind, kept within [now, now + quantum] (and
 * the others' time plus the lookahead, when held). */
static inline aif_time_ns
aif_clock_pace_stamp(const struct aif_clock_pace *p, aif_time_ns real_ns)
{
	if (p->quantum_ns == 0)
		return real_ns;
	aif_time_ns t = real_ns > p->behind_ns ? real_ns - p->behind_ns : 0;
	if (t < p->now_ns)
		return p->now_ns;
	return t > p->cap_ns ? p->cap_ns : t;
}

#endif /* AIF_CLOCK_H */
