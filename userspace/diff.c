// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps diff A B: what changed between two saved snapshots, page by page.
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
 * Exit status as diff(1): 0 no difference, 1 differences, 2 trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#define DIFF_SAME	0
#define DIFF_DIFFERENT	1
#define DIFF_TROUBLE	2

/* Bytes of input quoted in a message. */
#define SNIPPET_MAX	24
/* Nesting of JSON values the reader follows at most. */
#define JSON_DEPTH	64

static const char diff_usage[] =
"Usage: pmaps diff [OPTION]... A B\n"
"Compare two saved snapshots page by page: pages that appeared,\n"
"disappeared, or changed flags or mapcount, under the VMAs that hold them,\n"
"then a summary.  A and B are in the text format (as saved from\n"
"/proc/pmaps_ext/PID or by pmaps --raw) or JSON (pmaps --json, one\n"
"target); - is standard input.\n"
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
"      --summary       only the summary lines\n"
"  -h, --help          show this help and exit\n"
"\n"
"Exit status: 0 if the snapshots show the same pages, 1 if they differ,\n"
"2 for trouble (a file that cannot be read, malformed input, bad usage).\n";

/* ---- the JSON reader: exactly what pmaps --json writes ---- */

struct json {
	const char *name;		/* for messages */
	const char *p, *end;
	unsigned int line;
	int depth;
	unsigned long long psize;
	char *err;
	size_t errlen;
	int failed;
	struct pmaps_map *map;
	size_t vmas_cap;
};

/* "NAME:LINE: expected WHAT, got '...'", quoting the input at p. */
__attribute__((format(printf, 2, 3)))
static int json_fail(struct json *j, const char *fmt, ...)
{
	char what[200], got[SNIPPET_MAX * 4 + 8];
	size_t n = 0, i;
	va_list ap;

	if (j->failed)
		return -1;
	j->failed = 1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (j->p >= j->end) {
		snprintf(j->err, j->errlen, "%s:%u: expected %s, got the end of the file",
			 j->name, j->line, what);
		return -1;
	}
	for (i = 0; j->p + i < j->end && i < SNIPPET_MAX; i++) {
		unsigned char c = (unsigned char)j->p[i];

		if (c == '\n')
			break;
		if (c < 0x20 || c == 0x7f || c == '\\')
			n += (size_t)snprintf(got + n, sizeof(got) - n,
					      c == '\\' ? "\\\\" : "\\x%02x", c);
		else
			got[n++] = (char)c;
	}
	got[n] = '\0';
	snprintf(j->err, j->errlen, "%s:%u: expected %s, got '%s%s'", j->name,
		 j->line, what, got,
		 j->p + i < j->end && j->p[i] != '\n' ? "..." : "");
	return -1;
}

static void json_ws(struct json *j)
{
	for (; j->p < j->end; j->p++) {
		if (*j->p == '\n')
			j->line++;
		else if (*j->p != ' ' && *j->p != '\t' && *j->p != '\r')
			break;
	}
}

/* The next non-blank character, not consumed; 0 at the end. */
static char json_peek(struct json *j)
{
	json_ws(j);
	return j->p < j->end ? *j->p : 0;
}

static int json_char(struct json *j, char c, const char *what)
{
	if (json_peek(j) != c)
		return json_fail(j, "%s", what);
	j->p++;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits of a \u escape; -1 if not. */
static long json_u4(const char *p, const char *end)
{
	long v = 0;
	int i, d;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		d = hex_value(p[i]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * A string into *out (malloc()ed, NUL-terminated) or, with out NULL, only
 * checked.  Bytes other than '"', '\' and control characters are copied
 * as they are, as pmaps --json writes them; NUL (\u0000) is refused,
 * since names are C strings.
 */
static int json_string(struct json *j, char **out, const char *what)
{
	const char *s;
	char *buf = NULL;
	size_t n = 0;

	if (json_char(j, '"', what))
		return -1;
	s = j->p;
	/* unescaping never makes a string longer */
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->p + 1 < j->end)
			j->p++;
		j->p++;
	}
	if (j->p >= j->end) {
		j->p = s - 1;
		return json_fail(j, "a string closed by '\"'");
	}
	if (out) {
		buf = malloc((size_t)(j->p - s) + 1);
		if (!buf)
			return json_fail(j, "memory for a string");
	}
	for (j->p = s; *j->p != '"'; j->p++) {
		unsigned char c = (unsigned char)*j->p;
		long cp, lo;

		if (c < 0x20) {
			free(buf);
			return json_fail(j, "no control character inside a string");
		}
		if (c != '\\') {
			if (buf)
				buf[n++] = (char)c;
			continue;
		}
		j->p++;
		switch (*j->p) {
		case '"': case '\\': case '/':
			c = (unsigned char)*j->p;
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			cp = json_u4(j->p + 1, j->end);
			if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p > 10 &&
			    j->p[5] == '\\' && j->p[6] == 'u') {
				lo = json_u4(j->p + 7, j->end);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					j->p += 6;
				}
			}
			if (cp <= 0 || (cp >= 0xd800 && cp < 0xe000)) {
				free(buf);
				j->p--;
				return json_fail(j, "a \\u escape of a character, not NUL or half a surrogate pair");
			}
			j->p += 4;
			if (buf)
				n += put_utf8(buf + n, (unsigned long)cp);
			continue;
		default:
			free(buf);
			j->p--;
			return json_fail(j, "an escape \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
		}
		if (buf)
			buf[n++] = (char)c;
	}
	j->p++;
	if (buf) {
		buf[n] = '\0';
		*out = buf;
	}
	return 0;
}

/* A whole number 0..max, as JSON writes it (no sign, no leading 0). */
static int json_uint(struct json *j, unsigned long long max,
		     unsigned long long *val, const char *what)
{
	const char *s;
	unsigned long long v = 0;

	json_ws(j);
	s = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned int d = (unsigned int)(*j->p - '0');

		if (v > (max - d) / 10) {
			j->p = s;
			return json_fail(j, "%s of at most %llu", what, max);
		}
		v = v * 10 + d;
		j->p++;
	}
	if (j->p == s || (j->p - s > 1 && *s == '0') ||
	    (j->p < j->end && (*j->p == '.' || *j->p == 'e' ||
			       *j->p == 'E'))) {
		j->p = s;
		return json_fail(j, "%s as a whole number", what);
	}
	*val = v;
	return 0;
}

/* "0x" and lowercase hex, as pmaps --json writes addresses. */
static int json_hex(struct json *j, unsigned long long *val, const char *what)
{
	const char *at;
	char *s, *p;
	unsigned long long v = 0;
	unsigned int line;

	json_ws(j);
	at = j->p;
	line = j->line;
	if (json_string(j, &s, what))
		return -1;
	p = s;
	if (p[0] == '0' && p[1] == 'x' && p[2])
		for (p += 2; *p && hex_value(*p) >= 0 &&
			     !(*p >= 'A' && *p <= 'F') && !(v >> 60); p++)
			v = v << 4 | (unsigned long long)hex_value(*p);
	if (p == s || *p) {
		free(s);
		j->p = at;
		j->line = line;
		return json_fail(j, "%s as \"0x\" and lowercase hex", what);
	}
	free(s);
	*val = v;
	return 0;
}

static int json_skip(struct json *j);

/*
 * Members of an object: member(j, key, ctx) reads the value of each
 * member it knows and returns 1 for one it does not, which is skipped:
 * later versions of pmaps/2 may add members.
 */
static int json_object(struct json *j, const char *what,
		       int (*member)(struct json *j, const char *key,
				     void *ctx),
		       void *ctx)
{
	char *key;
	int ret;

	if (json_char(j, '{', what))
		return -1;
	if (++j->depth > JSON_DEPTH)
		return json_fail(j, "at most %d nested values", JSON_DEPTH);
	if (json_peek(j) == '}') {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		if (json_string(j, &key, "a member name in double quotes"))
			return -1;
		if (json_char(j, ':', "':' after a member name")) {
			free(key);
			return -1;
		}
		ret = member ? member(j, key, ctx) : 1;
		free(key);
		if (ret < 0)
			return -1;
		if (ret > 0 && json_skip(j))
			return -1;
		if (json_peek(j) == ',') {
			j->p++;
			continue;
		}
		if (json_char(j, '}', "',' or '}' after a member"))
			return -1;
		j->depth--;
		return 0;
	}
}

/* Elements of an array, each read by element(j, ctx). */
static int json_array(struct json *j, const char *what,
		      int (*element)(struct json *j, void *ctx), void *ctx)
{
	if (json_char(j, '[', what))
		return -1;
	if (++j->depth > JSON_DEPTH)
		return json_fail(j, "at most %d nested values", JSON_DEPTH);
	if (json_peek(j) == ']') {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		if (element ? element(j, ctx) : json_skip(j))
			return -1;
		if (json_peek(j) == ',') {
			j->p++;
			continue;
		}
		if (json_char(j, ']', "',' or ']' after an element"))
			return -1;
		j->depth--;
		return 0;
	}
}

static int json_literal(struct json *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return json_fail(j, "a JSON value");
	j->p += n;
	return 0;
}

/* Any value, for members this reader does not know. */
static int json_skip(struct json *j)
{
	char c = json_peek(j);

	switch (c) {
	case '"':
		return json_string(j, NULL, "a string");
	case '{':
		return json_object(j, "an object", NULL, NULL);
	case '[':
		return json_array(j, "an array", NULL, NULL);
	case 't':
		return json_literal(j, "true");
	case 'f':
		return json_literal(j, "false");
	case 'n':
		return json_literal(j, "null");
	default:
		if (c == '-')
			j->p++;
		if (json_peek(j) < '0' || json_peek(j) > '9')
			return json_fail(j, "a JSON value");
		while (j->p < j->end && strchr("0123456789.eE+-", *j->p))
			j->p++;
		return 0;
	}
}

/* Which required members an object has had, one bit each. */
struct seen {
	unsigned int bits;
	unsigned int line;		/* of the object's '{' */
};

/* Mark member bit; a member given twice is an error. */
static int seen_once(struct json *j, struct seen *s, unsigned int bit,
		     const char *key)
{
	if (s->bits & bit)
		return json_fail(j, "each member once, \"%s\" again", key);
	s->bits |= bit;
	return 0;
}

/*
 * The bit of member key among names[0..n), marked seen; -1 for a member
 * this reader does not know, -2 after an error (a member given twice).
 */
static int known_member(struct json *j, struct seen *s, const char *key,
			const char *const names[], int n)
{
	int bit;

	for (bit = 0; bit < n; bit++)
		if (!strcmp(key, names[bit]))
			return seen_once(j, s, 1u << bit, key) ? -2 : bit;
	return -1;
}

static int seen_all(struct json *j, const struct seen *s, unsigned int all,
		    const char *const names[], const char *what)
{
	unsigned int i;

	for (i = 0; all >> i; i++) {
		if (s->bits & (1u << i))
			continue;
		snprintf(j->err, j->errlen,
			 "%s:%u: expected member \"%s\" in this %s", j->name,
			 s->line, names[i], what);
		j->failed = 1;
		return -1;
	}
	return 0;
}

enum { R_INDEX, R_COUNT, R_ADDRESS, R_FLAGS, R_MAPCOUNT, R_NR };
static const char *const range_members[R_NR] = {
	"index", "count", "address", "flags", "mapcount",
};

struct range_ctx {
	struct pmaps_range r;
	unsigned long long address;
	struct seen seen;
};

static int range_member(struct json *j, const char *key, void *ctx)
{
	struct range_ctx *c = ctx;
	unsigned long long v;
	const char *at;
	char *flags;
	int i, bit;

	bit = known_member(j, &c->seen, key, range_members, R_NR);
	if (bit < 0)
		return bit == -1 ? 1 : -1;
	switch (bit) {
	case R_INDEX:
		return json_uint(j, ULLONG_MAX, &c->r.index, "index");
	case R_COUNT:
		json_ws(j);
		at = j->p;
		if (json_uint(j, ULLONG_MAX, &c->r.count, "count"))
			return -1;
		if (!c->r.count) {
			j->p = at;
			return json_fail(j, "count of at least 1");
		}
		return 0;
	case R_ADDRESS:
		return json_hex(j, &c->address, "address");
	case R_MAPCOUNT:
		/* null where the text has '?' (pmaps/2) */
		if (json_peek(j) == 'n' && j->end - j->p >= 4 &&
		    !memcmp(j->p, "null", 4)) {
			j->p += 4;
			c->r.mapcount = PMAPS_MAPCOUNT_UNKNOWN;
			return 0;
		}
		if (json_peek(j) < '0' || json_peek(j) > '9')
			return json_fail(j, "mapcount as a whole number or null");
		if (json_uint(j, LONG_MAX, &v, "mapcount"))
			return -1;
		c->r.mapcount = (long)v;
		return 0;
	}
	json_ws(j);
	at = j->p;
	if (json_string(j, &flags, "flags"))
		return -1;
	c->r.flags = 0;
	c->r.unknown = 0;
	for (i = 0; i < PMAPS_NR_FLAGS && flags[i]; i++) {
		if (flags[i] == pmaps_flag_letters[i])
			c->r.flags |= 1u << i;
		else if (flags[i] == '?')
			c->r.unknown |= 1u << i;
		else if (flags[i] != '_')
			break;
	}
	if (i < PMAPS_NR_FLAGS || flags[i]) {
		free(flags);
		j->p = at;
		return json_fail(j, "flags of 7 characters %s, '_' or '?'",
				 pmaps_flag_letters);
	}
	free(flags);
	return 0;
}

struct vma_ctx {
	struct pmaps_vma v;
	size_t ranges_cap, addresses_cap;
	unsigned long long *addresses;	/* the "address" of each range */
	struct seen seen;
};

/* Ranges are checked once their VMA is complete: members may come in any order. */
static int range_element(struct json *j, void *ctx)
{
	struct vma_ctx *vc = ctx;
	struct range_ctx c = { .seen = { 0, 0 } };
	struct pmaps_vma *v = &vc->v;

	json_ws(j);
	c.seen.line = j->line;
	c.r.line = j->line;
	if (json_object(j, "a range object", range_member, &c) ||
	    seen_all(j, &c.seen, (1u << R_NR) - 1, range_members, "range"))
		return -1;
	if (pmaps_grow_array((void **)&v->ranges, &vc->ranges_cap,
			     v->nr_ranges + 1, sizeof(*v->ranges)) ||
	    pmaps_grow_array((void **)&vc->addresses, &vc->addresses_cap,
			     v->nr_ranges + 1, sizeof(*vc->addresses)))
		return json_fail(j, "memory for the ranges");
	vc->addresses[v->nr_ranges] = c.address;
	v->ranges[v->nr_ranges++] = c.r;
	return 0;
}

/* Each range where its address says, inside its VMA, in order. */
static int check_ranges(struct json *j, const struct vma_ctx *vc)
{
	const struct pmaps_vma *v = &vc->v;
	unsigned long long next = v->start, addr;
	size_t i;

	for (i = 0; i < v->nr_ranges; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		addr = pmaps_range_addr(v, r);
		if (addr != vc->addresses[i]) {
			snprintf(j->err, j->errlen,
				 "%s:%u: expected address 0x%llx for index %llu, got 0x%llx",
				 j->name, r->line, addr, r->index,
				 vc->addresses[i]);
			return -1;
		}
		/* in pages, so that nothing can overflow */
		if (addr < next || addr >= v->end || addr % j->psize ||
		    r->count > (v->end - addr) / j->psize) {
			snprintf(j->err, j->errlen,
				 "%s:%u: expected a range inside %llx-%llx starting at or after %llx, got %llu pages at 0x%llx",
				 j->name, r->line, v->start, v->end, next,
				 r->count, addr);
			return -1;
		}
		next = addr + r->count * j->psize;
	}
	return 0;
}

enum {
	V_START, V_END, V_PERMS, V_OFFSET, V_DEV, V_INODE, V_NAME, V_RANGES,
	V_NR
};
static const char *const vma_members[V_NR] = {
	"start", "end", "perms", "offset", "dev", "inode", "name", "ranges",
};

static bool perms_ok(const char *s)
{
	return strlen(s) == 4 && (s[0] == 'r' || s[0] == '-') &&
	       (s[1] == 'w' || s[1] == '-') && (s[2] == 'x' || s[2] == '-') &&
	       (s[3] == 's' || s[3] == 'p');
}

/* "MAJ:MIN", each two or more lowercase hex digits, as maps prints it. */
static bool dev_ok(const char *s, unsigned int *major, unsigned int *minor)
{
	unsigned long long v[2] = { 0, 0 };
	int i, n;

	for (i = 0; i < 2; i++) {
		for (n = 0; hex_value(*s) >= 0 && !(*s >= 'A' && *s <= 'F');
		     s++, n++) {
			if (v[i] >> 28)
				return false;
			v[i] = v[i] << 4 | (unsigned long long)hex_value(*s);
		}
		if (n < 2 || *s != (i ? '\0' : ':'))
			return false;
		s++;
	}
	*major = (unsigned int)v[0];
	*minor = (unsigned int)v[1];
	return true;
}

static int vma_member(struct json *j, const char *key, void *ctx)
{
	struct vma_ctx *c = ctx;
	struct pmaps_vma *v = &c->v;
	const char *at;
	unsigned int line;
	char *s;
	int bit;

	bit = known_member(j, &c->seen, key, vma_members, V_NR);
	if (bit < 0)
		return bit == -1 ? 1 : -1;
	switch (bit) {
	case V_START:
		return json_hex(j, &v->start, "start");
	case V_END:
		return json_hex(j, &v->end, "end");
	case V_OFFSET:
		return json_uint(j, ULLONG_MAX, &v->offset, "offset");
	case V_INODE:
		return json_uint(j, ULLONG_MAX, &v->inode, "inode");
	case V_NAME:
		return json_string(j, &v->name, "name");
	case V_RANGES:
		return json_array(j, "an array of ranges", range_element, c);
	}
	json_ws(j);
	at = j->p;
	line = j->line;
	if (json_string(j, &s, bit == V_PERMS ? "perms" : "dev"))
		return -1;
	if (bit == V_PERMS ? perms_ok(s) :
	    dev_ok(s, &v->dev_major, &v->dev_minor)) {
		if (bit == V_PERMS)
			memcpy(v->perms, s, 5);
		free(s);
		return 0;
	}
	free(s);
	j->p = at;
	j->line = line;
	return json_fail(j, bit == V_PERMS ? "perms as [r-][w-][x-][sp]" :
			 "dev as MAJ:MIN in lowercase hex");
}

static void vma_ctx_free(struct vma_ctx *c)
{
	free(c->addresses);
	free(c->v.ranges);
	free(c->v.name);
	free(c->v.header);
}

/* The VMA's maps line, malloc()ed, for whoever prints headers. */
static char *maps_line(const struct pmaps_vma *v)
{
#define MAPS_LINE_ARGS(v) "%08llx-%08llx %s %08llx %02x:%02x %llu %s", \
	(v)->start, (v)->end, (v)->perms, (v)->offset, (v)->dev_major, \
	(v)->dev_minor, (v)->inode, (v)->name
	int n = snprintf(NULL, 0, MAPS_LINE_ARGS(v));
	char *line = n < 0 ? NULL : malloc((size_t)n + 1);

	if (line)
		snprintf(line, (size_t)n + 1, MAPS_LINE_ARGS(v));
	return line;
#undef MAPS_LINE_ARGS
}

/* A complete VMA: below its end, after the VMA before, its ranges inside. */
static int check_vma(struct json *j, const struct vma_ctx *c)
{
	const struct pmaps_map *map = j->map;
	const struct pmaps_vma *v = &c->v;

	j->failed = 1;
	if (v->start >= v->end) {
		snprintf(j->err, j->errlen,
			 "%s:%u: expected start below end, got %llx-%llx",
			 j->name, c->seen.line, v->start, v->end);
		return -1;
	}
	if (map->nr_vmas && v->start < map->vmas[map->nr_vmas - 1].end) {
		snprintf(j->err, j->errlen,
			 "%s:%u: expected a VMA starting at or after %llx, got %llx",
			 j->name, c->seen.line,
			 map->vmas[map->nr_vmas - 1].end, v->start);
		return -1;
	}
	if (check_ranges(j, c))
		return -1;
	j->failed = 0;
	return 0;
}

static int vma_element(struct json *j, void *ctx)
{
	struct json *top = ctx;
	struct pmaps_map *map = top->map;
	struct vma_ctx c;

	memset(&c, 0, sizeof(c));
	c.v.swapped = -1;
	json_ws(j);
	c.seen.line = j->line;
	c.v.line = j->line;
	if (json_object(j, "a VMA object", vma_member, &c) ||
	    seen_all(j, &c.seen, (1u << V_NR) - 1, vma_members, "VMA") ||
	    check_vma(j, &c)) {
		vma_ctx_free(&c);
		return -1;
	}
	free(c.addresses);
	c.addresses = NULL;
	c.v.header = maps_line(&c.v);
	if (!c.v.header ||
	    pmaps_grow_array((void **)&map->vmas, &top->vmas_cap,
			     map->nr_vmas + 1, sizeof(*map->vmas))) {
		vma_ctx_free(&c);
		return json_fail(j, "memory for the VMAs");
	}
	map->vmas[map->nr_vmas++] = c.v;
	return 0;
}

struct target_ctx {
	struct json *top;
	size_t nr;			/* targets so far */
	unsigned int line;		/* of the target's '{' */
	bool vmas_seen;
};

static int target_member(struct json *j, const char *key, void *ctx)
{
	struct target_ctx *c = ctx;

	if (strcmp(key, "vmas"))
		return 1;
	if (c->vmas_seen)
		return json_fail(j, "each member once, \"vmas\" again");
	c->vmas_seen = true;
	return json_array(j, "an array of VMAs", vma_element, c->top);
}

static int target_element(struct json *j, void *ctx)
{
	struct target_ctx *c = ctx;

	json_ws(j);
	if (++c->nr > 1)
		return json_fail(j, "one target (compare documents of one process each)");
	c->line = j->line;
	return json_object(j, "a target object", target_member, c);
}

enum { T_SCHEMA, T_TARGETS, T_NR };
static const char *const top_members[T_NR] = { "schema", "targets" };

struct top_ctx {
	struct target_ctx targets;
	struct seen seen;
};

static int top_member(struct json *j, const char *key, void *ctx)
{
	struct top_ctx *c = ctx;
	const char *at;
	unsigned int line;
	char *schema;
	int bit;

	bit = known_member(j, &c->seen, key, top_members, T_NR);
	if (bit < 0)
		return bit == -1 ? 1 : -1;
	if (bit == T_TARGETS)
		return json_array(j, "an array of targets", target_element,
				  &c->targets);
	json_ws(j);
	at = j->p;
	line = j->line;
	if (json_string(j, &schema, "schema"))
		return -1;
	/* pmaps/2 only adds null mapcounts, which this reader takes */
	if (strcmp(schema, "pmaps/1") && strcmp(schema, "pmaps/2")) {
		free(schema);
		j->p = at;
		j->line = line;
		return json_fail(j, "schema \"pmaps/1\" or \"pmaps/2\"");
	}
	free(schema);
	return 0;
}

/* A pmaps/1 or pmaps/2 document with one target into *map. */
static int parse_json(const char *buf, size_t len, const char *name,
		      struct pmaps_map *map, char *err, size_t errlen)
{
	struct json j = {
		.name = name, .p = buf, .end = buf + len, .line = 1,
		.psize = pmaps_page_size(), .err = err, .errlen = errlen,
		.map = map,
	};
	struct top_ctx c = { .targets = { .top = &j } };

	memset(map, 0, sizeof(*map));
	json_ws(&j);
	c.seen.line = j.line;
	if (json_object(&j, "a JSON object", top_member, &c) ||
	    seen_all(&j, &c.seen, (1u << T_NR) - 1, top_members,
		     "document"))
		return -1;
	if (c.targets.nr != 1) {
		snprintf(err, errlen, "%s:%u: expected one target, got none",
			 name, c.seen.line);
		return -1;
	}
	if (!c.targets.vmas_seen) {
		snprintf(err, errlen,
			 "%s:%u: expected member \"vmas\" in this target",
			 name, c.targets.line);
		return -1;
	}
	if (json_peek(&j))
		return json_fail(&j, "the end of the file after the document");
	return 0;
}

/* ---- loading either format ---- */

static int load(const char *path, struct pmaps_map *map)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	char err[512];
	char *text;
	size_t len, i;
	int ret;

	memset(map, 0, sizeof(*map));
	if (pmaps_read_file(path, &text, &len, err, sizeof(err))) {
		pmaps_cmd_report("diff", err);
		return DIFF_TROUBLE;
	}
	for (i = 0; i < len && strchr(" \t\r\n", text[i]); i++)
		;
	if (i < len && text[i] == '{')
		ret = parse_json(text, len, name, map, err, sizeof(err));
	else
		ret = pmaps_parse_buf(text, len, name, map, err, sizeof(err));
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

/* Pages [addr, addr + pages) are in state a in A and b in B. */
static void segment(struct differ *d, unsigned long long addr,
		    unsigned long long pages, const struct state *a,
		    const struct state *b)
{
	struct run *r = &d->run;
	enum change kind;

	if (same_state(a, b))
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
			if (a.st.mapcount == PMAPS_MAPCOUNT_UNKNOWN &&
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

int pmaps_cmd_diff(int argc, char **argv)
{
	static const struct option options[] = {
		{ "summary",	no_argument, NULL, 's' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char prog_name[] = "pmaps diff";
	struct pmaps_map a, b;
	struct differ d;
	int opt, ret, i;

	memset(&d, 0, sizeof(d));
	argv[0] = prog_name;	/* getopt_long's messages name it */
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'h') {
			fputs(diff_usage, stdout);
			return DIFF_SAME;
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
	ret = load(argv[optind], &a);
	if (ret)
		return ret;
	ret = load(argv[optind + 1], &b);
	if (ret) {
		pmaps_map_free(&a);
		return ret;
	}
	d.a = &a;
	d.b = &b;
	d.psize = pmaps_page_size();
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
	pmaps_map_free(&a);
	pmaps_map_free(&b);
	return ret;
}
