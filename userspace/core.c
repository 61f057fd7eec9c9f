// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps core FILE...: the mappings a core dump records, and which of them
 * the core holds the contents of.
 *
 * A Linux core (kernel or gdb's gcore) is an ELF file of type ET_CORE with
 * a PT_LOAD segment per VMA: p_memsz is the VMA's size, p_filesz how much
 * of it was written into the core, often 0 or one page for file mappings
 * (coredump_filter, see core(5)).  The NT_FILE note names the file behind
 * each file-backed VMA and the offset it is mapped from.  Joining the two
 * says what a debugger can show of each mapping: what the core holds, and
 * what it must read from a file, which it cannot when the file was deleted
 * or is a memfd.
 *
 * Only the headers and the notes are read, with pread(): a core of many
 * GiB costs no more than its notes.  Every offset and size is checked
 * against the file's size; a core cut short (RLIMIT_CORE, a full disk) is
 * shown as far as it goes, and reported.  x86-64 and arm64 (AArch64): the
 * size of NT_PRSTATUS is the architecture's (its registers), so each is
 * known by its e_machine; NT_PRPSINFO and NT_FILE are the same on both
 * (NT_FILE carries its own page size: 16 KiB or 64 KiB on some arm64).
 *
 * JSON (--json), schema "pmaps-core/1", one document for the whole run:
 *
 *   {"schema": "pmaps-core/1",
 *    "cores": [			one per FILE that could be read
 *     {"file": "core.1234",
 *      "pid": 1234,			from NT_PRPSINFO; pid, command and
 *      "command": "demo",		args are null without it
 *      "args": "./demo -x",
 *      "signal": 11,			from NT_PRSTATUS, or null
 *      "threads": 1,			NT_PRSTATUS notes
 *      "nt_file": true,		false: backing is "unknown"
 *      "truncated": false,		the file ends before its contents do
 *      "mapped": 8192,			bytes, the sum of the sizes
 *      "in_core": 4096,		bytes, the sum of in_core
 *      "lost": 0,			bytes of deleted/memfd mappings
 *      "mappings": [			not in the core; in address order
 *       {"start": "0x400000",		hex strings, as 64-bit values do
 *        "end": "0x401000",		not survive a double; end exclusive
 *        "perms": "r-x",		from p_flags; null for no-segment
 *        "offset": 0,			file offset in bytes
 *        "size": 4096,
 *        "in_core": 4096,		bytes of contents the file holds
 *        "contents": "data",		see contents_names[]
 *        "backing": "file",		see backing_names[]
 *        "name": "/bin/demo"}]}]}	"" for anonymous memory
 *
 * Strings are escaped as in pmaps --json.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "le.h"

/* struct elf_prpsinfo of x86-64 and arm64; elf_prstatus (struct machine) */
#define PRPSINFO_SIZE		136
#define PRPSINFO_PID		24
#define PRPSINFO_FNAME		40
#define PRPSINFO_FNAME_LEN	16
#define PRPSINFO_PSARGS		56
#define PRPSINFO_PSARGS_LEN	80
#define PRSTATUS_CURSIG		12
#define PRSTATUS_MAX		392	/* the largest of machines[] */

#define EHDR_SIZE	64	/* Elf64_Ehdr */
#define PHDR_SIZE	56	/* Elf64_Phdr */
#define SHDR_SIZE	64	/* Elf64_Shdr */
#define SHDR_INFO	44	/* sh_info in it */
#define NHDR_SIZE	12	/* Elf64_Nhdr */
/* NT_FILE: count and page size, then per file start, end, page offset */
#define NT_FILE_HDR	16
#define NT_FILE_ENT	24

static const char usage_text[] =
"Usage: pmaps core [OPTION]... FILE...\n"
"Show the mappings a core dump records: its PT_LOAD segments joined with\n"
"the files its NT_FILE note names, and what of each the core holds.\n"
"\n"
"      --json            JSON, one document for all FILEs\n"
"      --tsv             tab-separated values, one row per mapping\n"
"  -h, --help            show this help and exit\n"
"\n"
"Columns: Address, Perm (of the PT_LOAD segment), Offset (in the file,\n"
"hex), Kbytes (the size), InCore (KiB of contents in the core), Contents,\n"
"Backing, Mapping.  Contents:\n"
"  data         all of it is in the core\n"
"  partial      only its start is (often the first page of an ELF file)\n"
"  file-only    none of it: a debugger must read the file\n"
"  not-dumped   none of it, and no file has it\n"
"  truncated    the core file ends before this mapping's contents\n"
"  no-segment   NT_FILE names it, no PT_LOAD segment has it (gcore)\n"
"Backing: anon, file, deleted (the name ends in \" (deleted)\"), memfd (a\n"
"memfd, deleted too), or unknown (no NT_FILE note).  A debugger cannot\n"
"reopen deleted files and memfds: what the core lacks of them is lost.\n"
"\n"
"Exit status: 0 if all went well, 1 if a FILE could not be read, 2 if a\n"
"FILE is not an x86-64 or arm64 ELF core, is malformed or truncated\n"
"(what could be read is still shown), or for bad usage.\n";

enum contents {
	C_DATA, C_PARTIAL, C_FILE_ONLY, C_NOT_DUMPED, C_TRUNCATED,
	C_NO_SEGMENT, C_NR
};

static const char *const contents_names[C_NR] = {
	"data", "partial", "file-only", "not-dumped", "truncated",
	"no-segment",
};

enum backing { B_ANON, B_FILE, B_DELETED, B_MEMFD, B_UNKNOWN };

static const char *const backing_names[] = {
	"anon", "file", "deleted", "memfd", "unknown",
};

/* A PT_LOAD segment: [vaddr, end); present <= filesz bytes in the file. */
struct load {
	uint64_t vaddr, end, filesz, present;
	uint32_t flags;
};

/* An NT_FILE entry; offset in bytes, name points into core.nt_file. */
struct mapped_file {
	uint64_t start, end, offset;
	const char *name;
};

/* One output line: a load, or the part of one that a file backs. */
struct row {
	uint64_t start, end, offset, in_core;
	int flags;			/* PF_R|PF_W|PF_X, -1: no segment */
	enum contents contents;
	enum backing backing;
	const char *name;		/* "" for anonymous memory */
};

/*
 * An architecture read: struct elf_prstatus is 112 bytes, then pr_reg
 * (ELF_NGREG registers of 8 bytes), then pr_fpvalid and padding to 8.
 */
struct machine {
	unsigned int e_machine;
	const char *name;		/* in messages */
	uint32_t prstatus_size;
};

static const struct machine machines[] = {
	{ EM_X86_64, "x86-64", 336 },	/* 27: struct user_regs_struct */
	{ EM_AARCH64, "arm64", 392 },	/* 34: struct user_pt_regs */
};

struct core {
	const char *path;
	const struct machine *machine;	/* set once the ELF header is read */
	int fd;
	uint64_t size;			/* of the file */
	uint64_t needed;		/* what the headers say it holds */
	enum pmaps_status status;	/* worst problem so far */
	struct load *loads;
	size_t nr_loads;
	bool has_nt_file;
	char *nt_file;			/* the NT_FILE note's description */
	struct mapped_file *files;
	size_t nr_files;
	bool has_psinfo;
	int pid;
	char fname[PRPSINFO_FNAME_LEN + 1];
	char psargs[PRPSINFO_PSARGS_LEN + 1];
	int signal;			/* of the first thread; -1: unknown */
	unsigned int threads;
	struct row *rows;
	size_t nr_rows, cap_rows;
};

enum format { FMT_TEXT, FMT_TSV, FMT_JSON };

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Bytes of [a, b) that are also in [lo, hi). */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;

	return e > s ? e - s : 0;
}

__attribute__((format(printf, 3, 4)))
static void problem(struct core *c, enum pmaps_status st, const char *fmt,
		    ...)
{
	va_list ap;

	fprintf(stderr, "pmaps core: %s: ", c->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (st > c->status)
		c->status = st;
}

/*
 * n bytes at off, which the caller has checked are within the file; 0, or
 * -1 after saying why not (an I/O error, or the file shrank meanwhile).
 */
static int read_at(struct core *c, uint64_t off, void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t got = pread(c->fd, p, n, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			problem(c, PMAPS_ERR_TARGET, "read at offset 0x%llx: %s",
				(unsigned long long)off,
				got ? strerror(errno) : "the file shrank");
			return -1;
		}
		p += got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

/* ---- the ELF header and program headers ---- */

/* Compressors that systemd-coredump and friends use, by magic number. */
static const char *compressed_by(const unsigned char *h, size_t n)
{
	static const struct {
		const char *name;
		unsigned char magic[4];
		size_t len;
	} magics[] = {
		{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
		{ "xz", { 0xfd, '7', 'z', 'X' }, 4 },
		{ "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4 },
		{ "gzip", { 0x1f, 0x8b }, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (n >= magics[i].len &&
		    !memcmp(h, magics[i].magic, magics[i].len))
			return magics[i].name;
	return NULL;
}

/* Names of the values of a header field, of signals. */
struct named {
	unsigned int value;
	const char *name;
};

#define NAMED(x)	{ x, #x }
#define NAMES(t)	t, sizeof(t) / sizeof(t[0])

static const struct named elf_classes[] = {
	NAMED(ELFCLASSNONE), NAMED(ELFCLASS32), NAMED(ELFCLASS64),
};

static const struct named elf_datas[] = {
	NAMED(ELFDATANONE), NAMED(ELFDATA2LSB), NAMED(ELFDATA2MSB),
};

static const struct named elf_types[] = {
	NAMED(ET_NONE), NAMED(ET_REL), NAMED(ET_EXEC), NAMED(ET_DYN),
	NAMED(ET_CORE),
};

static const struct named elf_machines[] = {
	NAMED(EM_386), NAMED(EM_ARM), NAMED(EM_AARCH64), NAMED(EM_PPC64),
	NAMED(EM_S390), NAMED(EM_RISCV), NAMED(EM_X86_64),
};

/* The signals whose default action dumps core; Linux numbers. */
static const struct named core_signals[] = {
	{ 3, "SIGQUIT" }, { 4, "SIGILL" }, { 5, "SIGTRAP" },
	{ 6, "SIGABRT" }, { 7, "SIGBUS" }, { 8, "SIGFPE" },
	{ 11, "SIGSEGV" }, { 24, "SIGXCPU" }, { 25, "SIGXFSZ" },
	{ 31, "SIGSYS" },
};

static const char *name_of(const struct named *t, size_t n, unsigned int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

/* What the ELF header must hold, and how to say it does not. */
static const struct ehdr_check {
	size_t off, size;		/* of the field: 1 or 2 bytes */
	unsigned int want;
	const char *expected, *field;
	const struct named *names;
	size_t nr_names;
} ehdr_checks[] = {
	{ EI_CLASS, 1, ELFCLASS64, "a 64-bit ELF core file (ELFCLASS64)",
	  "EI_CLASS", NAMES(elf_classes) },
	{ EI_DATA, 1, ELFDATA2LSB,
	  "a little-endian ELF core file (ELFDATA2LSB)", "EI_DATA",
	  NAMES(elf_datas) },
	{ 16, 2, ET_CORE, "an ELF core file (e_type ET_CORE)", "e_type",
	  NAMES(elf_types) },
};

/* "expected EXPECTED, got" the name of got in t, or "FIELD got" */
static void unexpected(struct core *c, const char *expected, const char *field,
		       const struct named *t, size_t n, unsigned int got)
{
	const char *what = name_of(t, n, got);

	if (what)
		problem(c, PMAPS_ERR_INPUT, "expected %s, got %s", expected,
			what);
	else
		problem(c, PMAPS_ERR_INPUT, "expected %s, got %s %u", expected,
			field, got);
}

/*
 * 0 if h (n bytes of the file's start) is an ELF64 LE core of one of
 * machines[], which c->machine then points to.
 */
static int check_ehdr(struct core *c, const unsigned char *h, size_t n)
{
	const char *what;
	unsigned int machine;
	size_t i;

	if (n < SELFMAG || memcmp(h, ELFMAG, SELFMAG)) {
		what = compressed_by(h, n);
		if (what)
			problem(c, PMAPS_ERR_INPUT,
				"expected an ELF core file, got %s-compressed data (decompress it first)",
				what);
		else
			problem(c, PMAPS_ERR_INPUT,
				"expected an ELF core file, got no ELF magic (7f 45 4c 46) at its start");
		return -1;
	}
	if (n < EHDR_SIZE) {
		problem(c, PMAPS_ERR_INPUT,
			"truncated: expected a %d-byte ELF header, got %zu bytes",
			EHDR_SIZE, n);
		return -1;
	}
	for (i = 0; i < sizeof(ehdr_checks) / sizeof(ehdr_checks[0]); i++) {
		const struct ehdr_check *k = &ehdr_checks[i];
		unsigned int got = k->size == 1 ? h[k->off] : le16(h + k->off);

		if (got == k->want)
			continue;
		unexpected(c, k->expected, k->field, k->names, k->nr_names,
			   got);
		return -1;
	}
	machine = le16(h + 18);
	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		if (machines[i].e_machine == machine) {
			c->machine = &machines[i];
			return 0;
		}
	}
	unexpected(c, "an x86-64 or arm64 core file (e_machine EM_X86_64 or EM_AARCH64)",
		   "e_machine", NAMES(elf_machines), machine);
	return -1;
}

/*
 * The number of program headers: e_phnum, or with more than 65534 of them
 * (PN_XNUM) section header 0's sh_info.  -1 after a problem.
 */
static int64_t phdr_count(struct core *c, const unsigned char *h)
{
	unsigned char sh[SHDR_SIZE];
	uint64_t shoff = le64(h + 40);

	if (le16(h + 56) != PN_XNUM)
		return le16(h + 56);
	if (!shoff || le16(h + 58) != SHDR_SIZE) {
		problem(c, PMAPS_ERR_INPUT,
			"e_phnum is PN_XNUM: expected section header 0 (of %d bytes) to hold the count, got e_shoff 0x%llx, e_shentsize %u",
			SHDR_SIZE, (unsigned long long)shoff, le16(h + 58));
		return -1;
	}
	if (shoff > c->size || c->size - shoff < SHDR_SIZE) {
		problem(c, PMAPS_ERR_INPUT,
			"truncated: expected section header 0 at 0x%llx-0x%llx, the file ends at 0x%llx",
			(unsigned long long)shoff,
			(unsigned long long)shoff + SHDR_SIZE,
			(unsigned long long)c->size);
		return -1;
	}
	if (read_at(c, shoff, sh, sizeof(sh)))
		return -1;
	return le32(sh + SHDR_INFO);
}

/* The program header table, malloc()ed; NULL after a problem. */
static unsigned char *read_phdrs(struct core *c, const unsigned char *h,
				 size_t *nr)
{
	uint64_t phoff = le64(h + 32), len;
	int64_t count = phdr_count(c, h);
	unsigned char *ph;

	if (count < 0)
		return NULL;
	*nr = (size_t)count;
	if (!count)
		return calloc(1, 1);	/* nothing to read, wherever e_phoff is */
	if (le16(h + 54) != PHDR_SIZE) {
		problem(c, PMAPS_ERR_INPUT,
			"expected e_phentsize %d (Elf64_Phdr), got %u",
			PHDR_SIZE, le16(h + 54));
		return NULL;
	}
	/* count < 2^32: no overflow */
	len = (uint64_t)count * PHDR_SIZE;
	if (phoff > c->size || c->size - phoff < len) {
		problem(c, PMAPS_ERR_INPUT,
			"truncated: expected %lld program headers at 0x%llx-0x%llx, the file ends at 0x%llx",
			(long long)count, (unsigned long long)phoff,
			(unsigned long long)(phoff + len),
			(unsigned long long)c->size);
		return NULL;
	}
	ph = malloc((size_t)len);
	if (!ph) {
		problem(c, PMAPS_ERR_TARGET, "out of memory");
		return NULL;
	}
	if (read_at(c, phoff, ph, (size_t)len)) {
		free(ph);
		return NULL;
	}
	return ph;
}

static void add_load(struct core *c, size_t i, const unsigned char *p)
{
	uint64_t off = le64(p + 8), vaddr = le64(p + 16);
	uint64_t filesz = le64(p + 32), memsz = le64(p + 40);
	struct load *l;

	if (!memsz)
		return;		/* maps nothing */
	if (memsz > UINT64_MAX - vaddr) {
		problem(c, PMAPS_ERR_INPUT,
			"program header %zu (PT_LOAD): expected p_vaddr + p_memsz within 64 bits, got 0x%llx + 0x%llx",
			i, (unsigned long long)vaddr,
			(unsigned long long)memsz);
		return;
	}
	if (filesz > memsz) {
		problem(c, PMAPS_ERR_INPUT,
			"program header %zu (PT_LOAD): expected p_filesz at most p_memsz (0x%llx), got 0x%llx",
			i, (unsigned long long)memsz,
			(unsigned long long)filesz);
		return;
	}
	if (filesz > UINT64_MAX - off) {
		problem(c, PMAPS_ERR_INPUT,
			"program header %zu (PT_LOAD): expected p_offset + p_filesz within 64 bits, got 0x%llx + 0x%llx",
			i, (unsigned long long)off,
			(unsigned long long)filesz);
		return;
	}
	l = &c->loads[c->nr_loads++];
	l->vaddr = vaddr;
	l->end = vaddr + memsz;
	l->filesz = filesz;
	l->present = off >= c->size ? 0 : min_u64(filesz, c->size - off);
	l->flags = le32(p + 4);
	if (filesz && off + filesz > c->needed)
		c->needed = off + filesz;
}

/* ---- notes ---- */

static void set_psinfo(struct core *c, const unsigned char *d)
{
	size_t n;

	c->has_psinfo = true;
	c->pid = (int)le32(d + PRPSINFO_PID);
	memcpy(c->fname, d + PRPSINFO_FNAME, PRPSINFO_FNAME_LEN);
	c->fname[PRPSINFO_FNAME_LEN] = '\0';
	memcpy(c->psargs, d + PRPSINFO_PSARGS, PRPSINFO_PSARGS_LEN);
	c->psargs[PRPSINFO_PSARGS_LEN] = '\0';
	/* the kernel turns each argument's NUL into a space, the last too */
	n = strlen(c->psargs);
	while (n && c->psargs[n - 1] == ' ')
		c->psargs[--n] = '\0';
}

/* A problem in NT_FILE: the note is not used. */
__attribute__((format(printf, 2, 3)))
static void bad_nt_file(struct core *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	problem(c, PMAPS_ERR_INPUT, "NT_FILE: %s; file names not shown", msg);
	free(c->files);
	c->files = NULL;
	c->nr_files = 0;
}

/* Parse the NT_FILE description d of n bytes, which c->nt_file keeps. */
static void parse_nt_file(struct core *c, const char *d, uint64_t n)
{
	const char *name, *end = d + n;
	uint64_t count, page_size, i;

	if (n < NT_FILE_HDR) {
		bad_nt_file(c, "expected at least %d bytes (count, page size), got %llu",
			    NT_FILE_HDR, (unsigned long long)n);
		return;
	}
	count = le64((const unsigned char *)d);
	page_size = le64((const unsigned char *)d + 8);
	if (!page_size || (page_size & (page_size - 1))) {
		bad_nt_file(c, "expected a page size that is a power of two, got %llu",
			    (unsigned long long)page_size);
		return;
	}
	if (count > (n - NT_FILE_HDR) / NT_FILE_ENT) {
		bad_nt_file(c, "expected %llu entries of %d bytes, got %llu bytes for them",
			    (unsigned long long)count, NT_FILE_ENT,
			    (unsigned long long)(n - NT_FILE_HDR));
		return;
	}
	c->files = calloc(count ? (size_t)count : 1, sizeof(*c->files));
	if (!c->files) {
		problem(c, PMAPS_ERR_TARGET, "out of memory");
		return;
	}
	name = d + NT_FILE_HDR + count * NT_FILE_ENT;
	for (i = 0; i < count; i++) {
		const unsigned char *e = (const unsigned char *)d +
					 NT_FILE_HDR + i * NT_FILE_ENT;
		struct mapped_file *f = &c->files[i];
		const char *nul = memchr(name, '\0', (size_t)(end - name));
		uint64_t pgoff = le64(e + 16);

		if (!nul) {
			bad_nt_file(c, "expected %llu NUL-terminated file names, got %llu",
				    (unsigned long long)count,
				    (unsigned long long)i);
			return;
		}
		f->start = le64(e);
		f->end = le64(e + 8);
		f->name = name;
		name = nul + 1;
		if (f->start >= f->end) {
			bad_nt_file(c, "entry %llu: expected start below end, got 0x%llx-0x%llx",
				    (unsigned long long)i,
				    (unsigned long long)f->start,
				    (unsigned long long)f->end);
			return;
		}
		if (i && f->start < f[-1].end) {
			bad_nt_file(c, "entry %llu: expected start at or after 0x%llx (the end of entry %llu), got 0x%llx",
				    (unsigned long long)i,
				    (unsigned long long)f[-1].end,
				    (unsigned long long)i - 1,
				    (unsigned long long)f->start);
			return;
		}
		if (pgoff > UINT64_MAX / page_size ||
		    pgoff * page_size > UINT64_MAX - (f->end - f->start)) {
			bad_nt_file(c, "entry %llu: expected a file offset within 64 bits, got page %llu of %llu bytes",
				    (unsigned long long)i,
				    (unsigned long long)pgoff,
				    (unsigned long long)page_size);
			return;
		}
		f->offset = pgoff * page_size;
		c->nr_files++;
	}
	c->has_nt_file = true;
}

/* The note's description [off, off + n) is within the file. */
static void use_note(struct core *c, uint32_t type, uint64_t off, uint32_t n)
{
	uint32_t prstatus_size = c->machine->prstatus_size;
	unsigned char buf[PRSTATUS_MAX];

	switch (type) {
	case NT_FILE:
		if (c->nt_file)
			return;		/* the first one counts */
		c->nt_file = malloc(n ? n : 1);
		if (!c->nt_file) {
			problem(c, PMAPS_ERR_TARGET, "out of memory");
			return;
		}
		if (!read_at(c, off, c->nt_file, n))
			parse_nt_file(c, c->nt_file, n);
		return;
	case NT_PRPSINFO:
		if (n != PRPSINFO_SIZE) {
			problem(c, PMAPS_ERR_INPUT,
				"NT_PRPSINFO: expected %d bytes (%s struct elf_prpsinfo), got %u",
				PRPSINFO_SIZE, c->machine->name, n);
			return;
		}
		if (!c->has_psinfo && !read_at(c, off, buf, PRPSINFO_SIZE))
			set_psinfo(c, buf);
		return;
	case NT_PRSTATUS:
		if (n != prstatus_size) {
			problem(c, PMAPS_ERR_INPUT,
				"NT_PRSTATUS: expected %u bytes (%s struct elf_prstatus), got %u",
				prstatus_size, c->machine->name, n);
			return;
		}
		/* the first thread is the one that took the signal */
		if (!c->threads++ && !read_at(c, off, buf, prstatus_size))
			c->signal = (int16_t)le16(buf + PRSTATUS_CURSIG);
		return;
	}
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * The notes of the PT_NOTE segment [off, off + filesz): the "CORE" ones
 * that name the process and its files.  A note cut off by the end of the
 * file ends the walk quietly: the truncation is reported once, for all.
 */
static void read_notes(struct core *c, uint64_t off, uint64_t filesz,
		       uint64_t align)
{
	uint64_t pos = off, end;
	unsigned char nh[NHDR_SIZE];
	char name[5];

	if (filesz > UINT64_MAX - off) {
		problem(c, PMAPS_ERR_INPUT,
			"PT_NOTE: expected p_offset + p_filesz within 64 bits, got 0x%llx + 0x%llx",
			(unsigned long long)off, (unsigned long long)filesz);
		return;
	}
	end = off + filesz;
	if (end > c->needed)
		c->needed = end;
	/* gABI: 4-byte aligned, or 8 where p_align says so */
	if (align != 8)
		align = 4;
	while (pos < end) {
		uint64_t name_off, name_room, desc_off, desc_end;
		uint32_t namesz, descsz, type;

		if (end - pos < NHDR_SIZE) {
			problem(c, PMAPS_ERR_INPUT,
				"note at 0x%llx: expected a %d-byte note header, got %llu bytes before the end of its PT_NOTE segment (0x%llx)",
				(unsigned long long)pos, NHDR_SIZE,
				(unsigned long long)(end - pos),
				(unsigned long long)end);
			return;
		}
		if (pos + NHDR_SIZE > c->size || read_at(c, pos, nh, NHDR_SIZE))
			return;
		namesz = le32(nh);
		descsz = le32(nh + 4);
		type = le32(nh + 8);
		name_off = pos + NHDR_SIZE;
		name_room = align_up(namesz, align);
		/* sizes compared with what is left: no sum can overflow */
		if (name_room > end - name_off ||
		    descsz > end - name_off - name_room) {
			problem(c, PMAPS_ERR_INPUT,
				"note at 0x%llx: expected its name (%u bytes) and description (%u bytes) within the %llu bytes left of its PT_NOTE segment",
				(unsigned long long)pos, namesz, descsz,
				(unsigned long long)(end - name_off));
			return;
		}
		desc_off = name_off + name_room;
		desc_end = desc_off + descsz;
		if (desc_end > c->size)
			return;
		if (namesz == sizeof(name) &&
		    !read_at(c, name_off, name, sizeof(name)) &&
		    !memcmp(name, "CORE", sizeof(name)))
			use_note(c, type, desc_off, descsz);
		pos = min_u64(align_up(desc_end, align), end);
	}
}

/* ---- rows ---- */

static enum backing backing_of(const char *name)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(name), d = sizeof(deleted) - 1;

	if (n < d || strcmp(name + n - d, deleted))
		return B_FILE;
	return strncmp(name, "/memfd:", 7) ? B_DELETED : B_MEMFD;
}

/* [a, b) of load l (NULL: of no load), backed by f (NULL: by no file). */
static int add_row(struct core *c, const struct load *l, uint64_t a,
		   uint64_t b, const struct mapped_file *f)
{
	uint64_t dumped = 0;
	struct row *r;

	if (pmaps_grow_array((void **)&c->rows, &c->cap_rows, c->nr_rows + 1,
			     sizeof(*c->rows))) {
		problem(c, PMAPS_ERR_TARGET, "out of memory");
		return -1;
	}
	r = &c->rows[c->nr_rows++];
	r->start = a;
	r->end = b;
	r->offset = f ? f->offset + (a - f->start) : 0;
	r->name = f ? f->name : "";
	r->backing = f ? backing_of(f->name) :
		     c->has_nt_file ? B_ANON : B_UNKNOWN;
	r->flags = l ? (int)(l->flags & (PF_R | PF_W | PF_X)) : -1;
	r->in_core = 0;
	if (!l) {
		r->contents = C_NO_SEGMENT;
		return 0;
	}
	/* a segment's file data is its first filesz bytes */
	dumped = overlap(a, b, l->vaddr, l->vaddr + l->filesz);
	r->in_core = overlap(a, b, l->vaddr, l->vaddr + l->present);
	if (r->in_core < dumped)
		r->contents = C_TRUNCATED;
	else if (r->in_core == b - a)
		r->contents = C_DATA;
	else if (r->in_core)
		r->contents = C_PARTIAL;
	else if (r->backing == B_ANON || r->backing == B_UNKNOWN)
		r->contents = C_NOT_DUMPED;
	else
		r->contents = C_FILE_ONLY;
	return 0;
}

static int cmp_load(const void *a, const void *b)
{
	const struct load *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * Rows: each load cut where NT_FILE entries begin and end, and the parts
 * of entries that no load covers.  The kernel writes one entry per
 * file-backed load with the same bounds; gcore leaves some loads out.
 * Entries are sorted and disjoint (parse_nt_file checked), loads sorted.
 */
static int build_rows(struct core *c)
{
	size_t i, j, first = 0;
	uint64_t at;

	qsort(c->loads, c->nr_loads, sizeof(*c->loads), cmp_load);
	for (i = 0; i < c->nr_loads; i++) {
		const struct load *l = &c->loads[i];

		while (first < c->nr_files && c->files[first].end <= l->vaddr)
			first++;
		at = l->vaddr;
		for (j = first; j < c->nr_files && c->files[j].start < l->end;
		     j++) {
			const struct mapped_file *f = &c->files[j];
			uint64_t s = f->start > at ? f->start : at;
			uint64_t e = min_u64(f->end, l->end);

			if (s > at && add_row(c, l, at, s, NULL))
				return -1;
			if (add_row(c, l, s, e, f))
				return -1;
			at = e;
		}
		if (at < l->end && add_row(c, l, at, l->end, NULL))
			return -1;
	}
	first = 0;
	for (i = 0; i < c->nr_files; i++) {
		const struct mapped_file *f = &c->files[i];

		while (first < c->nr_loads && c->loads[first].end <= f->start)
			first++;
		at = f->start;
		for (j = first; j < c->nr_loads && c->loads[j].vaddr < f->end;
		     j++) {
			const struct load *l = &c->loads[j];

			if (l->vaddr > at && add_row(c, NULL, at, l->vaddr, f))
				return -1;
			if (l->end > at)
				at = min_u64(l->end, f->end);
		}
		if (at < f->end && add_row(c, NULL, at, f->end, f))
			return -1;
	}
	if (c->nr_rows)		/* rows is NULL without any */
		qsort(c->rows, c->nr_rows, sizeof(*c->rows), cmp_row);
	return 0;
}

/* ---- loading ---- */

static void core_free(struct core *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->loads);
	free(c->nt_file);
	free(c->files);
	free(c->rows);
}

/* Read path into c; false when there is nothing to show. */
static bool core_load(struct core *c, const char *path)
{
	unsigned char h[EHDR_SIZE], *ph, *p;
	struct stat st;
	size_t i, nr;
	ssize_t n;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->signal = -1;
	/* O_NONBLOCK: a FIFO is refused below, not waited on for a writer */
	c->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (c->fd < 0 || fstat(c->fd, &st)) {
		problem(c, PMAPS_ERR_TARGET, "%s", strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		problem(c, PMAPS_ERR_TARGET, "expected a regular file, got %s",
			S_ISDIR(st.st_mode) ? "a directory" :
			"a special file");
		return false;
	}
	c->size = (uint64_t)st.st_size;
	do
		n = pread(c->fd, h, sizeof(h), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		problem(c, PMAPS_ERR_TARGET, "%s", strerror(errno));
		return false;
	}
	if (check_ehdr(c, h, (size_t)n))
		return false;
	ph = read_phdrs(c, h, &nr);
	if (!ph)
		return false;
	c->loads = calloc(nr ? nr : 1, sizeof(*c->loads));
	if (!c->loads) {
		problem(c, PMAPS_ERR_TARGET, "out of memory");
		free(ph);
		return false;
	}
	for (i = 0, p = ph; i < nr; i++, p += PHDR_SIZE) {
		if (le32(p) == PT_LOAD)
			add_load(c, i, p);
		else if (le32(p) == PT_NOTE)
			read_notes(c, le64(p + 8), le64(p + 32), le64(p + 48));
	}
	free(ph);
	if (c->needed > c->size)
		problem(c, PMAPS_ERR_INPUT,
			"truncated: the file has %llu bytes, its program headers describe %llu (RLIMIT_CORE, ulimit -c, may have cut it)",
			(unsigned long long)c->size,
			(unsigned long long)c->needed);
	return !build_rows(c);
}

/* ---- output ---- */

/* Printable: as in the other views' names, or escaped for TSV or JSON. */
static void put_str(FILE *out, const char *s, enum format fmt)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (fmt == FMT_JSON && (*p == '"' || *p == '\\'))
			fprintf(out, "\\%c", *p);
		else if (fmt == FMT_JSON && *p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else if (fmt != FMT_JSON && *p == '\t')
			fputs("\\t", out);
		else if (fmt == FMT_TSV && (*p == '\\' || *p == '\n' ||
					    *p == '\r'))
			fputs(*p == '\\' ? "\\\\" : *p == '\n' ? "\\n" : "\\r",
			      out);
		else if (fmt == FMT_TEXT && (*p < 0x20 || *p == 0x7f))
			fprintf(out, "\\x%02x", *p);
		else
			putc(*p, out);
	}
}

static void put_perms(FILE *out, int flags)
{
	if (flags < 0) {
		fputs("???", out);
		return;
	}
	putc(flags & PF_R ? 'r' : '-', out);
	putc(flags & PF_W ? 'w' : '-', out);
	putc(flags & PF_X ? 'x' : '-', out);
}

struct totals {
	uint64_t mapped, in_core, lost;
	size_t contents[C_NR];
	size_t lost_rows;
};

static void count_rows(const struct core *c, struct totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];
		uint64_t size = r->end - r->start;

		t->mapped += size;
		t->in_core += r->in_core;
		t->contents[r->contents]++;
		if ((r->backing == B_DELETED || r->backing == B_MEMFD) &&
		    r->in_core < size) {
			t->lost += size - r->in_core;
			t->lost_rows++;
		}
	}
}

static int hex_digits(uint64_t v)
{
	int n = 1;

	while (n < 16 && v >> (4 * n))
		n++;
	return n;
}

static void text_title(FILE *out, const struct core *c)
{
	const char *name = name_of(NAMES(core_signals),
				   (unsigned int)c->signal);

	put_str(out, c->path, FMT_TEXT);
	if (c->has_psinfo) {
		fprintf(out, ": core of pid %d (", c->pid);
		put_str(out, c->fname, FMT_TEXT);
		putc(')', out);
	} else {
		fputs(": core of an unknown process (no NT_PRPSINFO note)",
		      out);
	}
	/* gcore of a running process: no signal */
	if (c->signal > 0)
		fprintf(out, ", signal %d%s%s%s", c->signal,
			name ? " (" : "", name ? name : "", name ? ")" : "");
	fprintf(out, ", %u thread%s\n", c->threads,
		c->threads == 1 ? "" : "s");
	if (c->has_psinfo && c->psargs[0]) {
		fputs("command: ", out);
		put_str(out, c->psargs, FMT_TEXT);
		putc('\n', out);
	}
	if (!c->has_nt_file)
		fputs("without NT_FILE: which mappings are file-backed is unknown; PT_LOAD segments only\n",
		      out);
}

static void print_text(FILE *out, const struct core *c)
{
	struct totals t;
	int aw = 8, kw = 8, lead;
	size_t i, k, nr = 0;

	count_rows(c, &t);
	if (c->nr_rows && hex_digits(c->rows[c->nr_rows - 1].end) > aw)
		aw = hex_digits(c->rows[c->nr_rows - 1].end);
	if ((int)snprintf(NULL, 0, "%llu",
			  (unsigned long long)(t.mapped / 1024)) > kw)
		kw = snprintf(NULL, 0, "%llu",
			      (unsigned long long)(t.mapped / 1024));
	/* Address Perm Offset: the columns before Kbytes */
	lead = 2 * aw + 1 + 1 + 4 + 1 + 8;

	text_title(out, c);
	/* pmap -x style: sizes in KiB, "Kbytes" says so */
	fprintf(out, "%-*s %-4s %-8s %*s %*s %-10s %-7s Mapping\n",
		2 * aw + 1, "Address", "Perm", "Offset", kw, "Kbytes", kw,
		"InCore", "Contents", "Backing");
	for (i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		fprintf(out, "%0*llx-%0*llx ", aw,
			(unsigned long long)r->start, aw,
			(unsigned long long)r->end);
		put_perms(out, r->flags);
		fprintf(out, "  %08llx %*llu %*llu %-10s %-7s ",
			(unsigned long long)r->offset, kw,
			(unsigned long long)((r->end - r->start) / 1024), kw,
			(unsigned long long)(r->in_core / 1024),
			contents_names[r->contents], backing_names[r->backing]);
		if (r->name[0])
			put_str(out, r->name, FMT_TEXT);
		else
			fputs(r->backing == B_UNKNOWN ? "[unknown]" : "[anon]",
			      out);
		putc('\n', out);
	}
	fprintf(out, "%-*s %*llu %*llu\n", lead, "total KiB", kw,
		(unsigned long long)(t.mapped / 1024), kw,
		(unsigned long long)(t.in_core / 1024));
	fprintf(out, "%zu mapping%s", c->nr_rows, c->nr_rows == 1 ? "" : "s");
	for (k = 0; k < C_NR; k++)
		if (t.contents[k])
			fprintf(out, "%s %zu %s", nr++ ? "," : ":",
				t.contents[k], contents_names[k]);
	putc('\n', out);
	if (t.lost)
		fprintf(out, "lost: %llu KiB of %zu mapping%s of deleted files or memfds, not in the core; a debugger cannot reopen them\n",
			(unsigned long long)(t.lost / 1024), t.lost_rows,
			t.lost_rows == 1 ? "" : "s");
	if (c->needed > c->size)
		fprintf(out, "truncated: the file has %llu bytes, its program headers describe %llu\n",
			(unsigned long long)c->size,
			(unsigned long long)c->needed);
}

static void print_tsv(FILE *out, const struct core *c)
{
	size_t i;

	for (i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		put_str(out, c->path, FMT_TSV);
		fprintf(out, "\t%08llx\t%08llx\t", (unsigned long long)r->start,
			(unsigned long long)r->end);
		put_perms(out, r->flags);
		fprintf(out, "\t%08llx\t%llu\t%llu\t%s\t%s\t",
			(unsigned long long)r->offset,
			(unsigned long long)(r->end - r->start),
			(unsigned long long)r->in_core,
			contents_names[r->contents], backing_names[r->backing]);
		put_str(out, r->name, FMT_TSV);
		putc('\n', out);
	}
}

static void json_string(FILE *out, const char *s)
{
	putc('"', out);
	put_str(out, s, FMT_JSON);
	putc('"', out);
}

static void print_json(FILE *out, const struct core *c)
{
	struct totals t;
	size_t i;

	count_rows(c, &t);
	fputs("\n{\"file\":", out);
	json_string(out, c->path);
	if (c->has_psinfo) {
		fprintf(out, ",\"pid\":%d,\"command\":", c->pid);
		json_string(out, c->fname);
		fputs(",\"args\":", out);
		json_string(out, c->psargs);
	} else {
		fputs(",\"pid\":null,\"command\":null,\"args\":null", out);
	}
	if (c->signal >= 0)
		fprintf(out, ",\"signal\":%d", c->signal);
	else
		fputs(",\"signal\":null", out);
	fprintf(out, ",\"threads\":%u,\"nt_file\":%s,\"truncated\":%s",
		c->threads, c->has_nt_file ? "true" : "false",
		c->needed > c->size ? "true" : "false");
	fprintf(out, ",\"mapped\":%llu,\"in_core\":%llu,\"lost\":%llu,\"mappings\":[",
		(unsigned long long)t.mapped, (unsigned long long)t.in_core,
		(unsigned long long)t.lost);
	for (i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		fprintf(out, "%s\n{\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"perms\":",
			i ? "," : "", (unsigned long long)r->start,
			(unsigned long long)r->end);
		if (r->flags < 0) {
			fputs("null", out);
		} else {
			putc('"', out);
			put_perms(out, r->flags);
			putc('"', out);
		}
		fprintf(out, ",\"offset\":%llu,\"size\":%llu,\"in_core\":%llu,\"contents\":\"%s\",\"backing\":\"%s\",\"name\":",
			(unsigned long long)r->offset,
			(unsigned long long)(r->end - r->start),
			(unsigned long long)r->in_core,
			contents_names[r->contents], backing_names[r->backing]);
		json_string(out, r->name);
		putc('}', out);
	}
	fputs("]}", out);
}

/* ---- the command ---- */

enum { OPT_JSON = 256, OPT_TSV };

static const struct option core_options[] = {
	{ "json",	no_argument,	NULL, OPT_JSON },
	{ "tsv",	no_argument,	NULL, OPT_TSV },
	{ "help",	no_argument,	NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct pmaps_cmd_options pmaps_core_options = {
	.shortopts = "h",
	.longopts = core_options,
};

#define usage_error(...) pmaps_cmd_usage_error("core", __VA_ARGS__)

int pmaps_cmd_core(int argc, char **argv)
{
	static char prog_name[] = "pmaps core";
	enum format fmt = FMT_TEXT;
	enum pmaps_status status = PMAPS_OK;
	size_t shown = 0;
	int opt, i;

	/* getopt_long names the program by argv[0] in its messages */
	argv[0] = prog_name;
	while ((opt = getopt_long(argc, argv, pmaps_core_options.shortopts,
				  core_options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return fflush(stdout) ? PMAPS_ERR_TARGET : PMAPS_OK;
		case OPT_JSON:
		case OPT_TSV:
			if (fmt != FMT_TEXT &&
			    fmt != (opt == OPT_JSON ? FMT_JSON : FMT_TSV))
				return usage_error("--json and --tsv cannot be combined");
			fmt = opt == OPT_JSON ? FMT_JSON : FMT_TSV;
			break;
		default:
			/* getopt_long has said what was wrong */
			return pmaps_cmd_usage_hint("core");
		}
	}
	if (optind == argc)
		return usage_error("expected a core FILE");

	if (fmt == FMT_JSON)
		fputs("{\"schema\":\"pmaps-core/1\",\"cores\":[", stdout);
	else if (fmt == FMT_TSV)
		fputs("core\tstart\tend\tperms\toffset\tsize\tin_core\tcontents\tbacking\tname\n",
		      stdout);
	for (i = optind; i < argc; i++) {
		struct core c;

		if (core_load(&c, argv[i])) {
			if (fmt == FMT_JSON) {
				if (shown)
					putc(',', stdout);
				print_json(stdout, &c);
			} else if (fmt == FMT_TSV) {
				print_tsv(stdout, &c);
			} else {
				if (shown)
					putc('\n', stdout);
				print_text(stdout, &c);
			}
			shown++;
		}
		if (c.status > status)
			status = c.status;
		core_free(&c);
	}
	if (fmt == FMT_JSON)
		fputs("\n]}\n", stdout);
	/* a full disk must not pass for success */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmaps core: write error: %s\n",
			strerror(errno));
		status = PMAPS_ERR_TARGET;
	}
	return status;
}
