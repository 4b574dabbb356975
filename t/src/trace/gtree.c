/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gtree.c - a known call tree for function_graph's filters (t/122),
 * whose every call logs itself: "E NAME DEPTH" at its entry and
 * "X NAME DEPTH NS" at its return (NS: the time it took, by the
 * program's own CLOCK_MONOTONIC), DEPTH its own count of the tree's
 * frames below it.  A round:
 *
 *   top -> a -> b -> c, c   (a calls b 3 times)
 *       -> slow (sleeps MS milliseconds) -> c
 *       -> d -> b -> c, c
 *       -> r(2) -> r(1) -> r(0)
 *
 * gtree LOG ROUNDS [MS [THREADS]]: that many rounds; with ROUNDS 0, a
 * round for each line read from standard input, "done N" written to
 * standard output after it.  With THREADS, that many threads run the
 * rounds at once, each logging to LOG.K (K from 1), its first line
 * "T TID". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static __thread FILE *logf;
static __thread int depth;
static long nap_ms = 30;
static volatile long work;

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#define ENTER(name) long long t0_ = now_ns(); fprintf(logf, "E %s %d\n", name, depth++)
#define LEAVE(name) fprintf(logf, "X %s %d %lld\n", name, --depth, now_ns() - t0_)

__attribute__((noinline, noclone)) void c(void)
{
	ENTER("c");
	work++;
	LEAVE("c");
}

__attribute__((noinline, noclone)) void b(void)
{
	ENTER("b");
	c();
	c();
	LEAVE("b");
}

__attribute__((noinline, noclone)) void a(void)
{
	ENTER("a");
	for (int i = 0; i < 3; i++)
		b();
	LEAVE("a");
}

__attribute__((noinline, noclone)) void slow(void)
{
	ENTER("slow");
	struct timespec t = { nap_ms / 1000, (nap_ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
	c();
	LEAVE("slow");
}

__attribute__((noinline, noclone)) void d(void)
{
	ENTER("d");
	b();
	LEAVE("d");
}

__attribute__((noinline, noclone)) void r(int n)
{
	ENTER("r");
	if (n > 0)
		r(n - 1);
	work += n;
	LEAVE("r");
}

__attribute__((noinline, noclone)) void top(void)
{
	ENTER("top");
	a();
	slow();
	d();
	r(2);
	LEAVE("top");
}

struct job {
	char path[4096];
	int rounds;
};

static void *run_rounds(void *arg)
{
	struct job *j = arg;
	logf = fopen(j->path, "w");
	if (!logf)
		exit(1);
	setvbuf(logf, NULL, _IOLBF, 0);
	fprintf(logf, "T %ld\n", (long)gettid());
	for (int i = 0; i < j->rounds; i++)
		top();
	fclose(logf);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	logf = fopen(argv[1], "w");
	if (!logf)
		return 1;
	setvbuf(logf, NULL, _IOLBF, 0);
	int rounds = atoi(argv[2]);
	if (argc > 3)
		nap_ms = atol(argv[3]);
	int nthreads = argc > 4 ? atoi(argv[4]) : 0;
	if (nthreads > 0 && rounds > 0) {
		pthread_t t[64];
		static struct job jobs[64];
		if (nthreads > 64)
			return 2;
		for (int i = 0; i < nthreads; i++) {
			snprintf(jobs[i].path, sizeof jobs[i].path, "%s.%d", argv[1], i + 1);
			jobs[i].rounds = rounds;
			if (pthread_create(&t[i], NULL, run_rounds, &jobs[i]))
				return 1;
		}
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (rounds > 0) {
		for (int i = 0; i < rounds; i++)
			top();
		return 0;
	}
	char line[64];
	for (int n = 1; fgets(line, sizeof line, stdin); n++) {
		fprintf(logf, "R %d\n", n);
		top();
		printf("done %d\n", n);
		fflush(stdout);
	}
	return 0;
}
