#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install, by name and through apt, whatever the guest harness needs and is
# missing: the newest bookworm 6.1, 6.12 and 6.12 rt kernel images and
# headers, QEMU, busybox-static and cpio; then the trixie build root with
# the newest 7.x kernels, generic and rt (tests/trixie-root.sh, ~1 min the
# first time).  Installed packages are left alone.  Under
# PMAPS_MATRIX=check only the kernels make check boots (tests/kernels.sh).
#
#   tests/deps.sh           all of it
#   tests/deps.sh host      the host's packages only
#   tests/deps.sh roots     the trixie root with its 7.x kernels, amd64
#                           and arm64 (tests/trixie-root.sh kernels, arm64)
#                           and Debian's newest 7.x source
#                           (tests/linux-source.sh), for make check, which
#                           runs the host suites meanwhile
set -eu
here=$(dirname "$0")
export DEBIAN_FRONTEND=noninteractive

# CI's lists are fetched anew, once: make check runs "host" then "roots".
have_lists() { apt-cache show busybox-static >/dev/null 2>&1; }
if { [ "${CI:-}" = true ] && [ "${1:-}" != roots ]; } || ! have_lists; then
	apt-get update -qq
fi

# install PACKAGE...: those not installed yet, through apt
install_missing() {
	missing=
	for pkg; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $pkg"
	done
	[ -n "$missing" ] || return 0
	echo "deps.sh: installing$missing"
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	# A CI machine's disk can be small (one run stopped on ENOSPC): its
	# downloaded .debs go once installed.  A developer's cache stays.
	if [ "${CI:-}" = true ]; then
		apt-get clean
	fi
}

if [ "${1:-}" = roots ]; then
	# The bookworm kernels, then the trixie root's; make check installs
	# them beside the host suites, which need none of them.
	kernels=
	for rel in $("$here/kernels.sh" bookworm); do
		kernels="$kernels linux-image-$rel linux-headers-$rel"
	done
	install_missing $kernels
	"$here/trixie-root.sh" kernels >/dev/null
	"$here/trixie-root.sh" arm64 >/dev/null
	"$here/linux-source.sh" 7 >/dev/null
	exit
fi

want="qemu-system-x86 busybox-static cpio gzip make gcc libc6-dev valgrind"
# pmaps top (ncurses) and its screen tests (tmux); the CLI tests' tools:
# script(1) from bsdutils, setpriv(1) from util-linux, file(1), python3.
want="$want libncurses-dev tmux bsdutils util-linux file python3"
# pmaps map --png and pmaps heap --png compress with zlib.
want="$want zlib1g-dev"
# pmaps export's tests parse its OpenMetrics text with the client's parser.
want="$want python3-prometheus-client"
# pmaps heap reads libc's debug symbols with elfutils, and its tests
# read a target with and without them, one linked with jemalloc, and one
# that strace holds, which pmaps heap cannot stop.
want="$want libdw-dev libc6-dbg libjemalloc-dev strace"
# The guest's static pmaps links libdw.a, which needs libbz2.a too.
want="$want libbz2-dev"
# Building the patched kernel (tests/kernel/build.sh).
want="$want flex bison bc libelf-dev libssl-dev xz-utils git"
# checkpatch.pl runs scripts/spdxcheck.py, which needs these.
want="$want python3-ply python3-git"
# The arm64 guests (tests/trixie-root.sh arm64, tests/kernels.sh arm64).
want="$want qemu-system-arm"
# The trixie root for the 7.x kernels (tests/trixie-root.sh), and the
# bookworm root tests/deb.sh installs the packages on.
want="$want debootstrap"
# pmaps perf and pmaps record check their files against perf's reading.
want="$want linux-perf"
# pmaps core's tests compare with gdb's gcore and binutils' readelf, on the
# host and (tests/qemu/run.sh copies them in) in the guest.
want="$want gdb binutils"
# make deb and its checks (tests/deb.sh).
want="$want dpkg-dev debhelper dh-dkms lintian pkg-config"
# systemd-analyze verify checks the pmaps package's timer and service.
want="$want systemd"
# The module's DKMS packaging (tests/dkms.sh).
want="$want dkms"
# The fuzzers (tests/fuzz/run.sh): clang with the libFuzzer runtime.
want="$want clang-14 libclang-rt-14-dev"
[ "${1:-}" = host ] || for rel in $("$here/kernels.sh" bookworm); do
	want="$want linux-image-$rel linux-headers-$rel"
done
install_missing $want
# The guest's gdb: gdb-minimal, which needs no Python, unpacked beside the
# host's full gdb (the two packages conflict), where every copy of the
# tree the self-tests and mutants make finds it (tests/qemu/run.sh).
guest_gdb=/var/cache/pmaps-ext/gdb-minimal
if [ ! -x "$guest_gdb/usr/bin/gdb" ]; then
	rm -rf "$guest_gdb.tmp"
	mkdir -p "$guest_gdb.tmp"
	(cd "$guest_gdb.tmp" &&
		apt-get download -qq -o APT::Sandbox::User=root gdb-minimal >/dev/null &&
		dpkg-deb -x gdb-minimal_*.deb root)
	rm -rf "$guest_gdb"
	mv "$guest_gdb.tmp/root" "$guest_gdb"
	rm -rf "$guest_gdb.tmp"
fi
# node_exporter and promtool for tests/unit/test_textfile.sh: Debian's
# prometheus-node-exporter and prometheus, unpacked rather than installed,
# since installing them starts node_exporter on :9100 and a Prometheus
# server on :9090 wherever systemd runs; the test starts its own
# node_exporter on a free loopback port and stops it.
for pkg in prometheus-node-exporter prometheus; do
	dir=/var/cache/pmaps-ext/$pkg
	[ -d "$dir/usr/bin" ] && continue
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" &&
		apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null &&
		dpkg-deb -x "$pkg"_*.deb root)
	rm -rf "$dir"
	mv "$dir.tmp/root" "$dir"
	rm -rf "$dir.tmp"
done
[ "${1:-}" = host ] || "$here/trixie-root.sh" kernels >/dev/null
