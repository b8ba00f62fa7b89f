// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A stand-in for "another tracer" (gdb, strace): seizes one thread and
 * holds it, passing signals through, until the tracee exits or this
 * program is killed (the kernel then detaches).
 *
 *   ptrace-hold [-r READY] TID
 *
 * READY gets "TID\n" once the seize succeeded.
 */
#include "tracee.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int
main(int argc, char **argv)
{
	const char *ready = NULL;
	char text[64];
	int c, st, sig;
	pid_t tid;

	while ((c = getopt(argc, argv, "+r:")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r READY] TID\n", argv[0]);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: %s [-r READY] TID\n", argv[0]);
		return 2;
	}
	tid = atoi(argv[optind]);
	if (ptrace(PTRACE_SEIZE, tid, 0L, 0L) < 0)
		tracee_die("PTRACE_SEIZE %d", (int)tid);
	snprintf(text, sizeof(text), "%d\n", (int)tid);
	tracee_ready(ready, text);

	for (;;) {
		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			tracee_die("waitpid");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return 0;
		if (!WIFSTOPPED(st))
			continue;
		/* Signal-delivery stops pass the signal on; event stops 0. */
		sig = (st >> 16) ? 0 : WSTOPSIG(st);
		ptrace(PTRACE_CONT, tid, 0L, (long)sig);
	}
}
