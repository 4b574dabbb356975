/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hash.c - the hashes of the linkers' build IDs (linkonce.c computes the
 * ID again after filling the table): SHA-1 (FIPS 180-4) for GNU ld's,
 * gold's and lld's sha1 style, xxHash64 for lld 14's fast one.
 *
 * SHA-1's blocks are most of --fill-linked's time on a large image: on
 * x86 they are hashed with the CPU's SHA extensions where it has them
 * (CPUID leaf 7: SHA; leaf 1: SSSE3 and SSE4.1), in C elsewhere and
 * where MCOUNT_SCAN_NO_SHA_NI is set to a non-empty value (the tests
 * hash the same bytes both ways). */
#define _GNU_SOURCE
#include "hash.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

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

/* --- SHA-1 with x86's SHA extensions ----------------------------------------- */

#ifdef HAVE_SHA_NI
/* The state's A, B, C, D are one vector, A in its top lane; E is the
 * top lane of another, the rest 0.  A message vector holds four words
 * of the schedule, the first in the top lane (the block's bytes
 * reversed: big-endian words, in reverse order).  SHA1RNDS4 does four
 * rounds (imm 0 to 3: those of rounds 0-19, 20-39, 40-59, 60-79) from
 * A, B, C, D and the four words, the first with E added; the E of the
 * next four is the A the last four started from, rotated by 30, which
 * SHA1NEXTE adds to their first word.  The schedule's words 4g to 4g+3 come from
 * those 16, 12, 8 and 4 before them: SHA1MSG1 (of the first two
 * vectors), XOR (the third), SHA1MSG2 (the fourth). */
#define NI_ROUNDS(f, wv) \
	do { \
		const __m128i x_ = (wv); \
		prev = abcd; \
		abcd = _mm_sha1rnds4_epu32(abcd, x_, f); \
	} while (0)
/* four rounds of the first 16, their words wv loaded */
#define NI_FIRST(f, wv) NI_ROUNDS(f, _mm_sha1nexte_epu32(prev, wv))
/* four rounds of words computed: wa holds those 16 before, wb 12 before,
 * wc 8, wd 4; wa holds the new ones after */
#define NI_NEXT(f, wa, wb, wc, wd) \
	do { \
		wa = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(wa, wb), wc), wd); \
		NI_ROUNDS(f, _mm_sha1nexte_epu32(prev, wa)); \
	} while (0)

__attribute__((target("sha,sse4.1")))
static void sha1_blocks_ni(uint32_t h[5], const unsigned char *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0001020304050607ll, 0x08090a0b0c0d0e0fll);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h), 0x1b);
	__m128i e = _mm_set_epi32((int)h[4], 0, 0, 0);
	for (; n; n--, p += 64) {
		const __m128i abcd0 = abcd, e0 = e;
		__m128i prev;
		__m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), swap);
		__m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), swap);
		__m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), swap);
		__m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), swap);
		NI_ROUNDS(0, _mm_add_epi32(w0, e));     /* rounds 0-3 */
		NI_FIRST(0, w1);
		NI_FIRST(0, w2);
		NI_FIRST(0, w3);
		NI_NEXT(0, w0, w1, w2, w3);             /* 16-19: words computed */
		NI_NEXT(1, w1, w2, w3, w0);             /* 20-23 */
		NI_NEXT(1, w2, w3, w0, w1);
		NI_NEXT(1, w3, w0, w1, w2);
		NI_NEXT(1, w0, w1, w2, w3);
		NI_NEXT(1, w1, w2, w3, w0);
		NI_NEXT(2, w2, w3, w0, w1);             /* 40-43 */
		NI_NEXT(2, w3, w0, w1, w2);
		NI_NEXT(2, w0, w1, w2, w3);
		NI_NEXT(2, w1, w2, w3, w0);
		NI_NEXT(2, w2, w3, w0, w1);
		NI_NEXT(3, w3, w0, w1, w2);             /* 60-63 */
		NI_NEXT(3, w0, w1, w2, w3);
		NI_NEXT(3, w1, w2, w3, w0);
		NI_NEXT(3, w2, w3, w0, w1);
		NI_NEXT(3, w3, w0, w1, w2);
		e = _mm_sha1nexte_epu32(prev, e0);     /* E after round 79, plus E before */
		abcd = _mm_add_epi32(abcd, abcd0);
	}
	_mm_storeu_si128((__m128i *)(void *)h, _mm_shuffle_epi32(abcd, 0x1b));
	h[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

/* CPUID: leaf 1's ECX bit 9 (SSSE3) and 19 (SSE4.1), leaf 7 subleaf 0's
 * EBX bit 29 (SHA) */
static bool have_sha_ni(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & 1u << 9) || !(c & 1u << 19))
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & 1u << 29);
}
#endif

/* the block function, chosen at the first sha1_init */
static void (*sha1_blocks)(uint32_t h[5], const unsigned char *p, size_t n);

static void sha1_pick(void)
{
	sha1_blocks = sha1_blocks_c;
#ifdef HAVE_SHA_NI
	const char *off = secure_getenv("MCOUNT_SCAN_NO_SHA_NI");
	if ((!off || !*off) && have_sha_ni())
		sha1_blocks = sha1_blocks_ni;
#endif
}

const char *sha1_impl(void)
{
	if (!sha1_blocks)
		sha1_pick();
	return sha1_blocks == sha1_blocks_c ? "c" : "sha-ni";
}

/* --- SHA-1's stream ---------------------------------------------------------- */

void sha1_init(struct sha1 *c)
{
	if (!sha1_blocks)
		sha1_pick();
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
		sha1_blocks(c->h, c->buf, 1);
		c->nbuf = 0;
	}
	if (n >= 64) {
		sha1_blocks(c->h, p, n / 64);
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
