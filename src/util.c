/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - see util.h. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *diag_prog = "mcount-scan";
const char *diag_file;

static __attribute__((format(printf, 2, 0)))
void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", diag_prog);
	if (diag_file)
		fprintf(stderr, "%s: ", diag_file);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("note", fmt, ap);
	va_end(ap);
}

void vnote_msg(const char *fmt, va_list ap)
{
	vmsg("note", fmt, ap);
}

void vfatal(const char *fmt, va_list ap)
{
	vmsg(NULL, fmt, ap);
	exit(HELPER_BAD_INPUT);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	exit(HELPER_BAD_INPUT);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void grow(void *arr_ptr, size_t *cap, size_t need, size_t elem)
{
	void **arr = arr_ptr;
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	*arr = xrealloc(*arr, ncap * elem);
	*cap = ncap;
}

/* A string's hash, eight bytes at a time (the keys are section and file
 * names: C++'s run to a hundred bytes and more). */
static uint64_t hash_str(const char *s)
{
	const uint64_t k = 0xff51afd7ed558ccdULL;
	size_t n = strlen(s);
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * k;
	return h ^ (h >> 29);
}

static size_t slot_of(const struct strmap *m, const char *key)
{
	size_t mask = m->cap - 1, i = (size_t)hash_str(key) & mask;
	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & mask;
	return i;
}

int *strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	size_t i = slot_of(m, key);
	return m->keys[i] ? &m->vals[i] : NULL;
}

int *strmap_put(struct strmap *m, const char *key, int initial)
{
	if ((m->len + 1) * 2 > m->cap) {
		struct strmap n = { .cap = m->cap ? m->cap * 2 : 64 };
		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals)
			fatal("out of memory");
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = slot_of(&n, m->keys[i]);
			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
		n.len = m->len;
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	size_t i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = xstrndup(key, strlen(key));
		m->vals[i] = initial;
		m->len++;
	}
	return &m->vals[i];
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
