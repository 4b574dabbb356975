/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hash.h - the hashes of the linkers' build IDs (see hash.c): SHA-1,
 * streamed, and xxHash64 of a buffer. */
#ifndef MCOUNT_HASH_H
#define MCOUNT_HASH_H

#include <stddef.h>
#include <stdint.h>

struct sha1 {
	uint32_t h[5];
	unsigned char buf[64];
	size_t nbuf;
	uint64_t total;
};

void sha1_init(struct sha1 *c);
void sha1_add(struct sha1 *c, const void *p, size_t n);
/* n zero bytes */
void sha1_zeros(struct sha1 *c, size_t n);
/* the digest, c spent */
void sha1_end(struct sha1 *c, unsigned char out[20]);
/* which code hashes the blocks: "sha-ni" (x86's SHA extensions, where the
 * CPU has them and MCOUNT_SCAN_NO_SHA_NI is not set) or "c" */
const char *sha1_impl(void);

/* xxHash64 of n bytes, seed 0 */
uint64_t xxh64(const void *p, size_t n);

#endif
