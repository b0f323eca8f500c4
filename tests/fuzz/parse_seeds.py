#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The frame parser fuzzer's seed corpus, built by scapy: one frame of every
kind the parser tells apart (RoCEv2 over IPv4 and IPv6, with and without a
tag and IP options, UDP, TCP, ICMP and ICMPv6 echo, neighbour discovery,
ARP, PFC, an IPv4 fragment, IPv6 extension headers, QinQ, padded frames).

    tests/fuzz/parse_seeds.py OUT_DIR
"""
import logging
import os
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import (ARP, Dot1Q, Ether,  # noqa: E402
                       ICMP, ICMPv6EchoRequest, ICMPv6ND_NS, IP,
                       IPOption_NOP, IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, Raw, TCP, UDP)
from scapy.contrib.roce import BTH, AETH  # noqa: E402

SW = "02:00:00:00:00:01"
H = "02:00:00:00:00:02"


def frames():
    roce = UDP(sport=49152, dport=4791) / BTH(opcode=0x0A, dqpn=0x11, psn=7) / Raw(b"\0" * 64)
    ack = UDP(sport=49152, dport=4791) / BTH(opcode=0x11, dqpn=0x11, psn=7) / AETH(syndrome=0x1F)
    v4 = IP(src="10.0.0.1", dst="10.0.1.2", tos=0x6a, ttl=64, flags="DF")
    v6 = IPv6(src="2001:db8::1", dst="2001:db8::2", tc=0x6a, hlim=64)
    yield "roce4", Ether(dst=SW, src=H) / v4 / roce
    yield "roce4_ack", Ether(dst=SW, src=H) / v4 / ack
    yield "roce4_vlan", Ether(dst=SW, src=H) / Dot1Q(vlan=10, prio=3) / v4 / roce
    yield "roce4_options", Ether(dst=SW, src=H) / IP(src="10.0.0.1", dst="10.0.1.2",
                                                    options=[IPOption_NOP()] * 4) / roce
    yield "roce6", Ether(dst=SW, src=H) / v6 / roce
    yield "udp4", Ether(dst=SW, src=H) / v4 / UDP(sport=53, dport=33333) / Raw(b"x" * 20)
    yield "tcp4", Ether(dst=SW, src=H) / v4 / TCP(sport=1000, dport=80, flags="S")
    yield "icmp4", Ether(dst=SW, src=H) / v4 / ICMP() / Raw(b"ping")
    yield "icmp6", Ether(dst=SW, src=H) / v6 / ICMPv6EchoRequest()
    yield "nd_ns", Ether(dst="33:33:ff:00:00:02", src=H) / IPv6(
        src="2001:db8::1", dst="ff02::1:ff00:2", hlim=255) / ICMPv6ND_NS(tgt="2001:db8::2")
    yield "arp", Ether(dst="ff:ff:ff:ff:ff:ff", src=H) / ARP(psrc="10.0.0.1", pdst="10.0.0.254")
    yield "pfc", Ether(dst="01:80:c2:00:00:01", src=H, type=0x8808) / Raw(
        b"\x01\x01\x00\x08" + b"\x00\x00" * 3 + b"\xff\xff" + b"\x00\x00" * 4 + b"\0" * 26)
    yield "frag4", Ether(dst=SW, src=H) / IP(src="10.0.0.1", dst="10.0.1.2", frag=10,
                                             proto=17) / Raw(b"y" * 24)
    yield "ext6", Ether(dst=SW, src=H) / v6 / IPv6ExtHdrHopByHop() / IPv6ExtHdrRouting() / roce
    yield "frag6", Ether(dst=SW, src=H) / v6 / IPv6ExtHdrFragment(offset=0, m=1) / roce
    yield "qinq", Ether(dst=SW, src=H, type=0x88A8) / Dot1Q(vlan=5) / v4 / roce
    yield "padded", Ether(dst=SW, src=H) / IP(src="10.0.0.1", dst="10.0.1.2") / UDP() / Raw(
        b"\0" * 4)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for name, f in frames():
        b = bytes(f)
        if len(b) < 60:
            b += b"\0" * (60 - len(b))
        with open(os.path.join(out, name + ".bin"), "wb") as fp:
            fp.write(b)
        n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
