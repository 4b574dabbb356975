/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spread.c - calls of spread, known durations, for the function
 * profiler's min, max and percentiles: `spread N` calls spin() N times,
 * each spinning a number of iterations drawn from a fixed sequence
 * (from 20,000 to 2.56 million, about two and a half decades, the same
 * in every run), and times each call itself with CLOCK_MONOTONIC read
 * just before and just after it; then none(), which does nothing, 1000
 * times, timed the same way: what a traced call costs as the program
 * sees it.  It prints, in ns,
 *   spin calls=N min=A p50=B p90=C p99=D max=E
 *   none calls=1000 min=A p50=B p90=C p99=D max=E
 * the percentiles by nearest rank (the k-th shortest call, k = ceil(q N
 * / 100)), as mcount-trace report gives them.  `spread forever`: the
 * same calls of spin() until killed, untimed. */
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) unsigned long spin(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}

__attribute__((noinline)) void none(void)
{
	__asm__ volatile("");
}

static uint64_t now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void say(const char *name, uint64_t *d, size_t n)
{
	static const unsigned q[3] = { 50, 90, 99 };
	uint64_t p[3];
	qsort(d, n, sizeof *d, cmp);
	for (int i = 0; i < 3; i++)
		p[i] = d[(q[i] * n + 99) / 100 - 1];
	printf("%s calls=%zu min=%llu p50=%llu p90=%llu p99=%llu max=%llu\n", name, n, (unsigned long long)d[0],
	       (unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2],
	       (unsigned long long)d[n - 1]);
}

int main(int argc, char **argv)
{
	bool forever = argc > 1 && !strcmp(argv[1], "forever");
	size_t n = forever ? 1000 : argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	if (!n)
		return 2;
	uint64_t *d = malloc((n > 1000 ? n : 1000) * sizeof *d);
	if (!d)
		return 1;
	uint64_t x = 12345;
	unsigned long sink = 0;
	for (size_t i = 0; i < n; i += !forever) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		unsigned long iters = (20000 + (unsigned long)(x >> 33) % 20000) << (unsigned)((x >> 20) % 7);
		uint64_t t0 = now();
		sink += spin(iters);
		uint64_t t1 = now();
		d[i] = t1 - t0;
	}
	say("spin", d, n);
	for (size_t i = 0; i < 1000; i++) {
		uint64_t t0 = now();
		none();
		uint64_t t1 = now();
		d[i] = t1 - t0;
	}
	say("none", d, 1000);
	free(d);
	return sink == 1;    /* (never: the spins are done) */
}
