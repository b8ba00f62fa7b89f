// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The stackprof writer: a golden file of the hostile profile, and the
 * shape stackprof and speedscope rely on: version 1.2, one timestamp
 * delta per sample, raw run-length counts adding up to the samples.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "writer_fixture.h"

/* The numbers of the JSON array after "key":[ up to its ]. */
static size_t
array_len(const char *json, const char *key, unsigned long *sum_counts)
{
	const char *p = strstr(json, key);
	size_t n = 0;

	ck_assert_ptr_nonnull(p);
	p = strchr(p, '[') + 1;
	while (*p && *p != ']') {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (sum_counts)
			*sum_counts += v;
		n++;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

START_TEST(test_golden)
{
	struct profile *p = fixture_hostile();
	size_t len;
	char *out = fixture_write(&output_stackprof, p, &len);

	fixture_golden("stackprof.golden", out, len);
	ck_assert_ptr_nonnull(strstr(out, "{\"version\":1.2,\"mode\":\"wall\","
					  "\"interval\":10000,\"samples\":14,"
					  "\"gc_samples\":1,"
					  "\"missed_samples\":2,"));
	ck_assert_uint_eq(array_len(out, "\"raw_timestamp_deltas\"", NULL), 14);
	free(out);
	profile_destroy(p);
}
END_TEST

/* rbspy's six stacks: raw is [1,1,1, 3,1,2,3,1, ...]: each run's length,
 * ids, count; the counts add up to the samples. */
START_TEST(test_raw)
{
	struct profile *p = fixture_rbspy();
	size_t len;
	char *out = fixture_write(&output_stackprof, p, &len);

	ck_assert_msg(strstr(out, "\"raw\":[1,1,1,3,1,2,3,1,2,1,2,1,"
				  "2,1,3,1,2,1,2,1,3,1,4,3,1]"), "%s", out);
	ck_assert_msg(strstr(out, "\"raw_lines\":[1,1,1,3,1,2,3,1,"
				  "2,1,2,1,2,1,3,1,2,1,2,1,3,1,42,3,1]"),
		      "%s", out);
	ck_assert_msg(strstr(out, "\"2\":{\"name\":\"func2\","
					  "\"file\":\"file2.rb\",\"line\":2,"
					  "\"total_samples\":3,\"samples\":2,"
					  "\"edges\":{\"3\":1},"
					  "\"lines\":{\"2\":[3,2]}}"),
		      "%s", out);
	free(out);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("stackprof");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_raw);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
