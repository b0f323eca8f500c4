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
#include <string.h>

#include <rte_byteorder.h>

#include "../dataplane/pkt.h"

#define AIF_IPV4_TTL_OFF 8
#define AIF_IPV4_CSUM_OFF 10
#define AIF_IPV6_HLIM_OFF 7

/*
 * Incremental checksum update for one changed 16-bit word, RFC 1624
 * eqn. 3: HC' = ~(~HC + ~m + m'), which (unlike eqn. 2) never turns a
 * checksum that should be 0x0000 into 0xffff.  Values are as read from
 * memory (no byte swap): one's complement sums do not depend on byte order.
 */
static inline uint16_t
aif_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~csum;

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Rewrite a routed frame in place (per packet, so inline). */
static inline void
aif_rewrite_routed(uint8_t *frame, const struct aif_pkt *m,
		   const struct aif_mac *src, const struct aif_mac *dst)
{
	uint8_t *l3 = frame + m->l3_off;
	uint16_t old_word, new_word, csum;

	memcpy(frame, dst->b, sizeof(dst->b));
	memcpy(frame + 6, src->b, sizeof(src->b));

	if (m->kind == AIF_PKT_IPV4) {
		/* TTL is the first byte of the (TTL, protocol) word: decrement it
		 * in a register and store the word once.  A byte store followed
		 * by a word load of the same bytes stalls store forwarding. */
		memcpy(&old_word, l3 + AIF_IPV4_TTL_OFF, sizeof(old_word));
		new_word = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(old_word) - 0x100));
		memcpy(l3 + AIF_IPV4_TTL_OFF, &new_word, sizeof(new_word));
		memcpy(&csum, l3 + AIF_IPV4_CSUM_OFF, sizeof(csum));
		csum = aif_csum_update16(csum, old_word, new_word);
		memcpy(l3 + AIF_IPV4_CSUM_OFF, &csum, sizeof(csum));
	} else if (m->kind == AIF_PKT_IPV6) {
		l3[AIF_IPV6_HLIM_OFF]--;
	}
}

/* Full IPv4 header checksum over ihl_bytes (network order result). */
uint16_t aif_ipv4_csum(const uint8_t *hdr, unsigned ihl_bytes);

#endif /* AIF_REWRITE_H */
