#!/bin/bash
# lib/tcp's delegated sends (hgw_tcp_dlg.h) against Linux's TCP: tcp-dlg
# (tests/integration/tcp_dlg.c) holds one end of a veth through
# net_af_packet, with two worker lcores racing to send every order and
# the main lcore owning the connection; tcp_dlg_peer.py reads the other
# end in a network namespace. Scenarios:
#   plain       no fault; tshark reads the capture: checksums right, and
#               no TCP analysis warning but the reordering of two
#               senders' segments (counted, with the peer's out-of-order
#               queue)
#   loss5       5% of the segments dropped each way (nftables)
#   dupreorder  segments duplicated and reordered both ways (a forwarder)
#   zerowin     the peer stops reading for 2 s: claims find no room and
#               are refused, none is lost
# Invariant in each: every order the workers claimed reaches the peer
# once, in UserRefNum order, byte for byte as OUCH 5.0 lays it out, or
# was refused (and never both); the connection ends with every byte
# acknowledged and FINs both ways.
#   tcp_dlg.sh TCP_DLG SRCDIR SCENARIO
TCPDLG=$1 SRCDIR=$2 SCENARIO=$3
HEDGEWIRE=$TCPDLG
source "$SRCDIR/tests/integration/common.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, veth)"; exit 77; }
for tool in ip ethtool; do
	command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done

NS="hgwd$$" VA="hgwda$$" VB="hgwdb$$"
OUR_IP=10.79.0.1 PEER_IP=10.79.0.2 PORT=26400
nsx() { ip netns exec "$NS" "$@"; }

diag() {
	cat "$T/out" "$T/err" 2>/dev/null | tail -20
	cat "$T/peer.out" 2>/dev/null
}
FAIL_DIAG=diag

# net_up [forwarder options]: the namespace, the veth pair (and the
# forwarder between two, with options)
net_up() {
	veth_ns "$NS" "$VA" "$VB" "$PEER_IP" "$@"
}

# peer_start [options]: the peer, listening once it wrote its ready file
peer_start() {
	nsx python3 "$SRCDIR/tests/integration/tcp_dlg_peer.py" --listen "$PEER_IP:$PORT" \
		--ready "$T/peer.ready" --refs "$T/refs" "$@" >"$T/peer.out" 2>&1 &
	PEER=$!
	PIDS+=("$PEER")
	for ((i = 0; i < 300; i++)); do
		[ -s "$T/peer.ready" ] && return 0
		kill -0 "$PEER" 2>/dev/null || fail "peer: $(cat "$T/peer.out")"
		sleep 0.05
	done
	fail "the peer did not listen"
}

# run N PPS [BURST]: tcp-dlg with two workers (triggers due BURST at a
# time, as one feed frame's), then the peer's verdict and the invariant
run() {
	local n=$1 pps=$2 burst=${3:-1} rc=0
	# the workers on two CPUs: they reach each trigger at once and race
	"$TCPDLG" --lcores=0@0,1@1,2@0 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error --vdev "net_af_packet0,iface=$VA,qpairs=3" -- \
		--mode tcp --ip "$OUR_IP/24" --peer "$PEER_IP:$PORT" --workers 2 \
		--orders "$n" --rate "$pps" --burst "$burst" --refused "$T/refused" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] || fail "tcp-dlg exit $rc: $(tail -3 "$T/err")"
	wait "$PEER" || fail "peer: $(cat "$T/peer.out")"
	grep -q "^peer: " "$T/peer.out" || fail "peer: $(cat "$T/peer.out")"
	# every trigger once: at the peer, or refused, never both
	sort -n "$T/refs" "$T/refused" >"$T/both"
	seq 1 "$n" >"$T/all"
	cmp -s "$T/both" "$T/all" ||
		fail "orders at the peer ($(wc -l <"$T/refs")) and refused ($(wc -l <"$T/refused")) are not each trigger once: $(diff "$T/all" "$T/both" | head -3 | tr '\n' ' ')"
	read -r _ sent _ lost _ full _ closed _ txf _ moved < <(grep "^sent " "$T/out")
	expect_eq "sent, at the peer" "$sent" "$(wc -l <"$T/refs")"
	# two replicas: every trigger's other copy lost its claim
	expect_eq "claims lost" "$lost" "$n"
	echo "  $(grep -E '^(sent|claim-tcp)' "$T/out" | tr '\n' ' ')"
	echo "  $(grep -oE 'retransmitted bytes [0-9]+ \(timeouts [0-9]+, fast [0-9]+\), duplicate acks [0-9]+' "$T/out")"
	echo "  $(cat "$T/peer.out")"
}

case $SCENARIO in
plain)
	command -v dumpcap >/dev/null && command -v tshark >/dev/null ||
		{ echo "SKIP: no dumpcap/tshark (Debian package tshark)"; exit 77; }
	net_up
	peer_start
	dumpcap_start "$NS" "$VB" "$T/c.pcapng" "tcp port $PORT"
	nsx nstat -n >/dev/null 2>&1 || true
	run 20000 20000 4
	capture_ended "$T/c.pcapng" "$PORT"
	kill -INT "$DC"; wait "$DC" 2>/dev/null || true
	# checksums: every segment of ours right (Linux writes a TCP checksum
	# that comes out 0 as 0xffff, which tshark flags: not ours to judge)
	bad=$(tshark -r "$T/c.pcapng" -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE \
		-Y "ip.src == $OUR_IP && (tcp.checksum.status == 0 || ip.checksum.status == 0)" 2>/dev/null | wc -l)
	expect_eq "segments with a bad checksum" "$bad" 0
	# TCP analysis: reordering by the two senders is expected (a segment
	# past a hole, "previous segment not captured", then the one before
	# it, "out of order"; the peer's duplicate ACKs for it, and our fast
	# retransmissions of them); nothing else
	other=$(tshark -r "$T/c.pcapng" -Y "tcp.analysis.flags && !tcp.analysis.out_of_order && !tcp.analysis.lost_segment && !tcp.analysis.duplicate_ack && !tcp.analysis.fast_retransmission && !tcp.analysis.retransmission && !tcp.analysis.window_update" 2>/dev/null | head -3)
	[ -z "$other" ] || fail "TCP analysis warnings: $other"
	ooo=$(tshark -r "$T/c.pcapng" -Y "tcp.analysis.out_of_order" 2>/dev/null | wc -l)
	hole=$(tshark -r "$T/c.pcapng" -Y "tcp.analysis.lost_segment" 2>/dev/null | wc -l)
	rexmit=$(tshark -r "$T/c.pcapng" -Y "tcp.dstport == $PORT && tcp.analysis.retransmission" 2>/dev/null | wc -l)
	# nothing is lost on a veth: every hole is filled by a segment out of
	# order, or (a sender held up between its claim and its send for
	# longer than tshark waits, 3 ms) one it calls a retransmission
	[ "$hole" -le $((ooo + rexmit)) ] ||
		fail "holes $hole, more than segments out of order $ooo and retransmitted $rexmit"
	segs=$(tshark -r "$T/c.pcapng" -Y "tcp.dstport == $PORT && tcp.len > 0" 2>/dev/null | wc -l)
	ofo=$(nsx nstat -az TcpExtTCPOFOQueue 2>/dev/null | awk '$1 == "TcpExtTCPOFOQueue" { print $2 }')
	echo "  segments $segs, out of order $ooo, retransmitted $rexmit; the peer's out-of-order queue took ${ofo:-?}; refused (no room) $(wc -l <"$T/refused")"
	;;
loss5)
	command -v nft >/dev/null || { echo "SKIP: no nft (Debian package nftables)"; exit 77; }
	net_up
	nsx nft -f - <<EOT || fail "nft"
table inet hgwloss {
	counter in_dropped { }
	counter out_dropped { }
	chain in {
		type filter hook input priority 0;
		tcp dport $PORT numgen random mod 100 < 5 counter name in_dropped drop
	}
	chain out {
		type filter hook output priority 0;
		tcp sport $PORT numgen random mod 100 < 5 counter name out_dropped drop
	}
}
EOT
	peer_start
	run 10000 5000
	din=$(nsx nft list counter inet hgwloss in_dropped | sed -n 's/.*packets \([0-9]*\).*/\1/p')
	dout=$(nsx nft list counter inet hgwloss out_dropped | sed -n 's/.*packets \([0-9]*\).*/\1/p')
	[ "${din:-0}" -gt 0 ] && [ "${dout:-0}" -gt 0 ] || fail "nothing dropped: in ${din:-0}, out ${dout:-0}"
	echo "  dropped: to the peer $din, from it $dout"
	;;
dupreorder)
	net_up --dup 5 --reorder 5 --seed 7
	peer_start
	run 10000 10000
	kill -TERM "$FWDPID"; wait "$FWDPID" 2>/dev/null || true
	dup=$(awk '$1 == "duplicated" { print $2 }' "$T/fwd.stats")
	reo=$(awk '$1 == "reordered" { print $2 }' "$T/fwd.stats")
	[ "${dup:-0}" -gt 0 ] && [ "${reo:-0}" -gt 0 ] || fail "forwarder: $(tr '\n' ' ' <"$T/fwd.stats")"
	echo "  forwarder: $(tr '\n' ' ' <"$T/fwd.stats")"
	;;
zerowin)
	net_up
	peer_start --stall-after 20000 --stall-s 2
	run 20000 5000
	nref=$(wc -l <"$T/refused")
	[ "$nref" -gt 0 ] || fail "no claim was refused while the peer did not read"
	grep -q "stalled" "$T/peer.out" || fail "the peer did not stop reading"
	echo "  refused while the window was closed: $nref"
	;;
*)
	fail "unknown scenario $SCENARIO"
	;;
esac
echo "PASS: tcp-dlg-$SCENARIO"
