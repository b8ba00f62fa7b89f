/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The one path to target memory. Every read of the target, the Ruby
 * reader's and libunwind's, goes through a struct mem. Backends sit behind
 * an ops table: the live process (process_vm_readv with a PTRACE_PEEKDATA
 * fallback and a small cache valid for one stop) and, later, a captured
 * snapshot for tests and fuzzing.
 *
 * Target memory is untrusted input: every read can fail; callers treat a
 * failure as "drop this sample", never as fatal.
 */
#ifndef RBFLAME_MEM_H
#define RBFLAME_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mem;

struct mem_stats {
	uint64_t reads;		/* mem_read() calls */
	uint64_t syscalls;	/* process_vm_readv / peek calls made */
	uint64_t cache_hits;
	uint64_t failures;	/* reads that returned -1 */
};

struct mem_ops {
	const char *name;
	/* Read exactly len bytes at addr into buf: 0, or -1 with errno
	 * (EFAULT/EIO for unmapped memory, ESRCH for a vanished target). */
	int (*read)(struct mem *m, uint64_t addr, void *buf, size_t len);
	/* Forget cached contents: the target ran since the last read. */
	void (*flush)(struct mem *m);
	/* Optional: fetch the memory around n addresses in as few system
	 * calls as possible, so that the reads that follow hit a cache. */
	void (*prefetch)(struct mem *m, const uint64_t *addrs, size_t n);
	void (*destroy)(struct mem *m);
};

struct mem {
	const struct mem_ops *ops;
	struct mem_stats stats;
	void *priv;
};

/** Live process backend for pid (any tid of the process reads the same). */
struct mem *mem_create_live(pid_t pid);

/** Reads len bytes at addr: 0 on success, -1 with errno on any failure. */
int mem_read(struct mem *m, uint64_t addr, void *buf, size_t len);
/** Reads one 64-bit word. */
int mem_read_u64(struct mem *m, uint64_t addr, uint64_t *out);
/**
 * Reads a NUL-terminated string of at most cap-1 bytes into buf (always
 * terminated). Returns its length, or -1 when nothing could be read.
 */
ssize_t mem_read_str(struct mem *m, uint64_t addr, char *buf, size_t cap);
/**
 * Hints that the bytes around each of addrs[0..n) will be read soon: the
 * live backend fetches them all with one process_vm_readv of many
 * vectors. Never fails; a backend without a cache ignores it.
 */
void mem_prefetch(struct mem *m, const uint64_t *addrs, size_t n);
/** A span of target memory: len bytes at addr. */
struct mem_range {
	uint64_t addr;
	uint64_t len;
};
/**
 * Fetches every line of the ranges r[0..n) that the cache lacks, in one
 * process_vm_readv for all of them: what the reads that follow are
 * about to ask for. A range too large for the cache to serve whole (a
 * read of it goes around the cache) is left out. Nothing while
 * mem_cache_only() is on; a backend without a cache ignores it.
 */
void mem_prefetch_ranges(struct mem *m, const struct mem_range *r, size_t n);
/**
 * Copies len bytes at addr from the live backend's cache alone: 0 when
 * the cache holds them all, else -1. Nothing is read from the target
 * and nothing is noted for the next round: a look at what a read is
 * about to need, to fetch it ahead. Other backends: -1.
 */
int mem_peek_cached(struct mem *m, uint64_t addr, void *buf, size_t len);
/**
 * A sampling round reads much the same memory each time: the lines the
 * live backend fetches between mem_hot_begin() and mem_hot_end() are
 * remembered, and mem_prefetch_hot() fetches them all at once at the
 * start of the next round. Other backends ignore these.
 */
void mem_hot_begin(struct mem *m);
void mem_hot_end(struct mem *m);
void mem_prefetch_hot(struct mem *m);
/** mem_prefetch_hot() without the woken owners' lines (below), which
 * the next mem_prefetch_hot() still adds: the fetch that warms it. */
void mem_prefetch_warm(struct mem *m);
/**
 * Lines by owner: while recording, the lines noted after
 * mem_hot_tag(m, key) (key != 0) are remembered as key's too, until the
 * next tag (0: none), replacing what key read before. A thread asleep
 * for a while has nothing in the last round's lines; when it wakes,
 * mem_prefetch_tags() adds the lines of its last read to the next
 * mem_prefetch_hot() (once). Bounded: a table of keys, a few lines
 * each; a key pushed out is fetched line by line, as before.
 */
void mem_hot_tag(struct mem *m, uint64_t key);
void mem_prefetch_tags(struct mem *m, const uint64_t *keys, size_t n);
/**
 * Leaves out of this round's fetches the lines of the last reads of the
 * owners idle[0..n) (threads whose stacks are copied this round, not
 * read), but those another owner (or a read of none) read too: how
 * many. A line left out that a read still needs is read on demand.
 */
size_t mem_hot_drop(struct mem *m, const uint64_t *idle, size_t n);
/**
 * While on, a read the live backend's cache cannot serve fails (EAGAIN)
 * instead of reading the target, and its lines are noted for the next
 * mem_prefetch_hot(): what a stop prefetched, decoded after the target
 * resumed, is a read of that moment or no read. false when m cannot (not
 * live, or reading with PTRACE_PEEKDATA: nothing is prefetched).
 * mem_refused() counts the reads refused since it was turned on (0
 * while it is off).
 */
bool mem_cache_only(struct mem *m, bool on);
uint64_t mem_refused(const struct mem *m);
/** Invalidates cached contents; call whenever the target may have run. */
void mem_flush(struct mem *m);
/** Frees m (NULL is fine). */
void mem_destroy(struct mem *m);

#endif
