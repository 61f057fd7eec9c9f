// SPDX-License-Identifier: GPL-2.0
/*
 * Read perf.data (see perfdata.h) and rebuild the address spaces its
 * records describe.
 *
 * Every size and offset is checked against what holds it before it is
 * used: the header's sections against the file, each record's size
 * against the data section and against the fields its type has.  A file
 * cut short, or a record that makes no sense, stops the walk with what
 * was read so far kept; perf does the same.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "le.h"
#include "perfdata.h"

#define REC_HDR		8	/* struct perf_event_header */
#define MMAP_FIXED	32	/* pid, tid, addr, len, pgoff */
#define PERF_MIN_PAGE	4096U	/* the smallest page of any kernel */
#define MMAP2_FIXED	64	/* and maj, min, ino, ino_generation, prot, flags */
#define COMM_FIXED	8	/* pid, tid */
#define TASK_FIXED	24	/* pid, ppid, tid, ptid, time */
#define LOST_FIXED	16	/* id, lost */
#define ATTR_SAMPLE_TYPE 24
#define ATTR_FLAGS	40
/* bits of the flags word of perf_event_attr */
#define ATTR_MMAP		(1ULL << 8)
#define ATTR_TASK		(1ULL << 13)
#define ATTR_MMAP_DATA		(1ULL << 17)
#define ATTR_SAMPLE_ID_ALL	(1ULL << 18)
#define ATTR_MMAP2		(1ULL << 23)

struct attr {
	uint64_t sample_type;
	bool sample_id_all;
	const unsigned char *ids;	/* nr_ids little-endian u64s */
	size_t nr_ids;
};

struct ctx {
	const unsigned char *buf;
	size_t len;
	const char *name;
	struct pmaps_perf_data *d;
	char *err;
	size_t errlen;
	int ret;			/* 0, 1 (partial) or -1 */
	struct attr *attrs;
	size_t nr_attrs, cap_attrs;
	/* one layout of sample_id for all records: no lookup by id */
	bool same_layout;
	uint64_t record;		/* the number of the current record */
	uint64_t seq;			/* file order, for a stable sort */
	uint64_t *order;		/* seq of each event */
	size_t cap_order;
};

static const char *const type_names[] = {
	[PERF_RECORD_MMAP] = "PERF_RECORD_MMAP",
	[PERF_RECORD_LOST] = "PERF_RECORD_LOST",
	[PERF_RECORD_COMM] = "PERF_RECORD_COMM",
	[PERF_RECORD_EXIT] = "PERF_RECORD_EXIT",
	[PERF_RECORD_THROTTLE] = "PERF_RECORD_THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "PERF_RECORD_UNTHROTTLE",
	[PERF_RECORD_FORK] = "PERF_RECORD_FORK",
	[PERF_RECORD_READ] = "PERF_RECORD_READ",
	[PERF_RECORD_SAMPLE] = "PERF_RECORD_SAMPLE",
	[PERF_RECORD_MMAP2] = "PERF_RECORD_MMAP2",
	[PERF_RECORD_AUX] = "PERF_RECORD_AUX",
	[PERF_RECORD_ITRACE_START] = "PERF_RECORD_ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "PERF_RECORD_LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "PERF_RECORD_SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "PERF_RECORD_SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "PERF_RECORD_NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "PERF_RECORD_KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "PERF_RECORD_BPF_EVENT",
	[PERF_RECORD_CGROUP] = "PERF_RECORD_CGROUP",
	[PERF_RECORD_TEXT_POKE] = "PERF_RECORD_TEXT_POKE",
	[PMAPS_PERF_RECORD_HEADER_ATTR] = "PERF_RECORD_HEADER_ATTR",
	[PMAPS_PERF_RECORD_FINISHED_ROUND] = "PERF_RECORD_FINISHED_ROUND",
	[PMAPS_PERF_RECORD_AUXTRACE] = "PERF_RECORD_AUXTRACE",
	[PMAPS_PERF_RECORD_COMPRESSED] = "PERF_RECORD_COMPRESSED",
};

const char *pmaps_perf_type_name(unsigned int type, char *buf, size_t len)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]) &&
	    type_names[type])
		return type_names[type];
	snprintf(buf, len, "type %u", type);
	return buf;
}

/* The first problem is the one reported; ret says how bad. */
__attribute__((format(printf, 3, 4)))
static void problem(struct ctx *c, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* the first problem is told, unless a later one ends the reading */
	if (c->ret && !(ret < 0 && c->ret > 0))
		goto out;
	if (c->err && c->errlen) {
		n = snprintf(c->err, c->errlen, "%s: ", c->name);
		if (n >= 0 && (size_t)n < c->errlen) {
			va_start(ap, fmt);
			vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
out:
	if (!c->ret || ret < 0)
		c->ret = ret;
}

/* A problem with the record at off: its number and type lead. */
__attribute__((format(printf, 5, 6)))
static void bad_record(struct ctx *c, int ret, uint64_t off,
		       unsigned int type, const char *fmt, ...)
{
	char msg[256], tn[24];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	problem(c, ret, "offset 0x%llx: record %llu (%s): %s",
		(unsigned long long)off, (unsigned long long)c->record,
		pmaps_perf_type_name(type, tn, sizeof(tn)), msg);
}

/* Whether [off, off + size) is inside the file. */
static bool in_file(const struct ctx *c, uint64_t off, uint64_t size)
{
	return off <= c->len && size <= c->len - off;
}

static size_t id_size(uint64_t st)
{
	size_t n = 0;

	n += !!(st & PERF_SAMPLE_TID);
	n += !!(st & PERF_SAMPLE_TIME);
	n += !!(st & PERF_SAMPLE_ID);
	n += !!(st & PERF_SAMPLE_STREAM_ID);
	n += !!(st & PERF_SAMPLE_CPU);
	n += !!(st & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

static int add_attr(struct ctx *c, const unsigned char *a, size_t alen,
		    const unsigned char *ids, size_t nr_ids)
{
	struct attr *at;
	uint64_t flags;

	if (pmaps_grow_array((void **)&c->attrs, &c->cap_attrs,
			     c->nr_attrs + 1, sizeof(*c->attrs))) {
		problem(c, -1, "out of memory");
		return -1;
	}
	(void)alen;	/* >= PMAPS_PERF_ATTR_MIN: the caller checked */
	at = &c->attrs[c->nr_attrs++];
	at->sample_type = le64(a + ATTR_SAMPLE_TYPE);
	flags = le64(a + ATTR_FLAGS);
	at->sample_id_all = flags & ATTR_SAMPLE_ID_ALL;
	at->ids = ids;
	at->nr_ids = nr_ids;
	c->d->nr_attrs = c->nr_attrs;
	c->d->sample_id_all |= at->sample_id_all;
	c->d->mmap_data |= !!(flags & ATTR_MMAP_DATA);
	c->d->mmap2 |= !!(flags & ATTR_MMAP2);
	c->d->task |= !!(flags & ATTR_TASK);
	/*
	 * perf reads a record's sample_id by one layout when all events
	 * share it, else by the id PERF_SAMPLE_IDENTIFIER puts last.
	 */
	c->same_layout = true;
	for (size_t i = 1; i < c->nr_attrs; i++)
		if (c->attrs[i].sample_type != c->attrs[0].sample_type ||
		    c->attrs[i].sample_id_all != c->attrs[0].sample_id_all)
			c->same_layout = false;
	return 0;
}

/* The attribute whose layout the sample_id at the end of rec has. */
static const struct attr *record_attr(struct ctx *c, uint64_t off,
				      unsigned int type,
				      const unsigned char *rec, size_t size)
{
	uint64_t id;
	size_t i, j;

	if (!c->nr_attrs) {
		bad_record(c, 1, off, type,
			   "expected an event attribute before it, got none");
		return NULL;
	}
	if (c->same_layout)
		return &c->attrs[0];
	for (i = 0; i < c->nr_attrs; i++) {
		if (!(c->attrs[i].sample_type & PERF_SAMPLE_IDENTIFIER) ||
		    !c->attrs[i].sample_id_all) {
			problem(c, -1,
				"expected events of one sample_type, or all with PERF_SAMPLE_IDENTIFIER, got event %zu with sample_type 0x%llx",
				i,
				(unsigned long long)c->attrs[i].sample_type);
			return NULL;
		}
	}
	if (size < REC_HDR + 8) {
		bad_record(c, 1, off, type,
			   "expected a sample_id, got %zu bytes", size);
		return NULL;
	}
	id = le64(rec + size - 8);
	for (i = 0; i < c->nr_attrs; i++)
		for (j = 0; j < c->attrs[i].nr_ids; j++)
			if (le64(c->attrs[i].ids + 8 * j) == id)
				return &c->attrs[i];
	bad_record(c, 1, off, type, "expected the id of an event, got %llu",
		   (unsigned long long)id);
	return NULL;
}

static struct pmaps_perf_event *new_event(struct ctx *c,
					  enum pmaps_perf_kind kind,
					  uint64_t off, unsigned int type,
					  unsigned int misc)
{
	struct pmaps_perf_data *d = c->d;
	struct pmaps_perf_event *ev;

	if (pmaps_grow_array((void **)&d->events, &d->cap_events,
			     d->nr_events + 1, sizeof(*d->events)) ||
	    pmaps_grow_array((void **)&c->order, &c->cap_order,
			     d->nr_events + 1, sizeof(*c->order))) {
		problem(c, -1, "out of memory");
		return NULL;
	}
	ev = &d->events[d->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->type = type;
	ev->misc = misc;
	ev->offset = off;
	c->order[d->nr_events] = c->seq++;
	d->nr_events++;
	return ev;
}

/* The string in [p, p + n), up to its NUL, copied. */
static int set_name(struct ctx *c, struct pmaps_perf_event *ev,
		    const unsigned char *p, size_t n)
{
	const unsigned char *nul = memchr(p, '\0', n);
	size_t len = nul ? (size_t)(nul - p) : n;

	ev->name = malloc(len + 1);
	if (!ev->name) {
		problem(c, -1, "out of memory");
		return -1;
	}
	memcpy(ev->name, p, len);
	ev->name[len] = '\0';
	ev->name_len = len;
	return 0;
}

/* The sample_id of at, read from the end of the record's body. */
static void read_sample_id(const struct attr *at, struct pmaps_perf_event *ev,
			   const unsigned char *p)
{
	uint64_t st = at->sample_type;

	if (st & PERF_SAMPLE_TID)
		p += 8;
	if (st & PERF_SAMPLE_TIME) {
		ev->time = le64(p);
		ev->has_time = true;
	}
}

/*
 * One record of the data section, at off, size bytes (checked to be in
 * the file, at least REC_HDR).  -1 stops the walk.
 */
static int do_record(struct ctx *c, uint64_t off, const unsigned char *rec,
		     size_t size)
{
	unsigned int type = le32(rec), misc = le16(rec + 4);
	const unsigned char *b = rec + REC_HDR;
	size_t blen = size - REC_HDR, fixed, ids = 0;
	const struct attr *at = NULL;
	struct pmaps_perf_event *ev;
	enum pmaps_perf_kind kind;

	c->d->nr_records++;
	switch (type) {
	case PERF_RECORD_MMAP:
		kind = PMAPS_PERF_EV_MMAP;
		fixed = MMAP_FIXED;
		break;
	case PERF_RECORD_MMAP2:
		kind = PMAPS_PERF_EV_MMAP;
		fixed = MMAP2_FIXED;
		break;
	case PERF_RECORD_COMM:
		kind = PMAPS_PERF_EV_COMM;
		fixed = COMM_FIXED;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		kind = type == PERF_RECORD_FORK ? PMAPS_PERF_EV_FORK :
		       PMAPS_PERF_EV_EXIT;
		fixed = TASK_FIXED;
		break;
	case PERF_RECORD_LOST:
		kind = PMAPS_PERF_EV_LOST;
		fixed = LOST_FIXED;
		break;
	case PERF_RECORD_SAMPLE:
		c->d->nr_samples++;
		return 0;
	case PMAPS_PERF_RECORD_HEADER_ATTR:
		/* pipe mode: perf_event_attr (its size in it), then ids */
		if (blen < PMAPS_PERF_ATTR_MIN || le32(b + 4) < PMAPS_PERF_ATTR_MIN ||
		    le32(b + 4) > blen || (blen - le32(b + 4)) % 8) {
			bad_record(c, -1, off, type,
				   "expected a perf_event_attr of at least %d bytes and 8-byte ids in %zu bytes, got attr.size %u",
				   PMAPS_PERF_ATTR_MIN, blen, le32(b + 4));
			return -1;
		}
		return add_attr(c, b, le32(b + 4), b + le32(b + 4),
				(blen - le32(b + 4)) / 8);
	case PMAPS_PERF_RECORD_COMPRESSED:
		bad_record(c, -1, off, type,
			   "expected uncompressed records, got records compressed by perf record -z (record without -z)");
		return -1;
	default:
		c->d->nr_skipped++;
		return 0;
	}

	if (c->d->sample_id_all) {
		at = record_attr(c, off, type, rec, size);
		if (!at)
			return c->ret < 0 ? -1 : 0;
		if (at->sample_id_all)
			ids = id_size(at->sample_type);
	}
	if (blen < fixed + ids) {
		bad_record(c, 1, off, type,
			   "expected at least %zu bytes, got %zu",
			   REC_HDR + fixed + ids, size);
		c->d->bad_records++;
		return 0;
	}
	ev = new_event(c, kind, off, type, misc);
	if (!ev)
		return -1;
	if (ids)
		read_sample_id(at, ev, b + blen - ids);
	blen -= ids;
	switch (kind) {
	case PMAPS_PERF_EV_MMAP:
		ev->pid = (int32_t)le32(b);
		ev->tid = (int32_t)le32(b + 4);
		ev->start = le64(b + 8);
		ev->len = le64(b + 16);
		ev->pgoff = le64(b + 24);
		if (type == PERF_RECORD_MMAP2) {
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				ev->build_id_size = b[32] <= 20 ? b[32] : 20;
				memcpy(ev->build_id, b + 36, 20);
			} else {
				ev->maj = le32(b + 32);
				ev->min = le32(b + 36);
				ev->ino = le64(b + 40);
				ev->ino_generation = le64(b + 48);
			}
			ev->has_prot = true;
			ev->prot = le32(b + 56);
			ev->flags = le32(b + 60);
		}
		if (!ev->len || ev->len > UINT64_MAX - ev->start) {
			c->d->nr_events--;
			c->d->bad_records++;
			bad_record(c, 1, off, type,
				   "expected a range within 64 bits, got 0x%llx + 0x%llx",
				   (unsigned long long)ev->start,
				   (unsigned long long)ev->len);
			return 0;
		}
		/*
		 * A process's mapping starts, ends and is offset on pages, of
		 * 4096 bytes at least on any kernel.  The kernel's own (pid
		 * -1) say where _text is, and are not read as mappings.
		 */
		if (ev->pid != -1 &&
		    ((ev->start | ev->len | ev->pgoff) & (PERF_MIN_PAGE - 1))) {
			c->d->nr_events--;
			c->d->bad_records++;
			bad_record(c, 1, off, type,
				   "expected a mapping on %u-byte pages, got 0x%llx + 0x%llx at offset 0x%llx",
				   PERF_MIN_PAGE,
				   (unsigned long long)ev->start,
				   (unsigned long long)ev->len,
				   (unsigned long long)ev->pgoff);
			return 0;
		}
		break;
	case PMAPS_PERF_EV_COMM:
		ev->pid = (int32_t)le32(b);
		ev->tid = (int32_t)le32(b + 4);
		break;
	case PMAPS_PERF_EV_FORK:
	case PMAPS_PERF_EV_EXIT:
		ev->pid = (int32_t)le32(b);
		ev->ppid = (int32_t)le32(b + 4);
		ev->tid = (int32_t)le32(b + 8);
		ev->ptid = (int32_t)le32(b + 12);
		/* their own time, where no sample_id has one */
		if (!ev->has_time) {
			ev->time = le64(b + 16);
			ev->has_time = true;
		}
		break;
	case PMAPS_PERF_EV_LOST:
		ev->lost = le64(b + 8);
		c->d->lost += ev->lost;
		break;
	default:
		break;
	}
	/* perf writes what it read from /proc with a sample_id of zeros */
	ev->synthesized = ids && ev->has_time && !ev->time &&
			  kind != PMAPS_PERF_EV_EXIT;
	if (kind == PMAPS_PERF_EV_MMAP || kind == PMAPS_PERF_EV_COMM)
		return set_name(c, ev, b + fixed, blen - fixed);
	return 0;
}

/* The records in [pos, end) of the file. */
static void walk(struct ctx *c, uint64_t pos, uint64_t end)
{
	while (pos < end && c->ret >= 0) {
		const unsigned char *rec = c->buf + pos;
		unsigned int type;
		uint64_t size;
		char tn[24];

		c->record++;
		if (end - pos < REC_HDR) {
			problem(c, 1,
				"offset 0x%llx: record %llu: expected an %d-byte record header, got %llu bytes before the end of the data (0x%llx)",
				(unsigned long long)pos,
				(unsigned long long)c->record, REC_HDR,
				(unsigned long long)(end - pos),
				(unsigned long long)end);
			return;
		}
		type = le32(rec);
		size = le16(rec + 6);
		if (size < REC_HDR) {
			bad_record(c, 1, pos, type,
				   "expected a size of at least %d, got %llu",
				   REC_HDR, (unsigned long long)size);
			return;
		}
		if (size > end - pos) {
			bad_record(c, 1, pos, type,
				   "expected %llu bytes, got %llu before the end of the data (0x%llx)",
				   (unsigned long long)size,
				   (unsigned long long)(end - pos),
				   (unsigned long long)end);
			return;
		}
		if (type == PMAPS_PERF_RECORD_AUXTRACE) {
			/* its trace data follows, outside header.size */
			uint64_t more = size >= REC_HDR + 8 ? le64(rec + 8) : 0;

			if (more > end - pos - size) {
				problem(c, 1,
					"offset 0x%llx: record %llu (%s): expected %llu bytes of trace data after it, got %llu",
					(unsigned long long)pos,
					(unsigned long long)c->record,
					pmaps_perf_type_name(type, tn, sizeof(tn)),
					(unsigned long long)more,
					(unsigned long long)(end - pos - size));
				return;
			}
			size += more;
		}
		if (do_record(c, pos, rec, (size_t)(type == PMAPS_PERF_RECORD_AUXTRACE ?
						     le16(rec + 6) : size)) < 0)
			return;
		pos += size;
	}
}

/* The snapshots of pmaps record, in the feature section [off, off+size). */
static void read_snapshots(struct ctx *c, uint64_t off, uint64_t size)
{
	const size_t magic = sizeof(PMAPS_PERF_SNAPSHOT_MAGIC) - 1;
	uint64_t pos, end = off + size;

	if (size < magic ||
	    memcmp(c->buf + off, PMAPS_PERF_SNAPSHOT_MAGIC, magic))
		return;		/* some other feature with this bit */
	for (pos = off + magic; pos < end;) {
		struct pmaps_perf_event *ev;
		uint64_t len;

		if (end - pos < 16) {
			problem(c, 1,
				"offset 0x%llx: snapshot %zu: expected a 16-byte header, got %llu bytes before the end of its section (0x%llx)",
				(unsigned long long)pos, c->d->nr_snapshots + 1,
				(unsigned long long)(end - pos),
				(unsigned long long)end);
			return;
		}
		len = le32(c->buf + pos + 12);
		if (len > end - pos - 16) {
			problem(c, 1,
				"offset 0x%llx: snapshot %zu: expected %llu bytes of text, got %llu before the end of its section (0x%llx)",
				(unsigned long long)pos, c->d->nr_snapshots + 1,
				(unsigned long long)len,
				(unsigned long long)(end - pos - 16),
				(unsigned long long)end);
			return;
		}
		ev = new_event(c, PMAPS_PERF_EV_SNAPSHOT, pos, 0, 0);
		if (!ev)
			return;
		ev->time = le64(c->buf + pos);
		ev->has_time = true;
		ev->pid = ev->tid = (int32_t)le32(c->buf + pos + 8);
		ev->name = malloc((size_t)len + 1);
		if (!ev->name) {
			problem(c, -1, "out of memory");
			return;
		}
		memcpy(ev->name, c->buf + pos + 16, (size_t)len);
		ev->name[len] = '\0';
		ev->name_len = (size_t)len;
		c->d->nr_snapshots++;
		pos += 16 + ((len + 7) & ~7ULL);
	}
}

/* The feature sections follow the data: one (offset, size) a bit set. */
static void read_features(struct ctx *c, uint64_t data_end)
{
	const unsigned char *bits = c->buf + PMAPS_PERF_FEATURES_OFF;
	unsigned int i, index = 0;
	uint64_t sec, off, size;

	if (!(bits[PMAPS_PERF_FEAT_SNAPSHOTS / 8] &
	      1u << (PMAPS_PERF_FEAT_SNAPSHOTS % 8)))
		return;
	for (i = 0; i < PMAPS_PERF_FEAT_SNAPSHOTS; i++)
		index += !!(bits[i / 8] & 1u << (i % 8));
	sec = data_end + 16ULL * index;
	if (!in_file(c, data_end, 16ULL * (index + 1))) {
		problem(c, 1,
			"expected the table of feature sections at 0x%llx-0x%llx, the file ends at 0x%zx",
			(unsigned long long)data_end,
			(unsigned long long)(sec + 16), c->len);
		return;
	}
	off = le64(c->buf + sec);
	size = le64(c->buf + sec + 8);
	if (!in_file(c, off, size)) {
		problem(c, 1,
			"expected the snapshot section at 0x%llx-0x%llx, the file ends at 0x%zx",
			(unsigned long long)off,
			(unsigned long long)off + size, c->len);
		return;
	}
	read_snapshots(c, off, size);
}

/* The header's attribute section, each with its ids. */
static int read_attrs(struct ctx *c)
{
	uint64_t attr_size = le64(c->buf + 16);
	uint64_t off = le64(c->buf + PMAPS_PERF_ATTRS_OFF);
	uint64_t size = le64(c->buf + PMAPS_PERF_ATTRS_OFF + 8), i;

	if (attr_size < PMAPS_PERF_ATTR_MIN + 16 || attr_size > 4096) {
		problem(c, -1,
			"header: expected attr_size %d to 4096 (perf_event_attr and an ids section), got %llu",
			PMAPS_PERF_ATTR_MIN + 16, (unsigned long long)attr_size);
		return -1;
	}
	if (!size || size % attr_size) {
		problem(c, -1,
			"header: expected an attribute section of whole attributes of %llu bytes, got %llu bytes",
			(unsigned long long)attr_size,
			(unsigned long long)size);
		return -1;
	}
	if (!in_file(c, off, size)) {
		problem(c, -1,
			"truncated: expected the attribute section at 0x%llx-0x%llx, the file ends at 0x%zx",
			(unsigned long long)off,
			(unsigned long long)(off + size), c->len);
		return -1;
	}
	for (i = 0; i < size / attr_size; i++) {
		const unsigned char *a = c->buf + off + i * attr_size;
		uint64_t ids = le64(a + attr_size - 16);
		uint64_t ids_size = le64(a + attr_size - 8);

		if (ids_size % 8 || !in_file(c, ids, ids_size)) {
			problem(c, -1,
				"attribute %llu: expected ids of 8 bytes each within the file, got 0x%llx bytes at 0x%llx (the file ends at 0x%zx)",
				(unsigned long long)i,
				(unsigned long long)ids_size,
				(unsigned long long)ids, c->len);
			return -1;
		}
		if (add_attr(c, a, (size_t)attr_size - 16, c->buf + ids,
			     (size_t)(ids_size / 8)))
			return -1;
	}
	return 0;
}

/* A stable sort by time: the sequence number breaks ties. */
struct sort_item {
	uint64_t time, seq;
	size_t index;
};

static int cmp_item(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int sort_events(struct ctx *c)
{
	struct pmaps_perf_data *d = c->d;
	struct pmaps_perf_event *sorted;
	struct sort_item *items;
	size_t i;

	d->timed = true;
	for (i = 0; i < d->nr_events; i++)
		if (!d->events[i].has_time)
			d->timed = false;
	if (!d->timed || d->nr_events < 2)
		return 0;
	items = malloc(d->nr_events * sizeof(*items));
	sorted = malloc(d->nr_events * sizeof(*sorted));
	if (!items || !sorted) {
		free(items);
		free(sorted);
		problem(c, -1, "out of memory");
		return -1;
	}
	for (i = 0; i < d->nr_events; i++) {
		items[i].time = d->events[i].time;
		items[i].seq = c->order[i];
		items[i].index = i;
	}
	qsort(items, d->nr_events, sizeof(*items), cmp_item);
	for (i = 0; i < d->nr_events; i++)
		sorted[i] = d->events[items[i].index];
	memcpy(d->events, sorted, d->nr_events * sizeof(*sorted));
	free(items);
	free(sorted);
	return 0;
}

static int check_magic(struct ctx *c)
{
	static const char magic[] = "PERFILE2", swapped[] = "2ELIFREP";
	size_t n = c->len < 8 ? c->len : 8, i;
	char shown[8 * 4 + 1];

	if (n == 8 && !memcmp(c->buf, magic, 8))
		return 0;
	if (n == 8 && !memcmp(c->buf, swapped, 8)) {
		problem(c, -1,
			"expected a little-endian perf.data, got one written on a big-endian machine (magic 2ELIFREP)");
		return -1;
	}
	if (n == 8 && !memcmp(c->buf, "PERFFILE", 8)) {
		problem(c, -1,
			"expected perf.data version 2 (magic PERFILE2), got version 1 (PERFFILE), from a perf before Linux 2.6.39");
		return -1;
	}
	if (!n) {
		problem(c, -1, "expected a perf.data file, got an empty file");
		return -1;
	}
	for (i = 0; i < n; i++)
		snprintf(shown + (i ? 3 * i - 1 : 0), 4, "%s%02x",
			 i ? " " : "", c->buf[i]);
	problem(c, -1,
		"expected a perf.data file (magic PERFILE2), got %s%s at its start",
		shown, n < 8 ? " (the whole file)" : "");
	return -1;
}

int pmaps_perf_parse(const void *buf, size_t len, const char *name,
		     struct pmaps_perf_data *out, char *err, size_t errlen)
{
	struct ctx c = {
		.buf = buf, .len = len, .name = name ? name : "-", .d = out,
		.err = err, .errlen = errlen,
	};
	uint64_t hsize, off, size;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (check_magic(&c))
		goto out;
	if (len < 16) {
		problem(&c, -1,
			"truncated: expected a header of at least 16 bytes, got %zu",
			len);
		goto out;
	}
	hsize = le64(c.buf + 8);
	if (hsize == PMAPS_PERF_PIPE_HEADER_SIZE) {
		out->pipe = true;
		walk(&c, PMAPS_PERF_PIPE_HEADER_SIZE, len);
		goto sort;
	}
	if (hsize != PMAPS_PERF_HEADER_SIZE) {
		problem(&c, -1,
			"expected a header of %d bytes (or %d in pipe mode), got a size of %llu",
			PMAPS_PERF_HEADER_SIZE, PMAPS_PERF_PIPE_HEADER_SIZE,
			(unsigned long long)hsize);
		goto out;
	}
	if (len < PMAPS_PERF_HEADER_SIZE) {
		problem(&c, -1,
			"truncated: expected a %d-byte header, got %zu bytes",
			PMAPS_PERF_HEADER_SIZE, len);
		goto out;
	}
	if (read_attrs(&c))
		goto out;
	off = le64(c.buf + PMAPS_PERF_DATA_OFF);
	size = le64(c.buf + PMAPS_PERF_DATA_OFF + 8);
	if (off > len) {
		problem(&c, -1,
			"truncated: expected the data section at 0x%llx, the file ends at 0x%zx",
			(unsigned long long)off, len);
		goto out;
	}
	if (!size && off < len) {
		/* perf record writes the size last: killed before then */
		problem(&c, 1,
			"the header gives the data section no size: perf record did not finish (was it killed?); read up to the end of the file");
		walk(&c, off, len);
	} else if (size > len - off) {
		problem(&c, 1,
			"truncated: expected the data section at 0x%llx-0x%llx, the file ends at 0x%zx",
			(unsigned long long)off,
			(unsigned long long)(off + size), len);
		walk(&c, off, len);
	} else {
		walk(&c, off, off + size);
		if (c.ret >= 0)
			read_features(&c, off + size);
	}
sort:
	if (c.ret >= 0)
		sort_events(&c);
out:
	free(c.attrs);
	free(c.order);
	return c.ret;
}

void pmaps_perf_data_free(struct pmaps_perf_data *d)
{
	size_t i;

	for (i = 0; i < d->nr_events; i++)
		free(d->events[i].name);
	free(d->events);
	memset(d, 0, sizeof(*d));
}

/* ---- the model ---- */

void pmaps_perf_model_init(struct pmaps_perf_model *m,
			   const struct pmaps_perf_data *d)
{
	memset(m, 0, sizeof(*m));
	m->data = d;
}

static void proc_free(struct pmaps_perf_proc *p)
{
	free(p->maps);
	if (p->has_snap)
		pmaps_map_free(&p->snap);
}

void pmaps_perf_model_free(struct pmaps_perf_model *m)
{
	size_t i;

	for (i = 0; i < m->nr_procs; i++)
		proc_free(&m->procs[i]);
	free(m->procs);
	memset(m, 0, sizeof(*m));
}

struct pmaps_perf_proc *pmaps_perf_find_proc(struct pmaps_perf_model *m,
					     int32_t pid)
{
	size_t i;

	for (i = m->nr_procs; i-- > 0;)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

static struct pmaps_perf_proc *new_proc(struct pmaps_perf_model *m,
					int32_t pid)
{
	struct pmaps_perf_proc *p;

	if (pmaps_grow_array((void **)&m->procs, &m->cap_procs,
			     m->nr_procs + 1, sizeof(*m->procs)))
		return NULL;
	p = &m->procs[m->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = -1;
	p->comm = "";
	return p;
}

static struct pmaps_perf_proc *get_proc(struct pmaps_perf_model *m,
					int32_t pid)
{
	struct pmaps_perf_proc *p = pmaps_perf_find_proc(m, pid);

	return p ? p : new_proc(m, pid);
}

/* "r-xp" from MMAP2's prot and flags; MMAP has none: perf's guess. */
static void set_perms(struct pmaps_perf_mapping *mp,
		      const struct pmaps_perf_event *ev)
{
	uint32_t prot = ev->prot;

	if (!ev->has_prot)
		prot = ev->misc & PERF_RECORD_MISC_MMAP_DATA ? PROT_READ :
		       PROT_READ | PROT_EXEC;
	mp->perms[0] = prot & PROT_READ ? 'r' : '-';
	mp->perms[1] = prot & PROT_WRITE ? 'w' : '-';
	mp->perms[2] = prot & PROT_EXEC ? 'x' : '-';
	/* MAP_SHARED, or MAP_SHARED_VALIDATE (3) */
	mp->perms[3] = ev->has_prot && (ev->flags & 3) != MAP_PRIVATE &&
		       (ev->flags & 3) ? 's' : 'p';
	mp->perms[4] = '\0';
}

void pmaps_perf_mapping_of(struct pmaps_perf_mapping *mp,
			   const struct pmaps_perf_event *ev)
{
	memset(mp, 0, sizeof(*mp));
	mp->start = ev->start;
	mp->end = ev->start + ev->len;
	mp->pgoff = ev->pgoff;
	set_perms(mp, ev);
	mp->maj = ev->maj;
	mp->min = ev->min;
	mp->ino = ev->ino;
	/* perf's name for anonymous memory; maps shows none */
	mp->name = strcmp(ev->name, "//anon") ? ev->name : "";
	mp->ev = ev;
}

/* Scratch arrays of the replay: what an event removed, the new list. */
struct scratch {
	struct pmaps_perf_mapping *gone, *next;
	size_t nr_gone, cap_gone, nr_next, cap_next;
};

static int push(struct pmaps_perf_mapping **a, size_t *nr, size_t *cap,
		const struct pmaps_perf_mapping *mp)
{
	if (pmaps_grow_array((void **)a, cap, *nr + 1, sizeof(**a)))
		return -1;
	(*a)[(*nr)++] = *mp;
	return 0;
}

/*
 * Cut [start, end) out of p's mappings, the whole of each one it touches
 * pushed on s->gone when gone_whole, else the parts cut; then insert add,
 * if any, in address order.
 */
static int cut(struct pmaps_perf_proc *p, struct scratch *s, uint64_t start,
	       uint64_t end, const struct pmaps_perf_mapping *add,
	       bool gone_whole)
{
	struct pmaps_perf_mapping *tmp;
	size_t i, cap;
	bool added = false;

	s->nr_next = 0;
	for (i = 0; i < p->nr_maps; i++) {
		struct pmaps_perf_mapping mp = p->maps[i], part;

		if (add && !added && mp.start >= end) {
			if (push(&s->next, &s->nr_next, &s->cap_next, add))
				return -1;
			added = true;
		}
		if (mp.end <= start || mp.start >= end) {
			if (push(&s->next, &s->nr_next, &s->cap_next, &mp))
				return -1;
			continue;
		}
		part = mp;
		if (part.start < start)
			part.start = start;
		if (part.end > end)
			part.end = end;
		part.pgoff = mp.pgoff + (part.start - mp.start);
		if (push(&s->gone, &s->nr_gone, &s->cap_gone,
			 gone_whole ? &mp : &part))
			return -1;
		if (mp.start < start) {
			part = mp;
			part.end = start;
			if (push(&s->next, &s->nr_next, &s->cap_next, &part))
				return -1;
		}
		if (add && !added) {
			if (push(&s->next, &s->nr_next, &s->cap_next, add))
				return -1;
			added = true;
		}
		if (mp.end > end) {
			part = mp;
			part.start = end;
			part.pgoff = mp.pgoff + (end - mp.start);
			if (push(&s->next, &s->nr_next, &s->cap_next, &part))
				return -1;
		}
	}
	if (add && !added &&
	    push(&s->next, &s->nr_next, &s->cap_next, add))
		return -1;
	/* swap the lists: p keeps the new one, s the old for next time */
	tmp = p->maps;
	cap = p->cap_maps;
	p->maps = s->next;
	p->cap_maps = s->cap_next;
	p->nr_maps = s->nr_next;
	s->next = tmp;
	s->cap_next = cap;
	return 0;
}

static int copy_maps(struct pmaps_perf_proc *to,
		     const struct pmaps_perf_proc *from)
{
	size_t n = from->nr_maps;

	to->nr_maps = 0;
	if (!n)
		return 0;
	if (pmaps_grow_array((void **)&to->maps, &to->cap_maps, n,
			     sizeof(*to->maps)))
		return -1;
	memcpy(to->maps, from->maps, n * sizeof(*to->maps));
	to->nr_maps = n;
	return 0;
}

/*
 * A snapshot map of p: what p's last one mapped that this one does not
 * was unmapped in between.  Those ranges go into s->gone (their names
 * are the old snapshot's), and are cut from p's mappings too.
 */
static int diff_snapshot(struct pmaps_perf_proc *p, struct scratch *s,
			 const struct pmaps_map *map)
{
	struct scratch found = { 0 };
	size_t i, j = 0, k;
	int ret = -1;

	for (i = 0; p->has_snap && i < p->snap.nr_vmas; i++) {
		const struct pmaps_vma *v = &p->snap.vmas[i];
		uint64_t at = v->start;

		while (j < map->nr_vmas && map->vmas[j].end <= at)
			j++;
		/* the parts of v that no VMA of map covers */
		for (k = j; at < v->end; k++) {
			bool more = k < map->nr_vmas &&
				    map->vmas[k].start < v->end;
			uint64_t to = more ? map->vmas[k].start : v->end;
			struct pmaps_perf_mapping g;

			if (to > at) {
				memset(&g, 0, sizeof(g));
				g.start = at;
				g.end = to;
				g.pgoff = v->offset + (at - v->start);
				memcpy(g.perms, v->perms, sizeof(g.perms));
				g.maj = v->dev_major;
				g.min = v->dev_minor;
				g.ino = v->inode;
				g.name = v->name;
				if (push(&found.gone, &found.nr_gone,
					 &found.cap_gone, &g))
					goto out;
			}
			if (!more)
				break;
			if (map->vmas[k].end > at)
				at = map->vmas[k].end;
		}
	}
	for (i = 0; i < found.nr_gone; i++)
		if (cut(p, s, found.gone[i].start, found.gone[i].end, NULL,
			false))
			goto out;
	/* reported: the ranges found gone, not the parts cut */
	s->nr_gone = 0;
	for (i = 0; i < found.nr_gone; i++)
		if (push(&s->gone, &s->nr_gone, &s->cap_gone, &found.gone[i]))
			goto out;
	ret = 0;
out:
	free(found.gone);
	return ret;
}

int pmaps_perf_replay(struct pmaps_perf_model *m, uint64_t until,
		      pmaps_perf_cb *cb, void *arg)
{
	const struct pmaps_perf_data *d = m->data;
	struct scratch s = { 0 };
	int ret = 0;

	for (; m->applied < d->nr_events; m->applied++) {
		const struct pmaps_perf_event *ev = &d->events[m->applied];
		struct pmaps_perf_change ch = { .ev = ev };
		struct pmaps_perf_proc *p = NULL, *parent;
		struct pmaps_map old_snap, snap;
		bool free_old = false;

		if (d->timed && ev->time > until)
			break;
		s.nr_gone = 0;
		switch (ev->kind) {
		case PMAPS_PERF_EV_MMAP: {
			struct pmaps_perf_mapping mp;

			if (ev->pid == -1)
				break;	/* the kernel's */
			p = get_proc(m, ev->pid);
			if (!p)
				goto oom;
			pmaps_perf_mapping_of(&mp, ev);
			p->nr_mmaps++;
			p->nr_synthesized += ev->synthesized;
			if (cut(p, &s, mp.start, mp.end, &mp, true))
				goto oom;
			break;
		}
		case PMAPS_PERF_EV_COMM:
			p = get_proc(m, ev->pid);
			if (!p)
				goto oom;
			if (ev->tid == ev->pid || !p->comm[0])
				p->comm = ev->name;
			if (ev->misc & PERF_RECORD_MISC_COMM_EXEC) {
				/* a new address space: the old one is gone */
				if (cut(p, &s, 0, UINT64_MAX, NULL, true))
					goto oom;
				p->execed = true;
				p->exec_time = ev->time;
				p->nr_synthesized = 0;
			}
			break;
		case PMAPS_PERF_EV_FORK:
			if (ev->pid == ev->ppid) {	/* a thread */
				p = get_proc(m, ev->pid);
				if (!p)
					goto oom;
				break;
			}
			p = new_proc(m, ev->pid);
			if (!p)
				goto oom;
			parent = pmaps_perf_find_proc(m, ev->ppid);
			p->ppid = ev->ppid;
			p->forked = true;
			p->fork_time = ev->time;
			if (parent) {
				p->comm = parent->comm;
				p->nr_synthesized = parent->nr_synthesized;
				if (copy_maps(p, parent))
					goto oom;
			}
			break;
		case PMAPS_PERF_EV_EXIT:
			p = pmaps_perf_find_proc(m, ev->pid);
			if (p && ev->tid == ev->pid && !p->exited) {
				p->exited = true;
				p->exit_time = ev->time;
			}
			break;
		case PMAPS_PERF_EV_LOST:
			break;
		case PMAPS_PERF_EV_SNAPSHOT:
			p = get_proc(m, ev->pid);
			if (!p)
				goto oom;
			/*
			 * a text that does not parse is no snapshot; pages
			 * of this host's size, as perf.data does not say
			 */
			if (pmaps_parse_buf_as(ev->name, ev->name_len,
					       "snapshot", pmaps_page_size(),
					       &snap, NULL, 0)) {
				pmaps_map_free(&snap);
				break;
			}
			if (diff_snapshot(p, &s, &snap)) {
				pmaps_map_free(&snap);
				goto oom;
			}
			ch.since = p->has_snap ? p->snap_time : 0;
			if (p->has_snap) {
				old_snap = p->snap;
				free_old = true;
			}
			p->snap = snap;
			p->has_snap = true;
			p->snap_time = ev->time;
			break;
		}
		ch.proc = p;
		ch.gone = s.gone;
		ch.nr_gone = s.nr_gone;
		if (cb)
			cb(arg, &ch);
		if (free_old)
			pmaps_map_free(&old_snap);
	}
	goto out;
oom:
	ret = -1;
out:
	free(s.gone);
	free(s.next);
	return ret;
}

/* Where /proc/PID/maps starts a name (seq_setwidth() in show_map_vma()). */
#define MAPS_NAME_PAD	(25 + sizeof(void *) * 6 - 1)

void pmaps_perf_print_maps_line(FILE *out,
				const struct pmaps_perf_mapping *mp)
{
	/* maps shows an offset for a file only; perf gives anon's address */
	unsigned long long off = mp->ino || (mp->ev && mp->ev->build_id_size) ?
				 mp->pgoff : 0;
	int n = fprintf(out, "%08llx-%08llx %s %08llx %02x:%02x %llu ",
			(unsigned long long)mp->start,
			(unsigned long long)mp->end, mp->perms, off, mp->maj,
			mp->min, (unsigned long long)mp->ino);
	const char *s;

	/* maps too ends an unnamed line in a space */
	if (mp->name[0]) {
		for (; n >= 0 && (size_t)n < MAPS_NAME_PAD; n++)
			putc(' ', out);
		putc(' ', out);
		for (s = mp->name; *s; s++)
			if (*s == '\n')
				fputs("\\012", out);
			else
				putc(*s, out);
	}
	putc('\n', out);
}

/* ---- reading from a stream ---- */

/* Highest record type perf uses: PERF_RECORD_HEADER_MAX and below. */
#define RECORD_TYPE_MAX	127

struct stream {
	int fd;
	const char *name;
	unsigned char *buf;
	size_t len, cap;
	bool eof;
};

/*
 * Have at least want bytes in s->buf (fewer at the end of the input),
 * and no more unless greedy (all of the input is wanted): 0, or -1 with
 * errno.  The buffer grows with what arrives, not with what is wanted.
 */
static int stream_fill(struct stream *s, uint64_t want, bool greedy)
{
	while (s->len < want && !s->eof) {
		ssize_t n;

		if (s->len == s->cap) {
			size_t ncap = s->cap ? s->cap * 2 : 65536;
			unsigned char *nbuf;

			nbuf = ncap > s->cap ? realloc(s->buf, ncap) : NULL;
			if (!nbuf) {
				errno = ENOMEM;
				return -1;
			}
			s->buf = nbuf;
			s->cap = ncap;
		}
		n = read(s->fd, s->buf + s->len,
			 !greedy && want - s->len < s->cap - s->len ?
			 (size_t)(want - s->len) : s->cap - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			s->eof = true;
		s->len += (size_t)n;
	}
	return 0;
}

/*
 * The record at pos, whose header s holds: *size its size and what
 * follows it outside header.size (AUXTRACE's trace data).  0; 1 when s
 * must hold 8 bytes more first (AUXTRACE's size); -2 with a message in
 * err when it is no record: a type of 0 or above 127, a size below 8.
 */
static int record_at(const struct stream *s, uint64_t pos, uint64_t nr,
		     uint64_t *size, char *err, size_t errlen)
{
	unsigned int type = le32(s->buf + pos);

	*size = le16(s->buf + pos + 6);
	if (!type || type > RECORD_TYPE_MAX || *size < REC_HDR) {
		snprintf(err, errlen,
			 "%s: offset 0x%llx: record %llu: expected a record type of 1 to %d and a size of at least %d, got type %u and size %llu",
			 s->name, (unsigned long long)pos,
			 (unsigned long long)nr, RECORD_TYPE_MAX, REC_HDR,
			 type, (unsigned long long)*size);
		return -2;
	}
	if (type == PMAPS_PERF_RECORD_AUXTRACE && *size >= REC_HDR + 8) {
		if (s->len < pos + REC_HDR + 8)
			return 1;
		/* its trace data follows, outside header.size */
		if (le64(s->buf + pos + 8) > UINT32_MAX) {
			snprintf(err, errlen,
				 "%s: offset 0x%llx: record %llu: expected at most 4 GiB of trace data, got %llu bytes",
				 s->name, (unsigned long long)pos,
				 (unsigned long long)nr,
				 (unsigned long long)le64(s->buf + pos + 8));
			return -2;
		}
		*size += le64(s->buf + pos + 8);
	}
	return 0;
}

/* Records from pos until the end of the input: 0, -1 or -2. */
static int stream_records(struct stream *s, uint64_t pos, char *err,
			  size_t errlen)
{
	uint64_t nr = 0, size;
	int ret;

	for (;;) {
		if (stream_fill(s, pos + REC_HDR, true))
			return -1;
		if (s->len < pos + REC_HDR)
			return 0;	/* the end, or a cut the parser reports */
		nr++;
		ret = record_at(s, pos, nr, &size, err, errlen);
		if (ret == 1) {
			if (stream_fill(s, pos + REC_HDR + 8, true))
				return -1;
			if (s->len < pos + REC_HDR + 8)
				return 0;
			ret = record_at(s, pos, nr, &size, err, errlen);
		}
		if (ret)
			return ret;
		pos += size;
	}
}

/* File mode: what is checked as it arrives. */
struct checks {
	uint64_t data_end;		/* of the data section */
	uint64_t rec;			/* the next record to check */
	uint64_t nr;			/* its number */
	uint64_t snap, snap_end;	/* the snapshot section, or 0 */
	bool magic_seen;
};

/*
 * The records of the data section, and the snapshots of pmaps record,
 * that s now holds whole: 0, or -2 with a message in err.
 */
static int check_more(const struct stream *s, struct checks *c, char *err,
		      size_t errlen)
{
	const size_t magic = sizeof(PMAPS_PERF_SNAPSHOT_MAGIC) - 1;
	uint64_t size;
	int ret;

	while (c->rec + REC_HDR <= c->data_end && c->rec + REC_HDR <= s->len) {
		ret = record_at(s, c->rec, c->nr + 1, &size, err, errlen);
		if (ret == 1)
			break;
		if (ret)
			return ret;
		c->nr++;
		c->rec += size;
	}
	if (!c->snap)
		return 0;
	if (!c->magic_seen && c->snap + magic <= s->len) {
		if (memcmp(s->buf + c->snap, PMAPS_PERF_SNAPSHOT_MAGIC, magic)) {
			snprintf(err, errlen,
				 "%s: offset 0x%llx: expected the snapshots of pmaps record (magic %s)",
				 s->name, (unsigned long long)c->snap,
				 PMAPS_PERF_SNAPSHOT_MAGIC);
			return -2;
		}
		c->magic_seen = true;
		c->snap += magic;
	}
	/* each: time, pid, the length of its text, the text (no NUL) */
	while (c->magic_seen && c->snap + 16 <= c->snap_end &&
	       c->snap + 16 <= s->len) {
		uint64_t len = le32(s->buf + c->snap + 12);
		uint64_t next = c->snap + 16 + ((len + 7) & ~7ULL);

		if (c->snap + 16 + len > s->len)
			break;
		if (memchr(s->buf + c->snap + 16, '\0', (size_t)len)) {
			snprintf(err, errlen,
				 "%s: offset 0x%llx: expected the text of /proc/PID/maps in a snapshot, got a NUL byte",
				 s->name, (unsigned long long)c->snap);
			return -2;
		}
		c->snap = next;
	}
	return 0;
}

/* Up to want bytes, 1 MiB at a time, each checked: 0, -1 or -2. */
static int fill_checked(struct stream *s, uint64_t want, struct checks *c,
			char *err, size_t errlen)
{
	while (s->len < want && !s->eof) {
		uint64_t step = want - s->len > (1 << 20) ? s->len + (1 << 20) :
				want;
		int ret;

		if (stream_fill(s, step, false))
			return -1;
		ret = check_more(s, c, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* Feature sections but pmaps' snapshots: perf's take kilobytes. */
#define OTHER_FEATURES_MAX	(64ULL << 20)
/* An attribute's ids: 8 bytes an event of a CPU or a thread. */
#define IDS_MAX			(64ULL << 20)

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int pmaps_perf_read_stream(int fd, const char *name, unsigned char **buf,
			   size_t *len, char *err, size_t errlen)
{
	struct stream s = { .fd = fd, .name = name ? name : "-" };
	struct checks c = { 0 };
	struct pmaps_perf_data d;
	uint64_t attr_size, aoff, asize, doff, dsize, end, table, other = 0;
	unsigned int i, nr_feat = 0, snap_index = 0;
	bool snap;
	int ret;

	*buf = NULL;
	*len = 0;
	if (stream_fill(&s, 16, false))
		goto read_error;
	/* not perf.data, or too short: the parser says so, and how */
	if (s.len < 16 || memcmp(s.buf, "PERFILE2", 8) ||
	    (le64(s.buf + 8) != PMAPS_PERF_HEADER_SIZE &&
	     le64(s.buf + 8) != PMAPS_PERF_PIPE_HEADER_SIZE)) {
		ret = pmaps_perf_parse(s.buf, s.len, s.name, &d, err, errlen);
		pmaps_perf_data_free(&d);
		if (ret < 0) {
			free(s.buf);
			return -2;
		}
		goto done;
	}
	if (le64(s.buf + 8) == PMAPS_PERF_PIPE_HEADER_SIZE) {
		ret = stream_records(&s, PMAPS_PERF_PIPE_HEADER_SIZE, err,
				     errlen);
		goto records;
	}
	if (stream_fill(&s, PMAPS_PERF_HEADER_SIZE, false))
		goto read_error;
	if (s.len < PMAPS_PERF_HEADER_SIZE)
		goto done;	/* cut short: the parser says so */
	attr_size = le64(s.buf + 16);
	aoff = le64(s.buf + PMAPS_PERF_ATTRS_OFF);
	asize = le64(s.buf + PMAPS_PERF_ATTRS_OFF + 8);
	doff = le64(s.buf + PMAPS_PERF_DATA_OFF);
	dsize = le64(s.buf + PMAPS_PERF_DATA_OFF + 8);
	/* a header the parser refuses, it refuses with the bytes it has */
	if (attr_size < PMAPS_PERF_ATTR_MIN + 16 || attr_size > 4096 ||
	    !asize || asize % attr_size || aoff > UINT64_MAX - asize ||
	    doff > UINT64_MAX - dsize)
		goto done;
	if (!dsize) {
		/* perf record was killed: records to the end, as the parser */
		if (stream_fill(&s, doff, false))
			goto read_error;
		ret = stream_records(&s, doff, err, errlen);
		goto records;
	}
	c.rec = doff;
	c.data_end = doff + dsize;
	end = max_u64(aoff + asize, c.data_end);
	ret = fill_checked(&s, end, &c, err, errlen);
	if (ret)
		goto records;
	/* each attribute's ids */
	for (i = 0; (uint64_t)i < asize / attr_size &&
	     aoff + (i + 1) * attr_size <= s.len; i++) {
		const unsigned char *a = s.buf + aoff + i * attr_size;
		uint64_t ids = le64(a + attr_size - 16);
		uint64_t ids_size = le64(a + attr_size - 8);

		if (ids_size > IDS_MAX || ids > UINT64_MAX - ids_size) {
			snprintf(err, errlen,
				 "%s: attribute %u: expected ids of at most %llu bytes, got 0x%llx bytes at 0x%llx",
				 s.name, i, IDS_MAX,
				 (unsigned long long)ids_size,
				 (unsigned long long)ids);
			ret = -2;
			goto records;
		}
		end = max_u64(end, ids + ids_size);
	}
	ret = fill_checked(&s, end, &c, err, errlen);
	if (ret)
		goto records;
	/* the feature sections: the parser reads pmaps' snapshots alone */
	for (i = 0; i < PMAPS_PERF_FEATURE_BITS; i++)
		if (s.buf[PMAPS_PERF_FEATURES_OFF + i / 8] & 1u << (i % 8)) {
			if (i == PMAPS_PERF_FEAT_SNAPSHOTS)
				snap_index = nr_feat;
			nr_feat++;
		}
	snap = s.buf[PMAPS_PERF_FEATURES_OFF + PMAPS_PERF_FEAT_SNAPSHOTS / 8] &
	       1u << (PMAPS_PERF_FEAT_SNAPSHOTS % 8);
	table = c.data_end;
	if (!snap)
		goto done;
	ret = fill_checked(&s, table + 16ULL * nr_feat, &c, err, errlen);
	if (ret)
		goto records;
	if (s.len < table + 16ULL * nr_feat)
		goto done;	/* cut short: the parser says so */
	end = table + 16ULL * nr_feat;
	for (i = 0; i < nr_feat; i++) {
		uint64_t off = le64(s.buf + table + 16 * i);
		uint64_t size = le64(s.buf + table + 16 * i + 8);

		if (off > UINT64_MAX - size)
			goto done;	/* the parser says so */
		if (i == snap_index) {
			c.snap = off;
			c.snap_end = off + size;
		} else {
			other += size;
		}
		end = max_u64(end, off + size);
	}
	if (other > OTHER_FEATURES_MAX) {
		snprintf(err, errlen,
			 "%s: expected feature sections of at most %llu bytes besides pmaps' snapshots, got %llu",
			 s.name, OTHER_FEATURES_MAX,
			 (unsigned long long)other);
		ret = -2;
		goto records;
	}
	/* before the table: read already, and the parser says what it is */
	if (c.snap < table + 16ULL * nr_feat)
		c.snap = 0;
	ret = fill_checked(&s, end, &c, err, errlen);
	goto records;
records:
	if (ret == -1)
		goto read_error;
	if (ret) {
		free(s.buf);
		return -2;
	}
done:
	*buf = s.buf;
	*len = s.len;
	return 0;
read_error:
	free(s.buf);
	return -1;
}
