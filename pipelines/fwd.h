/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the forwarding stages share: their context and their verdicts.
 *
 * Stages do not send.  For each packet of a burst they fill a verdict
 * (VPP's next[], Click's output ports): where it goes next, which port,
 * or why it is dropped; the runtime (dataplane/runner.c) then moves the
 * packets: routed ones to the egress port's queues (or its TX buffer when
 * QoS is off), the switch's own answers straight to the port, PAUSE/PFC
 * frames to the port's pause state, drops to the bin (through a capture
 * that wants to see them).  Frames a stage builds itself (ARP requests,
 * neighbour solicitations, ICMP time exceeded) are listed beside the
 * verdicts.
 *
 * struct aif_fwd is one shard's forwarding context: what the stages read
 * (the neighbour table, the links that are up) and the state they keep
 * (random source, load-balancing state, rate limits, counters).  The
 * runtime owns it and wires it up; a stage sees nothing else of the switch.
 * Time is an argument of every stage (now_ns), never read from a clock.
 */
#ifndef AIF_FWD_H
#define AIF_FWD_H

#include <stdint.h>

#include "../dataplane/capacity.h"
#include "../dataplane/counters.h"
#include "../dataplane/drop.h"
#include "../dataplane/pkt.h"
#include "../dataplane/rng.h"
#include "../dataplane/types.h"

struct rte_mbuf;
struct rte_mempool;
struct rte_ring;
struct aif_neigh;
struct aif_trace;
struct aif_lb_state;

#define AIF_ARP_RL_BUCKETS 256
#define AIF_ARP_RL_NS (100 * AIF_NS_PER_MS) /* ARP/NS requests per bucket */

/* Where a packet goes after the stages. */
enum aif_next {
	AIF_NEXT_DROP = 0,   /* counted by the stage on the ingress port; freed */
	AIF_NEXT_ROUTE,      /* routed: the egress port's queues (TX when QoS is off) */
	AIF_NEXT_REPLY,      /* the switch's own answer: straight to the port's TX */
	AIF_NEXT_MAC_CTRL,   /* PAUSE/PFC received: for the port's pause state */
	AIF_NEXT_CONSUMED,   /* read by the switch (ARP, ND): freed, not a drop */
};

/* The verdicts of one burst (indexed like the burst), and the frames the
 * stages built.  The caller provides it; the stages fill it. */
struct aif_fwd_out {
	uint8_t next[AIF_BURST];    /* enum aif_next */
	uint8_t reason[AIF_BURST];  /* AIF_NEXT_DROP: enum aif_drop_reason */
	uint16_t port[AIF_BURST];   /* ROUTE, REPLY: the egress port */
	struct aif_pkt meta[AIF_BURST]; /* what the stages found (egress QoS reads it) */
	uint16_t n_built;           /* at most one per packet of the burst */
	uint16_t built_port[AIF_BURST];
	struct rte_mbuf *built[AIF_BURST];
};

/* One shard's forwarding context (see above). */
#define AIF_FWD_CACHE4_BITS 10 /* the IPv4 caches below: 2^bits entries each */
#define AIF_FWD_RC4_SIZE (1u << AIF_FWD_CACHE4_BITS)
#define AIF_FWD_RC4_WAYS 4 /* the route cache's entries a set (a line) */
#define AIF_FWD_NC4_SIZE (1u << AIF_FWD_CACHE4_BITS)

struct aif_fwd {
	uint16_t shard;                  /* which shard of the switch: trace records */
	uint64_t link_up;                /* bit p: port p's link is up (per step) */
	const struct aif_neigh *neigh;   /* the switch's neighbour table */
	struct rte_ring *learn_ring;     /* ARP/ND senders for control (MP) */
	struct rte_ring *bfd_rx;         /* BFD packets heard, for control (MP; NULL
					  * until a session runs: switch.h) */
	struct rte_mempool *pool;        /* for the frames the stages build */
	struct aif_trace *trace;         /* the switch's path trace, or NULL */
	struct aif_port_ctr *port_ctr;   /* [AIF_MAX_PORTS], this shard's */
	struct aif_member_ctr *member_ctr; /* [AIF_MAX_MEMBER_SLOTS], this shard's */
	struct aif_lb_state *lb;         /* load-balancing state (lb.h) */
	const uint32_t *port_qbytes;     /* bytes queued per egress port now */
	const uint32_t (*port_tc_qbytes)[8]; /* ... per port and traffic class */
	struct aif_rng rng;
	aif_time_ns arp_req_ns[AIF_ARP_RL_BUCKETS];  /* solicitation rate limit */
	aif_time_ns learn_tat_ns[AIF_MAX_PORTS];     /* learn rate limit */
	aif_time_ns icmp_tat_ns[AIF_MAX_PORTS];      /* ICMP error rate limit */
	/* IPv4 route cache for compact route tables (pipeline.c): the next
	 * hop of a destination, under the tables' generation, in sets of
	 * AIF_FWD_RC4_WAYS a cache line each (with one way, the 128 hosts'
	 * addresses of the traffic fabric collided in 1,024 slots: 15% of its
	 * lookups missed) */
	struct aif_fwd_rc4_set {
		uint64_t gen;                  /* the tables its entries hold for */
		uint64_t nh[AIF_FWD_RC4_WAYS];
		uint32_t ip[AIF_FWD_RC4_WAYS];
		uint8_t n;                     /* ways in use */
		uint8_t victim;                /* the way a miss takes when all are */
	} rc4[AIF_FWD_RC4_SIZE / AIF_FWD_RC4_WAYS] __attribute__((aligned(64)));
	/* IPv4 neighbour cache for connected destinations (pipeline.c): the
	 * slot of an address, under the neighbour table's generation */
	struct {
		uint64_t gen;
		uint32_t ip;
		uint32_t slot;
	} nc4[AIF_FWD_NC4_SIZE];
};

/* Verdict helpers, per packet: inline. */
static inline void
aif_fwd_drop(struct aif_fwd *f, struct aif_fwd_out *o, uint16_t i, uint16_t in_port,
	     enum aif_drop_reason r)
{
	f->port_ctr[in_port].drops[r]++;
	o->next[i] = AIF_NEXT_DROP;
	o->reason[i] = (uint8_t)r;
}

static inline void
aif_fwd_to(struct aif_fwd_out *o, uint16_t i, enum aif_next next, uint16_t port)
{
	o->next[i] = (uint8_t)next;
	o->port[i] = port;
}

/* A frame a stage built, to leave by port (the runtime sends it). */
static inline void
aif_fwd_built(struct aif_fwd_out *o, struct rte_mbuf *mb, uint16_t port)
{
	o->built_port[o->n_built] = port;
	o->built[o->n_built++] = mb;
}

#endif /* AIF_FWD_H */
