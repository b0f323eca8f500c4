#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The whole-switch fuzzer's seeds (fuzz_switch.c), built by scapy: frames
aimed at its switch (port p0's MAC 02:00:00:00:00:10, p1's ..11), each file
a port byte and the frame.  RoCEv2, UDP and TCP routed over the ECMP groups
of both families (by ECMP, flowlet, spray and adaptive: the traffic class of
their DSCP), to the configured host, to a host whose MAC is learned, to
the drop route, with TTL 1 (ICMP time exceeded), too long for the port
(fragmentation needed), ICMP and ICMPv6 echo to the switch, ARP requests and
replies, neighbour solicitations and advertisements, PFC and PAUSE frames,
tagged frames on the tagged port p3 and on untagged ones, an IPv4
fragment, and BFD control packets from p1's peer (its session's Down, Init,
Up, AdminDown, a poll, one with TTL 254) and to p2, which runs no session.

    tests/fuzz/switch_seeds.py OUT_DIR
"""
import logging
import os
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import (ARP, Dot1Q, Ether, ICMP, ICMPv6EchoRequest,  # noqa: E402
                       ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IP, IPv6, Raw, TCP,
                       UDP, raw)
from scapy.contrib.bfd import BFD  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

P0, P1, P3 = "02:00:00:00:00:10", "02:00:00:00:00:11", "02:00:00:00:00:13"
H0, N1 = "02:00:00:00:00:02", "02:00:00:00:01:00"
PFC_DST = "01:80:c2:00:00:01"


def pfc(classes, quanta):
    """An 802.1Qbb PFC frame (opcode 0x0101): class-enable vector, 8 times."""
    body = bytes([0x01, 0x01, 0, classes])
    for q in quanta:
        body += q.to_bytes(2, "big")
    return Ether(dst=PFC_DST, src=N1, type=0x8808) / Raw(body + b"\0" * 26)


def frames():
    roce = UDP(sport=49152, dport=4791) / BTH(opcode=0x0A, dqpn=0x11, psn=7) / Raw(b"\0" * 64)
    v4 = IP(src="10.0.0.2", dst="10.1.2.3", tos=0x6a, ttl=64)
    v6 = IPv6(src="2001:db8::2", dst="2001:db8:1::5", tc=0x6a, hlim=64)
    yield 0, "roce4", Ether(dst=P0, src=H0) / v4 / roce
    yield 0, "roce6", Ether(dst=P0, src=H0) / v6 / roce
    yield 0, "udp4_ttl1", Ether(dst=P0, src=H0) / IP(src="10.0.0.2", dst="10.1.0.9", ttl=1) / \
        UDP(sport=1, dport=2) / Raw(b"x" * 30)
    yield 0, "udp6_hlim1", Ether(dst=P0, src=H0) / IPv6(src="2001:db8::2", dst="2001:db8:1::9",
                                                       hlim=1) / UDP() / Raw(b"y" * 30)
    yield 0, "tcp4_nexthop", Ether(dst=P0, src=H0) / IP(src="10.0.0.2", dst="10.2.0.1") / \
        TCP(sport=1000, dport=80, flags="S")
    yield 1, "to_host", Ether(dst=P1, src=N1) / IP(src="10.1.0.7", dst="10.0.0.2") / roce
    yield 1, "to_learned", Ether(dst=P1, src=N1) / IP(src="10.1.0.7", dst="10.0.0.3") / roce
    yield 1, "to_unknown", Ether(dst=P1, src=N1) / IP(src="10.1.0.7", dst="10.0.0.77") / roce
    yield 0, "drop_route", Ether(dst=P0, src=H0) / IP(src="10.0.0.2", dst="10.9.1.1") / roce
    yield 1, "too_long", Ether(dst=P1, src=N1) / IP(src="10.1.0.7", dst="10.0.0.2",
                                                    flags="DF") / UDP() / Raw(b"z" * 1600)
    yield 0, "frag4", Ether(dst=P0, src=H0) / IP(src="10.0.0.2", dst="10.1.0.1", flags="MF",
                                                 frag=0) / UDP() / Raw(b"f" * 64)
    yield 0, "echo4", Ether(dst=P0, src=H0) / IP(src="10.0.0.2", dst="10.0.0.1") / \
        ICMP() / Raw(b"ping" * 8)
    yield 0, "echo6", Ether(dst=P0, src=H0) / IPv6(src="2001:db8::2", dst="2001:db8::1") / \
        ICMPv6EchoRequest(data=b"ping" * 8)
    yield 0, "arp_req", Ether(dst="ff:ff:ff:ff:ff:ff", src=H0) / \
        ARP(op=1, hwsrc=H0, psrc="10.0.0.2", pdst="10.0.0.1")
    yield 0, "arp_learn", Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:00:03") / \
        ARP(op=1, hwsrc="02:00:00:00:00:03", psrc="10.0.0.3", pdst="10.0.0.1")
    yield 0, "arp_reply", Ether(dst=P0, src="02:00:00:00:00:03") / \
        ARP(op=2, hwsrc="02:00:00:00:00:03", psrc="10.0.0.3", hwdst=P0, pdst="10.0.0.1")
    yield 0, "nd_ns", Ether(dst="33:33:ff:00:00:01", src=H0) / \
        IPv6(src="2001:db8::2", dst="ff02::1:ff00:1", hlim=255) / \
        ICMPv6ND_NS(tgt="2001:db8::1") / ICMPv6NDOptSrcLLAddr(lladdr=H0)
    yield 0, "nd_na", Ether(dst=P0, src=H0) / IPv6(src="2001:db8::2", dst="2001:db8::1",
                                                   hlim=255) / \
        ICMPv6ND_NA(tgt="2001:db8::2", R=0, S=1, O=1)
    yield 1, "pfc", pfc(0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0])
    yield 1, "pfc_xon", pfc(0x08, [0] * 8)
    yield 1, "pause", Ether(dst=PFC_DST, src=N1, type=0x8808) / Raw(b"\x00\x01\xff\xff" +
                                                                    b"\0" * 42)
    yield 3, "tagged", Ether(dst=P3, src="02:00:00:00:01:04") / Dot1Q(vlan=100, prio=3) / \
        IP(src="10.1.0.7", dst="10.0.0.2") / roce
    yield 3, "tagged_other", Ether(dst=P3, src="02:00:00:00:01:04") / Dot1Q(vlan=7) / \
        IP(src="10.1.0.7", dst="10.0.0.2") / roce
    for dscp, scheme in ((8, "flowlet"), (16, "spray"), (24, "adaptive")):
        yield 0, "roce4_" + scheme, Ether(dst=P0, src=H0) / \
            IP(src="10.0.0.2", dst="10.1.2.3", tos=dscp << 2) / roce
        yield 0, "roce6_" + scheme, Ether(dst=P0, src=H0) / \
            IPv6(src="2001:db8::2", dst="2001:db8:1::5", tc=dscp << 2) / roce
    yield 1, "pfc_tc4", pfc(0x10, [0, 0, 0, 0, 0x100, 0, 0, 0])
    yield 0, "prio_tag", Ether(dst=P0, src=H0) / Dot1Q(vlan=0, prio=5) / v4 / roce
    # BFD (RFC 5880/5881) from p1's peer; the switch's discriminator for p1
    # is 2 (switch 0, port 1)
    for name, sta, your, flags, ttl in (("down", 1, 0, "", 255), ("init", 2, 2, "", 255),
                                        ("up", 3, 2, "", 255), ("admin_down", 0, 0, "", 255),
                                        ("poll", 3, 2, "P", 255), ("ttl254", 1, 0, "", 254)):
        yield 1, "bfd_" + name, Ether(dst=P1, src=N1) / \
            IP(src="10.0.1.0", dst="10.0.1.1", ttl=ttl, tos=48 << 2) / \
            UDP(sport=49200, dport=3784) / \
            BFD(sta=sta, flags=flags, my_discriminator=0x77, your_discriminator=your,
                detect_mult=3, min_tx_interval=10000, min_rx_interval=10000,
                echo_rx_interval=0)
    yield 2, "bfd_no_session", Ether(dst="02:00:00:00:00:12", src="02:00:00:00:01:02") / \
        IP(src="10.0.1.2", dst="10.0.1.3", ttl=255) / UDP(sport=49200, dport=3784) / \
        BFD(sta=1, my_discriminator=0x78)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for port, name, f in frames():
        with open(os.path.join(out, name + ".bin"), "wb") as fh:
            fh.write(bytes([port]) + raw(f))
        n += 1
    print("%d frames" % n)


if __name__ == "__main__":
    main()
