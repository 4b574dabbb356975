/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stress.c - t/72-trace-stress.t: THREADS threads call f0..f7 in tight
 * loops while the code of those functions is switched between NOP and
 * call, and the program's own SIGTRAP handler counts every trap that
 * reaches it (none may: each trap at a site being patched is the
 * library's).
 *
 *   stress api TOGGLES [THREADS]   main toggles TOGGLES times through the
 *                                  C API (mcount_trace_enable/disable)
 *   stress wait FILE [THREADS]     write "ready" to FILE.ready, run until
 *                                  FILE exists (someone else toggles)
 *   stress churn N                 N threads one after the other, each
 *                                  calling f0 once; prints "rss=KB" (the
 *                                  resident memory at the end) and exits
 *
 * With STRESS_BLOCK_ALL set, the workers block every signal first.
 * Prints "calls=N traps=N errors=N" and "check=N" (a sum the test
 * compares with the plain build's, computed again without the threads:
 * the functions must still compute what they compute).  Works preloaded
 * (the API is looked up weakly, or through dlsym where the link made the
 * weak references 0) and linked with libmcount-trace.a.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mcount_trace_enable(const char *) __attribute__((weak));
int mcount_trace_disable(const char *) __attribute__((weak));

#define F __attribute__((noipa))
F long f0(long x) { return x + 1; }
F long f1(long x) { return x ^ 0x55; }
F long f2(long x) { return f0(x) * 3; }
F long f3(long x) { return x - 7; }
F long f4(long x, double d) { return x + (long)(d * 2.0); }
F long f5(long a, long b, long c, long d, long e, long f) { return a + b + c + d + e + f; }
F long f6(long x) { return f1(f3(x)); }
F long f7(long x) { return x >> 1; }

static atomic_int stop;
static atomic_long traps, calls;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	atomic_fetch_add(&traps, 1);
}

F static long round_of(long i)
{
	return f0(i) + f1(i) + f2(i) + f3(i) + f4(i, 0.25 * (double)i) + f5(i, 1, 2, 3, 4, 5) + f6(i) + f7(i);
}

static void *worker(void *arg)
{
	long n = 0, s = 0, i = (long)(intptr_t)arg;
	if (getenv("STRESS_BLOCK_ALL")) {
		/* As many programs' worker threads do: no signal here. */
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	}
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long r = round_of(i);
		/* The same sum without the functions: a hook that clobbered a
		 * register would show here. */
		long want = (i + 1) + (i ^ 0x55) + (i + 1) * 3 + (i - 7) + (i + (long)(0.5 * (double)i))
			+ (i + 15) + ((i - 7) ^ 0x55) + (i >> 1);
		if (r != want) {
			fprintf(stderr, "stress: thread %ld: round_of(%ld) = %ld, not %ld\n", (long)(intptr_t)arg, i, r, want);
			abort();
		}
		s += r;
		n++;
		i = (i + 1) & 0xffff;
	}
	atomic_fetch_add(&calls, n * 10);
	return (void *)(intptr_t)s;
}

static const char *const globs[] = { "f*", "f0,f3", "f[1-4]", "f5 f6 f7", "f?", "f2:mod:stress" };

static void *once(void *arg)
{
	return (void *)f0((long)(intptr_t)arg);
}

static int churn(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, NULL, once, (void *)(intptr_t)i) || pthread_join(t, &r))
			return 1;
		if ((long)(intptr_t)r != i + 1)
			return 1;
	}
	FILE *f = fopen("/proc/self/status", "r");
	char l[256];
	while (f && fgets(l, sizeof l, f))
		if (!strncmp(l, "VmRSS:", 6))
			printf("rss=%ld\n", atol(l + 6));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return churn(atol(argv[2]));
	if (argc < 3) {
		fprintf(stderr, "usage: stress api TOGGLES [THREADS] | stress wait FILE [THREADS]\n");
		return 2;
	}
	int nthreads = argc > 3 ? atoi(argv[3]) : 8;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL)) {
		perror("sigaction");
		return 1;
	}
	pthread_t t[64];
	for (int i = 0; i < nthreads && i < 64; i++) {
		char name[16];
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i * 1000))) {
			perror("pthread_create");
			return 1;
		}
		snprintf(name, sizeof name, "hammer%d", i);
		pthread_setname_np(t[i], name);
	}
	long errors = 0;
	if (!strcmp(argv[1], "api")) {
		long n = atol(argv[2]);
		/* A weak reference is 0 in a program linked -no-pie: ask ld.so. */
		int (*on)(const char *) = mcount_trace_enable, (*off)(const char *) = mcount_trace_disable;
		if (!on || !off) {
			on = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_enable");
			off = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_disable");
		}
		if (n && (!on || !off)) {
			fprintf(stderr, "stress: no libmcount-trace\n");
			return 1;
		}
		for (long i = 0; i < n; i++) {
			const char *g = globs[(i / 2) % (sizeof globs / sizeof globs[0])];
			int r = i % 2 ? off(g) : on(g);
			if (r < 0)
				errors++;
		}
		if (n)
			off("*");
	} else {
		char ready[4096];
		snprintf(ready, sizeof ready, "%s.ready", argv[2]);
		FILE *f = fopen(ready, "w");
		if (!f || fputs("ready\n", f) < 0 || fclose(f))
			return 1;
		while (access(argv[2], F_OK))
			usleep(10000);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < nthreads && i < 64; i++)
		pthread_join(t[i], NULL);
	long check = 0;
	for (long i = 0; i < 1000; i++)
		check += round_of(i);
	printf("calls=%ld traps=%ld errors=%ld\ncheck=%ld\n", atomic_load(&calls), atomic_load(&traps), errors, check);
	return 0;
}
