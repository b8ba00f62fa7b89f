// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The collapsed writer against a golden file, with hostile frame names:
 * separators, newlines, invalid UTF-8, trailing numbers, empty and very
 * long names. Every line must also match flamegraph.pl's and speedscope's
 * line patterns. Its order, frames compared in place, against lines
 * built and sorted the plain way over random profiles.
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

/* The writer's output the plain way: every line built, sorted bytewise
 * (a prefix first), equal texts merged. */
struct refline {
	char *text;
	size_t len;
	uint64_t count;
};

static int
cmp_ref(const void *a, const void *b)
{
	const struct refline *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static char *
reference(const struct profile *p, size_t *outlen)
{
	struct refline *v = calloc(p->nstacks + 1, sizeof(*v));
	size_t n = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, outlen);

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profile_stack *st = &p->stacks[s];
		FILE *l;

		if (!st->count)
			continue;
		l = open_memstream(&v[n].text, &v[n].len);
		for (uint32_t d = 0; d < st->depth; d++) {
			const char *t = profile_frame_name(p, st->frames[d]);
			char c[4096];

			collapsed_sanitize(t, strlen(t), c, sizeof(c));
			fprintf(l, "%s%s", d ? ";" : "", c);
		}
		if (!st->depth)
			fputs("[?]", l);
		fclose(l);
		v[n++].count = st->count;
	}
	qsort(v, n, sizeof(*v), cmp_ref);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = v[i].count;

		while (i + 1 < n && !cmp_ref(&v[i], &v[i + 1])) {
			free(v[i].text);
			c += v[++i].count;
		}
		fprintf(f, "%.*s %llu\n", (int)v[i].len, v[i].text,
			(unsigned long long)c);
		free(v[i].text);
	}
	fclose(f);
	free(v);
	return buf;
}

/*
 * The writer sorts stacks by comparing their frames in place, never
 * building the lines: 300 random profiles over frames made to trip it
 * (one a prefix of another, texts that sanitize alike, ';' and ':',
 * empty names, stacks that are prefixes of others, the empty stack, a
 * frame past 256 bytes) give exactly what building the lines gives.
 */
START_TEST(test_order)
{
	static const char *names[] = {
		"a", "a;b", "a:b", "ab", "b", "", "x 1", "x_1", "caf\xc3\xa9",
		"\xff", "a;", "a:", ";", "zz", "a\nb", "a b",
	};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	char big[300];

	memset(big, 'L', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	srand(1);
	for (int round = 0; round < 300; round++) {
		struct profile *p = profile_create();
		uint32_t ids[17], fr[8];
		size_t a, b;
		char *x, *y;

		for (size_t i = 0; i < nn; i++)
			ids[i] = profile_frame(p, names[i]);
		ids[nn] = profile_frame(p, big);
		for (int k = 0; k < 1 + rand() % 40; k++) {
			size_t depth = (size_t)(rand() % 7);

			for (size_t d = 0; d < depth; d++)
				fr[d] = ids[rand() % (nn + 1)];
			profile_add_count(p, fr, depth, 1 + rand() % 5);
			/* Its prefixes too, now and then. */
			if (depth > 1 && rand() % 3 == 0)
				profile_add_count(p, fr, depth - 1 - rand() %
						  (depth - 1), 1);
		}
		x = write_to_string(p, &a);
		y = reference(p, &b);
		ck_assert_msg(a == b && !memcmp(x, y, a),
			      "round %d:\n%s\n-- wanted --\n%s", round, x, y);
		free(x);
		free(y);
		profile_destroy(p);
	}
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
	tcase_add_test(tc, test_order);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
