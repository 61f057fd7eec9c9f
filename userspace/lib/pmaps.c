// SPDX-License-Identifier: GPL-2.0
/*
 * libpmaps: parser for the pmaps text format.
 *
 * Hand-written on purpose: big processes produce millions of range lines,
 * and sscanf() is both slow and too lenient (it skips blanks, accepts signs
 * and wraps on overflow).  The input buffer is never assumed to be
 * NUL-terminated; every scan is bounded by the line end.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmaps.h"

const char pmaps_flag_letters[PMAPS_NR_FLAGS + 1] = "YRAUPDW";
const char *const pmaps_flag_names[PMAPS_NR_FLAGS] = {
	"young", "referenced", "active", "uptodate", "pte-dirty", "dirty",
	"writeback",
};

/* Bytes of offending input quoted in a message; enough to recognise it. */
#define SNIPPET_MAX	40

/* First read buffer of a document; doubled as needed. */
#define READ_CHUNK	65536

enum num_rc { NUM_OK, NUM_BAD, NUM_RANGE };

struct parser {
	struct pmaps_map *map;
	const char *name;
	char *err;
	size_t errlen;
	unsigned int line;
	/*
	 * Page sizes the lines so far fit: the sum of the sizes, powers of
	 * two.  One size when the caller gave it (pmaps_parse_buf_as()).
	 */
	unsigned long long sizes;
	unsigned int range_line;	/* the first range line, or 0 */
	size_t vmas_cap;
	size_t ranges_cap;		/* of the last VMA */
	/* First INDEX that the next range of the last VMA may use. */
	unsigned long long next_index;
};

/* Quote s[0..n) on one printable line: \t, \\ and \xNN for the rest. */
static void quote(char *dst, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, max = n > SNIPPET_MAX ? SNIPPET_MAX : n;

	for (i = 0; i < max; i++) {
		unsigned char c = s[i];

		if (c == '\t') {
			*dst++ = '\\';
			*dst++ = 't';
		} else if (c == '\\') {
			*dst++ = '\\';
			*dst++ = '\\';
		} else if (c < 0x20 || c >= 0x7f) {
			*dst++ = '\\';
			*dst++ = 'x';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		} else {
			*dst++ = c;
		}
	}
	if (n > max) {
		memcpy(dst, "...", 3);
		dst += 3;
	}
	*dst = '\0';
}

__attribute__((format(printf, 4, 5)))
static int fail(struct parser *ps, const char *s, size_t n,
		const char *fmt, ...)
{
	char what[160];
	char q[SNIPPET_MAX * 4 + 4];
	va_list ap;

	if (!ps->err || !ps->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	quote(q, s, n);
	snprintf(ps->err, ps->errlen, "%s:%u: expected %s, got '%s'",
		 ps->name, ps->line, what, q);
	return -1;
}

static int fail_nomem(struct parser *ps)
{
	if (ps->err && ps->errlen)
		snprintf(ps->err, ps->errlen, "%s:%u: out of memory",
			 ps->name, ps->line);
	return -1;
}

/* Unsigned decimal, digits only (no sign, no blanks), value <= max. */
static enum num_rc parse_dec(const char *s, size_t n, unsigned long long max,
			     unsigned long long *val)
{
	unsigned long long v = 0;
	int over = 0;
	size_t i;

	if (!n)
		return NUM_BAD;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return NUM_BAD;
		/* Keep scanning after an overflow: a bad digit wins. */
		if (v > ULLONG_MAX / 10 ||
		    (v == ULLONG_MAX / 10 && d > ULLONG_MAX % 10))
			over = 1;
		else
			v = v * 10 + d;
	}
	if (over || v > max)
		return NUM_RANGE;
	*val = v;
	return NUM_OK;
}

static int is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Lowercase hex as maps prints it, at least min digits, value <= max. */
static enum num_rc parse_hex(const char *s, size_t n, size_t min,
			     unsigned long long max, unsigned long long *val)
{
	unsigned long long v = 0;
	int over = 0;
	size_t i;

	if (n < min)
		return NUM_BAD;
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return NUM_BAD;
		if (v >> 60)
			over = 1;
		else
			v = v << 4 | d;
	}
	if (over || v > max)
		return NUM_RANGE;
	*val = v;
	return NUM_OK;
}

static int fail_dec(struct parser *ps, enum num_rc rc, const char *s,
		    size_t n, const char *what, unsigned long long max)
{
	if (rc == NUM_RANGE)
		return fail(ps, s, n, "%s in 0..%llu", what, max);
	return fail(ps, s, n, "decimal %s", what);
}

static int fail_hex(struct parser *ps, enum num_rc rc, const char *s,
		    size_t n, const char *what, int min)
{
	if (rc == NUM_RANGE)
		return fail(ps, s, n, "%s of at most %d bits", what,
			    min == 8 ? 64 : 32);
	return fail(ps, s, n, "%s as %d+ lowercase hex digits", what, min);
}

/*
 * Next space-separated header field: [*tok, return value).  *p moves past
 * the separator; a missing field shows up as an empty token.
 */
static const char *next_field(const char **p, const char *e,
			      const char **tok)
{
	const char *q = memchr(*p, ' ', e - *p);

	if (!q)
		q = e;
	*tok = *p;
	*p = q < e ? q + 1 : e;
	return q;
}

static char *dup_mem(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static int perms_ok(const char *s, size_t n)
{
	return n == 4 && (s[0] == 'r' || s[0] == '-') &&
	       (s[1] == 'w' || s[1] == '-') && (s[2] == 'x' || s[2] == '-') &&
	       (s[3] == 's' || s[3] == 'p');
}

/*
 * Pages a range of VMA v may use with pages of sz bytes: INDEX *base up
 * to *pages later.  A file VMA counts from OFFSET; an anon VMA from the
 * first page boundary at or above START (which the parser has checked
 * START is).
 */
static void vma_pages(const struct pmaps_vma *v, unsigned long long sz,
		      unsigned long long *base, unsigned long long *pages)
{
	unsigned long long first, last;

	if (v->inode) {
		*base = v->offset / sz;
		*pages = (v->end - v->start) / sz;
		return;
	}
	first = v->start / sz + (v->start % sz != 0);
	last = v->end / sz;
	*base = first;
	*pages = last > first ? last - first : 0;
}

/* Whether range r lies inside VMA v with pages of sz bytes. */
static bool range_fits(const struct pmaps_vma *v, const struct pmaps_range *r,
		       unsigned long long sz)
{
	unsigned long long base, pages, rel;

	vma_pages(v, sz, &base, &pages);
	/* in pages relative to the VMA, so that nothing can overflow */
	rel = r->index - base;
	return r->index >= base && rel < pages && r->count <= pages - rel;
}

/* Whether a folio of kb KiB (a range's KB) is whole pages of sz bytes. */
static bool kb_fits(unsigned long long kb, unsigned long long sz)
{
	return kb == PMAPS_KB_UNKNOWN || sz < 1024 || kb % (sz / 1024) == 0;
}

/*
 * The page size of sizes (a sum of powers of two) that addresses in
 * messages use: this host's where it fits, else the smallest.
 */
unsigned long long pmaps_page_sizes_ref(unsigned long long sizes)
{
	unsigned long long host = pmaps_page_size();

	if (!sizes || (sizes & host))
		return host;
	return sizes & -sizes;
}

/* "4096", "4096 or 16384", "4096, 16384 or 65536": sizes, in bytes. */
void pmaps_page_sizes_str(unsigned long long sizes, char *buf, size_t len)
{
	size_t used = 0;
	int n = __builtin_popcountll(sizes), i = 0;

	buf[0] = '\0';
	for (; sizes && used < len; sizes &= sizes - 1, i++) {
		int w = snprintf(buf + used, len - used, "%s%llu",
				 !i ? "" : i == n - 1 ? " or " : ", ",
				 sizes & -sizes);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

bool pmaps_page_size_ok(unsigned long long n)
{
	return n >= 1ULL << PMAPS_DOC_PAGE_SHIFT_MIN &&
	       n <= 1ULL << PMAPS_DOC_PAGE_SHIFT_MAX && !(n & (n - 1));
}

/* pmaps --page-size, or 0: each document tells its own. */
static unsigned long long doc_page_size;

void pmaps_set_doc_page_size(unsigned long long n)
{
	doc_page_size = n;
}

unsigned long long pmaps_doc_page_size(void)
{
	return doc_page_size;
}

/* As pmaps.h says. */
unsigned long long pmaps_page_sizes_init(unsigned long long page_size)
{
	unsigned long long sizes = 0;
	int s;

	/* a size that is no power of two fits nothing */
	if (page_size)
		return page_size & (page_size - 1) ? 0 : page_size;
	for (s = PMAPS_DOC_PAGE_SHIFT_MIN; s <= PMAPS_DOC_PAGE_SHIFT_MAX; s++)
		sizes |= 1ULL << s;
	return sizes;
}

/*
 * The end of a text document: its page size into the map and each VMA,
 * and when ranges fit more than one, an error unless check is false.
 */
static int parser_done(struct parser *ps, bool check)
{
	struct pmaps_map *map = ps->map;
	unsigned long long sz = pmaps_page_sizes_ref(ps->sizes);
	size_t i;

	map->page_size = sz;
	for (i = 0; i < map->nr_vmas; i++)
		map->vmas[i].page_size = sz;
	if (!check || !ps->range_line || !(ps->sizes & (ps->sizes - 1)))
		return 0;
	if (ps->err && ps->errlen) {
		char what[80];

		pmaps_page_sizes_str(ps->sizes, what, sizeof(what));
		snprintf(ps->err, ps->errlen,
			 "%s:%u: expected range lines that tell the page size, got ones that fit pages of %s bytes alike (give --page-size)",
			 ps->name, ps->range_line, what);
	}
	return -1;
}

/* START-END PERMS OFFSET MAJ:MIN INODE[ <spaces> NAME] */
int pmaps_grow_array(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *grown;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return -1;
	grown = realloc(*p, n * size);
	if (!grown)
		return -1;
	*p = grown;
	*cap = n;
	return 0;
}

static int parse_header(struct parser *ps, const char *s, const char *e)
{
	struct pmaps_map *map = ps->map;
	struct pmaps_vma v;
	const char *p = s, *tok, *q, *sep;
	unsigned long long val, sizes, old_sizes = ps->sizes;
	enum num_rc rc;

	memset(&v, 0, sizeof(v));
	v.line = ps->line;
	v.swapped = -1;
	/* name and header are C strings: an embedded NUL would cut them. */
	if (memchr(s, '\0', e - s))
		return fail(ps, s, e - s, "no NUL byte in VMA header");

	q = next_field(&p, e, &tok);
	sep = memchr(tok, '-', q - tok);
	if (!sep)
		return fail(ps, s, e - s,
			    "VMA header or TAB-separated range line");
	rc = parse_hex(tok, sep - tok, 8, ULLONG_MAX, &v.start);
	if (rc)
		return fail_hex(ps, rc, tok, sep - tok, "START", 8);
	rc = parse_hex(sep + 1, q - sep - 1, 8, ULLONG_MAX, &v.end);
	if (rc)
		return fail_hex(ps, rc, sep + 1, q - sep - 1, "END", 8);
	if (v.start >= v.end)
		return fail(ps, tok, q - tok, "START below END");
	if (map->nr_vmas && v.start < map->vmas[map->nr_vmas - 1].end)
		return fail(ps, tok, q - tok,
			    "VMA starting at or after %08llx",
			    map->vmas[map->nr_vmas - 1].end);

	q = next_field(&p, e, &tok);
	if (!perms_ok(tok, q - tok))
		return fail(ps, tok, q - tok, "PERMS [r-][w-][x-][sp]");
	memcpy(v.perms, tok, 4);

	q = next_field(&p, e, &tok);
	rc = parse_hex(tok, q - tok, 8, ULLONG_MAX, &v.offset);
	if (rc)
		return fail_hex(ps, rc, tok, q - tok, "OFFSET", 8);

	q = next_field(&p, e, &tok);
	sep = memchr(tok, ':', q - tok);
	if (!sep)
		return fail(ps, tok, q - tok, "MAJ:MIN");
	rc = parse_hex(tok, sep - tok, 2, UINT_MAX, &val);
	if (rc)
		return fail_hex(ps, rc, tok, q - tok, "MAJ:MIN", 2);
	v.dev_major = val;
	rc = parse_hex(sep + 1, q - sep - 1, 2, UINT_MAX, &val);
	if (rc)
		return fail_hex(ps, rc, tok, q - tok, "MAJ:MIN", 2);
	v.dev_minor = val;

	q = next_field(&p, e, &tok);
	rc = parse_dec(tok, q - tok, ULLONG_MAX, &v.inode);
	if (rc)
		return fail_dec(ps, rc, tok, q - tok, "INODE", ULLONG_MAX);

	/* The name is all after the padding, spaces inside included. */
	while (p < e && *p == ' ')
		p++;

	/* The kernel's VMAs start and end on pages, and map whole pages. */
	for (sizes = ps->sizes; sizes; sizes &= sizes - 1) {
		unsigned long long sz = sizes & -sizes;

		if (v.start % sz || v.end % sz || (v.inode && v.offset % sz))
			ps->sizes &= ~sz;
	}
	if (!ps->sizes) {
		char what[80];

		/* the partial map keeps a size its lines fit */
		ps->sizes = old_sizes;
		pmaps_page_sizes_str(old_sizes, what, sizeof(what));
		return fail(ps, s, e - s,
			    "START, END%s multiples of the page size, %s",
			    v.inode ? " and OFFSET" : "", what);
	}

	if (pmaps_grow_array((void **)&map->vmas, &ps->vmas_cap,
			     map->nr_vmas + 1, sizeof(*map->vmas)))
		return fail_nomem(ps);
	v.header = dup_mem(s, e - s);
	v.name = dup_mem(p, e - p);
	if (!v.header || !v.name) {
		free(v.header);
		free(v.name);
		return fail_nomem(ps);
	}
	map->vmas[map->nr_vmas++] = v;

	ps->ranges_cap = 0;
	ps->next_index = 0;
	return 0;
}

/* "START-END" of range r, for messages; wraps harmlessly on garbage. */
static size_t range_str(char *buf, const struct pmaps_vma *v,
			const struct pmaps_range *r, unsigned long long ps)
{
	unsigned long long start = pmaps_range_addr(v, r);
	int n = snprintf(buf, 40, "%08llx-%08llx", start,
			 start + r->count * ps);

	return n < 0 ? 0 : n > 39 ? 39 : (size_t)n;
}

/*
 * Whether range line [s, e) was pasted: its INDEX is followed by a space,
 * as when a terminal or a mail turned its TABs into spaces.  No VMA
 * header starts with digits and a space: it starts with "START-".
 */
static bool range_pasted(const char *s, const char *e)
{
	const char *p;

	for (p = s; p < e && *p >= '0' && *p <= '9'; p++)
		;
	return p > s && p < e && *p == ' ';
}

/*
 * End of the range column at p, or e: the next TAB as the format is
 * written; in a pasted line, the next space or TAB.
 */
static const char *column_end(const char *p, const char *e, bool pasted)
{
	while (p < e && *p != '\t' && !(pasted && *p == ' '))
		p++;
	return p;
}

/* Past the separator at p: one TAB; in a pasted line, all blanks there. */
static const char *skip_separator(const char *p, const char *e, bool pasted)
{
	if (!pasted)
		return p + 1;
	while (p < e && (*p == '\t' || *p == ' '))
		p++;
	return p;
}

/*
 * NODE or KB: decimal from min up to max into *v (0), or '?' (1, *v
 * untouched); -1 for anything else.
 */
static int parse_numa_col(const char *s, size_t n, unsigned long long min,
			  unsigned long long max, unsigned long long *v)
{
	if (n == 1 && s[0] == '?')
		return 1;
	if (parse_dec(s, n, max, v) != NUM_OK || *v < min)
		return -1;
	return 0;
}

/*
 * INDEX<TAB>COUNT<TAB>FLAGS<TAB>MAPCOUNT[<TAB>NODE<TAB>KB[<TAB>AGE[<TAB>
 * ignored...]]],
 * or pasted
 * (range_pasted()): the same columns separated by runs of spaces and
 * TABs.  No column holds a blank, so either way the columns are the same.
 */
static int parse_range(struct parser *ps, const char *s, const char *e)
{
	struct pmaps_map *map = ps->map;
	struct pmaps_vma *v;
	struct pmaps_range r;
	const char *col[7], *end[7], *p = s, *f;
	unsigned long long val, sizes, inside, old_sizes;
	unsigned long long ps_sz = pmaps_page_sizes_ref(ps->sizes);
	bool pasted = range_pasted(s, e);
	char buf[40];
	enum num_rc rc;
	size_t n;
	int i;

	if (!map->nr_vmas)
		return fail(ps, s, e - s, "VMA header before range lines");
	v = &map->vmas[map->nr_vmas - 1];

	for (i = 0; i < 4; i++) {
		if (i) {
			bool missing = p == e;

			if (!missing) {
				p = skip_separator(p, e, pasted);
				/* blanks ending a pasted line are no column */
				missing = pasted && p == e;
			}
			if (missing)
				return fail(ps, s, e - s,
					    "4 %s-separated columns %s",
					    pasted ? "space" : "TAB",
					    "INDEX COUNT FLAGS MAPCOUNT");
		}
		col[i] = p;
		end[i] = p = column_end(p, e, pasted);
	}
	/*
	 * NODE and KB, where columns 5 and 6 are both a number or '?', and
	 * AGE after them where column 7 is one too.  Any other columns
	 * after MAPCOUNT are for future readers, as they were before these
	 * were defined.
	 */
	r.node = PMAPS_NODE_UNKNOWN;
	r.kb = PMAPS_KB_UNKNOWN;
	r.age = PMAPS_AGE_UNKNOWN;
	for (; i < 7 && p < e; i++) {
		p = skip_separator(p, e, pasted);
		col[i] = p;
		end[i] = p = column_end(p, e, pasted);
	}
	if (i >= 6 && end[5] > col[5]) {
		unsigned long long node, kb;
		int n_rc = parse_numa_col(col[4], end[4] - col[4], 0,
					  PMAPS_NODE_MAX, &node);
		int k_rc = parse_numa_col(col[5], end[5] - col[5], 1,
					  ULLONG_MAX, &kb);

		if (n_rc >= 0 && k_rc >= 0) {
			if (!n_rc)
				r.node = (long)node;
			if (!k_rc)
				r.kb = kb;
			map->numa = true;
		}
		if (n_rc >= 0 && k_rc >= 0 && i == 7 && end[6] > col[6]) {
			unsigned long long age;
			int a_rc = parse_numa_col(col[6], end[6] - col[6], 0,
						  PMAPS_AGE_MAX, &age);

			if (a_rc >= 0) {
				if (!a_rc)
					r.age = (int)age;
				map->age = true;
			}
		}
	}

	r.line = ps->line;
	rc = parse_dec(col[0], end[0] - col[0], ULLONG_MAX, &r.index);
	if (rc)
		return fail_dec(ps, rc, col[0], end[0] - col[0], "INDEX",
				ULLONG_MAX);
	rc = parse_dec(col[1], end[1] - col[1], ULLONG_MAX, &r.count);
	if (rc)
		return fail_dec(ps, rc, col[1], end[1] - col[1], "COUNT",
				ULLONG_MAX);
	if (!r.count)
		return fail(ps, col[1], end[1] - col[1], "COUNT >= 1");

	f = col[2];
	if (end[2] - f != PMAPS_NR_FLAGS)
		return fail(ps, f, end[2] - f, "FLAGS of %d characters %s",
			    PMAPS_NR_FLAGS, pmaps_flag_letters);
	r.flags = 0;
	r.unknown = 0;
	for (i = 0; i < PMAPS_NR_FLAGS; i++) {
		if (f[i] == pmaps_flag_letters[i])
			r.flags |= 1U << i;
		else if (f[i] == '?')
			r.unknown |= 1U << i;
		else if (f[i] != '_')
			return fail(ps, f, PMAPS_NR_FLAGS,
				    "'%c', '_' or '?' at FLAGS position %d",
				    pmaps_flag_letters[i], i + 1);
	}

	/* Exactly one '?': the kernel withheld the count. */
	n = end[3] - col[3];
	if (n == 1 && col[3][0] == '?') {
		r.mapcount = PMAPS_MAPCOUNT_UNKNOWN;
	} else {
		rc = parse_dec(col[3], n, LONG_MAX, &val);
		if (rc == NUM_RANGE)
			return fail(ps, col[3], n, "MAPCOUNT in 0..%ld or '?'",
				    LONG_MAX);
		if (rc)
			return fail(ps, col[3], n,
				    "MAPCOUNT as decimal or '?'");
		r.mapcount = (long)val;
	}

	/*
	 * Page sizes the range fits: inside its VMA, its folio whole pages.
	 * Where none does, the message is of the KB of a size the range
	 * fitted, else of the range in the size messages use.
	 */
	old_sizes = ps->sizes;
	for (sizes = ps->sizes, inside = 0; sizes; sizes &= sizes - 1) {
		unsigned long long sz = sizes & -sizes;

		if (range_fits(v, &r, sz))
			inside |= sz;
		if (!range_fits(v, &r, sz) || !kb_fits(r.kb, sz))
			ps->sizes &= ~sz;
	}
	/* on failure, the partial map keeps a size its lines fit */
	if (!ps->sizes && !inside) {
		ps->sizes = old_sizes;
		n = range_str(buf, v, &r, ps_sz);
		return fail(ps, buf, n, "range inside %08llx-%08llx",
			    v->start, v->end);
	}
	if (!ps->sizes) {
		ps->sizes = old_sizes;
		return fail(ps, col[5], end[5] - col[5],
			    "KB a multiple of the page size in KiB, %llu",
			    pmaps_page_sizes_ref(inside) / 1024);
	}
	if (!ps->range_line)
		ps->range_line = ps->line;
	ps_sz = pmaps_page_sizes_ref(ps->sizes);
	/* INDEX counts pages whatever their size: the order is told alike. */
	if (r.index < ps->next_index) {
		struct pmaps_range next = r;

		next.index = ps->next_index;
		n = range_str(buf, v, &r, ps_sz);
		return fail(ps, buf, n, "range starting at or after %08llx",
			    pmaps_range_addr_at(v, &next, ps_sz));
	}
	ps->next_index = r.index + r.count;

	if (pmaps_grow_array((void **)&v->ranges, &ps->ranges_cap,
			     v->nr_ranges + 1, sizeof(*v->ranges)))
		return fail_nomem(ps);
	v->ranges[v->nr_ranges++] = r;
	return 0;
}

/*
 * Whether line [s, e) is a range line rather than a VMA header.  A header
 * starts with "START-" and may hold a TAB (in a file name); a range line
 * starts with decimal digits and a TAB or a space (pasted), or is any
 * other line with a TAB, so that a malformed one is reported as a range.
 */
static bool is_range_line(const char *s, const char *e)
{
	const char *p;

	if (s >= e)
		return false;
	for (p = s; p < e && is_hex_digit(*p); p++)
		;
	if (p > s && p < e && *p == '-')
		return false;
	return range_pasted(s, e) || memchr(s, '\t', e - s);
}

bool pmaps_is_json(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && memchr(" \t\r\n", buf[i], 4); i++)
		;
	return i < len && buf[i] == '{';
}

static void parser_init(struct parser *ps, const char *name,
			unsigned long long page_size, struct pmaps_map *out,
			char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->map = out;
	ps->name = name;
	ps->err = err;
	ps->errlen = errlen;
	ps->sizes = pmaps_page_sizes_init(page_size);
}

/* The text-format lines [p, end): 0, or -1 at the first bad one. */
static int parse_lines(struct parser *ps, const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *e = nl ? nl : end;
		int ret;

		ps->line++;
		if (p < e && *p == '@') {
			p = nl ? nl + 1 : end;	/* extension line */
			continue;
		}
		if (is_range_line(p, e))
			ret = parse_range(ps, p, e);
		else
			ret = parse_header(ps, p, e);
		if (ret)
			return -1;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* A whole document in one buffer, without the reader's checks. */
static int parse_whole(const char *buf, size_t len, const char *name,
		       unsigned long long page_size, struct pmaps_map *out,
		       char *err, size_t errlen)
{
	struct parser ps;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	/* Also keeps NULL + 0 (undefined) away from an empty document. */
	if (!name)
		name = "-";
	/* No line of the text format starts with a blank or '{'. */
	if (len && pmaps_is_json(buf, len))
		return pmaps_parse_json_as(buf, len, name, page_size, out, err,
					   err ? errlen : 0);
	parser_init(&ps, name, page_size, out, err, errlen);
	if (len && parse_lines(&ps, buf, buf + len)) {
		parser_done(&ps, false);
		return -1;
	}
	return parser_done(&ps, true);
}

/* ---- reading a document as it comes ---- */

enum doc_kind { KIND_UNKNOWN, KIND_TEXT, KIND_JSON };

struct doc_reader {
	const char *name;
	char *buf;
	size_t len, cap;
	size_t line_start;		/* where the line not yet ended starts */
	unsigned int line;		/* its number */
	unsigned int blank_run;		/* blank lines in a row before it */
	enum doc_kind kind;
	struct parser ps;		/* KIND_TEXT: the lines before parsed */
	size_t parsed;
	size_t json_check;		/* KIND_JSON: parse again at this length */
	size_t size;			/* of a regular file, else 0 */
	unsigned long long page_size;	/* given, or 0: the document tells */
	struct pmaps_map *map;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int reader_fail(struct doc_reader *r, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->err && r->errlen)
		snprintf(r->err, r->errlen, "%s:%u: expected %s", r->name,
			 r->line, what);
	return -2;
}

static bool is_blank(const char *s, const char *e)
{
	for (; s < e; s++)
		if (!memchr(" \t\r", *s, 3))
			return false;
	return true;
}

/* Text or JSON, from the first byte that is not blank, if any yet. */
static void reader_kind(struct doc_reader *r, size_t upto)
{
	size_t i;

	if (r->kind != KIND_UNKNOWN)
		return;
	for (i = 0; i < upto && memchr(" \t\r\n", r->buf[i], 4); i++)
		;
	if (i < upto) {
		r->kind = r->buf[i] == '{' ? KIND_JSON : KIND_TEXT;
		r->json_check = r->len;
	}
}

/*
 * Text lines complete before the one at r->line_start are parsed first,
 * as they would be had they come in an earlier read(): a document reads
 * alike whatever its reads, and alike from a buffer (pmaps_parse_buf()
 * reads it in one).  0, or -2 at the first bad one.
 */
static int reader_parse_complete(struct doc_reader *r)
{
	int ret;

	reader_kind(r, r->line_start);
	if (r->kind != KIND_TEXT || r->line_start <= r->parsed)
		return 0;
	ret = parse_lines(&r->ps, r->buf + r->parsed, r->buf + r->line_start);
	r->parsed = r->line_start;
	return ret ? -2 : 0;
}

/*
 * r->buf grew from old to r->len: check the new bytes, line by line, and
 * parse what the lines now complete allow.  0, -1 (out of memory, errno)
 * or -2 (malformed, err set).
 */
static int reader_feed(struct doc_reader *r, size_t old)
{
	size_t i = old;

	while (i < r->len) {
		const char *nl = memchr(r->buf + i, '\n', r->len - i);
		size_t e = nl ? (size_t)(nl - r->buf) : r->len;
		const char *z = memchr(r->buf + i, '\0', e - i);

		if (z)
			return reader_parse_complete(r) ? -2 :
			       reader_fail(r, "text, got a NUL byte at byte %zu of the line",
					   (size_t)(z - r->buf) - r->line_start + 1);
		if (e - r->line_start > PMAPS_LINE_MAX)
			return reader_parse_complete(r) ? -2 :
			       reader_fail(r, "a line of at most %d bytes, got a longer one",
					   PMAPS_LINE_MAX);
		if (!nl)
			break;
		/* text: the parser says what is wrong with a blank line */
		if (r->kind != KIND_TEXT &&
		    is_blank(r->buf + r->line_start, r->buf + e)) {
			if (++r->blank_run > PMAPS_BLANK_LINES_MAX)
				return reader_parse_complete(r) ? -2 :
				       reader_fail(r, "at most %d blank lines in a row, got more",
						   PMAPS_BLANK_LINES_MAX);
		} else {
			r->blank_run = 0;
		}
		r->line++;
		r->line_start = e + 1;
		i = e + 1;
	}
	reader_kind(r, r->len);
	if (r->kind == KIND_TEXT && r->line_start > r->parsed) {
		int ret = parse_lines(&r->ps, r->buf + r->parsed,
				      r->buf + r->line_start);

		r->parsed = r->line_start;
		if (ret)
			return -2;
	}
	/*
	 * Not when a regular file is more than half read: the whole will be
	 * parsed soon, and the input ends.
	 */
	if (r->kind == KIND_JSON && r->len >= r->json_check &&
	    (!r->size || r->len < r->size / 2)) {
		struct pmaps_map part;
		int ret = pmaps_parse_json_prefix_as(r->buf, r->line_start,
						     r->name, r->page_size,
						     &part, r->err, r->errlen);

		/* what parsed before the error stays, as from a buffer */
		if (ret < 0) {
			pmaps_map_free(r->map);
			*r->map = part;
			return -2;
		}
		pmaps_map_free(&part);
		/* fourfold: all the parses cost a third more than the last */
		r->json_check = r->len * 4;
	}
	return 0;
}

/* The input has ended: the rest of the document.  0 or -2. */
static int reader_finish(struct doc_reader *r)
{
	switch (r->kind) {
	case KIND_TEXT:
		if (parse_lines(&r->ps, r->buf + r->parsed, r->buf + r->len))
			return -2;
		return parser_done(&r->ps, true) ? -2 : 0;
	case KIND_JSON:
		return pmaps_parse_json_as(r->buf, r->len, r->name,
					   r->page_size, r->map, r->err,
					   r->errlen) ? -2 : 0;
	default:
		/* empty, or blanks alone: as the parser has it */
		return parse_whole(r->buf, r->len, r->name, r->page_size,
				   r->map, r->err, r->errlen) ? -2 : 0;
	}
}

/* Room for READ_CHUNK more bytes at r->buf + r->len: 0, or -1 (ENOMEM). */
static int reader_room(struct doc_reader *r)
{
	size_t ncap;
	char *nbuf;

	if (r->cap - r->len >= READ_CHUNK / 2)
		return 0;
	ncap = r->cap ? r->cap * 2 : READ_CHUNK;
	nbuf = ncap > r->cap ? realloc(r->buf, ncap) : NULL;
	if (!nbuf) {
		errno = ENOMEM;
		return -1;
	}
	r->buf = nbuf;
	r->cap = ncap;
	return 0;
}

static void reader_init(struct doc_reader *r, const char *name,
			unsigned long long page_size, struct pmaps_map *out,
			char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	r->name = name ? name : "-";
	r->line = 1;
	r->map = out;
	r->err = err;
	r->errlen = err ? errlen : 0;
	r->page_size = page_size;
	parser_init(&r->ps, r->name, page_size, out, err, r->errlen);
}

/*
 * The read has ended, well or not: a text document's page size into its
 * map, which the caller keeps even when partial.
 */
static int reader_end(struct doc_reader *r, int ret)
{
	if (ret && r->kind == KIND_TEXT)
		parser_done(&r->ps, false);
	return ret;
}

int pmaps_parse_buf_as(const char *buf, size_t len, const char *name,
		       unsigned long long page_size, struct pmaps_map *out,
		       char *err, size_t errlen)
{
	struct doc_reader r;
	int ret;

	/* the reader's rules, in one read of the whole: only reads buf */
	reader_init(&r, name, page_size, out, err, errlen);
	if (!len)
		return reader_finish(&r) ? -1 : 0;
	r.buf = (char *)buf;
	r.len = r.cap = r.size = len;
	ret = reader_feed(&r, 0);
	if (!ret)
		ret = reader_finish(&r);
	return reader_end(&r, ret) ? -1 : 0;
}

int pmaps_parse_buf(const char *buf, size_t len, const char *name,
		    struct pmaps_map *out, char *err, size_t errlen)
{
	return pmaps_parse_buf_as(buf, len, name, pmaps_doc_page_size(), out,
				  err, errlen);
}

int pmaps_read_doc(int fd, const char *name, char **text, size_t *len,
		   struct pmaps_map *out, char *err, size_t errlen)
{
	return pmaps_read_doc_as(fd, name, pmaps_doc_page_size(), text, len,
				 out, err, errlen);
}

int pmaps_read_doc_as(int fd, const char *name, unsigned long long page_size,
		      char **text, size_t *len, struct pmaps_map *out,
		      char *err, size_t errlen)
{
	struct doc_reader r;
	struct stat st;
	int ret;

	*text = NULL;
	*len = 0;
	reader_init(&r, name, page_size, out, err, errlen);
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		r.size = (size_t)st.st_size;
	for (;;) {
		ssize_t n;

		if (reader_room(&r)) {
			ret = -1;
			goto out;
		}
		n = read(fd, r.buf + r.len, r.cap - r.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -1;
			goto out;
		}
		if (!n)
			break;
		r.len += (size_t)n;
		ret = reader_feed(&r, r.len - (size_t)n);
		if (ret)
			goto out;
	}
	ret = reader_finish(&r);
	if (!ret) {
		*text = r.buf;
		*len = r.len;
		return 0;
	}
out:
	free(r.buf);
	return reader_end(&r, ret);
}

int pmaps_parse_file(FILE *f, const char *name, struct pmaps_map *out,
		     char *err, size_t errlen)
{
	struct doc_reader r;
	int ret = 0;

	reader_init(&r, name, pmaps_doc_page_size(), out, err, errlen);
	if (!f) {
		if (err && errlen)
			snprintf(err, errlen, "%s: no input stream", r.name);
		return -1;
	}
	for (;;) {
		size_t n;

		if (reader_room(&r)) {
			if (err && errlen)
				snprintf(err, errlen, "%s: out of memory",
					 r.name);
			ret = -1;
			break;
		}
		n = fread(r.buf + r.len, 1, r.cap - r.len, f);
		r.len += n;
		if (n && reader_feed(&r, r.len - n)) {
			ret = -1;
			break;
		}
		if (!n) {
			if (ferror(f)) {
				int e = errno;

				if (err && errlen)
					snprintf(err, errlen,
						 "%s: read error: %s", r.name,
						 e ? strerror(e) : "unknown");
				ret = -1;
			} else if (reader_finish(&r)) {
				ret = -1;
			}
			break;
		}
	}
	free(r.buf);
	return reader_end(&r, ret);
}

void pmaps_map_free(struct pmaps_map *map)
{
	size_t i;

	if (!map)
		return;
	for (i = 0; i < map->nr_vmas; i++) {
		free(map->vmas[i].ranges);
		free(map->vmas[i].name);
		free(map->vmas[i].header);
	}
	free(map->vmas);
	map->vmas = NULL;
	map->nr_vmas = 0;
}

unsigned long long pmaps_pmd_kb(unsigned long long page_size)
{
	return page_size / 1024 * (page_size / 8);
}

unsigned long long pmaps_pud_kb(unsigned long long page_size)
{
	return pmaps_pmd_kb(page_size) * (page_size / 8);
}

enum pmaps_folio_kind pmaps_folio_kind(unsigned long long kb,
				       unsigned long long page_size)
{
	unsigned long long base = page_size / 1024;

	if (kb == PMAPS_KB_UNKNOWN)
		return PMAPS_FOLIO_UNKNOWN;
	if (kb == base)
		return PMAPS_FOLIO_BASE;
	if (kb == pmaps_pmd_kb(page_size))
		return PMAPS_FOLIO_THP;
	if (kb == pmaps_pud_kb(page_size))
		return PMAPS_FOLIO_PUD;
	return kb > base && kb < pmaps_pmd_kb(page_size) ? PMAPS_FOLIO_MTHP :
							   PMAPS_FOLIO_OTHER;
}

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_THP			22
#define KPF_ZERO_PAGE		24

enum pmaps_folio_kind pmaps_folio_kind_kpf(unsigned long long kpf,
					   unsigned long long kb,
					   unsigned long long page_size)
{
	enum pmaps_folio_kind kind;

	/* fs/proc/page.c sets KPF_THP on the huge zero page as well */
	if (kpf >> KPF_ZERO_PAGE & 1)
		return kpf >> KPF_THP & 1 ? PMAPS_FOLIO_HUGE_ZERO :
					    PMAPS_FOLIO_ZERO;
	if (kpf >> KPF_HUGE & 1)
		return PMAPS_FOLIO_HUGETLB;
	if (!(kpf & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL)))
		return PMAPS_FOLIO_BASE;
	kind = pmaps_folio_kind(kb, page_size);
	/* a compound page measured as one page changed under the reader */
	return kind == PMAPS_FOLIO_BASE ? PMAPS_FOLIO_UNKNOWN : kind;
}

int pmaps_folio_kind_needs_kb(unsigned long long kpf)
{
	return !(kpf >> KPF_ZERO_PAGE & 1) && !(kpf >> KPF_HUGE & 1) &&
	       (kpf & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL));
}

const char *pmaps_folio_kind_name(enum pmaps_folio_kind kind)
{
	switch (kind) {
	case PMAPS_FOLIO_UNKNOWN:
		return "folio?";
	case PMAPS_FOLIO_BASE:
		return "small";
	case PMAPS_FOLIO_HUGETLB:
		return "hugetlb";
	case PMAPS_FOLIO_ZERO:
		return "zero-page";
	case PMAPS_FOLIO_HUGE_ZERO:
		return "huge-zero-page";
	case PMAPS_FOLIO_MTHP:
		return "mTHP";
	case PMAPS_FOLIO_THP:
		return "thp";
	case PMAPS_FOLIO_PUD:
		return "pud";
	case PMAPS_FOLIO_OTHER:
		return "folio-other";
	}
	return "folio?";
}

unsigned long pmaps_page_size(void)
{
	/* Atomic only so concurrent first calls are not a data race. */
	static atomic_ulong cached;
	unsigned long sz = atomic_load_explicit(&cached, memory_order_relaxed);

	if (!sz) {
		long v = sysconf(_SC_PAGESIZE);

		sz = v > 0 ? (unsigned long)v : 4096;
		atomic_store_explicit(&cached, sz, memory_order_relaxed);
	}
	return sz;
}

unsigned long long pmaps_map_page_size(const struct pmaps_map *map)
{
	return map->page_size ? map->page_size : pmaps_page_size();
}

unsigned long long pmaps_vma_page_size(const struct pmaps_vma *v)
{
	return v->page_size ? v->page_size : pmaps_page_size();
}

unsigned long long pmaps_range_addr(const struct pmaps_vma *v,
				    const struct pmaps_range *r)
{
	return pmaps_range_addr_at(v, r, pmaps_vma_page_size(v));
}

unsigned long long pmaps_range_addr_at(const struct pmaps_vma *v,
				       const struct pmaps_range *r,
				       unsigned long long ps)
{
	/* Unsigned wrap is deliberate: garbage in, no UB out. */
	if (v->inode)
		return v->start + (r->index - v->offset / ps) * ps;
	return r->index * ps;
}

const struct pmaps_vma *pmaps_find_vma(const struct pmaps_map *map,
				       unsigned long long addr)
{
	size_t lo = 0, hi = map->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pmaps_vma *v = &map->vmas[mid];

		if (addr < v->start)
			hi = mid;
		else if (addr >= v->end)
			lo = mid + 1;
		else
			return v;
	}
	return NULL;
}

const struct pmaps_range *pmaps_find_range(const struct pmaps_vma *v,
					   unsigned long long addr)
{
	unsigned long long ps = pmaps_vma_page_size(v);
	size_t lo = 0, hi = v->nr_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pmaps_range *r = &v->ranges[mid];
		unsigned long long start = pmaps_range_addr(v, r);

		if (addr < start)
			hi = mid;
		else if ((addr - start) / ps >= r->count)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

enum pmaps_dirtiness pmaps_range_dirtiness(const struct pmaps_range *r)
{
	const unsigned int dirty = (1u << PMAPS_PTE_DIRTY) |
				   (1u << PMAPS_DIRTY);

	/* a known set letter decides, whatever the other one is */
	if (r->flags & ~r->unknown & dirty)
		return PMAPS_DIRTY_SET;
	return r->unknown & dirty ? PMAPS_DIRTY_UNKNOWN : PMAPS_CLEAN;
}

void pmaps_format_flags(unsigned int flags, unsigned int unknown,
			char out[PMAPS_NR_FLAGS + 1])
{
	int i;

	for (i = 0; i < PMAPS_NR_FLAGS; i++) {
		if (unknown & (1U << i))
			out[i] = '?';
		else if (flags & (1U << i))
			out[i] = pmaps_flag_letters[i];
		else
			out[i] = '_';
	}
	out[PMAPS_NR_FLAGS] = '\0';
}

size_t pmaps_format_udec(char *p, unsigned long long v)
{
	char tmp[24];
	size_t n = 0, i;

	/* By hand: views write numbers for each of millions of ranges. */
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

size_t pmaps_format_node(long node, char out[21])
{
	size_t n = 1;

	if (node < 0)
		out[0] = '?';
	else
		n = pmaps_format_udec(out, (unsigned long long)node);
	out[n] = '\0';
	return n;
}

size_t pmaps_format_kb(unsigned long long kb, char out[21])
{
	size_t n = 1;

	if (kb == PMAPS_KB_UNKNOWN)
		out[0] = '?';
	else
		n = pmaps_format_udec(out, kb);
	out[n] = '\0';
	return n;
}

size_t pmaps_format_age(int age, char out[21])
{
	return pmaps_format_node(age, out);
}

size_t pmaps_format_bound(char *out, unsigned long long v, bool unknown)
{
	size_t n = 0;

	if (unknown && !v) {
		strcpy(out, "-");
		return 1;
	}
	if (unknown) {
		memcpy(out, PMAPS_AT_LEAST, sizeof(PMAPS_AT_LEAST) - 1);
		n = sizeof(PMAPS_AT_LEAST) - 1;
	}
	n += pmaps_format_udec(out + n, v);
	out[n] = '\0';
	return n;
}

void pmaps_ages_add(struct pmaps_ages *a, const struct pmaps_range *r)
{
	if (r->age >= 0 && r->age <= PMAPS_AGE_MAX)
		a->pages[r->age] += r->count;
	else
		a->unknown += r->count;
}

void pmaps_ages_sum(struct pmaps_ages *sum, const struct pmaps_ages *a)
{
	int i;

	for (i = 0; i <= PMAPS_AGE_MAX; i++)
		sum->pages[i] += a->pages[i];
	sum->unknown += a->unknown;
}

void pmaps_pss_add(struct pmaps_pss *s, const struct pmaps_range *r,
		   unsigned long long page_size)
{
	unsigned long long share = page_size << PMAPS_PSS_SHIFT;

	if (r->mapcount == PMAPS_MAPCOUNT_UNKNOWN) {
		s->unknown += r->count;
		return;
	}
	/* smaps: "if (mapcount >= 2) pss /= mapcount", else the page whole */
	if (r->mapcount >= 2)
		share /= (unsigned long long)r->mapcount;
	else
		s->uss += r->count * page_size;
	s->pss += r->count * share;
}

void pmaps_pss_sum(struct pmaps_pss *sum, const struct pmaps_pss *s)
{
	sum->pss += s->pss;
	sum->uss += s->uss;
	sum->unknown += s->unknown;
}

unsigned long long pmaps_pss_bytes(const struct pmaps_pss *s)
{
	return s->pss >> PMAPS_PSS_SHIFT;
}

int pmaps_ages_shown(const struct pmaps_ages *a)
{
	int n = PMAPS_AGE_MAX + 1;

	while (n > 4 && !a->pages[n - 1])
		n--;
	return n;
}

size_t pmaps_format_mapcount(long mapcount, char out[PMAPS_MAPCOUNT_LEN])
{
	size_t n;

	if (mapcount < 0) {
		out[0] = '?';
		out[1] = '\0';
		return 1;
	}
	n = pmaps_format_udec(out, (unsigned long long)mapcount);
	out[n] = '\0';
	return n;
}
