# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers of every shell test here, sourced after $tmp (a scratch
# directory) is made; sourcing prints the TAP header.  ok/not_ok/skip print
# a result, run captures a command's stdout, stderr and status, expect and
# expect_text compare them exactly, result turns the status of the
# commands before it into a result, tap_done prints the plan and returns
# failure if any test failed.  $esc is the escape character, for the
# tests of coloured output.

nr=0
failed=0
esc=$(printf '\033')

echo "TAP version 13"

ok() {
	nr=$((nr + 1))
	echo "ok $nr $1"
}

not_ok() {
	nr=$((nr + 1))
	failed=$((failed + 1))
	echo "not ok $nr $1"
}

skip() {
	nr=$((nr + 1))
	echo "ok $nr $1 # SKIP $2"
}

diag() {
	sed 's/^/# /' "$@"
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

tap_done() {
	echo "1..$nr"
	[ "$failed" = 0 ]
}
