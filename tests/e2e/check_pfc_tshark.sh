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
#   tests/e2e/check_pfc_tshark.sh [path/to/pfc_pcap]   (default build/tests/pfc_pcap)
#   tests/e2e/check_pfc_tshark.sh --files FILE.pcap FILE.csv
#                         (check given files, CSV as pfc_pcap writes it)
#
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 only when every
# check passes (2 when it cannot run).  Installs tshark if missing.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

T=$(mktemp -d /tmp/aif-pfc-tshark.XXXXXX)
trap 'rm -rf "$T"' EXIT

if [ "${1:-}" = "--files" ]; then
	PCAP=${2:?--files needs FILE.pcap FILE.csv}
	CSV=${3:?--files needs FILE.pcap FILE.csv}
else
	GEN=${1:-$ROOT/build/tests/pfc_pcap}
	if [ ! -x "$GEN" ]; then
		echo "check_pfc_tshark: $GEN is not an executable (build first)" >&2
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
		echo "FAIL $1: expected '${2:-(none)}', tshark says '${3:-(none)}'"
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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$nframes" -gt 0 ]
