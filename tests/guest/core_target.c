// SPDX-License-Identifier: GPL-2.0
/*
 * core_target DIR [hold]: a process with one mapping of each kind that
 * "pmaps core" tells apart, for tests/guest/core.sh (in the guest, and on
 * the host through tests/unit/test_core.sh).  It prints
 *
 *	anon ADDR		4 pages, private anonymous, written
 *	memfd ADDR		4 pages of a memfd, shared, written
 *	memfd_private ADDR	2 pages of the memfd from page 1, private, read
 *	file ADDR		2 pages of DIR/core-data from page 1, private,
 *				read
 *	page SIZE		the page size, in bytes (16 KiB on arm64-16k)
 *
 * and then aborts (SIGABRT, a core dump), or with "hold" waits for a
 * signal, for gcore.  coredump_filter is set to the kernel's default,
 * 0x33, so that what the core holds does not depend on the caller's: the
 * written anonymous and shared memfd pages are dumped, the two private
 * file mappings are not (they start at page 1, so not even their first
 * page is, as it is for ELF headers).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create(); the guest Makefile defines it */
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static char *map(size_t len, int prot, int flags, int fd, off_t off)
{
	char *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	char path[4096], *anon, *shared, *memfd_private, *file;
	volatile char sink = 0;
	int fd, memfd;

	if (argc < 2) {
		fputs("usage: core_target DIR [hold]\n", stderr);
		return 2;
	}
	fd = open("/proc/self/coredump_filter", O_WRONLY);
	if (fd < 0 || write(fd, "0x33", 4) != 4)
		die("/proc/self/coredump_filter");
	close(fd);

	snprintf(path, sizeof(path), "%s/core-data", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4 * ps))
		die(path);
	memfd = memfd_create("pmaps-core-test", 0);
	if (memfd < 0 || ftruncate(memfd, 4 * ps))
		die("memfd_create");

	anon = map(4 * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(anon, 'a', 4 * ps);
	shared = map(4 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	memset(shared, 'm', 4 * ps);
	memfd_private = map(2 * ps, PROT_READ, MAP_PRIVATE, memfd, ps);
	file = map(2 * ps, PROT_READ, MAP_PRIVATE, fd, ps);
	sink += memfd_private[0] + file[0];

	printf("anon %lx\nmemfd %lx\nmemfd_private %lx\nfile %lx\npage %ld\n",
	       (unsigned long)anon, (unsigned long)shared,
	       (unsigned long)memfd_private, (unsigned long)file, ps);
	if (fflush(stdout))
		die("stdout");
	if (argc > 2 && !strcmp(argv[2], "hold"))
		pause();
	else
		abort();
	return sink;
}
