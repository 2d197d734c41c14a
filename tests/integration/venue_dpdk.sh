# The venue session over hedgewire's own TCP ([venue] stack = dpdk,
# lib/tcp) with the Linux kernel's TCP as the peer: scripts/venue_sim.py
# runs in a network namespace behind a veth pair, hedgewire holds the
# other end through net_af_packet as its [order] port. Sourced by
# venue_session.sh for the scenarios dpdk-*:
#   dpdk-login     orders and answers byte for byte, the reference and the
#                  events; tshark reads the capture with no TCP analysis
#                  warning; ARP resolved and answered, pings answered
#   dpdk-loss1, dpdk-loss5
#                  1% / 5% of the segments dropped each way (nftables
#                  numgen random in the namespace)
#   dpdk-dupreorder
#                  segments duplicated and reordered both ways by a
#                  forwarding process (tests/integration/tcp_fault_fwd.py)
#   dpdk-zerowin   the simulator stops reading for 3 s: a zero window
#   dpdk-reset     the simulator resets the connection in a burst of orders
#   dpdk-peer-restart
#                  the simulator killed and started again on the same port
#   dpdk-claim     claim mode: the worker that wins an order sends its own
#                  segment on its own TX queue (lib/tcp delegated sends),
#                  the TX lcore owns the connection and the session
#   dpdk-claim-kill
#                  the same, the kill switch mid-run: every open order
#                  cancelled, none sent after the kill
#   dpdk-claim-loss5, dpdk-claim-dupreorder
#                  the same, with the faults of dpdk-loss5 and
#                  dpdk-dupreorder
#   dpdk-claim-zerowin
#                  the same, the venue stops reading for 3 s: claims
#                  refused for no room, handed back
#   dpdk-claim-reset
#                  the same, a RST in a burst: a new stream after the
#                  reconnect, the orders on the dead one never at the venue
#   dpdk-claim-restart
#                  the same, SIGKILLed and started again on its state
#                  file: no UserRefNum twice, those at the floor handed back
#   dpdk-tap       the order port a TAP device (net_tap), moved into the
#                  namespace: the segments' checksums by the port
# Invariant in each: every order reaches the venue once, in UserRefNum
# order; every venue message reaches hedgewire's journal once; the replicas'
# positions follow from the events (the reference).
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, veth)"; exit 77; }
for tool in ip ethtool; do
	command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done

NS="hgwv$$"
VA="hgwa$$"             # hedgewire's end (net_af_packet)
VB="hgwb$$"             # the namespace's end: 10.78.0.2
OUR_IP=10.78.0.1
SIM_IP=10.78.0.2
FWDPID=""

# (in the background, "ip netns exec" itself: $! is then the process)
nsx() { ip netns exec "$NS" "$@"; }
SIM_NS=$NS
SIM_LISTEN="$SIM_IP:0"

# net_up [forwarder options]: the namespace and the veth pair; with
# options, two pairs and tcp_fault_fwd.py between them in the namespace
net_up() {
	veth_ns "$NS" "$VA" "$VB" "$SIM_IP" "$@"
}

# on a failure: hedgewire's session and TCP lines, its last errors, the
# forwarder's counts, the simulator's last events
dpdk_diag() {
	grep -E '^venue: (orders|connection|unsent|messages|tcp|soupbin)' "$T/out" 2>/dev/null
	tail -5 "$T/err" 2>/dev/null
	[ ! -f "$T/fwd.stats" ] || tr '\n' ' ' <"$T/fwd.stats"; echo
	grep '"dir": "event"' "$T/sim.jsonl" 2>/dev/null | tail -5
	tail -3 "$T/sim.out" 2>/dev/null
}
FAIL_DIAG=dpdk_diag

# hw [hedgewire --set options]: as venue_session.sh's, with the order port
# the veth (port 1) and the session on hedgewire's TCP
hw() {
	RC=0
	rm -f "$T/events.log"
	run_conf "$@"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" --lcores=0@0,1@1,2@0,3@1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
		--vdev "${ORDER_VDEV:-net_af_packet0,iface=$VA}" -- \
		-c "$T/conf.ini" --set venue.port="$PORT" \
		--set run.events_log="$T/events.log" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

# hw_claim_bg [hedgewire --set options]: claim mode on the TCP, three
# queue pairs (the TX lcore's and each worker's), in the background
# (HWPID), for driven
hw_claim_bg() {
	rm -f "$T/events.log"
	run_conf --set run.dedup=claim "$@"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" --lcores=0@0,1@1,2@0,3@1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
		--vdev "net_af_packet0,iface=$VA,qpairs=3" -- \
		-c "$T/conf.ini" --set venue.port="$PORT" --set run.dedup=claim \
		--set run.events_log="$T/events.log" "$@" >"$T/out" 2>"$T/err" &
	HWPID=$!
	PIDS+=("$HWPID")
}

sed -i "s/^host = 127.0.0.1$/host = $SIM_IP/" "$T/conf.ini"
cat >>"$T/conf.ini" <<EOF
stack = dpdk
address = $OUR_IP/24
[order]
port = 1
EOF

# tv KEY: a number from the summary's "venue: tcp (dpdk)" lines
tv() {
	grep '^venue: tcp (dpdk)' "$T/out" | grep -o "$1 [0-9]*" | head -1 | awk '{ print $NF }'
}

# the checks every scenario ends with: exit 0, orders once and in order,
# the journal complete, the reference and the events.
#   check_all [MIN [lost|refused]]: at least MIN orders sent (default 100:
#   a kill stops them early); "lost": the session was lost, so orders may
#   have been handed back (UNSENT), and those still in the dead
#   connection's buffers never reached the venue (the reference check
#   names them); "refused": orders may have been handed back (claim
#   mode: a claim that finds no room in the windows, as when a loaded
#   host holds the TX lcore off its ACKs), every one sent reached it
check_all() {
	[ "$RC" = 0 ] || fail "exit $RC: $(tail -3 "$T/err")"
	grep -q "^venue: tcp (dpdk)" "$T/out" || fail "no tcp (dpdk) summary line"
	sent=$(vv "orders sent")
	[ "$sent" -ge "${1:-100}" ] || fail "too few orders sent: $sent"
	check_orders
	got=$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")
	if [ "${2:-}" = lost ]; then
		[ "$got" -le "$sent" ] || fail "the venue got $got orders, $sent sent"
	elif [ "${2:-}" = refused ]; then
		expect_eq "orders the simulator got" "$got" "$sent"
	else
		expect_eq "unsent" "$(grep -o '^venue: unsent [0-9]*' "$T/out" | awk '{ print $3 }')" 0
		expect_eq "orders the simulator got" "$got" "$sent"
	fi
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
		fail "venue journal: $(cat "$T/check2")"
	echo "  $(cat "$T/check2")"
	if [ "${2:-}" = refused ]; then
		# an order handed back while the replicas run is an UNSENT
		# event, which the reference takes too; one handed back after
		# they stopped (the last orders of the feed, say) is counted
		# only: the reference decides it, and exactly those are
		# missing at the venue
		local late
		late=$(( $(grep -o '^venue: unsent [0-9]*' "$T/out" | awk '{ print $3 }') -
			 $(grep -c "^[0-9]* [0-9a-f]* [0-9]* unsent" "$T/events.log" || true) ))
		check_ref --late "$late"
		expect_eq "reference orders handed back after the replicas stopped, not at the venue" \
			"$(sed -n 's/.*, \([0-9]*\) handed back late.*/\1/p' "$T/check4")" "$late"
	else
		check_ref
	fi
	check_events
	echo "  $(grep '^venue: tcp (dpdk) opens' "$T/out" | cut -c19-)"
}

# capture_start: dumpcap on the namespace's end of the veth
capture_start() {
	command -v dumpcap >/dev/null || { echo "SKIP: no dumpcap"; exit 77; }
	dumpcap_start "$NS" "$VB" "$T/session.pcapng"
}

# nft_loss PCT: drop PCT% of the session's segments each way, counted
nft_loss() {
	command -v nft >/dev/null || { echo "SKIP: no nft (Debian package nftables)"; exit 77; }
	nsx nft -f - <<EOF || fail "nft"
table inet hgwloss {
	counter in_dropped { }
	counter out_dropped { }
	chain in {
		type filter hook input priority 0;
		tcp dport $PORT numgen random mod 100 < $1 counter name in_dropped drop
	}
	chain out {
		type filter hook output priority 0;
		tcp sport $PORT numgen random mod 100 < $1 counter name out_dropped drop
	}
}
EOF
}

nft_dropped() {
	nsx nft list counter inet hgwloss "$1" | sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

case $SCENARIO in
dpdk-login)
	net_up
	# bad values stop start-up with one line naming the key
	for bad in "venue.address=10.78.0.1:[venue] address" \
		   "venue.address=10.78.0.1/33:[venue] address" \
		   "venue.gateway=10.79.0.9:[venue] gateway" \
		   "venue.stack=lwip:[venue] stack" "feed.igmp=v4:[feed] igmp" \
		   "order.port=0:[venue] stack = dpdk needs [order] port apart"; do
		PORT=1 hw --set "${bad%%:*}"
		[ "$RC" = 1 ] && grep -qF "${bad#*:}" "$T/err" ||
			fail "--set ${bad%%:*}: exit $RC, $(tail -1 "$T/err")"
	done
	echo "  bad address, gateway, stack, igmp and a shared port refused at start-up"
	sim_start --fill-pct 30
	capture_start
	ip netns exec "$NS" ping -i 0.2 -c 100000 "$OUR_IP" >"$T/ping.out" 2>&1 &
	PING=$!
	PIDS+=("$PING")
	(hw --set replay.pace=rate --set replay.pps=5000; exit "$RC") &
	HWPID=$!
	# once logged in, the peer forgets our MAC address: its next ping
	# asks for it by ARP, and hedgewire answers
	for ((i = 0; i < 1200; i++)); do
		grep -q '"type": "L"' "$T/sim.jsonl" 2>/dev/null && break
		kill -0 "$HWPID" 2>/dev/null || break
		sleep 0.05
	done
	nsx ip neigh flush dev "$VB"
	wait "$HWPID" && RC=0 || RC=$?
	kill -INT "$PING" 2>/dev/null || true; wait "$PING" 2>/dev/null || true
	capture_ended "$T/session.pcapng" "$PORT"
	kill -INT "$DC"; wait "$DC" 2>/dev/null || true
	check_all
	expect_eq "logins" "$(vv logins)" 1
	grep -q "answers taken by the replicas" "$T/out" ||
		fail "no venue answers reached the replicas"
	# tshark: the session's SoupBinTCP, and no TCP analysis warning
	# (retransmission, out-of-order, zero window, bad checksum ...)
	tshark -r "$T/session.pcapng" -o tcp.check_checksum:TRUE -d "tcp.port==$PORT,soupbintcp" -T fields \
		-e soupbintcp.packet_type 2>/dev/null | tr ',' '\n' | tr -d "'" >"$T/types"
	expect_eq "tshark: Unsequenced Data packets" "$(grep -cx U "$T/types")" "$(vv "orders sent")"
	expect_eq "tshark: Login Requests" "$(grep -cx L "$T/types")" 1
	# Expected: the venue's retransmissions and our duplicate ACKs of
	# them, when the TX lcore was descheduled longer than the venue's RTO
	# (4 busy lcores on 2 CPUs here); counted, not failed on.
	peer_rexmit="ip.src == $SIM_IP && (tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission)"
	our_dupack="ip.src == $OUR_IP && tcp.analysis.duplicate_ack"
	# Also expected: the kernel writes a checksum that sums to 0 as
	# 0xffff (its skb_checksum_help), which RFC 1624 makes equal and
	# tshark calls bad; one segment in 65,536 of the venue's
	peer_ffff="ip.src == $SIM_IP && tcp.checksum == 0xffff"
	tshark -r "$T/session.pcapng" -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE \
		-Y "(tcp.analysis.flags && !tcp.analysis.window_update && !($peer_rexmit) && !($our_dupack)) || (tcp.checksum.status == 0 && !($peer_ffff)) || ip.checksum.status == 0" \
		>"$T/warn" 2>"$T/warn.err"
	[ ! -s "$T/warn" ] || fail "tshark: TCP analysis warnings: $(head -5 "$T/warn")"
	expected=$(tshark -r "$T/session.pcapng" -Y "($peer_rexmit) || ($our_dupack)" 2>/dev/null | grep -c . || true)
	echo "  tshark: $(grep -c . "$T/types") SoupBinTCP packets, no TCP analysis warning but $expected venue retransmissions and our duplicate ACKs of them, checksums right"
	# the peer's kernel learnt our address by ARP, and got its pings back
	nsx ip neigh show "$OUR_IP" dev "$VB" | grep -q "$(cat /sys/class/net/"$VA"/address)" ||
		fail "the peer has no ARP entry for us: $(nsx ip neigh show dev "$VB")"
	got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$T/ping.out")
	[ "${got:-0}" -gt 0 ] || fail "no ping answered: $(tail -2 "$T/ping.out")"
	[ "$(tv "ping replies")" -ge "$got" ] || fail "ping: $got answers received, $(tv "ping replies") sent"
	[ "$(tv "replies")" -ge 1 ] || fail "no ARP request answered"
	echo "  ARP: requests answered $(tv replies), the peer holds our address; pings answered: $got"
	;;
dpdk-loss1 | dpdk-loss5)
	pct=${SCENARIO#dpdk-loss}
	net_up
	sim_start --fill-pct 30
	nft_loss "$pct"
	hw --set replay.pace=rate --set replay.pps=3000 --set venue.reconnect_ms=50
	check_all
	din=$(nft_dropped in_dropped) dout=$(nft_dropped out_dropped)
	[ "$din" -gt 0 ] && [ "$dout" -gt 0 ] || fail "nothing dropped ($din in, $dout out)"
	[ "$(tv "retransmitted bytes")" -gt 0 ] || fail "no retransmission after $din drops"
	echo "  nftables dropped $din segments to the venue, $dout from it"
	;;
dpdk-dupreorder)
	net_up --dup 5 --reorder 5 --seed 7
	sim_start --fill-pct 30
	hw --set replay.pace=rate --set replay.pps=3000
	kill -TERM "$FWDPID"; wait "$FWDPID" 2>/dev/null || true
	check_all
	expect_eq "logins" "$(vv logins)" 1
	dup=$(awk '$1 == "duplicated" { print $2 }' "$T/fwd.stats")
	reo=$(awk '$1 == "reordered" { print $2 }' "$T/fwd.stats")
	[ "${dup:-0}" -gt 0 ] && [ "${reo:-0}" -gt 0 ] || fail "forwarder: $(tr '\n' ' ' <"$T/fwd.stats")"
	[ "$(tv "out of order")" -gt 0 ] || [ "$(tv duplicate)" -gt 0 ] ||
		fail "hedgewire saw no out-of-order or duplicate segment"
	echo "  forwarder: $(tr '\n' ' ' <"$T/fwd.stats")"
	;;
dpdk-zerowin)
	net_up
	sim_start --fill-pct 30 --rcvbuf 2048 --stall-after 200:3000
	hw --set replay.pace=rate --set replay.pps=3000
	check_all
	grep -q '"event": "unstall"' "$T/sim.jsonl" || fail "the simulator never read again"
	[ "$(tv "zero-window probes")" -gt 0 ] || fail "no zero-window probe"
	;;
dpdk-unacked)
	# the venue stops reading for good after 200 orders (its window
	# closes): at the stop hedgewire waits the session's dead time for
	# its bytes to be acknowledged, then says they were not and exits
	# with the orders bit (10), never 0
	net_up
	# (the simulator never drops the silent client itself)
	sim_start --fill-pct 30 --rcvbuf 2048 --stall-after 200:600000 \
		--dead-ms 600000
	hw --set replay.pace=rate --set replay.pps=3000 \
		--set venue.heartbeat_ms=500 --set venue.dead_ms=3000
	[ "$RC" = 10 ] || fail "exit $RC with orders unacknowledged: $(tail -3 "$T/err")"
	grep -q "^hedgewire: venue: [1-9][0-9]* bytes of orders not acknowledged by the venue's host" "$T/err" ||
		fail "not said: $(grep venue "$T/err")"
	echo "  $(grep "bytes of orders not acknowledged" "$T/err")"
	;;
dpdk-reset)
	# a RST in a burst: a lost session (the kill), the venue's
	# cancel-on-disconnect, a new connection and login
	net_up
	sim_start --fill-pct 30 --reset-after 40 --cancel-on-disconnect
	hw --set venue.cancel_on_disconnect=yes --set venue.reconnect_ms=50 \
		--set replay.pace=rate --set replay.pps=3000
	check_all 40 lost
	[ "$(vv logins)" -ge 2 ] || fail "no login after the reset"
	grep -q "^venue: tcp (dpdk) connection failed (reset by the peer) [1-9]" "$T/out" ||
		fail "the reset not named: $(grep '^venue: tcp' "$T/out")"
	[ "$(vv "session-lost kills")" -ge 1 ] || fail "no kill after the reset"
	;;
dpdk-claim-reset)
	# claim mode, a RST in a burst: the workers' claims on the dead
	# connection go nowhere, a lost session (the kill), the venue's
	# cancel-on-disconnect, a new connection (a new stream for the
	# claims) and login
	net_up
	sim_start --fill-pct 30 --reset-after 40 --cancel-on-disconnect
	ORDER_VDEV="net_af_packet0,iface=$VA,qpairs=3" \
		hw --set run.dedup=claim --set venue.cancel_on_disconnect=yes \
		--set venue.reconnect_ms=50 --set replay.pace=rate --set replay.pps=3000
	check_all 40 lost
	[ "$(vv logins)" -ge 2 ] || fail "no login after the reset"
	grep -q "^venue: tcp (dpdk) connection failed (reset by the peer) [1-9]" "$T/out" ||
		fail "the reset not named: $(grep '^venue: tcp' "$T/out")"
	[ "$(vv "session-lost kills")" -ge 1 ] || fail "no kill after the reset"
	grep -q "^venue: claim mode" "$T/out" || fail "no claim mode line"
	;;
dpdk-peer-restart)
	# the venue's process killed in the middle of the orders and started
	# again on the same port, from its journal: the kernel answers the
	# connection's segments and the new connects with RSTs until it
	# listens again; then a new login asks for the message after the
	# last one journalled (the kill, and the cancels of what was open)
	net_up
	SIM_LISTEN="$SIM_IP:$((20000 + $$ % 20000))"
	sim_start --fill-pct 30
	(hw --set venue.reconnect_ms=50 --set replay.pace=rate --set replay.pps=3000
	 echo "$RC" >"$T/rc") &
	HWPID=$!
	for ((i = 0; i < 1200; i++)); do
		[ "$(grep -c '"type": "U"' "$T/sim.jsonl" 2>/dev/null || true)" -ge 50 ] && break
		kill -0 "$HWPID" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$SIMPID"; wait "$SIMPID" 2>/dev/null || true
	sim_start --fill-pct 30 --restore
	wait "$HWPID" || true
	RC=$(cat "$T/rc")
	grep -q '"event": "restore"' "$T/sim.jsonl" || fail "the simulator did not restore"
	check_all 50 lost
	[ "$(vv logins)" -ge 2 ] || fail "no login after the restart"
	[ "$(vv "session-lost kills")" -ge 1 ] || fail "no kill after the restart"
	;;
dpdk-claim)
	net_up
	# claim mode needs hedgewire's TCP, and no caps
	for bad in "venue.stack=kernel|with [run] dedup = claim needs [venue] stack = dpdk" \
		   "venue.max_orders_per_sec=10|max_orders_per_sec = 10 with [run] dedup = claim" \
		   "recovery.server=10.78.0.2:9000|[recovery] server with [run] dedup = claim and [venue] stack = dpdk"; do
		PORT=1 hw --set run.dedup=claim --set "${bad%%|*}"
		[ "$RC" = 1 ] && grep -qF "${bad#*|}" "$T/err" ||
			fail "--set ${bad%%|*}: exit $RC, $(tail -1 "$T/err")"
	done
	echo "  claim mode on the kernel's socket, with caps, and with a recovery server, refused at start-up"
	sim_start --fill-pct 30
	capture_start
	# three queue pairs: the TX lcore's and one per worker
	ORDER_VDEV="net_af_packet0,iface=$VA,qpairs=3" \
		hw --set run.dedup=claim --set replay.pace=rate --set replay.pps=5000
	capture_ended "$T/session.pcapng" "$PORT"
	kill -INT "$DC"; wait "$DC" 2>/dev/null || true
	check_all 100 refused
	# a claim handed back is one that found no room, nothing else
	unsent=$(grep -o '^venue: unsent [0-9]*' "$T/out" | awk '{ print $3 }')
	full=$(grep -o '^venue: unsent (session output buffer full) [0-9]*' "$T/out" | awk '{ print $NF }' || true)
	expect_eq "unsent for another reason than no room" $((unsent - ${full:-0})) 0
	expect_eq "logins" "$(vv logins)" 1
	line=$(grep "^venue: claim mode" "$T/out") || fail "no claim mode line"
	expect_eq "orders sent by the winning worker" \
		"$(echo "$line" | sed -n 's/.*winning worker \([0-9]*\).*/\1/p')" "$(vv "orders sent")"
	expect_eq "not in the open-order table" \
		"$(echo "$line" | sed -n 's/.*open-order table \([0-9]*\).*/\1/p')" 0
	# the workers' bytes: every order's 50 (the session's own are the
	# TX lcore's)
	expect_eq "bytes the workers put in the stream" \
		"$(echo "$line" | sed -n 's/.*in the stream \([0-9]*\).*/\1/p')" "$(( $(vv "orders sent") * 50 ))"
	# (two workers' segments may reach the wire out of order: tshark
	# reassembles them in sequence order; a segment sent again carries
	# its packets again)
	tshark -r "$T/session.pcapng" -o tcp.reassemble_out_of_order:TRUE \
		-d "tcp.port==$PORT,soupbintcp" -T fields \
		-e soupbintcp.packet_type 2>/dev/null | tr ',' '\n' | tr -d "'" >"$T/types"
	[ "$(grep -cx U "$T/types")" -ge "$(vv "orders sent")" ] ||
		fail "tshark: $(grep -cx U "$T/types") Unsequenced Data packets, $(vv "orders sent") orders sent"
	# our checksums right; two workers' segments may reach the wire out
	# of order (counted)
	expect_eq "segments of ours with a bad checksum" "$(tshark -r "$T/session.pcapng" \
		-o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE \
		-Y "ip.src == $OUR_IP && (tcp.checksum.status == 0 || ip.checksum.status == 0)" 2>/dev/null | grep -c . || true)" 0
	ooo=$(tshark -r "$T/session.pcapng" -Y "ip.src == $OUR_IP && tcp.analysis.out_of_order" 2>/dev/null | grep -c . || true)
	echo "  $line"
	echo "  tshark: $(grep -cx U "$T/types") orders in Unsequenced Data packets, checksums right, $ooo of our segments out of order"
	;;
dpdk-claim-kill)
	# claim mode, the kill switch mid-run: every order open at the venue
	# is cancelled, those a worker sent before it saw the kill too, and
	# no order goes after it
	net_up
	sim_start --fill-pct 30
	python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
		--cmd /hgw/risk/kill,1 --gap-ms 500,500 --duration 1 \
		--after "$T/sim.jsonl:\"type\": \"U\"" >"$T/driver.out" 2>&1 &
	PIDS+=($!)
	driven $! hw_claim_bg --set replay.pace=rate --set replay.pps=3000
	[ "$RC" = 0 ] || fail "exit $RC: $(tail -3 "$T/err")"
	grep -q "^venue: claim mode" "$T/out" || fail "no claim mode line"
	kill_checks
	;;
dpdk-claim-loss5 | dpdk-claim-dupreorder)
	# claim mode, 5% of the segments dropped each way (nftables), or
	# duplicated and reordered both ways (a forwarder): the workers'
	# segments sent again by the TX lcore from the ring; a claim that
	# finds no room while the windows recover is handed back
	if [ "$SCENARIO" = dpdk-claim-loss5 ]; then
		net_up
		sim_start --fill-pct 30
		nft_loss 5
	else
		net_up --dup 5 --reorder 5 --seed 7
		sim_start --fill-pct 30
	fi
	ORDER_VDEV="net_af_packet0,iface=$VA,qpairs=3" \
		hw --set run.dedup=claim --set replay.pace=rate --set replay.pps=3000 \
		--set venue.reconnect_ms=50
	check_all 100 refused
	[ "$(tv "retransmitted bytes")" -gt 0 ] || [ "$SCENARIO" = dpdk-claim-dupreorder ] ||
		fail "no retransmission after the drops"
	if [ "$SCENARIO" = dpdk-claim-loss5 ]; then
		echo "  nftables dropped $(nft_dropped in_dropped) segments to the venue, $(nft_dropped out_dropped) from it"
	else
		kill -TERM "$FWDPID"; wait "$FWDPID" 2>/dev/null || true
		echo "  forwarder: $(tr '\n' ' ' <"$T/fwd.stats")"
	fi
	echo "  $(grep '^venue: claim mode' "$T/out")"
	;;
dpdk-claim-zerowin)
	# claim mode, the venue stops reading for 3 s: its window closes, the
	# workers' claims find no room and are handed back as UNSENT (never
	# queued), and orders go again once it reads
	net_up
	sim_start --fill-pct 30 --rcvbuf 2048 --stall-after 200:3000
	ORDER_VDEV="net_af_packet0,iface=$VA,qpairs=3" \
		hw --set run.dedup=claim --set replay.pace=rate --set replay.pps=3000
	check_all 100 refused
	grep -q '"event": "unstall"' "$T/sim.jsonl" || fail "the simulator never read again"
	full=$(grep -o '^venue: unsent (session output buffer full) [0-9]*' "$T/out" | awk '{ print $NF }' || true)
	[ "${full:-0}" -gt 0 ] || fail "no claim refused while the window was closed: $(grep '^venue: unsent' "$T/out")"
	echo "  refused while the window was closed: $full; $(grep '^venue: claim mode' "$T/out")"
	;;
dpdk-claim-restart)
	# claim mode, killed (SIGKILL) while orders flow, then started again
	# on the same state file: each winner raised the UserRefNum floor
	# before its send, so the restart sends no number twice, and hands
	# back (UNSENT) the orders whose numbers are at or below it
	net_up
	sim_start --fill-pct 30 --cancel-on-disconnect
	hw_claim_bg --set venue.cancel_on_disconnect=yes --set replay.pace=rate \
		--set replay.pps=3000 --set run.stop_at_end_of_session=no
	for ((i = 0; i < 600; i++)); do
		grep -q '"type": "U"' "$T/sim.jsonl" 2>/dev/null && break
		kill -0 "$HWPID" 2>/dev/null || break
		sleep 0.05
	done
	sleep 0.5
	kill -0 "$HWPID" 2>/dev/null || fail "the first run ended before the SIGKILL: $(tail -3 "$T/err")"
	kill -KILL "$HWPID" 2>/dev/null || true
	wait "$HWPID" 2>/dev/null || true
	sim_settled
	$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 || fail "first run: $(cat "$T/check")"
	first=$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")
	[ "$first" -gt 0 ] || fail "nothing sent before the SIGKILL"
	ORDER_VDEV="net_af_packet0,iface=$VA,qpairs=3" \
		hw --set run.dedup=claim --set venue.cancel_on_disconnect=yes \
		--set replay.pace=rate --set replay.pps=6000
	[ "$RC" = 0 ] || fail "restart: exit $RC: $(tail -3 "$T/err")"
	floor=$(sed -n 's/.*UserRefNum floor \([0-9]*\),.*/\1/p' "$T/out")
	[ "$floor" -gt 0 ] || fail "the restart did not read the floor"
	grep -q "unsent (UserRefNum not above the last one sent today) [1-9]" "$T/out" ||
		fail "the restart refused nothing by number: $(grep '^venue' "$T/out")"
	# every UserRefNum once over both runs, increasing
	check_orders
	check_events --conns 2- --first-seq auto
	echo "  first run sent $first before SIGKILL; restart from floor $floor sent $(vv "orders sent"), handed back by number $(grep -o 'unsent (UserRefNum not above the last one sent today) [0-9]*' "$T/out" | awk '{ print $NF }')"
	;;
dpdk-tap)
	# net_tap offers IPv4 and TCP checksum offloads: the segments leave
	# with the flags and the pseudo-header sum, the PMD completes them,
	# and Linux's TCP takes only what sums right. The TAP device appears
	# when hedgewire starts; it goes into the namespace, then the
	# simulator starts on its address (hedgewire connects again until
	# it answers; the workers wait for the login)
	TAPIF="hgwt$$"
	ip netns add "$NS" || fail "ip netns add"
	NETNS+=("$NS")
	nsx ip link set lo up
	SIM_LISTEN="$SIM_IP:$((20000 + $$ % 20000))"
	PORT=${SIM_LISTEN##*:}
	ORDER_VDEV="net_tap0,iface=$TAPIF"
	# the workers wait for the login up to venue.dead_ms: long enough
	# for the TAP's move and the simulator's start on a loaded host
	(hw --set venue.reconnect_ms=50 --set replay.pace=rate --set replay.pps=5000 \
		--set venue.dead_ms=60000
	 exit "$RC") &
	HWPID=$!
	# once the PMD has set it up (flags UP at the port's start): moved
	# earlier, the PMD's own set-up of it would miss
	for ((i = 0; i < 300; i++)); do
		ip -o link show "$TAPIF" 2>/dev/null | grep -q '[<,]UP[,>]' && break
		kill -0 "$HWPID" 2>/dev/null || break
		sleep 0.1
	done
	ip link set "$TAPIF" netns "$NS" || fail "no TAP device $TAPIF: $(tail -3 "$T/err")"
	nsx ip addr add "$SIM_IP/24" dev "$TAPIF"
	nsx ip link set "$TAPIF" up
	nsx ethtool -K "$TAPIF" tx off >/dev/null
	sim_start --fill-pct 30
	wait "$HWPID" && RC=0 || RC=$?
	check_all
	grep -q "^venue: tcp (dpdk) arp .*checksums by the port" "$T/out" ||
		fail "the checksums were not the port's: $(grep '^venue: tcp (dpdk) arp' "$T/out")"
	;;
*)
	fail "unknown scenario $SCENARIO"
	;;
esac
echo "ok: $SCENARIO"
