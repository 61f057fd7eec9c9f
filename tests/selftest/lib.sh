# SPDX-License-Identifier: GPL-2.0
#
# Sourced by every tests/selftest/test_*.sh once $top is set.  A self-test
# proves that the suite catches a fault: it breaks a private copy of the
# tree on purpose, runs the piece of the suite that should notice, and is
# ok only when that piece reports the failure it should.  Prints TAP.
#
#   st_copy DIR            the tree as git sees it (tracked and new files,
#                          none ignored) copied to DIR
#   st_sed DIR FILE EXPR   the breakage: sed -i EXPR on DIR/FILE; false when
#                          the file did not change, so a breakage that no
#                          longer applies fails instead of proving nothing
#   caught NAME LOG ERE    ok NAME when LOG has a line matching ERE, else
#                          not ok with LOG's tail
#   ok, not_ok, tap_done   the results and the plan (tests/tap.sh)

. "$top/tests/tap.sh"

st_copy() {
	rm -rf "$1" && mkdir -p "$1" &&
		(cd "$top" && git ls-files -co --exclude-standard -z |
			cpio -0 -pdm --quiet "$1")
}

st_sed() {
	cp "$1/$2" "$1/$2.unbroken" && sed -i "$3" "$1/$2" &&
		! cmp -s "$1/$2" "$1/$2.unbroken"
	st_changed=$?
	rm -f "$1/$2.unbroken"
	[ $st_changed = 0 ] || echo "# the breakage '$3' no longer changes $2"
	return $st_changed
}

caught() {
	if [ -f "$2" ] && grep -qE -- "$3" "$2"; then
		ok "$1"
	else
		not_ok "$1"
		echo "# expected a line matching: $3"
		[ -f "$2" ] && tail -n 15 "$2" | sed 's/^/#   /'
	fi
}

