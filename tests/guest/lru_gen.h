/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multi-gen LRU from a guest test: its state, and aging a memcg through
 * /sys/kernel/debug/lru_gen (Documentation/admin-guide/mm/multigen_lru.rst),
 * shared by pmaps_test.c (A and AGE) and wss_test.c (pmaps wss --ages).
 * Needs guest.h.
 */
#ifndef PMAPS_LRU_GEN_H
#define PMAPS_LRU_GEN_H

#include <sys/mount.h>

#define LRU_GEN_ENABLED		"/sys/kernel/mm/lru_gen/enabled"
#define LRU_GEN_DEBUGFS		"/sys/kernel/debug/lru_gen"

/*
 * The multi-gen LRU's state: -1 not built in, else whether its core is
 * on (bit 0 of the mask, Documentation/admin-guide/mm/multigen_lru.rst).
 */
static inline int lru_gen_state(void)
{
	unsigned int mask;
	FILE *f = fopen(LRU_GEN_ENABLED, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%x", &mask);
	fclose(f);
	return n == 1 ? (int)(mask & 1) : -1;
}

/* Switch the multi-gen LRU on or off; the caller restores the old state. */
static inline bool lru_gen_set(bool on)
{
	if (write_string(LRU_GEN_ENABLED, on ? "y" : "n"))
		return false;
	if (lru_gen_state() == on)
		return true;
	tap_diag("%s still %s after writing %s", LRU_GEN_ENABLED,
		 on ? "off" : "on", on ? "y" : "n");
	return false;
}

#define CGROUP_LINE_MAX		(PATH_MAX + 64)

/*
 * This process's cgroup path as /sys/kernel/debug/lru_gen names its
 * memcg: "/" for the root, and without memcg ("memcg 0" with no path).
 */
static inline void own_cgroup(char path[CGROUP_LINE_MAX])
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[CGROUP_LINE_MAX];

	strcpy(path, "/");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			memmove(path, line + 3, strlen(line + 3) + 1);
		}
	if (f)
		fclose(f);
}

/* Write "+ memcg_id node_id max_gen swappiness force_scan". */
static inline bool lru_gen_age_node(unsigned int memcg_id, int node,
			     unsigned long long max_seq)
{
	char cmd[128];
	int fd = open(LRU_GEN_DEBUGFS, O_WRONLY);
	ssize_t n = -1;

	snprintf(cmd, sizeof(cmd), "+ %u %d %llu 1 1\n", memcg_id, node,
		 max_seq);
	if (fd >= 0) {
		n = write(fd, cmd, strlen(cmd));
		close(fd);
	}
	if (n == (ssize_t)strlen(cmd))
		return true;
	tap_diag("writing '%.*s' to %s: %s", (int)strlen(cmd) - 1, cmd,
		 LRU_GEN_DEBUGFS, strerror(errno));
	return false;
}

/*
 * Age this process's memcg once on every node: the command above makes a
 * new youngest generation after walking the page tables of the memcg's
 * processes, which moves each folio whose pte is young into the
 * generation that was youngest and clears the bit.  Swappiness 1 so that
 * anonymous folios are aged too (the guest has no swap), force_scan so
 * that no process is skipped.  The file lists "memcg ID PATH", " node N",
 * then one line per generation, oldest first, each starting with its seq.
 */
static inline bool lru_gen_age(void)
{
	char path[CGROUP_LINE_MAX], line[CGROUP_LINE_MAX];
	unsigned long long seq = 0;
	unsigned int memcg_id = 0;
	bool mine = false, have_seq = false, ok = true;
	int node = -1, aged = 0;
	FILE *f;

	own_cgroup(path);
	f = fopen(LRU_GEN_DEBUGFS, "r");
	if (!f) {
		tap_diag("%s: %s", LRU_GEN_DEBUGFS, strerror(errno));
		return false;
	}
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);
		char *rest = line + strspn(line, " ");
		bool gen_line = !eof && *rest >= '0' && *rest <= '9';

		/* a node's last generation line held its max_seq */
		if (have_seq && !gen_line) {
			ok = lru_gen_age_node(memcg_id, node, seq) && ok;
			aged++;
			have_seq = false;
		}
		if (eof)
			break;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "memcg ", 6)) {
			memcg_id = strtoul(line + 6, &rest, 10);
			rest += strspn(rest, " ");
			mine = !strcmp(*rest ? rest : "/", path);
		} else if (sscanf(line, " node %d", &node) == 1) {
			have_seq = false;
		} else if (mine && gen_line) {
			seq = strtoull(rest, NULL, 10);
			have_seq = true;
		}
	}
	fclose(f);
	if (!aged)
		tap_diag("no generations of memcg %s in %s", path,
			 LRU_GEN_DEBUGFS);
	return ok && aged;
}

static inline bool mount_debugfs(void)
{
	if (!access(LRU_GEN_DEBUGFS, F_OK))
		return true;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
	    errno != EBUSY) {
		tap_diag("mount debugfs: %s", strerror(errno));
		return false;
	}
	return !access(LRU_GEN_DEBUGFS, F_OK);
}

/*
 * Age this process's memcg agings times, writing every page of
 * [hot, hot + pages) between agings, then drain the LRU batches.  Pages
 * written before the first aging and left alone since fall behind the two
 * youngest generations; the hot ones stay in them.
 */
static inline bool lru_gen_age_touching(char *hot, size_t pages, int agings)
{
	bool ok = true;
	size_t off;
	int i;

	for (i = 0; ok && i < agings; i++) {
		ok = lru_gen_age();
		/*
		 * The aging walk clears young bits without flushing the TLB
		 * (ptep_test_and_clear_young()), and the MMU sets the bit
		 * again only when it walks the page table, so an access
		 * through a cached translation would leave it clear.
		 * mprotect() flushes the range, as time and other work
		 * would.
		 */
		ok = ok && !mprotect(hot, pages * page_size, PROT_READ) &&
		     !mprotect(hot, pages * page_size, PROT_READ | PROT_WRITE);
		for (off = 0; off < pages * page_size; off += page_size)
			((volatile char *)hot)[off] = 1;
	}
	drain_lru_batches();
	return ok;
}

#endif /* PMAPS_LRU_GEN_H */
