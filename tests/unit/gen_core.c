// SPDX-License-Identifier: GPL-2.0
/*
 * gen_core DIR: write the synthetic core files of tests/unit/fixtures/core
 * into DIR.  test_core.sh builds and runs it and compares what it writes
 * with the committed fixtures, so that every fixture has a known source.
 *
 * Each is an x86-64 ET_CORE (arm64.core an arm64 one) laid out as the
 * kernel writes one: ELF header,
 * program headers (PT_NOTE first, then one PT_LOAD per mapping), the
 * notes, then from the next 4 KiB boundary the segments' data (zeros, so
 * git stores them small).  good.core has a mapping of every kind pmaps
 * core tells apart; small.core a few, and the other files are small.core
 * with one thing wrong (or cut short), named after it.  arm64.core is
 * small.core as an arm64 kernel writes it: e_machine EM_AARCH64 and the
 * 392-byte struct elf_prstatus of arm64; arm64-x86-prstatus.core has the
 * x86-64 one (336 bytes) instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE		0x1000ULL
#define EHDR_SIZE	64
#define PHDR_SIZE	56
#define SHDR_SIZE	64
#define PT_LOAD		1
#define PT_NOTE		4
#define PF_X		1
#define PF_W		2
#define PF_R		4
#define NT_PRSTATUS	1
#define NT_PRPSINFO	3
#define NT_AUXV		6
#define NT_X86_XSTATE	0x202
#define NT_ARM_TLS	0x401
#define EM_X86_64	62
#define EM_AARCH64	183
#define EM_RISCV	243
#define NT_FILE		0x46494c45
#define PN_XNUM		0xffff
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *s, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("gen_core");
			exit(1);
		}
	}
	if (s)
		memcpy(b->p + b->len, s, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void put_le(struct buf *b, uint64_t v, int bytes)
{
	unsigned char le[8];
	int i;

	for (i = 0; i < bytes; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, (size_t)bytes);
}

static void set_le(struct buf *b, size_t off, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		b->p[off + i] = (unsigned char)(v >> (8 * i));
}

static void pad_to(struct buf *b, size_t align)
{
	put(b, NULL, (align - b->len % align) % align);
}

/* A PT_LOAD segment, and the NT_FILE entry of a mapping. */
struct seg {
	uint64_t vaddr, memsz, filesz;
	uint32_t flags;
};

struct ent {
	uint64_t start, end, pgoff;
	const char *name;
};

struct layout {
	const struct seg *segs;
	size_t nr_segs;
	const struct ent *ents;		/* NULL: no NT_FILE note */
	size_t nr_ents;
	int pid, signal;
	const char *fname, *psargs;
	int threads;
	int xnum;			/* e_phnum PN_XNUM, count in sh_info */
	int arm64;			/* EM_AARCH64, not EM_X86_64 */
};

/* Where the generated file has what the variants change. */
struct marks {
	size_t nt_file_note;		/* its Elf64_Nhdr */
	size_t nt_file_desc;
	size_t notes_end;
};

static void note(struct buf *b, const char *name, uint32_t type,
		 const struct buf *desc)
{
	put_le(b, strlen(name) + 1, 4);
	put_le(b, desc->len, 4);
	put_le(b, type, 4);
	put(b, name, strlen(name) + 1);
	pad_to(b, 4);
	put(b, desc->p, desc->len);
	pad_to(b, 4);
}

/*
 * struct elf_prstatus: 112 bytes, pr_reg, pr_fpvalid and padding; 336
 * bytes on x86-64 (27 registers), 392 on arm64 (34); pr_cursig at 12,
 * pid at 32
 */
static void prstatus(struct buf *b, int sig, int tid, int arm64)
{
	struct buf d = { 0 };

	put(&d, NULL, arm64 ? 392 : 336);
	set_le(&d, 0, (uint64_t)sig, 4);	/* si_signo */
	set_le(&d, 12, (uint64_t)sig, 2);
	set_le(&d, 32, (uint64_t)tid, 4);
	note(b, "CORE", NT_PRSTATUS, &d);
	free(d.p);
}

/* struct elf_prpsinfo of x86-64 and arm64: 136 bytes */
static void prpsinfo(struct buf *b, const struct layout *l)
{
	struct buf d = { 0 };

	put(&d, NULL, 136);
	d.p[1] = 'R';
	set_le(&d, 24, (uint64_t)l->pid, 4);
	memcpy(d.p + 40, l->fname, strlen(l->fname));
	memcpy(d.p + 56, l->psargs, strlen(l->psargs));
	note(b, "CORE", NT_PRPSINFO, &d);
	free(d.p);
}

static void nt_file(struct buf *b, const struct layout *l, struct marks *m)
{
	struct buf d = { 0 };
	size_t i;

	put_le(&d, l->nr_ents, 8);
	put_le(&d, PAGE, 8);
	for (i = 0; i < l->nr_ents; i++) {
		put_le(&d, l->ents[i].start, 8);
		put_le(&d, l->ents[i].end, 8);
		put_le(&d, l->ents[i].pgoff, 8);
	}
	for (i = 0; i < l->nr_ents; i++)
		put(&d, l->ents[i].name, strlen(l->ents[i].name) + 1);
	m->nt_file_note = b->len;
	m->nt_file_desc = b->len + 12 + 8;
	note(b, "CORE", NT_FILE, &d);
	free(d.p);
}

/* A note pmaps core skips: not "CORE", or a type it does not read. */
static void other_note(struct buf *b, const char *name, uint32_t type)
{
	struct buf d = { 0 };

	put(&d, NULL, 16);
	note(b, name, type, &d);
	free(d.p);
}

static struct buf build(const struct layout *l, struct marks *m)
{
	struct buf b = { 0 }, notes = { 0 };
	size_t i, nr_ph = l->nr_segs + 1;
	uint64_t notes_off, data_off;
	/* the register set note that follows each thread's NT_PRSTATUS */
	uint32_t regs = l->arm64 ? NT_ARM_TLS : NT_X86_XSTATE;
	int t;

	memset(m, 0, sizeof(*m));
	/* the kernel's order: the first thread's notes, then the others' */
	prstatus(&notes, l->signal, l->pid, l->arm64);
	prpsinfo(&notes, l);
	other_note(&notes, "CORE", NT_AUXV);
	notes_off = EHDR_SIZE + nr_ph * PHDR_SIZE +
		    (l->xnum ? SHDR_SIZE : 0);
	if (l->ents) {
		nt_file(&notes, l, m);
		m->nt_file_note += notes_off;
		m->nt_file_desc += notes_off;
	}
	other_note(&notes, "LINUX", regs);
	for (t = 1; t < l->threads; t++) {
		prstatus(&notes, 0, l->pid + t, l->arm64);
		other_note(&notes, "LINUX", regs);
	}
	m->notes_end = notes_off + notes.len;
	data_off = (m->notes_end + PAGE - 1) & ~(PAGE - 1);

	/* Elf64_Ehdr */
	put(&b, "\177ELF\2\1\1", 7);
	put(&b, NULL, 9);
	put_le(&b, 4, 2);			/* ET_CORE */
	put_le(&b, l->arm64 ? EM_AARCH64 : EM_X86_64, 2);
	put_le(&b, 1, 4);
	put_le(&b, 0, 8);			/* e_entry */
	put_le(&b, EHDR_SIZE, 8);		/* e_phoff */
	put_le(&b, l->xnum ? EHDR_SIZE + nr_ph * PHDR_SIZE : 0, 8);
	put_le(&b, 0, 4);
	put_le(&b, EHDR_SIZE, 2);
	put_le(&b, PHDR_SIZE, 2);
	put_le(&b, l->xnum ? PN_XNUM : nr_ph, 2);
	put_le(&b, l->xnum ? SHDR_SIZE : 0, 2);
	put_le(&b, l->xnum ? 1 : 0, 2);		/* e_shnum */
	put_le(&b, 0, 2);

	/* PT_NOTE, then the loads */
	put_le(&b, PT_NOTE, 4);
	put_le(&b, 0, 4);
	put_le(&b, notes_off, 8);
	put(&b, NULL, 16);
	put_le(&b, notes.len, 8);
	put_le(&b, 0, 8);
	put_le(&b, 4, 8);
	for (i = 0; i < l->nr_segs; i++) {
		const struct seg *s = &l->segs[i];

		put_le(&b, PT_LOAD, 4);
		put_le(&b, s->flags, 4);
		put_le(&b, data_off, 8);
		put_le(&b, s->vaddr, 8);
		put_le(&b, 0, 8);
		put_le(&b, s->filesz, 8);
		put_le(&b, s->memsz, 8);
		put_le(&b, PAGE, 8);
		data_off += s->filesz;
	}
	if (l->xnum) {
		/* Elf64_Shdr 0: only sh_info, the program header count */
		put(&b, NULL, 44);
		put_le(&b, nr_ph, 4);
		put(&b, NULL, 16);
	}
	put(&b, notes.p, notes.len);
	free(notes.p);
	pad_to(&b, PAGE);
	for (i = 0; i < l->nr_segs; i++)
		put(&b, NULL, l->segs[i].filesz);
	return b;
}

/* ---- the layouts ---- */

/* One of each: data, partial, file-only, not-dumped, no-segment, a load
 * that one NT_FILE entry covers only the end of, memfd, deleted, and a
 * name with a tab in it. */
static const struct seg good_segs[] = {
	{ 0x400000, 4 * PAGE, PAGE, PF_R },
	{ 0x404000, 4 * PAGE, 0, PF_R | PF_X },
	{ 0x408000, PAGE, PAGE, PF_R | PF_W },
	{ 0x409000, PAGE, PAGE, PF_R | PF_W },
	{ 0x7f0000000000, PAGE, PAGE, PF_R | PF_W },
	{ 0x7f0000001000, 2 * PAGE, 0, PF_R },
	{ 0x7f0000010000, 2 * PAGE, 0, PF_R },
	{ 0x7f0000020000, 16 * PAGE, 0, 0 },
	{ 0x7f0000050000, PAGE, 0, PF_R },
	{ 0x7f0000060000, 4 * PAGE, PAGE, PF_R | PF_W },
	{ 0x7ffd00000000, 2 * PAGE, 2 * PAGE, PF_R | PF_W },
};

static const struct ent good_ents[] = {
	{ 0x400000, 0x404000, 0, "/usr/bin/demo" },
	{ 0x404000, 0x408000, 4, "/usr/bin/demo" },
	{ 0x408000, 0x409000, 8, "/usr/bin/demo" },
	{ 0x7f0000000000, 0x7f0000001000, 0, "/memfd:shared buf (deleted)" },
	{ 0x7f0000001000, 0x7f0000003000, 1, "/memfd:shared buf (deleted)" },
	{ 0x7f0000010000, 0x7f0000012000, 0, "/tmp/log (deleted)" },
	{ 0x7f0000040000, 0x7f0000041000, 0,
	  "/usr/lib/locale/C.utf8/LC_CTYPE" },
	{ 0x7f0000050000, 0x7f0000051000, 0, "/tmp/tab\tname" },
	{ 0x7f0000062000, 0x7f0000064000, 2, "/data/file" },
};

static const struct seg small_segs[] = {
	{ 0x400000, 2 * PAGE, 0, PF_R | PF_X },
	{ 0x402000, PAGE, PAGE, PF_R | PF_W },
	{ 0x7ffc00000000, PAGE, 0, PF_R | PF_W },
};

static const struct ent small_ents[] = {
	{ 0x400000, 0x402000, 0, "/bin/small" },
	{ 0x402000, 0x403000, 2, "/bin/small" },
};

static const struct layout good = {
	good_segs, ARRAY_SIZE(good_segs), good_ents, ARRAY_SIZE(good_ents),
	4242, 11, "demo", "./demo --crash now ", 2, 0, 0,
};

static const struct layout small = {
	small_segs, ARRAY_SIZE(small_segs), small_ents, ARRAY_SIZE(small_ents),
	77, 6, "small", "small ", 1, 0, 0,
};

static const char *out_dir;

static void save(const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* small.core with the bytes at off set to v (bytes long). */
static void save_patched(const char *name, size_t off, uint64_t v, int bytes)
{
	struct marks m;
	struct buf b = build(&small, &m);

	set_le(&b, off, v, bytes);
	save(name, b.p, b.len);
	free(b.p);
}

int main(int argc, char **argv)
{
	struct layout l;
	struct marks m, sm;
	struct buf b;
	static const unsigned char zstd[] = {
		0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x00, 0x00
	};
	static const char text[] = "this is not a core\n";

	if (argc != 2) {
		fputs("usage: gen_core DIR\n", stderr);
		return 2;
	}
	out_dir = argv[1];

	b = build(&good, &m);
	save("good.core", b.p, b.len);
	/* cut in the middle of the fourth data page, the memfd's */
	save("truncated.core", b.p,
	     ((m.notes_end + PAGE - 1) & ~(PAGE - 1)) + 3 * PAGE + PAGE / 2);
	free(b.p);

	b = build(&small, &sm);
	save("small.core", b.p, b.len);
	/* cut in NT_FILE's description: the last data is the notes' */
	save("cut-notes.core", b.p, sm.nt_file_desc + 8);
	save("cut-phdrs.core", b.p, EHDR_SIZE + PHDR_SIZE + 20);
	save("cut-header.core", b.p, 40);
	free(b.p);

	l = small;
	l.ents = NULL;
	l.nr_ents = 0;
	b = build(&l, &m);
	save("no-nt-file.core", b.p, b.len);
	free(b.p);

	l = small;
	l.arm64 = 1;
	b = build(&l, &m);
	save("arm64.core", b.p, b.len);
	free(b.p);

	l = small;
	l.xnum = 1;
	b = build(&l, &m);
	save("xnum.core", b.p, b.len);
	free(b.p);

	save_patched("class32.core", 4, 1, 1);
	save_patched("big-endian.core", 5, 2, 1);
	save_patched("exec.core", 16, 2, 2);
	save_patched("riscv.core", 18, EM_RISCV, 2);
	/* an arm64 core with x86-64's NT_PRSTATUS */
	save_patched("arm64-x86-prstatus.core", 18, EM_AARCH64, 2);
	/* no program headers at all: nothing mapped, nothing known */
	save_patched("no-phdrs.core", 56, 0, 2);
	/* the second load's p_filesz above its p_memsz */
	save_patched("filesz-above-memsz.core",
		     EHDR_SIZE + 2 * PHDR_SIZE + 32, 2 * PAGE, 8);
	/* NT_FILE's descsz far past the end of the notes */
	save_patched("bad-note-size.core", sm.nt_file_note + 4, 0xfffffff0,
		     4);
	/* NT_FILE's count too big for its description */
	save_patched("bad-nt-file-count.core", sm.nt_file_desc, 1000, 8);
	/* NT_FILE's second entry starting inside the first */
	save_patched("nt-file-overlap.core", sm.nt_file_desc + 16 + 24,
		     0x401000, 8);
	save("zstd.core", zstd, sizeof(zstd));
	save("not-elf.core", text, sizeof(text) - 1);
	return 0;
}
