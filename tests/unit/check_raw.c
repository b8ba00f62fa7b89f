// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The raw recording: its decompressed body against a golden file; the
 * round trip (every writer gives the same bytes from the profile read
 * back as from the original); deterministic gzip; and damaged recordings
 * (truncated, flipped bytes, wrong version) give errors, never crashes;
 * a version 1 recording still loads; the number of states is read;
 * version 3's time weights and complete flag survive the round trip, and
 * a version 2 recording loads without them; COUNTS (reads failed at a
 * process's exit) survives it, and a later build's extra counters load.
 * Caps (issue #20): stack counts that overflow are refused; samples past
 * LOAD_MAX_SAMPLES are counted in their stacks only, and counted.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/load.h"
#include "rbflame/raw.h"
#include "writer_fixture.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

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

/*
 * Weights (version 3): a weighted, complete profile whose samples weigh
 * 1, 2, 3... ms and whose untimed samples weigh 7 ms more reads back with
 * every weight, the flags, and the same output from every writer.
 */
START_TEST(test_weights)
{
	struct profile *p = fixture_hostile();
	struct profile *q = profile_create();
	size_t len;
	char *raw, err[256];

	p->meta.weighted = true;
	p->meta.complete = true;
	for (size_t i = 0; i < p->nsamples; i++) {
		p->samples[i].weight_ns = (i + 1) * 1000000;
		p->stacks[p->samples[i].stack].weight_ns += (i + 1) * 1000000;
	}
	for (size_t s = 0; s < p->nstacks; s++)
		p->stacks[s].weight_ns += 7000000;
	round_trip(p);
	raw = fixture_write(&output_raw, p, &len);
	ck_assert_msg(profile_load_buffer(q, raw, len, err, sizeof(err)) ==
			      LOAD_RAW,
		      "%s", err);
	ck_assert(q->meta.weighted);
	ck_assert(q->meta.complete);
	ck_assert_uint_gt(q->nsamples, 1);
	ck_assert_uint_eq(q->nsamples, p->nsamples);
	for (size_t i = 0; i < q->nsamples; i++)
		ck_assert_uint_eq(q->samples[i].weight_ns, (i + 1) * 1000000);
	for (size_t s = 0; s < q->nstacks; s++)
		ck_assert_uint_eq(q->stacks[s].weight_ns,
				  p->stacks[s].weight_ns);
	ck_assert_uint_eq(profile_weight_total(q), profile_weight_total(p));
	free(raw);
	profile_destroy(q);
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
	raw[RAW_MAGIC_LEN] = 0;
	{
		struct profile *q = profile_create();

		ck_assert_int_eq(profile_load_buffer(q, raw, len, err,
						     sizeof(err)),
				 -1);
		ck_assert_ptr_nonnull(strstr(err, "version 0"));
		ck_assert_ptr_nonnull(strstr(err, "versions 1 to 3"));
		profile_destroy(q);
	}
	free(plain);
	free(body);
	free(raw);
	profile_destroy(p);
}
END_TEST

/* Reads a test data file whole. */
static char *
slurp(const char *name, size_t *len)
{
	char path[4096], *buf = NULL;
	FILE *f, *m = open_memstream(&buf, len);
	int c;

	snprintf(path, sizeof(path), "%s/tests/unit/data/%s", SRCDIR, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/*
 * A version 1 recording (the hostile fixture, written by the version 1
 * writer: its STATS has 8 counts without their number) still loads, and
 * every writer gives from it what it gives from the fixture itself.
 */
START_TEST(test_version_1)
{
	struct profile *p = fixture_hostile();
	struct profile *q = profile_create();
	size_t len;
	char *v1 = slurp("raw-v1.rbflame", &len), err[256];

	ck_assert_int_eq(v1[RAW_MAGIC_LEN], 1);
	ck_assert_msg(profile_load_buffer(q, v1, len, err, sizeof(err)) ==
			      LOAD_RAW,
		      "%s", err);
	for (int s = 0; s < PROFILE_STATES; s++)
		ck_assert_uint_eq(q->stats.per_state[s],
				  p->stats.per_state[s]);
	for (size_t i = 0; output_at(i); i++) {
		const struct output_ops *w = output_at(i);
		size_t a, b;
		char *x = fixture_write(w, p, &a);
		char *y = fixture_write(w, q, &b);

		ck_assert_msg(a == b && !memcmp(x, y, a),
			      "%s differs from a version 1 recording", w->name);
		free(x);
		free(y);
	}
	free(v1);
	profile_destroy(q);
	profile_destroy(p);
}
END_TEST

/* A hand-made uncompressed recording, built record by record. */
struct rec {
	unsigned char b[1024];
	size_t len;
};

static void
rec_byte(struct rec *r, unsigned v)
{
	ck_assert_uint_lt(r->len, sizeof(r->b));
	r->b[r->len++] = (unsigned char)v;
}

static void
rec_varint(struct rec *r, uint64_t v)
{
	do {
		rec_byte(r, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* Appends a record whose payload is p. */
static void
rec_record(struct rec *r, unsigned type, const struct rec *p)
{
	rec_byte(r, type);
	rec_varint(r, p->len);
	for (size_t i = 0; i < p->len; i++)
		rec_byte(r, p->b[i]);
}

/*
 * A version 2 recording with nstates states in STATS (counts: 1 + the
 * state's number for the first 8, then 5 each), one frame "a", one
 * stack, and one sample in each of sample_states[0..n).
 */
static void
recording(struct rec *r, unsigned nstates, const unsigned *sample_states,
	  int n)
{
	struct rec x = { .len = 0 };

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < RAW_MAGIC_LEN; i++)
		rec_byte(r, (unsigned char)RAW_MAGIC[i]);
	rec_byte(r, 2);
	rec_byte(r, RAW_COMPRESS_NONE);
	for (int i = 0; i < 7; i++)
		rec_varint(&x, 0);
	for (int i = 0; i < 16; i++)
		rec_byte(&x, 0);	/* duration, rate: 0.0 */
	rec_varint(&x, nstates);
	for (unsigned s = 0; s < nstates && s < 8; s++)
		rec_varint(&x, 1 + s);
	for (unsigned s = 8; s < nstates; s++)
		rec_varint(&x, 5);
	rec_record(r, RAW_STATS, &x);
	x.len = 0;
	rec_varint(&x, 1);
	rec_byte(&x, 'a');
	rec_record(r, RAW_STRING, &x);
	x.len = 0;
	rec_byte(&x, PROFILE_FRAME_NAME);
	rec_varint(&x, 0);	/* text "a" */
	rec_varint(&x, 0);	/* name "a" */
	rec_varint(&x, 0);	/* no file */
	rec_varint(&x, 0);	/* no build id */
	rec_varint(&x, 0);	/* line */
	rec_varint(&x, 0);	/* address */
	rec_record(r, RAW_FRAME, &x);
	x.len = 0;
	rec_varint(&x, n);	/* count */
	rec_varint(&x, 1);
	rec_varint(&x, 0);
	rec_record(r, RAW_STACK, &x);
	for (int i = 0; i < n; i++) {
		x.len = 0;
		rec_varint(&x, 0);	/* time */
		rec_varint(&x, 2);	/* pid 1 */
		rec_varint(&x, 2);	/* tid 1 */
		rec_varint(&x, 0);	/* stack */
		rec_byte(&x, sample_states[i]);
		rec_record(r, RAW_SAMPLE, &x);
	}
	x.len = 0;
	rec_record(r, RAW_END, &x);
}

/*
 * The number of states is in the recording (version 2): a later build's
 * extra states load as unknown, an earlier one's fewer leave the rest 0;
 * a sample beyond the recording's own states, or more states than a
 * sample's byte can name, is an error.
 */
START_TEST(test_state_count)
{
	const unsigned later[] = { PROFILE_STATE_BLOCKED, PROFILE_STATES };
	const unsigned fewer[] = { 1 };
	const unsigned beyond[] = { 3 };
	struct rec r;
	struct profile *q;
	char err[256];

	recording(&r, PROFILE_STATES + 1, later, 2);
	q = profile_create();
	ck_assert_msg(profile_load_buffer(q, r.b, r.len, err, sizeof(err)) ==
			      LOAD_RAW,
		      "%s", err);
	ck_assert_uint_eq(q->nsamples, 2);
	ck_assert_uint_eq(q->samples[0].state, PROFILE_STATE_BLOCKED);
	ck_assert_uint_eq(q->samples[1].state, PROFILE_STATE_UNKNOWN);
	/* Unknown's own 1, and 5 of the state this build lacks. */
	ck_assert_uint_eq(q->stats.per_state[PROFILE_STATE_UNKNOWN], 6);
	ck_assert_uint_eq(q->stats.per_state[PROFILE_STATE_BLOCKED],
			  1 + PROFILE_STATE_BLOCKED);
	profile_destroy(q);

	recording(&r, 2, fewer, 1);
	q = profile_create();
	ck_assert_msg(profile_load_buffer(q, r.b, r.len, err, sizeof(err)) ==
			      LOAD_RAW,
		      "%s", err);
	/* Version 2: no weights, so a sample stands for one period. */
	ck_assert(!q->meta.weighted);
	ck_assert(!q->meta.complete);
	ck_assert_uint_eq(profile_weight_total(q), profile_period_ns(q));
	ck_assert_uint_eq(q->stats.per_state[1], 2);
	ck_assert_uint_eq(q->stats.per_state[2], 0);
	profile_destroy(q);

	recording(&r, 2, beyond, 1);
	q = profile_create();
	ck_assert_int_eq(profile_load_buffer(q, r.b, r.len, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "bad sample"));
	profile_destroy(q);

	recording(&r, RAW_MAX_STATES + 1, fewer, 0);
	q = profile_create();
	ck_assert_int_eq(profile_load_buffer(q, r.b, r.len, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "bad stats"));
	profile_destroy(q);
}
END_TEST

/*
 * The counters STATS lacks (COUNTS): reads failed as a process exited
 * survive the round trip, and every writer (the summary names them)
 * gives the same bytes; a recording without the record loads them as 0,
 * and a later build's extra counters are skipped.
 */
START_TEST(test_counts)
{
	struct profile *p = fixture_hostile();
	struct profile *q = profile_create();
	size_t len, slen;
	char *raw, *sum, err[256];

	p->stats.exit_failed = 17;
	round_trip(p);
	raw = fixture_write(&output_raw, p, &len);
	ck_assert_msg(profile_load_buffer(q, raw, len, err, sizeof(err)) ==
			      LOAD_RAW,
		      "%s", err);
	ck_assert_uint_eq(q->stats.exit_failed, 17);
	ck_assert_uint_eq(q->stats.failed, p->stats.failed);
	sum = fixture_write(&output_summary, q, &slen);
	ck_assert_ptr_nonnull(strstr(sum, "; 17 more as processes exited)"));
	free(sum);
	free(raw);
	profile_destroy(q);

	/* None: no record, and the summary as it was. */
	p->stats.exit_failed = 0;
	q = profile_create();
	raw = fixture_write(&output_raw, p, &len);
	ck_assert_int_eq(profile_load_buffer(q, raw, len, err, sizeof(err)),
			 LOAD_RAW);
	ck_assert_uint_eq(q->stats.exit_failed, 0);
	sum = fixture_write(&output_summary, q, &slen);
	ck_assert_ptr_null(strstr(sum, "exited"));
	free(sum);
	free(raw);
	profile_destroy(q);
	profile_destroy(p);

	/* A later build's three counters: the first read, the rest
	 * skipped; more than RAW_MAX_COUNTS is damage. */
	for (int bad = 0; bad < 2; bad++) {
		struct rec r = { .len = 0 }, x = { .len = 0 };

		for (int i = 0; i < RAW_MAGIC_LEN; i++)
			rec_byte(&r, (unsigned char)RAW_MAGIC[i]);
		rec_byte(&r, RAW_VERSION);
		rec_byte(&r, RAW_COMPRESS_NONE);
		rec_varint(&x, bad ? RAW_MAX_COUNTS + 1 : 3);
		rec_varint(&x, 5);
		rec_varint(&x, 6);
		rec_varint(&x, 7);
		rec_record(&r, RAW_COUNTS, &x);
		x.len = 0;
		rec_record(&r, RAW_END, &x);
		q = profile_create();
		if (bad) {
			ck_assert_int_eq(profile_load_buffer(q, r.b, r.len, err,
							     sizeof(err)), -1);
			ck_assert_ptr_nonnull(strstr(err, "bad counts"));
		} else {
			ck_assert_msg(profile_load_buffer(q, r.b, r.len, err,
							  sizeof(err)) ==
					      LOAD_RAW,
				      "%s", err);
			ck_assert_uint_eq(q->stats.exit_failed, 5);
		}
		profile_destroy(q);
	}
}
END_TEST

/* Two stacks of 2^63: their sum overflows 64 bits (every share read
 * 0.0% before): refused with one line, not loaded wrapped. */
START_TEST(test_count_overflow)
{
	struct profile *p = profile_create();
	struct profile *q = profile_create();
	uint32_t a = profile_frame(p, "a"), b = profile_frame(p, "b");
	size_t len;
	char *raw, err[256];

	profile_add_count(p, &a, 1, 1ull << 63);
	profile_add_count(p, &b, 1, 1ull << 63);
	raw = fixture_write(&output_raw, p, &len);
	ck_assert_int_eq(profile_load_buffer(q, raw, len, err, sizeof(err)),
			 -1);
	ck_assert_msg(strstr(err, "stack counts add up to more than") != NULL,
		      "%s", err);
	profile_destroy(q);
	free(raw);
	/* One of 2^62 and one of 2^62 - 1 still load, exact. */
	p->stacks[0].count = 1ull << 62;
	p->stacks[1].count = (1ull << 62) - 1;
	raw = fixture_write(&output_raw, p, &len);
	q = profile_create();
	ck_assert_int_eq(profile_load_buffer(q, raw, len, err, sizeof(err)),
			 LOAD_RAW);
	ck_assert_uint_eq(profile_total(q), (1ull << 63) - 1);
	profile_destroy(q);
	free(raw);
	profile_destroy(p);
}
END_TEST

/* A recording of LOAD_MAX_SAMPLES + 1000 timed samples (a few hundred
 * kB, gzip shrinks them ~300 times): the first LOAD_MAX_SAMPLES are
 * kept with their times, the rest only in their stacks' counts, and
 * counted in samples_dropped. */
START_TEST(test_sample_cap)
{
	struct profile *p = profile_create();
	struct profile *q = profile_create();
	uint32_t f[2] = { profile_frame(p, "a"), profile_frame(p, "b") };
	size_t len, n = LOAD_MAX_SAMPLES + 1000;
	char *raw, err[256];

	for (size_t i = 0; i < n; i++)
		profile_add(p, i, 1, f, 1 + (i & 1));
	raw = fixture_write(&output_raw, p, &len);
	ck_assert_int_eq(profile_load_buffer(q, raw, len, err, sizeof(err)),
			 LOAD_RAW);
	ck_assert_uint_eq(q->nsamples, LOAD_MAX_SAMPLES);
	ck_assert_uint_eq(q->samples_dropped, 1000);
	ck_assert_uint_eq(profile_total(q), n);
	ck_assert_uint_eq(q->stacks[0].count, n / 2);
	ck_assert_uint_eq(q->stacks[1].count, n / 2);
	profile_destroy(q);
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
	tcase_add_test(tc, test_version_1);
	tcase_add_test(tc, test_weights);
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_state_count);
	tcase_add_test(tc, test_count_overflow);
	tcase_add_test(tc, test_sample_cap);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
