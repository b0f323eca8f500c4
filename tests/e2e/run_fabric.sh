#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A generated 4-leaf x 2-spine fabric in one aifabric process, fed with
# scapy-made RoCEv2 captures and checked with scapy and tshark:
#
#  1. virtual time (--virtual-time, pcap edge ports): 96 flows from host
#     leaf0-0 to the other leaves' hosts come out of the right edge ports,
#     TTL 61, MACs, IPv4 checksum and ICRC valid, PSNs in order, the first
#     frame at its exact arrival time, both spines used; a second run gives
#     byte-identical output files and counters;
#  2. real time, the same fabric with net_pcap edge ports: the same checks
#     but the timing; again with two runners, the switches split between
#     them and links crossing from one to the other;
#  2c. the fabric split over two daemons (2 leaves, 1 spine): one runs
#     leaf0, the other leaf1 and spine0; the cut link leaf0:u0-spine0:d0 is
#     a veth pair, net_af_packet on each end ("emulate", "link_devices"),
#     the second daemon in a network namespace of its own.  The capture sent into leaf0's host port on the first daemon comes out
#     of leaf1's host port on the second, every frame, TTL 61 (leaf0, then
#     across the wire spine0 and leaf1), ICRC valid; with leaf1's host at
#     1 Gb/s and a small buffer, spine0's PFC frames (XOFF, XON) cross the
#     wire and leaf0 takes every one as PFC; with BFD on both ends of the
#     cut link (20 ms): the link down until the sessions are up, leaf0's
#     end taken down by hand and spine0 told (AdminDown), leaf0's daemon
#     stopped and spine0 finding it gone (detection time), up again each
#     time, and tshark reading the packets (RFC 5880: states, poll and
#     final, TTL 255, checksums).  SKIP (not a failure) where
#     this user may not create a veth pair or a network namespace;
#  3. a spine link taken down mid-run (--link): only the frames on its wire
#     lost, nothing dropped by a switch, the other spine takes the rest;
#  3b. the same fabric written out (switches, links, hosts; no generator)
#     with an uplink down from the start, every host sending (--traffic):
#     every switch routes around it (the spines' routes to that leaf
#     withdrawn at the other leaves), so nothing is dropped or lost;
#  4. --traffic: the generated RoCEv2 frames arrive with a valid ICRC
#     (scapy), routed through three switches; with a link corrupting every
#     frame, exactly the frames it corrupted fail their ICRC;
#  5. 3-to-1 incast with PFC in virtual time (25 Gb/s hosts, 2 MB buffers):
#     no drop, every frame delivered, pauses on every hop back to the
#     senders' hosts (counted per link), the same pause timeline and files
#     in two runs; tshark dissects the PFC frames the hosts received;
#  6. the exit summary: the 4 x 2 fabric's full tables, ports named
#     switch:port (in real time too); a k=8 fat-tree's at most 30 lines, its worst link the
#     busiest of the --stats file, which has every switch, port and link.
#
#   tests/e2e/run_fabric.sh [path/to/aifabric]      (default build/aifabric)
#
# Env: FABRIC_KEEP=1 keeps the temp dir; FABRIC_VT_ONLY=1 skips real time.  Needs python3-scapy
# (/usr/bin/python3), tshark and the net_pcap PMD.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/aifabric}
PY=/usr/bin/python3
FT="$HERE/fabric_traffic.py"

if [ ! -x "$BIN" ]; then
	echo "run_fabric: $BIN is not an executable (build first)" >&2
	exit 2
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
T=$(mktemp -d /tmp/aif-fabric.XXXXXX)
PREFIX=aif-fabric-$$
# The counters of a --stats file, without what the machine decides: the
# loop's wall time, peak memory, and the runners' CPU, wall and barrier
# times (their events, packet-hops and windows stay)
counters() {
	"$PY" - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("elapsed_s", None)
d.pop("peak_rss_kb", None)
r = d.get("runners")
if isinstance(r, dict):
    for k in [k for k in r if k.endswith("_s") or k.endswith("_us")]:
        del r[k]
    r["runners"] = [{k: x[k] for k in ("events", "packet_hops")} for x in r.get("runners", [])]
print(json.dumps(d, indent=1, sort_keys=True))
EOF
}

fail() {
	echo "run_fabric: FAIL: $*" >&2
	for f in "$T"/*.log; do
		[ -s "$f" ] || continue
		echo "----- $f -----" >&2
		tail -n 60 "$f" >&2
	done
	echo "run_fabric: files kept in $T" >&2
	rm -rf "/var/run/dpdk/$PREFIX"
	exit 1
}

cat > "$T/ls.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 1,
  "host_gbps": 100, "uplink_gbps": 100, "delay_ns": 1000,
  "host_devices": ["net_pcap0", "net_pcap1", "net_pcap2", "net_pcap3"]}}}
EOF
"$PY" "$FT" gen --out "$T/in.pcap" --leaves 4 --flows 96 || fail "traffic generation"

# 1. virtual time, twice
for run in a b; do
	mkdir -p "$T/vt_$run"
	timeout -k 5 120 "$BIN" -- --config "$T/ls.json" --virtual-time \
		--pcap-in "leaf0:h0=$T/in.pcap" --pcap-out "$T/vt_$run" \
		--stats "$T/vt_$run.json" > "$T/vt_$run.log" 2>&1 < /dev/null ||
		fail "virtual-time run $run exited with status $?"
done
echo "virtual time:"
"$PY" "$FT" check --leaves 4 --spines 2 --in "$T/in.pcap" --out-dir "$T/vt_a" \
	--stats "$T/vt_a.json" --timing || fail "virtual-time output"
for f in "$T"/vt_a/*.pcap; do
	cmp -s "$f" "$T/vt_b/$(basename "$f")" || fail "$(basename "$f") differs between two runs"
done
counters "$T/vt_a.json" > "$T/vt_a.cmp" && counters "$T/vt_b.json" > "$T/vt_b.cmp" ||
	fail "vt: stats unreadable"
cmp -s "$T/vt_a.cmp" "$T/vt_b.cmp" || fail "counters differ between two runs"
echo "  ok   two runs: identical output files and counters"

# 2. real time, net_pcap edge ports (FABRIC_VT_ONLY=1: skipped)
if [ "${FABRIC_VT_ONLY:-0}" != 1 ]; then
mkdir -p "$T/rt"
rc=0
timeout -k 5 60 "$BIN" -l 0-1 --file-prefix "$PREFIX" --no-pci --no-huge -m 1024 \
	--no-telemetry --log-level error \
	--vdev "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/rt/leaf0-h0.pcap" \
	--vdev "net_pcap1,tx_pcap=$T/rt/leaf1-h0.pcap" \
	--vdev "net_pcap2,tx_pcap=$T/rt/leaf2-h0.pcap" \
	--vdev "net_pcap3,tx_pcap=$T/rt/leaf3-h0.pcap" \
	-- --config "$T/ls.json" --socket "$T/aifabric.sock" --duration 4 \
	--stats "$T/rt.json" > "$T/rt.log" 2>&1 < /dev/null &
pid=$!
# the live fabric through aifabricctl: its links and computed routes
CTL="$ROOT/build/aifabricctl"
for _ in $(seq 1 100); do [ -S "$T/aifabric.sock" ] && break; sleep 0.1; done
if [ -x "$CTL" ] && [ -S "$T/aifabric.sock" ]; then
	"$CTL" -s "$T/aifabric.sock" --switch leaf0 show links > "$T/ctl_links.log" 2>&1 ||
		{ kill "$pid"; wait "$pid" || true; fail "aifabricctl show links"; }
	"$CTL" -s "$T/aifabric.sock" --switch leaf0 show routes > "$T/ctl_routes.log" 2>&1 ||
		{ kill "$pid"; wait "$pid" || true; fail "aifabricctl show routes"; }
	"$CTL" -s "$T/aifabric.sock" --switch leaf0 show topology > "$T/ctl_topo.log" 2>&1 ||
		{ kill "$pid"; wait "$pid" || true; fail "aifabricctl show topology"; }
	# rates JSON cannot carry: refused by the client, not sent as "nothing"
	for bad in loss=nan loss=inf corrupt=-inf loss=1.5; do
		if "$CTL" -s "$T/aifabric.sock" link leaf0:u0 "$bad" > "$T/ctl_bad.log" 2>&1 ||
			! grep -q 'a rate is a number 0\.\.1' "$T/ctl_bad.log"; then
			kill "$pid"; wait "$pid" || true
			fail "aifabricctl link leaf0:u0 $bad: not refused ($(cat "$T/ctl_bad.log"))"
		fi
	done
fi
wait "$pid" || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "real-time run exited with status $rc"
if [ -x "$CTL" ]; then
	grep -q 'leaf0:u0 .*spine0:d0 .*100G' "$T/ctl_links.log" &&
		grep -q 'spine1:d0 .*leaf0:u1' "$T/ctl_links.log" ||
		fail "show links --switch leaf0: not leaf0's uplinks both ways"
	! grep -q 'leaf1:u' "$T/ctl_links.log" || fail "show links --switch leaf0 shows leaf1's links"
	grep -q '10.3.0.0/24 .*via-spine0-spine1' "$T/ctl_routes.log" ||
		fail "show routes --switch leaf0: no computed route to leaf3's hosts over both spines"
	grep -q '^h0 .*dpdk .*net_pcap0 .*host leaf0-0' "$T/ctl_topo.log" &&
		grep -q '^u1 .*link .*spine1:d0' "$T/ctl_topo.log" ||
		fail "show topology --switch leaf0: not its host port and uplinks"
	echo "  ok   aifabricctl: show links, routes and topology --switch leaf0 on the live fabric;"
	echo "       link leaf0:u0 loss=nan, loss=inf, corrupt=-inf, loss=1.5 refused"
fi
echo "real time (net_pcap):"
"$PY" "$FT" check --leaves 4 --spines 2 --in "$T/in.pcap" --out-dir "$T/rt" \
	--stats "$T/rt.json" || fail "real-time output"
# its exit summary: the DPDK edge ports by switch:port, each host's once
for i in 0 1 2 3; do
	[ "$(sed -n '/^summary:/,$p' "$T/rt.log" | grep -c "^  edge leaf$i:h0 ")" = 1 ] ||
		fail "real-time exit summary: no single row for edge port leaf$i:h0"
done
echo "  ok   exit summary: edge ports leaf0:h0 .. leaf3:h0, one row each"

# 2b. real time with two runners (lcores 1 and 2, both on CPU 1 of a
# 2-core machine): the switches split between them, the links between the
# two halves crossing runners
mkdir -p "$T/rt2"
rc=0
timeout -k 5 60 "$BIN" --lcores '0@0,1@1,2@1' --file-prefix "$PREFIX" --no-pci --no-huge \
	-m 1024 --no-telemetry --log-level error \
	--vdev "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/rt2/leaf0-h0.pcap" \
	--vdev "net_pcap1,tx_pcap=$T/rt2/leaf1-h0.pcap" \
	--vdev "net_pcap2,tx_pcap=$T/rt2/leaf2-h0.pcap" \
	--vdev "net_pcap3,tx_pcap=$T/rt2/leaf3-h0.pcap" \
	-- --config "$T/ls.json" --socket "$T/aifabric2.sock" --duration 2 \
	--stats "$T/rt2.json" > "$T/rt2.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "two-runner real-time run exited with status $rc"
grep -q 'runner 0 (lcore 1): leaf0 leaf2 spine0' "$T/rt2.log" &&
	grep -q 'runner 1 (lcore 2): leaf1 leaf3 spine1' "$T/rt2.log" ||
	fail "two runners: not the switches spread over both"
echo "real time, two runners (net_pcap):"
"$PY" "$FT" check --leaves 4 --spines 2 --in "$T/in.pcap" --out-dir "$T/rt2" \
	--stats "$T/rt2.json" || fail "two-runner real-time output"
fi

# 2c. two daemons, one fabric: the cut link a veth pair (net_af_packet),
# the second daemon and its end in a network namespace of their own
# (net_af_packet joins a fanout group numbered (pid ^ ifindex) & 0xffff,
# one numbering per namespace: two daemons in one could draw the same
# number for their two devices, and the second's start then fails)
SPLIT_VETH= SPLIT_NS=
split_cleanup() {
	local p
	for p in ${pa:-} ${pb:-}; do kill -TERM "$p" 2>/dev/null || true; done
	[ -z "$SPLIT_VETH" ] || ip link del "$SPLIT_VETH" 2>/dev/null || true
	[ -z "$SPLIT_NS" ] || ip netns del "$SPLIT_NS" 2>/dev/null || true
	rm -rf "/var/run/dpdk/$PREFIX-a" "/var/run/dpdk/$PREFIX-b"
}
# split_eal SIDE PCAP_VDEV IFACE: the EAL arguments of one of the two
# daemons (SIDE a or b: its own file prefix), its host port on net_pcap
# (PCAP_VDEV, the vdev with its arguments), its cut link on net_af_packet0
# over IFACE, into the array EAL_SPLIT (the daemon is started as a direct
# child of timeout, which passes a TERM on)
split_eal() {
	EAL_SPLIT=(-l 0-1 --file-prefix "$PREFIX-$1" --no-pci --no-huge -m 1024 --no-telemetry
		   --log-level error --vdev "$2" --vdev "net_af_packet0,iface=$3")
}
split_run() {
	local A=aifspA$$ B=aifspB$$ NS=aifspN$$ CTL="$(dirname "$BIN")/aifabricctl" rca=0 rcb=0
	pa= pb=
	if ! ip link add "$A" type veth peer name "$B" > "$T/veth.log" 2>&1; then
		echo "  SKIP two daemons over a veth pair: cannot create one" \
			"($(head -n 1 "$T/veth.log"))"
		return 0
	fi
	SPLIT_VETH=$A
	trap split_cleanup EXIT
	if ! { ip netns add "$NS" && SPLIT_NS=$NS && ip link set "$B" netns "$NS"; } >> "$T/veth.log" 2>&1; then
		echo "  SKIP two daemons over a veth pair: no network namespace for the second" \
			"($(tail -n 1 "$T/veth.log"))"
		split_cleanup
		SPLIT_VETH= SPLIT_NS=
		trap - EXIT
		return 0
	fi
	# no frame of the kernel's own (IPv6 ND, MLD) on the wire
	sysctl -qw "net.ipv6.conf.$A.disable_ipv6=1" 2>/dev/null || true
	ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$B.disable_ipv6=1" 2>/dev/null || true
	ip link set "$A" up
	ip -n "$NS" link set "$B" up
	cat > "$T/split_a.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 2, "spines": 1,
  "host_devices": ["net_pcap0", "net_pcap1"],
  "emulate": ["leaf0"], "link_devices": {"leaf0:u0": "net_af_packet0"}}}}
EOF
	cat > "$T/split_b.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 2, "spines": 1,
  "host_devices": ["net_pcap0", "net_pcap1"],
  "emulate": ["leaf1", "spine0"], "link_devices": {"spine0:d0": "net_af_packet0"}}}}
EOF
	"$PY" "$FT" gen --out "$T/split_in.pcap" --leaves 2 --flows 48 > /dev/null ||
		fail "split: traffic generation"
	mkdir -p "$T/split"
	# the second daemon first: it receives what the first sends at once
	split_eal b "net_pcap1,tx_pcap=$T/split/leaf1-h0.pcap" "$B"
	ip netns exec "$NS" timeout -k 5 30 "$BIN" "${EAL_SPLIT[@]}" -- --config "$T/split_b.json" \
		--socket "$T/split_b.sock" \
		> "$T/split_b.log" 2>&1 < /dev/null &
	pb=$!
	for _ in $(seq 1 100); do [ -S "$T/split_b.sock" ] && break; sleep 0.1; done
	if [ ! -S "$T/split_b.sock" ]; then
		kill "$pb" 2>/dev/null
		wait "$pb" || true
		fail "split: the second daemon (leaf1, spine0) did not start"
	fi
	split_eal a "net_pcap0,rx_pcap=$T/split_in.pcap,tx_pcap=$T/split/leaf0-h0.pcap" "$A"
	timeout -k 5 30 "$BIN" "${EAL_SPLIT[@]}" -- --config "$T/split_a.json" \
		--socket "$T/split_a.sock" --duration 1 \
		> "$T/split_a.log" 2>&1 < /dev/null || rca=$?
	kill -TERM "$pb" 2>/dev/null
	wait "$pb" || rcb=$?
	pb=
	[ "$rca" -eq 0 ] || fail "split: the first daemon (leaf0) exited with status $rca"
	[ "$rcb" -eq 0 ] || fail "split: the second daemon (leaf1, spine0) exited with status $rcb"
	echo "split over two daemons (a veth pair between leaf0:u0 and spine0:d0):"
	"$PY" "$FT" check --leaves 2 --spines 1 --in "$T/split_in.pcap" \
		--files "$T/split/leaf{i}-h0.pcap" || fail "split: output"
	# PFC over the wire: leaf1's host at 1 Gb/s and a 200 KB buffer on the
	# second daemon: spine0 pauses leaf0 through its device port, and leaf0
	# on the first daemon takes every XOFF and XON as PFC.  (Frames may be
	# lost here: the headroom counts a 1 us cable, not the veth's delay.)
	sed 's/"leaf_spine": {/"leaf_spine": {"host_gbps": 1, /; 1s/^{/{"policies": {"default": {"qos": {"buffer": {"size_bytes": 200000}}}},\n /' \
		"$T/split_a.json" > "$T/split_pa.json"
	sed 's/"leaf_spine": {/"leaf_spine": {"host_gbps": 1, /; 1s/^{/{"policies": {"default": {"qos": {"buffer": {"size_bytes": 200000}}}},\n /' \
		"$T/split_b.json" > "$T/split_pb.json"
	mkdir -p "$T/split_pfc"
	split_eal b "net_pcap1,tx_pcap=$T/split_pfc/leaf1-h0.pcap" "$B"
	ip netns exec "$NS" timeout -k 5 30 "$BIN" "${EAL_SPLIT[@]}" -- --config "$T/split_pb.json" \
		--socket "$T/split_pb.sock" \
		> "$T/split_pb.log" 2>&1 < /dev/null &
	pb=$!
	for _ in $(seq 1 100); do [ -S "$T/split_pb.sock" ] && break; sleep 0.1; done
	split_eal a "net_pcap0,rx_pcap=$T/split_in.pcap,tx_pcap=$T/split_pfc/leaf0-h0.pcap" "$A"
	timeout -k 5 30 "$BIN" "${EAL_SPLIT[@]}" -- --config "$T/split_pa.json" \
		--socket "$T/split_pa.sock" \
		> "$T/split_pa.log" 2>&1 < /dev/null &
	pa=$!
	# until leaf0 has taken on u0 every PFC frame spine0 sent out of d0, one
	# at least (at most 10 s)
	for _ in $(seq 1 100); do
		"$CTL" -s "$T/split_pa.sock" --json --switch leaf0 show pfc > "$T/split_pfc_a.json" 2>&1 || true
		"$CTL" -s "$T/split_pb.sock" --json --switch spine0 show pfc > "$T/split_pfc_b.json" 2>&1 || true
		"$PY" - "$T/split_pfc_a.json" "$T/split_pfc_b.json" > "$T/split_pfc.txt" 2>&1 <<'EOF' && break
import json, sys
a = {p["name"]: p for p in json.load(open(sys.argv[1]))}["u0"]
b = {p["name"]: p for p in json.load(open(sys.argv[2]))}["d0"]
assert b["tx_pfc"][3] > 0, "spine0 sent no PFC out of d0: %s" % b
assert a["rx_malformed"] == 0, "leaf0 u0 refused MAC control frames: %s" % a
assert (a["rx_pfc"], a["rx_xon"]) == (b["tx_pfc"], b["tx_xon"]), (a, b)
print("  ok   PFC over the wire: spine0:d0 sent %d PFC frames for class 3 (%d XON), "
      "leaf0:u0 took them all as such" % (b["tx_pfc"][3], b["tx_xon"][3]))
EOF
		sleep 0.1
	done
	kill -TERM "$pa" "$pb" 2>/dev/null
	rca=0 rcb=0
	wait "$pa" || rca=$?
	wait "$pb" || rcb=$?
	pa= pb=
	[ "$rca" -eq 0 ] && [ "$rcb" -eq 0 ] ||
		fail "split, PFC: the daemons exited with status $rca and $rcb"
	grep -q '^  ok   PFC over the wire' "$T/split_pfc.txt" ||
		fail "split: PFC over the wire: $(tail -n 1 "$T/split_pfc.txt")"
	cat "$T/split_pfc.txt"
	split_bfd "$A" "$B" "$NS" "$CTL"
	split_cleanup
	SPLIT_VETH= SPLIT_NS=
	trap - EXIT
}

# bfd_state SOCK CTL SWITCH: "state remote_state diag" of the switch's one
# BFD session, as show bfd says
bfd_state() {
	"$2" -s "$1" --json --switch "$3" show bfd 2>/dev/null | "$PY" -c '
import json, sys
s = json.load(sys.stdin)[0]
print(s["state"], s["remote_state"], s["diag"])' 2>/dev/null || echo "none"
}
# bfd_wait SOCK CTL SWITCH WANT: until the session's "state remote diag"
# starts with WANT (at most 10 s)
bfd_wait() {
	local i
	for i in $(seq 1 100); do
		case "$(bfd_state "$1" "$2" "$3")" in "$4"*) return 0 ;; esac
		sleep 0.1
	done
	return 1
}
# bfd_link SOCK CTL SWITCH PORT: the port's link as show ports says
bfd_link() {
	"$2" -s "$1" --json --switch "$3" show ports 2>/dev/null | "$PY" -c '
import json, sys
print({p["name"]: p["link"] for p in json.load(sys.stdin)}[sys.argv[1]])' "$4" 2>/dev/null ||
		echo "none"
}

# The cut link with BFD on both ends (20 ms, x3): the handshake on the wire
# as tshark reads it (Down, Init, Up; the poll that moves to 20 ms answered
# by a final; TTL 255, CS6, both checksums good), the link in use only while
# Up; leaf0's end taken down by hand (aifabricctl link) and spine0 on the
# other daemon told so; leaf0's daemon stopped and spine0 finding it gone
# within its detection time, and both back once it runs again.
split_bfd() {
	local A=$1 B=$2 NS=$3 CTL=$4 rca=0 rcb=0 tpa tpb cpid f
	local SA="$T/split_bfd_a.sock" SB="$T/split_bfd_b.sock"
	for f in a b; do
		sed 's/"leaf_spine": {/"leaf_spine": {"bfd": {"interval_ms": 20}, /' \
			"$T/split_$f.json" > "$T/split_bfd_$f.json"
	done
	# what each end receives (a packet socket's own frames bypass the
	# others on its side): spine0's on A, leaf0's on B
	timeout -k 5 30 tshark -i "$A" -f "udp port 3784" -a duration:20 \
		-w "$T/split_bfd_a.pcapng" > "$T/split_bfd_tshark_a.log" 2>&1 &
	tpa=$!
	ip netns exec "$NS" timeout -k 5 30 tshark -i "$B" -f "udp port 3784" -a duration:20 \
		-w "$T/split_bfd_b.pcapng" > "$T/split_bfd_tshark_b.log" 2>&1 &
	tpb=$!
	for _ in $(seq 1 100); do
		grep -q "Capturing on" "$T/split_bfd_tshark_a.log" &&
			grep -q "Capturing on" "$T/split_bfd_tshark_b.log" && break
		sleep 0.1
	done
	split_eal b "net_pcap1,tx_pcap=$T/split_bfd_b.pcap" "$B"
	ip netns exec "$NS" timeout -k 5 40 "$BIN" "${EAL_SPLIT[@]}" -- \
		--config "$T/split_bfd_b.json" --socket "$SB" \
		> "$T/split_bfd_b.log" 2>&1 < /dev/null &
	pb=$!
	split_eal a "net_pcap0,tx_pcap=$T/split_bfd_a.pcap" "$A"
	timeout -k 5 40 "$BIN" "${EAL_SPLIT[@]}" -- --config "$T/split_bfd_a.json" \
		--socket "$SA" > "$T/split_bfd_a.log" 2>&1 < /dev/null &
	pa=$!
	bfd_wait "$SA" "$CTL" leaf0 "up up" && bfd_wait "$SB" "$CTL" spine0 "up up" ||
		fail "split, BFD: not up on both ends: leaf0 $(bfd_state "$SA" "$CTL" leaf0)," \
			"spine0 $(bfd_state "$SB" "$CTL" spine0)"
	for _ in $(seq 1 20); do [ "$(bfd_link "$SB" "$CTL" spine0 d0)" = up ] && break; sleep 0.1; done
	[ "$(bfd_link "$SB" "$CTL" spine0 d0)" = up ] || fail "split, BFD: spine0:d0 not up once BFD is"
	grep -q 'spine0:d0: link down (BFD not up)' "$T/split_bfd_b.log" ||
		fail "split, BFD: spine0:d0 was not down before its session came up"
	echo "  ok   BFD on the cut link: leaf0:u0 and spine0:d0 down until they heard each other, then up"
	# by hand: leaf0's end down, spine0 told, both out of use; then up
	"$CTL" -s "$SA" link leaf0:u0 down > /dev/null || fail "split, BFD: link leaf0:u0 down"
	[ "$(bfd_link "$SA" "$CTL" leaf0 u0)" = down ] || fail "split, BFD: leaf0:u0 still up"
	bfd_wait "$SB" "$CTL" spine0 "down admin_down neighbor_signaled_session_down" ||
		fail "split, BFD: spine0 not told: $(bfd_state "$SB" "$CTL" spine0)"
	for _ in $(seq 1 20); do [ "$(bfd_link "$SB" "$CTL" spine0 d0)" = down ] && break; sleep 0.1; done
	[ "$(bfd_link "$SB" "$CTL" spine0 d0)" = down ] ||
		fail "split, BFD: spine0:d0 stayed up with its session down"
	echo "  ok   leaf0:u0 down by hand (AdminDown): spine0 on the other daemon took d0 down"
	"$CTL" -s "$SA" link leaf0:u0 up > /dev/null || fail "split, BFD: link leaf0:u0 up"
	bfd_wait "$SB" "$CTL" spine0 "up up" && bfd_wait "$SA" "$CTL" leaf0 "up up" ||
		fail "split, BFD: not up again after leaf0:u0 up"
	echo "  ok   leaf0:u0 up again: the handshake once more, both ends up"
	# leaf0's daemon stopped: nothing on the wire, spine0 gives up on it
	cpid=$(pgrep -P "$pa" | head -n 1)
	kill -STOP "$cpid"
	bfd_wait "$SB" "$CTL" spine0 "down down control_detection_time_expired" || {
		kill -CONT "$cpid"
		fail "split, BFD: spine0 did not find leaf0's daemon gone:" \
			"$(bfd_state "$SB" "$CTL" spine0)"
	}
	kill -CONT "$cpid"
	bfd_wait "$SB" "$CTL" spine0 "up up" && bfd_wait "$SA" "$CTL" leaf0 "up up" ||
		fail "split, BFD: not up again after leaf0's daemon went on"
	echo "  ok   leaf0's daemon stopped: spine0 took the link down (detection time expired)," \
		"and up again when it went on"
	# leaf0's daemon ends: it tells spine0 (AdminDown), which does not wait
	# for its detection time
	kill -TERM "$pa" 2>/dev/null
	wait "$pa" || rca=$?
	pa=
	bfd_wait "$SB" "$CTL" spine0 "down admin_down neighbor_signaled_session_down" ||
		fail "split, BFD: leaf0's daemon ended without telling spine0:" \
			"$(bfd_state "$SB" "$CTL" spine0)"
	echo "  ok   leaf0's daemon ended: spine0 told at once (AdminDown), its end down"
	kill -TERM "$pb" 2>/dev/null
	wait "$pb" || rcb=$?
	pb=
	kill -TERM "$tpa" "$tpb" 2>/dev/null
	wait "$tpa" 2>/dev/null || true
	wait "$tpb" 2>/dev/null || true
	[ "$rca" -eq 0 ] && [ "$rcb" -eq 0 ] ||
		fail "split, BFD: the daemons exited with status $rca and $rcb"
	: > "$T/split_bfd_fields.txt"
	for f in a b; do
		tshark -r "$T/split_bfd_$f.pcapng" -o ip.check_checksum:TRUE \
			-o udp.check_checksum:TRUE -T fields -E separator=, -e ip.src -e ip.ttl \
			-e ip.dsfield.dscp -e ip.checksum.status -e udp.checksum.status -e udp.dstport \
			-e bfd.version -e bfd.sta -e bfd.flags.p -e bfd.flags.f \
			-e bfd.detect_time_multiplier -e bfd.desired_min_tx_interval \
			-e bfd.my_discriminator -e bfd.your_discriminator -e bfd.diag \
			>> "$T/split_bfd_fields.txt" 2> /dev/null ||
			fail "split, BFD: tshark cannot read the capture on $f"
	done
	"$PY" "$HERE/check_bfd_wire.py" "$T/split_bfd_fields.txt" ||
		fail "split, BFD: the packets on the wire"
}
if [ "${FABRIC_VT_ONLY:-0}" != 1 ]; then
	split_run
fi

# 3. a spine link down mid-run (virtual time, --link)
"$PY" "$FT" steady --out "$T/steady.pcap" --frames 4000 --gbps 50 --to 3 ||
	fail "steady traffic generation"
mkdir -p "$T/fail"
timeout -k 5 120 "$BIN" -- --config "$T/ls.json" --virtual-time \
	--pcap-in "leaf0:h0=$T/steady.pcap" --pcap-out "$T/fail" --stats "$T/fail.json" \
	--link "leaf0:u0@0.0003=down" > "$T/fail.log" 2>&1 < /dev/null ||
	fail "failure run exited with status $?"
echo "spine link down at 300 us (virtual time):"
"$PY" "$FT" check-failure --stats "$T/fail.json" --frames 4000 --link leaf0:u0 ||
	fail "link failure"

# 3b. a written-out fabric with a link down: every switch routes around it
"$PY" "$FT" written --out "$T/written.json" || fail "written-out fabric"
timeout -k 5 120 "$BIN" -- --config "$T/written.json" --virtual-time --traffic 0.3 \
	--duration 0.0001 --link "leaf0:u0@0=down" --stats "$T/written-stats.json" \
	> "$T/written.log" 2>&1 < /dev/null || fail "written-out fabric run exited with status $?"
echo "written-out fabric, leaf0:u0 down from the start (virtual time):"
"$PY" "$FT" check-withdrawn --stats "$T/written-stats.json" --link leaf0:u0 ||
	fail "written-out fabric around a link down"

# 4. generated traffic (--traffic): what the hosts get is RoCEv2 scapy accepts
mkdir -p "$T/gen"
timeout -k 5 120 "$BIN" -- --config "$T/ls.json" --virtual-time --traffic 0.3 \
	--duration 0.00005 --pcap-out "$T/gen" --stats "$T/gen.json" > "$T/gen.log" 2>&1 \
	< /dev/null || fail "generated-traffic run exited with status $?"
echo "generated traffic (virtual time):"
"$PY" "$FT" check-generated --out-dir "$T/gen" --leaves 4 --min-frames 300 ||
	fail "generated traffic"
# the same with every frame across leaf0-spine0 corrupted: their ICRC fails
mkdir -p "$T/corrupt"
timeout -k 5 120 "$BIN" -- --config "$T/ls.json" --virtual-time --traffic 0.3 \
	--duration 0.00005 --pcap-out "$T/corrupt" --stats "$T/corrupt.json" \
	--link "leaf0:u0@0=corrupt:1" > "$T/corrupt.log" 2>&1 < /dev/null ||
	fail "corruption run exited with status $?"
echo "the same with link leaf0-spine0 corrupting every frame:"
"$PY" "$FT" check-generated --out-dir "$T/corrupt" --leaves 4 --min-frames 300 \
	--corrupted-stats "$T/corrupt.json" || fail "corruption"

# 5. incast with PFC, virtual time, twice
cat > "$T/incast.json" <<'EOF'
{"policies": {"default": {"qos": {"buffer": {"size_bytes": 2000000}}}},
 "topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 1,
  "host_gbps": 25, "uplink_gbps": 100, "delay_ns": 1000}}}
EOF
"$PY" "$FT" incast --out-dir "$T" --senders 3 --frames 1500 --gbps 25 ||
	fail "incast traffic generation"
for run in a b; do
	mkdir -p "$T/inc_$run"
	timeout -k 5 120 "$BIN" -- --config "$T/incast.json" --virtual-time \
		--pcap-in "leaf0:h0=$T/inc0.pcap" --pcap-in "leaf1:h0=$T/inc1.pcap" \
		--pcap-in "leaf2:h0=$T/inc2.pcap" --pcap-out "$T/inc_$run" \
		--samples "$T/inc_$run" --sample-us 10 \
		--stats "$T/inc_$run.json" > "$T/inc_$run.log" 2>&1 < /dev/null ||
		fail "incast run $run exited with status $?"
done
echo "incast with PFC (virtual time):"
"$PY" "$FT" check-incast --stats "$T/inc_a.json" --senders 3 --frames 1500 ||
	fail "incast counters"
for f in "$T"/inc_a/*.pcap; do
	cmp -s "$f" "$T/inc_b/$(basename "$f")" || fail "$(basename "$f") differs between two runs"
done
counters "$T/inc_a.json" > "$T/inc_a.cmp" && counters "$T/inc_b.json" > "$T/inc_b.cmp" ||
	fail "inc: stats unreadable"
cmp -s "$T/inc_a.cmp" "$T/inc_b.cmp" || fail "incast counters differ between two runs"
cmp -s "$T/inc_a-links.csv" "$T/inc_b-links.csv" && cmp -s "$T/inc_a-queues.csv" "$T/inc_b-queues.csv" ||
	fail "incast samples differ between two runs"
echo "  ok   two runs: identical output files (pause timeline), samples and counters"
# the samples: every 10 us; per link direction they add up to the counters;
# utilization within 0..1; the receiver's queue (leaf3 h0, queue 3) fills
"$PY" - "$T/inc_a-links.csv" "$T/inc_a-queues.csv" "$T/inc_a.json" <<'EOF' || fail "incast samples"
import csv, json, sys
links = list(csv.DictReader(open(sys.argv[1])))
queues = list(csv.DictReader(open(sys.argv[2])))
st = json.load(open(sys.argv[3]))
tot = {}
for r in links:
    k = (r["from"], r["to"])
    tot[k] = tot.get(k, 0) + int(r["bytes"])
    assert -1e-9 <= float(r["utilization"]) <= 1 + 1e-9, r
want = {(d["from"], d["to"]): d["tx_bytes"] for l in st["links"] for d in l["directions"]}
assert tot == want, "sampled bytes do not add up to the link counters"
q = max(int(r["bytes"]) for r in queues if (r["switch"], r["port"], r["queue"]) == ("leaf3", "h0", "3"))
assert q > 100000, q
print("  ok   samples: %d link rows adding up to the counters, leaf3 h0 queue 3 up to %d bytes"
      % (len(links), q))
EOF
# the pause timeline as tshark reads it: class 3 only, XOFF and XON alternating
tshark -r "$T/inc_a/leaf0-h0.pcap" -Y macc.cbfc.enbv -T fields \
	-e frame.time_epoch -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 \
	> "$T/pfc_timeline.txt" 2> "$T/tshark.log" || fail "tshark"
n=$(wc -l < "$T/pfc_timeline.txt")
[ "$n" -gt 0 ] || fail "tshark found no PFC frame in leaf0-h0.pcap"
awk '$2 != "0x0008" { bad = 1 } END { exit bad }' "$T/pfc_timeline.txt" ||
	fail "a PFC frame to host leaf0-0 enables a class other than 3"
awk 'NR % 2 == 1 && $3 == 0 { bad = 1 } NR % 2 == 0 && $3 != 0 { bad = 1 } END { exit bad }' \
	"$T/pfc_timeline.txt" || fail "XOFF and XON to host leaf0-0 do not alternate"
echo "  ok   tshark: $n PFC frames to host leaf0-0, class 3, XOFF and XON alternating"

# 6. the exit summary: a small fabric's full tables name every port
# switch:port; a k=8 fat-tree's (80 switches, 512 link directions, 128 edge
# ports) is a short summary whose worst link is the --stats file's worst,
# and the --stats file has every switch, link direction and edge port
echo "exit summary:"
"$PY" - "$T/vt_a.log" <<'EOF' || fail "the 4 x 2 fabric's exit summary"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
s = lines[next(i for i, l in enumerate(lines) if l.startswith("summary:")):]
dirs = [l for l in s if re.match(r"  (leaf|spine)\d:[ud]\d>(leaf|spine)\d:[ud]\d ", l)]
edges = [l.split()[1] for l in s if l.startswith("  edge ")]
assert len(dirs) == 16, "want a row per link direction, got %d" % len(dirs)
assert sorted(edges) == ["leaf%d:h0" % i for i in range(4)], edges
print("  ok   4 x 2 leaf-spine: every switch and link direction, edge ports %s" % " ".join(edges))
EOF
echo '{"topology": {"fat_tree": {"k": 8}}}' > "$T/ft8.json"
timeout -k 5 300 "$BIN" -- --config "$T/ft8.json" --virtual-time --traffic 0.3 \
	--duration 0.00002 --stats "$T/ft8.stats" > "$T/ft8.log" 2>&1 < /dev/null ||
	fail "k=8 fat-tree run exited with status $?"
"$PY" - "$T/ft8.log" "$T/ft8.stats" <<'EOF' || fail "the k=8 fat-tree's exit summary"
import json, re, sys
lines = open(sys.argv[1]).read().rstrip("\n").split("\n")
st = json.load(open(sys.argv[2]))
s = lines[next(i for i, l in enumerate(lines) if l.startswith("summary:")):]
assert len(s) <= 30, "%d lines from 'summary:' to the end, want at most 30" % len(s)
assert any(l.startswith("  80 switches: ") for l in s), "no switch totals"
assert any(l.startswith("  512 link directions: ") for l in s), "no link totals"
assert any(l.startswith("  128 edge ports ") for l in s), "no edge-port totals"
busiest = [l.split()[1] for l in s if l.startswith("    busiest ")]
assert busiest and re.match(r"pod\d-edge\d:h\d:$", busiest[0]), busiest
assert any(sys.argv[2] in l for l in s), "the summary does not say where the rest is"
# --stats has all of it; the first row of the worst is its busiest direction
dirs = [d for l in st["links"] for d in l["directions"]]
assert len(st["switches"]) == 80 and len(dirs) == 512, (len(st["switches"]), len(dirs))
assert sum(len(sw["ports"]) for sw in st["switches"]) == 512 + 128
assert len(st["edge_ports"]) == 128
key = lambda d: (d["utilization"], d["tx_packets"])
top = max(key(d) for d in dirs)
rows = [l.split() for l in s if re.match(r"  \S+:\S+>\S+:\S+ ", l)]
assert len(rows) == 8, len(rows)
first = next(d for d in dirs if d["from"] + ">" + d["to"] == rows[0][0])
assert key(first) == top and int(rows[0][1]) == first["tx_packets"], (rows[0], top)
print("  ok   k=8 fat-tree: %d lines (80 switches, 512 link directions, 128 edge ports "
      "in --stats), the worst link %s first" % (len(s), rows[0][0]))
EOF

if [ "${FABRIC_KEEP:-0}" = 1 ]; then
	echo "run_fabric: files kept in $T"
else
	rm -rf "$T"
fi
echo "run_fabric: PASS"
