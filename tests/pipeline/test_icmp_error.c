/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP time exceeded (pipelines/icmp_error.c) on a whole switch, stepped in
 * virtual time on ring-backed ports (tests/pipeline/ring_switch.h): p0
 * towards a host (10.0.0.1/24, 2001:db8::1/64), p1 an uplink (10.0.1.1/31,
 * 2001:db8:ff::1/127) to 10.1.0.0/16 and 2001:db8:1::/48, p2 on VLAN 10
 * (10.0.2.1/24).
 *
 *   - a TTL-1 packet from the host is dropped (ttl_expired) and the host
 *     gets, on p0, to its MAC, an ICMP type 11 code 0 from 10.0.0.1 (its
 *     subnet's address: what traceroute prints), TTL 64, both checksums
 *     right (summed here, not by the code under test), quoting the packet
 *     from its IP header on as it arrived;
 *   - one from beyond the uplink is answered from the uplink's address;
 *     a large one is quoted up to a 576-byte message; on a VLAN port the
 *     message carries the port's tag;
 *   - IPv6: ICMPv6 type 3 code 0 from 2001:db8::1, hop limit 64, checksum
 *     over the pseudo-header right;
 *   - none about an ICMP error, a later fragment, or from 0.0.0.0; one
 *     about an echo request;
 *   - at most 50 at once per port, then one a millisecond: the others are
 *     counted in icmp_ratelimited.
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
#include "drop.h"

#include "ring_switch.h"

#define N_PORTS 3
#define RING_SIZE 256
#define POOL_SIZE 2047
#define POOL_CACHE 32
#define STEP_NS 1000

static const uint8_t mac_p0[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t mac_p1[6] = { 0x02, 0, 0, 0, 0, 0x11 };
static const uint8_t mac_p2[6] = { 0x02, 0, 0, 0, 0, 0x12 };
static const uint8_t mac_h0[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_up[6] = { 0x02, 0, 0, 0, 0x01, 0x00 };
static const uint8_t ip6_p0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_h0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t ip6_far[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 5 };

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
			 ((uint32_t)(c) << 8) | (uint32_t)(d))

static const char config[] =
	"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_ring_ie0\", \"mac\": \"02:00:00:00:00:10\","
	"  \"addresses\": [\"10.0.0.1/24\", \"2001:db8::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_ring_ie1\", \"mac\": \"02:00:00:00:00:11\","
	"  \"mtu\": 1400, \"addresses\": [\"10.0.1.1/31\", \"2001:db8:ff::1/127\"]},"
	" {\"name\": \"p2\", \"device\": \"net_ring_ie2\", \"mac\": \"02:00:00:00:00:12\","
	"  \"vlan\": 10, \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"neighbors\": [{\"ip\": \"10.0.1.0\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"2001:db8:ff::\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"10.0.2.2\", \"mac\": \"02:00:00:00:00:22\", \"port\": \"p2\"}],"
	" \"routes\": [{\"prefix\": \"10.1.0.0/16\", \"nexthop\": {\"ip\": \"10.0.1.0\", \"port\": \"p1\"}},"
	"  {\"prefix\": \"2001:db8:1::/48\", \"nexthop\": {\"ip\": \"2001:db8:ff::\", \"port\": \"p1\"}}]}],"
	" \"hosts\": [{\"name\": \"h0\", \"switch\": \"leaf0\", \"port\": \"p0\","
	"  \"ip\": \"10.0.0.2\", \"mac\": \"02:00:00:00:00:02\"}]}";

static struct rs_harness H;

static int
group_setup(void **state)
{
	const struct rs_params params = {
		.prog = "test_icmp_error", .file_prefix = "aif-ie", .tag = "ie",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = config,
	};
	(void)state;
	return rs_setup(&H, &params);
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

/* Ethernet (tagged with vid when not 0) / IPv4 (ttl, id) / UDP with
 * payload bytes from src to dst; returns the length. */
static uint16_t
udp4(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t vid, uint32_t src,
     uint32_t dst, uint8_t ttl, uint16_t payload)
{
	uint8_t *ip = f + ETH_HLEN;
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (vid != 0) {
		put16(f + 12, 0x8100);
		put16(f + 14, vid);
		ip += 4;
	}
	put16(ip - 2, 0x0800);
	uint16_t tot = (uint16_t)(IP4_HLEN + UDP_HLEN + payload);
	memset(ip, 0, tot);
	ip[0] = 0x45;
	put16(ip + 2, tot);
	put16(ip + 4, 0x1234);
	ip[8] = ttl;
	ip[9] = 17;
	put32(ip + 12, src);
	put32(ip + 16, dst);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	put16(ip + 20, 33434); /* traceroute's first port */
	put16(ip + 22, 33435);
	put16(ip + 24, (uint16_t)(UDP_HLEN + payload));
	for (unsigned i = 0; i < payload; i++)
		ip[28 + i] = (uint8_t)(i * 7 + 1);
	return (uint16_t)(ip - f + tot);
}

/* The one frame the switch sent on port (nothing on the others). */
static struct rte_mbuf *
sent_one(uint16_t port)
{
	return rs_sent_one(&H, port);
}

static void
assert_nothing_sent(void)
{
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(rte_ring_count(H.tx[p]), 0);
}

/*
 * Check an IPv4 time exceeded in frame (l2 bytes of Ethernet header) to
 * dmac from smac, src -> dst, quoting want_quote bytes of orig (the IP
 * packet as it arrived).
 */
static void
check_te4(const struct rte_mbuf *mb, unsigned l2, const uint8_t *dmac, const uint8_t *smac,
	  uint32_t src, uint32_t dst, const uint8_t *orig, unsigned want_quote)
{
	const uint8_t *f = rte_pktmbuf_mtod(mb, const uint8_t *);
	const uint8_t *ip = f + l2, *icmp = ip + IP4_HLEN;

	assert_int_equal(rte_pktmbuf_pkt_len(mb), l2 + IP4_HLEN + 8 + want_quote);
	assert_memory_equal(f, dmac, 6);
	assert_memory_equal(f + 6, smac, 6);
	assert_int_equal(get16(f + l2 - 2), 0x0800);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[1], 0xc0);
	assert_int_equal(get16(ip + 2), IP4_HLEN + 8 + want_quote);
	assert_int_equal(get16(ip + 6), 0);  /* no fragment bits */
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], 1);
	assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
	assert_int_equal(get32(ip + 12), src);
	assert_int_equal(get32(ip + 16), dst);
	assert_int_equal(icmp[0], 11); /* time exceeded */
	assert_int_equal(icmp[1], 0);  /* TTL exceeded in transit */
	assert_int_equal(get32(icmp + 4), 0);
	assert_int_equal(sum16(0, icmp, 8 + want_quote), 0xffff);
	assert_memory_equal(icmp + 8, orig, want_quote);
}

/* From the host on p0; from beyond the uplink; a long one; on a VLAN. */
static void
test_time_exceeded_ipv4(void **state)
{
	uint8_t f[1600];
	struct rs_snap before;
	struct rte_mbuf *mb;
	uint16_t len;

	(void)state;
	/* the host's probe: TTL 1 to 10.1.2.3 */
	rs_snap_take(&H, &before);
	len = udp4(f, mac_p0, mac_h0, 0, IP4(10, 0, 0, 2), IP4(10, 1, 2, 3), 1, 32);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	mb = sent_one(0);
	check_te4(mb, ETH_HLEN, mac_h0, mac_p0, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2),
		  f + ETH_HLEN, len - ETH_HLEN);
	rte_pktmbuf_free(mb);
	struct aif_port_ctr d = rs_delta(&H, &before, 0);
	assert_int_equal(d.drops[AIF_DROP_TTL_EXPIRED], 1);
	assert_int_equal(d.icmp_time_exceeded, 1);
	assert_int_equal(d.icmp_ratelimited, 0);
	assert_int_equal(d.tx_packets, 1);

	/* from 10.1.7.7 beyond the uplink, to the host, TTL 1: answered on p1,
	 * to the uplink neighbour's MAC, from p1's 10.0.1.1 */
	rs_snap_take(&H, &before);
	len = udp4(f, mac_p1, mac_up, 0, IP4(10, 1, 7, 7), IP4(10, 0, 0, 2), 1, 100);
	rs_inject(&H, 1, f, len);
	rs_run(&H, STEP_NS, 100);
	mb = sent_one(1);
	check_te4(mb, ETH_HLEN, mac_up, mac_p1, IP4(10, 0, 1, 1), IP4(10, 1, 7, 7),
		  f + ETH_HLEN, len - ETH_HLEN);
	rte_pktmbuf_free(mb);
	assert_int_equal(rs_delta(&H, &before, 1).icmp_time_exceeded, 1);

	/* 1400 bytes of IP: quoted up to a 576-byte message (548 bytes) */
	len = udp4(f, mac_p0, mac_h0, 0, IP4(10, 0, 0, 2), IP4(10, 1, 2, 3), 1, 1372);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	mb = sent_one(0);
	check_te4(mb, ETH_HLEN, mac_h0, mac_p0, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2),
		  f + ETH_HLEN, 576 - 28);
	rte_pktmbuf_free(mb);

	/* a tagged sender on VLAN 10: the message carries the port's tag */
	static const uint8_t mac_v[6] = { 0x02, 0, 0, 0, 0, 0x22 };
	len = udp4(f, mac_p2, mac_v, 10, IP4(10, 0, 2, 2), IP4(10, 1, 2, 3), 1, 16);
	rs_inject(&H, 2, f, len);
	rs_run(&H, STEP_NS, 100);
	mb = sent_one(2);
	const uint8_t *o = rte_pktmbuf_mtod(mb, const uint8_t *);
	assert_int_equal(get16(o + 12), 0x8100);
	assert_int_equal(get16(o + 14), 10); /* PCP 0, VID 10 */
	check_te4(mb, ETH_HLEN + 4, mac_v, mac_p2, IP4(10, 0, 2, 1), IP4(10, 0, 2, 2),
		  f + ETH_HLEN + 4, len - ETH_HLEN - 4);
	rte_pktmbuf_free(mb);
}

/* Hop limit 1: ICMPv6 type 3 code 0, from the host's subnet's address. */
static void
test_time_exceeded_ipv6(void **state)
{
	uint8_t f[256];
	struct rs_snap before;

	(void)state;
	memset(f, 0, sizeof(f));
	memcpy(f, mac_p0, 6);
	memcpy(f + 6, mac_h0, 6);
	put16(f + 12, 0x86dd);
	uint8_t *ip = f + ETH_HLEN;
	put32(ip, 6u << 28);
	put16(ip + 4, UDP_HLEN + 24);
	ip[6] = 17;
	ip[7] = 1;
	memcpy(ip + 8, ip6_h0, 16);
	memcpy(ip + 24, ip6_far, 16);
	put16(ip + 40, 40000);
	put16(ip + 42, 33434);
	put16(ip + 44, UDP_HLEN + 24);
	uint16_t len = ETH_HLEN + IP6_HLEN + UDP_HLEN + 24;

	rs_snap_take(&H, &before);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	struct rte_mbuf *mb = sent_one(0);
	const uint8_t *o = rte_pktmbuf_mtod(mb, const uint8_t *), *oip = o + ETH_HLEN;
	const uint8_t *icmp = oip + IP6_HLEN;
	unsigned quote = len - ETH_HLEN;
	assert_int_equal(rte_pktmbuf_pkt_len(mb), ETH_HLEN + IP6_HLEN + 8 + quote);
	assert_memory_equal(o, mac_h0, 6);
	assert_memory_equal(o + 6, mac_p0, 6);
	assert_int_equal(get16(o + 12), 0x86dd);
	assert_int_equal(oip[0] >> 4, 6);
	assert_int_equal(get16(oip + 4), 8 + quote);
	assert_int_equal(oip[6], 58);
	assert_int_equal(oip[7], 64);
	assert_memory_equal(oip + 8, ip6_p0, 16);
	assert_memory_equal(oip + 24, ip6_h0, 16);
	assert_int_equal(icmp[0], 3);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(get32(icmp + 4), 0);
	assert_int_equal(sum_ipv6_l4(oip, icmp, 8 + quote, 58), 0xffff);
	assert_memory_equal(icmp + 8, f + ETH_HLEN, quote);
	rte_pktmbuf_free(mb);
	struct aif_port_ctr d = rs_delta(&H, &before, 0);
	assert_int_equal(d.drops[AIF_DROP_TTL_EXPIRED], 1);
	assert_int_equal(d.icmp_time_exceeded, 1);
}

/*
 * Larger than the uplink's MTU (1400): dropped as mtu_exceeded, and the
 * sender told the MTU (path MTU discovery) when it set DF, ICMP type 3
 * code 4 with the MTU in the header's last 2 bytes, quoting up to a
 * 576-byte message; without DF nothing is said (the switch does not
 * fragment); an IPv6 packet always gets ICMPv6 type 2 with the MTU in 4
 * bytes, quoting up to a 1280-byte message.
 */
static void
test_too_big(void **state)
{
	uint8_t f[1600];
	struct rs_snap before;
	struct rte_mbuf *mb;

	(void)state;
	/* 1450 bytes of IP, DF set, from the host to beyond the uplink */
	uint16_t len = udp4(f, mac_p0, mac_h0, 0, IP4(10, 0, 0, 2), IP4(10, 1, 2, 3), 64,
			    1450 - IP4_HLEN - UDP_HLEN);
	uint8_t *ip = f + ETH_HLEN;
	put16(ip + 6, 0x4000);
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	rs_snap_take(&H, &before);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	mb = sent_one(0);
	const uint8_t *o = rte_pktmbuf_mtod(mb, const uint8_t *), *oip = o + ETH_HLEN;
	const uint8_t *icmp = oip + IP4_HLEN;
	assert_int_equal(rte_pktmbuf_pkt_len(mb), ETH_HLEN + 576);
	assert_memory_equal(o, mac_h0, 6);
	assert_memory_equal(o + 6, mac_p0, 6);
	assert_int_equal(sum16(0, oip, IP4_HLEN), 0xffff);
	assert_int_equal(get32(oip + 12), IP4(10, 0, 0, 1));
	assert_int_equal(get32(oip + 16), IP4(10, 0, 0, 2));
	assert_int_equal(oip[9], 1);
	assert_int_equal(icmp[0], 3);    /* destination unreachable */
	assert_int_equal(icmp[1], 4);    /* fragmentation needed and DF set */
	assert_int_equal(get16(icmp + 4), 0);
	assert_int_equal(get16(icmp + 6), 1400); /* next-hop MTU */
	assert_int_equal(sum16(0, icmp, 576 - IP4_HLEN), 0xffff);
	assert_memory_equal(icmp + 8, ip, 576 - IP4_HLEN - 8);
	rte_pktmbuf_free(mb);
	assert_nothing_sent();
	struct aif_port_ctr d = rs_delta(&H, &before, 0);
	assert_int_equal(d.drops[AIF_DROP_MTU_EXCEEDED], 1);
	assert_int_equal(d.icmp_too_big, 1);
	assert_int_equal(d.icmp_time_exceeded, 0);

	/* the same without DF: dropped, nothing said */
	put16(ip + 6, 0);
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	rs_snap_take(&H, &before);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	assert_nothing_sent();
	d = rs_delta(&H, &before, 0);
	assert_int_equal(d.drops[AIF_DROP_MTU_EXCEEDED], 1);
	assert_int_equal(d.icmp_too_big, 0);

	/* 1500 bytes of IPv6: packet too big, MTU 1400, a 1280-byte message */
	memset(f, 0, sizeof(f));
	memcpy(f, mac_p0, 6);
	memcpy(f + 6, mac_h0, 6);
	put16(f + 12, 0x86dd);
	put32(ip, 6u << 28);
	put16(ip + 4, 1500 - IP6_HLEN);
	ip[6] = 17;
	ip[7] = 64;
	memcpy(ip + 8, ip6_h0, 16);
	memcpy(ip + 24, ip6_far, 16);
	put16(ip + 40, 40000);
	put16(ip + 42, 4791);
	put16(ip + 44, 1500 - IP6_HLEN);
	len = ETH_HLEN + 1500;
	rs_snap_take(&H, &before);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	mb = sent_one(0);
	o = rte_pktmbuf_mtod(mb, const uint8_t *);
	oip = o + ETH_HLEN;
	icmp = oip + IP6_HLEN;
	unsigned quote = 1280 - IP6_HLEN - 8;
	assert_int_equal(rte_pktmbuf_pkt_len(mb), ETH_HLEN + 1280);
	assert_memory_equal(oip + 8, ip6_p0, 16);
	assert_memory_equal(oip + 24, ip6_h0, 16);
	assert_int_equal(oip[6], 58);
	assert_int_equal(icmp[0], 2);    /* packet too big */
	assert_int_equal(icmp[1], 0);
	assert_int_equal(get32(icmp + 4), 1400);
	assert_int_equal(sum_ipv6_l4(oip, icmp, 8 + quote, 58), 0xffff);
	assert_memory_equal(icmp + 8, ip, quote);
	rte_pktmbuf_free(mb);
	assert_nothing_sent();
	d = rs_delta(&H, &before, 0);
	assert_int_equal(d.drops[AIF_DROP_MTU_EXCEEDED], 1);
	assert_int_equal(d.icmp_too_big, 1);
}

/* No message about an ICMP error, a later fragment, or from 0.0.0.0; an
 * echo request (informational) gets one. */
static void
test_not_about_errors(void **state)
{
	uint8_t f[256];
	struct rs_snap before;
	uint16_t len;

	(void)state;
	rs_snap_take(&H, &before);
	/* an ICMP time exceeded with TTL 1 */
	len = udp4(f, mac_p0, mac_h0, 0, IP4(10, 0, 0, 2), IP4(10, 1, 2, 3), 1, 32);
	uint8_t *ip = f + ETH_HLEN;
	ip[9] = 1;
	ip[20] = 11;
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	rs_inject(&H, 0, f, len);
	/* a second fragment */
	len = udp4(f, mac_p0, mac_h0, 0, IP4(10, 0, 0, 2), IP4(10, 1, 2, 3), 1, 32);
	put16(ip + 6, 185); /* offset 1480 */
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	rs_inject(&H, 0, f, len);
	/* from 0.0.0.0 */
	len = udp4(f, mac_p0, mac_h0, 0, 0, IP4(10, 1, 2, 3), 1, 32);
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	assert_nothing_sent();
	struct aif_port_ctr d = rs_delta(&H, &before, 0);
	assert_int_equal(d.drops[AIF_DROP_TTL_EXPIRED], 3);
	assert_int_equal(d.icmp_time_exceeded, 0);

	/* an echo request with TTL 1 (ping -t 1): told */
	len = udp4(f, mac_p0, mac_h0, 0, IP4(10, 0, 0, 2), IP4(10, 1, 2, 3), 1, 32);
	ip[9] = 1;
	ip[20] = 8;
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	rs_inject(&H, 0, f, len);
	rs_run(&H, STEP_NS, 100);
	struct rte_mbuf *mb = sent_one(0);
	rte_pktmbuf_free(mb);
	assert_int_equal(rs_delta(&H, &before, 0).icmp_time_exceeded, 1);
}

/* 60 at once: 50 told, 10 counted; 10 ms later, 10 more credits. */
static void
test_rate_limit(void **state)
{
	uint8_t f[256];
	struct rs_snap before;
	struct rte_mbuf *m[64];
	uint16_t len = udp4(f, mac_p1, mac_up, 0, IP4(10, 1, 7, 7), IP4(10, 0, 0, 2), 1, 8);

	(void)state;
	rs_step(&H, 100 * 1000000ull); /* a full bucket: earlier tests spent some */
	rs_snap_take(&H, &before);
	for (unsigned i = 0; i < 60; i++)
		rs_inject(&H, 1, f, len);
	rs_run(&H, STEP_NS, 100);
	unsigned n = rs_sent(&H, 1, m, 64);
	rs_free_all(m, n);
	struct aif_port_ctr d = rs_delta(&H, &before, 1);
	print_message("60 at once: %u told, %lu over the rate\n", n,
		      (unsigned long)d.icmp_ratelimited);
	assert_int_equal(n, 50);
	assert_int_equal(d.icmp_time_exceeded, 50);
	assert_int_equal(d.icmp_ratelimited, 10);
	assert_int_equal(d.drops[AIF_DROP_TTL_EXPIRED], 60);

	rs_step(&H, 10 * 1000000ull);
	for (unsigned i = 0; i < 20; i++)
		rs_inject(&H, 1, f, len);
	rs_run(&H, STEP_NS, 100);
	n = rs_sent(&H, 1, m, 64);
	rs_free_all(m, n);
	d = rs_delta(&H, &before, 1);
	assert_int_equal(n, 10);
	assert_int_equal(d.icmp_time_exceeded, 60);
	assert_int_equal(d.icmp_ratelimited, 20);
	/* another port has its own */
	assert_int_equal(rs_delta(&H, &before, 0).icmp_ratelimited, 0);
	assert_nothing_sent();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_time_exceeded_ipv4, test_setup),
		cmocka_unit_test_setup(test_time_exceeded_ipv6, test_setup),
		cmocka_unit_test_setup(test_too_big, test_setup),
		cmocka_unit_test_setup(test_not_about_errors, test_setup),
		cmocka_unit_test_setup(test_rate_limit, test_setup),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
