// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * rbflame diff's comparison: frames reduced to functions (lines dropped,
 * structured or read back from collapsed text), total and self shares
 * per function with recursion counted once, the two-proportion z test
 * against known values, the order of the rows, two checkouts' roots,
 * detected or given, that make their files compare, the Markdown
 * summary, Student's t against its tables, and several runs a side
 * judged by their spread.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
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

/* A profile of one program run from checkout dir: main -> Shop#tax 60,
 * main -> Lib#f (a library, the same path on both sides) 40. */
static struct profile *
checkout_profile(const char *dir, const char *util)
{
	struct profile *p = profile_create();
	char main_rb[64], shop_rb[64], util_rb[64];
	struct profile_frame_desc d = { .kind = PROFILE_FRAME_RUBY };
	uint32_t f[3];

	snprintf(main_rb, sizeof(main_rb), "%s/bench/main.rb", dir);
	snprintf(shop_rb, sizeof(shop_rb), "%s/lib/shop.rb", dir);
	snprintf(util_rb, sizeof(util_rb), "%s/%s/util.rb", dir, util);
	d.name = "<main>", d.file = main_rb, d.line = 3;
	f[0] = profile_frame_make(p, &d);
	d.name = "Shop#tax", d.file = shop_rb, d.line = 7;
	f[1] = profile_frame_make(p, &d);
	profile_add_count(p, f, 2, 60);
	d.name = "Lib#f", d.file = "/usr/lib/ruby/lib.rb", d.line = 1;
	f[1] = profile_frame_make(p, &d);
	d.name = "Util#g", d.file = util_rb, d.line = 2;
	f[2] = profile_frame_make(p, &d);
	profile_add_count(p, f, 3, 40);
	return p;
}

START_TEST(test_roots)
{
	/* util.rb lies under a/ in one, b/ in the other: one vote for
	 * (/w/base/a, /w/new/b) against two for (/w/base, /w/new). */
	struct profile *base = checkout_profile("/w/base", "a");
	struct profile *np = checkout_profile("/w/new", "b");
	struct diff_roots roots;
	struct diff_result r;
	const struct diff_row *w;

	diff_roots_detect(base, np, &roots);
	ck_assert(roots.detected);
	ck_assert_str_eq(roots.dir[DIFF_BASE], "/w/base");
	ck_assert_str_eq(roots.dir[DIFF_NEW], "/w/new");
	ck_assert_uint_eq(roots.votes, 2);
	diff_compare_under(base, np, &roots, &r);
	w = row(&r, "Shop#tax (lib/shop.rb)");
	ck_assert_ptr_nonnull(w);
	ck_assert_uint_eq(w->total[DIFF_BASE], 60);
	ck_assert_uint_eq(w->total[DIFF_NEW], 60);
	ck_assert(fabs(w->total_delta) < 1e-9);
	ck_assert(w->code);
	w = row(&r, "<main> (bench/main.rb)");
	ck_assert_ptr_nonnull(w);
	ck_assert(fabs(w->total_delta) < 1e-9);
	/* A library outside the roots: by its whole path. */
	ck_assert_ptr_nonnull(row(&r, "Lib#f (/usr/lib/ruby/lib.rb)"));
	ck_assert_ptr_nonnull(row(&r, "Util#g (a/util.rb)"));
	ck_assert_ptr_nonnull(row(&r, "Util#g (b/util.rb)"));
	ck_assert(fabs(r.common - 100) < 1e-9);
	diff_result_fini(&r);
	/* Without roots nothing of the checkouts matches. */
	diff_compare(base, np, &r);
	w = row(&r, "Shop#tax (/w/new/lib/shop.rb)");
	ck_assert_ptr_nonnull(w);
	ck_assert(fabs(w->total_delta - 60) < 1e-9);
	ck_assert(fabs(r.common - 40) < 1e-9);	/* Lib#f alone */
	diff_result_fini(&r);
	diff_roots_fini(&roots);
	/* One checkout twice: no file differs, no roots. */
	diff_roots_detect(base, base, &roots);
	ck_assert(!roots.detected);
	ck_assert_ptr_null(roots.dir[DIFF_BASE]);
	diff_roots_fini(&roots);
	profile_destroy(base);
	profile_destroy(np);
}
END_TEST

/* The Markdown summary: verdict, escaped names, failing rows marked. */
START_TEST(test_markdown)
{
	struct profile *base = profile_create(), *np = profile_create();
	struct diff_result r;
	struct diff_markdown m = {
		.verdict = DIFF_FAIL, .base_name = "b_1.txt",
		.new_name = "n.txt", .fail_above = 5, .limit = 2,
		.fail_total_above = -1,
	};
	uint32_t f[2];
	char *out = NULL;
	size_t len;
	FILE *mf;

	f[0] = profile_frame(base, "main");
	f[1] = profile_frame(base, "a|b <x>");
	profile_add_count(base, f, 2, 50);
	f[1] = profile_frame(base, "c");
	profile_add_count(base, f, 2, 50);
	f[0] = profile_frame(np, "main");
	f[1] = profile_frame(np, "a|b <x>");
	profile_add_count(np, f, 2, 80);
	f[1] = profile_frame(np, "c");
	profile_add_count(np, f, 2, 20);
	diff_compare(base, np, &r);
	ck_assert(diff_row_fails(&r.rows[0], 5));
	ck_assert(!diff_row_fails(&r.rows[0], 40));
	ck_assert(!diff_row_fails(&r.rows[1], 5));	/* shrank */
	mf = open_memstream(&out, &len);
	ck_assert_int_eq(diff_write_markdown(&r, &m, mf), 0);
	fclose(mf);
	ck_assert_str_eq(out,
		"### rbflame diff: FAIL\n"
		"\n"
		"- base b\\_1.txt: 100 samples; new n.txt: 100 samples\n"
		"- compared: shares of samples (a profile has no time "
		"weights: collapsed stacks, or a recording without them)\n"
		"- fails when a function's total share grows by more than 5 "
		"points, significantly at 99%\n"
		"\n"
		"| function | total base | total new | change | self base "
		"| self new | change |\n"
		"|:--|--:|--:|--:|--:|--:|--:|\n"
		"| **FAIL** a\\|b &lt;x&gt; | 50.0% | 80.0% | +30.0\\* "
		"| 50.0% | 80.0% | +30.0 |\n"
		"| c | 50.0% | 20.0% | -30.0\\* | 50.0% | 20.0% | -30.0 |\n"
		"\n"
		"1 more function changed less.\n"
		"\n"
		"\\* significant at 99% (two-proportion z test)\n");
	free(out);
	diff_result_fini(&r);
	profile_destroy(base);
	profile_destroy(np);
}
END_TEST

START_TEST(test_t_dist)
{
	/* Two-sided tails of Student's t from tables: t(4) 2.776 is 5%,
	 * 4.604 1%; t(10) 3.169 1%; t(1) 1 is 50%; infinite df: normal. */
	ck_assert(fabs(diff_t_sf2(2.776, 4) - 0.05) < 1e-4);
	ck_assert(fabs(diff_t_sf2(4.604, 4) - 0.01) < 1e-4);
	ck_assert(fabs(diff_t_sf2(-4.604, 4) - 0.01) < 1e-4);
	ck_assert(fabs(diff_t_sf2(3.169, 10) - 0.01) < 1e-4);
	ck_assert(fabs(diff_t_sf2(1, 1) - 0.5) < 1e-9);
	ck_assert(fabs(diff_t_sf2(DIFF_Z99, INFINITY) - 0.01) < 1e-6);
	ck_assert(fabs(diff_t_sf2(0, 3) - 1) < 1e-9);
}
END_TEST

/* One run: main;a A, main;b 1000 - A. */
static struct profile *
run_ab(uint64_t a)
{
	struct profile *p = profile_create();
	uint32_t f[2];

	f[0] = profile_frame(p, "main");
	f[1] = profile_frame(p, "a");
	profile_add_count(p, f, 2, a);
	f[1] = profile_frame(p, "b");
	profile_add_count(p, f, 2, 1000 - a);
	return p;
}

START_TEST(test_runs)
{
	/* a: 30.0, 31.0, 29.0% of the base's runs. */
	struct profile *b[3] = { run_ab(300), run_ab(310), run_ab(290) };
	/* The same, again; a grown to 45%; a at 47% in one run only. */
	struct profile *same[3] = { run_ab(305), run_ab(295), run_ab(300) };
	struct profile *grew[3] = { run_ab(450), run_ab(440), run_ab(460) };
	struct profile *odd[3] = { run_ab(300), run_ab(470), run_ab(300) };
	struct diff_result r;
	const struct diff_row *w;

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)same, 3, NULL, 5, &r);
	ck_assert_uint_eq(r.runs[DIFF_BASE], 3);
	ck_assert_uint_eq(r.samples[DIFF_BASE], 3000);
	w = row(&r, "a");
	ck_assert(fabs(w->mean[DIFF_BASE] - 30) < 1e-9);
	ck_assert(fabs(w->sd[DIFF_BASE] - 1) < 1e-9);
	ck_assert(fabs(w->total_delta) < 1e-9);
	ck_assert(!w->significant);
	ck_assert_uint_eq(r.tested, 0);
	diff_result_fini(&r);

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)grew, 3, NULL, 5, &r);
	w = row(&r, "a");
	ck_assert(fabs(w->total_delta - 15) < 1e-9);
	ck_assert(w->significant);
	ck_assert(diff_row_fails(w, 5));
	ck_assert(!diff_row_fails(row(&r, "b"), 5));	/* it shrank */
	ck_assert(!row(&r, "b")->significant);	/* only growth is tested */
	ck_assert_uint_eq(r.tested, 1);
	diff_result_fini(&r);

	/* +5.7 points on average, from one run: the spread says noise. */
	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)odd, 3, NULL, 5, &r);
	w = row(&r, "a");
	ck_assert(w->total_delta > 5);
	ck_assert(w->sd[DIFF_NEW] > 9);
	ck_assert(!w->significant);
	ck_assert(!diff_row_fails(w, 5));
	diff_result_fini(&r);
	for (int i = 0; i < 3; i++) {
		profile_destroy(b[i]);
		profile_destroy(same[i]);
		profile_destroy(grew[i]);
		profile_destroy(odd[i]);
	}
}
END_TEST

/*
 * Shares whose runs' spread came out under one run's sampling error
 * (sd 1 point where the floor is 1.45): a +3.5 points, 2.91 standard
 * errors, is no failure with 3 runs a side (4 df, p 0.022 > 1%), where
 * taking the floor as a known variance (the normal: p 0.0018) failed
 * it; with 9 runs a side (5.1 standard errors) it fails.
 */
START_TEST(test_runs_floor)
{
	struct profile *b[3] = { run_ab(300), run_ab(310), run_ab(290) };
	struct profile *n[3] = { run_ab(335), run_ab(345), run_ab(325) };
	const struct profile *b9[9], *n9[9];
	struct diff_result r;
	const struct diff_row *w;

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)n, 3, NULL, 3, &r);
	w = row(&r, "a");
	ck_assert(fabs(w->total_delta - 3.5) < 1e-9);
	ck_assert(fabs(w->z - 2.914) < 0.001);
	ck_assert(w->p > 0.01 && w->p < 0.03);
	ck_assert(!w->significant);
	ck_assert(!diff_row_fails(w, 3));
	diff_result_fini(&r);
	for (int i = 0; i < 9; i++) {
		b9[i] = b[i % 3];
		n9[i] = n[i % 3];
	}
	diff_compare_runs(b9, 9, n9, 9, NULL, 3, &r);
	w = row(&r, "a");
	ck_assert(w->significant);
	ck_assert(diff_row_fails(w, 3));
	diff_result_fini(&r);
	for (int i = 0; i < 3; i++) {
		profile_destroy(b[i]);
		profile_destroy(n[i]);
	}
}
END_TEST

/*
 * One complete, weighted cpu-mode run of main -> a and main -> b, each
 * sample 10 ms: a_ms and b_ms of CPU time; complete false makes it an
 * attach's (shares).
 */
static struct profile *
timed_run(unsigned a_ms, unsigned b_ms, bool complete)
{
	struct profile *p = profile_create();
	uint32_t f[2];
	uint64_t t = 0;

	p->meta.weighted = true;
	p->meta.complete = complete;
	p->meta.mode = strdup("cpu");
	f[0] = profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_RUBY, .name = "main", .file = "/x.rb",
		.line = 1 });
	f[1] = profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_RUBY, .name = "a", .file = "/x.rb",
		.line = 2 });
	for (unsigned i = 0; i < a_ms / 10; i++, t += 10000000)
		profile_add_weighted(p, t, 1, 1, PROFILE_STATE_RUNNING,
				     10000000, f, 2);
	f[1] = profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_RUBY, .name = "b", .file = "/x.rb",
		.line = 3 });
	for (unsigned i = 0; i < b_ms / 10; i++, t += 10000000)
		profile_add_weighted(p, t, 1, 1, PROFILE_STATE_RUNNING,
				     10000000, f, 2);
	return p;
}

/*
 * Time mode: complete weighted runs compare each function's time. a 5x
 * faster passes (b did the same work, though its share grew from 50% to
 * 83%, which shares fail); a 2x slower fails, named alone (main, its
 * caller, grew only through it), by +50% of the base's total; the total
 * gate fails above 50%; an attach among the runs falls back to shares;
 * everything slower alike fails only the total.
 */
START_TEST(test_time)
{
	struct profile *b[3] = { timed_run(1000, 1000, true),
				 timed_run(1020, 990, true),
				 timed_run(980, 1010, true) };
	struct profile *fast[3] = { timed_run(200, 1000, true),
				    timed_run(210, 1010, true),
				    timed_run(190, 990, true) };
	struct profile *slow[3] = { timed_run(2000, 1000, true),
				    timed_run(2030, 990, true),
				    timed_run(1990, 1010, true) };
	struct profile *uniform[3] = { timed_run(1150, 1150, true),
				       timed_run(1170, 1140, true),
				       timed_run(1130, 1160, true) };
	struct profile *attach[3] = { timed_run(200, 1000, false),
				      timed_run(210, 1010, true),
				      timed_run(190, 990, true) };
	struct diff_result r;
	const struct diff_row *w;

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)fast, 3, NULL, 5, &r);
	ck_assert(r.time);
	ck_assert(r.cpu);
	ck_assert(fabs(r.tot_mean[DIFF_BASE] - 2.0) < 1e-9);
	ck_assert(fabs(r.tot_mean[DIFF_NEW] - 1.2) < 1e-9);
	w = row(&r, "b (/x.rb)");
	ck_assert(fabs(w->tmean[DIFF_NEW] - 1.0) < 1e-9);
	ck_assert(fabs(w->total_delta) < 1e-9);
	for (size_t i = 0; i < r.nrows; i++)
		ck_assert_msg(!diff_row_fails(&r.rows[i], 5), "%s fails",
			      r.rows[i].name);
	ck_assert(!diff_total_fails(&r, 5));
	diff_result_fini(&r);

	/* The same runs as an attach's: shares, and b's growth fails. */
	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)attach, 3, NULL, 5,
			  &r);
	ck_assert(!r.time);
	ck_assert_ptr_nonnull(strstr(r.why_shares, "run to its end"));
	ck_assert(diff_row_fails(row(&r, "b (/x.rb)"), 5));
	diff_result_fini(&r);

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)slow, 3, NULL, 5, &r);
	ck_assert(r.time);
	w = row(&r, "a (/x.rb)");
	ck_assert(fabs(w->tmean[DIFF_BASE] - 1.0) < 1e-9);
	ck_assert(fabs(w->tmean[DIFF_NEW] - 2.0066666666666) < 1e-6);
	ck_assert(fabs(w->total_delta - 50.333333) < 1e-3);
	ck_assert(diff_row_fails(w, 5));
	ck_assert(!diff_row_fails(w, 60));
	w = row(&r, "main (/x.rb)");
	ck_assert(w->total_delta > 5);
	ck_assert_str_eq(w->explained, "a (/x.rb)");
	ck_assert(!diff_row_fails(w, 5));
	ck_assert(!diff_row_fails(row(&r, "b (/x.rb)"), 5));
	ck_assert(fabs(r.tot_delta - 50.333333) < 1e-3);
	ck_assert(diff_total_fails(&r, 5));
	ck_assert(!diff_total_fails(&r, 60));
	diff_result_fini(&r);

	/* Everything 15% slower, a loaded machine's doing: a and b grew by
	 * 7.5% of the total each, as much as the rest of the run: neither
	 * fails; the total does. */
	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)uniform, 3, NULL, 5,
			  &r);
	w = row(&r, "a (/x.rb)");
	ck_assert(w->total_delta > 7);
	ck_assert(fabs(w->excess) < 1);
	for (size_t i = 0; i < r.nrows; i++)
		ck_assert_msg(!diff_row_fails(&r.rows[i], 5), "%s fails",
			      r.rows[i].name);
	ck_assert(diff_total_fails(&r, 5));
	diff_result_fini(&r);
	for (int i = 0; i < 3; i++) {
		profile_destroy(b[i]);
		profile_destroy(fast[i]);
		profile_destroy(slow[i]);
		profile_destroy(attach[i]);
		profile_destroy(uniform[i]);
	}
}
END_TEST

/*
 * One complete cpu-mode run of three stacks, 1 ms a sample (-r 997): main;loop;a
 * (ms[0]), main;loop;b (ms[1]) and main;c (ms[2]): loop is a caller that
 * is not the whole run.
 */
static struct profile *
timed_tree(const unsigned ms[3])
{
	static const char *const leaf[3] = { "a", "b", "c" };
	struct profile *p = profile_create();
	uint64_t t = 0;

	p->meta.weighted = true;
	p->meta.complete = true;
	p->meta.mode = strdup("cpu");
	for (int k = 0; k < 3; k++) {
		const char *names[3] = { "main", k < 2 ? "loop" : leaf[k],
					 leaf[k] };
		uint32_t f[3];
		int n = k < 2 ? 3 : 2;

		for (int j = 0; j < n; j++)
			f[j] = profile_frame_make(p,
				&(struct profile_frame_desc){
					.kind = PROFILE_FRAME_RUBY,
					.name = names[j], .file = "/y.rb",
					.line = (unsigned)j + 1 });
		for (unsigned i = 0; i < ms[k]; i++, t += 1000000)
			profile_add_weighted(p, t, 1, 1,
					     PROFILE_STATE_RUNNING, 1000000,
					     f, (size_t)n);
	}
	return p;
}

/*
 * The gate asks whether a function got slower by more than the
 * threshold, not whether it got slower at all: a +7.5% of the total, 2.6
 * standard errors above no change (which failed it before) but less
 * than one above 5%, passes --fail-above 5; with 3 runs a side (4 df:
 * p 0.03, each side's spread under its sampling floor, which counts
 * its runs' df all the same) it passes --fail-above 0 too, and with 9
 * runs a side (4.5 standard errors, 16 df) it fails --fail-above 0 and
 * still passes 5;
 * the total, 2.0 s -> 2.15 s with spreads of 10 ms, fails
 * --fail-total-above 5 and passes 7 (+7.5% is above 7 but not
 * significantly). A caller's growth through the callee that grew most
 * is the callee's: loop grew by a's +20% and b's +6%, is not explained
 * by either (26 - 20 > 5), and is not named; a is.
 */
START_TEST(test_time_threshold)
{
	struct profile *b[3] = { timed_run(1000, 1000, true),
				 timed_run(1020, 990, true),
				 timed_run(980, 1010, true) };
	struct profile *n[3] = { timed_run(1150, 1000, true),
				 timed_run(1160, 990, true),
				 timed_run(1140, 1010, true) };
	struct profile *tb[3] = { timed_tree((unsigned[]){ 600, 600, 800 }),
				  timed_tree((unsigned[]){ 610, 590, 800 }),
				  timed_tree((unsigned[]){ 590, 610, 800 }) };
	struct profile *tn[3] = {
		timed_tree((unsigned[]){ 1000, 720, 800 }),
		timed_tree((unsigned[]){ 1010, 710, 800 }),
		timed_tree((unsigned[]){ 990, 730, 800 }) };
	struct diff_result r;
	const struct diff_row *w;

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)n, 3, NULL, 5, &r);
	w = row(&r, "a (/x.rb)");
	ck_assert(fabs(w->total_delta - 7.5) < 1e-6);
	ck_assert(!diff_row_fails(w, 5));
	ck_assert(diff_total_fails(&r, 5));
	ck_assert(!diff_total_fails(&r, 7));
	diff_result_fini(&r);
	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)n, 3, NULL, 0, &r);
	ck_assert(!diff_row_fails(row(&r, "a (/x.rb)"), 0));
	diff_result_fini(&r);
	{
		const struct profile *b9[9], *n9[9];

		for (int i = 0; i < 9; i++) {
			b9[i] = b[i % 3];
			n9[i] = n[i % 3];
		}
		diff_compare_runs(b9, 9, n9, 9, NULL, 0, &r);
		ck_assert(diff_row_fails(row(&r, "a (/x.rb)"), 0));
		diff_result_fini(&r);
		diff_compare_runs(b9, 9, n9, 9, NULL, 5, &r);
		ck_assert(!diff_row_fails(row(&r, "a (/x.rb)"), 5));
		diff_result_fini(&r);
	}

	diff_compare_runs((const struct profile *const *)tb, 3,
			  (const struct profile *const *)tn, 3, NULL, 5, &r);
	w = row(&r, "loop (/y.rb)");
	ck_assert(fabs(w->total_delta - 26) < 1e-6);
	ck_assert_ptr_null(w->explained);
	ck_assert(w->excess > 5);
	ck_assert(fabs(w->via_pct - 20) < 1e-6);
	ck_assert(!diff_row_fails(w, 5));
	ck_assert(diff_row_fails(row(&r, "a (/y.rb)"), 5));
	ck_assert(!diff_row_fails(row(&r, "b (/y.rb)"), 5));
	diff_result_fini(&r);
	for (int i = 0; i < 3; i++) {
		profile_destroy(b[i]);
		profile_destroy(n[i]);
		profile_destroy(tb[i]);
		profile_destroy(tn[i]);
	}
}
END_TEST

/*
 * Same code on a busy 2-CPU host (tests/long/gate-noise.sh, CI of
 * 2026-12-07): one side's three runs all ran the hot method 23% slower
 * and the rest of the run 12% slower, each side's runs within 1-3% of
 * each other, so that a's growth tested alone (+15.4% of the total, t =
 * 6.2 for more than 5%) failed. Its growth beyond the rest's is 7.5% of
 * the total, and the runs' spread of that excess (the rest's spread
 * with it) says it is not significantly more than 5%: a passes. The
 * same a beside a rest that did not grow is a's own growth, and fails.
 */
START_TEST(test_time_drift)
{
	struct profile *b[3] = { timed_tree((unsigned[]){ 605, 0, 300 }),
				 timed_tree((unsigned[]){ 613, 0, 290 }),
				 timed_tree((unsigned[]){ 597, 0, 310 }) };
	struct profile *n[3] = { timed_tree((unsigned[]){ 744, 0, 335 }),
				 timed_tree((unsigned[]){ 756, 0, 350 }),
				 timed_tree((unsigned[]){ 732, 0, 320 }) };
	struct profile *own[3] = { timed_tree((unsigned[]){ 744, 0, 300 }),
				   timed_tree((unsigned[]){ 756, 0, 290 }),
				   timed_tree((unsigned[]){ 732, 0, 310 }) };
	struct diff_result r;
	const struct diff_row *w;

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)n, 3, NULL, 5, &r);
	ck_assert(r.time);
	w = row(&r, "a (/y.rb)");
	ck_assert(fabs(w->total_delta - 139.0 / 905 * 100) < 1e-6);
	ck_assert(w->excess > 5);
	for (size_t i = 0; i < r.nrows; i++)
		ck_assert_msg(!diff_row_fails(&r.rows[i], 5), "%s fails",
			      r.rows[i].name);
	diff_result_fini(&r);

	diff_compare_runs((const struct profile *const *)b, 3,
			  (const struct profile *const *)own, 3, NULL, 5, &r);
	w = row(&r, "a (/y.rb)");
	ck_assert(fabs(w->excess - w->total_delta) < 1e-6);
	ck_assert(diff_row_fails(w, 5));
	diff_result_fini(&r);
	for (int i = 0; i < 3; i++) {
		profile_destroy(b[i]);
		profile_destroy(n[i]);
		profile_destroy(own[i]);
	}
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
	tcase_add_test(tc, test_roots);
	tcase_add_test(tc, test_markdown);
	tcase_add_test(tc, test_t_dist);
	tcase_add_test(tc, test_runs);
	tcase_add_test(tc, test_runs_floor);
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_time_threshold);
	tcase_add_test(tc, test_time_drift);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
