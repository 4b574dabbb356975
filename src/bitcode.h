/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bitcode.h - LLVM bitcode objects, as the one link's bound reads them
 * (see bitcode.c). */
#ifndef MCOUNT_BITCODE_H
#define MCOUNT_BITCODE_H

#include <stdbool.h>
#include <stddef.h>

struct bitcode_info {
	unsigned long modules;
	unsigned long long functions;   /* with a body, in every module */
	bool thin;                      /* a module has a ThinLTO summary */
};

/* Does d start as LLVM bitcode (raw, or in its wrapper)? */
bool bitcode_is(const unsigned char *d, size_t len);
/* Read the bitcode at d into r; NULL, or why it cannot be read. */
const char *bitcode_read(const unsigned char *d, size_t len, struct bitcode_info *r);

#endif
