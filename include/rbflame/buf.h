/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Bytes of the binary formats (the raw recording, the snapshot): a
 * growing buffer the writers append little-endian integers, varints and
 * strings to, and a bounded cursor the readers take them back with. The
 * input a cursor reads is untrusted: a read past the end or a varint too
 * long sets the cursor's error flag, returns 0 and leaves the cursor
 * where it was, so a parser reads a whole record and checks the flag
 * once, never a length of its own.
 */
#ifndef RBFLAME_BUF_H
#define RBFLAME_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A growing buffer: len bytes at p. Zero-initialized is empty. */
struct buf {
	unsigned char *p;
	size_t len, cap;
};

/** Appends len bytes. */
void buf_put(struct buf *b, const void *data, size_t len);
void buf_put_u8(struct buf *b, uint8_t v);
/** Little-endian integers. */
void buf_put_u16(struct buf *b, uint16_t v);
void buf_put_u32(struct buf *b, uint32_t v);
void buf_put_u64(struct buf *b, uint64_t v);
/** Unsigned LEB128: 7 bits a byte, low first; 1 to 10 bytes. */
void buf_put_varint(struct buf *b, uint64_t v);
/** A signed integer as the varint of its zigzag, (v << 1) ^ (v >> 63). */
void buf_put_zigzag(struct buf *b, int64_t v);
/** IEEE 754 binary64, little-endian. */
void buf_put_double(struct buf *b, double d);
/** A string: the varint of its length, then its bytes (no NUL). */
void buf_put_str(struct buf *b, const void *s, size_t len);
/** Empties b, keeping its memory for the next use. */
void buf_reset(struct buf *b);
/** Frees what b holds and empties it. */
void buf_free(struct buf *b);

/** A cursor over len untrusted bytes; bad once a read failed. */
struct bufr {
	const unsigned char *p;
	size_t len, pos;
	bool bad;
};

/** A cursor at the start of len bytes at p (p may be NULL when len is 0). */
void bufr_init(struct bufr *r, const void *p, size_t len);
/** Bytes not read yet. */
size_t bufr_left(const struct bufr *r);
/**
 * The next n bytes, skipped; NULL (and bad set) when fewer are left.
 * Never NULL otherwise, even for n 0.
 */
const unsigned char *bufr_get_bytes(struct bufr *r, uint64_t n);
/** The next n bytes as a cursor of their own (sub), skipped in r; when
 * fewer are left, r and sub are both bad and sub is empty. */
void bufr_sub(struct bufr *r, uint64_t n, struct bufr *sub);
uint8_t bufr_get_u8(struct bufr *r);
/** Little-endian integers. */
uint16_t bufr_get_u16(struct bufr *r);
uint32_t bufr_get_u32(struct bufr *r);
uint64_t bufr_get_u64(struct bufr *r);
/** LEB128 of at most 10 bytes (a longer one is bad). */
uint64_t bufr_get_varint(struct bufr *r);
int64_t bufr_get_zigzag(struct bufr *r);
double bufr_get_double(struct bufr *r);
/**
 * A string as buf_put_str() writes it: its bytes (not terminated), *len
 * set to their number; NULL with bad set when truncated.
 */
const unsigned char *bufr_get_str(struct bufr *r, size_t *len);

#endif
