/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 ICRC (roce.h): a masked copy of the headers and payload, then
 * DPDK's CRC-32 (SSE4.2/PCLMULQDQ where the CPU has it): about 0.1 us for
 * a 1 KB packet.  A payload of zeros (a light frame's, frame.h) is not
 * read: n zero bytes through the CRC's register multiply it by x^(8n)
 * modulo the polynomial (zlib's crc32_combine), with x^(8n) from a table:
 * a carry-less product four bits at a time, its upper half reduced by
 * four table lookups (multmodp_fast: ~70 instructions, the bitwise
 * multiplication's 32 steps took ~320, 60% of a light frame's ICRC).
 */
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_net_crc.h>

#include "roce.h"

#define POLY 0xEDB88320u /* CRC-32, reflected */

/* x^(8n) mod P for every n a packet may have (reflected, as zlib's
 * crc32_combine keeps them), and x^32 v(x) mod P for v's every byte
 * (red[k][b]: v = b x^(8k), reflected: b in bits 8k..8k+7), filled by
 * aif_roce_init; x8n_ready says so. */
static uint32_t x8n[AIF_ROCE_MAX_L3 + 1];
static uint32_t red[4][256];
static bool x8n_ready;

/* a(x) b(x) mod P, reflected (zlib's multmodp). */
static uint32_t
multmodp(uint32_t a, uint32_t b)
{
	uint32_t p = 0;

	for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
		p ^= b & (0u - ((a & m) != 0));
		b = (b >> 1) ^ (POLY & (0u - (b & 1)));
	}
	return p;
}

/*
 * multmodp(a, b) with the tables (x8n_ready).  The integers' carry-less
 * product (a's multiples by every nibble, b four bits at a time): bit j
 * holds the coefficient of x^(62 - j) of c = a b, reflected as the inputs
 * are.  One more shift: its upper 32 bits are c's coefficients of x^0 ..
 * x^31, its lower 32 those of x^32 .. x^63 (h, c = low + x^32 h), both
 * reflected; x^32 h mod P is linear in h: a lookup per byte.
 */
static inline uint32_t
multmodp_fast(uint32_t a, uint32_t b)
{
	uint64_t t[16], p = 0;

	t[0] = 0;
	t[1] = a;
	for (unsigned i = 2; i < 16; i += 2) {
		t[i] = t[i / 2] << 1;
		t[i + 1] = t[i] ^ a;
	}
	for (unsigned k = 0; k < 32; k += 4)
		p ^= t[(b >> k) & 15] << k;
	p <<= 1;
	uint32_t h = (uint32_t)p;
	return (uint32_t)(p >> 32) ^ red[0][h & 0xff] ^ red[1][(h >> 8) & 0xff] ^
	       red[2][(h >> 16) & 0xff] ^ red[3][h >> 24];
}

/* x^(8n) mod P: from the table, or by squaring before aif_roce_init. */
static uint32_t
x8n_of(uint32_t n)
{
	if (likely(x8n_ready))
		return x8n[n];
	uint32_t p = 1u << 31, x2k = 1u << 23; /* 1, and x^8 */
	for (; n; n >>= 1, x2k = multmodp(x2k, x2k))
		if (n & 1)
			p = multmodp(x2k, p);
	return p;
}

void
aif_roce_init(void)
{
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42); /* falls back where absent */
	if (x8n_ready)
		return;
	x8n[0] = 1u << 31;
	for (uint32_t n = 1; n <= AIF_ROCE_MAX_L3; n++)
		x8n[n] = multmodp(1u << 23, x8n[n - 1]);
	for (unsigned k = 0; k < 4; k++)
		for (uint32_t b = 0; b < 256; b++)
			red[k][b] = multmodp(x8n[4], b << (8 * k));
	x8n_ready = true;
}

/* The CRC of the masked headers (8 bytes of ones, then hdr_len bytes from
 * l3 with the variant fields masked) followed by zeros zero bytes; 0 if the
 * headers are too short or the IP version is neither 4 nor 6. */
static uint32_t
icrc_masked(const uint8_t *l3, uint32_t hdr_len, uint32_t zeros)
{
	static __thread uint8_t buf[8 + AIF_ROCE_MAX_L3];
	uint32_t udp;

	memset(buf, 0xFF, 8);
	memcpy(buf + 8, l3, hdr_len);
	uint8_t *b = buf + 8;
	if (b[0] >> 4 == 4) {
		udp = (uint32_t)(b[0] & 0x0F) * 4;
		b[1] = 0xFF;                    /* TOS */
		b[8] = 0xFF;                    /* TTL */
		b[10] = b[11] = 0xFF;           /* header checksum */
	} else if (b[0] >> 4 == 6) {
		udp = 40;
		b[0] |= 0x0F;                   /* traffic class, flow label */
		b[1] = b[2] = b[3] = 0xFF;
		b[7] = 0xFF;                    /* hop limit */
	} else {
		return 0;
	}
	if (udp + 8 + AIF_ROCE_BTH_LEN > hdr_len)
		return 0;
	b[udp + 6] = b[udp + 7] = 0xFF;         /* UDP checksum */
	b[udp + 8 + 4] = 0xFF;                  /* BTH: FECN, BECN, reserved */
	uint32_t crc = rte_net_crc_calc(buf, 8 + hdr_len, RTE_NET_CRC32_ETH);
	if (zeros == 0)
		return crc;
	/* n zero bytes through the CRC's register multiply it by x^(8n) */
	if (likely(x8n_ready))
		return ~multmodp_fast(x8n[zeros], ~crc);
	return ~multmodp(x8n_of(zeros), ~crc);
}

uint32_t
aif_roce_icrc(const uint8_t *l3, uint32_t l3_len)
{
	/* the shortest: IPv4, UDP, BTH, ICRC (a CNP or an ACK is longer) */
	if (l3_len < 20 + 8 + AIF_ROCE_BTH_LEN + AIF_ROCE_ICRC_LEN || l3_len > AIF_ROCE_MAX_L3)
		return 0;
	return icrc_masked(l3, l3_len - AIF_ROCE_ICRC_LEN, 0);
}

uint32_t
aif_roce_icrc_zeros(const uint8_t *l3, uint32_t hdr_len, uint32_t zeros)
{
	if (hdr_len < 20 + 8 + AIF_ROCE_BTH_LEN ||
	    (uint64_t)hdr_len + zeros + AIF_ROCE_ICRC_LEN > AIF_ROCE_MAX_L3)
		return 0;
	return icrc_masked(l3, hdr_len, zeros);
}

void
aif_roce_icrc_put(uint8_t *l3, uint32_t l3_len)
{
	uint32_t icrc = aif_roce_icrc(l3, l3_len);
	uint8_t *t = l3 + l3_len - AIF_ROCE_ICRC_LEN;

	t[0] = (uint8_t)icrc, t[1] = (uint8_t)(icrc >> 8);
	t[2] = (uint8_t)(icrc >> 16), t[3] = (uint8_t)(icrc >> 24);
}

bool
aif_roce_icrc_ok(const uint8_t *l3, uint32_t l3_len)
{
	if (l3_len < AIF_ROCE_ICRC_LEN)
		return false;
	const uint8_t *t = l3 + l3_len - AIF_ROCE_ICRC_LEN;
	return aif_roce_icrc(l3, l3_len) == ((uint32_t)t[0] | (uint32_t)t[1] << 8 |
					     (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24);
}
