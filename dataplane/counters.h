/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters, declared once (X-macros): the structs the workers increment, and
 * the names control prints and writes to JSON, come from these lists.
 *
 * Each worker owns its counters and is their only writer; control reads
 * them (64-bit aligned loads are atomic on the CPUs we run on) and sums over
 * workers.  "Clear" never writes worker memory: control keeps a baseline and
 * shows the difference.
 */
#ifndef AIF_COUNTERS_H
#define AIF_COUNTERS_H

#include <stdint.h>

#include "drop.h"

#define AIF_FOREACH_PORT_CTR(_) \
	_(rx_packets)           \
	_(rx_bytes)             \
	_(tx_packets)           \
	_(tx_bytes)             \
	_(arp_rx)               \
	_(arp_tx)               \
	_(nd_rx)                \
	_(nd_tx)                \
	_(learn_ratelimited)    \
	_(learn_ring_full)      \
	_(icmp_echo_replies)    \
	_(icmp_time_exceeded)   \
	_(icmp_too_big)         \
	_(icmp_ratelimited)     \
	_(bfd_rx)               \
	_(bfd_ring_full)

struct aif_port_ctr {
#define AIF_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_PORT_CTR(AIF_CTR_FIELD)
#undef AIF_CTR_FIELD
	uint64_t drops[AIF_DROP_MAX]; /* by reason, on the ingress port */
};

#define AIF_PORT_CTR_WORDS (sizeof(struct aif_port_ctr) / sizeof(uint64_t))

/* Per next-hop-group member. */
struct aif_member_ctr {
	uint64_t packets;
	uint64_t bytes;
};

/* Names of struct aif_port_ctr's plain fields, in order. */
extern const char *const aif_port_ctr_names[];
extern const unsigned aif_port_ctr_n;

#endif /* AIF_COUNTERS_H */
