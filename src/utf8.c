// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* UTF-8 validation for the writers. */
#include "config.h"

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
