/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Command-line options: parsed into one struct, with no side effects, so
 * the parser is unit-tested. main() prints and exits.
 */
#ifndef RBFLAME_OPTIONS_H
#define RBFLAME_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RATE_DEFAULT 99.0
#define RATE_MAX 10000.0

struct options {
	pid_t pid;		/* -p; 0 in launch mode */
	char **command;		/* launch mode: argv of the program, NULL-terminated */
	double duration;	/* -s seconds; 0 = until Ctrl-C or target exit */
	double rate;		/* -r Hz */
	const char *output;	/* -o; NULL = stdout */
	const char *format;	/* -f */
	bool threads;		/* --threads */
	bool function;		/* --function: Ruby frames by method */
	bool cpu;		/* --mode cpu: only threads on a CPU */
	const char *force_version; /* --force-version X.Y */
	/* Forking servers and reading without stops (issue #9). */
	bool subprocesses;	/* --subprocesses: follow forks */
	bool nonblocking;	/* --nonblocking: never stop a Ruby target */

	bool quiet;		/* -q */
	bool debug;		/* --debug */
};

enum options_result {
	OPTIONS_OK,
	OPTIONS_HELP,		/* print help to stdout, exit 0 */
	OPTIONS_VERSION,	/* print version, exit 0 */
	OPTIONS_ERROR,		/* err holds one line; exit 2 */
};

/**
 * Parses argv into o (defaults filled in). On OPTIONS_ERROR, err holds a
 * one-line message without the program name. o->command points into argv.
 */
enum options_result options_parse(int argc, char **argv, struct options *o,
				  char *err, size_t errlen);

/** Parses a PID (a positive decimal process id): 0, or -1 if invalid. */
int options_parse_pid(const char *s, pid_t *pid);

/** The --help text (sections), for stdout. */
extern const char options_help[];

#endif
