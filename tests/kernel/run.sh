#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole check of patches/: series checks, then for each config (plain,
# debug, nopagemapcount) apply both series, build, boot, and run the
# module's suites against both the module and /proc/PID/pmaps, the pmaps
# series' selftest, the PAGEMAP_SCAN series' selftest (pagemap_ioctl), and
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
# The selftests, built static from the patched tree for the busybox guest:
# proc-pid-pmaps, and pagemap_ioctl against the patched tree's uapi
# headers (PAGE_IS_YOUNG), made with "make headers" in a directory of
# their own.
src=$build/linux-7
sel=$build/selftest
mkdir -p "$sel"
gcc -static -Wall -O2 -Wno-unused-function -I"$src/tools/testing/selftests" \
	-o "$sel/proc-pid-pmaps" \
	"$src/tools/testing/selftests/proc/proc-pid-pmaps.c" -pthread || {
	echo "not ok - building proc-pid-pmaps failed"
	exit 1
}
mm=$src/tools/testing/selftests/mm
# Built from its directory: the test creates files named __FILE__.tmp0,
# which must be a name relative to the guest's working directory.
{ make -s -C "$src" O="$sel/headers" headers >/dev/null &&
	(cd "$mm" && gcc -static -Wall -O2 -isystem "$sel/headers/usr/include" \
		-I"$src/tools/testing/selftests" -I"$src/tools/include" \
		-o "$sel/pagemap_ioctl" pagemap_ioctl.c vm_util.c \
		hugepage_settings.c -lm -pthread); } || {
	echo "not ok - building pagemap_ioctl failed"
	exit 1
}
# The race stress runs 60 s on the debug kernel, as on the Debian ones;
# the others add little to that and get 20 s.  The nopagemapcount kernel
# has NUMA (numa.config) and boots with two nodes, so that numa_test's
# node tests run against /proc/PID/pmaps_numa too.  The debug guest
# (KASAN, lockdep) ran 535 s of QEMU's default 600 in the last full run,
# before the lock-hold tests that write 256 and 512 MiB were added: it
# gets 900, and each suite 400 s instead of 240: kernel:/bin/resources
# took 222 s there with kmemleak on as well.
for spec in $(echo "$kernels" | awk 'NF == 3 { print $1 ":" $2 ":" $3 }'); do
	seconds=20 numa=0 limit=600 suite_limit=
	case $spec in
	patched-debug:*) seconds=60 limit=900 suite_limit=400 ;;
	patched-nopagemapcount:*) numa=1 ;;
	esac
	SUITE_LIMIT=$suite_limit QEMU_TIMEOUT=$limit QEMU_NUMA=$numa STRESS_SECONDS=$seconds \
		SELFTEST="$sel/proc-pid-pmaps $sel/pagemap_ioctl" \
		"$top/tests/qemu/run.sh" --mode patched "$spec" || status=1
done
exit $status
