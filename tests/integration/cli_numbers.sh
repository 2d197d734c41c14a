#!/usr/bin/env bash
# Numbers on the command line are decimal only, read by hgw_cli.h. Options
# that C's base-0 parse used to read (hgw-chanprobe --iterations, --seed)
# refuse 0x10 and 010 in one line naming the option, exit 2, rather than
# take them for 16 and 8 (or 10); their decimal values are still taken.
#   cli_numbers.sh HGW_CHANPROBE
set -uo pipefail
probe=$1
n=0

# refused: exit 2, exactly one line, naming the option and the value. The
# stray argument after it keeps a wrongly accepted value from starting a
# probe: it then ends in "unexpected argument", which names no option.
refuse() {
	local opt=$1 val=$2 out rc
	out=$("$probe" "--$opt" "$val" stray 2>&1)
	rc=$?
	[ "$rc" -eq 2 ] || { echo "FAIL: --$opt $val exited $rc, want 2: $out"; exit 1; }
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
		{ echo "FAIL: --$opt $val: more than one line: $out"; exit 1; }
	case $out in
	*"--$opt"*"'$val'"*) ;;
	*) echo "FAIL: --$opt $val: the line does not name the option and value: $out"; exit 1 ;;
	esac
	n=$((n + 1))
}

for v in 0x10000 0X10000 010000 0x 00 +5000 -5000 " 5000" 5000x 1e6 999 100000001; do
	refuse iterations "$v"
done
for v in 0x10 010 00 0b1 +1 -1 " 1" 18446744073709551616; do
	refuse seed "$v"
done
for v in 0x6-29 6-0x1d 6-29x " 6-29" 6- -29 5-29 6-63 29-6 +6-29; do
	refuse bits "$v"
done

# taken: option parsing goes on to the stray argument, which alone is refused
for args in "--iterations 1000" "--iterations 100000000" "--seed 0" \
	    "--seed 18446744073709551615" "--seed 12345" "--bits 6-62" "--bits 29-29"; do
	# shellcheck disable=SC2086
	out=$("$probe" $args stray 2>&1)
	rc=$?
	[ "$rc" -eq 2 ] && [ "$out" = "hgw-chanprobe: unexpected argument 'stray'" ] ||
		{ echo "FAIL: '$args' was not taken (exit $rc): $out"; exit 1; }
	n=$((n + 1))
done
echo "PASS: $n command lines ($probe)"
