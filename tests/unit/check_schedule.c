// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The sampling schedule: exact mean rate, jitter inside the slot, late
 * ticks and the random wait after them. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "rbflame/schedule.h"

START_TEST(test_rate_and_jitter)
{
	struct schedule s;
	uint64_t prev = 0, period;
	int distinct = 0;

	schedule_init(&s, 1000000, 100.0, 42);
	period = s.period_ns;
	ck_assert_uint_eq(period, 10000000);
	for (int i = 0; i < 1000; i++) {
		uint64_t slot = s.start_ns + s.n * period;

		ck_assert_uint_ge(s.next_ns, slot);
		ck_assert_uint_lt(s.next_ns, slot + period);
		ck_assert_uint_gt(s.next_ns, prev);
		if (prev && s.next_ns - prev != period)
			distinct++;
		prev = s.next_ns;
		ck_assert_uint_eq(schedule_advance(&s, s.next_ns), 0);
	}
	/* Jittered: intervals vary; absolute: no drift after 1000 ticks. */
	ck_assert_int_gt(distinct, 900);
	ck_assert_uint_eq(s.n, 1000);
	ck_assert_uint_eq(s.late, 0);
}
END_TEST

START_TEST(test_late)
{
	struct schedule s;

	schedule_init(&s, 0, 1000.0, 1);
	/* The first tick fires 5.5 periods late: slots 1..4 are gone. */
	ck_assert_uint_eq(schedule_advance(&s, 5500000), 4);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_ge(s.next_ns, 5000000);
	ck_assert_uint_eq(s.late, 4);
}
END_TEST

/* Ticks that each run past the next deadline: the next never fires at
 * once (back to back, stops would fall into step with a loop of the
 * target), but after a wait spread over half a period. */
START_TEST(test_late_waits)
{
	struct schedule s;
	uint64_t now = 0, period, lo = UINT64_MAX, hi = 0;
	int buckets[8] = { 0 };

	schedule_init(&s, 0, 1000.0, 7);
	period = s.period_ns;
	for (int i = 0; i < 4000; i++) {
		uint64_t wait;

		/* 80% into the slot after next: its deadline (a quarter
		 * to three quarters in) has passed. */
		now = (s.next_ns / period + 2) * period + 8 * period / 10;
		schedule_advance(&s, now);
		ck_assert_uint_gt(s.next_ns, now);
		wait = s.next_ns - now;
		ck_assert_uint_le(wait, period / 2);
		lo = wait < lo ? wait : lo;
		hi = wait > hi ? wait : hi;
		buckets[wait * 8 / (period / 2 + 1)]++;
	}
	/* Uniform over the half period: each eighth holds 500 +- 25%. */
	for (int b = 0; b < 8; b++) {
		ck_assert_int_gt(buckets[b], 375);
		ck_assert_int_lt(buckets[b], 625);
	}
	ck_assert_uint_lt(lo, period / 50);
	ck_assert_uint_gt(hi, period / 2 - period / 50);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("schedule");
	TCase *tc = tcase_create("schedule");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_rate_and_jitter);
	tcase_add_test(tc, test_late);
	tcase_add_test(tc, test_late_waits);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
