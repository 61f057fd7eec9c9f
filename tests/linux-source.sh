#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the path of one of Debian's linux-source tarballs, downloading the
# package into build/cache; its version goes beside it, the tarball's
# name with .version for .tar.xz.  The package is not installed, to keep
# the host as it is; later steps extract what they need from the tarball.
#
#   tests/linux-source.sh [6.12]   linux-source-6.12, from the host's
#                                  bookworm lists; fetched once and kept, as
#                                  patches/ records its tree as base-commit
#   tests/linux-source.sh 7        the newest linux-source-7.N in
#                                  trixie-backports, through the apt of
#                                  tests/trixie-root.sh; fetched again
#                                  when trixie-backports has a newer one
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BUILD:-$top/build}/cache
line=${1:-6.12}
mkdir -p "$cache"

# fetch NAME DIR CMD...: run "CMD apt-get download NAME" in DIR, then keep
# the tarball of the .deb it left there and its version.
fetch() {
	name=$1 dir=$2
	shift 2
	rm -f "$dir/${name}_"*.deb
	(cd "$dir" && "$@" apt-get download -q -o APT::Sandbox::User=root "$name" >/dev/null 2>&1) ||
		{ echo "linux-source.sh: apt-get download $name failed" >&2; exit 1; }
	deb=$(ls "$dir/${name}_"*.deb | tail -n 1)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$name.tar.xz" \
		> "$cache/$name.tar.xz.tmp"
	dpkg-deb -f "$deb" Version > "$cache/$name.version"
	mv "$cache/$name.tar.xz.tmp" "$cache/$name.tar.xz"
	rm -f "$deb"
}

case $line in
6.12)
	name=linux-source-6.12
	[ -f "$cache/$name.tar.xz" ] || fetch "$name" "$cache"
	;;
7)
	root=$("$top/tests/trixie-root.sh")
	name=$(chroot "$root" apt-cache search --names-only '^linux-source-7\.[0-9]*$' |
		cut -d' ' -f1 | sort -V | tail -n 1)
	[ -n "$name" ] ||
		{ echo "linux-source.sh: no linux-source-7.N in trixie-backports" >&2; exit 1; }
	want=$(chroot "$root" apt-cache show --no-all-versions "$name" |
		sed -n 's/^Version: //p')
	if [ ! -f "$cache/$name.tar.xz" ] ||
	   [ "$(cat "$cache/$name.version" 2>/dev/null)" != "$want" ]; then
		# Only the newest 7.N is kept.
		rm -f "$cache"/linux-source-7.*
		mkdir -p "$root/tmp/linux-source"
		fetch "$name" "$root/tmp/linux-source" chroot "$root" sh -c 'cd /tmp/linux-source && "$@"' sh
		rmdir "$root/tmp/linux-source"
	fi
	;;
*)
	echo "usage: tests/linux-source.sh [6.12|7]" >&2
	exit 2
	;;
esac
echo "$cache/$name.tar.xz"
