// SPDX-License-Identifier: GPL-2.0
/*
 * libpmaps: reader of the JSON that pmaps --json writes (schema pmaps/2,
 * or the older pmaps/1; Documentation/pmaps-json.rst), into the same
 * struct pmaps_map as the text parser.  Moved here from pmaps diff, so
 * that every reader of JSON documents shares it.
 *
 * Hand-written, like the text parser: it reads exactly what pmaps --json
 * writes, with messages in the parser's form (file, line, what was
 * expected, what came), and keeps index, offset and inode as unsigned
 * 64-bit numbers, which neither doubles nor the signed integers of the
 * usual JSON libraries hold whole.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmaps.h"

/* Bytes of input quoted in a message. */
#define SNIPPET_MAX	24
/* Nesting of JSON values the reader follows at most. */
#define JSON_DEPTH	64

struct json {
	const char *name;		/* for messages */
	const char *p, *end;
	unsigned int line;
	int depth;
	/*
	 * Page sizes the VMAs so far fit, as their sum (pmaps.h): one when
	 * given or the target's "page_size" told it.
	 */
	unsigned long long sizes;
	unsigned int range_line;	/* of the first range, or 0 */
	char *err;
	size_t errlen;
	int failed;
	bool at_end;			/* the failure was the end of the input */
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
		j->at_end = true;
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
		/*
		 * The input ended in the string: a prefix may yet close it
		 * (pmaps_parse_json_prefix() reads on), so this failure is
		 * the end of the input's, whatever the string holds so far.
		 */
		j->p = s - 1;
		json_fail(j, "a string closed by '\"'");
		j->at_end = true;
		return -1;
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

		/* d > max first: max - d would wrap below a max under 9 */
		if (d > max || v > (max - d) / 10) {
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

/*
 * node and kb (pmaps/3) and age (pmaps/4) are optional: R_NR counts the
 * required ones.
 */
enum { R_INDEX, R_COUNT, R_ADDRESS, R_FLAGS, R_MAPCOUNT, R_NR,
       R_NODE = R_NR, R_KB, R_AGE, R_ALL };
static const char *const range_members[R_ALL] = {
	"index", "count", "address", "flags", "mapcount", "node", "kb", "age",
};

/* A number up to max, or null (*v untouched, returns 1). */
static int json_uint_or_null(struct json *j, unsigned long long max,
			     unsigned long long *v, const char *what)
{
	if (json_peek(j) == 'n' && j->end - j->p >= 4 &&
	    !memcmp(j->p, "null", 4)) {
		j->p += 4;
		return 1;
	}
	if (json_peek(j) < '0' || json_peek(j) > '9')
		return json_fail(j, "%s as a whole number or null", what);
	return json_uint(j, max, v, what);
}

struct range_ctx {
	struct pmaps_range r;
	unsigned long long address;
	struct seen seen;
	bool numa;		/* it had node or kb */
	bool age;		/* it had age */
};

static int range_member(struct json *j, const char *key, void *ctx)
{
	struct range_ctx *c = ctx;
	unsigned long long v;
	const char *at;
	char *flags;
	int i, bit;

	bit = known_member(j, &c->seen, key, range_members, R_ALL);
	if (bit < 0)
		return bit == -1 ? 1 : -1;
	switch (bit) {
	case R_NODE:
		c->numa = true;
		i = json_uint_or_null(j, PMAPS_NODE_MAX, &v, "node");
		if (!i)
			c->r.node = (long)v;
		return i < 0 ? -1 : 0;
	case R_AGE:
		c->age = true;
		i = json_uint_or_null(j, PMAPS_AGE_MAX, &v, "age");
		if (!i)
			c->r.age = (int)v;
		return i < 0 ? -1 : 0;
	case R_KB:
		c->numa = true;
		json_ws(j);
		at = j->p;
		i = json_uint_or_null(j, ULLONG_MAX, &v, "kb");
		if (!i && !v) {
			j->p = at;
			return json_fail(j, "kb of at least 1, or null");
		}
		if (!i)
			c->r.kb = v;
		return i < 0 ? -1 : 0;
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
	bool numa;			/* a range had node or kb */
	bool age;			/* a range had age */
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
	c.r.node = PMAPS_NODE_UNKNOWN;
	c.r.kb = PMAPS_KB_UNKNOWN;
	c.r.age = PMAPS_AGE_UNKNOWN;
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
	vc->numa |= c.numa;
	vc->age |= c.age;
	return 0;
}

/*
 * Each range where its address says with pages of sz bytes, inside its
 * VMA, in order, its folio whole pages; and the VMA on pages.  0, or -1
 * with the message in err.
 */
static int ranges_fit(struct json *j, const struct vma_ctx *vc,
		      unsigned long long sz, char *err, size_t errlen)
{
	const struct pmaps_vma *v = &vc->v;
	unsigned long long next = v->start, addr;
	size_t i;

	if (v->start % sz || v->end % sz || (v->inode && v->offset % sz)) {
		snprintf(err, errlen,
			 "%s:%u: expected start, end%s multiples of the page size, %llu, got %llx-%llx",
			 j->name, v->line, v->inode ? " and offset" : "", sz,
			 v->start, v->end);
		return -1;
	}
	for (i = 0; i < v->nr_ranges; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		addr = pmaps_range_addr_at(v, r, sz);
		if (addr != vc->addresses[i]) {
			snprintf(err, errlen,
				 "%s:%u: expected address 0x%llx for index %llu, got 0x%llx",
				 j->name, r->line, addr, r->index,
				 vc->addresses[i]);
			return -1;
		}
		/* in pages, so that nothing can overflow */
		if (addr < next || addr >= v->end || addr % sz ||
		    r->count > (v->end - addr) / sz) {
			snprintf(err, errlen,
				 "%s:%u: expected a range inside %llx-%llx starting at or after %llx, got %llu pages at 0x%llx",
				 j->name, r->line, v->start, v->end, next,
				 r->count, addr);
			return -1;
		}
		if (r->kb != PMAPS_KB_UNKNOWN && r->kb % (sz / 1024)) {
			snprintf(err, errlen,
				 "%s:%u: expected kb a multiple of the page size in KiB, %llu, got %llu",
				 j->name, r->line, sz / 1024, r->kb);
			return -1;
		}
		next = addr + r->count * sz;
	}
	return 0;
}

/*
 * The page sizes the VMA fits stay in j->sizes; when none does, the
 * message of the one messages use (pmaps_page_sizes_ref()).
 */
static int check_ranges(struct json *j, const struct vma_ctx *vc)
{
	unsigned long long sizes, old = j->sizes;
	unsigned long long ref = pmaps_page_sizes_ref(j->sizes);

	for (sizes = j->sizes; sizes; sizes &= sizes - 1) {
		unsigned long long sz = sizes & -sizes;

		if (ranges_fit(j, vc, sz, NULL, 0))
			j->sizes &= ~sz;
	}
	/* on failure, the partial map keeps a size its VMAs fit */
	if (!j->sizes) {
		j->sizes = old;
		return ranges_fit(j, vc, ref, j->err, j->errlen);
	}
	if (vc->v.nr_ranges && !j->range_line)
		j->range_line = vc->v.ranges[0].line;
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
		json_ws(j);
		at = j->p;
		line = j->line;
		if (json_string(j, &v->name, "name"))
			return -1;
		/*
		 * As maps prints it, so that the text printed again holds
		 * it: maps escapes a newline, and a leading blank would be
		 * taken for the padding.
		 */
		if (!strchr(v->name, '\n') && v->name[0] != ' ')
			return 0;
		j->p = at;
		j->line = line;
		return json_fail(j, "name as maps prints it, without a newline or a leading space");
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

/*
 * Where /proc/PID/maps starts a name: the kernel pads the line to this
 * width (seq_setwidth() in show_map_vma()), then writes one space.
 */
#define MAPS_NAME_PAD	(25 + sizeof(void *) * 6 - 1)

/*
 * The VMA's maps line, malloc()ed, for whoever prints headers: byte for
 * byte what maps printed, so that the text printed again from JSON is
 * the text the JSON was made from.
 */
static char *maps_line(const struct pmaps_vma *v)
{
#define MAPS_PREFIX_ARGS(v) "%08llx-%08llx %s %08llx %02x:%02x %llu ", \
	(v)->start, (v)->end, (v)->perms, (v)->offset, (v)->dev_major, \
	(v)->dev_minor, (v)->inode
	int n = snprintf(NULL, 0, MAPS_PREFIX_ARGS(v));
	size_t len, pad = 0, name = strlen(v->name);
	char *line;

	if (n < 0)
		return NULL;
	len = (size_t)n;
	if (name) {
		pad = len < MAPS_NAME_PAD ? MAPS_NAME_PAD - len : 0;
		len += pad + 1 + name;
	}
	line = malloc(len + 1);
	if (!line)
		return NULL;
	snprintf(line, (size_t)n + 1, MAPS_PREFIX_ARGS(v));
	if (name) {
		memset(line + n, ' ', pad + 1);
		memcpy(line + n + pad + 1, v->name, name);
	}
	line[len] = '\0';
	return line;
#undef MAPS_PREFIX_ARGS
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
	map->numa |= c.numa;
	map->age |= c.age;
	return 0;
}

struct target_ctx {
	struct json *top;
	size_t nr;			/* targets so far */
	unsigned int line;		/* of the target's '{' */
	bool vmas_seen;
	bool page_size_seen;
};

/*
 * "page_size": the page size of the kernel the document came from, which
 * its ranges must fit, before or after them.
 */
static int target_page_size(struct json *j, struct target_ctx *c)
{
	unsigned long long n;
	const char *at;
	char what[80];

	if (c->page_size_seen)
		return json_fail(j, "each member once, \"page_size\" again");
	c->page_size_seen = true;
	json_ws(j);
	at = j->p;
	if (json_uint(j, ULLONG_MAX, &n, "page_size"))
		return -1;
	if (!pmaps_page_size_ok(n)) {
		j->p = at;
		return json_fail(j, "page_size a power of two from %llu to %llu",
				 1ULL << PMAPS_DOC_PAGE_SHIFT_MIN,
				 1ULL << PMAPS_DOC_PAGE_SHIFT_MAX);
	}
	if (!(j->sizes & n)) {
		pmaps_page_sizes_str(j->sizes, what, sizeof(what));
		j->p = at;
		return json_fail(j, "page_size %s, as the ranges%s have it",
				 what[0] ? what : "(none)",
				 pmaps_doc_page_size() ? " and --page-size" : "");
	}
	j->sizes = n;
	return 0;
}

static int target_member(struct json *j, const char *key, void *ctx)
{
	struct target_ctx *c = ctx;

	if (!strcmp(key, "page_size"))
		return target_page_size(j, c);
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
		return json_fail(j, "one target per file (pmaps --json PID > FILE saves one)");
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
	/*
	 * pmaps/2 only adds null mapcounts, pmaps/3 node and kb, pmaps/4
	 * age, which this reader takes
	 */
	if (strcmp(schema, "pmaps/1") && strcmp(schema, "pmaps/2") &&
	    strcmp(schema, "pmaps/3") && strcmp(schema, "pmaps/4")) {
		free(schema);
		j->p = at;
		j->line = line;
		return json_fail(j, "schema \"pmaps/1\", \"pmaps/2\", \"pmaps/3\" or \"pmaps/4\"");
	}
	free(schema);
	return 0;
}

/* Its page size into the map and its VMAs. */
static void set_page_size(struct json *j)
{
	unsigned long long sz = pmaps_page_sizes_ref(j->sizes);
	size_t i;

	j->map->page_size = sz;
	for (i = 0; i < j->map->nr_vmas; i++)
		j->map->vmas[i].page_size = sz;
}

static int parse_json(const char *buf, size_t len, const char *name,
		      unsigned long long page_size, struct pmaps_map *map,
		      char *err, size_t errlen, bool *at_end)
{
	struct json j = {
		.name = name, .p = buf, .end = buf + len, .line = 1,
		.sizes = pmaps_page_sizes_init(page_size), .err = err,
		.errlen = errlen, .map = map,
	};
	struct top_ctx c = { .targets = { .top = &j } };
	char what[80];

	memset(map, 0, sizeof(*map));
	json_ws(&j);
	c.seen.line = j.line;
	if (json_object(&j, "a JSON object", top_member, &c) ||
	    seen_all(&j, &c.seen, (1u << T_NR) - 1, top_members,
		     "document")) {
		*at_end = j.at_end;
		set_page_size(&j);
		return -1;
	}
	set_page_size(&j);
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
	if (j.range_line && (j.sizes & (j.sizes - 1))) {
		pmaps_page_sizes_str(j.sizes, what, sizeof(what));
		snprintf(err, errlen,
			 "%s:%u: expected a target \"page_size\" or ranges that tell it, got ranges that fit pages of %s bytes alike (give --page-size)",
			 name, j.range_line, what);
		return -1;
	}
	return 0;
}

int pmaps_parse_json_as(const char *buf, size_t len, const char *name,
			unsigned long long page_size, struct pmaps_map *map,
			char *err, size_t errlen)
{
	bool at_end;

	return parse_json(buf, len, name, page_size, map, err, errlen,
			  &at_end);
}

int pmaps_parse_json(const char *buf, size_t len, const char *name,
		     struct pmaps_map *map, char *err, size_t errlen)
{
	return pmaps_parse_json_as(buf, len, name, pmaps_doc_page_size(),
				   map, err, errlen);
}

int pmaps_parse_json_prefix_as(const char *buf, size_t len, const char *name,
			       unsigned long long page_size,
			       struct pmaps_map *map, char *err,
			       size_t errlen)
{
	bool at_end = false;
	int ret = parse_json(buf, len, name, page_size, map, err, errlen,
			     &at_end);

	return ret && at_end ? 1 : ret;
}

int pmaps_parse_json_prefix(const char *buf, size_t len, const char *name,
			    struct pmaps_map *map, char *err, size_t errlen)
{
	return pmaps_parse_json_prefix_as(buf, len, name,
					  pmaps_doc_page_size(), map, err,
					  errlen);
}
