// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Loading profiles: collapsed text (CRLF, blank lines, spaces in frames,
 * errors with their line, frames read back into label, file and line),
 * the sniffer's refusals, and hostile input that must end in an error,
 * never a crash.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/load.h"
#include "rbflame/profile.h"

static int
load(struct profile **pp, const char *text, size_t len, char *err)
{
	*pp = profile_create();
	return profile_load_buffer(*pp, text, len, err, 256);
}

START_TEST(test_collapsed)
{
	static const char text[] = "main;a b;c 12\r\n"
				   "\n"
				   "main;a b 3\n"
				   "   \r\n"
				   "main;a b;c  5\n"
				   "solo 1";
	struct profile *p;
	char err[256];

	ck_assert_int_eq(load(&p, text, sizeof(text) - 1, err), LOAD_COLLAPSED);
	ck_assert_uint_eq(p->nstacks, 3);
	ck_assert_uint_eq(p->nframes, 4);
	ck_assert_uint_eq(p->stacks[0].count, 17);
	ck_assert_uint_eq(p->stacks[0].depth, 3);
	ck_assert_str_eq(profile_frame_name(p, p->stacks[0].frames[1]), "a b");
	ck_assert_uint_eq(profile_total(p), 21);
	ck_assert_int_eq(p->frames[0].kind, PROFILE_FRAME_NAME);
	profile_destroy(p);
}
END_TEST

/* The frame texts rbflame writes read back into their parts. */
START_TEST(test_collapsed_frames)
{
	static const struct {
		const char *text;
		enum profile_kind kind;
		const char *name, *file;
		int line;
	} want[] = {
		{ "Shop#tax (/src/app/shop.rb:12)", PROFILE_FRAME_RUBY,
		  "Shop#tax", "/src/app/shop.rb", 12 },
		{ "block (2 levels) in <main> (/a (b)/x.rb:7)",
		  PROFILE_FRAME_RUBY, "block (2 levels) in <main>",
		  "/a (b)/x.rb", 7 },
		{ "Integer#times (/x.rb:0)", PROFILE_FRAME_RUBY,
		  "Integer#times", "/x.rb", 0 },
		{ "Shop#tax (/src/app/shop.rb)", PROFILE_FRAME_RUBY,
		  "Shop#tax", "/src/app/shop.rb", 0 },
		{ "rb_ary_push (libruby.so.3.3)", PROFILE_FRAME_NATIVE,
		  "rb_ary_push", "libruby.so.3.3", 0 },
		{ "0x1a2b (libx.so)", PROFILE_FRAME_NATIVE, "0x1a2b",
		  "libx.so", 0 },
		{ "(garbage collection)", PROFILE_FRAME_NAME,
		  "(garbage collection)", NULL, 0 },
		{ "thread 12 \"main (x)\"", PROFILE_FRAME_NAME,
		  "thread 12 \"main (x)\"", NULL, 0 },
		{ "x (two words)", PROFILE_FRAME_NAME, "x (two words)", NULL,
		  0 },
		{ "f (x.rb:99999999999)", PROFILE_FRAME_NAME,
		  "f (x.rb:99999999999)", NULL, 0 },
		{ " (x.rb:1)", PROFILE_FRAME_NAME, " (x.rb:1)", NULL, 0 },
		{ "main", PROFILE_FRAME_NAME, "main", NULL, 0 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct profile *p;
		char err[256], line[512];
		const struct profile_frame *f;
		int n = snprintf(line, sizeof(line), "%s 1\n", want[i].text);

		ck_assert_int_eq(load(&p, line, (size_t)n, err),
				 LOAD_COLLAPSED);
		ck_assert_uint_eq(p->nframes, 1);
		f = profile_frame_get(p, 0);
		ck_assert_msg(f->kind == want[i].kind, "%s: kind %d",
			      want[i].text, f->kind);
		ck_assert_str_eq(profile_frame_name(p, 0), want[i].text);
		ck_assert_str_eq(profile_str_get(p, f->name), want[i].name);
		if (want[i].file)
			ck_assert_str_eq(profile_str_get(p, f->file),
					 want[i].file);
		else
			ck_assert_uint_eq(f->file, PROFILE_NO_STR);
		ck_assert_int_eq(f->line, want[i].line);
		profile_destroy(p);
	}
}
END_TEST

static void
expect_error(const char *text, size_t len, const char *want)
{
	struct profile *p;
	char err[256];

	ck_assert_int_eq(load(&p, text, len, err), -1);
	ck_assert_msg(strstr(err, want) != NULL, "[%s] lacks [%s]", err, want);
	profile_destroy(p);
}

START_TEST(test_errors)
{
	expect_error("a 1\nb\n", 6, "line 2: expected");
	expect_error("a 1\n\nb x1\n", 10, "line 3: count 'x1'");
	expect_error("a 1.5\n", 6, "line 1: count '1.5' is not a whole");
	expect_error("a 99999999999999999999\n", 23, "count too large");
	expect_error("a\0b 1\n", 6, "line 1: a NUL byte");
	expect_error(" 1\n", 3, "line 1: no stack before the count");
	expect_error("{\"frames\":{}}", 13, "JSON profile");
	expect_error("\x1f\x8b\x08", 3, "gzip");
}
END_TEST

START_TEST(test_deep)
{
	size_t n = 5000, len = n * 2 + 3;
	char *text = malloc(len + 1);

	for (size_t i = 0; i < n; i++)
		memcpy(text + 2 * i, "f;", 2);
	memcpy(text + 2 * n - 1, " 1\n", 4);
	expect_error(text, len - 1, "more than 4096 frames");
	free(text);
}
END_TEST

START_TEST(test_empty_input)
{
	struct profile *p;
	char err[256];

	ck_assert_int_eq(load(&p, "", 0, err), LOAD_COLLAPSED);
	ck_assert_uint_eq(p->nstacks, 0);
	profile_destroy(p);
}
END_TEST

/* Random bytes and random mutations of a valid line: an error or a
 * profile, never a crash (ASan builds make this sharper). */
START_TEST(test_garbage)
{
	static const char alphabet[] = "ab;; 0123456789\r\n\t\xff";
	unsigned seed = 12345;
	char buf[512];

	for (int round = 0; round < 2000; round++) {
		struct profile *p;
		char err[256];
		size_t len = (seed = seed * 1103515245 + 12345) % sizeof(buf);

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			buf[i] = alphabet[(seed >> 16) %
					  (sizeof(alphabet) - 1)];
		}
		(void)load(&p, buf, len, err);
		profile_destroy(p);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("collapsed");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_collapsed);
	tcase_add_test(tc, test_collapsed_frames);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_deep);
	tcase_add_test(tc, test_empty_input);
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
