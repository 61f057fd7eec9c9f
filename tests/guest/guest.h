/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest test programs (pmaps_test.c, resources.c):
 * the pmaps file name, reading and parsing texts, child processes, and
 * the test-case runner.  Everything is static, so each program gets its
 * own copy and unused helpers cost nothing.
 *
 * A program defines its tests, then
 *
 *	int main(int argc, char **argv)
 *	{
 *		return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
 *				  TEST_TIMEOUT_SEC, false);
 *	}
 */
#ifndef PMAPS_GUEST_H
#define PMAPS_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loaded.h"
#include "lru_drain.h"
#include "pmaps.h"
#include "tap.h"

#define DEFAULT_FILE_FMT	"/proc/pmaps_ext/%s"
#define NOBODY			65534
#define READ_CHUNK		65536

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

enum outcome { PASS, FAIL, SKIP };

static const char *file_fmt;
/* Directory holding one entry per pid, if the format is "DIR/%s". */
static char pid_dir[PATH_MAX];
static size_t page_size;
/* Shared with the per-test child so it can say why it skipped. */
static char *skip_reason;
#define SKIP_REASON_SIZE	256

static inline enum outcome skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline enum outcome skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, SKIP_REASON_SIZE, fmt, ap);
	va_end(ap);
	return SKIP;
}

/* ---- file names ---- */

/*
 * Exactly one "%s" (or, if allow_d, one "%d" instead) and no other
 * conversion.
 */
static inline bool file_fmt_valid(const char *fmt, bool allow_d)
{
	const char *s = strstr(fmt, "%s");
	const char *d = allow_d ? strstr(fmt, "%d") : NULL;
	const char *hole = s ? s : d;

	return hole && !(s && d) && strchr(fmt, '%') == hole &&
	       !strchr(hole + 2, '%');
}

/* The one "%s" or "%d" of the (validated) file_fmt. */
static inline const char *fmt_hole(void)
{
	const char *s = strstr(file_fmt, "%s"), *d = strstr(file_fmt, "%d");

	return s ? s : d;
}

/* file_fmt with its hole replaced by who. */
static inline void pmaps_path(char *out, size_t size, const char *who)
{
	const char *hole = fmt_hole();

	snprintf(out, size, "%.*s%s%s", (int)(hole - file_fmt), file_fmt, who,
		 hole + 2);
}

static inline void pmaps_path_pid(char *out, size_t size, pid_t pid)
{
	char who[24];

	snprintf(who, sizeof(who), "%d", (int)pid);
	pmaps_path(out, size, who);
}

/*
 * The NUMA file of who (a PID or "self"), beside the file file_fmt
 * names: /proc/pmaps_ext/numa/WHO, or /proc/WHO/pmaps_numa.
 */
static inline void pmaps_numa_path(char *out, size_t size, const char *who)
{
	char plain[PATH_MAX - 32];

	pmaps_path(plain, sizeof(plain), who);
	if (!strncmp(plain, "/proc/pmaps_ext/", 16))
		snprintf(out, size, "/proc/pmaps_ext/numa/%s", plain + 16);
	else
		snprintf(out, size, "%s_numa", plain);
}

/* ---- reading texts ---- */

struct text {
	char *data;
	size_t len;
	size_t cap;
	bool fixed;	/* caller-owned buffer: never reallocated */
};

static inline void text_free(struct text *t)
{
	if (!t->fixed) {
		free(t->data);
		t->data = NULL;
		t->cap = 0;
	}
	t->len = 0;
}

/*
 * Append to t with reads of at most chunk bytes until EOF (return 0) or,
 * if limit is not 0, until t holds at least limit bytes (return 1).  A
 * fixed t that fills up gives -ENOSPC.  -errno on error.
 */
static inline int read_fd_text(int fd, size_t chunk, size_t limit,
			       struct text *t)
{
	while (!limit || t->len < limit) {
		size_t want = chunk;
		ssize_t n;

		if (t->cap - t->len < want) {
			if (t->fixed) {
				want = t->cap - t->len;
				if (!want)
					return -ENOSPC;
			} else {
				size_t cap = t->cap ? t->cap : READ_CHUNK;
				char *grown;

				while (cap - t->len < want)
					cap *= 2;
				grown = realloc(t->data, cap);
				if (!grown)
					return -ENOMEM;
				t->data = grown;
				t->cap = cap;
			}
		}
		n = read(fd, t->data + t->len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		t->len += (size_t)n;
	}
	return 1;
}

/* Replace t with the whole of path.  Returns 0 or -errno. */
static inline int read_path_text(const char *path, size_t chunk,
				 struct text *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	t->len = 0;
	if (fd < 0)
		return -errno;
	err = read_fd_text(fd, chunk, 0, t);
	close(fd);
	return err;
}

/* Print line number lineno (1-based) of t. */
static inline void show_text_line(const struct text *t, unsigned int lineno)
{
	const char *p = t->data, *end = t->data + t->len;

	while (p < end && --lineno) {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	if (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		tap_diag("  line: %.*s", (int)((nl ? nl : end) - p), p);
	}
}

/* Print the line of t holding byte offset off. */
static inline void show_line_at(const char *label, const struct text *t,
				size_t off)
{
	const char *start = t->data + off, *end = t->data + t->len, *nl;

	if (off >= t->len) {
		tap_diag("  %s: <end of text>", label);
		return;
	}
	while (start > t->data && start[-1] != '\n')
		start--;
	nl = memchr(start, '\n', (size_t)(end - start));
	tap_diag("  %s: %.*s", label, (int)((nl ? nl : end) - start), start);
}

/* Parse t; on failure print why and leave nothing to free. */
static inline int parse_text(const struct text *t, const char *path,
			     struct pmaps_map *map)
{
	char err[256];
	unsigned int lineno;

	memset(map, 0, sizeof(*map));
	/* a live text: in this kernel's pages, not the ones it might fit */
	if (!pmaps_parse_buf_as(t->len ? t->data : "", t->len, path,
				pmaps_page_size(), map, err, sizeof(err)))
		return 0;
	tap_diag("%s does not parse: %s", path, err);
	if (!strncmp(err, path, strlen(path)) &&
	    sscanf(err + strlen(path), ":%u:", &lineno) == 1)
		show_text_line(t, lineno);
	pmaps_map_free(map);
	return -1;
}

/* Write s to path (a sysctl or sysfs file); 0 or -1, said as a diagnostic. */
static inline int write_string(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, s, strlen(s));
	if (n != (ssize_t)strlen(s))
		tap_diag("write %s: %s", path, n < 0 ? strerror(errno) : "short");
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static inline double elapsed_ms(const struct timespec *from,
				const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) * 1e3 +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e6;
}

/* ---- mappings ---- */

/*
 * Map len bytes between two PROT_NONE guard pages so the kernel cannot
 * merge the mapping with a neighbour.  fd -1, offset 0 for anonymous.
 */
static inline char *map_between_guards(size_t len, int prot, int flags,
				       int fd, off_t offset)
{
	char *area, *p;

	area = mmap(NULL, len + 2 * page_size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		tap_diag("reserving %zu bytes: %s", len, strerror(errno));
		return NULL;
	}
	p = mmap(area + page_size, len, prot, flags | MAP_FIXED, fd, offset);
	if (p == MAP_FAILED) {
		tap_diag("mmap of %zu bytes: %s", len, strerror(errno));
		munmap(area, len + 2 * page_size);
		return NULL;
	}
	return p;
}

/*
 * MADV_NOHUGEPAGE, so that every page stays a page of its own.  A kernel
 * without THP (PREEMPT_RT ones: TRANSPARENT_HUGEPAGE depends on
 * !PREEMPT_RT) has no such advice and says EINVAL, but then it has no huge
 * pages to keep away either.  Returns 0 or -1 (errno set).
 */
static inline int no_thp(void *p, size_t len)
{
	if (!madvise(p, len, MADV_NOHUGEPAGE))
		return 0;
	if (errno == EINVAL &&
	    access("/sys/kernel/mm/transparent_hugepage", F_OK))
		return 0;
	return -1;
}

/* ---- child processes ---- */

/* A forked process that sets up a mapping and then waits to be killed. */
struct target {
	pid_t pid;
	int release_fd;		/* the target exits when this closes */
	char *base;		/* what the target's setup returned */
};

typedef char *(*setup_fn)(void *arg);

static inline void target_end(struct target *t)
{
	if (t->release_fd >= 0)
		close(t->release_fd);
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	t->pid = -1;
	t->release_fd = -1;
}

/* A target must not outlive the test even while stopped. */
static inline void die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
}

/* Fork a target that runs setup, reports its result and waits. */
static inline int target_start(struct target *t, setup_fn setup, void *arg)
{
	pid_t parent = getpid();
	int report[2], release[2];
	ssize_t n;

	t->pid = -1;
	t->release_fd = -1;
	t->base = NULL;
	if (pipe2(report, O_CLOEXEC)) {
		tap_diag("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(release, O_CLOEXEC)) {
		tap_diag("pipe: %s", strerror(errno));
		close(report[0]);
		close(report[1]);
		return -1;
	}
	fflush(stdout);
	t->pid = fork();
	if (t->pid == 0) {
		char *base, byte;

		close(report[0]);
		close(release[1]);
		die_with_parent(parent);
		base = setup(arg);
		/* setup may have changed credentials, which clears it */
		die_with_parent(parent);
		if (write(report[1], &base, sizeof(base)) != (ssize_t)sizeof(base))
			_exit(1);
		while (read(release[0], &byte, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(report[1]);
	close(release[0]);
	t->release_fd = release[1];
	if (t->pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		close(report[0]);
		target_end(t);
		return -1;
	}
	do
		n = read(report[0], &t->base, sizeof(t->base));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n != (ssize_t)sizeof(t->base) || !t->base) {
		tap_diag("target %d failed to set up", (int)t->pid);
		target_end(t);
		return -1;
	}
	return 0;
}

/* Run argv with stdout and stderr into out; return its wait status. */
static inline int run_capture(char *const argv[], struct text *out)
{
	int pipefd[2], status = -1;
	pid_t pid;

	out->len = 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid > 0)
		read_fd_text(pipefd[0], READ_CHUNK, 0, out);
	close(pipefd[0]);
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	return status;
}

/* Stop the target so it cannot change its memory while we read. */
static inline int target_stop(struct target *t)
{
	int status;

	if (kill(t->pid, SIGSTOP)) {
		tap_diag("SIGSTOP %d: %s", (int)t->pid, strerror(errno));
		return -1;
	}
	if (waitpid(t->pid, &status, WUNTRACED) != t->pid ||
	    !WIFSTOPPED(status)) {
		tap_diag("target %d did not stop", (int)t->pid);
		return -1;
	}
	return 0;
}

/* Run check(arg) in a forked child, e.g. under other credentials. */
static inline bool run_in_child(bool (*check)(void *arg), void *arg)
{
	pid_t parent = getpid(), pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		return false;
	}
	if (pid == 0) {
		bool ok;

		die_with_parent(parent);
		ok = check(arg);
		fflush(stdout);
		_exit(ok ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid) {
		tap_diag("waitpid: %s", strerror(errno));
		return false;
	}
	if (WIFSIGNALED(status))
		tap_diag("checker killed by signal %d", WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Become an unprivileged user; no /etc/passwd entry is needed. */
static inline bool drop_to(uid_t id)
{
	if (setgroups(0, NULL) || setresgid(id, id, id) ||
	    setresuid(id, id, id)) {
		tap_diag("dropping to uid %u: %s", (unsigned int)id,
			 strerror(errno));
		return false;
	}
	/* the credential change cleared the parent-death signal */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	return true;
}

/*
 * drop_to(NOBODY), then PR_SET_DUMPABLE dumpable unless it is -1: the uid
 * change made us non-dumpable, so say what we want.
 */
static inline bool drop_to_nobody(int dumpable)
{
	if (!drop_to(NOBODY))
		return false;
	if (dumpable >= 0 && prctl(PR_SET_DUMPABLE, dumpable)) {
		tap_diag("PR_SET_DUMPABLE: %s", strerror(errno));
		return false;
	}
	return true;
}

#define CAPBIT(c)		(1u << (c))

/*
 * Keep only the capabilities caps (bits 0..31) as effective and permitted.
 * No libcap: capset(2) with the version 3 (64-bit) layout.
 */
static inline int set_caps(uint32_t caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = caps, .permitted = caps },
	};

	return (int)syscall(SYS_capset, &hdr, data);
}

/* drop_to(id) keeping only the capabilities caps. */
static inline bool drop_to_with_caps(uid_t id, uint32_t caps)
{
	/* keep the permitted set across the uid change, to pick from */
	if (prctl(PR_SET_KEEPCAPS, 1)) {
		tap_diag("PR_SET_KEEPCAPS: %s", strerror(errno));
		return false;
	}
	if (!drop_to(id))
		return false;
	if (set_caps(caps)) {
		tap_diag("capset %#x: %s", caps, strerror(errno));
		return false;
	}
	return true;
}

static inline bool require_root(void)
{
	return geteuid() == 0;
}

/*
 * How a process the reader may not read is refused.  The module's
 * directory has no name for it (ENOENT, as /proc under hidepid=invisible);
 * /proc/PID/pmaps refuses the open (EACCES), as maps does.
 */
static inline int denied_errno(void)
{
	return pid_dir[0] ? ENOENT : EACCES;
}

/* open() of who's file must fail as denied_errno() says. */
static inline bool open_denied(const char *who)
{
	const char *want = strerror(denied_errno());
	char path[PATH_MAX];
	int fd;

	pmaps_path(path, sizeof(path), who);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		tap_diag("uid %d opened %s; expected %s", (int)geteuid(),
			 path, want);
		close(fd);
		return false;
	}
	if (errno != denied_errno()) {
		tap_diag("uid %d opening %s: %s; expected %s",
			 (int)geteuid(), path, strerror(errno), want);
		return false;
	}
	return true;
}

static inline bool open_denied_pid(pid_t pid)
{
	char who[24];

	snprintf(who, sizeof(who), "%d", (int)pid);
	return open_denied(who);
}

/* ---- runner ---- */

struct test_case {
	const char *name;
	enum outcome (*run)(void);
};

#define TEST(fn) { #fn, fn }

/* Each test runs in its own process: a crash or hang fails only that test. */
static inline enum outcome run_isolated(const struct test_case *tc,
					unsigned int timeout_sec)
{
	pid_t pid;
	int status;

	skip_reason[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		return FAIL;
	}
	if (pid == 0) {
		enum outcome result;

		alarm(timeout_sec);
		result = tc->run();
		fflush(stdout);
		_exit(result);
	}
	if (waitpid(pid, &status, 0) != pid) {
		tap_diag("waitpid: %s", strerror(errno));
		return FAIL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) <= SKIP)
		return (enum outcome)WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		tap_diag("%s killed by signal %d (%s)%s", tc->name,
			 WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? ": timed out" : "");
	else
		tap_diag("%s exited with status %d", tc->name,
			 WEXITSTATUS(status));
	return FAIL;
}

static inline const struct test_case *find_test(const struct test_case *tests,
						size_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(tests[i].name, name))
			return &tests[i];
	return NULL;
}

/*
 * Set up file_fmt, pid_dir, page_size and skip_reason, then run the tests
 * named in argv (all nr of them if none) as TAP, each in its own process
 * failed by SIGALRM after timeout_sec.  PMAPS_FILE_FMT may use "%d" instead
 * of "%s" only if fmt_allows_d.  Returns main's exit status.
 */
static inline int guest_main(int argc, char **argv,
			     const struct test_case *tests, size_t nr,
			     unsigned int timeout_sec, bool fmt_allows_d)
{
	const struct test_case **chosen;
	size_t nr_chosen = 0, fmt_len, i;
	int failed = 0, passed = 0, skipped = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	file_fmt = getenv("PMAPS_FILE_FMT");
	if (!file_fmt || !*file_fmt)
		file_fmt = DEFAULT_FILE_FMT;
	if (!file_fmt_valid(file_fmt, fmt_allows_d)) {
		printf("Bail out! PMAPS_FILE_FMT needs exactly one %%s%s: %s\n",
		       fmt_allows_d ? " or %d" : "", file_fmt);
		return 1;
	}
	fmt_len = strlen(file_fmt);
	if (fmt_len > 3 && !strcmp(file_fmt + fmt_len - 3, "/%s") &&
	    fmt_len - 3 < sizeof(pid_dir))
		memcpy(pid_dir, file_fmt, fmt_len - 3);

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	skip_reason = mmap(NULL, SKIP_REASON_SIZE, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	chosen = calloc(nr + (size_t)argc, sizeof(*chosen));
	if (skip_reason == MAP_FAILED || !chosen) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	for (i = 1; i < (size_t)argc; i++) {
		chosen[nr_chosen] = find_test(tests, nr, argv[i]);
		if (!chosen[nr_chosen]) {
			printf("Bail out! no test named %s\n", argv[i]);
			return 1;
		}
		nr_chosen++;
	}
	if (argc <= 1)
		for (i = 0; i < nr; i++)
			chosen[nr_chosen++] = &tests[i];

	tap_plan((int)nr_chosen);
	tap_diag("pmaps file: %s", file_fmt);
	if (pmaps_dir_missing(file_fmt)) {
		for (i = 0; i < nr_chosen; i++)
			tap_result(0, chosen[i]->name);
		free(chosen);
		return 1;
	}
	for (i = 0; i < nr_chosen; i++) {
		switch (run_isolated(chosen[i], timeout_sec)) {
		case PASS:
			tap_result(1, chosen[i]->name);
			passed++;
			break;
		case SKIP:
			tap_skip(chosen[i]->name, skip_reason);
			skipped++;
			break;
		case FAIL:
			tap_result(0, chosen[i]->name);
			failed++;
			break;
		}
	}
	tap_diag("%d passed, %d skipped, %d failed", passed, skipped, failed);
	free(chosen);
	return failed ? 1 : 0;
}

#endif /* PMAPS_GUEST_H */
