// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * rbflame diff's comparison: frames reduced to functions (lines dropped,
 * structured or read back from collapsed text), total and self shares
 * per function with recursion counted once, the two-proportion z test
 * against known values, and the order of the rows.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/diff.h"

START_TEST(test_z)
{
	/* 50/100 against 65/100: pooled 0.575, se 0.069911, z 2.1456. */
	ck_assert(fabs(diff_z(50, 100, 65, 100) - 2.1456) < 1e-3);
	ck_assert(fabs(diff_z(65, 100, 50, 100) + 2.1456) < 1e-3);
	/* 300/1000 against 350/1000 is not significant at 99%; 300/1000
	 * against 600/1000 is, by far. */
	ck_assert(fabs(diff_z(300, 1000, 350, 1000)) < DIFF_Z99);
	ck_assert(diff_z(300, 1000, 600, 1000) > 10);
	ck_assert(diff_z(0, 0, 5, 10) == 0);
	ck_assert(diff_z(0, 10, 0, 10) == 0);
	ck_assert(diff_z(10, 10, 10, 10) == 0);
}
END_TEST

static const struct diff_row *
row(const struct diff_result *r, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].name, name))
			return &r->rows[i];
	return NULL;
}

START_TEST(test_by_function)
{
	struct profile *p = profile_create();
	struct profile *q;
	struct profile_frame_desc a = {
		.kind = PROFILE_FRAME_RUBY, .name = "A#f", .file = "/a.rb",
		.line = 3,
	};
	uint32_t f[3];

	f[0] = profile_frame(p, "<main> (/a.rb:10)");	/* collapsed */
	f[1] = profile_frame_make(p, &a);
	a.line = 4;
	f[2] = profile_frame_make(p, &a);
	profile_add_count(p, f, 3, 2);
	f[2] = profile_frame(p, "(garbage collection)");
	profile_add_count(p, f, 3, 1);
	q = diff_by_function(p);
	ck_assert_uint_eq(q->nstacks, 2);
	ck_assert_str_eq(profile_frame_name(q, q->stacks[0].frames[0]),
			 "<main> (/a.rb)");
	ck_assert_str_eq(profile_frame_name(q, q->stacks[0].frames[1]),
			 "A#f (/a.rb)");
	/* Lines 3 and 4 of A#f are one function. */
	ck_assert_uint_eq(q->stacks[0].frames[1], q->stacks[0].frames[2]);
	ck_assert_str_eq(profile_frame_name(q, q->stacks[1].frames[2]),
			 "(garbage collection)");
	profile_destroy(q);
	profile_destroy(p);
}
END_TEST

START_TEST(test_compare)
{
	struct profile *base = profile_create(), *np = profile_create();
	struct diff_result r;
	const struct diff_row *w;
	uint32_t f[3];

	/* base: main;a 50, main;b 50. new: main;a 20, main;b;b 80. */
	f[0] = profile_frame(base, "main");
	f[1] = profile_frame(base, "a");
	profile_add_count(base, f, 2, 50);
	f[1] = profile_frame(base, "b");
	profile_add_count(base, f, 2, 50);
	f[0] = profile_frame(np, "main");
	f[1] = profile_frame(np, "a");
	profile_add_count(np, f, 2, 20);
	f[1] = f[2] = profile_frame(np, "b");
	profile_add_count(np, f, 3, 80);
	diff_compare(base, np, &r);
	ck_assert_uint_eq(r.samples[DIFF_BASE], 100);
	ck_assert_uint_eq(r.samples[DIFF_NEW], 100);
	ck_assert_uint_eq(r.nrows, 3);
	w = row(&r, "b");
	ck_assert_ptr_nonnull(w);
	ck_assert_uint_eq(w->total[DIFF_NEW], 80);	/* once per sample */
	ck_assert_uint_eq(w->self[DIFF_NEW], 80);
	ck_assert(fabs(w->total_delta - 30) < 1e-9);
	ck_assert(w->significant);
	w = row(&r, "a");
	ck_assert(fabs(w->total_delta + 30) < 1e-9);
	ck_assert(w->z < -DIFF_Z99);
	/* Largest change first, ties by self change then name: "a" and
	 * "b" change 30 points each, "main" none. */
	ck_assert_str_eq(r.rows[0].name, "a");
	ck_assert_str_eq(r.rows[1].name, "b");
	ck_assert_str_eq(r.rows[2].name, "main");
	ck_assert(!r.rows[2].significant);
	diff_result_fini(&r);
	profile_destroy(base);
	profile_destroy(np);
}
END_TEST

/* n timed samples of one thread: "main;a" or "main;b", in runs of len;
 * len 0: three a, two b, over and over. */
static struct profile *
timed_profile(size_t n, size_t len)
{
	struct profile *p = profile_create();
	uint32_t f[2];

	f[0] = profile_frame(p, "main");
	for (size_t i = 0; i < n; i++) {
		bool a = len ? (i / len) % 2 == 0 : i % 5 < 3;

		f[1] = profile_frame(p, a ? "a" : "b");
		profile_add_sample(p, i * 1000, 1, 1, PROFILE_STATE_RUNNING, f,
				   2);
	}
	return p;
}

START_TEST(test_clustered)
{
	/* Alternating a, b: independent-looking, full weight. Runs of 50:
	 * the same shares, but the samples cluster and count for little. */
	struct profile *alt = timed_profile(1000, 1);
	struct profile *runs = timed_profile(1000, 50);
	struct profile *more = timed_profile(1000, 0);
	struct diff_result r;
	const struct diff_row *w;

	diff_compare(alt, more, &r);
	w = row(&r, "a");
	ck_assert(w->rho[DIFF_BASE] < 0.05);
	ck_assert(w->n_eff[DIFF_BASE] > 900);
	ck_assert(fabs(w->total_delta - 10) < 1e-9);
	ck_assert(w->significant);	/* 50% -> 60%: z about 4 */
	diff_result_fini(&r);
	diff_compare(runs, more, &r);
	w = row(&r, "a");
	ck_assert(w->rho[DIFF_BASE] > 0.9);
	ck_assert(w->n_eff[DIFF_BASE] < 60);
	ck_assert(fabs(w->total_delta - 10) < 1e-9);
	ck_assert(!w->significant);	/* 20-odd runs are little evidence */
	diff_result_fini(&r);
	profile_destroy(alt);
	profile_destroy(runs);
	profile_destroy(more);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("compare");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_z);
	tcase_add_test(tc, test_by_function);
	tcase_add_test(tc, test_compare);
	tcase_add_test(tc, test_clustered);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
