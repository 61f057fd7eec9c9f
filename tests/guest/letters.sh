#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Not a test, a measurement for the cover letter of patches/: how many
# resident pages of all processes show each flag letter, first as the
# kernel booted (the multi-gen LRU where it is enabled) and again after
# switching it off, each time after the same file was read twice through
# a file descriptor and is mapped by a process; then what uid 65534 is
# shown of a root-owned file it maps.  Run it as a suite:
#
#   SUITES=/letters.sh tests/qemu/run.sh KERNEL
#
# /proc/PID/pmaps where the kernel has it, else the module's file.
if [ -e /proc/self/pmaps ]; then
	path() { echo "/proc/$1/pmaps"; }
else
	path() { echo "/proc/pmaps_ext/$1"; }
fi

# Pages per letter over every process's range lines.
count() {
	for dir in /proc/[0-9]*; do
		cat "$(path "${dir#/proc/}")" 2>/dev/null
	done | awk -F'\t' -v what="$1" 'NF >= 4 {
		pages += $2
		for (i = 1; i <= 7; i++)
			if (substr($3, i, 1) != "_")
				n[i] += $2
	}
	END {
		printf "# %s: %d pages: Y %d, R %d, A %d, U %d, P %d, D %d, W %d\n",
			what, pages, n[1], n[2], n[3], n[4], n[5], n[6], n[7]
	}'
}

# The same file read twice through a descriptor, mapped by a sleeper
# (busybox maps itself), so that the classic LRU would activate it.
workload() {
	cat /bin/busybox > /dev/null
	cat /bin/busybox > /dev/null
	sleep 30 &
	sleep 1
}

. /lib.sh
. /tap.sh
echo "# source: $(path PID)"
gen=/sys/kernel/mm/lru_gen/enabled
if [ -f $gen ]; then
	echo "# lru_gen/enabled: $(cat $gen)"
	workload
	count "multi-gen LRU"
	echo n > $gen
	echo "# lru_gen/enabled after 'echo n': $(cat $gen)"
	echo 3 > /proc/sys/vm/drop_caches
	workload
	count "classic LRU"
else
	echo "# no multi-gen LRU in this kernel"
	workload
	count "classic LRU"
fi

# A reader without privileges, mapping a root-owned file it may not write.
have_nobody
su -s /bin/sh nobody -c "cat $(path self)" > /tmp/letters.nobody 2>&1
awk -F'\t' 'NF >= 4 { lines++; pages += $2 } NF >= 4 && /\?/ { q++; qp += $2 }
	END { printf "# uid 65534 reading its own cat: %d range lines, %d pages; %d lines, %d pages with ?\n", lines, pages, q, qp }' /tmp/letters.nobody
head -n 8 /tmp/letters.nobody | sed 's/^/# nobody: /'
ok "letters measured"
tap_done
