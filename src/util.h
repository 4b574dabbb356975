/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - diagnostics, allocation and a string-keyed hash table. */
#ifndef MCOUNT_UTIL_H
#define MCOUNT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The helper's exit statuses (the front ends know them by these names). */
enum helper_status {
	HELPER_OK = 0,          /* done, nothing to record included */
	HELPER_BAD_INPUT = 1,   /* the object or its listing cannot be recorded */
	HELPER_USAGE = 2,       /* bad arguments */
	HELPER_NO_LISTING = 3,  /* the listing is empty or not objdump output */
};

/* Messages take the form "PROG: FILE: message" (FILE omitted when NULL). */
extern const char *diag_prog;
extern const char *diag_file;
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a message and exit with HELPER_BAD_INPUT. */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list (for a caller that decides which to print). */
void vnote_msg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
_Noreturn void vfatal(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrndup(const char *s, size_t n);

/* Grow *arr (element size elem) so index *cap-1 exists for need elements. */
void grow(void *arr_ptr, size_t *cap, size_t need, size_t elem);

/* Open-addressing map from string to an int value. Keys are copied. */
struct strmap {
	char **keys;
	int *vals;
	size_t cap, len;
};
int *strmap_get(const struct strmap *m, const char *key);
int *strmap_put(struct strmap *m, const char *key, int initial); /* existing or new slot */
void strmap_free(struct strmap *m);

#endif
