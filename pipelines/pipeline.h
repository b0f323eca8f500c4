/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the stages of an L3 switch are put together, for one RX burst:
 *
 *   parse -> (ARP / ND / MAC control: arp_nd.c, consumed)
 *         -> L2 check (frame addressed to the port's MAC)
 *         -> classify (tc)
 *         -> route (rte_fib / rte_fib6 bulk lookup, or a fabric's lpm.h)
 *         -> local (ICMP echo) | TTL check (expired: ICMP time exceeded
 *            back, icmp_error.c) -> flow hash -> lb (member)
 *         -> neighbour (MAC, port) -> MTU and link checks
 *         -> rewrite (MACs, TTL, IPv4 checksum) -> verdict: ROUTE to the egress port
 *
 * Every dropped packet is counted once, by reason, on its ingress port.
 * The runtime (dataplane/runner.c) acts on the verdicts.
 */
#ifndef AIF_PIPELINE_H
#define AIF_PIPELINE_H

#include <stdint.h>

#include "../dataplane/tables.h"
#include "fwd.h"

struct rte_mbuf;

/*
 * Run the stages on a burst of n packets received on in_port at now_ns:
 * every packet gets its verdict in o (o->next[i], fwd.h), and o lists the
 * frames the stages built.  Counts received packets and drops (by reason)
 * on in_port.  Sends and frees nothing: the caller moves the packets.
 */
void aif_pipeline_run(struct aif_fwd *f, const struct aif_tables *t, uint16_t in_port,
		      struct rte_mbuf **pkts, uint16_t n, aif_time_ns now_ns,
		      struct aif_fwd_out *o);

#endif /* AIF_PIPELINE_H */
