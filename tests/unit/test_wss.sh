#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps wss: usage errors, and the estimate for a process with a known
# working set, on whatever source this machine has (on a plain host the
# clear_refs + smaps Referenced method).  Prints TAP.  PMAPS names the
# binary (default: built with make -C userspace); CC builds the target.
# The measuring tests write the target's clear_refs, which needs root or
# the target's owner: the target is our own child, so any user will do.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
wss_pid=
cleanup() {
	[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
	[ -n "$wss_pid" ] && kill -KILL "$wss_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

hint="Try 'pmaps wss --help' for more information."
pid_max=$(cat /proc/sys/kernel/pid_max)

# ---- usage ----

run "$PMAPS" wss --help
missing=
for o in --interval --count --clear-refs --source --all --help " -i," \
	 " -n," " -a," " -h,"; do
	grep -q -e "$o" "$tmp/out" || missing="$missing $o"
done
[ -n "$missing" ] && echo "# missing from --help:$missing"
[ "$rc" = 0 -a -z "$missing" ]
result help_lists_every_option

run "$PMAPS" wss
expect_text no_pid 2 "" "pmaps wss: expected a PID or --cgroup PATH
$hint"

run "$PMAPS" wss 1 2
expect_text two_pids 2 "" "pmaps wss: expected one PID, got '2' too
$hint"

run "$PMAPS" wss --clear-refs 0x10
expect_text bad_pid 2 "" "pmaps wss: expected a PID, got '0x10'
$hint"

for i in 0 0.0 -1 1.2.3 1s .5 2.0000000001 86401; do
	run "$PMAPS" wss --clear-refs -i "$i" 1
	expect_text "bad_interval_$i" 2 "" \
		"pmaps wss: --interval: expected seconds above 0 and up to 86400, e.g. 0.5, got '$i'
$hint"
done

run "$PMAPS" wss --clear-refs -n -1 1
expect_text bad_count 2 "" \
	"pmaps wss: --count: expected a number of intervals, got '-1'
$hint"

run "$PMAPS" wss --clear-refs --source=file 1
expect_text bad_source 2 "" \
	"pmaps wss: --source: expected auto, kernel, module or pagemap, got 'file'
$hint"

run "$PMAPS" wss --bogus 1
expect_text unknown_option 2 "" "pmaps wss: unrecognized option '--bogus'
$hint"

# Without --clear-refs only idle page tracking may measure; kernel and
# module sources show young bits, which only clear_refs resets.
run "$PMAPS" wss --source=module 1
expect_text source_module_needs_clear_refs 2 "" \
	"pmaps wss: --source=module needs --clear-refs: only clear_refs resets the young bits that source shows
$hint"

if [ -e /sys/kernel/mm/page_idle/bitmap ]; then
	skip no_idle_tracking_needs_clear_refs "idle page tracking exists here"
else
	run "$PMAPS" wss 1
	expect_text no_idle_tracking_needs_clear_refs 2 "" \
		"pmaps wss: measuring needs --clear-refs: idle page tracking is not available (/sys/kernel/mm/page_idle/bitmap: No such file or directory), and clear_refs changes the target's state (reclaim takes its pages for not recently used)
$hint"
fi

run "$PMAPS" wss --clear-refs "$pid_max"
expect_text unknown_pid 1 "" "pmaps wss: no process $pid_max"

# ---- a process with a known working set ----

# 64 MiB of anonymous memory between PROT_NONE guards, every page written
# once, then its first 8 MiB read every 10 ms: the working set.  No THP,
# whose young bit would cover 512 pages at once.  After each whole sweep
# of the working set it writes the number of sweeps so far (8 bytes) to
# the file named by its argument, so a test can wait for one.
#
# Before each sweep it flushes its own TLB (mprotect of the whole mapping
# to read-only and back; the VMA stays one, its young bits as they were).
# x86 sets a PTE's accessed bit only when it walks the page table to fill
# the TLB, and clear_refs clears the bits without a TLB flush: a page
# whose translation stays cached is read without its bit being set
# again.  2048 pages is about a second-level TLB; without the flush a
# target reading 256 pages nonstop had 1-5 of them counted in 50 ms
# intervals here, and with it every sweep after the clear marks them all.
cat > "$tmp/target.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAPPED	(64UL << 20)
#define WORKING	(8UL << 20)

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int sweeps_fd = argc > 1 ? open(argv[1], O_WRONLY | O_CREAT, 0600) : -1;
	volatile char sink = 0;
	uint64_t sweeps = 0;
	char *guard, *p;
	size_t off;

	guard = mmap(NULL, MAPPED + 2 * ps, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED)
		return 1;
	p = guard + ps;
	if (mprotect(p, MAPPED, PROT_READ | PROT_WRITE) ||
	    madvise(p, MAPPED, MADV_NOHUGEPAGE))
		return 1;
	memset(p, 1, MAPPED);
	printf("%lx %lx %lu\n", (unsigned long)p, (unsigned long)(p + MAPPED),
	       WORKING / ps);
	fflush(stdout);
	for (;;) {
		if (mprotect(p, MAPPED, PROT_READ) ||
		    mprotect(p, MAPPED, PROT_READ | PROT_WRITE))
			return 1;
		for (off = 0; off < WORKING; off += ps)
			sink += p[off];
		sweeps++;
		if (sweeps_fd >= 0 &&
		    pwrite(sweeps_fd, &sweeps, sizeof(sweeps), 0) != sizeof(sweeps))
			return 1;
		nanosleep(&tick, NULL);
	}
}
EOF

# Every wait below is bounded: 0.05 s polls, $slow times as many (tap.sh).

start_target() {
	spawn_target wss-target $((600 * slow)) 0.05 "$tmp/sweeps" || return 1
	read -r lo hi ws_pages < "$tmp/layout" && [ -n "$ws_pages" ]
}

# The target's whole sweeps of its working set so far.
sweeps() {
	od -An -tu8 -N8 "$tmp/sweeps" 2> /dev/null | tr -d ' '
}

# Wait until the target has swept its whole working set twice more than
# when called: at least one whole sweep, its TLB flush included, then lies
# after the call.  The machine's speed decides how long that takes, not
# whether it happens.
wait_for_a_whole_sweep() {
	from=$(sweeps)
	now=$from
	i=0
	while [ $i -lt $((1200 * slow)) ]; do
		now=$(sweeps)
		[ "${now:-0}" -ge $((${from:-0} + 2)) ] && return 0
		alive "$target_pid" || break
		sleep 0.05
		i=$((i + 1))
	done
	echo "# the target's sweeps went from ${from:-0} to ${now:-0}, not 2 more, in $i polls"
	return 1
}

# The row of the target's mapping in interval $1 of $tmp/out.
mapping_row() {
	awk -v want="$1" -v vma="$lo-$hi" '
		/^interval / { n = $2 + 0 }
		n == want && $1 == vma' "$tmp/out"
}

# The total line of interval $1 of $tmp/out.
total_row() {
	awk -v want="$1" '
		/^interval / { n = $2 + 0 }
		n == want && $1 == "total"' "$tmp/out"
}

# estimate_ok N exact|at-most: the row of interval N.  What is certain:
# none of the 14336 pages written only before the interval may count, so
# the estimate never exceeds the working set; and where a whole sweep
# (with its TLB flush) lies between the clear and the read, every page of
# the working set counts: exact.  Without such a sweep no lower bound
# holds: how much the target read in an interval is the scheduler's
# business, and it may be nothing (without -a a VMA with no page accessed
# has no row; the interval's total line is still there).
estimate_ok() {
	row=$(mapping_row "$1")
	if [ -z "$row" ] && [ "$2" = at-most ] && [ -n "$(total_row "$1")" ]
	then
		echo "# interval $1: no row for $lo-$hi, none of its pages accessed"
		return 0
	fi
	set -- "$2" $row
	[ $# -ge 7 ] || { echo "# no row for $lo-$hi"; return 1; }
	echo "# row: $row"
	if [ "$1" = exact ] && [ "$5" != "$ws_pages" ]; then
		echo "# $5 pages accessed after a whole sweep, the working set is $ws_pages"
		return 1
	fi
	if [ "$5" -gt "$ws_pages" ]; then
		echo "# $5 pages accessed, more than the working set of $ws_pages"
		return 1
	fi
	[ "$6" = $(($5 * $(getconf PAGESIZE))) ] && [ "$7" = "[anon]" ]
}

# /proc/PID/syscall starts with the number of the system call PID waits
# in: pselect6 is the wait between clear and read.
pselect_nr=$(printf '#include <sys/syscall.h>\nSYS_pselect6\n' |
	     ${CC:-cc} -E -P - 2> /dev/null | tail -n 1)
waiting_in_pselect() {
	i=0
	while [ $i -lt $((600 * slow)) ]; do
		read -r call rest 2> /dev/null < "/proc/$1/syscall"
		[ "${call:-}" = "$pselect_nr" ] && return 0
		alive "$1" || break
		sleep 0.05
		i=$((i + 1))
	done
	echo "# pmaps wss never waited in pselect6 ($pselect_nr)"
	return 1
}

# io_calls PID: "SYSCR SYSCW ", the read and write system calls PID has
# made so far (/proc/PID/io), or nothing where that cannot be read.
io_calls() {
	sed -n 's/^sysc[rw]: //p' "/proc/$1/io" 2> /dev/null | tr '\n' ' '
}

# wait_stopped PID: until PID is stopped (SIGSTOP); false if it ends.
wait_stopped() {
	stop_polls=0
	while [ $stop_polls -lt $((600 * slow)) ]; do
		state=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -c1)
		[ "$state" = T ] && return 0
		alive "$1" || return 1
		sleep 0.05
		stop_polls=$((stop_polls + 1))
	done
	echo "# pmaps wss did not stop in $stop_polls polls after SIGSTOP"
	return 1
}

# hold_intervals PID: hold pmaps wss (PID) in the wait of each of its
# intervals, stopped, until the target has swept its working set whole,
# then let it go on; until it ends.  $held lists the intervals so held:
# a whole sweep lies between their clear and their read, so their
# estimate must be exact.  An interval is held only where that is
# certain: pmaps was seen in pselect6 once it had printed the interval
# before (so after this one's clear), and it made no read or write system
# call (/proc/PID/io) from before that until it stopped (so it had not
# read this interval's pages yet, nor printed it).  An interval whose wait
# the polls miss (a machine too busy to poll that often) is not held, and
# has only the upper bound; it says so.
hold_intervals() {
	held=
	next=1
	hold_polls=0
	while alive "$1" && [ $hold_polls -lt $((2400 * slow)) ]; do
		io=$(io_calls "$1")
		printed=$(grep -c '^interval ' "$tmp/out")
		read -r call rest 2> /dev/null < "/proc/$1/syscall"
		if [ -n "$io" ] && [ "${call:-}" = "$pselect_nr" ] &&
		   [ $((printed + 1)) -ge $next ]; then
			kill -STOP "$1"
			if wait_stopped "$1" &&
			   [ "$(io_calls "$1")" = "$io" ]; then
				wait_for_a_whole_sweep &&
					held="$held $((printed + 1))"
				next=$((printed + 2))
			fi
			kill -CONT "$1" 2> /dev/null
		fi
		sleep 0.05
		hold_polls=$((hold_polls + 1))
	done
}

# intervals_ok N...: estimate_ok of each interval N, exact where held.
intervals_ok() {
	for n; do
		case " $held " in
		*" $n "*)
			estimate_ok "$n" exact || return 1 ;;
		*)
			echo "# interval $n: pmaps was not held in its wait, so only the upper bound holds"
			estimate_ok "$n" at-most || return 1 ;;
		esac
	done
}

process_tests="estimate_is_working_set interrupt_reports_interval
	title_names_smaps_method total_covers_mapping repeated_intervals
	all_lists_untouched_vmas ages_unknown_from_pagemap target_gone_exit_1"

if ! start_target; then
	diag "$tmp/err"
	for t in $process_tests; do not_ok "$t"; done
	echo "# could not start the target process"
else
	# Ctrl-C in the wait: the interval so far is read and shown.  The
	# refs are cleared before the wait, so once the target has swept its
	# working set whole after that, all of it must count: the one
	# measurement here with a sweep known to lie after the clear.
	"$PMAPS" wss --clear-refs -i 600.0 -n 0 "$target_pid" \
		> "$tmp/out" 2> "$tmp/err" &
	wss_pid=$!
	if waiting_in_pselect "$wss_pid" && wait_for_a_whole_sweep; then
		kill -INT "$wss_pid"
	else
		kill -KILL "$wss_pid"	# fail, rather than wait 600 s
	fi
	wait_gone "$wss_pid" $((600 * slow)) 0.05 "pmaps wss after SIGINT"
	wss_pid=
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && estimate_ok 1 exact
	result estimate_is_working_set

	[ "$rc" = 0 ] &&
		grep -q '^interval 1: [0-9.]* s (interrupted)$' "$tmp/out" &&
		! grep -q '^interval 2' "$tmp/out"
	result interrupt_reports_interval

	if [ -e /proc/self/pmaps ] || [ -e /proc/pmaps_ext ]; then
		skip title_names_smaps_method "kernel or module source here"
	else
		comm=$(cat "/proc/$target_pid/comm")
		head -n 1 "$tmp/out" | grep -qxF "$target_pid ($comm): clear_refs, then smaps Referenced (source pagemap, which cannot see young bits)"
		result title_names_smaps_method
	fi

	awk -v vma="$lo-$hi" '
		$1 == vma { row = $4 }
		$1 == "total" { total = $2; acc = $3 }
		END { exit !(row != "" && acc >= row && total >= 16384) }' \
		"$tmp/out"
	result total_covers_mapping

	# Intervals end on a timer, which the machine's speed does not
	# stretch: pmaps is held in each one's wait until the target has
	# swept its working set whole, so that each estimate is exact.
	"$PMAPS" wss --clear-refs --source=pagemap -i 2 -n 2 "$target_pid" \
		> "$tmp/out" 2> "$tmp/err" &
	wss_pid=$!
	hold_intervals "$wss_pid"
	wait_gone "$wss_pid" $((600 * slow)) 0.05 "pmaps wss -n 2"
	wss_pid=
	echo "# intervals held until the target swept:${held:- none}"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		[ "$(grep -c '^interval ' "$tmp/out")" = 2 ] &&
		grep -q '^interval 2: ' "$tmp/out" && intervals_ok 1 2
	result repeated_intervals

	# Without -a the guard pages (never accessed) have no row; with it,
	# both do, with nothing resident or accessed.
	guard_lo=$(printf '%x' $((0x$lo - $(getconf PAGESIZE))))
	run "$PMAPS" wss --clear-refs -i 0.2 "$target_pid"
	[ "$rc" = 0 ] && ! grep -q "^0*$guard_lo-0*$lo " "$tmp/out" &&
	run "$PMAPS" wss --clear-refs -a -i 0.2 "$target_pid" &&
		[ "$rc" = 0 ] &&
		grep -q "^0*$guard_lo-0*$lo ---p  *0  *0  *0 \[anon\]$" \
			"$tmp/out"
	result all_lists_untouched_vmas

	# The pagemap source has no AGE (kpageflags has no generation): with
	# --ages every resident page is of age '?', and no known age is
	# printed as a count, only "-".  Columns: START-END PERM RESIDENT
	# ACCESSED BYTES AGE0..AGE3 AGE? NAME, the total row without NAME.
	run "$PMAPS" wss --clear-refs --source=pagemap --ages -a -i 0.2 \
		"$target_pid"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	awk '
		$1 == "START-END" { head = ($6 $7 $8 $9 $10 $11 == "AGE0AGE1AGE2AGE3AGE?NAME") }
		$1 ~ /^[0-9a-f]+-[0-9a-f]+$/ || $1 == "total" {
			c = $1 == "total" ? 1 : 0	# no PERM: one column fewer
			rows++
			known = ""
			for (k = 6 - c; k <= 9 - c; k++)
				known = known $k
			if ($(10 - c) != $(3 - c) ||
			    ($(3 - c) > 0 && known != "----") ||
			    ($1 == "total" && $2 < 16384)) {
				print "# wrong row: " $0; bad = 1
			}
		}
		END { exit !(head && rows > 2 && !bad) }' "$tmp/out"
	result ages_unknown_from_pagemap

	# The target ends during the wait.
	"$PMAPS" wss --clear-refs -i 600.0 "$target_pid" \
		> "$tmp/out" 2> "$tmp/err" &
	wss_pid=$!
	if waiting_in_pselect "$wss_pid"; then
		kill "$target_pid"
		wait_gone "$target_pid" $((600 * slow)) 0.05 \
			"the target after SIGTERM"
		kill -INT "$wss_pid"
	else
		kill -KILL "$wss_pid"	# fail, rather than wait 600 s
	fi
	wait_gone "$wss_pid" $((600 * slow)) 0.05 "pmaps wss after SIGINT"
	wss_pid=
	expect_text target_gone_exit_1 1 "" "pmaps wss: no process $target_pid"
	target_pid=
fi

tap_done
