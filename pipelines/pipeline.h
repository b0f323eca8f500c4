/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the stages of an L3 switch are put together, for one RX burst:
 *
 *   parse -> (ARP / ND / MAC control: arp_nd.c, consumed)
 *         -> L2 check (frame addressed to the port's MAC)
 *         -> classify (tc)
 *         -> route (rte_fib / rte_fib6 bulk lookup)
 *         -> local (ICMP echo) | TTL check -> flow hash -> lb (member)
 *         -> neighbour (MAC, port) -> MTU and link checks
 *         -> rewrite (MACs, TTL, IPv4 checksum) -> TX buffer of the egress port
 *
 * Every dropped packet is counted once, by reason, on its ingress port.
 */
#ifndef AIF_PIPELINE_H
#define AIF_PIPELINE_H

#include <stdint.h>

struct rte_mbuf;
struct aif_worker;
struct aif_tables;

void aif_pipeline_run(struct aif_worker *w, const struct aif_tables *t,
		      uint16_t in_port, struct rte_mbuf **pkts, uint16_t n);

#endif /* AIF_PIPELINE_H */
