#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pmaps series on arm64 (issue 33): the patched tree cross-built for
# ARCH=arm64 (tests/kernel/build.sh arm64: plain's fragments +
# arm64.config, in the trixie root), the series' C files checked W=1,
# and the kernel booted in qemu-system-aarch64 -M virt -cpu max by
# tests/qemu/run.sh in mode patched, as tests/kernel/run.sh boots the x86
# kernels: the module (built W=1 against the same tree)
# and its suites, the suites against /proc/PID/pmaps, the two series'
# selftests (proc-pid-pmaps and pagemap_ioctl, cross-built static in the
# root) and compare.sh.  core.sh runs and skips, as on the x86 patched
# kernels: tinyconfig has no CONFIG_COREDUMP.  Not part of make check:
# one more kernel build costs minutes CI's budget does not have (make
# check-kernel-arm64).
#
#   tests/kernel/arm64.sh
#
# SUITES runs only those suites (comma-separated, tests/qemu/init), e.g.
# kernel:/bin/pmaps_test,/bin/proc-pid-pmaps.  Ends with qemu/run.sh's
# "qemu: N passed, N failed, N skipped, N retried" line.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
status=0

"$top/tests/trixie-root.sh" arm64 >/dev/null || {
	echo "not ok - tests/trixie-root.sh arm64 failed"
	exit 1
}
kernel=$("$top/tests/kernel/build.sh" arm64) || {
	echo "not ok - tests/kernel/build.sh arm64 failed"
	exit 1
}
# The series' C files, W=1 on a copy of the build directory (the kernel
# booted stays as built): the compiler in the root, which has no python3
# for W=1's kernel-doc check, so that runs here with the same arguments.
src=$build/linux-7
in_root() { PMAPS_BIND=$build "$top/tests/trixie-root.sh" run "$@"; }
files=$(git -C "$src" diff --name-only base HEAD -- '*.c' ':!tools' ':!Documentation')
w1=$build/kernel-arm64-w1
rm -rf "$w1"
cp -a "$(echo "$kernel" | awk '{ print $3 }')" "$w1"
objs=$(echo "$files" | sed 's/\.c$/.o/')
if in_root make -s -C "$src" O="$w1" -j"$(nproc)" W=1 PYTHON3=true $objs \
		> "$w1.log" 2>&1 &&
	(cd "$src" && PYTHONDONTWRITEBYTECODE=1 python3 tools/docs/kernel-doc \
		-none $files) >> "$w1.log" 2>&1 &&
	! grep -qiE 'warning|error' "$w1.log"; then
	echo "ok - the series builds W=1-clean for arm64:" $files
else
	sed 's/^/# /' "$w1.log"
	echo "not ok - the series does not build W=1-clean for arm64"
	status=1
fi
rm -rf "$w1"

# The selftests, static for the busybox guest, by the root's aarch64 gcc
# from the patched tree (bound at its own path), as tests/kernel/run.sh
# builds them for x86: proc-pid-pmaps, and pagemap_ioctl against the
# patched tree's arm64 uapi headers (PAGE_IS_YOUNG), built from its
# directory (it names files after __FILE__).
sel=$build/selftest-arm64
mm=$src/tools/testing/selftests/mm
mkdir -p "$sel"
in_root aarch64-linux-gnu-gcc-14 \
	-static -Wall -O2 -Wno-unused-function -I"$src/tools/testing/selftests" \
	-o "$sel/proc-pid-pmaps" \
	"$src/tools/testing/selftests/proc/proc-pid-pmaps.c" -pthread || {
	echo "not ok - building proc-pid-pmaps for arm64 failed"
	exit 1
}
{ in_root make -s -C "$src" O="$sel/headers" ARCH=arm64 \
	CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc-14 \
	HOSTCC=gcc-14 headers >/dev/null &&
	in_root sh -c 'cd "$0" && exec "$@"' "$mm" aarch64-linux-gnu-gcc-14 \
		-static -Wall -O2 -isystem "$sel/headers/usr/include" \
		-I"$src/tools/testing/selftests" -I"$src/tools/include" \
		-o "$sel/pagemap_ioctl" pagemap_ioctl.c vm_util.c \
		hugepage_settings.c -lm -pthread; } || {
	echo "not ok - building pagemap_ioctl for arm64 failed"
	exit 1
}
spec=$(echo "$kernel" | awk 'NF == 3 { print $1 ":" $2 ":" $3 }')
SUITES=${SUITES:-} QEMU_TIMEOUT=900 STRESS_SECONDS=20 \
	SELFTEST="$sel/proc-pid-pmaps $sel/pagemap_ioctl" \
	"$top/tests/qemu/run.sh" --mode patched "$spec" || status=1
exit $status
