/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch port: an interface with implementations behind it.
 *
 * struct aif_port_ops is what the runtime asks of a port: receive a burst
 * from a queue, transmit a burst on a queue at now_ns (what it does not
 * take is backpressure: the caller keeps it or counts it), send a MAC
 * control frame ahead of data (the PFC signal path: a DPDK port sends the
 * 802.1Qbb frame, an emulated link carries it to the peer after the link
 * delay), say when it takes its next frame, and, optionally, hear how the
 * burst it last received ended (the frames the switch dropped
 * and why), which is how a wrapper such as packet capture (capture.h)
 * annotates drops.  Implementations: DPDK ethdev (aif_port_dpdk_ops), the
 * emulated link end (link.h), the pcap file port (pcap_port.h), the virtual
 * RoCE host (rhost.h); the capture wrapper (capture.c) stands in front of
 * another implementation.  A
 * queue is the shard's (one per runner on a DPDK port with RSS).
 *
 * One indirect call per burst, none per packet.  ops is written by
 * control (a wrapper coming or going: release store, then an RCU grace
 * period before what the old ops used is freed) and loaded by the runtime
 * once per burst.
 *
 * TX buffers (struct aif_txbuf): one per shard per port, flushed when full
 * and at the end of every step; refused frames are freed and counted as
 * tx_full on the egress port.
 */
#ifndef AIF_PORT_H
#define AIF_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "capacity.h"
#include "counters.h"
#include "types.h"

struct aif_port;
struct aif_switch;

struct aif_port_ops {
	const char *kind; /* "dpdk", "capture", ... (show ports) */
	/* Receive up to n frames from queue. */
	uint16_t (*rx_burst)(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts,
			     uint16_t n, aif_time_ns now_ns);
	/* Send up to n frames on queue; returns how many it took. */
	uint16_t (*tx_burst)(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts,
			     uint16_t n, aif_time_ns now_ns);
	/* Send one MAC control frame (PFC) at the next frame boundary, ahead
	 * of data not yet sent; 1 if taken (else the caller frees it). */
	uint16_t (*tx_ctrl)(struct aif_port *p, uint16_t queue, struct rte_mbuf *m,
			    aif_time_ns now_ns);
	/* Optional.  When the next frame arrives on queue (AIF_TIME_NS_NEVER:
	 * none on its way).  NULL: the port cannot say (a NIC). */
	aif_time_ns (*rx_next_ns)(struct aif_port *p, uint16_t queue);
	/* Optional.  When the port takes its next frame on queue (now_ns or
	 * earlier: now).  NULL: always (a NIC queue, which drops when full). */
	aif_time_ns (*tx_ready_ns)(struct aif_port *p, uint16_t queue, aif_time_ns now_ns);
	/* Optional.  The burst last received on queue went through the switch
	 * (stamped now_ns); dropped[0..n) (reasons[]: enum aif_drop_reason)
	 * are the frames it dropped: this frees them.  NULL: the runtime does. */
	void (*rx_done)(struct aif_port *p, uint16_t queue, struct rte_mbuf **dropped,
			const uint8_t *reasons, uint16_t n, aif_time_ns now_ns);
	/* What it is sent can bring its next frame closer (a host that
	 * answers): the runner asks rx_next_ns again after sending to it. */
	bool wakes_rx;
};

struct aif_port {
	/* what a call through the port reads, in its first cache line */
	const struct aif_port_ops *ops;  /* what the runtime calls (see above) */
	void *ctx;             /* the implementation's state */
	const struct aif_port_ops *base; /* the implementation, when ops wraps it */
	void *wrap;            /* the wrapper's state (capture.h) */
	uint16_t index;        /* in the switch's ports */
	uint16_t dpdk_port;    /* DPDK implementation: the ethdev port id */
	uint16_t n_rxq, n_txq;
	uint32_t speed_mbps;   /* configured, else as the device reports */
	uint8_t link_up;       /* written by control */
	const struct aif_switch *sw; /* whose port it is (names in views) */
	uint64_t *link_gen;    /* its switch's link generation (NULL: none) */
	uint64_t link_changes; /* link up/down transitions control saw */
	struct aif_mac dev_mac; /* the device's own MAC */
	char name[AIF_NAME_MAX];
} __rte_cache_aligned;

/*
 * A port's link state is written through aif_port_set_link_up, which also
 * moves its switch's link generation (switch.h link_gen): a runner reads a
 * switch's link states again only when that moved (runner.c drive_begin),
 * not on every step, and a link elsewhere changing costs it nothing.
 */
static inline void
aif_port_set_link_up(struct aif_port *p, bool up)
{
	__atomic_store_n(&p->link_up, (uint8_t)up, __ATOMIC_RELAXED);
	if (p->link_gen != NULL)
		__atomic_fetch_add(p->link_gen, 1, __ATOMIC_RELEASE);
}

/*
 * Bind port p to an implementation (one sequence for every kind: DPDK,
 * link end, pcap file, virtual host, nothing): its ops and state ctx, its
 * rate (speed_mbps; AIF_PORT_KEEP: as it is), its queues (n_queues RX and
 * TX; 0: as they are), its link (1 up, 0 down, -1 as it is); the ops are
 * published last (release), so a runner that sees them sees the rest.
 */
#define AIF_PORT_KEEP UINT32_MAX
void aif_port_attach(struct aif_port *p, const struct aif_port_ops *ops, void *ctx,
		     uint32_t speed_mbps, uint16_t n_queues, int link_up);

/* A port with nothing attached: link down, receives nothing, refuses what
 * it is sent. */
extern const struct aif_port_ops aif_port_detached_ops;
void aif_port_init_detached(struct aif_port *p, uint16_t index);

/* DPDK ethdev ports. */
extern const struct aif_port_ops aif_port_dpdk_ops;
/* Make p a DPDK port on ethdev dpdk_port (index: its place in the switch). */
void aif_port_init_dpdk(struct aif_port *p, uint16_t index, uint16_t dpdk_port);

/* len bytes of data in a new mbuf from pool, chained when one segment is
 * too small (ports that make frames: pcap files, virtual hosts); NULL if
 * the pool runs out. */
struct rte_mbuf *aif_mbuf_from_bytes(struct rte_mempool *pool, const uint8_t *data,
				     uint32_t len);

/* When port takes its next frame on queue (now_ns when ready). */
static inline aif_time_ns
aif_port_tx_ready_ns(struct aif_port *p, const struct aif_port_ops *ops, uint16_t queue,
		     aif_time_ns now_ns)
{
	return ops->tx_ready_ns == NULL ? now_ns : ops->tx_ready_ns(p, queue, now_ns);
}

/* The ops to call for this burst. */
static inline const struct aif_port_ops *
aif_port_ops(const struct aif_port *p)
{
	return __atomic_load_n(&p->ops, __ATOMIC_ACQUIRE);
}

/* Frames buffered for one port by one shard. */
struct aif_txbuf {
	uint16_t n;
	uint32_t bytes; /* of the n buffered frames */
	struct rte_mbuf *pkts[AIF_BURST];
};

/* Send b's frames on port's queue now; counts tx on c, frees and counts
 * (tx_full) what the port refuses. */
void aif_txbuf_flush(struct aif_txbuf *b, struct aif_port *port, uint16_t queue,
		     struct aif_port_ctr *c, aif_time_ns now_ns);

/* Buffer m for port (flushes when the buffer fills); per packet: inline. */
static inline void
aif_txbuf_add(struct aif_txbuf *b, struct aif_port *port, uint16_t queue,
	      struct aif_port_ctr *c, struct rte_mbuf *m, aif_time_ns now_ns)
{
	b->bytes += rte_pktmbuf_pkt_len(m);
	b->pkts[b->n++] = m;
	if (unlikely(b->n == AIF_BURST))
		aif_txbuf_flush(b, port, queue, c, now_ns);
}

#endif /* AIF_PORT_H */
