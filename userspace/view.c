// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps views: how the loaded documents are shown (see cli.h).
 *
 * Output goes through one buffer (struct ob) with hand-written number
 * formatting: a big process has millions of range lines, and a printf()
 * per field would cost more than parsing them.
 *
 * Text views count flags in pages (shown as sizes, or KiB in --summary);
 * a count the source cannot know ('?' flags, shared where a mapcount is
 * '?', swap of kernel text) is "-", never 0.  PSS and USS (smem's, from
 * the mapcounts: pmaps_pss_add()) likewise, a lower bound where some
 * mapcount is '?'.  Sizes are powers of 1024
 * with one decimal, rounded.
 *
 * THP and hugetlb pages and VMA page sizes are not in the text format:
 * for a live process, --summary (Huge, PageSize) and --json read them at
 * view time (hugepage.h); a document from a file shows "-", null.  The
 * word for a page's folio ("thp", "mTHP", ...) is pmaps_folio_kind()'s,
 * from KB or kpageflags; --pages has it as a column, --json as "folio".
 *
 * JSON (--json), schema "pmaps/2", also in Documentation/pmaps-json.rst;
 * "pmaps/3" where the documents have the NUMA columns (--numa): each range
 * then also has "node" and "kb", number or null, and "folio", the kind's
 * word (pmaps_folio_kind_name()) or null; "pmaps/4" where one has AGE
 * too: each range of such a document also has "age", number or null.
 * One document for the whole run:
 *
 *   {"schema": "pmaps/2",
 *    "targets": [			one per process or file, in order
 *     {"label": "1234 (nginx)",	string
 *      "pid": 1234,			0 for a file
 *      "source": "kernel",		kernel, module, pagemap or file
 *      "page_size": 4096,		bytes of a page of the kernel the
 *					document came from, which index
 *					and count count in
 *      "pss": 4096,			bytes, rounded down, of the pages
 *      "uss": 4096,			of known mapcount, and the pages of
 *      "mapcount_unknown": 0,		mapcount null (pmaps_pss_add());
 *					the VMAs have the same three
 *      "vmas": [			in address order
 *       {"start": "0x400000",		hex string, as 64-bit values do
 *        "end": "0x401000",		not survive a double; end exclusive
 *        "perms": "r--p",
 *        "offset": 0,			file offset in bytes
 *        "dev": "00:02",		as in /proc/PID/maps
 *        "inode": 13,
 *        "name": "/bin/demo",		"" for anonymous memory
 *        "swapped": 0,			pages in swap; null when unknown
 *        "page_size": 4096,		bytes, read from the live process
 *					at view time; null for a file or
 *					when it cannot be read
 *        "huge": 0,			pages (of the base size, as count)
 *					in thp folios mapped whole at PMD
 *					alignment or hugetlb pages, read as
 *					page_size; null likewise
 *        "ranges": [
 *         {"index": 0,			as in the text format
 *          "count": 1,
 *          "address": "0x400000",	virtual address of the first page
 *          "flags": "YR_U_D_",		the text format's 7 letters, '?'
 *					for a flag the source cannot know
 *          "mapcount": 1,		null where the text has '?'
 *          "pss": 4096,			bytes: count pages / mapcount,
 *          "uss": 4096}]}]}]}		and those mapped once; both null
 *					where the mapcount is
 *
 * Strings are the bytes of the input with '"', '\' and control characters
 * escaped (\n, \t, ..., else \u00XX); other bytes, UTF-8 or not, pass
 * through unchanged.  Readers must ignore members they do not know: later
 * versions of pmaps/2 may add some; a change of type or meaning gets a new
 * schema.  pmaps/2 is pmaps/1 with mapcount also null: a pmaps/1 reader
 * would have taken it for a number.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hugepage.h"
#include "pagemap.h"

#define OB_SIZE		65536
/* Room a range or page line needs at most, names and colour aside. */
#define LINE_MAX_LEN	320
/* pagemap entries read at a time by the page views */
#define PM_ENTRIES	65536

#define SGR_BOLD	"\033[1m"
#define SGR_DIRTY	"\033[31m"	/* red: dirty, pte dirty */
#define SGR_WB		"\033[33m"	/* yellow: writeback */
#define SGR_SHARED	"\033[36m"	/* cyan: mapcount > 1 */
#define SGR_RESET	"\033[0m"

/* Output buffer; an error sticks and is reported at the end. */
struct ob {
	FILE *f;
	size_t len;
	int err;
	char buf[OB_SIZE];
};

static void ob_flush(struct ob *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->err = errno ? errno : EIO;
	o->len = 0;
}

/* A pointer with at least n (<= OB_SIZE) bytes free behind it. */
static char *ob_room(struct ob *o, size_t n)
{
	if (o->len + n > OB_SIZE)
		ob_flush(o);
	return o->buf + o->len;
}

static void ob_mem(struct ob *o, const void *s, size_t n)
{
	if (n > OB_SIZE / 2) {
		ob_flush(o);
		if (!o->err && fwrite(s, 1, n, o->f) != n)
			o->err = errno ? errno : EIO;
		return;
	}
	memcpy(ob_room(o, n), s, n);
	o->len += n;
}

static void ob_str(struct ob *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static void ob_ch(struct ob *o, char ch)
{
	*ob_room(o, 1) = ch;
	o->len++;
}

static void ob_spaces(struct ob *o, size_t n)
{
	while (n--)
		ob_ch(o, ' ');
}

__attribute__((format(printf, 2, 3)))
static void ob_fmt(struct ob *o, const char *fmt, ...)
{
	char small[512], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		ob_mem(o, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		o->err = ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ob_mem(o, big, (size_t)n);
	free(big);
}

/* s[0..n) right-aligned in width columns at p. */
static size_t right_align(char *p, const char *s, size_t n, size_t width)
{
	size_t pad = width > n ? width - n : 0;

	memset(p, ' ', pad);
	memcpy(p + pad, s, n);
	return pad + n;
}

/* v right-aligned in width columns. */
static size_t fmt_udec_w(char *p, unsigned long long v, size_t width)
{
	char tmp[24];

	return right_align(p, tmp, pmaps_format_udec(tmp, v), width);
}

/* A mapcount as the text format has it, '?' when unknown, right-aligned. */
static size_t fmt_mapcount_w(char *p, long mapcount, size_t width)
{
	char tmp[PMAPS_MAPCOUNT_LEN];

	return right_align(p, tmp, pmaps_format_mapcount(mapcount, tmp),
			   width);
}

/*
 * The mapcount column of a range or page line: a blank, then the count
 * right-aligned in width.  The blank is always there, so that a mapcount
 * wider than the column (1000 processes mapping libc) never runs into
 * the flags before it.
 */
static size_t fmt_mapcount_col(char *p, long mapcount, size_t width)
{
	*p = ' ';
	return 1 + fmt_mapcount_w(p + 1, mapcount, width);
}

/* Lowercase hex, zero-padded to at least width digits. */
static size_t fmt_hex(char *p, unsigned long long v, int width)
{
	static const char digits[] = "0123456789abcdef";
	int n = 1, i;

	while (n < 16 && v >> (4 * n))
		n++;
	if (n < width)
		n = width;
	for (i = n - 1; i >= 0; i--) {
		p[i] = digits[v & 15];
		v >>= 4;
	}
	return (size_t)n;
}

static int hex_digits(unsigned long long v)
{
	int n = 1;

	while (n < 16 && v >> (4 * n))
		n++;
	return n;
}

/*
 * Split bytes into whole units of 2^shift and tenths, rounded to the
 * nearest tenth.  rem * 10 fits in 64 bits for shift <= 60.
 */
static void tenths(unsigned long long bytes, unsigned int shift,
		   unsigned long long *whole, unsigned int *tenth)
{
	unsigned long long rem, t;

	*whole = shift ? bytes >> shift : bytes;
	rem = shift ? bytes & ((1ULL << shift) - 1) : 0;
	t = shift ? (rem * 10 + (1ULL << (shift - 1))) >> shift : 0;
	if (t == 10) {
		(*whole)++;
		t = 0;
	}
	*tenth = (unsigned int)t;
}

/* "4.0K", "1.5M", "512B", "0": powers of 1024, one decimal. */
static size_t fmt_human(char *p, unsigned long long bytes)
{
	static const char units[] = "BKMGTPE";
	unsigned long long whole;
	unsigned int k = 0, t;
	size_t n;

	if (bytes < 1024) {
		n = pmaps_format_udec(p, bytes);
		if (bytes)
			p[n++] = 'B';
		return n;
	}
	while (k < 6 && bytes >> (10 * (k + 1)))
		k++;
	tenths(bytes, 10 * k, &whole, &t);
	/* 1023.95K rounds up to the next unit */
	if (whole == 1024 && k < 6) {
		k++;
		whole = 1;
		t = 0;
	}
	n = pmaps_format_udec(p, whole);
	p[n++] = '.';
	p[n++] = (char)('0' + t);
	p[n++] = units[k];
	return n;
}

static size_t fmt_human_w(char *p, unsigned long long bytes, size_t width)
{
	char tmp[32];

	return right_align(p, tmp, fmt_human(tmp, bytes), width);
}

/*
 * A folio size of kb KiB as a size ("2.0M"), "?" when unknown; in KiB
 * ("...K") where the bytes would not fit 64 bits.  Room: 32 bytes.
 */
static size_t fmt_folio(char *p, unsigned long long kb)
{
	size_t n;

	if (kb == PMAPS_KB_UNKNOWN) {
		*p = '?';
		return 1;
	}
	if (kb <= ULLONG_MAX >> 10)
		return fmt_human(p, kb << 10);
	n = pmaps_format_udec(p, kb);
	p[n++] = 'K';
	return n;
}

static void ob_udec_w(struct ob *o, unsigned long long v, size_t width)
{
	o->len += fmt_udec_w(ob_room(o, 24 + width), v, width);
}

static void ob_hex(struct ob *o, unsigned long long v, int width)
{
	o->len += fmt_hex(ob_room(o, 16), v, width);
}

static void ob_human(struct ob *o, unsigned long long bytes, size_t width)
{
	o->len += fmt_human_w(ob_room(o, 32 + width), bytes, width);
}

static void ob_sgr(struct ob *o, int color, const char *sgr)
{
	if (color)
		ob_str(o, sgr);
}

/* A name for a terminal: control bytes as \t or \xNN, never raw. */
static void ob_name(struct ob *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p;

	for (; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f)
			continue;
		ob_mem(o, run, (size_t)(p - run));
		if (*p == '\t') {
			ob_str(o, "\\t");
		} else {
			char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };

			ob_mem(o, esc, 4);
		}
		run = p + 1;
	}
	ob_mem(o, run, (size_t)(p - run));
}

/* ---- flags ---- */

/* Comma-separated names, "young?" for unknown, "none"; returns length. */
static size_t fmt_flag_names(char *p, unsigned int flags, unsigned int unknown)
{
	size_t n = 0;
	int i;

	for (i = 0; i < PMAPS_NR_FLAGS; i++) {
		unsigned int bit = 1u << i;
		size_t len;

		if (!((flags | unknown) & bit))
			continue;
		if (n)
			p[n++] = ',';
		len = strlen(pmaps_flag_names[i]);
		memcpy(p + n, pmaps_flag_names[i], len);
		n += len;
		if (unknown & bit)
			p[n++] = '?';
	}
	if (!n) {
		memcpy(p, "none", 4);
		n = 4;
	}
	return n;
}

/* The longest fmt_flag_names() output plus NUL. */
#define FLAG_NAMES_MAX	72

static const char *flag_sgr(int i)
{
	if (i == PMAPS_DIRTY || i == PMAPS_PTE_DIRTY)
		return SGR_DIRTY;
	if (i == PMAPS_WRITEBACK)
		return SGR_WB;
	return NULL;
}

/* ---- counting ---- */

enum count_kind {
	C_RESIDENT, C_YOUNG, C_REFERENCED, C_ACTIVE, C_PTE_DIRTY, C_DIRTY,
	C_WRITEBACK, C_SHARED, C_SWAPPED, C_NR
};

static const char *const count_names[C_NR] = {
	"resident", "young", "referenced", "active", "pte-dirty", "dirty",
	"writeback", "shared", "swapped",
};

/*
 * The counter of each flag bit; uptodate is not counted, and referenced
 * (Y or R) and dirty (P or D) are counted apart, as smaps counts them
 * (count_vma()).
 */
static const int flag_count[PMAPS_NR_FLAGS] = {
	[PMAPS_YOUNG] = C_YOUNG,
	[PMAPS_REFERENCED] = -1,
	[PMAPS_ACTIVE] = C_ACTIVE,
	[PMAPS_UPTODATE] = -1,
	[PMAPS_PTE_DIRTY] = C_PTE_DIRTY,
	[PMAPS_DIRTY] = -1,
	[PMAPS_WRITEBACK] = C_WRITEBACK,
};

/*
 * Pages per kind.  A kind is unknown when any page it would count comes
 * from a source that cannot tell: its count is then only a lower bound,
 * printed as such (PMAPS_AT_LEAST), or "-" when it is 0.
 */
/* Per-node columns (--numa): nodes 0 .. VIEW_NODES - 1, then "N?". */
#define VIEW_NODES	64
#define NODE_OTHER	VIEW_NODES	/* '?', or a node above the columns */

struct counts {
	unsigned long long pages[C_NR];
	unsigned int unknown;		/* bit per enum count_kind */
	unsigned long long mapped;	/* bytes */
	size_t nr_vmas;
	unsigned long long node[VIEW_NODES + 1];	/* resident pages */
	/* pages in thp and mTHP folios by KB (pmaps_folio_kind()) */
	unsigned long long thp, mthp;
	bool folio_unknown;		/* a KB was '?' */
	struct pmaps_pss pss;		/* PSS and USS, from the mapcounts */
};

/* The node column a range counts in. */
static int node_col(const struct pmaps_range *r)
{
	return r->node >= 0 && r->node < VIEW_NODES ? (int)r->node :
	       NODE_OTHER;
}

static void count_vma(struct counts *c, const struct pmaps_vma *v)
{
	/* smaps' Referenced: pte young or PG_referenced (smaps_account()) */
	const unsigned int ref = 1u << PMAPS_YOUNG | 1u << PMAPS_REFERENCED;
	size_t i;
	int f;

	c->nr_vmas++;
	c->mapped += v->end - v->start;
	if (v->swapped < 0)
		c->unknown |= 1u << C_SWAPPED;
	else
		c->pages[C_SWAPPED] += (unsigned long long)v->swapped;
	for (i = 0; i < v->nr_ranges; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		c->pages[C_RESIDENT] += r->count;
		c->node[node_col(r)] += r->count;
		pmaps_pss_add(&c->pss, r, pmaps_vma_page_size(v));
		switch (pmaps_folio_kind(r->kb, pmaps_vma_page_size(v))) {
		case PMAPS_FOLIO_UNKNOWN:
			c->folio_unknown = true;
			break;
		case PMAPS_FOLIO_THP:
			c->thp += r->count;
			break;
		case PMAPS_FOLIO_MTHP:
			c->mthp += r->count;
			break;
		default:
			break;
		}
		if (r->mapcount == PMAPS_MAPCOUNT_UNKNOWN)
			c->unknown |= 1u << C_SHARED;
		else if (r->mapcount > 1)
			c->pages[C_SHARED] += r->count;
		if (r->flags & ~r->unknown & ref)
			c->pages[C_REFERENCED] += r->count;
		else if (r->unknown & ref)
			c->unknown |= 1u << C_REFERENCED;
		for (f = 0; f < PMAPS_NR_FLAGS; f++) {
			if (flag_count[f] < 0)
				continue;
			if (r->unknown & (1u << f))
				c->unknown |= 1u << flag_count[f];
			else if (r->flags & (1u << f))
				c->pages[flag_count[f]] += r->count;
		}
		switch (pmaps_range_dirtiness(r)) {
		case PMAPS_DIRTY_SET:
			c->pages[C_DIRTY] += r->count;
			break;
		case PMAPS_DIRTY_UNKNOWN:
			c->unknown |= 1u << C_DIRTY;
			break;
		case PMAPS_CLEAN:
			break;
		}
	}
}

static void count_add(struct counts *sum, const struct counts *c)
{
	int k;

	for (k = 0; k < C_NR; k++)
		sum->pages[k] += c->pages[k];
	for (k = 0; k <= VIEW_NODES; k++)
		sum->node[k] += c->node[k];
	sum->unknown |= c->unknown;
	sum->thp += c->thp;
	sum->mthp += c->mthp;
	sum->folio_unknown |= c->folio_unknown;
	pmaps_pss_sum(&sum->pss, &c->pss);
	sum->mapped += c->mapped;
	sum->nr_vmas += c->nr_vmas;
}

/*
 * A count v that pages of unknown state may add to (unknown) is a lower
 * bound: it says something only when it is not 0, and is marked
 * PMAPS_AT_LEAST.  Every total, text or column, prints it by these two.
 */
static bool bound_known(unsigned long long v, bool unknown)
{
	return !unknown || v;
}

static const char *bound_mark(bool unknown)
{
	return unknown ? PMAPS_AT_LEAST : "";
}

/* ---- per-document context ---- */

/* One process's totals, for the group's (--cgroup). */
struct group_row {
	struct counts n;
	long long huge_kib;		/* -1: not known */
};

struct vctx {
	struct ob *o;
	const struct pmaps_view_opts *opts;
	const struct pmaps_doc *doc;
	unsigned long long psize;
	int color;
	int aw;			/* hex digits of an address */
	size_t names_w;		/* width of decoded flags, when decoding */
	size_t mapcount_w;	/* width of the document's widest mapcount */
	/* --numa documents: widths of the NODE and folio size columns */
	size_t node_w, folio_w;	/* 0: the document has no NUMA fields */
	size_t age_w;		/* of AGE; 0: the document has no AGE */
	uint64_t *ent;		/* PM_ENTRIES pagemap entries ... */
	unsigned long long ent_addr;	/* ... from this address */
	size_t ent_n;		/* ... this many valid */
	struct pmaps_pagemap pm;
	int have_pm;		/* pm is open */
	char pm_err[256];	/* why not */
	/* THP and hugetlb pages of a live process, read at view time */
	struct pmaps_huge hg;
	int hg_state;		/* 0: not opened yet, 1: open, -1: failed */
	char hg_err[256];	/* why the last read failed */
	struct pmaps_huge_vma hv;	/* of the VMA being shown */
	size_t hv_cursor;
	struct pmaps_folio_cache fc;	/* the folio last measured */
	bool kind_col;		/* --pages: the folio kind column */
	struct group_row *row;	/* --cgroup: the document's totals go here */
	/* --numa: the node columns shown, N0 .. Nnodes-1, and N? if other */
	int nodes;		/* 0: the document has no NUMA data */
	bool node_other;
};

/* Which node columns the document needs: every node it names. */
static void find_nodes(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	size_t i, j;

	c->nodes = 0;
	c->node_other = false;
	if (!m->numa)
		return;
	c->nodes = 1;
	for (i = 0; i < m->nr_vmas; i++)
		for (j = 0; j < m->vmas[i].nr_ranges; j++) {
			int n = node_col(&m->vmas[i].ranges[j]);

			if (n == NODE_OTHER)
				c->node_other = true;
			else if (n >= c->nodes)
				c->nodes = n + 1;
		}
}

/* The NODE, folio size and AGE columns as wide as the document's widest. */
static void numa_widths(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	char buf[32];
	size_t i, j, n;

	c->node_w = c->folio_w = 1;
	c->age_w = m->age ? 1 : 0;
	for (i = 0; i < m->nr_vmas; i++)
		for (j = 0; j < m->vmas[i].nr_ranges; j++) {
			const struct pmaps_range *r = &m->vmas[i].ranges[j];

			n = pmaps_format_node(r->node, buf);
			if (n > c->node_w)
				c->node_w = n;
			n = fmt_folio(buf, r->kb);
			if (n > c->folio_w)
				c->folio_w = n;
			n = pmaps_format_age(r->age, buf);
			if (m->age && n > c->age_w)
				c->age_w = n;
		}
}

/*
 * " NODE FOLIO[ AGE]" after a range's mapcount, '?' where unknown; nothing
 * for a document without NUMA fields.  Room: 64 bytes.
 */
static size_t fmt_numa_cols(const struct vctx *c, char *p,
			    const struct pmaps_range *r)
{
	char tmp[32];
	size_t n = 0;

	if (!c->node_w)
		return 0;
	p[n++] = ' ';
	n += right_align(p + n, tmp, pmaps_format_node(r->node, tmp),
			 c->node_w);
	p[n++] = ' ';
	n += right_align(p + n, tmp, fmt_folio(tmp, r->kb), c->folio_w);
	if (c->age_w) {
		p[n++] = ' ';
		n += right_align(p + n, tmp, pmaps_format_age(r->age, tmp),
				 c->age_w);
	}
	return n;
}

static void put_numa_cols(struct vctx *c, const struct pmaps_range *r)
{
	c->o->len += fmt_numa_cols(c, ob_room(c->o, 64), r);
}

static void ctx_init(struct vctx *c, struct ob *o,
		     const struct pmaps_view_opts *opts,
		     const struct pmaps_doc *doc)
{
	const struct pmaps_map *m = &doc->map;
	size_t i, j;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->opts = opts;
	c->doc = doc;
	/* the document's: a saved one may come from another kernel */
	c->psize = pmaps_map_page_size(m);
	c->color = opts->color;
	/* maps pads to 8 digits; the widest END sets the column */
	c->aw = 8;
	if (m->nr_vmas) {
		int w = hex_digits(m->vmas[m->nr_vmas - 1].end);

		if (w > c->aw)
			c->aw = w;
	}
	/* 3 keeps the columns of every mapcount below 1000 where they were */
	c->mapcount_w = 3;
	for (i = 0; i < m->nr_vmas; i++)
		for (j = 0; j < m->vmas[i].nr_ranges; j++) {
			char digits[PMAPS_MAPCOUNT_LEN];
			size_t n = pmaps_format_mapcount(
				m->vmas[i].ranges[j].mapcount, digits);

			if (n > c->mapcount_w)
				c->mapcount_w = n;
		}
	if (m->numa)
		numa_widths(c);
	if (opts->decode) {
		char buf[FLAG_NAMES_MAX];

		for (i = 0; i < m->nr_vmas; i++) {
			const struct pmaps_vma *v = &m->vmas[i];

			for (j = 0; j < v->nr_ranges; j++) {
				size_t n = fmt_flag_names(buf,
							  v->ranges[j].flags,
							  v->ranges[j].unknown);

				if (n > c->names_w)
					c->names_w = n;
			}
		}
	}
	find_nodes(c);
}

static void ctx_fini(struct vctx *c)
{
	if (c->hg_state > 0)
		pmaps_huge_close(&c->hg);
	c->hg_state = 0;
	pmaps_huge_vma_free(&c->hv);
	if (c->have_pm)
		pmaps_pagemap_close(&c->pm);
	free(c->ent);
	c->ent = NULL;
	c->have_pm = 0;
}

/* Open the document's pagemap if it is a live process; 1 if open. */
static int ctx_open_pagemap(struct vctx *c)
{
	if (c->have_pm)
		return 1;
	if (c->doc->pid <= 0) {
		snprintf(c->pm_err, sizeof(c->pm_err), "not a process");
		return 0;
	}
	c->ent = malloc(PM_ENTRIES * sizeof(*c->ent));
	if (!c->ent) {
		snprintf(c->pm_err, sizeof(c->pm_err), "out of memory");
		return 0;
	}
	if (pmaps_pagemap_open(&c->pm, c->doc->pid, c->pm_err,
			       sizeof(c->pm_err))) {
		free(c->ent);
		c->ent = NULL;
		return 0;
	}
	c->have_pm = 1;
	c->ent_n = 0;
	return 1;
}

/*
 * The pagemap entry of the page at addr, read in batches that stop at
 * limit (the VMA end) so no read reaches past what is needed.  A read
 * error turns pagemap off for the rest of the document.
 */
static int pm_entry(struct vctx *c, unsigned long long addr,
		    unsigned long long limit, uint64_t *e)
{
	unsigned long long n;

	if (!c->have_pm)
		return -1;
	if (c->ent_n && addr >= c->ent_addr &&
	    (addr - c->ent_addr) / c->psize < c->ent_n) {
		*e = c->ent[(addr - c->ent_addr) / c->psize];
		return 0;
	}
	n = limit > addr ? (limit - addr + c->psize - 1) / c->psize : 1;
	if (n > PM_ENTRIES)
		n = PM_ENTRIES;
	if (pmaps_pagemap_read(&c->pm, addr, c->ent, (size_t)n, c->pm_err,
			       sizeof(c->pm_err))) {
		pmaps_pagemap_close(&c->pm);
		c->have_pm = 0;
		return -1;
	}
	c->ent_addr = addr - addr % c->psize;
	c->ent_n = (size_t)n;
	*e = c->ent[0];
	return 0;
}

/*
 * The THP and hugetlb pages of [start, end) of the document's process
 * into c->hv, clipped to --range; 0, or -1 when they are not known (a
 * file, or not readable: why in c->hg_err).
 */
static int huge_vma(struct vctx *c, unsigned long long start,
		    unsigned long long end)
{
	pmaps_huge_vma_free(&c->hv);
	c->hv_cursor = 0;
	if (c->doc->pid <= 0) {
		snprintf(c->hg_err, sizeof(c->hg_err), "not a process");
		return -1;
	}
	if (!c->hg_state)
		c->hg_state = pmaps_huge_open(&c->hg, c->doc->pid, 0,
					      c->hg_err, sizeof(c->hg_err)) ?
			      -1 : 1;
	if (c->hg_state < 0)
		return -1;
	if (c->opts->has_range && c->opts->lo < end && c->opts->hi > start) {
		start = start > c->opts->lo ? start : c->opts->lo;
		end = end < c->opts->hi ? end : c->opts->hi;
		start -= start % c->psize;
		end += (c->psize - end % c->psize) % c->psize;
	}
	return pmaps_huge_read(&c->hg, start, end, &c->hv, c->hg_err,
			       sizeof(c->hg_err));
}

/* ---- shared pieces of the text views ---- */

static void title(struct vctx *c)
{
	struct ob *o = c->o;
	char source[128];

	ob_sgr(o, c->color, SGR_BOLD);
	ob_name(o, c->doc->label);
	ob_str(o, ": source ");
	ob_str(o, pmaps_doc_source(c->doc, source, sizeof(source)));
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
}

/* START-END PERMS SIZE NAME */
static void vma_header(struct vctx *c, const struct pmaps_vma *v)
{
	struct ob *o = c->o;
	char *p;

	ob_sgr(o, c->color, SGR_BOLD);
	p = ob_room(o, LINE_MAX_LEN);
	p += fmt_hex(p, v->start, c->aw);
	*p++ = '-';
	p += fmt_hex(p, v->end, c->aw);
	*p++ = ' ';
	memcpy(p, v->perms, 4);
	p += 4;
	*p++ = ' ';
	p += fmt_human_w(p, v->end - v->start, 7);
	*p++ = ' ';
	o->len = (size_t)(p - o->buf);
	if (v->name[0])
		ob_name(o, v->name);
	else
		ob_str(o, "[anon]");
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
}

/* Names, each coloured by its flag, padded to width. */
static void put_names(struct vctx *c, unsigned int flags, unsigned int unknown,
		      size_t width)
{
	struct ob *o = c->o;
	char buf[FLAG_NAMES_MAX];
	size_t n = fmt_flag_names(buf, flags, unknown), s = 0, e;
	int i;

	if (!c->color || !(flags | unknown)) {
		ob_mem(o, buf, n);
	} else {
		for (i = 0; i < PMAPS_NR_FLAGS; i++) {
			const char *sgr = flag_sgr(i);
			int hl = sgr && (flags & ~unknown & (1u << i));

			if (!((flags | unknown) & (1u << i)))
				continue;
			for (e = s; e < n && buf[e] != ','; e++)
				;
			if (hl)
				ob_str(o, sgr);
			ob_mem(o, buf + s, e - s);
			if (hl)
				ob_str(o, SGR_RESET);
			if (e < n)
				ob_ch(o, ',');
			s = e + 1;
		}
	}
	ob_spaces(o, width > n ? width - n : 0);
}

/* The 7 letters, dirty and writeback coloured. */
static void put_letters(struct vctx *c, unsigned int flags,
			unsigned int unknown)
{
	static const size_t sgr_len = sizeof(SGR_DIRTY) - 1;
	static const size_t reset_len = sizeof(SGR_RESET) - 1;
	struct ob *o = c->o;
	char *p = ob_room(o, PMAPS_NR_FLAGS * 16);
	int i;

	if (!c->color) {
		pmaps_format_flags(flags, unknown, p);
		o->len += PMAPS_NR_FLAGS;
		return;
	}
	for (i = 0; i < PMAPS_NR_FLAGS; i++) {
		unsigned int bit = 1u << i;
		const char *sgr = flag_sgr(i);

		if (unknown & bit) {
			*p++ = '?';
		} else if (flags & bit) {
			/* all SGR_ colours have the same length */
			if (sgr) {
				memcpy(p, sgr, sgr_len);
				p += sgr_len;
			}
			*p++ = pmaps_flag_letters[i];
			if (sgr) {
				memcpy(p, SGR_RESET, reset_len);
				p += reset_len;
			}
		} else {
			*p++ = '_';
		}
	}
	o->len = (size_t)(p - o->buf);
}

/* Letters, or with -d the names padded to the document's widest. */
static void put_flags(struct vctx *c, unsigned int flags, unsigned int unknown)
{
	if (c->opts->decode)
		put_names(c, flags, unknown, c->names_w);
	else
		put_letters(c, flags, unknown);
}

static void put_mapcount(struct vctx *c, long mapcount)
{
	int shared = c->color && mapcount > 1;

	if (shared)
		ob_str(c->o, SGR_SHARED);
	c->o->len += fmt_mapcount_col(ob_room(c->o, PMAPS_MAPCOUNT_LEN + 1),
				      mapcount, c->mapcount_w);
	if (shared)
		ob_str(c->o, SGR_RESET);
}

/* "  pss SIZE", a lower bound where some mapcounts are '?' */
static void put_pss(struct ob *o, const char *key, unsigned long long bytes,
		    unsigned long long unknown_pages)
{
	ob_str(o, "  ");
	ob_str(o, key);
	ob_ch(o, ' ');
	if (!bound_known(bytes, unknown_pages != 0)) {
		ob_ch(o, '-');
		return;
	}
	ob_str(o, bound_mark(unknown_pages != 0));
	ob_human(o, bytes, 0);
}

/*
 * " key VALUE" per kind: human size, "0", ">=SIZE" when some pages are
 * unknown, or "-" when nothing known is counted.
 */
static void put_counts(struct vctx *c, const struct counts *n)
{
	struct ob *o = c->o;
	bool unknown;
	int k;

	for (k = 0; k < C_NR; k++) {
		ob_str(o, "  ");
		ob_str(o, count_names[k]);
		ob_ch(o, ' ');
		unknown = n->unknown & (1u << k);
		if (!bound_known(n->pages[k], unknown)) {
			ob_ch(o, '-');
		} else {
			ob_str(o, bound_mark(unknown));
			ob_human(o, n->pages[k] * c->psize, 0);
		}
		if (k == C_RESIDENT)
			ob_fmt(o, " (%llu page%s)", n->pages[k],
			       n->pages[k] == 1 ? "" : "s");
	}
	put_pss(o, "pss", pmaps_pss_bytes(&n->pss), n->pss.unknown);
	put_pss(o, "uss", n->pss.uss, n->pss.unknown);
	/* numa_maps' N<node>=, as sizes: resident memory per node */
	for (k = 0; k < c->nodes; k++) {
		ob_fmt(o, "  N%d ", k);
		ob_human(o, n->node[k] * c->psize, 0);
	}
	if (c->node_other) {
		ob_str(o, "  N? ");
		ob_human(o, n->node[NODE_OTHER] * c->psize, 0);
	}
	ob_ch(o, '\n');
}

/* ---- DEFAULT ---- */

static void default_range(struct vctx *c, const struct pmaps_vma *v,
			  const struct pmaps_range *r)
{
	struct ob *o = c->o;
	unsigned long long start = pmaps_range_addr(v, r);
	unsigned long long bytes = r->count * c->psize;
	char *p;

	p = ob_room(o, LINE_MAX_LEN);
	*p++ = ' ';
	*p++ = ' ';
	p += fmt_hex(p, start, c->aw);
	*p++ = '-';
	p += fmt_hex(p, start + bytes, c->aw);
	*p++ = ' ';
	p += fmt_human_w(p, bytes, 7);
	*p++ = ' ';
	if (!c->color && !c->opts->decode) {
		/* the hot path: no call that could flush in between */
		pmaps_format_flags(r->flags, r->unknown, p);
		p += PMAPS_NR_FLAGS;
		p += fmt_mapcount_col(p, r->mapcount, c->mapcount_w);
		p += fmt_numa_cols(c, p, r);
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
		return;
	}
	o->len = (size_t)(p - o->buf);
	put_flags(c, r->flags, r->unknown);
	put_mapcount(c, r->mapcount);
	put_numa_cols(c, r);
	ob_ch(o, '\n');
}

static void view_default(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	struct counts total = { 0 };
	size_t i, j;

	title(c);
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];
		struct counts vc = { 0 };

		vma_header(c, v);
		for (j = 0; j < v->nr_ranges; j++)
			default_range(c, v, &v->ranges[j]);
		count_vma(&vc, v);
		if (c->opts->totals) {
			ob_str(c->o, "  total");
			put_counts(c, &vc);
		}
		count_add(&total, &vc);
	}
	if (c->row) {
		c->row->n = total;
		c->row->huge_kib = -1;
	}
	ob_sgr(c->o, c->color, SGR_BOLD);
	ob_fmt(c->o, "total: %zu VMA%s  mapped ", total.nr_vmas,
	       total.nr_vmas == 1 ? "" : "s");
	ob_human(c->o, total.mapped, 0);
	put_counts(c, &total);
	/* the reset after the newline keeps the line itself plain text */
	ob_sgr(c->o, c->color, SGR_RESET);
}

/* ---- SUMMARY ---- */

static const char *const summary_cols[C_NR] = {
	"RSS", "Young", "Referenced", "Active", "PteDirty", "Dirty",
	"Writeback", "Shared", "Swapped",
};

/* A KiB column: the value, or "-" when not known. */
static void summary_kib(struct ob *o, int known, const char *mark,
			unsigned long long kib, size_t w)
{
	char tmp[32];
	size_t n;

	ob_ch(o, ' ');
	if (known) {
		n = strlen(mark);
		memcpy(tmp, mark, n);
		n += pmaps_format_udec(tmp + n, kib);
		o->len += right_align(ob_room(o, sizeof(tmp) + w), tmp, n, w);
	} else {
		ob_spaces(o, w - 1);
		ob_ch(o, '-');
	}
}

/*
 * A column of a count v that some pages of unknown state may belong to
 * (unknown): v, else a lower bound ">=v", or "-" when v is 0.
 */
static void bound_col(struct ob *o, unsigned long long v, bool unknown,
		      size_t w)
{
	char tmp[PMAPS_BOUND_LEN];
	size_t n = pmaps_format_bound(tmp, v, unknown);

	ob_ch(o, ' ');
	o->len += right_align(ob_room(o, sizeof(tmp) + w), tmp, n, w);
}

/*
 * The counts, then Huge (KiB in THP or hugetlb pages) and PageSize (KiB),
 * read from the live process; huge_kib or page_kib -1: "-"; page_kib -2:
 * no PageSize column (the group table, where a process has many).
 */
static void summary_row(struct vctx *c, const struct counts *n, size_t w,
			long long huge_kib, long long page_kib)
{
	struct ob *o = c->o;
	unsigned long long kib = c->psize / 1024;
	int k;

	ob_ch(o, ' ');
	ob_udec_w(o, n->mapped / 1024, w);
	for (k = 0; k < C_NR; k++)
		bound_col(o, n->pages[k] * kib, n->unknown & (1u << k), w);
	/* smaps' Pss in kB: the fixed-point sum, shifted once */
	bound_col(o, n->pss.pss >> (10 + PMAPS_PSS_SHIFT),
		  n->pss.unknown != 0, w);
	bound_col(o, n->pss.uss / 1024, n->pss.unknown != 0, w);
	summary_kib(o, huge_kib >= 0, "", (unsigned long long)huge_kib, w);
	if (page_kib != -2)
		summary_kib(o, page_kib >= 0, "", (unsigned long long)page_kib,
			    w);
	if (c->node_w) {
		summary_kib(o, !n->folio_unknown, "", n->thp * kib, w);
		summary_kib(o, !n->folio_unknown, "", n->mthp * kib, w);
	}
	for (k = 0; k < c->nodes; k++)
		summary_kib(o, 1, "", n->node[k] * kib, w);
	if (c->node_other)
		summary_kib(o, 1, "", n->node[NODE_OTHER] * kib, w);
}

static void view_summary(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	struct counts total = { 0 };
	struct ob *o = c->o;
	size_t i, aw = 2 * (size_t)c->aw + 1, w = 10;
	unsigned long long mapped = 0;
	long long huge_total = 0;
	char digits[24];
	int k, huge_failed = 0;

	/* the widest number is the total size: every column fits it */
	for (i = 0; i < m->nr_vmas; i++)
		mapped += m->vmas[i].end - m->vmas[i].start;
	if (pmaps_format_udec(digits, mapped / 1024) > w)
		w = pmaps_format_udec(digits, mapped / 1024);
	title(c);
	/* pmap -x: sizes in KiB, "Kbytes" says so */
	ob_sgr(o, c->color, SGR_BOLD);
	ob_str(o, "Address");
	ob_spaces(o, aw - 7);
	ob_str(o, " Mode ");
	ob_fmt(o, "%*s", (int)w, "Kbytes");
	for (k = 0; k < C_NR; k++)
		ob_fmt(o, " %*s", (int)w, summary_cols[k]);
	ob_fmt(o, " %*s %*s", (int)w, "Pss", (int)w, "Uss");
	ob_fmt(o, " %*s %*s", (int)w, "Huge", (int)w, "PageSize");
	if (c->node_w)
		ob_fmt(o, " %*s %*s", (int)w, "THP", (int)w, "mTHP");
	for (k = 0; k < c->nodes; k++) {
		char name[16];

		snprintf(name, sizeof(name), "N%d", k);
		ob_fmt(o, " %*s", (int)w, name);
	}
	if (c->node_other)
		ob_fmt(o, " %*s", (int)w, "N?");
	ob_str(o, " Mapping");
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];
		struct counts vc = { 0 };
		long long huge = -1, page = -1;

		count_vma(&vc, v);
		if (!huge_vma(c, v->start, v->end)) {
			huge = (long long)(c->hv.huge_bytes / 1024);
			page = (long long)(c->hv.page_size / 1024);
			/* a hugetlb folio of PMD size is not a thp */
			if (c->hv.page_size > c->psize)
				vc.thp = vc.mthp = 0;
		} else {
			huge_failed = c->doc->pid > 0;
		}
		if (huge < 0 || huge_total < 0)
			huge_total = -1;
		else
			huge_total += huge;
		ob_hex(o, v->start, c->aw);
		ob_ch(o, '-');
		ob_hex(o, v->end, c->aw);
		ob_ch(o, ' ');
		ob_mem(o, v->perms, 4);
		summary_row(c, &vc, w, huge, page);
		ob_ch(o, ' ');
		if (v->name[0])
			ob_name(o, v->name);
		else
			ob_str(o, "[anon]");
		ob_ch(o, '\n');
		count_add(&total, &vc);
	}
	ob_sgr(o, c->color, SGR_BOLD);
	ob_str(o, "total KiB");
	ob_spaces(o, aw + 5 - 9);
	/* no VMA, no process read: nothing known */
	if (!m->nr_vmas && c->doc->pid <= 0)
		huge_total = -1;
	if (c->row) {
		c->row->n = total;
		c->row->huge_kib = huge_total;
	}
	summary_row(c, &total, w, huge_total, -1);
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
	if (huge_failed)
		ob_fmt(o, "(Huge and PageSize of %d not known: %s)\n",
		       c->doc->pid, c->hg_err);
}

/* ---- GROUP (--cgroup) ---- */

/*
 * The default view's group line: as each process's total line, for all
 * of them.  c has no document: only its buffer, colour and page size.
 */
static void group_default(struct vctx *c, const struct group_row *rows,
			  size_t nr)
{
	struct counts sum = { 0 };
	size_t i;

	for (i = 0; i < nr; i++)
		count_add(&sum, &rows[i].n);
	ob_sgr(c->o, c->color, SGR_BOLD);
	ob_str(c->o, "group ");
	ob_name(c->o, c->opts->group);
	ob_fmt(c->o, ": %zu process%s, %zu VMA%s  mapped ", nr,
	       nr == 1 ? "" : "es", sum.nr_vmas, sum.nr_vmas == 1 ? "" : "s");
	ob_human(c->o, sum.mapped, 0);
	put_counts(c, &sum);
	ob_sgr(c->o, c->color, SGR_RESET);
}

/*
 * --summary's group table: each process's total row, then the group's,
 * in the columns of the per-VMA tables (KiB).
 */
static void group_summary(struct vctx *c, const struct pmaps_doc *docs,
			  const struct group_row *rows, size_t nr)
{
	struct group_row sum = { .huge_kib = 0 };
	struct ob *o = c->o;
	size_t i, w = 10, lw = 5;
	char digits[24];
	int k;

	for (i = 0; i < nr; i++) {
		count_add(&sum.n, &rows[i].n);
		/*
		 * the Pss total is the sum of the rows as printed, rounded
		 * down to a KiB each as smaps_rollup rounds them, so that the
		 * table adds up
		 */
		sum.n.pss.pss -= rows[i].n.pss.pss &
				 ((1ULL << (10 + PMAPS_PSS_SHIFT)) - 1);
		if (rows[i].huge_kib < 0 || sum.huge_kib < 0)
			sum.huge_kib = -1;
		else
			sum.huge_kib += rows[i].huge_kib;
		if (strlen(docs[i].label) > lw)
			lw = strlen(docs[i].label);
	}
	if (pmaps_format_udec(digits, sum.n.mapped / 1024) > w)
		w = pmaps_format_udec(digits, sum.n.mapped / 1024);
	ob_sgr(o, c->color, SGR_BOLD);
	ob_str(o, "group ");
	ob_name(o, c->opts->group);
	ob_fmt(o, ": %zu process%s\n", nr, nr == 1 ? "" : "es");
	ob_fmt(o, "%-*s %*s", (int)lw, "Process", (int)w, "Kbytes");
	for (k = 0; k < C_NR; k++)
		ob_fmt(o, " %*s", (int)w, summary_cols[k]);
	ob_fmt(o, " %*s %*s", (int)w, "Pss", (int)w, "Uss");
	ob_fmt(o, " %*s", (int)w, "Huge");
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
	for (i = 0; i < nr; i++) {
		ob_name(o, docs[i].label);
		ob_spaces(o, lw - strlen(docs[i].label));
		summary_row(c, &rows[i].n, w, rows[i].huge_kib, -2);
		ob_ch(o, '\n');
	}
	ob_sgr(o, c->color, SGR_BOLD);
	ob_fmt(o, "%-*s", (int)lw, "total KiB");
	summary_row(c, &sum.n, w, sum.huge_kib, -2);
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
}

/* ---- AGES ---- */

/*
 * One row of --ages: pages at each age shown, then '?' and all resident.
 * A page of age '?' may be of any age, so where a row has one the known
 * ages are lower bounds, as every count with unknowns is.
 */
static void ages_row(struct ob *o, const struct pmaps_ages *a, int shown,
		     size_t w)
{
	unsigned long long all = a->unknown;
	int k;

	for (k = 0; k <= PMAPS_AGE_MAX; k++)
		all += a->pages[k];
	for (k = 0; k < shown; k++)
		bound_col(o, a->pages[k], a->unknown != 0, w);
	summary_kib(o, 1, "", a->unknown, w);
	summary_kib(o, 1, "", all, w);
}

static void view_ages(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	struct pmaps_ages total = { { 0 }, 0 }, *per;
	unsigned long long all;
	struct ob *o = c->o;
	size_t i, j, aw = 2 * (size_t)c->aw + 1, w = 8;
	char digits[24], name[16];
	int k, shown;

	per = calloc(m->nr_vmas ? m->nr_vmas : 1, sizeof(*per));
	if (!per) {
		o->err = ENOMEM;
		return;
	}
	for (i = 0; i < m->nr_vmas; i++) {
		for (j = 0; j < m->vmas[i].nr_ranges; j++)
			pmaps_ages_add(&per[i], &m->vmas[i].ranges[j]);
		pmaps_ages_sum(&total, &per[i]);
	}
	shown = pmaps_ages_shown(&total);
	all = total.unknown;
	/* the widest number is the total, with room for ">=" */
	for (k = 0; k <= PMAPS_AGE_MAX; k++)
		all += total.pages[k];
	if (pmaps_format_udec(digits, all) + strlen(PMAPS_AT_LEAST) > w)
		w = pmaps_format_udec(digits, all) + strlen(PMAPS_AT_LEAST);
	title(c);
	ob_sgr(o, c->color, SGR_BOLD);
	ob_str(o, "Address");
	ob_spaces(o, aw - 7);
	ob_str(o, " Mode");
	for (k = 0; k < shown; k++) {
		snprintf(name, sizeof(name), "Age%d", k);
		ob_fmt(o, " %*s", (int)w, name);
	}
	ob_fmt(o, " %*s %*s Mapping", (int)w, "Age?", (int)w, "Pages");
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];

		ob_hex(o, v->start, c->aw);
		ob_ch(o, '-');
		ob_hex(o, v->end, c->aw);
		ob_ch(o, ' ');
		ob_mem(o, v->perms, 4);
		ages_row(o, &per[i], shown, w);
		ob_ch(o, ' ');
		ob_name(o, v->name[0] ? v->name : "[anon]");
		ob_ch(o, '\n');
	}
	ob_sgr(o, c->color, SGR_BOLD);
	ob_str(o, "total pages");
	ob_spaces(o, aw + 5 - 11);
	ages_row(o, &total, shown, w);
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
	if (!m->numa || !m->age)
		ob_str(o, "(no AGE in this document: every page is '?'; the NUMA files of the module or the kernel have it, see --numa)\n");
	free(per);
}

/* ---- HISTOGRAM ---- */

struct hist_ent {
	unsigned int flags, unknown;
	unsigned long long pages;
};

static int hist_cmp(const void *a, const void *b)
{
	const struct hist_ent *x = a, *y = b;

	if (x->pages != y->pages)
		return x->pages < y->pages ? 1 : -1;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	return x->unknown < y->unknown ? -1 : x->unknown > y->unknown;
}

/* "12.3": bytes in MiB with one decimal. */
static void put_mib(struct ob *o, unsigned long long bytes, size_t width)
{
	unsigned long long whole;
	unsigned int t;
	char buf[32];
	size_t n;

	tenths(bytes, 20, &whole, &t);
	n = pmaps_format_udec(buf, whole);
	buf[n++] = '.';
	buf[n++] = (char)('0' + t);
	ob_spaces(o, width > n ? width - n : 0);
	ob_mem(o, buf, n);
}

#define HIST_KEYS	(1u << (2 * PMAPS_NR_FLAGS))

static int view_histogram(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	unsigned long long *pages, total = 0;
	struct hist_ent *ents;
	struct ob *o = c->o;
	size_t nr = 0, i, j, names_w = 5;
	char buf[FLAG_NAMES_MAX];

	/* flags and unknown together are 14 bits: count in a flat array */
	pages = calloc(HIST_KEYS, sizeof(*pages));
	ents = malloc(HIST_KEYS * sizeof(*ents));
	if (!pages || !ents) {
		free(pages);
		free(ents);
		return -1;
	}
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];

		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned int key = (r->flags & 0x7f) |
					   (r->unknown & 0x7f) << 7;

			pages[key] += r->count;
		}
	}
	for (i = 0; i < HIST_KEYS; i++) {
		if (!pages[i])
			continue;
		ents[nr].flags = i & 0x7f;
		ents[nr].unknown = (unsigned int)i >> 7;
		ents[nr].pages = pages[i];
		total += pages[i];
		j = fmt_flag_names(buf, ents[nr].flags, ents[nr].unknown);
		if (j > names_w)
			names_w = j;
		nr++;
	}
	qsort(ents, nr, sizeof(*ents), hist_cmp);

	title(c);
	ob_sgr(o, c->color, SGR_BOLD);
	ob_str(o, "flags    names");
	ob_spaces(o, names_w - 5);
	ob_fmt(o, " %12s %10s", "pages", "MB");
	ob_sgr(o, c->color, SGR_RESET);
	ob_ch(o, '\n');
	for (i = 0; i < nr; i++) {
		const struct hist_ent *e = &ents[i];

		/* both forms are columns here, whatever -d says */
		put_letters(c, e->flags, e->unknown);
		ob_str(o, "  ");
		put_names(c, e->flags, e->unknown, names_w);
		ob_ch(o, ' ');
		ob_udec_w(o, e->pages, 12);
		ob_ch(o, ' ');
		put_mib(o, e->pages * c->psize, 10);
		ob_ch(o, '\n');
	}
	ob_str(o, "total    ");
	ob_spaces(o, names_w);
	ob_ch(o, ' ');
	ob_udec_w(o, total, 12);
	ob_ch(o, ' ');
	put_mib(o, total * c->psize, 10);
	ob_ch(o, '\n');
	free(pages);
	free(ents);
	return 0;
}

/* ---- PAGES and ADDRESS: single pages ---- */

/* Page index of the page at addr, as the text format counts it. */
static unsigned long long page_index(const struct vctx *c,
				     const struct pmaps_vma *v,
				     unsigned long long addr)
{
	if (v->inode)
		return v->offset / c->psize + (addr - v->start) / c->psize;
	return addr / c->psize;
}

/* " swap type T offset O"; the kernel hides the offset (0) from non-root */
static void put_swap(struct ob *o, uint64_t e)
{
	ob_fmt(o, "swap type %u", pmaps_pm_swap_type(e));
	if (pmaps_pm_swap_offset(e))
		ob_fmt(o, " offset %llu",
		       (unsigned long long)pmaps_pm_swap_offset(e));
}

static void put_pm_bits(struct ob *o, uint64_t e)
{
	if (e & PMAPS_PM_SOFT_DIRTY)
		ob_str(o, " soft-dirty");
	if (e & PMAPS_PM_EXCLUSIVE)
		ob_str(o, " exclusive");
}

/*
 * The kind of the folio of the page at addr (pmaps_folio_kind()): from
 * kpageflags where pagemap gave a PFN and kpageflags is readable (root),
 * which alone knows hugetlb and the zero pages; else a huge page of c->hv
 * (PAGEMAP_SCAN: a PMD-mapped thp, or hugetlb); else r's KB.
 */
static enum pmaps_folio_kind page_kind(struct vctx *c,
				       const struct pmaps_range *r,
				       unsigned long long addr, uint64_t e,
				       int have_e)
{
	uint64_t pfn = have_e ? pmaps_pm_pfn(e) : 0, kpf, kpc;
	const struct pmaps_huge_region *h;
	unsigned long long kb = r ? r->kb : PMAPS_KB_UNKNOWN;

	if (pfn && c->have_pm && !pmaps_kpage_read(&c->pm, pfn, &kpf, &kpc)) {
		if (kb == PMAPS_KB_UNKNOWN)
			kb = pmaps_kpf_folio_kb(&c->pm, &c->fc, pfn);
		return pmaps_folio_kind_kpf(kpf, kb, c->psize);
	}
	h = c->hv.nr_regions ? pmaps_huge_find(&c->hv, addr, &c->hv_cursor) :
			       NULL;
	if (h)
		return h->kind == PMAPS_HUGE_HUGETLB ? PMAPS_FOLIO_HUGETLB :
						       PMAPS_FOLIO_THP;
	return pmaps_folio_kind(kb, c->psize);
}

/* --pages' kind column: " thp", " mTHP", " small", ...; one field. */
static void put_kind(struct vctx *c, enum pmaps_folio_kind kind)
{
	if (c->kind_col)
		ob_fmt(c->o, " %s", pmaps_folio_kind_name(kind));
}

static void flush_not_present(struct vctx *c, unsigned long long *pending)
{
	if (!*pending)
		return;
	ob_fmt(c->o, "  ... %llu not present ...\n", *pending);
	*pending = 0;
}

/*
 * One page: address, index, then the range's flags and mapcount or, for a
 * page in no range, what pagemap says of it; e is valid if have_e.
 */
static void page_line(struct vctx *c, unsigned long long addr,
		      unsigned long long index, const struct pmaps_range *r,
		      uint64_t e, int have_e)
{
	struct ob *o = c->o;
	char *p = ob_room(o, LINE_MAX_LEN);

	*p++ = ' ';
	*p++ = ' ';
	p += fmt_hex(p, addr, c->aw);
	*p++ = ' ';
	p += fmt_udec_w(p, index, 12);
	*p++ = ' ';
	*p++ = ' ';
	o->len = (size_t)(p - o->buf);
	if (r) {
		put_flags(c, r->flags, r->unknown);
		put_mapcount(c, r->mapcount);
		put_numa_cols(c, r);
		if (c->kind_col)
			put_kind(c, page_kind(c, r, addr, e, have_e));
		/* pagemap is read after the document: it may differ */
		if (have_e && !(e & PMAPS_PM_PRESENT))
			ob_str(o, (e & PMAPS_PM_SWAP) ? " (now swapped)" :
			       " (now not present)");
	} else if (e & PMAPS_PM_SWAP) {
		put_swap(o, e);
		if (c->kind_col)
			ob_str(o, " -");
	} else {
		ob_str(o, "present (not listed)");
		if (c->kind_col)
			put_kind(c, page_kind(c, r, addr, e, have_e));
	}
	if (have_e)
		put_pm_bits(o, e);
	ob_ch(o, '\n');
}

static void pm_failed(struct vctx *c, unsigned long long *pending)
{
	flush_not_present(c, pending);
	ob_fmt(c->o, "  (pagemap: %s; no more swap detail)\n", c->pm_err);
}

/* Pages [from, to) of v that are in no range. */
static void pages_gap(struct vctx *c, const struct pmaps_vma *v,
		      unsigned long long from, unsigned long long to,
		      unsigned long long *pending)
{
	unsigned long long addr;
	uint64_t e;

	if (to <= from)
		return;
	if (!c->have_pm) {
		*pending += (to - from) / c->psize;
		return;
	}
	for (addr = from; addr + c->psize <= to;) {
		size_t k, n;

		if (pm_entry(c, addr, v->end, &e)) {
			pm_failed(c, pending);
			*pending += (to - addr) / c->psize;
			return;
		}
		/* the rest of the batch pm_entry() read, in a tight loop */
		k = (size_t)((addr - c->ent_addr) / c->psize);
		n = c->ent_n - k;
		if (n > (to - addr) / c->psize)
			n = (size_t)((to - addr) / c->psize);
		for (; n--; k++, addr += c->psize) {
			e = c->ent[k];
			if (!(e & (PMAPS_PM_PRESENT | PMAPS_PM_SWAP))) {
				(*pending)++;
				continue;
			}
			flush_not_present(c, pending);
			page_line(c, addr, page_index(c, v, addr), NULL, e, 1);
		}
	}
}

static void pages_vma(struct vctx *c, const struct pmaps_vma *v)
{
	unsigned long long pos = v->start, end = v->end, pending = 0, k;
	size_t j;

	/* Ranges are clipped to --range already; the gaps must be too. */
	if (c->opts->has_range) {
		pos = pos > c->opts->lo ? pos : c->opts->lo;
		end = end < c->opts->hi ? end : c->opts->hi;
	}
	vma_header(c, v);
	/* live processes only; an open that failed was said at the top */
	if (c->doc->pid > 0 && c->hg_state >= 0 &&
	    huge_vma(c, v->start, v->end))
		ob_fmt(c->o, "  (huge pages not known: %s; no thp or hugetlb marks)\n",
		       c->hg_err);
	for (j = 0; j < v->nr_ranges; j++) {
		const struct pmaps_range *r = &v->ranges[j];
		unsigned long long ra = pmaps_range_addr(v, r);

		pages_gap(c, v, pos, ra, &pending);
		flush_not_present(c, &pending);
		for (k = 0; k < r->count; k++) {
			unsigned long long addr = ra + k * c->psize;
			uint64_t e = 0;
			int have_e = c->have_pm;

			if (have_e && pm_entry(c, addr, v->end, &e)) {
				pm_failed(c, &pending);
				have_e = 0;
			}
			page_line(c, addr, r->index + k, r, e, have_e);
		}
		pos = ra + r->count * c->psize;
	}
	pages_gap(c, v, pos, end, &pending);
	flush_not_present(c, &pending);
}

static void view_pages(struct vctx *c)
{
	const struct pmaps_map *m = &c->doc->map;
	size_t i;

	title(c);
	/* the kind is known from KB or from the live process only */
	c->kind_col = c->doc->map.numa || c->doc->pid > 0;
	if (c->doc->pid > 0 && !ctx_open_pagemap(c))
		ob_fmt(c->o, "(pagemap of %d not readable: %s; swap entries and soft-dirty not shown)\n",
		       c->doc->pid, c->pm_err);
	if (c->doc->pid > 0) {
		c->hg_state = pmaps_huge_open(&c->hg, c->doc->pid, 0,
					      c->hg_err,
					      sizeof(c->hg_err)) ? -1 : 1;
		if (c->hg_state < 0)
			ob_fmt(c->o, "(huge pages of %d not known: %s; no thp or hugetlb marks)\n",
			       c->doc->pid, c->hg_err);
	}
	for (i = 0; i < m->nr_vmas; i++)
		pages_vma(c, &m->vmas[i]);
}

static void put_kpageflags(struct ob *o, uint64_t kpf)
{
	unsigned int bit;
	int first = 1;

	ob_fmt(o, "0x%llx", (unsigned long long)kpf);
	for (bit = 0; bit < 64; bit++) {
		const char *name = pmaps_kpf_name(bit);

		if (!(kpf & (1ULL << bit)))
			continue;
		ob_ch(o, first ? ' ' : ',');
		first = 0;
		if (name)
			ob_str(o, name);
		else
			ob_fmt(o, "bit%u", bit);
	}
}

/* What pagemap and kpageflags know of the page at addr. */
static void address_pagemap(struct vctx *c, const struct pmaps_vma *v,
			    unsigned long long addr)
{
	struct ob *o = c->o;
	uint64_t e, pfn, kpf, kpc;

	if (!ctx_open_pagemap(c) || pm_entry(c, addr, v->end, &e)) {
		ob_fmt(o, "  pagemap     not readable: %s\n", c->pm_err);
		return;
	}
	ob_fmt(o, "  pagemap     %s\n",
	       (e & PMAPS_PM_PRESENT) ? "present" :
	       (e & PMAPS_PM_SWAP) ? "swapped" : "not present");
	if (!(e & (PMAPS_PM_PRESENT | PMAPS_PM_SWAP)))
		return;
	pfn = pmaps_pm_pfn(e);
	/* physical addresses are for root only, whatever pagemap gave */
	if (pfn && geteuid() == 0)
		ob_fmt(o, "  pfn         0x%llx\n", (unsigned long long)pfn);
	ob_fmt(o, "  exclusive   %s\n",
	       (e & PMAPS_PM_EXCLUSIVE) ? "yes" : "no");
	ob_fmt(o, "  soft-dirty  %s\n",
	       (e & PMAPS_PM_SOFT_DIRTY) ? "yes" : "no");
	ob_fmt(o, "  mapping     %s\n", (e & PMAPS_PM_FILE) ?
	       "file or shared anonymous" : "private anonymous");
	if (e & PMAPS_PM_SWAP) {
		ob_str(o, "  swap        ");
		put_swap(o, e);
		ob_ch(o, '\n');
		return;
	}
	if (!pfn || geteuid() != 0 ||
	    pmaps_kpage_read(&c->pm, pfn, &kpf, &kpc)) {
		ob_str(o, "  kpageflags  not readable (needs root)\n");
		return;
	}
	ob_str(o, "  kpageflags  ");
	put_kpageflags(o, kpf);
	ob_ch(o, '\n');
	ob_fmt(o, "  kpagecount  %llu\n", (unsigned long long)kpc);
}

/* --address's words for a folio kind (pmaps.1, FOLIO KINDS). */
static const char *kind_phrase(enum pmaps_folio_kind kind)
{
	switch (kind) {
	case PMAPS_FOLIO_BASE:
		return "small (one page)";
	case PMAPS_FOLIO_MTHP:
		return "mTHP (transparent, larger than a page, below PMD size)";
	case PMAPS_FOLIO_THP:
		return "thp (transparent, PMD-sized)";
	case PMAPS_FOLIO_PUD:
		return "PUD-sized (hugetlb)";
	case PMAPS_FOLIO_OTHER:
		return "other size";
	case PMAPS_FOLIO_HUGETLB:
		return "hugetlb";
	case PMAPS_FOLIO_ZERO:
		return "zero page";
	case PMAPS_FOLIO_HUGE_ZERO:
		return "huge zero page";
	case PMAPS_FOLIO_UNKNOWN:
		break;
	}
	return "not known";
}

/*
 * Show the VMA, range and page that hold opts->address and return 0; or
 * say on stderr that none does and return 1.
 */
static int view_address(struct vctx *c)
{
	unsigned long long addr = c->opts->address, page;
	enum pmaps_folio_kind kind;
	const struct pmaps_range *r;
	const struct pmaps_vma *v;
	struct ob *o = c->o;
	uint64_t e = 0;
	int have_e;

	v = pmaps_find_vma(&c->doc->map, addr);
	if (!v) {
		/* an error, as grep's "no match": nothing on stdout */
		fprintf(stderr, "pmaps: 0x%llx: not in any VMA of ", addr);
		pmaps_put_name(stderr, c->doc->label);
		fputc('\n', stderr);
		return 1;
	}
	title(c);
	vma_header(c, v);
	page = addr - addr % c->psize;
	r = pmaps_find_range(v, page);
	have_e = c->doc->pid > 0 && ctx_open_pagemap(c) &&
		 !pm_entry(c, page, v->end, &e);
	kind = page_kind(c, r, page, e, have_e);
	if (r)
		default_range(c, v, r);
	else if (kind == PMAPS_FOLIO_ZERO || kind == PMAPS_FOLIO_HUGE_ZERO)
		ob_fmt(o, "  (in no range: the %s)\n", kind_phrase(kind));
	else
		ob_str(o, "  (in no range: not resident)\n");
	ob_fmt(o, "page 0x%llx\n", addr);
	ob_fmt(o, "  address     0x%llx\n", page);
	ob_fmt(o, "  index       %llu\n", page_index(c, v, page));
	ob_str(o, "  flags       ");
	if (r) {
		put_letters(c, r->flags, r->unknown);
		ob_ch(o, ' ');
		put_names(c, r->flags, r->unknown, 0);
		ob_str(o, "\n  mapcount    ");
		if (r->mapcount == PMAPS_MAPCOUNT_UNKNOWN)
			ob_str(o, "? (withheld by the kernel)\n");
		else
			ob_fmt(o, "%ld\n", r->mapcount);
		if (c->node_w) {
			char buf[32];

			pmaps_format_node(r->node, buf);
			ob_fmt(o, "  node        %s\n", buf);
			buf[fmt_folio(buf, r->kb)] = '\0';
			ob_fmt(o, "  folio       %s\n", buf);
			if (c->age_w) {
				pmaps_format_age(r->age, buf);
				ob_fmt(o, "  age         %s\n", buf);
			}
		}
	} else if (kind == PMAPS_FOLIO_ZERO ||
		   kind == PMAPS_FOLIO_HUGE_ZERO) {
		/* mapped, but no range lists it: no flags of its own */
		ob_fmt(o, "none: the %s, not listed\n", kind_phrase(kind));
	} else {
		ob_str(o, "not resident\n");
	}
	if (kind != PMAPS_FOLIO_UNKNOWN)
		ob_fmt(o, "  folio kind  %s\n", kind_phrase(kind));
	if (c->doc->pid > 0)
		address_pagemap(c, v, page);
	return 0;
}

/* ---- JSON ---- */

/* Copy a literal at p; returns the end.  The compiler knows its length. */
#define put_lit(p, lit) \
	((char *)memcpy((p), (lit), sizeof(lit) - 1) + sizeof(lit) - 1)

static void json_str(struct ob *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run;

	ob_ch(o, '"');
	for (run = p; *p; p++) {
		char esc[6] = { '\\', 'u', '0', '0', 0, 0 };
		size_t n = 2;

		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		ob_mem(o, run, (size_t)(p - run));
		run = p + 1;
		switch (*p) {
		case '"':
		case '\\':
			esc[1] = (char)*p;
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			n = 6;
		}
		ob_mem(o, esc, n);
	}
	ob_mem(o, run, (size_t)(p - run));
	ob_ch(o, '"');
}

/* ,"folio":"thp" and so on, null where KB is; returns the end. */
static char *put_folio(char *p, unsigned long long kb,
		       unsigned long long psize, bool hugetlb)
{
	enum pmaps_folio_kind kind = pmaps_folio_kind(kb, psize);

	if (kind == PMAPS_FOLIO_UNKNOWN)
		return put_lit(p, ",\"folio\":null");
	if (hugetlb)
		kind = PMAPS_FOLIO_HUGETLB;
	p = put_lit(p, ",\"folio\":\"");
	p = stpcpy(p, pmaps_folio_kind_name(kind));
	*p++ = '"';
	return p;
}

/* ,"name":v, or null where the text has '?'. */
static char *put_member(char *p, const char *name, bool known,
			unsigned long long v)
{
	size_t n = strlen(name);

	p = put_lit(p, ",\"");
	memcpy(p, name, n);
	p = put_lit(p + n, "\":");
	if (!known)
		return put_lit(p, "null");
	return p + pmaps_format_udec(p, v);
}

/*
 * ,"pss":N,"uss":N,"mapcount_unknown":N: bytes of PSS (rounded down) and
 * USS of the pages of known mapcount, and the pages of mapcount '?'.
 */
static void json_pss(struct ob *o, const struct pmaps_pss *s)
{
	ob_fmt(o, ",\"pss\":%llu,\"uss\":%llu,\"mapcount_unknown\":%llu",
	       pmaps_pss_bytes(s), s->uss, s->unknown);
}

static void json_doc(struct vctx *c)
{
	const struct pmaps_doc *d = c->doc;
	const struct pmaps_map *m = &d->map;
	struct pmaps_pss total = { 0 };
	struct ob *o = c->o;
	bool hugetlb;
	size_t i, j;
	char *p;

	ob_str(o, "\n{\"label\":");
	json_str(o, d->label);
	ob_fmt(o, ",\"pid\":%d,\"source\":", d->pid);
	json_str(o, pmaps_source_name(d->source));
	/* what index and count count in: a reader on another host needs it */
	ob_fmt(o, ",\"page_size\":%llu", c->psize);
	for (i = 0; i < m->nr_vmas; i++)
		for (j = 0; j < m->vmas[i].nr_ranges; j++)
			pmaps_pss_add(&total, &m->vmas[i].ranges[j], c->psize);
	json_pss(o, &total);
	ob_str(o, ",\"vmas\":[");
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];
		struct pmaps_pss vs = { 0 };

		ob_str(o, i ? ",\n{\"start\":\"0x" : "\n{\"start\":\"0x");
		ob_hex(o, v->start, 1);
		ob_str(o, "\",\"end\":\"0x");
		ob_hex(o, v->end, 1);
		ob_fmt(o, "\",\"perms\":\"%.4s\",\"offset\":%llu,\"dev\":\"%02x:%02x\",\"inode\":%llu,\"name\":",
		       v->perms, v->offset, v->dev_major, v->dev_minor,
		       v->inode);
		json_str(o, v->name);
		if (v->swapped < 0)
			ob_str(o, ",\"swapped\":null");
		else
			ob_fmt(o, ",\"swapped\":%lld", v->swapped);
		if (huge_vma(c, v->start, v->end))
			ob_str(o, ",\"page_size\":null,\"huge\":null");
		else
			ob_fmt(o, ",\"page_size\":%llu,\"huge\":%llu",
			       c->hv.page_size, c->hv.huge_bytes / c->psize);
		/* a hugetlb folio of PMD size is not a thp */
		hugetlb = c->hv.page_size > c->psize;
		for (j = 0; j < v->nr_ranges; j++)
			pmaps_pss_add(&vs, &v->ranges[j], c->psize);
		json_pss(o, &vs);
		ob_str(o, ",\"ranges\":[");
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			struct pmaps_pss rs = { 0 };

			p = ob_room(o, LINE_MAX_LEN);
			if (j)
				*p++ = ',';
			p = put_lit(p, "\n{\"index\":");
			p += pmaps_format_udec(p, r->index);
			p = put_lit(p, ",\"count\":");
			p += pmaps_format_udec(p, r->count);
			p = put_lit(p, ",\"address\":\"0x");
			p += fmt_hex(p, pmaps_range_addr(v, r), 1);
			p = put_lit(p, "\",\"flags\":\"");
			pmaps_format_flags(r->flags, r->unknown, p);
			p += PMAPS_NR_FLAGS;
			p = put_lit(p, "\"");
			p = put_member(p, "mapcount", r->mapcount !=
				       PMAPS_MAPCOUNT_UNKNOWN,
				       (unsigned long long)r->mapcount);
			pmaps_pss_add(&rs, r, c->psize);
			p = put_member(p, "pss", !rs.unknown,
				       pmaps_pss_bytes(&rs));
			p = put_member(p, "uss", !rs.unknown, rs.uss);
			if (m->numa) {
				p = put_member(p, "node",
					       r->node != PMAPS_NODE_UNKNOWN,
					       (unsigned long long)r->node);
				p = put_member(p, "kb",
					       r->kb != PMAPS_KB_UNKNOWN, r->kb);
				p = put_folio(p, r->kb, c->psize, hugetlb);
			}
			if (m->numa && m->age)
				p = put_member(p, "age",
					       r->age != PMAPS_AGE_UNKNOWN,
					       (unsigned long long)r->age);
			*p++ = '}';
			o->len = (size_t)(p - o->buf);
		}
		ob_str(o, "]}");
	}
	ob_str(o, "]}");
}

static void view_json(struct ob *o, const struct pmaps_view_opts *opts,
		      const struct pmaps_doc *docs, size_t nr)
{
	const char *schema = "pmaps/2";
	struct vctx c;
	size_t i;

	/*
	 * pmaps/3: ranges have node and kb, and split where they differ;
	 * pmaps/4 the same with age
	 */
	for (i = 0; i < nr; i++)
		if (docs[i].map.numa && docs[i].map.age)
			schema = "pmaps/4";
		else if (docs[i].map.numa && strcmp(schema, "pmaps/4"))
			schema = "pmaps/3";
	ob_fmt(o, "{\"schema\":\"%s\",\"targets\":[", schema);
	for (i = 0; i < nr; i++) {
		if (i)
			ob_ch(o, ',');
		ctx_init(&c, o, opts, &docs[i]);
		json_doc(&c);
		ctx_fini(&c);
	}
	ob_str(o, "\n]}\n");
}

/* ---- TSV ---- */

/* Backslash, TAB, LF and CR escaped, so every row is one line. */
static void tsv_str(struct ob *o, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *esc = *s == '\t' ? "\\t" : *s == '\n' ? "\\n" :
				  *s == '\r' ? "\\r" : *s == '\\' ? "\\\\" :
				  NULL;

		if (!esc)
			continue;
		ob_mem(o, run, (size_t)(s - run));
		ob_mem(o, esc, 2);
		run = s + 1;
	}
	ob_mem(o, run, (size_t)(s - run));
}

/* TAB pss TAB uss, in bytes, "?" for both where the mapcount is '?' */
static char *tsv_pss(char *p, const struct pmaps_range *r,
		     unsigned long long psize)
{
	struct pmaps_pss rs = { 0 };

	pmaps_pss_add(&rs, r, psize);
	if (rs.unknown)
		return put_lit(p, "\t?\t?");
	*p++ = '\t';
	p += pmaps_format_udec(p, pmaps_pss_bytes(&rs));
	*p++ = '\t';
	return p + pmaps_format_udec(p, rs.uss);
}

/*
 * numa: any document has NUMA fields; every row then has node and kb as
 * the text format has them, "?" in the rows of a document without; age
 * likewise where any document has AGE.
 */
static void tsv_doc(struct ob *o, const struct pmaps_doc *d, bool numa,
		    bool age)
{
	const struct pmaps_map *m = &d->map;
	unsigned long long psize = pmaps_map_page_size(m);
	char vma[LINE_MAX_LEN], pid[16];
	size_t i, j, vlen, plen;
	char *p;

	plen = (size_t)snprintf(pid, sizeof(pid), "%d\t", d->pid);
	for (i = 0; i < m->nr_vmas; i++) {
		const struct pmaps_vma *v = &m->vmas[i];

		/* the VMA's columns up to the name, repeated on each row */
		vlen = (size_t)snprintf(vma, sizeof(vma),
					"%08llx\t%08llx\t%.4s\t%08llx\t%02x:%02x\t%llu\t",
					v->start, v->end, v->perms, v->offset,
					v->dev_major, v->dev_minor, v->inode);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned long long a = pmaps_range_addr(v, r);

			ob_mem(o, pid, plen);
			ob_mem(o, vma, vlen);
			tsv_str(o, v->name);
			p = ob_room(o, LINE_MAX_LEN);
			*p++ = '\t';
			p += fmt_hex(p, a, 8);
			*p++ = '\t';
			p += fmt_hex(p, a + r->count * psize, 8);
			*p++ = '\t';
			p += pmaps_format_udec(p, r->index);
			*p++ = '\t';
			p += pmaps_format_udec(p, r->count);
			*p++ = '\t';
			pmaps_format_flags(r->flags, r->unknown, p);
			p += PMAPS_NR_FLAGS;
			*p++ = '\t';
			p += fmt_mapcount_w(p, r->mapcount, 0);
			if (numa) {
				*p++ = '\t';
				p += pmaps_format_node(r->node, p);
				*p++ = '\t';
				p += pmaps_format_kb(r->kb, p);
			}
			if (age) {
				*p++ = '\t';
				p += pmaps_format_age(m->age ? r->age :
						      PMAPS_AGE_UNKNOWN, p);
			}
			p = tsv_pss(p, r, psize);
			*p++ = '\n';
			o->len = (size_t)(p - o->buf);
		}
	}
}

/* ---- --color ---- */

int pmaps_color_parse(const char *arg, enum pmaps_color_when *when)
{
	if (!arg || !strcmp(arg, "always"))
		*when = PMAPS_COLOR_ALWAYS;
	else if (!strcmp(arg, "never"))
		*when = PMAPS_COLOR_NEVER;
	else if (!strcmp(arg, "auto"))
		*when = PMAPS_COLOR_AUTO;
	else
		return -1;
	return 0;
}

bool pmaps_color_wanted(enum pmaps_color_when when)
{
	const char *no_color = getenv("NO_COLOR");

	if (when != PMAPS_COLOR_AUTO)
		return when == PMAPS_COLOR_ALWAYS;
	/* https://no-color.org: set and not empty means no colour. */
	return !(no_color && *no_color) && isatty(STDOUT_FILENO);
}

/* ---- entry point ---- */

int pmaps_view(FILE *out, const struct pmaps_view_opts *opts,
	       struct pmaps_doc *docs, size_t nr_docs)
{
	struct ob *o = malloc(sizeof(*o));
	int ret = 0, found = 0, err;
	size_t shown = 0;
	struct group_row *rows = NULL;
	bool group, numa = false, age = false;
	struct vctx c;
	size_t i;

	if (!o) {
		errno = ENOMEM;
		return -1;
	}
	o->f = out;
	o->len = 0;
	o->err = 0;

	switch (opts->kind) {
	case PMAPS_VIEW_JSON:
		view_json(o, opts, docs, nr_docs);
		break;
	case PMAPS_VIEW_TSV:
		for (i = 0; i < nr_docs; i++) {
			numa |= docs[i].map.numa;
			age |= docs[i].map.numa && docs[i].map.age;
		}
		ob_str(o, "pid\tvma_start\tvma_end\tperms\toffset\tdev\tinode\tname\trange_start\trange_end\tindex\tcount\tflags\tmapcount");
		ob_str(o, numa ? "\tnode\tkb" : "");
		ob_str(o, age ? "\tage" : "");
		ob_str(o, "\tpss\tuss\n");
		for (i = 0; i < nr_docs; i++)
			tsv_doc(o, &docs[i], numa, age);
		break;
	case PMAPS_VIEW_RAW:
		for (i = 0; i < nr_docs; i++)
			if (docs[i].text)
				ob_mem(o, docs[i].text, docs[i].text_len);
		break;
	default:
		group = opts->group &&
			(opts->kind == PMAPS_VIEW_DEFAULT ||
			 opts->kind == PMAPS_VIEW_SUMMARY);
		if (group && nr_docs) {
			rows = calloc(nr_docs, sizeof(*rows));
			if (!rows) {
				o->err = ENOMEM;
				break;
			}
		}
		for (i = 0; i < nr_docs && !o->err; i++) {
			/* --address shows only the targets that have it */
			if (opts->kind == PMAPS_VIEW_ADDRESS &&
			    !pmaps_find_vma(&docs[i].map, opts->address)) {
				ctx_init(&c, o, opts, &docs[i]);
				view_address(&c);
				ctx_fini(&c);
				continue;
			}
			if (shown++)
				ob_ch(o, '\n');
			ctx_init(&c, o, opts, &docs[i]);
			c.row = rows ? &rows[i] : NULL;
			switch (opts->kind) {
			case PMAPS_VIEW_SUMMARY:
				view_summary(&c);
				break;
			case PMAPS_VIEW_HISTOGRAM:
				if (view_histogram(&c))
					o->err = ENOMEM;
				break;
			case PMAPS_VIEW_AGES:
				view_ages(&c);
				break;
			case PMAPS_VIEW_PAGES:
				view_pages(&c);
				break;
			case PMAPS_VIEW_ADDRESS:
				found |= !view_address(&c);
				break;
			default:
				view_default(&c);
				break;
			}
			ctx_fini(&c);
		}
		if (group && !o->err) {
			static const struct pmaps_doc none = { .pid = 0 };

			if (nr_docs)
				ob_ch(o, '\n');
			ctx_init(&c, o, opts, &none);
			if (opts->kind == PMAPS_VIEW_SUMMARY)
				group_summary(&c, docs, rows, nr_docs);
			else
				group_default(&c, rows, nr_docs);
			ctx_fini(&c);
		}
		free(rows);
		/* like grep: found in any target is success */
		if (opts->kind == PMAPS_VIEW_ADDRESS && nr_docs && !found)
			ret = PMAPS_ERR_TARGET;
		break;
	}
	ob_flush(o);
	err = o->err;
	free(o);
	if (!err && fflush(out))
		err = errno ? errno : EIO;
	if (err) {
		errno = err;
		return -1;
	}
	return ret;
}
