#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest suites on Debian's arm64 7.x kernels (tests/kernels.sh arm64),
# in qemu-system-aarch64, as make check and make check-arm64 run them:
# every suite on both, the race stress for its full STRESS_SECONDS
# (default 60) on the generic kernel and for 5 s on the 16 KiB one, whose
# page size, not its locking, is what differs.  Sets up the arm64
# kernels and tools in the trixie root first (tests/trixie-root.sh
# arm64).  Ends with tests/qemu/run.sh's counts for each kernel.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$top/tests/trixie-root.sh" arm64 >/dev/null; then
	echo "not ok - tests/trixie-root.sh arm64 failed"
	exit 1
fi
kernels=$("$top/tests/kernels.sh" arm64) || {
	echo "not ok - tests/kernels.sh arm64 found no arm64 kernels"
	exit 1
}
status=0
for spec in $kernels; do
	seconds=${STRESS_SECONDS:-60}
	case ${spec%%:*} in
	*-arm64-16k) seconds=5 ;;
	esac
	STRESS_SECONDS=$seconds "$top/tests/qemu/run.sh" "$spec" || status=1
done
exit $status
