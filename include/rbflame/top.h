/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * rbflame top: a live view of a run, refreshed every second (functions by
 * self and total share, each thread's states), full screen on a terminal
 * through ncurses, a plain-text snapshot every few seconds otherwise.
 */
#ifndef RBFLAME_TOP_H
#define RBFLAME_TOP_H

/**
 * Runs "rbflame top"; argv[0] is "top". Returns the exit status: 0 (the
 * launched command's with -- COMMAND), 1 when the target cannot be
 * watched, 2 for a usage error (which exits through error_msg_and_help()).
 */
int top_main(int argc, char **argv);

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rbflame/profile.h"

/** What top counts and shows; top_destroy() frees it and its views. */
struct top;
struct top *top_create(void);
void top_destroy(struct top *t);

/**
 * run_watch's watch hook, arg a struct top: counts the samples of p not
 * yet counted (since start), counts again those of the last 5 s before
 * elapsed_ns, and makes them the latest view.
 */
void top_watch(void *arg, const struct profile *p, uint64_t elapsed_ns,
	       bool final);

/**
 * Prints the latest view as rbflame top's plain text to f, its last 5 s or
 * since start, functions by self or total share (at most max_fns, 0 all),
 * and drops it: 0, or -1 when there is none.
 */
int top_print(struct top *t, FILE *f, bool since_start, bool by_total,
	      int max_fns);

#endif
