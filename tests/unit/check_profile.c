// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Aggregation: stacks are stored once, counted, and logged per sample. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/intern.h"
#include "rbflame/profile.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

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

/* A stack recorded again by its index is what recording its frames
 * again makes: its count and weight, a timed sample, the state's count. */
START_TEST(test_again)
{
	struct profile *p = profile_create();
	uint32_t a = profile_frame(p, "main"), b = profile_frame(p, "f");
	uint32_t s1[] = { a, b }, s2[] = { a };
	uint32_t x, y;

	p->keep_samples = true;
	x = profile_add_weighted(p, 1, 7, 10, PROFILE_STATE_BLOCKED, 100, s1,
				 2);
	y = profile_add_weighted(p, 2, 7, 11, PROFILE_STATE_RUNNING, 5, s2, 1);
	ck_assert_uint_ne(x, y);
	profile_add_again(p, 3, 7, 10, PROFILE_STATE_BLOCKED, 250, x);
	ck_assert_uint_eq(p->nstacks, 2);
	ck_assert_uint_eq(p->stacks[x].count, 2);
	ck_assert_uint_eq(p->stacks[x].weight_ns, 350);
	ck_assert_uint_eq(p->stacks[y].count, 1);
	ck_assert_uint_eq(p->nsamples, 3);
	ck_assert_uint_eq(p->samples[2].stack, x);
	ck_assert_uint_eq(p->samples[2].tid, 10);
	ck_assert_uint_eq(p->samples[2].pid, 7);
	ck_assert_uint_eq(p->samples[2].time_ns, 3);
	ck_assert_uint_eq(p->samples[2].weight_ns, 250);
	ck_assert_uint_eq(p->samples[2].state, PROFILE_STATE_BLOCKED);
	ck_assert_uint_eq(p->stats.samples, 3);
	ck_assert_uint_eq(p->stats.per_state[PROFILE_STATE_BLOCKED], 2);
	/* The same as adding the frames again. */
	ck_assert_uint_eq(profile_add_weighted(p, 4, 7, 10,
					       PROFILE_STATE_BLOCKED, 1, s1, 2),
			  x);
	ck_assert_uint_eq(p->stacks[x].count, 3);
	ck_assert_uint_eq(profile_total(p), 4);
	profile_destroy(p);
}
END_TEST

/* Structured frames: equal descriptions intern to one id, the text is
 * derived as collapsed output shows it, kinds and states are kept. */
START_TEST(test_frames)
{
	struct profile *p = profile_create();
	struct profile_frame_desc rb = {
		.kind = PROFILE_FRAME_RUBY, .name = "A#pow", .file = "/a.rb",
		.line = 12,
	};
	uint32_t r = profile_frame_make(p, &rb), c, n, st, fr[3];
	const struct profile_frame *f;

	ck_assert_uint_eq(profile_frame_make(p, &rb), r);
	ck_assert_str_eq(profile_frame_name(p, r), "A#pow (/a.rb:12)");
	rb.line = 13;
	ck_assert_uint_ne(profile_frame_make(p, &rb), r);
	c = profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_CFUNC, .name = "Integer#times",
		.file = "/a.rb", .line = 12 });
	ck_assert_str_eq(profile_frame_name(p, c),
			 "Integer#times (/a.rb:12)");
	n = profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_NATIVE, .name = "deflate",
		.file = "/usr/lib/libz.so.1", .build_id = "ab12",
		.addr = 0x1000, .text = "deflate (libz.so.1)" });
	f = profile_frame_get(p, n);
	ck_assert_str_eq(profile_frame_name(p, n), "deflate (libz.so.1)");
	ck_assert_str_eq(profile_str_get(p, f->name), "deflate");
	ck_assert_str_eq(profile_str_get(p, f->file), "/usr/lib/libz.so.1");
	ck_assert_str_eq(profile_str_get(p, f->build_id), "ab12");
	ck_assert_uint_eq(f->addr, 0x1000);
	ck_assert_int_eq(f->kind, PROFILE_FRAME_NATIVE);
	/* A plain name never equals a structured frame with that text. */
	ck_assert_uint_ne(profile_frame(p, "deflate (libz.so.1)"), n);
	st = profile_frame_make(p, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_STATE, .name = "(blocked)" });
	ck_assert_str_eq(profile_frame_name(p, st), "(blocked)");
	ck_assert_uint_eq(profile_frame_get(p, st)->file, PROFILE_NO_STR);
	ck_assert_str_eq(profile_str_get(p, PROFILE_NO_STR), "");
	ck_assert_ptr_null(profile_frame_get(p, 1000));

	fr[0] = r;
	fr[1] = c;
	fr[2] = st;
	profile_add_sample(p, 5, 100, 101, PROFILE_STATE_BLOCKED, fr, 3);
	profile_add(p, 6, 102, fr, 2);
	ck_assert_uint_eq(p->samples[0].pid, 100);
	ck_assert_uint_eq(p->samples[0].state, PROFILE_STATE_BLOCKED);
	ck_assert_uint_eq(p->samples[1].state, PROFILE_STATE_UNKNOWN);
	ck_assert_uint_eq(p->stats.per_state[PROFILE_STATE_BLOCKED], 1);
	ck_assert_str_eq(profile_state_name(PROFILE_STATE_WAITING_GVL),
			 "waiting for GVL");
	ck_assert_str_eq(profile_kind_name(PROFILE_FRAME_CFUNC), "cfunc");
	profile_destroy(p);
}
END_TEST

/*
 * The states' table: the summary line keeps the text tests parse (the
 * printf it replaced, with a distinct count per state), GC phases' leaves
 * sit under (garbage collection), groups are one level deep, leaves and
 * labels are distinct.
 */
START_TEST(test_states)
{
	uint64_t n[PROFILE_STATES];
	char got[512], want[512];
	const char *leaf[PROFILE_STATE_LEAVES];

	for (int s = 0; s < PROFILE_STATES; s++)
		n[s] = 100 + s * 11;
	snprintf(want, sizeof(want),
		 "running %llu, garbage collection %llu (marking %llu, sweeping %llu), waiting for GVL %llu, blocked %llu, running without GVL %llu",
		 (unsigned long long)n[PROFILE_STATE_RUNNING],
		 (unsigned long long)(n[PROFILE_STATE_GC] +
				      n[PROFILE_STATE_MARKING] +
				      n[PROFILE_STATE_SWEEPING]),
		 (unsigned long long)n[PROFILE_STATE_MARKING],
		 (unsigned long long)n[PROFILE_STATE_SWEEPING],
		 (unsigned long long)n[PROFILE_STATE_WAITING_GVL],
		 (unsigned long long)n[PROFILE_STATE_BLOCKED],
		 (unsigned long long)n[PROFILE_STATE_NO_GVL]);
	ck_assert_str_eq(profile_state_summary(n, got, sizeof(got)), want);
	/* Cut short: terminated, a prefix. */
	profile_state_summary(n, got, 20);
	ck_assert_uint_eq(strlen(got), 19);
	ck_assert(!strncmp(got, want, 19));

	ck_assert_int_eq(profile_state_leaves(PROFILE_STATE_MARKING, leaf), 2);
	ck_assert_str_eq(leaf[0], "(garbage collection)");
	ck_assert_str_eq(leaf[1], "(marking)");
	ck_assert_int_eq(profile_state_leaves(PROFILE_STATE_GC, leaf), 1);
	ck_assert_str_eq(leaf[0], "(garbage collection)");
	ck_assert_ptr_null(leaf[1]);
	ck_assert_int_eq(profile_state_leaves(PROFILE_STATE_NO_GVL, leaf), 1);
	ck_assert_str_eq(leaf[0], "(running without GVL)");
	ck_assert_int_eq(profile_state_leaves(PROFILE_STATE_RUNNING, leaf), 0);
	ck_assert_ptr_null(leaf[0]);
	ck_assert_int_eq(profile_state_leaves(PROFILE_STATE_UNKNOWN, leaf), 0);

	/* pprof's labels, as recorded profiles carry them. */
	ck_assert_str_eq(profile_state_name(PROFILE_STATE_UNKNOWN), "unknown");
	ck_assert_str_eq(profile_state_name(PROFILE_STATE_GC), "gc");
	ck_assert_str_eq(profile_state_name(PROFILE_STATE_NO_GVL),
			 "running without GVL");
	ck_assert_str_eq(profile_state_name((enum profile_state)PROFILE_STATES),
			 "unknown");

	for (int s = 0; s < PROFILE_STATES; s++) {
		const struct profile_state_desc *d = profile_state_desc(s);

		ck_assert_int_eq(profile_state_desc(d->group)->group, d->group);
		ck_assert_ptr_nonnull(d->label);
		ck_assert(d->group == s || d->leaf);
		for (int t = 0; t < s; t++) {
			const struct profile_state_desc *e =
				profile_state_desc(t);

			ck_assert_str_ne(d->label, e->label);
			ck_assert(!d->leaf || !e->leaf ||
				  strcmp(d->leaf, e->leaf));
		}
	}
}
END_TEST

/* The user's lists of states (README, rbflame(1)) name every leaf, as
 * code in the README, in bold in the man page. */
START_TEST(test_states_documented)
{
	static const struct {
		const char *file, *open, *close;
	} docs[] = { { "README", "`", "`" }, { "rbflame.1", "\\fB", "\\fR" } };

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char path[4096], want[256], *text = NULL;
		size_t len = 0;
		FILE *f, *m = open_memstream(&text, &len);
		int c;

		snprintf(path, sizeof(path), "%s/%s", SRCDIR, docs[i].file);
		f = fopen(path, "r");
		ck_assert_msg(f != NULL, "cannot open %s", path);
		while ((c = getc(f)) != EOF)
			putc(c, m);
		fclose(f);
		fclose(m);
		for (int s = 0; s < PROFILE_STATES; s++) {
			const char *leaf = profile_state_desc(s)->leaf;

			if (!leaf)
				continue;
			snprintf(want, sizeof(want), "%s%s%s", docs[i].open,
				 leaf, docs[i].close);
			ck_assert_msg(strstr(text, want),
				      "%s does not describe the state %s",
				      docs[i].file, leaf);
		}
		free(text);
	}
}
END_TEST

/* Threads: one record per (pid, tid), renamed in place, many of them. */
START_TEST(test_threads)
{
	struct profile *p = profile_create();

	ck_assert_ptr_null(profile_thread_find(p, 1, 2));
	profile_thread_name(p, 1, 2, "main");
	profile_thread_name(p, 1, 2, "worker");
	ck_assert_uint_eq(p->nthreads, 1);
	ck_assert_str_eq(profile_str_get(p, profile_thread_find(p, 1, 2)->name),
			 "worker");
	/* The same name again, a new one, then back, and none. */
	profile_thread_name(p, 1, 2, "worker");
	ck_assert_str_eq(profile_str_get(p, profile_thread_find(p, 1, 2)->name),
			 "worker");
	profile_thread_name(p, 1, 2, "main");
	ck_assert_str_eq(profile_str_get(p, profile_thread_find(p, 1, 2)->name),
			 "main");
	profile_thread_name(p, 1, 2, NULL);
	ck_assert_str_eq(profile_str_get(p, profile_thread_find(p, 1, 2)->name),
			 "");
	ck_assert_uint_eq(p->nthreads, 1);
	for (int i = 0; i < 1000; i++)
		profile_thread_name(p, 7, i, i % 2 ? "odd" : "even");
	ck_assert_uint_eq(p->nthreads, 1001);
	ck_assert_str_eq(profile_str_get(p, profile_thread_find(p, 7, 999)->name),
			 "odd");
	ck_assert_ptr_null(profile_thread_find(p, 2, 1));
	profile_destroy(p);
}
END_TEST

/* A thread id as text: a tid, or an M:N Ruby thread's number. */
START_TEST(test_thread_id)
{
	char buf[24];

	ck_assert_str_eq(profile_thread_id(4242, buf, sizeof(buf)), "4242");
	ck_assert_str_eq(profile_thread_id(-3, buf, sizeof(buf)), "mn3");
	ck_assert_str_eq(profile_thread_id(0, buf, sizeof(buf)), "0");
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

/* max_frames: past the cap a frame not seen yet is [frame limit]
 * (counted; no string added), one seen before keeps its id, and a stack
 * ends at its first [frame limit]. */
START_TEST(test_frame_cap)
{
	struct profile *p = profile_create();
	struct profile_frame_desc d = { .kind = PROFILE_FRAME_RUBY, .line = 1 };
	uint32_t ids[10], stack[3], limit, nstr;
	char name[32], file[32];

	p->max_frames = 8;
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		snprintf(file, sizeof(file), "eval-%d.rb", i);
		d.name = name;
		d.file = file;
		ids[i] = profile_frame_make(p, &d);
	}
	/* 3 new strings a frame: the 32-string cap (4 a frame) or the
	 * frame cap stops them before the ninth. */
	limit = ids[9];
	ck_assert_str_eq(profile_frame_name(p, limit), PROFILE_FRAME_LIMIT);
	ck_assert_uint_eq(ids[8], limit);
	ck_assert_uint_le(p->nframes, 9);
	ck_assert_uint_ge(p->stats.frame_limit, 2);
	nstr = intern_count(p->names);
	d.name = "m0";
	d.file = "eval-0.rb";
	ck_assert_uint_eq(profile_frame_make(p, &d), ids[0]);
	d.name = "brand-new";
	ck_assert_uint_eq(profile_frame_make(p, &d), limit);
	ck_assert_uint_eq(profile_frame(p, "another"), limit);
	ck_assert_uint_eq(intern_count(p->names), nstr);
	stack[0] = ids[0];
	stack[1] = limit;
	stack[2] = ids[1];
	profile_add(p, 0, 1, stack, 3);
	ck_assert_uint_eq(p->stacks[0].depth, 2);
	ck_assert_uint_eq(p->stacks[0].frames[1], limit);
	/* 0: no cap. */
	p->max_frames = 0;
	ck_assert_uint_ne(profile_frame(p, "another"), limit);
	profile_destroy(p);
}
END_TEST

/* |got - want| <= want / 64: a quantile within its bucket's precision. */
#define ck_assert_near64(got, want)                                         \
	ck_assert_uint_le((got) > (want) ? (got) - (want) : (want) - (got), \
			  (want) / 64)

/* Durations and their quantiles (the summary's stop, held, latency):
 * chosen as rank q * (n - 1), rounded, within 1/64 (a histogram's
 * bucket; exact below 128 ns and at q 0 and 1); each capped at
 * UINT32_MAX ns; a recording's total and count alone give no quantile. */
START_TEST(test_times)
{
	struct profile *p = profile_create();
	struct profile_times *pt = &p->stats.held;
	struct profile_times loaded = { .total_ns = 5000, .count = 5 };

	ck_assert_uint_eq(profile_times_quantile(pt, 0.5), 0);
	for (uint64_t ns = 100; ns >= 1; ns--)
		profile_times_note(pt, ns * 1000);
	ck_assert_uint_eq(pt->count, 100);
	ck_assert_uint_eq(pt->total_ns, 5050 * 1000);
	ck_assert_near64(profile_times_quantile(pt, 0.5), 51000);
	ck_assert_near64(profile_times_quantile(pt, 0.99), 99000);
	ck_assert_uint_eq(profile_times_quantile(pt, 0), 1000);
	ck_assert_uint_eq(profile_times_quantile(pt, 1), 100000);
	profile_times_note(pt, 10ull * 1000000000ull);
	ck_assert_uint_eq(profile_times_quantile(pt, 1), UINT32_MAX);
	ck_assert_uint_eq(pt->total_ns, 5050 * 1000 + 10ull * 1000000000ull);
	ck_assert_uint_eq(profile_times_quantile(&loaded, 0.5), 0);
	profile_destroy(p);
}
END_TEST

/* Every bucket: small values exact, each value's quantile within 1/64
 * of it, whatever the octave (up to the cap). */
START_TEST(test_times_buckets)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 129, 255, 256, 1000,
		19000, 123457, 999999, 1ull << 20, (1ull << 31) + 12345,
		UINT32_MAX };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct profile_times pt = { 0 };

		/* Three the same, so the middle one is no min or max. */
		profile_times_note(&pt, vals[i] ? vals[i] - 1 : 0);
		profile_times_note(&pt, vals[i]);
		profile_times_note(&pt, vals[i] < UINT32_MAX ? vals[i] + 1
							      : vals[i]);
		if (vals[i] < 127)
			ck_assert_uint_eq(profile_times_quantile(&pt, 0.5),
					  vals[i]);
		else
			ck_assert_near64(profile_times_quantile(&pt, 0.5),
					 vals[i]);
		profile_times_fini(&pt);
	}
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
	tcase_add_test(tc, test_again);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_frames);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_thread_id);
	tcase_add_test(tc, test_states);
	tcase_add_test(tc, test_states_documented);
	tcase_add_test(tc, test_frame_cap);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_times_buckets);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
