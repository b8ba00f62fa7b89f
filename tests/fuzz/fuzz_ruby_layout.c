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

#include "rbflame/ruby_layout.h"

#include "snapshot_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t nfields, nlayouts;

static void
setup(void)
{
	fuzz_snapshot_load("fuzz_ruby_layout");
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
	struct ruby_layout L;
	char why[200] = "";

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
	fuzz_snapshot_read(&L);
	return 0;
}
