// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The writer of RBFSNAP1 files (doc/snapshot-format.md): what a recorder
 * kept, with the meta that lets it be read again, written beside the
 * destination and renamed over it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/buf.h"
#include "rbflame/snapshot.h"
#include "rbflame/snapshot_format.h"
#include "rbflame/xmalloc.h"

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

	if (vl > SNAPSHOT_MAX_VAL_LEN)
		vl = SNAPSHOT_MAX_VAL_LEN;
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

	put_section(out, SNAPSHOT_SEC_META, 4 + b.len);
	buf_put_u32(out, count);
	buf_put(out, b.p, b.len);
	buf_free(&b);
}

static void
regs_section(struct buf *out, const struct snapshot_meta *meta)
{
	size_t rs = sizeof(struct user_regs_struct);

	put_section(out, SNAPSHOT_SEC_REGS, 8 + meta->nregs * (8 + rs));
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
	struct snapshot_recorder_stats rs;
	struct snapshot_region r;
	struct buf head = { 0 };
	uint64_t memlen = 8;
	size_t mapslen = meta->maps ? strlen(meta->maps) : 0;
	uint32_t nsections = 2;
	char *tmp = NULL;
	int fd = -1, err;

	if (snapshot_recorder_stats(recorder, &rs) < 0 ||
	    mapslen > SNAPSHOT_MAX_MAPS_LEN ||
	    meta->nregs > SNAPSHOT_MAX_REGS || (meta->nregs && !meta->regs)) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; snapshot_recorder_region(recorder, i, &r) == 0; i++)
		memlen += 16 + r.len;
	if (mapslen)
		nsections++;
	if (meta->nregs)
		nsections++;

	buf_put(&head, SNAPSHOT_MAGIC, SNAPSHOT_MAGIC_LEN);
	buf_put_u32(&head, SNAPSHOT_FORMAT_VERSION);
	buf_put_u32(&head, 0);
	buf_put_u32(&head, nsections);
	meta_section(&head, meta);
	if (mapslen) {
		put_section(&head, SNAPSHOT_SEC_MAPS, mapslen);
		buf_put(&head, meta->maps, mapslen);
	}
	if (meta->nregs)
		regs_section(&head, meta);
	put_section(&head, SNAPSHOT_SEC_MEMORY, memlen);
	buf_put_u32(&head, rs.regions);
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
	for (size_t i = 0; i < rs.regions; i++) {
		if (snapshot_recorder_region(recorder, i, &r) < 0)
			goto out_unlink;
		buf_reset(&head);
		buf_put_u64(&head, r.addr);
		buf_put_u64(&head, r.len);
		if (write_all(fd, head.p, head.len) < 0 ||
		    write_all(fd, r.data, r.len) < 0)
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
