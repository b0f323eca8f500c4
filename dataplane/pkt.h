/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-packet metadata: what the parser found, and what later stages decide.
 *
 * One struct aif_pkt per packet of a burst, kept in the worker's burst
 * context (not in the mbuf), filled by aif_parse() and read or written by
 * the stages in order: parse -> classify -> route -> lb -> rewrite -> tx.
 * All offsets are bytes from the start of the frame.  Addresses and ports
 * are in network byte order as on the wire, except where a field says
 * "host order".
 */
#ifndef AIF_PKT_H
#define AIF_PKT_H

#include <stdint.h>

#include "types.h"

#define AIF_ETHERTYPE_IPV4 0x0800
#define AIF_ETHERTYPE_ARP 0x0806
#define AIF_ETHERTYPE_VLAN 0x8100
#define AIF_ETHERTYPE_QINQ 0x88A8
#define AIF_ETHERTYPE_IPV6 0x86DD
/* IEEE 802.3 MAC control (PAUSE, PFC); DPDK 22.11 has no constant for it. */
#define AIF_ETHERTYPE_MAC_CTRL 0x8808

#define AIF_UDP_PORT_ROCEV2 4791
#define AIF_BTH_LEN 12
#define AIF_ICRC_LEN 4

/* What kind of frame this is: selects the path through the pipeline. */
enum aif_pkt_kind {
	AIF_PKT_IPV4 = 0,   /* route it */
	AIF_PKT_IPV6,       /* route it (or ND, see flags) */
	AIF_PKT_ARP,        /* to the ARP responder */
	AIF_PKT_MAC_CTRL,   /* PAUSE/PFC: consumed, never forwarded */
	AIF_PKT_OTHER,      /* unsupported EtherType: dropped, counted */
};

/* aif_pkt.flags */
#define AIF_PKT_F_VLAN (1u << 0)   /* one 802.1Q tag present (pcp, vlan_id valid) */
#define AIF_PKT_F_L4 (1u << 1)     /* src_port/dst_port valid (UDP or TCP, not a later fragment) */
#define AIF_PKT_F_ROCE (1u << 2)   /* UDP dport 4791 with a whole BTH */
#define AIF_PKT_F_FRAG (1u << 3)   /* IPv4 fragment (MF set or offset != 0) */
#define AIF_PKT_F_ND (1u << 4)     /* ICMPv6 neighbour solicitation/advertisement */
#define AIF_PKT_F_L2_BCAST (1u << 5) /* destination MAC is group (bcast or mcast) */
#define AIF_PKT_F_ICMP_ECHO (1u << 6) /* ICMP/ICMPv6 echo request */

struct aif_pkt {
	/* --- written by parse --- */
	uint8_t kind;      /* enum aif_pkt_kind */
	uint8_t flags;     /* AIF_PKT_F_* */
	uint8_t l4_proto;  /* IP protocol / IPv6 next header of the L4 header */
	uint8_t pcp;       /* 802.1Q priority, 0 when untagged */
	uint16_t vlan_id;  /* host order */
	uint16_t l3_off;   /* start of IPv4/IPv6/ARP header */
	uint16_t l4_off;   /* start of UDP/TCP/ICMP header, 0 if none */
	uint16_t l3_len;   /* total length of the IP packet per its header (host order) */
	uint8_t dscp;      /* 6 bits */
	uint8_t ecn;       /* 2 bits */
	uint8_t ttl;       /* IPv4 TTL / IPv6 hop limit */
	uint8_t bth_opcode;
	uint16_t src_port; /* network order */
	uint16_t dst_port; /* network order */
	uint32_t flow_label; /* IPv6, host order, 20 bits */
	uint32_t dest_qp;  /* BTH destination QP, host order, 24 bits */
	uint32_t psn;      /* BTH PSN, host order, 24 bits */
	struct aif_ip src; /* IP source (ARP: sender protocol address) */
	struct aif_ip dst; /* IP destination (ARP: target protocol address) */

	/* --- written by later stages --- */
	uint8_t tc;        /* classify: traffic class 0..7 */
	uint8_t drop;      /* enum aif_drop_reason: AIF_DROP_NONE unless the parser dropped it */
	uint16_t in_port;  /* switch port index the frame arrived on */
	uint16_t out_port; /* rewrite/tx: switch port index to send on */
	uint16_t nh_group; /* route: next-hop group index */
	uint32_t nh_slot;  /* route/lb: neighbour slot of the chosen next hop */
	uint32_t hash;     /* lb: flow hash */
	uint32_t member;   /* lb: global member index (for counters) */
};

#endif /* AIF_PKT_H */
