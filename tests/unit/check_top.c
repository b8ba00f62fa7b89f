// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* rbflame top's counts, on profiles made by hand: self and total per
 * function (a recursive one counted once per sample in total, the state
 * leaves and roots no function), the sort orders, the state bars per
 * thread, the recent window against since start. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/profile.h"
#include "rbflame/top.h"

#define SEC 1000000000ull

static uint32_t
rb(struct profile *p, const char *name, int line)
{
	return profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_RUBY, .name = name, .file = "a.rb",
		.line = line,
	});
}

static uint32_t
kind(struct profile *p, enum profile_kind k, const char *text)
{
	return profile_frame_make(p, &(struct profile_frame_desc){
		.kind = k, .name = text, .text = text,
	});
}

/* The view top_print() writes, into buf. */
static char *
print_view(struct top *t, bool since_start, bool by_total)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(top_print(t, f, since_start, by_total, 0), 0);
	fclose(f);
	return buf;
}

/* The function rows of a view, "\n"-joined, without the header. */
static char *
fn_rows(const char *text)
{
	const char *s = strstr(text, "FUNCTION\n");
	const char *e;

	ck_assert_ptr_nonnull(s);
	s += strlen("FUNCTION\n");
	e = strstr(s, "\n\n");
	return strndup(s, e ? (size_t)(e - s + 1) : strlen(s));
}

/*
 * Thread 11 "main": 3 samples <main> -> A#f (line 5) -> A#f (line 6) ->
 * A#g, running. Thread 12 "w": 1 sample <main> -> A#f waiting for the
 * GVL, 1 in <main> marking (GC). All within the last 5 s of 10 s.
 */
static struct profile *
make_profile(void)
{
	struct profile *p = profile_create();
	uint32_t t11 = kind(p, PROFILE_FRAME_THREAD, "thread 11 \"main\"");
	uint32_t t12 = kind(p, PROFILE_FRAME_THREAD, "thread 12 \"w\"");
	uint32_t gvl = kind(p, PROFILE_FRAME_STATE, "(waiting for GVL)");
	uint32_t gc = kind(p, PROFILE_FRAME_STATE, "(garbage collection)");
	uint32_t mark = kind(p, PROFILE_FRAME_STATE, "(marking)");
	uint32_t mn = rb(p, "<main>", 1);
	uint32_t hot[] = { t11, mn, rb(p, "A#f", 5), rb(p, "A#f", 6),
			   rb(p, "A#g", 9) };
	uint32_t wait[] = { t12, mn, rb(p, "A#f", 5), gvl };
	uint32_t marking[] = { t12, mn, gc, mark };

	profile_thread_name(p, 10, 11, "main");
	profile_thread_name(p, 10, 12, "w");
	for (int i = 0; i < 3; i++)
		profile_add_sample(p, (6 + i) * SEC, 10, 11,
				   PROFILE_STATE_RUNNING, hot, 5);
	profile_add_sample(p, 8 * SEC, 10, 12, PROFILE_STATE_WAITING_GVL,
			   wait, 4);
	profile_add_sample(p, 9 * SEC, 10, 12, PROFILE_STATE_MARKING,
			   marking, 4);
	p->stats.ticks = 5;
	return p;
}

START_TEST(test_self_total)
{
	struct profile *p = make_profile();
	struct top *t = top_create();
	char *text, *rows;

	top_watch(t, p, 10 * SEC, false);
	text = print_view(t, false, false);
	rows = fn_rows(text);
	/* Self: A#g 3 of 5; A#f and <main> 1 each, <main> first by total. */
	ck_assert_str_eq(rows,
			 "  60.0%   60.0%  A#g (a.rb)\n"
			 "  20.0%  100.0%  <main> (a.rb)\n"
			 "  20.0%   80.0%  A#f (a.rb)\n");
	ck_assert_ptr_nonnull(strstr(text, "5 samples (0 failed)"));
	ck_assert_ptr_nonnull(strstr(text, "window: last 5 s, sort: self\n"));
	free(rows);
	free(text);

	top_watch(t, p, 10 * SEC, false);
	text = print_view(t, false, true);
	rows = fn_rows(text);
	ck_assert_str_eq(rows,
			 "  20.0%  100.0%  <main> (a.rb)\n"
			 "  20.0%   80.0%  A#f (a.rb)\n"
			 "  60.0%   60.0%  A#g (a.rb)\n");
	free(rows);
	free(text);
	/* Taken: no view until the next look. */
	ck_assert_int_eq(top_print(t, stdout, false, false, 0), -1);
	top_destroy(t);
	profile_destroy(p);
}
END_TEST

START_TEST(test_thread_bars)
{
	struct profile *p = make_profile();
	struct top *t = top_create();
	char *text;

	top_watch(t, p, 10 * SEC, false);
	text = print_view(t, false, false);
	/* RUN% GVL% GC% BLK%: the marking phase is GC. */
	ck_assert_ptr_nonnull(strstr(text,
		"\n11 \"main\"                  100     0     0     0  #"));
	ck_assert_ptr_nonnull(strstr(text,
		"\n12 \"w\"                       0    50    50     0  ~"));
	free(text);
	top_destroy(t);
	profile_destroy(p);
}
END_TEST

/* A#old at 1 s, A#new at 9 s, looked at 10 s: the last 5 s hold only
 * A#new; since start both, half each. */
START_TEST(test_windows)
{
	struct profile *p = profile_create();
	struct top *t = top_create();
	uint32_t th = kind(p, PROFILE_FRAME_THREAD, "thread 11 \"main\"");
	uint32_t old[] = { th, rb(p, "A#old", 2) };
	uint32_t new[] = { th, rb(p, "A#new", 3) };
	char *text, *rows;

	profile_add_sample(p, 1 * SEC, 10, 11, PROFILE_STATE_RUNNING, old, 2);
	top_watch(t, p, 2 * SEC, false);
	profile_add_sample(p, 9 * SEC, 10, 11, PROFILE_STATE_RUNNING, new, 2);
	top_watch(t, p, 10 * SEC, true);
	text = print_view(t, false, false);
	rows = fn_rows(text);
	ck_assert_str_eq(rows, " 100.0%  100.0%  A#new (a.rb)\n");
	ck_assert_ptr_nonnull(strstr(text, "(sampling ended)"));
	free(rows);
	free(text);

	top_watch(t, p, 10 * SEC, true);
	text = print_view(t, true, false);
	rows = fn_rows(text);
	ck_assert_str_eq(rows,
			 "  50.0%   50.0%  A#new (a.rb)\n"
			 "  50.0%   50.0%  A#old (a.rb)\n");
	ck_assert_ptr_nonnull(strstr(text, "window: since start"));
	free(rows);
	free(text);
	top_destroy(t);
	profile_destroy(p);
}
END_TEST

/* A native target's thread: no state known, no bar, no share in one. */
START_TEST(test_native_thread)
{
	struct profile *p = profile_create();
	struct top *t = top_create();
	uint32_t th = kind(p, PROFILE_FRAME_THREAD, "thread 21 \"\"");
	uint32_t st[] = { th, kind(p, PROFILE_FRAME_NATIVE, "spin") };
	char *text;

	profile_add_sample(p, 1 * SEC, 20, 21, PROFILE_STATE_UNKNOWN, st, 2);
	top_watch(t, p, 2 * SEC, false);
	text = print_view(t, false, false);
	ck_assert_ptr_nonnull(strstr(text,
		"\n21 \"\"                        -     -     -     -  (states not known: not Ruby)\n"));
	ck_assert_ptr_nonnull(strstr(text, " 100.0%  100.0%  spin\n"));
	free(text);
	top_destroy(t);
	profile_destroy(p);
}
END_TEST

/* A name with control characters is printed escaped. */
START_TEST(test_escaped)
{
	struct profile *p = profile_create();
	struct top *t = top_create();
	uint32_t th = kind(p, PROFILE_FRAME_THREAD, "thread 11 \"x\"");
	uint32_t st[] = { th, rb(p, "A#\033[2Jevil", 2) };
	char *text;

	profile_thread_name(p, 10, 11, "\033]0;title\007");
	profile_add_sample(p, 1 * SEC, 10, 11, PROFILE_STATE_RUNNING, st, 2);
	top_watch(t, p, 2 * SEC, false);
	text = print_view(t, false, false);
	ck_assert_ptr_null(strchr(text, '\033'));
	ck_assert_ptr_null(strchr(text, '\007'));
	ck_assert_ptr_nonnull(strstr(text, "A#\\x1b[2Jevil (a.rb)"));
	free(text);
	top_destroy(t);
	profile_destroy(p);
}
END_TEST

static Suite *
top_suite(void)
{
	Suite *s = suite_create("top");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_self_total);
	tcase_add_test(tc, test_thread_bars);
	tcase_add_test(tc, test_windows);
	tcase_add_test(tc, test_native_thread);
	tcase_add_test(tc, test_escaped);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(top_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
