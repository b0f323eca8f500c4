/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline fixture: what the test_pipeline_* programs share, one whole
 * switch ("leaf0", four ports) run in virtual time on the ring switch
 * harness (ring_switch.h), its config, and the helpers that build frames,
 * run the switch and read its counters.
 *
 * Topology: p0 (10.0.0.1/24, 2001:db8::1/64) is the host side, with host h0
 * (10.0.0.2, 02:00:00:00:00:02) configured behind it; p1..p3 are uplinks
 * (MTU 9000, /31 and /127 point-to-point subnets) each with a static
 * neighbour, and the ECMP groups "uplinks" (10.1.0.0/16) and "uplinks6"
 * (2001:db8:1::/48) spread over them; 10.9.0.0/16 is a drop route.
 *
 * group_setup starts EAL once for the program (--no-huge, no PCI, a private
 * file prefix), the switch, and its ports as DPDK ring-backed ethdevs
 * (rte_eth_from_rings, net_ring_pl0..3) configured as control/eal_ports.c
 * does: a test enqueues into a port's RX ring what arrives at the switch
 * (inject) and dequeues from its TX ring what the switch sent (sent).  The
 * config (BASE_SEED, members_fwd) goes in through the same command line the
 * control socket serves ({"cmd":"load","config":{...}} through
 * aif_ctl_handle_line and aif_ctl_dispatch), and worker 0 polls queue 0 of
 * every port.  test_setup empties every ring before each test.  Time is the
 * control's virtual clock: step() advances it by STEP_NS (1 us) and runs one
 * aif_runner_step().  No test sleeps or reads the wall clock.
 *
 * Every test compares exact counter deltas (aif_switch_port_counters,
 * aif_switch_member_counters) and output bytes, and ends with every ring
 * empty and every mbuf back in the pool (assert_clean), and with the base
 * config loaded again where it loaded another.
 *
 * Frames are built by hand here (Ethernet, IPv4/IPv6, UDP, the RoCEv2
 * BTH, ARP, ICMP, ICMPv6 ND, 802.1Q tags); checksums of what the switch
 * sends are checked with the tests' own RFC 1071 sum (ring_switch.h), not
 * with the code under test.
 *
 * The helpers that check use cmocka assertions: they belong inside a test.
 */
#ifndef AIF_TEST_PIPELINE_FIXTURE_H
#define AIF_TEST_PIPELINE_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "counters.h"
#include "drop.h"
#include "switch.h"
#include "tables.h"

#include "ring_switch.h"

struct rte_mbuf;

#define N_PORTS 4
#define RING_SIZE 4096      /* per RX/TX ring of a test port */
#define MAX_STEPS 1000      /* bound on steps to drain the RX rings */
#define STEP_NS AIF_NS_PER_US
#define FRAME_MAX 256
#define ROCE_PAYLOAD 64
#define ECHO_DATA 32        /* bytes of data in the echo requests */
#define BASE_SEED 0x1eaf0u  /* the seed of the config group_setup loads */

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
			 ((uint32_t)(c) << 8) | (uint32_t)(d))
#define TCI(pcp, vid) ((uint16_t)((pcp) << 13 | (vid)))

/* ---------------------------------------------------------------- */
/* Addresses of the test config                                      */

extern const uint8_t mac_port[N_PORTS][6];
/* the static neighbour behind each uplink (v4 and v6 share the MAC) */
extern const uint8_t mac_nbr[N_PORTS][6];
extern const uint8_t mac_h0[6], mac_h7[6], mac_foreign[6], mac_bcast[6], mac_pfc[6];
/* host order */
extern const uint32_t ip_p0, ip_h0, ip_h7, ip_unknown, ip_remote;
extern const uint8_t ip6_p0[16], ip6_h0[16], ip6_h7[16], ip6_remote[16], ip6_remote_src[16];

/* The members of "uplinks", in order and reversed (for config_text). */
extern const char members_fwd[];
extern const char members_rev[];

/* ---------------------------------------------------------------- */
/* Harness state                                                     */

extern struct rs_harness H;

/* xorshift64*: fixed seed, so a failure reproduces. */
uint32_t rnd(void);

/* ---------------------------------------------------------------- */
/* Frames                                                            */

/* Ethernet header; returns where its payload starts. */
uint8_t *eth(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t type);

struct roce {
	const uint8_t *dmac, *smac;
	uint32_t sip, dip;         /* v4, host order */
	const uint8_t *sip6, *dip6; /* v6 */
	uint16_t sport;
	uint8_t ttl;
	uint32_t qp;
	uint32_t flow_label;
};

/* Ethernet / IPv4 (DSCP dscp, ECT(0), DF) / UDP 4791 / BTH with payload
 * bytes; returns the length. */
uint16_t build_roce4_n(uint8_t *f, const struct roce *r, uint8_t dscp, uint16_t payload);
/* Ethernet / IPv4 (DSCP 26, ECT(0), DF) / UDP 4791 / BTH; returns the length. */
uint16_t build_roce4(uint8_t *f, const struct roce *r);
/* Ethernet / IPv6 / UDP 4791 / BTH; returns the length. */
uint16_t build_roce6(uint8_t *f, const struct roce *r);
/* ARP over Ethernet; tha NULL means zero; returns 42. */
uint16_t build_arp(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t op,
		   const uint8_t *sha, uint32_t spa, const uint8_t *tha, uint32_t tpa);
/* ICMP echo request, id 0x1234 seq 7; returns the length. */
uint16_t build_echo4(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t sip,
		     uint32_t dip);
/* ICMPv6 echo request, id 0x4321 seq 9; returns the length. */
uint16_t build_echo6(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
		     const uint8_t *sip, const uint8_t *dip);
/* Neighbour solicitation for target from sip/smac, with a source LL option. */
uint16_t build_ns(uint8_t *f, const uint8_t *smac, const uint8_t *sip, const uint8_t *target,
		  uint8_t hlim);
/* Insert an 802.1Q tag into frame f of len bytes; returns the new length. */
uint16_t add_tag(uint8_t *f, uint16_t len, uint16_t tci);
/* A routed IPv4 frame that left port out with tag tci (< 0: untagged),
 * against the untagged frame in of len bytes it came from. */
void check_routed4_tag(const struct rte_mbuf *mb, uint16_t out, const uint8_t *in,
		       uint16_t len, int tci);

/* ---------------------------------------------------------------- */
/* Running the switch                                                */

aif_time_ns now_ns(void);
/* Advance the virtual clock by STEP_NS, then one worker step. */
void step(void);
/* Step until every RX ring is empty (at least once). */
void run(void);
void inject(uint16_t port, const uint8_t *f, uint16_t len);
/* Everything the switch sent on port (up to max); the ring is left empty. */
unsigned sent(uint16_t port, struct rte_mbuf **out, unsigned max);
/* Exactly one frame sent on port, nothing on the others; caller frees it. */
struct rte_mbuf *sent_one(uint16_t port);
void assert_no_tx(void);
/* Every ring empty, every mbuf back in the pool. */
void assert_clean(void);
/* n frames of random flows from h0 to 10.1.0.0/16 arrive at p0. */
void inject_flows(unsigned n);
/* Dequeue and free what the uplinks sent; returns how many. */
unsigned drain_uplinks(void);

/* ---------------------------------------------------------------- */
/* Counters                                                          */

void snap_take(struct rs_snap *s);
/* Counters of port since the snapshot. */
struct aif_port_ctr delta(const struct rs_snap *before, uint16_t port);
/* Since the snapshot: exactly `count` drops of reason r on port, no other drop. */
void assert_drops(const struct rs_snap *before, uint16_t port, enum aif_drop_reason r,
		  uint64_t count);
void assert_no_drops(const struct rs_snap *before);
const struct aif_group *group_named(const char *name);
/* Member counters of group name indexed by egress port. */
void member_ctrs_by_port(const char *name, struct aif_member_sums out[N_PORTS]);
/* The port ECMP must choose for frame f (parsed and hashed as the pipeline does). */
uint16_t expected_port(const uint8_t *f, uint16_t len, const char *group);

/* ---------------------------------------------------------------- */
/* Control                                                           */

/* The test config (malloc'd): seed, the members of "uplinks", the device
 * of p3, extra routes (with a leading comma, or ""). */
char *config_text(uint32_t seed, const char *members, const char *p3_device,
		  const char *extra_routes);
/* Load config text (freed here) through the control path; the test fails if
 * it is rejected. */
void load_text(char *text);
void load_config(uint32_t seed, const char *members);
/* One control request through the socket's line handler; the reply. */
json_t *ctl_request(const char *line);

/* ---------------------------------------------------------------- */
/* cmocka set-up                                                     */

/* EAL, pool, ring ports, switch, the base config, worker 0. */
int group_setup(void **state);
int group_teardown(void **state);
/* Before each test: empty every ring, note the mbufs in use (rs_reset). */
int test_setup(void **state);

#endif
