// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps watch: read a process again every interval and show it, the text
 * view or the map, marking what changed since the previous frame:
 *
 *   +  resident now, not before (appeared)
 *   -  resident before, not now (vanished: reclaimed or unmapped)
 *   D  resident both times, dirty (D or P) now and not before
 *   Y  resident both times, young now and not before
 *
 * A flag the source cannot know ('?') never changes.  Pages are compared
 * by address, so a VMA that moved or split compares as what it holds.
 *
 * On a terminal each frame replaces the last and q quits; a frame taller
 * than the screen scrolls under its title and totals, which stay, and the
 * scroll position is kept from frame to frame.  Otherwise frames follow
 * one another, each opened by a "=== frame N" line, which is what scripts
 * and the tests read.  Only the previous document is kept and the
 * buffers are reused, so memory stays flat however long it runs.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cgroup.h"
#include "cli.h"
#include "commands.h"
#include "map.h"

/* -i's default: as the title prints it, and in milliseconds */
#define DEFAULT_INTERVAL	"1"
#define DEFAULT_INTERVAL_MS	1000

static const char watch_usage[] =
"Usage: pmaps watch [OPTION]... PID\n"
"       pmaps watch [OPTION]... -f FILE...\n"
"       pmaps watch [OPTION]... --cgroup PATH\n"
"Read a process again every interval and show it, marking what changed\n"
"since the last frame: + appeared, - vanished (reclaimed or unmapped),\n"
"D became dirty, Y became young.  A flag shown as '?' (unknown to the\n"
"source) never changes, and a total of pages that some '?' leaves unknown\n"
"(dirty, young; all but resident without root) is -.\n"
"\n"
"On a terminal q quits, and a frame taller than the screen scrolls under\n"
"its totals: Up/Down or k/j a line, PgUp/PgDn (Space) a screen, Home/End\n"
"or g/G to either end.\n"
"\n"
"Target:\n"
"  PID                   the process\n"
"      --source=SOURCE   auto, kernel, module or pagemap, as for pmaps\n"
"      --numa            read the NUMA files, as pmaps --numa does: with\n"
"                        AGE, a line of pages per age under the totals\n"
"  -f, --file FILE       a saved pmaps document, read again each frame; with\n"
"                        several, frame N reads the Nth, starting over after\n"
"                        the last\n"
PMAPS_PAGE_SIZE_HELP
"      --cgroup PATH     every process of cgroup PATH and the cgroups below\n"
"                        it, listed again each frame: each process's view\n"
"                        under a \"--- process PID\" line, which says\n"
"                        appeared or gone for one that joined or ended since\n"
"                        the last frame (no error), and a group total first;\n"
"                        not with --map\n"
"\n"
"Frames:\n"
"  -i, --interval SECS   seconds between frames, e.g. 0.5 (default 1); a\n"
"                        whole number from 100 is refused as milliseconds:\n"
"                        write 300.0 for 300 seconds\n"
"  -n, --frames N        stop after N frames (default: until q or a signal)\n"
"      --map             the picture of pmaps map instead of the text view\n"
"      --changed         only the VMAs that changed since the last frame:\n"
"                        that appeared, are gone or have pages marked (the\n"
"                        first frame, with nothing to compare, shows all)\n"
"  -w, --width COLUMNS   --map: as for pmaps map\n"
"  -s, --scale N         --map: as for pmaps map\n"
"      --color[=WHEN]    auto (default: if stdout is a terminal and NO_COLOR\n"
"                        is unset or empty), always or never\n"
"      --self-stats      after each frame's totals, this program's own heap\n"
"                        in use and resident size, to check a long watch\n"
"  -h, --help            show this help and exit\n"
"\n"
"Filters, as for pmaps (with --map, as for pmaps map), applied to each frame\n"
"before it is compared: a page or VMA that leaves the selection is marked\n"
"-, one that enters it +:\n"
PMAPS_FILTER_HELP
"\n"
"Exit status: 0 after the last frame, q or SIGINT/SIGTERM; 1 if the process\n"
"or a file could not be read; 2 for malformed input or bad usage.\n";

enum {
	OPT_SOURCE = 256,
	OPT_COLOR,
	OPT_MAP,
	OPT_CHANGED,
	OPT_SELF_STATS,
	OPT_CGROUP,
	OPT_NUMA,
};

static const struct option watch_options[] = {
	{ "file",	required_argument, NULL, 'f' },
	{ "source",	required_argument, NULL, OPT_SOURCE },
	{ "interval",	required_argument, NULL, 'i' },
	{ "frames",	required_argument, NULL, 'n' },
	{ "map",	no_argument,	   NULL, OPT_MAP },
	{ "changed",	no_argument,	   NULL, OPT_CHANGED },
	{ "width",	required_argument, NULL, 'w' },
	{ "scale",	required_argument, NULL, 's' },
	{ "color",	optional_argument, NULL, OPT_COLOR },
	{ "self-stats",	no_argument,	   NULL, OPT_SELF_STATS },
	{ "cgroup",	required_argument, NULL, OPT_CGROUP },
	{ "numa",	no_argument,	   NULL, OPT_NUMA },
	PMAPS_FILTER_OPTIONS,
	PMAPS_PAGE_SIZE_OPTION,
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_watch_options = {
	.shortopts = "f:i:n:w:s:h",
	.longopts = watch_options,
};

/* Pages [start, end) that were in range old (or none) and are in now. */
struct segment {
	unsigned long long start, end;
	const struct pmaps_range *old, *now;
	enum pmaps_change_mark mark;
};

/* Pages per kind in one document. */
struct totals {
	unsigned long long resident, dirty, young;
	/* a page neither known dirty nor known clean (P or D '?'): the
	 * count is a lower bound, printed as such, or "-" (the view's rule) */
	bool dirty_unknown;
	bool young_unknown;
	/* pages per AGE, where the document has it (has_age) */
	bool has_age;
	struct pmaps_ages ages;
};

/* A process of --cgroup, from one frame to the next. */
struct member {
	int pid;
	bool have_prev;			/* false: appeared this frame */
	struct pmaps_doc prev, now;
	struct totals prev_totals, totals;
};

struct watch {
	/* options */
	const char *group;		/* --cgroup PATH, as given */
	char group_dir[4096];		/* ... resolved */
	int pid;
	enum pmaps_source source;
	char **files;
	size_t nr_files;
	long long interval_ms;
	const char *interval;		/* as given, for the title */
	unsigned long long frames;
	bool map_view, changed_only, self_stats, tty, color, keys;
	unsigned int width;		/* --width, 0: the terminal's */
	struct pmaps_map_opts map_opts;
	struct pmaps_filter filter;
	/* state */
	unsigned long long frame;
	struct pmaps_doc prev, now;
	bool have_prev;
	struct totals prev_totals;
	/* reused from frame to frame */
	struct segment *segs;
	size_t nr_segs, cap_segs;
	struct pmaps_change *changes;
	size_t nr_changes, cap_changes;
	unsigned long long changed[PMAPS_CHANGE_NR];	/* pages */
	/* --changed --map: the VMAs now that changed, sharing their parts */
	struct pmaps_vma *shown;
	size_t nr_shown, cap_shown;
	/* the terminal: the last frame, kept to scroll it between frames */
	char *screen;
	size_t screen_len;
	size_t head_len;		/* its title and totals, which stay */
	size_t scroll;			/* lines after them scrolled off */
	size_t last;			/* the largest scroll: End */
	size_t page;			/* lines of them shown: PgUp, PgDn */
	/* --cgroup: the members read this frame, in PID order, and the
	 * PIDs of those of the last frame that have ended since */
	struct member *members;
	size_t nr_members;
	struct gone {
		int pid;
		unsigned long long resident;	/* in its last frame */
	} *gone;
	size_t nr_gone;
	struct totals group_prev;
};

static volatile sig_atomic_t stop_signal, resized, loading;
static struct termios saved_termios;
static bool termios_saved, screen_taken;

#define watch_usage_error(...) pmaps_cmd_usage_error("watch", __VA_ARGS__)

/* ---- comparing two documents ---- */

/* The ranges of a document in address order, across its VMAs. */
struct range_iter {
	const struct pmaps_map *map;
	size_t vi, ri;
	const struct pmaps_range *r;
	unsigned long long start, end;
};

static void iter_settle(struct range_iter *it)
{
	const struct pmaps_map *m = it->map;

	while (it->vi < m->nr_vmas && it->ri >= m->vmas[it->vi].nr_ranges) {
		it->vi++;
		it->ri = 0;
	}
	it->r = NULL;
	if (it->vi < m->nr_vmas) {
		const struct pmaps_vma *v = &m->vmas[it->vi];

		it->r = &v->ranges[it->ri];
		it->start = pmaps_range_addr(v, it->r);
		it->end = it->start + it->r->count * pmaps_vma_page_size(v);
	}
}

static void iter_init(struct range_iter *it, const struct pmaps_map *m)
{
	memset(it, 0, sizeof(*it));
	it->map = m;
	iter_settle(it);
}

static void iter_next(struct range_iter *it)
{
	it->ri++;
	iter_settle(it);
}

static unsigned int known(const struct pmaps_range *r)
{
	return r->flags & ~r->unknown;
}

static bool is_dirty(const struct pmaps_range *r)
{
	return pmaps_range_dirtiness(r) == PMAPS_DIRTY_SET;
}

static bool is_young(const struct pmaps_range *r)
{
	return known(r) & (1u << PMAPS_YOUNG);
}

static enum pmaps_change_mark mark_of(const struct pmaps_range *old,
				      const struct pmaps_range *now)
{
	if (!old)
		return PMAPS_CHANGE_APPEARED;
	if (!now)
		return PMAPS_CHANGE_VANISHED;
	if (is_dirty(now) && !is_dirty(old))
		return PMAPS_CHANGE_DIRTY;
	if (is_young(now) && !is_young(old))
		return PMAPS_CHANGE_YOUNG;
	return PMAPS_CHANGE_NONE;
}

/* Append [start, end), joined to the last segment when it shows alike. */
static int add_segment(struct watch *w, unsigned long long start,
		       unsigned long long end, const struct pmaps_range *old,
		       const struct pmaps_range *now)
{
	enum pmaps_change_mark mark = mark_of(old, now);
	struct segment *last = w->nr_segs ? &w->segs[w->nr_segs - 1] : NULL;

	w->changed[mark] += (end - start) / pmaps_map_page_size(&w->now.map);
	if (last && last->end == start && last->mark == mark &&
	    (mark == PMAPS_CHANGE_VANISHED ? last->old == old :
	     last->now == now)) {
		last->end = end;
		return 0;
	}
	if (pmaps_grow_array((void **)&w->segs, &w->cap_segs, w->nr_segs + 1,
			     sizeof(*w->segs)))
		return -1;
	w->segs[w->nr_segs++] = (struct segment) {
		.start = start, .end = end, .old = old, .now = now,
		.mark = mark,
	};
	return 0;
}

/*
 * Sweep both documents' ranges by address: a segment wherever the pair
 * (range before, range now) stays the same.  With no previous frame,
 * every range is a segment of its own, unmarked.
 */
static int compare(struct watch *w)
{
	static const struct pmaps_map empty;
	struct range_iter a, b;
	unsigned long long pos = 0, next;
	size_t i;

	w->nr_segs = 0;
	w->nr_changes = 0;
	memset(w->changed, 0, sizeof(w->changed));
	iter_init(&a, w->have_prev ? &w->prev.map : &empty);
	iter_init(&b, &w->now.map);
	while (a.r || b.r) {
		const struct pmaps_range *old = a.r && a.start <= pos &&
						pos < a.end ? a.r : NULL;
		const struct pmaps_range *now = b.r && b.start <= pos &&
						pos < b.end ? b.r : NULL;

		if (!old && !now) {
			pos = !a.r ? b.start : !b.r ? a.start :
			      a.start < b.start ? a.start : b.start;
			continue;
		}
		next = ~0ULL;
		if (a.r)
			next = a.start > pos ? a.start : a.end;
		if (b.r) {
			unsigned long long bn = b.start > pos ? b.start : b.end;

			next = bn < next ? bn : next;
		}
		if (!w->have_prev)
			old = now;	/* nothing to compare with */
		if (add_segment(w, pos, next, old, now))
			return -1;
		pos = next;
		if (a.r && a.end <= pos)
			iter_next(&a);
		if (b.r && b.end <= pos)
			iter_next(&b);
	}
	for (i = 0; i < w->nr_segs; i++) {
		const struct segment *s = &w->segs[i];

		if (!s->mark)
			continue;
		if (pmaps_grow_array((void **)&w->changes, &w->cap_changes,
				     w->nr_changes + 1, sizeof(*w->changes)))
			return -1;
		w->changes[w->nr_changes++] = (struct pmaps_change) {
			.start = s->start, .end = s->end, .mark = s->mark,
		};
	}
	return 0;
}

static void count_totals(const struct pmaps_map *m, struct totals *t)
{
	size_t i, j;

	memset(t, 0, sizeof(*t));
	t->has_age = m->numa && m->age;
	for (i = 0; i < m->nr_vmas; i++) {
		for (j = 0; j < m->vmas[i].nr_ranges; j++) {
			const struct pmaps_range *r = &m->vmas[i].ranges[j];

			t->resident += r->count;
			if (t->has_age)
				pmaps_ages_add(&t->ages, r);
			if (is_dirty(r))
				t->dirty += r->count;
			else if (pmaps_range_dirtiness(r) ==
				 PMAPS_DIRTY_UNKNOWN)
				t->dirty_unknown = true;
			if (is_young(r))
				t->young += r->count;
			if (r->unknown & (1u << PMAPS_YOUNG))
				t->young_unknown = true;
		}
	}
}

/* ---- drawing a frame ---- */

static const char *const mark_sgr[PMAPS_CHANGE_NR] = {
	"", "\033[33m", "\033[31m", "\033[32m", "\033[35m",
};

static void put_mark(const struct watch *w, FILE *out,
		     enum pmaps_change_mark mark)
{
	if (w->color && mark)
		fprintf(out, "\033[1m%s%c\033[0m", mark_sgr[mark],
			pmaps_change_letters[mark]);
	else
		putc(pmaps_change_letters[mark], out);
}

/* "NAME N (+D)": a count and, after the first frame, how it moved. */
static void put_count(const struct watch *w, FILE *out, const char *name,
		      unsigned long long now, unsigned long long before)
{
	fprintf(out, "%s %llu", name, now);
	if (!w->have_prev)
		return;
	if (now >= before)
		fprintf(out, " (+%llu)", now - before);
	else
		fprintf(out, " (-%llu)", before - now);
}

/* "self: heap in use N bytes, VmHWM N kB, VmRSS N kB" */
static void put_self_stats(FILE *out)
{
	FILE *f = fopen("/proc/self/status", "r");
	const char *sep = " ";
	char line[256];

	fputs("self:", out);
#ifdef __GLIBC__
	struct mallinfo2 mi = mallinfo2();

	/* in the arenas, and in chunks of their own (mmap) */
	fprintf(out, " heap in use %zu bytes", mi.uordblks + mi.hblkhd);
	sep = ", ";
#endif
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "VmRSS:", 6) && strncmp(line, "VmHWM:", 6))
			continue;
		fprintf(out, "%s%.5s %llu kB", sep, line,
			strtoull(line + 6, NULL, 10));
		sep = ", ";
	}
	if (f)
		fclose(f);
	putc('\n', out);
}

/*
 * "pages by age:  0 N  1 N ...  ? N": a '?' page may be of any age, so
 * beside one a known age is a lower bound, as the dirty total is.
 */
static void put_ages(struct watch *w, FILE *out, const struct totals *t)
{
	const struct pmaps_ages *a = &t->ages, *b = &w->prev_totals.ages;
	int k, shown = pmaps_ages_shown(a);
	char name[16];

	fputs("pages by age:", out);
	for (k = 0; k < shown; k++) {
		snprintf(name, sizeof(name), "  %d", k);
		if (!a->unknown)
			put_count(w, out, name, a->pages[k], b->pages[k]);
		else if (a->pages[k])
			fprintf(out, "%s " PMAPS_AT_LEAST "%llu", name,
				a->pages[k]);
		else
			fprintf(out, "%s -", name);
	}
	put_count(w, out, "  ?", a->unknown, b->unknown);
	putc('\n', out);
}

static void put_totals(struct watch *w, FILE *out, const struct totals *t)
{
	static const enum pmaps_change_mark order[4] = {
		PMAPS_CHANGE_APPEARED, PMAPS_CHANGE_VANISHED,
		PMAPS_CHANGE_DIRTY, PMAPS_CHANGE_YOUNG,
	};
	const struct totals *p = &w->prev_totals;
	int k;

	fputs("total pages: ", out);
	put_count(w, out, "resident", t->resident, p->resident);
	if (t->dirty_unknown && t->dirty)
		fprintf(out, "  dirty " PMAPS_AT_LEAST "%llu", t->dirty);
	else if (t->dirty_unknown)
		fputs("  dirty -", out);
	else
		put_count(w, out, "  dirty", t->dirty, p->dirty);
	if (t->young_unknown)
		fputs("  young -", out);
	else
		put_count(w, out, "  young", t->young, p->young);
	if (w->have_prev) {
		fputs("  changed", out);
		for (k = 0; k < 4; k++) {
			putc(' ', out);
			put_mark(w, out, order[k]);
			fprintf(out, "%llu", w->changed[order[k]]);
		}
	}
	putc('\n', out);
	if (t->has_age)
		put_ages(w, out, t);
	if (w->self_stats)
		put_self_stats(out);
}

static int hex_width(const struct pmaps_map *m)
{
	unsigned long long end = m->nr_vmas ? m->vmas[m->nr_vmas - 1].end : 0;
	int n = 8;

	while (n < 16 && end >> (4 * n))
		n++;
	return n;
}

/* "M   START-END COUNT FLAGS MAPCOUNT" */
static void put_segment(const struct watch *w, FILE *out, int aw,
			const struct segment *s)
{
	const struct pmaps_range *r = s->mark == PMAPS_CHANGE_VANISHED ?
				      s->old : s->now;
	char flags[PMAPS_NR_FLAGS + 1], mapcount[PMAPS_MAPCOUNT_LEN];

	pmaps_format_flags(r->flags, r->unknown, flags);
	pmaps_format_mapcount(r->mapcount, mapcount);
	put_mark(w, out, s->mark);
	fprintf(out, "   %0*llx-%0*llx %8llu %s %4s\n", aw, s->start, aw,
		s->end, (s->end - s->start) / pmaps_map_page_size(&w->now.map),
		flags,
		mapcount);
}

/* "M START-END PERMS NAME" */
static void put_vma(const struct watch *w, FILE *out, int aw,
		    const struct pmaps_vma *v, enum pmaps_change_mark mark)
{
	put_mark(w, out, mark);
	fprintf(out, " %s%0*llx-%0*llx %.4s ", w->color ? "\033[1m" : "", aw,
		v->start, aw, v->end, v->perms);
	pmaps_put_name(out, *v->name ? v->name : "[anon]");
	fputs(w->color ? "\033[0m\n" : "\n", out);
}

/* The first VMA of m ending after addr, or NULL. */
static const struct pmaps_vma *vma_after(const struct pmaps_map *m,
					 unsigned long long addr)
{
	size_t lo = 0, hi = m->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->vmas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_vmas ? &m->vmas[lo] : NULL;
}

static bool in_any(const struct pmaps_map *m, unsigned long long addr)
{
	const struct pmaps_vma *v = vma_after(m, addr);

	return v && v->start <= addr;
}

static bool overlaps_any(const struct pmaps_map *m, unsigned long long start,
			 unsigned long long end)
{
	const struct pmaps_vma *v = vma_after(m, start);

	return v && v->start < end;
}

/* Index of the first segment ending after addr. */
static size_t first_segment(const struct watch *w, unsigned long long addr)
{
	size_t lo = 0, hi = w->nr_segs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->segs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whether v, a VMA now, changed since the previous frame: it appeared (no
 * VMA then overlaps it) or has pages marked, vanished ones too.  New
 * bounds or permissions alone are no change: they have no mark either.
 */
static bool vma_changed(const struct watch *w, const struct pmaps_vma *v)
{
	size_t k;

	if (!overlaps_any(&w->prev.map, v->start, v->end))
		return true;
	for (k = first_segment(w, v->start);
	     k < w->nr_segs && w->segs[k].start < v->end; k++)
		if (w->segs[k].mark)
			return true;
	return false;
}

/* --changed, once there is a frame to compare with: v is left out. */
static bool vma_hidden(const struct watch *w, const struct pmaps_vma *v)
{
	return w->changed_only && w->have_prev && !vma_changed(w, v);
}

/* --changed --map: the VMAs now that are not hidden, into w->shown. */
static int select_shown(struct watch *w)
{
	const struct pmaps_map *now = &w->now.map;
	size_t i;

	w->nr_shown = 0;
	if (!w->changed_only || !w->map_view)
		return 0;
	if (pmaps_grow_array((void **)&w->shown, &w->cap_shown,
			     now->nr_vmas, sizeof(*w->shown)))
		return -1;
	for (i = 0; i < now->nr_vmas; i++)
		if (!vma_hidden(w, &now->vmas[i]))
			w->shown[w->nr_shown++] = now->vmas[i];
	return 0;
}

/*
 * A VMA of the previous frame, if it is gone: unmapped (no VMA now
 * overlaps it: the header is marked '-') or shrunk (it has vanished pages
 * outside every VMA now).  Those pages are listed under it.
 */
static bool text_old_vma(const struct watch *w, FILE *out, int aw,
			 const struct pmaps_vma *v)
{
	bool header = !overlaps_any(&w->now.map, v->start, v->end);
	size_t k;

	if (header)
		put_vma(w, out, aw, v, PMAPS_CHANGE_VANISHED);
	for (k = first_segment(w, v->start);
	     k < w->nr_segs && w->segs[k].start < v->end; k++) {
		/* the VMA holding it now lists it */
		if (in_any(&w->now.map, w->segs[k].start))
			continue;
		if (!header)
			put_vma(w, out, aw, v, PMAPS_CHANGE_VANISHED);
		header = true;
		put_segment(w, out, aw, &w->segs[k]);
	}
	return header;
}

static void text_view(const struct watch *w, FILE *out)
{
	const struct pmaps_map *now = &w->now.map;
	const struct pmaps_map *old = w->have_prev ? &w->prev.map : NULL;
	int aw = hex_width(now);
	size_t i = 0, j = 0, k, listed = 0;

	if (old && hex_width(old) > aw)
		aw = hex_width(old);
	/* VMAs now and VMAs gone, in address order */
	while (j < now->nr_vmas || (old && i < old->nr_vmas)) {
		const struct pmaps_vma *v;

		if (old && i < old->nr_vmas && (j == now->nr_vmas ||
		    old->vmas[i].start < now->vmas[j].start)) {
			listed += text_old_vma(w, out, aw, &old->vmas[i++]);
			continue;
		}
		v = &now->vmas[j++];
		if (vma_hidden(w, v))
			continue;
		listed++;
		put_vma(w, out, aw, v, old && !overlaps_any(old, v->start,
							    v->end) ?
			PMAPS_CHANGE_APPEARED : PMAPS_CHANGE_NONE);
		for (k = first_segment(w, v->start);
		     k < w->nr_segs && w->segs[k].start < v->end; k++)
			put_segment(w, out, aw, &w->segs[k]);
	}
	/* an empty list would look like a frame cut short */
	if (w->changed_only && old && !listed)
		fputs("no VMA changed\n", out);
}

/* The segments that changed, after the map. */
static void changed_list(const struct watch *w, FILE *out)
{
	int aw = hex_width(&w->now.map);
	size_t k;

	if (w->have_prev && hex_width(&w->prev.map) > aw)
		aw = hex_width(&w->prev.map);
	if (!w->have_prev)
		return;
	fprintf(out, "changed: %zu range%s\n", w->nr_changes,
		w->nr_changes == 1 ? "" : "s");
	for (k = 0; k < w->nr_segs; k++)
		if (w->segs[k].mark)
			put_segment(w, out, aw, &w->segs[k]);
}

/* w->now's title line, then its ranges: one process's text view. */
static void text_process(const struct watch *w, FILE *out)
{
	char source[128];

	fputs(w->color ? "\033[1m" : "", out);
	pmaps_put_name(out, w->now.label);
	fprintf(out, ": source %s%s\n",
		pmaps_doc_source(&w->now, source, sizeof(source)),
		w->color ? "\033[0m" : "");
	text_view(w, out);
}

static void draw_frame(struct watch *w, FILE *out)
{
	struct totals t;

	count_totals(&w->now.map, &t);
	if (w->tty)
		fprintf(out, "pmaps watch: frame %llu, every %s s; q quits\n",
			w->frame, w->interval);
	else
		fprintf(out, "=== frame %llu\n", w->frame);
	put_totals(w, out, &t);
	/* a memstream's size so far: what stays when the rest scrolls */
	if (w->tty && !fflush(out))
		w->head_len = (size_t)ftell(out);
	if (w->map_view) {
		w->map_opts.color = w->color;
		w->map_opts.width = w->width ? w->width : pmaps_term_width();
		w->map_opts.changes = w->have_prev ? w->changes : NULL;
		w->map_opts.nr_changes = w->have_prev ? w->nr_changes : 0;
		w->map_opts.filter = &w->filter;
		if (w->changed_only) {
			/* the frame, but for the VMAs left out */
			struct pmaps_doc shown = w->now;

			shown.map.vmas = w->shown;
			shown.map.nr_vmas = w->nr_shown;
			pmaps_map_draw(out, &w->map_opts, &shown);
		} else {
			pmaps_map_draw(out, &w->map_opts, &w->now);
		}
		changed_list(w, out);
	} else {
		text_process(w, out);
	}
	w->prev_totals = t;
}

/* ---- the terminal ---- */

/*
 * Drawing or waiting: end after the frame.  Loading one (an open() of a
 * FIFO, a read of a stalled file system may block for good): end at once,
 * with the terminal given back (write(), tcsetattr() and _exit() are safe
 * in a handler) and status 0, as after the frame.  Frames already shown
 * were flushed.
 */
static void on_stop(int sig)
{
	static const char restore[] = "\033[?7h\033[?25h\033[?1049l";

	stop_signal = sig;
	if (!loading)
		return;
	if (screen_taken) {
		ssize_t n = write(STDOUT_FILENO, restore, sizeof(restore) - 1);

		(void)n;	/* nothing more to do about it here */
	}
	if (termios_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	_exit(PMAPS_OK);
}

static void on_resize(int sig)
{
	(void)sig;
	resized = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* reads and writes go on; poll() returns EINTR all the same */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_resize;
	sigaction(SIGWINCH, &sa, NULL);
}

/* Keys one at a time, no echo; the alternate screen, cursor hidden. */
static void terminal_take(struct watch *w)
{
	struct termios raw;

	if (w->keys && !tcgetattr(STDIN_FILENO, &saved_termios)) {
		raw = saved_termios;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		termios_saved = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	/* no wrapping: a long line must take one row, as counted */
	fputs("\033[?1049h\033[?25l\033[?7l", stdout);
	fflush(stdout);
	screen_taken = true;
}

static void terminal_give_back(void)
{
	if (screen_taken) {
		fputs("\033[?7h\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		screen_taken = false;
	}
	if (termios_saved) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
		termios_saved = false;
	}
}

static unsigned int terminal_rows(void)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row)
		return ws.ws_row;
	return 24;
}

/* Lines in [p, end): a last one without '\n' counts. */
static size_t count_lines(const char *p, const char *end)
{
	size_t n = 0;

	for (; p < end; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : end;
	}
	return n;
}

/*
 * Up to n lines from p, each cleared to its end, written if put; returns
 * where the next line starts.
 */
static const char *pass_lines(const char *p, const char *end, size_t n,
			      bool put)
{
	while (n-- && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (put) {
			fwrite(p, 1, len, stdout);
			fputs("\033[K\n", stdout);
		}
		p += len + (nl ? 1 : 0);
	}
	return p;
}

/*
 * The last frame over the one before: its title and totals, then the
 * lines after them from w->scroll on, as many as fit.  When not all fit,
 * the last row says which are shown; it ends without '\n', which would
 * scroll the screen.  w->scroll is kept in the bounds of this frame.
 */
static void show_on_terminal(struct watch *w)
{
	const char *end = w->screen + w->screen_len, *p;
	const char *body = w->screen + w->head_len;
	size_t rows = terminal_rows(), head = count_lines(w->screen, body);
	size_t lines = count_lines(body, end), room;

	fputs("\033[H", stdout);
	if (head + lines <= rows) {
		w->scroll = 0;
		w->last = 0;
		w->page = lines;
		pass_lines(w->screen, end, head + lines, true);
	} else {
		if (head > rows - 1)
			head = rows - 1;
		room = rows - 1 - head;
		w->last = lines - room;
		if (w->scroll > w->last)
			w->scroll = w->last;
		w->page = room ? room : 1;
		pass_lines(w->screen, body, head, true);
		p = pass_lines(body, end, w->scroll, false);
		pass_lines(p, end, room, true);
		if (room)
			printf("lines %zu-%zu of %zu; Up/Down, PgUp/PgDn, Home/End scroll\033[K",
			       w->scroll + 1, w->scroll + room, lines);
		else
			printf("... %zu more line%s\033[K", lines,
			       lines == 1 ? "" : "s");
	}
	fputs("\033[J", stdout);
	fflush(stdout);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum watch_key {
	WK_NONE, WK_QUIT, WK_UP, WK_DOWN, WK_PGUP, WK_PGDN, WK_HOME,
	WK_END,
};

/*
 * The key at b[*i] of the n bytes read, *i moved past it: a letter, or
 * the escape sequence an xterm-like terminal sends (CSI or SS3; Home and
 * End come as either, or as CSI 1~ 4~ 7~ 8~).  A sequence cut by the read
 * is dropped, as is any key without a meaning here.
 */
static enum watch_key next_key(const char *b, size_t n, size_t *i)
{
	char c = b[(*i)++], final;
	unsigned int param = 0;

	switch (c) {
	case 'q':
	case 'Q':
		return WK_QUIT;
	case 'k':
		return WK_UP;
	case 'j':
		return WK_DOWN;
	case ' ':
		return WK_PGDN;
	case 'g':
		return WK_HOME;
	case 'G':
		return WK_END;
	case '\033':
		break;
	default:
		return WK_NONE;
	}
	if (*i == n || (b[*i] != '[' && b[*i] != 'O'))
		return WK_NONE;
	/* parameter and intermediate bytes, up to the final one */
	for ((*i)++; *i < n && (b[*i] < 0x40 || b[*i] > 0x7e); (*i)++)
		if (b[*i] >= '0' && b[*i] <= '9' && param < 1000)
			param = param * 10 + (unsigned int)(b[*i] - '0');
	if (*i == n)
		return WK_NONE;
	final = b[(*i)++];
	switch (final) {
	case 'A':
		return WK_UP;
	case 'B':
		return WK_DOWN;
	case 'H':
		return WK_HOME;
	case 'F':
		return WK_END;
	case '~':
		return param == 1 || param == 7 ? WK_HOME :
		       param == 4 || param == 8 ? WK_END :
		       param == 5 ? WK_PGUP : param == 6 ? WK_PGDN : WK_NONE;
	default:
		return WK_NONE;
	}
}

/* Move w->scroll for key, within the bounds of the frame shown. */
static void scroll_by(struct watch *w, enum watch_key key)
{
	switch (key) {
	case WK_UP:
		w->scroll -= w->scroll ? 1 : 0;
		break;
	case WK_DOWN:
		w->scroll += w->scroll < w->last ? 1 : 0;
		break;
	case WK_PGUP:
		w->scroll -= w->scroll < w->page ? w->scroll : w->page;
		break;
	case WK_PGDN:
		w->scroll = w->last - w->scroll > w->page ?
			    w->scroll + w->page : w->last;
		break;
	case WK_HOME:
		w->scroll = 0;
		break;
	case WK_END:
		w->scroll = w->last;
		break;
	default:
		break;
	}
}

/*
 * Wait for the next frame, scrolling the last one on the keys that say
 * so; true when it is time to stop.
 */
static bool wait_frame(struct watch *w)
{
	long long deadline = now_ms() + w->interval_ms, left;
	struct pollfd key = { .fd = STDIN_FILENO, .events = POLLIN };
	char buf[64];
	size_t i, was;
	ssize_t n;
	enum watch_key k;

	while (!stop_signal) {
		left = deadline - now_ms();
		if (left <= 0 || resized)
			return false;
		if (poll(&key, w->keys ? 1 : 0, (int)(left > 60000 ? 60000 :
							 left)) <= 0)
			continue;
		n = read(STDIN_FILENO, buf, sizeof(buf));
		was = w->scroll;
		for (i = 0; n > 0 && i < (size_t)n;) {
			k = next_key(buf, (size_t)n, &i);
			if (k == WK_QUIT)
				return true;
			scroll_by(w, k);
		}
		if (w->scroll != was)
			show_on_terminal(w);
	}
	return true;
}

/* ---- the loop ---- */

static enum pmaps_status load_frame(struct watch *w)
{
	enum pmaps_status st;
	char err[4096];

	if (w->nr_files)
		st = pmaps_load_file(w->files[(w->frame - 1) % w->nr_files],
				     &w->now, err, sizeof(err));
	else
		st = pmaps_load_pid(w->pid, w->source, &w->now, err,
				    sizeof(err));
	if (st) {
		terminal_give_back();
		pmaps_cmd_report("watch", err);
		pmaps_doc_free(&w->now);
		return st;
	}
	pmaps_doc_warn(&w->now);
	/* before comparing, so that both frames are the same selection */
	pmaps_filter_apply(&w->filter, &w->now.map);
	/* the source that worked, without trying the others every frame */
	if (!w->nr_files)
		w->source = w->now.source;
	return PMAPS_OK;
}

/* ---- --cgroup: every process of a group ---- */

static void members_free(struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nr_members; i++) {
		pmaps_doc_free(&w->members[i].prev);
		pmaps_doc_free(&w->members[i].now);
	}
	free(w->members);
	w->members = NULL;
	w->nr_members = 0;
}

/* The member of the last frame at w->members[i] has ended: remember it
 * for this frame's "gone" line and let its documents go. */
static void member_gone(struct watch *w, struct member *m)
{
	if (m->have_prev)
		w->gone[w->nr_gone++] = (struct gone) {
			.pid = m->pid, .resident = m->prev_totals.resident,
		};
	pmaps_doc_free(&m->prev);
	pmaps_doc_free(&m->now);
	memset(m, 0, sizeof(*m));
}

/*
 * List the group again and read each member into its now: one listed in
 * the last frame keeps its previous document, one not is new.  One of the
 * last frame that is no longer listed, or that ended before it could be
 * read, is gone, which is no error; one that cannot be read and has not
 * ended is.
 */
static enum pmaps_status load_group(struct watch *w)
{
	char err[4400];
	struct member *next = NULL;
	size_t nr = 0, old = 0;
	int i, n, *pids = NULL;
	enum pmaps_status st = PMAPS_OK;
	void *grown;

	n = pmaps_cgroup_pids(w->group_dir, &pids, err, sizeof(err));
	if (n < 0) {
		terminal_give_back();
		pmaps_cmd_report("watch", err);
		return PMAPS_ERR_TARGET;
	}
	next = calloc((size_t)n + 1, sizeof(*next));
	grown = realloc(w->gone, (w->nr_members + (size_t)n + 1) *
			sizeof(*w->gone));
	if (grown)
		w->gone = grown;
	if (!next || !grown) {
		free(next);
		free(pids);
		terminal_give_back();
		fputs("pmaps watch: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	w->nr_gone = 0;
	for (i = 0; i < n; i++) {
		struct member *m = &next[nr];

		/* both lists ascend: the last frame's members before this
		 * PID are no longer in the group */
		while (old < w->nr_members && w->members[old].pid < pids[i])
			member_gone(w, &w->members[old++]);
		if (old < w->nr_members && w->members[old].pid == pids[i]) {
			*m = w->members[old];
			memset(&w->members[old++], 0, sizeof(*m));
		}
		m->pid = pids[i];
		st = pmaps_load_pid(m->pid, w->source, &m->now, err,
				    sizeof(err));
		if (st == PMAPS_ERR_TARGET && pmaps_pid_gone(m->pid)) {
			/* it ended while the group was read */
			st = PMAPS_OK;
			member_gone(w, m);
			continue;
		}
		if (st) {
			terminal_give_back();
			pmaps_cmd_report("watch", err);
			nr++;		/* freed with the others */
			break;
		}
		pmaps_doc_warn(&m->now);
		pmaps_filter_apply(&w->filter, &m->now.map);
		w->source = m->now.source;
		count_totals(&m->now.map, &m->totals);
		nr++;
	}
	while (!st && old < w->nr_members)
		member_gone(w, &w->members[old++]);
	members_free(w);
	w->members = next;
	w->nr_members = nr;
	free(pids);
	return st;
}

/* Compare member m's two documents as watch does one process's: w's own
 * prev and now stand for them until unborrow(). */
static int compare_member(struct watch *w, const struct member *m)
{
	w->prev = m->prev;
	w->now = m->now;
	w->have_prev = m->have_prev;
	w->prev_totals = m->prev_totals;
	return compare(w);
}

static void unborrow(struct watch *w)
{
	memset(&w->prev, 0, sizeof(w->prev));
	memset(&w->now, 0, sizeof(w->now));
}

/*
 * The group's totals, then each process as watch shows one, after a
 * "--- process PID" line, in PID order with the gone ones.  The group's
 * pages marked + and - count those of the processes that appeared or are
 * gone, so that its resident count moves by + minus -.
 */
static int draw_group(struct watch *w, FILE *out)
{
	unsigned long long changed[PMAPS_CHANGE_NR] = { 0 };
	struct totals t = { 0 };
	size_t i, g, appeared = 0;
	int k;

	for (i = 0; i < w->nr_members; i++) {
		const struct member *m = &w->members[i];

		t.resident += m->totals.resident;
		t.dirty += m->totals.dirty;
		t.young += m->totals.young;
		t.dirty_unknown |= m->totals.dirty_unknown;
		t.young_unknown |= m->totals.young_unknown;
		t.has_age |= m->totals.has_age;
		pmaps_ages_sum(&t.ages, &m->totals.ages);
		if (!m->have_prev) {
			appeared++;
			changed[PMAPS_CHANGE_APPEARED] += m->totals.resident;
			continue;
		}
		k = compare_member(w, m);
		unborrow(w);
		if (k)
			return -1;
		for (k = 0; k < PMAPS_CHANGE_NR; k++)
			changed[k] += w->changed[k];
	}
	for (g = 0; g < w->nr_gone; g++)
		changed[PMAPS_CHANGE_VANISHED] += w->gone[g].resident;

	if (w->tty)
		fprintf(out, "pmaps watch: frame %llu, every %s s; q quits\n",
			w->frame, w->interval);
	else
		fprintf(out, "=== frame %llu\n", w->frame);
	fputs("group ", out);
	pmaps_put_name(out, w->group_dir);
	fprintf(out, ": %zu process%s", w->nr_members,
		w->nr_members == 1 ? "" : "es");
	if (w->frame > 1)
		fprintf(out, ", %zu appeared, %zu gone", appeared, w->nr_gone);
	putc('\n', out);
	w->have_prev = w->frame > 1;
	w->prev_totals = w->group_prev;
	memcpy(w->changed, changed, sizeof(changed));
	put_totals(w, out, &t);
	if (w->tty && !fflush(out))
		w->head_len = (size_t)ftell(out);
	w->group_prev = t;

	for (i = 0, g = 0; i < w->nr_members || g < w->nr_gone;) {
		const struct member *m;

		if (g < w->nr_gone && (i == w->nr_members ||
				       w->gone[g].pid < w->members[i].pid)) {
			fprintf(out, "\n--- process %d gone\n",
				w->gone[g++].pid);
			continue;
		}
		m = &w->members[i++];
		fprintf(out, "\n--- process %d%s\n", m->pid,
			w->frame > 1 && !m->have_prev ? " appeared" : "");
		if (compare_member(w, m)) {
			unborrow(w);
			return -1;
		}
		put_totals(w, out, &m->totals);
		text_process(w, out);
		unborrow(w);
	}
	return 0;
}

/* After a frame: what each member read now is what the next compares to. */
static void members_next(struct watch *w)
{
	size_t i;

	for (i = 0; i < w->nr_members; i++) {
		struct member *m = &w->members[i];

		pmaps_doc_free(&m->prev);
		m->prev = m->now;
		memset(&m->now, 0, sizeof(m->now));
		m->prev_totals = m->totals;
		m->have_prev = true;
	}
}

static enum pmaps_status run(struct watch *w)
{
	enum pmaps_status st = PMAPS_OK;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	catch_signals();
	if (w->tty)
		terminal_take(w);
	for (w->frame = 1; !w->frames || w->frame <= w->frames; w->frame++) {
		loading = 1;
		/* a signal that came while drawing ends the loop here */
		st = stop_signal ? PMAPS_OK :
		     w->group ? load_group(w) : load_frame(w);
		loading = 0;
		if (st || stop_signal)
			break;
		resized = 0;
		if (!w->group && (compare(w) || select_shown(w))) {
			st = PMAPS_ERR_TARGET;
			terminal_give_back();
			fputs("pmaps watch: out of memory\n", stderr);
			pmaps_doc_free(&w->now);
			break;
		}
		/* a terminal gets the frame at once, not line by line */
		out = w->tty ? open_memstream(&text, &len) : stdout;
		if (!out) {
			st = PMAPS_ERR_TARGET;
			terminal_give_back();
			fputs("pmaps watch: out of memory\n", stderr);
			pmaps_doc_free(&w->now);
			break;
		}
		if (!w->tty && w->frame > 1)
			putchar('\n');
		if (w->group ? draw_group(w, out) : (draw_frame(w, out), 0)) {
			st = PMAPS_ERR_TARGET;
			if (w->tty) {
				fclose(out);
				free(text);
				text = NULL;
			}
			terminal_give_back();
			fputs("pmaps watch: out of memory\n", stderr);
			break;
		}
		if (w->tty) {
			fclose(out);
			free(w->screen);
			w->screen = text;
			w->screen_len = len;
			text = NULL;
			show_on_terminal(w);
		} else if (fflush(stdout)) {
			st = PMAPS_ERR_TARGET;
			fprintf(stderr, "pmaps watch: write error: %s\n",
				strerror(errno));
		}
		if (w->group)
			members_next(w);
		pmaps_doc_free(&w->prev);
		w->prev = w->now;
		w->have_prev = true;
		memset(&w->now, 0, sizeof(w->now));
		if (st || (w->frames && w->frame == w->frames) ||
		    wait_frame(w))
			break;
	}
	terminal_give_back();
	return st;
}

static int watch_option(struct watch *w, int opt, enum pmaps_color_when *when)
{
	struct timespec interval;
	unsigned long long val;

	switch (opt) {
	case PMAPS_OPT_PAGE_SIZE:
		return pmaps_page_size_option("watch", optarg);
	case OPT_SOURCE:
		if (pmaps_source_parse(optarg, &w->source) ||
		    w->source == PMAPS_SRC_FILE)
			return watch_usage_error("--source: expected auto, kernel, module or pagemap, got '%s'",
						 optarg);
		return PMAPS_OK;
	case 'i':
		if (pmaps_interval_parse("watch", optarg, &interval))
			return PMAPS_ERR_INPUT;
		w->interval_ms = pmaps_interval_ms(&interval);
		w->interval = optarg;
		return PMAPS_OK;
	case 'n':
		if (!pmaps_number_parse(optarg, 1, ~0ULL, &w->frames))
			return watch_usage_error("--frames: expected a number from 1, got '%s'",
						 optarg);
		return PMAPS_OK;
	case OPT_MAP:
		w->map_view = true;
		return PMAPS_OK;
	case OPT_CHANGED:
		w->changed_only = true;
		return PMAPS_OK;
	case 'w':
		if (!pmaps_number_parse(optarg, 1, 100000, &val))
			return watch_usage_error("--width: expected a number of columns, got '%s'",
						 optarg);
		w->width = (unsigned int)val;
		return PMAPS_OK;
	case 's':
		if (!pmaps_number_parse(optarg, 1, PMAPS_MAP_MAX_SCALE,
					&w->map_opts.scale))
			return watch_usage_error("--scale: expected a number of pages from 1 to %llu, got '%s'",
						 PMAPS_MAP_MAX_SCALE, optarg);
		return PMAPS_OK;
	case OPT_COLOR:
		if (pmaps_color_parse(optarg, when))
			return watch_usage_error("--color: expected auto, always or never, got '%s'",
						 optarg);
		return PMAPS_OK;
	case OPT_NUMA:
		pmaps_source_numa = true;
		return PMAPS_OK;
	case OPT_SELF_STATS:
		w->self_stats = true;
		return PMAPS_OK;
	case OPT_CGROUP:
		if (w->group)
			return watch_usage_error("--cgroup %s and --cgroup %s cannot be combined: expected one group",
						 w->group, optarg);
		w->group = optarg;
		return PMAPS_OK;
	case PMAPS_OPT_AREAS:
	case PMAPS_OPT_FLAGS:
	case PMAPS_OPT_RANGE:
		return pmaps_filter_option("watch", opt, optarg, &w->filter);
	default:
		/* getopt_long has said what was wrong */
		return pmaps_cmd_usage_hint("watch");
	}
}

int pmaps_cmd_watch(int argc, char **argv)
{
	static char prog_name[] = "pmaps watch";
	struct watch w = {
		.source = PMAPS_SRC_AUTO,
		.interval_ms = DEFAULT_INTERVAL_MS,
		.interval = DEFAULT_INTERVAL,
	};
	enum pmaps_color_when when = PMAPS_COLOR_AUTO;
	int opt, st = PMAPS_OK;

	w.files = calloc((size_t)argc, sizeof(*w.files));
	if (!w.files) {
		fputs("pmaps watch: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	/* getopt_long names the program by argv[0] in its messages */
	argv[0] = prog_name;
	while (!st && (opt = getopt_long(argc, argv, pmaps_watch_options.shortopts,
					 watch_options, NULL)) != -1) {
		if (opt == 'h') {
			fputs(watch_usage, stdout);
			st = fflush(stdout) ? PMAPS_ERR_TARGET : PMAPS_OK;
			goto out;
		}
		if (opt == 'f')
			w.files[w.nr_files++] = optarg;
		else
			st = watch_option(&w, opt, &when);
	}
	if (st)
		goto out;
	if (w.group && (optind < argc || w.nr_files))
		st = watch_usage_error("expected --cgroup PATH alone, without a PID or -f FILE");
	else if (w.group && w.map_view)
		st = watch_usage_error("--map and --cgroup cannot be combined: expected the text view, one process after another");
	else if (optind < argc && w.nr_files)
		st = watch_usage_error("expected a PID or -f FILE, not both");
	else if (optind + 1 < argc)
		st = watch_usage_error("expected one PID, got '%s' too",
				       argv[argc - 1]);
	else if (optind < argc && !pmaps_parse_pid(argv[optind], &w.pid))
		st = watch_usage_error("expected a PID, got '%s'", argv[optind]);
	else if (optind == argc && !w.nr_files && !w.group)
		st = watch_usage_error("expected a PID, -f FILE or --cgroup PATH");
	if (st)
		goto out;
	if (w.group) {
		char err[4400];

		if (pmaps_cgroup_dir(w.group, w.group_dir, sizeof(w.group_dir),
				     err, sizeof(err))) {
			pmaps_cmd_report("watch", err);
			st = PMAPS_ERR_TARGET;
			goto out;
		}
	}
	w.tty = isatty(STDOUT_FILENO);
	w.keys = w.tty && isatty(STDIN_FILENO);
	w.color = pmaps_color_wanted(when);
	st = run(&w);
out:
	pmaps_filter_free(&w.filter);
	pmaps_doc_free(&w.prev);
	free(w.screen);
	free(w.segs);
	free(w.changes);
	free(w.shown);
	free(w.files);
	members_free(&w);
	free(w.gone);
	return st;
}
