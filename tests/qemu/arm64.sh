#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The arm64 checks of make check and make check-arm64, on Debian's arm64
# 7.x kernels in the trixie root (tests/trixie-root.sh arm64 sets them up
# first):
#   - every guest suite on the generic and the 16 KiB-page kernel
#     (tests/kernels.sh arm64) in qemu-system-aarch64, but those
#     OMIT_SUITES leaves out (tests/qemu/run.sh); the race stress
#     for its full STRESS_SECONDS (default 60) on the generic kernel and
#     for 5 s on the 16 KiB one, whose page size, not its locking, is
#     what differs;
#   - numa_test again on the generic kernel, booted with two nodes;
#   - the module built W=1 for the rt-arm64 kernel, which is not booted.
# make check (PMAPS_MATRIX=check) runs the generic kernel's guest alone.
# Prints TAP and tests/qemu/run.sh's counts for each guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
troot=${BUILD:-$top/build}/trixie-root
if ! "$top/tests/trixie-root.sh" arm64 >/dev/null; then
	echo "not ok - tests/trixie-root.sh arm64 failed"
	exit 1
fi
kernels=$("$top/tests/kernels.sh" arm64) || {
	echo "not ok - tests/kernels.sh arm64 found no arm64 kernels"
	exit 1
}
status=0
# A guest suite's limit (tests/qemu/init: 480 s) is three times what it
# takes on amd64; TCG runs arm64 three to four times slower.  The limits
# are three times what the slowest suite and guest took
# (Documentation/reliability.rst, "Time limits"), with room: resources
# 426 s on 4 KiB pages in the make check-all of f5f71c3 (300 s of them the
# latency test's alarm, since cut by its phase budget), its guest 918 s.
suite_limit=${SUITE_LIMIT:-1200}
export QEMU_TIMEOUT=${QEMU_TIMEOUT:-3000}
for spec in $kernels; do
	seconds=${STRESS_SECONDS:-60} limit=$suite_limit
	case ${spec%%:*} in
	*-arm64-16k) seconds=5 ;;
	esac
	SUITE_LIMIT=$limit STRESS_SECONDS=$seconds "$top/tests/qemu/run.sh" "$spec" ||
		status=1
done
[ "${PMAPS_MATRIX:-all}" = check ] && exit $status
QEMU_NUMA=1 SUITES=/bin/numa_test \
	"$top/tests/qemu/run.sh" "$(echo "$kernels" | head -n 1)" || status=1

# The newest rt-arm64 headers that tests/trixie-root.sh arm64 installed.
rt=$(cd "$troot/usr/src" && ls -d linux-headers-7.*-rt-arm64 2>/dev/null |
	sort -V | tail -n 1)
name="the module builds W=1 for ${rt#linux-headers-} without a warning"
build=${BUILD:-$top/build}
. "$top/tests/qemu/lib.sh"
if [ -n "$rt" ] &&
	MODULE_HOOKS=n build_module rt-arm64 "$troot/usr/src/$rt" > "$build/module-rt-arm64.log" 2>&1; then
	echo "ok - $name"
else
	echo "not ok - $name${rt:+ (build.log below)}${rt:- (no rt-arm64 headers in the root)}"
	sed 's/^/# /' "$build/module-rt-arm64.log"
	status=1
fi
exit $status
