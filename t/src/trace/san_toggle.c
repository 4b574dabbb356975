/* SPDX-License-Identifier: GPL-2.0-or-later */
/* san_toggle.c - libmcount-trace's own code under ASan and UBSan (t/75):
 * four threads (or argv[2]) call traced functions while the main thread switches
 * filters through the C API (globs, :mod:, notrace, stop), writes the
 * trace out, and a forked child does the same on its own copy.  The
 * sanitizers are the oracle: any error they report fails the run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcount-trace.h"

static atomic_int stop;

__attribute__((noinline)) int work_leaf(int x) { return x * 7 + 3; }
__attribute__((noinline)) int work_mid(int x) { return work_leaf(x) ^ work_leaf(x + 1); }
__attribute__((noinline)) int other_fn(int x) { return x - 5; }

static void *worker(void *arg)
{
	volatile long s = 0;
	while (!atomic_load(&stop))
		for (int i = 0; i < 1000; i++)
			s += work_mid(i) + other_fn(i);
	return arg;
}

static int toggle(int rounds, int fd)
{
	static const char *const on[] = { "work_*", "work_leaf", "*", "other_fn work_mid",
					  "work_*:mod:san_toggle*", "w?rk_[lm]*" };
	for (int i = 0; i < rounds; i++) {
		if (mcount_trace_enable(on[i % 6]) < 0 || mcount_trace_disable(on[(i + 3) % 6]) < 0)
			return 1;
		if (i % 50 == 0 && mcount_trace_write(fd, i % 100 == 0) < 0)
			return 1;
	}
	if (mcount_trace_notrace("other_fn") < 0 || mcount_trace_enable("*") < 0)
		return 1;
	if (mcount_trace_enable("") != -1 || mcount_trace_enable("x:mod:") != -1)
		return 1;             /* no glob: refused */
	return mcount_trace_stop() < 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t t[4];
	if (threads < 0 || threads > 4)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	FILE *null = fopen("/dev/null", "w");
	int rc = toggle(rounds, fileno(null));
	pid_t child = fork();
	if (child == 0)
		_exit(toggle(rounds / 10, fileno(null)));
	int st = 0;
	waitpid(child, &st, 0);
	atomic_store(&stop, 1);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	mcount_trace_enable("work_mid");
	work_mid(1);
	printf("toggles done: %d %d\n", rc, WIFEXITED(st) ? WEXITSTATUS(st) : 128);
	return rc || !WIFEXITED(st) || WEXITSTATUS(st);
}
