/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: rewrite (routed packets).
 *
 * Reads:  pkt->kind, flags (VLAN), tc, l3_off, l4_off; the egress port's
 *         MAC and tagging (struct aif_port_l3); the next hop MAC.
 * Writes: the 802.1Q tag as the egress port wants it (none, or the port's
 *         VID with PCP = pkt->tc), destination and source MAC; IPv4 TTL - 1
 *         with the header checksum updated incrementally (RFC 1624); IPv6
 *         hop limit - 1.  When the tag is removed or inserted the frame
 *         starts 4 bytes later or earlier in the mbuf (rte_pktmbuf_adj /
 *         _prepend: the EtherType and everything after it stay where they
 *         are), and pkt->l3_off, l4_off, flags, vlan_id and pcp are updated
 *         to describe the frame as sent: egress QoS (ECN at dequeue,
 *         trimming) reads them.
 * Never touches the UDP header or payload: the RoCEv2 ICRC masks TTL, TOS
 * and the IPv4 checksum and does not cover the Ethernet header, so a routed
 * RoCE packet keeps a valid ICRC, tagged or not.
 * The caller has already checked the TTL (> 1).
 * Counters: none; the caller drops (mbuf_too_small) what cannot be tagged.
 */
#ifndef AIF_REWRITE_H
#define AIF_REWRITE_H

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "../dataplane/cksum.h"
#include "../dataplane/pkt.h"
#include "../dataplane/tables.h"

/*
 * MACs, TTL and checksum of a frame whose tag is already as it leaves
 * (m->l3_off says where its L3 header is); the tag and EtherType are not
 * touched.  Per packet, so inline.
 */
static inline void
aif_rewrite_inplace(uint8_t *frame, const struct aif_pkt *m,
		    const struct aif_mac *src, const struct aif_mac *dst)
{
	uint8_t *l3 = frame + m->l3_off;
	uint16_t old_word, new_word, csum;

	memcpy(frame, dst->b, AIF_ETH_ALEN);
	memcpy(frame + AIF_ETH_ALEN, src->b, AIF_ETH_ALEN);

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

/*
 * Make the frame's 802.1Q tag what port out wants: remove it, insert one,
 * or rewrite the TCI.  Only for frames tagged on arrival or leaving a tagged
 * port.  Returns the new start of the frame, or NULL (nothing changed) when
 * the mbuf has no headroom for a tag.
 */
static inline uint8_t *
aif_rewrite_tag(struct rte_mbuf *mb, struct aif_pkt *m, const struct aif_port_l3 *out)
{
	uint8_t *frame;
	uint16_t tci;

	if (!out->tagged) {
		/* tagged in, untagged out: the MACs move up over the tag; the
		 * inner EtherType is then at offset 12.  Cannot fail: the parser
		 * saw at least an Ethernet header, a tag and an IP header. */
		frame = (uint8_t *)rte_pktmbuf_adj(mb, AIF_VLAN_HLEN);
		m->l3_off -= AIF_VLAN_HLEN;
		if (m->l4_off != 0)
			m->l4_off -= AIF_VLAN_HLEN;
		m->flags &= (uint8_t)~AIF_PKT_F_VLAN;
		m->vlan_id = 0;
		m->pcp = 0;
		return frame;
	}
	if (!(m->flags & AIF_PKT_F_VLAN)) {
		/* untagged in, tagged out: 4 bytes in front; the EtherType that
		 * was at offset 12 is now at 16, after the tag */
		frame = (uint8_t *)rte_pktmbuf_prepend(mb, AIF_VLAN_HLEN);
		if (unlikely(frame == NULL))
			return NULL;
		frame[AIF_ETH_TYPE_OFF] = AIF_ETHERTYPE_VLAN >> 8;
		frame[AIF_ETH_TYPE_OFF + 1] = AIF_ETHERTYPE_VLAN & 0xff;
		m->l3_off += AIF_VLAN_HLEN;
		if (m->l4_off != 0)
			m->l4_off += AIF_VLAN_HLEN;
		m->flags |= AIF_PKT_F_VLAN;
	} else {
		frame = rte_pktmbuf_mtod(mb, uint8_t *);
	}
	/* PCP from the traffic class (DEI 0), VID of the egress port */
	tci = (uint16_t)((m->tc & 7) << AIF_VLAN_PCP_SHIFT | out->vlan_id);
	frame[AIF_VLAN_TCI_OFF] = (uint8_t)(tci >> 8);
	frame[AIF_VLAN_TCI_OFF + 1] = (uint8_t)tci;
	m->vlan_id = out->vlan_id;
	m->pcp = m->tc & 7;
	return frame;
}

/*
 * Rewrite a routed frame for its egress port out and next hop dst.
 * Returns 0, or -1 (nothing changed; drop it as mbuf_too_small) when a tag
 * must be inserted and the mbuf has no headroom for it.
 *
 * Untagged in and untagged out, the common case, costs one predictable
 * branch over the in-place rewrite: the OR of the packet's VLAN flag and the
 * port's tagged byte.
 */
static inline int
aif_rewrite_routed(struct rte_mbuf *mb, struct aif_pkt *m,
		   const struct aif_port_l3 *out, const struct aif_mac *dst)
{
	uint8_t *frame;

	if (unlikely(((m->flags & AIF_PKT_F_VLAN) | out->tagged) != 0)) {
		frame = aif_rewrite_tag(mb, m, out);
		if (unlikely(frame == NULL))
			return -1;
	} else {
		frame = rte_pktmbuf_mtod(mb, uint8_t *);
	}
	aif_rewrite_inplace(frame, m, &out->mac, dst);
	return 0;
}

/* Full IPv4 header checksum over ihl_bytes (network order result). */
uint16_t aif_ipv4_csum(const uint8_t *hdr, unsigned ihl_bytes);

#endif /* AIF_REWRITE_H */
