/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of the pmaps front end: where a document comes from
 * (source.c), what of it is kept (filter.c) and how it is shown (view.c).
 * pmaps.c parses the command line and ties them together.
 */
#ifndef PMAPS_CLI_H
#define PMAPS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmaps.h"

/* ---- sources (source.c) ---- */

enum pmaps_source {
	PMAPS_SRC_AUTO,		/* the first of the three below that works */
	PMAPS_SRC_KERNEL,	/* /proc/PID/pmaps, from the patch series */
	PMAPS_SRC_MODULE,	/* /proc/pmaps_ext/PID, from the module */
	PMAPS_SRC_PAGEMAP,	/* built from pagemap (+ kpageflags as root) */
	PMAPS_SRC_FILE,		/* a saved document, or "-" for stdin */
};

/* Name used by --source= and in messages: "kernel", "module", ... */
const char *pmaps_source_name(enum pmaps_source src);
/* Parse a --source= value; -1 if unknown. */
int pmaps_source_parse(const char *name, enum pmaps_source *src);

/* One loaded target: a process or a file. */
struct pmaps_doc {
	char label[80];		/* "1234 (nginx)" or the file name */
	int pid;		/* 0 for files */
	enum pmaps_source source; /* the one that was used */
	char how[64];		/* how the pagemap source read it, or "" */
	char *text;		/* the text as read; for the pagemap source,
				 * the model printed in the same format */
	size_t text_len;
	struct pmaps_map map;
	/*
	 * A loaded file's warning ("pmaps: FILE: warning: ..."), or "": left
	 * to the caller, as top must not write it over its screen.
	 */
	char warning[320];
};

/*
 * The source for a view's header: its name, and for the pagemap source how
 * it read ("pagemap (PAGEMAP_SCAN, without root)").
 */
const char *pmaps_doc_source(const struct pmaps_doc *doc, char *buf,
			     size_t len);

/*
 * --numa: read the NUMA files (/proc/PID/pmaps_numa,
 * /proc/pmaps_ext/numa/PID), whose ranges carry NODE and KB.
 */
extern bool pmaps_source_numa;

/* Exit statuses, also returned by the loaders. */
enum pmaps_status {
	PMAPS_OK = 0,
	PMAPS_ERR_TARGET = 1,	/* no such process, permission, no source */
	PMAPS_ERR_INPUT = 2,	/* malformed text, bad usage */
	/* pmaps heap: not "cannot read", which another try may mend */
	PMAPS_ERR_HEAP_CORRUPT = 3,	/* glibc's heap, corrupted */
	PMAPS_ERR_HEAP_FOREIGN = 4,	/* another allocator than glibc's */
};

/*
 * Load process pid from src (PMAPS_SRC_AUTO tries kernel, module, then
 * pagemap).  On failure return the status and write into err a message
 * meant for the user, e.g. "pmaps: no process 1234", or a permission
 * message saying what would work, or, for AUTO, every source tried and
 * why it failed.
 */
enum pmaps_status pmaps_load_pid(int pid, enum pmaps_source src,
				 struct pmaps_doc *doc, char *err,
				 size_t errlen);
/*
 * The process (thread group) that thread pid belongs to; pid itself for
 * a process, or when it cannot be told.  pmaps_load_pid() reads a
 * thread's process as that process (doc->pid, the label) and says so in
 * doc->warning.
 */
int pmaps_tgid(int pid);
/*
 * For a command that takes one PID: the process of thread pid, said on
 * stderr as "pmaps COMMAND: TID is a thread of process PID: reading
 * process PID"; pid itself for a process.
 */
int pmaps_cmd_tgid(const char *command, int pid);
/* A PID argument: decimal digits only, as /proc names processes. */
bool pmaps_parse_pid(const char *s, int *pid);

/*
 * PMAPS_ERR_TARGET with a message in err when process pid is a kernel
 * thread or a zombie, which have no user memory to read; else PMAPS_OK.
 */
enum pmaps_status pmaps_check_memory(int pid, char *err, size_t errlen);

/*
 * Whether the caller may not read process pid at all (another user's,
 * without root or ptrace access): -p NAME sums such processes up in one
 * line instead of saying each source's refusal for each.
 */
bool pmaps_pid_denied(int pid);
/*
 * That line: "pmaps[ COMMAND]: N processes named NAME not readable: run
 * as root" on stderr.
 */
void pmaps_report_denied(const char *command, int nr, const char *name);

/* An option's number: decimal digits only, in [min, max]. */
bool pmaps_number_parse(const char *s, unsigned long long min,
			unsigned long long max, unsigned long long *val);
/* "1234 (comm)", or "1234" if comm cannot be read, into label. */
void pmaps_pid_label(char *label, size_t len, int pid);
/* name with its control bytes as \xNN: no name drives the terminal. */
void pmaps_put_name(FILE *out, const char *name);
/*
 * The document at path ("-" is stdin), text or JSON, read as it is parsed
 * (pmaps_read_doc(): the first bad line ends the read): the bytes into
 * *text (malloc()ed, not NUL-terminated) and *len, the document into
 * *map, which must be freed in every case.  PMAPS_ERR_TARGET when it
 * cannot be opened or read ("pmaps: FILE: reason"), PMAPS_ERR_INPUT when
 * it is malformed ("FILE:LINE: expected ...").  Pages of page_size
 * bytes: this host's for a live file of /proc, else
 * pmaps_doc_page_size() (0: the one the document tells).
 */
enum pmaps_status pmaps_read_doc_path(const char *path,
				      unsigned long long page_size,
				      char **text, size_t *len,
				      struct pmaps_map *map, char *err,
				      size_t errlen);
/*
 * Load a saved document; path "-" is stdin.  Errors: "FILE:LINE: ...".
 * A document that loads but shows nothing has doc->warning set.
 */
enum pmaps_status pmaps_load_file(const char *path, struct pmaps_doc *doc,
				  char *err, size_t errlen);
/*
 * doc->warning on stderr, once per file in a run (watch reads files
 * again).
 */
void pmaps_doc_warn(const struct pmaps_doc *doc);
void pmaps_doc_free(struct pmaps_doc *doc);

/*
 * PIDs of processes whose comm or argv[0] basename is name, ascending.
 * Returns how many (0: none), or -1 on error; *pids is malloc()ed.
 */
int pmaps_pids_by_name(const char *name, int **pids);

/* Print a map in the text format (used for the pagemap source's text). */
int pmaps_print_text(FILE *out, const struct pmaps_map *map);
/* The same into *text (malloc()ed, *len bytes); 0, or -1 if out of memory. */
int pmaps_map_to_text(const struct pmaps_map *map, char **text, size_t *len);

/* ---- filters (filter.c) ---- */

/*
 * Page-types style flag selection (its -b option): each --flags EXPR is one
 * term, a comma-separated list of flags that must all hold, "~" before a
 * flag meaning it must be clear, e.g. "D,~W"; a range matches if any term
 * matches.  Flags are letters YRAUPDW, or names young, referenced, active,
 * uptodate, pte-dirty (or the older ptedirty), dirty, writeback.
 */
#define PMAPS_MAX_TERMS 16
struct pmaps_flag_expr {
	size_t nr_terms;
	unsigned int set[PMAPS_MAX_TERMS];
	unsigned int clear[PMAPS_MAX_TERMS];
};

struct pmaps_filter {
	/* --areas: match a VMA name; "heap", "stack", "anon" (no name or
	 * [anon:...]), "vdso"; else a substring of the file name. */
	char **areas;
	size_t nr_areas;
	bool has_flags;
	struct pmaps_flag_expr flags;
	bool has_range;			/* --range START,END: [lo, hi) */
	unsigned long long lo, hi;
};

/* Add the term of one --flags option to expr. */
int pmaps_flag_expr_parse(const char *s, struct pmaps_flag_expr *expr,
			  char *err, size_t errlen);
bool pmaps_flag_expr_match(const struct pmaps_flag_expr *expr,
			   unsigned int flags, unsigned int unknown);
/* Whether any filter option was given: else there is nothing to apply. */
bool pmaps_filter_active(const struct pmaps_filter *filter);
/* Keep only what the filter selects; ranges are clipped to --range. */
void pmaps_filter_apply(const struct pmaps_filter *filter,
			struct pmaps_map *map);
void pmaps_filter_free(struct pmaps_filter *filter);

/* ---- views (view.c) ---- */

enum pmaps_view_kind {
	PMAPS_VIEW_DEFAULT,	/* VMA headers + ranges with addresses */
	PMAPS_VIEW_SUMMARY,	/* --summary: totals only */
	PMAPS_VIEW_HISTOGRAM,	/* --histogram: pages per flag combination */
	PMAPS_VIEW_AGES,	/* --ages: pages per AGE, per VMA */
	PMAPS_VIEW_PAGES,	/* --pages: one line per page */
	PMAPS_VIEW_ADDRESS,	/* --address ADDR: VMA, range, page detail */
	PMAPS_VIEW_JSON,	/* --json */
	PMAPS_VIEW_TSV,		/* --tsv */
	PMAPS_VIEW_RAW,		/* --raw: the text unchanged */
};

struct pmaps_view_opts {
	enum pmaps_view_kind kind;
	bool color;		/* resolved from --color and NO_COLOR */
	bool decode;		/* -d: flag names instead of letters */
	bool totals;		/* per-VMA totals lines in the default view */
	unsigned long long address;	/* for PMAPS_VIEW_ADDRESS */
	/* --range START,END: PMAPS_VIEW_PAGES shows only [lo, hi) */
	bool has_range;
	unsigned long long lo, hi;
	/*
	 * --cgroup: the group's directory.  The default view and --summary
	 * end with the group's totals, a row per process and one for all.
	 */
	const char *group;
};

/* --color[=WHEN] of pmaps and of every command that colours. */
enum pmaps_color_when {
	PMAPS_COLOR_AUTO, PMAPS_COLOR_ALWAYS, PMAPS_COLOR_NEVER
};
/* WHEN, NULL (no "=WHEN") meaning always; -1 if unknown. */
int pmaps_color_parse(const char *arg, enum pmaps_color_when *when);
/* AUTO: colour if stdout is a terminal and NO_COLOR is unset or empty. */
bool pmaps_color_wanted(enum pmaps_color_when when);

/* Show every document; JSON is one document for the whole run. */
int pmaps_view(FILE *out, const struct pmaps_view_opts *opts,
	       struct pmaps_doc *docs, size_t nr_docs);
/*
 * pmaps_view() returns 0; 1 (PMAPS_ERR_TARGET) for PMAPS_VIEW_ADDRESS when
 * no document has a VMA holding the address (each one says so on out); or
 * -1 with errno set when writing to out failed or memory ran out.  PAGES
 * and ADDRESS read /proc/PID/pagemap of documents with pid > 0 themselves,
 * and print a PFN only when geteuid() == 0.
 */

#endif /* PMAPS_CLI_H */
