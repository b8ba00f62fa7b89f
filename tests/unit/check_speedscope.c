// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The speedscope writer: a golden file of the hostile profile (one
 * sampled profile per thread plus one for the samples without times,
 * names escaped into valid UTF-8 JSON).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "writer_fixture.h"

static size_t
count(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

START_TEST(test_golden)
{
	struct profile *p = fixture_hostile();
	size_t len;
	char *out = fixture_write(&output_speedscope, p, &len);

	fixture_golden("speedscope.golden", out, len);
	ck_assert_uint_eq(count(out, "\"type\":\"sampled\""), 3);
	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"thread 4243 \\\"w\\\"q;"
					  "\xef\xbf\xbd\\n\\\"\""));
	ck_assert_ptr_nonnull(strstr(out, "\"startValue\":1000,"
					  "\"endValue\":50001000,"));
	ck_assert(strchr(out, '\xff') == NULL);
	free(out);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("speedscope");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_golden);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
