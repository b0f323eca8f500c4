#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# End-to-end check of per-port packet capture (dataplane/capture.h), read
# back with tshark:
#   - aifabric runs with p0 on a veth pair (net_pcap rx_iface_in/tx_iface)
#     and p1 on a pcap file, shaped to 10 Mb/s, lossless QoS on with a small
#     shared buffer;
#   - the daemon writes captures only into its --capture-dir (made 0750),
#     by name: `aifabricctl capture start p0 p0.pcapng --drops --snaplen 256`
#     (the file 0640), and the requests it must refuse (unknown port,
#     capturing already, a path instead of a name, a name starting with '.',
#     a symbolic link or a FIFO in the directory (at once), snaplen out of
#     range, stop of an idle port); then a second capture with a packet cap
#     that says it reached it;
#   - scapy sends on the peer end: an ARP request for the switch, 400
#     DSCP 26 (lossless) frames to a route behind p1, and frames the switch
#     drops (TTL 1, a drop route, another MAC, truncated IPv4);
#   - `aifabricctl capture stop p0`; then tshark must find: every frame sent
#     in, inbound, on interface p0, cut to 256 bytes; the ARP reply and the
#     PFC frames the switch built, outbound, as MAC control PFC with class 3
#     (XOFF and XON counts equal to `show pfc`), an ICMP time exceeded for
#     each TTL-1 frame, and nothing else outbound;
#     a "drop: <reason>" comment on exactly the dropped frames, per reason as
#     many as `show counters` reports for p0, on the right frames.
#
#   tests/e2e/check_capture.sh [path/to/build]      (default build)
#
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 only when every
# check passes, 1 on a failed check, 2 when it cannot run.  Needs root
# (veth pair, hugepages or --no-huge), python3-scapy, tshark.  Takes about
# 10 s.  CAPTURE_KEEP=1 keeps the temp dir.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/aifabric
CTL_BIN=$BUILD/aifabricctl
PY=/usr/bin/python3

for b in "$BIN" "$CTL_BIN"; do
	[ -x "$b" ] || { echo "check_capture: $b is not an executable (build first)" >&2; exit 2; }
done
command -v tshark >/dev/null || { echo "check_capture: needs tshark" >&2; exit 2; }
"$PY" -c 'import scapy' 2>/dev/null || { echo "check_capture: needs python3-scapy" >&2; exit 2; }

T=$(mktemp -d /tmp/aif-capture.XXXXXX)
PREFIX=aif-capture-$$
VA=aifc$$a   # the hosts' end, inside namespace $NS
VB=aifc$$b   # the switch's end
NS=aifcap$$  # the test hosts' own network namespace
SOCK=$T/aifabric.sock
CAPDIR=$T/run/captures   # made by the daemon
CAP=$CAPDIR/p0.pcapng
DPID=

cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	ip link del "$VB" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX"
	if [ "${CAPTURE_KEEP:-0}" = 1 ]; then
		echo "check_capture: files kept in $T"
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT

if ! ip link add "$VA" type veth peer name "$VB" 2>"$T/ip.err"; then
	echo "check_capture: cannot create a veth pair: $(cat "$T/ip.err")" >&2
	exit 2
fi
# The hosts' end lives in a namespace of our own: nothing leaves this pair.
if ! ip netns add "$NS" 2>"$T/ip.err" || ! ip link set "$VA" netns "$NS"; then
	echo "check_capture: cannot create network namespace: $(cat "$T/ip.err")" >&2
	exit 2
fi
sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=1" 2>/dev/null # no RS/MLD noise
ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$VA.disable_ipv6=1" 2>/dev/null
ip link set "$VB" up
ip netns exec "$NS" ip link set "$VA" up

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
check_true() { # check_true NAME DESCRIPTION CONDITION...
	local name=$1 what=$2
	shift 2
	if "$@"; then
		echo "PASS $name: $what"
		passed=$((passed + 1))
	else
		echo "FAIL $name: $what"
		failed=$((failed + 1))
	fi
}
ctl() { timeout 10 "$CTL_BIN" -s "$SOCK" "$@"; }
ctl_json() { ctl --json "$@"; }
jq_py() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

. "$ROOT/scripts/lib.sh"
MEM=$(aif_eal_mem_choice 512 1024) # (hugepages on demand, else 4 KiB pages)

cat > "$T/cfg.json" <<'EOF'
{
  "policies": {"default": {"qos": {"buffer": {"size_bytes": 262144},
                                   "ecn": {"mode": "off"}}}},
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
    "routes": [{"prefix": "10.1.0.0/16", "group": "up"}, {"prefix": "10.9.0.0/16", "action": "drop"}]
  }],
  "hosts": [{"name": "h0", "switch": "leaf0", "port": "p0", "ip": "10.0.0.2", "mac": "02:00:00:00:00:02"}]
}
EOF

# $MEM is "--in-memory" or "--no-huge -m 1024": split on purpose.
# shellcheck disable=SC2086
timeout -k 5 120 "$BIN" -l 0-1 --file-prefix "$PREFIX" --no-pci $MEM \
	--vdev "net_pcap0,rx_iface_in=$VB,tx_iface=$VB" \
	--vdev "net_pcap1,tx_pcap=$T/out_p1.pcap" \
	-- --config "$T/cfg.json" --socket "$SOCK" --capture-dir "$CAPDIR" \
	> "$T/daemon.log" 2>&1 < /dev/null &
DPID=$!
for _ in $(seq 100); do
	ctl status >/dev/null 2>&1 && break
	kill -0 "$DPID" 2>/dev/null || break
	sleep 0.2
done
if ! ctl status >/dev/null 2>&1; then
	echo "check_capture: aifabric did not come up" >&2
	cat "$T/daemon.log" >&2
	exit 2
fi

# ---- the control requests ----
NAME_RULE="(1..128 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-')"
out=$(ctl capture start p9 p9.pcapng 2>&1); rc=$?
check "capture start: unknown port" "1 error: unknown port 'p9'" "$rc $out"
out=$(ctl capture start p0 "$T/x.pcapng" 2>&1); rc=$?
check "capture start: a path is refused" \
	"1 error: \"file\": file name contains '/' (a name, not a path) $NAME_RULE; captures go to $CAPDIR" \
	"$rc $out"
out=$(ctl capture start p0 .hidden 2>&1); rc=$?
check "capture start: a hidden name is refused" \
	"1 error: \"file\": file name starts with '.' $NAME_RULE; captures go to $CAPDIR" "$rc $out"
out=$(ctl capture start p0 p0.pcapng --snaplen 10 2>&1); rc=$?
check "capture start: snaplen" "1 error: snaplen 10 out of range 64..65535" "$rc $out"
out=$(ctl capture stop p1 2>&1); rc=$?
check "capture stop: idle port" "1 error: port p1 is not capturing" "$rc $out"
out=$(ctl capture start p1 p1.pcapng --max-packets 0 2>&1); rc=$?
check "capture start: max_packets" '1 error: "max_packets" must be an integer >= 1' "$rc $out"

# the directory is made on first use; then a link and a FIFO planted in it
out=$(ctl capture start p1 first.pcapng 2>&1); rc=$?
check "capture start p1 (makes the directory)" "0" "$rc"
ctl capture stop p1 >/dev/null
check "capture directory mode" "750" "$(stat -c %a "$CAPDIR")"
echo keep > "$T/target"
ln -s "$T/target" "$CAPDIR/link.pcapng"
mkfifo "$CAPDIR/fifo.pcapng"
out=$(ctl capture start p1 link.pcapng 2>&1); rc=$?
check "capture start: a symbolic link is refused" \
	"1 error: cannot capture to link.pcapng in $CAPDIR: it is a symbolic link" "$rc $out"
check "the link's target is untouched" "keep" "$(cat "$T/target")"
out=$(ctl --timeout 5 capture start p1 fifo.pcapng 2>&1); rc=$?
check "capture start: a FIFO is refused at once" \
	"1 error: cannot capture to fifo.pcapng in $CAPDIR: not a regular file (a FIFO or a socket)" \
	"$rc $out"
check "the daemon still answers" "0" "$(ctl status >/dev/null 2>&1; echo $?)"

ctl clear counters >/dev/null
out=$(ctl capture start p0 p0.pcapng --drops --snaplen 256 2>&1); rc=$?
check "capture start p0" "0" "$rc"
check "capture file mode" "640" "$(stat -c %a "$CAP")"
out=$(ctl capture start p0 other.pcapng 2>&1); rc=$?
check "capture start: capturing already" "1 error: port p0 is capturing already (to $CAP)" "$rc $out"
check "show captures" "p0 p0.pcapng $CAP True 256 1073741824 None None" \
	"$(ctl_json show captures | jq_py '" ".join(str(x) for c in d for x in (c["port"], c["file"], c["path"], c["drops"], c["snaplen"], c["max_bytes"], c["max_packets"], c["limit_reached"]))')"
# p1 forwards the lossless frames: capture at most 10 of them
out=$(ctl capture start p1 p1.pcapng --max-packets 10 2>&1); rc=$?
check "capture start p1 --max-packets 10" "0" "$rc"
ctl show captures

# ---- traffic ----
t_send=$(date +%s.%N)
if ! ip netns exec "$NS" "$PY" - "$VA" > "$T/sent.txt" 2> "$T/scapy.err" <<'EOF'
import sys
from scapy.all import ARP, Ether, IP, UDP, Raw, sendp
iface = sys.argv[1]
sw, h0 = "02:00:00:00:00:10", "02:00:00:00:00:02"
pkts = [Ether(dst="ff:ff:ff:ff:ff:ff", src=h0) /
        ARP(op=1, hwsrc=h0, psrc="10.0.0.2", pdst="10.0.0.1")]
for i in range(400):  # DSCP 26 = TC3, lossless; ECT(0)
    pkts.append(Ether(dst=sw, src=h0) / IP(src="10.0.0.2", dst="10.1.0.5", tos=0x6a) /
                UDP(sport=10000 + i % 16, dport=5001) / Raw(b"\x00" * 958))
for i in range(3):
    pkts.append(Ether(dst=sw, src=h0) / IP(src="10.0.0.2", dst="10.1.0.6", ttl=1) /
                UDP(sport=1, dport=2) / Raw(b"ttl"))
for i in range(4):
    pkts.append(Ether(dst=sw, src=h0) / IP(src="10.0.0.2", dst="10.9.0.7") /
                UDP(sport=1, dport=2) / Raw(b"dropped by route"))
for i in range(5):
    pkts.append(Ether(dst="02:00:00:00:99:99", src=h0) / IP(src="10.0.0.2", dst="10.1.0.7") /
                UDP(sport=1, dport=2) / Raw(b"other mac"))
for i in range(2):
    pkts.append(Ether(dst=sw, src=h0, type=0x0800) / Raw(b"\x45\x00\x00\x54\x00\x00"))
sendp(pkts, iface=iface, verbose=False)
print(len(pkts))
EOF
then
	echo "check_capture: scapy failed: $(cat "$T/scapy.err")" >&2
	exit 2
fi
SENT=$(cat "$T/sent.txt")
t_sent=$(date +%s.%N)
sleep 2 # the shaped queue drains, XON goes out
ctl_json show counters > "$T/counters.json"
check "show captures: p1 reached its packet cap" "10 max_packets" \
	"$(ctl_json show captures | jq_py '" ".join(str(x) for c in d if c["port"] == "p1" for x in (c["packets_written"], c["limit_reached"]))')"
p1_json=$(ctl_json capture stop p1)
check "capture stop p1: written, limit" "10 max_packets" \
	"$(jq_py '" ".join(str(x) for x in (d["packets_written"], d["limit_reached"]))' <<<"$p1_json")"
check "p1's file holds 10 frames" "10" "$(tshark -r "$CAPDIR/p1.pcapng" 2>/dev/null | wc -l | tr -d ' ')"
stop_json=$(ctl_json capture stop p0); rc=$?
check "capture stop p0" "0" "$rc"
echo "$stop_json" > "$T/stop.json"
ctl_json show pfc > "$T/pfc.json"
check "show captures after stop" "0" "$(ctl_json show captures | jq_py 'len(d)')"

# ---- what tshark sees ----
TS=(tshark -r "$CAP")
if ! "${TS[@]}" -T fields -e frame.number > /dev/null 2> "$T/tshark.err"; then
	echo "FAIL tshark cannot read $CAP: $(cat "$T/tshark.err")"
	failed=$((failed + 1))
fi
count() { "${TS[@]}" -Y "$1" 2>/dev/null | wc -l | tr -d ' '; }
fields() { local filter=$1; shift; "${TS[@]}" -Y "$filter" -T fields "$@" 2>/dev/null; }

total=$(count "frame")
check "capture_stop packets_written = frames in the file" "$total" \
	"$(jq_py 'd["packets_written"]' < "$T/stop.json")"
check "capture_stop packets_skipped" "0" "$(jq_py 'd["packets_skipped"]' < "$T/stop.json")"
check "interface name" "p0" "$(fields frame -e frame.interface_name | sort -u | tr '\n' ' ' | sed 's/ $//')"
# the kernel's packet socket may lose one of a burst before the switch
# sees it: compare with what the switch counted, and that with what was sent
rx_p0=$(jq_py '[p for p in d["ports"] if p["name"] == "p0"][0]["rx_packets"]' < "$T/counters.json")
check "frames in (direction 1) = show counters p0 rx_packets" "$rx_p0" \
	"$(count 'frame.packet_flags_direction == 1')"
check_true "p0 received what scapy sent" "$rx_p0 of $SENT (at most 2 lost on the veth)" \
	[ "$rx_p0" -le "$SENT" ] && [ "$rx_p0" -ge $((SENT - 2)) ]
check "frames of unknown direction" "0" "$(count '!frame.packet_flags_direction')"
data=$(fields 'udp.dstport == 5001 && ip.dsfield.dscp == 26 && frame.packet_flags_direction == 1' \
	-e frame.cap_len -e frame.len | sort | uniq -c | awk '{print $1, $2, $3}')
check_true "lossless data frames in, cut to snaplen 256" "$data (count cap_len len)" \
	[ "$(cut -d' ' -f2- <<<"$data")" = "256 1000" ] && [ "$(cut -d' ' -f1 <<<"$data")" -ge 398 ]
check "ARP reply out" "1 10.0.0.1 02:00:00:00:00:02" \
	"$(fields 'arp.opcode == 2 && frame.packet_flags_direction == 2' -e arp.src.proto_ipv4 \
		-e eth.dst | sort | uniq -c | awk '{print $1, $2, $3}')"

pfc_out=$(count 'macc.opcode == 0x0101 && frame.packet_flags_direction == 2')
check_true "PFC frames out" "$pfc_out PFC frames, outbound" [ "$pfc_out" -gt 0 ]
check "PFC frames: dissected as MAC control PFC from p0, class 3 only" \
	"eth:ethertype:macc 01:80:c2:00:00:01 02:00:00:00:00:10 0x0008" \
	"$(fields 'macc' -e frame.protocols -e eth.dst -e eth.src -e macc.cbfc.enbv | sort -u | tr '\t' ' ')"
xoff_cap=$(count 'macc.opcode == 0x0101 && macc.cbfc.pause_time.c3 > 0')
xon_cap=$(count 'macc.opcode == 0x0101 && macc.cbfc.pause_time.c3 == 0')
check "PFC XOFF frames (c3 = 65535) = show pfc tx_pfc[3]" \
	"$(jq_py '[p for p in d if p["name"] == "p0"][0]["tx_pfc"][3]' < "$T/pfc.json")" "$xoff_cap"
check "PFC XON frames (c3 = 0) = show pfc tx_xon[3]" \
	"$(jq_py '[p for p in d if p["name"] == "p0"][0]["tx_xon"][3]' < "$T/pfc.json")" "$xon_cap"
check "XOFF quanta" "65535" \
	"$(fields 'macc.cbfc.pause_time.c3 > 0' -e macc.cbfc.pause_time.c3 | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "ICMP time exceeded out for each TTL-1 frame, from p0's 10.0.0.1 to its sender" \
	"3 10.0.0.1 10.0.0.2 0 64" \
	"$(fields 'icmp.type == 11 && frame.packet_flags_direction == 2' -E occurrence=f -e ip.src \
		-e ip.dst -e icmp.code -e ip.ttl | sort | uniq -c | awk '{print $1, $2, $3, $4, $5}')"
check "each quotes its frame as it came in (to 10.1.0.6, TTL 1)" "3 10.1.0.6 1" \
	"$(fields 'icmp.type == 11 && frame.packet_flags_direction == 2' -E occurrence=l -e ip.dst \
		-e ip.ttl | sort | uniq -c | awk '{print $1, $2, $3}')"
check "nothing else out (forwarded frames leave by p1)" "0" \
	"$(count 'frame.packet_flags_direction == 2 && !macc && !(arp.opcode == 2) && !(icmp.type == 11)')"

# drop comments: per reason, as many as show counters says for p0, on the right frames
want=$(jq_py '" ".join("%s=%d" % (k, v) for k, v in sorted(
	[p for p in d["ports"] if p["name"] == "p0"][0]["drops"].items()) if v)' < "$T/counters.json")
got=$(fields 'frame.comment' -e frame.comment | sed 's/^drop: //' | sort | uniq -c |
	awk '{printf "%s%s=%d", (NR > 1 ? " " : ""), $2, $1}')
check "drop comments per reason = show counters p0 drops" "$want" "$got"
check "drop reasons seen" "yes" "$(for r in ttl_expired no_route l2_not_for_us truncated; do
	grep -q "$r=" <<<"$got" || { echo "no $r"; exit; }; done; echo yes)"
check "ttl_expired frames have TTL 1" "3 1" \
	"$(fields 'frame.comment == "drop: ttl_expired"' -e ip.ttl | sort | uniq -c | awk '{print $1, $2}')"
check "no_route frames go to the drop route" "4 10.9.0.7" \
	"$(fields 'frame.comment == "drop: no_route"' -e ip.dst | sort | uniq -c | awk '{print $1, $2}')"
check "l2_not_for_us frames are to another MAC" "5 02:00:00:00:99:99" \
	"$(fields 'frame.comment == "drop: l2_not_for_us"' -e eth.dst | sort | uniq -c | awk '{print $1, $2}')"
check "truncated frames are 20 bytes" "2 20" \
	"$(fields 'frame.comment == "drop: truncated"' -e frame.len | sort | uniq -c | awk '{print $1, $2}')"
check "drop comments only on inbound frames" "0" \
	"$(count 'frame.comment && frame.packet_flags_direction != 1')"
check "capture_stop drops_annotated" "$(count 'frame.comment')" \
	"$(jq_py 'd["drops_annotated"]' < "$T/stop.json")"
first=$(fields 'frame.number == 1' -e frame.time_epoch)
last=$(fields frame -e frame.time_epoch | tail -1)
check "timestamps: wall clock, while scapy sent (+-50 ms)" "yes" \
	"$(awk -v a="$t_send" -v b="$t_sent" -v f="${first:-0}" \
		'BEGIN { print (f >= a - 0.05 && f <= b + 0.05) ? "yes" : "first frame " f ", sent " a ".." b }')"
check "timestamps: in order, span under 3 s" "yes" \
	"$(awk -v f="${first:-0}" -v l="${last:-0}" 'BEGIN { print (l >= f && l - f < 3) ? "yes" : f " .. " l }')"

echo "--- tshark excerpts ---"
"${TS[@]}" -Y 'frame.number <= 2 || macc || arp || frame.comment' \
	-T fields -e frame.number -e frame.interface_name -e frame.packet_flags_direction \
	-e frame.len -e frame.cap_len -e _ws.col.Protocol -e _ws.col.Info -e frame.comment \
	2>/dev/null | awk -F'\t' '!seen[$3 $6 $8]++' | head -12
echo "----------------------"

kill -TERM "$DPID" 2>/dev/null
wait "$DPID"; rc=$?
DPID=
check "aifabric exit status" "0" "$rc"
check "mbufs returned" "yes" "$(grep -q 'all returned to the pool' "$T/daemon.log" && echo yes || echo no)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
