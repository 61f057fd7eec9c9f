// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps wss PID: working-set size, the pages a process accesses in an
 * interval, per VMA and in total.
 *
 * Each interval forgets what was accessed before it, waits, and counts what
 * was accessed since.  Forgetting changes the target's state, so there are
 * two ways, and neither is taken without a reason:
 *
 *  - clear_refs (--clear-refs, asked for explicitly): writing 1 to
 *    /proc/PID/clear_refs clears the young bit of every pte and the
 *    PG_referenced bit of every mapped page, which reclaim then takes as
 *    "not recently used".  Accesses through the page tables set the young
 *    bit again; the count is of pages young (Y) in the kernel's or the
 *    module's text.  The pagemap source cannot see young bits, so with it
 *    the count is smaps' Referenced: per VMA (pte young, or page
 *    referenced, or idle-young), as Brendan Gregg's wss.pl does; the
 *    referenced bit belongs to the page, so a shared page that another
 *    process faults in or reads counts too.
 *  - idle page tracking (the default when /sys/kernel/mm/page_idle/bitmap
 *    exists; root): mark the resident pages idle, which also clears their
 *    young bits, and count those no longer idle at the end, plus pages
 *    that were not resident at the start.
 *
 * With --ages, each VMA's resident pages at the end of the interval by
 * MGLRU generation age (the NUMA files' AGE), beside the count: what the
 * process touched, and how cold the rest has grown.  The text method reads
 * them in the same read (its NUMA file); the others read the NUMA text of
 * the first source that has one right after, and match VMAs by start.
 *
 * The wait is a pselect() with SIGINT and SIGTERM unblocked only there, so
 * Ctrl-C ends it at once, without a race, and the interval so far is still
 * read and reported.  Anywhere else (an open() of a FIFO, a read of a
 * stalled file) either signal ends pmaps wss at once, as it would any
 * program that does not catch it.
 */
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "commands.h"
#include "pagemap.h"

#define IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"
/* pagemap entries read at a time */
#define PM_BATCH	4096
/* idle bitmap words read or written at a time: 64 PFNs each */
#define IDLE_WINDOW	512
/* --count at most: far beyond any run, and fits an unsigned long. */
#define MAX_COUNT	1000000000ULL

static const char wss_usage[] =
"Usage: pmaps wss [OPTION]... PID\n"
"       pmaps wss [OPTION]... --cgroup PATH\n"
"Estimate the working set of process PID: the pages it accesses in an\n"
"interval, per VMA and in total, in pages and bytes.  With --cgroup, of\n"
"every process of a cgroup, a row each and the group's total.\n"
"\n"
"  -i, --interval SECONDS  length of each interval, e.g. 0.5 (default 1)\n"
"  -n, --count N           intervals to measure, one after the other\n"
"                          (default 1; 0: until interrupted)\n"
"      --clear-refs        before each interval, write 1 to\n"
"                          /proc/PID/clear_refs: this clears the young and\n"
"                          referenced bits of all of PID's pages, which\n"
"                          reclaim then takes for not recently used, so it\n"
"                          is done only when asked for; needed unless idle\n"
"                          page tracking is available\n"
"      --source=SOURCE     with --clear-refs, where accessed pages are\n"
"                          counted: kernel (/proc/PID/pmaps) or module\n"
"                          (/proc/pmaps_ext/PID), pages young (Y);\n"
"                          pagemap, smaps Referenced (pagemap cannot see\n"
"                          young bits); auto, the first that works (default)\n"
"  -a, --all               list every VMA, not only those with accessed pages\n"
"      --ages              also each VMA's resident pages by MGLRU age at the\n"
"                          end of the interval (Age0 the youngest; Age? the\n"
"                          pages whose age the source cannot tell)\n"
"      --cgroup PATH       every process of cgroup v2 PATH and the cgroups\n"
"                          below it (relative to the cgroup2 mount), one\n"
"                          row each; one that ends during an interval is\n"
"                          counted gone, one that appears is measured from\n"
"                          the next interval\n"
"  -h, --help              show this help and exit\n"
"\n"
"Without --clear-refs, idle page tracking (" IDLE_BITMAP ",\n"
"root) is used: it marks PID's resident pages idle, which clears their\n"
"young bits too.\n"
"\n"
"Exit status: 0 if all went well (also when interrupted), 1 if the process\n"
"could not be read or ended, 2 for bad usage or malformed input.\n";

enum method {
	METHOD_TEXT,	/* clear_refs, then Y or R in kernel or module text */
	METHOD_SMAPS,	/* clear_refs, then smaps Referenced */
	METHOD_IDLE,	/* idle page tracking */
};

struct wss_opts {
	int pid;
	const char *group;		/* --cgroup PATH, as given */
	struct timespec interval;
	unsigned long count;		/* 0: until interrupted */
	bool clear_refs;
	bool all;
	bool ages;			/* --ages */
	enum pmaps_source source;
};

/* One VMA's numbers in one interval, in pages. */
struct vma_count {
	unsigned long long resident, accessed;
	struct pmaps_ages ages;		/* --ages: resident pages by age */
};

/* What one interval found: VMAs and their counts, index for index. */
struct result {
	struct pmaps_map map;
	struct pmaps_doc doc;		/* METHOD_TEXT: map is doc.map */
	struct vma_count *counts;
	unsigned long long untracked;	/* METHOD_IDLE: could not be marked */
};

/* PFNs marked idle at the start of an interval (METHOD_IDLE). */
struct idle_start {
	uint64_t *pfns;			/* ascending, no duplicates */
	unsigned char *tracked;		/* per PFN: its idle bit took */
	size_t nr;
};

/* One resident page at the end of an interval (METHOD_IDLE). */
struct idle_page {
	uint64_t pfn;
	size_t vma;
};

struct wss {
	struct wss_opts o;
	enum method method;
	bool chosen;			/* method settled */
	bool said_method;		/* --cgroup: the first line printed */
	char group_dir[4096];		/* --cgroup: its directory */
	char label[80];
	unsigned long long psize;
	int idle_fd;
	struct idle_start start;
	char err[4096];
};

static volatile sig_atomic_t stop_signal, waiting;

/* In the wait: end it and report.  Elsewhere: end, as uncaught. */
static void on_stop_signal(int sig)
{
	stop_signal = sig;
	if (!waiting) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

enum { OPT_CLEAR_REFS = 256, OPT_SOURCE, OPT_CGROUP, OPT_AGES };

static const struct option wss_options[] = {
	{ "interval",	required_argument, NULL, 'i' },
	{ "count",	required_argument, NULL, 'n' },
	{ "clear-refs",	no_argument,	   NULL, OPT_CLEAR_REFS },
	{ "source",	required_argument, NULL, OPT_SOURCE },
	{ "all",	no_argument,	   NULL, 'a' },
	{ "ages",	no_argument,	   NULL, OPT_AGES },
	{ "cgroup",	required_argument, NULL, OPT_CGROUP },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_wss_options = {
	.shortopts = "i:n:ah",
	.longopts = wss_options,
};

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct wss_opts *o)
{
	static char prog_name[] = "pmaps wss";
	unsigned long long count;
	int opt;

	argv[0] = prog_name;	/* getopt_long's messages name it */
	o->interval.tv_sec = 1;
	o->count = 1;
	o->source = PMAPS_SRC_AUTO;
	while ((opt = getopt_long(argc, argv, pmaps_wss_options.shortopts,
				  wss_options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (pmaps_interval_parse("wss", optarg, &o->interval))
				return PMAPS_ERR_INPUT;
			break;
		case 'n':
			if (!pmaps_number_parse(optarg, 0, MAX_COUNT, &count))
				return pmaps_cmd_usage_error("wss",
					"--count: expected a number of intervals, got '%s'",
					optarg);
			o->count = (unsigned long)count;
			break;
		case OPT_CLEAR_REFS:
			o->clear_refs = true;
			break;
		case OPT_SOURCE:
			if (pmaps_source_parse(optarg, &o->source) ||
			    o->source == PMAPS_SRC_FILE)
				return pmaps_cmd_usage_error("wss",
					"--source: expected auto, kernel, module or pagemap, got '%s'",
					optarg);
			break;
		case 'a':
			o->all = true;
			break;
		case OPT_AGES:
			o->ages = true;
			break;
		case OPT_CGROUP:
			if (o->group)
				return pmaps_cmd_usage_error("wss",
					"--cgroup %s and --cgroup %s cannot be combined: expected one group",
					o->group, optarg);
			o->group = optarg;
			break;
		case 'h':
			fputs(wss_usage, stdout);
			return PMAPS_OK;
		default:
			/* getopt_long has said what was wrong */
			return pmaps_cmd_usage_hint("wss");
		}
	}
	if (o->group) {
		if (optind != argc)
			return pmaps_cmd_usage_error("wss",
				"expected --cgroup PATH alone, without a PID, got '%s'",
				argv[optind]);
		if (o->all || o->ages)
			return pmaps_cmd_usage_error("wss",
				"--%s lists VMAs, and --cgroup shows a row per process: expected one of them",
				o->all ? "all" : "ages");
		return -1;
	}
	if (optind == argc)
		return pmaps_cmd_usage_error("wss",
					     "expected a PID or --cgroup PATH");
	if (optind != argc - 1)
		return pmaps_cmd_usage_error("wss",
					     "expected one PID, got '%s' too",
					     argv[argc - 1]);
	if (!pmaps_parse_pid(argv[optind], &o->pid))
		return pmaps_cmd_usage_error("wss", "expected a PID, got '%s'",
					     argv[optind]);
	o->pid = pmaps_cmd_tgid("wss", o->pid);
	return -1;
}

/*
 * Every step on one process puts its message in w->err for the caller,
 * which says nothing when that process has just ended in a --cgroup run.
 */
__attribute__((format(printf, 2, 3)))
static int target_fail(struct wss *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return PMAPS_ERR_TARGET;
}

/*
 * Say w->err, unless w's process is a member of a --cgroup run that has
 * just ended, which is no error.  False in that case.
 */
static bool report_unless_gone(struct wss *w)
{
	if (w->o.group && pmaps_pid_gone(w->o.pid))
		return false;
	pmaps_cmd_report("wss", w->err);
	return true;
}

/* ---- clear_refs ---- */

static int clear_refs(struct wss *w)
{
	char path[64];
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/clear_refs", w->o.pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, "1", 1) == 1) {
		close(fd);
		return 0;
	}
	e = errno;
	if (fd >= 0)
		close(fd);
	if (e == ENOENT || e == ESRCH)
		return target_fail(w, "no process %d", w->o.pid);
	return target_fail(w, "%s: %s%s", path, strerror(e),
			   e == EACCES || e == EPERM ?
			   " (only the process's owner or root may write it)" :
			   "");
}

/* ---- reading what was accessed ---- */

static void result_free(struct result *r)
{
	if (r->doc.text || r->doc.map.vmas)
		pmaps_doc_free(&r->doc);
	else
		pmaps_map_free(&r->map);
	free(r->counts);
	memset(r, 0, sizeof(*r));
}

static int alloc_counts(struct wss *w, struct result *r)
{
	r->counts = calloc(r->map.nr_vmas ? r->map.nr_vmas : 1,
			   sizeof(*r->counts));
	if (!r->counts)
		return target_fail(w, "out of memory");
	return PMAPS_OK;
}

/* Pages young in the kernel's or the module's text. */
static int read_text(struct wss *w, struct result *r)
{
	/*
	 * Only Y: it belongs to this process's pte.  R belongs to the page,
	 * and any process that faults in or reads a shared page (every exec
	 * does so to libc) sets it.
	 */
	const unsigned int accessed = 1u << PMAPS_YOUNG;
	enum pmaps_status st;
	size_t i, j;

	/* the caller reports w->err: auto tries sources quietly */
	st = pmaps_load_pid(w->o.pid, w->o.source, &r->doc, w->err,
			    sizeof(w->err));
	if (st)
		return st;
	r->map = r->doc.map;
	if (alloc_counts(w, r))
		return PMAPS_ERR_TARGET;
	for (i = 0; i < r->map.nr_vmas; i++) {
		const struct pmaps_vma *v = &r->map.vmas[i];

		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *g = &v->ranges[j];

			/*
			 * Withheld from a reader who may read the process but
			 * not attach to it: no count can be made of it.
			 */
			if (g->unknown & accessed)
				return target_fail(w,
					"%s withholds Y from this reader, who may read process %d but not attach to it (ptrace); --source=pagemap measures with smaps Referenced",
					pmaps_source_name(w->o.source),
					w->o.pid);
			r->counts[i].resident += g->count;
			if (w->o.ages)
				pmaps_ages_add(&r->counts[i].ages, g);
			if (g->flags & accessed)
				r->counts[i].accessed += g->count;
		}
	}
	return PMAPS_OK;
}

/* smaps Referenced: pte young, page young or PG_referenced, per VMA. */
static int read_smaps(struct wss *w, struct result *r)
{
	struct pmaps_smaps_vma *stats;
	struct stat st;
	char path[64];
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d", w->o.pid);
	if (stat(path, &st))
		return target_fail(w, "no process %d", w->o.pid);
	/* smaps of a zombie is empty: a total of 0, not an error */
	if (pmaps_check_memory(w->o.pid, w->err, sizeof(w->err)) ||
	    pmaps_smaps_read(w->o.pid, &r->map, &stats, w->err,
			     sizeof(w->err)))
		return PMAPS_ERR_TARGET;
	if (alloc_counts(w, r)) {
		free(stats);
		return PMAPS_ERR_TARGET;
	}
	for (i = 0; i < r->map.nr_vmas; i++) {
		r->counts[i].resident = stats[i].rss_kb * 1024 / w->psize;
		r->counts[i].accessed = stats[i].referenced_kb * 1024 /
					w->psize;
	}
	free(stats);
	return PMAPS_OK;
}

/* ---- idle page tracking ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_idle_page(const void *a, const void *b)
{
	return cmp_u64(&((const struct idle_page *)a)->pfn,
		       &((const struct idle_page *)b)->pfn);
}

/*
 * The VMAs of the process and, in *pages, every resident page with its
 * PFN and VMA, sorted by PFN.  VMAs without struct pages (pf, io) are left
 * out, as the pagemap source does, and so are hugetlb pages, which smaps
 * leaves out of Rss and idle tracking cannot mark (they are on no LRU
 * list); the shared zero page cannot be marked idle either, and so counts
 * as untracked.
 */
static int idle_scan(struct wss *w, struct result *r, struct idle_page **pages,
		     size_t *nr)
{
	struct pmaps_smaps_vma *stats = NULL;
	struct pmaps_pagemap pm = { .pm_fd = -1, .kpf_fd = -1, .kpc_fd = -1 };
	uint64_t *ent = malloc(PM_BATCH * sizeof(*ent));
	unsigned long long hidden = 0;
	size_t cap = 0, i, k;
	int ret = PMAPS_ERR_TARGET;

	*pages = NULL;
	*nr = 0;
	if (!ent) {
		target_fail(w, "out of memory");
		goto out;
	}
	if (pmaps_smaps_read(w->o.pid, &r->map, &stats, w->err,
			     sizeof(w->err)) ||
	    alloc_counts(w, r) ||
	    pmaps_pagemap_open(&pm, w->o.pid, w->err, sizeof(w->err)))
		goto out;
	for (i = 0; i < r->map.nr_vmas; i++) {
		const struct pmaps_vma *v = &r->map.vmas[i];
		unsigned long long addr;

		/* nothing resident, or no struct pages to mark */
		if (!stats[i].rss_kb || stats[i].no_pages)
			continue;
		for (addr = v->start; addr < v->end;
		     addr += PM_BATCH * w->psize) {
			size_t n = (size_t)((v->end - addr) / w->psize);

			if (n > PM_BATCH)
				n = PM_BATCH;
			if (pmaps_pagemap_read(&pm, addr, ent, n, w->err,
					       sizeof(w->err)))
				goto out;
			for (k = 0; k < n; k++) {
				uint64_t pfn = pmaps_pm_pfn(ent[k]);

				if (!(ent[k] & PMAPS_PM_PRESENT))
					continue;
				if (!pfn) {
					hidden++;
					continue;
				}
				if (*nr == cap &&
				    pmaps_grow_array((void **)pages, &cap,
						     *nr + 1,
						     sizeof(**pages))) {
					target_fail(w, "out of memory");
					goto out;
				}
				(*pages)[*nr].pfn = pfn;
				(*pages)[(*nr)++].vma = i;
				r->counts[i].resident++;
			}
		}
	}
	if (hidden && !*nr) {
		target_fail(w, "/proc/%d/pagemap shows every PFN as 0: idle page tracking needs root (CAP_SYS_ADMIN)",
			    w->o.pid);
		goto out;
	}
	if (*nr)
		qsort(*pages, *nr, sizeof(**pages), cmp_idle_page);
	ret = PMAPS_OK;
out:
	if (ret) {
		free(*pages);
		*pages = NULL;
		*nr = 0;
	}
	if (pm.pm_fd >= 0)
		pmaps_pagemap_close(&pm);
	free(stats);
	free(ent);
	return ret;
}

/*
 * The idle bitmap is 64-bit words, bit n of word k for PFN 64k+n; reads
 * and writes must be whole, aligned words.  A write sets the idle flag of
 * the pages whose bits are 1 (and clears their young bits); a read tells
 * which pages are still idle.  Both go a window of words at a time,
 * starting at the word of pfns[from]; return the index after the last PFN
 * the window holds.
 */
static size_t idle_window(const uint64_t *pfns, size_t from, size_t nr,
			  uint64_t *words, size_t *nr_words)
{
	uint64_t first = pfns[from] / 64;
	size_t i;

	memset(words, 0, IDLE_WINDOW * sizeof(*words));
	*nr_words = 0;
	for (i = from; i < nr && pfns[i] / 64 - first < IDLE_WINDOW; i++) {
		words[pfns[i] / 64 - first] |= 1ULL << (pfns[i] % 64);
		*nr_words = (size_t)(pfns[i] / 64 - first + 1);
	}
	return i;
}

static int idle_io(struct wss *w, bool write_it, uint64_t *words, size_t n,
		   uint64_t first_word)
{
	off_t off = (off_t)(first_word * 8);
	ssize_t done;

	do
		done = write_it ? pwrite(w->idle_fd, words, n * 8, off) :
				  pread(w->idle_fd, words, n * 8, off);
	while (done < 0 && errno == EINTR);
	if (done < 0)
		return target_fail(w, "%s %s: %s", write_it ? "write" : "read",
				   IDLE_BITMAP, strerror(errno));
	/* past the last PFN reads as nothing: no page there is idle */
	if (!write_it && (size_t)done < n * 8)
		memset((char *)words + done, 0, n * 8 - (size_t)done);
	return PMAPS_OK;
}

/*
 * Bit i of (*idle)[i] for pfns[i]: after marking them when mark is set,
 * their idle bits as read.
 */
static int idle_pass(struct wss *w, const uint64_t *pfns, size_t nr,
		     bool mark, unsigned char *idle)
{
	uint64_t words[IDLE_WINDOW];
	size_t i = 0, next, n, k;

	while (i < nr) {
		uint64_t first = pfns[i] / 64;

		next = idle_window(pfns, i, nr, words, &n);
		if (mark && idle_io(w, true, words, n, first))
			return PMAPS_ERR_TARGET;
		if (idle_io(w, false, words, n, first))
			return PMAPS_ERR_TARGET;
		for (k = i; k < next; k++)
			idle[k] = !!(words[pfns[k] / 64 - first] &
				     (1ULL << (pfns[k] % 64)));
		i = next;
	}
	return PMAPS_OK;
}

/* Mark every resident page idle; remember which ones took it. */
static int idle_begin(struct wss *w)
{
	struct result r = { 0 };
	struct idle_page *pages;
	struct idle_start *s = &w->start;
	size_t nr, i, k;
	int ret;

	free(s->pfns);
	free(s->tracked);
	memset(s, 0, sizeof(*s));
	ret = idle_scan(w, &r, &pages, &nr);
	result_free(&r);
	if (ret)
		return ret;
	s->pfns = malloc((nr ? nr : 1) * sizeof(*s->pfns));
	s->tracked = malloc(nr ? nr : 1);
	if (!s->pfns || !s->tracked) {
		free(pages);
		return target_fail(w, "out of memory");
	}
	/* a page mapped twice is one PFN */
	for (i = 0, k = 0; i < nr; i++)
		if (!k || s->pfns[k - 1] != pages[i].pfn)
			s->pfns[k++] = pages[i].pfn;
	s->nr = k;
	free(pages);
	/* a page not on an LRU list cannot be marked: it stays untracked */
	return idle_pass(w, s->pfns, s->nr, true, s->tracked);
}

/*
 * Resident pages that are no longer idle were accessed; so were pages
 * resident now that were not at the start (faulted in, or moved).
 */
static int idle_end(struct wss *w, struct result *r)
{
	const struct idle_start *s = &w->start;
	struct idle_page *pages;
	uint64_t *pfns = NULL;
	unsigned char *idle = NULL;
	size_t nr, i;
	int ret;

	ret = idle_scan(w, r, &pages, &nr);
	if (ret)
		return ret;
	pfns = calloc(nr ? nr : 1, sizeof(*pfns));
	idle = malloc(nr ? nr : 1);
	if (!pfns || !idle) {
		ret = target_fail(w, "out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++)
		pfns[i] = pages[i].pfn;
	ret = idle_pass(w, pfns, nr, false, idle);
	if (ret)
		goto out;
	for (i = 0; i < nr; i++) {
		const uint64_t *at = s->nr ? bsearch(&pfns[i], s->pfns, s->nr,
						     sizeof(*s->pfns),
						     cmp_u64) : NULL;

		if (at && !s->tracked[at - s->pfns])
			r->untracked++;
		else if (!at || !idle[i])
			r->counts[pages[i].vma].accessed++;
	}
out:
	free(pages);
	free(pfns);
	free(idle);
	return ret;
}

/* ---- the method and its description ---- */

static const char *method_text(const struct wss *w)
{
	switch (w->method) {
	case METHOD_TEXT:
		return w->o.source == PMAPS_SRC_KERNEL ?
		       "clear_refs, then pages young in /proc/PID/pmaps (source kernel)" :
		       "clear_refs, then pages young in /proc/pmaps_ext/PID (source module)";
	case METHOD_SMAPS:
		return "clear_refs, then smaps Referenced (source pagemap, which cannot see young bits)";
	default:
		return "idle page tracking: pages no longer idle, or newly resident";
	}
}

/*
 * Settle the method before anything is cleared, so that a source that
 * does not work fails without having changed the target.
 */
static int choose_method(struct wss *w)
{
	static const enum pmaps_source text_sources[] = {
		PMAPS_SRC_KERNEL, PMAPS_SRC_MODULE,
	};
	struct result r = { 0 };
	enum pmaps_source asked = w->o.source;
	struct stat st;
	size_t i;
	int ret;

	if (!w->o.clear_refs) {
		if (asked == PMAPS_SRC_KERNEL || asked == PMAPS_SRC_MODULE)
			return pmaps_cmd_usage_error("wss",
				"--source=%s needs --clear-refs: only clear_refs resets the young bits that source shows",
				pmaps_source_name(asked));
		if (stat(IDLE_BITMAP, &st))
			return pmaps_cmd_usage_error("wss",
				"measuring needs --clear-refs: idle page tracking is not available (%s: %s), and clear_refs changes the target's state (reclaim takes its pages for not recently used)",
				IDLE_BITMAP, strerror(errno));
		if (pmaps_check_memory(w->o.pid, w->err, sizeof(w->err))) {
			report_unless_gone(w);
			return PMAPS_ERR_TARGET;
		}
		w->idle_fd = open(IDLE_BITMAP, O_RDWR | O_CLOEXEC);
		if (w->idle_fd < 0) {
			fprintf(stderr, "pmaps wss: %s: %s%s\n", IDLE_BITMAP,
				strerror(errno), errno == EACCES ?
				" (idle page tracking needs root; --clear-refs works for your own processes)" :
				"");
			return PMAPS_ERR_TARGET;
		}
		w->method = METHOD_IDLE;
		return PMAPS_OK;
	}
	for (i = 0; i < 2; i++) {
		if (asked != PMAPS_SRC_AUTO && asked != text_sources[i])
			continue;
		w->o.source = text_sources[i];
		w->method = METHOD_TEXT;
		ret = read_text(w, &r);
		result_free(&r);
		if (!ret)
			return ret;
		/* found but malformed: a bug to show, not to work around */
		if (asked != PMAPS_SRC_AUTO || ret == PMAPS_ERR_INPUT) {
			report_unless_gone(w);
			return ret;
		}
	}
	w->o.source = PMAPS_SRC_PAGEMAP;
	w->method = METHOD_SMAPS;
	ret = read_smaps(w, &r);
	result_free(&r);
	if (ret)
		report_unless_gone(w);
	return ret;
}

/* ---- one interval ---- */

static struct timespec ts_add(struct timespec a, struct timespec b)
{
	a.tv_sec += b.tv_sec;
	a.tv_nsec += b.tv_nsec;
	if (a.tv_nsec >= 1000000000) {
		a.tv_sec++;
		a.tv_nsec -= 1000000000;
	}
	return a;
}

/* a - b, or 0 if b is later */
static struct timespec ts_sub(struct timespec a, struct timespec b)
{
	struct timespec d = { 0, 0 };

	if (a.tv_sec < b.tv_sec ||
	    (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec))
		return d;
	d.tv_sec = a.tv_sec - b.tv_sec;
	d.tv_nsec = a.tv_nsec - b.tv_nsec;
	if (d.tv_nsec < 0) {
		d.tv_sec--;
		d.tv_nsec += 1000000000;
	}
	return d;
}

/*
 * Sleep until deadline on the monotonic clock, or until SIGINT or SIGTERM,
 * which are blocked except inside pselect(): no signal can slip in between
 * a check and the sleep.  False if a signal ended the wait.
 */
static bool wait_until(struct timespec deadline, const sigset_t *unblocked)
{
	static const struct timespec now_only = { 0, 0 };
	struct timespec now, left;
	sigset_t stops, old;
	bool whole;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &old);
	waiting = 1;
	for (;;) {
		if (stop_signal) {
			whole = false;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = ts_sub(deadline, now);
		if (!left.tv_sec && !left.tv_nsec) {
			whole = true;
			break;
		}
		pselect(0, NULL, NULL, NULL, &left, unblocked);
	}
	/* one that came after pselect() returned ends the wait too */
	if (sigtimedwait(&stops, NULL, &now_only) > 0 && whole) {
		stop_signal = 1;
		whole = false;
	}
	waiting = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return whole;
}

static bool stop_pending(void)
{
	sigset_t pending;

	if (stop_signal)
		return true;
	sigpending(&pending);
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM);
}

static int address_width(const struct pmaps_map *m)
{
	unsigned long long end = m->nr_vmas ? m->vmas[m->nr_vmas - 1].end : 0;
	int w = 8;

	while (w < 16 && end >> (4 * w))
		w++;
	return w;
}

/*
 * --ages: " Age0 ... Age?" columns, the ages shown of all VMAs.  A known
 * age's count is a lower bound where some pages' age is '?', as every
 * total with unknowns is.
 */
static void print_ages(const struct pmaps_ages *a, int shown, int width)
{
	char num[PMAPS_BOUND_LEN];
	int k;

	for (k = 0; k < shown; k++) {
		pmaps_format_bound(num, a->pages[k], a->unknown != 0);
		printf(" %*s", width, num);
	}
	printf(" %*llu", width, a->unknown);
}

static void print_result(const struct wss *w, const struct result *r,
			 unsigned long nr, struct timespec took,
			 bool interrupted)
{
	unsigned long long resident = 0, accessed = 0;
	struct pmaps_ages ages = { { 0 }, 0 };
	int aw = address_width(&r->map), shown = 0, k;
	char name[16];
	size_t i;

	for (i = 0; w->o.ages && i < r->map.nr_vmas; i++)
		pmaps_ages_sum(&ages, &r->counts[i].ages);
	if (w->o.ages)
		shown = pmaps_ages_shown(&ages);
	printf("interval %lu: %lld.%03ld s%s\n", nr, (long long)took.tv_sec,
	       took.tv_nsec / 1000000, interrupted ? " (interrupted)" : "");
	printf("%-*s %-4s %10s %10s %14s", 2 * aw + 1, "START-END",
	       "PERM", "RESIDENT", "ACCESSED", "BYTES");
	for (k = 0; k < shown; k++) {
		snprintf(name, sizeof(name), "AGE%d", k);
		printf(" %12s", name);
	}
	if (w->o.ages)
		printf(" %12s", "AGE?");
	fputs(" NAME\n", stdout);
	for (i = 0; i < r->map.nr_vmas; i++) {
		const struct pmaps_vma *v = &r->map.vmas[i];
		const struct vma_count *c = &r->counts[i];

		resident += c->resident;
		accessed += c->accessed;
		if (!c->accessed && !w->o.all)
			continue;
		printf("%0*llx-%0*llx %.4s %10llu %10llu %14llu", aw,
		       v->start, aw, v->end, v->perms, c->resident,
		       c->accessed, c->accessed * w->psize);
		if (w->o.ages)
			print_ages(&c->ages, shown, 12);
		printf(" %s\n", v->name[0] ? v->name : "[anon]");
	}
	printf("%-*s %-4s %10llu %10llu %14llu", 2 * aw + 1, "total", "",
	       resident, accessed, accessed * w->psize);
	if (w->o.ages)
		print_ages(&ages, shown, 12);
	putchar('\n');
	if (r->untracked)
		printf("untracked: %llu resident %s could not be marked idle (not on an LRU list)\n",
		       r->untracked, r->untracked == 1 ? "page" : "pages");
}

/*
 * --ages for the methods that do not read a text: the NUMA text of the
 * first source that has one (with the pagemap source every AGE is '?'),
 * read right after the count.  A VMA that is not in it, or not the same,
 * has its resident pages at age '?'.
 */
static int count_ages(struct wss *w, struct result *r)
{
	struct pmaps_doc doc = { 0 };
	size_t i, j = 0, k;

	if (pmaps_load_pid(w->o.pid, PMAPS_SRC_AUTO, &doc, w->err,
			   sizeof(w->err)))
		return PMAPS_ERR_TARGET;
	for (i = 0; i < r->map.nr_vmas; i++) {
		const struct pmaps_vma *v = &r->map.vmas[i];
		struct vma_count *c = &r->counts[i];

		while (j < doc.map.nr_vmas && doc.map.vmas[j].end <= v->start)
			j++;
		if (j < doc.map.nr_vmas && doc.map.vmas[j].start == v->start &&
		    doc.map.vmas[j].end == v->end) {
			for (k = 0; k < doc.map.vmas[j].nr_ranges; k++)
				pmaps_ages_add(&c->ages,
					       &doc.map.vmas[j].ranges[k]);
		} else {
			c->ages.unknown += c->resident;
		}
	}
	pmaps_doc_free(&doc);
	return PMAPS_OK;
}

/* Forget what w's process accessed: the start of an interval. */
static int interval_begin(struct wss *w)
{
	return w->method == METHOD_IDLE ? idle_begin(w) : clear_refs(w);
}

/* What w's process accessed since interval_begin(). */
static int interval_end(struct wss *w, struct result *r)
{
	int ret;

	switch (w->method) {
	case METHOD_TEXT:
		return read_text(w, r);
	case METHOD_SMAPS:
		ret = read_smaps(w, r);
		break;
	default:
		ret = idle_end(w, r);
		break;
	}
	return ret || !w->o.ages ? ret : count_ages(w, r);
}

static int write_out(void)
{
	if (fflush(stdout)) {
		fprintf(stderr, "pmaps wss: write error: %s\n",
			strerror(errno));
		return PMAPS_ERR_TARGET;
	}
	return PMAPS_OK;
}

static int one_interval(struct wss *w, unsigned long nr,
			const sigset_t *unblocked)
{
	struct timespec t0, t1;
	struct result r = { 0 };
	bool whole;
	int ret;

	ret = interval_begin(w);
	if (ret) {
		pmaps_cmd_report("wss", w->err);
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	whole = wait_until(ts_add(t0, w->o.interval), unblocked);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ret = interval_end(w, &r);
	if (ret)
		pmaps_cmd_report("wss", w->err);
	if (!ret) {
		if (nr == 1)
			printf("%s: %s\n", w->label, method_text(w));
		else
			putchar('\n');
		print_result(w, &r, nr, ts_sub(t1, t0), !whole);
		ret = write_out();
	}
	result_free(&r);
	return ret;
}

/* ---- --cgroup: every process of a group ---- */

/* One process of the group in one interval. */
struct member {
	struct wss w;			/* the run's settings, for this PID */
	bool gone;			/* ended, or not readable yet */
	unsigned long long resident, accessed;
};

/*
 * Settle the method on the first member that can be read, skipping any
 * that ends meanwhile.  With none left, it stays open for the next
 * interval.
 */
static int group_choose(struct wss *w, const int *pids, int n)
{
	int i, ret;

	for (i = 0; i < n && !w->chosen; i++) {
		w->o.pid = pids[i];
		ret = choose_method(w);
		if (!ret)
			w->chosen = true;
		else if (ret != PMAPS_ERR_TARGET || !pmaps_pid_gone(pids[i]))
			return ret;
	}
	return PMAPS_OK;
}

/* "what: PID PID ...", for the PIDs of a that b does not list. */
static void put_missing(const char *what, const int *a, int na,
			const int *b, int nb)
{
	bool any = false;
	int i, k = 0;

	/* both ascend */
	for (i = 0; i < na; i++) {
		while (k < nb && b[k] < a[i])
			k++;
		if (k < nb && b[k] == a[i])
			continue;
		printf("%s %d", any ? "" : what, a[i]);
		any = true;
	}
	if (any)
		putchar('\n');
}

static void print_group(struct wss *w, const struct member *m, int n,
			unsigned long nr, struct timespec took,
			bool interrupted)
{
	unsigned long long resident = 0, accessed = 0;
	size_t measured = 0;
	int i;
	bool any = false;

	if (!w->said_method) {
		fputs("group ", stdout);
		pmaps_put_name(stdout, w->group_dir);
		printf(": %s\n", w->chosen ? method_text(w) :
		       "no process to measure yet");
		w->said_method = w->chosen;
	} else {
		putchar('\n');
	}
	printf("interval %lu: %lld.%03ld s%s\n", nr, (long long)took.tv_sec,
	       took.tv_nsec / 1000000, interrupted ? " (interrupted)" : "");
	printf("%10s %10s %14s %s\n", "RESIDENT", "ACCESSED", "BYTES",
	       "PROCESS");
	for (i = 0; i < n; i++) {
		if (m[i].gone)
			continue;
		resident += m[i].resident;
		accessed += m[i].accessed;
		measured++;
		printf("%10llu %10llu %14llu ", m[i].resident, m[i].accessed,
		       m[i].accessed * w->psize);
		pmaps_put_name(stdout, m[i].w.label);
		putchar('\n');
	}
	printf("%10llu %10llu %14llu total of %zu process%s\n", resident,
	       accessed, accessed * w->psize, measured,
	       measured == 1 ? "" : "es");
	for (i = 0; i < n; i++) {
		if (!m[i].gone)
			continue;
		printf("%s %d", any ? "" :
		       "gone (ended during the interval, not counted):",
		       m[i].w.o.pid);
		any = true;
	}
	if (any)
		putchar('\n');
}

/*
 * One interval over the group as it is listed at its start.  A member
 * that ends before it is read is gone, and one listed only at the end has
 * appeared: neither has a whole interval to count.
 */
static int group_interval(struct wss *w, unsigned long nr,
			  const sigset_t *unblocked)
{
	struct member *m = NULL;
	struct timespec t0, t1;
	int *pids = NULL, *after = NULL;
	unsigned long long untracked = 0;
	int n, n_after, i;
	bool whole;
	int ret;

	n = pmaps_cgroup_pids(w->group_dir, &pids, w->err, sizeof(w->err));
	if (n < 0) {
		pmaps_cmd_report("wss", w->err);
		return PMAPS_ERR_TARGET;
	}
	ret = group_choose(w, pids, n);
	m = calloc((size_t)n + 1, sizeof(*m));
	if (ret || !m) {
		if (!ret)
			fputs("pmaps wss: out of memory\n", stderr);
		ret = ret ? ret : PMAPS_ERR_TARGET;
		goto out;
	}
	for (i = 0; i < n; i++) {
		m[i].w = *w;
		m[i].w.o.pid = pids[i];
		pmaps_pid_label(m[i].w.label, sizeof(m[i].w.label), pids[i]);
		ret = w->chosen ? interval_begin(&m[i].w) : PMAPS_ERR_TARGET;
		if (ret && w->chosen && report_unless_gone(&m[i].w))
			goto out;
		m[i].gone = ret;
		ret = PMAPS_OK;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	whole = wait_until(ts_add(t0, w->o.interval), unblocked);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < n; i++) {
		struct result r = { 0 };
		size_t k;

		if (!m[i].gone) {
			ret = interval_end(&m[i].w, &r);
			if (ret && report_unless_gone(&m[i].w)) {
				result_free(&r);
				goto out;
			}
			m[i].gone = ret;
			ret = PMAPS_OK;
		}
		if (m[i].gone) {
			result_free(&r);
			continue;
		}
		for (k = 0; k < r.map.nr_vmas; k++) {
			m[i].resident += r.counts[k].resident;
			m[i].accessed += r.counts[k].accessed;
		}
		untracked += r.untracked;
		result_free(&r);
	}
	n_after = pmaps_cgroup_pids(w->group_dir, &after, w->err,
				    sizeof(w->err));
	if (n_after < 0) {
		pmaps_cmd_report("wss", w->err);
		ret = PMAPS_ERR_TARGET;
		goto out;
	}
	print_group(w, m, n, nr, ts_sub(t1, t0), !whole);
	put_missing("appeared (measured from the next interval):", after,
		    n_after, pids, n);
	if (untracked)
		printf("untracked: %llu resident %s could not be marked idle (not on an LRU list)\n",
		       untracked, untracked == 1 ? "page" : "pages");
	ret = write_out();
out:
	for (i = 0; m && i < n; i++) {
		free(m[i].w.start.pfns);
		free(m[i].w.start.tracked);
	}
	free(m);
	free(pids);
	free(after);
	return ret;
}

int pmaps_cmd_wss(int argc, char **argv)
{
	struct wss *w = calloc(1, sizeof(*w));
	struct sigaction sa;
	sigset_t unblocked;
	unsigned long nr;
	int ret;

	if (!w) {
		fputs("pmaps wss: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	w->idle_fd = -1;
	w->psize = pmaps_page_size();
	ret = parse_args(argc, argv, &w->o);
	if (ret >= 0)
		goto out;
	if (w->o.group) {
		/* the method waits for a member to try it on */
		if (pmaps_cgroup_dir(w->o.group, w->group_dir,
				     sizeof(w->group_dir), w->err,
				     sizeof(w->err))) {
			pmaps_cmd_report("wss", w->err);
			ret = PMAPS_ERR_TARGET;
			goto out;
		}
	} else {
		/* AGE is in the NUMA files */
		pmaps_source_numa = w->o.ages;
		ret = choose_method(w);
		if (ret)
			goto out;
		pmaps_pid_label(w->label, sizeof(w->label), w->o.pid);
	}

	/* The first signal ends the wait; a second one the program. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigprocmask(SIG_BLOCK, NULL, &unblocked);
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);

	for (nr = 1; !w->o.count || nr <= w->o.count; nr++) {
		if (stop_pending())
			break;
		ret = w->o.group ? group_interval(w, nr, &unblocked) :
				   one_interval(w, nr, &unblocked);
		if (ret || stop_signal)
			break;
	}
out:
	if (w->idle_fd >= 0)
		close(w->idle_fd);
	free(w->start.pfns);
	free(w->start.tracked);
	free(w);
	return ret;
}
