/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of the lossless QoS path (dataplane/qos.h, pipelines/egress.c):
 * one whole switch ("leaf0", four 100G ports) run in virtual time.
 *
 * Harness (tests/pipeline/ring_switch.c, shared with test_pipeline.c): EAL
 * once for the group (--no-huge, no PCI, a private file prefix); each switch
 * port is a ring-backed ethdev (rte_eth_from_rings, net_ring_qs0..3): the
 * test enqueues into a port's RX ring what arrives at the switch and
 * dequeues from its TX ring what the switch sent; configs go in through the
 * control socket's line handler
 * ({"cmd":"load",...}), and worker 0 polls every port.  Time is the
 * control's virtual clock, advanced by 100 ns or 1 us before each
 * aif_runner_step(); no test sleeps.
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
 */
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

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "counters.h"
#include "ctl_server.h"
#include "drop.h"
#include "egress.h"
#include "mmu.h"
#include "pfc.h"
#include "pfcwd.h"
#include "pkt.h"
#include "qos.h"
#include "sched.h"
#include "switch.h"
#include "tables.h"
#include "runner.h"

#include "ring_switch.h"

#define N_PORTS 4
#define RING_SIZE 4096      /* per RX/TX ring of a test port */
#define POOL_SIZE 8191
#define POOL_CACHE 64
#define FRAME_LEN 1000      /* data frames, without the FCS */
#define SPEED_BPS 100000000000ull
#define SHAPER_BPS 10000000000ull
#define NS_100 100
#define US AIF_NS_PER_US
#define MS AIF_NS_PER_MS
#define PRIO 3              /* the lossless priority (DSCP 26 -> TC 3) */

/* ---------------------------------------------------------------- */
/* Addresses                                                         */

static const uint8_t mac_port[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 },
	{ 0x02, 0, 0, 0, 0, 0x12 }, { 0x02, 0, 0, 0, 0, 0x13 },
};
static const uint8_t mac_host[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0x01, 0x00 }, { 0x02, 0, 0, 0, 0x01, 0x01 },
	{ 0x02, 0, 0, 0, 0x01, 0x02 }, { 0x02, 0, 0, 0, 0x01, 0x03 },
};
static const uint8_t mac_pfc[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/* ---------------------------------------------------------------- */
/* Harness state                                                     */

static struct rs_harness H;

/* Square root of x >= 0 by Newton's method (no libm in this link). */
static double
sqrt_pos(double x)
{
	double r = x > 1 ? x : 1;

	for (unsigned i = 0; i < 64; i++)
		r = 0.5 * (r + x / r);
	return r;
}

/* quanta * 512 bit times at speed_bps, rounded up to a whole ns. */
static aif_time_ns
pause_ns(uint16_t quanta, uint64_t speed_bps)
{
	return ((uint64_t)quanta * 512u * 1000000000ull + speed_bps - 1) / speed_bps;
}

/* ---------------------------------------------------------------- */
/* Frames                                                            */

/*
 * Ethernet / IPv4 (dscp, ecn) / UDP 4791 / BTH / payload, FRAME_LEN bytes,
 * from the neighbour of port in to the neighbour of port out.  The BTH
 * opcode is a CNP (0x81) for DSCP 48, else RC SEND Only; the sequence
 * number rides in the PSN and the first payload word.
 */
static uint16_t
build_data(uint8_t *f, uint16_t in, uint16_t out, uint8_t dscp, uint8_t ecn,
	   uint32_t seq)
{
	uint8_t *ip = f + ETH_HLEN, *udp = ip + IP4_HLEN, *bth = udp + UDP_HLEN;
	uint16_t udp_len = FRAME_LEN - ETH_HLEN - IP4_HLEN;

	memset(f, 0, FRAME_LEN);
	memcpy(f, mac_port[in], 6);
	memcpy(f + 6, mac_host[in], 6);
	put16(f + 12, AIF_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | (ecn & 3));
	put16(ip + 2, FRAME_LEN - ETH_HLEN);
	put16(ip + 4, (uint16_t)seq);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, (10u << 24) | ((uint32_t)in << 8) | 2);
	put32(ip + 16, (10u << 24) | ((uint32_t)out << 8) | 2);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	put16(udp, (uint16_t)(0xc000 | in));
	put16(udp + 2, AIF_UDP_PORT_ROCEV2);
	put16(udp + 4, udp_len);
	bth[0] = dscp == 48 ? 0x81 : 0x04;
	bth[1] = 0x40;
	put16(bth + 2, 0xffff);
	put32(bth + 4, 0x100u + in);
	put32(bth + 8, 0x80000000u | (seq & 0xffffff));
	put32(bth + AIF_BTH_LEN, seq);
	bth[AIF_BTH_LEN + 4] = (uint8_t)in;
	for (unsigned i = AIF_BTH_LEN + 5; i < (unsigned)udp_len - UDP_HLEN; i++)
		bth[i] = (uint8_t)(i * 7 + seq);
	return FRAME_LEN;
}

/*
 * A PFC frame as a peer sends it (built here, not by dataplane/pfc.c):
 * dst 01:80:C2:00:00:01, src the peer, 0x8808, opcode 0x0101, class vector
 * `vector`, time `quanta` for every class in the vector, padded to 60.
 */
static uint16_t
build_pfc(uint8_t *f, const uint8_t *src, uint8_t vector, uint16_t quanta)
{
	memset(f, 0, 60);
	memcpy(f, mac_pfc, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, AIF_ETHERTYPE_MAC_CTRL);
	put16(f + 14, 0x0101);
	put16(f + 16, vector);
	for (unsigned p = 0; p < 8; p++)
		if (vector & (1u << p))
			put16(f + 18 + 2 * p, quanta);
	return 60;
}

/* 802.3x PAUSE: opcode 0x0001, one time. */
static uint16_t
build_pause(uint8_t *f, const uint8_t *src, uint16_t quanta)
{
	memset(f, 0, 60);
	memcpy(f, mac_pfc, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, AIF_ETHERTYPE_MAC_CTRL);
	put16(f + 14, 0x0001);
	put16(f + 16, quanta);
	return 60;
}

/* What a routed data frame out of port out carried. */
struct out_pkt {
	uint16_t in;
	uint32_t seq;
	uint8_t dscp;
	uint8_t ecn;
};

/*
 * Check a data frame the switch sent on port out (rewritten for the
 * neighbour, TTL 63, valid IPv4 checksum, payload intact) and return what
 * it carried.
 */
static struct out_pkt
parse_out(const struct rte_mbuf *m, uint16_t out)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + ETH_HLEN, *bth = ip + IP4_HLEN + UDP_HLEN;
	struct out_pkt o;

	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), FRAME_LEN);
	assert_memory_equal(f, mac_host[out], 6);
	assert_memory_equal(f + 6, mac_port[out], 6);
	assert_int_equal(get16(f + 12), AIF_ETHERTYPE_IPV4);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[8], 63);
	if (sum16(0, ip, IP4_HLEN) != 0xffff)
		fail_msg("IPv4 header checksum invalid (sum %#x)", sum16(0, ip, IP4_HLEN));
	assert_int_equal(get32(ip + 16), (10u << 24) | ((uint32_t)out << 8) | 2);
	o.in = ip[14];
	o.seq = get32(bth + AIF_BTH_LEN);
	o.dscp = ip[1] >> 2;
	o.ecn = ip[1] & 3;
	assert_int_equal(bth[AIF_BTH_LEN + 4], o.in);
	assert_int_equal(get32(ip + 12), (10u << 24) | ((uint32_t)o.in << 8) | 2);
	assert_int_equal(get16(ip + 4), (uint16_t)o.seq);
	assert_int_equal(get32(bth + 8) & 0xffffff, o.seq & 0xffffff);
	return o;
}

/*
 * Check a PFC frame the switch sent out of port p, byte by byte: dst
 * 01:80:C2:00:00:01, src the port MAC, 0x8808, opcode 0x0101, class vector
 * 0x0008, priority 3's time and nothing else, zero padding, 60 bytes.  The
 * project's parser must agree.  Returns the time of priority 3.
 */
static uint16_t
check_pfc_out(const struct rte_mbuf *m, uint16_t p)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct aif_pfc_rx parsed;

	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), AIF_PFC_FRAME_LEN);
	assert_memory_equal(f, mac_pfc, 6);
	assert_memory_equal(f + 6, mac_port[p], 6);
	assert_int_equal(get16(f + 12), 0x8808);
	assert_int_equal(get16(f + 14), 0x0101);
	assert_int_equal(get16(f + 16), 1u << PRIO);
	for (unsigned k = 0; k < 8; k++)
		if (k != PRIO)
			assert_int_equal(get16(f + 18 + 2 * k), 0);
	for (unsigned i = 34; i < 60; i++)
		assert_int_equal(f[i], 0);
	assert_int_equal(aif_pfc_frame_parse(f, AIF_PFC_FRAME_LEN, &parsed), 0);
	assert_int_equal(parsed.kind, AIF_PFC_KIND_PFC);
	assert_int_equal(parsed.class_enable, 1u << PRIO);
	assert_true(parsed.dst_reserved);
	assert_int_equal(parsed.quanta[PRIO], get16(f + 18 + 2 * PRIO));
	return get16(f + 18 + 2 * PRIO);
}

/* ---------------------------------------------------------------- */
/* Running the switch                                                */

static aif_time_ns
now_ns(void)
{
	return rs_now(&H);
}

static void
step(aif_time_ns dt_ns)
{
	rs_step(&H, dt_ns);
}

static struct aif_qos *
qos(void)
{
	assert_non_null(H.sw->qos);
	return H.sw->qos;
}

static void
inject_frame(uint16_t port, const uint8_t *f, uint16_t len)
{
	rs_inject(&H, port, f, len);
}

static void
inject_data(uint16_t in, uint16_t out, uint8_t dscp, uint8_t ecn, uint32_t seq)
{
	uint8_t f[FRAME_LEN];
	inject_frame(in, f, build_data(f, in, out, dscp, ecn, seq));
}

/* Data frames sent on port out since the last call (up to max), parsed and
 * freed; the ring is left empty. */
static unsigned
take_out(uint16_t out, struct out_pkt *o, unsigned max)
{
	struct rte_mbuf *m[64];
	unsigned n, total = 0;

	while ((n = rte_ring_dequeue_burst(H.tx[out], (void **)m, 64, NULL)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			if (total >= max)
				fail_msg("more than %u frames on p%u", max, out);
			o[total++] = parse_out(m[i], out);
		}
		rs_free_all(m, n);
	}
	return total;
}

static void
assert_tx_empty(uint16_t port)
{
	if (rte_ring_count(H.tx[port]) != 0)
		fail_msg("p%u sent %u unexpected frame(s)", port, rte_ring_count(H.tx[port]));
}

/* Every ring empty, every queue and buffer empty, every mbuf back. */
static void
assert_clean(void)
{
	const struct aif_qos *q = qos();

	for (uint16_t p = 0; p < N_PORTS; p++) {
		assert_int_equal(rte_ring_count(H.rx[p]), 0);
		assert_tx_empty(p);
		assert_int_equal(H.w->sh->tx[p].n, 0);
		for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
			assert_int_equal(aif_sched_qlen_pkts(&q->port[p].sched, k), 0);
	}
	assert_int_equal(q->mmu.used_bytes, 0);
	assert_int_equal(rte_mempool_in_use_count(H.pool), H.pool_base);
}

/* ---------------------------------------------------------------- */
/* Counters                                                          */

static void
snap_take(struct rs_snap *s)
{
	rs_snap_take(&H, s);
}

static struct aif_port_ctr
delta(const struct rs_snap *before, uint16_t port)
{
	return rs_delta(&H, before, port);
}

/* Drops of reason r on port since the snapshot. */
static uint64_t
drops_of(const struct rs_snap *before, uint16_t port, enum aif_drop_reason r)
{
	return delta(before, port).drops[r];
}

/* Since the snapshot: no drop of a reason outside `allowed` (bit per reason)
 * on any port, and none at all on ports outside `ports` (bit per port).
 * Returns the sum of the allowed drops. */
static uint64_t
assert_drops_within(const struct rs_snap *before, uint32_t ports, uint64_t allowed)
{
	uint64_t sum = 0;

	for (uint16_t p = 0; p < N_PORTS; p++) {
		struct aif_port_ctr d = delta(before, p);
		for (unsigned k = 0; k < AIF_DROP_MAX; k++) {
			bool ok = ((ports >> p) & 1) && ((allowed >> k) & 1);
			if (d.drops[k] != 0 && !ok)
				fail_msg("port p%u: %llu unexpected %s drop(s)", p,
					 (unsigned long long)d.drops[k], aif_drop_name(k));
			sum += d.drops[k];
		}
	}
	return sum;
}

static void
assert_no_drops(const struct rs_snap *before)
{
	assert_drops_within(before, 0, 0);
}

/* ---------------------------------------------------------------- */
/* Control                                                           */

/*
 * The config: four 100G ports, pN = 10.0.N.1/24 and fd00:N::1/64 with the
 * static neighbour 10.0.N.2 and fd00:N::2 (one MAC); `qos` is the body of the default policy's "qos" object (NULL:
 * no "qos", the defaults); port `shaped` (or none if >= N_PORTS) gets
 * "shaper_gbps": 10.
 */
static char *
config_text(const char *qos_body, uint16_t shaped)
{
	size_t n = 8192;
	char *s = malloc(n);
	int len;

	assert_non_null(s);
	if (qos_body != NULL)
		len = snprintf(s, n, "{\"policies\": {\"default\": {\"qos\": {%s}}},", qos_body);
	else
		len = snprintf(s, n, "{");
	len += snprintf(s + len, n - (size_t)len,
			"\"switches\": [{\"name\": \"leaf0\", \"ports\": [");
	for (uint16_t p = 0; p < N_PORTS; p++)
		len += snprintf(s + len, n - (size_t)len,
				"%s{\"name\": \"p%u\", \"device\": \"net_ring_qs%u\","
				" \"mac\": \"02:00:00:00:00:1%u\", \"speed_gbps\": 100,%s"
				" \"addresses\": [\"10.0.%u.1/24\", \"fd00:%u::1/64\"]}",
				p ? ", " : "", p, p, p,
				p == shaped ? " \"shaper_gbps\": 10," : "", p, p);
	len += snprintf(s + len, n - (size_t)len, "], \"neighbors\": [");
	for (uint16_t p = 0; p < N_PORTS; p++)
		len += snprintf(s + len, n - (size_t)len,
				"%s{\"ip\": \"10.0.%u.2\", \"mac\": \"02:00:00:00:01:0%u\","
				" \"port\": \"p%u\"}, {\"ip\": \"fd00:%u::2\","
				" \"mac\": \"02:00:00:00:01:0%u\", \"port\": \"p%u\"}",
				p ? ", " : "", p, p, p, p, p, p);
	len += snprintf(s + len, n - (size_t)len, "]}]}");
	assert_true(len > 0 && (size_t)len < n);
	return s;
}

/* Load a config and step once so that worker 0 adopts it. */
static void
load(const char *qos_body, uint16_t shaped)
{
	char err[AIF_ERR_MAX] = "";
	char *text = config_text(qos_body, shaped);
	bool ok = rs_load(&H, text, err, sizeof(err));
	free(text);
	if (!ok)
		fail_msg("load rejected: %s", err);
	step(US);
	assert_int_equal(qos()->generation, H.sw->tables->generation);
	assert_true(qos()->cfg.enable);
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
	char *text = config_text(NULL, N_PORTS);
	const struct rs_params params = {
		.prog = "test_qos", .file_prefix = "aif-qos", .tag = "qs",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = text,
	};
	int rc;

	(void)state;
	rc = rs_setup(&H, &params);
	free(text);
	if (rc != 0)
		return -1;
	if (H.sw->qos == NULL) {
		fprintf(stderr, "no QoS state after a default config\n");
		rs_teardown(&H);
		return -1;
	}
	return 0;
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
/* 1. PFC and PAUSE reception                                        */

/*
 * Lossless DSCP 26 (queue 3) and best-effort DSCP 0 (queue 0) from p0 to p1,
 * one frame of each every microsecond, p1 unshaped: both leave in the step
 * they arrive unless paused.  State kept over the steps of one test.
 */
struct rx_run {
	uint32_t seq[2];          /* next seq sent: [0] DSCP 0, [1] DSCP 26 */
	uint32_t got[2];          /* next seq expected out */
	unsigned out_last_step[2];
	uint64_t steps;
};

static const uint8_t rx_dscp[2] = { 0, 26 };

/* One 100 ns step; every tenth step first injects one frame of each class. */
static void
rx_step(struct rx_run *r)
{
	struct out_pkt o[64];

	if (r->steps++ % 10 == 0)
		for (unsigned c = 0; c < 2; c++)
			inject_data(0, 1, rx_dscp[c], AIF_ECN_ECT0, r->seq[c]++);
	step(NS_100);
	r->out_last_step[0] = r->out_last_step[1] = 0;
	unsigned n = take_out(1, o, 64);
	for (unsigned i = 0; i < n; i++) {
		unsigned c = o[i].dscp == 26;
		assert_int_equal(o[i].dscp, rx_dscp[c]);
		assert_int_equal(o[i].in, 0);
		assert_int_equal(o[i].seq, r->got[c]); /* in order, none lost */
		r->got[c]++;
		r->out_last_step[c]++;
	}
	for (uint16_t p = 0; p < N_PORTS; p++)
		if (p != 1)
			assert_tx_empty(p);
}

/* Steps until class c has sent something (at most max_steps); returns the
 * time of that step. */
static aif_time_ns
rx_until_out(struct rx_run *r, unsigned c, unsigned max_steps)
{
	for (unsigned i = 0; i < max_steps; i++) {
		rx_step(r);
		if (r->out_last_step[c])
			return now_ns();
	}
	fail_msg("class DSCP %u never resumed", rx_dscp[c]);
	return 0;
}

static void
test_pfc_reception(void **state)
{
	const uint16_t Q = 1234; /* 1234 * 5.12 ns = 6318.08 ns at 100G */
	const aif_time_ns d_pfc = pause_ns(Q, SPEED_BPS);
	const aif_time_ns d_pause = pause_ns(1000, SPEED_BPS); /* 5120 ns */
	struct rx_run r = { 0 };
	struct rs_snap before;
	uint8_t f[60];

	(void)state;
	assert_int_equal(d_pfc, 6319);
	assert_int_equal(d_pause, 5120);
	load(NULL, N_PORTS);
	struct aif_pfc_rx_ctr rx0 = qos()->port[1].pfc_rx.ctr;
	aif_pfc_rx_sync(&qos()->port[1].pfc_rx, now_ns());
	uint64_t paused0 = qos()->port[1].pfc_rx.pause_ns_total[PRIO];
	snap_take(&before);

	/* both classes flow */
	for (unsigned i = 0; i < 50; i++)
		rx_step(&r);
	assert_int_equal(r.got[0], r.seq[0]);
	assert_int_equal(r.got[1], r.seq[1]);

	/* PFC XOFF for priority 3, Q quanta, received at T0 */
	inject_frame(1, f, build_pfc(f, mac_host[1], 1u << PRIO, Q));
	rx_step(&r);
	aif_time_ns t0 = now_ns();
	uint32_t q0_at_t0 = r.got[0];
	assert_int_equal(r.out_last_step[1], 0);
	assert_int_not_equal(qos()->port[1].pfc_rx.paused_until_ns[PRIO], 0);
	aif_time_ns t_resume = rx_until_out(&r, 1, 200);
	/* queue 0 kept flowing: everything it was sent went out */
	assert_int_equal(r.got[0], r.seq[0]);
	assert_true(r.got[0] - q0_at_t0 >= 6);
	/* queue 3 held exactly d_pfc: resumed at the first step at or after */
	printf("# PFC Q=%u at 100G: queue 3 paused %llu ns, expected %llu ns (step %u ns)\n",
	       Q, (unsigned long long)(t_resume - t0), (unsigned long long)d_pfc, NS_100);
	assert_true(t_resume - t0 >= d_pfc);
	assert_true(t_resume - t0 < d_pfc + NS_100);
	assert_int_equal(r.got[1], r.seq[1]); /* the backlog left at once */

	/* XOFF 0xFFFF, then XON: queue 3 resumes in the XON's step */
	inject_frame(1, f, build_pfc(f, mac_host[1], 1u << PRIO, 0xffff));
	rx_step(&r);
	aif_time_ns t1 = now_ns();
	for (unsigned i = 0; i < 30; i++) {
		rx_step(&r);
		assert_int_equal(r.out_last_step[1], 0);
	}
	assert_true(r.seq[1] - r.got[1] >= 3);
	inject_frame(1, f, build_pfc(f, mac_host[1], 1u << PRIO, 0));
	rx_step(&r);
	aif_time_ns t_xon = now_ns();
	assert_int_not_equal(r.out_last_step[1], 0);
	assert_int_equal(r.got[1], r.seq[1]);
	assert_int_equal(r.got[0], r.seq[0]);
	printf("# XON after %llu ns of a 0xFFFF pause: queue 3 resumed in the same step\n",
	       (unsigned long long)(t_xon - t1));

	/* the time spent paused is exact */
	aif_pfc_rx_sync(&qos()->port[1].pfc_rx, now_ns());
	assert_int_equal(qos()->port[1].pfc_rx.pause_ns_total[PRIO] - paused0,
			 d_pfc + (t_xon - t1));

	/* PFC for priority 0 only: queue 0 stops, queue 3 flows */
	for (unsigned i = 0; i < 10; i++)
		rx_step(&r);
	inject_frame(1, f, build_pfc(f, mac_host[1], 1u << 0, 1000));
	rx_step(&r);
	aif_time_ns t2 = now_ns();
	assert_int_equal(r.out_last_step[0], 0);
	uint32_t q3_at_t2 = r.got[1];
	aif_time_ns t_q0 = rx_until_out(&r, 0, 200);
	assert_true(t_q0 - t2 >= d_pause && t_q0 - t2 < d_pause + NS_100);
	assert_true(r.got[1] - q3_at_t2 >= 4); /* queue 3 kept flowing */

	/* 802.3x PAUSE: every queue stops for the time, then both resume */
	for (unsigned i = 0; i < 10; i++)
		rx_step(&r);
	inject_frame(1, f, build_pause(f, mac_host[1], 1000));
	rx_step(&r);
	aif_time_ns t3 = now_ns();
	assert_int_equal(r.out_last_step[0] + r.out_last_step[1], 0);
	aif_time_ns t_all = 0;
	for (unsigned i = 0; i < 200 && t_all == 0; i++) {
		rx_step(&r);
		if (r.out_last_step[0] || r.out_last_step[1]) {
			t_all = now_ns();
			assert_true(r.out_last_step[0] && r.out_last_step[1]);
		}
	}
	printf("# PAUSE 1000 quanta: all queues paused %llu ns, expected %llu ns\n",
	       (unsigned long long)(t_all - t3), (unsigned long long)d_pause);
	assert_true(t_all - t3 >= d_pause && t_all - t3 < d_pause + NS_100);
	for (unsigned i = 0; i < 20; i++)
		rx_step(&r);
	assert_int_equal(r.got[0], r.seq[0]);
	assert_int_equal(r.got[1], r.seq[1]);

	/* counted as PFC reception, never forwarded, never a drop */
	const struct aif_pfc_rx_ctr *rx = &qos()->port[1].pfc_rx.ctr;
	assert_int_equal(rx->rx_pfc[PRIO] - rx0.rx_pfc[PRIO], 2);
	assert_int_equal(rx->rx_xon[PRIO] - rx0.rx_xon[PRIO], 1);
	assert_int_equal(rx->rx_pfc[0] - rx0.rx_pfc[0], 1);
	assert_int_equal(rx->rx_xon[0] - rx0.rx_xon[0], 0);
	assert_int_equal(rx->rx_pause - rx0.rx_pause, 1);
	assert_int_equal(aif_pfc_rx_err_total(rx) - aif_pfc_rx_err_total(&rx0), 0);
	assert_int_equal(rx->rx_pause_port_mac - rx0.rx_pause_port_mac, 0);
	for (unsigned k = 0; k < 8; k++)
		if (k != 0 && k != PRIO)
			assert_int_equal(rx->rx_pfc[k] - rx0.rx_pfc[k], 0);
	assert_no_drops(&before);
	assert_int_equal(delta(&before, 1).rx_packets, 5);
	assert_int_equal(delta(&before, 1).tx_packets, r.seq[0] + r.seq[1]);
	assert_int_equal(delta(&before, 0).rx_packets, r.seq[0] + r.seq[1]);
	assert_clean();
}

/*
 * PFC and PAUSE frames addressed where their standard does not allow
 * (PFC: anything but 01:80:C2:00:00:01; PAUSE: anything but that or the
 * port's own MAC) arrive at p1 while both classes flow p0 -> p1: neither
 * class stops for a single step; each frame is dropped as `malformed` on p1
 * and counted as bad_destination in p1's PFC receive errors.  Then a PAUSE
 * to the port's own MAC does pause every queue, as 802.3x allows.
 */
static void
test_pfc_bad_destination(void **state)
{
	static const struct {
		const char *name;
		bool pause;
		uint8_t dst[6];
	} bad[] = {
		{ "PFC to 01:80:c2:00:00:02", false, { 0x01, 0x80, 0xc2, 0, 0, 0x02 } },
		{ "PFC to a foreign unicast MAC", false, { 0x02, 0, 0, 0, 0x99, 0x99 } },
		{ "PFC to a multicast group", false, { 0x01, 0x00, 0x5e, 0, 0, 0x01 } },
		{ "PFC to the port MAC", false, { 0x02, 0, 0, 0, 0, 0x11 } },
		{ "PAUSE to a foreign unicast MAC", true, { 0x02, 0, 0, 0, 0x99, 0x99 } },
		{ "PAUSE to 01:80:c2:00:00:02", true, { 0x01, 0x80, 0xc2, 0, 0, 0x02 } },
		{ "PAUSE to broadcast", true, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	};
	const unsigned n_bad = sizeof(bad) / sizeof(bad[0]);
	const unsigned bad_dst = -AIF_PFC_E_BAD_DST - 1;
	const aif_time_ns d_pause = pause_ns(1000, SPEED_BPS); /* 5120 ns */
	struct rx_run r = { 0 };
	struct rs_snap before;
	uint8_t f[60];

	(void)state;
	load(NULL, N_PORTS);
	assert_memory_equal(H.sw->tables->ports[1].mac.b, mac_port[1], 6);
	struct aif_pfc_rx_ctr rx0 = qos()->port[1].pfc_rx.ctr;
	snap_take(&before);
	for (unsigned i = 0; i < 20; i++)
		rx_step(&r);

	for (unsigned b = 0; b < n_bad; b++) {
		print_message("# %s: XOFF 0xFFFF\n", bad[b].name);
		if (bad[b].pause)
			build_pause(f, mac_host[1], 0xffff);
		else
			build_pfc(f, mac_host[1], 1u << PRIO, 0xffff);
		memcpy(f, bad[b].dst, 6);
		inject_frame(1, f, 60);
		/* every frame of both classes leaves in the step it arrives */
		for (unsigned i = 0; i < 30; i++) {
			rx_step(&r);
			assert_int_equal(r.got[0], r.seq[0]);
			assert_int_equal(r.got[1], r.seq[1]);
		}
		assert_int_equal(aif_pfc_rx_paused_mask(&qos()->port[1].pfc_rx, now_ns()), 0);
	}
	const struct aif_pfc_rx_ctr *rx = &qos()->port[1].pfc_rx.ctr;
	printf("# %u badly addressed PFC/PAUSE frames: queues never paused, p1 drops"
	       " malformed %llu, PFC rx bad_destination %llu\n", n_bad,
	       (unsigned long long)drops_of(&before, 1, AIF_DROP_MALFORMED),
	       (unsigned long long)(rx->rx_err[bad_dst] - rx0.rx_err[bad_dst]));
	assert_int_equal(rx->rx_err[bad_dst] - rx0.rx_err[bad_dst], n_bad);
	assert_int_equal(aif_pfc_rx_err_total(rx) - aif_pfc_rx_err_total(&rx0), n_bad);
	assert_int_equal(rx->rx_pfc[PRIO] - rx0.rx_pfc[PRIO], 0);
	assert_int_equal(rx->rx_pause - rx0.rx_pause, 0);
	assert_int_equal(drops_of(&before, 1, AIF_DROP_MALFORMED), n_bad);

	/* PAUSE to the port's own MAC is valid: every queue stops for its time */
	for (unsigned i = 0; i < 10; i++)
		rx_step(&r);
	build_pause(f, mac_host[1], 1000);
	memcpy(f, mac_port[1], 6);
	inject_frame(1, f, 60);
	rx_step(&r);
	aif_time_ns t0 = now_ns();
	assert_int_equal(r.out_last_step[0] + r.out_last_step[1], 0);
	aif_time_ns t_all = 0;
	for (unsigned i = 0; i < 200 && t_all == 0; i++) {
		rx_step(&r);
		if (r.out_last_step[0] || r.out_last_step[1])
			t_all = now_ns();
	}
	assert_true(t_all - t0 >= d_pause && t_all - t0 < d_pause + NS_100);
	for (unsigned i = 0; i < 20; i++)
		rx_step(&r);
	assert_int_equal(r.got[0], r.seq[0]);
	assert_int_equal(r.got[1], r.seq[1]);
	assert_int_equal(rx->rx_pause - rx0.rx_pause, 1);
	assert_int_equal(rx->rx_pause_port_mac - rx0.rx_pause_port_mac, 1);
	assert_int_equal(rx->rx_err[bad_dst] - rx0.rx_err[bad_dst], n_bad);

	assert_drops_within(&before, 1u << 1, 1ull << AIF_DROP_MALFORMED);
	assert_int_equal(delta(&before, 1).rx_packets, n_bad + 1);
	assert_int_equal(delta(&before, 1).tx_packets, r.seq[0] + r.seq[1]);
	assert_clean();
}

/* One control request through the socket's line handler; the reply's
 * result (asserting "ok"). */
static json_t *
ctl_result(const char *line)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &H.ctl);
	assert_non_null(reply);
	json_t *j = json_loads(reply, 0, NULL);
	free(reply);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_t *r = json_incref(json_object_get(j, "result"));
	json_decref(j);
	assert_non_null(r);
	return r;
}

/* The row of `show_pfc` for port p (borrowed from rows). */
static json_t *
pfc_row(json_t *rows, uint16_t p)
{
	char name[8];
	json_t *row;
	size_t i;

	snprintf(name, sizeof(name), "p%u", p);
	json_array_foreach(rows, i, row)
		if (strcmp(json_string_value(json_object_get(row, "name")), name) == 0)
			return row;
	fail_msg("show_pfc has no row for %s", name);
	return NULL;
}

static uint64_t
jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		fail_msg("show_pfc: %s is not an integer", key);
	return (uint64_t)json_integer_value(v);
}

static uint64_t
jint_at(const json_t *o, const char *key, unsigned k)
{
	const json_t *a = json_object_get(o, key);
	if (!json_is_array(a) || json_array_size(a) != 8)
		fail_msg("show_pfc: %s is not an array of 8", key);
	return (uint64_t)json_integer_value(json_array_get(a, k));
}

/*
 * `show pfc` tells apart XOFF and XON, received and sent, PAUSE (and PAUSE
 * to the port MAC), and the refused MAC control frames in all and by
 * reason: p2 receives a known mix of valid and invalid frames and the reply
 * must carry exactly those counts, and every field must be what the worker
 * counted.
 */
static void
test_show_pfc(void **state)
{
	static const uint8_t slow_proto[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x02 };
	static const uint8_t foreign[6] = { 0x02, 0, 0, 0, 0x99, 0x99 };
	static const uint8_t group[6] = { 0x01, 0x00, 0x5e, 0, 0, 0x01 };
	static const char *const reasons[] = { "truncated", "not_mac_control", "vlan_tagged",
		"unknown_opcode", "class_vector_reserved", "bad_destination" };
	static const uint64_t want_err[] = { 1, 0, 1, 1, 1, 3 };
	struct rs_snap before;
	uint8_t f[64];

	(void)state;
	load(NULL, N_PORTS);
	json_t *r0 = ctl_result("{\"cmd\": \"show_pfc\"}");
	json_t *b = pfc_row(r0, 2);
	snap_take(&before);

	/* valid: XOFF 3, XOFF 0+3, XON 3, PAUSE, PAUSE to the port MAC (time 0) */
	inject_frame(2, f, build_pfc(f, mac_host[2], 1u << PRIO, 100));
	step(US);
	inject_frame(2, f, build_pfc(f, mac_host[2], 1u << PRIO | 1u, 100));
	step(US);
	inject_frame(2, f, build_pfc(f, mac_host[2], 1u << PRIO, 0));
	step(US);
	inject_frame(2, f, build_pause(f, mac_host[2], 10));
	step(US);
	build_pause(f, mac_host[2], 0);
	memcpy(f, mac_port[2], 6);
	inject_frame(2, f, 60);
	step(US);
	/* refused: three bad destinations and one of each format error */
	build_pfc(f, mac_host[2], 1u << PRIO, 0xffff);
	memcpy(f, slow_proto, 6);
	inject_frame(2, f, 60);
	memcpy(f, foreign, 6);
	inject_frame(2, f, 60);
	build_pause(f, mac_host[2], 0xffff);
	memcpy(f, group, 6);
	inject_frame(2, f, 60);
	build_pfc(f, mac_host[2], 1u << PRIO, 0xffff);
	inject_frame(2, f, 20);                         /* truncated */
	build_pfc(f, mac_host[2], 1u << PRIO, 0xffff);
	memmove(f + 16, f + 12, 44);                    /* tagged: VID 10, PCP 3 */
	put16(f + 12, 0x8100);
	put16(f + 14, 0x600a);
	inject_frame(2, f, 64);
	build_pfc(f, mac_host[2], 1u << PRIO, 0xffff);
	put16(f + 14, 0x0002);                          /* unknown opcode */
	inject_frame(2, f, 60);
	build_pfc(f, mac_host[2], 1u << PRIO, 0xffff);
	f[16] = 0x01;                                   /* reserved vector bit */
	inject_frame(2, f, 60);
	step(US);
	assert_int_equal(aif_pfc_rx_paused_mask(&qos()->port[2].pfc_rx, now_ns()), 0);

	json_t *r1 = ctl_result("{\"cmd\": \"show_pfc\"}");
	json_t *a = pfc_row(r1, 2);
	assert_int_equal(json_array_size(r1), N_PORTS);
	for (unsigned k = 0; k < 8; k++) {
		assert_int_equal(jint_at(a, "rx_pfc", k) - jint_at(b, "rx_pfc", k),
				 k == PRIO ? 2 : k == 0 ? 1 : 0);
		assert_int_equal(jint_at(a, "rx_xon", k) - jint_at(b, "rx_xon", k),
				 k == PRIO ? 1 : 0);
	}
	assert_int_equal(jint(a, "rx_pause") - jint(b, "rx_pause"), 2);
	assert_int_equal(jint(a, "rx_pause_port_mac") - jint(b, "rx_pause_port_mac"), 1);
	assert_int_equal(jint(a, "rx_malformed") - jint(b, "rx_malformed"), 7);
	const json_t *ea = json_object_get(a, "rx_errors"), *eb = json_object_get(b, "rx_errors");
	assert_int_equal(json_object_size(ea), AIF_PFC_RX_ERR_N);
	printf("# show_pfc p2: rx_pfc[3] +%llu, rx_xon[3] +%llu, rx_pause +%llu (port MAC +%llu),"
	       " rx_malformed +%llu:", (unsigned long long)(jint_at(a, "rx_pfc", 3) - jint_at(b, "rx_pfc", 3)),
	       (unsigned long long)(jint_at(a, "rx_xon", 3) - jint_at(b, "rx_xon", 3)),
	       (unsigned long long)(jint(a, "rx_pause") - jint(b, "rx_pause")),
	       (unsigned long long)(jint(a, "rx_pause_port_mac") - jint(b, "rx_pause_port_mac")),
	       (unsigned long long)(jint(a, "rx_malformed") - jint(b, "rx_malformed")));
	for (unsigned i = 0; i < AIF_PFC_RX_ERR_N; i++) {
		assert_int_equal(jint(ea, reasons[i]) - jint(eb, reasons[i]), want_err[i]);
		printf(" %s +%llu", reasons[i],
		       (unsigned long long)(jint(ea, reasons[i]) - jint(eb, reasons[i])));
	}
	printf("\n");
	assert_int_equal(drops_of(&before, 2, AIF_DROP_MALFORMED), 7);
	assert_drops_within(&before, 1u << 2, 1ull << AIF_DROP_MALFORMED);

	/* every field is what the worker counted, on every port */
	for (uint16_t p = 0; p < N_PORTS; p++) {
		const struct aif_qos_port *qp = &qos()->port[p];
		json_t *row = pfc_row(r1, p);
		for (unsigned k = 0; k < 8; k++) {
			assert_int_equal(jint_at(row, "rx_pfc", k), qp->pfc_rx.ctr.rx_pfc[k]);
			assert_int_equal(jint_at(row, "rx_xon", k), qp->pfc_rx.ctr.rx_xon[k]);
			assert_int_equal(jint_at(row, "tx_pfc", k), qp->pfc_tx.ctr.tx_pfc[k]);
			assert_int_equal(jint_at(row, "tx_xon", k), qp->pfc_tx.ctr.tx_xon[k]);
		}
		assert_int_equal(jint(row, "rx_pause"), qp->pfc_rx.ctr.rx_pause);
		assert_int_equal(jint(row, "rx_pause_port_mac"), qp->pfc_rx.ctr.rx_pause_port_mac);
		assert_int_equal(jint(row, "rx_malformed"), aif_pfc_rx_err_total(&qp->pfc_rx.ctr));
		for (unsigned i = 0; i < AIF_PFC_RX_ERR_N; i++)
			assert_int_equal(jint(json_object_get(row, "rx_errors"), reasons[i]),
					 qp->pfc_rx.ctr.rx_err[i]);
		assert_int_equal(jint(row, "tx_frames"), qp->pfc_tx.ctr.tx_frames);
		assert_string_equal(json_string_value(json_object_get(row, "xoff_sent")), "........");
	}
	json_decref(r0);
	json_decref(r1);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 2. Incast: PFC generation, lossless and lossy                     */

#define INCAST_BUDGET 300   /* frames per ingress port */
#define INCAST_PER_US 12    /* 12 * 1024 wire bytes per us: 98 Gb/s */
#define INCAST_QUANTA 4096  /* 20,972 ns at 100G, refresh every 10,486 ns */
#define INCAST_MAX_STEPS 5000

/* An emulated sender behind ingress port p: honours the PFC frames the
 * switch sends it, as a NIC does. */
struct sender {
	uint32_t sent, got;
	aif_time_ns paused_until;
	bool xoff;              /* last frame received was an XOFF */
	aif_time_ns last_xoff_ns;
	unsigned n_xoff, n_refresh, n_xon;
	aif_time_ns first_xoff_ns, last_xon_ns;
	uint32_t first_xoff_shared, first_xoff_hdrm, first_xoff_thr;
};

static void
incast(bool lossless)
{
	static const char qos_lossless[] =
		"\"buffer\": {\"size_bytes\": 2000000}, \"ecn\": {\"queues\": []},"
		" \"pfc\": {\"quanta\": 4096}";
	static const char qos_lossy[] =
		"\"pfc_enable\": [], \"buffer\": {\"size_bytes\": 2000000},"
		" \"ecn\": {\"queues\": []}, \"pfc\": {\"quanta\": 4096}";
	const aif_time_ns d_pause = pause_ns(INCAST_QUANTA, SPEED_BPS);
	const aif_time_ns refresh = d_pause / 2;
	struct sender s[N_PORTS] = { 0 };
	struct aif_pfc_tx_ctr tx0[N_PORTS];
	struct aif_mmu_pg_ctr pg0[N_PORTS];
	struct rs_snap before;
	struct out_pkt o[64];
	uint32_t delivered = 0;
	unsigned steps;

	load(lossless ? qos_lossless : qos_lossy, 0);
	struct aif_qos *q = qos();
	assert_int_equal(q->cfg.pfc_enable, lossless ? 1u << PRIO : 0);
	assert_int_equal(q->cfg.sched[0].rate_bps, SHAPER_BPS);
	assert_int_equal(d_pause, 20972);
	for (uint16_t p = 0; p < N_PORTS; p++) {
		tx0[p] = q->port[p].pfc_tx.ctr;
		pg0[p] = q->mmu.pg_ctr[p][PRIO];
	}
	snap_take(&before);
	const aif_time_ns t_start = now_ns();

	for (steps = 0; steps < INCAST_MAX_STEPS; steps++) {
		aif_time_ns t = now_ns() + US;
		for (uint16_t p = 1; p < N_PORTS; p++)
			for (unsigned k = 0; k < INCAST_PER_US && s[p].sent < INCAST_BUDGET &&
					     t >= s[p].paused_until; k++)
				inject_data(p, 0, 26, AIF_ECN_NOT_ECT, s[p].sent++);
		step(US);
		t = now_ns();

		unsigned n = take_out(0, o, 64);
		for (unsigned i = 0; i < n; i++) {
			assert_true(o[i].in >= 1 && o[i].in < N_PORTS);
			assert_int_equal(o[i].dscp, 26);
			assert_int_equal(o[i].ecn, AIF_ECN_NOT_ECT);
			/* in order per sender; with drops, seqs only increase */
			if (lossless)
				assert_int_equal(o[i].seq, s[o[i].in].got);
			else
				assert_true(o[i].seq >= s[o[i].in].got);
			s[o[i].in].got = o[i].seq + 1;
		}
		delivered += n;

		for (uint16_t p = 1; p < N_PORTS; p++) {
			struct sender *x = &s[p];
			struct rte_mbuf *m[8];
			unsigned nf = rte_ring_dequeue_burst(H.tx[p], (void **)m, 8, NULL);

			if (!lossless)
				assert_int_equal(nf, 0);
			assert_true(nf <= 1); /* at most one PFC frame per step */
			bool sp = aif_mmu_should_pause(&q->mmu, p, PRIO);
			bool sr = aif_mmu_should_resume(&q->mmu, p, PRIO);
			if (nf == 0) {
				/* never late: no XOFF due while XON, no XON due while XOFF */
				if (lossless && !x->xoff)
					assert_false(sp);
				if (lossless && x->xoff)
					assert_false(sr);
				continue;
			}
			uint16_t quanta = check_pfc_out(m[0], p);
			rte_pktmbuf_free(m[0]);
			if (quanta != 0) {
				assert_int_equal(quanta, INCAST_QUANTA);
				if (x->xoff) {
					/* a refresh, on time (to the step) */
					assert_true(t - x->last_xoff_ns >= refresh);
					assert_true(t - x->last_xoff_ns < refresh + US);
					x->n_refresh++;
				} else {
					/* a new XOFF, when the PG crossed the threshold */
					assert_true(sp);
					if (x->n_xoff == 0) {
						const struct aif_mmu_pg *g = aif_mmu_pg_get(&q->mmu, p, PRIO);
						x->first_xoff_ns = t;
						x->first_xoff_shared = g->shared_bytes;
						x->first_xoff_hdrm = g->headroom_bytes;
						x->first_xoff_thr = aif_mmu_threshold_bytes(&q->mmu);
					}
					x->n_xoff++;
				}
				x->xoff = true;
				x->last_xoff_ns = t;
				x->paused_until = t + d_pause;
			} else {
				assert_true(x->xoff); /* XON only after XOFF */
				assert_true(sr);
				x->xoff = false;
				x->n_xon++;
				x->last_xon_ns = t;
				x->paused_until = t;
			}
		}
		bool done = true;
		for (uint16_t p = 1; p < N_PORTS; p++)
			done = done && s[p].sent == INCAST_BUDGET && !s[p].xoff;
		if (done && q->mmu.used_bytes == 0)
			break;
	}
	assert_true(steps < INCAST_MAX_STEPS);
	/* and nothing more comes */
	for (unsigned i = 0; i < 400; i++) {
		step(US);
		for (uint16_t p = 0; p < N_PORTS; p++)
			assert_tx_empty(p);
	}

	uint64_t dropped = 0;
	if (lossless) {
		assert_no_drops(&before);
		assert_int_equal(delivered, 3 * INCAST_BUDGET);
	} else {
		dropped = assert_drops_within(&before, 0xe,
					      (1ull << AIF_DROP_BUFFER_LIMIT) |
					      (1ull << AIF_DROP_POOL_FULL) |
					      (1ull << AIF_DROP_EGRESS_LIMIT));
		assert_true(dropped > 0);
		assert_int_equal(delivered + dropped, 3 * INCAST_BUDGET);
	}
	for (uint16_t p = 1; p < N_PORTS; p++) {
		const struct sender *x = &s[p];
		const struct aif_pfc_tx_ctr *tx = &q->port[p].pfc_tx.ctr;
		const struct aif_mmu_pg_ctr *pg = &q->mmu.pg_ctr[p][PRIO];
		uint64_t pdrops = 0;

		for (unsigned k = 0; k < AIF_DROP_MAX; k++)
			pdrops += drops_of(&before, p, (enum aif_drop_reason)k);
		assert_int_equal(pg->packets[AIF_MMU_ADMIT] - pg0[p].packets[AIF_MMU_ADMIT],
				 INCAST_BUDGET - pdrops);
		assert_int_equal(pg->packets[AIF_MMU_DROP_SHARED_LIMIT] -
				 pg0[p].packets[AIF_MMU_DROP_SHARED_LIMIT],
				 drops_of(&before, p, AIF_DROP_BUFFER_LIMIT));
		assert_int_equal(pg->packets[AIF_MMU_DROP_HEADROOM_OVERFLOW] -
				 pg0[p].packets[AIF_MMU_DROP_HEADROOM_OVERFLOW], 0);
		assert_int_equal(tx->tx_frames - tx0[p].tx_frames,
				 x->n_xoff + x->n_refresh + x->n_xon);
		assert_int_equal(tx->tx_pfc[PRIO] - tx0[p].tx_pfc[PRIO],
				 x->n_xoff + x->n_refresh);
		assert_int_equal(tx->tx_xon[PRIO] - tx0[p].tx_xon[PRIO], x->n_xon);
		if (lossless) {
			assert_true(x->n_xoff >= 1);
			assert_true(x->n_refresh >= 1);
			assert_int_equal(x->n_xon, x->n_xoff); /* every XOFF ended */
			assert_int_equal(pg->xoff_events - pg0[p].xoff_events, x->n_xoff);
			assert_int_equal(pg->xon_events - pg0[p].xon_events, x->n_xon);
			assert_int_equal(x->got, INCAST_BUDGET);
			printf("# incast p%u: first XOFF at +%llu ns (PG shared %u B, headroom"
			       " %u B, threshold %u B), %u XOFF episode(s), %u refresh(es),"
			       " last XON at +%llu ns\n", p,
			       (unsigned long long)(x->first_xoff_ns - t_start),
			       x->first_xoff_shared, x->first_xoff_hdrm, x->first_xoff_thr, x->n_xoff,
			       x->n_refresh, (unsigned long long)(x->last_xon_ns -
								   t_start));
		} else {
			assert_int_equal(x->n_xoff + x->n_refresh + x->n_xon, 0);
			assert_true(pdrops > 0);
			printf("# lossy incast p%u: %llu dropped (%llu buffer_shared_limit,"
			       " %llu buffer_pool_full), %u delivered\n", p,
			       (unsigned long long)pdrops,
			       (unsigned long long)drops_of(&before, p, AIF_DROP_BUFFER_LIMIT),
			       (unsigned long long)drops_of(&before, p, AIF_DROP_POOL_FULL),
			       INCAST_BUDGET - (unsigned)pdrops);
		}
	}
	assert_int_equal(q->mmu.shared_used_bytes, 0);
	assert_int_equal(q->mmu.headroom_used_bytes, 0);
	assert_clean();
}

static void
test_incast_lossless(void **state)
{
	(void)state;
	incast(true);
}

static void
test_incast_lossy(void **state)
{
	(void)state;
	incast(false);
}

/*
 * XON at stop: incast from p1..p3 into p0 (shaped to 10G) until every
 * ingress port has sent XOFF for priority 3 and its peer would stay paused;
 * then the switch stops (aif_egress_shutdown, as control/run.c calls it
 * after the workers have stopped).  Each ingress port must send exactly one
 * PFC frame, class-enable bit 3 and time 0 (checked byte by byte), counted
 * as tx_xon; the packets still queued are freed with their buffer charge;
 * a second call sends nothing.
 */
static void
test_xon_at_stop(void **state)
{
	static const char qos_lossless[] =
		"\"buffer\": {\"size_bytes\": 2000000}, \"ecn\": {\"queues\": []},"
		" \"pfc\": {\"quanta\": 4096}";
	struct aif_pfc_tx_ctr tx0[N_PORTS];
	struct aif_egress_stop_info info;
	struct rs_snap before;
	struct out_pkt o[64];
	uint32_t sent[N_PORTS] = { 0 };
	unsigned steps, delivered = 0;

	(void)state;
	load(qos_lossless, 0);
	struct aif_qos *q = qos();
	for (uint16_t p = 0; p < N_PORTS; p++)
		tx0[p] = q->port[p].pfc_tx.ctr;
	snap_take(&before);

	/* senders that ignore PFC (the test only watches what the switch says) */
	uint8_t xoff_seen = 0;
	for (steps = 0; steps < 200 && xoff_seen != 0xe; steps++) {
		for (uint16_t p = 1; p < N_PORTS; p++)
			for (unsigned k = 0; k < INCAST_PER_US; k++)
				inject_data(p, 0, 26, AIF_ECN_NOT_ECT, sent[p]++);
		step(US);
		delivered += take_out(0, o, 64);
		for (uint16_t p = 1; p < N_PORTS; p++) {
			struct rte_mbuf *m[8];
			unsigned nf = rte_ring_dequeue_burst(H.tx[p], (void **)m, 8, NULL);
			for (unsigned i = 0; i < nf; i++) {
				assert_int_equal(check_pfc_out(m[i], p), INCAST_QUANTA);
				xoff_seen |= (uint8_t)(1u << p);
			}
			rs_free_all(m, nf);
		}
	}
	assert_int_equal(xoff_seen, 0xe);
	for (uint16_t p = 1; p < N_PORTS; p++)
		assert_int_equal(q->port[p].pfc_tx.xoff, 1u << PRIO);
	assert_int_equal(q->port[0].pfc_tx.xoff, 0);
	uint64_t queued = aif_sched_qlen_pkts(&q->port[0].sched, PRIO);
	assert_true(queued > 0);
	assert_true(q->mmu.used_bytes > 0);

	/* the stop */
	aif_egress_shutdown(H.sw, H.w->sh, q, now_ns(), &info);
	printf("# stop after %u us of incast: %llu packets queued on p0 discarded, XON on"
	       " %u ports (%u priorities), %u unsent\n", steps, (unsigned long long)queued,
	       info.xon_frames, info.xon_prios, info.xon_unsent);
	assert_int_equal(info.discarded, queued);
	assert_int_equal(info.xon_frames, 3);
	assert_int_equal(info.xon_prios, 3);
	assert_int_equal(info.xon_unsent, 0);
	for (uint16_t p = 1; p < N_PORTS; p++) {
		struct rte_mbuf *m[4];
		unsigned nf = rs_sent(&H, p, m, 4);
		assert_int_equal(nf, 1);
		assert_int_equal(check_pfc_out(m[0], p), 0); /* class 3 enabled, time 0 */
		rs_free_all(m, nf);
		const struct aif_pfc_tx_ctr *tx = &q->port[p].pfc_tx.ctr;
		assert_int_equal(tx->tx_xon[PRIO] - tx0[p].tx_xon[PRIO], 1);
		assert_int_equal(q->port[p].pfc_tx.xoff, 0);
	}
	assert_tx_empty(0);
	assert_int_equal(q->port[0].pfc_tx.ctr.tx_frames, tx0[0].tx_frames);
	/* and `show pfc` says so */
	json_t *rows = ctl_result("{\"cmd\": \"show_pfc\"}");
	for (uint16_t p = 1; p < N_PORTS; p++) {
		json_t *row = pfc_row(rows, p);
		assert_int_equal(jint_at(row, "tx_xon", PRIO), tx0[p].tx_xon[PRIO] + 1);
		assert_int_equal(jint_at(row, "tx_pfc", PRIO), q->port[p].pfc_tx.ctr.tx_pfc[PRIO]);
		assert_true(jint_at(row, "tx_pfc", PRIO) > tx0[p].tx_pfc[PRIO]);
		assert_string_equal(json_string_value(json_object_get(row, "xoff_sent")), "........");
	}
	json_decref(rows);

	/* once only: nothing is left to release */
	aif_egress_shutdown(H.sw, H.w->sh, q, now_ns(), &info);
	assert_int_equal(info.discarded + info.xon_frames + info.xon_prios + info.xon_unsent, 0);
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_tx_empty(p);

	/* lossless to the end: nothing dropped, only discarded at stop */
	assert_no_drops(&before);
	assert_int_equal(delivered + queued, sent[1] + sent[2] + sent[3]);
	for (unsigned i = 0; i < 10; i++)
		step(US);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 3. ECN marking and WRED through the pipeline                      */

#define ECN_KMIN 10000
#define ECN_KMAX 50000
#define ECN_PMAX 0.2
#define ECN_PKTS 200
#define ECN_MAX_STEPS 2000

/* Decisions by the queue depth they saw: a "hit" is a CE mark (ECT) or a
 * WRED drop (Not-ECT). */
struct curve {
	unsigned n_below, hit_below;  /* q <= Kmin */
	unsigned n_mid, hit_mid;      /* Kmin < q <= Kmax */
	double e_mid, var_mid;        /* expected hits there, and variance */
	unsigned n_above, hit_above;  /* q > Kmax */
	unsigned delivered;
	uint32_t q_max;
	bool first_hit;
};

/*
 * ECN_PKTS frames of (dscp, ecn) from p0 to p1 (shaped to 10G), two per
 * microsecond, then drained.  Each step, the scheduler's dequeue count of
 * the queue says which frames (FIFO) were decided on in the step, and the
 * MMU's queue bytes after the step give the depth each decision saw: the
 * bytes left behind the departing frame (decision at dequeue), i.e. the
 * bytes after the step plus the frames dequeued after it in the same step.
 */
static void
run_curve(uint8_t dscp, uint8_t ecn, uint8_t queue, struct curve *c)
{
	struct aif_qos *q = qos();
	const struct aif_sched_qctr *qc = aif_sched_queue_ctr(&q->port[1].sched, queue);
	uint64_t deq0 = qc->deq_packets;
	uint32_t injected = 0, next_deq = 0;
	struct out_pkt o[64];
	unsigned steps;

	memset(c, 0, sizeof(*c));
	for (steps = 0; steps < ECN_MAX_STEPS && next_deq < ECN_PKTS; steps++) {
		for (unsigned k = 0; k < 2 && injected < ECN_PKTS; k++)
			inject_data(0, 1, dscp, ecn, injected++);
		step(US);
		uint32_t d = (uint32_t)(qc->deq_packets - deq0) - next_deq;
		uint32_t q_after = aif_mmu_queue_bytes(&q->mmu, 1, queue);
		unsigned n = take_out(1, o, 64), j = 0;

		for (uint32_t i = 0; i < d; i++) {
			uint32_t seq = next_deq + i;
			uint32_t qb = q_after + (d - 1 - i) * FRAME_LEN;
			bool present = j < n && o[j].seq == seq, hit;

			if (present) {
				assert_int_equal(o[j].in, 0);
				assert_int_equal(o[j].dscp, dscp);
				if (ecn == AIF_ECN_NOT_ECT)
					assert_int_equal(o[j].ecn, AIF_ECN_NOT_ECT);
				else
					assert_true(o[j].ecn == ecn || o[j].ecn == AIF_ECN_CE);
				hit = o[j].ecn == AIF_ECN_CE;
				j++;
				c->delivered++;
			} else {
				if (ecn != AIF_ECN_NOT_ECT)
					fail_msg("ECT frame %u lost", seq);
				hit = true;
			}
			if (seq == 0)
				c->first_hit = hit;
			if (qb > c->q_max)
				c->q_max = qb;
			if (qb <= ECN_KMIN) {
				c->n_below++;
				c->hit_below += hit;
			} else if (qb > ECN_KMAX) {
				c->n_above++;
				c->hit_above += hit;
			} else {
				double p = ECN_PMAX * (qb - ECN_KMIN) / (ECN_KMAX - ECN_KMIN);
				c->n_mid++;
				c->hit_mid += hit;
				c->e_mid += p;
				c->var_mid += p * (1 - p);
			}
		}
		if (j != n)
			fail_msg("p1 sent frame %u, not among the %u dequeued from %u",
				 o[j].seq, d, next_deq);
		next_deq += d;
	}
	assert_int_equal(next_deq, ECN_PKTS);
	assert_int_equal(aif_sched_qlen_pkts(&q->port[1].sched, queue), 0);
	/* the curve: never below Kmin, always above Kmax, Pmax-linear between */
	assert_true(c->n_below > 0 && c->n_mid > 0 && c->n_above > 0);
	assert_false(c->first_hit);
	assert_int_equal(c->hit_below, 0);
	assert_int_equal(c->hit_above, c->n_above);
	double sd = sqrt_pos(c->var_mid), dev = c->hit_mid - c->e_mid;
	if ((dev < 0 ? -dev : dev) > 4 * sd + 1)
		fail_msg("%u hits between Kmin and Kmax, expected %.1f +- %.1f",
			 c->hit_mid, c->e_mid, 4 * sd + 1);
}

static void
test_ecn(void **state)
{
	struct rs_snap before;
	struct curve c;

	(void)state;
	load("\"ecn\": {\"queues\": [0, 3], \"kmin_bytes\": 10000, \"kmax_bytes\": 50000,"
	     " \"pmax\": 0.2}", 1);
	struct aif_qos *q = qos();
	assert_int_equal(q->cfg.ecn_queues, 0x09);
	assert_int_equal(q->cfg.ecn_at_enqueue, 0);

	/* ECT(0) on lossless queue 3: CE marks, no loss */
	struct aif_ecn_ctr e3 = q->port[1].ecn[3];
	snap_take(&before);
	run_curve(26, AIF_ECN_ECT0, 3, &c);
	printf("# ECN queue 3 (ECT(0), peak %u B): %u/%u marked <= Kmin, %u/%u between"
	       " (expected %.1f), %u/%u > Kmax\n", c.q_max, c.hit_below, c.n_below,
	       c.hit_mid, c.n_mid, c.e_mid, c.hit_above, c.n_above);
	assert_int_equal(c.delivered, ECN_PKTS);
	assert_no_drops(&before);
	assert_int_equal(q->port[1].ecn[3].ce_marked - e3.ce_marked,
			 c.hit_below + c.hit_mid + c.hit_above);
	assert_int_equal(q->port[1].ecn[3].ect_seen - e3.ect_seen, ECN_PKTS);
	assert_int_equal(q->port[1].ecn[3].wred_drops - e3.wred_drops, 0);

	/* Not-ECT on lossy queue 0 with the same profile: WRED drops */
	struct aif_ecn_ctr e0 = q->port[1].ecn[0];
	snap_take(&before);
	run_curve(0, AIF_ECN_NOT_ECT, 0, &c);
	unsigned drops = c.hit_below + c.hit_mid + c.hit_above;
	printf("# WRED queue 0 (Not-ECT, peak %u B): %u/%u dropped <= Kmin, %u/%u between"
	       " (expected %.1f), %u/%u > Kmax\n", c.q_max, c.hit_below, c.n_below,
	       c.hit_mid, c.n_mid, c.e_mid, c.hit_above, c.n_above);
	assert_int_equal(c.delivered + drops, ECN_PKTS);
	assert_int_equal(assert_drops_within(&before, 1u << 0, 1ull << AIF_DROP_WRED), drops);
	assert_int_equal(q->port[1].ecn[0].wred_drops - e0.wred_drops, drops);
	assert_int_equal(q->port[1].ecn[0].ce_marked - e0.ce_marked, 0);
	assert_clean();
}

/*
 * Marking at enqueue decides on the bytes queued before the frame joins
 * (ecn.h, AIF_ECN_AT_ENQUEUE; the P4 tutorial's exercises/ecn).  A DCTCP
 * step (Kmin = Kmax = 2000 B: congested iff q > 2000) and ten 1000 B frames
 * arriving in one burst at an empty queue: they join at 0, 1000, ..., 9000
 * bytes, so exactly the fourth and later ones are marked.
 */
static void
test_ecn_enqueue(void **state)
{
	struct out_pkt o[64];
	struct rs_snap before;

	(void)state;
	load("\"ecn\": {\"queues\": [3], \"mark\": \"enqueue\", \"kmin_bytes\": 2000,"
	     " \"kmax_bytes\": 2000, \"pmax\": 1.0}", 1);
	struct aif_qos *q = qos();
	assert_int_equal(q->cfg.ecn_at_enqueue, 1);
	assert_int_equal(aif_mmu_queue_bytes(&q->mmu, 1, PRIO), 0);
	struct aif_ecn_ctr e3 = q->port[1].ecn[PRIO];
	snap_take(&before);
	for (uint32_t i = 0; i < 10; i++)
		inject_data(0, 1, 26, AIF_ECN_ECT0, i);
	unsigned n = 0;
	for (unsigned i = 0; i < 100 && n < 10; i++) {
		step(US);
		n += take_out(1, o + n, 64 - n);
	}
	assert_int_equal(n, 10);
	for (unsigned i = 0; i < 10; i++) {
		assert_int_equal(o[i].seq, i);
		if (o[i].ecn != (i >= 3 ? AIF_ECN_CE : AIF_ECN_ECT0))
			fail_msg("frame %u (joined at %u B): ECN %u", i, i * FRAME_LEN, o[i].ecn);
	}
	assert_int_equal(q->port[1].ecn[PRIO].ce_marked - e3.ce_marked, 7);
	assert_no_drops(&before);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 4. Strict priority over a backlog                                 */

static void
test_strict_priority(void **state)
{
	struct out_pkt got[64], o[64];
	struct rs_snap before;
	unsigned n_got = 0, k;

	(void)state;
	load(NULL, 1);
	struct aif_qos *q = qos();
	assert_int_equal(q->cfg.sched[1].sp_mask, 1u << 6);
	uint64_t deq6 = aif_sched_queue_ctr(&q->port[1].sched, 6)->deq_packets;
	snap_take(&before);

	/* a DSCP 0 backlog behind the 10G shaper */
	for (uint32_t i = 0; i < 30; i++)
		inject_data(0, 1, 0, AIF_ECN_NOT_ECT, i);
	for (unsigned i = 0; i < 5; i++) {
		step(US);
		n_got += take_out(1, got + n_got, 64 - n_got);
	}
	k = n_got;
	assert_true(k >= 1 && k < 30);
	/* then CNPs (DSCP 48 -> TC 6 -> strict queue 6) interleaved with
	 * more DSCP 0 in one burst */
	for (uint32_t j = 0; j < 10; j++) {
		inject_data(0, 1, 0, AIF_ECN_NOT_ECT, 30 + j);
		inject_data(0, 1, 48, AIF_ECN_NOT_ECT, 1000 + j);
	}
	for (unsigned i = 0; i < 200 && n_got < 50; i++) {
		step(US);
		unsigned n = take_out(1, o, 64);
		assert_true(n_got + n <= 50);
		memcpy(got + n_got, o, n * sizeof(o[0]));
		n_got += n;
	}
	assert_int_equal(n_got, 50);
	/* on the wire: the DSCP 0 frames sent before the CNPs came, all ten
	 * CNPs, then the rest of DSCP 0 in order (those queued before the CNPs
	 * and those queued after them) */
	for (unsigned i = 0; i < 50; i++) {
		uint32_t want = i < k ? i : i < k + 10 ? 1000 + (i - k) : i - 10;
		if (got[i].seq != want)
			fail_msg("frame %u on p1: seq %u, expected %u", i, got[i].seq, want);
		assert_int_equal(got[i].dscp, want >= 1000 ? 48 : 0);
	}
	printf("# strict priority: %u DSCP 0 frames left before the CNPs arrived, then"
	       " 10 CNPs ahead of the %u DSCP 0 frames queued before them and the 10\n"
	       "# queued with them\n", k, 30 - k);
	assert_int_equal(aif_sched_queue_ctr(&q->port[1].sched, 6)->deq_packets - deq6, 10);
	assert_no_drops(&before);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 4b. The shaper the other tests rely on                            */

/*
 * A backlog of DSCP 0 frames into p1 shaped to 10 Gb/s, served every
 * step_ns: over a window of window_ns while backlogged, p1 must send
 * window * 10e9 / (1024 * 8) frames (1000 B + FCS + 20 B of preamble and
 * gap on the wire), to within one frame, whatever the service period.
 */
static void
shaper_rate(aif_time_ns step_ns)
{
	const aif_time_ns warm_ns = 50 * US, window_ns = 400 * US;
	const double want = (double)window_ns * 1e-9 * SHAPER_BPS / (1024 * 8);
	struct out_pkt o[64];
	struct rs_snap before;
	uint32_t seq = 0, got = 0, counted = 0;
	aif_time_ns t_start = now_ns(), inj_next = t_start;

	snap_take(&before);
	while (now_ns() - t_start < warm_ns + window_ns + 100 * US) {
		/* 2 frames per us offered: 16 Gb/s into 10 */
		while (now_ns() >= inj_next) {
			inject_data(0, 1, 0, AIF_ECN_NOT_ECT, seq++);
			inject_data(0, 1, 0, AIF_ECN_NOT_ECT, seq++);
			inj_next += US;
		}
		step(step_ns);
		unsigned n = take_out(1, o, 64);
		for (unsigned i = 0; i < n; i++)
			assert_int_equal(o[i].seq, got++);
		aif_time_ns t = now_ns() - t_start;
		if (t > warm_ns && t <= warm_ns + window_ns)
			counted += n;
	}
	assert_true(seq - got > 50); /* backlogged to the end */
	printf("# shaper 10G, service every %llu ns: %u frames in %llu us, expected %.1f\n",
	       (unsigned long long)step_ns, counted,
	       (unsigned long long)(window_ns / US), want);
	/* drain */
	for (unsigned i = 0; i < 100000 && got < seq; i++) {
		step(step_ns);
		unsigned n = take_out(1, o, 64);
		for (unsigned k = 0; k < n; k++)
			assert_int_equal(o[k].seq, got++);
	}
	assert_int_equal(got, seq);
	assert_no_drops(&before);
	assert_true(counted >= want - 1 && counted <= want + 1);
}

static void
test_shaper_rate(void **state)
{
	(void)state;
	load(NULL, 1);
	assert_int_equal(qos()->cfg.sched[1].rate_bps, SHAPER_BPS);
	shaper_rate(NS_100);
	shaper_rate(US);
	shaper_rate(2 * US);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 5. PFC watchdog: storm detected, queue dropped, storm restored    */

#define WD_MAX_STEPS 60000

struct wd_run {
	uint64_t steps;
	uint32_t seq[2];      /* [0] DSCP 0, [1] DSCP 26 */
	uint32_t got[2];
	unsigned out_last_step[2];
	unsigned n_pause;
	bool pausing;
	aif_time_ns last_pause_ns;
};

/*
 * One 1 us step: every 100 us one DSCP 26 frame (and, 50 us later, one
 * DSCP 0 frame) from p0 to p1; while `pausing`, a PFC XOFF of 0xFFFF quanta
 * (335.54 us) for priority 3 arrives on p1 every 100 us.
 */
static void
wd_step(struct wd_run *r)
{
	struct out_pkt o[64];
	uint8_t f[60];
	uint64_t i = r->steps++;

	if (i % 100 == 0 && r->pausing) {
		inject_frame(1, f, build_pfc(f, mac_host[1], 1u << PRIO, 0xffff));
		r->n_pause++;
		r->last_pause_ns = now_ns() + US;
	}
	if (i % 100 == 0)
		inject_data(0, 1, 26, AIF_ECN_ECT0, r->seq[1]++);
	if (i % 100 == 50)
		inject_data(0, 1, 0, AIF_ECN_NOT_ECT, r->seq[0]++);
	step(US);
	unsigned n = take_out(1, o, 64);
	r->out_last_step[0] = r->out_last_step[1] = 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned c = o[k].dscp == 26;
		assert_true(o[k].seq >= r->got[c]);
		r->got[c] = o[k].seq + 1;
		r->out_last_step[c]++;
	}
	/* DSCP 0 is never held */
	assert_int_equal(r->got[0], r->seq[0]);
}

static void
test_pfc_watchdog(void **state)
{
	const aif_time_ns d_ffff = pause_ns(0xffff, SPEED_BPS);
	struct wd_run r = { .pausing = true };
	struct rs_snap before;
	uint64_t i;

	(void)state;
	assert_int_equal(d_ffff, 335540);
	load("\"pfc\": {\"watchdog\": {\"detection_ms\": 20, \"restoration_ms\": 20,"
	     " \"action\": \"drop\"}}", N_PORTS);
	struct aif_qos *q = qos();
	struct aif_pfcwd_state *wd = &q->port[1].wd[PRIO];
	assert_int_equal(q->cfg.wd.detection_ns, 20 * MS);
	assert_int_equal(q->cfg.wd.restoration_ns, 20 * MS);
	assert_int_equal(q->cfg.wd.action, AIF_PFCWD_DROP);
	struct aif_pfcwd_ctr wd0 = wd->ctr;
	uint64_t rx_pfc0 = q->port[1].pfc_rx.ctr.rx_pfc[PRIO];
	snap_take(&before);

	/* Step 0: the first XOFF and the first DSCP 26 frame arrive together.
	 * The watchdog samples every ms; its first sample that sees queue 3
	 * paused and non-empty (t0) starts the run: this step if it sampled,
	 * else the first step at or after its next sample time. */
	wd_step(&r);
	aif_time_ns t_first = now_ns();
	aif_time_ns t0 = q->next_wd_ns == t_first + MS
		? t_first : t_first + (q->next_wd_ns - t_first + US - 1) / US * US;
	aif_time_ns t_detect_want = t0 + 20 * MS;
	assert_false(wd->storm);

	/* the storm is detected exactly 20 ms into the run */
	for (i = 0; i < WD_MAX_STEPS && !wd->storm; i++) {
		wd_step(&r);
		assert_int_equal(r.out_last_step[1], 0);
		if (!wd->storm) /* held, none lost */
			assert_int_equal(aif_sched_qlen_pkts(&q->port[1].sched, PRIO), r.seq[1]);
	}
	aif_time_ns t_detect = now_ns();
	printf("# watchdog: storm detected %llu ns after the first queued frame"
	       " (run started at a sample %llu ns after it), expected %llu\n",
	       (unsigned long long)(t_detect - t_first),
	       (unsigned long long)(t0 - t_first),
	       (unsigned long long)(t_detect_want - t_first));
	assert_int_equal(t_detect, t_detect_want);
	assert_int_equal(wd->ctr.storms_detected - wd0.storms_detected, 1);
	/* what was queued is dropped, counted on the ingress port */
	uint32_t drained = r.seq[1];
	assert_true(drained >= 200);
	assert_int_equal(aif_sched_qlen_pkts(&q->port[1].sched, PRIO), 0);
	assert_int_equal(aif_mmu_queue_bytes(&q->mmu, 1, PRIO), 0);
	assert_int_equal(wd->ctr.drop_packets - wd0.drop_packets, drained);
	assert_int_equal(drops_of(&before, 0, AIF_DROP_PFCWD), drained);
	assert_int_equal(r.got[1], 0);

	/* 2 ms more of storm: arrivals for queue 3 are dropped */
	for (i = 0; i < 2000; i++) {
		wd_step(&r);
		assert_int_equal(r.out_last_step[1], 0);
		assert_true(wd->storm);
	}
	assert_int_equal(drops_of(&before, 0, AIF_DROP_PFCWD), r.seq[1]);

	/* the peer stops pausing: its last pause ends at e; the unpaused run
	 * starts at the first sample at or after e (samples every 1 ms from
	 * t0), and the storm is restored 20 ms later */
	r.pausing = false;
	aif_time_ns e = r.last_pause_ns + d_ffff;
	aif_time_ns t1 = t0 + (e - t0 + MS - 1) / MS * MS;
	aif_time_ns t_restore_want = t1 + 20 * MS;
	for (i = 0; i < WD_MAX_STEPS && wd->storm; i++) {
		wd_step(&r);
		if (wd->storm)
			assert_int_equal(r.out_last_step[1], 0);
	}
	aif_time_ns t_restore = now_ns();
	printf("# watchdog: last pause expired at +%llu ns, storm restored at +%llu ns"
	       " (expected +%llu)\n", (unsigned long long)(e - t_first),
	       (unsigned long long)(t_restore - t_first),
	       (unsigned long long)(t_restore_want - t_first));
	assert_int_equal(t_restore, t_restore_want);
	assert_int_equal(wd->ctr.storms_restored - wd0.storms_restored, 1);
	uint32_t dropped = r.seq[1];
	assert_int_equal(drops_of(&before, 0, AIF_DROP_PFCWD), dropped);

	/* traffic flows again: each DSCP 26 frame leaves in its step */
	uint32_t resumed = r.seq[1];
	for (i = 0; i < 1000; i++) {
		bool sent_one = r.steps % 100 == 0;
		wd_step(&r);
		assert_int_equal(r.out_last_step[1], sent_one ? 1 : 0);
	}
	assert_int_equal(r.got[1], r.seq[1]);
	assert_true(r.seq[1] - resumed >= 10);
	printf("# watchdog: %u DSCP 26 frames dropped (%u drained at detection),"
	       " %u delivered after restoration\n", dropped, drained, r.seq[1] - resumed);

	assert_false(wd->storm);
	assert_int_equal(wd->ctr.storms_detected - wd0.storms_detected, 1);
	assert_int_equal(wd->ctr.drop_packets - wd0.drop_packets, dropped);
	assert_int_equal(wd->ctr.drop_bytes - wd0.drop_bytes, (uint64_t)dropped * FRAME_LEN);
	assert_int_equal(q->port[1].pfc_rx.ctr.rx_pfc[PRIO] - rx_pfc0, r.n_pause);
	assert_int_equal(assert_drops_within(&before, 1u << 0, 1ull << AIF_DROP_PFCWD),
			 dropped);
	assert_int_equal(delta(&before, 1).tx_packets, r.seq[0] + r.seq[1] - dropped);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 6. Packet trimming                                                */

#define TRIM_LEN 128          /* "size_bytes" */
#define TRIM_DSCP 11          /* "dscp" */
#define TRIM_Q 7              /* "queue" (strict, with 6) */
#define TRIM_SRC_Q 3          /* DSCP 26 -> TC 3 -> queue 3, the trimmed one */
#define TRIM_US 400           /* microseconds of offered load, 4 frames each */
#define TRIM_MAX_SENT (4 * TRIM_US)
#define TRIM_MAX_STEPS 20000

/* TK_UDP6X: UDP/IPv6 behind an 8-byte Destination Options header */
enum trim_kind { TK_UDP4, TK_UDP6, TK_UDP6X, TK_TCP4, TK_N };

static const char *const trim_kind_name[TK_N] = { "UDP/IPv4", "UDP/IPv6",
	"UDP/IPv6+DestOpt", "TCP/IPv4" };
static const uint8_t trim_ecn[4] = { AIF_ECN_ECT0, AIF_ECN_ECT0, AIF_ECN_ECT1, AIF_ECN_CE };

/* One frame sent into the switch, by its sequence number. */
struct trim_frame {
	uint8_t kind;   /* enum trim_kind */
	uint8_t in;     /* ingress port */
	uint8_t ecn;    /* ECN bits sent */
	uint8_t seen;   /* 0: not (yet) on the wire, 1: whole, 2: trimmed */
};

struct trim_result {
	unsigned sent[TK_N], full[TK_N], trimmed[TK_N];
	unsigned trimmed_from[N_PORTS];
	uint64_t dropped;           /* drop counters of the ingress ports */
	unsigned trim_backlogged;   /* trimmed frames that left while queue 3 held frames */
	unsigned overtaken;         /* whole frames sent before the first trimmed one, out after it */
	uint64_t tx_bytes;
};

/* fd00:port::2 */
static void
ip6_host(uint8_t *a, uint16_t port)
{
	memset(a, 0, 16);
	a[0] = 0xfd;
	a[3] = (uint8_t)port;
	a[15] = 2;
}

/* The folded RFC 1071 sum of an IPv6 UDP datagram of l4_len bytes with its
 * pseudo-header (RFC 8200 8.1): 0xffff when its checksum field is right. */
static uint32_t
sum_udp6(const uint8_t *ip6, const uint8_t *udp, uint16_t l4_len)
{
	return sum_ipv6_l4(ip6, udp, l4_len, 17);
}

static void
set_udp6_csum(const uint8_t *ip6, uint8_t *udp, uint16_t l4_len)
{
	put16(udp + 6, 0);
	uint16_t c = (uint16_t)~sum_udp6(ip6, udp, l4_len);
	put16(udp + 6, c ? c : 0xffff);
}

/*
 * The frame t as sent from the neighbour of t->in to that of out, DSCP 26,
 * FRAME_LEN bytes, the sequence number as the 32-bit word 20 bytes into L4
 * (build_data's payload word): UDP/IPv4 is build_data's frame; TCP/IPv4 the
 * same with a 20-byte TCP header over the UDP and BTH headers; UDP/IPv6 the
 * same Ethernet addresses, UDP, BTH and payload over IPv6 (hop limit 64,
 * flow label = seq, valid UDP checksum), for TK_UDP6X behind a Destination
 * Options header holding one PadN option.
 */
static void
build_trim_frame(uint8_t *f, const struct trim_frame *t, uint16_t out, uint32_t seq)
{
	uint8_t v4[FRAME_LEN];

	build_data(v4, t->in, out, 26, t->ecn, seq);
	if (t->kind != TK_UDP6 && t->kind != TK_UDP6X) {
		memcpy(f, v4, FRAME_LEN);
		if (t->kind == TK_TCP4) {
			uint8_t *ip = f + ETH_HLEN, *tcp = ip + IP4_HLEN;
			ip[9] = 6;
			put16(ip + 10, 0);
			put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
			put16(tcp, (uint16_t)(40000 + t->in));
			put16(tcp + 2, 5201);
			put32(tcp + 4, seq);
			put32(tcp + 8, 0);
			tcp[12] = 5 << 4;
			tcp[13] = 0x10; /* ACK */
			put16(tcp + 14, 0xffff);
			put32(tcp + 16, 0);
		}
		return;
	}
	uint16_t ext = t->kind == TK_UDP6X ? 8 : 0;
	uint8_t *ip = f + ETH_HLEN, *udp = ip + IP6_HLEN + ext;
	uint16_t l4_len = (uint16_t)(FRAME_LEN - ETH_HLEN - IP6_HLEN - ext);

	memcpy(f, v4, 12);
	put16(f + 12, AIF_ETHERTYPE_IPV6);
	put32(ip, 6u << 28 | 26u << 22 | (uint32_t)t->ecn << 20 | (seq & 0xfffff));
	put16(ip + 4, (uint16_t)(l4_len + ext));
	ip[6] = ext ? 60 : 17;
	ip[7] = 64;
	if (ext) {
		const uint8_t dstopt[8] = { 17, 0, 1, 4, 0, 0, 0, 0 }; /* PadN */
		memcpy(ip + IP6_HLEN, dstopt, 8);
	}
	ip6_host(ip + 8, t->in);
	ip6_host(ip + 24, out);
	memcpy(udp, v4 + ETH_HLEN + IP4_HLEN, l4_len);
	put16(udp + 4, l4_len);
	set_udp6_csum(ip, udp, l4_len);
}

/*
 * What the switch must send for t on port out, worked out here: the MACs
 * of a routed frame, TTL / hop limit 63 (IPv4 checksum recomputed); when
 * trimmed, the first TRIM_LEN bytes with DSCP TRIM_DSCP (ECN kept), IP and
 * UDP lengths of the cut frame, UDP checksum 0 (IPv4) or recomputed (IPv6).
 */
static uint16_t
expect_trim_out(uint8_t *f, const struct trim_frame *t, uint16_t out, uint32_t seq,
		bool trimmed)
{
	bool v6 = t->kind == TK_UDP6 || t->kind == TK_UDP6X;
	uint16_t ext = t->kind == TK_UDP6X ? 8 : 0;
	uint8_t *ip = f + ETH_HLEN, *l4 = ip + (v6 ? IP6_HLEN + ext : IP4_HLEN);
	uint16_t len = trimmed ? TRIM_LEN : FRAME_LEN;

	build_trim_frame(f, t, out, seq);
	memcpy(f, mac_host[out], 6);
	memcpy(f + 6, mac_port[out], 6);
	if (v6) {
		ip[7]--;
		if (trimmed) {
			uint16_t l4_len = (uint16_t)(len - ETH_HLEN - IP6_HLEN - ext);
			put32(ip, (get32(ip) & ~(0x3fu << 22)) | (uint32_t)TRIM_DSCP << 22);
			put16(ip + 4, (uint16_t)(l4_len + ext));
			put16(l4 + 4, l4_len);
			set_udp6_csum(ip, l4, l4_len);
		}
	} else {
		ip[8]--;
		if (trimmed) {
			ip[1] = (uint8_t)(TRIM_DSCP << 2 | (ip[1] & 3));
			put16(ip + 2, (uint16_t)(len - ETH_HLEN));
			put16(l4 + 4, (uint16_t)(len - ETH_HLEN - IP4_HLEN));
			put16(l4 + 6, 0);
		}
		put16(ip + 10, 0);
		put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	}
	return len;
}

/*
 * Check one frame the switch sent on port out against the frame sent (found
 * by its sequence number) field by field, then byte by byte against
 * expect_trim_out (but for the IPv4 checksum, checked as a sum: an
 * incremental update may write 0xffff for 0); mark it seen.  Returns its
 * sequence number; *trimmed says whether it was cut.
 */
static uint32_t
check_trim_out(const struct rte_mbuf *mb, uint16_t out, struct trim_frame *sent,
	       uint32_t n_sent, bool *trimmed)
{
	const uint8_t *f = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(mb);
	uint8_t e[FRAME_LEN];

	assert_int_equal(mb->nb_segs, 1);
	if (len != FRAME_LEN && len != TRIM_LEN)
		fail_msg("p%u sent a frame of %u bytes", out, len);
	*trimmed = len == TRIM_LEN;
	assert_memory_equal(f, mac_host[out], 6);
	assert_memory_equal(f + 6, mac_port[out], 6);

	bool v6 = get16(f + 12) == AIF_ETHERTYPE_IPV6;
	const uint8_t *ip = f + ETH_HLEN;
	uint16_t ext = v6 && ip[6] == 60 ? 8 : 0;
	const uint8_t *l4 = ip + (v6 ? IP6_HLEN + ext : IP4_HLEN);
	uint32_t seq = get32(l4 + 20);
	if (seq >= n_sent)
		fail_msg("p%u: frame with unknown seq %u", out, seq);
	struct trim_frame *t = &sent[seq];
	if (t->seen)
		fail_msg("seq %u came out twice", seq);
	t->seen = *trimmed ? 2 : 1;
	if (*trimmed && t->kind == TK_TCP4)
		fail_msg("TCP seq %u was trimmed", seq);

	uint16_t l3_len = (uint16_t)(len - ETH_HLEN);
	uint8_t dscp = *trimmed ? TRIM_DSCP : 26;
	if (v6) {
		uint16_t l4_len = (uint16_t)(l3_len - IP6_HLEN - ext);
		assert_int_equal(t->kind, ext ? TK_UDP6X : TK_UDP6);
		assert_int_equal(get32(ip) >> 28, 6);
		assert_int_equal((get32(ip) >> 22) & 0x3f, dscp);
		assert_int_equal((get32(ip) >> 20) & 3, t->ecn);
		assert_int_equal(get16(ip + 4), l3_len - IP6_HLEN);
		assert_int_equal(ip[7], 63);
		assert_int_equal(get16(l4 + 4), l4_len);
		if (get16(l4 + 6) == 0 || sum_udp6(ip, l4, l4_len) != 0xffff)
			fail_msg("seq %u (%s, %u B): IPv6 UDP checksum %#x invalid", seq,
				 trim_kind_name[t->kind], len, get16(l4 + 6));
	} else {
		assert_int_equal(get16(f + 12), AIF_ETHERTYPE_IPV4);
		assert_int_equal(t->kind, ip[9] == 6 ? TK_TCP4 : TK_UDP4);
		assert_int_equal(ip[1] >> 2, dscp);
		assert_int_equal(ip[1] & 3, t->ecn);
		assert_int_equal(get16(ip + 2), l3_len);
		assert_int_equal(ip[8], 63);
		if (sum16(0, ip, IP4_HLEN) != 0xffff)
			fail_msg("seq %u (%u B): IPv4 header checksum invalid (sum %#x)", seq,
				 len, sum16(0, ip, IP4_HLEN));
		if (t->kind == TK_UDP4) {
			assert_int_equal(get16(l4 + 4), l3_len - IP4_HLEN);
			assert_int_equal(get16(l4 + 6), 0);
		}
	}
	assert_int_equal(expect_trim_out(e, t, out, seq, *trimmed), len);
	for (uint32_t i = 0; i < len; i++)
		if (f[i] != e[i] && (v6 || (i != ETH_HLEN + 10 && i != ETH_HLEN + 11)))
			fail_msg("seq %u (%s, %u B): byte %u is %#x, expected %#x", seq,
				 trim_kind_name[t->kind], len, i, f[i], e[i]);
	return seq;
}

/*
 * Lossy DSCP 26 from p0 and p2 into p1 shaped to 10G, 2 + 2 frames per
 * microsecond for TRIM_US (32 Gb/s offered), in a 200 KB buffer: mostly
 * UDP/IPv4 RoCEv2 with ECN bits ECT(0), ECT(0), ECT(1), CE in turn, every
 * fourth microsecond one UDP/IPv6 from p2 (and two microseconds later one
 * with a Destination Options header), every fifth one TCP/IPv4 from p0.  With `trimming`, queue 3 is trimmed to 128 bytes, DSCP 11, queue 7;
 * queues 6 and 7 are strict either way.  Every frame out of p1 is checked
 * (check_trim_out) and every frame sent is accounted for.
 */
static void
trim_run(bool trimming, struct trim_result *r)
{
	static const char qos_trim[] =
		"\"pfc_enable\": [], \"buffer\": {\"size_bytes\": 200000},"
		" \"ecn\": {\"queues\": []}, \"scheduler\": {\"strict\": [6, 7]},"
		" \"trimming\": {\"queues\": [3], \"size_bytes\": 128, \"dscp\": 11,"
		" \"queue\": 7}";
	static const char qos_drop[] =
		"\"pfc_enable\": [], \"buffer\": {\"size_bytes\": 200000},"
		" \"ecn\": {\"queues\": []}, \"scheduler\": {\"strict\": [6, 7]}";
	static struct trim_frame sent[TRIM_MAX_SENT];
	uint64_t trimmed0[N_PORTS][AIF_QOS_NQ], deq0[AIF_QOS_NQ], pg7_0[N_PORTS];
	struct rte_mbuf *m[64];
	struct rs_snap before;
	uint32_t n_sent = 0, first_trim_seq = UINT32_MAX, seen = 0;
	unsigned us, n;

	memset(r, 0, sizeof(*r));
	memset(sent, 0, sizeof(sent));
	load(trimming ? qos_trim : qos_drop, 1);
	struct aif_qos *q = qos();
	assert_int_equal(q->cfg.pfc_enable, 0);
	assert_int_equal(q->cfg.sched[1].sp_mask, 0xc0);
	assert_int_equal(q->cfg.sched[1].rate_bps, SHAPER_BPS);
	assert_int_equal(q->cfg.trim_queues, trimming ? 1u << TRIM_SRC_Q : 0);
	if (trimming) {
		assert_int_equal(q->cfg.trim_size_bytes, TRIM_LEN);
		assert_int_equal(q->cfg.trim_dscp, TRIM_DSCP);
		assert_int_equal(q->cfg.trim_queue, TRIM_Q);
	}
	for (uint16_t p = 0; p < N_PORTS; p++) {
		memcpy(trimmed0[p], q->port[p].trimmed, sizeof(trimmed0[p]));
		pg7_0[p] = q->mmu.pg_ctr[p][TRIM_Q].packets[AIF_MMU_ADMIT];
	}
	for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
		deq0[k] = aif_sched_queue_ctr(&q->port[1].sched, k)->deq_packets;
	snap_take(&before);

	for (us = 0; us < TRIM_MAX_STEPS; us++) {
		for (unsigned k = 0; us < TRIM_US && k < 4; k++) {
			struct trim_frame *t = &sent[n_sent];
			uint8_t f[FRAME_LEN];

			t->in = k < 2 ? 0 : 2;
			t->kind = k == 1 && us % 5 == 4 ? TK_TCP4
				: k == 3 && us % 4 == 1 ? TK_UDP6
				: k == 3 && us % 4 == 3 ? TK_UDP6X : TK_UDP4;
			t->ecn = trim_ecn[n_sent % 4];
			build_trim_frame(f, t, 1, n_sent);
			inject_frame(t->in, f, FRAME_LEN);
			r->sent[t->kind]++;
			n_sent++;
		}
		step(US);
		/* full-size frames still queued behind what left in this step */
		bool backlog = aif_sched_qlen_pkts(&q->port[1].sched, TRIM_SRC_Q) != 0;
		while ((n = rte_ring_dequeue_burst(H.tx[1], (void **)m, 64, NULL)) > 0) {
			for (unsigned i = 0; i < n; i++) {
				bool cut;
				uint32_t seq = check_trim_out(m[i], 1, sent, n_sent, &cut);
				const struct trim_frame *t = &sent[seq];

				r->tx_bytes += rte_pktmbuf_pkt_len(m[i]);
				seen++;
				if (cut) {
					r->trimmed[t->kind]++;
					r->trimmed_from[t->in]++;
					r->trim_backlogged += backlog;
					if (first_trim_seq == UINT32_MAX)
						first_trim_seq = seq;
				} else {
					r->full[t->kind]++;
					r->overtaken += seq < first_trim_seq &&
							first_trim_seq != UINT32_MAX;
				}
			}
			rs_free_all(m, n);
		}
		for (uint16_t p = 0; p < N_PORTS; p++)
			if (p != 1)
				assert_tx_empty(p); /* lossy: no PFC */
		if (us >= TRIM_US && q->mmu.used_bytes == 0)
			break;
	}
	assert_true(us < TRIM_MAX_STEPS);
	for (unsigned i = 0; i < 100; i++) {
		step(US);
		assert_tx_empty(1);
	}

	/* every frame sent: whole, trimmed, or dropped (and counted) */
	r->dropped = assert_drops_within(&before, (1u << 0) | (1u << 2),
					 1ull << AIF_DROP_BUFFER_LIMIT);
	uint64_t unseen = 0;
	for (uint32_t s = 0; s < n_sent; s++)
		unseen += sent[s].seen == 0;
	assert_int_equal(unseen, r->dropped);
	assert_int_equal(seen + r->dropped, n_sent);

	/* the counters agree with the wire */
	unsigned n_trim = 0, n_full = 0;
	for (unsigned k = 0; k < TK_N; k++) {
		n_trim += r->trimmed[k];
		n_full += r->full[k];
	}
	for (uint16_t p = 0; p < N_PORTS; p++)
		for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
			assert_int_equal(q->port[p].trimmed[k] - trimmed0[p][k],
					 p == 1 && k == TRIM_SRC_Q ? n_trim : 0);
	for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
		assert_int_equal(aif_sched_queue_ctr(&q->port[1].sched, k)->deq_packets - deq0[k],
				 k == TRIM_SRC_Q ? n_full : k == TRIM_Q ? n_trim : 0);
	/* the trimmed header is charged to PG 7 of its ingress port */
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(q->mmu.pg_ctr[p][TRIM_Q].packets[AIF_MMU_ADMIT] - pg7_0[p],
				 r->trimmed_from[p]);
	assert_int_equal(delta(&before, 1).tx_packets, seen);
	assert_int_equal(r->tx_bytes, (uint64_t)n_full * FRAME_LEN + (uint64_t)n_trim * TRIM_LEN);
	assert_int_equal(delta(&before, 1).tx_bytes, r->tx_bytes);

	printf("# trimming %s: sent %u, dropped %llu; %u trimmed left with queue 3"
	       " backlogged, overtaking %u whole frames sent before the first\n",
	       trimming ? "on" : "off", n_sent, (unsigned long long)r->dropped,
	       r->trim_backlogged, r->overtaken);
	for (unsigned k = 0; k < TK_N; k++)
		printf("#   %-16s sent %4u, whole %4u, trimmed %4u, dropped %4u\n",
		       trim_kind_name[k], r->sent[k], r->full[k], r->trimmed[k],
		       r->sent[k] - r->full[k] - r->trimmed[k]);
	assert_int_equal(q->mmu.shared_used_bytes, 0);
	assert_clean();
}

static void
test_trimming(void **state)
{
	struct trim_result on, off;

	(void)state;
	trim_run(true, &on);
	/* UDP overflowing queue 3 is trimmed, never dropped, both families */
	assert_true(on.trimmed[TK_UDP4] > 0);
	assert_true(on.trimmed[TK_UDP6] > 0);
	assert_true(on.trimmed[TK_UDP6X] > 0);
	assert_true(on.full[TK_UDP4] > 0);
	for (unsigned k = 0; k < TK_TCP4; k++)
		assert_int_equal(on.full[k] + on.trimmed[k], on.sent[k]);
	/* TCP overflowing the same queue is dropped, never trimmed */
	assert_int_equal(on.trimmed[TK_TCP4], 0);
	assert_true(on.dropped > 0);
	assert_int_equal(on.full[TK_TCP4] + on.dropped, on.sent[TK_TCP4]);
	/* strict queue 7: trimmed frames leave ahead of the backlog of queue 3 */
	assert_int_equal(on.trim_backlogged, on.trimmed[TK_UDP4] + on.trimmed[TK_UDP6] +
					     on.trimmed[TK_UDP6X]);
	assert_true(on.overtaken > 0);

	/* trimming off (the default): the same load drops at the shared limit */
	trim_run(false, &off);
	for (unsigned k = 0; k < TK_N; k++) {
		assert_int_equal(off.sent[k], on.sent[k]);
		assert_int_equal(off.trimmed[k], 0);
	}
	assert_true(off.full[TK_UDP4] < off.sent[TK_UDP4]);
	uint64_t lost = 0;
	for (unsigned k = 0; k < TK_N; k++)
		lost += off.sent[k] - off.full[k];
	assert_int_equal(off.dropped, lost);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pfc_reception, test_setup),
		cmocka_unit_test_setup(test_pfc_bad_destination, test_setup),
		cmocka_unit_test_setup(test_show_pfc, test_setup),
		cmocka_unit_test_setup(test_incast_lossless, test_setup),
		cmocka_unit_test_setup(test_incast_lossy, test_setup),
		cmocka_unit_test_setup(test_xon_at_stop, test_setup),
		cmocka_unit_test_setup(test_ecn, test_setup),
		cmocka_unit_test_setup(test_ecn_enqueue, test_setup),
		cmocka_unit_test_setup(test_strict_priority, test_setup),
		cmocka_unit_test_setup(test_shaper_rate, test_setup),
		cmocka_unit_test_setup(test_pfc_watchdog, test_setup),
		cmocka_unit_test_setup(test_trimming, test_setup),
	};
	return cmocka_run_group_tests_name("qos", tests, group_setup, group_teardown);
}
