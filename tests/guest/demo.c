// SPDX-License-Identifier: GPL-2.0
/*
 * A demo target with a layout worth looking at: pages shared copy-on-write
 * with a child (mapcount 2), written anonymous pages with a hole, a read
 * page of zeroes (not listed) and a shared file mapping at an offset.  On
 * a guest with a second NUMA node (QEMU_NUMA=1), also eight pages bound to
 * each node, for the NUMA files.  It prints its PID once all is in place
 * and waits to be killed.
 */
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEMO_PAGES	32

static void *map_or_die(size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED) {
		perror("demo: mmap");
		exit(1);
	}
	return p;
}

/* Pages [0, 8) on node 0 and [8, 16) on node 1, when there is a node 1. */
static void place_on_nodes(long page)
{
	unsigned long node;
	char *numa;
	int i;

	if (access("/sys/devices/system/node/node1", F_OK))
		return;
	numa = map_or_die(16 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(numa, 16 * page, MADV_NOHUGEPAGE);
	for (i = 0; i < 2; i++) {
		node = 1UL << i;
		if (syscall(SYS_mbind, numa + i * 8 * page, 8 * page,
			    MPOL_BIND, &node, sizeof(node) * 8, 0)) {
			perror("demo: mbind");
			exit(1);
		}
	}
	memset(numa, 3, 16 * page);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = DEMO_PAGES * page;
	char *anon, *cow, *file;
	volatile char sink;
	char buf[4096];
	int fd, i;

	/* [cow | guard | anon]: the PROT_NONE guard keeps them apart. */
	cow = map_or_die(2 * len + page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	anon = cow + len + page;
	mprotect(cow + len, page, PROT_NONE);
	madvise(cow, 2 * len + page, MADV_NOHUGEPAGE);
	memset(cow, 2, 8 * page);

	/* The child shares the cow pages; it dies with its parent. */
	if (fork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}

	memset(anon, 1, 12 * page);		/* pages 0-11 written */
	madvise(anon + 4 * page, 2 * page, MADV_DONTNEED);	/* hole 4-5 */
	sink = anon[20 * page];			/* zero page: not listed */

	fd = open("/tmp/demo.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror("demo: /tmp/demo.data");
		return 1;
	}
	/* 16 pages of the running kernel's size (16 KiB on arm64-16k) */
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 16 * page / (long)sizeof(buf); i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	file = map_or_die(8 * page, PROT_READ, MAP_SHARED, fd, 4 * page);
	for (i = 0; i < 8; i++)
		sink = file[i * page];
	(void)sink;
	place_on_nodes(page);

	printf("%d\n", getpid());
	fclose(stdout);
	pause();
	return 0;
}
