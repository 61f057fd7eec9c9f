// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps perf [-i FILE] [--pid PID] [--at TIME] [--timeline]: a process's
 * mappings as perf recorded them, and how they changed.
 *
 * The records of perf.data (lib/perfdata.c) are replayed as perf replays
 * them, and one process's mappings are printed as /proc/PID/maps lines:
 * a pmaps document without range lines, which pmaps -f and pmaps diff
 * read.  Above them, '@' lines (which readers skip) say what the
 * records cannot show.  --timeline prints the records instead, one line
 * each, with what each mmap replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "perfdata.h"

static const char usage_text[] =
"Usage: pmaps perf [OPTION]...\n"
"Show a process's mappings as perf recorded them (PERF_RECORD_MMAP2 and\n"
"the others), in the format of /proc/PID/maps, which pmaps -f and pmaps\n"
"diff read; or, with --timeline, every record in time order.\n"
"\n"
"  -i, --input FILE      the perf.data to read (default: perf.data), - for\n"
"                        standard input\n"
"      --pid PID         the process to show; needed when FILE records\n"
"                        several\n"
"      --at TIME         as at TIME, in seconds as perf script shows times\n"
"                        (e.g. 64732.305715); default: the end\n"
"      --timeline        one line per record: time, pid/tid, event, range,\n"
"                        protection, offset and file\n"
"  -h, --help            show this help and exit\n"
"\n"
"The mappings are rebuilt as perf rebuilds them: FORK copies the parent's,\n"
"an mmap replaces what it overlaps, and (unlike perf) an exec drops those\n"
"before it.  What perf.data cannot show is said in '@' lines above them:\n"
"  - munmap: perf records none, so a mapping stays until an mmap over its\n"
"    range replaces it (pmaps record --snapshot-every shows unmaps between\n"
"    two snapshots);\n"
"  - mappings made before recording started, but those the recorder (perf\n"
"    or pmaps record -p) read from /proc when it started (\"before\n"
"    recording\"; when is not known);\n"
"  - data and anonymous mappings, when recorded without mmap_data (perf\n"
"    record -d);\n"
"  - mappings in records that were lost (PERF_RECORD_LOST).\n"
"\n"
"Exit status: 0 if all went well, 1 if FILE could not be read or holds no\n"
"such process, 2 if FILE is not perf.data, is malformed or truncated (what\n"
"could be read is still shown), or for bad usage.\n";

enum { OPT_PID = 256, OPT_AT, OPT_TIMELINE };

static const struct option perf_options[] = {
	{ "input",	required_argument, NULL, 'i' },
	{ "pid",	required_argument, NULL, OPT_PID },
	{ "at",		required_argument, NULL, OPT_AT },
	{ "timeline",	no_argument,	   NULL, OPT_TIMELINE },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_perf_options = {
	.shortopts = "hi:",
	.longopts = perf_options,
};

#define usage_error(...) pmaps_cmd_usage_error("perf", __VA_ARGS__)

/* Seconds with up to nine decimals, as nanoseconds. */
static bool parse_time(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 100000000;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000 - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (!scale)
				return false;
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p)
		return false;
	*ns = sec * 1000000000 + frac;
	return true;
}

/* As perf script shows a time: seconds and microseconds, truncated. */
static const char *fmt_time(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%06llu",
		 (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
	return buf;
}

/* Printable, as the other views show names. */
static void put_name(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			putc(*p, out);
	}
}

/* The file, mapped (or read: a pipe, stdin) whole. */
struct input {
	const char *path;
	void *buf;
	size_t len;
	bool mapped;
};

static enum pmaps_status read_input(struct input *in, const char *path)
{
	char err[512];
	struct stat st;
	int fd = STDIN_FILENO, ret, e;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			fprintf(stderr, "pmaps perf: %s: %s\n", path,
				strerror(errno));
			if (fd >= 0)
				close(fd);
			return PMAPS_ERR_TARGET;
		}
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "pmaps perf: %s: expected a file, got a directory\n",
				path);
			close(fd);
			return PMAPS_ERR_TARGET;
		}
		/* perf.data with samples can be large: map, do not copy */
		if (S_ISREG(st.st_mode) && st.st_size > 0) {
			in->buf = mmap(NULL, (size_t)st.st_size, PROT_READ,
				       MAP_PRIVATE, fd, 0);
			if (in->buf != MAP_FAILED) {
				in->len = (size_t)st.st_size;
				in->mapped = true;
				close(fd);
				return PMAPS_OK;
			}
			in->buf = NULL;
		}
	}
	/* a pipe, a device, an empty file: only as far as the format goes */
	ret = pmaps_perf_read_stream(fd, path, (unsigned char **)&in->buf,
				     &in->len, err, sizeof(err));
	e = errno;
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret == -1) {
		fprintf(stderr, "pmaps perf: %s: %s\n", path, strerror(e));
		return PMAPS_ERR_TARGET;
	}
	if (ret) {
		pmaps_cmd_report("perf", err);
		return PMAPS_ERR_INPUT;
	}
	return PMAPS_OK;
}

static void free_input(struct input *in)
{
	if (in->mapped)
		munmap(in->buf, in->len);
	else
		free(in->buf);
}

/* ---- --timeline ---- */

struct timeline {
	FILE *out;
	int32_t pid;			/* only this one's, or -2: all */
};

static void put_range(FILE *out, const struct pmaps_perf_mapping *mp)
{
	fprintf(out, "%08llx-%08llx %s", (unsigned long long)mp->start,
		(unsigned long long)mp->end, mp->perms);
}

static const char *event_name(const struct pmaps_perf_event *ev)
{
	switch (ev->kind) {
	case PMAPS_PERF_EV_MMAP:
		return ev->type == PERF_RECORD_MMAP2 ? "mmap2" : "mmap";
	case PMAPS_PERF_EV_COMM:
		return ev->misc & PERF_RECORD_MISC_COMM_EXEC ? "exec" : "comm";
	case PMAPS_PERF_EV_FORK:
		return "fork";
	case PMAPS_PERF_EV_EXIT:
		return "exit";
	case PMAPS_PERF_EV_LOST:
		return "lost";
	case PMAPS_PERF_EV_SNAPSHOT:
		return "snapshot";
	}
	return "?";
}

static void timeline_line(void *arg, const struct pmaps_perf_change *c)
{
	struct timeline *t = arg;
	const struct pmaps_perf_event *ev = c->ev;
	FILE *out = t->out;
	char tbuf[32], who[32];
	size_t i;

	if (t->pid != -2 && ev->pid != t->pid &&
	    !(ev->kind == PMAPS_PERF_EV_FORK && ev->ppid == t->pid))
		return;
	if (ev->has_time)
		fmt_time(ev->time, tbuf, sizeof(tbuf));
	else
		snprintf(tbuf, sizeof(tbuf), "-");
	snprintf(who, sizeof(who), "%d/%d", ev->pid, ev->tid);
	fprintf(out, "%-16s %-13s %-8s ", tbuf, who, event_name(ev));
	switch (ev->kind) {
	case PMAPS_PERF_EV_MMAP: {
		struct pmaps_perf_mapping mp;

		pmaps_perf_mapping_of(&mp, ev);
		put_range(out, &mp);
		fprintf(out, " %08llx ", (unsigned long long)ev->pgoff);
		put_name(out, ev->name);
		if (ev->pid == -1)
			fputs("  (the kernel's)", out);
		else if (ev->synthesized)
			fputs("  (made before recording; perf read it from /proc)",
			      out);
		for (i = 0; i < c->nr_gone; i++) {
			const struct pmaps_perf_mapping *g = &c->gone[i];

			fputs(i ? ", " : "  replaces ", out);
			if (g->start < mp.start || g->end > mp.end)
				fputs("part of ", out);
			put_range(out, g);
			if (strcmp(c->gone[i].name, mp.name)) {
				putc(' ', out);
				put_name(out, c->gone[i].name[0] ?
					 c->gone[i].name : "[anon]");
			}
		}
		break;
	}
	case PMAPS_PERF_EV_COMM:
		put_name(out, ev->name);
		if (ev->misc & PERF_RECORD_MISC_COMM_EXEC && c->nr_gone)
			fprintf(out, "  (a new address space: the %zu mapping%s before it dropped)",
				c->nr_gone, c->nr_gone == 1 ? "" : "s");
		else if (ev->synthesized)
			fputs("  (before recording)", out);
		break;
	case PMAPS_PERF_EV_FORK:
		fprintf(out, "from %d/%d", ev->ppid, ev->ptid);
		if (ev->pid != ev->ppid && c->proc)
			fprintf(out, "  (a new process: the parent's %zu mapping%s copied)",
				c->proc->nr_maps,
				c->proc->nr_maps == 1 ? "" : "s");
		break;
	case PMAPS_PERF_EV_EXIT:
		if (ev->pid == ev->tid)
			fputs("(the process: its mappings are gone)", out);
		break;
	case PMAPS_PERF_EV_LOST:
		fprintf(out, "%llu records lost: mappings may be missing",
			(unsigned long long)ev->lost);
		break;
	case PMAPS_PERF_EV_SNAPSHOT:
		fprintf(out, "of /proc/%d/maps: %zu mapping%s", ev->pid,
			c->proc ? c->proc->snap.nr_vmas : 0,
			c->proc && c->proc->snap.nr_vmas == 1 ? "" : "s");
		break;
	}
	putc('\n', out);
	/* what two snapshots show gone, which no record can */
	for (i = 0; ev->kind == PMAPS_PERF_EV_SNAPSHOT && i < c->nr_gone; i++) {
		fprintf(out, "%-16s %-13s %-8s ", tbuf, who, "unmap");
		put_range(out, &c->gone[i]);
		fprintf(out, " %08llx ", (unsigned long long)c->gone[i].pgoff);
		put_name(out, c->gone[i].name[0] ? c->gone[i].name : "[anon]");
		fprintf(out, "  (seen by snapshots: unmapped after %s)\n",
			fmt_time(c->since, who, sizeof(who)));
	}
}

/* ---- the mappings ---- */

static bool shown_proc(const struct pmaps_perf_proc *p)
{
	return p->pid > 0 && (p->nr_mmaps || p->has_snap);
}

/* The one process to show without --pid; NULL after saying why not. */
static struct pmaps_perf_proc *only_proc(struct pmaps_perf_model *m,
					 const char *path)
{
	struct pmaps_perf_proc *found = NULL;
	size_t i, n = 0;

	for (i = 0; i < m->nr_procs; i++)
		if (shown_proc(&m->procs[i])) {
			found = &m->procs[i];
			n++;
		}
	if (n == 1)
		return found;
	if (!n) {
		fprintf(stderr, "pmaps perf: %s: no process's mappings are recorded (expected MMAP or MMAP2 records: perf record records them for the processes it follows)\n",
			path);
		return NULL;
	}
	fprintf(stderr, "pmaps perf: %s: records %zu processes; choose one with --pid:",
		path, n);
	for (i = 0, n = 0; i < m->nr_procs; i++) {
		if (!shown_proc(&m->procs[i]))
			continue;
		if (n++ == 20) {
			fputs(" ...", stderr);
			break;
		}
		fprintf(stderr, " %d (", m->procs[i].pid);
		put_name(stderr, m->procs[i].comm);
		putc(')', stderr);
	}
	putc('\n', stderr);
	return NULL;
}

static void print_notes(FILE *out, const char *path,
			const struct pmaps_perf_data *d,
			const struct pmaps_perf_proc *p, bool at_set,
			uint64_t at)
{
	char t[32];

	fputs("@ pmaps perf: ", out);
	put_name(out, path);
	fprintf(out, ": pid %d (", p->pid);
	put_name(out, p->comm);
	fputs(")", out);
	if (p->forked)
		fprintf(out, ", forked from %d at %s", p->ppid,
			fmt_time(p->fork_time, t, sizeof(t)));
	if (p->execed)
		fprintf(out, ", exec at %s", fmt_time(p->exec_time, t, sizeof(t)));
	if (p->exited)
		fprintf(out, ", exited at %s: its mappings then",
			fmt_time(p->exit_time, t, sizeof(t)));
	if (at_set)
		fprintf(out, "; as at %s\n", fmt_time(at, t, sizeof(t)));
	else
		fputs("; as at the end of the recording\n", out);
	fprintf(out, "@ not seen: munmap, which perf does not record: a mapping stays until an mmap over its range replaces it%s\n",
		d->nr_snapshots ? ", or a snapshot shows it gone" : "");
	if (!d->mmap_data)
		fputs("@ not seen: data and anonymous mappings: the recording did not set mmap_data (perf record -d)\n",
		      out);
	if (p->nr_synthesized)
		fprintf(out, "@ before recording: %zu mapping%s read from /proc/%d/maps when recording started; when %s made, and what came and went before, is not known\n",
			p->nr_synthesized, p->nr_synthesized == 1 ? "" : "s",
			p->pid, p->nr_synthesized == 1 ? "it was" : "they were");
	else if (!p->forked && !p->execed)
		fprintf(out, "@ not seen: mappings made before recording started: pid %d ran before then, and none were read from /proc\n",
			p->pid);
	if (d->lost)
		fprintf(out, "@ lost: %llu records (PERF_RECORD_LOST): mappings may be missing, or replaced without a trace\n",
			(unsigned long long)d->lost);
}

static void print_maps(FILE *out, const struct pmaps_perf_proc *p)
{
	size_t i;

	for (i = 0; i < p->nr_maps; i++)
		pmaps_perf_print_maps_line(out, &p->maps[i]);
}

int pmaps_cmd_perf(int argc, char **argv)
{
	static char prog_name[] = "pmaps perf";
	const char *path = "perf.data";
	bool timeline = false, at_set = false, pid_set = false;
	uint64_t at = UINT64_MAX;
	int pid = 0, opt, ret;
	enum pmaps_status status;
	struct pmaps_perf_data d;
	struct pmaps_perf_model m;
	struct pmaps_perf_proc *p;
	struct timeline t = { .out = stdout, .pid = -2 };
	struct input in;
	char err[512];

	argv[0] = prog_name;
	while ((opt = getopt_long(argc, argv, pmaps_perf_options.shortopts,
				  perf_options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return fflush(stdout) ? PMAPS_ERR_TARGET : PMAPS_OK;
		case 'i':
			path = optarg;
			break;
		case OPT_PID:
			if (!pmaps_parse_pid(optarg, &pid))
				return usage_error("--pid: expected a PID (decimal digits), got '%s'",
						   optarg);
			pid_set = true;
			break;
		case OPT_AT:
			if (!parse_time(optarg, &at))
				return usage_error("--at: expected seconds as perf script shows them (e.g. 64732.305715), got '%s'",
						   optarg);
			at_set = true;
			break;
		case OPT_TIMELINE:
			timeline = true;
			break;
		default:
			return pmaps_cmd_usage_hint("perf");
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (the file comes after -i)",
				   argv[optind]);

	status = read_input(&in, path);
	if (status)
		return status;
	ret = pmaps_perf_parse(in.buf, in.len, path, &d, err, sizeof(err));
	if (ret) {
		pmaps_cmd_report("perf", err);
		status = PMAPS_ERR_INPUT;
		if (ret < 0)
			goto out;
	}
	if (at_set && !d.timed) {
		fprintf(stderr, "pmaps perf: %s: --at: the records carry no time (recorded without sample_id_all or PERF_SAMPLE_TIME)\n",
			path);
		status = PMAPS_ERR_INPUT;
		goto out;
	}
	pmaps_perf_model_init(&m, &d);
	if (timeline) {
		if (pid_set)
			t.pid = pid;
		printf("# %s: %llu records (%llu samples), %zu event%s%s%s, %llu lost; %zu snapshot%s\n",
		       path, (unsigned long long)d.nr_records,
		       (unsigned long long)d.nr_samples, d.nr_attrs,
		       d.nr_attrs == 1 ? "" : "s",
		       d.mmap_data ? ", mmap_data" : "",
		       d.pipe ? ", pipe mode" : "",
		       (unsigned long long)d.lost, d.nr_snapshots,
		       d.nr_snapshots == 1 ? "" : "s");
		puts("# perf records no munmap: a mapping stays until an mmap over its range replaces it (\"replaces\")");
		printf("%-16s %-13s %-8s %s\n", "TIME", "PID/TID", "EVENT",
		       "START-END PERM OFFSET FILE");
	}
	if (pmaps_perf_replay(&m, at, timeline ? timeline_line : NULL, &t)) {
		fputs("pmaps perf: out of memory\n", stderr);
		status = PMAPS_ERR_TARGET;
		goto out_model;
	}
	if (timeline)
		goto out_model;
	if (pid_set) {
		p = pmaps_perf_find_proc(&m, pid);
		if (!p || !shown_proc(p)) {
			fprintf(stderr, "pmaps perf: %s: no mappings of pid %d are recorded%s\n",
				path, pid, at_set ? " by then" : "");
			if (!status)
				status = PMAPS_ERR_TARGET;
			goto out_model;
		}
	} else {
		p = only_proc(&m, path);
		if (!p) {
			if (!status)
				status = PMAPS_ERR_TARGET;
			goto out_model;
		}
	}
	print_notes(stdout, path, &d, p, at_set, at);
	print_maps(stdout, p);
out_model:
	pmaps_perf_model_free(&m);
out:
	pmaps_perf_data_free(&d);
	free_input(&in);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmaps perf: write error: %s\n",
			strerror(errno));
		status = PMAPS_ERR_TARGET;
	}
	return status;
}
