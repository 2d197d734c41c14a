#!/usr/bin/env bash
# Secrets and the files hedgewire writes (docs/operations.md "Secrets and
# files"):
#   - the venue password never comes from a command line: --set
#     venue.password and hgw-dedup's --venue-password are refused in one
#     line; it comes from a config file or password_file others cannot
#     read, or from HGW_VENUE_PASSWORD, one of them; --print-config never
#     shows it;
#   - a symbolic link where hedgewire creates or truncates a file
#     (--latency, --claims, --dump-book, the venue state file, the
#     journal, the events log) is refused in one line and its target
#     left as it was;
#   - the order journal, the venue journal and the events log are 0640.
# usage: secrets.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR   (HGW_DEDUP in env)
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4
. "$SRCDIR/tests/integration/common.sh"

"$FEEDGEN" -q -o "$T/feed.pcap" --seed 31 --instruments 40 \
	--messages 4000 --per-packet 4 --heartbeats 50
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
VDEV="net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap"
conf
umask 022	# as a shell's default: a new file is 0644 unless said otherwise

# refused CMD... : runs hedgewire, which must fail with one line on stderr
# holding every word of $WANT (a |-separated list of fixed strings)
refused() {
	local rc=0
	run_hw "${LCORES:--l0-1}" "$VDEV" "$@" || rc=$?
	[ "$rc" -ne 0 ] || fail "accepted: $*"
	local line
	line=$(grep -v '^EAL\|^TELEMETRY' "$T/err" | grep . || true)
	[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] ||
		fail "not one line for '$*': $(cat "$T/err")"
	local IFS='|' w
	for w in $WANT; do
		printf '%s' "$line" | grep -qF -- "$w" ||
			fail "'$*': the line does not say '$w': $line"
	done
	echo "  refused: $line"
}

# --- the password --------------------------------------------------------
WANT="[venue] password|command line"
refused -c "$T/conf.ini" --set venue.password=TOPSECRET
grep -q TOPSECRET "$T/err" && fail "the refusal repeats the password"

# in the config file: only when others cannot read the file
cp "$T/conf.ini" "$T/pw.ini"
printf '[venue]\npassword = TOPSECRET\n' >>"$T/pw.ini"
chmod 0644 "$T/pw.ini"
WANT="$T/pw.ini|0644|password"
refused -c "$T/pw.ini" --print-config
for mode in 0600 0640; do
	chmod "$mode" "$T/pw.ini"
	run_hw -l0-1 "$VDEV" -c "$T/pw.ini" --print-config ||
		fail "config file of mode $mode refused: $(cat "$T/err")"
	grep -q TOPSECRET "$T/out" "$T/err" && fail "--print-config shows the password"
	grep -q '^password = (set, not shown)$' "$T/out" ||
		fail "--print-config does not say the password is set"
done
echo "  a config file of mode 0600 or 0640 holds it; --print-config masks it"

# in password_file: mode checked, no symbolic link, one source only
printf 'FROMFILE\n' >"$T/pw"
chmod 0644 "$T/pw"
WANT="password_file|0644"
refused -c "$T/conf.ini" --set venue.password_file="$T/pw" --print-config
chmod 0640 "$T/pw"
ln -s "$T/pw" "$T/pw.link"
WANT="password_file|symbolic link"
refused -c "$T/conf.ini" --set venue.password_file="$T/pw.link" --print-config
run_hw -l0-1 "$VDEV" -c "$T/conf.ini" --set venue.password_file="$T/pw" \
	--print-config || fail "password_file of mode 0640 refused: $(cat "$T/err")"
grep -q '^password = (set, not shown)$' "$T/out" ||
	fail "password_file was not read"
grep -q FROMFILE "$T/out" && fail "--print-config shows the password"
WANT="given 2 ways"
HGW_VENUE_PASSWORD=FROMENV refused -c "$T/conf.ini" \
	--set venue.password_file="$T/pw" --print-config
HGW_VENUE_PASSWORD=FROMENV run_hw -l0-1 "$VDEV" -c "$T/conf.ini" \
	--print-config || fail "HGW_VENUE_PASSWORD refused: $(cat "$T/err")"
grep -q '^password = (set, not shown)$' "$T/out" ||
	fail "HGW_VENUE_PASSWORD was not read"
echo "  password_file (0640, not a link) and HGW_VENUE_PASSWORD, one at a time"

# hgw-dedup: no --venue-password; --venue-password-file is checked alike
dd_run() {
	local rc=0
	# shellcheck disable=SC2086
	"$HGW_DEDUP" -l0 --no-pci $EAL_MEM --file-prefix "$PREFIX-dd" \
		--log-level=error --vdev "net_null0" -- --in 0 \
		--venue 127.0.0.1:1 --venue-user U --state-file "$T/dstate" \
		"$@" >"$T/dd.out" 2>"$T/dd.err" || rc=$?
	return $rc
}
dd_run --venue-password TOPSECRET && fail "hgw-dedup took --venue-password"
grep -q -- "--venue-password: .*every user.*--venue-password-file" "$T/dd.err" ||
	fail "hgw-dedup --venue-password: $(cat "$T/dd.err")"
chmod 0644 "$T/pw"
dd_run --venue-password-file "$T/pw" && fail "hgw-dedup took a 0644 password file"
grep -q "venue-password-file: .*0644" "$T/dd.err" ||
	fail "hgw-dedup --venue-password-file 0644: $(cat "$T/dd.err")"
chmod 0600 "$T/pw"
echo "  hgw-dedup: --venue-password refused, a 0644 password file refused"

# --- symbolic links where hedgewire writes --------------------------------
echo "keep me" >"$T/target"
for opt in latency claims dump-book; do
	case $opt in
	latency) ln -sf "$T/target" "$T/lat.csv"; arg="$T/lat";;
	claims) ln -sf "$T/target" "$T/claims.csv"; arg="$T/claims.csv";;
	dump-book) ln -sf "$T/target" "$T/book.txt"; arg="$T/book.txt";;
	esac
	WANT="--$opt|symbolic link"
	refused -c "$T/conf.ini" --set run.idle_timeout_ms=0 "--$opt" "$arg"
	[ "$(cat "$T/target")" = "keep me" ] || fail "--$opt wrote through a link"
done
ln -sf "$T/target" "$T/state.link"
WANT="state_file|symbolic link"
LCORES="--lcores=0@0,1@1,2@0" refused -c "$T/conf.ini" --set run.dedup=tx-lcore \
	--set venue.host=127.0.0.1 --set venue.port=1 --set venue.username=U \
	--set venue.state_file="$T/state.link"
ln -sf "$T/target" "$T/events.link"
WANT="events_log|symbolic link"
refused -c "$T/conf.ini" --set run.events_log="$T/events.link"
[ "$(cat "$T/target")" = "keep me" ] || fail "a file was written through a link"
echo "  a symbolic link is refused, its target untouched"

# --- modes of what traded --------------------------------------------------
rm -f "$T"/journal*.pcap
run_hw -l0-1 "$VDEV" -c "$T/conf.ini" --set run.idle_timeout_ms=0 \
	--set run.events_log="$T/events.log" --latency "$T/lat2" ||
	fail "hedgewire exited $?: $(cat "$T/err")"
# the venue journal: made at start-up, whatever becomes of the session
# (nobody listens at port 1: the run ends without a venue, status ignored)
run_hw --lcores=0@0,1@1,2@0 "$VDEV" -c "$T/conf.ini" --set run.dedup=tx-lcore \
	--set venue.host=127.0.0.1 --set venue.port=1 --set venue.username=U \
	--set venue.state_file="$T/vstate" --set venue.journal="$T/venue.jl" \
	--set venue.dead_ms=2000 --set order.journal= --set run.idle_timeout_ms=0 || true
[ -f "$T/venue.jl" ] || fail "no venue journal: $(cat "$T/err")"
expect_eq "mode of the venue journal" "$(stat -c %a "$T/venue.jl")" 640
expect_eq "mode of the venue state file" "$(stat -c %a "$T/vstate")" 600
for f in journal.pcap events.log; do
	expect_eq "mode of $f" "$(stat -c %a "$T/$f")" 640
done
expect_eq "mode of the latency report" "$(stat -c %a "$T/lat2.csv")" 644
echo "  order journal, venue journal and events log 0640 (state 0600, latency report 0644)"
echo "PASS"
