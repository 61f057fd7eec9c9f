#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: every reader on every workload, side by side in one guest
# run per kernel, as ratios (tests/guest/bench.c has the workloads and
# readers), then the userspace throughput (tests/bench/userspace.sh).
# Not a test: it prints numbers and whether each target holds.
#
#   tests/bench/run.sh [--smoke] [KERNEL...]
#
# KERNEL as for tests/qemu/run.sh; default: the generic Debian 6.1, 6.12
# and 7.x kernels and the plain patched kernel (built by tests/kernel/build.sh,
# ~4 min the first time).  --smoke runs 64 times smaller workloads once on
# the newest generic Debian kernel (7.x) and only checks that the bench
# works (make check runs it); its ratios mean little.  Results go to $BUILD/bench/results: records-*.tsv
# (the guest's records), table.txt, scaling.svg and userspace.txt.
# Exit status 0 when every guest finished and every reader ran.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
results=$build/bench/results
smoke=
if [ "${1:-}" = --smoke ]; then
	smoke=1
	shift
fi

die() { echo "bench: $*" >&2; exit 1; }
"$top/tests/deps.sh" || die "tests/deps.sh failed"
pt=$("$top/tests/bench/page-types.sh" --static) || die "no page-types"

# The bench times the generic kernels, 6.1, 6.12 and 7.x, where the
# module reads under per-VMA locks (the smoke run only 7.x); make check
# runs the suites on the rt ones.
generic=$("$top/tests/kernels.sh" | grep -v -- -rt-) ||
	die "tests/kernels.sh failed"
if [ $# -gt 0 ]; then
	kernels=$*
elif [ -n "$smoke" ]; then
	kernels=$(echo "$generic" | tail -n 1)
else
	kernels="$generic $("$top/tests/kernel/build.sh" plain |
		awk '{ print $1 ":" $2 ":" $3 }')" || die "building the patched kernel failed"
fi

rm -rf "$results"
mkdir -p "$results"
status=0
records=
. "$top/tests/bench/guest.sh"
for spec in $kernels; do
	out=$results/records-${spec%%:*}.tsv
	records="$records $out"
	BENCH_ARGS=${smoke:+smoke} GUEST_BINS=$pt bench_guest bench "$spec" "$out" ||
		status=1
done

if [ -z "$smoke" ]; then
	"$top/tests/bench/userspace.sh" > "$results/userspace.txt" ||
		status=1
	cat "$results/userspace.txt"
	echo
fi
# shellcheck disable=SC2086
awk -f "$top/tests/bench/table.awk" -v smoke="$smoke" $records \
	$( [ -z "$smoke" ] && echo "$results/userspace.txt") \
	> "$results/table.txt" || status=1
# shellcheck disable=SC2086
awk -f "$top/tests/bench/plot.awk" $records > "$results/scaling.svg" ||
	status=1
cat "$results/table.txt"
echo "bench: results in $results (table.txt, scaling.svg, records-*.tsv)"
# The smoke run checks the bench's own output is whole.
grep -q '^target dense' "$results/table.txt" &&
	grep -q '<polyline' "$results/scaling.svg" || {
	echo "bench: the table or the plot is incomplete" >&2
	status=1
}
exit $status
