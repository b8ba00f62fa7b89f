// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The exact u64 -> u32 map (include/rbflame/u64map.h): keys and values in
 * two arrays, a free slot's key 0, key 0 itself kept beside the table.
 * Owns its arrays.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rbflame/u64map.h"
#include "rbflame/xmalloc.h"

#define FIRST_CAP 64

struct u64map {
	uint64_t *keys;		/* 0: a free slot */
	uint32_t *vals;
	size_t n, cap;		/* keys in the table; cap a power of two */
	bool has_zero;		/* key 0, which marks free slots above */
	uint32_t zero;
};

struct u64map *
u64map_create(void)
{
	struct u64map *m = xcalloc(1, sizeof(*m));

	m->cap = FIRST_CAP;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	return m;
}

void
u64map_destroy(struct u64map *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m);
}

void
u64map_clear(struct u64map *m)
{
	memset(m->keys, 0, m->cap * sizeof(*m->keys));
	m->n = 0;
	m->has_zero = false;
}

size_t
u64map_count(const struct u64map *m)
{
	return m->n + m->has_zero;
}

/* The slot of key (not 0): where it is, or the free slot that ends its
 * probe. The table always has a free slot: it is never over half full. */
static size_t
probe(const struct u64map *m, uint64_t key)
{
	size_t i = (key * 0x9e3779b97f4a7c15ull) >> 20 & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
grow(struct u64map *m)
{
	size_t cap = m->cap * 2;
	uint64_t *keys = m->keys;
	uint32_t *vals = m->vals;
	size_t old = m->cap;

	m->cap = cap;
	m->keys = xcalloc(cap, sizeof(*m->keys));
	m->vals = xcalloc(cap, sizeof(*m->vals));
	for (size_t j = 0; j < old; j++) {
		if (keys[j]) {
			size_t i = probe(m, keys[j]);

			m->keys[i] = keys[j];
			m->vals[i] = vals[j];
		}
	}
	free(keys);
	free(vals);
}

uint32_t *
u64map_slot(struct u64map *m, uint64_t key, bool *found)
{
	size_t i;

	if (key == 0) {
		*found = m->has_zero;
		if (!m->has_zero) {
			m->has_zero = true;
			m->zero = 0;
		}
		return &m->zero;
	}
	i = probe(m, key);
	*found = m->keys[i] == key;
	if (*found)
		return &m->vals[i];
	if ((m->n + 1) * 2 > m->cap) {
		grow(m);
		i = probe(m, key);
	}
	m->keys[i] = key;
	m->vals[i] = 0;
	m->n++;
	return &m->vals[i];
}

uint32_t *
u64map_find(struct u64map *m, uint64_t key)
{
	size_t i;

	if (key == 0)
		return m->has_zero ? &m->zero : NULL;
	i = probe(m, key);
	return m->keys[i] == key ? &m->vals[i] : NULL;
}
