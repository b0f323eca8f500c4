/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline fixture: the config, frames, runner and counter helpers that the
 * test_pipeline_* programs share (what they are: pipeline_fixture.h).
 */
#include <errno.h>
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
#include <rte_mempool.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "counters.h"
#include "ctl_server.h"
#include "drop.h"
#include "flow_hash.h"
#include "lb.h"
#include "parse.h"
#include "pkt.h"
#include "rewrite.h"
#include "switch.h"
#include "tables.h"
#include "runner.h"

#include "pipeline_fixture.h"

#define POOL_SIZE 8191
#define POOL_CACHE 64

/* ---------------------------------------------------------------- */
/* Addresses of the test config                                      */

const uint8_t mac_port[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 },
	{ 0x02, 0, 0, 0, 0, 0x12 }, { 0x02, 0, 0, 0, 0, 0x13 },
};
/* the static neighbour behind each uplink (v4 and v6 share the MAC) */
const uint8_t mac_nbr[N_PORTS][6] = {
	{ 0 }, { 0x02, 0, 0, 0, 0x01, 0x00 },
	{ 0x02, 0, 0, 0, 0x01, 0x02 }, { 0x02, 0, 0, 0, 0x01, 0x04 },
};
const uint8_t mac_h0[6] = { 0x02, 0, 0, 0, 0, 0x02 };
const uint8_t mac_h7[6] = { 0x02, 0, 0, 0, 0, 0x07 };
const uint8_t mac_foreign[6] = { 0x02, 0, 0, 0, 0x99, 0x99 };
const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
const uint8_t mac_pfc[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

const uint32_t ip_p0 = IP4(10, 0, 0, 1);
const uint32_t ip_h0 = IP4(10, 0, 0, 2);
const uint32_t ip_h7 = IP4(10, 0, 0, 7);
const uint32_t ip_unknown = IP4(10, 0, 0, 99);
const uint32_t ip_remote = IP4(10, 1, 2, 3);

const uint8_t ip6_p0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
const uint8_t ip6_h0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
const uint8_t ip6_h7[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
const uint8_t ip6_remote[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					[15] = 5 };
const uint8_t ip6_remote_src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					    [15] = 9 };

/*
 * The config: p0 host side, p1..p3 uplinks, ECMP groups over the uplinks.
 * %u: seed; %s: the uplinks members (order varies across reloads); %s:
 * the device name of p3; %s: extra routes (with a leading comma).
 */
static const char config_fmt[] =
	"{\"switches\": [{\"name\": \"leaf0\", \"seed\": %u,"
	" \"ports\": ["
	"  {\"name\": \"p0\", \"device\": \"net_ring_pl0\", \"mac\": \"02:00:00:00:00:10\","
	"   \"addresses\": [\"10.0.0.1/24\", \"2001:db8::1/64\"]},"
	"  {\"name\": \"p1\", \"device\": \"net_ring_pl1\", \"mac\": \"02:00:00:00:00:11\", \"mtu\": 9000,"
	"   \"addresses\": [\"10.0.1.1/31\", \"2001:db8:ff::1/127\"]},"
	"  {\"name\": \"p2\", \"device\": \"net_ring_pl2\", \"mac\": \"02:00:00:00:00:12\", \"mtu\": 9000,"
	"   \"addresses\": [\"10.0.1.3/31\", \"2001:db8:ff::3/127\"]},"
	"  {\"name\": \"p3\", \"device\": \"%s\", \"mac\": \"02:00:00:00:00:13\", \"mtu\": 9000,"
	"   \"addresses\": [\"10.0.1.5/31\", \"2001:db8:ff::5/127\"]}],"
	" \"neighbors\": ["
	"  {\"ip\": \"10.0.1.0\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p2\"},"
	"  {\"ip\": \"10.0.1.4\", \"mac\": \"02:00:00:00:01:04\", \"port\": \"p3\"},"
	"  {\"ip\": \"2001:db8:ff::\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"2001:db8:ff::2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p2\"},"
	"  {\"ip\": \"2001:db8:ff::4\", \"mac\": \"02:00:00:00:01:04\", \"port\": \"p3\"}],"
	" \"nexthop_groups\": ["
	"  {\"name\": \"uplinks\", \"members\": [%s]},"
	"  {\"name\": \"uplinks6\", \"members\": ["
	"   {\"ip\": \"2001:db8:ff::\", \"port\": \"p1\"},"
	"   {\"ip\": \"2001:db8:ff::2\", \"port\": \"p2\"},"
	"   {\"ip\": \"2001:db8:ff::4\", \"port\": \"p3\"}]}],"
	" \"routes\": ["
	"  {\"prefix\": \"10.1.0.0/16\", \"group\": \"uplinks\"},"
	"  {\"prefix\": \"2001:db8:1::/48\", \"group\": \"uplinks6\"},"
	"  {\"prefix\": \"10.9.0.0/16\", \"action\": \"drop\"}%s]}],"
	" \"hosts\": [{\"name\": \"h0\", \"switch\": \"leaf0\", \"port\": \"p0\","
	"  \"ip\": \"10.0.0.2\", \"mac\": \"02:00:00:00:00:02\"}]}";

const char members_fwd[] =
	"{\"ip\": \"10.0.1.0\", \"port\": \"p1\"},"
	"{\"ip\": \"10.0.1.2\", \"port\": \"p2\"},"
	"{\"ip\": \"10.0.1.4\", \"port\": \"p3\"}";
const char members_rev[] =
	"{\"ip\": \"10.0.1.4\", \"port\": \"p3\"},"
	"{\"ip\": \"10.0.1.2\", \"port\": \"p2\"},"
	"{\"ip\": \"10.0.1.0\", \"port\": \"p1\"}";

/* ---------------------------------------------------------------- */
/* Harness state                                                     */

struct rs_harness H;

static uint64_t rng_state = 0x243f6a8885a308d3ull;

/* xorshift64*: fixed seed, so a failure reproduces. */
uint32_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* ---------------------------------------------------------------- */
/* Frames                                                            */

uint8_t *
eth(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t type)
{
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	put16(f + 12, type);
	return f + ETH_HLEN;
}

/* UDP + BTH + payload bytes + ICRC; returns the UDP length. */
static uint16_t
udp_roce_n(uint8_t *udp, const struct roce *r, uint16_t payload)
{
	uint16_t udp_len = UDP_HLEN + AIF_BTH_LEN + payload + AIF_ICRC_LEN;
	uint8_t *bth = udp + UDP_HLEN;

	put16(udp, r->sport);
	put16(udp + 2, AIF_UDP_PORT_ROCEV2);
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);        /* RoCEv2: no UDP checksum */
	bth[0] = 0x04;            /* RC SEND Only */
	bth[1] = 0x40;            /* MigReq */
	put16(bth + 2, 0xffff);   /* P_Key */
	put32(bth + 4, r->qp & 0xffffff);
	put32(bth + 8, 0x80000000u | (r->sport * 7u & 0xffffff)); /* AckReq, PSN */
	for (unsigned i = 0; i < payload; i++)
		bth[AIF_BTH_LEN + i] = (uint8_t)(i * 13 + r->sport);
	/* an opaque ICRC: it must come out as it went in */
	put32(bth + AIF_BTH_LEN + payload, 0xdeadbeef ^ r->sport);
	return udp_len;
}

static uint16_t
udp_roce(uint8_t *udp, const struct roce *r)
{
	return udp_roce_n(udp, r, ROCE_PAYLOAD);
}

/* Ethernet / IPv4 (DSCP dscp, ECT(0), DF) / UDP 4791 / BTH with payload
 * bytes; returns the length. */
uint16_t
build_roce4_n(uint8_t *f, const struct roce *r, uint8_t dscp, uint16_t payload)
{
	uint8_t *ip = eth(f, r->dmac, r->smac, AIF_ETHERTYPE_IPV4);
	uint16_t udp_len = udp_roce_n(ip + IP4_HLEN, r, payload);
	uint16_t csum;

	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | 2);
	put16(ip + 2, IP4_HLEN + udp_len);
	put16(ip + 4, r->sport ^ 0x5a5a);
	put16(ip + 6, 0x4000);
	ip[8] = r->ttl;
	ip[9] = 17;
	put16(ip + 10, 0);
	put32(ip + 12, r->sip);
	put32(ip + 16, r->dip);
	csum = aif_ipv4_csum(ip, IP4_HLEN);
	memcpy(ip + 10, &csum, 2);
	return ETH_HLEN + IP4_HLEN + udp_len;
}

/* Ethernet / IPv4 (DSCP 26, ECT(0), DF) / UDP 4791 / BTH; returns the length. */
uint16_t
build_roce4(uint8_t *f, const struct roce *r)
{
	return build_roce4_n(f, r, 26, ROCE_PAYLOAD);
}

/* Ethernet / IPv6 / UDP 4791 / BTH; returns the length. */
uint16_t
build_roce6(uint8_t *f, const struct roce *r)
{
	uint8_t *ip = eth(f, r->dmac, r->smac, AIF_ETHERTYPE_IPV6);
	uint16_t udp_len = udp_roce(ip + IP6_HLEN, r);

	put32(ip, (6u << 28) | (((26u << 2) | 2) << 20) | (r->flow_label & 0xfffff));
	put16(ip + 4, udp_len);
	ip[6] = 17;
	ip[7] = r->ttl;
	memcpy(ip + 8, r->sip6, 16);
	memcpy(ip + 24, r->dip6, 16);
	return ETH_HLEN + IP6_HLEN + udp_len;
}

/* ARP over Ethernet; tha NULL means zero; returns 42. */
uint16_t
build_arp(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t op,
	  const uint8_t *sha, uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
	static const uint8_t zero[6];
	uint8_t *a = eth(f, dmac, smac, AIF_ETHERTYPE_ARP);

	put16(a, 1);
	put16(a + 2, AIF_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, sha, 6);
	put32(a + 14, spa);
	memcpy(a + 18, tha ? tha : zero, 6);
	put32(a + 24, tpa);
	return ETH_HLEN + 28;
}

/* ICMP echo request, id 0x1234 seq 7; returns the length. */
uint16_t
build_echo4(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t sip,
	    uint32_t dip)
{
	uint8_t *ip = eth(f, dmac, smac, AIF_ETHERTYPE_IPV4);
	uint8_t *icmp = ip + IP4_HLEN;
	uint16_t icmp_len = 8 + ECHO_DATA, csum;

	memset(ip, 0, IP4_HLEN);
	ip[0] = 0x45;
	put16(ip + 2, IP4_HLEN + icmp_len);
	put16(ip + 4, 0x0101);
	ip[8] = 64;
	ip[9] = 1;
	put32(ip + 12, sip);
	put32(ip + 16, dip);
	csum = aif_ipv4_csum(ip, IP4_HLEN);
	memcpy(ip + 10, &csum, 2);
	icmp[0] = 8;
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, 0x1234);
	put16(icmp + 6, 7);
	for (unsigned i = 0; i < ECHO_DATA; i++)
		icmp[8 + i] = (uint8_t)(0xa0 + i);
	put16(icmp + 2, (uint16_t)~sum16(0, icmp, icmp_len));
	return ETH_HLEN + IP4_HLEN + icmp_len;
}

/* ICMPv6 echo request, id 0x4321 seq 9; returns the length. */
uint16_t
build_echo6(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
	    const uint8_t *sip, const uint8_t *dip)
{
	uint8_t *ip = eth(f, dmac, smac, AIF_ETHERTYPE_IPV6);
	uint8_t *icmp = ip + IP6_HLEN;
	uint16_t icmp_len = 8 + ECHO_DATA;

	put32(ip, 6u << 28);
	put16(ip + 4, icmp_len);
	ip[6] = 58;
	ip[7] = 64;
	memcpy(ip + 8, sip, 16);
	memcpy(ip + 24, dip, 16);
	icmp[0] = 128;
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, 0x4321);
	put16(icmp + 6, 9);
	for (unsigned i = 0; i < ECHO_DATA; i++)
		icmp[8 + i] = (uint8_t)(0x50 + i);
	put16(icmp + 2, csum_ipv6_l4(ip, icmp, icmp_len, 58));
	return ETH_HLEN + IP6_HLEN + icmp_len;
}

/* Neighbour solicitation for target from sip/smac, with a source LL option. */
uint16_t
build_ns(uint8_t *f, const uint8_t *smac, const uint8_t *sip, const uint8_t *target,
	 uint8_t hlim)
{
	uint8_t dip[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	uint8_t dmac[6] = { 0x33, 0x33, 0xff, target[13], target[14], target[15] };
	memcpy(dip + 13, target + 13, 3);
	uint8_t *ip = eth(f, dmac, smac, AIF_ETHERTYPE_IPV6);
	uint8_t *ns = ip + IP6_HLEN;
	uint16_t ns_len = 24 + 8;

	put32(ip, 6u << 28);
	put16(ip + 4, ns_len);
	ip[6] = 58;
	ip[7] = hlim;
	memcpy(ip + 8, sip, 16);
	memcpy(ip + 24, dip, 16);
	memset(ns, 0, ns_len);
	ns[0] = 135;
	memcpy(ns + 8, target, 16);
	ns[24] = 1; /* source link-layer address */
	ns[25] = 1;
	memcpy(ns + 26, smac, 6);
	put16(ns + 2, csum_ipv6_l4(ip, ns, ns_len, 58));
	return ETH_HLEN + IP6_HLEN + ns_len;
}

/* Insert an 802.1Q tag into frame f of len bytes; returns the new length. */
uint16_t
add_tag(uint8_t *f, uint16_t len, uint16_t tci)
{
	memmove(f + 16, f + 12, len - 12u);
	put16(f + 12, AIF_ETHERTYPE_VLAN);
	put16(f + 14, tci);
	return (uint16_t)(len + 4);
}

/*
 * A routed IPv4 frame that left port out with tag tci (< 0: untagged),
 * against the untagged frame in of len bytes it came from (tagged or not):
 * MACs, tag, TTL - 1, a valid checksum, every other byte as it was.
 */
void
check_routed4_tag(const struct rte_mbuf *mb, uint16_t out, const uint8_t *in,
		  uint16_t len, int tci)
{
	const uint8_t *f = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint16_t l2 = tci >= 0 ? ETH_HLEN + 4 : ETH_HLEN;
	const uint8_t *ip = f + l2, *ip_in = in + ETH_HLEN;

	assert_int_equal(rte_pktmbuf_pkt_len(mb), len - ETH_HLEN + l2);
	assert_int_equal(mb->nb_segs, 1);
	assert_memory_equal(f, mac_nbr[out], 6);
	assert_memory_equal(f + 6, mac_port[out], 6);
	if (tci >= 0) {
		assert_int_equal(get16(f + 12), AIF_ETHERTYPE_VLAN);
		assert_int_equal(get16(f + 14), tci);
	}
	assert_memory_equal(f + l2 - 2, in + 12, 2);
	assert_int_equal(ip[8], ip_in[8] - 1);
	assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
	assert_memory_equal(ip, ip_in, 8);
	assert_int_equal(ip[9], ip_in[9]);
	assert_memory_equal(ip + 12, ip_in + 12, len - ETH_HLEN - 12);
}


/* ---------------------------------------------------------------- */
/* Running the switch                                                */

aif_time_ns
now_ns(void)
{
	return rs_now(&H);
}

void
step(void)
{
	rs_step(&H, STEP_NS);
}

/* Step until every RX ring is empty (at least once). */
void
run(void)
{
	rs_run(&H, STEP_NS, MAX_STEPS);
}

void
inject(uint16_t port, const uint8_t *f, uint16_t len)
{
	rs_inject(&H, port, f, len);
}

/* Everything the switch sent on port (up to max); the ring is left empty. */
unsigned
sent(uint16_t port, struct rte_mbuf **out, unsigned max)
{
	return rs_sent(&H, port, out, max);
}

/* Exactly one frame sent on port, nothing on the others; caller frees it. */
struct rte_mbuf *
sent_one(uint16_t port)
{
	struct rte_mbuf *m = rs_sent_one(&H, port);
	assert_int_equal(m->nb_segs, 1);
	return m;
}

void
assert_no_tx(void)
{
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(rte_ring_count(H.tx[p]), 0);
}

/* Every ring empty, every mbuf back in the pool. */
void
assert_clean(void)
{
	assert_false(rs_rx_pending(&H));
	assert_no_tx();
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(H.w->sh->tx[p].n, 0);
	assert_int_equal(rte_mempool_in_use_count(H.pool), H.pool_base);
}

/* Before each test: empty every ring, note the mbufs in use (rs_reset). */
int
test_setup(void **state)
{
	(void)state;
	rs_reset(&H);
	return 0;
}

/* n frames of random flows from h0 to 10.1.0.0/16 arrive at p0. */
void
inject_flows(unsigned n)
{
	uint8_t f[FRAME_MAX];
	for (unsigned i = 0; i < n; i++) {
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				  .dip = IP4(10, 1, rnd() & 0xff, rnd() & 0xff),
				  .sport = (uint16_t)(0xC000 | (rnd() & 0x3fff)),
				  .ttl = 64, .qp = 9 };
		uint16_t len = build_roce4(f, &r);
		inject(0, f, len);
	}
}

/* Dequeue and free what the uplinks sent; returns how many. */
unsigned
drain_uplinks(void)
{
	struct rte_mbuf *out[RING_SIZE];
	unsigned total = 0;
	assert_int_equal(rte_ring_count(H.tx[0]), 0);
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned n = sent(p, out, RING_SIZE);
		for (unsigned k = 0; k < n; k++)
			assert_memory_equal(rte_pktmbuf_mtod(out[k], const uint8_t *),
					    mac_nbr[p], 6);
		rs_free_all(out, n);
		total += n;
	}
	return total;
}


/* ---------------------------------------------------------------- */
/* Counters                                                          */

void
snap_take(struct rs_snap *s)
{
	rs_snap_take(&H, s);
}

/* Counters of port since the snapshot. */
struct aif_port_ctr
delta(const struct rs_snap *before, uint16_t port)
{
	return rs_delta(&H, before, port);
}

/* Since the snapshot: exactly `count` drops of reason r on port, no other drop. */
void
assert_drops(const struct rs_snap *before, uint16_t port, enum aif_drop_reason r,
	     uint64_t count)
{
	for (uint16_t p = 0; p < N_PORTS; p++) {
		struct aif_port_ctr d = delta(before, p);
		for (unsigned k = 0; k < AIF_DROP_MAX; k++) {
			uint64_t want = (p == port && k == (unsigned)r) ? count : 0;
			if (d.drops[k] != want)
				fail_msg("port p%u drop %s: %llu, expected %llu", p,
					 aif_drop_name(k), (unsigned long long)d.drops[k],
					 (unsigned long long)want);
		}
	}
}

void
assert_no_drops(const struct rs_snap *before)
{
	assert_drops(before, 0, AIF_DROP_TRUNCATED, 0);
}

const struct aif_group *
group_named(const char *name)
{
	const struct aif_tables *t = H.sw->tables;
	for (uint32_t g = 0; g < t->n_groups; g++)
		if (strcmp(t->groups[g].name, name) == 0)
			return &t->groups[g];
	fail_msg("no group %s", name);
	return NULL;
}

/* Member counters of group name indexed by egress port. */
void
member_ctrs_by_port(const char *name, struct aif_member_sums out[N_PORTS])
{
	const struct aif_tables *t = H.sw->tables;
	const struct aif_group *g = group_named(name);

	memset(out, 0, sizeof(struct aif_member_sums) * N_PORTS);
	for (uint16_t k = 0; k < g->n; k++) {
		const struct aif_member *mem = &t->members[g->first + k];
		assert_true(mem->port < N_PORTS);
		aif_switch_member_counters(H.sw, mem->ctr_slot, &out[mem->port]);
	}
}

/* The port ECMP must choose for frame f (parsed and hashed as the pipeline does). */
uint16_t
expected_port(const uint8_t *f, uint16_t len, const char *group)
{
	const struct aif_tables *t = H.sw->tables;
	const struct aif_group *g = group_named(group);
	struct aif_pkt m;

	assert_int_equal(aif_parse(f, len, &m), 0);
	assert_true(m.flags & AIF_PKT_F_ROCE);
	uint32_t h = aif_flow_hash(&m, t->lb.hash_fields, t->lb.hash_alg, t->seed);
	return t->members[g->first + aif_lb_bucket_pick(g, t->buckets + g->bucket_first, h)].port;
}

/* ---------------------------------------------------------------- */
/* Control                                                           */

char *
config_text(uint32_t seed, const char *members, const char *p3_device,
	    const char *extra_routes)
{
	size_t n = sizeof(config_fmt) + 1024;
	char *s = malloc(n);
	assert_non_null(s);
	int len = snprintf(s, n, config_fmt, seed, p3_device, members, extra_routes);
	assert_true(len > 0 && (size_t)len < n);
	return s;
}

/* Load config text (freed here) through the control path; the test fails if
 * it is rejected. */
void
load_text(char *text)
{
	char err[AIF_ERR_MAX] = "";
	bool ok = rs_load(&H, text, err, sizeof(err));
	free(text);
	if (!ok)
		fail_msg("load rejected: %s", err);
}

void
load_config(uint32_t seed, const char *members)
{
	load_text(config_text(seed, members, "net_ring_pl3", ""));
}

/* One control request through the socket's line handler; the reply. */
json_t *
ctl_request(const char *line)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &H.ctl);
	assert_non_null(reply);
	json_t *j = json_loads(reply, 0, NULL);
	free(reply);
	assert_non_null(j);
	return j;
}


/* ---------------------------------------------------------------- */
/* Group setup: EAL, pool, ring ports, switch, config, worker        */

int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

int
group_setup(void **state)
{
	char *text = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	const struct rs_params params = {
		.prog = program_invocation_short_name, /* this test program */
		.file_prefix = "aif-pl", .tag = "pl",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = text,
	};
	int rc;

	(void)state;
	rc = rs_setup(&H, &params);
	free(text);
	return rc;
}
