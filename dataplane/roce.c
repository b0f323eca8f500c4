/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 ICRC (roce.h): a masked copy of the headers and payload, then
 * DPDK's CRC-32 (SSE4.2/PCLMULQDQ where the CPU has it): about 0.1 us for
 * a 1 KB packet.
 */
#include <string.h>

#include <rte_net_crc.h>

#include "roce.h"

void
aif_roce_init(void)
{
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42); /* falls back where absent */
}

uint32_t
aif_roce_icrc(const uint8_t *l3, uint32_t l3_len)
{
	static __thread uint8_t buf[8 + AIF_ROCE_MAX_L3];
	uint32_t udp;

	/* the shortest: IPv4, UDP, BTH, ICRC (a CNP or an ACK is longer) */
	if (l3_len < 20 + 8 + AIF_ROCE_BTH_LEN + AIF_ROCE_ICRC_LEN || l3_len > AIF_ROCE_MAX_L3)
		return 0;
	memset(buf, 0xFF, 8);
	memcpy(buf + 8, l3, l3_len - AIF_ROCE_ICRC_LEN);
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
	if (udp + 8 + AIF_ROCE_BTH_LEN > l3_len - AIF_ROCE_ICRC_LEN)
		return 0;
	b[udp + 6] = b[udp + 7] = 0xFF;         /* UDP checksum */
	b[udp + 8 + 4] = 0xFF;                  /* BTH: FECN, BECN, reserved */
	return rte_net_crc_calc(buf, 8 + l3_len - AIF_ROCE_ICRC_LEN, RTE_NET_CRC32_ETH);
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
