// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: layouts as a hostile debug file could describe them,
 * fed through the check and then the reader. The input's first byte picks
 * a built-in layout; each 5 bytes after it set one numeric member (a byte
 * for its index in ruby_layout_fields[], modulo their count, then a
 * little-endian 32-bit value, cut to the member's type). The layout must
 * pass ruby_layout_check() or be refused with a reason; one that passes
 * reads the committed snapshot of a live Ruby 3.1 process
 * (tests/unit/data/snapshots/ruby31-threads.snap, path from FUZZ_SRCDIR)
 * the way 'rbflame dump --from-snapshot' does, and the reader must keep
 * its promises (bounded threads and frames, NUL-ended names). A DWARF
 * layout reaches the reader only through that check (src/ruby/vm.c), so
 * this is what a debug file can make the reader do. Built and run by
 * tests/long/fuzz.sh; seeds in tests/fuzz/seeds/ruby_layout.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/mem.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_layout.h"
#include "rbflame/ruby_vm_meta.h"
#include "rbflame/snapshot.h"
#include "rbflame/xmalloc.h"

#ifndef FUZZ_SRCDIR
#define FUZZ_SRCDIR "."
#endif
#define SNAPSHOT FUZZ_SRCDIR "/tests/unit/data/snapshots/ruby31-threads.snap"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *snap;
static size_t snap_len;
static struct ruby_stack *stacks;
static size_t nfields, nlayouts;

static void
setup(void)
{
	FILE *f = fopen(SNAPSHOT, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fprintf(stderr, "fuzz_ruby_layout: cannot read %s\n", SNAPSHOT);
		abort();
	}
	snap_len = (size_t)n;
	snap = xmalloc(snap_len);
	if (fread(snap, 1, snap_len, f) != snap_len)
		abort();
	fclose(f);
	stacks = xcalloc(RUBY_MAX_THREADS, sizeof(*stacks));
	while (ruby_layout_fields[nfields].name)
		nfields++;
	while (ruby_layouts[nlayouts])
		nlayouts++;
}

/* Sets member f of L to v, cut to its type (the absent values too). */
static void
poke(struct ruby_layout *L, const struct ruby_layout_field *f, uint32_t v)
{
	char *p = (char *)L + f->offset;

	switch (f->type) {
	case RUBY_FIELD_U8:
		*(uint8_t *)p = (uint8_t)v;
		break;
	case RUBY_FIELD_I8:
		*(int8_t *)p = (int8_t)(uint8_t)v;
		break;
	case RUBY_FIELD_U16:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case RUBY_FIELD_U32:
		*(uint32_t *)p = v;
		break;
	case RUBY_FIELD_STR:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_meta meta;
	struct ruby_layout L;
	struct ruby_reader *r;
	struct ruby_vm vm;
	struct mem *m;
	char why[200] = "";
	pid_t tid;
	int n;

	if (!snap)
		setup();
	if (size < 1)
		return 0;
	L = *ruby_layouts[data[0] % nlayouts];
	for (size_t i = 1; i + 5 <= size; i += 5) {
		uint32_t v = (uint32_t)data[i + 1] |
			     (uint32_t)data[i + 2] << 8 |
			     (uint32_t)data[i + 3] << 16 |
			     (uint32_t)data[i + 4] << 24;

		poke(&L, &ruby_layout_fields[data[i] % nfields], v);
	}
	if (ruby_layout_check(&L, why, sizeof(why)) < 0) {
		if (!why[0])
			abort();	/* a refusal says why */
		return 0;
	}
	m = snapshot_from_buffer(snap, snap_len, &meta);
	if (!m)
		abort();	/* the committed snapshot always loads */
	if (ruby_vm_meta_get(&meta, &vm) < 0)
		abort();
	vm.layout = &L;
	r = ruby_reader_create(&vm, m, 0);
	(void)ruby_gvl_holder(r, &tid);
	for (int pass = 0; pass < 2; pass++) {
		/* The second pass goes through the caches the first filled. */
		n = ruby_read_stacks(r, stacks, RUBY_MAX_THREADS);
		if (n > RUBY_MAX_THREADS)
			abort();
		for (int i = 0; i < n; i++) {
			const struct ruby_stack *st = &stacks[i];

			if (st->nframes > RUBY_MAX_FRAMES ||
			    !memchr(st->name, 0, sizeof(st->name)))
				abort();
			for (int f = 0; f < st->nframes; f++)
				if ((st->frames[f].label &&
				     strlen(st->frames[f].label) > 1u << 20) ||
				    (st->frames[f].path &&
				     strlen(st->frames[f].path) > 1u << 20))
					abort();
		}
	}
	ruby_reader_destroy(r);
	mem_destroy(m);
	snapshot_meta_free(&meta);
	return 0;
}
