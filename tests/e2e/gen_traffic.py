#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Generate test traffic for aifabric with scapy.

  gen_traffic.py --out FILE.pcap --kind e2e|jumbo|bench [--flows N] [--seed S]
                 [--manifest FILE.json]

kind e2e (the end-to-end test, see run_e2e.sh / check_output.py):
  roce4     N RoCEv2-over-IPv4 flows (10.0.0.2 -> random 10.1.x.y), UDP sport
            in 0xC000-0xFFFF, dport 4791, DSCP 26 + ECT(0), BTH RC SEND_ONLY,
            random dest QP and PSN, valid ICRC, 2 packets per flow (PSN, PSN+1)
  roce6     32 RoCEv2-over-IPv6 flows x 2 packets to 2001:db8:1::/48
  udp4      16 plain UDP flows x 2 packets to 10.1.x.y
  tcp4      16 TCP flows x 2 packets to 10.1.x.y
  host      16 UDP packets from 10.5.0.9 to the host h0 (10.0.0.2), out of p0
  bad frames, each with the drop reason the switch must count:
  ttl1 (6 IPv4 TTL 1 + 2 IPv6 hop limit 1) ttl_expired, drop_route (8 to
  10.9.1.1, a "drop" route) no_route, no_route (8 to 172.16.0.1) no_route,
  bad_csum (8) malformed, truncated (8: IPv4 total length > bytes present)
  truncated, foreign_mac (8 unicast to another MAC) l2_not_for_us,
  unsupported (4 IPX EtherType 0x8137) unsupported.

Every frame carries a tag b"AIFT" + 32-bit frame index in its payload, so the
checker can match output frames to input frames by content.  Frames are
shuffled deterministically with the seed.  Good frames are at least 60 bytes
long without padding, so the switch never sees Ethernet padding on them.

kind jumbo (run_jumbo.sh / check_jumbo.py): RoCEv2 frames of 4,154 bytes
  (4,096-byte payload; IPv4 4,140 bytes) and one IPv6 size, each flow twice:
  jumbo4        untagged, to 10.1.x.y (p1, untagged)
  jumbo4_tagged tagged VID 100 PCP 3, to 10.1.x.y (leaves p1 untagged)
  jumbo4_vlan   untagged, to 10.2.x.y (p2, "vlan": 200: VID 200, PCP 3)
  jumbo6        IPv6, 4,174 bytes, to 2001:db8:1::/48 (p1)
  over_mtu      IPv4 of 9,100 bytes (9,114-byte frames): over an MTU of 9000
  and larger than the daemon's mbufs, so net_pcap hands them over chained;
  the switch must count them as mtu_exceeded.

kind bench: one minimum-size RoCEv2 frame (60 bytes without FCS:
Ether/IPv4/UDP/BTH/2-byte payload/ICRC) per flow, N flows to 10.1.x.y.

The manifest (JSON) records, per frame index, its class, whether it must be
forwarded or dropped (and why), its flow key and family, plus the expected
per-reason drop counts.

Run with Debian's /usr/bin/python3 (python3-scapy).
"""

import argparse
import ipaddress
import json
import random
import struct
import sys
import zlib

from scapy.all import Ether, IP, IPv6, UDP, TCP, Raw, wrpcap
from scapy.contrib.roce import BTH

ROCE_PORT = 4791
SWITCH_MAC = "02:00:00:00:00:10"   # p0
HOST_MAC = "02:00:00:00:00:02"     # h0
FOREIGN_MAC = "02:00:00:00:99:99"
HOST_IP = "10.0.0.2"
HOST_IP6 = "2001:db8::2"
TOS_ROCE = (26 << 2) | 0b10        # DSCP 26, ECN ECT(0)
OPCODE_RC_SEND_ONLY = 4
TAG = b"AIFT"

DROP_REASONS = ["truncated", "malformed", "unsupported", "l2_not_for_us",
                "ttl_expired", "no_route", "neighbor_unresolved", "to_switch",
                "mtu_exceeded", "mac_control", "port_down", "tx_full"]


def tag(idx):
    return TAG + struct.pack("!I", idx)


def roce_icrc(l3):
    """ICRC of a RoCEv2 packet given its bytes from the IP header on
    (IPv4 or IPv6 without extension headers).  Returns the 4 bytes as they
    appear on the wire.  IPv4: TOS, TTL and header checksum masked; IPv6:
    traffic class, flow label and hop limit masked; UDP checksum and the
    BTH FECN/BECN/reserved byte masked; 8 bytes of 0xff stand for the LRH."""
    b = bytearray(l3)
    if b[0] >> 4 == 4:
        ihl = (b[0] & 0x0F) * 4
        end = struct.unpack("!H", b[2:4])[0]
        b[1] = 0xFF
        b[8] = 0xFF
        b[10:12] = b"\xff\xff"
        udp = ihl
    elif b[0] >> 4 == 6:
        end = 40 + struct.unpack("!H", b[4:6])[0]
        b[0] |= 0x0F
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xFF
        udp = 40
    else:
        raise ValueError("not IP")
    b[udp + 6:udp + 8] = b"\xff\xff"
    b[udp + 8 + 4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(b[:end - 4])) & 0xFFFFFFFF
    return struct.pack("<I", crc)


def with_icrc6(frame):
    """scapy's BTH computes no ICRC under IPv6: fill in the last 4 bytes."""
    raw = bytes(frame)
    p = Ether(raw)
    p[BTH].icrc = struct.unpack("!I", roce_icrc(raw[14:]))[0]
    del p[UDP].chksum          # the ICRC masks it; recompute after the ICRC
    return Ether(bytes(p))


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.tuples = set()

    def ip10_1(self):
        return "10.1.%d.%d" % (self.rng.randint(0, 255), self.rng.randint(1, 254))

    def ip6_1(self):
        return str(ipaddress.IPv6Address(
            int(ipaddress.IPv6Address("2001:db8:1::")) +
            self.rng.randint(1, (1 << 80) - 1)))

    def unique(self, fam, src, dst, proto, sport, dport):
        key = (fam, src, dst, proto, sport, dport)
        if key in self.tuples:
            return None
        self.tuples.add(key)
        return "%s|%s|%s|%d|%d|%d" % key


def specs_e2e(g, nflows):
    """Describe every frame (without index); built after the shuffle."""
    rng = g.rng
    specs = []

    def flow_spec(cls, fam, proto, dst_fn, sport_fn, dport_fn, src):
        while True:
            dst, sport, dport = dst_fn(), sport_fn(), dport_fn()
            key = g.unique(fam, src, dst, proto, sport, dport)
            if key:
                return dict(cls=cls, fam=fam, proto=proto, src=src, dst=dst,
                            sport=sport, dport=dport, flow=key)

    roce_sport = lambda: rng.randint(0xC000, 0xFFFF)  # noqa: E731
    for _ in range(nflows):
        f = flow_spec("roce4", 4, 17, g.ip10_1, roce_sport,
                      lambda: ROCE_PORT, HOST_IP)
        qp, psn = rng.randint(1, 0xFFFFFF), rng.randint(0, 0xFFFFFF)
        for k in range(2):
            specs.append(dict(f, qp=qp, psn=(psn + k) & 0xFFFFFF,
                              expect="forward"))
    for _ in range(32):
        f = flow_spec("roce6", 6, 17, g.ip6_1, roce_sport,
                      lambda: ROCE_PORT, HOST_IP6)
        qp, psn = rng.randint(1, 0xFFFFFF), rng.randint(0, 0xFFFFFF)
        fl = rng.randint(0, 0xFFFFF)
        for k in range(2):
            specs.append(dict(f, qp=qp, psn=(psn + k) & 0xFFFFFF, fl=fl,
                              expect="forward"))
    for cls, proto in (("udp4", 17), ("tcp4", 6)):
        for _ in range(16):
            f = flow_spec(cls, 4, proto, g.ip10_1,
                          lambda: rng.randint(1024, 65535),
                          lambda: rng.choice([53, 80, 443, 5201, 9000, 12345]),
                          HOST_IP)
            seq = rng.randint(0, 0xFFFFFFFF)
            for k in range(2):
                specs.append(dict(f, seq=(seq + 100 * k) & 0xFFFFFFFF,
                                  expect="forward"))
    for _ in range(16):
        f = flow_spec("host", 4, 17, lambda: HOST_IP,
                      lambda: rng.randint(1024, 65535), lambda: 7000,
                      "10.5.0.9")
        specs.append(dict(f, expect="forward"))

    def bad(cls, reason, n, **kw):
        for _ in range(n):
            d = dict(cls=cls, fam=4, proto=17, src=HOST_IP, dst=g.ip10_1(),
                     sport=rng.randint(0xC000, 0xFFFF), dport=ROCE_PORT,
                     expect="drop", reason=reason, flow=None)
            d.update(kw)
            specs.append(d)

    bad("ttl1", "ttl_expired", 6, ttl=1)
    bad("ttl1", "ttl_expired", 2, ttl=1, fam=6, src=HOST_IP6,
        dst="2001:db8:1::77")
    bad("drop_route", "no_route", 8, dst="10.9.1.1")
    bad("no_route", "no_route", 8, dst="172.16.0.1")
    bad("bad_csum", "malformed", 8)
    bad("truncated", "truncated", 8)
    bad("foreign_mac", "l2_not_for_us", 8, l2dst=FOREIGN_MAC)
    bad("unsupported", "unsupported", 4)
    return specs


def build_e2e(idx, s, rng):
    l2 = Ether(dst=s.get("l2dst", SWITCH_MAC), src=HOST_MAC)
    cls = s["cls"]
    t = tag(idx)
    if cls == "roce4":
        p = (l2 / IP(src=s["src"], dst=s["dst"], tos=TOS_ROCE, ttl=64,
                     flags="DF", id=idx & 0xFFFF) /
             UDP(sport=s["sport"], dport=ROCE_PORT, chksum=0) /
             BTH(opcode=OPCODE_RC_SEND_ONLY, dqpn=s["qp"], psn=s["psn"],
                 ackreq=1) / Raw(t))
        p = Ether(bytes(p))
        assert roce_icrc(bytes(p)[14:]) == bytes(p)[-4:], "ICRC mismatch"
        return p
    if cls == "roce6":
        p = (l2 / IPv6(src=s["src"], dst=s["dst"], tc=TOS_ROCE, fl=s["fl"],
                       hlim=64) /
             UDP(sport=s["sport"], dport=ROCE_PORT) /
             BTH(opcode=OPCODE_RC_SEND_ONLY, dqpn=s["qp"], psn=s["psn"],
                 ackreq=1, icrc=0) / Raw(t))
        return with_icrc6(p)
    if cls == "udp4" or cls == "host":
        return (l2 / IP(src=s["src"], dst=s["dst"], ttl=64, id=idx & 0xFFFF) /
                UDP(sport=s["sport"], dport=s["dport"]) / Raw(t + b"u" * 24))
    if cls == "tcp4":
        return (l2 / IP(src=s["src"], dst=s["dst"], ttl=64, flags="DF",
                        id=idx & 0xFFFF) /
                TCP(sport=s["sport"], dport=s["dport"], seq=s["seq"],
                    flags="PA", window=8192) / Raw(t + b"t" * 16))
    # bad frames: an otherwise ordinary UDP packet with one flaw
    pay = Raw(t + b"b" * 24)
    if cls == "unsupported":
        return Ether(dst=SWITCH_MAC, src=HOST_MAC, type=0x8137) / Raw(
            t + b"\xff\xff\x00\x1e" + b"x" * 38)
    if s["fam"] == 6:
        return (l2 / IPv6(src=s["src"], dst=s["dst"], hlim=s.get("ttl", 64)) /
                UDP(sport=s["sport"], dport=s["dport"]) / pay)
    ip = IP(src=s["src"], dst=s["dst"], ttl=s.get("ttl", 64), id=idx & 0xFFFF)
    if cls == "truncated":
        # header (checksum valid) announces 200 bytes; only 28 + 8 follow it
        ip.len = 200
        raw = bytes(l2 / ip / UDP(sport=s["sport"], dport=s["dport"], len=180,
                                  chksum=0) / Raw(t))
        assert len(raw) == 14 + 20 + 8 + 8
        return Ether(raw)
    p = Ether(bytes(l2 / ip / UDP(sport=s["sport"], dport=s["dport"]) / pay))
    if cls == "bad_csum":
        good = p[IP].chksum
        raw = bytearray(bytes(p))
        raw[24:26] = struct.pack("!H", good ^ 0x5A5A)
        return Ether(bytes(raw))
    return p


def gen_e2e(args):
    g = Gen(args.seed)
    specs = specs_e2e(g, args.flows)
    g.rng.shuffle(specs)
    frames, entries = [], []
    drops = {r: 0 for r in DROP_REASONS}
    classes = {}
    for idx, s in enumerate(specs):
        p = build_e2e(idx, s, g.rng)
        frames.append(p)
        e = {"i": idx, "class": s["cls"], "expect": s["expect"],
             "family": s["fam"], "src": s["src"], "dst": s["dst"],
             "len": len(bytes(p))}
        if s["expect"] == "drop":
            e["reason"] = s["reason"]
            drops[s["reason"]] += 1
        else:
            e.update(flow=s["flow"], proto=s["proto"], sport=s["sport"],
                     dport=s["dport"], roce=s["cls"].startswith("roce"))
            if "psn" in s:
                e.update(qp=s["qp"], psn=s["psn"])
        entries.append(e)
        classes[s["cls"]] = classes.get(s["cls"], 0) + 1
    wrpcap(args.out, frames, linktype=1)
    man = {"kind": "e2e", "seed": args.seed, "flows": args.flows,
           "tag": TAG.decode(), "total": len(frames),
           "forwarded": sum(1 for e in entries if e["expect"] == "forward"),
           "dropped": sum(drops.values()), "classes": classes,
           "expected_drops": drops, "frames": entries}
    return man


JUMBO_PAYLOAD = 4096           # RoCEv2 frame of 4,154 bytes over IPv4
OVER_MTU_IP_LEN = 9100         # > "mtu": 9000


def roce4_frame(src, dst, sport, qp, psn, payload, dot1q=None):
    """Ether [/ Dot1Q] / IPv4 / UDP / BTH / payload with a valid ICRC (the
    ICRC does not cover the Ethernet header, so the tag does not change it)."""
    p = (Ether(dst=SWITCH_MAC, src=HOST_MAC) /
         IP(src=src, dst=dst, tos=TOS_ROCE, ttl=64, flags="DF", id=psn & 0xFFFF) /
         UDP(sport=sport, dport=ROCE_PORT, chksum=0) /
         BTH(opcode=OPCODE_RC_SEND_ONLY, dqpn=qp, psn=psn, ackreq=1) /
         Raw(payload))
    raw = bytes(p)
    assert roce_icrc(raw[14:]) == raw[-4:], "ICRC mismatch"
    if dot1q is not None:
        vid, pcp = dot1q
        raw = raw[:12] + struct.pack("!HH", 0x8100, pcp << 13 | vid) + raw[12:]
    return Ether(raw)


def gen_jumbo(args):
    g = Gen(args.seed)
    rng = g.rng
    specs = []
    for cls, n in (("jumbo4", args.flows), ("jumbo4_tagged", args.flows),
                   ("jumbo4_vlan", args.flows), ("jumbo6", args.flows),
                   ("over_mtu", 4)):
        for _ in range(n):
            fam = 6 if cls == "jumbo6" else 4
            if fam == 6:
                src, dst = HOST_IP6, g.ip6_1()
            elif cls == "jumbo4_vlan":
                src, dst = HOST_IP, "10.2.%d.%d" % (rng.randint(0, 255),
                                                  rng.randint(1, 254))
            else:
                src, dst = HOST_IP, g.ip10_1()
            sport = rng.randint(0xC000, 0xFFFF)
            qp, psn = rng.randint(1, 0xFFFFFF), rng.randint(0, 0xFFFFFF)
            key = g.unique(fam, src, dst, 17, sport, ROCE_PORT)
            for k in range(1 if cls == "over_mtu" else 2):
                specs.append(dict(cls=cls, fam=fam, src=src, dst=dst, sport=sport,
                                  qp=qp, psn=(psn + k) & 0xFFFFFF, flow=key))
    rng.shuffle(specs)
    frames, entries = [], []
    for idx, s in enumerate(specs):
        t = tag(idx)
        if s["cls"] == "jumbo6":
            p = (Ether(dst=SWITCH_MAC, src=HOST_MAC) /
                 IPv6(src=s["src"], dst=s["dst"], tc=TOS_ROCE, hlim=64) /
                 UDP(sport=s["sport"], dport=ROCE_PORT) /
                 BTH(opcode=OPCODE_RC_SEND_ONLY, dqpn=s["qp"], psn=s["psn"],
                     ackreq=1, icrc=0) /
                 Raw(t + bytes(rng.getrandbits(8) for _ in range(JUMBO_PAYLOAD - 8))))
            p = with_icrc6(p)
        else:
            n = (OVER_MTU_IP_LEN - 20 - 8 - 12 - 4 if s["cls"] == "over_mtu"
                 else JUMBO_PAYLOAD)
            pay = t + bytes(rng.getrandbits(8) for _ in range(n - 8))
            p = roce4_frame(s["src"], s["dst"], s["sport"], s["qp"], s["psn"], pay,
                            (100, 3) if s["cls"] == "jumbo4_tagged" else None)
        frames.append(p)
        e = {"i": idx, "class": s["cls"], "family": s["fam"], "src": s["src"],
             "dst": s["dst"], "sport": s["sport"], "flow": s["flow"],
             "len": len(bytes(p))}
        if s["cls"] == "over_mtu":
            e.update(expect="drop", reason="mtu_exceeded")
        else:
            e.update(expect="forward")
        entries.append(e)
    wrpcap(args.out, frames, linktype=1)
    lens = sorted({e["len"] for e in entries})
    return {"kind": "jumbo", "seed": args.seed, "flows": args.flows,
            "tag": TAG.decode(), "total": len(frames), "frame_lens": lens,
            "frames": entries}


def gen_bench(args):
    g = Gen(args.seed)
    frames, flows = [], []
    while len(frames) < args.flows:
        dst, sport = g.ip10_1(), g.rng.randint(0xC000, 0xFFFF)
        key = g.unique(4, HOST_IP, dst, 17, sport, ROCE_PORT)
        if not key:
            continue
        p = (Ether(dst=SWITCH_MAC, src=HOST_MAC) /
             IP(src=HOST_IP, dst=dst, tos=TOS_ROCE, ttl=64, flags="DF") /
             UDP(sport=sport, dport=ROCE_PORT, chksum=0) /
             BTH(opcode=OPCODE_RC_SEND_ONLY, dqpn=g.rng.randint(1, 0xFFFFFF),
                 psn=g.rng.randint(0, 0xFFFFFF)) /
             Raw(struct.pack("!H", len(frames) & 0xFFFF)))
        raw = bytes(p)
        assert len(raw) == 60, len(raw)
        assert roce_icrc(raw[14:]) == raw[-4:]
        frames.append(Ether(raw))
        flows.append(key)
    wrpcap(args.out, frames, linktype=1)
    return {"kind": "bench", "seed": args.seed, "flows": args.flows,
            "total": len(frames), "frame_len": 60,
            "dst_mac": SWITCH_MAC, "src_mac": HOST_MAC}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="pcap to write")
    ap.add_argument("--kind", choices=["e2e", "jumbo", "bench"], default="e2e")
    ap.add_argument("--flows", type=int, default=1024,
                    help="RoCEv2 IPv4 flows (default 1024)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--manifest", help="JSON manifest to write")
    args = ap.parse_args()
    if args.flows < 1 or args.flows > 60000:
        ap.error("--flows must be 1..60000")
    man = {"e2e": gen_e2e, "jumbo": gen_jumbo, "bench": gen_bench}[args.kind](args)
    if args.manifest:
        with open(args.manifest, "w") as f:
            json.dump(man, f, indent=1)
            f.write("\n")
    print("gen_traffic: wrote %d frames (%s) to %s" % (man["total"], args.kind,
                                                      args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
