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
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "heap.h"
#include "map.h"

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
"Exit status: 0 if all went well; 1 if the process could not be read, or\n"
"its heap is not glibc's or is corrupted (the message says where); 2 for\n"
"bad usage.\n";

enum view { VIEW_MAP, VIEW_SUMMARY, VIEW_CHUNKS, VIEW_JSON };

enum {
	OPT_SUMMARY = 256,
	OPT_CHUNKS,
	OPT_JSON,
	OPT_COLOR,
	OPT_DEBUG_DIR,
};

static const struct option heap_options[] = {
	{ "summary",	no_argument,	   NULL, OPT_SUMMARY },
	{ "chunks",	no_argument,	   NULL, OPT_CHUNKS },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "width",	required_argument, NULL, 'w' },
	{ "scale",	required_argument, NULL, 's' },
	{ "color",	optional_argument, NULL, OPT_COLOR },
	{ "debug-dir",	required_argument, NULL, OPT_DEBUG_DIR },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct heap_opts {
	enum view view;
	const char *view_option;
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

static void print_head(FILE *out, const struct heap_opts *o,
		       const struct pmaps_heap_report *r)
{
	size_t i;

	fprintf(out, "%s: glibc %s, layout from %s\n", o->label, r->version,
		r->layout_from);
	for (i = 0; i < r->nr_notes; i++)
		fprintf(out, "note: %s\n", r->notes[i]);
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

static void map_legend(FILE *out, const struct heap_opts *o)
{
	unsigned long long cell = o->scale * PMAPS_HEAP_UNIT;
	unsigned int l;

	if (!o->color) {
		fprintf(out, "legend: a character is a cell of %llu units of %d bytes (%llu bytes): '.' none in use, 1-7 that many%s, '#' all %llu\n",
			o->scale, PMAPS_HEAP_UNIT, cell,
			o->scale == DEFAULT_SCALE ? "" : " eighths of them",
			o->scale);
		return;
	}
	if (o->scale == DEFAULT_SCALE)
		fputs("legend: units of 16 bytes in use of a cell's 8: ", out);
	else
		fprintf(out, "legend: eighths in use of a cell's %llu units of 16 bytes: ",
			o->scale);
	for (l = 0; l <= LEVELS; l++)
		fprintf(out, "\033[48;5;%dm  \033[0m%u ", grey(l), l);
	fprintf(out, "; a character is two cells, %llu bytes\n", 2 * cell);
}

static void map_heap(FILE *out, const struct heap_opts *o,
		     const struct pmaps_heap_seg *h, int aw)
{
	unsigned int chars = row_chars(o, aw), per_char = o->color ? 2 : 1;
	uint64_t row_bytes = (uint64_t)chars * per_char * o->scale *
			     PMAPS_HEAP_UNIT;
	uint64_t row, addr;
	size_t from = 0;

	fprintf(out, "heap 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes, %zu chunks)\n",
		h->start, h->end, h->end - h->start, h->nr_chunks);
	for (row = h->start; row < h->end; row += row_bytes) {
		unsigned int i;

		fprintf(out, "  %0*" PRIx64 " ", aw, row);
		for (i = 0, addr = row; i < chars && addr < h->end; i++) {
			unsigned int lv[2] = { 0, 0 }, k;
			bool second = false;

			for (k = 0; k < per_char && addr < h->end; k++) {
				lv[k] = next_cell(h, &addr, o->scale, &from);
				second = k == 1;
			}
			if (!o->color)
				fputc(cell_letter(lv[0]), out);
			else if (second)
				fprintf(out, "\033[38;5;%dm\033[48;5;%dm" UPPER_HALF,
					grey(lv[0]), grey(lv[1]));
			else
				fprintf(out, "\033[38;5;%dm\033[49m" UPPER_HALF,
					grey(lv[0]));
		}
		fputs(o->color ? "\033[0m\n" : "\n", out);
	}
}

static void print_mmapped(FILE *out, const struct pmaps_heap_report *r,
			  int aw)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < r->nr_mmapped; i++)
		bytes += r->mmapped[i].size;
	fprintf(out, "chunks served by mmap: %zu, %" PRIu64 " bytes\n",
		r->nr_mmapped, bytes);
	for (i = 0; i < r->nr_mmapped; i++)
		fprintf(out, "  %0*" PRIx64 " %12" PRIu64 "\n", aw,
			r->mmapped[i].addr, r->mmapped[i].size);
}

static void view_map(FILE *out, const struct heap_opts *o,
		     const struct pmaps_heap_report *r)
{
	int aw = addr_width(r);
	char name[64];
	size_t i, j;

	print_head(out, o, r);
	map_legend(out, o);
	for (i = 0; i < r->nr_arenas; i++) {
		const struct pmaps_arena *a = &r->arenas[i];

		fprintf(out, "\n%s: %" PRIu64 " bytes in use, %" PRIu64 " free\n",
			arena_name(a, name, sizeof(name)), a->stats.used,
			a->stats.free);
		for (j = 0; j < a->nr_heaps; j++)
			map_heap(out, o, &a->heaps[j], aw);
	}
	fputc('\n', out);
	print_mmapped(out, r, aw);
}

/* ---- --chunks ---- */

static void view_chunks(FILE *out, const struct heap_opts *o,
			const struct pmaps_heap_report *r)
{
	int aw = addr_width(r);
	char name[64];
	size_t i, j, k;

	print_head(out, o, r);
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
	print_mmapped(out, r, aw);
}

/* ---- --summary ---- */

static void view_summary(FILE *out, const struct heap_opts *o,
			 const struct pmaps_heap_report *r)
{
	char name[64];
	size_t i;

	print_head(out, o, r);
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
	print_mmapped(out, r, hex_digits(0));
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
	while ((opt = getopt_long(argc, argv, "w:s:h", heap_options,
				  NULL)) != -1) {
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
	if (pmaps_heap_read_pid(o.pid, o.debug_dir, &r, err, sizeof(err))) {
		fprintf(stderr, "pmaps heap: %s\n", err);
		return PMAPS_ERR_TARGET;
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
	}
	pmaps_heap_report_free(&r);
	/* a full disk must not pass for success */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmaps heap: write error: %s\n",
			strerror(errno ? errno : EIO));
		return PMAPS_ERR_TARGET;
	}
	return st;
}
