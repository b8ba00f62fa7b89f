/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Layout probe compiled inside gc.c: rb_objspace_t (GC state flags) and
 * RVALUE are private to this file.
 * See probe.h for how the answers are read.
 */
#include "gc.c"
#include "probe.h"

/* gc.c defines during_gc as objspace->flags.during_gc. */
#undef during_gc

RBL_BITS(objspace_mode, rb_objspace_t, .flags.mode);
RBL_BITS(objspace_during_gc, rb_objspace_t, .flags.during_gc);
RBL_BITS(objspace_during_compacting, rb_objspace_t, .flags.during_compacting);

void rbl_probe_gc(void);

void
rbl_probe_gc(void)
{
	/* Completed GCs: an epoch that says no object moved or died. */
	RBL_OFF(objspace_gc_count, rb_objspace_t, profile.count);
	/* Major GCs: the only ones that free or move an old object. */
	RBL_OFF(objspace_major_gc_count, rb_objspace_t, profile.major_gc_count);
	RBL_VAL(gc_mode_none, gc_mode_none);
	RBL_VAL(gc_mode_marking, gc_mode_marking);
	RBL_VAL(gc_mode_sweeping, gc_mode_sweeping);
#if RBL_API >= 303
	RBL_VAL(gc_mode_compacting, gc_mode_compacting);
#endif
#ifdef BASE_SLOT_SIZE
	/* 3.4 dropped RVALUE; the base slot is the same 40 bytes. */
	RBL_VAL(sizeof_rvalue, BASE_SLOT_SIZE);
#else
	RBL_SIZE(sizeof_rvalue, RVALUE);
#endif
}
