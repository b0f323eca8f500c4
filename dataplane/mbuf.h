/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mbufs, and a pool that virtual time does not run dry.
 *
 * Every frame of a fabric is an mbuf of one pool: the hosts', those in the
 * egress queues, those on the wires.  A pool that runs dry is no part of
 * the fabric that is modelled: a virtual host that finds it empty waits a
 * frame's time and tries again (rhost.h, nombuf), a switch sends no PFC
 * frame, a pcap input drops a frame.  When that happens depends on every
 * frame anywhere in the fabric, and on several runners (windows.h) on
 * what the other runners' threads have taken and given back by then: their
 * timing, not the run's inputs.  (A k=16 fat-tree all-to-all ran its
 * 132,608 mbufs dry: its JCT moved by a microsecond from run to run on two
 * runners, and on one it was 88 us where the fabric takes 33.)
 *
 * So virtual time gives its pool spares (aif_mbuf_spares_enable): an
 * allocation that finds the pool and its spares empty makes a new spare,
 * as large as the pool (32 at most), and takes from it; a frame goes back
 * to the pool it came from (m->pool), and the pool is asked first again.
 * A spare lives in anonymous memory, not DPDK's (hugepages are few and
 * shared, -m caps the rest; nothing does IO on it in virtual time).
 * Whether a frame gets an mbuf then depends on nothing but memory: the
 * same results for any pool size and any number of runners.  Real time
 * keeps one pool: there an empty pool is the machine's limit, and counted.
 * Should no spare be made (no memory, 32 made), allocations fail as
 * before, counted (aif_mbuf_spares_info), and the run says so.
 *
 * Threads: any runner allocates.  A spare is made under a lock and
 * published by a release store of the count of spares, which allocations
 * read with acquire; spares are freed only when no runner runs.
 *
 *	pool = rte_pktmbuf_pool_create(...);
 *	aif_mbuf_spares_enable(pool);          (virtual time)
 *	m = aif_mbuf_alloc(pool);              (rte_pktmbuf_alloc, spares after)
 *	...
 *	aif_mbuf_spares_free(pool);
 *	rte_mempool_free(pool);
 */
#ifndef AIF_MBUF_H
#define AIF_MBUF_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

/* Spares for pool; 0, -1 if every place for a pool with spares is taken. */
int aif_mbuf_spares_enable(struct rte_mempool *pool);

/* From pool's spares (pool: one with spares, or one of its spares), a new
 * spare made if they are empty; NULL when there are none, or no memory. */
struct rte_mbuf *aif_mbuf_alloc_spare(struct rte_mempool *pool);

/* An mbuf of pool (rte_pktmbuf_alloc), or of its spares when it is empty. */
static inline struct rte_mbuf *
aif_mbuf_alloc(struct rte_mempool *pool)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	return likely(m != NULL) ? m : aif_mbuf_alloc_spare(pool);
}

struct aif_mbuf_spares_info {
	unsigned pools;    /* spares made */
	unsigned size;     /* the pool's mbufs and the spares' */
	unsigned in_use;   /* of those, taken */
	uint64_t failed;   /* allocations that found everything empty, no spare made */
};

/* What pool and its spares hold (all zero but size and in_use if it has
 * none). */
void aif_mbuf_spares_info(const struct rte_mempool *pool, struct aif_mbuf_spares_info *info);

/* Free pool's spares (every mbuf back) and forget pool. */
void aif_mbuf_spares_free(struct rte_mempool *pool);

#endif /* AIF_MBUF_H */
