/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool and its spares (dataplane/mbuf.c):
 *
 *  - a pool without spares runs dry as rte_pktmbuf_alloc does;
 *  - with spares, every allocation succeeds: spares as large as the pool
 *    (64 + 7 x 64), each mbuf with the pool's room and private area; the in-use count covers the spares; frees go back to
 *    the pool each came from, which is asked first again;
 *  - allocating from a spare itself (a segment for a frame of a spare,
 *    m->pool) takes from the family too;
 *  - freed: the spares are gone, the pool is plain again.
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

#include "mbuf.h"

#include "eal_cleanup.h"

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
	aif_mbuf_spares_info(pool, &mi);
	/* 64, then 7 x 64: 512 in all, every one taken */
	assert_int_equal(mi.pools, 7);
	assert_int_equal(mi.size, n);
	assert_int_equal(mi.in_use, n);
	assert_int_equal(mi.failed, 0);

	/* from a spare itself: the family's next */
	struct rte_mbuf *seg = aif_mbuf_alloc(held[n - 1]->pool);
	assert_non_null(seg);
	aif_mbuf_spares_info(pool, &mi);
	assert_int_equal(mi.pools, 8);
	assert_int_equal(mi.size, n + POOL);
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

static int
setup(void **state)
{
	char prefix[64];

	(void)state;
	snprintf(prefix, sizeof(prefix), "aif-ut-mbuf-%d", (int)getpid());
	char *argv[] = { "test_mbuf", "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", prefix, "-l", "0",
			 "--log-level", "error" };
	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0)
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
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
