// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Loading profiles (see load.h): the sniffer, the collapsed-stack parser
 * and the raw recording's reader. Inputs are untrusted: every length and
 * index is checked against what the buffer holds before it is used, and
 * each error names the line (collapsed) or the byte offset (raw).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rbflame/buf.h"
#include "rbflame/load.h"
#include "rbflame/raw.h"
#include "rbflame/xmalloc.h"

static int
fail(char *err, size_t errcap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t errcap, const char *fmt, ...)
{
	va_list ap;

	if (errcap) {
		va_start(ap, fmt);
		vsnprintf(err, errcap, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- collapsed stacks ------------------------------------------------ */

static bool
is_space(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Makes d, a frame of a stack read back, a C method when it is one. A C
 * method carries the file and line of the nearest Ruby frame below it
 * (the reader's rule), so a frame with exactly those, under another name,
 * is one; a block or "<main>" on the line that called it is Ruby, and so
 * is a method calling itself. last_id is that nearest Ruby frame (an id
 * past the end when none).
 */
static void
c_method(const struct profile *p, struct profile_frame_desc *d,
	 uint32_t last_id)
{
	const struct profile_frame *last = profile_frame_get(p, last_id);

	if (d->kind != PROFILE_FRAME_RUBY || !last || last->line != d->line ||
	    strcmp(profile_str_get(p, last->file), d->file) ||
	    !strcmp(profile_str_get(p, last->name), d->name) ||
	    !strncmp(d->name, "block ", 6) || d->name[0] == '<')
		return;
	d->kind = PROFILE_FRAME_CFUNC;
}

/* One line (no newline, no CR): "frame;frame;... COUNT". */
static int
collapsed_line(struct profile *p, const char *s, size_t len, size_t lineno,
	       uint32_t *frames, char *name, char *scratch, char *err,
	       size_t errcap)
{
	size_t end = len, c, depth = 0, start;
	uint64_t count = 0;
	struct profile_frame_desc d;
	uint32_t last;

	while (end > 0 && is_space(s[end - 1]))
		end--;
	if (end == 0)
		return 0;	/* blank line */
	if (memchr(s, '\0', len))
		return fail(err, errcap, "line %zu: a NUL byte (not a text file?)",
			    lineno);
	c = end;
	while (c > 0 && !is_space(s[c - 1]))
		c--;
	if (c == end || c == 0)
		return fail(err, errcap,
			    "line %zu: expected 'frame;frame;... COUNT'",
			    lineno);
	for (size_t i = c; i < end; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail(err, errcap,
				    "line %zu: count '%.*s' is not a whole number",
				    lineno, (int)(end - c > 40 ? 40 : end - c),
				    s + c);
		if (count > (UINT64_MAX / 2 - 9) / 10)
			return fail(err, errcap, "line %zu: count too large",
				    lineno);
		count = count * 10 + (uint64_t)(s[i] - '0');
	}
	end = c;
	while (end > 0 && is_space(s[end - 1]))
		end--;
	if (end == 0)
		return fail(err, errcap, "line %zu: no stack before the count",
			    lineno);
	start = 0;
	last = UINT32_MAX;
	for (size_t i = 0; i <= end; i++) {
		if (i < end && s[i] != ';')
			continue;
		if (depth == PROFILE_MAX_DEPTH)
			return fail(err, errcap,
				    "line %zu: more than %d frames", lineno,
				    PROFILE_MAX_DEPTH);
		memcpy(name, s + start, i - start);
		name[i - start] = '\0';
		profile_frame_parse(name, &d, scratch);
		c_method(p, &d, last);
		frames[depth] = profile_frame_make(p, &d);
		if (d.kind == PROFILE_FRAME_RUBY)
			last = frames[depth];
		depth++;
		start = i + 1;
	}
	if (profile_total(p) > LOAD_MAX_TOTAL - count)
		return fail(err, errcap, "line %zu: total count too large",
			    lineno);
	profile_add_count(p, frames, depth, count);
	return 0;
}

int
load_collapsed(struct profile *p, const char *buf, size_t len, char *err,
	       size_t errcap)
{
	uint32_t *frames = xmalloc(PROFILE_MAX_DEPTH * sizeof(*frames));
	char *name = NULL, *scratch = NULL;
	size_t pos = 0, lineno = 0, maxline = 0;
	int ret = LOAD_COLLAPSED;

	/* Frame buffers as long as the longest line. */
	for (size_t i = 0, st = 0; i <= len; i++) {
		if (i == len || buf[i] == '\n') {
			if (i - st > maxline)
				maxline = i - st;
			st = i + 1;
		}
	}
	name = xmalloc(maxline + 1);
	scratch = xmalloc(maxline + 2);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		size_t tl = l;

		lineno++;
		if (tl > 0 && buf[pos + tl - 1] == '\r')
			tl--;	/* CRLF */
		if (collapsed_line(p, buf + pos, tl, lineno, frames, name,
				   scratch, err, errcap) < 0) {
			ret = -1;
			break;
		}
		pos += l + 1;
	}
	free(scratch);
	free(name);
	free(frames);
	return ret;
}

/* ---- raw recordings -------------------------------------------------- */

/* A length-prefixed string; NULL for the "absent" form (length 0 means
 * absent where optional, see the spec), as a fresh copy. */
static char *
rd_optstr(struct bufr *r)
{
	uint64_t n = bufr_get_varint(r);
	const unsigned char *s;

	if (r->bad || n == 0)
		return NULL;
	s = bufr_get_bytes(r, n - 1);
	if (!s || memchr(s, '\0', n - 1)) {
		r->bad = true;
		return NULL;
	}
	return xstrndup((const char *)s, n - 1);
}

/* An optional string id: 0 = none, else id + 1. */
static bool
rd_strid(struct bufr *r, uint32_t nstr, uint32_t *out, bool optional)
{
	uint64_t v = bufr_get_varint(r);

	if (optional) {
		if (v == 0) {
			*out = PROFILE_NO_STR;
			return !r->bad;
		}
		v--;
	}
	if (r->bad || v >= nstr)
		return false;
	*out = v;
	return true;
}

/* Inflates a gzip member into a fresh buffer, at most LOAD_MAX_BODY. */
static unsigned char *
gunzip(const unsigned char *in, size_t len, size_t *outlen, char *err,
       size_t errcap)
{
	z_stream z;
	size_t cap = len * 4 + 4096, n = 0;
	unsigned char *out;
	int zr;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		fail(err, errcap, "cannot start decompression");
		return NULL;
	}
	if (cap > LOAD_MAX_BODY)
		cap = LOAD_MAX_BODY;
	out = xmalloc(cap);
	z.next_in = (unsigned char *)in;
	z.avail_in = len > UINT32_MAX ? UINT32_MAX : len;
	for (;;) {
		if (n == cap) {
			if (cap >= LOAD_MAX_BODY) {
				fail(err, errcap,
				     "decompresses to more than %llu MiB: not a recording rbflame wrote (a gzip bomb?)",
				     (unsigned long long)LOAD_MAX_BODY >> 20);
				goto out_fail;
			}
			cap = cap * 2 > LOAD_MAX_BODY ? LOAD_MAX_BODY
						      : cap * 2;
			out = xrealloc(out, cap);
		}
		z.next_out = out + n;
		z.avail_out = cap - n > UINT32_MAX ? UINT32_MAX : cap - n;
		zr = inflate(&z, Z_NO_FLUSH);
		n = z.next_out - out;
		if (zr == Z_STREAM_END)
			break;
		if (zr == Z_BUF_ERROR && z.avail_out > 0) {
			fail(err, errcap, "compressed data truncated");
			goto out_fail;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			fail(err, errcap, "compressed data corrupt: %s",
			     z.msg ? z.msg : "inflate failed");
			goto out_fail;
		}
	}
	inflateEnd(&z);
	*outlen = n;
	return out;
out_fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

/*
 * Reads a STATS record's per-state counts: nstates of them (version 1
 * wrote RAW_V1_STATES without their number). States this build does not
 * know, from a later one, count as unknown. False when malformed.
 */
static bool
rd_states(struct bufr *r, unsigned version, struct profile_stats *stats,
	  unsigned *nstates)
{
	uint64_t n = version == 1 ? RAW_V1_STATES : bufr_get_varint(r);

	if (r->bad || n > RAW_MAX_STATES)
		return false;
	*nstates = (unsigned)n;
	for (unsigned s = 0; s < n; s++) {
		uint64_t v = bufr_get_varint(r);

		stats->per_state[s < PROFILE_STATES ? s
						    : PROFILE_STATE_UNKNOWN] += v;
	}
	return !r->bad;
}

/* Reads the records of a decompressed body of a recording of version. */
static int
raw_records(struct profile *p, unsigned version, const unsigned char *b,
	    size_t len, char *err, size_t errcap)
{
	struct bufr body;
	uint32_t nstr = 0;
	uint64_t *counts = NULL;	/* each stack's count in the file */
	uint64_t *weights = NULL;	/* ... and its weight */
	size_t counts_cap = 0, weights_cap = 0, nstacks = 0;
	uint64_t prev_time = 0, total = 0, exit_failed = 0;
	struct profile_stats stats;
	bool have_stats = false, ended = false;
	/* The states a SAMPLE may name: STATS says, or (without one) ours. */
	unsigned nstates = version == 1 ? RAW_V1_STATES : PROFILE_STATES;
	uint32_t *frames = xmalloc(PROFILE_MAX_DEPTH * sizeof(*frames));
	int ret = -1;

	memset(&stats, 0, sizeof(stats));
	bufr_init(&body, b, len);
	while (bufr_left(&body) > 0 && !ended) {
		size_t at = body.pos;
		unsigned type = bufr_get_u8(&body);
		struct bufr r;

		bufr_sub(&body, bufr_get_varint(&body), &r);
		if (body.bad) {
			fail(err, errcap, "offset %zu: truncated record", at);
			goto out;
		}
		switch (type) {
		case RAW_END:
			ended = true;
			break;
		case RAW_META:
			p->meta.pid = (pid_t)bufr_get_zigzag(&r);
			free(p->meta.command);
			free(p->meta.ruby_version);
			free(p->meta.mode);
			p->meta.command = rd_optstr(&r);
			p->meta.ruby_version = rd_optstr(&r);
			p->meta.mode = rd_optstr(&r);
			p->meta.start_unix_ns = bufr_get_varint(&r);
			if (version >= RAW_V_WEIGHTS) {
				uint64_t fl = bufr_get_varint(&r);

				p->meta.weighted = fl & RAW_META_WEIGHTED;
				p->meta.complete = fl & RAW_META_COMPLETE;
			}
			break;
		case RAW_STATS:
			stats.ticks = bufr_get_varint(&r);
			stats.samples = bufr_get_varint(&r);
			stats.late_ticks = bufr_get_varint(&r);
			stats.failed = bufr_get_varint(&r);
			stats.blocked_reused = bufr_get_varint(&r);
			stats.stop.total_ns = bufr_get_varint(&r);
			stats.stop.count = bufr_get_varint(&r);
			stats.duration_s = bufr_get_double(&r);
			stats.rate_hz = bufr_get_double(&r);
			memset(stats.per_state, 0, sizeof(stats.per_state));
			if (!rd_states(&r, version, &stats, &nstates)) {
				fail(err, errcap, "offset %zu: bad stats", at);
				goto out;
			}
			have_stats = true;
			break;
		case RAW_COUNTS: {
			uint64_t n = bufr_get_varint(&r);

			if (r.bad || n > RAW_MAX_COUNTS) {
				fail(err, errcap, "offset %zu: bad counts", at);
				goto out;
			}
			for (uint64_t k = 0; k < n; k++) {
				uint64_t v = bufr_get_varint(&r);

				if (k == RAW_COUNT_EXIT_FAILED)
					exit_failed = v;
			}
			break;
		}
		case RAW_STRING: {
			size_t n;
			const unsigned char *str = bufr_get_str(&r, &n);

			if (!str || memchr(str, '\0', n)) {
				fail(err, errcap, "offset %zu: bad string", at);
				goto out;
			}
			if (intern_id(p->names, (const char *)str, n) != nstr) {
				fail(err, errcap,
				     "offset %zu: string %u repeats an earlier one",
				     at, nstr);
				goto out;
			}
			nstr++;
			break;
		}
		case RAW_FRAME: {
			struct profile_frame f;
			struct profile_frame_desc d;
			size_t before = p->nframes;

			memset(&f, 0, sizeof(f));
			f.kind = bufr_get_u8(&r);
			if (!rd_strid(&r, nstr, &f.text, false) ||
			    !rd_strid(&r, nstr, &f.name, false) ||
			    !rd_strid(&r, nstr, &f.file, true) ||
			    !rd_strid(&r, nstr, &f.build_id, true) ||
			    f.kind >= PROFILE_FRAME_KINDS) {
				fail(err, errcap, "offset %zu: bad frame", at);
				goto out;
			}
			f.line = (int32_t)bufr_get_zigzag(&r);
			f.addr = bufr_get_varint(&r);
			d = (struct profile_frame_desc){
				.kind = f.kind,
				.name = profile_str_get(p, f.name),
				.line = f.line,
				.addr = f.addr,
				.text = profile_str_get(p, f.text),
			};
			if (f.file != PROFILE_NO_STR)
				d.file = profile_str_get(p, f.file);
			if (f.build_id != PROFILE_NO_STR)
				d.build_id = profile_str_get(p, f.build_id);
			if (r.bad || profile_frame_make(p, &d) != before ||
			    p->nframes != before + 1) {
				fail(err, errcap,
				     "offset %zu: bad or repeated frame", at);
				goto out;
			}
			break;
		}
		case RAW_STACK: {
			uint64_t count = bufr_get_varint(&r);
			uint64_t depth = bufr_get_varint(&r);

			if (r.bad || depth > PROFILE_MAX_DEPTH) {
				fail(err, errcap, "offset %zu: bad stack", at);
				goto out;
			}
			for (uint64_t d = 0; d < depth; d++) {
				uint64_t f = bufr_get_varint(&r);

				if (r.bad || f >= p->nframes) {
					fail(err, errcap,
					     "offset %zu: stack refers to an unknown frame",
					     at);
					goto out;
				}
				frames[d] = f;
			}
			weights = xgrowarray(weights, &weights_cap,
					     nstacks + 1, sizeof(*weights));
			weights[nstacks] = version >= RAW_V_WEIGHTS
						   ? bufr_get_varint(&r)
						   : 0;
			if (r.bad) {
				fail(err, errcap, "offset %zu: bad stack", at);
				goto out;
			}
			if (profile_add_count(p, frames, depth, 0) != nstacks) {
				fail(err, errcap,
				     "offset %zu: stack %zu repeats an earlier one",
				     at, nstacks);
				goto out;
			}
			counts = xgrowarray(counts, &counts_cap, nstacks + 1,
					    sizeof(*counts));
			counts[nstacks++] = count;
			break;
		}
		case RAW_THREAD: {
			pid_t pid = (pid_t)bufr_get_zigzag(&r);
			pid_t tid = (pid_t)bufr_get_zigzag(&r);
			uint32_t name;

			if (!rd_strid(&r, nstr, &name, false)) {
				fail(err, errcap, "offset %zu: bad thread", at);
				goto out;
			}
			profile_thread_name(p, pid, tid,
					    profile_str_get(p, name));
			break;
		}
		case RAW_SAMPLE: {
			int64_t dt = bufr_get_zigzag(&r);
			pid_t pid = (pid_t)bufr_get_zigzag(&r);
			pid_t tid = (pid_t)bufr_get_zigzag(&r);
			uint64_t stack = bufr_get_varint(&r);
			uint8_t state = bufr_get_u8(&r);
			uint64_t w = version >= RAW_V_WEIGHTS
					     ? bufr_get_varint(&r)
					     : 0;
			const struct profile_stack *st;

			if (r.bad || stack >= nstacks || state >= nstates) {
				fail(err, errcap, "offset %zu: bad sample", at);
				goto out;
			}
			if (state >= PROFILE_STATES)
				state = PROFILE_STATE_UNKNOWN;
			prev_time += (uint64_t)dt;
			st = &p->stacks[stack];
			if (st->count >= counts[stack]) {
				fail(err, errcap,
				     "offset %zu: more samples of stack %llu than its count",
				     at, (unsigned long long)stack);
				goto out;
			}
			/* Past the cap a sample is only its stack's count
			 * (set below), so every aggregate view stays whole. */
			if (p->nsamples >= LOAD_MAX_SAMPLES) {
				p->stacks[stack].count++;
				p->samples_dropped++;
				break;
			}
			profile_add_weighted(p, prev_time, pid, tid, state, w,
					     st->frames, st->depth);
			break;
		}
		default:
			/* A record type from a later minor revision: skip. */
			break;
		}
		if (r.bad) {
			fail(err, errcap, "offset %zu: record type %u truncated",
			     at, type);
			goto out;
		}
	}
	if (!ended) {
		fail(err, errcap, "the recording ends early (no end record)");
		goto out;
	}
	for (size_t s = 0; s < nstacks; s++) {
		if (counts[s] > LOAD_MAX_TOTAL - total) {
			fail(err, errcap,
			     "stack counts add up to more than %llu: a damaged recording",
			     (unsigned long long)LOAD_MAX_TOTAL);
			goto out;
		}
		total += counts[s];
		p->stacks[s].count = counts[s];
		p->stacks[s].weight_ns = weights[s];
	}
	if (have_stats) {
		/* A recording keeps the stops' total and count, not each
		 * one: no percentiles. */
		profile_times_fini(&p->stats.stop);
		profile_times_fini(&p->stats.held);
		profile_times_fini(&p->stats.latency);
		p->stats = stats;
	}
	p->stats.exit_failed = exit_failed;
	ret = LOAD_RAW;
out:
	free(counts);
	free(weights);
	free(frames);
	return ret;
}

int
load_raw(struct profile *p, const void *buf, size_t len, char *err,
	 size_t errcap)
{
	const unsigned char *b = buf;
	unsigned char *body = NULL;
	unsigned version;
	size_t blen;
	int ret;

	if (len < RAW_HEADER_LEN || memcmp(b, RAW_MAGIC, RAW_MAGIC_LEN))
		return fail(err, errcap, "not an rbflame recording");
	version = b[RAW_MAGIC_LEN];
	if (version < RAW_VERSION_MIN || version > RAW_VERSION)
		return fail(err, errcap,
			    "recording format version %u; this rbflame reads versions %u to %u",
			    version, RAW_VERSION_MIN, RAW_VERSION);
	switch (b[RAW_MAGIC_LEN + 1]) {
	case RAW_COMPRESS_NONE:
		return raw_records(p, version, b + RAW_HEADER_LEN,
				   len - RAW_HEADER_LEN, err, errcap);
	case RAW_COMPRESS_GZIP:
		body = gunzip(b + RAW_HEADER_LEN, len - RAW_HEADER_LEN, &blen,
			      err, errcap);
		if (!body)
			return -1;
		ret = raw_records(p, version, body, blen, err, errcap);
		free(body);
		return ret;
	default:
		return fail(err, errcap, "unknown compression %u",
			    b[RAW_MAGIC_LEN + 1]);
	}
}

/* ---- sniffing -------------------------------------------------------- */

int
profile_load_buffer(struct profile *p, const void *buf, size_t len,
		    char *err, size_t errcap)
{
	const unsigned char *b = buf;
	size_t i = 0;

	if (len >= RAW_MAGIC_LEN && !memcmp(b, RAW_MAGIC, RAW_MAGIC_LEN))
		return load_raw(p, buf, len, err, errcap);
	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return fail(err, errcap,
			    "gzip-compressed data: give a raw recording (.rbflame) or collapsed text");
	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' ||
			   b[i] == '\n'))
		i++;
	if (i < len && (b[i] == '{' || b[i] == '['))
		return fail(err, errcap,
			    "a JSON profile: only raw recordings (.rbflame) and collapsed stacks can be read");
	return load_collapsed(p, buf, len, err, errcap);
}

int
profile_load_file(struct profile *p, const char *path, char *err,
		  size_t errcap)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rbe") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char msg[512];
	int ret, saved;

	if (!f)
		return fail(err, errcap, "cannot open '%s': %s", path,
			    strerror(errno));
	for (;;) {
		size_t n;

		if (len == cap) {
			if (cap >= LOAD_MAX_BYTES) {
				if (f != stdin)
					fclose(f);
				free(buf);
				errno = EFBIG;
				return fail(err, errcap,
					    "'%s' is larger than %llu bytes",
					    path,
					    (unsigned long long)LOAD_MAX_BYTES);
			}
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	saved = ferror(f) ? errno : 0;
	if (f != stdin)
		fclose(f);
	if (saved) {
		free(buf);
		errno = saved;
		return fail(err, errcap, "cannot read '%s': %s", path,
			    strerror(saved));
	}
	ret = profile_load_buffer(p, buf, len, msg, sizeof(msg));
	free(buf);
	if (ret < 0) {
		errno = EINVAL;
		return fail(err, errcap, "%s: %s", path, msg);
	}
	return ret;
}
