/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stage: the switch's own neighbour protocol and ping.
 *
 * ARP (IPv4) and neighbour discovery (IPv6): answer requests/solicitations
 * for the switch's interface addresses (and, with proxy_arp, for routed
 * destinations reached through another port); report senders to control
 * through the learn ring, at most the switch's neighbor_learning rate_pps
 * per port (bursts of burst), marked "create" when the frame was for the
 * switch (other hosts are only refreshed: neigh.h); solicit unknown and
 * stale next hops, at most once per AIF_ARP_RL_NS per hash bucket, tagged
 * as the port is (its "vlan", PCP 0; answers keep the request's tag).
 * ICMP/ICMPv6 echo requests to an interface address are answered.  BFD
 * control packets (UDP to port 3784) to a port that runs a BFD session
 * (tables.h bfd) go to control through the switch's bfd_rx ring with their
 * source, TTL and first 24 bytes (bfd.h aif_bfd_heard); control's sessions
 * judge them.  Every
 * input function gives its packet a verdict (fwd.h): REPLY (answered in
 * place, back out of the port), CONSUMED (learned from, nothing to say),
 * or DROP.
 * Counters: arp_rx/arp_tx, nd_rx/nd_tx, icmp_echo_replies,
 * learn_ratelimited, learn_ring_full (a learn event lost: control had not
 * emptied the ring; the host's next ARP/ND retries), bfd_rx and
 * bfd_ring_full (heard, and of those lost the same way); drops "malformed" (bad
 * ND) and "to_switch" (other traffic to the switch).
 */
#ifndef AIF_ARP_ND_H
#define AIF_ARP_ND_H

#include <stdint.h>

#include "../dataplane/pkt.h"
#include "../dataplane/tables.h"
#include "fwd.h"

struct rte_mbuf;

/* Packet i of the burst, an ARP frame received on port: verdict in o. */
void aif_arp_input(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
		   struct rte_mbuf *mb, const struct aif_pkt *m, aif_time_ns now_ns,
		   struct aif_fwd_out *o, uint16_t i);
/* Packet i, an ICMPv6 neighbour solicitation or advertisement. */
void aif_nd_input(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
		  struct rte_mbuf *mb, const struct aif_pkt *m, aif_time_ns now_ns,
		  struct aif_fwd_out *o, uint16_t i);
/* Packet i, routed to one of the switch's own addresses. */
void aif_local_input(struct aif_fwd *f, const struct aif_tables *t, uint16_t port,
		     struct rte_mbuf *mb, const struct aif_pkt *m, struct aif_fwd_out *o,
		     uint16_t i);
/* Ask for target's MAC on port (ARP request or neighbour solicitation): a
 * frame built into o (at most one per packet of the burst). */
void aif_neigh_solicit(struct aif_fwd *f, const struct aif_tables *t,
		       uint16_t port, const struct aif_ip *target, aif_time_ns now_ns,
		       struct aif_fwd_out *o);

#endif /* AIF_ARP_ND_H */
