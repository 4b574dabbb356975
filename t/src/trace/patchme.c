/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patchme.c - a server with a bug, to be patched while it serves.
 *
 * Four threads answer queries with answer(), which should give x * 2
 * and gives x * 2 + 1.  SIGUSR1 moves the program to its next step: 1
 * (the test has patched answer), 2 (it has unpatched it), 3 (quit).
 * Each answer is checked by the thread that asked: x * 2 (new) or
 * x * 2 + 1 (old), nothing else; and a query asked and answered within
 * one step must have that step's answer: the old one at steps 0 and 2,
 * the new one at step 1.  Prints "ready", then at the end
 * "answers N old N new N wrong N" and exits 1 if any was wrong.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NI __attribute__((no_instrument_function))
#define NT 4

static atomic_int step;
static int always_old;
static atomic_int done;
static _Atomic unsigned long answers, olds, news, wrong;

__attribute__((noinline)) unsigned long answer(unsigned long x)
{
	return x * 2 + 1;
}

NI static void next_step(int sig)
{
	(void)sig;
	atomic_fetch_add(&step, 1);
}

NI static void *serve(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg * 1000003;
	while (!atomic_load_explicit(&done, memory_order_relaxed)) {
		int s0 = atomic_load(&step);
		unsigned long r = answer(++x);
		int s1 = atomic_load(&step);
		int is_new = r == x * 2, is_old = r == x * 2 + 1;
		atomic_fetch_add_explicit(&answers, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(is_new ? &news : &olds, 1, memory_order_relaxed);
		bool settled = s0 == s1 && !(s0 & 1) && !always_old;
		if ((!is_new && !is_old) || (always_old && !is_old) || (settled && (s0 == 2 ? !is_new : !is_old)))
			atomic_fetch_add_explicit(&wrong, 1, memory_order_relaxed);
	}
	return NULL;
}

NI int main(int argc, char **argv)
{
	always_old = argc > 1 && !strcmp(argv[1], "old");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = next_step;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, serve, (void *)(size_t)i);
	printf("ready\n");
	fflush(stdout);
	struct timespec ms = { 0, 1000000 };
	for (int seen = 0; seen < 5;) {
		nanosleep(&ms, NULL);
		int now = atomic_load(&step);
		for (; seen < now; seen++)
			printf("step %d\n", seen + 1);
		fflush(stdout);
	}
	atomic_store(&done, 1);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("answers %lu old %lu new %lu wrong %lu\n", (unsigned long)answers, (unsigned long)olds,
	       (unsigned long)news, (unsigned long)wrong);
	return wrong ? 1 : 0;
}
