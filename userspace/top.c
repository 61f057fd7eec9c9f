// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps top PID: browse the VMAs, ranges and pages of a process in an
 * ncurses screen.  The list is the default view, a page's detail is the
 * --address view and the statistics come from /proc/PID/status and stat;
 * top_model.c makes those texts, this file draws them and reads keys.
 *
 * The screen, top to bottom: a title, the process statistics, the totals
 * line of the default view (wrapped to two rows), the list (or a page
 * view, or the help), messages, and a status line.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __has_include
#if !__has_include(<curses.h>)
#error "pmaps top needs ncursesw: install libncurses-dev (Debian, Ubuntu) or ncurses-devel (Fedora)"
#endif
#endif
#include <curses.h>

#include "cli.h"
#include "commands.h"
#include "top.h"

/* title, statistics, two rows of totals */
#define HEADER_ROWS	4
/* a long message wraps onto at most this many rows above the status */
#define MSG_ROWS_MAX	4
/* getch() wakes at least this often to notice a signal */
#define TICK_MS		1000

enum {
	OPT_SOURCE = 256,
};

static const struct option long_options[] = {
	{ "source",	required_argument, NULL, OPT_SOURCE },
	{ "pid-name",	required_argument, NULL, 'p' },
	{ "file",	required_argument, NULL, 'f' },
	{ "interval",	required_argument, NULL, 'i' },
	PMAPS_PAGE_SIZE_OPTION,
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_top_options = {
	.shortopts = "p:f:i:h",
	.longopts = long_options,
};

static const char usage_text[] =
"Usage: pmaps top [OPTION]... PID\n"
"       pmaps top [OPTION]... -p NAME | -f FILE\n"
"Browse the VMAs, ranges and pages of a process interactively.\n"
"\n"
"  PID                   the process to browse\n"
"  -p, --pid-name NAME   the process named NAME (there must be one only)\n"
"  -f, --file FILE       a saved pmaps document (no hex dump, no statistics)\n"
"      --source=SOURCE   auto (the default), kernel, module or pagemap, as\n"
"                        for pmaps; file reads PID as a file name\n"
PMAPS_PAGE_SIZE_HELP
"  -i, --interval SECS   reload every SECS seconds, e.g. 0.5 (default: on 'r'\n"
"                        only); a whole number from 100 is refused as\n"
"                        milliseconds: write 300.0 for 300 seconds\n"
"  -h, --help            show this help and exit\n"
"\n";

const char top_keys_help[] =
"Keys:\n"
"  Up, Down, k, j        previous, next row\n"
"  PgUp, PgDn            a screen up, down\n"
"  Home, End, g, G       first, last row\n"
"  Left, Right           previous, next VMA; in a page view, previous, next\n"
"                        page of the VMA\n"
"  Enter                 hex and ASCII dump of the selected page, read from\n"
"                        /proc/PID/mem (the first page of a range or VMA)\n"
"  Tab                   the page's detail, as pmaps --address shows it;\n"
"                        in a page view, Tab switches dump and detail\n"
"  /                     search: a hex address jumps to the range or VMA\n"
"                        holding it, anything else to the next VMA whose\n"
"                        name contains it\n"
"  n                     search again\n"
"  f                     filter ranges by flags, as --flags EXPR; blanks\n"
"                        separate terms that each may match (D,~W A: dirty\n"
"                        and not under writeback, or active); an empty line\n"
"                        clears the filter\n"
"  r                     reload now\n"
"  ?                     this help\n"
"  q, Esc                back to the list; in the list, q quits\n"
"\n"
"Flags: Y young, R referenced, A active, U uptodate, P pte-dirty, D dirty,\n"
"W writeback; '_' clear, '?' unknown to the source (pagemap: Y and P, and\n"
"without root every letter and the mapcount of pages not mapped once only).\n"
"The dump reads the page as any reader of /proc/PID/mem does: that marks\n"
"it referenced, and brings it in if it was not resident.\n";

enum mode { MODE_LIST, MODE_DUMP, MODE_DETAIL, MODE_HELP };

struct top {
	/* what to load */
	int pid;			/* 0 for a file */
	const char *file;
	enum pmaps_source source;
	int interval_ms;		/* 0: reload on 'r' only */

	struct pmaps_doc doc;		/* as loaded */
	bool has_filter;
	struct pmaps_flag_expr expr;
	char filter_text[128];
	struct pmaps_map filtered;	/* doc.map filtered, if has_filter */
	struct top_list list;		/* of doc.map or filtered */
	size_t sel, top;		/* selected and first shown row */
	int aw;				/* hex digits of an address */

	struct top_stats stats, prev_stats;

	enum mode mode;
	struct top_text pager;		/* text of the dump, detail or help */
	size_t pager_top;
	unsigned long long page;	/* the page of the dump and detail */

	/* a searched address: its page is the selected row's page */
	bool has_jump;
	size_t jump_row;
	unsigned long long jump_page;

	char search[128];		/* the last search, for 'n' */
	const char *prompt;		/* label of the line being edited */
	char input[128];		/* and the line */
	char msg[1024];			/* shown until the next key */
	struct timespec next_reload;
};

static volatile sig_atomic_t quit_signal;

static void on_signal(int sig)
{
	quit_signal = sig;
}

#define usage_error(...) pmaps_cmd_usage_error("top", __VA_ARGS__)

__attribute__((format(printf, 2, 3)))
static void say(struct top *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
}

/* Hex, "0x" optional, at most 64 bits, nothing else. */
static bool parse_hex(const char *s, unsigned long long *val)
{
	size_t n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strspn(s, "0123456789abcdefABCDEF");
	if (!n || s[n] || n > 16)
		return false;
	*val = strtoull(s, NULL, 16);
	return true;
}

/* The one process named name; a status and a message otherwise. */
static int pid_by_name(const char *name, int *pid)
{
	int n, *pids, i;

	n = pmaps_pids_by_name(name, &pids);
	if (n < 0) {
		fprintf(stderr, "pmaps top: /proc: %s\n", strerror(errno));
		return PMAPS_ERR_TARGET;
	}
	if (n == 0) {
		fprintf(stderr, "pmaps top: no process named %s\n", name);
		free(pids);
		return PMAPS_ERR_TARGET;
	}
	if (n > 1) {
		fprintf(stderr, "pmaps top: %d processes named %s, expected one; give its PID:",
			n, name);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %d", pids[i]);
		fputc('\n', stderr);
		free(pids);
		return PMAPS_ERR_INPUT;
	}
	*pid = pids[0];
	free(pids);
	return PMAPS_OK;
}

/* Sets *done after --help. */
static int parse_args(int argc, char **argv, struct top *t, bool *done)
{
	static char prog_name[] = "pmaps top";
	const char *name = NULL;
	struct timespec interval;
	long long ms;
	int opt, targets = 0;

	argv[0] = prog_name;	/* getopt_long's messages name it */
	*done = false;
	while ((opt = getopt_long(argc, argv, pmaps_top_options.shortopts,
				  long_options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			fputs(top_keys_help, stdout);
			*done = true;
			return PMAPS_OK;
		case PMAPS_OPT_PAGE_SIZE:
			if (pmaps_page_size_option("top", optarg))
				return PMAPS_ERR_INPUT;
			break;
		case OPT_SOURCE:
			if (pmaps_source_parse(optarg, &t->source))
				return usage_error("--source: expected auto, kernel, module, pagemap or file, got '%s'",
						   optarg);
			break;
		case 'p':
			name = optarg;
			targets++;
			break;
		case 'f':
			t->file = optarg;
			targets++;
			break;
		case 'i':
			if (pmaps_interval_parse("top", optarg, &interval))
				return PMAPS_ERR_INPUT;
			/* reloading faster would be all the screen shows */
			ms = pmaps_interval_ms(&interval);
			t->interval_ms = ms < 100 ? 100 : (int)ms;
			break;
		default:
			/* getopt_long has said what was wrong */
			return pmaps_cmd_usage_hint("top");
		}
	}
	targets += argc - optind;
	if (targets != 1)
		return usage_error("expected one PID, -p NAME or -f FILE");
	if (optind < argc) {
		if (t->source == PMAPS_SRC_FILE)
			t->file = argv[optind];
		else if (!pmaps_parse_pid(argv[optind], &t->pid))
			return usage_error("expected a PID, got '%s'",
					   argv[optind]);
		else
			t->pid = pmaps_cmd_tgid("top", t->pid);
	}
	if (name && t->source == PMAPS_SRC_FILE)
		return usage_error("--source=file reads files, not processes named %s",
				   name);
	if (name)
		return pid_by_name(name, &t->pid);
	return PMAPS_OK;
}

/* ---- the model: load, filter, select ---- */

static size_t nr_rows(const struct top *t)
{
	return t->list.nr_rows;
}

/* First row at or after addr (rows are in address order), else the last. */
static size_t row_at_or_after(const struct top *t, unsigned long long addr)
{
	size_t lo = 0, hi = nr_rows(t);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (top_row_addr(&t->list, mid) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr_rows(t) ? lo : (nr_rows(t) ? nr_rows(t) - 1 : 0);
}

/* The row of what was selected at addr, a header if header was. */
static size_t find_again(const struct top *t, unsigned long long addr,
			 bool header)
{
	size_t row;

	if (!top_list_find_addr(&t->list, addr, &row))
		return row_at_or_after(t, addr);
	if (header)
		row = t->list.vma_row[t->list.rows[row].vma];
	return row;
}

static int body_rows(const struct top *t);

/* Select row, scrolling only as far as needed to show it. */
static void select_row(struct top *t, size_t row)
{
	size_t h = (size_t)body_rows(t);

	t->sel = row;
	if (t->sel < t->top)
		t->top = t->sel;
	else if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
}

/* What is selected and where on the screen, to find it again. */
struct place {
	bool valid;
	unsigned long long addr;
	bool header;
	size_t screen_pos;
	bool jump;		/* addr is a searched page */
};

/* Call before the list or the map it indexes changes. */
static struct place save_place(const struct top *t)
{
	struct place p = { .valid = nr_rows(t) > 0 };

	if (p.valid) {
		p.jump = t->has_jump && t->jump_row == t->sel;
		p.addr = p.jump ? t->jump_page : top_row_addr(&t->list, t->sel);
		p.header = t->list.rows[t->sel].range == TOP_NO_RANGE;
		p.screen_pos = t->sel - t->top;
	}
	return p;
}

/* The list of the document as filtered, with p selected again. */
static int rebuild_list(struct top *t, struct place p, char *err,
			size_t errlen)
{
	top_list_free(&t->list);
	pmaps_map_free(&t->filtered);
	t->has_jump = false;
	t->sel = 0;
	t->top = 0;
	if (t->has_filter &&
	    top_map_filter(&t->doc.map, &t->expr, &t->filtered)) {
		snprintf(err, errlen, "pmaps top: out of memory");
		return -1;
	}
	if (top_list_build(&t->list, &t->doc,
			   t->has_filter ? &t->filtered : &t->doc.map, err,
			   errlen))
		return -1;
	if (p.valid && nr_rows(t)) {
		t->sel = find_again(t, p.addr, p.header);
		t->top = t->sel > p.screen_pos ? t->sel - p.screen_pos : 0;
		select_row(t, t->sel);
		/* still the searched page's row: Enter still shows that page */
		t->has_jump = p.jump && pmaps_find_vma(t->list.map, p.addr);
		t->jump_row = t->sel;
		t->jump_page = p.addr;
	}
	return 0;
}

/* Hex digits of an address: as view.c, at least 8, as wide as the last. */
static int address_width(const struct pmaps_map *m)
{
	unsigned long long end = m->nr_vmas ? m->vmas[m->nr_vmas - 1].end : 0;
	int n = 8;

	while (n < 16 && end >> (4 * n))
		n++;
	return n;
}

/*
 * Load the target; on success replace the document and the list.  On
 * failure the old ones stay and err says why.
 */
static int reload(struct top *t, char *err, size_t errlen)
{
	struct place p = save_place(t);
	struct pmaps_doc doc, old;
	int st;

	if (t->file)
		st = pmaps_load_file(t->file, &doc, err, errlen);
	else
		st = pmaps_load_pid(t->pid, t->source, &doc, err, errlen);
	if (st) {
		pmaps_doc_free(&doc);
		return st;
	}
	old = t->doc;
	t->doc = doc;
	if (rebuild_list(t, p, err, errlen)) {
		/* keep showing the old document */
		pmaps_doc_free(&t->doc);
		t->doc = old;
		rebuild_list(t, p, err + strlen(err), 0);
		return PMAPS_ERR_TARGET;
	}
	pmaps_doc_free(&old);
	/* on the screen: stderr would be written over it */
	if (t->doc.warning[0])
		say(t, "%s", t->doc.warning);
	t->aw = address_width(&t->doc.map);
	if (t->pid) {
		t->prev_stats = t->stats;
		top_stats_read(t->pid, &t->stats);
	}
	return PMAPS_OK;
}

/* ---- page views ---- */

static void pager_text(struct top *t, const char *s)
{
	top_text_free(&t->pager);
	if (top_text_set(&t->pager, s))
		say(t, "pmaps top: %s", strerror(errno));
}

/*
 * Show the dump or the detail of page; keep_scroll when it is the same
 * page again (a reload).  A dump of a file is refused with a message.
 */
static void open_page(struct top *t, enum mode mode,
		      unsigned long long page, bool keep_scroll)
{
	struct pmaps_view_opts opts = { .kind = PMAPS_VIEW_ADDRESS };
	size_t scroll = keep_scroll ? t->pager_top : 0;
	char err[512];

	if (mode == MODE_DUMP && !t->doc.pid) {
		say(t, "no hex dump: %s is a saved document, not a live process",
		    t->doc.label);
		return;
	}
	top_text_free(&t->pager);
	if (mode == MODE_DUMP) {
		if (top_dump_page(&t->pager, t->doc.pid, page, t->aw,
				  top_map_resident(&t->doc.map, page), err,
				  sizeof(err)))
			pager_text(t, err);
	} else {
		opts.address = page;
		/* ENOENT: the VMA went away in a reload; the view says so */
		if (top_text_view(&t->pager, &opts, &t->doc) &&
		    errno != ENOENT) {
			snprintf(err, sizeof(err),
				 "pmaps top: cannot show page 0x%llx: %s",
				 page, strerror(errno));
			pager_text(t, err);
		}
	}
	t->mode = mode;
	t->page = page;
	t->pager_top = scroll;
}

/* The previous (dir -1) or next (+1) page of the VMA of the page shown. */
static void step_page(struct top *t, int dir)
{
	const struct pmaps_vma *v = pmaps_find_vma(&t->doc.map, t->page);
	unsigned long long psize = pmaps_map_page_size(&t->doc.map);

	if (!v) {
		say(t, "0x%llx is in no VMA any more", t->page);
		return;
	}
	if (dir < 0 && t->page < v->start + psize) {
		say(t, "the first page of the VMA");
		return;
	}
	if (dir > 0 && t->page + psize >= v->end) {
		say(t, "the last page of the VMA");
		return;
	}
	open_page(t, t->mode, dir < 0 ? t->page - psize : t->page + psize,
		  false);
}

/* The page of the selected row, or the one searched for in it. */
static unsigned long long selected_page(const struct top *t)
{
	if (t->has_jump && t->jump_row == t->sel)
		return t->jump_page;
	return top_row_addr(&t->list, t->sel);
}

/* ---- drawing ---- */

/*
 * The message in rows of at most COLS, broken at blanks where it can be;
 * the row starts and lengths go to start[] and len[] (MSG_ROWS_MAX each).
 */
static int wrap_msg(const struct top *t, size_t *start, size_t *len)
{
	size_t cols = COLS > 0 ? (size_t)COLS : 1, at = 0, n;
	size_t all = strlen(t->msg);
	int rows = 0;

	while (at < all && rows < MSG_ROWS_MAX) {
		n = all - at;
		if (n > cols) {
			n = cols;
			/* the last blank that fits, if any */
			while (n && t->msg[at + n] != ' ')
				n--;
			if (!n)
				n = cols;
		}
		start[rows] = at;
		len[rows++] = n;
		at += n;
		if (at < all && t->msg[at] == ' ')
			at++;
	}
	return rows;
}

static int msg_rows(const struct top *t)
{
	size_t start[MSG_ROWS_MAX], len[MSG_ROWS_MAX];

	return wrap_msg(t, start, len);
}

static int body_rows(const struct top *t)
{
	int h = LINES - HEADER_ROWS - 1 - msg_rows(t);

	return h > 1 ? h : 1;
}

/* s[0..len) at (y, x), cut at the right edge. */
static void put(int y, int x, const char *s, size_t len)
{
	size_t room = COLS > x ? (size_t)(COLS - x) : 0;

	if (y < 0 || y >= LINES || !room)
		return;
	mvaddnstr(y, x, s, (int)(len < room ? len : room));
}

static void put_str(int y, int x, const char *s)
{
	put(y, x, s, strlen(s));
}

/* A whole row in reverse video, s at its left. */
static void put_bar(int y, const char *s)
{
	move(y, 0);
	clrtoeol();
	put_str(y, 0, s);
	mvchgat(y, 0, -1, A_REVERSE, 0, NULL);
}

static void draw_title(struct top *t)
{
	static const char right[] = "? help  q quit ";
	char buf[512];
	size_t len;
	const char *title = top_text_line(&t->list.text, 0, &len);
	int n;

	n = snprintf(buf, sizeof(buf), " pmaps top  %.*s", (int)len, title);
	if (t->interval_ms && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 "  (reload every %g s)", t->interval_ms / 1000.0);
	put_bar(0, buf);
	if ((size_t)COLS > strlen(buf) + sizeof(right))
		put_str(0, COLS - (int)sizeof(right) + 1, right);
	mvchgat(0, 0, -1, A_REVERSE, 0, NULL);
}

/* "NAME N kB  ", or "NAME -  " when status lacks it, at buf + n. */
static size_t put_kb(char *buf, size_t n, size_t size, const struct top *t,
		     enum top_status_field k)
{
	int len;

	if (n >= size)
		return n;
	if (t->stats.kb[k] < 0)
		len = snprintf(buf + n, size - n, "%s -  ",
			       top_status_names[k]);
	else
		len = snprintf(buf + n, size - n, "%s %lld kB  ",
			       top_status_names[k], t->stats.kb[k]);
	return len > 0 ? n + (size_t)len : n;
}

/* "NAME N (+D)  ": a fault count and its change since the last load. */
static size_t put_faults(char *buf, size_t n, size_t size, const char *name,
			 unsigned long long now, unsigned long long before,
			 bool have_before)
{
	int len;

	if (n >= size)
		return n;
	if (have_before)
		len = snprintf(buf + n, size - n, "%s %llu (+%llu)  ", name,
			       now, now - before);
	else
		len = snprintf(buf + n, size - n, "%s %llu  ", name, now);
	return len > 0 ? n + (size_t)len : n;
}

/* What the issue asks for first, so a narrow screen still shows it. */
static void draw_stats(struct top *t)
{
	const struct top_stats *now = &t->stats, *before = &t->prev_stats;
	char buf[512];
	size_t n = 0;

	if (!t->doc.pid) {
		put_str(1, 0, "statistics: not available for a saved document (no process to read /proc/PID/status of)");
		return;
	}
	if (!now->ok) {
		snprintf(buf, sizeof(buf), "statistics: %s", now->err);
		put_str(1, 0, buf);
		return;
	}
	n = put_kb(buf, n, sizeof(buf), t, TOP_VMRSS);
	n = put_kb(buf, n, sizeof(buf), t, TOP_VMSWAP);
	n = put_faults(buf, n, sizeof(buf), "minflt", now->minflt,
		       before->minflt, before->ok);
	n = put_faults(buf, n, sizeof(buf), "majflt", now->majflt,
		       before->majflt, before->ok);
	n = put_kb(buf, n, sizeof(buf), t, TOP_RSSANON);
	n = put_kb(buf, n, sizeof(buf), t, TOP_RSSFILE);
	n = put_kb(buf, n, sizeof(buf), t, TOP_RSSSHMEM);
	n = put_kb(buf, n, sizeof(buf), t, TOP_VMHWM);
	/* no blanks at the end */
	while (n && (n >= sizeof(buf) || buf[n - 1] == ' '))
		n--;
	/* on a narrow screen, whole items only */
	if (n > (size_t)COLS) {
		size_t cut = (size_t)COLS;

		while (cut && !(buf[cut] == ' ' && buf[cut + 1] == ' '))
			cut--;
		if (cut)
			n = cut;
	}
	put(1, 0, buf, n);
}

/* The total line of the view, wrapped at its two-blank gaps. */
static void draw_totals(struct top *t)
{
	size_t len, used = 0, i = 0;
	const char *s = top_text_line(&t->list.text,
				      t->list.text.nr_lines - 1, &len);
	int y = 2, x = 0;

	while (i < len && y < HEADER_ROWS) {
		const char *gap = NULL;
		size_t n;

		/* the next item runs to the next "  " or the end */
		for (n = i; n + 1 < len; n++)
			if (s[n] == ' ' && s[n + 1] == ' ') {
				gap = s + n;
				break;
			}
		n = gap ? (size_t)(gap - s) - i : len - i;
		if (x && used + 2 + n > (size_t)COLS) {
			y++;
			x = 0;
			used = 0;
			if (y >= HEADER_ROWS)
				break;
		}
		if (x) {
			used += 2;
			x += 2;
		}
		attron(A_BOLD);
		put(y, x, s + i, n);
		attroff(A_BOLD);
		used += n;
		x += (int)n;
		i += n;
		while (i < len && s[i] == ' ')
			i++;
	}
}

static void draw_list(struct top *t)
{
	int h = body_rows(t), y;

	/* a message may have taken rows from the list */
	select_row(t, t->sel);
	if (!nr_rows(t)) {
		put_str(HEADER_ROWS, 2, t->has_filter ?
			"(no range matches the filter; f and an empty line clear it)" :
			"(no VMAs)");
		return;
	}
	for (y = 0; y < h && t->top + (size_t)y < nr_rows(t); y++) {
		size_t row = t->top + (size_t)y, len;
		const char *s = top_text_line(&t->list.text, row + 1, &len);
		bool header = t->list.rows[row].range == TOP_NO_RANGE;
		attr_t attr = header ? A_BOLD : A_NORMAL;

		if (row == t->sel) {
			attr |= A_REVERSE;
			put_str(HEADER_ROWS + y, 0, ">");
		}
		attron(attr);
		put(HEADER_ROWS + y, 2, s, len);
		attroff(attr);
		if (row == t->sel)
			mvchgat(HEADER_ROWS + y, 0, -1, attr, 0, NULL);
	}
}

static void draw_pager(struct top *t)
{
	int h = body_rows(t), y;

	for (y = 0; y < h && t->pager_top + (size_t)y < t->pager.nr_lines;
	     y++) {
		size_t len;
		const char *s = top_text_line(&t->pager, t->pager_top +
					      (size_t)y, &len);

		put(HEADER_ROWS + y, 0, s, len);
	}
}

static void draw_bottom(struct top *t)
{
	size_t start[MSG_ROWS_MAX], len[MSG_ROWS_MAX], n;
	int rows = wrap_msg(t, start, len), y = LINES - 1 - rows, i;
	char buf[512];

	for (i = 0; i < rows; i++)
		put(y + i, 0, t->msg + start[i], len[i]);
	if (t->prompt) {
		move(LINES - 1, 0);
		clrtoeol();
		snprintf(buf, sizeof(buf), "%s: %s", t->prompt, t->input);
		put_str(LINES - 1, 0, buf);
		return;
	}
	switch (t->mode) {
	case MODE_LIST:
		n = (size_t)snprintf(buf, sizeof(buf), " row %zu/%zu",
				     nr_rows(t) ? t->sel + 1 : 0, nr_rows(t));
		if (nr_rows(t))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "  page 0x%llx",
					      selected_page(t));
		if (t->has_filter)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "  filter: %s", t->filter_text);
		snprintf(buf + n, sizeof(buf) - n,
			 "  | Enter dump  Tab detail  / search  f filter  r reload");
		break;
	case MODE_DUMP:
	case MODE_DETAIL:
		snprintf(buf, sizeof(buf),
			 " %s of page 0x%llx  line %zu/%zu  | Left/Right page  Tab %s  q back",
			 t->mode == MODE_DUMP ? "dump" : "detail", t->page,
			 t->pager.nr_lines ? t->pager_top + 1 : 0,
			 t->pager.nr_lines,
			 t->mode == MODE_DUMP ? "detail" : "dump");
		break;
	case MODE_HELP:
		snprintf(buf, sizeof(buf), " help  line %zu/%zu  | q back",
			 t->pager_top + 1, t->pager.nr_lines);
		break;
	}
	put_bar(LINES - 1, buf);
}

static void draw(struct top *t)
{
	erase();
	if (t->list.text.nr_lines < 2) {
		/* only when a failed reload could not rebuild the old list */
		put_str(0, 0, "pmaps top: nothing to show (press r to reload, q to quit)");
		put_str(1, 0, t->msg);
		refresh();
		return;
	}
	if (LINES < HEADER_ROWS + 3 || COLS < 20) {
		put_str(0, 0, "pmaps top: terminal too small");
		refresh();
		return;
	}
	draw_title(t);
	draw_stats(t);
	draw_totals(t);
	if (t->mode == MODE_LIST)
		draw_list(t);
	else
		draw_pager(t);
	draw_bottom(t);
	if (t->prompt) {
		int x = (int)(strlen(t->prompt) + 2 + strlen(t->input));

		curs_set(1);
		move(LINES - 1, x < COLS ? x : COLS - 1);
	} else {
		curs_set(0);
	}
	refresh();
}

/* ---- keys ---- */

/* Milliseconds until the next periodic reload; TICK_MS at most. */
static int wait_ms(const struct top *t)
{
	struct timespec now;
	long long ms;

	if (!t->interval_ms)
		return TICK_MS;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (t->next_reload.tv_sec - now.tv_sec) * 1000LL +
	     (t->next_reload.tv_nsec - now.tv_nsec) / 1000000;
	if (ms < 0)
		return 0;
	return ms > TICK_MS ? TICK_MS : (int)ms;
}

static void schedule_reload(struct top *t)
{
	long long ns;

	if (!t->interval_ms)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t->next_reload);
	ns = t->next_reload.tv_nsec + t->interval_ms * 1000000LL;
	t->next_reload.tv_sec += ns / 1000000000;
	t->next_reload.tv_nsec = ns % 1000000000;
}

/* Reload, and the page shown with it; a failure is a message. */
static void do_reload(struct top *t)
{
	char err[4096];

	static const char failed[] = "reload failed, showing the last document: ";

	if (reload(t, err, sizeof(err))) {
		say(t, "%s%s", failed, err);
	} else {
		/* that message is about the last reload only */
		if (!strncmp(t->msg, failed, sizeof(failed) - 1))
			t->msg[0] = '\0';
		if (t->mode == MODE_DUMP || t->mode == MODE_DETAIL)
			open_page(t, t->mode, t->page, true);
	}
	schedule_reload(t);
}

static int next_key(struct top *t)
{
	timeout(wait_ms(t));
	return getch();
}

/* Edit a line at the bottom; false if cancelled (Esc) or on a signal. */
static bool prompt(struct top *t, const char *label)
{
	size_t n = 0;
	int key;

	t->prompt = label;
	t->input[0] = '\0';
	for (;;) {
		draw(t);
		key = next_key(t);
		if (quit_signal)
			break;
		if (key == '\n' || key == '\r' || key == KEY_ENTER) {
			t->prompt = NULL;
			return true;
		}
		if (key == 27)
			break;
		if (key == KEY_BACKSPACE || key == 127 || key == 8) {
			if (n)
				t->input[--n] = '\0';
		} else if (key == 21) {		/* ^U */
			n = 0;
			t->input[0] = '\0';
		} else if (key >= 0x20 && key <= 0xff && key != 127 &&
			   n + 1 < sizeof(t->input)) {
			t->input[n++] = (char)key;
			t->input[n] = '\0';
		}
	}
	t->prompt = NULL;
	return false;
}

static void search(struct top *t, const char *s)
{
	unsigned long long addr;
	size_t row;

	if (!*s)
		return;
	if (parse_hex(s, &addr)) {
		if (top_list_find_addr(&t->list, addr, &row)) {
			select_row(t, row);
			/* Enter and Tab show the page searched for */
			t->has_jump = true;
			t->jump_row = row;
			t->jump_page = addr - addr %
					pmaps_map_page_size(&t->doc.map);
			return;
		}
		if (t->has_filter && pmaps_find_vma(&t->doc.map, addr)) {
			say(t, "0x%llx: its VMA is hidden by the filter %s",
			    addr, t->filter_text);
			return;
		}
	}
	if (top_list_find_name(&t->list, t->sel, s, &row)) {
		select_row(t, row);
		return;
	}
	say(t, "not found: %s", s);
}

/* The terms of the f prompt, each as a --flags option. */
static void set_filter(struct top *t, const char *text)
{
	struct pmaps_flag_expr expr = { 0 };
	char copy[sizeof(t->input)], err[512];
	const char *msg;
	char *term, *save;
	struct place p;

	snprintf(copy, sizeof(copy), "%s", text);
	for (term = strtok_r(copy, " \t", &save); term;
	     term = strtok_r(NULL, " \t", &save)) {
		if (pmaps_flag_expr_parse(term, &expr, err, sizeof(err))) {
			msg = err;
			if (!strncmp(msg, "pmaps: ", 7))
				msg += 7;
			say(t, "%s", msg);
			return;
		}
	}
	p = save_place(t);
	t->has_filter = expr.nr_terms > 0;
	t->expr = expr;
	snprintf(t->filter_text, sizeof(t->filter_text), "%s", text);
	if (rebuild_list(t, p, err, sizeof(err)))
		say(t, "%s", err);
	else if (!t->has_filter)
		say(t, "filter cleared");
}


static void show_help(struct top *t)
{
	pager_text(t, top_keys_help);
	t->mode = MODE_HELP;
	t->pager_top = 0;
}

/* Keys of the page views and the help; false to quit. */
static void pager_key(struct top *t, int key)
{
	size_t h = (size_t)body_rows(t), n = t->pager.nr_lines;
	size_t last = n > h ? n - h : 0;

	switch (key) {
	case KEY_UP:
	case 'k':
		if (t->pager_top)
			t->pager_top--;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->pager_top < last)
			t->pager_top++;
		break;
	case KEY_PPAGE:
		t->pager_top = t->pager_top > h ? t->pager_top - h : 0;
		break;
	case KEY_NPAGE:
	case ' ':
		t->pager_top = t->pager_top + h < last ? t->pager_top + h :
			       last;
		break;
	case KEY_HOME:
	case 'g':
		t->pager_top = 0;
		break;
	case KEY_END:
	case 'G':
		t->pager_top = last;
		break;
	case KEY_LEFT:
	case KEY_RIGHT:
		if (t->mode != MODE_HELP)
			step_page(t, key == KEY_LEFT ? -1 : 1);
		break;
	case '\t':
		if (t->mode != MODE_HELP)
			open_page(t, t->mode == MODE_DUMP ? MODE_DETAIL :
				  MODE_DUMP, t->page, false);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (t->mode == MODE_DETAIL)
			open_page(t, MODE_DUMP, t->page, false);
		break;
	case '?':
		if (t->mode == MODE_HELP)
			t->mode = MODE_LIST;
		else
			show_help(t);
		break;
	case 'r':
		do_reload(t);
		break;
	case 'q':
	case 27:
	case KEY_BACKSPACE:
	case 127:
		t->mode = MODE_LIST;
		top_text_free(&t->pager);
		break;
	}
}

/* The previous (dir -1) or next (+1) VMA header from the selection. */
static void step_vma(struct top *t, int dir)
{
	size_t vma;

	if (!nr_rows(t))
		return;
	vma = t->list.rows[t->sel].vma;
	if (dir < 0 && t->list.rows[t->sel].range != TOP_NO_RANGE)
		select_row(t, t->list.vma_row[vma]);
	else if (dir < 0 && vma)
		select_row(t, t->list.vma_row[vma - 1]);
	else if (dir > 0 && vma + 1 < t->list.map->nr_vmas)
		select_row(t, t->list.vma_row[vma + 1]);
}

/* Keys of the list; false to quit. */
static bool list_key(struct top *t, int key)
{
	size_t h = (size_t)body_rows(t), n = nr_rows(t);
	size_t last = n ? n - 1 : 0;

	switch (key) {
	case 'q':
		return false;
	case KEY_UP:
	case 'k':
		if (t->sel)
			select_row(t, t->sel - 1);
		break;
	case KEY_DOWN:
	case 'j':
		if (t->sel < last)
			select_row(t, t->sel + 1);
		break;
	case KEY_PPAGE:
		t->top = t->top > h ? t->top - h : 0;
		select_row(t, t->sel > h ? t->sel - h : 0);
		break;
	case KEY_NPAGE:
		/* the page moves with the selection, as in less */
		if (n > h)
			t->top = t->top + h < n - h ? t->top + h : n - h;
		select_row(t, t->sel + h < last ? t->sel + h : last);
		break;
	case KEY_HOME:
	case 'g':
		select_row(t, 0);
		break;
	case KEY_END:
	case 'G':
		select_row(t, last);
		break;
	case KEY_LEFT:
	case KEY_RIGHT:
		step_vma(t, key == KEY_LEFT ? -1 : 1);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case '\t':
		if (!n)
			say(t, "no page to show: the list is empty");
		else
			open_page(t, key == '\t' ? MODE_DETAIL : MODE_DUMP,
				  selected_page(t), false);
		break;
	case '/':
		if (prompt(t, "search (hex address or name)")) {
			snprintf(t->search, sizeof(t->search), "%s", t->input);
			search(t, t->search);
		}
		break;
	case 'n':
		if (t->search[0])
			search(t, t->search);
		else
			say(t, "no search yet: / starts one");
		break;
	case 'f':
		if (prompt(t, "filter by flags, as --flags (empty: none)"))
			set_filter(t, t->input);
		break;
	case 'r':
		do_reload(t);
		break;
	case '?':
		show_help(t);
		break;
	}
	return true;
}

static void run(struct top *t)
{
	int key;

	schedule_reload(t);
	for (;;) {
		draw(t);
		/* ERR: no key yet; wait on, unless a reload is due */
		do
			key = next_key(t);
		while (key == ERR && !quit_signal &&
		       !(t->interval_ms && !wait_ms(t)));
		if (quit_signal)
			return;
		if (key == ERR) {
			do_reload(t);
			continue;
		}
		if (key == KEY_RESIZE)
			continue;
		t->msg[0] = '\0';
		if (t->mode == MODE_LIST) {
			if (!list_key(t, key))
				return;
		} else {
			pager_key(t, key);
		}
	}
}

/* ---- entry ---- */

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal ends the wait for a key at once */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void top_free(struct top *t)
{
	top_text_free(&t->pager);
	top_list_free(&t->list);
	pmaps_map_free(&t->filtered);
	pmaps_doc_free(&t->doc);
}

int pmaps_cmd_top(int argc, char **argv)
{
	struct top t;
	char err[4096];
	SCREEN *screen;
	bool done;
	int st;

	memset(&t, 0, sizeof(t));
	t.source = PMAPS_SRC_AUTO;
	st = parse_args(argc, argv, &t, &done);
	if (st || done)
		return st;
	st = reload(&t, err, sizeof(err));
	if (st) {
		pmaps_cmd_report("top", err);
		top_free(&t);
		return st;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		top_free(&t);
		return usage_error("needs a terminal: standard input and output must be one");
	}

	/* ncurses leaves SIGINT and SIGTERM alone once they are caught */
	catch_signals();
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		top_free(&t);
		fprintf(stderr, "pmaps top: cannot use the terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return PMAPS_ERR_INPUT;
	}
	set_term(screen);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	run(&t);
	endwin();
	delscreen(screen);
	top_free(&t);
	if (quit_signal) {
		/* die of it, as the shell expects */
		signal(quit_signal, SIG_DFL);
		raise(quit_signal);
	}
	return PMAPS_OK;
}
