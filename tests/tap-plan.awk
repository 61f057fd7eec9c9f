# SPDX-License-Identifier: GPL-2.0
#
# Check every TAP stream in one suite's log against its plan, so that a
# suite which stops early, or runs a test twice, cannot pass by exiting 0.
#
#   awk -v suite=NAME -f tests/tap-plan.awk LOG
#
# A stream starts at "TAP version" (or, in a stream that prints none, at its
# plan or first numbered result); it must have exactly one plan "1..N", before
# its first result or after its last, and results numbered 1 to N.  The
# comment line before a stream names it (the suites print "# suite X" or the
# program's path there).  Prints one "not ok - SUITE: STREAM: what" line per
# broken stream and nothing when every stream agrees with its plan.  The
# harness's own unnumbered "not ok - ..." lines are outside every stream;
# one that follows a stream (a suite that timed out or crashed) has already
# counted its fault, so that stream's plan is not judged again.
function open_stream(label) {
	close_stream()
	open = 1; plan = -1; plans = 0; results = 0; after_plan = 0; bad = ""
	excused = 0
	streams++
	name = label != "" ? label : "stream " streams
	comment = ""
}
function count(k) { return k (k == 1 ? " result" : " results") }
function close_stream() {
	if (!open)
		return
	open = 0
	if (bad == "" && plans == 0)
		bad = "no plan, " count(results)
	else if (bad == "" && plans > 1)
		bad = plans " plans"
	else if (bad == "" && results != plan)
		bad = "plan 1.." plan ", " count(results)
	if (bad != "" && !excused)
		printf "not ok - %s: %s: %s\n", suite, name, bad
}
function fail(what) { if (bad == "") bad = what }
/^# / { comment = substr($0, 3); next }
/^not ok - / { excused = open; next }
/^TAP version / { open_stream(comment); next }
/^1\.\.[0-9]+/ {
	n = substr($1, 4) + 0
	# A second stream that prints no "TAP version": its plan comes first.
	if (open && plans && results)
		open_stream(comment)
	if (!open)
		open_stream(comment)
	plans++
	plan = n
	after_plan = results > 0
	next
}
/^(not )?ok [0-9]+/ {
	num = $1 == "not" ? $3 : $2
	if (open && num == 1 && results > 0)
		open_stream(comment)
	if (!open)
		open_stream(comment)
	if (after_plan)
		fail("result " num " after the plan")
	if (num != results + 1)
		fail("result " num " where " (results + 1) " was due")
	results++
	next
}
END { close_stream() }
