/* SPDX-License-Identifier: GPL-2.0-or-later */
/* protocol.c - a program driven line by line on its standard input, for
 * the control protocol's test (t/104): it keeps its own count of the
 * calls of each of its functions and says what they were given and
 * returned, so that the trace the control socket shows can be checked
 * against the program itself.
 *
 *   start       prints "main 0xADDR" (main's address, for the load bias)
 *   run N       k = 1..N: p_alpha(k), p_beta(k, 3k), p_gamma(k) (which
 *               calls p_delta(k) twice); prints "ran N", then a line
 *               "NAME CALLS" per function since the start
 *   quit        exits 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

static long n_alpha, n_beta, n_gamma, n_delta;
static volatile long sink;

NOINLINE long p_alpha(long k)
{
	n_alpha++;
	sink += k;
	return 2 * k + 1;
}

NOINLINE long p_beta(long a, long b)
{
	n_beta++;
	sink += a + b;
	return a * b;
}

NOINLINE long p_delta(long k)
{
	n_delta++;
	sink ^= k;
	return k - 1;
}

NOINLINE long p_gamma(long k)
{
	n_gamma++;
	return p_delta(k) + p_delta(k + 1);
}

int main(void)
{
	char line[256];
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		if (!strcmp(line, "start\n")) {
			printf("main %p\n", (void *)main);
		} else if (!strncmp(line, "run ", 4)) {
			long n = atol(line + 4);
			for (long k = 1; k <= n; k++) {
				p_alpha(k);
				p_beta(k, 3 * k);
				p_gamma(k);
			}
			printf("ran %ld\n", n);
			printf("p_alpha %ld\np_beta %ld\np_gamma %ld\np_delta %ld\n", n_alpha, n_beta, n_gamma, n_delta);
		} else if (!strcmp(line, "quit\n")) {
			return 0;
		}
		fflush(stdout);
	}
	return 0;
}
