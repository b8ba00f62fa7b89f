/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Layout probe compiled inside st.c: st_table_entry is private to this
 * file (the class ivar table of Ruby <= 3.1 is an st_table).
 * See probe.h for how the answers are read.
 */
#include "st.c"
#include "probe.h"

void rbl_probe_st(void);

void
rbl_probe_st(void)
{
	RBL_SIZE(sizeof_st_entry, st_table_entry);
	RBL_OFF(st_entry_hash, st_table_entry, hash);
	RBL_OFF(st_entry_key, st_table_entry, key);
	RBL_OFF(st_entry_record, st_table_entry, record);
}
