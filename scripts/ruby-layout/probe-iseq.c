/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Layout probe compiled inside iseq.c: struct succ_index_table, the succinct
 * pc -> line index, is private to this file.
 * See probe.h for how the answers are read.
 */
#include "iseq.c"
#include "probe.h"

void rbl_probe_iseq(void);

void
rbl_probe_iseq(void)
{
	RBL_VAL(lines, VM_INSN_INFO_TABLE_IMPL);
#if VM_INSN_INFO_TABLE_IMPL == 2
	RBL_VAL(succ_immediate_size, IMMEDIATE_TABLE_SIZE);
	RBL_OFF(succ_imm_part, struct succ_index_table, imm_part);
	RBL_OFF(succ_succ_part, struct succ_index_table, succ_part);
	RBL_SIZE(sizeof_succ_dict_block, struct succ_dict_block);
	RBL_OFF(succ_block_rank, struct succ_dict_block, rank);
	RBL_OFF(succ_block_small_block_ranks, struct succ_dict_block,
		small_block_ranks);
	RBL_OFF(succ_block_bits, struct succ_dict_block, bits);
#endif
}
