// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* f2 of the chain tracee: calls f3 (one function per file). */
#include "stack-fcall.h"

__attribute__((noinline)) int
f2(double deadline)
{
	return f3(deadline) + 1;
}
