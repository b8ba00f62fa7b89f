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
#include <string.h>

#include "rbflame/buf.h"
#include "rbflame/output.h"
#include "rbflame/raw.h"
_Static_assert(PROFILE_STATES <= RAW_MAX_STATES,
	       "a SAMPLE record's state is one byte");

/* An optional string: 0 for none, else length + 1 and the bytes. */
static void
put_optstr(struct buf *b, const char *s)
{
	if (!s) {
		buf_put_varint(b, 0);
		return;
	}
	buf_put_varint(b, strlen(s) + 1);
	buf_put(b, s, strlen(s));
}

static void
put_strid(struct buf *b, uint32_t id)
{
	buf_put_varint(b, id == PROFILE_NO_STR ? 0 : (uint64_t)id + 1);
}

/* Appends one record: its type, then the payload as a string. */
static void
record(struct buf *out, uint8_t type, struct buf *payload)
{
	buf_put_u8(out, type);
	buf_put_str(out, payload->p, payload->len);
	buf_reset(payload);
}

static void
encode(const struct profile *p, struct buf *o)
{
	struct buf r = { 0 };
	const struct profile_stats *st = &p->stats;
	uint64_t prev = 0;

	buf_put_zigzag(&r, p->meta.pid);
	put_optstr(&r, p->meta.command);
	put_optstr(&r, p->meta.ruby_version);
	put_optstr(&r, p->meta.mode);
	buf_put_varint(&r, p->meta.start_unix_ns);
	buf_put_varint(&r, (p->meta.weighted ? RAW_META_WEIGHTED : 0) |
			   (p->meta.complete ? RAW_META_COMPLETE : 0));
	record(o, RAW_META, &r);

	buf_put_varint(&r, st->ticks);
	buf_put_varint(&r, st->samples);
	buf_put_varint(&r, st->late_ticks);
	buf_put_varint(&r, st->failed);
	buf_put_varint(&r, st->blocked_reused);
	buf_put_varint(&r, st->stop.total_ns);
	buf_put_varint(&r, st->stop.count);
	buf_put_double(&r, st->duration_s);
	buf_put_double(&r, st->rate_hz);
	/* The number of states first: a reader built with fewer or more
	 * knows which counts it has (version 1 did without). */
	buf_put_varint(&r, PROFILE_STATES);
	for (int s = 0; s < PROFILE_STATES; s++)
		buf_put_varint(&r, st->per_state[s]);
	record(o, RAW_STATS, &r);
	/* Counters added since, when any is not 0 (a recording without
	 * them is the bytes it was before): a reader that knows fewer
	 * skips the rest. */
	if (st->exit_failed) {
		buf_put_varint(&r, RAW_COUNTS_KNOWN);
		buf_put_varint(&r, st->exit_failed);
		record(o, RAW_COUNTS, &r);
	}

	for (uint32_t i = 0; i < intern_count(p->names); i++) {
		buf_put_str(&r, intern_get(p->names, i),
			    intern_len(p->names, i));
		record(o, RAW_STRING, &r);
	}
	for (size_t i = 0; i < p->nframes; i++) {
		const struct profile_frame *f = &p->frames[i];

		buf_put_u8(&r, f->kind);
		buf_put_varint(&r, f->text);
		buf_put_varint(&r, f->name);
		put_strid(&r, f->file);
		put_strid(&r, f->build_id);
		buf_put_zigzag(&r, f->line);
		buf_put_varint(&r, f->addr);
		record(o, RAW_FRAME, &r);
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		buf_put_varint(&r, s->count);
		buf_put_varint(&r, s->depth);
		for (uint32_t d = 0; d < s->depth; d++)
			buf_put_varint(&r, s->frames[d]);
		buf_put_varint(&r, s->weight_ns);
		record(o, RAW_STACK, &r);
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		buf_put_zigzag(&r, p->threads[i].pid);
		buf_put_zigzag(&r, p->threads[i].tid);
		buf_put_varint(&r, p->threads[i].name);
		record(o, RAW_THREAD, &r);
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];

		buf_put_zigzag(&r, (int64_t)(s->time_ns - prev));
		prev = s->time_ns;
		buf_put_zigzag(&r, s->pid);
		buf_put_zigzag(&r, s->tid);
		buf_put_varint(&r, s->stack);
		buf_put_u8(&r, s->state);
		buf_put_varint(&r, s->weight_ns);
		record(o, RAW_SAMPLE, &r);
	}
	record(o, RAW_END, &r);
	buf_free(&r);
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
	buf_free(&body);
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
