#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Packages and shells (issue 16), printing TAP; runs as root.
#
#   - make without kernel headers (KDIR= a missing directory) says what to
#     install, and make clean still cleans; both on a copy of the tree, as
#     make clean removes build/;
#   - make install puts the bash completion where bash-completion looks,
#     and tests/completion.bash passes on it;
#   - make deb builds pmaps and pmaps-ext-dkms, lintian finds no error or
#     warning in them, and they hold what they should;
#   - both install with dpkg -i on a Debian bookworm root: the dkms
#     package's postinst builds the module for the root's kernel headers,
#     the packaged pmaps runs and its completion works there, and removing
#     the dkms package removes the module;
#   - in a QEMU guest of that kernel (tests/qemu/run.sh --mode modprobe),
#     the root's own modprobe (kmod) loads the module DKMS built, and the
#     packaged modprobe.d rule mounts it on /proc/pmaps_ext; the text and
#     the packaged pmaps read it; modprobe -r unmounts and unloads it
#     (tests/guest/modprobe.sh).
#
# The root (debootstrap minbase with dkms and the headers of the bookworm
# 6.1 kernel that tests/kernels.sh names) is made once, in about two
# minutes, and kept in build/deb-root; each run installs on an overlay of
# it that is thrown away, so the root and the host stay as they were.
# The host kernel cannot load modules, so the guest gets what the install
# left in the root and the programs that use it, and boots the host's
# /boot/vmlinuz of the same release.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
export DEBIAN_FRONTEND=noninteractive

# Mounts (the overlay, /proc) are made in a mount namespace of this script's
# own: they end with it, even when it is killed.
if [ -z "${PMAPS_DEB_UNSHARED:-}" ]; then
	PMAPS_DEB_UNSHARED=1 exec unshare --mount --propagation private \
		sh "$0" "$@"
fi

. "$top/tests/tap-host.sh"
debs=$top/build/deb
root=$build/deb-root
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmaps-deb.XXXXXX")
merged=$tmp/merged
cleanup() {
	umount "$merged/proc" "$merged" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# tests/guest/modprobe.sh's plan: its results are this script's too.
guest_tests=$(sed -n 's/^tap_plan \([0-9][0-9]*\)$/\1/p' "$top/tests/guest/modprobe.sh")
tap_plan $((16 + guest_tests))

# A copy of the tree: tracked and new unignored files, as make deb takes.
src=$tmp/src
mkdir -p "$src"
(cd "$top" && if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard |
		tar --null --ignore-failed-read -cf - -T - 2>/dev/null
else
	tar --exclude=./build -cf - .
fi) | tar -xf - -C "$src"

log=$tmp/make.log
if make -C "$src" KDIR="$tmp/no-headers" > "$log" 2>&1; then
	not_ok "make without kernel headers fails" "$log"
elif ! grep -q "apt-get install linux-headers-$(uname -r)" "$log" ||
	! grep -q 'make pmaps' "$log" ||
	grep -q 'No such file or directory' "$log"; then
	not_ok "make without kernel headers names linux-headers-$(uname -r) and make pmaps" "$log"
else
	ok "make without kernel headers names linux-headers-$(uname -r) and make pmaps"
fi

# What an in-place kbuild run leaves behind.
leftovers="pmaps_ext.ko pmaps_ext.mod.c module/main.o module/.main.o.cmd module/probes.h"
for f in $leftovers; do
	: > "$src/$f"
done
log=$tmp/clean.log
if ! make -C "$src" KDIR="$tmp/no-headers" clean > "$log" 2>&1; then
	not_ok "make clean without kernel headers" "$log"
elif for f in $leftovers; do [ -e "$src/$f" ] && echo "left: $f"; done |
	grep . >> "$log"; then
	not_ok "make clean without kernel headers removes kbuild's output" "$log"
else
	ok "make clean without kernel headers removes kbuild's output"
fi

log=$tmp/install.log
dest=$tmp/destdir
completion=$dest/usr/share/bash-completion/completions/pmaps
if ! make -C "$src" install PREFIX=/usr DESTDIR="$dest" > "$log" 2>&1; then
	not_ok "make install" "$log"
elif ! cmp "$src/userspace/completion/pmaps" "$completion" >> "$log" 2>&1 ||
	[ ! -x "$dest/usr/bin/pmaps" ]; then
	find "$dest" >> "$log"
	not_ok "make install puts pmaps and its completion under PREFIX" "$log"
else
	ok "make install puts pmaps and its completion under PREFIX"
fi

log=$tmp/completion.log
if bash "$top/tests/completion.bash" "$completion" > "$log" 2>&1; then
	ok "bash completion: $(tail -n 1 "$log" | sed 's/^# //')"
else
	not_ok "bash completion (tests/completion.bash)" "$log"
fi

log=$tmp/deb.log
if make -C "$top" deb > "$log" 2>&1 && [ -f "$debs/pmaps_${version}_amd64.deb" ] &&
	[ -f "$debs/pmaps-ext-dkms_${version}_all.deb" ]; then
	ok "make deb builds pmaps and pmaps-ext-dkms $version"
else
	not_ok "make deb builds pmaps and pmaps-ext-dkms $version" "$log"
fi

log=$tmp/lintian.log
if ! lintian "$debs"/pmaps-ext_"${version}"_*.changes > "$log" 2>&1 &&
	! grep -q '^[EW]: ' "$log"; then
	not_ok "lintian ran" "$log"
elif grep -q '^[EW]: ' "$log"; then
	not_ok "lintian: no error or warning" "$log"
else
	ok "lintian: no error or warning"
fi

# has DEB FILE...: each FILE is in DEB.
has() {
	deb=$1
	shift
	dpkg-deb -c "$deb" | awk '{ print $6 }' > "$tmp/contents" 2>&1
	for f; do
		grep -qx "\./$f" "$tmp/contents" || { echo "no $f" >> "$tmp/contents"; return 1; }
	done
}
if has "$debs/pmaps_${version}_amd64.deb" usr/bin/pmaps \
	usr/share/man/man1/pmaps.1.gz usr/share/bash-completion/completions/pmaps \
	usr/libexec/pmaps/pmaps-textfile etc/default/pmaps-textfile \
	lib/systemd/system/pmaps-textfile.service \
	lib/systemd/system/pmaps-textfile.timer usr/share/pmaps/grafana/pmaps.json; then
	ok "pmaps holds the reader, its man page, its completion, the textfile timer and the dashboard"
else
	not_ok "pmaps holds the reader, its man page, its completion, the textfile timer and the dashboard" "$tmp/contents"
fi
if has "$debs/pmaps-ext-dkms_${version}_all.deb" etc/modprobe.d/pmaps_ext.conf \
	"usr/src/$name-$version/dkms.conf" "usr/src/$name-$version/Kbuild" \
	"usr/src/$name-$version/module/main.c" &&
	dpkg-deb -f "$debs/pmaps-ext-dkms_${version}_all.deb" Depends |
		grep -q '^dkms\b'; then
	ok "pmaps-ext-dkms holds the source, dkms.conf and the modprobe.d rule, and depends on dkms"
else
	not_ok "pmaps-ext-dkms holds the source, dkms.conf and the modprobe.d rule, and depends on dkms" "$tmp/contents"
fi

# The root, made once.  libncursesw6 is there for pmaps, as dpkg -i
# installs no dependency.
rel=$("$top/tests/kernels.sh" bookworm 2>/dev/null | head -n 1)
log=$tmp/root.log
make_root() {
	[ -n "$rel" ] || { echo "no bookworm 6.1 kernel (tests/kernels.sh)"; return 1; }
	if [ ! -f "$root/.pmaps-ready" ]; then
		# The machine's own mirror (or proxy), named on stderr.
		mirror=$("$top/tests/apt-mirror.sh") &&
			security=$("$top/tests/apt-mirror.sh" security) ||
			return 1
		rm -rf "$root"
		mkdir -p "$root"
		debootstrap --variant=minbase --include=dkms,libncursesw6 \
			bookworm "$root" "$mirror" || return 1
		# The kernel headers come from bookworm-security.
		cat > "$root/etc/apt/sources.list" <<-EOF
		deb $mirror bookworm main
		deb $mirror bookworm-updates main
		deb $security bookworm-security main
		EOF
		touch "$root/.pmaps-ready"
	fi
	[ -d "$root/usr/src/linux-headers-$rel" ] && return 0
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	chroot "$root" apt-get update -qq &&
		chroot "$root" apt-get install -y -qq -o Dpkg::Use-Pty=0 \
			--no-install-recommends "linux-headers-$rel" &&
		chroot "$root" apt-get clean
}
if make_root > "$log" 2>&1; then
	ok "bookworm root with dkms and linux-headers-$rel"
else
	not_ok "bookworm root with dkms and linux-headers-$rel" "$log"
fi

# The throwaway layer: all that dpkg writes goes to $tmp/upper.
mkdir -p "$tmp/upper" "$tmp/work" "$merged"
log=$tmp/dpkg.log
if mount -t overlay overlay \
	-o "lowerdir=$root,upperdir=$tmp/upper,workdir=$tmp/work" "$merged" >> "$log" 2>&1 &&
	mount -t proc proc "$merged/proc" >> "$log" 2>&1 &&
	cp "$debs/pmaps_${version}_amd64.deb" "$debs/pmaps-ext-dkms_${version}_all.deb" \
		"$top/tests/completion.bash" "$merged/tmp/" &&
	chroot "$merged" dpkg -i "/tmp/pmaps_${version}_amd64.deb" \
		"/tmp/pmaps-ext-dkms_${version}_all.deb" >> "$log" 2>&1; then
	ok "dpkg -i pmaps pmaps-ext-dkms on the root"
else
	not_ok "dpkg -i pmaps pmaps-ext-dkms on the root" "$log"
fi

# The module dkms built (and compressed, where the kernel does) in postinst.
ko=$(ls "$merged/lib/modules/$rel/updates/dkms/$name.ko"* 2>/dev/null | head -n 1)
chroot "$merged" dkms status > "$tmp/status" 2>&1
if grep -q "^$name/$version, $rel, x86_64: installed" "$tmp/status" &&
	[ -n "$ko" ] &&
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$rel" ]; then
	ok "postinst built and installed $name.ko for $rel"
else
	cat "$tmp/status" >> "$log"
	not_ok "postinst built and installed $name.ko for $rel" "$log"
fi

# What the guest needs of the installed root: the module, depmod's index
# and the modprobe.d rules as dpkg left them, and the programs that load it
# (/sbin/modprobe is kmod's, and the rule runs under dash with util-linux's
# mount and mountpoint), with the libraries the root's ldd names, copied
# to where it names them.  The merged-/usr links (bin -> usr/bin) and the
# links to the programs come as links.
guest=$tmp/guest
# Relative: tar takes them from $merged, and chroot starts in its /.
progs="usr/bin/kmod usr/bin/dash usr/bin/cat usr/bin/mount usr/bin/umount
	usr/bin/mountpoint usr/bin/pmaps"
collect() {
	[ -n "$rel" ] && mkdir -p "$guest" &&
		tar -C "$merged" -cf "$tmp/guest.tar" bin sbin lib lib64 usr/bin/sh \
			usr/sbin/modprobe $progs "usr/lib/modules/$rel" etc/modprobe.d \
			usr/lib/modprobe.d &&
		tar -xf "$tmp/guest.tar" -C "$guest" &&
		mkdir -p "$guest/usr/lib64" || return 1
	for lib in $(chroot "$merged" ldd $progs |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\/.*[^:]$/ { print $1 }' | sort -u); do
		mkdir -p "$guest${lib%/*}" &&
			cp "$merged$(chroot "$merged" readlink -f "$lib")" "$guest$lib" || return 1
	done
	mkdir -p "$guest/proc" "$guest/sys" "$guest/dev"
}
collected=
collect > "$tmp/collect.log" 2>&1 && collected=1

out=$(chroot "$merged" pmaps --version 2>&1)
if [ "$out" = "pmaps (pmaps_ext) $version" ]; then
	ok "the packaged pmaps --version: $out"
else
	echo "$out" > "$tmp/version"
	not_ok "the packaged pmaps --version is pmaps (pmaps_ext) $version" "$tmp/version"
fi

# The textfile timer: installed disabled (no link in timers.target.wants),
# and the script it runs, with the
# packaged configuration (the 10 largest processes), writes metrics where
# prometheus-node-exporter reads them once that directory exists.
log=$tmp/textfile.log
textfile=$merged/var/lib/prometheus/node-exporter
if ls "$merged/etc/systemd/system/timers.target.wants/" >> "$log" 2>&1 &&
	[ -e "$merged/etc/systemd/system/timers.target.wants/pmaps-textfile.timer" ]; then
	not_ok "the textfile timer is installed disabled" "$log"
elif ! mkdir -p "$textfile" ||
	! chroot "$merged" /usr/libexec/pmaps/pmaps-textfile >> "$log" 2>&1 ||
	! grep -q '^pmaps_pss_bytes{pid="[0-9]*"' "$textfile/pmaps.prom" 2>> "$log" ||
	! grep -q '^pmaps-textfile: wrote /var/lib/prometheus/node-exporter/pmaps.prom: ' "$log"; then
	not_ok "the packaged pmaps-textfile writes /var/lib/prometheus/node-exporter/pmaps.prom" "$log"
else
	ok "the textfile timer is installed disabled; its script writes /var/lib/prometheus/node-exporter/pmaps.prom"
fi

log=$tmp/completion-root.log
if chroot "$merged" bash /tmp/completion.bash \
	/usr/share/bash-completion/completions/pmaps > "$log" 2>&1; then
	ok "the packaged completion on bookworm's bash: $(tail -n 1 "$log" | sed 's/^# //')"
else
	not_ok "the packaged completion on bookworm's bash" "$log"
fi

log=$tmp/purge.log
if chroot "$merged" dpkg --purge pmaps-ext-dkms > "$log" 2>&1 &&
	! ls "$merged/lib/modules/$rel/updates/dkms/$name.ko"* >> "$log" 2>&1 &&
	[ ! -e "$merged/etc/modprobe.d/pmaps_ext.conf" ] &&
	[ -z "$(chroot "$merged" dkms status 2>&1)" ]; then
	ok "dpkg --purge pmaps-ext-dkms removes the module and the rule"
else
	not_ok "dpkg --purge pmaps-ext-dkms removes the module and the rule" "$log"
fi

# The guest: the host's $rel kernel boots with those files in its
# initramfs and loads the module with the root's modprobe, through the
# rule (tests/guest/modprobe.sh).  Its results are renumbered into this
# stream; those it never printed fail, and so does a fault the harness found
# (a kernel warning, a guest that did not finish).
log=$tmp/guest.log
: > "$log"
if [ -n "$collected" ]; then
	# run.sh boots it with the trixie root's QEMU, found under BUILD
	"$top/tests/trixie-root.sh" link "$build/deb-guest"
	BUILD=$build/deb-guest QEMU_TIMEOUT=300 GUEST_ROOT=$guest \
		"$top/tests/qemu/run.sh" --mode modprobe "$rel" > "$log" 2>&1
fi
tap_adopt "$log" "in the guest: "
k=$tap_adopted
while [ "$k" -lt "$guest_tests" ]; do
	k=$((k + 1))
	not_ok "in the guest: test $k of $guest_tests gave no result"
done
if [ -z "$collected" ]; then
	not_ok "the installed module and modprobe, copied for a guest" "$tmp/collect.log"
elif [ "$tap_faults" -ne 0 ] || ! grep -q "^qemu: $rel: guest ran" "$log"; then
	not_ok "the $rel guest finished, and its console shows no kernel problem"
else
	ok "the $rel guest finished, and its console shows no kernel problem"
fi

tap_done
