#!/usr/bin/python3
"""Check what virtual RoCE hosts sent, as a capture of their switch port shows it.

    check_rhost.py CAPTURE.pcapng HOST_MAC [--min N]

scapy's RoCEv2 layers (scapy.contrib.roce) parse every frame the host sent
(source MAC HOST_MAC): each is IPv4/UDP 4791/BTH with a valid ICRC (scapy
computes it again) and a valid IPv4 checksum; data packets (RDMA WRITE or
SEND first/middle/last/only) carry per destination QP PSNs that go up by
one, wrapping at 2^24, with no gap and no repeat (a path that neither
sprays nor loses); a message is FIRST, MIDDLE..., LAST or ONLY, and a
WRITE FIRST/ONLY carries a RETH with the message length; ACKs carry an
AETH.  At least N data packets (default 100).
"""
import sys

from scapy.all import Ether, IP, UDP, rdpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

WRITE = {6: "first", 7: "middle", 8: "last", 10: "only"}
SEND = {0: "first", 1: "middle", 2: "last", 4: "only"}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, mac = sys.argv[1], sys.argv[2].lower()
    want = int(sys.argv[sys.argv.index("--min") + 1]) if "--min" in sys.argv else 100
    frames = [p for p in rdpcap(path) if p.haslayer(Ether) and p[Ether].src.lower() == mac]
    bad, data, acks, cnps = [], 0, 0, 0
    psn, state = {}, {}
    for i, p in enumerate(frames):
        raw = bytes(p)
        if not (p.haslayer(IP) and p.haslayer(UDP) and p[UDP].dport == 4791 and p.haslayer(BTH)):
            bad.append((i, "not RoCEv2"))
            continue
        q = Ether(raw)
        del q[BTH].icrc
        if bytes(Ether(bytes(q)))[-4:] != raw[-4:]:
            bad.append((i, "ICRC"))
        q = Ether(raw)
        del q[IP].chksum
        if bytes(Ether(bytes(q)))[14:34] != raw[14:34]:
            bad.append((i, "IPv4 checksum"))
        b = p[BTH]
        op = b.opcode
        if op == 0x11:
            acks += 1
            if len(raw) < 14 + 20 + 8 + 12 + 4 + 4:
                bad.append((i, "ACK without AETH"))
            continue
        if op == 0x81:
            cnps += 1
            continue
        kind = WRITE.get(op) or SEND.get(op)
        if kind is None:
            bad.append((i, "opcode %#x" % op))
            continue
        data += 1
        qp = (p[IP].dst, b.dqpn)
        if qp in psn and b.psn != (psn[qp] + 1) % (1 << 24):
            bad.append((i, "QP %s/%#x: PSN %d after %d" % (qp[0], qp[1], b.psn, psn[qp])))
        psn[qp] = b.psn
        inside = state.get(qp, False)
        if kind in ("first", "only") and inside:
            bad.append((i, "QP %s/%#x: a new message inside one" % qp))
        if kind in ("middle", "last") and not inside:
            bad.append((i, "QP %s/%#x: %s outside a message" % (qp[0], qp[1], kind)))
        state[qp] = kind in ("first", "middle")
        if op in (6, 10):
            payload = raw[14 + 20 + 8 + 12:]
            length = int.from_bytes(payload[12:16], "big")
            if length == 0:
                bad.append((i, "WRITE without a RETH length"))
    print("  %d frames from %s: %d data packets on %d QPs, %d ACKs, %d CNPs" %
          (len(frames), mac, data, len(psn), acks, cnps))
    ok = not bad and data >= want
    for i, why in bad[:10]:
        print("  FAIL frame %d: %s" % (i, why))
    if data < want:
        print("  FAIL only %d data packets (want %d)" % (data, want))
    print("check_rhost: %s" % ("all checks passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
