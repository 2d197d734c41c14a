# Shared by the integration tests (sourced). Needs: HEDGEWIRE, FEEDGEN,
# SRCDIR set by the caller. Gives a temp dir $T and helpers.
set -euo pipefail
T=$(mktemp -d /tmp/hgw-it.XXXXXX)
EAL_MEM=$("$SRCDIR/scripts/eal-args.sh" 256)
PREFIX="hgw-it-$$"
# Background processes a test started (PIDS+=(...)) are stopped at the
# end. A process that stops on a start-up error leaves its huge page
# files behind (EAL removes them on the next start with the same prefix).
PIDS=()
# Network namespaces a test made (netns_add), with what runs in them, and
# the host ends of their veth pairs, are removed at the end too.
NETNS=() NETIFS=()
# HGW_IT_KEEP=1 keeps $T of a failed test for a look afterwards.
it_cleanup() {
	local rc=$? p d
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for d in "${NETNS[@]}"; do
		ip netns pids "$d" 2>/dev/null | xargs -r kill 2>/dev/null || true
	done
	[ ${#PIDS[@]} -eq 0 ] || wait 2>/dev/null || true
	for d in "${NETNS[@]}"; do ip netns del "$d" 2>/dev/null || true; done
	for d in "${NETIFS[@]}"; do ip link del "$d" 2>/dev/null || true; done
	if [ "$rc" -ne 0 ] && [ -n "${HGW_IT_KEEP:-}" ]; then
		echo "kept $T"
	else
		rm -rf "$T"
	fi
	for d in $(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts); do
		rm -f "$d/$PREFIX"*map_* 2>/dev/null || true
	done
}
trap it_cleanup EXIT
# a stop signal (meson's timeout, ^C) is an exit too, so that the clean-up
# runs and stops what the test started
trap 'exit 143' TERM
trap 'exit 130' INT

# fail MSG: the test failed; FAIL_DIAG, when set, names a function that
# prints what a reader of the log needs to see why (once)
fail() {
	echo "FAIL: $*"
	if [ -n "${FAIL_DIAG:-}" ]; then
		local d=$FAIL_DIAG
		FAIL_DIAG=""
		$d 2>&1 | sed 's/^/  diag: /'
	fi
	exit 1
}

# dumpcap_start NS IF FILE [capture filter]: dumpcap on IF in the network
# namespace NS into FILE, in the background ($DC), once it captures (it
# writes the file's header and names it); at most 30 s
dumpcap_start() {
	ip netns exec "$1" dumpcap -q -i "$2" ${4:+-f "$4"} -w "$3" >"$T/dumpcap.out" 2>&1 &
	DC=$!
	PIDS+=("$DC")
	for ((i = 0; i < 300; i++)); do
		grep -q "^File: " "$T/dumpcap.out" && [ -s "$3" ] && return 0
		kill -0 "$DC" 2>/dev/null || fail "dumpcap: $(cat "$T/dumpcap.out")"
		sleep 0.1
	done
	fail "dumpcap not capturing after 30 s: $(cat "$T/dumpcap.out")"
}

# netns_add NS HOSTIF: a network namespace NS with its loopback up, and a
# veth pair HOSTIF (here) / PEERIF (in NS); both go at the end. Needs root.
netns_add() {
	ip netns add "$1" || fail "ip netns add $1"
	NETNS+=("$1")
	ip netns exec "$1" ip link set lo up
	ip link add "$2" type veth peer name "$3" netns "$1" || fail "ip link add $2"
	NETIFS+=("$2")
	sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ip link set "$2" up
}

# veth_ns NS VA VB IP [forwarder options]: the network namespace NS and a
# veth pair, VA here and VB (IP/24) in NS; with options, two pairs and
# tests/integration/tcp_fault_fwd.py between them in NS (its pid in
# FWDPID, its counts in $T/fwd.stats). VB's checksums are filled in by
# the kernel (offloaded to a veth, they would reach a raw socket under
# net_af_packet unfilled).
veth_ns() {
	local ns=$1 va=$2 vb=$3 ip=$4 i
	shift 4
	if [ $# -eq 0 ]; then
		netns_add "$ns" "$va" "$vb"
	else
		netns_add "$ns" "$va" "${va}f"
		ip netns exec "$ns" ip link add "${va}g" type veth peer name "$vb" || fail "ip link add veth (2)"
		ip netns exec "$ns" ip link set "${va}f" up
		ip netns exec "$ns" ip link set "${va}g" up
		ip netns exec "$ns" sysctl -qw "net.ipv6.conf.${va}f.disable_ipv6=1" "net.ipv6.conf.${va}g.disable_ipv6=1"
	fi
	ip netns exec "$ns" ip addr add "$ip/24" dev "$vb"
	ip netns exec "$ns" ip link set "$vb" up
	ip netns exec "$ns" ethtool -K "$vb" tx off >/dev/null
	[ $# -ne 0 ] || return 0
	ip netns exec "$ns" ethtool -K "${va}f" tx off >/dev/null
	ip netns exec "$ns" ethtool -K "${va}g" tx off >/dev/null
	rm -f "$T/fwd.ready"
	ip netns exec "$ns" nice -n -10 python3 "$SRCDIR/tests/integration/tcp_fault_fwd.py" "${va}f" "${va}g" \
		--ready-file "$T/fwd.ready" --stats-file "$T/fwd.stats" "$@" \
		>"$T/fwd.out" 2>&1 &
	FWDPID=$!
	PIDS+=("$FWDPID")
	for ((i = 0; i < 600; i++)); do
		[ -s "$T/fwd.ready" ] && break
		kill -0 "$FWDPID" 2>/dev/null || fail "forwarder: $(cat "$T/fwd.out")"
		sleep 0.05
	done
	[ -s "$T/fwd.ready" ] || fail "the forwarder did not start"
}

# run_hw LCORES VDEV [app args...]: runs hedgewire, output in $T/out,
# stderr in $T/err; returns its exit status. LCORES is one EAL argument:
# "-l0-1", or "--lcores=0@0,1@1,2@1" for more lcores than CPUs.
run_hw() {
	local lcores=$1 vdev=$2; shift 2
	# shellcheck disable=SC2086
	"$HEDGEWIRE" "$lcores" --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error --vdev "$vdev" -- "$@" >"$T/out" 2>"$T/err"
}

# value KEY: the number after KEY in hedgewire's summary ("  key N").
value() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$T/out"
}

# truth KEY: the value of a "KEY VALUE" line of the generator's truth.
truth() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$T/truth"
}

# need_memif: exits 77 (skipped, saying why) unless DPDK's net_memif PMD
# is there: linked into the binary $1, or in the directory the EAL loads
# its drivers from. Called before anything runs, so that a process that
# dies later on a memif is a failure, never a skip.
need_memif() {
	local libdir
	! ldd "$1" 2>/dev/null | grep -q 'librte_net_memif\.so' || return 0
	libdir=$(pkg-config --variable=libdir libdpdk 2>/dev/null) ||
		libdir=/usr/lib/$(gcc -dumpmachine)
	! compgen -G "$libdir/dpdk/pmds-*/librte_net_memif.so*" >/dev/null || return 0
	echo "SKIP: no net_memif PMD: not linked into $1 nor in $libdir/dpdk/pmds-*/ (Debian package librte-net-memif23)"
	exit 77
}

expect_eq() {	# what got want
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# Every "type X N" and "drop R N" line of the truth equals hedgewire's.
check_counts() {
	local n=0
	while read -r kind key want; do
		case $kind in
		type) got=$(awk -v t="$key" '$1 == "type" && $2 == t { print $NF }' "$T/out");;
		drop) got=$(awk -v r="$key" '$1 == "drop" && $2 == r { print $3 }' "$T/out");;
		*) continue;;
		esac
		expect_eq "$kind $key" "${got:-0}" "$want"
		n=$((n + 1))
	done <"$T/truth"
	echo "  $n type/drop counters match the generator"
}

# hedgewire's --dump-book equals the generator's bbo lines.
check_bbo() {
	grep '^bbo ' "$T/truth" >"$T/bbo.want"
	if ! diff -u "$T/bbo.want" "$T/book" >"$T/bbo.diff"; then
		head -20 "$T/bbo.diff"
		fail "best bid/ask differs from the generator's ground truth"
	fi
	echo "  best bid/ask of $(wc -l <"$T/bbo.want") instruments match the generator"
}

# sim_start [simulator options]: a simulator on a free port ($PORT), its
# journal in $T/sim.jsonl (appended over restarts of hedgewire); in the
# network namespace $SIM_NS when set, listening on $SIM_LISTEN (default
# 127.0.0.1:0)
sim_start() {
	rm -f "$T/port"
	# shellcheck disable=SC2086
	${SIM_NS:+ip netns exec $SIM_NS} python3 "${SIM:-$SRCDIR/scripts/venue_sim.py}" \
		--listen "${SIM_LISTEN:-127.0.0.1:0}" --user U --password P --session S \
		--journal "$T/sim.jsonl" --ready-file "$T/port" "$@" \
		>"$T/sim.out" 2>&1 &
	SIMPID=$!
	PIDS+=("$SIMPID")
	for ((i = 0; i < 600; i++)); do
		[ -s "$T/port" ] && break
		kill -0 "$SIMPID" 2>/dev/null || break
		sleep 0.05
	done
	PORT=$(cat "$T/port") || fail "the simulator did not start: $(cat "$T/sim.out")"
}

# venue_feed MESSAGES: the venue tests' feed ($T/feed.pcap, MESSAGES ITCH
# messages) and table ($T/table.tbl), and the first sections of their
# configuration in $T/conf.ini ([book], [table], [risk]); the caller
# appends [run], [venue] and the rest
venue_feed() {
	"$FEEDGEN" -q -o "$T/feed.pcap" --seed 31 --instruments 40 \
		--messages "$1" --per-packet 4 --heartbeats 50
	"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 \
		--imbalances 8 --seed 5 --fill 0.1
	cat >"$T/conf.ini" <<EOF
[book]
instruments = 256
orders = 262144
[table]
file = $T/table.tbl
[risk]
max_position = 100000000
max_orders_instrument = 20
max_orders_total = 200
window_ms = 50
EOF
}

# conf EXTRA-LINES: a complete trading configuration in $T/conf.ini (table
# $T/table.tbl, journal $T/journal.pcap); EXTRA-LINES ("[section]" then
# "key = value" lines) override keys of it.
conf() {
	cat >"$T/conf.ini" <<EOF
[feed]
group = 233.54.12.111
port = 26477
[book]
instruments = 256
orders = 262144
levels = 256
[table]
file = $T/table.tbl
[risk]
kill = no
disable =
max_quantity = 10000
max_notional = 1000000
collar_bps = 500
max_position = 100000000
window_ms = 1
max_orders_instrument = 4096
max_orders_total = 4096
[order]
src_mac = 02:00:00:00:00:01
dst_mac = 02:00:00:00:00:02
src_ip = 10.2.0.1
dst_ip = 10.2.0.2
src_port = 40000
dst_port = 40001
capacity = P
journal = $T/journal.pcap
EOF
	# later keys override earlier ones
	[ -z "${1:-}" ] || printf '%s\n' "$@" | awk -F' *= *' '
		/^\[/ { sec = $0; next }
		{ print sec "\t" $1 "\t" $2 }' >"$T/overrides"
	if [ -s "$T/overrides" ]; then
		awk -F'\t' 'NR == FNR { o[$1 SUBSEP $2] = $3; next }
			/^\[/ { sec = $0; print; next }
			{ split($0, kv, / *= */);
			  if ((sec SUBSEP kv[1]) in o) print kv[1] " = " o[sec SUBSEP kv[1]];
			  else print }' "$T/overrides" "$T/conf.ini" >"$T/conf2.ini"
		mv "$T/conf2.ini" "$T/conf.ini"
	fi
}

# capture_ended PCAP PORT: until the capture PCAP (dumpcap still writing
# it) holds the session's end, the FIN or RST from the server at PORT
# after the Logout, at most 10 s. dumpcap stops on SIGINT without
# draining what the kernel still holds, so a test stops it only then.
capture_ended() {
	local i
	for ((i = 0; i < 100; i++)); do
		tshark -r "$1" -Y "tcp.srcport == $2 && (tcp.flags.fin == 1 || tcp.flags.reset == 1)" \
			2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 0
}
