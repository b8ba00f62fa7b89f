/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The chain tracee's call chain, main -> f0 -> f1 -> f2 -> f3, one function
 * per file so no compiler can inline one into another (see
 * stack-fcall-*.c; strace's tests/stack-fcall*.c do the same). f3 spins on
 * the CPU until the deadline (CLOCK_MONOTONIC seconds, -1 for forever).
 *
 * Each function does some work after its call returns, so even without
 * -fno-optimize-sibling-calls none of the calls is a tail call.
 */
#ifndef RBFLAME_TRACEE_STACK_FCALL_H
#define RBFLAME_TRACEE_STACK_FCALL_H

int f0(double deadline);
int f1(double deadline);
int f2(double deadline);
int f3(double deadline);

#endif
