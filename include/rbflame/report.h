/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * 'rbflame report': reads a recording (or collapsed stacks) and writes it
 * in any format, to one or more outputs, exactly as the profiling run
 * would have written them directly.
 */
#ifndef RBFLAME_REPORT_H
#define RBFLAME_REPORT_H

#include <stddef.h>

#include "rbflame/options.h"

struct report_options {
	const char *input;		/* -i FILE; "-" is standard input */
	struct options_outputs outputs;
	struct output_opts view;	/* --title, --icicle, --limit, --match */
	const char *source_root;	/* --source-root DIR, or NULL */
	bool quiet;
};

/* report's own long options (getopt codes past the views'). */
enum { REPORT_SOURCE_ROOT = 0x300 };

/**
 * Parses 'report' and its arguments (argv[0] is "report"): OPTIONS_OK,
 * OPTIONS_HELP, or OPTIONS_ERROR with a one-line message in err.
 */
enum options_result report_parse(int argc, char **argv,
				 struct report_options *r, char *err,
				 size_t errlen);

/** Writes the 'rbflame report --help' text to f. */
void report_help(FILE *f);

/** main() of 'rbflame report'; returns the exit status. */
int report_main(int argc, char **argv);

#endif
