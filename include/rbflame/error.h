/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * One error API for the whole program: every message is one line that
 * starts with the program name. Modules below the top layers return -1 and
 * leave errno; only main() and the x-allocators die.
 */
#ifndef RBFLAME_ERROR_H
#define RBFLAME_ERROR_H

#include <stdbool.h>

#define ATTR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ATTR_NORETURN __attribute__((noreturn))

/** Program name printed first on every line ("rbflame"). */
extern const char *program_name;
/** When true, debug_msg() prints (RBFLAME_DEBUG or --debug). */
extern bool debug_enabled;
/** When true, notices are suppressed (-q); errors still print. */
extern bool quiet_enabled;

/** "rbflame: MESSAGE" on stderr. */
void error_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);
/** "rbflame: MESSAGE: strerror(errno)" on stderr. */
void perror_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);
/** error_msg() then exit(exit_code_on_die). */
void error_msg_and_die(const char *fmt, ...) ATTR_PRINTF(1, 2) ATTR_NORETURN;
/** perror_msg() then exit(exit_code_on_die). */
void perror_msg_and_die(const char *fmt, ...) ATTR_PRINTF(1, 2) ATTR_NORETURN;
/** Usage error: message, "Try 'rbflame --help'", exit 2. */
void error_msg_and_help(const char *fmt, ...) ATTR_PRINTF(1, 2) ATTR_NORETURN;
/** A notice (not an error): suppressed by -q. */
void notice_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);
/** Developer diagnostics, printed only when debug_enabled. */
void debug_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);

/** Exit status used by the *_and_die() helpers (1 by default, 125 in launch mode). */
extern int exit_code_on_die;

#endif
