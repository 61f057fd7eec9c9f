#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest suites catch what they are there to catch.  Two guests on the
# oldest bookworm kernel (6.1), each from a copy of the tree broken on
# purpose (tests/selftest/lib.sh), each running only the suites that
# should notice (SUITES):
#
#   leak    the module's open takes a mount reference it never gives back,
#           core.sh's held target cannot start, the demo dies before it
#           prints its PID, and compare.sh hangs (with the suites' time
#           limit cut to 45 s, so that the wait stays short): lifecycle,
#           core.sh and pmaps_cli.sh fail the tests concerned, the hung
#           suite is timed out and the one after it still runs
#   noload  the module's init fails: the load stream and the suites fail
#           rather than skip
#
# BUILD (default build/) holds the copies.  Takes about 2 minutes.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/selftest/lib.sh"
work=${BUILD:-$top/build}/selftest-guest

rel=$("$top/tests/kernels.sh" bookworm | head -n 1)
if [ -z "$rel" ] || ! command -v qemu-system-x86_64 > /dev/null; then
	not_ok "guest_selftest_has_a_kernel_and_qemu"
	echo "# no bookworm 6.1 kernel or no QEMU: run tests/deps.sh"
	tap_done
	exit 1
fi
echo "# kernel $rel"
# Every failing line ends naming the kernel and the suite (tests/qemu/run.sh).
rel_re=$(printf '%s' "$rel" | sed 's/[.+]/\\&/g')

# boot NAME SUITES: the copy NAME's guest, its output in $work/NAME.log;
# QEMU comes from the trixie root (tests/qemu/run.sh), found under BUILD.
boot() {
	"$top/tests/trixie-root.sh" link "$work/$1/build"
	BUILD=$work/$1/build SUITES=$2 "$work/$1/tests/qemu/run.sh" "$rel" \
		> "$work/$1.log" 2>&1
	echo "# $1: $(tail -n 1 "$work/$1.log")"
}

# ---- leak ----

c=$work/leak
rm -f "$work/leak.log"
if st_copy "$c" &&
	st_sed "$c" module/seq.c 's/^\tpf->mm = mm;$/&\n\tpath_get(\&file->f_path);/' &&
	st_sed "$c" tests/guest/core.sh 's|"$TARGET" "$dir" hold|"$TARGET" "$dir/missing" hold|' &&
	st_sed "$c" tests/guest/demo.c 's/^\tprintf("%d\\n", getpid());$/\treturn 1;/' &&
	st_sed "$c" tests/guest/compare.sh 's/^tap_plan 6$/&\nsleep 100000/' &&
	st_sed "$c" tests/qemu/init 's/^suite_limit=480$/suite_limit=45/'; then
	boot leak /lifecycle.sh,/pmaps_cli.sh,/compare.sh,/core.sh
fi
log=$work/leak.log
caught lifecycle_unload_after_readers_catches_a_leaked_reference "$log" \
	"^not ok [0-9]+ test_unload_while_opening \\[$rel_re /lifecycle\.sh\\]$"
caught core_fails_gcore_when_its_target_never_started "$log" \
	"^not ok [0-9]+ gcore_memfd_shared \\[$rel_re /core\.sh\\]$"
caught pmaps_cli_gives_up_on_a_dead_demo "$log" \
	'^# /bin/demo died before writing its PID$'
caught pmaps_cli_fails_its_tests_without_the_demo "$log" \
	"^not ok [0-9]+ test_raw_is_module_text \\[$rel_re /pmaps_cli\.sh\\]$"
caught a_hung_suite_is_timed_out "$log" \
	"^not ok - suite /compare\.sh: timed out after 45 s \\[$rel_re /compare\.sh\\]$"
caught the_suite_after_a_hung_one_still_runs "$log" \
	'^ok [0-9]+ kernel_core_written$'

# ---- noload ----

c=$work/noload
rm -f "$work/noload.log"
if st_copy "$c" &&
	st_sed "$c" module/main.c 's/int err = pmaps_fs_register();/int err = -ENODEV;/'; then
	boot noload /bin/wss_test,/bin/oracle
fi
log=$work/noload.log
caught a_failed_insmod_is_a_failed_test "$log" \
	'^not ok 1 - suite load: insmod /pmaps_ext\.ko failed'
caught wss_fails_without_the_module "$log" \
	"^not ok [0-9]+ test_module_estimate \\[$rel_re /bin/wss_test\\]$"
caught oracle_fails_without_the_module "$log" \
	"^not ok [0-9]+ test_oracle_self \\[$rel_re /bin/oracle\\]$"

tap_done
