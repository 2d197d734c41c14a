#!/usr/bin/env bash
# hedgewire demo: set up (packages, huge pages, build), generate a feed,
# replay it through hedgewire with the net_pcap vdev, print the summary.
#   scripts/demo.sh [messages]
set -euo pipefail
cd "$(dirname "$0")/.."
msgs=${1:-1000000}
scripts/setup.sh
work=$(mktemp -d /tmp/hgw-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "== generating a feed: $msgs ITCH 5.0 messages, 100 instruments"
build/app/hgw-feedgen/hgw-feedgen -o "$work/feed.pcap" --truth "$work/truth" \
	--seed 1 --instruments 100 --messages "$msgs" --per-packet 4 --heartbeats 1000
echo "== inspecting it"
build/app/hgw-inspect/hgw-inspect "$work/feed.pcap" | head -8
echo "== replaying it through hedgewire (net_pcap vdev, 1 worker)"
# shellcheck disable=SC2046
build/app/hedgewire/hedgewire -l 0-1 --no-pci $(scripts/eal-args.sh 512) \
	--file-prefix hgw-demo --log-level=error \
	--vdev "net_pcap0,rx_pcap=$work/feed.pcap" -- \
	-c conf/demo.ini --dump-book "$work/book"
if diff -q <(grep '^bbo ' "$work/truth") "$work/book" >/dev/null; then
	echo "== book check: best bid/ask of all $(wc -l <"$work/book") instruments equal the generator's ground truth"
else
	echo "== book check: MISMATCH against the generator's ground truth"; exit 1
fi
