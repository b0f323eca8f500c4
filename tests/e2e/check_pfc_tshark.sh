#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Third-party check of the PFC / PAUSE frames dataplane/pfc.c builds:
# tests/tools/pfc_pcap writes a pcap of frames and the values each was built
# with; tshark dissects the pcap and, for every frame, this script checks
#   - it is dissected as MAC control (eth:ethertype:macc, EtherType 0x8808,
#     dst 01:80:c2:00:00:01, 60 bytes),
#   - the opcode (0x0101 PFC, 0x0001 PAUSE),
#   - PFC: the class-enable vector and the time of each priority c0..c7;
#     PAUSE: its pause_time,
#   - no expert info on the frame;
# and, for the whole file, that `tshark -z expert` reports nothing and the
# frame count matches.
#
# Then the switch itself, at stop: aifabric (the one in the build directory
# that holds tests/pfc_pcap) runs for --duration 2 on net_pcap ports, p0
# replaying lossless (DSCP 26) frames without end (infinite_rx) towards p1,
# shaped to 10 Mb/s, so that p0 holds its peer in XOFF until the daemon
# stops.  In p0's tx pcap tshark must find XOFF frames (class 3, 65535
# quanta) and, as the last MAC control frame, after every XOFF, an XON (PFC
# from p0's MAC to 01:80:c2:00:00:01, class-enable 0x0008, c3 = 0, no
# expert info): a stopping switch must not leave its peer paused.  The
# daemon must exit 0 and say it sent that XON.
#
#   tests/e2e/check_pfc_tshark.sh [path/to/pfc_pcap]   (default build/tests/pfc_pcap)
#   tests/e2e/check_pfc_tshark.sh --files FILE.pcap FILE.csv
#                         (check given files, CSV as pfc_pcap writes it;
#                          no daemon run)
#
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 only when every
# check passes (2 when it cannot run).  Installs tshark if missing; the
# daemon part needs python3-scapy.  The daemon runs with --no-huge under a
# --file-prefix of its own, removed afterwards.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

T=$(mktemp -d /tmp/aif-pfc-tshark.XXXXXX)
PREFIX=aif-pfc-tshark-$$
trap 'rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

BIN=
if [ "${1:-}" = "--files" ]; then
	PCAP=${2:?--files needs FILE.pcap FILE.csv}
	CSV=${3:?--files needs FILE.pcap FILE.csv}
else
	GEN=${1:-$ROOT/build/tests/pfc_pcap}
	if [ ! -x "$GEN" ]; then
		echo "check_pfc_tshark: $GEN is not an executable (build first)" >&2
		exit 2
	fi
	BIN=$(cd "$(dirname "$GEN")/.." && pwd)/aifabric
	if [ ! -x "$BIN" ]; then
		echo "check_pfc_tshark: $BIN is not an executable (build first)" >&2
		exit 2
	fi
	PCAP=$T/pfc.pcap
	CSV=$T/pfc.csv
	"$GEN" "$PCAP" "$CSV" || { echo "check_pfc_tshark: $GEN failed" >&2; exit 2; }
fi

if ! command -v tshark >/dev/null; then
	echo "check_pfc_tshark: installing tshark" >&2
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	echo 'wireshark-common wireshark-common/install-setuid boolean false' |
		$SUDO debconf-set-selections 2>/dev/null || true
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y tshark >/dev/null ||
		{ $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y tshark >/dev/null; }
	command -v tshark >/dev/null || { echo "check_pfc_tshark: no tshark" >&2; exit 2; }
fi

passed=0 failed=0
check() { # check NAME EXPECTED GOT
	if [ "$2" = "$3" ]; then
		echo "PASS $1: ${3:-(none)}"
		passed=$((passed + 1))
	else
		echo "FAIL $1: expected '${2:-(none)}', got '${3:-(none)}'"
		failed=$((failed + 1))
	fi
}

fields=(frame.number frame.len frame.protocols eth.dst eth.type macc.opcode macc.cbfc.enbv)
for p in 0 1 2 3 4 5 6 7; do fields+=("macc.cbfc.pause_time.c$p"); done
fields+=(macc.pause_time _ws.expert.message)
args=()
for f in "${fields[@]}"; do args+=(-e "$f"); done

# -E quote=n, aggregator ';' so a field that occurs twice cannot shift columns.
if ! tshark -r "$PCAP" -T fields -E separator=, -E aggregator=';' "${args[@]}" \
	>"$T/tshark.csv" 2>"$T/tshark.err"; then
	cat "$T/tshark.err" >&2
	echo "check_pfc_tshark: tshark failed" >&2
	exit 2
fi

declare -A got
while IFS=, read -r num len protos dst etype op enbv c0 c1 c2 c3 c4 c5 c6 c7 ptime expert; do
	got[$num]="$len,$protos,$dst,$etype,$op,$enbv,$c0,$c1,$c2,$c3,$c4,$c5,$c6,$c7,$ptime,$expert"
done <"$T/tshark.csv"

nframes=0
while IFS=, read -r num kind op enbv e0 e1 e2 e3 e4 e5 e6 e7 eptime; do
	nframes=$((nframes + 1))
	name="frame $num ($kind)"
	if [ -z "${got[$num]+x}" ]; then
		check "$name: present" "present" "missing"
		continue
	fi
	IFS=, read -r len protos dst etype gop genbv g0 g1 g2 g3 g4 g5 g6 g7 gptime expert \
		<<<"${got[$num]}"
	check "$name: dissected as MAC control" \
		"eth:ethertype:macc 0x8808 01:80:c2:00:00:01 60" "$protos $etype $dst $len"
	check "$name: opcode" "$op" "$gop"
	if [ "$kind" = pfc ]; then
		check "$name: class-enable vector" "$enbv" "$genbv"
		check "$name: times c0..c7" "$e0 $e1 $e2 $e3 $e4 $e5 $e6 $e7" \
			"$g0 $g1 $g2 $g3 $g4 $g5 $g6 $g7"
	else
		check "$name: pause_time" "$eptime" "$gptime"
	fi
	check "$name: expert info" "" "$expert"
done <"$CSV"

check "frames in the pcap" "$nframes" "$(wc -l <"$T/tshark.csv" | tr -d ' ')"
expert_all=$(tshark -r "$PCAP" -q -z expert 2>/dev/null | tr -s ' \n' ' ' | sed 's/^ //;s/ $//')
check "file: tshark -z expert" "" "$expert_all"
check "file: frames matching _ws.expert" "0" \
	"$(tshark -r "$PCAP" -Y _ws.expert 2>/dev/null | wc -l | tr -d ' ')"

# ---- the switch at stop: XON for the priority it left paused ----
daemon_at_stop() {
	local py=/usr/bin/python3 rc out n_xoff n_xon last last_no last_xoff
	"$py" -c 'import scapy' 2>/dev/null || { echo "check_pfc_tshark: needs python3-scapy" >&2; return 2; }
	"$py" - "$T/in.pcap" <<'PY' || return 2
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
sw, h0 = "02:00:00:00:00:10", "02:00:00:00:00:02"
# DSCP 26 (TC 3, lossless), 1000-byte frames to a route behind p1
wrpcap(sys.argv[1], [Ether(dst=sw, src=h0) / IP(src="10.0.0.2", dst="10.1.0.5", tos=0x68) /
                     UDP(sport=10000 + i, dport=5001) / Raw(b"\x00" * 958) for i in range(64)])
PY
	cat > "$T/cfg.json" <<'JSON'
{
  "policies": {"default": {"qos": {"buffer": {"size_bytes": 262144}, "ecn": {"mode": "off"}}}},
  "switches": [{
    "name": "leaf0",
    "ports": [
      {"name": "p0", "device": "net_pcap0", "mac": "02:00:00:00:00:10", "speed_gbps": 10,
       "addresses": ["10.0.0.1/24"]},
      {"name": "p1", "device": "net_pcap1", "mac": "02:00:00:00:00:11", "speed_gbps": 10,
       "shaper_gbps": 0.01, "addresses": ["10.0.1.0/31"]}
    ],
    "neighbors": [{"ip": "10.0.1.1", "mac": "02:00:00:00:01:01", "port": "p1"}],
    "nexthop_groups": [{"name": "up", "members": [{"ip": "10.0.1.1", "port": "p1"}]}],
    "routes": [{"prefix": "10.1.0.0/16", "group": "up"}]
  }]
}
JSON
	timeout -k 5 60 "$BIN" -l 0-1 --file-prefix "$PREFIX" --no-pci --no-huge -m 512 \
		--vdev "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/out_p0.pcap,infinite_rx=1" \
		--vdev "net_pcap1,tx_pcap=$T/out_p1.pcap" \
		-- --config "$T/cfg.json" --socket "$T/aifabric.sock" --duration 2 \
		> "$T/daemon.log" 2>&1 < /dev/null
	rc=$?
	check "daemon: exit status" "0" "$rc"
	[ "$rc" -eq 0 ] || sed 's/^/  | /' "$T/daemon.log"
	check "daemon: says it sent the XON at stop" \
		"PFC XON at stop: 1 frame(s) released 1 paused priority; 0 could not be sent (no mbuf, or the port refused it)" \
		"$(grep -o 'PFC XON at stop:.*' "$T/daemon.log")"

	out=$T/out_p0.pcap
	tshark -r "$out" -Y macc -T fields -E separator=, -E aggregator=';' \
		-e frame.number -e frame.protocols -e eth.dst -e eth.src -e macc.opcode \
		-e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e _ws.expert.message \
		> "$T/stop.csv" 2> "$T/stop.err" || { cat "$T/stop.err" >&2; return 2; }
	n_xoff=$(awk -F, '$7 == 65535' "$T/stop.csv" | wc -l)
	n_xon=$(awk -F, '$7 == "0"' "$T/stop.csv" | wc -l)
	echo "     p0 sent $n_xoff XOFF and $n_xon XON frame(s), $(wc -l < "$T/stop.csv") MAC control in all"
	check "daemon: p0 held its peer in XOFF (class 3, 65535 quanta) while running" \
		"yes" "$([ "$n_xoff" -gt 0 ] && echo yes || echo "no XOFF")"
	last=$(tail -1 "$T/stop.csv")
	check "daemon: the last MAC control frame out of p0 is an XON (class 3, time 0)" \
		"eth:ethertype:macc,01:80:c2:00:00:01,02:00:00:00:00:10,0x0101,0x0008,0," \
		"$(cut -d, -f2- <<<"$last")"
	last_no=${last%%,*}
	last_xoff=$(awk -F, '$7 == 65535 { n = $1 } END { print n + 0 }' "$T/stop.csv")
	check "daemon: the XON comes after every XOFF" "yes" \
		"$([ "${last_no:-0}" -gt "$last_xoff" ] && echo yes || echo "frame ${last_no:-none}, last XOFF $last_xoff")"
	check "daemon: frames out of p0 that are not MAC control" "0" \
		"$(tshark -r "$out" -Y '!macc' 2>/dev/null | wc -l | tr -d ' ')"
}
if [ -n "$BIN" ]; then
	daemon_at_stop || exit 2
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$nframes" -gt 0 ]
