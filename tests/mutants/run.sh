#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mutation testing: each mutant of tests/mutants/mutants.txt is one
# deliberate fault (a wrong letter, mapcount, merge or withheld rule in the
# module; a parser or a view total that forgets '?'), and it is killed
# when the suites it names then fail.  A mutant that lives is a blind spot
# of the suite, and fails here.
#
#   tests/mutants/run.sh [--set check|full] [KERNEL...]
#
# MUTANTS (comma-separated names) runs only those, e.g. after a fix.
# --set check (make check) runs the mutants marked check on the newest 7.x
# generic kernel (multi-gen LRU, per-VMA locks); full (make mutants, the
# default) runs them all on each KERNEL (default: the newest bookworm 6.12
# generic kernel and that 7.x one).
#
# A guest mutant's fault is made in a copy of the module's sources, and
# each kernel's mutants are built two at a time, then loaded one after
# another in one guest (tests/qemu/init, mode mutants), each with the
# suites it names until one fails: a boot per mutant cost more than its
# suites.  A guest that dies (a kernel problem kills the mutant then
# loaded, as the console says) boots again for the mutants after it.  A
# host mutant's fault is made in a private copy of the tree, whose unit
# tests it names then run.
#
# Prints TAP, one line per mutant and kernel, then
# "# mutants: N killed of N".  What the suites printed is kept in
# $BUILD/mutants (a boot's log and result, or a host mutant's log), and
# only each mutant's first failing line is shown here: its failing lines
# are the mutant's death, not this run's.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${BUILD:-$top/build}/mutants
set=full
if [ "${1:-}" = --set ]; then
	set=$2
	shift 2
fi
. "$top/tests/selftest/lib.sh"

# The 7.x kernels are built for inside the trixie root, which run.sh and
# kernels.sh find under the copy's own build dir.
build=$work/build troot=$work/build/trixie-root
"$top/tests/trixie-root.sh" link "$build"
. "$top/tests/qemu/lib.sh"

kernels=$*
if [ -z "$kernels" ]; then
	newest_7=$(BUILD=$build "$top/tests/kernels.sh" | grep -v -e '-rt-' | tail -n 1)
	kernels=$newest_7
	[ "$set" = full ] &&
		kernels="$(PMAPS_MATRIX=all "$top/tests/kernels.sh" bookworm | sed -n 2p) $newest_7"
fi
if [ -z "$(echo $kernels)" ]; then
	not_ok "mutants_have_a_kernel"
	echo "# tests/kernels.sh named no kernel: run tests/deps.sh"
	tap_done
	exit 1
fi

# The mutants of this run: NAME SUITES FILE SED, tab-separated.
tab=$(printf '\t')
chosen=$work/chosen
mkdir -p "$work"
while IFS="$tab" read -r name mset suites file expr; do
	case $name in '#'*|'') continue ;; esac
	[ "$set" = full ] || [ "$mset" = "$set" ] || continue
	case ,${MUTANTS:-$name}, in *,"$name",*) ;; *) continue ;; esac
	printf '%s\t%s\t%s\t%s\n' "$name" "$suites" "$file" "$expr"
done < "$top/tests/mutants/mutants.txt" > "$chosen"

nr=0 killed=0

# verdict NAME KERNEL-NAME FIRST-FAILING-LINE [WHY]: the mutant's TAP line
verdict() {
	nr=$((nr + 1))
	if [ -n "$3" ]; then
		killed=$((killed + 1))
		ok "mutant_${1}_killed [$2]"
		echo "# killed by: $(echo "$3" | cut -c1-150)"
	else
		not_ok "mutant_${1}_killed [$2]"
		echo "# $1: ${4:-it lives: its suites passed}"
	fi
}

# ---- host mutants: a copy of the tree, its unit tests ----

tree=$work/tree
pristine=$work/pristine
rm -rf "$pristine"
if grep -q "${tab}unit:" "$chosen" && ! st_copy "$tree"; then
	not_ok "mutants_copy_the_tree"
	tap_done
	exit 1
fi
while IFS="$tab" read -r name suites file expr; do
	case $suites in unit:*) ;; *) continue ;; esac
	log=$work/$name-host.log
	# The file as the copy was made: the tree may change meanwhile,
	# and one file from later would not build with the rest.
	if [ ! -f "$pristine/$file" ]; then
		mkdir -p "$(dirname "$pristine/$file")"
		cp "$tree/$file" "$pristine/$file"
	fi
	# a fresh mtime, so that make rebuilds what the last mutant built
	cp "$pristine/$file" "$tree/$file"
	if ! st_sed "$tree" "$file" "$expr"; then
		nr=$((nr + 1))
		not_ok "mutant_${name}_applies [host]"
		continue
	fi
	bins= scripts=
	for t in $(echo "${suites#unit:}" | tr , ' '); do
		case $t in
		*.sh) scripts="$scripts $tree/tests/unit/$t" ;;
		*) bins="$bins $work/unit/$t" ;;
		esac
	done
	make -s -C "$tree/tests/unit" BUILD="$work/unit" run \
		TESTS="$bins" SCRIPTS="$scripts" > "$log" 2>&1
	status=$?
	cp "$pristine/$file" "$tree/$file"
	by=$(grep -m 1 -E '^not ok' "$log")
	case $by in
	*"does not build"*|*"building"*"failed"*)
		# a mutant that does not build proves nothing
		verdict "$name" host "" "it does not build: $by" ;;
	"")
		if [ $status -ne 0 ]; then
			verdict "$name" host "" "the suites exited $status without a failing test; see $log"
		else
			verdict "$name" host "" "it lives: $file with '$expr' passed $suites"
		fi
		;;
	*) verdict "$name" host "$by" ;;
	esac
done < "$chosen"

# ---- guest mutants: every mutant of a kernel in one guest ----

# section NAME RESULT: the mutant's part of a guest's result, if it ended
section() {
	awk -v name="$1" '
		$0 == "# mutant " name { on = 1; next }
		/^# mutant / && index($0, "# mutant " name ":") != 1 { on = 0 }
		on' "$2"
}

for k in $kernels; do
	kernel_spec "$k"
	kn=$rel
	kos=$work/modules-$kn
	rm -rf "$kos"
	mkdir -p "$kos"
	# Built two at a time: each build is one make of a few files.
	: > "$kos/list"
	jobs=0
	while IFS="$tab" read -r name suites file expr; do
		case $suites in guest:*) ;; *) continue ;; esac
		src=$work/src-$name
		rm -rf "$src"
		mkdir -p "$src"
		cp -r "$top/Kbuild" "$top/module" "$src/"
		if ! st_sed "$src" "$file" "$expr"; then
			nr=$((nr + 1))
			not_ok "mutant_${name}_applies [$kn]"
			continue
		fi
		printf '%s %s\n' "$name" "${suites#guest:}" >> "$kos/list"
		( build_module "mutant-$name-$kn" "$kdir" "$src" > "$work/$name-$kn.build" 2>&1 &&
			cp "$module_dir/pmaps_ext.ko" "$kos/$name.ko" ) &
		jobs=$((jobs + 1))
		[ $jobs -lt 2 ] || { wait; jobs=0; }
	done < "$chosen"
	wait
	todo=
	while read -r name suites; do
		if [ -f "$kos/$name.ko" ]; then
			todo="$todo $name"
		else
			# a mutant that does not build proves nothing
			verdict "$name" "$kn" "" "it does not build: $(grep -m 1 -E 'error|warning' "$work/$name-$kn.build")"
		fi
	done < "$kos/list"
	# Boot until every built mutant has a verdict; a boot that gives
	# none ends it.
	boot=0
	while [ -n "$todo" ]; do
		boot=$((boot + 1))
		for name in $todo; do grep "^$name " "$kos/list"; done > "$kos/list.now"
		mv "$kos/list.now" "$kos/list"
		log=$work/boot-$kn-$boot.log
		BUILD=$build MUTANTS_DIR=$kos "$top/tests/qemu/run.sh" --mode mutants "$k" > "$log" 2>&1
		result=$work/result-$kn-$boot.log console=$work/console-$kn-$boot.log
		cp "$build/result-$kn.log" "$result" 2>/dev/null || : > "$result"
		# the serial console ends its lines with CRLF
		tr -d '\r' < "$build/console-$kn.log" > "$console" 2>/dev/null
		left= progress=
		for name in $todo; do
			part=$(section "$name" "$result" 2>/dev/null)
			if echo "$part" | grep -q "^# mutant $name: done"; then
				progress=1
				verdict "$name" "$kn" "$(echo "$part" | grep -m 1 -E '^not ok')"
			elif echo "$part" | grep -q "^# mutant $name: not loaded"; then
				progress=1
				verdict "$name" "$kn" "" "its module did not load: $(echo "$part" | sed -n 2p)"
			elif grep -q "^pmaps-guest: mutant $name\$" "$console" 2>/dev/null; then
				# the guest died with this mutant loaded
				progress=1
				bad=$(sed -n "/^pmaps-guest: mutant $name\$/,\$p" "$console" |
					grep -aE -m 1 "$kernel_problems")
				verdict "$name" "$kn" "${bad:+a kernel problem: $bad}" \
					"the guest stopped in it without a kernel problem; see $log"
			else
				left="$left $name"
			fi
		done
		todo=$left
		if [ -n "$todo" ] && [ -z "$progress" ]; then
			for name in $todo; do
				verdict "$name" "$kn" "" "the guest ran no mutant; see $log"
			done
			todo=
		fi
	done
done

echo "# mutants: $killed killed of $nr"
tap_done
