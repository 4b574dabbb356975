/* SPDX-License-Identifier: GPL-2.0-or-later */
/* graph_stress.c - the function_graph tracer under load (t/78): threads
 * recurse through traced functions while the main thread switches the
 * tracer between function and function_graph and the filters on and off
 * through the C API (found with dlsym: the library is preloaded), and a
 * profiling timer's signal handler runs traced code in the middle of
 * everything (inside the hooks too).  Each thread checks what it
 * computed; a frame that returned anywhere but home would show.
 * Usage: graph_stress MILLISECONDS [THREADS]; prints one line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define F __attribute__((noipa))

static atomic_int stop;
static atomic_long bad, handled;

F long g_leaf(long x) { return x * 3 + 1; }
F long g_rec(int n) { return n ? g_rec(n - 1) + g_leaf(n) : 0; }
F double g_fp(double a, long double b) { return a * 2.0 + (double)(b / 4.0L); }
F long double g_ld(long double x) { return x * 1.5L; }

static long want_rec(int n) { long s = 0; for (int i = 1; i <= n; i++) s += i * 3 + 1; return s; }

F static void on_prof(int s)
{
	(void)s;
	if (g_leaf(5) != 16)
		atomic_fetch_add(&bad, 1);
	atomic_fetch_add(&handled, 1);
}

F static void *worker(void *arg)
{
	long id = (long)arg;
	while (!atomic_load(&stop)) {
		for (int n = 0; n < 10; n++) {
			if (g_rec(n) != want_rec(n))
				atomic_fetch_add(&bad, 1);
			if (g_fp(1.25, 2.0L) != 3.0 || g_ld(2.0L) != 3.0L)
				atomic_fetch_add(&bad, 1);
		}
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
	return (void *)id;
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 1000;
	int nt = argc > 2 ? atoi(argv[2]) : 3;
	int (*set_tracer)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_set_tracer");
	int (*enable)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_enable");
	int (*disable)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_disable");
	if (!set_tracer || !enable || !disable) {
		fprintf(stderr, "graph_stress: the library's API is not there\n");
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	setitimer(ITIMER_PROF, &it, NULL);
	pthread_t t[8];
	if (nt < 1 || nt > 8)
		return 2;
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	int errs = 0;
	for (long i = 0;; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec + (end.tv_nsec >= 1000000000L) ||
		    (now.tv_sec == end.tv_sec + (end.tv_nsec >= 1000000000L) && now.tv_nsec >= end.tv_nsec % 1000000000L))
			break;
		errs += set_tracer(i % 3 ? "function_graph" : "function") != 0;
		errs += (i % 2 ? disable("g_rec g_leaf") : enable("g_*")) < 0;
		struct timespec d = { 0, 200000 };
		nanosleep(&d, NULL);
	}
	errs += set_tracer("function_graph") != 0;
	errs += enable("g_*") < 0;
	atomic_store(&stop, 1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	printf("stress done: bad %ld api errors %d signals %s\n", atomic_load(&bad), errs,
	       atomic_load(&handled) > 0 ? "handled" : "none");
	return 0;
}
