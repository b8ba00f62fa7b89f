// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: 'rbflame diff' over two hostile profiles. The input
 * is BASE's length (4 bytes, little-endian, clipped to what follows),
 * BASE, then NEW, each any bytes as a raw recording or collapsed stacks
 * (seeds: tests/fuzz/seeds/diff, made by seeds/mkdiff.sh); both go to a
 * scratch directory and diff_main() runs on them with every writer on
 * (--svg, --collapsed, --markdown, --fail-above, --limit), its table and
 * error lines sent to /dev/null. A rejection is exit 2, never a crash.
 * Built and run by tests/long/fuzz.sh; seeds in tests/fuzz/seeds/diff.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/rbflame-fuzz-diff.XXXXXX";
static int ready;
static char base[64], new_p[64], svg[64], folded[64], md[64];

/* Writes len bytes to path, whole; aborts on an I/O error (not the
 * input's fault). */
static void
put(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b, 1, len, f) != len || fclose(f))
		abort();
}

/* The scratch directory goes at exit. */
static void
cleanup(void)
{
	const char *files[] = { base, new_p, svg, folded, md };

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		unlink(files[i]);
	rmdir(dir);
}

static void
setup(void)
{
	static FILE *null;

	if (!mkdtemp(dir))
		abort();
	snprintf(base, sizeof(base), "%s/base", dir);
	snprintf(new_p, sizeof(new_p), "%s/new", dir);
	snprintf(svg, sizeof(svg), "%s/d.svg", dir);
	snprintf(folded, sizeof(folded), "%s/d.folded", dir);
	snprintf(md, sizeof(md), "%s/d.md", dir);
	atexit(cleanup);
	/* The table and the error lines: not what is tested, and slow.
	 * The streams only: sanitizer reports and libFuzzer's own output
	 * still reach fd 2. */
	if (!(null = fopen("/dev/null", "w")))
		abort();
	stdout = null;
	stderr = null;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t blen = 0;
	char *argv[] = {
		"diff", "--fail-above", "1", "--limit", "5",
		"--svg", svg, "--collapsed", folded, "--markdown", md,
		base, new_p, NULL,
	};
	int rc;

	if (!ready++)
		setup();
	if (size >= 4) {
		blen = (size_t)data[0] | (size_t)data[1] << 8 |
		       (size_t)data[2] << 16 | (size_t)data[3] << 24;
		data += 4;
		size -= 4;
	}
	if (blen > size)
		blen = size;
	put(base, data, blen);
	put(new_p, data + blen, size - blen);
	rc = diff_main((int)(sizeof(argv) / sizeof(*argv)) - 1, argv);
	if (rc < 0 || rc > 2)
		abort();
	return 0;
}
