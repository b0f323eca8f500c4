/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for a whole switch: what any host or peer on a real
 * port can send it.  The input's first byte picks the port (p0..p3), the
 * rest is the frame, put in the port's RX ring; the switch (the ring switch
 * of the pipeline tests, tests/pipeline/ring_switch.h: "leaf0", four
 * ports on ring ethdevs, IPv4 and IPv6 addresses, an ECMP group of each
 * family, a drop route, a configured host, ECMP, flowlet, spray and
 * adaptive load balancing by traffic class, lossless QoS with PFC on two
 * classes, a BFD session on p1 run by control after every input) takes it
 * through the parser, its own ARP, ND, ICMP, BFD and PFC handling,
 * routing, rewrite, the buffer and the egress queues, stepped in virtual
 * time; then every frame it sent is read back from the TX rings.  Its state
 * carries over from one input to the next, as a switch's does (neighbours,
 * pauses, counters).  A finding is any fault, a leak, or:
 *
 *   an IPv4 frame sent whose header checksum is wrong (the parser drops a
 *   bad one; whatever the switch forwards, rewrites or builds is right on
 *   the wire), or a frame sent shorter than an Ethernet header;
 *   a frame kept: once pauses have run out (2 ms later) every mbuf is back
 *   in the pool.
 *
 * FUZZ_SWITCH_SAY set in the environment: what each input made the switch
 * send.
 *
 *   build-fuzz/tests/fuzz_switch -max_total_time=30 CORPUS SEEDS
 *   (or tests/fuzz/run.sh build-fuzz 30 switch: the frame parser's seeds,
 *   tests/fuzz/parse_seeds.py, each on every port)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "lsan_dpdk.h"
#include "ring_switch.h"
#include "test_eal.h"

#define N_PORTS 4
#define FRAME_MAX 2048 /* what one mbuf of the pool holds */

static const char config[] =
	"{\"switches\": [{\"name\": \"leaf0\", \"seed\": 7,"
	" \"ports\": ["
	"  {\"name\": \"p0\", \"device\": \"net_ring_fz0\", \"mac\": \"02:00:00:00:00:10\","
	"   \"addresses\": [\"10.0.0.1/24\", \"2001:db8::1/64\"]},"
	"  {\"name\": \"p1\", \"device\": \"net_ring_fz1\", \"mac\": \"02:00:00:00:00:11\","
	"   \"addresses\": [\"10.0.1.1/31\", \"2001:db8:ff::1/127\"],"
	"   \"bfd\": {\"interval_ms\": 10, \"multiplier\": 2}},"
	"  {\"name\": \"p2\", \"device\": \"net_ring_fz2\", \"mac\": \"02:00:00:00:00:12\","
	"   \"addresses\": [\"10.0.1.3/31\", \"2001:db8:ff::3/127\"]},"
	"  {\"name\": \"p3\", \"device\": \"net_ring_fz3\", \"mac\": \"02:00:00:00:00:13\","
	"   \"vlan\": 100, \"addresses\": [\"10.0.1.5/31\", \"2001:db8:ff::5/127\"]}],"
	" \"neighbors\": ["
	"  {\"ip\": \"10.0.1.0\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p2\"},"
	"  {\"ip\": \"2001:db8:ff::\", \"mac\": \"02:00:00:00:01:00\", \"port\": \"p1\"},"
	"  {\"ip\": \"2001:db8:ff::2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p2\"}],"
	" \"nexthop_groups\": ["
	"  {\"name\": \"uplinks\", \"members\": [{\"ip\": \"10.0.1.0\", \"port\": \"p1\"},"
	"   {\"ip\": \"10.0.1.2\", \"port\": \"p2\"}, {\"ip\": \"10.0.1.4\", \"port\": \"p3\"}]},"
	"  {\"name\": \"uplinks6\", \"members\": [{\"ip\": \"2001:db8:ff::\", \"port\": \"p1\"},"
	"   {\"ip\": \"2001:db8:ff::2\", \"port\": \"p2\"}, {\"ip\": \"2001:db8:ff::4\", \"port\": \"p3\"}]}],"
	" \"routes\": ["
	"  {\"prefix\": \"10.1.0.0/16\", \"group\": \"uplinks\"},"
	"  {\"prefix\": \"2001:db8:1::/48\", \"group\": \"uplinks6\"},"
	"  {\"prefix\": \"10.2.0.0/16\", \"nexthop\": {\"ip\": \"10.0.0.9\", \"port\": \"p0\"}},"
	"  {\"prefix\": \"10.9.0.0/16\", \"action\": \"drop\"}]}],"
	" \"policies\": {\"default\": {\"dscp_to_tc_map\": {\"8\": 1, \"16\": 2, \"24\": 4,"
	"  \"26\": 3, \"48\": 6}, \"load_balancing\": {\"scheme\": \"ecmp\","
	"  \"per_tc\": {\"1\": \"flowlet\", \"2\": \"spray\", \"4\": \"adaptive\"}},"
	"  \"qos\": {\"pfc_enable\": [3, 4]}}},"
	" \"hosts\": [{\"name\": \"h0\", \"switch\": \"leaf0\", \"port\": \"p0\","
	"  \"ip\": \"10.0.0.2\", \"mac\": \"02:00:00:00:00:02\"},"
	"  {\"name\": \"h1\", \"switch\": \"leaf0\", \"port\": \"p0\", \"ip\": \"10.0.0.3\"}]}";

static struct rs_harness H;
static unsigned pool_base;
static bool say; /* FUZZ_SWITCH_SAY set: the frames sent, by port, on stderr */
static unsigned sent[N_PORTS];

static void
finding(const char *what, size_t n)
{
	fprintf(stderr, "fuzz_switch: %s (input of %zu bytes)\n", what, n);
	abort();
}

/* The IPv4 header of a frame sent (behind any 802.1Q tags), checked. */
static void
check_sent(const struct rte_mbuf *m, size_t n)
{
	uint8_t buf[FRAME_MAX + 256];
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (len < 14)
		finding("a frame sent shorter than an Ethernet header", n);
	if (len > sizeof(buf))
		len = sizeof(buf);
	const uint8_t *f = rte_pktmbuf_read(m, 0, len, buf);
	if (f == NULL)
		finding("a frame sent that cannot be read", n);
	uint32_t off = 12;
	while (off + 4 <= len && get16(f + off) == 0x8100)
		off += 4;
	if (off + 2 > len || get16(f + off) != 0x0800)
		return;
	const uint8_t *ip = f + off + 2;
	uint32_t room = len - off - 2, ihl = room ? (ip[0] & 15u) * 4 : 0;
	if (room < 20 || ihl < 20 || ihl > room)
		finding("an IPv4 frame sent without its header", n);
	uint32_t s = sum16(0, ip, ihl);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	if (s != 0xffff)
		finding("an IPv4 frame sent with a wrong header checksum", n);
}

/* Every frame the switch sent, checked and freed. */
static void
drain(size_t n)
{
	struct rte_mbuf *m[64];
	unsigned k;

	for (uint16_t p = 0; p < N_PORTS; p++)
		while ((k = rte_ring_dequeue_burst(H.tx[p], (void **)m, 64, NULL)) > 0)
			for (unsigned i = 0; i < k; i++) {
				sent[p]++;
				check_sent(m[i], n);
				rte_pktmbuf_free(m[i]);
			}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct rs_params params = {
		.prog = "fuzz_switch", .file_prefix = "aif-fuzz-switch", .tag = "fz",
		.n_ports = N_PORTS, .ring_size = 1024, .pool_size = 8191, .pool_cache = 0,
		.config = config,
	};

	(void)argc;
	(void)argv;
	say = getenv("FUZZ_SWITCH_SAY") != NULL;
	if (rs_setup(&H, &params) != 0) {
		fprintf(stderr, "fuzz_switch: no switch\n");
		exit(2);
	}
	test_eal_rmdir_at_exit();
	lsan_dpdk_roots();
	char err[AIF_ERR_MAX];
	if (aif_ctl_bfd_start(&H.ctl, err, sizeof(err)) != 0 || H.ctl.bfd == NULL) {
		fprintf(stderr, "fuzz_switch: no BFD session: %s\n", err);
		exit(2);
	}
	aif_ctl_bfd_poll(&H.ctl);
	rs_step(&H, 1000);
	drain(0);
	pool_base = rte_mempool_in_use_count(H.pool);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size - 1 > FRAME_MAX)
		return 0;
	memset(sent, 0, sizeof(sent));
	struct rte_mbuf *m = rte_pktmbuf_alloc(H.pool);
	if (m == NULL)
		finding("the pool is empty", size);
	char *d = rte_pktmbuf_append(m, (uint16_t)(size - 1));
	if (d == NULL)
		finding("no room in an mbuf", size);
	memcpy(d, data + 1, size - 1);
	if (rte_ring_enqueue(H.rx[data[0] % N_PORTS], m) != 0)
		finding("the RX ring is full", size);
	rs_step(&H, 1000);
	rs_step(&H, 1000);
	/* what p1's BFD session heard, and what it sends (the runner's step
	 * puts it out) */
	aif_ctl_bfd_poll(&H.ctl);
	rs_step(&H, 1000);
	drain(size);
	/* pauses run out, queues empty */
	rs_step(&H, 2 * AIF_NS_PER_MS);
	rs_step(&H, 1000);
	drain(size);
	if (rte_mempool_in_use_count(H.pool) != pool_base)
		finding("a frame kept", size);
	if (say)
		fprintf(stderr, "fuzz_switch: in on p%u, sent p0 %u p1 %u p2 %u p3 %u\n",
			data[0] % N_PORTS, sent[0], sent[1], sent[2], sent[3]);
	return 0;
}
