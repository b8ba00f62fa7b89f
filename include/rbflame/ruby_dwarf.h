/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * struct ruby_layout from the target's own DWARF, with libdw: for Rubies
 * built with -g (rbenv, ruby-build, a distribution's debug package), and
 * for the versions no generated layout covers. The C names looked up are
 * the ones scripts/ruby-layout/probe-*.c use, so both routes answer the
 * same questions.
 *
 * Two levels: a small index of the named types, typedefs and enumerators
 * of chosen compilation units (struct ruby_dwarf, usable on any binary,
 * which the unit test does), and the Ruby layout built on it.
 *
 * The DWARF belongs to the target: every walk is bounded, and a missing
 * or malformed answer is an error, never a guess.
 */
#ifndef RBFLAME_RUBY_DWARF_H
#define RBFLAME_RUBY_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "rbflame/ruby_layout.h"

struct ruby_dwarf;

/**
 * The compilation units (by base name) that hold every type the Ruby
 * layout needs: vm.c, iseq.c, gc.c, symbol.c, st.c, yjit.c. NULL-ended.
 */
extern const char *const ruby_dwarf_cus[];

/**
 * Indexes the DWARF of the ELF file open at fd (a file with .debug_info:
 * see elf_find_dwarf()), with alt_fd its dwz file or -1: the structs,
 * unions, typedefs and enumerators of its compilation units whose base
 * name is in cus (all of them when cus is NULL), following dwz's
 * imported units. Takes both descriptors, even on failure. NULL with
 * errno (ENODATA: no DWARF; ENOENT: none of the units; ENOLINK: the file
 * links a dwz file and alt_fd is -1, for libdw would look for it outside
 * the target's root). ruby_dwarf_close() frees.
 */
struct ruby_dwarf *ruby_dwarf_open_fd(int fd, int alt_fd,
				      const char *const *cus);

/**
 * The same from a path rbflame's user gave (tests, tools): never for a
 * file the target names, which tfile_open() opens.
 */
struct ruby_dwarf *ruby_dwarf_open(const char *path, const char *const *cus);

void ruby_dwarf_close(struct ruby_dwarf *d);

/*
 * Lookups. type is "struct NAME", "union NAME" or a typedef name; member
 * a path through nested members, "threads.sched.running" (anonymous
 * members are looked through). Each returns 0, or -1 with errno ENOENT.
 */

/** Byte offset of member in type. */
int ruby_dwarf_offset(struct ruby_dwarf *d, const char *type,
		      const char *member, uint64_t *off);
/** sizeof(type). */
int ruby_dwarf_size(struct ruby_dwarf *d, const char *type, uint64_t *size);
/** Byte size of member (an array's whole size). */
int ruby_dwarf_member_size(struct ruby_dwarf *d, const char *type,
			   const char *member, uint64_t *size);
/**
 * A bitfield member: its absolute bit position from the start of type
 * (little endian: bit 0 is the least significant bit of byte 0) and its
 * width. Both DWARF 4's DW_AT_bit_offset and DWARF 5's
 * DW_AT_data_bit_offset are understood.
 */
int ruby_dwarf_bits(struct ruby_dwarf *d, const char *type,
		    const char *member, uint64_t *bit, uint64_t *width);
/** An enumerator, or a constant variable (DW_AT_const_value), by name. */
int ruby_dwarf_enum(struct ruby_dwarf *d, const char *name, int64_t *value);
/** Whether member's type is, through typedefs, the typedef tname. */
int ruby_dwarf_member_is(struct ruby_dwarf *d, const char *type,
			 const char *member, const char *tname);
/** Whether a compilation unit is written in Rust (3.2+ YJIT). */
int ruby_dwarf_has_rust(const struct ruby_dwarf *d);

/** A layout from DWARF and the strings it points to. */
struct ruby_dwarf_layout {
	struct ruby_layout layout;
	char version[32];
	char source[256];
};

/**
 * Fills out from d for Ruby version ("3.1.2", from the target's
 * ruby_version); out->layout.source says "DWARF of " origin. Every field
 * the reader uses for that version's shapes must be found: -1 with errno
 * ENOENT otherwise, why naming the first missing type, member or
 * constant.
 */
int ruby_dwarf_layout(struct ruby_dwarf *d, const char *version,
		      const char *origin, struct ruby_dwarf_layout *out,
		      char *why, size_t whylen);

#endif /* RBFLAME_RUBY_DWARF_H */
