/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program to attach to (t/111-trace-attach.t): built with -pg
 * -mfentry and run plainly, it counts its own calls and signals.
 *
 *   attachee CMD_FIFO REPLY_FIFO
 *
 * 4 workers wait for a round; a spinner calls spin() all the time;
 * SIGALRM comes every 2 ms (setitimer) and SIGRTMIN when the test
 * sends it (queued: none merged), each counted by its handler
 * (SA_RESTART: no call of the program's may fail with EINTR, and any
 * failure of a read or write is an error, exit 3).  Commands, a line
 * each on CMD_FIFO, answered with a line on REPLY_FIFO:
 *   run N   each worker calls work() N times, which calls leaf(): "done
 *           work=W leaf=L" (the counts of this round, by the functions)
 *   sigs    "sigs rt=R alarm=A"
 *   hold MS a thread enters dl_iterate_phdr, whose callback sleeps MS
 *           ms holding the dynamic linker's lock of its list of
 *           objects, which dlopen takes: "holding" once it is in.  The
 *           thread blocks every signal but SIGTRAP (the library's), so
 *           that no handler runs on it: its clock_nanosleep never
 *           returns EINTR (nor restarts after a handler), and one
 *           that does is an error (a sleep interrupted by a stop and
 *           not restarted)
 *   held    (after a hold) waits for it to end: "held N ms", N the
 *           time it slept, by CLOCK_MONOTONIC
 *   quit    the threads end; "bye"; on stdout the totals, exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4

static atomic_long work_calls, leaf_calls, spin_calls, total_work;
static atomic_long rt_sigs, alarms;
static atomic_int stop_spin;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static long round_no, round_n, finished;
static int quitting;

__attribute__((noinline)) void leaf(int i)
{
	atomic_fetch_add(&leaf_calls, 1);
	__asm__ volatile("" : : "r"(i) : "memory");
}

__attribute__((noinline)) void work(int i)
{
	atomic_fetch_add(&work_calls, 1);
	leaf(i);
}

__attribute__((noinline)) void spin(void)
{
	atomic_fetch_add(&spin_calls, 1);
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	long seen = 0;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (round_no == seen && !quitting)
			pthread_cond_wait(&cv, &mu);
		if (quitting) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		seen = round_no;
		long n = round_n;
		pthread_mutex_unlock(&mu);
		for (long k = 0; k < n; k++)
			work(me);
		pthread_mutex_lock(&mu);
		finished++;
		pthread_cond_signal(&done_cv);
		pthread_mutex_unlock(&mu);
	}
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_spin))
		spin();
	return NULL;
}

static long hold_ms, held_ms;
static int holding;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;

static long ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int hold_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(void)data;
	pthread_mutex_lock(&mu);
	holding = 1;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&mu);
	long t0 = ms_now();
	struct timespec d = { hold_ms / 1000, hold_ms % 1000 * 1000000 };
	int e = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	if (e) {
		errno = e;
		perror("attachee: clock_nanosleep");
		exit(3);
	}
	pthread_mutex_lock(&mu);
	held_ms = ms_now() - t0;
	holding = 2;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&mu);
	return 1;                 /* (the first object only) */
}

static void *holder(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	dl_iterate_phdr(hold_cb, NULL);
	return NULL;
}

static void on_rt(int sig) { (void)sig; atomic_fetch_add(&rt_sigs, 1); }
static void on_alarm(int sig) { (void)sig; atomic_fetch_add(&alarms, 1); }

static void fail(const char *what)
{
	fprintf(stderr, "attachee: %s: %s\n", what, strerror(errno));
	exit(3);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: attachee CMD_FIFO REPLY_FIFO\n");
		return 2;
	}
	struct sigaction sa = { .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_rt;
	sigaction(SIGRTMIN, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	pthread_t w[WORKERS], s;
	for (long i = 0; i < WORKERS; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)i))
			fail("pthread_create");
	if (pthread_create(&s, NULL, spinner, NULL))
		fail("pthread_create");
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	FILE *in = fopen(argv[1], "r");
	if (!in)
		fail(argv[1]);
	FILE *out = fopen(argv[2], "w");
	if (!out)
		fail(argv[2]);
	setvbuf(out, NULL, _IOLBF, 0);
	char line[128];
	for (;;) {
		errno = 0;
		if (!fgets(line, sizeof line, in)) {
			if (ferror(in))
				fail("read");
			break;            /* (the test closed its end) */
		}
		long n;
		if (sscanf(line, "run %ld", &n) == 1) {
			long w0 = atomic_load(&work_calls), l0 = atomic_load(&leaf_calls);
			pthread_mutex_lock(&mu);
			finished = 0;
			round_n = n;
			round_no++;
			pthread_cond_broadcast(&cv);
			while (finished < WORKERS)
				pthread_cond_wait(&done_cv, &mu);
			pthread_mutex_unlock(&mu);
			long dw = atomic_load(&work_calls) - w0;
			atomic_fetch_add(&total_work, dw);
			if (fprintf(out, "done work=%ld leaf=%ld\n", dw, atomic_load(&leaf_calls) - l0) < 0)
				fail("write");
		} else if (!strncmp(line, "sigs", 4)) {
			if (fprintf(out, "sigs rt=%ld alarm=%ld\n", atomic_load(&rt_sigs), atomic_load(&alarms)) < 0)
				fail("write");
		} else if (sscanf(line, "hold %ld", &n) == 1) {
			pthread_t h;
			pthread_mutex_lock(&mu);
			hold_ms = n;
			holding = 0;
			pthread_mutex_unlock(&mu);
			if (pthread_create(&h, NULL, holder, NULL))
				fail("pthread_create");
			pthread_detach(h);
			pthread_mutex_lock(&mu);
			while (holding < 1)
				pthread_cond_wait(&hold_cv, &mu);
			pthread_mutex_unlock(&mu);
			if (fprintf(out, "holding\n") < 0)
				fail("write");
		} else if (!strncmp(line, "held", 4)) {
			pthread_mutex_lock(&mu);
			while (holding < 2)
				pthread_cond_wait(&hold_cv, &mu);
			pthread_mutex_unlock(&mu);
			if (fprintf(out, "held %ld ms\n", held_ms) < 0)
				fail("write");
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	pthread_mutex_lock(&mu);
	quitting = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	atomic_store(&stop_spin, 1);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(s, NULL);
	fprintf(out, "bye\n");
	fclose(out);
	printf("work calls: %ld\nleaf calls: %ld\n", atomic_load(&total_work), atomic_load(&leaf_calls));
	return 0;
}
