/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology generators: a config's "topology" object becomes its
 * "switches", "links" and "hosts", with every route and next-hop group
 * computed, so nobody writes routes for a generated fabric.
 *
 *   "topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 1,
 *                               "host_gbps": 100, "uplink_gbps": 100,
 *                               "delay_ns": 1000, "policy": "default",
 *                               "host_devices": ["net_pcap0", ...]}}
 *   host_devices[n]: "net_af_packet0", or {"device": "net_af_packet0",
 *                    "mac": "02:42:0a:00:00:02", "ip": "10.0.0.9"}
 *
 * Names: leaf<i> with host ports h<j> and uplinks u<k>, spine<k> with
 * downlinks d<i>; host <leaf>-<j> (e.g. "leaf3-0").  Addresses: host j of
 * leaf i is 10.<i>.<j>.2 behind the leaf's 10.<i>.<j>.1/24 (leaves and
 * hosts per leaf up to 256); the link from leaf i to spine k is a /31 in
 * 172.16.0.0/12 (leaf even, spine odd), each side a static neighbour of the
 * other.  Switch ports' MACs are 02:1f:<switch hi>:<switch lo>:<port>:00.
 * Host ports take host_devices[i * hosts_per_leaf + j] as their device when
 * given; fabric ports are link ends.  A host on a port with a device is a
 * real one: the switch learns its MAC from its ARP/ND (the host has no
 * "mac"), unless host_devices gives it: {"device", "mac", "ip"}, "ip"
 * another address in the port's /24.  Emulated hosts (no device, or a
 * net_pcap device, whose capture file answers no ARP) get
 * 02:0a:<switch hi>:<switch lo>:<port>:02.
 *
 * Split over daemons: "emulate": ["leaf0", ...] makes only those switches
 * (their ports, routes, hosts, the links between two of them); routes,
 * MACs and seeds stay the whole fabric's, so that daemons given the same
 * generator with other switches agree.  A link with one end here and the
 * other elsewhere is cut: its end here is a DPDK port, the device
 * "link_devices": {"leaf0:u1": "net_af_packet0"} names, which every cut
 * link must have; host_devices still count every host port of the fabric
 * (those elsewhere are checked, not used).
 *
 * Routes: all shortest paths.  For every switch and every host subnet on
 * another switch, the next hops are the neighbours one hop closer to it
 * (breadth-first over the links); switches with the same set of next hops
 * share one group (ECMP over it, the policy's scheme), named after the
 * neighbours ("via-spine0-spine1").  A switch's routes are those
 * subnets' /24s with siblings that share a group merged (prefix_agg.h:
 * leaf i's hosts 10.<i>.0.0/24 .. 10.<i>.15.0/24, one /20 on a spine; a
 * fat-tree's pod one prefix or a few on a core): exactly the addresses they
 * held, the same lookup for each, some tens of routes a switch where a
 * k=28 fat-tree would have had 5,488.  The generators only write JSON: the
 * config reader checks the result as it checks a file.
 */
#ifndef AIF_TOPOLOGY_H
#define AIF_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/*
 * If root has "topology", replace it with the "switches", "links" and
 * "hosts" it describes (which root must not have).  0 (also when there is
 * no topology), or -1 with err naming the JSON path and the reason.
 */
int aif_topology_expand(json_t *root, char *err, size_t err_len);

/* A "topology" object that makes part of its fabric ("emulate"): the
 * rest runs elsewhere, behind its cut links' devices. */
bool aif_topology_split(const json_t *topo);

#endif /* AIF_TOPOLOGY_H */
