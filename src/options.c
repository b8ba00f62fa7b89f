// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Option parsing. Pure: it reads argv and fills a struct, so every rule
 * here (ranges, conflicts, launch vs attach) is covered by unit tests.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/options.h"
#include "rbflame/profile.h"

/* The help before the Formats section, which output_help() writes. */
const char options_help_head[] =
"Usage: rbflame [OPTIONS] -p PID\n"
"       rbflame [OPTIONS] -- COMMAND [ARGS...]\n"
"       rbflame dump -p PID [--snapshot FILE | --layout]\n"
"       rbflame report -i FILE [-f FMT] [-o OUT]...\n"
"       rbflame diff [--fail-above PCT] [--svg FILE] BASE NEW\n"
"       rbflame top [OPTIONS] -p PID | -- COMMAND\n"
"Sample the stacks of a running process, or of a command it launches, and\n"
"write a profile (collapsed stacks for flamegraph.pl by default). A Ruby\n"
"process gives Ruby stacks read from its VM; any other process its native\n"
"stacks. 'rbflame dump' prints every Ruby thread's stack once;\n"
"'rbflame report' converts a recording (-f raw) into other formats;\n"
"'rbflame diff' compares two profiles (see 'rbflame diff --help');\n"
"'rbflame top' shows a process live (see 'rbflame top --help').\n"
"\n"
"Target:\n"
"  -p, --pid PID[,PID...] attach to the running process PID (repeat -p or\n"
"                         join PIDs by commas for several processes, each\n"
"                         stack rooted at 'process PID \"CMD\"')\n"
"  -- COMMAND [ARGS...]   launch COMMAND and profile it from its first\n"
"                         instruction; rbflame exits with its status\n"
"\n"
"Sampling:\n"
"  -s, --duration SECS    stop after SECS seconds (default: until Ctrl-C\n"
"                         or the target exits); fractions allowed\n"
"  -r, --rate HZ          samples per second (default 99, at most 10000);\n"
"                         each interval is jittered so sampling never\n"
"                         runs in lockstep with the target's timers\n"
"      --mode MODE        wall (default): every Ruby thread in every tick,\n"
"                         whatever it is doing; cpu: only threads on a CPU\n"
"      --subprocesses     follow forks: profile the children too (forking\n"
"                         servers' workers), each stack rooted at\n"
"                         'process PID \"CMD\"'\n"
"      --nonblocking      read Ruby stacks without ever stopping the\n"
"                         target; a stack that changed under us is read\n"
"                         again, or kept to its settled part under [torn]\n"
"                         (the summary gives the torn rate)\n"
"      --max-pause PCT    stop a Ruby process at most PCT% of the wall\n"
"                         time; ticks past that budget are read without\n"
"                         stopping, as with --nonblocking (default and\n"
"                         'off': no budget, every tick stops)\n"
"      --no-realtime      sample at normal priority (default: the sampling\n"
"                         thread runs SCHED_FIFO while it samples, when\n"
"                         allowed, so a stop never waits for a CPU)\n"
"      --thread REGEX     only the threads whose name or tid matches REGEX\n"
"                         (POSIX extended); no other is stopped, unless it\n"
"                         holds Ruby's GVL\n"
"      --max-frames N     distinct frames kept (default 200000, 0 no cap);\n"
"                         beyond them new frames are '[frame limit]'\n"
"\n"
"Output:\n"
"  -o, --output FILE      write the profile to FILE (default: stdout; '-'\n"
"                         too), renamed into place once complete, never\n"
"                         through a symlink; may be repeated to write\n"
"                         several formats at once\n"
"  -f, --format FMT       the format (see Formats) of the next -o (after\n"
"                         the last -o: of each -o without one); an -o\n"
"                         without -f takes the format its name implies\n"
"      --threads          root each stack at 'thread TID \"NAME\"'\n"
"      --function         Ruby frames by method: the line is the method's\n"
"                         first line, not the line executing\n"
"\n";

const char options_help_tail[] =
"\n"
"Views:\n"
"      --title TEXT       the svg's title (default \"Flame Graph\")\n"
"      --icicle           svg: roots at the top, growing down\n"
"      --limit N          text reports: the N heaviest rows only\n"
"      --match REGEX      annotate: the functions whose name matches\n"
"\n"
"Reading Ruby:\n"
"      --force-version X.Y  read Ruby with the layout of release X.Y\n"
"                         (for a release whose structs match it)\n"
"\n"
"Native frames (Ruby processes):\n"
"      --native           weave each thread's native stack into its Ruby\n"
"                         stack: C extensions' and libraries' functions\n"
"                         under the Ruby C method that called them\n"
"      --native-all       the same, with the Ruby VM's own frames\n"
"\n"
"Other:\n"
"  -q, --quiet            no progress line, notices or summary\n"
"      --debug            print diagnostics about each step\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"Exit status: attach mode 0 on success (also when the target exits),\n"
"1 on a runtime failure, 2 on a usage error; launch mode the command's\n"
"status (128+N if killed by signal N), 125 if rbflame failed, 126/127\n"
"if the command could not be run.\n"
"\n"
"Attaching needs ptrace permission: the same user as the target, or root\n"
"(sudo). See rbflame(1).\n";


enum {
	OPT_THREADS = 0x100,
	OPT_FUNCTION,
	OPT_MODE,
	OPT_FORCE_VERSION,
	OPT_DEBUG,
	/* --native */
	OPT_NATIVE,
	OPT_NATIVE_ALL,
	/* Forking servers and reading without stops (issue #9). */
	OPT_SUBPROCESSES,
	OPT_NONBLOCKING,
	OPT_MAX_PAUSE,
	OPT_NO_REALTIME,
	OPT_THREAD,
	OPT_MAX_FRAMES,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 's' },
	{ "rate", required_argument, NULL, 'r' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "function", no_argument, NULL, OPT_FUNCTION },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "force-version", required_argument, NULL, OPT_FORCE_VERSION },
	/* --native */
	{ "native", no_argument, NULL, OPT_NATIVE },
	{ "native-all", no_argument, NULL, OPT_NATIVE_ALL },
	OPTIONS_VIEW_LONG_OPTIONS,
	/* Forking servers and reading without stops (issue #9). */
	{ "subprocesses", no_argument, NULL, OPT_SUBPROCESSES },
	{ "nonblocking", no_argument, NULL, OPT_NONBLOCKING },
	{ "max-pause", required_argument, NULL, OPT_MAX_PAUSE },
	{ "no-realtime", no_argument, NULL, OPT_NO_REALTIME },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

enum options_result
options_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return OPTIONS_ERROR;
}

enum options_result
options_getopt_error(int c, char **argv, char *err, size_t errlen)
{
	if (c == ':')
		return options_fail(err, errlen, "option '%s' needs an argument",
			    argv[optind - 1]);
	if (optopt)
		return options_fail(err, errlen, "unknown option '-%c'", optopt);
	return options_fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
}

/* A finite number with nothing after it. */
static int
parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*out))
		return -1;
	return 0;
}

int
options_view_parse(int c, const char *arg, struct output_opts *v, char *err,
		   size_t errlen)
{
	char *end;
	long n;

	switch (c) {
	case OPTIONS_VIEW_TITLE:
		v->title = arg;
		return 0;
	case OPTIONS_VIEW_ICICLE:
		v->icicle = true;
		return 0;
	case OPTIONS_VIEW_LIMIT:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > 1000000) {
			options_fail(err, errlen,
			     "invalid limit '%s': expected a number of rows from 1 to 1000000",
			     arg);
			return -1;
		}
		v->limit = (unsigned)n;
		return 0;
	case OPTIONS_VIEW_MATCH:
	{
		regex_t re;
		int rc;

		if (!*arg) {
			options_fail(err, errlen, "empty --match pattern");
			return -1;
		}
		rc = regcomp(&re, arg, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];

			regerror(rc, &re, msg, sizeof(msg));
			options_fail(err, errlen, "invalid --match pattern '%s': %s",
			     arg, msg);
			return -1;
		}
		regfree(&re);
		v->regex = arg;
		return 0;
	}
	default:
		options_fail(err, errlen, "unknown view option");
		return -1;
	}
}

int
options_parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 0x3fffffff)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

int
options_pids_add(struct options *o, const char *arg, char *err,
		 size_t errlen)
{
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		char one[32];
		pid_t pid;

		if (len == 0 || len >= sizeof(one))
			goto bad;
		memcpy(one, p, len);
		one[len] = '\0';
		if (options_parse_pid(one, &pid) < 0)
			goto bad;
		for (size_t i = 0; i < o->npids; i++) {
			if (o->pids[i] == pid) {
				options_fail(err, errlen, "PID %d given twice",
					     (int)pid);
				return -1;
			}
		}
		if (o->npids >= OPTIONS_MAX_PIDS) {
			options_fail(err, errlen,
				     "too many PIDs: at most %d processes in one run",
				     OPTIONS_MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = pid;
		o->pid = o->pids[0];
		if (!p[len])
			return 0;
		p += len + 1;
	}
bad:
	options_fail(err, errlen,
		     "invalid PID '%s': expected a process id such as 1234, or several joined by commas (1234,1240)",
		     arg);
	return -1;
}

/* ---- outputs (issue #6): -o may be repeated -------------------------- */

int
options_output_add(struct options_outputs *os, const char *path, char *err,
		   size_t errlen)
{
	if (!*path) {
		options_fail(err, errlen, "empty output file name");
		return -1;
	}
	if (os->n == OPTIONS_MAX_OUTPUTS) {
		options_fail(err, errlen, "too many outputs: at most %d -o",
		     OPTIONS_MAX_OUTPUTS);
		return -1;
	}
	for (size_t i = 0; i < os->n; i++) {
		if (!strcmp(os->v[i].path, path)) {
			options_fail(err, errlen, "output '%s' given twice", path);
			return -1;
		}
	}
	os->v[os->n].path = path;
	/* A -f applies to the next -o only. */
	os->v[os->n].format = os->trailing_format;
	os->n++;
	os->trailing_format = NULL;
	return 0;
}

int
options_format_set(struct options_outputs *os, const char *name, char *err,
		   size_t errlen)
{
	if (!os->formats->known(name)) {
		options_fail(err, errlen, "unknown format '%s': choose one of: %s",
		     name, os->formats->names());
		return -1;
	}
	os->last_format = name;
	os->trailing_format = name;
	return 0;
}

int
options_outputs_resolve(struct options_outputs *os, char *err,
			size_t errlen)
{
	if (os->n == 0) {
		os->v[0].path = NULL;
		os->v[0].format = os->last_format ? os->last_format
						  : os->formats->default_name();
		os->n = 1;
		return 0;
	}
	for (size_t i = 0; i < os->n; i++) {
		const char *by_name;

		if (os->v[i].format)
			continue;
		if (os->trailing_format) {
			os->v[i].format = os->trailing_format;
			continue;
		}
		by_name = os->formats->for_file(os->v[i].path);
		os->v[i].format = by_name ? by_name : os->formats->default_name();
	}
	(void)err;
	(void)errlen;
	return 0;
}
/* ---- end of outputs ---------------------------------------------------- */

/* --thread REGEX: a pattern regcomp() takes, said now rather than after
 * the attach. */
int
options_thread_check(const char *arg, char *err, size_t errlen)
{
	regex_t re;
	int rc;

	if (!*arg) {
		options_fail(err, errlen,
			     "empty --thread pattern: give a thread name or tid, or a regex of them");
		return -1;
	}
	rc = regcomp(&re, arg, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];

		regerror(rc, &re, msg, sizeof(msg));
		options_fail(err, errlen,
			     "invalid --thread pattern '%s': %s (a POSIX extended regex)",
			     arg, msg);
		return -1;
	}
	regfree(&re);
	return 0;
}

enum options_result
options_parse(int argc, char **argv, const struct options_formats *formats,
	      struct options *o, char *err, size_t errlen)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->outputs.formats = formats;
	o->rate = RATE_DEFAULT;
	o->max_frames = PROFILE_MAX_FRAMES;
	o->format = formats->default_name();
	err[0] = '\0';

	optind = 0;	/* full reset, so tests can call us repeatedly */
	opterr = 0;
	/* '+': stop at the first non-option, which starts the command. */
	while ((c = getopt_long(argc, argv, "+:p:s:r:o:f:qhV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			if (options_pids_add(o, optarg, err, errlen) < 0)
				return OPTIONS_ERROR;
			break;
		case 's':
			if (parse_double(optarg, &o->duration) < 0 ||
			    o->duration <= 0 || o->duration > 1e7)
				return options_fail(err, errlen,
					    "invalid duration '%s': expected seconds greater than 0, such as 30 or 0.5",
					    optarg);
			break;
		case 'r':
			if (parse_double(optarg, &o->rate) < 0 ||
			    o->rate < 0.1 || o->rate > RATE_MAX)
				return options_fail(err, errlen,
					    "invalid rate '%s': expected samples per second from 0.1 to %g",
					    optarg, RATE_MAX);
			break;
		case 'o':
			if (options_output_add(&o->outputs, optarg, err,
					       errlen) < 0)
				return OPTIONS_ERROR;
			break;
		case 'f':
			if (options_format_set(&o->outputs, optarg, err,
					       errlen) < 0)
				return OPTIONS_ERROR;
			break;
		case OPT_THREADS:
			o->threads = true;
			break;
		case OPT_FUNCTION:
			o->function = true;
			break;
		case OPT_FORCE_VERSION: {
			unsigned a, b;
			char extra;

			if (sscanf(optarg, "%u.%u%c", &a, &b, &extra) < 2 ||
			    (sscanf(optarg, "%u.%u%c", &a, &b, &extra) == 3 &&
			     extra != '.'))
				return options_fail(err, errlen,
					    "invalid version '%s': expected X.Y, such as 3.3",
					    optarg);
			o->force_version = optarg;
			break;
		}
		case OPT_MODE:
			if (!strcmp(optarg, "wall"))
				o->cpu = false;
			else if (!strcmp(optarg, "cpu"))
				o->cpu = true;
			else
				return options_fail(err, errlen,
					    "unknown mode '%s': choose wall or cpu",
					    optarg);
			break;
		/* ---- --native ---- */
		case OPT_NATIVE:
			o->native = true;
			break;
		case OPT_NATIVE_ALL:
			o->native = o->native_all = true;
			break;
		/* ---- end of --native ---- */
		case OPTIONS_VIEW_TITLE:
		case OPTIONS_VIEW_ICICLE:
		case OPTIONS_VIEW_LIMIT:
		case OPTIONS_VIEW_MATCH:
			if (options_view_parse(c, optarg, &o->view, err,
					       errlen) < 0)
				return OPTIONS_ERROR;
			break;
		/* Forking servers and reading without stops (issue #9). */
		case OPT_SUBPROCESSES:
			o->subprocesses = true;
			break;
		case OPT_NONBLOCKING:
			o->nonblocking = true;
			break;
		case OPT_MAX_PAUSE:
			if (!strcmp(optarg, "off"))
				o->max_pause = 0;
			else if (parse_double(optarg, &o->max_pause) < 0 ||
				 o->max_pause < 0.01 || o->max_pause > 100)
				return options_fail(err, errlen,
					    "invalid --max-pause '%s': expected a percentage of wall time from 0.01 to 100, or 'off'",
					    optarg);
			break;
		case OPT_NO_REALTIME:
			o->no_realtime = true;
			break;
		case OPT_THREAD:
			if (options_thread_check(optarg, err, errlen) < 0)
				return OPTIONS_ERROR;
			o->thread_regex = optarg;
			break;
		case OPT_MAX_FRAMES: {
			char *end;
			unsigned long long n;

			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    n > UINT32_MAX / PROFILE_STRS_PER_FRAME)
				return options_fail(err, errlen,
					    "invalid --max-frames '%s': expected a whole number from 0 (no cap) to %u",
					    optarg,
					    UINT32_MAX / PROFILE_STRS_PER_FRAME);
			o->max_frames = (uint32_t)n;
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case OPT_DEBUG:
			o->debug = true;
			break;
		case 'h':
			return OPTIONS_HELP;
		case 'V':
			return OPTIONS_VERSION;
		default:
			return options_getopt_error(c, argv, err, errlen);
		}
	}
	if (options_outputs_resolve(&o->outputs, err, errlen) < 0)
		return OPTIONS_ERROR;
	o->output = o->outputs.v[0].path;
	o->format = o->outputs.v[0].format;
	if (optind < argc)
		o->command = &argv[optind];
	if (o->pid && o->command)
		return options_fail(err, errlen,
			    "give either -p PID or a command to launch, not both");
	if (!o->pid && !o->command)
		return options_fail(err, errlen,
			    "nothing to profile: give -p PID or -- COMMAND [ARGS...]");
	return OPTIONS_OK;
}
