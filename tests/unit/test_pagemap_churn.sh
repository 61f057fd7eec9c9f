#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps --source=pagemap on a process that keeps mapping, touching (as THP
# where it may) and unmapping 8 MiB, so that its folios are split, freed
# and reused while pagemap, kpageflags and kpagecount are read one after
# the other.  Page state that changes between those reads is the normal
# case there, not an error: 60 reads in a row must all succeed.  Prints
# TAP; needs root (PFNs and /proc/kpageflags).  PMAPS names the binary, CC
# builds the target (without the sanitizers of the binary under test, whose
# shadow mappings would make each read scan terabytes of pagemap).
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
cleanup() {
	[ -n "$target_pid" ] && kill -KILL "$target_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

reads=60

if [ "$(id -u)" != 0 ]; then
	skip churn_reads_never_fail "needs root for PFNs and /proc/kpageflags"
	tap_done
	exit
fi

cat > "$tmp/target.c" <<'TARGET'
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LEN (8UL << 20)

int main(void)
{
	unsigned long i;

	for (i = 0;; i++) {
		char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		madvise(p, LEN, MADV_HUGEPAGE);
		memset(p, 1, LEN);
		/* half stays mapped while the next round maps */
		munmap(p, LEN / 2);
		if (i == 0) {
			printf("churning\n");
			fflush(stdout);
		}
		munmap(p + LEN / 2, LEN / 2);
	}
}
TARGET

if spawn_target churn 100 0.1; then
	n=0 failures=0
	while [ $n -lt $reads ]; do
		if ! "$PMAPS" --source=pagemap --color=never "$target_pid" \
			> "$tmp/out" 2> "$tmp/err"; then
			failures=$((failures + 1))
			[ $failures = 1 ] && sed "s/^/# read $n: /" "$tmp/err"
		fi
		n=$((n + 1))
	done
	echo "# $failures of $reads reads failed"
	if [ $failures = 0 ]; then
		ok churn_reads_never_fail
	else
		not_ok churn_reads_never_fail
	fi
else
	not_ok churn_reads_never_fail
fi
tap_done
