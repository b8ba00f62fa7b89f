/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The weave of one thread's native stack with its Ruby stack (--native):
 * native frames from the root to the VM, the Ruby frames, and at each
 * Ruby C-method frame the native frames of that C function, to the leaf.
 * Pure: frames are opaque ids with the few facts the weave needs; the
 * caller unwinds, reads, names and records.
 *
 * The anchor of a C-method frame is the native frame whose function
 * bounds (symbol size or FDE range) hold the method's C function address
 * (the method entry's body.cfunc.func): never a name, since the VM's own
 * functions have none in a stripped libruby.
 */
#ifndef RBFLAME_WEAVE_H
#define RBFLAME_WEAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A native frame, root first in an array. */
struct weave_native {
	uint32_t id;	     /* what goes to the output */
	uint64_t start, end; /* its function's runtime bounds [start,
			      * end); start == end when not known */
	bool vm;	     /* in the Ruby VM's file (libruby) */
};

/** A Ruby frame, root first in an array. */
struct weave_ruby {
	uint32_t id;
	bool cfunc;	     /* a method written in C */
	uint64_t cfunc_addr; /* its C function's entry, 0 when unknown */
};

/** Why a weave failed (for --debug and the tests). */
enum weave_error {
	WEAVE_OK,
	WEAVE_NO_ANCHOR, /* a C method's function is not on the stack */
	WEAVE_NO_VM,	 /* Ruby frames where no VM frame runs them */
	WEAVE_NO_ROOM,	 /* out too small */
};

/**
 * Weaves nat[0..nn) and rb[0..nr) (both root first) into out[0..cap),
 * setting *nout. VM frames are left out unless all, anchors in the VM
 * too (the C-method frame stands for them).
 *
 * A C method whose function is on no frame (it tail-called its work away,
 * as Kernel#loop does into rb_rescue2, or it is being called or is
 * returning) is woven with the Ruby frames around it, provided the VM
 * frames between the anchors around it form one run: then all those Ruby
 * frames run in that run and no visible frame can be misplaced. A C
 * method of unknown address never is.
 *
 * Ruby frames that run between two anchors are put where the last run of
 * VM frames before the next anchor (or the leaf) begins: the interpreter
 * is in that run, its position in the run is not known.
 *
 * On a mismatch, out is marker, every Ruby frame, then every native frame
 * (none dropped, the two halves in their own order) and the error is
 * returned; when even that does not fit, WEAVE_NO_ROOM and *nout = 0.
 */
enum weave_error weave(const struct weave_native *nat, size_t nn,
		       const struct weave_ruby *rb, size_t nr, bool all,
		       uint32_t marker, uint32_t *out, size_t cap,
		       size_t *nout);

/** "no anchor", "no VM frame"... */
const char *weave_error_name(enum weave_error e);

#endif
