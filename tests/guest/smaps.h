/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own per-VMA numbers, /proc/PID/smaps, as the oracle for a
 * pmaps text of a stopped process:
 *
 *	resident pages (the ranges' COUNTs) * page size	== Rss
 *	pages with P or D				== Private_Dirty + Shared_Dirty
 *	pages with Y or R				== Referenced
 *	sum of page size / mapcount (pmaps_pss_add())	== Pss
 *
 * smaps counts per mapped page exactly what the flags say: a page is dirty
 * if its pte (pmd) is dirty or its folio is, and referenced if its pte is
 * young or its folio has PG_referenced (or the idle-page young bit, which
 * only idle page tracking sets).  Both leave out the zero pages and pages
 * without a struct page.
 *
 * Also the target the suites compare: a forked process with one VMA of
 * each kind (smaps_layout_build()).  Shared by tests/guest/smaps_oracle.c
 * (the module's text, which must match) and tests/unit/test_pagemap_smaps.c
 * (the pagemap source, which cannot see pte bits: bounds only).  smaps is
 * parsed here, not by libpmaps, whose smaps reader is under test.
 * Needs _GNU_SOURCE (memfd_create).
 */
#ifndef PMAPS_SMAPS_H
#define PMAPS_SMAPS_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "pmaps.h"
#include "tap.h"

/* ---- reading smaps ---- */

/* One VMA as smaps shows it; sizes in kB, as smaps prints them. */
struct smaps_vma {
	char *header;			/* the maps line, without '\n' */
	unsigned long long start, end;
	unsigned long long rss, dirty, referenced, anon_huge, pss;
};

struct smaps {
	struct smaps_vma *vmas;
	size_t nr;
};

static inline void smaps_free(struct smaps *sm)
{
	size_t i;

	for (i = 0; i < sm->nr; i++)
		free(sm->vmas[i].header);
	free(sm->vmas);
	sm->vmas = NULL;
	sm->nr = 0;
}

/* Start a VMA at header line; 0 or -1. */
static inline int smaps_add(struct smaps *sm, const char *line,
			    unsigned long long start, unsigned long long end)
{
	struct smaps_vma *grown = realloc(sm->vmas,
					  (sm->nr + 1) * sizeof(*sm->vmas));

	if (!grown)
		return -1;
	sm->vmas = grown;
	memset(&sm->vmas[sm->nr], 0, sizeof(*sm->vmas));
	sm->vmas[sm->nr].header = strdup(line);
	sm->vmas[sm->nr].start = start;
	sm->vmas[sm->nr].end = end;
	return sm->vmas[sm->nr++].header ? 0 : -1;
}

/* Read /proc/PID/smaps into sm.  0, or -1 said as a diagnostic. */
static inline int smaps_read(pid_t pid, struct smaps *sm)
{
	unsigned long long start, end, kb;
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;
	FILE *f;

	memset(sm, 0, sizeof(*sm));
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		tap_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		struct smaps_vma *v = sm->nr ? &sm->vmas[sm->nr - 1] : NULL;
		int n = 0;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		/* "Key:" lines never parse as two hex numbers and a '-' */
		if (sscanf(line, "%llx-%llx %n", &start, &end, &n) == 2 && n) {
			if (smaps_add(sm, line, start, end)) {
				tap_diag("%s: out of memory", path);
				ret = -1;
			}
		} else if (!v) {
			tap_diag("%s: no VMA header before '%s'", path, line);
			ret = -1;
		} else if (sscanf(line, "Rss: %llu kB", &kb) == 1) {
			v->rss = kb;
		} else if (sscanf(line, "Private_Dirty: %llu kB", &kb) == 1 ||
			   sscanf(line, "Shared_Dirty: %llu kB", &kb) == 1) {
			v->dirty += kb;
		} else if (sscanf(line, "Referenced: %llu kB", &kb) == 1) {
			v->referenced = kb;
		} else if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			v->anon_huge = kb;
		} else if (sscanf(line, "Pss: %llu kB", &kb) == 1) {
			v->pss = kb;
		}
	}
	if (!ret && ferror(f)) {
		tap_diag("read %s: %s", path, strerror(errno));
		ret = -1;
	}
	free(line);
	fclose(f);
	if (!ret && !sm->nr) {
		tap_diag("%s lists no VMA", path);
		ret = -1;
	}
	if (ret)
		smaps_free(sm);
	return ret;
}

/*
 * Whether a and b say the same, Pss only if with_pss; the first difference
 * said if not.  A shared library's Pss moves whenever another process maps
 * or unmaps it: a comparison of anything else must not wait on that.
 */
static inline bool smaps_same(const struct smaps *a, const struct smaps *b,
			      bool with_pss)
{
	size_t i;

	if (a->nr != b->nr) {
		tap_diag("smaps listed %zu VMAs, then %zu", a->nr, b->nr);
		return false;
	}
	for (i = 0; i < a->nr; i++) {
		const struct smaps_vma *x = &a->vmas[i], *y = &b->vmas[i];

		if (strcmp(x->header, y->header) || x->rss != y->rss ||
		    x->dirty != y->dirty || x->referenced != y->referenced ||
		    x->anon_huge != y->anon_huge ||
		    (with_pss && x->pss != y->pss)) {
			tap_diag("%s: smaps said Rss %llu, dirty %llu, Referenced %llu, Pss %llu kB, then %s: %llu, %llu, %llu, %llu kB",
				 x->header, x->rss, x->dirty, x->referenced,
				 x->pss, y->header, y->rss, y->dirty,
				 y->referenced, y->pss);
			return false;
		}
	}
	return true;
}

/* The VMA holding addr, or NULL. */
static inline const struct smaps_vma *smaps_vma_at(const struct smaps *sm,
						   uintptr_t addr)
{
	size_t i;

	for (i = 0; i < sm->nr; i++)
		if (sm->vmas[i].start <= addr && addr < sm->vmas[i].end)
			return &sm->vmas[i];
	return NULL;
}

/* ---- reading both ---- */

/* Reads the pmaps text of pid into map; 0, or -1 said as a diagnostic. */
typedef int (*smaps_text_reader)(pid_t pid, struct pmaps_map *map);

#define SMAPS_ATTEMPTS	10

/*
 * smaps, then the text, then smaps again.  The target is stopped, but the
 * kernel may still change it (khugepaged, reclaim, writeback on a disk):
 * then the oracle itself moved between the reads and no comparison holds,
 * so it is read again, at most SMAPS_ATTEMPTS times, each after a longer
 * pause.  Aging comes in bursts: with both host CPUs busy (make
 * check-busy) the Referenced of the target's libc text and [vdso] changed
 * in each of three attempts made back to back.  Each attempt made again
 * is a "retried:" line, which the suites' totals count.  A text that
 * differs from an smaps that stayed put is never read again.
 */
static inline int smaps_read_with_text(pid_t pid, smaps_text_reader read_text,
				       struct pmaps_map *map, struct smaps *sm,
				       bool with_pss)
{
	int attempt;

	/*
	 * Once for nothing: this process maps the test binary's pages as
	 * it first runs the code that reads, and the target's share of
	 * them (its Pss) changes with every page so mapped.
	 */
	if (smaps_read(pid, sm))
		return -1;
	smaps_free(sm);
	if (read_text(pid, map))
		return -1;
	pmaps_map_free(map);
	for (attempt = 1; attempt <= SMAPS_ATTEMPTS; attempt++) {
		struct smaps after;
		bool same;

		if (smaps_read(pid, sm))
			return -1;
		if (read_text(pid, map)) {
			smaps_free(sm);
			return -1;
		}
		if (smaps_read(pid, &after)) {
			pmaps_map_free(map);
			smaps_free(sm);
			return -1;
		}
		same = smaps_same(sm, &after, with_pss);
		smaps_free(&after);
		if (same)
			return 0;
		pmaps_map_free(map);
		smaps_free(sm);
		if (attempt == SMAPS_ATTEMPTS)
			break;
		tap_diag("retried: smaps of %d changed while its text was read, attempt %d of %d",
			 (int)pid, attempt + 1, SMAPS_ATTEMPTS);
		nanosleep(&(struct timespec){ 0, 100000000L * attempt }, NULL);
	}
	tap_diag("smaps of %d changed in each of %d attempts: nothing to compare",
		 (int)pid, SMAPS_ATTEMPTS);
	return -1;
}

/* ---- comparing ---- */

#define SMAPS_FLAG(f)	(1u << PMAPS_##f)
#define SMAPS_SHOW_RANGES	8	/* of a VMA that does not match */

enum smaps_field { SMAPS_RSS, SMAPS_DIRTY, SMAPS_REFERENCED, SMAPS_PSS };

static inline unsigned long long smaps_field_kb(const struct smaps_vma *v,
						enum smaps_field f)
{
	return f == SMAPS_RSS ? v->rss :
	       f == SMAPS_DIRTY ? v->dirty :
	       f == SMAPS_PSS ? v->pss : v->referenced;
}

static inline const char *smaps_field_name(enum smaps_field f)
{
	return f == SMAPS_RSS ? "Rss" :
	       f == SMAPS_DIRTY ? "Private_Dirty + Shared_Dirty" :
	       f == SMAPS_PSS ? "Pss" : "Referenced";
}

/* One comparison: which pages of the text against which smaps field. */
struct smaps_rule {
	enum smaps_field field;
	unsigned int mask;	/* pages with any of these flags; 0: all */
	const char *pages;	/* the pages, for messages: "with P or D" */
	bool at_most;		/* the pages' size may be below the field */
	/*
	 * If set, VMAs outside this layout are not compared, only said:
	 * their pages are shared with the rest of the machine.
	 */
	const struct smaps_layout *layout_only;
};

struct smaps_layout;
static inline bool smaps_layout_holds(const struct smaps_layout *lay,
				      const struct smaps_vma *s);

/* Pages of v's ranges with a flag of mask set (all pages if mask is 0). */
static inline unsigned long long smaps_pages(const struct pmaps_vma *v,
					     unsigned int mask)
{
	unsigned long long n = 0;
	size_t i;

	for (i = 0; i < v->nr_ranges; i++)
		if (!mask || (v->ranges[i].flags & mask))
			n += v->ranges[i].count;
	return n;
}

/* v's PSS as pmaps counts it, in fixed point (struct pmaps_pss). */
static inline struct pmaps_pss smaps_pss(const struct pmaps_vma *v)
{
	struct pmaps_pss pss = { 0 };
	size_t i;

	for (i = 0; i < v->nr_ranges; i++)
		pmaps_pss_add(&pss, &v->ranges[i], pmaps_page_size());
	return pss;
}

/* What rule compares of v, in kB, and in pages where it counts pages. */
static inline unsigned long long smaps_text_kb(const struct pmaps_vma *v,
					       const struct smaps_rule *rule,
					       unsigned long long *pages)
{
	struct pmaps_pss pss;

	*pages = smaps_pages(v, rule->mask);
	if (rule->field != SMAPS_PSS)
		return *pages * (pmaps_page_size() / 1024);
	pss = smaps_pss(v);
	tap_check(!pss.unknown, "%s: %llu pages of mapcount '?' read as root",
		  v->header, pss.unknown);
	return pmaps_pss_bytes(&pss) >> 10;
}

static inline void smaps_show_ranges(const struct pmaps_vma *v)
{
	char f[PMAPS_NR_FLAGS + 1];
	size_t i;

	for (i = 0; i < v->nr_ranges && i < SMAPS_SHOW_RANGES; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		pmaps_format_flags(r->flags, r->unknown, f);
		tap_diag("  %llu\t%llu\t%s\t%ld", r->index, r->count, f,
			 r->mapcount);
	}
	if (v->nr_ranges > SMAPS_SHOW_RANGES)
		tap_diag("  (%zu more ranges)", v->nr_ranges - SMAPS_SHOW_RANGES);
}

/*
 * Compare every VMA of the text with smaps as rule says, as checks
 * (tap_check): each mismatch names the VMA and both numbers.  The VMAs
 * must be the same, but for [vsyscall], which smaps lists, the kernel's
 * /proc/PID/pmaps lists last without pages, and the module leaves out (it
 * is not in the process's mm).  Returns the smaps field's
 * total over the VMAs compared, in kB.
 */
static inline unsigned long long smaps_compare(const struct pmaps_map *map,
					       const struct smaps *sm,
					       const struct smaps_rule *rule)
{
	const char *name = smaps_field_name(rule->field);
	unsigned long long total_kb = 0, total_pages = 0, total_have = 0;
	size_t i = 0, j = 0, vmas = 0;

	while (i < map->nr_vmas || j < sm->nr) {
		const struct pmaps_vma *v = i < map->nr_vmas ?
					    &map->vmas[i] : NULL;
		const struct smaps_vma *s = j < sm->nr ? &sm->vmas[j] : NULL;
		unsigned long long pages, have, want;
		bool differs;

		if (s && strstr(s->header, " [vsyscall]")) {
			j++;
			continue;
		}
		if (v && strstr(v->header, " [vsyscall]")) {
			i++;
			continue;
		}
		if (v && (!s || v->start < s->start)) {
			tap_check(0, "VMA only in the pmaps text: %s", v->header);
			i++;
			continue;
		}
		if (!v || s->start < v->start) {
			tap_check(0, "VMA only in smaps: %s", s->header);
			j++;
			continue;
		}
		tap_check(!strcmp(v->header, s->header),
			  "VMA header: pmaps text '%s', smaps '%s'", v->header,
			  s->header);
		have = smaps_text_kb(v, rule, &pages);
		want = smaps_field_kb(s, rule->field);
		differs = rule->at_most ? have > want : have != want;
		if (rule->layout_only &&
		    !smaps_layout_holds(rule->layout_only, s)) {
			if (differs)
				tap_diag("not compared, not the target's own: %s: %llu pages %s (%llu kB), smaps %s %llu kB",
					 v->header, pages, rule->pages, have,
					 name, want);
			i++;
			j++;
			continue;
		}
		if (differs) {
			tap_check(0, "%s: %llu pages %s (%llu kB), smaps %s %llu kB",
				  v->header, pages, rule->pages, have, name,
				  want);
			smaps_show_ranges(v);
		}
		total_pages += pages;
		total_have += have;
		total_kb += want;
		vmas++;
		i++;
		j++;
	}
	tap_diag("%zu VMAs: %llu pages %s (%llu kB), smaps %s %llu kB", vmas,
		 total_pages, rule->pages, total_have, name, total_kb);
	return total_kb;
}

/* ---- the target ---- */

#define SMAPS_ANON_PAGES	16
#define SMAPS_ZERO_PAGES	8
#define SMAPS_COW_PAGES		16
#define SMAPS_SHARED_PAGES	8
#define SMAPS_SHMEM_PAGES	8
/*
 * A PMD-mapped THP's size, hpage_pmd_size: 2 MiB on x86-64 and arm64 with
 * 4K pages, 32 MiB with arm64's 16K pages.  2 MiB where the kernel has no
 * THP (the THP test then skips; the VMA is compared as it is).
 */
static inline size_t smaps_thp_size(void)
{
	static size_t size;
	unsigned long v = 0;
	FILE *f;

	if (size)
		return size;
	f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	size = v ? v : 2UL << 20;
	return size;
}

#define SMAPS_THP_SIZE		smaps_thp_size()
#define SMAPS_COW_FILE		"cow"
#define SMAPS_SHARED_FILE	"shared"

enum smaps_kind {
	SMAPS_ANON, SMAPS_ZERO, SMAPS_COW, SMAPS_SHARED, SMAPS_SHMEM,
	SMAPS_THP, SMAPS_NR_KINDS
};

static const char *const smaps_kind_names[SMAPS_NR_KINDS] = {
	"anonymous written", "anonymous only read (zero page)",
	"private file read, partly written (COW)", "shared file written",
	"shmem (memfd) shared", "THP (MADV_HUGEPAGE)",
};

/* Where the target's VMA of each kind starts. */
struct smaps_layout {
	uintptr_t at[SMAPS_NR_KINDS];
	int thp_errno;		/* MADV_HUGEPAGE failed so: no THP here */
};

static inline void smaps_touch(volatile char *p, size_t from, size_t to,
			       bool write)
{
	size_t ps = pmaps_page_size(), i;

	/* volatile: every access happens, so every page faults in */
	for (i = from; i < to; i++) {
		if (write)
			p[i * ps] = (char)(i + 1);
		else
			(void)p[i * ps];
	}
}

/* dir/name into path (PATH_MAX bytes); 0, or -1 if it is too long. */
static inline int smaps_path(char *path, const char *dir, const char *name)
{
	int n = snprintf(path, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

/* A file dir/name of pages pages written through write(), opened rw. */
static inline int smaps_file(const char *dir, const char *name, size_t pages)
{
	size_t ps = pmaps_page_size(), i;
	char path[PATH_MAX], *buf = malloc(ps);
	int fd = -1;

	if (buf && !smaps_path(path, dir, name))
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	for (i = 0; fd >= 0 && i < pages; i++) {
		memset(buf, 'a' + (int)(i % 26), ps);
		if (write(fd, buf, ps) != (ssize_t)ps) {
			close(fd);
			fd = -1;
		}
	}
	free(buf);
	return fd;
}

static inline char *smaps_map(size_t len, int prot, int flags, int fd)
{
	char *p = mmap(NULL, len, prot, flags | (fd < 0 ? MAP_ANONYMOUS : 0),
		       fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* fd of pages pages, mapped shared and writable; or NULL. */
static inline char *smaps_map_shared(int fd, size_t pages)
{
	size_t len = pages * pmaps_page_size();

	if (fd < 0 || ftruncate(fd, (off_t)len))
		return NULL;
	return smaps_map(len, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
}

/* No THP for small-page VMAs; a kernel without THP has no such advice. */
static inline int smaps_no_thp(void *p, size_t len)
{
	return madvise(p, len, MADV_NOHUGEPAGE) && errno != EINVAL ? -1 : 0;
}

/* read() pages from to to-1 of fd: PG_referenced, no young pte. */
static inline int smaps_read_pages(int fd, size_t from, size_t to)
{
	size_t ps = pmaps_page_size(), i;
	char *buf = malloc(ps);
	int ret = buf ? 0 : -1;

	for (i = from; i < to && !ret; i++)
		if (pread(fd, buf, ps, (off_t)(i * ps)) != (ssize_t)ps)
			ret = -1;
	free(buf);
	return ret;
}

/* The same of the file dir/name. */
static inline int smaps_read_file_pages(const char *dir, const char *name,
					size_t from, size_t to)
{
	char path[PATH_MAX];
	int fd = -1, ret;

	if (!smaps_path(path, dir, name))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = smaps_read_pages(fd, from, to);
	close(fd);
	return ret;
}

/*
 * Clear the young bits and PG_referenced of all our pages, then use some
 * of each VMA again, by loads (young ptes: x86 sets the bit again only for
 * a translation that is not cached, so some stay clear) and by read()
 * (PG_referenced): otherwise every page just faulted in is young, and
 * Referenced would equal Rss whatever Y and R say.
 */
static inline int smaps_rereference(const char *dir, int shmem_fd,
				    const struct smaps_layout *lay)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, "1", 1) == 1;

	if (fd >= 0)
		close(fd);
	if (!ok)
		return -1;
	smaps_touch((char *)lay->at[SMAPS_ANON], 0, 6, false);
	smaps_touch((char *)lay->at[SMAPS_COW], 0, 8, false);
	smaps_touch((char *)lay->at[SMAPS_SHARED], 0, 3, false);
	smaps_touch((char *)lay->at[SMAPS_SHMEM], 0, 2, false);
	smaps_touch((char *)lay->at[SMAPS_THP], 0, 1, false);
	/* and the memfd: MGLRU sets no PG_referenced on ramfs (unevictable) */
	return smaps_read_file_pages(dir, SMAPS_COW_FILE, 12, SMAPS_COW_PAGES) ||
	       smaps_read_file_pages(dir, SMAPS_SHARED_FILE, 4, 6) ||
	       smaps_read_pages(shmem_fd, 4, 6) ? -1 : 0;
}

/*
 * In the target: one VMA of each kind, files in dir.  Returns 0, or -1
 * (the target then exits).
 *  - anonymous: pages 0-11 of 16 written, no THP;
 *  - anonymous, 8 pages only read: the zero page, in neither count;
 *  - private mapping of a 16-page file: read, pages 2, 3 and 9 written
 *    (anonymous COW copies in a file VMA);
 *  - shared mapping of an 8-page file, pages 0-5 written (dirty page
 *    cache), 6 and 7 never touched;
 *  - shared memfd of 8 pages, 0-3 written, 4 and 5 read;
 *  - a 2 MiB-aligned VMA of one THP, MADV_HUGEPAGE, written;
 * then all of it made not referenced, and some used again
 * (smaps_rereference()).
 */
static inline int smaps_layout_build(const char *dir, struct smaps_layout *lay)
{
	size_t ps = pmaps_page_size();
	int fd, shmem_fd, ret;
	char *p, *thp;

	memset(lay, 0, sizeof(*lay));
	p = smaps_map(SMAPS_ANON_PAGES * ps, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE, -1);
	if (!p || smaps_no_thp(p, SMAPS_ANON_PAGES * ps))
		return -1;
	smaps_touch(p, 0, 12, true);
	lay->at[SMAPS_ANON] = (uintptr_t)p;

	p = smaps_map(SMAPS_ZERO_PAGES * ps, PROT_READ, MAP_PRIVATE, -1);
	if (!p || smaps_no_thp(p, SMAPS_ZERO_PAGES * ps))
		return -1;
	smaps_touch(p, 0, SMAPS_ZERO_PAGES, false);
	lay->at[SMAPS_ZERO] = (uintptr_t)p;

	fd = smaps_file(dir, SMAPS_COW_FILE, SMAPS_COW_PAGES);
	p = fd < 0 ? NULL : smaps_map(SMAPS_COW_PAGES * ps,
				      PROT_READ | PROT_WRITE, MAP_PRIVATE, fd);
	if (fd >= 0)
		close(fd);
	if (!p)
		return -1;
	smaps_touch(p, 0, SMAPS_COW_PAGES, false);
	smaps_touch(p, 2, 4, true);
	smaps_touch(p, 9, 10, true);
	lay->at[SMAPS_COW] = (uintptr_t)p;

	fd = smaps_file(dir, SMAPS_SHARED_FILE, 0);
	p = smaps_map_shared(fd, SMAPS_SHARED_PAGES);
	if (fd >= 0)
		close(fd);
	if (!p)
		return -1;
	smaps_touch(p, 0, 6, true);
	lay->at[SMAPS_SHARED] = (uintptr_t)p;

	/* kept open for smaps_rereference() */
	shmem_fd = memfd_create("pmaps_smaps", MFD_CLOEXEC);
	p = smaps_map_shared(shmem_fd, SMAPS_SHMEM_PAGES);
	if (!p)
		return -1;
	smaps_touch(p, 0, 4, true);
	smaps_touch(p, 4, 6, false);
	lay->at[SMAPS_SHMEM] = (uintptr_t)p;

	/* twice the size, then only the aligned THP's worth kept */
	p = smaps_map(2 * SMAPS_THP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		      -1);
	if (!p)
		return -1;
	thp = (char *)(((uintptr_t)p + SMAPS_THP_SIZE - 1) &
		       ~(SMAPS_THP_SIZE - 1));
	if ((thp > p && munmap(p, (size_t)(thp - p))) ||
	    munmap(thp + SMAPS_THP_SIZE,
		   (size_t)(p + 2 * SMAPS_THP_SIZE - (thp + SMAPS_THP_SIZE))))
		return -1;
	if (madvise(thp, SMAPS_THP_SIZE, MADV_HUGEPAGE))
		lay->thp_errno = errno;
	smaps_touch(thp, 0, SMAPS_THP_SIZE / ps, true);
	lay->at[SMAPS_THP] = (uintptr_t)thp;
	ret = smaps_rereference(dir, shmem_fd, lay);
	close(shmem_fd);
	return ret;
}

/*
 * Whether s holds one of lay's VMAs: by address, as smaps_vma_at() finds
 * them, so a layout VMA merged with a neighbour is still compared.
 */
static inline bool smaps_layout_holds(const struct smaps_layout *lay,
				      const struct smaps_vma *s)
{
	int k;

	for (k = 0; k < SMAPS_NR_KINDS; k++)
		if (s->start <= lay->at[k] && lay->at[k] < s->end)
			return true;
	return false;
}

/*
 * Every VMA of the layout must be in smaps and have resident pages but
 * the zero page's: or the comparisons would pass on a layout that was
 * never made.
 */
static inline void smaps_check_layout(const struct smaps *sm,
				      const struct smaps_layout *lay)
{
	int k;

	for (k = 0; k < SMAPS_NR_KINDS; k++) {
		const struct smaps_vma *v = smaps_vma_at(sm, lay->at[k]);

		tap_check(v != NULL, "%s VMA at %#lx: not in smaps",
			  smaps_kind_names[k], (unsigned long)lay->at[k]);
		if (!v)
			continue;
		tap_check(k == SMAPS_ZERO ? !v->rss : v->rss > 0,
			  "%s VMA %s: Rss %llu kB", smaps_kind_names[k],
			  v->header, v->rss);
		tap_diag("%s: Rss %llu, dirty %llu, Referenced %llu, AnonHugePages %llu kB",
			 smaps_kind_names[k], v->rss, v->dirty, v->referenced,
			 v->anon_huge);
	}
}

/* The files smaps_layout_build() made in dir, removed. */
static inline void smaps_files_remove(const char *dir)
{
	static const char *const names[] = { SMAPS_COW_FILE, SMAPS_SHARED_FILE };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!smaps_path(path, dir, names[i]))
			unlink(path);
}

#endif /* PMAPS_SMAPS_H */
