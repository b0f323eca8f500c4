/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QoS fixture: what the test_qos_* programs share, one whole switch
 * ("leaf0", four 100G ports) run in virtual time on the ring switch harness
 * (ring_switch.h) to test the lossless QoS path (dataplane/qos.h,
 * pipelines/egress.c), its config, and the helpers that build and check
 * frames, run the switch and read its counters.
 *
 * Harness: EAL once for the program (--no-huge, no PCI, a private file
 * prefix); each switch port is a ring-backed ethdev (rte_eth_from_rings,
 * net_ring_qs0..3): the test enqueues into a port's RX ring what arrives at
 * the switch and dequeues from its TX ring what the switch sent; configs go
 * in through the control socket's line handler ({"cmd":"load",...}), and
 * worker 0 polls every port.  Time is the control's virtual clock, advanced
 * by 100 ns or 1 us before each aif_runner_step(); no test sleeps.
 *
 * Topology: port pN is 10.0.N.1/24 and fd00:N::1/64 (MAC 02:00:00:00:00:1N,
 * "speed_gbps": 100) with a static neighbour 10.0.N.2 / fd00:N::2 (MAC
 * 02:00:00:00:01:0N) behind it.
 * A test sends from the neighbour of one port to the neighbour of another.
 * A port made the bottleneck gets "shaper_gbps": 10, which the egress
 * scheduler enforces in virtual time (the ring PMD itself never refuses).
 *
 * What the tests know independently of the code under test: PFC/PAUSE frames
 * are built and checked byte by byte here, pause times are computed here
 * (quanta * 512 bit times at 100 Gb/s), IPv4 checksums are checked with the
 * tests' own RFC 1071 sum (ring_switch.h), and the queue depth that each
 * ECN/WRED decision saw is reconstructed from the scheduler's dequeue count
 * and the MMU's queue bytes after each step.
 *
 * The helpers that check use cmocka assertions: they belong inside a test.
 */
#ifndef AIF_TEST_QOS_FIXTURE_H
#define AIF_TEST_QOS_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "clock.h"
#include "counters.h"
#include "drop.h"
#include "qos.h"

#include "ring_switch.h"

struct rte_mbuf;

#define N_PORTS 4
#define FRAME_LEN 1000      /* data frames, without the FCS */
#define SPEED_BPS 100000000000ull
#define SHAPER_BPS 10000000000ull
#define NS_100 100
#define US AIF_NS_PER_US
#define MS AIF_NS_PER_MS
#define PRIO 3              /* the lossless priority (DSCP 26 -> TC 3) */

/* ---------------------------------------------------------------- */
/* Addresses                                                         */

extern const uint8_t mac_port[N_PORTS][6];
extern const uint8_t mac_host[N_PORTS][6]; /* the neighbour behind each port */
extern const uint8_t mac_pfc[6];

/* ---------------------------------------------------------------- */
/* Harness state                                                     */

extern struct rs_harness H;

/* quanta * 512 bit times at speed_bps, rounded up to a whole ns. */
aif_time_ns pause_ns(uint16_t quanta, uint64_t speed_bps);

/* ---------------------------------------------------------------- */
/* Frames                                                            */

/* Ethernet / IPv4 (dscp, ecn) / UDP 4791 / BTH / payload, FRAME_LEN bytes,
 * from the neighbour of port in to the neighbour of port out. */
uint16_t build_data(uint8_t *f, uint16_t in, uint16_t out, uint8_t dscp, uint8_t ecn,
		    uint32_t seq);
/* A PFC frame as a peer sends it, time `quanta` for every class in `vector`. */
uint16_t build_pfc(uint8_t *f, const uint8_t *src, uint8_t vector, uint16_t quanta);
/* 802.3x PAUSE: opcode 0x0001, one time. */
uint16_t build_pause(uint8_t *f, const uint8_t *src, uint16_t quanta);

/* What a routed data frame out of port out carried. */
struct out_pkt {
	uint16_t in;
	uint32_t seq;
	uint8_t dscp;
	uint8_t ecn;
};

/* Check a data frame the switch sent on port out; what it carried. */
struct out_pkt parse_out(const struct rte_mbuf *m, uint16_t out);
/* Check a PFC frame the switch sent out of port p byte by byte; the time
 * of priority PRIO. */
uint16_t check_pfc_out(const struct rte_mbuf *m, uint16_t p);

/* ---------------------------------------------------------------- */
/* Running the switch                                                */

aif_time_ns now_ns(void);
/* Advance the virtual clock by dt_ns, then one worker step. */
void step(aif_time_ns dt_ns);
/* The switch's QoS state (asserted present). */
struct aif_qos *qos(void);
void inject_frame(uint16_t port, const uint8_t *f, uint16_t len);
void inject_data(uint16_t in, uint16_t out, uint8_t dscp, uint8_t ecn, uint32_t seq);
/* Data frames sent on port out since the last call (up to max), parsed and
 * freed; the ring is left empty. */
unsigned take_out(uint16_t out, struct out_pkt *o, unsigned max);
void assert_tx_empty(uint16_t port);
/* Every ring empty, every queue and buffer empty, every mbuf back. */
void assert_clean(void);

/* ---------------------------------------------------------------- */
/* Counters                                                          */

void snap_take(struct rs_snap *s);
struct aif_port_ctr delta(const struct rs_snap *before, uint16_t port);
/* Drops of reason r on port since the snapshot. */
uint64_t drops_of(const struct rs_snap *before, uint16_t port, enum aif_drop_reason r);
/* Since the snapshot: no drop of a reason outside `allowed` (bit per reason)
 * on any port, and none at all on ports outside `ports` (bit per port).
 * Returns the sum of the allowed drops. */
uint64_t assert_drops_within(const struct rs_snap *before, uint32_t ports, uint64_t allowed);
void assert_no_drops(const struct rs_snap *before);

/* ---------------------------------------------------------------- */
/* Control                                                           */

/* The test config (malloc'd): `qos_body` the body of the default policy's
 * "qos" object (NULL: the defaults), port `shaped` (none if >= N_PORTS)
 * with "shaper_gbps": 10. */
char *config_text(const char *qos_body, uint16_t shaped);
/* Load a config and step once so that worker 0 adopts it. */
void load(const char *qos_body, uint16_t shaped);
/* One control request through the socket's line handler; the reply's
 * result (asserting "ok"). */
json_t *ctl_result(const char *line);
/* The row of `show_pfc` for port p (borrowed from rows). */
json_t *pfc_row(json_t *rows, uint16_t p);
/* Integer field key of a `show_pfc` row, and element k of an array of 8. */
uint64_t jint(const json_t *o, const char *key);
uint64_t jint_at(const json_t *o, const char *key, unsigned k);

/* ---------------------------------------------------------------- */
/* cmocka set-up                                                     */

/* EAL, pool, ring ports, switch, the default config, worker 0. */
int group_setup(void **state);
int group_teardown(void **state);
/* Before each test: empty every ring, note the mbufs in use (rs_reset). */
int test_setup(void **state);

#endif
