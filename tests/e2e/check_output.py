#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Check what aifabric did with the e2e traffic, independently of its code.

  check_output.py --manifest M.json --in IN.pcap
                  --out p0=OUT0.pcap p1=OUT1.pcap ... --stats STATS.json
                  --config CFG.json

Frames are matched by the tag gen_traffic.py put in each payload
(b"AIFT" + frame index).  A frame whose TTL ran out comes back to its sender
as an ICMP / ICMPv6 time exceeded quoting it: dissected by scapy, its
checksums recomputed by scapy, its addresses and quote compared.  The expected egress and MACs come from the config
(hosts, routes, next-hop groups, neighbours), evaluated here.  Prints one
PASS/FAIL line per check, ends with "N passed, M failed"; exits 1 on any
failure.  Run with Debian's /usr/bin/python3 (python3-scapy).
"""

import argparse
import collections
import ipaddress
import json
import os
import struct
import sys
import zlib

from scapy.all import Ether, IP, IPv6, ICMP, UDP, TCP, RawPcapReader
from scapy.layers.inet6 import ICMPv6TimeExceeded
from scapy.contrib.roce import BTH

TAG = b"AIFT"
MAX_EXAMPLES = 5
ECMP_MIN, ECMP_MAX = 0.20, 0.47


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        line = "%s: %s" % ("PASS" if ok else "FAIL", name)
        if detail:
            line += " -- " + detail
        print(line, flush=True)
        return ok


def examples(items):
    items = list(items)
    s = "; ".join(str(x) for x in items[:MAX_EXAMPLES])
    if len(items) > MAX_EXAMPLES:
        s += "; ... (%d in all)" % len(items)
    return s


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def read_pcap(path):
    return [bytes(pkt) for pkt, _meta in RawPcapReader(path)]


def find_tag(frame):
    pos = frame.find(TAG)
    if pos < 0 or pos + 8 > len(frame):
        return None
    return struct.unpack("!I", frame[pos + 4:pos + 8])[0]


def time_exceeded(frame):
    """(scapy packet, the bytes it quotes) when frame is an ICMP time
    exceeded (IPv4 type 11) or ICMPv6 time exceeded (type 3), else None."""
    p = Ether(frame)
    if ICMP in p and p[ICMP].type == 11:
        return p, bytes(p[ICMP].payload)
    if ICMPv6TimeExceeded in p:
        return p, bytes(p[ICMPv6TimeExceeded].payload)
    return None


def checksum_ok(p, layer, field):
    """Whether p's layer has the checksum scapy computes for it."""
    q = p.copy()
    setattr(q[layer], field, None)
    return getattr(Ether(bytes(q))[layer], field) == getattr(p[layer], field)


def ip_of(frame):
    """The IP packet in an Ethernet frame (one 802.1Q tag skipped)."""
    off = 18 if frame[12:14] == b"\x81\x00" else 14
    return frame[off:]


def roce_icrc(l3):
    """Our own ICRC (RoCEv2 Annex A17.4): IPv4 TOS/TTL/checksum or IPv6
    traffic class/flow label/hop limit, the UDP checksum and the BTH
    FECN/BECN/reserved byte masked to ones; 8 bytes of ones for the LRH."""
    b = bytearray(l3)
    if b[0] >> 4 == 4:
        end, udp = struct.unpack("!H", b[2:4])[0], (b[0] & 0x0F) * 4
        b[1], b[8], b[10:12] = 0xFF, 0xFF, b"\xff\xff"
    else:
        end, udp = 40 + struct.unpack("!H", b[4:6])[0], 40
        b[0] |= 0x0F
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xFF
    b[udp + 6:udp + 8] = b"\xff\xff"
    b[udp + 12] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b[:end - 4])))


class Topology:
    """The parts of the config the checker needs, evaluated independently."""

    def __init__(self, cfg):
        sw = cfg["switches"][0]
        self.switch = sw["name"]
        self.port_mac = {p["name"]: p["mac"].lower() for p in sw["ports"]}
        self.neigh = {}
        for n in sw.get("neighbors", []):
            self.neigh[ipaddress.ip_address(n["ip"])] = (n["mac"].lower(),
                                                         n["port"])
        self.groups = {}
        for g in sw.get("nexthop_groups", []):
            self.groups[g["name"]] = [(m["ip"], m["port"]) for m in g["members"]]
        self.routes = []
        for r in sw.get("routes", []):
            self.routes.append((ipaddress.ip_network(r["prefix"]),
                                r.get("group"), r.get("action")))
        self.hosts = {}
        for h in cfg.get("hosts", []):
            if h.get("switch", self.switch) == self.switch:
                self.hosts[ipaddress.ip_address(h["ip"])] = (h["port"],
                                                             h["mac"].lower())

    def resolve(self, dst):
        """-> ("host", None, {port: {mac}}) | ("group", name, {port: {mac}})
        | ("drop", None, {}) | (None, None, {})"""
        a = ipaddress.ip_address(dst)
        if a in self.hosts:
            port, mac = self.hosts[a]
            return "host", None, {port: {mac}}
        best = None
        for net, group, action in self.routes:
            if a.version == net.version and a in net:
                if best is None or net.prefixlen > best[0].prefixlen:
                    best = (net, group, action)
        if best is None:
            return None, None, {}
        if best[2] == "drop" or not best[1]:
            return "drop", None, {}
        ports = collections.defaultdict(set)
        for ip, port in self.groups[best[1]]:
            mac, nport = self.neigh[ipaddress.ip_address(ip)]
            ports[port].add(mac)
        return "group", best[1], dict(ports)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", nargs="+", required=True, metavar="PORT=PCAP")
    ap.add_argument("--stats", required=True)
    ap.add_argument("--config", required=True)
    args = ap.parse_args()

    rep = Report()
    man = json.load(open(args.manifest))
    cfg = json.load(open(args.config))
    topo = Topology(cfg)
    frames_m = man["frames"]
    inputs = read_pcap(args.inp)

    rep.check("input pcap matches the manifest",
              len(inputs) == len(frames_m) == man["total"] and
              all(find_tag(f) == i for i, f in enumerate(inputs)),
              "%d frames in pcap, %d in manifest" % (len(inputs), len(frames_m)))

    # ---- read the outputs -------------------------------------------------
    outs = {}
    missing_files = []
    for spec in args.out:
        port, _, path = spec.partition("=")
        if not path:
            sys.exit("--out wants PORT=PCAP, got %r" % spec)
        if not os.path.exists(path):
            missing_files.append(path)
            outs[port] = []
            continue
        outs[port] = read_pcap(path)
    rep.check("output pcaps exist", not missing_files, examples(missing_files))
    print("INFO: frames per output: " +
          ", ".join("%s=%d" % (p, len(v)) for p, v in sorted(outs.items())))

    seen = collections.defaultdict(list)     # index -> [(port, bytes)]
    told = collections.defaultdict(list)     # index -> [(port, packet, quote)]
    unexpected = []
    for port, frames in outs.items():
        for k, f in enumerate(frames):
            te = time_exceeded(f)
            if te is not None and find_tag(te[1]) is not None:
                told[find_tag(te[1])].append((port, te[0], te[1]))
                continue
            idx = find_tag(f)
            if idx is None or idx >= len(frames_m):
                unexpected.append("%s#%d len %d" % (port, k, len(f)))
            else:
                seen[idx].append((port, f))

    fwd = [e for e in frames_m if e["expect"] == "forward"]
    dropped = [e for e in frames_m if e["expect"] == "drop"]

    # ---- per-frame checks -------------------------------------------------
    missing, dup, wrong_port, bad_dmac, bad_smac = [], [], [], [], []
    bad_ttl, bad_csum, bad_rest, bad_l4, bad_icrc, bad_icrc_own = \
        [], [], [], [], [], []
    resolved = {}
    flow_ports = collections.defaultdict(set)
    flow_info = {}
    group_port_count = collections.defaultdict(collections.Counter)
    n_roce = 0
    for e in fwd:
        i = e["i"]
        kind, group, ports = topo.resolve(e["dst"])
        resolved[i] = (kind, group)
        if kind not in ("host", "group"):
            wrong_port.append("#%d %s: config gives %s" % (i, e["dst"], kind))
            continue
        got = seen.get(i, [])
        if not got:
            missing.append("#%d %s %s" % (i, e["class"], e["dst"]))
            continue
        if len(got) > 1:
            dup.append("#%d seen %d times (%s)" %
                       (i, len(got), ",".join(p for p, _ in got)))
        port, out = got[0]
        inb = inputs[i]
        flow_ports[e["flow"]].add(port)
        flow_info[e["flow"]] = (e["class"], group)
        if group:
            group_port_count[group][port] += 1
        if port not in ports:
            wrong_port.append("#%d %s to %s went out %s, expected one of %s" %
                              (i, e["class"], e["dst"], port, sorted(ports)))
            continue
        if mac_str(out[0:6]) not in ports[port]:
            bad_dmac.append("#%d dst %s, expected %s" %
                            (i, mac_str(out[0:6]), sorted(ports[port])))
        if mac_str(out[6:12]) != topo.port_mac[port]:
            bad_smac.append("#%d src %s, expected %s (%s)" %
                            (i, mac_str(out[6:12]), topo.port_mac[port], port))
        # header fields, bytes
        if len(out) != len(inb):
            bad_rest.append("#%d length %d, sent %d" % (i, len(out), len(inb)))
            continue
        if e["family"] == 4:
            if out[22] != inb[22] - 1:
                bad_ttl.append("#%d TTL %d, sent %d" % (i, out[22], inb[22]))
            same = (out[12:22] == inb[12:22] and out[23] == inb[23] and
                    out[26:] == inb[26:])
            pkt = Ether(out)
            c = pkt[IP].chksum
            del pkt[IP].chksum
            if Ether(bytes(pkt))[IP].chksum != c:
                bad_csum.append("#%d checksum 0x%04x" % (i, c))
        else:
            if out[21] != inb[21] - 1:
                bad_ttl.append("#%d hop limit %d, sent %d" % (i, out[21], inb[21]))
            same = out[12:21] == inb[12:21] and out[22:] == inb[22:]
        if not same:
            allowed = (22, 24, 25) if e["family"] == 4 else (21,)
            diff = [k for k in range(12, len(out))
                    if out[k] != inb[k] and k not in allowed]
            bad_rest.append("#%d bytes differ at offsets %s" % (i, diff[:8]))
        pin, pout = Ether(inb), Ether(out)
        l4 = UDP if e["proto"] == 17 else TCP
        if (l4 not in pout or pout[l4].sport != pin[l4].sport or
                pout[l4].dport != pin[l4].dport or
                bytes(pout[l4].payload) != bytes(pin[l4].payload)):
            bad_l4.append("#%d %s" % (i, e["class"]))
        if e.get("roce"):
            n_roce += 1
            if BTH not in pout:
                bad_icrc.append("#%d no BTH" % i)
                continue
            if e["family"] == 4:
                q = Ether(out)
                del q[BTH].icrc
                if bytes(q) != out:
                    bad_icrc.append("#%d icrc %s, scapy computes %s" %
                                    (i, out[-4:].hex(), bytes(q)[-4:].hex()))
            if roce_icrc(out[14:]) != out[-4:]:
                bad_icrc_own.append("#%d icrc %s, expected %s" %
                                    (i, out[-4:].hex(), roce_icrc(out[14:]).hex()))

    rep.check("every forwarded frame appears on an output (%d)" % len(fwd),
              not missing, examples(missing))
    rep.check("no forwarded frame appears more than once", not dup, examples(dup))
    rep.check("frames leave on the expected port (h0 -> p0, routes -> group)",
              not wrong_port, examples(wrong_port))
    rep.check("dst MAC = next hop / host MAC of the egress port", not bad_dmac,
              examples(bad_dmac))
    rep.check("src MAC = egress port MAC", not bad_smac, examples(bad_smac))
    rep.check("TTL / hop limit decremented by exactly 1", not bad_ttl,
              examples(bad_ttl))
    rep.check("IPv4 header checksum valid (scapy recompute)", not bad_csum,
              examples(bad_csum))
    rep.check("nothing else changed (length, DSCP/ECN, flow label, L4, payload)",
              not bad_rest, examples(bad_rest))
    rep.check("L4 ports and payload unchanged", not bad_l4, examples(bad_l4))
    rep.check("RoCE ICRC valid, IPv4 (scapy.contrib.roce rebuild)",
              not bad_icrc, examples(bad_icrc))
    rep.check("RoCE ICRC valid, IPv4+IPv6 (own CRC, %d RoCE frames)" % n_roce,
              not bad_icrc_own, examples(bad_icrc_own))

    split = [f for f, p in flow_ports.items() if len(p) > 1]
    rep.check("all packets of a flow leave on the same port (%d flows)" %
              len(flow_ports), not split,
              examples("%s on %s" % (f, sorted(flow_ports[f])) for f in split))

    # ---- ECMP spread ------------------------------------------------------
    spread_ok = True
    spread_detail = []
    for fam_classes, label in ((("roce4", "roce6"), "RoCE"), (("roce4",), "RoCEv4"),
                               (("roce6",), "RoCEv6"), (("udp4", "tcp4"), "UDP/TCP")):
        per_port = collections.Counter()
        groups_used = set()
        for f, ports in flow_ports.items():
            cls, grp = flow_info[f]
            if cls in fam_classes and len(ports) == 1:
                per_port[next(iter(ports))] += 1
                groups_used.add(grp)
        total = sum(per_port.values())
        members = sorted({p for g in groups_used if g
                          for _, p in topo.groups[g]})
        dist = ", ".join("%s=%d (%.1f%%)" % (p, per_port[p],
                                             100.0 * per_port[p] / total if total else 0)
                         for p in members)
        print("INFO: ECMP distribution of %s flows (%d): %s" % (label, total, dist))
        if label == "RoCE":
            spread_detail.append(dist)
            if not members or total == 0:
                spread_ok = False
            for p in members:
                share = per_port[p] / total if total else 0
                if not (ECMP_MIN <= share <= ECMP_MAX):
                    spread_ok = False
    rep.check("ECMP spread: each uplink carries %d%%..%d%% of RoCE flows" %
              (ECMP_MIN * 100, ECMP_MAX * 100), spread_ok, "; ".join(spread_detail))

    # ---- drops ------------------------------------------------------------
    leaked = ["#%d %s (%s) on %s" % (e["i"], e["class"], e["reason"],
                                     ",".join(p for p, _ in seen[e["i"]]))
              for e in dropped if seen.get(e["i"])]
    rep.check("no bad frame appears on any output (%d bad frames)" % len(dropped),
              not leaked, examples(leaked))
    # frames whose TTL ran out: their sender told, once, on the ingress port
    ingress = man.get("ingress_port", "p0")
    in_port = next(p for p in cfg["switches"][0]["ports"] if p["name"] == ingress)
    bad_te = []
    expired = [e for e in dropped if e["reason"] == "ttl_expired"]
    for e in expired:
        got = told.get(e["i"], [])
        sent = inputs[e["i"]]
        if len(got) != 1 or got[0][0] != ingress:
            bad_te.append("#%d: %d messages, on %s" % (e["i"], len(got),
                                                        ",".join(g[0] for g in got)))
            continue
        _, p, quote = got[0]
        v6 = IPv6 in p
        ip = p[IPv6] if v6 else p[IP]
        want_src = [a.split("/")[0] for a in in_port["addresses"]
                    if ipaddress.ip_address(a.split("/")[0]).version == (6 if v6 else 4)]
        why = []
        if p.dst.lower() != mac_str(sent[6:12]) or p.src.lower() != in_port["mac"].lower():
            why.append("MACs %s -> %s" % (p.src, p.dst))
        A = ipaddress.ip_address
        if not want_src or A(ip.src) != A(want_src[0]) or A(ip.dst) != A(e["src"]):
            why.append("%s -> %s" % (ip.src, ip.dst))
        if (ip.hlim if v6 else ip.ttl) != 64:
            why.append("TTL %d" % (ip.hlim if v6 else ip.ttl))
        if not v6 and not (checksum_ok(p, IP, "chksum") and checksum_ok(p, ICMP, "chksum")):
            why.append("IPv4 or ICMP checksum")
        if v6 and not checksum_ok(p, ICMPv6TimeExceeded, "cksum"):
            why.append("ICMPv6 checksum")
        if quote != ip_of(sent)[:len(quote)] or len(quote) < 28:
            why.append("quote of %d bytes differs" % len(quote))
        if why:
            bad_te.append("#%d: %s" % (e["i"], ", ".join(why)))
    rep.check("each of the %d TTL-expired frames gets one ICMP time exceeded back on %s "
              "(scapy: addresses, TTL 64, checksums, the frame quoted)" % (len(expired), ingress),
              not bad_te, examples(bad_te))
    rep.check("no unexpected (untagged) frames on the outputs", not unexpected,
              examples(unexpected))

    # ---- stats ------------------------------------------------------------
    try:
        stats = json.load(open(args.stats))
        ok = isinstance(stats.get("ports"), list) and "drops" in stats
        rep.check("stats file is readable JSON", ok,
                  "elapsed_s=%s workers=%s" % (stats.get("elapsed_s"),
                                               stats.get("workers")))
    except (OSError, ValueError) as ex:
        rep.check("stats file is readable JSON", False, str(ex))
        stats = None
    if stats:
        sports = {p["name"]: p for p in stats["ports"]}
        expected = man["expected_drops"]
        reasons = sorted(set(expected) | set(stats["drops"]))
        diffs = ["%s: %s, expected %d" % (r, stats["drops"].get(r), expected.get(r, 0))
                 for r in reasons if stats["drops"].get(r, 0) != expected.get(r, 0)]
        rep.check("total drop counters per reason match the manifest", not diffs,
                  examples(diffs) if diffs else
                  ", ".join("%s=%d" % (r, v) for r, v in expected.items() if v))
        ingress = man.get("ingress_port", "p0")
        pdiffs = []
        for name, p in sports.items():
            for r in reasons:
                want = expected.get(r, 0) if name == ingress else 0
                if p.get("drops", {}).get(r, 0) != want:
                    pdiffs.append("%s.%s=%s, expected %d" %
                                  (name, r, p.get("drops", {}).get(r), want))
        rep.check("drops counted on the ingress port (%s), none elsewhere" % ingress,
                  not pdiffs, examples(pdiffs))
        rx = sports.get(ingress, {}).get("rx_packets")
        rep.check("rx_packets on %s equals the input frames (%d)" %
                  (ingress, len(inputs)), rx == len(inputs), "rx_packets=%s" % rx)
        txd = []
        for port, frames in sorted(outs.items()):
            tx = sports.get(port, {}).get("tx_packets")
            if tx != len(frames):
                txd.append("%s tx_packets=%s, pcap has %d" % (port, tx, len(frames)))
        rep.check("tx_packets per port equals frames in its output pcap", not txd,
                  examples(txd))

        routed = collections.Counter(g for i, (k, g) in resolved.items() if k == "group")
        sgroups = {g["name"]: g for g in stats.get("groups", [])}
        gd, md = [], []
        for gname, want in sorted(routed.items()):
            sg = sgroups.get(gname)
            if sg is None:
                gd.append("group %s missing from stats" % gname)
                continue
            got = sum(m.get("packets", 0) for m in sg.get("members", []))
            if got != want:
                gd.append("%s members sum %d, routed %d" % (gname, got, want))
            for m in sg.get("members", []):
                obs = group_port_count[gname][m["port"]]
                if m.get("packets") != obs:
                    md.append("%s %s/%s packets=%s, seen %d" %
                              (gname, m["ip"], m["port"], m.get("packets"), obs))
                if m.get("resolved") is False:
                    md.append("%s %s unresolved" % (gname, m["ip"]))
        rep.check("group member packet counters sum to the routed count",
                  not gd, examples(gd) if gd else
                  ", ".join("%s=%d" % kv for kv in sorted(routed.items())))
        rep.check("group member packet counters equal frames seen per member port",
                  not md, examples(md))

    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
