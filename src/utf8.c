// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * UTF-8 validation for the writers, and the one escaping of text shown to
 * a person: names and paths come from the target's memory and files and
 * may hold any bytes, terminal escape sequences included.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rbflame/utf8.h"

size_t
utf8_len(const unsigned char *p, size_t n, uint32_t *cpp)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80) {
		len = 1;
		cp = p[0];
		goto ok;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
ok:
	if (cpp)
		*cpp = cp;
	return len;
}

/*
 * The next unit of s: its escaped text in buf (at most 8 bytes, not
 * NUL-terminated), its length in *outlen; returns the bytes of s used.
 */
static size_t
next_unit(const unsigned char *s, size_t n, unsigned flags, char *buf,
	  size_t *outlen)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t cp;
	size_t l = utf8_len(s, n, &cp);

	if (l == 0) {
		memcpy(buf, "\xef\xbf\xbd", 3);	/* U+FFFD */
		*outlen = 3;
		return 1;
	}
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
		if (cp == '\t' && (flags & UTF8_KEEP_TAB)) {
			buf[0] = '\t';
			*outlen = 1;
			return l;
		}
		buf[0] = '\\';
		buf[1] = 'x';
		buf[2] = hex[cp >> 4];
		buf[3] = hex[cp & 15];
		*outlen = 4;
		return l;
	}
	memcpy(buf, s, l);
	*outlen = l;
	return l;
}

char *
utf8_escape(const char *s, char *out, size_t cap, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;

	if (!cap)
		return out;
	while (i < n) {
		char buf[8];
		size_t bl, used = next_unit(u + i, n - i, flags, buf, &bl);

		if (o + bl >= cap)
			break;	/* never half a unit */
		memcpy(out + o, buf, bl);
		o += bl;
		i += used;
	}
	out[o] = '\0';
	return out;
}

void
utf8_put_escaped(FILE *f, const char *s, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	while (i < n) {
		char buf[8];
		size_t bl, used = next_unit(u + i, n - i, flags, buf, &bl);

		fwrite(buf, 1, bl, f);
		i += used;
	}
}
