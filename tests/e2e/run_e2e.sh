#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# End-to-end test: replay generated traffic through aifabric on net_pcap
# ports and check the captured output with scapy.
#
#   tests/e2e/run_e2e.sh [path/to/aifabric]      (default build/aifabric)
#
# Env: E2E_SEED (traffic seed, default 7), E2E_FLOWS (RoCE flows, 1024),
#      E2E_DURATION (seconds of forwarding, 3), E2E_KEEP=1 keeps the temp dir.
# Exit 0 only when every check passes.  Needs root (hugepages), python3-scapy
# (/usr/bin/python3) and the net_pcap PMD.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/aifabric}
PY=/usr/bin/python3
SEED=${E2E_SEED:-7}
FLOWS=${E2E_FLOWS:-1024}
DURATION=${E2E_DURATION:-3}

if [ ! -x "$BIN" ]; then
	echo "run_e2e: $BIN is not an executable (build first)" >&2
	exit 2
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

T=$(mktemp -d /tmp/aif-e2e.XXXXXX)
PREFIX=aif-e2e-$$
fail() {
	echo "run_e2e: FAIL: $*" >&2
	if [ -s "$T/daemon.log" ]; then
		echo "----- aifabric output -----" >&2
		cat "$T/daemon.log" >&2
		echo "---------------------------" >&2
	fi
	echo "run_e2e: files kept in $T" >&2
	rm -rf "/var/run/dpdk/$PREFIX"
	exit 1
}

# Hugepages if we can have them (EAL then allocates on demand), else 4 KiB
# pages (scripts/lib.sh aif_eal_mem_choice).
. "$ROOT/scripts/lib.sh"
[ -n "${AIF_NO_HUGE:-}" ] || aif_hugepages_prepare
MEM=$(aif_eal_mem_choice 512 1024)

cat > "$T/cfg.json" <<'EOF'
{
  "switches": [{
    "name": "leaf0", "seed": 7,
    "ports": [
      {"name": "p0", "device": "net_pcap0", "mac": "02:00:00:00:00:10", "addresses": ["10.0.0.1/24", "2001:db8::1/64"]},
      {"name": "p1", "device": "net_pcap1", "mac": "02:00:00:00:00:11", "addresses": ["10.0.1.0/31", "2001:db8:f::0/127"]},
      {"name": "p2", "device": "net_pcap2", "mac": "02:00:00:00:00:12", "addresses": ["10.0.1.2/31", "2001:db8:f::2/127"]},
      {"name": "p3", "device": "net_pcap3", "mac": "02:00:00:00:00:13", "addresses": ["10.0.1.4/31", "2001:db8:f::4/127"]}
    ],
    "neighbors": [
      {"ip": "10.0.1.1", "mac": "02:00:00:00:01:01", "port": "p1"}, {"ip": "10.0.1.3", "mac": "02:00:00:00:01:02", "port": "p2"}, {"ip": "10.0.1.5", "mac": "02:00:00:00:01:03", "port": "p3"},
      {"ip": "2001:db8:f::1", "mac": "02:00:00:00:01:01", "port": "p1"}, {"ip": "2001:db8:f::3", "mac": "02:00:00:00:01:02", "port": "p2"}, {"ip": "2001:db8:f::5", "mac": "02:00:00:00:01:03", "port": "p3"}
    ],
    "nexthop_groups": [
      {"name": "uplinks", "members": [{"ip": "10.0.1.1", "port": "p1"}, {"ip": "10.0.1.3", "port": "p2"}, {"ip": "10.0.1.5", "port": "p3"}]},
      {"name": "uplinks6", "members": [{"ip": "2001:db8:f::1", "port": "p1"}, {"ip": "2001:db8:f::3", "port": "p2"}, {"ip": "2001:db8:f::5", "port": "p3"}]}
    ],
    "routes": [{"prefix": "10.1.0.0/16", "group": "uplinks"}, {"prefix": "2001:db8:1::/48", "group": "uplinks6"}, {"prefix": "10.9.0.0/16", "action": "drop"}]
  }],
  "hosts": [{"name": "h0", "switch": "leaf0", "port": "p0", "ip": "10.0.0.2", "mac": "02:00:00:00:00:02"}, {"name": "h0v6", "switch": "leaf0", "port": "p0", "ip": "2001:db8::2", "mac": "02:00:00:00:00:02"}]
}
EOF

"$PY" "$HERE/gen_traffic.py" --kind e2e --out "$T/in.pcap" --flows "$FLOWS" \
	--seed "$SEED" --manifest "$T/manifest.json" || fail "traffic generation"

# net_pcap accepts a tx-only device (it gives it a dummy rx queue that
# never returns packets), so p1..p3 have no rx_pcap.
rc=0
# $MEM is "--in-memory" or "--no-huge -m 1024": split on purpose.
# shellcheck disable=SC2086
timeout -k 5 60 "$BIN" -l 0-1 --file-prefix "$PREFIX" --no-pci $MEM \
	--vdev "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/out_p0.pcap" \
	--vdev "net_pcap1,tx_pcap=$T/out_p1.pcap" \
	--vdev "net_pcap2,tx_pcap=$T/out_p2.pcap" \
	--vdev "net_pcap3,tx_pcap=$T/out_p3.pcap" \
	-- --config "$T/cfg.json" --socket "$T/aifabric.sock" \
	--duration "$DURATION" --stats "$T/stats.json" \
	> "$T/daemon.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "aifabric exited with status $rc ($([ "$rc" -eq 124 ] && echo 'timed out' || echo error))"
[ -s "$T/stats.json" ] || fail "aifabric wrote no stats file"

rc=0
"$PY" "$HERE/check_output.py" --manifest "$T/manifest.json" --in "$T/in.pcap" \
	--out "p0=$T/out_p0.pcap" "p1=$T/out_p1.pcap" "p2=$T/out_p2.pcap" "p3=$T/out_p3.pcap" \
	--stats "$T/stats.json" --config "$T/cfg.json" || rc=$?
[ "$rc" -eq 0 ] || fail "check_output.py reported failures"

if [ "${E2E_KEEP:-0}" = 1 ]; then
	echo "run_e2e: files kept in $T"
else
	rm -rf "$T"
fi
echo "run_e2e: PASS"
