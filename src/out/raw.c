// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The raw recording (doc/raw-format.md): everything the other writers
 * read, losslessly, so 'rbflame report' can write any format later and
 * get the same bytes as a direct run. Strings, frames and stacks are
 * written in id order, so reading them back in order rebuilds the same
 * ids. The body is gzip-compressed with a fixed header (mtime 0, no
 * name), so the same profile always gives the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/output.h"
#include "rbflame/raw.h"
#include "rbflame/xmalloc.h"

_Static_assert(PROFILE_STATES <= RAW_MAX_STATES,
	       "a SAMPLE record's state is one byte");

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void
put(struct buf *b, const void *data, size_t n)
{
	b->p = xgrowarray(b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void
put_u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void
put_varint(struct buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	put(b, tmp, n);
}

static void
put_zigzag(struct buf *b, int64_t v)
{
	put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void
put_double(struct buf *b, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	for (int i = 0; i < 8; i++)
		put_u8(b, bits >> (8 * i));
}

/* An optional string: 0 for none, else length + 1 and the bytes. */
static void
put_optstr(struct buf *b, const char *s)
{
	if (!s) {
		put_varint(b, 0);
		return;
	}
	put_varint(b, strlen(s) + 1);
	put(b, s, strlen(s));
}

static void
put_strid(struct buf *b, uint32_t id)
{
	put_varint(b, id == PROFILE_NO_STR ? 0 : (uint64_t)id + 1);
}

/* Appends one record: its type, the payload's length, the payload. */
static void
record(struct buf *out, uint8_t type, struct buf *payload)
{
	put_u8(out, type);
	put_varint(out, payload->len);
	put(out, payload->p, payload->len);
	payload->len = 0;
}

static void
encode(const struct profile *p, struct buf *o)
{
	struct buf r = { 0 };
	const struct profile_stats *st = &p->stats;
	uint64_t prev = 0;

	put_zigzag(&r, p->meta.pid);
	put_optstr(&r, p->meta.command);
	put_optstr(&r, p->meta.ruby_version);
	put_optstr(&r, p->meta.mode);
	put_varint(&r, p->meta.start_unix_ns);
	record(o, RAW_META, &r);

	put_varint(&r, st->ticks);
	put_varint(&r, st->samples);
	put_varint(&r, st->late_ticks);
	put_varint(&r, st->failed);
	put_varint(&r, st->blocked_reused);
	put_varint(&r, st->stop_ns_total);
	put_varint(&r, st->stop_count);
	put_double(&r, st->duration_s);
	put_double(&r, st->rate_hz);
	/* The number of states first: a reader built with fewer or more
	 * knows which counts it has (version 1 did without). */
	put_varint(&r, PROFILE_STATES);
	for (int s = 0; s < PROFILE_STATES; s++)
		put_varint(&r, st->per_state[s]);
	record(o, RAW_STATS, &r);

	for (uint32_t i = 0; i < intern_count(p->names); i++) {
		put_varint(&r, intern_len(p->names, i));
		put(&r, intern_get(p->names, i), intern_len(p->names, i));
		record(o, RAW_STRING, &r);
	}
	for (size_t i = 0; i < p->nframes; i++) {
		const struct profile_frame *f = &p->frames[i];

		put_u8(&r, f->kind);
		put_varint(&r, f->text);
		put_varint(&r, f->name);
		put_strid(&r, f->file);
		put_strid(&r, f->build_id);
		put_zigzag(&r, f->line);
		put_varint(&r, f->addr);
		record(o, RAW_FRAME, &r);
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		put_varint(&r, s->count);
		put_varint(&r, s->depth);
		for (uint32_t d = 0; d < s->depth; d++)
			put_varint(&r, s->frames[d]);
		record(o, RAW_STACK, &r);
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		put_zigzag(&r, p->threads[i].pid);
		put_zigzag(&r, p->threads[i].tid);
		put_varint(&r, p->threads[i].name);
		record(o, RAW_THREAD, &r);
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];

		put_zigzag(&r, (int64_t)(s->time_ns - prev));
		prev = s->time_ns;
		put_zigzag(&r, s->pid);
		put_zigzag(&r, s->tid);
		put_varint(&r, s->stack);
		put_u8(&r, s->state);
		record(o, RAW_SAMPLE, &r);
	}
	record(o, RAW_END, &r);
	free(r.p);
}

static int
raw_write(const struct profile *p, FILE *f)
{
	struct buf body = { 0 };
	int ret;

	encode(p, &body);
	fwrite(RAW_MAGIC, 1, RAW_MAGIC_LEN, f);
	fputc(RAW_VERSION, f);
	fputc(RAW_COMPRESS_GZIP, f);
	ret = output_gzip(f, body.p, body.len);
	free(body.p);
	if (ret == 0 && ferror(f)) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	return ret;
}

const struct output_ops output_raw = {
	.name = "raw",
	.description = "lossless recording for 'rbflame report' (doc/raw-format.md)",
	.write = raw_write,
	.suffixes = (const char *const[]){ ".rbflame", NULL },
	.binary = true,
};
