#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# each.sh JOBS PREFIX TEST...: run each TEST, JOBS at a time, and print
# each one's output whole, after a "# TEST" line and before a
# "# NAME: SECONDS s" one, in the order given; exit 1 when any TEST
# failed.  A TEST ending in .sh runs with sh; any other
# runs after PREFIX (a command such as valgrind with its options, or
# empty), which the scripts do not get: they start pmaps as $PMAPS.
#
# Two at a time on CI's two cores: each test runs on one CPU, has its own
# scratch directory, and passes on a machine busy on every CPU (make
# check-busy).
set -u
jobs=$1 prefix=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
trap 'exit 1' HUP INT TERM

# Two lines per test, its number and its path, so that no name is split.
i=0
for t in "$@"; do
	i=$((i + 1))
	printf '%s\n%s\n' "$i" "$t"
done | xargs -d '\n' -n 2 -P "$jobs" sh -c '
	start=$(date +%s)
	case $3 in
	*.sh) sh "$3" ;;
	*) $1 "$3" ;;
	esac > "$0/$2.log" 2>&1
	echo $? > "$0/$2.rc"
	echo $(($(date +%s) - start)) > "$0/$2.time"' "$out" "$prefix"

rc=0 i=0
for t in "$@"; do
	i=$((i + 1))
	echo "# $t"
	cat "$out/$i.log"
	echo "# ${t##*/}: $(cat "$out/$i.time" 2>/dev/null) s"
	[ "$(cat "$out/$i.rc" 2>/dev/null)" = 0 ] || rc=1
done
exit $rc
