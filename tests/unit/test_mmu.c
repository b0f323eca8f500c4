/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/mmu.c (and mmu.h): the shared-buffer MMU.  No
 * EAL, no clock: occupancy only.
 *
 *   - Headroom derivation (HPCC 3*BDP, Broadcom 2*BDP + 2*MTU), table-driven.
 *   - Config errors: one distinct error per bad field, each with a name.
 *   - Dynamic threshold arithmetic: A1 pool, alpha 1/8, 1, 2; static mode.
 *   - Charging order reserve -> shared -> headroom, overflow, release in
 *     HPCC order, every counter back to zero.
 *   - Lossy drops by reason: shared limit, egress limit (static, dynamic),
 *     pool full; lossless ignores the egress limit.
 *   - XOFF/XON hysteresis at threshold - 3072 exactly; shared == 0 resumes.
 *   - Broadcom variant: pg_min, port_min, 1/16 threshold, strict XOFF, XON
 *     below alpha * (free - 16).
 *   - Watermarks, clear, counter names.
 *   - CONWEAVE (ns-3 switch-mmu.cc): the pool of a leaf, a spine and A1's
 *     switch, XOFF/XON on PG - 2,096 vs (sp_limit - used) / 16, headroom
 *     only past sp_limit, the egress limit on lossless queues, and A1's
 *     first XOFF.
 *   - (Scenario A1, the 16:1 incast with a known answer: test_mmu_a1.c.)
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

/* ConWeave's switch: n ports at 100G with 1 us links, the model's defaults,
 * PFC on PG 3, IP MTU 1500. */
static void
conweave_params(struct aif_mmu_params *p, uint16_t n)
{
	aif_mmu_params_default(p, AIF_MMU_CONWEAVE, n);
	for (unsigned i = 0; i < n; i++) {
		p->port[i].speed_bps = 100 * GBPS;
		p->port[i].cable_delay_ns = 1000;
		p->port[i].mtu_bytes = 1500;
		p->port[i].pfc_enable = 1u << PG3;
	}
}

static void
jumbo_all(struct aif_mmu_params *p)
{
	for (unsigned i = 0; i < p->n_ports; i++)
		p->port[i].mtu_bytes = 9000;
}

/* ---- a calm port ---- */

/*
 * aif_mmu_port_calm says "no change" only where aif_mmu_xoff_mask would
 * return 0 and change nothing: random admissions and releases on A1's
 * switch (a small buffer, so that PGs go into shared, headroom and XOFF),
 * under the HPCC and Broadcom models; never under ConWeave's.
 */
static void
test_port_calm(void **state)
{
	static const enum aif_mmu_model models[] = { AIF_MMU_HPCC, AIF_MMU_BROADCOM };
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge held[512];
	unsigned calm = 0, busy = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (unsigned mi = 0; mi < 2; mi++) {
		a1_params(&p, true);
		p.model = models[mi];
		p.buffer_bytes = 2 * 1024 * 1024;
		assert_int_equal(aif_mmu_config_init(&c, &p), 0);
		struct aif_mmu *m = mmu_new(&c), *copy = malloc(sizeof(*m));
		unsigned n = 0;
		assert_non_null(copy);
		for (unsigned k = 0; k < 4000; k++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			uint16_t in = (uint16_t)((rng >> 33) % 16), out = 16;
			/* occupancy wanders: mostly releases past 40 held, admissions below */
			if (n > 0 && ((rng >> 20) % 8 < (n > 40 ? 6u : 2u) || n == 512)) {
				unsigned i = (unsigned)((rng >> 40) % n);
				in = held[i].in_port;
				aif_mmu_release(m, &held[i]);
				held[i] = held[--n];
			} else {
				uint8_t pg = (rng >> 50) % 4 ? PG3 : 0;
				if (aif_mmu_admit(m, in, pg, out, Q3, 1000 + (uint32_t)((rng >> 24) % 8000),
						  aif_mmu_pg_lossless(m, in, pg), &held[n]) == AIF_MMU_ADMIT)
					n++;
			}
			uint16_t ports[2] = { in, (uint16_t)((rng >> 8) % 17) };
			for (unsigned j = 0; j < 2; j++) {
				if (!aif_mmu_port_calm(m, ports[j])) {
					busy++;
					aif_mmu_xoff_mask(m, ports[j]); /* as the switch does */
					continue;
				}
				calm++;
				memcpy(copy, m, sizeof(*m));
				assert_int_equal(aif_mmu_xoff_mask(copy, ports[j]), 0);
				assert_memory_equal(copy, m, sizeof(*m));
			}
		}
		free(copy);
		free(m);
	}
	assert_true(calm > 1000 && busy > 1000);
	/* by hand: a port told XOFF and drained (its check not run yet), a
	 * lossless PG in headroom, or in shared; a lossy PG counts for nothing */
	a1_params(&p, true);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	struct aif_mmu *m = mmu_new(&c);
	assert_true(aif_mmu_port_calm(m, 0));
	m->port[0].xoff_mask = 1u << PG3;
	assert_false(aif_mmu_port_calm(m, 0));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0); /* XON: a change */
	assert_int_equal(m->pg_ctr[0][PG3].xon_events, 1);
	assert_true(aif_mmu_port_calm(m, 0));
	m->port[0].pg[PG3].headroom_bytes = 100;
	assert_false(aif_mmu_port_calm(m, 0));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	m->port[0].pg[PG3].headroom_bytes = 0;
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	m->port[0].pg[PG3].shared_bytes = 100;
	assert_false(aif_mmu_port_calm(m, 0));
	m->port[0].pg[PG3].shared_bytes = 0;
	m->port[0].pg[0].shared_bytes = 100;
	assert_true(aif_mmu_port_calm(m, 0));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	free(m);
	/* ConWeave's test differs: never calm */
	conweave_params(&p, 4);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);
	assert_false(aif_mmu_port_calm(m, 0));
	free(m);
}

/* ---- headroom ---- */

static void
test_headroom_derivation(void **state)
{
	/* the worst case: F * (mtu + 42) + 84 + 480 + ceil(2 * R * D / 8e9),
	 * F = 3 (HPCC, BCM) or 2 (CONWEAVE) */
	static const struct {
		enum aif_mmu_model model;
		uint64_t speed_bps, delay_ns;
		uint32_t mtu, want;
	} w[] = {
		{ AIF_MMU_HPCC, 100 * GBPS / 1000, 1000, 1500, 4626 + 564 + 25 }, /* 0.1 Gb/s: 5,215 */
		{ AIF_MMU_HPCC, GBPS, 1000, 1500, 4626 + 564 + 250 },            /* 5,440 */
		{ AIF_MMU_HPCC, 100 * GBPS, 1000, 1500, 4626 + 564 + 25000 },    /* 30,190 */
		{ AIF_MMU_HPCC, 100 * GBPS, 1000, 9000, 27126 + 564 + 25000 },   /* 52,690 */
		{ AIF_MMU_HPCC, 400 * GBPS, 1000, 9000, 27126 + 564 + 100000 },  /* 127,690 */
		{ AIF_MMU_HPCC, 10 * GBPS, 1, 1500, 4626 + 564 + 3 },            /* 5 B of cable, up */
		{ AIF_MMU_HPCC, 100 * GBPS, 0, 0, 126 + 564 },                   /* no MTU, no cable */
		{ AIF_MMU_HPCC, 800 * GBPS, 100000000000ull, 1500, UINT32_MAX }, /* saturates */
		/* the crossing frame stays in the shared pool: two frames */
		{ AIF_MMU_CONWEAVE, 100 * GBPS, 1000, 1500, 3084 + 564 + 25000 }, /* 28,648 */
		{ AIF_MMU_CONWEAVE, GBPS, 1000, 1500, 3084 + 564 + 250 },         /* 3,898 */
	};
	static const struct {
		enum aif_mmu_model model;
		uint64_t speed_bps, delay_ns;
		uint32_t mtu, want;
	} t[] = {
		{ AIF_MMU_HPCC, 100 * GBPS, 1000, 1500, 37500 },  /* A1: 3 BDP over 30,190 */
		{ AIF_MMU_HPCC, 100 * GBPS, 1000, 9000, 52690 },  /* the worst case over 3 BDP */
		{ AIF_MMU_HPCC, 400 * GBPS, 1000, 1500, 150000 },
		{ AIF_MMU_HPCC, 25 * GBPS, 1000, 1500, 11440 },   /* 3 BDP 9,375 */
		{ AIF_MMU_HPCC, 40 * GBPS, 1500, 1500, 22500 },   /* worst 20,190 */
		{ AIF_MMU_HPCC, 10 * GBPS, 1, 1500, 5193 },       /* 3 BDP 3 */
		{ AIF_MMU_HPCC, 100 * GBPS / 1000, 1000, 1500, 5215 }, /* 3 BDP 36 */
		{ AIF_MMU_HPCC, GBPS, 1000, 1500, 5440 },         /* 3 BDP 375 */
		{ AIF_MMU_HPCC, 100 * GBPS, 0, 1500, 5190 },
		{ AIF_MMU_HPCC, 0, 1000, 1500, 0 },               /* speed unknown */
		{ AIF_MMU_BROADCOM, 100 * GBPS, 1000, 1500, 30190 }, /* 2 BDP + 2 MTU 28,000 */
		{ AIF_MMU_BROADCOM, 400 * GBPS, 1000, 1048, 103834 }, /* 102,096 */
		/* 2 BDP + 2 MTU (1,002,096) never reaches the worst case */
		{ AIF_MMU_BROADCOM, 400 * GBPS, 10000, 1048, 1003834 },
		{ AIF_MMU_BROADCOM, 100 * GBPS, 0, 1500, 5190 },
		{ AIF_MMU_HPCC, 800 * GBPS, 1000000000ull, 1500, UINT32_MAX }, /* saturates */
	};
	for (unsigned i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		uint32_t got = aif_mmu_headroom_min_bytes(w[i].model, w[i].speed_bps, w[i].delay_ns,
							  w[i].mtu);
		if (got != w[i].want)
			printf("worst case %u: got %u want %u\n", i, got, w[i].want);
		assert_int_equal(got, w[i].want);
	}
	(void)state;
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t got = aif_mmu_headroom_bytes(t[i].model, t[i].speed_bps,
						      t[i].delay_ns, t[i].mtu);
		if (got != t[i].want)
			printf("case %u: got %u want %u\n", i, got, t[i].want);
		assert_int_equal(got, t[i].want);
	}
}

/* ---- config ---- */

static void
test_config_errors(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	const char *names[AIF_MMU_ERR_MAX] = { 0 };

	(void)state;
	a1_params(&p, true);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.total_headroom_bytes, 17 * 37500);
	assert_int_equal(c.total_reserve_bytes, 17 * 4096);
	assert_int_equal(c.shared_limit_bytes, 32847300);
	assert_int_equal(c.headroom_bytes[16], 37500);

#define BAD(mutation, err)                                                     \
	do {                                                                   \
		a1_params(&p, true);                                           \
		mutation;                                                      \
		assert_int_equal(aif_mmu_config_init(&c, &p), -(err));         \
		names[err] = aif_mmu_err_name(-(err));                         \
	} while (0)

	BAD(p.model = AIF_MMU_MODEL_MAX, AIF_MMU_ERR_MODEL);
	BAD(p.n_ports = 0, AIF_MMU_ERR_N_PORTS);
	BAD(p.n_ports = AIF_MMU_MAX_PORTS + 1, AIF_MMU_ERR_N_PORTS);
	BAD(p.buffer_bytes = 0, AIF_MMU_ERR_BUFFER);
	BAD((p.model = AIF_MMU_BROADCOM, p.mtu_bytes = 0), AIF_MMU_ERR_MTU);
	BAD(p.reserve_bytes = 2 * 1024 * 1024, AIF_MMU_ERR_RESERVE);
	BAD(p.th_mode = AIF_MMU_TH_MODE_MAX, AIF_MMU_ERR_TH_MODE);
	BAD(p.dynamic_th = 4, AIF_MMU_ERR_DYNAMIC_TH);
	BAD(p.dynamic_th = -17, AIF_MMU_ERR_DYNAMIC_TH);
	BAD(p.th_mode = AIF_MMU_TH_STATIC, AIF_MMU_ERR_STATIC_TH);
	BAD(p.resume_offset_bytes = 32847300, AIF_MMU_ERR_RESUME_OFFSET);
	BAD(p.egress_mode = AIF_MMU_EGRESS_MODE_MAX, AIF_MMU_ERR_EGRESS_MODE);
	BAD(p.egress_dynamic_th = 5, AIF_MMU_ERR_EGRESS_DYNAMIC_TH);
	BAD(p.egress_mode = AIF_MMU_EGRESS_STATIC, AIF_MMU_ERR_EGRESS_STATIC_TH);
	BAD(p.port[5].speed_bps = 0, AIF_MMU_ERR_HEADROOM);
	BAD(p.port[5].headroom_bytes = 2000000000u, AIF_MMU_ERR_POOL);
	/* below the worst case of a lossless 100G port with 1 us of cable */
	BAD(p.port[6].headroom_bytes = 30189, AIF_MMU_ERR_HEADROOM_LOW);
	BAD((p.port[6].mtu_bytes = 9000, p.port[6].headroom_bytes = 52689),
	    AIF_MMU_ERR_HEADROOM_LOW);
	/* CONWEAVE, jumbo ports: 43,648 B of worst case against 27,096 set
	 * aside, 16,552 B a port, over the 8,384 B reserve a port */
	BAD((conweave_params(&p, 17), p.port[0].mtu_bytes = 9000, p.mtu_bytes = 1048,
	     jumbo_all(&p)), AIF_MMU_ERR_HEADROOM_SLACK);
#undef BAD

	/* A lossy port needs no headroom; an explicit one wins over the
	 * derived, down to the worst case (30,190 here); below it is fine where
	 * the port is lossy or its speed unknown. */
	a1_params(&p, true);
	p.port[5].speed_bps = 0;
	p.port[5].pfc_enable = 0;
	p.port[6].headroom_bytes = 30190;
	p.port[7].headroom_bytes = 1234;
	p.port[7].pfc_enable = 0;
	p.port[8].headroom_bytes = 1234;
	p.port[8].speed_bps = 0;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.headroom_bytes[5], 0);
	assert_int_equal(c.headroom_bytes[6], 30190);
	assert_int_equal(c.headroom_bytes[7], 1234);
	assert_int_equal(c.headroom_bytes[8], 1234);
	/* the port's own MTU, not the switch's */
	a1_params(&p, true);
	p.port[6].mtu_bytes = 9000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.headroom_bytes[6], 52690);
	assert_int_equal(c.headroom_bytes[7], 37500);

	/* Distinct names for distinct errors. */
	for (unsigned i = 1; i < AIF_MMU_ERR_MAX; i++) {
		assert_non_null(names[i]);
		assert_string_not_equal(names[i], "unknown");
		for (unsigned j = 1; j < i; j++)
			assert_string_not_equal(names[i], names[j]);
	}
	assert_string_equal(aif_mmu_err_name(0), "ok");
	assert_string_equal(aif_mmu_err_name(-AIF_MMU_ERR_MAX), "unknown");
	assert_string_equal(aif_mmu_verdict_name(AIF_MMU_ADMIT), "admit");
	assert_string_equal(aif_mmu_verdict_name(AIF_MMU_DROP_HEADROOM_OVERFLOW),
			    "headroom_overflow");
	assert_string_equal(aif_mmu_verdict_name(AIF_MMU_VERDICT_MAX), "unknown");
}

/* ---- thresholds ---- */

static void
test_threshold_arithmetic(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge ch[64];
	struct aif_mmu *m;

	(void)state;
	a1_params(&p, true);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);

	/*
	 * Empty pool: (33,554,432 - 17*37,500 - 17*4,096 - 0) >> 3
	 *           = (33,554,432 - 637,500 - 69,632) >> 3 = 32,847,300 >> 3
	 *           = 4,105,912 (the .5 is dropped).
	 */
	assert_int_equal(aif_mmu_threshold_bytes(m), 4105912);

	/* 4 KB of reserve leaves the threshold alone; shared bytes lower it by 1/8. */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(aif_mmu_admit(m, 0, PG3, 16, Q3, 1024, true, &ch[i]),
				 AIF_MMU_ADMIT);
	assert_int_equal(m->port[0].pg[PG3].reserve_bytes, 4096);
	assert_int_equal(aif_mmu_threshold_bytes(m), 4105912);
	for (unsigned i = 4; i < 4 + 40; i++)
		assert_int_equal(aif_mmu_admit(m, 1 + i % 15, PG3, 16, Q3, 1000, true, &ch[i]),
				 AIF_MMU_ADMIT);
	/* 40 packets: 15 ports' first 4096 B go to reserve... count it out. */
	{
		uint64_t shared = 0;

		for (unsigned i = 1; i < 16; i++)
			shared += m->port[i].pg[PG3].shared_bytes;
		assert_int_equal(shared, m->shared_used_bytes);
		/* 15 ports got 40 packets: ports 5..15 two (2000 B, all reserve),
		 * ports 1..4 three (3000 B, reserve): nothing shared yet. */
		assert_int_equal(shared, 0);
	}
	/* Now push one PG past its reserve: 10 more packets on port 0. */
	for (unsigned i = 44; i < 54; i++)
		assert_int_equal(aif_mmu_admit(m, 0, PG3, 16, Q3, 1000, true, &ch[i]),
				 AIF_MMU_ADMIT);
	assert_int_equal(m->shared_used_bytes, 10000);
	assert_int_equal(aif_mmu_threshold_bytes(m), (32847300 - 10000) >> 3);
	assert_int_equal(aif_mmu_threshold_bytes(m), 4104662);

	/* alpha = 1 and 2 over the same occupancy (config swap, state kept). */
	{
		struct aif_mmu_config c1 = c, c2 = c, cs = c;

		c1.dynamic_th = 0;
		c2.dynamic_th = 1;
		cs.th_mode = AIF_MMU_TH_STATIC;
		cs.static_th_bytes = 123456;
		m->cfg = &c1;
		assert_int_equal(aif_mmu_threshold_bytes(m), 32837300);
		m->cfg = &c2;
		assert_int_equal(aif_mmu_threshold_bytes(m), 65674600);
		m->cfg = &cs;
		assert_int_equal(aif_mmu_threshold_bytes(m), 123456);
		m->cfg = &c;
	}

	for (unsigned i = 0; i < 54; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	assert_int_equal(aif_mmu_threshold_bytes(m), 4105912);
	free(m);
}

/* ---- charging and release ---- */

static void
test_charge_release(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge ch[20];
	struct aif_mmu *m;
	unsigned i;

	(void)state;
	aif_mmu_params_default(&p, AIF_MMU_HPCC, 4);
	for (i = 0; i < 4; i++) {
		p.port[i].pfc_enable = 1u << PG3;
		p.port[i].headroom_bytes = 5000;
	}
	p.th_mode = AIF_MMU_TH_STATIC;
	p.static_th_bytes = 10000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);

	/*
	 * 1000-byte lossless packets on (0, PG3) -> (1, Q3):
	 *   1-4:   reserve (4000);
	 *   5:     96 reserve + 904 shared;
	 *   6-14:  shared, 9904 after the 14th;
	 *   15-19: 9904 + 1000 > 10000: headroom, 5000 after the 19th;
	 *   20:    5000 + 1000 > 5000: headroom overflow, dropped.
	 */
	for (i = 0; i < 19; i++) {
		uint32_t want_shared = i < 4 ? 0 : i == 4 ? 904 : i < 14 ? 1000 : 0;
		uint32_t want_hdrm = i >= 14 ? 1000 : 0;
		uint32_t shared0 = m->port[0].pg[PG3].shared_bytes;
		uint32_t hdrm0 = m->port[0].pg[PG3].headroom_bytes;

		assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[i]),
				 AIF_MMU_ADMIT);
		assert_int_equal(ch[i].bytes, 1000);
		assert_int_equal(m->port[0].pg[PG3].shared_bytes - shared0, want_shared);
		assert_int_equal(m->port[0].pg[PG3].headroom_bytes - hdrm0, want_hdrm);
		assert_int_equal(ch[i].in_port, 0);
		assert_int_equal(ch[i].out_port, 1);
		assert_int_equal(ch[i].pg, PG3);
		assert_int_equal(ch[i].queue, Q3);
		assert_true(ch[i].lossless);
		if (i == 13)
			assert_int_equal(aif_mmu_xoff_mask(m, 0), 0); /* 9904 < 10000 */
	}
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[19]),
			 AIF_MMU_DROP_HEADROOM_OVERFLOW);
	assert_int_equal(m->port[0].pg[PG3].reserve_bytes, 4096);
	assert_int_equal(m->port[0].pg[PG3].shared_bytes, 9904);
	assert_int_equal(m->port[0].pg[PG3].headroom_bytes, 5000);
	assert_int_equal(m->used_bytes, 19000);
	assert_int_equal(m->shared_used_bytes, 9904);
	assert_int_equal(m->headroom_used_bytes, 5000);
	assert_int_equal(aif_mmu_queue_bytes(m, 1, Q3), 19000);
	assert_int_equal(m->pg_ctr[0][PG3].packets[AIF_MMU_ADMIT], 19);
	assert_int_equal(m->pg_ctr[0][PG3].bytes[AIF_MMU_ADMIT], 19000);
	assert_int_equal(m->pg_ctr[0][PG3].packets[AIF_MMU_DROP_HEADROOM_OVERFLOW], 1);
	assert_int_equal(m->queue_ctr[1][Q3].drop_packets, 1);
	assert_int_equal(m->queue_ctr[1][Q3].drop_bytes, 1000);
	assert_int_equal(m->wm.pg_headroom_bytes[0][PG3], 5000);
	assert_int_equal(m->wm.pg_shared_bytes[0][PG3], 9904);
	assert_int_equal(m->wm.queue_bytes[1][Q3], 19000);
	assert_int_equal(m->wm.pool_used_bytes, 19000);

	/* FIFO release takes from headroom first, then shared, then reserve. */
	for (i = 0; i < 5; i++) {
		aif_mmu_release(m, &ch[i]);
		assert_int_equal(m->port[0].pg[PG3].headroom_bytes, 4000 - 1000 * i);
		assert_int_equal(m->port[0].pg[PG3].shared_bytes, 9904);
		assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	}
	aif_mmu_release(m, &ch[5]); /* shared 8904 */
	aif_mmu_release(m, &ch[6]); /* shared 7904: +3072 = 10976 > 10000 */
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	aif_mmu_release(m, &ch[7]); /* shared 6904: +3072 = 9976 <= 10000 */
	assert_int_equal(m->port[0].pg[PG3].shared_bytes, 6904);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	for (i = 8; i < 19; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	assert_int_equal(m->pg_ctr[0][PG3].xoff_events, 1);
	assert_int_equal(m->pg_ctr[0][PG3].xon_events, 1);
	/* Watermarks stay until cleared. */
	assert_int_equal(m->wm.pg_headroom_bytes[0][PG3], 5000);
	aif_mmu_watermarks_clear(m);
	assert_int_equal(m->wm.pg_headroom_bytes[0][PG3], 0);
	assert_int_equal(m->wm.pool_used_bytes, 0);
	free(m);
}

/* ---- lossy drops ---- */

/*
 * A class outside the buffer (aif_mmu_bypass, ns-3's ACK queue): nothing
 * but the port's queued bytes sees it, so a lossy PG at its threshold and a
 * lossless PG at XOFF stay where they are while any amount of it is held,
 * and its release gives back only those bytes.
 */
static void
test_bypass(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge ch[64], data;
	struct aif_mmu *m;

	(void)state;
	conweave_params(&p, 4);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);
	uint32_t th = aif_mmu_threshold_bytes(m);
	for (unsigned i = 0; i < 64; i++) {
		aif_mmu_bypass(m, 2, 6, 1, 6, 60, &ch[i]);
		assert_int_equal(ch[i].bypass, 1);
		assert_int_equal(ch[i].bytes, 60);
		assert_int_equal(ch[i].out_port, 1);
	}
	assert_int_equal(m->port_bytes[1], 64 * 60); /* what DRILL reads */
	assert_empty(m);
	assert_int_equal(m->egress_shared_bytes, 0);
	assert_int_equal(aif_mmu_threshold_bytes(m), th);
	assert_int_equal(m->pg_ctr[2][6].packets[AIF_MMU_ADMIT], 0);
	assert_int_equal(m->wm.queue_bytes[1][6], 0);
	assert_int_equal(aif_mmu_xoff_mask(m, 2), 0);
	/* data beside it is charged as ever, and both release apart */
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1048, true, &data), AIF_MMU_ADMIT);
	assert_int_equal(data.bypass, 0);
	assert_int_equal(m->used_bytes, 1048);
	assert_int_equal(m->port_bytes[1], 64 * 60 + 1048);
	for (unsigned i = 0; i < 64; i++)
		aif_mmu_release(m, &ch[i]);
	assert_int_equal(m->used_bytes, 1048);
	assert_int_equal(m->port_bytes[1], 1048);
	aif_mmu_release(m, &data);
	assert_empty(m);
	assert_int_equal(m->port_bytes[1], 0);
	free(m);
}

static void
test_lossy_drops(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge ch[64], x;
	struct aif_mmu *m;
	unsigned i, n;

	(void)state;
	aif_mmu_params_default(&p, AIF_MMU_HPCC, 4);
	for (i = 0; i < 4; i++) {
		p.port[i].pfc_enable = 1u << PG3;
		p.port[i].headroom_bytes = 5000;
	}
	p.reserve_bytes = 0;
	p.th_mode = AIF_MMU_TH_STATIC;
	p.static_th_bytes = 10000;
	p.egress_mode = AIF_MMU_EGRESS_STATIC;
	p.egress_static_th_bytes = 15000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);

	/* Lossy PG 0 on port 0: 10 packets fit, the 11th is over the threshold. */
	for (n = 0; n < 10; n++)
		assert_int_equal(aif_mmu_admit(m, 0, 0, 1, 0, 1000, false, &ch[n]),
				 AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_admit(m, 0, 0, 1, 0, 1000, false, &x),
			 AIF_MMU_DROP_SHARED_LIMIT);
	assert_int_equal(m->port[0].pg[0].headroom_bytes, 0);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0); /* lossy: never paused */
	assert_true(aif_mmu_should_pause(m, 0, 0));   /* though the condition holds */

	/* Lossy PG 0 on port 2 into the same queue: egress limit 15000. */
	for (i = 0; i < 5; i++, n++)
		assert_int_equal(aif_mmu_admit(m, 2, 0, 1, 0, 1000, false, &ch[n]),
				 AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_queue_bytes(m, 1, 0), 15000);
	assert_int_equal(aif_mmu_admit(m, 2, 0, 1, 0, 1000, false, &x),
			 AIF_MMU_DROP_EGRESS_LIMIT);
	/* A lossless packet to that queue ignores the egress limit. */
	assert_int_equal(aif_mmu_admit(m, 2, PG3, 1, 0, 1000, true, &ch[n++]),
			 AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_queue_bytes(m, 1, 0), 16000);

	assert_int_equal(m->pg_ctr[0][0].packets[AIF_MMU_DROP_SHARED_LIMIT], 1);
	assert_int_equal(m->pg_ctr[2][0].packets[AIF_MMU_DROP_EGRESS_LIMIT], 1);
	assert_int_equal(m->pg_ctr[2][0].bytes[AIF_MMU_DROP_EGRESS_LIMIT], 1000);
	assert_int_equal(m->queue_ctr[1][0].drop_packets, 2);
	assert_int_equal(m->pg_ctr[2][PG3].packets[AIF_MMU_ADMIT], 1);
	for (i = 0; i < n; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	free(m);

	/*
	 * Pool full: a static threshold above the pool.  2 ports, 100,000 B,
	 * headroom 40,000 each, no reserve: shared pool 20,000.
	 *   lossy: 20 packets of 1000 fill the pool; the 21st is under its
	 *          threshold (50,000) but there is no pool left: pool_full.
	 *   lossless, threshold 1000, 8 PGs sharing one port's headroom
	 *          reservation (40,000 set aside, each PG may use 40,000):
	 *          the buffer runs out before the headroom does.
	 */
	aif_mmu_params_default(&p, AIF_MMU_HPCC, 2);
	p.buffer_bytes = 100000;
	p.reserve_bytes = 0;
	p.port[0].headroom_bytes = p.port[1].headroom_bytes = 40000;
	p.port[0].pfc_enable = 0xff;
	p.th_mode = AIF_MMU_TH_STATIC;
	p.static_th_bytes = 50000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.shared_limit_bytes, 20000);
	m = mmu_new(&c);
	for (n = 0; n < 20; n++)
		assert_int_equal(aif_mmu_admit(m, 1, 0, 0, 0, 1000, false, &ch[n]),
				 AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_admit(m, 1, 0, 0, 0, 1000, false, &x),
			 AIF_MMU_DROP_POOL_FULL);
	for (i = 0; i < n; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	free(m);

	p.static_th_bytes = 1000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);
	{
		static struct aif_mmu_charge big[200];
		enum aif_mmu_verdict v = AIF_MMU_ADMIT;

		/* Round robin over the 8 PGs: 1000 shared each, then headroom. */
		for (n = 0; n < 200; n++) {
			v = aif_mmu_admit(m, 0, n % 8, 1, 0, 1000, true, &big[n]);
			if (v != AIF_MMU_ADMIT)
				break;
		}
		assert_int_equal(v, AIF_MMU_DROP_POOL_FULL);
		assert_int_equal(n, 100); /* 100 * 1000 = the whole buffer */
		assert_int_equal(m->used_bytes, 100000);
		assert_int_equal(m->shared_used_bytes, 8000);
		assert_int_equal(m->headroom_used_bytes, 92000);
		assert_int_equal(aif_mmu_xoff_mask(m, 0), 0xff);
		for (i = 0; i < n; i++)
			aif_mmu_release(m, &big[i]);
		assert_empty(m);
		assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	}
	free(m);

	/*
	 * Dynamic egress limit, alpha_e = 1/2: limit = (pool - used) / 2 with
	 * pool = buffer - total_reserve = 100,000.  One lossy queue alone:
	 * q + 1000 > (100,000 - q) / 2  <=>  q > 32,666: the 34th packet
	 * (q = 33,000) is refused.
	 */
	aif_mmu_params_default(&p, AIF_MMU_HPCC, 2);
	p.buffer_bytes = 100000;
	p.reserve_bytes = 0;
	p.port[0].pfc_enable = p.port[1].pfc_enable = 0;
	p.th_mode = AIF_MMU_TH_STATIC;
	p.static_th_bytes = 100000;
	p.egress_mode = AIF_MMU_EGRESS_DYNAMIC;
	p.egress_dynamic_th = -1;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);
	for (n = 0; n < 64; n++)
		if (aif_mmu_admit(m, 0, 0, 1, 0, 1000, false, &ch[n]) != AIF_MMU_ADMIT)
			break;
	assert_int_equal(n, 33);
	assert_int_equal(m->pg_ctr[0][0].packets[AIF_MMU_DROP_EGRESS_LIMIT], 1);
	for (i = 0; i < n; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	free(m);
}

/* ---- hysteresis ---- */

static void
test_xoff_hysteresis(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge a, b, d, e;
	struct aif_mmu *m;

	(void)state;
	aif_mmu_params_default(&p, AIF_MMU_HPCC, 2);
	p.port[0].pfc_enable = (1u << PG3) | (1u << 4);
	p.port[0].headroom_bytes = p.port[1].headroom_bytes = 20000;
	p.port[1].pfc_enable = 0;
	p.reserve_bytes = 0;
	p.th_mode = AIF_MMU_TH_STATIC;
	p.static_th_bytes = 10000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);

	/* 3071 + 1 + 6928 = 10000 shared >= 10000: XOFF. */
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 3071, true, &a), AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1, true, &b), AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 6928, true, &d), AIF_MMU_ADMIT);
	assert_int_equal(m->port[0].pg[PG3].headroom_bytes, 0);
	assert_true(aif_mmu_should_pause(m, 0, PG3));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3); /* no double count */
	assert_int_equal(m->pg_ctr[0][PG3].xoff_events, 1);

	/* 6929: below the threshold but 6929 + 3072 = 10001 > 10000: stays XOFF. */
	aif_mmu_release(m, &a);
	assert_false(aif_mmu_should_pause(m, 0, PG3));
	assert_false(aif_mmu_should_resume(m, 0, PG3));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	/* 6928 + 3072 = 10000 <= 10000: XON, exactly at threshold - 3072. */
	aif_mmu_release(m, &b);
	assert_true(aif_mmu_should_resume(m, 0, PG3));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	assert_int_equal(m->pg_ctr[0][PG3].xon_events, 1);

	/* PG 4 alongside: its own state.  Port 1 has no lossless PG. */
	assert_int_equal(aif_mmu_admit(m, 0, 4, 1, 4, 10000, true, &e), AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << 4);
	aif_mmu_release(m, &e);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	aif_mmu_release(m, &d);
	assert_empty(m);
	free(m);

	/* Threshold below the offset: only an empty PG resumes (shared == 0). */
	p.static_th_bytes = 2000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	m = mmu_new(&c);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &a), AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &b), AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3);
	aif_mmu_release(m, &a);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 1u << PG3); /* 1000 + 3072 > 2000 */
	aif_mmu_release(m, &b);
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	free(m);
}

/* ---- Broadcom variant ---- */

static void
test_broadcom(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	static struct aif_mmu_charge ch[2000];
	struct aif_mmu *m;
	unsigned n, i;
	bool paused = false;

	(void)state;
	aif_mmu_params_default(&p, AIF_MMU_BROADCOM, 4);
	for (i = 0; i < 4; i++) {
		p.port[i].speed_bps = 100 * GBPS;
		p.port[i].cable_delay_ns = 1000;
		p.port[i].pfc_enable = 1u << PG3;
	}
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	/* 2 * 12,500 + 2 * 1500 = 28,000 per port, under the worst case
	 * 3 * 1542 + 84 + 480 + 25,000 = 30,190; 4 * (8*1500 + 1500) reserve. */
	assert_int_equal(c.headroom_bytes[0], 30190);
	assert_int_equal(c.total_headroom_bytes, 120760);
	assert_int_equal(c.total_reserve_bytes, 54000);
	assert_int_equal(c.shared_limit_bytes, 9437184 - 120760 - 54000);
	m = mmu_new(&c);
	/* alpha 1/16: 9,262,424 >> 4 = 578,901. */
	assert_int_equal(aif_mmu_threshold_bytes(m), 578901);

	/* pg_min 1500, then port_min 1500, then shared. */
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[0]), AIF_MMU_ADMIT);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[1]), AIF_MMU_ADMIT);
	assert_int_equal(m->port[0].pg[PG3].reserve_bytes, 1500);
	assert_int_equal(m->port[0].pg[PG3].port_reserve_bytes, 500);
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[2]), AIF_MMU_ADMIT);
	assert_int_equal(m->port[0].pg[PG3].shared_bytes, 0); /* port_min took it */
	assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[3]), AIF_MMU_ADMIT);
	assert_int_equal(m->port[0].port_reserve_bytes, 1500);
	assert_int_equal(m->port[0].pg[PG3].shared_bytes, 1000);
	/* Another PG of the port: its own pg_min, the port_min is used up. */
	assert_int_equal(aif_mmu_admit(m, 0, 1, 1, 1, 2000, false, &ch[4]), AIF_MMU_ADMIT);
	assert_int_equal(m->port[0].pg[1].reserve_bytes, 1500);
	assert_int_equal(m->port[0].pg[1].port_reserve_bytes, 0);
	assert_int_equal(m->port[0].pg[1].shared_bytes, 500);
	for (i = 4; i-- > 0;)
		aif_mmu_release(m, &ch[i]); /* out of order is fine too */
	aif_mmu_release(m, &ch[4]);
	assert_empty(m);

	/*
	 * Port 0 PG 3 fills alone; at each step the XOFF/XON conditions match
	 * the Broadcom rules computed here from the public state:
	 *   XOFF: hdrm > 0 or shared > (L - S) >> 4
	 *   XON:  hdrm == 0 and (shared == 0 or shared < (L - S - 16) >> 4)
	 */
	for (n = 0; n < 1000; n++) {
		const struct aif_mmu_pg *g = aif_mmu_pg_get(m, 0, PG3);
		uint64_t free_b = c.shared_limit_bytes - m->shared_used_bytes;
		bool xoff = g->headroom_bytes > 0 || g->shared_bytes > (free_b >> 4);
		bool xon = g->headroom_bytes == 0 &&
			   (g->shared_bytes == 0 || g->shared_bytes < ((free_b - 16) >> 4));

		assert_int_equal(aif_mmu_should_pause(m, 0, PG3), xoff);
		assert_int_equal(aif_mmu_should_resume(m, 0, PG3), xon);
		if (aif_mmu_xoff_mask(m, 0)) {
			paused = true;
			break;
		}
		assert_int_equal(aif_mmu_admit(m, 0, PG3, 1, Q3, 1000, true, &ch[n]),
				 AIF_MMU_ADMIT);
	}
	assert_true(paused);
	/*
	 * Alone, a packet goes to shared while s + 1000 <= (L - s) >> 4 (s
	 * before the packet): 17 s + 16,000 <= 9,262,424, s <= 543,907.  So
	 * 3000 B of guarantees (3 packets), 544 packets of shared (544,000),
	 * then the next packet goes to headroom and the PG turns XOFF.
	 */
	assert_int_equal(m->port[0].pg[PG3].shared_bytes, 544000);
	assert_int_equal(m->port[0].pg[PG3].headroom_bytes, 1000);
	assert_int_equal(n, 3 + 544 + 1);
	/*
	 * Lossy traffic from port 1 PG 0 to the same egress port: the egress
	 * limit (alpha_e 1) is far; the ingress 1/16 threshold refuses it once
	 * s1 + 1000 > (L - 544,000 - s1) >> 4 (S = 544,000 + s1 before the
	 * packet): admitted while 17 s1 + 16,000 <= 8,718,424, s1 <= 511,907,
	 * so 3 packets of guarantees + 512 shared are admitted, the next dropped.
	 */
	{
		unsigned k = 0;

		while (n + k < 2000 &&
		       aif_mmu_admit(m, 1, 0, 1, 0, 1000, false, &ch[n + k]) == AIF_MMU_ADMIT)
			k++;
		assert_int_equal(k, 3 + 512);
		assert_int_equal(m->pg_ctr[1][0].packets[AIF_MMU_DROP_SHARED_LIMIT], 1);
		assert_int_equal(aif_mmu_xoff_mask(m, 1), 0); /* lossy */
		for (i = 0; i < k; i++)
			aif_mmu_release(m, &ch[n + i]);
	}
	for (i = 0; i < n; i++) {
		aif_mmu_release(m, &ch[i]);
		if (!(aif_mmu_xoff_mask(m, 0) & (1u << PG3)))
			break;
	}
	/* XON: headroom gone (first release) and shared < (L - S - 16) >> 4. */
	{
		const struct aif_mmu_pg *g = aif_mmu_pg_get(m, 0, PG3);
		uint64_t free_b = c.shared_limit_bytes - m->shared_used_bytes;

		assert_int_equal(g->headroom_bytes, 0);
		assert_true(g->shared_bytes < ((free_b - 16) >> 4));
		assert_true(g->shared_bytes + 1000 >= ((free_b - 1000 - 16) >> 4));
	}
	for (i++; i < n; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	free(m);
}

/* ---- CONWEAVE: ConWeave's ns-3 switch-mmu.cc ---- */

#define CW_PKT 1036 /* ns-3's data packet: 1000 B of payload + 36 */

/*
 * The pool as ns-3 computes it: a leaf (24 ports) and a spine (8 ports) of
 * the reference fabric, and A1's 17-port switch; headroom set aside 2 BDP
 * + 2 MTU (27,096 B), port 0's 14,596 (the slot-0 quirk); the drop limit of
 * a lossless port never below the worst case (28,648 B for IP MTU 1500).
 */
static void
test_conweave_pool(void **state)
{
	static const struct {
		uint16_t n;
		uint64_t hdrm, rsrv, sp, op;
		uint32_t thr;
	} t[] = {
		{ 24, 637804, 201216, 8598164, 9235968, 537385 },  /* leaf */
		{ 8, 204268, 67072, 9165844, 9370112, 572865 },    /* spine */
		{ 17, 448132, 142528, 8846524, 9294656, 552907 },  /* A1 */
	};
	struct aif_mmu_params p;
	struct aif_mmu_config c;

	(void)state;
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		conweave_params(&p, t[i].n);
		assert_int_equal(p.buffer_bytes, 9437184);
		assert_int_equal(aif_mmu_config_init(&c, &p), 0);
		assert_int_equal(c.total_headroom_bytes, t[i].hdrm);
		assert_int_equal(c.total_reserve_bytes, t[i].rsrv);
		assert_int_equal(c.shared_limit_bytes, t[i].sp);
		assert_int_equal(c.egress_pool_bytes, t[i].op);
		assert_int_equal(c.guarantee_bytes, 2096);
		assert_int_equal(c.queue_min_bytes, 1049);
		assert_int_equal(c.headroom_bytes[0], 28648);
		assert_int_equal(c.headroom_bytes[1], 28648);
		struct aif_mmu *m = mmu_new(&c);
		assert_int_equal(aif_mmu_threshold_bytes(m), t[i].thr);
		free(m);
	}
	/* without the quirk every port sets aside 27,096 */
	conweave_params(&p, 24);
	p.headroom_slot0_quirk = false;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.total_headroom_bytes, 24 * 27096);
	assert_int_equal(c.shared_limit_bytes, 8598164 - 12500);
	/* a given headroom is set aside as given (and checked) */
	conweave_params(&p, 24);
	p.port[3].headroom_bytes = 40000;
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.total_headroom_bytes, 637804 - 27096 + 40000);
	assert_int_equal(c.headroom_bytes[3], 40000);
	p.port[3].headroom_bytes = 27096; /* ns-3's, below the worst case */
	assert_int_equal(aif_mmu_config_init(&c, &p), -AIF_MMU_ERR_HEADROOM_LOW);
}

/*
 * One PG of an otherwise empty leaf fills with 1036-B packets: XOFF at the
 * first packet after which PG - 2,096 > (8,598,164 - used) / 16, i.e.
 * 17 * PG > 8,631,700, PG >= 507,748: packet 491 (508,676 B; 490 make
 * 507,640); no headroom is used (the pool is far from sp_limit).  XON when
 * PG - 2,096 < (8,598,164 - used - 16) / 16, i.e. PG <= 507,746: one
 * release later.  (The threshold on the empty leaf is 537,385.)
 */
static void
test_conweave_xoff_xon(void **state)
{
	static struct aif_mmu_charge ch[600];
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	unsigned n;

	(void)state;
	conweave_params(&p, 24);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	struct aif_mmu *m = mmu_new(&c);
	for (n = 1; n <= 600; n++) {
		assert_int_equal(aif_mmu_admit(m, 0, PG3, 23, Q3, CW_PKT, true, &ch[n - 1]),
				 AIF_MMU_ADMIT);
		if (aif_mmu_xoff_mask(m, 0) != 0)
			break;
		assert_false(aif_mmu_should_pause(m, 0, PG3));
	}
	assert_int_equal(n, 491);
	const struct aif_mmu_pg *g = aif_mmu_pg_get(m, 0, PG3);
	assert_int_equal(g->headroom_bytes, 0);
	assert_int_equal(g->reserve_bytes + g->port_reserve_bytes + g->shared_bytes, 508676);
	assert_int_equal(m->used_bytes, 508676);
	assert_true(17ull * 508676 > 8631700 && 17ull * 507640 <= 8631700);
	assert_int_equal(m->pg_ctr[0][PG3].xoff_events, 1);
	/* XON: one release (PG 507,640 <= 507,746) */
	assert_false(aif_mmu_should_resume(m, 0, PG3));
	aif_mmu_release(m, &ch[0]);
	assert_true(aif_mmu_should_resume(m, 0, PG3));
	assert_int_equal(aif_mmu_xoff_mask(m, 0), 0);
	assert_int_equal(m->pg_ctr[0][PG3].xon_events, 1);
	for (unsigned i = 1; i < n; i++)
		aif_mmu_release(m, &ch[i]);
	assert_empty(m);
	free(m);
}

/*
 * Headroom is used only when the whole pool is over sp_limit, and then the
 * whole packet goes there; XOFF for every PG with headroom; the drop at the
 * port's headroom (28,648 B = 27 packets of 1036 B); the egress limit
 * holds lossless queues too: a single queue stops at
 * excess + packet > op_limit - excess, about half the buffer.
 */
static void
test_conweave_headroom_egress(void **state)
{
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	struct aif_mmu_charge ch;
	enum aif_mmu_verdict v;

	(void)state;
	conweave_params(&p, 24);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	struct aif_mmu *m = mmu_new(&c);
	/* ports 0..19 to queues of ports 20..23, round robin, until the pool is
	 * over sp_limit; no drop before, no headroom before */
	unsigned k = 0;
	while (m->used_bytes <= c.shared_limit_bytes) {
		assert_int_equal(m->headroom_used_bytes, 0);
		v = aif_mmu_admit(m, (uint16_t)(k % 20), PG3, (uint16_t)(20 + k % 4), (uint8_t)(k / 4 % 4 + 1),
				  CW_PKT, true, &ch);
		assert_int_equal(v, AIF_MMU_ADMIT);
		k++;
	}
	/* the packet that crossed went to headroom whole */
	uint16_t last = (uint16_t)((k - 1) % 20);
	assert_int_equal(aif_mmu_pg_get(m, last, PG3)->headroom_bytes, CW_PKT);
	assert_int_equal(m->headroom_used_bytes, CW_PKT);
	assert_true(aif_mmu_should_pause(m, last, PG3));
	/* port 21's PG 3 (none yet): its guarantees first, then headroom up to
	 * 28,648 B: 27 packets (27,972 B), the 28th drops */
	unsigned admitted = 0;
	while ((v = aif_mmu_admit(m, 21, PG3, 22, 5, CW_PKT, true, &ch)) == AIF_MMU_ADMIT)
		admitted++;
	assert_int_equal(v, AIF_MMU_DROP_HEADROOM_OVERFLOW);
	assert_int_equal(aif_mmu_pg_get(m, 21, PG3)->headroom_bytes, 27 * CW_PKT);
	assert_int_equal(admitted, 27);
	free(m);

	/* egress: one queue from 20 ports, 1036 B packets; excess e after n
	 * packets is n * 1036 - 1049; drop when e + 1036 > 9,235,968 - e */
	m = mmu_new(&c);
	unsigned n = 0;
	while ((v = aif_mmu_admit(m, (uint16_t)(n % 20), PG3, 23, Q3, CW_PKT, true, &ch)) ==
	       AIF_MMU_ADMIT)
		n++;
	assert_int_equal(v, AIF_MMU_DROP_EGRESS_LIMIT);
	uint64_t e = (uint64_t)n * CW_PKT - 1049;
	assert_true(2 * e + CW_PKT > 9235968);
	assert_true(2 * (e - CW_PKT) + CW_PKT <= 9235968);
	assert_int_equal(m->egress_shared_bytes, e);
	assert_int_equal(n, 4459); /* 4.62 MB in one queue */
	free(m);
}

/*
 * A1 on ConWeave's switch: 16 senders -> 1 receiver, 17 ports at 100G,
 * 1 us, 9 MiB, alpha 1/16 on PG - 2,096 against sp_limit - used (8,846,524
 * on this switch).  Per 80 ns (a 1036-B... here 1000-B packet at 100G)
 * every sender's packet arrives (port order) and the receiver sends one;
 * the first XOFF is the first admission after which, for its port,
 * 16 * (PG - 2,096) > 8,846,524 - used: the test's own sums find the
 * packet, the MMU must agree on it exactly.
 */
static void
test_conweave_a1_first_xoff(void **state)
{
	static struct aif_mmu_charge fifo[65536];
	struct aif_mmu_params p;
	struct aif_mmu_config c;
	uint64_t pg[16] = { 0 }, used = 0;
	unsigned head = 0, tail = 0, round;
	int want_port = -1, got_port = -1;
	uint64_t want_pg = 0, want_used = 0;

	(void)state;
	conweave_params(&p, 17);
	assert_int_equal(aif_mmu_config_init(&c, &p), 0);
	assert_int_equal(c.shared_limit_bytes, 8846524);
	struct aif_mmu *m = mmu_new(&c);
	for (round = 0; round < 4000 && got_port < 0; round++) {
		for (unsigned i = 0; i < 16 && got_port < 0; i++) {
			assert_int_equal(aif_mmu_admit(m, (uint16_t)i, PG3, 16, Q3, 1000, true,
						       &fifo[tail++ % 65536]),
					 AIF_MMU_ADMIT);
			pg[i] += 1000;
			used += 1000;
			/* the reference's rule, in the test's own sums */
			if (want_port < 0 && pg[i] > 2096 &&
			    16 * ((int64_t)pg[i] - 2096) > (int64_t)8846524 - (int64_t)used) {
				want_port = (int)i;
				want_pg = pg[i];
				want_used = used;
			}
			if (aif_mmu_xoff_mask(m, (uint16_t)i) != 0)
				got_port = (int)i;
		}
		if (got_port < 0) { /* the receiver sends one */
			const struct aif_mmu_charge *d = &fifo[head++ % 65536];
			pg[d->in_port] -= d->bytes;
			used -= d->bytes;
			aif_mmu_release(m, d);
		}
	}
	printf("# A1 on ConWeave's MMU: first XOFF port %d at PG %lu B, pool %lu B, "
	       "round %u (threshold then %u B)\n", got_port, (unsigned long)want_pg,
	       (unsigned long)want_used, round, aif_mmu_threshold_bytes(m));
	assert_int_equal(got_port, want_port);
	assert_int_equal(m->used_bytes, want_used);
	assert_int_equal(aif_mmu_pg_get(m, (uint16_t)got_port, PG3)->shared_bytes +
			 aif_mmu_pg_get(m, (uint16_t)got_port, PG3)->reserve_bytes +
			 aif_mmu_pg_get(m, (uint16_t)got_port, PG3)->port_reserve_bytes, want_pg);
	/* ~16 PGs of ~276 KB: about half the empty-switch threshold */
	assert_true(want_pg > 270000 && want_pg < 290000);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headroom_derivation),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_threshold_arithmetic),
		cmocka_unit_test(test_charge_release),
		cmocka_unit_test(test_bypass),
		cmocka_unit_test(test_lossy_drops),
		cmocka_unit_test(test_xoff_hysteresis),
		cmocka_unit_test(test_broadcom),
		cmocka_unit_test(test_conweave_pool),
		cmocka_unit_test(test_conweave_xoff_xon),
		cmocka_unit_test(test_conweave_headroom_egress),
		cmocka_unit_test(test_conweave_a1_first_xoff),
		cmocka_unit_test(test_port_calm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
