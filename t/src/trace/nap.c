/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nap.c - sleeps in a traced function, reading CLOCK_MONOTONIC just
 * before and just after each call (t/78): the trace's times must fall
 * between the program's own readings. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int n = argc > 2 ? atoi(argv[2]) : 3;
	for (int i = 0; i < n; i++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		nap(ms);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%lld.%09ld %lld.%09ld\n", (long long)a.tv_sec, a.tv_nsec, (long long)b.tv_sec, b.tv_nsec);
	}
	return 0;
}
