# SPDX-License-Identifier: GPL-2.0
#
# The common set-up of every shell test here, sourced first thing once
# $here is set: tests/tap.sh's results (ok, not_ok, skip, check, diag,
# tap_done; sourcing prints the TAP header), and what the unit tests add
# to them.  run captures a command's stdout, stderr and status, expect and
# expect_text compare them exactly, result turns the status of the
# commands before it into a result, spawn_target starts a test's target
# process, alive and wait_gone tell whether a child runs and wait a
# bounded time for it to end, kill_all kills and reaps children,
# wait_for_line waits a bounded time for a line in a file, lacks reports
# tests whose tool is missing, on_tty and have_tty run a command on a
# pseudo-terminal.  $slow scales poll bounds.  $esc is the escape
# character, for the tests of coloured output.

# The set-up every test shares, from $here (the test's directory): $top,
# the fixtures ($fix) and golden files ($golden), PMAPS (built here unless
# given) and the scratch directory $tmp, which each test's own EXIT trap
# removes.
top=$(cd "$here/../.." && pwd)
fix=$here/fixtures
golden=$here/golden
if [ -z "${PMAPS:-}" ]; then
	make -s -C "$top/userspace" >&2 || { echo "Bail out! make failed"; exit 1; }
	PMAPS=$top/userspace/pmaps
fi
tmp=$(mktemp -d)
# Poll bounds are counts times $slow: 10 when PMAPS runs under valgrind
# (tests/unit/Makefile's pmaps-valgrind), about that much slower, so that
# a bound waits for pmaps and not for a time; 3 under AddressSanitizer,
# where reading 113 MB of JSON took 10.2 s of CPU against 1.7 s, and with
# every CPU busy (make check-busy) overran test_hostile's 20 s; 1 otherwise.
slow=1
grep -qs valgrind "$PMAPS" && slow=10
[ "$slow" = 1 ] && grep -qs __asan_init "$PMAPS" && slow=3

esc=$(printf '\033')

. "$top/tests/tap.sh"

# on_tty CMD: the shell command CMD with a pseudo-terminal as its stdout
# (script(1)), its output in $tmp/out.
on_tty() {
	script -qec "$*" /dev/null < /dev/null > "$tmp/out" 2>&1
}

# have_tty TEST...: true where on_tty works; otherwise each TEST is
# reported as lacking script(1), or skipped for want of a pseudo-terminal.
have_tty() {
	if ! command -v script > /dev/null; then
		lacks "script(1)" "$@"
		return 1
	fi
	on_tty true && return 0
	for have_tty_test; do
		skip "$have_tty_test" "script(1) cannot open a pseudo-terminal here"
	done
	return 1
}

# lacks TOOL TEST...: TOOL, which the TESTs need, is not installed.  make
# check (PMAPS_CHECK=1) installs every such tool through tests/deps.sh, so
# there it is a fault of the set-up and each TEST fails; elsewhere the
# machine lacks it, and each TEST is skipped.
lacks() {
	lacks_tool=$1
	shift
	for lacks_test; do
		if [ "${PMAPS_CHECK:-}" = 1 ]; then
			not_ok "$lacks_test"
			echo "# no $lacks_tool, which tests/deps.sh installs for make check"
		else
			skip "$lacks_test" "no $lacks_tool"
		fi
	done
}

# qemu_user_refuses CALL CMD...: true when pmaps runs under qemu-user
# ($PMAPS is tests/unit/arm64.sh's wrapper of qemu-aarch64) and qemu
# itself refuses CALL, a system call or ioctl that the pmaps command CMD
# makes, instead of passing it to this kernel: CMD is run once with
# qemu's log of what it does not implement (QEMU_LOG=unimp), and CALL
# looked for there, a system call by arm64's number
# (asm-generic/unistd.h), an ioctl by its command.  Then $qemu_refused
# is the reason to give the tests that need CALL ("qemu-user does not
# emulate CALL"); else it is empty.  Wherever pmaps runs natively this is
# false without running CMD: the tests then see this kernel's own answer,
# and fail if it is wrong.
qemu_user_refuses() {
	qemu_refused=
	grep -qs qemu- "$PMAPS" || return 1
	case $1 in
	move_pages)		qemu_unimp="Unsupported syscall: 239" ;;
	perf_event_open)	qemu_unimp="Unsupported syscall: 241" ;;
	process_vm_readv)	qemu_unimp="Unsupported syscall: 270" ;;
	# _IOWR('f', 16, struct pm_scan_arg), sign-extended by qemu
	PAGEMAP_SCAN)	qemu_unimp="Unsupported ioctl: cmd=0x\(ffffffff\)\{0,1\}c0606610" ;;
	*)	echo "# qemu_user_refuses: nothing known of $1" >&2; return 1 ;;
	esac
	qemu_call=$1
	shift
	rm -f "$tmp/qemu_log"
	QEMU_LOG=unimp QEMU_LOG_FILENAME="$tmp/qemu_log" "$@" \
		< /dev/null > /dev/null 2>&1
	grep -qx "$qemu_unimp" "$tmp/qemu_log" 2> /dev/null || return 1
	case $qemu_call in
	[A-Z]*)	qemu_refused="qemu-user does not emulate the $qemu_call ioctl (ENOTTY)" ;;
	*)	qemu_refused="qemu-user does not emulate $qemu_call (ENOSYS)" ;;
	esac
}

# COND; result_unless REASON NAME: as result NAME, but NAME is skipped
# for REASON when REASON is not empty (a qemu_user_refuses reason)
result_unless() {
	result_unless_rc=$?
	if [ -n "$1" ]; then
		skip "$2" "$1"
		return 0
	fi
	(exit "$result_unless_rc")
	result "$2"
}

# run CMD...: stdout, stderr and status into $tmp/out, $tmp/err, $rc
run() {
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# expect NAME RC STDOUT-FILE STDERR-TEXT: the last run, exactly
expect() {
	printf '%s\n' "$4" | sed '/^$/d' > "$tmp/want_err"
	if [ "$rc" = "$2" ] && cmp -s "$tmp/out" "$3" &&
	   cmp -s "$tmp/err" "$tmp/want_err"; then
		ok "$1"
		return
	fi
	not_ok "$1"
	echo "# exit status $rc, expected $2"
	diff "$3" "$tmp/out" | diag
	diff "$tmp/want_err" "$tmp/err" | diag
}

# expect_text NAME RC STDOUT-TEXT STDERR-TEXT: as expect, stdout given
expect_text() {
	if [ -n "$3" ]; then
		printf '%s\n' "$3" > "$tmp/want_out"
	else
		: > "$tmp/want_out"
	fi
	expect "$1" "$2" "$tmp/want_out" "$4"
}

# COND; result NAME: a test that is the status of the commands before.
# A failure shows the last run's status, stdout and stderr, or runs the
# command in $result_diag where a test has no use for those (test_top.sh
# shows the screen).
result() {
	if [ $? = 0 ]; then
		ok "$1"
	else
		not_ok "$1"
		if [ -n "${result_diag:-}" ]; then
			$result_diag
		else
			echo "# exit status ${rc:-}; stdout and stderr:"
			diag "$tmp/out" "$tmp/err" | head -40
		fi
	fi
}

# spawn_target PROG TRIES STEP [ARG...]: build $tmp/target.c as $tmp/PROG,
# start it with ARGs and its stdout in $tmp/layout, set $target_pid, and
# wait up to TRIES times STEP seconds for it to write its layout there.
# False, with a message, when it does not build, exits first or writes
# nothing in time (then it is killed): a caller must not read an empty
# layout and go on with empty addresses.  $target_cflags, if set, are
# added to the compiler's flags.
spawn_target() {
	spawn_prog=$1 spawn_tries=$2 spawn_step=$3
	shift 3
	${CC:-cc} -O2 ${target_cflags:-} -o "$tmp/$spawn_prog" "$tmp/target.c" 2> "$tmp/err" || {
		echo "# $spawn_prog: does not build"
		return 1
	}
	"$tmp/$spawn_prog" "$@" > "$tmp/layout" &
	target_pid=$!
	i=0
	while [ ! -s "$tmp/layout" ]; do
		if ! alive "$target_pid"; then
			wait "$target_pid"
			echo "# $spawn_prog exited (status $?) before writing its layout"
			target_pid=
			return 1
		fi
		if [ $i -ge "$spawn_tries" ]; then
			echo "# $spawn_prog wrote no layout in $spawn_tries polls $spawn_step s apart"
			kill -KILL "$target_pid" 2> /dev/null
			wait "$target_pid" 2> /dev/null
			target_pid=
			return 1
		fi
		sleep "$spawn_step"
		i=$((i + 1))
	done
}

# wait_for_line FILE PATTERN: until FILE has a line matching PATTERN
# (grep), 30 s at most (5 min under valgrind)
wait_for_line() {
	i=0
	until grep -q "$2" "$1" 2> /dev/null; do
		[ $i -ge $((600 * slow)) ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# kill_all PID...: kill our children PID... and reap them (a cleanup's)
kill_all() {
	for p in "$@"; do kill -KILL "$p" 2> /dev/null; done
	for p in "$@"; do wait "$p" 2> /dev/null; done
}

# alive PID: PID runs (a zombie, exited but not yet waited for, does not)
alive() {
	alive_state=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -c1)
	[ -n "$alive_state" ] && [ "$alive_state" != Z ] && [ "$alive_state" != X ]
}

# wait_gone PID TRIES STEP WHAT: wait for our child PID to end, up to TRIES
# times STEP seconds; its status in $rc.  When it does not end, it is
# killed, and the message names WHAT: no wait may hang the suite.
wait_gone() {
	i=0
	while alive "$1"; do
		if [ $i -ge "$2" ]; then
			echo "# $4 did not end in $2 polls $3 s apart: killed"
			kill -KILL "$1" 2> /dev/null
			wait "$1" 2> /dev/null
			rc=timeout
			return 1
		fi
		sleep "$3"
		i=$((i + 1))
	done
	wait "$1"
	rc=$?
}

# write_tmux_conf FILE: the config of a test's private tmux server.  No
# status line, so the pane has every row; and the server stays when its
# last session is killed: a new-session right after a kill-session could
# otherwise reach a server on its way out and fail with "server exited
# unexpectedly" (1 run in 300 of the pair, tmux 3.3a; 0 in 1000 with
# exit-empty off).
write_tmux_conf() {
	printf 'set -g status off\nset -s exit-empty off\n' > "$1"
}
