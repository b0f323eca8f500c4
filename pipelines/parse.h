/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: parse.
 *
 * Reads:  the frame bytes.
 * Writes: every "written by parse" field of struct aif_pkt; zeroes the rest.
 * Knobs:  none.
 * Counters: none of its own; the caller counts the returned drop reason.
 *
 * Understands Ethernet II, one 802.1Q tag (PCP, VID), IPv4 (header checksum
 * verified, options skipped, fragments flagged), IPv6 (hop-by-hop, routing,
 * destination-options and fragment extension headers skipped), UDP, TCP,
 * ICMP/ICMPv6 (echo and neighbour discovery flagged), the RoCEv2 BTH
 * (UDP destination port 4791) and Ethernet/IPv4 ARP.  Bytes after the IP
 * packet's own length (Ethernet padding, or the trailing ICRC that belongs
 * to the UDP payload) are ignored.
 */
#ifndef AIF_PARSE_H
#define AIF_PARSE_H

#include <stdint.h>

#include "../dataplane/drop.h"
#include "../dataplane/pkt.h"

/*
 * Parse one frame of len bytes.  Returns AIF_DROP_NONE (0) when the frame
 * may go on (m->kind says where: IPv4, IPv6, ARP or MAC control), or the
 * reason it must be dropped (also stored in m->drop):
 * TRUNCATED when the frame ends before a header it announces, MALFORMED for
 * bad field values (IP version, IHL, total length smaller than the header,
 * IPv4 header checksum, ARP hardware/protocol types), UNSUPPORTED for other
 * EtherTypes or stacked VLAN tags.
 *
 *	struct aif_pkt m;
 *	enum aif_drop_reason r = aif_parse(rte_pktmbuf_mtod(mb, uint8_t *),
 *					   rte_pktmbuf_data_len(mb), &m);
 *	if (r != AIF_DROP_NONE)
 *		count_drop(r);
 */
enum aif_drop_reason aif_parse(const uint8_t *frame, uint32_t len, struct aif_pkt *m);

#endif /* AIF_PARSE_H */
