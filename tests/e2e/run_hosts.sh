#!/usr/bin/env bash
# Virtual RoCE hosts in the daemon, in virtual time, checked with tools we
# did not write:
#  1. a 4x2 leaf-spine, two hosts per leaf, ECMP, PFC and DCQCN on, hosts
#     with valid ICRCs: a permutation and a ring all-reduce (--jobs); the
#     host leaf0-0's port captured both ways (--capture): every frame it
#     sent passes scapy's RoCEv2 checks (ICRC, IPv4 checksum), PSNs go up
#     by one per QP, messages are well formed (check_rhost.py);
#  2. the same run again: byte-identical result files (jobs.csv, fct.txt,
#     qps.csv, summary.json, pfc.txt, qlen.txt) and capture; and once more
#     with whole frames in every mbuf ("light_frames": false): the same
#     files and captured bytes as with light frames;
#  3. the results say what the jobs did: every iteration finished, JCT not
#     below its ideal by more than rounding, bus bandwidth positive;
#  4. a bad jobs file is refused with the JSON path of what is wrong;
#  5. real time: leaf0-0 a net_pcap device sending a scapy capture, the
#     other hosts virtual, running a ring all-reduce: the run stops by
#     itself when it is done, every iteration finished, nothing dropped;
#     and on two runners;
#  6. real time, eight virtual hosts at 1 Gb/s, an all-to-all into a
#     256 KiB buffer with DCQCN off: PFC pauses, nothing is dropped or sent
#     again (the runner paces the emulation however far it falls behind,
#     and says by how much at the end); then on two runners sharing a
#     core, each held within the links' delay of the other: the same;
#     two planes on two runners, a host's two leaves on one;
#  7. a k=16 fat-tree (320 switches, 1,024 virtual hosts, one runner
#     polling 5,120 ports): a permutation across pods finishes; a k=34 one
#     (1,445 switches: more than a fabric could have while each switch
#     took DPDK memzones; 9,826 hosts, addressed past an octet a pod):
#     two hosts in its first and last pods exchange at their ideal; two
#     planes of a k=4 one run a ring all-reduce over hosts with a port on
#     each; 8 planes of a 64-leaf leaf-spine (512 leaves, addressed past
#     an octet) carry an all-to-all on every plane; a fabric that takes
#     more DPDK memory than the free hugepages hold runs on 4 KiB pages;
#  8. a ConWeave flow file (an incast into a small buffer, and a few more
#     flows) replayed in virtual time: fct.txt has one line per flow with
#     ns-3's identities and start times, and the fct-slowdown tool (env
#     AIF_FCT_SLOWDOWN) scores it; pfc.txt has the pauses the incast caused,
#     as HPCC writes them; qlen.txt HPCC's histogram; a flow file naming a
#     host the fabric lacks is refused with the job's JSON path and line;
#  9. the main job (scripts/run's) and that incast on 1, 2 and 3 runners
#     (--runners), the main job on the default runners and on 3 threads
#     (--threads), a k=4 fat-tree's all-to-all on 1 and 20 runners (one a
#     switch): identical result files, byte for byte;
# 10. the same two as MPI ranks (mpirun -np 1 and -np 2, control/ranks.h;
#     by default several runners a rank, and the main job on 3 runners over
#     2 ranks): the result files of one runner, byte for byte; fewer runners
#     than ranks refused; ranks that cannot start alike (one without its
#     config, one with another config, seed or build) all stop at the start,
#     saying which rank, none waiting for another (skipped, and said so,
#     without mpirun or with a daemon built without MPI).
#
#   tests/e2e/run_hosts.sh [path/to/aifabric]      (default build/aifabric)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/aifabric}
PY=/usr/bin/python3
[ -x "$BIN" ] || { echo "run_hosts: $BIN is not an executable (build first)" >&2; exit 2; }
T=$(mktemp -d /tmp/aif-hosts.XXXXXX)
fail() {
	echo "run_hosts: FAIL: $*" >&2
	for f in "$T"/*.log; do
		[ -s "$f" ] || continue
		echo "----- $f -----" >&2
		tail -n 40 "$f" >&2
	done
	echo "run_hosts: files kept in $T" >&2
	exit 1
}

cat > "$T/ls.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 2,
  "host_gbps": 100, "uplink_gbps": 100, "delay_ns": 1000}}}
EOF
mkdir -p "$T/workloads"
cp "$ROOT/config/workloads/WebSearch_distribution.txt" "$T/workloads/"
cat > "$T/jobs.json" <<'EOF'
{
  "hosts": {"icrc": true, "receive": "go_back_n", "mtu": 1024},
  "jobs": [
    {"name": "pair", "kind": "permutation", "hosts": ["leaf0-0", "leaf1-0"],
     "bytes": 300000, "iterations": 2},
    {"name": "ring", "kind": "allreduce_ring", "hosts": "all", "bytes": 1048576,
     "start_us": 100},
    {"name": "bg", "kind": "poisson", "hosts": "all", "load": 0.05,
     "cdf": "workloads/WebSearch_distribution.txt", "stop_us": 200}
  ]
}
EOF

# run w: the same with whole frames (no light frames, dataplane/frame.h)
sed 's/"icrc": true,/"icrc": true, "light_frames": false,/' "$T/jobs.json" > "$T/jobs-w.json"
grep -q '"light_frames": false' "$T/jobs-w.json" || fail "no whole-frame jobs file"
for run in a b w; do
	mkdir -p "$T/$run"
	jobs=$T/jobs.json
	[ $run = w ] && jobs=$T/jobs-w.json
	timeout -k 5 120 "$BIN" -- --config "$T/ls.json" --virtual-time --jobs "$jobs" \
		--results "$T/$run" --capture leaf0:h0 --capture-dir "$T/$run" \
		> "$T/$run.log" 2>&1 < /dev/null || fail "run $run exited with status $?"
done
grep -q "capture leaf0:h0: [1-9]" "$T/a.log" || fail "nothing captured"

# 1. scapy on the capture (host leaf0-0: 02:0a:00:00:00:02)
"$PY" "$HERE/check_rhost.py" "$T/a/leaf0-h0.pcapng" 02:0a:00:00:00:02 --min 300 \
	|| fail "check_rhost"
# the frames the host received are RoCEv2 with valid ICRCs too (ACKs, data
# from leaf1-0): scapy parses them all
"$PY" - "$T/a/leaf0-h0.pcapng" <<'EOF' || fail "frames to the host"
import sys
from scapy.all import Ether, rdpcap
from scapy.contrib.roce import BTH
n = bad = 0
for p in rdpcap(sys.argv[1]):
    if p[Ether].dst.lower() != "02:0a:00:00:00:02" or not p.haslayer(BTH):
        continue
    n += 1
    raw = bytes(p)
    q = Ether(raw)
    del q[BTH].icrc
    bad += bytes(Ether(bytes(q)))[-4:] != raw[-4:]
assert n > 300 and bad == 0, (n, bad)
print("  ok   %d RoCEv2 frames to the host, every ICRC valid (scapy)" % n)
EOF

# 2. determinism; and light frames change nothing: the run with whole
# frames in every mbuf has the same results and captured bytes
for pair in b w; do
for f in jobs.csv fct.txt qps.csv summary.json pfc.txt qlen.txt leaf0-h0.pcapng; do
	if [ "$f" = leaf0-h0.pcapng ]; then
		# stamps are the wall clock at the start plus virtual time: compare
		# the packets and their times from the first
		"$PY" - "$T/a/$f" "$T/$pair/$f" <<'EOF' || fail "captures differ between runs a and $pair"
import sys
from scapy.all import RawPcapNgReader
def pk(path):
    out = [(bytes(d), (m.tshigh << 32) | m.tslow) for d, m in RawPcapNgReader(path)]
    return [(d, t - out[0][1]) for d, t in out]
a, b = pk(sys.argv[1]), pk(sys.argv[2])
assert len(a) > 1000 and a == b, (len(a), len(b))
EOF
	else
		cmp -s "$T/a/$f" "$T/$pair/$f" || fail "$f differs between runs a and $pair"
	fi
done
done
echo "  ok   two runs, and one with whole frames: identical jobs.csv, fct.txt, qps.csv, summary.json, pfc.txt, qlen.txt and captured packets"

# 3. what the results say
"$PY" - "$T/a" <<'EOF' || fail "results"
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
jobs = {j["name"]: j for j in s["jobs"]}
for n in ("pair", "ring"):
    j = jobs[n]
    assert j["finished"] == j["iterations"], j
    for it in j["iteration_results"]:
        assert it["jct_us"] >= 0.98 * it["ideal_us"], it
        assert it["busbw_gbps"] > 0, it
rows = [r for r in csv.DictReader(open(d + "/jobs.csv")) if r["job"] in ("pair", "ring")]
assert len(rows) == 3, rows  # (the background job's row when all its flows are done)
fct = [l.split() for l in open(d + "/fct.txt")]
assert len(fct) == s["flows"]["finished"] and len(fct) > 2, len(fct)
assert all(int(f[6]) > 0 and int(f[7]) > 0 for f in fct)
assert s["hosts"]["icrc_bad"] == 0 and s["fabric"]["drops"] == 0, s
print("  ok   results: %d iterations finished, %d flows in fct.txt, ring x%.3f of its ideal"
      % (len(rows), len(fct), jobs["ring"]["x_ideal_mean"]))
EOF

# 4. a bad jobs file
sed 's/"permutation"/"permutations"/' "$T/jobs.json" > "$T/bad.json"
if "$BIN" -- --config "$T/ls.json" --virtual-time --jobs "$T/bad.json" > "$T/bad.log" 2>&1; then
	fail "a bad jobs file was accepted"
fi
grep -q '\$.jobs\[0\].kind' "$T/bad.log" || fail "the refusal does not name \$.jobs[0].kind"
echo "  ok   a bad jobs file is refused: $(grep -o '\$.jobs\[0\].kind.*' "$T/bad.log" | head -c 80)"

# 5. real time, a device and virtual hosts on one fabric
"$PY" "$HERE/fabric_traffic.py" gen --out "$T/flows.pcap" --leaves 4 --flows 32 > /dev/null ||
	fail "traffic generation"
cat > "$T/rt.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 2,
  "host_gbps": 1, "uplink_gbps": 1, "delay_ns": 1000, "host_devices": ["net_pcap0"]}}}
EOF
cat > "$T/rtjobs.json" <<'EOF'
{"hosts": {"dcqcn": false, "rto_us": 50000},
 "jobs": [{"name": "ring", "kind": "allreduce_ring", "bytes": 262144, "iterations": 2,
           "hosts": ["leaf0-1", "leaf1-0", "leaf1-1", "leaf2-0", "leaf2-1", "leaf3-0", "leaf3-1"]}]}
EOF
PREFIX=aif-hosts-rt-$$
rc=0
timeout -k 5 60 "$BIN" -l 0-1 --no-huge -m 1024 --no-pci --no-shconf --no-telemetry \
	--file-prefix "$PREFIX" --log-level 'pmd.*:error' \
	--vdev "net_pcap0,rx_pcap=$T/flows.pcap,tx_pcap=$T/rt-out.pcap" \
	-- --config "$T/rt.json" --jobs "$T/rtjobs.json" --results "$T/rt" \
	--socket "$T/rt.sock" --duration 30 --stats "$T/rt-stats.json" > "$T/rt.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "real-time run exited with status $rc"
"$PY" - "$T/rt-stats.json" <<'EOF' || fail "real-time results"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workload"]
j = w["jobs"][0]
assert j["finished"] == 2, j
assert w["fabric"]["drops"] == 0 and w["hosts"]["icrc_bad"] == 0, w
assert d["elapsed_s"] < 25, d["elapsed_s"]  # stopped when done, not at --duration
print("  ok   real time: a net_pcap port and 7 virtual hosts, ring all-reduce done in %.1f ms "
      "per iteration (x%.2f of its ideal), no drop, stopped when done" %
      (j["jct_us_mean"] / 1e3, j["x_ideal_mean"]))
EOF

# 5b. the same on two runners (lcores 1 and 2 both on CPU 1), the device's
# leaf on one of them: the DPDK port and the hosts on either runner
PREFIX=aif-hosts-rt5b-$$
rc=0
timeout -k 5 60 "$BIN" --lcores '0@0,1@1,2@1' --no-huge -m 1024 --no-pci --no-shconf \
	--no-telemetry --file-prefix "$PREFIX" --log-level 'pmd.*:error' \
	--vdev "net_pcap0,rx_pcap=$T/flows.pcap,tx_pcap=$T/rt5b-out.pcap" \
	-- --config "$T/rt.json" --jobs "$T/rtjobs.json" --results "$T/rt5b" \
	--socket "$T/rt5b.sock" --duration 30 --stats "$T/rt5b-stats.json" > "$T/rt5b.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "real-time run on two runners exited with status $rc"
"$PY" - "$T/rt5b-stats.json" <<'EOF' || fail "real-time results on two runners"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workload"]
j = w["jobs"][0]
assert d["workers"] == 2, d["workers"]
assert j["finished"] == 2, j
assert w["fabric"]["drops"] == 0 and w["hosts"]["icrc_bad"] == 0, w
assert d["elapsed_s"] < 25, d["elapsed_s"]
print("  ok   real time, two runners: the net_pcap port and 7 virtual hosts, ring all-reduce "
      "done (x%.2f of its ideal), no drop, stopped when done" % j["x_ideal_mean"])
EOF

# 6. real time, virtual hosts only, congested: lossless however slow the runner
cat > "$T/rt6.json" <<'EOF'
{"policies": {"default": {"qos": {"buffer": {"size_bytes": 262144}}}},
 "topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 2,
  "host_gbps": 1, "uplink_gbps": 1, "delay_ns": 1000}}}
EOF
cat > "$T/rt6jobs.json" <<'EOF'
{"hosts": {"dcqcn": false, "rto_us": 50000},
 "jobs": [{"name": "a2a", "kind": "alltoall", "bytes": 2097152, "iterations": 1, "hosts": "all"}]}
EOF
PREFIX=aif-hosts-rt6-$$
rc=0
timeout -k 5 60 "$BIN" -l 0-1 --no-huge -m 1024 --no-pci --no-shconf --no-telemetry \
	--file-prefix "$PREFIX" --log-level 'pmd.*:error' \
	-- --config "$T/rt6.json" --jobs "$T/rt6jobs.json" \
	--socket "$T/rt6.sock" --duration 30 --stats "$T/rt6-stats.json" > "$T/rt6.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "real-time all-to-all exited with status $rc"
grep -q 'fell behind real time by [0-9.]* ms ([0-9.]*% of the run)' "$T/rt6.log" ||
	fail "the real-time run does not say how far it fell behind"
"$PY" - "$T/rt6-stats.json" <<'EOF' || fail "real-time all-to-all results"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workload"]
j = w["jobs"][0]
drops = {}
for s in d["switches"]:
    for k, v in s["drops"].items():
        drops[k] = drops.get(k, 0) + v
assert j["finished"] == 1, j
assert sum(drops.values()) == 0, {k: v for k, v in drops.items() if v}
assert w["hosts"]["retx"] == 0, w["hosts"]
assert w["fabric"]["pfc_xoff_sent"] > 0, w["fabric"]
p = d["pace"]
assert p["quantum_ns"] == 3840 and p["steps"] > 0, p
print("  ok   real time: 8 virtual hosts, all-to-all at 1 Gb/s into a 256 KiB buffer: "
      "%d PFC pauses, no drop, no retransmission; the emulation fell %.1f ms behind "
      "real time in %.2f s" % (w["fabric"]["pfc_xoff_sent"], p["behind_ns"] / 1e6,
                               d["elapsed_s"]))
EOF

# 6b. the same on two runners (lcores 1 and 2 both on CPU 1): the leaves
# and spines split between them, each held within the links' 1 us of the
# other (one off the core holds the other at its time): still lossless
PREFIX=aif-hosts-rt6b-$$
rc=0
timeout -k 5 60 "$BIN" --lcores '0@0,1@1,2@1' --no-huge -m 1024 --no-pci --no-shconf \
	--no-telemetry --file-prefix "$PREFIX" --log-level 'pmd.*:error' \
	-- --config "$T/rt6.json" --jobs "$T/rt6jobs.json" \
	--socket "$T/rt6b.sock" --duration 30 --stats "$T/rt6b-stats.json" > "$T/rt6b.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "real-time all-to-all on two runners exited with status $rc"
grep -q 'runner 0 (lcore 1): leaf0 leaf2 spine0' "$T/rt6b.log" &&
	grep -q 'runner 1 (lcore 2): leaf1 leaf3 spine1' "$T/rt6b.log" ||
	fail "real time, virtual hosts: not the switches spread over two runners"
grep -q '2 runners held within 1000 ns of one another' "$T/rt6b.log" ||
	fail "real time, two runners: not said to be held together"
"$PY" - "$T/rt6b-stats.json" <<'EOF' || fail "real-time all-to-all on two runners: results"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workload"]
j = w["jobs"][0]
drops = {}
for s in d["switches"]:
    for k, v in s["drops"].items():
        drops[k] = drops.get(k, 0) + v
assert d["workers"] == 2, d["workers"]
assert j["finished"] == 1, j
assert sum(drops.values()) == 0, {k: v for k, v in drops.items() if v}
assert w["hosts"]["retx"] == 0 and w["hosts"]["rx_ooo"] == 0, w["hosts"]
assert w["fabric"]["pfc_xoff_sent"] > 0, w["fabric"]
p = d["pace"]
assert p["held_steps"] > 0, p
print("  ok   real time, two runners on one core: the same all-to-all, %d PFC pauses, no "
      "drop, no retransmission; %d of %d steps held for the other runner" %
      (w["fabric"]["pfc_xoff_sent"], p["held_steps"], p["steps"]))
EOF

# 6c. two planes on two runners: a host's ports on both planes' leaves, so
# its jobs' callbacks touch both: those leaves on one runner
cat > "$T/rtp.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 2, "spines": 1, "hosts_per_leaf": 2, "planes": 2,
  "host_gbps": 1, "uplink_gbps": 1, "delay_ns": 1000}}}
EOF
cat > "$T/rtpjobs.json" <<'EOF'
{"hosts": {"dcqcn": false, "rto_us": 50000},
 "jobs": [{"name": "ar", "kind": "allreduce_ring", "hosts": "all", "bytes": 262144}]}
EOF
PREFIX=aif-hosts-rtp-$$
rc=0
timeout -k 5 60 "$BIN" --lcores '0@0,1@1,2@1' --no-huge -m 1024 --no-pci --no-shconf \
	--no-telemetry --file-prefix "$PREFIX" --log-level 'pmd.*:error' \
	-- --config "$T/rtp.json" --jobs "$T/rtpjobs.json" \
	--socket "$T/rtp.sock" --duration 30 --stats "$T/rtp-stats.json" > "$T/rtp.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/$PREFIX"
[ "$rc" -eq 0 ] || fail "real-time two planes on two runners exited with status $rc"
grep -q 'runner 0 (lcore 1): p0-leaf0 p0-spine0 p1-leaf0$' "$T/rtp.log" &&
	grep -q 'runner 1 (lcore 2): p0-leaf1 p1-leaf1 p1-spine0$' "$T/rtp.log" ||
	fail "real time, two planes: a host's leaves not on one runner ($(grep 'runner [01] ' "$T/rtp.log" | tr '\n' ' '))"
"$PY" - "$T/rtp-stats.json" <<'EOF' || fail "real-time two planes on two runners: results"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workload"]
j = w["jobs"][0]
assert d["workers"] == 2 and j["finished"] == 1, (d["workers"], j)
assert w["fabric"]["drops"] == 0 and w["hosts"]["retx"] == 0, w
print("  ok   real time, two planes on two runners: each host's two leaves on one runner, "
      "ring all-reduce done (x%.2f of its ideal), no drop" % j["x_ideal_mean"])
EOF

# 7. generated fat-trees in virtual time, each a job in $T/NAME.json and
# $T/NAMEjobs.json: vt_job NAME TIMEOUT LOG_LINE MAX_X WHAT runs it, its log
# holding LOG_LINE (grep), its job finished without a drop, under MAX_X of
# its ideal ("" for no bound)
vt_job() {
	local name=$1 secs=$2 line=$3 max_x=$4 what=$5
	timeout -k 5 "$secs" "$BIN" -- --config "$T/$name.json" --virtual-time \
		--jobs "$T/${name}jobs.json" --results "$T/$name" > "$T/$name.log" 2>&1 < /dev/null ||
		fail "$what: the run exited with status $?"
	grep -q "$line" "$T/$name.log" ||
		fail "$what: not '$line': $(grep -m1 -E '^fabric|virtual hosts' "$T/$name.log")"
	"$PY" - "$T/$name/summary.json" "$max_x" "$what" <<'EOF' || fail "$what: results"
import json, sys
s = json.load(open(sys.argv[1]))
j = s["jobs"][0]
assert j["finished"] == 1 and s["fabric"]["drops"] == 0, s
assert sys.argv[2] == "" or j["x_ideal_mean"] < float(sys.argv[2]), s
print("  ok   %s (x%.3f of its ideal)" % (sys.argv[3], j["x_ideal_mean"]))
EOF
}

# k=16 (a few seconds, under 1.5 GiB)
echo '{"topology": {"fat_tree": {"k": 16}}}' > "$T/ft16.json"
cat > "$T/ft16jobs.json" <<'EOF'
{"jobs": [{"name": "p", "kind": "permutation", "bytes": 65536,
           "hosts": ["pod0-edge0-0", "pod7-edge3-5", "pod15-edge7-7", "pod9-edge1-2"]}]}
EOF
vt_job ft16 120 '^fabric: 320 switches, 2048 links, 1024 hosts' "" \
	"k=16 fat-tree: 320 switches, 1,024 virtual hosts, a permutation across pods done"

echo '{"topology": {"fat_tree": {"k": 34}}}' > "$T/ft34.json"
cat > "$T/ft34jobs.json" <<'EOF'
{"jobs": [{"name": "x", "kind": "alltoall", "bytes": 65536,
           "hosts": ["pod0-edge0-0", "pod33-edge16-16"]}]}
EOF
vt_job ft34 120 '^fabric: 1445 switches, 19652 links, 9826 hosts' 1.01 \
	"k=34 fat-tree: 1,445 switches, 9,826 virtual hosts, pod 0 to pod 33 and back"

# two planes of a k=4 fat-tree: a rank a host with a port on each plane
cat > "$T/ft4p2.json" <<'EOF'
{"topology": {"fat_tree": {"k": 4, "planes": 2}},
 "policies": {"default": {"load_balancing": {"scheme": "spray"}}}}
EOF
cat > "$T/ft4p2jobs.json" <<'EOF'
{"jobs": [{"name": "ar", "kind": "allreduce_ring", "hosts": "all", "bytes": 4194304}]}
EOF
vt_job ft4p2 60 '16 virtual hosts, each with a port on 2 planes (32 host ports)' 1.2 \
	"two planes of a k=4 fat-tree: 16 hosts with a port on each, a ring all-reduce"

# 8 planes of 64 leaves: 512 leaves, their hosts at 10.<g / 4>.<(g % 4) x 64 + j>
cat > "$T/ls8p.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 64, "spines": 1, "planes": 8}},
 "policies": {"default": {"load_balancing": {"scheme": "spray"}}}}
EOF
cat > "$T/ls8pjobs.json" <<'EOF'
{"jobs": [{"name": "x", "kind": "alltoall", "bytes": 65536,
           "hosts": ["leaf0-0", "leaf44-0", "leaf63-0"]}]}
EOF
vt_job ls8p 60 '64 virtual hosts, each with a port on 8 planes (512 host ports)' 1.1 \
	"8 planes of a 64-leaf leaf-spine: an all-to-all over 512 leaves' addresses"
"$PY" - "$T/ls8p/qps.csv" <<'EOF' || fail "8 planes of 64 leaves: not every plane carried"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
planes = {r["host"].split("-")[0] for r in rows if int(r["rx_packets"]) > 0}
assert planes == {"p%d" % m for m in range(8)}, planes
assert any(r["host"] == "p7-leaf63-0" and int(r["rx_packets"]) > 0 for r in rows), rows
print("  ok   8 planes of 64 leaves: every plane carried, p7-leaf63-0 (10.127.192.2) too")
EOF

# A fabric that takes more DPDK memory than the free hugepages hold (its 10 ms
# 400G links' rings: 3.2 GiB, barely touched): by default it runs on 4 KiB
# pages and says so (it ran out of memory making its links); given too
# few hugepages it says how much it takes
cat > "$T/far.json" <<'EOF'
{"policies": {"default": {"qos": {"buffer": {"size_bytes": 8589934592}}}},
 "topology": {"leaf_spine": {"leaves": 2, "spines": 2, "uplink_gbps": 400,
  "delay_ns": 10000000}}}
EOF
cat > "$T/farjobs.json" <<'EOF'
{"jobs": [{"name": "x", "kind": "alltoall", "bytes": 65536, "hosts": "all"}]}
EOF
free_mb=$(( 2 * $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0) ))
mountpoint -q /dev/hugepages 2>/dev/null || free_mb=0
vt_job far 60 '^fabric: 4 switches, 4 links, 2 hosts' "" \
	"a fabric of 10 ms links, 3.2 GiB of rings: the all-to-all done with the default memory"
if [ "$free_mb" -ge 1024 ] && [ "$free_mb" -lt 3500 ]; then
	grep -q '^memory: 4 KiB pages (EAL --no-huge -m [0-9]*): the fabric takes about 3[0-9]\{3\} MiB' \
		"$T/far.log" || fail "10 ms links: not on 4 KiB pages ($free_mb MiB of hugepages free)"
	echo "  ok   ... on 4 KiB pages, $free_mb MiB of hugepages being free, and said so"
elif [ "$free_mb" -ge 5000 ] && grep -q '^memory:' "$T/far.log"; then
	fail "10 ms links: 4 KiB pages with $free_mb MiB of hugepages free"
fi
# on EAL's --no-huge -m 1024: the rings are not DPDK's there (control/fabric.h)
rc=0
timeout -k 5 60 "$BIN" --no-huge -m 1024 --no-pci --no-shconf --no-telemetry -l 0 \
	--log-level error --file-prefix "aif-hosts-far-$$" -- --config "$T/far.json" \
	--virtual-time --jobs "$T/farjobs.json" > "$T/far-m.log" 2>&1 < /dev/null || rc=$?
rm -rf "/var/run/dpdk/aif-hosts-far-$$"
[ "$rc" -eq 0 ] || fail "10 ms links on --no-huge -m 1024: exit $rc: $(tail -1 "$T/far-m.log")"
echo "  ok   ... and on EAL's --no-huge -m 1024, its rings outside DPDK's heap"
# on hugepages, where the rings are DPDK's: refused, with what it takes
if [ "$free_mb" -ge 1024 ] && [ "$free_mb" -lt 3000 ]; then
	rc=0
	timeout -k 5 60 "$BIN" --in-memory -m 1024 --no-pci --no-shconf --no-telemetry -l 0 \
		--log-level error --file-prefix "aif-hosts-far-$$" -- --config "$T/far.json" \
		--virtual-time --jobs "$T/farjobs.json" > "$T/far-h.log" 2>&1 < /dev/null || rc=$?
	rm -rf "/var/run/dpdk/aif-hosts-far-$$"
	[ "$rc" -eq 1 ] && grep -q "DPDK's memory ran out: this fabric takes about 3[0-9]\{3\} MiB of it, more than EAL's 2 MiB hugepages hold: free more ([0-9]* MiB free now), or run it on 4 KiB pages (EAL --no-huge -m [0-9]*)" "$T/far-h.log" ||
		fail "10 ms links on hugepages: exit $rc, not the memory it takes: $(tail -1 "$T/far-h.log")"
	echo "  ok   ... on EAL's hugepages ($free_mb MiB free), refused with the memory it takes"
fi

# 8. a flow file, ns-3's outputs
cat > "$T/ff.json" <<'EOF'
{"policies": {"default": {"qos": {"buffer": {"size_bytes": 300000}}}},
 "topology": {"leaf_spine": {"leaves": 4, "spines": 2, "hosts_per_leaf": 2,
  "host_gbps": 100, "uplink_gbps": 100, "delay_ns": 1000}}}
EOF
cat > "$T/flows.txt" <<'EOF'
7
1 0 3 200000 2.000000000
2 0 3 200000 2.000000000
3 0 3 200000 2.000000000
4 0 3 200000 2.000000100
5 0 3 3000 2.000001000
6 7 3 0 2.000002027
7 6 3 150000 2.000002027
EOF
cat > "$T/ffjobs.json" <<'EOF'
{"hosts": {"mtu": 1000, "icrc": false, "identities": "ns3"},
 "qlen_monitor": {"interval_ns": 100},
 "jobs": [{"name": "trace", "kind": "flow_file", "file": "flows.txt", "format": "conweave"}]}
EOF
sed 's/"interval_ns": 100}/"interval_ns": 300, "start_us": 2000001, "end_us": 2000004}/' \
	"$T/ffjobs.json" > "$T/ffqjobs.json"
timeout -k 5 60 "$BIN" -- --config "$T/ff.json" --virtual-time --jobs "$T/ffjobs.json" \
	--results "$T/ff" > "$T/ff.log" 2>&1 < /dev/null || fail "flow file run exited with status $?"
TOOL=${AIF_FCT_SLOWDOWN:-$ROOT/../../shared/tools/fct-slowdown}
[ -x "$TOOL" ] || TOOL=$HERE/../tools/fct-slowdown
"$PY" - "$T/ff" "$TOOL" <<'EOF' || fail "flow file results"
import json, os, subprocess, sys
d, tool = sys.argv[1], sys.argv[2]
fct = [l.split() for l in open(d + "/fct.txt")]
assert len(fct) == 7, fct
# ConWeave's format: decimal host ids, sport 10000 + n-th sent, dport 100 +
# m-th received, the file's start times (floor of the double x 1e9)
byid = {(int(f[0]), int(f[1])): f for f in fct}
assert byid[(4, 0)][2:6] == ["10000", "103", "200000", "2000000099"], byid[(4, 0)]
assert byid[(6, 7)][2:6] == ["10000", "100", "1", "2000002026"], byid[(6, 7)]
assert byid[(7, 6)][2:4] == ["10000", "100"], byid[(7, 6)]
assert all(int(f[6]) > 0 and int(f[7]) > 0 for f in fct)
if os.access(tool, os.X_OK):
    out = json.loads(subprocess.run([tool, d + "/fct.txt", "--expected-flows", "7"], check=True,
                                    capture_output=True, text=True).stdout)
    assert out["slowdown_all"]["n"] == 7 and out["finished_frac"] == 1, out
    assert out["slowdown_all"]["avg"] >= 1, out
    scored = "scored avg %.2f by fct-slowdown" % out["slowdown_all"]["avg"]
else:
    scored = "fct-slowdown not found: not scored"
pfc = [l.split() for l in open(d + "/pfc.txt")]
assert pfc, "no pause"
t = [int(p[0]) for p in pfc]
assert t == sorted(t) and t[0] >= 2000000000, t[:5]
assert all(len(p) == 5 and p[2] in ("0", "1") and p[4] in ("0", "1") for p in pfc), pfc[:5]
# the incast's senders (hosts 1..4, node type 0, ifindex 1) are paused
paused = {int(p[1]) for p in pfc if p[2] == "0" and p[4] == "1"}
assert paused & {1, 2, 3, 4} and all(p[3] == "1" for p in pfc if p[2] == "0"), paused
s = json.load(open(d + "/summary.json"))
assert s["fabric"]["pfc_xoff_sent"] > 0, s["fabric"]
q = open(d + "/qlen.txt").read().split("time: ")[1:]
assert len(q) >= 2, len(q)  # at 2.0 s (a multiple of 100 ms) and at the end
rows = [l.split() for l in q[-1].splitlines()[1:]]
assert len(rows) == 4 * 4 + 2 * 4, len(rows)  # every switch port
assert all(int(r[0]) >= 8 for r in rows) and max(len(r) for r in rows) > 50, rows[:3]
# every port's histogram holds each sample once: the same count on every
# row of a dump, busy switch or idle (an idle one's zeros are added late)
for b in q:
    sums = {sum(map(int, l.split()[2:])) for l in b.splitlines()[1:]}
    assert len(sums) == 1 and min(sums) > 0, (b.splitlines()[0], sorted(sums)[:5])
print("  ok   a flow file: fct.txt (%d flows, ns-3's ids and starts, %s), pfc.txt (%d "
      "frames, hosts %s paused), qlen.txt (%d ports)"
      % (len(fct), scored, len(pfc), sorted(paused), len(rows)))
EOF
printf '2\n0 1 3 10 2.0\n0 8 3 10 2.0\n' > "$T/flows8.txt"
sed 's/flows.txt/flows8.txt/' "$T/ffjobs.json" > "$T/ffbad.json"
if "$BIN" -- --config "$T/ff.json" --virtual-time --jobs "$T/ffbad.json" > "$T/ffbad.log" 2>&1; then
	fail "a flow file with host 8 on 8 hosts was accepted"
fi
grep -q 'jobs\[0\].file: .*flows8.txt:3: host id 8' "$T/ffbad.log" ||
	fail "the refusal does not name \$.jobs[0].file and line 3"
echo "  ok   a flow file naming a host the fabric lacks is refused: $(grep -o 'jobs\[0\].file.*' "$T/ffbad.log" | head -c 90)"

# 9. virtual time on 1, 2 and 3 runners (the fabric split by leaf, spines
# spread, threads meeting at window boundaries): the same results, byte for
# byte, on the main job (scripts/run's 4 x 4 leaf-spine, ECMP, PFC on) and on
# the flow file's incast with its pauses
cat > "$T/main.json" <<'EOF'
{"policies": {"default": {"load_balancing": {"scheme": "ecmp", "control_tc": []},
                          "qos": {"pfc_enable": [3]}}},
 "topology": {"leaf_spine": {"leaves": 4, "spines": 4, "hosts_per_leaf": 4,
  "host_gbps": 100, "uplink_gbps": 100, "delay_ns": 1000}}}
EOF
cp "$ROOT/config/jobs-main.json" "$T/mainjobs.json"
cp "$ROOT/config/workloads/AliStorage2019.txt" "$T/workloads/"
for n in 1 2 3; do
	timeout -k 5 120 "$BIN" -- --config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
		--results "$T/main$n" --samples "$T/main$n/s" --sample-us 20 --runners $n \
		> "$T/main$n.log" 2>&1 < /dev/null || fail "main job on $n runners exited with status $?"
	timeout -k 5 60 "$BIN" -- --config "$T/ff.json" --virtual-time --jobs "$T/ffjobs.json" \
		--results "$T/inc$n" --runners $n > "$T/inc$n.log" 2>&1 < /dev/null ||
		fail "incast on $n runners exited with status $?"
	# the queue monitor for 3 us of it, every 300 ns: its samples, and the
	# run's end after it (the last event, not a tick's time)
	timeout -k 5 60 "$BIN" -- --config "$T/ff.json" --virtual-time --jobs "$T/ffqjobs.json" \
		--results "$T/incq$n" --runners $n > "$T/incq$n.log" 2>&1 < /dev/null ||
		fail "incast with a monitor window on $n runners exited with status $?"
done
grep -q '^  3 runners, window by window: lookahead 1.000 us' "$T/main3.log" ||
	fail "3 runners: the partition is not said"
# the runners' threads run on every core the process was given, not on the
# one lcore EAL pins its main thread to (they used to take turns on it);
# and with no --runners, as many runners as the fabric has parts (8: its 4
# leaves and 4 spines), on a thread per core, each thread its runners in
# turn
cores=$(nproc)
grep -q "^    on $cores cores\? (" "$T/main3.log" ||
	fail "3 runners: not on the $cores core(s) given: $(grep -m1 '^    on ' "$T/main3.log")"
timeout -k 5 120 "$BIN" -- --config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
	--results "$T/maind" > "$T/maind.log" 2>&1 < /dev/null || fail "main job, default runners: status $?"
want="  8 runners, window by window"
grep -q "^$want" "$T/maind.log" ||
	fail "no --runners: not '$want': $(grep -m1 -E '^  (one runner|[0-9]+ runners,)' "$T/maind.log")"
threads=$((cores < 8 ? cores : 8))
[ "$threads" -ge 8 ] || grep -q "^    the 8 runners in turn on $threads threads\?, one a core" "$T/maind.log" ||
	fail "no --runners: the 8 runners not on $threads thread(s): $(grep -m1 'in turn' "$T/maind.log")"
for f in fct.txt jobs.csv qps.csv pfc.txt; do
	cmp -s "$T/main1/$f" "$T/maind/$f" || fail "main job: $f differs with the default runners"
done
# --threads: the default's 8 runners on 3 threads (taking turns on cores
# where there are fewer), the same results, the threads said
timeout -k 5 120 "$BIN" -- --config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
	--results "$T/maint3" --threads 3 > "$T/maint3.log" 2>&1 < /dev/null ||
	fail "main job, --threads 3: status $?"
grep -q "^    the 8 runners in turn on 3 threads" "$T/maint3.log" ||
	fail "--threads 3: not said: $(grep -m1 'in turn' "$T/maint3.log")"
[ "$cores" -ge 3 ] || grep -q "fewer than the runners' threads, which take turns" "$T/maint3.log" ||
	fail "--threads 3 on $cores core(s): the turns not said"
for f in fct.txt jobs.csv qps.csv pfc.txt; do
	cmp -s "$T/main1/$f" "$T/maint3/$f" || fail "main job: $f differs on 3 threads"
done
"$BIN" -- --config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" --threads 65 \
	> "$T/maint65.log" 2>&1 < /dev/null && fail "--threads 65 was taken"
grep -q "^--threads: '65': a number of threads, 1..64" "$T/maint65.log" ||
	fail "--threads 65: not said why: $(head -1 "$T/maint65.log")"
echo "  ok   runner threads on the $cores core(s) given; no --runners:${want#  } on $threads thread(s), the same results; --threads 3 too"
grep -q '^    runner 2: busy [0-9.]* s (CPU [0-9.]* s), waiting [0-9.]* s' "$T/main3.log" ||
	fail "3 runners: busy and waiting times are not said"
grep -q '^    longest runner of each window [0-9.]* s (wall, summed' "$T/main3.log" ||
	fail "3 runners: the longest runner of each window is not said"
for n in 2 3; do
	for f in fct.txt jobs.csv qps.csv pfc.txt qlen.txt summary.json s-links.csv s-queues.csv; do
		cmp -s "$T/main1/$f" "$T/main$n/$f" || fail "main job: $f differs on $n runners"
	done
	for f in fct.txt jobs.csv qps.csv pfc.txt qlen.txt summary.json; do
		cmp -s "$T/inc1/$f" "$T/inc$n/$f" || fail "incast: $f differs on $n runners"
		cmp -s "$T/incq1/$f" "$T/incq$n/$f" ||
			fail "incast with a monitor window: $f differs on $n runners"
	done
	[ "$(grep '^summary:' "$T/incq1.log" | cut -d' ' -f2)" = \
	  "$(grep '^summary:' "$T/incq$n.log" | cut -d' ' -f2)" ] ||
		fail "incast with a monitor window: the end differs on $n runners"
done
"$PY" - "$T/main1" "$T/inc1" <<'EOF' || fail "runners: what was compared"
import json, sys
m, i = (json.load(open(d + "/summary.json")) for d in sys.argv[1:3])
assert all(j["finished"] == j["iterations"] for j in m["jobs"]), m["jobs"]
assert i["fabric"]["pfc_xoff_sent"] > 0, i["fabric"]
print("  ok   1, 2 and 3 runners: identical fct.txt, jobs.csv, qps.csv, pfc.txt, qlen.txt, "
      "summary.json and samples (main job: %d flows; incast: %d PFC pauses; and with the "
      "queue monitor for 3 us of it, the end too)"
      % (m["flows"]["count"], i["fabric"]["pfc_xoff_sent"]))
EOF

# A k=4 fat-tree's all-to-all on one runner and on 20, one a switch (a
# pod would be more than twice a runner's share: partition.h), the same
# results
echo '{"topology": {"fat_tree": {"k": 4}}}' > "$T/ft4.json"
echo '{"jobs": [{"name": "a2a", "kind": "alltoall", "hosts": "all", "bytes": 16384}]}' \
	> "$T/ft4jobs.json"
for n in 1 20; do
	timeout -k 5 120 "$BIN" -- --config "$T/ft4.json" --virtual-time --jobs "$T/ft4jobs.json" \
		--results "$T/ft4r$n" --runners $n > "$T/ft4r$n.log" 2>&1 < /dev/null ||
		fail "k=4 fat-tree, $n runner(s): status $?"
done
grep -q "^  20 runners, switch by switch, window by window" "$T/ft4r20.log" ||
	fail "k=4 fat-tree on 20 runners: not split switch by switch: $(grep -m1 'runners' "$T/ft4r20.log")"
for f in fct.txt jobs.csv qps.csv summary.json; do
	cmp -s "$T/ft4r1/$f" "$T/ft4r20/$f" || fail "k=4 fat-tree: $f differs on 20 runners"
done
echo "  ok   a k=4 fat-tree on 20 runners, switch by switch: the one-runner run's fct.txt, jobs.csv, qps.csv, summary.json"

# 10. the parts as processes: mpirun -np 1 and 2 (each rank its own EAL
# file prefix and memory: the virtual-time defaults), rank 0 writing
if ! command -v mpirun > /dev/null; then
	echo "  skip MPI ranks: no mpirun (apt-get install openmpi-bin libopenmpi-dev)"
elif [ ! -x "$(dirname "$BIN")/aifabric-mpi" ]; then
	echo "  skip MPI ranks: no $(dirname "$BIN")/aifabric-mpi (built with MPI: meson -Dmpi=enabled)"
else
	# (root in containers; Open MPI's own allocations are not ours to check)
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	MPI_ASAN=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	for n in 1 2; do
		ASAN_OPTIONS=$MPI_ASAN timeout -k 5 120 mpirun --oversubscribe -np $n "$BIN" -- \
			--config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
			--results "$T/mpimain$n" > "$T/mpimain$n.log" 2>&1 < /dev/null ||
			fail "main job on $n MPI ranks exited with status $?"
		ASAN_OPTIONS=$MPI_ASAN timeout -k 5 60 mpirun --oversubscribe -np $n "$BIN" -- \
			--config "$T/ff.json" --virtual-time --jobs "$T/ffjobs.json" \
			--results "$T/mpiinc$n" > "$T/mpiinc$n.log" 2>&1 < /dev/null ||
			fail "incast on $n MPI ranks exited with status $?"
		for f in fct.txt jobs.csv qps.csv pfc.txt qlen.txt summary.json; do
			cmp -s "$T/main1/$f" "$T/mpimain$n/$f" ||
				fail "main job: $f differs on $n MPI ranks"
			cmp -s "$T/inc1/$f" "$T/mpiinc$n/$f" || fail "incast: $f differs on $n MPI ranks"
		done
	done
	# by default every part the fabric has, the ranks taking turns: several
	# runners a rank; 3 runners: 2 on rank 0, 1 on rank 1 (the ranks write
	# to one output: a rank's line may follow another's unfinished one)
	grep -q '  rank 1 of 2: [0-9]* windows of at most [0-9.]* us, runners 1,3' \
		"$T/mpimain2.log" || fail "2 MPI ranks: rank 1 did not say its runners"
	ASAN_OPTIONS=$MPI_ASAN timeout -k 5 120 mpirun --oversubscribe -np 2 "$BIN" -- \
		--config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" --runners 3 \
		--results "$T/mpimain3" > "$T/mpimain3.log" 2>&1 < /dev/null ||
		fail "main job on 3 runners over 2 MPI ranks exited with status $?"
	for f in fct.txt jobs.csv qps.csv pfc.txt qlen.txt summary.json; do
		cmp -s "$T/main1/$f" "$T/mpimain3/$f" ||
			fail "main job: $f differs on 3 runners over 2 MPI ranks"
	done
	grep -q '  rank 0 of 2: [0-9]* windows of at most [0-9.]* us, runners 0,2 on' \
		"$T/mpimain3.log" || fail "3 runners on 2 MPI ranks: rank 0 did not run 0 and 2"
	ASAN_OPTIONS=$MPI_ASAN timeout -k 5 60 mpirun --oversubscribe -np 2 "$BIN" -- \
		--config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" --runners 1 \
		--results "$T/mpimain4" > "$T/mpimain4.log" 2>&1 < /dev/null &&
		fail "2 MPI ranks took --runners 1"
	grep -q 'mpirun -np 2: --runners 1: fewer runners than ranks' "$T/mpimain4.log" ||
		fail "2 MPI ranks, --runners 1: not said why"
	# ranks that cannot start alike stop together at the start, saying
	# why, where one used to wait for the other for ever: rank 1's config
	# missing; rank 1 given another config (its links' delay 2 us), then
	# another seed (mpirun's MPMD form: each rank its own arguments)
	sed 's/"delay_ns": 1000/"delay_ns": 2000/' "$T/main.json" > "$T/main2us.json"
	bad=0
	for case in "nonexistent.json:rank 1 stopped at the start" \
		"main2us.json:rank 1's inputs differ from rank 0's" \
		"main.json --seed 7:rank 1's inputs differ from rank 0's"; do
		rc=0
		# shellcheck disable=SC2086 # (the case's words: a config and options)
		ASAN_OPTIONS=$MPI_ASAN timeout -k 5 60 mpirun --oversubscribe -np 1 "$BIN" -- \
			--config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
			--results "$T/mpibad" : -np 1 "$BIN" -- --config "$T/"${case%%:*} \
			--virtual-time --jobs "$T/mainjobs.json" --results "$T/mpibad" \
			> "$T/mpibad$bad.log" 2>&1 < /dev/null || rc=$?
		[ "$rc" = 1 ] || fail "2 MPI ranks, rank 1 with --config ${case%%:*}: exit status" \
			"$rc, not 1 (124: a rank waited for the other until the timeout)"
		grep -q "mpirun: ${case#*:}" "$T/mpibad$bad.log" ||
			fail "2 MPI ranks, rank 1 with --config ${case%%:*}: not said why" \
			"(\"${case#*:}\")"
		[ ! -e "$T/mpibad/fct.txt" ] || fail "2 MPI ranks that differ wrote results"
		bad=$((bad + 1))
	done
	# rank 1 a daemon of another build: a copy with another commit in it
	# (build_id.h's, its first character changed, the length kept)
	mkdir -p "$T/other"
	cp "$BIN" "$(dirname "$BIN")/aifabric-mpi" "$T/other/"
	"$PY" - "$(dirname "$BIN")/build_id.h" "$T/other/aifabric-mpi" <<'EOF' ||
import re, sys
bid = re.search(r'#define AIF_BUILD_ID "([^"]+)"', open(sys.argv[1]).read()).group(1).encode()
other = (b"1" if bid[:1] != b"1" else b"2") + bid[1:]
data = open(sys.argv[2], "rb").read()
assert data.count(bid) >= 1, "the build id is not in the daemon"
open(sys.argv[2], "wb").write(data.replace(bid, other))
EOF
		fail "could not make a daemon of another build"
	rc=0
	ASAN_OPTIONS=$MPI_ASAN timeout -k 5 60 mpirun --oversubscribe -np 1 "$BIN" -- \
		--config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
		--results "$T/mpibad" : -np 1 "$T/other/$(basename "$BIN")" -- \
		--config "$T/main.json" --virtual-time --jobs "$T/mainjobs.json" \
		--results "$T/mpibad" > "$T/mpibuild.log" 2>&1 < /dev/null || rc=$?
	[ "$rc" = 1 ] || fail "2 MPI ranks of two builds: exit status $rc, not 1"
	grep -q "mpirun: rank 1's inputs differ from rank 0's" "$T/mpibuild.log" ||
		fail "2 MPI ranks of two builds: not said why"
	# two ranks on one machine share its hugepages: a fabric that fits
	# them once (its six 2.5 ms 400G links' rings: 1.3 GiB counted) but
	# not twice goes to 4 KiB pages on both, where both ranks used to run
	# out of memory
	sed 's/"delay_ns": 10000000/"delay_ns": 2500000/; s/"leaves": 2/"leaves": 3/' \
		"$T/far.json" > "$T/far2.json"
	if [ "$free_mb" -ge 1800 ] && [ "$free_mb" -lt 3000 ]; then
		ASAN_OPTIONS=$MPI_ASAN timeout -k 5 60 mpirun --oversubscribe -np 2 "$BIN" -- \
			--config "$T/far2.json" --virtual-time --jobs "$T/farjobs.json" \
			--results "$T/mpifar" > "$T/mpifar.log" 2>&1 < /dev/null ||
			fail "2 MPI ranks of a 1.3 GiB fabric: exit status $? ($(grep -m1 -i memory "$T/mpifar.log"))"
		grep -q '^memory: 4 KiB pages (EAL --no-huge -m [0-9]*): the fabric takes about [0-9]* MiB of DPDK memory on each rank here' \
			"$T/mpifar.log" || fail "2 MPI ranks of a 1.3 GiB fabric: not on 4 KiB pages"
		echo "  ok   2 MPI ranks of a 1.3 GiB fabric with $free_mb MiB of hugepages free: 4 KiB pages"
	fi
	echo "  ok   mpirun -np 1 and -np 2 (every part, several a rank), 3 runners on 2 ranks:" \
		"fct.txt, jobs.csv, qps.csv, pfc.txt, qlen.txt, summary.json of one runner, main" \
		"job and incast; --runners 1 on 2 ranks refused; a rank without its config, or" \
		"with another config, seed or build, stops every rank at the start"
fi

rm -rf "$T"
echo "run_hosts: PASS"
