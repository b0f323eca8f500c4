/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_adaptive.c: quality bands and the adaptive
 * scheme.  No EAL: group, members, a calloc'ed aif_lb_state and the
 * aif_lb_ctx are built by hand; the test plays the worker, calling
 * aif_lb_adaptive_tick with synthetic per-port byte counters and queue
 * depths at virtual times it chooses; flows come from a seeded xorshift.
 *
 *   - Queue bands: every threshold of the table and its neighbours.
 *   - Load EWMA exact over a few ticks (integers worked out by hand and in
 *     Python: 12.5e9, 23437500000, 33007812500 bit/s ... at 100 Gb/s and
 *     gain 1/8), a late tick measuring over the real interval, the decay,
 *     a port of unknown speed banded by its queue, and 100% load reaching
 *     band 7 at exactly the 16th tick (7/8 of the line rate).
 *   - Bands change only when now_ns reaches next_band_ns, then next_band_ns =
 *     now_ns + period.
 *   - Flowlet mode: member 3's queue held at 4 MB: once its band is
 *     refreshed, 0 new flowlets start there (before, they do); an open
 *     flowlet keeps its member until its gap.
 *   - Packet mode: once refreshed, 0 packets go to the full member.
 *   - Flows stay on their member while bands do not change; when a member
 *     leaves the best band, only its flows move (rendezvous).
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

#include "lb.h"
#include "rng.h"

#define N_MEMBERS 8
#define N_PORTS (N_MEMBERS + 1) /* member i on port i + 1; port 0 unused */
#define SPEED_BPS 100000000000ull
#define PERIOD_NS 1000u
#define GAP_NS (100 * AIF_NS_PER_US)
#define AGE_NS (2 * AIF_NS_PER_MS)
#define SLOT0 200u
#define PKT_BYTES 1000u

struct fix {
	struct aif_group g;
	struct aif_member mem[AIF_MAX_MEMBERS];
	struct aif_lb_state *st;
	struct aif_lb_params p;
	uint32_t qb[AIF_MAX_PORTS];
	uint64_t tx[AIF_MAX_PORTS];
	uint64_t speed[AIF_MAX_PORTS];
	struct aif_rng rng;
	struct aif_lb_ctx x;
	struct aif_pkt pkt;
	bool no_tx; /* select without counting the bytes as sent */
};

static struct fix *
fix_new(uint8_t mode)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->st = calloc(1, sizeof(*f->st));
	assert_non_null(f->st);
	f->st->flowlet = calloc(AIF_FLOWLET_MAX, sizeof(*f->st->flowlet)); /* control's part */
	assert_non_null(f->st->flowlet);
	f->g.n = N_MEMBERS;
	f->g.scheme = AIF_LB_ADAPTIVE;
	for (uint16_t i = 0; i < N_MEMBERS; i++) {
		f->mem[i].port = i + 1;
		f->mem[i].ctr_slot = SLOT0 + i;
	}
	for (uint16_t i = 0; i < N_PORTS; i++)
		f->speed[i] = SPEED_BPS;
	f->p.scheme = AIF_LB_ADAPTIVE;
	f->p.flowlet_gap_ns = GAP_NS;
	f->p.flowlet_age_ns = AGE_NS;
	f->p.flowlet_table_size = 4096;
	f->p.adaptive_period_ns = PERIOD_NS;
	f->p.adaptive_mode = mode;
	f->p.adaptive_ewma_shift = 3;
	aif_rng_seed(&f->rng, 0xada9717eull);
	f->x.st = f->st;
	f->x.p = &f->p;
	f->x.port_qbytes = f->qb;
	f->x.rng = &f->rng;
	f->x.group = 9;
	return f;
}

static void
fix_free(struct fix *f)
{
	free(f->st->flowlet);
	free(f->st);
	free(f);
}

static void
tick(struct fix *f, aif_time_ns now_ns)
{
	aif_lb_adaptive_tick(f->st, &f->p, f->tx, f->qb, f->speed, N_PORTS, now_ns);
}

/* One packet: select, then "send" it (tx bytes on the member's port). */
static uint32_t
sel(struct fix *f, uint32_t hash, aif_time_ns now_ns)
{
	uint32_t r;

	f->pkt.hash = hash;
	f->x.now_ns = now_ns;
	r = aif_lb_adaptive_select(&f->g, f->mem, NULL, &f->pkt, &f->x);
	assert_true(r < f->g.n);
	if (!f->no_tx)
		f->tx[f->mem[r].port] += PKT_BYTES;
	return r;
}

static void
test_qbytes_band(void **state)
{
	static const struct { uint32_t q; uint8_t band; } cases[] = {
		{ 0, 0 }, { 1023, 0 }, { 1024, 1 }, { 4095, 1 }, { 4096, 2 },
		{ 16383, 2 }, { 16384, 3 }, { 65535, 3 }, { 65536, 4 },
		{ 262143, 4 }, { 262144, 5 }, { 524287, 5 }, { 524288, 6 },
		{ 1048575, 6 }, { 1048576, 7 }, { 4u << 20, 7 }, { UINT32_MAX, 7 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(aif_lb_qbytes_band(cases[i].q), cases[i].band);
}

static void
test_ewma_exact(void **state)
{
	struct fix *f = fix_new(AIF_ADAPTIVE_PACKET);
	/* port 1: 100 Gb/s, port 2: 50 Gb/s, port 3: speed unknown, 64 KiB queued */
	static const uint64_t e1[] = { 12500000000ull, 23437500000ull, 33007812500ull };
	static const uint64_t e2[] = { 6250000000ull, 11718750000ull, 16503906250ull };
	static const uint8_t b1[] = { 1, 1, 2 }, b2[] = { 0, 0, 1 };

	(void)state;
	f->speed[3] = 0;
	f->qb[3] = 65536;
	tick(f, 0); /* first refresh: no interval yet, bands from queues */
	assert_int_equal(f->st->load_ewma_bps[1], 0);
	assert_int_equal(f->st->band[3], 4);
	assert_int_equal(f->st->next_band_ns, PERIOD_NS);
	for (int k = 0; k < 3; k++) {
		f->tx[1] += 12500; /* 100 Gb/s over 1 us */
		f->tx[2] += 6250;
		f->tx[3] += 12500;
		tick(f, (aif_time_ns)(k + 1) * PERIOD_NS);
		assert_int_equal(f->st->load_ewma_bps[1], e1[k]);
		assert_int_equal(f->st->load_ewma_bps[2], e2[k]);
		assert_int_equal(f->st->load_ewma_bps[3], e1[k]);
		assert_int_equal(f->st->band[1], b1[k]);
		assert_int_equal(f->st->band[2], b2[k]);
		assert_int_equal(f->st->band[3], 4); /* load ignored: speed unknown */
		assert_int_equal(f->st->band[4], 0);
	}
	/* a late tick: 20000 bytes over 1600 ns is still 100 Gb/s */
	f->tx[1] += 20000;
	tick(f, 4600);
	assert_int_equal(f->st->load_ewma_bps[1], 41381835937ull);
	assert_int_equal(f->st->band[1], 3);
	assert_int_equal(f->st->next_band_ns, 5600);
	/* nothing sent: decays by 1/8 */
	tick(f, 5600);
	assert_int_equal(f->st->load_ewma_bps[1], 36209106445ull);
	assert_int_equal(f->st->band[1], 2);
	/* port 2 sent nothing since 3000 and its counter goes backwards
	 * (cleared): 0 bytes sent, a third decay by 1/8 */
	f->tx[2] = 0;
	tick(f, 6600);
	assert_int_equal(f->st->load_ewma_bps[2], 11056327821ull);
	fix_free(f);

	/* line rate: 7/8 of it (band 7) at exactly the 16th refresh */
	f = fix_new(AIF_ADAPTIVE_PACKET);
	tick(f, 0);
	for (int k = 1; k <= 16; k++) {
		f->tx[5] += 12500;
		tick(f, (aif_time_ns)k * PERIOD_NS);
		if (k == 15) {
			assert_int_equal(f->st->load_ewma_bps[5], 86506618623ull);
			assert_int_equal(f->st->band[5], 6);
		}
	}
	assert_int_equal(f->st->load_ewma_bps[5], 88193291295ull);
	assert_int_equal(f->st->band[5], 7);
	fix_free(f);
}

static void
test_refresh_at_period(void **state)
{
	struct fix *f = fix_new(AIF_ADAPTIVE_PACKET);

	(void)state;
	tick(f, 0);
	f->qb[1] = 1u << 20;
	tick(f, 999);
	assert_int_equal(f->st->band[1], 0);
	tick(f, 1000);
	assert_int_equal(f->st->band[1], 7);
	f->qb[1] = 0;
	tick(f, 1500);
	assert_int_equal(f->st->band[1], 7);
	tick(f, 1999);
	assert_int_equal(f->st->band[1], 7);
	tick(f, 2000);
	assert_int_equal(f->st->band[1], 0);
	/* late: next = now + period, not next + period */
	f->qb[1] = 1u << 20;
	tick(f, 3400);
	assert_int_equal(f->st->band[1], 7);
	assert_int_equal(f->st->next_band_ns, 4400);
	f->qb[1] = 0;
	tick(f, 4000);
	tick(f, 4399);
	assert_int_equal(f->st->band[1], 7);
	tick(f, 4400);
	assert_int_equal(f->st->band[1], 0);
	fix_free(f);
}

/*
 * 4000 flows, 4 packets per 1 us step of random flows (a flow's gaps are
 * mostly longer than 100 us: many flowlets), ticks every step, 6 ms.  At
 * 2 ms member 3's queue fills (4 MB) and stays full.  Returns the packets
 * and flowlet starts on member 3 before and after its band was refreshed.
 */
struct steer_result {
	uint64_t starts_before, starts_after;
	uint64_t pkts_before, pkts_after, pkts_after_age;
	uint64_t other_starts_after[N_MEMBERS];
};

static struct steer_result
steer(uint8_t mode)
{
	struct fix *f = fix_new(mode);
	struct steer_result r = { 0 };
	struct aif_rng flows;
	uint32_t hashes[4000];
	const aif_time_ns fill_ns = 2 * AIF_NS_PER_MS + 500; /* mid-period */
	aif_time_ns refreshed_ns = 0;
	uint64_t s3 = 0;

	aif_rng_seed(&flows, 31337);
	for (unsigned i = 0; i < 4000; i++)
		hashes[i] = (uint32_t)aif_rng_next(&flows);
	for (aif_time_ns t = 0; t < 6 * AIF_NS_PER_MS; t += AIF_NS_PER_US) {
		if (t >= fill_ns)
			f->qb[f->mem[3].port] = 4u << 20;
		tick(f, t);
		if (refreshed_ns == 0 && f->st->band[f->mem[3].port] == 7) {
			refreshed_ns = t;
			s3 = f->st->flowlet_starts[SLOT0 + 3];
			r.starts_before = s3;
			for (int i = 0; i < N_MEMBERS; i++)
				r.other_starts_after[i] = f->st->flowlet_starts[SLOT0 + i];
		}
		for (int k = 0; k < 4; k++) {
			aif_time_ns now = t + (aif_time_ns)k * 200;
			uint32_t m = sel(f, hashes[aif_rng_below(&flows, 4000)], now);
			if (m != 3)
				continue;
			if (refreshed_ns == 0)
				r.pkts_before++;
			else
				r.pkts_after++;
			if (refreshed_ns != 0 && now >= refreshed_ns + AGE_NS)
				r.pkts_after_age++;
		}
	}
	assert_int_equal(refreshed_ns, 2 * AIF_NS_PER_MS + AIF_NS_PER_US);
	r.starts_after = f->st->flowlet_starts[SLOT0 + 3] - s3;
	for (int i = 0; i < N_MEMBERS; i++)
		r.other_starts_after[i] = f->st->flowlet_starts[SLOT0 + i] - r.other_starts_after[i];
	fix_free(f);
	return r;
}

static void
test_flowlet_steers_away(void **state)
{
	struct steer_result r = steer(AIF_ADAPTIVE_FLOWLET);

	(void)state;
	print_message("adaptive flowlet: member 3 (4 MB queued): %lu flowlets "
		      "started there before its band was refreshed, %lu after; "
		      "packets on it %lu before, %lu after (open flowlets), %lu "
		      "after the refresh + 2 ms; new flowlets on the others after: "
		      "%lu %lu %lu - %lu %lu %lu %lu\n",
		      (unsigned long)r.starts_before, (unsigned long)r.starts_after,
		      (unsigned long)r.pkts_before, (unsigned long)r.pkts_after,
		      (unsigned long)r.pkts_after_age,
		      (unsigned long)r.other_starts_after[0], (unsigned long)r.other_starts_after[1],
		      (unsigned long)r.other_starts_after[2], (unsigned long)r.other_starts_after[4],
		      (unsigned long)r.other_starts_after[5], (unsigned long)r.other_starts_after[6],
		      (unsigned long)r.other_starts_after[7]);
	assert_true(r.starts_before > 100); /* it was in use */
	assert_int_equal(r.starts_after, 0);
	for (int i = 0; i < N_MEMBERS; i++)
		if (i != 3)
			assert_true(r.other_starts_after[i] > 500);
}

static void
test_packet_steers_away(void **state)
{
	struct steer_result r = steer(AIF_ADAPTIVE_PACKET);

	(void)state;
	print_message("adaptive packet: member 3 (4 MB queued): %lu packets before "
		      "its band was refreshed, %lu after\n",
		      (unsigned long)r.pkts_before, (unsigned long)r.pkts_after);
	assert_true(r.pkts_before > 500);
	assert_int_equal(r.pkts_after, 0);
	assert_int_equal(r.starts_before + r.starts_after, 0); /* no flowlet table */
}

/* An open flowlet keeps its member when the band worsens; its gap moves it. */
static void
test_flowlet_keeps_open(void **state)
{
	struct fix *f = fix_new(AIF_ADAPTIVE_FLOWLET);
	const uint32_t h = 0x600dcafeu;
	uint32_t m0, m1;

	(void)state;
	tick(f, 0);
	m0 = sel(f, h, 10);
	f->qb[f->mem[m0].port] = 4u << 20;
	tick(f, PERIOD_NS);
	assert_int_equal(f->st->band[f->mem[m0].port], 7);
	assert_int_equal(sel(f, h, PERIOD_NS + 10), m0);
	assert_int_equal(sel(f, h, PERIOD_NS + 10 + GAP_NS - 1), m0);
	m1 = sel(f, h, PERIOD_NS + 10 + 2 * GAP_NS);
	assert_int_not_equal(m1, m0);
	assert_int_equal(f->st->reselections[SLOT0 + m1], 1);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + m0], 1);
	assert_int_equal(f->st->flowlet_starts[SLOT0 + m1], 1);
	fix_free(f);
}

/* Same bands, same member; a member leaving the best band moves only its flows. */
static void
test_stable_and_resilient(void **state)
{
	struct fix *f = fix_new(AIF_ADAPTIVE_PACKET);
	struct aif_rng flows;
	uint32_t hashes[2000];
	uint8_t first[2000];
	unsigned count[N_MEMBERS] = { 0 }, moved_other = 0, moved_own = 0, on2 = 0;
	unsigned back_to2 = 0, moved_back_elsewhere = 0;
	aif_time_ns t = 0;

	(void)state;
	aif_rng_seed(&flows, 2024);
	f->no_tx = true; /* bands from queues only */
	f->qb[f->mem[6].port] = 65536; /* constant band 4 */
	tick(f, t);
	for (unsigned i = 0; i < 2000; i++) {
		hashes[i] = (uint32_t)aif_rng_next(&flows);
		first[i] = (uint8_t)sel(f, hashes[i], t);
		count[first[i]]++;
	}
	assert_int_equal(count[6], 0);
	for (int i = 0; i < N_MEMBERS; i++)
		if (i != 6)
			assert_true(count[i] > 2000 / 7 - 5 * 15 && count[i] < 2000 / 7 + 5 * 15);
	/* 2000 refreshes with bands unchanged: no flow moves */
	for (int k = 0; k < 2000; k++) {
		t += PERIOD_NS;
		tick(f, t);
		unsigned i = aif_rng_below(&flows, 2000);
		assert_int_equal(sel(f, hashes[i], t + 1), first[i]);
	}
	/* member 2 leaves the best band: only its flows move */
	f->qb[f->mem[2].port] = 8192;
	t += PERIOD_NS;
	tick(f, t);
	assert_int_equal(f->st->band[f->mem[2].port], 2);
	for (unsigned i = 0; i < 2000; i++) {
		uint32_t m = sel(f, hashes[i], t + 1);
		assert_int_not_equal(m, 2);
		assert_int_not_equal(m, 6);
		if (first[i] == 2) {
			moved_own += m != 2;
			on2++;
		} else {
			moved_other += m != first[i];
		}
	}
	/* it comes back: its flows return to it, the others stay */
	f->qb[f->mem[2].port] = 0;
	t += PERIOD_NS;
	tick(f, t);
	for (unsigned i = 0; i < 2000; i++) {
		uint32_t m = sel(f, hashes[i], t + 1);
		back_to2 += first[i] == 2 && m == 2;
		moved_back_elsewhere += m != first[i];
	}
	print_message("adaptive rendezvous: member 2 leaves the best band: %u of its %u "
		      "flows move, %u of the other %u flows move; it returns: %u come "
		      "back, %u flows differ from the start\n",
		      moved_own, on2, moved_other, 2000 - on2, back_to2, moved_back_elsewhere);
	assert_int_equal(moved_own, on2);
	assert_int_equal(moved_other, 0);
	assert_int_equal(back_to2, on2);
	assert_int_equal(moved_back_elsewhere, 0);
	fix_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qbytes_band),
		cmocka_unit_test(test_ewma_exact),
		cmocka_unit_test(test_refresh_at_period),
		cmocka_unit_test(test_flowlet_steers_away),
		cmocka_unit_test(test_packet_steers_away),
		cmocka_unit_test(test_flowlet_keeps_open),
		cmocka_unit_test(test_stable_and_resilient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
