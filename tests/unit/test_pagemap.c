// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps_from_pagemap() on a stopped child with a known layout:
 *  - 64 anonymous pages (no THP), pages 0-9 and 20-29 written, 5-6 dropped;
 *  - 8 anonymous pages only read, so they map the zero page;
 *  - a /dev/shm file of 12 written pages, mapped shared from page 4, read;
 *  - a written 2 MiB hugetlb page, for which the test raises the 2 MiB
 *    pool's overcommit limit by one and restores it after.
 * Needs root: PFNs and /proc/kpageflags are hidden from other users, and
 * the hugetlb pool is root's to change.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../userspace/lib/pagemap.h"
#include "../../userspace/lib/procfs_ioctl.h"
#include "../guest/tap.h"
#include "qemu_user.h"
#include "small_pages.h"
#include "stopped_child.h"

#define ANON_PAGES	64
#define ZERO_PAGES	8
#define FILE_PAGES	12
#define FILE_OFF_PAGES	4

/* Flags pagemap knows; Y and P are always unknown. */
#define KNOWN ((1u << PMAPS_REFERENCED) | (1u << PMAPS_ACTIVE) | \
	       (1u << PMAPS_UPTODATE) | (1u << PMAPS_DIRTY) | \
	       (1u << PMAPS_WRITEBACK))

#define HUGE_LEN	(2UL << 20)
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB	(21 << 26)	/* MAP_HUGE_SHIFT 26, log2(2 MiB) */
#endif
#define HUGE_OVERCOMMIT \
	"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages"

struct layout {
	uintptr_t anon, zero, file, huge;	/* huge: 0 if unavailable */
	int huge_errno;				/* why, then */
	int nohuge_errno;			/* MADV_NOHUGEPAGE refused */
};

static unsigned long psize;
static pid_t child = -1;
static struct layout lay;
static char shm_path[64];
static struct pmaps_map map;
static int have_map;


static void dump_vma(const struct pmaps_vma *v)
{
	char f[PMAPS_NR_FLAGS + 1];
	size_t i;

	tap_diag("%s", v->header);
	for (i = 0; i < v->nr_ranges; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		pmaps_format_flags(r->flags, r->unknown, f);
		tap_diag("%llu\t%llu\t%s\t%ld", r->index, r->count, f,
			 r->mapcount);
	}
}

static const struct pmaps_vma *vma_at(uintptr_t addr)
{
	size_t i;

	for (i = 0; i < map.nr_vmas; i++)
		if (map.vmas[i].start <= addr && addr < map.vmas[i].end)
			return &map.vmas[i];
	return NULL;
}

static void child_main(int wfd)
{
	volatile char *anon, *zero, *file, *huge;
	unsigned long i;
	char sum = 0;
	int fd;

	anon = mmap(NULL, ANON_PAGES * psize, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zero = mmap(NULL, ZERO_PAGES * psize, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(shm_path, O_RDONLY);
	if (anon == MAP_FAILED || zero == MAP_FAILED || fd < 0)
		_exit(1);
	file = mmap(NULL, (FILE_PAGES - FILE_OFF_PAGES) * psize, PROT_READ,
		    MAP_SHARED, fd, FILE_OFF_PAGES * psize);
	if (file == MAP_FAILED)
		_exit(1);
	close(fd);
	/*
	 * One small folio per page, whatever THP is set to.  EINVAL: no
	 * THP to turn off (a kernel without it), or the advice does not
	 * reach the kernel (qemu-user refuses it); thp_may_back()
	 * then tells whether the layout holds.
	 */
	if (madvise((void *)anon, ANON_PAGES * psize, MADV_NOHUGEPAGE) ||
	    madvise((void *)zero, ZERO_PAGES * psize, MADV_NOHUGEPAGE)) {
		if (errno != EINVAL)
			_exit(1);
		lay.nohuge_errno = errno;
	}
	for (i = 0; i < 30; i++)
		if (i < 10 || i >= 20)
			anon[i * psize] = 1;
	if (madvise((void *)(anon + 5 * psize), 2 * psize, MADV_DONTNEED))
		_exit(1);
	for (i = 0; i < ZERO_PAGES; i++)
		sum += zero[i * psize];
	for (i = 0; i < FILE_PAGES - FILE_OFF_PAGES; i++)
		sum += file[i * psize];
	/* pagemap shows hugetlb pages present, and the module lists them */
	huge = mmap(NULL, HUGE_LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB,
		    -1, 0);
	if (huge != MAP_FAILED) {
		huge[0] = 1;
	} else {
		lay.huge_errno = errno;
		huge = NULL;
	}

	lay.anon = (uintptr_t)anon;
	lay.zero = (uintptr_t)zero;
	lay.file = (uintptr_t)file;
	lay.huge = (uintptr_t)huge;
	if (write(wfd, &lay, sizeof(lay)) != sizeof(lay))
		_exit(1);
	for (;;)
		pause();
	(void)sum;
}

static int make_shm_file(void)
{
	char *buf = malloc(psize);
	int fd, i, ok = 1;

	if (!buf)
		return -1;
	snprintf(shm_path, sizeof(shm_path), "/dev/shm/pmaps_test.%d",
		 (int)getpid());
	fd = open(shm_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	/* written pages are in the page cache, uptodate and dirty */
	for (i = 0; i < FILE_PAGES && ok; i++) {
		memset(buf, 'a' + i, psize);
		ok = write(fd, buf, psize) == (ssize_t)psize;
	}
	close(fd);
	free(buf);
	return ok ? 0 : -1;
}

/*
 * The child's hugetlb page.  With no free 2 MiB page in the pool, one more
 * surplus page is allowed: the kernel allocates it at the child's mmap
 * and frees it when the child ends, so restoring the limit leaves the
 * pool as it was.  The lock keeps two runs of this test from restoring
 * each other's limit.  huge_why says why there is no page, for the skip.
 */
static int overcommit_fd = -1;
static unsigned long overcommit_old;
static int overcommit_raised;
static char huge_why[160];

static void huge_page_allow(void)
{
	char buf[32];
	ssize_t n;

	overcommit_fd = open(HUGE_OVERCOMMIT, O_RDWR);
	if (overcommit_fd < 0) {
		snprintf(huge_why, sizeof(huge_why),
			 "this kernel has no 2 MiB hugetlb pages (%s: %s)",
			 HUGE_OVERCOMMIT, strerror(errno));
		return;
	}
	if (flock(overcommit_fd, LOCK_EX) ||
	    (n = pread(overcommit_fd, buf, sizeof(buf) - 1, 0)) <= 0) {
		tap_diag("%s: %s", HUGE_OVERCOMMIT, strerror(errno));
		close(overcommit_fd);
		overcommit_fd = -1;
		return;
	}
	buf[n] = '\0';
	overcommit_old = strtoul(buf, NULL, 10);
	n = snprintf(buf, sizeof(buf), "%lu\n", overcommit_old + 1);
	overcommit_raised = pwrite(overcommit_fd, buf, (size_t)n, 0) == n;
	if (!overcommit_raised)
		tap_diag("cannot raise %s: %s", HUGE_OVERCOMMIT,
			 strerror(errno));
}

static void huge_page_restore(void)
{
	char buf[32];
	int n;

	if (overcommit_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", overcommit_old);
	if (pwrite(overcommit_fd, buf, (size_t)n, 0) != n)
		tap_diag("cannot restore %s to %lu: %s", HUGE_OVERCOMMIT,
			 overcommit_old, strerror(errno));
	close(overcommit_fd);
	overcommit_fd = -1;
}

/* Fork the child, wait until its layout is in place, stop it. */
static int start_child(void)
{
	if (make_shm_file())
		return tap_diag("cannot create %s: %s", shm_path,
				strerror(errno)), -1;
	return start_stopped_child(child_main, &lay, sizeof(lay), &child);
}

static void stop_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	/* the child's surplus huge page is freed: the limit may go back */
	huge_page_restore();
	if (shm_path[0])
		unlink(shm_path);
}

/*
 * Per-page checks shared by the anon and file tests.  Written anonymous
 * pages of a writable private mapping have P inferred, set; the shared
 * file's pages keep it unknown, and write() made them PG_dirty.
 */
static void check_page_state(const struct pmaps_range *r, int anon)
{
	unsigned int p = 1u << PMAPS_PTE_DIRTY;

	if (!anon) {
		tap_check(r->unknown == PMAPS_PAGEMAP_UNKNOWN,
		      "range %llu: Y and P must be unknown, unknown=%#x",
		      r->index, r->unknown);
		tap_check(!(r->flags & ~KNOWN),
		      "range %llu: unknown flag set: %#x", r->index, r->flags);
	} else {
		tap_check(r->unknown == (PMAPS_PAGEMAP_UNKNOWN & ~p),
		      "range %llu: Y must be unknown, P known, unknown=%#x",
		      r->index, r->unknown);
		tap_check((r->flags & ~KNOWN) == p,
		      "range %llu: P not inferred, or Y set: %#x", r->index,
		      r->flags);
	}
	tap_check(r->flags & (1u << PMAPS_UPTODATE), "range %llu: U not set",
	      r->index);
	tap_check(!(r->flags & (1u << PMAPS_WRITEBACK)), "range %llu: W set",
	      r->index);
	if (!anon)
		tap_check(r->flags & (1u << PMAPS_DIRTY), "range %llu: D not set",
		      r->index);
	tap_check(r->mapcount == 1, "range %llu: mapcount %ld, expected 1",
	      r->index, r->mapcount);
}

/*
 * The ranges of v must tile exactly the runs of present pages (first page,
 * count), indexes counted from base.  Pages touched together share their
 * LRU state, so each run is one range; a run may split only where R or A
 * differ (reclaim aging), which test_ranges_well_formed checks.
 */
static void check_runs(const struct pmaps_vma *v, unsigned long long base,
		       const unsigned long (*runs)[2], size_t nr_runs,
		       int anon)
{
	size_t i, j = 0;

	for (i = 0; i < nr_runs; i++) {
		unsigned long long idx = base + runs[i][0];
		unsigned long long end = idx + runs[i][1];

		while (idx < end && j < v->nr_ranges) {
			const struct pmaps_range *r = &v->ranges[j++];

			tap_check(r->index == idx && r->count <= end - idx,
			      "range %llu+%llu, expected one at %llu of at most %llu pages",
			      r->index, r->count, idx, end - idx);
			if (r->index != idx)
				break;
			if (r->count != end - idx)
				tap_diag("run at %llu split at %llu (R/A differ)",
					 base + runs[i][0], idx + r->count);
			check_page_state(r, anon);
			idx += r->count;
		}
		tap_check(idx >= end, "pages %llu-%llu missing", idx, end - 1);
	}
	tap_check(j == v->nr_ranges, "%zu ranges, expected %zu", v->nr_ranges, j);
	if (tap_failed_checks)
		dump_vma(v);
}

/*
 * Anonymous pages are indexed by virtual page number: written pages 0-9
 * and 20-29 minus the dropped 5-6.  D is not checked: an anonymous folio
 * gets PG_dirty only when it leaves the page tables.
 */
static void test_anon_ranges(void)
{
	static const unsigned long runs[][2] = { { 0, 5 }, { 7, 3 }, { 20, 10 } };
	const struct pmaps_vma *v = vma_at(lay.anon);

	tap_check(v && v->start == lay.anon &&
	      v->end == lay.anon + ANON_PAGES * psize,
	      "no VMA exactly at the anonymous mapping");
	if (v) {
		tap_check(v->inode == 0 && !v->name[0], "anon VMA has a file: %s",
		      v->header);
		check_runs(v, lay.anon / psize, runs, 3, 1);
	}
	tap_test_done("test_anon_ranges");
}

/* File pages are indexed from the file offset (page 4); write() dirtied them. */
static void test_file_ranges(void)
{
	static const unsigned long runs[][2] = {
		{ 0, FILE_PAGES - FILE_OFF_PAGES }
	};
	const struct pmaps_vma *v = vma_at(lay.file);

	tap_check(v && v->start == lay.file, "no VMA at the file mapping");
	if (v) {
		tap_check(!strcmp(v->name, shm_path), "name '%s', expected '%s'",
		      v->name, shm_path);
		tap_check(v->inode && v->offset == FILE_OFF_PAGES * psize,
		      "inode %llu offset %#llx", v->inode, v->offset);
		tap_check(!strcmp(v->perms, "r--s"), "perms %s", v->perms);
		check_runs(v, FILE_OFF_PAGES, runs, 1, 0);
	}
	tap_test_done("test_file_ranges");
}

/* Whether pagemap shows a present page in [start, end) of the child. */
static int any_present(unsigned long long start, unsigned long long end)
{
	char path[64];
	uint64_t e;
	int fd, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)child);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	for (; start < end && !found; start += psize)
		found = pread(fd, &e, 8, start / psize * 8) == 8 &&
			(e >> 63);
	close(fd);
	return found;
}

/* Read-faulted anonymous pages map the zero page, which is not listed. */
static void test_zero_page_skipped(void)
{
	const struct pmaps_vma *v = vma_at(lay.zero);

	tap_check(v && v->start == lay.zero, "no VMA at the read-only mapping");
	if (!any_present(lay.zero, lay.zero + ZERO_PAGES * psize))
		tap_diag("zero page not mapped here: check is weak");
	if (v) {
		tap_check(!v->nr_ranges, "zero page listed");
		if (tap_failed_checks)
			dump_vma(v);
	}
	tap_test_done("test_zero_page_skipped");
}

/* The headers are the maps lines, verbatim and in order, minus the gate. */
static void test_headers_match_maps(void)
{
	char path[64], *line = NULL;
	size_t cap = 0, i = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	f = fopen(path, "r");
	tap_check(f != NULL, "open %s: %s", path, strerror(errno));
	while (f && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 11 && !strcmp(line + n - 11, " [vsyscall]"))
			continue;
		tap_check(i < map.nr_vmas, "maps line %zu missing: %s", i, line);
		if (i < map.nr_vmas)
			tap_check(!strcmp(map.vmas[i].header, line),
			      "header %zu '%s', maps '%s'", i,
			      map.vmas[i].header, line);
		i++;
	}
	tap_check(i == map.nr_vmas, "%zu VMAs, maps has %zu", map.nr_vmas, i);
	for (i = 0; i < map.nr_vmas; i++)
		tap_check(strcmp(map.vmas[i].name, "[vsyscall]"),
		      "[vsyscall] listed");
	free(line);
	if (f)
		fclose(f);
	tap_test_done("test_headers_match_maps");
}

/* Whether the VmFlags value s has the two-letter flag f as a word. */
static int has_vmflag(const char *s, const char *f)
{
	const char *p = s;

	while ((p = strstr(p, f))) {
		if ((p == s || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\n' ||
						  !p[2]))
			return 1;
		p += 2;
	}
	return 0;
}

/*
 * VM_PFNMAP and VM_IO VMAs (VmFlags pf, io) have no struct pages: the
 * library must mark exactly those no_pages, so that nothing reads their
 * pagemap.  The marks are its own decision from smaps, checked here
 * against the child's smaps.  (A check of [vvar]'s ranges could not fail:
 * the page walk behind pagemap reports PFN maps as holes whatever the
 * library decides.)
 */
static void test_special_vmas_no_pages(void)
{
	struct pmaps_smaps_vma *stats = NULL;
	struct pmaps_map vmas = { 0 };
	char path[64], err[256], *line = NULL;
	size_t cap = 0, i = 0, special = 0;
	int in_vsyscall = 0;
	ssize_t n;
	FILE *f;

	if (pmaps_smaps_read(child, &vmas, &stats, err, sizeof(err))) {
		tap_check(0, "pmaps_smaps_read: %s", err);
		tap_test_done("test_special_vmas_no_pages");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)child);
	f = fopen(path, "r");
	tap_check(f != NULL, "open %s: %s", path, strerror(errno));
	while (f && (n = getline(&line, &cap, f)) > 0) {
		size_t hex = strspn(line, "0123456789abcdef");
		int pf_io;

		if (hex && line[hex] == '-') {
			in_vsyscall = strstr(line, " [vsyscall]") != NULL;
			continue;
		}
		if (in_vsyscall || strncmp(line, "VmFlags:", 8))
			continue;
		pf_io = has_vmflag(line + 8, "pf") || has_vmflag(line + 8, "io");
		special += pf_io;
		tap_check(i < vmas.nr_vmas, "smaps has more VMAs than %zu",
			  vmas.nr_vmas);
		if (i < vmas.nr_vmas)
			tap_check(stats[i].no_pages == pf_io,
				  "%s: no_pages %d, VmFlags%s", vmas.vmas[i].header,
				  stats[i].no_pages, line + 8);
		i++;
	}
	tap_check(i == vmas.nr_vmas, "%zu VmFlags lines, %zu VMAs", i,
		  vmas.nr_vmas);
	free(line);
	if (f)
		fclose(f);
	free(stats);
	pmaps_map_free(&vmas);
	if (!special && !tap_failed_checks) {
		tap_skip("test_special_vmas_no_pages",
			 "this kernel maps no VM_PFNMAP or VM_IO VMA (no [vvar]) into the child");
		return;
	}
	tap_diag("%zu VMAs with VmFlags pf or io", special);
	tap_test_done("test_special_vmas_no_pages");
}

/*
 * A written hugetlb page is one range of base pages, from index 0 of the
 * mapping's (internal hugetlbfs) file.  smaps leaves hugetlb pages out of
 * Rss, so the model must not take Rss 0 for empty here.
 */
static void test_hugetlb_ranges(void)
{
	const struct pmaps_vma *v;

	if (!lay.huge && huge_why[0]) {
		tap_skip("test_hugetlb_ranges", huge_why);
		return;
	}
	/* allowed one, yet none: the kernel could not allocate it */
	if (!lay.huge && lay.huge_errno == ENOMEM && overcommit_raised) {
		tap_skip("test_hugetlb_ranges",
			 "the kernel could not allocate a 2 MiB huge page (ENOMEM: no free 2 MiB block)");
		return;
	}
	tap_check(lay.huge != 0, "no hugetlb page: mmap: %s",
		  strerror(lay.huge_errno));
	v = vma_at(lay.huge);
	tap_check(v != NULL, "no VMA at the hugetlb mapping");
	tap_check(any_present(lay.huge, lay.huge + HUGE_LEN),
		  "hugetlb page not present in pagemap");
	if (v)
		tap_check(v->nr_ranges == 1, "hugetlb VMA has %zu ranges",
			  v->nr_ranges);
	if (v && v->nr_ranges == 1) {
		const struct pmaps_range *r = &v->ranges[0];

		tap_check(r->index == 0 && r->count == HUGE_LEN / psize &&
			  r->mapcount == 1,
			  "hugetlb range: index %llu, %llu pages, mapcount %ld",
			  r->index, r->count, r->mapcount);
	}
	tap_test_done("test_hugetlb_ranges");
}

/*
 * small_folios: said of the anonymous VMA, whose pages are small folios
 * (MADV_NOHUGEPAGE), and not of the hugetlb one, whose page is a 2 MiB
 * folio; pmaps map draws a VMA that says it without reading its flags
 * again.
 */
static void test_small_folios(void)
{
	const struct pmaps_vma *v = vma_at(lay.anon);

	tap_check(v && v->small_folios,
		  "anonymous VMA of small folios: small_folios not said");
	v = lay.huge ? vma_at(lay.huge) : NULL;
	if (v)
		tap_check(!v->small_folios,
			  "hugetlb VMA said small_folios: %s", v->header);
	else
		tap_diag("no hugetlb page: its half not checked");
	tap_test_done("test_small_folios");
}

/* Ranges are sorted, inside their VMA, and maximal. */
static void test_ranges_well_formed(void)
{
	size_t i, j;

	for (i = 0; i < map.nr_vmas; i++) {
		const struct pmaps_vma *v = &map.vmas[i];

		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned long long a = pmaps_range_addr(v, r);

			tap_check(a >= v->start && a < v->end &&
			      r->count <= (v->end - a) / psize,
			      "%s: range %llu+%llu outside", v->header,
			      r->index, r->count);
			if (!j)
				continue;
			tap_check(r[-1].index + r[-1].count <= r->index,
			      "%s: range %llu out of order", v->header,
			      r->index);
			tap_check(r[-1].index + r[-1].count != r->index ||
			      r[-1].flags != r->flags ||
			      r[-1].mapcount != r->mapcount,
			      "%s: ranges %llu and %llu not merged", v->header,
			      r[-1].index, r->index);
		}
	}
	tap_test_done("test_ranges_well_formed");
}

/*
 * Whether the two models list the same VMAs, and the same ranges in the
 * child's own mappings.  The pages the child shares copy-on-write with
 * this process change their mapcounts as this process runs.
 */
static int same_model(const struct pmaps_map *a, const struct pmaps_map *b)
{
	size_t i, j;

	if (a->nr_vmas != b->nr_vmas)
		return tap_diag("%zu VMAs against %zu", a->nr_vmas,
				b->nr_vmas), 0;
	for (i = 0; i < a->nr_vmas; i++) {
		const struct pmaps_vma *x = &a->vmas[i], *y = &b->vmas[i];

		if (strcmp(x->header, y->header) || x->swapped != y->swapped) {
			tap_diag("VMA %zu differs:", i);
			dump_vma(x);
			dump_vma(y);
			return 0;
		}
		if (x->start != lay.anon && x->start != lay.zero &&
		    x->start != lay.file && x->start != lay.huge)
			continue;
		if (x->nr_ranges != y->nr_ranges) {
			tap_diag("%s: %zu ranges against %zu", x->header,
				 x->nr_ranges, y->nr_ranges);
			return 0;
		}
		for (j = 0; j < x->nr_ranges; j++) {
			const struct pmaps_range *r = &x->ranges[j];
			const struct pmaps_range *q = &y->ranges[j];

			if (r->index != q->index || r->count != q->count ||
			    r->flags != q->flags || r->unknown != q->unknown ||
			    r->mapcount != q->mapcount) {
				tap_diag("%s: range %zu differs:", x->header, j);
				dump_vma(x);
				dump_vma(y);
				return 0;
			}
		}
	}
	return 1;
}

/*
 * Kernels before v6.7 have no PAGEMAP_SCAN: the model read from smaps and
 * the whole pagemap of each resident VMA must be the one PAGEMAP_SCAN
 * finds, on the stopped child.
 */
static void test_scan_matches_read(void)
{
	struct pmaps_pagemap_method scan_how, read_how;
	struct pmaps_map scanned = { 0 }, read = { 0 };
	char err[256];

	if (pmaps_from_pagemap_how(child, 0, &scanned, &scan_how, err,
				   sizeof(err)) ||
	    pmaps_from_pagemap_how(child, PMAPS_PM_NO_SCAN, &read, &read_how,
				   err, sizeof(err))) {
		tap_check(0, "pmaps_from_pagemap_how: %s", err);
	} else if (!scan_how.scan) {
		char path[64], why[400];

		pmaps_map_free(&scanned);
		pmaps_map_free(&read);
		/* qemu-user answers the ioctl ENOTTY, as a kernel before it */
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)child);
		if (qemu_user_refuses_ioctl(path, PAGEMAP_SCAN, "PAGEMAP_SCAN",
					    why, sizeof(why)))
			strncat(why, ": only the read path ran",
				sizeof(why) - strlen(why) - 1);
		else
			snprintf(why, sizeof(why),
				 "this kernel has no PAGEMAP_SCAN (v6.7): only the read path ran");
		tap_skip("test_scan_matches_read", why);
		return;
	} else {
		tap_check(!read_how.scan && read_how.kpageflags &&
			  scan_how.kpageflags, "methods: scan %d/%d, kpageflags %d/%d",
			  scan_how.scan, read_how.scan, scan_how.kpageflags,
			  read_how.kpageflags);
		tap_check(same_model(&scanned, &read),
			  "PAGEMAP_SCAN and pagemap reads differ");
	}
	pmaps_map_free(&scanned);
	pmaps_map_free(&read);
	tap_test_done("test_scan_matches_read");
}

/*
 * Pagemap alone, as for a reader without root: the written anonymous
 * pages with every letter '?' and mapcount 1 (PM_MMAP_EXCLUSIVE); the
 * file pages (shared with the page cache, but mapped once) likewise.
 * avoid picks the path; with PAGEMAP_SCAN the zero page is left out.
 */
static void check_pagemap_alone(const char *name, unsigned int avoid)
{
	static const unsigned long runs[][2] = { { 0, 5 }, { 7, 3 }, { 20, 10 } };
	struct pmaps_pagemap_method how;
	struct pmaps_map m = { 0 };
	const struct pmaps_vma *v;
	unsigned long long idx = lay.anon / psize;
	char err[256];
	size_t i;

	if (pmaps_from_pagemap_how(child, avoid | PMAPS_PM_NO_KPAGEFLAGS, &m,
				   &how, err, sizeof(err))) {
		tap_check(0, "pmaps_from_pagemap_how: %s", err);
		tap_test_done(name);
		return;
	}
	tap_check(!how.kpageflags, "kpageflags used");
	for (i = 0; i < m.nr_vmas; i++)
		tap_check(!m.vmas[i].small_folios,
			  "without kpageflags, VMA %s said small_folios",
			  m.vmas[i].header);
	tap_check(!strcmp(pmaps_pagemap_method_name(&how),
			  how.scan ? "PAGEMAP_SCAN, without root" :
				     "pagemap, without root"),
		  "method '%s'", pmaps_pagemap_method_name(&how));
	for (i = 0; i < m.nr_vmas && m.vmas[i].start != lay.anon; i++)
		;
	v = i < m.nr_vmas ? &m.vmas[i] : NULL;
	tap_check(v && v->nr_ranges == 3, "anonymous VMA: %zu ranges, expected 3",
		  v ? v->nr_ranges : 0);
	for (i = 0; v && i < v->nr_ranges && i < 3; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		tap_check(r->index == idx + runs[i][0] && r->count == runs[i][1] &&
			  r->unknown == (1u << PMAPS_NR_FLAGS) - 1 && !r->flags &&
			  r->mapcount == 1,
			  "range %llu+%llu unknown %#x flags %#x mapcount %ld",
			  r->index, r->count, r->unknown, r->flags, r->mapcount);
	}
	for (i = 0; i < m.nr_vmas && m.vmas[i].start != lay.zero; i++)
		;
	if (i < m.nr_vmas && how.scan)
		tap_check(!m.vmas[i].nr_ranges, "zero page VMA has %zu ranges",
			  m.vmas[i].nr_ranges);
	if (i < m.nr_vmas && how.scan && m.vmas[i].nr_ranges)
		dump_vma(&m.vmas[i]);
	if (tap_failed_checks && v)
		dump_vma(v);
	pmaps_map_free(&m);
	tap_test_done(name);
}

static void test_pagemap_alone_scan(void)
{
	check_pagemap_alone("test_pagemap_alone_scan", 0);
}

static void test_pagemap_alone_read(void)
{
	check_pagemap_alone("test_pagemap_alone_read", PMAPS_PM_NO_SCAN);
}

/*
 * A reader without root gets a model of its own process, with pagemap's
 * PFNs hidden: flags '?'.
 */
static void test_unprivileged_own_process(void)
{
	char why[400];
	pid_t pid;
	int st;

	if (qemu_user_own_maps(why, sizeof(why))) {
		tap_skip("test_unprivileged_own_process", why);
		return;
	}
	pid = fork();

	if (!pid) {
		struct pmaps_pagemap_method how;
		struct pmaps_map m = { 0 };
		char err[256];
		size_t i, j, pages = 0;
		int bad = 0;

		/* the parent's copy, freed so leak checkers see none */
		pmaps_map_free(&map);
		/* dumpable again after setuid(), as any user's process is */
		if (setgid(65534) || setuid(65534) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(2);
		if (pmaps_from_pagemap_how(getpid(), 0, &m, &how, err,
					   sizeof(err))) {
			tap_diag("error: %s", err);
			_exit(1);
		}
		for (i = 0; i < m.nr_vmas; i++) {
			for (j = 0; j < m.vmas[i].nr_ranges; j++) {
				const struct pmaps_range *r = &m.vmas[i].ranges[j];

				pages += r->count;
				bad += r->unknown != (1u << PMAPS_NR_FLAGS) - 1 ||
				       (r->mapcount != 1 &&
					r->mapcount != PMAPS_MAPCOUNT_UNKNOWN);
			}
		}
		tap_diag("uid 65534: %zu VMAs, %zu pages, %s", m.nr_vmas,
			 pages, pmaps_pagemap_method_name(&how));
		pmaps_map_free(&m);
		_exit(how.kpageflags || !pages || bad ? 1 : 0);
	}
	tap_check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "unprivileged child failed");
	tap_test_done("test_unprivileged_own_process");
}

/* Another user's process: an error naming pagemap, empty result. */
static void test_unprivileged_other_error(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		struct pmaps_map m = { 0 };
		char err[256], want[64];
		int ret;

		pmaps_map_free(&map);
		if (setgid(65534) || setuid(65534))
			_exit(2);
		ret = pmaps_from_pagemap(child, &m, err, sizeof(err));
		if (ret == 0) {
			tap_diag("read root's process without root");
			_exit(1);
		}
		tap_diag("error: %s", err);
		snprintf(want, sizeof(want), "/proc/%d/pagemap", (int)child);
		if (!strstr(err, want) || !strstr(err, strerror(EACCES)) ||
		    m.nr_vmas || m.vmas)
			_exit(1);
		_exit(0);
	}
	tap_check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "unprivileged child failed");
	tap_test_done("test_unprivileged_other_error");
}

/* A process that is gone: -1 and the failing file in the message. */
static void test_missing_pid(void)
{
	struct pmaps_map m;
	char err[256], want[64];
	pid_t pid = fork();

	if (!pid) {
		pmaps_map_free(&map);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	tap_check(pmaps_from_pagemap(pid, &m, err, sizeof(err)) == -1,
	      "pid %d: no error", (int)pid);
	snprintf(want, sizeof(want), "/proc/%d/", (int)pid);
	tap_check(strstr(err, want) != NULL, "message '%s'", err);
	tap_check(!m.nr_vmas && !m.vmas, "result not empty");
	pmaps_map_free(&m);
	tap_test_done("test_missing_pid");
}

int main(void)
{
	static const char *const names[] = {
		"test_anon_ranges", "test_file_ranges",
		"test_zero_page_skipped", "test_headers_match_maps",
		"test_special_vmas_no_pages", "test_hugetlb_ranges",
		"test_ranges_well_formed", "test_scan_matches_read",
		"test_pagemap_alone_scan", "test_pagemap_alone_read",
		"test_unprivileged_own_process",
		"test_unprivileged_other_error", "test_missing_pid",
		"test_small_folios",
	};
	const size_t nr = sizeof(names) / sizeof(names[0]);
	char err[256], why[512];
	size_t i;

	psize = pmaps_page_size();
	tap_plan((int)nr);
	if (geteuid()) {
		for (i = 0; i < nr; i++)
			tap_skip(names[i], "needs root for PFNs and kpageflags");
		return 0;
	}
	huge_page_allow();
	if (start_child()) {
		tap_diag("cannot set up the child");
	} else if (lay.nohuge_errno &&
		   thp_may_back(why, sizeof(why))) {
		stop_child();
		for (i = 0; i < nr; i++)
			tap_skip(names[i], why);
		return 0;
	} else if (pmaps_from_pagemap(child, &map, err, sizeof(err))) {
		tap_diag("pmaps_from_pagemap: %s", err);
	} else {
		have_map = 1;
	}
	if (lay.nohuge_errno)
		tap_diag("madvise(MADV_NOHUGEPAGE): %s, but no THP size is always here: the pages are small",
			 strerror(lay.nohuge_errno));
	if (!have_map) {
		stop_child();
		for (i = 0; i < nr; i++)
			tap_result(0, names[i]);
		return 1;
	}
	test_anon_ranges();
	test_file_ranges();
	test_zero_page_skipped();
	test_headers_match_maps();
	test_special_vmas_no_pages();
	test_hugetlb_ranges();
	test_ranges_well_formed();
	test_scan_matches_read();
	test_pagemap_alone_scan();
	test_pagemap_alone_read();
	test_unprivileged_own_process();
	test_unprivileged_other_error();
	test_missing_pid();
	test_small_folios();
	pmaps_map_free(&map);
	stop_child();
	return tap_failed_tests ? 1 : 0;
}
