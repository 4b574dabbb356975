/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program to attach to and detach from, again and again
 * (t/112-trace-attach-cycles.t): built with -pg -mfentry (or
 * -mnop-mcount -mrecord-mcount) and run plainly, it checks its own
 * signals and traps.
 *
 *   cycler CMD_FIFO REPLY_FIFO   the program
 *   cycler send PID US STOPFILE  a sender: SIGRTMIN+1 to PID by
 *                                sigqueue every US microseconds, its
 *                                value the number of the signal (0, 1,
 *                                ...), until STOPFILE exists; then the
 *                                number sent on stdout
 *
 * The program: 8 workers call work_a() (which calls work_b()) all the
 * time, each call counted by the functions; a POSIX timer expires every
 * millisecond (SIGALRM, each expiration counted: 1 + si_overrun a
 * signal); each SIGRTMIN+1 marks its value in a table (a value seen
 * twice is a signal handled twice); SIGTRAP, which only a stray
 * breakpoint raises in this program, is counted.  Every handler is
 * SA_RESTART: a read or write that fails is an error (exit 3).
 * Commands, a line each on CMD_FIFO, answered with a line on REPLY_FIFO:
 *   stats   "calls=N b=M rt=R timer=T traps=S"
 *   fence   the workers stop before their next call and wait: "fenced"
 *   round N (fenced) each worker calls work_a N times and waits again:
 *           "round a=A b=B", the calls of this round by the functions
 *   go      the workers go on: "going"
 *   hold MS a thread calls malloc, which sleeps MS ms holding the lock
 *           of the program's own allocator (malloc, free, calloc,
 *           realloc: the C library's, under that lock), which dlopen
 *           and libmcount-trace's start-up take: "holding" once it is
 *           in.  The thread blocks every signal but SIGTRAP: its
 *           clock_nanosleep never returns EINTR, and one that does is
 *           an error (a sleep interrupted by a stop, not restarted)
 *   held    (after a hold) waits for it to end: "held N ms", N the
 *           time it slept, by CLOCK_MONOTONIC
 *   quit N  N: the number of SIGRTMIN+1 sent (all are queued, once
 *           the sender said its number: sigqueue queues each); once
 *           they are handled and a timer's handler has counted every
 *           expiration due by its time (10 s at most), the timer
 *           stopped, the threads end; "bye", and on stdout the
 *           verdicts, which must read the same in every run:
 *             workers: 8, each called work_a
 *             rt signals: each sent handled once
 *             timer: every expiration counted
 *             stray traps: none
 *           (or what was wrong, in numbers), exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 8
#define RT_MAX (1 << 22)

static atomic_long a_calls, b_calls;
static atomic_long per_worker[WORKERS];
static atomic_long rt_sigs, rt_twice, rt_out_of_range, expirations, traps;
static _Atomic unsigned char rt_seen[RT_MAX];
static atomic_int quitting, fence_on;
static atomic_long budget[WORKERS];
static atomic_int parked[WORKERS];

__attribute__((noinline)) void work_b(int i)
{
	atomic_fetch_add(&b_calls, 1);
	__asm__ volatile("" : : "r"(i) : "memory");
}

__attribute__((noinline)) void work_a(int i)
{
	atomic_fetch_add(&a_calls, 1);
	work_b(i);
}

/* ---- the program's own allocator: the C library's under a lock ---- */

static __thread long sleep_in_malloc;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static long held_ms;
static int holding;

static long ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

__attribute__((unused)) static void held_sleep(void)
{
	long ms = sleep_in_malloc;
	sleep_in_malloc = 0;
	pthread_mutex_lock(&mu);
	holding = 1;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&mu);
	long t0 = ms_now();
	struct timespec d = { ms / 1000, ms % 1000 * 1000000 };
	int e = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	if (e) {
		errno = e;
		perror("cycler: clock_nanosleep");
		exit(3);
	}
	held_ms = ms_now() - t0;
}

#ifndef CYCLER_LIBC_MALLOC
/* (a static program takes the C library's allocator whole: not replaced) */
void *__libc_malloc(size_t n);
void __libc_free(void *p);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

void *malloc(size_t n)
{
	pthread_mutex_lock(&heap_lock);
	if (sleep_in_malloc)
		held_sleep();
	void *p = __libc_malloc(n);
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void free(void *p)
{
	pthread_mutex_lock(&heap_lock);
	__libc_free(p);
	pthread_mutex_unlock(&heap_lock);
}

void *calloc(size_t n, size_t m)
{
	pthread_mutex_lock(&heap_lock);
	void *p = __libc_calloc(n, m);
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void *realloc(void *p, size_t n)
{
	pthread_mutex_lock(&heap_lock);
	void *q = __libc_realloc(p, n);
	pthread_mutex_unlock(&heap_lock);
	return q;
}

#endif

static void *holder(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	sleep_in_malloc = (long)arg;
	void *volatile p = malloc(16);    /* (volatile: a call made, not optimised out) */
	free(p);
	pthread_mutex_lock(&mu);
	holding = 2;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	while (!atomic_load(&quitting)) {
		if (atomic_load(&fence_on)) {
			long n = atomic_load(&budget[me]);
			if (n > 0) {
				atomic_store(&parked[me], 0);
				work_a(me);
				atomic_fetch_add(&per_worker[me], 1);
				atomic_store(&budget[me], n - 1);
			} else {
				atomic_store(&parked[me], 1);
				usleep(200);
			}
			continue;
		}
		atomic_store(&parked[me], 0);
		/* (bursts of calls, a pause between: 8 workers on a machine
		 * of 2 processors) */
		for (int k = 0; k < 64; k++) {
			work_a(me);
			atomic_fetch_add(&per_worker[me], 1);
		}
		usleep(500);
	}
	return NULL;
}

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	long v = si->si_value.sival_int;
	atomic_fetch_add(&rt_sigs, 1);
	if (si->si_code != SI_QUEUE || v < 0 || v >= RT_MAX)
		atomic_fetch_add(&rt_out_of_range, 1);
	else if (atomic_exchange(&rt_seen[v], 1))
		atomic_fetch_add(&rt_twice, 1);
}

/* The timer's start (CLOCK_MONOTONIC, ns) and, over the handlers since
 * the last reset, the most expirations counted beyond those due by the
 * handler's time (a handler run late counts fewer than are due: some
 * are lost only if no later handler catches up), and over all handlers
 * (more than one beyond: an expiration counted twice). */
static atomic_llong timer_t0;
static atomic_long timer_best, timer_over;

static long long ns_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void atomic_max(atomic_long *m, long v)
{
	long cur = atomic_load(m);
	while (v > cur && !atomic_compare_exchange_weak(m, &cur, v))
		;
}

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	long k = 1 + (si->si_code == SI_TIMER ? si->si_overrun : 0);
	long got = atomic_fetch_add(&expirations, k) + k;
	long due = (long)((ns_now() - atomic_load(&timer_t0)) / 1000000);
	atomic_max(&timer_best, got - due);
	atomic_max(&timer_over, got - due);
}

static void on_trap(int sig)
{
	(void)sig;
	atomic_fetch_add(&traps, 1);
}

static void fail(const char *what)
{
	fprintf(stderr, "cycler: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* Every worker parked at the fence, its round's calls made. */
static void wait_parked(void)
{
	for (int i = 0; i < WORKERS; i++)
		while (atomic_load(&budget[i]) || !atomic_load(&parked[i]))
			usleep(200);
}

static int sender(char **argv)
{
	pid_t to = (pid_t)atol(argv[2]);
	long us = atol(argv[3]);
	const char *stop = argv[4];
	long n = 0;
	struct stat st;
	while (stat(stop, &st) && n < RT_MAX) {
		union sigval v = { .sival_int = (int)n };
		if (sigqueue(to, SIGRTMIN + 1, v)) {
			if (errno == EAGAIN) {     /* (the queue's limit: again) */
				usleep(1000);
				continue;
			}
			fail("sigqueue");
		}
		n++;
		usleep((useconds_t)us);
	}
	printf("%ld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "send"))
		return sender(argv);
	if (argc != 3) {
		fprintf(stderr, "usage: cycler CMD_FIFO REPLY_FIFO | cycler send PID US STOPFILE\n");
		return 2;
	}
	struct sigaction sa = { .sa_flags = SA_RESTART | SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_rt;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	sa.sa_sigaction = on_timer;
	sigaction(SIGALRM, &sa, NULL);
	struct sigaction st = { .sa_flags = SA_RESTART, .sa_handler = on_trap };
	sigemptyset(&st.sa_mask);
	sigaction(SIGTRAP, &st, NULL);
	pthread_t w[WORKERS];
	for (long i = 0; i < WORKERS; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)i))
			fail("pthread_create");
	timer_t tm;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	if (timer_create(CLOCK_MONOTONIC, &ev, &tm))
		fail("timer_create");
	struct itimerspec on = { { 0, 1000000 }, { 0, 1000000 } };
	atomic_store(&timer_best, LONG_MIN);
	atomic_store(&timer_over, LONG_MIN);
	atomic_store(&timer_t0, ns_now());
	if (timer_settime(tm, 0, &on, NULL))
		fail("timer_settime");
	FILE *in = fopen(argv[1], "r");
	if (!in)
		fail(argv[1]);
	FILE *out = fopen(argv[2], "w");
	if (!out)
		fail(argv[2]);
	/* (a buffer of its own: no malloc of stdio's while a hold has
	 * malloc's lock) */
	static char obuf[4096];
	setvbuf(out, obuf, _IOLBF, sizeof obuf);
	char line[128];
	long sent = -1, n;
	for (;;) {
		errno = 0;
		if (!fgets(line, sizeof line, in)) {
			if (ferror(in))
				fail("read");
			break;
		}
		int r = 0;
		if (!strncmp(line, "stats", 5)) {
			r = fprintf(out, "calls=%ld b=%ld rt=%ld timer=%ld traps=%ld\n", atomic_load(&a_calls),
				    atomic_load(&b_calls), atomic_load(&rt_sigs), atomic_load(&expirations),
				    atomic_load(&traps));
		} else if (!strncmp(line, "fence", 5)) {
			atomic_store(&fence_on, 1);
			wait_parked();
			r = fprintf(out, "fenced\n");
		} else if (sscanf(line, "round %ld", &n) == 1 && atomic_load(&fence_on)) {
			long a0 = atomic_load(&a_calls), b0 = atomic_load(&b_calls);
			for (int i = 0; i < WORKERS; i++)
				atomic_store(&budget[i], n);
			wait_parked();
			r = fprintf(out, "round a=%ld b=%ld\n", atomic_load(&a_calls) - a0, atomic_load(&b_calls) - b0);
		} else if (!strncmp(line, "go", 2)) {
			atomic_store(&fence_on, 0);
			r = fprintf(out, "going\n");
		} else if (sscanf(line, "hold %ld", &n) == 1) {
			pthread_t h;
			pthread_mutex_lock(&mu);
			holding = 0;
			pthread_mutex_unlock(&mu);
			if (pthread_create(&h, NULL, holder, (void *)n))
				fail("pthread_create");
			pthread_detach(h);
			pthread_mutex_lock(&mu);
			while (holding < 1)
				pthread_cond_wait(&hold_cv, &mu);
			pthread_mutex_unlock(&mu);
			r = fprintf(out, "holding\n");
		} else if (!strncmp(line, "held", 4)) {
			pthread_mutex_lock(&mu);
			while (holding < 2)
				pthread_cond_wait(&hold_cv, &mu);
			pthread_mutex_unlock(&mu);
			r = fprintf(out, "held %ld ms\n", held_ms);
		} else if (sscanf(line, "quit %ld", &sent) == 1) {
			break;
		}
		if (r < 0)
			fail("write");
	}
	/* Every signal sent is queued to the program by now: wait for them
	 * to be handled (a debugger's stop on each signal slows their
	 * delivery), and for a timer's handler, from now on, whose count is
	 * all due by its time, before the timer stops (a stop drops the
	 * signal it has queued, with the expirations it counts); each for
	 * 10 s at most, after which the verdicts say what is missing. */
	atomic_store(&timer_best, LONG_MIN);
	for (int ms = 0; ms < 10000; ms++) {
		if (atomic_load(&rt_sigs) >= sent && atomic_load(&timer_best) >= -1)
			break;
		usleep(1000);
	}
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	if (timer_settime(tm, 0, &off, NULL))
		fail("timer_settime");
	long best = atomic_load(&timer_best), over = atomic_load(&timer_over);
	atomic_store(&quitting, 1);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	fprintf(out, "bye\n");
	fclose(out);
	int idle = 0;
	for (int i = 0; i < WORKERS; i++)
		idle += !atomic_load(&per_worker[i]);
	if (idle)
		printf("workers: %d of %d never called work_a\n", idle, WORKERS);
	else
		printf("workers: %d, each called work_a\n", WORKERS);
	long missing = 0;
	for (long v = 0; v < sent && v < RT_MAX; v++)
		missing += !atomic_load(&rt_seen[v]);
	if (sent < 0 || missing || atomic_load(&rt_twice) || atomic_load(&rt_out_of_range) ||
	    atomic_load(&rt_sigs) != sent)
		printf("rt signals: %ld sent, %ld handled, %ld missing, %ld twice, %ld not ours\n", sent,
		       atomic_load(&rt_sigs), missing, atomic_load(&rt_twice), atomic_load(&rt_out_of_range));
	else
		printf("rt signals: each sent handled once\n");
	/* (the timer's start is a call away from the time taken: one
	 * expiration short) */
	if (best == LONG_MIN)
		printf("timer: no expiration handled in the last 10 s\n");
	else if (best < -1)
		printf("timer: %ld expirations short of those due, by the last handler's time\n", -best);
	else if (over > 0)
		printf("timer: %ld expirations counted beyond those due\n", over);
	else
		printf("timer: every expiration counted\n");
	if (atomic_load(&traps))
		printf("stray traps: %ld\n", atomic_load(&traps));
	else
		printf("stray traps: none\n");
	return 0;
}
