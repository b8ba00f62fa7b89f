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

/* check: "NAME=VALUE" applied to a copy of the newest layout fails the
 * check, naming NAME. */
static void
assert_refused(const char *name, int64_t v)
{
	const struct ruby_layout_field *f = ruby_layout_field(name);
	struct ruby_layout L;
	char why[160] = "";
	int i = 0;

	while (ruby_layouts[i + 1])
		i++;
	L = *ruby_layouts[i];
	ck_assert_ptr_nonnull(f);
	switch (f->type) {
	case RUBY_FIELD_U16:
		*(uint16_t *)((char *)&L + f->offset) = (uint16_t)v;
		break;
	case RUBY_FIELD_U8:
		*(uint8_t *)((char *)&L + f->offset) = (uint8_t)v;
		break;
	default:
		ck_assert_int_eq(ruby_layout_set(&L, f, v), 0);
		break;
	}
	ck_assert_int_eq(ruby_layout_check(&L, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, name), "%s=%lld: %s", name, (long long)v,
		      why);
}

START_TEST(test_check)
{
	const struct ruby_layout *last = NULL;
	char why[160];

	/* Every built-in layout passes. */
	for (int i = 0; ruby_layouts[i]; i++) {
		why[0] = '\0';
		ck_assert_msg(ruby_layout_check(ruby_layouts[i], why,
						sizeof(why)) == 0,
			      "%s: %s", ruby_layouts[i]->version, why);
		last = ruby_layouts[i];
	}
	ck_assert_ptr_nonnull(last);
	/* What a hostile debug file could say: a control frame member
	 * beyond the frame (the reader indexes its local copy of the
	 * frames with it), unaligned, or missing; a frame of no size; a
	 * bitfield beyond its struct; a shift past the word. */
	assert_refused("cfp_ep", last->sizeof_control_frame);
	assert_refused("cfp_pc", last->sizeof_control_frame - 4);
	assert_refused("cfp_iseq", 4);
	assert_refused("cfp_sp", RUBY_LAYOUT_NONE);
	assert_refused("sizeof_control_frame", 0);
	assert_refused("sizeof_control_frame", 60);
	assert_refused("sizeof_control_frame", 65000);
	assert_refused("thread_status_width", 40);
	assert_refused("special_shift", 64);
	assert_refused("thread_ec", 60000);
	assert_refused("id_entry_unit", 0);	/* a divisor */
	assert_refused("id_entry_str", 64);
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
	tcase_add_test(tc, test_check);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
