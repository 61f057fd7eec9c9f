#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a patched kernel: /proc/PID/pmaps and /proc/pmaps_ext/PID, and
# /proc/PID/pmaps_numa and /proc/pmaps_ext/numa/PID, must be
# byte-identical for quiescent processes (but for the vDSO's flags, which
# other processes change; see lib.sh).  TAP.
n=0
failed=0

. /lib.sh

# compare NAME KERNEL-FILE MODULE-FILE: the target must not change between
# the two reads.
compare() {
	n=$((n + 1))
	without_vdso_ranges "$2" > /tmp/kernel.tmp 2>&1
	without_gate /tmp/kernel.tmp > /tmp/kernel.txt
	without_vdso_ranges "$3" > /tmp/module.txt 2>&1
	if [ -s /tmp/kernel.txt ] && cmp -s /tmp/kernel.txt /tmp/module.txt; then
		echo "ok $n $1 # $(wc -l < /tmp/kernel.txt) lines"
	else
		failed=1
		echo "not ok $n $1"
		diff /tmp/kernel.txt /tmp/module.txt | head -n 20 | sed 's/^/# /'
	fi
}

tests="test_identical_demo test_identical_sleep test_identical_init
	test_identical_numa_demo test_identical_numa_sleep test_identical_numa_init"
echo "TAP version 13"
echo "1..6"

# Without the demo there is nothing to compare: each test fails.
if ! start_demo /tmp/demo.pid; then
	for t in $tests; do
		n=$((n + 1))
		echo "not ok $n $t"
	done
	exit 1
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
exit $failed
