/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: rewrite (routed packets).  The contract and the per-packet code
 * (inline) are in rewrite.h; the full checksum is here.
 *
 * The egress port decides the 802.1Q tag: none (a tag that came in is
 * removed), or its VID with PCP = traffic class (inserted, or the TCI
 * rewritten).  MACs are overwritten.  IPv4:
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

static inline uint32_t
fold16(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum;
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
