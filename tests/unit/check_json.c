// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The JSON emitter: commas and nesting, escaping of quotes, backslashes
 * and control characters, invalid UTF-8 replaced by U+FFFD, numbers.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/json.h"

static char *
escaped(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n;
	FILE *f = open_memstream(&buf, &n);

	json_escape(f, s, len);
	fclose(f);
	return buf;
}

START_TEST(test_escape)
{
	char *s;

	s = escaped("a\"b\\c", 5);
	ck_assert_str_eq(s, "a\\\"b\\\\c");
	free(s);
	s = escaped("l\n\r\t\x01\x7f", 6);
	ck_assert_str_eq(s, "l\\n\\r\\t\\u0001\\u007f");
	free(s);
	/* Invalid bytes, a lone continuation, a surrogate, an overlong
	 * slash, a truncated sequence: each bad byte is one U+FFFD. */
	s = escaped("\xff", 1);
	ck_assert_str_eq(s, "\xef\xbf\xbd");
	free(s);
	s = escaped("\xed\xa0\x80", 3);
	ck_assert_str_eq(s, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = escaped("\xc0\xaf", 2);
	ck_assert_str_eq(s, "\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = escaped("caf\xc3", 4);
	ck_assert_str_eq(s, "caf\xef\xbf\xbd");
	free(s);
	/* Valid multi-byte text passes through. */
	s = escaped("caf\xc3\xa9 \xf0\x9f\x94\xa5", 10);
	ck_assert_str_eq(s, "caf\xc3\xa9 \xf0\x9f\x94\xa5");
	free(s);
	/* A NUL byte inside the length is escaped, not a terminator. */
	s = escaped("a\0b", 3);
	ck_assert_str_eq(s, "a\\u0000b");
	free(s);
}
END_TEST

START_TEST(test_document)
{
	char *buf = NULL;
	size_t n;
	FILE *f = open_memstream(&buf, &n);
	struct json j;

	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "a");
	json_array_begin(&j);
	json_uint(&j, 1);
	json_int(&j, -2);
	json_double(&j, 0.5);
	json_double(&j, NAN);
	json_double(&j, 3.0);
	json_array_end(&j);
	json_key(&j, "b\"");
	json_object_begin(&j);
	json_object_end(&j);
	json_key(&j, "c");
	json_array_begin(&j);
	json_array_end(&j);
	json_key(&j, "d");
	json_string(&j, "x");
	json_key(&j, "e");
	json_bool(&j, true);
	json_key(&j, "f");
	json_null(&j);
	json_object_end(&j);
	fclose(f);
	ck_assert_str_eq(buf, "{\"a\":[1,-2,0.5,null,3],\"b\\\"\":{},\"c\":[],"
			      "\"d\":\"x\",\"e\":true,\"f\":null}");
	free(buf);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("emitter");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_document);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
