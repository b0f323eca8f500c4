/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring switch: the harness the pipeline tests (tests/pipeline/test_*.c)
 * share.  It runs one whole switch in virtual time on ring-backed ports.
 *
 * rs_setup() starts EAL once for the test group (--no-huge, no PCI, a
 * private file prefix), creates the mbuf pool and the switch, and makes each
 * switch port a DPDK ring-backed ethdev (rte_eth_from_rings, named
 * "<tag><p>", so its device is "net_ring_<tag><p>"), configured and started
 * like control/eal_ports.c aif_eal_port_init does; it then loads the first config through
 * the command line the control socket serves ({"cmd":"load","config":{...}}
 * through aif_ctl_handle_line and aif_ctl_dispatch) and creates worker 0,
 * which polls queue 0 of every port.
 *
 * The test enqueues mbufs into a port's RX ring (what arrives at the switch:
 * rs_inject) and dequeues from its TX ring (what the switch sent: rs_sent).
 * Time is the control's virtual clock: rs_step() advances it by the step
 * the caller gives, then runs one aif_runner_step().  The runner also stamps
 * each received burst from it (aif_runner_set_clock), as in control/run.c,
 * so a test can move time inside a step (e.g. an RX callback on a port, to
 * play a stall between the step's clock read and rx_burst).  Nothing here
 * sleeps or reads the wall clock.
 *
 * The helpers that check (rs_load, rs_inject, rs_sent, rs_run) use cmocka
 * assertions, so they belong inside a cmocka test or group setup.
 *
 * Also here: the byte-order and RFC 1071 checksum helpers the tests use to
 * build frames and to check what the switch sent independently of the code
 * under test, and counter snapshots (rs_snap_take, rs_delta).
 */
#ifndef AIF_TEST_RING_SWITCH_H
#define AIF_TEST_RING_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clock.h"
#include "commands.h"
#include "counters.h"
#include "types.h"

struct rte_mbuf;
struct rte_mempool;
struct rte_ring;
struct aif_switch;
struct aif_runner;

#define RS_MAX_PORTS 8

#define ETH_HLEN 14
#define IP4_HLEN 20
#define IP6_HLEN 40
#define UDP_HLEN 8

/* What differs between the test programs. */
struct rs_params {
	const char *prog;        /* argv[0] given to EAL */
	const char *file_prefix; /* EAL file prefix; "-<pid>" is appended */
	const char *tag;         /* names: rings <tag>_rx<p>/<tag>_tx<p>, pool
				  * <tag>_pool, ethdevs <tag><p> (net_ring_<tag><p>) */
	uint16_t n_ports;        /* at most RS_MAX_PORTS; named p0, p1, ... */
	unsigned ring_size;      /* per RX/TX ring, and the queue descriptors */
	unsigned pool_size, pool_cache;
	const char *config;      /* the first config, loaded before the worker starts */
};

struct rs_harness {
	struct rte_mempool *pool;
	struct rte_ring *rx[RS_MAX_PORTS]; /* enqueue here: arrives at the switch */
	struct rte_ring *tx[RS_MAX_PORTS]; /* dequeue here: the switch sent it */
	uint16_t pid[RS_MAX_PORTS];
	bool started[RS_MAX_PORTS];
	uint16_t n_ports;
	unsigned ring_size;
	const char *tag;
	struct aif_switch *sw;
	struct aif_runner *w;               /* worker 0 */
	struct aif_ctl ctl;                 /* its clock is the virtual clock */
	unsigned pool_base;                 /* mbufs in use when the test started */
};

/*
 * EAL, pool, switch, ports, the first config, worker 0.  Returns 0, or -1
 * after saying why on stderr and undoing what was done (rs_teardown).
 */
int rs_setup(struct rs_harness *h, const struct rs_params *params);
/* Undo rs_setup (also a half-done one); h is zeroed. */
void rs_teardown(struct rs_harness *h);
/* What control/eal_ports.c aif_eal_port_init does, for ring-backed port p; 0 or -1. */
int rs_port_setup(struct rs_harness *h, uint16_t p);
/*
 * Before each test: empty every ring (left over only when an earlier test
 * failed half-way), so that one failure does not cascade, and note how many
 * mbufs are in use (pool_base).
 */
void rs_reset(struct rs_harness *h);

/*
 * Send {"cmd":"load","config":<config>} through the socket's line handler.
 * Returns whether the reply said ok; err (if given) gets the error.
 */
bool rs_load(struct rs_harness *h, const char *config, char *err, size_t err_len);

aif_time_ns rs_now(const struct rs_harness *h);
/* Advance the virtual clock by dt_ns, then one worker step. */
void rs_step(struct rs_harness *h, aif_time_ns dt_ns);
/* Whether any RX ring holds something. */
bool rs_rx_pending(const struct rs_harness *h);
/* Step (dt_ns each) until every RX ring is empty: at least once, at most
 * max_steps times; asserts that they are empty. */
void rs_run(struct rs_harness *h, aif_time_ns dt_ns, unsigned max_steps);

/* A one-segment mbuf from the pool holding frame f. */
struct rte_mbuf *rs_mbuf_of(struct rs_harness *h, const uint8_t *f, uint16_t len);
/* Frame f arrives at port. */
void rs_inject(struct rs_harness *h, uint16_t port, const uint8_t *f, uint16_t len);
/* Everything the switch sent on port (up to max); asserts the ring is left empty. */
unsigned rs_sent(struct rs_harness *h, uint16_t port, struct rte_mbuf **out, unsigned max);
/* The one frame the switch sent, on port; asserts nothing on the others. */
struct rte_mbuf *rs_sent_one(struct rs_harness *h, uint16_t port);
void rs_free_all(struct rte_mbuf **m, unsigned n);

/* Port counters at one moment. */
struct rs_snap {
	struct aif_port_ctr port[RS_MAX_PORTS];
};

void rs_snap_take(const struct rs_harness *h, struct rs_snap *s);
/* Counters of port since the snapshot. */
struct aif_port_ctr rs_delta(const struct rs_harness *h, const struct rs_snap *before,
			     uint16_t port);

/* ---------------------------------------------------------------- */
/* Bytes and checksums, written here, not taken from the code under test */

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/* RFC 1071 sum of big-endian 16-bit words (odd tail padded), folded. */
static inline uint32_t
sum16(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* One's complement sum over the IPv6 pseudo-header (RFC 8200 8.1) and an L4
 * message of l4_len bytes, next header nh: 0xffff when its checksum is right. */
static inline uint32_t
sum_ipv6_l4(const uint8_t *ip6, const uint8_t *l4, uint32_t l4_len, uint8_t nh)
{
	uint8_t pseudo[40];
	memcpy(pseudo, ip6 + 8, 32);
	put32(pseudo + 32, l4_len);
	put32(pseudo + 36, nh);
	return sum16(sum16(0, pseudo, sizeof(pseudo)), l4, l4_len);
}

/* Checksum field value that makes the IPv6 L4 message sum to 0xffff. */
static inline uint16_t
csum_ipv6_l4(const uint8_t *ip6, const uint8_t *l4, uint32_t l4_len, uint8_t nh)
{
	return (uint16_t)~sum_ipv6_l4(ip6, l4, l4_len, nh);
}

#endif
