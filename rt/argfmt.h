/* SPDX-License-Identifier: GPL-2.0-or-later */
/* argfmt.h - a function's recorded arguments written out, as the
 * tracer's trace and a recording's replay both show them (argfmt.c:
 * built into libmcount-trace and into mcount-read); and the return
 * values and durations of function_graph's lines, likewise.
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

/* A return value as the traces show it: one that looks like -errno (of
 * 32 or 64 bits) in decimal, any other in hex; into out (NUL-ended). */
__attribute__((visibility("hidden")))
void mt_fmt_retval(char *out, size_t cap, uint64_t v);

/* v's decimal digits at p, at least width of them (fill before them);
 * returns the end (no NUL). */
__attribute__((visibility("hidden")))
char *mt_put_dec(char *p, uint64_t v, int width, char fill);

/* function_graph's duration field, up to and with its '|': the
 * kernel's mark of how long (+ over 10 us, ! 100 us, # 1 ms, * 10 ms,
 * @ 100 ms, $ 1 s), then microseconds with as many of their three
 * decimals as keep the number to 7 digits; blanks where there is no
 * duration (has false).  Into df (MT_DURATION_FIELD bytes at least, no
 * NUL, no printf: the drain writes many); returns its length. */
#define MT_DURATION_FIELD 48
__attribute__((visibility("hidden")))
size_t mt_fmt_duration(char *df, bool has, double seconds);

#endif
