/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c - the function profiler, the kernel's function_profile_enabled
 * and trace_stat/function*: for each function its calls, the time spent
 * in it (with its callees, and without them: its own), the mean and
 * the variance.  A client of the hooks API (mcount-hooks.h), as any
 * program's own hook would be: an entry callback pushes the call on
 * the thread's stack, the exit callback pops it and adds its time to
 * the function's counts and to its caller's callees' time.
 *
 * The counts are a table of MT_PROF_SLOTS functions by address, filled
 * without a lock (an entry's address is claimed by compare-and-swap,
 * its counts added atomically); a function that finds the table full is
 * counted as dropped.  A frame left without returning (longjmp, an
 * exception) is popped when a frame below it returns: it counts
 * nothing.  Times are CLOCK_MONOTONIC's (the vDSO), in nanoseconds. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "rt.h"

#define MT_PROF_SLOTS 65536
#define MT_PROF_DEPTH 256

/* Counts in words (no 64-bit atomics on 32-bit CPUs, whose library has
 * no hooks yet: hooks.c says ENOTSUP there). */
typedef unsigned long pcount;
struct pstat {
	_Atomic uintptr_t ip;
	_Atomic pcount hits, total, self, sq;  /* sq: the sum of squares, in units of (256 ns)^2 */
};

static struct pstat *table;
static _Atomic pcount dropped;
static struct mcount_hook *hook;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;

struct pframe {
	uintptr_t ip;
	uint64_t t0, callees;
};
/* A thread's stack is mapped at its first call (freed at its exit): in
 * static TLS it would be 6 KiB of every thread's, more than the C
 * library keeps for a library dlopen()ed late (mcount-trace attach:
 * "cannot allocate memory in static TLS block"). */
static __thread struct pframe *stack __attribute__((tls_model("initial-exec")));
static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static __thread unsigned depth __attribute__((tls_model("initial-exec")));
/* The run a thread's stack is of: a frame under way when the profiler
 * stopped never returned to it, so a new run starts with an empty one. */
static _Atomic unsigned run;
static __thread unsigned stack_run __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void count(uintptr_t ip, uint64_t dt, uint64_t self)
{
	uint64_t i = ((uint64_t)ip * UINT64_C(0x9e3779b97f4a7c15) >> 32) & (MT_PROF_SLOTS - 1);
	for (unsigned n = 0; n < MT_PROF_SLOTS; n++, i = (i + 1) & (MT_PROF_SLOTS - 1)) {
		struct pstat *p = &table[i];
		uintptr_t have = atomic_load_explicit(&p->ip, memory_order_acquire);
		if (!have) {
			uintptr_t none = 0;
			if (!atomic_compare_exchange_strong(&p->ip, &none, ip) && none != ip)
				continue;
		} else if (have != ip) {
			continue;
		}
		atomic_fetch_add_explicit(&p->hits, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->total, (pcount)dt, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->self, (pcount)self, memory_order_relaxed);
		/* (in 256 ns steps: 65,000 calls of 4 s before it wraps) */
		uint64_t q = dt >> 8;
		atomic_fetch_add_explicit(&p->sq, (pcount)(q < (UINT64_C(1) << 31) ? q * q : UINT64_C(1) << 62),
					  memory_order_relaxed);
		return;
	}
	atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
}

/* (run by the exiting thread; a profiled call of a later destructor of
 * its maps another) */
static void stack_free(void *p)
{
	stack = NULL;
	depth = 0;
	munmap(p, MT_PROF_DEPTH * sizeof(struct pframe));
}

static void stack_key_make(void)
{
	if (pthread_key_create(&stack_key, stack_free))
		stack_key = (pthread_key_t)-1;
}

/* The thread's stack, mapped now if it has none (NULL: no memory). */
static struct pframe *own_stack(void)
{
	if (stack)
		return stack;
	void *p = mmap(NULL, MT_PROF_DEPTH * sizeof(struct pframe), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	stack = p;
	pthread_once(&stack_once, stack_key_make);
	if (stack_key != (pthread_key_t)-1)
		pthread_setspecific(stack_key, stack);
	return stack;
}

static void prof_entry(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	if (!own_stack()) {           /* (a call not counted, as one that finds the table full) */
		atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
		return;
	}
	unsigned now_run = atomic_load_explicit(&run, memory_order_relaxed);
	if (stack_run != now_run) {
		stack_run = now_run;
		depth = 0;
	}
	if (depth < MT_PROF_DEPTH)
		stack[depth] = (struct pframe){ ip, now_ns(), 0 };
	depth++;
}

static void prof_exit(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	uint64_t t = now_ns();
	if (!stack || stack_run != atomic_load_explicit(&run, memory_order_relaxed))
		return;               /* (a frame of an earlier run) */
	if (depth > MT_PROF_DEPTH) {
		depth--;
		return;
	}
	/* (frames above it were left without returning) */
	while (depth && stack[depth - 1].ip != ip)
		depth--;
	if (!depth)
		return;
	struct pframe *f = &stack[--depth];
	uint64_t dt = t - f->t0;
	if (depth && depth <= MT_PROF_DEPTH)
		stack[depth - 1].callees += dt;
	count(ip, dt, dt > f->callees ? dt - f->callees : 0);
}

int mt_prof_start(const char *filter)
{
	pthread_mutex_lock(&prof_lock);
	int r = 0;
	if (hook) {
		r = mcount_hook_filter(hook, filter);
	} else {
		if (!table && !(table = calloc(MT_PROF_SLOTS, sizeof *table))) {
			errno = ENOMEM;
			r = -1;
		} else {
			/* (no callback runs: the table is the new run's) */
			memset((void *)table, 0, MT_PROF_SLOTS * sizeof *table);
			atomic_store(&dropped, 0);
			atomic_fetch_add(&run, 1);
			hook = mcount_hook_create(prof_entry, prof_exit, NULL, 0);
			if (!hook || mcount_hook_filter(hook, filter) || mcount_hook_register(hook)) {
				int e = errno;
				mcount_hook_destroy(hook);
				hook = NULL;
				errno = e;
				r = -1;
			}
		}
	}
	pthread_mutex_unlock(&prof_lock);
	return r;
}

int mt_prof_stop(void)
{
	pthread_mutex_lock(&prof_lock);
	int r = 0;
	if (!hook) {
		errno = EINVAL;
		r = -1;
	} else if (!(r = mcount_hook_unregister(hook))) {
		mcount_hook_destroy(hook);
		hook = NULL;
	}
	/* (EDEADLK: called by a callback or inside the dynamic linker; it
	 * runs on) */
	pthread_mutex_unlock(&prof_lock);
	return r;
}

bool mt_prof_ran(void)
{
	pthread_mutex_lock(&prof_lock);
	bool ran = table != NULL;
	pthread_mutex_unlock(&prof_lock);
	return ran;
}

struct prow {
	uintptr_t ip;
	uint64_t hits, total, self, sq;
};

/* A row's sample variance in ns^2 (0 for fewer than 2 calls). */
static double variance(const struct prow *r)
{
	double avg = (double)r->total / (double)r->hits;
	double v = r->hits > 1 ? ((double)r->sq * 65536 - avg * avg * (double)r->hits) / (double)(r->hits - 1) : 0;
	return v > 0 ? v : 0;
}

static double key_of(const struct prow *r, int key)
{
	switch (key) {
	case 0: return (double)r->hits;
	case 2: return (double)r->total / (double)r->hits;
	case 3: return variance(r);
	case 4: return (double)r->self;
	default: return (double)r->total;
	}
}

static int row_cmp(const void *a, const void *b, void *key)
{
	double x = key_of(a, *(int *)key), y = key_of(b, *(int *)key);
	return x < y ? 1 : x > y ? -1 : 0;
}

/* "hits", "time", "avg", "s2", "self": its index, -1 for another word. */
int mt_prof_sort_of(const char *key)
{
	static const char *const keys[] = { "hits", "time", "avg", "s2", "self" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(key, keys[i]))
			return i;
	return -1;
}

/* The kernel's trace_stat/function table, a column more (Self), sorted
 * by key, into a string of the caller's to free (NULL: no memory). */
char *mt_prof_table(int key)
{
	struct prow *rows = NULL;
	size_t n = 0;
	pthread_mutex_lock(&prof_lock);
	if (table && (rows = malloc(MT_PROF_SLOTS * sizeof *rows))) {
		for (size_t i = 0; i < MT_PROF_SLOTS; i++) {
			struct prow r = { atomic_load(&table[i].ip), atomic_load(&table[i].hits),
					  atomic_load(&table[i].total), atomic_load(&table[i].self),
					  atomic_load(&table[i].sq) };
			if (r.ip && r.hits)
				rows[n++] = r;
		}
	}
	pthread_mutex_unlock(&prof_lock);
	if (n)
		qsort_r(rows, n, sizeof *rows, row_cmp, &key);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		free(rows);
		return NULL;
	}
	fprintf(m, "  %-24s %8s %14s %12s %12s %14s\n", "Function", "Hit", "Time", "Avg", "s^2 (us^2)", "Self");
	fprintf(m, "  %-24s %8s %14s %12s %12s %14s\n", "--------", "---", "----", "---", "----------", "----");
	pthread_mutex_lock(&mt_reg.lock);
	for (size_t i = 0; i < n; i++) {
		const struct prow *r = &rows[i];
		char buf[MT_ADDR_NAME];
		double avg = (double)r->total / (double)r->hits;
		fprintf(m, "  %-24s %8llu %11.3f us %9.3f us %12.3f %11.3f us\n",
			mt_name_of(r->ip, buf, sizeof buf), (unsigned long long)r->hits, (double)r->total / 1e3,
			avg / 1e3, variance(r) / 1e6, (double)r->self / 1e3);
	}
	pthread_mutex_unlock(&mt_reg.lock);
	uint64_t d = atomic_load(&dropped);
	if (d)
		fprintf(m, "  (%llu calls of functions the table had no room for)\n", (unsigned long long)d);
	fclose(m);
	free(rows);
	return text;
}
