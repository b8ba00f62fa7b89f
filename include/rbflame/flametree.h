/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The frame tree a flamegraph draws: stacks merged from the root by frame
 * text, each node with the samples under it. Frames are keyed by text, not
 * by id, so two profiles (a base and a new one, for a differential graph)
 * merge into one tree; each node counts both. Children are sorted
 * bytewise by text, so the same profiles always give the same tree.
 */
#ifndef RBFLAME_FLAMETREE_H
#define RBFLAME_FLAMETREE_H

#include <stddef.h>
#include <stdint.h>

#include "rbflame/intern.h"
#include "rbflame/profile.h"

#define FLAMETREE_NONE UINT32_MAX
#define FLAMETREE_ROOT 0	/* the node above every stack: "all" */

/* Which profile a count belongs to: the one drawn, or the diff's base. */
enum flametree_slot {
	FLAMETREE_NEW,
	FLAMETREE_BASE,
	FLAMETREE_SLOTS
};

/* Frame classes a view colours by; finer than profile_kind for states. */
enum flametree_class {
	FLAMETREE_ROOTCLASS,	/* "all" */
	FLAMETREE_RUBY,
	FLAMETREE_CFUNC,
	FLAMETREE_NATIVE,
	FLAMETREE_GC,		/* (garbage collection), (marking)... */
	FLAMETREE_IDLE,		/* (blocked), (waiting for GVL) */
	FLAMETREE_NOGVL,	/* (running without GVL) */
	FLAMETREE_THREAD,	/* thread and process roots */
	FLAMETREE_MARKER,	/* [truncated] */
	FLAMETREE_OTHER,	/* a bare name */
	FLAMETREE_CLASSES
};

struct flametree_node {
	uint32_t text;		/* the frame's text, id in the tree's pool */
	uint32_t label;		/* what to print on it: the name of a Ruby
				 * frame, else the text */
	uint32_t file;		/* source or module, or PROFILE_NO_STR */
	int32_t line;		/* 0 when none */
	uint8_t cls;		/* enum flametree_class */
	uint32_t depth;		/* the root is 0 */
	uint32_t parent, child, next;	/* first child, next sibling */
	uint64_t total[FLAMETREE_SLOTS];	/* samples at or under it */
	uint64_t self[FLAMETREE_SLOTS];	/* samples ending here */
};

struct flametree {
	struct intern *names;
	struct flametree_node *nodes;	/* nodes[0] is the root */
	size_t nnodes, cap;
	uint32_t *slots;	/* (parent, text) hash: index + 1 */
	size_t nslots;
	uint32_t max_depth;
};

/** An empty tree (the root only); flametree_destroy() frees it. */
struct flametree *flametree_create(void);
void flametree_destroy(struct flametree *t);

/** Adds every stack of p to the tree, counted in slot. */
void flametree_add(struct flametree *t, const struct profile *p,
		   enum flametree_slot slot);

/** Sorts every node's children by text; call once, after the adds. */
void flametree_sort(struct flametree *t);

/** A string of the tree's pool. */
const char *flametree_str(const struct flametree *t, uint32_t id);

/**
 * The class of a frame: from its kind, and for states, bare names
 * (collapsed input) and markers from its text.
 */
enum flametree_class flametree_classify(enum profile_kind kind,
					const char *text);

/**
 * Takes "LABEL (FILE:LINE)", the text of a Ruby frame read back from
 * collapsed stacks, apart: 0 with the label's length, the file's offset
 * and length and the line; -1 when text has another shape.
 */
int flametree_split(const char *text, size_t *label_len, size_t *file_off,
		    size_t *file_len, int *line);

/** "Ruby", "C function"... for legends. */
const char *flametree_class_name(enum flametree_class c);

#endif
