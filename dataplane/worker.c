/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker loop body: RX bursts -> pipeline -> per-port TX buffers -> flush.
 * The stages themselves live in pipelines/ (pipeline.c puts them together).
 */
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include "../pipelines/egress.h"
#include "../pipelines/lb.h"
#include "../pipelines/pipeline.h"
#include "capture.h"
#include "clock.h"
#include "qos.h"
#include "switch.h"
#include "worker.h"

struct aif_worker *
aif_worker_create(struct aif_switch *sw, uint16_t id, uint64_t seed)
{
	struct aif_worker *w;
	size_t sz = sizeof(*w) +
		    sizeof(struct aif_member_ctr) * AIF_MAX_MEMBER_SLOTS;

	if (id >= sw->n_workers || sw->workers[id] != NULL)
		return NULL;
	w = rte_zmalloc("aif_worker", sz, RTE_CACHE_LINE_SIZE);
	if (w == NULL)
		return NULL;
	w->id = id;
	w->sw = sw;
	w->txq = id;
	w->lb = rte_zmalloc("aif_lb_state", sizeof(*w->lb), RTE_CACHE_LINE_SIZE);
	if (w->lb == NULL) {
		rte_free(w);
		return NULL;
	}
	aif_rng_seed(&w->rng, seed ^ ((uint64_t)id << 32));
	if (rte_rcu_qsbr_thread_register(sw->qsv, id) != 0) {
		rte_free(w->lb);
		rte_free(w);
		return NULL;
	}
	sw->workers[id] = w;
	return w;
}

void
aif_worker_free(struct aif_worker *w)
{
	if (w == NULL)
		return;
	for (uint16_t p = 0; p < AIF_MAX_PORTS; p++)
		if (w->tx[p].n)
			rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
	rte_rcu_qsbr_thread_unregister(w->sw->qsv, w->id);
	w->sw->workers[w->id] = NULL;
	rte_free(w->lb);
	rte_free(w);
}

int
aif_worker_add_rxq(struct aif_worker *w, uint16_t port, uint16_t queue)
{
	if (w->n_rxq >= AIF_MAX_RXQ || port >= w->sw->n_ports)
		return -1;
	w->rxq[w->n_rxq++] = (struct aif_rxq){ .port = port, .queue = queue };
	return 0;
}

void
aif_worker_set_clock(struct aif_worker *w, const struct aif_clock *clock)
{
	w->clock = clock;
}

void
aif_worker_flush_port(struct aif_worker *w, uint16_t p)
{
	struct aif_txbuf *b = &w->tx[p];
	struct aif_port *port = &w->sw->ports[p];
	struct aif_port_ctr *c = &w->port_ctr[p];
	/* capture off: one predictable branch per flush (capture.h) */
	uint16_t sent = likely(!((w->capture_ports >> p) & 1))
		? port->tx.burst(&port->tx, w->txq, b->pkts, b->n)
		: aif_capture_tx_burst(w, p, b->pkts, b->n);
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

void
aif_worker_flush(struct aif_worker *w)
{
	for (uint16_t p = 0; p < w->sw->n_ports; p++)
		if (w->tx[p].n)
			aif_worker_flush_port(w, p);
}

void
aif_worker_process(struct aif_worker *w, uint16_t in_port,
		   struct rte_mbuf **pkts, uint16_t n)
{
	const struct aif_tables *t =
		__atomic_load_n(&w->sw->tables, __ATOMIC_ACQUIRE);
	if (unlikely(t == NULL)) {
		w->port_ctr[in_port].drops[AIF_DROP_NO_ROUTE] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	aif_pipeline_run(w, t, in_port, pkts, n);
}

unsigned
aif_worker_step(struct aif_worker *w, aif_time_ns now_ns)
{
	struct rte_mbuf *pkts[AIF_BURST];
	struct aif_switch *sw = w->sw;
	unsigned total = 0;

	w->now_ns = now_ns;
	w->steps++;
	/* The step is the RCU read-side critical section (tables.h). */
	rte_rcu_qsbr_thread_online(sw->qsv, w->id);
	aif_capture_load(w);
	struct aif_qos *qos = w->id == 0 ? __atomic_load_n(&sw->qos, __ATOMIC_ACQUIRE) : NULL;
	if (qos != NULL) {
		const struct aif_tables *t = __atomic_load_n(&sw->tables, __ATOMIC_ACQUIRE);
		if (t != NULL && t->generation != qos->generation)
			aif_qos_apply(qos, t->qos, t->generation, now_ns);
		/* what the load-aware schemes see: bytes queued per port */
		for (uint16_t p = 0; p < qos->n_ports; p++) {
			const uint32_t *qb = qos->mmu.port[p].queue_bytes;
			w->port_qbytes[p] = qb[0] + qb[1] + qb[2] + qb[3] +
					    qb[4] + qb[5] + qb[6] + qb[7];
		}
	}
	/* adaptive load balancing: quality bands, refreshed every period */
	const struct aif_tables *lt = __atomic_load_n(&sw->tables, __ATOMIC_ACQUIRE);
	if (lt != NULL && lt->lb_adaptive && now_ns >= w->lb->next_band_ns) {
		uint64_t tx[AIF_MAX_PORTS], speed[AIF_MAX_PORTS];
		for (uint16_t p = 0; p < lt->n_ports; p++) {
			tx[p] = w->port_ctr[p].tx_bytes; /* this worker's share */
			speed[p] = (uint64_t)sw->ports[p].speed_mbps * 1000000;
		}
		aif_lb_adaptive_tick(w->lb, &lt->lb, tx, w->port_qbytes, speed,
				     lt->n_ports, now_ns);
	}
	for (uint16_t i = 0; i < w->n_rxq; i++) {
		const struct aif_rxq *q = &w->rxq[i];
		uint16_t n = rte_eth_rx_burst(sw->ports[q->port].dpdk_port,
					      q->queue, pkts, AIF_BURST);
		if (n == 0)
			continue;
		/* the burst's own time, once per burst (worker.h: Time) */
		if (w->clock != NULL)
			w->now_ns = aif_clock_now(w->clock);
		total += n;
		if (likely(!((w->capture_ports >> q->port) & 1)))
			aif_worker_process(w, q->port, pkts, n);
		else
			aif_capture_rx_process(w, q->port, pkts, n);
	}
	if (qos != NULL)
		aif_egress_service(w, qos, now_ns);
	aif_worker_flush(w);
	rte_rcu_qsbr_thread_offline(sw->qsv, w->id);
	return total;
}
