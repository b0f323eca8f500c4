/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route tables of one switch: what control compiled from the config
 * (control/compile.c) for the workers to read.
 *
 * Publication protocol.  A struct aif_tables is immutable once published.
 * Control builds a complete new one, then stores its pointer into
 * aif_switch.tables with release ordering; a worker loads that pointer once
 * per step (acquire) and uses only that snapshot for the whole step, then
 * reports a quiescent state on the switch's rte_rcu_qsbr variable.  Control
 * frees the old tables after rte_rcu_qsbr_synchronize() says every worker
 * has moved on.  Workers never wait on control, and a reload never drops a
 * packet: each packet sees either the whole old or the whole new table.
 *
 * FIB next hops encode a type and an index (aif_nh_make) so one 32-bit
 * value says "group 12", "connected on port 3", "drop" or "local".
 */
#ifndef AIF_TABLES_H
#define AIF_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include "capacity.h"
#include "lpm.h"
#include "neigh.h"
#include "params.h"
#include "types.h"

struct aif_qos_config;

enum aif_nh_type {
	AIF_NH_MISS = 0,      /* no route (the FIB's default next hop) */
	AIF_NH_GROUP = 1,     /* index: next-hop group */
	AIF_NH_CONNECTED = 2, /* index: port; the destination is the neighbour */
	AIF_NH_DROP = 3,      /* a drop route */
	AIF_NH_LOCAL = 4,     /* index: port; one of the switch's own addresses */
};

#define AIF_NH_TYPE_SHIFT 24
#define AIF_NH_INDEX_MASK 0xFFFFFFu

static inline uint64_t
aif_nh_make(enum aif_nh_type type, uint32_t index)
{
	return ((uint64_t)type << AIF_NH_TYPE_SHIFT) | (index & AIF_NH_INDEX_MASK);
}

static inline enum aif_nh_type
aif_nh_type(uint64_t nh)
{
	return (enum aif_nh_type)(nh >> AIF_NH_TYPE_SHIFT);
}

static inline uint32_t
aif_nh_index(uint64_t nh)
{
	return (uint32_t)(nh & AIF_NH_INDEX_MASK);
}

/* One next hop inside a group. */
struct aif_member {
	uint32_t neigh_slot; /* neighbour slot (neigh.h): MAC and port */
	uint32_t ctr_slot;   /* per-member counter slot (switch.h) */
	uint16_t port;       /* egress port index */
	uint16_t weight;
	struct aif_ip ip;
};

struct aif_group {
	uint32_t first;   /* index of the first member in aif_tables.members */
	uint16_t n;       /* members */
	uint8_t scheme;   /* enum aif_lb_scheme */
	uint32_t bucket_first; /* index of its buckets in aif_tables.buckets */
	uint32_t n_buckets;    /* resilient hash table: bucket -> member offset */
	/* Members whose port's link was up when the tables were compiled (they
	 * are rebuilt on every link change), less those withdrawn (below):
	 * bit k of up_mask is member k, and
	 * up[0..n_up) lists their offsets in order.  The schemes that choose a
	 * member per flowlet or per packet choose among these (ECMP and WCMP
	 * have it in their buckets).  n_up == 0: no member is up; they then
	 * choose among all, and the packets meet the port_down drop. */
	uint64_t up_mask;
	uint16_t n_up;
	uint8_t prog;     /* AIF_LB_PROG_NONE (0), or 1 + an lb_progs[] index */
	char name[AIF_NAME_MAX];
	uint8_t up[AIF_MAX_MEMBERS];
	/* (control's, past what packets read) members left out though their
	 * link is up: the switch behind cannot reach this copy's routes
	 * (control/withdraw.h); not in up_mask */
	uint64_t withdrawn;
};

/*
 * L3 view of a port: its MAC, MTU, 802.1Q tagging and addresses.
 * tagged 0: routed frames leave untagged; 1 (port "vlan" set): they leave
 * with a tag of VID vlan_id (0: a priority tag) and PCP = traffic class.
 */
struct aif_port_l3 {
	struct aif_mac mac;
	uint16_t mtu;
	uint16_t n_addrs;
	uint16_t vlan_id;  /* 0..4094, valid when tagged */
	uint8_t tagged;    /* 0 or 1: a single load and OR in the rewrite */
	uint8_t bfd;       /* a BFD session runs on it: its control packets go
			    * to control (switch.h bfd_rx) */
	struct aif_prefix addrs[AIF_MAX_PORT_ADDRS];
};

/* Load-balancing programs the tables use (control loads them; lb_prog.h). */
#define AIF_LB_MAX_PROGS 8
#define AIF_LB_PROG_NONE 0 /* struct aif_group prog: no program */
struct aif_lb_prog;
struct aif_lb_prog_state;
struct aif_lb_prog_ref {
	const struct aif_lb_prog *prog;
	struct aif_lb_prog_state *const *st; /* [shard]: each worker's state */
};

struct aif_tables {
	uint64_t generation;
	struct rte_fib *fib4;       /* NULL when fib_compact */
	struct rte_fib6 *fib6;
	struct aif_lpm *lpm4;       /* fib_compact: the route tables (lpm.h) */
	struct aif_lpm *lpm6;
	uint32_t n_groups;
	struct aif_group *groups;
	uint32_t n_members;
	struct aif_member *members;
	uint8_t *buckets;         /* every group's bucket table, concatenated */
	uint16_t n_ports;
	struct aif_port_l3 ports[AIF_MAX_PORTS];
	/* policy, flattened */
	uint8_t trust;
	uint8_t dscp_to_tc[64];
	uint8_t pcp_to_tc[8];
	struct aif_lb_params lb;
	uint32_t seed;
	bool proxy_arp;
	struct aif_neigh_params neigh; /* learning and aging (neigh.h) */
	bool lb_adaptive;         /* some traffic class uses the adaptive scheme */
	bool lb_load_aware;       /* some scheme in use reads queue depths */
	bool fib_compact;         /* route tables are lpm4/lpm6 (switch.h): cached */
	/* load-balancing programs: the scheme of a traffic class that is
	 * AIF_LB_PROG runs lb_progs[lb_prog_by_tc[tc]]; a group whose prog is
	 * not AIF_LB_PROG_NONE runs lb_progs[prog - 1] whatever the class */
	uint8_t n_lb_progs;
	uint8_t lb_prog_by_tc[8];
	struct aif_lb_prog_ref lb_progs[AIF_LB_MAX_PROGS];
	struct aif_qos_config *qos; /* lossless QoS of the switch's policy */
};

/* Free tables (NULL is fine): control, once no worker can see them. */
void aif_tables_free(struct aif_tables *t);

/* Next hops of n IPv4 addresses (host order) / IPv6 addresses: the
 * switch's route tables, whichever kind it has. */
static inline void
aif_tables_lookup4(const struct aif_tables *t, uint32_t *ip, uint64_t *nh, unsigned n)
{
	if (t->fib_compact)
		aif_lpm4_lookup_bulk(t->lpm4, ip, nh, n);
	else
		rte_fib_lookup_bulk(t->fib4, ip, nh, (int)n);
}

static inline void
aif_tables_lookup6(const struct aif_tables *t, uint8_t (*ip)[16], uint64_t *nh, unsigned n)
{
	if (t->fib_compact)
		aif_lpm6_lookup_bulk(t->lpm6, (const uint8_t (*)[16])ip, nh, n);
	else
		rte_fib6_lookup_bulk(t->fib6, ip, nh, (int)n);
}

#endif /* AIF_TABLES_H */
