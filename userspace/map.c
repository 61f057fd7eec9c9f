// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps map: a picture of each VMA, one cell per page, coloured by the
 * page's state; on the terminal, or as a PNG image (--png).
 *
 * Every page gets one state, the first of these that holds:
 *
 *   swapped      not resident, in swap      pagemap of a live process
 *   writeback    W
 *   thp          in a thp folio             kpageflags (root), live process,
 *   mTHP         in an mTHP folio           else KB (pmaps_folio_kind())
 *   dirty        D or P
 *   shared       mapcount above 1
 *   young        Y
 *   clean        resident, none of the above, and P, D and W known
 *   unknown      resident, none of the above, P, D or W not known ('?')
 *   not present  not resident
 *
 * The document says what is resident and its flags; swap is not in the
 * text format, so it comes from /proc/PID/pagemap read right after the
 * document, for live processes only, and thp and mTHP from
 * /proc/kpageflags with it, or from the document's KB.  A flag the source cannot know ('?') counts as clear, and a
 * mapcount the kernel withheld ('?') as not shared; but a page is clean
 * only where P, D and W are known to be clear: one whose page state is
 * withheld, or not readable at all (the pagemap source without root), is
 * drawn as '?', unknown.  The legend and notes say so: nothing is drawn
 * that the source did not say.
 *
 * At scale 1 a character shows two pages: U+2580 (upper half block) in the
 * first page's colour over the second page's colour.  A VMA that would
 * take more than MAX_ROWS rows is zoomed: each character is one cell of N
 * pages (N the smallest power of two that fits), coloured by the state
 * most of its resident or swapped pages have, shaded by how many of its
 * pages are resident or swapped.  Without colour each character is the
 * letter of the state most of its resident or swapped pages have (ties:
 * the stronger state), and its glyph says how many those are, as the
 * shades do: uppercase more than 1/2 of the cell's pages, lowercase more
 * than 1/4, ':' up to 1/4, '.' none.
 *
 * The filters are applied to the document before it is drawn: --areas
 * leaves the VMAs it selects; --flags the ranges that match, every other
 * page being drawn not present (swapped ones too: they match no flags);
 * --range the part of each VMA in its window, the rows starting there.
 * A note under the legend says what --flags and --range leave out.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "map.h"
#include "outfile.h"
#include "pagemap.h"
#include "png.h"

/* Rows a VMA may take before it is zoomed. */
#define MAX_ROWS		16
/* Characters of a row: a multiple of ROW_STEP, at least MIN_ROW_CHARS. */
#define ROW_STEP		8
#define MIN_ROW_CHARS		40
/* Larger VMAs are not read from pagemap: reading costs 8 bytes a page. */
#define DETAIL_MAX_PAGES	(1ULL << 22)
/* pagemap entries and kpageflags read at a time */
#define PM_WINDOW		4096
#define KPF_WINDOW		4096
/* a PFN this far beyond either end of a run still joins its read */
#define KPF_GAP			2
/* include/uapi/linux/kernel-page-flags.h */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_THP			22

#define UPPER_HALF		"\xe2\x96\x80"	/* U+2580 */

/* "." for no change: every line of watch has the same fields for awk. */
const char pmaps_change_letters[PMAPS_CHANGE_NR + 1] = ".YD+-";
/* Over a map's cells, where letters are states: symbols. */
static const char change_symbols[PMAPS_CHANGE_NR + 1] = " *!+-";

enum state {
	ST_NONE, ST_UNKNOWN, ST_CLEAN, ST_YOUNG, ST_SHARED, ST_DIRTY, ST_MTHP,
	ST_THP, ST_WRITEBACK, ST_SWAPPED, ST_NR
};

static const struct state_style {
	const char *name;
	char letter;
	unsigned char xterm;		/* 256-colour palette index */
	unsigned char rgb[3];		/* that colour, for PNG */
} styles[ST_NR] = {
	[ST_NONE] =	 { "not present", '.', 236, { 0x30, 0x30, 0x30 } },
	[ST_UNKNOWN] =	 { "resident, state not known ('?')",
			   '?', 247, { 0x9e, 0x9e, 0x9e } },
	[ST_CLEAN] =	 { "clean",	  'C',  28, { 0x00, 0x87, 0x00 } },
	[ST_YOUNG] =	 { "young",	  'Y',  46, { 0x00, 0xff, 0x00 } },
	[ST_SHARED] =	 { "shared",	  'M',  51, { 0x00, 0xff, 0xff } },
	[ST_DIRTY] =	 { "dirty",	  'D', 196, { 0xff, 0x00, 0x00 } },
	[ST_MTHP] =	 { "mTHP",	  'T', 135, { 0xaf, 0x5f, 0xff } },
	[ST_THP] =	 { "thp",	  'H',  33, { 0x00, 0x87, 0xff } },
	[ST_WRITEBACK] = { "writeback",	  'W', 226, { 0xff, 0xff, 0x00 } },
	[ST_SWAPPED] =	 { "swapped",	  'S', 201, { 0xff, 0x00, 0xff } },
};

/*
 * Classes a cell may show: the states, or with --by the nodes or size
 * classes.  Class 0 is "not present" in every mode, so that the walk's
 * absent pages need no mode; the last class is "not known", so that a
 * tie, which goes to the later class, never hides a known one.
 */
#define CL_MAX			16
_Static_assert(ST_NR <= CL_MAX, "the states are classes too");
/* --by node: nodes 0..BY_NODES-1 each their own, the rest share one */
#define BY_NODES		10
enum { CN_NONE, CN_NODE0, CN_HIGH = CN_NODE0 + BY_NODES, CN_UNKNOWN, CN_NR };
enum { CZ_NONE, CZ_BASE, CZ_MTHP, CZ_PMD, CZ_PUD, CZ_OTHER, CZ_UNKNOWN,
       CZ_NR };
/* --by age: each age its own, '?' apart: never drawn as a known age */
enum { CA_NONE, CA_AGE0, CA_UNKNOWN = CA_AGE0 + PMAPS_AGE_MAX + 1, CA_NR };
_Static_assert(CN_NR <= CL_MAX && CZ_NR <= CL_MAX && CA_NR <= CL_MAX,
	       "CL_MAX too small");

/* A distinct colour for each node: hues far apart, then darker ones. */
static const struct { unsigned char xterm, rgb[3]; } node_colors[BY_NODES + 1] = {
	{  33, { 0x00, 0x87, 0xff } }, { 208, { 0xff, 0x87, 0x00 } },
	{  46, { 0x00, 0xff, 0x00 } }, { 201, { 0xff, 0x00, 0xff } },
	{ 226, { 0xff, 0xff, 0x00 } }, {  51, { 0x00, 0xff, 0xff } },
	{ 196, { 0xff, 0x00, 0x00 } }, {  93, { 0x87, 0x00, 0xff } },
	{ 130, { 0xaf, 0x5f, 0x00 } }, { 219, { 0xff, 0xaf, 0xff } },
	{ 231, { 0xff, 0xff, 0xff } },
};

/*
 * Hot to cold: age 0 red, through orange and yellow, to age 3 blue, the
 * first pages reclaim takes; ages the kernel does not make darker blues.
 */
static const struct { unsigned char xterm, rgb[3]; } age_colors[PMAPS_AGE_MAX + 1] = {
	{ 196, { 0xff, 0x00, 0x00 } }, { 208, { 0xff, 0x87, 0x00 } },
	{ 226, { 0xff, 0xff, 0x00 } }, {  33, { 0x00, 0x87, 0xff } },
	{  25, { 0x00, 0x5f, 0xaf } }, {  19, { 0x00, 0x00, 0xaf } },
	{  18, { 0x00, 0x00, 0x87 } }, {  17, { 0x00, 0x00, 0x5f } },
};

/* Shading of zoomed cells, by quarters resident or swapped (1..4). */
static const char *const shades[5] = {
	" ", "\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93", "\xe2\x96\x88",
};

/* Everything drawing one document needs. */
struct mapctx {
	const struct pmaps_map_opts *opts;
	const struct pmaps_doc *doc;
	unsigned long long psize;
	int aw;				/* hex digits of an address */
	unsigned int row_chars;
	bool any_zoom;
	bool any_unknown;		/* a page is drawn ST_UNKNOWN */
	/* swap and THP of a live process */
	bool have_pm, swap_on, thp_on;
	struct pmaps_pagemap pm;
	char pm_err[256];
	uint64_t *ent;			/* pagemap entries of pages ... */
	unsigned long long ent_vpn;	/* ... from this virtual page on */
	size_t ent_n;
	uint64_t kpf[KPF_WINDOW];	/* kpageflags from kpf_pfn on */
	uint64_t kpf_pfn;
	size_t kpf_n;
	struct pmaps_folio_cache fc;	/* the folio last measured */
	/* its kind, when fc_kind_head is fc.head: its pages need no read */
	enum pmaps_folio_kind fc_kind;
	uint64_t fc_kind_head;
	bool fc_kind_have;
	/* young, pte-dirty, PG_dirty, shared, --flags, --range, and
	 * detail_open()'s one */
	char notes[7][320];
	size_t nr_notes;
	/* the classes drawn: styles[] by state, by_styles[] with --by */
	const struct state_style *sty;
	int nr_cl;
	struct state_style by_styles[CL_MAX];
	char by_names[CL_MAX][64];
	/* --by: the classes the legend lists, in class order */
	unsigned char legend[CL_MAX];
	int nr_legend;
};

/* One character of a row. */
struct cell {
	unsigned char first, second;	/* scale 1: each page's state,
					 * second CL_MAX when there is none */
	unsigned char state;		/* the most of the pages, ST_NONE
					 * when none is resident or swapped */
	unsigned char shade;		/* zoomed: quarters resident, 0..4 */
	unsigned char mark;		/* enum pmaps_change_mark */
	char letter;			/* without colour */
};

/* Walks a VMA's pages in order. */
struct walker {
	struct mapctx *m;
	const struct pmaps_vma *v;
	unsigned long long npages;
	unsigned long long page;	/* next page, from the VMA's start */
	size_t ri;			/* first range ending after page */
	bool detail;			/* read swap and THP */
	size_t ci;			/* first change ending after page */
};

/* ---- the terminal ---- */

unsigned int pmaps_term_width(void)
{
	const char *columns = getenv("COLUMNS");
	unsigned long long v;
	struct winsize ws;

	if (columns && pmaps_number_parse(columns, 1, 100000, &v))
		return (unsigned int)v;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 80;
}

/* ---- what each page is ---- */

static enum state range_state(const struct pmaps_range *r)
{
	unsigned int known = r->flags & ~r->unknown;

	enum pmaps_dirtiness dirty = pmaps_range_dirtiness(r);

	if (known & (1u << PMAPS_WRITEBACK))
		return ST_WRITEBACK;
	if (dirty == PMAPS_DIRTY_SET)
		return ST_DIRTY;
	if (r->mapcount > 1)
		return ST_SHARED;
	if (known & (1u << PMAPS_YOUNG))
		return ST_YOUNG;
	/* clean only where P, D and W are all known clear */
	if (dirty == PMAPS_DIRTY_UNKNOWN ||
	    (r->unknown & (1u << PMAPS_WRITEBACK)))
		return ST_UNKNOWN;
	return ST_CLEAN;
}

/* With --by: the class of the pages of r (kb in KiB, psize in bytes). */
static int range_class(const struct mapctx *m, const struct pmaps_range *r)
{
	if (m->opts->by == PMAPS_MAP_BY_NODE) {
		if (r->node < 0)
			return CN_UNKNOWN;
		return r->node < BY_NODES ? CN_NODE0 + (int)r->node : CN_HIGH;
	}
	if (m->opts->by == PMAPS_MAP_BY_AGE)
		return r->age >= 0 && r->age <= PMAPS_AGE_MAX ?
		       CA_AGE0 + r->age : CA_UNKNOWN;
	switch (pmaps_folio_kind(r->kb, m->psize)) {
	case PMAPS_FOLIO_UNKNOWN:
		return CZ_UNKNOWN;
	case PMAPS_FOLIO_BASE:
		return CZ_BASE;
	case PMAPS_FOLIO_MTHP:
		return CZ_MTHP;
	case PMAPS_FOLIO_THP:
		return CZ_PMD;
	case PMAPS_FOLIO_PUD:
		return CZ_PUD;
	default:
		return CZ_OTHER;
	}
}

/* /proc/swaps lists a device or file: pages may be swapped. */
static bool swap_configured(void)
{
	FILE *f = fopen("/proc/swaps", "r");
	int ch, lines = 0;

	if (!f)
		return true;	/* cannot tell: look */
	while ((ch = getc(f)) != EOF && lines < 2)
		lines += ch == '\n';
	fclose(f);
	return lines >= 2;
}

/* Open pagemap for a live process and note what cannot be known. */
static void detail_open(struct mapctx *m)
{
	const struct pmaps_doc *doc = m->doc;

	if (doc->pid <= 0) {
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 doc->map.numa ?
			 "swapped: not in a saved document, not shown" :
			 "swapped, thp, mTHP: not in a saved document, not shown");
		return;
	}
	m->ent = malloc(PM_WINDOW * sizeof(*m->ent));
	if (!m->ent) {
		snprintf(m->pm_err, sizeof(m->pm_err), "out of memory");
	} else if (!pmaps_pagemap_open(&m->pm, doc->pid, m->pm_err,
				       sizeof(m->pm_err))) {
		m->have_pm = true;
		m->swap_on = swap_configured();
		m->thp_on = m->pm.kpf_fd >= 0;
	}
	if (!m->have_pm)
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "swapped, thp, mTHP: not shown (%s)", m->pm_err);
	else if (!m->thp_on && !doc->map.numa)
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "thp, mTHP: not shown (/proc/kpageflags needs root)");
}

static void detail_close(struct mapctx *m)
{
	if (m->have_pm)
		pmaps_pagemap_close(&m->pm);
	m->have_pm = false;
	free(m->ent);
	m->ent = NULL;
}

/*
 * The pagemap entry of virtual page vpn, read in windows that stop at
 * limit (the VMA's end).  A failed read turns the detail off: the pages
 * are then drawn from the document alone.
 */
static bool pm_entry(struct mapctx *m, unsigned long long vpn,
		     unsigned long long limit, uint64_t *e)
{
	unsigned long long n;

	if (!m->have_pm)
		return false;
	if (vpn < m->ent_vpn || vpn - m->ent_vpn >= m->ent_n) {
		n = limit - vpn < PM_WINDOW ? limit - vpn : PM_WINDOW;
		if (pmaps_pagemap_read(&m->pm, vpn * m->psize, m->ent,
				       (size_t)n, m->pm_err,
				       sizeof(m->pm_err))) {
			detail_close(m);
			return false;
		}
		m->ent_vpn = vpn;
		m->ent_n = (size_t)n;
		/* flags read for the last window may be stale by now */
		m->kpf_n = 0;
	}
	*e = m->ent[vpn - m->ent_vpn];
	return true;
}

/*
 * kpageflags of the PFN of pagemap entry i of the window into *kpf.  A
 * read takes the PFNs of the entries after it too, as long as each lies
 * within KPF_GAP of those before it, above or below, and all fit in
 * KPF_WINDOW with the PFN after the highest: the allocator hands out
 * runs that ascend and runs that descend, and a PFN read for nothing
 * costs about what the next pread would.  Scattered PFNs cost a pread of
 * one entry each, not of a whole window from each PFN on.
 */
static bool pfn_kpf(struct mapctx *m, size_t i, uint64_t *kpf)
{
	uint64_t pfn = pmaps_pm_pfn(m->ent[i]), lo = pfn, hi = pfn, p;
	ssize_t got;
	size_t j;

	if (pfn < m->kpf_pfn || pfn - m->kpf_pfn >= m->kpf_n) {
		for (j = i + 1; j < m->ent_n; j++) {
			p = pmaps_pm_pfn(m->ent[j]);
			if (!p)
				continue;
			if (p < lo) {
				if (lo - p > KPF_GAP || hi - p >= KPF_WINDOW - 1)
					break;
				lo = p;
			} else if (p > hi) {
				if (p - hi > KPF_GAP || p - lo >= KPF_WINDOW - 1)
					break;
				hi = p;
			}
		}
		/* and the page after: where a folio's tails end (folio_kb()) */
		got = pread(m->pm.kpf_fd, m->kpf, (hi - lo + 2) * 8,
			    (off_t)(lo * 8));
		if (got < 8 || (uint64_t)got / 8 <= pfn - lo)
			return false;
		m->kpf_pfn = lo;
		m->kpf_n = (size_t)got / 8;
	}
	*kpf = m->kpf[pfn - m->kpf_pfn];
	return true;
}

/*
 * The size in KiB of the folio of pfn, whose kpageflags kpf says it is
 * compound, as pmaps_kpf_folio_kb() measures it: from the window that
 * pfn_kpf() read, when it holds the head and the page after the last
 * tail (a THP's PFNs are one run, which the window read whole), else
 * read again.
 */
static unsigned long long folio_kb(struct mapctx *m, uint64_t pfn,
				   uint64_t kpf)
{
	const uint64_t head_bit = 1ULL << KPF_COMPOUND_HEAD,
		       tail_bit = 1ULL << KPF_COMPOUND_TAIL;
	uint64_t i = pfn - m->kpf_pfn, h, e;

	if (m->fc.have && pfn >= m->fc.head && pfn - m->fc.head < m->fc.pages)
		return m->fc.pages * m->psize / 1024;
	if (!(kpf & ((1ULL << KPF_THP) | (1ULL << KPF_HUGE))) ||
	    pfn < m->kpf_pfn || i >= m->kpf_n)
		goto read;
	for (h = i; !(m->kpf[h] & head_bit); h--)
		if (!h || !(m->kpf[h] & tail_bit))
			goto read;
	for (e = h + 1; e < m->kpf_n && (m->kpf[e] & tail_bit); e++)
		;
	if (e == m->kpf_n)
		goto read;
	m->fc.head = m->kpf_pfn + h;
	m->fc.pages = e - h;
	m->fc.have = 1;
	return m->fc.pages * m->psize / 1024;
read:
	return pmaps_kpf_folio_kb(&m->pm, &m->fc, pfn);
}

/* st, or thp / mTHP for a page in such a folio (pmaps_folio_kind()). */
static enum state kind_state(enum pmaps_folio_kind kind, enum state st)
{
	return kind == PMAPS_FOLIO_THP ? ST_THP :
	       kind == PMAPS_FOLIO_MTHP ? ST_MTHP : st;
}

/*
 * Resident pages [from, to) of r in state st; thp and mTHP outrank all
 * but writeback.  The folio kind comes from kpageflags of a live process
 * (which tells hugetlb apart), else from r's KB; unknown, it is not drawn.
 */
static void count_resident(struct walker *w, const struct pmaps_range *r,
			   unsigned long long from, unsigned long long to,
			   enum state st, unsigned long long *counts)
{
	struct mapctx *m = w->m;
	unsigned long long first = w->v->start / m->psize, p, kb;
	uint64_t e, kpf;

	if (m->opts->by || st == ST_WRITEBACK) {
		counts[st] += to - from;
		return;
	}
	/*
	 * Pages the source found in small folios are drawn as it found
	 * them: reading their flags again would cost as much as the
	 * document did.
	 */
	if (!w->detail || !m->thp_on || w->v->small_folios) {
		counts[kind_state(pmaps_folio_kind(r->kb, m->psize), st)] +=
			to - from;
		return;
	}
	for (p = from; p < to; p++) {
		enum pmaps_folio_kind kind = PMAPS_FOLIO_UNKNOWN;
		uint64_t pfn;

		if (!pm_entry(m, first + p, first + w->npages, &e) ||
		    !(pfn = pmaps_pm_pfn(e))) {
			counts[kind_state(kind, st)]++;
			continue;
		}
		/* the other pages of the folio just measured: its kind */
		if (r->kb == PMAPS_KB_UNKNOWN && m->fc_kind_have && m->fc.have &&
		    m->fc_kind_head == m->fc.head && pfn >= m->fc.head &&
		    pfn - m->fc.head < m->fc.pages) {
			counts[kind_state(m->fc_kind, st)]++;
			continue;
		}
		if (pfn_kpf(m, (size_t)(first + p - m->ent_vpn), &kpf)) {
			/* a small page's kind needs no measuring */
			if (r->kb != PMAPS_KB_UNKNOWN ||
			    !pmaps_folio_kind_needs_kb(kpf)) {
				kind = pmaps_folio_kind_kpf(kpf, r->kb,
							    m->psize);
			} else {
				kb = folio_kb(m, pfn, kpf);
				kind = pmaps_folio_kind_kpf(kpf, kb, m->psize);
				m->fc_kind_have = kb != PMAPS_KB_UNKNOWN &&
						  m->fc.have;
				m->fc_kind_head = m->fc.head;
				m->fc_kind = kind;
			}
		}
		counts[kind_state(kind, st)]++;
	}
}

/* Pages [from, to) in no range: swapped or not present. */
static void count_absent(struct walker *w, unsigned long long from,
			 unsigned long long to, unsigned long long *counts)
{
	struct mapctx *m = w->m;
	unsigned long long first = w->v->start / m->psize, p;
	uint64_t e;

	if (!w->detail || !m->swap_on || !w->v->swapped) {
		counts[ST_NONE] += to - from;
		return;
	}
	for (p = from; p < to; p++) {
		bool swapped = pm_entry(m, first + p, first + w->npages, &e) &&
			       !(e & PMAPS_PM_PRESENT) && (e & PMAPS_PM_SWAP);

		counts[swapped ? ST_SWAPPED : ST_NONE]++;
	}
}

/* First page of range r, counted from the VMA's start. */
static unsigned long long range_page(const struct walker *w,
				     const struct pmaps_range *r)
{
	return (pmaps_range_addr(w->v, r) - w->v->start) / w->m->psize;
}

/* Add the states of the next n pages to counts. */
static void walk(struct walker *w, unsigned long long n,
		 unsigned long long *counts)
{
	const struct pmaps_vma *v = w->v;
	unsigned long long end = w->page + n;

	while (w->page < end) {
		const struct pmaps_range *r = NULL;
		unsigned long long rs = end, re = end, to;

		while (w->ri < v->nr_ranges) {
			r = &v->ranges[w->ri];
			rs = range_page(w, r);
			re = rs + r->count;
			if (re > w->page)
				break;
			w->ri++;
			r = NULL;
			rs = re = end;
		}
		if (r && rs <= w->page) {
			to = re < end ? re : end;
			count_resident(w, r, w->page, to,
				       w->m->opts->by ? (enum state)range_class(w->m, r) :
				       range_state(r), counts);
		} else {
			to = rs < end ? rs : end;
			count_absent(w, w->page, to, counts);
		}
		w->page = to;
	}
}

/* The strongest change over pages [from, to) of the VMA. */
static unsigned char change_mark(struct walker *w, unsigned long long from,
				 unsigned long long to)
{
	const struct pmaps_map_opts *o = w->m->opts;
	unsigned long long a = w->v->start + from * w->m->psize;
	unsigned long long b = w->v->start + to * w->m->psize;
	unsigned char mark = PMAPS_CHANGE_NONE;
	size_t k;

	while (w->ci < o->nr_changes && o->changes[w->ci].end <= a)
		w->ci++;
	for (k = w->ci; k < o->nr_changes && o->changes[k].start < b; k++)
		if (o->changes[k].end > a && o->changes[k].mark > mark)
			mark = (unsigned char)o->changes[k].mark;
	return mark;
}

/* The state most pages have, not counting ST_NONE; ties to the stronger. */
static enum state majority(const unsigned long long *counts)
{
	enum state best = ST_NONE;
	int s;

	for (s = ST_NONE + 1; s < CL_MAX; s++)
		if (counts[s] && (best == ST_NONE || counts[s] >= counts[best]))
			best = (enum state)s;
	return best;
}

static void next_cell(struct walker *w, unsigned long long scale,
		      struct cell *c)
{
	unsigned long long counts[CL_MAX] = { 0 }, from = w->page, n, busy;
	unsigned long long per_char = scale == 1 ? 2 : scale;
	int s;

	n = w->npages - from < per_char ? w->npages - from : per_char;
	if (scale == 1) {
		walk(w, 1, counts);
		for (s = 0; !counts[s]; s++)
			;
		c->first = (unsigned char)s;
		c->second = CL_MAX;
		if (n == 2) {
			unsigned long long one[CL_MAX] = { 0 };

			walk(w, 1, one);
			for (s = 0; !one[s]; s++)
				;
			c->second = (unsigned char)s;
			counts[s]++;
		}
	} else {
		walk(w, n, counts);
	}
	c->state = (unsigned char)majority(counts);
	busy = n - counts[ST_NONE];
	c->shade = (unsigned char)(busy ? (4 * busy + n - 1) / n : 0);
	/*
	 * Without colour the glyph shows how full the cell is, as the shades
	 * do: a few pages in a large cell must not look like a full one.
	 */
	if (c->state == ST_NONE) {
		c->letter = '.';
	} else if (c->shade == 1) {
		c->letter = ':';	/* up to 1/4 resident or swapped */
	} else {
		c->letter = w->m->sty[c->state].letter;
		/* lowercase: up to 1/2 */
		if (c->shade == 2 && c->letter >= 'A' && c->letter <= 'Z')
			c->letter = (char)(c->letter - 'A' + 'a');
	}
	c->mark = change_mark(w, from, from + n);
}

/* ---- layout ---- */

static int hex_digits(unsigned long long v)
{
	int n = 1;

	while (n < 16 && v >> (4 * n))
		n++;
	return n;
}

static unsigned long long vma_pages(const struct mapctx *m,
				    const struct pmaps_vma *v)
{
	return (v->end - v->start) / m->psize;
}

static unsigned long long pages_per_row(const struct mapctx *m,
					unsigned long long scale)
{
	return m->row_chars * (scale == 1 ? 2 : scale);
}

/* --scale, or the smallest power of two that fits in MAX_ROWS rows. */
static unsigned long long vma_scale(const struct mapctx *m,
				    const struct pmaps_vma *v)
{
	unsigned long long npages = vma_pages(m, v), s = 1;

	if (m->opts->scale)
		return m->opts->scale;
	while ((npages + pages_per_row(m, s) - 1) / pages_per_row(m, s) >
	       MAX_ROWS)
		s *= 2;
	return s;
}

static unsigned long long vma_rows(const struct mapctx *m,
				   const struct pmaps_vma *v)
{
	unsigned long long per_row = pages_per_row(m, vma_scale(m, v));

	return (vma_pages(m, v) + per_row - 1) / per_row;
}

static bool vma_detail(const struct mapctx *m, const struct pmaps_vma *v)
{
	return m->have_pm && vma_pages(m, v) <= DETAIL_MAX_PAGES;
}

/*
 * The part of v that is drawn: with --range, the whole pages in its
 * window (the filter kept only VMAs that overlap it), the file offset
 * moved with the start so that the ranges keep their addresses.  A copy
 * that shares v's name and ranges.
 */
static struct pmaps_vma vma_shown(const struct mapctx *m,
				  const struct pmaps_vma *v)
{
	const struct pmaps_filter *f = m->opts->filter;
	struct pmaps_vma cut = *v;
	unsigned long long lo;

	if (!f || !f->has_range)
		return cut;
	lo = f->lo / m->psize * m->psize;
	if (lo > cut.start) {
		cut.offset += lo - cut.start;
		cut.start = lo;
	}
	/* below a page-aligned end: rounding up cannot overflow */
	if (f->hi < cut.end)
		cut.end = (f->hi + m->psize - 1) / m->psize * m->psize;
	return cut;
}

/* What --flags and --range leave out of the picture, under the legend. */
static void note_filter(struct mapctx *m)
{
	const struct pmaps_filter *f = m->opts->filter;

	if (f && f->has_flags)
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "--flags: only the pages of matching ranges are drawn, all others as not present");
	if (f && f->has_range)
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "--range: only addresses %llx-%llx are drawn, each VMA cut to them",
			 f->lo, f->hi);
}

/*
 * Note the flags the source could not tell, which count as clear, and
 * withheld mapcounts, which count as not shared.
 */
static void note_unknown(struct mapctx *m)
{
	const struct pmaps_map *map = &m->doc->map;
	unsigned int unknown = 0;
	bool mapcount_unknown = false;
	size_t i, j;

	for (i = 0; i < map->nr_vmas; i++) {
		for (j = 0; j < map->vmas[i].nr_ranges; j++) {
			const struct pmaps_range *r = &map->vmas[i].ranges[j];

			unknown |= r->unknown;
			if (r->mapcount == PMAPS_MAPCOUNT_UNKNOWN)
				mapcount_unknown = true;
			if (range_state(r) == ST_UNKNOWN)
				m->any_unknown = true;
		}
	}
	if (unknown & (1u << PMAPS_YOUNG))
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "young: not known from source %s, not shown",
			 pmaps_source_name(m->doc->source));
	if (unknown & (1u << PMAPS_PTE_DIRTY))
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "pte-dirty: not known from source %s for some pages, drawn as ? where no other state is known",
			 pmaps_source_name(m->doc->source));
	/*
	 * the kernel withholds them from a reader without root; the pagemap
	 * source has none to show without root
	 */
	if (unknown & ((1u << PMAPS_DIRTY) | (1u << PMAPS_WRITEBACK)))
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "PG_dirty, writeback: not known ('?') for some pages, drawn as ? where no other state is known");
	if (mapcount_unknown)
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]),
			 "shared: mapcount not known ('?') for some pages, drawn as not shared");
}

static void by_class(struct mapctx *m, int c, const char *name, char letter,
		     unsigned char xterm, const unsigned char rgb[3])
{
	struct state_style *st = &m->by_styles[c];

	snprintf(m->by_names[c], sizeof(m->by_names[c]), "%s", name);
	st->name = m->by_names[c];
	st->letter = letter;
	st->xterm = xterm;
	memcpy(st->rgb, rgb, 3);
}

/* --by: the classes, and those of the document's ranges for the legend. */
static void by_init(struct mapctx *m)
{
	const struct pmaps_map *map = &m->doc->map;
	const struct state_style *grey = &styles[ST_UNKNOWN];
	unsigned long long base = m->psize / 1024;
	bool used[CL_MAX] = { true };
	char name[64];
	size_t i, j;
	int c;

	by_class(m, 0, styles[ST_NONE].name, styles[ST_NONE].letter,
		 styles[ST_NONE].xterm, styles[ST_NONE].rgb);
	if (m->opts->by == PMAPS_MAP_BY_NODE) {
		m->nr_cl = CN_NR;
		for (c = 0; c < BY_NODES; c++) {
			snprintf(name, sizeof(name), "node %d", c);
			by_class(m, CN_NODE0 + c, name, (char)('0' + c),
				 node_colors[c].xterm, node_colors[c].rgb);
		}
		snprintf(name, sizeof(name), "node %d and above", BY_NODES);
		by_class(m, CN_HIGH, name, '+', node_colors[BY_NODES].xterm,
			 node_colors[BY_NODES].rgb);
		by_class(m, CN_UNKNOWN, "node not known ('?')", '?',
			 grey->xterm, grey->rgb);
	} else if (m->opts->by == PMAPS_MAP_BY_AGE) {
		m->nr_cl = CA_NR;
		for (c = 0; c <= PMAPS_AGE_MAX; c++) {
			snprintf(name, sizeof(name), "age %d%s", c,
				 c == 0 ? " (youngest)" : "");
			by_class(m, CA_AGE0 + c, name, (char)('0' + c),
				 age_colors[c].xterm, age_colors[c].rgb);
		}
		by_class(m, CA_UNKNOWN, "age not known ('?')", '?',
			 grey->xterm, grey->rgb);
	} else {
		m->nr_cl = CZ_NR;
		snprintf(name, sizeof(name), "%llu KiB", base);
		by_class(m, CZ_BASE, name, 'S', styles[ST_CLEAN].xterm,
			 styles[ST_CLEAN].rgb);
		snprintf(name, sizeof(name), "mTHP (%llu KiB to %llu KiB)",
			 2 * base, pmaps_pmd_kb(m->psize) / 2);
		by_class(m, CZ_MTHP, name, 'M', styles[ST_SHARED].xterm,
			 styles[ST_SHARED].rgb);
		snprintf(name, sizeof(name), "%llu MiB (PMD, thp)",
			 pmaps_pmd_kb(m->psize) / 1024);
		by_class(m, CZ_PMD, name, 'H', styles[ST_THP].xterm,
			 styles[ST_THP].rgb);
		snprintf(name, sizeof(name), "%llu GiB (PUD)",
			 pmaps_pud_kb(m->psize) / 1024 / 1024);
		by_class(m, CZ_PUD, name, 'G', styles[ST_SWAPPED].xterm,
			 styles[ST_SWAPPED].rgb);
		by_class(m, CZ_OTHER, "other size", 'O',
			 styles[ST_WRITEBACK].xterm, styles[ST_WRITEBACK].rgb);
		by_class(m, CZ_UNKNOWN, "size not known ('?')", '?',
			 grey->xterm, grey->rgb);
	}
	m->sty = m->by_styles;
	for (i = 0; i < map->nr_vmas; i++)
		for (j = 0; j < map->vmas[i].nr_ranges; j++)
			used[range_class(m, &map->vmas[i].ranges[j])] = true;
	for (c = 0; c < m->nr_cl; c++)
		if (used[c])
			m->legend[m->nr_legend++] = (unsigned char)c;
}

static void ctx_init(struct mapctx *m, const struct pmaps_map_opts *opts,
		     const struct pmaps_doc *doc)
{
	const struct pmaps_map *map = &doc->map;
	struct pmaps_vma last;
	unsigned int room;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->opts = opts;
	m->doc = doc;
	/* the document's: a saved one may come from another kernel */
	m->psize = pmaps_map_page_size(map);
	m->aw = 8;
	if (map->nr_vmas) {
		last = vma_shown(m, &map->vmas[map->nr_vmas - 1]);
		if (hex_digits(last.end) > 8)
			m->aw = hex_digits(last.end);
	}
	/* "  ADDRESS " before the cells */
	room = opts->width > (unsigned int)m->aw + 3 ?
	       opts->width - (unsigned int)m->aw - 3 : 0;
	m->row_chars = room / ROW_STEP * ROW_STEP;
	if (m->row_chars < MIN_ROW_CHARS)
		m->row_chars = MIN_ROW_CHARS;
	for (i = 0; i < map->nr_vmas; i++) {
		struct pmaps_vma v = vma_shown(m, &map->vmas[i]);

		if (vma_scale(m, &v) > 1)
			m->any_zoom = true;
	}
	m->sty = styles;
	m->nr_cl = ST_NR;
	if (opts->by) {
		/* no state is drawn: swap, THP and unknown flags do not matter */
		by_init(m);
		note_filter(m);
		return;
	}
	note_unknown(m);
	note_filter(m);
	detail_open(m);
	/* swapped pages match no --flags: not drawn as swapped */
	if (opts->filter && opts->filter->has_flags)
		m->swap_on = false;
}

/*
 * s into buf (len > 4), control bytes as \xNN so that no document or
 * process name can drive the terminal; returns the length.
 */
static size_t escape_name(char *buf, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (; *p && n + 5 < len; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			buf[n++] = (char)*p;
		} else {
			buf[n++] = '\\';
			buf[n++] = 'x';
			buf[n++] = hex[*p >> 4];
			buf[n++] = hex[*p & 15];
		}
	}
	buf[n] = '\0';
	return n;
}

/* "LABEL: source SOURCE" */
static void doc_title(const struct pmaps_doc *doc, char *buf, size_t len)
{
	size_t n = escape_name(buf, len, doc->label);
	char source[128];

	snprintf(buf + n, len - n, ": source %s",
		 pmaps_doc_source(doc, source, sizeof(source)));
}

/* "START-END PERMS NAME  N pages[, N a character][, ...]" */
static void vma_title(const struct mapctx *m, const struct pmaps_vma *v,
		      char *buf, size_t len)
{
	unsigned long long npages = vma_pages(m, v), scale = vma_scale(m, v);
	size_t n;

	n = (size_t)snprintf(buf, len, "%0*llx-%0*llx %.4s ", m->aw, v->start,
			     m->aw, v->end, v->perms);
	n += escape_name(buf + n, len - n, *v->name ? v->name : "[anon]");
	n += (size_t)snprintf(buf + n, len - n, "  %llu page%s", npages,
			      npages == 1 ? "" : "s");
	if (scale > 1 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %llu a character",
				      scale);
	if (m->have_pm && !vma_detail(m, v) && n < len)
		snprintf(buf + n, len - n,
			 ", swap and thp not read (over %llu pages)",
			 DETAIL_MAX_PAGES);
}

static void walker_init(struct walker *w, struct mapctx *m,
			const struct pmaps_vma *v)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->v = v;
	w->npages = vma_pages(m, v);
	w->detail = vma_detail(m, v);
}

/* ---- text ---- */

/* SGR colours in force, so that a row of alike cells has few escapes. */
struct painter {
	FILE *out;
	int fg, bg;			/* xterm index, -1: default */
	bool bold;
};

static void paint(struct painter *p, int fg, int bg, bool bold)
{
	/* only a reset takes bold or a colour away */
	if ((p->bold && !bold) || (p->fg >= 0 && fg < 0) ||
	    (p->bg >= 0 && bg < 0)) {
		fputs("\033[0m", p->out);
		p->fg = p->bg = -1;
		p->bold = false;
	}
	if (bold && !p->bold)
		fputs("\033[1m", p->out);
	if (fg >= 0 && fg != p->fg)
		fprintf(p->out, "\033[38;5;%dm", fg);
	if (bg >= 0 && bg != p->bg)
		fprintf(p->out, "\033[48;5;%dm", bg);
	p->fg = fg;
	p->bg = bg;
	p->bold = bold;
}

static void text_cell(struct painter *p, const struct cell *c,
		      unsigned long long scale, bool color,
		      const struct state_style *sty)
{
	if (!color) {
		putc(c->mark ? change_symbols[c->mark] : c->letter, p->out);
		return;
	}
	if (c->mark) {
		/* bright white over the colour of the cell */
		paint(p, 231, sty[c->state].xterm, true);
		putc(change_symbols[c->mark], p->out);
	} else if (scale == 1) {
		paint(p, sty[c->first].xterm,
		      c->second < CL_MAX ? sty[c->second].xterm : -1,
		      false);
		fputs(UPPER_HALF, p->out);
	} else {
		/* a blank shows no foreground: keep the one in force */
		paint(p, c->shade || p->fg < 0 ? sty[c->state].xterm : p->fg,
		      sty[ST_NONE].xterm, false);
		fputs(shades[c->shade], p->out);
	}
}

/* --by: the classes of the document, then how a character reads. */
static void text_legend_by(struct mapctx *m, FILE *out)
{
	bool color = m->opts->color;
	int i;

	for (i = 0; i < m->nr_legend; i++) {
		const struct state_style *s = &m->sty[m->legend[i]];

		fputs(i == 0 ? "legend: " : i % 4 == 0 ? "\n        " : "  ",
		      out);
		if (color)
			fprintf(out, "\033[38;5;%dm" UPPER_HALF UPPER_HALF
				"\033[0m %s", s->xterm, s->name);
		else
			fprintf(out, "%c %s", s->letter, s->name);
	}
	putc('\n', out);
	if (color)
		fputs("  " UPPER_HALF " is 2 pages: the upper half the first, the lower half the second\n",
		      out);
	else if (m->opts->by == PMAPS_MAP_BY_NODE)
		fputs("  no colour: a character is 2 pages, the number of the node most of them\n"
		      "  are on (the later one in the legend on a tie)\n", out);
	else if (m->opts->by == PMAPS_MAP_BY_AGE)
		fputs("  no colour: a character is 2 pages, the age most of them have (the\n"
		      "  later one in the legend on a tie)\n", out);
	else
		fputs("  no colour: a character is 2 pages, the letter of the size most of them\n"
		      "  have (the later one in the legend on a tie), uppercase when both are\n"
		      "  resident, lowercase when one is\n", out);
	if (m->any_zoom && color)
		fprintf(out, "  zoomed, a character is N pages: the class most of those resident have,\n"
			"  %s %s %s %s when up to 1/4, 1/2, 3/4, all of them are\n",
			shades[1], shades[2], shades[3], shades[4]);
	else if (m->any_zoom)
		fputs("  zoomed, a character is N pages: the class most of those resident have,\n"
		      "  a letter in uppercase when more than 1/2 of the N are, lowercase when\n"
		      "  more than 1/4; : when up to 1/4\n", out);
	for (i = 0; i < (int)m->nr_notes; i++)
		fprintf(out, "note: %s\n", m->notes[i]);
}

static void text_legend(struct mapctx *m, FILE *out)
{
	/* two lines of five, weakest first; unknown on a third, if drawn */
	static const unsigned char order[] = {
		ST_NONE, ST_CLEAN, ST_YOUNG, ST_SHARED,
		ST_DIRTY, ST_MTHP, ST_THP, ST_WRITEBACK, ST_SWAPPED, ST_UNKNOWN,
	};
	bool color = m->opts->color;
	size_t i, n = m->any_unknown ? ST_NR : ST_NR - 1;

	if (m->opts->by) {
		text_legend_by(m, out);
		return;
	}
	for (i = 0; i < n; i++) {
		int s = order[i];

		fputs(i == 0 ? "legend: " :
		      i % 5 == 0 || s == ST_UNKNOWN ? "\n        " : "  ",
		      out);
		if (color)
			fprintf(out, "\033[38;5;%dm" UPPER_HALF UPPER_HALF
				"\033[0m %s", styles[s].xterm, styles[s].name);
		else
			fprintf(out, "%c %s", styles[s].letter,
				styles[s].name);
	}
	putc('\n', out);
	if (color)
		fputs("  " UPPER_HALF " is 2 pages: the upper half the first, the lower half the second\n",
		      out);
	else
		fputs("  a character is 2 pages: the state most of them have (the later one on a tie),\n"
		      "  uppercase when both are resident or swapped, lowercase when one is\n",
		      out);
	if (m->any_zoom && color)
		fprintf(out, "  zoomed, a character is N pages: the state most of those resident or\n"
			"  swapped have, %s %s %s %s when up to 1/4, 1/2, 3/4, all of them are\n",
			shades[1], shades[2], shades[3], shades[4]);
	else if (m->any_zoom)
		fputs("  zoomed, a character is N pages: the state most of those resident or\n"
		      "  swapped have, uppercase when more than 1/2 of the N are, lowercase when\n"
		      "  more than 1/4; : when up to 1/4\n", out);
	if (m->opts->changes)
		fputs("  changed since the last frame: + appeared, - vanished, ! became dirty,\n"
		      "  * became young\n", out);
	for (i = 0; i < m->nr_notes; i++)
		fprintf(out, "note: %s\n", m->notes[i]);
}

static void text_vma(struct mapctx *m, FILE *out,
		     const struct pmaps_vma *whole)
{
	struct painter p = { .out = out, .fg = -1, .bg = -1 };
	const struct pmaps_vma shown = vma_shown(m, whole), *v = &shown;
	unsigned long long scale = vma_scale(m, v), row;
	unsigned long long rows = vma_rows(m, v);
	unsigned long long per_row = pages_per_row(m, scale);
	char title[512];
	struct walker w;
	struct cell c;
	unsigned int i;

	vma_title(m, v, title, sizeof(title));
	fprintf(out, "%s%s%s\n", m->opts->color ? "\033[1m" : "", title,
		m->opts->color ? "\033[0m" : "");
	walker_init(&w, m, v);
	for (row = 0; row < rows && !ferror(out); row++) {
		fprintf(out, "  %0*llx ", m->aw,
			v->start + row * per_row * m->psize);
		for (i = 0; i < m->row_chars && w.page < w.npages; i++) {
			next_cell(&w, scale, &c);
			text_cell(&p, &c, scale, m->opts->color, m->sty);
		}
		if (m->opts->color)
			paint(&p, -1, -1, false);
		putc('\n', out);
	}
}

int pmaps_map_draw(FILE *out, const struct pmaps_map_opts *opts,
		   const struct pmaps_doc *doc)
{
	struct mapctx m;
	char title[256];
	size_t i;

	ctx_init(&m, opts, doc);
	doc_title(doc, title, sizeof(title));
	fprintf(out, "%s%s%s\n", opts->color ? "\033[1m" : "", title,
		opts->color ? "\033[0m" : "");
	text_legend(&m, out);
	for (i = 0; i < doc->map.nr_vmas && !ferror(out); i++)
		text_vma(&m, out, &doc->map.vmas[i]);
	detail_close(&m);
	if (ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* ---- PNG ---- */

/*
 * The same picture as an 8-bit palette PNG (png.c), a band of LINE_PX
 * pixel rows per line of text or row of cells.
 */
#define LINE_PX		PMAPS_PNG_LINE_PX
#define GLYPH_PX	PMAPS_PNG_GLYPH_PX
#define CELL_PX		5		/* width of a character's cell */
#define PAGE_PX		5		/* height of a page at scale 1 */
#define SWATCH_PX	10
#define MAX_HEIGHT_PX	PMAPS_PNG_MAX_HEIGHT
#define MAX_TEXT_CHARS	PMAPS_PNG_MAX_TEXT_CHARS

/* Palette index of state s shaded q quarters (1..4). */
static unsigned char pal_index(int s, int q)
{
	return (unsigned char)(PMAPS_PNG_COLORS + s * 4 + (q - 1));
}

#define NR_COLORS	(CL_MAX * 4)

static void png_cell(struct pmaps_png *png, unsigned int x, const struct cell *c,
		     unsigned long long scale)
{
	if (scale == 1) {
		pmaps_png_fill(png, x, 1, CELL_PX, PAGE_PX, pal_index(c->first, 4));
		if (c->second < CL_MAX)
			pmaps_png_fill(png, x, 1 + PAGE_PX, CELL_PX, PAGE_PX,
				 pal_index(c->second, 4));
	} else {
		pmaps_png_fill(png, x, 1, CELL_PX, 2 * PAGE_PX,
			 c->shade ? pal_index(c->state, c->shade) :
			 pal_index(ST_NONE, 4));
	}
}

/* Lines of text before the VMAs: title, a line per state, notes. */
static size_t png_head_lines(const struct mapctx *m)
{
	size_t classes = m->opts->by ? (size_t)m->nr_legend :
			 ST_NR - (m->any_unknown ? 0 : 1);

	return 1 + classes + (m->any_zoom ? 1 : 0) + m->nr_notes;
}

static void png_head(struct mapctx *m, struct pmaps_png *png)
{
	char line[256];
	size_t i;
	int s;

	doc_title(m->doc, line, sizeof(line));
	pmaps_png_text_line(png, line);
	for (s = 0; s < (m->opts->by ? m->nr_legend : ST_NR); s++) {
		int c = m->opts->by ? m->legend[s] : s;

		if (!m->opts->by && s == ST_UNKNOWN && !m->any_unknown)
			continue;
		pmaps_png_fill(png, GLYPH_PX, 1, SWATCH_PX, SWATCH_PX,
			 pal_index(c, 4));
		pmaps_png_text(png, 3 * GLYPH_PX, m->sty[c].name);
		pmaps_png_band(png);
	}
	if (m->any_zoom)
		pmaps_png_text_line(png, "zoomed: a cell is N pages, brighter when more are resident");
	for (i = 0; i < m->nr_notes; i++) {
		snprintf(line, sizeof(line), "note: %s", m->notes[i]);
		pmaps_png_text_line(png, line);
	}
}

static void png_vma(struct mapctx *m, struct pmaps_png *png,
		    const struct pmaps_vma *whole)
{
	const struct pmaps_vma shown = vma_shown(m, whole), *v = &shown;
	unsigned long long scale = vma_scale(m, v), rows = vma_rows(m, v);
	unsigned long long per_row = pages_per_row(m, scale), row;
	unsigned int x0 = ((unsigned int)m->aw + 3) * GLYPH_PX, i;
	char line[512];
	struct walker w;
	struct cell c;

	vma_title(m, v, line, sizeof(line));
	pmaps_png_text_line(png, line);
	walker_init(&w, m, v);
	for (row = 0; row < rows && !pmaps_png_error(png); row++) {
		snprintf(line, sizeof(line), "  %0*llx", m->aw,
			 v->start + row * per_row * m->psize);
		pmaps_png_text(png, 0, line);
		for (i = 0; i < m->row_chars && w.page < w.npages; i++) {
			next_cell(&w, scale, &c);
			png_cell(png, x0 + i * CELL_PX, &c, scale);
		}
		pmaps_png_band(png);
	}
}

/*
 * Write doc as a PNG to f.  Return 0; -1 with a message in err when the
 * image cannot be made (too tall, out of memory); or, when writing f
 * failed, the errno value.
 */
static int map_png(FILE *f, const struct pmaps_map_opts *opts,
		   const struct pmaps_doc *doc, char *err, size_t errlen)
{
	unsigned char rgb[NR_COLORS][3];
	unsigned long long lines;
	struct pmaps_png *png;
	size_t i, text_chars;
	int s, q, k;
	unsigned int width;
	struct mapctx m;
	char line[512];
	int ret = -1;

	ctx_init(&m, opts, doc);
	/* as wide as the rows of cells, or the longest line of text */
	width = ((unsigned int)m.aw + 3) * GLYPH_PX + m.row_chars * CELL_PX +
		GLYPH_PX;
	doc_title(doc, line, sizeof(line));
	text_chars = strlen(line);
	for (i = 0; i < m.nr_notes; i++)
		if (strlen(m.notes[i]) + 6 > text_chars)
			text_chars = strlen(m.notes[i]) + 6;
	lines = png_head_lines(&m);
	for (i = 0; i < doc->map.nr_vmas; i++) {
		struct pmaps_vma v = vma_shown(&m, &doc->map.vmas[i]);

		lines += 1 + vma_rows(&m, &v);
		vma_title(&m, &v, line, sizeof(line));
		if (strlen(line) > text_chars)
			text_chars = strlen(line);
	}
	if (text_chars > MAX_TEXT_CHARS)
		text_chars = MAX_TEXT_CHARS;
	if (text_chars * GLYPH_PX > width)
		width = (unsigned int)text_chars * GLYPH_PX;
	if (lines > MAX_HEIGHT_PX / LINE_PX) {
		snprintf(err, errlen, "the image would be %llu pixels tall, more than %u: use a larger --scale",
			 lines * LINE_PX, MAX_HEIGHT_PX);
		goto out;
	}
	/* a quarter step from "not present" towards the state's colour */
	for (s = 0; s < m.nr_cl; s++)
		for (q = 1; q <= 4; q++)
			for (k = 0; k < 3; k++)
				rgb[pal_index(s, q) - PMAPS_PNG_COLORS][k] =
					(unsigned char)
					(m.sty[ST_NONE].rgb[k] +
					 (m.sty[s].rgb[k] -
					  m.sty[ST_NONE].rgb[k]) * q / 4);
	/* the states' palette, as before --by, unless --by needs more */
	png = pmaps_png_open(f, width, (unsigned int)lines * LINE_PX, rgb[0],
			     (size_t)m.nr_cl * 4, err, errlen);
	if (!png)
		goto out;
	png_head(&m, png);
	for (i = 0; i < doc->map.nr_vmas && !ferror(f); i++)
		png_vma(&m, png, &doc->map.vmas[i]);
	ret = pmaps_png_close(png, err, errlen);
out:
	detail_close(&m);
	return ret;
}

/* ---- the command ---- */

static const char map_usage[] =
"Usage: pmaps map [OPTION]... PID...\n"
"       pmaps map [OPTION]... -p NAME | -f FILE\n"
"Draw each VMA as a picture of its pages, one cell per page and two pages\n"
"per character, coloured by state, each row labelled with its address.\n"
"\n"
"Targets, as for pmaps:\n"
"  PID                   a process; several may be given\n"
"  -p, --pid-name NAME   every process named NAME\n"
"  -f, --file FILE       a saved pmaps document, - for stdin\n"
"      --source=SOURCE   auto, kernel, module, pagemap or file\n"
PMAPS_PAGE_SIZE_HELP
"\n"
"Picture:\n"
"  -w, --width COLUMNS   fill this many columns (default: COLUMNS, else the\n"
"                        terminal's width, else 80); a row holds a multiple\n"
"                        of 16 pages, at least 80\n"
"  -s, --scale N         N pages per cell in every VMA; by default 1, and a\n"
"                        VMA that would take more than 16 rows gets the\n"
"                        smallest power of two that fits it in 16\n"
"      --png FILE        write the picture to FILE as a PNG image instead\n"
"                        (one target; - for stdout, but not a terminal)\n"
"      --by node|size|age  colour each page by its NUMA node, by the size\n"
"                        of its folio (4 KiB, mTHP, 2 MiB PMD, 1 GiB PUD),\n"
"                        or by its MGLRU age (0 youngest to 3), '?' in grey\n"
"                        where the source cannot tell, instead of by state;\n"
"                        needs the NODE and KB columns (and AGE for age):\n"
"                        --numa, or a file saved by pmaps --numa\n"
"      --numa            read the NUMA files of a process (see pmaps --help)\n"
"      --color[=WHEN]    auto (default: if stdout is a terminal and NO_COLOR\n"
"                        is unset or empty), always or never; without colour\n"
"                        a character is a letter, as the legend says\n"
"  -h, --help            show this help and exit\n"
"\n"
"Filters, as for pmaps: only the VMAs --areas selects are drawn, only the\n"
"pages of the ranges that match --flags (all others as not present), only\n"
"the addresses in --range (each VMA cut to them):\n"
PMAPS_FILTER_HELP
"\n"
"A page's state is the first that holds of: swapped, writeback, thp, mTHP,\n"
"dirty (D or P), shared (mapcount above 1), young, clean, not present.  thp\n"
"is a page of a PMD-sized transparent folio (2 MiB with 4 KiB pages), mTHP\n"
"of a smaller large one.  Swapped is read from pagemap for live processes;\n"
"thp and mTHP from kpageflags (root), else from KB (--numa).  A flag\n"
"or mapcount shown as '?' counts as clear, or not shared; but a resident\n"
"page is clean only where P, D and W are known: else, none of the others\n"
"holding, it is '?', state not known (the pagemap source without root\n"
"knows no page state).\n"
"\n"
"Exit status: 0 if all went well, 1 if a process or file could not be\n"
"read, 2 for malformed input or bad usage.\n";

enum {
	OPT_SOURCE = 256,
	OPT_COLOR,
	OPT_PNG,
	OPT_BY,
	OPT_NUMA,
};

static const struct option map_options[] = {
	{ "pid-name",	required_argument, NULL, 'p' },
	{ "file",	required_argument, NULL, 'f' },
	{ "source",	required_argument, NULL, OPT_SOURCE },
	{ "width",	required_argument, NULL, 'w' },
	{ "scale",	required_argument, NULL, 's' },
	{ "png",	required_argument, NULL, OPT_PNG },
	{ "by",		required_argument, NULL, OPT_BY },
	{ "numa",	no_argument,	   NULL, OPT_NUMA },
	{ "color",	optional_argument, NULL, OPT_COLOR },
	PMAPS_FILTER_OPTIONS,
	PMAPS_PAGE_SIZE_OPTION,
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_map_options = {
	.shortopts = "p:f:w:s:h",
	.longopts = map_options,
};

struct map_run {
	struct pmaps_map_opts opts;
	struct pmaps_filter filter;
	enum pmaps_source source;
	const char *png_path;
	size_t nr_drawn;
	enum pmaps_status status;	/* worst so far */
	bool write_failed;		/* on stdout, and said so */
};

#define map_usage_error(...) pmaps_cmd_usage_error("map", __VA_ARGS__)

static void map_note(struct map_run *run, enum pmaps_status st)
{
	if (st > run->status)
		run->status = st;
}

/* Writing stdout failed with err: say so once, as every command does. */
static void map_write_error(struct map_run *run, int err)
{
	if (!run->write_failed)
		fprintf(stderr, "pmaps map: write error: %s\n", strerror(err));
	run->write_failed = true;
	map_note(run, PMAPS_ERR_TARGET);
}

static void map_png_out(struct map_run *run, const struct pmaps_doc *doc)
{
	bool is_stdout = !strcmp(run->png_path, "-");
	struct pmaps_outfile o;
	char err[PATH_MAX * 2 + 128];
	FILE *f = stdout;
	int ret;

	if (!is_stdout) {
		if (pmaps_outfile_open(&o, run->png_path, 0666, err,
				       sizeof(err))) {
			fprintf(stderr, "pmaps map: %s\n", err);
			map_note(run, PMAPS_ERR_TARGET);
			return;
		}
		f = pmaps_outfile_stream(&o);
		if (!f) {
			fprintf(stderr, "pmaps map: %s: %s\n", run->png_path,
				strerror(errno));
			pmaps_outfile_abort(&o);
			map_note(run, PMAPS_ERR_TARGET);
			return;
		}
	}
	ret = map_png(f, &run->opts, doc, err, sizeof(err));
	if (ret > 0 && is_stdout) {
		map_write_error(run, ret);
	} else if (ret) {
		fprintf(stderr, "pmaps map: %s: %s\n", run->png_path,
			ret > 0 ? strerror(ret) : err);
		map_note(run, PMAPS_ERR_TARGET);
	}
	if (is_stdout)
		return;
	/* no half image in place of what was there */
	if (ret)
		pmaps_outfile_abort(&o);
	else if (pmaps_outfile_commit(&o, NULL, err, sizeof(err))) {
		fprintf(stderr, "pmaps map: %s\n", err);
		map_note(run, PMAPS_ERR_TARGET);
	}
}

/*
 * Load one target, draw it and let it go: one document at a time.  denied:
 * as for pmaps -p NAME, where the processes the caller may not read are
 * counted, to be said once (NULL: each is said).
 */
static void map_one(struct map_run *run, const char *file, int pid,
		    int *denied)
{
	struct pmaps_doc doc;
	enum pmaps_status st;
	char err[4096];

	if (file)
		st = pmaps_load_file(file, &doc, err, sizeof(err));
	else
		st = pmaps_load_pid(pid, run->source, &doc, err, sizeof(err));
	if (!st) {
		pmaps_doc_warn(&doc);
		pmaps_filter_apply(&run->filter, &doc.map);
	}
	if (st && denied && st == PMAPS_ERR_TARGET && pmaps_pid_denied(pid)) {
		(*denied)++;
		map_note(run, st);
	} else if (st) {
		pmaps_cmd_report("map", err);
		map_note(run, st);
	} else if (run->opts.by == PMAPS_MAP_BY_AGE &&
		   !(doc.map.numa && doc.map.age)) {
		map_note(run, map_usage_error("%s: --by age: expected the AGE column, which it lacks; read the process with --numa, or save it with pmaps --numa",
					      doc.label));
	} else if (run->opts.by && !doc.map.numa) {
		/* drawing every page as '?' would hide the mistake */
		map_note(run, map_usage_error("%s: --by %s: expected the NODE and KB columns, which it lacks; read the process with --numa, or save it with pmaps --numa",
					      doc.label,
					      run->opts.by == PMAPS_MAP_BY_NODE ?
					      "node" : "size"));
	} else if (run->png_path && run->nr_drawn) {
		fprintf(stderr, "pmaps map: --png draws one target, %s is another\n",
			doc.label);
		map_note(run, PMAPS_ERR_INPUT);
	} else if (run->png_path) {
		map_png_out(run, &doc);
		run->nr_drawn++;
	} else if (!run->write_failed) {
		if (run->nr_drawn++)
			putchar('\n');
		if (pmaps_map_draw(stdout, &run->opts, &doc))
			map_write_error(run, errno);
	}
	pmaps_doc_free(&doc);
}

static void map_name(struct map_run *run, const char *name)
{
	int i, n, *pids, denied = 0;

	n = pmaps_pids_by_name(name, &pids);
	if (n < 0) {
		fprintf(stderr, "pmaps map: /proc: %s\n", strerror(errno));
		map_note(run, PMAPS_ERR_TARGET);
	} else if (!n) {
		fprintf(stderr, "pmaps map: no process named %s\n", name);
		map_note(run, PMAPS_ERR_TARGET);
	}
	for (i = 0; i < n; i++)
		map_one(run, NULL, pids[i], &denied);
	if (denied)
		pmaps_report_denied("map", denied, name);
	free(pids);
}

/* A target as given: -f FILE, -p NAME, or a PID (a file with --source=file). */
struct map_target {
	int kind;			/* 'f', 'p' or 0 */
	const char *arg;
};

static void map_targets(struct map_run *run, const struct map_target *t,
			size_t nr)
{
	size_t i;
	int pid;

	for (i = 0; i < nr; i++) {
		if (t[i].kind == 'p')
			map_name(run, t[i].arg);
		else if (t[i].kind == 'f' || run->source == PMAPS_SRC_FILE)
			map_one(run, t[i].arg, 0, NULL);
		else if (pmaps_parse_pid(t[i].arg, &pid))
			map_one(run, NULL, pid, NULL);
	}
}

static int map_option(struct map_run *run, int opt, enum pmaps_color_when *when)
{
	unsigned long long val;

	switch (opt) {
	case PMAPS_OPT_PAGE_SIZE:
		return pmaps_page_size_option("map", optarg);
	case OPT_SOURCE:
		if (pmaps_source_parse(optarg, &run->source))
			return map_usage_error("--source: expected auto, kernel, module, pagemap or file, got '%s'",
					       optarg);
		return PMAPS_OK;
	case 'w':
		if (!pmaps_number_parse(optarg, 1, 100000, &val))
			return map_usage_error("--width: expected a number of columns, got '%s'",
					       optarg);
		run->opts.width = (unsigned int)val;
		return PMAPS_OK;
	case 's':
		if (!pmaps_number_parse(optarg, 1, PMAPS_MAP_MAX_SCALE, &val))
			return map_usage_error("--scale: expected a number of pages from 1 to %llu, got '%s'",
					       PMAPS_MAP_MAX_SCALE, optarg);
		run->opts.scale = val;
		return PMAPS_OK;
	case OPT_PNG:
		run->png_path = optarg;
		return PMAPS_OK;
	case OPT_BY:
		if (!strcmp(optarg, "node"))
			run->opts.by = PMAPS_MAP_BY_NODE;
		else if (!strcmp(optarg, "size"))
			run->opts.by = PMAPS_MAP_BY_SIZE;
		else if (!strcmp(optarg, "age"))
			run->opts.by = PMAPS_MAP_BY_AGE;
		else
			return map_usage_error("--by: expected node, size or age, got '%s'",
					       optarg);
		return PMAPS_OK;
	case OPT_NUMA:
		pmaps_source_numa = true;
		return PMAPS_OK;
	case OPT_COLOR:
		if (pmaps_color_parse(optarg, when))
			return map_usage_error("--color: expected auto, always or never, got '%s'",
					       optarg);
		return PMAPS_OK;
	case PMAPS_OPT_AREAS:
	case PMAPS_OPT_FLAGS:
	case PMAPS_OPT_RANGE:
		return pmaps_filter_option("map", opt, optarg, &run->filter);
	default:
		/* getopt_long has said what was wrong */
		return pmaps_cmd_usage_hint("map");
	}
}

int pmaps_cmd_map(int argc, char **argv)
{
	static char prog_name[] = "pmaps map";
	struct map_run run = { .source = PMAPS_SRC_AUTO };
	enum pmaps_color_when when = PMAPS_COLOR_AUTO;
	struct map_target *targets;
	size_t nr = 0, i;
	int opt, pid, st = PMAPS_OK;

	targets = calloc((size_t)argc, sizeof(*targets));
	if (!targets) {
		fputs("pmaps map: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	/* getopt_long names the program by argv[0] in its messages */
	argv[0] = prog_name;
	while (!st && (opt = getopt_long(argc, argv, pmaps_map_options.shortopts,
					 map_options, NULL)) != -1) {
		if (opt == 'h') {
			fputs(map_usage, stdout);
			if (fflush(stdout))
				map_write_error(&run, errno);
			st = run.status;
			goto out;
		}
		if (opt == 'p' || opt == 'f') {
			targets[nr].kind = opt;
			targets[nr++].arg = optarg;
			continue;
		}
		st = map_option(&run, opt, &when);
	}
	for (; !st && optind < argc; optind++) {
		if (run.source != PMAPS_SRC_FILE &&
		    !pmaps_parse_pid(argv[optind], &pid))
			st = map_usage_error("expected a PID, got '%s'",
					     argv[optind]);
		targets[nr++].arg = argv[optind];
	}
	for (i = 0; !st && i < nr; i++)
		if (run.source == PMAPS_SRC_FILE && targets[i].kind == 'p')
			st = map_usage_error("--source=file reads files, not processes named %s",
					     targets[i].arg);
	if (!st && !nr)
		st = map_usage_error("expected a PID, -p NAME or -f FILE");
	if (!st && run.png_path && nr > 1)
		st = map_usage_error("--png draws one target, got %zu", nr);
	/* binary on a terminal is garbage, and may drive it: as gzip does */
	if (!st && run.png_path && !strcmp(run.png_path, "-") &&
	    isatty(STDOUT_FILENO))
		st = map_usage_error("--png -: not writing a PNG image to a terminal; redirect standard output, or give a FILE");
	if (st)
		goto out;
	if (!run.opts.width)
		run.opts.width = pmaps_term_width();
	run.opts.color = pmaps_color_wanted(when);
	run.opts.filter = &run.filter;
	map_targets(&run, targets, nr);
	/* a full disk must not pass for success, nor go unsaid */
	if (fflush(stdout))
		map_write_error(&run, errno);
	else if (ferror(stdout))
		map_write_error(&run, EIO);
	st = run.status;
out:
	pmaps_filter_free(&run.filter);
	free(targets);
	return st;
}
