// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The binary formats' buffer and cursor: every encoding against its
 * bytes, a round trip, and a cursor that never reads past its end (every
 * truncation of a record sets the flag, which then sticks).
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/buf.h"

#define BYTES(b, lit) \
	((b).len == sizeof(lit) - 1 && !memcmp((b).p, lit, sizeof(lit) - 1))

START_TEST(test_put)
{
	struct buf b = { 0 };

	buf_put_u16(&b, 0x0102);
	ck_assert(BYTES(b, "\x02\x01"));
	buf_reset(&b);
	buf_put_u32(&b, 0x01020304);
	ck_assert(BYTES(b, "\x04\x03\x02\x01"));
	buf_reset(&b);
	buf_put_u64(&b, 0x0102030405060708ull);
	ck_assert(BYTES(b, "\x08\x07\x06\x05\x04\x03\x02\x01"));
	buf_reset(&b);
	buf_put_varint(&b, 0);
	buf_put_varint(&b, 127);
	buf_put_varint(&b, 128);
	buf_put_varint(&b, 300);
	ck_assert(BYTES(b, "\x00\x7f\x80\x01\xac\x02"));
	buf_reset(&b);
	buf_put_varint(&b, UINT64_MAX);
	ck_assert(BYTES(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"));
	buf_reset(&b);
	buf_put_zigzag(&b, 0);
	buf_put_zigzag(&b, -1);
	buf_put_zigzag(&b, 1);
	buf_put_zigzag(&b, -2);
	ck_assert(BYTES(b, "\x00\x01\x02\x03"));
	buf_reset(&b);
	buf_put_double(&b, 1.0);
	ck_assert(BYTES(b, "\x00\x00\x00\x00\x00\x00\xf0\x3f"));
	buf_reset(&b);
	buf_put_str(&b, "abc", 3);
	buf_put_str(&b, "", 0);
	buf_put_u8(&b, 0xee);
	ck_assert(BYTES(b, "\x03" "abc" "\x00\xee"));
	buf_free(&b);
	ck_assert_ptr_null(b.p);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

static void
put_all(struct buf *b)
{
	buf_put_u8(b, 0xab);
	buf_put_u16(b, 0xbeef);
	buf_put_u32(b, 0xdeadbeef);
	buf_put_u64(b, 0x0123456789abcdefull);
	buf_put_varint(b, 1ull << 63);
	buf_put_zigzag(b, INT64_MIN);
	buf_put_zigzag(b, -300);
	buf_put_double(b, -2.5);
	buf_put_str(b, "hello", 5);
}

/* Reads back what put_all() wrote; false when the cursor went bad. */
static bool
get_all(struct bufr *r)
{
	size_t n;
	const unsigned char *s;
	bool same;

	same = bufr_get_u8(r) == 0xab;
	same &= bufr_get_u16(r) == 0xbeef;
	same &= bufr_get_u32(r) == 0xdeadbeef;
	same &= bufr_get_u64(r) == 0x0123456789abcdefull;
	same &= bufr_get_varint(r) == 1ull << 63;
	same &= bufr_get_zigzag(r) == INT64_MIN;
	same &= bufr_get_zigzag(r) == -300;
	same &= bufr_get_double(r) == -2.5;
	s = bufr_get_str(r, &n);
	same &= s && n == 5 && !memcmp(s, "hello", 5);
	if (!r->bad)
		ck_assert(same);
	return !r->bad;
}

START_TEST(test_round_trip)
{
	struct buf b = { 0 };
	struct bufr r;

	put_all(&b);
	bufr_init(&r, b.p, b.len);
	ck_assert(get_all(&r));
	ck_assert_uint_eq(bufr_left(&r), 0);
	/* Every truncation fails, and no read goes past the end. */
	for (size_t k = 0; k < b.len; k++) {
		unsigned char *cut = malloc(k ? k : 1);

		memcpy(cut, b.p, k);
		bufr_init(&r, cut, k);
		ck_assert(!get_all(&r));
		ck_assert_uint_le(r.pos, k);
		free(cut);
	}
	buf_free(&b);
}
END_TEST

START_TEST(test_bounds)
{
	static const unsigned char eleven[] = "\x80\x80\x80\x80\x80\x80\x80"
					      "\x80\x80\x80\x01";
	struct bufr r, sub;

	/* A varint longer than 10 bytes is bad, as is a truncated one. */
	bufr_init(&r, eleven, 11);
	ck_assert_uint_eq(bufr_get_varint(&r), 0);
	ck_assert(r.bad);
	bufr_init(&r, eleven + 1, 10);
	ck_assert_uint_eq(bufr_get_varint(&r), 1ull << 63);
	ck_assert(!r.bad);
	bufr_init(&r, eleven, 3);
	bufr_get_varint(&r);
	ck_assert(r.bad);
	/* The flag sticks: nothing is read once it is set. */
	bufr_init(&r, "\x05\x01", 2);
	ck_assert_uint_eq(bufr_get_u16(&r), 0x0105);
	ck_assert_uint_eq(bufr_get_u8(&r), 0);
	ck_assert(r.bad);
	ck_assert_ptr_null(bufr_get_bytes(&r, 0));
	/* A length beyond what is left, even a huge one. */
	bufr_init(&r, "\x02xy", 3);
	ck_assert_ptr_null(bufr_get_bytes(&r, UINT64_MAX));
	ck_assert(r.bad);
	ck_assert_uint_eq(r.pos, 0);
	bufr_init(&r, "\x03xy", 3);
	{
		size_t n = 99;

		ck_assert_ptr_null(bufr_get_str(&r, &n));
		ck_assert_uint_eq(n, 0);
	}
	/* Nothing at all: empty bytes are still there, one byte is not. */
	bufr_init(&r, NULL, 0);
	ck_assert_ptr_nonnull(bufr_get_bytes(&r, 0));
	ck_assert(!r.bad);
	bufr_get_u8(&r);
	ck_assert(r.bad);
	/* A sub-cursor: bounded by its own length, skipped in its parent. */
	bufr_init(&r, "\x01\x02\x03\x04", 4);
	bufr_sub(&r, 2, &sub);
	ck_assert_uint_eq(bufr_left(&r), 2);
	ck_assert_uint_eq(bufr_get_u16(&sub), 0x0201);
	bufr_get_u8(&sub);
	ck_assert(sub.bad && !r.bad);
	ck_assert_uint_eq(bufr_get_u8(&r), 3);
	bufr_sub(&r, 2, &sub);
	ck_assert(r.bad && sub.bad);
	ck_assert_uint_eq(bufr_left(&sub), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("buf");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_put);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_bounds);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
