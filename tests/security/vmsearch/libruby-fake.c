// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A fake libruby (tests/security/vmsearch.sh): its name and ruby_version
 * make rbflame take it for Ruby 3.1.2, it exports no
 * ruby_current_vm_ptr, so rbflame searches its writable data for the VM,
 * and that data is 8 MiB of .bss full of pointers, each a candidate to
 * check by reading the target: a search that takes seconds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

const char ruby_version[] = "3.1.2";

#define FILL_WORDS (1u << 20)	/* 8 MiB */

/* Exported, so the compiler keeps it though nothing reads it. */
uintptr_t fake_ruby_words[FILL_WORDS];

/* Points the first words of .bss (all, or VMSEARCH_WORDS of them) at a
 * zeroed heap block (aligned, so each passes the search's first filter
 * and costs a read); the rest, zero, fail that filter at once. */
void
fake_ruby_fill(void)
{
	uintptr_t *block = calloc(4096, sizeof(*block));
	const char *env = getenv("VMSEARCH_WORDS");
	size_t n = env ? strtoul(env, NULL, 10) : FILL_WORDS;

	if (n == 0 || n > FILL_WORDS)
		n = FILL_WORDS;
	for (size_t i = 0; i < n; i++)
		fake_ruby_words[i] = (uintptr_t)(block + (i & 1023));
}
