// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The exec tracee: spins in before_exec() for SECONDS after the go file,
 * then execs itself as another program, which spins in after_exec() for
 * SECONDS more and exits 5.
 *
 *   execer [-r READY] [-g GO] [-t] SECONDS
 *   execer --after SECONDS        (the program it execs)
 *
 * -t: exec from a second thread while the main thread sleeps, so the
 * kernel must kill the main thread and give its tid to the exec'ing one
 * (what a tracer sees as an exec event from another tid).
 */
#include "tracee.h"

#include <pthread.h>

static double seconds;

/* The bodies differ (the step) so that identical code folding (-fipa-icf
 * at -O2) cannot merge the two functions into one symbol. */
static TRACEE_NOINLINE void
after_exec(double secs)
{
	double end = tracee_now() + secs;
	volatile unsigned long n = 0;

	while (tracee_now() < end)
		n += 2;
}

static TRACEE_NOINLINE void
before_exec(double secs)
{
	double end = tracee_now() + secs;
	volatile unsigned long n = 0;

	while (tracee_now() < end)
		n++;
}

static void *
exec_self(void *arg)
{
	char secs[32], arg0[] = "execer", arg1[] = "--after";
	char *argv[] = { arg0, arg1, secs, NULL };

	(void)arg;
	before_exec(seconds);
	snprintf(secs, sizeof(secs), "%g", seconds);
	execv("/proc/self/exe", argv);
	tracee_die("execv /proc/self/exe");
}

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	int thread = 0, c;
	char text[64];
	pthread_t th;

	if (argc == 3 && strcmp(argv[1], "--after") == 0) {
		after_exec(tracee_seconds(argv[2]));
		return 5;
	}
	while ((c = getopt(argc, argv, "+r:g:t")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		case 'g':
			go = optarg;
			break;
		case 't':
			thread = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-r READY] [-g GO] [-t] SECONDS\n",
				argv[0]);
			return 2;
		}
	}
	seconds = tracee_seconds(argv[optind]);
	if (seconds < 0)
		seconds = 1;
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);
	if (!thread)
		exec_self(NULL);
	if ((errno = pthread_create(&th, NULL, exec_self, NULL)) != 0)
		tracee_die("pthread_create");
	for (;;)
		tracee_sleep(1);
}
