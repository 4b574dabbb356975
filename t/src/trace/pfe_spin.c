/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfe_spin.c - threads that spend their time in GCC's
 * -fpatchable-function-entry=5 runs of 0x90 (t/113-trace-patchable.t):
 * the main thread and four others call hot() in a loop, so that a thread
 * stopped by mcount-trace attach is often inside a run, until the file
 * $1 exists (and it has made 100,000 calls); then each thread's calls
 * are checked (every call of hot counted by its return value) and
 * "ok N" printed.  A run rewritten
 * while a thread was inside it would have that thread execute the
 * middle of an instruction. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define F __attribute__((noipa))
#define MIN_CALLS 100000

static atomic_int stop;
static const char *stop_file;

F long hot(long x) { return x + 1; }

static void *spin(void *arg)
{
	long n = 0, calls = 0;
	/* (MIN_CALLS at least: a thread a loaded machine gave no time
	 * before the stop still shows its count) */
	while (!atomic_load_explicit(&stop, memory_order_relaxed) || calls < MIN_CALLS) {
		n = hot(n);
		calls++;
	}
	*(long *)arg = n == calls ? calls : -1;
	return NULL;
}

static void *watch(void *arg)
{
	(void)arg;
	while (access(stop_file, F_OK)) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	enum { N = 5 };
	pthread_t w, t[N - 1];
	long r[N];
	if (argc != 2)
		return 2;
	stop_file = argv[1];
	if (pthread_create(&w, NULL, watch, NULL))
		return 2;
	for (int i = 0; i < N - 1; i++)
		if (pthread_create(&t[i], NULL, spin, &r[i]))
			return 2;
	spin(&r[N - 1]);
	pthread_join(w, NULL);
	int good = 0;
	for (int i = 0; i < N; i++) {
		if (i < N - 1)
			pthread_join(t[i], NULL);
		good += r[i] > 0;
	}
	printf("ok %d\n", good);
	return good == N ? 0 : 1;
}
