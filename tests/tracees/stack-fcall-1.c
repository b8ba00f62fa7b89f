// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* f1 of the chain tracee: calls f2 (one function per file). */
#include "stack-fcall.h"

__attribute__((noinline)) int
f1(double deadline)
{
	return f2(deadline) + 1;
}
