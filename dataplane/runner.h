/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A runner: one core's loop.  It drives a set of switches, its
 * shard of each (shard.h), and polls the RX queues of their ports: the
 * ports of one switch spread over several runners with RSS on real NICs,
 * or many switches joined by emulated links on one runner.  The stages (pipelines/pipeline.h)
 * give every packet a verdict, and the runner moves the packets: routed
 * ones into the egress port's queues (dataplane/egress.h) when its shard
 * drives the switch's QoS, else into the port's TX buffer; the switch's
 * own answers to the port; PAUSE/PFC frames to the pause state; drops to
 * the port's rx_done (a capture sees them) or the bin.
 *
 * aif_runner_step() is exactly one iteration: for each RX queue, one burst
 * in, through the stages, into per-port TX buffers; then the QoS service,
 * every buffer flushed, and a quiescent state reported.  The real-time loop
 * is
 *	aif_runner_set_clock(w, &clk);
 *	while (running) aif_runner_step(w, aif_clock_now(&clk));
 * and a test injects packets, advances a virtual clock, steps, and asserts.
 *
 * Time.  The step's now_ns drives the per-iteration work (QoS, egress,
 * adaptive bands).  A received burst is stamped with the time it was
 * received: with a clock set, the runner reads it once per non-empty
 * rx_burst and passes it to the stages (flowlet gaps, PFC frames, captures,
 * ARP rate limits).  A step's now_ns, read before the RX queues are polled,
 * would make a runner that stalls (preempted, a slow driver) stamp the
 * packets it then receives too early, and the gap to each flow's next
 * packet look longer than it was: flows moved inside their flowlets.
 * Without a clock (NULL) bursts get the step's now_ns.  Control and the
 * runners share one clock (one time base for the whole process).
 *
 * Real time, paced (aif_runner_set_pace).  The now_ns a step is given is
 * then real time, and the step runs at the emulation's own time, which
 * never advances by more than a quantum per step (clock.h, struct
 * aif_clock_pace): a runner that falls behind slows the emulation down
 * instead of handing hosts, links, PFC timers and the watchdog a jump they
 * would act on all at once.  The quantum a runner needs is the time the
 * fastest emulated port (a link or a virtual host) takes for the peer's
 * response in the headroom (mmu.h: 3840 bit times; 3.84 us at 1 Gb/s): a
 * host that sends during one quantum before it hears a pause sends no more
 * than the headroom allows for (aif_runner_pace_quantum_ns).  The first
 * step too: the emulation starts when the hosts' jobs were given their
 * times, and a runner launched later is late by that much.  Received
 * bursts are stamped in emulated time too.  Runners joined by links hold
 * each other within the shortest delay of a link between them
 * (aif_runner_set_pace_hold): one off its core holds the others at its
 * time, instead of their running on while it sends no pause.
 */
#ifndef AIF_RUNNER_H
#define AIF_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "capacity.h"
#include "clock.h"
#include "mintree.h"
#include "types.h"

struct aif_ev_source;
struct aif_port;
struct aif_runner_ev;
struct aif_shard;
struct aif_switch;

/* A runner may drive every switch of a fabric and poll every port of
 * them (virtual time: one runner); its arrays grow as they are added, up
 * to what a uint16_t index holds (the largest fabric of the largest
 * switches would be one queue more: "too many RX queues" at start). */
#define AIF_RUNNER_MAX_SWITCHES AIF_MAX_SWITCHES
#define AIF_MAX_RXQ (AIF_MAX_SWITCHES * AIF_MAX_PORTS < UINT16_MAX \
			 ? AIF_MAX_SWITCHES * AIF_MAX_PORTS : UINT16_MAX)
_Static_assert(AIF_MAX_RXQ <= UINT16_MAX, "AIF_MAX_RXQ: queue indices are uint16_t");

/* A drive's RX queues are the bits of a 64-bit word (runner.c). */
_Static_assert(AIF_MAX_PORTS <= 64, "AIF_MAX_PORTS: a drive's queues fit a uint64_t");

struct aif_rxq {
	uint16_t drive;  /* which of the runner's switches */
	uint16_t port;   /* switch port index */
	uint16_t queue;  /* the port's RX queue */
};

/* A switch the runner drives, and its shard of it. */
struct aif_drive {
	struct aif_switch *sw;
	struct aif_shard *sh;
};

struct aif_runner {
	uint16_t id;
	struct aif_switch *sw;        /* the first switch it drives (drive[0]) */
	struct aif_shard *sh;         /* its shard of sw */
	const struct aif_clock *clock; /* read once per received burst, or NULL */
	struct aif_clock_pace pace;   /* real time: the emulation's time (set_pace) */
	bool held_yields;             /* held long, give the core (set_pace_hold) */
	uint64_t steps;
	uint16_t n_drive;
	uint16_t n_rxq;
	uint16_t cap_drive;           /* room in the per-drive arrays */
	uint16_t cap_rxq;             /* room in the per-queue arrays */
	/* per drive [cap_drive] (one allocation) */
	struct aif_drive *drive;
	/* rxq indices by drive (built when first needed after an add): the
	 * drive's k-th queue, k counted from drive_rxq_first[d], is
	 * rxq[rxq_by_drive[k]], and rxq_pos[i] is the k of rxq[i] */
	uint16_t *drive_rxq_first;    /* [cap_drive + 1] */
	/* bit j: the drive's queue first + j is stale (ask again) */
	uint64_t *drive_stale;        /* (AIF_MAX_PORTS queues) */
	/* per drive [n_rxt], slot j its queue first + j: when its next frame
	 * arrives, as last asked (step_drive polls only those due) */
	struct aif_mintree *drive_rxt;
	uint16_t n_rxt;
	/* per drive [n_rxt * AIF_MAX_PORTS]: port p's queues, as bits j */
	uint64_t *drive_port_q;
	/* per queue [cap_rxq] (one allocation) */
	struct aif_rxq *rxq;
	uint16_t *rxq_by_drive;
	uint16_t *rxq_pos;
	uint8_t by_drive_ok;
	/* drives that must step in one time order (aif_runner_tie): a
	 * union-find over them [cap_tie], or NULL (none tied) */
	uint16_t *tie_up;
	uint16_t cap_tie;
	uint8_t tie_nomem;            /* a tie was lost for memory: no windows */
	struct aif_runner_ev *ev;     /* as an event source (aif_runner_source) */
};

/* The runner of shard id of sw (registers it with the switch's RCU
 * variable; seeds the shard's random source).  NULL on failure. */
struct aif_runner *aif_runner_create(struct aif_switch *sw, uint16_t id,
				     uint64_t seed);
/* Before the switches are freed. */
void aif_runner_free(struct aif_runner *w);
/* Drive shard id of sw too (seeded from seed); returns its drive index, or
 * -1 (AIF_RUNNER_MAX_SWITCHES already, out of memory, no such shard, RCU
 * registration failed).  Call before the runner runs. */
int aif_runner_add_switch(struct aif_runner *w, struct aif_switch *sw, uint16_t id,
			  uint64_t seed);
/* Poll queue of port port of the first switch / of drive d (call before
 * the runner runs); at most AIF_MAX_PORTS queues per drive; -1 past that,
 * or out of memory. */
int aif_runner_add_rxq(struct aif_runner *w, uint16_t port, uint16_t queue);
int aif_runner_add_rxq_of(struct aif_runner *w, uint16_t d, uint16_t port, uint16_t queue);
/* The clock that stamps received bursts (call before the runner runs; it is
 * read, never advanced, by the runner). */
void aif_runner_set_clock(struct aif_runner *w, const struct aif_clock *clock);

/*
 * Real time: pace the emulation (see Real time, paced, above) by quantum_ns
 * per step, from start_ns on (the real time the hosts' jobs count from:
 * the runner's first step is paced from there, a late launch becomes lag;
 * clock.h), sharing the lag with the other runners through *shared_ns (or
 * NULL for a runner alone; zeroed by the caller); quantum_ns 0: steps run
 * at the time they are given.  Call before the runner runs.
 */
void aif_runner_set_pace(struct aif_runner *w, aif_time_ns quantum_ns, aif_time_ns start_ns,
			 aif_time_ns *shared_ns);
/* Real time, paced, several runners joined by links: each step held to
 * the slowest other runner's emulated time plus lookahead_ns (> 0), the
 * shortest delay of a link between two of them (clock.h,
 * aif_clock_pace_hold); peers[n] every runner's published time, peers[self]
 * this one's.  shares_core: another runner may run on this one's core; a
 * runner held for many steps in a row then yields it (the one it waits
 * for may be waiting for the core), where one alone on its core keeps it
 * (yielding would hand it to another process for a time slice).  After
 * aif_runner_set_pace, before the runner runs. */
void aif_runner_set_pace_hold(struct aif_runner *w, struct aif_clock_peer *peers, unsigned n,
			      unsigned self, aif_time_ns lookahead_ns, bool shares_core);
/* The quantum the runner's emulated ports need: 3840 bit times (the
 * headroom's response term) at the fastest of them, at least 1 ns;
 * AIF_TIME_NS_NEVER when it drives none (DPDK ports only: nothing to pace). */
aif_time_ns aif_runner_pace_quantum_ns(const struct aif_runner *w);

/* One iteration; returns the number of packets received.  Paced: now_ns is
 * real time, and the step runs at w->pace.now_ns. */
unsigned aif_runner_step(struct aif_runner *w, aif_time_ns now_ns);

/*
 * Next events: when, at or after now_ns, the runner next has work of its
 * own (a frame arriving on an emulated link, a queue's packet allowed to
 * leave, a pause ending, a PFC refresh, the watchdog, the adaptive
 * bands); AIF_TIME_NS_NEVER when nothing is due.  Frames from ports that
 * cannot say when theirs come (NICs) are the caller's to know.  A loop in
 * virtual time steps at exactly these times:
 *	while ((t = aif_runner_next_event_ns(w, now)) <= end)
 *		aif_runner_step(w, now = t);
 * Call after a step.
 */
aif_time_ns aif_runner_next_event_ns(struct aif_runner *w, aif_time_ns now_ns);

/*
 * The runner as an event source of a loop (evloop.h), an AIF_EV_WORK one.
 * In virtual time (no clock of its own: aif_runner_set_clock not called)
 * it is stepped one switch at a time: each switch keeps its next event,
 * and after a step only that switch and the switches at the far ends of
 * the links it sent on are asked again (what it sent may arrive there
 * sooner): a step costs the ports of one switch, not of the fabric.
 *
 * Which switch steps next: the runner's own windows, as several runners
 * have theirs (windows.h).  Its switches fall into groups: those joined by
 * a link without delay, and those tied (aif_runner_tie: virtual hosts that
 * hand each other work without a packet).  With L the shortest delay of a
 * link between two groups, nothing a group does at or after T reaches
 * another before T + L; so from T, the earliest next event, each group in
 * turn (in drive order) runs its events before T + L, in time order (the
 * first in drive order on a tie), with its switches' state in the cache
 * through its share of the window rather than interleaved with every
 * other switch's.  What each switch sees, and in what order, is what one
 * time order over all of them gives it, so the results are the same byte
 * for byte (the hosts run: 4x fewer L1 misses).  A window is run whole
 * once begun; none reaches past the loop's next other event.  Where a
 * group has more than AIF_RUNNER_GROUP_MAX switches, the earliest switch
 * of all is stepped each time instead, from a min tree.
 *
 * In real time (a clock: NICs cannot say when their frames come, and the
 * paced emulation moves by quanta) its next event is always now and an
 * event is a whole step.
 *
 *	aif_evloop_add(&loop, aif_runner_source(w));
 *
 * NULL when out of memory; built once, after the switches, queues and ties
 * were added; freed with the runner.
 */
struct aif_ev_source *aif_runner_source(struct aif_runner *w);
/* Drives a and b step in one time order (a virtual host on one hands one
 * on the other work without a packet).  Before aif_runner_source. */
void aif_runner_tie(struct aif_runner *w, uint16_t a, uint16_t b);
#define AIF_RUNNER_GROUP_MAX 16 /* a group's switches, scanned at each event */
/*
 * Virtual time, a runner in windows (its groups no larger than
 * AIF_RUNNER_GROUP_MAX): fn(arg, d, t) for each drive d at times of its own
 * (first_ns, then what fn returns, later each time; AIF_TIME_NS_NEVER: no
 * more), each in its place in d's time order: after d's events before t,
 * before those at t and later -- what a periodic source of the loop that
 * reads every switch at once does (a queue monitor), without cutting every
 * drive's windows at each of its times.  A time with nothing of d's after
 * it waits for aif_runner_drive_ticks_until, at the end: every drive's
 * times at or before until_ns (a time by which all their events before it
 * have run), and the latest done so far (0: none).  After
 * aif_runner_source; 0, or -1 (no windows, real time, out of memory: the
 * caller keeps its source).
 */
int aif_runner_drive_ticks(struct aif_runner *w, aif_time_ns first_ns,
			   aif_time_ns (*fn)(void *arg, uint16_t d, aif_time_ns t), void *arg);
aif_time_ns aif_runner_drive_ticks_until(struct aif_runner *w, aif_time_ns until_ns);
/* Packets its switches received in the source's events. */
uint64_t aif_runner_source_packets(const struct aif_runner *w);
/* RX queue rxq may have its next frame sooner than the runner knows: its
 * port was given work from outside its own calls (a virtual host woken by
 * another's callback, rhost.h waker); asked again after the current event. */
void aif_runner_wake(struct aif_runner *w, uint16_t rxq);

/*
 * Virtual time, several runners that each drive a part of a fabric
 * (windows.h).  The links between parts are the cut: their delay lines are
 * the rings between runners (link.h: one producer, one consumer).
 * aif_runner_absorb: what other runners put on the links into this
 * runner's switches, up to now, brings those switches' next events as
 * close as it does when the sender is this runner (source_fire) -- called
 * at a window's start, before the runner's events.
 * aif_runner_sent_across: the earliest arrival, at another runner's
 * switch, of the frames this runner sent since it last asked
 * (AIF_TIME_NS_NEVER: none) -- called at a window's end.
 * aif_runner_cut_links: how many of its ports send to another runner.
 * After aif_runner_source.
 */
void aif_runner_absorb(struct aif_runner *w, aif_time_ns now_ns);
aif_time_ns aif_runner_sent_across(struct aif_runner *w);
uint32_t aif_runner_cut_links(const struct aif_runner *w);

/* One switch's step alone (drive d: its RX queues, its egress, its TX
 * buffers); a step of every drive at now_ns, in drive order, is what
 * aif_runner_step does. */
unsigned aif_runner_step_drive(struct aif_runner *w, uint16_t d, aif_time_ns now_ns);

/* Run one burst received on port in_port of the first switch at now_ns
 * and move its packets (the step does it for every burst; a test may hand
 * it made-up mbufs). */
void aif_runner_process(struct aif_runner *w, uint16_t in_port,
			struct rte_mbuf **pkts, uint16_t n, aif_time_ns now_ns);

#endif /* AIF_RUNNER_H */
