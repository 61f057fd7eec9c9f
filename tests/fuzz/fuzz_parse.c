// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the pmaps text parser (userspace/lib/pmaps.c).
 *
 * Beyond "no crash, no sanitizer report", every input is checked against
 * what the parser promises in pmaps.h:
 *  - on failure the message is "fuzz:LINE: ...", NUL-terminated;
 *  - the map, complete or partial, obeys the format's rules (VMAs in
 *    order, ranges inside their VMA and in order, COUNT >= 1, ...);
 *  - printing that map back in the text format and parsing it again gives
 *    the same map (so the parser accepts everything it produced itself);
 *  - pmaps_parse_file() on the same bytes agrees with pmaps_parse_buf().
 * With -DFUZZ_CLI, linked with the front end's source.c, filter.c and
 * view.c, the map also goes through what pmaps does with a file:
 *  - pmaps_print_text() prints what parses back to the same map;
 *  - every view renders it (to /dev/null) without a sanitizer report;
 *  - --flags (the input's first line as the expression), --areas and
 *    --range filters leave a map that still obeys the rules.
 * Any violation aborts, which libFuzzer reports as a crash.
 *
 * Build (tests/fuzz/run.sh does this):
 *   clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *	-Iuserspace/lib tests/fuzz/fuzz_parse.c userspace/lib/\*.c
 *   ... -DFUZZ_CLI -Iuserspace ... userspace/{source,filter,view}.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmaps.h"
#ifdef FUZZ_CLI
#include "cli.h"
#include "pagemap.h"
#endif
#include "fuzz_check.h"

#define NAME	"fuzz"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void check_err(int ret, const char *err, size_t errlen)
{
	check(memchr(err, '\0', errlen));
	if (ret == 0) {
		check(err[0] == '\0');
		return;
	}
	check(ret == -1);
	check(strncmp(err, NAME ":", strlen(NAME ":")) == 0);
}

/* The rules of Documentation/pmaps_ext.rst, as far as one map shows them. */
static void check_map(const struct pmaps_map *map)
{
	unsigned long long psz = pmaps_page_size();
	unsigned int all = (1u << PMAPS_NR_FLAGS) - 1;
	size_t i, j;

	check(map->nr_vmas == 0 || map->vmas);
	for (i = 0; i < map->nr_vmas; i++) {
		const struct pmaps_vma *v = &map->vmas[i];
		unsigned long long prev_end = 0;

		check(v->start < v->end);
		check(i == 0 || map->vmas[i - 1].end <= v->start);
		check(v->header && v->name);
		check(!strchr(v->header, '\n'));
		check(strlen(v->name) <= strlen(v->header));
		check(v->perms[4] == '\0' && strlen(v->perms) == 4);
		check(v->nr_ranges == 0 || v->ranges);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned long long a = pmaps_range_addr(v, r);
			char letters[PMAPS_NR_FLAGS + 1];

			check(r->count >= 1);
			check(r->mapcount >= 0 ||
			      r->mapcount == PMAPS_MAPCOUNT_UNKNOWN);
			check(!(r->flags & ~all) && !(r->unknown & ~all));
			check(!(r->flags & r->unknown));
			/* Inside the VMA, after the previous range. */
			check(a >= v->start && a < v->end);
			check(r->count <= (v->end - a) / psz);
			check(j == 0 || a >= prev_end);
			prev_end = a + r->count * psz;
			pmaps_format_flags(r->flags, r->unknown, letters);
			check(strlen(letters) == PMAPS_NR_FLAGS);
		}
	}
}

/* The map in the text format, as the module would print it. */
static char *print_map(const struct pmaps_map *map, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i, j;

	check(f);
	for (i = 0; i < map->nr_vmas; i++) {
		const struct pmaps_vma *v = &map->vmas[i];

		fprintf(f, "%s\n", v->header);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			char letters[PMAPS_NR_FLAGS + 1];
			char mapcount[PMAPS_MAPCOUNT_LEN];

			pmaps_format_flags(r->flags, r->unknown, letters);
			pmaps_format_mapcount(r->mapcount, mapcount);
			fprintf(f, "%llu\t%llu\t%s\t%s\n", r->index, r->count,
				letters, mapcount);
		}
	}
	check(fclose(f) == 0);
	return buf;
}

/* Equal in everything but input line numbers. */
static void check_same(const struct pmaps_map *a, const struct pmaps_map *b)
{
	size_t i, j;

	check(a->nr_vmas == b->nr_vmas);
	for (i = 0; i < a->nr_vmas; i++) {
		const struct pmaps_vma *v = &a->vmas[i], *w = &b->vmas[i];

		check(v->start == w->start && v->end == w->end);
		check(!memcmp(v->perms, w->perms, sizeof(v->perms)));
		check(v->offset == w->offset && v->inode == w->inode);
		check(v->dev_major == w->dev_major &&
		      v->dev_minor == w->dev_minor);
		check(!strcmp(v->name, w->name));
		check(!strcmp(v->header, w->header));
		check(v->swapped == w->swapped);
		check(v->nr_ranges == w->nr_ranges);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			const struct pmaps_range *s = &w->ranges[j];

			check(r->index == s->index && r->count == s->count);
			check(r->flags == s->flags && r->unknown == s->unknown);
			check(r->mapcount == s->mapcount);
		}
	}
}

#ifdef FUZZ_CLI
/* Parse text and compare with map. */
static void check_reparse(const char *text, size_t len,
			  const struct pmaps_map *map)
{
	struct pmaps_map again;
	char err[256];
	int ret;

	/* in the map's page size, which the text does not carry */
	ret = pmaps_parse_buf_as(text, len, NAME, pmaps_map_page_size(map),
				 &again, err, sizeof(err));
	if (ret)
		fprintf(stderr, "reparse: %s\n", err);
	check(ret == 0);
	check_same(map, &again);
	pmaps_map_free(&again);
}

static void check_print_text(const struct pmaps_map *map)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	check(f);
	check(pmaps_print_text(f, map) == 0);
	check(fclose(f) == 0);
	check_reparse(text, len, map);
	free(text);
}

/* Pages the page-by-page view would walk; saturates. */
static unsigned long long vma_pages(const struct pmaps_map *map)
{
	unsigned long long n = 0, psz = pmaps_page_size();
	size_t i;

	for (i = 0; i < map->nr_vmas; i++) {
		unsigned long long p = (map->vmas[i].end -
					map->vmas[i].start) / psz;

		if (n + p < n)
			return ~0ULL;
		n += p;
	}
	return n;
}

static void check_views(struct pmaps_map *map, size_t size)
{
	static const enum pmaps_view_kind kinds[] = {
		PMAPS_VIEW_DEFAULT, PMAPS_VIEW_SUMMARY, PMAPS_VIEW_HISTOGRAM,
		PMAPS_VIEW_JSON, PMAPS_VIEW_TSV, PMAPS_VIEW_RAW,
		PMAPS_VIEW_ADDRESS, PMAPS_VIEW_PAGES,
	};
	static FILE *null;
	struct pmaps_view_opts opts;
	struct pmaps_doc doc;
	size_t k;
	int ret;

	if (!null)
		null = fopen("/dev/null", "w");
	check(null);
	memset(&doc, 0, sizeof(doc));
	snprintf(doc.label, sizeof(doc.label), "%s", NAME);
	doc.source = PMAPS_SRC_FILE;
	doc.map = *map;		/* borrowed: not freed through doc */
	memset(&opts, 0, sizeof(opts));
	opts.color = size & 1;
	opts.decode = size & 2;
	opts.totals = size & 4;
	if (map->nr_vmas)
		opts.address = map->vmas[size % map->nr_vmas].start +
			       size * 4093;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		/* one line per page: a big VMA is big output, not a bug */
		if (kinds[k] == PMAPS_VIEW_PAGES && vma_pages(map) > 65536)
			continue;
		opts.kind = kinds[k];
		ret = pmaps_view(null, &opts, &doc, 1);
		check(ret == 0 || (kinds[k] == PMAPS_VIEW_ADDRESS && ret == 1));
	}
}

static bool has_term_without(const struct pmaps_flag_expr *e,
			     unsigned int bits)
{
	size_t i;

	for (i = 0; i < e->nr_terms; i++)
		if (!((e->set[i] | e->clear[i]) & bits))
			return true;
	return false;
}

/*
 * A --flags expression: an extension line "@EXPR" first in the input (the
 * parser skips it), else one of a few chosen by size.
 */
static void check_flag_expr(const uint8_t *data, size_t size,
			    struct pmaps_filter *filter)
{
	static const char *const fixed[] = {
		"D", "D~W", "Y,P", "~U", "referenced~active,W", "YRAUPDW",
	};
	char expr[64], err[512];
	size_t n = 0;
	unsigned int f, u;

	if (size && data[0] == '@') {
		while (n + 1 < size && n < sizeof(expr) - 1 &&
		       data[n + 1] != '\n' && data[n + 1] != '\0') {
			expr[n] = (char)data[n + 1];
			n++;
		}
		expr[n] = '\0';
	} else {
		snprintf(expr, sizeof(expr), "%s",
			 fixed[size % ARRAY_SIZE(fixed)]);
	}
	memset(err, 'x', sizeof(err));
	if (pmaps_flag_expr_parse(expr, &filter->flags, err, sizeof(err))) {
		check(memchr(err, '\0', sizeof(err)));
		check(strncmp(err, "pmaps: --flags: ", 16) == 0);
		return;
	}
	check(filter->flags.nr_terms >= 1 &&
	      filter->flags.nr_terms <= PMAPS_MAX_TERMS);
	/* Unknown letters (pagemap's Y and P) satisfy no term using them. */
	u = PMAPS_PAGEMAP_UNKNOWN;
	for (f = 0; f < 1u << PMAPS_NR_FLAGS; f++)
		if (pmaps_flag_expr_match(&filter->flags, f & ~u, u))
			check(has_term_without(&filter->flags, u));
	filter->has_flags = true;
}

static void check_filters(const uint8_t *data, size_t size,
			  struct pmaps_map *map)
{
	static const char *const areas[] = { "heap", "anon", "lib", "[" };
	unsigned long long psz = pmaps_map_page_size(map);
	struct pmaps_filter filter;
	size_t i;

	memset(&filter, 0, sizeof(filter));
	if (size & 8)
		check_flag_expr(data, size, &filter);
	if (size & 16) {
		filter.areas = calloc(2, sizeof(*filter.areas));
		check(filter.areas);
		for (i = 0; i < 2; i++) {
			filter.areas[i] = strdup(areas[(size >> (5 + i)) % 4]);
			check(filter.areas[i]);
			filter.nr_areas++;
		}
	}
	if (map->nr_vmas && (size & 32)) {
		const struct pmaps_vma *v = &map->vmas[map->nr_vmas / 2];

		/* from mid-page in the VMA to somewhere past it */
		filter.has_range = true;
		filter.lo = v->start + (size % 5) * psz + size % psz;
		filter.hi = filter.lo + (size % 97 + 1) * psz;
		if (filter.hi <= filter.lo)
			filter.hi = ~0ULL;
	}
	pmaps_filter_apply(&filter, map);
	check_map(map);
	check_print_text(map);
	/* What is left is what was asked for. */
	for (i = 0; i < map->nr_vmas; i++) {
		const struct pmaps_vma *v = &map->vmas[i];
		size_t j;

		check(!filter.has_range ||
		      (v->start < filter.hi && v->end > filter.lo));
		check(!filter.has_flags || v->nr_ranges);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned long long a = pmaps_range_addr(v, r);

			check(!filter.has_flags ||
			      pmaps_flag_expr_match(&filter.flags, r->flags,
						    r->unknown));
			check(!filter.has_range ||
			      (a < filter.hi && a + r->count * psz > filter.lo));
		}
	}
	pmaps_filter_free(&filter);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmaps_map map, again;
	char err[256], err2[256];
	size_t len;
	char *text;
	FILE *f;
	int ret, ret2;

	memset(err, 'x', sizeof(err));
	ret = pmaps_parse_buf((const char *)data, size, NAME, &map, err,
			      sizeof(err));
	check_err(ret, err, sizeof(err));
	check_map(&map);

	/*
	 * Partial maps too: whatever parsed must print and parse back, in
	 * the page size it was read in, which the text does not carry (a
	 * document that fits several is refused, with the map read in one).
	 */
	text = print_map(&map, &len);
	ret2 = pmaps_parse_buf_as(text, len, NAME, pmaps_map_page_size(&map),
				  &again, err2, sizeof(err2));
	if (ret2)
		fprintf(stderr, "reparse: %s\n", err2);
	check(ret2 == 0);
	check_same(&map, &again);
	pmaps_map_free(&again);
	free(text);

	/* The stream reader must see exactly the same document. */
	if (size) {
		f = fmemopen((void *)data, size, "r");
		check(f);
		ret2 = pmaps_parse_file(f, NAME, &again, err2, sizeof(err2));
		fclose(f);
		check(ret2 == ret);
		check(!strcmp(err, err2));
		check_same(&map, &again);
		pmaps_map_free(&again);
	}

#ifdef FUZZ_CLI
	check_print_text(&map);
	check_views(&map, size);
	check_filters(data, size, &map);
#endif
	pmaps_map_free(&map);
	check(map.nr_vmas == 0 && !map.vmas);
	return 0;
}
