#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole check of patches/: series checks, then for each config (plain,
# debug) apply, build, boot, and run the module's suites against both the
# module and /proc/PID/pmaps, the series' selftest, and the byte-for-byte
# comparison of the two texts.  Then the nopagemapcount kernel, built
# from the unpatched newest 7.x tree (the series applies to 6.12 only),
# runs the module's suites alone (qemu/run.sh --mode check): its large
# folios keep no per-page mapcount.
#
#   tests/kernel/run.sh [plain] [debug] [nopagemapcount]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
configs=${*:-plain debug nopagemapcount}

"$top/tests/kernel/check-series.sh"
status=$?

# One build per config: a 7.x tree that cannot be had or built does not
# cost the patched kernels their run, nor the other way round.
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
# The selftest, built static from the patched tree for the busybox guest.
case $kernels in
*patched-*)
	src=$build/linux-pmaps
	mkdir -p "$build/selftest"
	gcc -static -Wall -O2 -Wno-unused-function -I"$src/tools/testing/selftests" \
		-o "$build/selftest/proc-pid-pmaps" \
		"$src/tools/testing/selftests/proc/proc-pid-pmaps.c" -pthread || {
		echo "not ok - building proc-pid-pmaps failed"
		exit 1
	}
	;;
esac
# The race stress runs 60 s on the debug kernel, as on the Debian ones;
# the plain and nopagemapcount kernels add little to that and get 20 s.
for spec in $(echo "$kernels" | awk 'NF == 3 { print $1 ":" $2 ":" $3 }'); do
	seconds=60
	case $spec in patched-plain:* | nopagemapcount:*) seconds=20 ;; esac
	case $spec in
	patched-*)
		STRESS_SECONDS=$seconds SELFTEST=$build/selftest/proc-pid-pmaps \
			"$top/tests/qemu/run.sh" --mode patched "$spec" || status=1
		;;
	*)
		STRESS_SECONDS=$seconds \
			"$top/tests/qemu/run.sh" --mode check "$spec" || status=1
		;;
	esac
done
exit $status
