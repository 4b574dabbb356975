/* SPDX-License-Identifier: GPL-2.0-or-later */
/* toggle.c - switching sites live while other threads run them (t/79).
 * NT workers call hot_b (which calls hot_a) and cold in a loop; main, built
 * with -DWITH_API and libmcount-trace.a, switches hot_* on and off through
 * the C API:
 *   1. RAPID times on and off without waiting: the sites change under the
 *      workers' feet; the events go to $TOGGLE_DIR/rapid.json;
 *   2. ROUNDS rounds that each show the change reached every worker:
 *      enable; each worker runs 3 more loops; events to on-R.json;
 *      disable; each worker runs 3 more loops (a call that had passed the
 *      site before the change finishes); the events to settle-R.json;
 *      each worker runs 3 more loops; the events to off-R.json, which
 *      must be empty.
 * A SIGTRAP handler of the program's own handles a brk and a raise()
 * meanwhile.  Each worker's sum covers its first LOOPS loops; the output
 * (sums, traps) is that of a build without -pg and without the API.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#ifdef WITH_API
#include "mcount-trace.h"
#endif

#define F __attribute__((noipa))
#define NT 3
#define LOOPS 20000L
#define RAPID 200
#define ROUNDS 8

F long hot_a(long x) { return x * 7 + 3; }
F long hot_b(long x) { return (x ^ 0x55) + hot_a(x); }
F long cold(long x) { return x - 1; }

static _Atomic long loops[NT];
static atomic_int stop;
static long sums[NT];
static volatile sig_atomic_t traps;

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	long s = 0;
	for (long n = 0; n < LOOPS || !atomic_load(&stop); n++) {
		long v = hot_b(n) + cold(n);
		if (n < LOOPS)
			s += v;
		atomic_store(&loops[i], n + 1);
	}
	sums[i] = s;
	return NULL;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	traps++;
	if (si->si_code != SI_TKILL && si->si_code != SI_USER) {
		ucontext_t *uc = ucv;
		uc->uc_mcontext.pc += 4;        /* past the brk */
	}
}

#ifdef WITH_API
/* Until every worker has run K more loops. */
static void progress(int k)
{
	long at[NT];
	for (int i = 0; i < NT; i++)
		at[i] = atomic_load(&loops[i]);
	for (int i = 0; i < NT; i++)
		while (atomic_load(&loops[i]) < at[i] + k) {
			struct timespec d = { 0, 100000 };
			nanosleep(&d, NULL);
		}
}

static void dump(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s.json", getenv("TOGGLE_DIR"), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || mcount_trace_write(fd, 1) < 0) {
		perror(path);
		exit(4);
	}
	close(fd);
}

static void must(int r, const char *what)
{
	if (r != 2) {
		fprintf(stderr, "toggle: %s switched %d functions, not 2\n", what, r);
		exit(3);
	}
}
#endif

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
#ifdef WITH_API
	for (int r = 0; r < RAPID; r++) {
		must(mcount_trace_enable("hot_*"), "enable");
		if (r == RAPID / 2) {
			__asm__ volatile("brk #7");
			raise(SIGTRAP);
		}
		must(mcount_trace_disable("hot_*"), "disable");
	}
	progress(3);
	dump("rapid");
	for (int r = 0; r < ROUNDS; r++) {
		char name[32];
		must(mcount_trace_enable("hot_*"), "enable");
		progress(3);
		snprintf(name, sizeof name, "on-%d", r);
		dump(name);
		must(mcount_trace_disable("hot_*"), "disable");
		progress(3);
		snprintf(name, sizeof name, "settle-%d", r);
		dump(name);
		progress(3);
		snprintf(name, sizeof name, "off-%d", r);
		dump(name);
	}
#else
	__asm__ volatile("brk #7");
	raise(SIGTRAP);
#endif
	atomic_store(&stop, 1);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NT; i++)
		printf("worker %d sum %ld\n", i, sums[i]);
	printf("traps %d\n", (int)traps);
	return 0;
}
