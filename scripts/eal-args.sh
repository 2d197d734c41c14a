#!/usr/bin/env bash
# Prints the EAL memory arguments for this host: huge pages when mounted
# and free, else --no-huge with enough plain memory. Usage:
#   scripts/eal-args.sh [MB]     (memory wanted, default 512)
mb=${1:-512}
# free huge page memory in MB, every page size that is mounted
free_mb=0
for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
	[ -r "$d/free_hugepages" ] || continue
	kb=${d##*hugepages-}; kb=${kb%kB}
	grep -qs "hugetlbfs.*pagesize=$((kb / 1024))M" /proc/mounts || continue
	free_mb=$((free_mb + $(cat "$d/free_hugepages") * kb / 1024))
done
if [ "$(id -u)" -eq 0 ] && [ "$free_mb" -ge "$mb" ] && [ -z "${HGW_NO_HUGE:-}" ]; then
	echo "-m $mb"
else
	echo "--no-huge -m $mb"
fi
