#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the path of Debian's linux-source-6.12 tarball, downloading the
# package into build/cache once; its version goes beside it in
# linux-source-6.12.version.  It is not installed, to keep the host as
# it is; later steps extract what they need from the tarball.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BUILD:-$top/build}/cache
mkdir -p "$cache"
tarball=$(ls "$cache"/linux-source-6.12.tar.xz 2>/dev/null || true)
if [ -z "$tarball" ]; then
	(cd "$cache" && apt-get download -q linux-source-6.12 >/dev/null 2>&1) ||
		{ echo "linux-source.sh: apt-get download linux-source-6.12 failed" >&2; exit 1; }
	deb=$(ls "$cache"/linux-source-6.12_*.deb | tail -n 1)
	dpkg-deb -f "$deb" Version > "$cache/linux-source-6.12.version"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-6.12.tar.xz' \
		> "$cache/linux-source-6.12.tar.xz.tmp"
	mv "$cache/linux-source-6.12.tar.xz.tmp" "$cache/linux-source-6.12.tar.xz"
	rm -f "$deb"
	tarball=$cache/linux-source-6.12.tar.xz
fi
echo "$tarball"
