// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: separate debug files as a target's root offers them.
 * The input is one ELF file; it is written inside a scratch root as
 * /lib/a.so and, as its own debug file, at the places .gnu_debuglink
 * names lead to when the link says "a.debug" (/lib/a.debug,
 * /lib/.debug/a.debug, /usr/lib/debug/lib/a.debug): so the link's name
 * and CRC and the build-id note are the input's, and the candidates are
 * read and their CRC computed (one matches only when the fuzzer makes
 * the link's CRC that of the input itself). elf_file_open() (symbols from the debug file) and
 * elf_find_dwarf() run on it through that root; any descriptors they
 * return are closed. Built and run by tests/long/fuzz.sh; seeds are
 * small ELF files with a .gnu_debuglink (tests/fuzz/seeds/debuglink).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/elf_sym.h"
#include "rbflame/tfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/rbflame-fuzz-debuglink.XXXXXX";
static const char *const files[] = {
	"lib/a.so", "lib/a.debug", "lib/.debug/a.debug",
	"usr/lib/debug/lib/a.debug",
};
static const char *const dirs[] = {
	"usr/lib/debug/lib", "usr/lib/debug", "usr/lib", "usr",
	"lib/.debug", "lib",
};
static struct tfile_root *root;

static void
path_of(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", dir, rel);
}

/* The scratch root goes at exit. */
static void
cleanup(void)
{
	char p[256];

	tfile_root_destroy(root);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		path_of(p, sizeof(p), files[i]);
		unlink(p);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		path_of(p, sizeof(p), dirs[i]);
		rmdir(p);
	}
	rmdir(dir);
}

static void
setup(void)
{
	char p[256];

	if (!mkdtemp(dir))
		abort();
	for (size_t i = sizeof(dirs) / sizeof(*dirs); i-- > 0;) {
		path_of(p, sizeof(p), dirs[i]);
		if (mkdir(p, 0755) < 0)
			abort();
	}
	root = tfile_root_dir(dir);
	if (!root)
		abort();
	atexit(cleanup);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct elf_file *ef;
	struct elf_dwarf dw;
	char p[256];

	if (!ready++)
		setup();
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		FILE *f;

		path_of(p, sizeof(p), files[i]);
		f = fopen(p, "wb");
		if (!f || fwrite(data, 1, size, f) != size || fclose(f))
			abort();
	}
	ef = elf_file_open(root, "/lib/a.so");
	if (ef) {
		size_t len;

		(void)elf_file_symbol_count(ef);
		(void)elf_file_build_id(ef, &len);
		elf_file_close(ef);
	}
	if (elf_find_dwarf(root, "/lib/a.so", &dw) == 0) {
		if (dw.fd < 0)
			abort();
		close(dw.fd);
		if (dw.alt_fd >= 0)
			close(dw.alt_fd);
	}
	return 0;
}
