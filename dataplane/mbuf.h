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
 * Threads: any runner allocates.  A spare is published under a lock by a
 * release store of the count of spares, which allocations read with
 * acquire; spares are freed only when no runner runs.  The next spare is
 * made ahead, on a thread of its own (a DPDK control thread: the cores the
 * runners do not use), asked for when the newest spare is first taken
 * from: an allocation that finds every pool empty waits for the one asked
 * for rather than making it while the other runners wait for it (a k=20
 * fat-tree's all-to-all made ten, 8% of its CPU time making them and
 * waiting), and makes one itself, as before, when none is asked.  So one
 * spare more than a run needed may be made (a pool's worth of memory); how
 * many are made by the end depends on the threads' timing, no result.
 * aif_mbuf_spares_settle waits for the one being made (tests, the end's
 * report).
 *
 *	pool = rte_pktmbuf_pool_create(...);
 *	aif_mbuf_spares_enable(pool);          (virtual time)
 *	m = aif_mbuf_alloc(pool);              (rte_pktmbuf_alloc, spares after)
 *	...
 *	aif_mbuf_spares_free(pool);
 *	rte_mempool_free(pool);
 *
 * Small frames.  Most frames in flight in virtual time are small: the
 * hosts' light data frames (frame.h: headers and ICRC, some 60 bytes)
 * and their ACKs and CNPs.  In mbufs sized for a whole frame of the
 * largest MTU (1,664 bytes of room for 1,500) they take five times the
 * memory they need, and the pool is touched whole at start-up.  So virtual
 * time gives small frames a pool of their own (aif_mbuf_small_set: rooms of
 * AIF_MBUF_SMALL_DATA bytes after the headroom, spares of its own):
 * aif_mbuf_alloc_len takes from it what fits there, the rest from the pool
 * it is given; a frame made whole later (aif_frame_materialise) chains its
 * bytes in mbufs of the large pool (aif_mbuf_large).  Which pool a frame
 * takes changes no result.
 *
 *	aif_mbuf_small_set(small, pool);       (virtual time, before any runner)
 *	m = aif_mbuf_alloc_len(pool, 62);      (an ACK: from small)
 */
#ifndef AIF_MBUF_H
#define AIF_MBUF_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#define AIF_MBUF_SMALL_DATA 128 /* a small frame's bytes at most */

/* Spares for pool; 0, -1 if every place for a pool with spares is taken. */
int aif_mbuf_spares_enable(struct rte_mempool *pool);

/* From pool's spares (pool: one with spares, or one of its spares), a new
 * spare made if they are empty; NULL when there are none, or no memory. */
struct rte_mbuf *aif_mbuf_alloc_spare(struct rte_mempool *pool);

/* Waits until the spare being made ahead for pool (one with spares), if
 * any, is made (or could not be). */
void aif_mbuf_spares_settle(struct rte_mempool *pool);

/* An mbuf of pool (rte_pktmbuf_alloc), or of its spares when it is empty. */
static inline struct rte_mbuf *
aif_mbuf_alloc(struct rte_mempool *pool)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	return likely(m != NULL) ? m : aif_mbuf_alloc_spare(pool);
}

extern struct rte_mempool *aif_mbuf_small_pool, *aif_mbuf_large_pool;

/* Small frames from small (NULL: none, every frame from the pool given),
 * large the pool whole frames take their room from. */
void aif_mbuf_small_set(struct rte_mempool *small, struct rte_mempool *large);

/* An mbuf for a frame whose first segment holds len bytes: of the small
 * pool when there is one and they fit, else of pool (both: spares after). */
static inline struct rte_mbuf *
aif_mbuf_alloc_len(struct rte_mempool *pool, uint32_t len)
{
	if (aif_mbuf_small_pool != NULL && len <= AIF_MBUF_SMALL_DATA)
		pool = aif_mbuf_small_pool;
	return aif_mbuf_alloc(pool);
}

/* The pool to take room for more of a frame's bytes from, for an mbuf of
 * pool: the large one when pool holds small frames (or is one of the small
 * pool's spares), else pool. */
static inline struct rte_mempool *
aif_mbuf_large(struct rte_mempool *pool)
{
	return aif_mbuf_large_pool != NULL &&
	       rte_pktmbuf_data_room_size(pool) < rte_pktmbuf_data_room_size(aif_mbuf_large_pool)
	       ? aif_mbuf_large_pool : pool;
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

/* The mbufs taken from pool and its spares, and from the small frames'
 * pool and its spares when pool is their large pool: the frames alive. */
unsigned aif_mbuf_held(const struct rte_mempool *pool);

/* Free pool's spares (every mbuf back) and forget pool. */
void aif_mbuf_spares_free(struct rte_mempool *pool);

#endif /* AIF_MBUF_H */
