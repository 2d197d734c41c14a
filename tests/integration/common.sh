# Shared by the integration tests (sourced). Needs: HEDGEWIRE, FEEDGEN,
# SRCDIR set by the caller. Gives a temp dir $T and helpers.
set -euo pipefail
T=$(mktemp -d /tmp/hgw-it.XXXXXX)
EAL_MEM=$("$SRCDIR/scripts/eal-args.sh" 256)
PREFIX="hgw-it-$$"
# A process that stops on a start-up error leaves its huge page files
# behind (EAL removes them on the next start with the same prefix).
cleanup() {
	rm -rf "$T"
	local d
	for d in $(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts); do
		rm -f "$d/$PREFIX"*map_* 2>/dev/null || true
	done
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; exit 1; }

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
