// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps_view() (userspace/view.c): golden output of every view on the
 * guest fixtures, on a pagemap-style document with '?' flags and on
 * withheld.txt (demo-6.12 as an unprivileged reader gets it: '?' for the
 * R, A, D and W flags and for counts above 1 of /bin/demo's page cache),
 * plus the behaviours a golden file cannot pin down (colour, sorting,
 * escaping, JSON syntax, page detail of a live process, no PFN for
 * non-root).
 *
 * PMAPS_UPDATE_GOLDEN=1 (that value only) rewrites tests/unit/golden/
 * from the current output instead of comparing, and then is no test run:
 * each golden test says "not ok ... wrote", the run bails out and exits 3.
 * Review the diff before committing it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../userspace/cli.h"
#include "../../userspace/lib/pagemap.h"
#include "../guest/tap.h"
#include "qemu_user.h"

#define GOLDEN FIXTURES "/../golden"

#ifndef PR_SET_SECUREBITS
#define PR_SET_SECUREBITS 28
#endif
/* include/uapi/linux/securebits.h: keep capabilities across setuid */
#define SECBIT_NO_SETUID_FIXUP (1 << 2)


/* ---- documents ---- */

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 4096 > cap) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
		if (!n)
			break;
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

/*
 * A document from text; pid 0 and source "file" unless changed after.
 * Returns 0, or -1 with a diagnostic.
 */
static int doc_from_text(struct pmaps_doc *d, const char *label,
			 const char *text, size_t len)
{
	char err[256];

	memset(d, 0, sizeof(*d));
	snprintf(d->label, sizeof(d->label), "%s", label);
	d->source = PMAPS_SRC_FILE;
	d->text = malloc(len + 1);
	if (!d->text)
		return -1;
	memcpy(d->text, text, len);
	d->text[len] = '\0';
	d->text_len = len;
	if (pmaps_parse_buf(d->text, len, label, &d->map, err,
			    sizeof(err))) {
		tap_diag("%s", err);
		return -1;
	}
	return 0;
}

/* A fixture file as a document named after its file. */
static int load_fixture(struct pmaps_doc *d, const char *name)
{
	char path[512];
	size_t len;
	char *buf;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	buf = read_all(path, &len);
	if (!buf) {
		tap_diag("cannot read %s: %s", path, strerror(errno));
		memset(d, 0, sizeof(*d));
		return -1;
	}
	ret = doc_from_text(d, strrchr(name, '/') ? strrchr(name, '/') + 1 :
			    name, buf, len);
	free(buf);
	return ret;
}

static void doc_free(struct pmaps_doc *d)
{
	pmaps_map_free(&d->map);
	free(d->text);
	d->text = NULL;
}

/* ---- rendering ---- */

struct render {
	char *buf;
	size_t len;
	int ret;
};

static void render(struct render *r, const struct pmaps_view_opts *opts,
		   struct pmaps_doc *docs, size_t nr)
{
	FILE *f = open_memstream(&r->buf, &r->len);

	r->buf = NULL;
	r->len = 0;
	if (!f) {
		r->ret = -2;
		return;
	}
	r->ret = pmaps_view(f, opts, docs, nr);
	fclose(f);
}

static void render_free(struct render *r)
{
	free(r->buf);
	r->buf = NULL;
}

static struct pmaps_view_opts view(enum pmaps_view_kind kind)
{
	struct pmaps_view_opts o;

	memset(&o, 0, sizeof(o));
	o.kind = kind;
	return o;
}

/* Show where got and want part, one line each. */
static void show_diff(const char *name, const char *got, size_t glen,
		      const char *want, size_t wlen)
{
	size_t i = 0, line = 1, gs = 0, ws = 0, ge, we;

	while (i < glen && i < wlen && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			gs = ws = i + 1;
		}
		i++;
	}
	for (ge = gs; ge < glen && got[ge] != '\n'; ge++)
		;
	for (we = ws; we < wlen && want[we] != '\n'; we++)
		;
	tap_diag("%s: differs at line %zu", name, line);
	tap_diag("  want: %.*s", (int)(we - ws), want + ws);
	tap_diag("  got:  %.*s", (int)(ge - gs), got + gs);
}

/* PMAPS_UPDATE_GOLDEN=1: write the golden files, compare nothing */
static int updating;

/* Compare with golden/NAME, or write it under PMAPS_UPDATE_GOLDEN=1. */
static void golden(const char *name, const struct render *r)
{
	char path[512];
	size_t wlen;
	char *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN, name);
	tap_check(r->ret == 0, "%s: pmaps_view returned %d", name, r->ret);
	if (updating) {
		f = fopen(path, "wb");
		tap_check(f && fwrite(r->buf, 1, r->len, f) == r->len,
		      "cannot write %s", path);
		if (f)
			fclose(f);
		/* a file written is not a test passed */
		tap_check(0, "wrote %s: golden update, not a comparison", path);
		return;
	}
	want = read_all(path, &wlen);
	if (!want) {
		tap_check(0, "cannot read %s: %s", path, strerror(errno));
		return;
	}
	if (wlen != r->len || memcmp(want, r->buf, wlen)) {
		tap_check(0, "%s: output differs from the golden file", name);
		show_diff(name, r->buf, r->len, want, wlen);
	}
	free(want);
}

static const char *const fixtures[] = {
	"guest/demo-6.1.txt", "guest/demo-6.12.txt", "pagemap-unknown.txt",
	"withheld.txt",
};
#define NR_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static struct pmaps_doc docs[NR_FIXTURES];
static int docs_ok;

/* golden/BASE.SUFFIX for each fixture */
static void golden_all(const char *suffix, struct pmaps_view_opts opts)
{
	struct render r;
	char name[128];
	size_t i;

	if (!docs_ok) {
		tap_check(0, "fixtures did not load");
		return;
	}
	for (i = 0; i < NR_FIXTURES; i++) {
		const char *base = strrchr(fixtures[i], '/');

		base = base ? base + 1 : fixtures[i];
		snprintf(name, sizeof(name), "%.*s.%s",
			 (int)(strlen(base) - 4), base, suffix);
		render(&r, &opts, &docs[i], 1);
		golden(name, &r);
		tap_check(!memchr(r.buf, '\033', r.len),
		      "%s: escape code with colour off", name);
		render_free(&r);
	}
}

static size_t count_str(const char *hay, size_t len, const char *needle)
{
	size_t n = 0, nl = strlen(needle);
	const char *p = hay, *end = hay + len;

	while ((p = memmem(p, (size_t)(end - p), needle, nl))) {
		n++;
		p += nl;
	}
	return n;
}

static int has(const struct render *r, const char *needle)
{
	return r->buf && memmem(r->buf, r->len, needle, strlen(needle));
}

/* ---- golden tests, one per view ---- */

static void test_default_golden(void)
{
	golden_all("default", view(PMAPS_VIEW_DEFAULT));
	tap_test_done("default view matches golden files");
}

static void test_totals_golden(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);

	o.totals = true;
	golden_all("totals", o);
	tap_test_done("default view with per-VMA totals matches golden files");
}

static void test_decode_golden(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);

	o.decode = true;
	golden_all("decode", o);
	tap_test_done("default view with decoded flags matches golden files");
}

static void test_summary_golden(void)
{
	golden_all("summary", view(PMAPS_VIEW_SUMMARY));
	tap_test_done("summary view matches golden files");
}

static void test_histogram_golden(void)
{
	golden_all("histogram", view(PMAPS_VIEW_HISTOGRAM));
	tap_test_done("histogram view matches golden files");
}

static void test_pages_golden(void)
{
	golden_all("pages", view(PMAPS_VIEW_PAGES));
	tap_test_done("pages view matches golden files");
}

static void test_address_golden(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_ADDRESS);

	/* second page of the 004a6000 VMA: in a range in every fixture */
	o.address = 0x4a7123;
	golden_all("address", o);
	tap_test_done("address view matches golden files");
}

static void test_json_golden(void)
{
	golden_all("json", view(PMAPS_VIEW_JSON));
	tap_test_done("json view matches golden files");
}

static void test_tsv_golden(void)
{
	golden_all("tsv", view(PMAPS_VIEW_TSV));
	tap_test_done("tsv view matches golden files");
}

/* Raw's golden file is the input: concatenated, byte for byte. */
static void test_raw(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_RAW);
	struct render r;
	size_t i, off = 0;

	render(&r, &o, docs, NR_FIXTURES);
	tap_check(r.ret == 0, "pmaps_view returned %d", r.ret);
	for (i = 0; i < NR_FIXTURES && docs_ok; i++) {
		tap_check(off + docs[i].text_len <= r.len &&
		      !memcmp(r.buf + off, docs[i].text, docs[i].text_len),
		      "%s not copied unchanged", docs[i].label);
		off += docs[i].text_len;
	}
	tap_check(off == r.len, "raw output has %zu bytes, want %zu", r.len, off);
	render_free(&r);
	tap_test_done("raw view writes every document's text unchanged");
}

/* ---- behaviours ---- */

static void test_color(void)
{
	static const enum pmaps_view_kind kinds[] = {
		PMAPS_VIEW_DEFAULT, PMAPS_VIEW_SUMMARY, PMAPS_VIEW_HISTOGRAM,
		PMAPS_VIEW_PAGES, PMAPS_VIEW_ADDRESS,
	};
	struct pmaps_view_opts o;
	struct render r;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		o = view(kinds[i]);
		o.address = 0x4a6000;
		o.color = true;
		render(&r, &o, &docs[1], 1);
		tap_check(has(&r, "\033[1m"), "view %d: no bold header",
		      (int)kinds[i]);
		tap_check(count_str(r.buf, r.len, "\033[") ==
		      2 * count_str(r.buf, r.len, "\033[0m"),
		      "view %d: a colour is not reset", (int)kinds[i]);
		render_free(&r);
	}
	o = view(PMAPS_VIEW_DEFAULT);
	o.color = true;
	render(&r, &o, &docs[1], 1);
	/* 6.12's "168 2 Y__UP__ 2": pte dirty, and shared */
	tap_check(has(&r, "\033[31mP\033[0m"), "pte-dirty letter not coloured");
	tap_check(has(&r, "\033[31mD\033[0m"), "dirty letter not coloured");
	tap_check(has(&r, "\033[36m   2\033[0m"), "mapcount 2 not coloured");
	tap_check(!has(&r, "\033[36m   1"), "mapcount 1 coloured as shared");
	render_free(&r);
	o.decode = true;
	render(&r, &o, &docs[2], 1);
	tap_check(has(&r, "\033[33mwriteback\033[0m"), "writeback not coloured");
	tap_check(has(&r, "\033[31mdirty\033[0m"), "dirty name not coloured");
	render_free(&r);
	tap_test_done("colour: bold headers, dirty, writeback and shared coloured");
}

static void test_no_escape_without_color(void)
{
	enum pmaps_view_kind k;
	struct pmaps_view_opts o;
	struct render r;

	for (k = PMAPS_VIEW_DEFAULT; k <= PMAPS_VIEW_RAW; k++) {
		o = view(k);
		o.decode = true;
		o.totals = true;
		o.address = 0x4a6000;
		render(&r, &o, docs, NR_FIXTURES);
		tap_check(r.buf && !memchr(r.buf, '\033', r.len),
		      "view %d printed an escape code with colour off", (int)k);
		render_free(&r);
	}
	tap_test_done("no escape code at all when colour is off");
}

static void test_decode_names(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);
	struct render r;

	o.decode = true;
	render(&r, &o, &docs[1], 1);
	tap_check(has(&r, " young,referenced,uptodate,dirty "),
	      "YR_U_D_ not decoded");
	tap_check(has(&r, " young,uptodate,pte-dirty "), "Y__UP__ not decoded");
	tap_check(!has(&r, "YR_U_D_"), "letters printed with decode");
	render_free(&r);
	render(&r, &o, &docs[2], 1);
	tap_check(has(&r, " young?,uptodate,pte-dirty?,dirty,writeback "),
	      "unknown flags not decoded as young? / pte-dirty?");
	render_free(&r);
	tap_test_done("decode prints flag names, '?' bits as young?");
}

static void test_histogram_sorted(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_HISTOGRAM);
	unsigned long long prev = ~0ULL, sum = 0, pages;
	struct render r;
	char *line, *save = NULL;
	int rows = 0, seen_total = 0;

	render(&r, &o, &docs[0], 1);
	tap_check(r.ret == 0 && r.buf, "no output");
	for (line = r.buf ? strtok_r(r.buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char flags[16], names[128];

		if (!strncmp(line, "total", 5)) {
			seen_total = sscanf(line, "total %llu", &pages) == 1;
			tap_check(seen_total && pages == sum,
			      "total %llu, rows add up to %llu", pages, sum);
			continue;
		}
		if (sscanf(line, "%15s %127s %llu", flags, names, &pages) != 3 ||
		    strlen(flags) != PMAPS_NR_FLAGS)
			continue;
		rows++;
		tap_check(pages <= prev, "row %d: %llu pages after %llu", rows,
		      pages, prev);
		prev = pages;
		sum += pages;
	}
	/* demo-6.1 has YR_U_D_, Y_AU_D_, Y__UP__ and YR_____ */
	tap_check(rows == 4, "%d histogram rows, want 4", rows);
	tap_check(seen_total, "no total row");
	render_free(&r);
	tap_test_done("histogram rows are sorted by pages, descending");
}

/* A minimal JSON syntax check (RFC 8259); returns the end or NULL. */
static const char *js_value(const char *p, int depth);

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *js_string(const char *p)
{
	int i;

	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p++ != '\\')
			continue;
		if (*p && strchr("\"\\/bfnrt", *p)) {
			p++;
		} else if (*p == 'u') {
			for (i = 1; i <= 4; i++)
				if (!isxdigit((unsigned char)p[i]))
					return NULL;
			p += 5;
		} else {
			return NULL;
		}
	}
	return p + 1;
}

static const char *js_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *js_value(const char *p, int depth)
{
	char close;

	p = js_ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '"')
		return js_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p != '{' && *p != '[')
		return js_number(p);
	close = *p == '{' ? '}' : ']';
	p = js_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = js_string(js_ws(p));
			if (!p)
				return NULL;
			p = js_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = js_value(p, depth + 1);
		if (!p)
			return NULL;
		p = js_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static int json_valid(const char *s)
{
	const char *end = js_value(s, 0);

	return end && !*js_ws(end);
}

static void test_json_valid(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_JSON);
	size_t i, ranges = 0, vmas = 0, j;
	struct render r;

	render(&r, &o, docs, NR_FIXTURES);
	tap_check(r.ret == 0 && r.buf && json_valid(r.buf),
	      "output of %zu targets is not valid JSON", NR_FIXTURES);
	tap_check(r.buf && !strncmp(r.buf, "{\"schema\":\"pmaps/2\",", 20),
	      "no schema member first");
	tap_check(count_str(r.buf, r.len, "\"label\":") == NR_FIXTURES,
	      "not one target per document");
	for (i = 0; i < NR_FIXTURES; i++) {
		vmas += docs[i].map.nr_vmas;
		for (j = 0; j < docs[i].map.nr_vmas; j++)
			ranges += docs[i].map.vmas[j].nr_ranges;
	}
	tap_check(count_str(r.buf, r.len, "{\"index\":") == ranges,
	      "%zu range objects, want %zu",
	      count_str(r.buf, r.len, "{\"index\":"), ranges);
	tap_check(count_str(r.buf, r.len, "\"swapped\":null") == vmas,
	      "swapped of a file document is not null");
	/* withheld.txt's three '?' counts, and no other */
	tap_check(count_str(r.buf, r.len, "\"mapcount\":null") == 3,
	      "%zu null mapcounts, want 3",
	      count_str(r.buf, r.len, "\"mapcount\":null"));
	render_free(&r);

	/* no documents: still one valid JSON document */
	render(&r, &o, NULL, 0);
	tap_check(r.buf && json_valid(r.buf) && has(&r, "\"targets\":[\n]"),
	      "empty run is not an empty targets array: %s",
	      r.buf ? r.buf : "");
	render_free(&r);
	tap_test_done("json output is valid JSON with one object per range");
}

/*
 * One VMA whose name holds every character that needs escaping; 3 pages
 * long, so that only 4 KiB pages fit it.
 */
static int doc_odd_name(struct pmaps_doc *d, const char *name)
{
	static const char text[] =
		"00400000-00403000 r--p 00000000 08:01 7     x\n0\t1\tYR_U_D_\t1\n";
	char *n;

	if (doc_from_text(d, "odd \"label\"\t", text, sizeof(text) - 1))
		return -1;
	/* maps escapes \n as \012, so only a built map can hold these */
	n = strdup(name);
	if (!n)
		return -1;
	free(d->map.vmas[0].name);
	d->map.vmas[0].name = n;
	return 0;
}

static void test_json_escaping(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_JSON);
	struct pmaps_doc d;
	struct render r;

	if (doc_odd_name(&d, "a\"b\\c\td\ne\001f\037g\177h\xff")) {
		tap_check(0, "cannot build the document");
	} else {
		render(&r, &o, &d, 1);
		tap_check(r.buf && json_valid(r.buf), "not valid JSON: %s",
		      r.buf ? r.buf : "");
		tap_check(has(&r, "\"name\":\"a\\\"b\\\\c\\td\\ne\\u0001f\\u001fg\177h\xff\""),
		      "name not escaped as expected");
		tap_check(has(&r, "\"label\":\"odd \\\"label\\\"\\t\""),
		      "label not escaped");
		render_free(&r);
	}
	doc_free(&d);
	tap_test_done("json escapes quotes, backslash and control characters");
}

static void test_tsv_escaping(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_TSV);
	struct pmaps_doc d;
	struct render r;
	char *nl;

	if (doc_odd_name(&d, "my\tdir/new\nline\\x")) {
		tap_check(0, "cannot build the document");
	} else {
		render(&r, &o, &d, 1);
		tap_check(count_str(r.buf, r.len, "\n") == 2,
		      "want a header and one row, got:\n%s", r.buf);
		nl = r.buf ? strchr(r.buf, '\n') : NULL;
		tap_check(nl && count_str(nl, strlen(nl), "\t") == 15,
		      "row has not 16 columns: %s", nl ? nl : "");
		tap_check(has(&r, "\tmy\\tdir/new\\nline\\\\x\t"),
		      "name not escaped: %s", r.buf);
		tap_check(has(&r, "0\t00400000\t00403000\tr--p\t00000000\t08:01\t7\t"),
		      "VMA columns wrong: %s", r.buf);
		render_free(&r);
	}
	doc_free(&d);
	tap_test_done("tsv escapes TAB, newline and backslash in names");
}

static void test_pages_collapse(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_PAGES);
	struct render r;

	render(&r, &o, &docs[2], 1);
	/* /usr/bin/app: pages 0-3, 10-11 and 380-383 of 384 */
	tap_check(has(&r, "           3  ?RAU?__   2\n  ... 6 not present ...\n"),
	      "gap between the first ranges not collapsed");
	tap_check(has(&r, "  ... 368 not present ...\n  00000057c000"),
	      "long gap not collapsed");
	tap_check(has(&r, "[anon]\n  ... 268435456 not present ...\n"),
	      "empty 1 TiB VMA not one line");
	tap_check(has(&r, "[anon]\n  ... 1 not present ...\n"),
	      "a single leading page not shown as a run");
	tap_check(has(&r, "  ... 524279 not present ...\n"),
	      "trailing gap not collapsed");
	tap_check(count_str(r.buf, r.len, "?") ==
	      2 * 19 + count_str(r.buf, r.len, "young?"),
	      "not one line per resident page");
	render_free(&r);
	tap_test_done("pages view collapses runs of not-present pages");
}

static void test_address_found(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_ADDRESS);
	struct render r;

	o.address = 0x7f0000008fff;
	render(&r, &o, &docs[2], 1);
	tap_check(r.ret == 0, "returned %d", r.ret);
	tap_check(has(&r, "7f0000000000-7f0080000000 rw-p    2.0G [anon]\n"),
	      "VMA header missing");
	tap_check(has(&r, "\n  7f0000008000-7f0000009000    4.0K ?__U?DW   1\n"),
	      "range missing");
	tap_check(has(&r, "  address     0x7f0000008000\n"), "page address");
	tap_check(has(&r, "  index       34091302920\n"), "page index");
	tap_check(has(&r, "?__U?DW young?,uptodate,pte-dirty?,dirty,writeback\n"),
	      "flags with names");
	tap_check(!has(&r, "  pagemap "), "pagemap detail for a file");
	render_free(&r);

	/* inside the VMA, outside every range */
	o.address = 0x7f0000005000;
	render(&r, &o, &docs[2], 1);
	tap_check(r.ret == 0, "returned %d for a non-resident page", r.ret);
	tap_check(has(&r, "(in no range: not resident)"), "no-range note");
	tap_check(has(&r, "  flags       not resident\n"), "flags of a hole");
	render_free(&r);
	tap_test_done("address view shows the VMA, range and page");
}

static void test_address_not_found(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_ADDRESS);
	struct render r;

	o.address = 0x1000;
	render(&r, &o, docs, NR_FIXTURES);
	tap_check(r.ret == 1, "returned %d, want 1", r.ret);
	/* said on stderr (test_cli.sh): stdout has nothing */
	tap_check(r.len == 0, "printed on stdout:\n%s", r.buf);
	render_free(&r);

	/* found in one target of several is success, as for grep */
	o.address = 0x7e0000000000;
	render(&r, &o, docs, NR_FIXTURES);
	tap_check(r.ret == 0, "returned %d when one target has it", r.ret);
	render_free(&r);
	/* the last page of a VMA is in it, its end is not */
	o.address = 0x580000;
	render(&r, &o, &docs[2], 1);
	tap_check(r.ret == 1, "VMA end taken as inside");
	render_free(&r);
	tap_test_done("address in no VMA prints nothing and returns 1");
}

static void test_unknown_dash(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_SUMMARY);
	struct render r;
	char *tot;
	unsigned long long kb, rss;
	char young[16], ref[16], act[16], pd[16], dirty[16];

	render(&r, &o, &docs[2], 1);
	tot = r.buf ? strstr(r.buf, "\ntotal KiB") : NULL;
	tap_check(tot && sscanf(tot, "\ntotal KiB %llu %llu %15s %15s %15s %15s %15s",
			    &kb, &rss, young, ref, act, pd, dirty) == 7,
	      "no total row");
	if (tot) {
		tap_check(!strcmp(young, "-"), "young total %s, want -", young);
		tap_check(!strcmp(pd, "-"), "pte-dirty total %s, want -", pd);
		/* smaps' meaning, Y or R: a Y of '?' makes it a lower bound */
		tap_check(!strcmp(ref, ">=36"), "referenced total %s, want >=36",
			  ref);
		/* 24 KiB D, more that may be: P is '?' where D is clear */
		tap_check(!strcmp(dirty, ">=24"), "dirty total %s, want >=24",
		      dirty);
		tap_check(rss == 76, "rss total %llu, want 76", rss);
	}
	/* young of a VMA with '?' ranges is unknown, never 0 */
	tap_check(has(&r, "r-xp       1536         40          -       >=32"),
	      "young of /usr/bin/app not '-', or referenced not >=32");
	/* only '?' where neither is set: a bound of 0 says nothing */
	tap_check(has(&r, "rw-p        132         12          -          -"),
	      "referenced of [heap] not '-'");
	render_free(&r);

	o = view(PMAPS_VIEW_DEFAULT);
	o.totals = true;
	render(&r, &o, &docs[2], 1);
	tap_check(count_str(r.buf, r.len, "  young -  ") == 6,
	      "young not '-' in 5 VMA totals and the grand total");
	/* no page resident, none young: that much is known */
	tap_check(count_str(r.buf, r.len, "  young 0  ") == 1,
	      "young of the empty VMA not 0");
	tap_check(count_str(r.buf, r.len, "  swapped -") == 7,
	      "unknown swap not '-'");
	render_free(&r);
	tap_test_done("counts of '?' flags and unknown swap show as '-'");
}

/*
 * withheld.txt's '?' counts: shown as '?' (null in JSON), never as a
 * number, coloured or counted as shared, and written back unchanged.
 */
static void test_withheld_mapcount(void)
{
	struct pmaps_doc *d = &docs[NR_FIXTURES - 1];
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);
	struct render r;
	size_t len;
	char *text;

	o.color = true;
	render(&r, &o, d, 1);
	tap_check(count_str(r.buf, r.len, "Y??U_??   ?\n") == 3,
	      "not three ranges with mapcount '?':\n%s", r.buf);
	tap_check(!has(&r, "\033[36m   ?"), "'?' coloured as shared");
	tap_check(has(&r, "\033[36m   2\033[0m"), "mapcount 2 not coloured");
	/* shared pages: a partial sum is marked as the lower bound it is */
	tap_check(has(&r, "  shared >=60.0K  swapped -  pss >=641.3K  uss >=612.0K\n"),
	      "shared total not '>=60.0K', or pss and uss not bounds");
	render_free(&r);

	o = view(PMAPS_VIEW_SUMMARY);
	render(&r, &o, d, 1);
	/* shared is '-' only where a count is '?', whatever the flags */
	tap_check(has(&r, " r-xp        500        500        500        500          -          0          -          -          -          -      >=372      >=372          -          - /bin/demo\n") &&
	      has(&r, "-000000401000 r--p          4          4          4          4          -          0          -          -          0          -          4          4          -          - /bin/demo\n") &&
	      has(&r, " rw-p        128         32         32         32          0         32         32          0         32          -         16          0          -          - [anon]\n") &&
	      has(&r, " r--p         16         16         16         16          -          8        >=8          -        >=8          -        >=4          -          -          - /bin/demo\n"),
	      "summary rows:\n%s", r.buf);
	render_free(&r);

	o = view(PMAPS_VIEW_ADDRESS);
	o.address = 0x4a6000;
	render(&r, &o, d, 1);
	tap_check(has(&r, "  mapcount    ? (withheld by the kernel)\n"),
	      "address view:\n%s", r.buf);
	render_free(&r);

	o = view(PMAPS_VIEW_TSV);
	render(&r, &o, d, 1);
	tap_check(has(&r, "\t166\t2\tY??U_??\t?\t?\t?\n") &&
	      has(&r, "\t168\t2\tY__UP__\t2\t4096\t0\n"), "tsv:\n%s", r.buf);
	render_free(&r);

	o = view(PMAPS_VIEW_JSON);
	render(&r, &o, d, 1);
	tap_check(has(&r, "\"flags\":\"Y??U_??\",\"mapcount\":null,\"pss\":null,\"uss\":null}") &&
	      has(&r, "\"flags\":\"Y??U_??\",\"mapcount\":1,\"pss\":4096,\"uss\":4096}") &&
	      has(&r, "\"pss\":380928,\"uss\":380928,\"mapcount_unknown\":32,\"ranges\""),
	      "json:\n%s", r.buf);
	render_free(&r);

	/* what --raw writes of a filtered document, and snapshots */
	tap_check(!pmaps_map_to_text(&d->map, &text, &len) &&
	      len == d->text_len && !memcmp(text, d->text, len),
	      "text written back differs from the input:\n%.*s", (int)len,
	      text ? text : "");
	free(text);
	tap_test_done("'?' mapcounts: shown as '?' or null, not shared");
}

static void test_human_sizes(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);
	struct render r;

	render(&r, &o, &docs[2], 1);
	tap_check(has(&r, " r-xp    1.5M "), "1.5M");
	tap_check(has(&r, " rw-p  132.0K "), "132.0K");
	tap_check(has(&r, " ---p    1.0T "), "1.0T");
	tap_check(has(&r, " rw-p    2.0G "), "2.0G");
	tap_check(has(&r, "   4.0K ?__U?DW"), "4.0K range");
	tap_check(has(&r, "\ntotal: 6 VMAs  mapped 1.0T  resident 76.0K (19 pages)  "),
	      "grand total line");
	render_free(&r);
	tap_test_done("sizes in powers of 1024 with one decimal");
}

static void test_multiple_docs(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);
	struct render r;

	render(&r, &o, docs, 2);
	tap_check(has(&r, "\n\ndemo-6.12.txt: source file\n"),
	      "second document not after a blank line");
	tap_check(r.buf && !strncmp(r.buf, "demo-6.1.txt: source file\n", 26),
	      "first title");
	tap_check(count_str(r.buf, r.len, "\ntotal: ") == 2,
	      "not one grand total per document");
	render_free(&r);
	o = view(PMAPS_VIEW_TSV);
	render(&r, &o, docs, 2);
	tap_check(count_str(r.buf, r.len, "pid\tvma_start") == 1,
	      "tsv header not once per run");
	render_free(&r);
	tap_test_done("several documents: one section each, one tsv header");
}

static void test_write_error(void)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_DEFAULT);
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		tap_skip("write error is reported", "no /dev/full");
		return;
	}
	errno = 0;
	tap_check(pmaps_view(f, &o, docs, NR_FIXTURES) == -1 && errno == ENOSPC,
	      "no -1/ENOSPC on a full device (errno %d)", errno);
	fclose(f);
	tap_test_done("write error is reported");
}

static void test_pagemap_decode(void)
{
	uint64_t e = PMAPS_PM_SWAP | (12345ULL << 5) | 3;

	tap_check(pmaps_pm_swap_type(e) == 3, "swap type");
	tap_check(pmaps_pm_swap_offset(e) == 12345, "swap offset");
	tap_check(pmaps_pm_pfn(e) == 0, "PFN of a swap entry");
	tap_check(pmaps_pm_pfn(PMAPS_PM_PRESENT | 0x1234) == 0x1234, "PFN");
	tap_check(pmaps_pm_swap_offset(PMAPS_PM_SWAP | PMAPS_PM_SOFT_DIRTY |
				   (7ULL << 5)) == 7,
	      "soft-dirty bit leaks into the offset");
	tap_check(!strcmp(pmaps_kpf_name(0), "locked") &&
	      !strcmp(pmaps_kpf_name(12), "anon") &&
	      !strcmp(pmaps_kpf_name(26), "pgtable") &&
	      !strcmp(pmaps_kpf_name(40), "softdirty") &&
	      !pmaps_kpf_name(27) && !pmaps_kpf_name(63) &&
	      !pmaps_kpf_name(1000), "kpageflags names");
	tap_test_done("pagemap entry and kpageflags decoding");
}

/* ---- this process, from pagemap ---- */

#define LIVE_PAGES	16

static volatile char *live;
static unsigned long psize;

/* Pages 0-3 and 8 of an anonymous mapping written, the rest untouched. */
static int live_setup(void)
{
	int i;

	psize = pmaps_page_size();
	live = mmap(NULL, LIVE_PAGES * psize, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (live == MAP_FAILED)
		return -1;
	/* one small folio per page, whatever THP is set to */
	if (madvise((void *)live, LIVE_PAGES * psize, MADV_NOHUGEPAGE))
		return -1;
	for (i = 0; i < 4; i++)
		live[i * psize] = 1;
	live[8 * psize] = 1;
	return 0;
}

/*
 * This process from the pagemap source, cut down to the test mapping's
 * VMA (the rest varies with the libc).  Returns 0, or -1 with a reason.
 */
static int live_doc(struct pmaps_doc *d, struct pmaps_map *full)
{
	char err[256];
	size_t i;

	memset(d, 0, sizeof(*d));
	if (pmaps_from_pagemap(getpid(), full, err, sizeof(err))) {
		tap_diag("pmaps_from_pagemap: %s", err);
		return -1;
	}
	for (i = 0; i < full->nr_vmas; i++)
		if (full->vmas[i].start <= (uintptr_t)live &&
		    (uintptr_t)live < full->vmas[i].end)
			break;
	if (i == full->nr_vmas) {
		tap_diag("test mapping not in the model");
		return -1;
	}
	d->map.vmas = &full->vmas[i];
	d->map.nr_vmas = 1;
	d->pid = getpid();
	d->source = PMAPS_SRC_PAGEMAP;
	snprintf(d->label, sizeof(d->label), "%d (test_view)", d->pid);
	return 0;
}

static void test_live_pages(void)
{
	char why[400];
	struct pmaps_view_opts o = view(PMAPS_VIEW_PAGES);
	struct pmaps_map full;
	struct pmaps_doc d;
	struct render r;
	char want[128];
	int w;

	if (geteuid() != 0) {
		tap_skip("pages view of this process", "needs root");
		return;
	}
	if (qemu_user_own_maps(why, sizeof(why))) {
		tap_skip("pages view of this process", why);
		return;
	}
	if (live_doc(&d, &full)) {
		tap_check(0, "no model of this process");
		pmaps_map_free(&full);
		tap_test_done("pages view of this process");
		return;
	}
	render(&r, &o, &d, 1);
	tap_check(r.ret == 0, "returned %d", r.ret);
	tap_check(!has(&r, "not readable"), "pagemap not read:\n%s", r.buf);
	/* addresses are as wide as the widest END, at least 8 digits */
	w = snprintf(NULL, 0, "%llx", d.map.vmas[0].end);
	/* written anonymous memory, mapped writable: P inferred; small pages */
	snprintf(want, sizeof(want), "  %0*lx %12lu  ?__UP__   1 small exclusive\n",
		 w < 8 ? 8 : w, (unsigned long)(uintptr_t)live,
		 (unsigned long)((uintptr_t)live / psize));
	tap_check(has(&r, want), "first page line '%s' missing:\n%s", want,
	      r.buf);
	tap_check(count_str(r.buf, r.len, " small exclusive\n") == 5,
	      "not 5 small exclusive pages:\n%s", r.buf);
	tap_check(has(&r, "  ... 4 not present ...\n") &&
	      has(&r, "  ... 7 not present ...\n"),
	      "holes not collapsed:\n%s", r.buf);
	render_free(&r);
	pmaps_map_free(&full);
	tap_test_done("pages view of this process");
}

static void test_live_address(void)
{
	char why[400];
	struct pmaps_view_opts o = view(PMAPS_VIEW_ADDRESS);
	struct pmaps_map full;
	struct pmaps_doc d;
	struct render r;

	if (geteuid() != 0) {
		tap_skip("address view of this process", "needs root");
		return;
	}
	if (qemu_user_own_maps(why, sizeof(why))) {
		tap_skip("address view of this process", why);
		return;
	}
	if (live_doc(&d, &full)) {
		tap_check(0, "no model of this process");
		pmaps_map_free(&full);
		tap_test_done("address view of this process");
		return;
	}
	o.address = (uintptr_t)live + 8 * psize + 5;
	render(&r, &o, &d, 1);
	tap_check(r.ret == 0, "returned %d", r.ret);
	tap_check(has(&r, "  pagemap     present\n"), "not present:\n%s", r.buf);
	tap_check(has(&r, "  pfn         0x"), "no PFN for root:\n%s", r.buf);
	tap_check(has(&r, "  exclusive   yes\n"), "not exclusive");
	tap_check(has(&r, "  mapping     private anonymous\n"), "not anon");
	tap_check(has(&r, "  kpageflags  0x") && has(&r, "anon") &&
	      has(&r, "uptodate"), "kpageflags names:\n%s", r.buf);
	tap_check(has(&r, "  kpagecount  1\n"), "kpagecount");
	render_free(&r);

	o.address = (uintptr_t)live + 5 * psize;
	render(&r, &o, &d, 1);
	tap_check(has(&r, "(in no range: not resident)") &&
	      has(&r, "  pagemap     not present\n") &&
	      !has(&r, "pfn"), "hole:\n%s", r.buf);
	render_free(&r);
	pmaps_map_free(&full);
	tap_test_done("address view of this process: pagemap and kpageflags");
}

/*
 * In a child: the model while root, then the view as uid 65534.  With
 * keep_caps the child keeps CAP_SYS_ADMIN, so pagemap does hand out PFNs
 * and only the view's own euid check can keep them from being printed.
 */
static int child_view_unprivileged(int keep_caps)
{
	struct pmaps_view_opts o = view(PMAPS_VIEW_ADDRESS);
	struct pmaps_map full;
	struct pmaps_doc d;
	struct render r;
	int bad = 0;

	if (live_doc(&d, &full))
		return 3;
	if (keep_caps && prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP))
		return 4;
	if (setresgid(65534, 65534, 65534) ||
	    setresuid(keep_caps ? 0 : 65534, 65534, keep_caps ? 0 : 65534))
		return 5;
	/* a uid change makes us undumpable, and /proc/self root's */
	if (prctl(PR_SET_DUMPABLE, 1) || geteuid() == 0)
		return 6;
	o.address = (uintptr_t)live + 8 * psize;
	render(&r, &o, &d, 1);
	if (!has(&r, "  pagemap     present\n"))
		bad = 7;
	if (r.buf && strcasestr(r.buf, "pfn"))
		bad = 8;
	if (has(&r, "kpagecount"))
		bad = 9;
	if (bad)
		tap_diag("as uid 65534%s:\n%s", keep_caps ? " with caps" : "",
			 r.buf ? r.buf : "");
	render_free(&r);
	pmaps_map_free(&full);
	return bad;
}

static void test_no_pfn_unprivileged(void)
{
	char why[400];
	int keep_caps, st;
	pid_t pid;

	if (geteuid() != 0) {
		tap_skip("no PFN when not root", "needs root to drop it");
		return;
	}
	if (qemu_user_own_maps(why, sizeof(why))) {
		tap_skip("no PFN when not root, even if pagemap shows one", why);
		return;
	}
	for (keep_caps = 0; keep_caps <= 1; keep_caps++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			tap_check(0, "fork: %s", strerror(errno));
			break;
		}
		if (!pid) {
			st = child_view_unprivileged(keep_caps);
			fflush(stdout);
			_exit(st);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			tap_check(0, "%s: child failed (status 0x%x)",
			      keep_caps ? "euid 65534 with CAP_SYS_ADMIN" :
			      "uid 65534", st);
	}
	tap_test_done("no PFN when not root, even if pagemap shows one");
}

/* The tests no golden file can stand for; a golden update skips them. */
static void test_behaviours(void)
{
	test_raw();
	test_color();
	test_no_escape_without_color();
	test_decode_names();
	test_histogram_sorted();
	test_json_valid();
	test_json_escaping();
	test_tsv_escaping();
	test_pages_collapse();
	test_address_found();
	test_address_not_found();
	test_unknown_dash();
	test_withheld_mapcount();
	test_human_sizes();
	test_multiple_docs();
	test_write_error();
	test_pagemap_decode();
	test_live_pages();
	test_live_address();
	test_no_pfn_unprivileged();
}

int main(void)
{
	const char *update = getenv("PMAPS_UPDATE_GOLDEN");
	size_t i;

	/* only an explicit 1: PMAPS_UPDATE_GOLDEN=0 must not rewrite */
	updating = update && !strcmp(update, "1");
	tap_plan(29);
	docs_ok = 1;
	for (i = 0; i < NR_FIXTURES; i++)
		if (load_fixture(&docs[i], fixtures[i]))
			docs_ok = 0;
	if (live_setup())
		tap_diag("cannot map the test pages: %s", strerror(errno));

	test_default_golden();
	test_totals_golden();
	test_decode_golden();
	test_summary_golden();
	test_histogram_golden();
	test_pages_golden();
	test_address_golden();
	test_json_golden();
	test_tsv_golden();
	if (updating)
		printf("Bail out! PMAPS_UPDATE_GOLDEN=1: golden files rewritten, not a test run\n");
	else
		test_behaviours();

	for (i = 0; i < NR_FIXTURES; i++)
		doc_free(&docs[i]);
	if (live != MAP_FAILED && live)
		munmap((void *)live, LIVE_PAGES * psize);
	return updating ? 3 : tap_failed_tests ? 1 : 0;
}
