#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the newest Debian kernel of each tested line, one per line, in the
# form tests/qemu/run.sh takes:
#
#   6.1.0-N-amd64              bookworm, installed on this host
#   6.12.X+deb12-amd64         bookworm
#   6.12.X+deb12-rt-amd64      bookworm, PREEMPT_RT
#   REL:ROOT/boot/vmlinuz-REL:ROOT/usr/src/linux-headers-REL
#                              7.x from trixie-backports, generic then rt,
#                              in the trixie build root (tests/trixie-root.sh)
#
# "kernels.sh bookworm" prints only the first three; "kernels.sh arm64"
# only the arm64 7.x kernels, generic then 16K pages, in the same form
# (tests/trixie-root.sh arm64 sets them up; tests/qemu/run.sh boots them
# in qemu-system-aarch64).  Old ABI numbers leave
# the archive, so the newest one with both an image and headers is looked
# up, never hard-coded.  Fails (after printing what it found) when a line
# is missing, e.g. before tests/deps.sh made the trixie root.
#
# PMAPS_MATRIX=check (make check) names only the lines make check boots:
# 6.1 and 7.x generic (the oldest and newest amd64 ones), 6.12 rt (one
# PREEMPT_RT, and the 6.12 API), and the arm64 generic kernel; make
# check-all, and every script run on its own, gets them all.
set -eu
here=$(dirname "$0")
# From the newest down, stopping at the first with an image: apt-cache
# show takes over a second, and this runs for every suite.  An image must
# have a package record of its own: headers can reach the archive before
# the signed image, which other packages already name, and apt-cache show
# exits 0 for such a name with no record (6.1.0-57 did, and CI's deps.sh
# failed with "has no installation candidate").
newest() {
	apt-cache search --names-only "^linux-headers-$1" |
		sed -n "s/^linux-headers-\($1\) .*/\1/p" | sort -rV | while read -r rel; do
			if apt-cache show "linux-image-$rel" 2>/dev/null | grep -q '^Package: '; then
				echo "$rel"
				break
			fi
		done
}
if [ "${1:-}" = arm64 ]; then
	arm64=$("$here/trixie-root.sh" list-arm64) || exit 1
	root=$(echo "$arm64" | head -n 1)
	for rel in $(echo "$arm64" | tail -n +2); do
		echo "$rel:$root/boot/vmlinuz-$rel:$root/usr/src/linux-headers-$rel"
	done
	exit 0
fi
lines='6\.1\.0-[0-9]*-amd64 6\.12\.[0-9]*[+]deb12-amd64 6\.12\.[0-9]*[+]deb12-rt-amd64'
[ "${PMAPS_MATRIX:-all}" = check ] &&
	lines='6\.1\.0-[0-9]*-amd64 6\.12\.[0-9]*[+]deb12-rt-amd64'
set -f	# the lines are patterns for apt-cache, not for the shell
for line in $lines; do
	rel=$(newest "$line")
	[ -n "$rel" ] || { echo "kernels.sh: no Debian kernel matches $line" >&2; exit 1; }
	echo "$rel"
done
[ "${1:-}" = bookworm ] && exit 0
# The first line is the root, then one release per line.
trixie=$("$here/trixie-root.sh" list) || exit 1
root=$(echo "$trixie" | head -n 1)
for rel in $(echo "$trixie" | tail -n +2); do
	echo "$rel:$root/boot/vmlinuz-$rel:$root/usr/src/linux-headers-$rel"
done
