/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Call-graph aggregation over a profile, the one every graph-shaped
 * writer and report reads (callgrind, stackprof, samplingprof, dot,
 * summary). Frames that differ only by line are one function: a Ruby
 * method sampled at three lines is one node with three lines; a C
 * method (whose file and line are its caller's) is one node whatever
 * calls it. Per
 * function: self samples (it is the leaf) and total samples (it is on
 * the stack, counted once per sample even under recursion); per caller ->
 * callee edge: the samples whose stack holds that call (once per sample)
 * and the calls estimated the way rbspy does (consecutive samples of one
 * thread that share the call are one call); per (function, line): self
 * and total. Everything is in a deterministic order that depends only on
 * the profile's frames and stacks.
 */
#ifndef RBFLAME_CALLGRAPH_H
#define RBFLAME_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "rbflame/profile.h"

/** A function: the frames that differ only by line (and address). */
struct callgraph_func {
	uint32_t frame;		/* its first frame id: kind, name, file */
	int32_t line;		/* its lowest line > 0, or 0 */
	uint64_t self;		/* samples with it as the leaf */
	uint64_t total;		/* samples with it on the stack, once each */
	uint64_t self_ns, total_ns; /* the same in the time the samples
				 * stand for (profile_stack_weight) */
};

struct callgraph_edge {
	uint32_t caller, callee;	/* function indices */
	uint64_t count;		/* samples whose stack holds this call */
	uint64_t calls;		/* estimated calls (see the top) */
	uint64_t weight_ns;	/* the time those samples stand for */
};

struct callgraph_line {
	uint32_t func;		/* function index */
	int32_t line;
	uint64_t self, total;
};

struct callgraph {
	uint32_t *frame_func;		/* frame id -> function index */
	struct callgraph_func *funcs;	/* in order of first frame id */
	size_t nfuncs;
	struct callgraph_edge *edges;	/* sorted by caller, then callee */
	size_t nedges;
	struct callgraph_line *lines;	/* sorted by function, then line */
	size_t nlines;
	uint64_t samples;		/* all samples, timed or counted */
	uint64_t weight_ns;		/* the time they stand for */
};

/**
 * Aggregates p (which must outlive nothing: the graph copies what it
 * needs). The caller frees with callgraph_destroy().
 */
struct callgraph *callgraph_create(const struct profile *p);
/**
 * The same with every frame its own node (a Ruby method at two lines is
 * two nodes): SamplingProf's "call elements", per-line call graphs.
 */
struct callgraph *callgraph_create_frames(const struct profile *p);
void callgraph_destroy(struct callgraph *g);

/** The edges leaving function f, as a slice of g->edges (*n of them). */
const struct callgraph_edge *callgraph_callees(const struct callgraph *g,
					       uint32_t f, size_t *n);
/** The lines of function f, as a slice of g->lines (*n of them). */
const struct callgraph_line *callgraph_lines(const struct callgraph *g,
					     uint32_t f, size_t *n);

#endif
