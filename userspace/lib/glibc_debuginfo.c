// SPDX-License-Identifier: GPL-2.0
/*
 * The C library's debug symbols (Debian: libc6-dbg), found by the
 * build-id of the libc a process maps: where main_arena and mp_ are, and
 * the member offsets of malloc_state, malloc_par, heap_info and
 * tcache_perthread_struct as that build laid them out.  Read with elfutils
 * (libelf, libdw); see heap.h.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heap.h"

#define NT_GNU_BUILD_ID_TYPE	3

/* The build-id of elf as hex into hex; 0, or -1 when it has none. */
static int build_id(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		GElf_Nhdr nhdr;
		size_t off = 0, name_off, desc_off, i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nhdr, &name_off,
						   &desc_off)) > 0) {
			const unsigned char *desc;

			if (nhdr.n_type != NT_GNU_BUILD_ID_TYPE ||
			    nhdr.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) ||
			    nhdr.n_descsz < 2 || nhdr.n_descsz * 2 + 1 > len)
				continue;
			desc = (const unsigned char *)data->d_buf + desc_off;
			for (i = 0; i < nhdr.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", desc[i]);
			return 0;
		}
	}
	return -1;
}

/* The value of symbol name in elf's .symtab; 0 when absent. */
static uint64_t symbol(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		GElf_Sym sym;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; data && i < n; i++) {
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			s = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (s && !strcmp(s, name))
				return sym.st_value;
		}
	}
	return 0;
}

/* The member offsets of one struct, by name; -1 for those not found. */
struct member_want {
	const char *name;
	long long off;
	long long elem_size;		/* of an array's elements, or -1 */
};

static void members(Dwarf_Die *type, struct member_want *want, size_t n)
{
	Dwarf_Die m;
	size_t i;

	if (dwarf_child(type, &m))
		return;
	do {
		const char *name = dwarf_diename(&m);
		Dwarf_Attribute attr;
		Dwarf_Word off;

		if (dwarf_tag(&m) != DW_TAG_member || !name)
			continue;
		for (i = 0; i < n; i++) {
			Dwarf_Die t, elem;

			if (strcmp(name, want[i].name) ||
			    !dwarf_attr_integrate(&m, DW_AT_data_member_location,
						  &attr) ||
			    dwarf_formudata(&attr, &off))
				continue;
			want[i].off = (long long)off;
			/* an array of counts: its element's size */
			if (dwarf_attr_integrate(&m, DW_AT_type, &attr) &&
			    dwarf_formref_die(&attr, &t) &&
			    dwarf_tag(&t) == DW_TAG_array_type &&
			    dwarf_attr_integrate(&t, DW_AT_type, &attr) &&
			    dwarf_formref_die(&attr, &elem)) {
				Dwarf_Word size;

				if (!dwarf_aggregate_size(&elem, &size))
					want[i].elem_size = (long long)size;
			}
		}
	} while (!dwarf_siblingof(&m, &m));
}

static bool all_found(const struct member_want *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (want[i].off < 0)
			return false;
	return true;
}

/* The struct types of malloc.c (arena.c is part of it) into lay and syms. */
static int dwarf_layout(Elf *elf, struct pmaps_glibc_layout *lay,
			struct pmaps_glibc_symbols *syms)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, d;
	int found = 0;

	if (!dw)
		return -1;
	while (!dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL)) {
		const char *name = dwarf_diename(&cudie);
		size_t len = name ? strlen(name) : 0;

		if (len < 8 || strcmp(name + len - 8, "malloc.c") ||
		    (len > 8 && name[len - 9] != '/'))
			continue;
		if (dwarf_child(&cudie, &d))
			break;
		do {
			const char *tn = dwarf_diename(&d);
			Dwarf_Word size;

			if (dwarf_tag(&d) != DW_TAG_structure_type || !tn ||
			    dwarf_aggregate_size(&d, &size))
				continue;
			if (!strcmp(tn, "malloc_state")) {
				struct member_want w[] = {
					{ "fastbinsY", -1, -1 },
					{ "top", -1, -1 },
					{ "bins", -1, -1 },
					{ "next", -1, -1 },
					{ "system_mem", -1, -1 },
				};

				members(&d, w, 5);
				if (!all_found(w, 5))
					continue;
				lay->ms_fastbins = (unsigned int)w[0].off;
				lay->ms_top = (unsigned int)w[1].off;
				lay->ms_bins = (unsigned int)w[2].off;
				lay->ms_next = (unsigned int)w[3].off;
				lay->ms_system_mem = (unsigned int)w[4].off;
				lay->nr_fastbins = (unsigned int)
					((w[1].off - w[0].off) / 8);
				lay->ms_size = (unsigned int)size;
				found |= 1;
			} else if (!strcmp(tn, "malloc_par")) {
				struct member_want w[] = {
					{ "sbrk_base", -1, -1 },
					{ "n_mmaps", -1, -1 },
					{ "mmapped_mem", -1, -1 },
				};

				members(&d, w, 3);
				if (!all_found(w, 3))
					continue;
				syms->mp_sbrk_base = (unsigned int)w[0].off;
				syms->mp_n_mmaps = (unsigned int)w[1].off;
				syms->mp_mmapped_mem = (unsigned int)w[2].off;
				syms->mp_fields = true;
				found |= 2;
			} else if (!strcmp(tn, "_heap_info")) {
				lay->heap_info_size = (unsigned int)size;
				found |= 4;
			} else if (!strcmp(tn, "tcache_perthread_struct")) {
				struct member_want w[] = {
					{ "counts", -1, -1 },
					{ "entries", -1, -1 },
				};

				members(&d, w, 2);
				if (!all_found(w, 2) || w[0].elem_size <= 0 ||
				    w[0].elem_size > 2)
					continue;
				lay->tcache_count_size =
					(unsigned int)w[0].elem_size;
				lay->tcache_entries = (unsigned int)w[1].off;
				lay->tcache_bins = (unsigned int)
					((size - (Dwarf_Word)w[1].off) / 8);
				lay->tcache_struct_size = (unsigned int)size;
				found |= 8;
			}
		} while (!dwarf_siblingof(&d, &d));
		break;
	}
	dwarf_end(dw);
	/* malloc_state is needed; the others are checked where used */
	return found & 1 ? 0 : -1;
}

/*
 * path opened for reading if it is a regular file: libelf reads anything
 * else (a FIFO, /dev/zero) whole, without end.  O_NONBLOCK so that a FIFO
 * is refused, not waited on.  The fd, or -1 with a message: when it
 * cannot be opened, "BEFOREPATH: reason AFTER".
 */
static int open_regular(const char *path, const char *before,
			const char *after, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s%s: %s%s", before, path,
			 strerror(errno), after);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: expected an ELF file, got %s", path,
			 S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
		close(fd);
		return -1;
	}
	return fd;
}

int pmaps_glibc_debuginfo(const char *path, const char *debug_dir,
			  struct pmaps_glibc_layout *lay,
			  struct pmaps_glibc_symbols *syms, char *err,
			  size_t errlen)
{
	struct pmaps_glibc_layout found = *lay;
	char id[2 * 64 + 1];
	Elf *elf = NULL, *dbg = NULL;
	int fd, dfd = -1, ret = -1;

	memset(syms, 0, sizeof(*syms));
	if (!debug_dir)
		debug_dir = "/usr/lib/debug";
	elf_version(EV_CURRENT);
	fd = open_regular(path, "", "", err, errlen);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || build_id(elf, id, sizeof(id))) {
		snprintf(err, errlen, "%s: no build-id note to find its debug symbols by",
			 path);
		goto out;
	}
	snprintf(syms->debug_file, sizeof(syms->debug_file),
		 "%s/.build-id/%.2s/%s.debug", debug_dir, id, id + 2);
	dfd = open_regular(syms->debug_file, "no debug symbols: ",
			   " (Debian: libc6-dbg)", err, errlen);
	if (dfd < 0)
		goto out;
	dbg = elf_begin(dfd, ELF_C_READ, NULL);
	if (!dbg) {
		snprintf(err, errlen, "%s: not an ELF file: %s",
			 syms->debug_file, elf_errmsg(-1));
		goto out;
	}
	syms->main_arena = symbol(dbg, "main_arena");
	syms->mp = symbol(dbg, "mp_");
	if (!syms->main_arena) {
		snprintf(err, errlen, "%s: no symbol main_arena",
			 syms->debug_file);
		goto out;
	}
	if (dwarf_layout(dbg, &found, syms)) {
		snprintf(err, errlen, "%s: no DWARF of struct malloc_state in malloc.c",
			 syms->debug_file);
		goto out;
	}
	*lay = found;
	ret = 0;
out:
	if (dbg)
		elf_end(dbg);
	if (elf)
		elf_end(elf);
	if (dfd >= 0)
		close(dfd);
	close(fd);
	return ret;
}
