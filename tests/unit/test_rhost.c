/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual RoCE host (hosts/rhost*.c), two hosts back to back through
 * a store-and-forward wire stepped in virtual time: a message arrives
 * whole, at line rate, exactly when the serialization says; PSNs wrap;
 * one lost packet is recovered by go-back-N (NAK, everything after it sent
 * again) or by selective repeat (that packet alone, on the SACKs); ten
 * holes in one window are all resent on SACKs, without a timeout; a
 * reordered pair costs a go-back-N responder spurious resends and an
 * out-of-order-tolerant one nothing; a lost last packet is recovered by the
 * timeout, RTO_high with go-back-N, RTO_low with selective repeat; the
 * timeouts' floors grow with the base RTT and a slow rate; CE marks bring
 * congestion notification on the ACK (ns-3's, the default) or CNP frames
 * (at most one per 50 us with that interval) and a lower rate; the ACK
 * leaves as the data's last bit is in; a go-back-N responder NAKs again
 * every 4 us while out-of-order packets keep coming and the requester goes
 * back on each, stale NAKs included; go-back-N's timer restarts per packet
 * sent; the cable's delay both ways; PFC from the switch holds data and
 * lets ACKs by; frames carry a valid ICRC and a bad one is dropped; light
 * frames are, made whole, the whole frames' bytes, and a host checks their
 * ICRC as the whole frames'; under
 * ns-3's wire model frames take ns-3's bytes both ways, to the ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "frame.h"
#include "link.h"
#include "pfc.h"
#include "rhost.h"
#include "rhost_int.h"
#include "roce.h"
#include "wire.h"

#include "rhost_params.h"
#include "test_eal.h"

#define RATE 100000000000ull
#define QMAX 4096

static struct rte_mempool *pool;

/* One direction of the wire: frames in arrival order, waiting for the
 * receiver's wire. */
struct dir {
	struct rte_mbuf *m[QMAX];
	unsigned h, n;
	unsigned data_seen;       /* data frames that went this way */
	unsigned drop_at;         /* drop data frame number drop_at (1-based; 0: none) */
	unsigned drop_from;       /* and drop_n data frames from drop_from, */
	unsigned drop_n, drop_step; /* drop_step apart */
	unsigned sacks;           /* NAKs with a SACK that went this way */
	uint32_t last_sack;       /* the PSN the last one SACKed */
	unsigned swap_at;         /* hold data frame swap_at behind the next one */
	struct rte_mbuf *held;
	unsigned mark_ce;         /* set CE on the first mark_ce data frames */
	bool corrupt_first;       /* flip a payload bit of the first data frame */
	uint32_t drop_psn;        /* drop every copy of this PSN ... */
	aif_time_ns drop_psn_until; /* ... before then (0: none) */
	unsigned psn_copies;      /* copies of drop_psn that came */
	unsigned dup_nak_after;   /* the first NAK again, this many frames later (0: no) */
	struct rte_mbuf *nak_copy;
	unsigned since_nak;
	/* control frames that went this way */
	unsigned acks, naks, becn, cnp_frames;
	aif_time_ns first_ack_at, nak_at[64];
	aif_time_ns watch_from, watched_at; /* the first data frame in at or after */
	uint64_t ns3_wire;        /* wire.h's ns-3 bytes of every frame that went */
};

struct run {
	struct aif_rhost *h[2];
	struct aif_port port[2];
	struct dir d[2];          /* d[i]: frames from host i to host !i */
	aif_time_ns sent_at[2], rcvd_at[2];
	unsigned n_sent[2], n_rcvd[2];
	aif_time_ns now;
};

static void
on_event(struct aif_rhost *h, enum aif_rhost_event ev, uint32_t qp, uint64_t cookie,
	 aif_time_ns at, void *arg)
{
	struct run *r = arg;
	int i = h == r->h[1];

	(void)qp;
	(void)cookie;
	if (ev == AIF_RHOST_SENT) {
		r->sent_at[i] = at;
		r->n_sent[i]++;
	} else if (ev == AIF_RHOST_RECEIVED) {
		r->rcvd_at[i] = at;
		r->n_rcvd[i]++;
	}
}

static void
params(struct aif_rhost_params *p, int i, bool ooo)
{
	rhost_test_params(p, i, ooo, RATE);
}

static void
setup_run(struct run *r, const struct aif_rhost_params *p0, const struct aif_rhost_params *p1,
	  uint32_t *q0, uint32_t *q1)
{
	char err[128];

	memset(r, 0, sizeof(*r));
	r->h[0] = aif_rhost_create(p0, pool, 8, err, sizeof(err));
	r->h[1] = aif_rhost_create(p1, pool, 8, err, sizeof(err));
	assert_non_null(r->h[0]);
	assert_non_null(r->h[1]);
	for (int i = 0; i < 2; i++) {
		aif_rhost_set_callback(r->h[i], on_event, r);
		aif_rhost_attach(r->h[i], &r->port[i]);
	}
	assert_int_equal(aif_rhost_connect(r->h[0], r->h[1], q0, q1), 0);
}

static bool
is_data(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	return rte_pktmbuf_pkt_len(m) > 54 && f[12] == 0x08 && f[42] <= 0x0A;
}

static void
enq(struct dir *d, struct rte_mbuf *m)
{
	assert_true(d->n < QMAX);
	d->m[(d->h + d->n++) % QMAX] = m;
}

/* A frame from host i reached the wire's far end at t. */
static void
from_host(struct dir *d, struct rte_mbuf *m, aif_time_ns t)
{
	d->ns3_wire += aif_wire_ns3_bytes(rte_pktmbuf_mtod(m, const uint8_t *),
					  aif_frame_head_len(m), rte_pktmbuf_pkt_len(m));
	if (d->nak_copy != NULL && ++d->since_nak > d->dup_nak_after) {
		enq(d, d->nak_copy); /* the NAK again: stale by now */
		d->nak_copy = NULL;
	}
	if (!is_data(m)) {
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
		/* BTH ACK opcode, AETH NAK, then the 4-byte SACK extension */
		if (rte_pktmbuf_pkt_len(m) == 54 + 4 + 4 + 4 && f[42] == 0x11 && f[54] >> 5 == 3) {
			d->sacks++;
			d->last_sack = (uint32_t)f[59] << 16 | (uint32_t)f[60] << 8 | f[61];
		}
		if (f[42] == 0x81)
			d->cnp_frames++;
		else if (f[42] == 0x11 && f[54] >> 5 == 3) {
			if (d->naks < 64)
				d->nak_at[d->naks] = t;
			if (d->naks++ == 0 && d->dup_nak_after)
				d->nak_copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		} else if (f[42] == 0x11 && d->acks++ == 0)
			d->first_ack_at = t;
		if (f[42] == 0x11 && (f[46] & 0x40)) {
			d->becn++;
			/* the flag keeps the ICRC valid: RoCEv2 masks that byte
			 * (the frame's bytes as observed: frame.h) */
			uint32_t len = rte_pktmbuf_pkt_len(m);
			uint8_t b[128];
			const uint8_t *w = aif_frame_read(m, 0, len, b);
			assert_non_null(w);
			uint32_t icrc = aif_roce_icrc(w + 14, len - 14);
			assert_memory_equal(w + len - 4, &icrc, 4);
		}
		enq(d, m);
		return;
	}
	unsigned k = ++d->data_seen;
	if (d->watch_from && t >= d->watch_from && d->watched_at == 0)
		d->watched_at = t;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t psn = (uint32_t)f[51] << 16 | (uint32_t)f[52] << 8 | f[53];
	if (d->drop_psn_until && psn == d->drop_psn) {
		d->psn_copies++;
		if (t < d->drop_psn_until) {
			rte_pktmbuf_free(m);
			return;
		}
	}
	if (k == d->drop_at || (d->drop_n && k >= d->drop_from &&
				(k - d->drop_from) % d->drop_step == 0 &&
				(k - d->drop_from) / d->drop_step < d->drop_n)) {
		rte_pktmbuf_free(m);
		return;
	}
	if (k <= d->mark_ce)
		f[15] |= 3;
	if (d->corrupt_first && k == 1) {
		/* a payload byte: in the mbuf once the frame is whole */
		assert_int_equal(aif_frame_materialise(m), 0);
		f = rte_pktmbuf_mtod(m, uint8_t *);
		f[rte_pktmbuf_pkt_len(m) - 10] ^= 1;
	}
	if (k == d->swap_at) {
		d->held = m;
		return;
	}
	enq(d, m);
	if (d->held != NULL) {
		enq(d, d->held);
		d->held = NULL;
	}
}

static const struct aif_port_ops *ops = &aif_port_rhost_ops;

/* Step both hosts and the wire until nothing is left or until limit. */
static void
run_until(struct run *r, aif_time_ns limit)
{
	struct rte_mbuf *pk[32];

	for (;;) {
		aif_time_ns t = r->now;
		for (int i = 0; i < 2; i++) {
			uint16_t n;
			while ((n = ops->rx_burst(&r->port[i], 0, pk, 32, t)) > 0)
				for (uint16_t k = 0; k < n; k++)
					from_host(&r->d[i], pk[k], t);
		}
		for (int i = 0; i < 2; i++) {
			struct dir *d = &r->d[i];
			struct aif_port *to = &r->port[!i];
			while (d->n && ops->tx_ready_ns(to, 0, t) <= t) {
				assert_int_equal(ops->tx_burst(to, 0, &d->m[d->h], 1, t), 1);
				d->h = (d->h + 1) % QMAX;
				d->n--;
			}
		}
		aif_time_ns next = AIF_TIME_NS_NEVER;
		for (int i = 0; i < 2; i++) {
			aif_time_ns a = ops->rx_next_ns(&r->port[i], 0);
			/* the answer kept since the last change is the one it
			 * would compute now */
			((struct aif_rhost *)r->port[i].ctx)->said_ok = false;
			assert_int_equal(ops->rx_next_ns(&r->port[i], 0), a);
			next = a < next ? a : next;
			if (r->d[i].n) {
				a = ops->tx_ready_ns(&r->port[!i], 0, t);
				next = a < next ? a : next;
			}
		}
		if (next == AIF_TIME_NS_NEVER || next > limit)
			break;
		assert_true(next > t || next == t); /* never back in time */
		r->now = next > t ? next : t + 1;
	}
}

static void
teardown_run(struct run *r)
{
	for (int i = 0; i < 2; i++) {
		struct dir *d = &r->d[i];
		while (d->n) {
			rte_pktmbuf_free(d->m[d->h]);
			d->h = (d->h + 1) % QMAX;
			d->n--;
		}
		rte_pktmbuf_free(d->held);
		rte_pktmbuf_free(d->nak_copy);
		aif_rhost_free(r->h[i]);
	}
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static uint64_t
frame_ser_ps(uint32_t len)
{
	return ((uint64_t)aif_link_wire_bytes(len) * 8 * 1000000000000ull + RATE - 1) / RATE;
}

static void
test_message_at_line_rate(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;
	const uint64_t bytes = 1000000; /* 977 packets, the last of 576 bytes */

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, bytes, 42, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.n_sent[0], 1);
	/* back to back from 0: the frames' serialization, then the last once
	 * more on the far wire */
	uint64_t ps = 0;
	uint32_t n = (uint32_t)((bytes + 1023) / 1024);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t len = k + 1 < n ? 1024 : (uint32_t)(bytes - 1024ull * k);
		ps += frame_ser_ps(aif_rhost_data_frame_len(&p0, len, k == 0));
	}
	/* the far end: each frame again, from when the first arrived (the
	 * first, with its RETH, is the longest, so that wire is never idle) */
	uint64_t first = frame_ser_ps(aif_rhost_data_frame_len(&p0, 1024, true));
	assert_int_equal(r.rcvd_at[1], ((first + 999) / 1000 * 1000 + ps + 999) / 1000);
	const struct aif_rhost_qp_ctr *c0 = aif_rhost_qp_ctr(r.h[0], q0);
	const struct aif_rhost_qp_ctr *c1 = aif_rhost_qp_ctr(r.h[1], q1);
	assert_int_equal(c0->tx_packets, n);
	assert_int_equal(c0->tx_bytes, bytes);
	assert_int_equal(c0->retx, 0);
	assert_int_equal(c1->rx_packets, n);
	assert_int_equal(c1->rx_bytes, bytes);
	assert_int_equal(c1->acks_tx, n); /* ack_every 1 */
	assert_true(r.sent_at[0] > r.rcvd_at[1]);
	/* the data rate: within 0.1% of 100G x payload / wire bytes */
	double gbps = (double)bytes * 8 / (double)r.rcvd_at[1];
	double ideal = 100.0 * 1024 / aif_link_wire_bytes(aif_rhost_data_frame_len(&p0, 1024, false));
	assert_true(gbps > ideal * 0.995 && gbps < ideal * 1.001);
	assert_true(aif_rhost_idle(r.h[0]) && aif_rhost_idle(r.h[1]));
	teardown_run(&r);
}

/* PSNs wrap from 0xFFFFFF to 0, a go-back-N recovery across it. */
static void
test_psn_wrap(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	/* a second pair whose first PSN is 20 before the wrap */
	assert_int_equal(aif_rhost_connect_psn(r.h[0], r.h[1], 0xFFFFFF - 20, 5, &q0, &q1), 0);
	r.d[0].drop_at = 40; /* and a NAK after the wrap */
	assert_int_equal(aif_rhost_post(r.h[0], q0, 64 * 1024, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.n_sent[0], 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[1], q1)->rx_packets, 64);
	assert_int_equal(aif_rhost_qp_ctr(r.h[0], q0)->naks_rx, 1);
	teardown_run(&r);
}

/* Lose data packet 100 of 977: go-back-N sends it and all after it again,
 * selective repeat that one alone. */
static void
lost_one(bool ooo, uint64_t *retx, uint64_t *naks)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	params(&p0, 0, ooo);
	params(&p1, 1, ooo);
	setup_run(&r, &p0, &p1, &q0, &q1);
	r.d[0].drop_at = 100;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.n_sent[0], 1);
	const struct aif_rhost_qp_ctr *c0 = aif_rhost_qp_ctr(r.h[0], q0);
	const struct aif_rhost_qp_ctr *c1 = aif_rhost_qp_ctr(r.h[1], q1);
	assert_int_equal(c1->rx_bytes, 1000000);
	assert_int_equal(c0->timeouts, 0);
	/* go-back-N: one NAK; selective repeat: a SACK for every packet that
	 * came while the hole was open */
	if (!ooo)
		assert_int_equal(c1->naks_tx, 1);
	else
		assert_int_equal(c1->naks_tx, r.d[1].sacks);
	*retx = c0->retx;
	*naks = c0->naks_rx;
	teardown_run(&r);
}

static void
test_loss_go_back_n_and_selective(void **state)
{
	uint64_t retx, naks;

	(void)state;
	lost_one(false, &retx, &naks);
	assert_int_equal(naks, 1);
	/* everything sent between the loss and the NAK's arrival, again (back
	 * to back, no ACK delay: a few packets) */
	print_message("one loss, go-back-N: %lu resent\n", retx);
	assert_true(retx >= 2 && retx < 10);
	lost_one(true, &retx, &naks);
	/* the hole is lost once a packet nak_gap (256) past it is SACKed; the
	 * SACKs go on until the resend is in */
	assert_true(naks > 256);
	assert_int_equal(retx, 1);
}

/* Ten holes 5 apart (data packets 600, 605, ..., 645 of 977): each is
 * resent as soon as a packet nak_gap (256) past it is SACKed, all before
 * the message's end; no timeout.  (A responder that NAKs one hole at a
 * time reaches the last ones after the message ended: a timeout.) */
static void
test_holes_selective(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, true);
	params(&p1, 1, true);
	setup_run(&r, &p0, &p1, &q0, &q1);
	/* a second pair, whose data PSNs are 1000 + index */
	assert_int_equal(aif_rhost_connect_psn(r.h[0], r.h[1], 1000, 5, &q0, &q1), 0);
	r.d[0].drop_from = 600;
	r.d[0].drop_n = 10;
	r.d[0].drop_step = 5;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.n_sent[0], 1);
	const struct aif_rhost_qp_ctr *c0 = aif_rhost_qp_ctr(r.h[0], q0);
	assert_int_equal(aif_rhost_qp_ctr(r.h[1], q1)->rx_bytes, 1000000);
	print_message("ten holes, selective repeat: received at %.3f us, %lu resent, %lu "
		      "timeouts, %u SACKs\n", r.rcvd_at[1] / 1e3, c0->retx, c0->timeouts,
		      r.d[1].sacks);
	assert_int_equal(c0->timeouts, 0);
	assert_int_equal(c0->retx, 10);
	assert_int_equal(c0->naks_rx, r.d[1].sacks);
	/* SACKs went on until the last hole's resend came in: at least up to
	 * the packet that showed it lost (index 645 + 256) */
	assert_true(r.d[1].last_sack >= 1000 + 645 + 256 && r.d[1].last_sack < 1000 + 977);
	/* line rate (86.1 us) and ten resends, far from any timeout */
	assert_true(r.rcvd_at[1] < 90 * AIF_NS_PER_US);
	teardown_run(&r);
}

/* Two adjacent packets swapped, as spraying does. */
static void
swapped(bool ooo, uint64_t *retx, uint64_t *ooo_rx, uint64_t *cnps, uint64_t *naks)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	params(&p0, 0, ooo);
	params(&p1, 1, ooo);
	setup_run(&r, &p0, &p1, &q0, &q1);
	r.d[0].swap_at = 50;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 200000, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[1], q1)->rx_bytes, 200000);
	*retx = aif_rhost_qp_ctr(r.h[0], q0)->retx;
	*ooo_rx = aif_rhost_qp_ctr(r.h[1], q1)->rx_ooo;
	*cnps = aif_rhost_qp_ctr(r.h[1], q1)->cnps_tx;
	*naks = aif_rhost_qp_ctr(r.h[1], q1)->naks_tx;
	teardown_run(&r);
}

static void
test_reorder_spurious_retransmits(void **state)
{
	uint64_t retx, ooo, cnps, naks;

	(void)state;
	swapped(false, &retx, &ooo, &cnps, &naks);
	assert_true(retx > 1);   /* spurious: nothing was lost */
	/* congestion notification on every NAK (the out-of-order arrival, then
	 * the packet after the one it dropped) */
	assert_int_equal(naks, 2);
	assert_int_equal(cnps, naks);
	swapped(true, &retx, &ooo, &cnps, &naks);
	assert_int_equal(retx, 0);
	assert_int_equal(ooo, 1);
	assert_int_equal(cnps, 0);
}

/* Lose the last of 10 packets: the time the resend came in. */
static aif_time_ns
tail_lost(bool ooo, const struct aif_rhost_params *p)
{
	struct aif_rhost_params p1;
	struct run r;
	uint32_t q0, q1;

	params(&p1, 1, ooo);
	setup_run(&r, p, &p1, &q0, &q1);
	r.d[0].drop_at = 10; /* the last */
	assert_int_equal(aif_rhost_post(r.h[0], q0, 10 * 1024, 1, 0), 0);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[0], q0)->timeouts, 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[0], q0)->retx, 1);
	aif_time_ns t = r.rcvd_at[1];
	teardown_run(&r);
	return t;
}

static void
test_tail_loss_timeout(void **state)
{
	struct aif_rhost_params p;

	(void)state;
	/* go-back-N, as ns-3: the resend leaves 4 ms (L2Timeout) after the
	 * last packet sent or ACK received: the ACK of packet 9, about 1 us in */
	params(&p, 0, false);
	aif_time_ns gbn = tail_lost(false, &p);
	print_message("tail loss: resent packet in at %.3f us (go-back-N)\n", gbn / 1e3);
	assert_true(gbn > p.rto_gbn_ns + 800 && gbn < p.rto_gbn_ns + 1300);
	/* the timer that restarts on progress only, 500 us: as before */
	p.gbn_timer = AIF_RHOST_GBN_TIMER_PROGRESS;
	p.rto_gbn_ns = 500 * AIF_NS_PER_US;
	gbn = tail_lost(false, &p);
	assert_true(gbn > p.rto_gbn_ns + 800 && gbn < p.rto_gbn_ns + 1300);
	/* selective repeat, one packet in flight: RTO_low (100 us) */
	params(&p, 0, true);
	aif_time_ns sr = tail_lost(true, &p);
	print_message("tail loss: resent packet in at %.3f us (selective repeat)\n", sr / 1e3);
	assert_true(sr > p.rto_low_ns + 800 && sr < p.rto_low_ns + 1300);
	/* RTO_low as a parameter */
	p.rto_low_ns = 20 * AIF_NS_PER_US;
	sr = tail_lost(true, &p);
	assert_true(sr > p.rto_low_ns + 800 && sr < p.rto_low_ns + 1300);
}

/* The timeouts' floors: the parameters at 100G on a short path; longer on
 * a long path and at 0.1 Gb/s, where a packet takes 87 us. */
static void
test_timeout_floors(void **state)
{
	struct aif_rhost_params p;
	char err[128];

	(void)state;
	params(&p, 0, true);
	struct aif_rhost *h = aif_rhost_create(&p, pool, 1, err, sizeof(err));
	assert_non_null(h);
	assert_int_equal(aif_rhost_rto_ns(h, false), 500 * AIF_NS_PER_US);
	assert_int_equal(aif_rhost_rto_ns(h, true), 100 * AIF_NS_PER_US);
	aif_rhost_set_base_rtt(h, 10 * AIF_NS_PER_US); /* 4 x (10 us + ...) < the parameters */
	assert_int_equal(aif_rhost_rto_ns(h, false), 500 * AIF_NS_PER_US);
	assert_int_equal(aif_rhost_rto_ns(h, true), 100 * AIF_NS_PER_US);
	aif_rhost_set_base_rtt(h, 100 * AIF_NS_PER_US);
	assert_int_equal(aif_rhost_rto_ns(h, true), 4 * (100 * AIF_NS_PER_US + 3 * 89));
	aif_rhost_free(h);

	aif_rhost_params_default(&p, 100000000ull); /* 0.1 Gb/s */
	struct aif_rhost *s = aif_rhost_create(&p, pool, 1, err, sizeof(err));
	assert_non_null(s);
	uint64_t pkt = (aif_link_wire_bytes(aif_rhost_data_frame_len(&p, 1024, false)) * 8 *
			1000000000ull + p.rate_bps - 1) / p.rate_bps;
	aif_rhost_set_base_rtt(s, 400 * AIF_NS_PER_US);
	assert_int_equal(aif_rhost_rto_ns(s, true), 4 * (400 * AIF_NS_PER_US + 3 * pkt));
	assert_int_equal(aif_rhost_rto_ns(s, false),
			 4 * (400 * AIF_NS_PER_US + AIF_RHOST_RTO_PKTS * pkt));
	aif_rhost_free(s);
}

/* 600 CE-marked packets of 977: congestion notification back, and the
 * rate down. */
static void
ce_marked(const struct aif_rhost_params *p0, struct run *r, uint32_t *q0, uint32_t *q1)
{
	struct aif_rhost_params p1 = *p0;

	p1.ip = 0x0a000102, p1.mac.b[5] = 2;
	setup_run(r, p0, &p1, q0, q1);
	r->d[0].mark_ce = 600;
	assert_int_equal(aif_rhost_post(r->h[0], *q0, 1000000, 1, 0), 0);
	run_until(r, 100 * AIF_NS_PER_MS);
	assert_int_equal(r->n_rcvd[1], 1);
	assert_int_equal(aif_rhost_qp_ctr(r->h[1], *q1)->rx_ce, 600);
}

static void
test_ce_cnp_rate(void **state)
{
	struct aif_rhost_params p0;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	/* as ns-3: the ACK of every CE-marked packet carries the notification
	 * (its BTH's BECN bit); no CNP frame, no interval */
	params(&p0, 0, false);
	ce_marked(&p0, &r, &q0, &q1);
	const struct aif_rhost_qp_ctr *c0 = aif_rhost_qp_ctr(r.h[0], q0);
	const struct aif_rhost_qp_ctr *c1 = aif_rhost_qp_ctr(r.h[1], q1);
	assert_int_equal(c1->cnps_tx, 600);
	assert_int_equal(r.d[1].becn, 600);
	assert_int_equal(r.d[1].cnp_frames, 0);
	assert_int_equal(r.d[1].acks, c1->acks_tx);
	assert_int_equal(c0->cnps_rx, 600);
	/* the rate is cut every 4 us while they come, down to MIN_RATE, and
	 * comes back slowly (RP timer 300 us) */
	assert_true(r.rcvd_at[1] > 500 * AIF_NS_PER_US);
	struct aif_rhost_qp_state st;
	assert_int_equal(aif_rhost_qp_state(r.h[0], q0, r.now, &st), 0);
	assert_true(st.rate_bps < 0.9 * RATE && st.alpha > 0);
	assert_int_equal(st.cnps_rx, 600);
	assert_int_equal(st.inflight_bytes, 0);
	print_message("600 marks on ACKs: received at %.1f us, rate %.2f Gb/s, alpha %.3f\n",
		      r.rcvd_at[1] / 1e3, st.rate_bps / 1e9, st.alpha);
	teardown_run(&r);

	/* CNP frames, at most one per 50 us (ConnectX's), 4 us after the mark */
	params(&p0, 0, false);
	p0.cnp = AIF_RHOST_CNP_FRAME;
	p0.dc.cnp_interval_ns = 50 * AIF_NS_PER_US;
	p0.cnp_delay_ns = 4 * AIF_NS_PER_US;
	ce_marked(&p0, &r, &q0, &q1);
	c0 = aif_rhost_qp_ctr(r.h[0], q0);
	c1 = aif_rhost_qp_ctr(r.h[1], q1);
	assert_true(c1->cnps_tx >= 2);
	assert_true(c1->cnps_tx <= r.rcvd_at[1] / (50 * AIF_NS_PER_US) + 1);
	assert_int_equal(r.d[1].cnp_frames, c1->cnps_tx);
	assert_int_equal(r.d[1].becn, 0);
	assert_int_equal(c0->cnps_rx, c1->cnps_tx);
	assert_true(r.rcvd_at[1] > 110 * AIF_NS_PER_US);
	assert_true(aif_rhost_qp_rate(r.h[0], q0) < 0.9 * RATE);
	teardown_run(&r);
}

/* By default, ten marks at once: ten notifications within a microsecond,
 * and the reaction point's decrease 4 us after the first (no 50 us
 * interval, no NP or RP delay). */
static void
test_cnp_on_ack_reacts(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	r.d[0].mark_ce = 10;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 100 * 1024, 1, 0), 0);
	run_until(&r, 3 * AIF_NS_PER_US);
	struct aif_rhost_qp_state st;
	assert_int_equal(aif_rhost_qp_state(r.h[0], q0, r.now, &st), 0);
	assert_int_equal(st.cnps_rx, 10);
	assert_int_equal(r.d[1].becn, 10);
	assert_true(st.rate_bps == (double)RATE); /* RateOnFirstCnp 1: no cut yet */
	assert_true(st.inflight_bytes > 0);
	run_until(&r, 10 * AIF_NS_PER_US);
	assert_int_equal(aif_rhost_qp_state(r.h[0], q0, r.now, &st), 0);
	/* one decrease with alpha 1 (and a tick or more of decay): about half */
	assert_true(st.rate_bps < 0.52 * RATE && st.rate_bps > 0.5 * RATE);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	teardown_run(&r);
}

/* The ACK leaves as the data's last bit is in (ack_delay_ns 0, as ns-3);
 * with 1 us of ACK delay, 1 us later. */
static void
test_ack_at_once(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;
	aif_time_ns ack_ns = (frame_ser_ps(aif_rhost_ack_frame_len()) + 999) / 1000;

	(void)state;
	for (aif_time_ns delay = 0; delay <= 1000; delay += 1000) {
		params(&p0, 0, false);
		params(&p1, 1, false);
		p1.ack_delay_ns = delay;
		setup_run(&r, &p0, &p1, &q0, &q1);
		assert_int_equal(aif_rhost_post(r.h[0], q0, 1000, 1, 0), 0);
		run_until(&r, AIF_NS_PER_MS);
		assert_int_equal(r.n_rcvd[1], 1);
		/* its last bit out of host 1: the data's in + delay + its wire time */
		assert_int_equal(r.d[1].first_ack_at, r.rcvd_at[1] + delay + ack_ns);
		teardown_run(&r);
	}
}

/* The cable: link_delay_ns each way, on each host's side. */
static void
test_link_delay(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;
	aif_time_ns ack_ns = (frame_ser_ps(aif_rhost_ack_frame_len()) + 999) / 1000;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	aif_time_ns data_ns = (frame_ser_ps(aif_rhost_data_frame_len(&p0, 1000, true)) + 999) / 1000;
	assert_int_equal(p0.link_delay_ns, AIF_RHOST_LINK_DELAY_FABRIC);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_params(r.h[0])->link_delay_ns, 0); /* on its own */
	teardown_run(&r);
	p0.link_delay_ns = p1.link_delay_ns = 1000;
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	/* host 0's wire, its cable, host 1's cable, its wire */
	assert_int_equal(r.rcvd_at[1], 2 * data_ns + 2000);
	/* and the ACK back the same way */
	assert_int_equal(r.sent_at[0], r.rcvd_at[1] + 2 * ack_ns + 2000);
	teardown_run(&r);
}

/* Go-back-N as ns-3's rdma-hw.cc: every copy of packet 20 is lost for
 * 30 us; the responder NAKs again every 4 us (NACKGenerationInterval)
 * while the packets after it keep coming, each NAK with congestion
 * notification, and the requester goes back on every one. */
static void
test_gbn_renak(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_connect_psn(r.h[0], r.h[1], 1000, 5, &q0, &q1), 0);
	r.d[0].drop_psn = 1020;
	r.d[0].drop_psn_until = 30 * AIF_NS_PER_US;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	const struct aif_rhost_qp_ctr *c0 = aif_rhost_qp_ctr(r.h[0], q0);
	const struct aif_rhost_qp_ctr *c1 = aif_rhost_qp_ctr(r.h[1], q1);
	print_message("re-NAK: %u NAKs, %u copies of the lost packet, %lu resent\n", r.d[1].naks,
		      r.d[0].psn_copies, c0->retx);
	/* 30 us of losses: a NAK when the next packet came (2 us in), then one
	 * every 4 us until a copy got through: 7 */
	assert_int_equal(r.d[1].naks, 7);
	for (unsigned i = 1; i < r.d[1].naks; i++) {
		aif_time_ns gap = r.d[1].nak_at[i] - r.d[1].nak_at[i - 1];
		/* with the first out-of-order packet 4 us or more after the
		 * last (later as the notifications slow the requester down) */
		assert_true(gap >= 4000 && (i > 1 || gap < 4100));
	}
	assert_int_equal(c1->naks_tx, r.d[1].naks);
	assert_int_equal(c0->naks_rx, r.d[1].naks);
	assert_true(r.d[1].becn >= r.d[1].naks); /* each NAK carried a notification */
	/* the requester went back to the lost packet on every NAK */
	assert_int_equal(r.d[0].psn_copies, r.d[1].naks + 1);
	assert_int_equal(c0->timeouts, 0);
	teardown_run(&r);

	/* a NAK once per expected PSN (a huge interval): one, then the
	 * timeout */
	p1.nak_interval_ns = AIF_TIME_NS_NEVER;
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_connect_psn(r.h[0], r.h[1], 1000, 5, &q0, &q1), 0);
	r.d[0].drop_psn = 1020;
	r.d[0].drop_psn_until = 30 * AIF_NS_PER_US;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 100 * 1024, 1, 0), 0);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.d[1].naks, 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[0], q0)->timeouts, 1);
	teardown_run(&r);
}

/* A NAK that comes again after the ACKs passed it (stale): the requester
 * goes back to its oldest unacknowledged packet all the same (ns-3), or
 * not (nak_rewind_stale false). */
static uint64_t
stale_nak(bool rewind)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	params(&p0, 0, false);
	params(&p1, 1, false);
	p0.nak_rewind_stale = rewind;
	setup_run(&r, &p0, &p1, &q0, &q1);
	r.d[0].drop_at = 100;
	r.d[1].dup_nak_after = 50;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.d[1].naks, 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[0], q0)->naks_rx, 2);
	uint64_t retx = aif_rhost_qp_ctr(r.h[0], q0)->retx;
	teardown_run(&r);
	return retx;
}

static void
test_stale_nak(void **state)
{
	(void)state;
	uint64_t with = stale_nak(true), without = stale_nak(false);
	print_message("stale NAK: %lu resent going back, %lu not\n", with, without);
	assert_true(with > without);
}

/* Go-back-N's timer restarts at every packet sent (ns-3): ACKs held by
 * PFC for 30 us cost no timeout while data still leaves; with the timer
 * that restarts on progress only, a timeout (both at 20 us). */
static uint64_t
acks_held(enum aif_rhost_gbn_timer timer)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;
	uint8_t buf[64];
	uint16_t quanta[AIF_PFC_PRIOS] = { 0 };
	struct aif_mac sw = { .b = { 2, 0, 0, 0, 0, 0x10 } };

	params(&p0, 0, false);
	params(&p1, 1, false);
	p0.gbn_timer = timer;
	p0.rto_gbn_ns = 20 * AIF_NS_PER_US;
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, 1000);
	quanta[6] = 5860; /* 30 us at 100G */
	int n = aif_pfc_frame_build(buf, sizeof(buf), &sw, 1u << 6, quanta);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf, (size_t)n);
	assert_int_equal(ops->tx_ctrl(&r.port[1], 0, m, 1000), 1);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	uint64_t t = aif_rhost_qp_ctr(r.h[0], q0)->timeouts;
	teardown_run(&r);
	return t;
}

static void
test_gbn_timer_per_packet(void **state)
{
	(void)state;
	assert_int_equal(acks_held(AIF_RHOST_GBN_TIMER_PER_PACKET), 0);
	assert_true(acks_held(AIF_RHOST_GBN_TIMER_PROGRESS) >= 1);
}

static void
test_pfc_holds_data(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;
	uint8_t buf[64];
	uint16_t quanta[AIF_PFC_PRIOS] = { 0 };
	struct aif_mac sw = { .b = { 2, 0, 0, 0, 0, 0x10 } };

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 100000, 1, 0), 0);
	assert_int_equal(aif_rhost_post(r.h[1], q1, 100000, 1, 0), 0);
	/* priority 3 paused at host 0 from 1 us, for 0xFFFF quanta (335.5 us) */
	run_until(&r, 1000);
	quanta[3] = 0xFFFF;
	int n = aif_pfc_frame_build(buf, sizeof(buf), &sw, 1u << 3, quanta);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf, (size_t)n);
	assert_int_equal(ops->tx_ctrl(&r.port[0], 0, m, 1000), 1);
	uint64_t before = aif_rhost_qp_ctr(r.h[0], q0)->tx_packets;
	run_until(&r, 300 * AIF_NS_PER_US);
	/* host 0 sent at most the frame on the wire; host 1's data went
	 * through and host 0 acknowledged it (ACKs are priority 6) */
	assert_true(aif_rhost_qp_ctr(r.h[0], q0)->tx_packets <= before + 1);
	assert_int_equal(r.n_rcvd[0], 1);
	assert_int_equal(r.n_sent[1], 1);
	assert_int_equal(aif_rhost_ctr(r.h[0])->rx_pfc, 1);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_true(r.rcvd_at[1] > 336 * AIF_NS_PER_US);
	/* data waited out the pause, less the wire time of the ACKs it sent */
	assert_true(aif_rhost_ctr(r.h[0])->paused_ns > 320 * AIF_NS_PER_US);
	teardown_run(&r);
}

/* Frames carry a valid ICRC (checked here the same way a NIC does); a
 * corrupted one is dropped and recovered. */
static void
test_icrc(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	r.d[0].corrupt_first = true;
	assert_int_equal(aif_rhost_post(r.h[0], q0, 8 * 1024, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(aif_rhost_ctr(r.h[1])->rx_icrc_bad, 1);
	assert_int_equal(aif_rhost_qp_ctr(r.h[1], q1)->rx_bytes, 8 * 1024);
	teardown_run(&r);

	/* one frame, checked against the ICRC primitive */
	params(&p0, 0, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 100, 1, 0), 0);
	struct rte_mbuf *m;
	aif_time_ns t = ops->rx_next_ns(&r.port[0], 0);
	assert_int_equal(ops->rx_burst(&r.port[0], 0, &m, 1, t), 1);
	uint8_t whole[256];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	assert_true(aif_frame_is_light(m)); /* the default */
	const uint8_t *f = aif_frame_read(m, 0, len, whole);
	assert_int_equal(len, aif_rhost_data_frame_len(&p0, 100, true));
	assert_int_equal(f[42], 0x0A);              /* RDMA WRITE ONLY */
	assert_int_equal(f[15], 26 << 2 | 2);       /* DSCP 26, ECT(0) */
	assert_int_equal(f[34] & 0xC0, 0xC0);       /* entropy 0xC000.. */
	uint32_t icrc = aif_roce_icrc(f + 14, len - 14);
	assert_memory_equal(f + len - 4, &icrc, 4);
	rte_pktmbuf_free(m);
	teardown_run(&r);
}

/*
 * A data frame whose pad count is more than its payload (a SEND ONLY of no
 * bytes that says it ends in 3 of padding, its ICRC valid) is malformed:
 * dropped as not this host's, nothing received, no byte counted (not
 * 2^32 - 3 of them).
 */
static void
test_pad_past_payload(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;
	uint8_t whole[256], f[60];

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 100, 1, 0), 0);
	struct rte_mbuf *m;
	aif_time_ns t = ops->rx_next_ns(&r.port[0], 0);
	assert_int_equal(ops->rx_burst(&r.port[0], 0, &m, 1, t), 1);
	const uint8_t *d = aif_frame_read(m, 0, 58, whole);
	memcpy(f, d, 58); /* its headers: to host 1's QP, the PSN it expects */
	rte_pktmbuf_free(m);
	memset(f + 58, 0, 2);
	f[16] = 0, f[17] = 44;         /* IPv4 + UDP + BTH + ICRC: no payload */
	f[42] = 0x04;                  /* SEND ONLY */
	f[43] = (uint8_t)(f[43] | 0x30); /* pad count 3 */
	aif_roce_icrc_put(f + 14, 44);
	m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, 60), f, 60);
	assert_int_equal(ops->tx_burst(&r.port[1], 0, &m, 1, t + 1000), 1);
	const struct aif_rhost_qp_ctr *c = aif_rhost_qp_ctr(r.h[1], q1);
	assert_int_equal(aif_rhost_ctr(r.h[1])->rx_other, 1);
	assert_int_equal(aif_rhost_ctr(r.h[1])->rx_icrc_bad, 0);
	assert_int_equal(c->rx_packets, 0);
	assert_int_equal(c->rx_bytes, 0);
	assert_int_equal(r.n_rcvd[1], 0);
	teardown_run(&r);
}

/* The first n frames host 0 sends, each made whole into f[i] (len[i]
 * bytes); light[i]: whether it came light. */
static void
first_frames(const struct aif_rhost_params *p0, uint32_t n, uint8_t (*f)[1200], uint32_t *len,
	     bool *light)
{
	struct aif_rhost_params p1;
	struct run r;
	uint32_t q0, q1;

	params(&p1, 1, false);
	setup_run(&r, p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 2 * 1024 + 302, 1, 0), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m;
		aif_time_ns t = ops->rx_next_ns(&r.port[0], 0);
		assert_int_equal(ops->rx_burst(&r.port[0], 0, &m, 1, t), 1);
		len[i] = rte_pktmbuf_pkt_len(m);
		light[i] = aif_frame_is_light(m);
		const uint8_t *b = aif_frame_read(m, 0, len[i], f[i]);
		if (b != f[i])
			memcpy(f[i], b, len[i]);
		rte_pktmbuf_free(m);
	}
	teardown_run(&r);
}

/* Light frames (frame.h) are, made whole, the bytes of the whole frames
 * the same host sends without them: payload, padding and ICRC (a valid
 * one, or zeros without icrc). */
static void
test_light_frames_whole_bytes(void **state)
{
	static uint8_t fl[3][1200], fw[3][1200];
	uint32_t ll[3], lw[3];
	bool light[3], whole[3];

	(void)state;
	for (int icrc = 0; icrc < 2; icrc++) {
		struct aif_rhost_params p;
		params(&p, 0, false);
		p.icrc = icrc;
		first_frames(&p, 3, fl, ll, light);
		p.light_frames = false;
		first_frames(&p, 3, fw, lw, whole);
		for (int i = 0; i < 3; i++) {
			assert_true(light[i]);
			assert_false(whole[i]);
			assert_int_equal(ll[i], lw[i]);
			assert_memory_equal(fl[i], fw[i], ll[i]);
			uint32_t want = icrc ? aif_roce_icrc(fw[i] + 14, lw[i] - 14) : 0;
			assert_memory_equal(fw[i] + lw[i] - 4, &want, 4);
		}
		/* WRITE FIRST with its RETH, MIDDLE, LAST with 302 bytes and 2 of pad */
		assert_int_equal(ll[0], 54 + 16 + 1024 + 4);
		assert_int_equal(ll[2], 54 + 304 + 4);
	}
}

/* A host receiving a light frame takes it as it would the whole frame:
 * made whole it is accepted, a masked header byte changed on the way
 * (TTL) changes nothing, a covered one (the P_Key) changed after the frame
 * was made whole, as a stage changing such a byte does (frame.h), makes a
 * bad ICRC. */
static void
test_light_frames_received(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 3 * 1024, 1, 0), 0);
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m;
		aif_time_ns t = ops->rx_next_ns(&r.port[0], 0);
		assert_int_equal(ops->rx_burst(&r.port[0], 0, &m, 1, t), 1);
		assert_true(aif_frame_is_light(m));
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
		if (i == 0)
			assert_int_equal(aif_frame_materialise(m), 0);
		else if (i == 1)
			f[22] = 3;          /* TTL: masked */
		else {
			assert_int_equal(aif_frame_materialise(m), 0);
			f = rte_pktmbuf_mtod(m, uint8_t *);
			f[44] ^= 0x01;      /* P_Key: covered */
		}
		uint64_t bad = aif_rhost_ctr(r.h[1])->rx_icrc_bad;
		uint64_t got = aif_rhost_qp_ctr(r.h[1], q1)->rx_bytes;
		aif_time_ns at = (aif_time_ns)(i + 1) * 10 * AIF_NS_PER_US; /* wire idle */
		assert_int_equal(ops->tx_burst(&r.port[1], 0, &m, 1, at), 1);
		if (i == 2) {
			assert_int_equal(aif_rhost_ctr(r.h[1])->rx_icrc_bad, bad + 1);
			assert_int_equal(aif_rhost_qp_ctr(r.h[1], q1)->rx_bytes, got);
		} else {
			assert_int_equal(aif_rhost_ctr(r.h[1])->rx_icrc_bad, bad);
			assert_int_equal(aif_rhost_qp_ctr(r.h[1], q1)->rx_bytes, got + 1024);
		}
	}
	teardown_run(&r);
}

static void
heard_at(void *arg, aif_time_ns now_ns, bool pause)
{
	if (pause)
		*(aif_time_ns *)arg = now_ns;
}

/* wire_model ns3: the host's frames take ns-3's bytes on its wire (a
 * payload of L bytes L + 36, an ACK, NAK or CNP 48, PFC 31), both ways, and
 * its pacing counts them: to the ns as ns-3's qbb devices time them. */
static void
test_wire_model_ns3(void **state)
{
	struct aif_rhost_params p0, p1;
	struct run r;
	uint32_t q0, q1;

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, false);
	p0.wire_model = p1.wire_model = AIF_WIRE_NS3;
	p0.mtu = p1.mtu = 1000;
	p0.link_delay_ns = p1.link_delay_ns = 1000;
	assert_int_equal(aif_rhost_data_wire_bytes(&p0, 1000, true), 1036);
	assert_int_equal(aif_rhost_data_wire_bytes(&p0, 1000, false), 1036);
	assert_int_equal(aif_rhost_data_wire_bytes(&p0, 3, false), 39);
	assert_int_equal(aif_rhost_ack_wire_bytes(&p0), 48);

	/* one 1000-byte packet: 83 ns on host 0's wire (82.88, rounded up to
	 * the ns as ns-3 schedules it), the cable, the switch's side of the
	 * port 83 ns more, host 1's cable: in at 2,166 ns (Ethernet's 1,098 B:
	 * 2,176); its 48-byte ACK (3.84 ns: 4) back the same way: 4,174 ns, the
	 * FCT ns-3 gives this flow */
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.rcvd_at[1], 2166);
	assert_int_equal(r.d[1].first_ack_at, 2166 + 4 + 1000);
	assert_int_equal(r.sent_at[0], 4174);
	teardown_run(&r);

	/* 1 MB back to back: 1,000 packets of 1,036 B, paced at line rate on
	 * those bytes, each 83 ns on a wire as ns-3 times it (whole ns, up):
	 * the last in at 83 ns + 1,000 x 83 ns (exact Ethernet-style time,
	 * 82.88 ns a packet, would be 120 ns sooner) */
	p0.link_delay_ns = p1.link_delay_ns = 0;
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, AIF_NS_PER_MS);
	assert_int_equal(r.n_rcvd[1], 1);
	assert_int_equal(r.rcvd_at[1], 83 + 83000);
	const struct aif_rhost_ctr *c0 = aif_rhost_ctr(r.h[0]), *c1 = aif_rhost_ctr(r.h[1]);
	assert_int_equal(c0->tx_wire_bytes, 1000 * 1036);
	assert_int_equal(c1->rx_wire_bytes, 1000 * 1036);
	assert_int_equal(c1->tx_wire_bytes, 1000 * 48);
	assert_int_equal(c0->rx_wire_bytes, 1000 * 48);
	/* the host's arithmetic is wire.h's on the frames it built */
	assert_int_equal(r.d[0].ns3_wire, c0->tx_wire_bytes);
	assert_int_equal(r.d[1].ns3_wire, c1->tx_wire_bytes);

	/* a PFC frame from the switch: 31 bytes, 2.48 ns on the host's wire,
	 * 3 in whole ns (Ethernet's 84: 6.72) */
	uint8_t buf[64];
	uint16_t quanta[AIF_PFC_PRIOS] = { 0 };
	struct aif_mac sw = { .b = { 2, 0, 0, 0, 0, 0x10 } };
	quanta[3] = 10;
	int n = aif_pfc_frame_build(buf, sizeof(buf), &sw, 1u << 3, quanta);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf, (size_t)n);
	aif_time_ns t = r.now + 1000;
	assert_int_equal(ops->tx_ctrl(&r.port[0], 0, m, t), 1);
	assert_int_equal(ops->tx_ready_ns(&r.port[0], 0, t), t + 3);
	assert_int_equal(aif_rhost_ctr(r.h[0])->rx_wire_bytes, 1000 * 48 + 31);
	teardown_run(&r);

	/* NAKs, SACKs, CNP frames and flagged ACKs: 48 bytes each, as wire.h
	 * counts the frames */
	for (int ooo = 0; ooo < 2; ooo++) {
		params(&p0, 0, ooo);
		params(&p1, 1, ooo);
		p0.wire_model = p1.wire_model = AIF_WIRE_NS3;
		p1.cnp = ooo ? AIF_RHOST_CNP_FRAME : AIF_RHOST_CNP_ACK_FLAG;
		setup_run(&r, &p0, &p1, &q0, &q1);
		r.d[0].drop_at = 100;
		r.d[0].mark_ce = 50;
		assert_int_equal(aif_rhost_post(r.h[0], q0, 300000, 1, 0), 0);
		run_until(&r, 10 * AIF_NS_PER_MS);
		assert_int_equal(r.n_rcvd[1], 1);
		assert_true(r.d[1].naks > 0 && (ooo ? r.d[1].cnp_frames : r.d[1].becn) > 0);
		assert_int_equal(r.d[0].ns3_wire, aif_rhost_ctr(r.h[0])->tx_wire_bytes);
		assert_int_equal(r.d[1].ns3_wire, aif_rhost_ctr(r.h[1])->tx_wire_bytes);
		assert_int_equal(aif_rhost_ctr(r.h[1])->tx_wire_bytes,
				 48 * (uint64_t)aif_rhost_ctr(r.h[1])->tx_frames);
		teardown_run(&r);
	}

	/* ns-3 paces DCQCN on p->GetSize() (1,048 B for a 1,000-byte payload)
	 * at the QP's rate, truncated to the ns: a QP at 10 Gb/s on the 100G
	 * wire starts a packet every 838 ns (1,036 B would be 828.8): the
	 * last of 1,000 in at 999 x 838 + 83 + 83 */
	params(&p0, 0, false);
	params(&p1, 1, false);
	p0.wire_model = p1.wire_model = AIF_WIRE_NS3;
	p0.mtu = p1.mtu = 1000;
	p0.dc.line_rate_bps = 10000000000ull;
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.rcvd_at[1], 999 * 838 + 83 + 83);
	teardown_run(&r);

	/* a 10 Gb/s wire: a frame's time is 1,048 B at 10G truncated, 838 ns
	 * (ns-3's qbb device), not 1,036 B's 828.8 */
	p0.dc.line_rate_bps = 0;
	p0.rate_bps = p1.rate_bps = 10000000000ull;
	aif_dcqcn_params_conweave(&p0.dc, p0.rate_bps);
	aif_dcqcn_params_conweave(&p1.dc, p1.rate_bps);
	setup_run(&r, &p0, &p1, &q0, &q1);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_int_equal(r.rcvd_at[1], 1001 * 838);
	teardown_run(&r);

	/* a PAUSE of 977 quanta (5,002.24 ns at 100G, what the switch's ns-3
	 * mode sends for 5 us) holds the host 5,000 ns, as ns-3's whole-us
	 * PauseHeader: heard at h (its 31 bytes in behind an ACK or two), the
	 * next data frame starts at h + 5,000 and is in 83 ns later */
	params(&p0, 0, false);
	params(&p1, 1, false);
	p0.wire_model = p1.wire_model = AIF_WIRE_NS3;
	p0.mtu = p1.mtu = 1000;
	setup_run(&r, &p0, &p1, &q0, &q1);
	aif_time_ns heard = 0;
	aif_rhost_set_pfc_log(r.h[0], heard_at, &heard);
	assert_int_equal(aif_rhost_post(r.h[0], q0, 1000000, 1, 0), 0);
	run_until(&r, 1000);
	quanta[3] = 977;
	n = aif_pfc_frame_build(buf, sizeof(buf), &sw, 1u << 3, quanta);
	m = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf, (size_t)n);
	assert_int_equal(ops->tx_ctrl(&r.port[0], 0, m, 1000), 1);
	r.d[0].watch_from = 1084; /* after the frame on the wire at 1,000 */
	run_until(&r, 10 * AIF_NS_PER_MS);
	assert_true(heard >= 1003 && heard < 1100);
	assert_int_equal(r.d[0].watched_at, heard + 5000 + 83);
	teardown_run(&r);

	params(&p0, 0, false);
	p0.wire_model = AIF_WIRE_MODEL_MAX;
	char err[128];
	assert_null(aif_rhost_create(&p0, pool, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "wire model"));
}

/* Room for QPs reserved at once: the same QPs (numbers, source ports,
 * peers) as connected one by one, up to max_qps and not past it. */
static void
test_reserve_qps(void **state)
{
	struct aif_rhost_params p0, p1;
	struct aif_rhost *h[2][2];
	char err[128];
	uint32_t qa[2], qb[2];

	(void)state;
	params(&p0, 0, false);
	params(&p1, 1, true);
	for (int k = 0; k < 2; k++) {
		h[k][0] = aif_rhost_create(&p0, pool, 300, err, sizeof(err));
		h[k][1] = aif_rhost_create(&p1, pool, 300, err, sizeof(err));
		assert_non_null(h[k][0]);
		assert_non_null(h[k][1]);
	}
	/* one pair reserves all it will take and more than it may */
	assert_int_equal(aif_rhost_reserve_qps(h[1][0], 1000), 0);
	assert_int_equal(aif_rhost_reserve_qps(h[1][1], 200), 0);
	for (uint32_t i = 0; i < 300; i++) {
		for (int k = 0; k < 2; k++)
			assert_int_equal(aif_rhost_connect(h[k][0], h[k][1], &qa[k], &qb[k]), 0);
		assert_int_equal(qa[0], i);
		assert_int_equal(qa[1], i);
		assert_int_equal(qb[1], qb[0]);
		assert_int_equal(aif_rhost_qp_sport(h[1][0], qa[1]), aif_rhost_qp_sport(h[0][0], qa[0]));
		assert_int_equal(aif_rhost_qp_sport(h[1][1], qb[1]), aif_rhost_qp_sport(h[0][1], qb[0]));
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(aif_rhost_n_qps(h[k][0]), 300);
		assert_int_not_equal(aif_rhost_connect(h[k][0], h[k][1], &qa[k], &qb[k]), 0);
		aif_rhost_free(h[k][0]);
		aif_rhost_free(h[k][1]);
	}
}

static void
test_bad_params(void **state)
{
	struct aif_rhost_params p;
	char err[128];

	(void)state;
	params(&p, 0, false);
	p.mtu = 1000 + 2;
	assert_null(aif_rhost_create(&p, pool, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "mtu 1002"));
	params(&p, 0, false);
	p.rate_bps = 0;
	assert_null(aif_rhost_create(&p, pool, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "rate 0"));
	params(&p, 0, false);
	p.rto_low_ns = p.rto_ns + 1;
	assert_null(aif_rhost_create(&p, pool, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "rto_low in 1..rto"));
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_rhost", "aif-ut-rhost", 128) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("rh_pool", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_at_line_rate),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_loss_go_back_n_and_selective),
		cmocka_unit_test(test_holes_selective),
		cmocka_unit_test(test_reorder_spurious_retransmits),
		cmocka_unit_test(test_tail_loss_timeout),
		cmocka_unit_test(test_timeout_floors),
		cmocka_unit_test(test_reserve_qps),
		cmocka_unit_test(test_ce_cnp_rate),
		cmocka_unit_test(test_cnp_on_ack_reacts),
		cmocka_unit_test(test_ack_at_once),
		cmocka_unit_test(test_link_delay),
		cmocka_unit_test(test_gbn_renak),
		cmocka_unit_test(test_stale_nak),
		cmocka_unit_test(test_gbn_timer_per_packet),
		cmocka_unit_test(test_pfc_holds_data),
		cmocka_unit_test(test_icrc),
		cmocka_unit_test(test_pad_past_payload),
		cmocka_unit_test(test_light_frames_whole_bytes),
		cmocka_unit_test(test_light_frames_received),
		cmocka_unit_test(test_wire_model_ns3),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
