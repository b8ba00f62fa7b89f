// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The callgrind writer: rbspy's own expected output for its six stacks
 * (FORMATS.md; only the creator differs), the same stacks read back from
 * rbflame's collapsed output, and a golden file of the hostile profile
 * (names kept to one line each).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/load.h"
#include "rbflame/xmalloc.h"
#include "writer_fixture.h"

/* rbspy's test, src/ui/callgrind.rs, with "creator: rbflame". */
static const char rbspy_expected[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: rbflame\n"
	"events: Samples\n"
	"\n"
	"fl=file1.rb\nfn=func1\n1 1\n"
	"cfl=file1.rb\ncfn=funcX\ncalls=1 42\n1 1\n"
	"cfl=file2.rb\ncfn=func2\ncalls=2 2\n1 3\n"
	"cfl=file3.rb\ncfn=func3\ncalls=1 3\n1 1\n"
	"\n"
	"fl=file1.rb\nfn=funcX\n42 0\n"
	"cfl=file3.rb\ncfn=func3\ncalls=1 3\n42 1\n"
	"\n"
	"fl=file2.rb\nfn=func2\n2 2\n"
	"cfl=file3.rb\ncfn=func3\ncalls=1 3\n2 1\n"
	"\n"
	"fl=file3.rb\nfn=func3\n3 3\n";

START_TEST(test_rbspy)
{
	struct profile *p = fixture_rbspy();
	size_t len;
	char *out = fixture_write(&output_callgrind, p, &len);

	ck_assert_str_eq(out, rbspy_expected);
	free(out);
	profile_destroy(p);
}
END_TEST

/*
 * The six stacks written as collapsed and read back: files, labels,
 * lines, self (1/2/3/0) and inclusive (3/1/1/1/1) as rbspy expects. Only
 * func1 -> func2's call count differs: its two calls were samples 2-3
 * and 5, and collapsed stacks keep no order, so the merged line
 * "func1;func2 2" is one call.
 */
START_TEST(test_rbspy_from_collapsed)
{
	struct profile *p = fixture_rbspy(), *q = profile_create();
	size_t len, len2;
	char *txt = fixture_write(&output_collapsed, p, &len);
	char *out, *again, err[256];
	char *want = xstrdup(rbspy_expected);
	char *calls = strstr(want, "cfn=func2\ncalls=2 2\n");

	ck_assert_ptr_nonnull(calls);
	calls[strlen("cfn=func2\ncalls=")] = '1';
	ck_assert_int_eq(load_collapsed(q, txt, len, err, sizeof(err)),
			 LOAD_COLLAPSED);
	out = fixture_write(&output_callgrind, q, &len2);
	ck_assert_str_eq(out, want);
	/* Collapsed again: the same bytes. */
	again = fixture_write(&output_collapsed, q, &len2);
	ck_assert_str_eq(again, txt);
	free(again);
	free(out);
	free(want);
	free(txt);
	profile_destroy(q);
	profile_destroy(p);
}
END_TEST

/* Every line of one method is one function, its lines its cost lines. */
START_TEST(test_lines_of_one_method)
{
	static const char text[] =
		"main (/a/m.rb:1);Shop#tax (/a/shop.rb:3) 2\n"
		"main (/a/m.rb:1);Shop#tax (/a/shop.rb:5) 4\n"
		"main (/a/m.rb:2);Shop#tax (/a/shop.rb:5) 1\n";
	static const char want[] =
		"# callgrind format\nversion: 1\ncreator: rbflame\n"
		"events: Samples\n"
		"\n"
		"fl=/a/m.rb\nfn=main\n1 0\n"
		"cfl=/a/shop.rb\ncfn=Shop#tax\ncalls=1 3\n1 7\n"
		"\n"
		"fl=/a/shop.rb\nfn=Shop#tax\n3 2\n5 5\n";
	struct profile *q = profile_create();
	size_t len;
	char *out, err[256];

	ck_assert_int_eq(load_collapsed(q, text, sizeof(text) - 1, err,
					sizeof(err)),
			 LOAD_COLLAPSED);
	out = fixture_write(&output_callgrind, q, &len);
	ck_assert_str_eq(out, want);
	free(out);
	profile_destroy(q);
}
END_TEST

START_TEST(test_golden)
{
	struct profile *p = fixture_hostile();
	size_t len;
	char *out = fixture_write(&output_callgrind, p, &len);
	char *line, *save = NULL;

	fixture_golden("callgrind.golden", out, len);
	/* Every line is a header, a key=value, a cost line or blank. */
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		ck_assert(strchr(line, '\r') == NULL);
		ck_assert(strncmp(line, "fn=(1", 5) != 0);
		ck_assert(strncmp(line, "cfn=(1", 6) != 0);
	}
	free(out);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("callgrind");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_rbspy);
	tcase_add_test(tc, test_rbspy_from_collapsed);
	tcase_add_test(tc, test_lines_of_one_method);
	tcase_add_test(tc, test_golden);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
