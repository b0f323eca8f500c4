/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One emulated switch: its ports, its published route tables, its
 * neighbour table, and its shards (shard.h: what each runner that drives
 * it mutates).
 *
 * A switch is an object, not a global: a process may hold several (the
 * fabric work), each with its own tables, buffers and counters.
 *
 * Who writes what:
 *   control: tables (publish, tables.h), neigh (single writer, neigh.h),
 *            ports[].link_up, the counter baselines;
 *   runner:  the shards it drives and everything in them (counters, TX
 *            buffers); the QoS state, for the shard that drives_qos;
 *   runners -> control: learn_ring (ARP/ND sender addresses, MP/SC),
 *            capture rings (packet copies, SP/SC per shard, capture.h),
 *            bfd_rx (BFD control packets heard on the ports, MP/SC);
 *   control -> runners: bfd_tx (BFD frames to send, mbufs with the
 *            switch's port in mb->port, SP/SC: the shard that drives_qos
 *            takes them, in real time).
 * Captures wrap ports (capture.h): stop them (aif_capture_free) before
 * aif_switch_free.
 */
#ifndef AIF_SWITCH_H
#define AIF_SWITCH_H

#include <stdint.h>

#include "capacity.h"
#include "counters.h"
#include "neigh.h"
#include "port.h"
#include "shard.h"
#include "tables.h"

struct rte_ring;
struct rte_rcu_qsbr;
struct rte_mempool;
struct aif_qos;
struct aif_trace;
struct aif_capture;


/*
 * Control-side registry of member counter slots, keyed by group/ip/port.  A
 * slot is taken when a config first names the member and given back when
 * the published tables no longer do (aif_switch_gc_member_slots); a slot
 * taken again starts from zero (aif_switch_member_slot_reset).
 */
struct aif_member_key {
	char group[AIF_NAME_MAX];
	struct aif_ip ip;
	uint16_t port;
	uint8_t used;
};

/* A member's counts summed over the workers: its packets and bytes
 * (counters.h) and the load balancer's counts for it (pipelines/lb.h). */
struct aif_member_sums {
	uint64_t packets;
	uint64_t bytes;
	uint64_t flowlet_starts;
	uint64_t reselections;
	uint64_t flowlet_collisions; /* collisions on a flowlet entry holding it */
	uint64_t flowlet_untracked;  /* packets sent to it by hash: no room in
				      * the exact flowlet table */
};

struct aif_switch {
	char name[AIF_NAME_MAX];
	uint16_t index;
	uint16_t n_ports;
	struct aif_port ports[AIF_MAX_PORTS];

	struct aif_tables *tables;  /* published: see tables.h */
	struct aif_neigh *neigh;
	struct rte_rcu_qsbr *qsv;
	struct rte_ring *learn_ring;
	struct rte_ring *bfd_rx, *bfd_tx; /* NULL until a BFD session runs here */
	struct rte_mempool *pool;   /* for packets the switch builds (ARP, ND) */
	struct aif_trace *trace;    /* path trace, created by control (trace.h) */
	struct aif_qos *qos;        /* egress QoS state: created by control, then
				     * driven by the shard that drives_qos (qos.h);
				     * NULL when off */
	struct aif_capture *capture; /* packet capture (capture.h); NULL until
				      * the first capture starts */

	uint8_t fib_compact;        /* route tables sized by the routes (lpm.h:
				     * a binary search per prefix length), not
				     * DIR24_8/TRIE's 64 MiB first levels nor
				     * rte_fib's memzones: for fabrics of many
				     * switches */
	uint64_t link_gen;          /* moved by any of its ports' link changes
				     * (port.h aif_port_set_link_up) */
	uint16_t n_shards;          /* one per runner that drives the switch */
	struct aif_shard *shards[AIF_MAX_SHARDS];

	/* control only */
	uint64_t generation;
	/* member counter slots [n_member_slots], grown as members come (up
	 * to AIF_MAX_MEMBER_SLOTS): a fabric switch has a few dozen, and
	 * 8,192 of each here, scanned at every load, were 0.8 MiB a switch */
	uint32_t n_member_slots;
	struct aif_member_key *member_keys;
	struct aif_member_sums *member_base;                  /* clear/reuse baseline */
	struct aif_port_ctr port_base[AIF_MAX_PORTS];          /* clear baseline */
};

/*
 * Create a switch named name with n_shards shards (one per runner that will
 * drive it, runner.h; shard 0 drives its QoS).  pool feeds the packets the
 * switch builds itself.  Returns NULL on failure.
 */
struct aif_switch *aif_switch_create(const char *name, uint16_t index,
				     uint16_t n_shards, struct rte_mempool *pool);
void aif_switch_free(struct aif_switch *sw);
/* At the process's end: as aif_switch_free (every mbuf it holds back to its
 * pool), the neighbour slots and the shards' memory left to the exit
 * (aif_neigh_free_at_exit, aif_shard_free_at_exit). */
void aif_switch_free_at_exit(struct aif_switch *sw);

/* Control: the BFD rings (switch.h above), made once; every shard hears
 * into bfd_rx.  0, or -1 out of memory. */
int aif_switch_bfd_rings(struct aif_switch *sw);

/* Control: publish new tables and free the old ones once no worker uses them. */
void aif_switch_publish(struct aif_switch *sw, struct aif_tables *t);

/* Control: sums of the per-worker counters, minus the clear baseline. */
void aif_switch_port_counters(const struct aif_switch *sw, uint16_t port,
			      struct aif_port_ctr *out);
void aif_switch_member_counters(const struct aif_switch *sw, uint32_t slot,
				struct aif_member_sums *out);
/* Control: counter slot taken for a new member: its counts start from zero.
 * Only for a slot no published table names (its counts no longer move). */
void aif_switch_member_slot_reset(struct aif_switch *sw, uint32_t slot);
/* Control: room for n member counter slots (n <= AIF_MAX_MEMBER_SLOTS; new
 * ones unused); 0, or -1 out of memory. */
int aif_switch_member_slots_grow(struct aif_switch *sw, uint32_t n);
/* Control: set the baselines to the current sums. */
void aif_switch_clear_counters(struct aif_switch *sw);

/* Control: learn what the workers reported; returns entries processed. */
unsigned aif_switch_learn(struct aif_switch *sw, aif_time_ns now_ns);
/* Control: age learned neighbours (neigh.h); call every AIF_NEIGH_AGE_NS or so. */
void aif_switch_age_neighbors(struct aif_switch *sw, aif_time_ns now_ns);
#define AIF_NEIGH_AGE_NS (100 * AIF_NS_PER_MS)

#endif /* AIF_SWITCH_H */
