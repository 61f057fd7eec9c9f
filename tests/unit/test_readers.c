// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps_from_pagemap() reads a large process with several threads, each
 * taking a run of spans, and joins their ranges.  A stopped child writes
 * 96 K anonymous pages (no THP) but one in each 4096, off the 64 K-page
 * marks where spans end, so that the split falls inside a run of written
 * pages; the model must be the one a single reader builds, with no range
 * left unjoined where two readers met.
 * Needs root (PFNs and kpageflags) and two CPUs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../userspace/lib/pagemap.h"
#include "../guest/tap.h"
#include "stopped_child.h"

#define AREA_PAGES	(3UL * 32768)
#define HOLE_EVERY	4096
#define HOLE_AT		1000		/* the page of each block not written */

static unsigned long psize;
static pid_t child = -1;
static uintptr_t area;

static void child_main(int wfd)
{
	size_t len = AREA_PAGES * psize, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(1);
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < AREA_PAGES; i++)
		if (i % HOLE_EVERY != HOLE_AT)
			p[i * psize] = 1;
	area = (uintptr_t)p;
	if (write(wfd, &area, sizeof(area)) != sizeof(area))
		_exit(1);
	for (;;)
		pause();
}

static const struct pmaps_vma *area_vma(const struct pmaps_map *m)
{
	size_t i;

	for (i = 0; i < m->nr_vmas; i++)
		if (m->vmas[i].start == area)
			return &m->vmas[i];
	return NULL;
}

/*
 * The written pages, each once, in ascending ranges with mapcount 1, and
 * no two neighbours that one range could hold.
 */
static void check_area(const char *who, const struct pmaps_vma *v)
{
	unsigned long long base = area / psize, next = base, pages = 0;
	size_t j;

	if (!v) {
		tap_check(0, "%s: no VMA at %#lx", who, (unsigned long)area);
		return;
	}
	for (j = 0; j < v->nr_ranges; j++) {
		const struct pmaps_range *r = &v->ranges[j];
		const struct pmaps_range *q = j ? r - 1 : r;
		unsigned long long hole;

		tap_check(r->index >= next && r->mapcount == 1,
			  "%s: range %llu+%llu mapcount %ld after %llu", who,
			  r->index, r->count, r->mapcount, next);
		/* the first hole at or after r->index */
		hole = base + (r->index - base) / HOLE_EVERY * HOLE_EVERY +
		       HOLE_AT;
		if (hole < r->index)
			hole += HOLE_EVERY;
		tap_check(r->index + r->count <= hole,
			  "%s: range %llu+%llu covers the hole at %llu", who,
			  r->index, r->count, hole);
		tap_check(q == r || q->index + q->count != r->index ||
			  q->flags != r->flags || q->unknown != r->unknown ||
			  q->mapcount != r->mapcount,
			  "%s: ranges %llu+%llu and %llu+%llu not joined", who,
			  q->index, q->count, r->index, r->count);
		next = r->index + r->count;
		pages += r->count;
	}
	tap_check(pages == AREA_PAGES - AREA_PAGES / HOLE_EVERY,
		  "%s: %llu pages, expected %lu", who, pages,
		  AREA_PAGES - AREA_PAGES / HOLE_EVERY);
}

/*
 * The runs of pages with the same mapcount and known letters, whatever
 * the flags: reclaim may age a page between the two reads.
 */
static int same_pages(const struct pmaps_vma *a, const struct pmaps_vma *b)
{
	size_t i = 0, j = 0;
	unsigned long long ai = 0, bi = 0;	/* pages of range i, j used */

	while (i < a->nr_ranges && j < b->nr_ranges) {
		const struct pmaps_range *r = &a->ranges[i], *q = &b->ranges[j];
		unsigned long long n = r->count - ai < q->count - bi ?
				       r->count - ai : q->count - bi;

		if (r->index + ai != q->index + bi ||
		    r->mapcount != q->mapcount || r->unknown != q->unknown) {
			tap_diag("page %llu: mapcount %ld/%ld, unknown %#x/%#x (page %llu)",
				 r->index + ai, r->mapcount, q->mapcount,
				 r->unknown, q->unknown, q->index + bi);
			return 0;
		}
		ai += n;
		bi += n;
		if (ai == r->count) {
			i++;
			ai = 0;
		}
		if (bi == q->count) {
			j++;
			bi = 0;
		}
	}
	return i == a->nr_ranges && j == b->nr_ranges;
}

static void test_readers_join(void)
{
	struct pmaps_pagemap_method how, one_how;
	struct pmaps_map many = { 0 }, one = { 0 };
	char err[256];

	if (pmaps_from_pagemap_how(child, 0, &many, &how, err, sizeof(err)) ||
	    pmaps_from_pagemap_how(child, PMAPS_PM_ONE_READER, &one, &one_how,
				   err, sizeof(err))) {
		tap_check(0, "pmaps_from_pagemap_how: %s", err);
	} else if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		tap_skip("test_readers_join", "one CPU online: one reader");
		goto out;
	} else {
		tap_diag("%d readers", how.readers);
		tap_check(how.readers >= 2, "%d readers on %ld CPUs",
			  how.readers, sysconf(_SC_NPROCESSORS_ONLN));
		tap_check(one_how.readers == 1, "PMAPS_PM_ONE_READER: %d readers",
			  one_how.readers);
		tap_check(how.kpageflags, "kpageflags not used");
		check_area("readers", area_vma(&many));
		check_area("one reader", area_vma(&one));
		tap_check(area_vma(&many) && area_vma(&one) &&
			  same_pages(area_vma(&many), area_vma(&one)),
			  "the readers' pages differ from one reader's");
	}
	tap_test_done("test_readers_join");
out:
	pmaps_map_free(&many);
	pmaps_map_free(&one);
}

int main(void)
{
	int st;

	psize = pmaps_page_size();
	tap_plan(1);
	if (geteuid()) {
		tap_skip("test_readers_join", "needs root for PFNs and kpageflags");
		return 0;
	}
	if (start_stopped_child(child_main, &area, sizeof(area), &child)) {
		tap_diag("cannot set up the child");
		tap_result(0, "test_readers_join");
	} else {
		test_readers_join();
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
	}
	return tap_failed_tests ? 1 : 0;
}
