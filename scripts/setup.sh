#!/usr/bin/env bash
# hedgewire set-up for a Debian 12 host, as root. Idempotent:
#   1. installs every Debian package the build, tests and tools need,
#   2. configures huge pages (1 GiB as 2 MB pages, hugetlbfs on /mnt/huge),
#   3. builds into build/ (gcc, -Dwerror=true).
# Where huge pages cannot be had it says so in one line; everything that
# can run with --no-huge still runs (scripts/eal-args.sh chooses).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
	build-essential meson ninja-build pkg-config
	libdpdk-dev dpdk dpdk-dev libnuma-dev libbsd-dev libpcap-dev
	python3 python3-pyelftools
	clang llvm libclang-rt-14-dev
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
	tshark gnuplot-nox
)

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: $1 needs root (run with sudo)" >&2
		return 1
	fi
}

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	need_root "installing ${missing[*]}"
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# Huge pages: at least 1 GiB of 2 MB pages, hugetlbfs mounted.
HUGE_WANT=${HGW_HUGEPAGES:-512}
if [ "$(id -u)" -eq 0 ]; then
	have=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
	if [ "$have" -lt "$HUGE_WANT" ]; then
		echo "$HUGE_WANT" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
	if ! grep -qs "hugetlbfs" /proc/mounts; then
		mkdir -p /mnt/huge
		mount -t hugetlbfs nodev /mnt/huge 2>/dev/null || true
	fi
fi
got=$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)
if [ "${got:-0}" -lt "$HUGE_WANT" ] || ! grep -qs hugetlbfs /proc/mounts; then
	echo "setup: huge pages unavailable (have ${got:-0} x 2 MB, want $HUGE_WANT); DPDK runs will use --no-huge"
else
	echo "setup: huge pages ready: ${got} x 2 MB on $(awk '$3=="hugetlbfs"{print $2; exit}' /proc/mounts)"
fi

# 1 GB pages too, when the kernel can still find them (HGW_1G_PAGES, default
# 2; 0 = none): table replicas go on them first, so a replica layout spans
# one page and its physical address bits are the ones the channel map reads.
GIG_WANT=${HGW_1G_PAGES:-2}
gig=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
if [ "$GIG_WANT" -gt 0 ] && [ "$(id -u)" -eq 0 ] && [ -w "$gig" ]; then
	[ "$(cat "$gig")" -ge "$GIG_WANT" ] || echo "$GIG_WANT" >"$gig" 2>/dev/null || true
	if [ "$(cat "$gig")" -gt 0 ] && ! grep -qs "pagesize=1024M" /proc/mounts; then
		mkdir -p /mnt/huge1g
		mount -t hugetlbfs -o pagesize=1G nodev /mnt/huge1g 2>/dev/null || true
	fi
fi
if [ "$GIG_WANT" -gt 0 ]; then
	if [ -r "$gig" ] && [ "$(cat "$gig")" -gt 0 ] && grep -qs "pagesize=1024M" /proc/mounts; then
		echo "setup: 1 GB pages ready: $(cat "$gig") (table replicas use them first)"
	else
		echo "setup: no 1 GB pages (table replicas go on 2 MB pages)"
	fi
fi

# Build (release, warnings are errors).
if [ ! -f build/build.ninja ]; then
	meson setup build -Dwerror=true >/dev/null
fi
ninja -C build >/dev/null
echo "setup: built into build/"
