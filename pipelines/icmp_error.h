/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: ICMP time exceeded, what traceroute reads, and packet too big, what
 * path MTU discovery reads.
 *
 * A routed packet whose TTL (hop limit) would reach 0 here is dropped
 * (ttl_expired, by the route stage) and its sender told: ICMP type 11 code
 * 0 (RFC 792) or ICMPv6 type 3 code 0 (RFC 4443), quoting the packet as it
 * arrived, from its IP header on, as much as keeps the message within 576
 * bytes (IPv4, RFC 1812 4.3.2.3) or 1280 bytes (IPv6), and within the
 * port's MTU.  The message leaves by the port the packet came in by, to the
 * MAC it came from (the previous hop, which routes it back to the sender;
 * on a point-to-point fabric link or a host port that is the way back), in
 * a frame of its own (the port's VLAN tag, PCP 0).  Its source is the
 * ingress port's address, the one on the sender's subnet when there is one
 * (as Linux, with symmetric routes: the address traceroute prints for this
 * hop), else the port's first of that family, else the switch's first;
 * IPv4: TOS 0xc0 (network control), TTL 64, ID 0; IPv6: hop limit 64.
 *
 * A routed packet larger than its egress port's MTU is dropped
 * (mtu_exceeded: the switch does not fragment) and, an IPv6 one or an IPv4
 * one with DF set, its sender told the MTU: ICMP type 3 code 4
 * (fragmentation needed, the next-hop MTU in its last 2 header bytes, RFC
 * 1191) or ICMPv6 type 2 (packet too big, the MTU in 4 bytes, RFC 4443),
 * sent as above.
 *
 * Never about an ICMP error (IPv4 types 3, 4, 5, 11, 12; ICMPv6 types
 * below 128), an IPv4 fragment other than the first, or a sender that is
 * not a unicast host address (0.0.0.0, 127/8, 224/4 and up; ::, ff00::/8)
 * or a destination that is group-addressed.
 *
 * Rate: at most AIF_ICMP_ERR_RATE_PPS messages per second per ingress port
 * (per worker), bursts of AIF_ICMP_ERR_BURST, as Linux's icmp_msgs_per_sec
 * and icmp_msgs_burst; one over it is not sent and counted.
 *
 * Reads:  pkt kind, l3_off, l3_len, l4_proto, l4_off, src, dst, in_port;
 *         the port's MAC, addresses, MTU and tag (struct aif_port_l3).
 * Writes: a frame built into the burst's output (fwd.h), at most one per
 *         packet.
 * Counters (ingress port): icmp_time_exceeded, icmp_too_big (sent),
 *         icmp_ratelimited (not sent: over the rate).
 */
#ifndef AIF_ICMP_ERROR_H
#define AIF_ICMP_ERROR_H

#include "../dataplane/pkt.h"
#include "../dataplane/tables.h"
#include "fwd.h"

struct rte_mbuf;

#define AIF_ICMP_ERR_RATE_PPS 1000
#define AIF_ICMP_ERR_BURST 50
#define AIF_ICMP4_ERR_MAX_BYTES 576  /* IP packet: RFC 1812 */
#define AIF_ICMP6_ERR_MAX_BYTES 1280 /* IPv6 minimum MTU: RFC 4443 */

/* mb (metadata m, as received on m->in_port) ran out of TTL here: tell its
 * sender, in a frame built into o (nothing when ineligible, over the rate,
 * or out of mbufs).  The caller drops mb. */
void aif_icmp_time_exceeded(struct aif_fwd *f, const struct aif_tables *t,
			    const struct rte_mbuf *mb, const struct aif_pkt *m,
			    aif_time_ns now_ns, struct aif_fwd_out *o);

/* mb (metadata m) is larger than the egress port's mtu: tell its sender
 * that MTU when it is IPv6 or IPv4 with DF set, as above.  The caller drops
 * mb. */
void aif_icmp_too_big(struct aif_fwd *f, const struct aif_tables *t, const struct rte_mbuf *mb,
		      const struct aif_pkt *m, uint32_t mtu, aif_time_ns now_ns,
		      struct aif_fwd_out *o);

#endif /* AIF_ICMP_ERROR_H */
