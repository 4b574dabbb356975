/* SPDX-License-Identifier: GPL-2.0-or-later */
/* statcount.c - calls of a known structure, each function counting its
 * own calls, for the function profiler where no Perl runs (the booted
 * guests: SysTrace's stat set).  `statcount T R`: worker() in T threads
 * and in main at once, each calling outer() R times and
 * rec(4) once (five calls of rec, one in another); outer() calls mid_a()
 * three times and mid_b() twice, mid_a() calls leaf_a() twice and
 * mid_b() leaf_b() once, each leaf turning a loop of its own.  Every
 * call of outer, mid_a, mid_b, leaf_a and leaf_b is made from inside one
 * of its caller's, so each caller's time holds its callees' (rec's does
 * not add up that way: its calls are one in another).  Printed at the
 * end: "main=1 worker=N outer=N mid_a=N mid_b=N leaf_a=N leaf_b=N
 * rec=N", the counts the functions made themselves (main's the one
 * call the program has). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static atomic_ulong worker_n, outer_n, mid_a_n, mid_b_n, leaf_a_n, leaf_b_n, rec_n;
static int rounds;

/* (a loop whose count the compiler cannot know: the leaves take time) */
static volatile unsigned spin = 300;

NOINLINE void leaf_a(void)
{
	for (volatile unsigned i = 0; i < spin; i++)
		;
	atomic_fetch_add(&leaf_a_n, 1);
}

NOINLINE void leaf_b(void)
{
	for (volatile unsigned i = 0; i < 2 * spin; i++)
		;
	atomic_fetch_add(&leaf_b_n, 1);
}

NOINLINE void mid_a(void)
{
	leaf_a();
	leaf_a();
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&mid_a_n, 1);
}

NOINLINE void mid_b(void)
{
	leaf_b();
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&mid_b_n, 1);
}

NOINLINE void outer(void)
{
	for (int i = 0; i < 3; i++)
		mid_a();
	for (int i = 0; i < 2; i++)
		mid_b();
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&outer_n, 1);
}

NOINLINE int rec(int n)
{
	int r = n > 0 ? rec(n - 1) + 1 : 0;
	/* (no tail call: each call returns through its frame) */
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&rec_n, 1);
	return r;
}

NOINLINE void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++)
		outer();
	rec(4);
	__asm__ volatile("" ::: "memory");
	atomic_fetch_add(&worker_n, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int threads = atoi(argv[1]);
	rounds = atoi(argv[2]);
	if (threads < 0 || threads > 16)
		return 2;
	pthread_t t[16];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	worker(NULL);
	for (int i = 0; i < threads; i++)
		if (pthread_join(t[i], NULL))
			return 1;
	printf("main=1 worker=%lu outer=%lu mid_a=%lu mid_b=%lu leaf_a=%lu leaf_b=%lu rec=%lu\n",
	       atomic_load(&worker_n), atomic_load(&outer_n), atomic_load(&mid_a_n), atomic_load(&mid_b_n),
	       atomic_load(&leaf_a_n), atomic_load(&leaf_b_n), atomic_load(&rec_n));
	return 0;
}
