/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A shard: the part of one switch that one runner (runner.h) drives.
 *
 * A switch has one shard per runner that receives on its ports (RSS spreads
 * a DPDK port's flows over the runners' queues: shard i uses queue i).  The
 * shard holds what that runner mutates for the switch and nobody else
 * does: the stages' context (pipelines/fwd.h: random source,
 * load-balancing state, rate limits), TX buffers, and counters, which
 * control sums over the shards (switch.h).  The switch owns its shards;
 * the switch's egress QoS state (qos.h) belongs to the switch and is driven
 * by exactly one of them (drives_qos), the one whose runner owns the switch.
 */
#ifndef AIF_SHARD_H
#define AIF_SHARD_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "../pipelines/fwd.h"
#include "capacity.h"
#include "counters.h"
#include "port.h"

struct aif_qos;
struct aif_tables;

struct aif_shard {
	uint16_t id;                  /* in the switch's shards; its queue on ports */
	bool drives_qos;              /* runs the switch's egress QoS (qos.h) */
	uint64_t steps;
	const struct aif_tables *tables; /* the step's, loaded once when it
				       * begins (runner.c): one version for
				       * all its bursts */
	struct aif_qos *qos;          /* the step's egress QoS if it drives it
				       * and it is on, else NULL (runner.c) */
	struct aif_fwd fwd;           /* what the stages see (pipelines/fwd.h) */
	struct aif_fwd_out out;       /* verdicts of the burst in flight */
	uint32_t port_qbytes[AIF_MAX_PORTS]; /* bytes queued per port, this step */
	uint32_t port_tc_qbytes[AIF_MAX_PORTS][8]; /* ... per queue (traffic class) */
	uint64_t tx_pending;          /* bit p: tx[p] holds frames */
	uint64_t wake_ports;          /* ports whose next frame may come sooner or
				       * later: sent a MAC control frame (PFC), or
				       * anything if they answer (port.h wakes_rx),
				       * since the runner last looked (runner.c) */
	uint64_t link_gen;            /* the switch's link_gen fwd.link_up was read at */
	uint64_t sent_ports;          /* ports handed a frame since the runner last
				       * looked (aif_runner_drive_sent) */

	struct aif_txbuf tx[AIF_MAX_PORTS] __rte_cache_aligned;
	struct aif_port_ctr port_ctr[AIF_MAX_PORTS] __rte_cache_aligned;
	/* [AIF_MAX_MEMBER_SLOTS], and fwd.lb: lazily backed (lazymem.h),
	 * paid for by the slots a switch's members take */
	struct aif_member_ctr *member_ctr;
};

/* A shard with id, its random source seeded from seed; NULL on failure.
 * The caller wires fwd.neigh, learn_ring and pool (the switch's). */
struct aif_shard *aif_shard_create(uint16_t id, uint64_t seed);
/* Frees the shard and the frames still in its TX buffers.  At the
 * process's exit: the frames only, the shard's memory left to the exit
 * (DPDK zeroes what it frees: a shard is ~210 KiB, mostly its member
 * counters, most of it never touched until then). */
void aif_shard_free(struct aif_shard *sh);
void aif_shard_free_at_exit(struct aif_shard *sh);

/* Buffer m for port p of ports (per packet: inline). */
static inline void
aif_shard_send(struct aif_shard *sh, struct aif_port *ports, uint16_t p,
	       struct rte_mbuf *m, aif_time_ns now_ns)
{
	sh->tx_pending |= 1ull << p;
	aif_txbuf_add(&sh->tx[p], &ports[p], sh->id, &sh->port_ctr[p], m, now_ns);
}

/* Send what is buffered for port p / for every port of ports[0..n). */
static inline void
aif_shard_flush_port(struct aif_shard *sh, struct aif_port *ports, uint16_t p,
		     aif_time_ns now_ns)
{
	aif_txbuf_flush(&sh->tx[p], &ports[p], sh->id, &sh->port_ctr[p], now_ns);
}

void aif_shard_flush(struct aif_shard *sh, struct aif_port *ports, uint16_t n_ports,
		     aif_time_ns now_ns);

#endif /* AIF_SHARD_H */
