/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of the egress scheduler and packet trimming
 * (dataplane/qos.h, pipelines/egress.c): one whole switch ("leaf0", four
 * 100G ports) run in virtual time (qos_fixture.h: the config, the harness,
 * the frames).
 *
 * Strict priority over a backlog; the shaper the other QoS tests rely on
 * sending its rate to within one frame whatever the service period; packet
 * trimming (UDP over IPv4 and IPv6 trimmed into a strict queue ahead of the
 * backlog, TCP dropped, and with trimming off the same load dropped at the
 * shared limit).
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
#include <jansson.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "clock.h"
#include "counters.h"
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

#include "qos_fixture.h"

/* ---------------------------------------------------------------- */
/* 1. Strict priority over a backlog                                 */

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
/* 2. The shaper the other tests rely on                            */

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
/* 3. Packet trimming                                                */

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
		cmocka_unit_test_setup(test_strict_priority, test_setup),
		cmocka_unit_test_setup(test_shaper_rate, test_setup),
		cmocka_unit_test_setup(test_trimming, test_setup),
	};
	return cmocka_run_group_tests_name("qos_egress", tests, group_setup, group_teardown);
}
