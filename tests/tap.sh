# SPDX-License-Identifier: GPL-2.0
#
# The TAP library of every shell test: the host's (sourced as
# $top/tests/tap.sh) and the guest's (tests/qemu/run.sh puts it at
# /tap.sh).  POSIX sh, for dash, bash and busybox alike.  Sourcing it
# prints the TAP header.
#
#   ok NAME                 the next result, passed
#   not_ok NAME [LOG]       the next result, failed; LOG's last 40 lines
#                           follow as comments
#   skip NAME REASON        the next result, skipped for REASON
#   check NAME CMD...       ok when CMD succeeds; a CMD returning 4
#                           (kselftest's KSFT_SKIP) is skipped for
#                           $skip_reason; anything else is not ok
#   diag [FILE...]          FILE (or stdin) as TAP comments
#   tap_adopt LOG [PREFIX]  the results of the TAP stream in LOG made
#                           this stream's, renumbered, PREFIX before their
#                           names; its comments pass, its header and plan
#                           go, any other line becomes a comment.  Sets
#                           $tap_adopted (results taken) and $tap_faults
#                           (its unnumbered "not ok - " lines: a harness's
#                           own findings, shown as comments)
#   tap_plan N              the plan, first, where it is known in advance
#   tap_done                the plan, last, unless tap_plan gave it; false
#                           when a test failed
#
# The counts are $tap_nr and $tap_failed; a suite counts nothing itself.

tap_nr=0 tap_failed=0 tap_planned=
echo "TAP version 13"

ok() {
	tap_nr=$((tap_nr + 1))
	echo "ok $tap_nr $1"
}

not_ok() {
	tap_nr=$((tap_nr + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_nr $1"
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		tail -n 40 "$2" | diag
	fi
	return 0
}

skip() {
	tap_nr=$((tap_nr + 1))
	echo "ok $tap_nr $1 # SKIP $2"
}

check() {
	check_name=$1
	shift
	skip_reason=
	"$@"
	case $? in
	0) ok "$check_name" ;;
	4) skip "$check_name" "$skip_reason" ;;
	*) not_ok "$check_name" ;;
	esac
}

diag() {
	sed 's/^/# /' "$@"
}

tap_adopt() {
	tap_adopted=0 tap_faults=0
	while IFS= read -r tap_line; do
		case $tap_line in
		"ok "[0-9]*)
			tap_adopted=$((tap_adopted + 1))
			ok "${2:-}${tap_line#ok [0-9]* }"
			;;
		"not ok "[0-9]*)
			tap_adopted=$((tap_adopted + 1))
			not_ok "${2:-}${tap_line#not ok [0-9]* }"
			;;
		"not ok - "*)
			tap_faults=$((tap_faults + 1))
			echo "# ${tap_line#not ok - }"
			;;
		"TAP version "* | 1..*) ;;
		"#"*) echo "$tap_line" ;;
		*) echo "# $tap_line" ;;
		esac
	done < "$1"
}

tap_plan() {
	tap_planned=$1
	echo "1..$1"
}

tap_done() {
	[ -n "$tap_planned" ] || echo "1..$tap_nr"
	[ "$tap_failed" = 0 ]
}
