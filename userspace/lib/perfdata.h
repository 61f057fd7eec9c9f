/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data: the records of a process's mappings that perf wrote, read
 * without libperf (perfdata.c), the address spaces they describe rebuilt
 * (perfdata.c), and written again by pmaps record (perfdata_write.c).
 *
 * The file format is perf's (tools/perf/Documentation/perf.data-file-
 * format.txt): a header, an attribute section, a data section of records
 * as the kernel's ring buffer holds them (linux/perf_event.h), and
 * feature sections after the data.  Only little-endian files are read.
 * Pipe-mode files (perf record -o -), whose attributes come as
 * PERF_RECORD_HEADER_ATTR records, are read too.
 *
 * Of the records only those about mappings and processes are kept: MMAP,
 * MMAP2, COMM, FORK, EXIT and LOST; samples are counted and skipped.
 * pmaps record adds snapshots of /proc/PID/maps in a feature section of
 * its own (PMAPS_PERF_FEAT_SNAPSHOTS), which perf skips as a feature it
 * does not know.
 */
#ifndef PMAPS_PERFDATA_H
#define PMAPS_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmaps.h"

/* The file header: magic, size, attr_size, 3 sections, 256 feature bits. */
#define PMAPS_PERF_HEADER_SIZE		104
#define PMAPS_PERF_PIPE_HEADER_SIZE	16
/* Where the header's sections and feature bits are. */
#define PMAPS_PERF_ATTRS_OFF		24
#define PMAPS_PERF_DATA_OFF		40
#define PMAPS_PERF_FEATURES_OFF		72
#define PMAPS_PERF_FEATURE_BITS		256
/* The first published perf_event_attr; every later one is longer. */
#define PMAPS_PERF_ATTR_MIN		64

/*
 * pmaps record's snapshots.  perf numbers its features from 0 up (33 of
 * them in 2024), and skips a bit it does not know; the section starts
 * with PMAPS_PERF_SNAPSHOT_MAGIC so that a perf feature given this bit
 * one day is not read as snapshots.
 */
#define PMAPS_PERF_FEAT_SNAPSHOTS	255
#define PMAPS_PERF_SNAPSHOT_MAGIC	"PMAPSNAP"

/* Record types perf itself writes, after the kernel's (tools/perf). */
#define PMAPS_PERF_RECORD_HEADER_ATTR		64
#define PMAPS_PERF_RECORD_FINISHED_ROUND	68
#define PMAPS_PERF_RECORD_AUXTRACE		71
#define PMAPS_PERF_RECORD_COMPRESSED		81

enum pmaps_perf_kind {
	PMAPS_PERF_EV_MMAP,	/* PERF_RECORD_MMAP or MMAP2 */
	PMAPS_PERF_EV_COMM,
	PMAPS_PERF_EV_FORK,
	PMAPS_PERF_EV_EXIT,
	PMAPS_PERF_EV_LOST,
	PMAPS_PERF_EV_SNAPSHOT,	/* pmaps record's /proc/PID/maps */
};

struct pmaps_perf_event {
	enum pmaps_perf_kind kind;
	unsigned int type;		/* PERF_RECORD_*, as in the file */
	unsigned int misc;
	uint64_t offset;		/* of the record in the file */
	uint64_t time;			/* valid when has_time */
	bool has_time;
	/*
	 * Written by perf from /proc when it started (time 0): a mapping
	 * made before the recording, at a time nobody knows.
	 */
	bool synthesized;
	int32_t pid, tid;		/* FORK, EXIT: the child's, the one's */
	int32_t ppid, ptid;		/* FORK, EXIT: the parent's */
	/* MMAP, MMAP2 */
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	bool has_prot;			/* MMAP2; MMAP has no prot, flags */
	uint32_t prot, flags;		/* PROT_*, MAP_* */
	unsigned char build_id[20];	/* MMAP2 with MISC_MMAP_BUILD_ID */
	unsigned int build_id_size;	/* 0: maj, min, ino are valid */
	uint64_t lost;			/* LOST: how many records */
	/*
	 * MMAP: the file name; COMM: the command; SNAPSHOT: the maps text.
	 * NUL-terminated, malloc()ed; name_len bytes before the NUL.
	 */
	char *name;
	size_t name_len;
};

struct pmaps_perf_data {
	/* In time order (the file's order among equal times), when timed. */
	struct pmaps_perf_event *events;
	size_t nr_events, cap_events;
	bool pipe;			/* pipe mode: no header sections */
	size_t nr_attrs;
	/* Over all attributes: whether any sets the bit. */
	bool sample_id_all, mmap_data, mmap2, task;
	bool timed;			/* every record has a time */
	uint64_t nr_records, nr_samples, nr_skipped;
	uint64_t lost;			/* records lost, the sum of LOSTs */
	uint64_t bad_records;		/* malformed records left out */
	size_t nr_snapshots;
};

/*
 * Read perf.data from fd, a pipe or any file that cannot be mapped, only
 * as far as the format says it goes: the magic first (so that anything
 * else fails at once); in file mode the header's sections and the ids
 * its attributes name (at most 64 MiB each), and, when pmaps' snapshot
 * feature is there, the table of feature sections after the data and the
 * sections it names (at most 64 MiB besides the snapshots), and no byte
 * beyond; in pipe mode (or in file mode without a data size: perf record
 * was killed) record after record until the end of the input.  Records
 * of the data section are checked as they come: a record type of 0 or
 * above 127 (perf's are 1 to 127) or a size below 8 ends the read as an
 * error; so does a snapshot section without its magic, or a snapshot
 * whose text holds a NUL byte.  On success
 * *buf (malloc'ed) and *len hold what pmaps_perf_parse() is to read.
 * Return 0; -1 when read() failed or memory ran out, with errno; -2 with
 * "NAME: ..." in err when the input is not perf.data.
 */
int pmaps_perf_read_stream(int fd, const char *name, unsigned char **buf,
			   size_t *len, char *err, size_t errlen);

/*
 * Read the perf.data in buf (len bytes); name names it in messages, which
 * are "NAME: offset 0xOFF: record N (TYPE): expected ..., got ...".
 * 0: all of it was read.  1: what could be read is in *out, err says what
 * stopped it (a file cut short, a malformed record).  -1: nothing could
 * be read (not perf.data, foreign-endian, a bad header); err says why.
 * *out is overwritten on entry, and must be freed in every case.
 */
int pmaps_perf_parse(const void *buf, size_t len, const char *name,
		     struct pmaps_perf_data *out, char *err, size_t errlen);
void pmaps_perf_data_free(struct pmaps_perf_data *d);

/* "PERF_RECORD_MMAP2", or "type 123". */
const char *pmaps_perf_type_name(unsigned int type, char *buf, size_t len);

/* ---- address spaces rebuilt from the records ---- */

/* A mapping as the records describe it, or part of one. */
struct pmaps_perf_mapping {
	uint64_t start, end, pgoff;	/* pgoff: of start, in bytes */
	char perms[5];			/* "r-xp", as maps shows it */
	uint32_t maj, min;
	uint64_t ino;
	const char *name;		/* "" for anonymous memory */
	const struct pmaps_perf_event *ev;	/* the record, NULL: snapshot */
};

struct pmaps_perf_proc {
	int32_t pid, ppid;		/* ppid -1: no FORK seen */
	const char *comm;		/* "" until a COMM */
	/* when it was forked or exec()ed, if within the recording */
	bool forked, execed, exited;
	uint64_t fork_time, exec_time, exit_time;
	size_t nr_synthesized;		/* mappings perf read from /proc */
	size_t nr_mmaps;		/* mmap records of it */
	struct pmaps_perf_mapping *maps;	/* in address order */
	size_t nr_maps, cap_maps;
	/* its last snapshot, parsed */
	struct pmaps_map snap;
	bool has_snap;
	uint64_t snap_time;
};

struct pmaps_perf_model {
	/* in the order first seen; a PID reused is a new one, later */
	struct pmaps_perf_proc *procs;
	size_t nr_procs, cap_procs;
	const struct pmaps_perf_data *data;
	size_t applied;			/* events replayed so far */
};

/*
 * What an event did to a process's mappings, for a timeline: the
 * mappings it replaced (an mmap over them), dropped (exec) or found gone
 * (a snapshot without them: an unmap since the snapshot before).  Each is
 * as it was before the event; for an mmap, the whole earlier mapping.
 */
struct pmaps_perf_change {
	const struct pmaps_perf_event *ev;
	struct pmaps_perf_proc *proc;	/* NULL: the kernel's (pid -1) */
	const struct pmaps_perf_mapping *gone;
	size_t nr_gone;
	/* SNAPSHOT: the time of the one before; 0 if none */
	uint64_t since;
};

typedef void pmaps_perf_cb(void *arg, const struct pmaps_perf_change *c);

void pmaps_perf_model_init(struct pmaps_perf_model *m,
			   const struct pmaps_perf_data *d);
/*
 * Replay the events from where the last call stopped up to those timed
 * at most until (all of them: UINT64_MAX), calling cb (may be NULL) after
 * each.  Follows machine__process_*_event() of perf: FORK copies the
 * parent's mappings into a new process, an mmap replaces what it
 * overlaps, EXIT marks a process gone, keeping its mappings as they were.
 * Unlike perf, an exec (COMM with MISC_COMM_EXEC) drops the mappings
 * before it, as the kernel does.  0, or -1 when out of memory.
 */
int pmaps_perf_replay(struct pmaps_perf_model *m, uint64_t until,
		      pmaps_perf_cb *cb, void *arg);
void pmaps_perf_model_free(struct pmaps_perf_model *m);

/* The latest process of that PID, or NULL. */
struct pmaps_perf_proc *pmaps_perf_find_proc(struct pmaps_perf_model *m,
					     int32_t pid);

/* The mapping an MMAP or MMAP2 event makes. */
void pmaps_perf_mapping_of(struct pmaps_perf_mapping *mp,
			   const struct pmaps_perf_event *ev);

/*
 * The mapping's /proc/PID/maps line and '\n', padded as maps pads it, a
 * newline in the name escaped as maps escapes it ("\012").
 */
void pmaps_perf_print_maps_line(FILE *out,
				const struct pmaps_perf_mapping *mp);

/* ---- writing (perfdata_write.c) ---- */

struct pmaps_perf_writer {
	int fd;
	const unsigned char *attr;	/* perf_event_attr as given to the kernel */
	size_t attr_len;
	uint64_t sample_type;
	size_t id_size;			/* of the sample_id at a record's end */
	uint64_t data_offset, data_size;
	/* snapshots, kept until finish writes them after the data */
	unsigned char *snaps;
	size_t snaps_len, snaps_cap;
	int error;			/* the first errno, or 0 */
};

/*
 * Start a perf.data in fd (at its start; a regular file): the header to
 * be completed by finish, one attribute with ids (ids of the events, so
 * that perf tells their records apart).  0, or -1 with errno.
 */
int pmaps_perf_writer_start(struct pmaps_perf_writer *w, int fd,
			    const void *attr, size_t attr_len,
			    const uint64_t *ids, size_t nr_ids);
/* Records as the kernel wrote them into the ring buffer. */
int pmaps_perf_writer_record(struct pmaps_perf_writer *w, const void *rec,
			     size_t len);
/*
 * Records as perf synthesizes them for what was there before recording:
 * a sample_id of zeros (time 0).
 */
int pmaps_perf_writer_comm(struct pmaps_perf_writer *w, int32_t pid,
			   int32_t tid, const char *comm);
int pmaps_perf_writer_mmap2(struct pmaps_perf_writer *w, int32_t pid,
			    const struct pmaps_perf_mapping *mp,
			    uint32_t prot, uint32_t flags);
/* A /proc/PID/maps text read at time (the records' clock). */
int pmaps_perf_writer_snapshot(struct pmaps_perf_writer *w, uint64_t time,
			       int32_t pid, const char *text, size_t len);
/* The snapshots, then the header.  0, or -1 with errno. */
int pmaps_perf_writer_finish(struct pmaps_perf_writer *w);
void pmaps_perf_writer_free(struct pmaps_perf_writer *w);

#endif
