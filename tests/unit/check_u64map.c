// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The exact u64 -> u32 map: every key added is found again with its
 * value across many growths (keys that collide in the low bits, key 0,
 * the largest key), nothing is ever dropped, find never adds, clear
 * empties.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "rbflame/u64map.h"

#define MANY 20000

START_TEST(test_add_find)
{
	struct u64map *m = u64map_create();
	bool found;
	uint32_t *v;

	ck_assert_uint_eq(u64map_count(m), 0);
	ck_assert_ptr_null(u64map_find(m, 42));
	v = u64map_slot(m, 42, &found);
	ck_assert(!found);
	ck_assert_uint_eq(*v, 0);
	*v = 7;
	v = u64map_slot(m, 42, &found);
	ck_assert(found);
	ck_assert_uint_eq(*v, 7);
	ck_assert_uint_eq(*u64map_find(m, 42), 7);
	ck_assert_uint_eq(u64map_count(m), 1);
	/* Key 0 marks a free slot inside: it is a key all the same. */
	ck_assert_ptr_null(u64map_find(m, 0));
	*u64map_slot(m, 0, &found) = 9;
	ck_assert(!found);
	ck_assert_uint_eq(*u64map_slot(m, 0, &found), 9);
	ck_assert(found);
	*u64map_slot(m, UINT64_MAX, &found) = 11;
	ck_assert(!found);
	ck_assert_uint_eq(u64map_count(m), 3);
	ck_assert_uint_eq(*u64map_find(m, 0), 9);
	ck_assert_uint_eq(*u64map_find(m, UINT64_MAX), 11);
	ck_assert_uint_eq(*u64map_find(m, 42), 7);
	u64map_destroy(m);
}
END_TEST

START_TEST(test_never_drops)
{
	struct u64map *m = u64map_create();
	bool found;

	/* Keys alike in their low bits (pointers, ip << 1 | leaf) and
	 * through many doublings of the table. */
	for (uint32_t i = 0; i < MANY; i++) {
		uint64_t key = 0x7f0000000000ull + ((uint64_t)i << 12);

		*u64map_slot(m, key, &found) = i + 1;
		ck_assert(!found);
	}
	ck_assert_uint_eq(u64map_count(m), MANY);
	for (uint32_t i = 0; i < MANY; i++) {
		uint64_t key = 0x7f0000000000ull + ((uint64_t)i << 12);
		uint32_t *v = u64map_find(m, key);

		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(*v, i + 1);
	}
	ck_assert_ptr_null(u64map_find(m, 0x7f0000000000ull + 1));
	/* find never adds. */
	ck_assert_uint_eq(u64map_count(m), MANY);
	u64map_destroy(m);
}
END_TEST

START_TEST(test_clear)
{
	struct u64map *m = u64map_create();
	bool found;

	for (uint64_t k = 0; k < 1000; k++)
		*u64map_slot(m, k, &found) = (uint32_t)k;
	ck_assert_uint_eq(u64map_count(m), 1000);
	u64map_clear(m);
	ck_assert_uint_eq(u64map_count(m), 0);
	for (uint64_t k = 0; k < 1000; k++)
		ck_assert_ptr_null(u64map_find(m, k));
	*u64map_slot(m, 5, &found) = 3;
	ck_assert(!found);
	ck_assert_uint_eq(*u64map_find(m, 5), 3);
	u64map_destroy(m);
	u64map_destroy(NULL);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("u64map");
	TCase *tc = tcase_create("u64map");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_add_find);
	tcase_add_test(tc, test_never_drops);
	tcase_add_test(tc, test_clear);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
