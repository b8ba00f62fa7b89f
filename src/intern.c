// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* String interning with an open-addressing hash table; owns its strings. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rbflame/intern.h"
#include "rbflame/xmalloc.h"

struct entry {
	char *s;
	size_t len;
	uint64_t hash;
};

struct intern {
	struct entry *v;	/* by id */
	size_t n, cap;
	uint32_t *slots;	/* id + 1, 0 = empty */
	size_t nslots;
};

uint64_t
intern_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

struct intern *
intern_create(void)
{
	struct intern *in = xcalloc(1, sizeof(*in));

	in->nslots = 256;
	in->slots = xcalloc(in->nslots, sizeof(*in->slots));
	return in;
}

static void
rehash(struct intern *in)
{
	size_t ns = in->nslots * 2;
	uint32_t *slots = xcalloc(ns, sizeof(*slots));

	for (size_t id = 0; id < in->n; id++) {
		size_t i = in->v[id].hash & (ns - 1);

		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = id + 1;
	}
	free(in->slots);
	in->slots = slots;
	in->nslots = ns;
}

/* The slot that holds s, or the empty one where it would go. */
static size_t
slot_of(const struct intern *in, const char *s, size_t len, uint64_t h)
{
	size_t i = h & (in->nslots - 1);

	while (in->slots[i]) {
		const struct entry *e = &in->v[in->slots[i] - 1];

		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			break;
		i = (i + 1) & (in->nslots - 1);
	}
	return i;
}

uint32_t
intern_find(const struct intern *in, const char *s)
{
	size_t len = strlen(s);
	size_t i = slot_of(in, s, len, intern_hash(s, len));

	return in->slots[i] ? in->slots[i] - 1 : UINT32_MAX;
}

uint32_t
intern_id(struct intern *in, const char *s, size_t len)
{
	uint64_t h = intern_hash(s, len);
	size_t i = slot_of(in, s, len, h);
	struct entry *e;

	if (in->slots[i])
		return in->slots[i] - 1;
	in->v = xgrowarray(in->v, &in->cap, in->n + 1, sizeof(*in->v));
	e = &in->v[in->n];
	e->s = xmalloc(len + 1);
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->len = len;
	e->hash = h;
	in->slots[i] = ++in->n;
	if (in->n * 2 > in->nslots)
		rehash(in);
	return in->n - 1;
}

uint32_t
intern_str(struct intern *in, const char *s)
{
	return intern_id(in, s, strlen(s));
}

const char *
intern_get(const struct intern *in, uint32_t id)
{
	return id < in->n ? in->v[id].s : "";
}

size_t
intern_len(const struct intern *in, uint32_t id)
{
	return id < in->n ? in->v[id].len : 0;
}

uint32_t
intern_count(const struct intern *in)
{
	return in->n;
}

void
intern_clear(struct intern *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->v[i].s);
	in->n = 0;
	memset(in->slots, 0, in->nslots * sizeof(*in->slots));
}

void
intern_destroy(struct intern *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n; i++)
		free(in->v[i].s);
	free(in->v);
	free(in->slots);
	free(in);
}
