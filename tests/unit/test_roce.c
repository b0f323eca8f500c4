/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 ICRC (dataplane/roce.c): a packet built by scapy (whose BTH
 * computes the ICRC), the masked fields changing nothing (TOS, TTL, IPv4
 * checksum, UDP checksum, FECN/BECN), covered fields changing it, IPv6
 * against a bitwise CRC-32 written here, bad lengths refused; a payload of
 * zeros that is nowhere (light frames) gives the whole packet's ICRC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "roce.h"

/* IP/UDP/BTH(SEND_ONLY, dqpn 0x1234, psn 0xabcde)/40 bytes/ICRC, by scapy */
static const uint8_t scapy_v4[84] = {
	0x45, 0x6a, 0x00, 0x54, 0x00, 0x07, 0x00, 0x00, 0x40, 0x11, 0x66, 0x22, 0x0a, 0x00,
	0x00, 0x02, 0x0a, 0x03, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x40, 0x00, 0x00,
	0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x12, 0x34, 0x80, 0x0a, 0xbc, 0xde, 0x00, 0x01,
	0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,
	0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0xdc, 0x35, 0xb8, 0x5f,
};

static uint32_t
wire_icrc(const uint8_t *p, uint32_t len)
{
	const uint8_t *t = p + len - 4;
	return (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
}

/* CRC-32 (reflected 0xEDB88320, as zlib), bit by bit. */
static uint32_t
crc32_ref(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void
test_scapy_vector(void **state)
{
	uint8_t p[84];

	(void)state;
	assert_int_equal(aif_roce_icrc(scapy_v4, sizeof(scapy_v4)), wire_icrc(scapy_v4, 84));
	/* masked: TOS (ECN marks), TTL, checksum, UDP checksum, FECN/BECN */
	memcpy(p, scapy_v4, sizeof(p));
	p[1] = 0x6b, p[8] = 61, p[10] = 0x12, p[26] = 0x55, p[32] = 0xc0;
	assert_int_equal(aif_roce_icrc(p, sizeof(p)), wire_icrc(scapy_v4, 84));
	/* covered: the destination, the PSN, a payload byte */
	const unsigned covered[] = { 19, 39, 60 };
	for (unsigned i = 0; i < 3; i++) {
		memcpy(p, scapy_v4, sizeof(p));
		p[covered[i]] ^= 1;
		assert_int_not_equal(aif_roce_icrc(p, sizeof(p)), wire_icrc(scapy_v4, 84));
	}
}

/* The shortest RoCEv2 packets, an RC ACK (BTH + AETH: 48 bytes from the IP
 * header), by scapy: IP/UDP/BTH(ACK, dqpn 0x101, psn 0x123456)/AETH/ICRC. */
static const uint8_t scapy_ack[48] = {
	0x45, 0xc0, 0x00, 0x30, 0x00, 0x07, 0x40, 0x00, 0x40, 0x11, 0x25, 0xf2, 0x0a, 0x00,
	0x00, 0x02, 0x0a, 0x01, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,
	0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x01, 0x00, 0x12, 0x34, 0x56, 0x1f, 0x00,
	0x00, 0x03, 0x72, 0xa2, 0xc4, 0x49,
};

static void
test_shortest(void **state)
{
	(void)state;
	assert_int_equal(aif_roce_icrc(scapy_ack, sizeof(scapy_ack)), 0x49c4a272);
	assert_int_equal(aif_roce_icrc(scapy_ack, sizeof(scapy_ack)), wire_icrc(scapy_ack, 48));
}

static void
test_ipv6(void **state)
{
	uint8_t p[40 + 8 + 12 + 32 + 4], m[8 + sizeof(p) - 4];

	(void)state;
	memset(p, 0, sizeof(p));
	p[0] = 0x6d, p[1] = 0xa5, p[2] = 0x12, p[3] = 0x34;      /* TC, flow label */
	p[4] = 0, p[5] = sizeof(p) - 40, p[6] = 17, p[7] = 64;
	for (int i = 8; i < 40; i++)
		p[i] = (uint8_t)i;
	p[40] = 0xc0, p[42] = 0x12, p[43] = 0xb7;
	p[48] = 4, p[52 + 0] = 0, p[59] = 9;
	for (unsigned i = 60; i < sizeof(p) - 4; i++)
		p[i] = (uint8_t)(i * 7);
	/* the masked copy, by hand */
	memset(m, 0xFF, 8);
	memcpy(m + 8, p, sizeof(p) - 4);
	m[8] |= 0x0F, m[9] = m[10] = m[11] = 0xFF, m[15] = 0xFF;
	m[8 + 46] = m[8 + 47] = 0xFF, m[8 + 52] = 0xFF;
	assert_int_equal(aif_roce_icrc(p, sizeof(p)), crc32_ref(0, m, sizeof(m)));
}

static void
test_refused(void **state)
{
	uint8_t p[64] = { 0x55 };

	(void)state;
	assert_int_equal(aif_roce_icrc(p, sizeof(p)), 0);     /* IP version 5 */
	assert_int_equal(aif_roce_icrc(scapy_v4, 40), 0);      /* too short */
}

/* A payload of zeros that is nowhere (light frames): the same ICRC as the
 * whole packet's, for every length from none to the largest, before the
 * table (squaring) and after it; headers too short or a packet too long
 * are refused. */
static void
test_zeros(void **state)
{
	static uint8_t p[AIF_ROCE_MAX_L3];
	const uint32_t hdr = 28 + 12 + 16; /* IPv4, UDP, BTH, RETH */

	(void)state;
	memcpy(p, scapy_v4, hdr);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t z = 0; hdr + z + 4 <= AIF_ROCE_MAX_L3; z += z < 64 ? 1 : 97) {
			memset(p + hdr, 0, z);
			assert_int_equal(aif_roce_icrc_zeros(p, hdr, z), aif_roce_icrc(p, hdr + z + 4));
		}
		uint32_t z = AIF_ROCE_MAX_L3 - hdr - 4;
		memset(p + hdr, 0, z);
		assert_int_equal(aif_roce_icrc_zeros(p, hdr, z), aif_roce_icrc(p, hdr + z + 4));
		/* against the bitwise reference: the masked headers, then zeros */
		uint8_t m[8 + 56];
		memset(m, 0xFF, 8);
		memcpy(m + 8, p, hdr);
		m[8 + 1] = m[8 + 8] = m[8 + 10] = m[8 + 11] = 0xFF;
		m[8 + 26] = m[8 + 27] = m[8 + 32] = 0xFF;
		uint32_t ref = crc32_ref(0, m, sizeof(m));
		static const uint8_t zero[1000];
		ref = crc32_ref(ref, zero, sizeof(zero)); /* continued, as zlib's */
		assert_int_equal(aif_roce_icrc_zeros(p, hdr, 1000), ref);
		aif_roce_init(); /* the second pass: from the table */
	}
	assert_int_equal(aif_roce_icrc_zeros(p, 39, 100), 0);
	assert_int_equal(aif_roce_icrc_zeros(p, hdr, AIF_ROCE_MAX_L3 - hdr - 3), 0);
}

/* Headers of every kind of content and payloads of every length: the ICRC
 * over zeros that are nowhere (the table's multiplication, after
 * aif_roce_init) is the one over the whole packet's bytes. */
static void
test_zeros_random(void **state)
{
	static uint8_t p[AIF_ROCE_MAX_L3];
	uint64_t x = 0x9E3779B97F4A7C15ull;

	(void)state;
	aif_roce_init();
	for (int i = 0; i < 3000; i++) {
		uint32_t hdr = 28 + 12 + (uint32_t)(i % 3) * 4; /* IPv4, UDP, BTH, more */
		for (uint32_t k = 0; k < hdr; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			p[k] = (uint8_t)x;
		}
		p[0] = 0x45; /* IPv4, 20 bytes */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t z = (uint32_t)(x % (AIF_ROCE_MAX_L3 - hdr - 4 + 1));
		memset(p + hdr, 0, z);
		assert_int_equal(aif_roce_icrc_zeros(p, hdr, z), aif_roce_icrc(p, hdr + z + 4));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scapy_vector),
		cmocka_unit_test(test_shortest),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_zeros),
		cmocka_unit_test(test_zeros_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
