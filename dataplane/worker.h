/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker: polls its RX queues and runs the switch pipeline to completion.
 *
 * aif_worker_step() is exactly one iteration: for each RX queue, one burst
 * in, through the pipeline, into per-port TX buffers; then every buffer is
 * flushed and a quiescent state reported.  The real-time loop is
 *	aif_worker_set_clock(w, &clk);
 *	while (running) aif_worker_step(w, aif_clock_now(&clk));
 * and a test injects packets, advances a virtual clock, steps, and asserts.
 *
 * Time.  The step's now_ns drives the per-iteration work (QoS, egress,
 * adaptive bands).  A received burst is stamped with the time it was
 * received: with a clock set, the worker reads it once per non-empty
 * rx_burst into w->now_ns, which the pipeline stages see (flowlet gaps,
 * PFC frames, captures, ARP rate limits).  A step's now_ns, read before
 * the RX queues are polled, would make a worker that stalls (preempted,
 * a slow driver) stamp the packets it then receives too early, and the
 * gap to each flow's next packet look longer than it was: flows moved
 * inside their flowlets.  Without a clock (NULL) bursts get the step's now_ns.
 */
#ifndef AIF_WORKER_H
#define AIF_WORKER_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "counters.h"
#include "capacity.h"
#include "rng.h"
#include "types.h"

struct aif_switch;
struct aif_lb_state;
struct aif_clock;

#define AIF_MAX_RXQ 64
#define AIF_ARP_RL_BUCKETS 256
#define AIF_ARP_RL_NS (100 * AIF_NS_PER_MS) /* ARP/NS requests per bucket */

struct aif_rxq {
	uint16_t port;   /* switch port index */
	uint16_t queue;  /* DPDK RX queue id */
};

struct aif_txbuf {
	uint16_t n;
	uint32_t bytes; /* of the n buffered packets */
	struct rte_mbuf *pkts[AIF_BURST];
};

struct aif_worker {
	uint16_t id;
	struct aif_switch *sw;
	uint16_t txq;                 /* this worker's TX queue on every port */
	uint16_t n_rxq;
	struct aif_rxq rxq[AIF_MAX_RXQ];
	struct aif_rng rng;
	const struct aif_clock *clock; /* read once per received burst, or NULL */
	aif_time_ns now_ns;           /* of the burst in the pipeline (else of the step) */
	uint64_t steps;
	uint64_t capture_ports;       /* ports capturing, this step (capture.h) */
	uint64_t capture_drops;       /* of those, ports annotating drops */
	aif_time_ns arp_req_ns[AIF_ARP_RL_BUCKETS];
	aif_time_ns learn_tat_ns[AIF_MAX_PORTS]; /* learn rate limit (arp_nd.c) */

	struct aif_lb_state *lb;      /* load-balancing state (pipelines/lb.h) */
	uint32_t port_qbytes[AIF_MAX_PORTS]; /* bytes queued per port, this step */

	struct aif_txbuf tx[AIF_MAX_PORTS] __rte_cache_aligned;
	struct aif_port_ctr port_ctr[AIF_MAX_PORTS] __rte_cache_aligned;
	struct aif_member_ctr member_ctr[]; /* [AIF_MAX_MEMBER_SLOTS] */
};

/* Create worker id of sw (registers it with the switch and its RCU variable). */
struct aif_worker *aif_worker_create(struct aif_switch *sw, uint16_t id,
				     uint64_t seed);
void aif_worker_free(struct aif_worker *w);
/* Poll queue of switch port port (call before the worker runs). */
int aif_worker_add_rxq(struct aif_worker *w, uint16_t port, uint16_t queue);
/* The clock that stamps received bursts (call before the worker runs; the
 * worker's own loop owns it: it is read, never advanced, by the worker). */
void aif_worker_set_clock(struct aif_worker *w, const struct aif_clock *clock);

/* One iteration; returns the number of packets received. */
unsigned aif_worker_step(struct aif_worker *w, aif_time_ns now_ns);

/*
 * Run one received burst of switch port in_port through the pipeline
 * (used by step; tests may call it directly with hand-made mbufs).
 */
void aif_worker_process(struct aif_worker *w, uint16_t in_port,
			struct rte_mbuf **pkts, uint16_t n);

/* Send everything buffered; packets the port refuses are freed and counted. */
void aif_worker_flush(struct aif_worker *w);

/* Send port's buffer now (aif_worker_send does it when the buffer fills). */
void aif_worker_flush_port(struct aif_worker *w, uint16_t port);

/* Buffer a packet for transmit on switch port port (per packet: inline). */
static inline void
aif_worker_send(struct aif_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct aif_txbuf *b = &w->tx[port];
	b->bytes += rte_pktmbuf_pkt_len(m);
	b->pkts[b->n++] = m;
	if (unlikely(b->n == AIF_BURST))
		aif_worker_flush_port(w, port);
}

#endif /* AIF_WORKER_H */
