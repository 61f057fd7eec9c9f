/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmaps: parse the pmaps text format (Documentation/pmaps_ext.rst).
 *
 * One parser serves every front end and every test, so the grammar is
 * written down in exactly one place in userspace.
 */
#ifndef PMAPS_H
#define PMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Flag bits, in text order.  The letters live in pmaps_flag_letters[];
 * module/, patches/ and Documentation/pmaps_ext.rst must change with them.
 */
enum pmaps_flag {
	PMAPS_YOUNG,		/* Y: pte young (accessed) */
	PMAPS_REFERENCED,	/* R: PG_referenced */
	PMAPS_ACTIVE,		/* A: PG_active */
	PMAPS_UPTODATE,		/* U: PG_uptodate */
	PMAPS_PTE_DIRTY,	/* P: pte dirty */
	PMAPS_DIRTY,		/* D: PG_dirty */
	PMAPS_WRITEBACK,	/* W: PG_writeback */
	PMAPS_NR_FLAGS
};

/* "YRAUPDW": letter of bit i is pmaps_flag_letters[i]. */
extern const char pmaps_flag_letters[PMAPS_NR_FLAGS + 1];
/* "young", "referenced", ...: the long name of bit i. */
extern const char *const pmaps_flag_names[PMAPS_NR_FLAGS];

struct pmaps_range {
	unsigned long long index;	/* page index of the first page */
	unsigned long long count;	/* number of pages */
	unsigned int flags;		/* bit i set: letter i shown */
	unsigned int unknown;		/* bit i set: letter i shown as '?' */
	long mapcount;			/* or PMAPS_MAPCOUNT_UNKNOWN */
	/* The NUMA columns 5 and 6 (pmaps_map.numa), or unknown: */
	long node;			/* NUMA node, or PMAPS_NODE_UNKNOWN */
	unsigned long long kb;		/* folio size in KiB, or PMAPS_KB_UNKNOWN */
	int age;			/* column 7 (pmaps_map.age), or unknown */
	unsigned int line;		/* input line, for messages */
};

/* NODE and KB '?', or absent: the source cannot tell or withholds it. */
#define PMAPS_NODE_UNKNOWN	(-1L)
#define PMAPS_KB_UNKNOWN	0ULL
/* Largest NODE read: far above any MAX_NUMNODES. */
#define PMAPS_NODE_MAX		65535L

/*
 * AGE '?', or absent: the MGLRU generation age of the folio, 0 for the
 * youngest generation (Documentation/pmaps_ext.rst, "NUMA fields").  The
 * kernel keeps at most MAX_NR_GENS (4) generations, so AGE is 0 to 3; the
 * format allows up to PMAPS_AGE_MAX, the most the generation bits of
 * folio->flags could ever number.
 */
#define PMAPS_AGE_UNKNOWN	(-1)
#define PMAPS_AGE_MAX		7

/*
 * MAPCOUNT '?': the kernel withholds the count from a reader without root
 * (page-cache pages of files the reader could not open for writing, unless
 * mapped exactly once).  It is not a number: such a page counts as neither
 * shared nor private.  -1, so that "mapcount > 1" (shared) is false for it
 * without a test.
 */
#define PMAPS_MAPCOUNT_UNKNOWN	(-1L)

struct pmaps_vma {
	unsigned long long start, end;	/* byte addresses, end exclusive */
	char perms[5];			/* "rw-p" */
	unsigned long long offset;	/* file offset in bytes, 0 for anon */
	unsigned int dev_major, dev_minor;
	unsigned long long inode;
	/* name, header and ranges: each its own malloc, freed by map_free */
	char *name;			/* path or [heap] etc; "" if none */
	char *header;			/* the header line as read, no '\n' */
	struct pmaps_range *ranges;
	size_t nr_ranges;
	unsigned int line;
	/* Pages in swap, or -1 when the source cannot know (kernel text). */
	long long swapped;
	/*
	 * The source read the page flags of every page it listed here and
	 * none was in a large folio (THP, mTHP, hugetlb), as the pagemap
	 * source with kpageflags tells; false when it cannot tell (every
	 * other source, and a document read from a file).
	 */
	bool small_folios;
	/*
	 * Bytes of a page of the kernel the VMA was read from, which INDEX
	 * and COUNT count in; 0: this host's (pmaps_page_size()), as for
	 * every VMA read live.  Use pmaps_vma_page_size().
	 */
	unsigned long long page_size;
};

struct pmaps_map {
	struct pmaps_vma *vmas;
	size_t nr_vmas;
	/*
	 * Range lines carry NODE and KB (/proc/pmaps_ext/numa/PID,
	 * /proc/PID/pmaps_numa, pmaps/3 JSON with them): at least one did.
	 */
	bool numa;
	/* Range lines carry AGE after KB as well: at least one did. */
	bool age;
	/*
	 * Bytes of a page of the kernel the document came from, as in each
	 * VMA; 0: this host's.  Use pmaps_map_page_size().
	 */
	unsigned long long page_size;
};

/*
 * The page size of a document: a process read live on this host has the
 * host's; a document read from a file has the one its text allows
 * (Documentation/pmaps_ext.rst, "Page size"), or its JSON says, or the
 * caller gives (pmaps --page-size).
 */
unsigned long long pmaps_map_page_size(const struct pmaps_map *map);
unsigned long long pmaps_vma_page_size(const struct pmaps_vma *v);

/*
 * Page sizes a document read from a file may have without --page-size:
 * the powers of two from 4 KiB to 64 KiB, the base page sizes of the
 * kernels Linux builds for (arm64 4K, 16K and 64K among them).
 */
#define PMAPS_DOC_PAGE_SHIFT_MIN	12
#define PMAPS_DOC_PAGE_SHIFT_MAX	16
/* Whether n is one of them. */
bool pmaps_page_size_ok(unsigned long long n);

/*
 * For the parsers: the page sizes a document read with page_size (0: it
 * tells) may have, as their sum (each is a power of two); the one of
 * sizes that messages use (the host's if there, else the smallest); and
 * sizes as words, "4096, 16384 or 65536", into buf.
 */
unsigned long long pmaps_page_sizes_init(unsigned long long page_size);
unsigned long long pmaps_page_sizes_ref(unsigned long long sizes);
void pmaps_page_sizes_str(unsigned long long sizes, char *buf, size_t len);

/*
 * The page size pmaps_parse_buf(), pmaps_parse_file() and pmaps_read_doc()
 * read documents with: 0 (the default) for the one each document tells,
 * else n (pmaps --page-size), which a document must fit.
 */
void pmaps_set_doc_page_size(unsigned long long n);
unsigned long long pmaps_doc_page_size(void);

/*
 * Parse a whole document: the text format, or the JSON of pmaps --json
 * (see pmaps_is_json() and pmaps_parse_json()).  Return 0 on success.
 * On malformed input return -1 and write "NAME:LINE: expected ..." into
 * err (NAME is the file name given by the caller).  On allocation failure
 * return -1 with a message.  *out is valid (possibly partial) in both
 * cases and must be freed.  *out is overwritten on entry, not freed.
 * Lines starting with '@' and range columns after KB are skipped.
 * buf needs no NUL terminator.
 */
int pmaps_parse_file(FILE *f, const char *name, struct pmaps_map *out,
		     char *err, size_t errlen);
int pmaps_parse_buf(const char *buf, size_t len, const char *name,
		    struct pmaps_map *out, char *err, size_t errlen);
/*
 * The same with the page size given: page_size (this host's for a process
 * read live), or 0 for the one the document tells.
 */
int pmaps_parse_buf_as(const char *buf, size_t len, const char *name,
		       unsigned long long page_size, struct pmaps_map *out,
		       char *err, size_t errlen);
void pmaps_map_free(struct pmaps_map *map);

/*
 * Whether buf holds JSON rather than the text format: its first byte that
 * is not a space, TAB, CR or LF is '{', which no text line starts with.
 */
bool pmaps_is_json(const char *buf, size_t len);

/*
 * The JSON that pmaps --json writes (schema pmaps/1 or pmaps/2,
 * Documentation/pmaps-json.rst), with exactly one target, into *out as
 * pmaps_parse_buf() would parse the same document in the text format;
 * each VMA's header is rebuilt from its fields.  Errors and *out as for
 * pmaps_parse_buf().
 */
int pmaps_parse_json(const char *buf, size_t len, const char *name,
		     struct pmaps_map *out, char *err, size_t errlen);
/*
 * The same on a prefix of a document that ends at a line's end: 1 when
 * the only thing wrong is that it stops (more may follow), else as
 * pmaps_parse_json().
 */
int pmaps_parse_json_prefix(const char *buf, size_t len, const char *name,
			    struct pmaps_map *out, char *err, size_t errlen);
/* Both with the page size given, as pmaps_parse_buf_as(). */
int pmaps_parse_json_as(const char *buf, size_t len, const char *name,
			unsigned long long page_size, struct pmaps_map *out,
			char *err, size_t errlen);
int pmaps_parse_json_prefix_as(const char *buf, size_t len, const char *name,
			       unsigned long long page_size,
			       struct pmaps_map *out, char *err,
			       size_t errlen);

/*
 * The longest line, newline excluded, of a document in either format.
 * The longest line the kernel writes is a VMA header: its fields take
 * under 128 bytes, and its name is a path of at most PATH_MAX (4096)
 * bytes with each '\n' escaped as "\012" and " (deleted)" after it:
 * under 16.5 KiB.  In JSON a byte of the name takes at most 6 ("\u00XX"):
 * under 25 KiB.  64 KiB leaves room for columns to come.
 */
#define PMAPS_LINE_MAX		65536
/*
 * Blank lines in a row at the start of a document or in JSON (pmaps
 * --json writes none; the text format allows none).
 */
#define PMAPS_BLANK_LINES_MAX	4096

/*
 * Read a whole document, text or JSON, from fd, and parse it as it comes:
 * the first bad line ends the read, so endless or huge input costs no
 * more memory than its first bad line is far in (a text document is
 * parsed line by line; a JSON one whenever the input has grown fourfold).
 * A NUL byte, a line longer than PMAPS_LINE_MAX or more than
 * PMAPS_BLANK_LINES_MAX blank lines in a row are errors at their line.
 * On success *text (malloc'ed, no NUL terminator; NULL when empty) holds
 * the input, *len its length, *out the document.  Return 0; -1 when read()
 * failed or memory ran out, with errno set and err untouched; -2 on
 * malformed input, with "NAME:LINE: expected ..." in err.  *out must be
 * freed in every case; *text is NULL after a failure.
 */
int pmaps_read_doc(int fd, const char *name, char **text, size_t *len,
		   struct pmaps_map *out, char *err, size_t errlen);
/* The same with the page size given, as pmaps_parse_buf_as(). */
int pmaps_read_doc_as(int fd, const char *name, unsigned long long page_size,
		      char **text, size_t *len, struct pmaps_map *out,
		      char *err, size_t errlen);

/*
 * Make room for need elements of size bytes in the array at *p, which has
 * room for *cap: the capacity doubles, so appending one at a time stays
 * cheap.  0, or -1 when out of memory (*p and *cap untouched).
 */
int pmaps_grow_array(void **p, size_t *cap, size_t need, size_t size);

/*
 * This host's page size (sysconf value): the page size of processes read
 * live; a document's is pmaps_map_page_size().
 */
unsigned long pmaps_page_size(void);

/*
 * What a folio of kb KiB (a range's KB) is with pages of page_size bytes:
 * the one definition of "thp" and "mTHP" that every view uses.  "thp" is
 * a PMD-sized folio (2 MiB with 4 KiB pages, 32 MiB with 16 KiB pages),
 * "mTHP" a large folio below that; the kernel makes no transparent folio
 * above PMD size, so a PUD-sized one (1 GiB with 4 KiB pages) is hugetlb.
 */
enum pmaps_folio_kind {
	PMAPS_FOLIO_UNKNOWN,	/* KB '?' */
	PMAPS_FOLIO_BASE,	/* one page */
	PMAPS_FOLIO_MTHP,	/* more than a page, less than PMD size */
	PMAPS_FOLIO_THP,	/* PMD size */
	PMAPS_FOLIO_PUD,	/* PUD size */
	PMAPS_FOLIO_OTHER,	/* any other size */
	/* told only by kpageflags, never by a KB: */
	PMAPS_FOLIO_HUGETLB,	/* KPF_HUGE, of any size */
	PMAPS_FOLIO_ZERO,	/* the shared zero page */
	PMAPS_FOLIO_HUGE_ZERO,	/* the huge zero page */
};
enum pmaps_folio_kind pmaps_folio_kind(unsigned long long kb,
				       unsigned long long page_size);
/*
 * The same from a page's /proc/kpageflags (kpf) and its folio's size in
 * KiB as measured from the compound head and tails (PMAPS_KB_UNKNOWN if
 * not measured).  KPF_THP is set on every transparent large folio, so it
 * alone never makes a "thp": the size decides.
 */
enum pmaps_folio_kind pmaps_folio_kind_kpf(unsigned long long kpf,
					   unsigned long long kb,
					   unsigned long long page_size);
/*
 * Whether pmaps_folio_kind_kpf(kpf, kb, ...) depends on kb: only for a
 * compound page that is neither hugetlb nor a zero page.  Measuring a
 * folio costs reads of kpageflags, which the other pages need not pay.
 */
int pmaps_folio_kind_needs_kb(unsigned long long kpf);
/*
 * "thp", "mTHP", "small", "zero-page", ...: the kind's name in every view,
 * one word, so that a column of them stays one field; "folio?" unknown.
 */
const char *pmaps_folio_kind_name(enum pmaps_folio_kind kind);
/* PMD and PUD sizes in KiB: a page-table page holds page_size / 8 entries. */
unsigned long long pmaps_pmd_kb(unsigned long long page_size);
unsigned long long pmaps_pud_kb(unsigned long long page_size);

/*
 * Virtual address of the first page of range r in vma v.  File-backed VMAs
 * (inode != 0) count index in file pages, from offset; anonymous VMAs use
 * the virtual page number.
 */
unsigned long long pmaps_range_addr(const struct pmaps_vma *v,
				    const struct pmaps_range *r);
/* The same with pages of page_size bytes. */
unsigned long long pmaps_range_addr_at(const struct pmaps_vma *v,
				       const struct pmaps_range *r,
				       unsigned long long page_size);

/*
 * The VMA of map holding addr, and the range of v holding the page at
 * addr; NULL if none.  Binary searches: the parser keeps VMAs and ranges
 * in address order.
 */
const struct pmaps_vma *pmaps_find_vma(const struct pmaps_map *map,
				       unsigned long long addr);
const struct pmaps_range *pmaps_find_range(const struct pmaps_vma *v,
					   unsigned long long addr);

/*
 * Whether the pages of a range are dirty as smaps counts them: written
 * through a page table (P) or marked for writeback (D).  Every total of
 * dirty pages counts by it.
 */
enum pmaps_dirtiness {
	PMAPS_CLEAN,		/* P and D known clear */
	PMAPS_DIRTY_SET,	/* P or D set */
	PMAPS_DIRTY_UNKNOWN,	/* neither set, and P or D '?' */
};
enum pmaps_dirtiness pmaps_range_dirtiness(const struct pmaps_range *r);

/*
 * What a total that counts some pages of unknown state prints before the
 * known part, which is then a lower bound: ">=4.0M".  A total with
 * nothing known to count prints "-".
 */
#define PMAPS_AT_LEAST	">="
/*
 * A count v that pages of unknown state may add to (unknown) as every
 * total prints it, NUL-terminated: v, ">=v", or "-" when v is 0 and
 * unknowns exist.  Returns the length.  Room: PMAPS_BOUND_LEN bytes.
 */
#define PMAPS_BOUND_LEN	(sizeof(PMAPS_AT_LEAST) + 20)
size_t pmaps_format_bound(char *out, unsigned long long v, bool unknown);

/* Format flags as 7 letters plus NUL, '_' for clear, '?' for unknown. */
void pmaps_format_flags(unsigned int flags, unsigned int unknown,
			char out[PMAPS_NR_FLAGS + 1]);

/*
 * The decimal digits of v at p, without NUL (at most 20); returns their
 * number.  Every writer of the text's numbers uses it.
 */
size_t pmaps_format_udec(char *p, unsigned long long v);

/*
 * NODE and KB as the text format writes them, NUL-terminated: decimal,
 * or "?" for unknown.  Returns the length.  Room: 21 bytes.
 */
size_t pmaps_format_node(long node, char out[21]);
size_t pmaps_format_kb(unsigned long long kb, char out[21]);
/* AGE likewise: decimal, or "?" for unknown.  Room: 21 bytes. */
size_t pmaps_format_age(int age, char out[21]);

/*
 * Pages per AGE (pmaps_map.age): pages[a] at age a, unknown at '?'.  Every
 * count by age goes through pmaps_ages_add(), so that a '?' is never
 * counted as a known age.
 */
struct pmaps_ages {
	unsigned long long pages[PMAPS_AGE_MAX + 1];
	unsigned long long unknown;
};
void pmaps_ages_add(struct pmaps_ages *a, const struct pmaps_range *r);
void pmaps_ages_sum(struct pmaps_ages *sum, const struct pmaps_ages *a);
/*
 * The ages a view lists: 0 to 3, the kernel's, and any older one counted
 * (the format allows up to PMAPS_AGE_MAX), so none is lumped with another.
 */
int pmaps_ages_shown(const struct pmaps_ages *a);

/*
 * PSS and USS as smaps and smem count them, from each page's mapcount: a
 * page mapped by N page-table entries adds page_size / N to PSS, and to
 * USS (smaps' Private_Clean + Private_Dirty) when N is 1.  As smaps does
 * (smaps_account() in fs/proc/task_mmu.c), a page with a mapcount below 2
 * counts whole, and PSS is summed in fixed point, bytes <<
 * PMAPS_PSS_SHIFT, each page's share rounded down there; so the PSS of a
 * VMA or of a process, shifted by 10 + PMAPS_PSS_SHIFT, is smaps' Pss or
 * smaps_rollup's in kB, exactly where the mapcount is the page's own
 * (CONFIG_PAGE_MAPCOUNT, or a small folio).  A page whose mapcount is
 * withheld ('?') may have any share: it is counted in unknown, never in
 * pss or uss, which are then lower bounds (pmaps_format_bound()).
 */
#define PMAPS_PSS_SHIFT	12
struct pmaps_pss {
	unsigned long long pss;		/* bytes << PMAPS_PSS_SHIFT */
	unsigned long long uss;		/* bytes */
	unsigned long long unknown;	/* pages of mapcount '?' */
};
void pmaps_pss_add(struct pmaps_pss *s, const struct pmaps_range *r,
		   unsigned long long page_size);
void pmaps_pss_sum(struct pmaps_pss *sum, const struct pmaps_pss *s);
/* PSS in bytes, rounded down; in KiB: pmaps_pss_bytes() >> 10. */
unsigned long long pmaps_pss_bytes(const struct pmaps_pss *s);

/* Room for pmaps_format_mapcount(): the digits of LONG_MAX, and NUL. */
#define PMAPS_MAPCOUNT_LEN	21

/*
 * MAPCOUNT as the text format writes it, NUL-terminated: decimal, or "?"
 * for PMAPS_MAPCOUNT_UNKNOWN (and any other negative value, so that what
 * is written always parses back).  Returns the length.
 */
size_t pmaps_format_mapcount(long mapcount, char out[PMAPS_MAPCOUNT_LEN]);

#endif
