// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Perf maps (src/perfmap.c): YJIT's lines named "[TAG] Class#method",
 * lookups inside and outside the ranges, lines that do not parse skipped,
 * text past the last newline left for the next read, and the file read
 * on from where it stopped as the JIT appends to it.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/perfmap.h"
#include "rbflame/tfile.h"

START_TEST(test_yjit_lines)
{
	struct perfmap *pm = perfmap_create(NULL, "/none", "yjit");
	/* As YJIT 3.3 writes them (codegen.rs, flush_perf_symbols). */
	const char *text = "7f0000001000 40 [JIT] Worker#plus\n"
			   "7f0000000800 10 [JIT] Worker#scale\n"
			   "7f0000002000 8 block in <main>\n";

	ck_assert_uint_eq(perfmap_add_text(pm, text, strlen(text)),
			  strlen(text));
	ck_assert_uint_eq(perfmap_count(pm), 3);
	ck_assert_str_eq(perfmap_lookup(pm, 0x7f0000001000),
			 "[yjit] Worker#plus");
	ck_assert_str_eq(perfmap_lookup(pm, 0x7f000000103f),
			 "[yjit] Worker#plus");
	ck_assert_ptr_null(perfmap_lookup(pm, 0x7f0000001040));
	ck_assert_str_eq(perfmap_lookup(pm, 0x7f0000000805),
			 "[yjit] Worker#scale");
	ck_assert_str_eq(perfmap_lookup(pm, 0x7f0000002007),
			 "[yjit] block in <main>");
	ck_assert_ptr_null(perfmap_lookup(pm, 0x7f00000007ff));
	ck_assert_ptr_null(perfmap_lookup(pm, 0));
	perfmap_destroy(pm);
}
END_TEST

START_TEST(test_bad_lines)
{
	struct perfmap *pm = perfmap_create(NULL, "/none", "yjit");
	char text[8192];
	size_t n;

	n = (size_t)snprintf(text, sizeof(text),
			     "zz 10 bad start\n"
			     "1000 0 empty\n"
			     "1000 10\n"
			     "ffffffffffffffff 10 wraps\n"
			     "11112222333344445 10 seventeen digits\n"
			     "2000 10 a\x1b[2Jb\n"
			     "\n"
			     "3000 10 tail without newline");
	ck_assert_uint_eq(perfmap_add_text(pm, text, n),
			  n - strlen("3000 10 tail without newline"));
	ck_assert_uint_eq(perfmap_count(pm), 1);
	ck_assert_str_eq(perfmap_lookup(pm, 0x2000), "[yjit] a?[2Jb");
	ck_assert_ptr_null(perfmap_lookup(pm, 0x3000));
	/* A line longer than any is skipped up to its newline. */
	memset(text, 'a', sizeof(text));
	ck_assert_uint_eq(perfmap_add_text(pm, text, sizeof(text)),
			  sizeof(text));
	n = (size_t)snprintf(text, sizeof(text), "aaaa\n4000 10 after\n");
	ck_assert_uint_eq(perfmap_add_text(pm, text, n), n);
	ck_assert_uint_eq(perfmap_count(pm), 2);
	ck_assert_str_eq(perfmap_lookup(pm, 0x4000), "[yjit] after");
	perfmap_destroy(pm);
}
END_TEST

/* The file read through a root as the JIT appends to it. */
START_TEST(test_file_grows)
{
	char dir[] = "/tmp/check_perfmap.XXXXXX";
	char path[128];
	struct tfile_root *root;
	struct perfmap *pm;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	root = tfile_root_dir(dir);
	ck_assert_ptr_nonnull(root);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	pm = perfmap_create(root, "/perf-1.map", "yjit");
	/* No file yet: nothing, and no harm. */
	ck_assert_ptr_null(perfmap_lookup(pm, 0x1000));
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("1000 10 [JIT] A#a\n2000 10 [JIT] B#", f);
	fflush(f);
	ck_assert_str_eq(perfmap_lookup(pm, 0x1000), "[yjit] A#a");
	ck_assert_ptr_null(perfmap_lookup(pm, 0x2000));
	fputs("b\n", f);
	fflush(f);
	ck_assert_str_eq(perfmap_lookup(pm, 0x2000), "[yjit] B#b");
	ck_assert_uint_eq(perfmap_count(pm), 2);
	fclose(f);
	perfmap_destroy(pm);
	tfile_root_destroy(root);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *
perfmap_suite(void)
{
	Suite *s = suite_create("perfmap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_yjit_lines);
	tcase_add_test(tc, test_bad_lines);
	tcase_add_test(tc, test_file_grows);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(perfmap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
