// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the libpmaps parser: grammar, error messages, helpers.
 *
 * Every document is handed to the parser in a malloc'ed buffer of exactly
 * its length, without a NUL, so that ASan catches any read past the end.
 * Fixtures hold page indexes computed for 4 KiB pages; tests that depend on
 * them are skipped on other page sizes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmaps.h"
#include "tap.h"

#ifndef FIXTURES
#define FIXTURES "fixtures"
#endif

#define ERRLEN	256
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Cleared by a failed check; reported by the test's tap_result(). */
static int ok;

#define CHECK(c) do {							\
	if (!(c)) {							\
		tap_diag("%s:%d: check failed: %s", __FILE__, __LINE__, #c); \
		ok = 0;							\
	}								\
} while (0)

#define CHECK_U(a, b) do {						\
	unsigned long long a_ = (a), b_ = (b);				\
	if (a_ != b_) {							\
		tap_diag("%s:%d: %s is %llu (0x%llx), expected %llu (0x%llx)", \
			 __FILE__, __LINE__, #a, a_, a_, b_, b_);	\
		ok = 0;							\
	}								\
} while (0)

#define CHECK_S(a, b) do {						\
	const char *a_ = (a), *b_ = (b);				\
	if (!a_ || strcmp(a_, b_)) {					\
		tap_diag("%s:%d: %s is '%s'", __FILE__, __LINE__, #a,	\
			 a_ ? a_ : "(null)");				\
		tap_diag("%*s expected '%s'", (int)strlen(#a) + 2, "", b_); \
		ok = 0;							\
	}								\
} while (0)

/* Parse s[0..len) from an exact-size heap copy (no NUL after it). */
static int parse_mem(const char *s, size_t len, const char *name,
		     struct pmaps_map *map, char *err)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	if (!copy) {
		perror("malloc");
		exit(2);
	}
	memcpy(copy, s, len);
	ret = pmaps_parse_buf(copy, len, name, map, err, ERRLEN);
	free(copy);
	return ret;
}

static int parse_str(const char *s, struct pmaps_map *map, char *err)
{
	return parse_mem(s, strlen(s), "t", map, err);
}

static char *read_fixture(const char *name, size_t *len)
{
	char path[512];
	char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	f = fopen(path, "rb");
	if (!f) {
		tap_diag("cannot open %s", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		tap_diag("cannot read %s", path);
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Parse a fixture, named by its base name in messages. */
static int parse_fixture(const char *name, struct pmaps_map *map, char *err)
{
	size_t len;
	char *buf = read_fixture(name, &len);
	int ret;

	memset(map, 0, sizeof(*map));
	if (!buf) {
		ok = 0;
		return -2;
	}
	ret = pmaps_parse_buf(buf, len, name, map, err, ERRLEN);
	free(buf);
	return ret;
}

static void expect_bad_fixture(const char *name, const char *msg)
{
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_fixture(name, &map, err), -1);
	CHECK_S(err, msg);
	pmaps_map_free(&map);
}

static void expect_bad_str(const char *doc, const char *msg)
{
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_str(doc, &map, err), -1);
	CHECK_S(err, msg);
	pmaps_map_free(&map);
}

static unsigned int bits(const char *flags)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < PMAPS_NR_FLAGS; i++)
		if (strchr(flags, pmaps_flag_letters[i]))
			v |= 1U << i;
	return v;
}

#define Y (1U << PMAPS_YOUNG)
#define P (1U << PMAPS_PTE_DIRTY)

static void check_range(const struct pmaps_range *r, unsigned long long index,
			unsigned long long count, const char *flags,
			long mapcount, unsigned int line)
{
	CHECK_U(r->index, index);
	CHECK_U(r->count, count);
	CHECK_U(r->flags, bits(flags));
	CHECK_U(r->unknown, 0);
	CHECK_U(r->mapcount, mapcount);
	CHECK_U(r->line, line);
}

static void test_good_basic(void)
{
	struct pmaps_map map;
	char err[ERRLEN] = "";
	const struct pmaps_vma *v;

	CHECK_U(parse_fixture("good-basic.txt", &map, err), 0);
	CHECK_S(err, "");
	CHECK_U(map.nr_vmas, 10);
	if (map.nr_vmas != 10)
		goto out;

	v = &map.vmas[0];
	CHECK_U(v->start, 0x55d0c8a00000ULL);
	CHECK_U(v->end, 0x55d0c8a02000ULL);
	CHECK_S(v->perms, "r--p");
	CHECK_U(v->offset, 0);
	CHECK_U(v->dev_major, 8);
	CHECK_U(v->dev_minor, 1);
	CHECK_U(v->inode, 1234567);
	CHECK_S(v->name, "/usr/bin/cat");
	CHECK_S(v->header, "55d0c8a00000-55d0c8a02000 r--p 00000000 08:01 "
		"1234567                    /usr/bin/cat");
	CHECK_U(v->line, 1);
	CHECK_U(v->nr_ranges, 1);
	if (v->nr_ranges == 1)
		check_range(&v->ranges[0], 0, 2, "YU", 3, 2);

	v = &map.vmas[1];
	CHECK_S(v->perms, "r-xp");
	CHECK_U(v->offset, 0x2000);
	CHECK_U(v->line, 3);
	CHECK_U(v->nr_ranges, 2);
	if (v->nr_ranges == 2) {
		check_range(&v->ranges[0], 2, 1, "YRAU", 3, 4);
		check_range(&v->ranges[1], 4, 3, "RU", 2, 5);
	}

	v = &map.vmas[2];
	CHECK_U(v->nr_ranges, 2);
	if (v->nr_ranges == 2) {
		check_range(&v->ranges[0], 7, 1, "YUPD", 1, 7);
		check_range(&v->ranges[1], 8, 1, "UDW", 1, 8);
	}

	v = &map.vmas[3];
	CHECK_S(v->name, "[heap]");
	CHECK_U(v->inode, 0);
	CHECK_U(v->nr_ranges, 2);
	if (v->nr_ranges == 2) {
		check_range(&v->ranges[0], 0x55d0c9b1eULL, 16, "YAUP", 1, 10);
		check_range(&v->ranges[1], 0x55d0c9b1eULL + 20, 1, "P", 1,
			    11);
	}

	v = &map.vmas[4];
	CHECK_S(v->name, "");
	CHECK_S(v->header,
		"7f3a1c000000-7f3a1c021000 rw-p 00000000 00:00 0 ");
	CHECK_U(v->nr_ranges, 1);
	if (v->nr_ranges == 1)
		check_range(&v->ranges[0], 0x7f3a1c000ULL, 4, "YRAUPD", 1,
			    13);

	v = &map.vmas[5];
	CHECK_S(v->name, "/tmp/my file (deleted)");
	CHECK_S(v->perms, "r--s");
	CHECK_U(v->offset, 0x10000);
	CHECK_U(v->dev_major, 0xfd);
	CHECK_U(v->dev_minor, 1);
	CHECK_U(v->inode, 987);
	CHECK_U(v->nr_ranges, 2);

	CHECK_S(map.vmas[6].name, "[anon:my buf]");
	CHECK_U(map.vmas[6].nr_ranges, 0);
	CHECK_S(map.vmas[7].name, "[stack]");
	CHECK_U(map.vmas[7].nr_ranges, 1);
	CHECK_S(map.vmas[8].name, "[vvar]");
	CHECK_U(map.vmas[8].nr_ranges, 0);

	v = &map.vmas[9];
	CHECK_S(v->name, "[vdso]");
	CHECK_U(v->start, 0x7ffd0e5f4000ULL);
	CHECK_U(v->line, 21);
	CHECK_U(v->nr_ranges, 1);
	if (v->nr_ranges == 1)
		check_range(&v->ranges[0], 0x7ffd0e5f4ULL, 2, "YU", 47, 22);
out:
	pmaps_map_free(&map);
}

static void test_names(void)
{
	static const char doc[] =
		"00400000-00401000 r--p 00000000 00:02 1       /x y (deleted)\n"
		"00401000-00402000 rw-p 00000000 00:00 0        [heap]\n"
		"00402000-00403000 rw-p 00000000 00:00 0  [anon:foo bar]\n"
		"00403000-00404000 r--p 00000000 00:02 2 /a  b \n"
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0  [stack]\n"
		"7ffd00030000-7ffd00032000 r-xp 00000000 00:00 0  [vdso]\n"
		"7ffd00040000-7ffd00041000 rw-p 00000000 00:00 0\n";
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_U(map.nr_vmas, 7);
	if (map.nr_vmas == 7) {
		CHECK_S(map.vmas[0].name, "/x y (deleted)");
		CHECK_S(map.vmas[1].name, "[heap]");
		CHECK_S(map.vmas[2].name, "[anon:foo bar]");
		/* Only the padding goes: inner and trailing spaces stay. */
		CHECK_S(map.vmas[3].name, "/a  b ");
		CHECK_S(map.vmas[4].name, "[stack]");
		CHECK_S(map.vmas[5].name, "[vdso]");
		CHECK_S(map.vmas[6].name, "");
		CHECK_S(map.vmas[6].header,
			"7ffd00040000-7ffd00041000 rw-p 00000000 00:00 0");
	}
	pmaps_map_free(&map);
}

/* maps escapes only '\n' in paths, so a file name may hold a TAB. */
static void test_tab_in_name(void)
{
	static const char doc[] =
		"00400000-00402000 r--p 00000000 00:02 7   /tmp/a\tb\t1\n"
		"0\t2\tY__U___\t1\n";
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_U(map.nr_vmas, 1);
	if (map.nr_vmas == 1) {
		CHECK_S(map.vmas[0].name, "/tmp/a\tb\t1");
		CHECK_U(map.vmas[0].nr_ranges, 1);
		if (map.vmas[0].nr_ranges == 1)
			CHECK_U(map.vmas[0].ranges[0].count, 2);
	}
	pmaps_map_free(&map);
}

static void test_16digit_addresses(void)
{
	static const char doc[] =
		"00007ffd12340000-00007ffd12342000 rw-p 00000000 00:00 0 \n"
		"34356667200\t2\tY__U___\t1\n"
		"ffffffffff000000-ffffffffff003000 r-xp 0000000000001000 "
		"00:00 0 [x]\n"
		"4503599627366401\t2\t_______\t1\n";
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_S(err, "");
	CHECK_U(map.nr_vmas, 2);
	if (map.nr_vmas == 2 && map.vmas[1].nr_ranges == 1) {
		CHECK_U(map.vmas[0].start, 0x7ffd12340000ULL);
		CHECK_U(pmaps_range_addr(&map.vmas[0], map.vmas[0].ranges),
			0x7ffd12340000ULL);
		CHECK_U(map.vmas[1].start, 0xffffffffff000000ULL);
		CHECK_U(map.vmas[1].end, 0xffffffffff003000ULL);
		CHECK_U(map.vmas[1].offset, 0x1000);
		CHECK_S(map.vmas[1].name, "[x]");
		CHECK_U(pmaps_range_addr(&map.vmas[1], map.vmas[1].ranges),
			0xffffffffff001000ULL);
	} else {
		ok = 0;
	}
	pmaps_map_free(&map);
}

static void test_no_final_newline(void)
{
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_str("7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
			  "34091302912\t4\tY__UP__\t1", &map, err), 0);
	CHECK_U(map.nr_vmas, 1);
	if (map.nr_vmas == 1 && map.vmas[0].nr_ranges == 1)
		check_range(&map.vmas[0].ranges[0], 34091302912ULL, 4,
			    "YUP", 1, 2);
	else
		ok = 0;
	pmaps_map_free(&map);

	CHECK_U(parse_str("7f0000000000-7f0000010000 rw-p 00000000 00:00 0 "
			  "[anon:z]", &map, err), 0);
	CHECK_U(map.nr_vmas, 1);
	if (map.nr_vmas == 1)
		CHECK_S(map.vmas[0].name, "[anon:z]");
	pmaps_map_free(&map);
}

static void test_extra_columns(void)
{
	struct pmaps_map map;
	char err[ERRLEN];
	const struct pmaps_vma *v;

	CHECK_U(parse_str("7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
			  "34091302912\t1\tY__UP__\t1\tnew\tcolumns\n"
			  "34091302913\t1\tY__UP__\t2\t\n"
			  "34091302914\t1\tY__UP__\t3\tx y\tbad?\t-1\n",
			  &map, err), 0);
	CHECK_S(err, "");
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v && v->nr_ranges == 3);
	if (v && v->nr_ranges == 3) {
		check_range(&v->ranges[0], 34091302912ULL, 1, "YUP", 1, 2);
		check_range(&v->ranges[1], 34091302913ULL, 1, "YUP", 2, 3);
		check_range(&v->ranges[2], 34091302914ULL, 1, "YUP", 3, 4);
	}
	pmaps_map_free(&map);
}

static void test_at_lines(void)
{
	struct pmaps_map map;
	char err[ERRLEN];
	const struct pmaps_vma *v;

	CHECK_U(parse_str("@pmaps 1\n"
			  "@\n"
			  "7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
			  "@\tlooks\tlike\ta range\n"
			  "34091302912\t1\tY__UP__\t1\n"
			  "@not a header either", &map, err), 0);
	CHECK_S(err, "");
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v && v->nr_ranges == 1);
	if (v && v->nr_ranges == 1) {
		CHECK_U(v->line, 3);
		check_range(&v->ranges[0], 34091302912ULL, 1, "YUP", 1, 5);
	}
	pmaps_map_free(&map);

	/* Only a leading '@' marks an extension line. */
	expect_bad_str(" @x\n", "t:1: expected VMA header or TAB-separated "
		       "range line, got ' @x'");
}

/* Every field of a and b the same; headers too where with_headers. */
static void check_same_map(const struct pmaps_map *a,
			   const struct pmaps_map *b, int with_headers)
{
	size_t i, j;

	CHECK_U(a->nr_vmas, b->nr_vmas);
	for (i = 0; i < a->nr_vmas && i < b->nr_vmas; i++) {
		const struct pmaps_vma *v = &a->vmas[i], *w = &b->vmas[i];

		CHECK_U(v->start, w->start);
		CHECK_U(v->end, w->end);
		CHECK_S(v->perms, w->perms);
		CHECK_U(v->offset, w->offset);
		CHECK_U(v->dev_major, w->dev_major);
		CHECK_U(v->dev_minor, w->dev_minor);
		CHECK_U(v->inode, w->inode);
		CHECK_S(v->name, w->name);
		if (with_headers)
			CHECK_S(v->header, w->header);
		CHECK_U(v->nr_ranges, w->nr_ranges);
		for (j = 0; j < v->nr_ranges && j < w->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			const struct pmaps_range *q = &w->ranges[j];

			CHECK_U(r->index, q->index);
			CHECK_U(r->count, q->count);
			CHECK_U(r->flags, q->flags);
			CHECK_U(r->unknown, q->unknown);
			CHECK_U(r->mapcount, q->mapcount);
		}
	}
}

/*
 * The sample of the 2007 RFC, as the mail archive has it: its TABs became
 * single spaces.  Every value below is read off the RFC's text.
 */
static void test_rfc_sample_pasted(void)
{
	static const struct {
		const char *name;
		unsigned long long start, end;
		size_t nr_ranges;
	} vmas[] = {
		{ "", 0x08048000, 0x080c9000, 1 },
		{ "[heap]", 0x080c9000, 0x080f6000, 1 },
		{ "/lib/libnss_files-2.3.6.so", 0xf7dba000, 0xf7dc3000, 4 },
		{ "/lib/libnss_files-2.3.6.so", 0xf7dc3000, 0xf7dc5000, 1 },
		{ "/lib/libnss_nis-2.3.6.so", 0xf7dc5000, 0xf7dcd000, 4 },
		{ "/lib/libnss_nis-2.3.6.so", 0xf7dcd000, 0xf7dcf000, 1 },
		{ "/lib/libnsl-2.3.6.so", 0xf7dcf000, 0xf7de1000, 3 },
		{ "/lib/libnsl-2.3.6.so", 0xf7de1000, 0xf7de3000, 1 },
	};
	struct pmaps_map map;
	const struct pmaps_vma *v;
	char err[ERRLEN];
	size_t i;

	CHECK_U(parse_fixture("rfc-2007-sample.txt", &map, err), 0);
	CHECK_S(err, "");
	CHECK_U(map.nr_vmas, ARRAY_SIZE(vmas));
	for (i = 0; i < map.nr_vmas && i < ARRAY_SIZE(vmas); i++) {
		v = &map.vmas[i];
		CHECK_S(v->name, vmas[i].name);
		CHECK_U(v->start, vmas[i].start);
		CHECK_U(v->end, vmas[i].end);
		CHECK_U(v->nr_ranges, vmas[i].nr_ranges);
	}
	if (map.nr_vmas == ARRAY_SIZE(vmas)) {
		v = &map.vmas[0];
		CHECK_S(v->header, "08048000-080c9000 r-xp 08048000 00:00 0");
		CHECK_U(v->offset, 0x08048000);
		if (v->nr_ranges == 1)
			check_range(&v->ranges[0], 32840, 129, "YAP", 1, 2);
		v = &map.vmas[2];
		CHECK_U(v->inode, 176633);
		CHECK_U(v->dev_major, 3);
		if (v->nr_ranges == 4) {
			check_range(&v->ranges[0], 0, 1, "YAU", 1, 6);
			check_range(&v->ranges[1], 1, 1, "YRU", 1, 7);
			check_range(&v->ranges[2], 5, 1, "YRU", 1, 8);
			check_range(&v->ranges[3], 8, 1, "YAU", 1, 9);
		}
		v = &map.vmas[6];
		if (v->nr_ranges == 3)
			check_range(&v->ranges[1], 1, 3, "YRU", 1, 21);
		v = &map.vmas[7];
		CHECK_U(v->offset, 0x11000);
		if (v->nr_ranges == 1)
			check_range(&v->ranges[0], 17, 2, "YAP", 1, 24);
	}
	pmaps_map_free(&map);
}

/* buf[0..len) with each TAB expanded to the next multiple of 8 columns. */
static char *expand_tabs(const char *buf, size_t len, size_t *out_len)
{
	char *out = malloc(len * 8 + 1);
	size_t i, n = 0, col = 0;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		if (buf[i] == '\t') {
			do
				out[n++] = ' ';
			while (++col % 8);
		} else {
			out[n++] = buf[i];
			col = buf[i] == '\n' ? 0 : col + 1;
		}
	}
	*out_len = n;
	return out;
}

/* What a terminal shows of good-basic.txt: the map it was. */
static void test_pasted_expanded_tabs(void)
{
	struct pmaps_map want, got;
	char err[ERRLEN];
	size_t len, n;
	char *buf = read_fixture("good-basic.txt", &len);
	char *pasted = buf ? expand_tabs(buf, len, &n) : NULL;

	if (!pasted) {
		free(buf);
		ok = 0;
		return;
	}
	CHECK(!memchr(pasted, '\t', n));
	CHECK_U(parse_mem(buf, len, "t", &want, err), 0);
	CHECK_U(parse_mem(pasted, n, "t", &got, err), 0);
	CHECK_S(err, "");
	CHECK(want.nr_vmas > 0);
	check_same_map(&want, &got, 1);
	pmaps_map_free(&want);
	pmaps_map_free(&got);
	free(pasted);
	free(buf);
}

/* Runs of spaces, TABs after a space, trailing blanks, extra columns. */
static void test_pasted_separators(void)
{
	static const char head[] =
		"00400000-00410000 r--p 00000000 00:02 9  /lib/x 1 1 Y__U___ 1\n";
	static const char *const lines[] = {
		"0 1 Y__U___ 1\n",
		"1     2       YR_U___    2   \n",
		"3 \t1\tY?_U___ \t?\n",
		"4 1 Y__U___ 3 1  4 new\t-1\n",
	};
	struct pmaps_map map;
	const struct pmaps_vma *v;
	char doc[512], err[ERRLEN];
	size_t i;

	snprintf(doc, sizeof(doc), "%s", head);
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		strncat(doc, lines[i], sizeof(doc) - strlen(doc) - 1);
	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_S(err, "");
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v);
	if (v) {
		/* The header's name stays whole, digits and spaces and all. */
		CHECK_S(v->name, "/lib/x 1 1 Y__U___ 1");
		CHECK_U(v->nr_ranges, 4);
	}
	if (v && v->nr_ranges == 4) {
		check_range(&v->ranges[0], 0, 1, "YU", 1, 2);
		check_range(&v->ranges[1], 1, 2, "YRU", 2, 3);
		CHECK_U(v->ranges[2].index, 3);
		CHECK_U(v->ranges[2].unknown, 1U << PMAPS_REFERENCED);
		CHECK_U(v->ranges[2].mapcount, PMAPS_MAPCOUNT_UNKNOWN);
		check_range(&v->ranges[3], 4, 1, "YU", 3, 5);
		CHECK_U(v->ranges[3].node, 1);
		CHECK_U(v->ranges[3].kb, 4);
		CHECK_U(v->ranges[0].node, PMAPS_NODE_UNKNOWN);
	}
	CHECK(map.numa);
	pmaps_map_free(&map);
}

/* NODE and KB, columns 5 and 6 of the NUMA files, '?' included. */
static void test_numa_columns(void)
{
	static const char doc[] =
		"00400000-00410000 rw-p 00000000 00:00 0\n"
		"1024\t1\tY__UP__\t1\t0\t4\n"
		"1025\t1\tY__UP__\t1\t1\t4\n"
		"1026\t2\tY??U_??\t?\t1\t?\n"
		"1028\t4\tY__UP__\t1\t?\t64\textra\n";
	/* Not both a number or '?': columns for future readers. */
	static const char *const other[] = {
		"1024\t1\tY__UP__\t1\t0\n",
		"1024\t1\tY__UP__\t1\tx\t4\n",
		"1024\t1\tY__UP__\t1\t0\t0\n",
		"1024\t1\tY__UP__\t1\t65536\t4\n",
	};
	struct pmaps_map map;
	const struct pmaps_vma *v;
	char buf[256], err[ERRLEN];
	size_t i;

	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_S(err, "");
	CHECK(map.numa);
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v && v->nr_ranges == 4);
	if (v && v->nr_ranges == 4) {
		CHECK_U(v->ranges[0].node, 0);
		CHECK_U(v->ranges[1].node, 1);
		CHECK_U(v->ranges[1].kb, 4);
		CHECK_U(v->ranges[2].kb, PMAPS_KB_UNKNOWN);
		CHECK_U(v->ranges[3].node, PMAPS_NODE_UNKNOWN);
		CHECK_U(v->ranges[3].kb, 64);
	}
	pmaps_map_free(&map);

	/* The RFC's four columns: no NUMA data. */
	CHECK_U(parse_str("00400000-00410000 rw-p 00000000 00:00 0\n"
			  "1024\t1\tY__UP__\t1\n", &map, err), 0);
	CHECK(!map.numa);
	pmaps_map_free(&map);

	for (i = 0; i < ARRAY_SIZE(other); i++) {
		snprintf(buf, sizeof(buf), "%s%s",
			 "00400000-00410000 rw-p 00000000 00:00 0\n",
			 other[i]);
		CHECK_U(parse_str(buf, &map, err), 0);
		CHECK(!map.numa);
		CHECK(map.nr_vmas == 1 && map.vmas[0].nr_ranges == 1 &&
		      map.vmas[0].ranges[0].node == PMAPS_NODE_UNKNOWN);
		pmaps_map_free(&map);
	}
}

/* AGE, column 7 of the NUMA files: 0 to PMAPS_AGE_MAX or '?'. */
static void test_age_column(void)
{
	static const char doc[] =
		"00400000-00410000 rw-p 00000000 00:00 0\n"
		"1024\t1\tY_AUP__\t1\t0\t4\t0\n"
		"1025\t1\tY__UP__\t1\t0\t4\t3\n"
		"1026\t2\tY??U_??\t?\t0\t?\t?\n"
		"1028\t4\tY__UP__\t1\t0\t4\t7\textra\n";
	/* Not a number of 0 to 7 or '?': a column for future readers. */
	static const char *const other[] = {
		"1024\t1\tY__UP__\t1\t0\t4\t8\n",
		"1024\t1\tY__UP__\t1\t0\t4\t-1\n",
		"1024\t1\tY__UP__\t1\t0\t4\told\n",
		"1024\t1\tY__UP__\t1\tx\t4\t1\n",
	};
	struct pmaps_map map;
	const struct pmaps_vma *v;
	char buf[256], err[ERRLEN], out[21];
	size_t i;

	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_S(err, "");
	CHECK(map.numa && map.age);
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v && v->nr_ranges == 4);
	if (v && v->nr_ranges == 4) {
		CHECK_U(v->ranges[0].age, 0);
		CHECK_U(v->ranges[1].age, 3);
		CHECK_U(v->ranges[2].age, PMAPS_AGE_UNKNOWN);
		CHECK_U(v->ranges[3].age, 7);
	}
	pmaps_map_free(&map);

	/* The six-column text of older modules: no AGE. */
	CHECK_U(parse_str("00400000-00410000 rw-p 00000000 00:00 0\n"
			  "1024\t1\tY__UP__\t1\t0\t4\n", &map, err), 0);
	CHECK(map.numa && !map.age);
	CHECK(map.nr_vmas == 1 && map.vmas[0].nr_ranges == 1 &&
	      map.vmas[0].ranges[0].age == PMAPS_AGE_UNKNOWN);
	pmaps_map_free(&map);

	for (i = 0; i < ARRAY_SIZE(other); i++) {
		snprintf(buf, sizeof(buf), "%s%s",
			 "00400000-00410000 rw-p 00000000 00:00 0\n",
			 other[i]);
		CHECK_U(parse_str(buf, &map, err), 0);
		CHECK(!map.age);
		CHECK(map.nr_vmas == 1 && map.vmas[0].nr_ranges == 1 &&
		      map.vmas[0].ranges[0].age == PMAPS_AGE_UNKNOWN);
		pmaps_map_free(&map);
	}

	CHECK_U(pmaps_format_age(2, out), 1);
	CHECK_S(out, "2");
	CHECK_U(pmaps_format_age(PMAPS_AGE_UNKNOWN, out), 1);
	CHECK_S(out, "?");
}

/* A pasted line is held to the same columns, and says where it is wrong. */
static void test_pasted_errors(void)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "0 1x Y__U___ 1", "expected decimal COUNT, got '1x'" },
		{ "0 0 Y__U___ 1", "expected COUNT >= 1, got '0'" },
		{ "0 1 Y_U___ 1", "expected FLAGS of 7 characters YRAUPDW, "
		  "got 'Y_U___'" },
		{ "0 1 Y__U___ 1?", "expected MAPCOUNT as decimal or '?', "
		  "got '1?'" },
		{ "0 1 Y__U___", "expected 4 space-separated columns INDEX "
		  "COUNT FLAGS MAPCOUNT, got '0 1 Y__U___'" },
		{ "0 17 Y__U___ 1", "expected range inside 00400000-00410000, "
		  "got '00000000-00011000'" },
		/* A header that lost its '-' is no header. */
		{ "00400000 00401000 r--p 00000000 00:00 0",
		  "expected FLAGS of 7 characters YRAUPDW, got 'r--p'" },
		{ " 0 1 Y__U___ 1", "expected VMA header or TAB-separated "
		  "range line, got ' 0 1 Y__U___ 1'" },
	};
	char doc[256], msg[ERRLEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(doc, sizeof(doc),
			 "00400000-00410000 r--p 00000000 00:00 0\n%s\n",
			 cases[i].line);
		snprintf(msg, sizeof(msg), "t:2: %s", cases[i].msg);
		expect_bad_str(doc, msg);
	}
	/* Pasted before any header: still a range line, in the wrong place. */
	expect_bad_str("0 1 Y__U___ 1\n", "t:1: expected VMA header before "
		       "range lines, got '0 1 Y__U___ 1'");
}

/* pmaps --json of diff-a.txt reads back as diff-a.txt, headers too. */
static void test_json_document(void)
{
	struct pmaps_map text, json;
	char err[ERRLEN];
	size_t len;
	char *buf;

	CHECK_U(parse_fixture("diff-a.txt", &text, err), 0);
	CHECK_U(parse_fixture("diff-a.json", &json, err), 0);
	CHECK_S(err, "");
	CHECK(text.nr_vmas > 0);
	check_same_map(&text, &json, 1);
	pmaps_map_free(&json);

	/* Blank lines before the '{' do not make it text. */
	buf = read_fixture("diff-a.json", &len);
	if (buf) {
		char *spaced = malloc(len + 3);

		if (spaced) {
			memcpy(spaced, "\n \t", 3);
			memcpy(spaced + 3, buf, len);
			CHECK_U(parse_mem(spaced, len + 3, "t", &json, err),
				0);
			check_same_map(&text, &json, 1);
			pmaps_map_free(&json);
			free(spaced);
		}
		free(buf);
	}
	pmaps_map_free(&text);

	CHECK(!pmaps_is_json("", 0));
	CHECK(!pmaps_is_json(" \n", 2));
	CHECK(pmaps_is_json(" \r\n{", 4));
	CHECK(!pmaps_is_json("00400000-", 9));

	/* Malformed JSON is reported by file and line, as text is. */
	expect_bad_str("{\"schema\":\"pmaps/2\",\n\"targets\":[}\n",
		       "t:2: expected a target object, got '}'");

	/* No name the text format cannot hold: a header is one line. */
	expect_bad_str("{\"schema\":\"pmaps/2\",\"targets\":[{\"vmas\":[\n"
		       "{\"start\":\"0x1000\",\"end\":\"0x2000\","
		       "\"perms\":\"rw-p\",\"offset\":0,\"dev\":\"00:00\","
		       "\"inode\":0,\"name\":\"a\\nb\",\"ranges\":[]}]}]}\n",
		       "t:2: expected name as maps prints it, without a "
		       "newline or a leading space, got "
		       "'\"a\\\\nb\",\"ranges\":[]}]}]}'");
}

static void test_unknown_flags(void)
{
	struct pmaps_map map;
	char err[ERRLEN];
	const struct pmaps_vma *v;

	CHECK_U(parse_str("7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
			  "34091302912\t1\t?__U?__\t1\n"
			  "34091302913\t1\t???????\t1\n"
			  "34091302914\t1\t?RA_?DW\t0\n", &map, err), 0);
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v && v->nr_ranges == 3);
	if (v && v->nr_ranges == 3) {
		CHECK_U(v->ranges[0].flags, bits("U"));
		CHECK_U(v->ranges[0].unknown, Y | P);
		CHECK_U(v->ranges[1].flags, 0);
		CHECK_U(v->ranges[1].unknown, 0x7f);
		CHECK_U(v->ranges[2].flags, bits("RADW"));
		CHECK_U(v->ranges[2].unknown, Y | P);
		CHECK_U(v->ranges[2].mapcount, 0);
	}
	pmaps_map_free(&map);
}

static void test_range_addr_file(void)
{
	struct pmaps_map map;
	char err[ERRLEN];
	struct pmaps_vma v = { .start = 0x7f0000200000ULL,
			       .end = 0x7f0000300000ULL,
			       .offset = 0x5000, .inode = 7 };
	struct pmaps_range r = { .index = 5, .count = 1 };

	CHECK_U(pmaps_range_addr(&v, &r), 0x7f0000200000ULL);
	r.index = 0x105;
	CHECK_U(pmaps_range_addr(&v, &r), 0x7f0000300000ULL);

	CHECK_U(parse_fixture("good-basic.txt", &map, err), 0);
	if (map.nr_vmas == 10 && map.vmas[1].nr_ranges == 2 &&
	    map.vmas[5].nr_ranges == 2) {
		CHECK_U(pmaps_range_addr(&map.vmas[1], &map.vmas[1].ranges[0]),
			0x55d0c8a02000ULL);
		CHECK_U(pmaps_range_addr(&map.vmas[1], &map.vmas[1].ranges[1]),
			0x55d0c8a04000ULL);
		/* offset 0x10000 is file page 16 */
		CHECK_U(pmaps_range_addr(&map.vmas[5], &map.vmas[5].ranges[1]),
			0x7f3a1d000000ULL + 511 * 4096);
	} else {
		ok = 0;
	}
	pmaps_map_free(&map);
}

static void test_range_addr_anon(void)
{
	struct pmaps_map map;
	char err[ERRLEN];
	/* An anon VMA ignores offset: index is the virtual page number. */
	struct pmaps_vma v = { .start = 0x7f0000200000ULL,
			       .end = 0x7f0000300000ULL, .offset = 0x5000 };
	struct pmaps_range r = { .index = 0x7f0000201ULL, .count = 1 };

	CHECK_U(pmaps_range_addr(&v, &r), 0x7f0000201000ULL);

	CHECK_U(parse_fixture("good-basic.txt", &map, err), 0);
	if (map.nr_vmas == 10 && map.vmas[3].nr_ranges == 2 &&
	    map.vmas[7].nr_ranges == 1) {
		CHECK_U(pmaps_range_addr(&map.vmas[3], &map.vmas[3].ranges[0]),
			0x55d0c9b1e000ULL);
		CHECK_U(pmaps_range_addr(&map.vmas[3], &map.vmas[3].ranges[1]),
			0x55d0c9b32000ULL);
		CHECK_U(pmaps_range_addr(&map.vmas[7], &map.vmas[7].ranges[0]),
			0x7ffd0e5be000ULL);
	} else {
		ok = 0;
	}
	pmaps_map_free(&map);
}

static void test_format_flags(void)
{
	char s[PMAPS_NR_FLAGS + 1];
	struct pmaps_map map;
	char err[ERRLEN];
	char *doc, *p;
	unsigned int f, u;
	size_t n = 0;

	CHECK_S(pmaps_flag_letters, "YRAUPDW");
	pmaps_format_flags(0, 0, s);
	CHECK_S(s, "_______");
	pmaps_format_flags(0x7f, 0, s);
	CHECK_S(s, "YRAUPDW");
	pmaps_format_flags(bits("YUD"), Y | P, s);
	CHECK_S(s, "?__U?D_");

	/* Every flags/unknown pair, through the parser and back. */
	doc = malloc(128 * 128 * 32 + 64);
	if (!doc) {
		ok = 0;
		return;
	}
	p = doc + sprintf(doc, "7f0000000000-7f0004000000 rw-p 00000000 "
			  "00:00 0 \n");
	for (u = 0; u < 128; u++)
		for (f = 0; f < 128; f++) {
			pmaps_format_flags(f, u, s);
			p += sprintf(p, "%llu\t1\t%s\t1\n",
				     0x7f0000000ULL + n++, s);
		}
	CHECK_U(parse_mem(doc, p - doc, "t", &map, err), 0);
	CHECK_S(err, "");
	if (map.nr_vmas == 1 && map.vmas[0].nr_ranges == n) {
		const struct pmaps_range *r = map.vmas[0].ranges;

		for (u = 0; u < 128; u++)
			for (f = 0; f < 128; f++, r++)
				if (r->unknown != u || r->flags != (f & ~u)) {
					tap_diag("%#x/%#x: %#x/%#x", f, u,
						 r->flags, r->unknown);
					ok = 0;
				}
	} else {
		ok = 0;
	}
	pmaps_map_free(&map);
	free(doc);
}

/* pmaps_parse_file() on a FILE that is not a regular file, like stdin. */
static void test_parse_file_stream(void)
{
	size_t len;
	char *buf = read_fixture("good-basic.txt", &len);
	struct pmaps_map map;
	char err[ERRLEN];
	FILE *f;

	if (!buf) {
		ok = 0;
		return;
	}
	f = fmemopen(buf, len, "r");
	CHECK(f);
	if (f) {
		CHECK_U(pmaps_parse_file(f, "<stdin>", &map, err, ERRLEN), 0);
		CHECK_S(err, "");
		CHECK_U(map.nr_vmas, 10);
		if (map.nr_vmas == 10) {
			CHECK_S(map.vmas[9].name, "[vdso]");
			CHECK_U(map.vmas[9].ranges[0].mapcount, 47);
		}
		pmaps_map_free(&map);
		fclose(f);
	}

	/* Messages carry the caller's name and the line. */
	f = fmemopen(buf, len - 1, "r");
	CHECK(f);
	if (f) {
		buf[len - 2] = 'x';
		CHECK_U(pmaps_parse_file(f, "<stdin>", &map, err, ERRLEN), -1);
		CHECK_S(err, "<stdin>:22: expected MAPCOUNT as decimal or "
			"'?', got '4x'");
		CHECK_U(map.nr_vmas, 10);
		pmaps_map_free(&map);
		fclose(f);
	}
	free(buf);
}

/* Bigger than the first read chunk, so the read buffer has to grow. */
static void test_parse_file_large(void)
{
	const unsigned long nr = 200000;
	struct pmaps_map map;
	char err[ERRLEN];
	unsigned long i;
	FILE *f = tmpfile();

	if (!f) {
		ok = 0;
		return;
	}
	fprintf(f, "7f0000000000-7f0100000000 rw-p 00000000 00:00 0 \n");
	for (i = 0; i < nr; i++)
		fprintf(f, "%llu\t1\t%s\t%lu\n", 0x7f0000000ULL + 2 * i,
			i & 1 ? "YRAUPDW" : "___U___", i % 7);
	rewind(f);
	CHECK_U(pmaps_parse_file(f, "big", &map, err, ERRLEN), 0);
	CHECK_S(err, "");
	if (map.nr_vmas == 1 && map.vmas[0].nr_ranges == nr) {
		const struct pmaps_range *r = &map.vmas[0].ranges[nr - 1];

		CHECK_U(r->index, 0x7f0000000ULL + 2 * (nr - 1));
		CHECK_U(r->flags, 0x7f);
		CHECK_U(r->mapcount, (nr - 1) % 7);
		CHECK_U(r->line, nr + 1);
	} else {
		ok = 0;
	}
	pmaps_map_free(&map);
	fclose(f);
}

static void test_empty_document(void)
{
	struct pmaps_map map;
	char err[ERRLEN] = "junk";
	FILE *f;

	CHECK_U(pmaps_parse_buf(NULL, 0, "t", &map, err, ERRLEN), 0);
	CHECK_U(map.nr_vmas, 0);
	CHECK_S(err, "");
	pmaps_map_free(&map);

	CHECK_U(parse_str("@only an extension line\n", &map, err), 0);
	CHECK_U(map.nr_vmas, 0);
	pmaps_map_free(&map);

	f = tmpfile();
	CHECK(f);
	if (f) {
		CHECK_U(pmaps_parse_file(f, "t", &map, err, ERRLEN), 0);
		CHECK_U(map.nr_vmas, 0);
		pmaps_map_free(&map);
		fclose(f);
	}
}

static void test_bad_range_before_header(void)
{
	expect_bad_fixture("bad-range-before-header.txt",
			   "bad-range-before-header.txt:2: expected VMA header "
			   "before range lines, got '0\\t1\\tY__U___\\t1'");
}

static void test_bad_columns(void)
{
	expect_bad_fixture("bad-columns.txt",
			   "bad-columns.txt:3: expected 4 TAB-separated "
			   "columns INDEX COUNT FLAGS MAPCOUNT, "
			   "got '1\\t1\\tY__U___'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n0\t1\n",
		       "t:2: expected 4 TAB-separated columns INDEX COUNT "
		       "FLAGS MAPCOUNT, got '0\\t1'");
	/* A pasted range line (spaces for TABs) is read as a range. */
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n0 1 Y 1\n",
		       "t:2: expected FLAGS of 7 characters YRAUPDW, "
		       "got 'Y'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0  1   Y__U___  \n",
		       "t:2: expected 4 space-separated columns INDEX COUNT "
		       "FLAGS MAPCOUNT, got '0  1   Y__U___  '");
	/* A line of other words is neither header nor range. */
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "1024\t1\tY__U___\t1\n[...]\n",
		       "t:3: expected VMA header or TAB-separated range line, "
		       "got '[...]'");
}

static void test_bad_index(void)
{
	expect_bad_fixture("bad-index.txt",
			   "bad-index.txt:2: expected decimal INDEX, "
			   "got '0x1'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "\t1\tY__U___\t1\n",
		       "t:2: expected decimal INDEX, got ''");
}

static void test_bad_count(void)
{
	expect_bad_fixture("bad-count.txt",
			   "bad-count.txt:2: expected decimal COUNT, got '+1'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1 \tY__U___\t1\n",
		       "t:2: expected decimal COUNT, got '1 '");
}

static void test_bad_count_zero(void)
{
	expect_bad_fixture("bad-count-zero.txt",
			   "bad-count-zero.txt:2: expected COUNT >= 1, "
			   "got '0'");
}

static void test_bad_mapcount(void)
{
	static const struct {
		const char *mapcount, *quoted;
	} cases[] = {
		{ "", "" }, { "??", "??" }, { "?1", "?1" }, { "1?", "1?" },
		{ "-1", "-1" }, { " ?", " ?" }, { "? ", "? " },
		{ "?\r", "?\\x0d" }, { "+1", "+1" },
	};
	char doc[128], msg[ERRLEN];
	size_t i;

	expect_bad_fixture("bad-mapcount.txt",
			   "bad-mapcount.txt:2: expected MAPCOUNT as decimal "
			   "or '?', got '-1'");
	/* '?' is the whole column or an error, never a prefix or a suffix */
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(doc, sizeof(doc),
			 "00400000-00401000 r--p 00000000 00:00 0\n"
			 "0\t1\tY??U_??\t%s\n", cases[i].mapcount);
		snprintf(msg, sizeof(msg), "t:2: expected MAPCOUNT as decimal "
			 "or '?', got '%s'", cases[i].quoted);
		expect_bad_str(doc, msg);
	}
}

/* The kernel's '?' for a withheld count; PMAPS_MAPCOUNT_UNKNOWN in the map. */
static void test_unknown_mapcount(void)
{
	struct pmaps_map map;
	char err[ERRLEN] = "x";
	const struct pmaps_vma *v;
	char s[PMAPS_MAPCOUNT_LEN];

	/* 7 pages: only 4 KiB pages fit */
	CHECK_U(parse_str("00400000-00407000 r--p 00000000 08:01 7 /f\n"
			  "0\t3\tY??U_??\t?\n"
			  "3\t1\tY??U_??\t1\n"
			  "4\t1\tY??U_??\t?\tmore columns\n"
			  "5\t1\tY??UP??\t0\n"
			  "6\t1\t_??U_??\t?", &map, err), 0);
	CHECK_S(err, "");
	v = map.nr_vmas == 1 ? &map.vmas[0] : NULL;
	CHECK(v && v->nr_ranges == 5);
	if (v && v->nr_ranges == 5) {
		CHECK(v->ranges[0].mapcount == PMAPS_MAPCOUNT_UNKNOWN);
		CHECK_U(v->ranges[0].count, 3);
		CHECK_U(v->ranges[0].flags, bits("YU"));
		CHECK_U(v->ranges[0].unknown, bits("RADW"));
		CHECK(v->ranges[1].mapcount == 1);
		CHECK(v->ranges[2].mapcount == PMAPS_MAPCOUNT_UNKNOWN);
		CHECK(v->ranges[3].mapcount == 0);
		/* the last line, no newline after the '?' */
		CHECK(v->ranges[4].mapcount == PMAPS_MAPCOUNT_UNKNOWN);
		CHECK_U(v->ranges[4].line, 6);
	}
	pmaps_map_free(&map);

	/* what the front ends write back */
	CHECK_U(pmaps_format_mapcount(PMAPS_MAPCOUNT_UNKNOWN, s), 1);
	CHECK_S(s, "?");
	CHECK_U(pmaps_format_mapcount(0, s), 1);
	CHECK_S(s, "0");
	CHECK_U(pmaps_format_mapcount(1234, s), 4);
	CHECK_S(s, "1234");
	CHECK_U(pmaps_format_mapcount(LONG_MAX, s), LONG_MAX == 0x7fffffffL ?
		10 : 19);
	CHECK_S(s, LONG_MAX == 0x7fffffffL ? "2147483647" :
		"9223372036854775807");
	/* any other negative is no count either: never a '-' that fails */
	CHECK_U(pmaps_format_mapcount(-7, s), 1);
	CHECK_S(s, "?");
}

static void test_bad_flags_length(void)
{
	expect_bad_fixture("bad-flags-length.txt",
			   "bad-flags-length.txt:2: expected FLAGS of 7 "
			   "characters YRAUPDW, got 'Y__U__'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tY__U____\t1\n",
		       "t:2: expected FLAGS of 7 characters YRAUPDW, "
		       "got 'Y__U____'");
}

static void test_bad_flags_char(void)
{
	expect_bad_fixture("bad-flags-char.txt",
			   "bad-flags-char.txt:2: expected 'R', '_' or '?' at "
			   "FLAGS position 2, got 'YAAU___'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tYRAUPDw\t1\n",
		       "t:2: expected 'W', '_' or '?' at FLAGS position 7, "
		       "got 'YRAUPDw'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\t-______\t1\n",
		       "t:2: expected 'Y', '_' or '?' at FLAGS position 1, "
		       "got '-______'");
}

static void test_bad_header(void)
{
	static const struct {
		const char *doc, *msg;
	} cases[] = {
		{ "0040000-00402000 r--p 00000000 00:02 1033\n",
		  "expected START as 8+ lowercase hex digits, got '0040000'" },
		{ "0040000A-00402000 r--p 00000000 00:02 1033\n",
		  "expected START as 8+ lowercase hex digits, got '0040000A'" },
		{ "00400000-0040200g r--p 00000000 00:02 1033\n",
		  "expected END as 8+ lowercase hex digits, got '0040200g'" },
		{ "00400000- r--p 00000000 00:02 1033\n",
		  "expected END as 8+ lowercase hex digits, got ''" },
		{ "10000000000000000-20000000000000000 r--p 00000000 00:02 1\n",
		  "expected START of at most 64 bits, "
		  "got '10000000000000000'" },
		{ "00402000-00402000 r--p 00000000 00:02 1033\n",
		  "expected START below END, got '00402000-00402000'" },
		{ "00402000-00401000 r--p 00000000 00:02 1033\n",
		  "expected START below END, got '00402000-00401000'" },
		{ "00400000-00402000 r--pp 00000000 00:02 1033\n",
		  "expected PERMS [r-][w-][x-][sp], got 'r--pp'" },
		{ "00400000-00402000  r--p 00000000 00:02 1033\n",
		  "expected PERMS [r-][w-][x-][sp], got ''" },
		{ "00400000-00402000 r--P 00000000 00:02 1033\n",
		  "expected PERMS [r-][w-][x-][sp], got 'r--P'" },
		{ "00400000-00402000 r--p 0000000 00:02 1033\n",
		  "expected OFFSET as 8+ lowercase hex digits, got '0000000'" },
		{ "00400000-00402000 r--p 00000000 0:02 1033\n",
		  "expected MAJ:MIN as 2+ lowercase hex digits, got '0:02'" },
		{ "00400000-00402000 r--p 00000000 00:2 1033\n",
		  "expected MAJ:MIN as 2+ lowercase hex digits, got '00:2'" },
		{ "00400000-00402000 r--p 00000000 0002 1033\n",
		  "expected MAJ:MIN, got '0002'" },
		{ "00400000-00402000 r--p 00000000 100000000:00 1\n",
		  "expected MAJ:MIN of at most 32 bits, got '100000000:00'" },
		{ "00400000-00402000 r--p 00000000 00:02 0x1\n",
		  "expected decimal INODE, got '0x1'" },
		{ "00400000-00402000 r--p 00000000 00:02\n",
		  "expected decimal INODE, got ''" },
		{ "00400000-00402000 r--p 00000000 00:02 "
		  "18446744073709551616\n",
		  "expected INODE in 0..18446744073709551615, "
		  "got '18446744073709551616'" },
		{ "00400000-00402000\n",
		  "expected PERMS [r-][w-][x-][sp], got ''" },
		{ "hello world\n",
		  "expected VMA header or TAB-separated range line, "
		  "got 'hello world'" },
		{ "\n",
		  "expected VMA header or TAB-separated range line, got ''" },
	};
	char msg[ERRLEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(msg, sizeof(msg), "t:1: %s", cases[i].msg);
		expect_bad_str(cases[i].doc, msg);
	}
	expect_bad_fixture("bad-header.txt",
			   "bad-header.txt:3: expected PERMS [r-][w-][x-][sp], "
			   "got 'rwzp'");
}

static void test_bad_nul_in_header(void)
{
	static const char doc[] =
		"00400000-00402000 r--p 00000000 00:02 1033 /a\0b\n";
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_mem(doc, sizeof(doc) - 1, "t", &map, err), -1);
	/* the reader's rule, from a buffer as from a stream */
	CHECK_S(err, "t:1: expected text, got a NUL byte at byte 46 of the line");
	pmaps_map_free(&map);
}

/*
 * The page size of a document: the one its lines fit, or the one given;
 * in the map and in each VMA, so that addresses follow from it.
 */
static void test_doc_page_size(void)
{
	/* a 16 KiB-page anon VMA: index 0x1000 is 0x4000000 */
	static const char doc16[] =
		"04000000-04008000 rw-p 00000000 00:00 0\n"
		"4096\t2\tYRAU___\t1\n";
	/* a file VMA of 64 KiB read from page 0: any size fits */
	static const char ambiguous[] =
		"00400000-00410000 r--p 00000000 08:01 7 /f\n"
		"0\t1\tYRAU___\t1\n";
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_str(doc16, &map, err), 0);
	CHECK_U(map.page_size, 16384);
	CHECK_U(map.nr_vmas == 1 ? map.vmas[0].page_size : 0, 16384);
	if (map.nr_vmas == 1 && map.vmas[0].nr_ranges == 1) {
		CHECK_U(pmaps_range_addr(&map.vmas[0], &map.vmas[0].ranges[0]),
			0x4000000);
		CHECK(pmaps_find_range(&map.vmas[0], 0x4007fff) ==
		      &map.vmas[0].ranges[0]);
	} else {
		CHECK(0);
	}
	pmaps_map_free(&map);

	/* given, a size the document does not fit is an error */
	CHECK_U(pmaps_parse_buf_as(doc16, sizeof(doc16) - 1, "t", 4096, &map,
				   err, ERRLEN), -1);
	CHECK_S(err, "t:2: expected range inside 04000000-04008000, got '01000000-01002000'");
	pmaps_map_free(&map);

	expect_bad_str(ambiguous, "t:2: expected range lines that tell the page size, got ones that fit pages of 4096, 8192, 16384, 32768 or 65536 bytes alike (give --page-size)");
	CHECK_U(pmaps_parse_buf_as(ambiguous, sizeof(ambiguous) - 1, "t",
				   65536, &map, err, ERRLEN), 0);
	CHECK_U(map.page_size, 65536);
	pmaps_map_free(&map);

	/* without ranges nothing depends on it: this host's, or what fits */
	CHECK_U(parse_str("00400000-00410000 r--p 00000000 08:01 7 /f\n",
			  &map, err), 0);
	CHECK_U(map.page_size, pmaps_page_size());
	pmaps_map_free(&map);

	/* NUMA: a folio of KB 16 is no whole number of 32 or 64 KiB pages */
	expect_bad_str("00400000-00410000 r--p 00000000 08:01 7 /f\n"
		       "0\t1\tYRAU___\t1\t0\t16\n",
		       "t:2: expected range lines that tell the page size, got ones that fit pages of 4096, 8192 or 16384 bytes alike (give --page-size)");
	expect_bad_str("04000000-04008000 rw-p 00000000 00:00 0\n"
		       "4096\t2\tYRAU___\t1\t0\t4\n",
		       "t:2: expected KB a multiple of the page size in KiB, 16, got '4'");

	/* VMAs on no page of 4 KiB to 64 KiB */
	expect_bad_str("00400800-00410000 r--p 00000000 08:01 7 /f\n",
		       "t:1: expected START, END and OFFSET multiples of the page size, 4096, 8192, 16384, 32768 or 65536, got '00400800-00410000 r--p 00000000 08:01 7 ...'");
}

static void test_bad_range_outside(void)
{
	expect_bad_fixture("bad-range-outside.txt",
			   "bad-range-outside.txt:2: expected range inside "
			   "00400000-00402000, got '00401000-00403000'");
	/*
	 * File page 2 is before a VMA whose offset starts at page 3 (an
	 * offset only 4 KiB pages fit).
	 */
	expect_bad_str("00400000-00402000 r--p 00003000 00:02 1\n"
		       "2\t1\tY__U___\t1\n",
		       "t:2: expected range inside 00400000-00402000, "
		       "got '003ff000-00400000'");
	expect_bad_str("00400000-00402000 rw-p 00000000 00:00 0\n"
		       "1023\t1\tY__U___\t1\n",
		       "t:2: expected range inside 00400000-00402000, "
		       "got '003ff000-00400000'");
	/* A count this large must not wrap around into the VMA. */
	expect_bad_str("00400000-00402000 rw-p 00000000 00:00 0\n"
		       "1024\t18446744073709551615\tY__U___\t1\n",
		       "t:2: expected range inside 00400000-00402000, "
		       "got '00400000-003ff000'");
}

static void test_bad_range_overlap(void)
{
	expect_bad_fixture("bad-range-overlap.txt",
			   "bad-range-overlap.txt:5: expected range starting "
			   "at or after 7f0000004000, "
			   "got '7f0000002000-7f0000004000'");
}

static void test_bad_range_order(void)
{
	expect_bad_fixture("bad-range-order.txt",
			   "bad-range-order.txt:3: expected range starting "
			   "at or after 7f0000009000, "
			   "got '7f0000000000-7f0000001000'");
}

static void test_bad_overflow(void)
{
	char msg[ERRLEN];

	expect_bad_fixture("bad-overflow.txt",
			   "bad-overflow.txt:2: expected INDEX in "
			   "0..18446744073709551615, "
			   "got '18446744073709551616'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t99999999999999999999999\tY__U___\t1\n",
		       "t:2: expected COUNT in 0..18446744073709551615, "
		       "got '99999999999999999999999'");
	snprintf(msg, sizeof(msg), "t:2: expected MAPCOUNT in 0..%ld or '?', "
		 "got '%lu'", LONG_MAX, (unsigned long)LONG_MAX + 1);
	expect_bad_str(LONG_MAX == 0x7fffffffL ?
		       "00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tY__U___\t2147483648\n" :
		       "00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tY__U___\t9223372036854775808\n", msg);
}

/* Limits themselves and leading zeros are fine. */
static void test_number_limits(void)
{
	struct pmaps_map map;
	char err[ERRLEN], doc[256];

	snprintf(doc, sizeof(doc),
		 "0000000000000000400000-00401000 r--p 00000000 000:0002 "
		 "18446744073709551615 /f\n"
		 "0000\t001\tY__U___\t%ld\n", LONG_MAX);
	CHECK_U(parse_str(doc, &map, err), 0);
	CHECK_S(err, "");
	if (map.nr_vmas == 1 && map.vmas[0].nr_ranges == 1) {
		CHECK_U(map.vmas[0].start, 0x400000);
		CHECK_U(map.vmas[0].dev_minor, 2);
		CHECK_U(map.vmas[0].inode, 18446744073709551615ULL);
		CHECK_U(map.vmas[0].ranges[0].count, 1);
		CHECK(map.vmas[0].ranges[0].mapcount == LONG_MAX);
	} else {
		ok = 0;
	}
	pmaps_map_free(&map);
}

static void test_bad_vma_order(void)
{
	expect_bad_fixture("bad-vma-order.txt",
			   "bad-vma-order.txt:2: expected VMA starting at or "
			   "after 7f0000010000, got '00400000-00402000'");
	expect_bad_str("00400000-00402000 rw-p 00000000 00:00 0\n"
		       "00401000-00403000 rw-p 00000000 00:00 0\n",
		       "t:2: expected VMA starting at or after 00402000, "
		       "got '00401000-00403000'");
}

static void test_error_snippet(void)
{
	struct pmaps_map map;
	char err[ERRLEN], small[12];

	/* Long input is cut; control bytes and backslashes are escaped. */
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tY__U___\t1\x01\\"
		       "0123456789012345678901234567890\n",
		       "t:2: expected MAPCOUNT as decimal or '?', "
		       "got '1\\x01\\\\0123456789012345678901234567890'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tY__U___\t1\r\n",
		       "t:2: expected MAPCOUNT as decimal or '?', "
		       "got '1\\x0d'");
	expect_bad_str("00400000-00401000 r--p 00000000 00:00 0\n"
		       "0\t1\tY__U___\t12345678901234567890123456789012345"
		       "6789012345678901234567890x\n",
		       "t:2: expected MAPCOUNT as decimal or '?', "
		       "got '1234567890123456789012345678901234567890...'");

	/* A short buffer is filled, terminated and not overrun. */
	memset(small, 'Z', sizeof(small));
	CHECK_U(pmaps_parse_buf("x\n", 2, "t", &map, small, 8), -1);
	CHECK_S(small, "t:1: ex");
	CHECK(small[8] == 'Z');
	pmaps_map_free(&map);

	CHECK_U(pmaps_parse_buf("x\n", 2, "t", &map, NULL, 0), -1);
	pmaps_map_free(&map);
	CHECK_U(pmaps_parse_buf("x\n", 2, NULL, &map, err, ERRLEN), -1);
	CHECK_S(err, "-:1: expected VMA header or TAB-separated range line, "
		"got 'x'");
	pmaps_map_free(&map);
}

/* On error, what was parsed before stays in *out and is freeable. */
static void test_partial_on_error(void)
{
	struct pmaps_map map;
	char err[ERRLEN];

	CHECK_U(parse_fixture("bad-range-overlap.txt", &map, err), -1);
	CHECK_U(map.nr_vmas, 2);
	if (map.nr_vmas == 2) {
		CHECK_U(map.vmas[0].nr_ranges, 1);
		CHECK_U(map.vmas[1].nr_ranges, 1);
		CHECK_S(map.vmas[1].name, "");
	}
	pmaps_map_free(&map);
	CHECK(!map.vmas && !map.nr_vmas);
	pmaps_map_free(&map);		/* idempotent */
	pmaps_map_free(NULL);
}

static unsigned long long rnd_state = 88172645463325252ULL;

static unsigned int rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state >> 32;
}

/*
 * Random byte edits of a good document: the parser must either reject
 * with a proper message or return a model that obeys the format's rules.
 */
static void test_mutations(void)
{
	static const char alphabet[] = "\t\n\0 -:0123456789abcdefxYRAUPDW_?@";
	size_t len, i;
	char *good = read_fixture("good-basic.txt", &len);
	char *buf;
	char err[ERRLEN];
	int iter, accepted = 0, bad_err = 0, bad_model = 0;
	unsigned long long ps = pmaps_page_size();

	if (!good) {
		ok = 0;
		return;
	}
	for (iter = 0; iter < 20000; iter++) {
		struct pmaps_map map;
		size_t n = len - rnd() % 8;
		int edits = 1 + rnd() % 3, e, ret;

		buf = malloc(n);
		if (!buf)
			break;
		memcpy(buf, good, n);
		for (e = 0; e < edits; e++)
			buf[rnd() % n] =
				alphabet[rnd() % (sizeof(alphabet) - 1)];
		ret = pmaps_parse_buf(buf, n, "fuzz", &map, err, ERRLEN);
		if (ret == 0) {
			accepted++;
			for (i = 0; i < map.nr_vmas; i++) {
				const struct pmaps_vma *v = &map.vmas[i];
				unsigned long long next = v->start;
				size_t k;

				if (v->start >= v->end ||
				    (i && v->start < map.vmas[i - 1].end))
					bad_model++;
				for (k = 0; k < v->nr_ranges; k++) {
					const struct pmaps_range *r;
					unsigned long long a;

					r = &v->ranges[k];
					a = pmaps_range_addr(v, r);
					if (!r->count || a < next ||
					    a >= v->end ||
					    r->count > (v->end - a) / ps)
						bad_model++;
					next = a + r->count * ps;
				}
			}
		} else if (ret != -1 || strncmp(err, "fuzz:", 5) ||
			   !strstr(err, ": expected ")) {
			if (bad_err++ < 3)
				tap_diag("ret %d err '%s'", ret, err);
		}
		pmaps_map_free(&map);
		free(buf);
	}
	tap_diag("mutations: %d of %d accepted", accepted, iter);
	CHECK_U(bad_err, 0);
	CHECK_U(bad_model, 0);
	CHECK_U(iter, 20000);
	free(good);
}

static void test_page_size(void)
{
	long sys = sysconf(_SC_PAGESIZE);

	CHECK(sys > 0);
	CHECK_U(pmaps_page_size(), sys);
	CHECK_U(pmaps_page_size(), sys);
}

/* thp is PMD-sized for the page size given, mTHP any large folio below */
static void test_folio_kind(void)
{
	CHECK_U(pmaps_folio_kind(PMAPS_KB_UNKNOWN, 4096), PMAPS_FOLIO_UNKNOWN);
	CHECK_U(pmaps_folio_kind(4, 4096), PMAPS_FOLIO_BASE);
	CHECK_U(pmaps_folio_kind(16, 4096), PMAPS_FOLIO_MTHP);
	CHECK_U(pmaps_folio_kind(1024, 4096), PMAPS_FOLIO_MTHP);
	CHECK_U(pmaps_folio_kind(2048, 4096), PMAPS_FOLIO_THP);
	CHECK_U(pmaps_folio_kind(1048576, 4096), PMAPS_FOLIO_PUD);
	CHECK_U(pmaps_folio_kind(4096, 4096), PMAPS_FOLIO_OTHER);
	/* 16 KiB pages: 2 MiB is an mTHP, 32 MiB the PMD size */
	CHECK_U(pmaps_folio_kind(16, 16384), PMAPS_FOLIO_BASE);
	CHECK_U(pmaps_folio_kind(2048, 16384), PMAPS_FOLIO_MTHP);
	CHECK_U(pmaps_folio_kind(32768, 16384), PMAPS_FOLIO_THP);
	CHECK(!strcmp(pmaps_folio_kind_name(PMAPS_FOLIO_THP), "thp"));
	CHECK(!strcmp(pmaps_folio_kind_name(PMAPS_FOLIO_MTHP), "mTHP"));
	CHECK(!strcmp(pmaps_folio_kind_name(PMAPS_FOLIO_BASE), "small"));
	/* kpageflags: KPF_THP (22) alone is no thp, the size decides */
	{
		const unsigned long long head = 1ULL << 15, tail = 1ULL << 16,
					 thp = 1ULL << 22, zero = 1ULL << 24,
					 huge = 1ULL << 17;

		CHECK_U(pmaps_folio_kind_kpf(0, 4, 4096), PMAPS_FOLIO_BASE);
		CHECK_U(pmaps_folio_kind_kpf(head | thp, 2048, 4096),
			PMAPS_FOLIO_THP);
		CHECK_U(pmaps_folio_kind_kpf(tail | thp, 1024, 4096),
			PMAPS_FOLIO_MTHP);
		CHECK_U(pmaps_folio_kind_kpf(tail | thp, PMAPS_KB_UNKNOWN,
					     4096), PMAPS_FOLIO_UNKNOWN);
		CHECK_U(pmaps_folio_kind_kpf(head | huge, 2048, 4096),
			PMAPS_FOLIO_HUGETLB);
		CHECK_U(pmaps_folio_kind_kpf(zero, 4, 4096), PMAPS_FOLIO_ZERO);
		CHECK_U(pmaps_folio_kind_kpf(head | thp | zero, 2048, 4096),
			PMAPS_FOLIO_HUGE_ZERO);
		/* compound, yet measured as one page: changed meanwhile */
		CHECK_U(pmaps_folio_kind_kpf(head | thp, 4, 4096),
			PMAPS_FOLIO_UNKNOWN);
		CHECK_U(pmaps_folio_kind_kpf(head | thp, 32768, 16384),
			PMAPS_FOLIO_THP);
		CHECK_U(pmaps_folio_kind_kpf(head | thp, 2048, 16384),
			PMAPS_FOLIO_MTHP);
	}
}

static const struct {
	void (*fn)(void);
	const char *name;
	int need_4k;	/* fixture page indexes assume 4 KiB pages */
} tests[] = {
#define T(fn, k) { fn, #fn, k }
	T(test_good_basic, 1),
	T(test_names, 0),
	T(test_tab_in_name, 0),
	T(test_16digit_addresses, 1),
	T(test_no_final_newline, 1),
	T(test_extra_columns, 1),
	T(test_at_lines, 1),
	T(test_unknown_flags, 1),
	T(test_unknown_mapcount, 1),
	T(test_range_addr_file, 1),
	T(test_range_addr_anon, 1),
	T(test_format_flags, 1),
	T(test_parse_file_stream, 1),
	T(test_parse_file_large, 1),
	T(test_empty_document, 0),
	T(test_bad_range_before_header, 0),
	T(test_bad_columns, 0),
	T(test_bad_index, 0),
	T(test_bad_count, 0),
	T(test_bad_count_zero, 0),
	T(test_bad_mapcount, 0),
	T(test_bad_flags_length, 0),
	T(test_bad_flags_char, 0),
	T(test_bad_header, 0),
	T(test_bad_nul_in_header, 0),
	T(test_doc_page_size, 0),
	T(test_bad_range_outside, 1),
	T(test_bad_range_overlap, 1),
	T(test_bad_range_order, 1),
	T(test_bad_overflow, 0),
	T(test_number_limits, 0),
	T(test_bad_vma_order, 0),
	T(test_error_snippet, 0),
	T(test_partial_on_error, 1),
	T(test_mutations, 0),
	T(test_page_size, 0),
	T(test_folio_kind, 0),
	T(test_rfc_sample_pasted, 1),
	T(test_pasted_expanded_tabs, 1),
	T(test_pasted_separators, 1),
	T(test_numa_columns, 1),
	T(test_age_column, 1),
	T(test_pasted_errors, 0),
	T(test_json_document, 1),
#undef T
};

int main(void)
{
	size_t i, n = ARRAY_SIZE(tests);
	int failed = 0;

	tap_plan(n);
	for (i = 0; i < n; i++) {
		if (tests[i].need_4k && pmaps_page_size() != 4096) {
			tap_skip(tests[i].name, "fixtures assume 4 KiB pages");
			continue;
		}
		ok = 1;
		tests[i].fn();
		tap_result(ok, tests[i].name);
		failed += !ok;
	}
	return failed ? 1 : 0;
}
