// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps export --openmetrics [--cgroup PATH | PID...]: the page state of
 * processes as OpenMetrics text (issue 19), for Prometheus, e.g. through
 * node_exporter's textfile collector, which reads FILE.prom files that
 * -o writes atomically.
 *
 * One gauge family per quantity, in bytes; a sample per process and kind
 * of mapping (lib/kind.h).  Labels stay bounded, as a time series
 * database needs: pid, comm and kind; the file's name only with
 * --file-names; never an address.  A quantity the source cannot know
 * (a '?' flag, swap of kernel text, huge pages unreadable) has no sample:
 * 0 would read as a fact.  Dirty counts P or D, as smaps does; where
 * some pages are neither known dirty nor known clean, pmaps_dirty_bytes
 * has no sample and pmaps_dirty_unknown_bytes says how much that is.
 * PSS and USS (pmaps_pss_add(): smaps' Pss, and its Private_*) likewise:
 * where the kernel withholds some pages' mapcount, pmaps_pss_bytes and
 * pmaps_uss_bytes have no sample and pmaps_mapcount_unknown_bytes says
 * how much that is.
 *
 * Page state per NUMA node, with --numa: the ranges of the NUMA files
 * (or of the pagemap source's move_pages() query) carry a node each.
 * The page-state families (resident, young, dirty, pte-dirty, shared)
 * then get a sample per node, labelled node, and one without the label
 * for ranges whose node is not known ('?'); the per-VMA ones (mapped,
 * swapped, huge) stay per kind, as a VMA has no one node.  Without
 * --numa the output has no node label at all.
 *
 * Resident memory by MGLRU age, where the document has AGE (--numa): one
 * more family, pmaps_age_bytes, per kind with a label age, "0" to "3"
 * (and any older age counted) and "unknown" for '?', which is never
 * counted at a known age; its samples add up to pmaps_resident_bytes.
 *
 * Resident memory by folio, where the document has KB (--numa): one more
 * family, pmaps_folio_bytes, per kind with a label folio, in the words
 * every view uses (pmaps_folio_kind_name(): "small", "mTHP", "thp", ...)
 * and "unknown" for a KB of '?'.  KB alone cannot tell a hugetlb page
 * from a thp of its size: a VMA is "hugetlb" by its page size as
 * pmaps_huge_read() finds it, and where that is not known, a large folio
 * of it is "unknown".  Its samples add up to pmaps_resident_bytes too.
 *
 * The text also parses as the Prometheus text format 0.0.4 that
 * node_exporter reads: only gauges, and "# UNIT" and "# EOF" are comments
 * there.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "commands.h"
#include "hugepage.h"
#include "kind.h"
#include "outfile.h"

static const char export_usage[] =
"Usage: pmaps export [--openmetrics] [OPTION]... PID...\n"
"       pmaps export [--openmetrics] [OPTION]... --cgroup PATH\n"
"Print the page state of processes as OpenMetrics text, for Prometheus:\n"
"resident, young, dirty, dirty-unknown, pte-dirty, shared, pss, uss,\n"
"mapcount-unknown, swapped, huge and mapped "
"bytes per process and kind of mapping (anon, file, shmem, stack, heap,\n"
"other), labelled pid, comm and kind.\n"
"\n"
"      --openmetrics     OpenMetrics text (the default, and the only format)\n"
"      --cgroup PATH     every process in cgroup PATH and below it (relative\n"
"                        to the cgroup2 mount); one that ends meanwhile is\n"
"                        skipped\n"
"      --numa            a node label on the resident, young, dirty,\n"
"                        pte-dirty and shared samples, one sample per NUMA\n"
"                        node, from the NUMA files (see pmaps --numa); with\n"
"                        AGE there, pmaps_age_bytes: resident bytes per\n"
"                        kind labelled age, 0 to 3 or unknown; and\n"
"                        pmaps_folio_bytes: resident bytes per kind\n"
"                        labelled folio: small, mTHP, thp, hugetlb, ...\n"
"                        or unknown, as the views name folios\n"
"      --file-names      a file label on file and shmem samples, one sample\n"
"                        per file: as many series as mapped files\n"
"  -o, --output FILE     write a new file beside FILE (.FILE.XXXXXX), then\n"
"                        rename it to FILE, so that a reader never sees half\n"
"                        of it: for node_exporter's textfile collector, FILE\n"
"                        in its directory and named *.prom; an existing FILE\n"
"                        that is not a regular file is not replaced\n"
"      --source=SOURCE   auto, kernel, module or pagemap, as for pmaps\n"
"  -h, --help            show this help and exit\n"
"\n"
"Every process is read before anything is written: when one cannot be,\n"
"nothing is (an existing -o FILE stays as it was).\n"
"\n"
"Exit status: 0 if all went well, 1 if a process could not be read (then\n"
"nothing is written) or the output not written, 2 for bad usage.\n";

enum {
	OPT_OPENMETRICS = 256, OPT_CGROUP, OPT_FILE_NAMES, OPT_NUMA, OPT_SOURCE
};

static const struct option export_options[] = {
	{ "openmetrics", no_argument,	    NULL, OPT_OPENMETRICS },
	{ "cgroup",	 required_argument, NULL, OPT_CGROUP },
	{ "file-names",	 no_argument,	    NULL, OPT_FILE_NAMES },
	{ "numa",	 no_argument,	    NULL, OPT_NUMA },
	{ "output",	 required_argument, NULL, 'o' },
	{ "source",	 required_argument, NULL, OPT_SOURCE },
	{ "help",	 no_argument,	    NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_export_options = {
	.shortopts = "o:h",
	.longopts = export_options,
};

/* The quantities, each a metric family. */
enum quantity {
	Q_RESIDENT, Q_YOUNG, Q_DIRTY, Q_DIRTY_UNKNOWN,		/* per range */
	Q_PTE_DIRTY, Q_SHARED, Q_PSS, Q_USS, Q_MAPCOUNT_UNKNOWN,
	Q_SWAPPED, Q_HUGE, Q_MAPPED,				/* per VMA */
	Q_NR
};
#define Q_PER_RANGE	Q_SWAPPED	/* quantities below it have nodes */

static const struct family {
	const char *name;	/* without the _bytes of its unit */
	const char *help;
} families[Q_NR] = {
	[Q_RESIDENT] = { "pmaps_resident",
		"Resident memory: pages present in RAM." },
	[Q_YOUNG] = { "pmaps_young",
		"Resident memory whose page table entry is young (accessed)." },
	[Q_DIRTY] = { "pmaps_dirty",
		"Resident memory dirty in the page table entry or the page (pte dirty or PG_dirty), as smaps counts it; no sample where pmaps_dirty_unknown_bytes is not 0." },
	[Q_DIRTY_UNKNOWN] = { "pmaps_dirty_unknown",
		"Resident memory not known to be dirty or clean: the source cannot tell." },
	[Q_PTE_DIRTY] = { "pmaps_pte_dirty",
		"Resident memory whose page table entry is dirty, not yet on the page." },
	[Q_SHARED] = { "pmaps_shared",
		"Resident memory mapped more than once." },
	[Q_PSS] = { "pmaps_pss",
		"Proportional set size: resident memory, each page divided by the number of page table entries mapping it, as smaps' Pss; no sample where pmaps_mapcount_unknown_bytes is not 0." },
	[Q_USS] = { "pmaps_uss",
		"Unique set size: resident memory mapped exactly once, as smaps' Private_Clean plus Private_Dirty; no sample where pmaps_mapcount_unknown_bytes is not 0." },
	[Q_MAPCOUNT_UNKNOWN] = { "pmaps_mapcount_unknown",
		"Resident memory whose mapcount the kernel withholds from the reader: neither in pmaps_pss_bytes nor in pmaps_uss_bytes." },
	[Q_SWAPPED] = { "pmaps_swapped",
		"Memory in swap." },
	[Q_HUGE] = { "pmaps_huge",
		"Resident memory in thp folios (PMD-sized) mapped whole at PMD alignment, or in hugetlb pages." },
	[Q_MAPPED] = { "pmaps_mapped",
		"Virtual size of the mappings." },
};

/*
 * One sample's worth of a process: a kind, a node (-1: none) and, with
 * --file-names, a file; bytes per quantity, or unknown.
 */
struct bucket {
	enum pmaps_kind kind;
	int node;
	const char *file;	/* a VMA's name, or NULL */
	unsigned long long bytes[Q_NR];
	unsigned int unknown;	/* bit per quantity */
	size_t nr_ranges;
	struct pmaps_pss pss;	/* bytes[Q_PSS] and [Q_USS] come from it */
	struct pmaps_ages ages;	/* pages; in the buckets of no node */
	/* pages per pmaps_folio_kind, likewise; [UNKNOWN] for '?' */
	unsigned long long folio[PMAPS_FOLIO_HUGE_ZERO + 1];
};

struct proc {
	struct pmaps_doc doc;
	char comm[32];
	struct bucket *buckets;
	size_t nr_buckets, cap_buckets;
	bool has_nodes;		/* some bucket has node >= 0 */
};

struct export_opts {
	const char *cgroup;
	bool file_names;
	const char *output;
	enum pmaps_source source;
	char **pids;		/* the PID arguments */
	int nr_pids;
};

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct export_opts *o)
{
	static char prog_name[] = "pmaps export";
	int opt, i, pid;

	argv[0] = prog_name;	/* getopt_long's messages name it */
	o->source = PMAPS_SRC_AUTO;
	while ((opt = getopt_long(argc, argv, pmaps_export_options.shortopts,
				  export_options, NULL)) != -1) {
		switch (opt) {
		case OPT_OPENMETRICS:
			break;
		case OPT_CGROUP:
			if (o->cgroup)
				return pmaps_cmd_usage_error("export",
					"--cgroup %s and --cgroup %s cannot be combined: one group at a time",
					o->cgroup, optarg);
			o->cgroup = optarg;
			break;
		case OPT_FILE_NAMES:
			o->file_names = true;
			break;
		case OPT_NUMA:
			/* every source reads what the NUMA files say */
			pmaps_source_numa = true;
			break;
		case 'o':
			if (!optarg[0])
				return pmaps_cmd_usage_error("export",
					"--output: expected a file name, got ''");
			o->output = optarg;
			break;
		case OPT_SOURCE:
			if (pmaps_source_parse(optarg, &o->source) ||
			    o->source == PMAPS_SRC_FILE)
				return pmaps_cmd_usage_error("export",
					"--source: expected auto, kernel, module or pagemap, got '%s'",
					optarg);
			break;
		case 'h':
			fputs(export_usage, stdout);
			return PMAPS_OK;
		default:
			/* getopt_long has said what was wrong */
			return pmaps_cmd_usage_hint("export");
		}
	}
	o->pids = argv + optind;
	o->nr_pids = argc - optind;
	if (o->cgroup && o->nr_pids)
		return pmaps_cmd_usage_error("export",
			"--cgroup and PID arguments cannot be combined, got '%s'",
			argv[optind]);
	if (!o->cgroup && !o->nr_pids)
		return pmaps_cmd_usage_error("export",
					     "expected a PID or --cgroup PATH");
	for (i = 0; i < o->nr_pids; i++)
		if (!pmaps_parse_pid(o->pids[i], &pid))
			return pmaps_cmd_usage_error("export",
				"expected a PID, got '%s'", o->pids[i]);
	return -1;
}

/* The NUMA node of range r, or -1 when not known or not asked for. */
static int range_node(const struct pmaps_range *r)
{
	return r->node < 0 || r->node > INT_MAX ? -1 : (int)r->node;
}

static bool same_file(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The bucket of (kind, node, file), added if new; NULL: out of memory. */
static struct bucket *bucket_of(struct proc *p, enum pmaps_kind kind,
				int node, const char *file)
{
	struct bucket *b;
	size_t i;

	for (i = p->nr_buckets; i-- > 0;) {
		b = &p->buckets[i];
		if (b->kind == kind && b->node == node &&
		    same_file(b->file, file))
			return b;
	}
	if (pmaps_grow_array((void **)&p->buckets, &p->cap_buckets,
			     p->nr_buckets + 1, sizeof(*p->buckets)))
		return NULL;
	b = &p->buckets[p->nr_buckets++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->node = node;
	b->file = file;
	if (node >= 0)
		p->has_nodes = true;
	return b;
}

static void count_range(struct bucket *b, const struct pmaps_range *r,
			unsigned long long psize)
{
	static const struct { enum quantity q; int flag; } by_flag[] = {
		{ Q_YOUNG, PMAPS_YOUNG },
		{ Q_PTE_DIRTY, PMAPS_PTE_DIRTY },
	};
	unsigned long long bytes = r->count * psize;
	size_t i;

	b->nr_ranges++;
	b->bytes[Q_RESIDENT] += bytes;
	for (i = 0; i < sizeof(by_flag) / sizeof(by_flag[0]); i++) {
		unsigned int bit = 1u << by_flag[i].flag;

		if (r->unknown & bit)
			b->unknown |= 1u << by_flag[i].q;
		else if (r->flags & bit)
			b->bytes[by_flag[i].q] += bytes;
	}
	switch (pmaps_range_dirtiness(r)) {
	case PMAPS_DIRTY_SET:
		b->bytes[Q_DIRTY] += bytes;
		break;
	case PMAPS_DIRTY_UNKNOWN:
		/* the dirty total would be a lower bound: no sample */
		b->unknown |= 1u << Q_DIRTY;
		b->bytes[Q_DIRTY_UNKNOWN] += bytes;
		break;
	case PMAPS_CLEAN:
		break;
	}
	if (r->mapcount == PMAPS_MAPCOUNT_UNKNOWN)
		b->unknown |= 1u << Q_SHARED | 1u << Q_PSS | 1u << Q_USS;
	else if (r->mapcount > 1)
		b->bytes[Q_SHARED] += bytes;
	/* PSS summed in fixed point, as smaps does, rounded once */
	pmaps_pss_add(&b->pss, r, psize);
	b->bytes[Q_PSS] = pmaps_pss_bytes(&b->pss);
	b->bytes[Q_USS] = b->pss.uss;
	b->bytes[Q_MAPCOUNT_UNKNOWN] = b->pss.unknown * psize;
}

/* Kind, then file, then node: the same order in every run. */
static int bucket_cmp(const void *x, const void *y)
{
	const struct bucket *a = x, *b = y;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (!same_file(a->file, b->file)) {
		if (!a->file || !b->file)
			return a->file ? 1 : -1;
		c = strcmp(a->file, b->file);
		if (c)
			return c;
	}
	return (a->node > b->node) - (a->node < b->node);
}

/* The folio kind of r's pages in a VMA that is hugetlb (1), not (0), or -1. */
static enum pmaps_folio_kind folio_of(const struct pmaps_range *r,
				      int hugetlb, unsigned long long psize)
{
	enum pmaps_folio_kind kind = pmaps_folio_kind(r->kb, psize);

	if (hugetlb > 0)
		return PMAPS_FOLIO_HUGETLB;
	if (hugetlb < 0 && kind != PMAPS_FOLIO_BASE)
		return PMAPS_FOLIO_UNKNOWN;
	return kind;
}

/*
 * Sum the document of p into its buckets, in bucket_cmp() order; the huge pages are read from
 * the live process.  0, or -1 when out of memory.
 */
static int count_proc(struct proc *p, bool file_names)
{
	const struct pmaps_map *m = &p->doc.map;
	unsigned long long psize = pmaps_map_page_size(m);
	struct pmaps_huge_vma hv = { 0 };
	struct pmaps_huge hg;
	char err[256];
	bool huge_known;
	size_t i, j;

	huge_known = !pmaps_huge_open(&hg, p->doc.pid, 0, err, sizeof(err));
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];
		enum pmaps_kind kind = pmaps_vma_kind(v);
		const char *file = file_names && (kind == PMAPS_KIND_FILE ||
						  kind == PMAPS_KIND_SHMEM) ?
				   v->name : NULL;
		struct bucket *b = bucket_of(p, kind, -1, file);

		if (!b)
			goto nomem;
		b->bytes[Q_MAPPED] += v->end - v->start;
		if (v->swapped < 0)
			b->unknown |= 1u << Q_SWAPPED;
		else
			b->bytes[Q_SWAPPED] +=
				(unsigned long long)v->swapped * psize;
		/* hugetlb: 1, not: 0, not known: -1 */
		int hugetlb = -1;

		if (huge_known && !pmaps_huge_read(&hg, v->start, v->end, &hv,
						   err, sizeof(err))) {
			b->bytes[Q_HUGE] += hv.huge_bytes;
			hugetlb = hv.page_size > psize;
		} else {
			b->unknown |= 1u << Q_HUGE;
		}
		pmaps_huge_vma_free(&hv);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			int node = range_node(r);
			struct bucket *rb = node < 0 ? b :
					    bucket_of(p, kind, node, file);

			if (!rb)
				goto nomem;
			/* b may have moved with the array */
			b = node < 0 ? rb : bucket_of(p, kind, -1, file);
			count_range(rb, r, psize);
			pmaps_ages_add(&b->ages, r);
			b->folio[folio_of(r, hugetlb, psize)] += r->count;
		}
	}
	if (huge_known)
		pmaps_huge_close(&hg);
	if (p->nr_buckets)
		qsort(p->buckets, p->nr_buckets, sizeof(*p->buckets),
		      bucket_cmp);
	return 0;
nomem:
	if (huge_known)
		pmaps_huge_close(&hg);
	return -1;
}

/* comm from the label "PID (comm)", which pmaps_load_pid() wrote. */
static void label_comm(struct proc *p)
{
	const char *open = strchr(p->doc.label, '(');
	const char *close = strrchr(p->doc.label, ')');
	size_t n;

	p->comm[0] = '\0';
	if (!open || !close || close < open)
		return;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(p->comm))
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, open + 1, n);
	p->comm[n] = '\0';
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* Whether b gives a sample of quantity q; see the top of the file. */
static bool in_family(const struct proc *p, const struct bucket *b,
		      enum quantity q)
{
	if (b->unknown & (1u << q))
		return false;
	if (q >= Q_PER_RANGE)
		return b->node < 0;
	return b->node >= 0 || !p->has_nodes || b->nr_ranges;
}

/*
 * One sample of b: node -1 for no node label; label NULL for no further
 * label, else label="value" (age, folio).
 */
static void put_sample(FILE *out, const char *name, const struct proc *p,
		       const struct bucket *b, int node, const char *label,
		       const char *value, unsigned long long bytes)
{
	fprintf(out, "%s_bytes{pid=\"%d\",comm=\"", name, p->doc.pid);
	put_label_value(out, p->comm);
	fprintf(out, "\",kind=\"%s\"", pmaps_kind_names[b->kind]);
	if (node >= 0)
		fprintf(out, ",node=\"%d\"", node);
	if (label)
		fprintf(out, ",%s=\"%s\"", label, value);
	if (b->file) {
		fputs(",file=\"", out);
		put_label_value(out, b->file);
		fputc('"', out);
	}
	fprintf(out, "} %llu\n", bytes);
}

static void put_family(FILE *out, enum quantity q, const struct proc *procs,
		       size_t nr)
{
	const struct family *f = &families[q];
	size_t i, j;

	fprintf(out, "# TYPE %s_bytes gauge\n", f->name);
	fprintf(out, "# UNIT %s_bytes bytes\n", f->name);
	fprintf(out, "# HELP %s_bytes %s\n", f->name, f->help);
	for (i = 0; i < nr; i++) {
		const struct proc *p = &procs[i];

		for (j = 0; j < p->nr_buckets; j++) {
			const struct bucket *b = &p->buckets[j];

			if (!in_family(p, b, q))
				continue;
			put_sample(out, f->name, p, b,
				   b->node >= 0 && q < Q_PER_RANGE ? b->node : -1,
				   NULL, NULL, b->bytes[q]);
		}
	}
}

/* pmaps_age_bytes: see the top of the file. */
static void put_age_family(FILE *out, const struct proc *procs, size_t nr)
{
	unsigned long long psize;
	bool any = false;
	char age[16];
	size_t i, j;
	int k;

	for (i = 0; i < nr; i++)
		any |= procs[i].doc.map.numa && procs[i].doc.map.age;
	if (!any)
		return;
	fputs("# TYPE pmaps_age_bytes gauge\n"
	      "# UNIT pmaps_age_bytes bytes\n"
	      "# HELP pmaps_age_bytes Resident memory by MGLRU generation age: 0 the youngest generation, 3 the oldest the kernel keeps, unknown where there is none (classic LRU, off the LRU lists, withheld, the pagemap source).\n",
	      out);
	for (i = 0; i < nr; i++) {
		const struct proc *p = &procs[i];

		if (!p->doc.map.numa || !p->doc.map.age)
			continue;
		psize = pmaps_map_page_size(&p->doc.map);
		for (j = 0; j < p->nr_buckets; j++) {
			const struct bucket *b = &p->buckets[j];

			unsigned long long pages = b->ages.unknown;

			for (k = 0; k <= PMAPS_AGE_MAX; k++)
				pages += b->ages.pages[k];
			/* as pmaps_resident_bytes: no sample without pages */
			if (b->node >= 0 || !pages)
				continue;
			for (k = 0; k < pmaps_ages_shown(&b->ages); k++) {
				snprintf(age, sizeof(age), "%d", k);
				put_sample(out, "pmaps_age", p, b, -1, "age",
					   age, b->ages.pages[k] * psize);
			}
			put_sample(out, "pmaps_age", p, b, -1, "age", "unknown",
				   b->ages.unknown * psize);
		}
	}
}

/* pmaps_folio_bytes: see the top of the file. */
static void put_folio_family(FILE *out, const struct proc *procs, size_t nr)
{
	unsigned long long psize, pages;
	bool any = false;
	size_t i, j;
	int k;

	for (i = 0; i < nr; i++)
		any |= procs[i].doc.map.numa;
	if (!any)
		return;
	fputs("# TYPE pmaps_folio_bytes gauge\n"
	      "# UNIT pmaps_folio_bytes bytes\n"
	      "# HELP pmaps_folio_bytes Resident memory by the size of its folio: small (one page), mTHP (larger, below PMD size), thp (PMD size), pud, folio-other, hugetlb, unknown where the size is not known.\n",
	      out);
	for (i = 0; i < nr; i++) {
		const struct proc *p = &procs[i];

		if (!p->doc.map.numa)
			continue;
		psize = pmaps_map_page_size(&p->doc.map);
		for (j = 0; j < p->nr_buckets; j++) {
			const struct bucket *b = &p->buckets[j];

			for (pages = 0, k = 0; k <= PMAPS_FOLIO_HUGE_ZERO; k++)
				pages += b->folio[k];
			/* as pmaps_resident_bytes: no sample without pages */
			if (b->node >= 0 || !pages)
				continue;
			for (k = 0; k <= PMAPS_FOLIO_HUGE_ZERO; k++) {
				/* the common kinds always, the rarer with pages */
				if (k > PMAPS_FOLIO_THP && !b->folio[k])
					continue;
				put_sample(out, "pmaps_folio", p, b, -1, "folio",
					   k == PMAPS_FOLIO_UNKNOWN ? "unknown" :
					   pmaps_folio_kind_name((enum pmaps_folio_kind)k),
					   b->folio[k] * psize);
			}
		}
	}
}

static void put_openmetrics(FILE *out, const struct proc *procs, size_t nr)
{
	int q;

	for (q = 0; q < Q_NR; q++)
		put_family(out, (enum quantity)q, procs, nr);
	put_age_family(out, procs, nr);
	put_folio_family(out, procs, nr);
	fputs("# EOF\n", out);
}

struct run {
	struct proc *procs;
	size_t nr, cap;
	int status;
};

/* member: a process of --cgroup, which may end before it is read */
static void load(struct run *run, const struct export_opts *o, int pid,
		 bool member)
{
	char err[4096];
	struct proc *p;
	int st;

	if (pmaps_grow_array((void **)&run->procs, &run->cap, run->nr + 1,
			     sizeof(*run->procs))) {
		fputs("pmaps export: out of memory\n", stderr);
		run->status = PMAPS_ERR_TARGET;
		return;
	}
	p = &run->procs[run->nr];
	memset(p, 0, sizeof(*p));
	st = pmaps_load_pid(pid, o->source, &p->doc, err, sizeof(err));
	if (st) {
		if (!(member && st == PMAPS_ERR_TARGET && pmaps_pid_gone(pid))) {
			pmaps_cmd_report("export", err);
			if (st > run->status)
				run->status = st;
		}
		pmaps_doc_free(&p->doc);
		return;
	}
	pmaps_doc_warn(&p->doc);	/* a thread's ID: read as its process */
	label_comm(p);
	run->nr++;
	if (count_proc(p, o->file_names)) {
		fputs("pmaps export: out of memory\n", stderr);
		run->status = PMAPS_ERR_TARGET;
	}
}

static void load_all(struct run *run, const struct export_opts *o)
{
	char dir[4096], err[4400];
	int i, n, pid, *pids;

	if (!o->cgroup) {
		for (i = 0; i < o->nr_pids; i++) {
			pmaps_parse_pid(o->pids[i], &pid);
			load(run, o, pid, false);
		}
		return;
	}
	if (pmaps_cgroup_dir(o->cgroup, dir, sizeof(dir), err, sizeof(err)) ||
	    (n = pmaps_cgroup_pids(dir, &pids, err, sizeof(err))) < 0) {
		pmaps_cmd_report("export", err);
		run->status = PMAPS_ERR_TARGET;
		return;
	}
	for (i = 0; i < n; i++)
		load(run, o, pids[i], true);
	free(pids);
}

/*
 * Write to a new file beside path and rename it to path: node_exporter
 * may read the directory at any moment, and a half-written file would be
 * a scrape error or, worse, half the series missing.  0, or -1 with a
 * message.
 */
static int write_atomically(const char *path, const struct proc *procs,
			    size_t nr)
{
	struct pmaps_outfile o;
	char err[PATH_MAX * 2 + 128];
	FILE *out;

	if (pmaps_outfile_open(&o, path, 0644, err, sizeof(err))) {
		fprintf(stderr, "pmaps export: %s\n", err);
		return -1;
	}
	out = pmaps_outfile_stream(&o);
	if (!out) {
		fprintf(stderr, "pmaps export: %s: %s\n", path,
			strerror(errno));
		pmaps_outfile_abort(&o);
		return -1;
	}
	put_openmetrics(out, procs, nr);
	if (pmaps_outfile_commit(&o, NULL, err, sizeof(err))) {
		fprintf(stderr, "pmaps export: %s\n", err);
		return -1;
	}
	return 0;
}

int pmaps_cmd_export(int argc, char **argv)
{
	struct export_opts o = { 0 };
	struct run run = { 0 };
	size_t i;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	load_all(&run, &o);
	/*
	 * Every target is read before anything is written, and a target
	 * that could not be read writes nothing: a scraper must not take
	 * headers without samples, or some processes without the others,
	 * for the truth (the last complete -o file stays).  A --cgroup
	 * member that ended meanwhile is no failure.
	 */
	if (run.status) {
		fprintf(stderr, "pmaps export: nothing written%s%s\n",
			o.output ? " to " : "", o.output ? o.output : "");
	} else if (o.output) {
		if (write_atomically(o.output, run.procs, run.nr))
			run.status = PMAPS_ERR_TARGET;
	} else {
		put_openmetrics(stdout, run.procs, run.nr);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "pmaps export: write error: %s\n",
				strerror(errno));
			run.status = PMAPS_ERR_TARGET;
		}
	}
	for (i = 0; i < run.nr; i++) {
		pmaps_doc_free(&run.procs[i].doc);
		free(run.procs[i].buckets);
	}
	free(run.procs);
	return run.status;
}
