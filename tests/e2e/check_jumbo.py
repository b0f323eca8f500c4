#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Check what aifabric did with the jumbo traffic (gen_traffic.py --kind jumbo),
independently of its code.

  check_jumbo.py --manifest M.json --in IN.pcap --out p1=OUT1.pcap ...
                 --stats STATS.json --config CFG.json [--all-over-mtu]

Forwarded frames are matched by their tag (b"AIFT" + index) and checked with
scapy: egress port and MACs from the config's routes and neighbours, the
802.1Q tag the egress port's "vlan" calls for (none, or its VID with PCP 3,
the class of DSCP 26), TTL / hop limit - 1, the IPv4 header checksum
(scapy recomputes it), the RoCE ICRC (scapy.contrib.roce rebuilds it for
IPv4; our own CRC for both families), every other byte of the IP packet as
sent.  The over-MTU frames (and with --all-over-mtu, every frame: the ports
are at the default MTU) must be dropped and counted as mtu_exceeded, never
as truncated.  Prints one PASS/FAIL line per check; exits 1 on any failure.
Run with Debian's /usr/bin/python3 (python3-scapy).
"""

import argparse
import collections
import ipaddress
import json
import os
import sys

from scapy.all import Ether, IP, Dot1Q
from scapy.contrib.roce import BTH

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_output import Report, examples, find_tag, mac_str, read_pcap, roce_icrc  # noqa: E402

PCP_ROCE = 3        # DSCP 26 -> TC 3 (default policy) -> PCP 3


def l2_len(frame):
    return 18 if frame[12:14] == b"\x81\x00" else 14


class Topology:
    """Routes with a single next hop, neighbours and port tagging."""

    def __init__(self, cfg):
        sw = cfg["switches"][0]
        self.port_mac = {p["name"]: p["mac"].lower() for p in sw["ports"]}
        self.port_vlan = {p["name"]: p.get("vlan") for p in sw["ports"]}
        self.neigh = {ipaddress.ip_address(n["ip"]): n["mac"].lower()
                      for n in sw.get("neighbors", [])}
        self.routes = [(ipaddress.ip_network(r["prefix"]), r["nexthop"])
                       for r in sw.get("routes", []) if "nexthop" in r]

    def egress(self, dst):
        """-> (port, next hop MAC) of the longest matching route, or None."""
        a = ipaddress.ip_address(dst)
        best = None
        for net, nh in self.routes:
            if a.version == net.version and a in net and (
                    best is None or net.prefixlen > best[0].prefixlen):
                best = (net, nh)
        if best is None:
            return None
        return best[1]["port"], self.neigh[ipaddress.ip_address(best[1]["ip"])]


def check_frame(e, inb, port, out, topo):
    """Problems with one forwarded frame, as strings."""
    bad = []
    want_port, want_dmac = topo.egress(e["dst"])
    if port != want_port:
        return ["left %s, expected %s" % (port, want_port)]
    if mac_str(out[0:6]) != want_dmac:
        bad.append("dst MAC %s, expected %s" % (mac_str(out[0:6]), want_dmac))
    if mac_str(out[6:12]) != topo.port_mac[port]:
        bad.append("src MAC %s, expected %s" % (mac_str(out[6:12]), topo.port_mac[port]))
    vid = topo.port_vlan[port]
    pout = Ether(out)
    if vid is None:
        if Dot1Q in pout:
            bad.append("tagged VID %d PCP %d, port %s has no vlan" %
                       (pout[Dot1Q].vlan, pout[Dot1Q].prio, port))
    elif Dot1Q not in pout:
        bad.append("untagged, port %s has vlan %d" % (port, vid))
    elif (pout[Dot1Q].vlan, pout[Dot1Q].prio, pout[Dot1Q].id) != (vid, PCP_ROCE, 0):
        bad.append("tag VID %d PCP %d DEI %d, expected VID %d PCP %d DEI 0" %
                   (pout[Dot1Q].vlan, pout[Dot1Q].prio, pout[Dot1Q].id, vid, PCP_ROCE))
    ip_in, ip_out = inb[l2_len(inb):], out[l2_len(out):]
    if len(ip_out) != len(ip_in):
        return bad + ["IP part %d bytes, sent %d" % (len(ip_out), len(ip_in))]
    if out[l2_len(out) - 2:l2_len(out)] != inb[l2_len(inb) - 2:l2_len(inb)]:
        bad.append("EtherType %s, sent %s" % (out[l2_len(out) - 2:l2_len(out)].hex(),
                                              inb[l2_len(inb) - 2:l2_len(inb)].hex()))
    if e["family"] == 4:
        ttl, masked = 8, (8, 10, 11)
        c = pout[IP].chksum
        q = pout.copy()
        del q[IP].chksum
        if Ether(bytes(q))[IP].chksum != c:
            bad.append("IPv4 header checksum 0x%04x invalid" % c)
        # scapy rebuilds the ICRC from the frame as it left
        r = Ether(out)
        del r[BTH].icrc
        if bytes(r) != out:
            bad.append("ICRC %s, scapy computes %s" % (out[-4:].hex(), bytes(r)[-4:].hex()))
    else:
        ttl, masked = 7, (7,)
    if ip_out[ttl] != ip_in[ttl] - 1:
        bad.append("TTL/hop limit %d, sent %d" % (ip_out[ttl], ip_in[ttl]))
    diff = [k for k in range(len(ip_out)) if ip_out[k] != ip_in[k] and k not in masked]
    if diff:
        bad.append("IP packet bytes differ at offsets %s" % diff[:8])
    if BTH not in pout:
        bad.append("no BTH")
    elif roce_icrc(ip_out) != ip_out[-4:]:
        bad.append("ICRC %s, expected %s" % (ip_out[-4:].hex(), roce_icrc(ip_out).hex()))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", nargs="+", required=True, metavar="PORT=PCAP")
    ap.add_argument("--stats", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--all-over-mtu", action="store_true",
                    help="the ports have the default MTU: every frame is too long")
    args = ap.parse_args()

    rep = Report()
    man = json.load(open(args.manifest))
    topo = Topology(json.load(open(args.config)))
    inputs = read_pcap(args.inp)
    frames_m = man["frames"]
    rep.check("input pcap matches the manifest (%d frames, lengths %s)" %
              (len(inputs), man["frame_lens"]),
              len(inputs) == len(frames_m) and
              all(find_tag(f) == i for i, f in enumerate(inputs)))

    outs = {}
    for spec in args.out:
        port, _, path = spec.partition("=")
        outs[port] = read_pcap(path) if os.path.exists(path) else []
    print("INFO: frames per output: " +
          ", ".join("%s=%d" % (p, len(v)) for p, v in sorted(outs.items())))
    seen = collections.defaultdict(list)
    for port, frames in outs.items():
        for f in frames:
            seen[find_tag(f)].append((port, f))

    if args.all_over_mtu:
        for e in frames_m:
            e["expect"], e["reason"] = "drop", "mtu_exceeded"
    fwd = [e for e in frames_m if e["expect"] == "forward"]
    dropped = [e for e in frames_m if e["expect"] == "drop"]
    missing, dup, bad = [], [], []
    per_class = collections.Counter()
    for e in fwd:
        got = seen.get(e["i"], [])
        if not got:
            missing.append("#%d %s" % (e["i"], e["class"]))
            continue
        if len(got) > 1:
            dup.append("#%d seen %d times" % (e["i"], len(got)))
        port, out = got[0]
        per_class[e["class"]] += 1
        for b in check_frame(e, inputs[e["i"]], port, out, topo):
            bad.append("#%d %s (%d bytes): %s" % (e["i"], e["class"], e["len"], b))
    if fwd:
        print("INFO: forwarded per class: " +
              ", ".join("%s=%d" % kv for kv in sorted(per_class.items())))
    rep.check("every jumbo frame forwarded (%d)" % len(fwd), not missing, examples(missing))
    rep.check("none forwarded twice", not dup, examples(dup))
    rep.check("port, MACs, 802.1Q tag of the egress port, TTL - 1, IPv4 checksum, "
              "ICRC valid, the rest of the IP packet unchanged", not bad, examples(bad))
    leaked = ["#%d %s (%d bytes)" % (e["i"], e["class"], e["len"])
              for e in dropped if seen.get(e["i"])]
    rep.check("no over-MTU frame forwarded (%d)" % len(dropped), not leaked,
              examples(leaked))
    unknown = [len(f) for port, frames in outs.items() for f in frames
               if find_tag(f) is None or find_tag(f) >= len(frames_m)]
    rep.check("no unexpected frames on the outputs", not unknown, examples(unknown))

    stats = json.load(open(args.stats))
    want = {"mtu_exceeded": len(dropped)}
    drops = {k: v for k, v in stats["drops"].items() if v}
    rep.check("drops: mtu_exceeded = %d, nothing else (truncated 0)" % len(dropped),
              drops == {k: v for k, v in want.items() if v},
              "stats: %s" % (drops or "none"))
    sports = {p["name"]: p for p in stats["ports"]}
    rx = sports["p0"]["rx_packets"]
    rep.check("p0 rx_packets = frames sent (%d)" % len(inputs), rx == len(inputs),
              "rx_packets=%s" % rx)
    txd = ["%s tx_packets=%s, pcap has %d" % (p, sports[p]["tx_packets"], len(f))
           for p, f in sorted(outs.items()) if sports[p]["tx_packets"] != len(f)]
    rep.check("tx_packets per port = frames in its pcap", not txd, examples(txd))

    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
