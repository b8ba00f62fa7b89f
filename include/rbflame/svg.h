/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The flamegraph drawn as one self-contained SVG file: frames laid out
 * here, with embedded CSS and JavaScript for hover details, click to zoom
 * and search (no external resource; it works from file:// offline). Used
 * by the svg output format and by 'rbflame diff --svg'.
 */
#ifndef RBFLAME_SVG_H
#define RBFLAME_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "rbflame/flametree.h"

struct svg_params {
	const char *title;	/* NULL: "Flame Graph" or "Icicle Graph" */
	const char *subtitle;	/* a line under the title, or NULL */
	bool icicle;		/* roots at the top */
	bool diff;		/* colour by the change of each frame's share
				 * from FLAMETREE_BASE to FLAMETREE_NEW */
};

/**
 * Writes the SVG of t (sorted, widths from FLAMETREE_NEW) to f: 0, or -1
 * with errno. The same tree and parameters give the same bytes.
 */
int svg_write(const struct flametree *t, const struct svg_params *sp,
	      FILE *f);

#endif
