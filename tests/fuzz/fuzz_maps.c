// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: /proc/PID/maps text, whose paths the target names
 * (a file name may hold spaces, newlines, " (deleted)"). Any bytes, cut
 * at their first NUL, go to proc_maps_parse(); each path it keeps must
 * be NUL-ended, and maps_find() on any order of mappings must answer
 * safely, with a mapping that holds the address or none.
 * Built and run by tests/long/fuzz.sh; seeds are maps of live processes
 * (@maps).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/proc.h"
#include "rbflame/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	struct maps m = { 0 };

	memcpy(text, data, size);
	text[size] = '\0';
	if (proc_maps_parse(text, &m) == 0) {
		for (size_t i = 0; i < m.n; i++) {
			const struct map *f;

			if (m.v[i].path && strlen(m.v[i].path) > size)
				abort();
			/* The kernel writes maps sorted, but any order must
			 * be searched safely; what is found holds addr. */
			f = maps_find(&m, m.v[i].start);
			if (f && (f->start > m.v[i].start ||
				  f->end <= m.v[i].start))
				abort();
		}
		maps_free(&m);
	}
	free(text);
	return 0;
}
