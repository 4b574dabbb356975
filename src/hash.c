/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hash.c - the hashes of the linkers' build IDs (linkonce.c computes the
 * ID again after filling the table): SHA-1 (FIPS 180-4) for GNU ld's,
 * gold's and lld's sha1 style, xxHash64 for lld 14's fast one. */
#include "hash.h"

#include <string.h>

/* --- SHA-1 in C -------------------------------------------------------------- */

static uint32_t rol(uint32_t x, unsigned n)
{
	return x << n | x >> (32 - n);
}

/* h: the five words of the state; n blocks of 64 bytes at p.  A block's
 * schedule is kept as 16 words, each new word written over the one 16
 * before it; the rounds are unrolled five at a time, the variables'
 * names turning instead of their values moving. */
#define SHA1_W(i) (w[(i) & 15] = rol(w[((i) + 13) & 15] ^ w[((i) + 8) & 15] ^ w[((i) + 2) & 15] ^ \
					 w[(i) & 15], 1))
#define SHA1_R(a, b, c, d, e, f, k, x) \
	do { \
		e += rol(a, 5) + (f) + (k) + (x); \
		b = rol(b, 30); \
	} while (0)
#define SHA1_F1(b, c, d) (d ^ (b & (c ^ d)))
#define SHA1_F2(b, c, d) (b ^ c ^ d)
#define SHA1_F3(b, c, d) ((b & c) | (d & (b | c)))
#define SHA1_R5(f, k, i, x) \
	do { \
		SHA1_R(a, b, c, d, e, f(b, c, d), k, x(i)); \
		SHA1_R(e, a, b, c, d, f(a, b, c), k, x((i) + 1)); \
		SHA1_R(d, e, a, b, c, f(e, a, b), k, x((i) + 2)); \
		SHA1_R(c, d, e, a, b, f(d, e, a), k, x((i) + 3)); \
		SHA1_R(b, c, d, e, a, f(c, d, e), k, x((i) + 4)); \
	} while (0)
#define SHA1_IN(i) w[i]

static void sha1_blocks_c(uint32_t h[5], const unsigned char *p, size_t n)
{
	for (; n; n--, p += 64) {
		uint32_t w[16];
		for (unsigned i = 0; i < 16; i++)
			w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
			       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		SHA1_R5(SHA1_F1, 0x5a827999u, 0, SHA1_IN);
		SHA1_R5(SHA1_F1, 0x5a827999u, 5, SHA1_IN);
		SHA1_R5(SHA1_F1, 0x5a827999u, 10, SHA1_IN);
		SHA1_R(a, b, c, d, e, SHA1_F1(b, c, d), 0x5a827999u, w[15]);
		SHA1_R(e, a, b, c, d, SHA1_F1(a, b, c), 0x5a827999u, SHA1_W(16));
		SHA1_R(d, e, a, b, c, SHA1_F1(e, a, b), 0x5a827999u, SHA1_W(17));
		SHA1_R(c, d, e, a, b, SHA1_F1(d, e, a), 0x5a827999u, SHA1_W(18));
		SHA1_R(b, c, d, e, a, SHA1_F1(c, d, e), 0x5a827999u, SHA1_W(19));
		for (unsigned i = 20; i < 40; i += 5)
			SHA1_R5(SHA1_F2, 0x6ed9eba1u, i, SHA1_W);
		for (unsigned i = 40; i < 60; i += 5)
			SHA1_R5(SHA1_F3, 0x8f1bbcdcu, i, SHA1_W);
		for (unsigned i = 60; i < 80; i += 5)
			SHA1_R5(SHA1_F2, 0xca62c1d6u, i, SHA1_W);
		h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
	}
}

/* --- SHA-1's stream ---------------------------------------------------------- */

void sha1_init(struct sha1 *c)
{
	*c = (struct sha1){ { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 }, { 0 }, 0, 0 };
}

void sha1_add(struct sha1 *c, const void *data, size_t n)
{
	const unsigned char *p = data;
	c->total += n;
	if (c->nbuf) {
		size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;
		memcpy(c->buf + c->nbuf, p, k);
		c->nbuf += k, p += k, n -= k;
		if (c->nbuf < 64)
			return;
		sha1_blocks_c(c->h, c->buf, 1);
		c->nbuf = 0;
	}
	if (n >= 64) {
		sha1_blocks_c(c->h, p, n / 64);
		p += n / 64 * 64;
		n %= 64;
	}
	if (n)
		memcpy(c->buf, p, n);
	c->nbuf = n;
}

void sha1_zeros(struct sha1 *c, size_t n)
{
	static const unsigned char z[4096];
	for (; n > sizeof(z); n -= sizeof(z))
		sha1_add(c, z, sizeof(z));
	sha1_add(c, z, n);
}

void sha1_end(struct sha1 *c, unsigned char out[20])
{
	uint64_t bits = c->total * 8;
	unsigned char pad[72] = { 0x80 };
	size_t n = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
	for (unsigned i = 0; i < 8; i++)
		pad[n + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_add(c, pad, n + 8);
	for (unsigned i = 0; i < 20; i++)
		out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* --- xxHash64 ---------------------------------------------------------------- */

/* Yann Collet's specification (xxhash.com): four lanes over 32-byte
 * stripes, then the tail, then the avalanche. */
#define XXP1 0x9e3779b185ebca87ull
#define XXP2 0xc2b2ae3d27d4eb4full
#define XXP3 0x165667b19e3779f9ull
#define XXP4 0x85ebca77c2b2ae63ull
#define XXP5 0x27d4eb2f165667c5ull

static uint64_t rol64(uint64_t x, unsigned n)
{
	return x << n | x >> (64 - n);
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint64_t xx_round(uint64_t acc, uint64_t in)
{
	return rol64(acc + in * XXP2, 31) * XXP1;
}

uint64_t xxh64(const void *data, size_t n)
{
	const unsigned char *p = data, *end = p + n;
	uint64_t h;
	if (n >= 32) {
		uint64_t v[4] = { XXP1 + XXP2, XXP2, 0, -XXP1 };
		for (; end - p >= 32; p += 32)
			for (unsigned k = 0; k < 4; k++)
				v[k] = xx_round(v[k], le64(p + 8 * k));
		h = rol64(v[0], 1) + rol64(v[1], 7) + rol64(v[2], 12) + rol64(v[3], 18);
		for (unsigned k = 0; k < 4; k++)
			h = (h ^ xx_round(0, v[k])) * XXP1 + XXP4;
	} else {
		h = XXP5;
	}
	h += n;
	for (; end - p >= 8; p += 8)
		h = rol64(h ^ xx_round(0, le64(p)), 27) * XXP1 + XXP4;
	if (end - p >= 4) {
		uint64_t w = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
		h = rol64(h ^ w * XXP1, 23) * XXP2 + XXP3;
		p += 4;
	}
	for (; p < end; p++)
		h = rol64(h ^ *p * XXP5, 11) * XXP1;
	h ^= h >> 33;
	h *= XXP2;
	h ^= h >> 29;
	h *= XXP3;
	return h ^ h >> 32;
}
