# SPDX-License-Identifier: GPL-2.0
#
# make                 build pmaps_ext.ko for the running kernel (or KDIR=)
# make load / unload   insmod + mount on /proc/pmaps_ext, and back (root)
# make pmaps           build the pmaps reader (userspace/pmaps)
# make install         install pmaps, pmaps.1 and the bash completion
#                      (PREFIX=, DESTDIR=)
# make modules_install install the module and its modprobe.d rule
# make deb             the Debian packages pmaps and pmaps-ext-dkms, in
#                      build/deb (tests/deb.sh installs and checks them)
# make check           every kind of test, on the kernel lines that matter
#                      most: under 40 minutes on 2 cores (README.md)
# make check-all       the whole matrix: every kernel line and patched
#                      config, valgrind, NUMA, 16 KiB pages, every mutant
# make check-qemu      every guest suite on every Debian amd64 kernel, in
#                      full (make check shares some out: tests/check.sh)
# make check-busy      the host suites with every CPU busy (stress-ng)
# make demo            boot a guest, load the module, show a demo process
# make kernel-check    apply patches/, build, boot and check the kernels
# make check-kernel-arm64  the same for one arm64 kernel (not in make check)
# make style           checkpatch.pl -f (from the newest linux-source-7.N) on module/
# make fuzz            fuzz the parser for FUZZ_SECONDS (default 600)
# make mutants         every mutant of tests/mutants/mutants.txt must be
#                      killed by the suites (make check runs a subset)
# make bench           readers side by side in QEMU guests, as ratios, plus
#                      userspace throughput (results in build/bench/results)
# make bench-host      only the host part of make bench, no guests (root):
#                      tests/bench/userspace.sh (PMAPS=, RUNS=)
# make bench-profile   perf profiles, in the guests, of the in-kernel readers
#                      on the rows that miss their targets

KDIR ?= /lib/modules/$(shell uname -r)/build
MOUNT_POINT := /proc/pmaps_ext

.PHONY: all modules clean load unload check check-all check-valgrind check-qemu \
	check-arm64 demo style modules_install \
	pmaps install kernel-check fuzz bench bench-host bench-profile \
	have-kdir deb \
	check-busy mutants check-unit-arm64 check-kernel-arm64

all: modules

# Without headers kbuild fails with "No such file or directory. Stop.",
# which names neither the package nor the way around it.
have-kdir:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "No kernel headers in $(KDIR): the module cannot be built." >&2; \
		echo "For the running kernel, on Debian or Ubuntu:" >&2; \
		echo "    apt-get install linux-headers-$$(uname -r)" >&2; \
		echo "For another kernel: make KDIR=/lib/modules/VERSION/build" >&2; \
		echo "Only the pmaps reader, which needs no headers: make pmaps" >&2; \
		exit 1; \
	fi

# 7.x's objtool reads /proc/self/maps, and without /proc (a chroot with
# none mounted) fails with "read_stack_limit: fopen failed", which does
# not say what is missing.
modules: have-kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules || { \
		[ -r /proc/self/maps ] || \
		echo "No /proc/self/maps: the kernel's objtool needs /proc mounted (mount -t proc proc /proc)." >&2; \
		exit 1; }

pmaps:
	$(MAKE) -C userspace

install:
	$(MAKE) -C userspace install

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	install -D -m 0644 module/pmaps_ext.modprobe.conf \
		$(DESTDIR)/etc/modprobe.d/pmaps_ext.conf

# Without headers kbuild cannot clean, so what it would remove (its
# in-place output, see .gitignore) is removed here.
clean:
	if [ -f "$(KDIR)/Makefile" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR) clean; \
	else \
		rm -f pmaps_ext.ko pmaps_ext.mod pmaps_ext.mod.c pmaps_ext.o \
			Module.symvers modules.order module/probes.h \
			module/probes.h.tmp; \
		find . -path ./build -prune -o \( -name '*.o' -o -name '.*.cmd' \
			-o -name '*.mod' -o -name '*.mod.c' -o -name '*.ko' \) \
			-type f -print | xargs rm -f; \
	fi
	rm -rf build

# insmod and mount are one step: the module's files live on its own
# filesystem (Documentation/pmaps_ext.rst, "Why a filesystem").
load: modules
	insmod ./pmaps_ext.ko
	mount -t pmaps_ext pmaps_ext $(MOUNT_POINT)

unload:
	if mountpoint -q $(MOUNT_POINT); then umount $(MOUNT_POINT); fi
	rmmod pmaps_ext

check:
	tests/check.sh

check-all:
	tests/check.sh --all

check-busy:
	tests/busy.sh

# Every host test under valgrind, the CLI scripts too, as make check-all
# runs them: about 15 minutes on 2 cores.
check-valgrind:
	tests/deps.sh
	$(MAKE) -s -C tests/unit valgrind

# Every guest suite on every Debian amd64 kernel line, the race stress for
# its full 60 s, as make check-all runs them (make check boots three of
# the lines: tests/check.sh).
check-qemu:
	tests/deps.sh
	tests/qemu/run.sh

# Only the guest suites on the arm64 7.x kernels, generic and 16K pages,
# in qemu-system-aarch64 (tests/qemu/arm64.sh): all of them, where make
# check leaves some out (tests/check.sh).
check-arm64:
	tests/deps.sh
	tests/qemu/arm64.sh

# pmaps and its unit suite cross-built for arm64 and run under trixie's
# qemu-aarch64 (tests/unit/arm64.sh), where what qemu-user does not pass
# to the kernel skips; not in make check.
check-unit-arm64:
	tests/deps.sh
	tests/unit/arm64.sh

# patches/ applied, cross-built for arm64 (tinyconfig + pmaps.config +
# leaks.config + arm64.config, in the trixie root), the series' C files
# checked W=1, and the kernel booted in
# qemu-system-aarch64 as make kernel-check boots the x86 ones: the
# series' selftests, the suites against the module and /proc/PID/pmaps,
# and the two texts compared (tests/kernel/arm64.sh).  Not in make check:
# one more kernel build costs minutes CI's budget does not have.
check-kernel-arm64:
	tests/deps.sh
	tests/kernel/arm64.sh

# dpkg-buildpackage builds in the tree it is given and writes the packages
# next to it, so it gets a copy: build/deb/pmaps-ext-VERSION, with the
# packages in build/deb.  Tracked and new unignored files only: in-place
# build output must not reach the packages.  debian/changelog is written
# there, so that the version stays written once, in dkms.conf.
DEB_VERSION = $(shell sed -n 's/^PACKAGE_VERSION="*\([^"]*\)"*$$/\1/p' dkms.conf)
DEB_TREE = build/deb/pmaps-ext-$(DEB_VERSION)

deb:
	rm -rf build/deb
	mkdir -p $(DEB_TREE)
	if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -z -co --exclude-standard | \
			tar --null --ignore-failed-read -cf - -T - 2>/dev/null; \
	else \
		tar --exclude=./build -cf - .; \
	fi | tar -xf - -C $(DEB_TREE)
	{ echo "pmaps-ext ($(DEB_VERSION)) unstable; urgency=medium"; \
	  echo; \
	  echo "  * Version $(DEB_VERSION) (PACKAGE_VERSION in dkms.conf)."; \
	  echo; \
	  echo " -- $$(sed -n 's/^Maintainer: //p' debian/control)  $$(git log -1 --format=%aD 2>/dev/null || date -R)"; \
	} > $(DEB_TREE)/debian/changelog
	cd $(DEB_TREE) && dpkg-buildpackage -us -uc -b

# One guest: DEMO_KERNEL (as for tests/qemu/run.sh), by default the newest
# generic kernel tests/kernels.sh names; ARCH=arm64, the arm64 generic one.
demo:
	tests/deps.sh
	$(if $(filter arm64,$(ARCH)),tests/trixie-root.sh arm64 >/dev/null)
	tests/qemu/run.sh --mode demo \
		$${DEMO_KERNEL:-$$(tests/kernels.sh $(if $(filter arm64,$(ARCH)),arm64) | \
			grep -v -- -rt- | grep -v -- -16k: | tail -n 1)}

style:
	tests/style.sh

kernel-check:
	tests/deps.sh
	tests/kernel/run.sh

fuzz:
	FUZZ_SECONDS=$${FUZZ_SECONDS:-600} tests/fuzz/run.sh

mutants:
	tests/deps.sh
	tests/mutants/run.sh --set full

bench:
	tests/bench/run.sh

bench-host:
	tests/bench/userspace.sh

bench-profile:
	tests/bench/profile.sh
