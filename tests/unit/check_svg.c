// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The SVG writer on hostile frame names: every frame is drawn with its
 * text (escaped) in its tooltip, nothing that is not XML gets out (markup
 * characters, control characters, invalid UTF-8), the same profile gives
 * the same bytes, and --title and --icicle take effect. xmllint and a
 * browser check real files in tests/views/svg.sh.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/output.h"
#include "rbflame/profile.h"

static char *
write_svg(const struct profile *p, const struct output_opts *o)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(output_write(&output_svg, p, o, f), 0);
	fclose(f);
	return buf;
}

static const char *const names[] = {
	"<main>", "a & b", "\"quoted\" 'x'", "ctl\x01\x1f\x7f", "bad \xff\xfe",
	"caf\xc3\xa9", "]]> cdata", "A#pow (/x/a.rb:12)",
};
static const char *const escaped[] = {
	"&lt;main&gt;", "a &amp; b", "&quot;quoted&quot; &#39;x&#39;",
	"ctl   ", "bad \xef\xbf\xbd\xef\xbf\xbd", "caf\xc3\xa9",
	"]]&gt; cdata", "A#pow (/x/a.rb:12)",
};

static struct profile *
hostile(void)
{
	struct profile *p = profile_create();
	uint32_t f[2];
	struct profile_frame_desc st = {
		.kind = PROFILE_FRAME_STATE, .name = "(garbage collection)",
	};

	f[0] = profile_frame(p, "root");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		f[1] = profile_frame(p, names[i]);
		profile_add_count(p, f, 2, i + 1);
	}
	f[1] = profile_frame_make(p, &st);
	profile_add_count(p, f, 2, 3);
	return p;
}

START_TEST(test_every_frame)
{
	struct profile *p = hostile();
	char *svg = write_svg(p, NULL);

	for (size_t i = 0; i < sizeof(escaped) / sizeof(escaped[0]); i++) {
		char want[128];

		snprintf(want, sizeof(want), "<title>%s&#10;", escaped[i]);
		ck_assert_msg(strstr(svg, want), "no frame %s", want);
	}
	ck_assert(strstr(svg, "<title>(garbage collection)&#10;3 samples"));
	ck_assert(strstr(svg, "<title>root&#10;39 samples (100.00%)"));
	ck_assert(strstr(svg, ">Flame Graph</text>"));
	/* Control characters never reach the file, but for newlines. */
	for (const char *c = svg; *c; c++)
		ck_assert_msg((unsigned char)*c >= 0x20 || *c == '\n' ||
				      *c == '\t',
			      "control character 0x%02x", *c);
	/* Only the script and style sections are CDATA. */
	ck_assert_ptr_eq(strstr(svg, "]]> cdata"), NULL);
	free(svg);
	profile_destroy(p);
}
END_TEST

START_TEST(test_deterministic)
{
	struct profile *p = hostile(), *q = profile_create();
	char *a = write_svg(p, NULL), *b = write_svg(p, NULL), *c;
	uint32_t f[2];

	ck_assert_str_eq(a, b);
	/* The same stacks added in another order: the same picture. */
	f[0] = profile_frame(q, "root");
	for (size_t i = sizeof(names) / sizeof(names[0]); i-- > 0;) {
		f[1] = profile_frame(q, names[i]);
		profile_add_count(q, f, 2, i + 1);
	}
	{
		struct profile_frame_desc st = {
			.kind = PROFILE_FRAME_STATE,
			.name = "(garbage collection)",
		};

		f[1] = profile_frame_make(q, &st);
		profile_add_count(q, f, 2, 3);
	}
	c = write_svg(q, NULL);
	ck_assert_str_eq(a, c);
	free(a);
	free(b);
	free(c);
	profile_destroy(p);
	profile_destroy(q);
}
END_TEST

START_TEST(test_options)
{
	struct profile *p = hostile();
	struct output_opts o = { .title = "T <1>", .icicle = true };
	char *svg = write_svg(p, &o);

	ck_assert(strstr(svg, ">T &lt;1&gt;</text>"));
	/* Icicle: "all" at the top of the plot, "root" under it. */
	ck_assert(strstr(svg, "<title>root&#10;"));
	ck_assert(strstr(strstr(svg, "<title>all&#10;"),
			 "<rect x=\"10.0\" y=\"84.0\""));
	ck_assert(strstr(strstr(svg, "<title>root&#10;"),
			 "<rect x=\"10.0\" y=\"100.0\""));
	free(svg);
	o.title = NULL;
	svg = write_svg(p, &o);
	ck_assert(strstr(svg, ">Icicle Graph</text>"));
	free(svg);
	profile_destroy(p);
}
END_TEST

START_TEST(test_empty)
{
	struct profile *p = profile_create();
	char *svg = write_svg(p, NULL);

	ck_assert(strstr(svg, ">no samples</text>"));
	ck_assert(strstr(svg, "</svg>\n"));
	free(svg);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("svg");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_every_frame);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
