// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The switch log on real threads of this process, read as the sampler
 * reads it:
 *  - a thread asleep since before its log was opened is unknown, until
 *    marked off; woken, it is off again since a later moment, asleep
 *    (not preempted);
 *  - a mark after a record came in leaves what the record says;
 *  - a thread that only ever leaves its CPU runnable (two spinners on
 *    one CPU) is never seen asleep;
 *  - a thread that switched more times than its ring holds, unlooked
 *    at, is unknown, its losses counted, until it switches again.
 * Exits 77 (skipped) when this kernel will not open the event at all.
 */
#define _GNU_SOURCE
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/switchlog.h"

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* An echo thread: reads a byte from in, writes it to out, until EOF. */
struct echo {
	int in[2], out[2];
	pid_t tid;
	pthread_t th;
};

static void *
echo_main(void *arg)
{
	struct echo *e = arg;
	char c;

	__atomic_store_n(&e->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(e->in[0], &c, 1) == 1)
		if (write(e->out[1], &c, 1) != 1)
			break;
	return NULL;
}

static void
echo_start(struct echo *e)
{
	memset(e, 0, sizeof(*e));
	ck_assert_int_eq(pipe(e->in), 0);
	ck_assert_int_eq(pipe(e->out), 0);
	ck_assert_int_eq(pthread_create(&e->th, NULL, echo_main, e), 0);
	while (!__atomic_load_n(&e->tid, __ATOMIC_ACQUIRE))
		nap_ms(1);
	nap_ms(50);	/* asleep in its read by now */
}

static void
echo_once(struct echo *e)
{
	char c = 'x';

	ck_assert_int_eq(write(e->in[1], &c, 1), 1);
	ck_assert_int_eq(read(e->out[0], &c, 1), 1);
}

static void
echo_stop(struct echo *e)
{
	close(e->in[1]);
	pthread_join(e->th, NULL);
	close(e->in[0]);
	close(e->out[0]);
	close(e->out[1]);
}

START_TEST(test_asleep_then_woken)
{
	struct echo e;
	struct switchlog *l;
	struct switchlog_view v, w;
	uint64_t since;

	echo_start(&e);
	l = switchlog_open(e.tid);
	ck_assert_ptr_nonnull(l);
	switchlog_view(l, &v);
	ck_assert_int_eq(v.state, SWL_UNKNOWN);
	since = mono_ns();
	switchlog_mark_off(l, since, &v);
	ck_assert_int_eq(v.state, SWL_OFF);
	ck_assert_uint_eq(v.off_since, since);
	ck_assert(!v.preempted);
	nap_ms(20);
	switchlog_view(l, &w);
	ck_assert_int_eq(w.state, SWL_OFF);
	ck_assert_uint_eq(w.off_since, since);	/* not on a CPU since */

	echo_once(&e);
	nap_ms(20);	/* asleep in its next read */
	switchlog_view(l, &w);
	ck_assert_int_eq(w.state, SWL_OFF);
	ck_assert_uint_gt(w.off_since, since);
	ck_assert(!w.preempted);
	ck_assert_uint_ge(switchlog_records(l), 2);
	ck_assert_uint_eq(switchlog_lost(l), 0);
	switchlog_close(l);
	echo_stop(&e);
}
END_TEST

START_TEST(test_mark_after_record)
{
	struct echo e;
	struct switchlog *l;
	struct switchlog_view v;
	uint64_t since;

	echo_start(&e);
	l = switchlog_open(e.tid);
	ck_assert_ptr_nonnull(l);
	switchlog_view(l, &v);
	ck_assert_int_eq(v.state, SWL_UNKNOWN);
	/* The /proc read would have begun here; the thread wakes before
	 * the mark: its records say, not the mark. */
	since = mono_ns();
	echo_once(&e);
	nap_ms(20);
	switchlog_mark_off(l, since, &v);
	ck_assert_int_eq(v.state, SWL_OFF);
	ck_assert_uint_gt(v.off_since, since);
	switchlog_close(l);
	echo_stop(&e);
}
END_TEST

static volatile int spin_stop;

static void *
spin_main(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!spin_stop)
		;
	return NULL;
}

START_TEST(test_spinners_never_asleep)
{
	pthread_t a, b;
	pid_t ta = 0, tb = 0;
	pthread_attr_t at;
	cpu_set_t one;
	struct switchlog *l;
	struct switchlog_view v;
	int seen = 0;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	pthread_attr_init(&at);
	pthread_attr_setaffinity_np(&at, sizeof(one), &one);
	spin_stop = 0;
	ck_assert_int_eq(pthread_create(&a, &at, spin_main, &ta), 0);
	while (!__atomic_load_n(&ta, __ATOMIC_ACQUIRE))
		nap_ms(1);
	l = switchlog_open(ta);
	ck_assert_ptr_nonnull(l);
	/* A second spinner on the same CPU: the first leaves it runnable,
	 * time after time. */
	ck_assert_int_eq(pthread_create(&b, &at, spin_main, &tb), 0);
	for (int i = 0; i < 40; i++) {
		nap_ms(5);
		switchlog_view(l, &v);
		if (v.state == SWL_UNKNOWN)
			continue;
		seen++;
		ck_assert_msg(v.state == SWL_ON || v.preempted,
			      "a spinner seen asleep (view %d)", i);
	}
	spin_stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_attr_destroy(&at);
	ck_assert_int_gt(seen, 0);
	ck_assert_uint_gt(switchlog_records(l), 2);
	switchlog_close(l);
}
END_TEST

START_TEST(test_lost_records)
{
	struct echo e;
	struct switchlog *l;
	struct switchlog_view v;

	echo_start(&e);
	l = switchlog_open(e.tid);
	ck_assert_ptr_nonnull(l);
	/* Far more switches than a ring of one page holds (256). */
	for (int i = 0; i < 2000; i++)
		echo_once(&e);
	nap_ms(20);
	switchlog_view(l, &v);
	ck_assert_int_eq(v.state, SWL_UNKNOWN);
	ck_assert_uint_gt(switchlog_lost(l), 0);
	/* It switches again: known from its records once more. */
	echo_once(&e);
	nap_ms(20);
	switchlog_view(l, &v);
	ck_assert_int_eq(v.state, SWL_OFF);
	ck_assert(!v.preempted);
	switchlog_close(l);
	echo_stop(&e);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("switchlog");
	TCase *tc = tcase_create("switchlog");
	struct switchlog *probe;
	SRunner *sr;
	int failed;

	probe = switchlog_open((pid_t)syscall(SYS_gettid));
	if (!probe) {
		/* Not a failure of ours: rbflame reads /proc then. */
		printf("switch logs refused here (%s): skipped\n",
		       strerror(errno));
		return 77;
	}
	switchlog_close(probe);
	switchlog_close(NULL);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_asleep_then_woken);
	tcase_add_test(tc, test_mark_after_record);
	tcase_add_test(tc, test_spinners_never_asleep);
	tcase_add_test(tc, test_lost_records);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
