# SPDX-License-Identifier: GPL-2.0
# Shell helpers for the guest scripts, sourced as /lib.sh.

# The vDSO page is mapped by every process, and each one that exits after
# touching it may flip its PG_referenced (mark_page_accessed() on unmap),
# so its state is nobody's to keep still: comparisons of a stopped
# target's text leave its range lines out.
without_vdso_ranges() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { vdso = / \[vdso\]$/ } !(vdso && /\t/)' "$1"
}

# without_gate FILE: FILE without the gate VMA's header, which the kernel's
# /proc/PID/pmaps prints last, as maps does, and the module leaves out
# (get_gate_vma() is not exported to modules).
without_gate() {
	sed '/ \[vsyscall\]$/d' "$1"
}

# start_demo PIDFILE: start /bin/demo and set demo_pid to the PID it
# writes to PIDFILE once its layout is in place.  Fails with a diagnostic
# when it died or took over 60 s: an unbounded wait would hang the guest
# until QEMU's limit.
start_demo() {
	/bin/demo > "$1" &
	demo_pid=
	tries=600
	while [ ! -s "$1" ]; do
		if ! kill -0 $! 2> /dev/null; then
			echo "# /bin/demo died before writing its PID"
			return 1
		fi
		tries=$((tries - 1))
		if [ $tries -lt 0 ]; then
			echo "# /bin/demo wrote no PID within 60 s"
			kill -9 $!
			return 1
		fi
		sleep 0.1
	done
	read -r demo_pid < "$1"
}

# have_nobody: user nobody (uid 65534) in /etc/passwd, for su, which
# needs the name (the initramfs has no passwd file).
have_nobody() {
	mkdir -p /etc
	grep -qs '^nobody:' /etc/passwd ||
		echo 'nobody:x:65534:65534::/:/bin/sh' >> /etc/passwd
}
