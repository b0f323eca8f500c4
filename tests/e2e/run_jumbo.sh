#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Jumbo RoCE end to end: scapy builds RoCEv2 frames of 4,154 bytes (IPv4;
# 4,174 over IPv6) with a valid ICRC, some tagged VID 100 PCP 3, plus a few
# frames over an MTU of 9000 (9,114 bytes); aifabric forwards them on
# net_pcap ports, and check_jumbo.py checks the output with scapy.
#
#   1. ports "mtu": 9000 (the mbufs' data room follows the largest MTU): every
#      4,154-byte frame leaves with TTL - 1, a valid IPv4 checksum and ICRC,
#      untagged out of p1 and tagged VID 200 PCP 3 out of p2 ("vlan": 200);
#      the 9,114-byte frames, which net_pcap hands over in chained mbufs, are
#      counted as mtu_exceeded (not truncated).
#   2. the same capture with ports at the default MTU (1500; 2 KiB mbufs):
#      every frame arrives chained and is counted as mtu_exceeded.
#   3. net_pcap infinite_rx=1 replays the 4,154-byte frames forever at MTU
#      9000 (each fits one mbuf): forwarded, nothing dropped.
#   4. infinite_rx=1 with frames larger than the mbufs: the PMD refuses the
#      queue set-up ("Multiseg mbufs are not supported in infinite_rx mode")
#      and the daemon does not start (README, Jumbo frames).
#
#   tests/e2e/run_jumbo.sh [path/to/aifabric]      (default build/aifabric)
#
# Env: JUMBO_FLOWS (flows per class, default 8), JUMBO_KEEP=1 keeps the temp
# dir.  Exit 0 only when every check passes.  Needs python3-scapy
# (/usr/bin/python3) and the net_pcap PMD; uses hugepages with --in-memory
# when enough are free (no files left in /dev/hugepages), else --no-huge.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/aifabric}
PY=/usr/bin/python3
FLOWS=${JUMBO_FLOWS:-8}

if [ ! -x "$BIN" ]; then
	echo "run_jumbo: $BIN is not an executable (build first)" >&2
	exit 2
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

T=$(mktemp -d /tmp/aif-jumbo.XXXXXX)
PREFIX=aif-jumbo-$$
LOG=
fail() {
	echo "run_jumbo: FAIL: $*" >&2
	if [ -n "$LOG" ] && [ -s "$LOG" ]; then
		echo "----- aifabric output ($LOG) -----" >&2
		tail -40 "$LOG" >&2
		echo "---------------------------" >&2
	fi
	echo "run_jumbo: files kept in $T" >&2
	exit 1
}

# 9 KiB mbufs for the shared buffer's worth of packets: about 600 MB.
. "$ROOT/scripts/lib.sh"
MEM=$(aif_eal_mem_choice 512 1024) # (hugepages on demand, else 4 KiB pages)

# config MTU P1_DEV P2_DEV: p0 the hosts' side, p1 an untagged uplink, p2 an
# uplink on VLAN 200; default lossless policy (DSCP 26 -> TC 3).
config() {
	local mtu=$1 p1=$2 p2=$3
	cat <<EOF
{
  "switches": [{
    "name": "leaf0", "seed": 7,
    "ports": [
      {"name": "p0", "device": "net_pcap0", "mac": "02:00:00:00:00:10", $mtu "addresses": ["10.0.0.1/24", "2001:db8::1/64"]},
      {"name": "p1", "device": "$p1", "mac": "02:00:00:00:00:11", $mtu "addresses": ["10.0.1.0/31", "2001:db8:f::0/127"]},
      {"name": "p2", "device": "$p2", "mac": "02:00:00:00:00:12", $mtu "vlan": 200, "addresses": ["10.0.1.2/31"]}
    ],
    "neighbors": [
      {"ip": "10.0.1.1", "mac": "02:00:00:00:01:01", "port": "p1"},
      {"ip": "2001:db8:f::1", "mac": "02:00:00:00:01:01", "port": "p1"},
      {"ip": "10.0.1.3", "mac": "02:00:00:00:01:02", "port": "p2"}
    ],
    "routes": [
      {"prefix": "10.1.0.0/16", "nexthop": {"ip": "10.0.1.1", "port": "p1"}},
      {"prefix": "2001:db8:1::/48", "nexthop": {"ip": "2001:db8:f::1", "port": "p1"}},
      {"prefix": "10.2.0.0/16", "nexthop": {"ip": "10.0.1.3", "port": "p2"}}
    ]
  }],
  "hosts": [{"name": "h0", "switch": "leaf0", "port": "p0", "ip": "10.0.0.2", "mac": "02:00:00:00:00:02"},
            {"name": "h0v6", "switch": "leaf0", "port": "p0", "ip": "2001:db8::2", "mac": "02:00:00:00:00:02"}]
}
EOF
}

# daemon NAME SECONDS VDEV...: run aifabric with config $T/NAME.json; its
# output goes to $T/NAME.log, its counters to $T/NAME.stats.json; prints
# the exit status.
daemon() {
	local name=$1 secs=$2 rc=0
	shift 2
	local vdevs=()
	for v in "$@"; do vdevs+=(--vdev "$v"); done
	# $MEM is "--in-memory" or "--no-huge -m 1024": split on purpose.
	# shellcheck disable=SC2086
	timeout -k 5 60 "$BIN" -l 0-1 --file-prefix "$PREFIX-$name" --no-pci $MEM \
		"${vdevs[@]}" -- --config "$T/$name.json" --socket "$T/$name.sock" \
		--duration "$secs" --stats "$T/$name.stats.json" \
		> "$T/$name.log" 2>&1 < /dev/null || rc=$?
	rm -rf "/var/run/dpdk/$PREFIX-$name"
	echo "$rc"
}

"$PY" "$HERE/gen_traffic.py" --kind jumbo --out "$T/in.pcap" --flows "$FLOWS" \
	--seed 11 --manifest "$T/manifest.json" || fail "traffic generation"
# the frames that fit one 9 KiB mbuf, for infinite_rx
"$PY" -c 'import sys
from scapy.all import RawPcapReader, RawPcapWriter
w = RawPcapWriter(sys.argv[2], linktype=1)
for pkt, _ in RawPcapReader(sys.argv[1]):
    if len(pkt) < 9000:
        w.write(pkt)
w.close()' "$T/in.pcap" "$T/in_fit.pcap" || fail "filtering the capture"

outs() { echo "p0=$T/$1.p0.pcap p1=$T/$1.p1.pcap p2=$T/$1.p2.pcap"; }
pcap_vdevs() {
	echo "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/$1.p0.pcap"
	echo "net_pcap1,tx_pcap=$T/$1.p1.pcap"
	echo "net_pcap2,tx_pcap=$T/$1.p2.pcap"
}

echo "run_jumbo: 1. MTU 9000: jumbo frames forwarded, over-MTU chained frames mtu_exceeded"
config '"mtu": 9000,' net_pcap1 net_pcap2 > "$T/mtu9000.json"
LOG=$T/mtu9000.log
mapfile -t V < <(pcap_vdevs mtu9000)
rc=$(daemon mtu9000 2 "${V[@]}")
[ "$rc" -eq 0 ] || fail "aifabric (MTU 9000) exited with status $rc"
# shellcheck disable=SC2046
"$PY" "$HERE/check_jumbo.py" --manifest "$T/manifest.json" --in "$T/in.pcap" \
	--out $(outs mtu9000) --stats "$T/mtu9000.stats.json" --config "$T/mtu9000.json" ||
	fail "check_jumbo.py (MTU 9000) reported failures"

echo "run_jumbo: 2. default MTU: every frame arrives chained and is mtu_exceeded"
config '' net_pcap1 net_pcap2 > "$T/mtu1500.json"
LOG=$T/mtu1500.log
mapfile -t V < <(pcap_vdevs mtu1500)
rc=$(daemon mtu1500 2 "${V[@]}")
[ "$rc" -eq 0 ] || fail "aifabric (MTU 1500) exited with status $rc"
# shellcheck disable=SC2046
"$PY" "$HERE/check_jumbo.py" --manifest "$T/manifest.json" --in "$T/in.pcap" \
	--out $(outs mtu1500) --stats "$T/mtu1500.stats.json" --config "$T/mtu1500.json" \
	--all-over-mtu || fail "check_jumbo.py (MTU 1500) reported failures"

echo "run_jumbo: 3. infinite_rx=1 at MTU 9000 replays 4,154-byte frames"
config '"mtu": 9000,' net_null1 net_null2 > "$T/replay.json"
LOG=$T/replay.log
rc=$(daemon replay 1 "net_pcap0,rx_pcap=$T/in_fit.pcap,infinite_rx=1" \
	net_null1,no-rx=1 net_null2,no-rx=1)
[ "$rc" -eq 0 ] || fail "aifabric (infinite_rx, MTU 9000) exited with status $rc"
"$PY" - "$T/replay.stats.json" <<'EOF' || fail "infinite_rx replay counters"
import json, sys
s = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in s["ports"]}
rx, tx = p["p0"]["rx_packets"], p["p1"]["tx_packets"] + p["p2"]["tx_packets"]
drops = {k: v for k, v in s["drops"].items() if v}
print("run_jumbo: replayed %d frames (%.0f per second), sent %d, drops %s" %
      (rx, rx / s["elapsed_s"], tx, drops or "none"))
sys.exit(0 if rx > 1000 and tx == rx and not drops and
         p["p0"]["rx_bytes"] >= 4154 * rx else 1)
EOF

echo "run_jumbo: 4. infinite_rx=1 with frames larger than the mbufs: no start"
LOG=$T/replay_big.log
cp "$T/replay.json" "$T/replay_big.json"
rc=$(daemon replay_big 1 "net_pcap0,rx_pcap=$T/in.pcap,infinite_rx=1" \
	net_null1,no-rx=1 net_null2,no-rx=1)
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
	fail "aifabric started with multi-segment frames on infinite_rx (status $rc)"
grep -q "Multiseg mbufs are not supported in infinite_rx mode" "$T/replay_big.log" ||
	fail "net_pcap did not refuse the multi-segment frames as expected"
echo "run_jumbo: refused as documented (status $rc)"

if [ "${JUMBO_KEEP:-0}" = 1 ]; then
	echo "run_jumbo: files kept in $T"
else
	rm -rf "$T"
fi
echo "run_jumbo: PASS"
