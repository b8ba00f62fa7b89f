/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Where things live inside a CRuby process, as data. One version-
 * independent reader walks the VM of every supported Ruby (2.7 to 3.4)
 * through a struct ruby_layout: byte offsets, sizes, enum values, bit
 * positions and a few feature flags for the shapes that really changed
 * (thread list, native thread id, string length, class name).
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

struct ruby_layout {
	/* ---- identity ---------------------------------------------------- */
	const char *version;		/* RUBY_VERSION, "3.1.2" */
	const char *source;		/* Debian source, "ruby3.1 3.1.2-7+deb12u1" */
	uint8_t api_major;		/* RUBY_API_VERSION_MAJOR */
	uint8_t api_minor;		/* RUBY_API_VERSION_MINOR */

	/* ---- feature flags (enums above) --------------------------------- */
	uint8_t threads;		/* enum ruby_layout_threads */
	uint8_t tid;			/* enum ruby_layout_tid */
	uint8_t string;			/* enum ruby_layout_string */
	uint8_t lines;			/* enum ruby_layout_lines */
	uint8_t classpath;		/* enum ruby_layout_classpath */
	uint8_t attached;		/* enum ruby_layout_attached */
	uint8_t first_lineno_fixnum;	/* location.first_lineno: 1 VALUE, 0 int */
	uint8_t yjit;			/* built with YJIT (cfp_jit_return used) */

	/* ---- rb_vm_t (ruby_current_vm_ptr) ------------------------------- */
	uint16_t vm_ractor_set;		/* 3.0+ ractor.set, list of ractors */
	uint16_t vm_ractor_cnt;		/* 3.0+ ractor.cnt */
	uint16_t vm_main_ractor;	/* 3.0+ ractor.main_ractor */
	uint16_t vm_main_thread;	/* 2.7 main_thread; 3.x ractor.main_thread */
	uint16_t vm_living_threads;	/* 2.7 living_threads (ccan list head) */
	uint16_t vm_living_thread_num;	/* 2.7 */
	uint16_t vm_running_thread;	/* 2.7 running_thread */
	uint16_t vm_gvl_owner;		/* 2.7 gvl.owner (rb_thread_t *) */
	uint16_t vm_objspace;		/* objspace (3.4: gc.objspace) */

	/* ---- rb_ractor_t ------------------------------------------------- */
	uint16_t ractor_threads_set;	/* threads.set (ccan list head) */
	uint16_t ractor_threads_cnt;	/* threads.cnt (unsigned int) */
	uint16_t ractor_running_ec;	/* threads.running_ec: the GVL holder */
	uint16_t ractor_main_thread;	/* threads.main */
	uint16_t ractor_gvl_owner;	/* 3.0-3.2 threads.gvl.owner; 3.3+
					 * threads.sched.running (rb_thread_t *) */
	uint16_t ractor_vmlr_node;	/* vmlr_node, in vm_ractor_set */

	/* ---- ccan list (struct list_node / ccan_list_node) --------------- */
	uint16_t list_node_next;
	uint16_t list_node_prev;

	/* ---- rb_thread_t ------------------------------------------------- */
	uint16_t thread_lt_node;	/* node in the thread list (2.7 vmlt_node) */
	uint16_t thread_self;
	uint16_t thread_ractor;		/* 3.0+ */
	uint16_t thread_vm;
	uint16_t thread_ec;		/* rb_execution_context_t * */
	uint16_t thread_nt;		/* 3.3+ struct rb_native_thread * */
	uint16_t thread_thread_id;	/* pthread_t (<= 3.2; 3.3+: nt_thread_id) */
	uint16_t thread_tid;		/* 3.0-3.2 int tid (LWP) */
	uint16_t thread_name;		/* VALUE name */
	uint16_t thread_status_bit;	/* enum rb_thread_status status : 2 */
	uint8_t thread_status_width;
	uint32_t thread_runnable;	/* THREAD_RUNNABLE */
	uint32_t thread_stopped;	/* THREAD_STOPPED */
	uint32_t thread_stopped_forever; /* THREAD_STOPPED_FOREVER */
	uint32_t thread_killed;		/* THREAD_KILLED */
	uint16_t nt_thread_id;		/* 3.3+ rb_native_thread.thread_id */
	uint16_t nt_tid;		/* 3.3+ rb_native_thread.tid */

	/* ---- rb_execution_context_t -------------------------------------- */
	uint16_t ec_vm_stack;		/* VALUE * */
	uint16_t ec_vm_stack_size;	/* size_t, in VALUE words */
	uint16_t ec_cfp;		/* rb_control_frame_t *, current frame */
	uint16_t ec_thread_ptr;		/* rb_thread_t * */
	uint16_t ec_fiber_ptr;		/* rb_fiber_t * */

	/* ---- rb_control_frame_t ------------------------------------------ */
	uint16_t sizeof_control_frame;
	uint16_t cfp_pc;
	uint16_t cfp_sp;
	uint16_t cfp_iseq;
	uint16_t cfp_self;
	uint16_t cfp_ep;
	uint16_t cfp_block_code;
	uint16_t cfp_jit_return;	/* 3.1+ (YJIT return address) */

	/* ---- environment (ep[i], VALUE words; ep[FLAGS] frame magic) ----- */
	int8_t env_index_me_cref;	/* VM_ENV_DATA_INDEX_ME_CREF (-2) */
	int8_t env_index_specval;	/* VM_ENV_DATA_INDEX_SPECVAL (-1) */
	int8_t env_index_flags;		/* VM_ENV_DATA_INDEX_FLAGS (0) */
	uint32_t frame_magic_mask;	/* VM_FRAME_MAGIC_MASK */
	uint32_t frame_magic_method;	/* VM_FRAME_MAGIC_METHOD */
	uint32_t frame_magic_block;
	uint32_t frame_magic_class;
	uint32_t frame_magic_top;
	uint32_t frame_magic_cfunc;
	uint32_t frame_magic_ifunc;
	uint32_t frame_magic_eval;
	uint32_t frame_magic_rescue;
	uint32_t frame_magic_dummy;
	uint32_t frame_flag_cframe;	/* VM_FRAME_FLAG_CFRAME */
	uint32_t env_flag_local;	/* VM_ENV_FLAG_LOCAL */

	/* ---- rb_iseq_t and rb_iseq_constant_body ------------------------- */
	uint16_t iseq_body;		/* rb_iseq_t.body (pointer) */
	uint16_t body_type;		/* enum rb_iseq_type (int-sized) */
	uint16_t body_iseq_size;	/* unsigned int, in VALUE words */
	uint16_t body_iseq_encoded;	/* VALUE * */
	uint16_t body_pathobj;		/* location.pathobj: String or
					 * Array [path, realpath] */
	uint16_t body_base_label;	/* location.base_label (String) */
	uint16_t body_label;		/* location.label (String) */
	uint16_t body_first_lineno;	/* location.first_lineno */
	uint16_t body_insns_info_body;	/* insns_info.body (entries) */
	uint16_t body_insns_info_positions; /* freed once succinct is built */
	uint16_t body_insns_info_size;	/* unsigned int, entries */
	uint16_t body_insns_info_succ;	/* insns_info.succ_index_table */
	uint16_t body_local_iseq;
	uint16_t body_parent_iseq;
	uint16_t sizeof_insn_info_entry; /* struct iseq_insn_info_entry */
	uint16_t insn_info_line_no;	/* int line_no */
	uint32_t iseq_type_top;		/* ISEQ_TYPE_* */
	uint32_t iseq_type_method;
	uint32_t iseq_type_block;
	uint32_t iseq_type_class;
	uint32_t iseq_type_rescue;
	uint32_t iseq_type_ensure;
	uint32_t iseq_type_eval;
	uint32_t iseq_type_main;
	uint32_t iseq_type_plain;

	/* ---- struct succ_index_table (private to iseq.c) ----------------- *
	 * pos < succ_immediate_size: the rank is in imm_part, 9 positions per
	 * uint64_t, 7 bits each; otherwise block (pos - immediate) / 512 of
	 * succ_part, whose small_block_ranks hold 9-bit ranks of 64-bit
	 * words 1..7 of bits[8]. The entry index is rank - 1. */
	uint16_t succ_immediate_size;	/* IMMEDIATE_TABLE_SIZE (positions) */
	uint16_t succ_imm_part;		/* uint64_t imm_part[] */
	uint16_t succ_succ_part;	/* struct succ_dict_block succ_part[] */
	uint16_t sizeof_succ_dict_block;
	uint16_t succ_block_rank;	/* unsigned int rank */
	uint16_t succ_block_small_block_ranks; /* uint64_t */
	uint16_t succ_block_bits;	/* uint64_t bits[512 / 64] */

	/* ---- method entries and definitions ------------------------------ */
	uint16_t me_flags;		/* rb_method_entry_t (and callable) */
	uint16_t me_defined_class;
	uint16_t me_def;		/* rb_method_definition_t * */
	uint16_t me_called_id;
	uint16_t me_owner;
	uint16_t def_type_bit;		/* rb_method_type_t type : 4 */
	uint8_t def_type_width;
	uint16_t def_original_id;
	uint16_t def_iseq_iseqptr;	/* body.iseq.iseqptr */
	uint16_t def_cfunc_func;	/* body.cfunc.func */
	uint16_t def_bmethod_proc;	/* body.bmethod.proc */
	uint16_t def_alias_original_me;	/* body.alias.original_me */
	uint32_t method_type_iseq;	/* VM_METHOD_TYPE_* */
	uint32_t method_type_cfunc;
	uint32_t method_type_attrset;
	uint32_t method_type_ivar;
	uint32_t method_type_bmethod;
	uint32_t method_type_zsuper;
	uint32_t method_type_alias;
	uint32_t method_type_undef;
	uint32_t method_type_optimized;
	uint32_t method_type_missing;
	uint32_t method_type_refined;

	/* ---- T_IMEMO ----------------------------------------------------- *
	 * imemo type = (flags >> imemo_type_shift) & imemo_type_mask */
	uint8_t imemo_type_shift;
	uint32_t imemo_type_mask;
	uint32_t imemo_env;
	uint32_t imemo_cref;
	uint32_t imemo_svar;
	uint32_t imemo_ment;
	uint32_t imemo_iseq;
	uint16_t svar_cref_or_me;	/* struct vm_svar.cref_or_me */
	uint16_t cref_klass;		/* rb_cref_t.klass_or_self (klass
					 * before 3.1) */
	uint16_t cref_next;

	/* ---- RBasic, types, special constants ---------------------------- */
	uint16_t rbasic_flags;
	uint16_t rbasic_klass;
	uint32_t t_mask;		/* RUBY_T_MASK */
	uint32_t t_object;
	uint32_t t_class;
	uint32_t t_module;
	uint32_t t_string;
	uint32_t t_array;
	uint32_t t_iclass;
	uint32_t t_imemo;
	uint32_t fl_ushift;		/* RUBY_FL_USHIFT */
	uint32_t fl_singleton;		/* RUBY_FL_SINGLETON */
	uint32_t qfalse;
	uint32_t qnil;
	uint32_t qtrue;
	uint32_t qundef;
	uint32_t fixnum_flag;		/* RUBY_FIXNUM_FLAG */
	uint32_t symbol_flag;		/* RUBY_SYMBOL_FLAG (static symbol) */
	uint32_t special_shift;		/* RUBY_SPECIAL_SHIFT: ID = sym >> it */
	uint32_t immediate_mask;	/* RUBY_IMMEDIATE_MASK */

	/* ---- RClass / rb_classext_t -------------------------------------- */
	uint16_t rclass_super;
	uint16_t rclass_ext;		/* classext pointer (<= 3.1 non-RVARGC),
					 * NONE when embedded */
	uint16_t sizeof_rclass;		/* embedded classext starts here */
	uint16_t classext_iv_tbl;	/* st_table * (<= 3.1) */
	uint16_t classext_classpath;	/* 3.3+ VALUE classpath */
	uint16_t classext_attached;	/* 3.2+ singleton attached_object */
	uint16_t classext_origin;	/* origin_ */
	uint16_t classext_includer;	/* includer (ICLASS of a module) */
	uint32_t id_attached;		/* id__attached__ (static ID) */

	/* ---- st_table (the class ivar table of <= 3.1) ------------------- */
	uint16_t st_num_entries;
	uint16_t st_entries;		/* st_table_entry * */
	uint16_t st_entries_start;
	uint16_t st_entries_bound;
	uint16_t sizeof_st_entry;
	uint16_t st_entry_hash;		/* deleted entries: hash == ~0 */
	uint16_t st_entry_key;
	uint16_t st_entry_record;

	/* ---- RString ----------------------------------------------------- */
	uint16_t rstring_len;		/* heap len (<= 3.1), len (3.2+) */
	uint16_t rstring_heap_ptr;
	uint16_t rstring_embed_ary;	/* embedded bytes */
	uint32_t rstring_noembed;	/* RSTRING_NOEMBED flag */
	uint32_t rstring_embed_len_mask; /* <= 3.1, else 0 */
	uint8_t rstring_embed_len_shift;

	/* ---- RArray ------------------------------------------------------ */
	uint16_t rarray_heap_len;
	uint16_t rarray_heap_ptr;
	uint16_t rarray_embed_ary;
	uint32_t rarray_embed_flag;	/* RARRAY_EMBED_FLAG */
	uint32_t rarray_embed_len_mask;
	uint8_t rarray_embed_len_shift;

	/* ---- symbols (ruby_global_symbols, hidden in Debian's builds) ---- *
	 * serial = id > tlast_op_id ? id >> id_scope_shift : id;
	 * page = ids[serial / id_entry_unit] (an Array of Arrays);
	 * str = page[(serial % id_entry_unit) * id_entry_size + id_entry_str] */
	uint16_t sizeof_symbols;	/* rb_symbols_t */
	uint16_t symbols_last_id;
	uint16_t symbols_str_sym;	/* st_table *, String -> Symbol */
	uint16_t symbols_ids;		/* VALUE: Array of pages */
	uint32_t id_entry_unit;		/* ID_ENTRY_UNIT */
	uint32_t id_entry_size;		/* ID_ENTRY_SIZE */
	uint32_t id_entry_str;		/* ID_ENTRY_STR */
	uint32_t tlast_op_id;		/* tLAST_OP_ID */
	uint32_t id_scope_shift;	/* ID_SCOPE_SHIFT */

	/* ---- GC ---------------------------------------------------------- */
	uint16_t objspace_mode_bit;	/* flags.mode : 2 */
	uint8_t objspace_mode_width;
	uint16_t objspace_during_gc_bit; /* flags.during_gc : 1 */
	uint16_t objspace_gc_count;	/* profile.count (size_t): GCs done */
	uint32_t gc_mode_none;
	uint32_t gc_mode_marking;
	uint32_t gc_mode_sweeping;
	uint32_t gc_mode_compacting;	/* 3.3+ */
	uint16_t sizeof_rvalue;		/* RVALUE, the base slot size */
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

/** The first numeric field where a and b differ, NULL if none does. */
const struct ruby_layout_field *ruby_layout_diff(const struct ruby_layout *a,
						 const struct ruby_layout *b);

#endif /* RBFLAME_RUBY_LAYOUT_H */
