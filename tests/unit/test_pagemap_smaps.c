// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps_from_pagemap() of a stopped child against the kernel's own numbers,
 * /proc/PID/smaps, VMA by VMA (tests/guest/smaps.h, which the guest's
 * smaps_oracle uses on the module's text).  The child has a VMA of each
 * kind, its files in a directory under $TMPDIR (default /tmp): anonymous,
 * zero page, COW in a private file mapping, a shared file, shmem, a THP,
 * and its libraries, heap and stack.
 *
 * The pagemap source lists the present pages, so their size is Rss.  It
 * cannot see pte bits (Y and P are '?'), so only bounds hold for the rest:
 * pages with D are dirty to smaps too, and pages with R in the child's own
 * VMAs are referenced.
 * Needs root: PFNs and /proc/kpageflags.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../userspace/lib/pagemap.h"
#include "../guest/lru_drain.h"
#include "../guest/smaps.h"
#include "../guest/tap.h"
#include "stopped_child.h"

static char dir[PATH_MAX];
static pid_t child = -1;
static struct smaps_layout lay;
static struct pmaps_map map;
static struct smaps sm;

static void child_main(int wfd)
{
	if (smaps_layout_build(dir, &lay) ||
	    write(wfd, &lay, sizeof(lay)) != (ssize_t)sizeof(lay))
		_exit(1);
	for (;;)
		pause();
}

static int read_pagemap(pid_t pid, struct pmaps_map *out)
{
	char err[256];

	if (!pmaps_from_pagemap(pid, out, err, sizeof(err)))
		return 0;
	tap_diag("pmaps_from_pagemap: %s", err);
	return -1;
}

static void compare(const char *name, const struct smaps_rule *rule)
{
	smaps_compare(&map, &sm, rule);
	tap_test_done(name);
}

static void test_pagemap_smaps_rss(void)
{
	static const struct smaps_rule rule = {
		SMAPS_RSS, 0, "resident", false, NULL,
	};

	compare("test_pagemap_smaps_rss", &rule);
}

static void test_pagemap_smaps_dirty_at_most(void)
{
	static const struct smaps_rule rule = {
		SMAPS_DIRTY, SMAPS_FLAG(DIRTY), "with D", true, NULL,
	};

	compare("test_pagemap_smaps_dirty_at_most", &rule);
}

/*
 * Only the target's own VMAs: a page another process can reach (a
 * library's text, [vdso]) loses PG_referenced as well as gains it.
 * folio_mark_accessed() sets it on one touch and clears it on the next,
 * and any read() of the library, or any /proc/PID/mem or process_vm_readv()
 * of another process (pmaps core beside this test), is a touch.  Both can
 * fall between two smaps reads that agree: on a 2-core CI machine, [vdso]
 * had R in the text and Referenced 0 kB in both.
 */
static void test_pagemap_smaps_referenced_at_most(void)
{
	const struct smaps_rule rule = {
		SMAPS_REFERENCED, SMAPS_FLAG(REFERENCED), "with R", true, &lay,
	};

	compare("test_pagemap_smaps_referenced_at_most", &rule);
}

int main(void)
{
	static const char *const names[] = {
		"test_pagemap_smaps_rss", "test_pagemap_smaps_dirty_at_most",
		"test_pagemap_smaps_referenced_at_most",
	};
	const size_t nr = sizeof(names) / sizeof(names[0]);
	const char *tmp = getenv("TMPDIR");
	int ok = 0;
	size_t i;

	tap_plan((int)nr);
	if (geteuid()) {
		for (i = 0; i < nr; i++)
			tap_skip(names[i], "needs root for PFNs and kpageflags");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/pmaps_smaps.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		tap_diag("mkdtemp %s: %s", dir, strerror(errno));
	else if (start_stopped_child(child_main, &lay, sizeof(lay), &child))
		tap_diag("cannot set up the child");
	else {
		drain_lru_batches();
		/* Pss is not compared here: the other tests that run
		 * beside this one map the same libraries. */
		ok = !smaps_read_with_text(child, read_pagemap, &map, &sm,
					   false);
	}
	if (ok) {
		smaps_check_layout(&sm, &lay);
		if (tap_failed_checks)
			ok = 0;
		tap_failed_checks = 0;
	}
	if (ok) {
		test_pagemap_smaps_rss();
		test_pagemap_smaps_dirty_at_most();
		test_pagemap_smaps_referenced_at_most();
		pmaps_map_free(&map);
		smaps_free(&sm);
	} else {
		for (i = 0; i < nr; i++)
			tap_result(0, names[i]);
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (dir[0]) {
		smaps_files_remove(dir);
		rmdir(dir);
	}
	return ok && !tap_failed_tests ? 0 : 1;
}
