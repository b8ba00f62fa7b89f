// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A program whose only purpose is its DWARF: check_ruby_dwarf.c reads
 * the types of dwarf-sample.h from it.
 */
#include "dwarf-sample.h"

static const int SAMPLE_UNIT = 512;
sample_t sample_global;
volatile int sample_sink;

int
main(void)
{
	sample_global.kind = SAMPLE_SHIFT & 0xf;
	sample_global.color = SAMPLE_MAGIC;
	sample_sink = SAMPLE_UNIT + SAMPLE_MASK + SAMPLE_NEGATIVE + SAMPLE_HIGH +
		      SAMPLE_LAST_OP;
	return sample_global.flags.mode;
}
