/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Address to module and symbol for one target process: its memory maps,
 * one struct elf_file per distinct mapped file (opened lazily through
 * /proc/PID/root, kept until symtab_destroy()), and the load bias of each
 * mapping. Lookups are a binary search over the maps and over the file's
 * sorted symbols.
 */
#ifndef RBFLAME_SYMTAB_H
#define RBFLAME_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct elf_file;
struct symtab;

/** The file-backed mapping holding an address. */
struct symtab_module {
	/* The mapped file's symbols and segments; NULL when the file could
	 * not be read (then bias is 0 and means nothing). Owned by the
	 * symtab, valid until symtab_destroy(). */
	struct elf_file *elf;
	uint64_t bias;	     /* runtime address - link-time address */
	const char *path;    /* as maps shows it; valid until destroy */
	uint64_t start, end; /* this mapping: [start, end) */
	int prot;	     /* and its PROT_READ | PROT_WRITE | PROT_EXEC */
};

/**
 * Reads the root prefix and maps of pid. NULL with errno when the maps
 * cannot be read. symtab_destroy() frees.
 */
struct symtab *symtab_create(pid_t pid);

/**
 * Re-reads the maps (after dlopen and friends). Files already opened stay
 * cached. 0, or -1 with errno (the old maps are kept).
 */
int symtab_reload(struct symtab *st);

/**
 * Counts symtab_reload() calls that changed the maps, so users caching
 * per-mapping data (the unwinder) know when to drop it.
 */
uint64_t symtab_generation(const struct symtab *st);

/**
 * Opens every mapped executable file now, so that the first samples do
 * not pay for it while the target is stopped. 0, or -1 with errno.
 */
int symtab_preload(struct symtab *st);

/**
 * Fills out for the file-backed mapping holding ip. When no mapping holds
 * ip the maps are re-read once (at most every 100 ms) and the lookup
 * retried. 0, or -1 with errno ENOENT (no mapping, or an anonymous one).
 */
int symtab_module(struct symtab *st, uint64_t ip, struct symtab_module *out);

/* The name of every address in JIT code. */
#define SYMTAB_JIT_NAME "[JIT]"

/**
 * Is ip in JIT code: an anonymous executable mapping (YJIT's code region
 * is one, mapped r-x with no file)? Re-reads the maps as symtab_module()
 * does.
 */
bool symtab_is_jit(struct symtab *st, uint64_t ip);

/**
 * From now on names JIT code from the perf map the target's JIT writes,
 * /tmp/perf-PID.map in the target's root (PID as the target sees itself),
 * read with its rights (perfmap.h): "[TAG] NAME" where the map has the
 * address, "[JIT]" elsewhere. For Ruby, tag "yjit" (ruby --yjit-perf).
 */
void symtab_name_jit(struct symtab *st, const char *tag);

/**
 * Names the code at ip (already ip - 1 for return addresses) into buf,
 * always terminated:
 *   "symbol"                  in the main executable,
 *   "symbol (libfoo.so.1)"    in another file (its basename),
 *   "0xADDR (libfoo.so.1)"    in a file but in no symbol; ADDR is the
 *                             link-time address (what addr2line wants)
 *                             when the file could be read, else ip,
 *   "[TAG] NAME"              in JIT code the perf map names
 *                             (symtab_name_jit()),
 *   "[JIT]"                   in other JIT code (symtab_is_jit()),
 *   "0xADDR"                  in no file-backed mapping; ADDR is ip.
 */
void symtab_frame_name(struct symtab *st, uint64_t ip, char *buf, size_t cap);

/** What symtab_frame_info() knows of an address. */
struct symtab_frame {
	const char *symbol;	/* NULL when in no symbol; in JIT code the
				 * perf map's "[TAG] NAME", else
				 * SYMTAB_JIT_NAME */
	const char *module;	/* the file's path as maps shows it, or NULL */
	char build_id[41];	/* hex, "" when the file has none */
	uint64_t addr;		/* the symbol's link-time address; without a
				 * symbol the link-time ip (ip in no file) */
	uint64_t func_start;	/* runtime bounds [func_start, func_end) of a
				 * sized symbol; both 0 when not known */
	uint64_t func_end;
	bool jit;		/* in JIT code no perf map names: named
				 * SYMTAB_JIT_NAME, addr 0 */
	bool jit_named;		/* in JIT code the perf map names; addr 0 */
};

/**
 * Fills out for ip (as symtab_frame_name() names it) and writes the name
 * symtab_frame_name() would write into buf. Pointers are valid until
 * symtab_destroy().
 */
void symtab_frame_info(struct symtab *st, uint64_t ip,
		       struct symtab_frame *out, char *buf, size_t cap);

/** Frees st and every elf_file it opened (NULL is fine). */
void symtab_destroy(struct symtab *st);

#endif
