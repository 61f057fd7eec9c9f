#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The harness's own counting (tests/harness.sh, tests/tap-plan.awk,
# tests/qemu/run.sh, tests/report.sh, tests/fuzz/run.sh) shown each fault it
# must count.  Guests are played by a stand-in for QEMU that writes a given
# serial transcript, so no kernel boots here; the module is still built,
# for the newest bookworm kernel, as run.sh always does.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/selftest/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build=$work/build
mkdir -p "$build"
. "$top/tests/harness.sh"
kernel=$("$top/tests/kernels.sh" bookworm | head -n 1)

# The stand-in: $work/guest/RESULT goes to the second serial port and
# $work/guest/CONSOLE to the first, whatever the kernel.
mkdir -p "$work/bin" "$work/guest"
cat > "$work/bin/fake-qemu" <<'FAKE'
#!/bin/sh
for arg; do
	case $prev in
	-serial) eval "port$((n = ${n:-0} + 1))=\${arg#file:}" ;;
	-append) printf '%s\n' "$arg" > "$FAKE_GUEST/CMDLINE" ;;
	esac
	prev=$arg
done
# FAIL_ONCE: the next boot dies as QEMU itself (exit 3, nothing
# printed); HANG: every boot prints nothing and never ends.
if [ -f "$FAKE_GUEST/FAIL_ONCE" ]; then
	rm -f "$FAKE_GUEST/FAIL_ONCE"
	exit 3
fi
[ -f "$FAKE_GUEST/HANG" ] && exec sleep 300
cat "$FAKE_GUEST/CONSOLE" > "$port1" 2>/dev/null
cat "$FAKE_GUEST/RESULT" > "$port2" 2>/dev/null
FAKE
chmod +x "$work/bin/fake-qemu"

# guest CONSOLE-TEXT RESULT-TEXT: what the next stand-in guest prints.
guest() {
	printf '%s\n' "$1" > "$work/guest/CONSOLE"
	printf '%s\n' "$2" > "$work/guest/RESULT"
}
# qemu_suite NAME KERNEL...: run.sh over the stand-in as make check runs it;
# the counters start from zero.
qemu_suite() {
	st_name=$1
	shift
	passed=0 failed=0 skipped=0 reruns=0
	QEMU=$work/bin/fake-qemu FAKE_GUEST=$work/guest \
		run "$st_name" 300 "$top/tests/qemu/run.sh" "$@" > "$work/$st_name.log"
}
good_suite='# suite /bin/pmaps_test
TAP version 13
1..2
ok 1 test_one
ok 2 test_two
# suite /bin/pmaps_test exit 0'

# Control: a clean guest passes, so the faults below are what fail.
guest "[    0.0] Linux version" "$good_suite
pmaps-guest: done"
qemu_suite clean "$kernel"
[ "$passed" = 2 ] && [ "$failed" = 0 ] && echo "ok" > "$work/clean.verdict"
caught clean_guest_passes "$work/clean.verdict" '^ok$'

guest "[    1.0] WARNING: CPU: 1 PID: 7 at mm/memory.c:1 zap+0x1" "$good_suite
pmaps-guest: done"
qemu_suite warning "$kernel"
caught console_warning_is_a_failure "$work/warning.log" \
	"^not ok - $kernel: the console shows a kernel problem"

# Two faults on two kernels are two failures, each named.
guest "[    0.0] Linux version" "$good_suite"
qemu_suite two_faults "$kernel" "$kernel"
[ "$failed" = 2 ] && echo "failed $failed" >> "$work/two_faults.log"
caught each_guest_fault_counts "$work/two_faults.log" '^failed 2$'
caught no_closing_token_names_kernel "$work/two_faults.log" \
	"^not ok - $kernel: the guest did not finish"

# A guest that died of the machine boots once more, and the rerun is
# said and counted; one that failed a test is not rerun (two_faults
# above); one whose console stays quiet is stopped, rerun once, then
# failed.
guest "[    0.0] Linux version" "$good_suite
pmaps-guest: done"
touch "$work/guest/FAIL_ONCE"
qemu_suite rerun "$kernel"
echo "passed $passed failed $failed reruns $reruns" >> "$work/rerun.log"
caught machine_death_is_rerun "$work/rerun.log" \
	"^# rerun: $kernel: the guest died of the machine, not of a test \\(QEMU exited with status 3\\)"
caught rerun_is_counted_and_passes "$work/rerun.log" '^passed 2 failed 0 reruns 1$'
grep -q '^# rerun:' "$work/two_faults.log" || echo "no rerun" > "$work/two_faults.rerun"
caught failed_guest_is_not_rerun "$work/two_faults.rerun" '^no rerun$'
touch "$work/guest/HANG"
QEMU_STALL=3 qemu_suite stall "$kernel"
rm -f "$work/guest/HANG"
echo "failed $failed reruns $reruns" >> "$work/stall.log"
caught quiet_console_is_stopped_and_rerun_once "$work/stall.log" \
	"^not ok - $kernel: the guest did not finish \\(no closing token; its console stopped for [0-9]+ s\\)"
caught quiet_console_counts_one_rerun "$work/stall.log" '^failed 1 reruns 1$'

# OMIT_SUITES tells a guest to leave a suite out only where its glob
# matches the kernel's name (tests/qemu/init says so in the TAP).
guest "[    0.0] Linux version" "$good_suite
pmaps-guest: done"
export OMIT_SUITES="${kernel%-*}-*:/bin/resources no-such-kernel:/bin/stress"
qemu_suite omit "$kernel"
unset OMIT_SUITES
grep -o ' pmaps\.omit=[^ ]*' "$work/guest/CMDLINE" > "$work/omit.cmdline"
caught omit_names_only_the_matching_kernels_suites "$work/omit.cmdline" \
	'^ pmaps\.omit=/bin/resources$'

guest "[    0.0] Linux version" "# suite /bin/oracle
TAP version 13
1..5
ok 1 test_a
ok 2 test_b
# suite /bin/oracle exit 0
pmaps-guest: done"
qemu_suite early "$kernel"
caught suite_that_stops_early_fails "$work/early.log" \
	'^not ok - early: suite /bin/oracle: plan 1\.\.5, 2 results'

guest "" "# suite /lifecycle.sh
TAP version 13
1..1
not ok 1 test_unload
# suite /lifecycle.sh exit 1
pmaps-guest: done"
qemu_suite named "$kernel"
caught guest_failure_names_kernel_and_suite "$work/named.log" \
	"^not ok 1 test_unload \[$kernel /lifecycle.sh\]$"

# make demo: the demo's output, then what it showed and how to see it
# here; no test counts.  A demo that showed no process fails.
demo_out='$ cat /proc/pmaps_ext/42
$ pmaps --summary 42
TOTAL 10 pages'
guest "[    0.0] Linux version" "$demo_out
pmaps-guest: done"
QEMU=$work/bin/fake-qemu FAKE_GUEST=$work/guest \
	timeout -k 10 300 "$top/tests/qemu/run.sh" --mode demo "$kernel" > "$work/demo.log" 2>&1
echo "status $?" >> "$work/demo.log"
grep -q 'passed' "$work/demo.log" || echo "no counts" >> "$work/demo.log"
caught demo_ends_with_how_to_see_it_here "$work/demo.log" \
	'^demo: The same on this machine: sudo make load'
caught demo_prints_no_test_counts "$work/demo.log" '^no counts$'
caught demo_passes "$work/demo.log" '^status 0$'
guest "[    0.0] Linux version" "start_demo: the demo exited
pmaps-guest: done"
QEMU=$work/bin/fake-qemu FAKE_GUEST=$work/guest \
	timeout -k 10 300 "$top/tests/qemu/run.sh" --mode demo "$kernel" > "$work/demo_none.log" 2>&1
echo "status $?" >> "$work/demo_none.log"
caught demo_without_process_fails "$work/demo_none.log" \
	"^not ok - $kernel: the demo showed no process"
caught demo_without_process_status "$work/demo_none.log" '^status 1$'

st_copy "$work/tree"
if st_sed "$work/tree" tests/kernels.sh '/^set -eu$/a exit 0'; then
	(cd "$work/tree" && passed=0 failed=0 &&
		QEMU=$work/bin/fake-qemu run no_kernels 300 tests/qemu/run.sh) \
		> "$work/no_kernels.log"
fi
caught empty_kernel_list_fails "$work/no_kernels.log" \
	'^not ok - qemu: no kernel to boot'

st_copy "$work/tree"
if st_sed "$work/tree" module/main.c '$a static int pmaps_selftest_unused;'; then
	(cd "$work/tree" && passed=0 failed=0 &&
		QEMU=$work/bin/fake-qemu FAKE_GUEST=$work/guest \
		run no_build 300 tests/qemu/run.sh "$kernel") > "$work/no_build.log"
fi
caught module_warning_is_a_failure "$work/no_build.log" \
	"^not ok - $kernel: the module does not build"
printf 'qemu: kernel %s\n' "$kernel" > "$work/report-in.log"
grep '^not ok' "$work/no_build.log" >> "$work/report-in.log"
printf '== dkms\n0 skipped\n0 passed, 1 failed\n' >> "$work/report-in.log"
"$top/tests/report.sh" "$work/report-in.log" > "$work/report.rst" 2>&1
caught report_shows_failed_build "$work/report.rst" \
	"^$kernel .*MODULE DID NOT BUILD"

# The suite-level faults, on plain commands.
passed=0 failed=0
run hang 2 sh -c 'sleep 300 & sleep 300' > "$work/hang.log"
caught hung_suite_is_killed "$work/hang.log" \
	'^not ok - hang: killed after its limit of 2 s'
run silent 60 true > "$work/silent.log"
caught suite_without_results_fails "$work/silent.log" \
	'^not ok - silent: no test result at all'
# Steps in a lane beside the main one are judged as run judges a suite,
# when and in the order the main lane names them: beside_fail one pass
# and one fail, between one pass, beside_hang killed with no result (two
# faults, as run counts them), and a step whose lane ended before it
# never ran (one fault).
passed=0 failed=0 skipped=0
beside() {
	step beside_fail 60 printf 'TAP version 13\nok 1 a\nnot ok 2 b\n1..2\n'
	step beside_hang 2 sh -c 'sleep 300 & sleep 300'
}
{
	lane beside
	run between 60 printf 'TAP version 13\nok 1 c\n1..1\n'
	judged beside_fail
	judged beside_hang
	judged beside_never
	echo "passed $passed failed $failed"
} > "$work/beside.log"
caught beside_suite_counts_its_results "$work/beside.log" '^passed 2 failed 4$'
caught beside_suite_that_never_ran_fails "$work/beside.log" \
	'^not ok - beside_never: never ran: its lane ended before it$'
caught beside_suite_is_killed_at_its_limit "$work/beside.log" \
	'^not ok - beside_hang: killed after its limit of 2 s$'
# A .done an earlier run left for a step is not this run's: a lane's
# await waits for the step to run again (here, after a second).
printf 'one 1 60 0 0 0\n' > "$build/suite-stale.done"
. "$top/tests/harness.sh"
passed=0 failed=0 skipped=0
later() {
	sleep 1
	step1 stale 60 true
}
{
	lane later
	judged stale
	echo "passed $passed failed $failed"
} > "$work/stale.log"
caught earlier_runs_done_is_not_awaited "$work/stale.log" '^passed 1 failed 0$'
passed=0 failed=0 skipped=0
run skips 60 printf 'TAP version 13\nok 1 a # SKIP no THP\n1..1\n' > "$work/skips.log"
totals >> "$work/skips.log"
caught only_skips_is_a_failure "$work/skips.log" \
	'^not ok - no test passed: the run tested nothing'
caught skips_count_as_skips "$work/skips.log" '^1 skipped$'

printf '== unit-asan\nok 1 a\nok 2 b # SKIP x\nnot ok 3 c\n== fuzz\n1 skipped\n1 passed, 1 failed\n' \
	> "$work/report-skips.log"
"$top/tests/report.sh" "$work/report-skips.log" > "$work/report-skips.rst" 2>&1
caught report_counts_skips_as_skips "$work/report-skips.rst" \
	'unit-asan: 1 passed, 1 failed, 1 skipped'
caught report_says_when_nothing_was_fuzzed "$work/report-skips.rst" \
	'^- \(no fuzzing in this log\)$'

# No libFuzzer runtime, even after the install: a failure, not a pass or
# a silent skip.  clang, clang-14 and apt-get are stand-ins that fail or
# do nothing.
mkdir -p "$work/nofuzz"
for tool in clang clang-14; do
	printf '#!/bin/sh\nexit 1\n' > "$work/nofuzz/$tool"
done
printf '#!/bin/sh\nexit 0\n' > "$work/nofuzz/apt-get"
chmod +x "$work/nofuzz"/*
passed=0 failed=0
PATH=$work/nofuzz:$PATH BUILD=$work/build run nofuzz 120 \
	"$top/tests/fuzz/run.sh" > "$work/nofuzz.log"
caught missing_fuzzer_runtime_fails "$work/nofuzz.log" \
	'^not ok 1 fuzz: no libFuzzer runtime'

tap_done
