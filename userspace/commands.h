/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views that are commands of their own: "pmaps map PID", "pmaps watch
 * PID", ...  pmaps.c hands them argv from the command name on (argv[0] is
 * "map"), and each parses its own options and prints its own --help.
 * Each returns an exit status (enum pmaps_status).
 */
#ifndef PMAPS_COMMANDS_H
#define PMAPS_COMMANDS_H

#include <stdbool.h>
#include <time.h>

int pmaps_cmd_map(int argc, char **argv);	/* map.c */
int pmaps_cmd_watch(int argc, char **argv);	/* watch.c */
int pmaps_cmd_top(int argc, char **argv);	/* top.c */
int pmaps_cmd_wss(int argc, char **argv);	/* wss.c */
int pmaps_cmd_diff(int argc, char **argv);	/* diff.c */
int pmaps_cmd_core(int argc, char **argv);	/* core.c */
int pmaps_cmd_heap(int argc, char **argv);	/* heap.c */
int pmaps_cmd_perf(int argc, char **argv);	/* perf.c */
int pmaps_cmd_record(int argc, char **argv);	/* record.c */
int pmaps_cmd_export(int argc, char **argv);	/* export.c */

/*
 * Each command's options, as its getopt_long takes them: pmaps.c needs to
 * know which take a value to find the command word after options given
 * before it ("pmaps -w 100 map PID").
 */
struct option;
struct pmaps_cmd_options {
	const char *shortopts;
	const struct option *longopts;
};
extern const struct pmaps_cmd_options pmaps_map_options, pmaps_watch_options,
	pmaps_top_options, pmaps_wss_options, pmaps_diff_options,
	pmaps_core_options, pmaps_heap_options, pmaps_perf_options,
	pmaps_record_options, pmaps_export_options;

/*
 * For pmaps (command NULL) and the commands (pmaps.c): "pmaps[ COMMAND]:
 * MESSAGE" and the --help hint on stderr; returns PMAPS_ERR_INPUT, the
 * status of bad usage.
 */
int pmaps_cmd_usage_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The --help hint alone, after getopt_long's own message; as above. */
int pmaps_cmd_usage_hint(const char *command);
/*
 * -i, --interval of every command: seconds, as watch(1), top(1) and
 * vmstat(8) take them, with up to nine decimals ("2", "0.5"), above 0 and
 * up to PMAPS_INTERVAL_MAX.  A whole number from PMAPS_INTERVAL_MS_FROM
 * up is refused as milliseconds typed by habit ("wss -i 500" once waited
 * 500 s for 0.5); a decimal point ("300.0") says seconds.
 * Returns PMAPS_OK, or prints the usage error for command and returns its
 * status.
 */
#define PMAPS_INTERVAL_MAX	86400
#define PMAPS_INTERVAL_MS_FROM	100
int pmaps_interval_parse(const char *command, const char *arg,
			 struct timespec *ts);
/* The same for another option in seconds, named in the messages. */
int pmaps_seconds_parse(const char *command, const char *option,
			const char *arg, struct timespec *ts);
/* An interval in whole milliseconds, rounded up, at least 1. */
long long pmaps_interval_ms(const struct timespec *ts);
/* A message of the loaders, "pmaps: ...", as "pmaps COMMAND: ...". */
void pmaps_cmd_report(const char *command, const char *msg);

/*
 * The filters, --areas, --flags and --range, which pmaps, map and watch
 * take alike: entries for a getopt_long table, with values above any
 * command's own, and the lines of --help that describe them.
 */
enum {
	PMAPS_OPT_AREAS = 0x1000,
	PMAPS_OPT_FLAGS,
	PMAPS_OPT_RANGE,
	PMAPS_OPT_PAGE_SIZE,
};
#define PMAPS_FILTER_OPTIONS \
	{ "areas",	required_argument, NULL, PMAPS_OPT_AREAS }, \
	{ "flags",	required_argument, NULL, PMAPS_OPT_FLAGS }, \
	{ "range",	required_argument, NULL, PMAPS_OPT_RANGE }
/*
 * --page-size N, of every command that reads saved documents: their page
 * size in bytes (pmaps_set_doc_page_size()), for a document whose lines
 * fit more than one; 4096 to 65536, a power of two, or with K ("16K").
 * Returns PMAPS_OK, or prints the usage error for command (NULL: pmaps)
 * and returns its status.
 */
#define PMAPS_PAGE_SIZE_OPTION \
	{ "page-size",	required_argument, NULL, PMAPS_OPT_PAGE_SIZE }
#define PMAPS_PAGE_SIZE_HELP \
"      --page-size N     the page size of the kernel a saved document came\n" \
"                        from, in bytes (4096 to 65536, or 16K): only for\n" \
"                        a document whose text fits more than one\n"
int pmaps_page_size_option(const char *command, const char *arg);
#define PMAPS_FILTER_HELP \
"      --areas PATTERN[,PATTERN...]\n" \
"                        VMAs named heap, stack, vdso, anon (no file), or\n" \
"                        whose name contains PATTERN\n" \
"      --flags EXPR      ranges whose flags match EXPR, as page-types -b:\n" \
"                        comma-separated letters YRAUPDW or names (young,\n" \
"                        referenced, active, uptodate, pte-dirty, dirty,\n" \
"                        writeback) that must all be set, '~' before one\n" \
"                        that must be clear; e.g. D,~W.  Repeat --flags to\n" \
"                        match any of several.  '?' flags match neither set\n" \
"                        nor clear\n" \
"      --range START,END addresses START up to END (exclusive), in hex\n"
struct pmaps_filter;
/*
 * Add the filter option opt (PMAPS_OPT_*) with its argument arg to
 * filter.  Returns PMAPS_OK, or prints the usage error for command (NULL:
 * pmaps) and returns its status.
 */
int pmaps_filter_option(const char *command, int opt, const char *arg,
			struct pmaps_filter *filter);

#endif /* PMAPS_COMMANDS_H */
