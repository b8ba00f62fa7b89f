// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* f0 of the chain tracee: calls f1 (one function per file). */
#include "stack-fcall.h"

__attribute__((noinline)) int
f0(double deadline)
{
	return f1(deadline) + 1;
}
