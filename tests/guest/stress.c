// SPDX-License-Identifier: GPL-2.0
/*
 * stress: the pmaps text stays well formed and in address order while its
 * target changes its mappings, and reading ends cleanly when the target
 * exits between or during reads.
 *
 *   stress [test_name...]
 *   stress --mutator MS	(internal: the exec'd child of the mutator)
 *
 * Runs as root in the guest; kselftest TAP on stdout; exit status 0 when
 * everything passed or was skipped.  Environment:
 *   PMAPS_FILE_FMT	the module's file, one %d (or %s) for the PID
 *			(default /proc/pmaps_ext/%d)
 *   PMAPS_KERNEL_FMT	the patched kernel's file, read as well when it
 *			exists (default /proc/%d/pmaps)
 *   STRESS_SECONDS	how long test_race_stress mutates (default 20)
 *   STRESS_STRICT_ORDER=1  also fail when a header's END is not above the
 *			previous header's END, or its START below the
 *			previous START (a VMA split or merged mid-read
 *			legitimately does that; see check_header())
 */
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>

#include "guest.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25	/* Linux 6.1 */
#endif

/* guest.h's DEFAULT_FILE_FMT has %s; this program's default has %d */
#define STRESS_FILE_FMT		"/proc/pmaps_ext/%d"
#define DEFAULT_KERNEL_FMT	"/proc/%d/pmaps"
#define DEFAULT_STRESS_SECONDS	20
#define TEST_TIMEOUT_SEC	120
#define MUTATOR_ARG		"--mutator"
#define EXEC_CHILD_MS		300
#define NR_READERS		4
#define MAX_SHOWN		3	/* detailed reports per checker */
#define HUGE_SIZE		(2UL << 20)

/* The module's file is guest.h's file_fmt; the kernel's is kernel_fmt. */
static const char *kernel_fmt;
static bool strict_order;

/* pmaps_path_pid() through another (validated) format, e.g. kernel_fmt. */
static void fmt_path_pid(char *out, size_t size, const char *fmt, pid_t pid)
{
	const char *saved = file_fmt;

	file_fmt = fmt;
	pmaps_path_pid(out, size, pid);
	file_fmt = saved;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* xorshift64: cheap, and a seed per process keeps them apart. */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t rnd_below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void rnd_seed(void)
{
	rng_state ^= now_ns() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	if (!rng_state)
		rng_state = 1;
}

/* ---- reading ---- */

static const size_t read_sizes[] = { 1, 7, 512, 4096, 65536 };

/*
 * Replace t with the whole of path, the read sizes rotating through
 * read_sizes from *rotor on: read_fd_text() with a limit one byte above
 * what t holds does one read.  Returns 0 or -errno; t holds what came.
 */
static int read_path_rotating(const char *path, struct text *t,
			      size_t *rotor)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	t->len = 0;
	if (fd < 0)
		return -errno;
	do
		err = read_fd_text(fd, read_sizes[(*rotor)++ %
						  ARRAY_SIZE(read_sizes)],
				   t->len + 1, t);
	while (err == 1);
	close(fd);
	return err;
}

/* ---- the streaming checker ---- */

/*
 * Checks one read of a file line by line, without building a document:
 * the text of a changing process may show a VMA again after it changed,
 * which the whole-document parser rightly rejects.  Counters accumulate
 * over reads; the rest is per read.
 */
struct checker {
	char who[64];
	unsigned long reads, vmas, ranges, bytes, violations, order_notes;
	int shown, notes_shown;
	/* the current read */
	const char *buf;
	size_t len;
	bool have_header, have_range;
	unsigned long long start, end, pgoff, prev_start, prev_end;
	bool file;
	unsigned long long range_end;	/* end of the previous range */
};

/* s[0..n) on one line: tabs as \t, unprintables as \xNN, long lines cut. */
static void quote_line(char *out, size_t size, const char *s, size_t n)
{
	size_t o = 0, i;

	for (i = 0; i < n && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\t')
			o += (size_t)snprintf(out + o, size - o, "\\t");
		else if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (i < n && o + 4 <= size)
		o += (size_t)snprintf(out + o, size - o, "...");
	out[o < size ? o : size - 1] = '\0';
}

/* Print the line at off with two lines before and one after. */
static void show_neighbours(const struct checker *c, size_t off)
{
	const char *b = c->buf, *end = c->buf + c->len, *p = b + off;
	char q[256];
	int before = 0, i;

	while (before < 2 && p > b) {
		p--;
		while (p > b && p[-1] != '\n')
			p--;
		before++;
	}
	for (i = 0; i < before + 2 && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		quote_line(q, sizeof(q), p, n);
		tap_diag("  %s %s%s", i == before ? ">" : " ", q,
			 nl ? "" : " <no newline>");
		p = nl ? nl + 1 : end;
	}
}

__attribute__((format(printf, 3, 4)))
static void violation(struct checker *c, size_t off, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	c->violations++;
	if (c->shown >= MAX_SHOWN)
		return;
	c->shown++;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	tap_diag("%s: %s (byte %zu of a %zu-byte read):", c->who, why, off,
		 c->len);
	show_neighbours(c, off);
}

/* Allowed by default, but worth seeing once; a failure when strict. */
__attribute__((format(printf, 3, 4)))
static void order_note(struct checker *c, size_t off, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	if (strict_order) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		violation(c, off, "%s", why);
		return;
	}
	c->order_notes++;
	if (c->notes_shown++)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	tap_diag("%s: note (allowed): %s:", c->who, why);
	show_neighbours(c, off);
}

/* Lowercase hex as maps prints it, at least min digits. */
static bool scan_hex(const char **p, const char *e, size_t min,
		     unsigned long long *val)
{
	const char *s = *p;
	unsigned long long v = 0;

	for (; *p < e; (*p)++) {
		char ch = **p;
		unsigned int d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned int)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned int)(ch - 'a' + 10);
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | d;
	}
	*val = v;
	return (size_t)(*p - s) >= min;
}

static bool scan_dec(const char **p, const char *e, unsigned long long *val)
{
	const char *s = *p;
	unsigned long long v = 0;

	for (; *p < e && **p >= '0' && **p <= '9'; (*p)++) {
		unsigned int d = (unsigned int)(**p - '0');

		if (v > (ULLONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*val = v;
	return *p > s;
}

static bool scan_char(const char **p, const char *e, char ch)
{
	if (*p >= e || **p != ch)
		return false;
	(*p)++;
	return true;
}

/*
 * START-END PERMS OFFSET MAJ:MIN INODE, a space, then the name if any.
 *
 * Order: the file position is an address that never goes back, and a
 * header is printed for the first VMA ending above it, so its END is
 * above every range already printed and above the previous header's
 * START.  END need not be above the previous END (mprotect() splitting
 * the VMA under the reader: [a,b) then [q,b)) and START need not be above
 * the previous START (neighbours merging into [x,c) with x < a).
 */
static void check_header(struct checker *c, const char *s, const char *e)
{
	unsigned long long start, end, offset, major, minor, inode;
	const char *p = s;
	size_t off = (size_t)(s - c->buf);

	if (!scan_hex(&p, e, 8, &start) || !scan_char(&p, e, '-') ||
	    !scan_hex(&p, e, 8, &end) || !scan_char(&p, e, ' ') ||
	    e - p < 5 || (p[0] != 'r' && p[0] != '-') ||
	    (p[1] != 'w' && p[1] != '-') || (p[2] != 'x' && p[2] != '-') ||
	    (p[3] != 's' && p[3] != 'p') || p[4] != ' ') {
		violation(c, off, "malformed VMA header");
		return;
	}
	p += 5;
	if (!scan_hex(&p, e, 8, &offset) || !scan_char(&p, e, ' ') ||
	    !scan_hex(&p, e, 2, &major) || !scan_char(&p, e, ':') ||
	    !scan_hex(&p, e, 2, &minor) || !scan_char(&p, e, ' ') ||
	    !scan_dec(&p, e, &inode) || !scan_char(&p, e, ' ')) {
		violation(c, off, "malformed VMA header");
		return;
	}
	if (start >= end || start % page_size || end % page_size ||
	    offset % page_size) {
		violation(c, off, "VMA header with a bad range or offset");
		return;
	}
	if (c->have_range && end <= c->range_end)
		violation(c, off, "VMA ends at %llx, not above the previous range's end %llx",
			  end, c->range_end);
	if (c->have_header && end <= c->prev_start)
		violation(c, off, "VMA ends at %llx, not above the previous VMA's start %llx",
			  end, c->prev_start);
	else if (c->have_header && end <= c->prev_end)
		order_note(c, off, "VMA END %llx not above the previous END %llx",
			   end, c->prev_end);
	else if (c->have_header && start < c->prev_start)
		order_note(c, off, "VMA START %llx below the previous START %llx",
			   start, c->prev_start);
	c->have_header = true;
	c->prev_start = c->start = start;
	c->prev_end = c->end = end;
	c->file = inode != 0;
	c->pgoff = offset / page_size;
	c->vmas++;
}

/* INDEX TAB COUNT TAB FLAGS TAB MAPCOUNT [TAB more columns] */
static void check_range(struct checker *c, const char *s, const char *e)
{
	unsigned long long index, count, mapcount, first_page, addr, end;
	size_t off = (size_t)(s - c->buf);
	const char *p = s;
	int i;

	if (!scan_dec(&p, e, &index) || !scan_char(&p, e, '\t') ||
	    !scan_dec(&p, e, &count) || !scan_char(&p, e, '\t') ||
	    e - p < PMAPS_NR_FLAGS + 1) {
		violation(c, off, "malformed range line");
		return;
	}
	for (i = 0; i < PMAPS_NR_FLAGS; i++)
		if (p[i] != pmaps_flag_letters[i] && p[i] != '_')
			break;
	p += PMAPS_NR_FLAGS;
	if (i < PMAPS_NR_FLAGS || !scan_char(&p, e, '\t') ||
	    !scan_dec(&p, e, &mapcount) || (p < e && *p != '\t')) {
		violation(c, off, "malformed range line");
		return;
	}
	if (!count) {
		violation(c, off, "range of 0 pages");
		return;
	}
	if (!c->have_header) {
		violation(c, off, "range line before any VMA header");
		return;
	}
	c->ranges++;
	if (c->file && index < c->pgoff) {
		violation(c, off, "file page %llu is below the VMA's offset (page %llu)",
			  index, c->pgoff);
		return;
	}
	first_page = c->file ? c->start / page_size + (index - c->pgoff) : index;
	if (first_page > ULLONG_MAX / page_size - count) {
		violation(c, off, "range beyond the address space");
		return;
	}
	addr = first_page * page_size;
	end = addr + count * page_size;
	if (addr < c->start || end > c->end)
		violation(c, off, "range %llx-%llx outside its VMA %llx-%llx",
			  addr, end, c->start, c->end);
	if (c->have_range && addr < c->range_end)
		violation(c, off, "range at %llx overlaps or precedes the previous range (ends %llx)",
			  addr, c->range_end);
	c->have_range = true;
	c->range_end = end;
}

/* Check one complete read; returns the violations it found. */
static unsigned long check_text(struct checker *c, const char *buf, size_t len)
{
	unsigned long before = c->violations;
	const char *p = buf, *end = buf + len;

	c->buf = buf;
	c->len = len;
	c->have_header = c->have_range = false;
	c->reads++;
	c->bytes += len;
	if (memchr(buf, '\0', len))
		violation(c, (size_t)((const char *)memchr(buf, '\0', len) - buf),
			  "NUL byte in the text");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		const char *digits_end = p;

		while (digits_end < e && *digits_end >= '0' && *digits_end <= '9')
			digits_end++;
		if (!nl)
			violation(c, (size_t)(p - buf), "last line has no newline");
		else if (p == e)
			violation(c, (size_t)(p - buf), "empty line");
		else if (*p == '@' && !c->have_header)
			violation(c, (size_t)(p - buf),
				  "extension line before any VMA header");
		else if (*p == '@')
			;	/* an extension line: readers ignore it */
		else if (digits_end > p && digits_end < e && *digits_end == '\t')
			check_range(c, p, e);
		else
			check_header(c, p, e);
		p = nl ? nl + 1 : end;
	}
	return c->violations - before;
}

/* ---- the mutator ---- */

enum mutator_op {
	OP_ANON_MAP, OP_ANON_UNMAP, OP_FILE_MAP, OP_MPROTECT, OP_MREMAP,
	OP_DONTNEED, OP_THP, OP_FORK, OP_MLOCK, OP_TRUNCATE, OP_EXEC,
	NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"anon-map", "anon-unmap", "file-map", "mprotect", "mremap",
	"dontneed", "thp", "fork", "mlock", "truncate", "exec",
};

struct mutator_stats {
	unsigned long ops[NR_OPS];
	unsigned long collapsed, collapse_unavailable, sigbus;
	unsigned long child_failures;	/* forked or exec'd children */
	unsigned long exec_children;
};

/* State shared by the test with its mutator and readers. */
struct race_shared {
	atomic_int mutator_done;
	atomic_int exec_child;		/* pid of the exec'd child, or 0 */
	struct mutator_stats mutator;
	struct checker readers[NR_READERS];
};

#define NR_SLOTS		24
#define SLOT_MAX_PAGES		64
#define SLOT_MAX_GROWN		256	/* bounds what mremap() grows to */
#define NR_FILE_SLOTS		6
#define PATCHWORK_PAGES		128
#define MEMFD_PAGES		64
#define MEMFD_OFF_PAGE		16	/* where the second shared view starts */
#define MAX_FORK_CHILDREN	6

struct area {
	char *addr;
	size_t pages;
};

struct mutator {
	struct mutator_stats *st;
	struct area anon[NR_SLOTS];
	struct area file[NR_FILE_SLOTS];
	int exe_fd;
	size_t exe_pages;
	char *patchwork;		/* written once, then only mprotect()ed */
	int memfd;
	size_t memfd_pages;		/* its size now */
	char *shm, *shm_off;		/* whole file; pages MEMFD_OFF_PAGE.. */
	char *thp;			/* written once, then only split */
	bool may_exec;
	pid_t exec_child;
	atomic_int *published_exec_child;
	uint64_t next_exec;
	int fork_children;
};

static sigjmp_buf sigbus_jmp;
static volatile sig_atomic_t sigbus_armed;

static void on_sigbus(int sig)
{
	if (sigbus_armed)
		siglongjmp(sigbus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Write one byte of a shared file page; a truncated page must not kill us. */
static void touch_guarded(struct mutator *m, char *page)
{
	if (sigsetjmp(sigbus_jmp, 1)) {
		sigbus_armed = 0;
		m->st->sigbus++;
		return;
	}
	sigbus_armed = 1;
	*(volatile char *)page = 1;
	sigbus_armed = 0;
}

/* Some of the pages, so that ranges come in many sizes. */
static void touch_some(char *addr, size_t pages)
{
	uint64_t bits = rnd();
	size_t i;

	for (i = 0; i < pages; i++) {
		if (!(i % 64))
			bits = rnd();
		if (bits >> (i % 64) & 1)
			addr[i * page_size] = 1;
	}
}

static char *map_anon(size_t pages, int prot)
{
	char *p = mmap(NULL, pages * page_size, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void drop_area(struct area *a)
{
	if (a->addr)
		munmap(a->addr, a->pages * page_size);
	a->addr = NULL;
	a->pages = 0;
}

static struct area *pick_anon(struct mutator *m)
{
	struct area *a = &m->anon[rnd_below(NR_SLOTS)];

	return a->addr ? a : NULL;
}

static void op_anon_map(struct mutator *m)
{
	struct area *a = &m->anon[rnd_below(NR_SLOTS)];
	size_t pages = 1 + rnd_below(SLOT_MAX_PAGES);

	drop_area(a);
	a->addr = map_anon(pages, PROT_READ | PROT_WRITE);
	if (!a->addr)
		return;
	a->pages = pages;
	touch_some(a->addr, pages);
	m->st->ops[OP_ANON_MAP]++;
}

/* All of it, or its tail. */
static void op_anon_unmap(struct mutator *m)
{
	struct area *a = pick_anon(m);
	size_t keep;

	if (!a)
		return;
	keep = rnd_below(a->pages);
	if (!keep) {
		drop_area(a);
	} else {
		munmap(a->addr + keep * page_size, (a->pages - keep) * page_size);
		a->pages = keep;
	}
	m->st->ops[OP_ANON_UNMAP]++;
}

/* Private views of our own executable at varying offsets. */
static void op_file_map(struct mutator *m)
{
	struct area *a = &m->file[rnd_below(NR_FILE_SLOTS)];
	size_t first, pages, i;
	char *p;

	drop_area(a);
	if (m->exe_fd < 0 || !m->exe_pages)
		return;
	first = rnd_below(m->exe_pages);
	pages = 1 + rnd_below(m->exe_pages - first < 16 ? m->exe_pages - first : 16);
	p = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 m->exe_fd, (off_t)(first * page_size));
	if (p == MAP_FAILED)
		return;
	a->addr = p;
	a->pages = pages;
	for (i = 0; i < pages; i++)
		if (rnd() & 1)
			(void)*(volatile char *)(p + i * page_size);
	/* a copy-on-write anon page inside a file VMA */
	if (rnd() & 1)
		p[rnd_below(pages) * page_size] = 1;
	m->st->ops[OP_FILE_MAP]++;
}

/* Split and merge VMAs without ever writing to a read-only page. */
static void op_mprotect(struct mutator *m)
{
	size_t first = rnd_below(PATCHWORK_PAGES);
	size_t pages = 1 + rnd_below(PATCHWORK_PAGES - first);
	int prot = rnd() & 1 ? PROT_READ : PROT_READ | PROT_WRITE;
	struct area *a = pick_anon(m);

	mprotect(m->patchwork + first * page_size, pages * page_size, prot);
	if (a && a->pages > 2) {
		char *mid = a->addr + (1 + rnd_below(a->pages - 2)) * page_size;

		mprotect(mid, page_size, PROT_READ);
		mprotect(mid, page_size, PROT_READ | PROT_WRITE);
	}
	m->st->ops[OP_MPROTECT]++;
}

/* Grow (in place or moving), shrink, or move to a fresh spot. */
static void op_mremap(struct mutator *m)
{
	struct area *a = pick_anon(m);
	size_t size, pages;
	char *p, *spot;

	if (!a)
		return;
	size = a->pages * page_size;
	switch (rnd_below(3)) {
	case 0:
		if (a->pages >= SLOT_MAX_GROWN)
			return;
		pages = a->pages + 1 + rnd_below(32);
		p = mremap(a->addr, size, pages * page_size, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return;
		touch_some(p + size, pages - a->pages);
		break;
	case 1:
		if (a->pages < 2)
			return;
		pages = 1 + rnd_below(a->pages - 1);
		p = mremap(a->addr, size, pages * page_size, 0);
		if (p == MAP_FAILED)
			return;
		break;
	default:
		pages = a->pages;
		spot = map_anon(pages, PROT_NONE);
		if (!spot)
			return;
		p = mremap(a->addr, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
			   spot);
		if (p == MAP_FAILED) {
			munmap(spot, size);
			return;
		}
		break;
	}
	a->addr = p;
	a->pages = pages;
	m->st->ops[OP_MREMAP]++;
}

static void op_dontneed(struct mutator *m)
{
	struct area *a = pick_anon(m);
	size_t first, pages;

	if (!a)
		return;
	first = rnd_below(a->pages);
	pages = 1 + rnd_below(a->pages - first);
	if (!madvise(a->addr + first * page_size, pages * page_size,
		     MADV_DONTNEED))
		m->st->ops[OP_DONTNEED]++;
}

static void try_collapse(struct mutator *m)
{
	if (!madvise(m->thp, HUGE_SIZE, MADV_COLLAPSE))
		m->st->collapsed++;
	else if (errno == EINVAL || errno == ENOSYS)
		m->st->collapse_unavailable++;
}

/* A 2 MiB aligned THP area, then split it piece by piece. */
static void op_thp(struct mutator *m)
{
	size_t pages = HUGE_SIZE / page_size;
	char *raw, *aligned;
	size_t first, len;

	if (!m->thp) {
		raw = map_anon(2 * pages, PROT_READ | PROT_WRITE);
		if (!raw)
			return;
		aligned = (char *)(((uintptr_t)raw + HUGE_SIZE - 1) &
				   ~(uintptr_t)(HUGE_SIZE - 1));
		if (aligned > raw)
			munmap(raw, (size_t)(aligned - raw));
		munmap(aligned + HUGE_SIZE, (size_t)(raw + 2 * HUGE_SIZE -
						     aligned - HUGE_SIZE));
		madvise(aligned, HUGE_SIZE, MADV_HUGEPAGE);
		memset(aligned, 1, HUGE_SIZE);
		m->thp = aligned;
		try_collapse(m);
		m->st->ops[OP_THP]++;
		return;
	}
	first = rnd_below(pages - 1) + 1;
	len = (1 + rnd_below(pages - first)) * page_size;
	switch (rnd_below(5)) {
	case 0:		/* a hole splits the PMD mapping */
		munmap(m->thp + first * page_size, page_size);
		break;
	case 1:
		mprotect(m->thp + first * page_size, len, PROT_READ);
		break;
	case 2:
		madvise(m->thp + first * page_size, len, MADV_DONTNEED);
		break;
	case 3:
		try_collapse(m);
		break;
	default:
		munmap(m->thp, HUGE_SIZE);
		m->thp = NULL;
		break;
	}
	m->st->ops[OP_THP]++;
}

/* A short-lived child shares every page copy-on-write, then breaks one. */
static void op_fork(struct mutator *m)
{
	struct area *a = pick_anon(m);
	pid_t parent = getpid(), pid;

	if (m->fork_children >= MAX_FORK_CHILDREN)
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		die_with_parent(parent);
		if (a)
			a->addr[0] = 2;
		sleep_ns(rnd_below(2000000));
		_exit(0);
	}
	m->fork_children++;
	m->st->ops[OP_FORK]++;
}

/* EPERM and ENOMEM only mean no lock for us; the try is what counts. */
static void op_mlock(struct mutator *m)
{
	struct area *a = pick_anon(m);

	if (!a)
		return;
	if (rnd() & 1)
		mlock(a->addr, a->pages * page_size);
	else
		munlock(a->addr, a->pages * page_size);
	m->st->ops[OP_MLOCK]++;
}

static void touch_memfd(struct mutator *m)
{
	size_t i;

	for (i = 0; i < MEMFD_PAGES; i++)
		if (i < m->memfd_pages && rnd() % 3 == 0)
			touch_guarded(m, m->shm + i * page_size);
	for (i = MEMFD_OFF_PAGE; i < MEMFD_PAGES; i++)
		if (i < m->memfd_pages && rnd() % 3 == 0)
			touch_guarded(m, m->shm_off + (i - MEMFD_OFF_PAGE) * page_size);
}

/* Shrink the file under both views, then grow it back. */
static void op_truncate(struct mutator *m)
{
	if (m->memfd < 0)
		return;
	m->memfd_pages = rnd_below(MEMFD_PAGES);
	if (ftruncate(m->memfd, (off_t)(m->memfd_pages * page_size)))
		return;
	touch_memfd(m);
	if (ftruncate(m->memfd, (off_t)(MEMFD_PAGES * page_size)))
		return;
	m->memfd_pages = MEMFD_PAGES;
	touch_memfd(m);
	m->st->ops[OP_TRUNCATE]++;
}

/* Now and then a child execs us again and mutates for a moment. */
static void op_exec(struct mutator *m)
{
	pid_t parent = getpid(), pid;
	char ms[16];

	if (!m->may_exec || m->exec_child || now_ns() < m->next_exec)
		return;
	snprintf(ms, sizeof(ms), "%d", EXEC_CHILD_MS);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		die_with_parent(parent);
		execl("/proc/self/exe", "stress", MUTATOR_ARG, ms, (char *)NULL);
		_exit(127);
	}
	m->exec_child = pid;
	if (m->published_exec_child)
		atomic_store(m->published_exec_child, pid);
	m->next_exec = now_ns() + 700000000ULL;
	m->st->ops[OP_EXEC]++;
	m->st->exec_children++;
}

static void reap_children(struct mutator *m)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			m->st->child_failures++;
			/* which child, and how, for the next one to read */
			tap_diag("mutator's %s child %d: wait status %#x",
				 pid == m->exec_child ? "exec'd" : "forked",
				 (int)pid, status);
		}
		if (pid == m->exec_child) {
			m->exec_child = 0;
			if (m->published_exec_child)
				atomic_store(m->published_exec_child, 0);
		} else {
			m->fork_children--;
		}
	}
}

static int mutator_init(struct mutator *m)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct stat stbuf;

	sigaction(SIGBUS, &sa, NULL);
	rnd_seed();
	m->exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (m->exe_fd >= 0 && !fstat(m->exe_fd, &stbuf))
		m->exe_pages = (size_t)stbuf.st_size / page_size;
	m->patchwork = map_anon(PATCHWORK_PAGES, PROT_READ | PROT_WRITE);
	m->memfd = memfd_create("stress", MFD_CLOEXEC);
	if (!m->patchwork || m->memfd < 0 ||
	    ftruncate(m->memfd, (off_t)(MEMFD_PAGES * page_size)))
		return -1;
	madvise(m->patchwork, PATCHWORK_PAGES * page_size, MADV_NOHUGEPAGE);
	memset(m->patchwork, 1, PATCHWORK_PAGES * page_size);
	m->memfd_pages = MEMFD_PAGES;
	m->shm = mmap(NULL, MEMFD_PAGES * page_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED, m->memfd, 0);
	m->shm_off = mmap(NULL, (MEMFD_PAGES - MEMFD_OFF_PAGE) * page_size,
			  PROT_READ | PROT_WRITE, MAP_SHARED, m->memfd,
			  (off_t)(MEMFD_OFF_PAGE * page_size));
	if (m->shm == MAP_FAILED || m->shm_off == MAP_FAILED)
		return -1;
	touch_memfd(m);
	return 0;
}

/* Mutate for ms milliseconds; the exit status says whether all went well. */
static int mutator_run(struct mutator_stats *st, atomic_int *exec_pid,
		       long ms, bool may_exec)
{
	static void (*const ops[NR_OPS])(struct mutator *) = {
		[OP_ANON_MAP] = op_anon_map,	[OP_ANON_UNMAP] = op_anon_unmap,
		[OP_FILE_MAP] = op_file_map,	[OP_MPROTECT] = op_mprotect,
		[OP_MREMAP] = op_mremap,	[OP_DONTNEED] = op_dontneed,
		[OP_THP] = op_thp,		[OP_FORK] = op_fork,
		[OP_MLOCK] = op_mlock,		[OP_TRUNCATE] = op_truncate,
		[OP_EXEC] = op_exec,
	};
	struct mutator m = { .st = st, .may_exec = may_exec,
			     .published_exec_child = exec_pid };
	uint64_t deadline = now_ns() + (uint64_t)ms * 1000000ULL;

	if (mutator_init(&m))
		return 2;
	while (now_ns() < deadline) {
		ops[rnd_below(NR_OPS)](&m);
		reap_children(&m);
	}
	return st->child_failures ? 1 : 0;
}

/* ---- test_race_stress ---- */

static struct race_shared *race;

static bool benign_after_exit(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

/* One full read of path, checked; judging errors by the mutator's state. */
static void reader_pass(struct checker *c, const char *path, struct text *t,
			size_t *rotor, bool target_may_vanish)
{
	int err = read_path_rotating(path, t, rotor);
	bool gone = target_may_vanish || atomic_load(&race->mutator_done);

	if (err && !(gone && benign_after_exit(err))) {
		c->violations++;
		if (c->shown++ < MAX_SHOWN)
			tap_diag("%s: reading %s: %s", c->who, path,
				 strerror(-err));
	} else if (!err && !t->len && !gone) {
		c->violations++;
		if (c->shown++ < MAX_SHOWN)
			tap_diag("%s: %s read as empty while the mutator runs",
				 c->who, path);
	}
	if (t->len)
		check_text(c, t->data, t->len);
}

static void reader_main(int id, const char *fmt, pid_t mutator)
{
	struct checker *c = &race->readers[id];
	size_t rotor = (size_t)id;
	struct text t = { 0 };
	char path[PATH_MAX], child_path[PATH_MAX];
	unsigned long round;
	bool last;

	snprintf(c->who, sizeof(c->who), "reader %d", id);
	fmt_path_pid(path, sizeof(path), fmt, mutator);
	for (round = 0;; round++) {
		pid_t child;

		/* after the mutator is done: one more read, then stop */
		last = atomic_load(&race->mutator_done);
		reader_pass(c, path, &t, &rotor, false);
		child = atomic_load(&race->exec_child);
		if (round % 8 == 0 && child > 0) {
			fmt_path_pid(child_path, sizeof(child_path), fmt, child);
			reader_pass(c, child_path, &t, &rotor, true);
		}
		if (last)
			break;
		rotor++;	/* a different size starts each read */
	}
	free(t.data);
}

static long stress_seconds(void)
{
	const char *s = getenv("STRESS_SECONDS");
	char *end;
	long v;

	if (!s || !*s)
		return DEFAULT_STRESS_SECONDS;
	v = strtol(s, &end, 10);
	return *end || v < 1 ? DEFAULT_STRESS_SECONDS : v;
}

static void print_mutator_stats(const struct mutator_stats *st)
{
	char line[512];
	size_t used = 0, i;

	for (i = 0; i < NR_OPS && used < sizeof(line); i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 " %s %lu", op_names[i], st->ops[i]);
	tap_diag("mutator ops:%s", line);
	tap_diag("mutator: %lu collapses, %lu MADV_COLLAPSE unavailable (EINVAL/ENOSYS), %lu SIGBUS caught, %lu exec'd children, %lu children failed",
		 st->collapsed, st->collapse_unavailable, st->sigbus,
		 st->exec_children, st->child_failures);
}

static enum outcome test_race_stress(void)
{
	long seconds = stress_seconds();
	pid_t parent = getpid(), mutator, readers[NR_READERS];
	unsigned long reads = 0, vmas = 0, ranges = 0, bytes = 0;
	unsigned long violations = 0, notes = 0;
	char kernel_path[PATH_MAX];
	bool kernel_file, ok = true;
	int status = 0, i;

	rnd_seed();	/* each test's process seeds its own */
	alarm((unsigned int)(seconds + TEST_TIMEOUT_SEC));
	race = mmap(NULL, sizeof(*race), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (race == MAP_FAILED) {
		tap_diag("mmap: %s", strerror(errno));
		return FAIL;
	}
	fmt_path_pid(kernel_path, sizeof(kernel_path), kernel_fmt, getpid());
	kernel_file = strcmp(kernel_fmt, file_fmt) && !access(kernel_path, R_OK);
	tap_diag("mutating for %ld s; readers on %s%s%s", seconds, file_fmt,
		 kernel_file ? " and " : "", kernel_file ? kernel_fmt : "");

	fflush(stdout);
	mutator = fork();
	if (mutator < 0) {
		tap_diag("fork: %s", strerror(errno));
		return FAIL;
	}
	if (mutator == 0) {
		int rc;

		die_with_parent(parent);
		rc = mutator_run(&race->mutator, &race->exec_child,
				 seconds * 1000, true);
		atomic_store(&race->mutator_done, 1);
		_exit(rc);
	}
	for (i = 0; i < NR_READERS; i++) {
		const char *fmt = kernel_file && i >= NR_READERS / 2 ?
				  kernel_fmt : file_fmt;

		readers[i] = fork();
		if (readers[i] == 0) {
			die_with_parent(parent);
			rnd_seed();
			reader_main(i, fmt, mutator);
			_exit(0);
		}
		if (readers[i] < 0) {
			tap_diag("fork: %s", strerror(errno));
			ok = false;
		}
	}

	if (waitpid(mutator, &status, 0) != mutator ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		tap_diag("the mutator failed (wait status %#x)", status);
		ok = false;
	}
	atomic_store(&race->mutator_done, 1);
	for (i = 0; i < NR_READERS; i++) {
		const struct checker *c = &race->readers[i];

		if (readers[i] <= 0)
			continue;
		if (waitpid(readers[i], &status, 0) != readers[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			tap_diag("reader %d died (wait status %#x)", i, status);
			ok = false;
		}
		tap_diag("reader %d (%s): %lu reads, %lu bytes, %lu VMAs, %lu ranges, %lu violations, %lu order notes",
			 i, kernel_file && i >= NR_READERS / 2 ? "kernel" : "module",
			 c->reads, c->bytes, c->vmas, c->ranges, c->violations,
			 c->order_notes);
		if (!c->reads) {
			tap_diag("reader %d never completed a read", i);
			ok = false;
		}
		reads += c->reads;
		vmas += c->vmas;
		ranges += c->ranges;
		bytes += c->bytes;
		violations += c->violations;
		notes += c->order_notes;
	}
	print_mutator_stats(&race->mutator);
	tap_diag("%lu reads, %lu VMAs, %lu ranges checked (%lu bytes)", reads,
		 vmas, ranges, bytes);
	if (notes)
		tap_diag("%lu headers out of strict order (allowed; STRESS_STRICT_ORDER=1 fails them)",
			 notes);
	/* a mutator that touches pages always shows some */
	if (!ranges) {
		tap_diag("no range line in any read");
		ok = false;
	}
	if (violations) {
		tap_diag("%lu violations", violations);
		ok = false;
	}
	return ok ? PASS : FAIL;
}

/* ---- targets that wait to be killed ---- */

/*
 * A child with pages_touched single-page ranges (every other page of an
 * area twice that size, THP off so each stays one range).  Returns its pid
 * once it is ready, or -1.
 */
static pid_t spawn_target(size_t pages_touched, uintptr_t *area_out)
{
	uintptr_t area_addr = 0;
	pid_t parent = getpid(), pid;
	int ready[2];

	if (pipe2(ready, O_CLOEXEC)) {
		tap_diag("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		size_t i;
		char *area;

		close(ready[0]);
		die_with_parent(parent);
		area = map_anon(2 * pages_touched, PROT_READ | PROT_WRITE);
		if (!area)
			_exit(1);
		madvise(area, 2 * pages_touched * page_size, MADV_NOHUGEPAGE);
		for (i = 0; i < pages_touched; i++)
			area[2 * i * page_size] = 1;
		area_addr = (uintptr_t)area;
		if (write(ready[1], &area_addr, sizeof(area_addr)) !=
		    (ssize_t)sizeof(area_addr))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (pid < 0 || read(ready[0], &area_addr, sizeof(area_addr)) !=
			(ssize_t)sizeof(area_addr)) {
		tap_diag("the target did not start: %s",
			 pid < 0 ? strerror(errno) : "no ready message");
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(ready[0]);
	if (area_out)
		*area_out = area_addr;
	return pid;
}

static void checker_init(struct checker *c, const char *who)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->who, sizeof(c->who), "%s", who);
}

/* ---- test_exit_between_reads ---- */

#define BETWEEN_TARGET_RANGES	8000
#define BETWEEN_READ_SIZE	7
#define BETWEEN_BEFORE_BYTES	2048
/* What the seq_file may still hold when the target dies. */
#define BETWEEN_MAX_AFTER	65536

static enum outcome test_exit_between_reads(void)
{
	struct text t = { 0 };
	size_t before = 0, after = 0;
	struct checker c;
	char path[PATH_MAX];
	bool ok = true;
	int fd, err = 0;
	pid_t target;
	ssize_t n;

	rnd_seed();
	target = spawn_target(BETWEEN_TARGET_RANGES, NULL);
	if (target < 0)
		return FAIL;
	pmaps_path_pid(path, sizeof(path), target);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
		return FAIL;
	}
	t.cap = 4 << 20;
	t.data = malloc(t.cap);
	if (!t.data)
		return FAIL;
	while (before < BETWEEN_BEFORE_BYTES) {
		n = read(fd, t.data + before, BETWEEN_READ_SIZE);
		if (n <= 0) {
			tap_diag("reading %s before the exit: %s", path,
				 n ? strerror(errno) : "end of file already");
			ok = false;
			break;
		}
		before += (size_t)n;
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	while (ok) {
		n = read(fd, t.data + before + after, BETWEEN_READ_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		after += (size_t)n;
		if (after > BETWEEN_MAX_AFTER) {
			tap_diag("reads went on for over %d bytes after the exit",
				 BETWEEN_MAX_AFTER);
			ok = false;
		}
	}
	close(fd);
	if (err && err != ESRCH) {
		tap_diag("read after the exit: %s", strerror(err));
		ok = false;
	}
	checker_init(&c, "exit between reads");
	if (check_text(&c, t.data, before + after))
		ok = false;
	tap_diag("%zu bytes before the exit, %zu after, then %s", before,
		 after, err ? strerror(err) : "end of file");
	free(t.data);
	return ok ? PASS : FAIL;
}

/* ---- test_exit_mid_huge_read ---- */

#define HUGE_TARGET_RANGES	60000
#define HUGE_READ_SIZE		(64UL << 20)
#define HUGE_KILLS		6
#define HUGE_ALARM_SEC		60

/* Same line ignoring FLAGS: Y and R may change while the target dies. */
static bool same_but_flags(const char *a, size_t alen, const char *b,
			   size_t blen)
{
	const char *at = memchr(a, '\t', alen), *bt = memchr(b, '\t', blen);
	const char *af, *bf;

	if (!at || !bt)
		return alen == blen && !memcmp(a, b, alen);
	at = memchr(at + 1, '\t', alen - (size_t)(at + 1 - a));
	bt = memchr(bt + 1, '\t', blen - (size_t)(bt + 1 - b));
	if (!at || !bt || at - a != bt - b || memcmp(a, b, (size_t)(at - a)))
		return false;
	af = at + 1 + PMAPS_NR_FLAGS;
	bf = bt + 1 + PMAPS_NR_FLAGS;
	if (af > a + alen || bf > b + blen)
		return false;
	return (a + alen - af) == (b + blen - bf) &&
	       !memcmp(af, bf, (size_t)(a + alen - af));
}

/*
 * The next line that must not change while the target dies: a header, or
 * a range of the target's own area (mapcounts elsewhere follow other
 * processes: the killer exits, the parent breaks copy-on-write).
 */
static const char *next_stable_line(const char **p, const char *end,
				    uintptr_t area, bool *in_area, size_t *len)
{
	while (*p < end) {
		const char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));
		const char *e = nl ? nl : end;

		*p = nl ? nl + 1 : end;
		*len = (size_t)(e - line);
		if (!memchr(line, '\t', *len)) {
			*in_area = strtoull(line, NULL, 16) == area;
			return line;
		}
		if (*in_area)
			return line;
	}
	return NULL;
}

/* cut must begin as full does, in the lines that cannot change. */
static bool is_prefix_by_lines(const struct text *cut, const struct text *full,
			       uintptr_t area)
{
	const char *c = cut->data, *ce = c + cut->len;
	const char *f = full->data, *fe = f + full->len;
	bool c_in = false, f_in = false;
	const char *cl, *fl;
	size_t clen, flen;

	while ((cl = next_stable_line(&c, ce, area, &c_in, &clen))) {
		fl = next_stable_line(&f, fe, area, &f_in, &flen);
		if (!fl || !same_but_flags(cl, clen, fl, flen)) {
			char q[256];

			quote_line(q, sizeof(q), cl, clen);
			tap_diag("byte %zu of the cut read differs from the full text: %s",
				 (size_t)(cl - cut->data), q);
			return false;
		}
	}
	return true;
}

static pid_t spawn_killer(pid_t target, uint64_t delay_ns, int *go_fd)
{
	pid_t parent = getpid(), pid;
	int go[2];
	char byte;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		die_with_parent(parent);
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		sleep_ns(delay_ns);
		_exit(kill(target, SIGKILL) ? 1 : 0);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

/*
 * Read target's file into t with huge reads while the killer, forked
 * before the full read so that no mapcount changed since, kills it.
 */
static bool read_while_killed(pid_t target, pid_t killer, int go_fd,
			      struct text *t, int *err)
{
	char path[PATH_MAX];
	int fd, status = 0;
	bool ok = true;

	pmaps_path_pid(path, sizeof(path), target);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		close(go_fd);
		waitpid(killer, NULL, 0);
		return false;
	}
	if (write(go_fd, "g", 1) != 1)
		ok = false;
	t->len = 0;
	*err = -read_fd_text(fd, HUGE_READ_SIZE, 0, t);
	close(go_fd);
	close(fd);
	if (waitpid(killer, &status, 0) != killer || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		tap_diag("the killer failed (wait status %#x)", status);
		ok = false;
	}
	return ok;
}

static enum outcome test_exit_mid_huge_read(void)
{
	struct text full = { 0 }, cut = { 0 };
	uint64_t full_ns = 0;
	struct checker c;
	char path[PATH_MAX];
	bool ok = true;
	int i, err = 0, status = 0;

	rnd_seed();
	for (i = 0; i <= HUGE_KILLS && ok; i++) {
		pid_t target, killer;
		uintptr_t area = 0;
		uint64_t t0, delay;
		int go_fd = -1;

		/* a hang in any round fails the test */
		alarm(HUGE_ALARM_SEC);
		target = spawn_target(HUGE_TARGET_RANGES, &area);
		if (target < 0)
			return FAIL;
		/* the first kill at once; then anywhere in a full read's time */
		delay = i ? rnd_below((size_t)full_ns + 1) : 0;
		killer = spawn_killer(target, delay, &go_fd);
		if (killer < 0) {
			tap_diag("fork: %s", strerror(errno));
			kill(target, SIGKILL);
			waitpid(target, NULL, 0);
			return FAIL;
		}
		/* the whole text first, to compare the cut one with */
		pmaps_path_pid(path, sizeof(path), target);
		t0 = now_ns();
		err = read_path_text(path, HUGE_READ_SIZE, &full);
		full_ns = now_ns() - t0;
		checker_init(&c, "full text");
		if (err || check_text(&c, full.data, full.len) ||
		    c.ranges < HUGE_TARGET_RANGES) {
			tap_diag("%s: %s, %lu ranges (expected %d or more)",
				 path, err ? strerror(-err) : "read", c.ranges,
				 HUGE_TARGET_RANGES);
			ok = false;
		}
		if (!ok) {
			kill(target, SIGKILL);
			close(go_fd);
			waitpid(killer, NULL, 0);
			waitpid(target, NULL, 0);
			break;
		}
		if (!read_while_killed(target, killer, go_fd, &cut, &err))
			ok = false;
		kill(target, SIGKILL);	/* in case the killer could not */
		if (waitpid(target, &status, 0) != target ||
		    !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
			tap_diag("the target did not die by SIGKILL (wait status %#x)",
				 status);
			ok = false;
		}
		if (!ok)
			break;
		if (err && err != ESRCH) {
			tap_diag("read while the target died: %s", strerror(err));
			ok = false;
		}
		checker_init(&c, "cut text");
		if (check_text(&c, cut.data, cut.len) ||
		    !is_prefix_by_lines(&cut, &full, area))
			ok = false;
		tap_diag("kill after %llu us: read %zu of %zu bytes, then %s",
			 (unsigned long long)(delay / 1000), cut.len, full.len,
			 err ? strerror(err) : "end of file");
	}
	free(full.data);
	free(cut.data);
	return ok ? PASS : FAIL;
}

/* ---- test_open_exit_read_close_1000 ---- */

#define CYCLES			1000

enum child_end { END_EXIT, END_KILL, END_AT_ONCE, NR_ENDS };

static int count_open_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

static enum outcome test_open_exit_read_close_1000(void)
{
	unsigned long opened = 0, enoent = 0, with_text = 0, esrch = 0;
	int fds_before = count_open_fds(), fds_after, i, problems = 0;
	pid_t parent = getpid();
	struct text t = { 0 };
	struct checker c;

	rnd_seed();
	checker_init(&c, "open-exit-read-close");
	for (i = 0; i < CYCLES; i++) {
		enum child_end how = (enum child_end)(i % NR_ENDS);
		char path[PATH_MAX], byte;
		int go[2], fd, err, status;
		pid_t child;

		if (pipe2(go, O_CLOEXEC)) {
			tap_diag("pipe: %s", strerror(errno));
			return FAIL;
		}
		child = fork();
		if (child < 0) {
			tap_diag("fork: %s", strerror(errno));
			return FAIL;
		}
		if (child == 0) {
			die_with_parent(parent);
			if (how == END_AT_ONCE)
				_exit(0);
			close(go[1]);
			while (read(go[0], &byte, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(go[0]);
		pmaps_path_pid(path, sizeof(path), child);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && !(errno == ENOENT && how == END_AT_ONCE) &&
		    problems++ < MAX_SHOWN)
			tap_diag("cycle %d: open %s: %s", i, path, strerror(errno));
		enoent += fd < 0;
		if (how == END_KILL)
			kill(child, SIGKILL);
		close(go[1]);	/* END_EXIT: the child reads EOF and exits */
		if (fd >= 0) {
			opened++;
			t.len = 0;
			err = read_fd_text(fd, 4096, 0, &t);
			if (err == -ESRCH)
				esrch++;
			else if (err && problems++ < MAX_SHOWN)
				tap_diag("cycle %d: read %s: %s", i, path,
					 strerror(-err));
			if (t.len) {
				with_text++;
				if (check_text(&c, t.data, t.len))
					problems++;
			}
			if (close(fd) && problems++ < MAX_SHOWN)
				tap_diag("cycle %d: close: %s", i, strerror(errno));
		}
		if (waitpid(child, &status, 0) != child) {
			tap_diag("cycle %d: waitpid: %s", i, strerror(errno));
			problems++;
		}
	}
	free(t.data);
	fds_after = count_open_fds();
	tap_diag("%d cycles: %lu opened (%lu with text, %lu ESRCH), %lu ENOENT",
		 CYCLES, opened, with_text, esrch, enoent);
	if (fds_after != fds_before) {
		tap_diag("open descriptors went from %d to %d", fds_before,
			 fds_after);
		problems++;
	}
	/* most children are alive at open(); none there means no test */
	if (opened < CYCLES / 2) {
		tap_diag("only %lu of %d opens succeeded", opened, CYCLES);
		problems++;
	}
	return problems ? FAIL : PASS;
}

/* ---- test_pte_table_churn ---- */

/*
 * PTE tables freed while readers walk them.  Collapsing shmem into a huge
 * page retracts the old PTE tables of every mapping and frees them by RCU
 * (v6.6), and MADV_DONTNEED of a whole table frees it by RCU where
 * CONFIG_PT_RECLAIM is set (v6.14).  A walk that read the pmd outside RCU
 * could lock a freed table: KASAN reports it, and PREEMPT_RT, where the
 * ptlock sleeps, widens the window.  The harness fails any console with a
 * BUG: or WARNING:, so this test's own check is that every read succeeds
 * and is well formed while the tables churn.
 */
#define CHURN_BYTES		(4 * HUGE_SIZE)
#define CHURN_READERS		2

static const char shmem_thp_path[] =
	"/sys/kernel/mm/transparent_hugepage/shmem_enabled";

struct churn_shared {
	atomic_int stop;
	unsigned long cycles, shmem_collapsed, anon_collapsed;
	struct checker readers[CHURN_READERS];
};

/* A HUGE_SIZE-aligned mapping of len bytes, or NULL. */
static char *map_huge_aligned(size_t len, int flags, int fd)
{
	char *raw = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE, flags,
			 fd, 0);
	char *aligned;

	if (raw == MAP_FAILED)
		return NULL;
	aligned = (char *)(((uintptr_t)raw + HUGE_SIZE - 1) &
			   ~(uintptr_t)(HUGE_SIZE - 1));
	if (fd >= 0 && aligned != raw) {
		/* a file mapping must start at offset 0 where aligned */
		munmap(raw, len + HUGE_SIZE);
		raw = mmap(aligned, len, PROT_READ | PROT_WRITE,
			   flags | MAP_FIXED_NOREPLACE, fd, 0);
		return raw == MAP_FAILED ? NULL : raw;
	}
	if (aligned > raw)
		munmap(raw, (size_t)(aligned - raw));
	munmap(aligned + len, (size_t)(raw + HUGE_SIZE - aligned));
	return aligned;
}

static void touch_each_page(char *area, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += page_size)
		area[off] = 1;
}

static void churn_target(struct churn_shared *sh, int ready_fd)
{
	int fd = memfd_create("pte-churn", 0);
	char *shm = NULL, *anon;

	if (fd >= 0 && !ftruncate(fd, CHURN_BYTES))
		shm = map_huge_aligned(CHURN_BYTES, MAP_SHARED, fd);
	anon = map_huge_aligned(CHURN_BYTES, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (!shm || !anon)
		_exit(1);
	madvise(shm, CHURN_BYTES, MADV_HUGEPAGE);
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	while (!atomic_load(&sh->stop)) {
		/* small pages first, so each area has its PTE tables */
		touch_each_page(shm, CHURN_BYTES);
		madvise(anon, CHURN_BYTES, MADV_NOHUGEPAGE);
		touch_each_page(anon, CHURN_BYTES);
		if (!madvise(shm, CHURN_BYTES, MADV_COLLAPSE))
			sh->shmem_collapsed++;
		madvise(anon, CHURN_BYTES, MADV_HUGEPAGE);
		if (!madvise(anon, CHURN_BYTES, MADV_COLLAPSE))
			sh->anon_collapsed++;
		/* empties whole tables: PT_RECLAIM frees them */
		madvise(anon, CHURN_BYTES, MADV_DONTNEED);
		madvise(shm, CHURN_BYTES, MADV_DONTNEED);
		fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			  CHURN_BYTES);
		sh->cycles++;
	}
	_exit(0);
}

static void churn_reader(struct churn_shared *sh, int id, pid_t target)
{
	struct checker *c = &sh->readers[id];
	size_t rotor = (size_t)id;
	struct text t = { 0 };
	char path[PATH_MAX];
	bool last;
	int err;

	snprintf(c->who, sizeof(c->who), "churn reader %d", id);
	pmaps_path_pid(path, sizeof(path), target);
	do {
		last = atomic_load(&sh->stop);
		err = read_path_rotating(path, &t, &rotor);
		if (err) {
			c->violations++;
			if (c->shown++ < MAX_SHOWN)
				tap_diag("%s: reading %s: %s", c->who, path,
					 strerror(-err));
		} else {
			check_text(c, t.data, t.len);
		}
	} while (!last);
	free(t.data);
	_exit(0);
}

static enum outcome test_pte_table_churn(void)
{
	long seconds = stress_seconds() < 20 ? stress_seconds() : 20;
	pid_t parent = getpid(), target, readers[CHURN_READERS];
	struct text saved = { 0 };
	unsigned long reads = 0, problems = 0;
	char shmem_thp[64] = "";
	struct churn_shared *sh;
	int ready[2], i;
	char byte;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe2(ready, O_CLOEXEC)) {
		tap_diag("shared page or pipe: %s", strerror(errno));
		return FAIL;
	}
	/* shmem collapses only where shmem THP is allowed; put it back after */
	if (!read_path_text(shmem_thp_path, 4096, &saved) && saved.data) {
		char *open_br = strchr(saved.data, '['), *close_br;

		close_br = open_br ? strchr(open_br, ']') : NULL;
		if (close_br && close_br - open_br - 1 < (long)sizeof(shmem_thp))
			snprintf(shmem_thp, sizeof(shmem_thp), "%.*s",
				 (int)(close_br - open_br - 1), open_br + 1);
		write_string(shmem_thp_path, "advise");
	}
	text_free(&saved);

	fflush(stdout);
	target = fork();
	if (target == 0) {
		close(ready[0]);
		die_with_parent(parent);
		churn_target(sh, ready[1]);
	}
	close(ready[1]);
	if (target < 0 || read(ready[0], &byte, 1) != 1) {
		tap_diag("the churning target did not start");
		problems++;
		goto out;
	}
	for (i = 0; i < CHURN_READERS; i++) {
		readers[i] = fork();
		if (readers[i] == 0) {
			die_with_parent(parent);
			churn_reader(sh, i, target);
		}
	}
	sleep_ns((uint64_t)seconds * 1000000000ULL);
	atomic_store(&sh->stop, 1);
	for (i = 0; i < CHURN_READERS; i++) {
		if (readers[i] > 0)
			waitpid(readers[i], NULL, 0);
		else
			problems++;
		reads += sh->readers[i].reads;
		problems += sh->readers[i].violations;
	}
	tap_diag("%lu s: %lu cycles, %lu shmem and %lu anonymous collapses, %lu reads",
		 seconds, sh->cycles, sh->shmem_collapsed, sh->anon_collapsed,
		 reads);
	if (!sh->cycles || !reads) {
		tap_diag("nothing churned or nothing was read");
		problems++;
	}
out:
	if (target > 0) {
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
	}
	close(ready[0]);
	if (shmem_thp[0])
		write_string(shmem_thp_path, shmem_thp);
	munmap(sh, sizeof(*sh));
	return problems ? FAIL : PASS;
}

/* ---- runner ---- */

static const struct test_case tests[] = {
	TEST(test_race_stress),
	TEST(test_exit_between_reads),
	TEST(test_exit_mid_huge_read),
	TEST(test_open_exit_read_close_1000),
	TEST(test_pte_table_churn),
};

static const char *env_fmt(const char *name, const char *fallback)
{
	const char *fmt = getenv(name);

	return fmt && *fmt ? fmt : fallback;
}

int main(int argc, char **argv)
{
	const char *module_fmt, *strict;
	int i;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (argc == 3 && !strcmp(argv[1], MUTATOR_ARG)) {
		struct mutator_stats st = { 0 };

		return mutator_run(&st, NULL, strtol(argv[2], NULL, 10), false);
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	module_fmt = env_fmt("PMAPS_FILE_FMT", STRESS_FILE_FMT);
	kernel_fmt = env_fmt("PMAPS_KERNEL_FMT", DEFAULT_KERNEL_FMT);
	if (!file_fmt_valid(module_fmt, true) ||
	    !file_fmt_valid(kernel_fmt, true)) {
		printf("Bail out! PMAPS_FILE_FMT and PMAPS_KERNEL_FMT need exactly one %%d: %s, %s\n",
		       module_fmt, kernel_fmt);
		return 1;
	}
	/* guest_main() reads PMAPS_FILE_FMT, with guest.h's default */
	if (setenv("PMAPS_FILE_FMT", module_fmt, 1)) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	strict = getenv("STRESS_STRICT_ORDER");
	strict_order = strict && !strcmp(strict, "1");
	/* as before: no more names than tests (guest_main() would repeat one) */
	for (i = 1; i < argc; i++)
		if (!find_test(tests, ARRAY_SIZE(tests), argv[i]) ||
		    (size_t)i > ARRAY_SIZE(tests)) {
			printf("Bail out! no test named %s\n", argv[i]);
			return 1;
		}
	return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
			  TEST_TIMEOUT_SEC, true);
}
