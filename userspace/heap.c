// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps heap PID: the glibc malloc heaps of a process at chunk resolution,
 * as Ulrich Drepper's allocmap drew them.  The walk is the library's
 * (lib/heap.c, lib/heap_proc.c); this file holds the command and its
 * views:
 *
 *  - the map (default): each heap as rows of cells, a cell being eight
 *    16-byte allocation units (--scale N: N of them) at nine grey levels,
 *    from none of the eight in use (dark) to all eight (bright), in
 *    eighths of the cell; two cells per character, the upper half block
 *    U+2580 in the first one's grey over the second's.  Without colour a
 *    character is one cell: '.', a digit 1-7, or '#'.
 *  - --summary: per arena, its bytes by where they are.
 *  - --chunks: one line per chunk.
 *  - --json: schema "pmaps-heap/1", described in README.md.
 *  - --png FILE: the map as an image, through png.c as pmaps map's; its
 *    bands are the lines of the map in colour, each cell a square.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "heap.h"
#include "map.h"
#include "outfile.h"
#include "png.h"

#define LEVELS		8		/* grey levels 0..8: eighths */
#define DEFAULT_SCALE	8		/* units a cell: one a level */
/* Units a cell at most: 16 GiB, far from overflowing a row's bytes. */
#define MAX_SCALE	(1ULL << 30)
#define ROW_STEP	16		/* characters of a row: a multiple */
#define UPPER_HALF	"\xe2\x96\x80"

static const char heap_usage[] =
"Usage: pmaps heap [OPTION]... PID\n"
"Show the glibc malloc heaps of process PID at chunk resolution: every\n"
"arena (the main one with its sbrk heap, each thread's with its mmap'ed\n"
"heaps), which chunks are in use and which are free, and on which list,\n"
"and the chunks served by mmap.  Reads PID's memory, which needs what\n"
"/proc/PID/mem needs: root, or ptrace access to the process.\n"
"\n"
"Views (at most one; the default draws a map of each heap):\n"
"      --summary         per arena: heap size, bytes in use, free bytes,\n"
"                        free chunks and the largest, bytes in the top\n"
"                        chunk, in tcaches, fastbins and bins\n"
"      --chunks          one line per chunk: address, size, state\n"
"      --json            JSON (schema pmaps-heap/1)\n"
"      --png FILE        the map as a PNG image in FILE, a cell a square of\n"
"                        5x5 pixels, laid out as in colour (- for stdout,\n"
"                        but not a terminal)\n"
"\n"
"Options:\n"
"  -w, --width COLUMNS   fill this many columns (default: COLUMNS, else the\n"
"                        terminal's width, else 80)\n"
"  -s, --scale N         N allocation units of 16 bytes per cell of the map\n"
"                        (default 8), for a large heap; its grey is still\n"
"                        the fraction of them in use, in eighths\n"
"      --color[=WHEN]    auto (default: if stdout is a terminal and NO_COLOR\n"
"                        is unset or empty), always or never; without colour\n"
"                        a character is a digit, as the legend says\n"
"      --debug-dir DIR   look for the C library's debug symbols by build-id\n"
"                        under DIR (default: PMAPS_DEBUG_DIR, else\n"
"                        /usr/lib/debug); an empty directory shows what\n"
"                        pmaps heap finds without them\n"
"  -h, --help            show this help and exit\n"
"\n"
"In the map a cell is 8 allocation units of 16 bytes (or --scale's N), at\n"
"nine grey levels from none in use to all in use; a character is two cells\n"
"in colour, one without.  Chunks in a tcache, a fastbin or a bin, and the top chunk, are\n"
"free.  With debug symbols (Debian: libc6-dbg), main_arena and mp_ are\n"
"read from them; without, what the heaps show is used, and the output says\n"
"what could not be known.\n"
"\n"
"Exit status: 0 if all went well; 1 if the process could not be read; 2\n"
"for bad usage; 3 if its heap is glibc's but corrupted, in every read (the\n"
"message says where); 4 if it allocates with another allocator (jemalloc,\n"
"tcmalloc, mimalloc, Hoard, musl).\n";

enum view { VIEW_MAP, VIEW_SUMMARY, VIEW_CHUNKS, VIEW_JSON, VIEW_PNG };

enum {
	OPT_SUMMARY = 256,
	OPT_CHUNKS,
	OPT_JSON,
	OPT_PNG,
	OPT_COLOR,
	OPT_DEBUG_DIR,
};

static const struct option heap_options[] = {
	{ "summary",	no_argument,	   NULL, OPT_SUMMARY },
	{ "chunks",	no_argument,	   NULL, OPT_CHUNKS },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "png",	required_argument, NULL, OPT_PNG },
	{ "width",	required_argument, NULL, 'w' },
	{ "scale",	required_argument, NULL, 's' },
	{ "color",	optional_argument, NULL, OPT_COLOR },
	{ "debug-dir",	required_argument, NULL, OPT_DEBUG_DIR },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_heap_options = {
	.shortopts = "w:s:h",
	.longopts = heap_options,
};

struct heap_opts {
	enum view view;
	const char *view_option;
	const char *png_path;		/* --png */
	unsigned int width;
	unsigned long long scale;	/* allocation units a cell */
	bool color;
	const char *debug_dir;
	int pid;
	char label[80];
};

#define usage_error(...) pmaps_cmd_usage_error("heap", __VA_ARGS__)

/* ---- shared ---- */

static const char *arena_name(const struct pmaps_arena *a, char *buf,
			      size_t len)
{
	if (a->main && a->addr)
		snprintf(buf, len, "main arena 0x%" PRIx64, a->addr);
	else if (a->main)
		snprintf(buf, len, "main arena (address not known)");
	else
		snprintf(buf, len, "arena 0x%" PRIx64, a->addr);
	return buf;
}

/*
 * Where lines go: a stream, a PNG (the map's, a band a line, so that the
 * image is laid out as the coloured terminal's map is), or nowhere, a
 * first pass that measures the PNG.
 */
enum sink { TO_TEXT, TO_MEASURE, TO_PNG };

struct drawer {
	enum sink to;
	FILE *out;			/* TO_TEXT */
	struct pmaps_png *png;		/* TO_PNG */
	const struct heap_opts *o;
	int aw;				/* hex digits of an address */
	unsigned int chars;		/* characters of a row of the map */
	unsigned int per_char;		/* cells a character */
	unsigned long long lines;	/* TO_MEASURE: the lines ... */
	size_t text_chars;		/* ... and the longest's characters */
};

/* TO_MEASURE: one more line, of n characters. */
static void measure(struct drawer *d, size_t n)
{
	d->lines++;
	if (n > d->text_chars)
		d->text_chars = n;
}

static void put_line(struct drawer *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put_line(struct drawer *d, const char *fmt, ...)
{
	/* the longest: "LABEL: glibc V, layout from" and layout_from */
	char buf[1536];
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (d->to == TO_TEXT) {
		vfprintf(d->out, fmt, ap);
		fputc('\n', d->out);
	} else {
		n = vsnprintf(buf, sizeof(buf), fmt, ap);
		if (d->to == TO_PNG)
			pmaps_png_text_line(d->png, buf);
		else
			measure(d, n > 0 ? (size_t)n : 0);
	}
	va_end(ap);
}

static void print_head(struct drawer *d, const struct heap_opts *o,
		       const struct pmaps_heap_report *r)
{
	size_t i;

	put_line(d, "%s: glibc %s, layout from %s", o->label, r->version,
		 r->layout_from);
	for (i = 0; i < r->nr_notes; i++)
		put_line(d, "note: %s", r->notes[i]);
}

static int hex_digits(uint64_t v)
{
	int n = 1;

	while (v >>= 4)
		n++;
	return n;
}

/* Hex digits of the highest heap address, for the row labels. */
static int addr_width(const struct pmaps_heap_report *r)
{
	uint64_t hi = 0;
	size_t i, j;

	for (i = 0; i < r->nr_arenas; i++)
		for (j = 0; j < r->arenas[i].nr_heaps; j++)
			if (r->arenas[i].heaps[j].end > hi)
				hi = r->arenas[i].heaps[j].end;
	for (i = 0; i < r->nr_mmapped; i++)
		if (r->mmapped[i].addr > hi)
			hi = r->mmapped[i].addr;
	return hex_digits(hi);
}

/* ---- the map ---- */

/* xterm's grey ramp, 232 to 255, for levels 0..8 */
static int grey(unsigned int level)
{
	return 232 + (int)(level * 23 / LEVELS);
}

static char cell_letter(unsigned int level)
{
	return level == 0 ? '.' : level == LEVELS ? '#' : (char)('0' + level);
}

/*
 * The level of used units of a cell of scale: eighths in use, rounded,
 * but 0 only for none and 8 only for all, so that a cell with anything
 * in use, or anything free, never passes for empty or full.  At the
 * default scale, the units in use.
 */
static unsigned int cell_level(unsigned long long used,
			       unsigned long long scale)
{
	unsigned int l = (unsigned int)((used * LEVELS + scale / 2) / scale);

	if (used && !l)
		return 1;
	if (used < scale && l == LEVELS)
		return LEVELS - 1;
	return l;
}

/*
 * The level of the cell at *addr in h, whose units past the heap's end
 * count as not in use; moves *addr to the next cell.
 */
static unsigned int next_cell(const struct pmaps_heap_seg *h, uint64_t *addr,
			      unsigned long long scale, size_t *from)
{
	uint64_t left = (h->end - *addr) / PMAPS_HEAP_UNIT;
	unsigned int n = (unsigned int)(left < scale ? left : scale);
	unsigned int used = pmaps_heap_units_used(h, *addr, n, from);

	*addr += scale * PMAPS_HEAP_UNIT;
	return cell_level(used, scale);
}

/* Characters per row: a multiple of ROW_STEP that fits, at least one step. */
static unsigned int row_chars(const struct heap_opts *o, int aw)
{
	unsigned int avail = o->width > (unsigned int)aw + 3 ?
			     o->width - (unsigned int)aw - 3 : 0;

	avail -= avail % ROW_STEP;
	return avail ? avail : ROW_STEP;
}

/*
 * The PNG's geometry, map.c's: a band of PMAPS_PNG_LINE_PX pixel rows a
 * line; in a row of the map a character is a column CELL_PX wide, its
 * two cells squares one over the other, from the band's second pixel row.
 */
#define GLYPH_PX	PMAPS_PNG_GLYPH_PX
#define CELL_PX		5
#define SWATCH_PX	10

_Static_assert(1 + 2 * CELL_PX < PMAPS_PNG_LINE_PX, "two cells fit a band");

/* Palette index of a grey level. */
static unsigned char png_grey(unsigned int level)
{
	return (unsigned char)(PMAPS_PNG_COLORS + level);
}

/* What the legend's greys are, before them. */
static void legend_lead(const struct heap_opts *o, char *buf, size_t len)
{
	if (o->scale == DEFAULT_SCALE)
		snprintf(buf, len, "legend: units of 16 bytes in use of a cell's 8: ");
	else
		snprintf(buf, len, "legend: eighths in use of a cell's %llu units of 16 bytes: ",
			 o->scale);
}

static void put_legend(struct drawer *d)
{
	const struct heap_opts *o = d->o;
	unsigned long long cell = o->scale * PMAPS_HEAP_UNIT;
	char lead[128], tail[128];
	unsigned int l, x;

	if (d->to == TO_TEXT && !o->color) {
		fprintf(d->out, "legend: a character is a cell of %llu units of %d bytes (%llu bytes): '.' none in use, 1-7 that many%s, '#' all %llu\n",
			o->scale, PMAPS_HEAP_UNIT, cell,
			o->scale == DEFAULT_SCALE ? "" : " eighths of them",
			o->scale);
		return;
	}
	legend_lead(o, lead, sizeof(lead));
	/* what a character is on the terminal, and a pixel in the PNG */
	if (d->to == TO_TEXT)
		snprintf(tail, sizeof(tail), "; a character is two cells, %llu bytes",
			 2 * cell);
	else
		snprintf(tail, sizeof(tail), "; a cell is a square of %dx%d pixels, %llu bytes",
			 CELL_PX, CELL_PX, cell);
	/* a level is a swatch of two characters, its digit and a blank */
	switch (d->to) {
	case TO_TEXT:
		fputs(lead, d->out);
		for (l = 0; l <= LEVELS; l++)
			fprintf(d->out, "\033[48;5;%dm  \033[0m%u ", grey(l), l);
		fprintf(d->out, "%s\n", tail);
		break;
	case TO_MEASURE:
		measure(d, strlen(lead) + 4 * (LEVELS + 1) + strlen(tail));
		break;
	case TO_PNG:
		pmaps_png_text(d->png, 0, lead);
		x = (unsigned int)strlen(lead) * GLYPH_PX;
		for (l = 0; l <= LEVELS; l++, x += 4 * GLYPH_PX) {
			char digit[2] = { (char)('0' + l), '\0' };

			pmaps_png_fill(d->png, x, 1, SWATCH_PX, SWATCH_PX,
				       png_grey(l));
			pmaps_png_text(d->png, x + 2 * GLYPH_PX, digit);
		}
		pmaps_png_text(d->png, x, tail);
		pmaps_png_band(d->png);
		break;
	}
}

/* The row of h's map from address row on, its cells from *from on. */
static void put_row(struct drawer *d, const struct pmaps_heap_seg *h,
		    uint64_t row, size_t *from)
{
	const struct heap_opts *o = d->o;
	unsigned int x = ((unsigned int)d->aw + 3) * GLYPH_PX, i;
	uint64_t addr = row;
	char label[32];

	if (d->to == TO_MEASURE) {
		d->lines++;
		return;
	}
	if (d->to == TO_TEXT)
		fprintf(d->out, "  %0*" PRIx64 " ", d->aw, row);
	else {
		snprintf(label, sizeof(label), "  %0*" PRIx64, d->aw, row);
		pmaps_png_text(d->png, 0, label);
	}
	for (i = 0; i < d->chars && addr < h->end; i++, x += CELL_PX) {
		unsigned int lv[2] = { 0, 0 }, k;
		bool second = false;

		for (k = 0; k < d->per_char && addr < h->end; k++) {
			lv[k] = next_cell(h, &addr, o->scale, from);
			second = k == 1;
		}
		if (d->to == TO_PNG) {
			pmaps_png_fill(d->png, x, 1, CELL_PX, CELL_PX,
				       png_grey(lv[0]));
			if (second)
				pmaps_png_fill(d->png, x, 1 + CELL_PX, CELL_PX,
					       CELL_PX, png_grey(lv[1]));
		} else if (!o->color) {
			fputc(cell_letter(lv[0]), d->out);
		} else if (second) {
			fprintf(d->out, "\033[38;5;%dm\033[48;5;%dm" UPPER_HALF,
				grey(lv[0]), grey(lv[1]));
		} else {
			fprintf(d->out, "\033[38;5;%dm\033[49m" UPPER_HALF,
				grey(lv[0]));
		}
	}
	if (d->to == TO_PNG)
		pmaps_png_band(d->png);
	else
		fputs(o->color ? "\033[0m\n" : "\n", d->out);
}

static void map_heap(struct drawer *d, const struct pmaps_heap_seg *h)
{
	uint64_t row_bytes = (uint64_t)d->chars * d->per_char * d->o->scale *
			     PMAPS_HEAP_UNIT;
	uint64_t row;
	size_t from = 0;

	put_line(d, "heap 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes, %zu chunks)",
		 h->start, h->end, h->end - h->start, h->nr_chunks);
	/* measured without walking: a large --scale 1 map has many rows */
	if (d->to == TO_MEASURE) {
		d->lines += (h->end - h->start + row_bytes - 1) / row_bytes;
		return;
	}
	for (row = h->start; row < h->end; row += row_bytes)
		put_row(d, h, row, &from);
}

static void print_mmapped(struct drawer *d, const struct pmaps_heap_report *r,
			  int aw)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < r->nr_mmapped; i++)
		bytes += r->mmapped[i].size;
	put_line(d, "chunks served by mmap: %zu, %" PRIu64 " bytes",
		 r->nr_mmapped, bytes);
	for (i = 0; i < r->nr_mmapped; i++)
		put_line(d, "  %0*" PRIx64 " %12" PRIu64, aw,
			 r->mmapped[i].addr, r->mmapped[i].size);
}

/* A drawer of the map to d->to; two cells a character in colour and PNG. */
static void drawer_init(struct drawer *d, enum sink to,
			const struct heap_opts *o,
			const struct pmaps_heap_report *r)
{
	memset(d, 0, sizeof(*d));
	d->to = to;
	d->o = o;
	d->aw = addr_width(r);
	d->chars = row_chars(o, d->aw);
	d->per_char = to != TO_TEXT || o->color ? 2 : 1;
}

static void draw_map(struct drawer *d, const struct pmaps_heap_report *r)
{
	char name[64];
	size_t i, j;

	print_head(d, d->o, r);
	put_legend(d);
	for (i = 0; i < r->nr_arenas; i++) {
		const struct pmaps_arena *a = &r->arenas[i];

		put_line(d, "%s", "");
		put_line(d, "%s: %" PRIu64 " bytes in use, %" PRIu64 " free",
			 arena_name(a, name, sizeof(name)), a->stats.used,
			 a->stats.free);
		for (j = 0; j < a->nr_heaps; j++)
			map_heap(d, &a->heaps[j]);
	}
	put_line(d, "%s", "");
	print_mmapped(d, r, d->aw);
}

static void view_map(FILE *out, const struct heap_opts *o,
		     const struct pmaps_heap_report *r)
{
	struct drawer d;

	drawer_init(&d, TO_TEXT, o, r);
	d.out = out;
	draw_map(&d, r);
}

/* ---- --png ---- */

/*
 * Write the map as a PNG to f.  Return 0; -1 with a message in err when
 * the image cannot be made (too tall, out of memory); or, when writing f
 * failed, the errno value.
 */
static int heap_png(FILE *f, const struct heap_opts *o,
		    const struct pmaps_heap_report *r, char *err,
		    size_t errlen)
{
	unsigned char rgb[LEVELS + 1][3];
	unsigned int width, height, l;
	struct drawer d;

	drawer_init(&d, TO_MEASURE, o, r);
	draw_map(&d, r);
	if (d.lines > PMAPS_PNG_MAX_HEIGHT / PMAPS_PNG_LINE_PX) {
		snprintf(err, errlen, "the image would be %llu pixels tall, more than %u: use a larger --scale",
			 d.lines * PMAPS_PNG_LINE_PX, PMAPS_PNG_MAX_HEIGHT);
		return -1;
	}
	/* as wide as the rows of cells, or the longest line of text */
	width = ((unsigned int)d.aw + 3) * GLYPH_PX + d.chars * CELL_PX +
		GLYPH_PX;
	if (d.text_chars > PMAPS_PNG_MAX_TEXT_CHARS)
		d.text_chars = PMAPS_PNG_MAX_TEXT_CHARS;
	if (d.text_chars * GLYPH_PX > width)
		width = (unsigned int)d.text_chars * GLYPH_PX;
	/* the terminal's greys: xterm's 232 + k are 8 + 10 k */
	for (l = 0; l <= LEVELS; l++)
		memset(rgb[l], 8 + 10 * (grey(l) - 232), 3);
	height = (unsigned int)d.lines * PMAPS_PNG_LINE_PX;
	drawer_init(&d, TO_PNG, o, r);
	d.png = pmaps_png_open(f, width, height, rgb[0], LEVELS + 1, err,
			       errlen);
	if (!d.png)
		return -1;
	draw_map(&d, r);
	return pmaps_png_close(d.png, err, errlen);
}

/* The PNG to o->png_path, or stdout for "-"; an exit status. */
static int view_png(const struct heap_opts *o,
		    const struct pmaps_heap_report *r)
{
	bool is_stdout = !strcmp(o->png_path, "-");
	struct pmaps_outfile out;
	char err[PATH_MAX * 2 + 128];
	int ret, st = PMAPS_OK;
	FILE *f = stdout;

	if (!is_stdout) {
		if (pmaps_outfile_open(&out, o->png_path, 0666, err,
				       sizeof(err))) {
			fprintf(stderr, "pmaps heap: %s\n", err);
			return PMAPS_ERR_TARGET;
		}
		f = pmaps_outfile_stream(&out);
		if (!f) {
			fprintf(stderr, "pmaps heap: %s: %s\n", o->png_path,
				strerror(errno));
			pmaps_outfile_abort(&out);
			return PMAPS_ERR_TARGET;
		}
	}
	ret = heap_png(f, o, r, err, sizeof(err));
	if (ret > 0 && is_stdout) {
		fprintf(stderr, "pmaps heap: write error: %s\n", strerror(ret));
		st = PMAPS_ERR_TARGET;
	} else if (ret) {
		fprintf(stderr, "pmaps heap: %s: %s\n", o->png_path,
			ret > 0 ? strerror(ret) : err);
		st = PMAPS_ERR_TARGET;
	}
	if (is_stdout)
		return st;
	/* no half image in place of what was there */
	if (ret) {
		pmaps_outfile_abort(&out);
	} else if (pmaps_outfile_commit(&out, NULL, err, sizeof(err))) {
		fprintf(stderr, "pmaps heap: %s\n", err);
		st = PMAPS_ERR_TARGET;
	}
	return st;
}

/* ---- --chunks ---- */

static void view_chunks(FILE *out, const struct heap_opts *o,
			const struct pmaps_heap_report *r)
{
	struct drawer d = { .to = TO_TEXT, .out = out };
	int aw = addr_width(r);
	char name[64];
	size_t i, j, k;

	print_head(&d, o, r);
	for (i = 0; i < r->nr_arenas; i++) {
		const struct pmaps_arena *a = &r->arenas[i];

		fprintf(out, "%s\n", arena_name(a, name, sizeof(name)));
		for (j = 0; j < a->nr_heaps; j++) {
			const struct pmaps_heap_seg *h = &a->heaps[j];

			fprintf(out, "heap 0x%" PRIx64 "-0x%" PRIx64 "\n",
				h->start, h->end);
			for (k = 0; k < h->nr_chunks; k++)
				fprintf(out, "  %0*" PRIx64 " %10" PRIu64 " %s\n",
					aw, h->chunks[k].addr,
					h->chunks[k].size,
					pmaps_chunk_kind_name(h->chunks[k].kind));
		}
	}
	print_mmapped(&d, r, aw);
}

/* ---- --summary ---- */

static void view_summary(FILE *out, const struct heap_opts *o,
			 const struct pmaps_heap_report *r)
{
	struct drawer d = { .to = TO_TEXT, .out = out };
	char name[64];
	size_t i;

	print_head(&d, o, r);
	fprintf(out, "%-32s %5s %10s %10s %10s %6s %10s %10s %10s %9s %10s\n",
		"Arena", "Heaps", "HeapSize", "InUse", "Free", "Chunks",
		"Largest", "Top", "Tcache", "Fastbins", "Bins");
	for (i = 0; i < r->nr_arenas; i++) {
		const struct pmaps_arena *a = &r->arenas[i];
		const struct pmaps_arena_stats *s = &a->stats;

		fprintf(out, "%-32s %5zu %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %6" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %9" PRIu64 " %10" PRIu64 "\n",
			arena_name(a, name, sizeof(name)), a->nr_heaps,
			s->heap_size, s->used, s->free, s->nr_free,
			s->largest_free, s->top, s->tcache, s->fastbins,
			s->bins);
		if (s->unlisted)
			fprintf(out, "  %" PRIu64 " free bytes on no list that could be read\n",
				s->unlisted);
	}
	print_mmapped(&d, r, hex_digits(0));
}

/* ---- --json ---- */

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void view_json(FILE *out, const struct heap_opts *o,
		      const struct pmaps_heap_report *r)
{
	size_t i, j, k;

	fprintf(out, "{\"schema\": \"pmaps-heap/1\",\n \"pid\": %d,\n \"label\": ",
		o->pid);
	json_string(out, o->label);
	fputs(",\n \"glibc\": ", out);
	json_string(out, r->version);
	fputs(",\n \"layout_from\": ", out);
	json_string(out, r->layout_from);
	fputs(",\n \"notes\": [", out);
	for (i = 0; i < r->nr_notes; i++) {
		fputs(i ? ", " : "", out);
		json_string(out, r->notes[i]);
	}
	fputs("],\n \"arenas\": [", out);
	for (i = 0; i < r->nr_arenas; i++) {
		const struct pmaps_arena *a = &r->arenas[i];
		const struct pmaps_arena_stats *s = &a->stats;

		fputs(i ? ",\n  {" : "\n  {", out);
		if (a->addr)
			fprintf(out, "\"address\": \"0x%" PRIx64 "\"", a->addr);
		else
			fputs("\"address\": null", out);
		fprintf(out, ", \"main\": %s, \"lists_read\": %s,\n   \"heap_size\": %" PRIu64 ", \"in_use\": %" PRIu64 ", \"free\": %" PRIu64 ", \"free_chunks\": %" PRIu64 ", \"largest_free\": %" PRIu64 ", \"top\": %" PRIu64 ", \"tcache\": %" PRIu64 ", \"fastbins\": %" PRIu64 ", \"bins\": %" PRIu64 ", \"unlisted\": %" PRIu64 ",\n   \"heaps\": [",
			a->main ? "true" : "false",
			a->state_read ? "true" : "false", s->heap_size,
			s->used, s->free, s->nr_free, s->largest_free, s->top,
			s->tcache, s->fastbins, s->bins, s->unlisted);
		for (j = 0; j < a->nr_heaps; j++) {
			const struct pmaps_heap_seg *h = &a->heaps[j];

			fprintf(out, "%s{\"start\": \"0x%" PRIx64 "\", \"end\": \"0x%" PRIx64 "\", \"chunks\": [",
				j ? ",\n    " : "\n    ", h->start, h->end);
			for (k = 0; k < h->nr_chunks; k++)
				fprintf(out, "%s{\"address\": \"0x%" PRIx64 "\", \"size\": %" PRIu64 ", \"state\": \"%s\"}",
					k ? ",\n      " : "\n      ",
					h->chunks[k].addr, h->chunks[k].size,
					pmaps_chunk_kind_name(h->chunks[k].kind));
			fputs("]}", out);
		}
		fputs("]}", out);
	}
	fputs("],\n \"mmapped\": [", out);
	for (i = 0; i < r->nr_mmapped; i++)
		fprintf(out, "%s{\"address\": \"0x%" PRIx64 "\", \"size\": %" PRIu64 "}",
			i ? ", " : "", r->mmapped[i].addr, r->mmapped[i].size);
	fputs("]}\n", out);
}

/* ---- the command ---- */

static int set_view(struct heap_opts *o, enum view v, const char *name)
{
	if (o->view_option && strcmp(o->view_option, name))
		return usage_error("%s and %s: expected at most one view",
				   o->view_option, name);
	o->view = v;
	o->view_option = name;
	return PMAPS_OK;
}

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct heap_opts *o)
{
	static char prog_name[] = "pmaps heap";
	enum pmaps_color_when when = PMAPS_COLOR_AUTO;
	unsigned long long val;
	int opt, st;

	argv[0] = prog_name;	/* getopt_long's messages name it */
	o->debug_dir = getenv("PMAPS_DEBUG_DIR");
	if (o->debug_dir && !*o->debug_dir)
		o->debug_dir = NULL;
	while ((opt = getopt_long(argc, argv, pmaps_heap_options.shortopts,
				  heap_options, NULL)) != -1) {
		st = PMAPS_OK;
		switch (opt) {
		case OPT_SUMMARY:
			st = set_view(o, VIEW_SUMMARY, "--summary");
			break;
		case OPT_CHUNKS:
			st = set_view(o, VIEW_CHUNKS, "--chunks");
			break;
		case OPT_JSON:
			st = set_view(o, VIEW_JSON, "--json");
			break;
		case OPT_PNG:
			st = set_view(o, VIEW_PNG, "--png");
			o->png_path = optarg;
			break;
		case 'w':
			if (!pmaps_number_parse(optarg, 1, 100000, &val))
				return usage_error("--width: expected a number of columns, got '%s'",
						   optarg);
			o->width = (unsigned int)val;
			break;
		case 's':
			if (!pmaps_number_parse(optarg, 1, MAX_SCALE, &val))
				return usage_error("--scale: expected a number of 16-byte units from 1 to %llu, got '%s'",
						   MAX_SCALE, optarg);
			o->scale = val;
			break;
		case OPT_COLOR:
			if (pmaps_color_parse(optarg, &when))
				return usage_error("--color: expected auto, always or never, got '%s'",
						   optarg);
			break;
		case OPT_DEBUG_DIR:
			o->debug_dir = optarg;
			break;
		case 'h':
			fputs(heap_usage, stdout);
			return PMAPS_OK;
		default:
			/* getopt_long has said what was wrong */
			return pmaps_cmd_usage_hint("heap");
		}
		if (st)
			return st;
	}
	if (optind >= argc)
		return usage_error("expected a PID");
	if (optind + 1 < argc)
		return usage_error("expected one PID, got '%s' too",
				   argv[optind + 1]);
	if (!pmaps_parse_pid(argv[optind], &o->pid))
		return usage_error("expected a PID, got '%s'", argv[optind]);
	o->pid = pmaps_cmd_tgid("heap", o->pid);
	/* binary on a terminal is garbage, and may drive it: as map refuses */
	if (o->view == VIEW_PNG && !strcmp(o->png_path, "-") &&
	    isatty(STDOUT_FILENO))
		return usage_error("--png -: not writing a PNG image to a terminal; redirect standard output, or give a FILE");
	if (!o->width)
		o->width = pmaps_term_width();
	o->color = pmaps_color_wanted(when);
	return -1;
}

int pmaps_cmd_heap(int argc, char **argv)
{
	struct heap_opts o = { .view = VIEW_MAP, .scale = DEFAULT_SCALE };
	struct pmaps_heap_report r;
	char err[2048];
	int st;

	st = parse_args(argc, argv, &o);
	if (st >= 0) {
		if (fflush(stdout)) {
			fprintf(stderr, "pmaps heap: write error: %s\n",
				strerror(errno));
			return PMAPS_ERR_TARGET;
		}
		return st;
	}
	st = pmaps_check_memory(o.pid, err, sizeof(err));
	if (st) {
		pmaps_cmd_report("heap", err);
		return st;
	}
	st = pmaps_heap_read_pid(o.pid, o.debug_dir, &r, err, sizeof(err));
	if (st) {
		fprintf(stderr, "pmaps heap: %s\n", err);
		return st == PMAPS_HEAP_ERR_CORRUPT ? PMAPS_ERR_HEAP_CORRUPT :
		       st == PMAPS_HEAP_ERR_FOREIGN ? PMAPS_ERR_HEAP_FOREIGN :
		       PMAPS_ERR_TARGET;
	}
	pmaps_pid_label(o.label, sizeof(o.label), o.pid);
	switch (o.view) {
	case VIEW_MAP:
		view_map(stdout, &o, &r);
		break;
	case VIEW_SUMMARY:
		view_summary(stdout, &o, &r);
		break;
	case VIEW_CHUNKS:
		view_chunks(stdout, &o, &r);
		break;
	case VIEW_JSON:
		view_json(stdout, &o, &r);
		break;
	case VIEW_PNG:
		st = view_png(&o, &r);
		break;
	}
	pmaps_heap_report_free(&r);
	/* a full disk must not pass for success; --png said so already */
	if (!st && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, "pmaps heap: write error: %s\n",
			strerror(errno ? errno : EIO));
		return PMAPS_ERR_TARGET;
	}
	return st;
}
