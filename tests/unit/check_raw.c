// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The raw recording: its decompressed body against a golden file; the
 * round trip (every writer gives the same bytes from the profile read
 * back as from the original); deterministic gzip; and damaged recordings
 * (truncated, flipped bytes, wrong version) give errors, never crashes.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/load.h"
#include "rbflame/raw.h"
#include "writer_fixture.h"

START_TEST(test_golden)
{
	struct profile *p = fixture_hostile();
	size_t len, blen;
	char *out = fixture_write(&output_raw, p, &len);
	char *body = fixture_gunzip(out, len, RAW_HEADER_LEN, &blen);

	ck_assert(memcmp(out, RAW_MAGIC, RAW_MAGIC_LEN) == 0);
	ck_assert_int_eq(out[RAW_MAGIC_LEN], RAW_VERSION);
	ck_assert_int_eq(out[RAW_MAGIC_LEN + 1], RAW_COMPRESS_GZIP);
	/* gzip header: mtime 0 */
	ck_assert(memcmp(out + RAW_HEADER_LEN + 4, "\0\0\0\0", 4) == 0);
	fixture_golden("raw.golden", body, blen);
	free(body);
	free(out);
	profile_destroy(p);
}
END_TEST

static void
round_trip(struct profile *p)
{
	size_t len;
	char *raw = fixture_write(&output_raw, p, &len);
	struct profile *q = profile_create();
	char err[256];

	ck_assert_msg(profile_load_buffer(q, raw, len, err, sizeof(err)) ==
			      LOAD_RAW,
		      "%s", err);
	for (size_t i = 0; output_at(i); i++) {
		const struct output_ops *w = output_at(i);
		size_t a, b;
		char *x = fixture_write(w, p, &a);
		char *y = fixture_write(w, q, &b);

		ck_assert_msg(a == b && !memcmp(x, y, a),
			      "%s differs after the round trip", w->name);
		free(x);
		free(y);
	}
	free(raw);
	profile_destroy(q);
}

START_TEST(test_round_trip)
{
	struct profile *p = fixture_hostile();

	round_trip(p);
	profile_destroy(p);
	p = fixture_rbspy();
	round_trip(p);
	profile_destroy(p);
	p = profile_create();
	round_trip(p);
	profile_destroy(p);
}
END_TEST

START_TEST(test_damaged)
{
	struct profile *p = fixture_hostile();
	size_t len, blen;
	char *raw = fixture_write(&output_raw, p, &len);
	char *body = fixture_gunzip(raw, len, RAW_HEADER_LEN, &blen);
	char *plain = malloc(RAW_HEADER_LEN + blen);
	char err[256];
	unsigned seed = 7;

	/* The same body uncompressed (compression 0) is valid too. */
	memcpy(plain, raw, RAW_HEADER_LEN);
	plain[RAW_MAGIC_LEN + 1] = RAW_COMPRESS_NONE;
	memcpy(plain + RAW_HEADER_LEN, body, blen);
	{
		struct profile *q = profile_create();

		ck_assert_int_eq(profile_load_buffer(q, plain,
						     RAW_HEADER_LEN + blen, err,
						     sizeof(err)),
				 LOAD_RAW);
		ck_assert_uint_eq(q->nsamples, p->nsamples);
		profile_destroy(q);
	}
	/* Every truncation of both forms is an error. */
	for (size_t cut = RAW_MAGIC_LEN; cut < len; cut++) {
		struct profile *q = profile_create();

		ck_assert_int_eq(profile_load_buffer(q, raw, cut, err,
						     sizeof(err)),
				 -1);
		profile_destroy(q);
	}
	for (size_t cut = RAW_MAGIC_LEN; cut < RAW_HEADER_LEN + blen; cut++) {
		struct profile *q = profile_create();

		ck_assert_int_eq(profile_load_buffer(q, plain, cut, err,
						     sizeof(err)),
				 -1);
		profile_destroy(q);
	}
	/* Flipped bytes in the plain body: an error or a profile. */
	for (int round = 0; round < 3000; round++) {
		struct profile *q = profile_create();
		char *m = malloc(RAW_HEADER_LEN + blen);

		memcpy(m, plain, RAW_HEADER_LEN + blen);
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245 + 12345;
			m[RAW_HEADER_LEN + (seed >> 8) % blen] ^= 1u << (seed % 8);
		}
		(void)profile_load_buffer(q, m, RAW_HEADER_LEN + blen, err,
					  sizeof(err));
		profile_destroy(q);
		free(m);
	}
	raw[RAW_MAGIC_LEN] = 9;
	{
		struct profile *q = profile_create();

		ck_assert_int_eq(profile_load_buffer(q, raw, len, err,
						     sizeof(err)),
				 -1);
		ck_assert_ptr_nonnull(strstr(err, "version 9"));
		profile_destroy(q);
	}
	free(plain);
	free(body);
	free(raw);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("raw");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_damaged);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
