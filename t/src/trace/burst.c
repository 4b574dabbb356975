/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burst.c THREADS CALLS - THREADS threads call work() CALLS times each,
 * as fast as they can: far more events than a small buffer holds and
 * than the trace can be written out as they come.  Prints the calls
 * made and a sum the plain build prints too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long calls;

__attribute__((noinline)) long work(long x)
{
	__asm__ volatile("");
	return x + 1;
}

static void *worker(void *arg)
{
	long s = 0;
	for (long i = 0; i < calls; i++)
		s = work(s);
	*(long *)arg = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	calls = argc > 2 ? atol(argv[2]) : 100000;
	pthread_t t[64];
	long sum[64], total = 0;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, &sum[i]))
			return 1;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += sum[i];
	}
	printf("calls %ld\n", total);
	return 0;
}
