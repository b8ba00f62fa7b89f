// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The chain tracee: main -> f0 -> f1 -> f2 -> f3, f3 spinning on the CPU.
 *
 *   stack-fcall [-r READY] [-g GO] [-e STATUS] [-k SIGNAL] [SECONDS]
 *
 * -r: write "PID\n" to READY once about to call f0.
 * -g: wait for the file GO to exist before calling f0.
 * -e: exit with STATUS after the spin (default 0).
 * -k: kill itself with SIGNAL (default action) after the spin.
 * SECONDS: how long f3 spins (fractional; default forever).
 */
#include "tracee.h"

#include <signal.h>
#include "stack-fcall.h"

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	int status = 0, sig = 0, c;
	char text[64];
	double seconds;

	while ((c = getopt(argc, argv, "+r:g:e:k:")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		case 'g':
			go = optarg;
			break;
		case 'e':
			status = atoi(optarg);
			break;
		case 'k':
			sig = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r READY] [-g GO] [-e STATUS] [-k "
				"SIGNAL] [SECONDS]\n",
				argv[0]);
			return 2;
		}
	}
	seconds = tracee_seconds(argv[optind]);

	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);

	f0(tracee_deadline(seconds));

	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return status;
}
