/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The writer table: each output format is one const struct output_ops in
 * src/out/, listed once in OUTPUT_WRITERS below, looked up by name. The
 * table is the one list of formats: -f's names, the file names that imply
 * one and both help texts' Formats sections (output_help()) come from it.
 * Writers read a finished profile and write a stream; they never touch
 * the target (annotate reads its sources through output_opts.sources
 * only). doc/HACKING.md says how to add one.
 */
#ifndef RBFLAME_OUTPUT_H
#define RBFLAME_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rbflame/options.h"	/* struct output_opts */
#include "rbflame/profile.h"

/*
 * What a writer may read, so that a raw recording reproduces its output
 * byte for byte: the string pool, frames, stacks (with counts), samples,
 * threads, meta, and of stats everything but stop_ns (the per-stop
 * lengths). Samples are in the order taken; a stack's count may exceed
 * its timed samples (merged or collapsed input): writers include those
 * too. Never the clock, the environment or the host.
 */
/*
 * write or write_opts, exactly one: write when the output depends on the
 * profile alone (collapsed, raw, pprof...); write_opts when a view option
 * shapes it too (--title, --icicle, --limit, --match: svg, the text
 * reports, dot, annotate). write_opts always gets an output_opts (zeroed:
 * the defaults, when the caller had none) and must give the same bytes
 * for the same profile and options.
 *
 * Which shared aggregation a writer reads, rather than its own:
 * - none, when it lists stacks or samples as they are: p->stacks,
 *   p->samples (collapsed, speedscope, raw);
 * - the call graph (callgraph.h) for function-shaped output: functions
 *   (a Ruby method sampled at three lines is one), caller -> callee
 *   edges with estimated calls, samples per line (callgrind, stackprof,
 *   pprof, dot, summary, lines, annotate); callgraph_create_frames()
 *   when each frame must be its own node (samplingprof);
 * - the frame tree (flametree.h) for drawings of the stacks: merged from
 *   the root by frame text, two profiles side by side, a colour class
 *   per frame (svg; diff's differential svg).
 */
struct output_ops {
	const char *name;	/* -f NAME; equal to its OUTPUT_WRITERS entry */
	const char *description;	/* one line for the help texts */
	/* Writes p to f: 0, or -1 with errno (the caller reports). */
	int (*write)(const struct profile *p, FILE *f);
	/* The same for a writer that takes view options (see above). */
	int (*write_opts)(const struct profile *p,
			  const struct output_opts *o, FILE *f);
	/* File names that mean this format: endings (".pb.gz") and
	 * beginnings of the base name ("callgrind.out."); NULL-ended. */
	const char *const *suffixes;
	const char *const *prefixes;
	bool binary;		/* not for a terminal */
	/* Writes from the stacks alone, never the samples in order: a run
	 * whose every output is such keeps no timeline (see
	 * profile.keep_samples). */
	bool stacks_only;
};

/** The writer called name, or NULL. */
const struct output_ops *output_find(const char *name);
/** The writer a file name implies (longest matching ending), or NULL. */
const struct output_ops *output_for_file(const char *path);
/** "collapsed, ..." for messages. */
const char *output_names(void);
/** The three above, for the option parsers (options_parse()). */
extern const struct options_formats output_formats;
/**
 * The help texts' Formats section, to f: a heading, then per writer its
 * name, description and the file names that imply it, in 76 columns.
 */
void output_help(FILE *f);
/**
 * Writes p with w to f, passing o (NULL: defaults) to writers that take
 * options: 0, or -1 with errno.
 */
int output_write(const struct output_ops *w, const struct profile *p,
		 const struct output_opts *o, FILE *f);

/** The writers, for listings: the n-th, or NULL past the end. */
const struct output_ops *output_at(size_t n);

/** Sampling period in ns from the profile's rate (99 Hz when unknown). */
uint64_t output_period_ns(const struct profile *p);

/** A frame's label for the structured formats: its name, or its text
 * when it has no name (an unnamed native frame). */
const char *output_frame_label(const struct profile *p, uint32_t frame);
/** A frame's file, or NULL when it has none. */
const char *output_frame_file(const struct profile *p, uint32_t frame);
/**
 * Copies s into out (cap bytes) for line-based formats: utf8_escape(),
 * control characters as "\xHH", invalid UTF-8 U+FFFD. Returns out.
 * Text writers print names and paths with utf8_put_escaped().
 */
char *output_clean_line(const char *s, char *out, size_t cap);

/**
 * Writes len bytes to f as one gzip member with a fixed header (mtime 0,
 * no name), so equal input gives equal bytes: 0, or -1 with errno.
 */
int output_gzip(FILE *f, const void *data, size_t len);

/*
 * The writers, in the order help texts and "choose one of" list them:
 * X(NAME) for `const struct output_ops output_NAME` (src/out/, one file
 * may hold several), whose .name is "NAME".
 */
#define OUTPUT_WRITERS(X)						\
	X(collapsed) X(raw) X(speedscope) X(stackprof) X(callgrind)	\
	X(pprof) X(samplingprof) X(svg) X(summary) X(lines) X(dot)	\
	X(annotate)

#define OUTPUT_EXTERN(name) extern const struct output_ops output_##name;
OUTPUT_WRITERS(OUTPUT_EXTERN)
#undef OUTPUT_EXTERN

/* The format of an output given no -f and no telling file name. */
#define OUTPUT_DEFAULT (&output_collapsed)

/**
 * Makes one frame safe for collapsed-stack readers: no ';' (it separates
 * frames), no control characters (C0, DEL, C1) or newlines, valid UTF-8
 * (invalid bytes become U+FFFD), never empty, and never ending in whitespace + a number
 * (flamegraph.pl would read it as a count). Writes at most cap-1 bytes.
 */
size_t collapsed_sanitize(const char *in, size_t len, char *out, size_t cap);

#endif
