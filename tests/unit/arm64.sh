#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pmaps' unit suite for arm64 (issue 33), under qemu-user: userspace and
# the tests here cross-built statically in the trixie root
# (gcc-14-aarch64-linux-gnu and the :arm64 libraries of
# tests/trixie-root.sh arm64), then run on this host, every test binary
# and every pmaps the shell tests start by trixie's static qemu-aarch64
# (ROOT/opt/arm64/qemu-aarch64).  The shell tests' own target programs
# are built by the host's cc and run natively: the arm64 pmaps reads them
# through this kernel's /proc as it reads any process.
#
# What qemu-user does not emulate is skipped, each test naming it, as a
# probe of the test's own target finds it (tap.sh's qemu_user_refuses,
# qemu_user.h): perf_event_open (pmaps record), process_vm_readv (pmaps
# heap) and move_pages (--numa's node), which qemu answers ENOSYS itself;
# the PAGEMAP_SCAN and PROCMAP_QUERY ioctls, ENOTTY; and a test's own
# /proc/self/maps, which qemu writes, its addresses not padded to 8
# digits.  MADV_HUGEPAGE and MADV_NOHUGEPAGE are EINVAL: the THP half of
# test_hugepage is not checked, and small pages are taken as assured
# only where no THP size is "always".  Natively none of these skip.
# The output ends with the skips by reason and the counts.
# Measured with qemu 11.1.3 on a 4 KiB x86-64 host, 6.18 kernel: 833
# passed, 0 failed, 65 skipped (33 process_vm_readv, 19 perf_event_open,
# 5 PAGEMAP_SCAN, 4 /proc/self/maps, 3 move_pages, 1 PROCMAP_QUERY), in
# 2 to 6 minutes with the build on 2 shared cores.
#
#   tests/unit/arm64.sh [TEST_OR_SCRIPT...]      (make check-unit-arm64)
#
# With no arguments, every test_*.c binary and every test_*.sh; else only
# those named (paths, or names as in tests/unit).  The tree is bind-mounted
# at its own path inside the root, in a private mount namespace, so that
# the paths compiled in (FIXTURES) are the same inside and out.  Output in
# BUILD (default build)/unit-arm64.  Exit status 0 when all passed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
out=$build/unit-arm64
root=$("$top/tests/trixie-root.sh" arm64 | head -n 1)
qemu=$root/opt/arm64/qemu-aarch64
[ -x "$qemu" ] || { echo "arm64.sh: $qemu missing" >&2; exit 1; }

# The build, inside the root, with the tree at its own path.
mkdir -p "$root$top" "$out"
unshare --mount --propagation private sh -c '
	mount -t proc proc "$0/proc" &&
	mount --bind "$1" "$0$1" &&
	exec chroot "$0" env \
		PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		make -s -C "$1/tests/unit" BUILD="$2" \
		CC=aarch64-linux-gnu-gcc-14 LDFLAGS=-static all "$2/userspace/libpmaps.a"
' "$root" "$top" "$out" || { echo "arm64.sh: the arm64 build failed" >&2; exit 1; }

printf '#!/bin/sh\nexec %s %s "$@"\n' "$qemu" "$out/userspace/pmaps" > "$out/pmaps-qemu"
chmod +x "$out/pmaps-qemu"

tests= scripts=
if [ $# -eq 0 ]; then
	for t in "$here"/test_*.c; do
		tests="$tests $out/$(basename "$t" .c)"
	done
	scripts=$(ls "$here"/test_*.sh)
else
	for a; do
		name=$(basename "$a")
		case $name in
		*.sh) scripts="$scripts $here/$name" ;;
		*) tests="$tests $out/${name%.c}" ;;
		esac
	done
fi
# Every result also goes to $log, counted at the end; a run that exits
# non-zero is named in $failed_runs (a crash that printed no "not ok").
log=$out/unit-arm64.log failed_runs=$out/failed-runs
: > "$log"
: > "$failed_runs"
for t in $tests; do
	echo "# $t (qemu-aarch64)"
	"$qemu" "$t" 2>&1 || echo "$t" >> "$failed_runs"
done | tee -a "$log"
for s in $scripts; do
	echo "# $s, pmaps under qemu-aarch64"
	PMAPS=$out/pmaps-qemu CC="${CC:-cc}" sh "$s" 2>&1 ||
		echo "$s" >> "$failed_runs"
done | tee -a "$log"
echo "# skipped, by reason:"
sed -n 's/^ok [0-9]* .* # SKIP /# /p' "$log" | sort | uniq -c | sort -rn
while read -r f; do
	echo "# exited non-zero: $f"
done < "$failed_runs"
set -- $(awk -v main=1 -f "$top/tests/tap-count.awk" "$log")
echo "arm64 unit tests: $1 passed, $2 failed, $3 skipped"
[ "$2" = 0 ] && [ ! -s "$failed_runs" ]
