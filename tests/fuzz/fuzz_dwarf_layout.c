// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: a Ruby layout from a hostile debug file, the whole
 * way src/ruby/vm.c takes one. The input is an ELF file with DWARF, read
 * from a memory file descriptor as the target's libruby (or its debug
 * file) would be: ruby_dwarf_open_fd() indexes the units the layout
 * needs (ruby_dwarf_cus), ruby_dwarf_layout() builds the layout for the
 * version of the committed snapshot of a live Ruby 3.1 process
 * (tests/unit/data/snapshots/ruby31-threads.snap, path from
 * FUZZ_SRCDIR); a layout that comes out must pass ruby_layout_check() or
 * be refused with a reason, and one that passes reads the snapshot as
 * 'rbflame dump --from-snapshot' would, the reader keeping its promises
 * (bounded threads and frames, NUL-ended names). fuzz_ruby_layout.c
 * mutates layouts directly; this one reaches them through libdw and the
 * DWARF rules. Built and run by tests/long/fuzz.sh; seeds in
 * tests/fuzz/seeds/dwarf_layout (made by seeds/mkdwarf.sh: the DWARF of
 * the built-in layouts, in DWARF 4 and 5).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rbflame/mem.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_dwarf.h"
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
static char version[32];	/* the snapshot's Ruby, "3.1.2" */

static void
setup(void)
{
	FILE *f = fopen(SNAPSHOT, "rb");
	struct snapshot_meta meta;
	struct ruby_vm vm;
	struct mem *m;
	long n;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fprintf(stderr, "fuzz_dwarf_layout: cannot read %s\n",
			SNAPSHOT);
		abort();
	}
	snap_len = (size_t)n;
	snap = xmalloc(snap_len);
	if (fread(snap, 1, snap_len, f) != snap_len)
		abort();
	fclose(f);
	m = snapshot_from_buffer(snap, snap_len, &meta);
	if (!m || ruby_vm_meta_get(&meta, &vm) < 0)
		abort();
	snprintf(version, sizeof(version), "%s", vm.version);
	mem_destroy(m);
	snapshot_meta_free(&meta);
	stacks = xcalloc(RUBY_MAX_THREADS, sizeof(*stacks));
}

/* The input as a file libdw reads with pread, as it reads the target's. */
static int
input_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_dwarf_layout", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return fd;
}

/* The reader over the snapshot with layout L, twice (the second pass
 * goes through the caches the first filled). */
static void
read_snapshot(const struct ruby_layout *L)
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ruby_dwarf_layout out;
	struct ruby_dwarf *d;
	char why[200] = "";
	int rc;

	if (!snap)
		setup();
	d = ruby_dwarf_open_fd(input_fd(data, size), -1, ruby_dwarf_cus);
	if (!d)
		return 0;
	rc = ruby_dwarf_layout(d, version, "fuzz input", &out, why,
			       sizeof(why));
	ruby_dwarf_close(d);
	if (rc < 0) {
		if (!why[0])
			abort();	/* a refusal says why */
		return 0;
	}
	if (ruby_layout_check(&out.layout, why, sizeof(why)) < 0) {
		if (!why[0])
			abort();
		return 0;
	}
	read_snapshot(&out.layout);
	return 0;
}
