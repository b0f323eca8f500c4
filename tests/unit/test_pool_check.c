/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/pool_check.c: the exit check of the mbuf pool.
 *
 *   - Nothing held: 0, "all returned".
 *   - af_xdp-like ports that keep their fill rings (took 2048, gave back
 *     none) and a few sent frames: 4098 held is no leak, and the message
 *     names who keeps them; more than they may keep is a leak of the rest.
 *   - Ports that give back all they took (NICs, net_pcap, net_ring) keep
 *     nothing, TX allowance included: any mbuf still held is a leak.
 *   - The arithmetic: a driver that gave back more than it took (TX frames
 *     in flight at stop) keeps nothing; one that gave back part keeps the
 *     rest; one after whose close more were in use keeps what it took.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pool_check.h"

static void
test_nothing_held(void **state)
{
	struct aif_pool_port p[1] = {
		{ "p0", "net_pcap", .took = 1024, .returned = 1024, .tx_desc = 1024 },
	};
	char msg[512];

	(void)state;
	assert_int_equal(aif_pool_check(0, 100, p, 1, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "mbufs: 0 of 100 still held, all returned to the pool");
}

static void
test_driver_keeps_its_rings(void **state)
{
	struct aif_pool_port p[3] = {
		{ "p0", "net_af_xdp", .took = 2048, .returned = 0, .tx_desc = 2048 },
		{ "p1", "net_af_xdp", .took = 2048, .returned = 0, .tx_desc = 2048 },
		{ "p2", "net_null", .took = 0, .returned = 0, .tx_desc = 1024 },
	};
	char msg[512];

	(void)state;
	assert_int_equal(aif_pool_check(4098, 55424, p, 3, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "mbufs: 4098 of 55424 still held, all by drivers that keep "
			    "them after their ports close (p0 net_af_xdp: 2048 of its RX "
			    "ring and up to 2048 sent; p1 net_af_xdp: 2048 of its RX ring "
			    "and up to 2048 sent); none by the switch");
	assert_int_equal(aif_pool_check(4000, 55424, p, 3, msg, sizeof(msg)), 0);
	assert_int_equal(aif_pool_check(8192, 55424, p, 3, msg, sizeof(msg)), 0);
	/* more than they may keep: the rest is the switch's */
	assert_int_equal(aif_pool_check(8200, 55424, p, 3, msg, sizeof(msg)), 8);
	assert_string_equal(msg, "mbufs: 8200 of 55424 still held: up to 8192 by drivers "
			    "that keep them after their ports close (p0 net_af_xdp: 2048 "
			    "of its RX ring and up to 2048 sent; p1 net_af_xdp: 2048 of "
			    "its RX ring and up to 2048 sent), the other 8 by the switch "
			    "(LEAK)");
}

static void
test_drivers_give_back(void **state)
{
	struct aif_pool_port p[2] = {
		{ "p0", "net_ixgbe", .took = 1024, .returned = 1024, .tx_desc = 1024 },
		{ "p1", "net_ring", .took = 0, .returned = 0, .tx_desc = 1024 },
	};
	char msg[512];

	(void)state;
	assert_int_equal(aif_pool_check(3, 8191, p, 2, msg, sizeof(msg)), 3);
	assert_string_equal(msg, "mbufs: 3 of 8191 still held (LEAK)");
}

static void
test_kept_arithmetic(void **state)
{
	struct aif_pool_port more = { "p0", "x", .took = 512, .returned = 530, .tx_desc = 64 };
	struct aif_pool_port part = { "p0", "x", .took = 512, .returned = 500, .tx_desc = 64 };
	struct aif_pool_port none = { "p0", "x", .took = 512, .returned = -3, .tx_desc = 64 };

	(void)state;
	assert_int_equal(aif_pool_port_kept(&more), 0);
	assert_int_equal(aif_pool_port_may_keep(&more), 0);
	assert_int_equal(aif_pool_port_kept(&part), 12);
	assert_int_equal(aif_pool_port_may_keep(&part), 12 + 64);
	/* more in use after its close than before: it gave back nothing, and is
	 * not credited with more than it took */
	assert_int_equal(aif_pool_port_kept(&none), 512);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_held),
		cmocka_unit_test(test_driver_keeps_its_rings),
		cmocka_unit_test(test_drivers_give_back),
		cmocka_unit_test(test_kept_arithmetic),
	};
	return cmocka_run_group_tests_name("pool_check", tests, NULL, NULL);
}
