/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire models (dataplane/wire.c): ns-3's bytes for frames built here byte
 * by byte, each figure worked out by hand from ConWeave's ns-3 headers
 * (PPP 2, IPv4 20, UDP 8, SeqTs 6: L + 36 for data; 48 for an ACK/NAK;
 * 31 for a PFC frame) and the RoCEv2 layout (BTH 12, extension headers,
 * pad, ICRC 4).  No EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire.h"

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * Ethernet (with `tags` 802.1Q tags) / IPv4 or IPv6 / UDP dport / BTH
 * (opcode, pad count) / ext extension bytes / payload + pad / ICRC.
 * Returns the frame's length.
 */
static uint32_t
roce(uint8_t *f, int v6, int tags, uint16_t dport, uint8_t opcode, uint32_t ext,
     uint32_t payload, uint8_t pad)
{
	uint32_t off = 12, udp_len = 8 + 12 + ext + payload + pad + 4;

	memset(f, 0, 2048);
	for (int t = 0; t < tags; t++, off += 4)
		put16(f + off, 0x8100);
	put16(f + off, v6 ? 0x86DD : 0x0800);
	off += 2;
	if (v6) {
		f[off] = 0x60;
		put16(f + off + 4, udp_len);
		f[off + 6] = 17;
		off += 40;
	} else {
		f[off] = 0x45;
		put16(f + off + 2, 20 + udp_len);
		f[off + 9] = 17;
		off += 20;
	}
	put16(f + off + 2, dport);
	put16(f + off + 4, udp_len);
	f[off + 8] = opcode;
	f[off + 9] = (uint8_t)(0x40 | pad << 4);
	return off + udp_len;
}

static uint32_t
ns3(const uint8_t *f, uint32_t len)
{
	return aif_wire_ns3_bytes(f, len, len);
}

static void
test_roce(void **state)
{
	static const struct {
		int v6, tags;
		uint8_t opcode;
		uint32_t ext, payload;
		uint8_t pad;
		uint32_t want;
	} cases[] = {
		{ 0, 0, 0x04, 0, 1000, 0, 1036 },  /* SEND Only: 1,000 + 36 */
		{ 0, 0, 0x06, 16, 1000, 0, 1036 }, /* WRITE First: the RETH is ours */
		{ 0, 0, 0x0A, 16, 64, 0, 100 },    /* WRITE Only */
		{ 0, 0, 0x07, 0, 1000, 0, 1036 },  /* WRITE Middle */
		{ 0, 0, 0x04, 0, 998, 2, 1034 },   /* the pad is ours too */
		{ 0, 0, 0x05, 4, 100, 0, 136 },    /* SEND Only with immediate */
		{ 0, 0, 0x0B, 20, 100, 0, 136 },   /* WRITE Only with immediate */
		{ 0, 0, 0x64, 8, 256, 0, 292 },    /* UD SEND Only: DETH */
		{ 0, 0, 0x24, 0, 512, 0, 548 },    /* UC SEND Only */
		{ 0, 0, 0x11, 4, 0, 0, 48 },       /* ACK / NAK */
		{ 0, 0, 0x12, 12, 0, 0, 48 },      /* atomic ACK */
		{ 0, 0, 0x81, 0, 16, 0, 48 },      /* CNP (ns-3: a flag on the ACK) */
		{ 0, 1, 0x04, 0, 1000, 0, 1036 },  /* tagged */
		{ 0, 2, 0x04, 0, 1000, 0, 1036 },  /* QinQ */
		{ 1, 0, 0x04, 0, 1000, 0, 1056 },  /* IPv6: 20 more */
		{ 1, 0, 0x11, 4, 0, 0, 68 },
		{ 0, 0, 0x0C, 16, 0, 0, 36 },      /* READ Request: no payload */
	};
	uint8_t f[2048];

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t len = roce(f, cases[i].v6, cases[i].tags, 4791, cases[i].opcode,
				    cases[i].ext, cases[i].payload, cases[i].pad);
		uint32_t got = ns3(f, len);
		if (got != cases[i].want)
			fail_msg("case %u (opcode %#x, %u B): %u, want %u", i, cases[i].opcode,
				 cases[i].payload, got, cases[i].want);
		assert_int_equal(aif_wire_ns3_mmu_bytes(f, len, len), cases[i].want + 12);
	}
	/* a full packet: the buffer's 1,048 (ns-3's SwitchMmu::MTU) */
	uint32_t len = roce(f, 0, 0, 4791, 0x04, 0, 1000, 0);
	assert_int_equal(len, 1058);
	assert_int_equal(aif_wire_ns3_mmu_bytes(f, len, len), 1048);
}

static void
test_other_frames(void **state)
{
	uint8_t f[2048];
	uint32_t len;

	(void)state;
	/* PFC: 31 whatever its Ethernet length */
	memset(f, 0, sizeof(f));
	put16(f + 12, 0x8808);
	put16(f + 14, 0x0101);
	assert_int_equal(ns3(f, 60), 31);
	/* ARP: PPP 2 + 28 */
	put16(f + 12, 0x0806);
	assert_int_equal(ns3(f, 42), 30);
	/* UDP to another port, TCP: PPP 2 + the IP packet */
	len = roce(f, 0, 0, 53, 0x04, 0, 72, 0);
	assert_int_equal(ns3(f, len), 2 + 20 + 8 + 12 + 72 + 4);
	f[14 + 9] = 6;
	assert_int_equal(ns3(f, len), 2 + 20 + 8 + 12 + 72 + 4);
	/* an IPv4 fragment past the first: no UDP header in it */
	len = roce(f, 0, 0, 4791, 0x04, 0, 1000, 0);
	put16(f + 14 + 6, 0x00b9);
	assert_int_equal(ns3(f, len), 2 + 20 + 8 + 12 + 1000 + 4);
	/* headers not at hand: the frame past Ethernet, + 2 */
	len = roce(f, 0, 0, 4791, 0x04, 0, 1000, 0);
	assert_int_equal(aif_wire_ns3_bytes(f, 30, len), len - 14 + 2);
	assert_int_equal(aif_wire_ns3_bytes(f, 10, 10), 1);
	assert_string_equal(aif_wire_model_name(AIF_WIRE_NS3), "ns3");
	assert_string_equal(aif_wire_model_name(AIF_WIRE_ETHERNET), "ethernet");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_other_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
