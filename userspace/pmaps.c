// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps: show which pages of processes are resident and in what state.
 *
 * Parses the command line, loads every target (source.c), keeps what the
 * filters select (filter.c) and hands the rest to one view (view.c).  A
 * target that fails is reported and skipped; the exit status is the worst
 * one seen.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "commands.h"

/* From dkms.conf, the one place the version is written (see Makefile). */
#ifndef PMAPS_VERSION
#error "PMAPS_VERSION comes from the Makefile"
#endif

/* Long-only options start above any character. */
enum {
	OPT_SOURCE = 256,
	OPT_COLOR,
	OPT_SUMMARY,
	OPT_HISTOGRAM,
	OPT_AGES,
	OPT_ADDRESS,
	OPT_PAGES,
	OPT_JSON,
	OPT_RAW,
	OPT_TSV,
	OPT_TOTALS,
	OPT_NUMA,
	OPT_VERSION,
	OPT_CGROUP,
};

static const char short_options[] = "p:f:dh";

static const struct option long_options[] = {
	{ "source",	required_argument, NULL, OPT_SOURCE },
	{ "pid-name",	required_argument, NULL, 'p' },
	{ "file",	required_argument, NULL, 'f' },
	{ "cgroup",	required_argument, NULL, OPT_CGROUP },
	{ "color",	optional_argument, NULL, OPT_COLOR },
	{ "decode",	no_argument,	   NULL, 'd' },
	{ "summary",	no_argument,	   NULL, OPT_SUMMARY },
	{ "histogram",	no_argument,	   NULL, OPT_HISTOGRAM },
	{ "ages",	no_argument,	   NULL, OPT_AGES },
	PMAPS_FILTER_OPTIONS,
	PMAPS_PAGE_SIZE_OPTION,
	{ "address",	required_argument, NULL, OPT_ADDRESS },
	{ "pages",	no_argument,	   NULL, OPT_PAGES },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "raw",	no_argument,	   NULL, OPT_RAW },
	{ "tsv",	no_argument,	   NULL, OPT_TSV },
	{ "totals",	no_argument,	   NULL, OPT_TOTALS },
	{ "numa",	no_argument,	   NULL, OPT_NUMA },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
"Usage: pmaps [OPTION]... PID...\n"
"       pmaps [OPTION]... -p NAME | -f FILE | --cgroup PATH\n"
"       pmaps [OPTION]... COMMAND [OPTION]... ARG...\n"
"       pmaps help [COMMAND]\n"
"Show which pages of each process are resident and in what state.\n"
"\n"
"Commands (each has its own --help; options before COMMAND are passed to it,\n"
"as if they came after):\n"
"  map PID               a picture of each VMA, one cell per page\n"
"  watch PID|--cgroup P  refresh a view and highlight what changed\n"
"  top PID               interactive browser of VMAs, ranges and pages\n"
"  wss PID               working-set size: pages accessed in an interval\n"
"  diff A B              compare two saved snapshots\n"
"  core FILE             the mappings recorded in a core dump\n"
"  heap PID              the glibc malloc heaps, chunk by chunk\n"
"  export PID|--cgroup P OpenMetrics text, for Prometheus\n"
"  perf [-i FILE]        the mappings perf recorded in perf.data, over time\n"
"  record -- CMD|-p PID  record mmaps into perf.data, as perf record does\n"
"  help [COMMAND]        this help, or COMMAND's\n"
"\n"
"Targets:\n"
"  PID                   a process; several may be given\n"
"  -p, --pid-name NAME   every process whose name (comm or argv[0] basename)\n"
"                        is NAME; may be repeated; alone, of several\n"
"                        processes, their group's totals as for --cgroup\n"
"  -f, --file FILE       a saved pmaps document, - for stdin; may be repeated\n"
"      --cgroup PATH     every process in cgroup PATH and the cgroups below\n"
"                        it (relative to the cgroup2 mount, /sys/fs/cgroup);\n"
"                        the default view and --summary end with the\n"
"                        group's totals; one that ends meanwhile is skipped\n"
"      --source=SOURCE   where to read processes from: kernel (/proc/PID/pmaps),\n"
"                        module (/proc/pmaps_ext/PID), pagemap (page state\n"
"                        as root only), file (PID arguments are files), or\n"
"                        auto (the default: the first of kernel, module,\n"
"                        pagemap that works)\n"
PMAPS_PAGE_SIZE_HELP
"\n"
"Views (at most one; the default lists VMAs and their ranges):\n"
"      --summary         totals only\n"
"      --histogram       pages per flag combination\n"
"      --ages            pages per MGLRU age (0 youngest .. 3, ?) per VMA,\n"
"                        from the AGE column of the NUMA files (--numa)\n"
"      --pages           one line per page\n"
"      --address ADDR    the VMA, range and page holding ADDR (hex); an\n"
"                        ADDR in no VMA of any target is status 1\n"
"      --json            JSON, one document for the whole run\n"
"      --tsv             tab-separated values\n"
"      --raw             the text as read (only the selected part when\n"
"                        filtering)\n"
"\n"
"Filters:\n"
PMAPS_FILTER_HELP
"\n"
"Output:\n"
"      --color[=WHEN]    auto (default: if stdout is a terminal and NO_COLOR\n"
"                        is unset or empty), always or never; --color WHEN\n"
"                        works too, in every command\n"
"  -d, --decode          flag names instead of letters (default view, --pages)\n"
"      --totals          a totals line after each VMA in the default view\n"
"      --numa            read the NUMA files: node, folio size and age per\n"
"                        range, per-node columns in --summary and --totals,\n"
"                        and JSON schema pmaps/3 (pmaps/4 with age)\n"
"  -h, --help            show this help and exit\n"
"      --version         show the version and exit\n"
"\n"
"Exit status: 0 if all went well, 1 if a process or file could not be\n"
"read or --address found no VMA, 2 for malformed input or bad usage.\n";

enum target_kind { TARGET_PID, TARGET_NAME, TARGET_FILE, TARGET_CGROUP };

struct target {
	enum target_kind kind;
	const char *arg;
};

struct options {
	enum pmaps_source source;
	enum pmaps_color_when color;
	struct pmaps_view_opts view;
	const char *view_option;	/* the one given, for messages */
	const char *decode_option;	/* -d or --decode, as given */
	const char *address_arg;	/* of --address, for messages */
	struct pmaps_filter filter;
	struct target *targets;
	size_t nr_targets;
	char cgroup_dir[4096];	/* --cgroup PATH, resolved */
};

struct run {
	struct pmaps_doc *docs;
	size_t nr_docs, cap_docs;
	enum pmaps_status status;	/* worst so far */
};

/* "pmaps" or "pmaps COMMAND" names the program in messages. */
static void print_prog(const char *command)
{
	fprintf(stderr, "pmaps%s%s", command ? " " : "",
		command ? command : "");
}

int pmaps_cmd_usage_hint(const char *command)
{
	fputs("Try '", stderr);
	print_prog(command);
	fputs(" --help' for more information.\n", stderr);
	return PMAPS_ERR_INPUT;
}

int pmaps_cmd_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	print_prog(command);
	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return pmaps_cmd_usage_hint(command);
}

#define usage_error(...) pmaps_cmd_usage_error(NULL, __VA_ARGS__)

int pmaps_page_size_option(const char *command, const char *arg)
{
	unsigned long long n = 0;
	const char *p;

	for (p = arg; *p >= '0' && *p <= '9' && n <= 1ULL << 20; p++)
		n = n * 10 + (unsigned long long)(*p - '0');
	if (p > arg && (*p == 'K' || *p == 'k') && n <= 1ULL << 20) {
		n *= 1024;
		p++;
	}
	if (p == arg || *p || !pmaps_page_size_ok(n))
		return pmaps_cmd_usage_error(command,
			"--page-size: expected a power of two from %llu to %llu bytes (or 4K to 64K), got '%s'",
			1ULL << PMAPS_DOC_PAGE_SHIFT_MIN,
			1ULL << PMAPS_DOC_PAGE_SHIFT_MAX, arg);
	pmaps_set_doc_page_size(n);
	return PMAPS_OK;
}

void pmaps_cmd_report(const char *command, const char *msg)
{
	if (!strncmp(msg, "pmaps: ", 7))
		msg += 7;
	fprintf(stderr, "pmaps %s: %s\n", command, msg);
}

/* "1", "0.5", "2.250": whole seconds and up to 9 decimals, exactly. */
static bool parse_seconds(const char *s, struct timespec *ts, bool *whole)
{
	unsigned long long sec = 0;
	long nsec = 0, scale = 100000000;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		sec = sec * 10 + (unsigned long long)(*p - '0');
		if (sec > PMAPS_INTERVAL_MAX)
			return false;
	}
	*whole = *p != '.';
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (!scale)
				return false;
			nsec += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p || (!sec && !nsec) || (sec == PMAPS_INTERVAL_MAX && nsec))
		return false;
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = nsec;
	return true;
}

int pmaps_interval_parse(const char *command, const char *arg,
			 struct timespec *ts)
{
	return pmaps_seconds_parse(command, "--interval", arg, ts);
}

int pmaps_seconds_parse(const char *command, const char *option,
			const char *arg, struct timespec *ts)
{
	unsigned long long ms;
	char secs[32];
	bool whole;
	int n;

	if (!parse_seconds(arg, ts, &whole))
		return pmaps_cmd_usage_error(command,
			"%s: expected seconds above 0 and up to %d, e.g. 0.5, got '%s'",
			option, PMAPS_INTERVAL_MAX, arg);
	if (!whole || ts->tv_sec < PMAPS_INTERVAL_MS_FROM)
		return PMAPS_OK;
	/* arg is digits only here: the seconds it meant, without 0s */
	ms = (unsigned long long)ts->tv_sec;
	n = snprintf(secs, sizeof(secs), "%llu.%03llu", ms / 1000, ms % 1000);
	while (secs[n - 1] == '0')
		secs[--n] = '\0';
	if (secs[n - 1] == '.')
		secs[n - 1] = '\0';
	return pmaps_cmd_usage_error(command,
		"%s: expected seconds, got '%s', which looks like milliseconds: for %s ms write %s, for %s seconds %s.0",
		option, arg, arg, secs, arg, arg);
}

long long pmaps_interval_ms(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
}

/* Hex number, "0x" optional, the whole of s[0..n). */
static bool parse_hex(const char *s, size_t n, unsigned long long *val)
{
	unsigned long long v = 0;
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i == n)
		return false;
	for (; i < n; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		if (v >> 60)
			return false;	/* more than 64 bits */
		v = v << 4 | d;
	}
	*val = v;
	return true;
}

static enum pmaps_status parse_range_opt(const char *command, const char *arg,
					 struct pmaps_filter *filter)
{
	const char *comma = strchr(arg, ',');

	if (!comma || !parse_hex(arg, comma - arg, &filter->lo) ||
	    !parse_hex(comma + 1, strlen(comma + 1), &filter->hi))
		return pmaps_cmd_usage_error(command,
			"--range: expected START,END in hex, got '%s'", arg);
	if (filter->lo >= filter->hi)
		return pmaps_cmd_usage_error(command,
			"--range: expected START below END, got '%s'", arg);
	filter->has_range = true;
	return PMAPS_OK;
}

static enum pmaps_status parse_areas_opt(const char *command, const char *arg,
					 struct pmaps_filter *filter)
{
	const char *p = arg;

	for (;;) {
		size_t n = strcspn(p, ",");
		char **grown;

		if (!n)
			return pmaps_cmd_usage_error(command,
				"--areas: expected PATTERN[,PATTERN...], got '%s'",
				arg);
		grown = realloc(filter->areas,
				(filter->nr_areas + 1) * sizeof(*grown));
		if (!grown)
			return pmaps_cmd_usage_error(command, "out of memory");
		filter->areas = grown;
		filter->areas[filter->nr_areas] = strndup(p, n);
		if (!filter->areas[filter->nr_areas])
			return pmaps_cmd_usage_error(command, "out of memory");
		filter->nr_areas++;
		if (!p[n])
			return PMAPS_OK;
		p += n + 1;
	}
}

int pmaps_filter_option(const char *command, int opt, const char *arg,
			struct pmaps_filter *filter)
{
	char err[512];

	switch (opt) {
	case PMAPS_OPT_AREAS:
		return parse_areas_opt(command, arg, filter);
	case PMAPS_OPT_FLAGS:
		if (pmaps_flag_expr_parse(arg, &filter->flags, err,
					  sizeof(err))) {
			/* The message already starts with "pmaps: ". */
			return pmaps_cmd_usage_error(command, "%s",
						     err + strlen("pmaps: "));
		}
		filter->has_flags = true;
		return PMAPS_OK;
	default:
		return parse_range_opt(command, arg, filter);
	}
}

static enum pmaps_status set_view(struct options *o, enum pmaps_view_kind k,
				  const char *name)
{
	if (o->view_option && strcmp(o->view_option, name))
		return usage_error("%s and %s cannot be combined",
				   o->view_option, name);
	o->view.kind = k;
	o->view_option = name;
	return PMAPS_OK;
}

static enum pmaps_status add_target(struct options *o, enum target_kind kind,
				    const char *arg)
{
	struct target *grown;

	grown = realloc(o->targets, (o->nr_targets + 1) * sizeof(*grown));
	if (!grown)
		return usage_error("out of memory");
	o->targets = grown;
	o->targets[o->nr_targets].kind = kind;
	o->targets[o->nr_targets].arg = arg;
	o->nr_targets++;
	return PMAPS_OK;
}

static enum pmaps_status parse_option(struct options *o, int opt,
				      const char *arg)
{
	enum pmaps_status status;

	switch (opt) {
	case OPT_SOURCE:
		if (pmaps_source_parse(arg, &o->source))
			return usage_error("--source: expected auto, kernel, module, pagemap or file, got '%s'",
					   arg);
		return PMAPS_OK;
	case 'p':
		return add_target(o, TARGET_NAME, arg);
	case 'f':
		return add_target(o, TARGET_FILE, arg);
	case OPT_CGROUP:
		if (o->view.group)
			return usage_error("--cgroup %s and --cgroup %s cannot be combined: one group at a time",
					   o->view.group, arg);
		o->view.group = arg;	/* resolved once all options are in */
		return add_target(o, TARGET_CGROUP, arg);
	case OPT_COLOR:
		if (pmaps_color_parse(arg, &o->color))
			return usage_error("--color: expected auto, always or never, got '%s'",
					   arg);
		return PMAPS_OK;
	case 'd':
		o->view.decode = true;
		return PMAPS_OK;
	case OPT_SUMMARY:
		return set_view(o, PMAPS_VIEW_SUMMARY, "--summary");
	case OPT_HISTOGRAM:
		return set_view(o, PMAPS_VIEW_HISTOGRAM, "--histogram");
	case OPT_AGES:
		return set_view(o, PMAPS_VIEW_AGES, "--ages");
	case OPT_PAGES:
		return set_view(o, PMAPS_VIEW_PAGES, "--pages");
	case OPT_JSON:
		return set_view(o, PMAPS_VIEW_JSON, "--json");
	case OPT_RAW:
		return set_view(o, PMAPS_VIEW_RAW, "--raw");
	case OPT_TSV:
		return set_view(o, PMAPS_VIEW_TSV, "--tsv");
	case OPT_ADDRESS:
		if (o->address_arg)
			return usage_error("--address %s and --address %s cannot be combined: one address at a time",
					   o->address_arg, arg);
		if (!parse_hex(arg, strlen(arg), &o->view.address))
			return usage_error("--address: expected an address in hex, got '%s'",
					   arg);
		o->address_arg = arg;
		return set_view(o, PMAPS_VIEW_ADDRESS, "--address");
	case PMAPS_OPT_AREAS:
	case PMAPS_OPT_FLAGS:
		return pmaps_filter_option(NULL, opt, arg, &o->filter);
	case PMAPS_OPT_RANGE:
		status = pmaps_filter_option(NULL, opt, arg, &o->filter);
		if (status)
			return status;
		/* The pages view walks pagemap by address: limit it too. */
		o->view.has_range = true;
		o->view.lo = o->filter.lo;
		o->view.hi = o->filter.hi;
		return PMAPS_OK;
	case OPT_TOTALS:
		o->view.totals = true;
		return PMAPS_OK;
	case PMAPS_OPT_PAGE_SIZE:
		return pmaps_page_size_option(NULL, arg);
	case OPT_NUMA:
		pmaps_source_numa = true;
		return PMAPS_OK;
	default:
		/* getopt_long has said what was wrong. */
		return pmaps_cmd_usage_hint(NULL);
	}
}

/* Options that the view given would ignore: refused, not dropped. */
static enum pmaps_status check_combination(const struct options *o)
{
	if (o->view.totals && o->view_option)
		return usage_error("--totals and %s cannot be combined: only the default view has per-VMA totals",
				   o->view_option);
	/* --histogram and --address name the flags anyway */
	switch (o->view.kind) {
	case PMAPS_VIEW_SUMMARY:
	case PMAPS_VIEW_AGES:
	case PMAPS_VIEW_JSON:
	case PMAPS_VIEW_TSV:
	case PMAPS_VIEW_RAW:
		if (o->decode_option)
			return usage_error("%s and %s cannot be combined: %s names flags only in the default view and --pages",
					   o->decode_option, o->view_option,
					   o->decode_option);
		break;
	default:
		break;
	}
	return PMAPS_OK;
}

/* Sets *done after --help and --version, which end the run. */
static enum pmaps_status parse_args(int argc, char **argv, struct options *o,
				    bool *done)
{
	static char prog_name[] = "pmaps";
	enum pmaps_status st;
	size_t t;
	int opt, i, pid, long_index = -1;

	/* getopt_long names the program by argv[0] in its messages. */
	argv[0] = prog_name;
	*done = false;
	while ((opt = getopt_long(argc, argv, short_options, long_options,
				  &long_index)) != -1) {
		if (opt == 'd')
			o->decode_option = long_index < 0 ? "-d" : "--decode";
		long_index = -1;
		if (opt == 'h') {
			fputs(usage_text, stdout);
			*done = true;
			return PMAPS_OK;
		}
		if (opt == OPT_VERSION) {
			puts("pmaps (pmaps_ext) " PMAPS_VERSION);
			*done = true;
			return PMAPS_OK;
		}
		st = parse_option(o, opt, optarg);
		if (st)
			return st;
	}
	for (i = optind; i < argc; i++) {
		if (o->source != PMAPS_SRC_FILE && !pmaps_parse_pid(argv[i], &pid))
			return usage_error("expected a PID, got '%s'", argv[i]);
		st = add_target(o, o->source == PMAPS_SRC_FILE ? TARGET_FILE :
				TARGET_PID, argv[i]);
		if (st)
			return st;
	}
	st = check_combination(o);
	if (st)
		return st;
	if (!o->nr_targets)
		return usage_error("expected a PID, -p NAME, -f FILE or --cgroup PATH");
	for (t = 0; t < o->nr_targets; t++)
		if (o->source == PMAPS_SRC_FILE &&
		    o->targets[t].kind == TARGET_NAME)
			return usage_error("--source=file reads files, not processes named %s",
					   o->targets[t].arg);
	if (o->view.group) {
		char err[4400];

		/* the group's totals are of the group alone */
		if (o->nr_targets > 1)
			return usage_error("--cgroup and other targets cannot be combined: the group's totals would not be the group's");
		if (o->source == PMAPS_SRC_FILE)
			return usage_error("--source=file reads files, not cgroup %s",
					   o->view.group);
		if (pmaps_cgroup_dir(o->view.group, o->cgroup_dir,
				     sizeof(o->cgroup_dir), err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return PMAPS_ERR_TARGET;
		}
		o->view.group = o->cgroup_dir;
	}
	return PMAPS_OK;
}

static void note_status(struct run *run, enum pmaps_status st)
{
	if (st > run->status)
		run->status = st;
}

static struct pmaps_doc *new_doc(struct run *run)
{
	if (run->nr_docs == run->cap_docs) {
		size_t cap = run->cap_docs ? run->cap_docs * 2 : 8;
		struct pmaps_doc *grown;

		grown = realloc(run->docs, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		run->docs = grown;
		run->cap_docs = cap;
	}
	return &run->docs[run->nr_docs];
}

/*
 * member: a process of --cgroup, which may end before it is read.
 * denied: where -p NAME counts the processes the caller may not read,
 * said once for all (NULL: each is said).
 */
static void load_one(struct run *run, const struct options *o,
		     const char *file, int pid, bool member, int *denied)
{
	char err[4096];
	struct pmaps_doc *doc = new_doc(run);
	enum pmaps_status st;

	if (!doc) {
		fputs("pmaps: out of memory\n", stderr);
		note_status(run, PMAPS_ERR_TARGET);
		return;
	}
	if (file)
		st = pmaps_load_file(file, doc, err, sizeof(err));
	else
		st = pmaps_load_pid(pid, o->source, doc, err, sizeof(err));
	if (st) {
		if (denied && st == PMAPS_ERR_TARGET && pmaps_pid_denied(pid)) {
			(*denied)++;
			note_status(run, st);
		/* a group changes while it is read: no error */
		} else if (!(member && st == PMAPS_ERR_TARGET &&
			     pmaps_pid_gone(pid))) {
			fprintf(stderr, "%s\n", err);
			note_status(run, st);
		}
		pmaps_doc_free(doc);
		return;
	}
	pmaps_doc_warn(doc);
	run->nr_docs++;
}

/* Every process of the group: an empty group is no error. */
static void load_cgroup(struct run *run, const struct options *o)
{
	char err[4400];
	int j, n, *pids;

	n = pmaps_cgroup_pids(o->cgroup_dir, &pids, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "%s\n", err);
		note_status(run, PMAPS_ERR_TARGET);
		return;
	}
	for (j = 0; j < n; j++)
		load_one(run, o, NULL, pids[j], true, NULL);
	free(pids);
}

static void load_targets(struct run *run, const struct options *o)
{
	size_t i;
	int j, n, pid = 0, *pids, denied;

	for (i = 0; i < o->nr_targets; i++) {
		const struct target *t = &o->targets[i];

		switch (t->kind) {
		case TARGET_FILE:
			load_one(run, o, t->arg, 0, false, NULL);
			break;
		case TARGET_PID:
			pmaps_parse_pid(t->arg, &pid);
			load_one(run, o, NULL, pid, false, NULL);
			break;
		case TARGET_CGROUP:
			load_cgroup(run, o);
			break;
		case TARGET_NAME:
			n = pmaps_pids_by_name(t->arg, &pids);
			if (n < 0) {
				fprintf(stderr, "pmaps: /proc: %s\n",
					strerror(errno));
				note_status(run, PMAPS_ERR_TARGET);
			} else if (!n) {
				fprintf(stderr, "pmaps: no process named %s\n",
					t->arg);
				note_status(run, PMAPS_ERR_TARGET);
			}
			denied = 0;
			for (j = 0; j < n; j++)
				load_one(run, o, NULL, pids[j], false, &denied);
			if (denied)
				pmaps_report_denied(NULL, denied, t->arg);
			free(pids);
			break;
		}
	}
}

/*
 * Filtered documents get their text printed again from what is kept, so
 * that --raw shows the selection in the same format.
 */
static void apply_filter(struct run *run, const struct options *o)
{
	const struct pmaps_filter *f = &o->filter;
	size_t i;

	if (!pmaps_filter_active(f))
		return;
	for (i = 0; i < run->nr_docs; i++) {
		struct pmaps_doc *doc = &run->docs[i];
		char *text;
		size_t len;

		pmaps_filter_apply(f, &doc->map);
		if (pmaps_map_to_text(&doc->map, &text, &len)) {
			fputs("pmaps: out of memory\n", stderr);
			note_status(run, PMAPS_ERR_TARGET);
			continue;
		}
		free(doc->text);
		doc->text = text;
		doc->text_len = len;
	}
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct pmaps_cmd_options *options;
} commands[] = {
	{ "map",	pmaps_cmd_map,		&pmaps_map_options },
	{ "watch",	pmaps_cmd_watch,	&pmaps_watch_options },
	{ "top",	pmaps_cmd_top,		&pmaps_top_options },
	{ "wss",	pmaps_cmd_wss,		&pmaps_wss_options },
	{ "diff",	pmaps_cmd_diff,		&pmaps_diff_options },
	{ "core",	pmaps_cmd_core,		&pmaps_core_options },
	{ "heap",	pmaps_cmd_heap,		&pmaps_heap_options },
	{ "perf",	pmaps_cmd_perf,		&pmaps_perf_options },
	{ "record",	pmaps_cmd_record,	&pmaps_record_options },
	{ "export",	pmaps_cmd_export,	&pmaps_export_options },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/*
 * Whether the option word arg, in the option tables shortopts and
 * longopts (as getopt_long takes them), takes the next word as its value:
 * "--source pagemap", "-p NAME", "-dp NAME", "-w 100".  A long option may
 * be abbreviated, as getopt_long allows.
 */
static bool takes_next_word(const char *arg, const char *shortopts,
			    const struct option *longopts)
{
	const struct option *o, *found = NULL;
	size_t n;

	if (arg[1] != '-') {
		for (arg++; *arg; arg++) {
			const char *s = strchr(shortopts, *arg);

			/* a value of its own ("-w100"), or the next word */
			if (*arg != ':' && *arg != '+' && s && s[1] == ':')
				return s[2] != ':' && !arg[1];
		}
		return false;
	}
	arg += 2;
	if (strchr(arg, '='))
		return false;
	n = strlen(arg);
	for (o = longopts; o->name; o++) {
		if (strncmp(o->name, arg, n))
			continue;
		if (strlen(o->name) == n)
			return o->has_arg == required_argument;
		if (found && found->has_arg != o->has_arg)
			return false;	/* ambiguous: getopt_long will say */
		found = o;
	}
	return found && found->has_arg == required_argument;
}

static void free_words(char **words, int argc)
{
	char **joined;

	if (!words)
		return;
	for (joined = words + argc + 1; *joined; joined++)
		free(*joined);
	free(words);
}

static bool is_color_when(const char *s)
{
	return !strcmp(s, "auto") || !strcmp(s, "always") ||
	       !strcmp(s, "never");
}

/*
 * The words of the command line as getopt_long should see them: argv,
 * with "--color WHEN" joined into "--color=WHEN" (an optional value must
 * touch its option, which nobody remembers), up to a "--".  *argc becomes
 * their number.  The joined ones, malloc()ed, follow at words[argc + 1]
 * (argc as it was) up to a NULL: free_words() with that argc frees all.
 */
static char **join_color_words(int *argc, char **argv)
{
	char **words = calloc(2 * (size_t)*argc + 2, sizeof(*words));
	char **joined;
	int i, n = 0;

	if (!words)
		return NULL;
	joined = words + *argc + 1;
	for (i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				words[n++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--color") && i + 1 < *argc &&
		    is_color_when(argv[i + 1])) {
			size_t len = strlen("--color=") + strlen(argv[i + 1]);

			*joined = malloc(len + 1);
			if (!*joined) {
				free_words(words, *argc);
				return NULL;
			}
			snprintf(*joined, len + 1, "--color=%s", argv[++i]);
			words[n++] = *joined++;
			continue;
		}
		words[n++] = argv[i];
	}
	*argc = n;
	return words;
}

/*
 * Where cmd (NULL: "help") would be the command word in words[1..argc):
 * the first word that is neither an option nor an option's value, if it
 * names cmd; else 0.  A word is a value when the option before takes one
 * as pmaps' option or as cmd's, since the options before the command are
 * handed to it: "pmaps -w 100 map PID" is map's -w, "pmaps -p map 1" the
 * processes named map.
 */
static int command_at(int argc, char **words, const struct command *cmd)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(words[i], "--"))
			return 0;
		if (words[i][0] != '-' || !words[i][1])
			break;
		if (takes_next_word(words[i], short_options, long_options) ||
		    (cmd && takes_next_word(words[i], cmd->options->shortopts,
					    cmd->options->longopts)))
			i++;
	}
	if (i >= argc || strcmp(words[i], cmd ? cmd->name : "help"))
		return 0;
	return i;
}

/*
 * The index of the command word in words[1..argc), after the options and
 * their values; 0 if the first other word is no command (a PID).
 */
static int command_word(int argc, char **words)
{
	int at = command_at(argc, words, NULL), i;
	size_t c;

	for (c = 0; c < NR_COMMANDS; c++) {
		i = command_at(argc, words, &commands[c]);
		if (i && (!at || i < at))
			at = i;
	}
	return at;
}

/* pmaps help [COMMAND]: the help of pmaps, or of COMMAND. */
static int run_help(int argc, char **argv)
{
	static char help_opt[] = "--help";
	const struct command *cmd;
	char *cmd_argv[3];

	if (argc < 2) {
		fputs(usage_text, stdout);
		return PMAPS_OK;
	}
	if (argc > 2)
		return usage_error("help: expected one COMMAND, got '%s' too",
				   argv[2]);
	cmd = find_command(argv[1]);
	if (!cmd) {
		/* Named from commands[], so that a new command is listed too. */
		char names[128] = "";
		size_t i;

		for (i = 0; i < NR_COMMANDS; i++) {
			strncat(names, commands[i].name,
				sizeof(names) - strlen(names) - 1);
			strncat(names, i + 2 < NR_COMMANDS ? ", " :
				i + 2 == NR_COMMANDS ? " or " : "",
				sizeof(names) - strlen(names) - 1);
		}
		return usage_error("help: expected a COMMAND: %s; got '%s'",
				   names, argv[1]);
	}
	cmd_argv[0] = argv[1];
	cmd_argv[1] = help_opt;
	cmd_argv[2] = NULL;
	return cmd->run(2, cmd_argv);
}

/*
 * pmaps OPTION... COMMAND ARG...: the command, with the options that came
 * before its name handed to it after, so that they mean the same in
 * either place.  The command says which options it does not take.
 */
static int run_command(int argc, char **words, int at)
{
	char **cmd_argv = calloc((size_t)argc + 1, sizeof(*cmd_argv));
	int n = 0, i, ret;

	if (!cmd_argv) {
		fputs("pmaps: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	cmd_argv[n++] = words[at];
	for (i = 1; i < at; i++)
		cmd_argv[n++] = words[i];
	for (i = at + 1; i < argc; i++)
		cmd_argv[n++] = words[i];
	if (!strcmp(words[at], "help")) {
		/* options before "help" change nothing that it prints */
		ret = run_help(argc - at, words + at);
	} else {
		ret = find_command(words[at])->run(n, cmd_argv);
	}
	free(cmd_argv);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { .source = PMAPS_SRC_AUTO };
	struct run run = { .status = PMAPS_OK };
	bool done;
	int ret, nr_words = argc, at;
	char **words;
	size_t i;

	words = join_color_words(&nr_words, argv);
	if (!words) {
		fputs("pmaps: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	/* A PID is digits and a file comes after -f: no command name clashes. */
	at = command_word(nr_words, words);
	if (at) {
		run.status = run_command(nr_words, words, at);
		goto out;
	}

	o.view.kind = PMAPS_VIEW_DEFAULT;
	run.status = parse_args(nr_words, words, &o, &done);
	if (run.status || done)
		goto out;

	o.view.color = pmaps_color_wanted(o.color);
	load_targets(&run, &o);
	apply_filter(&run, &o);
	/*
	 * -p NAME alone, of several processes: they are a group as a
	 * cgroup's are, whose totals (PSS and USS among them) smem users
	 * ask for
	 */
	if (o.nr_targets == 1 && o.targets[0].kind == TARGET_NAME &&
	    run.nr_docs > 1)
		o.view.group = o.targets[0].arg;
	/* JSON stays one valid document even when every target failed. */
	if (run.nr_docs || o.view.kind == PMAPS_VIEW_JSON || o.view.group) {
		/* > 0: a status, e.g. --address found in no target */
		ret = pmaps_view(stdout, &o.view, run.docs, run.nr_docs);
		if (ret < 0) {
			fprintf(stderr, "pmaps: write error: %s\n",
				strerror(errno));
			note_status(&run, PMAPS_ERR_TARGET);
		} else if (ret > 0) {
			note_status(&run, (enum pmaps_status)ret);
		}
	}
out:
	/* A full disk must not pass for success (--help, --version). */
	if (fflush(stdout) && run.status == PMAPS_OK) {
		fprintf(stderr, "pmaps: write error: %s\n", strerror(errno));
		note_status(&run, PMAPS_ERR_TARGET);
	}
	for (i = 0; i < run.nr_docs; i++)
		pmaps_doc_free(&run.docs[i]);
	free(run.docs);
	free(o.targets);
	pmaps_filter_free(&o.filter);
	free_words(words, argc);
	return run.status;
}
