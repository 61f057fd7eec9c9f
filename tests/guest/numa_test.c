// SPDX-License-Identifier: GPL-2.0
/*
 * The opt-in NODE and KB fields (Documentation/pmaps_ext.rst, "NUMA
 * fields"): /proc/pmaps_ext/numa/PID, or /proc/PID/pmaps_numa when
 * PMAPS_FILE_FMT names /proc/%s/pmaps.  Run in a guest booted with two
 * NUMA nodes (tests/qemu/run.sh, QEMU_NUMA=1); the node tests skip on a
 * kernel or machine with fewer, the size tests where the kernel lacks the
 * page size.  Pages are placed with mbind() and checked range by range.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/mempolicy.h>

#include "guest.h"

#define THP_ENABLED_DIR	"/sys/kernel/mm/transparent_hugepage"

#define TEST_TIMEOUT_SEC	60
#define REGION_PAGES		32

/* A range line of the extended file, its address worked out. */
struct nrange {
	unsigned long long addr, count;
	int columns;		/* TAB-separated columns on the line */
	long node;		/* -1: '?' */
	long kb;		/* -1: '?' */
};

struct nfile {
	struct nrange *r;
	size_t nr, cap;
	unsigned long long pages;	/* outside [vdso] */
};

static long field_num(const char *s, size_t n)
{
	char buf[32];

	if (n == 1 && s[0] == '?')
		return -1;
	if (!n || n >= sizeof(buf))
		return -2;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Parse path: the range lines and the pages outside [vdso]. */
static bool load(const char *path, struct nfile *f)
{
	unsigned long long start = 0, off = 0, ino = 0;
	struct text t = { 0 };
	bool vdso = false;
	char *line, *end;
	int rc;

	memset(f, 0, sizeof(*f));
	rc = read_path_text(path, READ_CHUNK, &t);
	if (rc) {
		tap_diag("reading %s: %s", path, strerror(-rc));
		return false;
	}
	for (line = t.data; line < t.data + t.len; line = end + 1) {
		const char *col[8], *p;
		size_t len[8];
		int n = 0;

		end = memchr(line, '\n', t.data + t.len - line);
		if (!end)
			break;
		if (!memchr(line, '\t', end - line)) {
			char perms[5];
			unsigned int maj, min;

			if (sscanf(line, "%llx-%*x %4s %llx %x:%x %llu", &start,
				   perms, &off, &maj, &min, &ino) != 6)
				tap_diag("bad header in %s", path);
			vdso = end - line > 6 && !memcmp(end - 6, "[vdso]", 6);
			continue;
		}
		for (p = line; n < 8; n++) {
			const char *q = memchr(p, '\t', end - p);

			col[n] = p;
			len[n] = (q ? q : end) - p;
			if (!q) {
				n++;
				break;
			}
			p = q + 1;
		}
		if (pmaps_grow_array((void **)&f->r, &f->cap, f->nr + 1,
				     sizeof(*f->r)))
			break;
		struct nrange *r = &f->r[f->nr++];
		unsigned long long index = strtoull(col[0], NULL, 10);

		r->columns = n;
		r->count = strtoull(col[1], NULL, 10);
		r->addr = ino ? start + (index - off / page_size) * page_size :
			  index * page_size;
		r->node = n > 4 ? field_num(col[4], len[4]) : -2;
		r->kb = n > 5 ? field_num(col[5], len[5]) : -2;
		if (!vdso)
			f->pages += r->count;
	}
	text_free(&t);
	return true;
}

/*
 * Every page of [base, base + len) must be in a range with node (-2: any)
 * and kb (-2: any); returns the number of ranges it took, or -1.
 */
static int expect(const struct nfile *f, const char *base, size_t len,
		  long node, long kb)
{
	unsigned long long a = (unsigned long long)(uintptr_t)base;
	unsigned long long e = a + len, covered = 0;
	int ranges = 0;
	size_t i;

	for (i = 0; i < f->nr; i++) {
		const struct nrange *r = &f->r[i];
		unsigned long long re = r->addr + r->count * page_size;

		if (re <= a || r->addr >= e)
			continue;
		ranges++;
		covered += (re < e ? re : e) - (r->addr > a ? r->addr : a);
		if (r->columns != 7)
			tap_diag("range at %llx has %d columns, not 7", r->addr,
				 r->columns);
		else if ((node != -2 && r->node != node) ||
			 (kb != -2 && r->kb != kb))
			tap_diag("range at %llx: node %ld kb %ld, want %ld %ld",
				 r->addr, r->node, r->kb, node, kb);
		else
			continue;
		return -1;
	}
	if (covered != len) {
		tap_diag("%llu of %zu bytes at %p listed", covered, len, base);
		return -1;
	}
	/* The ranges as read, for the log; at most 8 of them. */
	for (i = 0; i < f->nr && ranges <= 8; i++)
		if (f->r[i].addr < e &&
		    f->r[i].addr + f->r[i].count * page_size > a)
			tap_diag("  %llx: %llu pages, node %ld, kb %ld",
				 f->r[i].addr, f->r[i].count, f->r[i].node,
				 f->r[i].kb);
	return ranges;
}

static bool have_node1(void)
{
	return !access("/sys/devices/system/node/node1", F_OK);
}

static long do_mbind(void *p, size_t len, int mode, unsigned long nodes)
{
	return syscall(SYS_mbind, p, len, mode, &nodes, sizeof(nodes) * 8,
		       MPOL_MF_STRICT | MPOL_MF_MOVE);
}

static void touch(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += page_size)
		p[i] = 1;
}

/* What a target maps: anonymous memory, placed and touched. */
struct placed {
	size_t len;
	size_t align;		/* of the start within a bigger mapping */
	int policy;		/* MPOL_DEFAULT: none */
	unsigned long nodes;
	int advice;		/* MADV_NOHUGEPAGE or MADV_HUGEPAGE */
	bool hugetlb;
};

static char *setup_placed(void *arg)
{
	const struct placed *pl = arg;
	size_t span = pl->len + pl->align;
	char *area, *p;

	if (pl->hugetlb) {
		area = mmap(NULL, pl->len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (area == MAP_FAILED)
			return NULL;
		p = area;
	} else {
		area = map_between_guards(span, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!area)
			return NULL;
		p = area;
		if (pl->align)
			p = (char *)(((uintptr_t)area + pl->align - 1) &
				     ~(uintptr_t)(pl->align - 1));
		if (pl->advice == MADV_NOHUGEPAGE ? no_thp(area, span) :
		    madvise(area, span, pl->advice))
			return NULL;
	}
	if (pl->policy != MPOL_DEFAULT &&
	    do_mbind(p, pl->len, pl->policy, pl->nodes))
		return NULL;
	touch(p, pl->len);
	return p;
}

/* Start a target with pl, stop it and load its extended file. */
static bool load_placed(struct placed *pl, struct target *t, struct nfile *f)
{
	char who[16], path[PATH_MAX];

	if (target_start(t, setup_placed, pl))
		return false;
	if (target_stop(t))
		return false;
	snprintf(who, sizeof(who), "%d", (int)t->pid);
	pmaps_numa_path(path, sizeof(path), who);
	return load(path, f);
}

/* The same range boundaries: flags that change move them. */
static bool same_ranges(const struct nfile *a, const struct nfile *b)
{
	size_t i;

	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->r[i].addr != b->r[i].addr ||
		    a->r[i].count != b->r[i].count)
			return false;
	return true;
}

#define TEXT_ATTEMPTS	3

/*
 * The RFC's four columns stay the default; the extended file adds three:
 * NODE, KB and AGE.  It splits a range where node, size or age differ, so
 * it has at least as many ranges as the default text, read around it: a
 * target's pages can change state between two reads (MGLRU's aging moves
 * A), and then the pair is read again, saying so.
 */
static enum outcome test_default_text_unchanged(void)
{
	struct placed pl = { REGION_PAGES * page_size, 0, MPOL_DEFAULT, 0,
			     MADV_NOHUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	char who[16], path[PATH_MAX], ext_path[PATH_MAX];
	struct nfile ext = { 0 }, plain = { 0 }, after = { 0 };
	bool ok = false;
	int attempt;
	size_t i;

	if (target_start(&t, setup_placed, &pl) || target_stop(&t))
		goto out;
	snprintf(who, sizeof(who), "%d", (int)t.pid);
	pmaps_path(path, sizeof(path), who);
	pmaps_numa_path(ext_path, sizeof(ext_path), who);
	for (attempt = 1; attempt <= TEXT_ATTEMPTS; attempt++) {
		free(plain.r);
		free(ext.r);
		free(after.r);
		memset(&ext, 0, sizeof(ext));
		memset(&after, 0, sizeof(after));
		if (!load(path, &plain) || !load(ext_path, &ext) ||
		    !load(path, &after))
			goto out;
		if (same_ranges(&plain, &after))
			break;
		if (attempt < TEXT_ATTEMPTS)
			tap_diag("retried: %s changed while %s was read (%zu ranges, then %zu), attempt %d of %d",
				 path, ext_path, plain.nr, after.nr, attempt,
				 TEXT_ATTEMPTS);
	}
	ok = plain.nr > 0 && ext.nr >= plain.nr;
	if (!ok)
		tap_diag("%s: %zu ranges, %s %zu: expected at least one, and at least as many extended",
			 path, plain.nr, ext_path, ext.nr);
	for (i = 0; i < plain.nr; i++)
		if (plain.r[i].columns != 4) {
			tap_diag("%s: range at %llx has %d columns", path,
				 plain.r[i].addr, plain.r[i].columns);
			ok = false;
		}
	for (i = 0; i < ext.nr; i++)
		if (ext.r[i].columns != 7 || ext.r[i].node < 0) {
			tap_diag("extended range at %llx: %d columns, node %ld",
				 ext.r[i].addr, ext.r[i].columns, ext.r[i].node);
			ok = false;
		}
	tap_check(plain.pages == ext.pages, "%llu pages, extended %llu",
		  plain.pages, ext.pages);
	ok = ok && plain.pages == ext.pages;
out:
	free(plain.r);
	free(ext.r);
	free(after.r);
	target_end(&t);
	return ok ? PASS : FAIL;
}

/*
 * A guest with one node: a skip, unless the harness booted it with two
 * (pmaps.nodes=2 on its command line: tests/qemu/run.sh, QEMU_NUMA=1).
 */
static enum outcome no_second_node(void)
{
	const char *want = getenv("PMAPS_NODES");

	if (want && atoi(want) >= 2) {
		tap_diag("fewer than two NUMA nodes, but the guest was booted with %s",
			 want);
		return FAIL;
	}
	return skip("fewer than two NUMA nodes");
}

/* mbind() to one node: every page shows that node. */
static enum outcome run_bind(int node)
{
	struct placed pl = { REGION_PAGES * page_size, 0, MPOL_BIND,
			     1UL << node, MADV_NOHUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	struct nfile f;
	int n = -1;

	/* node 0 is always there */
	if (node && !have_node1())
		return no_second_node();
	if (load_placed(&pl, &t, &f)) {
		n = expect(&f, t.base, pl.len, node, (long)(page_size >> 10));
		free(f.r);
	}
	target_end(&t);
	return n > 0 ? PASS : FAIL;
}

static enum outcome test_node_bind_0(void)
{
	return run_bind(0);
}

static enum outcome test_node_bind_1(void)
{
	return run_bind(1);
}

/* MPOL_INTERLEAVE over both nodes: ranges split where the node changes. */
static enum outcome test_node_interleave_splits(void)
{
	struct placed pl = { 8 * page_size, 0, MPOL_INTERLEAVE, 3,
			     MADV_NOHUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	bool ok = false;
	struct nfile f;
	size_t i;

	if (!have_node1())
		return no_second_node();
	if (load_placed(&pl, &t, &f)) {
		ok = expect(&f, t.base, pl.len, -2, -2) == 8;
		for (i = 0; ok && i < f.nr; i++) {
			const struct nrange *r = &f.r[i];

			if (r->addr < (uintptr_t)t.base ||
			    r->addr >= (uintptr_t)t.base + pl.len)
				continue;
			if (r->count != 1 ||
			    (r->addr > (uintptr_t)t.base &&
			     r->node == f.r[i - 1].node)) {
				tap_diag("range at %llx: %llu pages, node %ld",
					 r->addr, r->count, r->node);
				ok = false;
			}
		}
		if (!ok)
			tap_diag("want 8 one-page ranges alternating nodes");
		free(f.r);
	}
	target_end(&t);
	return ok ? PASS : FAIL;
}

/*
 * The first number in @path after @prefix (NULL: at its start), or 0:
 * the kernel's own sizes, as the tests below need them.
 */
static unsigned long read_number(const char *path, const char *prefix)
{
	unsigned long v = 0;
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n = prefix ? strlen(prefix) : 0;

		if (!strncmp(line, prefix ? prefix : "", n) &&
		    sscanf(line + n, "%lu", &v) == 1)
			break;
		v = 0;
	}
	fclose(f);
	return v;
}

/*
 * A PMD-mapped THP shows its size in KiB: hpage_pmd_size, 2048 on x86-64
 * and arm64 with 4K pages, 32768 with arm64's 16K pages.
 */
static enum outcome test_size_pmd_thp(void)
{
	size_t size = read_number(THP_ENABLED_DIR "/hpage_pmd_size", NULL);
	struct placed pl = { size, size, MPOL_DEFAULT, 0,
			     MADV_HUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	struct nfile f;
	int n = -1;

	if (access(THP_ENABLED_DIR "/enabled", F_OK))
		return skip("no THP in this kernel");
	if (!size) {
		tap_diag("no size in %s/hpage_pmd_size", THP_ENABLED_DIR);
		return FAIL;
	}
	if (load_placed(&pl, &t, &f)) {
		n = expect(&f, t.base, pl.len, -2, (long)(size >> 10));
		free(f.r);
	}
	target_end(&t);
	return n == 1 ? PASS : FAIL;
}

/* A 64 KiB anonymous mTHP folio shows 64. */
#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define MTHP_SIZES_MAX	16

/* An mTHP size's "enabled" setting, to be put back. */
struct mthp_setting {
	char path[320];		/* THP_DIR, a d_name and "/enabled" */
	char mode[16];
};

/*
 * Only the size named keep ("hugepages-64kB") on: a kernel that enables
 * others (thp_anon= on the command line) would fault in the largest that
 * fits.  Each setting found is saved in saved[], *nr of them.
 */
static void mthp_only(const char *keep, struct mthp_setting *saved,
		      size_t *nr)
{
	DIR *dir = opendir(THP_DIR);
	struct dirent *de;

	*nr = 0;
	if (!dir)
		return;
	while ((de = readdir(dir)) && *nr < MTHP_SIZES_MAX) {
		struct mthp_setting *m = &saved[*nr];
		char buf[128] = "", *l, *r;
		ssize_t len;
		int fd;

		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(m->path, sizeof(m->path), THP_DIR "/%s/enabled",
			 de->d_name);
		fd = open(m->path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		/* "always inherit madvise [never]": the word in brackets */
		l = len > 0 ? strchr(buf, '[') : NULL;
		r = l ? strchr(l, ']') : NULL;
		if (!r || r - l - 1 >= (ptrdiff_t)sizeof(m->mode))
			continue;
		snprintf(m->mode, sizeof(m->mode), "%.*s", (int)(r - l - 1),
			 l + 1);
		(*nr)++;
		write_string(m->path, strcmp(de->d_name, keep) ? "never" :
			     "always");
	}
	closedir(dir);
}

static void mthp_restore(const struct mthp_setting *saved, size_t nr)
{
	while (nr--)
		write_string(saved[nr].path, saved[nr].mode);
}

static enum outcome test_size_mthp(void)
{
	static const char ctl[] = THP_DIR "/hugepages-64kB/enabled";
	struct placed pl = { 256 << 10, 64 << 10, MPOL_DEFAULT, 0,
			     MADV_HUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	struct mthp_setting saved[MTHP_SIZES_MAX];
	struct nfile f;
	size_t nr;
	int n = -1;

	if (access(ctl, F_OK))
		return skip("no 64 KiB mTHP in this kernel");
	mthp_only("hugepages-64kB", saved, &nr);
	if (load_placed(&pl, &t, &f)) {
		n = expect(&f, t.base, pl.len, -2, 64);
		free(f.r);
	}
	target_end(&t);
	mthp_restore(saved, nr);
	return n > 0 ? PASS : FAIL;
}

/*
 * hugetlb pages of the default size (Hugepagesize: 2 MiB on x86-64,
 * 32 MiB with arm64's 16K pages) show it, and their node under mbind().
 */
static enum outcome test_size_hugetlb_node(void)
{
	unsigned long kb = read_number("/proc/meminfo", "Hugepagesize:");
	struct placed pl = { kb << 10, 0, MPOL_DEFAULT, 0, MADV_NOHUGEPAGE,
			     true };
	struct target t = { .pid = -1, .release_fd = -1 };
	int node = have_node1() ? 1 : -2;
	struct nfile f;
	int n = -1;

	if (access("/proc/sys/vm/nr_hugepages", F_OK))
		return skip("no hugetlb in this kernel");
	if (!kb) {
		tap_diag("no Hugepagesize in /proc/meminfo");
		return FAIL;
	}
	if (write_string("/proc/sys/vm/nr_hugepages", "4"))
		return FAIL;
	if (node == 1) {
		pl.policy = MPOL_BIND;
		pl.nodes = 2;
	}
	if (load_placed(&pl, &t, &f)) {
		n = expect(&f, t.base, pl.len, node, (long)kb);
		free(f.r);
	}
	target_end(&t);
	write_string("/proc/sys/vm/nr_hugepages", "0");
	return n == 1 ? PASS : FAIL;
}

/*
 * uid 65534 mapping root's 0644 file: its folio size is withheld with its
 * state, as from mincore(); its node is shown, as numa_maps shows it.
 */
static bool check_withheld_size(void *arg)
{
	size_t len = 4 * page_size;
	char path[PATH_MAX];
	struct nfile f;
	char *base;
	int fd, n;

	if (!drop_to_nobody(1))
		return false;
	fd = open(arg, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	base = map_between_guards(len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (!base)
		return false;
	madvise(base, len, MADV_NOHUGEPAGE);
	for (n = 0; n < 4; n++)
		(void)*(volatile char *)(base + n * page_size);
	pmaps_numa_path(path, sizeof(path), "self");
	if (!load(path, &f))
		return false;
	n = expect(&f, base, len, -2, -1);
	for (size_t i = 0; n > 0 && i < f.nr; i++)
		if (f.r[i].addr >= (uintptr_t)base &&
		    f.r[i].addr < (uintptr_t)base + len && f.r[i].node < 0)
			n = -1;
	free(f.r);
	return n > 0;
}

static enum outcome test_size_withheld_from_other_users(void)
{
	char path[] = "/tmp/pmaps_numa.XXXXXX";
	bool ok;
	int fd;

	if (!require_root())
		return skip("needs root");
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 4 * page_size) || fchmod(fd, 0644))
		return FAIL;
	for (int i = 0; i < 4; i++)
		if (pwrite(fd, "x", 1, i * page_size) != 1)
			return FAIL;
	close(fd);
	ok = run_in_child(check_withheld_size, path);
	unlink(path);
	return ok ? PASS : FAIL;
}

/*
 * Start a target with pl placed and stopped, write its PID into pid (the
 * PID argument of argv) and run argv into *out, NUL-terminated.  False,
 * with a diagnostic when pmaps failed, if any step did.
 */
static bool run_pmaps_on_placed(struct target *t, struct placed *pl,
				char *const argv[], char pid[16],
				struct text *out)
{
	int status;

	if (target_start(t, setup_placed, pl) || target_stop(t))
		return false;
	snprintf(pid, 16, "%d", (int)t->pid);
	status = run_capture(argv, out);
	if (status) {
		tap_diag("pmaps exited with %d: %.*s", status,
			 (int)out->len, out->data);
		return false;
	}
	out->data[out->len ? out->len - 1 : 0] = '\0';
	return true;
}

/*
 * The line of text that starts with the address start, however
 * zero-padded: pmaps pads addresses to the widest one, which is
 * [vsyscall]'s where the kernel's /proc/PID/pmaps lists the gate VMA.
 */
static const char *vma_line(const char *text, unsigned long long start)
{
	char hex[24];
	size_t n = (size_t)snprintf(hex, sizeof(hex), "%llx-", start);
	const char *p = text, *q;

	while ((p = strstr(p, hex))) {
		for (q = p; q > text && q[-1] == '0'; q--)
			;
		if (q == text || q[-1] == '\n')
			return p;
		p += n;
	}
	return NULL;
}

/* pmaps --numa --totals: the VMA's per-node totals, as numa_maps' N<n>=. */
static enum outcome test_pmaps_totals_per_node(void)
{
	struct placed pl = { REGION_PAGES * page_size, 0, MPOL_BIND, 2,
			     MADV_NOHUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	char pid[16], want[64];
	char *argv[] = { "/bin/pmaps", "--numa", "--totals", "--color=never",
			 pid, NULL };
	struct text out = { 0 };
	const char *vma, *total;
	bool ok = false;

	if (!have_node1())
		return no_second_node();
	if (!run_pmaps_on_placed(&t, &pl, argv, pid, &out))
		goto out;
	snprintf(want, sizeof(want), "N0 0  N1 %zu.0K", pl.len >> 10);
	vma = vma_line(out.data, (unsigned long long)(uintptr_t)t.base);
	total = vma ? strstr(vma, "\n  total") : NULL;
	ok = total && strstr(total, want) &&
	     strstr(total, want) < strchr(total + 1, '\n');
	if (!ok)
		tap_diag("want \"%s\" in the VMA's totals:\n%s", want,
			 out.data);
	else
		tap_diag("%.*s", (int)(strchr(total + 1, '\n') - total - 1),
			 total + 1);
out:
	text_free(&out);
	target_end(&t);
	return ok ? PASS : FAIL;
}

/*
 * pmaps export --numa: the target's private anonymous memory bound to node
 * 1 shows as node="1" resident bytes of kind anon, at least the region's
 * length (the target's other anonymous pages may be on either node).
 */
static enum outcome test_export_per_node(void)
{
	struct placed pl = { REGION_PAGES * page_size, 0, MPOL_BIND, 2,
			     MADV_NOHUGEPAGE, false };
	struct target t = { .pid = -1, .release_fd = -1 };
	char pid[16], want[64];
	char *argv[] = { "/bin/pmaps", "export", "--numa", pid, NULL };
	struct text out = { 0 };
	unsigned long long bytes = 0;
	const char *line, *value;
	bool ok = false;

	if (!have_node1())
		return no_second_node();
	if (!run_pmaps_on_placed(&t, &pl, argv, pid, &out))
		goto out;
	snprintf(want, sizeof(want), "pmaps_resident_bytes{pid=\"%s\",", pid);
	for (line = strstr(out.data, want); line;
	     line = strstr(line + 1, want)) {
		const char *end = strchr(line, '\n');
		const char *node = strstr(line, ",kind=\"anon\",node=\"1\"}");

		if (node && (!end || node < end)) {
			value = strchr(node, ' ');
			bytes = value ? strtoull(value + 1, NULL, 10) : 0;
			break;
		}
	}
	ok = bytes >= pl.len;
	if (!ok)
		tap_diag("want at least %zu resident anon bytes on node 1, got %llu:\n%s",
			 pl.len, bytes, out.data);
	else
		tap_diag("node 1 anon resident: %llu bytes", bytes);
out:
	text_free(&out);
	target_end(&t);
	return ok ? PASS : FAIL;
}

static const struct test_case tests[] = {
	TEST(test_default_text_unchanged),
	TEST(test_node_bind_0),
	TEST(test_node_bind_1),
	TEST(test_node_interleave_splits),
	TEST(test_size_pmd_thp),
	TEST(test_size_mthp),
	TEST(test_size_hugetlb_node),
	TEST(test_size_withheld_from_other_users),
	TEST(test_pmaps_totals_per_node),
	TEST(test_export_per_node),
};

int main(int argc, char **argv)
{
	return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
			  TEST_TIMEOUT_SEC, false);
}
