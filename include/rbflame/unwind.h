/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Native stack unwinding of a stopped thread: libunwind's DWARF machinery
 * (remote address space; the register state of each code range computed
 * once and kept here, so that a step takes no lock) fed by rbflame's
 * own accessors: every read goes through struct mem, registers come from
 * a PTRACE_GETREGS snapshot, and the unwind tables are found from each
 * module's .eh_frame_hdr via symtab. Nothing here names frames.
 */
#ifndef RBFLAME_UNWIND_H
#define RBFLAME_UNWIND_H

#include <stdint.h>
#include <sys/types.h>

struct mem;
struct symtab;
struct unwinder;
struct user_regs_struct;

/**
 * An unwinder for process pid, reading through mem and finding modules
 * through st; both are borrowed and must outlive it. NULL with errno on
 * failure. unwind_destroy() frees.
 */
struct unwinder *unwind_create(pid_t pid, struct mem *mem, struct symtab *st);

/**
 * Unwinds thread tid, stopped with registers regs (from PTRACE_GETREGS;
 * only rip, rsp and rbp matter much), into ips: raw instruction pointers,
 * innermost first, return addresses not adjusted. Stops after max frames,
 * at the outermost frame, or when the stack pointer stops growing.
 * Returns the count (at least 1 when regs->rip is not 0), or -1 with
 * errno EINVAL for bad arguments. Code in a module without .eh_frame_hdr
 * (a static executable) or in no module (JIT code) is stepped over with
 * libunwind's frame-pointer heuristics only.
 */
int unwind_stack(struct unwinder *u, pid_t tid,
		 const struct user_regs_struct *regs, uint64_t *ips, int max);

/**
 * Unwinds a thread that is not stopped but blocked in a syscall, from
 * the sp and pc the kernel reports (/proc/PID/task/TID/syscall). Without
 * the other registers, a frame whose CFA is the frame pointer is reached
 * by guessing rbp from the stack; the longest walk wins. Same result
 * convention as unwind_stack().
 */
int unwind_stack_blocked(struct unwinder *u, pid_t tid, uint64_t sp,
			 uint64_t pc, uint64_t *ips, int max);

/**
 * The runtime bounds [*start, *end) of the function holding ip, from the
 * range of its FDE in the module's .eh_frame (what a stripped library
 * still has). Reads only the local copies of the tables once the module
 * was seen: call it after the thread runs again. 0, or -1 with errno
 * ENOENT when no FDE covers ip.
 */
int unwind_function_bounds(struct unwinder *u, uint64_t ip, uint64_t *start,
			   uint64_t *end);

/** Frees u (NULL is fine). */
void unwind_destroy(struct unwinder *u);

#endif
