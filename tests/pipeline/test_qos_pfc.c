/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of PFC reception and the watchdog (dataplane/qos.h,
 * pipelines/egress.c): one whole switch ("leaf0", four 100G ports) run in
 * virtual time (qos_fixture.h: the config, the harness, the frames).
 *
 * Received PFC pausing exactly the enabled queue for the time it gives
 * (computed here, quanta * 512 bit times at 100 Gb/s) and PAUSE every
 * queue; PFC and PAUSE addressed where their standard does not allow
 * pausing nothing and counted; `show pfc` carrying exactly what the worker
 * counted; the PFC watchdog detecting a storm, dropping the queue and
 * restoring it when the storm ends.
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
/* 2. PFC watchdog: storm detected, queue dropped, storm restored    */

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pfc_reception, test_setup),
		cmocka_unit_test_setup(test_pfc_bad_destination, test_setup),
		cmocka_unit_test_setup(test_show_pfc, test_setup),
		cmocka_unit_test_setup(test_pfc_watchdog, test_setup),
	};
	return cmocka_run_group_tests_name("qos_pfc", tests, group_setup, group_teardown);
}
