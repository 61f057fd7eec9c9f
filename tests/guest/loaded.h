/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the files a guest suite reads can exist at all.  The suites run
 * in the module's guest: no /proc/pmaps_ext there means the module failed
 * to load, and every test fails, so that none which expects ENOENT passes
 * and none skips for want of the very thing it tests.
 */
#ifndef PMAPS_LOADED_H
#define PMAPS_LOADED_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"

/*
 * True, with a diagnostic, when the directory of @fmt's files (what comes
 * before the last '/' ahead of its conversion, e.g. /proc/pmaps_ext for
 * "/proc/pmaps_ext/%d") does not exist.
 */
static inline bool pmaps_dir_missing(const char *fmt)
{
	const char *pct = strchr(fmt, '%'), *slash = NULL, *c;
	char dir[4096];
	struct stat st;

	for (c = fmt; pct && c < pct; c++)
		if (*c == '/')
			slash = c;
	if (!slash || slash == fmt || (size_t)(slash - fmt) >= sizeof(dir))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - fmt), fmt);
	if (!stat(dir, &st))
		return false;
	tap_diag("%s: %s: the pmaps files cannot exist (is the module loaded?)",
		 dir, strerror(errno));
	return true;
}

#endif /* PMAPS_LOADED_H */
