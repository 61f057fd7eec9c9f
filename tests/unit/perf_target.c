// SPDX-License-Identifier: GPL-2.0
/*
 * The process test_perf.sh records, with mmaps it knows: a read-only
 * mapping of the file argv[2], dlopen() of the library argv[1] (its build
 * is perf_lib.c), three anonymous pages whose middle one mprotect() makes
 * read-only, then the file's mapping unmapped (which perf cannot see),
 * and a child that execs argv[3], if not "".  It prints what it mapped,
 * one "NAME START END" line each, for the test to find in the records.
 *
 * With argv[4] ("wait"), once the file is mapped it says "ready" and
 * waits for a line on stdin, so that a recorder can attach, and waits
 * again before it exits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void wait_line(void)
{
	char line[16];

	if (!fgets(line, sizeof(line), stdin))
		exit(1);
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	int (*fn)(void);
	void *lib, *data;
	char *anon;
	pid_t child;
	int fd;

	if (argc < 3)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(argv[2], O_RDONLY);
	data = fd < 0 ? MAP_FAILED : mmap(NULL, (size_t)psz, PROT_READ,
					  MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		return 4;
	if (argc > 4) {
		puts("ready");
		wait_line();
	}
	lib = dlopen(argv[1], RTLD_NOW);
	fn = lib ? (int (*)(void))dlsym(lib, "pmaps_perf_lib") : NULL;
	if (!fn || fn() != 42)
		return 3;
	anon = mmap(NULL, 3 * (size_t)psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED || mprotect(anon + psz, (size_t)psz, PROT_READ))
		return 4;
	if (munmap(data, (size_t)psz))
		return 5;
	/* after the munmap: a reader of these lines may count on it */
	printf("data %lx %lx\n", (unsigned long)data,
	       (unsigned long)data + (unsigned long)psz);
	printf("anon %lx %lx\n", (unsigned long)anon,
	       (unsigned long)anon + 3 * (unsigned long)psz);
	if (argc > 3 && argv[3][0]) {
		child = fork();
		if (child == 0) {
			execl(argv[3], argv[3], (char *)NULL);
			_exit(127);
		}
		if (child < 0 || waitpid(child, NULL, 0) != child)
			return 6;
	}
	if (argc > 4)
		wait_line();
	return 0;
}
