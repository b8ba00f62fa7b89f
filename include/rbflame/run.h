/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * One profiling run end to end: attach to or launch the target, sample it
 * on the tracer thread until the duration ends, the user stops us or the
 * target exits, let the tracer thread go (which detaches), write the
 * profile and, in launch mode, wait for the command.
 */
#ifndef RBFLAME_RUN_H
#define RBFLAME_RUN_H

#include "rbflame/options.h"

#include <stdio.h>

#include "rbflame/profile.h"

/** Runs the profile described by o; returns the process exit status. */
int run_profile(const struct options *o);

struct outfile;

/** Writes the profile command's --help text (its sections, then the
 * formats from the writer table) to f. */
void run_help(FILE *f);

/**
 * Opens each output of os into outs[] (outfile_open(): standard output
 * for a NULL path; a binary format is refused on a terminal): 0, or -1
 * after printing why, with nothing left open and every existing file as
 * it was.
 */
int run_open_outputs(const struct options_outputs *os, struct outfile **outs);
/**
 * Writes prof to each output with the view options (NULL: defaults) and
 * commits it (a regular file is renamed into place only when complete):
 * 0, or -1 after printing.
 */
int run_write_outputs(const struct options_outputs *os, struct outfile **outs,
		      const struct profile *prof,
		      const struct output_opts *view);
/** Drops every output still open: existing files stay as they were. */
void run_abort_outputs(const struct options_outputs *os,
		       struct outfile **outs);

#endif
