#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-busy: the host suites (plain, ASan/UBSan, valgrind) with every
# CPU kept busy beside them by stress-ng --cpu, as on a loaded machine or a
# shared CI runner.  A test that passes only on an idle machine fails here.
# Not part of make check, which it would make about twice as long.  Ends
# with "N passed, N failed" over the three suites' TAP lines.  Issue 30
# asks for 20 rounds in a row: BUSY_RUNS=20 make check-busy.  A round of
# the three takes about 40 minutes here, 30 of them valgrind's;
# BUSY_BUILDS (default "run asan valgrind") picks fewer.
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
runs=${BUSY_RUNS:-1}
builds=${BUSY_BUILDS:-run asan valgrind}
for target in $builds; do
	case $target in
	run | asan | valgrind) ;;
	*) echo "busy.sh: BUSY_BUILDS: expected run, asan or valgrind, got $target" >&2
	   exit 2 ;;
	esac
done
# An hour a round at most: a run that is killed must not leave the load
# behind.
stress-ng --cpu "$cpus" --timeout $((3600 * runs)) --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT
trap 'exit 1' HUP INT TERM
echo "# busy.sh: stress-ng --cpu $cpus beside the host suites"

# BUSY_RUNS (default 1) rounds of the builds, in a row, each counted; a
# round that hangs is killed at the unit suites' own limits.
export PMAPS_CHECK=1
round=1
: > "$build/all.log"
while [ "$round" -le "$runs" ]; do
	for target in $builds; do
		# valgrind's suite took 30 minutes with every CPU busy
		limit=1800
		[ "$target" = valgrind ] && limit=5400
		start=$(date +%s)
		timeout -k 30 $limit make -s -C "$top/tests/unit" \
			BUILD="$build/unit" "$target" > "$build/$target.log" 2>&1
		status=$?
		echo "# round $round of $runs, $target: exit $status, $(($(date +%s) - start)) s"
		# A build that failed with no failed test (killed at its limit,
		# or broken) fails the round all the same.
		[ $status = 0 ] || grep -q '^not ok' "$build/$target.log" ||
			echo "not ok - busy.sh: round $round, $target: exit $status" >> "$build/$target.log"
		grep '^not ok' "$build/$target.log"
		cat "$build/$target.log" >> "$build/all.log"
	done
	round=$((round + 1))
done
set -- $(awk -v main=1 -f "$top/tests/tap-count.awk" "$build/all.log")
echo "$1 passed, $2 failed"
[ "$2" = 0 ]
