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
#include <sys/mman.h>
#include <unistd.h>

#include "rbflame/ruby_dwarf.h"

#include "snapshot_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char version[32];	/* the snapshot's Ruby, "3.1.2" */

static void
setup(void)
{
	struct snapshot_meta meta;
	struct ruby_vm vm;
	struct mem *m;

	fuzz_snapshot_load("fuzz_dwarf_layout");
	m = snapshot_from_buffer(snap, snap_len, &meta);
	if (!m || ruby_vm_meta_get(&meta, &vm) < 0)
		abort();
	snprintf(version, sizeof(version), "%s", vm.version);
	mem_destroy(m);
	snapshot_meta_free(&meta);
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
	fuzz_snapshot_read(&out.layout);
	return 0;
}
