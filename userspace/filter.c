// SPDX-License-Identifier: GPL-2.0
/*
 * What of a document is kept: --areas picks VMAs by name, --range picks
 * VMAs by address and clips their ranges, --flags picks ranges by state.
 *
 * --areas and --range keep a selected VMA even when none of its pages is
 * resident, since "nothing resident" is an answer too.  --flags asks about
 * pages, so a VMA with no matching range is dropped whole.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define EXPECTED_FLAG \
	"a flag letter (YRAUPDW) or name (young, referenced, active, uptodate, pte-dirty, dirty, writeback)"

/* The name P had in -d and diff output before it was spelled pte-dirty. */
#define PTE_DIRTY_OLD_NAME	"ptedirty"

static int flag_by_letter(char c)
{
	const char *p = c ? strchr(pmaps_flag_letters, c) : NULL;

	return p ? (int)(p - pmaps_flag_letters) : -1;
}

static int flag_by_name(const char *s, size_t n)
{
	int i;

	for (i = 0; i < PMAPS_NR_FLAGS; i++)
		if (strlen(pmaps_flag_names[i]) == n && !memcmp(pmaps_flag_names[i], s, n))
			return i;
	if (n == strlen(PTE_DIRTY_OLD_NAME) && !memcmp(PTE_DIRTY_OLD_NAME, s, n))
		return (int)(strchr(pmaps_flag_letters, 'P') - pmaps_flag_letters);
	return -1;
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

/* Within a name: "pte-dirty" has a hyphen. */
static bool is_name_char(char c)
{
	return is_lower(c) || c == '-';
}

/*
 * One comma-separated item, s[0..n): letters and names, each optionally
 * after '~'.  Uppercase is a letter, a run of lowercase (and '-') is a
 * name, so "Ddirty" and "~young~W" both read without separators.
 */
static int parse_term(const char *s, size_t n, const char *whole,
		      unsigned int *set, unsigned int *clear, char *err,
		      size_t errlen)
{
	size_t i = 0;

	*set = 0;
	*clear = 0;
	if (!n) {
		snprintf(err, errlen,
			 "pmaps: --flags: expected " EXPECTED_FLAG
			 ", got an empty item in '%s'", whole);
		return -1;
	}
	while (i < n) {
		bool negate = s[i] == '~';
		size_t from, len = 1;
		int bit;

		if (negate)
			i++;
		from = i;
		if (i < n && is_lower(s[i])) {
			while (from + len < n && is_name_char(s[from + len]))
				len++;
			bit = flag_by_name(s + from, len);
		} else {
			bit = i < n ? flag_by_letter(s[i]) : -1;
			len = i < n;
		}
		if (bit < 0) {
			snprintf(err, errlen,
				 "pmaps: --flags: expected " EXPECTED_FLAG
				 ", got '%.*s' in '%s'",
				 (int)(len ? len : 1), len ? s + from : "~",
				 whole);
			return -1;
		}
		if ((negate ? *set : *clear) & (1U << bit)) {
			snprintf(err, errlen,
				 "pmaps: --flags: expected each flag either set or clear, got both in '%s'",
				 whole);
			return -1;
		}
		*(negate ? clear : set) |= 1U << bit;
		i = from + len;
	}
	return 0;
}

/*
 * Add one term to expr, as page-types' -b does: comma-separated flags that
 * must all hold.  Each --flags option is one term; a range matches if any
 * term does.
 */
int pmaps_flag_expr_parse(const char *s, struct pmaps_flag_expr *expr,
			  char *err, size_t errlen)
{
	unsigned int set = 0, clear = 0, item_set, item_clear;
	const char *p = s;

	if (expr->nr_terms == PMAPS_MAX_TERMS) {
		snprintf(err, errlen,
			 "pmaps: --flags: expected at most %d --flags options, got '%s' too",
			 PMAPS_MAX_TERMS, s);
		return -1;
	}
	for (;;) {
		size_t n = strcspn(p, ",");

		if (parse_term(p, n, s, &item_set, &item_clear, err, errlen))
			return -1;
		if ((item_set & clear) || (item_clear & set)) {
			snprintf(err, errlen,
				 "pmaps: --flags: expected each flag either set or clear, got both in '%s'",
				 s);
			return -1;
		}
		set |= item_set;
		clear |= item_clear;
		if (!p[n])
			break;
		p += n + 1;
	}
	expr->set[expr->nr_terms] = set;
	expr->clear[expr->nr_terms] = clear;
	expr->nr_terms++;
	return 0;
}

/*
 * A '?' flag (the pagemap source cannot see Y and P) satisfies neither
 * "must be set" nor "must be clear": guessing either way would show pages
 * in a state nobody observed.  So --flags Y matches no pagemap range, and
 * neither does --flags ~Y.
 */
bool pmaps_flag_expr_match(const struct pmaps_flag_expr *expr,
			   unsigned int flags, unsigned int unknown)
{
	size_t i;

	for (i = 0; i < expr->nr_terms; i++) {
		unsigned int set = expr->set[i], clear = expr->clear[i];

		if ((set | clear) & unknown)
			continue;
		if ((flags & set) == set && !(flags & clear))
			return true;
	}
	return false;
}

/* Names with a meaning of their own; anything else is a substring. */
static bool area_matches(const struct pmaps_vma *v, const char *pattern)
{
	if (!strcmp(pattern, "heap"))
		return !strcmp(v->name, "[heap]");
	if (!strcmp(pattern, "stack"))	/* old kernels: [stack:TID] */
		return !strcmp(v->name, "[stack]") ||
		       !strncmp(v->name, "[stack:", 7);
	if (!strcmp(pattern, "vdso"))
		return !strcmp(v->name, "[vdso]");
	if (!strcmp(pattern, "anon"))
		return !v->inode && (!v->name[0] ||
				     !strncmp(v->name, "[anon:", 6));
	return strstr(v->name, pattern);
}

static bool areas_match(const struct pmaps_filter *filter,
			const struct pmaps_vma *v)
{
	size_t i;

	for (i = 0; i < filter->nr_areas; i++)
		if (area_matches(v, filter->areas[i]))
			return true;
	return false;
}

/*
 * Clip range r of v to [lo, hi).  A page partly inside counts as inside.
 * Return false if no page is left.
 */
static bool clip_range(const struct pmaps_vma *v, struct pmaps_range *r,
		       unsigned long long lo, unsigned long long hi)
{
	unsigned long long ps = pmaps_vma_page_size(v);
	unsigned long long start = pmaps_range_addr(v, r);
	unsigned long long end = start + r->count * ps;
	unsigned long long skip = 0, keep = r->count;

	if (end <= lo || start >= hi)
		return false;
	if (lo > start)
		skip = (lo - start) / ps;
	if (hi < end)
		keep = (hi - start + ps - 1) / ps;
	r->index += skip;
	r->count = keep - skip;
	return true;
}

static void filter_ranges(const struct pmaps_filter *filter,
			  struct pmaps_vma *v)
{
	size_t i, kept = 0;

	for (i = 0; i < v->nr_ranges; i++) {
		struct pmaps_range r = v->ranges[i];

		if (filter->has_range &&
		    !clip_range(v, &r, filter->lo, filter->hi))
			continue;
		if (filter->has_flags &&
		    !pmaps_flag_expr_match(&filter->flags, r.flags, r.unknown))
			continue;
		v->ranges[kept++] = r;
	}
	v->nr_ranges = kept;
}

static bool vma_selected(const struct pmaps_filter *filter,
			 struct pmaps_vma *v)
{
	if (filter->nr_areas && !areas_match(filter, v))
		return false;
	if (filter->has_range && (v->end <= filter->lo || v->start >= filter->hi))
		return false;
	filter_ranges(filter, v);
	return !filter->has_flags || v->nr_ranges;
}

bool pmaps_filter_active(const struct pmaps_filter *filter)
{
	return filter->nr_areas || filter->has_flags || filter->has_range;
}

void pmaps_filter_apply(const struct pmaps_filter *filter,
			struct pmaps_map *map)
{
	size_t i, kept = 0;

	for (i = 0; i < map->nr_vmas; i++) {
		struct pmaps_vma *v = &map->vmas[i];

		if (vma_selected(filter, v)) {
			map->vmas[kept++] = *v;
			continue;
		}
		free(v->ranges);
		free(v->name);
		free(v->header);
	}
	map->nr_vmas = kept;
}

void pmaps_filter_free(struct pmaps_filter *filter)
{
	size_t i;

	for (i = 0; i < filter->nr_areas; i++)
		free(filter->areas[i]);
	free(filter->areas);
	filter->areas = NULL;
	filter->nr_areas = 0;
}
