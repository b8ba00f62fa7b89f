// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * libFuzzer target: the unwinder over a module whose unwind tables the
 * target wrote. The input is an ELF file, mapped read and execute into
 * this process from a scratch file, so that symtab finds it as it finds
 * a target's library (its maps, the file through /proc/PID/root, the
 * load bias); the unwinder reads the module's memory through a struct
 * mem that serves the input's bytes at the mapping (file offset x at
 * start + x) and a synthetic stack, nothing else of this process. So
 * the .eh_frame_hdr and .eh_frame that src/unwind.c copies, checks and
 * hands to libunwind are the input's. Registers: rip at the start of
 * the functions the input's own table lists (and spread over the
 * mapping when it has none), rsp and rbp on a stack whose words chain
 * frame pointers and return into the module; each is unwound with
 * unwind_stack() and unwind_stack_blocked(), and the function bounds
 * asked with unwind_function_bounds(). A walk starts at the rip given
 * and returns only into code; bounds hold their ip. Built and run by
 * tests/long/fuzz.sh; seeds are small ELF files of the host and the build
 * (@elves).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/user.h>
#include <unistd.h>

#include "rbflame/elf_sym.h"
#include "rbflame/mem.h"
#include "rbflame/symtab.h"
#include "rbflame/unwind.h"

#define MAX_IPS 8
#define MAX_FRAMES 64
#define STACK_WORDS 2048
#define STACK_BASE 0x7ff000000000ull	/* synthetic: served by fake_read */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/rbflame-fuzz-unwind.XXXXXX";
static char path[sizeof(dir) + 16];
static int fd = -1;

/* What the fake target's memory holds during one input. */
static const uint8_t *image;
static size_t image_len;
static uint64_t image_at;
static uint64_t stack[STACK_WORDS];

static int
fake_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	const uint64_t stack_len = sizeof(stack);

	(void)m;
	if (addr >= image_at && addr - image_at <= image_len &&
	    len <= image_len - (addr - image_at)) {
		memcpy(buf, image + (addr - image_at), len);
		return 0;
	}
	if (addr >= STACK_BASE && addr - STACK_BASE <= stack_len &&
	    len <= stack_len - (addr - STACK_BASE)) {
		memcpy(buf, (const uint8_t *)stack + (addr - STACK_BASE), len);
		return 0;
	}
	errno = EFAULT;
	return -1;
}

static void
fake_flush(struct mem *m)
{
	(void)m;
}

static void
fake_destroy(struct mem *m)
{
	(void)m;
}

static const struct mem_ops fake_ops = {
	.name = "fuzz",
	.read = fake_read,
	.flush = fake_flush,
	.destroy = fake_destroy,
};

static void
setup(void)
{
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/m.so", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (fd < 0)
		abort();
}

static void
cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

/*
 * Where to start unwinding: the first instructions of functions of the
 * input's .eh_frame_hdr table (version 1, datarel sdata4 pairs), read
 * from the image as the unwinder will read it; else spread over it.
 */
static size_t
pick_ips(const uint8_t *data, size_t size, uint64_t bias, uint64_t *ips)
{
	struct elf_file *ef = elf_file_open_image(data, size);
	uint64_t hv, hs, off, count;
	size_t n = 0;

	if (ef && elf_file_eh_frame_hdr(ef, &hv, &hs) == 0 && hs >= 12 &&
	    hv + bias >= image_at && hv + bias - image_at < size &&
	    size - (hv + bias - image_at) >= 12) {
		const uint8_t *h = data + (hv + bias - image_at);
		uint32_t c;

		memcpy(&c, h + 8, 4);
		count = h[2] == 0x03 ? c : 0;
		off = hv + bias - image_at + 12;
		for (uint64_t i = 0; i < count && n < MAX_IPS &&
				     off + 8 * (i + 1) <= size;
		     i += count / MAX_IPS + 1) {
			int32_t init;

			memcpy(&init, data + off + 8 * i, 4);
			ips[n++] = hv + bias + (uint64_t)(int64_t)init +
				   (data[(off + 8 * i + 4) % size] & 15);
		}
	}
	elf_file_close(ef);
	for (size_t i = 0; n < 2; i++)
		ips[n++] = image_at + (size * (2 * i + 1) / 4);
	return n;
}

/* Frame-pointer chains that return into the module. */
static void
fill_stack(const uint64_t *ips, size_t n)
{
	for (size_t i = 0; i + 1 < STACK_WORDS; i += 2) {
		stack[i] = STACK_BASE + 8 * (i + 2);
		stack[i + 1] = ips[(i / 2) % n] + 1;
	}
	stack[STACK_WORDS - 1] = 0;
}

/* The first ip is rip; every caller's is a return address into code
 * (the module, or any other code of this process's maps). */
static void
check(struct symtab *st, const uint64_t *out, int k, uint64_t rip)
{
	struct symtab_module sm;

	if (k < 1 || k > MAX_FRAMES || out[0] != rip)
		abort();
	for (int i = 1; i < k; i++)
		if (symtab_module(st, out[i] - 1, &sm) < 0 ||
		    !(sm.prot & PROT_EXEC))
			abort();
}

static void
unwind_all(struct unwinder *u, struct symtab *st, const uint64_t *ips,
	   size_t n)
{
	uint64_t out[MAX_FRAMES], lo, hi;
	struct user_regs_struct regs;

	for (size_t i = 0; i < n; i++) {
		memset(&regs, 0, sizeof(regs));
		regs.rip = ips[i];
		regs.rsp = STACK_BASE + 8 * (i + 1);
		regs.rbp = STACK_BASE + 16 * i;
		check(st, out,
		      unwind_stack(u, getpid(), &regs, out, MAX_FRAMES),
		      regs.rip);
		check(st, out,
		      unwind_stack_blocked(u, getpid(), regs.rsp, regs.rip, out,
					   MAX_FRAMES),
		      regs.rip);
		if (unwind_function_bounds(u, ips[i], &lo, &hi) == 0 &&
		    (lo > ips[i] || hi <= ips[i]))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { .ops = &fake_ops };
	uint64_t ips[MAX_IPS + 2];
	struct symtab_module sm;
	struct unwinder *u;
	struct symtab *st;
	size_t n, maplen;
	void *map;

	if (fd < 0) {
		setup();
		atexit(cleanup);
	}
	if (size < 64)
		return 0;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	maplen = (size + 4095) & ~(size_t)4095;
	map = mmap(NULL, maplen, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		abort();
	image = data;
	image_len = size;
	image_at = (uint64_t)(uintptr_t)map;
	st = symtab_create(getpid());
	if (!st)
		abort();
	if (symtab_module(st, image_at, &sm) < 0 || sm.start != image_at)
		abort();	/* symtab must find the mapping */
	u = unwind_create(getpid(), &m, st);
	if (!u)
		abort();
	/* The load bias as symtab computes it (none when it cannot: the
	 * module then has no tables, and ips are stepped over). */
	n = pick_ips(data, size, sm.elf ? sm.bias : 0, ips);
	fill_stack(ips, n);
	unwind_all(u, st, ips, n);
	unwind_destroy(u);
	symtab_destroy(st);
	munmap(map, maplen);
	return 0;
}
