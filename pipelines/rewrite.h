/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: rewrite (routed packets).
 *
 * Reads:  pkt->kind, l3_off; the egress port MAC and the next hop MAC.
 * Writes: destination and source MAC; IPv4 TTL - 1 with the header checksum
 *         updated incrementally (RFC 1624); IPv6 hop limit - 1.
 * Never touches the UDP header or payload: the RoCEv2 ICRC masks TTL, TOS
 * and the IPv4 checksum, so a routed RoCE packet keeps a valid ICRC.
 * The caller has already checked the TTL (> 1).
 */
#ifndef AIF_REWRITE_H
#define AIF_REWRITE_H

#include <stdint.h>

#include "../dataplane/pkt.h"

/* Rewrite a routed frame in place. */
void aif_rewrite_routed(uint8_t *frame, const struct aif_pkt *m,
			const struct aif_mac *src, const struct aif_mac *dst);

/*
 * Incremental IPv4 checksum update for one changed 16-bit word
 * (RFC 1624 eqn. 3): returns the new checksum, all values network order.
 */
uint16_t aif_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word);

/* Full IPv4 header checksum over ihl_bytes (network order result). */
uint16_t aif_ipv4_csum(const uint8_t *hdr, unsigned ihl_bytes);

#endif /* AIF_REWRITE_H */
