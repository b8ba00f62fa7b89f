// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Memory snapshots (doc/snapshot-format.md): the recording backend, which
 * keeps every byte it forwards in a sorted array of disjoint regions; the
 * writer of RBFSNAP1 files; and the snapshot backend, which parses a file
 * (hostile input: every length checked, every count bounded) and serves
 * reads from its regions by binary search. The recorder owns its regions,
 * never its inner backend; a loaded snapshot owns one copy of the file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/buf.h"
#include "rbflame/mem.h"
#include "rbflame/snapshot.h"
#include "rbflame/xmalloc.h"

#define MAGIC "RBFSNAP1"
#define MAGIC_LEN 8
#define FORMAT_VERSION 1

enum section_type {
	SEC_META = 1,
	SEC_MAPS = 2,
	SEC_REGS = 3,
	SEC_MEMORY = 4,
};

/* Bounds of the format; see doc/snapshot-format.md. */
#define MAX_SECTIONS 64
#define MAX_META_PAIRS 256
#define MAX_KEY_LEN 64
#define MAX_VAL_LEN 4096
#define MAX_MAPS_LEN (16u << 20)
#define MAX_REGS 65536
#define MAX_REGIONS (1u << 20)
/* Header, meta, maps, regs and memory at their bounds stay below this. */
#define MAX_FILE_LEN (128u << 20)

#define GRANULE 64		/* divides the page size: never crosses one */

/* ---- the recorder ---------------------------------------------------- */

struct region {
	uint64_t addr;
	size_t len;
	size_t cap;
	unsigned char *data;
};

struct recorder {
	struct mem *inner;
	struct region *r;	/* sorted by addr, disjoint, never touching */
	size_t n, cap;
	uint64_t bytes;
	uint64_t dropped;
	unsigned char *tmp;	/* scratch for widened reads */
	size_t tmpcap;
};

static const struct mem_ops recorder_ops;

static uint64_t
region_end(const struct region *r)
{
	return r->addr + r->len;
}

/* First region ending at or after addr (so touching counts), or n. */
static size_t
first_reaching(const struct recorder *rec, uint64_t addr)
{
	size_t lo = 0, hi = rec->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (region_end(&rec->r[mid]) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keeps [addr, addr + len) with the bytes just read there. */
static void
keep(struct recorder *rec, uint64_t addr, const void *data, size_t len)
{
	uint64_t end = addr + len;
	size_t i = first_reaching(rec, addr), j = i;
	uint64_t ns, ne, old = 0, grow;
	struct region *first;
	unsigned char *buf;

	/* Regions i..j-1 overlap or touch [addr, end]. */
	while (j < rec->n && rec->r[j].addr <= end)
		old += rec->r[j++].len;
	if (i == j) {
		if (rec->bytes + len > SNAPSHOT_MAX_BYTES) {
			rec->dropped++;
			return;
		}
		rec->r = xgrowarray(rec->r, &rec->cap, rec->n + 1,
				    sizeof(*rec->r));
		memmove(&rec->r[i + 1], &rec->r[i],
			(rec->n - i) * sizeof(*rec->r));
		rec->n++;
		rec->r[i].addr = addr;
		rec->r[i].len = len;
		rec->r[i].cap = len;
		rec->r[i].data = xmalloc(len);
		memcpy(rec->r[i].data, data, len);
		rec->bytes += len;
		return;
	}
	first = &rec->r[i];
	ns = addr < first->addr ? addr : first->addr;
	ne = region_end(&rec->r[j - 1]);
	if (end > ne)
		ne = end;
	grow = (ne - ns) - old;
	if (grow > 0 && rec->bytes + grow > SNAPSHOT_MAX_BYTES) {
		rec->dropped++;
		return;
	}
	if (ns == first->addr) {
		/* Growing in place is the common case (a walk upwards):
		 * double the buffer so a long walk stays linear. */
		if (first->cap < ne - ns) {
			size_t cap = first->cap * 2;

			if (cap < ne - ns)
				cap = ne - ns;
			first->data = xrealloc(first->data, cap);
			first->cap = cap;
		}
		buf = first->data;
	} else {
		buf = xmalloc(ne - ns);
		memcpy(buf + (first->addr - ns), first->data, first->len);
		free(first->data);
		first->data = buf;
		first->cap = ne - ns;
	}
	for (size_t k = i + 1; k < j; k++) {
		memcpy(buf + (rec->r[k].addr - ns), rec->r[k].data,
		       rec->r[k].len);
		free(rec->r[k].data);
	}
	memcpy(buf + (addr - ns), data, len);
	first->addr = ns;
	first->len = ne - ns;
	memmove(&rec->r[i + 1], &rec->r[j], (rec->n - j) * sizeof(*rec->r));
	rec->n -= j - i - 1;
	rec->bytes += grow;
}

static int
recorder_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct recorder *rec = m->priv;
	uint64_t a0, a1;

	if (len == 0)
		return mem_read(rec->inner, addr, buf, len);
	if (addr + len < addr || len > SNAPSHOT_MAX_BYTES) {
		/* Wraps, or too large to keep: forward only. */
		if (mem_read(rec->inner, addr, buf, len) < 0)
			return -1;
		rec->dropped++;
		return 0;
	}
	/* Widen to aligned granules, so that a reader reading one more
	 * field next to this one still finds it in the snapshot. */
	a0 = addr & ~(uint64_t)(GRANULE - 1);
	a1 = (addr + len + GRANULE - 1) & ~(uint64_t)(GRANULE - 1);
	if (a1 > a0 && (a0 != addr || a1 != addr + len)) {
		size_t wl = a1 - a0;

		if (rec->tmpcap < wl) {
			rec->tmp = xrealloc(rec->tmp, wl);
			rec->tmpcap = wl;
		}
		if (mem_read(rec->inner, a0, rec->tmp, wl) == 0) {
			memcpy(buf, rec->tmp + (addr - a0), len);
			keep(rec, a0, rec->tmp, wl);
			return 0;
		}
	}
	if (mem_read(rec->inner, addr, buf, len) < 0)
		return -1;
	keep(rec, addr, buf, len);
	return 0;
}

static void
recorder_flush(struct mem *m)
{
	struct recorder *rec = m->priv;

	mem_flush(rec->inner);
}

static void
recorder_destroy(struct mem *m)
{
	struct recorder *rec = m->priv;

	for (size_t i = 0; i < rec->n; i++)
		free(rec->r[i].data);
	free(rec->r);
	free(rec->tmp);
	free(rec);
	free(m);
}

static const struct mem_ops recorder_ops = {
	.name = "recorder",
	.read = recorder_read,
	.flush = recorder_flush,
	.destroy = recorder_destroy,
};

struct mem *
snapshot_recorder_create(struct mem *inner)
{
	struct mem *m = xcalloc(1, sizeof(*m));
	struct recorder *rec = xcalloc(1, sizeof(*rec));

	rec->inner = inner;
	m->ops = &recorder_ops;
	m->priv = rec;
	return m;
}

int
snapshot_recorder_stats(struct mem *m, struct snapshot_recorder_stats *out)
{
	struct recorder *rec;

	if (!m || m->ops != &recorder_ops) {
		errno = EINVAL;
		return -1;
	}
	rec = m->priv;
	out->regions = rec->n;
	out->bytes = rec->bytes;
	out->dropped = rec->dropped;
	return 0;
}

/* ---- the writer ------------------------------------------------------ */

static void
put_section(struct buf *b, uint32_t type, uint64_t len)
{
	buf_put_u32(b, type);
	buf_put_u32(b, 0);
	buf_put_u64(b, len);
}

static void
meta_pair(struct buf *b, uint32_t *count, const char *key, const char *val)
{
	size_t vl = strlen(val);

	if (vl > MAX_VAL_LEN)
		vl = MAX_VAL_LEN;
	buf_put_u16(b, strlen(key));
	buf_put(b, key, strlen(key));
	buf_put_u32(b, vl);
	buf_put(b, val, vl);
	(*count)++;
}

static void
meta_section(struct buf *out, const struct snapshot_meta *meta)
{
	struct buf b = { 0 };
	uint32_t count = 0;
	char num[32];

	snprintf(num, sizeof(num), "%d", (int)meta->pid);
	meta_pair(&b, &count, "pid", num);
#if defined(__x86_64__)
	meta_pair(&b, &count, "arch", "x86_64");
#endif
	snprintf(num, sizeof(num), "%" PRIu64, meta->captured_ns);
	meta_pair(&b, &count, "captured_at_ns", num);
	meta_pair(&b, &count, "producer", "rbflame " PACKAGE_VERSION);
	if (meta->ruby_layout[0])
		meta_pair(&b, &count, "ruby_layout", meta->ruby_layout);
	if (meta->ruby_version[0])
		meta_pair(&b, &count, "ruby_version", meta->ruby_version);
	if (meta->ruby_description[0])
		meta_pair(&b, &count, "ruby_description",
			  meta->ruby_description);
	snprintf(num, sizeof(num), "0x%" PRIx64, meta->ruby_vm);
	meta_pair(&b, &count, "ruby_vm", num);
	snprintf(num, sizeof(num), "0x%" PRIx64, meta->ruby_symbols);
	meta_pair(&b, &count, "ruby_symbols", num);
	meta_pair(&b, &count, "ruby_vm_from_export",
		  meta->ruby_vm_from_export ? "1" : "0");
	snprintf(num, sizeof(num), "%u", meta->ruby_pthread_tid_off);
	meta_pair(&b, &count, "ruby_pthread_tid_off", num);

	put_section(out, SEC_META, 4 + b.len);
	buf_put_u32(out, count);
	buf_put(out, b.p, b.len);
	buf_free(&b);
}

static void
regs_section(struct buf *out, const struct snapshot_meta *meta)
{
	size_t rs = sizeof(struct user_regs_struct);

	put_section(out, SEC_REGS, 8 + meta->nregs * (8 + rs));
	buf_put_u32(out, meta->nregs);
	buf_put_u32(out, rs);
	for (size_t i = 0; i < meta->nregs; i++) {
		buf_put_u32(out, (uint32_t)meta->regs[i].tid);
		buf_put_u32(out, 0);
		buf_put(out, &meta->regs[i].regs, rs);
	}
}

static int
write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int
snapshot_save(struct mem *recorder, const struct snapshot_meta *meta,
	      const char *path)
{
	struct recorder *rec;
	struct buf head = { 0 };
	uint64_t memlen = 8;
	size_t mapslen = meta->maps ? strlen(meta->maps) : 0;
	uint32_t nsections = 2;
	char *tmp = NULL;
	int fd = -1, err;

	if (!recorder || recorder->ops != &recorder_ops ||
	    mapslen > MAX_MAPS_LEN || meta->nregs > MAX_REGS ||
	    (meta->nregs && !meta->regs)) {
		errno = EINVAL;
		return -1;
	}
	rec = recorder->priv;
	for (size_t i = 0; i < rec->n; i++)
		memlen += 16 + rec->r[i].len;
	if (mapslen)
		nsections++;
	if (meta->nregs)
		nsections++;

	buf_put(&head, MAGIC, MAGIC_LEN);
	buf_put_u32(&head, FORMAT_VERSION);
	buf_put_u32(&head, 0);
	buf_put_u32(&head, nsections);
	meta_section(&head, meta);
	if (mapslen) {
		put_section(&head, SEC_MAPS, mapslen);
		buf_put(&head, meta->maps, mapslen);
	}
	if (meta->nregs)
		regs_section(&head, meta);
	put_section(&head, SEC_MEMORY, memlen);
	buf_put_u32(&head, rec->n);
	buf_put_u32(&head, 0);

	/* Write beside the destination and rename: a reader never sees half
	 * a snapshot. mkstemp's 0600 suits a copy of another process's
	 * memory. */
	tmp = xasprintf("%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto out_err;
	if (write_all(fd, head.p, head.len) < 0)
		goto out_unlink;
	for (size_t i = 0; i < rec->n; i++) {
		buf_reset(&head);
		buf_put_u64(&head, rec->r[i].addr);
		buf_put_u64(&head, rec->r[i].len);
		if (write_all(fd, head.p, head.len) < 0 ||
		    write_all(fd, rec->r[i].data, rec->r[i].len) < 0)
			goto out_unlink;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto out_unlink;
	free(tmp);
	buf_free(&head);
	return 0;

out_unlink:
	err = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = err;
out_err:
	err = errno;
	free(tmp);
	buf_free(&head);
	errno = err;
	return -1;
}

/* ---- the snapshot backend -------------------------------------------- */

struct snap_region {
	uint64_t addr;
	uint64_t len;
	const unsigned char *data;
};

struct snap {
	unsigned char *file;	/* the whole file; regions point into it */
	struct snap_region *r;
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
		const struct snap_region *r;
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

	if (c->bad || count > MAX_META_PAIRS)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *key, *val;
		uint32_t klen, vlen;
		uint64_t v = 0;
		int rc = 0;

		klen = bufr_get_u16(c);
		if (klen == 0 || klen > MAX_KEY_LEN)
			return -1;
		key = bufr_get_bytes(c, klen);
		vlen = bufr_get_u32(c);
		if (vlen > MAX_VAL_LEN)
			return -1;
		val = bufr_get_bytes(c, vlen);
		if (!key || !val || memchr(key, 0, klen) || memchr(val, 0, vlen))
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

	if (len > MAX_MAPS_LEN)
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

	if (c->bad || count > MAX_REGS || size != rs ||
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
	if (c->bad || count > MAX_REGIONS || count > bufr_left(c) / 17)
		return -1;
	s->r = count ? xcalloc(count, sizeof(*s->r)) : NULL;
	for (uint32_t i = 0; i < count; i++) {
		struct snap_region *r = &s->r[i];

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
	magic = bufr_get_bytes(&c, MAGIC_LEN);
	if (!magic || memcmp(magic, MAGIC, MAGIC_LEN))
		return -1;
	version = bufr_get_u32(&c);
	(void)bufr_get_u32(&c);	/* flags: unknown bits are ignored */
	nsections = bufr_get_u32(&c);
	if (c.bad || version != FORMAT_VERSION || nsections > MAX_SECTIONS)
		return -1;
	for (uint32_t i = 0; i < nsections; i++) {
		uint32_t type = bufr_get_u32(&c);
		struct bufr sc;
		int rc;

		(void)bufr_get_u32(&c);	/* reserved */
		bufr_sub(&c, bufr_get_u64(&c), &sc);
		if (c.bad)
			return -1;
		if (type >= SEC_META && type <= SEC_MEMORY) {
			if (seen & (1u << type))
				return -1;
			seen |= 1u << type;
		}
		switch (type) {
		case SEC_META:
			rc = parse_meta(&sc, meta);
			break;
		case SEC_MAPS:
			rc = parse_maps(&sc, meta);
			break;
		case SEC_REGS:
			rc = parse_regs(&sc, meta);
			break;
		case SEC_MEMORY:
			rc = parse_memory(&sc, s);
			break;
		default:
			continue;	/* a newer section: skip it */
		}
		if (rc < 0 || bufr_left(&sc) != 0)
			return -1;
	}
	if (bufr_left(&c) != 0 || !(seen & (1u << SEC_MEMORY)))
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

	if (!buf || len > MAX_FILE_LEN) {
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
	if (st.st_size > MAX_FILE_LEN) {
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
