/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of ECN marking and WRED (dataplane/qos.h,
 * pipelines/egress.c): one whole switch ("leaf0", four 100G ports) run in
 * virtual time (qos_fixture.h: the config, the harness, the frames).
 *
 * The marking and drop curves against the queue depth each decision saw
 * (reconstructed from the scheduler's dequeue count and the MMU's queue
 * bytes after each step): CE marks on an ECT lossless queue without loss,
 * WRED drops of Not-ECT frames on a lossy one; and marking at enqueue
 * deciding on the bytes queued before the frame joins.
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
/* 1. ECN marking and WRED through the pipeline                      */

#define ECN_KMIN 10000
#define ECN_KMAX 50000
#define ECN_PMAX 0.2
#define ECN_PKTS 200
#define ECN_MAX_STEPS 2000

/* Square root of x >= 0 by Newton's method (no libm in this link). */
static double
sqrt_pos(double x)
{
	double r = x > 1 ? x : 1;

	for (unsigned i = 0; i < 64; i++)
		r = 0.5 * (r + x / r);
	return r;
}

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

/*
 * Marking at dequeue decides on the codepoint each frame carried when it
 * was queued (the egress keeps it with the frame's charge instead of
 * reading the frame again at dequeue): a step at 0 B (congested iff bytes
 * are left behind) on lossless queue 3, twelve frames cycling ECT(0),
 * ECT(1), CE and Not-ECT in one burst.  Every frame but the last leaves
 * bytes behind: ECT(0) and ECT(1) become CE, CE stays (counted as CE on
 * arrival), Not-ECT passes unmarked (a lossless queue never drops); the
 * last one leaves as it came.
 */
static void
test_ecn_codepoints(void **state)
{
	static const uint8_t in[4] = { AIF_ECN_ECT0, AIF_ECN_ECT1, AIF_ECN_CE, AIF_ECN_NOT_ECT };
	struct out_pkt o[64];
	struct rs_snap before;
	unsigned n = 0, marked = 0, not_ect = 0;

	(void)state;
	load("\"ecn\": {\"queues\": [3], \"kmin_bytes\": 0, \"kmax_bytes\": 0,"
	     " \"pmax\": 1.0}", 1);
	struct aif_qos *q = qos();
	assert_int_equal(q->cfg.ecn_at_enqueue, 0);
	struct aif_ecn_ctr e3 = q->port[1].ecn[PRIO];
	snap_take(&before);
	for (uint32_t i = 0; i < 12; i++)
		inject_data(0, 1, 26, in[i % 4], i);
	for (unsigned i = 0; i < 100 && n < 12; i++) {
		step(US);
		n += take_out(1, o + n, 64 - n);
	}
	assert_int_equal(n, 12);
	for (unsigned i = 0; i < 12; i++) {
		uint8_t c = in[i % 4], want = c;
		assert_int_equal(o[i].seq, i);
		if (i < 11 && (c == AIF_ECN_ECT0 || c == AIF_ECN_ECT1)) {
			want = AIF_ECN_CE;
			marked++;
		}
		not_ect += i < 11 && c == AIF_ECN_NOT_ECT;
		if (o[i].ecn != want)
			fail_msg("frame %u (ECN %u in): ECN %u out, not %u", i, c, o[i].ecn, want);
	}
	const struct aif_ecn_ctr *e = &q->port[1].ecn[PRIO];
	assert_int_equal(e->ce_marked - e3.ce_marked, marked);
	assert_int_equal(e->ect_seen - e3.ect_seen, 6);
	assert_int_equal(e->ce_on_arrival - e3.ce_on_arrival, 3);
	assert_int_equal(e->not_ect_lossless_passed - e3.not_ect_lossless_passed, not_ect);
	assert_int_equal(e->wred_drops - e3.wred_drops, 0);
	assert_no_drops(&before);
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ecn, test_setup),
		cmocka_unit_test_setup(test_ecn_enqueue, test_setup),
		cmocka_unit_test_setup(test_ecn_codepoints, test_setup),
	};
	return cmocka_run_group_tests_name("qos_ecn", tests, group_setup, group_teardown);
}
