// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The native/Ruby weave: anchors by address, hidden VM frames, the
 * placement of Ruby frames, and the mismatch marker. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "rbflame/weave.h"

/* Frame ids: natives 1xx, Ruby frames 2xx, the marker 999. */
#define MARKER 999

/* A native frame of function [start, start + 0x100). */
#define NAT(i, s, v) { .id = (i), .start = (s), .end = (s) + 0x100, .vm = (v) }
#define RB(i) { .id = (i) }
#define CF(i, a) { .id = (i), .cfunc = true, .cfunc_addr = (a) }

/*
 * A main thread in an extension: libc and the ruby executable's main,
 * libruby from ruby_run_node to vm_call_cfunc, Native#crunch's function
 * in the extension, its helper, then zlib.
 */
static const struct weave_native ext_nat[] = {
	NAT(100, 0x1000, false),	/* __libc_start_main */
	NAT(101, 0x2000, false),	/* main (ruby) */
	NAT(102, 0x10000, true),	/* ruby_run_node */
	NAT(103, 0x11000, true),	/* vm_exec_core */
	NAT(104, 0x12000, true),	/* vm_call_cfunc */
	NAT(105, 0x50000, false),	/* native_crunch (anchor) */
	NAT(106, 0x50400, false),	/* crunch_helper */
	NAT(107, 0x70000, false),	/* deflate (libz) */
};
static const struct weave_ruby ext_rb[] = {
	RB(200),			/* <main> */
	RB(201),			/* Object#spin */
	CF(202, 0x50000 + 0x10),	/* Native#crunch: entry inside 105 */
};

START_TEST(test_extension)
{
	uint32_t out[32];
	size_t n;
	const uint32_t want[] = { 100, 101, 200, 201, 202, 105, 106, 107 };

	ck_assert_int_eq(weave(ext_nat, 8, ext_rb, 3, false, MARKER, out, 32,
			       &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(out[i], want[i]);
}
END_TEST

/* --native-all: the VM frames too, the Ruby frames where the last VM run
 * before the anchor begins. */
START_TEST(test_extension_all)
{
	uint32_t out[32];
	size_t n;
	const uint32_t want[] = { 100, 101, 200, 201, 102, 103,
				  104, 202, 105, 106, 107 };

	ck_assert_int_eq(weave(ext_nat, 8, ext_rb, 3, true, MARKER, out, 32,
			       &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(out[i], want[i]);
}
END_TEST

/*
 * A VM C method calling a block (Array#each -> block), whose body calls
 * an extension that calls back into Ruby through rb_yield (a callback of
 * its own in between), and Ruby code at the leaf calling memcpy.
 */
START_TEST(test_nested)
{
	static const struct weave_native nat[] = {
		NAT(100, 0x1000, false),	/* main */
		NAT(101, 0x10000, true),	/* ruby_run_node */
		NAT(102, 0x11000, true),	/* vm_exec_core */
		NAT(103, 0x13000, true),	/* rb_ary_each (anchor) */
		NAT(104, 0x14000, true),	/* rb_yield */
		NAT(105, 0x11000, true),	/* vm_exec_core */
		NAT(106, 0x12000, true),	/* vm_call_cfunc */
		NAT(107, 0x50000, false),	/* ext_each (anchor) */
		NAT(108, 0x15000, true),	/* rb_protect */
		NAT(109, 0x50800, false),	/* ext_callback */
		NAT(110, 0x14000, true),	/* rb_yield */
		NAT(111, 0x11000, true),	/* vm_exec_core */
		NAT(112, 0x16000, true),	/* rb_str_plus */
		NAT(113, 0x2000, false),	/* memcpy (libc) */
	};
	static const struct weave_ruby rb[] = {
		RB(200),		/* <main> */
		CF(201, 0x13000),	/* Array#each */
		RB(202),		/* block in <main> */
		CF(203, 0x50000),	/* Ext#each */
		RB(204),		/* block (2 levels) in <main> */
		RB(205),		/* Object#concat */
	};
	const uint32_t want[] = { 100, 200, 201, 202, 203, 107,
				  108 /* hidden */, 109, 204, 205, 113 };
	const uint32_t want_all[] = { 100, 200, 101, 102, 201, 103, 202, 104,
				      105, 106, 203, 107, 108, 109, 204, 205,
				      110, 111, 112, 113 };
	uint32_t out[64];
	size_t n, k = 0;

	ck_assert_int_eq(weave(nat, 14, rb, 6, false, MARKER, out, 64, &n),
			 WEAVE_OK);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (want[i] == 108)
			continue;
		ck_assert_uint_lt(k, n);
		ck_assert_uint_eq(out[k++], want[i]);
	}
	ck_assert_uint_eq(n, k);

	ck_assert_int_eq(weave(nat, 14, rb, 6, true, MARKER, out, 64, &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, sizeof(want_all) / sizeof(want_all[0]));
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(out[i], want_all[i]);
}
END_TEST

/* Anchored by bounds, not by the first frame: an address at the end of a
 * function, a frame of unknown bounds in the way. */
START_TEST(test_bounds)
{
	static const struct weave_native nat[] = {
		NAT(100, 0x10000, true),
		{ .id = 101, .vm = false },	/* no bounds */
		NAT(102, 0x11000, true),
		NAT(103, 0x50000, false),
	};
	static const struct weave_ruby rb[] = { RB(200), CF(201, 0x500ff) };
	uint32_t out[16];
	size_t n;

	ck_assert_int_eq(weave(nat, 4, rb, 2, false, MARKER, out, 16, &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(out[0], 101);
	ck_assert_uint_eq(out[1], 200);
	ck_assert_uint_eq(out[2], 201);
	ck_assert_uint_eq(out[3], 103);
	/* One byte past the function: no anchor, and not at the leaf. */
	{
		struct weave_ruby r2[] = { RB(200), CF(201, 0x50100), RB(202) };

		ck_assert_int_eq(weave(nat, 4, r2, 3, false, MARKER, out, 16,
				       &n),
				 WEAVE_NO_ANCHOR);
	}
}
END_TEST

/* A C method at the leaf whose function is not running yet (or any
 * more), or that tail-called into libc: no frame of its own, one VM run. */
START_TEST(test_leaf_call)
{
	static const struct weave_native nat[] = {
		NAT(100, 0x1000, false),
		NAT(101, 0x10000, true),
		NAT(102, 0x12000, true),	/* vm_call_cfunc */
	};
	static const struct weave_ruby rb[] = { RB(200), CF(201, 0x50000) };
	static const struct weave_native nat_libc[] = {
		NAT(100, 0x1000, false),
		NAT(101, 0x10000, true),
		NAT(102, 0x3000, false),	/* nanosleep (libc) */
	};
	uint32_t out[16];
	size_t n;

	ck_assert_int_eq(weave(nat, 3, rb, 2, false, MARKER, out, 16, &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(out[0], 100);
	ck_assert_uint_eq(out[1], 200);
	ck_assert_uint_eq(out[2], 201);
	ck_assert_int_eq(weave(nat_libc, 3, rb, 2, false, MARKER, out, 16,
			       &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(out[2], 201);
	ck_assert_uint_eq(out[3], 102);
}
END_TEST

/* Kernel#loop tail-calls rb_rescue2: no frame holds its function. It is
 * woven between the Ruby frames around it when the VM frames up to the
 * next anchor are one run, and is a mismatch when they are not. */
START_TEST(test_tail_call)
{
	static const struct weave_native nat[] = {
		NAT(100, 0x1000, false),	/* main */
		NAT(101, 0x10000, true),	/* ruby_run_node */
		NAT(102, 0x11000, true),	/* vm_exec_core */
		NAT(103, 0x17000, true),	/* rb_rescue2 */
		NAT(104, 0x11000, true),	/* vm_exec_core */
		NAT(105, 0x12000, true),	/* vm_call_cfunc */
		NAT(106, 0x50000, false),	/* rbft_deep (anchor) */
		NAT(107, 0x50100, false),	/* rbft_deep_step */
	};
	static const struct weave_ruby rb[] = {
		RB(200),		/* <main> */
		RB(201),		/* Object#spin */
		CF(202, 0x18000),	/* Kernel#loop: rb_f_loop, no frame */
		RB(203),		/* block in Object#spin */
		CF(204, 0x50000),	/* RbflameTestExt.deep */
	};
	const uint32_t want[] = { 100, 200, 201, 202, 203, 204, 106, 107 };
	/* An extension's frame between two VM runs: which run holds the
	 * Ruby frames is not known any more. */
	static const struct weave_native nat2[] = {
		NAT(100, 0x1000, false),
		NAT(101, 0x10000, true),
		NAT(102, 0x60000, false),	/* ext_callback */
		NAT(103, 0x11000, true),
		NAT(106, 0x50000, false),
	};
	uint32_t out[32];
	size_t n;

	ck_assert_int_eq(weave(nat, 8, rb, 5, false, MARKER, out, 32, &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(out[i], want[i]);
	ck_assert_int_eq(weave(nat2, 5, rb, 5, false, MARKER, out, 32, &n),
			 WEAVE_NO_ANCHOR);
	ck_assert_uint_eq(out[0], MARKER);
}
END_TEST

/* Mismatches keep both halves, in order, under the marker. */
START_TEST(test_mismatch)
{
	/* The anchors in the wrong order: Ext#b's before Ext#a's. */
	static const struct weave_native nat[] = {
		NAT(100, 0x10000, true),
		NAT(101, 0x50000, false),	/* b */
		NAT(102, 0x11000, true),
		NAT(103, 0x60000, false),	/* a */
	};
	static const struct weave_ruby rb[] = {
		RB(200), CF(201, 0x60000), RB(202), CF(203, 0x50000),
	};
	const uint32_t want[] = { MARKER, 200, 201, 202, 203,
				  100, 101, 102, 103 };
	/* Ruby frames and no VM frame at all. */
	static const struct weave_native nat_novm[] = {
		NAT(100, 0x1000, false),
	};
	uint32_t out[16];
	size_t n;

	ck_assert_int_eq(weave(nat, 4, rb, 4, false, MARKER, out, 16, &n),
			 WEAVE_NO_ANCHOR);
	ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(out[i], want[i]);

	ck_assert_int_eq(weave(nat_novm, 1, rb, 1, false, MARKER, out, 16,
			       &n),
			 WEAVE_NO_VM);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(out[0], MARKER);
	ck_assert_uint_eq(out[1], 200);
	ck_assert_uint_eq(out[2], 100);

	/* No room even for the mismatch: nothing. */
	ck_assert_int_eq(weave(nat, 4, rb, 4, false, MARKER, out, 4, &n),
			 WEAVE_NO_ROOM);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* No Ruby frames: the natives, VM frames hidden; no natives and no
 * Ruby frames: empty, woven. */
START_TEST(test_edges)
{
	uint32_t out[16];
	size_t n;

	ck_assert_int_eq(weave(ext_nat, 8, NULL, 0, false, MARKER, out, 16,
			       &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(out[2], 105);
	ck_assert_int_eq(weave(NULL, 0, NULL, 0, false, MARKER, out, 16, &n),
			 WEAVE_OK);
	ck_assert_uint_eq(n, 0);
	/* A C method of unknown address never anchors. */
	{
		struct weave_ruby r[] = { RB(200), CF(201, 0), RB(202) };

		ck_assert_int_eq(weave(ext_nat, 8, r, 3, false, MARKER, out,
				       16, &n),
				 WEAVE_NO_ANCHOR);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("weave");
	TCase *tc = tcase_create("weave");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_extension);
	tcase_add_test(tc, test_extension_all);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_leaf_call);
	tcase_add_test(tc, test_tail_call);
	tcase_add_test(tc, test_mismatch);
	tcase_add_test(tc, test_edges);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
