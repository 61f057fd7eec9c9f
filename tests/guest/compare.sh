#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a patched kernel: /proc/PID/pmaps and /proc/pmaps_ext/PID, and
# /proc/PID/pmaps_numa and /proc/pmaps_ext/numa/PID, must be
# byte-identical for quiescent processes (but for the vDSO's flags, which
# other processes change; see lib.sh), once the kernel's text reads the
# same before and after the module's.  TAP.
. /lib.sh
. /tap.sh

# read_text FILE OUT: FILE without the vDSO's ranges.  Read by slurp,
# which is not busybox, with no filter running: a busybox process mapping
# busybox's text during the read would change the mapcounts being read.
read_text() {
	/bin/slurp "$1" /tmp/raw.txt > "$2" 2>&1 &&
		without_vdso_ranges /tmp/raw.txt > "$2" 2>&1
}

# kernel_text FILE OUT: FILE as the module would print it
kernel_text() {
	read_text "$1" /tmp/kernel.tmp
	without_gate /tmp/kernel.tmp > "$2"
}

# compare NAME KERNEL-FILE MODULE-FILE: the kernel's text read before and
# after the module's, and the module's compared once the two agree.  The
# target is stopped, but pages it shares (busybox's text) gain and lose
# mappings as other processes start and end: where the kernel's text
# changed between its two reads, they are read again, the change shown
# and counted, up to 5 times.
compare() {
	try=1
	while :; do
		kernel_text "$2" /tmp/kernel.txt
		read_text "$3" /tmp/module.txt
		kernel_text "$2" /tmp/kernel2.txt
		cmp -s /tmp/kernel.txt /tmp/kernel2.txt && break
		diff /tmp/kernel.txt /tmp/kernel2.txt | head -n 6 | sed 's/^/# /'
		[ $try -ge 5 ] && break
		try=$((try + 1))
		echo "# retried: $1, the kernel's text changed between two reads, attempt $try of 5"
	done
	if [ -s /tmp/kernel.txt ] && cmp -s /tmp/kernel.txt /tmp/kernel2.txt &&
		cmp -s /tmp/kernel.txt /tmp/module.txt; then
		ok "$1 # $(wc -l < /tmp/kernel.txt) lines"
	else
		not_ok "$1"
		diff /tmp/kernel.txt /tmp/module.txt | head -n 20 | diag
	fi
}

tests="test_identical_demo test_identical_sleep test_identical_init
	test_identical_numa_demo test_identical_numa_sleep test_identical_numa_init"
tap_plan 6

# Without the demo there is nothing to compare: each test fails.
if ! start_demo /tmp/demo.pid; then
	for t in $tests; do
		not_ok "$t"
	done
	tap_done
	exit
fi
demo=$demo_pid
sleep 1000 &
sleeper=$!
kill -STOP "$demo" "$sleeper"

# init is blocked waiting for this script: quiescent.
for target in demo:$demo sleep:$sleeper init:1; do
	compare "test_identical_${target%:*}" "/proc/${target#*:}/pmaps" \
		"/proc/pmaps_ext/${target#*:}"
done
for target in demo:$demo sleep:$sleeper init:1; do
	compare "test_identical_numa_${target%:*}" \
		"/proc/${target#*:}/pmaps_numa" "/proc/pmaps_ext/numa/${target#*:}"
done

kill -9 "$demo" "$sleeper"
tap_done
