// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The native/Ruby weave (see weave.h). The Ruby stack is cut at its
 * C-method frames C1..Cm into runs of Ruby frames R0..Rm; the native
 * stack is cut at their anchors A1..Am into segments N0..Nm. The woven
 * stack is N0 with R0 inside it, C1, A1, N1 with R1 inside it, ... An
 * anchor is searched for after the previous one, so the order of the
 * C methods on both stacks must agree.
 */
#include "config.h"

#include <string.h>

#include "rbflame/weave.h"

struct emit {
	uint32_t *out;
	size_t cap, n;
	bool full;
};

static void
put(struct emit *e, uint32_t id)
{
	if (e->n < e->cap)
		e->out[e->n++] = id;
	else
		e->full = true;
}

static void
put_native(struct emit *e, const struct weave_native *f, bool all)
{
	if (all || !f->vm)
		put(e, f->id);
}

/* Emits natives [lo, hi) with the Ruby frames rb[rlo, rhi) inside, where
 * the last run of VM frames begins. False when there are Ruby frames to
 * place and no VM frame to run them. */
static bool
segment(struct emit *e, const struct weave_native *nat, size_t lo, size_t hi,
	const struct weave_ruby *rb, size_t rlo, size_t rhi, bool all)
{
	size_t at = hi, i;

	if (rlo < rhi) {
		size_t last = hi;

		for (i = hi; i > lo; i--) {
			if (nat[i - 1].vm) {
				last = i - 1;
				break;
			}
		}
		if (last == hi)
			return false;
		for (at = last; at > lo && nat[at - 1].vm; at--)
			;
	}
	for (i = lo; i < at; i++)
		put_native(e, &nat[i], all);
	for (i = rlo; i < rhi; i++)
		put(e, rb[i].id);
	for (i = at; i < hi; i++)
		put_native(e, &nat[i], all);
	return true;
}

static bool
holds(const struct weave_native *f, uint64_t addr)
{
	return f->start < f->end && addr >= f->start && addr < f->end;
}

static enum weave_error
mismatch(const struct weave_native *nat, size_t nn, const struct weave_ruby *rb,
	 size_t nr, uint32_t marker, uint32_t *out, size_t cap, size_t *nout,
	 enum weave_error why)
{
	struct emit e = {.out = out, .cap = cap};

	put(&e, marker);
	for (size_t i = 0; i < nr; i++)
		put(&e, rb[i].id);
	for (size_t i = 0; i < nn; i++)
		put(&e, nat[i].id);
	*nout = e.full ? 0 : e.n;
	return e.full ? WEAVE_NO_ROOM : why;
}

/* True when the VM frames of natives [lo, hi) are one run: then every
 * Ruby frame of the segment runs in that run, whatever C methods among
 * them left no frame of their own. */
static bool
one_vm_run(const struct weave_native *nat, size_t lo, size_t hi)
{
	size_t runs = 0;

	for (size_t i = lo; i < hi; i++)
		if (nat[i].vm && (i == lo || !nat[i - 1].vm))
			runs++;
	return runs == 1;
}

enum weave_error
weave(const struct weave_native *nat, size_t nn, const struct weave_ruby *rb,
      size_t nr, bool all, uint32_t marker, uint32_t *out, size_t cap,
      size_t *nout)
{
	struct emit e = {.out = out, .cap = cap};
	size_t pos = 0, seg = 0, rlo = 0, i, j;
	enum weave_error why = WEAVE_OK;
	bool floating = false;

	for (i = 0; i < nr && why == WEAVE_OK; i++) {
		if (!rb[i].cfunc)
			continue;
		if (!rb[i].cfunc_addr) {
			why = WEAVE_NO_ANCHOR;
			break;
		}
		for (j = pos; j < nn && !holds(&nat[j], rb[i].cfunc_addr); j++)
			;
		if (j == nn) {
			/* No frame of its own: a C method that tail-called
			 * its work away (Kernel#loop -> rb_rescue2), or one
			 * being called or returning. It stays with the Ruby
			 * frames around it, if they have one VM run. */
			floating = true;
			continue;
		}
		if (floating && !one_vm_run(nat, seg, j)) {
			why = WEAVE_NO_ANCHOR;
			break;
		}
		/* N(seg..j) with the Ruby frames before Ci, then Ci and its
		 * anchor. */
		if (!segment(&e, nat, seg, j, rb, rlo, i, all)) {
			why = WEAVE_NO_VM;
			break;
		}
		put(&e, rb[i].id);
		put_native(&e, &nat[j], all);
		pos = seg = j + 1;
		rlo = i + 1;
		floating = false;
	}
	if (why == WEAVE_OK && floating && !one_vm_run(nat, seg, nn))
		why = WEAVE_NO_ANCHOR;
	if (why == WEAVE_OK && !segment(&e, nat, seg, nn, rb, rlo, nr, all))
		why = WEAVE_NO_VM;
	if (why != WEAVE_OK)
		return mismatch(nat, nn, rb, nr, marker, out, cap, nout, why);
	if (e.full) {
		*nout = 0;
		return WEAVE_NO_ROOM;
	}
	*nout = e.n;
	return WEAVE_OK;
}

const char *
weave_error_name(enum weave_error e)
{
	switch (e) {
	case WEAVE_OK:
		return "woven";
	case WEAVE_NO_ANCHOR:
		return "a C method's function is not on the native stack";
	case WEAVE_NO_VM:
		return "Ruby frames with no VM frame to run them";
	case WEAVE_NO_ROOM:
		return "too deep";
	}
	return "?";
}
