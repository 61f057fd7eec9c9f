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
#   tests/trixie-root.sh arm64      also set up the arm64 kernels (below);
#                                   print the root, then the newest 7.x
#                                   arm64 and arm64-16k releases
#   tests/trixie-root.sh list-arm64 print the same from the root as it is,
#                                   as list does
#   tests/trixie-root.sh run CMD... run CMD chrooted in the root, with a
#                                   /proc of its own (7.x's objtool reads
#                                   /proc/self); the mount ends with CMD.
#                                   PMAPS_BIND (directories, space-
#                                   separated) are bound at the same paths
#                                   inside, for as long: a tree outside
#                                   the root, such as the patched 7.x
#                                   tree (tests/kernel/build.sh arm64),
#                                   is built there under its own name
#   tests/trixie-root.sh link DIR   link DIR/trixie-root to the root, if
#                                   there is one and DIR has none: a
#                                   private BUILD (a tree's copy, a
#                                   guest of its own) then finds it, as
#                                   tests/qemu/run.sh and kernels.sh
#                                   look for it under BUILD
#
# For each release the headers are installed in the root and the image is
# extracted to ROOT/boot/vmlinuz-REL (the image package itself is not
# installed: it would build an initramfs nobody boots).  The newest ABI is
# looked up with apt-cache, never hard-coded.
#
# arm64: after dpkg --add-architecture arm64, the :arm64 headers of the
# newest 7.x arm64, arm64-16k and rt-arm64 kernels install here (their
# linux-kbuild is Multi-Arch: foreign) and build modules with
# gcc-14-aarch64-linux-gnu; the guest programs and pmaps link statically
# against the :arm64 libraries installed next to it.  The arm64 and
# arm64-16k images, from linux-binary-unsigned-REL (an uncompressed Image
# QEMU boots as it is), go to ROOT/boot/vmlinuz-REL, and busybox-static's
# arm64 busybox to ROOT/opt/arm64/busybox (not installed: it would put an
# arm64 /bin/busybox in the root).  gdb:arm64 installs here, and binutils'
# arm64 readelf goes to ROOT/opt/arm64/readelf, for the guests' core.sh.
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

# The newest release of a flavour ("amd64", "rt-amd64", "arm64-16k"...)
# that has headers and an image in trixie-backports, looked for from the
# newest down.  The image needs a package record of its own, not just a
# name that other packages mention (tests/kernels.sh says why).
newest() {
	in_root apt-cache search --names-only "^linux-headers-7\.[0-9.]*[+]deb13-$1\$" |
		sed -n "s/^linux-headers-\(7\.[0-9.]*[+]deb13-$1\) .*/\1/p" | sort -rV |
		while read -r rel; do
			if in_root apt-cache show "linux-binary-$rel" 2>/dev/null | grep -q '^Package: '; then
				echo "$rel"
				break
			fi
		done
}

if [ "${1:-}" = link ]; then
	mkdir -p "$2"
	[ -e "$2/trixie-root" ] || [ ! -d "$root" ] || ln -s "$root" "$2/trixie-root"
	exit
fi

# A private mount namespace: the /proc mount dies with CMD, even when CMD
# is killed, and no other process sees it.
if [ "${1:-}" = run ]; then
	shift
	[ -f "$root/.pmaps-ready" ] ||
		{ echo "trixie-root.sh: no trixie root in $root: run tests/deps.sh" >&2; exit 1; }
	exec unshare --mount --propagation private sh -c '
		for dir in ${PMAPS_BIND:-}; do
			mkdir -p "$0$dir" && mount --bind "$dir" "$0$dir" || exit 1
		done
		mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
fi

# The releases used, generic then rt, and for arm64 those booted, generic
# and 16K pages, then rt-arm64's headers (the module's W=1 build); make
# check (PMAPS_MATRIX=check, tests/kernels.sh) needs only the generic ones.
amd64_flavours="amd64 rt-amd64" arm64_flavours="arm64 arm64-16k" arm64_built=rt-arm64
if [ "${PMAPS_MATRIX:-all}" = check ]; then
	amd64_flavours=amd64 arm64_flavours=arm64 arm64_built=
fi
if [ "${1:-}" = list-arm64 ]; then
	[ -f "$root/.pmaps-ready" ] ||
		{ echo "trixie-root.sh: no trixie root in $root: run tests/deps.sh" >&2; exit 1; }
	echo "$root"
	for flavour in $arm64_flavours; do
		rel=$(newest "$flavour")
		if [ -z "$rel" ] || [ ! -f "$root/boot/vmlinuz-$rel" ] ||
			[ ! -d "$root/usr/src/linux-headers-$rel" ] ||
			[ ! -x "$root/opt/arm64/busybox" ]; then
			echo "trixie-root.sh: the newest 7.x $flavour kernel is not in $root: run tests/trixie-root.sh arm64" >&2
			exit 1
		fi
		echo "$rel"
	done
	exit 0
fi

# tests/kernels.sh asks often: answer without touching the root or the net.
if [ "${1:-}" = list ]; then
	[ -f "$root/.pmaps-ready" ] ||
		{ echo "trixie-root.sh: no trixie root in $root: run tests/deps.sh" >&2; exit 1; }
	echo "$root"
	for flavour in $amd64_flavours; do
		rel=$(newest "$flavour")
		if [ -z "$rel" ] || [ ! -f "$root/boot/vmlinuz-$rel" ] ||
			[ ! -d "$root/usr/src/linux-headers-$rel" ]; then
			echo "trixie-root.sh: the newest 7.x $flavour kernel is not in $root: run tests/deps.sh" >&2
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
	touch "$root/.pmaps-ready" "$root/.pmaps-updated"
fi
cmp -s /etc/resolv.conf "$root/etc/resolv.conf" ||
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# CI looks for the newest kernels, once an hour at most: make check calls
# this from steps that run side by side (tests/check.sh builds the patched
# kernels in the background), and two apt-get updates of one root at once
# fail on its lock.
if [ "${CI:-}" = true ] &&
	[ -z "$(find "$root/.pmaps-updated" -mmin -60 2>/dev/null)" ]; then
	in_root apt-get update -qq
	touch "$root/.pmaps-updated"
fi
# tests/dkms.sh builds for the 7.x kernels with trixie's dkms (here, not in
# debootstrap's list, so that roots made before that get it too).
[ -x "$root/usr/sbin/dkms" ] ||
	apt_install dkms
# tests/qemu/run.sh boots the amd64 guests with trixie's QEMU: bookworm's
# 7.2 lacks QEMU commit deba78709a ("accel/tcg: Always lock pages before
# translation", 8.1), and a vCPU may then run a stale int3 of x86's
# text_poke_bp() (an "Oops: int3" in 1 boot of 80 of 6.12 here).
[ -x "$root/usr/bin/qemu-system-x86_64" ] ||
	apt_install qemu-system-x86

if [ "${1:-}" = arm64 ]; then
	if ! in_root dpkg --print-foreign-architectures | grep -qx arm64; then
		in_root dpkg --add-architecture arm64
		in_root apt-get update -qq
	fi
	rels= headers=
	for flavour in $arm64_flavours $arm64_built; do
		rel=$(newest "$flavour")
		[ -n "$rel" ] || { echo "trixie-root.sh: no 7.x $flavour kernel in trixie-backports" >&2; exit 1; }
		[ -d "$root/usr/src/linux-headers-$rel" ] || headers="$headers linux-headers-$rel:arm64"
		case " $arm64_flavours " in *" $flavour "*) rels="$rels $rel" ;; esac
	done
	# elfutils from backports on both architectures: :arm64 and :amd64
	# of one library must be the same version.
	if [ -n "$headers" ] || [ ! -x "$root/usr/bin/aarch64-linux-gnu-gcc-14" ] ||
		[ ! -f "$root/usr/lib/aarch64-linux-gnu/libdw.a" ]; then
		apt_install -t trixie-backports $headers gcc-14-aarch64-linux-gnu pkgconf \
			libc6-dev:arm64 libdw-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 \
			libzstd-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64 libncurses-dev:arm64
	fi
	# Downloaded, then extracted: ONE member of PACKAGE (PKG:ARCH) to DEST.
	extract() {
		rm -rf "$root/tmp/extract"
		mkdir -p "$root/tmp/extract" "$(dirname "$3")"
		in_root sh -c "cd /tmp/extract && apt-get download -q -o APT::Sandbox::User=root -t trixie-backports $1" >/dev/null
		dpkg-deb --fsys-tarfile "$root"/tmp/extract/*.deb | tar -xO "$2" > "$3.tmp"
		mv "$3.tmp" "$3"
		rm -rf "$root/tmp/extract"
	}
	for rel in $rels; do
		[ -f "$root/boot/vmlinuz-$rel" ] ||
			extract "linux-binary-unsigned-$rel:arm64" "./usr/lib/modules/$rel/vmlinuz.unsigned" \
				"$root/boot/vmlinuz-$rel"
	done
	if [ ! -x "$root/opt/arm64/busybox" ]; then
		extract busybox-static:arm64 ./usr/bin/busybox "$root/opt/arm64/busybox"
		chmod 755 "$root/opt/arm64/busybox"
	fi
	# core.sh in the arm64 guests compares with gdb's gcore and binutils'
	# readelf, both for arm64 (tests/qemu/run.sh copies them with their
	# libraries).  gdb:arm64 installs here.  binutils-aarch64-linux-gnu:arm64,
	# which holds readelf, would replace the amd64 one the cross compiler
	# needs (they share a name): its readelf goes to ROOT/opt/arm64/readelf,
	# and the :arm64 libraries it depends on install here.
	if ! in_root dpkg-query -W -f '${Status}' gdb:arm64 2>/dev/null |
		grep -q ' installed$' || [ ! -x "$root/opt/arm64/readelf" ]; then
		readelf_libs=$(in_root apt-cache depends -t trixie-backports \
			binutils-aarch64-linux-gnu:arm64 |
			sed -n 's/^  Depends: \([^<>|]*:arm64\)$/\1/p')
		apt_install -t trixie-backports gdb:arm64 $readelf_libs
		extract binutils-aarch64-linux-gnu:arm64 ./usr/bin/aarch64-linux-gnu-readelf \
			"$root/opt/arm64/readelf"
		chmod 755 "$root/opt/arm64/readelf"
	fi
	# pmaps' unit suite for arm64 (tests/unit/arm64.sh) runs under
	# qemu-user: trixie's qemu-user is static, so its qemu-aarch64 runs
	# on the host as it is (amd64, not installed: the package brings
	# every target).
	if [ ! -x "$root/opt/arm64/qemu-aarch64" ]; then
		extract qemu-user:amd64 ./usr/bin/qemu-aarch64 "$root/opt/arm64/qemu-aarch64"
		chmod 755 "$root/opt/arm64/qemu-aarch64"
	fi
	echo "$root"
	for rel in $rels; do echo "$rel"; done
	exit 0
fi

if [ "${1:-}" = kernels ]; then
	rels=
	for flavour in $amd64_flavours; do
		rel=$(newest "$flavour")
		[ -n "$rel" ] || { echo "trixie-root.sh: no 7.x $flavour kernel in trixie-backports" >&2; exit 1; }
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
