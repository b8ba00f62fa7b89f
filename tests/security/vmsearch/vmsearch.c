// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The target of tests/security/vmsearch.sh: loads the fake libruby and
 * fills its .bss, prints "ready", then waits for SIGUSR1s. For each one
 * it prints "usr1 T", T the CLOCK_REALTIME seconds at which the handler
 * ran (seen by a loop polling every 1 ms), so the test can tell how long
 * the signal waited. Runs until killed.
 */
#define _GNU_SOURCE 1
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void fake_ruby_fill(void);

static atomic_int got;
static struct timespec at;

static void
on_usr1(int sig)
{
	(void)sig;
	clock_gettime(CLOCK_REALTIME, &at);
	atomic_fetch_add(&got, 1);
}

int
main(void)
{
	struct sigaction sa;
	int seen = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	fake_ruby_fill();
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct timespec ms = { 0, 1000000 };

		if (atomic_load(&got) != seen) {
			seen = atomic_load(&got);
			printf("usr1 %lld.%09ld\n", (long long)at.tv_sec,
			       at.tv_nsec);
			fflush(stdout);
		}
		nanosleep(&ms, NULL);
	}
}
