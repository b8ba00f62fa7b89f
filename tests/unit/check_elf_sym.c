// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Unit tests of elf_sym.c, symtab.c and unwind.c: symbol rules on small
 * ELF files written here with libelf (sizes, aliases, size-0 symbols,
 * segments, build-id, debug files by debuglink and build-id, through a
 * root prefix), robustness against garbage and corrupted files, naming
 * of frames in this very process, and a native unwind of a child (this
 * binary re-executed) stopped in a known chain main -> chain_a ->
 * chain_b -> chain_c.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/elf_sym.h"
#include "rbflame/mem.h"
#include "rbflame/symtab.h"
#include "rbflame/tfile.h"
#include "rbflame/unwind.h"

/* Known frames: no inlining, cloning or sibling calls, whatever -O. */
#ifdef __has_attribute
#if __has_attribute(noipa)
#define NOIPA __attribute__((noipa))
#elif __has_attribute(noclone)
#define NOIPA __attribute__((noinline, noclone))
#endif
#endif
#ifndef NOIPA
#define NOIPA __attribute__((noinline))
#endif

static volatile int chain_pause;

static NOIPA void
chain_c(void)
{
	for (;;) {
		if (chain_pause)
			pause();
		__asm__ volatile("" ::: "memory");
	}
}

static NOIPA void
chain_b(void)
{
	chain_c();
	__asm__ volatile("" ::: "memory");
}

static NOIPA void
chain_a(void)
{
	chain_b();
	__asm__ volatile("" ::: "memory");
}

/* ---- small ELF files ------------------------------------------------ */

struct tsym {
	const char *name;
	uint64_t value, size;
	int bind, type;
	uint16_t shndx;
};

struct telf {
	bool dynamic; /* .dynsym instead of .symtab */
	const struct tsym *syms;
	size_t nsyms;
	const uint8_t *build_id;
	size_t build_id_len;
	const char *debuglink;
	uint32_t crc;
};

#define TEXT_SHNDX 1

static uint32_t
crc32_bytes(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	return crc ^ 0xffffffffu;
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc(st.st_size ? st.st_size : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(fd, buf, st.st_size, 0), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
}

static void
spill(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static uint32_t
file_crc(const char *path)
{
	size_t len;
	unsigned char *buf = slurp(path, &len);
	uint32_t crc = crc32_bytes(buf, len);

	free(buf);
	return crc;
}

static Elf_Scn *
add_section(Elf *e, uint32_t name, uint32_t type, uint64_t flags, uint64_t addr,
	    uint64_t off, void *buf, size_t size, Elf_Type dt)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d;
	Elf64_Shdr *sh;

	ck_assert_ptr_nonnull(scn);
	d = elf_newdata(scn);
	ck_assert_ptr_nonnull(d);
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = dt;
	d->d_align = 1;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
	sh = elf64_getshdr(scn);
	sh->sh_name = name;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addr = addr;
	sh->sh_offset = off;
	sh->sh_size = size;
	sh->sh_addralign = 1;
	return scn;
}

static void
set_phdr(Elf64_Phdr *ph, uint32_t type, uint32_t flags, uint64_t off,
	 uint64_t vaddr, uint64_t filesz, uint64_t memsz)
{
	memset(ph, 0, sizeof(*ph));
	ph->p_type = type;
	ph->p_flags = flags;
	ph->p_offset = off;
	ph->p_vaddr = vaddr;
	ph->p_paddr = vaddr;
	ph->p_filesz = filesz;
	ph->p_memsz = memsz;
	ph->p_align = type == PT_LOAD ? 0x1000 : 4;
}

/* Appends s to a string table of *len bytes; returns its offset. */
static uint32_t
strtab_add(char *tab, size_t *len, const char *s)
{
	size_t off = *len;

	memcpy(tab + off, s, strlen(s) + 1);
	*len += strlen(s) + 1;
	return off;
}

/*
 * An ET_EXEC x86-64 file: .text at 0x401000 (file 0x1000, 0x100 bytes),
 * .eh_frame_hdr at 0x401100, a build-id note at 0x401120; PT_LOAD
 * [0x1000, 0x1180) -> 0x401000 (R X) and PT_LOAD [0x1180, 0x1200) ->
 * 0x402180 (RW, memsz 0x100): the two share the file page 0x1000.
 */
static void
write_elf(const char *path, const struct telf *t)
{
	static unsigned char text[0x100], ehhdr[0x20] = {1, 0x1b, 0x03, 0x3b};
	char shstr[256], str[4096];
	unsigned char note[16 + 64], link[256];
	Elf64_Sym syms[32];
	size_t shlen = 1, slen = 1, notelen = 0, linklen = 0, i;
	uint32_t n_text, n_eh, n_note, n_sym, n_str, n_link = 0, n_shstr;
	Elf_Scn *sym_scn, *str_scn, *shstr_scn;
	uint64_t off;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	int fd, nph;
	Elf *e;

	ck_assert(elf_version(EV_CURRENT) != EV_NONE);
	ck_assert_uint_lt(t->nsyms, 31);
	memset(shstr, 0, sizeof(shstr));
	n_text = strtab_add(shstr, &shlen, ".text");
	n_eh = strtab_add(shstr, &shlen, ".eh_frame_hdr");
	n_note = strtab_add(shstr, &shlen, ".note.gnu.build-id");
	n_sym = strtab_add(shstr, &shlen, t->dynamic ? ".dynsym" : ".symtab");
	n_str = strtab_add(shstr, &shlen, t->dynamic ? ".dynstr" : ".strtab");
	if (t->debuglink)
		n_link = strtab_add(shstr, &shlen, ".gnu_debuglink");
	n_shstr = strtab_add(shstr, &shlen, ".shstrtab");

	memset(syms, 0, sizeof(syms));
	memset(str, 0, sizeof(str));
	for (i = 0; i < t->nsyms; i++) {
		const struct tsym *s = &t->syms[i];

		syms[i + 1].st_name = strtab_add(str, &slen, s->name);
		syms[i + 1].st_value = s->value;
		syms[i + 1].st_size = s->size;
		syms[i + 1].st_info = ELF64_ST_INFO(s->bind, s->type);
		syms[i + 1].st_shndx = s->shndx;
	}

	if (t->build_id) {
		uint32_t hdr[3] = {4, t->build_id_len, NT_GNU_BUILD_ID};

		memcpy(note, hdr, sizeof(hdr));
		memcpy(note + 12, "GNU", 4);
		memcpy(note + 16, t->build_id, t->build_id_len);
		notelen = 16 + ((t->build_id_len + 3) & ~(size_t)3);
	}
	if (t->debuglink) {
		size_t l = strlen(t->debuglink) + 1;

		memset(link, 0, sizeof(link));
		memcpy(link, t->debuglink, l);
		linklen = (l + 3) & ~(size_t)3;
		memcpy(link + linklen, &t->crc, 4);
		linklen += 4;
	}

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	ck_assert_ptr_nonnull(e);
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	eh = elf64_newehdr(e);
	ck_assert_ptr_nonnull(eh);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = 0x401000;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	nph = t->build_id ? 4 : 3;
	ph = elf64_newphdr(e, nph);
	ck_assert_ptr_nonnull(ph);

	add_section(e, n_text, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
		    0x401000, 0x1000, text, sizeof(text), ELF_T_BYTE);
	add_section(e, n_eh, SHT_PROGBITS, SHF_ALLOC, 0x401100, 0x1100, ehhdr,
		    sizeof(ehhdr), ELF_T_BYTE);
	add_section(e, n_note, SHT_NOTE, SHF_ALLOC, 0x401120, 0x1120, note,
		    notelen, ELF_T_BYTE);
	off = 0x1200;
	sym_scn = add_section(e, n_sym, t->dynamic ? SHT_DYNSYM : SHT_SYMTAB,
			      t->dynamic ? SHF_ALLOC : 0, 0, off, syms,
			      (t->nsyms + 1) * sizeof(Elf64_Sym), ELF_T_SYM);
	off += (t->nsyms + 1) * sizeof(Elf64_Sym);
	str_scn =
	    add_section(e, n_str, SHT_STRTAB, 0, 0, off, str, slen, ELF_T_BYTE);
	off += slen;
	if (t->debuglink) {
		add_section(e, n_link, SHT_PROGBITS, 0, 0, off, link, linklen,
			    ELF_T_BYTE);
		off += linklen;
	}
	shstr_scn = add_section(e, n_shstr, SHT_STRTAB, 0, 0, off, shstr, shlen,
				ELF_T_BYTE);
	off += shlen;
	elf64_getshdr(sym_scn)->sh_link = elf_ndxscn(str_scn);
	elf64_getshdr(sym_scn)->sh_entsize = sizeof(Elf64_Sym);
	elf64_getshdr(sym_scn)->sh_info = 1;
	eh->e_shstrndx = elf_ndxscn(shstr_scn);
	eh->e_shoff = (off + 7) & ~(uint64_t)7;

	set_phdr(&ph[0], PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x180, 0x180);
	set_phdr(&ph[1], PT_LOAD, PF_R | PF_W, 0x1180, 0x402180, 0x80, 0x100);
	set_phdr(&ph[2], PT_GNU_EH_FRAME, PF_R, 0x1100, 0x401100, 0x20, 0x20);
	if (t->build_id)
		set_phdr(&ph[3], PT_NOTE, PF_R, 0x1120, 0x401120, notelen,
			 notelen);
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
	ck_assert_msg(elf_update(e, ELF_C_WRITE) >= 0, "elf_update: %s",
		      elf_errmsg(-1));
	elf_end(e);
	close(fd);
}

static char tmpdir[PATH_MAX];

static void
make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/check_elf_sym.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
remove_tmpdir(void)
{
	char cmd[PATH_MAX + 16];

	/* Check runs each test in its own child: clean up by name. */
	if (tmpdir[0] && strstr(tmpdir, "check_elf_sym.")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	tmpdir[0] = '\0';
}

/* tmpdir + rel, with the directories on the way made. */
static const char *
tpath(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *p = buf[k++ % 4], *s;

	snprintf(p, PATH_MAX, "%s%s", tmpdir, rel);
	for (s = p + strlen(tmpdir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	return p;
}

/* Checks the symbol covering vaddr and the offset into it. */
static void
expect_sym(const struct elf_file *ef, uint64_t vaddr, const char *want,
	   uint64_t want_off)
{
	uint64_t off = 12345;
	const char *got = elf_file_symbol(ef, vaddr, &off);

	ck_assert_msg(got != NULL, "%#llx: no symbol, want %s",
		      (unsigned long long)vaddr, want);
	ck_assert_msg(strcmp(got, want) == 0, "%#llx: got %s, want %s",
		      (unsigned long long)vaddr, got, want);
	ck_assert_msg(off == want_off, "%#llx: offset %#llx, want %#llx",
		      (unsigned long long)vaddr, (unsigned long long)off,
		      (unsigned long long)want_off);
}

static void
expect_nosym(const struct elf_file *ef, uint64_t vaddr)
{
	const char *got = elf_file_symbol(ef, vaddr, NULL);

	ck_assert_msg(got == NULL, "%#llx: got %s, want none",
		      (unsigned long long)vaddr, got);
}

/* clang-format off */
static const struct tsym rules_syms[] = {
	{ "sized_a", 0x401000, 0x10, STB_GLOBAL, STT_FUNC, TEXT_SHNDX },
	{ "alias_local", 0x401000, 0x10, STB_LOCAL, STT_FUNC, TEXT_SHNDX },
	{ "__sized_a", 0x401000, 0x10, STB_GLOBAL, STT_FUNC, TEXT_SHNDX },
	{ "zero_alias", 0x401000, 0, STB_GLOBAL, STT_FUNC, TEXT_SHNDX },
	{ "sized_b", 0x401020, 0x20, STB_GLOBAL, STT_FUNC, TEXT_SHNDX },
	{ "inner", 0x401028, 4, STB_LOCAL, STT_FUNC, TEXT_SHNDX },
	{ "ifunc_d", 0x401050, 8, STB_GLOBAL, STT_GNU_IFUNC, TEXT_SHNDX },
	{ "object_e", 0x401060, 8, STB_GLOBAL, STT_OBJECT, TEXT_SHNDX },
	{ "unsized_c", 0x401080, 0, STB_WEAK, STT_FUNC, TEXT_SHNDX },
	{ "undef_f", 0, 0, STB_GLOBAL, STT_FUNC, SHN_UNDEF },
	{ "abs_g", 0x402200, 0, STB_GLOBAL, STT_FUNC, SHN_ABS },
	{ "outside_h", 0x409000, 0, STB_GLOBAL, STT_FUNC, SHN_ABS },
};
/* clang-format on */

/* path opened inside root (NULL: the host's "/"), as a target's. */
static struct elf_file *
open_at(const char *root, const char *path)
{
	struct tfile_root *r = tfile_root_dir(root ? root : "/");
	struct elf_file *ef;
	int saved;

	ck_assert_ptr_nonnull(r);
	ef = elf_file_open(r, path);
	saved = errno;
	tfile_root_destroy(r);
	errno = saved;
	return ef;
}

static const uint8_t rules_id[] = {0xab, 0xcd, 1, 2, 3, 4, 5, 6};

static struct elf_file *
open_rules(void)
{
	struct telf t = {
	    .syms = rules_syms,
	    .nsyms = sizeof(rules_syms) / sizeof(rules_syms[0]),
	    .build_id = rules_id,
	    .build_id_len = sizeof(rules_id),
	};
	struct elf_file *ef;

	write_elf(tpath("/rules"), &t);
	ef = open_at(NULL, tpath("/rules"));
	ck_assert_msg(ef != NULL, "open: %s", strerror(errno));
	return ef;
}

START_TEST(test_sizes_and_aliases)
{
	struct elf_file *ef = open_rules();

	/* undef_f, object_e and the unreachable outside_h are not kept;
	 * aliases of 0x401000 collapse into one. */
	ck_assert_uint_eq(elf_file_symbol_count(ef), 6);
	expect_sym(ef, 0x401000, "sized_a", 0);
	expect_sym(ef, 0x40100f, "sized_a", 0xf);
	expect_nosym(ef, 0x401010); /* past the end: not sized_a */
	expect_nosym(ef, 0x40101f);
	expect_nosym(ef, 0x400fff);
	expect_sym(ef, 0x401020, "sized_b", 0);
	expect_sym(ef, 0x401028, "inner", 0);
	expect_sym(ef, 0x40102b, "inner", 3);
	expect_sym(ef, 0x40102c, "sized_b", 0xc); /* enclosing symbol */
	expect_sym(ef, 0x40103f, "sized_b", 0x1f);
	expect_nosym(ef, 0x401040);
	expect_sym(ef, 0x401050, "ifunc_d", 0);
	expect_nosym(ef, 0x401058);
	expect_nosym(ef, 0x401060); /* an object */
	elf_file_close(ef);
}
END_TEST

/* The bounds the weave anchors by: sized symbols only. */
START_TEST(test_function_bounds)
{
	struct elf_file *ef = open_rules();
	uint64_t a = 1, b = 1;

	ck_assert_int_eq(elf_file_function_bounds(ef, 0x40100f, &a, &b), 0);
	ck_assert_uint_eq(a, 0x401000);
	ck_assert_uint_eq(b, 0x401010);
	/* Inside inner, which sized_b encloses: inner's own. */
	ck_assert_int_eq(elf_file_function_bounds(ef, 0x40102a, &a, &b), 0);
	ck_assert_uint_eq(a, 0x401028);
	ck_assert_uint_eq(b, 0x40102c);
	ck_assert_int_eq(elf_file_function_bounds(ef, 0x40102c, &a, &b), 0);
	ck_assert_uint_eq(a, 0x401020);
	ck_assert_uint_eq(b, 0x401040);
	/* Unsized, or no symbol: not known. */
	ck_assert_int_eq(elf_file_function_bounds(ef, 0x401080, &a, &b), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(elf_file_function_bounds(ef, 0x401010, &a, &b), -1);
	elf_file_close(ef);
}
END_TEST

START_TEST(test_unsized)
{
	struct elf_file *ef = open_rules();

	expect_sym(ef, 0x401080, "unsized_c", 0);
	expect_sym(ef, 0x4010ff, "unsized_c", 0x7f);
	expect_nosym(ef, 0x401100);		 /* beyond its section */
	expect_sym(ef, 0x402210, "abs_g", 0x10); /* bounded by its PT_LOAD */
	expect_nosym(ef, 0x402280);
	expect_nosym(ef, 0x409000);
	expect_nosym(ef, UINT64_MAX);
	elf_file_close(ef);
}
END_TEST

START_TEST(test_segments)
{
	struct elf_file *ef = open_rules();
	const uint8_t *id;
	uint64_t v, s;
	size_t len;

	ck_assert_int_eq(elf_file_type(ef), ET_EXEC);
	ck_assert_int_eq(elf_file_offset_to_vaddr(ef, 0x1010, &v), 0);
	ck_assert_uint_eq(v, 0x401010);
	ck_assert_int_eq(elf_file_offset_to_vaddr(ef, 0x1190, &v), 0);
	ck_assert_uint_eq(v, 0x402190);
	ck_assert_int_eq(elf_file_offset_to_vaddr(ef, 0x1200, &v), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(elf_file_offset_to_vaddr(ef, 0xfff, &v), -1);

	/* Both segments start in file page 0x1000. */
	ck_assert_int_eq(elf_file_mapping_vaddr(ef, 0x1000, true, &v), 0);
	ck_assert_uint_eq(v, 0x401000);
	ck_assert_int_eq(elf_file_mapping_vaddr(ef, 0x1000, false, &v), 0);
	ck_assert_uint_eq(v, 0x402000);
	ck_assert_int_eq(elf_file_mapping_vaddr(ef, 0x2000, false, &v), -1);

	ck_assert_int_eq(elf_file_eh_frame_hdr(ef, &v, &s), 0);
	ck_assert_uint_eq(v, 0x401100);
	ck_assert_uint_eq(s, 0x20);
	ck_assert_int_eq(elf_file_eh_frame(ef, &v, &s), -1);

	id = elf_file_build_id(ef, &len);
	ck_assert_ptr_nonnull(id);
	ck_assert_uint_eq(len, sizeof(rules_id));
	ck_assert_int_eq(memcmp(id, rules_id, len), 0);
	elf_file_close(ef);
}
END_TEST

/* ---- separate debug files ------------------------------------------ */

/* clang-format off */
static const struct tsym dyn_syms[] = {
	{ "dyn_only", 0x401000, 0x10, STB_GLOBAL, STT_FUNC, TEXT_SHNDX },
};
static const struct tsym dbg_syms[] = {
	{ "dyn_only", 0x401000, 0x10, STB_GLOBAL, STT_FUNC, TEXT_SHNDX },
	{ "debug_only", 0x401020, 0x10, STB_LOCAL, STT_FUNC, TEXT_SHNDX },
};
/* clang-format on */
static const uint8_t dbg_id[] = {0x12, 0x34, 0x56, 0x78, 0x9a};
static const uint8_t other_id[] = {0x12, 0x34, 0x56, 0x78, 0x9b};

/* A debug file at rel, then a main file at /lib/main.so linking to it. */
static void
write_pair(const char *rel, bool link, bool good_crc, const uint8_t *main_id,
	   const uint8_t *debug_id)
{
	struct telf dbg = {
	    .syms = dbg_syms,
	    .nsyms = 2,
	    .build_id = debug_id,
	    .build_id_len = debug_id ? 5 : 0,
	};
	struct telf main_file = {
	    .dynamic = true,
	    .syms = dyn_syms,
	    .nsyms = 1,
	    .build_id = main_id,
	    .build_id_len = main_id ? 5 : 0,
	};

	write_elf(tpath(rel), &dbg);
	if (link) {
		main_file.debuglink = "main.debug";
		main_file.crc = file_crc(tpath(rel)) ^ (good_crc ? 0 : 1);
	}
	write_elf(tpath("/lib/main.so"), &main_file);
}

static void
expect_debug_symbols(bool found)
{
	struct elf_file *ef = open_at(tmpdir, "/lib/main.so");

	ck_assert_msg(ef != NULL, "open: %s", strerror(errno));
	expect_sym(ef, 0x401004, "dyn_only", 4);
	if (found)
		expect_sym(ef, 0x401024, "debug_only", 4);
	else
		expect_nosym(ef, 0x401024);
	elf_file_close(ef);
}

START_TEST(test_debuglink_same_dir)
{
	write_pair("/lib/main.debug", true, true, NULL, NULL);
	expect_debug_symbols(true);
}
END_TEST

START_TEST(test_debuglink_bad_crc)
{
	write_pair("/lib/main.debug", true, false, NULL, NULL);
	expect_debug_symbols(false);
}
END_TEST

START_TEST(test_debuglink_dot_debug)
{
	write_pair("/lib/.debug/main.debug", true, true, NULL, NULL);
	expect_debug_symbols(true);
}
END_TEST

START_TEST(test_debuglink_global_dir)
{
	write_pair("/usr/lib/debug/lib/main.debug", true, true, NULL, NULL);
	expect_debug_symbols(true);
}
END_TEST

START_TEST(test_debuglink_needs_root)
{
	struct elf_file *ef;

	/* Without the root prefix the debug file is not where we look. */
	write_pair("/usr/lib/debug/lib/main.debug", true, true, NULL, NULL);
	ef = open_at(NULL, tpath("/lib/main.so"));
	ck_assert_ptr_nonnull(ef);
	expect_nosym(ef, 0x401024);
	elf_file_close(ef);
}
END_TEST

START_TEST(test_build_id_dir)
{
	write_pair("/usr/lib/debug/.build-id/12/3456789a.debug", false, false,
		   dbg_id, dbg_id);
	expect_debug_symbols(true);
}
END_TEST

START_TEST(test_build_id_mismatch)
{
	write_pair("/usr/lib/debug/.build-id/12/3456789a.debug", false, false,
		   dbg_id, other_id);
	expect_debug_symbols(false);
}
END_TEST

static double
seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * A debuglink candidate is read whole for its CRC: a 2 GiB sparse file
 * there (once 17.6 s of reading, the target's signals held as long) is
 * refused by its size, one below the cap that is no ELF file with a
 * .symtab is not read at all.
 */
START_TEST(test_debuglink_huge)
{
	struct timespec t0;
	double s;

	write_pair("/lib/main.debug", true, true, NULL, NULL);
	ck_assert_int_eq(truncate(tpath("/lib/main.debug"), 2ll << 30), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_debug_symbols(false);
	s = seconds_since(&t0);
	ck_assert_msg(s < 1.0, "2 GiB debuglink candidate: %.2f s", s);

	write_pair("/lib/main.debug", true, true, NULL, NULL);
	spill(tpath("/lib/main.debug"), "", 0);
	ck_assert_int_eq(truncate(tpath("/lib/main.debug"),
				  TFILE_CAP_DEBUGLINK - 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_debug_symbols(false);
	s = seconds_since(&t0);
	ck_assert_msg(s < 0.5, "zeros below the cap: %.2f s", s);
}
END_TEST

/* An absolute symlink resolves inside the root, not on the host. */
START_TEST(test_debuglink_symlink_in_root)
{
	write_pair("/usr/lib/debug/real.debug", true, true, NULL, NULL);
	ck_assert_int_eq(symlink("/usr/lib/debug/real.debug",
				 tpath("/lib/main.debug")), 0);
	expect_debug_symbols(true);
}
END_TEST

/*
 * A DWARF file linking a dwz file (.gnu_debugaltlink: a name, NUL, its
 * build-id): elf_find_dwarf() finds it inside the root, by name, when
 * its build-id matches, and refuses the DWARF otherwise (ENOLINK), FIFO
 * included, rather than let libdw open the name on the host.
 */
static void
write_dwarf_with_alt(const char *alt_name)
{
	char cmd[3 * PATH_MAX], link[256];
	size_t nl = strlen(alt_name) + 1;
	struct telf t = { .syms = rules_syms, .nsyms = 1 };

	write_elf(tpath("/lib/plain.so"), &t);
	memcpy(link, alt_name, nl);
	memcpy(link + nl, dbg_id, sizeof(dbg_id));
	spill(tpath("/link.bin"), link, nl + sizeof(dbg_id));
	spill(tpath("/info.bin"), "not really DWARF", 16);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --add-section .debug_info='%s' "
		 "--add-section .gnu_debugaltlink='%s' '%s' '%s'",
		 tpath("/info.bin"), tpath("/link.bin"),
		 tpath("/lib/plain.so"), tpath("/lib/dwz.so"));
	ck_assert_int_eq(system(cmd), 0);
}

static int
find_dwarf_in_tmpdir(struct elf_dwarf *ed)
{
	struct tfile_root *r = tfile_root_dir(tmpdir);
	int ret, saved;

	ret = elf_find_dwarf(r, "/lib/dwz.so", ed);
	saved = errno;
	tfile_root_destroy(r);
	errno = saved;
	return ret;
}

START_TEST(test_dwarf_alt_file)
{
	struct telf alt = { .syms = rules_syms, .nsyms = 1,
			    .build_id = dbg_id, .build_id_len = 5 };
	struct elf_dwarf ed;

	write_dwarf_with_alt("/usr/lib/debug/.dwz/common.debug");
	errno = 0;
	ck_assert_int_eq(find_dwarf_in_tmpdir(&ed), -1);
	ck_assert_int_eq(errno, ENOLINK);

	write_elf(tpath("/usr/lib/debug/.dwz/common.debug"), &alt);
	ck_assert_int_eq(find_dwarf_in_tmpdir(&ed), 0);
	ck_assert_str_eq(ed.path, "/lib/dwz.so");
	ck_assert_int_ge(ed.fd, 0);
	ck_assert_int_ge(ed.alt_fd, 0);
	close(ed.fd);
	close(ed.alt_fd);

	/* Another build-id under that name is not its dwz file. */
	alt.build_id = other_id;
	write_elf(tpath("/usr/lib/debug/.dwz/common.debug"), &alt);
	errno = 0;
	ck_assert_int_eq(find_dwarf_in_tmpdir(&ed), -1);
	ck_assert_int_eq(errno, ENOLINK);

	/* A FIFO is refused at once (libdw's open(2) would block). */
	write_dwarf_with_alt("/fifo");
	ck_assert_int_eq(mkfifo(tpath("/fifo"), 0644), 0);
	errno = 0;
	ck_assert_int_eq(find_dwarf_in_tmpdir(&ed), -1);
	ck_assert_int_eq(errno, ENOLINK);
}
END_TEST

/* ---- malformed input ----------------------------------------------- */

static void
open_no_crash(const char *path)
{
	struct elf_file *ef = open_at(NULL, path);

	if (ef) {
		uint64_t v, s;
		size_t len;

		elf_file_symbol(ef, 0x401000, NULL);
		elf_file_symbol(ef, 0, NULL);
		elf_file_eh_frame_hdr(ef, &v, &s);
		elf_file_build_id(ef, &len);
		elf_file_close(ef);
	}
}

START_TEST(test_garbage)
{
	unsigned char buf[8192];
	size_t i;

	srand(1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = rand() & 0xff;
	spill(tpath("/garbage"), buf, sizeof(buf));
	errno = 0;
	ck_assert_ptr_null(open_at(NULL, tpath("/garbage")));
	ck_assert_int_eq(errno, ENOEXEC);

	/* An ELF ident followed by garbage. */
	memcpy(buf, "\177ELF\2\1\1", 7);
	spill(tpath("/garbage"), buf, sizeof(buf));
	open_no_crash(tpath("/garbage"));

	spill(tpath("/empty"), buf, 0);
	ck_assert_ptr_null(open_at(NULL, tpath("/empty")));
	ck_assert_ptr_null(open_at(NULL, tmpdir)); /* a directory */
	errno = 0;
	ck_assert_ptr_null(open_at(NULL, tpath("/missing")));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(open_at(NULL, ""));
}
END_TEST

START_TEST(test_truncated)
{
	size_t len, cut[] = {4, 52, 64, 200, 1000, 4096, 0, 0};
	unsigned char *img = slurp("/proc/self/exe", &len);
	size_t i;

	cut[6] = len / 2;
	cut[7] = len - 1;
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		spill(tpath("/cut"), img, cut[i] < len ? cut[i] : len);
		open_no_crash(tpath("/cut"));
	}
	free(img);
}
END_TEST

/* Random byte flips in a real binary's headers and tables. */
START_TEST(test_corrupted)
{
	size_t len, i, k;
	unsigned char *img = slurp("/proc/self/exe", &len), *copy;
	Elf64_Ehdr eh;

	memcpy(&eh, img, sizeof(eh));
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	srand(42);
	for (i = 0; i < 300; i++) {
		memcpy(copy, img, len);
		for (k = 0; k < 8; k++) {
			size_t pos;

			switch (rand() % 3) {
			case 0: /* ELF and program headers */
				pos = rand() % 512;
				break;
			case 1: /* section headers */
				pos = eh.e_shoff +
				      rand() % (eh.e_shnum * eh.e_shentsize);
				break;
			default:
				pos = rand() % len;
				break;
			}
			if (pos < len)
				copy[pos] = rand() & 0xff;
		}
		spill(tpath("/corrupt"), copy, len);
		open_no_crash(tpath("/corrupt"));
	}
	free(copy);
	free(img);
}
END_TEST

/* ---- symtab on this process ---------------------------------------- */

static uint64_t
libc_getpid(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn;

	ck_assert_ptr_nonnull(h);
	fn = dlsym(h, "getpid");
	ck_assert_ptr_nonnull(fn);
	dlclose(h);
	return (uint64_t)(uintptr_t)fn;
}

START_TEST(test_self_exe)
{
	uint64_t ip = (uint64_t)(uintptr_t)chain_c, off;
	struct symtab *st = symtab_create(getpid());
	struct symtab_module mod;
	struct elf_file *ef;
	const char *name;

	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(symtab_module(st, ip, &mod), 0);
	ck_assert_ptr_nonnull(mod.elf);
	ck_assert(ip >= mod.start && ip < mod.end);

	/* The same file opened directly, at the link-time address. */
	{
		/* By its name: /proc/self/exe is a magic link, which a
		 * target's file name may not be. */
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		ck_assert_int_gt(n, 0);
		exe[n] = '\0';
		ef = open_at(NULL, exe);
	}
	ck_assert_ptr_nonnull(ef);
	name = elf_file_symbol(ef, ip - mod.bias, &off);
	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, "chain_c");
	ck_assert_uint_eq(off, 0);
	name =
	    elf_file_symbol(ef, (uint64_t)(uintptr_t)chain_b - mod.bias, &off);
	ck_assert_str_eq(name, "chain_b");
	elf_file_close(ef);
	symtab_destroy(st);
}
END_TEST

START_TEST(test_frame_names)
{
	struct symtab *st = symtab_create(getpid());
	char buf[256];
	void *anon;

	ck_assert_ptr_nonnull(st);
	/* The main executable: the bare name. */
	symtab_frame_name(st, (uint64_t)(uintptr_t)chain_c, buf, sizeof(buf));
	ck_assert_str_eq(buf, "chain_c");
	symtab_frame_name(st, (uint64_t)(uintptr_t)chain_a + 1, buf,
			  sizeof(buf));
	ck_assert_str_eq(buf, "chain_a");
	/* Another file: NAME (basename). */
	symtab_frame_name(st, libc_getpid(), buf, sizeof(buf));
	ck_assert_str_eq(buf, "getpid (libc.so.6)");
	/* Nothing mapped there. */
	symtab_frame_name(st, 8, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x8");
	/* Anonymous memory (JIT code, say): the bare address. */
	anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(anon != MAP_FAILED);
	ck_assert_int_eq(symtab_reload(st), 0);
	symtab_frame_name(st, (uint64_t)(uintptr_t)anon + 16, buf, sizeof(buf));
	ck_assert_uint_eq(strtoull(buf, NULL, 16),
			  (uint64_t)(uintptr_t)anon + 16);
	ck_assert_ptr_null(strchr(buf, ' '));
	/* Truncation is safe. */
	symtab_frame_name(st, libc_getpid(), buf, 5);
	ck_assert_str_eq(buf, "getp");
	munmap(anon, 4096);
	symtab_destroy(st);
}
END_TEST

START_TEST(test_libc_eh_frame_hdr)
{
	struct symtab *st = symtab_create(getpid());
	struct symtab_module mod;
	uint64_t v, s;

	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(symtab_module(st, libc_getpid(), &mod), 0);
	ck_assert_ptr_nonnull(mod.elf);
	ck_assert_ptr_nonnull(strstr(mod.path, "libc.so.6"));
	ck_assert(mod.prot & PROT_EXEC);
	ck_assert_int_eq(elf_file_eh_frame_hdr(mod.elf, &v, &s), 0);
	ck_assert_uint_gt(s, 12);
	/* It is mapped where the bias says: version 1, sdata4 table. */
	ck_assert_uint_eq(((const uint8_t *)(uintptr_t)(v + mod.bias))[0], 1);
	ck_assert_uint_eq(((const uint8_t *)(uintptr_t)(v + mod.bias))[3],
			  0x3b);
	ck_assert_ptr_nonnull(elf_file_build_id(mod.elf, NULL));
	symtab_destroy(st);
}
END_TEST

/* The vDSO has no file: symtab reads rbflame's own copy. */
START_TEST(test_vdso)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	struct symtab *st;
	struct symtab_module mod;
	char buf[256];

	if (!base)
		return; /* no vDSO on this system */
	st = symtab_create(getpid());
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(symtab_module(st, base, &mod), 0);
	ck_assert_str_eq(mod.path, "[vdso]");
	ck_assert_ptr_nonnull(mod.elf);
	ck_assert_uint_eq(mod.bias, base); /* linked at 0 */
	ck_assert_uint_gt(elf_file_symbol_count(mod.elf), 0);
	symtab_frame_name(st, base, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x0 ([vdso])");
	symtab_destroy(st);
}
END_TEST

START_TEST(test_unmapped_module)
{
	struct symtab *st = symtab_create(getpid());
	struct symtab_module mod;

	ck_assert_ptr_nonnull(st);
	errno = 0;
	ck_assert_int_eq(symtab_module(st, 8, &mod), -1);
	ck_assert_int_eq(errno, ENOENT);
	symtab_destroy(st);
}
END_TEST

/* ---- unwinding ------------------------------------------------------ */

START_TEST(test_unwind_bad_input)
{
	struct symtab *st = symtab_create(getpid());
	struct mem *m = mem_create_live(getpid());
	struct unwinder *u = unwind_create(getpid(), m, st);
	struct user_regs_struct regs;
	uint64_t ips[16];

	ck_assert_ptr_nonnull(u);
	memset(&regs, 0, sizeof(regs));
	ck_assert_int_eq(unwind_stack(u, getpid(), &regs, ips, 16), 0);
	regs.rip = (uint64_t)(uintptr_t)chain_b + 4;
	ck_assert_int_eq(unwind_stack(u, getpid(), &regs, ips, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Stack pointer nowhere: the leaf only, no crash. */
	regs.rsp = 16;
	ck_assert_int_eq(unwind_stack(u, getpid(), &regs, ips, 16), 1);
	ck_assert_uint_eq(ips[0], regs.rip);
	/* Nothing mapped at rip either. */
	regs.rip = 0x10;
	regs.rsp = 0x20;
	regs.rbp = 0x30;
	ck_assert_int_eq(unwind_stack(u, getpid(), &regs, ips, 16), 1);
	unwind_destroy(u);
	mem_destroy(m);
	symtab_destroy(st);
}
END_TEST

#define MAX_FRAMES 64

struct child {
	pid_t pid;
	struct symtab *st;
	struct mem *mem;
	struct unwinder *u;
	char names[MAX_FRAMES][256];
	int n;
};

static void
start_child(struct child *c, const char *mode)
{
	char fdstr[16], x;
	int p[2];

	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(pipe(p), 0);
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		snprintf(fdstr, sizeof(fdstr), "%d", p[1]);
		execl("/proc/self/exe", "check_elf_sym", "--chain-child", fdstr,
		      mode, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &x, 1), 1);
	close(p[0]);
	ck_assert_msg(ptrace(PTRACE_SEIZE, c->pid, 0, 0) == 0,
		      "PTRACE_SEIZE: %s", strerror(errno));
	c->st = symtab_create(c->pid);
	ck_assert_ptr_nonnull(c->st);
	c->mem = mem_create_live(c->pid);
	c->u = unwind_create(c->pid, c->mem, c->st);
	ck_assert_ptr_nonnull(c->u);
}

static void
stop_child(struct child *c)
{
	int status;

	unwind_destroy(c->u);
	mem_destroy(c->mem);
	symtab_destroy(c->st);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &status, __WALL);
}

static bool
interrupt(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
		return false;
	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0 || !WIFSTOPPED(status))
			return false;
		if (status >> 16 == PTRACE_EVENT_STOP)
			return true;
		/* A signal of the child's own: let it through. */
		ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
	}
}

/* One sample the way the sampler takes it: names after the resume. */
static void
sample(struct child *c)
{
	struct user_regs_struct regs;
	uint64_t ips[MAX_FRAMES];
	int i;

	c->n = 0;
	ck_assert(interrupt(c->pid));
	mem_flush(c->mem);
	ck_assert_int_eq(ptrace(PTRACE_GETREGS, c->pid, 0, &regs), 0);
	c->n = unwind_stack(c->u, c->pid, &regs, ips, MAX_FRAMES);
	ck_assert_int_eq(ptrace(PTRACE_CONT, c->pid, 0, 0), 0);
	ck_assert_int_ge(c->n, 1);
	for (i = 0; i < c->n; i++)
		symtab_frame_name(c->st, i ? ips[i] - 1 : ips[i], c->names[i],
				  sizeof(c->names[i]));
}

static const char *
joined(const struct child *c)
{
	static char buf[MAX_FRAMES * 64];
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < c->n && len < sizeof(buf) - 1; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? ";" : "", c->names[i]);
	return buf;
}

/* Index of chain_c when chain_c, chain_b, chain_a, main follow; else -1. */
static int
find_chain(const struct child *c)
{
	static const char *const want[] = {"chain_c", "chain_b", "chain_a",
					   "main"};
	int i, k;

	for (i = 0; i + 4 <= c->n; i++) {
		for (k = 0; k < 4; k++)
			if (strcmp(c->names[i + k], want[k]))
				break;
		if (k == 4)
			return i;
	}
	return -1;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

START_TEST(test_unwind_child_spinning)
{
	struct child c;
	int tries, at = -1;

	start_child(&c, "spin");
	for (tries = 0; tries < 300; tries++) {
		sample(&c);
		at = find_chain(&c);
		if (at >= 0)
			break;
		sleep_ms(10);
	}
	ck_assert_msg(at == 0, "stack: %s", joined(&c));
	/* Again: now from libunwind's caches and ours. */
	sample(&c);
	ck_assert_msg(find_chain(&c) == 0, "stack: %s", joined(&c));
	stop_child(&c);
}
END_TEST

START_TEST(test_unwind_child_in_libc)
{
	struct child c;
	int tries, at = -1, i;

	start_child(&c, "pause");
	for (tries = 0; tries < 300; tries++) {
		sample(&c);
		at = find_chain(&c);
		if (at > 0)
			break;
		sleep_ms(10);
	}
	ck_assert_msg(at > 0, "stack: %s", joined(&c));
	/* Above chain_c, only libc: through its .eh_frame_hdr. */
	for (i = 0; i < at; i++)
		ck_assert_msg(strstr(c.names[i], " (libc.so.6)"), "stack: %s",
			      joined(&c));
	stop_child(&c);
}
END_TEST

static Suite *
elf_suite(void)
{
	Suite *s = suite_create("elf_sym");
	TCase *tc;

	tc = tcase_create("rules");
	tcase_add_checked_fixture(tc, make_tmpdir, remove_tmpdir);
	tcase_add_test(tc, test_sizes_and_aliases);
	tcase_add_test(tc, test_function_bounds);
	tcase_add_test(tc, test_unsized);
	tcase_add_test(tc, test_segments);
	suite_add_tcase(s, tc);

	tc = tcase_create("debug_files");
	tcase_add_checked_fixture(tc, make_tmpdir, remove_tmpdir);
	tcase_add_test(tc, test_debuglink_same_dir);
	tcase_add_test(tc, test_debuglink_bad_crc);
	tcase_add_test(tc, test_debuglink_dot_debug);
	tcase_add_test(tc, test_debuglink_global_dir);
	tcase_add_test(tc, test_debuglink_needs_root);
	tcase_add_test(tc, test_build_id_dir);
	tcase_add_test(tc, test_build_id_mismatch);
	tcase_add_test(tc, test_debuglink_huge);
	tcase_add_test(tc, test_debuglink_symlink_in_root);
	tcase_add_test(tc, test_dwarf_alt_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_checked_fixture(tc, make_tmpdir, remove_tmpdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_corrupted);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *
symtab_suite(void)
{
	Suite *s = suite_create("symtab");
	TCase *tc = tcase_create("self");

	tcase_add_test(tc, test_self_exe);
	tcase_add_test(tc, test_frame_names);
	tcase_add_test(tc, test_libc_eh_frame_hdr);
	tcase_add_test(tc, test_vdso);
	tcase_add_test(tc, test_unmapped_module);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *
unwind_suite(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("ptrace");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_unwind_bad_input);
	tcase_add_test(tc, test_unwind_child_spinning);
	tcase_add_test(tc, test_unwind_child_in_libc);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	/* The tracee of the unwind tests: main -> chain_a -> b -> c. */
	if (argc == 4 && strcmp(argv[1], "--chain-child") == 0) {
		int fd = atoi(argv[2]);

		chain_pause = strcmp(argv[3], "pause") == 0;
		if (write(fd, "x", 1) != 1)
			return 1;
		close(fd);
		chain_a();
		return 0;
	}

	sr = srunner_create(elf_suite());
	srunner_add_suite(sr, symtab_suite());
	srunner_add_suite(sr, unwind_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
