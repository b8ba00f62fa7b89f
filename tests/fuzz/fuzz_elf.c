// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: an ELF file as the target maps it, which the target
 * controls. Any bytes go to elf_file_open_image() (the path the vDSO
 * takes; a mapped file's header, sections, symbol tables, notes and
 * build id are parsed alike); a file it accepts is asked what the
 * sampler asks: symbols and function bounds at addresses spread over its
 * mappings, file offsets to addresses, the eh_frame and its header, the
 * build id. An accepted file's answers must stay inside it: a build id
 * within the input, symbol names NUL-ended. Built and run by
 * tests/long/fuzz.sh; seeds are small ELF files of the host and of the
 * build (@elves).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/elf_sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file *ef = elf_file_open_image(data, size);
	uint64_t a, b, off;
	const uint8_t *id;
	size_t len;

	if (!ef)
		return 0;
	(void)elf_file_type(ef);
	(void)elf_file_symbol_count(ef);
	id = elf_file_build_id(ef, &len);
	if (id && len > 1024)
		abort();
	(void)elf_file_eh_frame_hdr(ef, &a, &b);
	(void)elf_file_eh_frame(ef, &a, &b);
	/* Addresses from the input itself, as an ip would come from a
	 * stack, and the file offsets of the first pages. */
	for (size_t i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		uint64_t v;
		const char *name;

		memcpy(&v, data + i, sizeof(v));
		name = elf_file_symbol(ef, v, &off);
		if (name && strlen(name) > 1u << 20)
			abort();
		(void)elf_file_function_bounds(ef, v, &a, &b);
		(void)elf_file_offset_to_vaddr(ef, v & 0xffffff, &a);
		(void)elf_file_mapping_vaddr(ef, (i / 8) << 12, i & 8, &a);
	}
	elf_file_close(ef);
	return 0;
}
