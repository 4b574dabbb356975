/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c - the function profiler, the kernel's function_profile_enabled
 * and trace_stat/function*: for each function its calls, the time spent
 * in it (with its callees, and without them: its own), the mean and
 * the variance.  A client of the hooks API (mcount-hooks.h), as any
 * program's own hook would be, but for what struct mcount_regs tells it
 * of each call's frame (rt.h): an entry callback pushes the call on the
 * thread's stack, the exit callback pops it and adds its time to the
 * function's counts and to its caller's callees' time.
 *
 * Some calls get no exit callback: those deeper than the hooks' shadow
 * stack (MT_SHADOW frames), those whose return cannot be hooked, and
 * those left by longjmp or an exception.  So an exit is paired with its
 * entry by the frame's index on the shadow stack, never by a count or
 * by the function (a recursion has the same one at every depth): every
 * frame above it on the thread's stack is gone.  A frame the hooks said
 * they would give an exit (noexit false) that is gone without one was
 * left: it counts nothing, nor does any frame above it, and is counted
 * as left.  A frame whose return is not hooked is gone once a frame
 * below it returns, or once a call takes a stack slot at or above its
 * own: it is counted then, in Hit, without a time (its callees' times,
 * those known, go to its caller's).  Which of those a longjmp left the
 * profiler cannot tell.
 *
 * The counts are a table of MT_PROF_SLOTS functions by address, filled
 * without a lock (an entry's address is claimed by compare-and-swap,
 * its counts added atomically); a function that finds the table full is
 * counted as dropped.  Beside the kernel's figures, each function's
 * shortest and longest call (exact: a compare-and-swap where a call
 * beats the one before) and a histogram of its calls' times, whence
 * the percentiles p50, p90 and p99 of mcount-trace report's columns:
 * log-linear buckets, a power of two split in 16 (struct phist), so
 * that a percentile is within 1/32 of its value.  A function's
 * histogram is taken at its first timed call from pools mapped as they
 * are needed, never unmapped: no lock, no malloc on the hook's path.
 * Times are CLOCK_MONOTONIC's (the vDSO), in nanoseconds.  A thread's
 * stack is mapped at its first call, its pages touched as deep as its
 * calls go, and taken by another thread once its thread has ended. */
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
/* A thread's stack, in frames; MT_SHADOW of them kept for the frames
 * whose returns are hooked, which always fit. */
#define MT_PROF_DEPTH 65536

/* Counts in words (no 64-bit atomics on 32-bit CPUs: the library calls
 * nothing of libatomic).  A 32-bit word of nanoseconds wraps at 4.3 s
 * of a function's time: where a word is that, the profiler does not
 * start (ENOTSUP), though the hooks run there. */
typedef unsigned long pcount;
struct phist;
struct pstat {
	_Atomic uintptr_t ip;
	_Atomic pcount hits, untimed, total, self, sq;  /* sq: the sum of squares, in units of (256 ns)^2 */
	/* the longest call's time and the shortest's complement (so that
	 * both grow, and a zeroed entry has none of either) */
	_Atomic pcount max, nmin;
	struct phist *_Atomic hist;   /* NULL until its first timed call */
};

/* A function's calls by time: a call of t ns (t < 32: exact) is in
 * bucket 16 * (e - 3) + s, 2^e <= t < 2^(e+1) and s its 4 bits below
 * the highest, where a bucket is 2^(e-4) ns wide: within 1/16 of its
 * lowest time.  Kept up to e = 63: 16 * 61 buckets. */
#define MT_PROF_SUB 4
#define MT_PROF_BUCKETS ((64 - MT_PROF_SUB + 1) << MT_PROF_SUB)
struct phist {
	_Atomic pcount n[MT_PROF_BUCKETS];
};
/* Histograms in pools of MT_HIST_POOL, each mapped at its first use;
 * a histogram is a table entry's for a run (a second taken by a race
 * for the same entry is wasted: at most one a thread a function). */
#define MT_HIST_POOL 64
#define MT_HIST_POOLS (MT_PROF_SLOTS / MT_HIST_POOL)
static struct phist *_Atomic pools[MT_HIST_POOLS];
static _Atomic size_t hist_next;
/* The histogram of the functions that could get none of their own (every
 * pool taken, or none could be mapped): their calls counted here, not
 * read as any function's, so that such a function costs no more than
 * another. */
static struct phist no_room;

static struct pstat *table;
/* calls of functions the table had no room for; calls left (longjmp, an
 * exception); calls not followed (a thread's stack full, or none) */
static _Atomic pcount dropped, left, lost;
static struct mcount_hook *hook;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;

struct pframe {
	uintptr_t ip;
	uintptr_t frame;              /* mcount_regs.frame */
	uint64_t t0, callees;         /* callees: the time known spent in its calls */
	uint32_t depth;               /* mcount_regs.depth at its entry */
	bool noexit;
};
struct pstack {
	struct pstack *next;          /* every thread's */
	atomic_uint owned;            /* a word: a byte's compare-and-swap calls
				       * libatomic on riscv64 */
	unsigned run;                 /* the run its frames are of */
	uint32_t n;
	struct pframe f[MT_PROF_DEPTH];
};
static struct pstack *_Atomic stacks;
static __thread struct pstack *mine __attribute__((tls_model("initial-exec")));
static __thread bool mine_gone __attribute__((tls_model("initial-exec")));
static pthread_key_t stack_key;
static bool have_key;
/* The run a thread's stack is of: a frame under way when the profiler
 * stopped never returned to it, so a new run starts with an empty one. */
static _Atomic unsigned run;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The function's counts, or NULL (counted dropped: the table is full). */
static struct pstat *stat_of(uintptr_t ip)
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
		return p;
	}
	atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
	return NULL;
}

static unsigned bucket_of(uint64_t t)
{
	if (t < (2u << MT_PROF_SUB))
		return (unsigned)t;
	unsigned e = 63 - (unsigned)__builtin_clzll(t);
	return ((e - MT_PROF_SUB + 1) << MT_PROF_SUB) + (unsigned)((t >> (e - MT_PROF_SUB)) & ((1u << MT_PROF_SUB) - 1));
}

/* Bucket b's lowest time and its width, in ns. */
static uint64_t bucket_low(unsigned b, uint64_t *width)
{
	if (b < (2u << MT_PROF_SUB)) {
		*width = 1;
		return b;
	}
	unsigned e = (b >> MT_PROF_SUB) + MT_PROF_SUB - 1;
	*width = UINT64_C(1) << (e - MT_PROF_SUB);
	return (UINT64_C(1) << e) + (uint64_t)(b & ((1u << MT_PROF_SUB) - 1)) * *width;
}

/* A new histogram, zeroed (no_room: none left, or no memory). */
static struct phist *hist_take(void)
{
	size_t i = atomic_fetch_add_explicit(&hist_next, 1, memory_order_relaxed);
	if (i >= (size_t)MT_HIST_POOLS * MT_HIST_POOL)
		return &no_room;
	struct phist *pool = atomic_load_explicit(&pools[i / MT_HIST_POOL], memory_order_acquire);
	if (!pool) {
		void *m = mmap(NULL, MT_HIST_POOL * sizeof *pool, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return &no_room;
		struct phist *none = NULL;
		if (atomic_compare_exchange_strong(&pools[i / MT_HIST_POOL], &none, m)) {
			pool = m;
		} else {
			munmap(m, MT_HIST_POOL * sizeof *pool);
			pool = none;
		}
	}
	return &pool[i % MT_HIST_POOL];
}

/* The call's time in the function's histogram, shortest and longest. */
static void count_time(struct pstat *p, uint64_t dt)
{
	struct phist *h = atomic_load_explicit(&p->hist, memory_order_acquire);
	if (__builtin_expect(!h, 0)) {
		struct phist *mine_h = hist_take(), *none = NULL;
		h = atomic_compare_exchange_strong(&p->hist, &none, mine_h) ? mine_h : none;
	}
	atomic_fetch_add_explicit(&h->n[bucket_of(dt)], 1, memory_order_relaxed);
	pcount t = (pcount)dt, have = atomic_load_explicit(&p->max, memory_order_relaxed);
	while (t > have && !atomic_compare_exchange_weak_explicit(&p->max, &have, t, memory_order_relaxed,
								  memory_order_relaxed))
		;
	t = ~(pcount)dt;
	have = atomic_load_explicit(&p->nmin, memory_order_relaxed);
	while (t > have && !atomic_compare_exchange_weak_explicit(&p->nmin, &have, t, memory_order_relaxed,
								  memory_order_relaxed))
		;
}

static void count(uintptr_t ip, uint64_t dt, uint64_t self)
{
	struct pstat *p = stat_of(ip);
	if (!p)
		return;
	count_time(p, dt);
	atomic_fetch_add_explicit(&p->hits, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->total, (pcount)dt, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->self, (pcount)self, memory_order_relaxed);
	/* (in 256 ns steps: 65,000 calls of 4 s before it wraps) */
	uint64_t q = dt >> 8;
	atomic_fetch_add_explicit(&p->sq, (pcount)(q < (UINT64_C(1) << 31) ? q * q : UINT64_C(1) << 62),
				  memory_order_relaxed);
}

/* A call that returned, its time not known. */
static void count_untimed(uintptr_t ip)
{
	struct pstat *p = stat_of(ip);
	if (!p)
		return;
	atomic_fetch_add_explicit(&p->hits, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->untimed, 1, memory_order_relaxed);
}

/* The frames from n up are gone without their exits: those from the
 * lowest that was to have one were left, those below it are counted
 * without a time.  Each gives the callees' time it knows to the frame
 * below it. */
static void pop_gone(struct pstack *s, uint32_t n)
{
	uint32_t low = n;
	while (low < s->n && s->f[low].noexit)
		low++;
	for (uint32_t i = s->n; i-- > n;) {
		if (i)
			s->f[i - 1].callees += s->f[i].callees;
		if (i >= low)
			atomic_fetch_add_explicit(&left, 1, memory_order_relaxed);
		else
			count_untimed(s->f[i].ip);
	}
	s->n = n;
}

/* The thread's stack, its own from its first call to its end (NULL:
 * none could be mapped, or the thread is ending). */
static struct pstack *stack_get(void)
{
	if (__builtin_expect(mine != NULL, 1))
		return mine;
	if (mine_gone)
		return NULL;
	struct pstack *s;
	for (s = atomic_load(&stacks); s; s = s->next) {
		unsigned no = 0;
		if (!atomic_load_explicit(&s->owned, memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&s->owned, &no, 1))
			break;
	}
	if (!s) {
		void *p = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		s = p;
		atomic_init(&s->owned, 1);
		s->next = atomic_load(&stacks);
		while (!atomic_compare_exchange_weak(&stacks, &s->next, s))
			;
	}
	s->n = 0;
	s->run = atomic_load_explicit(&run, memory_order_relaxed);
	if (have_key)
		pthread_setspecific(stack_key, s);
	mine = s;
	return s;
}

/* At the thread's end: every frame on its stack is gone (those that
 * were to have an exit were left: pthread_exit), counted while the
 * profiler runs; the stack is free for another thread. */
static void stack_end(void *p)
{
	struct pstack *s = p;
	mine = NULL;
	mine_gone = true;
	atomic_signal_fence(memory_order_seq_cst);    /* (a signal handler's calls: not followed) */
	pthread_mutex_lock(&prof_lock);
	if (hook && s->run == atomic_load(&run))
		pop_gone(s, 0);
	pthread_mutex_unlock(&prof_lock);
	atomic_store_explicit(&s->owned, 0, memory_order_release);
}

static void make_key(void)
{
	have_key = !pthread_key_create(&stack_key, stack_end);
}

static void prof_entry(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	struct pstack *s = stack_get();
	if (!s) {
		atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
		return;
	}
	unsigned now_run = atomic_load_explicit(&run, memory_order_relaxed);
	if (s->run != now_run) {
		s->run = now_run;
		s->n = 0;
	}
	/* The frames this call shows gone: those to have an exit at its
	 * index or above (the hooks have no entry there now), those without
	 * whose slot is at or below its own. */
	uint32_t n = s->n;
	while (n > 0 && (s->f[n - 1].noexit ? s->f[n - 1].frame <= r->frame : s->f[n - 1].depth >= r->depth))
		n--;
	if (n < s->n)
		pop_gone(s, n);
	if (r->noexit && n >= MT_PROF_DEPTH - MT_SHADOW) {
		atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
		return;
	}
	s->f[n] = (struct pframe){ ip, r->frame, r->noexit ? 0 : now_ns(), 0, r->depth, r->noexit };
	s->n = n + 1;
}

static void prof_exit(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	uint64_t t = now_ns();
	struct pstack *s = mine;
	if (!s || s->run != atomic_load_explicit(&run, memory_order_relaxed))
		return;               /* (a frame of an earlier run) */
	/* Its frame: the one with its index; every frame above it is gone. */
	uint32_t n = s->n;
	while (n > 0 && (s->f[n - 1].noexit || s->f[n - 1].depth > r->depth ||
			 (s->f[n - 1].depth == r->depth && s->f[n - 1].ip != ip)))
		n--;
	if (!n || s->f[n - 1].depth != r->depth) {
		/* (none: its entry was not followed) */
		if (n < s->n)
			pop_gone(s, n);
		count_untimed(ip);
		return;
	}
	if (n < s->n)
		pop_gone(s, n);
	struct pframe *f = &s->f[--n];
	s->n = n;
	uint64_t dt = t - f->t0;
	if (n)
		s->f[n - 1].callees += dt;
	count(ip, dt, dt > f->callees ? dt - f->callees : 0);
}

int mt_prof_start(const char *filter)
{
	if (sizeof(pcount) < sizeof(uint64_t)) {
		errno = ENOTSUP;
		return -1;
	}
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, make_key);
	pthread_mutex_lock(&prof_lock);
	int r = 0;
	if (hook) {
		r = mcount_hook_filter(hook, filter);
	} else {
		if (!table && !(table = calloc(MT_PROF_SLOTS, sizeof *table))) {
			errno = ENOMEM;
			r = -1;
		} else {
			/* (no callback runs: the table is the new run's, and
			 * the histograms the last one took) */
			memset((void *)table, 0, MT_PROF_SLOTS * sizeof *table);
			size_t used = atomic_load(&hist_next);
			for (size_t i = 0; i < used && i < (size_t)MT_HIST_POOLS * MT_HIST_POOL; i++) {
				struct phist *pool = atomic_load(&pools[i / MT_HIST_POOL]);
				if (pool)
					memset((void *)&pool[i % MT_HIST_POOL], 0, sizeof *pool);
			}
			atomic_store(&hist_next, 0);
			memset((void *)&no_room, 0, sizeof no_room);
			atomic_store(&dropped, 0);
			atomic_store(&left, 0);
			atomic_store(&lost, 0);
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

bool mt_prof_on(void)
{
	pthread_mutex_lock(&prof_lock);
	bool on = hook != NULL;
	pthread_mutex_unlock(&prof_lock);
	return on;
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
	uint64_t hits, untimed, total, self, sq;
	uint64_t min, max, p[3];      /* of its timed calls (ns); p50, p90, p99 */
	bool binned;                  /* p[] known (a histogram with a call) */
};

/* r's p50, p90, p99 from a function's histogram: the nearest rank's
 * bucket (as mcount-trace report's nearest rank), given as its middle,
 * kept within the shortest and longest call. */
static void percentiles(struct prow *r, struct phist *h)
{
	static const unsigned q[3] = { 50, 90, 99 };
	uint64_t n = 0;
	if (h && h != &no_room)
		for (unsigned b = 0; b < MT_PROF_BUCKETS; b++)
			n += atomic_load_explicit(&h->n[b], memory_order_relaxed);
	r->binned = n > 0;
	if (!n)
		return;
	unsigned b = 0;
	uint64_t below = 0, at = atomic_load_explicit(&h->n[0], memory_order_relaxed);
	for (int i = 0; i < 3; i++) {
		uint64_t k = (q[i] * n + 99) / 100;
		while (below + at < k && b + 1 < MT_PROF_BUCKETS) {
			below += at;
			at = atomic_load_explicit(&h->n[++b], memory_order_relaxed);
		}
		uint64_t w, v = bucket_low(b, &w);
		v += w / 2;
		r->p[i] = v < r->min ? r->min : v > r->max ? r->max : v;
	}
}

/* A row's mean time, of its calls with one (0: none). */
static double mean(const struct prow *r)
{
	uint64_t timed = r->hits - r->untimed;
	return timed ? (double)r->total / (double)timed : 0;
}

/* A row's sample variance in ns^2, of its calls with a time (0 for
 * fewer than 2). */
static double variance(const struct prow *r)
{
	uint64_t timed = r->hits - r->untimed;
	double avg = mean(r);
	double v = timed > 1 ? ((double)r->sq * 65536 - avg * avg * (double)timed) / (double)(timed - 1) : 0;
	return v > 0 ? v : 0;
}

static double key_of(const struct prow *r, int key)
{
	switch (key) {
	case 0: return (double)r->hits;
	case 2: return mean(r);
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

/* "kernel", "report": MT_PROF_KERNEL, MT_PROF_REPORT; -1 for another word. */
int mt_prof_columns_of(const char *word)
{
	return !strcmp(word, "kernel") ? MT_PROF_KERNEL : !strcmp(word, "report") ? MT_PROF_REPORT : -1;
}

/* ns as us with three decimals, as mcount-read's report writes them. */
static void put_us(FILE *m, uint64_t ns)
{
	char b[32];
	snprintf(b, sizeof b, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
	fprintf(m, " %12s", b);
}

/* mcount-read report's columns: calls, total, self, min, avg, p50, p90,
 * p99, max (us), function; '-' for a function with no timed call. */
static void report_rows(FILE *m, const struct prow *rows, size_t n)
{
	fprintf(m, "%10s %12s %12s %12s %12s %12s %12s %12s %12s  %s\n", "calls", "total(us)", "self(us)", "min",
		"avg", "p50", "p90", "p99", "max", "function");
	for (size_t i = 0; i < n; i++) {
		const struct prow *r = &rows[i];
		uint64_t timed = r->hits - r->untimed;
		char buf[MT_ADDR_NAME];
		fprintf(m, "%10llu", (unsigned long long)r->hits);
		if (!timed || r->min > r->max) {
			for (int k = 0; k < 8; k++)
				fprintf(m, " %12s", "-");
		} else {
			put_us(m, r->total);
			put_us(m, r->self);
			put_us(m, r->min);
			put_us(m, r->total / timed);
			for (int k = 0; k < 3; k++) {
				if (r->binned)
					put_us(m, r->p[k]);
				else
					fprintf(m, " %12s", "-");
			}
			put_us(m, r->max);
		}
		fprintf(m, "  %s\n", mt_name_of(r->ip, buf, sizeof buf));
	}
}

/* The kernel's trace_stat/function table, a column more (Self), or
 * mcount-read report's (columns), sorted by key, into a string of the
 * caller's to free (NULL: no memory). */
char *mt_prof_table(int key, int columns)
{
	struct prow *rows = NULL;
	size_t n = 0;
	pthread_mutex_lock(&prof_lock);
	if (table && (rows = malloc(MT_PROF_SLOTS * sizeof *rows))) {
		for (size_t i = 0; i < MT_PROF_SLOTS; i++) {
			struct prow r = { atomic_load(&table[i].ip), atomic_load(&table[i].hits),
					  atomic_load(&table[i].untimed), atomic_load(&table[i].total),
					  atomic_load(&table[i].self), atomic_load(&table[i].sq),
					  (uint64_t)(pcount)~atomic_load(&table[i].nmin), atomic_load(&table[i].max),
					  { 0 }, false };
			if (r.untimed > r.hits)
				r.untimed = r.hits;   /* (read while counted) */
			if (!r.ip || !r.hits)
				continue;
			if (columns == MT_PROF_REPORT)
				percentiles(&r, atomic_load(&table[i].hist));
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
	/* (the notes under the table: indented in the kernel's, comments in
	 * report's) */
	const char *note = columns == MT_PROF_REPORT ? "# " : "  ";
	pthread_mutex_lock(&mt_reg.lock);
	uint64_t untimed = 0;
	if (columns == MT_PROF_REPORT) {
		report_rows(m, rows, n);
	} else {
		fprintf(m, "  %-24s %8s %14s %12s %12s %14s\n", "Function", "Hit", "Time", "Avg", "s^2 (us^2)", "Self");
		fprintf(m, "  %-24s %8s %14s %12s %12s %14s\n", "--------", "---", "----", "---", "----------", "----");
		for (size_t i = 0; i < n; i++) {
			const struct prow *r = &rows[i];
			char buf[MT_ADDR_NAME];
			fprintf(m, "  %-24s %8llu %11.3f us %9.3f us %12.3f %11.3f us\n",
				mt_name_of(r->ip, buf, sizeof buf), (unsigned long long)r->hits, (double)r->total / 1e3,
				mean(r) / 1e3, variance(r) / 1e6, (double)r->self / 1e3);
		}
	}
	for (size_t i = 0; i < n; i++)
		untimed += rows[i].untimed;
	/* (mcount-trace(1), stat, says what these are) */
	if (untimed) {
		fprintf(m, "%s(%llu calls in %s without a time, their returns not hooked:", note,
			(unsigned long long)untimed, columns == MT_PROF_REPORT ? "the calls" : "Hit");
		for (size_t i = 0; i < n; i++) {
			char buf[MT_ADDR_NAME];
			if (rows[i].untimed)
				fprintf(m, " %s %llu", mt_name_of(rows[i].ip, buf, sizeof buf),
					(unsigned long long)rows[i].untimed);
		}
		fprintf(m, ")\n");
	}
	pthread_mutex_unlock(&mt_reg.lock);
	uint64_t d = atomic_load(&dropped), l = atomic_load(&left), o = atomic_load(&lost);
	if (l)
		fprintf(m, "%s(%llu calls left by longjmp or an exception, not counted)\n", note, (unsigned long long)l);
	if (o)
		fprintf(m, "%s(%llu calls the profiler could not follow, not counted: deeper than %u frames, or no memory)\n",
			note, (unsigned long long)o, MT_PROF_DEPTH - MT_SHADOW);
	if (d)
		fprintf(m, "%s(%llu calls of functions the table had no room for)\n", note, (unsigned long long)d);
	uint64_t u = 0;
	for (unsigned b = 0; b < MT_PROF_BUCKETS && columns == MT_PROF_REPORT; b++)
		u += atomic_load_explicit(&no_room.n[b], memory_order_relaxed);
	if (u)
		fprintf(m, "# (%llu timed calls of functions that got no histogram, no memory for one: no p50, p90, p99)\n",
			(unsigned long long)u);
	fclose(m);
	free(rows);
	return text;
}
