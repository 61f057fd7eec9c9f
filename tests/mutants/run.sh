#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mutation testing: each mutant of tests/mutants/mutants.txt is one
# deliberate fault (a wrong letter, mapcount, merge or withheld rule in the
# module; a parser or a view total that forgets '?') made in a private copy
# of the tree, and it is killed when the suites it names then fail.  A
# mutant that lives is a blind spot of the suite, and fails here.
#
#   tests/mutants/run.sh [--set check|full] [KERNEL...]
#
# MUTANTS (comma-separated names) runs only those, e.g. after a fix.
# --set check (make check) runs the mutants marked check on the newest
# bookworm generic kernel; full (make mutants, the default) runs them all
# on each KERNEL (default: that kernel and the newest 7.x generic one).
# Prints TAP, one line per mutant and kernel, then
# "# mutants: N killed of N".  What the suites printed for a mutant is
# kept in $BUILD/mutants/NAME-KERNEL.log, and only its summary shown
# here: its failing lines are the mutant's death, not this run's.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/mutants
set=full
if [ "${1:-}" = --set ]; then
	set=$2
	shift 2
fi
. "$top/tests/selftest/lib.sh"

tree=$work/tree
# The copy's own build dir; the 7.x kernels are built for inside the
# trixie root, which run.sh and kernels.sh find under it.
"$top/tests/trixie-root.sh" link "$work/build"

kernels=$*
if [ -z "$kernels" ]; then
	kernels=$("$top/tests/kernels.sh" bookworm | sed -n 2p)
	[ "$set" = full ] && kernels="$kernels $(BUILD=$work/build \
		"$top/tests/kernels.sh" | grep -v -e '-rt-' | tail -n 1)"
fi
if [ -z "$(echo $kernels)" ]; then
	not_ok "mutants_have_a_kernel"
	echo "# tests/kernels.sh named no kernel: run tests/deps.sh"
	tap_done
	exit 1
fi
pristine=$work/pristine
rm -rf "$pristine"
if ! st_copy "$tree"; then
	not_ok "mutants_copy_the_tree"
	tap_done
	exit 1
fi

# kernel_name SPEC: a Debian release, or NAME of NAME:IMAGE:KDIR
kernel_name() {
	echo "${1%%:*}"
}

# killed_by LOG: the first failing line of a suite run, or nothing
killed_by() {
	grep -m 1 -E '^not ok' "$1"
}

# guest SUITES KERNEL LOG: the copy's guest suites on KERNEL
guest() {
	BUILD=$work/build SUITES=$1 "$tree/tests/qemu/run.sh" "$2" > "$3" 2>&1
}

# unit TESTS LOG: host unit tests (test_x binaries, test_x.sh scripts)
unit() {
	bins= scripts=
	for t in $(echo "$1" | tr , ' '); do
		case $t in
		*.sh) scripts="$scripts $tree/tests/unit/$t" ;;
		*) bins="$bins $work/unit/$t" ;;
		esac
	done
	make -s -C "$tree/tests/unit" BUILD="$work/unit" run \
		TESTS="$bins" SCRIPTS="$scripts" > "$2" 2>&1
}

nr=0 killed=0
tab=$(printf '\t')
while IFS="$tab" read -r name mset suites file expr; do
	case $name in '#'*|'') continue ;; esac
	[ "$set" = full ] || [ "$mset" = "$set" ] || continue
	case ,${MUTANTS:-$name}, in *,"$name",*) ;; *) continue ;; esac
	case $suites in
	guest:*) where=$kernels ;;
	*) where=host ;;
	esac
	for k in $where; do
		nr=$((nr + 1))
		kn=$(kernel_name "$k")
		log=$work/$name-$kn.log
		# The file as the copy was made: the tree may change meanwhile,
		# and one file from later would not build with the rest.
		if [ ! -f "$pristine/$file" ]; then
			mkdir -p "$(dirname "$pristine/$file")"
			cp "$tree/$file" "$pristine/$file"
		fi
		# a fresh mtime, so that make rebuilds what the last mutant built
		cp "$pristine/$file" "$tree/$file"
		if ! st_sed "$tree" "$file" "$expr"; then
			not_ok "mutant_${name}_applies [$kn]"
			continue
		fi
		case $suites in
		guest:*) guest "${suites#guest:}" "$k" "$log" ;;
		unit:*) unit "${suites#unit:}" "$log" ;;
		esac
		status=$?
		cp "$pristine/$file" "$tree/$file"
		by=$(killed_by "$log")
		case $by in
		*"does not build"*|*"building"*"failed"*)
			# a mutant that does not build proves nothing
			not_ok "mutant_${name}_killed [$kn]"
			echo "# $name does not build: $by"
			;;
		"")
			if [ $status -ne 0 ]; then
				not_ok "mutant_${name}_killed [$kn]"
				echo "# $name: the suites exited $status without a failing test; see $log"
			else
				not_ok "mutant_${name}_killed [$kn]"
				echo "# $name lives: $file with '$expr' passed $suites"
			fi
			;;
		*)
			killed=$((killed + 1))
			ok "mutant_${name}_killed [$kn]"
			echo "# killed by: $(echo "$by" | cut -c1-150)"
			;;
		esac
	done
done < "$top/tests/mutants/mutants.txt"

echo "# mutants: $killed killed of $nr"
tap_done
