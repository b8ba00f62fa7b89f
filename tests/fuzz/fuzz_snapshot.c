// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: the snapshot parser. Any bytes go to
 * snapshot_from_buffer(); a file it accepts is then used as a memory
 * backend (reads at and around the recorded regions, which must either
 * succeed inside them or fail with EFAULT) and its meta turned into a
 * struct ruby_vm, as 'rbflame dump --from-snapshot' does. Built and run
 * by tests/long/fuzz.sh; seeds are real snapshots.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/mem.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_vm_meta.h"
#include "rbflame/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads around the address held by each 8 bytes of the input: some of
 * them are region addresses, so both hits and misses are exercised. */
static void
probe(struct mem *m, const uint8_t *data, size_t size)
{
	uint8_t buf[256];
	int n = 0;

	for (size_t i = 0; i + 8 <= size && n < 64; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		if (!a)
			continue;
		n++;
		for (size_t len = 1; len <= sizeof(buf); len *= 4)
			if (mem_read(m, a, buf, len) < 0 && errno != EFAULT)
				abort();
		if (mem_read(m, a - 3, buf, 16) < 0 && errno != EFAULT)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_meta meta;
	struct ruby_vm vm;
	struct mem *m;
	char c[64];

	m = snapshot_from_buffer(data, size, &meta);
	if (!m) {
		if (errno != EINVAL && errno != EFBIG)
			abort();
		return 0;
	}
	probe(m, data, size);
	mem_read_str(m, meta.ruby_vm, c, sizeof(c));
	mem_flush(m);
	if (meta.maps)
		(void)strlen(meta.maps);
	for (size_t i = 0; i < meta.nregs; i++)
		(void)meta.regs[i].regs.rip;
	(void)ruby_vm_meta_get(&meta, &vm);
	mem_destroy(m);
	snapshot_meta_free(&meta);
	return 0;
}
