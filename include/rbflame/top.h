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

#endif
