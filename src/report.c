// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * 'rbflame report -i FILE -f FMT [-o OUT]...': load a profile (load.c
 * sniffs raw or collapsed) and hand it to the same writers, through the
 * same output code, as a profiling run: from a raw recording the bytes
 * equal the run's own. The argument parser is pure, for unit tests.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rbflame/error.h"
#include "rbflame/load.h"
#include "rbflame/output.h"
#include "rbflame/report.h"
#include "rbflame/run.h"
#include "rbflame/tfile.h"

static const char help_head[] =
"Usage: rbflame report -i FILE [-f FMT] [-o OUT]...\n"
"Convert a profile into other formats: a recording (rbflame -f raw, any\n"
"format can be made from it, byte for byte as the run would have\n"
"written it) or collapsed stacks (no times or threads: the formats that\n"
"show them get one untimed profile).\n"
"\n"
"  -i, --input FILE       the profile to read ('-': standard input)\n"
"  -o, --output OUT       write to OUT (default: stdout; '-' too), renamed\n"
"                         into place once complete, never through a\n"
"                         symlink; may be repeated\n"
"  -f, --format FMT       the format (see Formats) of the next -o (after\n"
"                         the last -o: of each -o without one); an -o\n"
"                         without -f takes the format its name implies\n"
"      --title TEXT       svg: the title\n"
"      --icicle           svg: roots at the top\n"
"      --limit N          summary, lines, dot, annotate: the N heaviest\n"
"      --match REGEX      annotate: the functions whose name matches\n"
"      --source-root DIR  annotate: read the recorded source files under\n"
"                         DIR (/ for this machine's own); without it no\n"
"                         source is read: the paths are the target's\n"
"  -q, --quiet            no notices\n"
"  -h, --help             show this help and exit\n"
"\n";

void
report_help(FILE *f)
{
	fputs(help_head, f);
	output_help(f);
}

enum options_result
report_parse(int argc, char **argv, struct report_options *r, char *err,
	     size_t errlen)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "source-root", required_argument, NULL, REPORT_SOURCE_ROOT },
		OPTIONS_VIEW_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(r, 0, sizeof(*r));
	r->outputs.formats = &output_formats;
	err[0] = '\0';
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:f:qh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'i':
			if (!*optarg)
				return options_fail(err, errlen, "empty input file name");
			r->input = optarg;
			break;
		case 'o':
			if (options_output_add(&r->outputs, optarg, err,
					       errlen) < 0)
				return OPTIONS_ERROR;
			break;
		case 'f':
			if (options_format_set(&r->outputs, optarg, err,
					       errlen) < 0)
				return OPTIONS_ERROR;
			break;
		case 'q':
			r->quiet = true;
			break;
		case REPORT_SOURCE_ROOT:
			if (!*optarg)
				return options_fail(err, errlen,
						    "empty --source-root directory");
			r->source_root = optarg;
			break;
		case OPTIONS_VIEW_TITLE:
		case OPTIONS_VIEW_ICICLE:
		case OPTIONS_VIEW_LIMIT:
		case OPTIONS_VIEW_MATCH:
			if (options_view_parse(c, optarg, &r->view, err,
					       errlen) < 0)
				return OPTIONS_ERROR;
			break;
		case 'h':
			return OPTIONS_HELP;
		default:
			return options_getopt_error(c, argv, err, errlen);
		}
	}
	if (optind < argc)
		return options_fail(err, errlen, "unexpected argument '%s'",
			    argv[optind]);
	if (!r->input)
		return options_fail(err, errlen,
			    "report: give the profile to read with -i FILE");
	if (options_outputs_resolve(&r->outputs, err, errlen) < 0)
		return OPTIONS_ERROR;
	return OPTIONS_OK;
}

int
report_main(int argc, char **argv)
{
	struct report_options r;
	struct tfile_root *sources = NULL;
	struct profile *p;
	struct outfile *outs[OPTIONS_MAX_OUTPUTS] = { 0 };
	char err[512];
	int fmt, code = 0;

	switch (report_parse(argc, argv, &r, err, sizeof(err))) {
	case OPTIONS_HELP:
		report_help(stdout);
		return 0;
	case OPTIONS_ERROR:
		error_msg_and_help("%s", err);
	default:
		break;
	}
	quiet_enabled = r.quiet;
	/* A recording names files of another machine, chroot or user:
	 * they are read only under a root the user names. */
	if (r.source_root) {
		sources = tfile_root_dir(r.source_root);
		if (!sources) {
			perror_msg("--source-root '%s'", r.source_root);
			return 1;
		}
		r.view.sources = sources;
	}
	p = profile_create();
	fmt = profile_load_file(p, r.input, err, sizeof(err));
	if (fmt < 0) {
		error_msg("%s", err);
		profile_destroy(p);
		return 1;
	}
	if (profile_total(p) == 0)
		notice_msg("%s holds no samples", r.input);
	if (p->samples_dropped)
		notice_msg("%s: %llu samples past the first %u are counted in their stacks only: timed formats leave them out",
			   r.input, (unsigned long long)p->samples_dropped,
			   LOAD_MAX_SAMPLES);
	for (size_t i = 0; i < r.outputs.n && !sources; i++)
		if (!strcmp(r.outputs.v[i].format, "annotate")) {
			notice_msg("annotate: no source file is read without --source-root DIR (/ for this machine's own files)");
			break;
		}
	if (run_open_outputs(&r.outputs, outs) < 0 ||
	    run_write_outputs(&r.outputs, outs, p, &r.view) < 0)
		code = 1;
	profile_destroy(p);
	tfile_root_destroy(sources);
	return code;
}
