/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmaps top: what the screen shows (top_model.c), kept apart from the
 * drawing and the keys (top.c) so that none of it needs a terminal.
 *
 * The list, the per-page detail and the hex dump are texts with a line
 * index: the list and the detail are pmaps_view() output, so the TUI shows
 * exactly what "pmaps PID" and "pmaps --address ADDR PID" print.
 */
#ifndef PMAPS_TOP_H
#define PMAPS_TOP_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* A text and where its lines start; a line's '\n' is not part of it. */
struct top_text {
	char *buf;
	size_t len;
	size_t *starts;
	size_t nr_lines;
};

/* A copy of the string s as a text.  Return 0, or -1 with errno set. */
int top_text_set(struct top_text *t, const char *s);
/* Line i (< t->nr_lines) of t, *len bytes long. */
const char *top_text_line(const struct top_text *t, size_t i, size_t *len);
void top_text_free(struct top_text *t);

/*
 * pmaps_view() of doc, no colour, into t.  Return 0, or -1 with errno set
 * (also when opts->kind is PMAPS_VIEW_ADDRESS and no VMA holds the address:
 * t then holds what the view said).
 */
int top_text_view(struct top_text *t, const struct pmaps_view_opts *opts,
		  struct pmaps_doc *doc);

/* The list: a row per VMA header and per range, in address order. */
#define TOP_NO_RANGE ((size_t)-1)

struct top_row {
	size_t vma;
	size_t range;		/* TOP_NO_RANGE for the VMA's header */
};

struct top_list {
	struct top_text text;	/* default view: title, rows, total line */
	struct top_row *rows;	/* row i is line i + 1 of text */
	size_t nr_rows;
	size_t *vma_row;	/* header row of each VMA */
	const struct pmaps_map *map;	/* what the rows index */
};

/*
 * The default view of doc's label and source with the VMAs of map (doc's
 * own, or a filtered copy).  Return 0, or -1 with a message in err.
 */
int top_list_build(struct top_list *l, const struct pmaps_doc *doc,
		   const struct pmaps_map *map, char *err, size_t errlen);
void top_list_free(struct top_list *l);

/* The page a row stands for: its range's first page, or its VMA's. */
unsigned long long top_row_addr(const struct top_list *l, size_t row);

/*
 * The row of the range holding addr, else the header of the VMA holding
 * it; false if no VMA of the list holds it.
 */
bool top_list_find_addr(const struct top_list *l, unsigned long long addr,
			size_t *row);

/*
 * The header row of the first VMA after row from (wrapping around, from
 * itself last) whose name contains s; false if none.
 */
bool top_list_find_name(const struct top_list *l, size_t from, const char *s,
			size_t *row);

/* True if a range of map holds the page at addr. */
bool top_map_resident(const struct pmaps_map *map, unsigned long long addr);

/*
 * A copy of src with only what --flags with these terms keeps (filter.c
 * decides).  Return 0, or -1 when out of memory (dst is then empty).
 */
int top_map_filter(const struct pmaps_map *src,
		   const struct pmaps_flag_expr *expr, struct pmaps_map *dst);

/* Memory statistics of a process, from /proc/PID/status and stat. */
enum top_status_field {
	TOP_VMRSS, TOP_RSSANON, TOP_RSSFILE, TOP_RSSSHMEM, TOP_VMSWAP,
	TOP_VMHWM, TOP_NR_FIELDS
};

struct top_stats {
	bool ok;			/* status and stat were read */
	long long kb[TOP_NR_FIELDS];	/* -1 when status lacks the line */
	unsigned long long minflt, majflt;
	char err[160];			/* why not, when !ok */
};

/* "VmRSS", ... as /proc/PID/status names them. */
extern const char *const top_status_names[TOP_NR_FIELDS];

void top_stats_read(int pid, struct top_stats *s);

/*
 * The hex and ASCII dump of the page at addr of process pid, read from
 * /proc/PID/mem, into t; runs of identical lines collapse into "*" as in
 * hexdump -C.  Addresses are aw hex digits wide.  resident says whether
 * the document lists the page (if not, the read may have faulted it in).
 * Return 0, or -1 with "cannot read page 0x...: REASON (HINT)" in err.
 */
int top_dump_page(struct top_text *t, int pid, unsigned long long addr,
		  int aw, bool resident, char *err, size_t errlen);

/* Text of the help screen, also the end of "pmaps top --help". */
extern const char top_keys_help[];

#endif /* PMAPS_TOP_H */
