/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Memory snapshots: two more memory backends behind the struct mem ops
 * table. A recorder forwards every read to another backend and keeps the
 * bytes it returned; snapshot_save() writes them, with what is needed to
 * read them again (the Ruby VM's address and layout, the maps, the stopped
 * threads' registers), to an RBFSNAP1 file (doc/snapshot-format.md). A
 * loaded snapshot serves reads from the recorded bytes only, so the Ruby
 * reader runs offline, in unit tests and under a fuzzer, exactly as it runs
 * on a live process.
 */
#ifndef RBFLAME_SNAPSHOT_H
#define RBFLAME_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct mem;

/* Bound on the bytes a recorder keeps and a snapshot may hold. */
#define SNAPSHOT_MAX_BYTES (64u << 20)

/** Registers of one thread that was stopped at capture time. */
struct snapshot_regs {
	pid_t tid;
	struct user_regs_struct regs;
};

/**
 * What a snapshot says about its process besides memory. Strings are
 * always NUL-terminated ("" when unknown). maps and regs point to memory
 * the caller owns for snapshot_save(); snapshot_load() allocates them and
 * snapshot_meta_free() frees them.
 */
struct snapshot_meta {
	pid_t pid;
	uint64_t captured_ns;	/* CLOCK_REALTIME at capture, 0 unknown */
	/* The Ruby VM: struct ruby_vm's fields (ruby_vm_meta.h). */
	char ruby_layout[32];	/* the layout's version ("3.1.2") */
	char ruby_version[32];	/* ruby_version of the process */
	char ruby_description[160];
	uint64_t ruby_vm;	/* rb_vm_t * */
	uint64_t ruby_symbols;	/* ruby_global_symbols, 0 unknown */
	int ruby_vm_from_export;
	uint32_t ruby_pthread_tid_off;	/* 2.7: tid offset in struct pthread */
	/* The text of /proc/PID/maps (NUL-terminated), NULL if none. */
	char *maps;
	/* Registers of each stopped thread; NULL when nregs is 0. */
	struct snapshot_regs *regs;
	size_t nregs;
};

/** Recorder statistics. */
struct snapshot_recorder_stats {
	uint64_t regions;	/* disjoint address ranges kept */
	uint64_t bytes;		/* bytes kept */
	uint64_t dropped;	/* reads not kept: SNAPSHOT_MAX_BYTES reached */
};

/**
 * A backend that forwards every read to inner and keeps the bytes read,
 * merged into disjoint regions (widened to aligned 64-byte granules when
 * inner can read them). A later read of the same address replaces what was
 * kept. Flushes go to inner. inner stays the caller's and must outlive the
 * recorder; mem_destroy() of the recorder frees only what it kept.
 */
struct mem *snapshot_recorder_create(struct mem *inner);

/** Fills out for a recorder: 0, or -1 with EINVAL if m is no recorder. */
int snapshot_recorder_stats(struct mem *m, struct snapshot_recorder_stats *out);

/** A run of recorded bytes: len bytes at addr. */
struct snapshot_region {
	uint64_t addr;
	uint64_t len;
	const unsigned char *data;
};

/**
 * The i-th region a recorder kept, in address order (regions neither
 * overlap nor touch; data is the recorder's, valid until its next read):
 * 0, or -1 with errno EINVAL if m is no recorder, ENOENT past the last.
 */
int snapshot_recorder_region(struct mem *m, size_t i,
			     struct snapshot_region *out);

/**
 * Writes what recorder kept, with meta, to path (replaced atomically).
 * 0, or -1 with errno (EINVAL: not a recorder or meta out of bounds).
 */
int snapshot_save(struct mem *recorder, const struct snapshot_meta *meta,
		  const char *path);

/**
 * Opens a snapshot file: a backend serving reads from its recorded bytes
 * (a read not wholly inside them fails with EFAULT), and its meta in *meta
 * (free with snapshot_meta_free()). NULL with errno on failure: EINVAL for
 * a malformed file, EFBIG for one larger than any valid snapshot.
 */
struct mem *snapshot_load(const char *path, struct snapshot_meta *meta);

/**
 * The same from bytes in memory (copied: buf may be freed afterwards).
 * Hardened for fuzzing: any malformed input gives NULL with EINVAL.
 */
struct mem *snapshot_from_buffer(const void *buf, size_t len,
				 struct snapshot_meta *meta);

/** Frees what snapshot_load() allocated in meta and clears it. */
void snapshot_meta_free(struct snapshot_meta *meta);

#endif
