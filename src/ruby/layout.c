// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * struct ruby_layout as a list of named fields: what lets two layouts be
 * compared (a DWARF layout against the generated one) and printed field
 * by field ('rbflame dump --layout'). The names are the members' own, so
 * that a test can diff two printouts. tests/unit/check_ruby_dwarf.c checks
 * that the list holds every member of the header, in order.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rbflame/ruby_layout.h"

#define FIELD_TYPE(m)                                                        \
	_Generic(((struct ruby_layout *)0)->m,                               \
		const char *: RUBY_FIELD_STR,                                \
		uint8_t: RUBY_FIELD_U8,                                      \
		int8_t: RUBY_FIELD_I8,                                       \
		uint16_t: RUBY_FIELD_U16,                                    \
		uint32_t: RUBY_FIELD_U32)
#define F(m) { #m, offsetof(struct ruby_layout, m), FIELD_TYPE(m) }

const struct ruby_layout_field ruby_layout_fields[] = {
	F(version),
	F(source),
	F(api_major),
	F(api_minor),
	F(threads),
	F(tid),
	F(string),
	F(lines),
	F(classpath),
	F(attached),
	F(first_lineno_fixnum),
	F(yjit),
	F(vm_ractor_set),
	F(vm_ractor_cnt),
	F(vm_main_ractor),
	F(vm_main_thread),
	F(vm_living_threads),
	F(vm_living_thread_num),
	F(vm_running_thread),
	F(vm_gvl_owner),
	F(vm_objspace),
	F(ractor_threads_set),
	F(ractor_threads_cnt),
	F(ractor_running_ec),
	F(ractor_main_thread),
	F(ractor_gvl_owner),
	F(ractor_vmlr_node),
	F(list_node_next),
	F(list_node_prev),
	F(thread_lt_node),
	F(thread_self),
	F(thread_ractor),
	F(thread_vm),
	F(thread_ec),
	F(thread_nt),
	F(thread_thread_id),
	F(thread_tid),
	F(thread_name),
	F(thread_status_bit),
	F(thread_status_width),
	F(thread_runnable),
	F(thread_stopped),
	F(thread_stopped_forever),
	F(thread_killed),
	F(nt_thread_id),
	F(nt_tid),
	F(ec_vm_stack),
	F(ec_vm_stack_size),
	F(ec_cfp),
	F(ec_thread_ptr),
	F(ec_fiber_ptr),
	F(sizeof_control_frame),
	F(cfp_pc),
	F(cfp_sp),
	F(cfp_iseq),
	F(cfp_self),
	F(cfp_ep),
	F(cfp_block_code),
	F(cfp_jit_return),
	F(env_index_me_cref),
	F(env_index_specval),
	F(env_index_flags),
	F(frame_magic_mask),
	F(frame_magic_method),
	F(frame_magic_block),
	F(frame_magic_class),
	F(frame_magic_top),
	F(frame_magic_cfunc),
	F(frame_magic_ifunc),
	F(frame_magic_eval),
	F(frame_magic_rescue),
	F(frame_magic_dummy),
	F(frame_flag_cframe),
	F(env_flag_local),
	F(iseq_body),
	F(body_type),
	F(body_iseq_size),
	F(body_iseq_encoded),
	F(body_pathobj),
	F(body_base_label),
	F(body_label),
	F(body_first_lineno),
	F(body_insns_info_body),
	F(body_insns_info_positions),
	F(body_insns_info_size),
	F(body_insns_info_succ),
	F(body_local_iseq),
	F(body_parent_iseq),
	F(sizeof_insn_info_entry),
	F(insn_info_line_no),
	F(iseq_type_top),
	F(iseq_type_method),
	F(iseq_type_block),
	F(iseq_type_class),
	F(iseq_type_rescue),
	F(iseq_type_ensure),
	F(iseq_type_eval),
	F(iseq_type_main),
	F(iseq_type_plain),
	F(succ_immediate_size),
	F(succ_imm_part),
	F(succ_succ_part),
	F(sizeof_succ_dict_block),
	F(succ_block_rank),
	F(succ_block_small_block_ranks),
	F(succ_block_bits),
	F(me_flags),
	F(me_defined_class),
	F(me_def),
	F(me_called_id),
	F(me_owner),
	F(def_type_bit),
	F(def_type_width),
	F(def_original_id),
	F(def_iseq_iseqptr),
	F(def_cfunc_func),
	F(def_bmethod_proc),
	F(def_alias_original_me),
	F(method_type_iseq),
	F(method_type_cfunc),
	F(method_type_attrset),
	F(method_type_ivar),
	F(method_type_bmethod),
	F(method_type_zsuper),
	F(method_type_alias),
	F(method_type_undef),
	F(method_type_optimized),
	F(method_type_missing),
	F(method_type_refined),
	F(imemo_type_shift),
	F(imemo_type_mask),
	F(imemo_env),
	F(imemo_cref),
	F(imemo_svar),
	F(imemo_ment),
	F(imemo_iseq),
	F(svar_cref_or_me),
	F(cref_klass),
	F(cref_next),
	F(rbasic_flags),
	F(rbasic_klass),
	F(t_mask),
	F(t_object),
	F(t_class),
	F(t_module),
	F(t_string),
	F(t_array),
	F(t_iclass),
	F(t_imemo),
	F(fl_ushift),
	F(fl_singleton),
	F(qfalse),
	F(qnil),
	F(qtrue),
	F(qundef),
	F(fixnum_flag),
	F(symbol_flag),
	F(special_shift),
	F(immediate_mask),
	F(rclass_super),
	F(rclass_ext),
	F(sizeof_rclass),
	F(classext_iv_tbl),
	F(classext_classpath),
	F(classext_attached),
	F(classext_origin),
	F(classext_includer),
	F(id_attached),
	F(st_num_entries),
	F(st_entries),
	F(st_entries_start),
	F(st_entries_bound),
	F(sizeof_st_entry),
	F(st_entry_hash),
	F(st_entry_key),
	F(st_entry_record),
	F(rstring_len),
	F(rstring_heap_ptr),
	F(rstring_embed_ary),
	F(rstring_noembed),
	F(rstring_embed_len_mask),
	F(rstring_embed_len_shift),
	F(rarray_heap_len),
	F(rarray_heap_ptr),
	F(rarray_embed_ary),
	F(rarray_embed_flag),
	F(rarray_embed_len_mask),
	F(rarray_embed_len_shift),
	F(sizeof_symbols),
	F(symbols_last_id),
	F(symbols_str_sym),
	F(symbols_ids),
	F(id_entry_unit),
	F(id_entry_size),
	F(id_entry_str),
	F(tlast_op_id),
	F(id_scope_shift),
	F(objspace_mode_bit),
	F(objspace_mode_width),
	F(objspace_during_gc_bit),
	F(objspace_gc_count),
	F(gc_mode_none),
	F(gc_mode_marking),
	F(gc_mode_sweeping),
	F(gc_mode_compacting),
	F(sizeof_rvalue),
	{ NULL, 0, 0 },
};

const struct ruby_layout_field *
ruby_layout_field(const char *name)
{
	for (const struct ruby_layout_field *f = ruby_layout_fields; f->name;
	     f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

int64_t
ruby_layout_get(const struct ruby_layout *L, const struct ruby_layout_field *f)
{
	const char *p = (const char *)L + f->offset;

	switch (f->type) {
	case RUBY_FIELD_U8:
		return *(const uint8_t *)p;
	case RUBY_FIELD_I8:
		return *(const int8_t *)p;
	case RUBY_FIELD_U16:
		return *(const uint16_t *)p;
	case RUBY_FIELD_U32:
		return *(const uint32_t *)p;
	case RUBY_FIELD_STR:
		break;
	}
	return 0;
}

int
ruby_layout_set(struct ruby_layout *L, const struct ruby_layout_field *f,
		int64_t v)
{
	char *p = (char *)L + f->offset;

	switch (f->type) {
	case RUBY_FIELD_U8:
		if (v < 0 || v > UINT8_MAX)
			return -1;
		*(uint8_t *)p = (uint8_t)v;
		return 0;
	case RUBY_FIELD_I8:
		if (v < INT8_MIN || v > INT8_MAX)
			return -1;
		*(int8_t *)p = (int8_t)v;
		return 0;
	case RUBY_FIELD_U16:
		/* 0xffff is RUBY_LAYOUT_NONE, never a real offset. */
		if (v < 0 || v >= UINT16_MAX)
			return -1;
		*(uint16_t *)p = (uint16_t)v;
		return 0;
	case RUBY_FIELD_U32:
		if (v < 0 || v >= UINT32_MAX)
			return -1;
		*(uint32_t *)p = (uint32_t)v;
		return 0;
	case RUBY_FIELD_STR:
		break;
	}
	return -1;
}

void
ruby_layout_format(const struct ruby_layout *L,
		   const struct ruby_layout_field *f, char *buf, size_t cap)
{
	const char *s;
	int64_t v;

	if (!L) {
		snprintf(buf, cap, "-");
		return;
	}
	if (f->type == RUBY_FIELD_STR) {
		s = *(const char *const *)((const char *)L + f->offset);
		/* One word per value: the printout is split on spaces. */
		snprintf(buf, cap, "%s", s && *s ? s : "-");
		for (char *c = buf; *c; c++)
			if (*c == ' ' || *c == '\t')
				*c = '_';
		return;
	}
	v = ruby_layout_get(L, f);
	if ((f->type == RUBY_FIELD_U16 && v == RUBY_LAYOUT_NONE) ||
	    (f->type == RUBY_FIELD_U32 && v == RUBY_LAYOUT_NOVAL))
		snprintf(buf, cap, "none");
	else
		snprintf(buf, cap, "%lld", (long long)v);
}

const struct ruby_layout_field *
ruby_layout_diff(const struct ruby_layout *a, const struct ruby_layout *b)
{
	for (const struct ruby_layout_field *f = ruby_layout_fields; f->name;
	     f++) {
		/* Identity is where a layout came from, not what it says. */
		if (f->type == RUBY_FIELD_STR)
			continue;
		if (ruby_layout_get(a, f) != ruby_layout_get(b, f))
			return f;
	}
	return NULL;
}

/* "X.Y.Z" (or "X.Y", teeny -1) into its numbers; -1 if neither. */
static int
parse_version(const char *v, int *maj, int *min, int *teeny)
{
	int n;

	*teeny = -1;
	if (!v)
		return -1;
	n = sscanf(v, "%d.%d.%d", maj, min, teeny);
	if (n < 2) {
		*teeny = -1;
		return -1;
	}
	return 0;
}

const struct ruby_layout *
ruby_layout_find(const char *version, bool *exact)
{
	return ruby_layout_find_hiding(version, NULL, exact);
}

const struct ruby_layout *
ruby_layout_find_hiding(const char *version, const char *hide, bool *exact)
{
	const struct ruby_layout *best = NULL;
	int maj, min, teeny, best_d = 0;

	if (exact)
		*exact = false;
	if (parse_version(version, &maj, &min, &teeny) < 0)
		return NULL;
	for (int i = 0; ruby_layouts[i]; i++) {
		const struct ruby_layout *L = ruby_layouts[i];
		int lmaj, lmin, lteeny, d;

		if (parse_version(L->version, &lmaj, &lmin, &lteeny) < 0 ||
		    lmaj != maj || lmin != min)
			continue;
		if (hide && *hide && !strncmp(L->version, hide, strlen(hide)))
			continue;
		if (teeny >= 0 && lteeny == teeny) {
			if (exact)
				*exact = true;
			return L;
		}
		/* The nearest release; between two as near, the newer (the
		 * list is oldest first). "X.Y" alone: the newest. */
		d = teeny < 0 ? 0 : lteeny > teeny ? lteeny - teeny :
						      teeny - lteeny;
		if (!best || d <= best_d) {
			best = L;
			best_d = d;
		}
	}
	return best;
}

size_t
ruby_layout_list(char *buf, size_t cap)
{
	size_t o = 0;

	if (cap)
		buf[0] = '\0';
	for (int i = 0; ruby_layouts[i] && o + 1 < cap; i++) {
		int n = snprintf(buf + o, cap - o, "%s%s", i ? ", " : "",
				 ruby_layouts[i]->version);

		if (n < 0 || (size_t)n >= cap - o) {
			buf[o] = '\0';	/* no half-written release */
			break;
		}
		o += (size_t)n;
	}
	return o;
}
