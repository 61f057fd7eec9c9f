// SPDX-License-Identifier: GPL-2.0
/*
 * The heaps of a live process (see heap.h): its mappings from
 * /proc/PID/maps, its memory through process_vm_readv(2), which needs
 * what /proc/PID/mem needs (PTRACE_MODE_ATTACH: root, or the same user and
 * ptrace allowed), the glibc version from the banner in its libc, and
 * the layout from that libc's debug symbols when there are any.
 *
 * Every thread of the process is stopped while it is read (PTRACE_SEIZE
 * and PTRACE_INTERRUPT, as a debugger attaches; the same permission as
 * process_vm_readv): a heap read while another thread changes it looks
 * corrupted.  Where that is refused (another tracer), it is read running,
 * and a note says so.  A thread stopped inside malloc can leave an
 * arena's lists half changed: a heap that does not walk is read again,
 * after the process has run a moment, before it is called corrupted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* process_vm_readv */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heap.h"
#include "pagemap.h"
#include "pmaps.h"

/* Bytes of libc searched at a time for its banner. */
#define SCAN_WINDOW	(256U << 10)
/* Allocators that take malloc's place, by their libraries' names. */
static const char *const other_allocators[][2] = {
	{ "libjemalloc", "jemalloc" },
	{ "libtcmalloc", "tcmalloc" },
	{ "libmimalloc", "mimalloc" },
	{ "libhoard", "Hoard" },
	{ "ld-musl", "musl" },
};

struct proc_mem {
	int pid;
	int pagemap;		/* /proc/PID/pagemap, or -1 */
	const struct pmaps_heap_mem *mem;	/* its mappings */
};

/* The threads stopped for the read, and a signal each must get back. */
struct frozen {
	struct frozen_task {
		pid_t tid;
		int signal;	/* caught while stopping it, or 0 */
	} *tasks;
	size_t nr, cap;
};

static bool frozen_has(const struct frozen *f, pid_t tid)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (f->tasks[i].tid == tid)
			return true;
	return false;
}

/* Let every stopped thread go, with the signal its stop held back. */
static void thaw(struct frozen *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		ptrace(PTRACE_DETACH, f->tasks[i].tid, NULL,
		       (void *)(long)f->tasks[i].signal);
	free(f->tasks);
	memset(f, 0, sizeof(*f));
}

/*
 * Stop one thread: seized, interrupted, and waited for.  0 when it is
 * stopped or has exited meanwhile; -1 with errno when it may not be.
 */
static int freeze_task(struct frozen *f, pid_t tid)
{
	struct frozen_task *t;
	int status;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return errno == ESRCH ? 0 : -1;
	if (f->nr == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;

		t = realloc(f->tasks, cap * sizeof(*t));
		if (!t) {
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
			return -1;
		}
		f->tasks = t;
		f->cap = cap;
	}
	t = &f->tasks[f->nr++];
	t->tid = tid;
	t->signal = 0;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) && errno != ESRCH)
		return -1;
	while (waitpid(tid, &status, __WALL) < 0) {
		if (errno != EINTR) {
			f->nr--;	/* gone: nothing to detach */
			return 0;
		}
	}
	if (!WIFSTOPPED(status)) {
		f->nr--;
		return 0;
	}
	/* a signal that arrived first stopped it: it is delivered on detach */
	if ((status >> 16) == 0)
		t->signal = WSTOPSIG(status);
	return 0;
}

/*
 * Stop every thread of pid.  A thread started before its creator stopped
 * is in the next listing, so list again until a listing adds none.
 */
static int freeze(int pid, struct frozen *f)
{
	char path[64];
	bool added;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	do {
		DIR *dir = opendir(path);
		struct dirent *de;

		if (!dir)
			return -1;
		added = false;
		while ((de = readdir(dir))) {
			pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);

			if (tid <= 0 || frozen_has(f, tid))
				continue;
			if (freeze_task(f, tid)) {
				int e = errno;

				closedir(dir);
				errno = e;
				return -1;
			}
			added = true;
		}
		closedir(dir);
	} while (added);
	return 0;
}

/*
 * The thread pointer (fs_base) of each stopped thread, into *ptrs (0 for
 * one not read): where each thread's tcache pointer is found.  NULL when
 * there are none, or on an architecture pmaps heap does not know.
 */
static uint64_t *thread_ptrs(const struct frozen *f)
{
	uint64_t *ptrs;
	size_t i;

	if (!f->nr || !(ptrs = calloc(f->nr, sizeof(*ptrs))))
		return NULL;
#ifdef __x86_64__
	for (i = 0; i < f->nr; i++) {
		struct user_regs_struct regs;

		if (!ptrace(PTRACE_GETREGS, f->tasks[i].tid, NULL, &regs))
			ptrs[i] = regs.fs_base;
	}
#else
	(void)i;
#endif
	return ptrs;
}

/* Bits of a /proc/PID/pagemap entry: the page is in memory, in swap. */
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)
/* Pagemap entries read at once. */
#define PM_BATCH	512

static uint64_t page_size(void)
{
	static uint64_t size;

	if (!size) {
		long v = sysconf(_SC_PAGESIZE);

		size = v > 0 ? (uint64_t)v : 4096;
	}
	return size;
}

/* The mapping of the target that holds addr, or NULL. */
static const struct pmaps_heap_mapping *mapping_at(const struct proc_mem *p,
						    uint64_t addr)
{
	size_t i;

	for (i = 0; p->mem && i < p->mem->nr_maps; i++)
		if (addr >= p->mem->maps[i].start && addr < p->mem->maps[i].end)
			return &p->mem->maps[i];
	return NULL;
}

/*
 * Private anonymous memory, where a page never touched (neither present
 * nor in swap) reads as zeros: the kernel would map its zero page.
 */
static bool private_anon(const struct pmaps_heap_mapping *m)
{
	return m && m->perms[3] == 'p' &&
	       (!m->name[0] || !strcmp(m->name, "[heap]") ||
		!strcmp(m->name, "[stack]") || !strncmp(m->name, "[anon:", 6));
}

/* len bytes at addr, all present, in one process_vm_readv. */
static int read_present(const struct proc_mem *p, uint64_t addr, void *buf,
			size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	n = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * len bytes at addr, without faulting a page into the target (the man
 * page promises it): process_vm_readv() maps what it reads, a file page
 * from the page cache or from disk, a page in swap back in.  So each
 * page's pagemap entry is looked at first: a present page is read; one
 * of private anonymous memory that is neither present nor in swap (never
 * touched, or given back with MADV_DONTNEED) reads as the zeros it
 * holds; any other page (a file's, or one in swap) is not read, and the
 * read fails with EFAULT.  Without pagemap nothing is read (EPERM): it
 * opens for whoever may read the memory at all.
 */
static int proc_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct proc_mem *p = ctx;
	const uint64_t ps = page_size();
	unsigned char *out = buf;
	uint64_t ent[PM_BATCH];

	if (p->pagemap < 0) {
		errno = EPERM;
		return -1;
	}
	while (len) {
		uint64_t first = addr / ps, last = (addr + len - 1) / ps;
		size_t n = last - first + 1 > PM_BATCH ? PM_BATCH :
			   (size_t)(last - first + 1), i = 0;
		ssize_t got;

		got = pread(p->pagemap, ent, n * sizeof(ent[0]),
			    (off_t)(first * sizeof(ent[0])));
		if (got != (ssize_t)(n * sizeof(ent[0]))) {
			if (got >= 0)
				errno = EIO;
			return -1;
		}
		while (i < n && len) {
			/* a run of pages alike: present, or zeros */
			bool present = ent[i] & PM_PRESENT;
			uint64_t end = (first + i + 1) * ps;
			size_t k, chunk;

			if (!present && ((ent[i] & PM_SWAP) ||
					 !private_anon(mapping_at(p, addr)))) {
				errno = EFAULT;
				return -1;
			}
			for (k = i + 1; k < n && !(ent[k] & PM_SWAP) &&
			     !!(ent[k] & PM_PRESENT) == present; k++) {
				if (!present &&
				    !private_anon(mapping_at(p, end)))
					break;
				end += ps;
			}
			chunk = end - addr < len ? (size_t)(end - addr) : len;
			if (!present)
				memset(out, 0, chunk);
			else if (read_present(p, addr, out, chunk))
				return -1;
			out += chunk;
			addr += chunk;
			len -= chunk;
			i = k;
		}
	}
	return 0;
}

/* One process_vm_readv for them all: a read per page would cost a call
 * per page.  Where a page is not present, each is read by proc_read(). */
static int proc_read_each(void *ctx, const uint64_t *addrs, size_t n,
			  size_t len, void *buf)
{
	const struct proc_mem *p = ctx;
	struct iovec local = { buf, n * len }, remote[256];
	const uint64_t ps = page_size();
	uint64_t ent[2];
	ssize_t got;
	size_t i;

	if (n > sizeof(remote) / sizeof(remote[0]) || p->pagemap < 0 ||
	    !len)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t first = addrs[i] / ps, last = (addrs[i] + len - 1) / ps;
		size_t np = last - first + 1;

		if (np > 2 ||
		    pread(p->pagemap, ent, np * sizeof(ent[0]),
			  (off_t)(first * sizeof(ent[0]))) !=
		    (ssize_t)(np * sizeof(ent[0])) ||
		    !(ent[0] & PM_PRESENT) ||
		    (np == 2 && !(ent[1] & PM_PRESENT)))
			break;
		remote[i].iov_base = (void *)(uintptr_t)addrs[i];
		remote[i].iov_len = len;
	}
	if (i < n) {
		for (i = 0; i < n; i++)
			if (proc_read(ctx, addrs[i], (char *)buf + i * len,
				      len))
				return -1;
		return 0;
	}
	got = process_vm_readv(p->pid, &local, 1, remote, n, 0);
	return got == (ssize_t)(n * len) ? 0 : -1;
}

/*
 * From /proc/PID/pagemap, which reads no page: a page never touched
 * holds no chunk, and reading it would map one into the process.
 */
static int proc_resident(void *ctx, uint64_t addr, size_t n, bool *in)
{
	const struct proc_mem *p = ctx;
	uint64_t ent[256];
	size_t i;

	if (p->pagemap < 0 || n > sizeof(ent) / sizeof(ent[0]) ||
	    pread(p->pagemap, ent, n * sizeof(ent[0]),
		  (off_t)(addr / page_size() * sizeof(ent[0]))) !=
	    (ssize_t)(n * sizeof(ent[0])))
		return -1;
	for (i = 0; i < n; i++)
		in[i] = ent[i] & (PM_PRESENT | PM_SWAP);
	return 0;
}

static void free_maps(struct pmaps_heap_mem *mem)
{
	size_t i;

	for (i = 0; i < mem->nr_maps; i++)
		free(mem->maps[i].name);
	free(mem->maps);
	mem->maps = NULL;
	mem->nr_maps = 0;
}

static int read_maps(int pid, struct pmaps_heap_mem *mem, char *err,
		     size_t errlen)
{
	char path[64], *line = NULL;
	size_t cap = 0, linecap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			snprintf(err, errlen, "no process %d", pid);
		else
			snprintf(err, errlen, "%s: %s%s", path,
				 strerror(errno),
				 errno == EACCES ? pmaps_denied_hint(path) : "");
		return -1;
	}
	while (getline(&line, &linecap, f) > 0) {
		struct pmaps_heap_mapping m = { 0 };
		unsigned long long start, end, off, inode;
		int name_at = 0;
		char *nl;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start,
			   &end, m.perms, &off, &m.dev_major, &m.dev_minor,
			   &inode, &name_at) < 7 || !name_at) {
			snprintf(err, errlen, "%s: expected \"START-END PERMS OFFSET DEV INODE [NAME]\", got: %.80s",
				 path, line);
			goto fail;
		}
		nl = strchr(line + name_at, '\n');
		if (nl)
			*nl = '\0';
		m.start = start;
		m.end = end;
		m.offset = off;
		m.inode = inode;
		m.name = strdup(line + name_at);
		if (!m.name || pmaps_grow_array((void **)&mem->maps, &cap,
						mem->nr_maps + 1,
						sizeof(*mem->maps))) {
			free(m.name);
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		mem->maps[mem->nr_maps++] = m;
	}
	free(line);
	fclose(f);
	if (!mem->nr_maps) {
		snprintf(err, errlen, "process %d has no memory to read (a kernel thread, or it exited)",
			 pid);
		return -1;
	}
	return 0;
fail:
	free(line);
	fclose(f);
	free_maps(mem);
	return -1;
}

/* The mapping of libc at file offset 0, or NULL. */
static const struct pmaps_heap_mapping *libc_map(const struct pmaps_heap_mem *mem)
{
	size_t i;

	for (i = 0; i < mem->nr_maps; i++) {
		const char *base = strrchr(mem->maps[i].name, '/');

		base = base ? base + 1 : "";
		if ((!strncmp(base, "libc.so", 7) ||
		     !strncmp(base, "libc-2.", 7)) && !mem->maps[i].offset)
			return &mem->maps[i];
	}
	return NULL;
}

static const char banner_key[] = "release version ";

/*
 * The version in "... release version 2.36." in buf[0..len), or -1.
 * Only where the version's digits can follow whole (64 bytes on).
 */
static int find_banner(const char *buf, size_t len, int *major, int *minor)
{
	size_t keylen = sizeof(banner_key) - 1;
	const char *p = buf, *end = buf + len;

	while ((p = memchr(p, 'r', (size_t)(end - p))) &&
	       (size_t)(end - p) > keylen + 8) {
		if (!memcmp(p, banner_key, keylen) &&
		    sscanf(p + keylen, "%d.%d", major, minor) == 2)
			return 0;
		p++;
	}
	return -1;
}

/*
 * The banner from libc's file on disk, as the process sees it
 * (/proc/PID/root), when it is the very file mapped (device and inode as
 * /proc/PID/maps gives them): no page of the process is read, and its
 * pages of libc, most of which it never touched, stay as they were.
 * 0, or -1 when it is not that file or has no banner.
 */
static int libc_version_file(int pid, const struct pmaps_heap_mapping *libc,
			     char *buf, int *major, int *minor)
{
	char path[4200];
	struct stat st;
	off_t off;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, libc->name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_ino != libc->inode ||
	    major(st.st_dev) != libc->dev_major ||
	    minor(st.st_dev) != libc->dev_minor) {
		close(fd);
		return -1;
	}
	/* windows overlap by the key and a version's length */
	for (off = 0; off < st.st_size && ret; off += SCAN_WINDOW - 64) {
		ssize_t n = pread(fd, buf, SCAN_WINDOW, off);

		if (n <= 0)
			break;
		ret = find_banner(buf, (size_t)n, major, minor);
		if (n < (ssize_t)SCAN_WINDOW)
			break;
	}
	close(fd);
	return ret;
}

/*
 * The version in "... release version 2.36." of libc's banner: from its
 * file (above), or else from the pages of its read-only mappings that are
 * in memory, one page at a time (the reader reads no other: see
 * proc_read()).  Returns 0, or -1 when there is none.
 */
static int libc_version(const struct pmaps_heap_mem *mem, int pid,
			const struct pmaps_heap_mapping *libc, int *major,
			int *minor)
{
	const uint64_t ps = page_size();
	char *buf = malloc(SCAN_WINDOW > ps + 64 ? SCAN_WINDOW : ps + 64);
	size_t i;
	int ret;

	if (!buf)
		return -1;
	ret = libc_version_file(pid, libc, buf, major, minor);
	for (i = 0; i < mem->nr_maps && ret; i++) {
		const struct pmaps_heap_mapping *m = &mem->maps[i];
		size_t carry = 0;	/* the previous page's last bytes */
		uint64_t addr;

		if (strcmp(m->name, libc->name) || m->perms[0] != 'r')
			continue;
		for (addr = m->start; addr < m->end && ret; addr += ps) {
			if (mem->read(mem->ctx, addr, buf + carry, ps)) {
				carry = 0;
				continue;
			}
			ret = find_banner(buf, carry + ps, major, minor);
			memmove(buf, buf + carry + ps - 64, 64);
			carry = 64;
		}
	}
	free(buf);
	return ret;
}

/* The name of another allocator pid maps, or NULL; *path its library. */
static const char *other_allocator(const struct pmaps_heap_mem *mem,
				   const char **path)
{
	size_t i, k;

	for (i = 0; i < mem->nr_maps; i++)
		for (k = 0; k < sizeof(other_allocators) /
				sizeof(other_allocators[0]); k++)
			if (strstr(mem->maps[i].name, other_allocators[k][0])) {
				*path = mem->maps[i].name;
				return other_allocators[k][1];
			}
	return NULL;
}

/* mp_'s fields from the target, at mp (its address there). */
static int read_mp(struct pmaps_heap_mem *mem, uint64_t mp,
		   const struct pmaps_glibc_symbols *syms,
		   struct pmaps_glibc_layout *lay)
{
	int32_t n_mmaps;

	if (!mp || !syms->mp_fields ||
	    mem->read(mem->ctx, mp + syms->mp_sbrk_base, &lay->sbrk_base, 8) ||
	    mem->read(mem->ctx, mp + syms->mp_mmapped_mem, &lay->mmapped_mem,
		      8) ||
	    mem->read(mem->ctx, mp + syms->mp_n_mmaps, &n_mmaps, 4))
		return -1;
	lay->n_mmaps = n_mmaps;
	lay->have_mp = true;
	return 0;
}

/* read_stopped(): the heaps did not walk, maybe for now only. */
#define WALK_FAILED	(-1)

/*
 * One read of the heaps of pid, its threads stopped.  Returns 0, an enum
 * pmaps_heap_error, or WALK_FAILED when the heaps did not walk: a thread
 * may have been stopped inside malloc, with an arena's lists half
 * changed.
 */
static int read_stopped(int pid, const char *debug_dir,
			struct pmaps_heap_report *out, char *err,
			size_t errlen)
{
	int st = PMAPS_HEAP_ERR_READ, walked;
	struct frozen frozen = { 0 };
	struct proc_mem pm = { pid, -1, NULL };
	struct pmaps_heap_mem mem = {
		.read = proc_read, .read_each = proc_read_each,
		.resident = proc_resident, .ctx = &pm,
	};
	const struct pmaps_heap_mapping *libc;
	struct pmaps_glibc_layout lay;
	struct pmaps_glibc_symbols syms;
	const char *other, *other_path = NULL;
	char why[1100], path[4200], walk_err[PMAPS_HEAP_MSG];
	int major, minor;
	uint64_t probe, *threads;

	memset(out, 0, sizeof(*out));
	if (freeze(pid, &frozen)) {
		int e = errno;

		thaw(&frozen);
		if (e == ESRCH || e == ENOENT) {
			snprintf(err, errlen, "no process %d", pid);
			return PMAPS_HEAP_ERR_READ;
		}
		/* EPERM: traced already, or no ptrace access (said below) */
		pmaps_heap_note(out, "read while it ran (PTRACE_SEIZE: %s): a heap that changed meanwhile can look corrupted",
				strerror(e));
	}
	pm.mem = &mem;
	mem.thread_ptrs = threads = thread_ptrs(&frozen);
	mem.nr_threads = threads ? frozen.nr : 0;
	if (read_maps(pid, &mem, err, errlen)) {
		free(threads);
		thaw(&frozen);
		pmaps_heap_report_free(out);	/* its note */
		return PMAPS_HEAP_ERR_READ;
	}
	/* spares the pages never touched; without it, every page is read */
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pm.pagemap = open(path, O_RDONLY | O_CLOEXEC);
	/* a first read says whether we may read at all */
	if (proc_read(&pm, mem.maps[0].start, &probe, sizeof(probe)) &&
	    (errno == EPERM || errno == ESRCH)) {
		snprintf(err, errlen, "cannot read the memory of process %d: %s%s",
			 pid, strerror(errno),
			 errno == EPERM ? " (needs root, or ptrace access to the process, as /proc/PID/mem does)" : "");
		goto fail;
	}
	other = other_allocator(&mem, &other_path);
	libc = libc_map(&mem);
	if (!libc) {
		if (other) {
			snprintf(err, errlen, "process %d uses %s (%s), not glibc: no glibc heap to show",
				 pid, other, other_path);
			st = PMAPS_HEAP_ERR_FOREIGN;
		} else {
			snprintf(err, errlen, "process %d maps no libc.so.6: not glibc, or linked statically, which pmaps heap cannot read",
				 pid);
		}
		goto fail;
	}
	if (libc_version(&mem, pid, libc, &major, &minor)) {
		snprintf(err, errlen, "%s in process %d: no \"release version\" banner: not a glibc pmaps heap knows",
			 libc->name, pid);
		goto fail;
	}
	snprintf(out->version, sizeof(out->version), "%d.%d", major, minor);
	if (pmaps_glibc_layout_for(major, minor, &lay))
		pmaps_heap_note(out, "glibc %d.%d: pmaps knows the malloc of 2.26 to 2.41%s",
				major, minor, major == 2 && minor < 26 ?
				"; before 2.26 there is no tcache" :
				"; the layout of the newest is assumed unless debug symbols say otherwise");
	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, libc->name);
	if (!pmaps_glibc_debuginfo(path, debug_dir, &lay, &syms, why,
				   sizeof(why))) {
		uint64_t base = libc->start;

		lay.main_arena = base + syms.main_arena;
		if (read_mp(&mem, syms.mp ? base + syms.mp : 0, &syms, &lay))
			pmaps_heap_note(out, "%s: mp_ not read: the chunks served by mmap are not checked against its count",
					syms.debug_file);
		snprintf(out->layout_from, sizeof(out->layout_from),
			 "debug symbols (%s)", syms.debug_file);
	} else {
		snprintf(out->layout_from, sizeof(out->layout_from),
			 "glibc %d.%d's, from the heaps (%s)", major, minor,
			 why);
	}
	walked = pmaps_heap_walk(&mem, &lay, out, walk_err, sizeof(walk_err));
	if (walked) {
		if (other) {
			snprintf(err, errlen, "process %d allocates with %s (%s), not glibc's malloc: %s",
				 pid, other, other_path, walk_err);
			st = PMAPS_HEAP_ERR_FOREIGN;
		} else {
			snprintf(err, errlen, "process %d: %s", pid, walk_err);
			/* -2: no heap, or a read failed: no retry helps */
			if (walked == -1)
				st = WALK_FAILED;
		}
		goto fail;
	}
	if (other)
		pmaps_heap_note(out, "the process also maps %s (%s): what it allocates is not shown",
				other, other_path);
	thaw(&frozen);
	free_maps(&mem);
	free(threads);
	if (pm.pagemap >= 0)
		close(pm.pagemap);
	return 0;
fail:
	thaw(&frozen);
	pmaps_heap_report_free(out);
	free_maps(&mem);
	free(threads);
	if (pm.pagemap >= 0)
		close(pm.pagemap);
	return st;
}

/* Reads of a heap that would not walk, before it is called corrupted. */
#define READ_ATTEMPTS	10

int pmaps_heap_read_pid(int pid, const char *debug_dir,
			struct pmaps_heap_report *out, char *err,
			size_t errlen)
{
	/* 2 ms running between reads, for threads to leave malloc */
	const struct timespec pause = { 0, 2000000 };
	int attempt, ret;

	for (attempt = 1;; attempt++) {
		ret = read_stopped(pid, debug_dir, out, err, errlen);
		if (ret != WALK_FAILED)
			return ret;
		if (attempt == READ_ATTEMPTS)
			break;
		nanosleep(&pause, NULL);
	}
	snprintf(err + strlen(err), errlen - strlen(err),
		 " (the same in %d reads)", READ_ATTEMPTS);
	return PMAPS_HEAP_ERR_CORRUPT;
}
