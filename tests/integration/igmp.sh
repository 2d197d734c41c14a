#!/usr/bin/env bash
# [feed] igmp against Linux's IGMP snooping and querier: hedgewire's feed
# port (net_af_packet on a veth) is a port of a bridge in a network
# namespace that snoops IGMP and sends a general query every second.
#   igmp.sh HEDGEWIRE SRCDIR v2|v3
# Checks: the bridge's mdb holds the group on hedgewire's port (from its
# reports); a query is answered (tshark reads the report that answers
# it, hedgewire counts the query and the answer); on SIGINT hedgewire
# leaves the group and exits 0; tshark decodes every report and the
# leave, for the configured group, with right checksums.
HEDGEWIRE=$1 SRCDIR=$2 VER=$3
. "$SRCDIR/tests/integration/common.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, veth, bridge)"; exit 77; }
for tool in ip bridge ethtool dumpcap tshark; do
	command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
GROUP=233.54.12.111
NS="hgwi$$"
VA="hgwi$$a"            # hedgewire's end
VB="hgwi$$b"            # its bridge port
nsx() { ip netns exec "$NS" "$@"; }

netns_add "$NS" "$VA" "$VB"
# the querier: general queries every second (centiseconds), from the
# bridge's own address
nsx ip link add br0 type bridge mcast_snooping 1 mcast_querier 1 \
	mcast_query_interval 100 mcast_startup_query_interval 100 \
	mcast_query_response_interval 100 mcast_igmp_version "${VER#v}" || fail "bridge"
nsx ip addr add 10.81.0.2/24 dev br0
nsx ip link set "$VB" master br0
nsx ip link set "$VB" up
nsx ip link set br0 up

cat >"$T/conf.ini" <<EOF
[feed]
group = $GROUP
igmp = $VER
[run]
idle_timeout_ms = 0
EOF

dumpcap_start "$NS" "$VB" "$T/igmp.pcapng" igmp

# shellcheck disable=SC2086
"$HEDGEWIRE" -l 0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" --log-level=error \
	--vdev "net_af_packet0,iface=$VA" -- -c "$T/conf.ini" >"$T/out" 2>"$T/err" &
HW=$!
PIDS+=("$HW")

# the bridge learns the group on hedgewire's port from its report
for ((i = 0; i < 300; i++)); do
	nsx bridge mdb show dev br0 | grep -q "port $VB grp $GROUP" && break
	kill -0 "$HW" 2>/dev/null || fail "hedgewire stopped: $(tail -3 "$T/err")"
	sleep 0.1
done
nsx bridge mdb show dev br0 | grep -q "port $VB grp $GROUP" ||
	fail "the bridge has no member for $GROUP on $VB: $(nsx bridge mdb show dev br0)"
echo "  bridge mdb: $(nsx bridge mdb show dev br0 | grep "port $VB" | head -1 | tr -s ' ')"

# a query answered: a report after the bridge's query (v3: a record of
# type MODE_IS_EXCLUDE, the answer's; v2: a third report after a query,
# as hedgewire sends two of its own at start-up, 1 s apart, and a query
# may come before the second; reports for other groups are not
# hedgewire's: the host's kernel answers the query on the veth's other
# end for the groups it has joined there)
answered() {
	if [ "$VER" = v3 ]; then
		tshark -r "$T/igmp.pcapng" -Y "igmp.record_type == 2 && igmp.maddr == $GROUP" \
			2>/dev/null | grep -q .
	else
		tshark -r "$T/igmp.pcapng" -T fields -e igmp.type \
			-Y "igmp.type == 0x11 || igmp.maddr == $GROUP" 2>/dev/null |
			awk '$1 == "0x11" { q = 1 } $1 == "0x16" && ++n >= 3 && q { found = 1 } END { exit !found }'
	fi
}
end=$((SECONDS + 30))     # queries come every second
while [ $SECONDS -lt $end ]; do
	answered && break
	kill -0 "$HW" 2>/dev/null || fail "hedgewire stopped: $(tail -3 "$T/err")"
	sleep 0.1
done
answered || fail "no report answered the bridge's queries"

# stop: the leave goes before the summary
kill -INT "$HW"
wait "$HW" && RC=0 || RC=$?
[ "$RC" = 0 ] || fail "hedgewire exit $RC: $(tail -3 "$T/err")"
# until dumpcap has written the leave (or 10 s)
for ((i = 0; i < 100; i++)); do
	tshark -r "$T/igmp.pcapng" -Y "igmp.type == 0x17 || igmp.record_type == 3" 2>/dev/null | grep -q . && break
	sleep 0.1
done
kill -INT "$DC" 2>/dev/null || true
wait "$DC" 2>/dev/null || true

grep -q "^igmp: $VER on port 0, 1 group(s)" "$T/out" || fail "no igmp summary: $(grep igmp "$T/out")"
ans=$(sed -n 's/.*queries answered \([0-9]*\).*/\1/p' "$T/out")
[ "${ans:-0}" -ge 1 ] || fail "hedgewire answered no query: $(grep '^igmp' "$T/out")"
q=$(sed -n 's/^  drop igmp_query *\([0-9]*\)/\1/p' "$T/out" | head -1)
[ "${q:-0}" -ge 1 ] || fail "no igmp_query counted"

# tshark, the independent decoder: every report and the leave name the
# group, with the right checksums
tshark -r "$T/igmp.pcapng" -o ip.check_checksum:TRUE -Y "ip.checksum.status == 0 || igmp.checksum.status == 0" \
	2>/dev/null | grep -q . && fail "tshark: a bad IP or IGMP checksum"
if [ "$VER" = v3 ]; then
	joins=$(tshark -r "$T/igmp.pcapng" -Y "igmp.type == 0x22 && igmp.record_type == 4 && igmp.maddr == $GROUP" 2>/dev/null | grep -c . || true)
	leave=$(tshark -r "$T/igmp.pcapng" -Y "igmp.type == 0x22 && igmp.record_type == 3 && igmp.maddr == $GROUP" 2>/dev/null | grep -c . || true)
else
	joins=$(tshark -r "$T/igmp.pcapng" -Y "igmp.type == 0x16 && igmp.maddr == $GROUP" 2>/dev/null | grep -c . || true)
	leave=$(tshark -r "$T/igmp.pcapng" -Y "igmp.type == 0x17 && igmp.maddr == $GROUP" 2>/dev/null | grep -c . || true)
fi
[ "$joins" -ge 2 ] || fail "tshark: $joins reports joining $GROUP (want the 2 at start-up)"
[ "$leave" -eq 1 ] || fail "tshark: $leave leaves of $GROUP (want 1)"
echo "  $(grep '^igmp' "$T/out"); tshark: $joins joining reports, 1 leave, checksums right"
echo "ok: igmp $VER"
