#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SIGINT and SIGTERM end every command promptly, whatever system call it
# is blocked in (issue 30): each command below is held in open() of a FIFO
# nobody writes (a --cgroup directory whose cgroup.procs is one, or a
# document given as one), then sent the signal, and must end within a
# bound: killed by it, or for pmaps watch, which ends on either signal
# with status 0 (pmaps.1), with status 0.  pmaps wss and pmaps watch catch
# both signals for their waits, and once blocked them everywhere else.
# Prints TAP.  PMAPS names the binary.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

cleanup() {
	[ -n "${pid:-}" ] && kill -KILL "$pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

mkdir "$tmp/group"
mkfifo "$tmp/group/cgroup.procs" "$tmp/doc"

openat_nr=$(printf '#include <sys/syscall.h>\nSYS_openat\n' |
	    ${CC:-cc} -E -P - 2> /dev/null | tail -n 1)

# in_open PID: wait, bounded, until PID is blocked in openat
in_open() {
	i=0
	while [ $i -lt $((400 * slow)) ]; do
		read -r call rest < "/proc/$1/syscall" 2> /dev/null
		[ "${call:-}" = "$openat_nr" ] && return 0
		alive "$1" || break
		sleep 0.05
		i=$((i + 1))
	done
	echo "# never blocked in openat ($openat_nr)"
	return 1
}

# ends_on SIGNAL STATUS NAME ARGS...: pmaps ARGS blocked in open(), then
# SIGNAL, must end within 5 s (10 polls of 0.5 s; more under valgrind)
# with STATUS ("signal": killed by it, 128 + its number)
ends_on() {
	sig=$1 want=$2 name=$3
	shift 3
	# a shell gives its background jobs SIGINT ignored: not a user's pmaps
	env --default-signal=INT,TERM "$PMAPS" "$@" < /dev/null > "$tmp/out" 2> "$tmp/err" &
	pid=$!
	if in_open "$pid"; then
		kill "-$sig" "$pid"
		wait_gone "$pid" $((10 * slow)) 0.5 "pmaps $* after SIG$sig"
	else
		kill -KILL "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
		rc=never-blocked
	fi
	pid=
	[ "$want" = signal ] && case $sig in INT) want=130 ;; TERM) want=143 ;; esac
	if [ "$rc" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# pmaps $*: status $rc after SIG$sig, expected $want"
		diag "$tmp/err"
	fi
}

g=$tmp/group
ends_on TERM signal wss_term_in_open wss --clear-refs --source=pagemap -i 0.05 --cgroup "$g"
ends_on INT signal wss_int_in_open wss --clear-refs --source=pagemap -i 0.05 --cgroup "$g"
ends_on TERM 0 watch_term_in_open watch -i 0.2 --cgroup "$g"
ends_on INT 0 watch_int_in_open watch -i 0.2 --cgroup "$g"
ends_on TERM signal view_term_in_open --cgroup "$g"
ends_on TERM signal export_term_in_open export --cgroup "$g"
ends_on TERM signal file_term_in_open -f "$tmp/doc"
ends_on INT signal diff_int_in_open diff "$tmp/doc" "$tmp/doc"

tap_done
