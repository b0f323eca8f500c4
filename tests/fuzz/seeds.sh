#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The load-balancing fuzzer's seed corpus: every compiled example and test
# program (examples/lb, tests/lb_prog), as the object and as the raw
# instructions of each of its aifabric/lb sections.
#   tests/fuzz/seeds.sh BUILD_DIR OUT_DIR
set -euo pipefail
BUILD=$1 OUT=$2
mkdir -p "$OUT"
n=0
for o in "$BUILD"/examples/lb/*.o "$BUILD"/tests/bad.o "$BUILD"/tests/hostile.o \
	"$BUILD"/tests/spill.o "$BUILD"/tests/least.o "$BUILD"/tests/global.o; do
	[ -f "$o" ] || continue
	b=$(basename "$o" .o)
	cp "$o" "$OUT/$b.o"
	n=$((n + 1))
	llvm-readelf -S --wide "$o" | grep -o 'aifabric/lb[^ ]*' | sort -u | while read -r sec; do
		llvm-objcopy -O binary --only-section="$sec" "$o" "$OUT/$b.${sec##*/}.bin"
	done
done
[ "$n" -gt 0 ] || { echo "seeds.sh: no objects under $BUILD" >&2; exit 1; }
echo "$(ls "$OUT" | wc -l) seeds in $OUT"
