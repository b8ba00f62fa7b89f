// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The one escaping of text shown to a person (src/utf8.c): what a
 * target names (a thread, a path, its ruby_version) must not reach a
 * terminal as control characters, C1 included, nor as invalid UTF-8.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/utf8.h"

START_TEST(test_escape)
{
	char out[128];

	ck_assert_str_eq(utf8_escape("plain Caf\xc3\xa9 \xe2\x82\xac", out,
				     sizeof(out), 0),
			 "plain Caf\xc3\xa9 \xe2\x82\xac");
	/* OSC 0 (window title), then a newline that would fake a line. */
	ck_assert_str_eq(utf8_escape("\x1b]0;pwned\x07x\nrbflame: ok", out,
				     sizeof(out), 0),
			 "\\x1b]0;pwned\\x07x\\x0arbflame: ok");
	ck_assert_str_eq(utf8_escape("a\tb\rc\x7f", out, sizeof(out), 0),
			 "a\\x09b\\x0dc\\x7f");
	ck_assert_str_eq(utf8_escape("a\tb", out, sizeof(out), UTF8_KEEP_TAB),
			 "a\tb");
	/* C1: U+009B is CSI on terminals that take 8-bit controls. */
	ck_assert_str_eq(utf8_escape("x\xc2\x9b" "31m", out, sizeof(out), 0),
			 "x\\x9b31m");
	/* A lone 0x9b byte (invalid UTF-8) and a cut sequence. */
	ck_assert_str_eq(utf8_escape("x\x9b" "31m\xe2\x82", out, sizeof(out),
				     0),
			 "x\xef\xbf\xbd" "31m\xef\xbf\xbd\xef\xbf\xbd");
}
END_TEST

START_TEST(test_cut)
{
	char out[8];

	/* Never half a unit: "ab" + "\x1b" needs 6 + NUL. */
	ck_assert_str_eq(utf8_escape("ab\x1b" "cd", out, 7, 0), "ab\\x1b");
	ck_assert_str_eq(utf8_escape("ab\x1b" "cd", out, 6, 0), "ab");
	ck_assert_str_eq(utf8_escape("\xe2\x82\xac\xe2\x82\xac", out, 6, 0),
			 "\xe2\x82\xac");
	ck_assert_str_eq(utf8_escape("x", out, 1, 0), "");
}
END_TEST

START_TEST(test_put)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char big[5000];

	memset(big, '\x1b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	utf8_put_escaped(f, "t\x1b[2Jx", 0);
	utf8_put_escaped(f, big, 0);
	fclose(f);
	ck_assert_uint_eq(len, 9 + 4 * (sizeof(big) - 1));
	ck_assert(!strncmp(buf, "t\\x1b[2Jx\\x1b", 13));
	ck_assert_ptr_null(memchr(buf, '\x1b', len));
	free(buf);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("escape");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_put);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
