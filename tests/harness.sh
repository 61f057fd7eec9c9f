# SPDX-License-Identifier: GPL-2.0
#
# How make check counts, sourced by tests/check.sh and by the harness's
# self-test (tests/selftest/test_harness.sh), which must judge the same
# code.  Needs $top and $build.  Each suite prints TAP; its ok / not ok
# lines are what is counted, and a suite is also failed, once per fault,
# when it
#   - runs past its time limit (it is killed, with all it started: nothing
#     may hang make check),
#   - exits non-zero without a failing test line,
#   - has a TAP stream that disagrees with its plan (tests/tap-plan.awk),
#   - reports no result at all,
#   - never ran (the lane it was in ended before it).
# A whole-suite "1..0 # SKIP" counts as one skip.
#
# Steps run one after another (run, check1), or in lanes beside each
# other (lane, step, step1), each lane in the background: a step's
# output goes to $build/suite-NAME.log, and how it ended to
# $build/suite-NAME.done, until judged NAME prints and counts it.  The
# results are printed in the order the main lane judges them, whatever
# order the steps ended in.

passed=0 failed=0 skipped=0 reruns=0
# "NAME=SECONDS" and "NAME=CPU-SECONDS" of each step judged so far, for
# the closing lines: CI shows the head and the tail of a log, and where
# the minutes went must be in them.
times= cpu_times=
began=$(date +%s)
# The background lanes' process ids (lane), for await.
lanes=
# Lanes wait for a step's .done file (await): one left in $build by an
# earlier run would let a lane go on before the step it waits for had
# run (a make check-all after a make check in the same build/ booted its
# guests before the roots step had put their kernels in the trixie root).
rm -f "$build"/suite-*.done

# fail TEXT: a fault of the harness's own finding, one "not ok" line.
fail() {
	echo "not ok - $1"
	failed=$((failed + 1))
}

# tally LOG: its results added to the counts (tests/tap-count.awk)
tally() {
	set -- $(awk -v main=1 -f "$top/tests/tap-count.awk" "$1")
	passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
	reruns=$((reruns + $5))
}

# step NAME LIMIT COMMAND...: run COMMAND, killed after LIMIT seconds
# (timeout signals its whole process group), its output in
# $build/suite-NAME.log; $build/suite-NAME.done then says
# "tap STATUS LIMIT START END CPU", CPU being the user and system seconds
# of all it waited for.  Says, as it starts, how far into the run it is,
# so that a run killed from outside still says it.
step() {
	step_as tap "$@"
}

# step1 NAME LIMIT COMMAND...: step, for a single check that prints no
# TAP: judged as one result, ok when COMMAND exits 0.
step1() {
	step_as one "$@"
}

step_as() {
	kind=$1 name=$2 limit=$3
	shift 3
	rm -f "$build/suite-$name.done"
	start=$(date +%s)
	echo "# $name starts $((start - began)) s into the run"
	# times' second line: the user and system time of the children
	# the shell waited for, "0m1.230000s 0m0.040000s" (not in a
	# pipe: a forked shell's children have no time yet).
	sh -c 'timeout -k 30 "$@"; status=$?; times >&3; exit $status' \
		step "$limit" "$@" > "$build/suite-$name.log" 2>&1 \
		3> "$build/suite-$name.times"
	status=$?
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } printf "%.0f", t }' \
		"$build/suite-$name.times")
	echo "$kind $status $limit $start $(date +%s) ${cpu:-0}" > "$build/suite-$name.done"
}

# lane FUNCTION: run FUNCTION, whose steps go one after another, in the
# background, beside the lanes after it and the main one.
lane() {
	"$1" &
	lanes="$lanes $!"
}

# await NAME: wait until step NAME has ended, or no lane that could run it
# is left; false then.  Every step is bounded, so the wait is too.
await() {
	while [ ! -f "$build/suite-$1.done" ]; do
		alive=
		for pid in $lanes; do
			kill -0 "$pid" 2> /dev/null && alive=1
		done
		if [ -z "$alive" ]; then
			[ -f "$build/suite-$1.done" ]
			return
		fi
		sleep 1
	done
}

# judged NAME: wait for step NAME, then print its log and count it, with
# the faults the harness finds itself.
judged() {
	name=$1
	out=$build/suite-$name.log
	echo "== $name"
	if ! await "$name" ||
		! read -r kind status limit start end cpu < "$build/suite-$name.done"; then
		fail "$name: never ran: its lane ended before it"
		return
	fi
	times="$times $name=$((end - start))"
	cpu_times="$cpu_times $name=$cpu"
	echo "# $name: $((end - start)) s, $cpu s of CPU, limit $limit s"
	if [ "$kind" = one ]; then
		if [ "$status" -eq 0 ]; then
			echo "ok 1 $name"
			passed=$((passed + 1))
		else
			cat "$out"
			echo "not ok 1 $name"
			failed=$((failed + 1))
		fi
		return
	fi
	# A suite killed midway breaks its plan: that is the one fault below.
	[ "$status" -eq 124 ] || [ "$status" -eq 137 ] ||
		awk -v suite="$name" -f "$top/tests/tap-plan.awk" "$out" >> "$out"
	cat "$out"
	tally "$out"
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		fail "$name: killed after its limit of $limit s"
	elif [ "$status" -ne 0 ] && ! grep -qE '^not ok( |$)' "$out"; then
		fail "$name: exited $status"
	fi
	grep -qE '^(not )?ok( |$)|^1\.\.0 # SKIP' "$out" ||
		fail "$name: no test result at all"
}

# run NAME LIMIT COMMAND...: a suite that prints TAP, in the main lane.
run() {
	step "$@"
	judged "$1"
}

# check1 NAME LIMIT COMMAND...: a single check, in the main lane.
check1() {
	step1 "$@"
	judged "$1"
}

# totals: the closing lines; CI reads the last, which must be exactly
# "N passed, N failed".  A run in which nothing passed tested nothing.
totals() {
	[ "$passed" -gt 0 ] || fail "no test passed: the run tested nothing"
	echo "# seconds per step:$times"
	echo "# CPU seconds per step:$cpu_times"
	echo "# $(($(date +%s) - began)) s in all"
	echo "# $reruns guests booted a second time: QEMU exited or the console stopped, with no kernel problem shown (each is a \"# rerun:\" line above)"
	echo "$skipped skipped"
	echo "$passed passed, $failed failed"
}
