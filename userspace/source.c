// SPDX-License-Identifier: GPL-2.0
/*
 * Where a pmaps document comes from: the patched kernel's /proc/PID/pmaps,
 * the module's /proc/pmaps_ext/PID, the pagemap model, or a file.
 *
 * Every failure ends in a message for the user that says which file failed,
 * why, and what would work instead, because "Permission denied" alone does
 * not tell anyone whether to use sudo, load the module or give up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "pagemap.h"

#define MODULE_DIR	"/proc/pmaps_ext"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

bool pmaps_source_numa;

/* One source's failure: its own line in the AUTO message. */
struct attempt {
	enum pmaps_status status;
	char why[512];
};

static const char *const source_names[] = {
	[PMAPS_SRC_AUTO] = "auto",
	[PMAPS_SRC_KERNEL] = "kernel",
	[PMAPS_SRC_MODULE] = "module",
	[PMAPS_SRC_PAGEMAP] = "pagemap",
	[PMAPS_SRC_FILE] = "file",
};

const char *pmaps_source_name(enum pmaps_source src)
{
	if ((size_t)src >= ARRAY_SIZE(source_names))
		return "?";
	return source_names[src];
}

int pmaps_source_parse(const char *name, enum pmaps_source *src)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(source_names); i++) {
		if (!strcmp(name, source_names[i])) {
			*src = (enum pmaps_source)i;
			return 0;
		}
	}
	return -1;
}

static void read_small(const char *path, char *buf, size_t len);

__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/*
 * kernel and module: read a text file.  On failure fill a->why with the
 * file, the error and a hint about what to do instead.
 */
static void try_text(const char *path, enum pmaps_source src,
		     struct pmaps_doc *doc, struct attempt *a)
{
	const char *hint = "";
	struct stat st;
	int fd, e;

	a->status = PMAPS_OK;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		/*
		 * a malformed document stays, so that the message can be
		 * checked; a live one has this host's pages
		 */
		int ret = pmaps_read_doc_as(fd, path, pmaps_page_size(),
					    &doc->text, &doc->text_len,
					    &doc->map, a->why, sizeof(a->why));

		if (ret != -1) {
			close(fd);
			doc->source = src;
			a->status = ret ? PMAPS_ERR_INPUT : PMAPS_OK;
			return;
		}
		e = errno;
		close(fd);
		a->status = PMAPS_ERR_TARGET;
		say(a->why, sizeof(a->why), "%s: read: %s", path,
		    strerror(e));
		return;
	}
	e = errno;
	a->status = PMAPS_ERR_TARGET;
	if (e == ENOENT && src == PMAPS_SRC_KERNEL)
		hint = " (this kernel lacks the pmaps patches)";
	else if (e == ENOENT && stat(MODULE_DIR, &st))
		hint = " (module not loaded: sudo modprobe pmaps_ext, or sudo make load in its source tree)";
	else if (e == ENOENT && stat(MODULE_DIR "/self", &st))
		hint = " (module not mounted: sudo mount -t pmaps_ext pmaps_ext "
		       MODULE_DIR ")";
	else if ((e == EACCES || e == EPERM) && !geteuid())
		hint = pmaps_denied_hint(path);
	else if ((e == EACCES || e == EPERM) && src == PMAPS_SRC_MODULE)
		hint = " (the module lets you read only your own dumpable processes; run as root: sudo pmaps)";
	else if (e == EACCES || e == EPERM)
		hint = " (you may read only your own dumpable processes; run as root: sudo pmaps)";
	say(a->why, sizeof(a->why), "%s: %s%s", path, strerror(e), hint);
}

static void try_pagemap(int pid, struct pmaps_doc *doc, struct attempt *a)
{
	char msg[sizeof(a->why) - 128];
	struct pmaps_pagemap_method how;

	a->status = PMAPS_ERR_TARGET;
	if (pmaps_from_pagemap_how(pid, 0, &doc->map, &how, msg,
				   sizeof(msg))) {
		say(a->why, sizeof(a->why), "%s", msg);
		return;
	}
	/* what the NUMA files would say, for --numa alike on every source */
	if (pmaps_source_numa &&
	    pmaps_pagemap_numa(pid, &doc->map, msg, sizeof(msg))) {
		say(a->why, sizeof(a->why), "%s", msg);
		return;
	}
	snprintf(doc->how, sizeof(doc->how), "%s",
		 pmaps_pagemap_method_name(&how));
	/* The same text as the other sources, so --raw works alike. */
	if (pmaps_map_to_text(&doc->map, &doc->text, &doc->text_len)) {
		say(a->why, sizeof(a->why), "pagemap: out of memory");
		return;
	}
	doc->source = PMAPS_SRC_PAGEMAP;
	a->status = PMAPS_OK;
}

const char *pmaps_doc_source(const struct pmaps_doc *doc, char *buf,
			     size_t len)
{
	if (!doc->how[0])
		return pmaps_source_name(doc->source);
	say(buf, len, "%s (%s)", pmaps_source_name(doc->source), doc->how);
	return buf;
}

/* Start again from nothing after a failed source. */
static void doc_reset(struct pmaps_doc *doc)
{
	free(doc->text);
	doc->text = NULL;
	doc->text_len = 0;
	pmaps_map_free(&doc->map);
}

static void try_source(int pid, enum pmaps_source src, struct pmaps_doc *doc,
		       struct attempt *a)
{
	char path[64];

	switch (src) {
	case PMAPS_SRC_KERNEL:
		snprintf(path, sizeof(path), "/proc/%d/pmaps%s", pid,
			 pmaps_source_numa ? "_numa" : "");
		try_text(path, src, doc, a);
		break;
	case PMAPS_SRC_MODULE:
		snprintf(path, sizeof(path), MODULE_DIR "%s/%d",
			 pmaps_source_numa ? "/numa" : "", pid);
		try_text(path, src, doc, a);
		break;
	case PMAPS_SRC_PAGEMAP:
		try_pagemap(pid, doc, a);
		break;
	default:
		a->status = PMAPS_ERR_INPUT;
		say(a->why, sizeof(a->why), "source %s cannot read a process",
		    pmaps_source_name(src));
		break;
	}
	/* A malformed document stays, so that the message can be checked. */
	if (a->status == PMAPS_ERR_TARGET)
		doc_reset(doc);
}

bool pmaps_number_parse(const char *s, unsigned long long min,
			unsigned long long max, unsigned long long *val)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	if (v < min)
		return false;
	*val = v;
	return true;
}

bool pmaps_parse_pid(const char *s, int *pid)
{
	unsigned long long v;

	/* As /proc names them: no sign, blanks, 0x or leading zeros. */
	if (*s == '0' || !pmaps_number_parse(s, 1, 0x7fffffff, &v))
		return false;
	*pid = (int)v;
	return true;
}

void pmaps_pid_label(char *label, size_t len, int pid)
{
	char path[64], comm[32] = "";
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
	}
	if (n > 0) {
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(label, len, "%d (%s)", pid, comm);
	} else {
		snprintf(label, len, "%d", pid);
	}
}

void pmaps_report_denied(const char *command, int nr, const char *name)
{
	fprintf(stderr, "pmaps%s%s: %d process%s named ", command ? " " : "",
		command ? command : "", nr, nr == 1 ? "" : "es");
	pmaps_put_name(stderr, name);
	fputs(" not readable: run as root\n", stderr);
}

void pmaps_put_name(FILE *out, const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	for (; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f)
			putc(*p, out);
		else
			fprintf(out, "\\x%02x", *p);
	}
}

/*
 * A kernel thread has no user memory and a zombie none left: each source
 * fails for them with "No such process", which says nothing useful.  Tell
 * the user once what the process is.  /proc/PID/stat: "PID (comm) STATE
 * ..." with the flags as the 9th field; comm may hold blanks and ')'.
 */
enum pmaps_status pmaps_check_memory(int pid, char *err, size_t errlen)
{
	bool kthread, exiting;
	char state;

	if (pmaps_proc_state(pid, &state, &kthread, &exiting))
		return PMAPS_OK;	/* gone or unreadable: let the caller say */
	if (state == 'Z') {
		say(err, errlen, "pmaps: PID %d is a zombie: it has no memory left",
		    pid);
		return PMAPS_ERR_TARGET;
	}
	if (kthread) {
		say(err, errlen, "pmaps: PID %d is a kernel thread: it has no user memory",
		    pid);
		return PMAPS_ERR_TARGET;
	}
	return PMAPS_OK;
}

int pmaps_tgid(int pid)
{
	char path[64], line[128];
	int tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	/* "Tgid:\tN", a few lines in; a line longer than line is no Tgid */
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			if (sscanf(line + 5, "%d", &tgid) != 1 || tgid <= 0)
				tgid = pid;
			break;
		}
	fclose(f);
	return tgid;
}

int pmaps_cmd_tgid(const char *command, int pid)
{
	int tgid = pmaps_tgid(pid);

	if (tgid != pid)
		fprintf(stderr, "pmaps %s: %d is a thread of process %d: reading process %d\n",
			command, pid, tgid, tgid);
	return tgid;
}

bool pmaps_pid_denied(int pid)
{
	char path[64];
	int fd;

	/* the ptrace check every source's file makes at open */
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EACCES || errno == EPERM;
}

enum pmaps_status pmaps_load_pid(int pid, enum pmaps_source src,
				 struct pmaps_doc *doc, char *err,
				 size_t errlen)
{
	static const enum pmaps_source order[] = {
		PMAPS_SRC_KERNEL, PMAPS_SRC_MODULE, PMAPS_SRC_PAGEMAP,
	};
	struct attempt tried[3];
	char path[64];
	struct stat st;
	size_t i, used;
	int tgid;

	memset(doc, 0, sizeof(*doc));
	doc->pid = pid;
	if (errlen)
		err[0] = '\0';
	/* Sort out a wrong PID before blaming any source. */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (pid <= 0 || stat(path, &st)) {
		say(err, errlen, "pmaps: no process %d", pid);
		return PMAPS_ERR_TARGET;
	}
	/*
	 * /proc has a directory for each thread too, unlisted: a thread's ID
	 * reads its process, which is shown and labelled as the process.
	 */
	tgid = pmaps_tgid(pid);
	if (tgid != pid) {
		snprintf(doc->warning, sizeof(doc->warning),
			 "pmaps: %d is a thread of process %d: reading process %d",
			 pid, tgid, tgid);
		pid = doc->pid = tgid;
	}
	if (pmaps_check_memory(pid, err, errlen))
		return PMAPS_ERR_TARGET;
	pmaps_pid_label(doc->label, sizeof(doc->label), pid);

	if (src != PMAPS_SRC_AUTO) {
		try_source(pid, src, doc, &tried[0]);
		if (tried[0].status == PMAPS_ERR_INPUT)
			say(err, errlen, "%s", tried[0].why);
		else if (tried[0].status)
			say(err, errlen, "pmaps: %s: %s", pmaps_source_name(src),
			    tried[0].why);
		return tried[0].status;
	}

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		try_source(pid, order[i], doc, &tried[i]);
		/*
		 * Found a source but its text is malformed: that is a bug to
		 * show, not a reason to quietly use another source.
		 */
		if (tried[i].status == PMAPS_ERR_INPUT)
			say(err, errlen, "%s", tried[i].why);
		if (tried[i].status != PMAPS_ERR_TARGET)
			return tried[i].status;
	}
	used = 0;
	say(err, errlen, "pmaps: cannot read process %d, tried each source:",
	    pid);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		used = strlen(err);
		say(err + used, errlen - used, "\n  %s: %s",
		    pmaps_source_name(order[i]), tried[i].why);
	}
	return PMAPS_ERR_TARGET;
}

enum pmaps_status pmaps_read_doc_path(const char *path,
				      unsigned long long page_size,
				      char **text, size_t *len,
				      struct pmaps_map *map, char *err,
				      size_t errlen)
{
	int is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	int fd, ret, e;

	*text = NULL;
	*len = 0;
	memset(map, 0, sizeof(*map));
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say(err, errlen, "pmaps: %s: %s", name, strerror(errno));
		return PMAPS_ERR_TARGET;
	}
	ret = pmaps_read_doc_as(fd, name, page_size, text, len, map, err,
				errlen);
	e = errno;
	if (!is_stdin)
		close(fd);
	if (ret == -1) {
		say(err, errlen, "pmaps: %s: %s", name, strerror(e));
		return PMAPS_ERR_TARGET;
	}
	return ret ? PMAPS_ERR_INPUT : PMAPS_OK;
}

/*
 * A document without range lines is valid and shows nothing resident: an
 * empty file (a process without user memory), a saved listing of pmaps
 * perf (which starts "@ pmaps perf: "), or, far more often, a copy of
 * /proc/PID/maps, which is the VMA headers alone.  Say which, and go
 * on: the exit status stays that of a valid document.
 */
#define PERF_LISTING "@ pmaps perf: "
static void warn_no_ranges(struct pmaps_doc *doc, const char *name)
{
	const struct pmaps_map *map = &doc->map;
	size_t i;

	for (i = 0; i < map->nr_vmas; i++)
		if (map->vmas[i].nr_ranges)
			return;
	if (!map->nr_vmas)
		snprintf(doc->warning, sizeof(doc->warning),
			 "pmaps: %s: warning: empty document, no VMAs and no range lines: nothing resident",
			 name);
	else if (doc->text_len >= strlen(PERF_LISTING) &&
		 !memcmp(doc->text, PERF_LISTING, strlen(PERF_LISTING)))
		/* perf.c's first line: mappings, which have no page state */
		snprintf(doc->warning, sizeof(doc->warning),
			 "pmaps: %s: warning: %zu VMA%s and no range lines: a listing of pmaps perf, the mappings perf.data recorded, has no page state (save pmaps --raw PID for that)",
			 name, map->nr_vmas, map->nr_vmas == 1 ? "" : "s");
	else
		snprintf(doc->warning, sizeof(doc->warning),
			 "pmaps: %s: warning: %zu VMA%s and no range lines: nothing resident (a copy of /proc/PID/maps? save pmaps --raw PID instead)",
			 name, map->nr_vmas, map->nr_vmas == 1 ? "" : "s");
}

/* Files warned about already, by a hash of the warning. */
#define WARNED_MAX	64

void pmaps_doc_warn(const struct pmaps_doc *doc)
{
	static unsigned long long warned[WARNED_MAX];
	static size_t nr_warned;
	unsigned long long h = 14695981039346656037ULL;	/* FNV-1a */
	const char *p;
	size_t i;

	if (!doc->warning[0])
		return;
	for (p = doc->warning; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (i = 0; i < nr_warned; i++)
		if (warned[i] == h)
			return;
	if (nr_warned < WARNED_MAX)
		warned[nr_warned++] = h;
	fprintf(stderr, "%s\n", doc->warning);
}

enum pmaps_status pmaps_load_file(const char *path, struct pmaps_doc *doc,
				  char *err, size_t errlen)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	enum pmaps_status st;
	bool json;

	memset(doc, 0, sizeof(*doc));
	doc->source = PMAPS_SRC_FILE;
	if (errlen)
		err[0] = '\0';
	snprintf(doc->label, sizeof(doc->label), "%s", name);
	st = pmaps_read_doc_path(path, pmaps_doc_page_size(), &doc->text,
				 &doc->text_len, &doc->map, err, errlen);
	if (st)
		return st;
	json = pmaps_is_json(doc->text, doc->text_len);
	warn_no_ranges(doc, name);
	if (!json)
		return PMAPS_OK;
	/* --raw prints the text format, whichever format was read. */
	free(doc->text);
	if (pmaps_map_to_text(&doc->map, &doc->text, &doc->text_len)) {
		say(err, errlen, "pmaps: %s: out of memory", name);
		return PMAPS_ERR_TARGET;
	}
	return PMAPS_OK;
}

void pmaps_doc_free(struct pmaps_doc *doc)
{
	free(doc->text);
	pmaps_map_free(&doc->map);
	memset(doc, 0, sizeof(*doc));
}

/* Whole small /proc file as a string; "" when it cannot be read. */
static void read_small(const char *path, char *buf, size_t len)
{
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

static bool process_named(const char *pid, const char *name)
{
	char path[300], buf[4096];
	const char *base;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	read_small(path, buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = '\0';
	if (!strcmp(buf, name))
		return true;
	/* comm is cut at 15 bytes; argv[0] has the whole name. */
	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	read_small(path, buf, sizeof(buf));
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	return *base && !strcmp(base, name);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pmaps_pids_by_name(const char *name, int **pids)
{
	size_t nr = 0, cap = 0;
	struct dirent *de;
	int *list = NULL;
	DIR *dir;
	int self = (int)getpid();

	*pids = NULL;
	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		if (!process_named(de->d_name, name))
			continue;
		if (nr == cap) {
			int *grown;

			cap = cap ? cap * 2 : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				free(list);
				closedir(dir);
				errno = ENOMEM;
				return -1;
			}
			list = grown;
		}
		list[nr++] = (int)pid;
	}
	closedir(dir);
	if (nr)
		qsort(list, nr, sizeof(*list), cmp_int);
	*pids = list;
	return (int)nr;
}

int pmaps_print_text(FILE *out, const struct pmaps_map *map)
{
	char flags[PMAPS_NR_FLAGS + 1], mapcount[PMAPS_MAPCOUNT_LEN];
	char node[21], kb[21];
	size_t i, j;

	for (i = 0; i < map->nr_vmas; i++) {
		const struct pmaps_vma *v = &map->vmas[i];

		fprintf(out, "%s\n", v->header);
		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];

			pmaps_format_flags(r->flags, r->unknown, flags);
			pmaps_format_mapcount(r->mapcount, mapcount);
			fprintf(out, "%llu\t%llu\t%s\t%s", r->index,
				r->count, flags, mapcount);
			/* the NUMA files' text, columns 5, 6 and 7 */
			if (map->numa) {
				pmaps_format_node(r->node, node);
				pmaps_format_kb(r->kb, kb);
				fprintf(out, "\t%s\t%s", node, kb);
			}
			if (map->numa && map->age) {
				pmaps_format_age(r->age, node);
				fprintf(out, "\t%s", node);
			}
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

int pmaps_map_to_text(const struct pmaps_map *map, char **text, size_t *len)
{
	FILE *out;
	int ret;

	*text = NULL;
	*len = 0;
	out = open_memstream(text, len);
	if (!out)
		return -1;
	ret = pmaps_print_text(out, map);
	if (fclose(out))
		ret = -1;
	if (ret) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return ret;
}
