// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Option parsing: defaults, ranges, launch vs attach, errors. */
#include "config.h"

#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/options.h"

static struct options o;
static char err[256];

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
	return options_parse(argc, argv, &o, err, sizeof(err));
}

#define PARSE(...) parse_list(__VA_ARGS__, (const char *)NULL)

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
	ck_assert(strstr(options_help, "--subprocesses") != NULL);
	ck_assert(strstr(options_help, "--nonblocking") != NULL);
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

START_TEST(test_help_version)
{
	ck_assert_int_eq(PARSE("-h"), OPTIONS_HELP);
	ck_assert_int_eq(PARSE("--help"), OPTIONS_HELP);
	ck_assert_int_eq(PARSE("-V"), OPTIONS_VERSION);
	ck_assert(strstr(options_help, "Sampling:") != NULL);
	ck_assert(strstr(options_help, "Output:") != NULL);
}
END_TEST

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
	tcase_add_test(tc, test_launch);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_help_version);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
