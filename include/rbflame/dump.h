/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * "rbflame dump": print the Ruby stack of every thread of a process once,
 * optionally saving the memory read as a snapshot, or print the stacks
 * held in a snapshot with no process at all.
 */
#ifndef RBFLAME_DUMP_H
#define RBFLAME_DUMP_H

/**
 * Runs "rbflame dump"; argv[0] is "dump". Returns the exit status: 0, 1
 * when the stacks could not be read, 2 for a usage error (which exits
 * through error_msg_and_help()).
 */
int dump_main(int argc, char **argv);

#endif
