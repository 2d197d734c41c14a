#!/usr/bin/env bash
# Prints the EAL memory arguments for this host: huge pages when mounted
# and free, else --no-huge with enough plain memory. Usage:
#   scripts/eal-args.sh [MB]     (memory wanted, default 512)
mb=${1:-512}
free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "$(id -u)" -eq 0 ] && grep -qs hugetlbfs /proc/mounts &&
   [ "${free_pages:-0}" -ge $(( (mb + 1) / 2 )) ] && [ -z "${HGW_NO_HUGE:-}" ]; then
	echo "-m $mb"
else
	echo "--no-huge -m $mb"
fi
