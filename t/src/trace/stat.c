/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stat.c - calls of known counts and times, for the function profiler:
 * `stat N`: top() N times, each calling mid(3) and mid(2), mid(n)
 * calling leaf() n times, leaf() sleeping 2 ms; `stat forever`: the
 * same until killed.
 *
 * Deep calls, each function counting its own returns, printed at the
 * end as "down=N step=N leaf=N climb=N dive=N left=N":
 *   stat deep N [T]   down(N): N + 1 calls of down, one in another,
 *       each calling step() before the next and after it returns, the
 *       last calling leaf() (so every down's time holds leaf's 2 ms);
 *       with T, in T threads one after another (each its own stack).
 *   stat jump N K     K times dive(N), whose last call longjmps back to
 *       main (no dive returns: left counts its N + 1 calls); then
 *       down(10).
 *   stat mid N J      climb(N), whose call climb(J) calls setjmp and
 *       goes on, the last call (climb(0)) longjmping back there: the
 *       J calls under climb(J) are left, the others return; then
 *       down(10). */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_ulong down_n, step_n, leaf_n, climb_n, dive_n;
static unsigned long left_n;
static jmp_buf jb;

__attribute__((noinline)) void leaf(void)
{
	struct timespec t = { 0, 2000000 };
	while (nanosleep(&t, &t))
		;
	atomic_fetch_add(&leaf_n, 1);
}

__attribute__((noinline)) void mid(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

__attribute__((noinline)) int top(void)
{
	mid(3);
	mid(2);
	return 0;
}

__attribute__((noinline)) void step(void)
{
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&step_n, 1);
}

__attribute__((noinline)) int down(int n)
{
	int r = 0;
	step();
	if (n == 0)
		leaf();
	else
		r = down(n - 1) + 1;
	step();
	/* (no tail call, no loop: each call returns through its frame) */
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&down_n, 1);
	return r;
}

__attribute__((noinline)) void dive(int n)
{
	if (n < 0)
		return;               /* (never: it would not be left) */
	if (n == 0)
		longjmp(jb, 1);
	dive(n - 1);
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&dive_n, 1);
}

__attribute__((noinline)) void climb(int n, int j)
{
	if (n == 0)
		longjmp(jb, 1);
	if (n != j) {
		climb(n - 1, j);
	} else if (!setjmp(jb)) {
		climb(n - 1, j);
	}
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&climb_n, 1);
}

static int deep_n;

__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	down(deep_n);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 2) {
		int n = atoi(argv[2]), k = argc > 3 ? atoi(argv[3]) : 0;
		if (!strcmp(argv[1], "deep") && k > 0) {
			deep_n = n;
			for (int i = 0; i < k; i++) {
				pthread_t t;
				if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
					return 1;
			}
		} else if (!strcmp(argv[1], "deep")) {
			down(n);
		} else if (!strcmp(argv[1], "jump")) {
			for (volatile int i = 0; i < k; i++)
				if (!setjmp(jb))
					dive(n);
				else
					left_n += (unsigned long)n + 1;
			down(10);
		} else if (!strcmp(argv[1], "mid")) {
			climb(n, k);
			left_n = (unsigned long)k;
			down(10);
		} else {
			return 2;
		}
		printf("down=%lu step=%lu leaf=%lu climb=%lu dive=%lu left=%lu\n", atomic_load(&down_n),
		       atomic_load(&step_n), atomic_load(&leaf_n), atomic_load(&climb_n), atomic_load(&dive_n),
		       left_n);
		return 0;
	}
	int n = argc > 1 && strcmp(argv[1], "forever") ? atoi(argv[1]) : -1;
	for (int i = 0; n < 0 || i < n; i++)
		top();
	return 0;
}
