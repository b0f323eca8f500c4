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
 * ICMP/ICMPv6 echo requests to an interface address are answered.  Every
 * function here consumes the mbuf (answers in place, or frees it).
 * Counters: arp_rx/arp_tx, nd_rx/nd_tx, icmp_echo_replies,
 * learn_ratelimited; drops "malformed" (bad ND) and "to_switch" (other
 * traffic to the switch).
 */
#ifndef AIF_ARP_ND_H
#define AIF_ARP_ND_H

#include <stdint.h>

#include "../dataplane/pkt.h"
#include "../dataplane/tables.h"

struct rte_mbuf;
struct aif_worker;

void aif_arp_input(struct aif_worker *w, const struct aif_tables *t,
		   uint16_t port, struct rte_mbuf *mb, const struct aif_pkt *m);
void aif_nd_input(struct aif_worker *w, const struct aif_tables *t,
		  uint16_t port, struct rte_mbuf *mb, const struct aif_pkt *m);
/* A packet routed to one of the switch's own addresses. */
void aif_local_input(struct aif_worker *w, const struct aif_tables *t,
		     uint16_t port, struct rte_mbuf *mb, const struct aif_pkt *m);
/* Ask for target's MAC on port (ARP request or neighbour solicitation). */
void aif_neigh_solicit(struct aif_worker *w, const struct aif_tables *t,
		       uint16_t port, const struct aif_ip *target);

#endif /* AIF_ARP_ND_H */
