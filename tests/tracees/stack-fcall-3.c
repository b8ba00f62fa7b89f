// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * f3, the leaf of the chain tracee: spins on the CPU until the deadline.
 * The clock is read once per million iterations, so nearly every sample
 * lands in f3 itself.
 */
#include "tracee.h"
#include "stack-fcall.h"

__attribute__((noinline)) int
f3(double deadline)
{
	volatile unsigned long n = 0;
	unsigned long i;

	for (;;) {
		for (i = 0; i < 1000000; i++)
			n++;
		if (deadline >= 0 && tracee_now() >= deadline)
			break;
	}
	return (int)(n & 1);
}
