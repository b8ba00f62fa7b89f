/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The members of struct ruby_layout, in order, one RBL_FIELD() each: the
 * one list that the struct (ruby_layout.h), its table of named fields
 * (src/ruby/layout.c, what 'rbflame dump --layout' prints), its DWARF
 * rules (src/ruby/dwarf.c) and the layout generator
 * (scripts/ruby-layout/generate, through cc -E) are made from. A new
 * member is one line here, plus its answer in a probe
 * (scripts/ruby-layout/probe-*.c, by the member's name); see
 * doc/HACKING.md, "A new Ruby version".
 *
 *	RBL_FIELD(TYPE, NAME, WHEN, HOW, CTYPE, CMEMBER)
 *
 * TYPE NAME is the member: uint16_t for offsets and sizes (absent:
 * RUBY_LAYOUT_NONE), uint32_t for values (absent: RUBY_LAYOUT_NOVAL),
 * uint8_t or int8_t for flags, widths and small numbers (absent: 0). The
 * rest is how a layout is read from DWARF; every member has a rule, or
 * says NONE (tests/unit/check_ruby_dwarf.c checks):
 *
 *   HOW    OFF    byte offset of CMEMBER (a path: "threads.set") in CTYPE
 *          SIZE   sizeof(CTYPE)
 *          BITS   bitfield CMEMBER of CTYPE: its bit position; its width
 *                 goes to the WIDTH member that follows, if there is one
 *          ENUM   the enumerator or constant named CMEMBER
 *          WIDTH  set by the BITS member before it (NAME_bit, NAME_width)
 *          CODE   computed by code_NAME() in src/ruby/dwarf.c: the
 *                 feature flags, and the preprocessor macros that DWARF
 *                 does not record
 *          ARG    given to ruby_dwarf_layout() (version, origin)
 *          NONE   no DWARF rule: absent in a DWARF layout
 *   WHEN   ANY (required), OPT (absent when not found), or the shape the
 *          rule applies to (RACTOR, NT, SUCC, ...: enum ruby_dwarf_when
 *          in ruby_dwarf.h); outside it the member stays absent. Rules
 *          run in this order: a feature flag comes before the rules
 *          whose WHEN tests it.
 *   CTYPE, CMEMBER
 *          C names as the probes spell them, "a|b" with the spellings
 *          of other versions, tried in order; NULL when HOW takes none
 *
 * No include guard: the includer defines RBL_FIELD() and includes this
 * file, which undefines it.
 */
#ifndef RBL_FIELD
#error "define RBL_FIELD(type, name, when, how, ctype, cmember) first"
#endif

/* ---- identity ---------------------------------------------------------- */
/* RUBY_VERSION, "3.1.2" */
RBL_FIELD(const char *, version, ANY, ARG, NULL, NULL)
/* "ruby3.1 3.1.2-7+deb12u1" */
RBL_FIELD(const char *, source, ANY, ARG, NULL, NULL)
/* RUBY_API_VERSION_MAJOR */
RBL_FIELD(uint8_t, api_major, ANY, ARG, NULL, NULL)
/* RUBY_API_VERSION_MINOR */
RBL_FIELD(uint8_t, api_minor, ANY, ARG, NULL, NULL)

/* ---- feature flags (the enums of ruby_layout.h) ------------------------ */
/* enum ruby_layout_threads */
RBL_FIELD(uint8_t, threads, ANY, CODE, NULL, NULL)
/* enum ruby_layout_tid */
RBL_FIELD(uint8_t, tid, ANY, CODE, NULL, NULL)
/* enum ruby_layout_string */
RBL_FIELD(uint8_t, string, ANY, CODE, NULL, NULL)
/* enum ruby_layout_lines */
RBL_FIELD(uint8_t, lines, ANY, CODE, NULL, NULL)
/* enum ruby_layout_classpath */
RBL_FIELD(uint8_t, classpath, ANY, CODE, NULL, NULL)
/* enum ruby_layout_attached */
RBL_FIELD(uint8_t, attached, ANY, CODE, NULL, NULL)
/* location.first_lineno: 1 VALUE, 0 int */
RBL_FIELD(uint8_t, first_lineno_fixnum, ANY, CODE, NULL, NULL)
/* built with YJIT (cfp_jit_return used) */
RBL_FIELD(uint8_t, yjit, ANY, CODE, NULL, NULL)

/* ---- rb_vm_t (ruby_current_vm_ptr) ------------------------------------- */
/* list of ractors */
RBL_FIELD(uint16_t, vm_ractor_set, RACTOR, OFF, "rb_vm_t", "ractor.set")
RBL_FIELD(uint16_t, vm_ractor_cnt, RACTOR, OFF, "rb_vm_t", "ractor.cnt")
RBL_FIELD(uint16_t, vm_main_ractor, RACTOR, OFF, "rb_vm_t",
	  "ractor.main_ractor")
/* 2.7 main_thread */
RBL_FIELD(uint16_t, vm_main_thread, ANY, OFF, "rb_vm_t",
	  "ractor.main_thread|main_thread")
/* 2.7: a ccan list head */
RBL_FIELD(uint16_t, vm_living_threads, VMLIST, OFF, "rb_vm_t", "living_threads")
RBL_FIELD(uint16_t, vm_living_thread_num, VMLIST, OFF, "rb_vm_t",
	  "living_thread_num")
RBL_FIELD(uint16_t, vm_running_thread, VMLIST, OFF, "rb_vm_t", "running_thread")
/* rb_thread_t * */
RBL_FIELD(uint16_t, vm_gvl_owner, VMLIST, OFF, "rb_vm_t", "gvl.owner")
/* 3.4: gc.objspace */
RBL_FIELD(uint16_t, vm_objspace, ANY, OFF, "rb_vm_t", "gc.objspace|objspace")

/* ---- rb_ractor_t (3.0+) ------------------------------------------------ */
/* ccan list head */
RBL_FIELD(uint16_t, ractor_threads_set, RACTOR, OFF, "rb_ractor_t",
	  "threads.set")
/* unsigned int */
RBL_FIELD(uint16_t, ractor_threads_cnt, RACTOR, OFF, "rb_ractor_t",
	  "threads.cnt")
/* the GVL holder */
RBL_FIELD(uint16_t, ractor_running_ec, RACTOR, OFF, "rb_ractor_t",
	  "threads.running_ec")
RBL_FIELD(uint16_t, ractor_main_thread, RACTOR, OFF, "rb_ractor_t",
	  "threads.main")
/* 3.0-3.2 threads.gvl.owner, 3.3+ threads.sched.running (rb_thread_t *) */
RBL_FIELD(uint16_t, ractor_gvl_owner, RACTOR, OFF, "rb_ractor_t",
	  "threads.sched.running|threads.gvl.owner")
/* in vm_ractor_set */
RBL_FIELD(uint16_t, ractor_vmlr_node, RACTOR, OFF, "rb_ractor_t", "vmlr_node")

/* ---- ccan list (struct list_node, 3.2+ struct ccan_list_node) ---------- */
RBL_FIELD(uint16_t, list_node_next, ANY, OFF,
	  "struct ccan_list_node|struct list_node", "next")
RBL_FIELD(uint16_t, list_node_prev, ANY, OFF,
	  "struct ccan_list_node|struct list_node", "prev")

/* ---- rb_thread_t ------------------------------------------------------- */
/* node in the thread list */
RBL_FIELD(uint16_t, thread_lt_node, ANY, OFF, "rb_thread_t",
	  "lt_node|vmlt_node")
RBL_FIELD(uint16_t, thread_self, ANY, OFF, "rb_thread_t", "self")
RBL_FIELD(uint16_t, thread_ractor, RACTOR, OFF, "rb_thread_t", "ractor")
RBL_FIELD(uint16_t, thread_vm, ANY, OFF, "rb_thread_t", "vm")
/* rb_execution_context_t * */
RBL_FIELD(uint16_t, thread_ec, ANY, OFF, "rb_thread_t", "ec")
/* 3.3+ struct rb_native_thread * */
RBL_FIELD(uint16_t, thread_nt, NT, OFF, "rb_thread_t", "nt")
/* pthread_t (<= 3.2; 3.3+: nt_thread_id) */
RBL_FIELD(uint16_t, thread_thread_id, NOT_NT, OFF, "rb_thread_t", "thread_id")
/* 3.0-3.2 int tid (LWP) */
RBL_FIELD(uint16_t, thread_tid, TID_THREAD, OFF, "rb_thread_t", "tid")
/* VALUE */
RBL_FIELD(uint16_t, thread_name, ANY, OFF, "rb_thread_t", "name")
/* enum rb_thread_status status : 2 */
RBL_FIELD(uint16_t, thread_status_bit, ANY, BITS, "rb_thread_t", "status")
RBL_FIELD(uint8_t, thread_status_width, ANY, WIDTH, NULL, NULL)
RBL_FIELD(uint32_t, thread_runnable, ANY, ENUM, NULL, "THREAD_RUNNABLE")
RBL_FIELD(uint32_t, thread_stopped, ANY, ENUM, NULL, "THREAD_STOPPED")
RBL_FIELD(uint32_t, thread_stopped_forever, ANY, ENUM, NULL,
	  "THREAD_STOPPED_FOREVER")
RBL_FIELD(uint32_t, thread_killed, ANY, ENUM, NULL, "THREAD_KILLED")
/* 3.3+ */
RBL_FIELD(uint16_t, nt_thread_id, NT, OFF, "struct rb_native_thread",
	  "thread_id")
/* 3.3+ */
RBL_FIELD(uint16_t, nt_tid, NT, OFF, "struct rb_native_thread", "tid")

/* ---- rb_execution_context_t -------------------------------------------- */
/* VALUE * */
RBL_FIELD(uint16_t, ec_vm_stack, ANY, OFF, "rb_execution_context_t", "vm_stack")
/* size_t, in VALUE words */
RBL_FIELD(uint16_t, ec_vm_stack_size, ANY, OFF, "rb_execution_context_t",
	  "vm_stack_size")
/* rb_control_frame_t *, current frame */
RBL_FIELD(uint16_t, ec_cfp, ANY, OFF, "rb_execution_context_t", "cfp")
/* rb_thread_t * */
RBL_FIELD(uint16_t, ec_thread_ptr, ANY, OFF, "rb_execution_context_t",
	  "thread_ptr")
/* rb_fiber_t * */
RBL_FIELD(uint16_t, ec_fiber_ptr, ANY, OFF, "rb_execution_context_t",
	  "fiber_ptr")

/* ---- rb_control_frame_t ------------------------------------------------ */
RBL_FIELD(uint16_t, sizeof_control_frame, ANY, SIZE, "rb_control_frame_t", NULL)
RBL_FIELD(uint16_t, cfp_pc, ANY, OFF, "rb_control_frame_t", "pc")
RBL_FIELD(uint16_t, cfp_sp, ANY, OFF, "rb_control_frame_t", "sp")
RBL_FIELD(uint16_t, cfp_iseq, ANY, OFF, "rb_control_frame_t", "iseq")
RBL_FIELD(uint16_t, cfp_self, ANY, OFF, "rb_control_frame_t", "self")
RBL_FIELD(uint16_t, cfp_ep, ANY, OFF, "rb_control_frame_t", "ep")
RBL_FIELD(uint16_t, cfp_block_code, ANY, OFF, "rb_control_frame_t",
	  "block_code")
/* 3.1+ (YJIT return address) */
RBL_FIELD(uint16_t, cfp_jit_return, OPT, OFF, "rb_control_frame_t",
	  "jit_return")

/* ---- environment (ep[i], VALUE words; ep[FLAGS] frame magic) ----------- */
/* VM_ENV_DATA_INDEX_ME_CREF (-2) */
RBL_FIELD(int8_t, env_index_me_cref, ANY, CODE, NULL, NULL)
/* VM_ENV_DATA_INDEX_SPECVAL (-1) */
RBL_FIELD(int8_t, env_index_specval, ANY, CODE, NULL, NULL)
/* VM_ENV_DATA_INDEX_FLAGS (0) */
RBL_FIELD(int8_t, env_index_flags, ANY, CODE, NULL, NULL)
RBL_FIELD(uint32_t, frame_magic_mask, ANY, ENUM, NULL, "VM_FRAME_MAGIC_MASK")
RBL_FIELD(uint32_t, frame_magic_method, ANY, ENUM, NULL,
	  "VM_FRAME_MAGIC_METHOD")
RBL_FIELD(uint32_t, frame_magic_block, ANY, ENUM, NULL, "VM_FRAME_MAGIC_BLOCK")
RBL_FIELD(uint32_t, frame_magic_class, ANY, ENUM, NULL, "VM_FRAME_MAGIC_CLASS")
RBL_FIELD(uint32_t, frame_magic_top, ANY, ENUM, NULL, "VM_FRAME_MAGIC_TOP")
RBL_FIELD(uint32_t, frame_magic_cfunc, ANY, ENUM, NULL, "VM_FRAME_MAGIC_CFUNC")
RBL_FIELD(uint32_t, frame_magic_ifunc, ANY, ENUM, NULL, "VM_FRAME_MAGIC_IFUNC")
RBL_FIELD(uint32_t, frame_magic_eval, ANY, ENUM, NULL, "VM_FRAME_MAGIC_EVAL")
RBL_FIELD(uint32_t, frame_magic_rescue, ANY, ENUM, NULL,
	  "VM_FRAME_MAGIC_RESCUE")
RBL_FIELD(uint32_t, frame_magic_dummy, ANY, ENUM, NULL, "VM_FRAME_MAGIC_DUMMY")
RBL_FIELD(uint32_t, frame_flag_cframe, ANY, ENUM, NULL, "VM_FRAME_FLAG_CFRAME")
RBL_FIELD(uint32_t, env_flag_local, ANY, ENUM, NULL, "VM_ENV_FLAG_LOCAL")

/* ---- rb_iseq_t and rb_iseq_constant_body ------------------------------- */
/* a pointer */
RBL_FIELD(uint16_t, iseq_body, ANY, OFF, "rb_iseq_t", "body")
/* enum rb_iseq_type (int-sized) */
RBL_FIELD(uint16_t, body_type, ANY, OFF, "struct rb_iseq_constant_body", "type")
/* unsigned int, in VALUE words */
RBL_FIELD(uint16_t, body_iseq_size, ANY, OFF, "struct rb_iseq_constant_body",
	  "iseq_size")
/* VALUE * */
RBL_FIELD(uint16_t, body_iseq_encoded, ANY, OFF, "struct rb_iseq_constant_body",
	  "iseq_encoded")
/* a String, or an Array [path, realpath] */
RBL_FIELD(uint16_t, body_pathobj, ANY, OFF, "struct rb_iseq_constant_body",
	  "location.pathobj")
/* a String */
RBL_FIELD(uint16_t, body_base_label, ANY, OFF, "struct rb_iseq_constant_body",
	  "location.base_label")
/* a String */
RBL_FIELD(uint16_t, body_label, ANY, OFF, "struct rb_iseq_constant_body",
	  "location.label")
RBL_FIELD(uint16_t, body_first_lineno, ANY, OFF, "struct rb_iseq_constant_body",
	  "location.first_lineno")
/* the entries */
RBL_FIELD(uint16_t, body_insns_info_body, ANY, OFF,
	  "struct rb_iseq_constant_body", "insns_info.body")
/* freed once succinct is built */
RBL_FIELD(uint16_t, body_insns_info_positions, ANY, OFF,
	  "struct rb_iseq_constant_body", "insns_info.positions")
/* unsigned int, entries */
RBL_FIELD(uint16_t, body_insns_info_size, ANY, OFF,
	  "struct rb_iseq_constant_body", "insns_info.size")
RBL_FIELD(uint16_t, body_insns_info_succ, SUCC, OFF,
	  "struct rb_iseq_constant_body", "insns_info.succ_index_table")
RBL_FIELD(uint16_t, body_local_iseq, ANY, OFF, "struct rb_iseq_constant_body",
	  "local_iseq")
RBL_FIELD(uint16_t, body_parent_iseq, ANY, OFF, "struct rb_iseq_constant_body",
	  "parent_iseq")
/* const ID *, the names of the locals (dump --locals) */
RBL_FIELD(uint16_t, body_local_table, OPT, OFF, "struct rb_iseq_constant_body",
	  "local_table")
/* unsigned int */
RBL_FIELD(uint16_t, body_local_table_size, OPT, OFF,
	  "struct rb_iseq_constant_body", "local_table_size")
RBL_FIELD(uint16_t, sizeof_insn_info_entry, ANY, SIZE,
	  "struct iseq_insn_info_entry", NULL)
/* int */
RBL_FIELD(uint16_t, insn_info_line_no, ANY, OFF, "struct iseq_insn_info_entry",
	  "line_no")
RBL_FIELD(uint32_t, iseq_type_top, ANY, ENUM, NULL, "ISEQ_TYPE_TOP")
RBL_FIELD(uint32_t, iseq_type_method, ANY, ENUM, NULL, "ISEQ_TYPE_METHOD")
RBL_FIELD(uint32_t, iseq_type_block, ANY, ENUM, NULL, "ISEQ_TYPE_BLOCK")
RBL_FIELD(uint32_t, iseq_type_class, ANY, ENUM, NULL, "ISEQ_TYPE_CLASS")
RBL_FIELD(uint32_t, iseq_type_rescue, ANY, ENUM, NULL, "ISEQ_TYPE_RESCUE")
RBL_FIELD(uint32_t, iseq_type_ensure, ANY, ENUM, NULL, "ISEQ_TYPE_ENSURE")
RBL_FIELD(uint32_t, iseq_type_eval, ANY, ENUM, NULL, "ISEQ_TYPE_EVAL")
RBL_FIELD(uint32_t, iseq_type_main, ANY, ENUM, NULL, "ISEQ_TYPE_MAIN")
RBL_FIELD(uint32_t, iseq_type_plain, ANY, ENUM, NULL, "ISEQ_TYPE_PLAIN")

/* ---- struct succ_index_table (private to iseq.c) ----------------------- *
 * pos < succ_immediate_size: the rank is in imm_part, 9 positions per
 * uint64_t, 7 bits each; otherwise block (pos - immediate) / 512 of
 * succ_part, whose small_block_ranks hold 9-bit ranks of 64-bit words
 * 1..7 of bits[8]. The entry index is rank - 1. */
/* IMMEDIATE_TABLE_SIZE (positions) */
RBL_FIELD(uint16_t, succ_immediate_size, SUCC, CODE, NULL, NULL)
/* uint64_t imm_part[] */
RBL_FIELD(uint16_t, succ_imm_part, SUCC, OFF, "struct succ_index_table",
	  "imm_part")
/* struct succ_dict_block succ_part[] */
RBL_FIELD(uint16_t, succ_succ_part, SUCC, OFF, "struct succ_index_table",
	  "succ_part")
RBL_FIELD(uint16_t, sizeof_succ_dict_block, SUCC, SIZE,
	  "struct succ_dict_block", NULL)
/* unsigned int */
RBL_FIELD(uint16_t, succ_block_rank, SUCC, OFF, "struct succ_dict_block",
	  "rank")
/* uint64_t */
RBL_FIELD(uint16_t, succ_block_small_block_ranks, SUCC, OFF,
	  "struct succ_dict_block", "small_block_ranks")
/* uint64_t bits[512 / 64] */
RBL_FIELD(uint16_t, succ_block_bits, SUCC, OFF, "struct succ_dict_block",
	  "bits")

/* ---- method entries and definitions ------------------------------------ */
/* rb_method_entry_t (and callable) */
RBL_FIELD(uint16_t, me_flags, ANY, OFF, "rb_method_entry_t", "flags")
RBL_FIELD(uint16_t, me_defined_class, ANY, OFF, "rb_method_entry_t",
	  "defined_class")
/* rb_method_definition_t * */
RBL_FIELD(uint16_t, me_def, ANY, OFF, "rb_method_entry_t", "def")
RBL_FIELD(uint16_t, me_called_id, ANY, OFF, "rb_method_entry_t", "called_id")
RBL_FIELD(uint16_t, me_owner, ANY, OFF, "rb_method_entry_t", "owner")
/* rb_method_type_t type : 4 */
RBL_FIELD(uint16_t, def_type_bit, ANY, BITS, "rb_method_definition_t", "type")
RBL_FIELD(uint8_t, def_type_width, ANY, WIDTH, NULL, NULL)
RBL_FIELD(uint16_t, def_original_id, ANY, OFF, "rb_method_definition_t",
	  "original_id")
RBL_FIELD(uint16_t, def_iseq_iseqptr, ANY, OFF, "rb_method_definition_t",
	  "body.iseq.iseqptr")
RBL_FIELD(uint16_t, def_cfunc_func, ANY, OFF, "rb_method_definition_t",
	  "body.cfunc.func")
RBL_FIELD(uint16_t, def_bmethod_proc, ANY, OFF, "rb_method_definition_t",
	  "body.bmethod.proc")
RBL_FIELD(uint16_t, def_alias_original_me, ANY, OFF, "rb_method_definition_t",
	  "body.alias.original_me")
RBL_FIELD(uint32_t, method_type_iseq, ANY, ENUM, NULL, "VM_METHOD_TYPE_ISEQ")
RBL_FIELD(uint32_t, method_type_cfunc, ANY, ENUM, NULL, "VM_METHOD_TYPE_CFUNC")
RBL_FIELD(uint32_t, method_type_attrset, ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_ATTRSET")
RBL_FIELD(uint32_t, method_type_ivar, ANY, ENUM, NULL, "VM_METHOD_TYPE_IVAR")
RBL_FIELD(uint32_t, method_type_bmethod, ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_BMETHOD")
RBL_FIELD(uint32_t, method_type_zsuper, ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_ZSUPER")
RBL_FIELD(uint32_t, method_type_alias, ANY, ENUM, NULL, "VM_METHOD_TYPE_ALIAS")
RBL_FIELD(uint32_t, method_type_undef, ANY, ENUM, NULL, "VM_METHOD_TYPE_UNDEF")
RBL_FIELD(uint32_t, method_type_optimized, ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_OPTIMIZED")
RBL_FIELD(uint32_t, method_type_missing, ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_MISSING")
RBL_FIELD(uint32_t, method_type_refined, ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_REFINED")

/* ---- T_IMEMO ----------------------------------------------------------- *
 * imemo type = (flags >> imemo_type_shift) & imemo_type_mask */
RBL_FIELD(uint8_t, imemo_type_shift, ANY, ENUM, NULL, "RUBY_FL_USHIFT")
/* IMEMO_MASK */
RBL_FIELD(uint32_t, imemo_type_mask, ANY, CODE, NULL, NULL)
RBL_FIELD(uint32_t, imemo_env, ANY, ENUM, NULL, "imemo_env")
RBL_FIELD(uint32_t, imemo_cref, ANY, ENUM, NULL, "imemo_cref")
RBL_FIELD(uint32_t, imemo_svar, ANY, ENUM, NULL, "imemo_svar")
RBL_FIELD(uint32_t, imemo_ment, ANY, ENUM, NULL, "imemo_ment")
RBL_FIELD(uint32_t, imemo_iseq, ANY, ENUM, NULL, "imemo_iseq")
RBL_FIELD(uint16_t, svar_cref_or_me, ANY, OFF, "struct vm_svar", "cref_or_me")
/* klass before 3.1 */
RBL_FIELD(uint16_t, cref_klass, ANY, OFF, "rb_cref_t", "klass_or_self|klass")
RBL_FIELD(uint16_t, cref_next, ANY, OFF, "rb_cref_t", "next")

/* ---- RBasic, types, special constants ---------------------------------- */
RBL_FIELD(uint16_t, rbasic_flags, ANY, OFF, "struct RBasic", "flags")
/* flags & fl_promoted == fl_promoted: an old object (the age bits <= 3.2,
 * set with age 3 since) */
RBL_FIELD(uint32_t, fl_promoted, OPT, ENUM, NULL, "RUBY_FL_PROMOTED")
RBL_FIELD(uint16_t, rbasic_klass, ANY, OFF, "struct RBasic", "klass")
RBL_FIELD(uint32_t, t_mask, ANY, ENUM, NULL, "RUBY_T_MASK")
RBL_FIELD(uint32_t, t_object, ANY, ENUM, NULL, "RUBY_T_OBJECT")
RBL_FIELD(uint32_t, t_class, ANY, ENUM, NULL, "RUBY_T_CLASS")
RBL_FIELD(uint32_t, t_module, ANY, ENUM, NULL, "RUBY_T_MODULE")
RBL_FIELD(uint32_t, t_string, ANY, ENUM, NULL, "RUBY_T_STRING")
RBL_FIELD(uint32_t, t_array, ANY, ENUM, NULL, "RUBY_T_ARRAY")
RBL_FIELD(uint32_t, t_iclass, ANY, ENUM, NULL, "RUBY_T_ICLASS")
RBL_FIELD(uint32_t, t_imemo, ANY, ENUM, NULL, "RUBY_T_IMEMO")
RBL_FIELD(uint32_t, fl_ushift, ANY, ENUM, NULL, "RUBY_FL_USHIFT")
RBL_FIELD(uint32_t, fl_singleton, ANY, ENUM, NULL, "RUBY_FL_SINGLETON")
RBL_FIELD(uint32_t, qfalse, ANY, ENUM, NULL, "RUBY_Qfalse")
RBL_FIELD(uint32_t, qnil, ANY, ENUM, NULL, "RUBY_Qnil")
RBL_FIELD(uint32_t, qtrue, ANY, ENUM, NULL, "RUBY_Qtrue")
RBL_FIELD(uint32_t, qundef, ANY, ENUM, NULL, "RUBY_Qundef")
RBL_FIELD(uint32_t, fixnum_flag, ANY, ENUM, NULL, "RUBY_FIXNUM_FLAG")
/* a static symbol */
RBL_FIELD(uint32_t, symbol_flag, ANY, ENUM, NULL, "RUBY_SYMBOL_FLAG")
/* ID = sym >> it */
RBL_FIELD(uint32_t, special_shift, ANY, ENUM, NULL, "RUBY_SPECIAL_SHIFT")
RBL_FIELD(uint32_t, immediate_mask, ANY, ENUM, NULL, "RUBY_IMMEDIATE_MASK")
/* the rendering of values (dump --locals): absent, a value is #<Class> */
RBL_FIELD(uint32_t, flonum_mask, OPT, ENUM, NULL, "RUBY_FLONUM_MASK")
RBL_FIELD(uint32_t, flonum_flag, OPT, ENUM, NULL, "RUBY_FLONUM_FLAG")
RBL_FIELD(uint32_t, t_float, OPT, ENUM, NULL, "RUBY_T_FLOAT")
RBL_FIELD(uint32_t, t_hash, OPT, ENUM, NULL, "RUBY_T_HASH")
RBL_FIELD(uint32_t, t_bignum, OPT, ENUM, NULL, "RUBY_T_BIGNUM")
RBL_FIELD(uint32_t, t_symbol, OPT, ENUM, NULL, "RUBY_T_SYMBOL")
/* double */
RBL_FIELD(uint16_t, rfloat_value, OPT, OFF, "struct RFloat", "float_value")
/* a dynamic Symbol's name, a String */
RBL_FIELD(uint16_t, rsymbol_fstr, OPT, OFF, "struct RSymbol", "fstr")

/* ---- RClass / rb_classext_t -------------------------------------------- */
RBL_FIELD(uint16_t, rclass_super, ANY, OFF, "struct RClass", "super")
/* classext pointer (<= 3.1 non-RVARGC), NONE when embedded */
RBL_FIELD(uint16_t, rclass_ext, OPT, OFF, "struct RClass", "ptr")
/* embedded classext starts here */
RBL_FIELD(uint16_t, sizeof_rclass, ANY, SIZE, "struct RClass", NULL)
/* st_table * (<= 3.1) */
RBL_FIELD(uint16_t, classext_iv_tbl, ATT_IVAR, OFF, "rb_classext_t", "iv_tbl")
/* 3.3+ VALUE */
RBL_FIELD(uint16_t, classext_classpath, CP_EXT, OFF, "rb_classext_t",
	  "classpath")
/* 3.2+ */
RBL_FIELD(uint16_t, classext_attached, ATT_EXT, OFF, "rb_classext_t",
	  "as.singleton_class.attached_object")
RBL_FIELD(uint16_t, classext_origin, ANY, OFF, "rb_classext_t", "origin_")
/* ICLASS of a module */
RBL_FIELD(uint16_t, classext_includer, ANY, OFF, "rb_classext_t", "includer")
/* a static ID */
RBL_FIELD(uint32_t, id_attached, ATT_IVAR, ENUM, NULL, "id__attached__")

/* ---- st_table (the class ivar table of <= 3.1) ------------------------- */
RBL_FIELD(uint16_t, st_num_entries, ANY, OFF, "st_table", "num_entries")
/* st_table_entry * */
RBL_FIELD(uint16_t, st_entries, ANY, OFF, "st_table", "entries")
RBL_FIELD(uint16_t, st_entries_start, ANY, OFF, "st_table", "entries_start")
RBL_FIELD(uint16_t, st_entries_bound, ANY, OFF, "st_table", "entries_bound")
RBL_FIELD(uint16_t, sizeof_st_entry, ANY, SIZE, "struct st_table_entry", NULL)
/* deleted entries: hash == ~0 */
RBL_FIELD(uint16_t, st_entry_hash, ANY, OFF, "struct st_table_entry", "hash")
RBL_FIELD(uint16_t, st_entry_key, ANY, OFF, "struct st_table_entry", "key")
RBL_FIELD(uint16_t, st_entry_record, ANY, OFF, "struct st_table_entry",
	  "record")

/* ---- RString ----------------------------------------------------------- */
/* heap len (<= 3.1), len (3.2+) */
RBL_FIELD(uint16_t, rstring_len, ANY, OFF, "struct RString", "len|as.heap.len")
RBL_FIELD(uint16_t, rstring_heap_ptr, ANY, OFF, "struct RString", "as.heap.ptr")
/* embedded bytes */
RBL_FIELD(uint16_t, rstring_embed_ary, ANY, OFF, "struct RString",
	  "as.embed.ary|as.ary")
/* a flag */
RBL_FIELD(uint32_t, rstring_noembed, ANY, ENUM, NULL, "RSTRING_NOEMBED")
/* <= 3.1, else 0 */
RBL_FIELD(uint32_t, rstring_embed_len_mask, ANY, CODE, NULL, NULL)
RBL_FIELD(uint8_t, rstring_embed_len_shift, LEN_FLAGS, ENUM, NULL,
	  "RSTRING_EMBED_LEN_SHIFT")

/* ---- RArray ------------------------------------------------------------ */
RBL_FIELD(uint16_t, rarray_heap_len, ANY, OFF, "struct RArray", "as.heap.len")
RBL_FIELD(uint16_t, rarray_heap_ptr, ANY, OFF, "struct RArray", "as.heap.ptr")
RBL_FIELD(uint16_t, rarray_embed_ary, ANY, OFF, "struct RArray", "as.ary")
RBL_FIELD(uint32_t, rarray_embed_flag, ANY, ENUM, NULL, "RARRAY_EMBED_FLAG")
RBL_FIELD(uint32_t, rarray_embed_len_mask, ANY, ENUM, NULL,
	  "RARRAY_EMBED_LEN_MASK")
RBL_FIELD(uint8_t, rarray_embed_len_shift, ANY, ENUM, NULL,
	  "RARRAY_EMBED_LEN_SHIFT")

/* ---- RHash: its size (dump --locals) ---------------------------------- *
 * an ar table (flag clear): the size in the flags; an st table: its
 * num_entries, the table at rhash_st (<= 3.2) or embedded after the
 * RHash (3.3+, rhash_st absent) */
RBL_FIELD(uint32_t, rhash_st_flag, OPT, ENUM, NULL, "RHASH_ST_TABLE_FLAG")
RBL_FIELD(uint32_t, rhash_ar_size_mask, OPT, ENUM, NULL,
	  "RHASH_AR_TABLE_SIZE_MASK")
RBL_FIELD(uint8_t, rhash_ar_size_shift, OPT, ENUM, NULL,
	  "RHASH_AR_TABLE_SIZE_SHIFT")
/* st_table * (<= 3.2) */
RBL_FIELD(uint16_t, rhash_st, OPT, OFF, "struct RHash", "as.st")
RBL_FIELD(uint16_t, sizeof_rhash, OPT, SIZE, "struct RHash", NULL)

/* ---- symbols (ruby_global_symbols, hidden in Debian's builds) ---------- *
 * serial = id > tlast_op_id ? id >> id_scope_shift : id;
 * page = ids[serial / id_entry_unit] (an Array of Arrays);
 * str = page[(serial % id_entry_unit) * id_entry_size + id_entry_str] */
RBL_FIELD(uint16_t, sizeof_symbols, ANY, SIZE, "rb_symbols_t", NULL)
RBL_FIELD(uint16_t, symbols_last_id, ANY, OFF, "rb_symbols_t", "last_id")
/* st_table *, String -> Symbol */
RBL_FIELD(uint16_t, symbols_str_sym, ANY, OFF, "rb_symbols_t", "str_sym")
/* VALUE: Array of pages */
RBL_FIELD(uint16_t, symbols_ids, ANY, OFF, "rb_symbols_t", "ids")
/* ID_ENTRY_UNIT */
RBL_FIELD(uint32_t, id_entry_unit, ANY, CODE, NULL, NULL)
RBL_FIELD(uint32_t, id_entry_size, ANY, ENUM, NULL, "ID_ENTRY_SIZE")
RBL_FIELD(uint32_t, id_entry_str, ANY, ENUM, NULL, "ID_ENTRY_STR")
RBL_FIELD(uint32_t, tlast_op_id, ANY, ENUM, NULL, "tLAST_OP_ID")
RBL_FIELD(uint32_t, id_scope_shift, ANY, ENUM, NULL, "RUBY_ID_SCOPE_SHIFT")

/* ---- GC ---------------------------------------------------------------- */
/* 2 bits */
RBL_FIELD(uint16_t, objspace_mode_bit, ANY, BITS, "rb_objspace_t", "flags.mode")
RBL_FIELD(uint8_t, objspace_mode_width, ANY, WIDTH, NULL, NULL)
/* 1 bit */
RBL_FIELD(uint16_t, objspace_during_gc_bit, ANY, BITS, "rb_objspace_t",
	  "flags.during_gc")
/* 1 bit: a compaction under way (it moves objects while the GC sweeps up
 * to 3.1; a mode of its own since) */
RBL_FIELD(uint16_t, objspace_during_compacting_bit, OPT, BITS,
	  "rb_objspace_t", "flags.during_compacting")
/* size_t: GCs done */
RBL_FIELD(uint16_t, objspace_gc_count, ANY, OFF, "rb_objspace_t",
	  "profile.count")
/* size_t: major GCs started, the only ones that free or move an old
 * object */
RBL_FIELD(uint16_t, objspace_major_gc_count, OPT, OFF, "rb_objspace_t",
	  "profile.major_gc_count")
RBL_FIELD(uint32_t, gc_mode_none, ANY, ENUM, NULL, "gc_mode_none")
RBL_FIELD(uint32_t, gc_mode_marking, ANY, ENUM, NULL, "gc_mode_marking")
RBL_FIELD(uint32_t, gc_mode_sweeping, ANY, ENUM, NULL, "gc_mode_sweeping")
/* 3.3+ */
RBL_FIELD(uint32_t, gc_mode_compacting, OPT, ENUM, NULL, "gc_mode_compacting")
/* RVALUE, the base slot size */
RBL_FIELD(uint16_t, sizeof_rvalue, ANY, CODE, NULL, NULL)

#undef RBL_FIELD
