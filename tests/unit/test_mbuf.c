/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool and its spares (dataplane/mbuf.c):
 *
 *  - a pool without spares runs dry as rte_pktmbuf_alloc does;
 *  - with spares, every allocation succeeds: spares as large as the pool
 *    (64 + 7 x 64), each mbuf with the pool's room and private area; the in-use count covers the spares; frees go back to
 *    the pool each came from, which is asked first again; the next spare
 *    made ahead (one more than used, none made twice);
 *  - allocating from a spare itself (a segment for a frame of a spare,
 *    m->pool) takes from the family too;
 *  - freed: the spares are gone, the pool is plain again;
 *  - small frames: with a small frames' pool set, what fits its rooms
 *    (AIF_MBUF_SMALL_DATA) comes from it (and its spares when it is dry),
 *    the rest from the pool given; aif_mbuf_large maps it and its spares
 *    to the large pool; a light frame of it made whole chains its bytes in
 *    the large pool's mbufs, the same bytes as one made whole in the large
 *    pool, and gathered for a parser it moves whole into one mbuf of the
 *    large pool; aif_mbuf_held counts both families.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "frame.h"
#include "mbuf.h"
#include "port.h"

#include "test_eal.h"

#define POOL 64
#define ROOM (RTE_PKTMBUF_HEADROOM + 256)
#define PRIV 16

static struct rte_mempool *pool;
static struct rte_mbuf *held[8 * POOL];

static void
test_plain_runs_dry(void **state)
{
	struct aif_mbuf_spares_info mi;
	unsigned n = 0;

	(void)state;
	while (n < RTE_DIM(held) && (held[n] = aif_mbuf_alloc(pool)) != NULL)
		n++;
	assert_int_equal(n, POOL);
	assert_null(aif_mbuf_alloc_spare(pool));
	aif_mbuf_spares_info(pool, &mi);
	assert_int_equal(mi.pools, 0);
	assert_int_equal(mi.size, POOL);
	assert_int_equal(mi.in_use, POOL);
	assert_int_equal(mi.failed, 0);
	rte_pktmbuf_free_bulk(held, n);
}

static void
test_spares(void **state)
{
	struct aif_mbuf_spares_info mi;
	const unsigned n = 8 * POOL;

	(void)state;
	assert_int_equal(aif_mbuf_spares_enable(pool), 0);
	assert_int_equal(aif_mbuf_spares_enable(pool), 0); /* once is enough */
	for (unsigned i = 0; i < n; i++) {
		held[i] = aif_mbuf_alloc(pool);
		assert_non_null(held[i]);
		assert_int_equal(rte_pktmbuf_data_room_size(held[i]->pool), ROOM);
		assert_int_equal(rte_pktmbuf_priv_size(held[i]->pool), PRIV);
		assert_int_equal(rte_pktmbuf_tailroom(held[i]), ROOM - RTE_PKTMBUF_HEADROOM);
	}
	assert_ptr_equal(held[0]->pool, pool);
	assert_ptr_not_equal(held[n - 1]->pool, pool);
	aif_mbuf_spares_settle(pool);
	aif_mbuf_spares_info(pool, &mi);
	/* 64, then 7 x 64: 512 in all, every one taken; and the next spare,
	 * made ahead when the seventh was first taken from: each allocation
	 * that found every pool empty took the spare asked for, none made
	 * twice */
	assert_int_equal(mi.pools, 8);
	assert_int_equal(mi.size, n + POOL);
	assert_int_equal(mi.in_use, n);
	assert_int_equal(mi.failed, 0);

	/* from a spare itself: the family's next (the one made ahead), and
	 * the one after it asked for */
	struct rte_mbuf *seg = aif_mbuf_alloc(held[n - 1]->pool);
	assert_non_null(seg);
	aif_mbuf_spares_settle(pool);
	aif_mbuf_spares_info(pool, &mi);
	assert_int_equal(mi.pools, 9);
	assert_int_equal(mi.size, n + 2 * POOL);
	assert_int_equal(mi.in_use, n + 1);
	rte_pktmbuf_free(seg);

	/* back where they came from; the pool is asked first */
	rte_pktmbuf_free_bulk(held, n);
	aif_mbuf_spares_info(pool, &mi);
	assert_int_equal(mi.in_use, 0);
	struct rte_mbuf *m = aif_mbuf_alloc(pool);
	assert_ptr_equal(m->pool, pool);
	rte_pktmbuf_free(m);

	aif_mbuf_spares_free(pool);
	aif_mbuf_spares_info(pool, &mi);
	assert_int_equal(mi.pools, 0);
	assert_int_equal(mi.size, POOL);
	assert_null(aif_mbuf_alloc_spare(pool));
}

static void
test_small_frames(void **state)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create(
		"mb_small", 8, 0, PRIV, RTE_PKTMBUF_HEADROOM + AIF_MBUF_SMALL_DATA, 0);
	struct rte_mempool *large = rte_pktmbuf_pool_create("mb_large", 16, 0, PRIV,
							   RTE_PKTMBUF_HEADROOM + 1024, 0);
	uint8_t bytes[600], whole[600], again[600];
	struct rte_mbuf *m[20];

	(void)state;
	assert_non_null(small);
	assert_non_null(large);
	assert_int_equal(aif_mbuf_spares_enable(small), 0);
	assert_int_equal(aif_mbuf_spares_enable(large), 0);
	for (unsigned i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7 + 1);
	/* none set: every frame from the pool given */
	m[0] = aif_mbuf_from_bytes(large, bytes, 60);
	assert_ptr_equal(m[0]->pool, large);
	rte_pktmbuf_free(m[0]);
	aif_mbuf_small_set(small, large);
	assert_ptr_equal(aif_mbuf_large(small), large);
	assert_ptr_equal(aif_mbuf_large(large), large);
	/* what fits comes from the small pool, then its spares; the rest
	 * from the pool given */
	for (unsigned i = 0; i < 12; i++) {
		m[i] = aif_mbuf_from_bytes(large, bytes, AIF_MBUF_SMALL_DATA);
		assert_non_null(m[i]);
		assert_int_equal(rte_pktmbuf_data_room_size(m[i]->pool),
				 RTE_PKTMBUF_HEADROOM + AIF_MBUF_SMALL_DATA);
		assert_memory_equal(rte_pktmbuf_mtod(m[i], uint8_t *), bytes, AIF_MBUF_SMALL_DATA);
	}
	assert_true(m[11]->pool != small); /* a spare of it */
	assert_ptr_equal(aif_mbuf_large(m[11]->pool), large);
	m[12] = aif_mbuf_from_bytes(large, bytes, AIF_MBUF_SMALL_DATA + 1);
	assert_ptr_equal(m[12]->pool, large);
	assert_int_equal(aif_mbuf_held(large), 13);
	rte_pktmbuf_free_bulk(m, 13);
	assert_int_equal(aif_mbuf_held(large), 0);
	/* a light frame of the small pool made whole: its bytes in the large
	 * pool's mbufs, as one of the large pool's made whole */
	assert_int_equal(aif_frame_light_enable(), 0);
	m[0] = aif_frame_light_from_bytes(large, bytes, 58, 600 - 62);
	assert_non_null(m[0]);
	assert_int_equal(rte_pktmbuf_data_room_size(m[0]->pool),
			 RTE_PKTMBUF_HEADROOM + AIF_MBUF_SMALL_DATA);
	aif_mbuf_small_set(NULL, NULL);
	m[1] = aif_frame_light_from_bytes(large, bytes, 58, 600 - 62);
	assert_ptr_equal(m[1]->pool, large);
	aif_mbuf_small_set(small, large);
	assert_int_equal(aif_frame_materialise(m[0]), 0);
	assert_int_equal(aif_frame_materialise(m[1]), 0);
	assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 600);
	assert_true(m[0]->nb_segs > 1);
	unsigned chain_segs = m[0]->nb_segs;
	for (struct rte_mbuf *g = m[0]->next; g != NULL; g = g->next)
		assert_ptr_equal(g->pool, large);
	const uint8_t *a = rte_pktmbuf_read(m[0], 0, 600, whole);
	const uint8_t *b = rte_pktmbuf_read(m[1], 0, 600, again);
	assert_non_null(a);
	assert_non_null(b);
	assert_memory_equal(a, b, 600);
	assert_memory_equal(a, bytes, 58);
	assert_memory_equal(a + 596, bytes + 58, 4); /* the tail */
	/* gathered for a parser: no room in its small first segment, so a
	 * copy in one mbuf of the large pool, the chain freed */
	struct rte_mbuf *chain = m[0];
	unsigned held = aif_mbuf_held(large);
	assert_int_equal(aif_frame_gather(&m[0]), 0);
	assert_true(m[0] != chain);
	assert_int_equal(m[0]->nb_segs, 1);
	assert_ptr_equal(m[0]->pool, large);
	assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 600);
	assert_memory_equal(rte_pktmbuf_mtod(m[0], uint8_t *), b, 600);
	assert_int_equal(aif_mbuf_held(large), held + 1 - chain_segs);
	assert_false(aif_frame_is_light(m[0]));
	rte_pktmbuf_free_bulk(m, 2);
	assert_int_equal(aif_mbuf_held(large), 0);
	aif_mbuf_small_set(NULL, NULL);
	aif_mbuf_spares_free(small);
	aif_mbuf_spares_free(large);
	rte_mempool_free(small);
	rte_mempool_free(large);
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_mbuf", "aif-ut-mbuf", 64) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("mb_pool", POOL, 0, PRIV, ROOM, 0);
	return pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_runs_dry),
		cmocka_unit_test(test_spares),
		cmocka_unit_test(test_small_frames),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
