#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module lifecycle tests, TAP.  Runs in the guest as root with the module
# loaded from /pmaps_ext.ko and mounted on /proc/pmaps_ext.
. /tap.sh

loaded() { grep -q '^pmaps_ext ' /proc/modules; }
mounted() { grep -q ' /proc/pmaps_ext pmaps_ext ' /proc/mounts; }
load() { insmod /pmaps_ext.ko && mount -t pmaps_ext pmaps_ext /proc/pmaps_ext; }
unload() { umount /proc/pmaps_ext && rmmod pmaps_ext; }

tap_plan 7

# The mount pins the module: rmmod must refuse while it is mounted.
test_rmmod_refused_while_mounted() {
	! rmmod pmaps_ext 2>/dev/null && loaded && mounted
}
check test_rmmod_refused_while_mounted test_rmmod_refused_while_mounted

# An open file pins the mount, so neither umount nor rmmod may succeed.
test_unload_refused_while_open() {
	exec 3< /proc/pmaps_ext/1 || return 1
	umount /proc/pmaps_ext 2>/dev/null
	busy=$?
	rmmod pmaps_ext 2>/dev/null
	refused=$?
	head -c 1 <&3 > /dev/null
	exec 3<&-
	[ $busy -ne 0 ] && [ $refused -ne 0 ] && loaded && mounted
}
check test_unload_refused_while_open test_unload_refused_while_open

# A second mount on /proc/pmaps_ext, as when a manual mount makes the
# kernel load the module and the modprobe.d rule mounts it meanwhile, is
# refused: stacked, it would keep the module busy after one umount.
test_second_mount_refused() {
	mount -t pmaps_ext pmaps_ext /proc/pmaps_ext 2>/dev/null
	status=$?
	count=$(grep -c ' /proc/pmaps_ext pmaps_ext ' /proc/mounts)
	if [ $status -eq 0 ] || [ "$count" -ne 1 ]; then
		echo "# the second mount exited $status; /proc/mounts lists $count pmaps_ext mounts"
		# leave one mount for the tests after this one
		while [ "$(grep -c ' /proc/pmaps_ext pmaps_ext ' /proc/mounts)" -gt 1 ]; do
			umount /proc/pmaps_ext || break
		done
		return 1
	fi
	unload && load
}
check test_second_mount_refused test_second_mount_refused

# Load, read, unload 100 times; the console is checked for warnings.
test_load_unload_100() {
	i=0
	while [ $i -lt 100 ]; do
		unload || return 1
		load || return 1
		# st_size is 0, as for any /proc file: read a line instead.
		[ -n "$(head -n 1 /proc/pmaps_ext/self)" ] || return 1
		i=$((i + 1))
	done
}
check test_load_unload_100 test_load_unload_100

# The mount point vanishes with the module and returns with it.
test_mount_point_follows_module() {
	unload || return 1
	[ ! -e /proc/pmaps_ext ] || return 1
	load && [ -d /proc/pmaps_ext ]
}
check test_mount_point_follows_module test_mount_point_follows_module

# Unload and load again and again while readers keep opening files: the
# umount is refused while a file is open; once it goes through, rmmod must
# too, and the console must stay clean.  The readers pause between reads,
# so that unloads land between and during their opens: at least 10 of the
# 50 must go through, or the race was not run.  Once the readers stopped,
# nothing may hold the mount or the module any more: a reference an open
# took and never gave back would show only there.
test_unload_while_opening() {
	readers=
	for r in 1 2 3; do
		( while :; do
			cat /proc/pmaps_ext/self > /dev/null 2>&1
			sleep 0.01
		done ) &
		readers="$readers $!"
	done
	unloads=0
	stuck=0
	i=0
	while [ $i -lt 50 ]; do
		if umount /proc/pmaps_ext 2>/dev/null; then
			if rmmod pmaps_ext; then
				unloads=$((unloads + 1))
				insmod /pmaps_ext.ko || stuck=1
			else
				stuck=1
			fi
			mount -t pmaps_ext pmaps_ext /proc/pmaps_ext || stuck=1
		fi
		i=$((i + 1))
	done
	kill $readers
	wait $readers 2>/dev/null
	echo "# $unloads of 50 unloads went through while readers were busy"
	[ $stuck -eq 0 ] && loaded && mounted || return 1
	if [ $unloads -lt 10 ]; then
		echo "# fewer than 10: the race between unload and open was not run"
		return 1
	fi
	# A cat the killed readers started may still hold its file for a
	# moment; a leaked reference holds the mount for ever.
	tries=0
	until umount /proc/pmaps_ext 2>/dev/null; do
		tries=$((tries + 1))
		if [ $tries -ge 50 ]; then
			echo "# the readers are gone, yet umount is refused after 5 s"
			return 1
		fi
		sleep 0.1
	done
	if ! rmmod pmaps_ext; then
		echo "# the readers are gone and unmounted, yet rmmod is refused"
		return 1
	fi
	load
}
check test_unload_while_opening test_unload_while_opening

# A process started after loading is visible at once.
test_process_after_load() {
	sleep 30 &
	pid=$!
	# Read during its execve() the new mm may not map busybox yet: the
	# process has to show up with it within 5 s, not at once.
	tries=0
	until grep -q '^[0-9a-f]*-[0-9a-f]* .* /bin/busybox$' /proc/pmaps_ext/$pid; do
		tries=$((tries + 1))
		[ $tries -lt 50 ] || break
		sleep 0.1
	done
	grep -q '^[0-9a-f]*-[0-9a-f]* .* /bin/busybox$' /proc/pmaps_ext/$pid
	found=$?
	kill $pid
	[ $found -eq 0 ]
}
check test_process_after_load test_process_after_load

tap_done
