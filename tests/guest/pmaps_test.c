// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests for the pmaps text (/proc/pmaps_ext/PID).  Each test builds
 * its own mapping, in this process or in a child it forks, and checks the
 * exact ranges reported inside that mapping and nothing outside it.
 *
 *   pmaps_test [test_name...]
 *
 * Runs as root; TAP on stdout; exit status 0 when everything passed or
 * was skipped.  PMAPS_FILE_FMT (default "/proc/pmaps_ext/%s") selects the
 * file, e.g. "/proc/%s/pmaps" for the in-kernel patch.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/io_uring.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "lru_gen.h"
#include "pmaps.h"
#include "smaps.h"
#include "tap.h"
#include "thp.h"

#define TEST_TIMEOUT_SEC	120
#define ANY_MAPCOUNT		LONG_MIN
#define HUGE_SIZE		(2UL << 20)

#define FLAG(name)		(1u << PMAPS_##name)

/* ---- reading ---- */

static int load_path(const char *path, struct pmaps_map *map)
{
	struct text t = { 0 };
	int err = read_path_text(path, READ_CHUNK, &t);

	if (err) {
		tap_diag("reading %s: %s", path, strerror(-err));
		text_free(&t);
		return -1;
	}
	err = parse_text(&t, path, map);
	text_free(&t);
	return err;
}

static int load_who(const char *who, struct pmaps_map *map)
{
	char path[PATH_MAX];

	pmaps_path(path, sizeof(path), who);
	return load_path(path, map);
}

static int load_pid(pid_t pid, struct pmaps_map *map)
{
	char path[PATH_MAX];

	pmaps_path_pid(path, sizeof(path), pid);
	return load_path(path, map);
}

/* ---- range checks ---- */

/* An expected range, in pages relative to the start of the mapping. */
struct span {
	unsigned long long first;
	unsigned long long pages;
};

/* What every range in the mapping must show. */
struct rule {
	unsigned int set;	/* flags that must be shown as letters */
	unsigned int clear;	/* flags that must be shown as '_' */
	unsigned int unknown;	/* exactly the flags shown as '?' */
	long mapcount;		/* or ANY_MAPCOUNT */
};

static const struct rule any_rule = { .mapcount = ANY_MAPCOUNT };

static bool vma_overlaps(const struct pmaps_vma *v, unsigned long long lo,
			 unsigned long long hi)
{
	return v->start < hi && v->end > lo;
}

static long long rel_page(unsigned long long addr, unsigned long long lo)
{
	return (long long)(addr - lo) / (long long)page_size;
}

/* Where next_range_over() is in a map; start from all zeros. */
struct range_cursor {
	size_t vma, range;
};

/*
 * The next range of map, in the text's order, with a page in [lo, hi),
 * and its VMA in *vma; NULL after the last.
 */
static const struct pmaps_range *next_range_over(const struct pmaps_map *map,
						 unsigned long long lo,
						 unsigned long long hi,
						 struct range_cursor *c,
						 const struct pmaps_vma **vma)
{
	for (; c->vma < map->nr_vmas; c->vma++, c->range = 0) {
		const struct pmaps_vma *v = &map->vmas[c->vma];

		if (!vma_overlaps(v, lo, hi))
			continue;
		while (c->range < v->nr_ranges) {
			const struct pmaps_range *r = &v->ranges[c->range++];
			unsigned long long addr = pmaps_range_addr(v, r);

			if (addr + r->count * page_size > lo && addr < hi) {
				*vma = v;
				return r;
			}
		}
	}
	return NULL;
}

#define MAX_SHOWN_RANGES	40

/* Print the headers and ranges of map that touch [lo, hi). */
static void show_ranges(const struct pmaps_map *map, unsigned long long lo,
			unsigned long long hi)
{
	size_t shown = 0, hidden = 0, i, j;
	bool any_vma = false;

	tap_diag("actual text for the mapping at %#llx (+pages from there):", lo);
	for (i = 0; i < map->nr_vmas; i++) {
		const struct pmaps_vma *v = &map->vmas[i];

		if (!vma_overlaps(v, lo, hi))
			continue;
		any_vma = true;
		tap_diag("  %s", v->header);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned long long addr = pmaps_range_addr(v, r);
			char flags[PMAPS_NR_FLAGS + 1];

			if (addr + r->count * page_size <= lo || addr >= hi)
				continue;
			if (shown == MAX_SHOWN_RANGES) {
				hidden++;
				continue;
			}
			shown++;
			pmaps_format_flags(r->flags, r->unknown, flags);
			tap_diag("  %llu\t%llu\t%s\t%ld\t(page %+lld)", r->index,
				 r->count, flags, r->mapcount,
				 rel_page(addr, lo));
		}
	}
	if (hidden)
		tap_diag("  ... and %zu more ranges", hidden);
	if (!any_vma)
		tap_diag("  no VMA covers [%#llx, %#llx)", lo, hi);
	else if (!shown && !hidden)
		tap_diag("  (no ranges)");
}

static void show_expected(const struct span *want, size_t nr_want,
			  const struct rule *rule)
{
	char set[PMAPS_NR_FLAGS + 1], clear[PMAPS_NR_FLAGS + 1];
	char unknown[PMAPS_NR_FLAGS + 1];
	char spans[1024];
	size_t used = 0, i;

	spans[0] = '\0';
	for (i = 0; i < nr_want && i < 16 && used < sizeof(spans); i++)
		used += (size_t)snprintf(spans + used, sizeof(spans) - used,
					 " +%llu..+%llu", want[i].first,
					 want[i].first + want[i].pages - 1);
	pmaps_format_flags(rule->set, 0, set);
	pmaps_format_flags(rule->clear, 0, clear);
	pmaps_format_flags(0, rule->unknown, unknown);
	tap_diag("expected %zu ranges (pages):%s%s", nr_want,
		 nr_want ? spans : " none", nr_want > 16 ? " ..." : "");
	if (rule->mapcount == ANY_MAPCOUNT)
		tap_diag("expected flags set %s, clear %s, unknown %s, any mapcount",
			 set, clear, unknown);
	else
		tap_diag("expected flags set %s, clear %s, unknown %s, mapcount %ld (%ld: '?')",
			 set, clear, unknown, rule->mapcount,
			 (long)PMAPS_MAPCOUNT_UNKNOWN);
}

/*
 * The ranges of map inside [base, base + len) must be exactly want, in
 * order, each obeying rule.  Prints actual vs expected when not.
 */
static bool check_ranges(const struct pmaps_map *map, const void *base,
			 size_t len, const struct span *want, size_t nr_want,
			 const struct rule *rule)
{
	unsigned long long lo = (uintptr_t)base, hi = lo + len;
	struct range_cursor c = { 0 };
	const struct pmaps_range *r;
	const struct pmaps_vma *v;
	char problem[256] = "";
	size_t found = 0;

	while ((r = next_range_over(map, lo, hi, &c, &v))) {
		unsigned long long addr = pmaps_range_addr(v, r);
		unsigned long long end = addr + r->count * page_size;
		const struct span *w;

		found++;
		if (problem[0])
			continue;
		w = found <= nr_want ? &want[found - 1] : NULL;
		if (!w)
			snprintf(problem, sizeof(problem),
				 "unexpected range at page %+lld (line %u)",
				 rel_page(addr, lo), r->line);
		else if (addr < lo || end > hi)
			snprintf(problem, sizeof(problem),
				 "range at page %+lld crosses the mapping's edge",
				 rel_page(addr, lo));
		else if (addr != lo + w->first * page_size ||
			 r->count != w->pages)
			snprintf(problem, sizeof(problem),
				 "range %zu is page %+lld, %llu pages; expected +%llu, %llu pages",
				 found, rel_page(addr, lo), r->count,
				 w->first, w->pages);
		else if ((r->flags & rule->set) != rule->set ||
			 ((r->flags | r->unknown) & rule->clear) ||
			 r->unknown != rule->unknown)
			snprintf(problem, sizeof(problem),
				 "range %zu (page %+lld) has wrong flags",
				 found, rel_page(addr, lo));
		else if (rule->mapcount != ANY_MAPCOUNT &&
			 r->mapcount != rule->mapcount)
			snprintf(problem, sizeof(problem),
				 "range %zu (page %+lld) has mapcount %ld, expected %ld",
				 found, rel_page(addr, lo), r->mapcount,
				 rule->mapcount);
	}
	if (!problem[0] && found != nr_want)
		snprintf(problem, sizeof(problem), "found %zu ranges, expected %zu",
			 found, nr_want);
	if (!problem[0])
		return true;
	tap_diag("%s", problem);
	show_expected(want, nr_want, rule);
	show_ranges(map, lo, hi);
	return false;
}

/* Load pid's text and check the ranges inside [base, base + len). */
static bool expect_ranges(pid_t pid, const char *when, const void *base,
			  size_t len, const struct span *want, size_t nr_want,
			  const struct rule *rule)
{
	struct pmaps_map map;
	bool ok;

	if (load_pid(pid, &map))
		return false;
	ok = check_ranges(&map, base, len, want, nr_want, rule);
	if (!ok)
		tap_diag("(pid %d, %s)", (int)pid, when);
	pmaps_map_free(&map);
	return ok;
}

/* The first range inside [base, base + len), or NULL. */
static const struct pmaps_range *first_range_in(const struct pmaps_map *map,
						const void *base, size_t len)
{
	unsigned long long lo = (uintptr_t)base;
	struct range_cursor c = { 0 };
	const struct pmaps_vma *v;

	return next_range_over(map, lo, lo + len, &c, &v);
}

/* ---- header checks ---- */

static bool is_gate_line(const char *line, size_t len)
{
	static const char gate[] = "[vsyscall]";
	size_t n = sizeof(gate) - 1;

	return len >= n && !memcmp(line + len - n, gate, n);
}

/*
 * The headers of map must be the lines of maps, but for the gate VMA, which
 * the module leaves out and the kernel's file prints last, as maps does.
 */
static bool headers_match(const struct pmaps_map *map, const struct text *maps,
			  bool verbose)
{
	const char *p = maps->data, *end = maps->data + maps->len;
	size_t i = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *header;

		if (is_gate_line(p, n)) {
			p = next;
			continue;
		}
		if (i == map->nr_vmas) {
			if (verbose)
				tap_diag("maps has a line pmaps lacks: %.*s",
					 (int)n, p);
			return false;
		}
		header = map->vmas[i].header;
		if (is_gate_line(header, strlen(header)))
			return false;
		if (strlen(header) != n || memcmp(header, p, n)) {
			if (verbose) {
				tap_diag("header %zu differs from maps:", i + 1);
				tap_diag("  pmaps: %s", header);
				tap_diag("  maps:  %.*s", (int)n, p);
			}
			return false;
		}
		i++;
		p = next;
	}
	if (i + 1 == map->nr_vmas &&
	    is_gate_line(map->vmas[i].header, strlen(map->vmas[i].header)))
		i++;
	if (i != map->nr_vmas) {
		if (verbose)
			tap_diag("pmaps has %zu headers, maps only %zu lines; first extra: %s",
				 map->nr_vmas, i, map->vmas[i].header);
		return false;
	}
	return true;
}

/* For a target that is not changing its mappings. */
static bool headers_match_pid(pid_t pid)
{
	char path[PATH_MAX], maps_path[64];
	struct text maps = { 0 };
	struct pmaps_map map;
	bool ok = false;
	int err;

	pmaps_path_pid(path, sizeof(path), pid);
	if (load_path(path, &map))
		return false;
	snprintf(maps_path, sizeof(maps_path), "/proc/%d/maps", (int)pid);
	err = read_path_text(maps_path, READ_CHUNK, &maps);
	if (err) {
		tap_diag("reading %s: %s", maps_path, strerror(-err));
	} else if (!map.nr_vmas) {
		tap_diag("%s is empty", path);
	} else {
		ok = headers_match(&map, &maps, true);
		if (!ok)
			tap_diag("(comparing %s with %s)", path, maps_path);
	}
	text_free(&maps);
	pmaps_map_free(&map);
	return ok;
}

/* ---- mappings ---- */

/* Small anonymous mapping that never gets a THP. */
static char *map_anon(size_t pages)
{
	char *p = map_between_guards(pages * page_size, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p && no_thp(p, pages * page_size)) {
		tap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * Write pages first, first + stride, ... below end.  volatile: the faults
 * are the point, so the compiler must not drop or merge the accesses.
 */
static void write_pages(char *base, size_t first, size_t end, size_t stride)
{
	size_t i;

	for (i = first; i < end; i += stride)
		((volatile char *)base)[i * page_size] = 1;
}

static void read_pages(const char *base, size_t first, size_t end)
{
	size_t i;

	for (i = first; i < end; i++)
		(void)((const volatile char *)base)[i * page_size];
}

static int fill_file(int fd, size_t len)
{
	char *data = malloc(len);
	size_t done = 0;

	if (!data)
		return -1;
	memset(data, 'x', len);
	/* write each page once: rewriting a tmpfs page marks it accessed */
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n <= 0) {
			tap_diag("writing test file: %s",
				 n ? strerror(errno) : "short write");
			free(data);
			return -1;
		}
		done += (size_t)n;
	}
	free(data);
	return 0;
}

/* ---- child processes ---- */

struct anon_setup {
	size_t pages;		/* size of the mapping */
	size_t stride;		/* write pages 0, stride, 2 * stride, ... */
	bool drop;		/* become NOBODY first */
	int dumpable;		/* PR_SET_DUMPABLE after dropping */
};

static char *setup_anon(void *arg)
{
	const struct anon_setup *s = arg;
	char *base;

	if (s->drop && !drop_to_nobody(s->dumpable))
		return NULL;
	base = map_anon(s->pages);
	if (base)
		write_pages(base, 0, s->pages, s->stride);
	return base;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23	/* Linux 5.14 */
#endif

/*
 * setup_anon in a target that first takes its own copy of every private
 * page it still shares copy-on-write with the test.  Otherwise the test's
 * own heap writes between two reads change the target's mapcounts where
 * the kernel reports a large folio's average (CONFIG_NO_PAGE_MAPCOUNT).
 */
static char *setup_anon_unshared(void *arg)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "re");

	if (!maps)
		return NULL;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long start, end;
		char perms[5];

		if (sscanf(line, "%llx-%llx %4s", &start, &end, perms) == 3 &&
		    !strcmp(perms, "rw-p"))
			madvise((void *)(uintptr_t)start, end - start,
				MADV_POPULATE_WRITE);
	}
	fclose(maps);
	return setup_anon(arg);
}

/* The ranges setup_anon leaves; free the result. */
static struct span *anon_setup_spans(const struct anon_setup *s, size_t *nr)
{
	struct span *spans;
	size_t i;

	if (s->stride == 1) {
		spans = malloc(sizeof(*spans));
		if (spans)
			*spans = (struct span){ 0, s->pages };
		*nr = 1;
		return spans;
	}
	*nr = (s->pages + s->stride - 1) / s->stride;
	spans = calloc(*nr, sizeof(*spans));
	for (i = 0; spans && i < *nr; i++)
		spans[i] = (struct span){ i * s->stride, 1 };
	return spans;
}

static const struct rule written_rule = {
	.set = FLAG(YOUNG) | FLAG(UPTODATE) | FLAG(PTE_DIRTY),
	.mapcount = 1,
};

/* A child forked from a mapping it inherits and leaves alone. */
static char *setup_inherited(void *arg)
{
	return arg;
}

/* ---- tests ---- */

static enum outcome test_anon_written(void)
{
	static const struct span want[] = { { 0, 4 }, { 8, 4 } };
	char *base = map_anon(16);

	if (!base)
		return FAIL;
	write_pages(base, 0, 4, 1);
	write_pages(base, 8, 12, 1);
	drain_lru_batches();
	return expect_ranges(getpid(), "after writing", base, 16 * page_size,
			     want, ARRAY_SIZE(want), &written_rule) ? PASS : FAIL;
}

static enum outcome test_anon_zero_page(void)
{
	char *base = map_anon(16);

	if (!base)
		return FAIL;
	read_pages(base, 0, 16);
	return expect_ranges(getpid(), "after reading only", base,
			     16 * page_size, NULL, 0, &any_rule) ? PASS : FAIL;
}

static enum outcome test_fork_cow_mapcount(void)
{
	static const struct span want[] = { { 0, 6 } };
	const struct rule shared = { .mapcount = 2 }, alone = { .mapcount = 1 };
	size_t len = 8 * page_size;
	struct target child;
	char *base = map_anon(8);
	bool ok;

	if (!base)
		return FAIL;
	write_pages(base, 0, 6, 1);
	if (target_start(&child, setup_inherited, base))
		return FAIL;
	drain_lru_batches();
	ok = expect_ranges(getpid(), "parent, child alive", base, len, want,
			   ARRAY_SIZE(want), &shared);
	ok = expect_ranges(child.pid, "child", base, len, want,
			   ARRAY_SIZE(want), &shared) && ok;
	target_end(&child);
	ok = expect_ranges(getpid(), "parent, child reaped", base, len, want,
			   ARRAY_SIZE(want), &alone) && ok;
	return ok ? PASS : FAIL;
}

static enum outcome test_shared_file_offset(void)
{
	static const struct span want[] = { { 0, 8 } };
	const struct rule rule = { .set = FLAG(UPTODATE), .mapcount = 1 };
	const size_t file_pages = 32, offset_pages = 8, map_pages = 8;
	size_t len = map_pages * page_size;
	char path[] = "/tmp/pmaps_test.XXXXXX";
	const struct pmaps_range *r;
	struct pmaps_map map;
	bool ok = false;
	char *base;
	int fd;

	fd = mkstemp(path);
	if (fd < 0) {
		tap_diag("mkstemp: %s", strerror(errno));
		return FAIL;
	}
	if (fill_file(fd, file_pages * page_size))
		goto out;
	base = map_between_guards(len, PROT_READ, MAP_SHARED, fd,
				  (off_t)(offset_pages * page_size));
	if (!base)
		goto out;
	madvise(base, len, MADV_NOHUGEPAGE);
	read_pages(base, 0, map_pages);
	drain_lru_batches();
	if (load_pid(getpid(), &map))
		goto out;
	ok = check_ranges(&map, base, len, want, ARRAY_SIZE(want), &rule);
	r = first_range_in(&map, base, len);
	if (ok && r->index != offset_pages) {
		tap_diag("range index %llu, expected file page %zu",
			 r->index, offset_pages);
		show_ranges(&map, (uintptr_t)base, (uintptr_t)base + len);
		ok = false;
	}
	pmaps_map_free(&map);
out:
	close(fd);
	unlink(path);
	return ok ? PASS : FAIL;
}

static enum outcome test_madv_dontneed_hole(void)
{
	static const struct span want[] = { { 0, 2 }, { 4, 4 } };
	char *base = map_anon(8);

	if (!base)
		return FAIL;
	write_pages(base, 0, 8, 1);
	if (madvise(base + 2 * page_size, 2 * page_size, MADV_DONTNEED)) {
		tap_diag("MADV_DONTNEED: %s", strerror(errno));
		return FAIL;
	}
	drain_lru_batches();
	return expect_ranges(getpid(), "after MADV_DONTNEED", base,
			     8 * page_size, want, ARRAY_SIZE(want),
			     &written_rule) ? PASS : FAIL;
}


static enum outcome test_clear_refs(void)
{
	static const struct span want[] = { { 0, 8 } };
	const struct rule young = { .set = FLAG(YOUNG), .mapcount = 1 };
	const struct rule cleared = {
		.clear = FLAG(YOUNG) | FLAG(REFERENCED),
		.mapcount = 1,
	};
	struct anon_setup setup = { .pages = 8, .stride = 1 };
	size_t len = setup.pages * page_size;
	char clear_refs[64];
	struct target t;
	bool ok;

	/* a separate target, so reading the text cannot touch its pages */
	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	ok = !target_stop(&t);
	drain_lru_batches();
	ok = ok && expect_ranges(t.pid, "after writing", t.base, len, want,
				 ARRAY_SIZE(want), &young);
	snprintf(clear_refs, sizeof(clear_refs), "/proc/%d/clear_refs",
		 (int)t.pid);
	ok = ok && !write_string(clear_refs, "1");
	ok = ok && expect_ranges(t.pid, "after clear_refs", t.base, len, want,
				 ARRAY_SIZE(want), &cleared);
	target_end(&t);
	return ok ? PASS : FAIL;
}

/* AnonHugePages in kB of the /proc/self/smaps VMA holding addr, or -1. */
static long smaps_anon_huge_kb(const void *addr)
{
	unsigned long long want = (uintptr_t)addr, start, end;
	FILE *f = fopen("/proc/self/smaps", "re");
	bool inside = false;
	char *line = NULL;
	size_t cap = 0;
	long kb = -1;
	char perms[5];

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%llx-%llx %4s", &start, &end, perms) == 3)
			inside = start <= want && want < end;
		else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	free(line);
	fclose(f);
	return kb;
}

/*
 * The size of a pmd-mapped THP, the kernel's hpage_pmd_size: 2 MiB on
 * x86-64 and arm64 with 4K pages, 32 MiB with arm64's 16K pages.  0 when
 * it cannot be read.
 */
static size_t thp_pmd_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
			"r");
	unsigned long size = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &size) != 1)
		size = 0;
	fclose(f);
	return size;
}

/* Whether the THP knob reads "[never]". */
static bool thp_never(const char *knob)
{
	char buf[128] = "";
	FILE *f = fopen(knob, "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strstr(buf, "[never]");
}

/* ---- A: what the kernel counts as active, on either LRU ---- */

#define LRU_TEST_PAGES		64
#define LRU_AGINGS		3

/*
 * Of the pages of [base, base + pages) in the text at path: those shown
 * with flag set, clear and '?', and those of each AGE and of AGE '?'.
 */
struct region_count {
	unsigned long long set, clear, unknown;
	unsigned long long age[PMAPS_AGE_MAX + 1], age_unknown;
};

static bool count_region(const char *path, const void *base, size_t pages,
			 enum pmaps_flag flag, struct region_count *c)
{
	unsigned long long lo = (uintptr_t)base, hi = lo + pages * page_size;
	struct range_cursor cursor = { 0 };
	const struct pmaps_range *r;
	const struct pmaps_vma *v;
	struct pmaps_map map;

	memset(c, 0, sizeof(*c));
	if (load_path(path, &map))
		return false;
	while ((r = next_range_over(&map, lo, hi, &cursor, &v))) {
		unsigned long long addr = pmaps_range_addr(v, r);
		unsigned long long end = addr + r->count * page_size;
		unsigned long long n;

		n = ((end < hi ? end : hi) - (addr > lo ? addr : lo)) /
		    page_size;
		if (r->unknown & (1u << flag))
			c->unknown += n;
		else if (r->flags & (1u << flag))
			c->set += n;
		else
			c->clear += n;
		if (r->age == PMAPS_AGE_UNKNOWN)
			c->age_unknown += n;
		else
			c->age[r->age] += n;
	}
	pmaps_map_free(&map);
	return true;
}

static bool expect_flag(const char *what, const void *base, size_t pages,
			enum pmaps_flag flag, bool want_set)
{
	struct region_count c;
	char path[PATH_MAX];

	pmaps_path_pid(path, sizeof(path), getpid());
	if (!count_region(path, base, pages, flag, &c))
		return false;
	if ((want_set ? c.set : c.clear) == pages)
		return true;
	tap_diag("%s: %zu pages, %c set on %llu, clear on %llu, '?' on %llu; expected %s on all",
		 what, pages, pmaps_flag_letters[flag], c.set, c.clear,
		 c.unknown, want_set ? "set" : "clear");
	return false;
}

/*
 * Every page of the region has an AGE from young to old in the NUMA
 * file, and A exactly where it is one of the two youngest; or, for
 * PMAPS_AGE_UNKNOWN, no age.
 */
static bool expect_age(const char *what, const void *base, size_t pages,
		       int young, int old)
{
	unsigned long long in = 0, active = 0;
	struct region_count c;
	char path[PATH_MAX];
	int age;

	pmaps_numa_path(path, sizeof(path), "self");
	if (!count_region(path, base, pages, PMAPS_ACTIVE, &c))
		return false;
	for (age = young; age >= 0 && age <= old; age++) {
		in += c.age[age];
		if (age < 2)
			active += c.age[age];
	}
	if (young == PMAPS_AGE_UNKNOWN ? c.age_unknown == pages :
	    in == pages && c.set == active)
		return true;
	tap_diag("%s: %zu pages in %s: age 0 %llu, 1 %llu, 2 %llu, 3 %llu, ? %llu, A on %llu; expected age %d to %d on all, A on ages 0 and 1",
		 what, pages, path, c.age[0], c.age[1], c.age[2], c.age[3],
		 c.age_unknown, c.set, young, old);
	return false;
}

/*
 * Under the multi-gen LRU, pages touched between agings stay in the two
 * youngest generations, which the kernel counts as active; pages left
 * alone through three agings fall behind them.  A must say so.
 */
static enum outcome test_active_mglru_aging(void)
{
	char *hot = map_anon(LRU_TEST_PAGES), *cold = map_anon(LRU_TEST_PAGES);
	int was = lru_gen_state(), i;
	bool ok = true, cold_at_2 = false;
	struct region_count c;
	char path[PATH_MAX];

	if (was < 0)
		return skip("no multi-gen LRU in this kernel");
	if (!mount_debugfs())
		return skip("no %s", LRU_GEN_DEBUGFS);
	if (!hot || !cold || (!was && !lru_gen_set(true)))
		return FAIL;
	write_pages(hot, 0, LRU_TEST_PAGES, 1);
	write_pages(cold, 0, LRU_TEST_PAGES, 1);
	drain_lru_batches();
	ok = expect_flag("hot, just written", hot, LRU_TEST_PAGES,
			 PMAPS_ACTIVE, true) &&
	     expect_flag("cold, just written", cold, LRU_TEST_PAGES,
			 PMAPS_ACTIVE, true) &&
	     expect_age("hot, just written", hot, LRU_TEST_PAGES, 0, 1) &&
	     expect_age("cold, just written", cold, LRU_TEST_PAGES, 0, 1);
	/*
	 * A is exactly AGE < 2 at every age the cold pages pass through, and
	 * they pass through 2 (after the second aging on 6.x, the first on
	 * 7.x; see below), where A must already be clear.
	 */
	for (i = 1; ok && i <= LRU_AGINGS; i++) {
		ok = lru_gen_age_touching(hot, LRU_TEST_PAGES, 1) &&
		     expect_age("cold, between agings", cold, LRU_TEST_PAGES,
				0, LRU_AGINGS);
		pmaps_numa_path(path, sizeof(path), "self");
		if (ok && count_region(path, cold, LRU_TEST_PAGES,
				       PMAPS_ACTIVE, &c))
			cold_at_2 |= c.age[2] == LRU_TEST_PAGES;
	}
	if (ok && !cold_at_2) {
		tap_diag("the cold pages were never all at age 2 between agings");
		ok = false;
	}
	ok = ok && expect_flag("hot, written between agings", hot,
			       LRU_TEST_PAGES, PMAPS_ACTIVE, true);
	ok = expect_flag("cold, left alone through agings", cold,
			 LRU_TEST_PAGES, PMAPS_ACTIVE, false) && ok;
	/*
	 * Faulted in at max_seq S (6.x) or S - 1 (7.x, lru_gen_folio_seq():
	 * a folio not yet in the working set starts second youngest); the
	 * agings made S + 1, S + 2 and S + 3, and the hot pages were found
	 * young by the last two, which moved them to S + 2 (on 7.x the
	 * first sighting only sets PG_referenced, which is why there are
	 * three).  The cold ones stay behind, in the oldest generation.
	 */
	ok = expect_age("hot, written between agings", hot, LRU_TEST_PAGES,
			1, 1) && ok;
	ok = expect_age("cold, left alone through agings", cold,
			LRU_TEST_PAGES, LRU_AGINGS, LRU_AGINGS) && ok;
	if (!was)
		ok = lru_gen_set(false) && ok;
	return ok ? PASS : FAIL;
}

/*
 * On the classic LRU a page-cache page read twice through read() is
 * activated (folio_mark_accessed()); one only faulted in through a
 * mapping stays inactive until reclaim finds it young.
 */
static enum outcome test_active_classic_read_twice(void)
{
	size_t len = 2 * LRU_TEST_PAGES * page_size, i;
	int was = lru_gen_state(), fd;
	char *map, *buf;
	bool ok = true;

	if (was == 1 && !lru_gen_set(false))
		return FAIL;
	fd = memfd_create("pmaps_lru", MFD_CLOEXEC);
	buf = malloc(page_size);
	if (fd < 0 || !buf || ftruncate(fd, (off_t)len)) {
		tap_diag("memfd of %zu bytes: %s", len, strerror(errno));
		ok = false;
		goto out;
	}
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		tap_diag("mmap: %s", strerror(errno));
		ok = false;
		goto out;
	}
	read_pages(map, 0, 2 * LRU_TEST_PAGES);
	/*
	 * Onto the LRU before the second read: a folio still in a per-CPU
	 * batch is activated only if it is in this CPU's
	 * (__lru_cache_activate_folio()), and a migration in between loses
	 * it (6.12 PREEMPT_RT: A on 51 of 64 pages).
	 */
	drain_lru_batches();
	for (i = 0; ok && i < 2 * LRU_TEST_PAGES; i++)
		ok = pread(fd, buf, page_size, (off_t)(i * page_size)) ==
		     (ssize_t)page_size &&
		     (i >= LRU_TEST_PAGES ||
		      pread(fd, buf, page_size, (off_t)(i * page_size)) ==
		      (ssize_t)page_size);
	if (!ok)
		tap_diag("pread: %s", strerror(errno));
	drain_lru_batches();
	/* the first half was read twice, the second once */
	ok = ok && expect_flag("read twice", map, LRU_TEST_PAGES, PMAPS_ACTIVE,
			       true);
	ok = ok && expect_flag("read once", map + LRU_TEST_PAGES * page_size,
			       LRU_TEST_PAGES, PMAPS_ACTIVE, false);
	/* the classic LRU has no generations */
	ok = ok && expect_age("classic LRU", map, 2 * LRU_TEST_PAGES,
			      PMAPS_AGE_UNKNOWN, PMAPS_AGE_UNKNOWN);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (was == 1)
		ok = lru_gen_set(true) && ok;
	return ok ? PASS : FAIL;
}

/*
 * Two THP sizes of anonymous memory, madvised for THP, between guards;
 * *huge is its THP-aligned half.  NULL on failure, said.
 */
static char *map_thp_area(size_t thp, int prot, char **huge)
{
	char *base = map_between_guards(2 * thp, prot,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!base)
		return NULL;
	/* the caller found the THP knob: the kernel takes the advice */
	if (madvise(base, 2 * thp, MADV_HUGEPAGE)) {
		tap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		return NULL;
	}
	*huge = (char *)(((uintptr_t)base + thp - 1) & ~(thp - 1));
	return base;
}

#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

/*
 * PASS with the size of a pmd-mapped THP in *thp; a skip where the kernel
 * has no THP; FAIL where it has THP but says no size.
 */
static enum outcome thp_size_known(size_t *thp)
{
	if (access(THP_ENABLED, F_OK))
		return skip("%s missing", THP_ENABLED);
	/* the knob exists, so the kernel has THP and says its size */
	*thp = thp_pmd_size();
	if (!*thp) {
		tap_diag("no THP size in /sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
		return FAIL;
	}
	return PASS;
}

/*
 * Whether a THP backs huge after an aligned, madvised write.  "never" is
 * the machine's choice, a skip; otherwise a fresh guest has the huge page
 * to give, and a test that got none tested nothing.
 */
static enum outcome thp_given(const char *huge, size_t thp)
{
	long kb = smaps_anon_huge_kb(huge);

	if (kb >= (long)(thp >> 10))
		return PASS;
	if (thp_never(THP_ENABLED))
		return skip("THP disabled: %s is never", THP_ENABLED);
	tap_diag("no THP for an aligned MADV_HUGEPAGE write (AnonHugePages %ld kB)",
		 kb);
	return FAIL;
}

static enum outcome test_thp(void)
{
	/* just written: its pmd is young and dirty */
	const struct rule rule = {
		.set = FLAG(YOUNG) | FLAG(UPTODATE) | FLAG(PTE_DIRTY),
		.mapcount = 1,
	};
	enum outcome out;
	struct span want;
	char *base, *huge;
	size_t thp;

	out = thp_size_known(&thp);
	if (out != PASS)
		return out;
	base = map_thp_area(thp, PROT_READ | PROT_WRITE, &huge);
	if (!base)
		return FAIL;
	memset(huge, 1, thp);
	out = thp_given(huge, thp);
	if (out != PASS)
		return out;
	drain_lru_batches();
	want = (struct span){ (uintptr_t)(huge - base) / page_size,
			      thp / page_size };
	return expect_ranges(getpid(), "after writing a THP", base, 2 * thp,
			     &want, 1, &rule) ? PASS : FAIL;
}

/*
 * The module walks at most 64 MiB (PMAPS_PAGES_PER_LOCK) under one hold of
 * the target's lock, stopping at a page-table boundary, and the range line
 * being gathered there goes on in the next record.  An area four times
 * that, written whole, crosses such stops: its lines must cover it
 * exactly, each a maximal run (no line continues the one before it, as a
 * line cut at a stop would), and the text of the stopped target must not
 * depend on the read size, which redoes records at other points.  THP or
 * not: either way the pages are walked.
 */
#define LONG_LINE_SIZE		(256UL << 20)

static char *setup_long_line(void *arg)
{
	char *base = map_between_guards(LONG_LINE_SIZE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (!base)
		return NULL;
	madvise(base, LONG_LINE_SIZE, MADV_HUGEPAGE);
	memset(base, 1, LONG_LINE_SIZE);
	drain_lru_batches();
	return base;
}

static bool ranges_maximal_cover(const struct pmaps_map *map,
				 const char *base, size_t len)
{
	unsigned long long lo = (uintptr_t)base, hi = lo + len, next = lo;
	const struct pmaps_range *r, *prev = NULL;
	struct range_cursor c = { 0 };
	const struct pmaps_vma *v;
	size_t lines = 0;

	while ((r = next_range_over(map, lo, hi, &c, &v))) {
		unsigned long long addr = pmaps_range_addr(v, r);

		lines++;
		if (addr != next) {
			tap_diag("line %u starts at page %+lld, expected %+lld",
				 r->line, rel_page(addr, lo), rel_page(next, lo));
			return false;
		}
		if (prev && prev->flags == r->flags &&
		    prev->unknown == r->unknown &&
		    prev->mapcount == r->mapcount) {
			tap_diag("line %u continues line %u: a line was cut",
				 r->line, prev->line);
			return false;
		}
		next = addr + r->count * page_size;
		prev = r;
	}
	if (next != hi) {
		tap_diag("the lines end at page %+lld of %zu", rel_page(next, lo),
			 len / page_size);
		return false;
	}
	tap_diag("%zu MiB written: %zu range lines", len >> 20, lines);
	return true;
}

/*
 * The ranges of maps[0] and maps[1] over [lo, hi) are the same lines; if
 * not, say where they part.
 */
static bool same_ranges_over(const struct pmaps_map *maps, const char **names,
			     unsigned long long lo, unsigned long long hi)
{
	struct range_cursor c[2] = { { 0 }, { 0 } };
	const struct pmaps_range *r[2];
	const struct pmaps_vma *rv[2];
	size_t k, n = 0;

	for (;;) {
		for (k = 0; k < 2; k++)
			r[k] = next_range_over(&maps[k], lo, hi, &c[k], &rv[k]);
		if (!r[0] && !r[1])
			return true;
		n++;
		if (!r[0] || !r[1] ||
		    pmaps_range_addr(rv[0], r[0]) != pmaps_range_addr(rv[1], r[1]) ||
		    r[0]->count != r[1]->count || r[0]->flags != r[1]->flags ||
		    r[0]->unknown != r[1]->unknown ||
		    r[0]->mapcount != r[1]->mapcount) {
			for (k = 0; k < 2; k++)
				if (r[k])
					tap_diag("%s: range %zu of the area is line %u: page %+lld, %llu pages, mapcount %ld",
						 names[k], n, r[k]->line,
						 rel_page(pmaps_range_addr(rv[k], r[k]), lo),
						 r[k]->count, r[k]->mapcount);
				else
					tap_diag("%s: the area has %zu ranges", names[k], n - 1);
			return false;
		}
	}
}

static enum outcome test_long_line_across_lock_holds(void)
{
	static const size_t chunks[] = { 65536, 7 };
	static const char *names[] = { "65536-byte reads", "7-byte reads" };
	struct text texts[ARRAY_SIZE(chunks)] = { { 0 } };
	struct pmaps_map maps[ARRAY_SIZE(chunks)];
	unsigned long long lo, hi;
	char path[PATH_MAX];
	size_t i, parsed = 0;
	bool ok = false;
	struct target t;
	int err;

	if (target_start(&t, setup_long_line, NULL))
		return FAIL;
	if (target_stop(&t))
		goto out;
	lo = (uintptr_t)t.base;
	hi = lo + LONG_LINE_SIZE;
	pmaps_path_pid(path, sizeof(path), t.pid);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		err = read_path_text(path, chunks[i], &texts[i]);
		if (err) {
			tap_diag("reading %s %zu bytes at a time: %s", path,
				 chunks[i], strerror(-err));
			goto out;
		}
		if (parse_text(&texts[i], path, &maps[i]))
			goto out;
		parsed++;
	}
	/*
	 * The target is stopped: the area's lines are the same in both, or
	 * a line moved.  Only the area's: the rest holds pages that this
	 * process maps too (its binary), whose mapcounts move as it runs.
	 */
	ok = same_ranges_over(maps, names, lo, hi) &&
	     ranges_maximal_cover(&maps[0], t.base, LONG_LINE_SIZE);
	if (!ok)
		show_ranges(&maps[0], lo, hi);
out:
	for (i = 0; i < parsed; i++)
		pmaps_map_free(&maps[i]);
	for (i = 0; i < ARRAY_SIZE(chunks); i++)
		text_free(&texts[i]);
	target_end(&t);
	return ok ? PASS : FAIL;
}

/*
 * smaps' numbers, in kB, of our VMA holding addr into *out (without its
 * header); 0, or -1.
 */
static int smaps_of(const void *addr, struct smaps_vma *out)
{
	const struct smaps_vma *v;
	struct smaps sm;

	if (smaps_read(getpid(), &sm))
		return -1;
	v = smaps_vma_at(&sm, (uintptr_t)addr);
	if (v) {
		*out = *v;
		out->header = NULL;
	}
	smaps_free(&sm);
	return v ? 0 : -1;
}

/* An mTHP folio that arm64 maps with the contiguous bit, as made below. */
struct contpte_block {
	char knob[128], saved[32];	/* the mTHP size's enabled, and before */
	char *base;			/* the mapping, 2 * cont */
	char *block;			/* the folio, cont-aligned in it */
	size_t cont, nr;		/* CONT_PTE_SIZE, and in pages */
};

/*
 * Turn the CONT_PTE_SIZE mTHP size on and make one folio of it by one
 * write fault (every pte of it dirty, do_anonymous_page()).  PASS with the
 * block made, SKIP off arm64, FAIL.  contpte_block_end() undoes it.
 */
static enum outcome contpte_block_make(struct contpte_block *c)
{
	struct smaps_vma sm = { 0 };
	struct utsname u;

	memset(c, 0, sizeof(*c));
	if (uname(&u))
		return FAIL;
	if (strcmp(u.machine, "aarch64"))
		return skip("the contiguous bit is arm64's; this is %s", u.machine);
	c->cont = page_size == 4096 ? 64UL << 10 : 2UL << 20;
	c->nr = c->cont / page_size;
	snprintf(c->knob, sizeof(c->knob),
		 "/sys/kernel/mm/transparent_hugepage/hugepages-%zukB/enabled",
		 c->cont >> 10);
	/* Debian's arm64 kernels have THP and mTHP (v6.8) */
	if (sysfs_choice(c->knob, c->saved, sizeof(c->saved))) {
		tap_diag("%s: cannot be read", c->knob);
		return FAIL;
	}
	if (write_string(c->knob, "always"))
		return FAIL;
	c->base = map_between_guards(2 * c->cont, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!c->base)
		goto restore;
	c->block = (char *)(((uintptr_t)c->base + c->cont - 1) &
			    ~(c->cont - 1));
	c->block[0] = 1;
	/* one fault mapped the whole folio, or there is no block to test */
	if (!smaps_of(c->block, &sm) && sm.rss == c->cont >> 10)
		return PASS;
	tap_diag("one write fault mapped %llu kB, not a %zu kB folio",
		 sm.rss, c->cont >> 10);
	munmap(c->base, 2 * c->cont);
	c->base = NULL;
restore:
	write_string(c->knob, c->saved);
	return FAIL;
}

static void contpte_block_end(struct contpte_block *c)
{
	munmap(c->base, 2 * c->cont);
	write_string(c->knob, c->saved);
}

/*
 * arm64 (CONFIG_ARM64_CONTPTE) maps a naturally aligned folio of
 * CONT_PTE_SIZE -- 16 pages of 4 KiB, 128 of 16 KiB, 32 of 64 KiB -- with
 * the contiguous bit, and a CPU with hardware access-flag management
 * (FEAT_HAFDBS; QEMU's -cpu max has it) sets the access flag on the one
 * pte of the block it went through.  ptep_get() gathers young and dirty
 * over the block (contpte_ptep_get()), so smaps' Referenced, which reads
 * each pte so, counts the whole block after one page is touched.  A walk
 * that read a pte raw would show one young page; the module must show
 * what smaps counts.  The folio is made by one write fault with that mTHP
 * size on always, then clear_refs clears young over the block
 * (contpte_ptep_test_and_clear_young()), then one page is read.
 */
static enum outcome test_contpte_young(void)
{
	const struct rule young = { .set = FLAG(YOUNG), .mapcount = 1 };
	const struct rule old = { .clear = FLAG(YOUNG), .mapcount = 1 };
	struct smaps_vma sm = { 0 };
	struct contpte_block c;
	enum outcome made;
	struct span want;
	bool ok = false;

	made = contpte_block_make(&c);
	if (made != PASS)
		return made;
	drain_lru_batches();
	if (write_string("/proc/self/clear_refs", "1"))
		goto out;
	want = (struct span){ 0, c.nr };
	if (smaps_of(c.block, &sm) || sm.referenced) {
		tap_diag("after clear_refs smaps says Referenced: %llu kB",
			 sm.referenced);
		goto out;
	}
	if (!expect_ranges(getpid(), "after clear_refs", c.block, c.cont,
			   &want, 1, &old))
		goto out;
	(void)((const volatile char *)c.block)[c.nr / 2 * page_size];
	if (smaps_of(c.block, &sm))
		goto out;
	/* the kernel's own view: a pte each, so no contiguous block */
	if (sm.referenced == page_size >> 10) {
		contpte_block_end(&c);
		return skip("smaps counts one page Referenced: this kernel maps no contiguous block (CONFIG_ARM64_CONTPTE)");
	}
	if (sm.referenced != c.cont >> 10) {
		tap_diag("after reading page %zu of %zu, smaps says Referenced: %llu kB, not the block's %zu kB: not a contiguous block",
			 c.nr / 2, c.nr, sm.referenced, c.cont >> 10);
		goto out;
	}
	ok = expect_ranges(getpid(), "after reading one page", c.block,
			   c.cont, &want, 1, &young);
out:
	contpte_block_end(&c);
	return ok ? PASS : FAIL;
}

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_DIRTY_BIT		4
#define KPF_THP_BIT		22
#define KPF_ZERO_PAGE_BIT	24

/*
 * The /proc/kpageflags word of the page at va of this process, which must
 * be present, through /proc/self/pagemap (map_fd) and kpageflags (kpf_fd);
 * -1 on failure, said.
 */
static int kpf_of_page(int map_fd, int kpf_fd, uintptr_t va, uint64_t *flags)
{
	uint64_t entry;

	if (pread(map_fd, &entry, sizeof(entry),
		  (off_t)(va / page_size * sizeof(entry))) != sizeof(entry)) {
		tap_diag("/proc/self/pagemap at %#lx: %s", (unsigned long)va,
			 strerror(errno));
		return -1;
	}
	/* present (bit 63), with a PFN (root: CAP_SYS_ADMIN) */
	if (!(entry >> 63) || !(entry & ((1ULL << 55) - 1))) {
		tap_diag("/proc/self/pagemap at %#lx: %#llx, not a present page with its PFN",
			 (unsigned long)va, (unsigned long long)entry);
		return -1;
	}
	if (pread(kpf_fd, flags, sizeof(*flags),
		  (off_t)((entry & ((1ULL << 55) - 1)) * sizeof(*flags))) !=
	    sizeof(*flags)) {
		tap_diag("/proc/kpageflags of %#lx: %s", (unsigned long)va,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int open_kpageflags(int *map_fd, int *kpf_fd)
{
	*map_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	*kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (*map_fd >= 0 && *kpf_fd >= 0)
		return 0;
	tap_diag("open /proc/self/pagemap or /proc/kpageflags: %s",
		 strerror(errno));
	if (*map_fd >= 0)
		close(*map_fd);
	if (*kpf_fd >= 0)
		close(*kpf_fd);
	return -1;
}

/*
 * How many of the nr pages from addr (of this process, all present)
 * /proc/kpageflags says are KPF_DIRTY (PG_dirty of their folio); -1, said.
 */
static long kpf_dirty_pages(const char *addr, size_t nr)
{
	int map_fd, kpf_fd;
	uint64_t flags;
	long dirty = -1, n = 0;
	size_t i;

	if (open_kpageflags(&map_fd, &kpf_fd))
		return -1;
	for (i = 0; i < nr; i++) {
		if (kpf_of_page(map_fd, kpf_fd,
				(uintptr_t)addr + i * page_size, &flags))
			goto out;
		n += (flags >> KPF_DIRTY_BIT) & 1;
	}
	dirty = n;
out:
	close(map_fd);
	close(kpf_fd);
	return dirty;
}

/*
 * The dirty side of test_contpte_young.  The CPU's hardware dirty-state
 * management (FEAT_HAFDBS) makes writable-clean ptes dirty on a write
 * without a fault, on the one pte of the block it went through, and
 * ptep_get() gathers dirty over the block as it does young.  The ptes of
 * the folio are made clean by MADV_FREE: madvise_free_pte_range() clears
 * PG_dirty of the whole, exclusively mapped folio and, through
 * clear_young_dirty_ptes() (contpte_clear_young_dirty_ptes()), young and
 * dirty of every pte of the block, keeping the contiguous bit and the
 * write permission (pte_mkclean() only sets PTE_RDONLY).  Then one page is
 * written.  The folio stays clean (KPF_DIRTY, the module's D), so smaps'
 * dirty sizes, which count a page whose pte is dirty by ptep_get() or
 * whose folio is, count pte-dirtiness alone: the whole block.  P must be
 * shown on every page of it; a walk that read a pte raw would show one.
 */
static enum outcome test_contpte_dirty(void)
{
	const struct rule clean = {
		.clear = FLAG(PTE_DIRTY) | FLAG(DIRTY), .mapcount = 1
	};
	const struct rule pte_dirty = {
		.set = FLAG(PTE_DIRTY), .clear = FLAG(DIRTY), .mapcount = 1
	};
	struct smaps_vma sm = { 0 };
	struct contpte_block c;
	enum outcome made;
	struct span want;
	bool ok = false;
	long kpf;

	made = contpte_block_make(&c);
	if (made != PASS)
		return made;
	if (madvise(c.block, c.cont, MADV_FREE)) {
		tap_diag("MADV_FREE: %s", strerror(errno));
		goto out;
	}
	drain_lru_batches();
	want = (struct span){ 0, c.nr };
	if (smaps_of(c.block, &sm) || sm.rss != c.cont >> 10 || sm.dirty) {
		tap_diag("after MADV_FREE smaps says Rss: %llu kB, dirty %llu kB; expected %zu kB, none dirty",
			 sm.rss, sm.dirty, c.cont >> 10);
		goto out;
	}
	kpf = kpf_dirty_pages(c.block, c.nr);
	if (kpf) {
		tap_diag("after MADV_FREE %ld of %zu pages are KPF_DIRTY; expected none",
			 kpf, c.nr);
		goto out;
	}
	if (!expect_ranges(getpid(), "after MADV_FREE", c.block, c.cont,
			   &want, 1, &clean))
		goto out;
	((volatile char *)c.block)[c.nr / 2 * page_size] = 2;
	if (smaps_of(c.block, &sm))
		goto out;
	if (sm.rss != c.cont >> 10) {
		tap_diag("after writing page %zu, smaps says Rss: %llu kB, not %zu kB: the lazily freed folio went",
			 c.nr / 2, sm.rss, c.cont >> 10);
		goto out;
	}
	kpf = kpf_dirty_pages(c.block, c.nr);
	if (kpf) {
		tap_diag("after writing page %zu, %ld of %zu pages are KPF_DIRTY; expected none: the folio is not clean",
			 c.nr / 2, kpf, c.nr);
		goto out;
	}
	/* the kernel's own view: a pte each, so no contiguous block */
	if (sm.dirty == page_size >> 10) {
		contpte_block_end(&c);
		return skip("smaps counts one page dirty: this kernel maps no contiguous block (CONFIG_ARM64_CONTPTE)");
	}
	if (sm.dirty != c.cont >> 10) {
		tap_diag("after writing page %zu of %zu, smaps says dirty: %llu kB, not the block's %zu kB: not a contiguous block",
			 c.nr / 2, c.nr, sm.dirty, c.cont >> 10);
		goto out;
	}
	ok = expect_ranges(getpid(), "after writing one page", c.block,
			   c.cont, &want, 1, &pte_dirty);
out:
	contpte_block_end(&c);
	return ok ? PASS : FAIL;
}

static enum outcome test_sparse_1tib(void)
{
	const size_t len = 1ULL << 40, step = 64ULL << 30, nr = len / step;
	struct timespec before, after;
	char path[PATH_MAX];
	struct text t = { 0 };
	struct pmaps_map map;
	struct span want[16];
	bool ok = false;
	char *base;
	size_t i;
	int err;

	base = map_between_guards(len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				  -1, 0);
	if (!base)
		return FAIL;
	if (no_thp(base, len)) {
		tap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
		return FAIL;
	}
	for (i = 0; i < nr; i++) {
		want[i] = (struct span){ i * (step / page_size), 1 };
		write_pages(base, want[i].first, want[i].first + 1, 1);
	}
	drain_lru_batches();
	pmaps_path_pid(path, sizeof(path), getpid());
	clock_gettime(CLOCK_MONOTONIC, &before);
	err = read_path_text(path, READ_CHUNK, &t);
	clock_gettime(CLOCK_MONOTONIC, &after);
	if (err) {
		tap_diag("reading %s: %s", path, strerror(-err));
		goto out;
	}
	tap_diag("read %zu bytes with a 1 TiB mapping in %.3f ms", t.len,
		 elapsed_ms(&before, &after));
	if (parse_text(&t, path, &map))
		goto out;
	ok = check_ranges(&map, base, len, want, nr, &written_rule);
	pmaps_map_free(&map);
out:
	text_free(&t);
	return ok ? PASS : FAIL;
}

static enum outcome test_read_size_independence(void)
{
	static const size_t chunks[] = { 65536, 4096, 7, 1 };
	/* 1024 one-page ranges: well over 16 KiB of text */
	struct anon_setup setup = { .pages = 2048, .stride = 2 };
	struct text texts[ARRAY_SIZE(chunks)] = { { 0 } };
	char path[PATH_MAX], label[32];
	struct span *want = NULL;
	struct pmaps_map map;
	bool ok = false;
	struct target t;
	size_t nr_want, i;
	int err;

	if (target_start(&t, setup_anon_unshared, &setup))
		return FAIL;
	if (target_stop(&t))
		goto out;
	drain_lru_batches();
	pmaps_path_pid(path, sizeof(path), t.pid);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		err = read_path_text(path, chunks[i], &texts[i]);
		if (err) {
			tap_diag("reading %s %zu bytes at a time: %s", path,
				 chunks[i], strerror(-err));
			goto out;
		}
	}
	ok = true;
	for (i = 1; i < ARRAY_SIZE(chunks); i++) {
		const struct text *a = &texts[0], *b = &texts[i];
		size_t off = 0;

		while (off < a->len && off < b->len &&
		       a->data[off] == b->data[off])
			off++;
		if (off == a->len && off == b->len)
			continue;
		tap_diag("%zu-byte reads: %zu bytes, %zu-byte reads: %zu; first differ at %zu",
			 chunks[0], a->len, chunks[i], b->len, off);
		snprintf(label, sizeof(label), "%zu-byte reads", chunks[0]);
		show_line_at(label, a, off);
		snprintf(label, sizeof(label), "%zu-byte reads", chunks[i]);
		show_line_at(label, b, off);
		ok = false;
	}
	if (texts[0].len <= 16384) {
		tap_diag("text is only %zu bytes; the test needs > 16 KiB",
			 texts[0].len);
		ok = false;
	}
	want = anon_setup_spans(&setup, &nr_want);
	if (!want || parse_text(&texts[0], path, &map)) {
		ok = false;
		goto out;
	}
	ok = check_ranges(&map, t.base, setup.pages * page_size, want, nr_want,
			  &written_rule) && ok;
	pmaps_map_free(&map);
out:
	free(want);
	for (i = 0; i < ARRAY_SIZE(chunks); i++)
		text_free(&texts[i]);
	target_end(&t);
	return ok ? PASS : FAIL;
}

static enum outcome test_bad_names(void)
{
	static const char * const names[] = {
		"abc", "-1", "0", "01", "99999999", "4294967296",
	};
	char path[PATH_MAX];
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int fd;

		pmaps_path(path, sizeof(path), names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			tap_diag("open %s succeeded; expected ENOENT", path);
			close(fd);
			ok = false;
		} else if (errno != ENOENT) {
			tap_diag("open %s: %s; expected ENOENT", path,
				 strerror(errno));
			ok = false;
		}
	}
	return ok ? PASS : FAIL;
}

static enum outcome test_exited_target(void)
{
	struct anon_setup setup = { .pages = 4, .stride = 1 };
	char path[PATH_MAX], buf[4096];
	struct target t;
	ssize_t n;
	int fd;

	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	pmaps_path_pid(path, sizeof(path), t.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		target_end(&t);
		return FAIL;
	}
	target_end(&t);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n == 0 || (n < 0 && errno == ESRCH))
		return PASS;
	if (n < 0)
		tap_diag("read after the target exited: %s; expected ESRCH or EOF",
			 strerror(errno));
	else
		tap_diag("read after the target exited gave %zd bytes, starting: %.*s",
			 n, (int)(n < 80 ? n : 80), buf);
	return FAIL;
}

static enum outcome test_kernel_thread(void)
{
	char path[PATH_MAX], comm[32] = "";
	struct text t = { 0 };
	FILE *f;
	int err;

	f = fopen("/proc/2/comm", "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	if (strcmp(comm, "kthreadd\n"))
		return skip("pid 2 is not kthreadd");
	pmaps_path(path, sizeof(path), "2");
	err = read_path_text(path, READ_CHUNK, &t);
	if (err) {
		tap_diag("reading %s: %s", path, strerror(-err));
		return FAIL;
	}
	if (t.len) {
		tap_diag("%s has %zu bytes; expected none", path, t.len);
		show_text_line(&t, 1);
	}
	err = t.len ? -1 : 0;
	text_free(&t);
	return err ? FAIL : PASS;
}

static enum outcome test_write_rejected(void)
{
	static const int modes[] = { O_WRONLY, O_RDWR };
	char path[PATH_MAX];
	bool ok = true;
	size_t i;

	if (!require_root())
		return skip("needs root");
	pmaps_path(path, sizeof(path), "self");
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		const char *mode = modes[i] == O_WRONLY ? "O_WRONLY" : "O_RDWR";
		int fd = open(path, modes[i] | O_CLOEXEC);
		ssize_t n;

		if (fd < 0) {
			if (errno != EACCES) {
				tap_diag("open %s %s: %s; expected EACCES or success",
					 path, mode, strerror(errno));
				ok = false;
			}
			continue;
		}
		n = write(fd, "1\n", 2);
		if (n >= 0) {
			tap_diag("write to %s (%s) returned %zd; expected EINVAL or EACCES",
				 path, mode, n);
			ok = false;
		} else if (errno != EINVAL && errno != EACCES) {
			tap_diag("write to %s (%s): %s; expected EINVAL or EACCES",
				 path, mode, strerror(errno));
			ok = false;
		}
		close(fd);
	}
	return ok ? PASS : FAIL;
}

/* Static so reading both files allocates nothing that could add a VMA. */
static char self_pmaps_buf[1 << 20], self_maps_buf[1 << 20];

static enum outcome test_self(void)
{
	struct text pmaps = {
		.data = self_pmaps_buf, .cap = sizeof(self_pmaps_buf), .fixed = true,
	};
	struct text maps = {
		.data = self_maps_buf, .cap = sizeof(self_maps_buf), .fixed = true,
	};
	const int attempts = 5;
	char path[PATH_MAX];
	int i;

	pmaps_path(path, sizeof(path), "self");
	for (i = 1; i <= attempts; i++) {
		struct pmaps_map map;
		int err = read_path_text(path, READ_CHUNK, &pmaps);
		int maps_err = read_path_text("/proc/self/maps", READ_CHUNK,
					      &maps);
		bool same;

		if (err) {
			tap_diag("reading %s: %s", path, strerror(-err));
			return FAIL;
		}
		if (maps_err) {
			tap_diag("reading /proc/self/maps: %s",
				 strerror(-maps_err));
			return FAIL;
		}
		if (parse_text(&pmaps, path, &map))
			return FAIL;
		/* every failed attempt shows its difference */
		same = headers_match(&map, &maps, true);
		pmaps_map_free(&map);
		if (same)
			return PASS;
		if (i < attempts)
			tap_diag("retried: test_self, attempt %d of %d", i + 1,
				 attempts);
	}
	tap_diag("headers of %s never matched /proc/self/maps in %d tries",
		 path, attempts);
	return FAIL;
}

/* ---- a VMA that changes between two read() calls ---- */

#define SPLIT_PAGES	2048	/* every other one written: 1024 range lines */

/* Static, so that reading allocates nothing that could change a VMA. */
static char split_buf[1 << 20];

/*
 * Range lines go under the header they belong to: a VMA that shrinks
 * between two read() calls, while its range lines are being read, gets
 * its header again, with its new end, before the lines that follow
 * (module/seq.c).  The first read()s stop early in the region's 1024
 * lines, a few KiB each; the kernel has generated at most one buffer
 * beyond them, so most lines are made after the split.
 */
static enum outcome test_header_reprinted_after_split(void)
{
	char *base = map_anon(SPLIT_PAGES), *mid, *at, *header;
	size_t len = 0, lines = 0, split_at;
	char path[PATH_MAX], whole[48], first[48];
	ssize_t n;
	int fd;

	if (!base)
		return FAIL;
	write_pages(base, 0, SPLIT_PAGES, 2);
	mid = base + SPLIT_PAGES / 2 * page_size;
	snprintf(whole, sizeof(whole), "\n%08lx-%08lx ", (unsigned long)base,
		 (unsigned long)(base + SPLIT_PAGES * page_size));
	snprintf(first, sizeof(first), "\n%08lx-%08lx ", (unsigned long)base,
		 (unsigned long)mid);
	pmaps_path(path, sizeof(path), "self");
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		tap_diag("%s: %s", path, strerror(errno));
		return FAIL;
	}
	/* until 64 of the region's lines are in */
	while (lines < 64 && len + 4096 < sizeof(split_buf)) {
		n = read(fd, split_buf + len, 4096);
		if (n <= 0)
			break;
		len += (size_t)n;
		split_buf[len] = '\0';
		header = strstr(split_buf, whole);
		for (lines = 0, at = header; at && (at = strchr(at + 1, '\n'));)
			lines++;
	}
	split_at = len;
	if (lines < 64 || lines > SPLIT_PAGES / 4) {
		tap_diag("read %zu of the region's lines before the split, expected 64 to %d",
			 lines, SPLIT_PAGES / 4);
		close(fd);
		return FAIL;
	}
	if (mprotect(mid, SPLIT_PAGES / 2 * page_size, PROT_READ)) {
		tap_diag("mprotect: %s", strerror(errno));
		close(fd);
		return FAIL;
	}
	while (len + 4096 < sizeof(split_buf) &&
	       (n = read(fd, split_buf + len, 4096)) > 0)
		len += (size_t)n;
	split_buf[len] = '\0';
	close(fd);
	if (strstr(split_buf + split_at - 1, first))
		return PASS;
	tap_diag("no header%.*s after the split (at byte %zu of %zu)",
		 (int)strlen(first) - 1, first, split_at, len);
	return FAIL;
}

static enum outcome test_listing(void)
{
	struct anon_setup setup = { .pages = 1, .stride = 1 };
	bool saw_self = false, saw_init = false, saw_live = false;
	bool saw_reaped = false;
	char live[24], reaped[24];
	struct dirent *d;
	struct target t;
	pid_t gone;
	DIR *dir;

	if (!pid_dir[0])
		return skip("PMAPS_FILE_FMT is not of the form DIR/%%s");
	fflush(stdout);
	gone = fork();
	if (gone < 0) {
		tap_diag("fork: %s", strerror(errno));
		return FAIL;
	}
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	snprintf(live, sizeof(live), "%d", (int)t.pid);
	snprintf(reaped, sizeof(reaped), "%d", (int)gone);
	dir = opendir(pid_dir);
	if (!dir) {
		tap_diag("opendir %s: %s", pid_dir, strerror(errno));
		target_end(&t);
		return FAIL;
	}
	while ((d = readdir(dir))) {
		saw_self |= !strcmp(d->d_name, "self");
		saw_init |= !strcmp(d->d_name, "1");
		saw_live |= !strcmp(d->d_name, live);
		saw_reaped |= !strcmp(d->d_name, reaped);
	}
	closedir(dir);
	target_end(&t);
	if (!saw_self)
		tap_diag("%s lacks \"self\"", pid_dir);
	if (!saw_init)
		tap_diag("%s lacks \"1\"", pid_dir);
	if (!saw_live)
		tap_diag("%s lacks live child %s", pid_dir, live);
	if (saw_reaped)
		tap_diag("%s lists reaped child %s", pid_dir, reaped);
	return saw_self && saw_init && saw_live && !saw_reaped ? PASS : FAIL;
}

static enum outcome test_new_process_after_load(void)
{
	static const struct span want[] = { { 0, 4 } };
	struct anon_setup setup = { .pages = 4, .stride = 1 };
	struct target t;
	bool ok;

	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	drain_lru_batches();
	ok = headers_match_pid(t.pid);
	ok = expect_ranges(t.pid, "new child", t.base, 4 * page_size, want,
			   ARRAY_SIZE(want), &written_rule) && ok;
	target_end(&t);
	return ok ? PASS : FAIL;
}

/* Open who's file as NOBODY: must fail with EACCES. */
static bool open_denied_as_nobody(void *arg)
{
	return drop_to(NOBODY) && open_denied(arg);
}

static enum outcome test_perm_other_uid(void)
{
	char init[] = "1";
	struct stat st;

	if (!require_root())
		return skip("needs root");
	if (stat("/proc/1", &st) || st.st_uid != 0)
		return skip("pid 1 is not a root process");
	return run_in_child(open_denied_as_nobody, init) ? PASS : FAIL;
}

struct written_target {
	const struct target *target;
	const struct anon_setup *setup;
};

static bool target_ranges_ok(const struct written_target *wt, const char *when)
{
	struct span *want;
	size_t nr;
	bool ok;

	want = anon_setup_spans(wt->setup, &nr);
	if (!want)
		return false;
	ok = expect_ranges(wt->target->pid, when, wt->target->base,
			   wt->setup->pages * page_size, want, nr,
			   &written_rule);
	free(want);
	return ok;
}

static bool read_as_nobody(void *arg)
{
	return drop_to(NOBODY) && target_ranges_ok(arg, "read by uid 65534");
}

/*
 * Start a target written as setup says, then run reader(&target) in a
 * child, which may change its credentials.
 */
static enum outcome read_target_in_child(struct anon_setup *setup,
					 bool (*reader)(void *arg))
{
	struct written_target wt = { .setup = setup };
	struct target t;
	bool ok;

	if (!require_root())
		return skip("needs root");
	if (target_start(&t, setup_anon, setup))
		return FAIL;
	wt.target = &t;
	drain_lru_batches();
	ok = run_in_child(reader, &wt);
	target_end(&t);
	return ok ? PASS : FAIL;
}

#define PTRACE_SCOPE	"/proc/sys/kernel/yama/ptrace_scope"

/* Yama's ptrace_scope, or -1 where the kernel has no Yama. */
static int ptrace_scope(void)
{
	FILE *f = fopen(PTRACE_SCOPE, "re");
	int scope = -1;

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	return scope;
}

static bool set_ptrace_scope(int scope)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", scope);
	return !write_string(PTRACE_SCOPE, s);
}

/*
 * A NOBODY target, dumpable, read by reader as a NOBODY sibling (not its
 * ancestor) under Yama's ptrace_scope @scope, which is set back after.
 * Scope 0, the kernel's rule without Yama, needs no Yama.
 */
static enum outcome read_sibling_under_scope(int scope,
					     bool (*reader)(void *arg))
{
	struct anon_setup setup = {
		.pages = 4, .stride = 1, .drop = true, .dumpable = 1,
	};
	int was = ptrace_scope();
	enum outcome out;

	if (!require_root())
		return skip("needs root");
	if (was < 0 && scope)
		return skip("no Yama in this kernel");
	/* 3 is for good: Yama refuses to lower it */
	if (was == 3 && scope != 3)
		return skip("Yama's ptrace_scope is 3 until reboot");
	if (was >= 0 && was != scope && !set_ptrace_scope(scope))
		return FAIL;
	out = read_target_in_child(&setup, reader);
	if (was >= 0 && was != scope && !set_ptrace_scope(was))
		out = FAIL;
	return out;
}

/* The same uid may read, and attach: everything is shown. */
static enum outcome test_perm_same_uid(void)
{
	return read_sibling_under_scope(0, read_as_nobody);
}

/*
 * A same-uid reader that may not attach (ptrace_scope 1: it is not the
 * target's ancestor) may still write the target's clear_refs, so per-page
 * Y, R and A would trace the target's accesses.  They are '?' on every
 * page, and so is AGE in the NUMA file; U, P and the mapcount are shown.
 */
static bool read_without_attach(void *arg)
{
	const struct written_target *wt = arg;
	const struct rule rule = {
		.set = FLAG(UPTODATE) | FLAG(PTE_DIRTY),
		.unknown = FLAG(YOUNG) | FLAG(REFERENCED) | FLAG(ACTIVE),
		.mapcount = 1,
	};
	size_t pages = wt->setup->pages;
	struct region_count c;
	char path[PATH_MAX], who[24];
	struct span *want;
	size_t nr;
	bool ok;

	if (!drop_to(NOBODY))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/clear_refs",
		 (int)wt->target->pid);
	if (write_string(path, "1"))
		return false;
	want = anon_setup_spans(wt->setup, &nr);
	ok = want && expect_ranges(wt->target->pid,
				   "read by a same-uid sibling, ptrace_scope 1",
				   wt->target->base, pages * page_size, want,
				   nr, &rule);
	free(want);
	snprintf(who, sizeof(who), "%d", (int)wt->target->pid);
	pmaps_numa_path(path, sizeof(path), who);
	if (ok && !count_region(path, wt->target->base, pages, PMAPS_ACTIVE,
				&c))
		return false;
	if (ok && c.age_unknown != pages) {
		tap_diag("%s: AGE shown on %llu of %zu pages to a reader who may not attach",
			 path, pages - c.age_unknown, pages);
		ok = false;
	}
	return ok;
}

static enum outcome test_access_withheld_without_attach(void)
{
	return read_sibling_under_scope(1, read_without_attach);
}

static enum outcome test_perm_nondumpable(void)
{
	struct anon_setup setup = {
		.pages = 4, .stride = 1, .drop = true, .dumpable = 0,
	};
	struct written_target wt = { .setup = &setup };
	struct target t;
	char who[24];
	bool ok;

	if (!require_root())
		return skip("needs root");
	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	wt.target = &t;
	snprintf(who, sizeof(who), "%d", (int)t.pid);
	drain_lru_batches();
	ok = run_in_child(open_denied_as_nobody, who);
	ok = target_ranges_ok(&wt, "read by root") && ok;
	target_end(&t);
	return ok ? PASS : FAIL;
}

static bool read_self_as_nobody(void *arg)
{
	static const struct span want[] = { { 0, 4 } };
	struct pmaps_map map;
	char *base;
	bool ok;

	(void)arg;
	if (!drop_to_nobody(0))
		return false;
	base = map_anon(4);
	if (!base)
		return false;
	write_pages(base, 0, 4, 1);
	drain_lru_batches();
	if (load_who("self", &map))
		return false;
	ok = check_ranges(&map, base, 4 * page_size, want, ARRAY_SIZE(want),
			  &written_rule);
	pmaps_map_free(&map);
	return ok;
}

static enum outcome test_perm_self(void)
{
	if (!require_root())
		return skip("needs root");
	return run_in_child(read_self_as_nobody, NULL) ? PASS : FAIL;
}

/* Open as root, read as NOBODY: access is decided at open. */
static bool read_after_drop(void *arg)
{
	const struct written_target *wt = arg;
	struct text text = { 0 };
	char path[PATH_MAX];
	struct span *want;
	struct pmaps_map map;
	size_t nr;
	bool ok;
	int fd, err;

	pmaps_path_pid(path, sizeof(path), wt->target->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s as root: %s", path, strerror(errno));
		return false;
	}
	if (!drop_to(NOBODY))
		return false;
	err = read_fd_text(fd, READ_CHUNK, 0, &text);
	close(fd);
	if (err) {
		tap_diag("reading %s after dropping to uid %d: %s", path,
			 NOBODY, strerror(-err));
		return false;
	}
	ok = !parse_text(&text, path, &map);
	text_free(&text);
	if (!ok)
		return false;
	want = anon_setup_spans(wt->setup, &nr);
	ok = want && check_ranges(&map, wt->target->base,
				  wt->setup->pages * page_size, want, nr,
				  &written_rule);
	free(want);
	pmaps_map_free(&map);
	return ok;
}

static enum outcome test_perm_open_then_drop(void)
{
	struct anon_setup setup = { .pages = 4, .stride = 1 };

	return read_target_in_child(&setup, read_after_drop);
}

/* ---- a thread that exits while the module decides ---- */

/* The number at the start of path, or -1. */
static long read_long(const char *path)
{
	struct text t = { 0 };
	long v = -1;

	if (!read_path_text(path, READ_CHUNK, &t) && t.len)
		v = strtol(t.data, NULL, 10);
	text_free(&t);
	return v;
}


/* The module's test hooks (PMAPS_TEST_HOOKS, module/access.c). */
#define TEST_HOOKS		"/sys/module/pmaps_ext/parameters"
#define HOLD_CHECK		TEST_HOOKS "/test_hold_check"
#define HELD_CHECKS		TEST_HOOKS "/test_held_checks"
/* How long the test waits for each step of the race it stages. */
#define STAGE_WAIT_MS		5000

static void exit_this_thread(int sig)
{
	(void)sig;
	syscall(SYS_exit, 0);
}

/*
 * The target's second thread: given a byte on the pipe, it makes the
 * process non-dumpable and has the leader thread, which /proc/PID names,
 * exit alone, then keeps the mm alive.
 */
static void *leader_exit_helper(void *arg)
{
	int fd = *(int *)arg;
	char byte;

	while (read(fd, &byte, 1) < 0 && errno == EINTR)
		;
	prctl(PR_SET_DUMPABLE, 0);
	syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
	for (;;)
		pause();
	return NULL;
}

/* A dumpable uid 65534 target with four written pages and a helper. */
static char *setup_leader_exit(void *arg)
{
	static int cmd_fd;
	pthread_t helper;
	char *base;

	cmd_fd = *(int *)arg;
	if (!drop_to_nobody(1))
		return NULL;
	base = map_anon(4);
	if (!base)
		return NULL;
	write_pages(base, 0, 4, 1);
	if (signal(SIGUSR1, exit_this_thread) == SIG_ERR ||
	    pthread_create(&helper, NULL, leader_exit_helper, &cmd_fd))
		return NULL;
	return base;
}

/* The state letter of /proc/PID/stat, or 0. */
static char proc_state(pid_t pid)
{
	char path[64], state = 0;
	struct text t = { 0 };
	const char *paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!read_path_text(path, READ_CHUNK, &t) && t.len) {
		paren = memrchr(t.data, ')', t.len);
		if (paren && paren + 2 < t.data + t.len)
			state = paren[2];
	}
	text_free(&t);
	return state;
}

/* Sleep 10 ms at a time until done(arg), at most STAGE_WAIT_MS. */
static bool wait_until(bool (*done)(const void *arg), const void *arg)
{
	int waited;

	for (waited = 0; waited < STAGE_WAIT_MS; waited += 10) {
		if (done(arg))
			return true;
		usleep(10000);
	}
	return done(arg);
}

static bool held_more(const void *arg)
{
	return read_long(HELD_CHECKS) > *(const long *)arg;
}

static bool is_zombie(const void *arg)
{
	return proc_state(*(const pid_t *)arg) == 'Z';
}

/*
 * Open path as uid 65534 and read it whole; the byte count (or -errno of
 * the open) goes to fd.
 */
static void open_and_count(const char *path, int fd)
{
	struct text t = { 0 };
	long long n;
	int file, err;

	if (!drop_to_nobody(1))
		_exit(1);
	file = open(path, O_RDONLY | O_CLOEXEC);
	if (file < 0) {
		n = -errno;
	} else {
		err = read_fd_text(file, READ_CHUNK, 0, &t);
		n = err ? err : (long long)t.len;
		close(file);
	}
	_exit(write(fd, &n, sizeof(n)) == (ssize_t)sizeof(n) ? 0 : 1);
}

/*
 * The mm is taken first and the check made after: if the thread /proc/PID
 * names exits in between, procfs finds no mm and checks nothing, and the
 * mm taken before, alive in the other thread, must not be served.  Staged
 * with the module's hook: uid 65534 opens the file of a uid 65534 target
 * that is dumpable (so the name resolves), the hook holds the open after
 * the mm is taken, the target turns non-dumpable and its leader exits,
 * then the open goes on.  It must read as empty, as an exited target
 * does; the target's text is what it read before the fix.
 */
static enum outcome test_perm_thread_exit_during_open(void)
{
	struct target t = { .pid = -1, .release_fd = -1 };
	enum outcome result = FAIL;
	int cmd[2] = { -1, -1 }, count[2] = { -1, -1 };
	char path[PATH_MAX];
	long long n = LLONG_MIN;
	pid_t reader = -1;
	long held;

	if (!require_root())
		return skip("needs root");
	if (!pid_dir[0])
		return skip("/proc/PID/pmaps takes the mm in proc_mem_open(), after its check");
	if (access(HOLD_CHECK, W_OK)) {
		tap_diag("%s: %s: the module was built without PMAPS_TEST_HOOKS=y",
			 HOLD_CHECK, strerror(errno));
		return FAIL;
	}
	if (pipe(cmd) || pipe(count)) {
		tap_diag("pipe: %s", strerror(errno));
		goto out;
	}
	if (target_start(&t, setup_leader_exit, &cmd[0]))
		goto out;
	pmaps_path_pid(path, sizeof(path), t.pid);
	held = read_long(HELD_CHECKS);
	if (write_string(HOLD_CHECK, "1"))
		goto out;
	fflush(stdout);
	reader = fork();
	if (reader < 0) {
		tap_diag("fork: %s", strerror(errno));
		goto out;
	}
	if (reader == 0) {
		die_with_parent(getppid());
		open_and_count(path, count[1]);
	}
	if (!wait_until(held_more, &held)) {
		tap_diag("the open of %s never reached the hook (%s is %ld)",
			 path, HELD_CHECKS, read_long(HELD_CHECKS));
		goto out;
	}
	if (write(cmd[1], "x", 1) != 1 || !wait_until(is_zombie, &t.pid)) {
		tap_diag("the target's leader thread did not exit (state %c)",
			 proc_state(t.pid));
		goto out;
	}
	write_string(HOLD_CHECK, "0");
	close(count[1]);
	count[1] = -1;
	if (read(count[0], &n, sizeof(n)) != (ssize_t)sizeof(n)) {
		tap_diag("the reader reported nothing");
		goto out;
	}
	if (n == 0)
		result = PASS;
	else if (n < 0)
		tap_diag("open %s as uid %d: %s; expected an empty file", path,
			 NOBODY, strerror((int)-n));
	else
		tap_diag("uid %d read %lld bytes of %s, now non-dumpable, whose leader exited during the open; expected 0",
			 NOBODY, n, path);
out:
	write_string(HOLD_CHECK, "0");
	if (reader > 0) {
		kill(reader, SIGKILL);
		waitpid(reader, NULL, 0);
	}
	target_end(&t);
	for (int i = 0; i < 2; i++) {
		if (cmd[i] >= 0)
			close(cmd[i]);
		if (count[i] >= 0)
			close(count[i]);
	}
	return result;
}

/* ---- page state of files the reader cannot write ---- */

#define SHARED_FILE_PAGES	4
/* The letters that are the same in every process mapping a page. */
#define SHARED_STATE	(FLAG(REFERENCED) | FLAG(ACTIVE) | FLAG(DIRTY) | \
			 FLAG(WRITEBACK))

/*
 * A file of SHARED_FILE_PAGES written pages with the given owner and mode,
 * made by root in /tmp; path receives its name.  The fd is closed.
 */
static bool make_owned_file(char *path, size_t size, uid_t owner, mode_t mode)
{
	int fd;

	snprintf(path, size, "/tmp/pmaps_owned.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		tap_diag("mkstemp: %s", strerror(errno));
		return false;
	}
	if (fill_file(fd, SHARED_FILE_PAGES * page_size) ||
	    fchown(fd, owner, owner) || fchmod(fd, mode)) {
		tap_diag("making %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return false;
	}
	close(fd);
	return true;
}

/* A target (root) that maps the file at arg shared and writes every page. */
static char *setup_file_writer(void *arg)
{
	int fd = open(arg, O_RDWR | O_CLOEXEC);
	char *base;

	if (fd < 0)
		return NULL;
	base = map_between_guards(SHARED_FILE_PAGES * page_size,
				  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (!base)
		return NULL;
	madvise(base, SHARED_FILE_PAGES * page_size, MADV_NOHUGEPAGE);
	write_pages(base, 0, SHARED_FILE_PAGES, 1);
	return base;
}

/* One reader's view of its own mapping of a file. */
struct file_view {
	const char *path;
	uid_t reader;		/* 0: stay root */
	uint32_t caps;		/* capabilities kept by a non-root reader */
	bool root_caps_only;	/* root keeps only caps */
	bool confined;		/* Landlock denies it /proc/kpageflags */
	bool cow_first_page;	/* map it private and write page 0 */
	bool withheld;		/* R, A, D, W and the mapcount withheld */
	long mapcount;		/* of the pages the reader only read */
};

/*
 * The Landlock ABI version, or 0 (errno set) when the kernel has none or
 * did not enable it.
 */
static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	return abi > 0 ? (int)abi : 0;
}

/*
 * Confine this process with Landlock: it may open for reading only files
 * beneath the module's directory (pid_dir) and this process's /proc/PID,
 * where the module opens maps.  /proc/kpageflags is no longer its to read,
 * though its credentials would let it.
 */
static bool confine_reads(void)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE,
	};
	char own[32];
	const char *allowed[] = { pid_dir, own };
	int ruleset, fd;
	size_t i;

	snprintf(own, sizeof(own), "/proc/%d", (int)getpid());
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr,
			       sizeof(attr), 0);
	if (ruleset < 0) {
		tap_diag("landlock_create_ruleset: %s", strerror(errno));
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		struct landlock_path_beneath_attr beneath = {
			.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
		};

		/* left open: it keeps the procfs inode the rule names */
		fd = open(allowed[i], O_PATH | O_CLOEXEC);
		beneath.parent_fd = fd;
		if (fd < 0 || syscall(SYS_landlock_add_rule, ruleset,
				      LANDLOCK_RULE_PATH_BENEATH, &beneath, 0)) {
			tap_diag("allowing reads beneath %s: %s", allowed[i],
				 strerror(errno));
			return false;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0)) {
		tap_diag("landlock_restrict_self: %s", strerror(errno));
		return false;
	}
	close(ruleset);
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES) {
		tap_diag("confined, open /proc/kpageflags: %s; expected EACCES",
			 fd >= 0 ? "opened" : strerror(errno));
		return false;
	}
	return true;
}

/*
 * As view->reader, map the file read (and page 0 written, copy-on-write, if
 * asked), then check the reader's own text for that mapping.
 */
static bool check_file_view(void *arg)
{
	const struct file_view *view = arg;
	size_t len = SHARED_FILE_PAGES * page_size;
	/* Y and U: this mapping faulted the pages in; P: it wrote none. */
	struct rule read_rule = {
		.set = FLAG(YOUNG) | FLAG(UPTODATE),
		.clear = FLAG(PTE_DIRTY),
		.mapcount = view->mapcount,
	};
	/* The writer dirtied the page cache: D, where it may be seen. */
	struct span want = { 0, SHARED_FILE_PAGES };
	struct pmaps_map map;
	char *base;
	bool ok;
	int fd;

	if (view->withheld)
		read_rule.unknown = SHARED_STATE;
	else
		read_rule.set |= FLAG(DIRTY);
	if ((view->reader || view->root_caps_only) &&
	    !drop_to_with_caps(view->reader, view->caps))
		return false;
	fd = open(view->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("uid %d opening %s: %s", (int)geteuid(), view->path,
			 strerror(errno));
		return false;
	}
	/* read-only unless private: the reader may not write the file */
	if (view->cow_first_page)
		base = map_between_guards(len, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE, fd, 0);
	else
		base = map_between_guards(len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (!base)
		return false;
	madvise(base, len, MADV_NOHUGEPAGE);
	read_pages(base, 0, SHARED_FILE_PAGES);
	if (view->cow_first_page) {
		write_pages(base, 0, 1, 1);
		want = (struct span){ 1, SHARED_FILE_PAGES - 1 };
	}
	drain_lru_batches();
	if (view->confined && !confine_reads())
		return false;
	if (load_who("self", &map))
		return false;
	/* the pages it only read, relative to the first of them */
	ok = check_ranges(&map, base + want.first * page_size,
			  want.pages * page_size,
			  &(struct span){ 0, want.pages }, 1, &read_rule);
	if (ok && view->cow_first_page) {
		/* an anonymous copy tells nothing of other users: shown */
		static const struct span copy[] = { { 0, 1 } };

		ok = check_ranges(&map, base, page_size, copy, 1,
				  &written_rule);
	}
	pmaps_map_free(&map);
	return ok;
}

/*
 * A root process maps path shared and writes it (unless alone), then a
 * reader maps it and reads its own text.
 */
static enum outcome run_file_view(uid_t owner, mode_t mode, bool alone,
				  struct file_view *view)
{
	char path[64];
	struct target writer = { .pid = -1, .release_fd = -1 };
	bool ok;

	if (!require_root())
		return skip("needs root");
	if (!make_owned_file(path, sizeof(path), owner, mode))
		return FAIL;
	view->path = path;
	if (!alone && target_start(&writer, setup_file_writer, path)) {
		unlink(path);
		return FAIL;
	}
	ok = run_in_child(check_file_view, view);
	if (!ok)
		tap_diag("file owned by uid %d, mode %04o, read by uid %d%s",
			 (int)owner, (unsigned int)mode, (int)view->reader,
			 alone ? "" : ", written by a root process");
	target_end(&writer);
	unlink(path);
	return ok ? PASS : FAIL;
}

/* mincore()'s rule: a root-owned 0644 file is not the reader's to see. */
static enum outcome test_file_state_withheld_from_other_users(void)
{
	struct file_view view = {
		.reader = NOBODY, .withheld = true,
		.mapcount = PMAPS_MAPCOUNT_UNKNOWN,
	};

	return run_file_view(0, 0644, false, &view);
}

/* Mapped by the reader alone: 1, as PM_MMAP_EXCLUSIVE would tell. */
static enum outcome test_file_state_withheld_exclusive_mapcount(void)
{
	struct file_view view = {
		.reader = NOBODY, .withheld = true, .mapcount = 1,
	};

	return run_file_view(0, 0644, true, &view);
}

/* A copy-on-write copy in that mapping is the reader's own: shown. */
static enum outcome test_file_state_cow_copy_shown(void)
{
	struct file_view view = {
		.reader = NOBODY, .cow_first_page = true, .withheld = true,
		.mapcount = PMAPS_MAPCOUNT_UNKNOWN,
	};

	return run_file_view(0, 0644, false, &view);
}

/* Root's text is today's: every letter and the count. */
static enum outcome test_file_state_shown_to_root(void)
{
	struct file_view view = { .reader = 0, .mapcount = 2 };

	return run_file_view(0, 0644, false, &view);
}

static enum outcome test_file_state_shown_to_owner(void)
{
	struct file_view view = { .reader = NOBODY, .mapcount = 2 };

	return run_file_view(NOBODY, 0644, false, &view);
}

/* A file the reader could open for writing, though root owns it. */
static enum outcome test_file_state_shown_if_writable(void)
{
	struct file_view view = { .reader = NOBODY, .mapcount = 2 };

	return run_file_view(0, 0666, false, &view);
}

/* CAP_SYS_PTRACE reads any process, but not /proc/kpageflags. */
static enum outcome test_file_state_withheld_cap_sys_ptrace(void)
{
	struct file_view view = {
		.reader = NOBODY, .caps = CAPBIT(CAP_SYS_PTRACE),
		.withheld = true, .mapcount = PMAPS_MAPCOUNT_UNKNOWN,
	};

	return run_file_view(0, 0644, false, &view);
}

/*
 * Who sees everything differs between the two files.  The module shows
 * everything to a reader who may read /proc/kpageflags, as
 * CAP_DAC_READ_SEARCH may; the kernel's /proc/PID/pmaps (the RFC's v2)
 * to CAP_SYS_ADMIN, which pagemap asks before it shows a PFN.
 */
static bool reading_kernel_file(void)
{
	return strncmp(file_fmt, "/proc/pmaps_ext/", 16) != 0;
}

static enum outcome test_file_state_cap_dac_read_search(void)
{
	struct file_view view = {
		.reader = NOBODY, .caps = CAPBIT(CAP_DAC_READ_SEARCH),
		.mapcount = 2,
	};

	if (reading_kernel_file()) {
		view.withheld = true;
		view.mapcount = PMAPS_MAPCOUNT_UNKNOWN;
	}
	return run_file_view(0, 0644, false, &view);
}

static enum outcome test_file_state_cap_sys_admin(void)
{
	struct file_view view = {
		.reader = NOBODY, .caps = CAPBIT(CAP_SYS_ADMIN),
		.mapcount = 2,
	};

	if (!reading_kernel_file()) {
		view.withheld = true;
		view.mapcount = PMAPS_MAPCOUNT_UNKNOWN;
	}
	return run_file_view(0, 0644, false, &view);
}

/*
 * Root without capabilities may read /proc/kpageflags (root's, mode 0400)
 * and sees everything in the module's text, though the file of uid 65534
 * fails mincore()'s rule for it: neither its owner, nor CAP_FOWNER, nor
 * may it write the file.  /proc/PID/pmaps asks CAP_SYS_ADMIN instead.
 */
static enum outcome test_file_state_shown_root_without_caps(void)
{
	struct file_view view = { .root_caps_only = true, .mapcount = 2 };

	/* /proc/PID/pmaps asks CAP_SYS_ADMIN, which this root lacks */
	if (reading_kernel_file()) {
		view.withheld = true;
		view.mapcount = PMAPS_MAPCOUNT_UNKNOWN;
	}
	return run_file_view(NOBODY, 0644, false, &view);
}

/*
 * The same root, denied /proc/kpageflags by an LSM (Landlock): whether it
 * may read that file is its open's to decide, not its credentials'.
 */
static enum outcome test_file_state_withheld_confined_root(void)
{
	struct file_view view = {
		.root_caps_only = true, .confined = true, .withheld = true,
		.mapcount = PMAPS_MAPCOUNT_UNKNOWN,
	};

	if (!pid_dir[0])
		return skip("/proc/PID/pmaps decides kpageflags by capabilities");
	if (!landlock_abi())
		return skip("no Landlock: %s", strerror(errno));
	return run_file_view(NOBODY, 0644, false, &view);
}

#define PAGE_CACHE_CHECKS	TEST_HOOKS "/test_page_cache_checks"
/*
 * A file of this many pages, every other one in the page cache: 128
 * range lines, which the module prints 32 to a record
 * (PMAPS_LINES_PER_RECORD).
 */
#define MANY_RANGES_PAGES	256
#define ONE_READ		(1 << 20)

/* A file for the reader to map, and which of its pages it reads. */
struct checked_file {
	const char *path;
	size_t pages;		/* mapped */
	size_t stride;		/* pages 0, stride, 2 * stride, ... read */
	size_t min_ranges;	/* the range lines that file alone gives */
};

/*
 * As uid 65534, map root's 0644 file (which fails mincore()'s rule), read
 * its pages (fault-around maps no hole, tmpfs keeps the others), and read
 * the own text in one read(): the module must have asked the file system
 * at most once per VMA with a file, not once per record or per hold of
 * the lock.
 */
static bool checks_once_per_vma(void *arg)
{
	const struct checked_file *cf = arg;
	size_t len = cf->pages * page_size, i, headers = 0, ranges = 0;
	unsigned long inode;
	long before, after;
	char path[PATH_MAX], *buf, *line;
	ssize_t n, more;
	char *base;
	int fd;

	if (!drop_to_nobody(1))
		return false;
	fd = open(cf->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", cf->path, strerror(errno));
		return false;
	}
	base = map_between_guards(len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	buf = malloc(ONE_READ);
	if (!base || !buf)
		return false;
	madvise(base, len, MADV_NOHUGEPAGE);
	for (i = 0; i < cf->pages; i += cf->stride)
		read_pages(base, i, i + 1);
	pmaps_path(path, sizeof(path), "self");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		return false;
	}
	before = read_long(PAGE_CACHE_CHECKS);
	n = read(fd, buf, ONE_READ - 1);
	after = read_long(PAGE_CACHE_CHECKS);
	more = read(fd, buf + (n > 0 ? n : 0), 1);
	close(fd);
	if (n <= 0 || more != 0) {
		tap_diag("%s did not come in one read() (%zd, then %zd)", path,
			 n, more);
		return false;
	}
	buf[n] = '\0';
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (*line && strcspn(line, "\t\n") == strcspn(line, "\n")) {
			/* a header; a VMA with a file has an inode */
			if (sscanf(line, "%*s %*s %*s %*s %lu", &inode) == 1 &&
			    inode)
				headers++;
		} else if (*line) {
			ranges++;
		}
	}
	if (ranges < cf->min_ranges) {
		tap_diag("%zu range lines; the file's %zu alone should give %zu",
			 ranges, cf->pages, cf->min_ranges);
		return false;
	}
	if (after - before < 1 || after - before > (long)headers) {
		tap_diag("one read() of %zd bytes, %zu VMAs with a file: %ld file permission checks; expected 1 to %zu",
			 n, headers, after - before, headers);
		return false;
	}
	return true;
}

/* A file of pages pages, pages 0, stride, 2 * stride, ... written. */
static int write_pages_of_file(int fd, size_t pages, size_t stride)
{
	char *page = malloc(page_size);
	size_t i;

	if (!page)
		return -1;
	memset(page, 'x', page_size);
	for (i = 0; i < pages; i += stride)
		if (pwrite(fd, page, page_size, (off_t)(i * page_size)) !=
		    (ssize_t)page_size)
			break;
	free(page);
	return i < pages || ftruncate(fd, (off_t)(pages * page_size)) ? -1 : 0;
}

/*
 * mincore()'s rule asks the file system (->permission()) under the
 * target's lock; once per VMA per read(), so that a slow server stalls
 * the target as little as it can.  Root writes a 0644 file of cf's pages
 * in /tmp, and uid 65534 maps and reads it.
 */
static enum outcome page_cache_checks(struct checked_file *cf)
{
	char file[64];
	bool ok;
	int fd;

	if (!require_root())
		return skip("needs root");
	if (!pid_dir[0])
		return skip("/proc/PID/pmaps has no test hooks");
	if (access(PAGE_CACHE_CHECKS, R_OK)) {
		tap_diag("%s: %s: the module was built without PMAPS_TEST_HOOKS=y",
			 PAGE_CACHE_CHECKS, strerror(errno));
		return FAIL;
	}
	snprintf(file, sizeof(file), "/tmp/pmaps_records.XXXXXX");
	fd = mkstemp(file);
	if (fd < 0 || write_pages_of_file(fd, cf->pages, cf->stride) ||
	    fchmod(fd, 0644)) {
		tap_diag("making %s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(file);
		return FAIL;
	}
	close(fd);
	cf->path = file;
	ok = run_in_child(checks_once_per_vma, cf);
	unlink(file);
	return ok ? PASS : FAIL;
}

/* 128 range lines of one VMA: four records. */
static enum outcome test_page_cache_checked_once_per_vma(void)
{
	struct checked_file cf = {
		.pages = MANY_RANGES_PAGES, .stride = 2,
		.min_ranges = MANY_RANGES_PAGES / 2,
	};

	return page_cache_checks(&cf);
}

/*
 * Every page of a 200 MiB file read: a VMA walked in four holds of the
 * lock (64 MiB each, PMAPS_PAGES_PER_LOCK), dropped and taken again
 * between them.
 */
#define LOCK_HOLDS_FILE		(200UL << 20)

static enum outcome test_page_cache_checked_once_across_lock_holds(void)
{
	struct checked_file cf = {
		.pages = LOCK_HOLDS_FILE / page_size, .stride = 1,
		.min_ranges = 1,
	};

	return page_cache_checks(&cf);
}

/* ---- test_huge_zero_page_not_listed ---- */

/*
 * A read fault on an aligned, madvised THP-sized area maps the huge zero
 * folio (use_zero_page), which holds nothing of the process's: not listed,
 * as the small zero page is not.  No interface the module may call names
 * it (huge_zero_pfn is not exported): the module tells it by pmd_special()
 * where the kernel marks it so, and else as the folio mapped by a pmd that
 * is neither anonymous, nor in a file, nor device memory (fsdax).
 */
static enum outcome test_huge_zero_page_not_listed(void)
{
	const char *zero = "/sys/kernel/mm/transparent_hugepage/use_zero_page";
	enum outcome out;
	int map_fd, kpf_fd;
	uint64_t flags;
	char *base, *huge;
	size_t thp;

	if (!require_root())
		return skip("needs root for /proc/kpageflags");
	out = thp_size_known(&thp);
	if (out != PASS)
		return out;
	if (read_long(zero) != 1)
		return skip("%s is not 1: no huge zero page", zero);
	out = FAIL;
	base = map_thp_area(thp, PROT_READ, &huge);
	if (!base || *(volatile char *)huge || open_kpageflags(&map_fd, &kpf_fd))
		return FAIL;
	if (kpf_of_page(map_fd, kpf_fd, (uintptr_t)huge, &flags))
		goto out;
	if (!((flags >> KPF_ZERO_PAGE_BIT) & 1) || !((flags >> KPF_THP_BIT) & 1)) {
		if (thp_never(THP_ENABLED))
			out = skip("THP disabled: %s is never", THP_ENABLED);
		else
			tap_diag("an aligned MADV_HUGEPAGE read mapped no huge zero page (kpageflags %#llx)",
				 (unsigned long long)flags);
		goto out;
	}
	out = expect_ranges(getpid(), "after reading a THP-sized area", base,
			    2 * thp, NULL, 0, &any_rule) ? PASS : FAIL;
out:
	close(map_fd);
	close(kpf_fd);
	return out;
}

/* ---- test_empty_tables_spend_the_budget ---- */

#define SPENT_HOLDS		TEST_HOOKS "/test_spent_holds"
/* The pages one hold of the lock walks: PMAPS_PAGES_PER_LOCK, 64 MiB. */
#define PAGES_PER_HOLD		((64UL << 20) / page_size)
/* How many holds' worth of empty pmds the test lays out, whole. */
#define EMPTY_PMD_HOLDS		4

static int read_spent_holds(long *holds)
{
	*holds = read_long(SPENT_HOLDS);
	if (*holds < 0) {
		tap_diag("%s: the module was built without PMAPS_TEST_HOOKS=y",
			 SPENT_HOLDS);
		return -1;
	}
	return 0;
}

/*
 * MADV_DONTNEED of a pmd-mapped THP empties its pmd and leaves the pmd
 * table, which the walk still reads entry by entry.  An empty pmd costs
 * one page of a hold's budget, so a VMA of such tables, which prints no
 * range line at all, is walked in holds of bounded length: at least
 * EMPTY_PMD_HOLDS of them for that many holds' worth of empty pmds, where
 * counting only the pages mapped made it one.
 */
static enum outcome test_empty_tables_spend_the_budget(void)
{
	size_t thp, entries, table, tables, len, i;
	long before, after;
	struct text text = { 0 };
	char path[PATH_MAX];
	enum outcome out;
	char *base, *area;
	int err;

	if (!pid_dir[0])
		return skip("/proc/PID/pmaps has no test hooks");
	if (read_spent_holds(&before))
		return FAIL;
	out = thp_size_known(&thp);
	if (out != PASS)
		return out;
	out = FAIL;
	/* a pmd table is a page of 8-byte entries, one THP each */
	entries = page_size / sizeof(uint64_t);
	table = entries * thp;
	tables = EMPTY_PMD_HOLDS * PAGES_PER_HOLD / entries + 1;
	len = tables * table;
	base = mmap(NULL, len + table, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		tap_diag("mmap of %zu GiB: %s", (len + table) >> 30,
			 strerror(errno));
		return FAIL;
	}
	area = (char *)(((uintptr_t)base + table - 1) & ~(table - 1));
	if (madvise(area, len, MADV_HUGEPAGE)) {
		tap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < tables; i++) {
		char *huge = area + i * table;

		huge[0] = 1;
		if (!i) {
			out = thp_given(huge, thp);
			if (out != PASS)
				goto out;
			out = FAIL;
		}
		if (madvise(huge, thp, MADV_DONTNEED)) {
			tap_diag("MADV_DONTNEED: %s", strerror(errno));
			goto out;
		}
	}
	pmaps_path(path, sizeof(path), "self");
	err = read_path_text(path, READ_CHUNK, &text);
	text_free(&text);
	if (err) {
		tap_diag("reading %s: %s", path, strerror(-err));
		goto out;
	}
	if (read_spent_holds(&after))
		goto out;
	if (after - before >= EMPTY_PMD_HOLDS) {
		out = PASS;
	} else {
		tap_diag("%zu pmd tables of %zu empty pmds each walked in %ld spent holds, not %d or more",
			 tables, entries, after - before, EMPTY_PMD_HOLDS);
	}
out:
	munmap(base, len + table);
	return out;
}

/* ---- KSM pages ---- */

#define KSM_DIR			"/sys/kernel/mm/ksm"
/* How long ksmd may take to merge the test's pages under TCG. */
#define KSM_MERGE_WAIT_MS	60000
/* The processes holding the same page: two root targets and a reader. */
#define KSM_SHARERS		3

/* The knobs the test sets, as they were. */
struct ksm_knobs {
	char run[16], pages_to_scan[16], sleep_millisecs[16];
};

static void read_knob(const char *name, char *value, size_t size)
{
	char path[96];
	long v;

	snprintf(path, sizeof(path), KSM_DIR "/%s", name);
	v = read_long(path);
	snprintf(value, size, "%ld", v);
}

static void write_knob(const char *name, const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), KSM_DIR "/%s", name);
	write_string(path, value);
}

/* Start ksmd scanning fast; SKIP without KSM. */
static enum outcome ksm_start(struct ksm_knobs *old)
{
	if (access(KSM_DIR "/run", F_OK))
		return skip("the kernel has no KSM (no %s/run)", KSM_DIR);
	read_knob("run", old->run, sizeof(old->run));
	read_knob("pages_to_scan", old->pages_to_scan,
		  sizeof(old->pages_to_scan));
	read_knob("sleep_millisecs", old->sleep_millisecs,
		  sizeof(old->sleep_millisecs));
	write_knob("pages_to_scan", "1000");
	write_knob("sleep_millisecs", "10");
	write_knob("run", "1");
	return PASS;
}

static void ksm_restore(const struct ksm_knobs *old)
{
	write_knob("run", old->run);
	write_knob("pages_to_scan", old->pages_to_scan);
	write_knob("sleep_millisecs", old->sleep_millisecs);
}

/* What setup_ksm_page writes, and as whom. */
struct ksm_page {
	unsigned int tag;	/* makes the page this test's own */
	bool drop;		/* become NOBODY (dumpable) first */
};

/* One page of bytes only this test writes, offered to KSM. */
static char *setup_ksm_page(void *arg)
{
	const struct ksm_page *kp = arg;
	char *base;

	if (kp->drop && !drop_to_nobody(1))
		return NULL;
	base = map_anon(1);
	if (!base)
		return NULL;
	memset(base, 0x5a, page_size);
	snprintf(base, page_size, "pmaps_test KSM page %u", kp->tag);
	if (madvise(base, page_size, MADV_MERGEABLE))
		return NULL;
	return base;
}

static bool ksm_merged(const void *arg)
{
	const struct target *t = arg;
	char path[64];
	int i;

	for (i = 0; i < KSM_SHARERS; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ksm_merging_pages",
			 (int)t[i].pid);
		if (read_long(path) < 1)
			return false;
	}
	return true;
}

/* Read the text of the page at base in pid as uid NOBODY, or as root. */
struct ksm_view {
	pid_t pid;
	const char *base;
	bool as_nobody;
	const struct rule *rule;
};

static bool check_ksm_view(void *arg)
{
	static const struct span want[] = { { 0, 1 } };
	const struct ksm_view *view = arg;
	struct pmaps_map map;
	bool ok;

	if (view->as_nobody && !drop_to_nobody(1))
		return false;
	if (load_pid(view->pid, &map))
		return false;
	ok = check_ranges(&map, view->base, page_size, want, 1, view->rule);
	pmaps_map_free(&map);
	return ok;
}

/*
 * Two root targets and a uid 65534 one hold the same bytes, and KSM
 * merges them into one page mapped three times; then the uid 65534
 * target's page is read as uid 65534 or as root.
 */
static enum outcome run_ksm_view(bool as_nobody, const struct rule *rule)
{
	struct target t[KSM_SHARERS];
	struct ksm_page kp = { .tag = (unsigned int)getpid() };
	struct ksm_knobs old;
	struct ksm_view view;
	enum outcome result;
	int i, started = 0;
	bool ok = false;

	if (!require_root())
		return skip("needs root");
	result = ksm_start(&old);
	if (result != PASS)
		return result;
	for (i = 0; i < KSM_SHARERS; i++) {
		kp.drop = i == KSM_SHARERS - 1;
		if (target_start(&t[i], setup_ksm_page, &kp))
			goto out;
		started++;
	}
	for (i = 0; i < KSM_MERGE_WAIT_MS / STAGE_WAIT_MS && !ksm_merged(t); i++)
		wait_until(ksm_merged, t);
	if (!ksm_merged(t)) {
		tap_diag("ksmd did not merge the %d pages in %d s (pages_sharing %ld)",
			 KSM_SHARERS, KSM_MERGE_WAIT_MS / 1000,
			 read_long(KSM_DIR "/pages_sharing"));
		goto out;
	}
	view = (struct ksm_view){
		.pid = t[KSM_SHARERS - 1].pid, .base = t[KSM_SHARERS - 1].base,
		.as_nobody = as_nobody, .rule = rule,
	};
	ok = run_in_child(check_ksm_view, &view);
out:
	for (i = 0; i < started; i++)
		target_end(&t[i]);
	ksm_restore(&old);
	return ok ? PASS : FAIL;
}

/*
 * The count of a merged page tells how many processes, of any user, hold
 * the same bytes, and its R, A, D and W how they use them: withheld from
 * a reader who may not read /proc/kpageflags, as for page-cache pages.
 */
static enum outcome test_ksm_withheld_from_other_users(void)
{
	static const struct rule rule = {
		.set = FLAG(UPTODATE), .unknown = SHARED_STATE,
		.mapcount = PMAPS_MAPCOUNT_UNKNOWN,
	};

	return run_ksm_view(true, &rule);
}

/* Root sees the merged page in full: mapped by the three processes. */
static enum outcome test_ksm_shown_to_root(void)
{
	static const struct rule rule = {
		.set = FLAG(UPTODATE), .mapcount = KSM_SHARERS,
	};

	return run_ksm_view(false, &rule);
}

/* ---- test_ring_state_withheld ---- */

/* Whether /proc/self/smaps's VmFlags of the VMA at addr has flag. */
static bool vma_has_flag(const void *addr, const char *flag)
{
	char line[512], start[32];
	bool inside = false, found = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f) {
		tap_diag("/proc/self/smaps: %s", strerror(errno));
		return false;
	}
	snprintf(start, sizeof(start), "%08lx-", (unsigned long)addr);
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (!strncmp(line, start, strlen(start))) {
			inside = true;
			continue;
		}
		if (!inside || strncmp(line, "VmFlags:", 8))
			continue;
		for (tok = strtok_r(line + 8, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save))
			found |= !strcmp(tok, flag);
		break;
	}
	fclose(f);
	return found;
}

/*
 * The ring's page, shared with the parent, read by root without
 * capabilities, so without CAP_SYS_ADMIN, and for the module confined by
 * Landlock, so that it may not read /proc/kpageflags either.
 */
static bool read_ring_as_plain_root(void *arg)
{
	static const struct span want[] = { { 0, 1 } };
	static const struct rule rule = {
		.unknown = SHARED_STATE, .mapcount = PMAPS_MAPCOUNT_UNKNOWN,
	};
	struct pmaps_map map;
	bool ok;

	if (!drop_to_with_caps(0, 0) || (pid_dir[0] && !confine_reads()) ||
	    load_who("self", &map))
		return false;
	ok = check_ranges(&map, arg, page_size, want, 1, &rule);
	pmaps_map_free(&map);
	return ok;
}

/*
 * io_uring's rings hold pages the kernel inserted (VM_MIXEDMAP) into a
 * mapping of its anonymous inode, which root owns: neither anonymous
 * memory nor page cache, though mincore()'s rule passes the inode's owner.
 * Their R, A, D, W and mapcount tell what every other mapper of the ring
 * does, here the parent: withheld from a reader who may not read
 * /proc/kpageflags (or, for /proc/PID/pmaps, has no CAP_SYS_ADMIN), root
 * included.
 */
static enum outcome test_ring_state_withheld(void)
{
	struct io_uring_params params = { 0 };
	enum outcome out;
	char *ring;
	int fd;

	if (!require_root())
		return skip("needs root");
	if (pid_dir[0] && !landlock_abi())
		return skip("no Landlock: %s", strerror(errno));
	fd = (int)syscall(__NR_io_uring_setup, 1, &params);
	if (fd < 0 && errno == ENOSYS)
		return skip("no io_uring in this kernel");
	if (fd < 0 && errno == EPERM)
		return skip("io_uring is disabled (kernel.io_uring_disabled)");
	if (fd < 0) {
		tap_diag("io_uring_setup: %s", strerror(errno));
		return FAIL;
	}
	ring = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	close(fd);
	if (ring == MAP_FAILED) {
		tap_diag("mmap of the ring: %s", strerror(errno));
		return FAIL;
	}
	if (vma_has_flag(ring, "pf"))
		out = skip("the rings are a PFN map here (remap_pfn_range()), listed without pages");
	else
		out = run_in_child(read_ring_as_plain_root, ring) ? PASS : FAIL;
	munmap(ring, page_size);
	return out;
}

/* ---- which PIDs a reader sees ---- */

/* The directory that lists the PIDs: the module's, or /proc. */
static const char *listing_dir(void)
{
	return pid_dir[0] ? pid_dir : "/proc";
}

static bool listed(const char *dir, const char *name)
{
	struct dirent *d;
	bool found = false;
	DIR *dp = opendir(dir);

	if (!dp) {
		tap_diag("opendir %s: %s", dir, strerror(errno));
		return false;
	}
	while ((d = readdir(dp)))
		found |= !strcmp(d->d_name, name);
	closedir(dp);
	return found;
}

/*
 * The root target hidden is neither listed, nor looked up, nor stat()ed
 * by this reader (uid NOBODY); the reader's own PID is, owned by it.
 */
static bool pid_hidden(pid_t hidden)
{
	char path[PATH_MAX], who[24], me[24];
	struct stat st;
	bool ok = true;
	int fd;

	snprintf(who, sizeof(who), "%d", (int)hidden);
	snprintf(me, sizeof(me), "%d", (int)getpid());
	if (listed(listing_dir(), who)) {
		tap_diag("%s lists root's PID %s to uid %d", listing_dir(),
			 who, NOBODY);
		ok = false;
	}
	if (!listed(listing_dir(), me)) {
		tap_diag("%s does not list the reader's own PID %s",
			 listing_dir(), me);
		ok = false;
	}
	pmaps_path(path, sizeof(path), who);
	if (!stat(path, &st) || errno != ENOENT) {
		tap_diag("stat %s: %s; expected ENOENT", path,
			 strerror(errno));
		ok = false;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT) {
		tap_diag("open %s: %s; expected ENOENT", path,
			 fd >= 0 ? "opened" : strerror(errno));
		if (fd >= 0)
			close(fd);
		ok = false;
	}
	pmaps_path(path, sizeof(path), me);
	if (stat(path, &st) || st.st_uid != NOBODY) {
		tap_diag("stat %s: %s, uid %d; expected uid %d", path,
			 strerror(errno), (int)st.st_uid, NOBODY);
		ok = false;
	}
	return ok;
}

/* As NOBODY, the root target at *arg is hidden. */
static bool hidden_from_nobody(void *arg)
{
	return drop_to_nobody(1) && pid_hidden(*(pid_t *)arg);
}

/*
 * As NOBODY with root's group 0 as a supplementary group, the root target
 * at *arg is hidden all the same: a group is no ptrace right.
 */
static bool hidden_from_group_0(void *arg)
{
	const gid_t root_group = 0;

	if (setgroups(1, &root_group) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY) || prctl(PR_SET_DUMPABLE, 1)) {
		tap_diag("becoming uid %d in group 0: %s", NOBODY,
			 strerror(errno));
		return false;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid_hidden(*(pid_t *)arg);
}

static bool proc_has_hidepid(void)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " /proc ") && strstr(line, "hidepid="))
			found = true;
	fclose(f);
	return found;
}

/*
 * A root target, hidden from the reader run_in_child(reader) makes while
 * /proc is mounted with option.
 */
static enum outcome run_hidden(const char *option, bool (*reader)(void *arg))
{
	struct anon_setup setup = { .pages = 1, .stride = 1 };
	struct target t;
	bool ok;

	if (!require_root())
		return skip("needs root");
	if (option && proc_has_hidepid())
		return skip("/proc already has a hidepid= option");
	if (option && mount("proc", "/proc", NULL, MS_REMOUNT, option)) {
		if (errno == EINVAL)
			return skip("procfs refuses %s", option);
		tap_diag("remounting /proc %s: %s", option, strerror(errno));
		return FAIL;
	}
	ok = !target_start(&t, setup_anon, &setup);
	if (ok) {
		ok = run_in_child(reader, &t.pid);
		target_end(&t);
	}
	if (option && mount("proc", "/proc", NULL, MS_REMOUNT, "hidepid=0")) {
		tap_diag("remounting /proc hidepid=0: %s", strerror(errno));
		ok = false;
	}
	return ok ? PASS : FAIL;
}

static enum outcome test_hidepid_invisible(void)
{
	return run_hidden("hidepid=invisible", hidden_from_nobody);
}

static enum outcome test_hidepid_2(void)
{
	return run_hidden("hidepid=2", hidden_from_nobody);
}

/*
 * The module names only processes the reader may read, whatever /proc's
 * options: it cannot tell which /proc a path came through.
 */
static enum outcome test_unreadable_pids_hidden(void)
{
	if (!pid_dir[0])
		return skip("/proc/PID/pmaps is listed as /proc lists it");
	return run_hidden(NULL, hidden_from_nobody);
}

/*
 * Nor does group 0 show them: hidepid=invisible without gid= would admit
 * any reader in root's group (has_pid_permissions()).
 */
static enum outcome test_unreadable_pids_hidden_from_group_0(void)
{
	if (!pid_dir[0])
		return skip("/proc/PID/pmaps is listed as /proc lists it");
	return run_hidden(NULL, hidden_from_group_0);
}

/* Owned as /proc/PID/maps is: by root for a non-dumpable process. */
static enum outcome test_owner_follows_procfs(void)
{
	struct anon_setup setups[] = {
		{ .pages = 1, .stride = 1, .drop = true, .dumpable = 1 },
		{ .pages = 1, .stride = 1, .drop = true, .dumpable = 0 },
	};
	const uid_t want[] = { NOBODY, 0 };
	char path[PATH_MAX], maps[64];
	struct stat st, maps_st;
	bool ok = true;
	struct target t;
	size_t i;

	if (!require_root())
		return skip("needs root");
	for (i = 0; i < ARRAY_SIZE(setups); i++) {
		if (target_start(&t, setup_anon, &setups[i]))
			return FAIL;
		pmaps_path_pid(path, sizeof(path), t.pid);
		snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)t.pid);
		if (stat(path, &st) || stat(maps, &maps_st)) {
			tap_diag("stat %s or %s: %s", path, maps,
				 strerror(errno));
			ok = false;
		} else if (st.st_uid != want[i] || st.st_gid != maps_st.st_gid ||
			   maps_st.st_uid != want[i]) {
			tap_diag("%s is owned by %d:%d, %s by %d:%d; expected uid %d (dumpable %d)",
				 path, (int)st.st_uid, (int)st.st_gid, maps,
				 (int)maps_st.st_uid, (int)maps_st.st_gid,
				 (int)want[i], setups[i].dumpable);
			ok = false;
		}
		target_end(&t);
	}
	return ok ? PASS : FAIL;
}

/* Mappings whose maps lines are awkward to reproduce. */
static char *setup_varied_vmas(void *arg)
{
	char path[64];
	char *anon, *file;
	int fd;

	(void)arg;
	anon = map_anon(6);
	if (!anon)
		return NULL;
	write_pages(anon, 0, 6, 1);
	/* a PROT_NONE hole splits the mapping into three VMAs */
	if (mprotect(anon + 2 * page_size, 2 * page_size, PROT_NONE))
		return NULL;
	/* maps escapes the newline; the name also ends in " (deleted)" */
	snprintf(path, sizeof(path), "/tmp/pmaps test\nname %d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (fill_file(fd, 4 * page_size)) {
		close(fd);
		unlink(path);
		return NULL;
	}
	file = mmap(NULL, 2 * page_size, PROT_READ, MAP_PRIVATE, fd,
		    (off_t)page_size);
	close(fd);
	unlink(path);
	if (file == MAP_FAILED)
		return NULL;
	read_pages(file, 0, 2);
	return anon;
}

/* The first line of t, without its '\n'. */
static size_t first_line_len(const struct text *t)
{
	const char *nl = memchr(t->data, '\n', t->len);

	return nl ? (size_t)(nl - t->data) : t->len;
}

/*
 * Runs as PID 1 of a new pid namespace: the directory must list "self" and
 * "1" only (and the module's "numa" directory), "self" must lead to "1", "1" must be this process (not the
 * outer init, whose "1" dentry the parent holds open), and the parent's
 * PID must not resolve.
 */
static bool pidns_reader(pid_t outer_parent)
{
	struct text mine = { 0 }, maps = { 0 };
	char path[PATH_MAX], link[32], outer[24];
	bool ok = true, saw_self = false, saw_one = false;
	struct dirent *d;
	ssize_t n;
	DIR *dir;

	dir = opendir(pid_dir);
	if (!dir) {
		tap_diag("opendir %s: %s", pid_dir, strerror(errno));
		return false;
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!strcmp(d->d_name, "self")) {
			saw_self = true;
		} else if (!strcmp(d->d_name, "numa") &&
			   d->d_type == DT_DIR) {
			/* the module's NUMA files, the same PIDs again */
		} else if (!strcmp(d->d_name, "1")) {
			saw_one = true;
		} else {
			tap_diag("the new namespace sees %s/%s", pid_dir,
				 d->d_name);
			ok = false;
		}
	}
	closedir(dir);
	if (!saw_self || !saw_one) {
		tap_diag("the new namespace lacks self or 1 in %s", pid_dir);
		ok = false;
	}

	pmaps_path(path, sizeof(path), "self");
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	if (strcmp(link, "1")) {
		tap_diag("%s links to \"%s\", expected \"1\"", path, link);
		ok = false;
	}

	pmaps_path(path, sizeof(path), "1");
	if (read_path_text(path, READ_CHUNK, &mine) ||
	    read_path_text("/proc/self/maps", READ_CHUNK, &maps) ||
	    !mine.len || first_line_len(&mine) != first_line_len(&maps) ||
	    memcmp(mine.data, maps.data, first_line_len(&maps))) {
		tap_diag("%s is not this process's map", path);
		ok = false;
	}
	text_free(&mine);
	text_free(&maps);

	snprintf(outer, sizeof(outer), "%d", (int)outer_parent);
	pmaps_path(path, sizeof(path), outer);
	if (outer_parent != 1 && (open(path, O_RDONLY) >= 0 || errno != ENOENT)) {
		tap_diag("outer PID %s resolves in the new namespace", outer);
		ok = false;
	}
	return ok;
}

static bool read_in_new_pidns(void *arg)
{
	pid_t outer_parent = *(pid_t *)arg, pid;
	int status;

	if (unshare(CLONE_NEWPID)) {
		tap_diag("unshare(CLONE_NEWPID): %s", strerror(errno));
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		return false;
	}
	if (pid == 0)
		_exit(pidns_reader(outer_parent) ? 0 : 1);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static enum outcome test_pid_namespace(void)
{
	char init_path[PATH_MAX];
	pid_t me = getpid();
	bool ok;
	int fd;

	if (!pid_dir[0])
		return skip("PMAPS_FILE_FMT is not of the form DIR/%%s");
	if (access("/proc/self/ns/pid", F_OK))
		return skip("the kernel has no pid namespaces");
	/* Keep the outer "1" dentry cached: the inner reader must not get it. */
	pmaps_path(init_path, sizeof(init_path), "1");
	fd = open(init_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", init_path, strerror(errno));
		return FAIL;
	}
	ok = run_in_child(read_in_new_pidns, &me);
	close(fd);
	return ok ? PASS : FAIL;
}

/* ---- hugetlb ---- */

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT		26
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB		4U
#endif
/* MAP_HUGE_* and MFD_HUGE_* both hold log2 of the size from bit 26 on. */
#define HUGE_SIZE_FLAG(shift)	((unsigned int)(shift) << MAP_HUGE_SHIFT)
#define HUGE_2M_FLAG		HUGE_SIZE_FLAG(21)
#define HUGE_1G_FLAG		HUGE_SIZE_FLAG(30)
#define GIGA_SIZE		(1UL << 30)

/* A pool of huge pages of one size, and its size before the test. */
struct huge_pool {
	char nr_path[128];
	char old[32];
};

/*
 * Add @pages huge pages of @kb KiB to the pool.  SKIP when the kernel has
 * no such huge pages, FAIL when it cannot find the memory for them; the
 * pool is then as it was.
 */
static enum outcome huge_pool_grow(struct huge_pool *pool, unsigned long kb,
				   long pages)
{
	char dir[96], free_path[128], want[32];
	long old, got;

	snprintf(dir, sizeof(dir), "/sys/kernel/mm/hugepages/hugepages-%lukB",
		 kb);
	snprintf(pool->nr_path, sizeof(pool->nr_path), "%s/nr_hugepages", dir);
	snprintf(free_path, sizeof(free_path), "%s/free_hugepages", dir);
	pool->old[0] = '\0';
	old = read_long(pool->nr_path);
	if (old < 0)
		return skip("no %s: the kernel has no %lu kB hugetlb pages",
			    dir, kb);
	snprintf(pool->old, sizeof(pool->old), "%ld", old);
	snprintf(want, sizeof(want), "%ld", old + pages);
	write_string(pool->nr_path, want);
	got = read_long(free_path);
	/*
	 * The guest has them: tests/qemu/run.sh reserves a 1 GiB page at
	 * boot, and a fresh guest finds 2 MiB ones.
	 */
	if (got < pages) {
		write_string(pool->nr_path, pool->old);
		tap_diag("only %ld free %lu kB huge pages, %ld needed", got,
			 kb, pages);
		return FAIL;
	}
	return PASS;
}

/* After the test's huge pages are unmapped and their files closed. */
static void huge_pool_restore(const struct huge_pool *pool)
{
	if (pool->old[0])
		write_string(pool->nr_path, pool->old);
}

/*
 * A private anonymous hugetlb mapping of len bytes, in the page size of
 * size_flag (MAP_HUGE_*), or MAP_FAILED.
 */
static char *map_hugetlb_private(size_t len, int size_flag)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | size_flag, -1, 0);
}

/* The index of the first range in [base, base + len) must be @index. */
static bool check_first_index(const struct pmaps_map *map, const void *base,
			      size_t len, unsigned long long index)
{
	const struct pmaps_range *r = first_range_in(map, base, len);

	if (r && r->index == index)
		return true;
	if (r)
		tap_diag("range index %llu, expected %llu", r->index, index);
	show_ranges(map, (uintptr_t)base, (uintptr_t)base + len);
	return false;
}

/* The pte young and dirty bits, and the folio's, of hugetlb pages. */
static const struct rule huge_written_rule = {
	.set = FLAG(YOUNG) | FLAG(UPTODATE) | FLAG(PTE_DIRTY),
	.clear = FLAG(REFERENCED) | FLAG(ACTIVE) | FLAG(WRITEBACK),
	.mapcount = 1,
};

static const struct rule huge_read_rule = {
	.set = FLAG(YOUNG) | FLAG(UPTODATE),
	.clear = FLAG(REFERENCED) | FLAG(ACTIVE) | FLAG(PTE_DIRTY) |
		 FLAG(WRITEBACK),
	.mapcount = 1,
};

/*
 * A private MAP_HUGETLB mapping of three 2 MiB pages: the first written,
 * the second only read (hugetlb has no zero page, so it is a page of its
 * own, mapped without the dirty bit), the third never touched.  Each
 * huge page is one range of 512 pages; the index counts base pages of
 * the mapping's file, from 0.
 */
static enum outcome test_hugetlb_private(void)
{
	const size_t len = 3 * HUGE_SIZE;
	const unsigned long long per_huge = HUGE_SIZE / page_size;
	struct span want = { 0, per_huge };
	struct huge_pool pool;
	struct pmaps_map map;
	enum outcome result;
	bool ok = false;
	char *area;

	result = huge_pool_grow(&pool, HUGE_SIZE >> 10, 3);
	if (result != PASS)
		return result;
	area = map_hugetlb_private(len, HUGE_2M_FLAG);
	if (area == MAP_FAILED) {
		tap_diag("mmap MAP_HUGETLB: %s", strerror(errno));
		goto restore;
	}
	((volatile char *)area)[0] = 1;
	(void)((volatile char *)area)[HUGE_SIZE];
	if (load_pid(getpid(), &map))
		goto unmap;
	ok = check_ranges(&map, area, HUGE_SIZE, &want, 1, &huge_written_rule) &&
	     check_first_index(&map, area, HUGE_SIZE, 0);
	ok = check_ranges(&map, area + HUGE_SIZE, HUGE_SIZE, &want, 1,
			  &huge_read_rule) &&
	     check_first_index(&map, area + HUGE_SIZE, HUGE_SIZE, per_huge) &&
	     ok;
	ok = check_ranges(&map, area + 2 * HUGE_SIZE, HUGE_SIZE, NULL, 0,
			  &any_rule) && ok;
	pmaps_map_free(&map);
unmap:
	munmap(area, len);
restore:
	huge_pool_restore(&pool);
	return ok ? PASS : FAIL;
}

/*
 * A hugetlb memfd of two 2 MiB pages, mapped shared twice: all of it
 * read-write, both pages written; then its second page again, read-only,
 * and read.  The first page shows mapcount 1, the second 2 in both
 * mappings, with the index of its file page (512) in both; page cache
 * folios of hugetlbfs are always dirty.  The read-only mapping's entry
 * is not dirty.
 */
static enum outcome test_hugetlb_shared_memfd(void)
{
	const unsigned long long per_huge = HUGE_SIZE / page_size;
	const struct rule rw_alone = {
		.set = huge_written_rule.set | FLAG(DIRTY),
		.clear = huge_written_rule.clear,
		.mapcount = 1,
	};
	const struct rule rw_twice = {
		.set = rw_alone.set, .clear = rw_alone.clear, .mapcount = 2,
	};
	const struct rule ro_twice = {
		.set = huge_read_rule.set | FLAG(DIRTY),
		.clear = huge_read_rule.clear,
		.mapcount = 2,
	};
	struct span want = { 0, per_huge };
	char *rw = MAP_FAILED, *ro = MAP_FAILED;
	struct huge_pool pool;
	struct pmaps_map map;
	enum outcome result;
	bool ok = false;
	int fd;

	result = huge_pool_grow(&pool, HUGE_SIZE >> 10, 2);
	if (result != PASS)
		return result;
	fd = memfd_create("pmaps_hugetlb", MFD_CLOEXEC | MFD_HUGETLB |
					   HUGE_2M_FLAG);
	if (fd < 0) {
		tap_diag("memfd_create MFD_HUGETLB: %s", strerror(errno));
		goto restore;
	}
	if (ftruncate(fd, 2 * HUGE_SIZE)) {
		tap_diag("ftruncate: %s", strerror(errno));
		goto out;
	}
	rw = mmap(NULL, 2 * HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  0);
	ro = mmap(NULL, HUGE_SIZE, PROT_READ, MAP_SHARED, fd, HUGE_SIZE);
	if (rw == MAP_FAILED || ro == MAP_FAILED) {
		tap_diag("mmap of the hugetlb memfd: %s", strerror(errno));
		goto out;
	}
	((volatile char *)rw)[0] = 1;
	((volatile char *)rw)[HUGE_SIZE] = 2;
	(void)((volatile char *)ro)[0];
	if (load_pid(getpid(), &map))
		goto out;
	ok = check_ranges(&map, rw, HUGE_SIZE, &want, 1, &rw_alone) &&
	     check_first_index(&map, rw, HUGE_SIZE, 0);
	ok = check_ranges(&map, rw + HUGE_SIZE, HUGE_SIZE, &want, 1,
			  &rw_twice) &&
	     check_first_index(&map, rw + HUGE_SIZE, HUGE_SIZE, per_huge) &&
	     ok;
	ok = check_ranges(&map, ro, HUGE_SIZE, &want, 1, &ro_twice) &&
	     check_first_index(&map, ro, HUGE_SIZE, per_huge) && ok;
	pmaps_map_free(&map);
out:
	if (rw != MAP_FAILED)
		munmap(rw, 2 * HUGE_SIZE);
	if (ro != MAP_FAILED)
		munmap(ro, HUGE_SIZE);
	close(fd);
restore:
	huge_pool_restore(&pool);
	return ok ? PASS : FAIL;
}

/*
 * Cut @t down to the lines of the VMA starting at @start: its header and
 * its range lines.  The rest of the target's text may change between two
 * reads: its heap is copy-on-write shared with this process until either
 * writes to it.  Returns false if there is no such header.
 */
static bool vma_text(struct text *t, unsigned long long start)
{
	char prefix[32];
	size_t n = (size_t)snprintf(prefix, sizeof(prefix), "%08llx-", start);
	char *line, *next, *end = t->data + t->len, *from = NULL;

	for (line = t->data; line < end; line = next) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *stop = nl ? nl : end;
		char *tab = memchr(line, '\t', (size_t)(stop - line));
		char *dash = memchr(line, '-', (size_t)(stop - line));

		next = nl ? nl + 1 : end;
		/* a header has a '-' before any tab; a range line has none */
		if (from && dash && (!tab || dash < tab))
			break;
		if (!from && (size_t)(stop - line) > n &&
		    !memcmp(line, prefix, n))
			from = line;
	}
	if (!from)
		return false;
	t->len = (size_t)(line - from);
	memmove(t->data, from, t->len);
	return true;
}

#define MANY_HUGE	40	/* more ranges than one record holds (32) */

/* Even huge pages written, odd ones read: each one a range of its own. */
static char *setup_hugetlb_alternating(void *arg)
{
	size_t i;
	char *area;

	(void)arg;
	area = map_hugetlb_private(MANY_HUGE * HUGE_SIZE, HUGE_2M_FLAG);
	if (area == MAP_FAILED)
		return NULL;
	for (i = 0; i < MANY_HUGE; i++) {
		if (i % 2)
			(void)((volatile char *)area)[i * HUGE_SIZE];
		else
			((volatile char *)area)[i * HUGE_SIZE] = 1;
	}
	return area;
}

/*
 * 40 hugetlb ranges take two records, so the second starts inside the
 * hugetlb VMA: the text must be the same for any read() size, and hold
 * every range once.
 */
static enum outcome test_hugetlb_read_sizes(void)
{
	static const size_t chunks[] = { 65536, 4096, 7, 1 };
	const unsigned long long per_huge = HUGE_SIZE / page_size;
	const struct rule rule = {
		.set = FLAG(YOUNG) | FLAG(UPTODATE),
		.clear = FLAG(REFERENCED) | FLAG(ACTIVE) | FLAG(WRITEBACK),
		.mapcount = 1,
	};
	struct text texts[ARRAY_SIZE(chunks)] = { { 0 } };
	struct span want[MANY_HUGE];
	char path[PATH_MAX];
	struct huge_pool pool;
	struct pmaps_map map;
	enum outcome result;
	struct target t;
	bool ok = false;
	size_t i;
	int err;

	result = huge_pool_grow(&pool, HUGE_SIZE >> 10, MANY_HUGE);
	if (result != PASS)
		return result;
	if (target_start(&t, setup_hugetlb_alternating, NULL))
		goto restore;
	if (target_stop(&t))
		goto out;
	pmaps_path_pid(path, sizeof(path), t.pid);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		err = read_path_text(path, chunks[i], &texts[i]);
		if (err) {
			tap_diag("reading %s %zu bytes at a time: %s", path,
				 chunks[i], strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		if (vma_text(&texts[i], (uintptr_t)t.base))
			continue;
		tap_diag("%zu-byte reads: no header at %p", chunks[i], t.base);
		goto out;
	}
	ok = true;
	for (i = 1; i < ARRAY_SIZE(chunks); i++) {
		const struct text *a = &texts[0], *b = &texts[i];
		size_t off = 0;
		char label[32];

		while (off < a->len && off < b->len &&
		       a->data[off] == b->data[off])
			off++;
		if (off == a->len && off == b->len)
			continue;
		tap_diag("%zu-byte reads: %zu bytes, %zu-byte reads: %zu; first differ at %zu",
			 chunks[0], a->len, chunks[i], b->len, off);
		snprintf(label, sizeof(label), "%zu-byte reads", chunks[0]);
		show_line_at(label, a, off);
		snprintf(label, sizeof(label), "%zu-byte reads", chunks[i]);
		show_line_at(label, b, off);
		ok = false;
	}
	for (i = 0; i < MANY_HUGE; i++)
		want[i] = (struct span){ i * per_huge, per_huge };
	if (parse_text(&texts[0], path, &map)) {
		ok = false;
		goto out;
	}
	ok = check_ranges(&map, t.base, MANY_HUGE * HUGE_SIZE, want, MANY_HUGE,
			  &rule) && ok;
	pmaps_map_free(&map);
out:
	for (i = 0; i < ARRAY_SIZE(chunks); i++)
		text_free(&texts[i]);
	target_end(&t);
restore:
	huge_pool_restore(&pool);
	return ok ? PASS : FAIL;
}

/* A 1 GiB page, mapped by a pud: one range of 262144 pages. */
static enum outcome test_hugetlb_1g(void)
{
	struct span want = { 0, GIGA_SIZE / page_size };
	struct huge_pool pool;
	struct pmaps_map map;
	enum outcome result;
	bool ok = false;
	char *area;

	result = huge_pool_grow(&pool, GIGA_SIZE >> 10, 1);
	if (result != PASS)
		return result;
	area = map_hugetlb_private(GIGA_SIZE, HUGE_1G_FLAG);
	if (area == MAP_FAILED) {
		tap_diag("mmap MAP_HUGETLB 1 GiB: %s", strerror(errno));
		goto restore;
	}
	((volatile char *)area)[0] = 1;
	if (!load_pid(getpid(), &map)) {
		ok = check_ranges(&map, area, GIGA_SIZE, &want, 1,
				  &huge_written_rule) &&
		     check_first_index(&map, area, GIGA_SIZE, 0);
		pmaps_map_free(&map);
	}
	munmap(area, GIGA_SIZE);
restore:
	huge_pool_restore(&pool);
	return ok ? PASS : FAIL;
}

/*
 * The file pins the mm it checked at open: once the target execs, the
 * old mm has no users and the open file reads as empty, never the new
 * program, while a fresh open shows the new program.
 */
static enum outcome test_exec_after_open(void)
{
	static const char sleeper[] = "/bin/sleep";
	struct text old = { 0 }, fresh = { 0 };
	int go[2], exec_done[2], fd, err;
	char path[PATH_MAX], byte;
	enum outcome result = FAIL;
	pid_t pid;

	if (access(sleeper, X_OK))
		return skip("no %s to exec", sleeper);
	if (pipe2(go, O_CLOEXEC) || pipe2(exec_done, O_CLOEXEC)) {
		tap_diag("pipe: %s", strerror(errno));
		return FAIL;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(exec_done[0]);
		close(exec_done[1]);
		return FAIL;
	}
	if (pid == 0) {
		close(go[1]);
		close(exec_done[0]);
		die_with_parent(getppid());
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		execl(sleeper, "sleep", "60", (char *)NULL);
		_exit(1);
	}
	close(go[0]);
	close(exec_done[1]);
	pmaps_path_pid(path, sizeof(path), pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		goto out;
	}
	/* The CLOEXEC pipe closes when exec succeeds. */
	if (write(go[1], "g", 1) != 1 || read(exec_done[0], &byte, 1) != 0) {
		tap_diag("the child did not exec %s", sleeper);
		goto out;
	}
	err = read_fd_text(fd, READ_CHUNK, 0, &old);
	if (err || old.len) {
		tap_diag("the file opened before exec read %zu bytes (%s); expected 0",
			 old.len, err ? strerror(-err) : "no error");
		goto out;
	}
	if (read_path_text(path, READ_CHUNK, &fresh) || !fresh.len) {
		tap_diag("a fresh open of %s read nothing", path);
		goto out;
	}
	result = PASS;
out:
	if (fd >= 0)
		close(fd);
	close(go[1]);
	close(exec_done[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	text_free(&old);
	text_free(&fresh);
	return result;
}

static enum outcome test_header_matches_maps(void)
{
	struct target t;
	bool ok;

	if (target_start(&t, setup_varied_vmas, NULL))
		return FAIL;
	ok = !target_stop(&t) && headers_match_pid(t.pid);
	target_end(&t);
	return ok ? PASS : FAIL;
}

/* ---- runner ---- */

static const struct test_case tests[] = {
	TEST(test_anon_written),
	TEST(test_anon_zero_page),
	TEST(test_fork_cow_mapcount),
	TEST(test_shared_file_offset),
	TEST(test_madv_dontneed_hole),
	TEST(test_clear_refs),
	TEST(test_active_mglru_aging),
	TEST(test_active_classic_read_twice),
	TEST(test_thp),
	TEST(test_huge_zero_page_not_listed),
	TEST(test_long_line_across_lock_holds),
	TEST(test_empty_tables_spend_the_budget),
	TEST(test_contpte_young),
	TEST(test_contpte_dirty),
	TEST(test_sparse_1tib),
	TEST(test_read_size_independence),
	TEST(test_bad_names),
	TEST(test_exited_target),
	TEST(test_kernel_thread),
	TEST(test_write_rejected),
	TEST(test_self),
	TEST(test_header_reprinted_after_split),
	TEST(test_listing),
	TEST(test_new_process_after_load),
	TEST(test_perm_other_uid),
	TEST(test_perm_same_uid),
	TEST(test_access_withheld_without_attach),
	TEST(test_perm_nondumpable),
	TEST(test_perm_self),
	TEST(test_perm_open_then_drop),
	TEST(test_perm_thread_exit_during_open),
	TEST(test_file_state_withheld_from_other_users),
	TEST(test_file_state_withheld_exclusive_mapcount),
	TEST(test_file_state_cow_copy_shown),
	TEST(test_file_state_shown_to_root),
	TEST(test_file_state_shown_to_owner),
	TEST(test_file_state_shown_if_writable),
	TEST(test_file_state_withheld_cap_sys_ptrace),
	TEST(test_file_state_cap_dac_read_search),
	TEST(test_file_state_cap_sys_admin),
	TEST(test_file_state_shown_root_without_caps),
	TEST(test_file_state_withheld_confined_root),
	TEST(test_page_cache_checked_once_per_vma),
	TEST(test_page_cache_checked_once_across_lock_holds),
	TEST(test_ksm_withheld_from_other_users),
	TEST(test_ksm_shown_to_root),
	TEST(test_ring_state_withheld),
	TEST(test_hidepid_invisible),
	TEST(test_hidepid_2),
	TEST(test_unreadable_pids_hidden),
	TEST(test_unreadable_pids_hidden_from_group_0),
	TEST(test_owner_follows_procfs),
	TEST(test_header_matches_maps),
	TEST(test_pid_namespace),
	TEST(test_hugetlb_private),
	TEST(test_hugetlb_shared_memfd),
	TEST(test_hugetlb_read_sizes),
	TEST(test_hugetlb_1g),
	TEST(test_exec_after_open),
};

int main(int argc, char **argv)
{
	return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
			  TEST_TIMEOUT_SEC, false);
}
