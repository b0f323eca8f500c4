/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Light frames (dataplane/frame.h) through a whole switch, stepped in
 * virtual time on ring-backed ports (tests/pipeline/ring_switch.h): p0
 * towards a host (10.0.0.1/24), p1 an uplink (10.0.1.1/31) to 10.1.0.0/16,
 * p2 on VLAN 10 (10.0.2.1/24).  A RoCEv2 WRITE FIRST of 1,000 payload bytes
 * arrives light (its headers and ICRC in the mbuf) and, for comparison,
 * whole:
 *
 *   - routed to the uplink, it leaves a DPDK port whole (one segment, the
 *     device reads bytes): the whole frame's bytes with the TTL and IPv4
 *     checksum rewritten and the MACs, its ICRC still the valid one; the
 *     port counters count its whole length both ways;
 *   - routed to the VLAN port, the same with the tag pushed;
 *   - with TTL 1, the ICMP time exceeded quotes 548 bytes of it, the
 *     whole frame's (its zeros), the message byte for byte the one a
 *     whole frame gets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "counters.h"
#include "frame.h"
#include "roce.h"

#include "ring_switch.h"

#define N_PORTS 3
#define RING_SIZE 256
#define POOL_SIZE 2047
#define POOL_CACHE 32
#define STEP_NS 1000
#define HEAD 70 /* Ethernet, IPv4, UDP, BTH, RETH */
#define PAYLOAD 1000
#define LEN (HEAD + PAYLOAD + 4)

static const uint8_t mac_p0[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t mac_p1[6] = { 0x02, 0, 0, 0, 0, 0x11 };
static const uint8_t mac_p2[6] = { 0x02, 0, 0, 0, 0, 0x12 };
static const uint8_t mac_h0[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_up[6] = { 0x02, 0, 0, 0, 0x01, 0x00 };
static const uint8_t mac_v[6] = { 0x02, 0, 0, 0, 0, 0x22 };

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
			 ((uint32_t)(c) << 8) | (uint32_t)(d))

static const char config[] =
	"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_ring_lf0\", \"mac\": \"02:00:00:00:00:10\","
	"  \"addresses\": [\"10.0.0.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_ring_lf1\", \"mac\": \"02:00:00:00:00:11\","
	"  \"addresses\": [\"10.0.1.1/31\"]},"
	" {\"name\": \"p2\", \"device\": \"net_ring_lf2\", \"mac\": \"02:00:00:00:00:12\","
	"  \"vlan\": 10, \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"neighbors\": [{\"ip\": \"10.0.1.0\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"10.0.2.2\", \"mac\": \"02:00:00:00:00:22\", \"port\": \"p2\"}],"
	" \"routes\": [{\"prefix\": \"10.1.0.0/16\", \"nexthop\": {\"ip\": \"10.0.1.0\", \"port\": \"p1\"}}]}],"
	" \"hosts\": [{\"name\": \"h0\", \"switch\": \"leaf0\", \"port\": \"p0\","
	"  \"ip\": \"10.0.0.2\", \"mac\": \"02:00:00:00:00:02\"}]}";

static struct rs_harness H;

static int
group_setup(void **state)
{
	const struct rs_params params = {
		.prog = "test_light_frames", .file_prefix = "aif-lf", .tag = "lf",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = config,
	};
	(void)state;
	if (rs_setup(&H, &params) != 0)
		return -1;
	return aif_frame_light_enable();
}

static int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

static int
test_setup(void **state)
{
	(void)state;
	rs_reset(&H);
	return 0;
}

/* A whole RoCEv2 WRITE FIRST from the host to dst: payload zeros, a valid
 * ICRC. */
static void
roce4(uint8_t *f, uint32_t dst, uint8_t ttl)
{
	uint8_t *ip = f + ETH_HLEN, *udp = ip + IP4_HLEN, *bth = udp + UDP_HLEN;

	memset(f, 0, LEN);
	memcpy(f, mac_p0, 6);
	memcpy(f + 6, mac_h0, 6);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = 26 << 2 | 2;
	put16(ip + 2, LEN - ETH_HLEN);
	put16(ip + 4, 7);
	ip[6] = 0x40;
	ip[8] = ttl;
	ip[9] = 17;
	put32(ip + 12, IP4(10, 0, 0, 2));
	put32(ip + 16, dst);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	put16(udp, 0xC123);
	put16(udp + 2, 4791);
	put16(udp + 4, LEN - ETH_HLEN - IP4_HLEN);
	bth[0] = 0x06; /* WRITE FIRST */
	put16(bth + 2, 0xFFFF);
	put32(bth + 4, 0x101);
	put32(bth + 8, 0x123456);
	put32(bth + 12 + 12, PAYLOAD * 4); /* RETH: DMA length */
	aif_roce_icrc_put(ip, LEN - ETH_HLEN);
}

/* f (LEN bytes) as a light frame: its head, then its ICRC. */
static struct rte_mbuf *
light_of(const uint8_t *f)
{
	uint8_t d[HEAD + 4];

	memcpy(d, f, HEAD);
	memcpy(d + HEAD, f + LEN - 4, 4);
	struct rte_mbuf *m = aif_frame_light_from_bytes(H.pool, d, HEAD, PAYLOAD);
	assert_non_null(m);
	return m;
}

static void
inject_mbuf(uint16_t port, struct rte_mbuf *m)
{
	assert_int_equal(rte_ring_enqueue(H.rx[port], m), 0);
	rs_run(&H, STEP_NS, 100);
}

static struct rte_mbuf *
sent_one(uint16_t port)
{
	return rs_sent_one(&H, port);
}

/* The frame sent: whole, in one segment, f as routed (l2 bytes of
 * Ethernet header, to dmac from smac), its ICRC f's and valid. */
static void
check_routed(const struct rte_mbuf *m, const uint8_t *f, unsigned l2, const uint8_t *dmac,
	     const uint8_t *smac)
{
	const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *), *ip = o + l2;

	assert_false(aif_frame_is_light(m));
	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), LEN - ETH_HLEN + l2);
	assert_int_equal(rte_pktmbuf_data_len(m), LEN - ETH_HLEN + l2);
	assert_memory_equal(o, dmac, 6);
	assert_memory_equal(o + 6, smac, 6);
	assert_int_equal(ip[8], f[ETH_HLEN + 8] - 1);
	assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
	assert_memory_equal(ip, f + ETH_HLEN, 8);
	assert_memory_equal(ip + 12, f + ETH_HLEN + 12, LEN - ETH_HLEN - 12);
	assert_true(aif_roce_icrc_ok(ip, LEN - ETH_HLEN));
}

static void
test_routed_whole(void **state)
{
	static uint8_t f[LEN];
	struct rs_snap before;

	(void)state;
	roce4(f, IP4(10, 1, 2, 3), 64);
	rs_snap_take(&H, &before);
	inject_mbuf(0, light_of(f));
	struct rte_mbuf *m = sent_one(1);
	check_routed(m, f, ETH_HLEN, mac_up, mac_p1);
	rte_pktmbuf_free(m);
	assert_int_equal(rs_delta(&H, &before, 0).rx_bytes, LEN);
	assert_int_equal(rs_delta(&H, &before, 1).tx_bytes, LEN);
	assert_int_equal(rs_delta(&H, &before, 1).tx_packets, 1);

	/* on the VLAN port: tagged, then whole */
	roce4(f, IP4(10, 0, 2, 2), 64);
	inject_mbuf(0, light_of(f));
	m = sent_one(2);
	const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(get16(o + 12), 0x8100);
	assert_int_equal(get16(o + 14) & 0x0FFF, 10);
	check_routed(m, f, ETH_HLEN + 4, mac_v, mac_p2);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(H.pool), H.pool_base);
}

static void
test_time_exceeded_quotes_whole(void **state)
{
	static uint8_t f[LEN];
	uint8_t msg[2][600];
	uint32_t len[2];

	(void)state;
	roce4(f, IP4(10, 1, 2, 3), 1);
	for (int light = 0; light < 2; light++) {
		inject_mbuf(0, light ? light_of(f) : rs_mbuf_of(&H, f, LEN));
		struct rte_mbuf *m = sent_one(0);
		len[light] = rte_pktmbuf_pkt_len(m);
		assert_true(len[light] <= sizeof(msg[0]));
		memcpy(msg[light], rte_pktmbuf_mtod(m, const uint8_t *), len[light]);
		rte_pktmbuf_free(m);
		rs_step(&H, 2 * AIF_NS_PER_MS); /* past the rate limit's refill */
	}
	assert_int_equal(len[1], ETH_HLEN + 576);
	assert_int_equal(len[0], len[1]);
	assert_memory_equal(msg[0], msg[1], len[0]);
	assert_memory_equal(msg[1] + ETH_HLEN + 28, f + ETH_HLEN, 548); /* the quote */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_routed_whole, test_setup),
		cmocka_unit_test_setup(test_time_exceeded_quotes_whole, test_setup),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
