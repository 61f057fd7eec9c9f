#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole check of patches/: series checks, then for each config (plain,
# debug, nopagemapcount) apply, build, boot, and run the module's suites
# against both the module and /proc/PID/pmaps, the series' selftest, and
# the byte-for-byte comparison of the two texts.
#
#   tests/kernel/run.sh [plain] [debug] [nopagemapcount]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
configs=${*:-plain debug nopagemapcount}

"$top/tests/kernel/check-series.sh"
status=$?

# One build per config: a config that fails to build does not cost the
# others their run.
kernels=
for cfg in $configs; do
	kernel=$("$top/tests/kernel/build.sh" "$cfg") || {
		echo "not ok - tests/kernel/build.sh $cfg failed"
		status=1
		continue
	}
	kernels="$kernels $kernel
"
done
[ -n "$kernels" ] || exit 1
# The selftest, built static from the patched tree for the busybox guest.
src=$build/linux-7
mkdir -p "$build/selftest"
gcc -static -Wall -O2 -Wno-unused-function -I"$src/tools/testing/selftests" \
	-o "$build/selftest/proc-pid-pmaps" \
	"$src/tools/testing/selftests/proc/proc-pid-pmaps.c" -pthread || {
	echo "not ok - building proc-pid-pmaps failed"
	exit 1
}
# The race stress runs 60 s on the debug kernel, as on the Debian ones;
# the others add little to that and get 20 s.  The nopagemapcount kernel
# has NUMA (numa.config) and boots with two nodes, so that numa_test's
# node tests run against /proc/PID/pmaps_numa too.
for spec in $(echo "$kernels" | awk 'NF == 3 { print $1 ":" $2 ":" $3 }'); do
	seconds=20 numa=0
	case $spec in
	patched-debug:*) seconds=60 ;;
	patched-nopagemapcount:*) numa=1 ;;
	esac
	QEMU_NUMA=$numa STRESS_SECONDS=$seconds SELFTEST=$build/selftest/proc-pid-pmaps \
		"$top/tests/qemu/run.sh" --mode patched "$spec" || status=1
done
exit $status
