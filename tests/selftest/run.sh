#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The harness tests itself: each tests/selftest/test_*.sh breaks a copy of
# the tree on purpose and is ok only when the suite then fails as it
# should (tests/selftest/lib.sh).  Prints each one's TAP, two scripts at
# a time (tests/unit/each.sh): each works in a directory of its own.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../unit/each.sh" 2 "" "$here"/test_*.sh
