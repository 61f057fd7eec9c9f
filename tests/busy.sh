#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-busy: the host suites (plain, ASan/UBSan, valgrind) with every
# CPU kept busy beside them by stress-ng --cpu, as on a loaded machine or a
# shared CI runner.  A test that passes only on an idle machine fails here.
# Not part of make check, which it would make about twice as long.  Ends
# with "N passed, N failed" over the three suites' TAP lines.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}/busy
export DEBIAN_FRONTEND=noninteractive

if ! command -v stress-ng >/dev/null 2>&1; then
	echo "# busy.sh: installing stress-ng"
	apt-get install -y -qq stress-ng >/dev/null 2>&1 || {
		apt-get update -qq && apt-get install -y -qq stress-ng >/dev/null
	} || { echo "busy.sh: cannot install stress-ng" >&2; exit 2; }
fi

mkdir -p "$build"
cpus=$(nproc)
# One hour at most: a run that is killed must not leave the load behind.
stress-ng --cpu "$cpus" --timeout 3600 --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT
trap 'exit 1' HUP INT TERM
echo "# busy.sh: stress-ng --cpu $cpus beside the host suites"

export PMAPS_CHECK=1
for target in run asan valgrind; do
	start=$(date +%s)
	make -s -C "$top/tests/unit" BUILD="$build/unit" "$target" \
		> "$build/$target.log" 2>&1
	echo "# $target: exit $?, $(($(date +%s) - start)) s"
	grep '^not ok' "$build/$target.log"
done
cat "$build"/run.log "$build"/asan.log "$build"/valgrind.log |
	awk '/^ok / { p++ } /^not ok / { f++ }
		END { printf "%d passed, %d failed\n", p, f; exit (f > 0) }'
