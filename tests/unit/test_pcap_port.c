/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcap file port (dataplane/pcap_port.c): input frames start at their
 * file's timestamps relative to the first (microsecond and nanosecond
 * files, either byte order) and arrive serialized at the port's rate;
 * truncated records are skipped, jumbo frames chain; PFC from the switch
 * holds the frames of the paused priority until XON or expiry; output is
 * serialized at the port's rate and stamped with the last bit to the
 * nanosecond; backpressure; bad files refused with the reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "frame.h"
#include "link.h"
#include "pcap_port.h"
#include "pfc.h"
#include "roce.h"

#include "test_eal.h"

static struct rte_mempool *pool;
static char dir[64];

struct rec {
	uint32_t sec, frac, incl, orig;
	uint8_t fill;
};

static uint32_t
bs(uint32_t v, int swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

/* Write a pcap with magic (us or ns), byte-swapped or not. */
static void
write_pcap(const char *path, uint32_t magic, int swap, uint32_t linktype,
	   const struct rec *r, unsigned n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint32_t h[6] = { bs(magic, swap), swap ? 0x04000200u : 0x00040002u, 0, 0,
			  bs(65535, swap), bs(linktype, swap) };
	assert_int_equal(fwrite(h, sizeof(h), 1, f), 1);
	for (unsigned i = 0; i < n; i++) {
		uint32_t rh[4] = { bs(r[i].sec, swap), bs(r[i].frac, swap), bs(r[i].incl, swap),
				   bs(r[i].orig, swap) };
		uint8_t *d = malloc(r[i].incl);
		memset(d, r[i].fill, r[i].incl);
		assert_int_equal(fwrite(rh, sizeof(rh), 1, f), 1);
		assert_int_equal(fwrite(d, 1, r[i].incl, f), r[i].incl);
		free(d);
	}
	fclose(f);
}

static void
path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void
test_input_times(void **state)
{
	(void)state;
	for (int swap = 0; swap < 2; swap++)
		for (int ns = 0; ns < 2; ns++) {
			/* 1000 s + 10 us, +15 us, a truncated one, +40 us, an earlier one */
			uint32_t f = ns ? 1000 : 1;
			const struct rec r[] = {
				{ 1000, 10 * f, 100, 100, 1 },
				{ 1000, 25 * f, 9000, 9000, 2 },   /* jumbo: chained */
				{ 1000, 30 * f, 64, 200, 3 },      /* truncated: skipped */
				{ 1000, 50 * f, 60, 60, 4 },
				{ 1000, 45 * f, 70, 70, 5 },       /* earlier: with the one before */
			};
			char in[128], err[256] = "";
			path_of(in, sizeof(in), "in.pcap");
			write_pcap(in, ns ? 0xa1b23c4d : 0xa1b2c3d4, swap, 1, r, RTE_DIM(r));
			struct aif_pcap_port *pp = aif_pcap_port_open(
				&(struct aif_pcap_port_params){ .in_path = in,
								.rate_bps = 10000000000ull,
								.start_ns = 500 },
				pool, err, sizeof(err));
			if (pp == NULL)
				fail_msg("%s", err);
			struct aif_port port = { 0 };
			aif_pcap_port_attach(pp, &port);
			struct rte_mbuf *m[8];
			/* starts at 500, 124 wire bytes at 10G: 99.2 ns */
			assert_int_equal(port.ops->rx_next_ns(&port, 0), 600);
			assert_int_equal(port.ops->rx_burst(&port, 0, m, 8, 599), 0);
			assert_int_equal(port.ops->rx_burst(&port, 0, m, 8, 600), 1);
			assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 100);
			assert_int_equal(*rte_pktmbuf_mtod(m[0], uint8_t *), 1);
			rte_pktmbuf_free(m[0]);
			/* 9024 wire bytes: 7219.2 ns */
			assert_int_equal(port.ops->rx_next_ns(&port, 0), 22720);
			assert_int_equal(port.ops->rx_burst(&port, 0, m, 8, 22720), 1);
			assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 9000);
			assert_true(m[0]->nb_segs > 1);
			uint8_t last;
			assert_int_equal(*(const uint8_t *)rte_pktmbuf_read(m[0], 8999, 1, &last), 2);
			rte_pktmbuf_free(m[0]);
			/* 84 wire bytes: 67.2 ns; the earlier one right behind it,
			 * 94 wire bytes: 75.2 ns */
			assert_int_equal(port.ops->rx_next_ns(&port, 0), 40568);
			assert_int_equal(port.ops->rx_burst(&port, 0, m, 8, 40568), 1);
			assert_int_equal(port.ops->rx_next_ns(&port, 0), 40643);
			assert_int_equal(port.ops->rx_burst(&port, 0, &m[1], 7, 40643), 1);
			assert_int_equal(rte_pktmbuf_pkt_len(m[1]), 70);
			rte_pktmbuf_free_bulk(m, 2);
			assert_int_equal(port.ops->rx_next_ns(&port, 0), AIF_TIME_NS_NEVER);
			assert_true(aif_pcap_port_rx_done(pp));
			const struct aif_pcap_port_ctr *c = aif_pcap_port_ctr(pp);
			assert_int_equal(c->rx_packets, 4);
			assert_int_equal(c->rx_truncated, 1);
			assert_int_equal(c->rx_reordered, 1);
			assert_int_equal(aif_pcap_port_close(pp), 0);
			assert_int_equal(rte_mempool_in_use_count(pool), 0);
		}
}

static struct rte_mbuf *
frame(uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	memset(rte_pktmbuf_append(m, len), 0xab, len);
	return m;
}

/* Output: 10 Gb/s, frames of 1000 and 40 bytes: each stamped with its last
 * bit; the second waits for the wire (backpressure); a PFC frame goes at
 * the next frame boundary. */
static void
test_output_serialization(void **state)
{
	char out[128], err[256] = "";

	(void)state;
	path_of(out, sizeof(out), "out.pcap");
	struct aif_pcap_port *pp = aif_pcap_port_open(
		&(struct aif_pcap_port_params){ .out_path = out, .rate_bps = 10000000000ull },
		pool, err, sizeof(err));
	if (pp == NULL)
		fail_msg("%s", err);
	struct aif_port port = { 0 };
	aif_pcap_port_attach(pp, &port);
	assert_int_equal(port.speed_mbps, 10000);
	assert_int_equal(port.ops->rx_next_ns(&port, 0), AIF_TIME_NS_NEVER);
	struct rte_mbuf *m[2] = { frame(1000), frame(40) };
	/* 1024 wire bytes at 10G: 819.2 ns */
	assert_int_equal(port.ops->tx_burst(&port, 0, m, 2, 100), 1);
	assert_int_equal(port.ops->tx_ready_ns(&port, 0, 100), 920); /* ceil(919.2) */
	assert_int_equal(port.ops->tx_burst(&port, 0, &m[1], 1, 919), 0);
	/* a PFC frame now: after the frame on the wire, 84 wire bytes: 67.2 ns */
	assert_int_equal(port.ops->tx_ctrl(&port, 0, frame(60), 500), 1);
	assert_int_equal(port.ops->tx_ready_ns(&port, 0, 500), 987); /* ceil(986.4) */
	assert_int_equal(port.ops->tx_burst(&port, 0, &m[1], 1, 987), 1);
	const struct aif_pcap_port_ctr *c = aif_pcap_port_ctr(pp);
	assert_int_equal(c->tx_packets, 3);
	assert_int_equal(c->tx_ctrl, 1);
	assert_int_equal(c->refused, 2); /* the second frame, twice */;
	assert_int_equal(c->tx_bytes, 1100);
	assert_int_equal(aif_pcap_port_close(pp), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);

	/* read it back: nanosecond pcap, the stamps */
	FILE *f = fopen(out, "rb");
	uint32_t h[6], r[4];
	assert_int_equal(fread(h, sizeof(h), 1, f), 1);
	assert_int_equal(h[0], 0xa1b23c4d);
	assert_int_equal(h[5], 1);
	const uint32_t want_ns[3] = { 920, 987, 1054 }, want_len[3] = { 1000, 60, 40 };
	for (int i = 0; i < 3; i++) {
		uint8_t buf[1000];
		assert_int_equal(fread(r, sizeof(r), 1, f), 1);
		assert_int_equal(r[0], 0);
		assert_int_equal(r[1], want_ns[i]);
		assert_int_equal(r[2], want_len[i]);
		assert_int_equal(fread(buf, 1, r[2], f), r[2]);
	}
	assert_int_equal(fread(r, 1, 1, f), 0);
	fclose(f);
}

/* A RoCE-like frame of len bytes with DSCP dscp (IPv4). */
static struct rec
ip_rec(uint32_t us, uint16_t len, uint8_t fill)
{
	return (struct rec){ 0, us, len, len, fill };
}

static void
write_ip_pcap(const char *path, const struct rec *r, const uint8_t *dscp, unsigned n)
{
	FILE *f = fopen(path, "wb");
	uint32_t h[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	assert_int_equal(fwrite(h, sizeof(h), 1, f), 1);
	for (unsigned i = 0; i < n; i++) {
		uint32_t rh[4] = { r[i].sec, r[i].frac, r[i].incl, r[i].orig };
		uint8_t d[1500] = { 0 };
		d[12] = 0x08, d[13] = 0x00, d[14] = 0x45, d[15] = (uint8_t)(dscp[i] << 2);
		d[20] = r[i].fill;
		assert_int_equal(fwrite(rh, sizeof(rh), 1, f), 1);
		assert_int_equal(fwrite(d, 1, r[i].incl, f), r[i].incl);
	}
	fclose(f);
}

/* PFC from the switch: XOFF on priority 3 holds a DSCP 26 frame (and the
 * frame behind it: one queue) until XON; a frame of another priority is
 * not held; an XOFF left alone expires after its quanta. */
static void
test_pfc_pauses_input(void **state)
{
	char in[128], err[256] = "";
	const struct rec r[] = { ip_rec(0, 1000, 1), ip_rec(10, 1000, 2), ip_rec(20, 1000, 3),
				 ip_rec(3000, 1000, 4) };
	const uint8_t dscp[] = { 26, 26, 0, 26 };
	struct aif_pcap_port_params pp = { .in_path = in, .rate_bps = 10000000000ull };
	struct aif_mac src = { { 2, 0, 0, 0, 0, 1 } };
	uint16_t q[8] = { 0 };
	struct rte_mbuf *m[4];
	uint8_t buf[64];

	(void)state;
	path_of(in, sizeof(in), "pfc.pcap");
	write_ip_pcap(in, r, dscp, RTE_DIM(r));
	pp.prio_of_dscp[26] = 3;
	struct aif_pcap_port *p = aif_pcap_port_open(&pp, pool, err, sizeof(err));
	if (p == NULL)
		fail_msg("%s", err);
	struct aif_port port = { 0 };
	aif_pcap_port_attach(p, &port);
	/* frame 0 starts at 0: 1024 wire bytes, 819.2 ns */
	assert_int_equal(port.ops->rx_burst(&port, 0, m, 4, 820), 1);
	rte_pktmbuf_free(m[0]);
	/* XOFF class 3 for 65535 quanta, sent at 5000: arrives (84 wire
	 * bytes) at 5067.2 -> 5068 */
	q[3] = 65535;
	struct rte_mbuf *x = rte_pktmbuf_alloc(pool);
	assert_int_equal(aif_pfc_frame_build(buf, sizeof(buf), &src, 1u << 3, q), AIF_PFC_FRAME_LEN);
	memcpy(rte_pktmbuf_append(x, AIF_PFC_FRAME_LEN), buf, AIF_PFC_FRAME_LEN);
	assert_int_equal(port.ops->tx_ctrl(&port, 0, x, 5000), 1);
	/* frame 1 (10 us, DSCP 26) is held: nothing arrives before the pause
	 * would end (65535 x 512 bits at 10G: 3355.392 us) */
	assert_true(port.ops->rx_next_ns(&port, 0) > 3000000);
	assert_int_equal(port.ops->rx_burst(&port, 0, m, 4, 1000000), 0);
	/* XON at 2 ms: frame 1 starts when the XON has arrived, frame 2 (DSCP
	 * 0) behind it */
	q[3] = 0;
	x = rte_pktmbuf_alloc(pool);
	assert_int_equal(aif_pfc_frame_build(buf, sizeof(buf), &src, 1u << 3, q), AIF_PFC_FRAME_LEN);
	memcpy(rte_pktmbuf_append(x, AIF_PFC_FRAME_LEN), buf, AIF_PFC_FRAME_LEN);
	assert_int_equal(port.ops->tx_ctrl(&port, 0, x, 2000000), 1);
	/* XON arrives at 2000067.2 -> 2000068; frame 1 ends 819.2 ns later */
	assert_int_equal(port.ops->rx_next_ns(&port, 0), 2000068 + 820);
	assert_int_equal(port.ops->rx_burst(&port, 0, m, 4, 2000068 + 820), 1);
	assert_int_equal(port.ops->rx_burst(&port, 0, &m[1], 3, 2000068 + 1640), 1);
	assert_int_equal(*rte_pktmbuf_mtod_offset(m[1], uint8_t *, 20), 3);
	rte_pktmbuf_free_bulk(m, 2);
	/* another XOFF, left to expire: frame 3 waits out its 65535 quanta */
	q[3] = 65535;
	x = rte_pktmbuf_alloc(pool);
	assert_int_equal(aif_pfc_frame_build(buf, sizeof(buf), &src, 1u << 3, q), AIF_PFC_FRAME_LEN);
	memcpy(rte_pktmbuf_append(x, AIF_PFC_FRAME_LEN), buf, AIF_PFC_FRAME_LEN);
	assert_int_equal(port.ops->tx_ctrl(&port, 0, x, 2100000), 1);
	aif_time_ns until = 2100068 + aif_pfc_quanta_to_ns(65535, 10000000000ull);
	assert_int_equal(port.ops->rx_next_ns(&port, 0), until + 820);
	assert_int_equal(port.ops->rx_burst(&port, 0, m, 4, until + 820), 1);
	rte_pktmbuf_free(m[0]);
	const struct aif_pcap_port_ctr *c = aif_pcap_port_ctr(p);
	assert_int_equal(c->rx_pfc, 2);
	assert_int_equal(c->rx_xon, 1);
	assert_int_equal(c->tx_ctrl, 3);
	assert_true(c->rx_paused_ns > 2000000);
	assert_int_equal(aif_pcap_port_close(p), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* The generator: Poisson at load x rate (the count within 4 standard
 * deviations over 20 ms), frames to the given hosts only, valid IPv4
 * checksums and ICRCs, nothing at or after stop_ns, the same frames for
 * the same seed, whole or light (the light ones' bytes made whole). */
static void
test_generator(void **state)
{
	char err[256] = "";
	const uint32_t dst[3] = { 0x0a010002, 0x0a020002, 0x0a030002 };
	struct aif_pcap_gen g = {
		.load = 0.5, .frame_len = 1000, .dscp = 26, .n_flows = 16, .seed = 9,
		.stop_ns = 20 * AIF_NS_PER_MS, .src_ip = 0x0a000002, .dst_ip = dst, .n_dst = 3,
		.src_mac = { { 2, 0x0a, 0, 0, 0, 2 } }, .dst_mac = { { 2, 0x1f, 0, 0, 0, 0 } },
	};
	uint64_t digest[2] = { 0, 0 };

	(void)state;
	static uint8_t whole[1000];

	for (int run = 0; run < 2; run++) {
		g.light = run == 1;
		struct aif_pcap_port *p = aif_pcap_port_open(&(struct aif_pcap_port_params){
			.gen = &g, .rate_bps = 10000000000ull }, pool, err, sizeof(err));
		if (p == NULL)
			fail_msg("%s", err);
		assert_true(!g.light || aif_frame_light_mask != 0); /* light ones made */
		struct aif_port port = { 0 };
		aif_pcap_port_attach(p, &port);
		unsigned n = 0, per_dst[3] = { 0 };
		aif_time_ns t;
		struct rte_mbuf *m[32];
		while ((t = port.ops->rx_next_ns(&port, 0)) != AIF_TIME_NS_NEVER) {
			uint16_t k = port.ops->rx_burst(&port, 0, m, 32, t);
			for (uint16_t i = 0; i < k; i++) {
				assert_int_equal(rte_pktmbuf_pkt_len(m[i]), 1000);
				assert_int_equal(aif_frame_is_light(m[i]),
						 g.light && aif_frame_light_mask != 0);
				const uint8_t *f = aif_frame_read(m[i], 0, 1000, whole);
				assert_non_null(f);
				assert_true(aif_roce_icrc_ok(f + 14, 1000 - 14));
				for (int b = 0; b < 1000; b++)
					digest[run] = digest[run] * 31 + f[b];
				assert_int_equal(f[15], 26 << 2 | 2);
				uint32_t sum = 0, d = (uint32_t)f[30] << 24 | f[31] << 16 | f[32] << 8 | f[33];
				for (int b = 14; b < 34; b += 2)
					sum += (uint32_t)(f[b] << 8 | f[b + 1]);
				while (sum >> 16)
					sum = (sum & 0xFFFF) + (sum >> 16);
				assert_int_equal(sum, 0xFFFF); /* checksum valid */
				unsigned x = 0;
				while (x < 3 && dst[x] != d)
					x++;
				assert_true(x < 3);
				per_dst[x]++;
				digest[run] = digest[run] * 1000003 + d + t;
			}
			n += k;
			rte_pktmbuf_free_bulk(m, k);
		}
		/* 1024 wire bytes at 5 Gb/s: 1638.4 ns apart on average */
		double want = 20e6 / 1638.4;
		print_message("generated %u frames (want %.0f), to %u/%u/%u\n", n, want,
			      per_dst[0], per_dst[1], per_dst[2]);
		assert_true(fabs(n - want) < 4 * sqrt(want));
		assert_true(aif_pcap_port_rx_done(p));
		assert_int_equal(aif_pcap_port_close(p), 0);
	}
	assert_true(digest[0] == digest[1]);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_bad_files(void **state)
{
	char p[128], err[256];
	const struct rec one = { 0, 0, 60, 60, 0 };
	struct {
		const char *what;
		uint32_t magic, linktype;
		const char *want;
	} cases[] = {
		{ "pcapng", 0x0a0d0d0a, 1, "a pcapng file" },
		{ "junk", 0x12345678, 1, "not a pcap file" },
		{ "linktype", 0xa1b2c3d4, 113, "link type 113, not Ethernet" },
	};

	(void)state;
	for (unsigned i = 0; i < RTE_DIM(cases); i++) {
		path_of(p, sizeof(p), cases[i].what);
		write_pcap(p, cases[i].magic, 0, cases[i].linktype, &one, 1);
		err[0] = '\0';
		assert_null(aif_pcap_port_open(&(struct aif_pcap_port_params){
			.in_path = p, .rate_bps = 1000000000 }, pool, err, sizeof(err)));
		if (strstr(err, cases[i].want) == NULL || strstr(err, p) == NULL)
			fail_msg("%s: '%s'", cases[i].what, err);
	}
	path_of(p, sizeof(p), "missing.pcap");
	assert_null(aif_pcap_port_open(&(struct aif_pcap_port_params){
		.in_path = p, .rate_bps = 1000000000 }, pool, err, sizeof(err)));
	assert_non_null(strstr(err, "No such file"));
	assert_null(aif_pcap_port_open(&(struct aif_pcap_port_params){ .rate_bps = 0 },
				       pool, err, sizeof(err)));
	assert_non_null(strstr(err, "rate 0"));
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_pcap_port", "aif-ut-pcapport", 64) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("pp_pool", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	snprintf(dir, sizeof(dir), "/tmp/aif-pcapport-XXXXXX");
	return pool == NULL || mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return -1;
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_times),
		cmocka_unit_test(test_output_serialization),
		cmocka_unit_test(test_pfc_pauses_input),
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
