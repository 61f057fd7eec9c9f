// SPDX-License-Identifier: GPL-2.0
/*
 * The processes of a cgroup and its descendants: see cgroup.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "pmaps.h"

#define PF_EXITING	0x00000004	/* include/linux/sched.h */
#define PF_KTHREAD	0x00200000
/* cgroup v2 nests at most this deep by default (cgroup.max.depth); a
 * bound keeps a bind-mount loop from recursing for ever. */
#define MAX_DEPTH	64

/*
 * The mount point of the first cgroup2 file system in mountinfo into buf;
 * false if there is none.  Fields: ID PARENT MAJ:MIN ROOT MOUNTPOINT
 * OPTIONS... - FSTYPE SOURCE SUPEROPTIONS; spaces in MOUNTPOINT are
 * written \040, which a cgroup mount point has no reason to hold.
 */
static bool cgroup2_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    strlen(mnt) < len) {
			strcpy(buf, mnt);
			found = true;
		}
	}
	fclose(f);
	return found;
}

int pmaps_cgroup_dir(const char *path, char *dir, size_t len, char *err,
		     size_t errlen)
{
	char root[4096] = PMAPS_CGROUP_ROOT, procs[4200];
	struct stat st;
	int n;

	if (!path[0]) {
		snprintf(err, errlen, "pmaps: --cgroup: expected a cgroup directory, got ''");
		return -1;
	}
	cgroup2_mount(root, sizeof(root));
	if (path[0] == '/')
		n = snprintf(dir, len, "%s", path);
	else
		n = snprintf(dir, len, "%s/%s", root, path);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "pmaps: %s: path too long", path);
		return -1;
	}
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	if (stat(dir, &st)) {
		snprintf(err, errlen, "pmaps: %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (!S_ISDIR(st.st_mode) || access(procs, F_OK)) {
		snprintf(err, errlen,
			 "pmaps: %s: expected a cgroup directory, one with a cgroup.procs file (relative paths are under %s)",
			 dir, root);
		return -1;
	}
	return 0;
}

struct pid_list {
	int *pids;
	size_t nr, cap;
};

/*
 * Append the PIDs of dir_fd's cgroup.procs.  ENOENT and ENODEV (a cgroup
 * removed while it is read) are not errors below the top: returns 0 for
 * them then, -1 with errno otherwise.
 */
static int read_procs(int dir_fd, struct pid_list *l)
{
	char buf[4096], num[16];
	size_t have = 0;
	ssize_t n, i;
	int fd;

	fd = openat(dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			i = errno;
			close(fd);
			errno = (int)i;
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9' &&
			    have < sizeof(num) - 1) {
				num[have++] = buf[i];
				continue;
			}
			if (buf[i] != '\n' || !have)
				continue;
			num[have] = '\0';
			have = 0;
			if (pmaps_grow_array((void **)&l->pids, &l->cap,
					     l->nr + 1, sizeof(*l->pids))) {
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			l->pids[l->nr++] = atoi(num);
		}
	}
	close(fd);
	return 0;
}

static bool gone_errno(int e)
{
	return e == ENOENT || e == ENODEV || e == ESTALE;
}

/* dir_fd's PIDs, then its child cgroups'; dir_fd (path) is closed. */
static int walk(int dir_fd, const char *path, int depth, struct pid_list *l,
		char *err, size_t errlen)
{
	struct dirent *de;
	DIR *d;

	if (read_procs(dir_fd, l)) {
		if (depth && gone_errno(errno)) {
			close(dir_fd);
			return 0;
		}
		snprintf(err, errlen, "pmaps: %s/cgroup.procs: %s", path,
			 strerror(errno));
		close(dir_fd);
		return -1;
	}
	if (depth >= MAX_DEPTH) {
		close(dir_fd);
		return 0;
	}
	d = fdopendir(dir_fd);
	if (!d) {
		close(dir_fd);
		return 0;
	}
	while ((de = readdir(d))) {
		char sub[4096];
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* a file, or a cgroup removed meanwhile */
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (walk(fd, sub, depth + 1, l, err, errlen)) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pmaps_cgroup_pids(const char *dir, int **pids, char *err, size_t errlen)
{
	struct pid_list l = { NULL, 0, 0 };
	size_t i, n = 0;
	int fd;

	*pids = NULL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "pmaps: %s: %s", dir, strerror(errno));
		return -1;
	}
	if (walk(fd, dir, 0, &l, err, errlen)) {
		free(l.pids);
		return -1;
	}
	if (l.nr > (size_t)1 << 30) {
		free(l.pids);
		snprintf(err, errlen, "pmaps: %s: too many processes", dir);
		return -1;
	}
	if (l.nr)
		qsort(l.pids, l.nr, sizeof(*l.pids), cmp_int);
	for (i = 0; i < l.nr; i++)
		if (!n || l.pids[n - 1] != l.pids[i])
			l.pids[n++] = l.pids[i];
	*pids = l.pids;
	return (int)n;
}

int pmaps_proc_state(int pid, char *state, bool *kthread, bool *exiting)
{
	char path[64], text[1024], cmdline[8];
	unsigned long long flags = 0;
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	/* "PID (comm) STATE ..." with the flags as the 9th field */
	p = strrchr(text, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %llu", state,
			 &flags) != 2)
		return -1;
	*kthread = false;
	*exiting = flags & PF_EXITING;
	if (!(flags & PF_KTHREAD))
		return 0;
	/* and no command line, as a kernel thread has none */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? 0 : read(fd, cmdline, sizeof(cmdline));
	if (fd >= 0)
		close(fd);
	*kthread = n <= 0;
	return 0;
}

bool pmaps_pid_gone(int pid)
{
	bool kthread, exiting;
	char state;

	if (pmaps_proc_state(pid, &state, &kthread, &exiting))
		return true;
	/*
	 * A process being killed has let its memory go (exit_mm()) before it
	 * is a zombie: /proc/PID/pagemap's open fails with ESRCH then, while
	 * its state letter still reads R or D.
	 */
	return state == 'Z' || state == 'X' || exiting || kthread;
}
