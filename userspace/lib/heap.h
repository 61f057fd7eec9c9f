/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chunk map of a process's glibc malloc heaps: every arena, its heaps
 * and their chunks, each in use or on which free list, and the chunks
 * served by mmap.  heap.c walks a memory image through a reader, so that
 * the unit tests and the fuzzer feed it memory of their own;
 * heap_proc.c reads a live process (process_vm_readv), and
 * glibc_debuginfo.c reads the layout from the C library's debug symbols.
 *
 * x86-64 glibc only (2.26 and later are known; older ones have no tcache):
 * 16-byte chunks, SIZE_SZ 8, heaps of thread arenas HEAP_MAX_SIZE (64 MiB)
 * aligned.
 */
#ifndef PMAPS_HEAP_H
#define PMAPS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The malloc allocation unit of x86-64: MALLOC_ALIGNMENT. */
#define PMAPS_HEAP_UNIT		16
/* Messages and notes are at most this long. */
#define PMAPS_HEAP_MSG		320

/* One mapping of the target, from /proc/PID/maps. */
struct pmaps_heap_mapping {
	uint64_t start, end;
	char perms[5];			/* "rw-p" */
	uint64_t offset;
	char *name;			/* "" for anonymous memory; owned */
	/* the file's device and inode, as /proc/PID/maps gives them */
	unsigned int dev_major, dev_minor;
	uint64_t inode;
};

/*
 * The target's memory: its mappings, in address order, and a reader that
 * returns 0 when all len bytes at addr were read, else -1.  The walker
 * reads only inside readable mappings.
 */
struct pmaps_heap_mem {
	struct pmaps_heap_mapping *maps;
	size_t nr_maps;
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	/*
	 * Optional: len bytes at each of n addresses, one after the other
	 * into buf, 0 when all were read.  Many small reads in one call (a
	 * live process: one process_vm_readv); NULL: read, one by one.
	 */
	int (*read_each)(void *ctx, const uint64_t *addrs, size_t n,
			 size_t len, void *buf);
	/*
	 * Optional: the thread pointer (x86-64 fs_base) of each thread of
	 * the process, read while it was stopped; 0 for one not known.
	 * Each thread's tcache pointer is in libc's static TLS, the same
	 * distance below it in every thread.
	 */
	const uint64_t *thread_ptrs;
	size_t nr_threads;
	/*
	 * Optional: whether each of n pages from addr (page aligned) is in
	 * memory or in swap, into in[]; 0 when known.  A page that is
	 * neither holds no chunk header, and a read would fault it in.
	 */
	int (*resident)(void *ctx, uint64_t addr, size_t n, bool *in);
	/* Pages looked at for chunks served by mmap; 0: 1 GiB of them. */
	uint64_t scan_pages;
};

/*
 * Where glibc keeps what the walker needs.  pmaps_glibc_layout_for()
 * fills the offsets of a version; debug symbols, when found, give the
 * addresses and correct the offsets.  0 in an address: not known.
 */
struct pmaps_glibc_layout {
	int major, minor;		/* 2, 36; 0, 0 when not known */
	/* struct malloc_state */
	unsigned int ms_fastbins, ms_top, ms_bins, ms_next, ms_system_mem;
	unsigned int ms_size;
	unsigned int nr_fastbins;	/* NFASTBINS */
	/* struct _heap_info: its size; 0 to find it from the first heap */
	unsigned int heap_info_size;
	/* tcache_perthread_struct; tcache_bins 0: no tcache */
	unsigned int tcache_bins, tcache_count_size, tcache_entries;
	unsigned int tcache_struct_size;
	bool safe_linking;		/* 2.32: tcache and fastbin links */
	/* from debug symbols */
	uint64_t main_arena;		/* its address in the target */
	bool have_mp;			/* mp_ was read: the fields below */
	uint64_t sbrk_base;
	uint64_t mmapped_mem;
	long long n_mmaps;
};

/*
 * The offsets of glibc major.minor on x86-64 into *lay (addresses
 * cleared).  Returns 0, or -1 for a version before 2.26 or after the
 * last one known, which the offsets may not fit: the caller says so.
 */
int pmaps_glibc_layout_for(int major, int minor,
			   struct pmaps_glibc_layout *lay);

enum pmaps_chunk_kind {
	PMAPS_CHUNK_USED,	/* in use */
	PMAPS_CHUNK_HEADER,	/* heap_info and malloc_state of a heap */
	PMAPS_CHUNK_TCACHE,	/* free, in a thread's tcache */
	PMAPS_CHUNK_FASTBIN,
	PMAPS_CHUNK_UNSORTED,
	PMAPS_CHUNK_SMALLBIN,
	PMAPS_CHUNK_LARGEBIN,
	PMAPS_CHUNK_FREE,	/* free, on no list the walker could read */
	PMAPS_CHUNK_TOP,	/* the arena's top chunk: free */
	PMAPS_CHUNK_FENCE,	/* fencepost at the end of an old heap */
	PMAPS_CHUNK_NR
};

/* "used", "header", "tcache", "fastbin", ...: for views and JSON. */
const char *pmaps_chunk_kind_name(enum pmaps_chunk_kind kind);
/* Whether the kind's bytes count as free: lists and top. */
bool pmaps_chunk_kind_free(enum pmaps_chunk_kind kind);

struct pmaps_chunk {
	uint64_t addr;			/* of the chunk header */
	uint64_t size;			/* bytes, header included */
	enum pmaps_chunk_kind kind;
};

/* One heap: the sbrk heap of the main arena, or an mmap'ed heap_info one. */
struct pmaps_heap_seg {
	uint64_t start, end;		/* [start, end): what malloc uses */
	struct pmaps_chunk *chunks;	/* in address order, covering it */
	size_t nr_chunks;
};

/* Bytes of an arena, by where they are. */
struct pmaps_arena_stats {
	uint64_t heap_size;		/* sum of its heaps' sizes */
	uint64_t used, free;		/* free: lists and top */
	uint64_t nr_free, largest_free;	/* free chunks but top */
	uint64_t top;
	uint64_t tcache, fastbins, bins; /* bins: unsorted, small, large */
	uint64_t unlisted;		/* free, on no list read */
	uint64_t nr_chunks;
};

struct pmaps_arena {
	uint64_t addr;			/* of its malloc_state; 0 not known */
	bool main;
	bool state_read;		/* malloc_state read: lists known */
	struct pmaps_heap_seg *heaps;	/* in address order */
	size_t nr_heaps;
	struct pmaps_arena_stats stats;
};

struct pmaps_heap_report {
	char version[32];		/* "2.36", or "" */
	char layout_from[1200];		/* "debug symbols (FILE)", ... */
	struct pmaps_glibc_layout layout;
	struct pmaps_arena *arenas;	/* the main arena first */
	size_t nr_arenas;
	struct pmaps_chunk *mmapped;	/* kind PMAPS_CHUNK_USED */
	size_t nr_mmapped;
	/* What could not be known, or looked odd: one sentence each. */
	char (*notes)[PMAPS_HEAP_MSG];
	size_t nr_notes;
};

/*
 * Walk every heap in mem with layout lay (lay->major 0: no version known,
 * which the walker refuses).  Returns 0; -1 with a message in err naming
 * the address and what was expected, for a heap that is not glibc's or is
 * corrupted; -2 with a message when there is no heap to walk (no version,
 * no [heap] nor thread heap, malloc never used) or it could not be read
 * (a read failed, out of memory).  out is freed on failure.  The walk is
 * bounded by the mappings' size: it ends on any input.
 */
int pmaps_heap_walk(const struct pmaps_heap_mem *mem,
		    const struct pmaps_glibc_layout *lay,
		    struct pmaps_heap_report *out, char *err, size_t errlen);
void pmaps_heap_report_free(struct pmaps_heap_report *r);

/* Add a note to r, printf-style; silently nothing when out of memory. */
void pmaps_heap_note(struct pmaps_heap_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Units of PMAPS_HEAP_UNIT bytes in use among the n units from addr on, in
 * a heap (chunks in address order): what one cell of the map shows.
 * *from is the first chunk to look at, moved on as cells go forward.
 */
unsigned int pmaps_heap_units_used(const struct pmaps_heap_seg *h,
				   uint64_t addr, unsigned int n, size_t *from);

/* ---- a live process (heap_proc.c) ---- */

/* Why pmaps_heap_read_pid() failed. */
enum pmaps_heap_error {
	PMAPS_HEAP_ERR_READ = 1,	/* no process, no permission, no glibc
					 * heap, or a read failed */
	PMAPS_HEAP_ERR_CORRUPT,		/* glibc's, not as glibc keeps it */
	PMAPS_HEAP_ERR_FOREIGN,		/* another allocator: jemalloc, ... */
};

/*
 * Read pid's heaps: /proc/PID/maps, the glibc version in its libc, the
 * layout from debug symbols under debug_dir (NULL: /usr/lib/debug) when
 * there are any, then pmaps_heap_walk().  Returns 0, or an enum
 * pmaps_heap_error with a message in err.
 */
int pmaps_heap_read_pid(int pid, const char *debug_dir,
			struct pmaps_heap_report *out, char *err,
			size_t errlen);

/*
 * The debug file of the ELF file at path by its build-id, under debug_dir
 * (".build-id/xx/yyyy.debug"); the addresses of main_arena and mp_ (file
 * addresses, 0 when absent) and the member offsets of malloc_state and
 * malloc_par from its DWARF into *lay, over the version's.  Returns 0,
 * or -1 with the reason in err ("no debug symbols for ...").
 */
struct pmaps_glibc_symbols {
	char debug_file[1024];
	uint64_t main_arena, mp;	/* file addresses */
	unsigned int mp_sbrk_base, mp_n_mmaps, mp_mmapped_mem;
	bool mp_fields;			/* the three offsets above */
};
int pmaps_glibc_debuginfo(const char *path, const char *debug_dir,
			  struct pmaps_glibc_layout *lay,
			  struct pmaps_glibc_symbols *syms, char *err,
			  size_t errlen);

#endif /* PMAPS_HEAP_H */
