// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for pmaps core's ELF core reader (userspace/core.c):
 * each input is a core file, given to the command itself in each of its
 * output formats, through a memfd.  Beyond "no crash, no sanitizer
 * report", the command must return one of its exit statuses, and a core
 * it reads in one format it reads in all three.
 *
 * Build (tests/fuzz/run.sh does this): with userspace/core.c and the
 * library; stdout goes to /dev/null.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "fuzz_check.h"

/*
 * pmaps.c's usage helpers, which the fixed arguments here never reach;
 * pmaps.c itself has main().
 */
int pmaps_cmd_usage_error(const char *command, const char *fmt, ...)
{
	(void)command;
	(void)fmt;
	abort();
}

int pmaps_cmd_usage_hint(const char *command)
{
	(void)command;
	abort();
}

static int run_core(const char *format, const char *path)
{
	char *argv[] = { "core", (char *)format, (char *)path, NULL };
	int argc = format ? 3 : 2;

	if (!format) {
		argv[1] = (char *)path;
		argv[2] = NULL;
	}
	optind = 0;	/* glibc: start getopt over */
	return pmaps_cmd_core(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	int text, tsv, json;

	if (fd < 0) {
		fd = memfd_create("fuzz-core", MFD_CLOEXEC);
		check(fd >= 0);
		check(freopen("/dev/null", "w", stdout) != NULL);
	}
	check(!ftruncate(fd, 0));
	check(pwrite(fd, data, size, 0) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	text = run_core(NULL, path);
	tsv = run_core("--tsv", path);
	json = run_core("--json", path);
	check(text == PMAPS_OK || text == PMAPS_ERR_TARGET ||
	      text == PMAPS_ERR_INPUT);
	check(tsv == text && json == text);
	return 0;
}
