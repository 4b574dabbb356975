/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hash_test.c - src/hash.c on its own, for t/34-build-id-hash:
 *
 *   hash_test impl                 which code hashes SHA-1's blocks
 *   hash_test sha1 [-c N] FILE...  each FILE's SHA-1, as sha1sum prints
 *                                  it, the bytes given N at a time
 *   hash_test zeros N...           SHA-1 of N zero bytes (sha1_zeros)
 *   hash_test bench FILE TIMES     FILE hashed TIMES times, then its hash
 *
 * Exit 0, or 2 (usage, an unreadable file).
 */
#define _POSIX_C_SOURCE 200809L
#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex(const unsigned char d[20])
{
	for (unsigned i = 0; i < 20; i++)
		printf("%02x", d[i]);
}

/* the whole file in memory (a byte more, never 0 of them) */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	size_t cap = 4096, n = 0;
	unsigned char *p = malloc(cap);
	for (;;) {
		if (!p) {
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
		n += fread(p + n, 1, cap - n, f);
		if (n < cap)
			break;
		p = realloc(p, cap *= 2);
	}
	if (ferror(f)) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = n;
	return p;
}

static size_t number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end) {
		fprintf(stderr, "hash_test: '%s' is no number\n", s);
		exit(2);
	}
	return (size_t)v;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "impl") == 0) {
		printf("%s\n", sha1_impl());
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "sha1") == 0) {
		int i = 2;
		size_t chunk = 0;
		if (strcmp(argv[i], "-c") == 0 && argc >= 5) {
			chunk = number(argv[i + 1]);
			i += 2;
		}
		for (; i < argc; i++) {
			size_t len;
			unsigned char *p = slurp(argv[i], &len), d[20];
			struct sha1 c;
			sha1_init(&c);
			for (size_t at = 0; at < len;) {
				size_t k = chunk && chunk < len - at ? chunk : len - at;
				sha1_add(&c, p + at, k);
				at += k;
			}
			sha1_end(&c, d);
			hex(d);
			printf("  %s\n", argv[i]);
			free(p);
		}
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "zeros") == 0) {
		for (int i = 2; i < argc; i++) {
			unsigned char d[20];
			struct sha1 c;
			sha1_init(&c);
			sha1_zeros(&c, number(argv[i]));
			sha1_end(&c, d);
			hex(d);
			printf("\n");
		}
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "bench") == 0) {
		size_t len, times = number(argv[3]);
		unsigned char *p = slurp(argv[2], &len), d[20] = { 0 };
		for (size_t t = 0; t < times; t++) {
			struct sha1 c;
			sha1_init(&c);
			sha1_add(&c, p, len);
			sha1_end(&c, d);
		}
		hex(d);
		printf("\n");
		free(p);
		return 0;
	}
	fprintf(stderr, "usage: hash_test impl | sha1 [-c N] FILE... | zeros N... | bench FILE TIMES\n");
	return 2;
}
