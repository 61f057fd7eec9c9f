#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The use cases of the RFC's cover letter (patches/0000-cover-letter.patch),
# on a patched kernel: each question, the command that answers it with
# /proc/PID/pmaps or pmaps_numa, and what smaps and page-types (when in
# /bin) say of the same pages.  Prints each command after "$ " and its
# output, for pasting; not a test.  Run as root in the patched guest:
#
#   GUEST_BINS=/path/to/page-types SUITES=/usecases.sh \
#           tests/qemu/run.sh --mode patched patched-plain:IMAGE:KDIR
#
# page-types built static from the patched tree's tools/mm, as
# tests/bench/page-types.sh does from the 7.x tarball:
#
#   cd build/linux-7/tools && gcc -static -O2 -Wall -Ilib -Ilib/api \
#           -Iinclude -pthread -o page-types mm/page-types.c \
#           lib/api/fs/fs.c lib/api/debug.c
#
# The targets are tests/guest/usecase.c.
set -u

# show CMD: print and run CMD.
show() {
	echo "\$ $1"
	sh -c "$1" 2>&1
	echo
}

# start ARGS...: run usecase ARGS in the background, PID in $pid.
start() {
	out=/tmp/usecase.$$.$#
	usecase "$@" > "$out" &
	i=0
	while [ ! -s "$out" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(head -n 1 "$out")
	[ -n "$pid" ] || { echo "usecases.sh: usecase $* did not start"; exit 1; }
}

echo "# 1. A database operator: which pages of the buffer pool are dirty (D),"
echo "#    under writeback (W), dirty in the page table (P), or only there?"
start pool /tmp/pool
show "awk '/^[0-9a-f]+-/ { p = /\\/tmp\\/pool/ } p' /proc/$pid/pmaps"
show "awk -F'\\t' '/^[0-9a-f]+-/ { p = /\\/tmp\\/pool/; next } p && \$3 ~ /P/ && \$3 !~ /D/ { print \"pages\", \$1, \"to\", \$1 + \$2 - 1, \"dirty in the page table only\" }' /proc/$pid/pmaps"
show "awk '/^[0-9a-f]+-/ { p = /\\/tmp\\/pool/ } p' /proc/$pid/smaps | grep -E '^(Rss|Shared|Private|Referenced)'"
if command -v page-types > /dev/null; then
	start=$(awk -F- '/\/tmp\/pool/ { print $1; exit }' /proc/"$pid"/maps)
	# page-types takes page numbers: the address over 4096.
	vpn=$(printf '0x%x' $((0x$start / 4096)))
	show "page-types -p $pid -a $vpn+64 -l"
fi
kill "$pid"

echo "# 2. A JVM/GC engineer: which THPs of the heap are partly young since"
echo "#    the last scan (clear_refs), and which of their pages?"
start heap
show "awk -F'\\t' '/^[0-9a-f]+-/ { h = \$0; next } \$6 == 2048 { if (h) print h; h = \"\"; print }' /proc/$pid/pmaps_numa"
show "echo 1 > /proc/$pid/clear_refs"
kill -USR1 "$pid"
sleep 1
show "awk -F'\\t' '/^[0-9a-f]+-/ { h = \$0; next } \$6 == 2048 { if (h) print h; h = \"\"; print }' /proc/$pid/pmaps_numa"
show "awk -F'\\t' '!/^[0-9a-f]+-/ && \$6 == 2048 { f = \$1 - \$1 % 512; n[f] += \$2; if (\$3 ~ /^Y/) y[f] += \$2 } END { for (f in n) printf \"THP at page %.0f: %d of %d pages young\\n\", f, y[f], n[f] }' /proc/$pid/pmaps_numa"
show "grep -E '^(AnonHugePages|Referenced|Rss)' /proc/$pid/smaps_rollup"
if command -v page-types > /dev/null; then
	vpn=$(awk -F'\t' '!/^[0-9a-f]+-/ && $6 == 2048 { print $1; exit }' /proc/"$pid"/pmaps_numa)
	show "page-types -p $pid -a $vpn+512 -l"
fi
kill "$pid"
