// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The writer table (src/output.c, OUTPUT_WRITERS): every entry is the
 * writer of that name, with one write function and a description; the
 * default is in it; file names imply the right writer.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/output.h"

START_TEST(test_table)
{
	static const struct {
		const char *name;
		const struct output_ops *ops;
	} listed[] = {
#define LISTED(n) { #n, &output_##n },
		OUTPUT_WRITERS(LISTED)
#undef LISTED
	};
	size_t n = sizeof(listed) / sizeof(listed[0]);
	bool have_default = false;

	for (size_t i = 0; i < n; i++) {
		const struct output_ops *w = output_at(i);

		ck_assert_ptr_eq(w, listed[i].ops);
		ck_assert_str_eq(w->name, listed[i].name);
		ck_assert_ptr_eq(output_find(w->name), w);
		ck_assert_msg(!w->write != !w->write_opts,
			      "%s: set exactly one of write, write_opts",
			      w->name);
		ck_assert_msg(w->description && *w->description,
			      "%s: no description", w->name);
		if (w == OUTPUT_DEFAULT)
			have_default = true;
	}
	ck_assert_ptr_null(output_at(n));
	ck_assert(have_default);
	ck_assert_ptr_null(output_find("no-such-format"));
}
END_TEST

/* Each file name a writer claims implies that writer (the longest
 * ending wins: .speedscope.json over .json). */
START_TEST(test_file_names)
{
	for (size_t i = 0; output_at(i); i++) {
		const struct output_ops *w = output_at(i);
		char path[256];

		for (const char *const *s = w->suffixes; s && *s; s++) {
			snprintf(path, sizeof(path), "/tmp/p%s", *s);
			ck_assert_msg(output_for_file(path) == w,
				      "%s does not imply %s", path, w->name);
		}
		for (const char *const *s = w->prefixes; s && *s; s++) {
			snprintf(path, sizeof(path), "/tmp/%sp", *s);
			ck_assert_msg(output_for_file(path) == w,
				      "%s does not imply %s", path, w->name);
		}
	}
	ck_assert_ptr_null(output_for_file("/tmp/p.unknown"));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("table");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_file_names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
