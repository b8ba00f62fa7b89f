/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Layout probe compiled inside vm.c: the VM, ractors, threads, execution
 * contexts, control frames, iseq bodies, method entries, classes, strings,
 * arrays and special constants. See probe.h for how the answers are read.
 */
#include "vm.c"
#include "probe.h"

RBL_BITS(thread_status, rb_thread_t, .status);
RBL_BITS(def_type, rb_method_definition_t, .type);

void rbl_probe_vm(void);

void
rbl_probe_vm(void)
{
	RBL_VAL(version_major, RUBY_VERSION_MAJOR);
	RBL_VAL(version_minor, RUBY_VERSION_MINOR);
	RBL_VAL(version_teeny, RUBY_VERSION_TEENY);
	RBL_VAL(api_major, RUBY_API_VERSION_MAJOR);
	RBL_VAL(api_minor, RUBY_API_VERSION_MINOR);

	/* ---- feature flags ---- */
#if RBL_API >= 300
	RBL_VAL(threads, 2);
#else
	RBL_VAL(threads, 1);
#endif
#if RBL_API >= 303
	RBL_VAL(tid, 3);
#elif defined(RB_THREAD_T_HAS_NATIVE_ID)
	RBL_VAL(tid, 2);
#else
	RBL_VAL(tid, 1);
#endif
#ifdef RSTRING_EMBED_LEN_MASK
	RBL_VAL(string, 1);
#else
	RBL_VAL(string, 2);
#endif
#if RBL_API >= 303
	RBL_VAL(classpath, 2);
#else
	RBL_VAL(classpath, 1);
#endif
#if RBL_API >= 302
	RBL_VAL(attached, 2);
#else
	RBL_VAL(attached, 1);
#endif
	RBL_VAL(first_lineno_fixnum,
		__builtin_types_compatible_p(
			__typeof__(((rb_iseq_location_t *)0)->first_lineno),
			VALUE));
#if defined(USE_YJIT)
	RBL_VAL(yjit, USE_YJIT);
#elif defined(YJIT_SUPPORTED_P)
	RBL_VAL(yjit, YJIT_SUPPORTED_P);
#else
	RBL_VAL(yjit, 0);
#endif

	/* ---- rb_vm_t ---- */
#if RBL_API >= 300
	RBL_OFF(vm_ractor_set, rb_vm_t, ractor.set);
	RBL_OFF(vm_ractor_cnt, rb_vm_t, ractor.cnt);
	RBL_OFF(vm_main_ractor, rb_vm_t, ractor.main_ractor);
	RBL_OFF(vm_main_thread, rb_vm_t, ractor.main_thread);
#else
	RBL_OFF(vm_main_thread, rb_vm_t, main_thread);
	RBL_OFF(vm_living_threads, rb_vm_t, living_threads);
	RBL_OFF(vm_living_thread_num, rb_vm_t, living_thread_num);
	RBL_OFF(vm_running_thread, rb_vm_t, running_thread);
	RBL_OFF(vm_gvl_owner, rb_vm_t, gvl.owner);
#endif
#if RBL_API >= 304
	RBL_OFF(vm_objspace, rb_vm_t, gc.objspace);
#else
	RBL_OFF(vm_objspace, rb_vm_t, objspace);
#endif

	/* ---- rb_ractor_t ---- */
#if RBL_API >= 300
	RBL_OFF(ractor_threads_set, rb_ractor_t, threads.set);
	RBL_OFF(ractor_threads_cnt, rb_ractor_t, threads.cnt);
	RBL_OFF(ractor_running_ec, rb_ractor_t, threads.running_ec);
	RBL_OFF(ractor_main_thread, rb_ractor_t, threads.main);
	RBL_OFF(ractor_vmlr_node, rb_ractor_t, vmlr_node);
# if RBL_API >= 303
	RBL_OFF(ractor_gvl_owner, rb_ractor_t, threads.sched.running);
# else
	RBL_OFF(ractor_gvl_owner, rb_ractor_t, threads.gvl.owner);
# endif
#endif

	/* ---- ccan list ---- */
#if RBL_API >= 302
	RBL_OFF(list_node_next, struct ccan_list_node, next);
	RBL_OFF(list_node_prev, struct ccan_list_node, prev);
#else
	RBL_OFF(list_node_next, struct list_node, next);
	RBL_OFF(list_node_prev, struct list_node, prev);
#endif

	/* ---- rb_thread_t ---- */
#if RBL_API >= 300
	RBL_OFF(thread_lt_node, rb_thread_t, lt_node);
	RBL_OFF(thread_ractor, rb_thread_t, ractor);
#else
	RBL_OFF(thread_lt_node, rb_thread_t, vmlt_node);
#endif
	RBL_OFF(thread_self, rb_thread_t, self);
	RBL_OFF(thread_vm, rb_thread_t, vm);
	RBL_OFF(thread_ec, rb_thread_t, ec);
	RBL_OFF(thread_name, rb_thread_t, name);
#if RBL_API >= 303
	RBL_OFF(thread_nt, rb_thread_t, nt);
	RBL_OFF(nt_thread_id, struct rb_native_thread, thread_id);
	RBL_OFF(nt_tid, struct rb_native_thread, tid);
#else
	RBL_OFF(thread_thread_id, rb_thread_t, thread_id);
# ifdef RB_THREAD_T_HAS_NATIVE_ID
	RBL_OFF(thread_tid, rb_thread_t, tid);
# endif
#endif
	RBL_VAL(thread_runnable, THREAD_RUNNABLE);
	RBL_VAL(thread_stopped, THREAD_STOPPED);
	RBL_VAL(thread_stopped_forever, THREAD_STOPPED_FOREVER);
	RBL_VAL(thread_killed, THREAD_KILLED);

	/* ---- rb_execution_context_t ---- */
	RBL_OFF(ec_vm_stack, rb_execution_context_t, vm_stack);
	RBL_OFF(ec_vm_stack_size, rb_execution_context_t, vm_stack_size);
	RBL_OFF(ec_cfp, rb_execution_context_t, cfp);
	RBL_OFF(ec_thread_ptr, rb_execution_context_t, thread_ptr);
	RBL_OFF(ec_fiber_ptr, rb_execution_context_t, fiber_ptr);

	/* ---- rb_control_frame_t ---- */
	RBL_SIZE(sizeof_control_frame, rb_control_frame_t);
	RBL_OFF(cfp_pc, rb_control_frame_t, pc);
	RBL_OFF(cfp_sp, rb_control_frame_t, sp);
	RBL_OFF(cfp_iseq, rb_control_frame_t, iseq);
	RBL_OFF(cfp_self, rb_control_frame_t, self);
	RBL_OFF(cfp_ep, rb_control_frame_t, ep);
	RBL_OFF(cfp_block_code, rb_control_frame_t, block_code);
#if RBL_API >= 301
	RBL_OFF(cfp_jit_return, rb_control_frame_t, jit_return);
#endif

	/* ---- environment and frame magic ---- */
	RBL_VAL(env_index_me_cref, VM_ENV_DATA_INDEX_ME_CREF);
	RBL_VAL(env_index_specval, VM_ENV_DATA_INDEX_SPECVAL);
	RBL_VAL(env_index_flags, VM_ENV_DATA_INDEX_FLAGS);
	RBL_VAL(frame_magic_mask, VM_FRAME_MAGIC_MASK);
	RBL_VAL(frame_magic_method, VM_FRAME_MAGIC_METHOD);
	RBL_VAL(frame_magic_block, VM_FRAME_MAGIC_BLOCK);
	RBL_VAL(frame_magic_class, VM_FRAME_MAGIC_CLASS);
	RBL_VAL(frame_magic_top, VM_FRAME_MAGIC_TOP);
	RBL_VAL(frame_magic_cfunc, VM_FRAME_MAGIC_CFUNC);
	RBL_VAL(frame_magic_ifunc, VM_FRAME_MAGIC_IFUNC);
	RBL_VAL(frame_magic_eval, VM_FRAME_MAGIC_EVAL);
	RBL_VAL(frame_magic_rescue, VM_FRAME_MAGIC_RESCUE);
	RBL_VAL(frame_magic_dummy, VM_FRAME_MAGIC_DUMMY);
	RBL_VAL(frame_flag_cframe, VM_FRAME_FLAG_CFRAME);
	RBL_VAL(env_flag_local, VM_ENV_FLAG_LOCAL);

	/* ---- iseq ---- */
	RBL_OFF(iseq_body, rb_iseq_t, body);
	RBL_OFF(body_type, struct rb_iseq_constant_body, type);
	RBL_OFF(body_iseq_size, struct rb_iseq_constant_body, iseq_size);
	RBL_OFF(body_iseq_encoded, struct rb_iseq_constant_body, iseq_encoded);
	RBL_OFF(body_pathobj, struct rb_iseq_constant_body, location.pathobj);
	RBL_OFF(body_base_label, struct rb_iseq_constant_body,
		location.base_label);
	RBL_OFF(body_label, struct rb_iseq_constant_body, location.label);
	RBL_OFF(body_first_lineno, struct rb_iseq_constant_body,
		location.first_lineno);
	RBL_OFF(body_insns_info_body, struct rb_iseq_constant_body,
		insns_info.body);
	RBL_OFF(body_insns_info_positions, struct rb_iseq_constant_body,
		insns_info.positions);
	RBL_OFF(body_insns_info_size, struct rb_iseq_constant_body,
		insns_info.size);
#if VM_INSN_INFO_TABLE_IMPL == 2
	RBL_OFF(body_insns_info_succ, struct rb_iseq_constant_body,
		insns_info.succ_index_table);
#endif
	RBL_OFF(body_local_iseq, struct rb_iseq_constant_body, local_iseq);
	RBL_OFF(body_parent_iseq, struct rb_iseq_constant_body, parent_iseq);
	RBL_OFF(body_local_table, struct rb_iseq_constant_body, local_table);
	RBL_OFF(body_local_table_size, struct rb_iseq_constant_body,
		local_table_size);
	RBL_SIZE(sizeof_insn_info_entry, struct iseq_insn_info_entry);
	RBL_OFF(insn_info_line_no, struct iseq_insn_info_entry, line_no);
	RBL_VAL(iseq_type_top, ISEQ_TYPE_TOP);
	RBL_VAL(iseq_type_method, ISEQ_TYPE_METHOD);
	RBL_VAL(iseq_type_block, ISEQ_TYPE_BLOCK);
	RBL_VAL(iseq_type_class, ISEQ_TYPE_CLASS);
	RBL_VAL(iseq_type_rescue, ISEQ_TYPE_RESCUE);
	RBL_VAL(iseq_type_ensure, ISEQ_TYPE_ENSURE);
	RBL_VAL(iseq_type_eval, ISEQ_TYPE_EVAL);
	RBL_VAL(iseq_type_main, ISEQ_TYPE_MAIN);
	RBL_VAL(iseq_type_plain, ISEQ_TYPE_PLAIN);

	/* ---- method entries ---- */
	RBL_OFF(me_flags, rb_method_entry_t, flags);
	RBL_OFF(me_defined_class, rb_method_entry_t, defined_class);
	RBL_OFF(me_def, rb_method_entry_t, def);
	RBL_OFF(me_called_id, rb_method_entry_t, called_id);
	RBL_OFF(me_owner, rb_method_entry_t, owner);
	RBL_OFF(def_original_id, rb_method_definition_t, original_id);
	RBL_OFF(def_iseq_iseqptr, rb_method_definition_t, body.iseq.iseqptr);
	RBL_OFF(def_cfunc_func, rb_method_definition_t, body.cfunc.func);
	RBL_OFF(def_bmethod_proc, rb_method_definition_t, body.bmethod.proc);
	RBL_OFF(def_alias_original_me, rb_method_definition_t,
		body.alias.original_me);
	RBL_VAL(method_type_iseq, VM_METHOD_TYPE_ISEQ);
	RBL_VAL(method_type_cfunc, VM_METHOD_TYPE_CFUNC);
	RBL_VAL(method_type_attrset, VM_METHOD_TYPE_ATTRSET);
	RBL_VAL(method_type_ivar, VM_METHOD_TYPE_IVAR);
	RBL_VAL(method_type_bmethod, VM_METHOD_TYPE_BMETHOD);
	RBL_VAL(method_type_zsuper, VM_METHOD_TYPE_ZSUPER);
	RBL_VAL(method_type_alias, VM_METHOD_TYPE_ALIAS);
	RBL_VAL(method_type_undef, VM_METHOD_TYPE_UNDEF);
	RBL_VAL(method_type_optimized, VM_METHOD_TYPE_OPTIMIZED);
	RBL_VAL(method_type_missing, VM_METHOD_TYPE_MISSING);
	RBL_VAL(method_type_refined, VM_METHOD_TYPE_REFINED);

	/* ---- imemo ---- */
	RBL_VAL(imemo_type_shift, RUBY_FL_USHIFT);
	RBL_VAL(imemo_type_mask, IMEMO_MASK);
	RBL_VAL(imemo_env, imemo_env);
	RBL_VAL(imemo_cref, imemo_cref);
	RBL_VAL(imemo_svar, imemo_svar);
	RBL_VAL(imemo_ment, imemo_ment);
	RBL_VAL(imemo_iseq, imemo_iseq);
	RBL_OFF(svar_cref_or_me, struct vm_svar, cref_or_me);
#if RBL_API >= 300
	RBL_OFF(cref_klass, rb_cref_t, klass_or_self);
#else
	RBL_OFF(cref_klass, rb_cref_t, klass);
#endif
	RBL_OFF(cref_next, rb_cref_t, next);

	/* ---- RBasic, types, special constants ---- */
	RBL_OFF(rbasic_flags, struct RBasic, flags);
	RBL_VAL(fl_promoted, RUBY_FL_PROMOTED);
	RBL_OFF(rbasic_klass, struct RBasic, klass);
	RBL_VAL(t_mask, RUBY_T_MASK);
	RBL_VAL(t_object, RUBY_T_OBJECT);
	RBL_VAL(t_class, RUBY_T_CLASS);
	RBL_VAL(t_module, RUBY_T_MODULE);
	RBL_VAL(t_string, RUBY_T_STRING);
	RBL_VAL(t_array, RUBY_T_ARRAY);
	RBL_VAL(t_iclass, RUBY_T_ICLASS);
	RBL_VAL(t_imemo, RUBY_T_IMEMO);
	RBL_VAL(fl_ushift, RUBY_FL_USHIFT);
	RBL_VAL(fl_singleton, RUBY_FL_SINGLETON);
	RBL_VAL(qfalse, RUBY_Qfalse);
	RBL_VAL(qnil, RUBY_Qnil);
	RBL_VAL(qtrue, RUBY_Qtrue);
	RBL_VAL(qundef, RUBY_Qundef);
	RBL_VAL(fixnum_flag, RUBY_FIXNUM_FLAG);
	RBL_VAL(symbol_flag, RUBY_SYMBOL_FLAG);
	RBL_VAL(special_shift, RUBY_SPECIAL_SHIFT);
	RBL_VAL(immediate_mask, RUBY_IMMEDIATE_MASK);
	RBL_VAL(flonum_mask, RUBY_FLONUM_MASK);
	RBL_VAL(flonum_flag, RUBY_FLONUM_FLAG);
	RBL_VAL(t_float, RUBY_T_FLOAT);
	RBL_VAL(t_hash, RUBY_T_HASH);
	RBL_VAL(t_bignum, RUBY_T_BIGNUM);
	RBL_VAL(t_symbol, RUBY_T_SYMBOL);
	RBL_OFF(rfloat_value, struct RFloat, float_value);

	/* ---- RClass / rb_classext_t ---- */
	RBL_OFF(rclass_super, struct RClass, super);
	RBL_SIZE(sizeof_rclass, struct RClass);
#if RBL_API < 303 && (!defined(USE_RVARGC) || !USE_RVARGC)
	RBL_OFF(rclass_ext, struct RClass, ptr);
#endif
#if RBL_API < 302
	RBL_OFF(classext_iv_tbl, rb_classext_t, iv_tbl);
	RBL_VAL(id_attached, id__attached__);
#endif
#if RBL_API >= 303
	RBL_OFF(classext_classpath, rb_classext_t, classpath);
#endif
#if RBL_API >= 302
	RBL_OFF(classext_attached, rb_classext_t,
		as.singleton_class.attached_object);
#endif
	RBL_OFF(classext_origin, rb_classext_t, origin_);
	RBL_OFF(classext_includer, rb_classext_t, includer);

	/* ---- st_table ---- */
	RBL_OFF(st_num_entries, st_table, num_entries);
	RBL_OFF(st_entries, st_table, entries);
	RBL_OFF(st_entries_start, st_table, entries_start);
	RBL_OFF(st_entries_bound, st_table, entries_bound);

	/* ---- RString ---- */
#ifdef RSTRING_EMBED_LEN_MASK
	RBL_OFF(rstring_len, struct RString, as.heap.len);
# if RBL_API >= 301
	RBL_OFF(rstring_embed_ary, struct RString, as.embed.ary);
# else
	RBL_OFF(rstring_embed_ary, struct RString, as.ary);
# endif
	RBL_VAL(rstring_embed_len_mask, RSTRING_EMBED_LEN_MASK);
	RBL_VAL(rstring_embed_len_shift, RSTRING_EMBED_LEN_SHIFT);
#else
	RBL_OFF(rstring_len, struct RString, len);
	RBL_OFF(rstring_embed_ary, struct RString, as.embed.ary);
	RBL_VAL(rstring_embed_len_mask, 0);
	RBL_VAL(rstring_embed_len_shift, 0);
#endif
	RBL_OFF(rstring_heap_ptr, struct RString, as.heap.ptr);
	RBL_VAL(rstring_noembed, RSTRING_NOEMBED);

	/* ---- RArray ---- */
	RBL_OFF(rarray_heap_len, struct RArray, as.heap.len);
	RBL_OFF(rarray_heap_ptr, struct RArray, as.heap.ptr);
	RBL_OFF(rarray_embed_ary, struct RArray, as.ary);
	RBL_VAL(rarray_embed_flag, RARRAY_EMBED_FLAG);
	RBL_VAL(rarray_embed_len_mask, RARRAY_EMBED_LEN_MASK);
	RBL_VAL(rarray_embed_len_shift, RARRAY_EMBED_LEN_SHIFT);

	/* ---- RHash ---- */
	RBL_VAL(rhash_st_flag, RHASH_ST_TABLE_FLAG);
	RBL_VAL(rhash_ar_size_mask, RHASH_AR_TABLE_SIZE_MASK);
	RBL_VAL(rhash_ar_size_shift, RHASH_AR_TABLE_SIZE_SHIFT);
#if RBL_API < 303
	RBL_OFF(rhash_st, struct RHash, as.st);
#endif
	RBL_SIZE(sizeof_rhash, struct RHash);
}
