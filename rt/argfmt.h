/* SPDX-License-Identifier: GPL-2.0-or-later */
/* argfmt.h - a function's recorded arguments written out, as the
 * tracer's trace and a recording's replay both show them (argfmt.c:
 * built into libmcount-trace and into mcount-read).
 *
 * An entry's payload (doc/trace-format.md): word 0 its prototype's key
 * (0: raw words), word 1 the count N of argument words (bits 0-15),
 * then the N words, then for each string argument its length word and
 * its bytes, eight to a word, little-endian within the word. */
#ifndef MCOUNT_ARGFMT_H
#define MCOUNT_ARGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mt_arg_kind { MT_ARG_INT, MT_ARG_UINT, MT_ARG_HEX, MT_ARG_BOOL, MT_ARG_STR, MT_ARG_SYM };
/* A string's length word: bits 0-15 the bytes kept, and these. */
#define MT_STR_MAX 128
#define MT_STR_CUT (UINT64_C(1) << 32)
#define MT_STR_FAULT (UINT64_C(1) << 33)

/* An argument as the prototype says: its name, kind (enum
 * mt_arg_kind), integer width in bits; nowhere: not where the hook can
 * read it at the site (written <optimized out>, as gdb does). */
struct mt_fmt_arg {
	const char *name;
	uint8_t kind;
	uint8_t bits;
	bool nowhere;
};

/* The name of the address a MT_ARG_SYM argument holds, into buf. */
typedef const char *(*mt_fmt_sym)(uint64_t addr, char *buf, size_t len, void *ctx);

/* The arguments of payload p (nwords words) as "(a=1, s=\"x\")", or
 * with json a JSON value: an object of typed ones, an array of raw
 * ones; typed by a[0..na) (a NULL: raw words), at most na of them.
 * Into out, cut to fit cap (no NUL); returns the length written. */
__attribute__((visibility("hidden")))
size_t mt_fmt_args(char *out, size_t cap, const struct mt_fmt_arg *a, size_t na, const uint64_t *p, size_t nwords,
		   bool json, mt_fmt_sym sym, void *ctx);

#endif
