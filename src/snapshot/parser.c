// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The snapshot backend (snapshot.h): parses an RBFSNAP1 file
 * (doc/snapshot-format.md; hostile input: every length checked, every
 * count bounded) and serves reads from its regions by binary search. A
 * loaded snapshot owns one copy of the file; its regions point into it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/buf.h"
#include "rbflame/mem.h"
#include "rbflame/snapshot.h"
#include "rbflame/snapshot_format.h"
#include "rbflame/xmalloc.h"

struct snap {
	unsigned char *file;	/* the whole file; regions point into it */
	struct snapshot_region *r;
	size_t n;
};

static int
snap_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct snap *s = m->priv;
	unsigned char *out = buf;
	size_t lo = 0, hi = s->n, k;

	if (len == 0)
		return 0;
	if (addr + len < addr)
		goto fault;
	/* Last region starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		goto fault;
	for (k = lo - 1; len > 0; k++) {
		const struct snapshot_region *r;
		uint64_t off, n;

		/* Regions may touch: a read may continue into the next. */
		if (k >= s->n)
			goto fault;
		r = &s->r[k];
		if (addr < r->addr || addr - r->addr >= r->len)
			goto fault;
		off = addr - r->addr;
		n = r->len - off;
		if (n > len)
			n = len;
		memcpy(out, r->data + off, n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
fault:
	errno = EFAULT;
	return -1;
}

static void
snap_destroy(struct mem *m)
{
	struct snap *s = m->priv;

	free(s->r);
	free(s->file);
	free(s);
	free(m);
}

static const struct mem_ops snap_ops = {
	.name = "snapshot",
	.read = snap_read,
	.destroy = snap_destroy,
};

/* Strict numbers: all digits, no sign, no overflow. */
static int
parse_u64(const unsigned char *s, size_t len, uint64_t max, uint64_t *out)
{
	int base = 10;
	uint64_t v = 0;

	if (len > 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (len == 0 || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

static int
set_str(char *dst, size_t cap, const unsigned char *val, uint32_t len)
{
	if (len >= cap)
		return -1;
	memcpy(dst, val, len);
	dst[len] = '\0';
	return 0;
}

static bool
key_is(const unsigned char *key, uint32_t klen, const char *name)
{
	return klen == strlen(name) && !memcmp(key, name, klen);
}

static int
parse_meta(struct bufr *c, struct snapshot_meta *meta)
{
	uint32_t count = bufr_get_u32(c);

	if (c->bad || count > SNAPSHOT_MAX_META_PAIRS)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *key, *val;
		uint32_t klen, vlen;
		uint64_t v = 0;
		int rc = 0;

		klen = bufr_get_u16(c);
		if (klen == 0 || klen > SNAPSHOT_MAX_KEY_LEN)
			return -1;
		key = bufr_get_bytes(c, klen);
		vlen = bufr_get_u32(c);
		if (vlen > SNAPSHOT_MAX_VAL_LEN)
			return -1;
		val = bufr_get_bytes(c, vlen);
		if (!key || !val || memchr(key, 0, klen) ||
		    memchr(val, 0, vlen))
			return -1;
		if (key_is(key, klen, "pid")) {
			rc = parse_u64(val, vlen, INT_MAX, &v);
			meta->pid = v;
		} else if (key_is(key, klen, "captured_at_ns")) {
			rc = parse_u64(val, vlen, UINT64_MAX, &v);
			meta->captured_ns = v;
		} else if (key_is(key, klen, "ruby_layout")) {
			rc = set_str(meta->ruby_layout,
				     sizeof(meta->ruby_layout), val, vlen);
		} else if (key_is(key, klen, "ruby_version")) {
			rc = set_str(meta->ruby_version,
				     sizeof(meta->ruby_version), val, vlen);
		} else if (key_is(key, klen, "ruby_description")) {
			rc = set_str(meta->ruby_description,
				     sizeof(meta->ruby_description), val, vlen);
		} else if (key_is(key, klen, "ruby_vm")) {
			rc = parse_u64(val, vlen, UINT64_MAX, &meta->ruby_vm);
		} else if (key_is(key, klen, "ruby_symbols")) {
			rc = parse_u64(val, vlen, UINT64_MAX,
				       &meta->ruby_symbols);
		} else if (key_is(key, klen, "ruby_vm_from_export")) {
			rc = parse_u64(val, vlen, 1, &v);
			meta->ruby_vm_from_export = (int)v;
		} else if (key_is(key, klen, "ruby_pthread_tid_off")) {
			rc = parse_u64(val, vlen, 4095, &v);
			meta->ruby_pthread_tid_off = (uint32_t)v;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
parse_maps(struct bufr *c, struct snapshot_meta *meta)
{
	size_t len = bufr_left(c);
	const unsigned char *p;

	if (len > SNAPSHOT_MAX_MAPS_LEN)
		return -1;
	p = bufr_get_bytes(c, len);
	if (!p || memchr(p, 0, len))
		return -1;
	meta->maps = xstrndup((const char *)p, len);
	return 0;
}

static int
parse_regs(struct bufr *c, struct snapshot_meta *meta)
{
	size_t rs = sizeof(struct user_regs_struct);
	uint32_t count = bufr_get_u32(c), size = bufr_get_u32(c);

	if (c->bad || count > SNAPSHOT_MAX_REGS || size != rs ||
	    (uint64_t)count * (8 + rs) != bufr_left(c))
		return -1;
	if (count == 0)
		return 0;
	meta->regs = xcalloc(count, sizeof(*meta->regs));
	meta->nregs = count;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t tid = bufr_get_u32(c);
		const unsigned char *p;

		(void)bufr_get_u32(c);	/* reserved */
		p = bufr_get_bytes(c, rs);
		if (!p || tid > INT_MAX)
			return -1;
		meta->regs[i].tid = (pid_t)tid;
		memcpy(&meta->regs[i].regs, p, rs);
	}
	return 0;
}

static int
parse_memory(struct bufr *c, struct snap *s)
{
	uint64_t total = 0, prev_end = 0;
	uint32_t count = bufr_get_u32(c);

	(void)bufr_get_u32(c);	/* reserved */
	if (c->bad || count > SNAPSHOT_MAX_REGIONS || count > bufr_left(c) / 17)
		return -1;
	s->r = count ? xcalloc(count, sizeof(*s->r)) : NULL;
	for (uint32_t i = 0; i < count; i++) {
		struct snapshot_region *r = &s->r[i];

		r->addr = bufr_get_u64(c);
		r->len = bufr_get_u64(c);
		if (c->bad || r->len == 0 || r->len > SNAPSHOT_MAX_BYTES ||
		    r->addr + r->len <= r->addr ||
		    (i > 0 && r->addr < prev_end))
			return -1;
		r->data = bufr_get_bytes(c, r->len);
		if (!r->data)
			return -1;
		total += r->len;
		if (total > SNAPSHOT_MAX_BYTES)
			return -1;
		prev_end = r->addr + r->len;
	}
	s->n = count;
	return bufr_left(c) == 0 ? 0 : -1;
}

static int
parse(struct snap *s, size_t len, struct snapshot_meta *meta)
{
	struct bufr c;
	const unsigned char *magic;
	uint32_t version, nsections;
	unsigned seen = 0;

	bufr_init(&c, s->file, len);
	magic = bufr_get_bytes(&c, SNAPSHOT_MAGIC_LEN);
	if (!magic || memcmp(magic, SNAPSHOT_MAGIC, SNAPSHOT_MAGIC_LEN))
		return -1;
	version = bufr_get_u32(&c);
	(void)bufr_get_u32(&c);	/* flags: unknown bits are ignored */
	nsections = bufr_get_u32(&c);
	if (c.bad || version != SNAPSHOT_FORMAT_VERSION ||
	    nsections > SNAPSHOT_MAX_SECTIONS)
		return -1;
	for (uint32_t i = 0; i < nsections; i++) {
		uint32_t type = bufr_get_u32(&c);
		struct bufr sc;
		int rc;

		(void)bufr_get_u32(&c);	/* reserved */
		bufr_sub(&c, bufr_get_u64(&c), &sc);
		if (c.bad)
			return -1;
		if (type >= SNAPSHOT_SEC_META && type <= SNAPSHOT_SEC_MEMORY) {
			if (seen & (1u << type))
				return -1;
			seen |= 1u << type;
		}
		switch (type) {
		case SNAPSHOT_SEC_META:
			rc = parse_meta(&sc, meta);
			break;
		case SNAPSHOT_SEC_MAPS:
			rc = parse_maps(&sc, meta);
			break;
		case SNAPSHOT_SEC_REGS:
			rc = parse_regs(&sc, meta);
			break;
		case SNAPSHOT_SEC_MEMORY:
			rc = parse_memory(&sc, s);
			break;
		default:
			continue;	/* a newer section: skip it */
		}
		if (rc < 0 || bufr_left(&sc) != 0)
			return -1;
	}
	if (bufr_left(&c) != 0 || !(seen & (1u << SNAPSHOT_SEC_MEMORY)))
		return -1;
	return 0;
}

/* Parses file (taking ownership of it) into a snapshot backend. */
static struct mem *
snap_create(unsigned char *file, size_t len, struct snapshot_meta *meta)
{
	struct snapshot_meta tmp;
	struct snap *s = xcalloc(1, sizeof(*s));
	struct mem *m;

	memset(&tmp, 0, sizeof(tmp));
	s->file = file;
	if (parse(s, len, &tmp) < 0) {
		snapshot_meta_free(&tmp);
		free(s->r);
		free(s->file);
		free(s);
		errno = EINVAL;
		return NULL;
	}
	if (meta)
		*meta = tmp;
	else
		snapshot_meta_free(&tmp);
	m = xcalloc(1, sizeof(*m));
	m->ops = &snap_ops;
	m->priv = s;
	return m;
}

struct mem *
snapshot_from_buffer(const void *buf, size_t len, struct snapshot_meta *meta)
{
	unsigned char *copy;

	if (!buf || len > SNAPSHOT_MAX_FILE_LEN) {
		errno = EINVAL;
		return NULL;
	}
	copy = xmalloc(len ? len : 1);
	memcpy(copy, buf, len);
	return snap_create(copy, len, meta);
}

struct mem *
snapshot_load(const char *path, struct snapshot_meta *meta)
{
	unsigned char *file;
	struct stat st;
	size_t got = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		goto out_close;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto out_close;
	}
	if (st.st_size > SNAPSHOT_MAX_FILE_LEN) {
		errno = EFBIG;
		goto out_close;
	}
	file = xmalloc(st.st_size ? st.st_size : 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, file + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EINVAL;	/* shrank under us */
			free(file);
			goto out_close;
		}
		got += n;
	}
	close(fd);
	return snap_create(file, got, meta);

out_close:
	err = errno;
	close(fd);
	errno = err;
	return NULL;
}

void
snapshot_meta_free(struct snapshot_meta *meta)
{
	if (!meta)
		return;
	free(meta->maps);
	free(meta->regs);
	memset(meta, 0, sizeof(*meta));
}
