/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 on the wire: the invariant CRC (ICRC) that ends every RoCEv2
 * packet (InfiniBand Architecture, Annex A17.4).  A primitive.
 *
 * The ICRC is CRC-32 (the Ethernet polynomial, as zlib's crc32) over 8
 * bytes of 0xFF standing for the LRH, then the IP header, UDP header, BTH
 * and payload, with the fields routers may change masked to ones: IPv4
 * TOS, TTL and header checksum (IPv6: traffic class, flow label, hop
 * limit), the UDP checksum, and the BTH's FECN/BECN/reserved byte.  It is
 * carried little-endian in the last 4 bytes.
 *
 *	uint32_t icrc = aif_roce_icrc(ip, ip_len);   // ip_len includes the ICRC
 *	memcpy(ip + ip_len - 4, &icrc, 4);           // on a little-endian CPU
 */
#ifndef AIF_ROCE_H
#define AIF_ROCE_H

#include <stdbool.h>
#include <stdint.h>

#define AIF_ROCE_UDP_PORT 4791
#define AIF_ROCE_BTH_LEN 12
#define AIF_ROCE_ICRC_LEN 4
#define AIF_ROCE_MAX_L3 9216

/* Once at start-up, before any runner runs: DPDK's CRC-32 at its fastest
 * (SSE4.2/PCLMULQDQ where the CPU has it).  It is process-wide, so the
 * runtime's set-up chooses it, never the data path; without it the ICRC
 * is the same, computed by DPDK's default. */
void aif_roce_init(void);
/* The ICRC of the RoCEv2 packet whose IP header starts at l3 (l3_len
 * bytes, its last 4 the ICRC's place); 0 if l3_len is out of range or the
 * IP version is neither 4 nor 6. */
uint32_t aif_roce_icrc(const uint8_t *l3, uint32_t l3_len);
/* Compute it and write it in place (its last 4 bytes, little-endian). */
void aif_roce_icrc_put(uint8_t *l3, uint32_t l3_len);
/* Does the packet carry a valid one? */
bool aif_roce_icrc_ok(const uint8_t *l3, uint32_t l3_len);

#endif /* AIF_ROCE_H */
