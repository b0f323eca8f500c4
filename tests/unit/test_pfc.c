/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/pfc.c: PFC (802.1Qbb) and PAUSE (802.3x).
 *
 * Wire format: the exact 60 bytes of built frames against hand-written
 * arrays; build -> parse round trips field by field; every parse error.
 * Time: quanta -> ns at 10G..400G against values worked out by hand.
 * Reception and generation: in virtual time (now_ns is an argument), with
 * exact deadlines (paused at deadline - 1, not at deadline), exact time
 * paused, and the frames the sender asks for.  Needs no EAL.
 * The same frames are dissected by tshark in tests/e2e/check_pfc_tshark.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pfc.h"

#define G(x) ((uint64_t)(x) * 1000000000ull)

/* port_mac: the sender of the frames built here; rx_mac: the MAC of the
 * port that receives them. */
static const struct aif_mac port_mac = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 } };
static const struct aif_mac rx_mac = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x10 } };

/* ---- Wire format ---- */

static void
test_build_exact_bytes(void **state)
{
	static const uint8_t want_pfc[AIF_PFC_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,	/* dst */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x03,	/* src */
		0x88, 0x08,				/* MAC control */
		0x01, 0x01,				/* opcode PFC */
		0x00, 0x18,				/* classes 3, 4 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* times 0..2 */
		0xff, 0xff,				/* time 3 */
		0x12, 0x34,				/* time 4 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* times 5..7 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* padding 34..59 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t want_pause[AIF_PFC_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x03,
		0x88, 0x08,
		0x00, 0x01,				/* opcode PAUSE */
		0xab, 0xcd,				/* time */
		[18 ... 59] = 0,
	};
	/* Time 7 passed for a disabled class: must not reach the wire. */
	const uint16_t q[8] = { [3] = 0xFFFF, [4] = 0x1234, [7] = 0x7777 };
	uint8_t buf[AIF_PFC_FRAME_LEN + 4];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x18, q), 60);
	assert_memory_equal(buf, want_pfc, sizeof(want_pfc));
	assert_int_equal(buf[60], 0xee); /* nothing past 60 bytes */

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(aif_pause_frame_build(buf, sizeof(buf), &port_mac, 0xabcd), 60);
	assert_memory_equal(buf, want_pause, sizeof(want_pause));
	assert_int_equal(buf[60], 0xee);

	/* Too small a buffer: -1, nothing written. */
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(aif_pfc_frame_build(buf, 59, &port_mac, 0x18, q), -1);
	assert_int_equal(aif_pause_frame_build(buf, 59, &port_mac, 1), -1);
	assert_int_equal(buf[0], 0xee);
	assert_int_equal(AIF_PFC_FRAME_LEN, 60);
}

struct rt_case {
	const char *name;
	uint8_t class_enable;
	uint16_t quanta[8];
};

static const struct rt_case rt_cases[] = {
	{ "xoff prio 3", 0x08, { [3] = 0xFFFF } },
	{ "xon prio 3", 0x08, { 0 } },
	{ "mixed 3+4", 0x18, { [3] = 0xFFFF, [4] = 0x1234 } },
	{ "all eight", 0xFF, { 1, 2, 0x00FF, 0x0100, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF } },
	{ "mixed xon/xoff, junk in disabled", 0xA5,
	  { 0, 0x5555, 0xABCD, 0x5555, 0x5555, 0, 0x5555, 0x0001 } },
	{ "prio 0 only", 0x01, { 0x0102, 0x0304 } },
	{ "prio 7 only", 0x80, { [7] = 0x8001 } },
	{ "empty vector", 0x00, { 9, 9, 9, 9, 9, 9, 9, 9 } },
};

static void
test_round_trip(void **state)
{
	unsigned i, p;

	(void)state;
	for (i = 0; i < sizeof(rt_cases) / sizeof(rt_cases[0]); i++) {
		const struct rt_case *c = &rt_cases[i];
		uint8_t buf[AIF_PFC_FRAME_LEN];
		struct aif_pfc_rx f;

		print_message("round trip: %s\n", c->name);
		memset(&f, 0xa5, sizeof(f));
		assert_int_equal(aif_pfc_frame_build(buf, sizeof(buf), &port_mac,
						     c->class_enable, c->quanta), 60);
		assert_int_equal(aif_pfc_frame_parse(buf, sizeof(buf), &f), 0);
		assert_int_equal(f.kind, AIF_PFC_KIND_PFC);
		assert_int_equal(f.class_enable, c->class_enable);
		assert_true(f.dst_reserved);
		assert_memory_equal(f.src.b, port_mac.b, 6);
		for (p = 0; p < 8; p++)
			assert_int_equal(f.quanta[p],
					 (c->class_enable >> p) & 1 ? c->quanta[p] : 0);
		for (p = 34; p < 60; p++)
			assert_int_equal(buf[p], 0);
		/* With a 4-byte FCS after it, the same. */
		{
			uint8_t fcs[64];
			struct aif_pfc_rx g;

			memcpy(fcs, buf, 60);
			memset(fcs + 60, 0x5a, 4);
			assert_int_equal(aif_pfc_frame_parse(fcs, 64, &g), 0);
			assert_int_equal(g.class_enable, f.class_enable);
			assert_memory_equal(g.quanta, f.quanta, sizeof(f.quanta));
		}
	}
}

static void
test_pause_round_trip(void **state)
{
	static const uint16_t times[] = { 0, 1, 0x1234, 0xFFFF };
	uint8_t buf[AIF_PFC_FRAME_LEN];
	struct aif_pfc_rx f;
	unsigned i, p;

	(void)state;
	for (i = 0; i < 4; i++) {
		assert_int_equal(aif_pause_frame_build(buf, sizeof(buf), &port_mac, times[i]), 60);
		assert_int_equal(aif_pfc_frame_parse(buf, sizeof(buf), &f), 0);
		assert_int_equal(f.kind, AIF_PFC_KIND_PAUSE);
		assert_int_equal(f.class_enable, 0xFF);
		assert_true(f.dst_reserved);
		for (p = 0; p < 8; p++)
			assert_int_equal(f.quanta[p], times[i]);
	}
}

/*
 * Destinations.  802.1Qbb PFC is valid only to 01:80:C2:00:00:01; 802.3x
 * PAUSE to that or to the receiving port's own MAC (some NICs send it
 * there).  Any other destination must not pause (nor resume) anything and
 * is counted as bad_destination.  The parser itself accepts every
 * destination and reports it.
 */
struct dst_case {
	const char *name;
	bool pause;      /* PAUSE (802.3x) rather than PFC */
	uint8_t dst[6];
	int want;        /* 0: accepted */
};

#define DST_RESERVED { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 }
#define DST_SLOW_PROTO { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x02 } /* LACP, OAM */
#define DST_PORT { 0x02, 0x00, 0x00, 0x00, 0x00, 0x10 }       /* = rx_mac */
#define DST_FOREIGN { 0x02, 0x00, 0x00, 0x00, 0x00, 0x09 }
#define DST_GROUP { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }      /* IPv4 multicast */
#define DST_BCAST { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }

static const struct dst_case dst_cases[] = {
	{ "PFC to 01:80:c2:00:00:01", false, DST_RESERVED, 0 },
	{ "PFC to 01:80:c2:00:00:02", false, DST_SLOW_PROTO, AIF_PFC_E_BAD_DST },
	{ "PFC to the port MAC", false, DST_PORT, AIF_PFC_E_BAD_DST },
	{ "PFC to a foreign unicast MAC", false, DST_FOREIGN, AIF_PFC_E_BAD_DST },
	{ "PFC to a multicast group", false, DST_GROUP, AIF_PFC_E_BAD_DST },
	{ "PFC to broadcast", false, DST_BCAST, AIF_PFC_E_BAD_DST },
	{ "PAUSE to 01:80:c2:00:00:01", true, DST_RESERVED, 0 },
	{ "PAUSE to the port MAC", true, DST_PORT, 0 },
	{ "PAUSE to 01:80:c2:00:00:02", true, DST_SLOW_PROTO, AIF_PFC_E_BAD_DST },
	{ "PAUSE to a foreign unicast MAC", true, DST_FOREIGN, AIF_PFC_E_BAD_DST },
	{ "PAUSE to a multicast group", true, DST_GROUP, AIF_PFC_E_BAD_DST },
	{ "PAUSE to broadcast", true, DST_BCAST, AIF_PFC_E_BAD_DST },
};

static void
test_rx_destination(void **state)
{
	const uint16_t q[8] = { [3] = 100 }; /* 100 quanta at 100G: 512 ns */
	const unsigned bad = -AIF_PFC_E_BAD_DST - 1;
	uint8_t buf[AIF_PFC_FRAME_LEN];
	struct aif_pfc_rx f;
	struct aif_pfc_rx_state s;
	unsigned i, k;

	(void)state;
	assert_string_equal(aif_pfc_err_name(AIF_PFC_E_BAD_DST), "bad_destination");
	for (i = 0; i < sizeof(dst_cases) / sizeof(dst_cases[0]); i++) {
		const struct dst_case *c = &dst_cases[i];
		bool ok = c->want == 0;

		print_message("destination: %s\n", c->name);
		if (c->pause)
			aif_pause_frame_build(buf, sizeof(buf), &port_mac, 100);
		else
			aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x08, q);
		memcpy(buf, c->dst, 6);

		/* the format is fine whatever the destination */
		assert_int_equal(aif_pfc_frame_parse(buf, sizeof(buf), &f), 0);
		assert_memory_equal(f.dst.b, c->dst, 6);
		assert_int_equal(f.dst_reserved, memcmp(c->dst, aif_pfc_dst_mac.b, 6) == 0);
		assert_int_equal(aif_pfc_rx_dst_check(&f, &rx_mac), c->want);

		aif_pfc_rx_init(&s);
		assert_int_equal(aif_pfc_rx_input(&s, buf, sizeof(buf), &rx_mac, G(100), 1000),
				 c->want);
		assert_int_equal(aif_pfc_rx_paused_mask(&s, 1000),
				 !ok ? 0x00 : c->pause ? 0xFF : 0x08);
		assert_int_equal(aif_pfc_rx_paused_mask(&s, 1511), !ok ? 0x00 : c->pause ? 0xFF : 0x08);
		assert_int_equal(aif_pfc_rx_paused_mask(&s, 1512), 0x00);
		assert_int_equal(s.ctr.rx_err[bad], !ok);
		assert_int_equal(aif_pfc_rx_err_total(&s.ctr), !ok);
		assert_int_equal(s.ctr.rx_pfc[3], ok && !c->pause);
		assert_int_equal(s.ctr.rx_pause, ok && c->pause);
		assert_int_equal(s.ctr.rx_pause_port_mac,
				 ok && c->pause && memcmp(c->dst, rx_mac.b, 6) == 0);
		for (k = 0; k < 8; k++)
			assert_int_equal(s.ctr.rx_xon[k], 0);
		aif_pfc_rx_sync(&s, 10000);
		assert_int_equal(s.pause_ns_total[3], ok ? 512 : 0);
	}

	/* Nor does a badly addressed XON end a pause that a valid XOFF began. */
	aif_pfc_rx_init(&s);
	aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x08, (uint16_t[8]){ [3] = 0xFFFF });
	assert_int_equal(aif_pfc_rx_input(&s, buf, sizeof(buf), &rx_mac, G(100), 0), 0);
	aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x08, (uint16_t[8]){ 0 });
	memcpy(buf, (uint8_t[6])DST_FOREIGN, 6);
	assert_int_equal(aif_pfc_rx_input(&s, buf, sizeof(buf), &rx_mac, G(100), 100),
			 AIF_PFC_E_BAD_DST);
	assert_true(aif_pfc_rx_paused(&s, 3, 100));
	assert_true(aif_pfc_rx_paused(&s, 3, 335539));
	assert_int_equal(s.ctr.rx_xon[3], 0);
	assert_int_equal(s.ctr.rx_err[bad], 1);
}

struct err_case {
	const char *name;
	uint32_t len;
	int off[4];	/* bytes to set (-1 ends) */
	uint8_t val[4];
	int pause;	/* start from a PAUSE frame instead of PFC */
	int want;
};

static void
make_tagged(uint8_t *buf, uint16_t inner)
{
	/* dst, src, 0x8100, TCI (prio 3, VID 10), inner type, opcode... */
	static const uint8_t h[] = { 0x81, 0x00, 0x60, 0x0a };

	memmove(buf + 16, buf + 12, 44);
	memcpy(buf + 12, h, 4);
	buf[16] = (uint8_t)(inner >> 8);
	buf[17] = (uint8_t)inner;
}

static void
test_parse_errors(void **state)
{
	static const struct err_case cases[] = {
		{ "no EtherType", 13, { -1 }, { 0 }, 0, AIF_PFC_E_TRUNCATED },
		{ "no opcode", 15, { -1 }, { 0 }, 0, AIF_PFC_E_TRUNCATED },
		{ "PFC without time 7", 33, { -1 }, { 0 }, 0, AIF_PFC_E_TRUNCATED },
		{ "PAUSE without time", 17, { -1 }, { 0 }, 1, AIF_PFC_E_TRUNCATED },
		{ "IPv4", 60, { 12, 13, -1 }, { 0x08, 0x00 }, 0, AIF_PFC_E_NOT_MAC_CTRL },
		{ "LACP 0x8809", 60, { 13, -1 }, { 0x09 }, 0, AIF_PFC_E_NOT_MAC_CTRL },
		{ "opcode 0x0002", 60, { 14, 15, -1 }, { 0x00, 0x02 }, 0, AIF_PFC_E_OPCODE },
		{ "opcode 0x0100", 60, { 14, 15, -1 }, { 0x01, 0x00 }, 0, AIF_PFC_E_OPCODE },
		{ "opcode 0x0000", 60, { 14, 15, -1 }, { 0x00, 0x00 }, 1, AIF_PFC_E_OPCODE },
		{ "reserved 0x0108", 60, { 16, -1 }, { 0x01 }, 0, AIF_PFC_E_RESERVED },
		{ "reserved 0x8008", 60, { 16, -1 }, { 0x80 }, 0, AIF_PFC_E_RESERVED },
	};
	const uint16_t q[8] = { [3] = 0xFFFF };
	uint8_t buf[AIF_PFC_FRAME_LEN];
	struct aif_pfc_rx f;
	struct aif_pfc_rx_state s, s0;
	unsigned i, k;

	(void)state;
	aif_pfc_rx_init(&s);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct err_case *c = &cases[i];

		print_message("parse error: %s\n", c->name);
		if (c->pause)
			aif_pause_frame_build(buf, sizeof(buf), &port_mac, 5);
		else
			aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x08, q);
		for (k = 0; k < 4 && c->off[k] >= 0; k++)
			buf[c->off[k]] = c->val[k];
		assert_int_equal(aif_pfc_frame_parse(buf, c->len, &f), c->want);
		s0 = s;
		assert_int_equal(aif_pfc_rx_input(&s, buf, c->len, &rx_mac, G(100), 1000), c->want);
		assert_int_equal(s.ctr.rx_err[-c->want - 1], s0.ctr.rx_err[-c->want - 1] + 1);
		assert_int_equal(aif_pfc_rx_err_total(&s.ctr),
				 aif_pfc_rx_err_total(&s0.ctr) + 1);
		assert_memory_equal(s.paused_until_ns, s0.paused_until_ns,
				    sizeof(s.paused_until_ns));
	}

	/* The least each opcode needs parses. */
	aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x80, (uint16_t[8]){ [7] = 3 });
	assert_int_equal(aif_pfc_frame_parse(buf, 34, &f), 0);
	assert_int_equal(f.quanta[7], 3);
	aif_pause_frame_build(buf, sizeof(buf), &port_mac, 4);
	assert_int_equal(aif_pfc_frame_parse(buf, 18, &f), 0);
	assert_int_equal(f.quanta[0], 4);

	/* A VLAN tag: MAC control is never tagged. */
	aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x08, q);
	make_tagged(buf, 0x8808);
	assert_int_equal(aif_pfc_frame_parse(buf, 60, &f), AIF_PFC_E_VLAN_TAGGED);
	assert_int_equal(aif_pfc_frame_parse(buf, 17, &f), AIF_PFC_E_TRUNCATED);
	buf[12] = 0x88; /* 0x88A8 outer */
	buf[13] = 0xa8;
	assert_int_equal(aif_pfc_frame_parse(buf, 60, &f), AIF_PFC_E_VLAN_TAGGED);
	aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 0x08, q);
	make_tagged(buf, 0x0800);
	assert_int_equal(aif_pfc_frame_parse(buf, 60, &f), AIF_PFC_E_NOT_MAC_CTRL);
	assert_int_equal(aif_pfc_rx_input(&s, buf, 60, &rx_mac, G(100), 0), AIF_PFC_E_NOT_MAC_CTRL);
	assert_int_equal(aif_pfc_rx_err_total(&s.ctr), sizeof(cases) / sizeof(cases[0]) + 1);
	assert_int_equal(s.ctr.rx_err[-AIF_PFC_E_NOT_MAC_CTRL - 1], 3);
	assert_int_equal(s.ctr.rx_err[-AIF_PFC_E_TRUNCATED - 1], 4);

	/* Distinct values, distinct names. */
	{
		static const int errs[] = {
			AIF_PFC_E_TRUNCATED, AIF_PFC_E_NOT_MAC_CTRL, AIF_PFC_E_VLAN_TAGGED,
			AIF_PFC_E_OPCODE, AIF_PFC_E_RESERVED, AIF_PFC_E_BAD_DST, AIF_PFC_E_CFG_NULL,
			AIF_PFC_E_CFG_SPEED, AIF_PFC_E_CFG_QUANTA, AIF_PFC_E_CFG_REFRESH_LONG,
			AIF_PFC_E_CFG_REFRESH_SHORT,
		};
		unsigned a, b, n = sizeof(errs) / sizeof(errs[0]);

		for (a = 0; a < n; a++) {
			assert_true(errs[a] < 0);
			assert_string_not_equal(aif_pfc_err_name(errs[a]), "unknown");
			for (b = 0; b < a; b++) {
				assert_int_not_equal(errs[a], errs[b]);
				assert_string_not_equal(aif_pfc_err_name(errs[a]),
							aif_pfc_err_name(errs[b]));
			}
		}
		assert_string_equal(aif_pfc_err_name(0), "ok");
		assert_string_equal(aif_pfc_err_name(AIF_PFC_E_RESERVED), "class_vector_reserved");
		assert_string_equal(aif_pfc_err_name(-(int)n - 1), "unknown");
		assert_string_equal(aif_pfc_err_name(1), "unknown");
	}
}

/* ---- Time ---- */

static void
test_quanta_to_ns(void **state)
{
	/* ns = ceil(quanta * 512 * 1e9 / speed); worked out by hand. */
	static const struct {
		uint16_t q;
		uint64_t speed_bps;
		aif_time_ns want;
	} t[] = {
		{ 0xFFFF, G(100), 335540 },	/* 335,539.2 */
		{ 0xFFFF, G(40), 838848 },	/* exact */
		{ 0xFFFF, G(25), 1342157 },	/* 1,342,156.8 */
		{ 0xFFFF, G(10), 3355392 },	/* exact */
		{ 0xFFFF, G(400), 83885 },	/* 83,884.8 */
		{ 1, G(100), 6 },		/* 5.12 */
		{ 1, G(40), 13 },		/* 12.8 */
		{ 1, G(25), 21 },		/* 20.48 */
		{ 1, G(10), 52 },		/* 51.2 */
		{ 1, G(400), 2 },		/* 1.28 */
		{ 0, G(100), 0 },
		{ 0, G(40), 0 },
		{ 0, G(25), 0 },
		{ 0, G(10), 0 },
		{ 0, G(400), 0 },
		{ 625, G(100), 3200 },		/* exact: 3.2 us */
		{ 0xFFFF, 0, 0 },		/* no speed: no time */
		{ 0xFFFF, 1, 33553920ull * 1000000000ull }, /* 1 b/s, no overflow */
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		print_message("quanta %u at %llu b/s\n", t[i].q, (unsigned long long)t[i].speed_bps);
		assert_int_equal(aif_pfc_quanta_to_ns(t[i].q, t[i].speed_bps), t[i].want);
	}
}

/* ---- Reception ---- */

static void
rx_pfc(struct aif_pfc_rx_state *s, uint8_t ce, const uint16_t q[8], uint64_t speed,
       aif_time_ns now)
{
	uint8_t buf[AIF_PFC_FRAME_LEN];

	assert_int_equal(aif_pfc_frame_build(buf, sizeof(buf), &port_mac, ce, q), 60);
	assert_int_equal(aif_pfc_rx_input(s, buf, sizeof(buf), &rx_mac, speed, now), 0);
}

static void
test_rx_pause_prio3(void **state)
{
	const aif_time_ns t0 = 1000, dl = t0 + 335540;
	struct aif_pfc_rx_state s;
	unsigned p;

	(void)state;
	aif_pfc_rx_init(&s);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 0), 0);
	rx_pfc(&s, 0x08, (uint16_t[8]){ [3] = 0xFFFF }, G(100), t0);
	assert_int_equal(s.paused_until_ns[3], dl);
	assert_true(aif_pfc_rx_paused(&s, 3, t0));
	assert_true(aif_pfc_rx_paused(&s, 3, dl - 1));
	assert_false(aif_pfc_rx_paused(&s, 3, dl));
	for (p = 0; p < 8; p++)
		if (p != 3) {
			assert_false(aif_pfc_rx_paused(&s, p, t0));
			assert_false(aif_pfc_rx_paused(&s, p, dl - 1));
		}
	assert_int_equal(aif_pfc_rx_paused_mask(&s, t0), 0x08);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, dl - 1), 0x08);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, dl), 0x00);
	assert_int_equal(s.ctr.rx_pfc[3], 1);
	assert_int_equal(s.ctr.rx_xon[3], 0);
	assert_int_equal(s.ctr.rx_pfc[4], 0);

	/* Expiry closes the span at the deadline, not at the sync. */
	aif_pfc_rx_sync(&s, dl + 5000);
	assert_int_equal(s.pause_ns_total[3], 335540);
	for (p = 0; p < 8; p++)
		if (p != 3)
			assert_int_equal(s.pause_ns_total[p], 0);

	/* At 400G the same time is a quarter (rounded up). */
	aif_pfc_rx_init(&s);
	rx_pfc(&s, 0x08, (uint16_t[8]){ [3] = 0xFFFF }, G(400), 0);
	assert_true(aif_pfc_rx_paused(&s, 3, 83884));
	assert_false(aif_pfc_rx_paused(&s, 3, 83885));

	/* A receiver that reads pause times in whole us (round_ns 1000, as
	 * ns-3's PauseHeader): 977 quanta at 100G (5,003 ns) pause 5,000 ns;
	 * 1,074 (5,499) 5,000, 1,075 (5,504) 6,000 */
	static const struct { uint16_t quanta; aif_time_ns ns; } w[] = {
		{ 977, 5000 }, { 1074, 5000 }, { 1075, 6000 },
	};
	for (unsigned i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		aif_pfc_rx_init(&s);
		s.round_ns = 1000;
		rx_pfc(&s, 0x08, (uint16_t[8]){ [3] = w[i].quanta }, G(100), t0);
		assert_int_equal(s.paused_until_ns[3], t0 + w[i].ns);
	}
}

static void
test_rx_xon(void **state)
{
	struct aif_pfc_rx_state s;

	(void)state;
	aif_pfc_rx_init(&s);
	rx_pfc(&s, 0x18, (uint16_t[8]){ [3] = 0xFFFF, [4] = 0xFFFF }, G(100), 10000);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 10000), 0x18);
	/* XON for 3 only, 2,500 ns later. */
	rx_pfc(&s, 0x08, (uint16_t[8]){ 0 }, G(100), 12500);
	assert_false(aif_pfc_rx_paused(&s, 3, 12500));
	assert_true(aif_pfc_rx_paused(&s, 4, 12500));
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 12500), 0x10);
	assert_int_equal(s.ctr.rx_xon[3], 1);
	assert_int_equal(s.ctr.rx_pfc[3], 1);
	assert_int_equal(s.ctr.rx_pfc[4], 1);
	aif_pfc_rx_sync(&s, 20000);
	assert_int_equal(s.pause_ns_total[3], 2500);
	assert_int_equal(s.pause_ns_total[4], 10000);
	/* An XON for a priority not paused changes nothing but its counter. */
	rx_pfc(&s, 0x01, (uint16_t[8]){ 0 }, G(100), 20000);
	assert_int_equal(s.pause_ns_total[0], 0);
	assert_int_equal(s.ctr.rx_xon[0], 1);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 20000), 0x10);
}

static void
test_rx_pause_all(void **state)
{
	uint8_t buf[AIF_PFC_FRAME_LEN];
	struct aif_pfc_rx_state s;
	unsigned p;

	(void)state;
	aif_pfc_rx_init(&s);
	/* 256 quanta at 40G: 256 * 512 / 40 = 3,276.8 -> 3,277 ns. */
	aif_pause_frame_build(buf, sizeof(buf), &port_mac, 256);
	assert_int_equal(aif_pfc_rx_input(&s, buf, sizeof(buf), &rx_mac, G(40), 500), 0);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 500), 0xFF);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 500 + 3276), 0xFF);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 500 + 3277), 0x00);
	assert_int_equal(s.ctr.rx_pause, 1);
	for (p = 0; p < 8; p++) {
		assert_int_equal(s.paused_until_ns[p], 3777);
		assert_int_equal(s.ctr.rx_pfc[p], 0);
	}
	/* PAUSE 0 resumes all at once. */
	aif_pause_frame_build(buf, sizeof(buf), &port_mac, 0xFFFF);
	aif_pfc_rx_input(&s, buf, sizeof(buf), &rx_mac, G(40), 10000);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 11000), 0xFF);
	aif_pause_frame_build(buf, sizeof(buf), &port_mac, 0);
	aif_pfc_rx_input(&s, buf, sizeof(buf), &rx_mac, G(40), 11000);
	assert_int_equal(aif_pfc_rx_paused_mask(&s, 11000), 0x00);
	assert_int_equal(s.ctr.rx_pause, 3);
	aif_pfc_rx_sync(&s, 50000);
	for (p = 0; p < 8; p++) {
		assert_int_equal(s.ctr.rx_xon[p], 0);
		assert_int_equal(s.pause_ns_total[p], 3277 + 1000);
	}
}

static void
test_rx_refresh_replaces(void **state)
{
	struct aif_pfc_rx_state s;

	(void)state;
	aif_pfc_rx_init(&s);
	/* 0x100 quanta at 100G = 1,310.72 -> 1,311 ns; 0x10 = 81.92 -> 82. */
	rx_pfc(&s, 0x08, (uint16_t[8]){ [3] = 0x100 }, G(100), 0);
	assert_int_equal(s.paused_until_ns[3], 1311);
	/* Longer, before expiry: extends. */
	rx_pfc(&s, 0x08, (uint16_t[8]){ [3] = 0xFFFF }, G(100), 1000);
	assert_int_equal(s.paused_until_ns[3], 1000 + 335540);
	assert_true(aif_pfc_rx_paused(&s, 3, 5000));
	/* Shorter: replaces (shortens) the deadline too. */
	rx_pfc(&s, 0x08, (uint16_t[8]){ [3] = 0x10 }, G(100), 2000);
	assert_int_equal(s.paused_until_ns[3], 2082);
	assert_true(aif_pfc_rx_paused(&s, 3, 2081));
	assert_false(aif_pfc_rx_paused(&s, 3, 2082));
	assert_false(aif_pfc_rx_paused(&s, 3, 5000));
	assert_int_equal(s.ctr.rx_pfc[3], 3);
	aif_pfc_rx_sync(&s, 1000000);
	assert_int_equal(s.pause_ns_total[3], 2082); /* one span [0, 2082) */
}

/* pause_ns_total over several spans, gaps, syncs in the middle. */
static void
test_rx_pause_total_exact(void **state)
{
	const uint16_t q3[8] = { [3] = 625 }; /* 3,200 ns at 100G */
	struct aif_pfc_rx_state s;

	(void)state;
	aif_pfc_rx_init(&s);
	rx_pfc(&s, 0x08, q3, G(100), 100);		/* [100, 3300) */
	aif_pfc_rx_sync(&s, 1100);
	assert_int_equal(s.pause_ns_total[3], 1000);	/* running: up to now */
	aif_pfc_rx_sync(&s, 1100);			/* idempotent */
	assert_int_equal(s.pause_ns_total[3], 1000);
	aif_pfc_rx_sync(&s, 9000);
	assert_int_equal(s.pause_ns_total[3], 3200);	/* expired at 3300 */
	rx_pfc(&s, 0x08, q3, G(100), 10000);		/* [10000, ...) gap not counted */
	rx_pfc(&s, 0x08, q3, G(100), 12000);		/* refresh: until 15200 */
	aif_pfc_rx_sync(&s, 14000);
	assert_int_equal(s.pause_ns_total[3], 3200 + 4000);
	rx_pfc(&s, 0x08, (uint16_t[8]){ 0 }, G(100), 14500); /* XON */
	aif_pfc_rx_sync(&s, 100000);
	assert_int_equal(s.pause_ns_total[3], 3200 + 4500);
	/* Frame after a sync that went past its deadline: counted from it. */
	rx_pfc(&s, 0x08, q3, G(100), 200000);
	aif_pfc_rx_sync(&s, 203199);
	assert_int_equal(s.pause_ns_total[3], 3200 + 4500 + 3199);
	aif_pfc_rx_sync(&s, 203200);
	assert_int_equal(s.pause_ns_total[3], 3200 + 4500 + 3200);
	aif_pfc_rx_sync(&s, 999999);
	assert_int_equal(s.pause_ns_total[3], 3200 + 4500 + 3200);
	assert_int_equal(s.pause_ns_total[2], 0);
}

/* ---- Generation ---- */

static void
test_tx_config(void **state)
{
	struct aif_pfc_tx_params p = { .speed_bps = G(100), .pfc_enable = 0x18 };
	struct aif_pfc_tx_config c;
	unsigned i;

	(void)state;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	for (i = 0; i < 8; i++) {
		assert_int_equal(c.quanta[i], 0xFFFF);
		assert_int_equal(c.pause_ns[i], 335540);
		assert_int_equal(c.refresh_ns[i], 167770);
	}
	assert_int_equal(c.pfc_enable, 0x18);
	assert_int_equal(c.speed_bps, G(100));

	assert_int_equal(aif_pfc_tx_config_init(NULL, &p), AIF_PFC_E_CFG_NULL);
	assert_int_equal(aif_pfc_tx_config_init(&c, NULL), AIF_PFC_E_CFG_NULL);
	p.speed_bps = 0;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_SPEED);
	p.speed_bps = G(100);
	/* Min frame at 100G: 672 bits = 6.72 -> 7 ns. */
	p.refresh_ns = 6;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_REFRESH_SHORT);
	p.refresh_ns = 335540;	/* equal to the pause: the peer would resume */
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_REFRESH_LONG);
	p.refresh_ns = 335539;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	assert_int_equal(c.refresh_ns[3], 335539);
	/* Quanta of 2 = 11 ns (10.24): half (5) < a frame (7). */
	p.refresh_ns = 0;
	p.quanta[4] = 2;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_QUANTA);
	p.quanta[4] = 3;	/* 15.36 -> 16, half 8 >= 7 */
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	assert_int_equal(c.refresh_ns[4], 8);
	/* An explicit refresh must fit under every enabled pause. */
	p.refresh_ns = 16;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_REFRESH_LONG);
	p.refresh_ns = 15;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	/* Disabled priorities are not checked. */
	p.refresh_ns = 0;
	p.pfc_enable = 0x08;
	p.quanta[4] = 1;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	/* A failed init leaves cfg alone. */
	memset(&c, 0x77, sizeof(c));
	p.speed_bps = 0;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_SPEED);
	assert_int_equal(c.pfc_enable, 0x77);
}

static struct aif_pfc_tx_config
cfg_100g(uint8_t enable)
{
	struct aif_pfc_tx_params p = { .speed_bps = G(100), .pfc_enable = enable };
	struct aif_pfc_tx_config c;

	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	return c;
}

static void
test_tx_xoff_refresh_xon(void **state)
{
	struct aif_pfc_tx_config c = cfg_100g(0x18);
	const aif_time_ns t0 = 5000, r = 167770;
	struct aif_pfc_tx_state s;
	uint16_t q[8];
	uint8_t ce;
	unsigned p;

	(void)state;
	aif_pfc_tx_init(&s);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), AIF_TIME_NS_NEVER);
	/* Nothing congested: nothing to send, outputs untouched. */
	ce = 0xee;
	q[0] = 0xeeee;
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0, t0, &ce, q), 0);
	assert_int_equal(ce, 0xee);
	assert_int_equal(q[0], 0xeeee);

	/* New XOFF on 3. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, t0, &ce, q), 1);
	assert_int_equal(ce, 0x08);
	for (p = 0; p < 8; p++)
		assert_int_equal(q[p], p == 3 ? 0xFFFF : 0);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), t0 + r);
	/* Within the refresh period: nothing. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, t0 + 1, &ce, q), 0);
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, t0 + r - 1, &ce, q), 0);
	/* At the period: refresh. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, t0 + r, &ce, q), 1);
	assert_int_equal(ce, 0x08);
	assert_int_equal(q[3], 0xFFFF);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), t0 + 2 * r);
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, t0 + 2 * r - 1, &ce, q), 0);
	/* Late call (past the due time): refresh, next due counted from now. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, t0 + 2 * r + 10, &ce, q), 1);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), t0 + 3 * r + 10);
	/* Cleared: XON frame with time 0. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x00, t0 + 2 * r + 20, &ce, q), 1);
	assert_int_equal(ce, 0x08);
	for (p = 0; p < 8; p++)
		assert_int_equal(q[p], 0);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), AIF_TIME_NS_NEVER);
	/* And then silence. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x00, t0 + 10 * r, &ce, q), 0);
	assert_int_equal(s.ctr.tx_pfc[3], 3);
	assert_int_equal(s.ctr.tx_xon[3], 1);
	assert_int_equal(s.ctr.tx_frames, 4);
	for (p = 0; p < 8; p++)
		if (p != 3)
			assert_int_equal(s.ctr.tx_pfc[p] + s.ctr.tx_xon[p], 0);
}

static void
test_tx_two_prios(void **state)
{
	struct aif_pfc_tx_config c;
	struct aif_pfc_tx_params prm = { .speed_bps = G(100), .pfc_enable = 0x18,
					 .quanta = { [3] = 0xFFFF, [4] = 0x8000 } };
	struct aif_pfc_tx_state s;
	uint16_t q[8];
	uint8_t ce;

	(void)state;
	assert_int_equal(aif_pfc_tx_config_init(&c, &prm), 0);
	assert_int_equal(c.pause_ns[4], 167773);	/* 0x8000: 167,772.16 */
	assert_int_equal(c.refresh_ns[4], 83886);	/* half, rounded down */
	aif_pfc_tx_init(&s);
	/* Both at once: one frame. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x18, 0, &ce, q), 1);
	assert_int_equal(ce, 0x18);
	assert_int_equal(q[3], 0xFFFF);
	assert_int_equal(q[4], 0x8000);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), 83886); /* 4's refresh first */
	/* 4 due at 83,886: the frame refreshes 3 too (early). */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x18, 83885, &ce, q), 0);
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x18, 83886, &ce, q), 1);
	assert_int_equal(ce, 0x18);
	assert_int_equal(s.next_refresh_ns[3], 83886 + 167770);
	assert_int_equal(s.next_refresh_ns[4], 83886 + 83886);
	/* 3 clears while 4 stays: XON for 3 and a refresh for 4, one frame. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x10, 90000, &ce, q), 1);
	assert_int_equal(ce, 0x18);
	assert_int_equal(q[3], 0);
	assert_int_equal(q[4], 0x8000);
	assert_int_equal(s.ctr.tx_xon[3], 1);
	assert_int_equal(s.ctr.tx_pfc[3], 2);
	assert_int_equal(s.ctr.tx_pfc[4], 3);
	/* 3 again while 4 XOFF: a new XOFF frame at once. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x18, 90001, &ce, q), 1);
	assert_int_equal(ce, 0x18);
	assert_int_equal(q[3], 0xFFFF);
	/* A frame built from these outputs parses back to the same. */
	{
		uint8_t buf[AIF_PFC_FRAME_LEN];
		struct aif_pfc_rx f;

		aif_pfc_frame_build(buf, sizeof(buf), &port_mac, ce, q);
		assert_int_equal(aif_pfc_frame_parse(buf, sizeof(buf), &f), 0);
		assert_int_equal(f.class_enable, 0x18);
		assert_int_equal(f.quanta[3], 0xFFFF);
		assert_int_equal(f.quanta[4], 0x8000);
	}
	/* Both clear: one XON frame for both. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x00, 90002, &ce, q), 1);
	assert_int_equal(ce, 0x18);
	assert_int_equal(q[3], 0);
	assert_int_equal(q[4], 0);
	assert_int_equal(s.ctr.tx_frames, 5);
}

static void
test_tx_disabled_never(void **state)
{
	struct aif_pfc_tx_config c = cfg_100g(0x08);
	struct aif_pfc_tx_state s;
	aif_time_ns t;
	uint16_t q[8];
	uint8_t ce;
	unsigned p, frames = 0;

	(void)state;
	aif_pfc_tx_init(&s);
	/* Only 4 congested, 4 not lossless: never a frame. */
	for (t = 0; t < 2 * AIF_NS_PER_MS; t += 1000)
		assert_int_equal(aif_pfc_tx_update(&s, &c, 0x10, t, &ce, q), 0);
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), AIF_TIME_NS_NEVER);
	/* Everything congested: only 3 ever appears. */
	for (t = 0; t < 2 * AIF_NS_PER_MS; t += 1000) {
		if (aif_pfc_tx_update(&s, &c, 0xFF, t, &ce, q)) {
			frames++;
			assert_int_equal(ce, 0x08);
			for (p = 0; p < 8; p++)
				assert_int_equal(q[p], p == 3 ? 0xFFFF : 0);
		}
	}
	/* 0, 168000, 336000, ... (refresh 167,770 on a 1 us grid): 12 frames. */
	assert_int_equal(frames, 12);
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0xF7, t, &ce, q), 1); /* 3 clears */
	assert_int_equal(ce, 0x08);
	assert_int_equal(q[3], 0);
	for (p = 0; p < 8; p++)
		if (p != 3)
			assert_int_equal(s.ctr.tx_pfc[p] + s.ctr.tx_xon[p], 0);
}

static void
test_tx_unsent(void **state)
{
	struct aif_pfc_tx_config c = cfg_100g(0x18);
	struct aif_pfc_tx_state s, before;
	uint16_t q[8], q2[8];
	uint8_t ce, ce2;

	(void)state;
	aif_pfc_tx_init(&s);
	before = s;
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, 100, &ce, q), 1);
	aif_pfc_tx_unsent(&s, ce, q);
	assert_int_equal(s.xoff, before.xoff);
	assert_memory_equal(&s.ctr, &before.ctr, sizeof(s.ctr));
	/* Asked again at once, the same frame. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x08, 101, &ce2, q2), 1);
	assert_int_equal(ce2, ce);
	assert_memory_equal(q2, q, sizeof(q));
	/* A lost XON is asked again too. */
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x00, 200, &ce, q), 1);
	aif_pfc_tx_unsent(&s, ce, q);
	assert_int_equal(s.xoff, 0x08);
	assert_int_equal(aif_pfc_tx_update(&s, &c, 0x00, 201, &ce2, q2), 1);
	assert_int_equal(ce2, 0x08);
	assert_int_equal(q2[3], 0);
	assert_int_equal(s.ctr.tx_pfc[3], 1);
	assert_int_equal(s.ctr.tx_xon[3], 1);
	assert_int_equal(s.ctr.tx_frames, 2);
}

/* Sender and receiver back to back in virtual time: while the sender holds
 * XOFF, driven only at its next-event times, the peer never resumes; after
 * XON it resumes at once; and the peer's time paused is exact. */
static void
test_tx_rx_link(void **state)
{
	struct aif_pfc_tx_config c = cfg_100g(0x08);
	const aif_time_ns t_on = 1000, t_off = 3 * AIF_NS_PER_MS;
	struct aif_pfc_tx_state tx;
	struct aif_pfc_rx_state rx;
	uint8_t buf[AIF_PFC_FRAME_LEN];
	aif_time_ns t, next;
	uint16_t q[8];
	uint8_t ce;
	unsigned frames = 0;

	(void)state;
	aif_pfc_tx_init(&tx);
	aif_pfc_rx_init(&rx);
	t = t_on;
	while (t < t_off) {
		if (aif_pfc_tx_update(&tx, &c, 0x08, t, &ce, q)) {
			frames++;
			aif_pfc_frame_build(buf, sizeof(buf), &port_mac, ce, q);
			assert_int_equal(aif_pfc_rx_input(&rx, buf, sizeof(buf), &rx_mac, G(100), t), 0);
		}
		next = aif_pfc_tx_next_event_ns(&tx);
		assert_true(next > t);
		/* Paused up to (and just before) the next refresh. */
		assert_true(aif_pfc_rx_paused(&rx, 3, t));
		assert_true(aif_pfc_rx_paused(&rx, 3, (next < t_off ? next : t_off) - 1));
		t = next;
	}
	assert_int_equal(aif_pfc_tx_update(&tx, &c, 0x00, t_off, &ce, q), 1);
	aif_pfc_frame_build(buf, sizeof(buf), &port_mac, ce, q);
	assert_int_equal(aif_pfc_rx_input(&rx, buf, sizeof(buf), &rx_mac, G(100), t_off), 0);
	assert_false(aif_pfc_rx_paused(&rx, 3, t_off));
	assert_int_equal(aif_pfc_rx_paused_mask(&rx, t_off), 0);
	/* (3,000,000 - 1,000) / 167,770 -> refreshes at t_on + k*167770, k < 18. */
	assert_int_equal(frames, 18);
	assert_int_equal(rx.ctr.rx_pfc[3], 18);
	assert_int_equal(rx.ctr.rx_xon[3], 1);
	aif_pfc_rx_sync(&rx, 10 * AIF_NS_PER_MS);
	assert_int_equal(rx.pause_ns_total[3], t_off - t_on);
}

static void
test_counter_names(void **state)
{
	(void)state;
	assert_int_equal(aif_pfc_rx_prio_ctr_n, 2);
	assert_string_equal(aif_pfc_rx_prio_ctr_names[0], "rx_pfc");
	assert_string_equal(aif_pfc_rx_prio_ctr_names[1], "rx_xon");
	assert_int_equal(aif_pfc_rx_port_ctr_n, 2);
	assert_string_equal(aif_pfc_rx_port_ctr_names[1], "rx_pause_port_mac");
	/* one receive error counter per received-frame error, in list order */
	assert_int_equal(AIF_PFC_RX_ERR_N, 6);
	assert_string_equal(aif_pfc_err_name(-1), "truncated");
	assert_string_equal(aif_pfc_err_name(-AIF_PFC_RX_ERR_N), "bad_destination");
	assert_string_equal(aif_pfc_err_name(-AIF_PFC_RX_ERR_N - 1), "config_null");
	assert_int_equal(aif_pfc_tx_prio_ctr_n, 2);
	assert_string_equal(aif_pfc_tx_prio_ctr_names[0], "tx_pfc");
	assert_int_equal(aif_pfc_tx_port_ctr_n, 1);
	assert_string_equal(aif_pfc_tx_port_ctr_names[0], "tx_frames");
	assert_int_equal(sizeof(struct aif_pfc_rx_ctr),
			 (aif_pfc_rx_prio_ctr_n * 8 + aif_pfc_rx_port_ctr_n + AIF_PFC_RX_ERR_N) *
				 sizeof(uint64_t));
	assert_int_equal(sizeof(struct aif_pfc_tx_ctr),
			 (aif_pfc_tx_prio_ctr_n * 8 + aif_pfc_tx_port_ctr_n) * sizeof(uint64_t));
}

/*
 * ns-3 mode (ConWeave's CheckAndSendPfc): a PAUSE per admitted packet over
 * the threshold, 5 us as quanta at the port rate (977 at 100G, 5,002 ns),
 * never refreshed; an XON only within the last PAUSE's 5 us.
 */
static void
test_tx_ns3_mode(void **state)
{
	struct aif_pfc_tx_params p = { .speed_bps = 100000000000ull, .pfc_enable = 1u << 3,
				       .mode = AIF_PFC_TX_NS3 };
	struct aif_pfc_tx_config c;
	struct aif_pfc_tx_state s;
	uint16_t q[AIF_PFC_PRIOS];
	uint8_t ce, fresh;

	(void)state;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	assert_int_equal(c.quanta[3], 977);
	assert_int_equal(c.pause_ns[3], 5003);
	assert_int_equal(c.ns3_pause_ns, 5000);
	aif_pfc_tx_init(&s);
	/* three admitted packets over the threshold at t = 1000: three PAUSEs */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(aif_pfc_tx_ns3_pause(&s, &c, 1u << 3 | 1u << 2, 1000, &ce, q,
						      &fresh), 1);
		assert_int_equal(ce, 1u << 3); /* PG 2 is not lossless */
		assert_int_equal(q[3], 977);
		assert_int_equal(fresh, i == 0 ? 1u << 3 : 0);
	}
	assert_int_equal(s.ctr.tx_pfc[3], 3);
	/* nothing to refresh: the standard generator's events stay NEVER */
	assert_int_equal(aif_pfc_tx_next_event_ns(&s), AIF_TIME_NS_NEVER);
	/* XON at 5,999 ns (window open until 6,000) */
	assert_int_equal(aif_pfc_tx_ns3_resume(&s, 1u << 3, 5999, &ce, q), 1);
	assert_int_equal(ce, 1u << 3);
	assert_int_equal(q[3], 0);
	assert_int_equal(s.ctr.tx_xon[3], 1);
	/* a second XON: none, the window closed */
	assert_int_equal(aif_pfc_tx_ns3_resume(&s, 1u << 3, 6000, &ce, q), 0);
	/* a PAUSE at 10 us, resume condition only at 15 us: no XON (the peer
	 * resumed by itself) */
	assert_int_equal(aif_pfc_tx_ns3_pause(&s, &c, 1u << 3, 10000, &ce, q, &fresh), 1);
	assert_int_equal(aif_pfc_tx_ns3_open(&s, 14999), 1u << 3);
	assert_int_equal(aif_pfc_tx_ns3_resume(&s, 1u << 3, 15000, &ce, q), 0);
	assert_int_equal(s.ctr.tx_xon[3], 1);
	/* other rates, and pause_us */
	p.speed_bps = 400000000000ull;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	assert_int_equal(c.quanta[3], 3907); /* 3906.25 up */
	p.speed_bps = 1000000000ull;
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), 0);
	assert_int_equal(c.quanta[3], 10); /* 9.77 up: 5,120 ns */
	p.ns3_pause_ns = 300000;
	p.speed_bps = 200000000000ull; /* 117,188 quanta: over 0xFFFF */
	assert_int_equal(aif_pfc_tx_config_init(&c, &p), AIF_PFC_E_CFG_QUANTA);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_exact_bytes),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_pause_round_trip),
		cmocka_unit_test(test_rx_destination),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_quanta_to_ns),
		cmocka_unit_test(test_rx_pause_prio3),
		cmocka_unit_test(test_rx_xon),
		cmocka_unit_test(test_tx_ns3_mode),
		cmocka_unit_test(test_rx_pause_all),
		cmocka_unit_test(test_rx_refresh_replaces),
		cmocka_unit_test(test_rx_pause_total_exact),
		cmocka_unit_test(test_tx_config),
		cmocka_unit_test(test_tx_xoff_refresh_xon),
		cmocka_unit_test(test_tx_two_prios),
		cmocka_unit_test(test_tx_disabled_never),
		cmocka_unit_test(test_tx_unsent),
		cmocka_unit_test(test_tx_rx_link),
		cmocka_unit_test(test_counter_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
