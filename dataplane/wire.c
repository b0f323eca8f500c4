/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire models (wire.h): ns-3's bytes for a frame. */
#include <stdbool.h>

#include "wire.h"

#define ETH_HLEN 14
#define UDP_HLEN 8
#define BTH_LEN 12
#define ICRC_LEN 4
#define ROCEV2_PORT 4791

const char *
aif_wire_model_name(enum aif_wire_model m)
{
	return m == AIF_WIRE_NS3 ? "ns3" : "ethernet";
}

static inline uint32_t
rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* Extension headers after the BTH, by the opcode's operation (its low five
 * bits; IBTA vol. 1 table 38, RC/UC/RD/UD): RETH 16, ImmDt 4, AETH 4,
 * AtomicETH 28, AtomicAckETH 8, IETH 4. */
static const uint8_t ext_bytes[32] = {
	[0x03] = 4,  [0x05] = 4,  /* SEND Last / Only with immediate */
	[0x06] = 16, [0x09] = 4,  /* RDMA WRITE First; Last with immediate */
	[0x0A] = 16, [0x0B] = 20, /* RDMA WRITE Only; Only with immediate */
	[0x0C] = 16,              /* RDMA READ Request */
	[0x0D] = 4,  [0x0F] = 4, [0x10] = 4, /* READ Response First, Last, Only */
	[0x11] = 4,  [0x12] = 12, /* Acknowledge, Atomic Acknowledge */
	[0x13] = 28, [0x14] = 28, /* Compare-Swap, Fetch-Add */
	[0x16] = 4,  [0x17] = 4,  /* SEND Last / Only with invalidate */
};

/* The RoCE packet whose BTH is at bth, udp_len bytes of UDP in all, ip6
 * the 20 bytes IPv6 adds to an IPv4 header (or 0). */
static uint32_t
roce_bytes(const uint8_t *bth, uint32_t udp_len, uint32_t ip6)
{
	uint8_t op = bth[0];

	if (op == 0x81 || (op & 0x1F) == 0x11 || (op & 0x1F) == 0x12)
		return AIF_WIRE_NS3_ACK_BYTES + ip6; /* ACK, NAK, atomic ACK, CNP */
	uint32_t hdr = UDP_HLEN + BTH_LEN + ext_bytes[op & 0x1F] + ((op & 0xE0) == 0x60 ? 8 : 0) +
		       ((bth[1] >> 4) & 3) + ICRC_LEN;
	return AIF_WIRE_NS3_DATA_HDR_BYTES + ip6 + (udp_len > hdr ? udp_len - hdr : 0);
}

uint32_t
aif_wire_ns3_bytes(const uint8_t *f, uint32_t n, uint32_t len)
{
	uint32_t off = 12, type;

	if (n > len)
		n = len;
	if (n < ETH_HLEN)
		return len + 2 > ETH_HLEN ? len + 2 - ETH_HLEN : 1;
	type = rd16(f + off);
	for (int tags = 0; tags < 2 && (type == 0x8100 || type == 0x88A8) && off + 6 <= n; tags++) {
		off += 4;
		type = rd16(f + off);
	}
	off += 2; /* the L3 header */
	if (type == 0x8808)
		return AIF_WIRE_NS3_PFC_BYTES;
	uint32_t other = len > off ? 2 + len - off : 2;
	uint32_t ip_len, l4, proto;
	if (type == 0x0800 && off + 20 <= n && (f[off] >> 4) == 4) {
		ip_len = rd16(f + off + 2);
		l4 = off + (uint32_t)(f[off] & 0xF) * 4;
		proto = f[off + 9];
		/* a fragment past the first carries no UDP header */
		if ((rd16(f + off + 6) & 0x1FFF) != 0)
			proto = 0;
	} else if (type == 0x86DD && off + 40 <= n && (f[off] >> 4) == 6) {
		ip_len = 40 + rd16(f + off + 4);
		l4 = off + 40;
		proto = f[off + 6];
	} else {
		return other;
	}
	if (ip_len < 20)
		return other;
	bool roce = proto == 17 && l4 + UDP_HLEN + 2 <= n &&
		    rd16(f + l4 + 2) == ROCEV2_PORT && rd16(f + l4 + 4) >= UDP_HLEN + BTH_LEN;
	if (!roce)
		return 2 + ip_len;
	return roce_bytes(f + l4 + UDP_HLEN, rd16(f + l4 + 4), type == 0x86DD ? 20 : 0);
}
