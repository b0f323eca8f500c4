#!/usr/bin/env bash
# Layers point one way (README, Architecture): dataplane/ and pipelines/
# (primitives, stages, the runtime) include and call nothing of hosts/ or
# control/, and hosts/ nothing of control/.  Includes are read from the
# sources; calls from the core library's objects: a lower folder's
# undefined symbols must not be defined by a higher folder's objects.
#   check_layers.sh SOURCE_ROOT OBJECT_DIR   (OBJECT_DIR: build/libaifcore.a.p)
set -uo pipefail
src=${1:?source root} objs=${2:?object dir}
bad=0

# folder -> the folders above it
declare -A above=([dataplane]="hosts control" [pipelines]="hosts control" [hosts]="control")

for low in dataplane pipelines hosts; do
	for high in ${above[$low]}; do
		hits=$(grep -n "#include \"\.\./$high/" "$src/$low"/*.[ch] 2>/dev/null)
		if [ -n "$hits" ]; then
			echo "$low/ includes from $high/ (a layer above):"
			echo "$hits" | sed "s|^$src/||"
			bad=1
		fi
	done
done

ls "$objs"/*.o >/dev/null 2>&1 || { echo "no objects in $objs"; exit 1; }
defined() { # symbols the folder's objects define
	for o in "$objs/$1"_*.o; do
		[ -e "$o" ] && nm --defined-only "$o" | awk '$2 ~ /^[TDBRC]$/ {print $3}'
	done | sort -u
}
undefined() {
	for o in "$objs/$1"_*.o; do
		[ -e "$o" ] && nm -u "$o" | awk '{print $NF}'
	done | sort -u
}
for low in dataplane pipelines hosts; do
	u=$(undefined "$low")
	for high in ${above[$low]}; do
		calls=$(comm -12 <(echo "$u") <(defined "$high"))
		if [ -n "$calls" ]; then
			echo "$low/ calls into $high/ (a layer above): $(echo $calls)"
			bad=1
		fi
	done
done
[ "$bad" -eq 0 ] && echo "layers point one way: dataplane/, pipelines/ < hosts/ < control/"
exit "$bad"
