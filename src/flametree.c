// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The frame tree of the flamegraph views: stacks merged from the root by
 * frame text, with one count per profile so a diff merges two. Owns its
 * own string pool, since the two profiles' pools differ.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rbflame/flametree.h"
#include "rbflame/xmalloc.h"

static uint64_t
slot_hash(uint32_t parent, uint32_t text)
{
	uint64_t h = ((uint64_t)parent << 32 | text) * 0x9e3779b97f4a7c15ull;

	return h ^ h >> 31;
}

static void
rehash(struct flametree *t)
{
	size_t ns = t->nslots * 2;
	uint32_t *slots = xcalloc(ns, sizeof(*slots));

	for (size_t n = 1; n < t->nnodes; n++) {
		size_t i = slot_hash(t->nodes[n].parent, t->nodes[n].text) &
			   (ns - 1);

		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = n + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
}

static uint32_t
new_node(struct flametree *t)
{
	struct flametree_node *n;

	t->nodes = xgrowarray(t->nodes, &t->cap, t->nnodes + 1,
			      sizeof(*t->nodes));
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->file = PROFILE_NO_STR;
	n->parent = n->child = n->next = FLAMETREE_NONE;
	return t->nnodes++;
}

struct flametree *
flametree_create(void)
{
	struct flametree *t = xcalloc(1, sizeof(*t));
	struct flametree_node *root;
	uint32_t id;

	t->names = intern_create();
	t->nslots = 1024;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	id = new_node(t);	/* grows t->nodes: index it after */
	root = &t->nodes[id];
	root->text = root->label = intern_str(t->names, "all");
	root->cls = FLAMETREE_ROOTCLASS;
	return t;
}

void
flametree_destroy(struct flametree *t)
{
	if (!t)
		return;
	intern_destroy(t->names);
	free(t->nodes);
	free(t->slots);
	free(t);
}

const char *
flametree_str(const struct flametree *t, uint32_t id)
{
	return id == PROFILE_NO_STR ? "" : intern_get(t->names, id);
}

/* "label (file:123)": the offsets of " (" and ':', or -1. */
static int
split_ruby_text(const char *s, size_t *paren, size_t *colon)
{
	size_t len = strlen(s), i;

	if (len < 6 || s[len - 1] != ')')
		return -1;
	i = len - 2;
	if (s[i] < '0' || s[i] > '9')
		return -1;
	while (i > 0 && s[i] >= '0' && s[i] <= '9')
		i--;
	if (s[i] != ':')
		return -1;
	*colon = i;
	while (i > 1 && !(s[i] == '(' && s[i - 1] == ' '))
		i--;
	if (i <= 1)
		return -1;
	*paren = i - 1;
	return 0;
}

int
flametree_split(const char *text, size_t *label_len, size_t *file_off,
		size_t *file_len, int *line)
{
	size_t paren, colon;

	if (split_ruby_text(text, &paren, &colon) < 0)
		return -1;
	*label_len = paren;
	*file_off = paren + 2;
	*file_len = colon - paren - 2;
	*line = atoi(text + colon + 1);
	return 0;
}

enum flametree_class
flametree_classify(enum profile_kind kind, const char *text)
{
	/* The CLASS column of the states' table (profile.h). */
	static const uint8_t state_class[PROFILE_STATES] = {
#define STATE_CLASS(id, group, leaf, summary, label, cls) \
		[PROFILE_STATE_##id] = FLAMETREE_##cls,
		PROFILE_STATE_LIST(STATE_CLASS)
#undef STATE_CLASS
	};
	size_t paren, colon, len = strlen(text);

	switch (kind) {
	case PROFILE_FRAME_RUBY:
		return FLAMETREE_RUBY;
	case PROFILE_FRAME_CFUNC:
		return FLAMETREE_CFUNC;
	case PROFILE_FRAME_NATIVE:
		return FLAMETREE_NATIVE;
	case PROFILE_FRAME_THREAD:
	case PROFILE_FRAME_PROCESS:
		return FLAMETREE_THREAD;
	case PROFILE_FRAME_MARKER:
		return FLAMETREE_MARKER;
	default:
		break;
	}
	for (int s = 0; s < PROFILE_STATES; s++) {
		const char *leaf = profile_state_desc(s)->leaf;

		if (leaf && !strcmp(text, leaf))
			return state_class[s];
	}
	if (kind == PROFILE_FRAME_STATE)
		return FLAMETREE_IDLE;
	/* A bare name, as collapsed input gives: guess from its shape. */
	if (!strncmp(text, "thread ", 7) || !strncmp(text, "process ", 8))
		return FLAMETREE_THREAD;
	if (len >= 2 && text[0] == '[' && text[len - 1] == ']')
		return FLAMETREE_MARKER;
	if (split_ruby_text(text, &paren, &colon) == 0)
		return FLAMETREE_RUBY;
	if (len >= 2 && text[len - 1] == ')' && strstr(text, " ("))
		return FLAMETREE_NATIVE;	/* "symbol (libfoo.so)" */
	return FLAMETREE_OTHER;
}

const char *
flametree_class_name(enum flametree_class c)
{
	static const char *const names[FLAMETREE_CLASSES] = {
		[FLAMETREE_ROOTCLASS] = "all",
		[FLAMETREE_RUBY] = "Ruby",
		[FLAMETREE_CFUNC] = "C function",
		[FLAMETREE_NATIVE] = "native",
		[FLAMETREE_GC] = "GC",
		[FLAMETREE_IDLE] = "blocked or waiting",
		[FLAMETREE_NOGVL] = "without GVL",
		[FLAMETREE_THREAD] = "thread",
		[FLAMETREE_MARKER] = "marker",
		[FLAMETREE_OTHER] = "other",
	};

	return (unsigned)c < FLAMETREE_CLASSES ? names[c] : "other";
}

/* Fills a new node's label, file, line and class from frame f of p. */
static void
describe(struct flametree *t, struct flametree_node *n,
	 const struct profile *p, const struct profile_frame *f,
	 const char *text)
{
	size_t paren, colon;

	n->cls = flametree_classify(f->kind, text);
	n->line = f->line;
	if (f->file != PROFILE_NO_STR)
		n->file = intern_str(t->names, profile_str_get(p, f->file));
	if ((n->cls == FLAMETREE_RUBY || n->cls == FLAMETREE_CFUNC) &&
	    f->kind != PROFILE_FRAME_NAME && f->file != PROFILE_NO_STR) {
		n->label = intern_str(t->names, profile_str_get(p, f->name));
	} else if (n->cls == FLAMETREE_RUBY && f->kind == PROFILE_FRAME_NAME &&
		   split_ruby_text(text, &paren, &colon) == 0) {
		/* Collapsed input: take "label (file:line)" apart. */
		n->label = intern_id(t->names, text, paren);
		n->file = intern_id(t->names, text + paren + 2,
				    colon - paren - 2);
		n->line = atoi(text + colon + 1);
	} else {
		n->label = n->text;
	}
	if (!flametree_str(t, n->label)[0])
		n->label = n->text;
}

/* The child of parent with that text, made if new. */
static uint32_t
child_of(struct flametree *t, uint32_t parent, uint32_t text,
	 const struct profile *p, const struct profile_frame *f)
{
	size_t i = slot_hash(parent, text) & (t->nslots - 1);
	uint32_t id;
	struct flametree_node *n;

	while (t->slots[i]) {
		n = &t->nodes[t->slots[i] - 1];
		if (n->parent == parent && n->text == text)
			return t->slots[i] - 1;
		i = (i + 1) & (t->nslots - 1);
	}
	id = new_node(t);
	n = &t->nodes[id];
	n->text = text;
	n->parent = parent;
	n->depth = t->nodes[parent].depth + 1;
	n->next = t->nodes[parent].child;
	t->nodes[parent].child = id;
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	describe(t, n, p, f, flametree_str(t, text));
	t->slots[i] = id + 1;
	if (t->nnodes * 2 > t->nslots)
		rehash(t);
	return id;
}

void
flametree_add(struct flametree *t, const struct profile *p,
	      enum flametree_slot slot)
{
	/* Frame id -> text id in our pool, filled as frames are met. */
	uint32_t *text = xmalloc((p->nframes ? p->nframes : 1) *
				 sizeof(*text));

	for (size_t i = 0; i < p->nframes; i++)
		text[i] = PROFILE_NO_STR;
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profile_stack *st = &p->stacks[s];
		uint32_t node = FLAMETREE_ROOT;

		if (!st->count)
			continue;
		t->nodes[node].total[slot] += st->count;
		for (uint32_t d = 0; d < st->depth; d++) {
			uint32_t fid = st->frames[d];
			const struct profile_frame *f = profile_frame_get(p, fid);

			if (!f)
				break;
			if (text[fid] == PROFILE_NO_STR)
				text[fid] = intern_str(t->names,
						       profile_frame_name(p,
									  fid));
			node = child_of(t, node, text[fid], p, f);
			t->nodes[node].total[slot] += st->count;
		}
		t->nodes[node].self[slot] += st->count;
	}
	free(text);
}

static const struct flametree *sort_tree;

static int
cmp_text(const void *a, const void *b)
{
	const struct flametree *t = sort_tree;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return strcmp(flametree_str(t, t->nodes[x].text),
		      flametree_str(t, t->nodes[y].text));
}

void
flametree_sort(struct flametree *t)
{
	uint32_t *kids = NULL;
	size_t cap = 0;

	sort_tree = t;
	for (size_t n = 0; n < t->nnodes; n++) {
		size_t k = 0;

		for (uint32_t c = t->nodes[n].child; c != FLAMETREE_NONE;
		     c = t->nodes[c].next) {
			kids = xgrowarray(kids, &cap, k + 1, sizeof(*kids));
			kids[k++] = c;
		}
		if (k < 2)
			continue;
		qsort(kids, k, sizeof(*kids), cmp_text);
		t->nodes[n].child = kids[0];
		for (size_t i = 0; i + 1 < k; i++)
			t->nodes[kids[i]].next = kids[i + 1];
		t->nodes[kids[k - 1]].next = FLAMETREE_NONE;
	}
	sort_tree = NULL;
	free(kids);
}
