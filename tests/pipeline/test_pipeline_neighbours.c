/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of neighbours: one whole switch ("leaf0", four ports) run
 * in virtual time (pipeline_fixture.h: the config, the harness, the frames).
 *
 * ARP (answered on the port it came in, the requester learned, an unknown
 * host asked for at most every 100 ms and forwarded to once it replies),
 * IPv6 neighbour discovery (solicitations answered and learned, hop limit
 * below 255 refused), and learning under load: a flood of NS rate-limited
 * and capped while configured entries still install, aging, the learn ring
 * full with every lost event counted, stale neighbours asked for again by
 * the traffic that uses them, a removed neighbour's slot taken by another
 * address.
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

#include <rte_mbuf.h>

#include "clock.h"
#include "drop.h"
#include "neigh.h"
#include "pkt.h"
#include "switch.h"

#include "pipeline_fixture.h"

/* ---------------------------------------------------------------- */
/* 1. ARP: answer, learn, resolve                                    */

static void
check_arp_request(const struct rte_mbuf *mb, uint32_t target)
{
	uint8_t want[60] = { 0 };
	build_arp(want, mac_bcast, mac_port[0], 1, mac_port[0], ip_p0, NULL, target);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), 60); /* padded to the minimum */
	assert_memory_equal(rte_pktmbuf_mtod(mb, const uint8_t *), want, 60);
}

static void
test_arp(void **state)
{
	uint8_t f[FRAME_MAX], want[FRAME_MAX];
	struct rs_snap before;
	struct rte_mbuf *mb;
	uint16_t len;

	(void)state;
	/* a request for the switch's address is answered on the port it came in */
	snap_take(&before);
	len = build_arp(f, mac_bcast, mac_h7, 1, mac_h7, ip_h7, NULL, ip_p0);
	inject(0, f, len);
	run();
	mb = sent_one(0);
	build_arp(want, mac_h7, mac_port[0], 2, mac_port[0], ip_p0, mac_h7, ip_h7);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_memory_equal(rte_pktmbuf_mtod(mb, const uint8_t *), want, len);
	rte_pktmbuf_free(mb);
	struct aif_port_ctr d = delta(&before, 0);
	assert_int_equal(d.rx_packets, 1);
	assert_int_equal(d.arp_rx, 1);
	assert_int_equal(d.arp_tx, 1);
	assert_int_equal(d.tx_packets, 1);
	assert_int_equal(d.tx_bytes, len);
	assert_no_drops(&before);

	/* control learns the requester, and traffic to it is then forwarded */
	assert_int_equal(aif_neigh_find(H.sw->neigh, &(struct aif_ip){
		.family = AIF_AF_INET4, .b = { 10, 0, 0, 7 } }), AIF_NEIGH_NONE);
	assert_true(aif_switch_learn(H.sw, now_ns()) >= 1);
	uint32_t slot = aif_neigh_find(H.sw->neigh, &(struct aif_ip){
		.family = AIF_AF_INET4, .b = { 10, 0, 0, 7 } });
	assert_int_not_equal(slot, AIF_NEIGH_NONE);
	assert_int_equal(H.sw->neigh->meta[slot].type, AIF_NEIGH_LEARNED);

	snap_take(&before);
	struct roce r = { .dmac = mac_port[1], .smac = mac_nbr[1], .sip = IP4(10, 1, 0, 9),
			  .dip = ip_h7, .sport = 0xD000, .ttl = 9, .qp = 3 };
	len = build_roce4(f, &r);
	inject(1, f, len);
	run();
	mb = sent_one(0);
	const uint8_t *fo = rte_pktmbuf_mtod(mb, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(mb), len);
	assert_memory_equal(fo, mac_h7, 6);
	assert_memory_equal(fo + 6, mac_port[0], 6);
	assert_int_equal(fo[ETH_HLEN + 8], 8);
	assert_int_equal(sum16(0, fo + ETH_HLEN, IP4_HLEN), 0xffff);
	assert_memory_equal(fo + ETH_HLEN + IP4_HLEN, f + ETH_HLEN + IP4_HLEN,
			    len - ETH_HLEN - IP4_HLEN);
	rte_pktmbuf_free(mb);
	assert_int_equal(delta(&before, 1).rx_packets, 1);
	assert_int_equal(delta(&before, 0).tx_packets, 1);
	assert_no_drops(&before);

	/* an unknown host on a connected subnet: dropped, and asked for */
	snap_take(&before);
	r.dip = ip_unknown;
	len = build_roce4(f, &r);
	inject(1, f, len);
	run();
	aif_time_ns t_first = now_ns();
	mb = sent_one(0);
	check_arp_request(mb, ip_unknown);
	rte_pktmbuf_free(mb);
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 1);
	d = delta(&before, 0);
	assert_int_equal(d.arp_tx, 1);
	assert_int_equal(d.tx_packets, 1);
	assert_int_equal(d.tx_bytes, 60);

	/* again within 100 ms: dropped, not asked again */
	aif_clock_set(&H.ctl.clock, t_first + AIF_ARP_RL_NS - 10 * AIF_NS_PER_US);
	inject(1, f, len);
	run();
	assert_true(now_ns() - t_first < AIF_ARP_RL_NS);
	assert_no_tx();
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 2);
	assert_int_equal(delta(&before, 0).arp_tx, 1);

	/* 100 ms after the first request: asked again */
	aif_clock_set(&H.ctl.clock, t_first + AIF_ARP_RL_NS);
	inject(1, f, len);
	run();
	mb = sent_one(0);
	check_arp_request(mb, ip_unknown);
	rte_pktmbuf_free(mb);
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 3);
	assert_int_equal(delta(&before, 0).arp_tx, 2);
	assert_int_equal(delta(&before, 1).rx_packets, 3);

	/* the reply teaches the switch the MAC, and the next packet goes through */
	len = build_arp(f, mac_port[0], mac_h7, 2, mac_h7, ip_unknown, mac_port[0], ip_p0);
	inject(0, f, len);
	run();
	assert_no_tx();
	assert_true(aif_switch_learn(H.sw, now_ns()) >= 1);
	len = build_roce4(f, &r);
	inject(1, f, len);
	run();
	mb = sent_one(0);
	assert_memory_equal(rte_pktmbuf_mtod(mb, const uint8_t *), mac_h7, 6);
	rte_pktmbuf_free(mb);
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 3);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 2. IPv6 neighbour discovery                                       */

static void
test_nd(void **state)
{
	uint8_t f[FRAME_MAX];
	struct rs_snap before;
	struct rte_mbuf *mb;
	uint16_t len;

	(void)state;
	snap_take(&before);
	len = build_ns(f, mac_h7, ip6_h7, ip6_p0, 255);
	inject(0, f, len);
	run();
	mb = sent_one(0);

	const uint8_t *fo = rte_pktmbuf_mtod(mb, const uint8_t *);
	const uint8_t *ip = fo + ETH_HLEN, *na = ip + IP6_HLEN;
	uint16_t na_len = 24 + 8;
	assert_int_equal(rte_pktmbuf_pkt_len(mb), ETH_HLEN + IP6_HLEN + na_len);
	assert_memory_equal(fo, mac_h7, 6);
	assert_memory_equal(fo + 6, mac_port[0], 6);
	assert_int_equal(get16(fo + 12), AIF_ETHERTYPE_IPV6);
	assert_int_equal(get32(ip) >> 28, 6);
	assert_int_equal(get16(ip + 4), na_len);
	assert_int_equal(ip[6], 58);
	assert_int_equal(ip[7], 255);
	assert_memory_equal(ip + 8, ip6_p0, 16);
	assert_memory_equal(ip + 24, ip6_h7, 16);
	assert_int_equal(na[0], 136);
	assert_int_equal(na[1], 0);
	assert_int_equal(get32(na + 4), 0xE0000000u); /* router, solicited, override */
	assert_memory_equal(na + 8, ip6_p0, 16);
	assert_int_equal(na[24], 2);                 /* target link-layer address */
	assert_int_equal(na[25], 1);
	assert_memory_equal(na + 26, mac_port[0], 6);
	assert_int_equal(sum_ipv6_l4(ip, na, na_len, 58), 0xffff);
	rte_pktmbuf_free(mb);
	struct aif_port_ctr d = delta(&before, 0);
	assert_int_equal(d.nd_rx, 1);
	assert_int_equal(d.nd_tx, 1);
	assert_int_equal(d.tx_packets, 1);
	assert_no_drops(&before);

	/* the solicitation taught control the sender's MAC */
	assert_true(aif_switch_learn(H.sw, now_ns()) >= 1);
	snap_take(&before);
	struct roce r = { .dmac = mac_port[2], .smac = mac_nbr[2], .sip6 = ip6_remote_src,
			  .dip6 = ip6_h7, .sport = 0xE000, .ttl = 2, .qp = 5 };
	len = build_roce6(f, &r);
	inject(2, f, len);
	run();
	mb = sent_one(0);
	fo = rte_pktmbuf_mtod(mb, const uint8_t *);
	assert_memory_equal(fo, mac_h7, 6);
	assert_memory_equal(fo + 6, mac_port[0], 6);
	assert_int_equal(fo[ETH_HLEN + 7], 1);
	rte_pktmbuf_free(mb);
	assert_no_drops(&before);

	/* a solicitation with hop limit below 255 is not from a neighbour */
	snap_take(&before);
	len = build_ns(f, mac_h7, ip6_h7, ip6_p0, 64);
	inject(0, f, len);
	run();
	assert_no_tx();
	assert_drops(&before, 0, AIF_DROP_MALFORMED, 1);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Neighbour learning: rate, limits, aging, configured entries first  */

/* text with what replaced the first `what` (text freed; result malloc'd). */
static char *
splice(char *text, const char *what, const char *with)
{
	char *at = strstr(text, what);
	assert_non_null(at);
	size_t n = strlen(text) + strlen(with) + 1;
	char *out = malloc(n);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - text), text, with, at + strlen(what));
	free(text);
	return out;
}

/*
 * The test config plus "neighbor_learning" (learning, JSON members or ""),
 * an extra static neighbour 10.0.0.60 when with_static, and when with_far a
 * group "far" of one member 10.0.0.50@p0 (no static MAC) for 10.5.0.0/16.
 */
static void
load_neigh_config(const char *learning, bool with_static, bool with_far)
{
	char lr[256];
	char *text = config_text(BASE_SEED, members_fwd, "net_ring_pl3",
				 with_far ? ", {\"prefix\": \"10.5.0.0/16\", \"group\": \"far\"}" : "");
	snprintf(lr, sizeof(lr), "\"neighbor_learning\": {%s}, \"ports\": [", learning);
	text = splice(text, "\"ports\": [", lr);
	if (with_static)
		text = splice(text, "\"neighbors\": [", "\"neighbors\": [{\"ip\": \"10.0.0.60\", "
			      "\"mac\": \"02:00:00:00:00:60\", \"port\": \"p0\"}, ");
	if (with_far)
		text = splice(text, "\"nexthop_groups\": [", "\"nexthop_groups\": [{\"name\": "
			      "\"far\", \"members\": [{\"ip\": \"10.0.0.50\", \"port\": \"p0\"}]}, ");
	load_text(text);
}

/* The learning counters of show_neighbors, and an entry's state ("" if none). */
static long long
neigh_stat(const char *key)
{
	json_t *r = ctl_request("{\"cmd\": \"show_neighbors\"}");
	json_t *v = json_object_get(json_object_get(json_object_get(r, "result"), "learning"), key);
	assert_true(json_is_integer(v));
	long long n = json_integer_value(v);
	json_decref(r);
	return n;
}

static void
neigh_entry(const char *ip, char *type, char *state, size_t len)
{
	json_t *r = ctl_request("{\"cmd\": \"show_neighbors\"}");
	json_t *arr = json_object_get(json_object_get(r, "result"), "entries"), *e;
	size_t i;

	snprintf(type, len, "%s", "");
	snprintf(state, len, "%s", "");
	json_array_foreach(arr, i, e)
		if (strcmp(json_string_value(json_object_get(e, "ip")), ip) == 0) {
			snprintf(type, len, "%s", json_string_value(json_object_get(e, "type")));
			snprintf(state, len, "%s", json_string_value(json_object_get(e, "state")));
		}
	json_decref(r);
}

/* n NS for the switch's 2001:db8::1 from n hosts 2001:db8::1:<base + i> on
 * p0, 100 at a time, the answers drained and, when learn, control learning
 * after each 100 (otherwise the learn events wait in the ring). */
static void
flood_ns_learn(unsigned n, unsigned base, bool learn)
{
	uint8_t f[FRAME_MAX];
	struct rte_mbuf *m[128];
	unsigned got;

	for (unsigned i = 0; i < n; i++) {
		unsigned h = base + i;
		uint8_t sip[16] = { 0x20, 0x01, 0x0d, 0xb8, [11] = 1, [12] = (uint8_t)(h >> 24),
				    [13] = (uint8_t)(h >> 16), [14] = (uint8_t)(h >> 8),
				    [15] = (uint8_t)h };
		uint8_t smac[6] = { 0x02, 0x77, (uint8_t)(h >> 24), (uint8_t)(h >> 16),
				    (uint8_t)(h >> 8), (uint8_t)h };
		inject(0, f, build_ns(f, smac, sip, ip6_p0, 255));
		if (i % 100 == 99 || i + 1 == n) {
			run();
			while ((got = sent(0, m, 128)) > 0)
				rs_free_all(m, got);
			if (learn)
				aif_switch_learn(H.sw, now_ns());
		}
	}
}

static void
flood_ns(unsigned n, unsigned base)
{
	flood_ns_learn(n, base, true);
}

static unsigned
learned_entries(void)
{
	unsigned n = 0;
	for (uint32_t s = 0; s < H.sw->neigh->cap; s++)
		n += H.sw->neigh->meta[s].type == AIF_NEIGH_LEARNED;
	return n;
}

/*
 * 5,000 NS from 5,000 sources: with the default learn rate (1,000/s per
 * port, bursts of 100) about a burst is learned and the rest counted as
 * rate-limited; with no rate limit, max_learned entries are learned and
 * the rest refused.  Either way a load adding a static neighbour and a
 * group member with no MAC installs both, new hosts are learned once the
 * flood ages out, and nothing the config named is ever removed.
 */
static void
test_neighbor_flood(void **state)
{
	char type[32], st[32];
	struct rs_snap before;

	(void)state;
	load_neigh_config("", false, false);
	aif_clock_advance(&H.ctl.clock, 10 * AIF_NS_PER_S); /* a full learn bucket */
	snap_take(&before);
	long long learned0 = neigh_stat("learned");
	flood_ns(5000, 0);
	long long limited = (long long)delta(&before, 0).learn_ratelimited;
	long long learned = neigh_stat("learned") - learned0;
	print_message("# 5000 NS at default rate: %lld learned, %lld rate-limited\n",
		      learned, limited);
	assert_true(learned >= 100 && learned < 200);
	assert_int_equal(learned + limited, 5000);
	assert_int_equal(neigh_stat("learn_ratelimited"), limited);

	/* no rate limit, at most 4096 learned: the table holds 4096 of them */
	load_neigh_config("\"rate_pps\": 0, \"max_learned\": 4096", false, false);
	flood_ns(5000, 10000);
	assert_int_equal(neigh_stat("learned_now"), 4096);
	assert_true(neigh_stat("learn_refused") >= 5000 - 4096 - (learned + 0));

	/* configured entries still get theirs, and the static one its MAC */
	load_neigh_config("\"rate_pps\": 0, \"max_learned\": 4096", true, true);
	neigh_entry("10.0.0.60", type, st, sizeof(type));
	assert_string_equal(type, "static");
	neigh_entry("10.0.0.50", type, st, sizeof(type));
	assert_string_equal(type, "unresolved");
	uint32_t s60 = aif_neigh_find(H.sw->neigh, &(struct aif_ip){
		.family = AIF_AF_INET4, .b = { 10, 0, 0, 60 } });
	assert_int_not_equal(s60, AIF_NEIGH_NONE);
	assert_true(aif_neigh_read(H.sw->neigh, s60) & AIF_NEIGH_VALID);

	/* the flood ages out: stale after reachable_s, gone stale_s later */
	aif_clock_advance(&H.ctl.clock, 301 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	assert_int_equal(neigh_stat("learned_now"), 4096);
	assert_true(neigh_stat("went_stale") >= 4096);
	aif_clock_advance(&H.ctl.clock, 61 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	assert_int_equal(neigh_stat("learned_now"), 0);
	assert_int_equal(learned_entries(), 0);
	assert_true(neigh_stat("aged_out") >= 4096);
	neigh_entry("10.0.0.60", type, st, sizeof(type));
	assert_string_equal(type, "static");
	neigh_entry("10.0.0.50", type, st, sizeof(type));
	assert_string_equal(type, "unresolved");

	/* and a new host is learned */
	flood_ns(1, 90000);
	assert_int_equal(neigh_stat("learned_now"), 1);

	load_config(BASE_SEED, members_fwd);
	aif_clock_advance(&H.ctl.clock, 400 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	assert_clean();
}

/*
 * 5,000 NS while control is not taking learn events: the ring holds what
 * it can, and every event it could not take is counted (learn_ring_full,
 * per port and in show_neighbors), none lost silently.
 */
static void
test_neighbor_learn_ring_full(void **state)
{
	struct rs_snap before;

	(void)state;
	load_neigh_config("\"rate_pps\": 0, \"max_learned\": 4096", false, false);
	aif_clock_advance(&H.ctl.clock, 400 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	aif_switch_learn(H.sw, now_ns());
	snap_take(&before);
	long long full0 = neigh_stat("learn_ring_full");
	long long learned0 = neigh_stat("learned");

	flood_ns_learn(5000, 30000, false);
	unsigned taken = aif_switch_learn(H.sw, now_ns());
	long long full = (long long)delta(&before, 0).learn_ring_full;
	print_message("# 5000 NS, control away: %u taken from the ring, %lld lost\n",
		      taken, full);
	assert_true(taken > 0 && full > 0);
	assert_int_equal(taken + full, 5000);
	assert_int_equal(neigh_stat("learn_ring_full") - full0, full);
	assert_int_equal(neigh_stat("learned") - learned0, taken);

	load_config(BASE_SEED, members_fwd);
	aif_clock_advance(&H.ctl.clock, 400 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	assert_clean();
}

/* A host (mac, ip) on p0 asks for the switch: its request answered, and
 * control learns it. */
static void
learn_by_request(const uint8_t *mac, uint32_t ip)
{
	uint8_t f[FRAME_MAX];
	struct rte_mbuf *m[8];

	inject(0, f, build_arp(f, mac_bcast, mac, 1, mac, ip, NULL, ip_p0));
	run();
	rs_free_all(m, sent(0, m, 8));
	aif_switch_learn(H.sw, now_ns());
}

/*
 * A learned neighbour that goes stale is still used, and traffic to it
 * makes the switch ask for it again: the answer makes it reachable; with
 * no answer it is removed.  A group member with no MAC is asked for by its
 * own address, not the packet's destination.
 */
static void
test_neighbor_stale_probe(void **state)
{
	uint8_t f[FRAME_MAX];
	struct rte_mbuf *m[8];
	char type[32], st[32];
	uint16_t len;

	(void)state;
	load_neigh_config("", false, true);
	/* h7 asks for the switch: learned */
	learn_by_request(mac_h7, ip_h7);
	neigh_entry("10.0.0.7", type, st, sizeof(type));
	assert_string_equal(st, "reachable");

	aif_clock_advance(&H.ctl.clock, 301 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	neigh_entry("10.0.0.7", type, st, sizeof(type));
	assert_string_equal(st, "stale");

	/* traffic to h7: forwarded with the known MAC, and h7 asked for */
	struct roce r = { .dmac = mac_port[1], .smac = mac_nbr[1], .sip = IP4(10, 1, 0, 9),
			  .dip = ip_h7, .sport = 0xD000, .ttl = 9, .qp = 3 };
	len = build_roce4(f, &r);
	inject(1, f, len);
	run();
	assert_int_equal(sent(0, m, 8), 2);
	struct rte_mbuf *fwd = rte_pktmbuf_pkt_len(m[0]) == len ? m[0] : m[1];
	struct rte_mbuf *req = fwd == m[0] ? m[1] : m[0];
	assert_memory_equal(rte_pktmbuf_mtod(fwd, const uint8_t *), mac_h7, 6);
	check_arp_request(req, ip_h7);
	rs_free_all(m, 2);

	/* h7 answers: reachable again */
	inject(0, f, build_arp(f, mac_port[0], mac_h7, 2, mac_h7, ip_h7, mac_port[0], ip_p0));
	run();
	aif_switch_learn(H.sw, now_ns());
	neigh_entry("10.0.0.7", type, st, sizeof(type));
	assert_string_equal(st, "reachable");

	/* no answer this time: stale, then gone */
	aif_clock_advance(&H.ctl.clock, 301 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	aif_clock_advance(&H.ctl.clock, 61 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	neigh_entry("10.0.0.7", type, st, sizeof(type));
	assert_string_equal(type, "");

	/* an unresolved group member is asked for by its address */
	r.dip = IP4(10, 5, 0, 1);
	len = build_roce4(f, &r);
	inject(1, f, len);
	run();
	assert_int_equal(sent(0, m, 8), 1);
	check_arp_request(m[0], IP4(10, 0, 0, 50));
	rs_free_all(m, 1);

	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * A neighbour removed and its slot taken by another address: traffic to the
 * first address is not sent to the second's MAC.  (The pipeline keeps the
 * slots it found for connected destinations; the table's generation, moved
 * by every add and delete, makes it look again.)
 */
static void
test_neighbor_slot_reused(void **state)
{
	static const uint8_t mac_h9[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	const uint32_t ip_h9 = IP4(10, 0, 0, 9);
	const struct aif_ip a7 = { .family = AIF_AF_INET4, .b = { 10, 0, 0, 7 } };
	const struct aif_ip a9 = { .family = AIF_AF_INET4, .b = { 10, 0, 0, 9 } };
	uint8_t f[FRAME_MAX];
	struct rte_mbuf *m[8];
	struct rs_snap before;
	uint16_t len;

	(void)state;
	load_neigh_config("", false, false);
	/* h7 learned; traffic to it goes to its MAC (and the slot is kept) */
	learn_by_request(mac_h7, ip_h7);
	uint32_t s7 = aif_neigh_find(H.sw->neigh, &a7);
	assert_int_not_equal(s7, AIF_NEIGH_NONE);
	struct roce r = { .dmac = mac_port[1], .smac = mac_nbr[1], .sip = IP4(10, 1, 0, 9),
			  .dip = ip_h7, .sport = 0xD000, .ttl = 9, .qp = 3 };
	len = build_roce4(f, &r);
	for (int i = 0; i < 2; i++) {
		inject(1, f, len);
		run();
		assert_int_equal(sent(0, m, 8), 1);
		assert_memory_equal(rte_pktmbuf_mtod(m[0], const uint8_t *), mac_h7, 6);
		rs_free_all(m, 1);
	}

	/* h7 ages out; h9 is learned into the slot h7 had */
	aif_clock_advance(&H.ctl.clock, 301 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	aif_clock_advance(&H.ctl.clock, 61 * AIF_NS_PER_S);
	aif_switch_age_neighbors(H.sw, now_ns());
	assert_int_equal(aif_neigh_find(H.sw->neigh, &a7), AIF_NEIGH_NONE);
	run(); /* the workers pass a quiescent state: the slot may be taken */
	learn_by_request(mac_h9, ip_h9);
	assert_int_equal(aif_neigh_find(H.sw->neigh, &a9), s7);

	/* traffic to h7: unresolved, dropped and asked for; not sent to h9 */
	snap_take(&before);
	inject(1, f, build_roce4(f, &r));
	run();
	assert_int_equal(sent(0, m, 8), 1);
	check_arp_request(m[0], ip_h7);
	rs_free_all(m, 1);
	assert_drops(&before, 1, AIF_DROP_NEIGH_UNRESOLVED, 1);

	/* and to h9, its MAC */
	r.dip = ip_h9;
	inject(1, f, build_roce4(f, &r));
	run();
	assert_int_equal(sent(0, m, 8), 1);
	assert_memory_equal(rte_pktmbuf_mtod(m[0], const uint8_t *), mac_h9, 6);
	rs_free_all(m, 1);
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_arp, test_setup),
		cmocka_unit_test_setup(test_nd, test_setup),
		cmocka_unit_test_setup(test_neighbor_flood, test_setup),
		cmocka_unit_test_setup(test_neighbor_learn_ring_full, test_setup),
		cmocka_unit_test_setup(test_neighbor_stale_probe, test_setup),
		cmocka_unit_test_setup(test_neighbor_slot_reused, test_setup),
	};
	return cmocka_run_group_tests_name("pipeline_neighbours", tests, group_setup,
					   group_teardown);
}
