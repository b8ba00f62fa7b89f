// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The thread-churning tracee: creates and joins N threads (default
 * 1000), 8 at a time, each spinning briefly and returning its index;
 * then spins until SECONDS after the go file and exits.
 *
 *   many-threads [-r READY] [-g GO] [-n N] SECONDS
 *
 * Exits 0 when every create and join succeeded and every thread returned
 * its own index, 1 otherwise; prints one summary line on stdout.
 */
#include "tracee.h"

#include <pthread.h>
#include <stdint.h>

#define BATCH 8

static TRACEE_NOINLINE unsigned long
many_spin(unsigned long iters)
{
	volatile unsigned long n = 0;

	for (unsigned long i = 0; i < iters; i++)
		n++;
	return n;
}

static void *
worker(void *arg)
{
	many_spin(50000);
	return arg;
}

static TRACEE_NOINLINE unsigned long
run_all(int n)
{
	unsigned long failures = 0;

	for (int i = 0; i < n; i += BATCH) {
		pthread_t th[BATCH];
		int k = 0;

		for (; k < BATCH && i + k < n; k++) {
			errno = pthread_create(&th[k], NULL, worker,
					       (void *)(intptr_t)(i + k));
			if (errno) {
				fprintf(stderr, "many-threads: pthread_create: %s\n",
					strerror(errno));
				failures++;
				break;
			}
		}
		for (int j = 0; j < k; j++) {
			void *ret;

			errno = pthread_join(th[j], &ret);
			if (errno || ret != (void *)(intptr_t)(i + j)) {
				fprintf(stderr, "many-threads: join %d: %s\n",
					i + j, errno ? strerror(errno) : "bad result");
				failures++;
			}
		}
	}
	return failures;
}

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	unsigned long failures;
	double deadline;
	int n = 1000, c;
	char text[64];

	while ((c = getopt(argc, argv, "+r:g:n:")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		case 'g':
			go = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r READY] [-g GO] [-n N] SECONDS\n",
				argv[0]);
			return 2;
		}
	}
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);
	deadline = tracee_deadline(tracee_seconds(argv[optind]));

	failures = run_all(n);
	while (deadline < 0 || tracee_now() < deadline)
		many_spin(100000);
	printf("many-threads: %d threads, %lu failures\n", n, failures);
	return failures ? 1 : 0;
}
