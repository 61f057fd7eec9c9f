/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page picture of "pmaps map" (map.c), which "pmaps watch --map" draws
 * too, and the terminal width the two commands fill.
 */
#ifndef PMAPS_MAP_H
#define PMAPS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* What happened to pages since watch's previous frame, weakest first. */
enum pmaps_change_mark {
	PMAPS_CHANGE_NONE,
	PMAPS_CHANGE_YOUNG,	/* 'Y': became young */
	PMAPS_CHANGE_DIRTY,	/* 'D': became dirty (D or P) */
	PMAPS_CHANGE_APPEARED,	/* '+': resident now, not before */
	PMAPS_CHANGE_VANISHED,	/* '-': resident before, not now */
	PMAPS_CHANGE_NR
};

/* The letter of each mark: " YD+-". */
extern const char pmaps_change_letters[PMAPS_CHANGE_NR + 1];

/* Pages [start, end), byte addresses, that changed alike. */
struct pmaps_change {
	unsigned long long start, end;
	enum pmaps_change_mark mark;
};

/* Pages per cell at most: a row of them stays far from 2^64 pages. */
#define PMAPS_MAP_MAX_SCALE	(1ULL << 40)

/* What a cell's colour says (--by). */
enum pmaps_map_by {
	PMAPS_MAP_BY_STATE,	/* the page state: the default */
	PMAPS_MAP_BY_NODE,	/* the range's NUMA node (NODE column) */
	PMAPS_MAP_BY_SIZE,	/* the range's folio size class (KB column) */
	PMAPS_MAP_BY_AGE,	/* the range's MGLRU age (AGE column) */
};

struct pmaps_map_opts {
	bool color;
	enum pmaps_map_by by;
	unsigned int width;		/* columns to fill */
	unsigned long long scale;	/* pages per cell; 0: per VMA, automatic */
	/* watch: changes in address order, each drawn over its cells */
	const struct pmaps_change *changes;
	size_t nr_changes;
	/*
	 * --areas, --flags and --range, already applied to the document, or
	 * NULL: what the picture does about what they left out (map.c).
	 */
	const struct pmaps_filter *filter;
};

/*
 * Draw doc: a title, the legend, then each VMA as rows of cells labelled
 * with their address.  Return 0, or -1 with errno set if writing failed.
 */
int pmaps_map_draw(FILE *out, const struct pmaps_map_opts *opts,
		   const struct pmaps_doc *doc);

/* Columns for the picture: COLUMNS, else stdout's terminal, else 80. */
unsigned int pmaps_term_width(void);

#endif /* PMAPS_MAP_H */
