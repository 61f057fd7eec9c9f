#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole check of patches/: series checks, then for each config (plain,
# debug) apply, build, boot, and run the module's suites against both the
# module and /proc/PID/pmaps, the series' selftest, and the byte-for-byte
# comparison of the two texts.
#
#   tests/kernel/run.sh [plain] [debug]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
configs=${*:-plain debug}

"$top/tests/kernel/check-series.sh"
status=$?

kernels=$("$top/tests/kernel/build.sh" $configs) || {
	echo "not ok - tests/kernel/build.sh failed"
	exit 1
}
# The selftest, built static from the patched tree for the busybox guest.
src=$build/linux-pmaps
mkdir -p "$build/selftest"
gcc -static -Wall -O2 -Wno-unused-function -I"$src/tools/testing/selftests" \
	-o "$build/selftest/proc-pid-pmaps" \
	"$src/tools/testing/selftests/proc/proc-pid-pmaps.c" -pthread || {
	echo "not ok - building proc-pid-pmaps failed"
	exit 1
}
# The race stress runs 60 s on the debug kernel, as on the Debian ones;
# the plain kernel adds little to that and gets 20 s.
for spec in $(echo "$kernels" | awk '{ print $1 ":" $2 ":" $3 }'); do
	seconds=60
	case $spec in patched-plain:*) seconds=20 ;; esac
	STRESS_SECONDS=$seconds SELFTEST=$build/selftest/proc-pid-pmaps \
		"$top/tests/qemu/run.sh" --mode patched "$spec" || status=1
done
exit $status
