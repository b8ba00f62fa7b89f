// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Call-graph aggregation: rbspy's six-stack example (self counts, edge
 * samples and estimated calls), recursion counted once per sample,
 * frames at several lines as one function, and counted stacks without
 * times.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/profile.h"

static uint32_t
rb(struct profile *p, const char *name, const char *file, int line)
{
	struct profile_frame_desc d = {
		.kind = PROFILE_FRAME_RUBY, .name = name, .file = file,
		.line = line,
	};

	return profile_frame_make(p, &d);
}

/* The function index of a frame. */
static uint32_t
fn(const struct callgraph *g, uint32_t frame)
{
	return g->frame_func[frame];
}

static const struct callgraph_edge *
edge(const struct callgraph *g, uint32_t caller, uint32_t callee)
{
	size_t n;
	const struct callgraph_edge *e = callgraph_callees(g, caller, &n);

	for (size_t i = 0; i < n; i++)
		if (e[i].callee == callee)
			return &e[i];
	return NULL;
}

/* FORMATS.md: stacks (root first) [1], [1,2,3], [1,2], [1,3], [1,2],
 * [1,X,3] in one thread. */
START_TEST(test_rbspy_example)
{
	struct profile *p = profile_create();
	uint32_t f1 = rb(p, "func1", "file1.rb", 1);
	uint32_t f2 = rb(p, "func2", "file2.rb", 2);
	uint32_t f3 = rb(p, "func3", "file3.rb", 3);
	uint32_t fx = rb(p, "funcX", "file1.rb", 42);
	uint32_t s[6][3] = {
		{ f1 }, { f1, f2, f3 }, { f1, f2 }, { f1, f3 }, { f1, f2 },
		{ f1, fx, f3 },
	};
	size_t d[6] = { 1, 3, 2, 2, 2, 3 };
	struct callgraph *g;

	for (int i = 0; i < 6; i++)
		profile_add(p, i * 10, 7, s[i], d[i]);
	g = callgraph_create(p);
	ck_assert_uint_eq(g->nfuncs, 4);
	ck_assert_uint_eq(g->samples, 6);
	ck_assert_uint_eq(g->funcs[fn(g, f1)].self, 1);
	ck_assert_uint_eq(g->funcs[fn(g, f1)].total, 6);
	ck_assert_uint_eq(g->funcs[fn(g, f2)].self, 2);
	ck_assert_uint_eq(g->funcs[fn(g, f2)].total, 3);
	ck_assert_uint_eq(g->funcs[fn(g, f3)].self, 3);
	ck_assert_uint_eq(g->funcs[fn(g, fx)].self, 0);
	ck_assert_uint_eq(g->funcs[fn(g, fx)].line, 42);
	ck_assert_uint_eq(edge(g, fn(g, f1), fn(g, f2))->count, 3);
	ck_assert_uint_eq(edge(g, fn(g, f1), fn(g, f2))->calls, 2);
	ck_assert_uint_eq(edge(g, fn(g, f1), fn(g, f3))->count, 1);
	ck_assert_uint_eq(edge(g, fn(g, f1), fn(g, f3))->calls, 1);
	ck_assert_uint_eq(edge(g, fn(g, f1), fn(g, fx))->calls, 1);
	ck_assert_uint_eq(edge(g, fn(g, fx), fn(g, f3))->count, 1);
	ck_assert_uint_eq(edge(g, fn(g, fx), fn(g, f3))->calls, 1);
	ck_assert_uint_eq(edge(g, fn(g, f2), fn(g, f3))->count, 1);
	ck_assert_uint_eq(edge(g, fn(g, f2), fn(g, f3))->calls, 1);
	ck_assert_ptr_null(edge(g, fn(g, f3), fn(g, f1)));
	ck_assert_uint_eq(g->nedges, 5);
	/* Edges sorted by caller, then callee. */
	for (size_t i = 1; i < g->nedges; i++)
		ck_assert(g->edges[i - 1].caller < g->edges[i].caller ||
			  (g->edges[i - 1].caller == g->edges[i].caller &&
			   g->edges[i - 1].callee < g->edges[i].callee));
	callgraph_destroy(g);
	profile_destroy(p);
}
END_TEST

/* main -> f -> f -> f: f's total and the f -> f edge count the sample
 * once; lines of one method are one function with per-line figures. */
START_TEST(test_recursion_and_lines)
{
	struct profile *p = profile_create();
	uint32_t m = rb(p, "<main>", "a.rb", 1);
	uint32_t f10 = rb(p, "f", "a.rb", 10), f11 = rb(p, "f", "a.rb", 11);
	uint32_t s1[] = { m, f10, f10, f11 }, s2[] = { m, f11 };
	struct callgraph *g;
	const struct callgraph_line *l;
	size_t n;

	profile_add_count(p, s1, 4, 5);
	profile_add_count(p, s2, 2, 2);
	g = callgraph_create(p);
	ck_assert_uint_eq(fn(g, f10), fn(g, f11));
	ck_assert_uint_eq(g->nfuncs, 2);
	ck_assert_uint_eq(g->funcs[fn(g, f10)].total, 7);
	ck_assert_uint_eq(g->funcs[fn(g, f10)].self, 7);
	ck_assert_uint_eq(g->funcs[fn(g, f10)].line, 10);
	ck_assert_uint_eq(edge(g, fn(g, f10), fn(g, f10))->count, 5);
	ck_assert_uint_eq(edge(g, fn(g, m), fn(g, f10))->count, 7);
	/* Untimed stacks are visited once each in stack order; the two
	 * share main -> f, so that is one call, and f -> f another. */
	ck_assert_uint_eq(edge(g, fn(g, m), fn(g, f10))->calls, 1);
	ck_assert_uint_eq(edge(g, fn(g, f10), fn(g, f10))->calls, 2);
	l = callgraph_lines(g, fn(g, f10), &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(l[0].line, 10);
	ck_assert_uint_eq(l[0].total, 5);
	ck_assert_uint_eq(l[0].self, 0);
	ck_assert_int_eq(l[1].line, 11);
	ck_assert_uint_eq(l[1].total, 7);
	ck_assert_uint_eq(l[1].self, 7);
	l = callgraph_lines(g, fn(g, m), &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(l[0].total, 7);
	callgraph_destroy(g);
	profile_destroy(p);
}
END_TEST

/* Threads interleaved in time: calls are estimated per thread. */
START_TEST(test_threads)
{
	struct profile *p = profile_create();
	uint32_t a = profile_frame(p, "a"), b = profile_frame(p, "b");
	uint32_t s[] = { a, b };
	struct callgraph *g;

	for (int i = 0; i < 4; i++) {
		profile_add(p, i, 1, s, 2);
		profile_add(p, i, 2, s, 1);
	}
	g = callgraph_create(p);
	ck_assert_uint_eq(edge(g, fn(g, a), fn(g, b))->count, 4);
	ck_assert_uint_eq(edge(g, fn(g, a), fn(g, b))->calls, 1);
	ck_assert_uint_eq(g->funcs[fn(g, a)].self, 4);
	ck_assert_uint_eq(g->funcs[fn(g, a)].total, 8);
	callgraph_destroy(g);
	profile_destroy(p);
}
END_TEST

/* A C method's file and line are its caller's: one function for all. */
START_TEST(test_cfunc)
{
	struct profile *p = profile_create();
	struct profile_frame_desc d = {
		.kind = PROFILE_FRAME_CFUNC, .name = "Integer#times",
		.file = "a.rb", .line = 3,
	};
	uint32_t m = rb(p, "<main>", "a.rb", 1), c1, c2;
	uint32_t s[2];
	struct callgraph *g;

	c1 = profile_frame_make(p, &d);
	d.file = "b.rb";
	d.line = 7;
	c2 = profile_frame_make(p, &d);
	s[0] = m;
	s[1] = c1;
	profile_add_count(p, s, 2, 1);
	s[1] = c2;
	profile_add_count(p, s, 2, 2);
	g = callgraph_create(p);
	ck_assert_uint_eq(fn(g, c1), fn(g, c2));
	ck_assert_uint_eq(g->funcs[fn(g, c1)].self, 3);
	callgraph_destroy(g);
	profile_destroy(p);
}
END_TEST

START_TEST(test_empty)
{
	struct profile *p = profile_create();
	struct callgraph *g = callgraph_create(p);
	size_t n;

	ck_assert_uint_eq(g->nfuncs, 0);
	ck_assert_uint_eq(g->samples, 0);
	callgraph_callees(g, 0, &n);
	ck_assert_uint_eq(n, 0);
	callgraph_destroy(g);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("callgraph");
	TCase *tc = tcase_create("aggregate");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_rbspy_example);
	tcase_add_test(tc, test_recursion_and_lines);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_cfunc);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
