/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch object: creation, table publication, counter sums, neighbour
 * learning.  Everything here runs on the control thread; the protocols are
 * described in switch.h, tables.h and neigh.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "../pipelines/lb.h"
#include "bfd.h"
#include "qos.h"
#include "shard.h"
#include "switch.h"
#include "trace.h"

#define LEARN_RING_SIZE 1024
#define BFD_RING_SIZE 256 /* heard or to send between two control polls */

struct aif_switch *
aif_switch_create(const char *name, uint16_t index, uint16_t n_shards,
		  struct rte_mempool *pool)
{
	char rname[RTE_RING_NAMESIZE];
	struct aif_switch *sw;

	if (n_shards == 0 || n_shards > AIF_MAX_SHARDS ||
	    aif_qos_register_dynfield() != 0)
		return NULL;
	sw = rte_zmalloc("aif_switch", sizeof(*sw), RTE_CACHE_LINE_SIZE);
	if (sw == NULL)
		return NULL;
	snprintf(sw->name, sizeof(sw->name), "%s", name);
	sw->index = index;
	sw->n_shards = n_shards;
	sw->pool = pool;
	sw->link_gen = 1; /* the shards read the ports' links at their first step */
	for (uint16_t p = 0; p < AIF_MAX_PORTS; p++) {
		sw->ports[p].index = p;
		sw->ports[p].sw = sw;
		sw->ports[p].link_gen = &sw->link_gen;
	}

	size_t qsz = rte_rcu_qsbr_get_memsize(n_shards);
	sw->qsv = rte_zmalloc("aif_qsbr", qsz, RTE_CACHE_LINE_SIZE);
	if (sw->qsv == NULL || rte_rcu_qsbr_init(sw->qsv, n_shards) != 0)
		goto err;

	/* on the heap, not in a memzone (rte_ring_create): a fabric has
	 * hundreds of switches and the process RTE_MAX_MEMZONE (2,560) */
	snprintf(rname, sizeof(rname), "aif_learn_%u", index);
	ssize_t rsz = rte_ring_get_memsize_elem(sizeof(struct aif_learn), LEARN_RING_SIZE);
	if (rsz < 0 ||
	    (sw->learn_ring = rte_zmalloc(rname, (size_t)rsz, RTE_CACHE_LINE_SIZE)) == NULL ||
	    rte_ring_init(sw->learn_ring, rname, LEARN_RING_SIZE, RING_F_SC_DEQ) != 0)
		goto err;

	/* DPDK names are process-wide: unique per switch ever made */
	static unsigned seq;
	snprintf(rname, sizeof(rname), "aif_nb_%u", seq++);
	sw->neigh = aif_neigh_create(rname, AIF_NEIGH_SLOTS, sw->qsv);
	if (sw->neigh == NULL)
		goto err;
	for (uint16_t i = 0; i < n_shards; i++) {
		struct aif_shard *sh = aif_shard_create(i, 0); /* seeded by its runner */
		if (sh == NULL)
			goto err;
		sh->drives_qos = i == 0;
		sh->fwd.neigh = sw->neigh;
		sh->fwd.learn_ring = sw->learn_ring;
		sh->fwd.pool = pool;
		sw->shards[i] = sh;
	}
	return sw;
err:
	aif_switch_free(sw);
	return NULL;
}

static void
switch_free(struct aif_switch *sw, bool at_exit)
{
	if (sw == NULL)
		return;
	for (unsigned i = 0; i < sw->n_shards; i++)
		if (at_exit)
			aif_shard_free_at_exit(sw->shards[i]);
		else
			aif_shard_free(sw->shards[i]);
	aif_tables_free(sw->tables);
	aif_qos_free(sw->qos);
	aif_trace_free(sw->trace, sw->n_shards);
	if (at_exit)
		aif_neigh_free_at_exit(sw->neigh);
	else
		aif_neigh_free(sw->neigh);
	rte_free(sw->learn_ring);
	if (sw->bfd_tx != NULL) {
		struct rte_mbuf *mb;
		while (rte_ring_dequeue(sw->bfd_tx, (void **)&mb) == 0)
			rte_pktmbuf_free(mb);
	}
	rte_free(sw->bfd_tx);
	rte_free(sw->bfd_rx);
	free(sw->member_keys);
	free(sw->member_base);
	rte_free(sw->qsv);
	rte_free(sw);
}

void
aif_switch_free(struct aif_switch *sw)
{
	switch_free(sw, false);
}

void
aif_switch_free_at_exit(struct aif_switch *sw)
{
	switch_free(sw, true);
}

int
aif_switch_bfd_rings(struct aif_switch *sw)
{
	char rname[RTE_RING_NAMESIZE];
	struct rte_ring *rx = NULL, *tx = NULL;

	if (sw->bfd_rx != NULL)
		return 0;
	snprintf(rname, sizeof(rname), "aif_bfdr_%u", sw->index);
	ssize_t rsz = rte_ring_get_memsize_elem(sizeof(struct aif_bfd_heard), BFD_RING_SIZE);
	ssize_t tsz = rte_ring_get_memsize(BFD_RING_SIZE);
	if (rsz < 0 || tsz < 0 ||
	    (rx = rte_zmalloc(rname, (size_t)rsz, RTE_CACHE_LINE_SIZE)) == NULL ||
	    rte_ring_init(rx, rname, BFD_RING_SIZE, RING_F_SC_DEQ) != 0)
		goto err;
	snprintf(rname, sizeof(rname), "aif_bfdt_%u", sw->index);
	if ((tx = rte_zmalloc(rname, (size_t)tsz, RTE_CACHE_LINE_SIZE)) == NULL ||
	    rte_ring_init(tx, rname, BFD_RING_SIZE, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0)
		goto err;
	for (uint16_t i = 0; i < sw->n_shards; i++)
		sw->shards[i]->fwd.bfd_rx = rx;
	/* the pipeline reaches bfd_rx only through tables published after
	 * this (aif_tables_compile); the runners load bfd_tx (acquire) */
	sw->bfd_rx = rx;
	__atomic_store_n(&sw->bfd_tx, tx, __ATOMIC_RELEASE);
	return 0;
err:
	rte_free(rx);
	rte_free(tx);
	return -1;
}

void
aif_switch_publish(struct aif_switch *sw, struct aif_tables *t)
{
	struct aif_tables *old = sw->tables;

	t->generation = ++sw->generation;
	__atomic_store_n(&sw->tables, t, __ATOMIC_RELEASE);
	/* Workers are online only inside a step, so this waits one step at most. */
	rte_rcu_qsbr_synchronize(sw->qsv, RTE_QSBR_THRID_INVALID);
	aif_tables_free(old);
}

static void
sum_words(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static void
raw_port_counters(const struct aif_switch *sw, uint16_t port,
		  struct aif_port_ctr *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned w = 0; w < sw->n_shards; w++)
		if (sw->shards[w] != NULL)
			sum_words((uint64_t *)out,
				  (const uint64_t *)&sw->shards[w]->port_ctr[port],
				  AIF_PORT_CTR_WORDS);
}

static void
raw_member_counters(const struct aif_switch *sw, uint32_t slot,
		    struct aif_member_sums *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned w = 0; w < sw->n_shards; w++) {
		const struct aif_shard *sh = sw->shards[w];
		if (sh == NULL)
			continue;
		const struct aif_lb_state *lb = sh->fwd.lb;
		out->packets += __atomic_load_n(&sh->member_ctr[slot].packets, __ATOMIC_RELAXED);
		out->bytes += __atomic_load_n(&sh->member_ctr[slot].bytes, __ATOMIC_RELAXED);
		out->flowlet_starts +=
			__atomic_load_n(&lb->flowlet_starts[slot], __ATOMIC_RELAXED);
		out->reselections +=
			__atomic_load_n(&lb->reselections[slot], __ATOMIC_RELAXED);
		out->flowlet_collisions +=
			__atomic_load_n(&lb->flowlet_collisions[slot], __ATOMIC_RELAXED);
		out->flowlet_untracked +=
			__atomic_load_n(&lb->flowlet_untracked[slot], __ATOMIC_RELAXED);
	}
}

void
aif_switch_port_counters(const struct aif_switch *sw, uint16_t port,
			 struct aif_port_ctr *out)
{
	raw_port_counters(sw, port, out);
	uint64_t *o = (uint64_t *)out;
	const uint64_t *b = (const uint64_t *)&sw->port_base[port];
	for (size_t i = 0; i < AIF_PORT_CTR_WORDS; i++)
		o[i] -= b[i];
}

void
aif_switch_member_counters(const struct aif_switch *sw, uint32_t slot,
			   struct aif_member_sums *out)
{
	raw_member_counters(sw, slot, out);
	const struct aif_member_sums *b = &sw->member_base[slot];
	out->packets -= b->packets;
	out->bytes -= b->bytes;
	out->flowlet_starts -= b->flowlet_starts;
	out->reselections -= b->reselections;
	out->flowlet_collisions -= b->flowlet_collisions;
	out->flowlet_untracked -= b->flowlet_untracked;
}

void
aif_switch_member_slot_reset(struct aif_switch *sw, uint32_t slot)
{
	raw_member_counters(sw, slot, &sw->member_base[slot]);
}

int
aif_switch_member_slots_grow(struct aif_switch *sw, uint32_t n)
{
	uint32_t cap = sw->n_member_slots ? sw->n_member_slots : 64;
	struct aif_member_key *k;
	struct aif_member_sums *b;

	if (n <= sw->n_member_slots)
		return 0;
	if (n > AIF_MAX_MEMBER_SLOTS)
		return -1;
	while (cap < n)
		cap *= 2;
	if (cap > AIF_MAX_MEMBER_SLOTS)
		cap = AIF_MAX_MEMBER_SLOTS;
	k = realloc(sw->member_keys, cap * sizeof(*k));
	if (k == NULL)
		return -1;
	sw->member_keys = k;
	b = realloc(sw->member_base, cap * sizeof(*b));
	if (b == NULL)
		return -1;
	sw->member_base = b;
	memset(k + sw->n_member_slots, 0, (cap - sw->n_member_slots) * sizeof(*k));
	memset(b + sw->n_member_slots, 0, (cap - sw->n_member_slots) * sizeof(*b));
	sw->n_member_slots = cap;
	return 0;
}

void
aif_switch_clear_counters(struct aif_switch *sw)
{
	for (uint16_t p = 0; p < sw->n_ports; p++)
		raw_port_counters(sw, p, &sw->port_base[p]);
	for (uint32_t s = 0; s < sw->n_member_slots; s++)
		if (sw->member_keys[s].used)
			raw_member_counters(sw, s, &sw->member_base[s]);
}

/* Is ip on one of the subnets of port p? */
static bool
on_port_subnet(const struct aif_tables *t, uint16_t p, const struct aif_ip *ip)
{
	const struct aif_port_l3 *l3 = &t->ports[p];
	for (unsigned i = 0; i < l3->n_addrs; i++)
		if (aif_prefix_contains(&l3->addrs[i], ip) &&
		    !aif_ip_equal(&l3->addrs[i].addr, ip))
			return true;
	return false;
}

unsigned
aif_switch_learn(struct aif_switch *sw, aif_time_ns now_ns)
{
	struct aif_learn ev[32];
	unsigned n, total = 0;
	const struct aif_tables *t = sw->tables;

	while ((n = rte_ring_dequeue_burst_elem(sw->learn_ring, ev, sizeof(ev[0]),
						RTE_DIM(ev), NULL)) > 0) {
		total += n;
		for (unsigned i = 0; t != NULL && i < n; i++) {
			if (ev[i].port >= t->n_ports ||
			    !on_port_subnet(t, ev[i].port, &ev[i].ip))
				continue;
			aif_neigh_learn(sw->neigh, &ev[i].ip, &ev[i].mac, ev[i].port,
					ev[i].create != 0, &t->neigh, now_ns);
		}
	}
	return total;
}

void
aif_switch_age_neighbors(struct aif_switch *sw, aif_time_ns now_ns)
{
	const struct aif_tables *t = sw->tables;

	if (t != NULL)
		aif_neigh_age(sw->neigh, &t->neigh, now_ns);
}
