/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header field offsets and the Internet checksum update that the stages
 * which rewrite headers (rewrite, ECN marking, trimming) share.
 */
#ifndef AIF_CKSUM_H
#define AIF_CKSUM_H

#include <stdint.h>

#define AIF_ETH_ALEN 6
#define AIF_ETH_TYPE_OFF 12    /* EtherType, or the TPID of a tag */
#define AIF_VLAN_TCI_OFF 14
#define AIF_VLAN_HLEN 4
#define AIF_VLAN_PCP_SHIFT 13
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

#endif /* AIF_CKSUM_H */
