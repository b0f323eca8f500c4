#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Fuzz for a bounded time (built with -Dfuzz=true under ASan+UBSan):
#   lb_prog  the load-balancing program loader and runs
#            (tests/fuzz/fuzz_lb_prog.c), from the seed corpus of the example
#            and test programs and the inputs of past findings
#            (tests/fuzz/regressions/): no escape from the sandbox, no fault,
#            the JIT, the switch's interpreter and the checking oracle
#            agreeing on every program loaded, no load taking more than 10 s;
#   parse    the frame parser (tests/fuzz/fuzz_parse.c), from a frame of
#            every kind it tells apart (tests/fuzz/parse_seeds.py, scapy): no
#            read past the frame, no field past its bytes, the same answer
#            behind a tag of VID 0;
#   config   the config loader (tests/fuzz/fuzz_config.c), from the configs
#            of config/ and variants of them (tests/fuzz/config_seeds.py,
#            with a dictionary of the README's field names): every refusal
#            with a JSON path, every config taken compiled switch by switch
#            (twice: a reload) and a generated one routed around a link
#            down, no fault, no leak;
#   workload the workload loader (tests/fuzz/fuzz_workload.c): jobs files,
#            from config/'s and a job of every kind (config_seeds.py
#            --workload), with a CDF and a flow file beside them: every
#            refusal naming the file and a JSON path, no fault, no leak;
#   ctl      the control commands (tests/fuzz/fuzz_ctl.c): request lines, from
#            one of every command with its arguments (ctl_seeds.py), over a
#            small generated fabric: one line of JSON answered to each,
#            {"ok": ...} with a reason for a refusal, the running config
#            kept, no fault, no leak;
#   switch   a whole switch (tests/fuzz/fuzz_switch.c): a frame on one of
#            its ports, from frames aimed at it (switch_seeds.py: routed,
#            local, ARP, ND, ICMP, PFC, tagged), its state kept from frame to
#            frame: every IPv4 frame it sends with a right header checksum,
#            every mbuf back in the pool, no fault, no leak;
#   rhost    the virtual RoCE hosts (tests/fuzz/fuzz_rhost.c): a frame to one
#            of three hosts exchanging messages, its ICRC made right, from
#            the hosts' own frames (the harness writes them): no fault, no
#            leak;
#   flowfile flow files (ConWeave's and HPCC's formats) and flow-size CDFs
#            (tests/fuzz/fuzz_flowfile.c), from config/workloads' CDFs and a
#            small flow file of each format: every refusal naming the file,
#            what is taken keeping the readers' rules, no fault, no leak;
#   pcap     the pcap port's reader (tests/fuzz/fuzz_pcap.c): capture files,
#            from config/incast's and their first 3,000 bytes: a refusal
#            naming the file, frames in time order and of possible lengths,
#            the counters agreeing, every mbuf back, no fault, no leak.
# Exit 0 when libFuzzer found nothing.
#   tests/fuzz/run.sh BUILD_DIR [SECONDS] [lb_prog|parse|config|workload|ctl|switch|rhost|flowfile|pcap]   (default 60, lb_prog)
# A finding is kept in BUILD_DIR/fuzz-findings/ with the input that made it.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$1 SECS=${2:-60} WHAT=${3:-lb_prog}
FUZZ=$BUILD/tests/fuzz_$WHAT
[ -x "$FUZZ" ] || { echo "fuzz: $FUZZ is missing (build with -Dfuzz=true)" >&2; exit 2; }
T=$(mktemp -d /tmp/aif-fuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT
case $WHAT in
lb_prog) "$HERE/seeds.sh" "$BUILD" "$T/seeds" >/dev/null || exit 2
	past=("$HERE/regressions") ;;
parse) /usr/bin/python3 "$HERE/parse_seeds.py" "$T/seeds" >/dev/null || exit 2
	past=() ;;
config) /usr/bin/python3 "$HERE/config_seeds.py" "$T/seeds" "$T/dict" >/dev/null || exit 2
	past=(-dict="$T/dict") ;;
ctl) /usr/bin/python3 "$HERE/ctl_seeds.py" "$T/seeds" "$T/dict" "$BUILD" >/dev/null || exit 2
	past=(-dict="$T/dict") ;;
switch) /usr/bin/python3 "$HERE/switch_seeds.py" "$T/seeds" >/dev/null || exit 2
	past=() ;;
rhost) mkdir -p "$T/seeds" && FUZZ_RHOST_SEEDS="$T/seeds" "$FUZZ" >/dev/null 2>&1 || exit 2
	past=() ;;
flowfile) mkdir -p "$T/seeds" || exit 2
	for c in "$HERE"/../../config/workloads/*.txt; do
		{ printf '\002'; cat "$c"; } > "$T/seeds/cdf_$(basename "$c")" || exit 2
	done
	printf '\0003\n0 5 3 4995 2.000000027\n1 6 3 100000 2.000001\n2 7 3 1000 2.5\n' \
		> "$T/seeds/conweave"
	printf '\0012 estimate\n0 5 3 100 4995 2.000000027\n1 6 3 101 100000 2.000001\n' \
		> "$T/seeds/hpcc"
	past=() ;;
workload) /usr/bin/python3 "$HERE/config_seeds.py" --workload "$T/seeds" "$T/dict" >/dev/null ||
	exit 2
	past=(-dict="$T/dict") ;;
pcap) mkdir -p "$T/seeds" || exit 2
	for c in "$HERE"/../../config/incast/*.pcap; do
		cp "$c" "$T/seeds/" && head -c 3000 "$c" > "$T/seeds/head_$(basename "$c")" || exit 2
	done
	past=() ;;
*) echo "fuzz: no harness $WHAT" >&2; exit 2 ;;
esac
mkdir -p "$T/corpus" "$BUILD/fuzz-findings"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	timeout -k 10 $((SECS + 120)) "$FUZZ" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=4096 \
	-print_final_stats=1 -artifact_prefix="$BUILD/fuzz-findings/" "$T/corpus" "$T/seeds" "${past[@]}" \
	> "$T/log" 2>&1
rc=$?
grep -E "^fuzz_$WHAT:|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$T/log"
if [ "$rc" -ne 0 ]; then
	grep -E 'ESCAPE|DIFFER|ERROR|SUMMARY|Test unit written|^fuzz_parse:|^fuzz_config:|^fuzz_workload:|^fuzz_ctl:|^fuzz_switch:|^fuzz_rhost:|^fuzz_flowfile:|^fuzz_pcap:' "$T/log" | head -20
	echo "fuzz: FAILED (exit $rc; the input is in $BUILD/fuzz-findings/)"
	exit 1
fi
echo "fuzz: $SECS s, nothing found"
