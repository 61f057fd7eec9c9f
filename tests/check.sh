#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check: install what is missing, then run every suite and close with
# the totals line "N passed, N failed" (skips on the line before it).  Each suite prints TAP;
# its ok / not ok lines are what is counted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
mkdir -p "$build"
log=$build/check.log
: > "$log"

passed=0 failed=0 skipped=0
tally() {
	p=$(grep -E '^ok [0-9]+' "$1" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]+' "$1" | grep -c '# SKIP')
	f=$(grep -cE '^not ok( |$)' "$1")
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
}
# run NAME COMMAND...: a suite that prints TAP; a non-zero exit with no
# failing test line is still a failure.
run() {
	name=$1
	shift
	echo "== $name"
	out=$build/suite-$name.log
	"$@" > "$out" 2>&1
	status=$?
	cat "$out"
	tally "$out"
	if [ $status -ne 0 ] && ! grep -qE '^not ok( |$)' "$out"; then
		echo "not ok - $name exited $status"
		failed=$((failed + 1))
	fi
}
# A single check reported as one TAP line.
check1() {
	name=$1
	shift
	if "$@" > "$build/suite-$name.log" 2>&1; then
		echo "ok 1 $name"
		passed=$((passed + 1))
	else
		cat "$build/suite-$name.log"
		echo "not ok 1 $name"
		failed=$((failed + 1))
	fi
}

{
	if ! "$top/tests/deps.sh"; then
		echo "not ok - tests/deps.sh failed"
		failed=$((failed + 1))
	fi
	run unit make -s -C "$top/tests/unit" run
	run unit-asan make -s -C "$top/tests/unit" asan
	run unit-valgrind make -s -C "$top/tests/unit" valgrind
	check1 style_checkpatch "$top/tests/style.sh"
	run dkms "$top/tests/dkms.sh"
	run fuzz "$top/tests/fuzz/run.sh"
	run qemu "$top/tests/qemu/run.sh"
	run kernel "$top/tests/kernel/run.sh"
	# make bench is not judged here, but it must keep working.
	check1 bench_smoke "$top/tests/bench/run.sh" --smoke
	# CI reads the last line, which must be exactly "N passed, N failed".
	echo "$skipped skipped"
	echo "$passed passed, $failed failed"
} 2>&1 | tee "$log"
# Documentation/reliability.rst shows the last full run; nothing is printed,
# so the totals line stays the last one.
"$top/tests/report.sh" "$log" > "$build/reliability.rst" 2>/dev/null &&
	cp "$build/reliability.rst" "$top/Documentation/reliability.rst"
tail -n 1 "$log" | grep -qx '[0-9]* passed, 0 failed'
