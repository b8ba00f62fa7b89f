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
#include <stdint.h>
#include <sys/types.h>

#define RATE_DEFAULT 99.0
#define RATE_MAX 10000.0

/* ---- outputs (issue #6): -o may be repeated -------------------------- */
#define OPTIONS_MAX_OUTPUTS 16
#define OPTIONS_MAX_PIDS 64	/* targets of one run: -p A,B or -p A -p B */

/**
 * The formats -f and -o can name. The writers sit above the options
 * (doc/architecture.md), so the caller hands their lookups in:
 * output_formats (output.h) is the writer table's.
 */
struct options_formats {
	/* true when a writer is called name */
	bool (*known)(const char *name);
	/* the format a file name implies (".pb.gz"...), or NULL */
	const char *(*for_file)(const char *path);
	/* "collapsed, raw, ..." for messages */
	const char *(*names)(void);
	/* the format when none is named */
	const char *(*default_name)(void);
};

/** One file to write (path NULL: standard output) in one format. */
struct options_output {
	const char *path;
	const char *format;	/* a name formats->known() knows */
};

/** The -o/-f pairs of a command line, before and after resolution. */
struct options_outputs {
	struct options_output v[OPTIONS_MAX_OUTPUTS];
	size_t n;
	const char *trailing_format;	/* a -f not yet used by an -o */
	const char *last_format;	/* the latest -f seen */
	const struct options_formats *formats;	/* set by the caller */
};

/**
 * Records "-o path" (format: a -f just before it, or NULL): 0, or -1
 * with err filled (too many outputs, empty name, a name given twice).
 */
int options_output_add(struct options_outputs *os, const char *path,
		       char *err, size_t errlen);
/** Records "-f name": 0, or -1 with err filled (unknown format). */
int options_format_set(struct options_outputs *os, const char *name,
		       char *err, size_t errlen);
/**
 * Gives every output its format: its own -f, else a -f after the last
 * -o, else its file name's ending (.txt, .speedscope.json, .pb.gz...),
 * else collapsed; with no -o, one output to standard output in the -f
 * format (collapsed by default). 0, or -1 with err filled.
 */
int options_outputs_resolve(struct options_outputs *os, char *err,
			    size_t errlen);
/* ---- end of outputs ---------------------------------------------------- */

/* ---- views (issue #7): options of the svg and report formats -------- */
/** What a user asks of a view beyond the profile, for the writers
 * (output.h) that take options. */
struct tfile_root;

struct output_opts {
	const char *title;	/* --title; NULL: the writer's own */
	bool icicle;		/* --icicle: roots at the top */
	unsigned limit;		/* --limit N: rows of a text report, 0 all */
	const char *regex;	/* annotate: the methods to show */
	/* annotate: where the sources are read, the only way a writer
	 * reads a file (tfile.h): the target's root with its rights, or
	 * report's --source-root; NULL: none is. */
	const struct tfile_root *sources;
};

enum {
	OPTIONS_VIEW_TITLE = 0x200,
	OPTIONS_VIEW_ICICLE,
	OPTIONS_VIEW_LIMIT,
	OPTIONS_VIEW_MATCH,
};

/* Their getopt_long entries, for every command line that writes views. */
#define OPTIONS_VIEW_LONG_OPTIONS                                          \
	{ "title", required_argument, NULL, OPTIONS_VIEW_TITLE },          \
	{ "icicle", no_argument, NULL, OPTIONS_VIEW_ICICLE },              \
	{ "limit", required_argument, NULL, OPTIONS_VIEW_LIMIT },          \
	{ "match", required_argument, NULL, OPTIONS_VIEW_MATCH }

/**
 * Applies view option c (an OPTIONS_VIEW_* code) with its argument to v:
 * 0, or -1 with a one-line message in err.
 */
int options_view_parse(int c, const char *arg, struct output_opts *v,
		       char *err, size_t errlen);
/* ---- end of views ------------------------------------------------------ */

struct options {
	pid_t pid;		/* the first -p; 0 in launch mode */
	pid_t pids[OPTIONS_MAX_PIDS]; /* every -p, in order, no repeats */
	size_t npids;
	char **command;		/* launch mode: argv of the program, NULL-terminated */
	double duration;	/* -s seconds; 0 = until Ctrl-C or target exit */
	double rate;		/* -r Hz */
	const char *output;	/* the first -o; NULL = stdout */
	const char *format;	/* the first output's format */
	struct options_outputs outputs;	/* every -o with its format */
	bool threads;		/* --threads */
	bool function;		/* --function: Ruby frames by method */
	bool cpu;		/* --mode cpu: only threads on a CPU */
	const char *force_version; /* --force-version X.Y */
	/* --native: native frames woven into Ruby stacks */
	bool native;		/* --native (or --native-all) */
	bool native_all;	/* --native-all: the VM's frames too */
	struct output_opts view; /* --title, --icicle, --limit, --match */
	/* Forking servers and reading without stops (issue #9). */
	bool subprocesses;	/* --subprocesses: follow forks */
	bool nonblocking;	/* --nonblocking: never stop a Ruby target */
	double max_pause;	/* --max-pause PCT: the share of wall time a
				 * Ruby process may spend stopped, percent;
				 * 0 (off): no budget */
	bool no_realtime;	/* --no-realtime: the sampling thread at
				 * normal priority */
	const char *thread_regex; /* --thread: only the threads whose name or
				 * tid matches (checked by regcomp) */
	uint32_t max_frames;	/* --max-frames N: 0 no cap */
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
 * Parses argv into o (defaults filled in), -f and -o against formats. On
 * OPTIONS_ERROR, err holds a one-line message without the program name.
 * o->command points into argv.
 */
enum options_result options_parse(int argc, char **argv,
				  const struct options_formats *formats,
				  struct options *o, char *err, size_t errlen);

/** Formats one error line into err; returns OPTIONS_ERROR. */
enum options_result options_fail(char *err, size_t errlen, const char *fmt,
				 ...) __attribute__((format(printf, 3, 4)));
/** The error for getopt_long()'s ':' (missing argument) or '?' result. */
enum options_result options_getopt_error(int c, char **argv, char *err,
					 size_t errlen);

/** Parses a PID (a positive decimal process id): 0, or -1 if invalid. */
int options_parse_pid(const char *s, pid_t *pid);
/**
 * Adds the pids of one -p argument ("1234" or "1234,1240,...") to o:
 * 0, or -1 with a one-line message in err (not a pid, given twice, too
 * many).
 */
int options_pids_add(struct options *o, const char *arg, char *err,
		     size_t errlen);

/** The --help text before and after its Formats section (run_help()
 * writes the three; the formats come from the writer table). */
extern const char options_help_head[];
extern const char options_help_tail[];

/* 0 if arg is a --thread pattern regcomp() takes (REG_EXTENDED), else -1
 * with the one-line reason in err. */
int options_thread_check(const char *arg, char *err, size_t errlen);

#endif
