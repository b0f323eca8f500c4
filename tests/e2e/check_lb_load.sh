#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# End-to-end check of load-balancing programs through the real client and
# socket (control/lb_cmds.c, aifabricctl lb ...), in real time:
#   - aifabric forwards a generated mix of 1024 RoCEv2 flows replayed from
#     net_pcap (infinite_rx) to a group of four next hops on net_null;
#   - the config runs the ECMP example on traffic class 5 ("bpf:cfgecmp");
#     `aifabricctl lb load flowlet.o --name fl` sends the object's bytes;
#     `show lb` (table and JSON) shows it running on the JIT with runs
#     growing; unsafe objects (a read past the context, a shift immediate
#     the JIT would run as ud2, a pointer multiplied) are refused with
#     section, instruction and reason, and fl keeps running; a load under a
#     name the config owns is refused; `lb unload fl` removes it; loading and
#     unloading ten more times while traffic runs leaves no frame dropped;
#   - `aifabricctl lb test` offline: the ECMP example on the same pcap agrees
#     with the built-in ECMP on every packet; a bad object exits 1, the
#     shift injection too; through a config's lb_programs it stops the
#     start, and through --lb in virtual time it is refused before the run;
#   - virtual time: a 4 x 4 leaf-spine of virtual hosts running the main
#     job's all-reduce and all-to-all while `--lb` loads and unloads REPS
#     ten times: no drop, no retransmission, every job done, and a second
#     run writes the same results; REPS left loaded: its runs and counters
#     per switch in the --stats file.
#
#   tests/e2e/check_lb_load.sh [path/to/build]      (default build)
#
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 only when every
# check passes, 1 on a failed check, 2 when it cannot run.  About 15 s.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/aifabric
CTL_BIN=$BUILD/aifabricctl
EX=$BUILD/examples/lb
BAD=$BUILD/tests/bad.o
HOSTILE=$BUILD/tests/hostile.o
PY=/usr/bin/python3

for b in "$BIN" "$CTL_BIN" "$EX/flowlet.o" "$EX/ecmp.o" "$BAD" "$HOSTILE"; do
	[ -e "$b" ] || { echo "check_lb_load: $b is missing (build first)" >&2; exit 2; }
done

T=$(mktemp -d /tmp/aif-lbload.XXXXXX)
PREFIX=aif-lbload-$$
SOCK=$T/aifabric.sock
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX" "$T"
}
trap cleanup EXIT

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
ctl() { timeout 10 "$CTL_BIN" -s "$SOCK" "$@"; }
jq_py() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

. "$ROOT/scripts/lib.sh"
MEM=$(aif_eal_mem_choice 512 1024) # (hugepages on demand, else 4 KiB pages)

"$PY" "$ROOT/tests/e2e/gen_traffic.py" --kind bench --out "$T/flows.pcap" --flows 1024 \
	--seed 3 --manifest "$T/manifest.json" >/dev/null 2>&1 ||
	{ echo "check_lb_load: cannot generate traffic" >&2; exit 2; }
"$ROOT/scripts/bench" --config-only > "$T/base.json"
"$PY" - "$T/base.json" "$T/cfg.json" "$EX/ecmp.o" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["lb_programs"] = {"cfgecmp": {"object": sys.argv[3]}}
c["policies"] = {"default": {"qos": {"enable": False},
                             "load_balancing": {"per_tc": {"5": "bpf:cfgecmp"}}}}
json.dump(c, open(sys.argv[2], "w"))
EOF

# shellcheck disable=SC2086  # $MEM: "--in-memory" or "--no-huge -m 1024"
timeout -k 5 120 "$BIN" -l 0-1 --file-prefix "$PREFIX" --no-pci $MEM \
	--vdev "net_pcap0,rx_pcap=$T/flows.pcap,infinite_rx=1" --vdev "net_null0,no-rx=1" \
	-- --config "$T/cfg.json" --socket "$SOCK" --stats "$T/stats.json" \
	> "$T/daemon.log" 2>&1 < /dev/null &
DPID=$!
for _ in $(seq 100); do
	ctl status >/dev/null 2>&1 && break
	kill -0 "$DPID" 2>/dev/null || break
	sleep 0.2
done
if ! ctl status >/dev/null 2>&1; then
	echo "check_lb_load: aifabric did not come up" >&2
	cat "$T/daemon.log" >&2
	exit 2
fi

out=$(ctl lb load "$EX/flowlet.o" --name fl 2>&1); rc=$?
check "lb load flowlet.o" "0" "$rc"
runs1=$(ctl --json show lb | jq_py '[p["runs"] for p in d["programs"] if p["name"] == "fl"][0]')
sleep 0.5
j=$(ctl --json show lb)
# (flowlet branches: on the switch's JIT all the same, and nothing to say why not)
check "show lb: engine" "jit ''" "$(echo "$j" | jq_py '" ".join([p["engine"] + " " + repr(p["engine_why"]) for p in d["programs"] if p["name"] == "fl"])')"
check "show lb: where" "tc 0 tc 7" \
	"$(echo "$j" | jq_py '" ".join([p["where"] for p in d["programs"] if p["name"] == "fl"][0][::7])')"
runs2=$(echo "$j" | jq_py '[p["runs"] for p in d["programs"] if p["name"] == "fl"][0]')
check "show lb: it runs" "yes" "$([ "$runs2" -gt "$runs1" ] && [ "$runs1" -gt 0 ] && echo yes || echo "no ($runs1 -> $runs2)")"
check "show lb: table" "yes" "$(ctl show lb | grep -q '^fl .*client .*jit' && echo yes || echo no)"

out=$(ctl lb load "$BAD" --program oob 2>&1); rc=$?
check "lb load: a read past the context is refused" \
	"1 error: section aifabric/lb/oob: instruction 4: reads the context at bytes 192..4276 (a variable offset), outside its 0..3256: mask or test the index first" \
	"$rc $out"
# native code through a shift immediate, pointer arithmetic: refused
out=$(ctl lb load "$HOSTILE" --program inj_ud2 2>&1); rc=$?
check "lb load: a shift immediate out of its opcode's range (once run as ud2 by a JIT) is refused" \
	"1 error: section aifabric/lb/inj_ud2: instruction 1: shifts by 0x900b0f01 (0..63)" "$rc $out"
out=$(ctl lb load "$HOSTILE" --program ptr_mul 2>&1); rc=$?
check "lb load: a pointer multiplied is refused" \
	"1 error: section aifabric/lb/ptr_mul: instruction 2: mul on a pointer (only adding or subtracting a number moves one)" \
	"$rc $out"
check "fl still runs" "fl" "$(ctl --json show lb | jq_py '",".join(p["name"] for p in d["programs"] if p["source"] == "client")')"
out=$(ctl lb load "$EX/flowlet.o" --name cfgecmp 2>&1); rc=$?
check "lb load: the config's name" "1 error: 'cfgecmp' is a program of the config: give another --name" "$rc $out"
out=$(ctl lb unload fl 2>&1); rc=$?
check "lb unload fl" "0" "$rc"
check "only the config's program left" "cfgecmp" \
	"$(ctl --json show lb | jq_py '",".join(p["name"] for p in d["programs"])')"
ok=0
for i in $(seq 10); do
	ctl lb load "$EX/flowlet.o" --name fl --tc 3 >/dev/null 2>&1 && ok=$((ok + 1))
	ctl lb unload fl >/dev/null 2>&1 && ok=$((ok + 1))
done
check "ten loads and unloads under traffic" "20" "$ok"

kill -TERM "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
DPID=
check "no frame dropped" "0" "$("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
print(sum(sum(p.get("drops", {}).values()) if isinstance(p.get("drops"), dict) else 0 for p in s["ports"]))' "$T/stats.json")"
check "frames forwarded" "yes" "$("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
p1 = [p for p in s["ports"] if p["name"] == "p1"][0]
print("yes" if p1["tx_packets"] > 1000000 else "no (%d)" % p1["tx_packets"])' "$T/stats.json")"

# offline
out=$("$CTL_BIN" lb test "$EX/ecmp.o" --pcap "$T/flows.pcap" --against ecmp 2>&1); rc=$?
check "lb test --pcap: the ECMP example agrees" "0 same member as the built-in ecmp: 1024 of 1024 packets (100.00%)" \
	"$rc $(echo "$out" | grep '^same member')"
out=$("$CTL_BIN" lb test "$EX/flowlet.o" --flows 100 --packets 2000 --seed 1 --against flowlet 2>&1); rc=$?
check "lb test: the flowlet example beside the built-in flowlet (its table)" "0 yes" \
	"$rc $(echo "$out" | grep -q '^same member as the built-in flowlet: .* of 2000 packets' && echo yes || echo "no: $out")"
out=$("$CTL_BIN" lb test "$BAD" 2>&1); rc=$?
check "lb test: several programs, no name" "1" "$rc"
out=$("$CTL_BIN" lb test "$HOSTILE" --name inj_rsh 2>&1); rc=$?
check "lb test: the shift injection is refused" "1 yes" \
	"$rc $(echo "$out" | grep -q 'instruction 1: shifts by 0x9002b001 (0..63)' && echo yes || echo "no: $out")"

# the same object through a config's lb_programs: the daemon does not start
"$PY" - "$T/base.json" "$T/hostile.json" "$HOSTILE" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["lb_programs"] = {"inj": {"object": sys.argv[3], "program": "inj_rsh"}}
c["policies"] = {"default": {"load_balancing": {"scheme": "bpf:inj"}}}
json.dump(c, open(sys.argv[2], "w"))
EOF
# shellcheck disable=SC2086
out=$(timeout -k 5 60 "$BIN" -l 0-1 --file-prefix "$PREFIX-h" --no-pci $MEM \
	--vdev "net_pcap0,rx_pcap=$T/flows.pcap,infinite_rx=1" --vdev "net_null0,no-rx=1" \
	-- --config "$T/hostile.json" 2>&1 < /dev/null); rc=$?
check "config lb_programs: the shift injection stops the start" "1 yes" \
	"$rc $(echo "$out" | grep -q 'lb_programs.inj.*instruction 1: shifts by 0x9002b001' && echo yes || echo "no: $out")"

# virtual time: the same ten loads and unloads scheduled during a job
"$PY" - "$ROOT/config/jobs-main.json" "$T/jobs.json" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r'"receive": "[a-z_]*"', '"receive": "out_of_order"', t))
EOF
cp -r "$ROOT/config/workloads" "$T/"
cat > "$T/vt.json" <<'EOF'
{"policies": {"default": {"load_balancing": {"scheme": "ecmp"}}},
 "topology": {"leaf_spine": {"leaves": 4, "spines": 4, "hosts_per_leaf": 4,
   "host_gbps": 100, "uplink_gbps": 100, "delay_ns": 1000}}}
EOF
lbargs=()
for k in $(seq 0 9); do
	lbargs+=(--lb "$(awk -v k="$k" 'BEGIN { printf "%.6f", (100 + 40 * k) / 1e6 }')=load:$EX/reps.o,name=r"
		 --lb "$(awk -v k="$k" 'BEGIN { printf "%.6f", (120 + 40 * k) / 1e6 }')=unload:r")
done
vt() { "$BIN" -- --config "$T/vt.json" --virtual-time --jobs "$T/jobs.json" "${lbargs[@]}" \
	--results "$T/$1" > "$T/$1.log" 2>&1; }
vt vt1; rc=$?
check "virtual time: the run with ten scheduled loads and unloads" "0" "$rc"
check "virtual time: 20 requests done" "10 10" \
	"$(grep -c '^at .*lb_load: {"loaded":"r"' "$T/vt1.log") $(grep -c '^at .*lb_unload: {"unloaded":"r"}' "$T/vt1.log")"
check "virtual time: no drop, no retransmission" "0 drops 0 retransmitted" \
	"$(grep -m1 '^  fabric:' "$T/vt1.log" | grep -o '[0-9]* drops') $(grep -m1 '^  hosts:' "$T/vt1.log" | grep -o '[0-9]* retransmitted')"
ooo=$(grep -m1 '^  hosts:' "$T/vt1.log" | grep -o '[0-9]* out of order' | cut -d' ' -f1)
check "virtual time: REPS moved flows while loaded (ECMP alone keeps order)" "yes" \
	"$([ "${ooo:-0}" -gt 0 ] && echo yes || echo "no (${ooo:-?} out of order)")"
check "virtual time: every job done" "yes" \
	"$(grep -q 'alltoall *alltoall *2/2' "$T/vt1.log" && grep -q 'allreduce *allreduce_ring *2/2' "$T/vt1.log" && echo yes || echo no)"
vt vt2
check "virtual time: the same results again" "same" \
	"$(cmp -s "$T/vt1/jobs.csv" "$T/vt2/jobs.csv" && cmp -s "$T/vt1/fct.txt" "$T/vt2/fct.txt" && echo same || echo differ)"
lbargs=(--lb "0.000100=load:$HOSTILE,name=h,program=inj_arsh")
vt vt3; rc=$?
check "virtual time: --lb of the shift injection is refused before the run" "1 yes" \
	"$rc $(grep -q "^--lb '0.000100=load:.*instruction 1: shifts by 0x9002b001" "$T/vt3.log" && echo yes || echo "no: $(tail -2 "$T/vt3.log")")"

# virtual time: a program left loaded: its runs and counters in --stats, as show lb gives them
lbargs=(--lb "0.000100=load:$EX/reps.o,name=r")
"$BIN" -- --config "$T/vt.json" --virtual-time --jobs "$T/jobs.json" "${lbargs[@]}" \
	--stats "$T/vt4.json" > "$T/vt4.log" 2>&1; rc=$?
check "virtual time: --stats has the program's runs and counters per switch" "0 yes" \
	"$rc $("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
ps = [p for sw in s["switches"] for p in sw.get("lb_programs", [])]
runs = sum(p["runs"] for p in ps)
ctr = [sum(p["counters"][i] for p in ps) for i in range(8)]
print("yes" if ps and all(p["name"] == "r" for p in ps) and runs > 0 and sum(ctr) > 0
      else "no: %d programs, %d runs, counters %s" % (len(ps), runs, ctr))' "$T/vt4.json" 2>&1)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
