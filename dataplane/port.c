/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: the DPDK ethdev implementation and TX buffers (port.h). */
#include <stdio.h>

#include <rte_ethdev.h>

#include "frame.h"
#include "mbuf.h"
#include "port.h"

static uint16_t
dpdk_rx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	(void)now_ns;
	return rte_eth_rx_burst(p->dpdk_port, queue, pkts, n);
}

/* A device reads the bytes: light frames (frame.h) are made whole first;
 * one that cannot be (no mbuf) ends the burst there, and it and those
 * after it are refused. */
static uint16_t
dpdk_tx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	(void)now_ns;
	if (unlikely(aif_frame_light_mask != 0))
		for (uint16_t i = 0; i < n; i++)
			if (aif_frame_materialise(pkts[i]) != 0) {
				n = i;
				break;
			}
	return rte_eth_tx_burst(p->dpdk_port, queue, pkts, n);
}

static uint16_t
dpdk_tx_ctrl(struct aif_port *p, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	(void)now_ns;
	return rte_eth_tx_burst(p->dpdk_port, queue, &m, 1);
}

const struct aif_port_ops aif_port_dpdk_ops = {
	.kind = "dpdk", .rx_burst = dpdk_rx, .tx_burst = dpdk_tx, .tx_ctrl = dpdk_tx_ctrl,
};

void
aif_port_init_dpdk(struct aif_port *p, uint16_t index, uint16_t dpdk_port)
{
	p->index = index;
	p->dpdk_port = dpdk_port;
	aif_port_attach(p, &aif_port_dpdk_ops, NULL, AIF_PORT_KEEP, 0, -1);
}

void
aif_port_attach(struct aif_port *p, const struct aif_port_ops *ops, void *ctx,
		uint32_t speed_mbps, uint16_t n_queues, int link_up)
{
	p->ctx = ctx;
	p->base = ops;
	if (speed_mbps != AIF_PORT_KEEP)
		p->speed_mbps = speed_mbps;
	if (n_queues != 0)
		p->n_rxq = p->n_txq = n_queues;
	if (link_up >= 0)
		aif_port_set_link_up(p, link_up != 0);
	__atomic_store_n(&p->ops, ops, __ATOMIC_RELEASE);
}

static uint16_t
detached_rx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	    aif_time_ns now_ns)
{
	(void)p, (void)queue, (void)pkts, (void)n, (void)now_ns;
	return 0;
}

static uint16_t
detached_tx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	    aif_time_ns now_ns)
{
	(void)p, (void)queue, (void)pkts, (void)n, (void)now_ns;
	return 0;
}

static uint16_t
detached_tx_ctrl(struct aif_port *p, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	(void)p, (void)queue, (void)m, (void)now_ns;
	return 0;
}

const struct aif_port_ops aif_port_detached_ops = {
	.kind = "detached", .rx_burst = detached_rx, .tx_burst = detached_tx,
	.tx_ctrl = detached_tx_ctrl,
};


void
aif_port_init_detached(struct aif_port *p, uint16_t index)
{
	p->index = index;
	aif_port_attach(p, &aif_port_detached_ops, NULL, AIF_PORT_KEEP, 0, 0);
}

void
aif_txbuf_flush(struct aif_txbuf *b, struct aif_port *port, uint16_t queue,
		struct aif_port_ctr *c, aif_time_ns now_ns)
{
	uint16_t sent = aif_port_ops(port)->tx_burst(port, queue, b->pkts, b->n, now_ns);
	uint32_t bytes = b->bytes;

	if (unlikely(sent < b->n)) {
		for (uint16_t i = sent; i < b->n; i++)
			bytes -= rte_pktmbuf_pkt_len(b->pkts[i]);
		/* counted on the egress port: the ingress port is not known here */
		c->drops[AIF_DROP_TX_FULL] += b->n - sent;
		rte_pktmbuf_free_bulk(&b->pkts[sent], b->n - sent);
	}
	c->tx_packets += sent;
	c->tx_bytes += bytes;
	b->n = 0;
	b->bytes = 0;
}

struct rte_mbuf *
aif_mbuf_from_bytes(struct rte_mempool *pool, const uint8_t *data, uint32_t len)
{
	struct rte_mbuf *head = aif_mbuf_alloc_len(pool, len), *last = head;
	uint32_t off = 0;

	if (head == NULL)
		return NULL;
	while (off < len) {
		uint32_t n = RTE_MIN((uint32_t)rte_pktmbuf_tailroom(last), len - off);
		if (n == 0) {
			struct rte_mbuf *seg = aif_mbuf_alloc(pool);
			if (seg == NULL || rte_pktmbuf_chain(head, seg) != 0) {
				rte_pktmbuf_free(seg);
				rte_pktmbuf_free(head);
				return NULL;
			}
			last = seg;
			continue;
		}
		memcpy(rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len), data + off, n);
		last->data_len = (uint16_t)(last->data_len + n);
		head->pkt_len += n;
		off += n;
	}
	return head;
}
