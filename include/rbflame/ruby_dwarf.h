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
 * errno (ENODATA: no DWARF, or a string section without a final NUL;
 * ENOENT: none of the units; ENOLINK: the file links a dwz file and
 * alt_fd is -1, for libdw would look for it outside the target's root).
 * ruby_dwarf_close() frees.
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

/*
 * The rule of each member of struct ruby_layout: the WHEN, HOW, CTYPE
 * and CMEMBER columns of its line in ruby_layout_fields.h (which says
 * what each one means).
 */

/** When a rule applies; outside it the member stays absent. */
enum ruby_dwarf_when {
	RUBY_DWARF_WHEN_ANY = 1,	/* every version: required */
	RUBY_DWARF_WHEN_OPT,		/* absent if not found */
	RUBY_DWARF_WHEN_RACTOR,		/* threads per ractor (3.0+) */
	RUBY_DWARF_WHEN_VMLIST,		/* threads in the VM (2.7) */
	RUBY_DWARF_WHEN_TID_THREAD,	/* rb_thread_t.tid (3.0-3.2) */
	RUBY_DWARF_WHEN_NOT_NT,		/* before rb_native_thread (<= 3.2) */
	RUBY_DWARF_WHEN_NT,		/* rb_native_thread (3.3+) */
	RUBY_DWARF_WHEN_SUCC,		/* succinct line table */
	RUBY_DWARF_WHEN_CP_IVAR,	/* class path in the ivar table */
	RUBY_DWARF_WHEN_CP_EXT,		/* classext classpath (3.3+) */
	RUBY_DWARF_WHEN_ATT_IVAR,	/* __attached__ ivar (<= 3.1) */
	RUBY_DWARF_WHEN_ATT_EXT,	/* classext attached_object (3.2+) */
	RUBY_DWARF_WHEN_LEN_FLAGS,	/* string length in flags (<= 3.1) */
};

/** How a member is read. */
enum ruby_dwarf_how {
	RUBY_DWARF_HOW_OFF = 1,	/* byte offset of member in type */
	RUBY_DWARF_HOW_SIZE,	/* sizeof(type) */
	RUBY_DWARF_HOW_BITS,	/* bitfield: bit here, width to the next */
	RUBY_DWARF_HOW_ENUM,	/* enumerator or constant named member */
	RUBY_DWARF_HOW_WIDTH,	/* set by the BITS rule before it */
	RUBY_DWARF_HOW_CODE,	/* code(): flags, macros */
	RUBY_DWARF_HOW_ARG,	/* ruby_dwarf_layout()'s arguments */
	RUBY_DWARF_HOW_NONE,	/* no rule: absent */
};

struct ruby_dwarf_rule {
	enum ruby_dwarf_when when;
	enum ruby_dwarf_how how;
	const char *type;	/* '|'-separated alternatives, or NULL */
	const char *member;	/* '|'-separated alternatives, or NULL */
	/*
	 * HOW CODE: the value into *v from d, given the members before it
	 * (the feature flags come first); -1 with why when d lacks it.
	 * NULL for the other HOWs.
	 */
	int (*code)(struct ruby_dwarf *d, const struct ruby_layout *L,
		    int64_t *v, char *why, size_t whylen);
};

/**
 * The rules, in the order of ruby_layout_fields[] (both are made from
 * ruby_layout_fields.h), ended by one whose how is 0.
 */
extern const struct ruby_dwarf_rule ruby_dwarf_rules[];

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
