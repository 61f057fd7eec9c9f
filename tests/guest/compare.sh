#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a patched kernel: /proc/PID/pmaps and /proc/pmaps_ext/PID must be
# byte-identical for quiescent processes (but for the vDSO's flags, which
# other processes change; see lib.sh).  TAP.
n=0
failed=0

. /lib.sh

# compare NAME PID: the target must not change between the two reads.
compare() {
	n=$((n + 1))
	without_vdso_ranges "/proc/$2/pmaps" > /tmp/kernel.txt 2>&1
	without_vdso_ranges "/proc/pmaps_ext/$2" > /tmp/module.txt 2>&1
	if [ -s /tmp/kernel.txt ] && cmp -s /tmp/kernel.txt /tmp/module.txt; then
		echo "ok $n $1 # $(wc -l < /tmp/kernel.txt) lines"
	else
		failed=1
		echo "not ok $n $1"
		diff /tmp/kernel.txt /tmp/module.txt | head -n 20 | sed 's/^/# /'
	fi
}

echo "TAP version 13"
echo "1..3"

# Without the demo there is nothing to compare: each test fails.
if ! start_demo /tmp/demo.pid; then
	for t in test_identical_demo test_identical_sleep test_identical_init; do
		n=$((n + 1))
		echo "not ok $n $t"
	done
	exit 1
fi
demo=$demo_pid
sleep 1000 &
sleeper=$!
kill -STOP "$demo" "$sleeper"

compare test_identical_demo "$demo"
compare test_identical_sleep "$sleeper"
# init is blocked waiting for this script: quiescent.
compare test_identical_init 1

kill -9 "$demo" "$sleeper"
exit $failed
