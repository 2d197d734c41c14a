#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tshark_orders.sh: checks an order capture against an independent decoder,
# tshark, with IPv4 and UDP checksum validation on.
#
# usage: tshark_orders.sh ORDERS.pcap [COUNT]
# exit:  0 pass, 1 fail, 2 usage, 77 skip (no tshark)
#
# Every frame must be one order as docs/protocols.md "Order bytes" specifies:
#   frame.len 92, eth.type 0x0800 (untagged), ip.hdr_len 20, ip.len 78,
#   ip.flags.df 1, ip.ttl 64, ip.proto 17, ip.checksum.status Good,
#   udp.length 58, udp.checksum.status Good, and a UDP payload (udp.payload,
#   or data.data on a tshark without it) starting 00 30 55 4f: SoupBinTCP
#   length 48, type 'U', OUCH 'O'. tshark prints every occurrence of a
#   field, so a frame with two IPv4 or UDP layers fails too.
# With COUNT, the number of frames must equal it; without, an empty
# capture fails (pass COUNT 0 to accept one).
set -euo pipefail

name=tshark_orders
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 ORDERS.pcap [COUNT]" >&2
	exit 2
fi
pcap=$1
count=${2:-}
if [ -n "$count" ] && ! [[ $count =~ ^[0-9]+$ ]]; then
	echo "usage: $0 ORDERS.pcap [COUNT]: COUNT '$count' is not a number" >&2
	exit 2
fi
if ! command -v tshark >/dev/null 2>&1; then
	echo "SKIP: $name: tshark not installed (Debian package tshark)"
	exit 77
fi
if [ ! -r "$pcap" ]; then
	echo "FAIL: $name: cannot read $pcap"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# udp.payload exists since Wireshark 3.x; older ones show undissected
# payload only as data.data. (No grep -q: with pipefail, tshark dying of
# SIGPIPE would read as "absent".)
tshark -G fields >"$tmp/fields" 2>/dev/null || true
payload=data.data
if awk -F'\t' '$1 == "F" && $3 == "udp.payload" { f = 1 } END { exit !f }' \
		"$tmp/fields"; then
	payload=udp.payload
fi

if ! tshark -n -r "$pcap" \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-T fields -E separator=/t \
		-e frame.number -e frame.len -e eth.type -e ip.hdr_len \
		-e ip.len -e ip.flags.df -e ip.ttl -e ip.proto \
		-e ip.checksum.status -e udp.length -e udp.checksum.status \
		-e "$payload" -e data.data \
		>"$tmp/detail" 2>"$tmp/tshark.err"; then
	grep -v '^Running as user' "$tmp/tshark.err" || true
	echo "FAIL: $name: tshark could not read $pcap"
	exit 1
fi

# Field values as tshark 4.x prints them; older versions print eth.type
# as 0x00000800, booleans as True/1 and bytes with ':' separators, and
# checksum status as 1 or "Good" depending on version and options.
awk -F'\t' -v payload="$payload" '
function bad(field, got, want) {
	nbad++
	if (nbad <= 20)
		printf "  frame %s: %s = \"%s\" (want %s)\n", $1, field, got, want
	if (nbad == 1) first = "frame " $1 ": " field " = \"" got "\" (want " want ")"
}
function good_status(v) { return v == "1" || v == "Good" }
{
	n++
	if ($2 != "92") bad("frame.len", $2, "92")
	if ($3 !~ /^0x0*800$/) bad("eth.type", $3, "0x0800")
	if ($4 != "20") bad("ip.hdr_len", $4, "20")
	if ($5 != "78") bad("ip.len", $5, "78")
	if ($6 != "1" && $6 != "True") bad("ip.flags.df", $6, "1")
	if ($7 != "64") bad("ip.ttl", $7, "64")
	if ($8 != "17") bad("ip.proto", $8, "17")
	if (!good_status($9)) bad("ip.checksum.status", $9, "1 Good")
	if ($10 != "58") bad("udp.length", $10, "58")
	if (!good_status($11)) bad("udp.checksum.status", $11, "1 Good")
	p = $12
	if (p == "") p = $13
	gsub(/:/, "", p)
	if (substr(p, 1, 8) != "0030554f")
		bad(payload, substr(p, 1, 16), "00 30 55 4f ... (SoupBin 48 U, OUCH O)")
}
END {
	printf "frames %d\nbad %d\nfirst %s\n", n, nbad, first > "/dev/stderr"
}' "$tmp/detail" 2>"$tmp/summary"

frames=$(awk '$1 == "frames" { print $2 }' "$tmp/summary")
nbad=$(awk '$1 == "bad" { print $2 }' "$tmp/summary")
first=$(sed -n 's/^first //p' "$tmp/summary")

if [ "$nbad" != 0 ]; then
	more=""
	[ "$nbad" -gt 1 ] && more=" (and $((nbad - 1)) more problems above)"
	echo "FAIL: $name: $first$more"
	exit 1
fi
if [ -n "$count" ] && [ "$frames" != "$count" ]; then
	echo "FAIL: $name: $frames frames, want $count"
	exit 1
fi
if [ -z "$count" ] && [ "$frames" = 0 ]; then
	echo "FAIL: $name: no frames in $pcap (pass COUNT 0 to accept an empty capture)"
	exit 1
fi
echo "PASS: $frames order frames"
exit 0
