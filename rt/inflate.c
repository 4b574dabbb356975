/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inflate.c - the zlib streams of compressed debug sections.
 *
 * A section with SHF_COMPRESSED and ELFCOMPRESS_ZLIB holds, after its
 * Elf64_Chdr, a zlib stream (RFC 1950) of DEFLATE data (RFC 1951).
 * Written from those two documents:
 *
 *   zlib      CMF (CM 8, CINFO <= 7), FLG (FCHECK, no FDICT), the
 *             compressed blocks, then the Adler-32 of the data,
 *             most significant byte first.
 *   blocks    a 3-bit header (BFINAL, BTYPE), then stored (LEN, NLEN
 *             from the next byte boundary, LEN bytes), fixed Huffman
 *             codes or dynamic ones (HLIT, HDIST, HCLEN, the code
 *             length code's lengths, then the literal/length and
 *             distance codes' lengths in one run-length coded sequence).
 *   codes     canonical: each set is given by its lengths alone (RFC
 *             1951, 3.2.2).  Codes are decoded here through one table
 *             per set, indexed by the next 'bits' bits of the input
 *             (bits = the longest code's length); a code of length n,
 *             bit-reversed (Huffman codes are packed from their most
 *             significant bit, the stream from the least), fills every
 *             2^n-th entry from its own.  One lookup per symbol.
 *
 * The input is the user's file: every read is within it, every write
 * within the output, which must come out exactly as long as the
 * section's header says; code sets over-subscribed, or incomplete where
 * RFC 1951 has no use for them (only a distance code of one code, or of
 * none, is allowed to be, and, as zlib has it, a literal/length code of
 * one code), symbols 286, 287 and distances 30, 31,
 * distances before the start of the output and repeats of code lengths
 * that run past their count are refused.  Bytes after the Adler-32 are
 * not looked at (the section may be padded).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define MAXBITS 15                    /* longest code (RFC 1951, 3.2.2) */
#define NLITLEN 288                   /* literal/length symbols, 286 and 287 unused */
#define NDIST 32                      /* distance symbols, 30 and 31 unused */
#define NCLEN 19                      /* code length symbols */

/* The input, read least significant bit first: buf holds cnt bits not
 * yet consumed, taken from in[] before pos; any bits of buf above them
 * are in[pos]'s and on, as they will be read. */
struct bits {
	const unsigned char *in;
	size_t len, pos;
	uint64_t buf;
	unsigned cnt;
};

static void refill(struct bits *b)
{
	if (b->len - b->pos >= 8) {
		/* eight bytes at once (the whole ones that fit are taken; the
		 * rest are ORed in again, the same bits, by the next refill) */
		uint64_t w = 0;
		for (unsigned i = 0; i < 8; i++)
			w |= (uint64_t)b->in[b->pos + i] << (8 * i);
		b->buf |= w << b->cnt;
		unsigned k = (63 - b->cnt) / 8;
		b->pos += k;
		b->cnt += 8 * k;
		return;
	}
	while (b->cnt <= 56 && b->pos < b->len) {
		b->buf |= (uint64_t)b->in[b->pos++] << b->cnt;
		b->cnt += 8;
	}
}

/* The next n bits (n <= 16) in *v; false at the end of the input. */
static inline bool need(struct bits *b, unsigned n, unsigned *v)
{
	if (b->cnt < n) {
		refill(b);
		if (b->cnt < n)
			return false;
	}
	*v = (unsigned)(b->buf & ((1u << n) - 1));
	b->buf >>= n;
	b->cnt -= n;
	return true;
}

/* To the next byte boundary, and give the whole bytes still in buf back
 * to the input (they were read from it in order). */
static void align(struct bits *b)
{
	b->buf >>= b->cnt & 7;
	b->cnt -= b->cnt & 7;
	b->pos -= b->cnt / 8;
	b->buf = 0;
	b->cnt = 0;
}

/* A code set's table: 2^bits entries, each (symbol << 4 | length), 0
 * where no code begins with those bits. */
struct huff {
	unsigned bits;
	uint16_t t[1u << MAXBITS];
};

enum { COMPLETE, ONE, NONE, BAD };

/* Build h from the lengths of n symbols (0: not used).  What the set is:
 * complete, a single code of length 1, no code, or neither (BAD: over-
 * subscribed, or incomplete otherwise). */
static int build(struct huff *h, const unsigned char *len, unsigned n)
{
	unsigned count[MAXBITS + 1] = { 0 }, next[MAXBITS + 1];
	for (unsigned s = 0; s < n; s++)
		count[len[s]]++;
	count[0] = 0;
	/* codes still free at each length: must never go below 0 */
	long left = 1;
	unsigned max = 0, used = 0;
	for (unsigned l = 1; l <= MAXBITS; l++) {
		left = 2 * left - (long)count[l];
		if (left < 0)
			return BAD;
		if (count[l])
			max = l;
		used += count[l];
	}
	/* the first code of each length (RFC 1951, 3.2.2, step 2) */
	unsigned code = 0;
	next[0] = 0;
	for (unsigned l = 1; l <= MAXBITS; l++) {
		code = (code + count[l - 1]) << 1;
		next[l] = code;
	}
	h->bits = max;
	size_t size = (size_t)1 << max;
	memset(h->t, 0, size * sizeof h->t[0]);
	for (unsigned s = 0; s < n; s++) {
		unsigned l = len[s];
		if (!l)
			continue;
		unsigned c = next[l]++, r = 0;
		for (unsigned i = 0; i < l; i++)
			r |= ((c >> i) & 1) << (l - 1 - i);
		uint16_t e = (uint16_t)(s << 4 | l);
		for (size_t i = r; i < size; i += (size_t)1 << l)
			h->t[i] = e;
	}
	if (left == 0)
		return COMPLETE;
	if (used == 0)
		return NONE;
	if (used == 1 && max == 1)
		return ONE;
	return BAD;
}

/* The next symbol of h's code; -1 if the input has none. */
static inline int decode(struct bits *b, const struct huff *h)
{
	if (b->cnt < h->bits)
		refill(b);
	unsigned e = h->t[b->buf & (((uint64_t)1 << h->bits) - 1)];
	unsigned l = e & 15;
	if (!l || l > b->cnt)
		return -1;
	b->buf >>= l;
	b->cnt -= l;
	return (int)(e >> 4);
}

/* Lengths 257..285 and distances 0..29: the base and extra bits
 * (RFC 1951, 3.2.5). */
static const uint16_t len_base[29] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
};
static const unsigned char len_extra[29] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
};
static const uint16_t dist_base[30] = {
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
};
static const unsigned char dist_extra[30] = {
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
};

struct state {
	struct bits b;
	unsigned char *out;
	size_t outlen, n;             /* written so far */
	struct huff lit, dist;
	struct huff clen;
};

/* A compressed block's data, up to its end-of-block code. */
static bool codes(struct state *s)
{
	for (;;) {
		int sym = decode(&s->b, &s->lit);
		if (sym < 0)
			return false;
		if (sym < 256) {
			if (s->n == s->outlen)
				return false;
			s->out[s->n++] = (unsigned char)sym;
			continue;
		}
		if (sym == 256)
			return true;
		if (sym > 285)
			return false;
		unsigned x;
		if (!need(&s->b, len_extra[sym - 257], &x))
			return false;
		size_t len = len_base[sym - 257] + x;
		int d = decode(&s->b, &s->dist);
		if (d < 0 || d > 29 || !need(&s->b, dist_extra[d], &x))
			return false;
		size_t dist = dist_base[d] + x;
		if (dist > s->n || len > s->outlen - s->n)
			return false;
		unsigned char *o = s->out + s->n;
		const unsigned char *from = o - dist;
		if (dist >= len)
			memcpy(o, from, len);
		else
			for (size_t i = 0; i < len; i++)
				o[i] = from[i];
		s->n += len;
	}
}

static bool stored(struct state *s)
{
	unsigned len, nlen;
	align(&s->b);
	if (!need(&s->b, 16, &len) || !need(&s->b, 16, &nlen) || len != (~nlen & 0xffff))
		return false;
	align(&s->b);
	if (len > s->b.len - s->b.pos || len > s->outlen - s->n)
		return false;
	memcpy(s->out + s->n, s->b.in + s->b.pos, len);
	s->b.pos += len;
	s->n += len;
	return true;
}

static bool fixed(struct state *s)
{
	unsigned char len[NLITLEN];
	unsigned i = 0;
	for (; i < 144; i++)
		len[i] = 8;
	for (; i < 256; i++)
		len[i] = 9;
	for (; i < 280; i++)
		len[i] = 7;
	for (; i < NLITLEN; i++)
		len[i] = 8;
	build(&s->lit, len, NLITLEN);
	memset(len, 5, NDIST);
	build(&s->dist, len, NDIST);
	return codes(s);
}

static bool dynamic(struct state *s)
{
	static const unsigned char order[NCLEN] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	unsigned hlit, hdist, hclen;
	if (!need(&s->b, 5, &hlit) || !need(&s->b, 5, &hdist) || !need(&s->b, 4, &hclen))
		return false;
	hlit += 257;
	hdist += 1;
	hclen += 4;
	if (hlit > 286 || hdist > 30)
		return false;
	unsigned char len[NLITLEN + NDIST] = { 0 };
	for (unsigned i = 0; i < hclen; i++) {
		unsigned v;
		if (!need(&s->b, 3, &v))
			return false;
		len[order[i]] = (unsigned char)v;
	}
	if (build(&s->clen, len, NCLEN) != COMPLETE)
		return false;
	/* the literal/length and distance codes' lengths, one sequence */
	unsigned total = hlit + hdist;
	memset(len, 0, sizeof len);
	for (unsigned i = 0; i < total;) {
		int sym = decode(&s->b, &s->clen);
		if (sym < 0)
			return false;
		if (sym < 16) {
			len[i++] = (unsigned char)sym;
			continue;
		}
		unsigned rep;
		unsigned char what = 0;
		if (sym == 16) {
			if (!i || !need(&s->b, 2, &rep))
				return false;
			rep += 3;
			what = len[i - 1];
		} else if (sym == 17) {
			if (!need(&s->b, 3, &rep))
				return false;
			rep += 3;
		} else {
			if (!need(&s->b, 7, &rep))
				return false;
			rep += 11;
		}
		if (rep > total - i)
			return false;
		memset(len + i, what, rep);
		i += rep;
	}
	if (!len[256])
		return false;         /* a block that cannot end */
	/* a literal/length code of one code (the end-of-block's: an empty
	 * block) is allowed as zlib allows it, of none it cannot be (the
	 * end has a length); a distance code of one code or none as RFC
	 * 1951 says (3.2.7) */
	if (build(&s->lit, len, hlit) == BAD || build(&s->dist, len + hlit, hdist) == BAD)
		return false;
	return codes(s);
}

static uint32_t adler32(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;
	while (n) {
		/* 5552 bytes: the most before b could pass 2^32 (RFC 1950's
		 * sums are mod 65521) */
		size_t k = n < 5552 ? n : 5552;
		n -= k;
		while (k--) {
			a += *p++;
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return b << 16 | a;
}

bool mt_inflate(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen)
{
	if (inlen < 2)
		return false;
	unsigned cmf = in[0], flg = in[1];
	if ((cmf & 15) != 8 || cmf >> 4 > 7 || (cmf << 8 | flg) % 31 || (flg & 0x20))
		return false;
	struct state *s = malloc(sizeof *s);
	if (!s)
		return false;
	s->b = (struct bits){ .in = in, .len = inlen, .pos = 2 };
	s->out = out;
	s->outlen = outlen;
	s->n = 0;
	bool ok = true;
	unsigned last = 0;
	while (ok && !last) {
		unsigned type;
		if (!need(&s->b, 1, &last) || !need(&s->b, 2, &type))
			ok = false;
		else if (type == 0)
			ok = stored(s);
		else if (type == 1)
			ok = fixed(s);
		else if (type == 2)
			ok = dynamic(s);
		else
			ok = false;
	}
	uint32_t sum = 0;
	if (ok) {
		align(&s->b);
		for (unsigned i = 0; ok && i < 4; i++) {
			unsigned v;
			ok = need(&s->b, 8, &v);
			sum = sum << 8 | v;
		}
	}
	ok = ok && s->n == outlen && sum == adler32(out, outlen);
	free(s);
	return ok;
}
