/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/sched.c (and sched.h): ETS scheduling (strict
 * priority + DWRR), PFC pause masks, the token-bucket shaper and its
 * next_event_ns, the intrusive queues and counters.  No EAL; packets are
 * small structs from an arena, each with a numeric id, then the scheduler's
 * node (at offset 4, not at the start: in an mbuf it sits in a dynfield)
 * and a canary after it; sizes drawn from a seeded xorshift
 * (dataplane/rng.h), time is virtual.  Every figure below is exact for the
 * given seed; the tolerances are the ones the module promises.
 *
 *   - config-init: one distinct error per bad field, defaults filled in.
 *   - DWRR: the exact service order for fixed sizes; shares for weights
 *     1:2:4 with sizes 64..1500 over 4 MB served within 2% of 1/7, 2/7, 4/7.
 *   - SP starves lower queues while it holds packets; the next one is served
 *     the moment it empties; SP + DWRR in an exact order.
 *   - Pause: a paused queue gets nothing, the others split its share, and
 *     it gets its exact share back after resume; a paused SP queue too.
 *   - Shaper at 10 Gb/s over 10 ms of virtual time with 1500 B, 64 B and
 *     mixed frames, counting 20 B per frame: frames delivered equal the
 *     closed form floor((burst + rate*T) / cost) and the rate is within 1%.
 *   - next_event_ns is the first ns at which the packet goes (one ns before:
 *     nothing), against the closed form ceil((C_k - depth) / rate).
 *   - Oversized frame, invalid enqueue, drain, counters.
 *   - Queues are intrusive FIFOs: one queue takes 200000 packets (the rings
 *     they replace held 1024 by default, 65536 at most); FIFO order holds
 *     per queue over random interleavings 20000 packets deep; drain hands
 *     back every packet of a 70000-packet queue in order; init and enqueue
 *     allocate nothing (malloc's counters do not move).
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"
#include "sched.h"

#define RNG_SEED 0x5c4ed0a1f00dull
#define GBPS10 10000000000ull
#define T_10MS (10 * AIF_NS_PER_MS)

/* A queued packet: what the test calls it, the node, and a canary the
 * scheduler must leave alone. */
struct elem {
	uint32_t id;
	struct aif_sched_node node;
	uint32_t canary;
};

#define NODE_OFF offsetof(struct elem, node)
#define CANARY 0xc0ffee11u
#define ARENA_ELEMS (1u << 19) /* more than any test holds queued at once */

static struct elem arena[ARENA_ELEMS];
static unsigned arena_next;

/* A fresh packet called v. */
static void *
tag(uintptr_t v)
{
	struct elem *e = &arena[arena_next++ % ARENA_ELEMS];

	e->id = (uint32_t)v;
	e->canary = CANARY;
	return e;
}

/* What a dequeued packet is called. */
static uint32_t
id_of(const void *pkt)
{
	const struct elem *e = pkt;

	assert_int_equal(e->canary, CANARY);
	return e->id;
}

static void
setup_sched(struct aif_sched *s, const struct aif_sched_params *p)
{
	struct aif_sched_params q = *p;
	struct aif_sched_config c;

	q.node_off = NODE_OFF;
	assert_int_equal(aif_sched_config_init(&c, &q), AIF_SCHED_ERR_OK);
	assert_int_equal(aif_sched_init(s, &c, 0), AIF_SCHED_ERR_OK);
}

/* ---- config ---- */

static void
test_config_errors(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched_config c;
	static const struct {
		const char *what;
		int field;
		uint64_t value;
		int err;
	} cases[] = {
		{"mode 2", 0, 2, AIF_SCHED_ERR_MODE},
		{"weight 0", 1, 0, AIF_SCHED_ERR_WEIGHT},
		{"weight 1001", 1, 1001, AIF_SCHED_ERR_WEIGHT},
		{"mtu 63", 2, 63, AIF_SCHED_ERR_MTU},
		{"mtu 16385", 2, 16385, AIF_SCHED_ERR_MTU},
		{"quantum 63", 3, 63, AIF_SCHED_ERR_QUANTUM},
		{"quantum 65537", 3, 65537, AIF_SCHED_ERR_QUANTUM},
		{"rate 1.6T+1", 4, AIF_SCHED_RATE_MAX_BPS + 1, AIF_SCHED_ERR_RATE},
		{"burst 64M+1", 5, AIF_SCHED_BURST_MAX_BYTES + 1, AIF_SCHED_ERR_BURST},
		{"node_off 2", 6, 2, AIF_SCHED_ERR_NODE},
		{"node_off 37", 6, 37, AIF_SCHED_ERR_NODE},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		aif_sched_params_default(&p);
		switch (cases[i].field) {
		case 0: p.q[5].mode = (uint8_t)cases[i].value; break;
		case 1: p.q[2].weight = (uint32_t)cases[i].value; break;
		case 2: p.mtu_bytes = (uint32_t)cases[i].value; break;
		case 3: p.quantum_base_bytes = (uint32_t)cases[i].value; break;
		case 4: p.rate_bps = cases[i].value; break;
		case 5: p.burst_bytes = (uint32_t)cases[i].value; break;
		case 6: p.node_off = (uint32_t)cases[i].value; break;
		}
		memset(&c, 0xab, sizeof(c));
		if (aif_sched_config_init(&c, &p) != cases[i].err) {
			fail_msg("%s: got %d want %d", cases[i].what,
				 aif_sched_config_init(&c, &p), cases[i].err);
		}
	}
	/* distinct, named */
	for (int e = AIF_SCHED_ERR_NODE; e <= 0; e++)
		for (int f = e + 1; f <= 0; f++)
			assert_string_not_equal(aif_sched_err_name(e),
						aif_sched_err_name(f));
	assert_string_equal(aif_sched_err_name(-8), "unknown");
	assert_string_equal(aif_sched_err_name(1), "unknown");

	/* defaults, and SP weight ignored */
	aif_sched_params_default(&p);
	p.q[7].mode = AIF_SCHED_SP;
	p.q[7].weight = 0;
	p.q[3].weight = 4;
	assert_int_equal(aif_sched_config_init(&c, &p), 0);
	assert_int_equal(c.mtu_bytes, 1500);
	assert_int_equal(c.burst_bytes, 1520);
	assert_int_equal(c.node_off, 0);
	assert_int_equal(c.sp_mask, 0x80);
	assert_int_equal(c.dwrr_mask, 0x7f);
	assert_int_equal(c.quantum_bytes[3], 6000);
	assert_int_equal(c.quantum_bytes[0], 1500);
	assert_int_equal(c.quantum_bytes[7], 0);
	assert_true(c.depth_nbit == 1520ull * 8 * 1000000000ull);
	p.mtu_bytes = 9000;
	assert_int_equal(aif_sched_config_init(&c, &p), 0);
	assert_int_equal(c.quantum_bytes[0], 9000);
	assert_int_equal(c.burst_bytes, 9020);
	p.node_off = 36;
	assert_int_equal(aif_sched_config_init(&c, &p), 0);
	assert_int_equal(c.node_off, 36);
	assert_true(aif_sched_qctr_n == 6 && aif_sched_pctr_n == 1);
	assert_string_equal(aif_sched_qctr_names[2], "deq_packets");
}

/* ---- DWRR ---- */

static void
test_dwrr_exact_order(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[64];
	uint8_t qid[64];
	static const uint8_t want[12] = {0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1};

	aif_sched_params_default(&p);
	p.quantum_base_bytes = 1000;
	p.q[1].weight = 2;
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 20; i++) {
		assert_int_equal(aif_sched_enqueue(&s, 0, tag(i), 500), 0);
		assert_int_equal(aif_sched_enqueue(&s, 1, tag(100 + i), 500), 0);
	}
	/* one at a time: a dequeue that stops mid-turn must resume it */
	for (unsigned i = 0; i < 12; i++) {
		assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, &pk[i], NULL,
						       &qid[i], 1), 1);
		assert_int_equal(qid[i], want[i]);
	}
	assert_true(id_of(pk[0]) == 0 && id_of(pk[1]) == 1 && id_of(pk[2]) == 100);
	/* and in one burst from the same point: same pattern */
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 12), 12);
	assert_memory_equal(qid, want, 12);
	aif_sched_free(&s);
}

/* Keep queues in mask at >= 256 packets of sizes 64..1500. */
static void
top_up(struct aif_sched *s, uint8_t mask, struct aif_rng *r, uintptr_t *id)
{
	for (unsigned q = 0; q < AIF_SCHED_NQ; q++) {
		if (!(mask & (1u << q)))
			continue;
		while (aif_sched_qlen_pkts(s, (uint8_t)q) < 256) {
			uint32_t b = 64 + aif_rng_below(r, 1500 - 64 + 1);
			assert_int_equal(aif_sched_enqueue(s, (uint8_t)q,
							   tag((*id)++), b), 0);
		}
	}
}

static void
test_dwrr_shares_1_2_4(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	struct aif_rng r;
	void *pk[32];
	uint32_t len[32];
	uint64_t total = 0, by_q[3];
	uintptr_t id = 1;
	static const uint32_t w[3] = {1, 2, 4};

	aif_sched_params_default(&p);
	for (unsigned q = 0; q < 3; q++)
		p.q[q].weight = w[q];
	setup_sched(&s, &p);
	aif_rng_seed(&r, RNG_SEED);
	while (total < 4000000) {
		unsigned n;

		top_up(&s, 0x07, &r, &id);
		n = aif_sched_dequeue(&s, 0, 0, pk, len, 32);
		assert_int_equal(n, 32);
		for (unsigned i = 0; i < n; i++)
			total += len[i];
	}
	for (unsigned q = 0; q < 3; q++) {
		double share, want = w[q] / 7.0;

		by_q[q] = aif_sched_queue_ctr(&s, (uint8_t)q)->deq_bytes;
		share = (double)by_q[q] / (double)total;
		printf("# dwrr 1:2:4 q%u: %llu B share %.5f want %.5f err %+.3f%%\n",
		       q, (unsigned long long)by_q[q], share, want,
		       100.0 * (share - want) / want);
		assert_true(share > want * 0.98 && share < want * 1.02);
	}
	assert_true(by_q[0] + by_q[1] + by_q[2] == total);
	for (unsigned q = 3; q < AIF_SCHED_NQ; q++)
		assert_int_equal(aif_sched_queue_ctr(&s, (uint8_t)q)->deq_packets, 0);
	aif_sched_free(&s);
}

/* ---- strict priority ---- */

static void
test_sp_starves_then_yields(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[4];
	uint8_t qid[4];

	aif_sched_params_default(&p);
	p.q[7].mode = AIF_SCHED_SP;
	p.q[5].mode = AIF_SCHED_SP;
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 10; i++) {
		aif_sched_enqueue(&s, 0, tag(i), 100);
		aif_sched_enqueue(&s, 5, tag(50 + i), 1000);
		aif_sched_enqueue(&s, 7, tag(70 + i), 64);
	}
	/* q7 first; more q7 arrivals keep starving the rest */
	for (unsigned i = 0; i < 15; i++) {
		if (i == 5)
			for (unsigned j = 0; j < 5; j++)
				aif_sched_enqueue(&s, 7, tag(80 + j), 64);
		assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 1), 1);
		assert_int_equal(qid[0], 7);
	}
	assert_int_equal(aif_sched_qlen_pkts(&s, 7), 0);
	/* q7 empty: the very next dequeue serves q5, then q0 */
	for (unsigned i = 0; i < 10; i++) {
		assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 1), 1);
		assert_int_equal(qid[0], 5);
		assert_true(id_of(pk[0]) == 50 + i);
		if (i == 4) {
			/* a q7 arrival pre-empts q5 at the next packet */
			aif_sched_enqueue(&s, 7, tag(99), 64);
			assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL,
							       qid, 1), 1);
			assert_int_equal(qid[0], 7);
		}
	}
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 4), 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(qid[i], 0);
	assert_int_equal(aif_sched_queue_ctr(&s, 7)->deq_packets, 16);
	assert_int_equal(aif_sched_queue_ctr(&s, 5)->deq_packets, 10);
	aif_sched_free(&s);
}

static void
test_sp_dwrr_mixed(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[64];
	uint8_t qid[64];
	unsigned n;

	aif_sched_params_default(&p);
	p.quantum_base_bytes = 1000;
	p.q[6].mode = AIF_SCHED_SP;
	p.q[3].weight = 3;
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 40; i++) {
		aif_sched_enqueue(&s, 0, tag(i), 1000);
		aif_sched_enqueue(&s, 3, tag(300 + i), 1000);
	}
	for (unsigned i = 0; i < 4; i++)
		aif_sched_enqueue(&s, 6, tag(600 + i), 64);
	/* 4 SP, then rounds of q0 x1, q3 x3; stop after q3's first of 3 */
	n = aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 18);
	assert_int_equal(n, 18);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(qid[i], 6);
	for (unsigned i = 4; i < 18; i++)
		assert_int_equal(qid[i], (i - 4) % 4 == 0 ? 0 : 3);
	/* SP arrival mid-turn: served first, then q3 finishes its turn */
	aif_sched_enqueue(&s, 6, tag(700), 64);
	n = aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 5);
	assert_int_equal(n, 5);
	assert_memory_equal(qid, ((uint8_t[]){6, 3, 3, 0, 3}), 5);
	aif_sched_free(&s);
}

/* ---- PFC pause ---- */

static void
test_pause_mask(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[32];
	uint8_t qid[32];
	unsigned cnt[AIF_SCHED_NQ];

	aif_sched_params_default(&p);
	p.q[7].mode = AIF_SCHED_SP;
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 1000; i++)
		for (unsigned q = 0; q < 3; q++)
			aif_sched_enqueue(&s, (uint8_t)q, tag(i), 1500);
	/* q1 paused: nothing from it, q0 and q2 split evenly */
	memset(cnt, 0, sizeof(cnt));
	for (unsigned k = 0; k < 10; k++) {
		unsigned n = aif_sched_dequeue_qid(&s, 0, 0x02, pk, NULL, qid, 30);

		assert_int_equal(n, 30);
		for (unsigned i = 0; i < n; i++)
			cnt[qid[i]]++;
	}
	assert_int_equal(cnt[1], 0);
	assert_int_equal(cnt[0], 150);
	assert_int_equal(cnt[2], 150);
	assert_int_equal(aif_sched_qlen_pkts(&s, 1), 1000);
	assert_true(aif_sched_next_event_mask_ns(&s, 5, 0x07) ==
		    AIF_SCHED_NEVER_NS);
	/* resumed: exact thirds again */
	memset(cnt, 0, sizeof(cnt));
	for (unsigned k = 0; k < 10; k++) {
		unsigned n = aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 30);

		for (unsigned i = 0; i < n; i++)
			cnt[qid[i]]++;
	}
	assert_int_equal(cnt[0], 100);
	assert_int_equal(cnt[1], 100);
	assert_int_equal(cnt[2], 100);
	/* paused SP queue: skipped, DWRR goes on; unpaused: served first */
	aif_sched_enqueue(&s, 7, tag(7), 64);
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0x80, pk, NULL, qid, 1), 1);
	assert_int_not_equal(qid[0], 7);
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0x00, pk, NULL, qid, 1), 1);
	assert_int_equal(qid[0], 7);
	aif_sched_free(&s);
}

/* Pause mid-turn keeps the deficit: a paused queue with credit left gets
 * exactly that credit back, no more. */
static void
test_pause_keeps_deficit(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[16];
	uint8_t qid[16];

	aif_sched_params_default(&p);
	p.quantum_base_bytes = 1000;
	p.q[0].weight = 4; /* 4000 B per turn */
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 50; i++) {
		aif_sched_enqueue(&s, 0, tag(i), 1000);
		aif_sched_enqueue(&s, 1, tag(100 + i), 1000);
	}
	/* q0 sends 1 of its 4, then is paused */
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 1), 1);
	assert_int_equal(qid[0], 0);
	assert_int_equal(s.dwrr.deficit_bytes[0], 3000);
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0x01, pk, NULL, qid, 3), 3);
	assert_memory_equal(qid, ((uint8_t[]){1, 1, 1}), 3);
	assert_int_equal(s.dwrr.deficit_bytes[0], 3000);
	/* resumed: q1 finishes nothing more this turn (1000 B quantum, all
	 * used each visit), q0 gets 3000 + 4000 */
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 9), 9);
	assert_memory_equal(qid, ((uint8_t[]){0, 0, 0, 0, 0, 0, 0, 1, 0}), 9);
	aif_sched_free(&s);
}

/* A queue that empties loses its leftover deficit (no banking credit while
 * idle); so does one the watchdog drains. */
static void
test_empty_resets_deficit(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[16];
	uint8_t qid[16];

	aif_sched_params_default(&p);
	p.quantum_base_bytes = 1000;
	p.q[0].weight = 4;
	setup_sched(&s, &p);
	aif_sched_enqueue(&s, 0, tag(1), 1000);
	for (unsigned i = 0; i < 20; i++)
		aif_sched_enqueue(&s, 1, tag(100 + i), 1000);
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 2), 2);
	assert_memory_equal(qid, ((uint8_t[]){0, 1}), 2);
	assert_int_equal(s.dwrr.deficit_bytes[0], 0);
	for (unsigned i = 0; i < 10; i++)
		aif_sched_enqueue(&s, 0, tag(2 + i), 1000);
	/* q0: 4000 this turn, not 3000 + 4000 */
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 7), 7);
	assert_memory_equal(qid, ((uint8_t[]){0, 0, 0, 0, 1, 0, 0}), 7);
	/* drained mid-turn (2000 B left): credit gone, next turn is 4000 */
	assert_int_equal(s.dwrr.deficit_bytes[0], 2000);
	assert_int_equal(aif_sched_drain(&s, 0, pk, NULL, 16), 4);
	assert_int_equal(s.dwrr.deficit_bytes[0], 0);
	for (unsigned i = 0; i < 10; i++)
		aif_sched_enqueue(&s, 0, tag(20 + i), 1000);
	assert_int_equal(aif_sched_dequeue_qid(&s, 0, 0, pk, NULL, qid, 6), 6);
	assert_memory_equal(qid, ((uint8_t[]){0, 0, 0, 0, 1, 0}), 6);
	aif_sched_free(&s);
}

/* ---- shaper ---- */

/*
 * Back-to-back frames of `bytes` (or random 64..1500 when bytes == 0) on a
 * 10 Gb/s shaper with the default 1520 B bucket, dequeuing at every
 * next_event_ns (poll_ns == 0) or every poll_ns, over [0, T_10MS].  Returns
 * wire bits delivered; *frames gets the count.
 */
static uint64_t
run_shaper(uint32_t bytes, aif_time_ns poll_ns, uint64_t *frames)
{
	struct aif_sched_params p;
	struct aif_sched s;
	struct aif_rng r;
	void *pk[32];
	uint32_t len[32];
	uint64_t bits = 0, nf = 0;
	uintptr_t id = 1;
	aif_time_ns t = 0;

	aif_sched_params_default(&p);
	p.rate_bps = GBPS10;
	setup_sched(&s, &p);
	aif_rng_seed(&r, RNG_SEED);
	while (t <= T_10MS) {
		unsigned n;

		while (aif_sched_qlen_pkts(&s, 0) < 64) {
			uint32_t b = bytes ? bytes
					   : 64 + aif_rng_below(&r, 1500 - 64 + 1);
			aif_sched_enqueue(&s, 0, tag(id++), b);
		}
		n = aif_sched_dequeue(&s, t, 0, pk, len, 32);
		for (unsigned i = 0; i < n; i++)
			bits += (uint64_t)(len[i] + 20) * 8;
		nf += n;
		if (poll_ns) {
			t += poll_ns;
		} else {
			aif_time_ns e = aif_sched_next_event_ns(&s, t);

			assert_true(e > t || n == 32);
			t = e > t ? e : t;
		}
	}
	assert_int_equal(aif_sched_queue_ctr(&s, 0)->deq_packets, nf);
	aif_sched_free(&s);
	*frames = nf;
	return bits;
}

static double
rate_err(uint64_t bits)
{
	double got = (double)bits / ((double)T_10MS / 1e9);

	return (got - (double)GBPS10) / (double)GBPS10;
}

static void
test_shaper_10g(void **state)
{
	(void)state;
	uint64_t f, bits;
	/* bucket 1520 B = 12160 bits full at t=0, then 10 bits/ns */
	const uint64_t avail = 12160 + 10 * T_10MS;

	bits = run_shaper(1500, 0, &f);
	printf("# shaper 10G 1500B: %llu frames, %llu wire bits in 10 ms, err %+.4f%%\n",
	       (unsigned long long)f, (unsigned long long)bits, 100 * rate_err(bits));
	assert_int_equal(f, avail / 12160); /* 8224 */
	assert_int_equal(f, 8224);
	assert_true(rate_err(bits) > -0.01 && rate_err(bits) < 0.01);

	bits = run_shaper(64, 0, &f);
	printf("# shaper 10G 64B: %llu frames, %llu wire bits in 10 ms, err %+.4f%%\n",
	       (unsigned long long)f, (unsigned long long)bits, 100 * rate_err(bits));
	assert_int_equal(f, avail / 672); /* 148827: 67.2 ns per frame, no drift */
	assert_true(rate_err(bits) > -0.01 && rate_err(bits) < 0.01);

	/* a worker polling every 1 us instead of at each event: same count */
	bits = run_shaper(64, 1000, &f);
	printf("# shaper 10G 64B polled 1us: %llu frames, err %+.4f%%\n",
	       (unsigned long long)f, 100 * rate_err(bits));
	assert_int_equal(f, avail / 672);

	bits = run_shaper(0, 0, &f);
	printf("# shaper 10G 64..1500B: %llu frames, %llu wire bits, err %+.4f%%\n",
	       (unsigned long long)f, (unsigned long long)bits, 100 * rate_err(bits));
	assert_true(bits <= avail && bits > avail - 12160);
	assert_true(rate_err(bits) > -0.01 && rate_err(bits) < 0.01);
}

/* next_event_ns against the closed form: backlogged from t=0 with a full
 * bucket, packet k leaves at max(0, ceil((C_k - depth) / rate)) ns where
 * C_k = sum of wire bits of packets 1..k, in nanobits.  Odd rate on purpose. */
static void
test_next_event_exact(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	struct aif_rng r;
	void *pk[1];
	uint32_t sz[2000];
	const uint64_t rate = 1000000007ull;
	const uint64_t depth = 1520ull * 8 * 1000000000ull;
	uint64_t c = 0;
	aif_time_ns t = 0;

	aif_sched_params_default(&p);
	p.rate_bps = rate;
	setup_sched(&s, &p);
	assert_true(aif_sched_next_event_ns(&s, 0) == AIF_SCHED_NEVER_NS);
	aif_rng_seed(&r, RNG_SEED);
	for (unsigned k = 0; k < 2000; k++) {
		sz[k] = 64 + aif_rng_below(&r, 1500 - 64 + 1);
		aif_sched_enqueue(&s, 2, tag(k + 1), sz[k]);
	}
	for (unsigned k = 0; k < 2000; k++) {
		aif_time_ns e = aif_sched_next_event_ns(&s, t);
		aif_time_ns want;

		c += (uint64_t)(sz[k] + 20) * 8 * 1000000000ull;
		want = c <= depth ? 0 : (c - depth + rate - 1) / rate;
		want = want > t ? want : t;
		if (e != want)
			fail_msg("packet %u: next_event %llu want %llu", k,
				 (unsigned long long)e, (unsigned long long)want);
		if (e > t)
			assert_int_equal(aif_sched_dequeue(&s, e - 1, 0, pk, NULL, 1), 0);
		assert_int_equal(aif_sched_dequeue(&s, e, 0, pk, NULL, 1), 1);
		assert_true(id_of(pk[0]) == k + 1);
		t = e;
	}
	printf("# next_event: 2000 packets at %llu b/s, last at %llu ns\n",
	       (unsigned long long)rate, (unsigned long long)t);
	assert_true(s.pctr.shaper_holds > 0);
	aif_sched_free(&s);
}

/* next_event names the packet the scheduler picks, not just any head. */
/*
 * aif_sched_pass leaves an idle scheduler as enqueue then dequeue would:
 * random SP/DWRR mixes, weights and prior DWRR turns (a deficit left by a
 * drain, a turn started), a random unpaused queue, sizes up to past the
 * largest a queue takes; the whole struct compared.
 */
static void
test_pass_as_enqueue_dequeue(void **state)
{
	(void)state;
	struct aif_rng r;
	struct aif_sched_params p;
	struct aif_sched a, b;
	void *pk[2];
	uint8_t qid[2];

	aif_rng_seed(&r, RNG_SEED);
	for (unsigned it = 0; it < 20000; it++) {
		aif_sched_params_default(&p);
		for (unsigned q = 0; q < AIF_SCHED_NQ; q++) {
			p.q[q].mode = aif_rng_below(&r, 3) == 0 ? AIF_SCHED_SP : AIF_SCHED_DWRR;
			p.q[q].weight = 1 + aif_rng_below(&r, 4);
		}
		setup_sched(&a, &p);
		/* some history: packets through every queue, some still there,
		 * drained (the deficit stays), a turn begun */
		for (unsigned k = aif_rng_below(&r, 6); k > 0; k--) {
			uint8_t q = (uint8_t)aif_rng_below(&r, AIF_SCHED_NQ);
			aif_sched_enqueue(&a, q, tag(k), 64 + aif_rng_below(&r, 3000));
		}
		aif_sched_dequeue_qid(&a, 0, (uint8_t)aif_rng_next(&r), pk, NULL, qid, 1);
		void *drained[64];
		for (uint8_t q = 0; q < AIF_SCHED_NQ; q++)
			while (aif_sched_drain(&a, q, drained, NULL, 64) > 0)
				;
		assert_true(aif_sched_idle(&a));
		uint8_t paused = (uint8_t)aif_rng_next(&r), q = (uint8_t)aif_rng_below(&r, 8);
		paused &= (uint8_t)~(1u << q);
		uint32_t bytes = aif_rng_below(&r, 8) == 0 ? AIF_SCHED_PKT_MAX_BYTES + 1
							   : 64 + aif_rng_below(&r, 9000);
		void *pkt = tag(it);
		memcpy(&b, &a, sizeof(a));
		int rc = aif_sched_enqueue(&a, q, pkt, bytes);
		if (rc == AIF_SCHED_ENQ_OK) {
			assert_int_equal(aif_sched_dequeue_qid(&a, 5, paused, pk, NULL, qid, 2), 1);
			assert_ptr_equal(pk[0], pkt);
			assert_int_equal(qid[0], q);
		}
		assert_int_equal(aif_sched_pass(&b, q, pkt, bytes, paused), rc);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

static void
test_next_event_follows_pick(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[4];

	aif_sched_params_default(&p);
	p.rate_bps = GBPS10;
	p.q[6].mode = AIF_SCHED_SP;
	setup_sched(&s, &p);
	aif_sched_enqueue(&s, 0, tag(1), 1500);
	aif_sched_enqueue(&s, 0, tag(2), 1500);
	/* t=1000: full bucket, one 1500 B frame, empty bucket */
	assert_int_equal(aif_sched_dequeue(&s, 1000, 0, pk, NULL, 4), 1);
	assert_true(aif_sched_next_event_ns(&s, 1000) == 1000 + 1216);
	/* a 64 B SP frame goes first: 84 B = 672 bits = 67.2 ns -> 68 */
	aif_sched_enqueue(&s, 6, tag(3), 64);
	assert_true(aif_sched_next_event_ns(&s, 1000) == 1068);
	assert_true(aif_sched_next_event_mask_ns(&s, 1000, 0x40) == 2216);
	assert_int_equal(aif_sched_dequeue(&s, 1067, 0, pk, NULL, 4), 0);
	assert_int_equal(aif_sched_dequeue(&s, 1068, 0, pk, NULL, 4), 1);
	assert_true(id_of(pk[0]) == 3);
	/* 8 bits left over at 1068: 1500 B needs 12152 more bits -> 1215.2 ns */
	assert_true(aif_sched_next_event_ns(&s, 1068) == 1068 + 1216);
	assert_int_equal(aif_sched_dequeue(&s, 2283, 0, pk, NULL, 4), 0);
	assert_int_equal(aif_sched_dequeue(&s, 2284, 0, pk, NULL, 4), 1);
	/* idle long: bucket caps at the burst, one frame only */
	aif_sched_enqueue(&s, 0, tag(4), 1500);
	aif_sched_enqueue(&s, 0, tag(5), 1500);
	assert_int_equal(aif_sched_dequeue(&s, 1000000, 0, pk, NULL, 4), 1);
	assert_true(aif_sched_next_event_ns(&s, 1000000) == 1001216);
	/* unshaped: now */
	aif_sched_free(&s);
	p.rate_bps = 0;
	setup_sched(&s, &p);
	aif_sched_enqueue(&s, 0, tag(1), 1500);
	assert_true(aif_sched_next_event_ns(&s, 77) == 77);
	aif_sched_free(&s);
}

static void
test_oversized_frame(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[4];

	aif_sched_params_default(&p);
	p.rate_bps = GBPS10; /* bucket 1520 B */
	setup_sched(&s, &p);
	aif_sched_enqueue(&s, 0, tag(1), 9000);
	aif_sched_enqueue(&s, 0, tag(2), 1500);
	/* a full bucket lets the 9000 B frame go, leaving -60000 bits */
	assert_int_equal(aif_sched_dequeue(&s, 0, 0, pk, NULL, 4), 1);
	assert_true(s.tokens_nbit == -60000ll * 1000000000ll);
	/* the 1500 B frame needs 12160 bits: 72160 bits = 7216 ns */
	assert_true(aif_sched_next_event_ns(&s, 0) == 7216);
	assert_int_equal(aif_sched_dequeue(&s, 7215, 0, pk, NULL, 4), 0);
	assert_int_equal(aif_sched_dequeue(&s, 7216, 0, pk, NULL, 4), 1);
	/* 9000 B frame waits for a full bucket, not for 72160 bits */
	aif_sched_enqueue(&s, 0, tag(3), 9000);
	assert_true(aif_sched_next_event_ns(&s, 7216) == 7216 + 1216);
	aif_sched_free(&s);
}

/* ---- queues and counters ---- */

static void
test_counters_invalid_drain(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[8];
	uint32_t len[8];

	aif_sched_params_default(&p);
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(aif_sched_enqueue(&s, 3, tag(i + 1), 100 + i), 0);
	assert_int_equal(aif_sched_enqueue(&s, 8, tag(9), 500), AIF_SCHED_ENQ_INVALID);
	assert_int_equal(aif_sched_enqueue(&s, 2, tag(9), AIF_SCHED_PKT_MAX_BYTES + 1),
			 AIF_SCHED_ENQ_INVALID);
	assert_int_equal(aif_sched_qlen_pkts(&s, 2), 0);
	assert_int_equal(aif_sched_queue_ctr(&s, 2)->enq_packets, 0);
	assert_int_equal(aif_sched_qlen_pkts(&s, 3), 4);
	assert_int_equal(aif_sched_qlen_bytes(&s, 3), 406);
	assert_int_equal(aif_sched_queue_ctr(&s, 3)->enq_packets, 4);
	assert_int_equal(aif_sched_queue_ctr(&s, 3)->enq_bytes, 406);

	assert_int_equal(aif_sched_dequeue(&s, 0, 0, pk, len, 2), 2);
	assert_true(id_of(pk[0]) == 1 && id_of(pk[1]) == 2);
	assert_int_equal(len[0], 100);
	assert_int_equal(len[1], 101);
	assert_int_equal(aif_sched_queue_ctr(&s, 3)->deq_packets, 2);
	assert_int_equal(aif_sched_queue_ctr(&s, 3)->deq_bytes, 201);
	assert_int_equal(aif_sched_qlen_bytes(&s, 3), 205);
	/* a dequeued packet may be queued again, behind the others */
	assert_int_equal(aif_sched_enqueue(&s, 3, pk[0], 200), 0);
	assert_int_equal(aif_sched_enqueue(&s, 3, tag(6), 200), 0);
	/* drain takes them all, in order, bypassing pause */
	assert_int_equal(aif_sched_drain(&s, 3, pk, len, 8), 4);
	assert_true(id_of(pk[0]) == 3 && id_of(pk[1]) == 4 && id_of(pk[2]) == 1 &&
		    id_of(pk[3]) == 6);
	assert_int_equal(aif_sched_queue_ctr(&s, 3)->drain_packets, 4);
	assert_int_equal(aif_sched_queue_ctr(&s, 3)->drain_bytes, 605);
	assert_int_equal(aif_sched_qlen_pkts(&s, 3), 0);
	assert_int_equal(aif_sched_qlen_bytes(&s, 3), 0);
	assert_int_equal(aif_sched_dequeue(&s, 0, 0, pk, len, 8), 0);
	assert_int_equal(aif_sched_drain(&s, 3, pk, len, 8), 0);
	assert_int_equal(aif_sched_drain(&s, 8, pk, len, 8), 0);
	/* an emptied queue starts again from nothing */
	assert_int_equal(aif_sched_enqueue(&s, 3, tag(7), 300), 0);
	assert_int_equal(aif_sched_dequeue(&s, 0, 0, pk, len, 8), 1);
	assert_true(id_of(pk[0]) == 7 && len[0] == 300);
	aif_sched_free(&s);
}

/* One queue takes far more than the 1024-packet rings of the default (and
 * the 65536 the largest buffer got) and gives them back in order. */
static void
test_queue_holds_any_number(void **state)
{
	(void)state;
	const unsigned n = 200000;
	struct aif_sched_params p;
	struct aif_sched s;
	struct aif_rng r;
	void *pk[32];
	uint32_t len[32];
	uint64_t bytes = 0;
	unsigned got = 0;

	aif_sched_params_default(&p);
	setup_sched(&s, &p);
	aif_rng_seed(&r, RNG_SEED);
	for (unsigned i = 0; i < n; i++) {
		uint32_t b = 64 + aif_rng_below(&r, 9000 - 64 + 1);

		if (aif_sched_enqueue(&s, 5, tag(i), b) != AIF_SCHED_ENQ_OK)
			fail_msg("packet %u refused", i);
		bytes += b;
	}
	assert_int_equal(aif_sched_qlen_pkts(&s, 5), n);
	assert_true(aif_sched_qlen_bytes(&s, 5) == bytes);
	aif_rng_seed(&r, RNG_SEED);
	while (got < n) {
		unsigned k = aif_sched_dequeue(&s, 0, 0, pk, len, 32);

		assert_true(k > 0);
		for (unsigned i = 0; i < k; i++, got++) {
			if (id_of(pk[i]) != got)
				fail_msg("dequeued %u, want %u", id_of(pk[i]), got);
			assert_int_equal(len[i], 64 + aif_rng_below(&r, 9000 - 64 + 1));
		}
	}
	assert_int_equal(aif_sched_qlen_pkts(&s, 5), 0);
	assert_true(aif_sched_qlen_bytes(&s, 5) == 0);
	assert_true(aif_sched_queue_ctr(&s, 5)->deq_bytes == bytes);
	assert_true(aif_sched_idle(&s));
	aif_sched_free(&s);
}

/*
 * Random enqueues to random queues, dequeues of random bursts under random
 * pause masks and the odd drain, on SP + DWRR queues: every queue gives its
 * packets back in the order they came, with their lengths.  Two phases,
 * filling to 20000 packets queued (thousands per queue, past the old
 * rings) and emptying, twice.
 */
static void
test_fifo_interleaved(void **state)
{
	(void)state;
	enum { MAXQ = 1u << 15 }; /* per queue model, > any depth reached */
	static uint32_t model_id[AIF_SCHED_NQ][MAXQ], model_len[AIF_SCHED_NQ][MAXQ];
	unsigned head[AIF_SCHED_NQ] = { 0 }, tail[AIF_SCHED_NQ] = { 0 };
	struct aif_sched_params p;
	struct aif_sched s;
	struct aif_rng r;
	void *pk[64];
	uint32_t len[64];
	uint8_t qid[64];
	uint32_t next_id = 0, queued = 0, max_depth = 0;
	uint64_t served = 0;

	aif_sched_params_default(&p);
	p.q[6].mode = AIF_SCHED_SP;
	p.q[2].weight = 3;
	p.q[4].weight = 7;
	setup_sched(&s, &p);
	aif_rng_seed(&r, RNG_SEED);
	for (unsigned phase = 0; phase < 4; phase++) {
		bool fill = (phase & 1) == 0;

		while (fill ? queued < 20000 : queued > 0) {
			/* filling: 15 enqueues for 1 burst of up to 16; emptying: 1
			 * enqueue for 3 bursts of up to 64 */
			bool enq = fill ? aif_rng_below(&r, 16) < 15 : aif_rng_below(&r, 4) == 0;
			unsigned burst_max = fill ? 16 : 64;

			if (enq) {
				uint8_t q = (uint8_t)aif_rng_below(&r, AIF_SCHED_NQ);
				uint32_t b = 64 + aif_rng_below(&r, 1500 - 64 + 1);

				assert_int_equal(aif_sched_enqueue(&s, q, tag(next_id), b), 0);
				model_id[q][tail[q] % MAXQ] = next_id++;
				model_len[q][tail[q]++ % MAXQ] = b;
				queued++;
				if (tail[q] - head[q] > max_depth)
					max_depth = tail[q] - head[q];
				assert_true(tail[q] - head[q] < MAXQ);
				continue;
			}
			if (aif_rng_below(&r, 64) == 0) {
				uint8_t q = (uint8_t)aif_rng_below(&r, AIF_SCHED_NQ);
				unsigned k = aif_sched_drain(&s, q, pk, len,
							     1 + aif_rng_below(&r, burst_max));

				for (unsigned i = 0; i < k; i++, head[q]++) {
					assert_int_equal(id_of(pk[i]), model_id[q][head[q] % MAXQ]);
					assert_int_equal(len[i], model_len[q][head[q] % MAXQ]);
				}
				queued -= k;
				continue;
			}
			uint8_t paused = (uint8_t)(aif_rng_below(&r, 4) == 0
						   ? aif_rng_below(&r, 256) : 0);
			unsigned k = aif_sched_dequeue_qid(&s, 0, paused, pk, len, qid,
							   1 + aif_rng_below(&r, burst_max));
			for (unsigned i = 0; i < k; i++) {
				uint8_t q = qid[i];

				assert_false((paused >> q) & 1);
				assert_true(head[q] < tail[q]);
				if (id_of(pk[i]) != model_id[q][head[q] % MAXQ])
					fail_msg("queue %u: got %u want %u", q, id_of(pk[i]),
						 model_id[q][head[q] % MAXQ]);
				assert_int_equal(len[i], model_len[q][head[q] % MAXQ]);
				head[q]++;
			}
			queued -= k;
			served += k;
		}
		for (unsigned q = 0; q < AIF_SCHED_NQ; q++) {
			assert_int_equal(aif_sched_qlen_pkts(&s, (uint8_t)q), tail[q] - head[q]);
			assert_int_equal(aif_sched_queue_ctr(&s, (uint8_t)q)->enq_packets, tail[q]);
		}
	}
	printf("# fifo: %u packets through 8 queues, %llu by dequeue, deepest queue %u\n",
	       next_id, (unsigned long long)served, max_depth);
	assert_true(max_depth > 1024);
	assert_true(aif_sched_idle(&s));
	aif_sched_free(&s);
}

/* Drain hands back every packet of a queue deeper than the largest ring
 * was, in order, in any chunk size, and leaves the other queues alone. */
static void
test_drain_returns_everything(void **state)
{
	(void)state;
	const unsigned n = 70000;
	struct aif_sched_params p;
	struct aif_sched s;
	void *pk[64];
	uint32_t len[64];
	uint8_t qid[64];
	unsigned got = 0, k;

	aif_sched_params_default(&p);
	p.q[7].mode = AIF_SCHED_SP;
	setup_sched(&s, &p);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(aif_sched_enqueue(&s, 2, tag(i), 64 + i % 1000), 0);
		if (i % 1000 == 0) {
			assert_int_equal(aif_sched_enqueue(&s, 0, tag(1000000 + i), 100), 0);
			assert_int_equal(aif_sched_enqueue(&s, 7, tag(2000000 + i), 200), 0);
		}
	}
	for (unsigned chunk = 1; (k = aif_sched_drain(&s, 2, pk, len, chunk)) > 0;
	     chunk = chunk % 64 + 1) {
		assert_true(k <= chunk);
		for (unsigned i = 0; i < k; i++, got++) {
			assert_int_equal(id_of(pk[i]), got);
			assert_int_equal(len[i], 64 + got % 1000);
		}
	}
	assert_int_equal(got, n);
	assert_int_equal(aif_sched_qlen_pkts(&s, 2), 0);
	assert_true(aif_sched_qlen_bytes(&s, 2) == 0);
	assert_int_equal(aif_sched_queue_ctr(&s, 2)->drain_packets, n);
	assert_int_equal(aif_sched_queue_ctr(&s, 2)->deq_packets, 0);
	/* the others: untouched, served as before (SP q7 first) */
	assert_int_equal(aif_sched_qlen_pkts(&s, 0), 70);
	assert_int_equal(aif_sched_qlen_pkts(&s, 7), 70);
	got = 0;
	while ((k = aif_sched_dequeue_qid(&s, 0, 0, pk, len, qid, 64)) > 0)
		for (unsigned i = 0; i < k; i++, got++) {
			uint8_t want_q = got < 70 ? 7 : 0;
			assert_int_equal(qid[i], want_q);
			assert_int_equal(id_of(pk[i]), (want_q == 7 ? 2000000 : 1000000) +
							1000 * (got % 70));
		}
	assert_int_equal(got, 140);
	assert_true(aif_sched_idle(&s));
	aif_sched_free(&s);
}

static size_t
heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* Nothing is allocated per queue or per packet: 64 ports' schedulers are
 * initialised and then hold 100000 packets without malloc's counters
 * moving (the rings took 8 x 1024 x 16 B per port at init). */
static void
test_init_allocates_nothing(void **state)
{
	(void)state;
	static struct aif_sched port[64];
	struct aif_sched_params p;
	struct aif_sched_config c;
	size_t before, after_init, after_enq;
	int rc = 0;

	aif_sched_params_default(&p);
	p.node_off = NODE_OFF;
	assert_int_equal(aif_sched_config_init(&c, &p), 0);
	before = heap_in_use();
	for (unsigned i = 0; i < 64; i++)
		rc |= aif_sched_init(&port[i], &c, 0);
	after_init = heap_in_use();
	for (unsigned i = 0; i < 100000; i++)
		rc |= aif_sched_enqueue(&port[i % 64], (uint8_t)(i / 64 % 8), tag(i), 1500);
	after_enq = heap_in_use();
	assert_int_equal(rc, 0);
	assert_true(after_init == before);
	assert_true(after_enq == before);
	for (unsigned i = 0; i < 64; i++) {
		uint32_t held = 0;
		for (uint8_t q = 0; q < AIF_SCHED_NQ; q++)
			held += aif_sched_qlen_pkts(&port[i], q);
		assert_true(held == 100000 / 64 || held == 100000 / 64 + 1);
		aif_sched_free(&port[i]);
	}
	/* the scheduler is its struct: a few hundred bytes of counters and
	 * queue heads, whatever the buffer */
	printf("# sizeof(struct aif_sched) %zu, of which queues %zu\n",
	       sizeof(struct aif_sched), sizeof(port[0].q));
	assert_true(sizeof(struct aif_sched) < 1024);
}

static void
test_set_config(void **state)
{
	(void)state;
	struct aif_sched_params p;
	struct aif_sched_config c;
	struct aif_sched s;
	void *pk[8];

	aif_sched_params_default(&p);
	p.rate_bps = GBPS10;
	setup_sched(&s, &p);
	for (unsigned i = 0; i < 4; i++)
		aif_sched_enqueue(&s, 0, tag(i + 1), 1500);
	assert_int_equal(aif_sched_dequeue(&s, 0, 0, pk, NULL, 8), 1);
	/* halve the rate at t=608 (6080 bits in the bucket) */
	p.rate_bps = GBPS10 / 2;
	p.node_off = NODE_OFF;
	assert_int_equal(aif_sched_config_init(&c, &p), 0);
	assert_int_equal(aif_sched_set_config(&s, &c, 608), 0);
	/* 6080 more bits at 5 bits/ns: 1216 ns */
	assert_true(aif_sched_next_event_ns(&s, 608) == 608 + 1216);
	assert_int_equal(aif_sched_qlen_pkts(&s, 0), 3);
	/* the queued packets hold their nodes where they are */
	p.node_off = NODE_OFF + 4;
	assert_int_equal(aif_sched_config_init(&c, &p), 0);
	assert_int_equal(aif_sched_set_config(&s, &c, 700), AIF_SCHED_ERR_NODE);
	assert_int_equal(aif_sched_qlen_pkts(&s, 0), 3);
	assert_int_equal(aif_sched_dequeue(&s, 608 + 1216, 0, pk, NULL, 8), 1);
	assert_int_equal(id_of(pk[0]), 2);
	aif_sched_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_dwrr_exact_order),
		cmocka_unit_test(test_dwrr_shares_1_2_4),
		cmocka_unit_test(test_sp_starves_then_yields),
		cmocka_unit_test(test_sp_dwrr_mixed),
		cmocka_unit_test(test_pause_mask),
		cmocka_unit_test(test_pause_keeps_deficit),
		cmocka_unit_test(test_empty_resets_deficit),
		cmocka_unit_test(test_shaper_10g),
		cmocka_unit_test(test_next_event_exact),
		cmocka_unit_test(test_next_event_follows_pick),
		cmocka_unit_test(test_pass_as_enqueue_dequeue),
		cmocka_unit_test(test_oversized_frame),
		cmocka_unit_test(test_counters_invalid_drain),
		cmocka_unit_test(test_queue_holds_any_number),
		cmocka_unit_test(test_fifo_interleaved),
		cmocka_unit_test(test_drain_returns_everything),
		cmocka_unit_test(test_init_allocates_nothing),
		cmocka_unit_test(test_set_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
