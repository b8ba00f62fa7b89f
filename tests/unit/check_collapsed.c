// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The collapsed writer against a golden file, with hostile frame names:
 * separators, newlines, invalid UTF-8, trailing numbers, empty and very
 * long names. Every line must also match flamegraph.pl's and speedscope's
 * line patterns.
 */
#include "config.h"

#include <check.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/output.h"
#include "rbflame/profile.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

static char *
write_to_string(struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_int_eq(output_collapsed.write(p, f), 0);
	fclose(f);
	return buf;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static struct profile *
hostile_profile(void)
{
	struct profile *p = profile_create();
	char longname[10240 + 1];
	const char *names[] = {
		"main", "a;b", "line\nbreak\r", "\xff\xfe bad utf8 \xc3",
		"name 12", "", "x 1.5", "caf\xc3\xa9 ok", "tab\tend 7",
		"\xed\xa0\x80 surrogate", "thread 12 \"w;1\"",
	};
	uint32_t fr[3];

	memset(longname, 'L', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	fr[0] = profile_frame(p, "main");
	for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++) {
		fr[1] = profile_frame(p, names[i]);
		profile_add_count(p, fr, 2, i);
	}
	fr[1] = profile_frame(p, longname);
	fr[2] = profile_frame(p, "leaf");
	profile_add_count(p, fr, 3, 3);
	profile_add_count(p, fr, 1, 2);
	/* "a;b" and "a:b" sanitize to one text: printed once, summed. */
	fr[1] = profile_frame(p, "a:b");
	profile_add_count(p, fr, 2, 10);
	return p;
}

START_TEST(test_golden)
{
	struct profile *p = hostile_profile();
	size_t len, glen;
	char *out = write_to_string(p, &len);
	char *golden = slurp(SRCDIR "/tests/unit/data/collapsed.golden", &glen);

	if (getenv("RBFLAME_UPDATE_GOLDEN")) {
		FILE *f = fopen(SRCDIR "/tests/unit/data/collapsed.golden", "wb");

		fwrite(out, 1, len, f);
		fclose(f);
	}
	ck_assert_uint_eq(len, glen);
	ck_assert(memcmp(out, golden, len) == 0);
	free(out);
	free(golden);
	profile_destroy(p);
}
END_TEST

START_TEST(test_line_format)
{
	struct profile *p = hostile_profile();
	size_t len;
	char *out = write_to_string(p, &len);
	regex_t fg, ss, diff;
	char *line, *save = NULL;
	int lines = 0;

	/* flamegraph.pl: ^(.*)\s+?(\d+(?:\.\d*)?)$ ; speedscope: ^(.*) (\d+)$ ;
	 * differential misread when the text before the count also ends in
	 * whitespace + number. */
	ck_assert_int_eq(regcomp(&fg, "^(.*)[[:space:]]+([0-9]+(\\.[0-9]*)?)$",
				 REG_EXTENDED), 0);
	ck_assert_int_eq(regcomp(&ss, "^(.*) ([0-9]+)$", REG_EXTENDED), 0);
	ck_assert_int_eq(regcomp(&diff,
				 "[[:space:]]+[0-9]+(\\.[0-9]*)?[[:space:]]+[0-9]+$",
				 REG_EXTENDED), 0);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(regexec(&fg, line, 0, NULL, 0) == 0, "%s", line);
		ck_assert_msg(regexec(&ss, line, 0, NULL, 0) == 0, "%s", line);
		ck_assert_msg(regexec(&diff, line, 0, NULL, 0) != 0, "%s", line);
		ck_assert(strchr(line, '\r') == NULL);
		lines++;
	}
	ck_assert_int_eq(lines, 12);
	regfree(&fg);
	regfree(&ss);
	regfree(&diff);
	free(out);
	profile_destroy(p);
}
END_TEST

START_TEST(test_sanitize)
{
	char out[64];

	collapsed_sanitize("a;b", 3, out, sizeof(out));
	ck_assert_str_eq(out, "a:b");
	collapsed_sanitize("f 12", 4, out, sizeof(out));
	ck_assert_str_eq(out, "f_12");
	collapsed_sanitize("", 0, out, sizeof(out));
	ck_assert_str_eq(out, "[?]");
	collapsed_sanitize("\xff", 1, out, sizeof(out));
	ck_assert_str_eq(out, "\xef\xbf\xbd");
	collapsed_sanitize("12", 2, out, sizeof(out));
	ck_assert_str_eq(out, "12");
	/* Never overflows. */
	collapsed_sanitize("\xff\xff\xff\xff", 4, out, 6);
	ck_assert_uint_le(strlen(out), 5);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("collapsed");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_line_format);
	tcase_add_test(tc, test_sanitize);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
