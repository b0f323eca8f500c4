/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runner loop body: RX bursts -> stages -> verdicts -> queues and TX
 * buffers -> flush (runner.h).  The stages live in pipelines/; this file
 * moves the packets they gave a verdict to.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "../pipelines/lb.h"
#include "../pipelines/pipeline.h"
#include "clock.h"
#include "evloop.h"
#include "groups.h"
#include "link.h"
#include "egress.h"
#include "mintree.h"
#include "mmu.h"
#include "qos.h"
#include "shard.h"
#include "switch.h"
#include "trace.h"
#include "runner.h"

/* Room for n drives (copying what is there); 0, or -1 out of memory. */
static int
grow_drives(struct aif_runner *w, unsigned n)
{
	unsigned cap = w->cap_drive ? w->cap_drive : 8;
	size_t sz;
	char *p;

	if (n <= w->cap_drive)
		return 0;
	while (cap < n)
		cap *= 2;
	if (cap > AIF_RUNNER_MAX_SWITCHES)
		cap = AIF_RUNNER_MAX_SWITCHES;
	sz = cap * (sizeof(struct aif_drive) + sizeof(uint64_t)) + (cap + 1) * sizeof(uint16_t);
	p = rte_zmalloc("aif_runner_drives", sz, RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		return -1;
	struct aif_drive *drive = (void *)p;
	uint64_t *stale = (void *)(drive + cap);
	uint16_t *first = (void *)(stale + cap);
	if (w->n_drive) {
		memcpy(drive, w->drive, w->n_drive * sizeof(*drive));
		memcpy(stale, w->drive_stale, w->n_drive * sizeof(*stale));
		memcpy(first, w->drive_rxq_first, (w->n_drive + 1u) * sizeof(*first));
	}
	rte_free(w->drive);
	w->drive = drive;
	w->drive_stale = stale;
	w->drive_rxq_first = first;
	w->cap_drive = (uint16_t)cap;
	return 0;
}

/* Room for n RX queues (copying what is there); 0, or -1 out of memory. */
static int
grow_rxqs(struct aif_runner *w, unsigned n)
{
	unsigned cap = w->cap_rxq ? w->cap_rxq : 64;
	size_t sz;
	char *p;

	if (n <= w->cap_rxq)
		return 0;
	while (cap < n)
		cap *= 2;
	if (cap > AIF_MAX_RXQ)
		cap = AIF_MAX_RXQ;
	sz = cap * (sizeof(struct aif_rxq) + 2 * sizeof(uint16_t));
	p = rte_zmalloc("aif_runner_rxqs", sz, RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		return -1;
	struct aif_rxq *rxq = (void *)p;
	uint16_t *by_drive = (void *)(rxq + cap);
	uint16_t *pos = by_drive + cap;
	if (w->n_rxq) {
		memcpy(rxq, w->rxq, w->n_rxq * sizeof(*rxq));
		memcpy(by_drive, w->rxq_by_drive, w->n_rxq * sizeof(*by_drive));
		memcpy(pos, w->rxq_pos, w->n_rxq * sizeof(*pos));
	}
	rte_free(w->rxq);
	w->rxq = rxq;
	w->rxq_by_drive = by_drive;
	w->rxq_pos = pos;
	w->cap_rxq = (uint16_t)cap;
	return 0;
}

int
aif_runner_add_switch(struct aif_runner *w, struct aif_switch *sw, uint16_t id,
		      uint64_t seed)
{
	if (w->n_drive >= AIF_RUNNER_MAX_SWITCHES || id >= sw->n_shards ||
	    sw->shards[id] == NULL || grow_drives(w, w->n_drive + 1u) != 0 ||
	    rte_rcu_qsbr_thread_register(sw->qsv, id) != 0)
		return -1;
	struct aif_drive *d = &w->drive[w->n_drive];
	d->sw = sw;
	d->sh = sw->shards[id];
	aif_rng_seed(&d->sh->fwd.rng, seed ^ ((uint64_t)id << 32));
	w->by_drive_ok = 0;
	return w->n_drive++;
}

struct aif_runner *
aif_runner_create(struct aif_switch *sw, uint16_t id, uint64_t seed)
{
	struct aif_runner *w = rte_zmalloc("aif_runner", sizeof(*w), RTE_CACHE_LINE_SIZE);

	if (w == NULL)
		return NULL;
	w->id = id;
	if (aif_runner_add_switch(w, sw, id, seed) != 0) {
		rte_free(w->drive);
		rte_free(w);
		return NULL;
	}
	w->sw = sw;
	w->sh = w->drive[0].sh;
	return w;
}

static void source_free(struct aif_runner_ev *ev);

/* The drives' queue trees (index_by_drive). */
static void
rxt_free(struct aif_runner *w)
{
	for (uint16_t d = 0; w->drive_rxt != NULL && d < w->n_rxt; d++)
		aif_mintree_free(&w->drive_rxt[d]);
	free(w->drive_rxt);
	free(w->drive_port_q);
	w->drive_rxt = NULL;
	w->drive_port_q = NULL;
	w->n_rxt = 0;
}

void
aif_runner_free(struct aif_runner *w)
{
	if (w == NULL)
		return;
	for (uint16_t d = 0; d < w->n_drive; d++)
		rte_rcu_qsbr_thread_unregister(w->drive[d].sw->qsv, w->drive[d].sh->id);
	source_free(w->ev);
	free(w->tie_up);
	rte_free(w->drive);
	rte_free(w->rxq);
	rxt_free(w);
	rte_free(w);
}

int
aif_runner_add_rxq_of(struct aif_runner *w, uint16_t d, uint16_t port, uint16_t queue)
{
	unsigned of_d = 0;

	if (w->n_rxq >= AIF_MAX_RXQ || d >= w->n_drive || port >= w->drive[d].sw->n_ports)
		return -1;
	for (uint16_t i = 0; i < w->n_rxq; i++)
		of_d += w->rxq[i].drive == d;
	if (of_d >= AIF_MAX_PORTS || grow_rxqs(w, w->n_rxq + 1u) != 0)
		return -1;
	w->rxq[w->n_rxq++] = (struct aif_rxq){ .drive = d, .port = port, .queue = queue };
	w->by_drive_ok = 0;
	return 0;
}

int
aif_runner_add_rxq(struct aif_runner *w, uint16_t port, uint16_t queue)
{
	return aif_runner_add_rxq_of(w, 0, port, queue);
}

void
aif_runner_set_clock(struct aif_runner *w, const struct aif_clock *clock)
{
	w->clock = clock;
}

void
aif_runner_set_pace(struct aif_runner *w, aif_time_ns quantum_ns, aif_time_ns start_ns,
		    aif_time_ns *shared_ns)
{
	aif_clock_pace_init(&w->pace, quantum_ns, start_ns, shared_ns);
}

void
aif_runner_set_pace_hold(struct aif_runner *w, struct aif_clock_peer *peers, unsigned n,
			 unsigned self, aif_time_ns lookahead_ns, bool shares_core)
{
	aif_clock_pace_hold(&w->pace, peers, n, self, lookahead_ns);
	w->held_yields = shares_core;
}

aif_time_ns
aif_runner_pace_quantum_ns(const struct aif_runner *w)
{
	uint64_t fastest_mbps = 0;

	for (uint16_t d = 0; d < w->n_drive; d++) {
		const struct aif_switch *sw = w->drive[d].sw;
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			const struct aif_port *port = &sw->ports[p];
			/* emulated: it knows when its frames come (a link, a host) */
			if (port->base != NULL && port->base->rx_next_ns != NULL &&
			    port->speed_mbps > fastest_mbps)
				fastest_mbps = port->speed_mbps;
		}
	}
	if (fastest_mbps == 0)
		return AIF_TIME_NS_NEVER;
	/* bits / (mbps * 1e6) s = bits * 1000 / mbps ns, rounded down */
	aif_time_ns q = (aif_time_ns)AIF_MMU_RESPONSE_BITS * 1000 / fastest_mbps;
	return q != 0 ? q : 1;
}

/* The switch's egress QoS when this shard drives it and it is on. */
static inline struct aif_qos *
qos_of(const struct aif_switch *sw, const struct aif_shard *sh)
{
	struct aif_qos *q = sh->drives_qos ? __atomic_load_n(&sw->qos, __ATOMIC_ACQUIRE)
					   : NULL;
	return q != NULL && q->cfg.enable ? q : NULL;
}

/* The switch's path trace if it is on (one load per step). */
static inline struct aif_trace *
trace_on(const struct aif_switch *sw)
{
	struct aif_trace *tr = __atomic_load_n(&sw->trace, __ATOMIC_ACQUIRE);
	return tr != NULL && __atomic_load_n(&tr->on, __ATOMIC_ACQUIRE) ? tr : NULL;
}

/*
 * Move the packets of a burst the stages gave verdicts to.  Drops were
 * counted by the stages; the ones found here (QoS admission, PAUSE/PFC
 * refused) are counted here, on the ingress port.
 */
static inline __attribute__((always_inline)) void
dispatch(struct aif_switch *sw, struct aif_shard *sh, const struct aif_tables *t,
	 struct aif_qos *qos, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
	 aif_time_ns now_ns)
{
	const struct aif_fwd_out *o = &sh->out;
	struct aif_port *port = &sw->ports[in_port];
	struct rte_mbuf *dropped[AIF_BURST], *done[AIF_BURST];
	uint8_t why[AIF_BURST];
	uint16_t nd = 0, nf = 0;
	enum aif_drop_reason rc;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *mb = pkts[i];
		switch (o->next[i]) {
		case AIF_NEXT_ROUTE: {
			const struct aif_pkt *m = &o->meta[i];
			uint32_t len = rte_pktmbuf_pkt_len(mb); /* as sent */
			if (qos != NULL) {
				rc = aif_egress_enqueue(sh, qos, mb, m, o->port[i]);
				if (unlikely(rc != 0)) {
					sh->port_ctr[in_port].drops[rc]++;
					why[nd] = (uint8_t)rc;
					dropped[nd++] = mb;
					continue;
				}
			} else {
				aif_shard_send(sh, sw->ports, o->port[i], mb, now_ns);
			}
			if (m->member != UINT32_MAX) {
				sh->member_ctr[m->member].packets++;
				sh->member_ctr[m->member].bytes += len;
			}
			break;
		}
		case AIF_NEXT_REPLY:
			aif_shard_send(sh, sw->ports, o->port[i], mb, now_ns);
			break;
		case AIF_NEXT_MAC_CTRL:
			/* PAUSE/PFC: the pause state of the port, if QoS runs here */
			rc = qos == NULL ? AIF_DROP_MAC_CTRL
			   : aif_egress_pfc_input(qos, in_port, &t->ports[in_port].mac,
						  rte_pktmbuf_mtod(mb, const uint8_t *),
						  rte_pktmbuf_data_len(mb), now_ns);
			if (rc == 0) {
				done[nf++] = mb;
				break;
			}
			sh->port_ctr[in_port].drops[rc]++;
			why[nd] = (uint8_t)rc;
			dropped[nd++] = mb;
			break;
		case AIF_NEXT_CONSUMED:
			done[nf++] = mb;
			break;
		default: /* AIF_NEXT_DROP, counted by the stage */
			why[nd] = o->reason[i];
			dropped[nd++] = mb;
			break;
		}
	}
	for (uint16_t j = 0; j < o->n_built; j++)
		aif_shard_send(sh, sw->ports, o->built_port[j], o->built[j], now_ns);
	if (nf)
		rte_pktmbuf_free_bulk(done, nf);
	const struct aif_port_ops *ops = aif_port_ops(port);
	if (unlikely(ops->rx_done != NULL))
		ops->rx_done(port, sh->id, dropped, why, nd, now_ns);
	else if (nd)
		rte_pktmbuf_free_bulk(dropped, nd);
}

static inline __attribute__((always_inline)) void
process(struct aif_switch *sw, struct aif_shard *sh, const struct aif_tables *t,
	struct aif_qos *qos, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	if (unlikely(t == NULL)) {
		/* no config yet: nothing is routed */
		sh->port_ctr[in_port].rx_packets += n;
		for (uint16_t i = 0; i < n; i++) {
			sh->port_ctr[in_port].rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
			sh->out.next[i] = AIF_NEXT_DROP;
			sh->out.reason[i] = AIF_DROP_NO_ROUTE;
		}
		sh->port_ctr[in_port].drops[AIF_DROP_NO_ROUTE] += n;
		sh->out.n_built = 0;
	} else {
		aif_pipeline_run(&sh->fwd, t, in_port, pkts, n, now_ns, &sh->out);
	}
	dispatch(sw, sh, t, qos, in_port, pkts, n, now_ns);
}

void
aif_runner_process(struct aif_runner *w, uint16_t in_port, struct rte_mbuf **pkts,
		   uint16_t n, aif_time_ns now_ns)
{
	process(w->sw, w->sh, __atomic_load_n(&w->sw->tables, __ATOMIC_ACQUIRE),
		qos_of(w->sw, w->sh), in_port, pkts, n, now_ns);
}

/*
 * Start of a switch's steps: the RCU read side, the tables and QoS config,
 * the ports' link states, the trace -- what only control changes, so that
 * it holds through a run of the switch's steps where control does not run
 * between them (a runner's window, runner.h).
 */
static inline __attribute__((always_inline)) void
drive_open(struct aif_switch *sw, struct aif_shard *sh, aif_time_ns now_ns)
{
	/* The steps are the RCU read-side critical section (tables.h). */
	rte_rcu_qsbr_thread_online(sw->qsv, sh->id);
	const struct aif_tables *t = __atomic_load_n(&sw->tables, __ATOMIC_ACQUIRE);
	sh->tables = t; /* the steps' bursts all see this version */
	struct aif_qos *qos = sh->drives_qos ? __atomic_load_n(&sw->qos, __ATOMIC_ACQUIRE)
					     : NULL;
	if (qos != NULL) {
		if (t != NULL && t->generation != qos->generation)
			aif_qos_apply(qos, t->qos, t->generation, now_ns);
		/* what DRILL and least_loaded read: the MMU's live count per
		 * port ("queue_read": "packet"), or the copy a step makes */
		sh->fwd.port_qbytes = t != NULL && t->lb.queue_read == AIF_LB_QREAD_PACKET
				      ? qos->mmu.port_bytes : sh->port_qbytes;
	}
	sh->qos = qos != NULL && qos->cfg.enable ? qos : NULL; /* (qos_of, these steps) */
	/* the ports' link states, when one changed (port.h) */
	uint64_t gen = __atomic_load_n(&sw->link_gen, __ATOMIC_ACQUIRE);
	if (unlikely(gen != sh->link_gen)) {
		uint64_t up = 0;
		for (uint16_t p = 0; p < sw->n_ports; p++)
			up |= (uint64_t)(__atomic_load_n(&sw->ports[p].link_up,
							 __ATOMIC_RELAXED) != 0) << p;
		sh->fwd.link_up = up;
		sh->link_gen = gen;
	}
	sh->fwd.trace = trace_on(sw);
}

/* Start of each step: what the load-aware schemes see of the queues, the
 * adaptive bands. */
static inline __attribute__((always_inline)) void
drive_step_begin(struct aif_switch *sw, struct aif_shard *sh, aif_time_ns now_ns)
{
	const struct aif_tables *t = sh->tables;

	sh->steps++;
	if (t == NULL)
		return;
	/* what the load-aware schemes see: bytes queued per port */
	struct aif_qos *qos = t->lb_load_aware && sh->drives_qos
			      ? __atomic_load_n(&sw->qos, __ATOMIC_ACQUIRE) : NULL;
	for (uint16_t p = 0; qos != NULL && p < qos->n_ports; p++) {
		const uint32_t *qb = qos->mmu.port[p].queue_bytes;
		sh->port_qbytes[p] = qb[0] + qb[1] + qb[2] + qb[3] +
				     qb[4] + qb[5] + qb[6] + qb[7];
		memcpy(sh->port_tc_qbytes[p], qb, sizeof(sh->port_tc_qbytes[p]));
	}
	/* adaptive load balancing: quality bands, refreshed every period */
	if (t->lb_adaptive && now_ns >= sh->fwd.lb->next_band_ns) {
		uint64_t tx[AIF_MAX_PORTS], speed[AIF_MAX_PORTS];
		for (uint16_t p = 0; p < t->n_ports; p++) {
			tx[p] = sh->port_ctr[p].tx_bytes; /* this shard's share */
			speed[p] = (uint64_t)sw->ports[p].speed_mbps * 1000000;
		}
		aif_lb_adaptive_tick(sh->fwd.lb, &t->lb, tx, sh->port_qbytes, speed,
				     t->n_ports, now_ns);
	}
}

/* Start of a step for one switch: both. */
static inline __attribute__((always_inline)) void
drive_begin(struct aif_switch *sw, struct aif_shard *sh, aif_time_ns now_ns)
{
	drive_open(sw, sh, now_ns);
	drive_step_begin(sw, sh, now_ns);
}

/* End of each step: egress QoS, TX buffers. */
static inline __attribute__((always_inline)) void
drive_step_end(struct aif_switch *sw, struct aif_shard *sh, aif_time_ns now_ns)
{
	if (sh->qos != NULL)
		aif_egress_service(sw, sh, sh->qos, now_ns);
	aif_shard_flush(sh, sw->ports, sw->n_ports, now_ns);
}

/* End of a switch's steps: the quiescent state. */
static inline __attribute__((always_inline)) void
drive_close(struct aif_switch *sw, struct aif_shard *sh)
{
	sh->tables = NULL; /* not to be read past the critical section */
	sh->qos = NULL;
	rte_rcu_qsbr_thread_offline(sw->qsv, sh->id);
}

/* End of a step for one switch: both. */
static void
drive_end(struct aif_switch *sw, struct aif_shard *sh, aif_time_ns now_ns)
{
	drive_step_end(sw, sh, now_ns);
	drive_close(sw, sh);
}

/* One burst from RX queue q of drive d, through the stages; how many. */
static inline uint16_t
poll_rxq(struct aif_runner *w, const struct aif_drive *d, const struct aif_rxq *q,
	 aif_time_ns now_ns)
{
	struct rte_mbuf *pkts[AIF_BURST];
	struct aif_port *port = &d->sw->ports[q->port];
	uint16_t n = aif_port_ops(port)->rx_burst(port, q->queue, pkts, AIF_BURST, now_ns);

	if (n != 0)
		/* the burst's own time, once per burst (runner.h: Time) */
		process(d->sw, d->sh, d->sh->tables, d->sh->qos, q->port, pkts, n,
			w->clock != NULL ? aif_clock_pace_stamp(&w->pace, aif_clock_now(w->clock))
					 : now_ns);
	return n;
}

/* A drive's own next event: its egress (QoS) and its adaptive bands. */
static aif_time_ns
drive_own_next_ns(const struct aif_drive *d, aif_time_ns now_ns)
{
	struct aif_qos *qos = qos_of(d->sw, d->sh);
	const struct aif_tables *t = __atomic_load_n(&d->sw->tables, __ATOMIC_ACQUIRE);
	aif_time_ns next = AIF_TIME_NS_NEVER;

	if (qos != NULL)
		next = aif_egress_next_event_ns(d->sw, d->sh, qos, now_ns);
	if (t != NULL && t->lb_adaptive)
		next = RTE_MIN(next, d->sh->fwd.lb->next_band_ns);
	return next;
}

/* The BFD frames control left for the switch (switch.h bfd_tx), sent by
 * the shard that drives its QoS, as its own answers are (real time). */
static inline void
bfd_send(struct aif_switch *sw, struct aif_shard *sh, aif_time_ns now_ns)
{
	struct rte_ring *r = __atomic_load_n(&sw->bfd_tx, __ATOMIC_ACQUIRE);
	struct rte_mbuf *mb[8];

	if (likely(r == NULL) || !sh->drives_qos)
		return;
	unsigned n = rte_ring_sc_dequeue_burst(r, (void **)mb, RTE_DIM(mb), NULL);
	for (unsigned i = 0; i < n; i++) {
		if (mb[i]->port < sw->n_ports)
			aif_shard_send(sh, sw->ports, mb[i]->port, mb[i], now_ns);
		else
			rte_pktmbuf_free(mb[i]);
	}
}

/* Steps held one after the other before the runner gives its core to a
 * thread that may share it (the slower runner, on a core short of them). */
#define HELD_YIELD_STEPS 16

unsigned
aif_runner_step(struct aif_runner *w, aif_time_ns now_ns)
{
	unsigned total = 0;

	if (w->pace.quantum_ns != 0) {
		now_ns = aif_clock_pace_step(&w->pace, now_ns);
		/* held long by a slower runner (clock.h) that may be waiting
		 * for this one's core */
		if (unlikely(w->pace.held_run >= HELD_YIELD_STEPS) && w->held_yields)
			sched_yield();
	}
	w->steps++;
	for (uint16_t d = 0; d < w->n_drive; d++)
		drive_begin(w->drive[d].sw, w->drive[d].sh, now_ns);
	for (uint16_t i = 0; i < w->n_rxq; i++)
		total += poll_rxq(w, &w->drive[w->rxq[i].drive], &w->rxq[i], now_ns);
	for (uint16_t d = 0; d < w->n_drive; d++) {
		bfd_send(w->drive[d].sw, w->drive[d].sh, now_ns);
		drive_end(w->drive[d].sw, w->drive[d].sh, now_ns);
	}
	return total;
}

aif_time_ns
aif_runner_next_event_ns(struct aif_runner *w, aif_time_ns now_ns)
{
	aif_time_ns next = AIF_TIME_NS_NEVER;

	for (uint16_t i = 0; i < w->n_rxq; i++) {
		const struct aif_rxq *q = &w->rxq[i];
		struct aif_port *port = &w->drive[q->drive].sw->ports[q->port];
		const struct aif_port_ops *ops = aif_port_ops(port);
		if (ops->rx_next_ns != NULL)
			next = RTE_MIN(next, ops->rx_next_ns(port, q->queue));
	}
	for (uint16_t d = 0; d < w->n_drive; d++)
		next = RTE_MIN(next, drive_own_next_ns(&w->drive[d], now_ns));
	return next < now_ns ? now_ns : next;
}

static void rxq_stale_all(struct aif_runner *w);

/* rxq indices grouped by drive (counting sort, stable); every queue
 * stale. */
static void
index_by_drive(struct aif_runner *w)
{
	uint16_t *first = w->drive_rxq_first;

	rxt_free(w);
	w->drive_rxt = calloc(w->n_drive ? w->n_drive : 1, sizeof(*w->drive_rxt));
	w->drive_port_q = calloc((w->n_drive ? w->n_drive : 1) * (size_t)AIF_MAX_PORTS,
				 sizeof(*w->drive_port_q));
	if (w->drive_rxt == NULL || w->drive_port_q == NULL)
		rte_panic("runner: out of memory for %u drives' queue trees\n", w->n_drive);
	w->n_rxt = w->n_drive;
	uint64_t *at = w->drive_stale; /* the cursors; made all stale below */

	memset(first, 0, (w->n_drive + 1u) * sizeof(*first));
	for (uint16_t i = 0; i < w->n_rxq; i++)
		first[w->rxq[i].drive + 1]++;
	for (uint16_t d = 0; d < w->n_drive; d++) {
		first[d + 1] = (uint16_t)(first[d + 1] + first[d]);
		at[d] = first[d];
	}
	for (uint16_t i = 0; i < w->n_rxq; i++) {
		uint16_t k = (uint16_t)at[w->rxq[i].drive]++;
		w->rxq_by_drive[k] = i;
		w->rxq_pos[i] = k;
		w->drive_port_q[(size_t)w->rxq[i].drive * AIF_MAX_PORTS + w->rxq[i].port] |=
			1ull << (k - first[w->rxq[i].drive]);
	}
	/* every queue's next arrival 0: asked at the first step */
	for (uint16_t d = 0; d < w->n_drive; d++)
		if (aif_mintree_init(&w->drive_rxt[d], first[d + 1] - first[d], 0) != 0)
			rte_panic("runner: out of memory for drive %u's queue tree\n", d);
	w->by_drive_ok = 1;
	rxq_stale_all(w);
}

static inline uint64_t
drive_all_bits(const struct aif_runner *w, uint16_t d)
{
	unsigned n = w->drive_rxq_first[d + 1] - w->drive_rxq_first[d];

	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/*
 * A step of one drive polls its stale queues and those whose next frame is
 * due; a drive whose queues are all known and none due (its event is its
 * egress's) looks at none.  ~10 instructions per queue when any is due.
 */
static inline __attribute__((always_inline)) unsigned
step_drive(struct aif_runner *w, uint16_t d, aif_time_ns now_ns, bool held)
{
	const struct aif_drive *dr = &w->drive[d];
	unsigned total = 0;

	if (unlikely(!w->by_drive_ok))
		index_by_drive(w);
	w->steps++;
	if (held) /* the caller opened it (drive_open) and closes it */
		drive_step_begin(dr->sw, dr->sh, now_ns);
	else
		drive_begin(dr->sw, dr->sh, now_ns);
	uint16_t f = w->drive_rxq_first[d];
	uint64_t due = w->drive_stale[d] | aif_mintree_due(&w->drive_rxt[d], now_ns);
	w->drive_stale[d] = due; /* polled: ask again */
	while (due) {
		uint16_t j = (uint16_t)__builtin_ctzll(due);
		due &= due - 1;
		total += poll_rxq(w, dr, &w->rxq[w->rxq_by_drive[f + j]], now_ns);
	}
	if (held)
		drive_step_end(dr->sw, dr->sh, now_ns);
	else
		drive_end(dr->sw, dr->sh, now_ns);
	return total;
}

/* (inlined in the event source's fire, as process and dispatch in it: a
 * packet-hop's calls, some 50 instructions, 1.7%, on the hosts run) */
unsigned
aif_runner_step_drive(struct aif_runner *w, uint16_t d, aif_time_ns now_ns)
{
	return step_drive(w, d, now_ns, false);
}

static aif_time_ns
drive_next_ns(struct aif_runner *w, uint16_t d, aif_time_ns now_ns)
{
	struct aif_switch *sw = w->drive[d].sw;
	struct aif_shard *sh = w->drive[d].sh;

	if (unlikely(!w->by_drive_ok))
		index_by_drive(w);
	uint16_t f = w->drive_rxq_first[d];
	uint64_t wake = sh->wake_ports, ask = w->drive_stale[d], still = 0;
	const uint64_t *port_q = &w->drive_port_q[(size_t)d * AIF_MAX_PORTS];
	sh->wake_ports = 0;
	while (wake) { /* the woken ports' queues */
		ask |= port_q[__builtin_ctzll(wake)];
		wake &= wake - 1;
	}
	struct aif_mintree *rxt = &w->drive_rxt[d];
	if (ask != 0) {
		/* ask those again */
		while (ask) {
			uint16_t j = (uint16_t)__builtin_ctzll(ask);
			ask &= ask - 1;
			const struct aif_rxq *q = &w->rxq[w->rxq_by_drive[f + j]];
			struct aif_port *port = &sw->ports[q->port];
			const struct aif_port_ops *ops = aif_port_ops(port);
			if (ops->rx_next_ns != NULL) {
				aif_mintree_set(rxt, j, ops->rx_next_ns(port, q->queue));
			} else {
				aif_mintree_set(rxt, j, now_ns); /* a NIC: always */
				still |= 1ull << j;
			}
		}
		w->drive_stale[d] = still;
	}
	aif_time_ns next = RTE_MIN(aif_mintree_min(rxt), drive_own_next_ns(&w->drive[d], now_ns));
	return next < now_ns ? now_ns : next;
}

static void
rxq_arrival(struct aif_runner *w, uint16_t rxq, aif_time_ns at_ns)
{
	if (unlikely(!w->by_drive_ok))
		return; /* every queue is asked when the index is built */
	uint16_t d = w->rxq[rxq].drive, j = (uint16_t)(w->rxq_pos[rxq] - w->drive_rxq_first[d]);
	if (at_ns < aif_mintree_get(&w->drive_rxt[d], j))
		aif_mintree_set(&w->drive_rxt[d], j, at_ns);
}

static uint64_t
drive_sent(struct aif_runner *w, uint16_t d)
{
	struct aif_shard *sh = w->drive[d].sh;
	uint64_t sent = sh->sent_ports;

	sh->sent_ports = 0;
	return sent;
}

static void
rxq_stale(struct aif_runner *w, uint16_t rxq)
{
	if (unlikely(!w->by_drive_ok) || rxq >= w->n_rxq)
		return;
	uint16_t d = w->rxq[rxq].drive;
	w->drive_stale[d] |= 1ull << (w->rxq_pos[rxq] - w->drive_rxq_first[d]);
}

static void
rxq_stale_all(struct aif_runner *w)
{
	if (!w->by_drive_ok)
		return; /* the index makes them so */
	for (uint16_t d = 0; d < w->n_drive; d++)
		w->drive_stale[d] = drive_all_bits(w, d);
}

/* ---- the runner as an event source (runner.h aif_runner_source) ---- */

struct aif_runner_ev {
	struct aif_ev_source src;
	struct aif_runner *w;
	uint64_t packets;
	/* each drive's next event: in windows (runner.h) dnext[d], else the
	 * min tree's slot d */
	bool windows;
	aif_time_ns *dnext;
	struct aif_mintree next;
	/* the groups, in the order of their first drive: group g's drives are
	 * grp_drive[grp_first[g] .. grp_first[g + 1]), in drive order; the
	 * lookahead, the shortest delay of a link between two (NEVER: none) */
	uint16_t n_grp;
	uint16_t *grp_first;
	uint16_t *grp_drive;
	aif_time_ns lookahead_ns;
	/* the links between two of its drives, entry k for each: the drive at
	 * the far end (list), its RX queue there, the near end's port; k_of
	 * [n_drive * AIF_MAX_PORTS]: drive d's port p's entry k + 1, or 0 */
	uint16_t *list;
	uint16_t *far_rxq;
	struct aif_port **near;
	uint32_t *k_of;
	/* RX queues woken from outside (aif_runner_wake) */
	uint16_t *woken;
	uint32_t n_woken, cap_woken;
	/* per-drive times (aif_runner_drive_ticks): drive d's next dtick[d]
	 * (NULL: none asked), what is called then, the latest done */
	aif_time_ns *dtick;
	aif_time_ns (*tick_fn)(void *arg, uint16_t d, aif_time_ns t);
	void *tick_arg;
	aif_time_ns tick_last;
	/* links to switches other runners drive (windows.h): the RX queues
	 * they deliver to here, and the ports that send there with how many
	 * frames each had put when last asked */
	uint16_t *cut_rxq;
	uint32_t n_cut_rxq;
	struct aif_port **cut_tx;
	uint32_t *cut_mark;
	uint32_t n_cut_tx;
};

static void
source_free(struct aif_runner_ev *ev)
{
	if (ev == NULL)
		return;
	aif_mintree_free(&ev->next);
	free(ev->dnext);
	free(ev->dtick);
	free(ev->grp_first);
	free(ev->grp_drive);
	free(ev->list);
	free(ev->far_rxq);
	free(ev->near);
	free(ev->k_of);
	free(ev->woken);
	free(ev->cut_rxq);
	free(ev->cut_tx);
	free(ev->cut_mark);
	free(ev);
}

/* Does the runner drive sw? */
static bool
drives(const struct aif_runner *w, const struct aif_switch *sw)
{
	for (uint16_t x = 0; x < w->n_drive; x++)
		if (w->drive[x].sw == sw)
			return true;
	return false;
}

/* The links whose far end another runner drives: the queues they deliver
 * to here, the ports that send there. */
static int
cut_build(struct aif_runner_ev *ev, const struct aif_runner *w)
{
	uint32_t n = 0;

	for (uint16_t d = 0; d < w->n_drive; d++)
		n += w->drive[d].sw->n_ports;
	ev->cut_rxq = calloc(w->n_rxq ? w->n_rxq : 1, sizeof(*ev->cut_rxq));
	ev->cut_tx = calloc(n ? n : 1, sizeof(*ev->cut_tx));
	ev->cut_mark = calloc(n ? n : 1, sizeof(*ev->cut_mark));
	if (ev->cut_rxq == NULL || ev->cut_tx == NULL || ev->cut_mark == NULL)
		return -1;
	for (uint16_t i = 0; i < w->n_rxq; i++) {
		const struct aif_port *far =
			aif_link_peer(&w->drive[w->rxq[i].drive].sw->ports[w->rxq[i].port]);
		if (far != NULL && !drives(w, far->sw))
			ev->cut_rxq[ev->n_cut_rxq++] = i;
	}
	for (uint16_t d = 0; d < w->n_drive; d++) {
		struct aif_switch *sw = w->drive[d].sw;
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			const struct aif_port *far = aif_link_peer(&sw->ports[p]);
			if (far == NULL || drives(w, far->sw))
				continue;
			ev->cut_mark[ev->n_cut_tx] = aif_link_sent_mark(&sw->ports[p]);
			ev->cut_tx[ev->n_cut_tx++] = &sw->ports[p];
		}
	}
	return 0;
}

/* Who is at the far end of each drive's links, and their RX queue. */
static int
peers_build(struct aif_runner_ev *ev, const struct aif_runner *w)
{
	uint32_t n = 0, k = 0;

	for (uint16_t d = 0; d < w->n_drive; d++)
		n += w->drive[d].sw->n_ports;
	ev->list = calloc(n ? n : 1, sizeof(*ev->list));
	ev->near = calloc(n ? n : 1, sizeof(*ev->near));
	ev->far_rxq = calloc(n ? n : 1, sizeof(*ev->far_rxq));
	ev->k_of = calloc((w->n_drive ? w->n_drive : 1) * (size_t)AIF_MAX_PORTS,
			  sizeof(*ev->k_of));
	if (ev->list == NULL || ev->near == NULL || ev->far_rxq == NULL || ev->k_of == NULL)
		return -1;
	for (uint16_t d = 0; d < w->n_drive; d++) {
		struct aif_switch *sw = w->drive[d].sw;
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			const struct aif_port *far = aif_link_peer(&sw->ports[p]);
			for (uint16_t x = 0; far != NULL && x < w->n_drive; x++)
				if (w->drive[x].sw == far->sw && x != d) {
					uint16_t r = 0;
					while (r < w->n_rxq && !(w->rxq[r].drive == x &&
								 w->rxq[r].port == far->index))
						r++;
					if (r == w->n_rxq)
						break; /* not polled: nothing to tell */
					ev->near[k] = &sw->ports[p];
					ev->far_rxq[k] = r;
					ev->k_of[(size_t)d * AIF_MAX_PORTS + p] = k + 1;
					ev->list[k++] = x;
					break;
				}
		}
	}
	return 0;
}

void
aif_runner_wake(struct aif_runner *w, uint16_t rxq)
{
	struct aif_runner_ev *ev = w->ev;

	if (ev == NULL || w->clock != NULL)
		return; /* no source, or real time: every queue every step */
	if (ev->n_woken == ev->cap_woken) {
		uint32_t cap = ev->cap_woken ? 2 * ev->cap_woken : 64;
		uint16_t *x = realloc(ev->woken, sizeof(*x) * cap);
		if (x == NULL)
			return; /* asked again at the next refresh anyway */
		ev->woken = x;
		ev->cap_woken = cap;
	}
	ev->woken[ev->n_woken++] = rxq;
}

/* The earliest next event of all drives, and (d not NULL) the first
 * drive that has it. */
static aif_time_ns
next_min(const struct aif_runner_ev *ev, uint16_t *d)
{
	if (!ev->windows) {
		if (d != NULL)
			*d = (uint16_t)aif_mintree_argmin(&ev->next);
		return aif_mintree_min(&ev->next);
	}
	aif_time_ns t = AIF_TIME_NS_NEVER;
	uint16_t first = 0;
	for (uint16_t x = 0; x < ev->w->n_drive; x++)
		if (ev->dnext[x] < t) {
			t = ev->dnext[x];
			first = x;
		}
	if (d != NULL)
		*d = first;
	return t;
}

static aif_time_ns
source_next(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct aif_runner_ev *ev = (struct aif_runner_ev *)s;

	if (ev->w->clock != NULL)
		return now_ns; /* real time: always (a NIC cannot say) */
	return next_min(ev, NULL);
}

/* Drive d's next event is t now. */
static inline void
next_set(struct aif_runner_ev *ev, uint16_t d, aif_time_ns t)
{
	if (ev->windows)
		ev->dnext[d] = t;
	else
		aif_mintree_set(&ev->next, d, t);
}

/* Drive d's next event is t, if that is sooner (not before now). */
static inline void
next_sooner(struct aif_runner_ev *ev, uint16_t d, aif_time_ns t, aif_time_ns now_ns)
{
	if (ev->windows) {
		if (t < ev->dnext[d])
			ev->dnext[d] = t < now_ns ? now_ns : t;
	} else if (t < aif_mintree_get(&ev->next, d)) {
		aif_mintree_set(&ev->next, d, t < now_ns ? now_ns : t);
	}
}

/* Every drive's next event again (something outside changed). */
static void
source_refresh(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct aif_runner_ev *ev = (struct aif_runner_ev *)s;
	struct aif_runner *w = ev->w;

	ev->n_woken = 0;
	if (w->clock != NULL)
		return;
	rxq_stale_all(w);
	for (uint16_t d = 0; d < w->n_drive; d++)
		next_set(ev, d, drive_next_ns(w, d, now_ns));
}

/* Drive d's step at now_ns, its next event (virtual time), and the next
 * events it moved. */
static inline __attribute__((always_inline)) void
fire_drive(struct aif_runner_ev *ev, uint16_t d, aif_time_ns now_ns, bool held)
{
	struct aif_runner *w = ev->w;

	ev->packets += step_drive(w, d, now_ns, held);
	next_set(ev, d, drive_next_ns(w, d, now_ns));
	/* queues woken from outside: their drives' next events again */
	for (uint32_t i = 0; i < ev->n_woken; i++) {
		uint16_t q = ev->woken[i];
		if (q >= w->n_rxq)
			continue;
		uint16_t x = w->rxq[q].drive;
		rxq_stale(w, q);
		next_set(ev, x, drive_next_ns(w, x, now_ns));
	}
	ev->n_woken = 0;
	/* what it sent can only bring its peers' next events closer: the
	 * next arrival on each link it sent on */
	uint64_t sent = drive_sent(w, d);
	const uint32_t *k_of = &ev->k_of[(size_t)d * AIF_MAX_PORTS];
	while (sent) {
		uint32_t k = k_of[__builtin_ctzll(sent)];
		sent &= sent - 1;
		if (k-- == 0)
			continue; /* no peer of this runner's there */
		aif_time_ns a = aif_link_peer_rx_next_ns(ev->near[k]);
		rxq_arrival(w, ev->far_rxq[k], a);
		next_sooner(ev, ev->list[k], a, now_ns);
	}
}

/* Drive d's own times at or before t (aif_runner_drive_ticks): before
 * its events at t, after those before. */
static inline void
drive_ticks_to(struct aif_runner_ev *ev, uint16_t d, aif_time_ns t)
{
	while (ev->dtick[d] <= t) {
		aif_time_ns at = ev->dtick[d];
		ev->tick_last = RTE_MAX(ev->tick_last, at);
		ev->dtick[d] = ev->tick_fn(ev->tick_arg, d, at);
		if (ev->dtick[d] <= at)
			ev->dtick[d] = AIF_TIME_NS_NEVER; /* (never back in time) */
	}
}

static unsigned
source_fire(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct aif_runner_ev *ev = (struct aif_runner_ev *)s;
	uint16_t d;

	if (ev->w->clock != NULL) {
		ev->packets += aif_runner_step(ev->w, now_ns);
	} else {
		/* the earliest drive, the first of equals (as a scan would) */
		next_min(ev, &d);
		if (ev->dtick != NULL)
			drive_ticks_to(ev, d, now_ns);
		fire_drive(ev, d, now_ns, false);
	}
	return 0;
}

/* Windows (runner.h): from the earliest next event t0, each group's
 * events before t0 + lookahead (and before before_ns, up to end_ns), group
 * by group; a window begun is run whole. */
static unsigned
run_windows(struct aif_runner_ev *ev, struct aif_clock *clock, aif_time_ns before_ns,
	    aif_time_ns end_ns, unsigned max, aif_time_ns *last_ns)
{
	const aif_time_ns *dn = ev->dnext;
	aif_time_ns last = 0;
	unsigned n = 0;

	while (n < max) {
		aif_time_ns t0 = next_min(ev, NULL);
		if (t0 >= before_ns || t0 > end_ns || t0 == AIF_TIME_NS_NEVER)
			break;
		/* the window [t0, e) */
		aif_time_ns e = ev->lookahead_ns < AIF_TIME_NS_NEVER - t0 ? t0 + ev->lookahead_ns
									 : AIF_TIME_NS_NEVER;
		e = RTE_MIN(e, before_ns);
		if (end_ns < e)
			e = end_ns + 1; /* (end_ns < e <= NEVER) */
		for (uint16_t g = 0; g < ev->n_grp; g++) {
			const uint16_t *gd = &ev->grp_drive[ev->grp_first[g]];
			unsigned k = ev->grp_first[g + 1] - ev->grp_first[g];
			aif_time_ns t;
			if (k == 1) {
				/* its steps in one critical section: nothing but
				 * they run until it closes (drive_open); its own
				 * times (drive_ticks_to) between them, outside */
				uint16_t d = gd[0];
				for (;;) {
					aif_time_ns tk = ev->dtick != NULL ? ev->dtick[d]
									  : AIF_TIME_NS_NEVER;
					aif_time_ns lim = RTE_MIN(e, tk);
					if ((t = dn[d]) < lim) {
						drive_open(ev->w->drive[d].sw, ev->w->drive[d].sh, t);
						do {
							aif_clock_set(clock, t);
							fire_drive(ev, d, t, true);
							last = RTE_MAX(last, t);
							n++;
						} while ((t = dn[d]) < lim);
						drive_close(ev->w->drive[d].sw, ev->w->drive[d].sh);
					}
					if (tk >= e)
						break;
					drive_ticks_to(ev, d, tk);
				}
				continue;
			}
			for (;;) { /* the group's earliest, the first of equals */
				uint16_t d = gd[0], x = gd[0];
				t = dn[d];
				aif_time_ns tk = ev->dtick != NULL ? ev->dtick[x] : AIF_TIME_NS_NEVER;
				for (unsigned i = 1; i < k; i++) {
					if (dn[gd[i]] < t) {
						d = gd[i];
						t = dn[d];
					}
					if (ev->dtick != NULL && ev->dtick[gd[i]] < tk) {
						x = gd[i];
						tk = ev->dtick[x];
					}
				}
				if (tk <= t && tk < e) { /* its own time first */
					drive_ticks_to(ev, x, tk);
					continue;
				}
				if (t >= e)
					break;
				aif_clock_set(clock, t);
				fire_drive(ev, d, t, false);
				last = RTE_MAX(last, t);
				n++;
			}
		}
	}
	if (n != 0)
		*last_ns = last;
	return n;
}

/* The loop's fires one after the other, without the loop (evloop.h). */
static unsigned
source_run(struct aif_ev_source *s, struct aif_clock *clock, aif_time_ns before_ns,
	   aif_time_ns end_ns, unsigned max, aif_time_ns *last_ns)
{
	struct aif_runner_ev *ev = (struct aif_runner_ev *)s;
	unsigned n = 0;

	if (ev->w->clock != NULL)
		return 0; /* real time: one step at a time */
	if (ev->windows)
		return run_windows(ev, clock, before_ns, end_ns, max, last_ns);
	for (; n < max; n++) {
		aif_time_ns t = aif_mintree_min(&ev->next);
		if (t >= before_ns || t > end_ns || t == AIF_TIME_NS_NEVER)
			break;
		aif_clock_set(clock, t);
		fire_drive(ev, (uint16_t)aif_mintree_argmin(&ev->next), t, false);
		*last_ns = t;
	}
	return n;
}

static const struct aif_ev_ops source_ops = {
	.next_ns = source_next, .fire = source_fire, .refresh = source_refresh,
	.run = source_run,
};

int
aif_runner_drive_ticks(struct aif_runner *w, aif_time_ns first_ns,
		       aif_time_ns (*fn)(void *arg, uint16_t d, aif_time_ns t), void *arg)
{
	struct aif_runner_ev *ev = w->ev;

	if (ev == NULL || !ev->windows || w->clock != NULL || ev->dtick != NULL)
		return -1;
	ev->dtick = malloc((w->n_drive ? w->n_drive : 1) * sizeof(*ev->dtick));
	if (ev->dtick == NULL)
		return -1;
	for (uint16_t d = 0; d < w->n_drive; d++)
		ev->dtick[d] = first_ns;
	ev->tick_fn = fn;
	ev->tick_arg = arg;
	ev->tick_last = 0;
	return 0;
}

aif_time_ns
aif_runner_drive_ticks_until(struct aif_runner *w, aif_time_ns until_ns)
{
	struct aif_runner_ev *ev = w->ev;

	if (ev == NULL || ev->dtick == NULL)
		return 0;
	for (uint16_t d = 0; d < w->n_drive; d++)
		drive_ticks_to(ev, d, until_ns);
	return ev->tick_last;
}

void
aif_runner_tie(struct aif_runner *w, uint16_t a, uint16_t b)
{
	if (a >= w->n_drive || b >= w->n_drive)
		return;
	if (w->cap_tie < w->n_drive) {
		uint16_t *up = realloc(w->tie_up, sizeof(*up) * w->n_drive);
		if (up == NULL) {
			w->tie_nomem = 1; /* one time order for all, then */
			return;
		}
		for (uint16_t x = w->cap_tie; x < w->n_drive; x++)
			up[x] = x;
		w->tie_up = up;
		w->cap_tie = w->n_drive;
	}
	aif_groups_join(w->tie_up, a, b);
}

/*
 * The groups and the lookahead (runner.h: which switch steps next): the
 * ties, joined again along links without delay, numbered in the order of
 * their first drive; windows unless a group is too large to scan.
 */
static int
groups_build(struct aif_runner_ev *ev, const struct aif_runner *w)
{
	uint16_t n = w->n_drive, *up = calloc(n ? n : 1, sizeof(*up));
	uint16_t *num = calloc(n ? n : 1, sizeof(*num));
	int rc = -1;

	ev->dnext = calloc(n ? n : 1, sizeof(*ev->dnext));
	ev->grp_first = calloc(n + 1u, sizeof(*ev->grp_first));
	ev->grp_drive = calloc(n ? n : 1, sizeof(*ev->grp_drive));
	if (up == NULL || num == NULL || ev->dnext == NULL || ev->grp_first == NULL ||
	    ev->grp_drive == NULL)
		goto out;
	for (uint16_t d = 0; d < n; d++)
		up[d] = d < w->cap_tie ? w->tie_up[d] : d;
	for (uint16_t d = 0; d < n; d++)
		for (uint16_t p = 0; p < AIF_MAX_PORTS; p++) {
			uint32_t k = ev->k_of[(size_t)d * AIF_MAX_PORTS + p];
			if (k != 0 && aif_link_delay_ns(ev->near[k - 1]) == 0)
				aif_groups_join(up, d, ev->list[k - 1]);
		}
	/* numbered by first drive; counted, then placed in drive order */
	uint16_t g = aif_groups_number(up, n, num), most = 0;
	for (uint16_t d = 0; d < n; d++)
		ev->grp_first[num[d] + 1]++;
	ev->n_grp = g;
	for (uint16_t x = 0; x < g; x++) {
		most = RTE_MAX(most, ev->grp_first[x + 1]);
		ev->grp_first[x + 1] = (uint16_t)(ev->grp_first[x + 1] + ev->grp_first[x]);
	}
	uint16_t *at = up; /* (the roots are no longer needed) */
	memcpy(at, ev->grp_first, sizeof(*at) * g);
	for (uint16_t d = 0; d < n; d++)
		ev->grp_drive[at[num[d]]++] = d;
	ev->lookahead_ns = AIF_TIME_NS_NEVER;
	for (uint16_t d = 0; d < n; d++)
		for (uint16_t p = 0; p < AIF_MAX_PORTS; p++) {
			uint32_t k = ev->k_of[(size_t)d * AIF_MAX_PORTS + p];
			if (k != 0 && num[d] != num[ev->list[k - 1]])
				ev->lookahead_ns = RTE_MIN(ev->lookahead_ns,
							   aif_link_delay_ns(ev->near[k - 1]));
		}
	ev->windows = !w->tie_nomem && most <= AIF_RUNNER_GROUP_MAX;
	rc = 0;
out:
	free(up);
	free(num);
	return rc;
}

struct aif_ev_source *
aif_runner_source(struct aif_runner *w)
{
	struct aif_runner_ev *ev = w->ev;

	if (ev != NULL)
		return &ev->src;
	ev = calloc(1, sizeof(*ev));
	if (ev == NULL)
		return NULL;
	ev->w = w;
	ev->src = (struct aif_ev_source){ .ops = &source_ops, .flags = AIF_EV_WORK };
	if (aif_mintree_init(&ev->next, w->n_drive, 0) != 0 || peers_build(ev, w) != 0 ||
	    cut_build(ev, w) != 0 || groups_build(ev, w) != 0) {
		source_free(ev);
		return NULL;
	}
	w->ev = ev;
	return &ev->src;
}

uint64_t
aif_runner_source_packets(const struct aif_runner *w)
{
	return w->ev != NULL ? w->ev->packets : 0;
}

void
aif_runner_absorb(struct aif_runner *w, aif_time_ns now_ns)
{
	struct aif_runner_ev *ev = w->ev;

	if (ev == NULL || w->clock != NULL)
		return;
	/* as the sender does for its own peers after a step (source_fire) */
	for (uint32_t i = 0; i < ev->n_cut_rxq; i++) {
		const struct aif_rxq *q = &w->rxq[ev->cut_rxq[i]];
		struct aif_port *port = &w->drive[q->drive].sw->ports[q->port];
		aif_time_ns a = aif_port_ops(port)->rx_next_ns(port, q->queue);
		if (a == AIF_TIME_NS_NEVER)
			continue;
		rxq_arrival(w, ev->cut_rxq[i], a);
		next_sooner(ev, q->drive, a, now_ns);
	}
}

aif_time_ns
aif_runner_sent_across(struct aif_runner *w)
{
	struct aif_runner_ev *ev = w->ev;
	aif_time_ns first = AIF_TIME_NS_NEVER;

	for (uint32_t i = 0; ev != NULL && i < ev->n_cut_tx; i++)
		first = RTE_MIN(first, aif_link_sent_since(ev->cut_tx[i], &ev->cut_mark[i]));
	return first;
}

uint32_t
aif_runner_cut_links(const struct aif_runner *w)
{
	return w->ev != NULL ? w->ev->n_cut_tx : 0;
}
