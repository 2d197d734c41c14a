#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tshark_mold.sh: checks hgw-feedgen's framing against an independent
# decoder, tshark's MoldUDP64 dissector.
#
# usage: tshark_mold.sh <path-to-hgw-feedgen>
# exit:  0 pass, 1 fail, 77 skip (no tshark / no moldudp64 dissector)
#
# Generates a feed with a VLAN tag, heartbeats, gaps and every kind of bad
# copy, then checks:
#  1. tshark's session / sequence / count / frame length for every frame
#     equal hgw-feedgen's --list, line by line (bad copies included: tshark
#     shows the count field as written, and the cut length of a truncated
#     copy);
#  2. with IPv4 and UDP checksum validation on, no frame has a bad checksum,
#     every IPv4 header checksum and every UDP checksum of a complete frame
#     verifies as Good (truncated copies can only be "unverified");
#  3. tshark raises errors (malformed, expert level >= warning) on exactly
#     the bad copies, each for the expected reason ("Invalid Message Count"
#     for corrupt copies, "IPv4 total length exceeds packet length" for
#     truncated ones), and never on good frames;
#  4. good data frames carry exactly `count` message blocks; addressing
#     (VLAN, MACs, IPs, ports, TTL, DF) and time order are as configured;
#  5. the --truth counters agree with what tshark saw.
set -euo pipefail

name=tshark_mold
if [ $# -ne 1 ]; then
	echo "usage: $0 <path-to-hgw-feedgen>" >&2
	exit 2
fi
feedgen=$1
if ! command -v tshark >/dev/null 2>&1; then
	echo "SKIP: $name: tshark not installed (Debian package tshark)"
	exit 77
fi
# (no grep -q: with pipefail, tshark dying of SIGPIPE would read as "no")
if ! tshark -G protocols 2>/dev/null | grep $'\tmoldudp64$' >/dev/null; then
	echo "SKIP: $name: this tshark has no moldudp64 dissector"
	exit 77
fi
if [ ! -x "$feedgen" ]; then
	echo "FAIL: $name: $feedgen is not executable"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

port=26477
vlan=141
"$feedgen" -q -o "$tmp/f.pcap" --truth "$tmp/f.truth" --list "$tmp/f.list" \
	--seed 7 --instruments 5 --messages 20000 --per-packet 5 \
	--vlan "$vlan" --heartbeats 50 --port "$port" \
	--dup-every 37 --corrupt-every 41 --truncate-every 43 --gap-every 97

ts=(tshark -n -r "$tmp/f.pcap" -d "udp.port==$port,moldudp64"
    -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE)

fails=0
fail() {
	echo "  $*"
	fails=$((fails + 1))
}

# 1. Framing fields vs --list. tshark prints the session with its space
# padding and separates fields with tabs; normalise both to the list form.
if ! "${ts[@]}" -T fields -e moldudp64.session -e moldudp64.sequence \
		-e moldudp64.count -e frame.len \
		>"$tmp/fields.raw" 2>"$tmp/tshark.err"; then
	cat "$tmp/tshark.err"
	echo "FAIL: $name: tshark failed"
	exit 1
fi
awk -F'\t' '{ sub(/ +$/, "", $1); print $1, $2, $3, $4 }' \
	"$tmp/fields.raw" >"$tmp/fields"
if ! diff -u "$tmp/f.list" "$tmp/fields" >"$tmp/fields.diff"; then
	fail "tshark fields differ from --list ($(grep -c '^[-+][^-+]' \
		"$tmp/fields.diff") lines; first differences below)"
	head -20 "$tmp/fields.diff" | sed 's/^/    /'
fi

# Classify every frame from --list alone. A data packet's frames are
# consecutive with the same sequence: [truncated copy] [corrupt copy] real
# [duplicate]. The real frame has the smallest count and the largest
# length; a corrupt copy claims count + 1 and is as long as the real frame
# (whole blocks, consistent lengths); a truncated copy is shorter; a
# duplicate repeats the real line. Anything else is "weird" (a failure).
awk '
{ seq[NR] = $2; cnt[NR] = $3; len[NR] = $4; line[NR] = $0 }
END {
	i = 1
	while (i <= NR) {
		if (cnt[i] == 0) { print i, "hb"; i++; continue }
		if (cnt[i] == 65535) { print i, "eos"; i++; continue }
		j = i
		while (j + 1 <= NR && seq[j + 1] == seq[i] &&
		       cnt[j + 1] != 0 && cnt[j + 1] != 65535)
			j++
		mc = cnt[i]; ml = len[i]
		for (k = i; k <= j; k++) {
			if (cnt[k] < mc) mc = cnt[k]
			if (len[k] > ml) ml = len[k]
		}
		real = 0
		for (k = i; k <= j; k++) {
			if (cnt[k] == mc + 1 && len[k] == ml) c = "corrupt"
			else if (cnt[k] != mc)      c = "weird"
			else if (len[k] < ml)       c = "trunc"
			else if (!real)           { c = "data"; real = k }
			else if (line[k] == line[real]) c = "dup"
			else                        c = "weird"
			print k, c
		}
		i = j + 1
	}
}' "$tmp/f.list" >"$tmp/class"

# 2-4. Per-frame checks against tshark's view with checksum validation.
if ! "${ts[@]}" -T fields -E occurrence=a -E aggregator=';' \
		-e frame.number -e frame.time_epoch -e eth.dst -e eth.src \
		-e vlan.id -e ip.src -e ip.dst -e ip.ttl -e ip.flags.df \
		-e udp.srcport -e udp.dstport \
		-e ip.checksum.status -e udp.checksum.status \
		-e _ws.expert.severity -e _ws.expert.message -e _ws.malformed \
		-e moldudp64.count -e moldudp64.msglen \
		>"$tmp/detail" 2>"$tmp/tshark.err"; then
	cat "$tmp/tshark.err"
	echo "FAIL: $name: tshark failed"
	exit 1
fi

# Wireshark checksum status: 0 Bad, 1 Good, 2 Unverified. Expert severity
# values: 0x100000 comment, 0x200000 chat, 0x400000 note, 0x600000 warning,
# 0x800000 error (the end-of-session packet gets a comment).
awk -F'\t' -v vlan="$vlan" -v port="$port" '
function nblocks(s) { return s == "" ? 0 : split(s, tmp_, ";") }
function maxsev(s,   n, a, m, k) {
	m = 0; n = split(s, a, ";")
	for (k = 1; k <= n; k++) if (a[k] + 0 > m) m = a[k] + 0
	return m
}
function bad(msg) { print "  frame " f ": " msg; nbad++ }
FNR == NR { split($0, a_, " "); class[a_[1]] = a_[2]; next }
{
	f = $1
	c = class[f]
	if (c == "") { bad("not in --list"); next }
	if (c == "weird") bad("--list line fits no frame kind")
	if ($2 + 0 < prev_t) bad("time goes backwards")
	prev_t = $2 + 0
	if ($3 != "01:00:5e:36:0c:6f") bad("eth.dst " $3)
	if ($4 != "02:48:47:57:00:01") bad("eth.src " $4)
	if ($5 != vlan) bad("vlan.id " $5)
	if ($6 != "10.1.1.1" || $7 != "233.54.12.111") bad("ip " $6 " > " $7)
	if ($8 != 64 || $9 != 0) bad("ttl " $8 " df " $9)
	if ($10 != 26400 || $11 != port) bad("udp ports " $10 " > " $11)
	if ($12 != 1) bad("ip.checksum.status " $12 " (want 1 Good)")
	sev = maxsev($14); msg = $15; mal = ($16 != "")
	n = nblocks($18)
	if (c == "trunc") {
		ntrunc++
		if ($13 == 0) bad("bad udp checksum on a truncated copy")
		if (index(msg, "IPv4 total length exceeds packet length") == 0)
			bad("truncated copy without the IPv4 length error: " msg)
	} else {
		if ($13 != 1) bad("udp.checksum.status " $13 " (want 1 Good)")
	}
	if (c == "corrupt") {
		ncorrupt++
		if (index(msg, "Invalid Message Count") == 0 ||
		    index(msg, "Invalid Message Length") != 0)
			bad("corrupt copy: want only Invalid Message Count: " msg)
		if (n != $17 - 1) bad("corrupt copy has " n " blocks, count " $17)
	}
	if (c == "trunc" || c == "corrupt") {
		if (!mal && sev < 8388608) bad("bad copy not flagged by tshark")
		next
	}
	# Good frames: no malformed, nothing above a comment/chat/note.
	if (mal || sev >= 6291456)
		bad("tshark flags a good " c " frame: " msg)
	if (c == "hb" || c == "eos") {
		if (n != 0) bad(c " with " n " blocks")
		if (c == "hb") nhb++; else neos++
		next
	}
	if (n != $17) bad(c " frame has " n " blocks, count " $17)
	if (c == "dup") { ndup++; next }
	ndata++; nmsg += $17
}
END {
	printf "trunc %d\ncorrupt %d\ndup %d\nhb %d\neos %d\ndata %d\nmsgs %d\nframes %d\nbad %d\n",
		ntrunc, ncorrupt, ndup, nhb, neos, ndata, nmsg, FNR, nbad
}' "$tmp/class" "$tmp/detail" >"$tmp/seen"
awk '/^  frame/ && n++ < 20' "$tmp/seen"
nbad=$(awk '$1 == "bad" { print $2 }' "$tmp/seen")
if [ "$nbad" != 0 ]; then
	fail "$nbad per-frame problems (first ones above)"
fi
seen() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/seen"; }

# Sequence continuity from --list: a gap is a run of missing sequence
# numbers revealed by a real data packet, a heartbeat or the end of session
# (all carry the next expected number; bad copies are dropped unread).
read -r gaps gap_msgs last_seq < <(awk '
	BEGIN { next_seq = 1 }
	FNR == NR { class[$1] = $2; next }
	{
		c = class[FNR]
		if (c != "data" && c != "hb" && c != "eos") next
		if ($2 > next_seq) { gaps++; gm += $2 - next_seq }
		if ($2 < next_seq) back = 1
		next_seq = $2 + (c == "data" ? $3 : 0)
		if (c == "eos") last = $2 - 1
	}
	END {
		if (back) print "backwards backwards backwards"
		else print gaps + 0, gm + 0, last + 0
	}' "$tmp/class" "$tmp/f.list")

# 5. Truth counters vs what tshark saw.
truth() { awk -v k="$*" 'index($0, k " ") == 1 { print $NF }' "$tmp/f.truth"; }
check() {
	if [ "$2" != "$3" ]; then
		fail "$1: truth says '$2', tshark/--list say '$3'"
	fi
}
check "frames" "$(truth frames)" "$(seen frames)"
check "messages" "$(truth messages)" "$(seen msgs)"
check "heartbeats" "$(truth heartbeats)" "$(seen hb)"
check "end_of_session" "$(truth end_of_session)" "$(seen eos)"
check "drop mold_duplicate" "$(truth drop mold_duplicate)" "$(seen dup)"
check "drop ip_truncated" "$(truth drop ip_truncated)" "$(seen trunc)"
check "drop mold_truncated" "$(truth drop mold_truncated)" "$(seen corrupt)"
check "gaps" "$(truth gaps)" "$gaps"
check "gap_messages" "$(truth gap_messages)" "$gap_msgs"
check "last_seq" "$(truth last_seq)" "$last_seq"
type_sum=$(awk '$1 == "type" { s += $3 } END { print s + 0 }' "$tmp/f.truth")
check "sum of type counts" "$type_sum" "$(seen msgs)"
# The run must exercise every kind of frame, or the checks prove little.
for k in trunc corrupt dup hb; do
	if [ "$(seen $k)" = 0 ]; then
		fail "no $k frames generated"
	fi
done
if [ "$(truth gaps)" = 0 ]; then
	fail "no gaps generated"
fi

if [ "$fails" -ne 0 ]; then
	echo "FAIL: $name: $fails check(s) failed"
	exit 1
fi
echo "PASS: $name: $(seen frames) frames (data $(seen data), dup $(seen dup)," \
	"corrupt $(seen corrupt), truncated $(seen trunc), heartbeat $(seen hb)," \
	"$(truth gaps) gaps) match tshark"
exit 0
