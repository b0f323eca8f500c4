/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour table: IP -> (MAC, port) for one switch.
 *
 * Publication protocol.  Unlike the route tables (rebuilt and swapped whole,
 * see tables.h), neighbours change one at a time as ARP/ND replies arrive, so
 * this table is shared and updated in place, with exactly one writer: the
 * control thread.  Workers only read.
 *   - Every neighbour owns a slot.  A slot is one 64-bit word holding the MAC,
 *     the port and a valid bit, written with a single atomic store; a reader
 *     sees either the old or the new entry, never a torn one.  Slot numbers
 *     are stable for the life of the switch, so next hops in the route tables
 *     name their neighbour by slot and need no lookup per packet.
 *   - Destinations on connected subnets are found by IP through an rte_hash
 *     created with lock-free reader/writer concurrency (one writer).  Deleted
 *     keys are not recycled until the workers have passed a quiescent state
 *     (the hash is attached to the switch's RCU QSBR variable).
 *   - The slot array and the hash are allocated once, at switch creation.
 * Workers never write here: what they learn from ARP/ND goes to control
 * through the switch's learn ring (switch.h).
 */
#ifndef AIF_NEIGH_H
#define AIF_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

struct rte_hash;
struct rte_rcu_qsbr;

#define AIF_NEIGH_VALID (1ull << 63)
#define AIF_NEIGH_NONE UINT32_MAX

enum aif_neigh_type {
	AIF_NEIGH_FREE = 0,
	AIF_NEIGH_UNRESOLVED, /* a next hop we know of but have no MAC for */
	AIF_NEIGH_STATIC,
	AIF_NEIGH_LEARNED,
};

/* Control-only bookkeeping for a slot. */
struct aif_neigh_meta {
	struct aif_ip ip;
	uint8_t type;      /* enum aif_neigh_type */
	uint16_t port;
	uint32_t refs;     /* next hops of the current tables using this slot */
	aif_time_ns updated_ns;
};

struct aif_neigh {
	uint32_t cap;
	uint64_t *slot;              /* [cap]: read by workers */
	struct rte_hash *by_ip;      /* key struct aif_ip, data = slot index */
	struct aif_neigh_meta *meta; /* [cap]: control only */
};

/* Pack/unpack a slot word. */
static inline uint64_t
aif_neigh_pack(const struct aif_mac *mac, uint16_t port)
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++)
		v |= (uint64_t)mac->b[i] << (8 * i);
	return v | ((uint64_t)(port & 0x7FFF) << 48) | AIF_NEIGH_VALID;
}

static inline void
aif_neigh_unpack(uint64_t v, struct aif_mac *mac, uint16_t *port)
{
	for (int i = 0; i < 6; i++)
		mac->b[i] = (uint8_t)(v >> (8 * i));
	*port = (uint16_t)((v >> 48) & 0x7FFF);
}

/* Worker read of a slot (0 when not valid). */
static inline uint64_t
aif_neigh_read(const struct aif_neigh *n, uint32_t slot)
{
	return __atomic_load_n(&n->slot[slot], __ATOMIC_RELAXED);
}

/* Create a table of cap slots; name must be unique in the process. */
struct aif_neigh *aif_neigh_create(const char *name, uint32_t cap,
				   struct rte_rcu_qsbr *qsv);
void aif_neigh_free(struct aif_neigh *n);

/* Worker: slot of ip, or AIF_NEIGH_NONE. */
uint32_t aif_neigh_find(const struct aif_neigh *n, const struct aif_ip *ip);

/* Control: slot of ip, creating an unresolved one when absent; AIF_NEIGH_NONE when full. */
uint32_t aif_neigh_get(struct aif_neigh *n, const struct aif_ip *ip, uint16_t port);
/* Control: set a slot's MAC and port (type STATIC or LEARNED). */
void aif_neigh_set(struct aif_neigh *n, uint32_t slot, const struct aif_mac *mac,
		   uint16_t port, enum aif_neigh_type type, aif_time_ns now_ns);
/* Control: drop a slot (back to free); its hash key is recycled after a grace period. */
void aif_neigh_del(struct aif_neigh *n, uint32_t slot);

#endif /* AIF_NEIGH_H */
