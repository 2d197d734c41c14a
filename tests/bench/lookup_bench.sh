#!/usr/bin/env bash
# Single vs hedged lookup: one random 64-byte entry of a table far larger
# than the last-level cache, read at a TSC deadline by one worker (single)
# or by every worker on its own replica (hedged), first answer wins. Every
# sample is counted. Prints p50 .. max for both and their ratios, from one
# run, plus which worker won and how many samples started late. With
# --csv PREFIX it also writes PREFIX-single.csv / PREFIX-hedged.csv
# (hgw_hist_write_csv's format) and draws both CCDFs in PREFIX.png.
#   tests/bench/lookup_bench.sh [--table-mb MB] [--samples N] [--gap-ns NS]
#                               [--block N] [--seed S] [--csv PREFIX] [--no-flush]
# Needs N x table-MB of free RAM (N = lcores, default 2 via -l 0-1;
# HGW_LCORES=0-3 for more). The replicas are plain mmap'ed memory, so EAL
# gets only a little. (build first: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
lcores=${HGW_LCORES:-0-1}
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); LLC $(lscpu | awk -F': *' '/L3/ {print $2}')"
read -ra mem <<<"$(scripts/eal-args.sh 64)"
cmd=(build/tests/bench/lookup_bench -l "$lcores" --no-pci "${mem[@]}"
	--file-prefix hgw-lookup --log-level=error -- "$@")
echo "+ ${cmd[*]}"
"${cmd[@]}"
csv=""
for ((i = 1; i <= $#; i++)); do
	[ "${!i}" = --csv ] && { j=$((i + 1)); csv=${!j}; }
done
if [ -n "$csv" ]; then
	scripts/ccdf.sh "$csv.png" single="$csv-single.csv" hedged="$csv-hedged.csv" \
		--title "table lookup from its deadline, single vs hedged"
fi
