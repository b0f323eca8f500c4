/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An emulated link: two ends, each a port implementation (port.h), joined
 * by two directions with a rate and a propagation delay.
 *
 * A direction is a FIFO delay line: a frame handed to an end at now_ns
 * starts on the wire when the wire is free, takes its serialization time
 * at the link rate, and arrives at the other end delay_ns after its last
 * bit left:
 *	wire_bytes  = max(len, 60) + 4 (FCS) + 20 (preamble, SFD, gap)
 *	finish      = start + wire_bytes * 8 / rate     (kept in picoseconds)
 *	arrive_ns   = ceil(finish) + delay_ns
 * (len is the mbuf's pkt_len, without FCS.)  Under wire_model AIF_WIRE_NS3
 * (wire.h) wire_bytes is ns-3's instead: a RoCE data packet of L payload
 * bytes L + 36, an ACK, NAK or CNP 48, a PFC frame 31; the frame itself is
 * delivered as it was sent.  The end takes a frame only
 * when its wire is free at now_ns (horizon_ns 0) or will be within
 * horizon_ns: what it refuses is backpressure, left in the switch's egress
 * queues, never a drop.  MAC control frames (PFC) go by tx_ctrl: at the
 * next frame boundary, ahead of what the switch still holds, never refused.
 * The receiving end's rx_burst returns the frames that have arrived by
 * now_ns, in order.  Each direction is single producer (the runner of the
 * sending end) and single consumer (the runner of the receiving end): the
 * two ends may be driven by different runners.
 *
 * Next events: aif_link_rx_next_ns (the next arrival at an end) and the
 * ops' tx_ready_ns (when an end's wire is free) let a loop jump to them;
 * nothing here depends on how often it is called.
 *
 * Faults: with loss_rate a frame is lost on the way (it still takes its
 * wire time); with corrupt_rate one bit of its payload is flipped (past
 * the first 54 bytes, Ethernet + IPv4 + UDP + BTH, and before the last 4,
 * so that it is forwarded on and a RoCE receiver finds its ICRC wrong: a
 * corruption the link's FCS does not catch, as in a switch's memory).  The
 * draws are a per-direction aif_rng (rng.h) seeded from seed: deterministic.
 * A link taken down (aif_link_set_up) loses the frames on its wire and
 * drops what it is handed until it comes up.
 *
 * Counters per direction (AIF_FOREACH_LINK_CTR): frames and bytes sent,
 * control frames, wire time busy (utilization = busy_ps / elapsed), frames
 * lost because the delay line was full (it is sized from the
 * bandwidth-delay product; only control frames, which are never refused,
 * can overflow it), lost and corrupted frames, frames lost to a link down.
 *
 *	struct aif_link *l = aif_link_create("leaf0-spine0", &(struct aif_link_params){
 *		.rate_bps = 100000000000ull, .delay_ns = 1000 });
 *	aif_link_attach(l, 0, &leaf0->ports[4]);
 *	aif_link_attach(l, 1, &spine0->ports[0]);
 */
#ifndef AIF_LINK_H
#define AIF_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "capacity.h"
#include "port.h"
#include "rng.h"
#include "types.h"
#include "wire.h"

struct rte_mbuf;

#define AIF_LINK_WIRE_OVERHEAD_BYTES 24 /* FCS 4 + preamble 7 + SFD 1 + gap 12 */
#define AIF_LINK_MIN_FRAME_BYTES 60     /* without FCS: shorter frames are padded */
#define AIF_LINK_RATE_MAX_BPS 1600000000000ull
#define AIF_LINK_DELAY_MAX_NS (10 * AIF_NS_PER_MS)

struct aif_link_params {
	uint64_t rate_bps;     /* 1 .. AIF_LINK_RATE_MAX_BPS */
	aif_time_ns delay_ns;  /* propagation, 0 .. AIF_LINK_DELAY_MAX_NS */
	aif_time_ns horizon_ns; /* frames taken ahead of the wire; 0: exact */
	double loss_rate;      /* 0..1: a frame is lost on the way */
	double corrupt_rate;   /* 0..1: a frame has one payload bit flipped */
	uint64_t seed;         /* of the loss and corruption draws */
	uint8_t wire_model;    /* enum aif_wire_model: what a frame costs on the
				* wire (default AIF_WIRE_ETHERNET) */
};

#define AIF_FOREACH_LINK_CTR(_)                                               \
	_(tx_packets, "frames put on the wire")                               \
	_(tx_bytes, "their bytes (pkt_len, without FCS)")                     \
	_(tx_ctrl, "of those, MAC control frames (PFC)")                      \
	_(busy_ps, "wire time used, picoseconds")                             \
	_(refused, "frames the end refused: wire busy (backpressure)")        \
	_(lost_full, "frames lost: delay line full")                          \
	_(lost_random, "frames lost on the way (loss_rate)")                  \
	_(corrupted, "frames delivered with a payload bit flipped (corrupt_rate)") \
	_(lost_down, "frames on the wire when the link went down")            \
	_(dropped_down, "frames handed to the link while it was down")

struct aif_link_ctr {
#define AIF_LINK_CTR_FIELD(name, text) uint64_t name;
	AIF_FOREACH_LINK_CTR(AIF_LINK_CTR_FIELD)
#undef AIF_LINK_CTR_FIELD
};

struct aif_link_slot {
	struct rte_mbuf *m;
	aif_time_ns start_ns;  /* its first bit left (rounded down) */
	aif_time_ns arrive_ns;
};

/* One direction: written by its sender (tail, wire state, counters) and
 * its receiver (head), each on its own cache lines.  When the two ends are
 * on different runners (threads), each side reads the other's index only
 * when its own copy runs out: the sender the head when the line looks full
 * (never, sized from the bandwidth-delay product), the receiver the tail
 * when it has delivered every frame it knew of; arrivals only grow along
 * the line, so a frame it did not know of yet is never due before one it
 * knew.  The line's shared cache line then moves between the cores about
 * once a drain instead of twice a frame. */
struct aif_link_dir {
	uint64_t busy_until_ps;      /* the wire is free from then on */
	struct aif_rng rng;          /* loss and corruption draws (sender) */
	uint32_t tail;               /* next slot to fill (sender) */
	uint32_t head_seen;          /* head as the sender last read it */
	uint32_t smask;              /* mask and slot, the sender's copies */
	struct aif_link_slot *sslot;
	struct aif_link_ctr ctr;
	uint32_t head __rte_cache_aligned; /* next slot to deliver (receiver) */
	uint32_t tail_seen;          /* tail as the receiver last read it */
	uint32_t mask;               /* slots - 1 */
	struct aif_link_slot *slot;
};

/* One end: what a port bound to the link has in its ctx. */
struct aif_link_end {
	struct aif_link *link;
	uint8_t side;                /* 0 or 1: sends on dir[side] */
	struct aif_port *port;       /* the port attached (NULL: none yet) */
};

/* A link's name: "switch:port-switch:port", four names of a config (each
 * under AIF_NAME_MAX) and three separators. */
#define AIF_LINK_NAME_MAX (4 * AIF_NAME_MAX)

struct aif_link {
	struct aif_link_params p;
	/* written by control (aif_link_set_up, aif_link_set_faults): */
	uint8_t up;                  /* 0: down: frames handed to it are dropped */
	aif_time_ns down_ns;         /* it last went down then: frames on the wire
				      * at that moment are lost */
	uint64_t loss_thresh, corrupt_thresh; /* the rates, as 2^64 fractions */
	struct aif_link_end end[2];
	struct aif_link_dir dir[2];  /* dir[0]: end 0 -> end 1 */
	bool own_rings;              /* dir[].slot its own (DPDK's heap), else the
				      * caller's (aif_link_create_at) */
	char name[AIF_LINK_NAME_MAX]; /* (last: no frame reads it) */
};

/* The port implementation of a link end. */
extern const struct aif_port_ops aif_port_link_ops;

/* A link (both directions idle); NULL with err on bad params, a name of
 * AIF_LINK_NAME_MAX characters or more, or no memory. */
struct aif_link *aif_link_create(const char *name, const struct aif_link_params *p,
				 char *err, size_t err_len);
/* The same with its two rings at rings, aif_link_rings_bytes(p) bytes on
 * a cache line, the caller's (to free after aif_link_free; they need not
 * be zeroed: a slot is read once written).  A fabric's links' rings in
 * one mapping of its own cost only the pages their traffic reaches, where
 * rings in DPDK's heap on 4 KiB pages are mostly touched by the heap's
 * own element headers between them (control/fabric.c). */
struct aif_link *aif_link_create_at(const char *name, const struct aif_link_params *p,
				    void *rings, char *err, size_t err_len);
/* The bytes of a link's two rings (as many frames in flight as its delay
 * holds, each direction), on cache lines; 0 for parameters it refuses. */
size_t aif_link_rings_bytes(const struct aif_link_params *p);
/* The DPDK memory aif_link_create takes for a link of p (its rings and
 * itself), in bytes. */
size_t aif_link_mem_bytes(const struct aif_link_params *p);
/* Frees the link and the frames still on it. */
void aif_link_free(struct aif_link *l);
/* At the process's end: the frames on the wire back to their pools, the
 * link's memory left to the exit (DPDK clears what it frees: a k=28
 * fat-tree's 21,952 slot rings, most never touched, cost 220 MB of
 * resident memory and 0.2 s to give back). */
void aif_link_free_at_exit(struct aif_link *l);
/* Make port an end of l (side 0 or 1): its ops become the link end's. */
void aif_link_attach(struct aif_link *l, uint8_t side, struct aif_port *port);
/* Is port p a link's end?  The port at the other end of its link (NULL:
 * p is no link end, or nothing is attached there); when the next frame
 * arrives there, AIF_TIME_NS_NEVER if none is on the way (a runner asks
 * after p sent: only the far end can have an arrival closer than before;
 * only the runner that also drives the far end, aif_link_rx_next_ns). */
bool aif_link_is_end(const struct aif_port *p);
struct aif_port *aif_link_peer(const struct aif_port *p);
aif_time_ns aif_link_peer_rx_next_ns(const struct aif_port *p);
/* The propagation delay of link end p's link (aif_link_is_end(p)). */
aif_time_ns aif_link_delay_ns(const struct aif_port *p);
/* The sender's side of port p's link, for a runner that sends to another
 * runner's switch (windows.h): frames p has put on its wire so far (a
 * count that wraps), and when the first one put since count *mark arrives
 * at the far end (AIF_TIME_NS_NEVER: none since), *mark then moved on.
 * Only the runner that sends on p may ask: the slots it reads are its own
 * until they arrive, and they arrive no sooner than the link's delay. */
uint32_t aif_link_sent_mark(const struct aif_port *p);
aif_time_ns aif_link_sent_since(const struct aif_port *p, uint32_t *mark);

/*
 * A direction whose two ends are driven by different processes (windows.h,
 * control/ranks.h): the sender's process takes off its line what its end
 * put on it (aif_link_take: the oldest slot, 1; 0 when none), which then
 * travels as bytes; the receiver's process puts each such frame on its own
 * copy of the line, in the order it was sent (aif_link_put_arrival: 0, or
 * -1 when the line is full: the frame is freed and counted lost_full).
 * Either only between windows, on the process's coordinating thread.
 */
int aif_link_take(struct aif_link *l, uint8_t side, struct aif_link_slot *out);
int aif_link_put_arrival(struct aif_link *l, uint8_t side, const struct aif_link_slot *s);

/* Picoseconds in a nanosecond: wires keep their time in ps (serialisation
 * at 100G is not a whole number of ns). */
#define AIF_PS_PER_NS 1000ull

/*
 * When a frame handed over at now_ps starts on a wire busy until
 * busy_until_ps: back to back with the last frame if that ended less than a
 * nanosecond ago (a loop steps at whole nanoseconds, the ceiling of when the
 * wire is free), else now.  Every wire uses it: the emulated link, the pcap
 * port and the virtual host's NIC.
 */
static inline uint64_t
aif_link_start_ps(uint64_t busy_until_ps, uint64_t now_ps)
{
	return busy_until_ps + AIF_PS_PER_NS > now_ps ? busy_until_ps : now_ps;
}

/* Bytes on the wire for a frame of pkt_len bytes (without FCS). */
static inline uint32_t
aif_link_wire_bytes(uint32_t pkt_len)
{
	return RTE_MAX(pkt_len, (uint32_t)AIF_LINK_MIN_FRAME_BYTES) +
	       AIF_LINK_WIRE_OVERHEAD_BYTES;
}

/* Bytes on the wire for frame m under the link's wire model. */
uint32_t aif_link_frame_wire_bytes(const struct aif_link *l, const struct rte_mbuf *m);

/* When the next frame arrives at end side (AIF_TIME_NS_NEVER: none on the
 * way).  Asked by that end's runner (or between windows): it may update the
 * receiver's copy of the tail (struct aif_link_dir). */
aif_time_ns aif_link_rx_next_ns(struct aif_link *l, uint8_t side);

/*
 * Control: take the link down at now_ns (frames on its wire then are lost,
 * counted lost_down when they would have arrived; frames handed to it
 * while down are dropped, dropped_down) or bring it up.  The ends' ports'
 * link_up follow; control rebuilds the tables so that group members leave
 * and rejoin (commands.h aif_ctl_link_set does both).
 */
void aif_link_set_up(struct aif_link *l, int up, aif_time_ns now_ns);
/* Control: the loss and corruption rates (0..1; -1 leaves one as it is). */
void aif_link_set_faults(struct aif_link *l, double loss_rate, double corrupt_rate);

#endif /* AIF_LINK_H */
