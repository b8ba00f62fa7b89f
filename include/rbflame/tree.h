/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The process tree under the target, for -p PID --subprocesses: the
 * descendants that were running before we attached (a server's workers,
 * forked long ago) and those that join later without a fork we saw (a
 * child of a process we could not seize), found in /proc and seized.
 * Forks of seized processes need none of this: ptrace follows them.
 */
#ifndef RBFLAME_TREE_H
#define RBFLAME_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rbflame/target.h"

#define TREE_RESCAN_NS 1000000000ull	/* look for newcomers this often */

struct tree {
	pid_t *refused;		/* descendants we could not seize: told
				 * once, their own children still followed */
	size_t nrefused, cap;
	uint64_t next_scan_ns;	/* when tree_rescan() looks again */
	pid_t tracer_tid;	/* our tracer thread, as TracerPid shows it */
	pid_t self;		/* rbflame, never seized */
};

/** Prepares tr; call on the tracer thread. */
void tree_init(struct tree *tr);
/**
 * Seizes every descendant of t's live processes that t does not know yet
 * (target_adopt()), walking /proc until no new one turns up (bounded).
 * A descendant that cannot be seized is a notice, once (a zombie is
 * none; rbflame itself is skipped); so is each one found after the
 * first walk (first: the walk at attach, told as one
 * line). Returns how many were seized.
 */
size_t tree_adopt(struct tree *tr, struct target *t, bool first);
/** tree_adopt() when TREE_RESCAN_NS have passed since the last walk. */
size_t tree_rescan(struct tree *tr, struct target *t, uint64_t now);
void tree_fini(struct tree *tr);

#endif
