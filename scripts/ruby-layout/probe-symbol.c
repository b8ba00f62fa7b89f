/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Layout probe compiled inside symbol.c: the ID -> String table
 * (rb_symbols_t ruby_global_symbols) and its page constants.
 * See probe.h for how the answers are read.
 */
#include "symbol.c"
#include "probe.h"

void rbl_probe_symbol(void);

void
rbl_probe_symbol(void)
{
	RBL_SIZE(sizeof_symbols, rb_symbols_t);
	RBL_OFF(symbols_last_id, rb_symbols_t, last_id);
	RBL_OFF(symbols_str_sym, rb_symbols_t, str_sym);
	RBL_OFF(symbols_ids, rb_symbols_t, ids);
	RBL_VAL(id_entry_unit, ID_ENTRY_UNIT);
	RBL_VAL(id_entry_size, ID_ENTRY_SIZE);
	RBL_VAL(id_entry_str, ID_ENTRY_STR);
	RBL_VAL(tlast_op_id, tLAST_OP_ID);
	RBL_VAL(id_scope_shift, ID_SCOPE_SHIFT);
	RBL_OFF(rsymbol_fstr, struct RSymbol, fstr);
}
