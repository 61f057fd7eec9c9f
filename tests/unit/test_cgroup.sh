#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps --cgroup PATH and pmaps export --cgroup (issue 19): a cgroup v2
# made for the test holds two stopped targets and a child cgroup a third;
# --summary must show exactly those three, each with the totals pmaps
# --summary PID gives it, and a group total that is their sum.  A member
# that ends between listing and reading is skipped without an error:
# tested on a directory whose cgroup.procs names a process already gone,
# which no timing can make flaky.  pmaps watch --cgroup: two frames that
# list the three; then, frame by frame, a fourth moved into the group
# appears and a member killed is gone, with no error; five killed while
# they free their memory are gone too.  Each step waits
# for the frame that shows the last one, polling with a bound.  The
# cgroup is removed at the end.
# Needs root and a writable cgroup2 mount.  Prints TAP.  PMAPS names the
# binary.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

pids=
group=
watch_pid=
holders=
cleanup() {
	[ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
	kill_all $pids $holders
	# the children first; a cgroup goes once it has no process
	if [ -n "$group" ]; then
		rmdir "$group/sub" "$group/empty" "$group/killed" 2>/dev/null
		rmdir "$group" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tests="lists_exactly_the_members rows_match_each_summary total_is_the_sum
	default_view_group_line relative_path empty_group vanished_member_skipped
	not_a_cgroup export_has_the_members wss_rows_the_members
	wss_total_is_the_sum wss_gone_and_appeared wss_usage watch_two_frames
	watch_member_appears watch_member_gone watch_members_killed_are_gone"

skip_all() {
	for t in $tests; do skip "$t" "$1"; done
	tap_done
	exit
}

# fail_all WHY: the machine has what the tests need, yet setting up failed
fail_all() {
	echo "# $1"
	for t in $tests; do not_ok "$t"; done
	tap_done
	exit 1
}

[ "$(id -u)" = 0 ] || skip_all "needs root to make a cgroup"
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$mnt" ] || skip_all "no cgroup2 mount"
# a read-only cgroup2 (a container's) is the machine's; otherwise root
# makes a cgroup there, and not making one is a failure
awk -v m="$mnt" '$2 == m && $3 == "cgroup2" { split($4, o, ","); exit o[1] != "ro" }' \
	/proc/self/mounts && skip_all "cgroup2 at $mnt is read-only"
name=pmaps-test.$$
group=$mnt/$name
mkdir "$group" 2> "$tmp/mkdir.err" || {
	group=
	fail_all "cannot make a cgroup under $mnt: $(cat "$tmp/mkdir.err")"
}
mkdir "$group/sub" "$group/empty" "$group/killed"

# stopped_sleep: a stopped sleep 1000 in $p, added to $pids
stopped_sleep() {
	sleep 1000 &
	p=$!
	pids="$pids $p"
	# stopped after the exec, not in the forked shell before it
	i=0
	while [ "$(cat "/proc/$p/comm" 2>/dev/null)" != sleep ]; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
	kill -STOP "$p"
}

# three stopped sleeps: two in the group, one in its child
for where in "$group" "$group" "$group/sub"; do
	stopped_sleep || fail_all "sleep did not start in 200 polls 0.05 s apart"
	echo "$p" > "$where/cgroup.procs" || fail_all "cannot move a process into $where"
done
sorted=$(for p in $pids; do echo "$p"; done | sort -n)

# rows FILE: the process rows of --summary's group table, "PID FIELDS..."
rows() {
	awk '/^group / { in_group = 1; next }
		in_group && /^[0-9]+ \(/ { sub(/ \([^)]*\)/, ""); print }' "$1"
}

run "$PMAPS" --source=pagemap --cgroup "$group" --summary
cp "$tmp/out" "$tmp/group"
group_rc=$rc
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(rows "$tmp/group" | cut -d' ' -f1)" = "$sorted" ] &&
	grep -q "^group $group: 3 processes\$" "$tmp/group"
result lists_exactly_the_members

# Each row is the total row of that process's own --summary: the columns
# that other processes cannot change while the targets are stopped
# (Referenced, Active and Shared of the file pages they share with every
# other process running can): Kbytes, RSS, Dirty, Swapped, Huge.
stable_row() {
	awk -v p="$2" '$1 == p { print $2, $3, $8, $11, $14 }' "$1"
}
bad=
for p in $pids; do
	"$PMAPS" --source=pagemap --summary "$p" > "$tmp/one"
	want=$(awk '$1 == "total" { print $3, $4, $9, $12, $15 }' "$tmp/one")
	got=$(rows "$tmp/group" > "$tmp/rows"; stable_row "$tmp/rows" "$p")
	[ -n "$got" ] && [ "$got" = "$want" ] || bad="$bad $p: '$got' vs '$want';"
done
rc=$group_rc
[ -z "$bad" ]
result rows_match_each_summary
[ -n "$bad" ] && echo "#$bad"

# the group's total row, column by column: a column with "-" or a lower
# bound ">=N" in some row is the lower bound of the known parts, or "-"
want=$(rows "$tmp/group" | awk '{ for (i = 2; i <= NF; i++) {
		v = $i
		if (v == "-") { u[i] = 1; v = 0 }
		else if (sub(/^>=/, "", v)) u[i] = 1
		s[i] += v }
		n = NF }
	END { for (i = 2; i <= n; i++)
		printf "%s ", !u[i] ? s[i] : s[i] ? ">=" s[i] : "-" }' | xargs)
got=$(awk '/^group / { in_group = 1 }
	in_group && /^total KiB/ { $1 = ""; $2 = ""; print }' "$tmp/group" | xargs)
[ -n "$got" ] && [ "$got" = "$want" ]
result total_is_the_sum
[ "$got" = "$want" ] || echo "# total row '$got', sum of the rows '$want'"

run "$PMAPS" --source=pagemap --cgroup "$group"
[ "$rc" = 0 ] && grep -q "^group $group: 3 processes, [0-9]* VMAs  mapped " "$tmp/out" &&
	[ "$(grep -c '^[0-9]* (sleep): source ' "$tmp/out")" = 3 ]
result default_view_group_line

run "$PMAPS" --source=pagemap --cgroup "$name/" --summary
rows "$tmp/out" | awk '{ print $1, $2, $3 }' > "$tmp/rel"
rows "$tmp/group" | awk '{ print $1, $2, $3 }' > "$tmp/abs"
[ "$rc" = 0 ] && grep -q "^group $group: 3 processes\$" "$tmp/out" &&
	cmp -s "$tmp/rel" "$tmp/abs"
result relative_path

run "$PMAPS" --source=pagemap --cgroup "$group/empty" --summary
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	grep -q "^group $group/empty: 0 processes\$" "$tmp/out" &&
	grep -q '^total KiB *0 ' "$tmp/out"
result empty_group

# A listed process that has ended: a directory with a cgroup.procs of
# its own names one already reaped, and a member.
sleep 0 & gone=$!
wait "$gone"
mkdir "$tmp/fake"
set -- $pids
printf '%s\n%s\n' "$gone" "$1" > "$tmp/fake/cgroup.procs"
run "$PMAPS" --source=pagemap --cgroup "$tmp/fake" --summary
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(rows "$tmp/out" | cut -d' ' -f1)" = "$1" ]
result vanished_member_skipped

run "$PMAPS" --cgroup "$tmp" --summary
[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^pmaps: $tmp: expected a cgroup directory, one with a cgroup.procs file" "$tmp/err"
result not_a_cgroup

run "$PMAPS" export --source=pagemap --cgroup "$group"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(grep -o '^pmaps_resident_bytes{pid="[0-9]*"' "$tmp/out" |
		grep -o '[0-9]*' | sort -nu)" = "$sorted" ]
result export_has_the_members

# ---- pmaps wss --cgroup ----

# wss_rows FILE: "PID RESIDENT ACCESSED BYTES" per process row
wss_rows() {
	awk '/^ *RESIDENT / { on = 1; next }
		on && $4 ~ /^[0-9]+$/ { print $4, $1, $2, $3 }' "$1"
}
# The members' RESIDENT, each as wss of that PID alone counts it: the
# targets are stopped, so their resident pages stay put.  (ACCESSED is
# smaps Referenced, which another process touching a shared page sets.)
run "$PMAPS" wss --clear-refs --source=pagemap -i 0.05 --cgroup "$group"
cp "$tmp/out" "$tmp/wss"
wss_rc=$rc
want=
for p in $sorted; do
	"$PMAPS" wss --clear-refs --source=pagemap -i 0.05 "$p" > "$tmp/one"
	want="$want$p $(awk '$1 == "total" { print $2 }' "$tmp/one")
"
done
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	grep -q "^group $group: clear_refs, then smaps Referenced" "$tmp/wss" &&
	[ "$(wss_rows "$tmp/wss" | awk '{ print $1, $2 }')
" = "$want" ]
result wss_rows_the_members
[ "$rc" = 0 ] || diag "$tmp/err"

psize=$(getconf PAGESIZE)
want=$(wss_rows "$tmp/wss" | awk -v ps="$psize" '{ r += $2; a += $3 }
	END { print r, a, a * ps, "total of", NR, "processes" }')
got=$(awk '$4 == "total" { print $1, $2, $3, $4, $5, $6, $7 }' "$tmp/wss")
rc=$wss_rc
[ -n "$got" ] && [ "$got" = "$want" ] &&
	[ "$(wss_rows "$tmp/wss" | awk -v ps="$psize" '$4 != $3 * ps')" = "" ]
result wss_total_is_the_sum
[ "$got" = "$want" ] || echo "# total '$got', sum of the rows '$want'"

# A member gone before it is measured, and one that joins during the
# interval.  The group is a directory whose cgroup.procs is a FIFO, so
# each listing wss takes is written here: the first names a process
# already reaped and a member, the one at the interval's end adds a
# second member.  The second write waits until wss has closed the FIFO
# after the first, or it would read both as one.
mkdir "$tmp/fifo"
mkfifo "$tmp/fifo/cgroup.procs"
set -- $sorted
sleep 0 & gone=$!
wait "$gone"
# Neither side may block for good when the other has failed.
timeout -k 5 $((60 * slow)) "$PMAPS" wss --clear-refs --source=pagemap -i 0.05 \
	--cgroup "$tmp/fifo" > "$tmp/out" 2> "$tmp/err" &
wss_pid=$!
# $wss_pid is timeout's: pmaps is its child
wss_has_fifo() {
	for p in $wss_pid $(cat "/proc/$wss_pid/task/$wss_pid/children" 2> /dev/null); do
		ls -l "/proc/$p/fd" 2> /dev/null |
			grep -q "$tmp/fifo/cgroup.procs" && return 0
	done
	return 1
}
listing() {
	timeout -k 5 $((30 * slow)) sh -c 'printf "%s\n%s\n" "$1" "$2" > "$3"' \
		sh "$1" "$2" "$tmp/fifo/cgroup.procs"
}
listing "$gone" "$1"
i=0
while wss_has_fifo && [ $i -lt $((600 * slow)) ]; do
	sleep 0.05
	i=$((i + 1))
done
listing "$1" "$2"
wait "$wss_pid"
rc=$?
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(wss_rows "$tmp/out" | cut -d' ' -f1)" = "$1" ] &&
	grep -qx "gone (ended during the interval, not counted): $gone" "$tmp/out" &&
	grep -qx "appeared (measured from the next interval): $2" "$tmp/out"
result wss_gone_and_appeared
[ "$rc" = 0 ] || diag "$tmp/err"

"$PMAPS" wss --clear-refs --cgroup "$group" "$1" > /dev/null 2> "$tmp/err1"
rc1=$?
"$PMAPS" wss --clear-refs --cgroup "$group" -a > /dev/null 2> "$tmp/err2"
rc2=$?
rc=0
[ "$rc1" = 2 ] && [ "$rc2" = 2 ] &&
	grep -q "^pmaps wss: expected --cgroup PATH alone, without a PID, got '$1'" "$tmp/err1" &&
	grep -q '^pmaps wss: --all lists VMAs, and --cgroup shows a row per process' "$tmp/err2"
result wss_usage

# ---- pmaps watch --cgroup ----

# frame N [FILE]: the lines of frame N
frame() {
	awk -v n="$1" '/^=== frame / { on = $3 == n } on' "${2:-$tmp/out}"
}
# members N [FILE]: the "--- process" lines of frame N, PID and word
members() {
	frame "$1" "${2:-}" | sed -n 's/^--- process //p' | sort -n | xargs
}

# Two frames: each lists the three, none appeared or gone in the second,
# and the group's resident count is the sum of the processes'.
run "$PMAPS" watch --source=pagemap --cgroup "$group" -n 2 -i 0.01
sum=$(frame 2 | awk '/^--- process / { p = 1; next }
	p && /^total pages: / { s += $4; p = 0 } END { print s }')
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(grep -c '^=== frame ' "$tmp/out")" = 2 ] &&
	[ "$(members 1)" = "$(echo $sorted)" ] &&
	[ "$(members 2)" = "$(echo $sorted)" ] &&
	frame 1 | grep -q "^group $group: 3 processes\$" &&
	frame 2 | grep -q "^group $group: 3 processes, 0 appeared, 0 gone\$" &&
	frame 2 | grep -q "^total pages: resident $sum (+0) "
result watch_two_frames
[ "$rc" = 0 ] || diag "$tmp/err"

# A live watch: a fourth stopped sleep moved into the child cgroup once
# frame 1 is out must appear; then a member killed (and reaped) must be
# gone in a later frame and in no frame after that.
"$PMAPS" watch --source=pagemap --cgroup "$group" -i 0.05 > "$tmp/live" \
	2> "$tmp/err" &
watch_pid=$!
set -- $pids
victim=$1
appeared=
gone=
if ! wait_for_line "$tmp/live" "^=== frame 1\$"; then
	echo "# pmaps watch showed no frame 1"
elif ! stopped_sleep || ! echo "$p" > "$group/sub/cgroup.procs"; then
	echo "# no fourth process in $group/sub"
elif ! wait_for_line "$tmp/live" "^--- process $p appeared\$"; then
	echo "# process $p never appeared"
else
	appeared=$p
	kill -KILL "$victim"
	wait "$victim" 2> /dev/null
	wait_for_line "$tmp/live" "^--- process $victim gone\$" && gone=$victim ||
		echo "# process $victim never gone"
	# one frame more after it, which must no longer list it
	n=$(sed -n 's/^=== frame \([0-9]*\)$/\1/p' "$tmp/live" | tail -n 1)
	wait_for_line "$tmp/live" "^=== frame $((n + 1))\$" ||
		echo "# no frame after frame $n"
fi
kill -TERM "$watch_pid"
wait_gone "$watch_pid" 600 0.05 "pmaps watch --cgroup after SIGTERM"
watch_pid=
# the frame where it appeared, and the frames from the one after
appeared_in=$(awk -v p="--- process $appeared appeared" '
	/^=== frame / { n = $3 } $0 == p { print n; exit }' "$tmp/live")
gone_in=$(awk -v p="--- process $gone gone" '
	/^=== frame / { n = $3 } $0 == p { print n; exit }' "$tmp/live")
last=$(sed -n 's/^=== frame \([0-9]*\)$/\1/p' "$tmp/live" | tail -n 1)
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && [ -n "$appeared" ] &&
	[ -n "$appeared_in" ] &&
	frame "$appeared_in" "$tmp/live" | grep -q "^group $group: 4 processes, 1 appeared, 0 gone\$" &&
	frame "$last" "$tmp/live" | grep -q "^--- process $appeared\$"
result watch_member_appears
[ -n "$gone" ] && [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ -n "$gone_in" ] && [ "$last" -gt "$gone_in" ] &&
	frame "$gone_in" "$tmp/live" | grep -q "^group $group: 3 processes, 0 appeared, 1 gone\$" &&
	! frame "$last" "$tmp/live" | grep -q "^--- process $gone"
result watch_member_gone
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] || diag "$tmp/err"

# Members killed while a watch reads them.  Each holds 64 MiB, so after
# SIGKILL exit_mm() takes a while to free it, and meanwhile the process is
# neither running nor a zombie yet its /proc/PID/pagemap fails with ESRCH:
# pmaps must count it gone there too, not stop with an error.  Frames
# come every 10 ms, so some land in that window.  The frame after the
# last one seen at the last kill may have begun before it and still list
# that member; the next lists none.  Each holder is a dd blocked writing
# a 64 MiB block into a FIFO nobody reads (this shell holds it open for
# reading), so it uses no CPU.
mkfifo "$tmp/hold"
exec 8<> "$tmp/hold"
: > "$tmp/live"
: > "$tmp/err"
moved=0
for i in 1 2 3 4 5; do
	dd if=/dev/zero of="$tmp/hold" bs=64M count=2 2> /dev/null &
	holders="$holders $!"
	echo "$!" > "$group/killed/cgroup.procs" && moved=$((moved + 1))
done
# held when dd's RSS has its 64 MiB (65536 kB), or when it has ended
held() {
	for p in $holders; do
		kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$p/status" 2> /dev/null)
		[ -z "$kb" ] || [ "$kb" -ge 65536 ] || return 1
	done
}
i=0
until held || [ $i -ge $((600 * slow)) ]; do
	sleep 0.05
	i=$((i + 1))
done
all_gone=
after=
if [ "$moved" != 5 ] || ! held; then
	echo "# the 5 holders were not in $group/killed with 64 MiB each"
else
	"$PMAPS" watch --source=pagemap --cgroup "$group/killed" -i 0.01 \
		> "$tmp/live" 2> "$tmp/err" &
	watch_pid=$!
	if wait_for_line "$tmp/live" "^=== frame 1\$"; then
		for p in $holders; do
			kill -KILL "$p"
			wait "$p" 2> /dev/null
		done
		all_gone=1
		n=$(sed -n 's/^=== frame \([0-9]*\)$/\1/p' "$tmp/live" | tail -n 1)
		after=$((n + 2))
		wait_for_line "$tmp/live" "^=== frame $((after + 1))\$" ||
			echo "# no frame $((after + 1)) after the kills"
	else
		echo "# pmaps watch showed no frame 1"
	fi
	# still running: an error would have ended it
	alive "$watch_pid" || echo "# pmaps watch ended by itself"
	kill -TERM "$watch_pid"
	wait_gone "$watch_pid" 600 0.05 "pmaps watch --cgroup after SIGTERM"
	watch_pid=
fi
holders=
exec 8<&-
never_gone=
[ -n "$all_gone" ] && for p in $(sed -n 's/^--- process \([0-9]*\)$/\1/p' \
	"$tmp/live" | sort -un); do
	grep -qx -- "--- process $p gone" "$tmp/live" || never_gone="$never_gone $p"
done
killed_diag() {
	echo "# exit status ${rc:-}; stderr, then the last 20 lines of the watch:"
	diag "$tmp/err"
	tail -n 20 "$tmp/live" | diag
	[ -z "$never_gone" ] || echo "# listed but never gone:$never_gone"
}
result_diag=killed_diag
[ -n "$all_gone" ] && [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ -z "$never_gone" ] &&
	frame 1 "$tmp/live" | grep -q "^group $group/killed: 5 processes\$" &&
	frame "$after" "$tmp/live" | grep -q "^group $group/killed: 0 processes, 0 appeared, [0-9]* gone\$" &&
	! frame "$after" "$tmp/live" | grep -q "^--- process [0-9]*\$"
result watch_members_killed_are_gone
result_diag=

tap_done
