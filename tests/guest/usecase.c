// SPDX-License-Identifier: GPL-2.0
/*
 * Targets for the use cases the RFC's cover letter shows (usecases.sh):
 *
 *   usecase pool FILE   a buffer pool: a 64-page file mapped shared, pages
 *                       0-15 written with write() (by "another writer")
 *                       and then read through the mapping, 16-31 read
 *                       through it, 32-47 written through it, 48-63 never
 *                       touched (not in the page cache)
 *   usecase heap        a heap of one PMD-sized THP, written, then the
 *                       first 16 pages made read-only, so that the folio
 *                       is mapped by PTEs; on SIGUSR1 it reads pages 0-7
 *                       and 100-103 and says so on stdout
 *
 * Each prints its PID once set up, and waits to be killed.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define POOL_PAGES	64

static volatile sig_atomic_t touch;

static void on_usr1(int sig)
{
	(void)sig;
	touch = 1;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void pool(const char *path, long page)
{
	char *buf, *p;
	volatile char sink;
	int fd, i;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("usecase: open");
	if (ftruncate(fd, POOL_PAGES * page))
		die("usecase: ftruncate");
	buf = malloc(16 * page);
	if (!buf)
		die("usecase: malloc");
	memset(buf, 'w', 16 * page);
	if (pwrite(fd, buf, 16 * page, 0) != 16 * page)
		die("usecase: pwrite");
	p = mmap(NULL, POOL_PAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		die("usecase: mmap");
	close(fd);
	for (i = 0; i < 32; i++)
		sink = p[i * page];
	(void)sink;
	memset(p + 32 * page, 'm', 16 * page);
}

static void heap(long page)
{
	size_t hpage = 2UL << 20;
	char *p, *area;
	volatile char sink;
	int i;

	p = mmap(NULL, 2 * hpage, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("usecase: mmap");
	area = (char *)(((unsigned long)p + hpage - 1) & ~(hpage - 1));
	if (madvise(area, hpage, MADV_HUGEPAGE))
		die("usecase: madvise");
	memset(area, 1, hpage);
	/* Splits the PMD mapping, not the folio. */
	if (mprotect(area, 16 * page, PROT_READ))
		die("usecase: mprotect");
	signal(SIGUSR1, on_usr1);
	printf("%d\n", getpid());
	fflush(stdout);
	for (;;) {
		pause();
		if (!touch)
			continue;
		touch = 0;
		for (i = 0; i < 8; i++)
			sink = area[i * page];
		for (i = 100; i < 104; i++)
			sink = area[i * page];
		(void)sink;
		printf("read pages 0-7 and 100-103\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (argc == 3 && !strcmp(argv[1], "pool")) {
		pool(argv[2], page);
	} else if (argc == 2 && !strcmp(argv[1], "heap")) {
		heap(page);
	} else {
		fprintf(stderr, "usage: usecase pool FILE | usecase heap\n");
		return 2;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
}
