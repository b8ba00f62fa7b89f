// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The binary formats' bytes (see buf.h): the growing buffer their
 * writers append to and the bounded cursor their parsers read with. The
 * encodings (little-endian, LEB128 varints, zigzag) are written and read
 * here only, so the raw recording and the snapshot agree with themselves
 * by construction. A cursor's error flag is sticky: once a read failed,
 * every later read fails too and returns 0.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rbflame/buf.h"
#include "rbflame/xmalloc.h"

#define VARINT_MAX 10	/* bytes of a 64-bit LEB128 */

void
buf_put(struct buf *b, const void *data, size_t len)
{
	if (len == 0)
		return;
	b->p = xgrowarray(b->p, &b->cap, b->len + len, 1);
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* n bytes of v, low first. */
static void
put_le(struct buf *b, uint64_t v, int n)
{
	unsigned char le[8];

	for (int i = 0; i < n; i++)
		le[i] = v >> (8 * i);
	buf_put(b, le, n);
}

void
buf_put_u8(struct buf *b, uint8_t v)
{
	buf_put(b, &v, 1);
}

void
buf_put_u16(struct buf *b, uint16_t v)
{
	put_le(b, v, 2);
}

void
buf_put_u32(struct buf *b, uint32_t v)
{
	put_le(b, v, 4);
}

void
buf_put_u64(struct buf *b, uint64_t v)
{
	put_le(b, v, 8);
}

void
buf_put_varint(struct buf *b, uint64_t v)
{
	unsigned char tmp[VARINT_MAX];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	buf_put(b, tmp, n);
}

void
buf_put_zigzag(struct buf *b, int64_t v)
{
	buf_put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void
buf_put_double(struct buf *b, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	put_le(b, bits, 8);
}

void
buf_put_str(struct buf *b, const void *s, size_t len)
{
	buf_put_varint(b, len);
	buf_put(b, s, len);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
}

void
buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- the cursor ------------------------------------------------------- */

void
bufr_init(struct bufr *r, const void *p, size_t len)
{
	static const unsigned char none[1];

	r->p = p ? p : none;
	r->len = p ? len : 0;
	r->pos = 0;
	r->bad = false;
}

size_t
bufr_left(const struct bufr *r)
{
	return r->len - r->pos;
}

const unsigned char *
bufr_get_bytes(struct bufr *r, uint64_t n)
{
	const unsigned char *at = r->p + r->pos;

	if (r->bad || n > r->len - r->pos) {
		r->bad = true;
		return NULL;
	}
	r->pos += n;
	return at;
}

void
bufr_sub(struct bufr *r, uint64_t n, struct bufr *sub)
{
	const unsigned char *p = bufr_get_bytes(r, n);

	bufr_init(sub, p, p ? n : 0);
	sub->bad = !p;
}

/* n bytes, low first. */
static uint64_t
get_le(struct bufr *r, int n)
{
	const unsigned char *p = bufr_get_bytes(r, n);
	uint64_t v = 0;

	if (!p)
		return 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint8_t
bufr_get_u8(struct bufr *r)
{
	return get_le(r, 1);
}

uint16_t
bufr_get_u16(struct bufr *r)
{
	return get_le(r, 2);
}

uint32_t
bufr_get_u32(struct bufr *r)
{
	return get_le(r, 4);
}

uint64_t
bufr_get_u64(struct bufr *r)
{
	return get_le(r, 8);
}

uint64_t
bufr_get_varint(struct bufr *r)
{
	uint64_t v = 0;

	if (r->bad)
		return 0;
	for (size_t i = 0; i < VARINT_MAX && r->pos + i < r->len; i++) {
		unsigned char b = r->p[r->pos + i];

		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			r->pos += i + 1;
			return v;
		}
	}
	r->bad = true;	/* truncated, or longer than 64 bits need */
	return 0;
}

int64_t
bufr_get_zigzag(struct bufr *r)
{
	uint64_t v = bufr_get_varint(r);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

double
bufr_get_double(struct bufr *r)
{
	uint64_t bits = get_le(r, 8);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

const unsigned char *
bufr_get_str(struct bufr *r, size_t *len)
{
	uint64_t n = bufr_get_varint(r);
	const unsigned char *s = bufr_get_bytes(r, n);

	*len = s ? n : 0;
	return s;
}
