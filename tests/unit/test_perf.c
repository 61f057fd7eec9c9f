// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader and the address spaces it rebuilds
 * (userspace/lib/perfdata.c), on files built here record by record: what
 * each record becomes, how mmaps replace, forks copy, execs drop; the
 * exact message for each way a file can be wrong; pipe mode; events told
 * apart by PERF_SAMPLE_IDENTIFIER; and what pmaps record's writer writes
 * reading back the same, snapshots and the unmaps they show included.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../userspace/lib/perfdata.h"
#include "../guest/tap.h"

#define ST_TID_TIME	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define SAMPLE_ID_ALL	(1ULL << 18)
#define MMAP_DATA	(1ULL << 17)
#define MMAP2_BIT	(1ULL << 23)

/* ---- building files ---- */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	unsigned char x[8];

	for (int i = 0; i < 8; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	put(b, x, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	unsigned char x[4];

	for (int i = 0; i < 4; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	put(b, x, 4);
}

static void set64(struct buf *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->p[at + i] = (unsigned char)(v >> (8 * i));
}

/* One perf_event_attr of PMAPS_PERF_ATTR_MIN bytes. */
static void put_attr(struct buf *b, uint64_t sample_type, uint64_t flags)
{
	put32(b, PERF_TYPE_SOFTWARE);
	put32(b, PMAPS_PERF_ATTR_MIN);
	put64(b, PERF_COUNT_SW_DUMMY);
	put64(b, 0);
	put64(b, sample_type);
	put64(b, 0);
	put64(b, flags);
	put64(b, 0);
	put64(b, 0);
}

#define ATTR_SIZE	(PMAPS_PERF_ATTR_MIN + 16)
#define DATA_AT		(PMAPS_PERF_HEADER_SIZE + ATTR_SIZE)

static uint64_t g_sample_type = ST_TID_TIME;

/* The header and one attribute without ids; the data follows. */
static void file_start(struct buf *b, uint64_t flags)
{
	b->len = 0;
	put(b, "PERFILE2", 8);
	put64(b, PMAPS_PERF_HEADER_SIZE);
	put64(b, ATTR_SIZE);
	put64(b, PMAPS_PERF_HEADER_SIZE);	/* attrs */
	put64(b, ATTR_SIZE);
	put64(b, DATA_AT);			/* data */
	put64(b, 0);
	put64(b, 0);				/* event_types */
	put64(b, 0);
	for (int i = 0; i < 4; i++)
		put64(b, 0);
	put_attr(b, g_sample_type, flags);
	put64(b, 0);				/* ids */
	put64(b, 0);
}

static void file_end(struct buf *b)
{
	set64(b, PMAPS_PERF_DATA_OFF + 8, b->len - DATA_AT);
}

static void rec_header(struct buf *b, uint32_t type, uint16_t misc,
		       uint16_t size)
{
	put32(b, type);
	put(b, (unsigned char[]){ misc & 0xff, misc >> 8 }, 2);
	put(b, (unsigned char[]){ size & 0xff, size >> 8 }, 2);
}

static void sample_id(struct buf *b, uint32_t pid, uint64_t time)
{
	put32(b, pid);
	put32(b, pid);
	put64(b, time);
}

/* A string NUL-padded to 8 bytes; its padded size. */
static size_t padded(const char *s)
{
	return (strlen(s) + 8) & ~(size_t)7;
}

static void put_str(struct buf *b, const char *s)
{
	size_t n = strlen(s), p = padded(s);

	put(b, s, n);
	while (n++ < p)
		put(b, "", 1);
}

static void rec_mmap2(struct buf *b, uint32_t pid, uint64_t start,
		      uint64_t len, uint64_t pgoff, uint32_t prot,
		      const char *name, uint64_t time)
{
	rec_header(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
		   (uint16_t)(8 + 64 + padded(name) + 16));
	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, pgoff);
	put32(b, 0xfe);
	put32(b, 1);
	put64(b, name[0] == '/' ? 1234 : 0);
	put64(b, 0);
	put32(b, prot);
	put32(b, MAP_PRIVATE);
	put_str(b, name);
	sample_id(b, pid, time);
}

static void rec_comm(struct buf *b, uint32_t pid, const char *comm,
		     bool exec, uint64_t time)
{
	rec_header(b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
		   (uint16_t)(8 + 8 + padded(comm) + 16));
	put32(b, pid);
	put32(b, pid);
	put_str(b, comm);
	sample_id(b, pid, time);
}

static void rec_task(struct buf *b, uint32_t type, uint32_t pid,
		     uint32_t ppid, uint64_t time)
{
	rec_header(b, type, 0, 8 + 24 + 16);
	put32(b, pid);
	put32(b, ppid);
	put32(b, pid);
	put32(b, ppid);
	put64(b, time);
	sample_id(b, pid, time);
}

/* ---- reading them ---- */

static char err[512];

static int parse(const struct buf *b, struct pmaps_perf_data *d)
{
	return pmaps_perf_parse(b->p, b->len, "t.data", d, err, sizeof(err));
}

/* The maps lines of pid after replaying up to until. */
static char *maps_of(const struct pmaps_perf_data *d, int32_t pid,
		     uint64_t until)
{
	struct pmaps_perf_model m;
	struct pmaps_perf_proc *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	pmaps_perf_model_init(&m, d);
	if (pmaps_perf_replay(&m, until, NULL, NULL))
		fputs("replay failed\n", f);
	p = pmaps_perf_find_proc(&m, pid);
	for (size_t i = 0; p && i < p->nr_maps; i++)
		pmaps_perf_print_maps_line(f, &p->maps[i]);
	fclose(f);
	pmaps_perf_model_free(&m);
	/* one space for the padding before a name: its width is the CLI's */
	for (char *r = text, *w = text; r && (r == text || r[-1]); r++)
		if (!(*r == ' ' && w > text && w[-1] == ' ' && r[1] != '\n' &&
		      r[1]))
			*w++ = *r;
	return text;
}

/* got (freed here) is want */
static void check_text(char *got, const char *want, const char *what)
{
	tap_check(got && !strcmp(got, want),
		  "%s:\n# got:\n%s# expected:\n%s", what, got ? got : "",
		  want);
	free(got);
}

static void test_records(void)
{
	struct buf b = { 0 };
	struct pmaps_perf_data d;
	const struct pmaps_perf_event *ev;
	int ret;

	file_start(&b, SAMPLE_ID_ALL | MMAP_DATA | MMAP2_BIT);
	/* out of time order, as two CPUs' buffers are written */
	rec_mmap2(&b, 10, 0x2000, 0x1000, 0, PROT_READ, "/lib/b", 300);
	rec_comm(&b, 10, "demo", true, 100);
	rec_mmap2(&b, 10, 0x1000, 0x3000, 0x5000, PROT_READ | PROT_EXEC,
		  "/lib/a", 200);
	rec_task(&b, PERF_RECORD_EXIT, 10, 1, 400);
	rec_header(&b, PERF_RECORD_SAMPLE, 0, 16);
	put64(&b, 0);
	file_end(&b);
	ret = parse(&b, &d);
	tap_check(ret == 0, "parse: %d, %s", ret, err);
	tap_check(d.nr_records == 5 && d.nr_samples == 1 && d.nr_events == 4,
		  "records %llu, samples %llu, events %zu",
		  (unsigned long long)d.nr_records,
		  (unsigned long long)d.nr_samples, d.nr_events);
	tap_check(d.timed && d.mmap_data && d.sample_id_all && !d.pipe,
		  "flags: timed %d mmap_data %d sample_id_all %d pipe %d",
		  d.timed, d.mmap_data, d.sample_id_all, d.pipe);
	if (d.nr_events == 4) {
		tap_check(d.events[0].kind == PMAPS_PERF_EV_COMM &&
			  d.events[1].time == 200 && d.events[2].time == 300 &&
			  d.events[3].kind == PMAPS_PERF_EV_EXIT,
			  "events not in time order");
		ev = &d.events[1];
		tap_check(ev->pid == 10 && ev->start == 0x1000 &&
			  ev->len == 0x3000 && ev->pgoff == 0x5000 &&
			  ev->has_prot && ev->prot == (PROT_READ | PROT_EXEC) &&
			  ev->maj == 0xfe && ev->min == 1 && ev->ino == 1234 &&
			  !strcmp(ev->name, "/lib/a") &&
			  ev->offset == DATA_AT + 96 + 40 && !ev->synthesized,
			  "the MMAP2 record read wrong");
	}
	/* b cut into a: a's tail keeps its offset into the file */
	check_text(maps_of(&d, 10, UINT64_MAX),
		   "00001000-00002000 r-xp 00005000 fe:01 1234 /lib/a\n"
		   "00002000-00003000 r--p 00000000 fe:01 1234 /lib/b\n"
		   "00003000-00004000 r-xp 00007000 fe:01 1234 /lib/a\n",
		   "b over a");
	check_text(maps_of(&d, 10, 250),
		   "00001000-00004000 r-xp 00005000 fe:01 1234 /lib/a\n",
		   "--at between");
	pmaps_perf_data_free(&d);
	free(b.p);
	tap_test_done("records read, time-sorted, an mmap replaces what it overlaps");
}

static void test_fork_exec(void)
{
	struct buf b = { 0 };
	struct pmaps_perf_data d;
	struct pmaps_perf_model m;
	struct pmaps_perf_proc *p;

	file_start(&b, SAMPLE_ID_ALL | MMAP2_BIT);
	rec_mmap2(&b, 10, 0x1000, 0x2000, 0, PROT_READ, "/bin/sh", 0);
	rec_mmap2(&b, 10, 0x5000, 0x1000, 0, PROT_READ, "", 0);
	/* the kernel's says where _text is: on no page boundary */
	rec_mmap2(&b, (uint32_t)-1, 0xffff0800, 0x1000, 0xffff0800, PROT_EXEC,
		  "[kernel]", 0);
	rec_task(&b, PERF_RECORD_FORK, 11, 10, 100);
	rec_task(&b, PERF_RECORD_FORK, 10, 10, 110);	/* a thread */
	rec_mmap2(&b, 11, 0x1000, 0x1000, 0, PROT_READ, "/bin/x", 120);
	rec_comm(&b, 12, "other", false, 130);
	rec_comm(&b, 11, "ls", true, 150);
	rec_mmap2(&b, 11, 0x9000, 0x1000, 0, PROT_READ, "/bin/ls", 200);
	rec_task(&b, PERF_RECORD_EXIT, 11, 10, 300);
	file_end(&b);
	tap_check(parse(&b, &d) == 0, "parse: %s", err);
	/* synthesized: perf read them from /proc, time 0 */
	tap_check(d.nr_events > 1 && d.events[0].synthesized &&
		  !d.events[3].synthesized, "synthesized records not told");
	check_text(maps_of(&d, 11, 149),
		   "00001000-00002000 r--p 00000000 fe:01 1234 /bin/x\n"
		   "00002000-00003000 r--p 00001000 fe:01 1234 /bin/sh\n"
		   "00005000-00006000 r--p 00000000 fe:01 0 \n",
		   "the child before exec: the parent's, copied");
	check_text(maps_of(&d, 10, UINT64_MAX),
		   "00001000-00003000 r--p 00000000 fe:01 1234 /bin/sh\n"
		   "00005000-00006000 r--p 00000000 fe:01 0 \n",
		   "the parent: the child's mmap is not its");
	check_text(maps_of(&d, 11, UINT64_MAX),
		   "00009000-0000a000 r--p 00000000 fe:01 1234 /bin/ls\n",
		   "after exec: only what came after, kept after exit");
	pmaps_perf_model_init(&m, &d);
	pmaps_perf_replay(&m, UINT64_MAX, NULL, NULL);
	p = pmaps_perf_find_proc(&m, 11);
	tap_check(p && p->forked && p->execed && p->exited &&
		  p->exit_time == 300 && p->ppid == 10 &&
		  !strcmp(p->comm, "ls") && p->nr_mmaps == 2,
		  "process 11's state");
	p = pmaps_perf_find_proc(&m, 10);
	tap_check(p && p->nr_synthesized == 2 && !p->exited,
		  "process 10's state");
	tap_check(!pmaps_perf_find_proc(&m, -1), "the kernel is no process");
	pmaps_perf_model_free(&m);
	pmaps_perf_data_free(&d);
	free(b.p);
	tap_test_done("fork copies, exec drops, exit keeps, the kernel's apart");
}

/* Parse b, expect ret and exactly msg; the events read then. */
static size_t expect_err(const struct buf *b, int want, const char *msg)
{
	struct pmaps_perf_data d;
	int ret = parse(b, &d);
	size_t n = d.nr_events;

	tap_check(ret == want, "%s: returned %d, expected %d", msg, ret, want);
	tap_check(!strcmp(err, msg), "message:\n#  got      %s\n#  expected %s",
		  err, msg);
	pmaps_perf_data_free(&d);
	return n;
}

static void test_errors(void)
{
	struct buf b = { 0 }, good = { 0 };
	size_t n;

	expect_err(&b, -1, "t.data: expected a perf.data file, got an empty file");
	put(&b, "\x7f" "ELF\2\1\1\0", 8);
	expect_err(&b, -1,
		   "t.data: expected a perf.data file (magic PERFILE2), got 7f 45 4c 46 02 01 01 00 at its start");
	b.len = 0;
	put(&b, "PER", 3);
	expect_err(&b, -1,
		   "t.data: expected a perf.data file (magic PERFILE2), got 50 45 52 (the whole file) at its start");
	b.len = 0;
	put(&b, "2ELIFREP", 8);
	put64(&b, 0);
	expect_err(&b, -1,
		   "t.data: expected a little-endian perf.data, got one written on a big-endian machine (magic 2ELIFREP)");
	b.len = 0;
	put(&b, "PERFFILE", 8);
	expect_err(&b, -1,
		   "t.data: expected perf.data version 2 (magic PERFILE2), got version 1 (PERFFILE), from a perf before Linux 2.6.39");

	file_start(&good, SAMPLE_ID_ALL | MMAP2_BIT);
	rec_mmap2(&good, 10, 0x1000, 0x1000, 0, PROT_READ, "/a", 100);
	rec_mmap2(&good, 10, 0x3000, 0x1000, 0, PROT_READ, "/b", 200);
	file_end(&good);

	b.len = 0;
	put(&b, good.p, 50);
	expect_err(&b, -1, "t.data: truncated: expected a 104-byte header, got 50 bytes");
	b.len = 0;
	put(&b, good.p, good.len);
	set64(&b, 8, 120);
	expect_err(&b, -1,
		   "t.data: expected a header of 104 bytes (or 16 in pipe mode), got a size of 120");
	set64(&b, 8, PMAPS_PERF_HEADER_SIZE);
	set64(&b, 16, 20);
	expect_err(&b, -1,
		   "t.data: header: expected attr_size 80 to 4096 (perf_event_attr and an ids section), got 20");
	set64(&b, 16, ATTR_SIZE);
	set64(&b, PMAPS_PERF_ATTRS_OFF, 1000);
	expect_err(&b, -1,
		   "t.data: truncated: expected the attribute section at 0x3e8-0x438, the file ends at 0x178");
	set64(&b, PMAPS_PERF_ATTRS_OFF, PMAPS_PERF_HEADER_SIZE);
	set64(&b, PMAPS_PERF_HEADER_SIZE + ATTR_SIZE - 8, 12);
	expect_err(&b, -1,
		   "t.data: attribute 0: expected ids of 8 bytes each within the file, got 0xc bytes at 0x0 (the file ends at 0x178)");
	set64(&b, PMAPS_PERF_HEADER_SIZE + ATTR_SIZE - 8, 0);

	/* cut in the second record: the first is kept */
	b.len -= 20;
	n = expect_err(&b, 1,
		       "t.data: truncated: expected the data section at 0xb8-0x178, the file ends at 0x164");
	tap_check(n == 1, "truncated: %zu events kept, expected 1", n);
	b.len = good.len;
	/* a record of size 0 would loop forever */
	b.p[DATA_AT + 96 + 6] = 0;
	n = expect_err(&b, 1,
		       "t.data: offset 0x118: record 2 (PERF_RECORD_MMAP2): expected a size of at least 8, got 0");
	tap_check(n == 1, "size 0: %zu events kept, expected 1", n);
	b.p[DATA_AT + 96 + 6] = 200;
	expect_err(&b, 1,
		   "t.data: offset 0x118: record 2 (PERF_RECORD_MMAP2): expected 200 bytes, got 96 before the end of the data (0x178)");
	/* a record shorter than its type's fields */
	b.p[DATA_AT + 96 + 6] = 40;
	expect_err(&b, 1,
		   "t.data: offset 0x118: record 2 (PERF_RECORD_MMAP2): expected at least 88 bytes, got 40");
	b.p[DATA_AT + 96 + 6] = 96;
	/* an mmap past 2^64 */
	set64(&b, DATA_AT + 96 + 24, UINT64_MAX);
	expect_err(&b, 1,
		   "t.data: offset 0x118: record 2 (PERF_RECORD_MMAP2): expected a range within 64 bits, got 0x3000 + 0xffffffffffffffff");
	/* a process's mmap off the page grid, as no kernel reports one */
	set64(&b, DATA_AT + 96 + 24, 0x800);
	expect_err(&b, 1,
		   "t.data: offset 0x118: record 2 (PERF_RECORD_MMAP2): expected a mapping on 4096-byte pages, got 0x3000 + 0x800 at offset 0x0");
	/* perf record killed before it wrote the data size */
	memcpy(b.p, good.p, good.len);
	set64(&b, PMAPS_PERF_DATA_OFF + 8, 0);
	n = expect_err(&b, 1,
		       "t.data: the header gives the data section no size: perf record did not finish (was it killed?); read up to the end of the file");
	tap_check(n == 2, "killed: %zu events, expected 2", n);
	/* perf record -z */
	b.len = DATA_AT;
	set64(&b, PMAPS_PERF_DATA_OFF + 8, 16);
	rec_header(&b, PMAPS_PERF_RECORD_COMPRESSED, 0, 16);
	put64(&b, 0);
	expect_err(&b, -1,
		   "t.data: offset 0xb8: record 1 (PERF_RECORD_COMPRESSED): expected uncompressed records, got records compressed by perf record -z (record without -z)");
	free(b.p);
	free(good.p);
	tap_test_done("malformed files: exact messages, what could be read kept");
}

static void test_pipe_and_ids(void)
{
	struct buf b = { 0 };
	struct pmaps_perf_data d;
	uint64_t st2 = ST_TID_TIME | PERF_SAMPLE_IDENTIFIER;

	/* pipe mode: the attributes are records */
	put(&b, "PERFILE2", 8);
	put64(&b, PMAPS_PERF_PIPE_HEADER_SIZE);
	rec_header(&b, PMAPS_PERF_RECORD_HEADER_ATTR, 0,
		   8 + PMAPS_PERF_ATTR_MIN + 8);
	put_attr(&b, ST_TID_TIME, SAMPLE_ID_ALL | MMAP2_BIT);
	put64(&b, 77);
	rec_mmap2(&b, 10, 0x1000, 0x1000, 0, PROT_READ, "/a", 100);
	tap_check(parse(&b, &d) == 0 && d.pipe && d.nr_events == 1 &&
		  d.nr_attrs == 1, "pipe mode: %s", err);
	pmaps_perf_data_free(&d);

	/* two events of different layouts: the id, last, tells them */
	b.len = 0;
	put(&b, "PERFILE2", 8);
	put64(&b, PMAPS_PERF_PIPE_HEADER_SIZE);
	rec_header(&b, PMAPS_PERF_RECORD_HEADER_ATTR, 0,
		   8 + PMAPS_PERF_ATTR_MIN + 8);
	put_attr(&b, st2, SAMPLE_ID_ALL);
	put64(&b, 5);
	rec_header(&b, PMAPS_PERF_RECORD_HEADER_ATTR, 0,
		   8 + PMAPS_PERF_ATTR_MIN + 8);
	put_attr(&b, st2 | PERF_SAMPLE_CPU, SAMPLE_ID_ALL);
	put64(&b, 6);
	rec_header(&b, PERF_RECORD_COMM, 0, 8 + 8 + 8 + 32);
	put32(&b, 3);
	put32(&b, 3);
	put_str(&b, "cpu");
	sample_id(&b, 3, 700);		/* TID, TIME */
	put64(&b, 1);			/* CPU */
	put64(&b, 6);			/* IDENTIFIER */
	rec_header(&b, PERF_RECORD_COMM, 0, 8 + 8 + 8 + 24);
	put32(&b, 4);
	put32(&b, 4);
	put_str(&b, "nocpu");
	sample_id(&b, 4, 500);
	put64(&b, 5);
	tap_check(parse(&b, &d) == 0 && d.nr_events == 2, "ids: %s", err);
	if (d.nr_events == 2)
		tap_check(d.events[0].time == 500 && d.events[1].time == 700 &&
			  !strcmp(d.events[1].name, "cpu"),
			  "ids: times %llu %llu",
			  (unsigned long long)d.events[0].time,
			  (unsigned long long)d.events[1].time);
	pmaps_perf_data_free(&d);
	/* an id of no event */
	set64(&b, b.len - 8, 9);
	expect_err(&b, 1,
		   "t.data: offset 0xe8: record 4 (PERF_RECORD_COMM): expected the id of an event, got 9");
	free(b.p);
	tap_test_done("pipe mode; events of two layouts told apart by id");
}

struct seen {
	char text[2048];
	size_t len;
};

static void note(void *arg, const struct pmaps_perf_change *c)
{
	struct seen *s = arg;
	size_t i;

	for (i = 0; i < c->nr_gone && s->len < sizeof(s->text) - 100; i++)
		s->len += (size_t)snprintf(s->text + s->len,
					   sizeof(s->text) - s->len,
					   "%d %llx-%llx %s since %llu\n",
					   c->ev->kind, (unsigned long long)c->gone[i].start,
					   (unsigned long long)c->gone[i].end,
					   c->gone[i].name,
					   (unsigned long long)c->since);
}

static void test_writer(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1, .mmap = 1, .mmap2 = 1, .mmap_data = 1,
	};
	struct pmaps_perf_mapping mp = {
		.start = 0x400000, .end = 0x402000, .pgoff = 0x1000,
		.maj = 8, .min = 1, .ino = 99, .name = "/bin/demo",
	};
	static const char snap1[] =
		"00400000-00402000 r-xp 00001000 08:01 99 /bin/demo\n"
		"00500000-00503000 rw-p 00000000 00:00 0 \n";
	static const char snap2[] =
		"00400000-00402000 r-xp 00001000 08:01 99 /bin/demo\n"
		"00501000-00502000 rw-p 00000000 00:00 0 \n";
	struct pmaps_perf_writer w;
	struct pmaps_perf_data d;
	struct pmaps_perf_model m;
	struct seen seen = { .len = 0 };
	uint64_t ids[] = { 42 };
	char path[] = "/tmp/test_perf.XXXXXX";
	unsigned char *file;
	size_t len;
	int fd = mkstemp(path), ret;

	if (fd < 0) {
		tap_check(0, "mkstemp: %m");
		tap_test_done("the writer's files read back");
		return;
	}
	unlink(path);
	memcpy(mp.perms, "r-xp", 5);
	ret = pmaps_perf_writer_start(&w, fd, &attr, sizeof(attr), ids, 1);
	ret |= pmaps_perf_writer_comm(&w, 7, 7, "demo");
	ret |= pmaps_perf_writer_mmap2(&w, 7, &mp, PROT_READ | PROT_EXEC,
				       MAP_PRIVATE);
	ret |= pmaps_perf_writer_snapshot(&w, 1000, 7, snap1,
					  sizeof(snap1) - 1);
	ret |= pmaps_perf_writer_snapshot(&w, 2000, 7, snap2,
					  sizeof(snap2) - 1);
	ret |= pmaps_perf_writer_finish(&w);
	pmaps_perf_writer_free(&w);
	tap_check(!ret, "writing failed: %m");
	len = (size_t)lseek(fd, 0, SEEK_END);
	file = malloc(len);
	tap_check(file && pread(fd, file, len, 0) == (ssize_t)len, "read back");
	close(fd);
	ret = pmaps_perf_parse(file, len, "w.data", &d, err, sizeof(err));
	tap_check(ret == 0, "parse: %s", err);
	tap_check(d.nr_events == 4 && d.nr_snapshots == 2 && d.mmap_data &&
		  d.nr_attrs == 1, "events %zu, snapshots %zu", d.nr_events,
		  d.nr_snapshots);
	if (d.nr_events == 4) {
		const struct pmaps_perf_event *ev = &d.events[1];

		tap_check(d.events[0].synthesized && ev->synthesized &&
			  ev->start == 0x400000 && ev->len == 0x2000 &&
			  ev->pgoff == 0x1000 && ev->maj == 8 && ev->min == 1 &&
			  ev->ino == 99 && !strcmp(ev->name, "/bin/demo") &&
			  ev->prot == (PROT_READ | PROT_EXEC),
			  "the synthesized MMAP2 read back wrong");
	}
	pmaps_perf_model_init(&m, &d);
	tap_check(!pmaps_perf_replay(&m, UINT64_MAX, note, &seen), "replay");
	/* the second snapshot lacks two pages of the anon mapping */
	tap_check(!strcmp(seen.text,
			  "5 500000-501000  since 1000\n"
			  "5 502000-503000  since 1000\n"),
		  "unmaps seen:\n%s", seen.text);
	pmaps_perf_model_free(&m);
	pmaps_perf_data_free(&d);
	free(file);
	tap_test_done("the writer's files read back, snapshots show unmaps");
}

int main(void)
{
	tap_plan(5);
	test_records();
	test_fork_exec();
	test_errors();
	test_pipe_and_ids();
	test_writer();
	return tap_failed_tests ? 1 : 0;
}
