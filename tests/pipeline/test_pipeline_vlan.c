/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of 802.1Q: one whole switch ("leaf0", four ports) run in
 * virtual time (pipeline_fixture.h: the config, the harness, the frames).
 *
 * The egress port decides the tag (untagged out of a port without "vlan",
 * its VID with PCP = traffic class out of one with, IPv4 and IPv6), ECN
 * marking in frames that gained or lost a tag, what a port with "vlan"
 * takes and drops as vlan_mismatch, and the switch's own ARP requests and
 * solicitations tagged.
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

#include "clock.h"
#include "drop.h"
#include "neigh.h"
#include "pkt.h"
#include "switch.h"

#include "pipeline_fixture.h"

/* ---------------------------------------------------------------- */
/* 802.1Q: the egress port decides the tag                           */

/*
 * The test config with extra fields on ports (extra[p], e.g. "\"vlan\": 200",
 * or NULL), a default policy (policy: its JSON object, or NULL) and extra
 * routes (with a leading comma, or "").
 */
static char *
config_ports(const char *const extra[N_PORTS], const char *policy, const char *routes)
{
	char *base = config_text(BASE_SEED, members_fwd, "net_ring_pl3", routes);
	size_t n = strlen(base) + 1024;
	char *s = malloc(n), *o = s;
	const char *i = base;

	assert_non_null(s);
	if (policy != NULL)
		o += sprintf(o, "{\"policies\": {\"default\": %s}, ", policy), i++;
	for (;;) {
		const char *d = strstr(i, "\"device\": \"net_ring_pl");
		if (d == NULL)
			break;
		d += strlen("\"device\": \"net_ring_pl");
		unsigned p = (unsigned)(*d - '0');
		assert_true(p < N_PORTS);
		d += 2; /* the digit and the closing quote */
		memcpy(o, i, (size_t)(d - i));
		o += d - i;
		if (extra[p] != NULL)
			o += sprintf(o, ", %s", extra[p]);
		i = d;
	}
	assert_true((size_t)(o - s) + strlen(i) < n);
	strcpy(o, i);
	free(base);
	return s;
}

/* The test config with "vlan" on the ports given (vid[p] < 0: none). */
static char *
config_vlan(const int vid[N_PORTS])
{
	static char buf[N_PORTS][32];
	const char *extra[N_PORTS];

	for (unsigned p = 0; p < N_PORTS; p++) {
		snprintf(buf[p], sizeof(buf[p]), "\"vlan\": %d", vid[p]);
		extra[p] = vid[p] >= 0 ? buf[p] : NULL;
	}
	return config_ports(extra, NULL, "");
}

/* One RoCE frame to a remote address through the uplinks; sport picks the
 * flow.  in (untagged) and its length are returned for the check. */
static uint16_t
roce_to_remote(uint8_t *f, uint16_t sport, uint8_t dscp)
{
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			  .dip = ip_remote, .sport = sport, .ttl = 64, .qp = 0x77 };
	return build_roce4_n(f, &r, dscp, ROCE_PAYLOAD);
}

/*
 * A frame tagged VID 100 PCP 3 leaves a port without "vlan" untagged; with
 * "vlan": 200 on the uplinks every frame leaves tagged VID 200 with PCP =
 * its traffic class (DSCP 26 -> TC 3, DSCP 48 -> TC 6, else 0), whatever its
 * tag was; "vlan": 0 gives a priority tag.
 */
static void
test_vlan_egress(void **state)
{
	static const struct { int in_tci; uint8_t dscp; uint8_t tc; } cases[] = {
		{ -1, 26, 3 }, { TCI(3, 100), 26, 3 }, { TCI(5, 100), 26, 3 },
		{ TCI(3, 100), 0, 0 }, { -1, 48, 6 }, { TCI(0, 0), 26, 3 },
	};
	uint8_t f[FRAME_MAX], in[FRAME_MAX];
	struct rs_snap before;

	(void)state;
	/* no "vlan" anywhere: the tag that came in goes */
	load_config(BASE_SEED, members_fwd);
	snap_take(&before);
	struct aif_member_sums m0[N_PORTS], m1[N_PORTS];
	member_ctrs_by_port("uplinks", m0);
	uint16_t len = roce_to_remote(in, 0xC101, 26);
	memcpy(f, in, len);
	uint16_t tlen = add_tag(f, len, TCI(3, 100));
	uint16_t out = expected_port(f, tlen, "uplinks");
	inject(0, f, tlen);
	run();
	struct rte_mbuf *mb = sent_one(out);
	check_routed4_tag(mb, out, in, len, -1);
	rte_pktmbuf_free(mb);
	/* port and member bytes count the frame as sent */
	struct aif_port_ctr d = delta(&before, out);
	assert_int_equal(d.tx_packets, 1);
	assert_int_equal(d.tx_bytes, len);
	member_ctrs_by_port("uplinks", m1);
	assert_int_equal(m1[out].packets - m0[out].packets, 1);
	assert_int_equal(m1[out].bytes - m0[out].bytes, len);
	assert_no_drops(&before);

	for (int vid = 200; vid >= 0; vid -= 200) {
		const int vids[N_PORTS] = { -1, vid, vid, vid };
		load_text(config_vlan(vids));
		snap_take(&before);
		for (size_t k = 0; k < RTE_DIM(cases); k++) {
			len = roce_to_remote(in, (uint16_t)(0xC200 + k), cases[k].dscp);
			memcpy(f, in, len);
			tlen = cases[k].in_tci >= 0 ? add_tag(f, len, (uint16_t)cases[k].in_tci)
						     : len;
			out = expected_port(f, tlen, "uplinks");
			inject(0, f, tlen);
			run();
			mb = sent_one(out);
			check_routed4_tag(mb, out, in, len, TCI(cases[k].tc, vid));
			rte_pktmbuf_free(mb);
		}
		assert_no_drops(&before);
	}
	/* back to untagged: tagged frames from the uplinks to h0 leave p0 bare */
	load_config(BASE_SEED, members_fwd);
	struct roce r = { .dmac = mac_port[1], .smac = mac_nbr[1], .sip = ip_remote,
			  .dip = ip_h0, .sport = 0xC300, .ttl = 64, .qp = 9 };
	len = build_roce4(in, &r);
	memcpy(f, in, len);
	tlen = add_tag(f, len, TCI(3, 100));
	inject(1, f, tlen);
	run();
	mb = sent_one(0);
	const uint8_t *o = rte_pktmbuf_mtod(mb, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_memory_equal(o, mac_h0, 6);
	assert_int_equal(get16(o + 12), AIF_ETHERTYPE_IPV4);
	assert_int_equal(o[ETH_HLEN + 8], 63);
	assert_int_equal(sum16(0, o + ETH_HLEN, IP4_HLEN), 0xffff);
	assert_memory_equal(o + ETH_HLEN + IP4_HLEN, in + ETH_HLEN + IP4_HLEN,
			    len - ETH_HLEN - IP4_HLEN);
	rte_pktmbuf_free(mb);
	assert_clean();
}

/* IPv6 tagged in, untagged out of a port without "vlan", tagged out of one
 * with it: the hop limit and everything after the Ethernet header as in. */
static void
test_vlan_egress_ipv6(void **state)
{
	uint8_t f[FRAME_MAX], in[FRAME_MAX];
	const int vids[N_PORTS] = { -1, 7, 7, 7 };

	(void)state;
	for (int tagged_out = 0; tagged_out <= 1; tagged_out++) {
		if (tagged_out)
			load_text(config_vlan(vids));
		else
			load_config(BASE_SEED, members_fwd);
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip6 = ip6_h0,
				  .dip6 = ip6_remote, .sport = 0xC400, .ttl = 64, .qp = 5,
				  .flow_label = 0x12345 };
		uint16_t len = build_roce6(in, &r);
		memcpy(f, in, len);
		uint16_t tlen = add_tag(f, len, TCI(3, 100));
		uint16_t out = expected_port(f, tlen, "uplinks6");
		inject(0, f, tlen);
		run();
		struct rte_mbuf *mb = sent_one(out);
		const uint8_t *o = rte_pktmbuf_mtod(mb, const uint8_t *);
		uint16_t l2 = tagged_out ? ETH_HLEN + 4 : ETH_HLEN;
		assert_int_equal(rte_pktmbuf_pkt_len(mb), len - ETH_HLEN + l2);
		if (tagged_out)
			assert_int_equal(get16(o + 14), TCI(3, 7));
		assert_int_equal(get16(o + l2 - 2), AIF_ETHERTYPE_IPV6);
		assert_int_equal(o[l2 + 7], 63);
		assert_memory_equal(o + l2, in + ETH_HLEN, 7);
		assert_memory_equal(o + l2 + 8, in + ETH_HLEN + 8, len - ETH_HLEN - 8);
		rte_pktmbuf_free(mb);
	}
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * ECN marking at dequeue reads the IP header at the offset the rewrite left
 * (mbuf l2_len = l3_off): frames that gained a tag on the way out must be
 * marked in their IP header, with a valid checksum, and frames that lost
 * one likewise.  p1 shaped to 1 Gb/s with Kmin 1000 and Kmax 2000 bytes
 * on queue 3: a burst of 64 DSCP 26 ECT(0) frames queues, and the later
 * ones leave with CE.
 */
static void
test_vlan_ecn_marking(void **state)
{
	static const char *const extra[N_PORTS] = {
		NULL, "\"vlan\": 200, \"speed_gbps\": 1, \"shaper_gbps\": 1", NULL, NULL,
	};
	const char *policy = "{\"qos\": {\"ecn\": {\"queues\": [3], \"kmin_bytes\": 1000,"
			     " \"kmax_bytes\": 2000, \"pmax\": 1.0}}}";
	enum { N = 64 };
	uint8_t in[N][FRAME_MAX], f[FRAME_MAX];
	uint16_t len = 0;
	struct rte_mbuf *out[N];
	struct rs_snap before;

	(void)state;
	load_text(config_ports(extra, policy,
			       ", {\"prefix\": \"10.7.0.0/16\","
			       " \"nexthop\": {\"ip\": \"10.0.1.0\", \"port\": \"p1\"}}"));
	for (int tagged_in = 0; tagged_in <= 1; tagged_in++) {
		snap_take(&before);
		for (unsigned k = 0; k < N; k++) {
			struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
					  .dip = IP4(10, 7, 0, 1), .sport = (uint16_t)(0xC700 + k),
					  .ttl = 64, .qp = 2 };
			len = build_roce4(in[k], &r);
			memcpy(f, in[k], len);
			inject(0, f, tagged_in ? add_tag(f, len, TCI(5, 100)) : len);
		}
		unsigned got = 0, marked = 0;
		for (unsigned st = 0; st < 100000 && got < N; st++) {
			step();
			got += sent(1, out + got, N - got);
		}
		assert_int_equal(got, N);
		for (unsigned k = 0; k < N; k++) {
			const uint8_t *o = rte_pktmbuf_mtod(out[k], const uint8_t *);
			const uint8_t *ip = o + ETH_HLEN + 4;
			unsigned i = get16(ip + IP4_HLEN) - 0xC700;
			assert_true(i < N);
			assert_int_equal(rte_pktmbuf_pkt_len(out[k]), len + 4);
			assert_int_equal(get16(o + 12), AIF_ETHERTYPE_VLAN);
			assert_int_equal(get16(o + 14), TCI(3, 200));
			assert_int_equal(get16(o + 16), AIF_ETHERTYPE_IPV4);
			assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
			assert_int_equal(ip[1] >> 2, 26);
			assert_true((ip[1] & 3) == 2 || (ip[1] & 3) == 3); /* ECT(0) or CE */
			marked += (ip[1] & 3) == 3;
			/* everything else of the IP packet as sent */
			const uint8_t *ip_in = in[i] + ETH_HLEN;
			assert_int_equal(ip[0], ip_in[0]);
			assert_memory_equal(ip + 2, ip_in + 2, 6);
			assert_int_equal(ip[8], ip_in[8] - 1);
			assert_memory_equal(ip + 9, ip_in + 9, 1);
			assert_memory_equal(ip + 12, ip_in + 12, len - ETH_HLEN - 12);
		}
		rs_free_all(out, N);
		print_message("  ECN through a tagged port (tagged in: %d): %u of %u marked CE\n",
			      tagged_in, marked, N);
		assert_true(marked >= N / 4);
		assert_no_drops(&before);
	}
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * A port with "vlan": 200 takes untagged, priority-tagged and VID 200
 * frames and drops other VIDs as vlan_mismatch; a port without "vlan" takes
 * any VID.
 */
static void
test_vlan_ingress(void **state)
{
	static const struct { int tci; bool taken; } cases[] = {
		{ -1, true }, { TCI(3, 0), true }, { TCI(3, 200), true },
		{ TCI(3, 100), false }, { TCI(0, 4094), false }, { TCI(0, 201), false },
	};
	const int vids[N_PORTS] = { -1, 200, -1, -1 };
	uint8_t f[FRAME_MAX];
	struct rs_snap before;

	(void)state;
	load_text(config_vlan(vids));
	for (size_t k = 0; k < RTE_DIM(cases); k++) {
		for (uint16_t in_port = 0; in_port <= 1; in_port++) {
			/* p1 (vlan 200) -> h0 on p0; p0 (no vlan) -> the uplinks */
			struct roce r = in_port == 1 ?
				(struct roce){ .dmac = mac_port[1], .smac = mac_nbr[1],
					       .sip = ip_remote, .dip = ip_h0,
					       .sport = (uint16_t)(0xC500 + k), .ttl = 64,
					       .qp = 3 } :
				(struct roce){ .dmac = mac_port[0], .smac = mac_h0,
					       .sip = ip_h0, .dip = ip_remote,
					       .sport = (uint16_t)(0xC500 + k), .ttl = 64,
					       .qp = 3 };
			uint16_t len = build_roce4(f, &r);
			if (cases[k].tci >= 0)
				len = add_tag(f, len, (uint16_t)cases[k].tci);
			uint16_t out = in_port == 1 ? 0 : expected_port(f, len, "uplinks");
			snap_take(&before);
			inject(in_port, f, len);
			run();
			if (in_port == 0 || cases[k].taken) {
				struct rte_mbuf *mb = sent_one(out);
				const uint8_t *o = rte_pktmbuf_mtod(mb, const uint8_t *);
				/* out of p0: untagged; out of p1: VID 200 */
				assert_int_equal(get16(o + 12), out == 1 ? AIF_ETHERTYPE_VLAN
									 : AIF_ETHERTYPE_IPV4);
				if (out == 1)
					assert_int_equal(get16(o + 14), TCI(3, 200));
				rte_pktmbuf_free(mb);
				assert_no_drops(&before);
			} else {
				assert_no_tx();
				assert_drops(&before, in_port, AIF_DROP_VLAN_MISMATCH, 1);
			}
		}
	}
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * The switch's own requests on a port with "vlan": the ARP request and the
 * neighbour solicitation for an unknown host on p0's subnets leave tagged
 * with p0's VID and PCP 0, the rest of the frame as on an untagged port.
 */
static void
test_vlan_solicit(void **state)
{
	static const uint8_t ip6_unknown[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x77 };
	const int vids[N_PORTS] = { 300, -1, -1, -1 };
	uint8_t f[FRAME_MAX], want[60] = { 0 };
	struct rs_snap before;
	struct rte_mbuf *mb;
	const uint8_t *o;

	(void)state;
	load_text(config_vlan(vids));
	/* show ports says which port is tagged */
	json_t *rep = ctl_request("{\"cmd\": \"show_ports\"}");
	json_t *ports = json_object_get(rep, "result");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ports, 0), "vlan")), 300);
	assert_true(json_is_null(json_object_get(json_array_get(ports, 1), "vlan")));
	json_decref(rep);
	/* past any earlier request's rate limit */
	aif_clock_set(&H.ctl.clock, now_ns() + AIF_ARP_RL_NS);
	snap_take(&before);
	struct roce r = { .dmac = mac_port[1], .smac = mac_nbr[1], .sip = ip_remote,
			  .dip = IP4(10, 0, 0, 77), .sport = 0xC077, .ttl = 64, .qp = 7 };
	uint16_t len = build_roce4(f, &r);
	inject(1, f, len);
	run();
	mb = sent_one(0);
	o = rte_pktmbuf_mtod(mb, const uint8_t *);
	build_arp(want, mac_bcast, mac_port[0], 1, mac_port[0], ip_p0, NULL, IP4(10, 0, 0, 77));
	assert_int_equal(rte_pktmbuf_pkt_len(mb), 64);
	assert_memory_equal(o, want, 12);
	assert_int_equal(get16(o + 12), AIF_ETHERTYPE_VLAN);
	assert_int_equal(get16(o + 14), TCI(0, 300));
	assert_memory_equal(o + 16, want + 12, 60 - 12);
	rte_pktmbuf_free(mb);
	assert_int_equal(delta(&before, 0).arp_tx, 1);
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 1);

	r.sip6 = ip6_remote_src;
	r.dip6 = ip6_unknown;
	len = build_roce6(f, &r);
	inject(1, f, len);
	run();
	mb = sent_one(0);
	o = rte_pktmbuf_mtod(mb, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), ETH_HLEN + 4 + IP6_HLEN + 32);
	assert_int_equal(get16(o + 12), AIF_ETHERTYPE_VLAN);
	assert_int_equal(get16(o + 14), TCI(0, 300));
	assert_int_equal(get16(o + 16), AIF_ETHERTYPE_IPV6);
	const uint8_t *ip = o + ETH_HLEN + 4, *ns = ip + IP6_HLEN;
	assert_int_equal(ns[0], 135);
	assert_memory_equal(ns + 8, ip6_unknown, 16);
	assert_int_equal(sum_ipv6_l4(ip, ns, 32, 58), 0xffff);
	rte_pktmbuf_free(mb);
	assert_int_equal(delta(&before, 0).nd_tx, 1);
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 2);
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_vlan_egress, test_setup),
		cmocka_unit_test_setup(test_vlan_egress_ipv6, test_setup),
		cmocka_unit_test_setup(test_vlan_ingress, test_setup),
		cmocka_unit_test_setup(test_vlan_solicit, test_setup),
		cmocka_unit_test_setup(test_vlan_ecn_marking, test_setup),
	};
	return cmocka_run_group_tests_name("pipeline_vlan", tests, group_setup,
					   group_teardown);
}
