#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bash, not sh: it sources the bash completion for pmaps and asks it, as
# bash would on TAB, what completes a few command lines; prints TAP.
#
#   tests/completion.bash [COMPLETION]   default: userspace/completion/pmaps
#
# tests/deb.sh runs it on the source file and on the file the pmaps
# package installs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
file=${1:-$top/userspace/completion/pmaps}
# shellcheck source=../userspace/completion/pmaps
. "$file" || { echo "1..2"; echo "not ok 1 source $file"; exit 1; }

n=0 failed=0
# complete_line LINE: COMPREPLY for LINE, whose end is the cursor.  Words
# are split as bash splits them for completion: at blanks, and around '='
# (COMP_WORDBREAKS).
complete_line() {
	local line=$1
	line=${line//=/ = }
	read -r -a COMP_WORDS <<< "$line"
	[[ $1 == *" " || $1 == *= ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$1 COMP_POINT=${#1}
	COMPREPLY=()
	_pmaps pmaps "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ')
	got=${got% }
}

result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
		echo "#   COMPREPLY: '$got'"
	fi
}

# is LINE EXPECTED: the completions of LINE are exactly EXPECTED (sorted).
is() {
	complete_line "$1"
	if [ "$got" = "$2" ]; then
		result ok "'$1' completes to '$2'"
	else
		result fail "'$1' completes to '$2'"
	fi
}

# has LINE WORD: WORD is among the completions of LINE; lacks: it is not.
has() {
	complete_line "$1"
	case " $got " in
	*" $2 "*) result ok "'$1' offers $2" ;;
	*) result fail "'$1' offers $2" ;;
	esac
}
lacks() {
	complete_line "$1"
	case " $got " in
	*" $2 "*) result fail "'$1' does not offer $2" ;;
	*) result ok "'$1' does not offer $2" ;;
	esac
}

# A process whose PID and name the completion must find in /proc.
sleep 60 &
child=$!
trap 'kill $child 2>/dev/null' EXIT

echo "1..30"
# The command words, alone or among PIDs.
is "pmaps w" "watch wss"
is "pmaps c" "core"
is "pmaps heap --d" "--debug-dir"
is "pmaps heap --s" "--scale --summary"
is "pmaps heap --p" "--png"
has "pmaps " help
has "pmaps " "$child"
is "pmaps help " "core diff export heap map perf record top watch wss"
# Options: pmaps's own, and each command's.
is "pmaps --su" "--summary"
is "pmaps --nu" "--numa"
is "pmaps wss --c" "--cgroup --clear-refs --count"
is "pmaps wss --a" "--ages --all"
is "pmaps core -" "--help --json --tsv -h"
lacks "pmaps top --" --color
is "pmaps diff --ig" "--ignore-mapcount"
# The filters, where the command takes them.
is "pmaps map --a" "--areas"
is "pmaps map --areas=h" "heap"
is "pmaps watch --r" "--range"
is "pmaps watch --ch" "--changed"
is "pmaps watch --cg" "--cgroup"
is "pmaps perf --t" "--timeline"
is "pmaps export --o" "--openmetrics --output"
is "pmaps --cg" "--cgroup"
is "pmaps record -" "--help --output --pid --snapshot-every -h -o -p"
# Global options before the command, then the command's own.
is "pmaps --source=module map --p" "--page-size --pid-name --png"
# A command's option with its value before the command (pmaps hands it on).
has "pmaps -w 100 " map
is "pmaps -w 100 map --pn" "--png"
has "pmaps -i 0.2 -n 1 " watch
# PIDs, and only PIDs, once a PID is given.
has "pmaps $child" "$child"
lacks "pmaps $child " map
has "pmaps watch --interval 1 $child" "$child"
# diff compares a snapshot with a file or a live process
has "pmaps diff snap $child" "$child"
# Option arguments, as the next word or after '='.
is "pmaps --source=pa" "pagemap"
is "pmaps --color=a" "always auto"
is "pmaps map --source " "auto file kernel module pagemap"
# map --by: what a page is coloured by, and --numa that it needs
is "pmaps map --b" "--by"
is "pmaps map --by " "age node size"
is "pmaps map --by=s" "size"
is "pmaps map --nu" "--numa"
# --page-size: the page sizes of the kernels a saved document may come from
is "pmaps diff --page-size " "16K 4K 64K"
is "pmaps --page-size=1" "16K"
has "pmaps -p sle" sleep

echo "# $n tests, $failed failed"
[ "$failed" -eq 0 ]
