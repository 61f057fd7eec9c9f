#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole check of patches/: series checks, then for each config
# (tests/kernel/build.sh says what each has, and which are the default)
# apply both series, build, boot, and run the module's suites against
# both the module and /proc/PID/pmaps, the pmaps series' selftest, the
# PAGEMAP_SCAN series' selftest (pagemap_ioctl), and the byte-for-byte
# comparison of the two texts.  make check boots nopagemapcount (no
# per-page mapcounts, mTHP, kmemleak); make check-all and kernel-check
# boot plain, debug and numa, which between them have the classic LRU and
# MGLRU, per-page mapcounts and none, kmemleak, KASAN, lockdep and two
# NUMA nodes.  OMIT_SUITES (tests/qemu/run.sh) is passed on.
#
#   tests/kernel/run.sh [CONFIG...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
configs=${*:-$("$top/tests/kernel/build.sh" --defaults)}

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
# The race stress runs 60 s on the debug kernel, where KASAN and lockdep
# make a race show, and STRESS_SECONDS (default 20) on the others.  The
# numa kernel boots with two nodes, so that numa_test's node tests run
# against /proc/PID/pmaps_numa too.  The limits are three times what the
# slowest of these guests took (Documentation/reliability.rst, "Time
# limits"): kernel:/bin/resources 139 s on nopagemapcount; on the debug
# kernel 476 s (300 s of them the latency test's alarm, since cut by its
# phase budget), the debug guest 1156 s, in the make check-all of f5f71c3.
for spec in $(echo "$kernels" | awk 'NF == 3 { print $1 ":" $2 ":" $3 }'); do
	seconds=${STRESS_SECONDS:-20} numa=0 limit=1200 suite_limit=600
	case $spec in
	patched-debug:*) seconds=60 limit=3600 suite_limit=1200 ;;
	patched-numa:*) numa=1 ;;
	esac
	SUITE_LIMIT=$suite_limit QEMU_TIMEOUT=$limit QEMU_NUMA=$numa STRESS_SECONDS=$seconds \
		SELFTEST="$sel/proc-pid-pmaps $sel/pagemap_ioctl" \
		"$top/tests/qemu/run.sh" --mode patched "$spec" || status=1
done
exit $status
