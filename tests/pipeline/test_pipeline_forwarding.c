/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of forwarding: one whole switch ("leaf0", four ports) run
 * in virtual time (pipeline_fixture.h: the config, the harness, the frames).
 *
 * IPv4 and IPv6 RoCEv2 routed over ECMP (each flow on the member the hash
 * picks, the frame rewritten for the neighbour and every other byte as it
 * came in), drops counted by reason, ping answered by the switch (ICMP and
 * ICMPv6 echo; other traffic to the switch dropped as to_switch), the path
 * trace, and frames in chained mbufs (MTU, split headers, frames larger
 * than one mbuf).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "drop.h"
#include "pkt.h"
#include "switch.h"

#include "pipeline_fixture.h"

#define N_FLOWS4 1024
#define N_FLOWS6 256

/* ---------------------------------------------------------------- */
/* 1. IPv4 RoCEv2 over ECMP                                          */

/* Checks one routed frame against the frame that went in. */
static void
check_routed4(const struct rte_mbuf *mb, uint16_t out, const uint8_t *in,
	      uint16_t len)
{
	const uint8_t *f = rte_pktmbuf_mtod(mb, const uint8_t *);
	const uint8_t *ip = f + ETH_HLEN, *ip_in = in + ETH_HLEN;

	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_int_equal(rte_pktmbuf_data_len(mb), len);
	assert_memory_equal(f, mac_nbr[out], 6);
	assert_memory_equal(f + 6, mac_port[out], 6);
	assert_memory_equal(f + 12, in + 12, 2);
	assert_int_equal(ip[8], ip_in[8] - 1);
	assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
	/* the rest of the IP header as it was (the ICRC masks TTL and checksum only) */
	assert_memory_equal(ip, ip_in, 8);
	assert_int_equal(ip[9], ip_in[9]);
	assert_memory_equal(ip + 12, ip_in + 12, 8);
	assert_memory_equal(ip + IP4_HLEN, ip_in + IP4_HLEN,
			    len - ETH_HLEN - IP4_HLEN);
}

static void
test_forward_ipv4_roce(void **state)
{
	static uint16_t sport[N_FLOWS4];
	static int16_t flow_of[0x4000]; /* sport - 0xC000 -> flow */
	static int16_t port_of[N_FLOWS4];
	uint8_t f[FRAME_MAX];
	uint16_t len = 0;
	struct rte_mbuf *out[N_FLOWS4];
	struct aif_member_sums m0[N_PORTS], m1[N_PORTS];
	unsigned per_port[N_PORTS] = { 0 };
	struct rs_snap before;

	(void)state;
	/* 1024 distinct random RoCE source ports (the entropy field) */
	memset(flow_of, 0xff, sizeof(flow_of));
	for (unsigned i = 0; i < N_FLOWS4; i++) {
		uint16_t s;
		do
			s = (uint16_t)(0xC000 | (rnd() & 0x3fff));
		while (flow_of[s - 0xC000] >= 0);
		flow_of[s - 0xC000] = (int16_t)i;
		sport[i] = s;
		port_of[i] = -1;
	}
	snap_take(&before);
	member_ctrs_by_port("uplinks", m0);

	for (unsigned round = 0; round < 2; round++) {
		for (unsigned i = 0; i < N_FLOWS4; i++) {
			struct roce r = { .dmac = mac_port[0], .smac = mac_h0,
					  .sip = ip_h0, .dip = ip_remote,
					  .sport = sport[i], .ttl = 64, .qp = 0x000123 };
			len = build_roce4(f, &r);
			inject(0, f, len);
		}
		run();
		assert_int_equal(rte_ring_count(H.tx[0]), 0);
		unsigned total = 0;
		for (uint16_t p = 1; p < N_PORTS; p++) {
			unsigned n = sent(p, out, N_FLOWS4);
			total += n;
			per_port[p] += n;
			for (unsigned k = 0; k < n; k++) {
				const uint8_t *fo = rte_pktmbuf_mtod(out[k], const uint8_t *);
				uint16_t s = get16(fo + ETH_HLEN + IP4_HLEN);
				assert_true(s >= 0xC000);
				int i = flow_of[s - 0xC000];
				assert_true(i >= 0);
				struct roce r = { .dmac = mac_port[0], .smac = mac_h0,
						  .sip = ip_h0, .dip = ip_remote,
						  .sport = s, .ttl = 64, .qp = 0x000123 };
				len = build_roce4(f, &r);
				check_routed4(out[k], p, f, len);
				assert_int_equal(expected_port(f, len, "uplinks"), p);
				if (round == 0) {
					assert_int_equal(port_of[i], -1); /* each frame once */
					port_of[i] = (int16_t)p;
				} else {
					assert_int_equal(port_of[i], p); /* same flow, same port */
				}
			}
			rs_free_all(out, n);
		}
		assert_int_equal(total, N_FLOWS4);
	}
	for (uint16_t p = 1; p < N_PORTS; p++)
		assert_true(per_port[p] >= 2 * N_FLOWS4 / 3 / 2); /* every uplink used, roughly evenly */

	/* counters: p0 received everything, each uplink sent its share */
	struct aif_port_ctr d0 = delta(&before, 0);
	assert_int_equal(d0.rx_packets, 2 * N_FLOWS4);
	assert_int_equal(d0.rx_bytes, 2ull * N_FLOWS4 * len);
	assert_int_equal(d0.tx_packets, 0);
	member_ctrs_by_port("uplinks", m1);
	uint64_t msum = 0;
	for (uint16_t p = 1; p < N_PORTS; p++) {
		struct aif_port_ctr d = delta(&before, p);
		assert_int_equal(d.rx_packets, 0);
		assert_int_equal(d.tx_packets, per_port[p]);
		assert_int_equal(d.tx_bytes, (uint64_t)per_port[p] * len);
		assert_int_equal(m1[p].packets - m0[p].packets, per_port[p]);
		assert_int_equal(m1[p].bytes - m0[p].bytes, (uint64_t)per_port[p] * len);
		msum += m1[p].packets - m0[p].packets;
	}
	assert_int_equal(msum, d0.rx_packets);
	assert_no_drops(&before);
	assert_clean();
}

/*
 * Frames taken in one at a time (the pipeline's one-packet path, what
 * virtual time's ports give) as in a burst: the same member for each flow as
 * a burst of all of them picks, the same rewrite and counters; an IPv6 frame
 * too, and a frame whose destination has no route.
 */
/* Flow i's IPv4 RoCE frame from h0 (source port 0xC000 + 37 i) into f. */
static uint16_t
flow4_frame(uint8_t *f, unsigned i)
{
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0, .dip = ip_remote,
			  .sport = (uint16_t)(0xC000 + i * 37), .ttl = 64, .qp = 0x000123 };

	return build_roce4(f, &r);
}

static void
test_one_at_a_time(void **state)
{
	enum { N = 96 };
	uint8_t f[FRAME_MAX];
	uint16_t len = 0, port_of[N];
	struct rte_mbuf *out[N];
	struct rs_snap before;

	(void)state;
	/* a burst of them all: where each flow goes */
	for (unsigned i = 0; i < N; i++) {
		len = flow4_frame(f, i);
		inject(0, f, len);
	}
	run();
	memset(port_of, 0, sizeof(port_of));
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned n = sent(p, out, N);
		for (unsigned k = 0; k < n; k++) {
			const uint8_t *fo = rte_pktmbuf_mtod(out[k], const uint8_t *);
			uint16_t s = get16(fo + ETH_HLEN + IP4_HLEN);
			port_of[(s - 0xC000) / 37] = p;
		}
		rs_free_all(out, n);
	}
	/* one at a time: each on its port, rewritten as in the burst */
	snap_take(&before);
	for (unsigned i = 0; i < N; i++) {
		len = flow4_frame(f, i);
		inject(0, f, len);
		run();
		assert_true(port_of[i] >= 1);
		struct rte_mbuf *mb = sent_one(port_of[i]);
		check_routed4(mb, port_of[i], f, len);
		rte_pktmbuf_free(mb);
		assert_no_tx();
	}
	struct aif_port_ctr d0 = delta(&before, 0);
	assert_int_equal(d0.rx_packets, N);
	assert_int_equal(d0.rx_bytes, (uint64_t)N * len);
	assert_no_drops(&before);
	/* IPv6 alone: hop limit - 1, on the port the hash picks */
	struct roce r6 = { .dmac = mac_port[0], .smac = mac_h0, .sip6 = ip6_h0,
			   .dip6 = ip6_remote, .sport = 0xC123, .ttl = 64, .qp = 0x000456 };
	len = build_roce6(f, &r6);
	inject(0, f, len);
	run();
	unsigned got = 0;
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned n = sent(p, out, N);
		for (unsigned k = 0; k < n; k++) {
			const uint8_t *fo = rte_pktmbuf_mtod(out[k], const uint8_t *);
			assert_int_equal(rte_pktmbuf_pkt_len(out[k]), len);
			assert_memory_equal(fo, mac_nbr[p], 6);
			assert_int_equal(fo[ETH_HLEN + 7], 63);
		}
		got += n;
		rs_free_all(out, n);
	}
	assert_int_equal(got, 1);
	/* no route: dropped, counted */
	struct roce rx = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			   .dip = IP4(172, 16, 0, 1), .sport = 0xC001, .ttl = 64, .qp = 0x000123 };
	len = build_roce4(f, &rx);
	snap_take(&before);
	inject(0, f, len);
	run();
	assert_no_tx();
	assert_drops(&before, 0, AIF_DROP_NO_ROUTE, 1);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 2. IPv6 RoCEv2                                                     */

static void
test_forward_ipv6_roce(void **state)
{
	uint8_t f[FRAME_MAX];
	uint16_t len = 0;
	struct rte_mbuf *out[N_FLOWS6];
	struct aif_member_sums m0[N_PORTS], m1[N_PORTS];
	unsigned per_port[N_PORTS] = { 0 };
	struct rs_snap before;

	(void)state;
	snap_take(&before);
	member_ctrs_by_port("uplinks6", m0);
	for (unsigned i = 0; i < N_FLOWS6; i++) {
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0,
				  .sip6 = ip6_h0, .dip6 = ip6_remote,
				  .sport = (uint16_t)(0xC000 + i * 61), .ttl = 64,
				  .qp = 0x000456, .flow_label = i };
		len = build_roce6(f, &r);
		inject(0, f, len);
	}
	run();
	assert_int_equal(rte_ring_count(H.tx[0]), 0);
	unsigned total = 0;
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned n = sent(p, out, N_FLOWS6);
		total += n;
		per_port[p] = n;
		for (unsigned k = 0; k < n; k++) {
			const uint8_t *fo = rte_pktmbuf_mtod(out[k], const uint8_t *);
			uint16_t s = get16(fo + ETH_HLEN + IP6_HLEN);
			unsigned i = (unsigned)(s - 0xC000) / 61;
			assert_true(i < N_FLOWS6 && s == 0xC000 + i * 61);
			struct roce r = { .dmac = mac_port[0], .smac = mac_h0,
					  .sip6 = ip6_h0, .dip6 = ip6_remote,
					  .sport = s, .ttl = 64, .qp = 0x000456,
					  .flow_label = i };
			len = build_roce6(f, &r);
			assert_int_equal(rte_pktmbuf_pkt_len(out[k]), len);
			assert_memory_equal(fo, mac_nbr[p], 6);
			assert_memory_equal(fo + 6, mac_port[p], 6);
			/* hop limit - 1, every other byte as it came in */
			assert_int_equal(fo[ETH_HLEN + 7], 63);
			assert_memory_equal(fo + 12, f + 12, 2 + 7);
			assert_memory_equal(fo + ETH_HLEN + 8, f + ETH_HLEN + 8,
					    len - ETH_HLEN - 8);
			assert_int_equal(expected_port(f, len, "uplinks6"), p);
		}
		rs_free_all(out, n);
	}
	assert_int_equal(total, N_FLOWS6);

	struct aif_port_ctr d0 = delta(&before, 0);
	assert_int_equal(d0.rx_packets, N_FLOWS6);
	assert_int_equal(d0.rx_bytes, (uint64_t)N_FLOWS6 * len);
	member_ctrs_by_port("uplinks6", m1);
	for (uint16_t p = 1; p < N_PORTS; p++) {
		struct aif_port_ctr d = delta(&before, p);
		assert_true(per_port[p] > 0);
		assert_int_equal(d.tx_packets, per_port[p]);
		assert_int_equal(d.tx_bytes, (uint64_t)per_port[p] * len);
		assert_int_equal(m1[p].packets - m0[p].packets, per_port[p]);
		assert_int_equal(m1[p].bytes - m0[p].bytes, (uint64_t)per_port[p] * len);
	}
	assert_no_drops(&before);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 3. Drops by reason                                                 */

enum drop_frame {
	DF_TTL1, DF_NO_ROUTE, DF_DROP_ROUTE, DF_BAD_CSUM, DF_TRUNC_IP,
	DF_TRUNC_ETH, DF_FOREIGN_MAC, DF_ETHERTYPE, DF_PFC, DF_TTL1_V6,
	DF_NO_ROUTE_V6,
};

struct drop_case {
	const char *name;
	enum drop_frame frame;
	uint16_t port;
	enum aif_drop_reason reason;
};

static const struct drop_case drop_cases[] = {
	{ "TTL 1", DF_TTL1, 0, AIF_DROP_TTL_EXPIRED },
	{ "no route 172.16.0.1", DF_NO_ROUTE, 0, AIF_DROP_NO_ROUTE },
	{ "drop route 10.9.1.1", DF_DROP_ROUTE, 0, AIF_DROP_NO_ROUTE },
	{ "bad IPv4 checksum", DF_BAD_CSUM, 0, AIF_DROP_MALFORMED },
	{ "IPv4 cut short", DF_TRUNC_IP, 0, AIF_DROP_TRUNCATED },
	{ "runt", DF_TRUNC_ETH, 2, AIF_DROP_TRUNCATED },
	{ "foreign unicast MAC", DF_FOREIGN_MAC, 0, AIF_DROP_NOT_FOR_US },
	{ "unknown EtherType", DF_ETHERTYPE, 1, AIF_DROP_UNSUPPORTED },
	{ "PFC, reserved class-vector bits", DF_PFC, 3, AIF_DROP_MALFORMED },
	{ "hop limit 1", DF_TTL1_V6, 0, AIF_DROP_TTL_EXPIRED },
	{ "no IPv6 route", DF_NO_ROUTE_V6, 0, AIF_DROP_NO_ROUTE },
};

static uint16_t
build_drop_frame(uint8_t *f, const struct drop_case *c)
{
	struct roce r = { .dmac = mac_port[c->port], .smac = mac_h0, .sip = ip_h0,
			  .dip = ip_remote, .sport = 0xC123, .ttl = 64, .qp = 7,
			  .sip6 = ip6_h0, .dip6 = ip6_remote };
	static const uint8_t ip6_nowhere[16] = { 0x20, 0x01, 0x0d, 0xb9, [15] = 1 };
	uint16_t len;

	switch (c->frame) {
	case DF_TTL1:
		r.ttl = 1;
		return build_roce4(f, &r);
	case DF_NO_ROUTE:
		r.dip = IP4(172, 16, 0, 1);
		return build_roce4(f, &r);
	case DF_DROP_ROUTE:
		r.dip = IP4(10, 9, 1, 1);
		return build_roce4(f, &r);
	case DF_BAD_CSUM:
		len = build_roce4(f, &r);
		f[ETH_HLEN + 10] ^= 0x01;
		return len;
	case DF_TRUNC_IP:
		build_roce4(f, &r);
		return ETH_HLEN + IP4_HLEN + 4; /* total length says far more */
	case DF_TRUNC_ETH:
		build_roce4(f, &r);
		return 10;
	case DF_FOREIGN_MAC:
		r.dmac = mac_foreign;
		return build_roce4(f, &r);
	case DF_ETHERTYPE:
		len = build_roce4(f, &r);
		put16(f + 12, 0x88B5); /* local experimental */
		return len;
	case DF_PFC: {
		uint8_t *p = eth(f, mac_pfc, mac_nbr[3], AIF_ETHERTYPE_MAC_CTRL);
		memset(p, 0, 60 - ETH_HLEN);
		put16(p, 0x0101);        /* PFC opcode */
		/* priority 3, and a bit in the vector's reserved upper octet: the
		 * port's pause state rejects it (a valid frame pauses, see the
		 * QoS tests) and it is never forwarded */
		put16(p + 2, 0x0100 | 1u << 3);
		put16(p + 4 + 3 * 2, 0xffff);
		return 60;
	}
	case DF_TTL1_V6:
		r.ttl = 1;
		return build_roce6(f, &r);
	case DF_NO_ROUTE_V6:
		r.dip6 = ip6_nowhere;
		return build_roce6(f, &r);
	}
	fail_msg("bad case");
	return 0;
}

static void
test_drops(void **state)
{
	uint8_t f[FRAME_MAX];
	struct rs_snap before;

	(void)state;
	for (size_t i = 0; i < RTE_DIM(drop_cases); i++) {
		const struct drop_case *c = &drop_cases[i];
		uint16_t len = build_drop_frame(f, c);

		bool expired = c->reason == AIF_DROP_TTL_EXPIRED;
		snap_take(&before);
		inject(c->port, f, len);
		run();
		if (expired) /* the sender is told (test_icmp_error.c checks how) */
			rte_pktmbuf_free(sent_one(c->port));
		assert_no_tx();
		for (uint16_t p = 0; p < N_PORTS; p++) {
			struct aif_port_ctr d = delta(&before, p);
			bool here = p == c->port;
			assert_int_equal(d.rx_packets, here ? 1 : 0);
			assert_int_equal(d.rx_bytes, here ? len : 0);
			assert_int_equal(d.tx_packets, here && expired ? 1 : 0);
			assert_int_equal(d.icmp_time_exceeded, here && expired ? 1 : 0);
			assert_int_equal(d.arp_tx + d.nd_tx + d.icmp_echo_replies, 0);
		}
		print_message("  %-22s -> %s on p%u\n", c->name, aif_drop_name(c->reason),
			      c->port);
		assert_drops(&before, c->port, c->reason, 1);
		assert_clean();
	}
}

/* ---------------------------------------------------------------- */
/* 4. Ping the switch                                                 */

static void
test_icmp_echo(void **state)
{
	uint8_t f[FRAME_MAX];
	struct rs_snap before;
	struct rte_mbuf *mb;
	uint16_t len;

	(void)state;
	snap_take(&before);
	len = build_echo4(f, mac_port[0], mac_h0, ip_h0, ip_p0);
	inject(0, f, len);
	run();
	mb = sent_one(0);
	const uint8_t *fo = rte_pktmbuf_mtod(mb, const uint8_t *);
	const uint8_t *ip = fo + ETH_HLEN, *icmp = ip + IP4_HLEN;
	uint16_t icmp_len = 8 + ECHO_DATA;
	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_memory_equal(fo, mac_h0, 6);
	assert_memory_equal(fo + 6, mac_port[0], 6);
	assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
	assert_int_equal(get32(ip + 12), ip_p0);
	assert_int_equal(get32(ip + 16), ip_h0);
	assert_int_equal(get16(ip + 2), IP4_HLEN + icmp_len);
	assert_int_equal(ip[9], 1);
	assert_true(ip[8] > 1);
	assert_int_equal(icmp[0], 0);
	assert_int_equal(icmp[1], 0);
	assert_int_equal(sum16(0, icmp, icmp_len), 0xffff);
	assert_memory_equal(icmp + 4, f + ETH_HLEN + IP4_HLEN + 4, icmp_len - 4);
	rte_pktmbuf_free(mb);
	struct aif_port_ctr d = delta(&before, 0);
	assert_int_equal(d.icmp_echo_replies, 1);
	assert_int_equal(d.rx_packets, 1);
	assert_int_equal(d.tx_packets, 1);
	assert_no_drops(&before);

	/* and over IPv6 (h0's v6 address is on p0's subnet) */
	snap_take(&before);
	len = build_echo6(f, mac_port[0], mac_h0, ip6_h0, ip6_p0);
	inject(0, f, len);
	run();
	mb = sent_one(0);
	fo = rte_pktmbuf_mtod(mb, const uint8_t *);
	ip = fo + ETH_HLEN;
	icmp = ip + IP6_HLEN;
	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_memory_equal(fo, mac_h0, 6);
	assert_memory_equal(fo + 6, mac_port[0], 6);
	assert_memory_equal(ip + 8, ip6_p0, 16);
	assert_memory_equal(ip + 24, ip6_h0, 16);
	assert_int_equal(icmp[0], 129);
	assert_int_equal(sum_ipv6_l4(ip, icmp, icmp_len, 58), 0xffff);
	assert_memory_equal(icmp + 4, f + ETH_HLEN + IP6_HLEN + 4, icmp_len - 4);
	rte_pktmbuf_free(mb);
	assert_int_equal(delta(&before, 0).icmp_echo_replies, 1);
	assert_no_drops(&before);

	/* other traffic to the switch is dropped as to_switch */
	snap_take(&before);
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			  .dip = ip_p0, .sport = 0xC001, .ttl = 64, .qp = 1 };
	len = build_roce4(f, &r);
	inject(0, f, len);
	run();
	assert_no_tx();
	assert_drops(&before, 0, AIF_DROP_TO_SWITCH, 1);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Path trace                                                         */

static void
test_path_trace(void **state)
{
	uint8_t f[FRAME_MAX];
	uint16_t len;

	(void)state;
	load_config(BASE_SEED, members_fwd);
	json_t *r = ctl_request("{\"cmd\": \"trace_start\", \"dst\": \"10.1.7.7\"}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);

	/* 20 flows to the traced destination, 20 elsewhere */
	uint16_t want_port[20];
	for (unsigned i = 0; i < 40; i++) {
		struct roce rr = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				   .dip = i < 20 ? IP4(10, 1, 7, 7) : IP4(10, 1, 8, 8),
				   .sport = (uint16_t)(0xC000 + 97 * i), .ttl = 64, .qp = 1 };
		len = build_roce4(f, &rr);
		if (i < 20)
			want_port[i] = expected_port(f, len, "uplinks");
		inject(0, f, len);
	}
	run();
	drain_uplinks();

	r = ctl_request("{\"cmd\": \"trace_stop\"}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	r = ctl_request("{\"cmd\": \"show_trace\", \"clear\": true}");
	json_t *pk = json_object_get(json_object_get(r, "result"), "packets");
	assert_int_equal(json_array_size(pk), 20);
	for (unsigned i = 0; i < 20; i++) {
		json_t *e = json_array_get(pk, i);
		assert_string_equal(json_string_value(json_object_get(e, "dst")), "10.1.7.7");
		assert_int_equal(json_integer_value(json_object_get(e, "src_port")), 0xC000 + 97 * i);
		assert_string_equal(json_string_value(json_object_get(e, "group")), "uplinks");
		assert_string_equal(json_string_value(json_object_get(e, "scheme")), "ecmp");
		char want[8];
		snprintf(want, sizeof(want), "p%u", want_port[i]);
		assert_string_equal(json_string_value(json_object_get(e, "port")), want);
	}
	json_decref(r);
	/* off: nothing more is recorded */
	len = build_roce4(f, &(struct roce){ .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
					      .dip = IP4(10, 1, 7, 7), .sport = 0xC001,
					      .ttl = 64, .qp = 1 });
	inject(0, f, len);
	run();
	drain_uplinks();
	r = ctl_request("{\"cmd\": \"show_trace\"}");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "packets")), 0);
	json_decref(r);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Frames in chained mbufs (as net_pcap hands over what one mbuf     */
/* cannot hold)                                                      */

/* Frame f of len bytes in segments of the sizes given (the last takes the
 * rest), chained with rte_pktmbuf_chain, arrives at port. */
static void
inject_chained(uint16_t port, const uint8_t *f, uint32_t len, const uint16_t *seg,
	       unsigned n_seg)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	for (unsigned k = 0; k < n_seg; k++) {
		uint16_t n = k + 1 == n_seg ? (uint16_t)(len - off) : seg[k];
		struct rte_mbuf *m = rs_mbuf_of(&H, f + off, n);
		off += n;
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
	}
	assert_int_equal(off, len);
	assert_int_equal(rte_pktmbuf_pkt_len(head), len);
	assert_int_equal(head->nb_segs, n_seg);
	assert_int_equal(rte_ring_enqueue(H.rx[port], head), 0);
}

/*
 * Longer than the ingress port's MTU (p0: 1500) and chained: mtu_exceeded,
 * not truncated (the parser sees one segment).  Within the MTU and chained,
 * even with the Ethernet header split: forwarded intact, in one segment.
 * Chained, within the MTU (p1: 9000) but larger than one mbuf of the pool
 * (2 KiB here; the daemon sizes it from the largest MTU): mbuf_too_small.
 */
static void
test_chained_frames(void **state)
{
	static uint8_t f[4200];
	struct rs_snap before;

	(void)state;
	load_config(BASE_SEED, members_fwd);

	/* 1600 bytes (IP 1586 > 1500) in two segments, untagged and tagged */
	for (int tagged = 0; tagged <= 1; tagged++) {
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				  .dip = ip_remote, .sport = 0xC600, .ttl = 64, .qp = 1 };
		uint16_t len = build_roce4_n(f, &r, 26, 1600 - 14 - 20 - 8 - 12 - 4);
		assert_int_equal(len, 1600);
		if (tagged)
			len = add_tag(f, len, TCI(3, 100));
		snap_take(&before);
		inject_chained(0, f, len, (const uint16_t[]){ 1000 }, 2);
		run();
		assert_no_tx();
		assert_drops(&before, 0, AIF_DROP_MTU_EXCEEDED, 1);
		assert_int_equal(delta(&before, 0).rx_bytes, len);
	}

	/* exactly the MTU (IP 1500), chained, tagged: taken */
	{
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				  .dip = ip_remote, .sport = 0xC601, .ttl = 64, .qp = 1 };
		uint16_t len = build_roce4_n(f, &r, 26, 1500 - 20 - 8 - 12 - 4);
		static uint8_t in[1600];
		memcpy(in, f, len);
		uint16_t tlen = add_tag(f, len, TCI(3, 100));
		uint16_t out = expected_port(f, tlen, "uplinks");
		snap_take(&before);
		inject_chained(0, f, tlen, (const uint16_t[]){ 700 }, 2);
		run();
		struct rte_mbuf *mb = sent_one(out);
		check_routed4_tag(mb, out, in, len, -1);
		rte_pktmbuf_free(mb);
		assert_no_drops(&before);
	}

	/* 1000 bytes in three segments, the first only 10 bytes: forwarded */
	{
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				  .dip = ip_remote, .sport = 0xC602, .ttl = 64, .qp = 1 };
		uint16_t len = build_roce4_n(f, &r, 26, 1000 - 14 - 20 - 8 - 12 - 4);
		uint16_t out = expected_port(f, len, "uplinks");
		snap_take(&before);
		inject_chained(0, f, len, (const uint16_t[]){ 10, 490 }, 3);
		run();
		struct rte_mbuf *mb = sent_one(out);
		check_routed4(mb, out, f, len);
		rte_pktmbuf_free(mb);
		assert_no_drops(&before);
		struct aif_port_ctr d = delta(&before, 0);
		assert_int_equal(d.rx_packets, 1);
		assert_int_equal(d.rx_bytes, len);
	}

	/* 4154 bytes (jumbo RoCE) on p1 (MTU 9000) in 2 KiB mbufs */
	{
		struct roce r = { .dmac = mac_port[1], .smac = mac_nbr[1], .sip = ip_remote,
				  .dip = ip_h0, .sport = 0xC603, .ttl = 64, .qp = 1 };
		uint16_t len = build_roce4_n(f, &r, 26, 4096);
		assert_int_equal(len, 4154);
		snap_take(&before);
		inject_chained(1, f, len, (const uint16_t[]){ 2048, 2048 }, 3);
		run();
		assert_no_tx();
		assert_drops(&before, 1, AIF_DROP_MBUF_TOO_SMALL, 1);
	}
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_forward_ipv4_roce, test_setup),
		cmocka_unit_test_setup(test_one_at_a_time, test_setup),
		cmocka_unit_test_setup(test_forward_ipv6_roce, test_setup),
		cmocka_unit_test_setup(test_drops, test_setup),
		cmocka_unit_test_setup(test_icmp_echo, test_setup),
		cmocka_unit_test_setup(test_path_trace, test_setup),
		cmocka_unit_test_setup(test_chained_frames, test_setup),
	};
	return cmocka_run_group_tests_name("pipeline_forwarding", tests, group_setup,
					   group_teardown);
}
