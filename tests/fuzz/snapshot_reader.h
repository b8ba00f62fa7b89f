// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * For the fuzz targets that end in the Ruby reader with a layout they
 * made (fuzz_ruby_layout.c, fuzz_dwarf_layout.c): the committed snapshot
 * of a live Ruby 3.1 process (tests/unit/data/snapshots/ruby31-threads.snap,
 * path from FUZZ_SRCDIR), loaded once, and a read of it the way 'rbflame
 * dump --from-snapshot' reads, twice (the second pass goes through the
 * caches the first filled), aborting where the reader breaks a promise:
 * more threads or frames than its bounds, a name without its NUL, a
 * label or path over 1 MiB. Included by one .c file each (static).
 */
#ifndef RBFLAME_FUZZ_SNAPSHOT_READER_H
#define RBFLAME_FUZZ_SNAPSHOT_READER_H

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
#define FUZZ_SNAPSHOT \
	FUZZ_SRCDIR "/tests/unit/data/snapshots/ruby31-threads.snap"

static uint8_t *snap;
static size_t snap_len;
static struct ruby_stack *stacks;

/* Loads the snapshot into snap, once; aborts if it cannot. */
static void
fuzz_snapshot_load(const char *me)
{
	FILE *f = fopen(FUZZ_SNAPSHOT, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fprintf(stderr, "%s: cannot read %s\n", me, FUZZ_SNAPSHOT);
		abort();
	}
	snap_len = (size_t)n;
	snap = xmalloc(snap_len);
	if (fread(snap, 1, snap_len, f) != snap_len)
		abort();
	fclose(f);
	stacks = xcalloc(RUBY_MAX_THREADS, sizeof(*stacks));
}

/* The reader over the snapshot with layout L, twice. */
static void
fuzz_snapshot_read(const struct ruby_layout *L)
{
	struct snapshot_meta meta;
	struct ruby_reader *r;
	struct ruby_vm vm;
	struct mem *m;
	pid_t tid;
	int n;

	m = snapshot_from_buffer(snap, snap_len, &meta);
	if (!m)
		abort();	/* the committed snapshot always loads */
	if (ruby_vm_meta_get(&meta, &vm) < 0)
		abort();
	vm.layout = L;
	r = ruby_reader_create(&vm, m, 0);
	(void)ruby_gvl_holder(r, &tid);
	for (int pass = 0; pass < 2; pass++) {
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
}

#endif
