/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * An exact map from 64-bit keys to 32-bit values: open addressing with
 * linear probing, a power-of-two table never more than half full. It
 * never drops an entry by itself: what it holds it keeps until its
 * owner clears it. The sampler's ip cache (ip -> frame id) and the M:N
 * threads' numbers (rb_thread_t * -> number) are two.
 */
#ifndef RBFLAME_U64MAP_H
#define RBFLAME_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map;

/** An empty map; u64map_destroy() frees it. */
struct u64map *u64map_create(void);
/** Frees m (NULL is fine). */
void u64map_destroy(struct u64map *m);
/** Empties m, keeping its table's room. */
void u64map_clear(struct u64map *m);
/** How many keys m holds. */
size_t u64map_count(const struct u64map *m);
/**
 * The value of key (any key, 0 too), added with value 0 when m did not
 * hold it: *found tells which. The pointer is valid until the next key
 * is added or m is cleared.
 */
uint32_t *u64map_slot(struct u64map *m, uint64_t key, bool *found);
/** The value of key, or NULL when m does not hold it; never adds. */
uint32_t *u64map_find(struct u64map *m, uint64_t key);

#endif
