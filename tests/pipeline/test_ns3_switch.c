/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of the switch options that follow ConWeave's ns-3 in the
 * egress path: one whole switch ("leaf0", four 100G ports, p1 shaped to
 * 10 Gb/s with a bucket of one frame, so that queues form) in virtual time, on the ring-switch harness
 * (ring_switch.h).
 *
 *   - A class outside the buffer (qos "mmu_bypass", default TC 6: ACKs,
 *     NAKs, CNPs as ns-3's queue 0): while DSCP 48 frames wait on p1 the
 *     MMU holds only the data frames' bytes (queue 6 charged nothing, the
 *     port's queued bytes count both), and an ECN profile that marks
 *     everything on queues 3 and 6 marks the data, not them; with
 *     "mmu_bypass": [] they are charged and marked like data.
 *   - Its bound: a burst into a 4 KiB bypass limit keeps four frames and
 *     drops the rest as bypass_queue_full, nothing else.
 *   - The MMU's charge under "wire_model": "ns3" (ns-3's p->GetSize() at the
 *     switch: payload + 48 for a RoCE data packet, 1,048 B for 1,000 B; 60
 *     for an ACK, which ns-3 never charges) against the frame's bytes under
 *     the default model, read off the MMU while the frames wait.
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

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "drop.h"
#include "ecn.h"
#include "mmu.h"
#include "pkt.h"
#include "qos.h"
#include "sched.h"
#include "switch.h"
#include "runner.h"

#include "ring_switch.h"

#define N_PORTS 4
#define RING_SIZE 4096
#define POOL_SIZE 8191
#define POOL_CACHE 64
#define US AIF_NS_PER_US

static struct rs_harness H;

static const uint8_t mac_port[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 },
	{ 0x02, 0, 0, 0, 0, 0x12 }, { 0x02, 0, 0, 0, 0, 0x13 },
};
static const uint8_t mac_host[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0x01, 0x00 }, { 0x02, 0, 0, 0, 0x01, 0x01 },
	{ 0x02, 0, 0, 0, 0x01, 0x02 }, { 0x02, 0, 0, 0, 0x01, 0x03 },
};

/*
 * Ethernet / IPv4 (dscp, ECT(0)) / UDP 4791 / BTH (opcode) / payload /
 * ICRC (zero: nothing on the way checks it) from the neighbour of port in
 * to the neighbour of port out: 14 + 20 + 8 + 12 + payload + 4 bytes.
 * Returns the frame's length.
 */
static uint16_t
build_roce(uint8_t *f, uint16_t in, uint16_t out, uint8_t dscp, uint8_t opcode,
	   uint16_t payload, uint32_t seq)
{
	uint16_t len = (uint16_t)(ETH_HLEN + IP4_HLEN + UDP_HLEN + AIF_BTH_LEN + payload +
				  AIF_ICRC_LEN);
	uint8_t *ip = f + ETH_HLEN, *udp = ip + IP4_HLEN, *bth = udp + UDP_HLEN;

	memset(f, 0, len);
	memcpy(f, mac_port[in], 6);
	memcpy(f + 6, mac_host[in], 6);
	put16(f + 12, AIF_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | AIF_ECN_ECT0);
	put16(ip + 2, (uint16_t)(len - ETH_HLEN));
	put16(ip + 4, (uint16_t)seq);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, (10u << 24) | ((uint32_t)in << 8) | 2);
	put32(ip + 16, (10u << 24) | ((uint32_t)out << 8) | 2);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	put16(udp, (uint16_t)(0xc000 | in));
	put16(udp + 2, AIF_UDP_PORT_ROCEV2);
	put16(udp + 4, (uint16_t)(len - ETH_HLEN - IP4_HLEN));
	bth[0] = opcode;
	bth[1] = 0x40;
	put16(bth + 2, 0xffff);
	put32(bth + 4, 0x100u + in);
	put32(bth + 8, seq & 0xffffff);
	return len;
}

/* DSCP 26 (TC 3, lossless) RC SEND Only of `payload` bytes; DSCP 48 (TC 6)
 * RC Acknowledge (its 4-byte AETH counts as payload here). */
static void
inject(uint16_t in, uint16_t out, uint8_t dscp, uint16_t payload, uint32_t seq)
{
	uint8_t f[2048];
	uint16_t n = build_roce(f, in, out, dscp, dscp == 48 ? 0x11 : 0x04, payload, seq);

	rs_inject(&H, in, f, n);
}

static struct aif_qos *
qos(void)
{
	assert_non_null(H.sw->qos);
	return H.sw->qos;
}

/* Frames sent on port out: counted by DSCP (26 and 48), CE marks too. */
struct taken {
	unsigned n[2], ce[2];
};

static void
take(uint16_t out, struct taken *t)
{
	struct rte_mbuf *m[64];
	unsigned n;

	while ((n = rte_ring_dequeue_burst(H.tx[out], (void **)m, 64, NULL)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			const uint8_t *ip = rte_pktmbuf_mtod(m[i], const uint8_t *) + ETH_HLEN;
			unsigned c = (ip[1] >> 2) == 48;
			assert_true((ip[1] >> 2) == 26 || (ip[1] >> 2) == 48);
			t->n[c]++;
			t->ce[c] += (ip[1] & 3) == AIF_ECN_CE;
		}
		rs_free_all(m, n);
	}
}

/* Step 1 us at a time until p1's queues are empty (at most max steps). */
static void
drain(struct taken *t, unsigned max)
{
	for (unsigned i = 0; i < max; i++) {
		rs_step(&H, US);
		take(1, t);
		if (qos()->port[1].sched.nonempty_mask == 0 && qos()->port[1].n_through == 0)
			return;
	}
	fail_msg("p1 still holds frames after %u us", max);
}

/*
 * Four 100G ports, pN = 10.0.N.1/24 with the neighbour 10.0.N.2 behind it,
 * p1 shaped to 10 Gb/s; `qos` is the default policy's "qos" body, `root`
 * more fields of the file's top object (each may be "").
 */
static char *
config_text(const char *qos_body, const char *root)
{
	size_t n = 8192;
	char *s = malloc(n);
	int len;

	assert_non_null(s);
	len = snprintf(s, n, "{%s\"policies\": {\"default\": {\"qos\": {%s}}},"
		       " \"switches\": [{\"name\": \"leaf0\", \"ports\": [", root, qos_body);
	for (uint16_t p = 0; p < N_PORTS; p++)
		len += snprintf(s + len, n - (size_t)len,
				"%s{\"name\": \"p%u\", \"device\": \"net_ring_ns%u\","
				" \"mac\": \"02:00:00:00:00:1%u\", \"speed_gbps\": 100,%s"
				" \"addresses\": [\"10.0.%u.1/24\"]}",
				p ? ", " : "", p, p, p, p == 1 ? " \"shaper_gbps\": 10, \"shaper_burst_bytes\": 1600," : "", p);
	len += snprintf(s + len, n - (size_t)len, "], \"neighbors\": [");
	for (uint16_t p = 0; p < N_PORTS; p++)
		len += snprintf(s + len, n - (size_t)len,
				"%s{\"ip\": \"10.0.%u.2\", \"mac\": \"02:00:00:00:01:0%u\","
				" \"port\": \"p%u\"}", p ? ", " : "", p, p, p);
	len += snprintf(s + len, n - (size_t)len, "]}]}");
	assert_true(len > 0 && (size_t)len < n);
	return s;
}

static void
load(const char *qos_body, const char *root)
{
	char err[AIF_ERR_MAX] = "";
	char *text = config_text(qos_body, root);
	bool ok = rs_load(&H, text, err, sizeof(err));

	free(text);
	if (!ok)
		fail_msg("load rejected: %s", err);
	rs_step(&H, US);
	assert_int_equal(qos()->generation, H.sw->tables->generation);
}

static int
group_setup(void **state)
{
	char *text = config_text("", "");
	const struct rs_params params = {
		.prog = "test_ns3_switch", .file_prefix = "aif-ns3sw", .tag = "ns",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = text,
	};
	int rc;

	(void)state;
	rc = rs_setup(&H, &params);
	free(text);
	return rc;
}

static int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

static int
test_setup(void **state)
{
	(void)state;
	rs_reset(&H);
	return 0;
}

static void
assert_clean(void)
{
	const struct aif_qos *q = qos();

	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(q->mmu.port_bytes[p], 0);
	assert_int_equal(q->mmu.used_bytes, 0);
	assert_int_equal(rte_mempool_in_use_count(H.pool), H.pool_base);
}

/* Every drop since the snapshot, all ports, all reasons. */
static uint64_t
all_drops(const struct rs_snap *before, enum aif_drop_reason *only)
{
	uint64_t sum = 0;

	for (uint16_t p = 0; p < N_PORTS; p++) {
		struct aif_port_ctr d = rs_delta(&H, before, p);
		for (unsigned r = AIF_DROP_FIRST; r < AIF_DROP_MAX; r++) {
			if (d.drops[r] != 0 && only != NULL && r != *only)
				fail_msg("p%u: %llu %s drop(s)", p, (unsigned long long)d.drops[r],
					 aif_drop_name(r));
			sum += d.drops[r];
		}
	}
	return sum;
}

#define BURST 20
/* ECN marks every frame that leaves with anything behind it */
#define MARK_ALL "\"ecn\": {\"queues\": [3, 6], \"kmin_bytes\": 0, \"kmax_bytes\": 0, \"pmax\": 1}"

/*
 * BURST ACKs (DSCP 48) and BURST data frames (DSCP 26) into p1 at once;
 * returns what left, having checked the buffer while they waited.
 */
static void
burst_through_p1(bool bypass, struct taken *t)
{
	struct rs_snap before;
	struct aif_qos *q = qos();

	rs_snap_take(&H, &before);
	for (uint32_t i = 0; i < BURST; i++) {
		inject(0, 1, 48, 4, i);
		inject(2, 1, 26, 1000, i);
	}
	rs_step(&H, 100);
	take(1, t);
	const struct aif_sched *s = &q->port[1].sched;
	uint32_t waiting6 = s->q[6].qlen_pkts, waiting3 = s->q[3].qlen_pkts;
	uint32_t bytes6 = (uint32_t)s->q[6].qlen_bytes, bytes3 = (uint32_t)s->q[3].qlen_bytes;
	assert_true(waiting6 > 0 && waiting3 > 0);
	/* the scheduler counts the FCS; the buffer the frame */
	uint32_t charged6 = bytes6 - 4 * waiting6, charged3 = bytes3 - 4 * waiting3;
	assert_int_equal(aif_mmu_queue_bytes(&q->mmu, 1, 6), bypass ? 0 : charged6);
	assert_int_equal(aif_mmu_queue_bytes(&q->mmu, 1, 3), charged3);
	assert_int_equal(q->mmu.port_bytes[1], charged6 + charged3);
	assert_int_equal(q->mmu.used_bytes, bypass ? charged3 : charged3 + charged6);
	assert_int_equal(q->mmu.pg_ctr[0][6].packets[AIF_MMU_ADMIT] != 0, !bypass);
	drain(t, 200);
	assert_int_equal(all_drops(&before, NULL), 0);
	assert_int_equal(t->n[0], BURST);
	assert_int_equal(t->n[1], BURST);
}

static void
test_bypass_outside_buffer(void **state)
{
	struct taken t = { { 0 } };

	(void)state;
	load(MARK_ALL, "");
	assert_int_equal(qos()->cfg.bypass_tcs, 1u << 6); /* the default */
	burst_through_p1(true, &t);
	print_message("outside the buffer: %u of %u ACKs marked, %u of %u data\n", t.ce[1],
		      t.n[1], t.ce[0], t.n[0]);
	assert_int_equal(t.ce[1], 0);
	assert_true(t.ce[0] > BURST / 2);
	assert_clean();

	/* in the buffer, as a data class */
	memset(&t, 0, sizeof(t));
	load(MARK_ALL ", \"mmu_bypass\": []", "");
	assert_int_equal(qos()->cfg.bypass_tcs, 0);
	burst_through_p1(false, &t);
	print_message("in the buffer: %u of %u ACKs marked, %u of %u data\n", t.ce[1], t.n[1],
		      t.ce[0], t.n[0]);
	assert_true(t.ce[1] > BURST / 2);
	assert_clean();
}

/* 20 ACK-sized frames of 1,000 B into a 4 KiB bypass queue on p1 (10G):
 * four wait, at most one more leaves at once, the rest are dropped as
 * bypass_queue_full on the ingress port; data is untouched. */
static void
test_bypass_limit(void **state)
{
	struct taken t = { { 0 } };
	struct rs_snap before;
	enum aif_drop_reason only = AIF_DROP_BYPASS_FULL;

	(void)state;
	load("\"buffer\": {\"bypass_limit_bytes\": 4096}", "");
	assert_int_equal(qos()->cfg.bypass_limit_bytes, 4096);
	rs_snap_take(&H, &before);
	for (uint32_t i = 0; i < BURST; i++)
		inject(0, 1, 48, 946, i); /* 1,000-byte frames, 1,004 queued */
	for (uint32_t i = 0; i < 4; i++)
		inject(2, 1, 26, 946, i);
	rs_step(&H, 100);
	assert_true(qos()->port[1].sched.q[6].qlen_bytes <= 4096);
	drain(&t, 200);
	uint64_t dropped = all_drops(&before, &only);
	print_message("bypass limit 4096 B: %u of %u kept, %llu dropped (bypass_queue_full)\n",
		      t.n[1], BURST, (unsigned long long)dropped);
	assert_int_equal(rs_delta(&H, &before, 0).drops[AIF_DROP_BYPASS_FULL], dropped);
	assert_int_equal(t.n[1] + dropped, BURST);
	assert_true(t.n[1] >= 4 && t.n[1] <= 5);
	assert_int_equal(t.n[0], 4);
	assert_clean();
}

/*
 * What the buffer charges, read while the frames wait on p1: five
 * 1,000-byte RoCE payloads (1,058-byte frames) and five 946-byte ones
 * (1,004-byte frames) from p0 at PG 3, then five ACKs (62-byte frames)
 * from p2 kept in the buffer ("mmu_bypass": []) and queued behind the data
 * (TC 6 on queue 3), so that they wait too.
 *   ethernet (default): the frames, 1,058 / 1,004 / 62;
 *   ns3: ns-3's p->GetSize() at its switch, 1,048 / 994 / 60.
 */
static void
test_wire_model_charges(void **state)
{
	static const struct {
		const char *root;
		uint32_t full, part, ack;
	} cases[] = {
		{ "", 1058, 1004, 62 },
		{ "\"wire_model\": \"ns3\", ", 1048, 994, 60 },
	};

	(void)state;
	for (unsigned c = 0; c < 2; c++) {
		struct taken t = { { 0 } };
		struct rs_snap before;
		struct aif_qos *q;

		load("\"mmu_bypass\": [], \"tc_to_queue_map\": {\"6\": 3}, "
		     "\"ecn\": {\"mode\": \"off\"}", cases[c].root);
		q = qos();
		assert_int_equal(q->cfg.wire_model, c);
		rs_snap_take(&H, &before);
		for (uint32_t i = 0; i < 5; i++) {
			inject(0, 1, 26, 1000, i);
			inject(0, 1, 26, 946, 100 + i);
		}
		for (uint32_t i = 0; i < 5; i++)
			inject(2, 1, 48, 4, i);
		rs_step(&H, 100);
		take(1, &t);
		uint32_t n3 = q->port[1].sched.q[3].qlen_pkts;
		/* the oldest k data frames left; full and part alternate from a full one */
		assert_int_equal(t.n[1], 0);
		assert_true(n3 >= 12 && n3 + t.n[0] == 15);
		uint32_t k = 15 - n3, full_left = 5 - (k + 1) / 2, part_left = 5 - k / 2;
		uint32_t data = full_left * cases[c].full + part_left * cases[c].part;
		assert_int_equal(q->mmu.port[0].ingress_bytes, data);
		assert_int_equal(q->mmu.port[2].ingress_bytes, 5 * cases[c].ack);
		assert_int_equal(aif_mmu_queue_bytes(&q->mmu, 1, 3), data + 5 * cases[c].ack);
		print_message("wire model %s: %u data frames waiting, charged %u B; 5 ACKs, %u B\n",
			      c ? "ns3" : "ethernet", n3 - 5, data, q->mmu.port[2].ingress_bytes);
		drain(&t, 200);
		assert_int_equal(all_drops(&before, NULL), 0);
		assert_int_equal(t.n[0], 10);
		assert_int_equal(t.n[1], 5);
		assert_clean();
	}
	load("", "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bypass_outside_buffer, test_setup),
		cmocka_unit_test_setup(test_bypass_limit, test_setup),
		cmocka_unit_test_setup(test_wire_model_charges, test_setup),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
