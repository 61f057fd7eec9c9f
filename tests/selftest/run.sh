#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The harness tests itself: each tests/selftest/test_*.sh breaks a copy of
# the tree on purpose and is ok only when the suite then fails as it
# should (tests/selftest/lib.sh).  Prints each one's TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
for t in "$here"/test_*.sh; do
	[ -f "$t" ] || continue
	echo "# $t"
	sh "$t" || status=1
done
exit $status
