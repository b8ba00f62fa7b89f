// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A small C extension for the --native tests: Ruby methods written in C
 * whose functions have known, exported names and known callees, built
 * with no inlining and no sibling calls so that each one keeps its own
 * native frame.
 *
 *   RbflameTestExt.crunch(n)  rbft_crunch -> rbft_crunch_inner ->
 *                             rbft_crunch_leaf (spins n rounds)
 *   RbflameTestExt.each(n)    rbft_each -> rbft_each_step -> rb_yield,
 *                             n times: a C method calling back into Ruby
 *   RbflameTestExt.deep(d, n) rbft_deep -> rbft_deep_step d times deep
 *                             -> rbft_crunch_leaf: a deep native stack
 *                             (the benchmark's)
 *   RbflameTestExt.epoll(ms)  rbft_epoll -> epoll_wait(ms) on an empty
 *                             epoll set, holding the GVL (a call an
 *                             interrupt makes fail): returns how many
 *                             times it failed with EINTR
 */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <ruby.h>

/* Spins without touching the VM: the sampled leaf. */
unsigned long
rbft_crunch_leaf(unsigned long rounds)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < rounds; i++)
		acc += i ^ (acc >> 3);
	return acc;
}

unsigned long
rbft_crunch_inner(unsigned long rounds)
{
	return rbft_crunch_leaf(rounds) + 1;
}

VALUE
rbft_crunch(VALUE self, VALUE n)
{
	return ULONG2NUM(rbft_crunch_inner(NUM2ULONG(n)));
}

VALUE
rbft_each_step(VALUE i)
{
	return rb_yield(i);
}

VALUE
rbft_each(VALUE self, VALUE n)
{
	long count = NUM2LONG(n);

	for (long i = 0; i < count; i++)
		rbft_each_step(LONG2NUM(i));
	return Qnil;
}

unsigned long
rbft_deep_step(long depth, unsigned long rounds)
{
	if (depth <= 0)
		return rbft_crunch_leaf(rounds);
	return rbft_deep_step(depth - 1, rounds) + 1;
}

VALUE
rbft_deep(VALUE self, VALUE depth, VALUE n)
{
	return ULONG2NUM(rbft_deep_step(NUM2LONG(depth), NUM2ULONG(n)));
}

VALUE
rbft_epoll(VALUE self, VALUE ms)
{
	static int ep = -1;
	struct epoll_event ev;
	long eintr = 0;

	if (ep < 0 && (ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		rb_sys_fail("epoll_create1");
	if (epoll_wait(ep, &ev, 1, NUM2INT(ms)) < 0) {
		if (errno != EINTR)
			rb_sys_fail("epoll_wait");
		eintr++;
	}
	return LONG2NUM(eintr);
}

void
Init_rbflame_test_ext(void)
{
	VALUE m = rb_define_module("RbflameTestExt");

	rb_define_module_function(m, "crunch", rbft_crunch, 1);
	rb_define_module_function(m, "each", rbft_each, 1);
	rb_define_module_function(m, "deep", rbft_deep, 2);
	rb_define_module_function(m, "epoll", rbft_epoll, 1);
}
