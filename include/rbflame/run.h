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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rbflame/profile.h"

/** Runs the profile described by o; returns the process exit status. */
int run_profile(const struct options *o);

/**
 * A live view of a run (rbflame top). The run goes as run_profile()'s,
 * with two hooks and no summary line:
 *
 * watch    on the tracer thread, between two ticks, about every period_ns
 *          and once more when sampling ends (final): the one place prof
 *          may be read while the run goes on. elapsed_ns counts from the
 *          run's start, as the samples' times do.
 * ui       on the main thread once the tracer thread has started; it
 *          returns when *done turns true (sampling has ended) or after it
 *          has called run_stop() (the user asked).
 */
struct run_watch {
	void (*watch)(void *arg, const struct profile *prof,
		      uint64_t elapsed_ns, bool final);
	void (*ui)(void *arg, const volatile int *done);
	uint64_t period_ns;
	void *arg;
};

/** run_profile() with a watcher w (may be NULL). */
int run_watched(const struct options *o, const struct run_watch *w);

/** Ends the run as Ctrl-C would, but asked from inside: the launched
 * command, if any, is sent nothing. Safe from any thread. */
void run_stop(void);

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
