/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: rewrite (routed packets).  The contract is in rewrite.h.
 *
 * MACs are overwritten; the 802.1Q tag, if any, is left as it is.  IPv4:
 * TTL - 1 and the header checksum patched with RFC 1624 eqn. 3 on the
 * TTL/protocol word, HC' = ~(~HC + ~m + m'), which (unlike eqn. 2) never
 * turns a checksum that should be 0x0000 into 0xffff.  IPv6: hop limit - 1.
 *
 * Checksums are handled as the 16-bit values read from memory (memcpy, no
 * byte swap): one's complement sums do not depend on byte order, so the
 * result stored back with memcpy is right on any host.
 */
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rewrite.h"

#define IPV4_TTL_OFF 8
#define IPV4_CSUM_OFF 10
#define IPV6_HLIM_OFF 7

static inline uint32_t
fold16(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static inline uint16_t
csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~csum;

	sum += (uint16_t)~old_word;
	sum += new_word;
	return (uint16_t)~fold16(sum);
}

uint16_t
aif_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	return csum_update16(csum, old_word, new_word);
}

uint16_t
aif_ipv4_csum(const uint8_t *hdr, unsigned ihl_bytes)
{
	uint32_t sum = 0;
	uint16_t w;
	unsigned i;

	for (i = 0; i + 1 < ihl_bytes; i += 2) {
		memcpy(&w, hdr + i, sizeof(w));
		sum += w;
	}
	if (ihl_bytes & 1) { /* pad with a zero byte, in memory order */
		w = 0;
		memcpy(&w, hdr + i, 1);
		sum += w;
	}
	return (uint16_t)~fold16(sum);
}

void
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
		memcpy(&old_word, l3 + IPV4_TTL_OFF, sizeof(old_word));
		new_word = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(old_word) - 0x100));
		memcpy(l3 + IPV4_TTL_OFF, &new_word, sizeof(new_word));
		memcpy(&csum, l3 + IPV4_CSUM_OFF, sizeof(csum));
		csum = csum_update16(csum, old_word, new_word);
		memcpy(l3 + IPV4_CSUM_OFF, &csum, sizeof(csum));
	} else if (m->kind == AIF_PKT_IPV6) {
		l3[IPV6_HLIM_OFF]--;
	}
}
