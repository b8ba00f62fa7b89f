// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The flamegraph's frame tree: stacks merge from the root by text, totals
 * and self counts per node, two profiles counted side by side, children
 * sorted bytewise, and frame classes from kinds and from bare names.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/flametree.h"

/* The child of node with that text, or FLAMETREE_NONE. */
static uint32_t
child(const struct flametree *t, uint32_t node, const char *text)
{
	for (uint32_t c = t->nodes[node].child; c != FLAMETREE_NONE;
	     c = t->nodes[c].next)
		if (!strcmp(flametree_str(t, t->nodes[c].text), text))
			return c;
	return FLAMETREE_NONE;
}

START_TEST(test_merge)
{
	struct profile *p = profile_create(), *q = profile_create();
	struct flametree *t = flametree_create();
	uint32_t f[3], main_n, b, a;
	const char *order[3];
	size_t k = 0;

	f[0] = profile_frame(p, "main");
	f[1] = profile_frame(p, "b");
	f[2] = profile_frame(p, "x");
	profile_add_count(p, f, 3, 5);		/* main;b;x 5 */
	profile_add_count(p, f, 2, 2);		/* main;b 2 */
	f[1] = profile_frame(p, "a");
	profile_add_count(p, f, 3, 1);		/* main;a;x 1 */
	f[1] = profile_frame(p, "B");
	profile_add_count(p, f, 2, 1);		/* main;B 1 */
	/* The base: other ids for the same texts. */
	f[0] = profile_frame(q, "zzz");
	f[0] = profile_frame(q, "main");
	f[1] = profile_frame(q, "b");
	profile_add_count(q, f, 2, 4);

	flametree_add(t, p, FLAMETREE_NEW);
	flametree_add(t, q, FLAMETREE_BASE);
	flametree_sort(t);
	ck_assert_uint_eq(t->nodes[FLAMETREE_ROOT].total[FLAMETREE_NEW], 9);
	ck_assert_uint_eq(t->nodes[FLAMETREE_ROOT].total[FLAMETREE_BASE], 4);
	main_n = child(t, FLAMETREE_ROOT, "main");
	ck_assert_uint_ne(main_n, FLAMETREE_NONE);
	ck_assert_uint_eq(t->nodes[main_n].total[FLAMETREE_NEW], 9);
	ck_assert_uint_eq(t->nodes[main_n].self[FLAMETREE_NEW], 0);
	b = child(t, main_n, "b");
	ck_assert_uint_eq(t->nodes[b].total[FLAMETREE_NEW], 7);
	ck_assert_uint_eq(t->nodes[b].self[FLAMETREE_NEW], 2);
	ck_assert_uint_eq(t->nodes[b].total[FLAMETREE_BASE], 4);
	ck_assert_uint_eq(t->nodes[b].self[FLAMETREE_BASE], 4);
	a = child(t, main_n, "a");
	ck_assert_uint_eq(t->nodes[child(t, a, "x")].total[FLAMETREE_NEW], 1);
	ck_assert_uint_eq(t->nodes[child(t, b, "x")].depth, 3);
	ck_assert_uint_eq(t->max_depth, 3);
	/* Sorted bytewise: "B" < "a" < "b". */
	for (uint32_t c = t->nodes[main_n].child; c != FLAMETREE_NONE;
	     c = t->nodes[c].next)
		order[k++] = flametree_str(t, t->nodes[c].text);
	ck_assert_uint_eq(k, 3);
	ck_assert_str_eq(order[0], "B");
	ck_assert_str_eq(order[1], "a");
	ck_assert_str_eq(order[2], "b");
	flametree_destroy(t);
	profile_destroy(p);
	profile_destroy(q);
}
END_TEST

START_TEST(test_labels)
{
	struct profile *p = profile_create();
	struct flametree *t = flametree_create();
	struct profile_frame_desc d = {
		.kind = PROFILE_FRAME_RUBY, .name = "A#pow", .file = "/a.rb",
		.line = 12,
	};
	uint32_t f[2], n;

	f[0] = profile_frame(p, "<main> (/a.rb:3)");	/* collapsed input */
	f[1] = profile_frame_make(p, &d);
	profile_add_count(p, f, 2, 1);
	flametree_add(t, p, FLAMETREE_NEW);
	n = child(t, FLAMETREE_ROOT, "<main> (/a.rb:3)");
	ck_assert_str_eq(flametree_str(t, t->nodes[n].label), "<main>");
	ck_assert_str_eq(flametree_str(t, t->nodes[n].file), "/a.rb");
	ck_assert_int_eq(t->nodes[n].line, 3);
	ck_assert_int_eq(t->nodes[n].cls, FLAMETREE_RUBY);
	n = child(t, n, "A#pow (/a.rb:12)");
	ck_assert_str_eq(flametree_str(t, t->nodes[n].label), "A#pow");
	ck_assert_int_eq(t->nodes[n].line, 12);
	flametree_destroy(t);
	profile_destroy(p);
}
END_TEST

START_TEST(test_classify)
{
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_CFUNC, "x"),
			 FLAMETREE_CFUNC);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NATIVE, "x"),
			 FLAMETREE_NATIVE);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_STATE,
					    "(marking)"), FLAMETREE_GC);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME,
					    "(garbage collection)"),
			 FLAMETREE_GC);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME,
					    "(waiting for GVL)"),
			 FLAMETREE_IDLE);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_STATE,
					    "(running without GVL)"),
			 FLAMETREE_NOGVL);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME,
					    "thread 12 \"main\""),
			 FLAMETREE_THREAD);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME,
					    "[truncated]"), FLAMETREE_MARKER);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME,
					    "malloc (libc.so.6)"),
			 FLAMETREE_NATIVE);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME, "main"),
			 FLAMETREE_OTHER);
	ck_assert_int_eq(flametree_classify(PROFILE_FRAME_NAME,
					    "f (x (y):z)"), FLAMETREE_NATIVE);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("flametree");
	TCase *tc = tcase_create("tree");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_classify);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
