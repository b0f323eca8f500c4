/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: load balancing, and the seam every scheme plugs into.
 *
 * A scheme is one function that picks a member of a next-hop group for one
 * packet: aif_lb_select_fn.  It is given the group and its members (from the
 * immutable tables, with the group's resilient bucket table), the packet
 * metadata with pkt->hash already computed, and a context: the worker's own
 * mutable load-balancing state (flowlet table, round-robin positions,
 * quality bands), the switch's load-balancing params, the bytes queued on
 * every egress port now, the worker's random source and now_ns.  Adding a
 * scheme is one file in pipelines/ plus one line in aif_lb_schemes (lb.c);
 * schemes loaded at run time as eBPF programs are one more, "bpf"
 * (lb_prog.h).
 *
 * Reads:  pkt->hash; the group; the context.
 * Writes: the worker's aif_lb_state only (never the tables).
 * Counters (per member counter slot, in aif_lb_state): flowlet starts,
 * reselections (a flow moved to another member), flowlet collisions (a flow
 * shared another flow's open flowlet on that member); control sums them
 * over workers, and over a group's members for the group's figure.
 *
 * Schemes (params in dataplane/params.h, struct aif_lb_params):
 *   ecmp, wcmp  member = buckets[hash -> bucket]: a resilient table of
 *               buckets_per_member buckets per member (WCMP: in proportion to
 *               weights); removing a member moves only its own buckets.
 *   flowlet     a flow keeps its member while its packets come closer than
 *               gap_ns apart; after a longer gap a new flowlet picks a member
 *               uniformly at random (LetFlow) or the least-loaded one.
 *   spray       per packet: round robin, random, or DRILL (d random samples
 *               plus the previous best, fewest queued bytes).
 *   adaptive    every member gets a quality band 0..7 from its port's recent
 *               transmitted load (EWMA) and queued bytes, refreshed every
 *               period_ns; the best band wins, per packet or per flowlet.
 *   bpf         a program loaded at run time (lb_prog.h) returns the member.
 */
#ifndef AIF_LB_H
#define AIF_LB_H

#include <stdbool.h>
#include <stdint.h>

#include "../dataplane/capacity.h"
#include "../dataplane/params.h"
#include "../dataplane/pkt.h"
#include "../dataplane/rng.h"
#include "../dataplane/tables.h"
#include "../dataplane/types.h"
#include "../include/aifabric/lb_prog.h"

#define AIF_FLOWLET_MAX AIF_FLOWLET_TABLE_MAX /* flowlet table entries per worker */

/* One entry of the flowlet table (lb_flowlet.c says how it is used). */
struct aif_flowlet_entry {
	uint32_t key;           /* owner: flow hash | 1 of the flow that started
				 * the entry's flowlet; 0 = empty */
	uint16_t group;         /* owner's group index */
	uint8_t member;         /* member offset the entry's flowlet is on */
	uint8_t guests;         /* other flows sharing this flowlet, one bit
				 * each: 1 << (hash >> 29) */
	aif_time_ns last_ns;    /* last packet of any flow on the entry */
	uint32_t tag;           /* table "exact": the owner's 5-tuple and QP,
				 * hashed apart from key (aif_lb_flow_tag) */
};

/* Table "exact": how many entries from a flow's own one it may be found in
 * (linear probing); a flow that finds none of them free is not tracked. */
#define AIF_FLOWLET_PROBES 16

/* DRILL's remembered best per destination address (lb_spray.c). */
#define AIF_DRILL_DST_MAX 4096 /* entries, a power of two */
struct aif_drill_dst {
	uint8_t addr[16];       /* the destination (IPv4 in the first 4 bytes) */
	uint16_t group;         /* of the remembered member */
	uint8_t member;         /* member offset */
	uint8_t used;           /* 0: empty */
};

/* Per worker, mutable, owned by the worker; control only reads counters. */
struct aif_lb_state {
	uint32_t rr[AIF_MAX_GROUPS];         /* spray: next member offset */
	uint8_t drill_best[AIF_MAX_GROUPS];  /* spray DRILL: previous best offset */
	struct aif_drill_dst drill_dst[AIF_DRILL_DST_MAX]; /* memory "destination" */
	/* adaptive */
	aif_time_ns next_band_ns;            /* next refresh of band[] */
	aif_time_ns last_band_ns;            /* last refresh (rate interval start) */
	uint64_t last_tx_bytes[AIF_MAX_PORTS];
	uint64_t load_ewma_bps[AIF_MAX_PORTS];
	uint8_t band[AIF_MAX_PORTS];         /* 0 best .. 7 worst */
	/* counters, per member counter slot (stable across reloads; a group's
	 * figure is the sum over its members) */
	uint64_t flowlet_starts[AIF_MAX_MEMBER_SLOTS];
	uint64_t reselections[AIF_MAX_MEMBER_SLOTS];
	uint64_t flowlet_collisions[AIF_MAX_MEMBER_SLOTS]; /* by the shared member */
	uint64_t flowlet_untracked[AIF_MAX_MEMBER_SLOTS]; /* table "exact" full:
				 * packets sent by flow hash, no flowlet kept */
	aif_time_ns untracked_ns; /* the last such packet, + 1 (0: none yet) */
	/* [AIF_FLOWLET_MAX] (1 MiB), NULL until the switch's tables first use
	 * a flowlet scheme: control allocates it then, before it publishes
	 * those tables (release), and never frees it before the shard, so a
	 * worker that sees such tables sees the table; the worker writes the
	 * entries, never the pointer (aif_lb_flowlet_table) */
	struct aif_flowlet_entry *flowlet;
	/* load-balancing programs: the context, its group part filled for
	 * (generation, group, program, time) and reused while they hold */
	uint64_t prog_ctx_gen;
	aif_time_ns prog_ctx_ns;
	uint16_t prog_ctx_group;
	uint8_t prog_ctx_prog;
	struct aif_lb_prog_ctx prog_ctx;
};

/* Control: give st its flowlet table if it has none (see flowlet above);
 * 0, or -1 out of memory. */
int aif_lb_flowlet_table(struct aif_lb_state *st);
/* Control: free st's flowlet table (with the shard). */
void aif_lb_flowlet_table_free(struct aif_lb_state *st);
/* Do tables with these params run the flowlet table in some class? */
bool aif_lb_uses_flowlet(const struct aif_lb_params *p);

struct aif_lb_ctx {
	struct aif_lb_state *st;
	const struct aif_lb_params *p;       /* the switch's (from the tables) */
	const uint32_t *port_qbytes;         /* bytes queued per egress port now */
	const uint32_t (*port_tc_qbytes)[8]; /* ... per port and traffic class (NULL:
					      * none; programs only) */
	struct aif_rng *rng;
	aif_time_ns now_ns;
	uint16_t group;                      /* index of g in the tables */
	uint16_t shard;                      /* the worker's shard (programs' state) */
	const struct aif_tables *t;          /* (programs: lb_progs) */
};

/* Returns the member offset in [0, g->n). */
typedef uint32_t (*aif_lb_select_fn)(const struct aif_group *g,
				     const struct aif_member *members,
				     const uint8_t *buckets,
				     const struct aif_pkt *m,
				     struct aif_lb_ctx *x);

struct aif_lb_scheme_ops {
	const char *name;       /* as in the policy file */
	aif_lb_select_fn select;
};

/* Indexed by enum aif_lb_scheme. */
extern const struct aif_lb_scheme_ops aif_lb_schemes[];
extern const unsigned aif_lb_n_schemes;

/* hash -> [0, n) by multiply-shift (no modulo bias worth the name). */
static inline uint32_t
aif_lb_ecmp_pick(uint32_t hash, uint32_t n)
{
	return (uint32_t)(((uint64_t)hash * n) >> 32);
}

/*
 * The members a scheme may choose from: those whose link is up
 * (struct aif_group up_mask/up[]), or all of them when none is.
 * aif_lb_up_n(g) of them; the i-th is member offset aif_lb_up_at(g, i).
 */
static inline uint32_t
aif_lb_up_n(const struct aif_group *g)
{
	return g->n_up ? g->n_up : g->n;
}

static inline uint32_t
aif_lb_up_at(const struct aif_group *g, uint32_t i)
{
	return g->n_up ? g->up[i] : i;
}

/* May a scheme keep a flow on member offset off (< g->n)? */
static inline bool
aif_lb_member_up(const struct aif_group *g, uint32_t off)
{
	return g->n_up == 0 || ((g->up_mask >> off) & 1);
}

/* ECMP and WCMP: the group's resilient bucket table (g->n_buckets entries). */
static inline uint32_t
aif_lb_bucket_pick(const struct aif_group *g, const uint8_t *buckets, uint32_t hash)
{
	return buckets[aif_lb_ecmp_pick(hash, g->n_buckets)];
}

uint32_t aif_lb_ecmp_select(const struct aif_group *g, const struct aif_member *members,
			    const uint8_t *buckets, const struct aif_pkt *m,
			    struct aif_lb_ctx *x);
uint32_t aif_lb_flowlet_select(const struct aif_group *g, const struct aif_member *members,
			       const uint8_t *buckets, const struct aif_pkt *m,
			       struct aif_lb_ctx *x);
uint32_t aif_lb_spray_select(const struct aif_group *g, const struct aif_member *members,
			     const uint8_t *buckets, const struct aif_pkt *m,
			     struct aif_lb_ctx *x);
uint32_t aif_lb_adaptive_select(const struct aif_group *g, const struct aif_member *members,
				const uint8_t *buckets, const struct aif_pkt *m,
				struct aif_lb_ctx *x);
/* A load-balancing program (lb_prog.c): the group's, else its class's. */
uint32_t aif_lb_prog_select(const struct aif_group *g, const struct aif_member *members,
			    const uint8_t *buckets, const struct aif_pkt *m,
			    struct aif_lb_ctx *x);

/* How a new flowlet picks its member: returns an offset in [0, g->n). */
typedef uint32_t (*aif_lb_pick_fn)(const struct aif_group *g,
				   const struct aif_member *members,
				   const struct aif_pkt *m, struct aif_lb_ctx *x);

/*
 * The flowlet table entry of a flow of group (table_size a power of two;
 * one that is not still stays inside the table, 0 uses all of it).  The
 * group index is mixed in (odd multiplier: distinct groups below table_size
 * differ in the low bits) so that one hash routed through two groups, e.g.
 * hash_fields without dst_ip, lands on two entries, not one shared entry.
 */
static inline uint32_t
aif_lb_flowlet_index(uint32_t hash, uint16_t group, uint32_t table_size)
{
	return (hash ^ ((uint32_t)group * 0x9E3779B9u)) & (table_size - 1) &
	       (AIF_FLOWLET_MAX - 1);
}

/*
 * Table "exact": a second hash of the flow's identity (addresses, protocol,
 * ports, RoCE destination QP), so that two flows share an entry only when
 * both 32-bit hashes agree.
 */
static inline uint32_t
aif_lb_flow_tag(const struct aif_pkt *m)
{
	uint64_t w[5], h = 0x6a09e667f3bcc909ull ^ m->l4_proto;

	__builtin_memcpy(w, m->src.b, 16);
	__builtin_memcpy(w + 2, m->dst.b, 16);
	w[4] = (uint64_t)m->src_port << 48 | (uint64_t)m->dst_port << 32 | m->dest_qp;
	for (unsigned i = 0; i < 5; i++) {
		h = (h ^ w[i]) * 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	return (uint32_t)(h >> 32);
}

/*
 * The flowlet table (lb_flowlet.c), shared by flowlet and adaptive-flowlet:
 * returns the member the packet's flowlet keeps, or, when the packet starts
 * a new flowlet, the one pick() chooses; updates the entry and the flowlet
 * counters.
 */
uint32_t aif_lb_flowlet_track(const struct aif_group *g, const struct aif_member *members,
			      const struct aif_pkt *m, struct aif_lb_ctx *x,
			      aif_lb_pick_fn pick);

/* Queued bytes -> band 0..7 (lb_adaptive.c has the table). */
uint8_t aif_lb_qbytes_band(uint32_t qbytes);

/*
 * Adaptive: refresh every port's quality band, once per adaptive_period_ns.
 * Call once per worker step, after port_qbytes is filled and before the
 * packets are processed, with this worker's cumulative bytes
 * sent per port (port_tx_bytes[p], monotonic), the bytes queued per port now,
 * each port's line rate in bit/s (0: unknown, load then ignored) and now_ns.
 * Does nothing while now_ns < st->next_band_ns.
 *
 *	aif_lb_adaptive_tick(w->lb, &t->lb, tx_bytes, w->port_qbytes,
 *			     speed_bps, t->n_ports, now_ns);
 */
void aif_lb_adaptive_tick(struct aif_lb_state *st, const struct aif_lb_params *p,
			  const uint64_t *port_tx_bytes, const uint32_t *port_qbytes,
			  const uint64_t *port_speed_bps, uint16_t n_ports,
			  aif_time_ns now_ns);

#endif /* AIF_LB_H */
