// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The writer table (src/output.c, OUTPUT_WRITERS): every entry is the
 * writer of that name, with one write function and a description; the
 * default is in it; file names imply the right writer; the man page and
 * README, prose, name them all.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/output.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

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

/* Reads a file of the source tree whole. */
static char *
slurp(const char *name)
{
	char path[4096], *buf = NULL;
	size_t len = 0;
	FILE *f, *m = open_memstream(&buf, &len);
	int c;

	snprintf(path, sizeof(path), "%s/%s", SRCDIR, name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/*
 * The prose about formats, which no table generates: rbflame(1) names
 * every format (\fBNAME\fR) and the file names that imply it
 * (\fI.svg\fR), README every format (`NAME` or -f NAME).
 */
START_TEST(test_documented)
{
	char *man = slurp("rbflame.1"), *readme = slurp("README");
	char want[128], alt[128];

	for (size_t i = 0; output_at(i); i++) {
		const struct output_ops *w = output_at(i);

		snprintf(want, sizeof(want), "\\fB%s\\fR", w->name);
		ck_assert_msg(strstr(man, want), "rbflame.1 lacks %s", want);
		snprintf(want, sizeof(want), "`%s`", w->name);
		snprintf(alt, sizeof(alt), "-f %s", w->name);
		ck_assert_msg(strstr(readme, want) || strstr(readme, alt),
			      "README lacks the format %s", w->name);
		for (const char *const *s = w->suffixes; s && *s; s++) {
			snprintf(want, sizeof(want), "\\fI%s\\fR", *s);
			ck_assert_msg(strstr(man, want), "rbflame.1 lacks %s",
				      want);
		}
		for (const char *const *s = w->prefixes; s && *s; s++) {
			snprintf(want, sizeof(want), "\\fI%s*\\fR", *s);
			ck_assert_msg(strstr(man, want), "rbflame.1 lacks %s",
				      want);
		}
	}
	free(readme);
	free(man);
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
	tcase_add_test(tc, test_documented);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
