#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian trixie build root for the 7.x kernel line, made once under
# build/trixie-root and kept there.  Debian's 7.x kernels come from
# trixie-backports, were built with gcc-14, and their linux-kbuild tools
# link against trixie's glibc: bookworm can neither run nor match them, so
# modules for them are built inside this root (chroot).
#
#   tests/trixie-root.sh            set the root up; print its path
#   tests/trixie-root.sh kernels    also print the newest 7.x releases with
#                                   headers and image, generic then rt,
#                                   one per line (e.g. 7.3.4+deb13-amd64)
#   tests/trixie-root.sh list       print the same from the root as it is,
#                                   installing and updating nothing; fails
#                                   when the root or a kernel is missing
#   tests/trixie-root.sh run CMD... run CMD chrooted in the root, with a
#                                   /proc of its own (7.x's objtool reads
#                                   /proc/self); the mount ends with CMD
#
# For each release the headers are installed in the root and the image is
# extracted to ROOT/boot/vmlinuz-REL (the image package itself is not
# installed: it would build an initramfs nobody boots).  The newest ABI is
# looked up with apt-cache, never hard-coded.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
root=${BUILD:-$top/build}/trixie-root
export DEBIAN_FRONTEND=noninteractive

in_root() { chroot "$root" "$@"; }
# dpkg's pty log needs /dev/pts, which the root lacks: without this every
# install printed "E: Can not write log (Is /dev/pts mounted?)".  The
# .debs go once installed: CI's disk is not large.
apt_install() {
	in_root apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "$@" >/dev/null &&
		in_root apt-get clean
}

# The newest release of a flavour ("" or "rt-") that has headers and an
# image in trixie-backports, looked for from the newest down.
newest() {
	in_root apt-cache search --names-only "^linux-headers-7\.[0-9.]*[+]deb13-$1amd64\$" |
		sed -n "s/^linux-headers-\(7\.[0-9.]*[+]deb13-$1amd64\) .*/\1/p" | sort -rV |
		while read -r rel; do
			if in_root apt-cache show "linux-binary-$rel" >/dev/null 2>&1; then
				echo "$rel"
				break
			fi
		done
}

# A private mount namespace: the /proc mount dies with CMD, even when CMD
# is killed, and no other process sees it.
if [ "${1:-}" = run ]; then
	shift
	[ -f "$root/.pmaps-ready" ] ||
		{ echo "trixie-root.sh: no trixie root in $root: run tests/deps.sh" >&2; exit 1; }
	exec unshare --mount --propagation private sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
fi

# tests/kernels.sh asks often: answer without touching the root or the net.
if [ "${1:-}" = list ]; then
	[ -f "$root/.pmaps-ready" ] ||
		{ echo "trixie-root.sh: no trixie root in $root: run tests/deps.sh" >&2; exit 1; }
	echo "$root"
	for flavour in "" rt-; do
		rel=$(newest "$flavour")
		if [ -z "$rel" ] || [ ! -f "$root/boot/vmlinuz-$rel" ] ||
			[ ! -d "$root/usr/src/linux-headers-$rel" ]; then
			echo "trixie-root.sh: the newest 7.x ${flavour}amd64 kernel is not in $root: run tests/deps.sh" >&2
			exit 1
		fi
		echo "$rel"
	done
	exit 0
fi

if [ ! -f "$root/.pmaps-ready" ]; then
	command -v debootstrap >/dev/null ||
		apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
	# The machine's own mirror (or proxy), named on stderr.
	mirror=$("$top/tests/apt-mirror.sh") || exit 1
	rm -rf "$root"
	mkdir -p "$root"
	debootstrap --variant=minbase \
		--include=gcc-14,make,libelf-dev,bc,flex,bison,kmod,ca-certificates \
		trixie "$root" "$mirror" > "$root.log" 2>&1 ||
		{ tail -n 20 "$root.log" >&2; echo "trixie-root.sh: debootstrap failed" >&2; exit 1; }
	echo "deb $mirror trixie-backports main" > "$root/etc/apt/sources.list.d/backports.list"
	in_root apt-get update -qq
	touch "$root/.pmaps-ready"
	updated=1
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
if [ "${CI:-}" = true ] && [ -z "${updated:-}" ]; then
	in_root apt-get update -qq
fi
# tests/dkms.sh builds for the 7.x kernels with trixie's dkms (here, not in
# debootstrap's list, so that roots made before that get it too).
[ -x "$root/usr/sbin/dkms" ] ||
	apt_install dkms

if [ "${1:-}" = kernels ]; then
	rels=
	for flavour in "" rt-; do
		rel=$(newest "$flavour")
		[ -n "$rel" ] || { echo "trixie-root.sh: no 7.x ${flavour}amd64 kernel in trixie-backports" >&2; exit 1; }
		rels="$rels $rel"
	done
	missing=
	for rel in $rels; do
		[ -d "$root/usr/src/linux-headers-$rel" ] || missing="$missing linux-headers-$rel"
	done
	if [ -n "$missing" ]; then
		apt_install -t trixie-backports $missing
	fi
	for rel in $rels; do
		[ -f "$root/boot/vmlinuz-$rel" ] && continue
		rm -rf "$root/tmp/image"
		mkdir -p "$root/tmp/image" "$root/boot"
		in_root sh -c "cd /tmp/image && apt-get download -q -o APT::Sandbox::User=root -t trixie-backports linux-binary-$rel" >/dev/null
		dpkg-deb --fsys-tarfile "$root"/tmp/image/linux-binary-*.deb |
			tar -xO "./usr/lib/modules/$rel/vmlinuz" > "$root/boot/vmlinuz-$rel.tmp"
		mv "$root/boot/vmlinuz-$rel.tmp" "$root/boot/vmlinuz-$rel"
		rm -rf "$root/tmp/image"
	done
	echo "$root"
	for rel in $rels; do echo "$rel"; done
	exit 0
fi
echo "$root"
