// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps diff A B: what changed between two saved snapshots, page by page;
 * either may be a PID (digits naming no file), read live as pmaps PID does.
 *
 * Either snapshot is the text format or pmaps --json (schema pmaps/2, or
 * the older pmaps/1), told apart by the first non-blank character ('{' is
 * JSON).  Pages are compared by virtual address.  Ranges are merged as two
 * sorted lists, never expanded into pages, so a snapshot of a million
 * ranges costs what parsing it costs.
 *
 * VMAs are matched by address: VMAs that overlap, in A or B, form one
 * group, which is "the same" when it is one VMA in each with every field
 * of the header equal; otherwise A's VMAs of the group are printed as gone
 * and B's as new (a heap that grew shows its old and its new line).
 * Under the VMA lines of a group come its pages that appeared, disappeared
 * or changed flags or mapcount, each run of pages with the same change
 * on one line.  The output is tab-separated (see the man page):
 *
 *   vma	=|-|+	START-END	PERMS	OFFSET	DEV	INODE	NAME
 *   +	ADDR	PAGES	FLAGS	MAPCOUNT
 *   -	ADDR	PAGES	FLAGS	MAPCOUNT
 *   ~	ADDR	PAGES	OLDFLAGS	NEWFLAGS	OLDMAPCOUNT	NEWMAPCOUNT
 *   summary	KEY	VALUE
 *
 * A '?' (unknown) flag or mapcount is compared as what the snapshot shows:
 * '?' against '?' is no change, '?' against a letter or a count is one,
 * as a reader of the two would see it; but no flag is gained or lost, and
 * no mapcount_changed counted, where either side cannot know it.  What
 * both sides show as '?' for a page in both cannot be seen to change; a
 * note on stderr names it.
 *
 * --ignore-mapcount drops a change of mapcount alone (other processes
 * starting and exiting change a shared library's), as if it were none.
 *
 * Exit status as diff(1): 0 no difference, 1 differences, 2 trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

#define DIFF_SAME	0
#define DIFF_DIFFERENT	1
#define DIFF_TROUBLE	2

static const char diff_usage[] =
"Usage: pmaps diff [OPTION]... A B\n"
"Compare two saved snapshots page by page: pages that appeared,\n"
"disappeared, or changed flags or mapcount, under the VMAs that hold them,\n"
"then a summary.  A and B are in the text format (as saved from\n"
"/proc/pmaps_ext/PID or by pmaps --raw) or JSON (pmaps --json, one\n"
"target); - is standard input.  An argument of digits only that names no\n"
"file is a PID: that process is read now, as pmaps PID reads it, to compare\n"
"a snapshot with the live process (write ./1234 for a file named 1234).\n"
"\n"
"Output, tab-separated:\n"
"  vma  =|-|+  START-END  PERMS  OFFSET  DEV  INODE  NAME\n"
"                        a VMA in both (=), only in A (-), only in B (+)\n"
"  +  ADDR  PAGES  FLAGS  MAPCOUNT      pages that appeared\n"
"  -  ADDR  PAGES  FLAGS  MAPCOUNT      pages that disappeared\n"
"  ~  ADDR  PAGES  OLDFLAGS  NEWFLAGS  OLDMAPCOUNT  NEWMAPCOUNT\n"
"                                      pages whose flags or mapcount changed\n"
"  summary  KEY  VALUE                 totals, last\n"
"\n"
"A flag or mapcount shown as '?' (the source cannot know it, or the kernel\n"
"withheld it) is compared as shown: '?' and '?' are the same, '?' and a\n"
"letter or count differ (~), but count as no flag gained or lost and in no\n"
"mapcount_changed.  Where a page in both shows '?' in both, a change of it\n"
"cannot be seen: a note on standard error names those flags (and mapcount);\n"
"snapshots read without root (pagemap source) know no page state at all.\n"
"\n"
"      --ignore-mapcount  do not report pages whose mapcount alone changed\n"
"                      (other processes mapping a shared library change it);\n"
"                      a page that also changed flags is still shown (~)\n"
"      --page-size N   the page size of the kernel A and B came from, in\n"
"                      bytes (4096 to 65536, or 16K): only for a snapshot\n"
"                      whose text fits more than one; A and B must agree\n"
"      --source=SOURCE  read a PID from auto (default), kernel, module or\n"
"                      pagemap, as pmaps --source does\n"
"      --summary       only the summary lines\n"
"  -h, --help          show this help and exit\n"
"\n"
"Exit status: 0 if the snapshots show the same pages, 1 if they differ,\n"
"2 for trouble (a file that cannot be read, malformed input, bad usage).\n";

/* ---- loading either format, or a live process ---- */

/*
 * A live process, read as pmaps PID reads it, from source.  arg is all
 * digits and no file of that name exists.
 */
static int load_pid(const char *arg, int pid, enum pmaps_source source,
		    struct pmaps_doc *doc)
{
	char err[1024], proc[32];

	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (access(proc, F_OK))
		return pmaps_cmd_usage_error("diff",
			"%s: expected a snapshot file or the PID of a running process, found neither (name a file of that name ./%s)",
			arg, arg);
	if (pmaps_load_pid(pid, source, doc, err, sizeof(err))) {
		pmaps_cmd_report("diff", err);
		pmaps_doc_free(doc);
		return DIFF_TROUBLE;
	}
	return DIFF_SAME;
}

static int load(const char *path, enum pmaps_source source,
		struct pmaps_doc *doc)
{
	struct pmaps_map *map = &doc->map;
	char err[512];
	struct stat st;
	char *text;
	size_t len;
	int ret, pid;

	memset(doc, 0, sizeof(*doc));
	/* digits, and no such file: a PID ("./1234" names the file) */
	if (pmaps_parse_pid(path, &pid) && stat(path, &st) && errno == ENOENT)
		return load_pid(path, pid, source, doc);
	/* Text or JSON: the library tells them apart. */
	ret = pmaps_read_doc_path(path, pmaps_doc_page_size(), &text, &len,
				  map, err, sizeof(err));
	free(text);
	if (ret) {
		pmaps_cmd_report("diff", err);
		pmaps_map_free(map);
		return DIFF_TROUBLE;
	}
	return DIFF_SAME;
}

/* ---- comparing ---- */

/* One page run's state; present false for no page. */
struct state {
	bool present;
	unsigned int flags, unknown;
	long mapcount;
};

enum change { CH_NONE, CH_APPEARED, CH_DISAPPEARED, CH_CHANGED };

/* The run of pages with one change waiting to be printed. */
struct run {
	enum change kind;
	unsigned long long addr, pages;
	struct state a, b;
};

enum {
	S_PAGES_APPEARED, S_PAGES_DISAPPEARED, S_PAGES_CHANGED,
	S_MAPCOUNT_CHANGED, S_VMAS_APPEARED, S_VMAS_DISAPPEARED, S_NR
};
static const char *const summary_names[S_NR] = {
	"pages_appeared", "pages_disappeared", "pages_changed",
	"mapcount_changed", "vmas_appeared", "vmas_disappeared",
};

struct differ {
	const struct pmaps_map *a, *b;
	unsigned long long psize;
	bool summary_only;
	bool ignore_mapcount;	/* a change of mapcount alone is none */
	struct run run;
	/* the VMA lines of the group, printed before its first page line */
	size_t a_from, a_to, b_from, b_to;
	bool group_same, group_shown;
	unsigned long long sum[S_NR];
	unsigned long long gained[PMAPS_NR_FLAGS], lost[PMAPS_NR_FLAGS];
	/* '?' in both A and B for some page in both: changes not seen */
	unsigned int unseen_flags;
	bool unseen_mapcount;
};

static void put_name(const char *s)
{
	for (; *s; s++) {
		const char *esc = *s == '\t' ? "\\t" : *s == '\n' ? "\\n" :
				  *s == '\r' ? "\\r" : *s == '\\' ? "\\\\" :
				  NULL;

		if (esc)
			fputs(esc, stdout);
		else
			putchar(*s);
	}
}

static void vma_line(char kind, const struct pmaps_vma *v)
{
	printf("vma\t%c\t%08llx-%08llx\t%.4s\t%08llx\t%02x:%02x\t%llu\t",
	       kind, v->start, v->end, v->perms, v->offset, v->dev_major,
	       v->dev_minor, v->inode);
	put_name(v->name);
	putchar('\n');
}

static void show_group(struct differ *d)
{
	size_t i;

	if (d->group_shown || d->summary_only)
		return;
	d->group_shown = true;
	if (d->group_same) {
		vma_line('=', &d->b->vmas[d->b_from]);
		return;
	}
	for (i = d->a_from; i < d->a_to; i++)
		vma_line('-', &d->a->vmas[i]);
	for (i = d->b_from; i < d->b_to; i++)
		vma_line('+', &d->b->vmas[i]);
}

static void flush_run(struct differ *d)
{
	struct run *r = &d->run;
	char fa[PMAPS_NR_FLAGS + 1], fb[PMAPS_NR_FLAGS + 1];
	char ma[PMAPS_MAPCOUNT_LEN], mb[PMAPS_MAPCOUNT_LEN];

	if (r->kind == CH_NONE)
		return;
	show_group(d);
	pmaps_format_flags(r->a.flags, r->a.unknown, fa);
	pmaps_format_flags(r->b.flags, r->b.unknown, fb);
	pmaps_format_mapcount(r->a.mapcount, ma);
	pmaps_format_mapcount(r->b.mapcount, mb);
	if (!d->summary_only) {
		if (r->kind == CH_CHANGED)
			printf("~\t%08llx\t%llu\t%s\t%s\t%s\t%s\n", r->addr,
			       r->pages, fa, fb, ma, mb);
		else if (r->kind == CH_APPEARED)
			printf("+\t%08llx\t%llu\t%s\t%s\n", r->addr,
			       r->pages, fb, mb);
		else
			printf("-\t%08llx\t%llu\t%s\t%s\n", r->addr,
			       r->pages, fa, ma);
	}
	r->kind = CH_NONE;
}

static bool same_state(const struct state *x, const struct state *y)
{
	return x->present == y->present && (!x->present ||
	       (x->flags == y->flags && x->unknown == y->unknown &&
		x->mapcount == y->mapcount));
}

static void count_change(struct differ *d, const struct state *a,
			 const struct state *b, unsigned long long pages)
{
	unsigned int known = ~(a->unknown | b->unknown);
	int f;

	if (!a->present) {
		d->sum[S_PAGES_APPEARED] += pages;
		return;
	}
	if (!b->present) {
		d->sum[S_PAGES_DISAPPEARED] += pages;
		return;
	}
	d->sum[S_PAGES_CHANGED] += pages;
	/* as for flags: a count one side cannot know has not changed */
	if (a->mapcount != b->mapcount &&
	    a->mapcount != PMAPS_MAPCOUNT_UNKNOWN &&
	    b->mapcount != PMAPS_MAPCOUNT_UNKNOWN)
		d->sum[S_MAPCOUNT_CHANGED] += pages;
	for (f = 0; f < PMAPS_NR_FLAGS; f++) {
		unsigned int bit = 1u << f;

		if (!(known & bit))
			continue;
		if (!(a->flags & bit) && (b->flags & bit))
			d->gained[f] += pages;
		else if ((a->flags & bit) && !(b->flags & bit))
			d->lost[f] += pages;
	}
}

/* Present in both with the same flags, whatever the mapcount. */
static bool same_flags(const struct state *x, const struct state *y)
{
	return x->present && y->present && x->flags == y->flags &&
	       x->unknown == y->unknown;
}

/* Pages [addr, addr + pages) are in state a in A and b in B. */
static void segment(struct differ *d, unsigned long long addr,
		    unsigned long long pages, const struct state *a,
		    const struct state *b)
{
	struct run *r = &d->run;
	enum change kind;

	if (same_state(a, b) || (d->ignore_mapcount && same_flags(a, b)))
		return;
	kind = !a->present ? CH_APPEARED : !b->present ? CH_DISAPPEARED :
	       CH_CHANGED;
	count_change(d, a, b, pages);
	if (r->kind == kind && r->addr + r->pages * d->psize == addr &&
	    same_state(&r->a, a) && same_state(&r->b, b)) {
		r->pages += pages;
		return;
	}
	flush_run(d);
	r->kind = kind;
	r->addr = addr;
	r->pages = pages;
	r->a = *a;
	r->b = *b;
}

/* The ranges of VMAs [from, to) of a map, in address order. */
struct cursor {
	const struct pmaps_map *map;
	size_t vma, to, range;
	unsigned long long start, end;	/* what is left of the range */
	struct state st;
};

static void cursor_load(struct cursor *c, unsigned long long psize)
{
	while (c->vma < c->to) {
		const struct pmaps_vma *v = &c->map->vmas[c->vma];

		if (c->range < v->nr_ranges) {
			const struct pmaps_range *r = &v->ranges[c->range];

			c->start = pmaps_range_addr(v, r);
			c->end = c->start + r->count * psize;
			c->st.present = true;
			c->st.flags = r->flags;
			c->st.unknown = r->unknown;
			c->st.mapcount = r->mapcount;
			return;
		}
		c->vma++;
		c->range = 0;
	}
	c->start = c->end = ULLONG_MAX;
}

static void cursor_advance(struct cursor *c, unsigned long long to,
			   unsigned long long psize)
{
	c->start = to;
	if (to >= c->end) {
		c->range++;
		cursor_load(c, psize);
	}
}

/* Merge the ranges of the group's A and B VMAs by address. */
static void compare_group(struct differ *d)
{
	struct cursor a = { d->a, d->a_from, d->a_to, 0, 0, 0, { 0 } };
	struct cursor b = { d->b, d->b_from, d->b_to, 0, 0, 0, { 0 } };
	const struct state none = { false, 0, 0, 0 };
	unsigned long long to;

	cursor_load(&a, d->psize);
	cursor_load(&b, d->psize);
	while (a.start != ULLONG_MAX || b.start != ULLONG_MAX) {
		if (a.start < b.start) {
			to = a.end < b.start ? a.end : b.start;
			segment(d, a.start, (to - a.start) / d->psize, &a.st,
				&none);
			cursor_advance(&a, to, d->psize);
		} else if (b.start < a.start) {
			to = b.end < a.start ? b.end : a.start;
			segment(d, b.start, (to - b.start) / d->psize, &none,
				&b.st);
			cursor_advance(&b, to, d->psize);
		} else {
			to = a.end < b.end ? a.end : b.end;
			d->unseen_flags |= a.st.unknown & b.st.unknown;
			if (!d->ignore_mapcount &&
			    a.st.mapcount == PMAPS_MAPCOUNT_UNKNOWN &&
			    b.st.mapcount == PMAPS_MAPCOUNT_UNKNOWN)
				d->unseen_mapcount = true;
			segment(d, a.start, (to - a.start) / d->psize, &a.st,
				&b.st);
			cursor_advance(&a, to, d->psize);
			cursor_advance(&b, to, d->psize);
		}
	}
	flush_run(d);
}

static bool same_vma(const struct pmaps_vma *x, const struct pmaps_vma *y)
{
	return x->start == y->start && x->end == y->end &&
	       !memcmp(x->perms, y->perms, 4) && x->offset == y->offset &&
	       x->dev_major == y->dev_major && x->dev_minor == y->dev_minor &&
	       x->inode == y->inode && !strcmp(x->name, y->name);
}

/*
 * Groups of VMAs that overlap, A's and B's together, in address order;
 * then the pages of each.
 */
static void compare(struct differ *d)
{
	size_t ia = 0, ib = 0, na = d->a->nr_vmas, nb = d->b->nr_vmas;
	const struct pmaps_vma *va = d->a->vmas, *vb = d->b->vmas;

	while (ia < na || ib < nb) {
		unsigned long long end;
		bool grew = true;

		d->a_from = ia;
		d->b_from = ib;
		if (ib >= nb || (ia < na && va[ia].start <= vb[ib].start))
			end = va[ia++].end;
		else
			end = vb[ib++].end;
		while (grew) {
			grew = false;
			for (; ia < na && va[ia].start < end; ia++, grew = true)
				end = va[ia].end > end ? va[ia].end : end;
			for (; ib < nb && vb[ib].start < end; ib++, grew = true)
				end = vb[ib].end > end ? vb[ib].end : end;
		}
		d->a_to = ia;
		d->b_to = ib;
		d->group_same = ia - d->a_from == 1 && ib - d->b_from == 1 &&
				same_vma(&va[d->a_from], &vb[d->b_from]);
		d->group_shown = false;
		if (!d->group_same) {
			d->sum[S_VMAS_DISAPPEARED] += ia - d->a_from;
			d->sum[S_VMAS_APPEARED] += ib - d->b_from;
			show_group(d);
		}
		compare_group(d);
	}
}

static void print_summary(const struct differ *d)
{
	int i;

	for (i = 0; i < S_NR; i++)
		printf("summary\t%s\t%llu\n", summary_names[i], d->sum[i]);
	/* 14 lines of 0 would hide the ones that say something */
	for (i = 0; i < PMAPS_NR_FLAGS; i++) {
		if (d->gained[i])
			printf("summary\t%s_gained\t%llu\n",
			       pmaps_flag_names[i], d->gained[i]);
		if (d->lost[i])
			printf("summary\t%s_lost\t%llu\n",
			       pmaps_flag_names[i], d->lost[i]);
	}
}

/*
 * What neither snapshot knows of a page in both, so that no change of it
 * could be seen (a snapshot read without root knows no page state): a
 * note on stderr, after the output, which stays as scripts read it.
 */
static void note_unseen(const struct differ *d)
{
	const char *sep = "";
	int i;

	if (!d->unseen_flags && !d->unseen_mapcount)
		return;
	fputs("pmaps diff: note: '?' (not known) in both A and B for some pages, so their changes cannot be seen:",
	      stderr);
	for (i = 0; i < PMAPS_NR_FLAGS; i++) {
		if (d->unseen_flags & (1u << i)) {
			fprintf(stderr, "%s %s", sep, pmaps_flag_names[i]);
			sep = ",";
		}
	}
	if (d->unseen_mapcount)
		fprintf(stderr, "%s mapcount", sep);
	fputc('\n', stderr);
}

static const struct option diff_options[] = {
	{ "summary",	no_argument, NULL, 's' },
	{ "ignore-mapcount", no_argument, NULL, 'm' },
	{ "source",	required_argument, NULL, 'S' },
	PMAPS_PAGE_SIZE_OPTION,
	{ "help",	no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_diff_options = {
	.shortopts = "h",
	.longopts = diff_options,
};

int pmaps_cmd_diff(int argc, char **argv)
{
	static char prog_name[] = "pmaps diff";
	enum pmaps_source source = PMAPS_SRC_AUTO;
	struct pmaps_doc a, b;
	struct differ d;
	int opt, ret, i;

	memset(&d, 0, sizeof(d));
	argv[0] = prog_name;	/* getopt_long's messages name it */
	while ((opt = getopt_long(argc, argv, pmaps_diff_options.shortopts,
				  diff_options, NULL)) != -1) {
		if (opt == 'h') {
			fputs(diff_usage, stdout);
			return DIFF_SAME;
		}
		if (opt == 'm') {
			d.ignore_mapcount = true;
			continue;
		}
		if (opt == PMAPS_OPT_PAGE_SIZE) {
			ret = pmaps_page_size_option("diff", optarg);
			if (ret)
				return ret;
			continue;
		}
		if (opt == 'S') {
			if (pmaps_source_parse(optarg, &source) ||
			    source == PMAPS_SRC_FILE)
				return pmaps_cmd_usage_error("diff",
					"--source: expected auto, kernel, module or pagemap, got '%s'",
					optarg);
			continue;
		}
		if (opt != 's') {
			/* getopt_long has said what was wrong */
			pmaps_cmd_usage_hint("diff");
			return DIFF_TROUBLE;
		}
		d.summary_only = true;
	}
	if (argc - optind != 2)
		return pmaps_cmd_usage_error("diff",
					     "expected two snapshots A B, got %d",
					     argc - optind);
	ret = load(argv[optind], source, &a);
	if (ret)
		return ret;
	ret = load(argv[optind + 1], source, &b);
	if (ret) {
		pmaps_doc_free(&a);
		return ret;
	}
	d.a = &a.map;
	d.b = &b.map;
	/* a page of one kernel is not a page of another */
	d.psize = pmaps_map_page_size(&a.map);
	if (pmaps_map_page_size(&b.map) != d.psize) {
		char err[1200];

		snprintf(err, sizeof(err),
			 "pmaps: %s: expected pages of %llu bytes as in %s, got pages of %llu bytes",
			 argv[optind + 1], d.psize, argv[optind],
			 pmaps_map_page_size(&b.map));
		pmaps_cmd_report("diff", err);
		pmaps_doc_free(&a);
		pmaps_doc_free(&b);
		return DIFF_TROUBLE;
	}
	compare(&d);
	print_summary(&d);
	note_unseen(&d);
	ret = DIFF_SAME;
	for (i = 0; i < S_NR; i++)
		if (d.sum[i])
			ret = DIFF_DIFFERENT;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmaps diff: write error: %s\n",
			strerror(errno));
		ret = DIFF_TROUBLE;
	}
	pmaps_doc_free(&a);
	pmaps_doc_free(&b);
	return ret;
}
