// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: the Ruby reader over mutated process memory. The
 * input is a snapshot (seeds: real ones of live Ruby processes); it is
 * loaded through the snapshot memory backend and the reader runs over it
 * exactly as 'rbflame dump --from-snapshot' does (ruby_vm_meta_get,
 * ruby_reader_create, ruby_read_stacks), plus the sampler's GVL-holder
 * lookup, and every string of every frame is touched. Besides memory
 * errors, it fails when the reader breaks its promises: more threads or
 * frames than the bounds, a thread name without its NUL, the same thread
 * twice.
 *
 * The mutator keeps the input's size and changes bytes in place, in one
 * window at a time: the file's structure (section and region lengths)
 * mostly survives, so the mutations land in the recorded memory the reader
 * walks, not in the parser's length checks (fuzz_snapshot covers those).
 * Built and run by tests/long/fuzz.sh.
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
#include "rbflame/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* As in src/dump.c: room for every thread the reader may return. */
static struct ruby_stack *stacks;

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			unsigned int seed)
{
	uint8_t window[64];
	size_t off, len;

	(void)max_size;
	if (size == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	srand(seed);
	len = 1 + (size_t)rand() % (size < sizeof(window) ? size
							  : sizeof(window));
	off = (size_t)rand() % (size - len + 1);
	memcpy(window, data + off, len);
	/* max_size = len: the window cannot grow; keep it only if it kept
	 * its size. */
	if (LLVMFuzzerMutate(window, len, len) == len)
		memcpy(data + off, window, len);
	return size;
}

static void
touch(const char *s)
{
	if (s && strlen(s) > 1u << 20)
		abort();
}

/* A rendered value: NUL-terminated inside its buffer, printable ASCII. */
static void
check_text(const char *s, size_t cap)
{
	const char *end = memchr(s, 0, cap);

	if (!end)
		abort();
	for (; s < end; s++)
		if (*s < 0x20 || *s > 0x7e)
			abort();
}

static void
check_locals(const struct ruby_locals *lo)
{
	if (!lo)
		return;
	if (lo->n < 0 || lo->n > RUBY_MAX_LOCALS ||
	    (lo->total >= 0 && lo->n > lo->total) || lo->total < -2)
		abort();
	check_text(lo->self, sizeof(lo->self));
	for (int i = 0; i < lo->n; i++) {
		touch(lo->v[i].name);
		check_text(lo->v[i].value, sizeof(lo->v[i].value));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_meta meta;
	struct ruby_reader *r;
	struct ruby_vm vm;
	struct mem *m;
	pid_t tid;
	int n;

	if (!stacks)
		stacks = xcalloc(RUBY_MAX_THREADS, sizeof(*stacks));
	m = snapshot_from_buffer(data, size, &meta);
	if (!m)
		return 0;
	if (ruby_vm_meta_get(&meta, &vm) < 0)
		goto out;
	r = ruby_reader_create(&vm, m, 0);
	if (!r)
		goto out;
	(void)ruby_gvl_holder(r, &tid);
	n = ruby_read_stacks(r, stacks, RUBY_MAX_THREADS);
	if (n > RUBY_MAX_THREADS)
		abort();
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &stacks[i];

		/* Each thread once: a looping list must not return (and keep
		 * the target stopped while reading) the same threads again. */
		for (int j = 0; j < i; j++)
			if (stacks[j].thread == st->thread)
				abort();
		if (st->nframes > RUBY_MAX_FRAMES || memchr(st->name, 0,
							    sizeof(st->name)) == NULL)
			abort();
		for (int f = 0; f < st->nframes; f++) {
			touch(st->frames[f].label);
			touch(st->frames[f].path);
		}
	}
	/* A second pass goes through the frame cache filled by the first,
	 * with the locals of every Ruby frame (dump --locals): bounded,
	 * NUL-terminated, printable ASCII whatever the memory says. */
	ruby_reader_set_locals(r, true);
	n = ruby_read_stacks(r, stacks, RUBY_MAX_THREADS);
	for (int i = 0; i < n; i++)
		for (int f = 0; f < stacks[i].nframes; f++)
			check_locals(stacks[i].frames[f].locals);
	ruby_reader_destroy(r);
out:
	mem_destroy(m);
	snapshot_meta_free(&meta);
	return 0;
}
