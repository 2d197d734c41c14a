#!/usr/bin/env bash
# Every tool answers --version with its name and the project's version,
# exit 0, before any EAL argument is looked at.
#   versions.sh VERSION TOOL...
set -uo pipefail
want=$1
shift
n=0
for tool in "$@"; do
	name=$(basename "$tool")
	out=$("$tool" --version 2>&1) || { echo "FAIL: $name --version exited $?: $out"; exit 1; }
	[ "$out" = "$name $want" ] || { echo "FAIL: $name --version said '$out', want '$name $want'"; exit 1; }
	n=$((n + 1))
done
echo "PASS: $n tools say their version ($want)"
