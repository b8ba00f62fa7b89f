// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: what 'rbflame report' and 'rbflame diff' read. Any
 * bytes go to profile_load_buffer() (a raw recording or collapsed
 * stacks); a profile it accepts is written by every writer (to
 * /dev/null) and compared with itself the way diff compares two. A
 * rejected input must come with a message. Built and run by
 * tests/long/fuzz.sh; seeds are the writers' golden files.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "rbflame/diff.h"
#include "rbflame/load.h"
#include "rbflame/output.h"
#include "rbflame/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct profile *p = profile_create();
	struct diff_result r;
	const struct output_ops *w;
	char err[256] = "";

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (profile_load_buffer(p, data, size, err, sizeof(err)) < 0) {
		if (!err[0])
			abort();	/* a rejection says why */
		profile_destroy(p);
		return 0;
	}
	for (size_t i = 0; (w = output_at(i)); i++)
		output_write(w, p, NULL, null);
	diff_compare(p, p, &r);
	diff_result_fini(&r);
	profile_destroy(p);
	return 0;
}
