/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Emulated link (dataplane/link.c): serialization and delay to the
 * nanosecond, line rate under a saturating stream, backpressure (refusal,
 * never a drop), MAC control frames at the next frame boundary, and the
 * next-event times a loop jumps to.  Virtual time: the test is the clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "link.h"

#include "test_eal.h"

static struct rte_mempool *pool;
static struct aif_port ports[2]; /* the two ends */

static struct rte_mbuf *
frame(uint16_t len, uint8_t tag)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, len);
	assert_non_null(d);
	memset(d, tag, len);
	return m;
}

static struct aif_link *
make_link_model(uint64_t rate_bps, aif_time_ns delay_ns, uint8_t wire_model)
{
	char err[128] = "";
	struct aif_link_params p = { .rate_bps = rate_bps, .delay_ns = delay_ns,
				     .wire_model = wire_model };
	struct aif_link *l = aif_link_create("a-b", &p, err, sizeof(err));

	if (l == NULL)
		fail_msg("%s", err);
	memset(ports, 0, sizeof(ports));
	for (uint16_t i = 0; i < 2; i++) {
		ports[i].index = i;
		aif_link_attach(l, (uint8_t)i, &ports[i]);
	}
	return l;
}

static struct aif_link *
make_link(uint64_t rate_bps, aif_time_ns delay_ns)
{
	return make_link_model(rate_bps, delay_ns, AIF_WIRE_ETHERNET);
}

static uint16_t
tx(uint8_t side, struct rte_mbuf **m, uint16_t n, aif_time_ns now)
{
	return ports[side].ops->tx_burst(&ports[side], 0, m, n, now);
}

static uint16_t
rx(uint8_t side, struct rte_mbuf **m, uint16_t n, aif_time_ns now)
{
	return ports[side].ops->rx_burst(&ports[side], 0, m, n, now);
}

static aif_time_ns
ready(uint8_t side, aif_time_ns now)
{
	return ports[side].ops->tx_ready_ns(&ports[side], 0, now);
}

/* Picoseconds on the wire for a frame of len bytes at rate (rounded up). */
static uint64_t
ser_ps(uint32_t len, uint64_t rate)
{
	return ((uint64_t)aif_link_wire_bytes(len) * 8 * 1000000000000ull + rate - 1) / rate;
}

/* One 1000-byte frame on 10 Gb/s with 5 us: 1024 wire bytes, 819.2 ns,
 * so it arrives at ceil(819.2) + 5000 = 5820 ns, not a ns before. */
static void
test_one_frame(void **state)
{
	struct aif_link *l = make_link(10000000000ull, 5000);
	struct rte_mbuf *m = frame(1000, 1), *got[4];

	(void)state;
	assert_int_equal(aif_link_wire_bytes(1000), 1024);
	assert_int_equal(aif_link_wire_bytes(20), 84); /* padded to 60 + FCS */
	assert_int_equal(aif_link_rx_next_ns(l, 1), AIF_TIME_NS_NEVER);
	assert_int_equal(tx(0, &m, 1, 0), 1);
	assert_int_equal(aif_link_rx_next_ns(l, 1), 5820);
	assert_int_equal(aif_link_rx_next_ns(l, 0), AIF_TIME_NS_NEVER); /* other way */
	assert_int_equal(rx(1, got, 4, 5819), 0);
	assert_int_equal(rx(0, got, 4, 10000), 0);
	assert_int_equal(rx(1, got, 4, 5820), 1);
	assert_ptr_equal(got[0], m);
	assert_int_equal(aif_link_rx_next_ns(l, 1), AIF_TIME_NS_NEVER);
	assert_int_equal(l->dir[0].ctr.tx_packets, 1);
	assert_int_equal(l->dir[0].ctr.tx_bytes, 1000);
	assert_int_equal(l->dir[0].ctr.busy_ps, 819200);
	rte_pktmbuf_free(m);
	aif_link_free(l);
}

/* At the process's end the frames on the wire go back to their pool, the
 * link's memory to the exit. */
static void
test_free_at_exit(void **state)
{
	struct aif_link *l = make_link(10000000000ull, 5000);
	unsigned avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *m[2] = { frame(100, 1), frame(100, 2) };

	(void)state;
	assert_int_equal(tx(0, &m[0], 1, 0), 1);
	assert_int_equal(tx(1, &m[1], 1, 0), 1);
	assert_int_equal(rte_mempool_avail_count(pool), avail - 2);
	aif_link_free_at_exit(l);
	assert_int_equal(rte_mempool_avail_count(pool), avail);
	aif_link_free_at_exit(NULL);
	aif_link_free(l); /* (the test's own: nothing left on the wire to free twice) */
}

/* The wire is busy: the rest of a burst is refused (backpressure: the
 * caller keeps the frames), and tx_ready says when to come back. */
static void
test_backpressure(void **state)
{
	struct aif_link *l = make_link(10000000000ull, 5000);
	struct rte_mbuf *m[3] = { frame(1000, 1), frame(1000, 2), frame(1000, 3) };

	(void)state;
	assert_int_equal(ready(0, 0), 0);
	assert_int_equal(tx(0, m, 3, 0), 1);
	assert_int_equal(l->dir[0].ctr.refused, 2);
	assert_int_equal(ready(0, 0), 820);
	assert_int_equal(ready(0, 500), 820);
	assert_int_equal(tx(0, &m[1], 2, 819), 0);     /* not yet */
	assert_int_equal(tx(0, &m[1], 2, 820), 1);     /* back to back */
	assert_int_equal(ready(1, 0), 0);              /* the other way is free */
	assert_int_equal(ready(0, 820), 1639);         /* 2 x 819.2 = 1638.4 */
	rte_pktmbuf_free(m[2]);
	aif_link_free(l); /* frees the two on the wire */
}

/*
 * A saturating stream, the sender coming back whenever tx_ready says: the
 * link carries exactly its rate counting 24 bytes of overhead per frame,
 * and each frame arrives its serialization plus the delay after it
 * started, to the nanosecond, back to back.
 */
static void
test_line_rate(void **state)
{
	const uint64_t rate = 10000000000ull;
	const aif_time_ns delay = 5000;
	const unsigned n = 20000;
	struct aif_link *l = make_link(rate, delay);
	struct rte_mbuf *got[32];
	static aif_time_ns want[20000];
	aif_time_ns now = 0;
	unsigned sent = 0, recv = 0, bad = 0;
	uint64_t start_ps = 0;

	(void)state;
	while (recv < n) {
		if (sent < n && ready(0, now) <= now) {
			uint16_t len = (uint16_t)(64 + (sent * 37) % 1437); /* 64..1500 */
			struct rte_mbuf *m = frame(len, 0);
			memcpy(rte_pktmbuf_mtod(m, void *), &sent, sizeof(sent));
			assert_int_equal(tx(0, &m, 1, now), 1);
			/* when it arrives, from the picoseconds it took */
			uint64_t finish = start_ps + ser_ps(len, rate);
			want[sent] = (finish + 999) / 1000 + delay;
			start_ps = finish;
			sent++;
		}
		uint16_t k = rx(1, got, 32, now);
		for (uint16_t i = 0; i < k; i++) {
			unsigned seq;
			memcpy(&seq, rte_pktmbuf_mtod(got[i], void *), sizeof(seq));
			if ((seq != recv + i || want[seq] != now) && bad++ < 5)
				print_message("frame %u (seq %u) arrived at %lu, want %lu\n",
					      recv + i, seq, (unsigned long)now,
					      (unsigned long)want[seq]);
			rte_pktmbuf_free(got[i]);
		}
		recv += k;
		/* jump to the next event: the next arrival or the wire freeing up */
		aif_time_ns nx = aif_link_rx_next_ns(l, 1);
		if (sent < n && ready(0, now) < nx)
			nx = ready(0, now);
		assert_true(nx != AIF_TIME_NS_NEVER || recv == n);
		now = nx > now ? nx : now + 1;
	}
	assert_int_equal(bad, 0);
	double bits = (double)l->dir[0].ctr.busy_ps * rate / 1e12;
	double wire_bits = 0;
	for (unsigned i = 0; i < n; i++)
		wire_bits += aif_link_wire_bytes((uint32_t)(64 + (i * 37) % 1437)) * 8.0;
	/* busy time is the wire bits at the rate, to a picosecond per frame */
	assert_true(bits >= wire_bits && bits <= wire_bits + n * rate / 1e12 + 1);
	/* first bit to last bit: back to back at line rate */
	double elapsed_s = (double)start_ps / 1e12;
	double carried = wire_bits / elapsed_s;
	print_message("carried %.4f Gb/s of %.1f (wire bytes), %u frames\n", carried / 1e9,
		      rate / 1e9, n);
	assert_true(carried > rate * 0.99 && carried <= rate * 1.0000001);
	assert_int_equal(l->dir[0].ctr.refused, 0); /* it came back when told */
	aif_link_free(l);
}

/* A MAC control frame (PFC) goes at the next frame boundary, never
 * refused; data handed over later waits behind it. */
static void
test_ctrl_frame(void **state)
{
	struct aif_link *l = make_link(100000000000ull, 1000);
	struct rte_mbuf *d = frame(1500, 1), *c = frame(60, 2), *d2 = frame(1500, 3);
	struct rte_mbuf *got[4];

	(void)state;
	assert_int_equal(tx(0, &d, 1, 0), 1);   /* 1524 B: 121.92 ns */
	assert_int_equal(ports[0].ops->tx_ctrl(&ports[0], 0, c, 10), 1);
	assert_int_equal(l->dir[0].ctr.tx_ctrl, 1);
	/* 84 B at 100G: 6.72 ns after 121.92: 128.64 -> 129 + 1000 */
	assert_int_equal(tx(0, &d2, 1, 122), 0); /* behind the control frame */
	assert_int_equal(ready(0, 122), 129);
	assert_int_equal(rx(1, got, 4, 1122), 1);
	assert_ptr_equal(got[0], d);
	assert_int_equal(rx(1, got, 4, 1128), 0);
	assert_int_equal(rx(1, got, 4, 1129), 1);
	assert_ptr_equal(got[0], c);
	rte_pktmbuf_free(d);
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(d2);
	aif_link_free(l);
}

/* The delay line holds the bandwidth-delay product; only control frames,
 * never refused, can overflow it, and that is counted. */
static void
test_line_full(void **state)
{
	struct aif_link *l = make_link(1000000000ull, 0); /* 64 + 2 bursts of slots */
	unsigned taken = 0, tries = 0;

	(void)state;
	while (tries++ < 1000) {
		struct rte_mbuf *m = frame(60, 0);
		if (ports[0].ops->tx_ctrl(&ports[0], 0, m, 0) == 0) {
			rte_pktmbuf_free(m);
			break;
		}
		taken++;
	}
	assert_int_equal(taken, l->dir[0].mask + 1);
	assert_int_equal(l->dir[0].ctr.lost_full, 1);
	aif_link_free(l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* Each end keeps a copy of the other's index (link.h): a receiver that
 * knew of one frame still gets, in the same burst, one put after it last
 * looked; a sender whose copy says full looks again once the receiver has
 * drained the line, and takes. */
static void
test_index_copies(void **state)
{
	struct aif_link *l = make_link(10000000000ull, 5000);
	struct rte_mbuf *m[3] = { frame(1000, 1), frame(1000, 2), NULL }, *got[4];

	(void)state;
	assert_int_equal(tx(0, &m[0], 1, 0), 1);
	assert_int_equal(aif_link_rx_next_ns(l, 1), 5820); /* it knows of one */
	assert_int_equal(tx(0, &m[1], 1, ready(0, 0)), 1);
	assert_int_equal(aif_link_rx_next_ns(l, 1), 5820);
	assert_int_equal(rx(1, got, 4, 100000), 2);
	assert_ptr_equal(got[0], m[0]);
	assert_ptr_equal(got[1], m[1]);
	rte_pktmbuf_free_bulk(got, 2);
	assert_int_equal(aif_link_rx_next_ns(l, 1), AIF_TIME_NS_NEVER);
	/* fill the line with control frames, drain it, send again */
	uint32_t slots = l->dir[0].mask + 1, taken = 0, out = 0;
	while (taken <= slots) {
		struct rte_mbuf *c = frame(60, 3);
		if (ports[0].ops->tx_ctrl(&ports[0], 0, c, 200000) == 0) {
			rte_pktmbuf_free(c);
			break;
		}
		taken++;
	}
	assert_int_equal(taken, slots);
	for (uint16_t k; (k = rx(1, got, 4, 1000000)) > 0; out += k)
		rte_pktmbuf_free_bulk(got, k);
	assert_int_equal(out, slots);
	m[2] = frame(1000, 4);
	assert_int_equal(tx(0, &m[2], 1, 1000000), 1);
	assert_int_equal(rx(1, got, 4, 2000000), 1);
	assert_ptr_equal(got[0], m[2]);
	rte_pktmbuf_free(got[0]);
	assert_int_equal(l->dir[0].ctr.lost_full, 1);
	aif_link_free(l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet / IPv4 / UDP 4791 / BTH opcode / payload / ICRC, built here. */
static struct rte_mbuf *
roce_frame(uint8_t opcode, uint16_t payload)
{
	uint16_t udp_len = (uint16_t)(8 + 12 + payload + 4), len = (uint16_t)(14 + 20 + udp_len);
	struct rte_mbuf *m = frame(len, 0);
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, 20u + udp_len);
	f[23] = 17;
	put16(f + 36, 4791);
	put16(f + 38, udp_len);
	f[42] = opcode;
	return m;
}

/*
 * ns-3's wire model against Ethernet's, 100 Gb/s and 1 us: ten 1,000-byte
 * RoCE payloads back to back (1,058-byte frames), an ACK (62) and a PFC
 * frame (60) behind them.
 *   ethernet: 1,082 B = 86.56 ns each; the ACK 86 B = 6.88 ns; PFC 84 B =
 *     6.72 ns.  Tenth frame done at 865.6 ns: arrives at 1,866.
 *   ns3: 1,036 B = 82.88 ns, 83 in whole ns as ns-3 schedules it (its
 *     frames run 83 ns apart); ACK 48 B = 3.84 ns: 4; PFC 31 B = 2.48 ns:
 *     3.  Tenth frame done at 830 ns: arrives 1,830.
 * The frames arrive as they were sent, bytes unchanged.
 */
static void
test_wire_model(void **state)
{
	static const struct {
		uint8_t model;
		uint64_t data_ps, ack_ps, pfc_ps;
		aif_time_ns tenth_ns, ack_ns, pfc_ns;
	} cases[] = {
		{ AIF_WIRE_ETHERNET, 86560, 6880, 6720, 1866, 1873, 1880 },
		{ AIF_WIRE_NS3, 83000, 4000, 3000, 1830, 1834, 1837 },
	};

	(void)state;
	for (unsigned c = 0; c < 2; c++) {
		struct aif_link *l = make_link_model(100000000000ull, 1000, cases[c].model);
		struct rte_mbuf *m[12], *got[16];
		aif_time_ns t = 0;

		for (unsigned i = 0; i < 10; i++)
			m[i] = roce_frame(0x04, 1000);
		m[10] = roce_frame(0x11, 4);
		m[11] = frame(60, 0);
		put16(rte_pktmbuf_mtod(m[11], uint8_t *) + 12, 0x8808);
		assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 1058);
		assert_int_equal(rte_pktmbuf_pkt_len(m[10]), 62);
		assert_int_equal(aif_link_frame_wire_bytes(l, m[0]),
				 cases[c].model == AIF_WIRE_NS3 ? 1036 : 1082);
		for (unsigned i = 0; i < 11; i++) {
			t = ready(0, t);
			assert_int_equal(tx(0, &m[i], 1, t), 1);
		}
		assert_int_equal(ports[0].ops->tx_ctrl(&ports[0], 0, m[11], t), 1);
		assert_int_equal(l->dir[0].ctr.busy_ps,
				 10 * cases[c].data_ps + cases[c].ack_ps + cases[c].pfc_ps);
		assert_int_equal(l->dir[0].ctr.tx_bytes, 10 * 1058 + 62 + 60);
		aif_time_ns at[12];
		unsigned n = 0;
		for (aif_time_ns now = 0; now < 3000 && n < 12; now++) {
			uint16_t k = rx(1, got, 16, now);
			for (uint16_t j = 0; j < k; j++, n++) {
				assert_ptr_equal(got[j], m[n]);
				at[n] = now;
			}
		}
		assert_int_equal(n, 12);
		print_message("%s: 1,000-byte payloads every %.2f ns, tenth at %lu ns; ACK %.2f ns, "
			      "PFC %.2f ns\n", aif_wire_model_name(cases[c].model),
			      cases[c].data_ps / 1e3, (unsigned long)at[9], cases[c].ack_ps / 1e3,
			      cases[c].pfc_ps / 1e3);
		assert_int_equal(at[0], (cases[c].data_ps + 999) / 1000 + 1000);
		assert_int_equal(at[9], cases[c].tenth_ns);
		assert_int_equal(at[10], cases[c].ack_ns);
		assert_int_equal(at[11], cases[c].pfc_ns);
		assert_int_equal(rte_pktmbuf_mtod(m[10], uint8_t *)[42], 0x11); /* as sent */
		for (unsigned i = 0; i < 12; i++)
			rte_pktmbuf_free(m[i]);
		aif_link_free(l);
	}
}

/* Bad parameters are refused with the reason. */
static void
test_params(void **state)
{
	char err[128];
	struct aif_link_params p = { .rate_bps = 0 };

	(void)state;
	assert_null(aif_link_create("x", &p, err, sizeof(err)));
	assert_non_null(strstr(err, "rate 0 b/s out of 1.."));
	p = (struct aif_link_params){ .rate_bps = 1000, .delay_ns = 11 * AIF_NS_PER_MS };
	assert_null(aif_link_create("x", &p, err, sizeof(err)));
	assert_non_null(strstr(err, "delay 11000000 ns"));

	/* a name is kept whole up to AIF_LINK_NAME_MAX - 1 characters (four
	 * config names and three separators), refused beyond, never cut */
	char name[AIF_LINK_NAME_MAX + 1];
	memset(name, 'n', sizeof(name) - 2);
	name[sizeof(name) - 2] = '\0';
	p = (struct aif_link_params){ .rate_bps = 1000 };
	struct aif_link *l = aif_link_create(name, &p, err, sizeof(err));
	assert_non_null(l);
	assert_string_equal(l->name, name);
	aif_link_free(l);
	name[sizeof(name) - 2] = 'n';
	name[sizeof(name) - 1] = '\0';
	assert_null(aif_link_create(name, &p, err, sizeof(err)));
	assert_non_null(strstr(err, "name longer than"));
}

/* What a link takes (aif_link_mem_bytes, which picks the EAL memory of a
 * virtual-time run) is what aif_link_create makes: at 100 Gb/s and 1 us
 * two rings of 512 slots (25 KiB); at 400 Gb/s and 10 ms of 16 M slots
 * (768 MiB a link); nothing but the link for refused parameters. */
static void
test_mem_bytes(void **state)
{
	char err[128];
	struct aif_link_params p = { .rate_bps = 100000000000ull, .delay_ns = 1000 };
	struct aif_link *l = aif_link_create("x", &p, err, sizeof(err));

	(void)state;
	assert_non_null(l);
	assert_int_equal(l->dir[0].mask + 1, 512);
	assert_int_equal(aif_link_mem_bytes(&p),
			 sizeof(*l) + 2 * (size_t)(l->dir[0].mask + 1) * sizeof(struct aif_link_slot));
	aif_link_free(l);
	p = (struct aif_link_params){ .rate_bps = 400000000000ull, .delay_ns = 10 * AIF_NS_PER_MS };
	assert_int_equal(aif_link_mem_bytes(&p),
			 sizeof(*l) + 2 * (size_t)(1u << 24) * sizeof(struct aif_link_slot));
	p.rate_bps = 0;
	assert_int_equal(aif_link_mem_bytes(&p), sizeof(*l));
	p = (struct aif_link_params){ .rate_bps = 1000, .delay_ns = 11 * AIF_NS_PER_MS };
	assert_int_equal(aif_link_mem_bytes(&p), sizeof(*l));
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_link", "aif-ut-link", 256) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("ut_link", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}

/* Send n frames of len bytes back to back from side 0 and take what
 * arrives; returns how many arrived, each checked against its copy. */
static unsigned
send_and_count(struct aif_link *l, unsigned n, uint16_t len, unsigned *flipped_bits,
	       uint64_t *digest)
{
	aif_time_ns now = 0;
	unsigned got = 0;

	*flipped_bits = 0;
	*digest = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = frame(len, (uint8_t)i);
		now = ready(0, now);
		assert_int_equal(tx(0, &m, 1, now), 1);
		struct rte_mbuf *out[4];
		uint16_t k = rx(1, out, 4, aif_link_rx_next_ns(l, 1) <= now ? now : 0);
		for (uint16_t j = 0; j < k; j++) {
			const uint8_t *d = rte_pktmbuf_mtod(out[j], const uint8_t *);
			uint8_t tag = d[0];
			for (uint16_t b = 0; b < len; b++) {
				unsigned x = (unsigned)__builtin_popcount((unsigned)(d[b] ^ tag));
				if (x) {
					/* past the headers, before the ICRC */
					assert_true(b >= 54 && b < len - 4);
					*digest = *digest * 31 + b;
				}
				*flipped_bits += x;
			}
			*digest = *digest * 131 + tag;
			got++;
			rte_pktmbuf_free(out[j]);
		}
	}
	/* the rest, after the delay */
	struct rte_mbuf *out[64];
	uint16_t k;
	while ((k = rx(1, out, 64, now + AIF_NS_PER_MS)) > 0) {
		for (uint16_t j = 0; j < k; j++) {
			const uint8_t *d = rte_pktmbuf_mtod(out[j], const uint8_t *);
			for (uint16_t b = 0; b < len; b++) {
				unsigned x = (unsigned)__builtin_popcount((unsigned)(d[b] ^ d[0]));
				if (x)
					*digest = *digest * 31 + b;
				*flipped_bits += x;
			}
			*digest = *digest * 131 + d[0];
		}
		got += k;
		rte_pktmbuf_free_bulk(out, k);
	}
	return got;
}

/* loss_rate 1%: about 1% of 20,000 frames lost (within 4 standard
 * deviations), each lost frame still takes its wire time; the same seed
 * loses the same frames, another seed others.  corrupt_rate 1: every
 * frame arrives with exactly one bit flipped past its first 54 bytes and
 * before its last 4; short frames (no payload) are left alone. */
static void
test_loss_and_corruption(void **state)
{
	char err[128];
	unsigned flipped;
	uint64_t d1, d2, d3;

	(void)state;
	struct aif_link_params p = { .rate_bps = 10000000000ull, .delay_ns = 1000,
				     .loss_rate = 0.01, .seed = 42 };
	for (int run = 0; run < 3; run++) {
		p.seed = run == 2 ? 43 : 42;
		struct aif_link *l = aif_link_create("a-b", &p, err, sizeof(err));
		assert_non_null(l);
		memset(ports, 0, sizeof(ports));
		for (uint16_t i = 0; i < 2; i++)
			aif_link_attach(l, (uint8_t)i, &ports[i]);
		unsigned got = send_and_count(l, 20000, 200, &flipped, run == 0 ? &d1 : run == 1 ? &d2 : &d3);
		const struct aif_link_ctr *c = &l->dir[0].ctr;
		print_message("seed %lu: %u of 20000 arrived, %lu lost\n", (unsigned long)p.seed,
			      got, (unsigned long)c->lost_random);
		assert_int_equal(got + c->lost_random, 20000);
		assert_true(c->lost_random > 200 - 4 * 14 && c->lost_random < 200 + 4 * 14);
		assert_int_equal(c->tx_packets, 20000);
		assert_int_equal(c->busy_ps, 20000 * ser_ps(200, p.rate_bps));
		assert_int_equal(flipped, 0);
		aif_link_free(l);
	}
	assert_true(d1 == d2);
	assert_true(d1 != d3);

	p = (struct aif_link_params){ .rate_bps = 10000000000ull, .delay_ns = 1000,
				      .corrupt_rate = 1, .seed = 7 };
	struct aif_link *l = aif_link_create("a-b", &p, err, sizeof(err));
	memset(ports, 0, sizeof(ports));
	for (uint16_t i = 0; i < 2; i++)
		aif_link_attach(l, (uint8_t)i, &ports[i]);
	assert_int_equal(send_and_count(l, 1000, 300, &flipped, &d1), 1000);
	assert_int_equal(flipped, 1000);
	assert_int_equal(l->dir[0].ctr.corrupted, 1000);
	assert_int_equal(send_and_count(l, 10, 58, &flipped, &d1), 10);
	assert_int_equal(flipped, 0);
	assert_int_equal(l->dir[0].ctr.corrupted, 1000);
	/* a rate changed at run time: off */
	aif_link_set_faults(l, -1, 0);
	assert_int_equal(send_and_count(l, 100, 300, &flipped, &d1), 100);
	assert_int_equal(flipped, 0);
	aif_link_free(l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* Down: the frames on the wire at that moment are lost (lost_down), what
 * it is handed while down is dropped (dropped_down), PFC frames too; the
 * ends' ports say link down.  Up again: frames flow. */
static void
test_down_up(void **state)
{
	(void)state;
	struct aif_link *l = make_link(10000000000ull, 5000);
	struct rte_mbuf *m[3] = { frame(1000, 1), frame(1000, 2), frame(1000, 3) };
	struct rte_mbuf *out[4];

	/* two frames: on the wire 0..819.2 and 819.2..1638.4, arriving at
	 * 5820 and 6639 */
	assert_int_equal(tx(0, &m[0], 1, 0), 1);
	assert_int_equal(tx(0, &m[1], 1, 820), 1);
	/* the first has arrived by 5820; down at 5900: the second is lost */
	assert_int_equal(rx(1, out, 4, 5820), 1);
	rte_pktmbuf_free(out[0]);
	aif_link_set_up(l, 0, 5900);
	assert_int_equal(ports[0].link_up, 0);
	assert_int_equal(ports[1].link_up, 0);
	assert_int_equal(tx(0, &m[2], 1, 6000), 1);            /* taken, dropped */
	assert_int_equal(ports[0].ops->tx_ctrl(&ports[0], 0, frame(60, 9), 6000), 1);
	assert_int_equal(rx(1, out, 4, 100000), 0);
	assert_int_equal(l->dir[0].ctr.lost_down, 1);
	assert_int_equal(l->dir[0].ctr.dropped_down, 2);
	/* up: a frame sent now arrives */
	aif_link_set_up(l, 1, 200000);
	assert_int_equal(ports[1].link_up, 1);
	struct rte_mbuf *x = frame(100, 4);
	assert_int_equal(tx(0, &x, 1, 200000), 1);
	assert_int_equal(rx(1, out, 4, 300000), 1);
	rte_pktmbuf_free(out[0]);
	aif_link_free(l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* A direction whose ends two processes drive: what the sender's copy of
 * the line took (aif_link_take) arrives from the receiver's copy
 * (aif_link_put_arrival) when it would have arrived on one line, in order;
 * a full line refuses and counts it. */
static void
test_take_and_put_arrival(void **state)
{
	struct aif_link *l = make_link(10000000000ull, 5000);
	struct rte_mbuf *m[2] = { frame(1000, 1), frame(1000, 2) }, *got[4];
	struct aif_link_slot s[3];

	(void)state;
	assert_int_equal(aif_link_take(l, 0, &s[0]), 0);
	assert_int_equal(tx(0, &m[0], 1, 0), 1);
	assert_int_equal(tx(0, &m[1], 1, ready(0, 0)), 1);
	assert_int_equal(aif_link_take(l, 0, &s[0]), 1);
	assert_int_equal(aif_link_take(l, 0, &s[1]), 1);
	assert_int_equal(aif_link_take(l, 0, &s[2]), 0);
	assert_int_equal(aif_link_rx_next_ns(l, 1), AIF_TIME_NS_NEVER);
	assert_int_equal(s[0].arrive_ns, 5820);
	assert_true(s[1].arrive_ns > s[0].arrive_ns);
	/* the receiver's copy: the same slots, the same arrivals */
	assert_int_equal(aif_link_put_arrival(l, 0, &s[0]), 0);
	assert_int_equal(aif_link_put_arrival(l, 0, &s[1]), 0);
	assert_int_equal(aif_link_rx_next_ns(l, 1), 5820);
	assert_int_equal(rx(1, got, 4, 5819), 0);
	assert_int_equal(rx(1, got, 4, s[1].arrive_ns), 2);
	assert_ptr_equal(got[0], m[0]);
	assert_ptr_equal(got[1], m[1]);
	assert_int_equal(rte_pktmbuf_mtod(got[1], uint8_t *)[0], 2);
	rte_pktmbuf_free_bulk(got, 2);
	/* full: refused, freed, counted */
	uint32_t slots = l->dir[0].mask + 1, n = 0;
	for (uint32_t i = 0; i <= slots; i++) {
		struct aif_link_slot x = { .m = frame(60, 3), .start_ns = i, .arrive_ns = 6000 + i };
		n += aif_link_put_arrival(l, 0, &x) == 0;
	}
	assert_int_equal(n, slots);
	assert_int_equal(l->dir[0].ctr.lost_full, 1);
	aif_link_free(l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_frame),
		cmocka_unit_test(test_backpressure),
		cmocka_unit_test(test_free_at_exit),
		cmocka_unit_test(test_line_rate),
		cmocka_unit_test(test_ctrl_frame),
		cmocka_unit_test(test_line_full),
		cmocka_unit_test(test_index_copies),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_mem_bytes),
		cmocka_unit_test(test_wire_model),
		cmocka_unit_test(test_loss_and_corruption),
		cmocka_unit_test(test_down_up),
		cmocka_unit_test(test_take_and_put_arrival),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
