/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * All ELF work: function symbols (.symtab, else .dynsym merged with the
 * .symtab of a separate debug file found by build-id or .gnu_debuglink),
 * PT_LOAD segments, the build-id and the PT_GNU_EH_FRAME segment. Knows
 * nothing of processes: addresses here are link-time virtual addresses;
 * symtab.c applies the load bias.
 *
 * Files are untrusted input: every count and length is bounded, and a
 * malformed file makes elf_file_open() fail, never crash. Everything is
 * copied out at open time, so no file descriptor stays open.
 */
#ifndef RBFLAME_ELF_SYM_H
#define RBFLAME_ELF_SYM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;
struct tfile_root;

/**
 * Opens path inside r and loads what rbflame needs from it. Every file,
 * the ELF file and its debug files alike, is opened with tfile_open()
 * inside r (a target's root, with its rights); path is the path as the
 * target sees it. Returns NULL with errno set (ENOEXEC for a file that
 * is not a usable ELF file, see tfile_open() for the rest).
 * elf_file_close() frees.
 */
struct elf_file *elf_file_open(const struct tfile_root *r, const char *path);

/**
 * The same from fd, an ELF file already open (from tfile_open_mapped());
 * its debug files are looked for inside r by path (none when r is NULL
 * or path not absolute). fd stays the caller's.
 */
struct elf_file *elf_file_open_fd(int fd, const struct tfile_root *r,
				  const char *path);

/**
 * Same from an ELF image in memory (the vDSO). The image is only read
 * during the call.
 */
struct elf_file *elf_file_open_image(const void *image, size_t size);

/**
 * The function symbol covering link-time address vaddr, with *offset (if
 * offset is not NULL) set to vaddr minus the symbol's address. A sized
 * symbol covers [value, value + size); a size-0 symbol covers vaddr only
 * when no sized symbol does, it is the nearest symbol below and vaddr is
 * in the same section. NULL if none. The name lives as long as ef.
 */
const char *elf_file_symbol(const struct elf_file *ef, uint64_t vaddr,
			    uint64_t *offset);

/**
 * The bounds [*start, *end) of the sized function symbol that
 * elf_file_symbol() finds for vaddr (link-time addresses). 0, or -1 with
 * errno ENOENT when there is none or its size is not known.
 */
int elf_file_function_bounds(const struct elf_file *ef, uint64_t vaddr,
			     uint64_t *start, uint64_t *end);

/** Number of function symbols loaded (after dropping aliases). */
size_t elf_file_symbol_count(const struct elf_file *ef);

/**
 * Link-time address of byte file_offset, through the PT_LOAD segment whose
 * [p_offset, p_offset + p_filesz) holds it. 0, or -1 with errno ENOENT.
 */
int elf_file_offset_to_vaddr(const struct elf_file *ef, uint64_t file_offset,
			     uint64_t *vaddr);

/**
 * Link-time address at which a mapping that starts at file offset
 * map_offset (page aligned, as /proc/PID/maps shows it) begins; exec says
 * whether the mapping is executable, which settles a page shared by two
 * segments. Unlike elf_file_offset_to_vaddr() it accounts for segments
 * whose p_offset is not page aligned. 0, or -1 with errno ENOENT.
 */
int elf_file_mapping_vaddr(const struct elf_file *ef, uint64_t map_offset,
			   bool exec, uint64_t *vaddr);

/** The PT_GNU_EH_FRAME segment (.eh_frame_hdr). 0, or -1 with ENOENT. */
int elf_file_eh_frame_hdr(const struct elf_file *ef, uint64_t *vaddr,
			  uint64_t *size);

/** The .eh_frame section, from the section headers. 0, or -1 with ENOENT. */
int elf_file_eh_frame(const struct elf_file *ef, uint64_t *vaddr,
		      uint64_t *size);

/** The NT_GNU_BUILD_ID bytes and their count, or NULL if there are none. */
const uint8_t *elf_file_build_id(const struct elf_file *ef, size_t *len);

/** e_type: ET_EXEC, ET_DYN, ... */
int elf_file_type(const struct elf_file *ef);

/**
 * Looks up n symbols of any type by name in the file path inside r
 * (.dynsym, then .symtab), without keeping the file open: vaddrs[i] gets
 * the link-time address of names[i], or 0 if absent; sizes[i] (if sizes
 * is not NULL) its st_size. Returns how many were found, -1 with errno if
 * the file cannot be read as ELF.
 */
int elf_lookup_symbols(const struct tfile_root *r, const char *path,
		       const char *const *names, uint64_t *vaddrs,
		       uint64_t *sizes, size_t n);

/** The files holding the DWARF of a file: see elf_find_dwarf(). */
struct elf_dwarf {
	int fd;			/* the file with .debug_info */
	int alt_fd;		/* its dwz file (.gnu_debugaltlink), or -1 */
	char path[PATH_MAX];	/* fd's path, as the target sees it */
};

/**
 * Where the DWARF of the file path inside r is: the file itself when it
 * has a .debug_info section, else its separate debug file, found the way
 * elf_file_open() finds one (build-id under /usr/lib/debug/.build-id,
 * then .gnu_debuglink next to the file, in .debug/ and under
 * /usr/lib/debug); and when that file links a dwz supplementary file,
 * that one too (by build-id, then by its name). Every candidate is
 * opened inside r. 0 with out's descriptors open (the caller closes
 * them), or -1 with errno: ENODATA, no DWARF anywhere; ENOLINK, a dwz
 * file is linked but not found (libdw would look for it outside r).
 */
int elf_find_dwarf(const struct tfile_root *r, const char *path,
		   struct elf_dwarf *out);

/** Frees ef (NULL is fine). */
void elf_file_close(struct elf_file *ef);

#endif
