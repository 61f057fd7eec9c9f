// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of pmaps wss: the working-set estimate for a process that
 * keeps reading 8 of its 64 MiB, measured from the module's young bits
 * after clear_refs, from smaps Referenced (--source=pagemap) on the same
 * kernel, and with idle page tracking where the kernel has it; and the
 * resident pages by MGLRU age (--ages) of pages the test ages itself.
 *
 *   wss_test [test_name...]
 *
 * Runs as root; TAP on stdout; exit status 0 when everything passed or was
 * skipped.  PMAPS_CLI (default /bin/pmaps) is the command-line tool.
 */
#include <stdint.h>
#include <sys/stat.h>

#include "guest.h"
#include "lru_gen.h"

#define DEFAULT_CLI		"/bin/pmaps"
#define TEST_TIMEOUT_SEC	120
#define IDLE_BITMAP		"/sys/kernel/mm/page_idle/bitmap"
#define MAPPED			(64UL << 20)
#define WORKING			(8UL << 20)
#define AGES_PAGES		64
#define AGINGS			3

/*
 * Whole sweeps of the working set so far, counted by the target in memory
 * it shares with the test (MAP_SHARED before the fork).
 */
static volatile uint64_t *sweeps;

/*
 * The target: MAPPED bytes between guards, no THP (its young bit would
 * cover 512 pages), every page written once; then, forever, every page of
 * the first WORKING bytes read every 10 ms.  Never returns in the child.
 */
static void __attribute__((noreturn)) working_set_loop(int report_fd)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	volatile char sink = 0;
	size_t off;
	char *p;

	p = map_between_guards(MAPPED, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!p || no_thp(p, MAPPED))
		_exit(1);
	memset(p, 1, MAPPED);
	if (write(report_fd, &p, sizeof(p)) != (ssize_t)sizeof(p))
		_exit(1);
	close(report_fd);
	for (;;) {
		for (off = 0; off < WORKING; off += page_size)
			sink += p[off];
		__atomic_add_fetch(sweeps, 1, __ATOMIC_RELAXED);
		nanosleep(&tick, NULL);
	}
}

/* A forked looping target; its mapping's address in *base. */
static pid_t looper_start(char **base)
{
	pid_t parent = getpid(), pid;
	int report[2];
	ssize_t n;

	if (!sweeps) {
		void *m = mmap(NULL, sizeof(*sweeps), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			tap_diag("mmap: %s", strerror(errno));
			return -1;
		}
		sweeps = m;
	}
	*sweeps = 0;
	if (pipe2(report, O_CLOEXEC)) {
		tap_diag("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		die_with_parent(parent);
		working_set_loop(report[1]);
	}
	close(report[1]);
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		close(report[0]);
		return -1;
	}
	do
		n = read(report[0], base, sizeof(*base));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n != (ssize_t)sizeof(*base)) {
		tap_diag("target %d failed to set up", (int)pid);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/*
 * pmaps wss -i 1 OPTS... on a fresh looping target; the wait status, or
 * -1 if the target could not start.  Output (stdout and stderr) in out,
 * the target's mapping in *base.
 */
/* The target's whole sweeps while the last run_wss() ran pmaps. */
static uint64_t swept;

static int run_wss(const char *opt1, const char *opt2, struct text *out,
		   char **base)
{
	const char *cli = getenv("PMAPS_CLI");
	char pid_arg[24];
	char *argv[9];
	size_t n = 0;
	pid_t pid;
	int status;

	pid = looper_start(base);
	if (pid < 0)
		return -1;
	if (!cli || !*cli)
		cli = DEFAULT_CLI;
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	argv[n++] = (char *)cli;
	argv[n++] = "wss";
	argv[n++] = "-i";
	argv[n++] = "1";
	if (opt1)
		argv[n++] = (char *)opt1;
	if (opt2)
		argv[n++] = (char *)opt2;
	argv[n++] = pid_arg;
	argv[n] = NULL;
	swept = *sweeps;
	status = run_capture(argv, out);
	swept = *sweeps - swept;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return status;
}

static void show_output(const struct text *out)
{
	const char *p = out->data, *end = out->data + out->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		tap_diag("  %.*s", (int)((nl ? nl : end) - p), p);
		p = nl ? nl + 1 : end;
	}
}

/*
 * The first line names the method; the row of the mapping must show it
 * all resident (the guest has no swap) and exactly its working set
 * accessed.  Reclaim could take a young bit between two accesses and
 * miss a page, so up to 5 % fewer pass; none of the pages written only
 * before the interval may count.
 */
static bool estimate_ok(const struct text *out, const char *base,
			const char *method)
{
	unsigned long long lo = (uintptr_t)base, hi = lo + MAPPED;
	unsigned long long ws = WORKING / page_size;
	const char *p = out->data, *end = out->data + out->len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	bool found = false;

	tap_check(nl && memmem(p, (size_t)(nl - p), method, strlen(method)),
		  "the title does not say '%s'", method);
	while (p < end) {
		unsigned long long start, stop, resident, accessed, bytes;
		char perms[5], line[512];
		size_t len;

		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p = nl ? nl + 1 : end;
		if (sscanf(line, "%llx-%llx %4s %llu %llu %llu", &start, &stop,
			   perms, &resident, &accessed, &bytes) != 6 ||
		    start != lo || stop != hi)
			continue;
		found = true;
		tap_diag("row: %s", line);
		tap_check(resident == MAPPED / page_size,
			  "%llu pages resident, expected %lu", resident,
			  MAPPED / page_size);
		tap_check(accessed <= ws && accessed >= ws * 95 / 100,
			  "%llu pages accessed, expected %llu (5 %% fewer at most)",
			  accessed, ws);
		tap_check(bytes == accessed * page_size,
			  "%llu bytes for %llu pages", bytes, accessed);
	}
	tap_check(found, "no row for %llx-%llx", lo, hi);
	return !tap_failed_checks;
}

/*
 * At least this many sweeps (10 ms apart; about 100 while pmaps runs its
 * 1 s interval on an idle host) while pmaps ran: fewer, and the target
 * hardly ran in it, which says nothing of pmaps (a guest its host
 * starved: CI once saw no page of it young at all): that attempt is shown,
 * counted and made again, up to ESTIMATE_ATTEMPTS times.
 */
#define MIN_SWEEPS		20
#define ESTIMATE_ATTEMPTS	3

static enum outcome estimate_test(const char *opt1, const char *opt2,
				  const char *method)
{
	struct text out = { 0 };
	char *base;
	int status, attempt;
	bool ok;

	for (attempt = 1;; attempt++) {
		status = run_wss(opt1, opt2, &out, &base);
		if (status == -1)
			return FAIL;
		if (swept >= MIN_SWEEPS || attempt == ESTIMATE_ATTEMPTS)
			break;
		tap_diag("the target swept its working set %llu times while pmaps wss ran, under %d:",
			 (unsigned long long)swept, MIN_SWEEPS);
		show_output(&out);
		tap_diag("retried: %s, attempt %d of %d", method, attempt + 1,
			 ESTIMATE_ATTEMPTS);
		text_free(&out);
	}
	if (swept < MIN_SWEEPS) {
		tap_diag("the target swept its working set %llu times while pmaps wss ran, under %d, in %d attempts",
			 (unsigned long long)swept, MIN_SWEEPS, attempt);
		show_output(&out);
		text_free(&out);
		return FAIL;
	}
	tap_diag("the target swept its working set %llu times while pmaps wss ran",
		 (unsigned long long)swept);
	tap_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "pmaps wss: wait status %#x, expected exit 0", status);
	ok = estimate_ok(&out, base, method);
	if (!ok)
		show_output(&out);
	text_free(&out);
	tap_failed_checks = 0;
	return ok ? PASS : FAIL;
}

/* Young bits in the module's text after clear_refs. */
static enum outcome test_module_estimate(void)
{
	struct stat st;

	/* the guest's module is what this tests: missing is a failure */
	if (stat("/proc/pmaps_ext", &st)) {
		tap_diag("/proc/pmaps_ext: %s: the module is not loaded",
			 strerror(errno));
		return FAIL;
	}
	return estimate_test("--clear-refs", "--source=module",
			     "pages young in /proc/pmaps_ext/PID (source module)");
}

/* smaps Referenced after clear_refs, on the same kernel. */
static enum outcome test_smaps_estimate(void)
{
	return estimate_test("--clear-refs", "--source=pagemap",
			     "smaps Referenced (source pagemap");
}

static enum outcome test_idle_estimate(void)
{
	struct stat st;

	if (stat(IDLE_BITMAP, &st))
		return skip("no idle page tracking in this kernel");
	return estimate_test(NULL, NULL, "idle page tracking");
}

/* Exit 2 and a message that says why, and nothing measured. */
static enum outcome needs_clear_refs(const char *opt, const char *why)
{
	struct text out = { 0 };
	char *base;
	int status;
	bool ok;

	status = run_wss(opt, NULL, &out, &base);
	if (status == -1)
		return FAIL;
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 2 && out.len &&
	     memmem(out.data, out.len, why, strlen(why)) &&
	     !memmem(out.data, out.len, "interval", strlen("interval"));
	if (!ok) {
		tap_diag("wait status %#x, expected exit 2 and '%s'", status,
			 why);
		show_output(&out);
	}
	text_free(&out);
	return ok ? PASS : FAIL;
}

static enum outcome test_module_needs_clear_refs(void)
{
	return needs_clear_refs("--source=module",
				"--source=module needs --clear-refs");
}

static enum outcome test_no_idle_needs_clear_refs(void)
{
	struct stat st;

	if (!stat(IDLE_BITMAP, &st))
		return skip("this kernel has idle page tracking");
	return needs_clear_refs(NULL, "measuring needs --clear-refs");
}

/* ---- --ages ---- */

/* A row of pmaps wss --ages: RESIDENT, then AGE0 to AGE3 and AGE?. */
struct ages_row {
	unsigned long long resident;
	char age[5][24];
};

/*
 * The row of [base, base + pages) in out; the header must list AGE0 to
 * AGE3 and AGE?, as no page here can be older than the kernel's four
 * generations.
 */
static bool find_ages_row(const struct text *out, const char *base,
			  size_t pages, struct ages_row *row)
{
	unsigned long long lo = (uintptr_t)base, hi = lo + pages * page_size;
	const char *p = out->data, *end = out->data + out->len;
	bool header = false, found = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		unsigned long long start, stop, accessed, bytes;
		char line[512], perms[5];
		struct ages_row r;
		size_t len = (size_t)((nl ? nl : end) - p);

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p = nl ? nl + 1 : end;
		if (strstr(line, "START-END") &&
		    strstr(line, " AGE0 ") && strstr(line, " AGE3 ") &&
		    strstr(line, " AGE? NAME") && !strstr(line, "AGE4"))
			header = true;
		if (sscanf(line, "%llx-%llx %4s %llu %llu %llu %23s %23s %23s %23s %23s",
			   &start, &stop, perms, &r.resident, &accessed,
			   &bytes, r.age[0], r.age[1], r.age[2], r.age[3],
			   r.age[4]) == 11 &&
		    start == lo && stop == hi) {
			*row = r;
			found = true;
			tap_diag("row: %s", line);
		}
	}
	tap_check(header, "no header with AGE0 to AGE3 and AGE?");
	tap_check(found, "no row for %llx-%llx", lo, hi);
	return header && found;
}

/*
 * pmaps wss --clear-refs --source=module --ages -a on this process: its
 * rows of hot and cold, each pages long.
 */
static bool wss_ages_of_self(const char *hot, const char *cold, size_t pages,
			     struct ages_row *hot_row,
			     struct ages_row *cold_row)
{
	const char *cli = getenv("PMAPS_CLI");
	struct text out = { 0 };
	char pid_arg[24];
	char *argv[] = { (char *)(cli && *cli ? cli : DEFAULT_CLI), "wss",
			 "--clear-refs", "--source=module", "--ages", "-a",
			 "-i", "0.1", pid_arg, NULL };
	int status;
	bool ok;

	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)getpid());
	status = run_capture(argv, &out);
	tap_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "pmaps wss: wait status %#x, expected exit 0", status);
	ok = !tap_failed_checks &&
	     find_ages_row(&out, hot, pages, hot_row) &&
	     find_ages_row(&out, cold, pages, cold_row);
	if (!ok)
		show_output(&out);
	text_free(&out);
	return ok;
}

/* Every resident page of row at age want, none at another or '?'. */
static bool all_at_age(const char *what, const struct ages_row *row,
		       int want, size_t pages)
{
	char count[24];
	int k;
	bool ok = row->resident == pages;

	snprintf(count, sizeof(count), "%zu", pages);
	for (k = 0; k < 5; k++)
		ok = ok && !strcmp(row->age[k], k == want ? count : "0");
	if (!ok)
		tap_diag("%s: RESIDENT %llu, AGE0-3 %s %s %s %s, AGE? %s; expected all %zu at age %d",
			 what, row->resident, row->age[0], row->age[1],
			 row->age[2], row->age[3], row->age[4], pages, want);
	return ok;
}

/*
 * Under the multi-gen LRU, pages written between three agings stay in
 * the second youngest generation, pages left alone fall to the oldest
 * (see pmaps_test's test_active_mglru_aging, which checks the module's
 * AGE itself against the same sequence): --ages must count each VMA's
 * pages at those ages.
 */
static enum outcome test_ages_mglru(void)
{
	size_t len = AGES_PAGES * page_size;
	char *hot, *cold;
	struct ages_row hot_row, cold_row;
	int was = lru_gen_state();
	bool ok;

	if (was < 0)
		return skip("no multi-gen LRU in this kernel");
	if (!mount_debugfs())
		return skip("no %s", LRU_GEN_DEBUGFS);
	hot = map_between_guards(len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cold = map_between_guards(len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!hot || !cold || no_thp(hot, len) || no_thp(cold, len) ||
	    (!was && !lru_gen_set(true)))
		return FAIL;
	memset(hot, 1, len);
	memset(cold, 1, len);
	drain_lru_batches();
	ok = lru_gen_age_touching(hot, AGES_PAGES, AGINGS) &&
	     wss_ages_of_self(hot, cold, AGES_PAGES, &hot_row, &cold_row);
	ok = ok && all_at_age("hot, written between agings", &hot_row, 1,
			      AGES_PAGES);
	ok = ok && all_at_age("cold, left alone through agings", &cold_row,
			      AGINGS, AGES_PAGES);
	if (!was)
		ok = lru_gen_set(false) && ok;
	return ok ? PASS : FAIL;
}

/*
 * On the classic LRU no page has an age: every resident page is counted
 * at AGE '?', and no known age as a count (a lower bound of 0 is "-").
 */
static enum outcome test_ages_unknown_on_classic_lru(void)
{
	size_t len = AGES_PAGES * page_size;
	struct ages_row row, same;
	char count[24];
	int was = lru_gen_state(), k;
	char *p;
	bool ok;

	p = map_between_guards(len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!p || no_thp(p, len) || (was == 1 && !lru_gen_set(false)))
		return FAIL;
	memset(p, 1, len);
	drain_lru_batches();
	ok = wss_ages_of_self(p, p, AGES_PAGES, &row, &same);
	snprintf(count, sizeof(count), "%d", AGES_PAGES);
	for (k = 0; ok && k < 4; k++)
		ok = !strcmp(row.age[k], "-");
	ok = ok && row.resident == AGES_PAGES && !strcmp(row.age[4], count);
	if (!ok)
		tap_diag("RESIDENT %llu, AGE0-3 %s %s %s %s, AGE? %s; expected AGE0-3 '-' and all %d at '?'",
			 row.resident, row.age[0], row.age[1], row.age[2],
			 row.age[3], row.age[4], AGES_PAGES);
	if (was == 1)
		ok = lru_gen_set(true) && ok;
	return ok ? PASS : FAIL;
}

static const struct test_case tests[] = {
	TEST(test_module_estimate),
	TEST(test_smaps_estimate),
	TEST(test_idle_estimate),
	TEST(test_module_needs_clear_refs),
	TEST(test_no_idle_needs_clear_refs),
	TEST(test_ages_mglru),
	TEST(test_ages_unknown_on_classic_lru),
};

int main(int argc, char **argv)
{
	return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
			  TEST_TIMEOUT_SEC, false);
}
