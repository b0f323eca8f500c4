/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire models: how many bytes a frame costs on an emulated wire and in the
 * switch's buffer.  The frame itself never changes (a capture stays valid
 * Ethernet and RoCEv2); only the time it takes and what the MMU charges.
 *
 *   AIF_WIRE_ETHERNET (default): the frame as sent, padded to 60, plus FCS,
 *     preamble, SFD and inter-frame gap (link.h aif_link_wire_bytes); the
 *     buffer charges the frame (pkt_len).
 *   AIF_WIRE_NS3: ConWeave's ns-3 (point-to-point qbb devices: a PPP header
 *     and no Ethernet framing, InterframeGap 0):
 *       RoCE data, L payload bytes   L + 36  (PPP 2, IPv4 20, UDP 8, ns-3's
 *                                             SeqTs seq 4 + pg 2)
 *       RoCE ACK/NAK (opcode 0x11,   48      (PPP 2, IPv4 20, qbbHeader 18,
 *         atomic ACK 0x12), CNP 0x81         padding 8; ns-3's CNP is a flag
 *                                             on its ACK: none of its own)
 *       PFC / PAUSE (0x8808)         31      (PPP 2, IPv4 20, PauseHeader 9)
 *       other IP packets             2 + the IP packet's length
 *       other frames                 2 + the frame past its Ethernet header
 *     L is the RoCE payload: the UDP payload less the BTH (12), the opcode's
 *     extension headers (RETH 16, ImmDt 4, AETH 4, DETH 8, ...), the pad
 *     (BTH pad count) and the ICRC (4); a 1,000-byte payload is 1,036 B on
 *     the wire, 82.88 ns at 100 Gb/s.  IPv6 counts its 40-byte header where
 *     IPv4 counts 20 (ns-3 has no IPv6: 20 more for RoCE and ACKs).
 *     The buffer charges what ns-3's switch counts (p->GetSize(), an
 *     Ethernet header of 14 in place of PPP's 2): the wire bytes + 12, so a
 *     1,000-byte payload is 1,048 B (ns-3's SwitchMmu::MTU), an ACK 60 (ns-3
 *     never charges one: its ACKs bypass the MMU, qos "mmu_bypass").
 *     Time is ns-3's too (aif_wire_ser_ps, aif_wire_ns3_pace_ps): its
 *     devices and its DCQCN pacing take p->GetSize() at the rate,
 *     truncated to the whole ns (83 ns a full data frame at 100 Gb/s).
 *
 * Reads the frame's first bytes only (headers up to the BTH's second byte:
 * at most AIF_WIRE_PARSE_BYTES).  No EAL.
 *
 *	wire = model == AIF_WIRE_NS3 ? aif_wire_ns3_bytes(frame, n_contig, pkt_len)
 *				     : aif_link_wire_bytes(pkt_len);
 */
#ifndef AIF_WIRE_H
#define AIF_WIRE_H

#include <stdint.h>

enum aif_wire_model {
	AIF_WIRE_ETHERNET = 0, /* "ethernet" */
	AIF_WIRE_NS3 = 1,      /* "ns3" */
	AIF_WIRE_MODEL_MAX
};

#define AIF_WIRE_NS3_DATA_HDR_BYTES 36 /* PPP 2 + IPv4 20 + UDP 8 + seq/pg 6 */
#define AIF_WIRE_NS3_ACK_BYTES 48      /* PPP 2 + IPv4 20 + qbbHeader 18 + pad 8 */
#define AIF_WIRE_NS3_PFC_BYTES 31      /* PPP 2 + IPv4 20 + PauseHeader 9 */
#define AIF_WIRE_NS3_MMU_EXTRA_BYTES 12 /* the switch counts Ethernet 14, not PPP 2 */
#define AIF_WIRE_NS3_MIN_BYTES AIF_WIRE_NS3_PFC_BYTES
/* enough of a frame for the parse: Ethernet + 2 tags + IPv6 + UDP + 2 of BTH */
#define AIF_WIRE_PARSE_BYTES (14 + 8 + 40 + 8 + 2)

/* Name of a model as the config writes it ("ethernet", "ns3"). */
const char *aif_wire_model_name(enum aif_wire_model m);

/*
 * ns-3's bytes on the wire for the frame f of len bytes (without FCS), of
 * which the first n are at hand (n >= min(len, AIF_WIRE_PARSE_BYTES) for
 * an exact answer; a frame whose headers are not all at hand counts as
 * "other").  At least 1.
 */
uint32_t aif_wire_ns3_bytes(const uint8_t *f, uint32_t n, uint32_t len);

/*
 * Picoseconds a frame of wire bytes takes at rate_bps (> 0) under model m:
 * Ethernet, rounded up to the ps; ns-3, what its qbb device schedules:
 * p->GetSize() (the bytes its switch charges, wire + 12) at the rate,
 * truncated to the whole ns (Seconds() of a double).  At 100 Gb/s that is
 * the wire bytes' time rounded up: a 1,036-byte data frame 83 ns (1,048
 * x 0.08 = 83.84), an ACK 4, a PFC frame 3, a 1,000-byte frame 80.
 */
static inline uint64_t
aif_wire_ser_ps(enum aif_wire_model m, uint32_t wire, uint64_t rate_bps)
{
	if (m == AIF_WIRE_NS3)
		return (uint64_t)(wire + AIF_WIRE_NS3_MMU_EXTRA_BYTES) * 8 * 1000000000ull /
		       rate_bps * 1000;
	return ((uint64_t)wire * 8 * 1000000000000ull + rate_bps - 1) / rate_bps;
}

/*
 * ns-3's DCQCN pacing (rdma-hw.cc UpdateNextAvail): after a packet of wire
 * bytes starts, the QP's next may start p->GetSize() (wire + 12) at the
 * QP's rate later, truncated to the ns: 83,840 ns at 100 Mb/s for a
 * 1,000-byte payload, not the 82,880 its 1,036 bytes would take.
 */
static inline uint64_t
aif_wire_ns3_pace_ps(uint32_t wire, double rate_bps)
{
	double ns = (double)(wire + AIF_WIRE_NS3_MMU_EXTRA_BYTES) * 8e9 / rate_bps;
	return (uint64_t)ns * 1000;
}

/* What ns-3's switch buffer charges the same frame: aif_wire_ns3_bytes + 12. */
static inline uint32_t
aif_wire_ns3_mmu_bytes(const uint8_t *f, uint32_t n, uint32_t len)
{
	return aif_wire_ns3_bytes(f, n, len) + AIF_WIRE_NS3_MMU_EXTRA_BYTES;
}

#endif /* AIF_WIRE_H */
