#!/usr/bin/env bash
# Feed-path throughput: decode + book a generated capture of at least 10 M
# ITCH messages held in memory, on one core. Prints messages per second.
#   tests/bench/feed_bench.sh [messages] [instruments]
# (build first: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
msgs=${1:-10000000}
inst=${2:-500}
work=$(mktemp -d /tmp/hgw-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
build/app/hgw-feedgen/hgw-feedgen -o "$work/feed.pcap" --seed 42 \
	--instruments "$inst" --messages "$msgs" --per-packet 4
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), pinned to cpu 1"
taskset -c 1 build/tests/bench/bench_feed "$work/feed.pcap" 5
