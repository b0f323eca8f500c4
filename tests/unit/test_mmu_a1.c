/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario A1 on dataplane/mmu.c, the shared-buffer MMU, in virtual time:
 * a 16:1 incast with a known answer.  One switch, 16 senders at 100G -> 1
 * receiver at 100G, 1 us links, 32 MiB, alpha 1/8, reserve 4 KB, headroom
 * 37,500 B per port, no host congestion control; with PFC on priority 3,
 * then with the PG lossy.  (The MMU's rules one by one: test_mmu.c.)
 *
 * A1 simulation (1 ns steps, deterministic):
 *   - a packet is 1000 bytes on the wire, serialised in 80 ns at 100G:
 *     1000 B * 8 / 100 Gb/s = 80 ns.  No preamble/IFG is added (the 1000 B
 *     are the whole wire cost of a packet); the threshold arithmetic does
 *     not depend on this choice.
 *   - sender i (switch port i, 0..15) starts a packet every 80 ns while not
 *     paused; it arrives whole at the switch 80 + 1000 ns later
 *     (store-and-forward, 1 us propagation).
 *   - the switch admits it (in_port i, PG 3 -> out port 16, queue 3); the
 *     receiver port dequeues one packet every 80 ns and releases it from
 *     the MMU when it starts sending (as HPCC does at dequeue).
 *   - after every admit and every release the xoff mask of all 16 ingress
 *     ports is evaluated (a release raises the threshold of every port);
 *     a change reaches the sender 1 us later (PFC frame time neglected);
 *     a paused sender finishes the packet it is sending.
 *   - within one ns: PFC frames reach senders, packets reach the switch
 *     (port order), the receiver port dequeues, senders start packets.
 *   - senders send during [0, 300 us), then the switch drains.
 *   - the test keeps its own model of the threshold and of the XOFF/XON
 *     hysteresis and checks the MMU against it after every event.
 *
 * 4,105,912 B is the threshold on the empty pool:
 *   (32 MiB - 17 ports * 37,500 - 17 ports * 4,096 - 0) >> 3
 *   = (33,554,432 - 637,500 - 69,632) >> 3 = 32,847,300 >> 3 = 4,105,912
 * (one reserve per port, as HPCC's ConfigNPort; "32 MB" is MiB: 32,000,000
 * would give 3,911,608).  The threshold is dynamic, and in the incast all
 * 16 PGs fill together, so when the first PG meets it the pool holds ~16x
 * that PG and the threshold is ~L/24 = 1,368,637, a third of 4,105,912:
 * the test asserts both figures exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mmu.h"
#include "mmu_fixtures.h"
#include "types.h"

#define A1_SENDERS 16
#define A1_RX 16
#define A1_PKT_BYTES 1000
#define A1_SER_NS 80     /* 1000 B at 100 Gb/s */
#define A1_LINK_NS 1000  /* one-way propagation */
#define A1_SEND_NS 300000
#define A1_END_NS 10000000
#define A1_FIFO 65536
#define A1_RING 64
#define A1_OFFSET 3072

struct a1_sender {
	bool paused;                 /* as the sender sees it */
	aif_time_ns next_tx_ns;
	/* PFC frames on the way back: (time, xoff) */
	aif_time_ns pfc_ns[A1_RING];
	bool pfc_xoff[A1_RING];
	unsigned pfc_head, pfc_tail;
	/* packets on the wire to the switch: arrival times */
	aif_time_ns pkt_ns[A1_RING];
	unsigned pkt_head, pkt_tail;
	uint64_t sent;
};

struct a1_result {
	uint64_t sent, admitted, delivered;
	uint64_t drops[AIF_MMU_VERDICT_MAX];
	/* lossless run */
	aif_time_ns first_xoff_ns;
	unsigned first_xoff_port;
	uint32_t first_xoff_thr, first_xoff_shared, first_xoff_hdrm;
	uint64_t first_xoff_shared_used;
	aif_time_ns first_xon_ns;
	unsigned first_xon_port;
	uint32_t first_xon_thr, first_xon_shared;
	uint64_t xoff_events, xon_events;
	uint64_t hysteresis_evals; /* XOFF, hdrm 0, shared < thr < shared + 3072 */
	uint64_t xon_by_threshold;  /* XONs with headroom already empty before */
	uint32_t xon_max_margin;    /* of those: max threshold - (shared + 3072) */
	aif_time_ns port_first_xoff_ns[A1_SENDERS];
	uint32_t peak_hdrm[A1_SENDERS];
	uint32_t max_queue_bytes;
	uint32_t min_thr;
	aif_time_ns drained_ns;
};

struct a1_sim {
	struct aif_mmu *m;
	struct a1_sender s[A1_SENDERS];
	struct aif_mmu_charge *fifo;
	unsigned fifo_head, fifo_tail;
	uint8_t mask[A1_SENDERS]; /* the test's own hysteresis model */
	uint32_t prev_hdrm[A1_SENDERS]; /* PG 3 headroom at the previous evaluation */
	struct a1_result *r;
	bool pfc;
};

/* HPCC threshold from the test's own sums, to check the MMU's. */
static uint32_t
a1_threshold(const struct aif_mmu *m)
{
	uint64_t shared = 0;

	for (unsigned i = 0; i <= A1_RX; i++)
		for (unsigned g = 0; g < AIF_MMU_N_PG; g++)
			shared += m->port[i].pg[g].shared_bytes;
	assert_int_equal(shared, m->shared_used_bytes);
	return (uint32_t)((33554432ull - 17 * 37500 - 17 * 4096 - shared) >> 3);
}

/* After every MMU event: every ingress port's mask against the model. */
static void
a1_check_masks(struct a1_sim *sim, aif_time_ns now)
{
	struct a1_result *r = sim->r;
	uint32_t thr = a1_threshold(sim->m);

	assert_int_equal(aif_mmu_threshold_bytes(sim->m), thr);
	if (thr < r->min_thr)
		r->min_thr = thr;
	for (unsigned i = 0; i < A1_SENDERS; i++) {
		const struct aif_mmu_pg *g = aif_mmu_pg_get(sim->m, (uint16_t)i, PG3);
		uint8_t got = aif_mmu_xoff_mask(sim->m, (uint16_t)i);
		uint8_t want = sim->mask[i];

		if (!sim->pfc) {
			assert_int_equal(got, 0);
			continue;
		}
		if (want) {
			if (g->headroom_bytes == 0 &&
			    (g->shared_bytes == 0 || g->shared_bytes + A1_OFFSET <= thr))
				want = 0;
			else if (g->headroom_bytes == 0 && g->shared_bytes < thr)
				r->hysteresis_evals++;
		} else if (g->headroom_bytes > 0 ||
			   (g->shared_bytes > 0 && g->shared_bytes >= thr)) {
			want = 1u << PG3;
		}
		assert_int_equal(got, want);
		if (want == sim->mask[i]) {
			sim->prev_hdrm[i] = g->headroom_bytes;
			continue;
		}
		sim->mask[i] = want;
		if (want) {
			r->xoff_events++;
			/* Reached within one packet of the threshold. */
			assert_true(g->shared_bytes + A1_PKT_BYTES > thr);
			assert_true(g->headroom_bytes <= A1_PKT_BYTES);
			if (r->port_first_xoff_ns[i] == 0)
				r->port_first_xoff_ns[i] = now;
			if (r->xoff_events == 1) {
				r->first_xoff_ns = now;
				r->first_xoff_port = i;
				r->first_xoff_thr = thr;
				r->first_xoff_shared = g->shared_bytes;
				r->first_xoff_hdrm = g->headroom_bytes;
				r->first_xoff_shared_used = sim->m->shared_used_bytes;
			}
		} else {
			r->xon_events++;
			/*
			 * Headroom already empty: the XON came from this event moving
			 * shared (-1000 at most) or the threshold (+125 at most), so it
			 * lands within one step of threshold - 3072.
			 */
			if (sim->prev_hdrm[i] == 0 && g->shared_bytes != 0) {
				uint32_t margin = thr - (g->shared_bytes + A1_OFFSET);

				r->xon_by_threshold++;
				if (margin > r->xon_max_margin)
					r->xon_max_margin = margin;
				assert_true(margin < A1_PKT_BYTES + 126);
			}
			if (r->xon_events == 1) {
				r->first_xon_ns = now;
				r->first_xon_port = i;
				r->first_xon_thr = thr;
				r->first_xon_shared = g->shared_bytes;
			}
		}
		/* The PFC frame reaches the sender one link delay later. */
		{
			struct a1_sender *s = &sim->s[i];

			assert_true(s->pfc_tail - s->pfc_head < A1_RING);
			s->pfc_ns[s->pfc_tail % A1_RING] = now + A1_LINK_NS;
			s->pfc_xoff[s->pfc_tail % A1_RING] = want != 0;
			s->pfc_tail++;
		}
		sim->prev_hdrm[i] = g->headroom_bytes;
	}
}

static void
a1_run(bool pfc, struct a1_result *r)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct a1_sim sim;
	aif_time_ns busy_until = 0, now;

	memset(r, 0, sizeof(*r));
	memset(&sim, 0, sizeof(sim));
	r->min_thr = UINT32_MAX;
	a1_params(&p, pfc);
	if (!pfc) /* same pool arithmetic: the headroom stays set aside */
		for (unsigned i = 0; i < 17; i++)
			p.port[i].headroom_bytes = 37500;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	sim.m = mmu_new(&c);
	sim.fifo = calloc(A1_FIFO, sizeof(*sim.fifo));
	assert_non_null(sim.fifo);
	sim.r = r;
	sim.pfc = pfc;
	assert_int_equal(aif_mmu_threshold_bytes(sim.m), 4105912);

	for (now = 0; now < A1_END_NS; now++) {
		/* 1. PFC frames reach the senders. */
		for (unsigned i = 0; i < A1_SENDERS; i++) {
			struct a1_sender *s = &sim.s[i];

			while (s->pfc_head != s->pfc_tail &&
			       s->pfc_ns[s->pfc_head % A1_RING] == now) {
				s->paused = s->pfc_xoff[s->pfc_head % A1_RING];
				s->pfc_head++;
			}
		}
		/* 2. Packets reach the switch, port order. */
		for (unsigned i = 0; i < A1_SENDERS; i++) {
			struct a1_sender *s = &sim.s[i];
			struct aif_mmu_charge ch;
			enum aif_mmu_verdict v;

			if (s->pkt_head == s->pkt_tail || s->pkt_ns[s->pkt_head % A1_RING] != now)
				continue;
			s->pkt_head++;
			v = aif_mmu_admit(sim.m, (uint16_t)i, PG3, A1_RX, Q3, A1_PKT_BYTES,
					  pfc, &ch);
			if (v == AIF_MMU_ADMIT) {
				assert_true(sim.fifo_tail - sim.fifo_head < A1_FIFO);
				sim.fifo[sim.fifo_tail++ % A1_FIFO] = ch;
				r->admitted++;
			} else {
				r->drops[v]++;
			}
			a1_check_masks(&sim, now);
		}
		/* 3. The receiver port starts its next packet. */
		if (now >= busy_until && sim.fifo_head != sim.fifo_tail) {
			aif_mmu_release(sim.m, &sim.fifo[sim.fifo_head++ % A1_FIFO]);
			busy_until = now + A1_SER_NS;
			r->delivered++;
			a1_check_masks(&sim, now);
		}
		/* 4. Senders start packets. */
		for (unsigned i = 0; i < A1_SENDERS; i++) {
			struct a1_sender *s = &sim.s[i];

			if (now >= A1_SEND_NS || s->paused || now < s->next_tx_ns)
				continue;
			assert_true(s->pkt_tail - s->pkt_head < A1_RING);
			s->pkt_ns[s->pkt_tail++ % A1_RING] = now + A1_SER_NS + A1_LINK_NS;
			s->next_tx_ns = now + A1_SER_NS;
			s->sent++;
			r->sent++;
		}
		if (now > A1_SEND_NS && sim.fifo_head == sim.fifo_tail &&
		    now >= busy_until) {
			bool in_flight = false;

			for (unsigned i = 0; i < A1_SENDERS; i++)
				in_flight |= sim.s[i].pkt_head != sim.s[i].pkt_tail;
			if (!in_flight) {
				r->drained_ns = now;
				break;
			}
		}
	}
	assert_true(r->drained_ns != 0);

	for (unsigned i = 0; i < A1_SENDERS; i++) {
		r->peak_hdrm[i] = sim.m->wm.pg_headroom_bytes[i][PG3];
		/* Per-PG counters: every packet sent was admitted or dropped once. */
		{
			uint64_t seen = 0;

			for (unsigned v = 0; v < AIF_MMU_VERDICT_MAX; v++)
				seen += sim.m->pg_ctr[i][PG3].packets[v];
			assert_int_equal(seen, sim.s[i].sent);
			assert_int_equal(sim.m->pg_ctr[i][PG3].bytes[AIF_MMU_ADMIT],
					 sim.m->pg_ctr[i][PG3].packets[AIF_MMU_ADMIT] * A1_PKT_BYTES);
		}
	}
	r->max_queue_bytes = sim.m->wm.queue_bytes[A1_RX][Q3];
	/* Everything charged came back. */
	assert_int_equal(r->admitted, r->delivered);
	assert_int_equal(r->sent, r->admitted + r->drops[AIF_MMU_DROP_SHARED_LIMIT] +
			 r->drops[AIF_MMU_DROP_HEADROOM_OVERFLOW] +
			 r->drops[AIF_MMU_DROP_EGRESS_LIMIT] + r->drops[AIF_MMU_DROP_POOL_FULL]);
	assert_empty(sim.m);
	if (pfc) /* the last releases resumed every port */
		for (unsigned i = 0; i < A1_SENDERS; i++)
			assert_int_equal(sim.mask[i], 0);
	free(sim.fifo);
	free(sim.m);
}

static void
test_a1_incast_pfc(void **state)
{
	static struct a1_result r;
	uint32_t peak = 0;

	(void)state;
	a1_run(true, &r);

	printf("# A1 PFC: sent %lu, admitted %lu, drops %lu, drained at %lu ns\n",
	       (unsigned long)r.sent, (unsigned long)r.admitted,
	       (unsigned long)(r.sent - r.admitted), (unsigned long)r.drained_ns);
	printf("# A1 PFC: threshold on an empty pool 4105912 B; first XOFF at %lu ns, "
	       "port %u: threshold %u B, PG shared %u B, headroom %u B, pool shared %lu B\n",
	       (unsigned long)r.first_xoff_ns, r.first_xoff_port, r.first_xoff_thr,
	       r.first_xoff_shared, r.first_xoff_hdrm,
	       (unsigned long)r.first_xoff_shared_used);
	printf("# A1 PFC: first XON at %lu ns, port %u: threshold %u B, PG shared %u B "
	       "(shared + 3072 = %u <= threshold)\n",
	       (unsigned long)r.first_xon_ns, r.first_xon_port, r.first_xon_thr,
	       r.first_xon_shared, r.first_xon_shared + A1_OFFSET);
	printf("# A1 PFC: %lu XOFF, %lu XON transitions; %lu evaluations held XOFF "
	       "in the hysteresis band; lowest threshold %u B\n",
	       (unsigned long)r.xoff_events, (unsigned long)r.xon_events,
	       (unsigned long)r.hysteresis_evals, r.min_thr);
	printf("# A1 PFC: %lu XON with headroom already empty, threshold - (shared + 3072) "
	       "at most %u B there\n", (unsigned long)r.xon_by_threshold, r.xon_max_margin);
	printf("# A1 PFC: peak headroom per port (B):");
	for (unsigned i = 0; i < A1_SENDERS; i++) {
		printf(" %u", r.peak_hdrm[i]);
		if (r.peak_hdrm[i] > peak)
			peak = r.peak_hdrm[i];
	}
	printf("\n# A1 PFC: max queue %u B\n", r.max_queue_bytes);

	/* Lossless: nothing dropped, for any reason. */
	for (unsigned v = 1; v < AIF_MMU_VERDICT_MAX; v++)
		assert_int_equal(r.drops[v], 0);
	assert_int_equal(r.sent, r.admitted);
	/* Every ingress port went XOFF, and headroom never passed 37,500 B. */
	for (unsigned i = 0; i < A1_SENDERS; i++) {
		assert_true(r.port_first_xoff_ns[i] != 0);
		assert_true(r.peak_hdrm[i] <= 37500);
	}
	assert_true(r.xon_events > 0);
	assert_true(r.hysteresis_evals > 0);

	/*
	 * The threshold starts at 4,105,912 B on the empty pool (checked in
	 * a1_run) and falls as the 16 PGs fill together: a PG meets it when
	 * s = (L - 16 s) / 8, i.e. s = L / 24 = 32,847,300 / 24 = 1,368,637 B,
	 * so the threshold at the first XOFF is about a third of 4,105,912.
	 *
	 * Exactly: at t = 118,200 ns = 1080 + 1464 * 80, port 0 has received
	 * its 1465th packet; its shared is 1,368,904 (1373 held - 4096 of
	 * reserve), 75 B under the threshold (L - S) >> 3 = 1,368,979.  Port
	 * 1's 1465th packet (same ns, port order) lowers the threshold by 125
	 * to 1,368,854 <= 1,368,904: port 0 goes XOFF.  Pool then: 1465 + 1465
	 * + 14 * 1464 received - 1464 sent = 21,962 packets = 21,962,000 B,
	 * minus 16 reserves of 4096 = 21,896,464 B shared;
	 * (32,847,300 - 21,896,464) >> 3 = 10,950,836 >> 3 = 1,368,854.
	 */
	assert_int_equal(r.first_xoff_ns, 118200);
	assert_int_equal(r.first_xoff_port, 0);
	assert_int_equal(r.first_xoff_shared_used, 21896464);
	assert_int_equal(r.first_xoff_thr, 1368854);
	assert_int_equal(r.first_xoff_thr,
			 (uint32_t)((32847300 - r.first_xoff_shared_used) >> 3));
	assert_int_equal(r.first_xoff_shared, 1368904);
	assert_int_equal(r.first_xoff_hdrm, 0);
	for (unsigned i = 0; i < A1_SENDERS; i++) /* all within one packet time */
		assert_in_range(r.port_first_xoff_ns[i], 118200, 118200 + A1_SER_NS);

	/*
	 * First XON: port 0 once its 25,000 B of headroom drained (released
	 * first, 16 ports x ~25,000 B at 12.5 B/ns: ~32 us after the senders
	 * stopped) and its shared + 3072 <= threshold.
	 */
	assert_int_equal(r.first_xon_ns, 152120);
	assert_int_equal(r.first_xon_port, 0);
	assert_int_equal(r.first_xon_shared, 1366904);
	assert_int_equal(r.first_xon_thr, 1370229);
	assert_true(r.first_xon_shared + A1_OFFSET <= r.first_xon_thr);

	/* Whole run, deterministic. */
	assert_int_equal(r.sent, 25704);
	assert_int_equal(r.xoff_events, 85);
	assert_int_equal(r.xon_events, 85);
	assert_int_equal(r.xon_by_threshold, 85);
	assert_int_equal(r.xon_max_margin, 1003);
	assert_int_equal(r.max_queue_bytes, 22351000);
	assert_int_equal(r.drained_ns, 2057400);
	assert_int_equal(peak, 25000);
	assert_int_equal(r.peak_hdrm[8], 24000);
}

static void
test_a1_incast_lossy(void **state)
{
	static struct a1_result r;

	(void)state;
	a1_run(false, &r);
	printf("# A1 lossy: sent %lu, admitted %lu, dropped %lu (shared_limit %lu), "
	       "max queue %u B, lowest threshold %u B\n",
	       (unsigned long)r.sent, (unsigned long)r.admitted,
	       (unsigned long)(r.sent - r.admitted),
	       (unsigned long)r.drops[AIF_MMU_DROP_SHARED_LIMIT], r.max_queue_bytes, r.min_thr);
	assert_true(r.drops[AIF_MMU_DROP_SHARED_LIMIT] > 0);
	assert_int_equal(r.drops[AIF_MMU_DROP_HEADROOM_OVERFLOW], 0);
	assert_int_equal(r.drops[AIF_MMU_DROP_EGRESS_LIMIT], 0);
	assert_int_equal(r.drops[AIF_MMU_DROP_POOL_FULL], 0);
	assert_int_equal(r.xoff_events, 0);
	/* Nobody paused: every sender sent at line rate for 300 us. */
	assert_int_equal(r.sent, 16 * (A1_SEND_NS / A1_SER_NS));
	assert_int_equal(r.admitted, 25711);
	assert_int_equal(r.drops[AIF_MMU_DROP_SHARED_LIMIT], 34289);
	assert_int_equal(r.max_queue_bytes, 21963000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a1_incast_pfc),
		cmocka_unit_test(test_a1_incast_lossy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
