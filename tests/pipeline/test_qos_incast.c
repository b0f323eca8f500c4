/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of PFC generation (dataplane/qos.h, pipelines/egress.c):
 * one whole switch ("leaf0", four 100G ports) run in virtual time
 * (qos_fixture.h: the config, the harness, the frames).
 *
 * Incast from three ports into one shaped to 10G, each sender emulated
 * behind its port and honouring the PFC frames it gets as a NIC does:
 * lossless, XOFF, refresh and XON checked byte by byte and no frame lost;
 * lossy, drops and no PFC.  And the XON each paused peer gets when the
 * switch stops.
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
/* 1. Incast: PFC generation, lossless and lossy                     */

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_incast_lossless, test_setup),
		cmocka_unit_test_setup(test_incast_lossy, test_setup),
		cmocka_unit_test_setup(test_xon_at_stop, test_setup),
	};
	return cmocka_run_group_tests_name("qos_incast", tests, group_setup, group_teardown);
}
