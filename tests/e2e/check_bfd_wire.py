#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""BFD on the cut link between two daemons, as tshark read it off the wire.

The argument: tshark's fields, one packet a line, comma-separated:
ip.src, ip.ttl, ip.dsfield.dscp, ip.checksum.status, udp.checksum.status,
udp.dstport, bfd.version, bfd.sta, bfd.flags.p, bfd.flags.f,
bfd.detect_time_multiplier, bfd.desired_min_tx_interval, bfd.my_discriminator,
bfd.your_discriminator, bfd.diag.  Leaf0's end is 172.16.0.0, spine0's
172.16.0.1 (the generator's /31).  RFC 5880 / 5881: version 1, UDP 3784,
TTL 255; DSCP CS6 is ours.
"""
import sys

LEAF0, SPINE0 = "172.16.0.0", "172.16.0.1"
ADMIN_DOWN, DOWN, INIT, UP = 0, 1, 2, 3


def flag(v):
    return v in ("1", "True", "true")


def main(path):
    rows = [line.strip().split(",") for line in open(path) if line.strip()]
    assert len(rows) >= 20, "only %d BFD packets captured" % len(rows)
    by = {}
    for r in rows:
        src, ttl, dscp, ipc, udpc, dport, ver, sta, p, f, mult, tx, my, your, diag = r
        assert (ttl, dscp, dport, ver, mult) == ("255", "48", "3784", "1", "3"), r
        assert ipc == "1" and udpc == "1", "a checksum not good: %s" % r
        assert not (flag(p) and flag(f)), "poll and final in one packet: %s" % r
        by.setdefault(src, []).append({
            "sta": int(sta, 16), "p": flag(p), "f": flag(f), "tx": int(tx),
            "my": int(my, 16), "your": int(your, 16), "diag": int(diag, 16)})
    assert sorted(by) == [LEAF0, SPINE0], "not both ends on the wire: %s" % sorted(by)
    for src, pk in sorted(by.items()):
        states = [x["sta"] for x in pk]
        assert states[0] in (DOWN, INIT), (src, states[:5])
        up = states.index(UP)
        # not Up: at least 1 s (RFC 5880 6.8.3); a poll announces 20 ms
        assert all(x["tx"] == 1000000 for x in pk[:up]), (src, pk[:up])
        assert any(x["tx"] == 20000 and x["p"] for x in pk[up:]), "no poll for 20 ms: " + src
        assert all(x["my"] != 0 for x in pk), src
        assert all(x["your"] != 0 for x in pk if x["sta"] in (INIT, UP)), src
        seen = "->".join(dict.fromkeys({0: "AdminDown", 1: "Down", 2: "Init", 3: "Up"}[s]
                                       for s in states))
        print("  ok   tshark: %s sent %d BFD packets (%s), TTL 255, CS6, checksums good"
              % (src, len(pk), seen))
    assert any(x["sta"] == ADMIN_DOWN and x["diag"] == 7 for x in by[LEAF0]), \
        "leaf0 sent no AdminDown (diagnostic 7)"
    assert any(x["sta"] == DOWN and x["diag"] == 3 for x in by[SPINE0]), \
        "spine0 sent no Down with diagnostic 3 (neighbour signalled down)"
    assert any(x["sta"] == DOWN and x["diag"] == 1 for x in by[SPINE0]), \
        "spine0 sent no Down with diagnostic 1 (detection time expired)"
    finals = sum(x["f"] for pk in by.values() for x in pk)
    assert finals > 0, "no final answered a poll"
    print("  ok   tshark: leaf0 sent AdminDown (7), spine0 Down (3) and, its detection "
          "time expired, Down (1); %d polls answered by a final" % finals)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except AssertionError as e:
        print("check_bfd_wire: %s" % e, file=sys.stderr)
        sys.exit(1)
