/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bitcode.c - what the one link's bound needs of an LLVM bitcode object
 * (clang -flto, -flto=thin): its functions with a body, and whether it
 * carries a ThinLTO summary.
 *
 * The format is LLVM's bitstream (llvm.org/docs/BitCodeFormat.html):
 * bits read from the least significant of each byte up; a block is
 * entered with its id and length in 32-bit words, so that a reader skips
 * what it does not need; a record is either unabbreviated (code and
 * operands, each a VBR6) or laid out by an abbreviation the block defined
 * before it.  Only the module block's own records are decoded (its
 * sub-blocks skipped by their length): MODULE_CODE_VERSION (1) and
 * MODULE_CODE_FUNCTION (8), whose isproto operand is 0 for a function
 * with a body; a sub-block of id 20 (GLOBALVAL_SUMMARY_BLOCK) is the
 * ThinLTO summary.  clang's -pg puts one call to the hook in each
 * function when it compiles the object; LTO's inlining across objects
 * copies it, so the count is the calls before LTO, not a bound. */
#define _POSIX_C_SOURCE 200809L
#include "bitcode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct bits {
	const unsigned char *d;
	size_t len;             /* bytes */
	uint64_t at;            /* bits read */
	bool bad;
};

static uint64_t fixed(struct bits *b, unsigned n)
{
	uint64_t v = 0;
	if (n > 64 || b->at + n > (uint64_t)b->len * 8) {
		b->bad = true;
		b->at = (uint64_t)b->len * 8;
		return 0;
	}
	for (unsigned i = 0; i < n; i++, b->at++)
		v |= (uint64_t)(b->d[b->at >> 3] >> (b->at & 7) & 1) << i;
	return v;
}

static uint64_t vbr(struct bits *b, unsigned n)
{
	uint64_t v = 0;
	for (unsigned shift = 0; !b->bad; shift += n - 1) {
		uint64_t c = fixed(b, n);
		if (shift < 64)
			v |= (c & ((1ull << (n - 1)) - 1)) << shift;
		if (!(c >> (n - 1)))
			break;
		if (shift > 70)
			b->bad = true;
	}
	return v;
}

static void align32(struct bits *b)
{
	b->at = (b->at + 31) & ~(uint64_t)31;
	if (b->at > (uint64_t)b->len * 8)
		b->bad = true;
}

/* An abbreviation's operand: a literal, or how the value is encoded. */
enum { OP_LITERAL, OP_FIXED = 1, OP_VBR = 2, OP_ARRAY = 3, OP_CHAR6 = 4, OP_BLOB = 5 };
struct op {
	unsigned kind;
	uint64_t value;         /* the literal, or the width */
};
struct abbrev {
	struct op *ops;
	size_t n;
};

static void define_abbrev(struct bits *b, struct abbrev *a)
{
	uint64_t n = vbr(b, 5);
	if (n > 4096) {
		b->bad = true;
		n = 0;
	}
	a->ops = calloc(n ? n : 1, sizeof(*a->ops));
	a->n = 0;
	if (!a->ops) {
		b->bad = true;
		return;
	}
	for (uint64_t i = 0; i < n && !b->bad; i++) {
		struct op o = { OP_LITERAL, 0 };
		if (fixed(b, 1)) {
			o.value = vbr(b, 8);
		} else {
			o.kind = (unsigned)fixed(b, 3);
			if (o.kind == OP_FIXED || o.kind == OP_VBR)
				o.value = vbr(b, 5);
			else if (o.kind < OP_ARRAY || o.kind > OP_BLOB)
				b->bad = true;
			if ((o.kind == OP_FIXED || o.kind == OP_VBR) && (o.value > 64 || (o.kind == OP_VBR && o.value < 2)))
				b->bad = true;
		}
		a->ops[a->n++] = o;
	}
}

static uint64_t scalar(struct bits *b, const struct op *o)
{
	switch (o->kind) {
	case OP_LITERAL: return o->value;
	case OP_FIXED: return fixed(b, (unsigned)o->value);
	case OP_VBR: return vbr(b, (unsigned)o->value);
	case OP_CHAR6: return fixed(b, 6);
	default: b->bad = true; return 0;
	}
}

/* A record by abbreviation a: its code and its first operands (up to
 * nwant of them in want). */
static uint64_t abbreviated(struct bits *b, const struct abbrev *a, uint64_t *want, size_t nwant,
			    size_t *got)
{
	uint64_t code = 0;
	size_t nv = 0;          /* values read, the code first */
	*got = 0;
	for (size_t i = 0; i < a->n && !b->bad; i++) {
		const struct op *o = &a->ops[i];
		if (o->kind == OP_ARRAY) {
			if (i + 1 >= a->n) {
				b->bad = true;
				break;
			}
			uint64_t len = vbr(b, 6);
			for (uint64_t k = 0; k < len && !b->bad; k++, nv++) {
				uint64_t v = scalar(b, &a->ops[i + 1]);
				if (!nv)
					code = v;
				else if (nv - 1 < nwant)
					want[(*got)++] = v;
			}
			break;
		}
		if (o->kind == OP_BLOB) {
			uint64_t len = vbr(b, 6);
			align32(b);
			if (b->bad || len > (uint64_t)b->len - b->at / 8)
				b->bad = true;
			else
				b->at += len * 8;
			align32(b);
			nv++;
			continue;
		}
		uint64_t v = scalar(b, o);
		if (!nv)
			code = v;
		else if (nv - 1 < nwant)
			want[(*got)++] = v;
		nv++;
	}
	return code;
}

/* The module block at b (its id and length read): its functions with a
 * body counted, a summary noted.  width: its abbreviation IDs' width. */
static void module(struct bits *b, unsigned width, uint64_t end, struct bitcode_info *r)
{
	struct abbrev *ab = NULL;
	size_t nab = 0;
	uint64_t version = 0;
	while (!b->bad && b->at < end) {
		uint64_t id = fixed(b, width);
		if (id == 0) {          /* END_BLOCK */
			align32(b);
			break;
		}
		if (id == 1) {          /* ENTER_SUBBLOCK: skipped */
			uint64_t bid = vbr(b, 8);
			vbr(b, 4);
			align32(b);
			uint64_t words = fixed(b, 32);
			if (bid == 20)
				r->thin = true;
			if (b->bad || words * 32 > (uint64_t)b->len * 8 - b->at)
				b->bad = true;
			else
				b->at += words * 32;
			continue;
		}
		if (id == 2) {          /* DEFINE_ABBREV */
			struct abbrev *n = realloc(ab, (nab + 1) * sizeof(*ab));
			if (!n) {
				b->bad = true;
				break;
			}
			ab = n;
			define_abbrev(b, &ab[nab++]);
			continue;
		}
		uint64_t ops[8];
		size_t got = 0;
		uint64_t code;
		if (id == 3) {          /* UNABBREV_RECORD */
			code = vbr(b, 6);
			uint64_t n = vbr(b, 6);
			for (uint64_t i = 0; i < n && !b->bad; i++) {
				uint64_t v = vbr(b, 6);
				if (got < 8)
					ops[got++] = v;
			}
		} else if (id - 4 < nab) {
			code = abbreviated(b, &ab[id - 4], ops, 8, &got);
		} else {
			b->bad = true;
			break;
		}
		if (code == 1 && got >= 1)
			version = ops[0];
		/* (names in the string table from version 2: two operands more) */
		size_t isproto = version >= 2 ? 4 : 2;
		if (code == 8 && got > isproto && !ops[isproto])
			r->functions++;
	}
	for (size_t i = 0; i < nab; i++)
		free(ab[i].ops);
	free(ab);
}

bool bitcode_is(const unsigned char *d, size_t len)
{
	return len >= 4 && ((d[0] == 'B' && d[1] == 'C' && d[2] == 0xc0 && d[3] == 0xde) ||
			    (d[0] == 0xde && d[1] == 0xc0 && d[2] == 0x17 && d[3] == 0x0b));
}

const char *bitcode_read(const unsigned char *d, size_t len, struct bitcode_info *r)
{
	memset(r, 0, sizeof(*r));
	if (!bitcode_is(d, len))
		return "not LLVM bitcode";
	/* (the wrapper: magic, version, offset, size, CPU type, 32 bits each) */
	if (d[0] == 0xde) {
		if (len < 20)
			return "a truncated bitcode wrapper";
		uint32_t off = (uint32_t)d[8] | (uint32_t)d[9] << 8 | (uint32_t)d[10] << 16 | (uint32_t)d[11] << 24;
		uint32_t size = (uint32_t)d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 | (uint32_t)d[15] << 24;
		if (off > len || size > len - off || !bitcode_is(d + off, size) || d[off] != 'B')
			return "a bad bitcode wrapper";
		d += off;
		len = size;
	}
	struct bits b = { d, len, 32, false };
	while (!b.bad && b.at + 32 <= (uint64_t)len * 8) {
		uint64_t id = fixed(&b, 2);
		if (id != 1)    /* (the top level holds blocks only; past the last, padding) */
			break;
		uint64_t bid = vbr(&b, 8);
		unsigned width = (unsigned)vbr(&b, 4);
		align32(&b);
		uint64_t words = fixed(&b, 32);
		if (b.bad || words * 32 > (uint64_t)len * 8 - b.at || width < 2 || width > 32)
			return "damaged LLVM bitcode";
		uint64_t end = b.at + words * 32;
		if (bid == 8) {
			r->modules++;
			module(&b, width, end, r);
		}
		b.at = end;
	}
	return b.bad ? "damaged LLVM bitcode" : r->modules ? NULL : "LLVM bitcode without a module";
}
