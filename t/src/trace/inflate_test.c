/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inflate_test.c - rt/inflate.c on its own, for t/85: inflate the zlib
 * stream in the file IN into exactly SIZE bytes, written to OUT.
 *
 *   inflate_test IN SIZE OUT [TIMES]
 *   inflate_test -c IN SIZE
 *
 * Exit 0 (OUT written), 1 (mt_inflate refused the stream: nothing
 * written), 2 (usage, unreadable input).  TIMES > 1 inflates the stream
 * that many times and prints the processor seconds each took, on
 * average.  -c inflates each of the stream's cuts (its first 0, 1, ...
 * bytes, each in memory of just that size) and prints how many were
 * inflated.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool mt_inflate(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen);

/* A copy of n bytes at p in memory of exactly that size. */
static unsigned char *exactly(const unsigned char *p, size_t n)
{
	unsigned char *c = malloc(n ? n : 1);
	for (size_t i = 0; c && i < n; i++)
		c[i] = p[i];
	return c;
}

static int cuts(const unsigned char *in, size_t inlen, size_t size)
{
	unsigned char *out = malloc(size ? size : 1);
	size_t ok = 0;
	if (!out)
		return 2;
	for (size_t k = 0; k < inlen; k++) {
		unsigned char *cut = exactly(in, k);
		if (!cut) {
			free(out);
			return 2;
		}
		ok += mt_inflate(cut, k, out, size);
		free(cut);
	}
	free(out);
	printf("%zu of %zu cuts inflated\n", ok, inlen);
	return 0;
}

int main(int argc, char **argv)
{
	bool cut = argc == 4 && !strcmp(argv[1], "-c");
	argv += cut;
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: inflate_test IN SIZE OUT [TIMES] | -c IN SIZE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	size_t cap = 1 << 16, inlen = 0, k;
	unsigned char *in = malloc(cap);
	while (in && (k = fread(in + inlen, 1, cap - inlen, f)) > 0) {
		inlen += k;
		if (inlen == cap)
			in = realloc(in, cap *= 2);
	}
	fclose(f);
	size_t size = strtoull(argv[2], NULL, 10);
	if (cut) {
		int st = in ? cuts(in, inlen, size) : 2;
		free(in);
		return st;
	}
	long times = argc == 5 ? atol(argv[4]) : 1;
	/* exactly the bytes asked for (ASan sees a write past them), zeros */
	unsigned char *out = calloc(size ? size : 1, 1);
	if (!in || !out || times < 1)
		return 2;
	/* and exactly the stream's bytes: a copy of just inlen */
	unsigned char *exact = exactly(in, inlen);
	free(in);
	if (!exact)
		return 2;
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	bool ok = true;
	for (long i = 0; i < times && ok; i++)
		ok = mt_inflate(exact, inlen, out, size);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	free(exact);
	if (!ok) {
		free(out);
		return 1;
	}
	if (times > 1)
		printf("%.6f\n", ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9) / times);
	f = fopen(argv[3], "wb");
	bool written = f && fwrite(out, 1, size, f) == size;
	if (f && fclose(f))
		written = false;
	free(out);
	return written ? 0 : 2;
}
