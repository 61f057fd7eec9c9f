#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot each kernel in QEMU (TCG) with the module and the guest programs in
# a busybox initramfs, and judge the run from the host.
#
#   tests/qemu/run.sh [--mode check|demo|patched|bench|modprobe] [KERNEL...]
#
# KERNEL is a Debian release (its /boot/vmlinuz and /usr/src/linux-headers)
# or NAME:IMAGE:KDIR for a kernel built here (tests/kernel/build.sh) or
# kept in the trixie build root (tests/trixie-root.sh): a KDIR under
# build/trixie-root is built for inside that root, with chroot.
# Default: every Debian kernel tests/kernels.sh names.  Mode bench runs
# tests/guest/bench.c (pmaps.bench=$BENCH_ARGS) and leaves its records in
# $BUILD/result-KERNEL.log for tests/bench/run.sh; GUEST_BINS are copied
# into the guest's /bin.  With PROFILE=READER[,READER] it profiles those
# readers with the host's perf instead (tests/bench/profile.sh).  Mode
# modprobe builds nothing: GUEST_ROOT (files of an installed Debian root,
# from tests/deb.sh) goes to the guest's /deb,
# and tests/guest/modprobe.sh loads the module from there.  STRESS_SECONDS
# (default 60) is how long the race stress runs.  SUITES (comma-separated,
# e.g. /lifecycle.sh,/bin/wss_test) runs only those.  OMIT_SUITES
# (space-separated GLOB:SUITE, e.g. '*-arm64:/bin/resources') leaves
# SUITE out on each kernel whose name matches GLOB, and the guest says
# so: make check's share of the suites (tests/check.sh).  Mode patched runs
# the suites against both the module and /proc/PID/pmaps of a patched
# kernel, its selftest, and compares the two texts.  Mode mutants builds
# no module: MUTANTS_DIR (NAME.ko files and their list, from
# tests/mutants/run.sh) goes to the guest's /mutants.  A guest that died
# of the machine (QEMU exited with an error, or the console was quiet
# for QEMU_STALL seconds, default 180) and shows no kernel problem boots
# once more, with a "# rerun:" line.  A kernel passes when the
# guest wrote its closing token to the second serial port, and the console
# shows no BUG: (KASAN too), WARNING: (lockdep too), Oops, soft lockup, RCU
# stall, hung task or panic.  Prints the TAP it got, a failing line naming
# the kernel and the suite, and one "not ok - KERNEL: ..." line for each
# fault found from the host (a module that does not build, a kernel
# problem on the console, a guest that did not finish); last, "qemu: N
# passed, N failed, N skipped" over all kernels, or in mode demo what the
# demo showed and how to see it on this machine.  QEMU names the emulator
# (the harness's self-test gives it a stand-in).  QEMU_NUMA=1 boots the
# guest with two NUMA nodes of 1 GiB and one CPU each (tests/guest/numa_test.c
# needs them; its node tests skip without).
#
# A kernel whose headers' .config says CONFIG_ARM64 (tests/kernels.sh
# arm64) boots in qemu-system-aarch64 (QEMU_ARM64), -M virt -cpu max
# under TCG, with the module, the guest programs and pmaps cross-built in
# the trixie root and its busybox-static:arm64 (tests/trixie-root.sh
# arm64); its TAP port is a virtio console.  core.sh runs there with
# the root's gdb:arm64 and binutils' arm64 readelf.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
mode=check
if [ "${1:-}" = --mode ]; then
	mode=$2
	shift 2
fi
troot=$build/trixie-root

qemu_amd64=${QEMU:-$troot/usr/bin/qemu-system-x86_64}
qemu_arm64=${QEMU_ARM64:-qemu-system-aarch64}
# A fault that stops the whole run before any kernel boots.
die() {
	echo "not ok - qemu: $*"
	exit 2
}
kernels=$*
if [ -z "$kernels" ]; then
	kernels=$("$top/tests/kernels.sh") || die "tests/kernels.sh failed: run tests/deps.sh"
fi
# Nothing to boot is no pass.
[ -n "$(echo $kernels)" ] || die "no kernel to boot: tests/kernels.sh named none"

. "$top/tests/qemu/lib.sh"

if [ "$mode" = modprobe ]; then
	[ -d "${GUEST_ROOT:-}" ] || die "mode modprobe: GUEST_ROOT is no directory"
fi
if [ "$mode" = mutants ]; then
	[ -f "${MUTANTS_DIR:-}/list" ] || die "mode mutants: no list in MUTANTS_DIR"
fi

# The guest programs and a static pmaps for architecture $1, once: in
# $guest_bins and $pmaps_bin, and busybox in $busybox.  For arm64 they
# are cross-built in the trixie root (gcc-14-aarch64-linux-gnu and the
# :arm64 libraries tests/trixie-root.sh arm64 installs), from a copy of
# the sources there.
built=
build_programs() {
	case $1 in
	arm64)
		arm=$troot/tmp/arm64.$(printf '%s' "$build" | cksum | cut -d' ' -f1)
		guest_bins=$arm/guest pmaps_bin=$arm/userspace/pmaps
		busybox=$troot/opt/arm64/busybox
		;;
	*)
		guest_bins=$build/guest pmaps_bin=$build/userspace-static/pmaps
		busybox=/bin/busybox
		;;
	esac
	[ -x "$busybox" ] || die "$busybox missing: run tests/deps.sh"
	case " $built " in *" $1 "*) return 0 ;; esac
	built="$built $1"
	[ "$mode" = modprobe ] && return 0
	case $1 in
	arm64)
		mkdir -p "$arm/src/tests"
		rm -rf "$arm/src/userspace" "$arm/src/tests/guest"
		# with their times, so that make rebuilds only what changed
		cp -rp "$top/userspace" "$arm/src/"
		cp -rp "$top/tests/guest" "$arm/src/tests/"
		cp -p "$top/dkms.conf" "$arm/src/"
		in=${arm#"$troot"}
		"$top/tests/trixie-root.sh" run env \
			PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
			make -s -C "$in/src/tests/guest" O="$in/guest" \
			CC=aarch64-linux-gnu-gcc-14 ||
			die "building the arm64 guest programs failed"
		"$top/tests/trixie-root.sh" run env \
			PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
			make -s -C "$in/src/userspace" O="$in/userspace" \
			CC=aarch64-linux-gnu-gcc-14 LDFLAGS=-static ||
			die "building a static arm64 pmaps failed"
		;;
	*)
		make -s -C "$top/tests/guest" O="$build/guest" ||
			die "building the guest programs failed"
		make -s -C "$top/userspace" O="$build/userspace-static" LDFLAGS=-static ||
			die "building a static pmaps failed"
		;;
	esac
}

# core.sh compares pmaps core with gdb's gcore and readelf: the two in
# /bin of initramfs $1 for architecture $2, with the shared libraries
# they load and the dynamic loader at the same paths as where they come
# from.  amd64: gdb is gdb-minimal (tests/deps.sh), which needs no
# Python, and readelf the host's, their libraries as ldd finds them here.
# arm64: gdb:arm64 and readelf from the trixie root (tests/trixie-root.sh
# arm64), their libraries as the root's aarch64 loader lists them, run
# there under the root's qemu-aarch64 (ldd's own way), copied from the
# root.  That gdb links libpython but needs no Python files for gcore:
# without them it says "Python initialization failed" and goes on.
add_tools() {
	case $2 in
	arm64)
		gdb=/usr/bin/gdb readelf=/opt/arm64/readelf from=$troot
		[ -x "$troot$gdb" ] && [ -x "$troot$readelf" ] ||
			die "$troot$gdb or $troot$readelf missing: run tests/trixie-root.sh arm64"
		loader=$(readelf -l "$troot$gdb" |
			sed -n 's/.*Requesting program interpreter: \([^]]*\)].*/\1/p')
		[ -n "$loader" ] || die "$troot$gdb names no program interpreter"
		libs=$( { "$top/tests/trixie-root.sh" run /opt/arm64/qemu-aarch64 \
				"$loader" --list "$gdb" &&
			"$top/tests/trixie-root.sh" run /opt/arm64/qemu-aarch64 \
				"$loader" --list "$readelf"; } ) ||
			die "the arm64 loader $loader could not list the libraries of $gdb and $readelf"
		;;
	*)
		gdb=/var/cache/pmaps-ext/gdb-minimal/usr/bin/gdb readelf=/usr/bin/readelf from=
		[ -x "$gdb" ] || die "$gdb missing: run tests/deps.sh"
		libs=$( { ldd "$gdb"; ldd "$readelf"; } )
		;;
	esac
	cp "$from$gdb" "$1/bin/gdb"
	cp "$from$readelf" "$1/bin/readelf"
	add_libs "$1" "$from" "$libs"
}

# Into initramfs $1, the libraries that ldd output $3 lists, from root $2
# (empty: this machine's), each at its own path.
add_libs() {
	for lib in $(echo "$3" |
		sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
		sort -u); do
		mkdir -p "$1${lib%/*}"
		cp -L "$2$lib" "$1$lib"
	done
}

pack_initramfs() {
	root=$build/initramfs-$1
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
	cp "$busybox" "$root/bin/busybox"
	cp "$top/tests/qemu/init" "$root/init"
	cp "$top"/tests/guest/*.sh "$top/tests/tap.sh" "$root/"
	if [ "$mode" = modprobe ]; then
		cp -a "$GUEST_ROOT" "$root/deb"
	else
		if [ "$mode" = mutants ]; then
			cp -r "$MUTANTS_DIR" "$root/mutants"
		else
			cp "$module_dir/pmaps_ext.ko" "$root/"
		fi
		find "$guest_bins" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/bin/" \;
		# The series' selftests (tests/kernel/run.sh): a list.
		for prog in ${SELFTEST:-}; do cp "$prog" "$root/bin/"; done
		# Further programs for /bin, e.g. page-types for the bench.
		for extra in ${GUEST_BINS:-}; do cp "$extra" "$root/bin/"; done
		cp "$pmaps_bin" "$root/bin/"
		# gdb and readelf where core.sh runs (every suite runs when
		# SUITES is empty)
		case ",${SUITES:-/core.sh}," in
		*,/core.sh,*) add_tools "$root" "$arch" ;;
		esac
		# tests/bench/profile.sh: the host's perf (amd64 only)
		if [ -n "${PROFILE:-}" ]; then
			cp /usr/bin/perf "$root/bin/perf"
			add_libs "$root" "" "$(ldd /usr/bin/perf)"
		fi
	fi
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$build/initramfs-$1.cpio.gz"
}

# One socket per node: CPUs of one package on two nodes make x86's
# topology_sane() warn, which panic_on_warn turns into a panic.
# A 1 GiB hugetlb page cannot be found after boot in a guest this small,
# so one is reserved at boot (pmaps_test's 1 GiB tests).  4 GiB: q35 puts
# 2 GiB below the PCI hole and the rest above 4 GiB, where a 1 GiB-aligned
# gigabyte is free at boot (with 3 GiB it is not); 3 GiB stay for the rest.  The NUMA guest has two nodes of 1 GiB instead, and
# pmaps.nodes=2 tells numa_test that fewer is a failure.
smp=2 numa_args= mem=4G huge_cmdline=" hugepagesz=1G hugepages=1"
[ "${QEMU_NUMA:-0}" = 1 ] && smp=2,sockets=2,cores=1,threads=1 mem=2G \
	huge_cmdline=" pmaps.nodes=2" \
	numa_args="-object memory-backend-ram,id=m0,size=1G
	-object memory-backend-ram,id=m1,size=1G
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1"

# omitted_suites REL: the suites OMIT_SUITES leaves out on REL, comma-separated
omitted_suites() {
	list=
	for entry in ${OMIT_SUITES:-}; do
		# shellcheck disable=SC2254 # the glob is the point
		case $1 in
		${entry%%:*}) list="$list${list:+,}${entry#*:}" ;;
		esac
	done
	echo "$list"
}

boot() {
	rel=$1
	omit=$(omitted_suites "$rel")
	console=$build/console-$rel.log
	result=$build/result-$rel.log
	rm -f "$console" "$result"
	case $arch in
	arm64)
		# virt has one UART (the console); the TAP goes to a virtio
		# console, hvc0 in the guest.
		set -- "$qemu_arm64" -machine virt -accel tcg -cpu max \
			-serial "file:$console" \
			-device virtio-serial-pci -chardev "file,id=tap,path=$result" \
			-device virtconsole,chardev=tap
		con="console=ttyAMA0 pmaps.tap=hvc0"
		;;
	*)
		# trixie's QEMU, chrooted in its root with build/ bound in
		# (tests/trixie-root.sh says why not bookworm's); the image
		# goes to build/ for it.
		if [ -n "${QEMU:-}" ]; then
			set -- "$QEMU"
		else
			cp "$image" "$build/vmlinuz-$rel" ||
				die "cannot copy $image to $build"
			image=$build/vmlinuz-$rel
			set -- env PMAPS_BIND="$build" "$top/tests/trixie-root.sh" \
				run qemu-system-x86_64
		fi
		set -- "$@" -machine q35 -accel tcg -cpu max \
			-serial "file:$console" -serial "file:$result"
		con=console=ttyS0
		;;
	esac
	# resources.c's 200000 one-page ranges take 3.1 GiB of 16 KiB pages,
	# more than the 2.5 GiB 4G leaves beside the reserved gigabyte.
	guest_mem=$mem
	[ "$mem" = 4G ] && grep -qx CONFIG_ARM64_16K_PAGES=y "$kdir/.config" &&
		guest_mem=6G
	timeout "$qemu_limit" "$@" \
		-smp $smp -m $guest_mem $numa_args -no-reboot -display none -monitor none \
		-kernel "$image" -initrd "$build/initramfs-$rel.cpio.gz" \
		-append "$con panic_on_warn=1 oops=panic panic=-1 softlockup_panic=1 pmaps.mode=$mode pmaps.stress=${STRESS_SECONDS:-60} pmaps.bench=${BENCH_ARGS:-full}${PROFILE:+ pmaps.profile=$PROFILE}${SUITES:+ pmaps.suites=$SUITES}${omit:+ pmaps.omit=$omit}$huge_cmdline${extra_cmdline:-}" &
	qemu_pid=$!
	# The guest's init prints a heartbeat to the console every 20 s
	# (tests/qemu/init), and the kernel prints whatever goes wrong
	# there: a console quiet for QEMU_STALL seconds is a guest that no
	# longer runs, and it is stopped rather than waited for until
	# QEMU_TIMEOUT.
	stalled= last= since=$(date +%s)
	while kill -0 "$qemu_pid" 2> /dev/null; do
		size=$(stat -c %s "$console" 2> /dev/null || echo 0)
		now=$(date +%s)
		[ "$size" = "$last" ] || last=$size since=$now
		if [ $((now - since)) -ge "${QEMU_STALL:-180}" ]; then
			stalled=$((now - since))
			kill "$qemu_pid" 2> /dev/null
			break
		fi
		sleep 1
	done
	wait "$qemu_pid"
	qemu_status=$?
}

# Under a loaded host the clocksource watchdog can find the TSC unstable
# and fall back to jiffies: times in 4 ms steps.  The bench keeps the TSC.
# Debian's 7.x kernels start DAMON_STAT at boot, which samples memory by
# clearing the accessed bit of random pages, in stopped targets too: a Y
# flag would vanish between two reads.  The tests want the kernel to leave
# the targets' page tables alone, so it stays off (older kernels ignore it).
extra_cmdline=" damon_stat.enabled=N"
[ "$mode" = bench ] && extra_cmdline="$extra_cmdline tsc=reliable"
# QEMU_TIMEOUT: seconds a whole guest may run; a Debian amd64 guest took
# 150 s alone with the race stress at 5 s, 318 s in make check beside the
# other lanes, and up to 479 s in make check-all (race stress at 60 s).
qemu_limit=${QEMU_TIMEOUT:-1500}
# SUITE_LIMIT: seconds a guest suite may run, for a slow kernel (the
# guest's init has its default).
[ -n "${SUITE_LIMIT:-}" ] && extra_cmdline="$extra_cmdline pmaps.suite_limit=$SUITE_LIMIT"

passed=0 failed=0 skipped=0 retried=0
for spec in $kernels; do
	kernel_spec "$spec"
	[ -f "$image" ] || die "no kernel image $image: run tests/deps.sh"
	arch=$(kernel_arch "$kdir")
	eval "qemu=\$qemu_$arch"
	command -v "$qemu" >/dev/null || die "$qemu missing: run tests/deps.sh"
	echo "qemu: kernel $rel"
	# The module first: one that does not build needs no guest programs.
	if [ "$mode" != modprobe ] && [ "$mode" != mutants ] &&
		! build_module "$rel" "$kdir"; then
		echo "not ok - $rel: the module does not build with W=1 cleanly"
		failed=$((failed + 1))
		continue
	fi
	build_programs "$arch"
	pack_initramfs "$rel"
	# A guest that died of the machine, not of a test, boots once more:
	# QEMU exited with an error of its own, or the console stopped, and
	# the console shows no kernel problem and the guest did not finish.
	# The rerun is said, and counted; a test that fails is not rerun.
	attempt=1
	while :; do
		start=$(date +%s)
		boot "$rel"
		echo "qemu: $rel: guest ran $(($(date +%s) - start)) s (limit $qemu_limit s)"
		touch "$result"
		# The serial port turns every newline into CRLF.
		sed -i 's/\r$//' "$result"
		finished=
		grep -q '^pmaps-guest: done' "$result" && finished=1
		bad=$(grep -aE "$kernel_problems" "$console" | head -5)
		died=
		if [ -z "$finished" ] && [ -z "$bad" ]; then
			if [ -n "$stalled" ]; then
				died="its console stopped for $stalled s"
			elif [ "$qemu_status" -ne 0 ] && [ "$qemu_status" -ne 124 ]; then
				died="QEMU exited with status $qemu_status"
			fi
		fi
		[ -n "$died" ] && [ $attempt = 1 ] || break
		echo "# rerun: $rel: the guest died of the machine, not of a test ($died), after $(grep -c '^# suite .* after ' "$result") suites; booting it once more.  Console tail:"
		tail -n 10 "$console" | sed 's/^/#   /'
		attempt=2
	done
	# Each failing line names the kernel and the suite ("# suite X"
	# comes before every suite's TAP), wherever it is read later.
	awk -v rel="$rel" '
		/^# suite [^ ]*$/ { suite = $3 }
		/^not ok / { $0 = $0 " [" rel (suite != "" ? " " suite : "") "]" }
		!/^pmaps-guest: done/' "$result" > "$result.named"
	mv "$result.named" "$result"
	[ "$mode" = bench ] || cat "$result"
	read -r p f s r x <<-EOF
	$(awk -v main=1 -f "$top/tests/tap-count.awk" "$result")
	EOF
	if [ -n "$bad" ]; then
		echo "not ok - $rel: the console shows a kernel problem"
		echo "$bad" | sed 's/^/#   /'
		f=$((f + 1))
	fi
	if [ -z "$finished" ]; then
		echo "not ok - $rel: the guest did not finish (no closing token${died:+; $died}); console tail:"
		tail -n 20 "$console" | sed 's/^/#   /'
		f=$((f + 1))
	elif [ "$mode" = demo ] && ! grep -q '^\$ pmaps --summary' "$result"; then
		# the guest says why (tests/qemu/init, start_demo)
		echo "not ok - $rel: the demo showed no process"
		f=$((f + 1))
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	retried=$((retried + r))
done
# A demo shows a process, not test counts: what was shown, and how to
# see the same on the user's own machine.
if [ "$mode" = demo ]; then
	if [ "$failed" -ne 0 ]; then
		echo "demo: failed, as the lines above say"
		exit 1
	fi
	echo "demo: above, a process's pages as the module lists them"
	echo "demo: (/proc/pmaps_ext/PID) and as pmaps shows them, in a $rel guest."
	echo "demo: The same on this machine: sudo make load && make pmaps &&"
	echo "demo: userspace/pmaps PID (README.md, \"On a real machine\"; without"
	echo "demo: the module, pmaps reads /proc/PID/pagemap)."
	exit 0
fi
# A retry stays only where the kernel may change what is compared
# between two reads; each one printed its difference, and is counted.
echo "qemu: $passed passed, $failed failed, $skipped skipped, $retried retried"
[ "$failed" -eq 0 ]
