/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour table: IP -> (MAC, port) for one switch.
 *
 * Publication protocol.  Unlike the route tables (rebuilt and swapped whole,
 * see tables.h), neighbours change one at a time as ARP/ND replies arrive, so
 * this table is shared and updated in place, with exactly one writer: the
 * control thread.  Workers only read.
 *   - Every neighbour owns a slot.  A slot is one 64-bit word holding the MAC,
 *     the port, a stale bit and a valid bit, written with a single atomic
 *     store; a reader sees either the old or the new entry, never a torn one.
 *     Next hops in the route tables name their neighbour by slot and need no
 *     lookup per packet; those slots stay theirs while a published table
 *     names them (pinned).
 *   - Destinations on connected subnets are found by IP through the view's
 *     index: open addressing, linear probing, one 64-bit word an entry (the
 *     key's hash and its slot), written with a single atomic store: a
 *     reader probing while control adds or deletes sees each entry whole,
 *     old or new.  The key itself is the slot's (key[]), written before
 *     the entry that names it is published (release) and never while a
 *     worker may still hold that entry: a slot, and so its key, is taken
 *     again only after every worker has passed a quiescent state since it
 *     was freed (the switch's RCU QSBR variable).  A deleted entry leaves
 *     a tombstone, which a later add may take; the index is made again,
 *     as a new view, when entries and tombstones fill three quarters of
 *     it.  No DPDK memzone: a fabric's switches are not bounded by
 *     DPDK's count of them.
 *   - The table starts with AIF_NEIGH_CAP_MIN slots and doubles, up to the
 *     most it was created for, when an entry finds every slot taken (or in
 *     its grace period): control builds the larger slot array, bookkeeping
 *     and hash, copies what the table holds (every slot keeps its number),
 *     and publishes them as one view (release); a worker loads the view
 *     once a burst (aif_neigh_view) and reads only through it, and the old
 *     one is freed once every worker has passed a quiescent state.  A
 *     fabric's switch that knows a few dozen neighbours holds a few dozen
 *     KiB, not the 1.8 MiB of 8,192 slots.
 * Workers never write here: what they learn from ARP/ND goes to control
 * through the switch's learn ring (switch.h).
 *
 * Life of a learned entry (the times are the switch's "neighbor_learning"
 * parameters, struct aif_neigh_params):
 *   learned or refreshed (an ARP/ND from the host) -> reachable;
 *   reachable_s later without a refresh -> stale: still used, and a worker
 *     that forwards through it sends an ARP request / NS (at most one per
 *     100 ms per destination), whose answer refreshes it;
 *   stale_s later still without one -> removed, unless a group names it as
 *     a next hop (then it stays, stale, until answered or unconfigured).
 * Learned entries are at most max_learned.  When they are that many, a new
 * one takes the place of the oldest stale one, or is refused (counted).
 * Static neighbours and group next hops never lose their slot to a learned
 * entry: the table has AIF_NEIGH_CONFIGURED_MAX slots beyond max_learned,
 * and when those run out a configured entry takes the oldest learned one's.
 */
#ifndef AIF_NEIGH_H
#define AIF_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

struct rte_rcu_qsbr;

#define AIF_NEIGH_VALID (1ull << 63)
#define AIF_NEIGH_STALE (1ull << 62) /* forward, and re-resolve */
#define AIF_NEIGH_PORT_MASK 0x3FFFu  /* bits 48..61 */
#define AIF_NEIGH_NONE UINT32_MAX

#define AIF_NEIGH_CONFIGURED_MAX 4096 /* static neighbours and next hops */
#define AIF_NEIGH_LEARNED_MAX 4096    /* the most max_learned may be */
#define AIF_NEIGH_SLOTS (AIF_NEIGH_CONFIGURED_MAX + AIF_NEIGH_LEARNED_MAX)
#define AIF_NEIGH_CAP_MIN 64          /* a table's slots at first (doubled) */
#define AIF_NEIGH_NAME_MAX 32         /* a table's label, cut to fit */
#define AIF_NEIGH_RETIRED_MAX 8       /* old views in their grace period */

/* What a switch's "neighbor_learning" sets (control/config.c). */
struct aif_neigh_params {
	uint32_t reachable_s; /* learned -> stale after this long unrefreshed */
	uint32_t stale_s;     /* stale -> removed after this long unrefreshed */
	uint32_t max_learned; /* 1..AIF_NEIGH_LEARNED_MAX */
	uint32_t rate_pps;    /* ARP/ND learn events per port per worker, 0 = no limit */
	uint32_t burst;       /* events above rate_pps allowed at once */
};

#define AIF_NEIGH_PARAMS_DEFAULT \
	((struct aif_neigh_params){ .reachable_s = 300, .stale_s = 60, \
				    .max_learned = AIF_NEIGH_LEARNED_MAX, \
				    .rate_pps = 1000, .burst = 100 })

/* Learning and aging counters of a table (control only). */
#define AIF_FOREACH_NEIGH_CTR(_) \
	_(learned)         /* new learned entries */                        \
	_(refreshed)       /* ARP/ND from a known host */                   \
	_(went_stale)      /* reachable -> stale */                         \
	_(aged_out)        /* stale entries removed */                      \
	_(replaced)        /* oldest stale learned entry gave its place */  \
	_(learn_refused)   /* max_learned reached, none stale */            \
	_(update_only)     /* unknown host heard, not for the switch */     \
	_(static_kept)     /* a host answered for a static entry: kept */   \
	_(evicted_for_config) /* a learned entry gave way to a configured one */

struct aif_neigh_ctr {
#define AIF_NEIGH_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_NEIGH_CTR(AIF_NEIGH_CTR_FIELD)
#undef AIF_NEIGH_CTR_FIELD
};

enum aif_neigh_type {
	AIF_NEIGH_FREE = 0,
	AIF_NEIGH_UNRESOLVED, /* a next hop we know of but have no MAC for */
	AIF_NEIGH_STATIC,
	AIF_NEIGH_LEARNED,
};

/* Control's bookkeeping for a slot (a worker reads an unresolved entry's
 * ip and port to ask for it). */
struct aif_neigh_meta {
	struct aif_ip ip;
	uint8_t type;      /* enum aif_neigh_type */
	uint8_t pinned;    /* a static neighbour or next hop of the config */
	uint8_t stale;     /* the slot word has AIF_NEIGH_STALE */
	uint16_t port;
	aif_time_ns updated_ns; /* set, learned or last refreshed */
	uint64_t free_token;    /* FREE: QSBR token of the free (0: never used) */
};

/* What a worker reads of a table, published whole (see above). */
struct aif_neigh_view {
	uint64_t *slot;              /* [cap] */
	struct aif_neigh_meta *meta; /* [cap] */
	struct aif_ip *key;          /* [cap]: the IP slot s was last taken for */
	uint64_t *idx;               /* [idx_mask + 1]: hash << 32 | slot + 1; 0
				      * empty, AIF_NEIGH_TOMB deleted */
	uint32_t idx_mask;
	uint32_t idx_used;           /* entries not empty (control's) */
	uint32_t cap;
	uint64_t token;              /* retired: the QSBR token it waits for */
};

#define AIF_NEIGH_TOMB UINT64_MAX

struct aif_neigh {
	/* control's: the current view's fields */
	uint32_t cap;
	uint64_t *slot;
	struct aif_neigh_meta *meta;
	uint32_t max;                /* the most slots it grows to */
	struct aif_neigh_view *view; /* workers': aif_neigh_view() */
	struct aif_neigh_view *retired[AIF_NEIGH_RETIRED_MAX];
	uint32_t n_retired;
	uint32_t grows;              /* views made since (grown or remade) */
	char name[AIF_NEIGH_NAME_MAX]; /* its label (the switch's): any, not unique */
	struct rte_rcu_qsbr *qsv;    /* NULL: slots are reused at once */
	uint32_t n_learned;          /* LEARNED and not pinned */
	struct aif_neigh_ctr ctr;
	/* bumped (release) before an IP is added to or deleted from the index:
	 * a worker's cache of IP -> slot holds under one value only (a slot
	 * is taken again only after every worker passed a quiescent state
	 * since its delete, so a worker's next step sees the bump first) */
	uint64_t gen;
};

/* Pack/unpack a slot word. */
static inline uint64_t
aif_neigh_pack(const struct aif_mac *mac, uint16_t port)
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++)
		v |= (uint64_t)mac->b[i] << (8 * i);
	return v | ((uint64_t)(port & AIF_NEIGH_PORT_MASK) << 48) | AIF_NEIGH_VALID;
}

static inline void
aif_neigh_unpack(uint64_t v, struct aif_mac *mac, uint16_t *port)
{
	for (int i = 0; i < 6; i++)
		mac->b[i] = (uint8_t)(v >> (8 * i));
	*port = (uint16_t)((v >> 48) & AIF_NEIGH_PORT_MASK);
}

/* Control's read of a slot (0 when not valid). */
static inline uint64_t
aif_neigh_read(const struct aif_neigh *n, uint32_t slot)
{
	return __atomic_load_n(&n->slot[slot], __ATOMIC_RELAXED);
}

/* A worker's view of the table, for one burst (its step's read side). */
static inline const struct aif_neigh_view *
aif_neigh_view(const struct aif_neigh *n)
{
	return __atomic_load_n(&n->view, __ATOMIC_ACQUIRE);
}

/* Create a table growing up to max slots, labelled name (any: tables
 * take no process-wide resource by name). */
struct aif_neigh *aif_neigh_create(const char *name, uint32_t max,
				   struct rte_rcu_qsbr *qsv);
void aif_neigh_free(struct aif_neigh *n);
/* At the process's end: as aif_neigh_free, but the slot words (DPDK heap
 * memory) are left to the exit: DPDK zeroes every byte it frees. */
void aif_neigh_free_at_exit(struct aif_neigh *n);

/* Control: slot of ip, or AIF_NEIGH_NONE. */
uint32_t aif_neigh_find(const struct aif_neigh *n, const struct aif_ip *ip);
/* Worker: slot of ip in its view, or AIF_NEIGH_NONE. */
uint32_t aif_neigh_view_find(const struct aif_neigh_view *v, const struct aif_ip *ip);

/*
 * Control, for the config (next hops, static neighbours): slot of ip,
 * creating an unresolved one when absent, in a free slot or else in the
 * oldest unpinned learned entry's; AIF_NEIGH_NONE when every slot is
 * configured.
 */
uint32_t aif_neigh_get(struct aif_neigh *n, const struct aif_ip *ip, uint16_t port);
/* Control: set a slot's MAC and port (type STATIC or LEARNED); fresh, not stale. */
void aif_neigh_set(struct aif_neigh *n, uint32_t slot, const struct aif_mac *mac,
		   uint16_t port, enum aif_neigh_type type, aif_time_ns now_ns);
/* Control: forget a slot's MAC, keeping the slot (UNRESOLVED): a static
 * neighbour the config now leaves to be learned. */
void aif_neigh_unresolve(struct aif_neigh *n, uint32_t slot);
/* Control: drop a slot (back to free); it and its key are reused only
 * after a grace period. */
void aif_neigh_del(struct aif_neigh *n, uint32_t slot);

/*
 * Control: a host at ip has mac on port (heard in ARP/ND).  A known entry
 * is refreshed (a static one keeps its MAC); an unknown host is added only
 * when create (it talked to the switch), within p->max_learned.  Returns
 * the slot, or AIF_NEIGH_NONE when nothing was learned.
 */
uint32_t aif_neigh_learn(struct aif_neigh *n, const struct aif_ip *ip,
			 const struct aif_mac *mac, uint16_t port, bool create,
			 const struct aif_neigh_params *p, aif_time_ns now_ns);

/* Control: age learned entries (reachable -> stale -> removed); see above. */
void aif_neigh_age(struct aif_neigh *n, const struct aif_neigh_params *p,
		   aif_time_ns now_ns);

/* Control: recount n_learned after meta[].pinned or types were changed. */
void aif_neigh_recount(struct aif_neigh *n);

/* A neighbour seen by a worker, for control to learn. */
struct aif_learn {
	struct aif_ip ip;
	struct aif_mac mac;
	uint16_t port;
	uint8_t create; /* it talked to the switch: may be added, not only refreshed */
	uint8_t pad[3];
};
/* ring elements are a multiple of 4 bytes */
_Static_assert(sizeof(struct aif_learn) % 4 == 0, "struct aif_learn size");

#endif /* AIF_NEIGH_H */
