#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The packaged module, loaded as an installed Debian system loads it, TAP
# (tests/deb.sh, through tests/qemu/run.sh --mode modprobe).  /deb holds
# what dpkg -i left on a bookworm root: the module DKMS built, depmod's
# index and the modprobe.d rule, with the programs that run them (kmod's
# modprobe, dash, util-linux's mount and mountpoint, the packaged pmaps)
# and their libraries.  The tests run chrooted there, so the rule runs
# with Debian's programs, not busybox's.
. /tap.sh

# in_root CMD...: CMD in the Debian files, with root's PATH there.  CMD
# needs its full path where busybox has an applet of that name: its chroot
# would run the applet.
in_root() {
	PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot /deb "$@"
}
loaded() { grep -q '^pmaps_ext ' /proc/modules; }
# As the installed system sees it: its own /proc, on which the rule mounts.
mounted() {
	in_root /usr/bin/cat /proc/mounts | grep -q '^pmaps_ext /proc/pmaps_ext pmaps_ext '
}

tap_plan 6

mount -t proc proc /deb/proc
mount -t sysfs sys /deb/sys
mount -t devtmpfs dev /deb/dev

test_modprobe_loads() {
	in_root /sbin/modprobe --version > /tmp/modprobe.out 2>&1 &&
		grep -q '^kmod version' /tmp/modprobe.out &&
		in_root /sbin/modprobe pmaps_ext > /tmp/modprobe.out 2>&1 ||
		{ diag /tmp/modprobe.out; return 1; }
	loaded || { echo "# /proc/modules has no pmaps_ext"; return 1; }
}
check "kmod's modprobe pmaps_ext loads the module DKMS built" test_modprobe_loads

test_rule_mounts() {
	mounted || { in_root /usr/bin/cat /proc/mounts | diag; return 1; }
}
check "the modprobe.d rule mounted pmaps_ext on /proc/pmaps_ext" test_rule_mounts

# The text of PID 1 (this guest's init, which waits for this suite): a
# header for each VMA of its maps but [vsyscall], and range lines.
test_cat_pid1() {
	in_root /usr/bin/cat /proc/pmaps_ext/1 > /tmp/pmaps.txt 2> /tmp/cat.err ||
		{ diag /tmp/cat.err; return 1; }
	grep -v '[[:space:]]\[vsyscall\]$' /proc/1/maps > /tmp/maps.txt
	awk -F'\t' 'NF == 1' /tmp/pmaps.txt > /tmp/headers.txt
	if ! cmp -s /tmp/maps.txt /tmp/headers.txt; then
		echo "# the headers are not /proc/1/maps:"
		diff /tmp/maps.txt /tmp/headers.txt | head -n 10 | diag
		return 1
	fi
	awk -F'\t' '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && length($3) == 7 &&
		$4 ~ /^[0-9]+$/ { found = 1 } END { exit !found }' /tmp/pmaps.txt ||
		{ echo "# no range line"; head -n 10 /tmp/pmaps.txt | diag; return 1; }
}
check "cat /proc/pmaps_ext/1 prints a header per VMA and range lines" test_cat_pid1

test_pmaps_uses_module() {
	in_root /usr/bin/pmaps --json 1 > /tmp/pmaps.json 2>&1 &&
		grep -q '"source": *"module"' /tmp/pmaps.json ||
		{ head -n 10 /tmp/pmaps.json | diag; return 1; }
}
check "the packaged pmaps reads PID 1 through the module" test_pmaps_uses_module

test_modprobe_r() {
	in_root /sbin/modprobe -r pmaps_ext > /tmp/modprobe.out 2>&1 ||
		{ diag /tmp/modprobe.out; return 1; }
	! mounted || { echo "# still mounted"; return 1; }
	! loaded || { echo "# still in /proc/modules"; return 1; }
}
check "modprobe -r pmaps_ext unmounts and unloads" test_modprobe_r

# A manual mount racing the install rule's: the moment modprobe has
# loaded the module (its directory appears), mount(8) mounts on
# /proc/pmaps_ext while the rule checks and mounts there too.  Whoever
# loses must neither stack a second mount (modprobe -r then fails with
# EBUSY) nor make modprobe fail: the module is loaded and mounted once,
# as asked.  Rounds of it, each undone with modprobe -r.
RACE_ROUNDS=40
test_mount_races_rule() {
	bad=0
	round=1
	lost=0
	while [ $round -le $RACE_ROUNDS ] && [ $bad = 0 ]; do
		timeout -k 5 60 sh -c 'until [ -d /deb/proc/pmaps_ext ]; do :; done
			exec chroot /deb /usr/bin/mount -t pmaps_ext pmaps_ext \
				/proc/pmaps_ext' > /tmp/mount.out 2>&1 &
		manual=$!
		in_root /sbin/modprobe pmaps_ext > /tmp/modprobe.out 2>&1 ||
			{ echo "# round $round: modprobe failed:"; diag /tmp/modprobe.out; bad=1; }
		wait $manual || lost=$((lost + 1))
		mounts=$(in_root /usr/bin/cat /proc/mounts |
			grep -c '^pmaps_ext /proc/pmaps_ext pmaps_ext ')
		[ "$mounts" = 1 ] ||
			{ echo "# round $round: $mounts mounts on /proc/pmaps_ext"; diag /tmp/mount.out; bad=1; }
		in_root /sbin/modprobe -r pmaps_ext > /tmp/modprobe.out 2>&1 ||
			{ echo "# round $round: modprobe -r failed:"; diag /tmp/modprobe.out; bad=1; }
		! mounted && ! loaded ||
			{ echo "# round $round: still mounted or loaded"; bad=1; }
		round=$((round + 1))
	done
	echo "# $((round - 1)) rounds; mount(8) lost to the rule in $lost"
	[ $bad = 0 ]
}
check "a manual mount racing the install rule leaves one mount" test_mount_races_rule
tap_done
