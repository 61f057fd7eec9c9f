// SPDX-License-Identifier: GPL-2.0
/*
 * Write perf.data as perf record does, for pmaps record: perf script and
 * perf report read it, and so does pmaps perf.
 *
 * Layout: the header, the one attribute and its ids, then the data
 * section (records as the kernel's ring buffer held them, and the ones
 * synthesized for what was there before recording), then the feature
 * sections: only pmaps' snapshots, when there are any.  The header is
 * written first with no data size, as perf's is, and again by finish: a
 * file whose writer was killed reads as perf record's does then.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "le.h"
#include "perfdata.h"

/* n bytes at off; -1 with errno, kept in w->error for finish. */
static int write_at(struct pmaps_perf_writer *w, uint64_t off,
		    const void *buf, size_t n)
{
	const unsigned char *p = buf;

	if (w->error) {
		errno = w->error;
		return -1;
	}
	while (n) {
		ssize_t got = pwrite(w->fd, p, n, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			w->error = got ? errno : EIO;
			errno = w->error;
			return -1;
		}
		p += got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

static int write_header(struct pmaps_perf_writer *w, uint64_t attrs_at)
{
	unsigned char h[PMAPS_PERF_HEADER_SIZE] = "PERFILE2";

	set_le64(h + 8, PMAPS_PERF_HEADER_SIZE);
	set_le64(h + 16, w->attr_len + 16);
	set_le64(h + PMAPS_PERF_ATTRS_OFF, attrs_at);
	set_le64(h + PMAPS_PERF_ATTRS_OFF + 8, w->attr_len + 16);
	set_le64(h + PMAPS_PERF_DATA_OFF, w->data_offset);
	set_le64(h + PMAPS_PERF_DATA_OFF + 8, w->data_size);
	if (w->snaps_len)
		h[PMAPS_PERF_FEATURES_OFF + PMAPS_PERF_FEAT_SNAPSHOTS / 8] |=
			1u << (PMAPS_PERF_FEAT_SNAPSHOTS % 8);
	return write_at(w, 0, h, sizeof(h));
}

int pmaps_perf_writer_start(struct pmaps_perf_writer *w, int fd,
			    const void *attr, size_t attr_len,
			    const uint64_t *ids, size_t nr_ids)
{
	uint64_t attrs_at = PMAPS_PERF_HEADER_SIZE;
	uint64_t ids_at = attrs_at + attr_len + 16;
	unsigned char sec[16], id[8];
	const unsigned char *a = attr;
	uint64_t st;
	size_t i;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->attr = attr;
	w->attr_len = attr_len;
	if (attr_len < PMAPS_PERF_ATTR_MIN) {
		errno = EINVAL;
		return -1;
	}
	st = le64(a + 24);	/* sample_type */
	w->sample_type = st;
	w->id_size = 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
			  !!(st & PERF_SAMPLE_ID) +
			  !!(st & PERF_SAMPLE_STREAM_ID) +
			  !!(st & PERF_SAMPLE_CPU) +
			  !!(st & PERF_SAMPLE_IDENTIFIER));
	w->data_offset = (ids_at + 8 * nr_ids + 7) & ~7ULL;
	if (write_at(w, attrs_at, attr, attr_len))
		return -1;
	set_le64(sec, ids_at);
	set_le64(sec + 8, 8 * nr_ids);
	if (write_at(w, attrs_at + attr_len, sec, sizeof(sec)))
		return -1;
	for (i = 0; i < nr_ids; i++) {
		set_le64(id, ids[i]);
		if (write_at(w, ids_at + 8 * i, id, sizeof(id)))
			return -1;
	}
	return write_header(w, attrs_at);
}

int pmaps_perf_writer_record(struct pmaps_perf_writer *w, const void *rec,
			     size_t len)
{
	if (write_at(w, w->data_offset + w->data_size, rec, len))
		return -1;
	w->data_size += len;
	return 0;
}

/*
 * A synthesized record: header, the fixed fields (n bytes), a string
 * NUL-padded to 8 bytes, and a sample_id of zeros, as perf writes one.
 */
static int synthesize(struct pmaps_perf_writer *w, uint32_t type,
		      uint16_t misc, const unsigned char *fixed, size_t n,
		      const char *str)
{
	size_t slen = strlen(str), spad = (slen + 8) & ~(size_t)7;
	size_t size = 8 + n + spad + w->id_size;
	unsigned char *rec;
	int ret;

	if (size > UINT16_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	rec = calloc(1, size);
	if (!rec)
		return -1;
	set_le32(rec, type);
	set_le16(rec + 4, misc);
	set_le16(rec + 6, (uint16_t)size);
	memcpy(rec + 8, fixed, n);
	memcpy(rec + 8 + n, str, slen);
	ret = pmaps_perf_writer_record(w, rec, size);
	free(rec);
	return ret;
}

int pmaps_perf_writer_comm(struct pmaps_perf_writer *w, int32_t pid,
			   int32_t tid, const char *comm)
{
	unsigned char f[8];

	set_le32(f, (uint32_t)pid);
	set_le32(f + 4, (uint32_t)tid);
	return synthesize(w, PERF_RECORD_COMM, 0, f, sizeof(f), comm);
}

int pmaps_perf_writer_mmap2(struct pmaps_perf_writer *w, int32_t pid,
			    const struct pmaps_perf_mapping *mp,
			    uint32_t prot, uint32_t flags)
{
	unsigned char f[64] = { 0 };

	set_le32(f, (uint32_t)pid);
	set_le32(f + 4, (uint32_t)pid);
	set_le64(f + 8, mp->start);
	set_le64(f + 16, mp->end - mp->start);
	set_le64(f + 24, mp->pgoff);
	set_le32(f + 32, mp->maj);
	set_le32(f + 36, mp->min);
	set_le64(f + 40, mp->ino);
	set_le32(f + 56, prot);
	set_le32(f + 60, flags);
	/* perf's name for anonymous memory */
	return synthesize(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, f,
			  sizeof(f), mp->name[0] ? mp->name : "//anon");
}

int pmaps_perf_writer_snapshot(struct pmaps_perf_writer *w, uint64_t time,
			       int32_t pid, const char *text, size_t len)
{
	size_t pad = (len + 7) & ~(size_t)7;
	unsigned char *p;

	if (len > UINT32_MAX) {
		errno = EFBIG;
		return -1;
	}
	if (pmaps_grow_array((void **)&w->snaps, &w->snaps_cap,
			     w->snaps_len + 16 + pad, 1))
		return -1;
	p = w->snaps + w->snaps_len;
	set_le64(p, time);
	set_le32(p + 8, (uint32_t)pid);
	set_le32(p + 12, (uint32_t)len);
	memcpy(p + 16, text, len);
	memset(p + 16 + len, 0, pad - len);
	w->snaps_len += 16 + pad;
	return 0;
}

int pmaps_perf_writer_finish(struct pmaps_perf_writer *w)
{
	const size_t magic = sizeof(PMAPS_PERF_SNAPSHOT_MAGIC) - 1;
	uint64_t end = w->data_offset + w->data_size;
	unsigned char sec[16];

	if (w->snaps_len) {
		/* the table of feature sections: one, for the one bit set */
		set_le64(sec, end + sizeof(sec));
		set_le64(sec + 8, magic + w->snaps_len);
		if (write_at(w, end, sec, sizeof(sec)) ||
		    write_at(w, end + sizeof(sec), PMAPS_PERF_SNAPSHOT_MAGIC,
			     magic) ||
		    write_at(w, end + sizeof(sec) + magic, w->snaps,
			     w->snaps_len))
			return -1;
	}
	return write_header(w, PMAPS_PERF_HEADER_SIZE);
}

void pmaps_perf_writer_free(struct pmaps_perf_writer *w)
{
	free(w->snaps);
	w->snaps = NULL;
	w->snaps_len = w->snaps_cap = 0;
}
