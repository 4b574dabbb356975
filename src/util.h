/* util.h - diagnostics, allocation and a string-keyed hash table. */
#ifndef MCOUNT_UTIL_H
#define MCOUNT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Messages take the form "PROG: FILE: message" (FILE omitted when NULL). */
extern const char *diag_prog;
extern const char *diag_file;
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
