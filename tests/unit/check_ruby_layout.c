// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Choosing a generated layout by Ruby release (ruby_layout_find()): the
 * release's own, else the nearest release of the same X.Y, never another
 * X.Y; and every generated layout in the list, in order.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/ruby_layout.h"

START_TEST(test_exact)
{
	bool exact = false;
	const struct ruby_layout *L;

	for (int i = 0; ruby_layouts[i]; i++) {
		L = ruby_layout_find(ruby_layouts[i]->version, &exact);
		ck_assert_ptr_eq(L, ruby_layouts[i]);
		ck_assert(exact);
	}
	L = ruby_layout_find("3.1.7", &exact);
	ck_assert_ptr_nonnull(L);
	ck_assert_str_eq(L->version, "3.1.7");
	ck_assert(exact);
	L = ruby_layout_find("3.1.2", NULL);
	ck_assert_ptr_nonnull(L);
	ck_assert_str_eq(L->version, "3.1.2");
}
END_TEST

START_TEST(test_nearest)
{
	bool exact = true;
	const struct ruby_layout *L;

	/* 3.1.5 is 2 from 3.1.7 and 3 from 3.1.2. */
	L = ruby_layout_find("3.1.5", &exact);
	ck_assert_ptr_nonnull(L);
	ck_assert_str_eq(L->version, "3.1.7");
	ck_assert(!exact);
	L = ruby_layout_find("3.1.3", &exact);
	ck_assert_str_eq(L->version, "3.1.2");
	ck_assert(!exact);
	L = ruby_layout_find("3.1.99", &exact);
	ck_assert_str_eq(L->version, "3.1.7");
	L = ruby_layout_find("3.3.14", &exact);
	ck_assert_ptr_nonnull(L);
	ck_assert_int_eq(L->api_major, 3);
	ck_assert_int_eq(L->api_minor, 3);
	ck_assert(!exact);
	/* X.Y alone: the newest release of it. */
	L = ruby_layout_find("3.1", &exact);
	ck_assert_str_eq(L->version, "3.1.7");
	ck_assert(!exact);
}
END_TEST

START_TEST(test_none)
{
	bool exact = true;

	ck_assert_ptr_null(ruby_layout_find("3.2.4", &exact));
	ck_assert(!exact);
	ck_assert_ptr_null(ruby_layout_find("9.9.9", NULL));
	ck_assert_ptr_null(ruby_layout_find("three", NULL));
	ck_assert_ptr_null(ruby_layout_find("", NULL));
	ck_assert_ptr_null(ruby_layout_find(NULL, NULL));
	ck_assert_ptr_null(ruby_layout_find("3", NULL));
}
END_TEST

START_TEST(test_hiding)
{
	bool exact = true;
	const struct ruby_layout *L;

	L = ruby_layout_find_hiding("3.1.7", "3.1.7", &exact);
	ck_assert_ptr_nonnull(L);
	ck_assert_str_eq(L->version, "3.1.2");
	ck_assert(!exact);
	ck_assert_ptr_null(ruby_layout_find_hiding("3.1.7", "3.1", NULL));
	L = ruby_layout_find_hiding("3.1.7", "", &exact);
	ck_assert_str_eq(L->version, "3.1.7");
	ck_assert(exact);
}
END_TEST

START_TEST(test_list)
{
	char buf[256], small[12];
	size_t n;
	int prev_maj = 0, prev_min = 0, prev_teeny = -1;

	/* Oldest first, one per release, each a full X.Y.Z. */
	for (int i = 0; ruby_layouts[i]; i++) {
		int maj, min, teeny;

		ck_assert_int_eq(sscanf(ruby_layouts[i]->version, "%d.%d.%d",
					&maj, &min, &teeny),
				 3);
		ck_assert_int_eq(maj, ruby_layouts[i]->api_major);
		ck_assert_int_eq(min, ruby_layouts[i]->api_minor);
		ck_assert(maj > prev_maj || (maj == prev_maj && min > prev_min) ||
			  (maj == prev_maj && min == prev_min &&
			   teeny > prev_teeny));
		prev_maj = maj;
		prev_min = min;
		prev_teeny = teeny;
	}
	n = ruby_layout_list(buf, sizeof(buf));
	ck_assert_uint_eq(n, strlen(buf));
	ck_assert_ptr_nonnull(strstr(buf, "3.1.2, 3.1.7"));
	n = ruby_layout_list(small, sizeof(small));
	ck_assert_uint_lt(n, sizeof(small));
	ck_assert_uint_eq(n, strlen(small));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("ruby_layout");
	TCase *tc = tcase_create("find");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_nearest);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_hiding);
	tcase_add_test(tc, test_list);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
