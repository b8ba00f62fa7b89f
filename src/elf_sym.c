// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * ELF reading with libelf: function symbols, load segments, build-id and
 * the unwind table location of one file, plus its separate debug file.
 * Everything is copied into a struct elf_file at open time (symbols sorted
 * by address, aliases dropped, names in one string pool) so lookups are a
 * binary search and no descriptor or libelf handle stays open.
 *
 * Every count and length read from a file is bounded: the files belong to
 * the target and may be anything.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rbflame/elf_sym.h"
#include "rbflame/tfile.h"
#include "rbflame/xmalloc.h"

#define MAX_SYMS_PER_TABLE (1u << 22)
#define MAX_SYMS (1u << 23)
#define MAX_NAME_LEN 1024
#define MAX_NAMES_BYTES (256u << 20)
#define MAX_LOADS 64
#define MAX_PHDRS 4096
#define MAX_SECTIONS (1u << 16)
#define MAX_NOTES 256
#define MAX_NOTE_BYTES (1u << 20)
#define MAX_BUILD_ID 64
#define MAX_IMAGE_BYTES (64u << 20)
/* How far back a lookup looks for a sized symbol enclosing the address. */
#define COVER_SCAN 16
#define MAP_PAGE_SIZE 4096u
#define DEBUG_DIR "/usr/lib/debug"

struct sym {
	uint64_t addr;
	uint64_t end;  /* sized: addr + size; else its section's end */
	uint32_t name; /* offset in names */
	uint8_t sized;
	uint8_t bind; /* STB_*, to choose between aliases */
};

struct load {
	uint64_t vaddr, memsz;
	uint64_t offset, filesz;
	uint32_t flags;
};

struct elf_file {
	int type;
	size_t nloads;
	struct load loads[MAX_LOADS];
	bool has_eh_hdr, has_eh_frame;
	uint64_t eh_hdr_vaddr, eh_hdr_size;
	uint64_t eh_frame_vaddr, eh_frame_size;
	size_t build_id_len;
	uint8_t build_id[MAX_BUILD_ID];
	struct sym *syms;
	size_t nsyms, syms_cap;
	char *names;
	size_t names_len, names_cap;
};

/* What the section scan of one file found. */
struct scan {
	Elf_Scn *symtab, *dynsym;
	const uint8_t *debuglink; /* raw .gnu_debuglink contents */
	size_t debuglink_len;
	const uint8_t *altlink;	/* raw .gnu_debugaltlink contents */
	size_t altlink_len;
	bool big_endian;
	bool debug_info;	/* has a .debug_info section with contents */
};

/* A file of r by the name the target gave: tfile_open() (regular, at
 * most cap bytes, inside the root, with the target's rights). */
static int
open_in(const struct tfile_root *r, const char *path, uint64_t cap,
	struct stat *stp)
{
	if (!r) {
		errno = ENOENT;
		return -1;
	}
	return tfile_open(r, path, cap, stp);
}

static Elf *
begin_elf(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);

	if (!elf) {
		errno = ENOEXEC;
		return NULL;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Appends a name to the pool, without a symbol version ("foo@@GLIBC_2.34"
 * in a .symtab); UINT32_MAX when the pool is full.
 */
static uint32_t
pool_add(struct elf_file *ef, const char *name)
{
	size_t len = strnlen(name, MAX_NAME_LEN - 1);
	const char *at = memchr(name, '@', len);
	uint32_t off;

	if (at && at > name)
		len = (size_t)(at - name);

	if (ef->names_len + len + 1 > MAX_NAMES_BYTES)
		return UINT32_MAX;
	ef->names =
	    xgrowarray(ef->names, &ef->names_cap, ef->names_len + len + 1, 1);
	off = (uint32_t)ef->names_len;
	memcpy(ef->names + off, name, len);
	ef->names[off + len] = '\0';
	ef->names_len += len + 1;
	return off;
}

/*
 * Where a size-0 symbol's reach ends: the end of its allocated section, or
 * failing that of the PT_LOAD segment holding it. addr when unknown, which
 * makes the symbol unusable.
 */
static uint64_t
unsized_end(const struct elf_file *ef, Elf *elf, const GElf_Sym *s)
{
	uint64_t addr = s->st_value;
	size_t i;

	if (s->st_shndx != SHN_UNDEF && s->st_shndx < SHN_LORESERVE) {
		Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh) &&
		    (sh.sh_flags & SHF_ALLOC) && addr >= sh.sh_addr &&
		    addr - sh.sh_addr < sh.sh_size)
			return add_sat(sh.sh_addr, sh.sh_size);
	}
	for (i = 0; i < ef->nloads; i++) {
		const struct load *l = &ef->loads[i];

		if (addr >= l->vaddr && addr - l->vaddr < l->memsz)
			return add_sat(l->vaddr, l->memsz);
	}
	return addr;
}

static void
add_symbols(struct elf_file *ef, Elf *elf, Elf_Scn *scn)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *data;
	GElf_Shdr sh;
	size_t i, n;

	if (!entsize || !gelf_getshdr(scn, &sh))
		return;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return;
	n = data->d_size / entsize;
	if (n > MAX_SYMS_PER_TABLE)
		n = MAX_SYMS_PER_TABLE;
	for (i = 1; i < n && ef->nsyms < MAX_SYMS; i++) {
		const char *name;
		struct sym *out;
		GElf_Sym s;
		uint32_t off;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;

		ef->syms = xgrowarray(ef->syms, &ef->syms_cap, ef->nsyms + 1,
				      sizeof(*ef->syms));
		out = &ef->syms[ef->nsyms];
		out->addr = s.st_value;
		if (s.st_size) {
			out->end = add_sat(s.st_value, s.st_size);
			out->sized = 1;
		} else {
			out->end = unsized_end(ef, elf, &s);
			out->sized = 0;
			if (out->end <= out->addr)
				continue;
		}
		off = pool_add(ef, name);
		if (off == UINT32_MAX)
			return;
		out->name = off;
		out->bind = GELF_ST_BIND(s.st_info);
		ef->nsyms++;
	}
}

static int
leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_' && n < 8)
		n++;
	return n;
}

static bool
is_exported(int bind)
{
	return bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
}

/*
 * Address order; at one address the alias to show first: sized, exported
 * (global or weak) rather than local, fewer leading underscores ("read"
 * before "__libc_read"), strong before weak, shorter, then by name so the
 * choice is stable.
 */
static int
sym_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sym *a = pa, *b = pb;
	const char *names = arg;
	const char *na = names + a->name, *nb = names + b->name;
	size_t la, lb;
	int d;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->sized != b->sized)
		return a->sized ? -1 : 1;
	if (is_exported(a->bind) != is_exported(b->bind))
		return is_exported(a->bind) ? -1 : 1;
	d = leading_underscores(na) - leading_underscores(nb);
	if (d)
		return d;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(na, nb);
}

static void
finish_symbols(struct elf_file *ef)
{
	size_t i, n = 0;

	if (!ef->nsyms)
		return;
	qsort_r(ef->syms, ef->nsyms, sizeof(*ef->syms), sym_cmp, ef->names);
	for (i = 0; i < ef->nsyms; i++) {
		if (n && ef->syms[n - 1].addr == ef->syms[i].addr)
			continue;
		ef->syms[n++] = ef->syms[i];
	}
	ef->nsyms = n;
	ef->syms = xrealloc(ef->syms, n * sizeof(*ef->syms));
	ef->syms_cap = n;
}

/* Finds NT_GNU_BUILD_ID in one block of notes. */
static bool
parse_notes(uint8_t *id, size_t *id_len, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	int guard;

	if (!data || !data->d_buf)
		return false;
	for (guard = 0; guard < MAX_NOTES && off < data->d_size; guard++) {
		const char *base = data->d_buf;

		next = gelf_getnote(data, off, &nh, &name_off, &desc_off);
		if (next == 0 || next <= off)
			break;
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp(base + name_off, "GNU", 4) != 0)
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz > MAX_BUILD_ID)
			continue;
		memcpy(id, base + desc_off, nh.n_descsz);
		*id_len = nh.n_descsz;
		return true;
	}
	return false;
}

static void
read_note_segment(struct elf_file *ef, Elf *elf, const GElf_Phdr *ph)
{
	Elf_Type type = ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
	Elf_Data *d;

	d = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz, type);
	parse_notes(ef->build_id, &ef->build_id_len, d);
}

/* e_type, PT_LOAD segments, PT_GNU_EH_FRAME and build-id from PT_NOTE. */
static int
read_program_headers(struct elf_file *ef, Elf *elf)
{
	GElf_Ehdr eh;
	size_t i, n;

	if (!gelf_getehdr(elf, &eh)) {
		errno = ENOEXEC;
		return -1;
	}
	ef->type = eh.e_type;
	if (elf_getphdrnum(elf, &n) < 0)
		return 0;
	if (n > MAX_PHDRS)
		n = MAX_PHDRS;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		switch (ph.p_type) {
		case PT_LOAD:
			if (ef->nloads < MAX_LOADS &&
			    ph.p_filesz <= ph.p_memsz) {
				struct load *l = &ef->loads[ef->nloads++];

				l->vaddr = ph.p_vaddr;
				l->memsz = ph.p_memsz;
				l->offset = ph.p_offset;
				l->filesz = ph.p_filesz;
				l->flags = ph.p_flags;
			}
			break;
		case PT_GNU_EH_FRAME:
			if (!ef->has_eh_hdr && ph.p_memsz) {
				ef->has_eh_hdr = true;
				ef->eh_hdr_vaddr = ph.p_vaddr;
				ef->eh_hdr_size = ph.p_memsz;
			}
			break;
		case PT_NOTE:
			if (!ef->build_id_len && ph.p_filesz &&
			    ph.p_filesz <= MAX_NOTE_BYTES)
				read_note_segment(ef, elf, &ph);
			break;
		}
	}
	return 0;
}

/* Symbol tables, .eh_frame, notes and .gnu_debuglink of a file. */
static void
scan_sections(struct elf_file *ef, Elf *elf, struct scan *sc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	unsigned count = 0;
	bool names;

	names = elf_getshdrstrndx(elf, &shstrndx) == 0;
	while ((scn = elf_nextscn(elf, scn)) && count++ < MAX_SECTIONS) {
		const char *name = NULL;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (names)
			name = elf_strptr(elf, shstrndx, sh.sh_name);
		switch (sh.sh_type) {
		case SHT_SYMTAB:
			if (!sc->symtab)
				sc->symtab = scn;
			continue;
		case SHT_DYNSYM:
			if (!sc->dynsym)
				sc->dynsym = scn;
			continue;
		case SHT_NOTE:
			if (!ef->build_id_len)
				parse_notes(ef->build_id, &ef->build_id_len,
					    elf_getdata(scn, NULL));
			continue;
		case SHT_NOBITS:
			continue;
		}
		if (!name)
			continue;
		if (!ef->has_eh_frame && (sh.sh_flags & SHF_ALLOC) &&
		    strcmp(name, ".eh_frame") == 0 && sh.sh_size) {
			ef->has_eh_frame = true;
			ef->eh_frame_vaddr = sh.sh_addr;
			ef->eh_frame_size = sh.sh_size;
		} else if (strcmp(name, ".debug_info") == 0 && sh.sh_size) {
			sc->debug_info = true;
		} else if (!sc->debuglink &&
			   strcmp(name, ".gnu_debuglink") == 0) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_buf && d->d_size) {
				sc->debuglink = d->d_buf;
				sc->debuglink_len = d->d_size;
			}
		} else if (!sc->altlink &&
			   strcmp(name, ".gnu_debugaltlink") == 0) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_buf && d->d_size) {
				sc->altlink = d->d_buf;
				sc->altlink_len = d->d_size;
			}
		}
	}
}

static uint32_t
read_u32(const uint8_t *p, bool big_endian)
{
	if (big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

/*
 * The CRC-32 of a whole file that .gnu_debuglink records (zlib's: 0.16 s
 * for 256 MiB here, where a byte-wise table took 1.2 s). Reads at most
 * size bytes, the size tfile_open() checked against its cap: a file that
 * grows meanwhile is not followed.
 */
static int
file_crc32(int fd, uint64_t size, uint32_t *out)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	uint64_t pos = 0;
	ssize_t n = 0;

	while (pos < size) {
		size_t want = size - pos < sizeof(buf) ? (size_t)(size - pos)
						       : sizeof(buf);

		n = pread(fd, buf, want, (off_t)pos);
		if (n <= 0)
			break;
		crc = crc32_z(crc, buf, (size_t)n);
		pos += (uint64_t)n;
	}
	if (n < 0)
		return -1;
	*out = (uint32_t)crc;
	return 0;
}

/* What a debug file is wanted for: its .symtab (loaded into the
 * elf_file), or its DWARF (its descriptor is kept in *dwarf_fd and its
 * path written to dwarf_path). */
struct debug_want {
	char *dwarf_path;	/* NULL: the .symtab */
	size_t dwarf_cap;
	int *dwarf_fd;
};

/*
 * Loads the .symtab of a candidate debug file, or with want->dwarf_path
 * checks that it has .debug_info and keeps it. With want_id, its
 * build-id (if it has one) must match; with want_crc, its CRC must: the
 * sections are checked first, so only an ELF file with what is wanted
 * is read whole, and only within TFILE_CAP_DEBUGLINK.
 */
static bool
try_debug_file(struct elf_file *ef, const struct tfile_root *r,
	       const char *path, const struct stat *main_st, bool want_id,
	       bool want_crc, uint32_t crc, const struct debug_want *want)
{
	uint8_t id[MAX_BUILD_ID];
	size_t id_len = 0;
	struct scan sc = {0};
	struct elf_file tmp = {0};
	struct stat st;
	bool ok = false;
	uint32_t got;
	Elf *elf;
	int fd;

	fd = open_in(r, path, want_crc ? TFILE_CAP_DEBUGLINK : TFILE_CAP_ELF,
		     &st);
	if (fd < 0)
		return false;
	if (main_st && st.st_dev == main_st->st_dev &&
	    st.st_ino == main_st->st_ino)
		goto out_close;
	elf = begin_elf(fd);
	if (!elf)
		goto out_close;
	/* Notes and section names only: a scratch elf_file collects them. */
	scan_sections(&tmp, elf, &sc);
	memcpy(id, tmp.build_id, tmp.build_id_len);
	id_len = tmp.build_id_len;
	if (want_id && id_len &&
	    (id_len != ef->build_id_len || memcmp(id, ef->build_id, id_len)))
		goto out_end;
	if (want->dwarf_path ? !sc.debug_info : !sc.symtab)
		goto out_end;
	if (want_crc &&
	    (file_crc32(fd, (uint64_t)st.st_size, &got) < 0 || got != crc))
		goto out_end;
	if (want->dwarf_path) {
		int n = snprintf(want->dwarf_path, want->dwarf_cap, "%s", path);

		ok = n > 0 && (size_t)n < want->dwarf_cap;
		if (ok) {
			*want->dwarf_fd = fd;
			fd = -1;
		}
		goto out_end;
	}
	add_symbols(ef, elf, sc.symtab);
	ok = true;
out_end:
	elf_end(elf);
out_close:
	if (fd >= 0)
		close(fd);
	return ok;
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug for a build-id into buf. */
static bool
build_id_path(const uint8_t *id, size_t len, char *buf, size_t cap)
{
	char hex[2 * MAX_BUILD_ID + 1];

	if (len < 2 || len > MAX_BUILD_ID)
		return false;
	for (size_t i = 1; i < len; i++)
		snprintf(hex + 2 * (i - 1), 3, "%02x", id[i]);
	return (size_t)snprintf(buf, cap, DEBUG_DIR "/.build-id/%02x/%s.debug",
				id[0], hex) < cap;
}

static bool
find_debug_file(struct elf_file *ef, const struct tfile_root *r,
		const char *path, const struct stat *main_st,
		const struct scan *sc, const struct debug_want *want)
{
	char dbg[PATH_MAX], dir[PATH_MAX];
	const char *slash;
	size_t i, len;
	uint32_t crc;
	int n;

	if (build_id_path(ef->build_id, ef->build_id_len, dbg, sizeof(dbg)) &&
	    try_debug_file(ef, r, dbg, main_st, true, false, 0, want))
		return true;

	if (!sc->debuglink)
		return false;
	len = strnlen((const char *)sc->debuglink, sc->debuglink_len);
	if (len == 0 || len >= sc->debuglink_len || len >= NAME_MAX ||
	    memchr(sc->debuglink, '/', len))
		return false;
	i = (len + 4) & ~(size_t)3;
	if (i + 4 > sc->debuglink_len)
		return false;
	crc = read_u32(sc->debuglink + i, sc->big_endian);

	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);

	n = snprintf(dbg, sizeof(dbg), "%s/%.*s", dir, (int)len,
		     (const char *)sc->debuglink);
	if (n > 0 && (size_t)n < sizeof(dbg) &&
	    try_debug_file(ef, r, dbg, main_st, false, true, crc, want))
		return true;
	n = snprintf(dbg, sizeof(dbg), "%s/.debug/%.*s", dir, (int)len,
		     (const char *)sc->debuglink);
	if (n > 0 && (size_t)n < sizeof(dbg) &&
	    try_debug_file(ef, r, dbg, main_st, false, true, crc, want))
		return true;
	n = snprintf(dbg, sizeof(dbg), DEBUG_DIR "%s/%.*s", dir, (int)len,
		     (const char *)sc->debuglink);
	if (n > 0 && (size_t)n < sizeof(dbg) &&
	    try_debug_file(ef, r, dbg, main_st, false, true, crc, want))
		return true;
	return false;
}

/* r and path are NULL for an in-memory image: no debug file then. */
static struct elf_file *
load(Elf *elf, const struct tfile_root *r, const char *path,
     const struct stat *st)
{
	struct elf_file *ef = xcalloc(1, sizeof(*ef));
	struct scan sc = {0};
	const char *ident;

	ident = elf_getident(elf, NULL);
	if (!ident || read_program_headers(ef, elf) < 0) {
		elf_file_close(ef);
		errno = ENOEXEC;
		return NULL;
	}
	sc.big_endian = ident[EI_DATA] == ELFDATA2MSB;
	scan_sections(ef, elf, &sc);
	if (sc.symtab) {
		add_symbols(ef, elf, sc.symtab);
	} else {
		if (sc.dynsym)
			add_symbols(ef, elf, sc.dynsym);
		if (r && path) {
			struct debug_want want = { NULL, 0, NULL };

			find_debug_file(ef, r, path, st, &sc, &want);
		}
	}
	finish_symbols(ef);
	return ef;
}

struct elf_file *
elf_file_open_fd(int fd, const struct tfile_root *r, const char *path)
{
	struct elf_file *ef;
	struct stat st;
	Elf *elf;
	int saved;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		return NULL;
	elf = begin_elf(fd);
	if (!elf) {
		errno = ENOEXEC;
		return NULL;
	}
	ef = load(elf, r, path && *path == '/' ? path : NULL, &st);
	saved = errno;
	elf_end(elf);
	errno = saved;
	return ef;
}

struct elf_file *
elf_file_open(const struct tfile_root *r, const char *path)
{
	struct elf_file *ef;
	int fd, saved;

	if (!path || !*path) {
		errno = EINVAL;
		return NULL;
	}
	fd = open_in(r, path, TFILE_CAP_ELF, NULL);
	if (fd < 0)
		return NULL;
	ef = elf_file_open_fd(fd, r, path);
	saved = errno;
	close(fd);
	errno = saved;
	return ef;
}

struct elf_file *
elf_file_open_image(const void *image, size_t size)
{
	struct elf_file *ef = NULL;
	char *copy;
	Elf *elf;

	if (!image || size < 64 || size > MAX_IMAGE_BYTES) {
		errno = EINVAL;
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return NULL;
	}
	/* libelf wants a writable buffer; never hand it the caller's. */
	copy = xmalloc(size);
	memcpy(copy, image, size);
	elf = elf_memory(copy, size);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		ef = load(elf, NULL, NULL, NULL);
	else
		errno = ENOEXEC;
	if (elf)
		elf_end(elf);
	free(copy);
	return ef;
}

/* The symbol covering vaddr, as elf_file_symbol() chooses it. */
static const struct sym *
symbol_at(const struct elf_file *ef, uint64_t vaddr)
{
	const struct sym *s, *hit = NULL;
	size_t lo = 0, hi, i;

	if (!ef || !ef->nsyms)
		return NULL;
	hi = ef->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ef->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &ef->syms[lo - 1];
	if (s->sized && vaddr < s->end) {
		hit = s;
	} else {
		/* A sized symbol further down may enclose this one. */
		for (i = lo - 1; i > 0 && lo - i <= COVER_SCAN; i--) {
			const struct sym *t = &ef->syms[i - 1];

			if (t->sized && vaddr < t->end) {
				hit = t;
				break;
			}
		}
		if (!hit && !s->sized && vaddr < s->end)
			hit = s;
	}
	return hit;
}

const char *
elf_file_symbol(const struct elf_file *ef, uint64_t vaddr, uint64_t *offset)
{
	const struct sym *hit = symbol_at(ef, vaddr);

	if (!hit)
		return NULL;
	if (offset)
		*offset = vaddr - hit->addr;
	return ef->names + hit->name;
}

int
elf_file_function_bounds(const struct elf_file *ef, uint64_t vaddr,
			 uint64_t *start, uint64_t *end)
{
	const struct sym *hit = symbol_at(ef, vaddr);

	if (!hit || !hit->sized) {
		errno = ENOENT;
		return -1;
	}
	*start = hit->addr;
	*end = hit->end;
	return 0;
}

size_t
elf_file_symbol_count(const struct elf_file *ef)
{
	return ef ? ef->nsyms : 0;
}

int
elf_file_offset_to_vaddr(const struct elf_file *ef, uint64_t file_offset,
			 uint64_t *vaddr)
{
	size_t i;

	for (i = 0; ef && i < ef->nloads; i++) {
		const struct load *l = &ef->loads[i];

		if (file_offset >= l->offset &&
		    file_offset - l->offset < l->filesz) {
			*vaddr = l->vaddr + (file_offset - l->offset);
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

int
elf_file_mapping_vaddr(const struct elf_file *ef, uint64_t map_offset,
		       bool exec, uint64_t *vaddr)
{
	const struct load *best = NULL;
	size_t i;

	/*
	 * The kernel maps a segment from its page-aligned offset, so a
	 * mapping may start below p_offset, and one file page may hold the
	 * end of a segment and the start of the next. Of the segments whose
	 * pages hold map_offset, prefer one whose PF_X matches the mapping,
	 * then the one starting last (the first page of a later segment is
	 * mapped at that segment's address).
	 */
	for (i = 0; ef && i < ef->nloads; i++) {
		const struct load *l = &ef->loads[i];
		uint64_t page = l->offset & ~(uint64_t)(MAP_PAGE_SIZE - 1);

		if (map_offset < page ||
		    map_offset - page >= l->filesz + (l->offset - page))
			continue;
		if (l->vaddr < l->offset - map_offset)
			continue;
		if (best) {
			bool lx = !!(l->flags & PF_X) == exec;
			bool bx = !!(best->flags & PF_X) == exec;

			if (bx && !lx)
				continue;
			if (bx == lx && l->offset <= best->offset)
				continue;
		}
		best = l;
	}
	if (!best) {
		errno = ENOENT;
		return -1;
	}
	*vaddr = best->vaddr - (best->offset - map_offset);
	return 0;
}

int
elf_file_eh_frame_hdr(const struct elf_file *ef, uint64_t *vaddr,
		      uint64_t *size)
{
	if (!ef || !ef->has_eh_hdr) {
		errno = ENOENT;
		return -1;
	}
	*vaddr = ef->eh_hdr_vaddr;
	*size = ef->eh_hdr_size;
	return 0;
}

int
elf_file_eh_frame(const struct elf_file *ef, uint64_t *vaddr, uint64_t *size)
{
	if (!ef || !ef->has_eh_frame) {
		errno = ENOENT;
		return -1;
	}
	*vaddr = ef->eh_frame_vaddr;
	*size = ef->eh_frame_size;
	return 0;
}

const uint8_t *
elf_file_build_id(const struct elf_file *ef, size_t *len)
{
	if (!ef || !ef->build_id_len) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = ef->build_id_len;
	return ef->build_id;
}

int
elf_file_type(const struct elf_file *ef)
{
	return ef ? ef->type : ET_NONE;
}

void
elf_file_close(struct elf_file *ef)
{
	if (!ef)
		return;
	free(ef->syms);
	free(ef->names);
	free(ef);
}

int
elf_lookup_symbols(const struct tfile_root *r, const char *path,
		   const char *const *names, uint64_t *vaddrs,
		   uint64_t *sizes, size_t n)
{
	Elf_Scn *scn = NULL;
	size_t found = 0;
	Elf *elf;
	int fd;

	for (size_t i = 0; i < n; i++) {
		vaddrs[i] = 0;
		if (sizes)
			sizes[i] = 0;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return -1;
	}
	fd = open_in(r, path, TFILE_CAP_ELF, NULL);
	if (fd < 0)
		return -1;
	elf = begin_elf(fd);
	if (!elf) {
		close(fd);
		return -1;
	}
	/* Both tables: a hidden symbol is only in .symtab (when present). */
	while ((scn = elf_nextscn(elf, scn)) != NULL && found < n) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t count;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    sh.sh_entsize == 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		if (count > 50000000)
			count = 50000000;
		for (size_t k = 0; k < count && found < n; k++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)k, &sym) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			for (size_t i = 0; i < n; i++) {
				if (vaddrs[i] || strcmp(name, names[i]))
					continue;
				vaddrs[i] = sym.st_value;
				if (sizes)
					sizes[i] = sym.st_size;
				found++;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return (int)found;
}

/* Whether the ELF file at fd has build-id id. */
static bool
has_build_id(int fd, const uint8_t *id, size_t len)
{
	struct elf_file tmp = {0};
	struct scan sc = {0};
	Elf *elf = begin_elf(fd);

	if (!elf)
		return false;
	read_program_headers(&tmp, elf);
	if (!tmp.build_id_len)
		scan_sections(&tmp, elf, &sc);
	elf_end(elf);
	return tmp.build_id_len == len && !memcmp(tmp.build_id, id, len);
}

/* The alt file of candidate path, when its build-id is id. */
static int
try_alt_file(const struct tfile_root *r, const char *path, const uint8_t *id,
	     size_t len)
{
	int fd = open_in(r, path, TFILE_CAP_ELF, NULL);

	if (fd >= 0 && !has_build_id(fd, id, len)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The dwz supplementary file that d's .gnu_debugaltlink names (a name,
 * NUL, its build-id): by build-id under /usr/lib/debug, then by name
 * (relative to d's directory), inside r. 0 with d->alt_fd set (-1 when
 * there is no link), or -1 when the file is linked but not found. libdw
 * would look for it itself with open(2), outside the target's root: the
 * caller hands it ours, or refuses the DWARF.
 */
static int
find_alt_file(const struct tfile_root *r, struct elf_dwarf *d)
{
	char buf[PATH_MAX];
	const uint8_t *link, *id;
	struct scan sc = {0};
	size_t nl, idl;
	Elf *elf;

	d->alt_fd = -1;
	elf = begin_elf(d->fd);
	if (!elf)
		return -1;
	scan_sections(&(struct elf_file){0}, elf, &sc);
	if (!sc.altlink) {
		elf_end(elf);
		return 0;
	}
	link = sc.altlink;
	nl = strnlen((const char *)link, sc.altlink_len);
	if (nl == 0 || nl + 1 >= sc.altlink_len)
		goto out;
	id = link + nl + 1;
	idl = sc.altlink_len - nl - 1;
	if (idl < 2 || idl > MAX_BUILD_ID)
		goto out;
	if (build_id_path(id, idl, buf, sizeof(buf)))
		d->alt_fd = try_alt_file(r, buf, id, idl);
	if (d->alt_fd < 0 && link[0] == '/')
		d->alt_fd = try_alt_file(r, (const char *)link, id, idl);
	if (d->alt_fd < 0 && link[0] != '/') {
		const char *slash = strrchr(d->path, '/');

		if (slash && (size_t)snprintf(buf, sizeof(buf), "%.*s/%s",
					      (int)(slash - d->path), d->path,
					      (const char *)link) < sizeof(buf))
			d->alt_fd = try_alt_file(r, buf, id, idl);
	}
out:
	elf_end(elf);
	return d->alt_fd >= 0 ? 0 : -1;
}

int
elf_find_dwarf(const struct tfile_root *r, const char *path,
	       struct elf_dwarf *out)
{
	struct debug_want want = { out->path, sizeof(out->path), &out->fd };
	struct elf_file tmp = {0};
	struct scan sc = {0};
	const char *ident;
	struct stat st;
	bool ok = false;
	Elf *elf;
	int fd, n;

	out->fd = out->alt_fd = -1;
	out->path[0] = '\0';
	if (!path || !*path) {
		errno = EINVAL;
		return -1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return -1;
	}
	fd = open_in(r, path, TFILE_CAP_ELF, &st);
	if (fd < 0)
		return -1;
	elf = begin_elf(fd);
	if (!elf) {
		close(fd);
		return -1;
	}
	ident = elf_getident(elf, NULL);
	sc.big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
	/* A scratch elf_file collects the build-id. */
	scan_sections(&tmp, elf, &sc);
	if (sc.debug_info) {
		n = snprintf(out->path, sizeof(out->path), "%s", path);
		ok = n > 0 && (size_t)n < sizeof(out->path);
		if (ok) {
			out->fd = fd;
			fd = -1;
		}
	} else {
		ok = find_debug_file(&tmp, r, path, &st, &sc, &want);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!ok) {
		errno = ENODATA;
		return -1;
	}
	if (find_alt_file(r, out) < 0) {
		close(out->fd);
		out->fd = -1;
		errno = ENOLINK;
		return -1;
	}
	return 0;
}
