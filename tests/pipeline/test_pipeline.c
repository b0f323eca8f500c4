/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests: one whole switch ("leaf0", four ports) run in virtual time.
 *
 * Harness (tests/pipeline/ring_switch.c, shared with test_qos.c).  EAL
 * starts once for the group (--no-huge, no PCI, a private file prefix).
 * Each switch port is a DPDK ring-backed ethdev (rte_eth_from_rings,
 * net_ring_pl0..3): the test enqueues mbufs into the port's RX ring (what
 * arrives at the switch) and dequeues from its TX ring (what the switch
 * sent).  The ports are configured as control/eal_ports.c does, the
 * config goes in through the same command line the control socket serves
 * ({"cmd":"load","config":{...}} through aif_ctl_handle_line and
 * aif_ctl_dispatch), and worker 0 polls queue 0 of every port.  Time is the
 * control's virtual clock: every aif_runner_step() advances it by 1 us.  No
 * test sleeps or reads the wall clock.
 *
 * Every test compares exact counter deltas (aif_switch_port_counters,
 * aif_switch_member_counters) and output bytes, and ends with every ring
 * empty and every mbuf back in the pool.
 *
 * Frames are built by hand below (Ethernet, IPv4/IPv6, UDP, the RoCEv2
 * BTH, ARP, ICMP, ICMPv6 ND); checksums of what the switch sends are checked
 * with the tests' own RFC 1071 sum (ring_switch.h), not with the code under
 * test.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
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
#include "neigh.h"
#include "parse.h"
#include "pkt.h"
#include "rewrite.h"
#include "switch.h"
#include "tables.h"
#include "runner.h"

#include "ring_switch.h"

#define N_PORTS 4
#define RING_SIZE 4096      /* per RX/TX ring of a test port */
#define POOL_SIZE 8191
#define POOL_CACHE 64
#define MAX_STEPS 1000      /* bound on steps to drain the RX rings */
#define STEP_NS AIF_NS_PER_US
#define FRAME_MAX 256
#define ROCE_PAYLOAD 64
#define N_FLOWS4 1024
#define N_FLOWS6 256
#define RELOAD_STEPS 200
#define RELOAD_EVERY 10
#define RELOAD_PKTS_PER_STEP 8

/* ---------------------------------------------------------------- */
/* Addresses of the test config                                      */

static const uint8_t mac_port[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 },
	{ 0x02, 0, 0, 0, 0, 0x12 }, { 0x02, 0, 0, 0, 0, 0x13 },
};
/* the static neighbour behind each uplink (v4 and v6 share the MAC) */
static const uint8_t mac_nbr[N_PORTS][6] = {
	{ 0 }, { 0x02, 0, 0, 0, 0x01, 0x00 },
	{ 0x02, 0, 0, 0, 0x01, 0x02 }, { 0x02, 0, 0, 0, 0x01, 0x04 },
};
static const uint8_t mac_h0[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_h7[6] = { 0x02, 0, 0, 0, 0, 0x07 };
static const uint8_t mac_foreign[6] = { 0x02, 0, 0, 0, 0x99, 0x99 };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_pfc[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
			 ((uint32_t)(c) << 8) | (uint32_t)(d))
static const uint32_t ip_p0 = IP4(10, 0, 0, 1);
static const uint32_t ip_h0 = IP4(10, 0, 0, 2);
static const uint32_t ip_h7 = IP4(10, 0, 0, 7);
static const uint32_t ip_unknown = IP4(10, 0, 0, 99);
static const uint32_t ip_remote = IP4(10, 1, 2, 3);

static const uint8_t ip6_p0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_h0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t ip6_h7[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
static const uint8_t ip6_remote[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					[15] = 5 };
static const uint8_t ip6_remote_src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
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

static const char members_fwd[] =
	"{\"ip\": \"10.0.1.0\", \"port\": \"p1\"},"
	"{\"ip\": \"10.0.1.2\", \"port\": \"p2\"},"
	"{\"ip\": \"10.0.1.4\", \"port\": \"p3\"}";
static const char members_rev[] =
	"{\"ip\": \"10.0.1.4\", \"port\": \"p3\"},"
	"{\"ip\": \"10.0.1.2\", \"port\": \"p2\"},"
	"{\"ip\": \"10.0.1.0\", \"port\": \"p1\"}";

#define BASE_SEED 0x1eaf0u

/* A valid config of three ports: the running switch has four. */
static const char config_3ports[] =
	"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["
	"  {\"name\": \"p0\", \"device\": \"net_ring_pl0\", \"addresses\": [\"10.0.0.1/24\"]},"
	"  {\"name\": \"p1\", \"device\": \"net_ring_pl1\", \"addresses\": [\"10.0.1.1/31\"]},"
	"  {\"name\": \"p2\", \"device\": \"net_ring_pl2\", \"addresses\": [\"10.0.1.3/31\"]}],"
	" \"routes\": [{\"prefix\": \"10.9.0.0/16\", \"action\": \"drop\"}]}]}";

/* ---------------------------------------------------------------- */
/* Harness state                                                     */

static struct rs_harness H;

static uint64_t rng_state = 0x243f6a8885a308d3ull;

/* xorshift64*: fixed seed, so a failure reproduces. */
static uint32_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* ---------------------------------------------------------------- */
/* Frames                                                            */

static uint8_t *
eth(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t type)
{
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	put16(f + 12, type);
	return f + ETH_HLEN;
}

struct roce {
	const uint8_t *dmac, *smac;
	uint32_t sip, dip;         /* v4, host order */
	const uint8_t *sip6, *dip6; /* v6 */
	uint16_t sport;
	uint8_t ttl;
	uint32_t qp;
	uint32_t flow_label;
};

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
static uint16_t
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
static uint16_t
build_roce4(uint8_t *f, const struct roce *r)
{
	return build_roce4_n(f, r, 26, ROCE_PAYLOAD);
}

/* Ethernet / IPv6 / UDP 4791 / BTH; returns the length. */
static uint16_t
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
static uint16_t
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

#define ECHO_DATA 32

/* ICMP echo request, id 0x1234 seq 7; returns the length. */
static uint16_t
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
static uint16_t
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
static uint16_t
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

/* ---------------------------------------------------------------- */
/* Running the switch                                                */

static aif_time_ns
now_ns(void)
{
	return rs_now(&H);
}

static void
step(void)
{
	rs_step(&H, STEP_NS);
}

/* Step until every RX ring is empty (at least once). */
static void
run(void)
{
	rs_run(&H, STEP_NS, MAX_STEPS);
}

static void
inject(uint16_t port, const uint8_t *f, uint16_t len)
{
	rs_inject(&H, port, f, len);
}

/* Everything the switch sent on port (up to max); the ring is left empty. */
static unsigned
sent(uint16_t port, struct rte_mbuf **out, unsigned max)
{
	return rs_sent(&H, port, out, max);
}

/* Exactly one frame sent on port, nothing on the others; caller frees it. */
static struct rte_mbuf *
sent_one(uint16_t port)
{
	struct rte_mbuf *m[4];
	for (uint16_t p = 0; p < N_PORTS; p++)
		if (p != port)
			assert_int_equal(rte_ring_count(H.tx[p]), 0);
	assert_int_equal(sent(port, m, 4), 1);
	assert_int_equal(m[0]->nb_segs, 1);
	return m[0];
}

static void
assert_no_tx(void)
{
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(rte_ring_count(H.tx[p]), 0);
}

/* Every ring empty, every mbuf back in the pool. */
static void
assert_clean(void)
{
	assert_false(rs_rx_pending(&H));
	assert_no_tx();
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(H.w->sh->tx[p].n, 0);
	assert_int_equal(rte_mempool_in_use_count(H.pool), H.pool_base);
}

/* Before each test: empty every ring, note the mbufs in use (rs_reset). */
static int
test_setup(void **state)
{
	(void)state;
	rs_reset(&H);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Counters                                                          */

static void
snap_take(struct rs_snap *s)
{
	rs_snap_take(&H, s);
}

/* Counters of port since the snapshot. */
static struct aif_port_ctr
delta(const struct rs_snap *before, uint16_t port)
{
	return rs_delta(&H, before, port);
}

/* Since the snapshot: exactly `count` drops of reason r on port, no other drop. */
static void
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

static void
assert_no_drops(const struct rs_snap *before)
{
	assert_drops(before, 0, AIF_DROP_TRUNCATED, 0);
}

static const struct aif_group *
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
static void
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
static uint16_t
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

static char *
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
static void
load_text(char *text)
{
	char err[AIF_ERR_MAX] = "";
	bool ok = rs_load(&H, text, err, sizeof(err));
	free(text);
	if (!ok)
		fail_msg("load rejected: %s", err);
}

static void
load_config(uint32_t seed, const char *members)
{
	load_text(config_text(seed, members, "net_ring_pl3", ""));
}

/* ---------------------------------------------------------------- */
/* Group setup: EAL, pool, ring ports, switch, config, worker        */

static int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

static int
group_setup(void **state)
{
	char *text = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	const struct rs_params params = {
		.prog = "test_pipeline", .file_prefix = "aif-pl", .tag = "pl",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = text,
	};
	int rc;

	(void)state;
	rc = rs_setup(&H, &params);
	free(text);
	return rc;
}

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
/* 4. ARP: answer, learn, resolve                                    */

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
/* 5. IPv6 neighbour discovery                                       */

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
/* 6. Ping the switch                                                 */

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
/* 7. Reload under traffic                                            */

static void
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
static unsigned
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

static void
test_reload_under_traffic(void **state)
{
	struct rs_snap before;
	uint64_t injected = 0, out = 0;
	uint64_t gen0 = H.sw->generation;
	uint32_t seed0 = H.sw->tables->seed;
	unsigned reloads = 0;

	(void)state;
	snap_take(&before);
	for (unsigned s = 0; s < RELOAD_STEPS; s++) {
		if (s % RELOAD_EVERY == RELOAD_EVERY - 1) {
			/* alternate: new seed and reversed members, then back */
			bool odd = (reloads++ & 1) == 0;
			load_config(odd ? BASE_SEED + 1 : BASE_SEED,
				    odd ? members_rev : members_fwd);
			assert_int_equal(H.sw->generation, gen0 + reloads);
			assert_int_equal(H.sw->tables->generation, H.sw->generation);
			assert_int_equal(H.sw->tables->seed, odd ? BASE_SEED + 1 : BASE_SEED);
		}
		/* packets already queued before the reload meet the new tables */
		inject_flows(RELOAD_PKTS_PER_STEP);
		injected += RELOAD_PKTS_PER_STEP;
		if (s % 3 == 0) /* and some wait in the ring across a reload */
			continue;
		step();
		out += drain_uplinks();
	}
	run();
	out += drain_uplinks();
	assert_int_equal(reloads, RELOAD_STEPS / RELOAD_EVERY);
	assert_int_equal(out, injected);
	assert_int_equal(delta(&before, 0).rx_packets, injected);
	uint64_t tx = 0;
	for (uint16_t p = 1; p < N_PORTS; p++)
		tx += delta(&before, p).tx_packets;
	assert_int_equal(tx, injected);
	assert_no_drops(&before);
	/* an even number of reloads: back on the base config */
	assert_int_equal(H.sw->tables->seed, seed0);
	assert_clean();
}

/*
 * The same for real: the worker steps on its own thread and a traffic thread
 * keeps injecting and collecting while control (this thread) publishes 20
 * configs, so traffic flows through every pointer swap and old tables are
 * freed while the worker runs (the RCU protocol of tables.h).  A table freed
 * too early is a use-after-free that ASan may catch, but only when the
 * timing hits it: this is a smoke test of the protocol, not a proof; the
 * exact no-loss accounting is test_reload_under_traffic's.  The worker keeps
 * its own virtual clock.  Each ring still has one producer and one consumer.
 */
#define CONC_TEMPLATES 64
#define CONC_RX_FILL 256 /* keep at most this many waiting in p0's RX ring */
#define CONC_RELOADS 20

struct conc {
	int stop_worker, stop_traffic;
	aif_time_ns now_ns;
	uint64_t steps;
	uint64_t injected, out, bad;
	uint8_t frame[CONC_TEMPLATES][FRAME_MAX];
	uint16_t len[CONC_TEMPLATES];
};

static void *
conc_worker(void *arg)
{
	struct conc *c = arg;
	while (!__atomic_load_n(&c->stop_worker, __ATOMIC_ACQUIRE)) {
		c->now_ns += STEP_NS;
		aif_runner_step(H.w, c->now_ns);
		c->steps++;
	}
	return NULL;
}

/* Collect what the switch sent: count it, check its MACs, free it. */
static void
conc_collect(struct conc *c)
{
	struct rte_mbuf *m[AIF_BURST];
	unsigned n;

	for (uint16_t p = 0; p < N_PORTS; p++)
		while ((n = rte_ring_dequeue_burst(H.tx[p], (void **)m, AIF_BURST,
						   NULL)) > 0) {
			for (unsigned k = 0; k < n; k++) {
				const uint8_t *f = rte_pktmbuf_mtod(m[k], const uint8_t *);
				if (p == 0 || memcmp(f, mac_nbr[p], 6) != 0 ||
				    memcmp(f + 6, mac_port[p], 6) != 0)
					c->bad++;
			}
			c->out += n;
			rs_free_all(m, n);
		}
}

static void *
conc_traffic(void *arg)
{
	struct conc *c = arg;
	unsigned t = 0;

	while (!__atomic_load_n(&c->stop_traffic, __ATOMIC_ACQUIRE)) {
		/* whole bursts, so the worker spends its time in the pipeline */
		struct rte_mbuf *m[AIF_BURST];
		if (rte_ring_count(H.rx[0]) < CONC_RX_FILL &&
		    rte_pktmbuf_alloc_bulk(H.pool, m, AIF_BURST) == 0) {
			for (unsigned k = 0; k < AIF_BURST; k++) {
				memcpy(rte_pktmbuf_append(m[k], c->len[t]), c->frame[t],
				       c->len[t]);
				t = (t + 1) % CONC_TEMPLATES;
			}
			unsigned n = rte_ring_enqueue_burst(H.rx[0], (void **)m,
							    AIF_BURST, NULL);
			c->injected += n;
			rs_free_all(m + n, AIF_BURST - n);
		}
		conc_collect(c);
	}
	return NULL;
}

static void
test_reload_concurrent(void **state)
{
	static struct conc c;
	struct rs_snap before;
	uint64_t gen0 = H.sw->generation;
	unsigned reloads = CONC_RELOADS;
	pthread_t worker, traffic;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.now_ns = now_ns();
	for (unsigned i = 0; i < CONC_TEMPLATES; i++) {
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				  .dip = IP4(10, 1, rnd() & 0xff, rnd() & 0xff),
				  .sport = (uint16_t)(0xC000 | (rnd() & 0x3fff)),
				  .ttl = 64, .qp = 11 };
		c.len[i] = build_roce4(c.frame[i], &r);
	}
	snap_take(&before);
	assert_int_equal(pthread_create(&worker, NULL, conc_worker, &c), 0);
	assert_int_equal(pthread_create(&traffic, NULL, conc_traffic, &c), 0);
	for (unsigned i = 0; i < reloads; i++)
		load_config((i & 1) == 0 ? BASE_SEED + 1 : BASE_SEED,
			    (i & 1) == 0 ? members_rev : members_fwd);
	__atomic_store_n(&c.stop_traffic, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(traffic, NULL), 0);
	__atomic_store_n(&c.stop_worker, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(worker, NULL), 0);

	/* single-threaded again: finish what is still queued */
	aif_clock_set(&H.ctl.clock, c.now_ns);
	run();
	conc_collect(&c);
	print_message("  %u reloads, %llu packets, %llu worker steps\n", reloads,
		      (unsigned long long)c.injected, (unsigned long long)c.steps);
	assert_int_equal(H.sw->generation, gen0 + reloads);
	assert_int_equal(H.sw->tables->seed, BASE_SEED);
	assert_true(c.injected > 0);
	assert_int_equal(c.bad, 0);
	assert_int_equal(c.out, c.injected);
	assert_int_equal(delta(&before, 0).rx_packets, c.injected);
	assert_no_drops(&before);
	assert_clean();
}

static void
test_reload_rejected(void **state)
{
	char err[AIF_ERR_MAX];
	struct rs_snap before;

	(void)state;
	const struct aif_tables *t0 = H.sw->tables;
	uint64_t gen0 = H.sw->generation, tgen0 = t0->generation;
	uint64_t ok0 = H.ctl.loads_ok, rej0 = H.ctl.loads_rejected;

	/* a route naming a group that does not exist */
	char *bad_group = config_text(BASE_SEED + 7, members_rev, "net_ring_pl3",
				      ", {\"prefix\": \"10.3.0.0/16\", \"group\": \"nosuch\"}");
	/* p3 bound to another device */
	char *bad_dev = config_text(BASE_SEED + 7, members_rev, "net_ring_other", "");
	const char *bad[] = { bad_group, bad_dev, config_3ports, "{\"switches\": 5}" };
	const char *why[] = { "nosuch", "p3", "ports", "switches" };

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		err[0] = '\0';
		assert_false(rs_load(&H, bad[i], err, sizeof(err)));
		print_message("  rejected: %s\n", err);
		if (strstr(err, why[i]) == NULL)
			fail_msg("error '%s' does not mention '%s'", err, why[i]);
		assert_ptr_equal(H.sw->tables, t0);
		assert_int_equal(H.sw->generation, gen0);
		assert_int_equal(H.sw->tables->generation, tgen0);
		assert_int_equal(H.ctl.loads_rejected, rej0 + i + 1);
		assert_int_equal(H.ctl.loads_ok, ok0);
	}
	free(bad_group);
	free(bad_dev);

	/* and the running tables still forward */
	snap_take(&before);
	inject_flows(64);
	run();
	assert_int_equal(drain_uplinks(), 64);
	assert_no_drops(&before);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 8. clear counters                                                  */

static void
test_clear_counters(void **state)
{
	uint8_t f[FRAME_MAX];
	struct aif_port_ctr c;
	struct aif_member_sums mc[N_PORTS];
	uint16_t len = 0;

	(void)state;
	/* make sure there is something to clear, a drop included */
	inject_flows(10);
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			  .dip = IP4(172, 16, 0, 1), .sport = 0xC000, .ttl = 64, .qp = 1 };
	len = build_roce4(f, &r);
	inject(0, f, len);
	run();
	drain_uplinks();
	aif_switch_port_counters(H.sw, 0, &c);
	assert_true(c.rx_packets > 0 && c.drops[AIF_DROP_NO_ROUTE] > 0);

	aif_switch_clear_counters(H.sw);
	for (uint16_t p = 0; p < N_PORTS; p++) {
		aif_switch_port_counters(H.sw, p, &c);
		const uint64_t *w = (const uint64_t *)&c;
		for (size_t i = 0; i < AIF_PORT_CTR_WORDS; i++)
			assert_int_equal(w[i], 0);
	}
	member_ctrs_by_port("uplinks", mc);
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(mc[p].packets + mc[p].bytes, 0);

	/* and they count again from zero */
	r.dip = ip_remote;
	len = build_roce4(f, &r);
	for (unsigned i = 0; i < 5; i++)
		inject(0, f, len);
	r.dip = IP4(172, 16, 0, 1);
	uint16_t len_nr = build_roce4(f, &r);
	inject(0, f, len_nr);
	run();
	assert_int_equal(drain_uplinks(), 5);
	aif_switch_port_counters(H.sw, 0, &c);
	assert_int_equal(c.rx_packets, 6);
	assert_int_equal(c.rx_bytes, 5ull * len + len_nr);
	assert_int_equal(c.tx_packets, 0);
	for (unsigned k = 0; k < AIF_DROP_MAX; k++)
		assert_int_equal(c.drops[k], k == AIF_DROP_NO_ROUTE ? 1 : 0);
	uint64_t tx = 0, txb = 0;
	for (uint16_t p = 1; p < N_PORTS; p++) {
		aif_switch_port_counters(H.sw, p, &c);
		tx += c.tx_packets;
		txb += c.tx_bytes;
	}
	assert_int_equal(tx, 5);
	assert_int_equal(txb, 5ull * len);
	member_ctrs_by_port("uplinks", mc);
	uint64_t mp = 0;
	for (uint16_t p = 0; p < N_PORTS; p++)
		mp += mc[p].packets;
	assert_int_equal(mp, 5);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Member state: a link goes down, then comes back                    */

#define MEMBER_FLOWS 600

static void
member_flow(uint8_t *f, uint16_t *len, unsigned i)
{
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			  .dip = IP4(10, 1, (uint8_t)(i >> 8), (uint8_t)i),
			  .sport = (uint16_t)(0xC000 | ((i * 2654435761u) & 0x3fff)),
			  .ttl = 64, .qp = 5 };
	*len = build_roce4(f, &r);
}

/* Send every flow once; per port, how many left there. */
static void
member_send_all(unsigned *per_port)
{
	uint8_t f[FRAME_MAX];
	uint16_t len;
	struct rte_mbuf *out[RING_SIZE];

	memset(per_port, 0, sizeof(unsigned) * N_PORTS);
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		inject(0, f, len);
		if (i % 64 == 63)
			run();
	}
	run();
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned n = sent(p, out, RING_SIZE);
		per_port[p] += n;
		rs_free_all(out, n);
	}
}

static void
test_member_down_up(void **state)
{
	uint16_t before[MEMBER_FLOWS], down[MEMBER_FLOWS], back[MEMBER_FLOWS];
	unsigned per_port[N_PORTS], expect[N_PORTS];
	uint8_t f[FRAME_MAX];
	uint16_t len;
	char err[AIF_ERR_MAX];
	struct rs_snap snap0;

	(void)state;
	load_config(BASE_SEED, members_fwd);
	snap_take(&snap0);
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		before[i] = expected_port(f, len, "uplinks");
	}

	/* p2 goes down: its members leave, nobody else's flows move */
	uint64_t rebuilds = H.ctl.link_rebuilds;
	aif_port_set_link_up(&H.sw->ports[2], false);
	assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
	assert_int_equal(H.ctl.link_rebuilds, rebuilds + 1);
	unsigned moved = 0, was_on_2 = 0;
	memset(expect, 0, sizeof(expect));
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		down[i] = expected_port(f, len, "uplinks");
		assert_int_not_equal(down[i], 2);
		if (before[i] != 2)
			assert_int_equal(down[i], before[i]); /* resilient */
		was_on_2 += before[i] == 2;
		moved += down[i] != before[i];
		expect[down[i]]++;
	}
	assert_int_equal(moved, was_on_2);
	print_message("# member p2 down: %u of %u flows moved (all of them were on p2)\n",
		      moved, MEMBER_FLOWS);
	member_send_all(per_port);
	for (uint16_t p = 1; p < N_PORTS; p++)
		assert_int_equal(per_port[p], expect[p]);

	/* p2 comes back: it rejoins; only flows that go to p2 move */
	aif_port_set_link_up(&H.sw->ports[2], true);
	assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
	unsigned to_2 = 0;
	memset(expect, 0, sizeof(expect));
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		back[i] = expected_port(f, len, "uplinks");
		if (back[i] != down[i])
			assert_int_equal(back[i], 2);
		to_2 += back[i] == 2;
		expect[back[i]]++;
	}
	/* it takes about its third back */
	assert_true(to_2 > MEMBER_FLOWS / 5 && to_2 < MEMBER_FLOWS / 2);
	print_message("# member p2 back: %u of %u flows go to it again\n", to_2, MEMBER_FLOWS);
	member_send_all(per_port);
	for (uint16_t p = 1; p < N_PORTS; p++)
		assert_int_equal(per_port[p], expect[p]);
	assert_no_drops(&snap0);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Switching the load-balancing scheme under traffic loses nothing    */

static void
load_scheme(const char *scheme)
{
	char *base = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	size_t n = strlen(base) + 256;
	char *text = malloc(n);
	assert_non_null(text);
	/* the same switch, with a default policy naming the scheme */
	snprintf(text, n, "{\"policies\": {\"default\": {\"load_balancing\": "
		 "{\"scheme\": \"%s\"}}}, %s", scheme, base + 1);
	free(base);
	load_text(text);
}

static void
test_scheme_switch_under_traffic(void **state)
{
	static const char *const schemes[] = { "spray", "flowlet", "adaptive", "wcmp", "ecmp" };
	static const uint8_t ids[] = { AIF_LB_SPRAY, AIF_LB_FLOWLET, AIF_LB_ADAPTIVE,
				       AIF_LB_WCMP, AIF_LB_ECMP };
	struct rs_snap before;
	uint64_t injected = 0, out = 0;

	(void)state;
	load_config(BASE_SEED, members_fwd);
	snap_take(&before);
	for (unsigned s = 0; s < 200; s++) {
		if (s % 20 == 19) {
			unsigned k = (s / 20) % RTE_DIM(schemes);
			load_scheme(schemes[k]);
			assert_int_equal(H.sw->tables->lb.scheme, ids[k]);
		}
		inject_flows(8);
		injected += 8;
		if (s % 3 == 0) /* some wait in the ring across a switch */
			continue;
		step();
		out += drain_uplinks();
	}
	run();
	out += drain_uplinks();
	assert_int_equal(out, injected);
	assert_no_drops(&before);
	print_message("# scheme switched 10 times under traffic: %llu of %llu packets out\n",
		      (unsigned long long)out, (unsigned long long)injected);
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * The schemes that choose per flowlet or per packet choose among the members
 * that are up: with p2 down no packet leaves by p2 nor is dropped as
 * port_down, and a flowlet open on p2 when it goes down moves at once.
 */
static void
test_schemes_skip_down_members(void **state)
{
	static const char *const schemes[] = { "flowlet", "spray", "adaptive" };
	unsigned per_port[N_PORTS];
	char err[AIF_ERR_MAX];
	struct rs_snap before;

	(void)state;
	for (unsigned s = 0; s < RTE_DIM(schemes); s++) {
		load_scheme(schemes[s]);
		aif_port_set_link_up(&H.sw->ports[2], true);
		assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
		/* the previous scheme's flowlets are over; new ones open on
		 * every member, p2 included */
		rs_step(&H, 3 * AIF_NS_PER_MS);
		member_send_all(per_port);
		print_message("# %s with p2 up: p1 %u, p2 %u, p3 %u\n", schemes[s],
			      per_port[1], per_port[2], per_port[3]);
		assert_true(per_port[2] > 0);
		aif_port_set_link_up(&H.sw->ports[2], false);
		assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
		snap_take(&before);
		/* the same flows again, well inside the flowlet gap */
		member_send_all(per_port);
		print_message("# %s with p2 down: p1 %u, p2 %u, p3 %u\n", schemes[s],
			      per_port[1], per_port[2], per_port[3]);
		assert_int_equal(per_port[2], 0);
		assert_int_equal(per_port[1] + per_port[3], MEMBER_FLOWS);
		assert_no_drops(&before);
	}
	aif_port_set_link_up(&H.sw->ports[2], true);
	assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
	assert_clean();
}

/*
 * A link that goes down is seen by the next burst, before control has
 * rebuilt the groups: what is routed to it is dropped as port_down, and
 * when it comes back it carries the flow again.
 */
static void
test_link_down_seen_at_once(void **state)
{
	uint8_t f[FRAME_MAX];
	struct rte_mbuf *out[4];
	struct rs_snap before;
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0, .dip = ip_remote,
			  .sport = 0xC123, .ttl = 64, .qp = 0x000123 };
	uint16_t len = build_roce4(f, &r), via = 0;

	(void)state;
	inject(0, f, len);
	run();
	for (uint16_t p = 1; p < N_PORTS && via == 0; p++) {
		unsigned n = sent(p, out, RTE_DIM(out));
		for (unsigned k = 0; k < n; k++)
			rte_pktmbuf_free(out[k]);
		if (n != 0)
			via = p;
	}
	assert_int_not_equal(via, 0);

	aif_port_set_link_up(&H.sw->ports[via], false);
	snap_take(&before);
	inject(0, f, len);
	run();
	assert_no_tx();
	assert_drops(&before, 0, AIF_DROP_PORT_DOWN, 1);

	aif_port_set_link_up(&H.sw->ports[via], true);
	inject(0, f, len);
	run();
	unsigned n = sent(via, out, RTE_DIM(out));
	for (unsigned k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);
	assert_int_equal(n, 1);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Path trace                                                         */

/* One control request through the socket's line handler; the reply. */
static json_t *
ctl_request(const char *line)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &H.ctl);
	assert_non_null(reply);
	json_t *j = json_loads(reply, 0, NULL);
	free(reply);
	assert_non_null(j);
	return j;
}

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
/* Flowlet: shared table entries, and gaps measured at receive       */

#define FL_GAP_US 1000

/* The test config with the flowlet scheme: a table of table_size entries,
 * "direct" or "exact", gap 1 ms. */
static void
load_flowlet_table(unsigned table_size, const char *table)
{
	char *base = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	size_t n = strlen(base) + 256;
	char *text = malloc(n);
	assert_non_null(text);
	snprintf(text, n, "{\"policies\": {\"default\": {\"load_balancing\": "
		 "{\"scheme\": \"flowlet\", \"flowlet\": {\"table_size\": %u, "
		 "\"gap_us\": %u, \"aging_us\": %u, \"table\": \"%s\"}}}}, %s",
		 table_size, FL_GAP_US, 10 * FL_GAP_US, table, base + 1);
	free(base);
	load_text(text);
}

/* The direct-mapped table, whose sharing these tests count. */
static void
load_flowlet(unsigned table_size)
{
	load_flowlet_table(table_size, "direct");
}

/* Flow i of these tests: member_flow(i), destination 10.1.(i >> 8).(i & 255). */
static uint32_t
fl_hash(unsigned i)
{
	const struct aif_tables *t = H.sw->tables;
	uint8_t f[FRAME_MAX];
	uint16_t len;
	struct aif_pkt m;

	member_flow(f, &len, i);
	assert_int_equal(aif_parse(f, len, &m), 0);
	return aif_flow_hash(&m, t->lb.hash_fields, t->lb.hash_alg, t->seed);
}

/* Inject flows 0..n-1 once each, in order, on p0. */
static void
fl_inject(unsigned n)
{
	uint8_t f[FRAME_MAX];
	uint16_t len;

	for (unsigned i = 0; i < n; i++) {
		member_flow(f, &len, i);
		inject(0, f, len);
	}
}

/* Dequeue what the uplinks sent; port_of[flow] gets the port each flow
 * left on, *moved counts packets that left on another port than the
 * flow's previous one.  Returns how many. */
static unsigned
fl_collect(int8_t *port_of, unsigned n, unsigned *moved)
{
	struct rte_mbuf *out[RING_SIZE];
	unsigned total = 0;

	assert_int_equal(rte_ring_count(H.tx[0]), 0);
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned k = sent(p, out, RING_SIZE);
		for (unsigned j = 0; j < k; j++) {
			const uint8_t *ip = rte_pktmbuf_mtod(out[j], const uint8_t *) + ETH_HLEN;
			unsigned i = get16(ip + 18); /* dst 10.1.x.y: flow x << 8 | y */
			assert_true(i < n);
			*moved += port_of[i] >= 0 && port_of[i] != p;
			port_of[i] = (int8_t)p;
		}
		rs_free_all(out, k);
		total += k;
	}
	return total;
}

/* Group name's load-balancing counters as the show_groups reply gives them. */
struct fl_counters {
	uint64_t starts, reselections, collisions, untracked;
};

static struct fl_counters
fl_counters(const char *name)
{
	json_t *r = ctl_request("{\"cmd\": \"show_groups\"}");
	json_t *groups = json_object_get(r, "result"), *g;
	struct fl_counters c = { 0 };
	bool found = false;
	size_t i, k;

	assert_true(json_is_true(json_object_get(r, "ok")));
	json_array_foreach(groups, i, g) {
		json_t *members = json_object_get(g, "members"), *m;
		if (strcmp(json_string_value(json_object_get(g, "name")), name) != 0)
			continue;
		found = true;
		assert_true(json_is_integer(json_object_get(g, "flowlet_collisions")));
		c.collisions = (uint64_t)json_integer_value(json_object_get(g, "flowlet_collisions"));
		c.untracked = (uint64_t)json_integer_value(json_object_get(g, "flowlet_untracked"));
		json_array_foreach(members, k, m) {
			c.starts += (uint64_t)json_integer_value(json_object_get(m, "flowlet_starts"));
			c.reselections += (uint64_t)json_integer_value(json_object_get(m, "reselections"));
		}
	}
	assert_true(found);
	json_decref(r);
	return c;
}

/* Flows 0..n-1 of group gi on a table of size entries: how many entries they
 * use, and the collisions lb_flowlet.c counts when they all arrive, in
 * order, within one gap (the first flow on an entry owns it; every other
 * flow is a guest, counted once per guest bit, lb.h). */
static unsigned
fl_expect(unsigned n, uint16_t gi, uint32_t size, unsigned *collisions)
{
	uint32_t *owner = calloc(size, sizeof(*owner));
	uint8_t *guests = calloc(size, 1);
	unsigned entries = 0;

	assert_non_null(owner);
	assert_non_null(guests);
	*collisions = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t h = fl_hash(i), e = aif_lb_flowlet_index(h, gi, size);
		uint8_t bit = (uint8_t)(1u << (h >> 29));
		if (owner[e] == 0) {
			owner[e] = h | 1;
			entries++;
		} else if (owner[e] != (h | 1) && !(guests[e] & bit)) {
			guests[e] |= bit;
			(*collisions)++;
		}
	}
	free(owner);
	free(guests);
	return entries;
}

/*
 * 64 flows on a 16-entry table, eight packets each within the gap: flows
 * share entries, none leaves on two ports, and show_groups reports the
 * collisions (exactly as the sharing rule counts them).
 */
static void
test_flowlet_collisions_shown(void **state)
{
	enum { N = 64, SIZE = 16, ROUNDS = 8 };
	int8_t port_of[N];
	unsigned want_coll, entries, moved = 0;
	struct fl_counters c0, c1;

	(void)state;
	load_flowlet(SIZE);
	/* every entry left by earlier tests idle for longer than aging */
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	const struct aif_group *g = group_named("uplinks");
	uint16_t gi = (uint16_t)(g - H.sw->tables->groups);
	entries = fl_expect(N, gi, SIZE, &want_coll);
	memset(port_of, -1, sizeof(port_of));
	c0 = fl_counters("uplinks");
	for (unsigned r = 0; r < ROUNDS; r++) {
		fl_inject(N);
		run();
		assert_int_equal(fl_collect(port_of, N, &moved), N);
	}
	c1 = fl_counters("uplinks");
	print_message("# flowlet, %u flows on %u entries (%u used), %u packets each: "
		      "%u moved; %llu collisions shown (%u expected), %llu flowlet starts, "
		      "%llu reselections\n", N, SIZE, entries, ROUNDS, moved,
		      (unsigned long long)(c1.collisions - c0.collisions), want_coll,
		      (unsigned long long)(c1.starts - c0.starts),
		      (unsigned long long)(c1.reselections - c0.reselections));
	assert_int_equal(moved, 0);
	assert_true(want_coll > 0);
	assert_int_equal(c1.collisions - c0.collisions, want_coll);
	assert_int_equal(c1.starts - c0.starts, entries);
	assert_int_equal(c1.reselections - c0.reselections, 0);
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * The exact table (the default): 64 flows, eight packets each within the
 * gap.  On 4,096 entries every flow starts its own flowlet and none shares
 * one; on 16 (a window of AIF_FLOWLET_PROBES = the whole table) the first
 * 16 flows take the entries and the other 48 go by their hash, each packet
 * counted as flowlet_untracked; no flow moves in either.
 */
static void
test_flowlet_exact_shown(void **state)
{
	enum { N = 64, ROUNDS = 8 };
	static const unsigned sizes[] = { 4096, 16 };
	int8_t port_of[N];
	unsigned moved = 0;

	(void)state;
	for (unsigned k = 0; k < 2; k++) {
		unsigned size = sizes[k], tracked = size < N ? size : N;
		load_flowlet_table(size, "exact");
		aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
		memset(port_of, -1, sizeof(port_of));
		struct fl_counters c0 = fl_counters("uplinks"), c1;
		for (unsigned r = 0; r < ROUNDS; r++) {
			fl_inject(N);
			run();
			assert_int_equal(fl_collect(port_of, N, &moved), N);
		}
		c1 = fl_counters("uplinks");
		print_message("# flowlet, exact table of %u: %u flows x %u packets: %u moved, "
			      "%llu flowlet starts, %llu collisions, %llu packets untracked\n",
			      size, N, ROUNDS, moved, (unsigned long long)(c1.starts - c0.starts),
			      (unsigned long long)(c1.collisions - c0.collisions),
			      (unsigned long long)(c1.untracked - c0.untracked));
		assert_int_equal(moved, 0);
		assert_int_equal(c1.starts - c0.starts, tracked);
		assert_int_equal(c1.collisions - c0.collisions, 0);
		assert_int_equal(c1.untracked - c0.untracked, (N - tracked) * ROUNDS);
		assert_int_equal(c1.reselections - c0.reselections, 0);
	}
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * Per-member counts (packets, bytes, and the load balancer's flowlet starts,
 * reselections and collisions) all clear, and a member that leaves the
 * config and comes back starts from zero: its counter slot was given back
 * and taken anew.
 */
static void
test_member_counts_clear_and_reuse(void **state)
{
	enum { N = 64, SIZE = 16 };
	static const char members_two[] =
		"{\"ip\": \"10.0.1.0\", \"port\": \"p1\"},"
		"{\"ip\": \"10.0.1.2\", \"port\": \"p2\"}";
	int8_t port_of[N];
	unsigned moved = 0;
	struct aif_member_sums mc[N_PORTS];
	struct fl_counters c;

	(void)state;
	load_flowlet(SIZE);
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	memset(port_of, -1, sizeof(port_of));
	fl_inject(N);
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	c = fl_counters("uplinks");
	assert_true(c.starts > 0 && c.collisions > 0);

	json_decref(ctl_request("{\"cmd\": \"clear_counters\"}"));
	c = fl_counters("uplinks");
	assert_int_equal(c.starts, 0);
	assert_int_equal(c.reselections, 0);
	assert_int_equal(c.collisions, 0);
	member_ctrs_by_port("uplinks", mc);
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(mc[p].packets + mc[p].flowlet_starts, 0);

	/* traffic again on every member, p3's included */
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	fl_inject(N);
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	member_ctrs_by_port("uplinks", mc);
	assert_true(mc[3].packets > 0 && mc[3].flowlet_starts > 0);

	/* 10.0.1.4@p3 leaves the group and comes back: it counts from zero */
	load_config(BASE_SEED, members_two);
	load_flowlet(SIZE);
	member_ctrs_by_port("uplinks", mc);
	assert_int_equal(mc[3].packets, 0);
	assert_int_equal(mc[3].bytes, 0);
	assert_int_equal(mc[3].flowlet_starts, 0);
	assert_int_equal(mc[3].reselections, 0);
	assert_int_equal(mc[3].flowlet_collisions, 0);
	assert_true(mc[1].packets > 0 && mc[2].packets > 0); /* the others kept theirs */
	load_config(BASE_SEED, members_fwd);
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
	inject(0, f, build_arp(f, mac_bcast, mac_h7, 1, mac_h7, ip_h7, NULL, ip_p0));
	run();
	rs_free_all(m, sent(0, m, 8));
	aif_switch_learn(H.sw, now_ns());
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

/* An RX callback on p0 that plays a worker stall: the next non-empty burst
 * takes stall_ns of virtual time to receive. */
static uint16_t
stall_rx(uint16_t port_id, uint16_t queue, struct rte_mbuf *pkts[], uint16_t nb_pkts,
	 uint16_t max_pkts, void *arg)
{
	aif_time_ns *stall_ns = arg;

	(void)port_id;
	(void)queue;
	(void)pkts;
	(void)max_pkts;
	if (nb_pkts > 0 && *stall_ns > 0) {
		aif_clock_advance(&H.ctl.clock, *stall_ns);
		*stall_ns = 0;
	}
	return nb_pkts;
}

/*
 * Flowlet gaps are measured between receive times.  32 flows (one burst):
 * the first packets are received in a step that stalls for 500 us between
 * its clock read and rx_burst; the next ones arrive 600 us after that
 * receive, less than the 1 ms gap: no flow starts a new flowlet or moves.
 * The ones after a true gap of 1.1 ms do start new flowlets.
 */
static void
test_flowlet_gap_from_receive_time(void **state)
{
	enum { N = AIF_BURST, SIZE = 65536 };
	int8_t port_of[N];
	unsigned entries, coll, moved = 0, moved_after = 0;
	aif_time_ns stall_ns = 0;
	struct fl_counters c0, c1, c2;

	(void)state;
	load_flowlet(SIZE);
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	const struct aif_group *g = group_named("uplinks");
	entries = fl_expect(N, (uint16_t)(g - H.sw->tables->groups), SIZE, &coll);
	const struct rte_eth_rxtx_callback *cb =
		rte_eth_add_rx_callback(H.pid[0], 0, stall_rx, &stall_ns);
	assert_non_null(cb);
	memset(port_of, -1, sizeof(port_of));
	c0 = fl_counters("uplinks");

	/* received 500 us after the step read the clock */
	fl_inject(N);
	stall_ns = 500 * AIF_NS_PER_US;
	rs_step(&H, STEP_NS);
	assert_int_equal(stall_ns, 0);
	assert_false(rs_rx_pending(&H));
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	/* 600 us after that receive: the same flowlets */
	fl_inject(N);
	rs_step(&H, 600 * AIF_NS_PER_US - STEP_NS);
	assert_false(rs_rx_pending(&H));
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	c1 = fl_counters("uplinks");
	print_message("# flowlet gap 1 ms, a 500 us stall before receive, next packets "
		      "600 us later: %u of %u flows moved, %llu flowlet starts for %u "
		      "entries, %llu reselections\n", moved, N,
		      (unsigned long long)(c1.starts - c0.starts), entries,
		      (unsigned long long)(c1.reselections - c0.reselections));
	assert_int_equal(moved, 0);
	assert_int_equal(c1.starts - c0.starts, entries);
	assert_int_equal(c1.reselections - c0.reselections, 0);

	/* a true gap of 1.1 ms: every flow starts a new flowlet */
	fl_inject(N);
	rs_step(&H, 1100 * AIF_NS_PER_US);
	assert_false(rs_rx_pending(&H));
	run();
	assert_int_equal(fl_collect(port_of, N, &moved_after), N);
	c2 = fl_counters("uplinks");
	print_message("# then 1.1 ms later: %llu flowlet starts, %u of %u flows moved\n",
		      (unsigned long long)(c2.starts - c1.starts), moved_after, N);
	assert_int_equal(c2.starts - c1.starts, entries);

	assert_int_equal(rte_eth_remove_rx_callback(H.pid[0], 0, cb), 0);
	rte_free((void *)(uintptr_t)cb); /* the worker is not running: safe now */
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 802.1Q: the egress port decides the tag                           */

#define TCI(pcp, vid) ((uint16_t)((pcp) << 13 | (vid)))

/* Insert an 802.1Q tag into frame f of len bytes; returns the new length. */
static uint16_t
add_tag(uint8_t *f, uint16_t len, uint16_t tci)
{
	memmove(f + 16, f + 12, len - 12u);
	put16(f + 12, AIF_ETHERTYPE_VLAN);
	put16(f + 14, tci);
	return (uint16_t)(len + 4);
}

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

/*
 * A routed IPv4 frame that left port out with tag tci (< 0: untagged),
 * against the untagged frame in of len bytes it came from (tagged or not):
 * MACs, tag, TTL - 1, a valid checksum, every other byte as it was.
 */
static void
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
		cmocka_unit_test_setup(test_forward_ipv4_roce, test_setup),
		cmocka_unit_test_setup(test_forward_ipv6_roce, test_setup),
		cmocka_unit_test_setup(test_drops, test_setup),
		cmocka_unit_test_setup(test_arp, test_setup),
		cmocka_unit_test_setup(test_nd, test_setup),
		cmocka_unit_test_setup(test_icmp_echo, test_setup),
		cmocka_unit_test_setup(test_reload_under_traffic, test_setup),
		cmocka_unit_test_setup(test_reload_concurrent, test_setup),
		cmocka_unit_test_setup(test_reload_rejected, test_setup),
		cmocka_unit_test_setup(test_clear_counters, test_setup),
		cmocka_unit_test_setup(test_member_down_up, test_setup),
		cmocka_unit_test_setup(test_scheme_switch_under_traffic, test_setup),
		cmocka_unit_test_setup(test_schemes_skip_down_members, test_setup),
		cmocka_unit_test_setup(test_link_down_seen_at_once, test_setup),
		cmocka_unit_test_setup(test_path_trace, test_setup),
		cmocka_unit_test_setup(test_flowlet_collisions_shown, test_setup),
		cmocka_unit_test_setup(test_flowlet_exact_shown, test_setup),
		cmocka_unit_test_setup(test_member_counts_clear_and_reuse, test_setup),
		cmocka_unit_test_setup(test_neighbor_flood, test_setup),
		cmocka_unit_test_setup(test_neighbor_learn_ring_full, test_setup),
		cmocka_unit_test_setup(test_neighbor_stale_probe, test_setup),
		cmocka_unit_test_setup(test_flowlet_gap_from_receive_time, test_setup),
		cmocka_unit_test_setup(test_vlan_egress, test_setup),
		cmocka_unit_test_setup(test_vlan_egress_ipv6, test_setup),
		cmocka_unit_test_setup(test_vlan_ingress, test_setup),
		cmocka_unit_test_setup(test_vlan_solicit, test_setup),
		cmocka_unit_test_setup(test_vlan_ecn_marking, test_setup),
		cmocka_unit_test_setup(test_chained_frames, test_setup),
	};
	return cmocka_run_group_tests_name("pipeline", tests, group_setup,
					   group_teardown);
}
