/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base.c - the bottom of the library: messages, the environment, writes
 * that finish, and sorting by address.  It calls into no other file of
 * the library; every other file may call into it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "rt.h"

void mt_msg(const char *fmt, ...)
{
	char buf[1024];
	int n = snprintf(buf, sizeof buf, "mcount-trace: ");
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m < sizeof buf - (size_t)n - 1 ? (size_t)m
			: sizeof buf - (size_t)n - 2);
	buf[len++] = '\n';
	mt_write_all(2, buf, len);
}

int mt_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ---- the environment ---- */

/* A program that runs with privileges its user has not (AT_SECURE:
 * set-user-ID, set-group-ID, file capabilities) is its own: its user
 * must not choose the files it writes, the directory it makes, what it
 * traces or who may read that.  Its C API still serves it. */
bool mt_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* The library's start-up may come before the C library's own
 * initialiser (the library is the process's DF_1_INITFIRST object, or
 * linked in, a DT_PREINIT_ARRAY entry of the program's: mt_init), which
 * sets environ: until then (env_early), the environment is the one the
 * process started with, which the start-up is given, and what the
 * library sets in it for the processes the program makes waits
 * (control.c's set_env_me), or the C library's initialiser would undo it. */
static atomic_int env_early;          /* (a word: no byte-sized atomics) */
static char **env_start;

void mt_env_early(char **envp)
{
	env_start = envp;
	atomic_store(&env_early, 1);
}

bool mt_env_is_early(void)
{
	return atomic_load(&env_early) != 0;
}

void mt_env_late(void)
{
	atomic_store(&env_early, 0);
}

/* NAME's entry in the environment: its value, or NULL. */
static const char *env_entry(const char *name)
{
	size_t n = strlen(name);
	for (char **e = atomic_load(&env_early) ? env_start : environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* Every variable the library reads, read here: none under AT_SECURE,
 * said once when one is set. */
const char *mt_env(const char *name)
{
	static atomic_int said;          /* (a word: a byte's exchange is a libatomic call on riscv64) */
	const char *v = atomic_load(&env_early) ? (mt_secure() ? NULL : env_entry(name)) : secure_getenv(name);
	if (!v && mt_secure() && env_entry(name) && !atomic_exchange(&said, 1))
		mt_msg("%s ignored, as every variable of the tracer's: the program runs with privileges "
		       "(set-user-ID, set-group-ID or capabilities)", name);
	return v;
}

/* Remembered by the file, not the object: a library dlopen()ed again is
 * a new object, not news. */
bool mt_told(const char *path, const char *func)
{
	static char **seen;
	static size_t nseen;
	if (!path)
		return false;
	size_t pl = strlen(path), fl = func ? strlen(func) : 0;
	for (size_t i = 0; i < nseen; i++)
		if (!strcmp(seen[i], path) && !strcmp(seen[i] + strlen(seen[i]) + 1, func ? func : ""))
			return true;
	char *k = malloc(pl + fl + 2);
	char **nv = k ? realloc(seen, (nseen + 1) * sizeof *nv) : NULL;
	if (!nv) {
		free(k);
		return false;
	}
	memcpy(k, path, pl + 1);
	memcpy(k + pl + 1, func ? func : "", fl + 1);
	seen = nv;
	seen[nseen++] = k;
	return false;
}

/* The key at p: an address of ksize bytes (a uintptr_t, or a 64-bit
 * link-time address, which on a 32-bit machine is wider). */
static inline uint64_t key_at(const unsigned char *p, size_t ksize)
{
	if (ksize == sizeof(uint64_t)) {
		uint64_t k;
		memcpy(&k, p, sizeof k);
		return k;
	}
	uintptr_t k;
	memcpy(&k, p, sizeof k);
	return k;
}

void mt_sort_by_addr(void *base, size_t n, size_t size, size_t off, size_t ksize,
		     int (*cmp)(const void *, const void *))
{
	unsigned char *v = base;
	uint64_t lo = UINT64_MAX, hi = 0, prev = 0;
	bool sorted = true;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(v + i * size + off, ksize);
		sorted = sorted && (!i || prev <= k);
		prev = k;
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	if (sorted)
		return;                       /* tables mostly come in address order */
	unsigned char *tmp = malloc(n * size);
	if (!tmp) {
		qsort(base, n, size, cmp);
		return;
	}
	/* Least significant byte first, up to the highest byte in which two
	 * keys differ: two or three passes for the addresses of one object. */
	unsigned top = 0;
	for (uint64_t d = lo ^ hi; d >> 8; d >>= 8)
		top++;
	unsigned char *src = v, *dst = tmp;
	for (unsigned b = 0; b <= top; b++) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((key_at(src + i * size + off, ksize) >> (8 * b)) & 0xff) + 1]++;
		for (unsigned c = 0; c < 256; c++)
			count[c + 1] += count[c];
		for (size_t i = 0; i < n; i++) {
			uint64_t k = key_at(src + i * size + off, ksize);
			memcpy(dst + count[(k >> (8 * b)) & 0xff]++ * size, src + i * size, size);
		}
		unsigned char *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * size);
	free(tmp);
}
