#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the newest Debian kernel release of each supported line, one per line
# ("6.1.0-N-amd64", "6.12.X+deb12-amd64").  Old ABI numbers leave the archive,
# so the newest one with both an image and headers is looked up, never hard-coded.
set -eu
newest() {
	apt-cache search --names-only "^linux-headers-$1" |
		sed -n "s/^linux-headers-\($1\) .*/\1/p" | sort -V | while read -r rel; do
			apt-cache show "linux-image-$rel" >/dev/null 2>&1 && echo "$rel"
		done | tail -n 1
}
for line in '6\.1\.0-[0-9]*-amd64' '6\.12\.[0-9]*[+]deb12-amd64'; do
	rel=$(newest "$line")
	[ -n "$rel" ] || { echo "kernels.sh: no Debian kernel matches $line" >&2; exit 1; }
	echo "$rel"
done
