#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Start-up, the failing ways and the one good way, for each daemon binary
# given (default: build/aifabric and the ASan+UBSan build-asan/aifabric):
#   - a net_pcap infinite_rx port fed 9000-byte frames with mtu 1500: the
#     RX queue set-up fails; the port holding pool mbufs must be closed
#     before the pool goes (this exit path crashed in EAL cleanup);
#   - "pfc_mode": "hardware" on a driver without it, after the port's
#     infinite_rx queue took mbufs from the pool;
#   - a config naming a device EAL does not have;
#   - a bad config: refused before EAL starts; so is part of a generated
#     fabric ("emulate") whose cut link has no device ("link_devices");
#   - a second daemon on a live control socket, with a config whose device
#     does not exist: it must name the socket before it looks at a port,
#     and, on the default socket (in a mount namespace of the test's own,
#     so no real /run/aifabric is touched), say how to choose another;
# each must exit with status 1 and its message, never crash (no 134/139,
# no sanitizer report) and never say mbufs were left behind.  Then one good
# run, with inotify counting how often the config file is opened (once: a
# file changed during start-up must not apply half old, half new).  Then
# "--help", before or after the "--": exit 0 with the usage on stdout
# (aifabricctl's listing lb test too); and --samples and --pcap-out into
# directories that do not exist, which the daemon makes.  Every run uses
# --in-memory (--no-huge without hugepages, or with AIF_NO_HUGE set), and
# no hugepage file of these runs may be left in /dev/hugepages, nor the
# good run's EAL runtime directory in /var/run/dpdk.
#
#   [AIF_NO_HUGE=1] tests/e2e/check_start.sh [AIFABRIC...]
#
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 only when every
# check passes, 2 when it cannot run.  Needs root (mount namespace),
# python3-scapy (/usr/bin/python3).  About 30 s.  START_KEEP=1 keeps the
# temp dir.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
if [ $# -gt 0 ]; then BINS=("$@"); else BINS=("$ROOT/build/aifabric" "$ROOT/build-asan/aifabric"); fi
for b in "${BINS[@]}"; do
	[ -x "$b" ] || { echo "check_start: $b is not an executable (build first)" >&2; exit 2; }
done
"$PY" -c 'import scapy' 2>/dev/null || { echo "check_start: needs python3-scapy" >&2; exit 2; }

T=$(mktemp -d /tmp/aif-start.XXXXXX)
LIVE_PID=
cleanup() {
	[ -n "$LIVE_PID" ] && kill -TERM "$LIVE_PID" 2>/dev/null && wait "$LIVE_PID" 2>/dev/null
	rm -rf /var/run/dpdk/aif-start-$$-* # EAL's runtime directories
	if [ "${START_KEEP:-0}" = 1 ]; then echo "check_start: files kept in $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# Hugepages if there are any, else 4 KiB pages (scripts/lib.sh
# aif_eal_mem_choice: --in-memory, or --no-huge --no-shconf; neither leaves
# a hugepage file nor anything in EAL's runtime directory).  512 MiB: the
# daemon's pool and its FIBs (about 65 MiB each) fit.
. "$ROOT/scripts/lib.sh"
MEM=$(aif_eal_mem_choice 256 512 512)
# Hugepage files of this test's runs (prefix aif-start-$$-): there must be
# none after (other programs' files may come and go meanwhile).
leftover_hugepages() { ls -1 /dev/hugepages 2>/dev/null | grep "^aif-start-$$-"; }

export UBSAN_OPTIONS="print_stacktrace=1"

passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

"$PY" - "$T" <<'EOF' || { echo "check_start: cannot write pcaps" >&2; exit 2; }
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
t = sys.argv[1]
def frame(n):
    return (Ether(dst="02:00:00:00:00:10", src="02:00:00:00:00:02") /
            IP(src="10.0.0.2", dst="10.0.1.1") / UDP(sport=4791, dport=4791) / Raw(b"x" * n))
wrpcap(t + "/jumbo.pcap", [frame(9000 - 42) for _ in range(4)])  # 9000-byte frames
wrpcap(t + "/small.pcap", [frame(100)])
EOF

# cfg NAME P0_EXTRA P1_DEVICE: a leaf with p0 on net_pcap0, p1 on P1_DEVICE
cfg() {
	cat > "$T/$1.json" <<EOF
{"switches": [{"name": "leaf0", "ports": [
  {"name": "p0", "device": "net_pcap0", "mac": "02:00:00:00:00:10", "addresses": ["10.0.0.1/24"]$2},
  {"name": "p1", "device": "$3", "mac": "02:00:00:00:00:11", "addresses": ["10.0.1.0/31"]}]}]}
EOF
}
cfg good "" net_null1
cfg hwpfc ', "pfc_mode": "hardware"' net_null1
cfg nodev "" net_nope
cat > "$T/bad.json" <<'EOF'
{"switches": [{"name": "leaf0", "ports": [
  {"name": "p0", "device": "net_pcap0", "addresses": ["224.0.0.1/24"]}]}]}
EOF

# run NAME BIN CONFIG PCAP [aifabric options...]: output in $T/NAME.log,
# status in $rc; the control socket is $SOCK if set, else $T/NAME.sock
run() {
	local name=$1 bin=$2 config=$3 pcap=$4
	shift 4
	rc=0
	# shellcheck disable=SC2086  # $MEM: two or three words on purpose
	timeout -k 5 60 "$bin" -l 0-1 $MEM --no-pci --file-prefix "aif-start-$$-$name" \
		--log-level 'pmd.*:error' \
		--vdev "net_pcap0,rx_pcap=$T/$pcap,infinite_rx=1,tx_pcap=/dev/null" \
		--vdev net_null1,no-rx=1 \
		-- --config "$T/$config" --socket "${SOCK:-$T/$name.sock}" "$@" \
		> "$T/$name.log" 2>&1 < /dev/null || rc=$?
}

# expect_fail NAME MESSAGE [MESSAGE...]: status 1, each message, no crash
expect_fail() {
	local name=$1 log=$T/$1.log m ok=1
	shift
	if [ "$rc" -ne 1 ]; then
		fail "$name: exit status $rc, want 1$( [ "$rc" -ge 128 ] && echo " (signal $((rc - 128)))")"
		ok=0
	fi
	for m in "$@"; do
		grep -qF -- "$m" "$log" || { fail "$name: no message '$m'"; ok=0; }
	done
	if grep -qE 'Sanitizer|runtime error:|Segmentation fault' "$log"; then
		fail "$name: sanitizer report or crash"; ok=0
	fi
	if [ -n "${NO_MBUFS_HELD:-}" ] && grep -q 'still held' "$log"; then
		fail "$name: mbufs still out when the pool was freed: $(grep 'still held' "$log")"
		ok=0
	fi
	[ "$ok" = 1 ] && pass "$name: exit 1, $(grep -m1 -F -- "$1" "$log" | cut -c1-110)"
	[ "$ok" = 1 ] || { echo "----- $name output -----"; sed 's/^/  /' "$log"; }
}

# A daemon that holds a socket, for the collision checks.
start_live() { # start_live SOCKET
	# shellcheck disable=SC2086
	"${BINS[0]}" -l 0-1 $MEM --no-pci --file-prefix "aif-start-$$-live" \
		--vdev net_null0,no-rx=1 \
		-- --config "$T/live.json" --socket "$1" --duration 60 \
		> "$T/live.log" 2>&1 < /dev/null &
	LIVE_PID=$!
}
cat > "$T/nodevice.json" <<'EOF'
{"switches": [{"name": "s0", "ports": [{"name": "p0", "device": "net_pcap0"}, {"name": "p1"}]}]}
EOF
# part of a generated fabric whose cut link has no device
cat > "$T/cut.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 2, "spines": 1, "host_devices": ["net_pcap0"],
  "emulate": ["leaf0"]}}}
EOF
cat > "$T/live.json" <<'EOF'
{"switches": [{"name": "live0", "ports": [{"name": "p0", "device": "net_null0"}]}]}
EOF

for bin in "${BINS[@]}"; do
	tag=$(basename "$(dirname "$bin")")

	run "$tag-jumbo" "$bin" good.json jumbo.pcap --duration 1
	expect_fail "$tag-jumbo" \
		'$.switches[0].ports[0] (port p0, device net_pcap0): RX queue set-up failed' \
		"raise the port's \"mtu\""

	# the port's queue holds an mbuf of the pool: it must be closed (and
	# give it back) before the pool is freed
	run "$tag-hwpfc" "$bin" hwpfc.json small.pcap --duration 1
	NO_MBUFS_HELD=1 expect_fail "$tag-hwpfc" \
		'$.switches[0].ports[0].pfc_mode: "hardware" but the driver of net_pcap0 (port p0) cannot enable PFC'

	run "$tag-nodev" "$bin" nodev.json small.pcap --duration 1
	expect_fail "$tag-nodev" \
		"\$.switches[0].ports[1].device: no DPDK device named 'net_nope' (port p1; pass it to EAL"

	run "$tag-nodevice" "$bin" nodevice.json small.pcap --duration 1
	expect_fail "$tag-nodevice" \
		"config $T/nodevice.json: \$.switches[0].ports[1].device: required: in real time every port that is not a link's end is bound to a DPDK device"

	run "$tag-cut" "$bin" cut.json small.pcap --duration 1
	expect_fail "$tag-cut" \
		"config $T/cut.json: \$.topology.leaf_spine.link_devices: no device for leaf0:u0, this daemon's end of the link to spine0, which runs elsewhere"
	if grep -q '^EAL:' "$T/$tag-cut.log"; then
		fail "$tag-cut: EAL started before the config was checked"
	else
		pass "$tag-cut: a cut link without a device refused before EAL started"
	fi

	run "$tag-badcfg" "$bin" bad.json small.pcap --duration 1
	expect_fail "$tag-badcfg" \
		"config $T/bad.json: \$.switches[0].ports[0].addresses[0]: '224.0.0.1/24' is a multicast address (224.0.0.0/4)"
	if grep -q '^EAL:' "$T/$tag-badcfg.log"; then
		fail "$tag-badcfg: EAL started before the config was checked"
	else
		pass "$tag-badcfg: refused before EAL started"
	fi
done

# A second daemon on a live socket: refused before EAL, and so before any
# port (its config names a device that does not exist: reaching the ports
# would say that instead).
start_live "$T/live.sock"
for _ in $(seq 1 100); do [ -S "$T/live.sock" ] && break; sleep 0.1; done
if [ ! -S "$T/live.sock" ]; then
	fail "socket: the first daemon did not come up"; sed 's/^/  /' "$T/live.log"
else
	for bin in "${BINS[@]}"; do
		tag=$(basename "$(dirname "$bin")")
		SOCK=$T/live.sock run "$tag-taken" "$bin" nodev.json small.pcap --duration 1
		expect_fail "$tag-taken" \
			"control socket $T/live.sock is taken: another aifabric is listening there; stop it, or give this one its own with --socket PATH"
		if grep -q "no DPDK device\|^EAL:" "$T/$tag-taken.log"; then
			fail "$tag-taken: set up EAL or ports before checking the socket"
		else
			pass "$tag-taken: socket checked before EAL and the ports"
		fi
	done
	kill -0 "$LIVE_PID" 2>/dev/null && pass "socket: the first daemon still runs" ||
		fail "socket: the first daemon died"
fi
kill -TERM "$LIVE_PID" 2>/dev/null
wait "$LIVE_PID" 2>/dev/null
LIVE_PID=

# Two daemons without --socket: the default socket, in a mount namespace
# where /run is a tmpfs of this test's own.
cat > "$T/default.sh" <<EOF
set -u
mount -t tmpfs tmpfs /run || exit 3
"${BINS[0]}" -l 0-1 $MEM --no-pci --file-prefix aif-start-$$-dlive --vdev net_null0,no-rx=1 \
	-- --config "$T/live.json" --duration 60 > "$T/dlive.log" 2>&1 < /dev/null &
live=\$!
for _ in \$(seq 1 100); do [ -S /run/aifabric/aifabric.sock ] && break; sleep 0.1; done
rc=0
timeout -k 5 60 "\$1" -l 0-1 $MEM --no-pci --file-prefix aif-start-$$-dsecond \
	--vdev net_null0,no-rx=1 -- --config "$T/live.json" --duration 1 \
	> "\$2" 2>&1 < /dev/null || rc=\$?
kill -TERM \$live; wait \$live
exit \$rc
EOF
for bin in "${BINS[@]}"; do
	tag=$(basename "$(dirname "$bin")")
	rc=0
	unshare --mount --propagation private bash "$T/default.sh" "$bin" "$T/$tag-default.log" || rc=$?
	if [ "$rc" -eq 3 ]; then
		fail "$tag-default: cannot mount a private /run"
		continue
	fi
	expect_fail "$tag-default" \
		"control socket /run/aifabric/aifabric.sock is taken: another aifabric is running with the default socket" \
		"start this one with -- --socket PATH"
done

# A good run reads its config once.
for bin in "${BINS[@]}"; do
	tag=$(basename "$(dirname "$bin")")
	cp "$T/good.json" "$T/$tag-once.json"
	rc=0
	opens=$("$PY" - "$T/$tag-once.json" "$bin" -l 0-1 $MEM --no-pci --file-prefix "aif-start-$$-once" \
		--log-level 'pmd.*:error' \
		--vdev "net_pcap0,rx_pcap=$T/small.pcap,infinite_rx=1,tx_pcap=/dev/null" \
		--vdev net_null1,no-rx=1 -- --config "$T/$tag-once.json" \
		--socket "$T/$tag-once.sock" --duration 0.5 2> "$T/$tag-once.log" <<'EOF'
# Count IN_OPEN events on the config file while the daemon runs (inotify).
# Closes are watched too: inotify merges an event identical to the one
# before it still unread, so open, open would count once; open, close,
# open, close cannot merge.
import ctypes, os, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
IN_CLOSE, IN_OPEN, IN_NONBLOCK = 0x18, 0x20, 0o4000
fd = libc.inotify_init1(IN_NONBLOCK)
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_OPEN | IN_CLOSE) < 0:
    sys.exit("inotify: " + os.strerror(ctypes.get_errno()))
p = subprocess.run(sys.argv[2:], stdout=sys.stderr, stderr=sys.stderr, timeout=120)
opens = 0
try:
    buf = os.read(fd, 65536)
    while buf:
        _, mask, _, n = struct.unpack_from("iIII", buf)
        opens += (mask & IN_OPEN) != 0
        buf = buf[16 + n:]
except BlockingIOError:
    pass
print(opens)
sys.exit(p.returncode)
EOF
) || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$tag-once: the good run exited with $rc"; sed 's/^/  /' "$T/$tag-once.log"
	elif grep -qE 'Sanitizer|runtime error:' "$T/$tag-once.log"; then
		fail "$tag-once: sanitizer report"; sed 's/^/  /' "$T/$tag-once.log"
	elif [ "$opens" != 1 ]; then
		fail "$tag-once: the config file was opened $opens times, want 1"
	else
		pass "$tag-once: a good run opens its config file once and exits 0"
	fi
	# with no shared memory for secondaries (in-memory, no-huge) EAL's
	# runtime directory holds nothing at exit: the daemon removes it
	if [ -e "/var/run/dpdk/aif-start-$$-once" ]; then
		fail "$tag-once: EAL's runtime directory /var/run/dpdk/aif-start-$$-once left behind"
		rm -rf "/var/run/dpdk/aif-start-$$-once"
	else
		pass "$tag-once: no EAL runtime directory left behind"
	fi
done

# Asking for help: "aifabric --help" (before or after the "--") prints the
# usage on stdout and exits 0; aifabricctl's names every command, the
# offline "lb test" included.
for bin in "${BINS[@]}"; do
	tag=$(basename "$(dirname "$bin")")
	for form in "--help" "-- --help" "-l 0-1 --help"; do
		rc=0
		# shellcheck disable=SC2086  # $form: words on purpose
		timeout -k 5 20 "$bin" $form > "$T/$tag-help.out" 2> "$T/$tag-help.err" || rc=$?
		if [ "$rc" -ne 0 ]; then
			fail "$tag-help: aifabric $form exited $rc, want 0 ($(head -c 200 "$T/$tag-help.err"))"
		elif ! grep -q '^usage: aifabric \[EAL args\] -- --config FILE' "$T/$tag-help.out" ||
			! grep -q -- '--virtual-time' "$T/$tag-help.out" ||
			! grep -q -- '--sample-us' "$T/$tag-help.out"; then
			fail "$tag-help: aifabric $form: no usage with both forms on stdout"
		else
			pass "$tag-help: aifabric $form prints the usage on stdout, exit 0"
		fi
	done
	ctl=$(dirname "$bin")/aifabricctl
	rc=0
	"$ctl" --help > "$T/$tag-ctlhelp.out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^  lb test FILE.o' "$T/$tag-ctlhelp.out" ||
		! grep -q '^  lb load FILE.o' "$T/$tag-ctlhelp.out"; then
		fail "$tag-ctlhelp: aifabricctl --help (exit $rc) does not list lb test"
	else
		pass "$tag-ctlhelp: aifabricctl --help lists lb test with the daemon's commands"
	fi
done

# Outputs into directories that do not exist yet: --samples PREFIX makes
# its directory (as --results and --pcap-out make theirs), a fresh
# machine's first run included.
cat > "$T/vt.json" <<'EOF'
{"topology": {"leaf_spine": {"leaves": 2, "spines": 1}}}
EOF
for bin in "${BINS[@]}"; do
	tag=$(basename "$(dirname "$bin")")
	rc=0
	# no EAL args: virtual time picks its own (hugepages --in-memory or --no-huge)
	timeout -k 5 60 "$bin" -- --config "$T/vt.json" --virtual-time --traffic 0.2 --duration 0.00002 \
		--samples "$T/$tag-new/a/b/run" --pcap-out "$T/$tag-new/pcaps" \
		> "$T/$tag-samples.log" 2>&1 < /dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$tag-samples: exit $rc: $(grep -m1 -- '--samples\|--pcap-out\|edge port' "$T/$tag-samples.log")"
	elif [ ! -s "$T/$tag-new/a/b/run-links.csv" ] || [ ! -s "$T/$tag-new/a/b/run-queues.csv" ] ||
		[ ! -s "$T/$tag-new/pcaps/leaf1-h0.pcap" ]; then
		fail "$tag-samples: exit 0 but no samples or pcaps in the new directories"
	else
		pass "$tag-samples: --samples and --pcap-out into missing directories make them"
	fi
done

if [ -n "$(leftover_hugepages)" ]; then
	fail "hugepages: files left behind in /dev/hugepages: $(leftover_hugepages | head -3 | tr '\n' ' ')"
else
	pass "hugepages: no file of these runs left in /dev/hugepages ($MEM)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
