// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Option parsing: defaults, ranges, launch vs attach, errors. */
#include "config.h"

#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/options.h"
#include "rbflame/output.h"
#include "rbflame/report.h"
#include "rbflame/run.h"

static struct options o;
static char err[256];
static const struct options_formats *formats = &output_formats;

/* Parses a NULL-terminated list of arguments after "rbflame". */
static enum options_result
parse_list(const char *first, ...)
{
	static char *argv[32];
	int argc = 0;
	const char *a;
	va_list ap;

	argv[argc++] = (char *)"rbflame";
	va_start(ap, first);
	for (a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return options_parse(argc, argv, formats, &o, err, sizeof(err));
}

#define PARSE(...) parse_list(__VA_ARGS__, (const char *)NULL)

/* A help text, as a string to free. */
static char *
help_text(void (*help)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	help(f);
	fclose(f);
	return buf;
}

/* Whether help (a function) mentions s. */
static bool
help_has(void (*help)(FILE *), const char *s)
{
	char *text = help_text(help);
	bool has = strstr(text, s) != NULL;

	free(text);
	return has;
}

START_TEST(test_defaults)
{
	ck_assert_int_eq(PARSE("-p", "42"), OPTIONS_OK);
	ck_assert_int_eq(o.pid, 42);
	ck_assert(o.rate == 99.0);
	ck_assert(o.duration == 0);
	ck_assert_str_eq(o.format, "collapsed");
	ck_assert_ptr_null(o.output);
	ck_assert(!o.threads);
	ck_assert(!o.cpu && !o.subprocesses && !o.nonblocking);
	ck_assert_ptr_null(o.command);
}
END_TEST

START_TEST(test_issue9_options)
{
	ck_assert_int_eq(PARSE("--subprocesses", "-p", "3"), OPTIONS_OK);
	ck_assert(o.subprocesses && !o.nonblocking);
	ck_assert_int_eq(PARSE("--nonblocking", "--", "ruby", "x.rb"),
			 OPTIONS_OK);
	ck_assert(o.nonblocking && !o.subprocesses);
	ck_assert_str_eq(o.command[0], "ruby");
	ck_assert_int_eq(PARSE("--subprocesses", "--nonblocking", "--mode",
			       "cpu", "-p", "3"), OPTIONS_OK);
	ck_assert(o.subprocesses && o.nonblocking && o.cpu);
	ck_assert(help_has(run_help, "--subprocesses"));
	ck_assert(help_has(run_help, "--nonblocking"));
}
END_TEST

START_TEST(test_all_options)
{
	ck_assert_int_eq(PARSE("--pid=7", "-s", "2.5", "-r", "1000", "-o",
			       "x.txt", "-f", "collapsed", "--threads", "-q"),
			 OPTIONS_OK);
	ck_assert_int_eq(o.pid, 7);
	ck_assert(o.duration == 2.5);
	ck_assert(o.rate == 1000);
	ck_assert_str_eq(o.output, "x.txt");
	ck_assert(o.threads && o.quiet);
}
END_TEST

/* Several targets: -p repeated, or PIDs joined by commas. */
START_TEST(test_pids)
{
	ck_assert_int_eq(PARSE("-p", "7"), OPTIONS_OK);
	ck_assert_int_eq(o.npids, 1);
	ck_assert_int_eq(o.pids[0], 7);
	ck_assert_int_eq(PARSE("-p", "7,9", "--pid", "11"), OPTIONS_OK);
	ck_assert_int_eq(o.pid, 7);
	ck_assert_int_eq(o.npids, 3);
	ck_assert_int_eq(o.pids[1], 9);
	ck_assert_int_eq(o.pids[2], 11);
	ck_assert_int_eq(PARSE("-p", "7,7"), OPTIONS_ERROR);
	ck_assert_str_eq(err, "PID 7 given twice");
	ck_assert_int_eq(PARSE("-p", "7", "-p", "7"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "7,"), OPTIONS_ERROR);
	ck_assert(strstr(err, "invalid PID '7,'") != NULL);
	ck_assert_int_eq(PARSE("-p", ",7"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "7,,9"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "7,x"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "7,0"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "7,9", "--", "ls"), OPTIONS_ERROR);
}
END_TEST

START_TEST(test_launch)
{
	ck_assert_int_eq(PARSE("-s", "1", "--", "ruby", "-e", "1"), OPTIONS_OK);
	ck_assert_ptr_nonnull(o.command);
	ck_assert_str_eq(o.command[0], "ruby");
	ck_assert_str_eq(o.command[1], "-e");
	ck_assert_ptr_null(o.command[3]);
	/* Options of the command are not ours. */
	ck_assert_int_eq(PARSE("ls", "-p", "1"), OPTIONS_OK);
	ck_assert_int_eq(o.pid, 0);
	ck_assert_str_eq(o.command[1], "-p");
}
END_TEST

START_TEST(test_errors)
{
	ck_assert_int_eq(PARSE("-p", "abc"), OPTIONS_ERROR);
	ck_assert(strstr(err, "invalid PID") != NULL);
	ck_assert_int_eq(PARSE("-p", "0"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "-r", "0"), OPTIONS_ERROR);
	ck_assert(strstr(err, "rate") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "-r", "100000"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "-r", "nan"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "-s", "-3"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "-s", "3x"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "-f", "nope"), OPTIONS_ERROR);
	ck_assert(strstr(err, "collapsed") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--bogus"), OPTIONS_ERROR);
	ck_assert(strstr(err, "--bogus") != NULL);
	ck_assert_int_eq(PARSE("-x"), OPTIONS_ERROR);
	ck_assert(strstr(err, "-x") != NULL);
	ck_assert_int_eq(PARSE("-p"), OPTIONS_ERROR);
	ck_assert(strstr(err, "argument") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--", "ls"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "--mode", "cpu"), OPTIONS_OK);
	ck_assert(o.cpu);
	ck_assert_int_eq(PARSE("-p", "1", "--mode", "wall"), OPTIONS_OK);
	ck_assert(!o.cpu);
	ck_assert_int_eq(PARSE("-p", "1", "--mode", "idle"), OPTIONS_ERROR);
	ck_assert(strstr(err, "wall or cpu") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--force-version", "3.3"), OPTIONS_OK);
	ck_assert_str_eq(o.force_version, "3.3");
	ck_assert_int_eq(PARSE("-p", "1", "--force-version", "3.3.8"),
			 OPTIONS_OK);
	ck_assert_int_eq(PARSE("-p", "1", "--force-version", "three"),
			 OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "--force-version", "3.3x"),
			 OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-q"), OPTIONS_ERROR);
	ck_assert(strstr(err, "nothing to profile") != NULL);
}
END_TEST

START_TEST(test_native)
{
	ck_assert_int_eq(PARSE("-p", "1"), OPTIONS_OK);
	ck_assert(!o.native && !o.native_all);
	ck_assert_int_eq(PARSE("-p", "1", "--native"), OPTIONS_OK);
	ck_assert(o.native && !o.native_all);
	/* --native-all implies --native. */
	ck_assert_int_eq(PARSE("-p", "1", "--native-all"), OPTIONS_OK);
	ck_assert(o.native && o.native_all);
	ck_assert(help_has(run_help, "--native-all"));
}
END_TEST

/* --thread REGEX: kept as given once it compiles; a bad one is an error
 * naming the option. */
START_TEST(test_thread_filter)
{
	ck_assert_int_eq(PARSE("-p", "1"), OPTIONS_OK);
	ck_assert_ptr_null(o.thread_regex);
	ck_assert_int_eq(PARSE("-p", "1", "--thread", "^(puma|42$)"),
			 OPTIONS_OK);
	ck_assert_str_eq(o.thread_regex, "^(puma|42$)");
	ck_assert_int_eq(PARSE("-p", "1", "--thread", "a[b"), OPTIONS_ERROR);
	ck_assert(strstr(err, "invalid --thread pattern 'a[b'") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--thread", ""), OPTIONS_ERROR);
	ck_assert(strstr(err, "empty --thread pattern") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--thread"), OPTIONS_ERROR);
	ck_assert(help_has(run_help, "--thread REGEX"));
}
END_TEST

/* --max-pause PCT: a percentage of wall time, 0.01 to 100; none by
 * default or with "off". */
START_TEST(test_max_pause)
{
	ck_assert_int_eq(PARSE("-p", "1"), OPTIONS_OK);
	ck_assert(o.max_pause == 0);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "2", "--max-pause",
			       "off"), OPTIONS_OK);
	ck_assert(o.max_pause == 0);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "1"), OPTIONS_OK);
	ck_assert(o.max_pause == 1);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "0.5"), OPTIONS_OK);
	ck_assert(o.max_pause == 0.5);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "0"), OPTIONS_ERROR);
	ck_assert(strstr(err, "invalid --max-pause '0': expected a percentage of wall time from 0.01 to 100, or 'off'") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "101"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "1%"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "--max-pause", "of"), OPTIONS_ERROR);
	ck_assert(help_has(run_help, "--max-pause PCT"));
}
END_TEST

/* Views: --title, --icicle, --limit, --match. */
START_TEST(test_views)
{
	ck_assert_int_eq(PARSE("-p", "1", "-f", "svg"), OPTIONS_OK);
	ck_assert_ptr_null(o.view.title);
	ck_assert(!o.view.icicle);
	ck_assert_uint_eq(o.view.limit, 0);
	ck_assert_int_eq(PARSE("-p", "1", "-f", "svg", "--title", "T",
			       "--icicle", "--limit", "12", "--match",
			       "A#(b|c)$"),
			 OPTIONS_OK);
	ck_assert_str_eq(o.view.title, "T");
	ck_assert(o.view.icicle);
	ck_assert_uint_eq(o.view.limit, 12);
	ck_assert_str_eq(o.view.regex, "A#(b|c)$");
	ck_assert_int_eq(PARSE("-p", "1", "--limit", "0"), OPTIONS_ERROR);
	ck_assert(strstr(err, "invalid limit") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--limit", "5x"), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "--match", "("), OPTIONS_ERROR);
	ck_assert(strstr(err, "invalid --match pattern") != NULL);
	ck_assert_int_eq(PARSE("-p", "1", "--match", ""), OPTIONS_ERROR);
	ck_assert_int_eq(PARSE("-p", "1", "-f", "summary"), OPTIONS_OK);
	ck_assert_int_eq(PARSE("-p", "1", "-f", "dot"), OPTIONS_OK);
	ck_assert_int_eq(PARSE("-p", "1", "-f", "lines"), OPTIONS_OK);
	ck_assert_int_eq(PARSE("-p", "1", "-f", "annotate"), OPTIONS_OK);
	ck_assert_int_eq(PARSE("-p", "1", "-o", "x.svg"), OPTIONS_OK);
	ck_assert_str_eq(o.outputs.v[0].format, "svg");
	ck_assert_int_eq(PARSE("-p", "1", "-o", "x.dot"), OPTIONS_OK);
	ck_assert_str_eq(o.outputs.v[0].format, "dot");
}
END_TEST

START_TEST(test_help_version)
{
	ck_assert_int_eq(PARSE("-h"), OPTIONS_HELP);
	ck_assert_int_eq(PARSE("--help"), OPTIONS_HELP);
	ck_assert_int_eq(PARSE("-V"), OPTIONS_VERSION);
	ck_assert(help_has(run_help, "Sampling:"));
	ck_assert(help_has(run_help, "Output:"));
}
END_TEST

/*
 * Both help texts list every writer of the table with its description
 * and the file names that imply it, the default marked, in 80 columns:
 * a new writer shows without touching them.
 */
START_TEST(test_help_formats)
{
	void (*const helps[])(FILE *) = { run_help, report_help };

	for (size_t h = 0; h < 2; h++) {
		char *text = help_text(helps[h]), *line, *save = NULL;
		char *flat = strdup(text);
		char want[128];
		size_t j = 0;

		ck_assert(strstr(text, "\nFormats (-f FMT"));
		/* The text with lines joined, for wrapped entries. */
		for (size_t i = 0; text[i]; i++) {
			if (text[i] == '\n' || text[i] == ' ') {
				if (j && flat[j - 1] != ' ')
					flat[j++] = ' ';
				continue;
			}
			flat[j++] = text[i];
		}
		flat[j] = '\0';
		for (size_t i = 0; output_at(i); i++) {
			const struct output_ops *w = output_at(i);

			snprintf(want, sizeof(want), "\n  %s%s ", w->name,
				 w == OUTPUT_DEFAULT ? " (default)" : "");
			ck_assert_msg(strstr(text, want), "no entry for %s",
				      w->name);
			ck_assert_msg(strstr(flat, w->description),
				      "no description of %s", w->name);
			for (const char *const *s = w->suffixes; s && *s;
			     s++) {
				snprintf(want, sizeof(want), " *%s", *s);
				ck_assert_msg(strstr(flat, want),
					      "%s not in the help", want);
			}
			for (const char *const *s = w->prefixes; s && *s;
			     s++) {
				snprintf(want, sizeof(want), " %s*", *s);
				ck_assert_msg(strstr(flat, want),
					      "%s not in the help", want);
			}
		}
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			ck_assert_msg(strlen(line) < 80, "too long: %s", line);
		free(flat);
		free(text);
	}
}
END_TEST

/* ---- outputs (issue #6) ---- */
START_TEST(test_outputs)
{
	ck_assert_int_eq(PARSE("-p", "1", "-o", "a.rbflame", "-o", "b.txt",
			       "-o", "c.speedscope.json", "-o", "d.json",
			       "-o", "e.stackprof.json", "-o", "x/callgrind.out.7",
			       "-o", "f.callgrind", "-o", "g.pb.gz", "-o",
			       "h.samplingprof", "-o", "i.collapsed", "-o",
			       "unknown.out"),
			 OPTIONS_OK);
	ck_assert_uint_eq(o.outputs.n, 11);
	ck_assert_str_eq(o.outputs.v[0].format, "raw");
	ck_assert_str_eq(o.outputs.v[1].format, "collapsed");
	ck_assert_str_eq(o.outputs.v[2].format, "speedscope");
	ck_assert_str_eq(o.outputs.v[3].format, "speedscope");
	ck_assert_str_eq(o.outputs.v[4].format, "stackprof");
	ck_assert_str_eq(o.outputs.v[5].format, "callgrind");
	ck_assert_str_eq(o.outputs.v[6].format, "callgrind");
	ck_assert_str_eq(o.outputs.v[7].format, "pprof");
	ck_assert_str_eq(o.outputs.v[8].format, "samplingprof");
	ck_assert_str_eq(o.outputs.v[9].format, "collapsed");
	ck_assert_str_eq(o.outputs.v[10].format, "collapsed");
	ck_assert_str_eq(o.output, "a.rbflame");
	ck_assert_str_eq(o.format, "raw");
	/* -f applies to the next -o; the rest go by name. */
	ck_assert_int_eq(PARSE("-p", "1", "-f", "pprof", "-o", "a.txt", "-o",
			       "b.txt"),
			 OPTIONS_OK);
	ck_assert_str_eq(o.outputs.v[0].format, "pprof");
	ck_assert_str_eq(o.outputs.v[1].format, "collapsed");
	/* A -f after the last -o: every -o without one. */
	ck_assert_int_eq(PARSE("-p", "1", "-o", "a.txt", "-f", "stackprof"),
			 OPTIONS_OK);
	ck_assert_str_eq(o.format, "stackprof");
	/* No -o: standard output in the -f format. */
	ck_assert_int_eq(PARSE("-p", "1", "-f", "speedscope"), OPTIONS_OK);
	ck_assert_uint_eq(o.outputs.n, 1);
	ck_assert_ptr_null(o.outputs.v[0].path);
	ck_assert_str_eq(o.format, "speedscope");
	ck_assert_int_eq(PARSE("-p", "1", "-o", "a", "-o", "a"), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "given twice"));
	ck_assert_int_eq(PARSE("-p", "1", "-f", "nope"), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "speedscope"));
}
END_TEST

static enum options_result
report_list(struct report_options *r, int argc, const char **args)
{
	char *argv[16];

	for (int i = 0; i < argc; i++)
		argv[i] = (char *)args[i];
	argv[argc] = NULL;
	return report_parse(argc, argv, r, err, sizeof(err));
}

START_TEST(test_report)
{
	struct report_options r;
	const char *ok[] = { "report", "-i", "p.rbflame", "-o", "a.pb.gz",
			     "-f", "collapsed", "-o", "b.json" };
	const char *no_input[] = { "report", "-o", "x.txt" };
	const char *extra[] = { "report", "-i", "a", "b" };

	ck_assert_int_eq(report_list(&r, 9, ok), OPTIONS_OK);
	ck_assert_str_eq(r.input, "p.rbflame");
	ck_assert_uint_eq(r.outputs.n, 2);
	ck_assert_str_eq(r.outputs.v[0].format, "pprof");
	ck_assert_str_eq(r.outputs.v[1].format, "collapsed");
	ck_assert_int_eq(report_list(&r, 3, no_input), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "-i FILE"));
	ck_assert_int_eq(report_list(&r, 4, extra), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "'b'"));
}
END_TEST

/* The formats come from the caller: a table of two, "a" and "b". */
static bool
ab_known(const char *name)
{
	return !strcmp(name, "a") || !strcmp(name, "b");
}

static const char *
ab_for_file(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && !strcmp(path + n - 2, ".b") ? "b" : NULL;
}

static const char *
ab_names(void)
{
	return "a, b";
}

static const char *
ab_default(void)
{
	return "a";
}

START_TEST(test_formats_given)
{
	static const struct options_formats ab = {
		.known = ab_known,
		.for_file = ab_for_file,
		.names = ab_names,
		.default_name = ab_default,
	};

	formats = &ab;
	ck_assert_int_eq(PARSE("-p", "1", "-f", "a", "-o", "x", "-o", "y.b"),
			 OPTIONS_OK);
	ck_assert_str_eq(o.outputs.v[0].format, "a");
	ck_assert_str_eq(o.outputs.v[1].format, "b");
	ck_assert_int_eq(PARSE("-p", "1", "-f", "svg"), OPTIONS_ERROR);
	ck_assert_str_eq(err, "unknown format 'svg': choose one of: a, b");
	formats = &output_formats;
}
END_TEST

/* Sources of a recording: only under a root the user names. */
START_TEST(test_report_source_root)
{
	struct report_options r;
	const char *none[] = { "report", "-i", "p.rbflame", "-f", "annotate" };
	const char *dir[] = { "report", "-i", "p.rbflame", "-f", "annotate",
			      "--source-root", "/srv/app" };
	const char *empty[] = { "report", "-i", "p", "--source-root", "" };

	ck_assert_int_eq(report_list(&r, 5, none), OPTIONS_OK);
	ck_assert_ptr_null(r.source_root);
	ck_assert_ptr_null(r.view.sources);
	ck_assert_int_eq(report_list(&r, 7, dir), OPTIONS_OK);
	ck_assert_str_eq(r.source_root, "/srv/app");
	ck_assert_int_eq(report_list(&r, 5, empty), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--source-root"));
}
END_TEST
/* ---- end of outputs ---- */

int
main(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_issue9_options);
	tcase_add_test(tc, test_all_options);
	tcase_add_test(tc, test_pids);
	tcase_add_test(tc, test_launch);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_native);
	tcase_add_test(tc, test_views);
	tcase_add_test(tc, test_thread_filter);
	tcase_add_test(tc, test_help_version);
	tcase_add_test(tc, test_help_formats);
	tcase_add_test(tc, test_outputs);
	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_formats_given);
	tcase_add_test(tc, test_report_source_root);
	tcase_add_test(tc, test_max_pause);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
