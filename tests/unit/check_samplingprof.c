// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The SamplingProf writer: rbspy's six stacks give known elements,
 * counts and call graph; the hostile profile a golden file.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "writer_fixture.h"

START_TEST(test_rbspy)
{
	struct profile *p = fixture_rbspy();
	size_t len;
	char *out = fixture_write(&output_samplingprof, p, &len);

	/* Runtime: 6 samples at the 99 Hz default period, in ms. */
	ck_assert_str_eq(out, "60\n\n"
			      "file1.rb:1:func1,0\n"
			      "file2.rb:2:func2,1\n"
			      "file3.rb:3:func3,2\n"
			      "file1.rb:42:funcX,3\n\n"
			      "0,1,6\n1,2,3\n2,3,3\n3,0,1\n\n"
			      "0,1,3\n0,2,1\n0,3,1\n1,2,1\n3,2,1\n");
	free(out);
	profile_destroy(p);
}
END_TEST

START_TEST(test_golden)
{
	struct profile *p = fixture_hostile();
	size_t len;
	char *out = fixture_write(&output_samplingprof, p, &len);

	fixture_golden("samplingprof.golden", out, len);
	free(out);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("samplingprof");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_rbspy);
	tcase_add_test(tc, test_golden);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
