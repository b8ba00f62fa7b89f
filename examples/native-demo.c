// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A small native program for the demo: two threads, a few functions with
 * different costs, so the flamegraph has something to show.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double __attribute__((noinline))
series_term(int k)
{
	return (k % 2 ? -1.0 : 1.0) / (2.0 * k + 1.0);
}

static double __attribute__((noinline))
leibniz_pi(int terms)
{
	double s = 0;

	for (int k = 0; k < terms; k++)
		s += series_term(k);
	return 4 * s;
}

static int __attribute__((noinline))
is_prime(long n)
{
	for (long d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return n > 1;
}

static long __attribute__((noinline))
count_primes(long limit)
{
	long c = 0;

	for (long n = 2; n < limit; n++)
		c += is_prime(n);
	return c;
}

static double
elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *
primes_thread(void *arg)
{
	double secs = *(double *)arg;
	struct timespec t0;

	pthread_setname_np(pthread_self(), "primes");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < secs)
		sink = count_primes(20000);
	return NULL;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	struct timespec t0;
	pthread_t th;

	pthread_create(&th, NULL, primes_thread, &secs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < secs)
		sink = leibniz_pi(200000) + sqrt(sink);
	pthread_join(th, NULL);
	printf("native-demo: done after %.1f s\n", secs);
	return 0;
}
