// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The sampling schedule: exact mean rate, jitter inside the slot, late ticks. */
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

int
main(void)
{
	Suite *s = suite_create("schedule");
	TCase *tc = tcase_create("schedule");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_rate_and_jitter);
	tcase_add_test(tc, test_late);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
