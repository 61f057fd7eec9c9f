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
	skip churn_target_churned_during_the_reads "needs root, as above"
	tap_done
	exit
fi

cat > "$tmp/target.c" <<'TARGET'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LEN (8UL << 20)

/* argv[1]: a file whose first 8 bytes count the rounds, for the test. */
int main(int argc, char **argv)
{
	volatile unsigned long *rounds;
	int fd;

	if (argc < 2)
		return 1;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(*rounds)))
		return 1;
	rounds = mmap(NULL, sizeof(*rounds), PROT_READ | PROT_WRITE,
		      MAP_SHARED, fd, 0);
	if (rounds == MAP_FAILED)
		return 1;
	for (;;) {
		char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		madvise(p, LEN, MADV_HUGEPAGE);
		memset(p, 1, LEN);
		/* half stays mapped while the next round maps */
		munmap(p, LEN / 2);
		if (*rounds == 0) {
			printf("churning\n");
			fflush(stdout);
		}
		munmap(p + LEN / 2, LEN / 2);
		++*rounds;
	}
}
TARGET
# rounds: how many rounds the target has finished.
rounds() {
	od -An -tu8 -N8 "$tmp/rounds" | tr -d ' '
}

if spawn_target churn 100 0.1 "$tmp/rounds"; then
	before=$(rounds)
	n=0 failures=0
	while [ $n -lt $reads ]; do
		if ! "$PMAPS" --source=pagemap --color=never "$target_pid" \
			> "$tmp/out" 2> "$tmp/err"; then
			failures=$((failures + 1))
			[ $failures = 1 ] && sed "s/^/# read $n: /" "$tmp/err"
		fi
		n=$((n + 1))
	done
	after=$(rounds)
	echo "# $failures of $reads reads failed; the target churned $((after - before)) rounds meanwhile"
	if [ $failures = 0 ]; then
		ok churn_reads_never_fail
	else
		not_ok churn_reads_never_fail
	fi
	# Reads of a target that stood still would prove nothing.
	if [ "$after" -gt "$before" ]; then
		ok churn_target_churned_during_the_reads
	else
		not_ok churn_target_churned_during_the_reads
	fi
else
	not_ok churn_reads_never_fail
	not_ok churn_target_churned_during_the_reads
fi
tap_done
