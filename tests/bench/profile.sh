#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-profile: where the in-kernel readers spend their time on the
# bench rows that miss their targets (issue 31), beside smaps on the same
# workload: the top entries of perf's cpu-clock profile of the bench
# process in the guest, one workload and reader at a time (tests/qemu/init,
# mode profile).  The readers are the direct ones, read(2) in the bench
# process: the module's file with and without its text (module-read,
# module-walk), /proc/PID/pmaps on the patched kernel (kernel-read) and
# smaps (smaps-read).  Not a test.
#
#   tests/bench/profile.sh [KERNEL...]
#
# KERNEL as for tests/qemu/run.sh; default: the generic Debian 6.12 and
# 7.x kernels and the patched kernel built for it: plain's config plus
# perf events (tests/kernel/build.sh profile).
# WORKLOADS (default dense,thp256,scattered) and READERS (default
# module-read,kernel-read,smaps-read) choose.  Prints entries
# of at least 1 % and leaves the records in $BUILD/bench/profile.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
results=$build/bench/profile
workloads=${WORKLOADS:-dense,thp256,scattered}
readers=${READERS:-module-read,kernel-read,smaps-read}

die() { echo "bench-profile: $*" >&2; exit 1; }
"$top/tests/deps.sh" || die "tests/deps.sh failed"
if [ $# -gt 0 ]; then
	kernels=$*
else
	kernels="$("$top/tests/kernels.sh" | grep -v -- -rt- | grep -v '^6\.1\.')
$("$top/tests/kernel/build.sh" profile | awk '{ print $1 ":" $2 ":" $3 }')" ||
		die "building the patched kernel failed"
fi

rm -rf "$results"
mkdir -p "$results"
status=0
. "$top/tests/bench/guest.sh"
for spec in $kernels; do
	out=$results/profile-${spec%%:*}.tsv
	BENCH_ARGS=$workloads PROFILE=$readers bench_guest bench-profile "$spec" "$out" ||
		status=1
	awk -F '\t' '
	$1 == "kernel" { printf "== kernel %s\n", $2 }
	$1 == "profile" {
		if ($2 != w || $3 != r)
			printf "%s, %s:\n", $2, $3
		w = $2
		r = $3
		printf "  %6.2f %%  %s\n", $4, $5
	}' "$out"
done
echo "bench-profile: records in $results"
exit $status
