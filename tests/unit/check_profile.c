// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Aggregation: stacks are stored once, counted, and logged per sample. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "rbflame/profile.h"

START_TEST(test_aggregate)
{
	struct profile *p = profile_create();
	uint32_t a = profile_frame(p, "main"), b = profile_frame(p, "f"),
		 c = profile_frame(p, "g");
	uint32_t s1[] = { a, b }, s2[] = { a, b, c }, s3[] = { a, b };

	ck_assert_uint_eq(profile_frame(p, "main"), a);
	ck_assert_str_eq(profile_frame_name(p, c), "g");
	ck_assert_uint_eq(profile_add(p, 1, 10, s1, 2), 0);
	ck_assert_uint_eq(profile_add(p, 2, 10, s2, 3), 1);
	ck_assert_uint_eq(profile_add(p, 3, 11, s3, 2), 0);
	ck_assert_uint_eq(p->nstacks, 2);
	ck_assert_uint_eq(p->stacks[0].count, 2);
	ck_assert_uint_eq(p->stacks[1].count, 1);
	ck_assert_uint_eq(p->nsamples, 3);
	ck_assert_uint_eq(p->samples[2].tid, 11);
	ck_assert_uint_eq(profile_total(p), 3);
	/* A prefix is a different stack. */
	ck_assert_uint_eq(profile_add_count(p, s1, 1, 5), 2);
	ck_assert_uint_eq(profile_total(p), 8);
	profile_destroy(p);
}
END_TEST

START_TEST(test_many)
{
	struct profile *p = profile_create();
	uint32_t fr[3];

	/* Enough distinct stacks and names to force rehashing. */
	for (int i = 0; i < 20000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i % 5000);
		fr[0] = profile_frame(p, "root");
		fr[1] = profile_frame(p, name);
		fr[2] = (uint32_t)(i % 7);
		profile_add(p, i, 1, fr, 3);
	}
	ck_assert_uint_eq(profile_total(p), 20000);
	ck_assert_uint_le(p->nstacks, 5000 * 7);
	ck_assert_uint_eq(intern_count(p->names), 5001);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("aggregate");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_aggregate);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
