/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The RBFSNAP1 file's constants, shared by its writer
 * (src/snapshot/writer.c) and its parser (src/snapshot/parser.c).
 * doc/snapshot-format.md is the specification.
 */
#ifndef RBFLAME_SNAPSHOT_FORMAT_H
#define RBFLAME_SNAPSHOT_FORMAT_H

#define SNAPSHOT_MAGIC "RBFSNAP1"
#define SNAPSHOT_MAGIC_LEN 8
#define SNAPSHOT_FORMAT_VERSION 1

enum snapshot_section {
	SNAPSHOT_SEC_META = 1,
	SNAPSHOT_SEC_MAPS = 2,
	SNAPSHOT_SEC_REGS = 3,
	SNAPSHOT_SEC_MEMORY = 4,
};

/* Bounds of the format (SNAPSHOT_MAX_BYTES is in snapshot.h). */
#define SNAPSHOT_MAX_SECTIONS 64
#define SNAPSHOT_MAX_META_PAIRS 256
#define SNAPSHOT_MAX_KEY_LEN 64
#define SNAPSHOT_MAX_VAL_LEN 4096
#define SNAPSHOT_MAX_MAPS_LEN (16u << 20)
#define SNAPSHOT_MAX_REGS 65536
#define SNAPSHOT_MAX_REGIONS (1u << 20)
/* Header, meta, maps, regs and memory at their bounds stay below this. */
#define SNAPSHOT_MAX_FILE_LEN (128u << 20)

#endif
