/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Where things live inside a CRuby process, as data. One version-
 * independent reader walks the VM of every supported Ruby (a generated
 * layout's, or any with DWARF debug info) through a struct ruby_layout:
 * byte offsets, sizes, enum values, bit positions and a few feature flags
 * for the shapes that really changed (thread list, native thread id,
 * string length, class name).
 *
 * The layouts of known builds live in src/ruby/layouts/ruby_X_Y_Z.c, one
 * per Debian release (patch releases can differ), and are generated, never
 * hand-edited: scripts/ruby-layout/generate X.Y compiles an
 * offsetof()/sizeof() probe inside Ruby's own translation units, configured
 * as Debian configures them. See doc/ruby-layout.md for the method, for how
 * a reader uses each group and for what was checked against live processes.
 * The same struct can be filled from DWARF at run time for other builds.
 *
 * Conventions:
 *  - Offsets are in bytes from the start of the named C object, uint16_t.
 *    RUBY_LAYOUT_NONE means "no such field in this version".
 *  - Bitfields are given as an absolute bit position from the start of the
 *    object (bit 0 = least significant bit of byte 0, x86_64 little endian)
 *    and a width in bits. Read the 8 bytes at (bit / 8) and shift by
 *    (bit % 8).
 *  - Enum and flag values are the target's own numbers, uint32_t.
 *    RUBY_LAYOUT_NOVAL means "no such value in this version".
 *
 * Nothing here is owned or freed: the layouts are static const data.
 */
#ifndef RBFLAME_RUBY_LAYOUT_H
#define RBFLAME_RUBY_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUBY_LAYOUT_NONE	0xffffu		/* offset: field absent */
#define RUBY_LAYOUT_NOVAL	0xffffffffu	/* value: constant absent */

/* How to enumerate threads. */
enum ruby_layout_threads {
	/* 2.7: rb_vm_t.living_threads, a ccan list of rb_thread_t. */
	RUBY_LAYOUT_THREADS_VM = 1,
	/* 3.0+: per ractor, ractor->threads.set; ractors from the VM. */
	RUBY_LAYOUT_THREADS_RACTOR = 2,
};

/* Where the kernel thread id (LWP) of a Ruby thread is stored. */
enum ruby_layout_tid {
	/* 2.7: only the pthread_t (thread_thread_id); the LWP id is inside
	 * glibc's struct pthread, which is glibc's layout, not Ruby's. */
	RUBY_LAYOUT_TID_PTHREAD = 1,
	/* 3.0-3.2: rb_thread_t.tid (thread_tid). */
	RUBY_LAYOUT_TID_THREAD = 2,
	/* 3.3+: rb_thread_t.nt -> struct rb_native_thread.tid (nt_tid). */
	RUBY_LAYOUT_TID_NATIVE_THREAD = 3,
};

/* Where an embedded String keeps its length. */
enum ruby_layout_string {
	/* <= 3.1: in RBasic.flags (rstring_embed_len_mask/shift); the
	 * bytes start at rstring_embed_ary; a heap string has len/ptr. */
	RUBY_LAYOUT_STRING_LEN_IN_FLAGS = 1,
	/* 3.2+: always in RString.len (rstring_len). */
	RUBY_LAYOUT_STRING_LEN_FIELD = 2,
};

/* Format of iseq->body->insns_info (pc -> line). */
enum ruby_layout_lines {
	/* VM_INSN_INFO_TABLE_IMPL 1: positions[] (<= 2.5, not supported). */
	RUBY_LAYOUT_LINES_POSITIONS = 1,
	/* VM_INSN_INFO_TABLE_IMPL 2: succinct bit vector (2.6+). */
	RUBY_LAYOUT_LINES_SUCCINCT = 2,
};

/* Where a class keeps its name (the permanent or temporary class path). */
enum ruby_layout_classpath {
	/* <= 3.1 (and 3.2): in the class's ivar table, an st_table reached
	 * through classext_iv_tbl, under the dynamic IDs "__classpath__"
	 * (permanent) or "__tmp_classpath__" (anonymous parts). */
	RUBY_LAYOUT_CLASSPATH_IVAR = 1,
	/* 3.3+: rb_classext_t.classpath (classext_classpath). */
	RUBY_LAYOUT_CLASSPATH_EXT = 2,
};

/* Where a singleton class keeps the object it is attached to. */
enum ruby_layout_attached {
	/* <= 3.1: ivar id__attached__ (id_attached) in the ivar table. */
	RUBY_LAYOUT_ATTACHED_IVAR = 1,
	/* 3.2+: rb_classext_t.as.singleton_class.attached_object. */
	RUBY_LAYOUT_ATTACHED_EXT = 2,
};

/*
 * Offsets, values and flags of one Ruby build. The members, what each one
 * is and how it is read from DWARF are the list in ruby_layout_fields.h.
 */
struct ruby_layout {
#define RBL_FIELD(type, name, when, how, ctype, cmember) type name;
#include "rbflame/ruby_layout_fields.h"
};

/**
 * Every generated layout (src/ruby/layouts/ruby_X_Y_Z.c), NULL-terminated,
 * oldest first (src/ruby/layouts/index.c, generated too).
 */
extern const struct ruby_layout *const ruby_layouts[];

/**
 * The generated layout for Ruby version ("3.1.7"): the one of that very
 * release (*exact set true), else the nearest release of the same X.Y,
 * the newer of two as near (*exact false: the caller warns); for "X.Y"
 * alone the newest release of X.Y. NULL when X.Y has none. exact may be
 * NULL.
 */
const struct ruby_layout *ruby_layout_find(const char *version, bool *exact);

/**
 * ruby_layout_find() as if no layout whose version starts with hide
 * ("3.1.7", or "3.1" for every 3.1.x) existed: for tests of releases
 * rbflame has no layout of. hide NULL or "": none hidden.
 */
const struct ruby_layout *ruby_layout_find_hiding(const char *version,
						  const char *hide,
						  bool *exact);

/**
 * "2.7.4, 3.1.2, ..." of every generated layout into buf (truncated to
 * cap); returns the length written.
 */
size_t ruby_layout_list(char *buf, size_t cap);

/* ---- the struct as named fields (src/ruby/layout.c) ------------------- */

enum ruby_field_type {
	RUBY_FIELD_STR = 1,	/* const char * (version, source) */
	RUBY_FIELD_U8,
	RUBY_FIELD_I8,
	RUBY_FIELD_U16,		/* RUBY_LAYOUT_NONE: absent */
	RUBY_FIELD_U32,		/* RUBY_LAYOUT_NOVAL: absent */
};

struct ruby_layout_field {
	const char *name;	/* the member's name, "thread_ec" */
	size_t offset;		/* offsetof(struct ruby_layout, member) */
	enum ruby_field_type type;
};

/** Every member of struct ruby_layout in order, ended by a NULL name. */
extern const struct ruby_layout_field ruby_layout_fields[];

/** The field named name, or NULL. */
const struct ruby_layout_field *ruby_layout_field(const char *name);

/** The value of a numeric field (0 for a string field). */
int64_t ruby_layout_get(const struct ruby_layout *L,
			const struct ruby_layout_field *f);

/**
 * Sets a numeric field; -1 when v does not fit its type or is the
 * type's "absent" value (RUBY_LAYOUT_NONE / NOVAL: leave it alone).
 */
int ruby_layout_set(struct ruby_layout *L, const struct ruby_layout_field *f,
		    int64_t v);

/**
 * The value as one word into buf: decimal, "none" for an absent offset or
 * value, the string with blanks as '_' (or "-"); "-" when L is NULL.
 */
void ruby_layout_format(const struct ruby_layout *L,
			const struct ruby_layout_field *f, char *buf,
			size_t cap);

/**
 * Whether L can be used: every member required of every layout is
 * there; every offset lies inside its struct when the layout knows the
 * struct's size (a control frame's members, read from one local copy of
 * the frames, as whole aligned words inside it); struct sizes, bit
 * positions, widths and shifts sane. 0, or -1 with the first problem in
 * why ("cfp_ep 56 is outside rb_control_frame_t (56 bytes)"). A layout
 * read from the target's DWARF is untrusted input: it is checked before
 * use, and so is every built-in one (tests/unit/check_ruby_layout.c).
 */
int ruby_layout_check(const struct ruby_layout *L, char *why, size_t cap);

/** The first numeric field where a and b differ, NULL if none does;
 * yjit (whether the build has YJIT, a configure option) never counts. */
const struct ruby_layout_field *ruby_layout_diff(const struct ruby_layout *a,
						 const struct ruby_layout *b);

#endif /* RBFLAME_RUBY_LAYOUT_H */
