/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cursor.h - bounds-checked reading of the program's own data (DWARF,
 * call frame information), for dwarf.c and cfi.c: a cursor that sets
 * bad, and reads zeros, past its end.  The data are the user's: a read
 * never leaves [p, end). */
#ifndef MT_CURSOR_H
#define MT_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static inline bool need(struct cur *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return false;
	}
	return true;
}

/* An n-byte value in the byte order of the program the data describe,
 * which is this library's own (s390x: big-endian). */
static inline uint64_t rd(struct cur *c, unsigned n)
{
	if (!need(c, n))
		return 0;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = v << 8 | c->p[i];
#else
		v |= (uint64_t)c->p[i] << (8 * i);
#endif
	c->p += n;
	return v;
}

static inline void skip(struct cur *c, uint64_t n)
{
	if (n > SIZE_MAX || !need(c, (size_t)n))
		return;
	c->p += n;
}

static inline uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		if (!need(c, 1))
			return 0;
		unsigned char b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift > 70) {
			c->bad = true;
			return 0;
		}
	}
}

static inline int64_t sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char b;
	do {
		if (!need(c, 1) || shift > 70) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~UINT64_C(0) << shift;
	return (int64_t)v;
}

#endif
