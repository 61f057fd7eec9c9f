// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps record [-o FILE] [--snapshot-every SECONDS] -- CMD... | -p PID:
 * record a process's mmaps as perf record -e dummy -d does, into perf.data
 * that perf and pmaps perf both read.
 *
 * A dummy software event counts nothing; with mmap, mmap2, mmap_data,
 * comm and task set it only makes the kernel write the side-band records
 * of the task: MMAP2, COMM, FORK, EXIT.  An inherited event cannot share a
 * ring buffer across CPUs, and one of a task (cpu -1) cannot be mapped at
 * all, so as perf there is one event per CPU (and per thread, with -p),
 * the ones of a CPU writing into its first one's buffer.  Times are
 * CLOCK_MONOTONIC (use_clockid), the clock the snapshots are read by.
 *
 * A command starts stopped on a pipe until its events exist, which
 * enable_on_exec turns on at its exec, as perf does.  For -p the process's
 * comm and its mappings of now are written first as perf synthesizes them
 * (time 0): made before recording, at a time nobody knows.
 *
 * --snapshot-every SECONDS adds /proc/PID/maps at that interval (and,
 * with -p, at the start and the end), so that pmaps perf shows an unmap,
 * which no record shows, between two snapshots.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "outfile.h"
#include "perfdata.h"

static const char usage_text[] =
"Usage: pmaps record [OPTION]... -- CMD [ARG]...\n"
"       pmaps record [OPTION]... -p PID\n"
"Record the mmaps of a command, or of a running process, into perf.data,\n"
"as perf record -e dummy -d does: perf script and pmaps perf read it.\n"
"Children and threads started meanwhile are followed.\n"
"\n"
"  -o, --output FILE     the perf.data to write (default: perf.data; an\n"
"                        existing one becomes perf.data.old, as with perf,\n"
"                        once the new one is complete)\n"
"  -p, --pid PID         record this running process until it exits or\n"
"                        pmaps record is interrupted (SIGINT, SIGTERM);\n"
"                        what it had mapped before is written first, as\n"
"                        perf does\n"
"      --snapshot-every SECONDS\n"
"                        also save /proc/PID/maps every SECONDS (e.g. 0.5,\n"
"                        as every interval of pmaps), and with -p at the\n"
"                        start and the end: an unmap, which perf does not\n"
"                        record, shows in pmaps perf between two snapshots\n"
"  -h, --help            show this help and exit\n"
"\n"
"perf_event_open(2) needs, for a process of another user, root or\n"
"CAP_PERFMON; for any process, a kernel.perf_event_paranoid of at most 2\n"
"(Debian's 3 allows nothing without CAP_PERFMON).\n"
"\n"
"Exit status: 0 if the recording was written, 1 if it could not be (no\n"
"permission, no such process or command), 2 for bad usage.\n";

enum { OPT_SNAPSHOT_EVERY = 256 };

static const struct option record_options[] = {
	{ "output",		required_argument, NULL, 'o' },
	{ "pid",		required_argument, NULL, 'p' },
	{ "snapshot-every",	required_argument, NULL, OPT_SNAPSHOT_EVERY },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_record_options = {
	.shortopts = "+ho:p:",
	.longopts = record_options,
};

#define usage_error(...) pmaps_cmd_usage_error("record", __VA_ARGS__)

/* 64 pages of records a CPU: thousands of mmaps between two reads. */
#define RING_PAGES	64

struct ring {
	int fd;
	void *base;
	size_t size;			/* of the data part */
};

struct rec {
	const char *path;
	int pid;
	struct perf_event_attr attr;
	int *fds;
	uint64_t *ids;
	size_t nr_fds, cap_fds, cap_ids;
	struct ring *rings;
	size_t nr_rings;
	struct pmaps_perf_writer w;
	unsigned char *buf;		/* a record that wraps the ring */
	size_t page;
	uint64_t records;
	size_t snapshots;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Why perf_event_open() refused, in terms of what can be changed. */
static void explain_refusal(int err, int pid)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = -99;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			level = atoi(buf);
		fclose(f);
	}
	fprintf(stderr, "pmaps record: perf_event_open of pid %d: %s\n", pid,
		strerror(err));
	if (level == -99) {
		fputs("pmaps record: /proc/sys/kernel/perf_event_paranoid cannot be read: this kernel may lack perf events (CONFIG_PERF_EVENTS)\n",
		      stderr);
		return;
	}
	fprintf(stderr, "pmaps record: kernel.perf_event_paranoid is %d: ", level);
	if (level >= 3)
		fputs("no user without CAP_PERFMON (or root) may use perf events (a Debian setting); run as root, or lower it: sysctl kernel.perf_event_paranoid=2\n",
		      stderr);
	else
		fputs("a user may record their own processes (2 and below), but another user's only with CAP_PERFMON or as root, and only one they may ptrace (see Documentation/admin-guide/perf-security.rst)\n",
		      stderr);
}

static int open_event(struct rec *r, int tid, int cpu, int group)
{
	long fd = syscall(SYS_perf_event_open, &r->attr, tid, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	uint64_t id;

	if (fd < 0)
		return -1;
	if (group >= 0 && ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, group)) {
		close((int)fd);
		return -1;
	}
	if (ioctl((int)fd, PERF_EVENT_IOC_ID, &id)) {
		close((int)fd);
		return -1;
	}
	if (pmaps_grow_array((void **)&r->fds, &r->cap_fds, r->nr_fds + 1,
			     sizeof(*r->fds)) ||
	    pmaps_grow_array((void **)&r->ids, &r->cap_ids, r->nr_fds + 1,
			     sizeof(*r->ids))) {
		close((int)fd);
		errno = ENOMEM;
		return -1;
	}
	r->fds[r->nr_fds] = (int)fd;
	r->ids[r->nr_fds++] = id;
	return (int)fd;
}

/* The threads of pid, or pid alone for a command not started yet. */
static int *list_tids(int pid, bool all, size_t *nr)
{
	char path[64];
	struct dirent *de;
	size_t cap = 0;
	int *tids = NULL;
	DIR *d;

	*nr = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = all ? opendir(path) : NULL;
	if (!d) {
		tids = malloc(sizeof(*tids));
		if (tids) {
			tids[0] = pid;
			*nr = 1;
		}
		return tids;
	}
	while ((de = readdir(d))) {
		int tid;

		if (!pmaps_parse_pid(de->d_name, &tid))
			continue;
		if (pmaps_grow_array((void **)&tids, &cap, *nr + 1,
				     sizeof(*tids))) {
			free(tids);
			closedir(d);
			return NULL;
		}
		tids[(*nr)++] = tid;
	}
	closedir(d);
	return tids;
}

/* An event per CPU and thread, a ring buffer per CPU.  0, or -1 said. */
static int open_events(struct rec *r, bool all_threads)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t nr_tids, i;
	int *tids = list_tids(r->pid, all_threads, &nr_tids);
	int cpu, err = 0;

	if (!tids) {
		fputs("pmaps record: out of memory\n", stderr);
		return -1;
	}
	r->rings = calloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof(*r->rings));
	if (!r->rings) {
		free(tids);
		fputs("pmaps record: out of memory\n", stderr);
		return -1;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		int group = -1;

		for (i = 0; i < nr_tids; i++) {
			int fd = open_event(r, tids[i], cpu, group);

			if (fd >= 0) {
				if (group < 0)
					group = fd;
				continue;
			}
			/* an offline CPU, or a thread that just ended */
			if (errno == ENODEV || (errno == ESRCH && i))
				continue;
			err = errno;
			goto out;
		}
		if (group < 0)
			continue;
		r->rings[r->nr_rings].fd = group;
		r->rings[r->nr_rings].size = RING_PAGES * r->page;
		r->rings[r->nr_rings].base = mmap(NULL,
						  (RING_PAGES + 1) * r->page,
						  PROT_READ | PROT_WRITE,
						  MAP_SHARED, group, 0);
		if (r->rings[r->nr_rings].base == MAP_FAILED) {
			err = errno;
			fprintf(stderr, "pmaps record: mapping the ring buffer of CPU %d: %s\n",
				cpu, strerror(err));
			free(tids);
			return -1;
		}
		r->nr_rings++;
	}
out:
	free(tids);
	if (err == EACCES || err == EPERM) {
		explain_refusal(err, r->pid);
		return -1;
	}
	if (err == ESRCH) {
		fprintf(stderr, "pmaps record: no process %d\n", r->pid);
		return -1;
	}
	if (err || !r->nr_rings) {
		fprintf(stderr, "pmaps record: perf_event_open of pid %d: %s\n",
			r->pid, strerror(err ? err : ENODEV));
		return -1;
	}
	return 0;
}

/* Copy out what the kernel wrote since the last time. */
static int drain(struct rec *r)
{
	size_t i;

	for (i = 0; i < r->nr_rings; i++) {
		struct ring *g = &r->rings[i];
		struct perf_event_mmap_page *pg = g->base;
		const unsigned char *data = (const unsigned char *)g->base +
					    r->page;
		uint64_t head = __atomic_load_n(&pg->data_head,
						 __ATOMIC_ACQUIRE);
		uint64_t tail = pg->data_tail;

		while (tail < head) {
			size_t at = (size_t)(tail % g->size), size, first;
			struct perf_event_header h;

			/* the header itself may wrap */
			first = g->size - at;
			if (first >= sizeof(h)) {
				memcpy(&h, data + at, sizeof(h));
			} else {
				memcpy(&h, data + at, first);
				memcpy((unsigned char *)&h + first, data,
				       sizeof(h) - first);
			}
			size = h.size;
			if (size < sizeof(h) || size > head - tail)
				break;	/* cannot be: the kernel wrote it */
			if (first >= size) {
				memcpy(r->buf, data + at, size);
			} else {
				memcpy(r->buf, data + at, first);
				memcpy(r->buf + first, data, size - first);
			}
			if (pmaps_perf_writer_record(&r->w, r->buf, size))
				return -1;
			r->records++;
			tail += size;
		}
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/*
 * /proc/PID/maps, read whole into *map too; NULL when the process is gone,
 * or when what it holds is not what the text format allows, which is said.
 */
static char *read_maps(int pid, size_t *len, struct pmaps_map *map)
{
	char path[64], err[512];
	char *text = NULL;
	enum pmaps_status st;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	st = pmaps_read_doc_path(path, pmaps_page_size(), &text, len, map,
				 err, sizeof(err));
	if (st) {
		if (st == PMAPS_ERR_INPUT)
			fprintf(stderr, "pmaps record: %s\n", err);
		pmaps_map_free(map);
		free(text);
		return NULL;
	}
	return text;
}

static int snapshot(struct rec *r)
{
	uint64_t t = now_ns();
	struct pmaps_map map;
	size_t len;
	char *text = read_maps(r->pid, &len, &map);
	int ret;

	if (!text)
		return 0;	/* gone: the records say so */
	pmaps_map_free(&map);
	ret = pmaps_perf_writer_snapshot(&r->w, t, r->pid, text, len);
	free(text);
	r->snapshots += !ret;
	return ret;
}

/* What pid had before recording, as perf synthesizes it. */
static int synthesize(struct rec *r)
{
	char path[64], comm[64] = "";
	struct pmaps_map map;
	size_t len, i;
	char *text;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/comm", r->pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (pmaps_perf_writer_comm(&r->w, r->pid, r->pid, comm))
		return -1;
	text = read_maps(r->pid, &len, &map);
	if (!text)
		return 0;
	for (i = 0; i < map.nr_vmas && !ret; i++) {
		const struct pmaps_vma *v = &map.vmas[i];
		struct pmaps_perf_mapping mp = {
			.start = v->start, .end = v->end, .pgoff = v->offset,
			.maj = v->dev_major, .min = v->dev_minor,
			.ino = v->inode, .name = v->name,
		};
		uint32_t prot = (v->perms[0] == 'r' ? PROT_READ : 0) |
				(v->perms[1] == 'w' ? PROT_WRITE : 0) |
				(v->perms[2] == 'x' ? PROT_EXEC : 0);

		/* perf leaves out the vsyscall page, which no mm holds */
		if (!strcmp(v->name, "[vsyscall]"))
			continue;
		ret = pmaps_perf_writer_mmap2(&r->w, r->pid, &mp, prot,
					      v->perms[3] == 's' ? MAP_SHARED :
					      MAP_PRIVATE);
	}
	pmaps_map_free(&map);
	free(text);
	return ret;
}

/*
 * A child stopped on a pipe until go is written; exec errors come back on
 * err_fd.  Its pid, or -1.
 */
static int start_command(char **argv, int *go_fd, int *err_fd)
{
	int go[2], er[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		/* pmaps record's end is not its end */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	*go_fd = go[1];
	*err_fd = er[0];
	return (int)pid;
}

static void close_events(struct rec *r)
{
	size_t i;

	for (i = 0; i < r->nr_rings; i++)
		munmap(r->rings[i].base, (RING_PAGES + 1) * r->page);
	for (i = 0; i < r->nr_fds; i++)
		close(r->fds[i]);
	free(r->rings);
	free(r->fds);
	free(r->ids);
	free(r->buf);
}

int pmaps_cmd_record(int argc, char **argv)
{
	static char prog_name[] = "pmaps record";
	const char *path = "perf.data";
	struct rec r = { .pid = 0 };
	long long every_ms = 0;
	bool pid_mode = false;
	int opt, go = -1, err_fd = -1, pidfd = -1, status = 0;
	struct pmaps_outfile out = { .fd = -1 };
	char err[PATH_MAX * 2 + 128];
	enum pmaps_status ret = PMAPS_ERR_TARGET;
	struct timespec every;
	uint64_t next_snap = 0;
	struct sigaction sa;
	pid_t child = -1;

	argv[0] = prog_name;
	/* "+": CMD's own options are CMD's */
	while ((opt = getopt_long(argc, argv, pmaps_record_options.shortopts,
				  record_options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return fflush(stdout) ? PMAPS_ERR_TARGET : PMAPS_OK;
		case 'o':
			path = optarg;
			break;
		case 'p':
			if (!pmaps_parse_pid(optarg, &r.pid) || r.pid <= 0)
				return usage_error("-p: expected a PID (decimal digits), got '%s'",
						   optarg);
			pid_mode = true;
			break;
		case OPT_SNAPSHOT_EVERY:
			/* seconds, as every interval of pmaps */
			if (pmaps_seconds_parse("record", "--snapshot-every",
						optarg, &every))
				return PMAPS_ERR_INPUT;
			every_ms = pmaps_interval_ms(&every);
			break;
		default:
			return pmaps_cmd_usage_hint("record");
		}
	}
	if (pid_mode && optind < argc)
		return usage_error("-p and a command cannot be combined ('%s')",
				   argv[optind]);
	if (!pid_mode && optind == argc)
		return usage_error("expected -- CMD [ARG]... or -p PID");
	if (!strcmp(path, "-"))
		return usage_error("-o: expected a file: perf.data in pipe mode is not written");
	if (pid_mode) {
		char err[128];

		r.pid = pmaps_cmd_tgid("record", r.pid);
		/* as every command: a kernel thread maps nothing to record */
		if (pmaps_check_memory(r.pid, err, sizeof(err))) {
			pmaps_cmd_report("record", err);
			return PMAPS_ERR_TARGET;
		}
	}

	r.page = (size_t)sysconf(_SC_PAGESIZE);
	r.path = path;
	r.buf = malloc(UINT16_MAX + 1);
	if (!r.buf) {
		fputs("pmaps record: out of memory\n", stderr);
		return PMAPS_ERR_TARGET;
	}
	r.attr.type = PERF_TYPE_SOFTWARE;
	r.attr.size = sizeof(r.attr);
	r.attr.config = PERF_COUNT_SW_DUMMY;
	r.attr.sample_period = 1;
	r.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_IDENTIFIER;
	r.attr.mmap = r.attr.mmap2 = r.attr.mmap_data = 1;
	r.attr.comm = r.attr.comm_exec = r.attr.task = 1;
	r.attr.sample_id_all = 1;
	r.attr.inherit = 1;
	/* what perf_event_paranoid 2 allows a user */
	r.attr.exclude_kernel = r.attr.exclude_hv = 1;
	r.attr.use_clockid = 1;
	r.attr.clockid = CLOCK_MONOTONIC;
	r.attr.watermark = 1;
	r.attr.wakeup_watermark = (uint32_t)(RING_PAGES * r.page / 4);

	if (!pid_mode) {
		r.attr.disabled = 1;
		r.attr.enable_on_exec = 1;
		child = start_command(argv + optind, &go, &err_fd);
		if (child < 0) {
			fprintf(stderr, "pmaps record: starting %s: %s\n",
				argv[optind], strerror(errno));
			goto out;
		}
		r.pid = child;
	}
	if (open_events(&r, pid_mode))
		goto out;

	/*
	 * A new file beside path, renamed over it once complete: a command
	 * that does not start, or a write that fails, leaves what was there.
	 */
	if (pmaps_outfile_open(&out, path, 0600, err, sizeof(err))) {
		fprintf(stderr, "pmaps record: %s\n", err);
		goto out;
	}
	if (pmaps_perf_writer_start(&r.w, out.fd, &r.attr, sizeof(r.attr),
				    r.ids, r.nr_fds))
		goto write_error;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (pid_mode) {
		if (synthesize(&r))
			goto write_error;
		if (every_ms && snapshot(&r))
			goto write_error;
	} else {
		char c = 'g';
		int e;
		ssize_t n;

		if (write(go, &c, 1) != 1) {
			fprintf(stderr, "pmaps record: starting %s: %s\n",
				argv[optind], strerror(errno));
			goto out;
		}
		close(go);
		go = -1;
		/* EOF at exec (close-on-exec), or exec's errno */
		do
			n = read(err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n == sizeof(e)) {
			fprintf(stderr, "pmaps record: %s: %s\n",
				argv[optind], strerror(e));
			waitpid(child, NULL, 0);
			child = -1;
			goto out;
		}
	}
	pidfd = (int)syscall(SYS_pidfd_open, r.pid, 0);
	fprintf(stderr, "pmaps record: recording pid %d into %s\n", r.pid,
		path);
	if (every_ms)
		next_snap = now_ns() + (uint64_t)every_ms * 1000000;

	while (!stop_signal) {
		struct pollfd pf = { .fd = pidfd, .events = POLLIN };
		int timeout = 100;
		bool gone = false;

		if (drain(&r))
			goto write_error;
		if (every_ms) {
			uint64_t t = now_ns();

			if (t >= next_snap) {
				if (snapshot(&r))
					goto write_error;
				next_snap = t + (uint64_t)every_ms * 1000000;
			}
			t = next_snap - t;
			if (t / 1000000 < (uint64_t)timeout)
				timeout = (int)(t / 1000000) + 1;
		}
		/* without a pidfd (before Linux 5.3), look every 100 ms */
		if (pidfd >= 0) {
			if (poll(&pf, 1, timeout) > 0)
				gone = true;
		} else {
			poll(NULL, 0, timeout);
			gone = child > 0 ? waitpid(child, &status, WNOHANG) == child
					 : kill(r.pid, 0) && errno == ESRCH;
			if (gone && child > 0)
				child = -1;
		}
		if (gone)
			break;
	}
	if (stop_signal && pid_mode && every_ms && snapshot(&r))
		goto write_error;
	if (child > 0) {
		if (stop_signal)
			kill(child, stop_signal);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		child = -1;
	}
	/* the last records, EXIT among them */
	if (drain(&r) || pmaps_perf_writer_finish(&r.w))
		goto write_error;
	/* an existing perf.data becomes perf.data.old, as with perf */
	if (pmaps_outfile_commit(&out, strcmp(path, "perf.data") ? NULL :
				 "perf.data.old", err, sizeof(err))) {
		fprintf(stderr, "pmaps record: %s\n", err);
		goto out;
	}
	fprintf(stderr, "pmaps record: %llu records, %zu snapshot%s written to %s\n",
		(unsigned long long)r.records, r.snapshots,
		r.snapshots == 1 ? "" : "s", path);
	if (!pid_mode && WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "pmaps record: %s exited with status %d\n",
			argv[optind], WEXITSTATUS(status));
	else if (!pid_mode && WIFSIGNALED(status))
		fprintf(stderr, "pmaps record: %s was killed by signal %d\n",
			argv[optind], WTERMSIG(status));
	ret = PMAPS_OK;
	goto out;
write_error:
	fprintf(stderr, "pmaps record: %s: %s\n", path, strerror(errno));
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (go >= 0)
		close(go);
	if (err_fd >= 0)
		close(err_fd);
	if (pidfd >= 0)
		close(pidfd);
	pmaps_outfile_abort(&out);
	pmaps_perf_writer_free(&r.w);
	close_events(&r);
	return ret;
}
