// SPDX-License-Identifier: GPL-2.0
/*
 * smaps_oracle: the pmaps text of a stopped process against the kernel's
 * own numbers, /proc/PID/smaps, VMA by VMA (tests/guest/smaps.h):
 * resident pages against Rss, pages with P or D against Private_Dirty +
 * Shared_Dirty, pages with Y or R against Referenced, the PSS pmaps
 * counts from the mapcounts against Pss, and against smaps_rollup's Pss
 * for the whole process.  The target has a
 * VMA of each kind (anonymous, zero page, COW in a private file mapping,
 * a shared file, shmem, a THP), and all the VMAs any process has: its
 * executable, heap, stack, [vdso].  Its files are on a ramfs, so that the
 * file VMAs are page cache that is not shmem.  Runs as root, so that no
 * flag is withheld; prints kselftest TAP.
 *
 * PMAPS_FILE_FMT: the text's path with one %s for the PID
 * (default /proc/pmaps_ext/%s).
 */
#include <sys/mount.h>

#include "guest.h"
#include "smaps.h"

#define TEST_TIMEOUT_SEC	60
#define THP_KNOB		"/sys/kernel/mm/transparent_hugepage/enabled"

static int read_text(pid_t pid, struct pmaps_map *map)
{
	struct text t = { 0 };
	char path[PATH_MAX];
	int err;

	pmaps_path_pid(path, sizeof(path), pid);
	err = read_path_text(path, READ_CHUNK, &t);
	if (err)
		tap_diag("reading %s: %s", path, strerror(-err));
	else
		err = parse_text(&t, path, map);
	text_free(&t);
	return err ? -1 : 0;
}

/* The target and where its files are. */
struct smaps_target {
	struct target t;
	struct smaps_layout *lay;	/* shared with the target */
	char dir[32];
	bool mounted;
};

static char *build_layout(void *arg)
{
	struct smaps_target *st = arg;

	return smaps_layout_build(st->dir, st->lay) ? NULL : st->dir;
}

static void end_target(struct smaps_target *st)
{
	target_end(&st->t);
	smaps_files_remove(st->dir);
	if (st->mounted && umount(st->dir))
		tap_diag("umount %s: %s", st->dir, strerror(errno));
	rmdir(st->dir);
	if (st->lay)
		munmap(st->lay, sizeof(*st->lay));
}

/* Start the target, stop it, drain the LRU batches its pages wait in. */
static int start_target(struct smaps_target *st)
{
	memset(st, 0, sizeof(*st));
	st->t.pid = -1;
	st->t.release_fd = -1;
	snprintf(st->dir, sizeof(st->dir), "/tmp/smaps_oracle.XXXXXX");
	if (!mkdtemp(st->dir)) {
		tap_diag("mkdtemp: %s", strerror(errno));
		return -1;
	}
	/* page cache that is not shmem; tmpfs (shmem) if the kernel has none */
	st->mounted = !mount("ramfs", st->dir, "ramfs", 0, "mode=700");
	if (!st->mounted)
		tap_diag("mount -t ramfs: %s: file VMAs are on tmpfs",
			 strerror(errno));
	st->lay = mmap(NULL, sizeof(*st->lay), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->lay == MAP_FAILED) {
		st->lay = NULL;
		tap_diag("mmap: %s", strerror(errno));
		end_target(st);
		return -1;
	}
	if (target_start(&st->t, build_layout, st) || target_stop(&st->t)) {
		end_target(st);
		return -1;
	}
	drain_lru_batches();
	return 0;
}

/* The target's text against smaps as rule says. */
static enum outcome compare(const struct smaps_rule *rule)
{
	struct smaps_target st;
	struct pmaps_map map;
	struct smaps sm;

	if (start_target(&st))
		return FAIL;
	if (smaps_read_with_text(st.t.pid, read_text, &map, &sm,
				 rule->field == SMAPS_PSS)) {
		end_target(&st);
		return FAIL;
	}
	smaps_check_layout(&sm, st.lay);
	/* smaps saying 0 everywhere would let a text of nothing pass */
	tap_check(smaps_compare(&map, &sm, rule) > 0,
		  "smaps says 0 kB in every VMA: nothing was compared");
	pmaps_map_free(&map);
	smaps_free(&sm);
	end_target(&st);
	return tap_failed_checks ? FAIL : PASS;
}

static enum outcome test_smaps_rss(void)
{
	static const struct smaps_rule rule = {
		SMAPS_RSS, 0, "resident", false, NULL,
	};

	return compare(&rule);
}

static enum outcome test_smaps_dirty(void)
{
	static const struct smaps_rule rule = {
		SMAPS_DIRTY, SMAPS_FLAG(PTE_DIRTY) | SMAPS_FLAG(DIRTY),
		"with P or D", false, NULL,
	};

	return compare(&rule);
}

static enum outcome test_smaps_referenced(void)
{
	static const struct smaps_rule rule = {
		SMAPS_REFERENCED, SMAPS_FLAG(YOUNG) | SMAPS_FLAG(REFERENCED),
		"with Y or R", false, NULL,
	};

	return compare(&rule);
}

/*
 * Exact on every kernel: smaps takes each page's share from the same
 * mapcount the text shows (the folio average where the kernel keeps no
 * per-page count, CONFIG_NO_PAGE_MAPCOUNT), rounded down in the same
 * fixed point.  The target's COW and shared-file pages are mapped twice.
 */
static enum outcome test_smaps_pss(void)
{
	static const struct smaps_rule rule = {
		SMAPS_PSS, 0, "resident", false, NULL,
	};

	return compare(&rule);
}

/* smaps_rollup's Pss, read while the text was: see rollup_read_text(). */
static unsigned long long rollup_pss_kb;

/* The text, then smaps_rollup's Pss, both between two equal smaps. */
static int rollup_read_text(pid_t pid, struct pmaps_map *map)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	if (read_text(pid, map))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		tap_diag("open %s: %s", path, strerror(errno));
		pmaps_map_free(map);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Pss: %llu kB", &rollup_pss_kb) == 1;
	fclose(f);
	if (!found) {
		tap_diag("%s has no Pss line", path);
		pmaps_map_free(map);
		return -1;
	}
	return 0;
}

/*
 * The process's PSS: smaps_rollup sums the VMAs' fixed-point shares
 * before it rounds to kB, so this is not the sum of the VMAs' Pss lines.
 */
static enum outcome test_smaps_rollup_pss(void)
{
	struct pmaps_pss total = { 0 };
	struct smaps_target st;
	struct pmaps_map map;
	struct smaps sm;
	size_t i;

	if (start_target(&st))
		return FAIL;
	if (smaps_read_with_text(st.t.pid, rollup_read_text, &map, &sm,
				 true)) {
		end_target(&st);
		return FAIL;
	}
	for (i = 0; i < map.nr_vmas; i++) {
		struct pmaps_pss pss = smaps_pss(&map.vmas[i]);

		pmaps_pss_sum(&total, &pss);
	}
	tap_check(!total.unknown, "%llu pages of mapcount '?' read as root",
		  total.unknown);
	tap_check(rollup_pss_kb > 0, "smaps_rollup says Pss 0 kB");
	tap_check(pmaps_pss_bytes(&total) >> 10 == rollup_pss_kb,
		  "PSS from the text's mapcounts %llu kB, smaps_rollup Pss %llu kB",
		  pmaps_pss_bytes(&total) >> 10, rollup_pss_kb);
	tap_diag("PSS %llu kB, smaps_rollup %llu kB over %zu VMAs",
		 pmaps_pss_bytes(&total) >> 10, rollup_pss_kb, map.nr_vmas);
	pmaps_map_free(&map);
	smaps_free(&sm);
	end_target(&st);
	return tap_failed_checks ? FAIL : PASS;
}

/*
 * The THP VMA is compared by the tests above whatever backs it; this one
 * says that it was one PMD-mapped THP where the kernel has THP, so that
 * the comparisons covered one.
 */
static enum outcome test_smaps_thp_pmd_mapped(void)
{
	char knob[128] = "";
	const struct smaps_vma *v;
	struct smaps_target st;
	struct smaps sm;
	FILE *f;

	f = fopen(THP_KNOB, "re");
	if (!f)
		return skip("no THP: %s: %s", THP_KNOB, strerror(errno));
	if (!fgets(knob, sizeof(knob), f))
		knob[0] = '\0';
	fclose(f);
	if (strstr(knob, "[never]"))
		return skip("THP disabled: %s is never", THP_KNOB);
	if (start_target(&st))
		return FAIL;
	if (st.lay->thp_errno) {
		end_target(&st);
		return skip("MADV_HUGEPAGE: %s", strerror(st.lay->thp_errno));
	}
	if (smaps_read(st.t.pid, &sm)) {
		end_target(&st);
		return FAIL;
	}
	v = smaps_vma_at(&sm, st.lay->at[SMAPS_THP]);
	tap_check(v && v->anon_huge == SMAPS_THP_SIZE >> 10 &&
		  v->rss == SMAPS_THP_SIZE >> 10,
		  "THP VMA %s: AnonHugePages %llu kB, Rss %llu kB; expected %lu kB each",
		  v ? v->header : "(none)", v ? v->anon_huge : 0,
		  v ? v->rss : 0, SMAPS_THP_SIZE >> 10);
	smaps_free(&sm);
	end_target(&st);
	return tap_failed_checks ? FAIL : PASS;
}

static const struct test_case tests[] = {
	TEST(test_smaps_rss),
	TEST(test_smaps_dirty),
	TEST(test_smaps_referenced),
	TEST(test_smaps_pss),
	TEST(test_smaps_rollup_pss),
	TEST(test_smaps_thp_pmd_mapped),
};

int main(int argc, char **argv)
{
	return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
			  TEST_TIMEOUT_SEC, false);
}
