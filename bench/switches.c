// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * bench/switches: what a thread's switch log (src/switchlog.c) costs the
 * target. Two threads of this process ping-pong a byte through two pipes
 * on one CPU, so that every round trip is two context switches; the
 * round trip is timed bare, then with both threads logged as rbflame
 * logs a target's threads (switchlog_open()), ROUNDS times each in
 * alternation, and the medians printed with their difference per switch.
 *
 *   bench/switches [-n TRIPS] [-r ROUNDS]   (bench/run builds and runs it)
 *
 * Exits 77 where the kernel refuses the event (rbflame reads /proc then).
 */
#define _GNU_SOURCE
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

static int ping[2], pong[2];
static volatile pid_t peer_tid;

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *
peer(void *arg)
{
	char c;

	(void)arg;
	peer_tid = (pid_t)syscall(SYS_gettid);
	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

/* ns a round trip over n trips; with logs, both threads logged (their
 * rings looked at every 64 trips, as a sampler's ticks would). */
static double
trips(int n, bool logged)
{
	struct switchlog *a = NULL, *b = NULL;
	struct switchlog_view v;
	uint64_t t0;
	char c = 1;

	if (logged) {
		a = switchlog_open((pid_t)syscall(SYS_gettid));
		b = switchlog_open(peer_tid);
		if (!a || !b) {
			fprintf(stderr, "bench/switches: no switch log: %s\n",
				strerror(errno));
			exit(77);
		}
	}
	t0 = mono_ns();
	for (int i = 0; i < n; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("bench/switches: pipe");
			exit(1);
		}
		if (logged && !(i & 63)) {
			switchlog_view(a, &v);
			switchlog_view(b, &v);
		}
	}
	t0 = mono_ns() - t0;
	switchlog_close(a);
	switchlog_close(b);
	return (double)t0 / n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	int n = 50000, rounds = 5, opt;
	double bare[64], logged[64];
	cpu_set_t one;
	pthread_attr_t at;
	pthread_t th;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else
			return 2;
	}
	if (n < 1 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: bench/switches [-n TRIPS] [-r 1..64]\n");
		return 2;
	}
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (pipe(ping) < 0 || pipe(pong) < 0 ||
	    sched_setaffinity(0, sizeof(one), &one) < 0) {
		perror("bench/switches");
		return 1;
	}
	pthread_attr_init(&at);
	pthread_attr_setaffinity_np(&at, sizeof(one), &one);
	if (pthread_create(&th, &at, peer, NULL) != 0)
		return 1;
	while (!peer_tid)
		usleep(100);
	trips(n / 10, false);	/* warm up */
	for (int r = 0; r < rounds; r++) {
		bare[r] = trips(n, false);
		logged[r] = trips(n, true);
	}
	double b = median(bare, rounds), l = median(logged, rounds);

	printf("two threads on one CPU, %d round trips (2 switches each) x %d rounds:\n",
	       n, rounds);
	printf("  bare %.2f us a round trip, both threads logged %.2f us: %.2f us more a switch\n",
	       b / 1e3, l / 1e3, (l - b) / 2e3);
	return 0;
}
