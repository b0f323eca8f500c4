#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
RoCEv2 traffic through a generated leaf-spine, made and checked with scapy.

  fabric_traffic.py gen --out IN.pcap --leaves L [--flows N] [--seed S]
  fabric_traffic.py check --leaves L --spines K --out-dir DIR --in IN.pcap
                    [--stats STATS.json] [--timing] [--files PATTERN]
  fabric_traffic.py incast --out-dir DIR [--senders 3] [--frames 1500] [--gbps 25]
  fabric_traffic.py check-incast --stats STATS.json [--senders 3] [--frames 1500]
  fabric_traffic.py steady --out IN.pcap [--frames 4000] [--gbps 50] [--to 3]
  fabric_traffic.py check-failure --stats STATS.json [--frames 4000] [--link leaf0:u0]
  fabric_traffic.py check-generated --out-dir DIR [--leaves 4] [--min-frames 100]
  fabric_traffic.py written --out CONFIG.json [--leaves 4] [--spines 2]
  fabric_traffic.py check-withdrawn --stats STATS.json --link leaf0:u0

gen: host leaf0-0 (10.0.0.2) sends N RoCEv2 flows (RC SEND_ONLY, DSCP 26,
ECT(0), UDP source port per flow, dest QP per flow, 2 packets per flow with
PSN p, p+1, valid ICRC) to the hosts of the other leaves (10.i.0.2), 1 us
apart, each frame tagged b"AIFT" + index in its payload.  The switch MAC of
leaf0's h0 and the host MACs follow the generator's documented rules
(control/topology.h), evaluated here independently.

check: every frame comes out of exactly the edge port of its destination
host (DIR/leaf<i>-h0.pcap, or --files with {i}), once; routed three times
(TTL 61); source MAC leaf i's h0 port, destination the host's; IPv4 header
checksum and ICRC valid (both recomputed by scapy); payload, DSCP, UDP
ports, BTH unchanged; per flow in PSN order.  --timing (virtual time): the
first frame out arrives exactly when four 100 Gb/s serializations (the
host's and three switches') and two 1 us links say.  --stats: both spines
carried traffic, nothing dropped.

incast: hosts leaf0-0 .. leaf<n-1>-0 send back to back at their port rate
to leaf<n>-0; check-incast reads the run's --stats: no drop anywhere, every
frame delivered, PFC pauses on every hop back from the receiver's leaf to
the spines, the senders' leaves and their hosts, and the hosts paused.

written: a leaf-spine written out as switches, links and hosts (no
generator): leaf i's host 10.i.0.2 on its port h0 (10.i.0.1/24), uplink
n = i*spines+S (port uS) to spine S's port dI on a /31 of 10.100.0.0/16
(10.100.(n/128).(n%128*2)), every leaf routing
the others' subnets through one group of all its uplinks, each spine a
group per leaf.  check-withdrawn: that fabric's --traffic run with one
uplink down from the start: no switch dropped anything, every frame sent
was delivered, the down link carried nothing, and the leaf behind it still
received (its other uplinks did the work): every switch routed around the
link, not only the two it joins.

Run with Debian's /usr/bin/python3 (python3-scapy).
"""

import argparse
import json
import math
import random
import struct
import sys

from scapy.all import Ether, IP, UDP, Raw, wrpcap, RawPcapReader
from scapy.contrib.roce import BTH

TAG = b"AIFT"
TOS_ROCE = (26 << 2) | 0b10


def sw_mac(sw_index, port_index):
    return "02:1f:%02x:%02x:%02x:00" % (sw_index >> 8, sw_index & 0xFF, port_index)


def host_mac(leaf, j=0):
    return "02:0a:00:%02x:%02x:02" % (leaf, j)


def gen(a):
    rng = random.Random(a.seed)
    frames = []
    for f in range(a.flows):
        leaf = 1 + f % (a.leaves - 1)
        sport = 0xC000 + rng.randrange(0x4000)
        qp, psn = rng.randrange(1, 1 << 24), rng.randrange(1 << 24)
        for k in range(2):
            idx = len(frames)
            p = (Ether(dst=sw_mac(0, 0), src=host_mac(0)) /
                 IP(src="10.0.0.2", dst="10.%d.0.2" % leaf, tos=TOS_ROCE, ttl=64,
                    flags="DF", id=idx) /
                 UDP(sport=sport, dport=4791, chksum=0) /
                 BTH(opcode=4, dqpn=qp, psn=(psn + k) & 0xFFFFFF, ackreq=1) /
                 Raw(TAG + struct.pack("!I", idx) + bytes(rng.randrange(200, 1000))))
            frames.append(p)
    # interleave the flows' second packets after all the first ones
    order = [i for i in range(0, len(frames), 2)] + [i for i in range(1, len(frames), 2)]
    out = []
    for n, i in enumerate(order):
        p = frames[i]
        p.time = 1000.0 + n * 1e-6
        out.append(p)
    wrpcap(a.out, out)
    print("fabric_traffic: %d frames in %d flows to %d leaves -> %s" %
          (len(out), a.flows, a.leaves - 1, a.out))


class Checks:
    def __init__(self):
        self.failed = 0

    def check(self, name, ok, detail=""):
        print("  %-4s %s%s" % ("ok" if ok else "FAIL", name, (": " + detail) if detail and not ok else ""))
        if not ok:
            self.failed += 1


def tag_of(raw):
    pos = raw.find(TAG)
    return struct.unpack("!I", raw[pos + 4:pos + 8])[0] if pos >= 0 else None


def read(path):
    """[(frame bytes, timestamp in ns)]"""
    out = []
    r = RawPcapReader(path)
    nano = getattr(r, "nano", False)
    for data, meta in r:
        out.append((bytes(data), meta.sec * 10**9 + meta.usec * (1 if nano else 1000)))
    r.close()
    return out


def scapy_ip_ok(p):
    q = p.copy()
    del q[IP].chksum
    return bytes(Ether(bytes(q)))[14:34] == bytes(p)[14:34]


def scapy_icrc_ok(p):
    q = Ether(bytes(p))
    del q[BTH].icrc           # scapy's BTH computes it again when built
    return bytes(Ether(bytes(q)))[-4:] == bytes(p)[-4:]


def check(a):
    c = Checks()
    sent = {}
    for data, _ in read(a.inp):
        sent[tag_of(data)] = Ether(data)
    pattern = a.files or (a.out_dir + "/leaf{i}-h0.pcap")
    seen = {}
    first_ns = None
    bad = {"port": [], "ttl": [], "mac": [], "ipsum": [], "icrc": [], "fields": [], "dup": []}
    order = {}
    for leaf in range(a.leaves):
        for data, ns in read(pattern.format(i=leaf)):
            p = Ether(data)
            if IP not in p or BTH not in p:
                continue  # e.g. a PFC frame
            t = tag_of(data)
            if t in seen:
                bad["dup"].append(t)
            seen[t] = leaf
            s = sent.get(t)
            if s is None or s[IP].dst != "10.%d.0.2" % leaf:
                bad["port"].append((t, leaf))
                continue
            if first_ns is None or ns < first_ns[0]:
                first_ns = (ns, t)
            if p[IP].ttl != 61:
                bad["ttl"].append((t, p[IP].ttl))
            if p.src != sw_mac(leaf, 0) or p.dst != host_mac(leaf):
                bad["mac"].append((t, p.src, p.dst))
            if not scapy_ip_ok(p):
                bad["ipsum"].append(t)
            if not scapy_icrc_ok(p):
                bad["icrc"].append(t)
            if (p[IP].tos != s[IP].tos or p[UDP].sport != s[UDP].sport or
                    p[UDP].dport != 4791 or p[UDP].chksum != 0 or
                    bytes(p[BTH]) != bytes(s[BTH])):
                bad["fields"].append(t)
            key = (p[UDP].sport, p[BTH].dqpn)
            order.setdefault(key, []).append(p[BTH].psn)
    missing = sorted(set(sent) - set(seen))
    c.check("all %d frames out, each once" % len(sent), not missing and not bad["dup"],
            "missing %s dup %s" % (missing[:8], bad["dup"][:8]))
    c.check("each out of its destination host's edge port", not bad["port"], str(bad["port"][:5]))
    c.check("TTL 64 -> 61: routed once per switch (leaf, spine, leaf)", not bad["ttl"],
            str(bad["ttl"][:5]))
    c.check("MACs: the leaf's port to the host", not bad["mac"], str(bad["mac"][:3]))
    c.check("IPv4 header checksum valid (scapy)", not bad["ipsum"], str(bad["ipsum"][:5]))
    c.check("ICRC valid (scapy)", not bad["icrc"], str(bad["icrc"][:5]))
    c.check("DSCP/ECN, UDP ports and checksum 0, BTH unchanged", not bad["fields"],
            str(bad["fields"][:5]))
    ooo = [k for k, v in order.items()
           if any(((v[i + 1] - v[i]) & 0xFFFFFF) != 1 for i in range(len(v) - 1))]
    c.check("PSNs in order per QP", not ooo, str(ooo[:3]))
    if a.timing and first_ns is not None:
        ns, t = first_ns
        length = len(bytes(sent[t]))
        ser_ps = math.ceil((max(length, 60) + 24) * 8 * 1000 / 100)  # ps at 100 Gb/s
        # the first frame starts at 0 on the host's wire; each hop's
        # arrival is the ceiling of its serialization end (plus the link
        # delay between switches); the edge port stamps the last bit
        t0 = math.ceil(ser_ps / 1000)
        t1 = t0 + math.ceil(ser_ps / 1000) + 1000
        t2 = t1 + math.ceil(ser_ps / 1000) + 1000
        want_ns = math.ceil((t2 * 1000 + ser_ps) / 1000)
        c.check("first frame out at exactly 4 x serialization + 2 x 1 us (%d ns)" % want_ns,
                ns == want_ns,
                "got %d ns" % ns)
    if a.stats:
        st = json.load(open(a.stats))
        spines = {}
        for l in st["links"]:
            for d in l["directions"]:
                if d["from"].startswith("leaf0:"):
                    spines[d["to"].split(":")[0]] = d["tx_packets"]
        c.check("ECMP over both spines (%s)" % spines,
                len(spines) == a.spines and all(v > 0 for v in spines.values()))
        drops = sum(v for s in st["switches"] for v in s["drops"].values())
        c.check("no drops fabric-wide", drops == 0, "%d dropped" % drops)
    print("fabric_traffic: %d check(s) failed" % c.failed if c.failed else
          "fabric_traffic: all checks passed")
    return 1 if c.failed else 0


def incast(a):
    """Hosts leaf0-0 .. leaf<n-1>-0 each send FRAMES RoCEv2 frames back to back
    at their port rate to leaf<n>-0 (one QP per sender, 16 source ports)."""
    for leaf in range(a.senders):
        frames = []
        t = 1000.0
        for i in range(a.frames):
            p = (Ether(dst=sw_mac(leaf, 0), src=host_mac(leaf)) /
                 IP(src="10.%d.0.2" % leaf, dst="10.%d.0.2" % a.senders, tos=TOS_ROCE,
                    ttl=64, flags="DF", id=i & 0xFFFF) /
                 UDP(sport=0xC000 + leaf * 16 + i % 16, dport=4791, chksum=0) /
                 BTH(opcode=4, dqpn=100 + leaf, psn=i, ackreq=1) /
                 Raw(TAG + struct.pack("!I", leaf << 20 | i) + bytes(950)))
            p.time = t
            t += (len(p) + 24) * 8 / (a.gbps * 1e9)
            frames.append(p)
        wrpcap("%s/inc%d.pcap" % (a.out_dir, leaf), frames)
    print("fabric_traffic: %d senders x %d frames at %g Gb/s -> %s/inc*.pcap" %
          (a.senders, a.frames, a.gbps, a.out_dir))


def steady(a):
    """Host leaf0-0 sends FRAMES frames of 32 flows to leaf<to>-0 at GBPS."""
    frames, t = [], 1000.0
    for i in range(a.frames):
        f = i % 32
        p = (Ether(dst=sw_mac(0, 0), src=host_mac(0)) /
             IP(src="10.0.0.2", dst="10.%d.0.2" % a.to, tos=TOS_ROCE, ttl=64, flags="DF",
                id=i & 0xFFFF) /
             UDP(sport=0xC000 + 7 * f, dport=4791, chksum=0) /
             BTH(opcode=4, dqpn=100 + f, psn=i // 32, ackreq=1) /
             Raw(TAG + struct.pack("!I", i) + bytes(992)))
        p.time = t
        t += (len(p) + 24) * 8 / (a.gbps * 1e9)
        frames.append(p)
    wrpcap(a.out, frames)
    print("fabric_traffic: %d frames at %g Gb/s over %.0f us -> %s" %
          (a.frames, a.gbps, (t - 1000.0) * 1e6, a.out))


def check_failure(a):
    """A link taken down mid-run: every frame delivered but those on its
    wire then, no switch drop, traffic on the other uplink after."""
    c = Checks()
    st = json.load(open(a.stats))
    out = {e["port"]: e for e in st["edge_ports"]}
    got = out["leaf%d:h0" % a.to]["tx_packets"]
    failed = other = None
    for l in st["links"]:
        for d in l["directions"]:
            if d["from"] == a.link:
                failed = d
            elif d["from"].startswith(a.link.split(":")[0] + ":u"):
                other = d
    lost = failed["lost_down"] + failed["dropped_down"]
    c.check("the link is down at the end", any(l["link"] == "down" for l in st["links"]))
    c.check("delivered %d + lost on the failed link %d (on its wire %d) = sent %d" %
            (got, lost, failed["lost_down"], a.frames), got + lost == a.frames)
    c.check("only the frames on its wire lost (%d <= 5), none handed to it down" %
            failed["lost_down"], failed["lost_down"] <= 5 and failed["dropped_down"] == 0)
    drops = sum(v for s in st["switches"] for v in s["drops"].values())
    c.check("no switch dropped anything", drops == 0, "%d dropped" % drops)
    c.check("the other uplink took the rest (%d vs %d)" % (other["tx_packets"],
                                                        failed["tx_packets"]),
            other["tx_packets"] > failed["tx_packets"])
    print("fabric_traffic: %d check(s) failed" % c.failed if c.failed else
          "fabric_traffic: all checks passed")
    return 1 if c.failed else 0


def check_generated(a):
    """Frames of --traffic, as the hosts received them: RoCEv2 with a valid
    ICRC and IPv4 checksum (scapy), routed through leaf, spine, leaf."""
    c = Checks()
    n, bad_icrc, bad_ip, ttl = 0, [], [], {}
    for leaf in range(a.leaves):
        for data, _ in read(a.out_dir + "/leaf%d-h0.pcap" % leaf):
            p = Ether(data)
            if BTH not in p:
                continue
            n += 1
            if not scapy_icrc_ok(p):
                bad_icrc.append(n)
            if not scapy_ip_ok(p):
                bad_ip.append(n)
            ttl[p[IP].ttl] = ttl.get(p[IP].ttl, 0) + 1
            if p.dst != host_mac(leaf):
                bad_ip.append(("mac", n))
    c.check("%d generated RoCEv2 frames delivered" % n, n >= a.min_frames)
    if a.corrupted_stats:
        st = json.load(open(a.corrupted_stats))
        want = sum(d["corrupted"] for l in st["links"] for d in l["directions"])
        c.check("ICRC wrong (scapy) in exactly the %d frames a link corrupted" % want,
                want > 0 and len(bad_icrc) == want, "%d bad" % len(bad_icrc))
    else:
        c.check("ICRC valid (scapy)", not bad_icrc, "%d bad" % len(bad_icrc))
    c.check("IPv4 checksums and host MACs", not bad_ip, str(bad_ip[:5]))
    c.check("TTL 61: three switches (%s)" % ttl, list(ttl) == [61])
    print("fabric_traffic: %d check(s) failed" % c.failed if c.failed else
          "fabric_traffic: all checks passed")
    return 1 if c.failed else 0


def check_incast(a):
    """Zero drops, every frame delivered, pauses hop by hop (per link and at
    the hosts' ports)."""
    c = Checks()
    st = json.load(open(a.stats))
    drops = sum(v for s in st["switches"] for v in s["drops"].values())
    c.check("no drops fabric-wide", drops == 0, "%d dropped" % drops)
    dst = "leaf%d:h0" % a.senders
    out = {e["port"]: e for e in st["edge_ports"]}
    c.check("all %d frames delivered to %s" % (a.senders * a.frames, dst),
            out[dst]["tx_packets"] == a.senders * a.frames, str(out[dst]["tx_packets"]))
    pauses = {}
    for l in st["links"]:
        for d in l["directions"]:
            pauses[(d["from"].split(":")[0], d["to"].split(":")[0])] = d["tx_ctrl"]
    spines = sorted({k[1] for k in pauses if k[0] == "leaf0"})
    hop1 = {s: pauses[("leaf%d" % a.senders, s)] for s in spines}
    c.check("hop 1: the receiver's leaf pauses every spine %s" % hop1,
            all(v > 0 for v in hop1.values()))
    hop2 = {(s, "leaf%d" % i): pauses[(s, "leaf%d" % i)] for s in spines
            for i in range(a.senders)}
    c.check("hop 2: the spines pause every sender's leaf (%d links, %d pauses)" %
            (len(hop2), sum(hop2.values())), all(v > 0 for v in hop2.values()), str(hop2))
    hop3 = {"leaf%d:h0" % i: out["leaf%d:h0" % i]["tx_ctrl"] for i in range(a.senders)}
    c.check("hop 3: the leaves pause their hosts %s" % hop3, all(v > 0 for v in hop3.values()))
    waited = {k: out[k]["rx_paused_ns"] for k in hop3}
    c.check("the hosts waited while paused (ns) %s" % waited, all(v > 0 for v in waited.values()))
    print("fabric_traffic: %d check(s) failed" % c.failed if c.failed else
          "fabric_traffic: all checks passed")
    return 1 if c.failed else 0


def written(a):
    with open(a.out, "w") as f:
        json.dump(written_config(a.leaves, a.spines), f, indent=1)


def written_config(leaves, spines):
    """The written-out leaf-spine (see written) as a dict."""
    sws, links, hosts = [], [], []
    mac = lambda x, y: "02:1e:00:%02x:%02x:01" % (x, y)
    # uplink n's /31: its two ends (leaf, spine)
    p2p = lambda n, e: "10.%d.%d.%d" % (100 + n // 32768, n // 128 % 256, n % 128 * 2 + e)
    for i in range(leaves):
        ports = [{"name": "h0", "device": "wl%d_h0" % i, "mac": mac(i, 200),
                  "addresses": ["10.%d.0.1/24" % i]}]
        nbs, mem = [], []
        for sp in range(spines):
            n = i * spines + sp
            ports.append({"name": "u%d" % sp, "device": "wl%d_u%d" % (i, sp), "mac": mac(i, sp),
                          "addresses": [p2p(n, 0) + "/31"]})
            nbs.append({"ip": p2p(n, 1), "mac": mac(100 + sp, i), "port": "u%d" % sp})
            mem.append({"ip": p2p(n, 1), "port": "u%d" % sp})
            links.append({"a": "leaf%d:u%d" % (i, sp), "b": "spine%d:d%d" % (sp, i),
                          "rate_gbps": 100, "delay_ns": 1000})
        sws.append({"name": "leaf%d" % i, "ports": ports, "neighbors": nbs,
                    "nexthop_groups": [{"name": "up", "members": mem}],
                    "routes": [{"prefix": "10.%d.0.0/24" % j, "group": "up"}
                               for j in range(leaves) if j != i]})
        hosts.append({"name": "h%d" % i, "switch": "leaf%d" % i, "port": "h0",
                      "ip": "10.%d.0.2" % i, "mac": host_mac(i)})
    for sp in range(spines):
        ports, nbs, groups, routes = [], [], [], []
        for i in range(leaves):
            n = i * spines + sp
            ports.append({"name": "d%d" % i, "device": "ws%d_d%d" % (sp, i), "mac": mac(100 + sp, i),
                          "addresses": [p2p(n, 1) + "/31"]})
            nbs.append({"ip": p2p(n, 0), "mac": mac(i, sp), "port": "d%d" % i})
            groups.append({"name": "to%d" % i, "members": [{"ip": p2p(n, 0),
                                                             "port": "d%d" % i}]})
            routes.append({"prefix": "10.%d.0.0/24" % i, "group": "to%d" % i})
        sws.append({"name": "spine%d" % sp, "ports": ports, "neighbors": nbs,
                    "nexthop_groups": groups, "routes": routes})
    return {"switches": sws, "links": links, "hosts": hosts}


def check_withdrawn(a):
    """A written-out fabric's --traffic run with a link down from the
    start: nothing lost, the leaf behind it reached over its other
    uplinks."""
    c = Checks()
    st = json.load(open(a.stats))
    sent = sum(e["rx_packets"] for e in st["edge_ports"])
    got = sum(e["tx_packets"] for e in st["edge_ports"])
    leaf = a.link.split(":")[0]
    behind = [e for e in st["edge_ports"] if e["port"].startswith(leaf + ":")]
    drops = sum(v for s in st["switches"] for v in s["drops"].values())
    c.check("%d frames sent by the hosts" % sent, sent >= 500)
    c.check("no switch dropped anything", drops == 0, "%d dropped" % drops)
    c.check("every frame delivered (%d of %d)" % (got, sent), got == sent)
    down = None
    others = 0
    for l in st["links"]:
        for d in l["directions"]:
            if d["from"] == a.link:
                down = l
            elif d["from"].startswith(leaf + ":u") or d["to"].startswith(leaf + ":u"):
                others += d["tx_packets"]
    carried = sum(d["tx_packets"] + d["lost_down"] + d["dropped_down"]
                  for d in down["directions"])
    c.check("the link is down and carried nothing", down["link"] == "down" and carried == 0,
            "%d frames" % carried)
    c.check("%s's host received %d frames, over its other uplinks (%d)" %
            (leaf, sum(e["tx_packets"] for e in behind), others),
            sum(e["tx_packets"] for e in behind) > 0 and others > 0)
    print("fabric_traffic: %d check(s) failed" % c.failed if c.failed else
          "fabric_traffic: all checks passed")
    return 1 if c.failed else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    g.add_argument("--leaves", type=int, default=4)
    g.add_argument("--flows", type=int, default=96)
    g.add_argument("--seed", type=int, default=1)
    k = sub.add_parser("check")
    k.add_argument("--leaves", type=int, default=4)
    k.add_argument("--spines", type=int, default=2)
    k.add_argument("--out-dir")
    k.add_argument("--files")
    k.add_argument("--in", dest="inp", required=True)
    k.add_argument("--stats")
    k.add_argument("--timing", action="store_true")
    i = sub.add_parser("incast")
    i.add_argument("--out-dir", required=True)
    i.add_argument("--senders", type=int, default=3)
    i.add_argument("--frames", type=int, default=1500)
    i.add_argument("--gbps", type=float, default=25)
    ki = sub.add_parser("check-incast")
    ki.add_argument("--stats", required=True)
    ki.add_argument("--senders", type=int, default=3)
    ki.add_argument("--frames", type=int, default=1500)
    sd = sub.add_parser("steady")
    sd.add_argument("--out", required=True)
    sd.add_argument("--frames", type=int, default=4000)
    sd.add_argument("--gbps", type=float, default=50)
    sd.add_argument("--to", type=int, default=3)
    kf = sub.add_parser("check-failure")
    kf.add_argument("--stats", required=True)
    kf.add_argument("--frames", type=int, default=4000)
    kf.add_argument("--to", type=int, default=3)
    kf.add_argument("--link", default="leaf0:u0")
    kg = sub.add_parser("check-generated")
    kg.add_argument("--out-dir", required=True)
    kg.add_argument("--leaves", type=int, default=4)
    kg.add_argument("--min-frames", type=int, default=100)
    kg.add_argument("--corrupted-stats",
                    help="the run's stats: as many ICRC failures as links corrupted")
    w = sub.add_parser("written")
    w.add_argument("--out", required=True)
    w.add_argument("--leaves", type=int, default=4)
    w.add_argument("--spines", type=int, default=2)
    kw = sub.add_parser("check-withdrawn")
    kw.add_argument("--stats", required=True)
    kw.add_argument("--link", default="leaf0:u0")
    a = ap.parse_args()
    if a.cmd == "written":
        written(a)
        return 0
    if a.cmd == "check-withdrawn":
        return check_withdrawn(a)
    if a.cmd == "check-generated":
        return check_generated(a)
    if a.cmd == "steady":
        steady(a)
        return 0
    if a.cmd == "check-failure":
        return check_failure(a)
    if a.cmd == "gen":
        gen(a)
        return 0
    if a.cmd == "incast":
        incast(a)
        return 0
    if a.cmd == "check-incast":
        return check_incast(a)
    return check(a)


if __name__ == "__main__":
    sys.exit(main())
