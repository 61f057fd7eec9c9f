// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps top: the texts, lookups and process statistics behind the screen
 * (see top.h).  Nothing here touches the terminal.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top.h"

/* 16 bytes a line, as hexdump -C */
#define DUMP_WIDTH	16

const char *const top_status_names[TOP_NR_FIELDS] = {
	[TOP_VMRSS] = "VmRSS",
	[TOP_RSSANON] = "RssAnon",
	[TOP_RSSFILE] = "RssFile",
	[TOP_RSSSHMEM] = "RssShmem",
	[TOP_VMSWAP] = "VmSwap",
	[TOP_VMHWM] = "VmHWM",
};

/* ---- texts ---- */

const char *top_text_line(const struct top_text *t, size_t i, size_t *len)
{
	size_t start = t->starts[i];
	size_t end = i + 1 < t->nr_lines ? t->starts[i + 1] - 1 : t->len;

	/* the last line may lack its '\n' */
	if (end > start && end == t->len && t->buf[end - 1] == '\n')
		end--;
	*len = end - start;
	return t->buf + start;
}

void top_text_free(struct top_text *t)
{
	free(t->buf);
	free(t->starts);
	memset(t, 0, sizeof(*t));
}

static int text_index(struct top_text *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->len; i++)
		if (t->buf[i] == '\n')
			n++;
	if (t->len && t->buf[t->len - 1] != '\n')
		n++;
	t->starts = malloc((n ? n : 1) * sizeof(*t->starts));
	if (!t->starts)
		return -1;
	t->nr_lines = 0;
	for (i = 0; i < t->len; i++)
		if (i == 0 || t->buf[i - 1] == '\n')
			t->starts[t->nr_lines++] = i;
	return 0;
}

/* Close f, a memstream into t->buf, and index the lines. */
static int text_close(struct top_text *t, FILE *f, int ret)
{
	int e;

	if (fclose(f) && !ret)
		ret = -1;
	if (!ret && text_index(t))
		ret = -1;
	if (ret) {
		e = errno;
		top_text_free(t);
		errno = e;
	}
	return ret;
}

static FILE *text_open(struct top_text *t)
{
	memset(t, 0, sizeof(*t));
	return open_memstream(&t->buf, &t->len);
}

int top_text_set(struct top_text *t, const char *s)
{
	FILE *f = text_open(t);

	if (!f)
		return -1;
	return text_close(t, f, fputs(s, f) < 0 ? -1 : 0);
}

int top_text_view(struct top_text *t, const struct pmaps_view_opts *opts,
		  struct pmaps_doc *doc)
{
	struct pmaps_view_opts plain = *opts;
	FILE *f = text_open(t);
	int ret;

	if (!f)
		return -1;
	plain.color = false;	/* the screen has attributes of its own */
	ret = pmaps_view(f, &plain, doc, 1);
	if (ret > 0) {
		/* --address found no VMA: keep what the view said */
		if (text_close(t, f, 0))
			return -1;
		errno = ENOENT;
		return -1;
	}
	return text_close(t, f, ret);
}

/* ---- the list ---- */

int top_list_build(struct top_list *l, const struct pmaps_doc *doc,
		   const struct pmaps_map *map, char *err, size_t errlen)
{
	struct pmaps_view_opts opts = { .kind = PMAPS_VIEW_DEFAULT };
	struct pmaps_doc shown = *doc;
	size_t i, j, row = 0;

	memset(l, 0, sizeof(*l));
	l->map = map;
	shown.map = *map;
	if (top_text_view(&l->text, &opts, &shown)) {
		snprintf(err, errlen, "pmaps top: cannot show the list: %s",
			 strerror(errno));
		return -1;
	}
	for (i = 0; i < map->nr_vmas; i++)
		l->nr_rows += 1 + map->vmas[i].nr_ranges;
	/* A title, a line per row and the total line: what view.c prints. */
	if (l->text.nr_lines != l->nr_rows + 2) {
		snprintf(err, errlen,
			 "pmaps top: the default view has %zu lines, expected %zu (title, %zu VMAs and ranges, total)",
			 l->text.nr_lines, l->nr_rows + 2, l->nr_rows);
		top_list_free(l);
		return -1;
	}
	l->rows = malloc((l->nr_rows ? l->nr_rows : 1) * sizeof(*l->rows));
	l->vma_row = malloc((map->nr_vmas ? map->nr_vmas : 1) *
			    sizeof(*l->vma_row));
	if (!l->rows || !l->vma_row) {
		snprintf(err, errlen, "pmaps top: out of memory");
		top_list_free(l);
		return -1;
	}
	for (i = 0; i < map->nr_vmas; i++) {
		l->vma_row[i] = row;
		l->rows[row].vma = i;
		l->rows[row++].range = TOP_NO_RANGE;
		for (j = 0; j < map->vmas[i].nr_ranges; j++) {
			l->rows[row].vma = i;
			l->rows[row++].range = j;
		}
	}
	return 0;
}

void top_list_free(struct top_list *l)
{
	top_text_free(&l->text);
	free(l->rows);
	free(l->vma_row);
	memset(l, 0, sizeof(*l));
}

unsigned long long top_row_addr(const struct top_list *l, size_t row)
{
	const struct top_row *r = &l->rows[row];
	const struct pmaps_vma *v = &l->map->vmas[r->vma];

	if (r->range == TOP_NO_RANGE)
		return v->start;
	return pmaps_range_addr(v, &v->ranges[r->range]);
}

bool top_list_find_addr(const struct top_list *l, unsigned long long addr,
			size_t *row)
{
	const struct pmaps_vma *v = pmaps_find_vma(l->map, addr);
	const struct pmaps_range *r;

	if (!v)
		return false;
	r = pmaps_find_range(v, addr);
	/* the range's row follows its VMA's header and earlier ranges */
	*row = l->vma_row[v - l->map->vmas] +
	       (r ? (size_t)(r - v->ranges) + 1 : 0);
	return true;
}

bool top_list_find_name(const struct top_list *l, size_t from, const char *s,
			size_t *row)
{
	size_t n = l->map->nr_vmas, cur, k;

	if (!n)
		return false;
	cur = from < l->nr_rows ? l->rows[from].vma : n - 1;
	for (k = 1; k <= n; k++) {
		const struct pmaps_vma *v = &l->map->vmas[(cur + k) % n];
		/* as the list shows it */
		const char *name = v->name[0] ? v->name : "[anon]";

		if (strstr(name, s)) {
			*row = l->vma_row[(cur + k) % n];
			return true;
		}
	}
	return false;
}

bool top_map_resident(const struct pmaps_map *map, unsigned long long addr)
{
	const struct pmaps_vma *v = pmaps_find_vma(map, addr);

	return v && pmaps_find_range(v, addr);
}

int top_map_filter(const struct pmaps_map *src,
		   const struct pmaps_flag_expr *expr, struct pmaps_map *dst)
{
	struct pmaps_filter filter = { .has_flags = true, .flags = *expr };
	size_t i;

	dst->nr_vmas = 0;
	/* the copy counts in the same pages (each VMA's is copied too) */
	dst->page_size = src->page_size;
	dst->vmas = calloc(src->nr_vmas ? src->nr_vmas : 1,
			   sizeof(*dst->vmas));
	if (!dst->vmas)
		return -1;
	for (i = 0; i < src->nr_vmas; i++) {
		const struct pmaps_vma *s = &src->vmas[i];
		struct pmaps_vma *d = &dst->vmas[i];
		size_t bytes = s->nr_ranges * sizeof(*s->ranges);

		*d = *s;
		dst->nr_vmas++;
		d->name = strdup(s->name);
		d->header = strdup(s->header);
		d->ranges = bytes ? malloc(bytes) : NULL;
		if (!d->name || !d->header || (bytes && !d->ranges)) {
			pmaps_map_free(dst);
			return -1;
		}
		if (bytes)
			memcpy(d->ranges, s->ranges, bytes);
	}
	pmaps_filter_apply(&filter, dst);
	return 0;
}

/* ---- process statistics ---- */

void top_stats_read(int pid, struct top_stats *s)
{
	char path[64], line[256], stat[1024];
	const char *p;
	size_t n;
	FILE *f;
	int k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < TOP_NR_FIELDS; k++)
		s->kb[k] = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		for (k = 0; k < TOP_NR_FIELDS; k++) {
			size_t len = strlen(top_status_names[k]);

			if (!strncmp(line, top_status_names[k], len) &&
			    line[len] == ':')
				s->kb[k] = strtoll(line + len + 1, NULL, 10);
		}
	}
	fclose(f);

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		goto fail;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	/* comm, in parentheses, may hold anything: count from the last ')' */
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu",
			 &s->minflt, &s->majflt) != 2) {
		snprintf(s->err, sizeof(s->err),
			 "%s: expected the fields of proc(5)", path);
		return;
	}
	s->ok = true;
	return;
fail:
	snprintf(s->err, sizeof(s->err), "%s: %s", path,
		 errno == ENOENT ? "no such process (it has exited)" :
		 strerror(errno));
}

/* ---- hex dump ---- */

static const char *mem_hint(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return " (needs ptrace access: run as root or as the owner of the process)";
	case EIO:
		return " (the kernel cannot read it for another process: e.g. an I/O or PFN mapping such as [vvar], or a file page past the end of its file)";
	case ENOENT:
	case ESRCH:
		return " (the process has exited)";
	default:
		return "";
	}
}

static void dump_line(FILE *f, unsigned long long addr, int aw,
		      const unsigned char *b, size_t n)
{
	char ascii[DUMP_WIDTH + 1];
	size_t i;

	fprintf(f, "%0*llx ", aw, addr);
	for (i = 0; i < DUMP_WIDTH; i++) {
		if (i == DUMP_WIDTH / 2)
			fputc(' ', f);
		if (i < n)
			fprintf(f, " %02x", b[i]);
		else
			fputs("   ", f);
		ascii[i] = i >= n ? ' ' : b[i] >= 0x20 && b[i] < 0x7f ?
			   (char)b[i] : '.';
	}
	ascii[DUMP_WIDTH] = '\0';
	fprintf(f, "  |%.*s|\n", (int)(n < DUMP_WIDTH ? n : DUMP_WIDTH),
		ascii);
}

int top_dump_page(struct top_text *t, int pid, unsigned long long addr,
		  int aw, bool resident, char *err, size_t errlen)
{
	size_t psize = pmaps_page_size(), off;
	unsigned char *buf;
	char path[64];
	ssize_t n = -1;
	int fd, e = 0, starred = 0;
	FILE *f;

	memset(t, 0, sizeof(*t));
	buf = malloc(psize);
	if (!buf) {
		snprintf(err, errlen, "cannot read page 0x%llx: %s", addr,
			 strerror(ENOMEM));
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
	} else {
		/* an offset is signed: user addresses are far below 2^63 */
		if (addr > INT64_MAX - psize)
			errno = EINVAL;
		else
			n = pread(fd, buf, psize, (off_t)addr);
		e = n < 0 ? errno : 0;
		close(fd);
	}
	if (n <= 0) {
		/* 0: the process let go of its memory, i.e. exited */
		snprintf(err, errlen, "cannot read page 0x%llx: %s%s", addr,
			 n ? strerror(e) : "end of file",
			 mem_hint(n ? e : ESRCH));
		free(buf);
		return -1;
	}
	f = text_open(t);
	if (!f) {
		snprintf(err, errlen, "cannot read page 0x%llx: %s", addr,
			 strerror(errno));
		free(buf);
		return -1;
	}
	fprintf(f, "page 0x%llx: %zd bytes read from %s\n", addr, n, path);
	if (!resident)
		fputs("(not resident in the loaded document: this read may have faulted it in)\n",
		      f);
	fputc('\n', f);
	for (off = 0; off < (size_t)n; off += DUMP_WIDTH) {
		size_t len = (size_t)n - off < DUMP_WIDTH ? (size_t)n - off :
			     DUMP_WIDTH;
		bool last = off + DUMP_WIDTH >= (size_t)n;

		/* as hexdump -C: a run of repeated lines is one "*" */
		if (off && !last && len == DUMP_WIDTH &&
		    !memcmp(buf + off, buf + off - DUMP_WIDTH, DUMP_WIDTH)) {
			if (!starred)
				fputs("*\n", f);
			starred = 1;
			continue;
		}
		starred = 0;
		dump_line(f, addr + off, aw, buf + off, len);
	}
	if ((size_t)n < psize)
		fprintf(f, "(only %zd of %zu bytes could be read)\n", n, psize);
	free(buf);
	if (text_close(t, f, 0)) {
		snprintf(err, errlen, "cannot read page 0x%llx: %s", addr,
			 strerror(errno));
		return -1;
	}
	return 0;
}
