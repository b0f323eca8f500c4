#!/usr/bin/env bash
# Shared helpers for scripts/: dependency install, build, hugepages.
# Source it; it changes nothing until a function is called.

AIF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AIF_PACKAGES=(build-essential meson ninja-build pkg-config dpdk dpdk-dev libdpdk-dev
	libjansson-dev libcmocka-dev libpcap-dev libbpf-dev libelf-dev clang llvm libclang-rt-14-dev python3-scapy tshark gnuplot-nox iproute2 procps
	iputils-ping iperf3 tcpdump ethtool traceroute openmpi-bin libopenmpi-dev)

aif_log() { printf '==> %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		aif_log "need root for: $*"; return 1; fi
}

# Install the Debian 12 packages that are missing (nothing when all are there).
aif_install_deps() {
	local missing=()
	for p in "${AIF_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	aif_log "installing: ${missing[*]}"
	echo 'wireshark-common wireshark-common/install-setuid boolean false' |
		as_root debconf-set-selections 2>/dev/null || true
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# Build into $1 (default build/) with warnings as errors; extra meson args
# follow.  AIF_TARGETS limits what ninja builds (default: everything).
aif_build() {
	local dir=${1:-build}
	shift || true
	cd "$AIF_ROOT" || return 1
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" -Dwerror=true "$@" >/dev/null || return 1
	fi
	# shellcheck disable=SC2086
	ninja -C "$dir" ${AIF_TARGETS:-} >/dev/null || { ninja -C "$dir" ${AIF_TARGETS:-}; return 1; }
}

# Reserve 1024 2 MiB hugepages and mount hugetlbfs on /dev/hugepages, where
# we may (AIF_NO_HUGE set: leave them alone); failures are silent, the
# callers fall back to 4 KiB pages.
aif_hugepages_prepare() {
	[ -z "${AIF_NO_HUGE:-}" ] || return 0
	local want=1024 have
	have=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
	[ "$have" -ge "$want" ] || echo "$want" 2>/dev/null | as_root tee /proc/sys/vm/nr_hugepages >/dev/null 2>&1
	mountpoint -q /dev/hugepages 2>/dev/null ||
		{ as_root mkdir -p /dev/hugepages && as_root mount -t hugetlbfs nodev /dev/hugepages; } >/dev/null 2>&1
	return 0
}

# aif_eal_mem_choice MIN_FREE MB [HUGE_MB]: the EAL memory arguments to use,
# preparing nothing: 2 MiB hugepages with --in-memory (EAL keeps no hugepage
# file, so no run leaves one in /dev/hugepages) when hugetlbfs is mounted,
# writable and at least MIN_FREE pages are free (-m HUGE_MB if given, else
# on demand); else, or with AIF_NO_HUGE set, 4 KiB pages: --no-huge -m MB
# (the two cannot be combined) with --no-shconf (else EAL keeps a shared
# config for secondary processes in /var/run/dpdk/<prefix>, which outlives
# the run).  The scripts and the end-to-end tests all choose here.
aif_eal_mem_choice() {
	local min=$1 mb=$2 huge_mb=${3:-} free
	free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	if [ -z "${AIF_NO_HUGE:-}" ] && grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts &&
	   [ "${free:-0}" -ge "$min" ] && [ -w /dev/hugepages ]; then
		echo "--in-memory${huge_mb:+ -m $huge_mb}"
	else
		echo "--no-huge --no-shconf -m $mb"
	fi
}

# Prepare 2 MiB hugepages (unless AIF_NO_HUGE); the EAL memory arguments
# for 1 GiB (aif_eal_mem_choice).
aif_eal_mem_args() {
	[ -n "${AIF_NO_HUGE:-}" ] || aif_hugepages_prepare
	aif_eal_mem_choice 512 1024 1024
}
