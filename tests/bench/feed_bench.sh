#!/usr/bin/env bash
# Feed-path throughput: decode + book a generated capture of at least 10 M
# ITCH messages held in memory, on one core. Prints messages per second
# twice: from the capture (Ethernet / IPv4 / UDP / MoldUDP64 / ITCH), and
# from the same messages in Nasdaq's binary ITCH 5.0 file format (2-byte
# big-endian length before each message, written by hgw-convert pcap2itch),
# the input any other ITCH handler can be given. The capture's checksums
# are verified in software, as on a port without RX checksum offload; its
# "bulk, NIC cksums" line takes them as such a port reports them.
#   tests/bench/feed_bench.sh [messages] [instruments] [passes]
# (build first: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
msgs=${1:-10000000}
inst=${2:-500}
passes=${3:-5}
# Inputs and captures on tmpfs: the table and feed are written just before
# the runs, and on a disk file system their writeback (hundreds of MB)
# would run during the measurement. HGW_BENCH_DIR overrides.
work=$(mktemp -d "${HGW_BENCH_DIR:-/dev/shm}/hgw-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
build/app/hgw-feedgen/hgw-feedgen -o "$work/feed.pcap" --seed 42 \
	--instruments "$inst" --messages "$msgs" --per-packet 4
build/app/hgw-convert/hgw-convert pcap2itch -q "$work/feed.pcap" "$work/feed.itch"
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), pinned to cpu 1"
taskset -c 1 build/tests/bench/bench_feed "$work/feed.pcap" "$passes"
taskset -c 1 build/tests/bench/bench_feed "$work/feed.itch" "$passes"
