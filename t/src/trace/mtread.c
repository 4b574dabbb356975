/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtread.c - threads whose traces are read together (t/103).  Each
 * worker, started with the others at a barrier, calls work(I) for I from
 * 0 to CALLS-1 (work calls leaf twice) and counts its calls; the library
 * is preloaded, its API found with dlsym.
 *
 *   mtread burst THREADS CALLS FORMAT
 *       the workers at once, then the trace written to standard output
 *       (mcount_trace_write: FORMAT 0 text, 1 JSON lines, 2 Chrome)
 *   mtread phases CALLS
 *       the workers one after another, 300 ms apart (the output file is
 *       drained between them), under function_graph; then the tracer
 *       switched to function for one more, and back for the last
 *
 * Each worker's count goes to standard error, "TID CALLS", as it ends.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define F __attribute__((noipa))

static long calls;
static pthread_barrier_t start;
static int together;

F long leaf(long x) { return x * 3 + 1; }
F long work(long i) { return leaf(i) + leaf(i + 1); }

F static void *worker(void *arg)
{
	char name[16];
	snprintf(name, sizeof name, "mtread-w%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	if (together)
		pthread_barrier_wait(&start);
	long s = 0, n = 0;
	for (long i = 0; i < calls; i++, n++)
		s += work(i);
	fprintf(stderr, "%ld %ld\n", (long)syscall(SYS_gettid), n);
	return (void *)s;
}

static void run(int first, int n)
{
	pthread_t t[16];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)(first + i));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void nap(void)
{
	struct timespec d = { 0, 300000000 };
	nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
	long (*write_trace)(int, int) = (long (*)(int, int))dlsym(RTLD_DEFAULT, "mcount_trace_write");
	int (*set_tracer)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_set_tracer");
	if (!write_trace || !set_tracer) {
		fprintf(stderr, "mtread: the library's API is not there\n");
		return 2;
	}
	if (argc == 5 && !strcmp(argv[1], "burst")) {
		int n = atoi(argv[2]);
		calls = atol(argv[3]);
		if (n < 1 || n > 16)
			return 2;
		together = 1;
		pthread_barrier_init(&start, NULL, (unsigned)n);
		run(0, n);
		return write_trace(1, atoi(argv[4])) < 0;
	}
	if (argc == 3 && !strcmp(argv[1], "phases")) {
		calls = atol(argv[2]);
		for (int i = 0; i < 3; i++) {
			run(i, 1);
			nap();
		}
		if (set_tracer("function"))
			return 1;
		run(3, 1);
		if (set_tracer("function_graph"))
			return 1;
		run(4, 1);
		return 0;
	}
	fprintf(stderr, "usage: mtread burst THREADS CALLS FORMAT | phases CALLS\n");
	return 2;
}
