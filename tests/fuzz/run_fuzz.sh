#!/usr/bin/env bash
# Runs the feed fuzzer for a bounded time under ASan/UBSan:
#   run_fuzz.sh FUZZER PCAP2CORPUS FEEDGEN SECONDS REGRESSION_DIR
# First every saved regression input is replayed (each one a crash found
# once), then libFuzzer runs from a seed corpus made by the generator
# (clean, gapped, duplicated, truncated and corrupted frames, VLAN-tagged),
# SECONDS long on every CPU (libFuzzer's fork mode: one process per CPU,
# sharing the corpus). A crash stops it, leaves its input in the work
# directory and fails the test.
set -euo pipefail
fuzzer=$(realpath "$1") p2c=$(realpath "$2") feedgen=$(realpath "$3") secs=$4 regress=$5
work=$(mktemp -d /tmp/hgw-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/seeds-vlan"

shopt -s nullglob
reg=("$regress"/*)
if [ ${#reg[@]} -gt 0 ]; then
	"$fuzzer" "${reg[@]}" >"$work/regress.log" 2>&1 ||
		{ cat "$work/regress.log"; echo "FAIL: a regression input crashes again"; exit 1; }
	echo "replayed ${#reg[@]} regression input(s)"
fi

"$feedgen" -q -o "$work/a.pcap" --seed 7 --instruments 6 --messages 3000 \
	--per-packet 6 --heartbeats 20 --dup-every 11 --gap-every 29 \
	--truncate-every 13 --corrupt-every 17
"$feedgen" -q -o "$work/b.pcap" --seed 8 --instruments 3 --messages 2000 \
	--per-packet 3 --vlan 141
"$p2c" "$work/a.pcap" "$work/corpus" 4 300
"$p2c" "$work/b.pcap" "$work/seeds-vlan" 1 50

cd "$work"
jobs=$(nproc)
# (fork mode ignores out-of-memory and slow inputs unless told not to)
if "$fuzzer" -fork="$jobs" -ignore_ooms=0 -ignore_timeouts=0 -timeout=10 \
	-max_total_time="$secs" -max_len=8192 \
	-artifact_prefix="$work/" corpus seeds-vlan >fuzz.log 2>&1; then
	grep -E "^#[0-9]+: cov:" fuzz.log | tail -1 || true
	echo "PASS: no crash in ${secs}s on $jobs CPUs"
else
	tail -40 fuzz.log
	for c in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$c" ] && cp "$c" "/tmp/hgw-fuzz-$(basename "$c")" &&
			echo "crash input saved as /tmp/hgw-fuzz-$(basename "$c"); add it to tests/fuzz/regressions/"
	done
	echo "FAIL: fuzzer found a crash"
	exit 1
fi
