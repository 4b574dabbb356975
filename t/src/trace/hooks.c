/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooks.c - a program that hooks its own functions (mcount-hooks.h)
 * and counts their calls itself: each of f0-f7 counts its calls, keeps
 * the value it returns, and checks the argument its hooks read.  What
 * the hooks count must be what the functions counted.
 *
 *   hooks count ROUNDS CHURN   8 threads; hook A (entry) with a filter
 *       changed every round while the threads wait at a barrier, hook B
 *       (entry and exit) on f3-f7 throughout: each round, A's and B's
 *       counts equal the functions' own, function by function; then A's
 *       filter changed CHURN times while the threads run: B's counts
 *       still equal, A's at most the functions'.
 *   hooks count ROUNDS CHURN own   the same with hook B's exit callback
 *       left out: each hooked function's site calls its own trampoline
 *       (x86_64, -mfentry), checked each round from the site's code.
 *   hooks unreg CYCLES   8 threads calling f0-f7; CYCLES times a hook
 *       is made with fresh data, registered, unregistered, its data
 *       freed (built with ASan: a callback that writes after that is a
 *       use after free).
 *   hooks unwind ROUNDS   longjmp through hooked frames: every exit
 *       callback is of a function that returned, once, with its value.
 *   hooks redirect ROUNDS   8 threads calling f1, which main redirects
 *       to fixed1 and back ROUNDS times (mcount_hook_redirect): every
 *       answer the old one or the new one, the new one from each
 *       redirect's return to its unredirect, the old one after; a hook
 *       on f1 sees every call, its exit the value the call returned.
 *       A program built with -pg (mcount after the prologue): ENOTSUP.
 *   hooks unload LIB [keep]   f1 redirected to a function of LIB (loaded
 *       by dlopen after start-up), which it then answers; LIB closed
 *       (dlclose): f1 answers its own again, the redirect dropped
 *       (unredirect: EINVAL), a line on stderr.  keep: unredirected
 *       before LIB is closed (the linked-in library does not see a
 *       dlclose as it happens: mcount_hook(3)).
 *   hooks sigjump SECONDS [exit]   a timer's signal handler siglongjmps
 *       out of whatever the thread runs, the library's hook and the
 *       callbacks among it, while f1 (hooked: entry, or entry and exit)
 *       is called in a loop; then, with the timer off, 1,000 calls of
 *       f1 run the callbacks 1,000 times each, and an unregister from
 *       another thread returns (an alarm kills it otherwise).
 *   hooks idreuse   a hook registered while another's unregister waits
 *       for a callback under way: the call under way, which read its
 *       function's users before the unregister, runs no callback of the
 *       new hook (which may have the old one's id), whose filter does
 *       not select that function.
 *   hooks errors   each errno of mcount-hooks.h that a program can see.
 *   hooks clobber ROUNDS   a hook whose callbacks change every register
 *       a called function may change, on functions whose arguments and
 *       values are in the registers the hooks must keep (floating-point,
 *       x87, vector, variadic, aggregates, i386's regparm, sseregparm
 *       and __m64, riscv64's fa0-fa7 and a0-a7, sparc64's %d0-%d30):
 *       each argument as the caller passed it, each value as the
 *       function returned it; an entry and an exit callback each call
 *       (riscv64's variadic one: an entry only, its return not
 *       hooked).  `clobber ROUNDS entry`: entry callbacks alone (where
 *       the sites call their functions' own trampolines: x86_64).
 *       `clobber ROUNDS entry|all general`: a hook created with
 *       MCOUNT_HOOK_GENERAL_REGS whose callbacks are built for the
 *       general registers alone (the target attribute
 *       general-regs-only, -mgeneral-regs-only for a function; x86) and
 *       change every integer register a called function may: each
 *       function's entries (and exits) as many as its calls, its
 *       arguments and values kept.  `... lie`: the flag given with the
 *       callbacks above that change the vector and x87 registers:
 *       arguments and values changed (FAIL: the save really skipped).
 *   hooks frames ROUNDS   f0-f7 called ROUNDS times each under a hook
 *       with both callbacks: an entry for each call, and an exit for
 *       each or (a frame the library cannot hook) for none; prints the
 *       counts.
 * Where mcount_regs_arg says ENOTSUP (aarch64, riscv64: the arguments
 * are where the body moved them), count prints arguments=ENOTSUP, and
 * every read must have said it.
 * Prints "ok ..." lines, or "FAIL ..." and exits 1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcount-hooks.h"

#define NF 8
#ifndef HOOKS_AT_ENTRY
#define HOOKS_AT_ENTRY 0
#endif
#define NT 8
#define NI __attribute__((no_instrument_function))
/* A function's address as the callbacks get it (ip): its symbol's
 * value, on arm without the Thumb bit a pointer to Thumb code has; on
 * ppc64's ELFv1 its code's, the first word of the descriptor that a
 * pointer to it points at */
#if defined(__arm__)
#define FN_ADDR(f) ((unsigned long)(f) & ~1ul)
#elif defined(__powerpc64__) && !(defined(_CALL_ELF) && _CALL_ELF == 2)
#define FN_ADDR(f) (*(const unsigned long *)(const void *)(f))
#else
#define FN_ADDR(f) ((unsigned long)(f))
#endif

static _Atomic unsigned long own[NF];     /* each function's own count */
static _Atomic unsigned long returned[NF];
static _Atomic unsigned long bad_arg, checked_arg, args_enotsup;
static __thread unsigned long last_ret, seen_arg;
static __thread int seen_set;
static int failed;

/* MIPS: a leaf keeps its return address in ra, where the library does
 * not hook it (mcount_hook(3): an entry callback, no exit), so the
 * functions whose exits are counted call something there. */
#if defined(__mips__)
NI __attribute__((noinline)) static void not_leaf(void)
{
	__asm__ volatile("" : : : "memory");
}
#define NOT_LEAF() not_leaf()
#else
#define NOT_LEAF() ((void)0)
#endif

#define FN(i)                                                                  \
	__attribute__((noinline)) unsigned long f##i(unsigned long x)          \
	{                                                                      \
		NOT_LEAF();                                                    \
		atomic_fetch_add_explicit(&own[i], 1, memory_order_relaxed);   \
		if (seen_set) {                                                \
			atomic_fetch_add_explicit(&checked_arg, 1, memory_order_relaxed); \
			if (seen_arg != x)                                     \
				atomic_fetch_add_explicit(&bad_arg, 1, memory_order_relaxed); \
			seen_set = 0;                                          \
		}                                                              \
		unsigned long r = x * 3 + i;                                   \
		last_ret = r;                                                  \
		atomic_fetch_add_explicit(&returned[i], 1, memory_order_relaxed); \
		return r;                                                      \
	}
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7)
static unsigned long (*const fns[NF])(unsigned long) = { f0, f1, f2, f3, f4, f5, f6, f7 };

struct counts {
	_Atomic unsigned long in[NF], out[NF], bad_ret;
	int check_args;
};

NI static int index_of(unsigned long ip)
{
	for (int i = 0; i < NF; i++)
		if (FN_ADDR(fns[i]) == ip)
			return i;
	return -1;
}

NI static void on_entry(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	struct counts *c = data;
	int i = index_of(ip);
	if (i < 0)
		return;
	atomic_fetch_add_explicit(&c->in[i], 1, memory_order_relaxed);
	if (c->check_args) {
		errno = 0;
		unsigned long v = mcount_regs_arg(r, 0);
		if (!v && errno == ENOTSUP) {
			/* (documented where the hook runs after the function
			 * has moved its arguments: aarch64, riscv64) */
			atomic_fetch_add_explicit(&args_enotsup, 1, memory_order_relaxed);
		} else {
			seen_arg = v;
			seen_set = 1;
		}
	}
}

NI static void on_exit_cb(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	struct counts *c = data;
	int i = index_of(ip);
	if (i < 0)
		return;
	atomic_fetch_add_explicit(&c->out[i], 1, memory_order_relaxed);
	if (mcount_regs_return(r) != last_ret)
		atomic_fetch_add_explicit(&c->bad_ret, 1, memory_order_relaxed);
}

NI static void fail(const char *what, int i, unsigned long got, unsigned long want)
{
	printf("FAIL %s f%d: %lu, want %lu\n", what, i, got, want);
	failed = 1;
}

/* ---- count ---- */

static pthread_barrier_t bar;
static atomic_int phase;                  /* 0 rounds, 1 churn, 2 stop */
static atomic_int churn_over;
static int per_round = 50;

NI static void *worker(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg;
	for (;;) {
		pthread_barrier_wait(&bar);
		int ph = atomic_load(&phase);
		if (ph == 2)
			return NULL;
		if (ph == 0) {
			for (int k = 0; k < per_round; k++)
				for (int i = 0; i < NF; i++)
					fns[i](x++);
		} else {
			while (!atomic_load_explicit(&churn_over, memory_order_relaxed))
				for (int i = 0; i < NF; i++)
					fns[i](x++);
		}
		pthread_barrier_wait(&bar);
	}
}

/* The counts at a moment: the functions' own, hook A's entries, hook
 * B's entries and exits. */
struct snap {
	unsigned long own[NF], a[NF], b[NF], x[NF];
};

NI static void take(struct snap *s, const struct counts *a, const struct counts *b)
{
	for (int i = 0; i < NF; i++) {
		s->own[i] = own[i];
		s->a[i] = a->in[i];
		s->b[i] = b->in[i];
		s->x[i] = b->out[i];
	}
}

/* Both hooks without exit callbacks (count's `own`): every function's
 * site calls its own trampoline (mcount_hook(3)), not the hook. */
static int own_mode;

/* Hook B (f3-f7) saw each call since s, entry and exit: d of f_i. */
NI static void check_b(const char *when, const struct snap *s, const struct counts *b, int i, unsigned long d)
{
	char what[64];
	snprintf(what, sizeof what, "hook B entries (%s)", when);
	if (b->in[i] - s->b[i] != (i >= 3 ? d : 0))
		fail(what, i, b->in[i] - s->b[i], i >= 3 ? d : 0);
	if (own_mode)
		return;
	snprintf(what, sizeof what, "hook B exits (%s)", when);
	if (b->out[i] - s->x[i] != (i >= 3 ? d : 0))
		fail(what, i, b->out[i] - s->x[i], i >= 3 ? d : 0);
}

NI static void filter_of(unsigned sel, char *buf)
{
	buf[0] = 0;
	for (int i = 0; i < NF; i++)
		if (sel & (1u << i))
			sprintf(buf + strlen(buf), "%sf%d", buf[0] ? "," : "", i);
	if (!buf[0])
		strcpy(buf, "no_such_function");
}

#if defined(__x86_64__)
/* Does f_i's site (its first instruction, after an endbr) call
 * a function's own trampoline: a call (e8 rel32, or 67 e8 rel32) to a
 * stub that loads %r11d (41 bb imm32)?  That is, not the hook. */
NI static int calls_own(int i)
{
	const unsigned char *p = (const unsigned char *)fns[i];
	if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4))
		p += 4;
	unsigned k = p[0] == 0x67;
	if (p[k] != 0xe8)
		return 0;
	int32_t rel;
	memcpy(&rel, p + k + 1, 4);
	const unsigned char *t = p + k + 5 + rel;
	return t[0] == 0x41 && t[1] == 0xbb;
}
#endif

NI static int count(int rounds, int churn)
{
	static struct counts a, b;
	b.check_args = 1;
	struct mcount_hook *ha = mcount_hook_create(on_entry, NULL, &a, 0);
	struct mcount_hook *hb = mcount_hook_create(on_entry, own_mode ? NULL : on_exit_cb, &b, 0);
	if (!ha || !hb || mcount_hook_filter(hb, "f[3-7]") || mcount_hook_register(hb) ||
	    mcount_hook_filter(ha, "no_such_function") || mcount_hook_register(ha)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	pthread_barrier_init(&bar, NULL, NT + 1);
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)(size_t)(i * 1000003));
	unsigned long calls = 0;
	for (int r = 0; r < rounds && !failed; r++) {
		unsigned sel = (unsigned)(r * 37 + 11) & 0xff;
		char f[64];
		filter_of(sel, f);
		if (mcount_hook_filter(ha, f)) {
			printf("FAIL filter %s: %s\n", f, strerror(errno));
			return 1;
		}
		struct snap s0;
		take(&s0, &a, &b);
		atomic_store(&phase, 0);
		pthread_barrier_wait(&bar);
		pthread_barrier_wait(&bar);
		for (int i = 0; i < NF; i++) {
			unsigned long d = own[i] - s0.own[i];
			calls += d;
			if (d != (unsigned long)NT * per_round)
				fail("own count", i, d, (unsigned long)NT * per_round);
			if (a.in[i] - s0.a[i] != (sel & (1u << i) ? d : 0))
				fail("hook A (fenced round)", i, a.in[i] - s0.a[i], sel & (1u << i) ? d : 0);
			check_b("fenced round", &s0, &b, i, d);
#if defined(__x86_64__)
			/* (what the site's code is: a function hooks alone use,
			 * none with an exit (A; B has one unless own_mode), calls
			 * its own trampoline where the site is at its entry
			 * (-mfentry: the test defines HOOKS_AT_ENTRY), unless the
			 * tracer has it too, as under MCOUNT_TRACE_FILTER) */
			int hooked = i >= 3 || (sel & (1u << i));
			const char *tf = getenv("MCOUNT_TRACE_FILTER");
			char name[8];
			snprintf(name, sizeof name, "f%d", i);
			int traced = tf && strstr(tf, name);
			int want = HOOKS_AT_ENTRY && hooked && !traced && (own_mode || i < 3);
			if (calls_own(i) != want)
				fail("site calls its own trampoline (1) or the hook or is a NOP (0)", i,
				     (unsigned long)calls_own(i), (unsigned long)want);
#endif
		}
	}
	printf("ok fenced rounds=%d calls=%lu\n", rounds, calls);
	/* the churn: B's counts from here on against the functions' */
	struct snap s0;
	take(&s0, &a, &b);
	atomic_store(&phase, 1);
	pthread_barrier_wait(&bar);
	for (int c = 0; c < churn; c++) {
		char f[64];
		filter_of((unsigned)(c * 13 + 5) & 0xff, f);
		if (mcount_hook_filter(ha, c % 7 == 6 ? "f*" : f)) {
			printf("FAIL churn filter %s: %s\n", f, strerror(errno));
			return 1;
		}
	}
	atomic_store(&churn_over, 1);
	pthread_barrier_wait(&bar);
	atomic_store(&phase, 2);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	unsigned long ahits = 0;
	for (int i = 0; i < NF; i++) {
		unsigned long d = own[i] - s0.own[i];
		calls += d;
		ahits += a.in[i] - s0.a[i];
		if (a.in[i] - s0.a[i] > d)
			fail("hook A (churn) above the calls", i, a.in[i] - s0.a[i], d);
		check_b("churn", &s0, &b, i, d);
	}
	if (b.bad_ret)
		fail("hook B return values", -1, b.bad_ret, 0);
	if (bad_arg || (!checked_arg && !args_enotsup))
		fail("hook B arguments (wrong, checked)", -1, bad_arg, checked_arg);
	if (checked_arg && args_enotsup)
		fail("hook B arguments read, and ENOTSUP", -1, args_enotsup, 0);
	if (mcount_hook_unregister(ha) || mcount_hook_unregister(hb)) {
		printf("FAIL unregister: %s\n", strerror(errno));
		return 1;
	}
	mcount_hook_destroy(ha);
	mcount_hook_destroy(hb);
	/* unregistered: no callback any more */
	unsigned long before = b.in[3];
	f3(1);
	if (b.in[3] != before)
		fail("hook B after unregister", 3, b.in[3], before);
	if (args_enotsup)
		printf("ok churn=%d A-hits=%lu arguments=ENOTSUP calls=%lu\n", churn, ahits, calls);
	else
		printf("ok churn=%d A-hits=%lu arguments=%lu calls=%lu\n", churn, ahits, (unsigned long)checked_arg,
		       calls);
	printf("own");
	for (int i = 0; i < NF; i++)
		printf(" f%d=%lu", i, (unsigned long)own[i]);
	printf("\n");
	return failed;
}

/* ---- unreg ---- */

static atomic_int stop;

NI static void *spinner(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		for (int i = 0; i < NF; i++)
			fns[i](x++);
	return NULL;
}

NI static int unreg(int cycles)
{
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, spinner, (void *)(size_t)i);
	unsigned long seen = 0;
	for (int c = 0; c < cycles; c++) {
		struct counts *d = calloc(1, sizeof *d);
		struct mcount_hook *h = mcount_hook_create(on_entry, on_exit_cb, d, 0);
		if (!d || !h || mcount_hook_filter(h, c & 1 ? "f*" : "f[1357]") || mcount_hook_register(h)) {
			printf("FAIL cycle %d: %s\n", c, strerror(errno));
			return 1;
		}
		for (int k = 0; k < 50; k++)
			f0((unsigned long)k);
		if (mcount_hook_unregister(h)) {
			printf("FAIL unregister %d: %s\n", c, strerror(errno));
			return 1;
		}
		for (int i = 0; i < NF; i++)
			seen += d->in[i];
		mcount_hook_destroy(h);
		memset(d, 0xa5, sizeof *d);
		free(d);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	if (!seen)
		fail("callbacks seen", -1, 0, 1);
	printf("ok unreg cycles=%d callbacks=%lu\n", cycles, seen);
	return failed;
}

/* ---- unwind ---- */

static jmp_buf jb;

__attribute__((noinline)) unsigned long g_jump(unsigned long x)
{
	if (x % 3 == 0)
		longjmp(jb, 1);
	return f5(x) + 1;
}

__attribute__((noinline)) unsigned long g_mid(unsigned long x)
{
	unsigned long r = f4(x) + g_jump(x);
	last_ret = r;
	return r;
}

NI static int unwind(int rounds)
{
	static struct counts c;
	struct mcount_hook *h = mcount_hook_create(on_entry, on_exit_cb, &c, 0);
	if (!h || mcount_hook_filter(h, "f[0-7],g_*") || mcount_hook_register(h)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	unsigned long r0[NF];
	for (int i = 0; i < NF; i++)
		r0[i] = returned[i];
	int jumps = 0;
	for (int k = 0; k < rounds; k++) {
		if (setjmp(jb)) {
			jumps++;
			continue;
		}
		/* f4 returns; g_jump longjmps (x % 3 == 0) or calls f5 */
		(void)g_mid((unsigned long)k);
		(void)f6((unsigned long)k);
	}
	mcount_hook_unregister(h);
	mcount_hook_destroy(h);
	for (int i = 0; i < NF; i++) {
		unsigned long d = returned[i] - r0[i];
		if (c.out[i] != d)
			fail("exits against returns", i, c.out[i], d);
		if (c.in[i] != d)
			fail("entries against calls", i, c.in[i], d);
	}
	if (c.bad_ret)
		fail("return values", -1, c.bad_ret, 0);
	printf("ok unwind rounds=%d longjmps=%d exits=%lu\n", rounds, jumps,
	       (unsigned long)(c.out[4] + c.out[5] + c.out[6]));
	return failed;
}

/* ---- frames ---- */

/* Entries for every call; exits for every call, or (a frame whose
 * return the library cannot hook: aarch64's pac-ret on a CPU that
 * signs) none: the counts printed, the caller says which it wants. */
NI static int frames(int rounds)
{
	static struct counts c;
	struct mcount_hook *h = mcount_hook_create(on_entry, on_exit_cb, &c, 0);
	if (!h || mcount_hook_filter(h, "f[0-7]") || mcount_hook_register(h)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	unsigned long o0[NF], calls = 0, exits = 0;
	for (int i = 0; i < NF; i++)
		o0[i] = own[i];
	for (int k = 0; k < rounds; k++)
		for (int i = 0; i < NF; i++)
			fns[i]((unsigned long)k);
	mcount_hook_unregister(h);
	mcount_hook_destroy(h);
	for (int i = 0; i < NF; i++) {
		unsigned long d = own[i] - o0[i];
		calls += d;
		exits += c.out[i];
		if (c.in[i] != d)
			fail("entries against calls", i, c.in[i], d);
		if (c.out[i] && c.out[i] != d)
			fail("exits: some, not all", i, c.out[i], d);
	}
	if (c.bad_ret)
		fail("return values", -1, c.bad_ret, 0);
	printf("ok frames rounds=%d calls=%lu exits=%lu\n", rounds, calls, exits);
	return failed;
}

NI static int expect(const char *what, int rc, int want_errno);

/* ---- redirect ---- */

static _Atomic unsigned long fixed_calls;

NI unsigned long fixed1(unsigned long x)
{
	atomic_fetch_add_explicit(&fixed_calls, 1, memory_order_relaxed);
	unsigned long r = x * 3 + 100;
	last_ret = r;
	return r;
}

/* Main's steps, counted: 4k the old answer expected, 4k + 2 the new one,
 * odd either (a switch under way); a call whose step is the same before
 * and after it must give that step's answer. */
static atomic_ulong step;
static _Atomic unsigned long bad_answer, calls_made, new_seen;

NI static void *asker(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg * 1000003;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned long s0 = atomic_load(&step);
		unsigned long r = f1(++x);
		unsigned long s1 = atomic_load(&step);
		atomic_fetch_add_explicit(&calls_made, 1, memory_order_relaxed);
		bool is_new = r == x * 3 + 100, is_old = r == x * 3 + 1;
		new_seen += is_new;
		bool settled = s0 == s1 && !(s0 & 1);
		if ((!is_new && !is_old) || (settled && (s0 & 2 ? !is_new : !is_old)))
			atomic_fetch_add_explicit(&bad_answer, 1, memory_order_relaxed);
	}
	return NULL;
}

NI static int redirect(int rounds, int want_enotsup)
{
	if (want_enotsup) {
		int rc = mcount_hook_redirect("f1", (void *)fixed1);
		if (rc != -1 || errno != ENOTSUP)
			fail("redirect of an mcount site: errno", -1, (unsigned long)errno, ENOTSUP);
		printf("ok redirect ENOTSUP\n");
		return failed;
	}
	static struct counts c;
	struct mcount_hook *h = mcount_hook_create(on_entry, on_exit_cb, &c, 0);
	if (!h || mcount_hook_filter(h, "f1") || mcount_hook_register(h)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	unsigned long own0 = own[1];
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, asker, (void *)(size_t)i);
	struct timespec ms = { 0, 1000000 };
	for (int r = 0; r < rounds && !failed; r++) {
		atomic_fetch_add(&step, 1);
		if (mcount_hook_redirect("f1", (void *)fixed1)) {
			printf("FAIL redirect: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		atomic_fetch_add(&step, 1);
		nanosleep(&ms, NULL);
		atomic_fetch_add(&step, 1);
		if (mcount_hook_unredirect("f1")) {
			printf("FAIL unredirect: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		atomic_fetch_add(&step, 1);
		nanosleep(&ms, NULL);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	mcount_hook_unregister(h);
	mcount_hook_destroy(h);
	unsigned long made = calls_made, body = own[1] - own0;
	if (bad_answer)
		fail("answers neither the old nor the new one, or the wrong one", 1, bad_answer, 0);
	if (!new_seen || !fixed_calls)
		fail("calls redirected", 1, new_seen, 1);
	if (body + fixed_calls != made)
		fail("calls of f1's body and fixed1's against the calls made", 1, body + fixed_calls, made);
	if (c.in[1] != made)
		fail("hook entries against the calls made", 1, c.in[1], made);
	if (c.out[1] != made)
		fail("hook exits against the calls made", 1, c.out[1], made);
	if (c.bad_ret)
		fail("exit values", 1, c.bad_ret, 0);
	/* the errors of a redirect */
	expect("redirect of no function", mcount_hook_redirect("no_such_function", (void *)fixed1), ENOENT);
	expect("redirect of several", mcount_hook_redirect("f*", (void *)fixed1), EINVAL);
	expect("redirect to data", mcount_hook_redirect("f2", (void *)&own[0]), EINVAL);
	expect("redirect to NULL", mcount_hook_redirect("f2", NULL), EINVAL);
	expect("unredirect of one not redirected", mcount_hook_unredirect("f2"), EINVAL);
	if (mcount_hook_redirect("f2", (void *)fixed1))
		fail("redirect f2", 2, (unsigned long)errno, 0);
	expect("redirect twice", mcount_hook_redirect("f2", (void *)fixed1), EBUSY);
	if (f2(1) != 103)
		fail("f2 redirected", 2, f2(1), 103);
	if (mcount_hook_unredirect("f2") || f2(1) != 5)
		fail("f2 back", 2, f2(1), 5);
	printf("ok redirect rounds=%d calls=%lu redirected=%lu\n", rounds, made, (unsigned long)fixed_calls);
	return failed;
}

/* ---- clobber ----
 *
 * Callbacks that change every register the ABI lets a called function
 * change (clobber_all: the argument and return registers, integer,
 * vector and x87), on functions whose arguments and values travel in
 * the registers a hook must keep for them: each function checks what it
 * was given, and its caller what it returned. */

static _Atomic unsigned long clobbers;
/* each function's calls with an argument changed, or its value */
enum { CF_DOUBLE, CF_LONG_DOUBLE, CF_VARIADIC, CF_QUAD, CF_BIG, CF_VECTOR, CF_REGPARM, CF_SSEREGPARM, CF_MMX,
       CF_FREGS, CF_XREGS, CF_F13, CF_F128, CF_QQUAD, CF_D16, CF_N };
static const char *const cf_names[CF_N] = { "cf_double", "cf_long_double", "cf_variadic", "cf_quad", "cf_big",
					    "cf_vector", "cf_regparm", "cf_sseregparm", "cf_mmx",
					    "cf_fregs", "cf_xregs", "cf_f13", "cf_f128", "cf_qquad", "cf_d16" };
static _Atomic unsigned long bad_in[CF_N], bad_out[CF_N];

NI __attribute__((noinline)) static void clobber_all(void)
{
#if defined(__x86_64__) || defined(__i386__)
	/* the x87 stack, all eight registers (a called function has them
	 * all: it is empty at a call), then the SSE registers */
	__asm__ volatile("fld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\t"
			 "fstp %%st(0)\n\tfstp %%st(0)\n\tfstp %%st(0)\n\tfstp %%st(0)\n\t"
			 "fstp %%st(0)\n\tfstp %%st(0)\n\tfstp %%st(0)\n\tfstp %%st(0)" : : : "memory", "cc");
#endif
#if defined(__x86_64__)
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\tpcmpeqd %%xmm1, %%xmm1\n\tpcmpeqd %%xmm2, %%xmm2\n\t"
			 "pcmpeqd %%xmm3, %%xmm3\n\tpcmpeqd %%xmm4, %%xmm4\n\tpcmpeqd %%xmm5, %%xmm5\n\t"
			 "pcmpeqd %%xmm6, %%xmm6\n\tpcmpeqd %%xmm7, %%xmm7\n\tpcmpeqd %%xmm8, %%xmm8\n\t"
			 "pcmpeqd %%xmm9, %%xmm9\n\tpcmpeqd %%xmm10, %%xmm10\n\tpcmpeqd %%xmm11, %%xmm11\n\t"
			 "pcmpeqd %%xmm12, %%xmm12\n\tpcmpeqd %%xmm13, %%xmm13\n\tpcmpeqd %%xmm14, %%xmm14\n\t"
			 "pcmpeqd %%xmm15, %%xmm15\n\t"
			 "movq $-1, %%rax\n\tmovq $-1, %%rcx\n\tmovq $-1, %%rdx\n\tmovq $-1, %%rsi\n\t"
			 "movq $-1, %%rdi\n\tmovq $-1, %%r8\n\tmovq $-1, %%r9\n\tmovq $-1, %%r10\n\tmovq $-1, %%r11"
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2",
			   "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
			   "xmm14", "xmm15", "memory", "cc");
#elif defined(__i386__)
#if defined(__SSE2__)
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\tpcmpeqd %%xmm1, %%xmm1\n\tpcmpeqd %%xmm2, %%xmm2\n\t"
			 "pcmpeqd %%xmm3, %%xmm3\n\tpcmpeqd %%xmm4, %%xmm4\n\tpcmpeqd %%xmm5, %%xmm5\n\t"
			 "pcmpeqd %%xmm6, %%xmm6\n\tpcmpeqd %%xmm7, %%xmm7"
			 : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "memory");
#endif
	__asm__ volatile("movl $-1, %%eax\n\tmovl $-1, %%ecx\n\tmovl $-1, %%edx" : : : "eax", "ecx", "edx", "cc");
#elif defined(__aarch64__)
	/* v8-v15 whole: their low halves are the callee's to keep, which
	 * the compiler does for the asm; their upper halves are not */
	__asm__ volatile("movi v0.16b, #0xff\n\tmovi v1.16b, #0xff\n\tmovi v2.16b, #0xff\n\tmovi v3.16b, #0xff\n\t"
			 "movi v4.16b, #0xff\n\tmovi v5.16b, #0xff\n\tmovi v6.16b, #0xff\n\tmovi v7.16b, #0xff\n\t"
			 "movi v8.16b, #0xff\n\tmovi v9.16b, #0xff\n\tmovi v10.16b, #0xff\n\tmovi v11.16b, #0xff\n\t"
			 "movi v12.16b, #0xff\n\tmovi v13.16b, #0xff\n\tmovi v14.16b, #0xff\n\tmovi v15.16b, #0xff\n\t"
			 "movi v16.16b, #0xff\n\tmovi v17.16b, #0xff\n\tmovi v18.16b, #0xff\n\tmovi v19.16b, #0xff\n\t"
			 "movi v20.16b, #0xff\n\tmovi v21.16b, #0xff\n\tmovi v22.16b, #0xff\n\tmovi v23.16b, #0xff\n\t"
			 "movi v24.16b, #0xff\n\tmovi v25.16b, #0xff\n\tmovi v26.16b, #0xff\n\tmovi v27.16b, #0xff\n\t"
			 "movi v28.16b, #0xff\n\tmovi v29.16b, #0xff\n\tmovi v30.16b, #0xff\n\tmovi v31.16b, #0xff\n\t"
			 "mov x0, #-1\n\tmov x1, #-1\n\tmov x2, #-1\n\tmov x3, #-1\n\tmov x4, #-1\n\tmov x5, #-1\n\t"
			 "mov x6, #-1\n\tmov x7, #-1\n\tmov x8, #-1\n\tmov x9, #-1\n\tmov x10, #-1\n\tmov x11, #-1\n\t"
			 "mov x12, #-1\n\tmov x13, #-1\n\tmov x14, #-1\n\tmov x15, #-1\n\tmov x16, #-1\n\tmov x17, #-1"
			 : : : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
			   "x14", "x15", "x16", "x17", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
			   "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
			   "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "memory", "cc");
#elif defined(__riscv) && __riscv_xlen == 64
	/* every integer and floating-point register the caller saves:
	 * t0-t6, a0-a7, ft0-ft11, fa0-fa7 (no vector register carries an
	 * argument in the standard convention) */
	__asm__ volatile("li t0, -1\n\tli t1, -1\n\tli t2, -1\n\tli t3, -1\n\tli t4, -1\n\tli t5, -1\n\tli t6, -1\n\t"
			 "li a0, -1\n\tli a1, -1\n\tli a2, -1\n\tli a3, -1\n\tli a4, -1\n\tli a5, -1\n\t"
			 "li a6, -1\n\tli a7, -1\n\t"
			 "fmv.d.x ft0, t0\n\tfmv.d.x ft1, t0\n\tfmv.d.x ft2, t0\n\tfmv.d.x ft3, t0\n\t"
			 "fmv.d.x ft4, t0\n\tfmv.d.x ft5, t0\n\tfmv.d.x ft6, t0\n\tfmv.d.x ft7, t0\n\t"
			 "fmv.d.x ft8, t0\n\tfmv.d.x ft9, t0\n\tfmv.d.x ft10, t0\n\tfmv.d.x ft11, t0\n\t"
			 "fmv.d.x fa0, t0\n\tfmv.d.x fa1, t0\n\tfmv.d.x fa2, t0\n\tfmv.d.x fa3, t0\n\t"
			 "fmv.d.x fa4, t0\n\tfmv.d.x fa5, t0\n\tfmv.d.x fa6, t0\n\tfmv.d.x fa7, t0"
			 : : : "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
			   "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9", "ft10", "ft11", "fa0",
			   "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "memory");
#elif defined(__powerpc__)
	/* r0, r3-r12, ctr, the volatile CR fields (0, 1, 5-7), f0-f13, and
	 * where the unit has them v0-v19 and vs0-vs13 whole (VSX: the other
	 * doubleword of f0-f13) */
	static const double ones = -1.0 / 3;
	__asm__ volatile("lfd 0, 0(%0)\n\tlfd 1, 0(%0)\n\tlfd 2, 0(%0)\n\tlfd 3, 0(%0)\n\tlfd 4, 0(%0)\n\t"
			 "lfd 5, 0(%0)\n\tlfd 6, 0(%0)\n\tlfd 7, 0(%0)\n\tlfd 8, 0(%0)\n\tlfd 9, 0(%0)\n\t"
			 "lfd 10, 0(%0)\n\tlfd 11, 0(%0)\n\tlfd 12, 0(%0)\n\tlfd 13, 0(%0)\n\t"
			 "li 0, -1\n\tmtctr 0\n\tmtcrf 0xc7, 0\n\tli 3, -1\n\tli 4, -1\n\tli 5, -1\n\tli 6, -1\n\t"
			 "li 7, -1\n\tli 8, -1\n\tli 9, -1\n\tli 10, -1\n\tli 11, -1\n\tli 12, -1"
			 : : "b"(&ones) : "r0", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "ctr",
			   "cr0", "cr1", "cr5", "cr6", "cr7", "fr0", "fr1", "fr2", "fr3", "fr4", "fr5", "fr6", "fr7",
			   "fr8", "fr9", "fr10", "fr11", "fr12", "fr13", "memory");
#if defined(__ALTIVEC__)
	__asm__ volatile("vspltisw 0, -1\n\tvspltisw 1, -1\n\tvspltisw 2, -1\n\tvspltisw 3, -1\n\t"
			 "vspltisw 4, -1\n\tvspltisw 5, -1\n\tvspltisw 6, -1\n\tvspltisw 7, -1\n\t"
			 "vspltisw 8, -1\n\tvspltisw 9, -1\n\tvspltisw 10, -1\n\tvspltisw 11, -1\n\t"
			 "vspltisw 12, -1\n\tvspltisw 13, -1\n\tvspltisw 14, -1\n\tvspltisw 15, -1\n\t"
			 "vspltisw 16, -1\n\tvspltisw 17, -1\n\tvspltisw 18, -1\n\tvspltisw 19, -1"
			 : : : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
			   "v14", "v15", "v16", "v17", "v18", "v19");
#endif
#if defined(__VSX__)
	__asm__ volatile("xxlor 0, 32, 32\n\txxlor 1, 32, 32\n\txxlor 2, 32, 32\n\txxlor 3, 32, 32\n\t"
			 "xxlor 4, 32, 32\n\txxlor 5, 32, 32\n\txxlor 6, 32, 32\n\txxlor 7, 32, 32\n\t"
			 "xxlor 8, 32, 32\n\txxlor 9, 32, 32\n\txxlor 10, 32, 32\n\txxlor 11, 32, 32\n\t"
			 "xxlor 12, 32, 32\n\txxlor 13, 32, 32"
			 : : : "vs0", "vs1", "vs2", "vs3", "vs4", "vs5", "vs6", "vs7", "vs8", "vs9", "vs10", "vs11",
			   "vs12", "vs13");
#endif
#elif defined(__s390x__)
	/* r0-r5, f0-f7, and where the unit has them (the vector facility)
	 * v0-v7 whole and v16-v31; the condition code */
	static const double ones = -1.0 / 3;
	__asm__ volatile("ld %%f0, 0(%0)\n\tld %%f1, 0(%0)\n\tld %%f2, 0(%0)\n\tld %%f3, 0(%0)\n\t"
			 "ld %%f4, 0(%0)\n\tld %%f5, 0(%0)\n\tld %%f6, 0(%0)\n\tld %%f7, 0(%0)\n\t"
			 "lghi %%r0, -1\n\tlghi %%r1, -1\n\tlghi %%r2, -1\n\tlghi %%r3, -1\n\tlghi %%r4, -1\n\t"
			 "lghi %%r5, -1\n\tltgr %%r0, %%r0"
			 : : "a"(&ones) : "r0", "r1", "r2", "r3", "r4", "r5", "f0", "f1", "f2", "f3", "f4", "f5", "f6",
			   "f7", "memory", "cc");
#if defined(__VX__)
	__asm__ volatile("vgbm %%v0, 0xffff\n\tvgbm %%v1, 0xffff\n\tvgbm %%v2, 0xffff\n\tvgbm %%v3, 0xffff\n\t"
			 "vgbm %%v4, 0xffff\n\tvgbm %%v5, 0xffff\n\tvgbm %%v6, 0xffff\n\tvgbm %%v7, 0xffff\n\t"
			 "vgbm %%v16, 0xffff\n\tvgbm %%v17, 0xffff\n\tvgbm %%v18, 0xffff\n\tvgbm %%v19, 0xffff\n\t"
			 "vgbm %%v20, 0xffff\n\tvgbm %%v21, 0xffff\n\tvgbm %%v22, 0xffff\n\tvgbm %%v23, 0xffff\n\t"
			 "vgbm %%v24, 0xffff\n\tvgbm %%v25, 0xffff\n\tvgbm %%v26, 0xffff\n\tvgbm %%v27, 0xffff\n\t"
			 "vgbm %%v28, 0xffff\n\tvgbm %%v29, 0xffff\n\tvgbm %%v30, 0xffff\n\tvgbm %%v31, 0xffff"
			 : : : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21",
			   "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
#endif
#elif defined(__arm__)
	/* r0-r3, ip, d0-d7, and where the unit has them (NEON) d16-d31;
	 * the flags */
	static const double ones = -1.0 / 3;
	__asm__ volatile("vldr d0, [%0]\n\tvldr d1, [%0]\n\tvldr d2, [%0]\n\tvldr d3, [%0]\n\t"
			 "vldr d4, [%0]\n\tvldr d5, [%0]\n\tvldr d6, [%0]\n\tvldr d7, [%0]\n\t"
			 "mvn r0, #0\n\tmvn r1, #0\n\tmvn r2, #0\n\tmvn r3, #0\n\tmvn ip, #0\n\tcmp r0, #0"
			 : : "r"(&ones) : "r0", "r1", "r2", "r3", "ip", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7",
			   "memory", "cc");
#if defined(__ARM_NEON)
	__asm__ volatile("vmov.i8 q8, #0xff\n\tvmov.i8 q9, #0xff\n\tvmov.i8 q10, #0xff\n\tvmov.i8 q11, #0xff\n\t"
			 "vmov.i8 q12, #0xff\n\tvmov.i8 q13, #0xff\n\tvmov.i8 q14, #0xff\n\tvmov.i8 q15, #0xff"
			 : : : "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28",
			   "d29", "d30", "d31");
#endif
#elif defined(__mips__)
	/* v0, v1, a0-a3, t0-t9 (n64: a4-a7, t0-t3, t8, t9), hi, lo and the
	 * floating-point registers the caller saves (n64: f0-f23; o32:
	 * f0-f19, as doubles: the even ones, 64 bits wide in either FR mode) */
	static const double ones = -1.0 / 3;
	__asm__ volatile("li $2, -1\n\tli $3, -1\n\tli $4, -1\n\tli $5, -1\n\tli $6, -1\n\tli $7, -1\n\t"
			 "li $8, -1\n\tli $9, -1\n\tli $10, -1\n\tli $11, -1\n\tli $12, -1\n\tli $13, -1\n\t"
			 "li $14, -1\n\tli $15, -1\n\tli $24, -1\n\tli $25, -1\n\tmthi $2\n\tmtlo $2\n\t"
			 "ldc1 $f0, 0(%0)\n\tldc1 $f2, 0(%0)\n\tldc1 $f4, 0(%0)\n\tldc1 $f6, 0(%0)\n\t"
			 "ldc1 $f8, 0(%0)\n\tldc1 $f10, 0(%0)\n\tldc1 $f12, 0(%0)\n\tldc1 $f14, 0(%0)\n\t"
			 "ldc1 $f16, 0(%0)\n\tldc1 $f18, 0(%0)"
#if _MIPS_SIM == _ABI64
			 "\n\tldc1 $f1, 0(%0)\n\tldc1 $f3, 0(%0)\n\tldc1 $f5, 0(%0)\n\tldc1 $f7, 0(%0)\n\t"
			 "ldc1 $f9, 0(%0)\n\tldc1 $f11, 0(%0)\n\tldc1 $f13, 0(%0)\n\tldc1 $f15, 0(%0)\n\t"
			 "ldc1 $f17, 0(%0)\n\tldc1 $f19, 0(%0)\n\tldc1 $f20, 0(%0)\n\tldc1 $f21, 0(%0)\n\t"
			 "ldc1 $f22, 0(%0)\n\tldc1 $f23, 0(%0)"
#endif
			 : : "r"(&ones) : "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "$10", "$11", "$12", "$13",
			   "$14", "$15", "$24", "$25", "hi", "lo", "$f0", "$f1", "$f2", "$f3", "$f4", "$f5", "$f6", "$f7",
			   "$f8", "$f9", "$f10", "$f11", "$f12", "$f13", "$f14", "$f15", "$f16", "$f17", "$f18", "$f19",
#if _MIPS_SIM == _ABI64
			   "$f20", "$f21", "$f22", "$f23",
#endif
			   "memory");
#elif defined(__sparc__) && defined(__arch64__)
	/* %g1-%g5 (%g2-%g4 the application's, which GCC's -mapp-regs, the
	 * default, lets a callee change), %o0-%o5, every floating-point
	 * register (%d0-%d62: none is kept across a call), the integer and
	 * floating-point condition codes */
	static const double ones = -1.0 / 3;
	__asm__ volatile("ldd [%0], %%f0\n\tldd [%0], %%f2\n\tldd [%0], %%f4\n\tldd [%0], %%f6\n\t"
			 "ldd [%0], %%f8\n\tldd [%0], %%f10\n\tldd [%0], %%f12\n\tldd [%0], %%f14\n\t"
			 "ldd [%0], %%f16\n\tldd [%0], %%f18\n\tldd [%0], %%f20\n\tldd [%0], %%f22\n\t"
			 "ldd [%0], %%f24\n\tldd [%0], %%f26\n\tldd [%0], %%f28\n\tldd [%0], %%f30\n\t"
			 "ldd [%0], %%f32\n\tldd [%0], %%f34\n\tldd [%0], %%f36\n\tldd [%0], %%f38\n\t"
			 "ldd [%0], %%f40\n\tldd [%0], %%f42\n\tldd [%0], %%f44\n\tldd [%0], %%f46\n\t"
			 "ldd [%0], %%f48\n\tldd [%0], %%f50\n\tldd [%0], %%f52\n\tldd [%0], %%f54\n\t"
			 "ldd [%0], %%f56\n\tldd [%0], %%f58\n\tldd [%0], %%f60\n\tldd [%0], %%f62\n\t"
			 "fcmpd %%fcc0, %%f0, %%f2\n\tfcmpd %%fcc1, %%f0, %%f2\n\t"
			 "fcmpd %%fcc2, %%f0, %%f2\n\tfcmpd %%fcc3, %%f0, %%f2\n\t"
			 "mov -1, %%g1\n\tmov -1, %%g2\n\tmov -1, %%g3\n\tmov -1, %%g4\n\tmov -1, %%g5\n\t"
			 "mov -1, %%o0\n\tmov -1, %%o1\n\tmov -1, %%o2\n\tmov -1, %%o3\n\tmov -1, %%o4\n\t"
			 "mov -1, %%o5\n\tcmp %%g1, 0"
			 : : "r"(&ones) : "g1", "g2", "g3", "g4", "g5", "o0", "o1", "o2", "o3", "o4", "o5", "f0", "f1",
			   "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15", "f16",
			   "f17", "f18", "f19", "f20", "f21", "f22", "f23", "f24", "f25", "f26", "f27", "f28", "f29", "f30",
			   "f31", "f32", "f34", "f36", "f38", "f40", "f42", "f44", "f46", "f48", "f50", "f52", "f54",
			   "f56", "f58", "f60", "f62", "fcc0", "fcc1", "fcc2", "fcc3", "memory", "cc");
#endif
}

/* each function's address, and its entry and exit callbacks */
static unsigned long cf_addr[CF_N];
static _Atomic unsigned long cf_in[CF_N], cf_out[CF_N];

NI static void cf_count(unsigned long ip, _Atomic unsigned long *n)
{
	for (int i = 0; i < CF_N; i++)
		if (cf_addr[i] == ip)
			atomic_fetch_add_explicit(&n[i], 1, memory_order_relaxed);
}

/* sparc64: cf_xregs's eight words as mcount_regs_arg reads them, six
 * from the function's window, two from its caller's argument area */
#if defined(__sparc__) && defined(__arch64__)
#define XREGS_ARGS 1
static _Atomic unsigned long xregs_read, xregs_bad;
#endif

NI static void on_clobber(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	atomic_fetch_add_explicit(&clobbers, 1, memory_order_relaxed);
	cf_count(ip, cf_in);
#ifdef XREGS_ARGS
	if (ip == cf_addr[CF_XREGS]) {
		unsigned long a = mcount_regs_arg(r, 0);
		bool bad = false;
		for (int i = 1; i < 8; i++)
			bad |= mcount_regs_arg(r, i) != a + (unsigned long)i;
		atomic_fetch_add_explicit(&xregs_read, 1, memory_order_relaxed);
		if (bad)
			atomic_fetch_add_explicit(&xregs_bad, 1, memory_order_relaxed);
	}
#endif
	clobber_all();
}

NI static void on_clobber_exit(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	atomic_fetch_add_explicit(&clobbers, 1, memory_order_relaxed);
	cf_count(ip, cf_out);
	clobber_all();
}

#define IN_BAD(f, c) (NOT_LEAF(), (c) ? (void)0 : (void)atomic_fetch_add_explicit(&bad_in[f], 1, memory_order_relaxed))
#define OUT_BAD(f, c) ((c) ? (void)0 : (void)atomic_fetch_add_explicit(&bad_out[f], 1, memory_order_relaxed))

__attribute__((noinline)) double cf_double(double a, float b, unsigned long n, double c)
{
	IN_BAD(CF_DOUBLE, b == (float)(a + 0.5) && c == a * 3);
	return a + c + (double)n;
}

__attribute__((noinline)) long double cf_long_double(long double a, long double b)
{
	IN_BAD(CF_LONG_DOUBLE, b == a + 0.25L);
	return a * 4 + b;
}

__attribute__((noinline)) double cf_variadic(int n, ...)
{
	NOT_LEAF();
	va_list ap;
	va_start(ap, n);
	double s = 0;
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double) * (i + 1);
	va_end(ap);
	return s;
}

/* a homogeneous aggregate (aarch64: d0-d3 in and out; x86: memory) */
struct quad {
	double a, b, c, d;
};
__attribute__((noinline)) struct quad cf_quad(struct quad p, struct quad q)
{
	IN_BAD(CF_QUAD, p.b == p.a + 1 && p.c == p.a + 2 && p.d == p.a + 3 && q.a == -p.a && q.d == -p.d);
	return (struct quad){ p.a + q.a, p.b * 2, p.c * 3, p.d - q.d };
}

/* returned through memory (aarch64: x8; i386: the hidden pointer, which
 * the function pops: ret $4) */
struct big {
	unsigned long w[8];
};
__attribute__((noinline)) struct big cf_big(unsigned long k)
{
	NOT_LEAF();
	struct big b;
	for (int i = 0; i < 8; i++)
		b.w[i] = k * 8 + (unsigned long)i;
	return b;
}

#if defined(__x86_64__) || defined(__SSE2__) || defined(__aarch64__) || (defined(__powerpc__) && defined(__VSX__)) || \
	(defined(__s390x__) && defined(__VX__))
#define HAVE_VECTORS 1
typedef double v2df __attribute__((vector_size(16)));
/* eight vectors: xmm0-xmm7 (x86_64), v0-v7 (aarch64), xmm0-xmm2 then
 * the stack (i386 with SSE), v2-v9 (ppc64 with VSX), v24-v31 (s390x
 * with the vector ABI, ppc32 too); the value in xmm0, v0, v2, v24 */
__attribute__((noinline)) v2df cf_vector(v2df a, v2df b, v2df c, v2df d, v2df e, v2df f, v2df g, v2df h)
{
	IN_BAD(CF_VECTOR, b[0] == a[0] + 2 && c[0] == a[0] + 4 && d[0] == a[0] + 6 && e[0] == a[0] + 8 &&
	       f[0] == a[0] + 10 && g[0] == a[0] + 12 && h[0] == a[0] + 14 && h[1] == a[0] + 15);
	return a + b + c + d + e + f + g + h;
}
#endif

#if defined(__i386__)
/* the registers of i386's other conventions: eax, edx, ecx (regparm),
 * xmm0, xmm1 (sseregparm, with SSE) */
__attribute__((noinline, regparm(3))) unsigned long cf_regparm(unsigned long a, unsigned long b, unsigned long c)
{
	IN_BAD(CF_REGPARM, b == a + 1 && c == a + 2);
	return a * 100 + b * 10 + c;
}
#if defined(__MMX__)
#include <mmintrin.h>
#define HAVE_MMX 1
/* __m64 in mm0 and mm1 (i386: x86_64 passes it in xmm registers),
 * which are the x87 registers */
__attribute__((noinline)) unsigned cf_mmx(__m64 a, __m64 b)
{
	__m64 s = _mm_add_pi32(a, b);
	unsigned lo = (unsigned)_mm_cvtsi64_si32(s), hi = (unsigned)_mm_cvtsi64_si32(_mm_srli_si64(s, 32));
	_mm_empty();
	return lo * 1000 + hi;
}
#endif
#if defined(__SSE2__)
#define HAVE_SSEREGPARM 1
__attribute__((noinline, sseregparm)) double cf_sseregparm(double a, double b)
{
	IN_BAD(CF_SSEREGPARM, b == a * 2);
	return a + b * 3;
}
#endif
#endif

#if defined(__riscv) && __riscv_xlen == 64
#define VARIADIC_NOEXIT 1
#endif
#if (defined(__riscv) && __riscv_xlen == 64) || defined(__powerpc__) || defined(__s390x__) || defined(__arm__) || \
	defined(__mips__) || (defined(__sparc__) && defined(__arch64__))
#define HAVE_RV_REGS 1
/* eight doubles in fa0-fa7 (riscv64), f1-f8 (PowerPC), d0-d7 (arm),
 * f12-f19 (n64), %d0-%d14 (sparc64), the first of them in f0, f2, f4,
 * f6 (s390x), f12, f14 (o32); and a pair of them back in fa0 and fa1,
 * f1 and f2 (ppc64le), d0 and d1, f0 and f2 (n64), %d0 and %d2
 * (sparc64), memory (the others) */
struct dpair {
	double a, b;
};
__attribute__((noinline)) struct dpair cf_fregs(double a, double b, double c, double d, double e, double f, double g,
						  double h)
{
	IN_BAD(CF_FREGS, b == a + 1 && c == a + 2 && d == a + 3 && e == a + 4 && f == a + 5 && g == a + 6 &&
	       h == a + 7);
	return (struct dpair){ a + h, b * g };
}
/* eight words in a0-a7 (riscv64, n64), r3-r10 (PowerPC), r0-r3 (arm),
 * r2-r6 (s390x), a0-a3 (o32), %o0-%o5 (sparc64), the rest on the
 * stack; two back in a0 and a1, r3 and r4 (ppc64le), %o0 and %o1
 * (sparc64), memory (the others) */
struct wpair {
	unsigned long a, b;
};
__attribute__((noinline)) struct wpair cf_xregs(unsigned long a, unsigned long b, unsigned long c, unsigned long d,
						 unsigned long e, unsigned long f, unsigned long g, unsigned long h)
{
	IN_BAD(CF_XREGS, b == a + 1 && c == a + 2 && d == a + 3 && e == a + 4 && f == a + 5 && g == a + 6 &&
	       h == a + 7);
	return (struct wpair){ a + h, b * g };
}
#endif

#if defined(__powerpc64__)
#define HAVE_PPC_REGS 1
/* thirteen doubles in f1-f13 */
__attribute__((noinline)) double cf_f13(double a, double b, double c, double d, double e, double f, double g,
					double h, double i, double j, double k, double l, double m)
{
	IN_BAD(CF_F13, b == a + 1 && c == a + 2 && d == a + 3 && e == a + 4 && f == a + 5 && g == a + 6 &&
	       h == a + 7 && i == a + 8 && j == a + 9 && k == a + 10 && l == a + 11 && m == a + 12);
	return a + m * 2;
}
#if defined(__FLOAT128__)
#define HAVE_F128 1
/* IEEE quad precision in v2 and v3, the value in v2 */
__attribute__((noinline)) __float128 cf_f128(__float128 a, __float128 b)
{
	IN_BAD(CF_F128, b == a + (__float128)0.125);
	return a * 3 + b;
}
#endif
#endif

#if defined(__sparc__) && defined(__arch64__)
#define HAVE_SPARC_REGS 1
/* sixteen doubles in %d0-%d30, every floating-point argument register */
__attribute__((noinline)) double cf_d16(double a, double b, double c, double d, double e, double f, double g,
					double h, double i, double j, double k, double l, double m, double n,
					double o, double p)
{
	IN_BAD(CF_D16, b == a + 1 && c == a + 2 && d == a + 3 && e == a + 4 && f == a + 5 && g == a + 6 &&
	       h == a + 7 && i == a + 8 && j == a + 9 && k == a + 10 && l == a + 11 && m == a + 12 &&
	       n == a + 13 && o == a + 14 && p == a + 15);
	return a + p * 2;
}
#endif

#if defined(__arm__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define HAVE_NEON_QUAD 1
/* a homogeneous aggregate of four quadword vectors: q0-q3 (d0-d7) in
 * and out */
struct qquad {
	float32x4_t a, b, c, d;
};
__attribute__((noinline)) struct qquad cf_qquad(struct qquad p)
{
	IN_BAD(CF_QQUAD, vgetq_lane_f32(p.b, 0) == vgetq_lane_f32(p.a, 0) + 1 &&
	       vgetq_lane_f32(p.d, 3) == vgetq_lane_f32(p.a, 0) + 6);
	return (struct qquad){ vaddq_f32(p.a, p.d), p.c, p.b, vsubq_f32(p.d, p.a) };
}
#endif

#ifndef VARIADIC_NOEXIT
#define VARIADIC_NOEXIT 0
#endif

/* Callbacks that keep their promise (MCOUNT_HOOK_GENERAL_REGS): built
 * for the general registers alone, as -mgeneral-regs-only builds a
 * file, calling nothing else; each changes every integer register a
 * callee may (those the hooks keep whatever the flag) and counts the
 * call against its function. */
#if defined(__x86_64__) || defined(__i386__)
#define HAVE_GENERAL_REGS 1
#define GENERAL_REGS __attribute__((target("general-regs-only")))

NI GENERAL_REGS static void gr_count(unsigned long ip, _Atomic unsigned long *n)
{
	atomic_fetch_add_explicit(&clobbers, 1, memory_order_relaxed);
	for (int i = 0; i < CF_N; i++)
		if (cf_addr[i] == ip)
			atomic_fetch_add_explicit(&n[i], 1, memory_order_relaxed);
#if defined(__x86_64__)
	__asm__ volatile("movq $-1, %%rax\n\tmovq $-1, %%rcx\n\tmovq $-1, %%rdx\n\tmovq $-1, %%rsi\n\t"
			 "movq $-1, %%rdi\n\tmovq $-1, %%r8\n\tmovq $-1, %%r9\n\tmovq $-1, %%r10\n\tmovq $-1, %%r11"
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory", "cc");
#else
	__asm__ volatile("movl $-1, %%eax\n\tmovl $-1, %%ecx\n\tmovl $-1, %%edx" : : : "eax", "ecx", "edx", "cc");
#endif
}

NI GENERAL_REGS static void on_gr(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	gr_count(ip, cf_in);
}

NI GENERAL_REGS static void on_gr_exit(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	gr_count(ip, cf_out);
}
#endif

/* how: 0 the clobbering callbacks, 1 (general) the general registers'
 * with the flag, 2 (lie) the clobbering ones with the flag */
NI static int clobber(int rounds, bool entry_only, int how)
{
	cf_addr[CF_DOUBLE] = FN_ADDR(cf_double);
	cf_addr[CF_LONG_DOUBLE] = FN_ADDR(cf_long_double);
	cf_addr[CF_VARIADIC] = FN_ADDR(cf_variadic);
	cf_addr[CF_QUAD] = FN_ADDR(cf_quad);
	cf_addr[CF_BIG] = FN_ADDR(cf_big);
#ifdef HAVE_RV_REGS
	cf_addr[CF_FREGS] = FN_ADDR(cf_fregs);
	cf_addr[CF_XREGS] = FN_ADDR(cf_xregs);
#endif
#ifdef HAVE_SPARC_REGS
	cf_addr[CF_D16] = FN_ADDR(cf_d16);
#endif
	mcount_hook_fn en = on_clobber, ex = on_clobber_exit;
#ifdef HAVE_GENERAL_REGS
	if (how == 1) {
		en = on_gr;
		ex = on_gr_exit;
	}
#else
	if (how) {
		printf("ok clobber: no general-regs-only callbacks here\n");
		return 0;
	}
#endif
	struct mcount_hook *h = mcount_hook_create(en, entry_only ? NULL : ex, NULL,
						   how ? MCOUNT_HOOK_GENERAL_REGS : 0);
	if (!h || mcount_hook_filter(h, "cf_*") || mcount_hook_register(h)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	unsigned long calls = 0;
	for (int k = 0; k < rounds; k++) {
		double x = k;
		OUT_BAD(CF_DOUBLE, cf_double(x, (float)(x + 0.5), (unsigned long)k, x * 3) == x * 4 + k);
		long double l = k;
		OUT_BAD(CF_LONG_DOUBLE, cf_long_double(l, l + 0.25L) == l * 5 + 0.25L);
		OUT_BAD(CF_VARIADIC, cf_variadic(3, x, x + 1, x + 2) == x * 6 + 8);
		struct quad q = cf_quad((struct quad){ x, x + 1, x + 2, x + 3 }, (struct quad){ -x, 0, 0, -x - 3 });
		OUT_BAD(CF_QUAD, q.a == 0 && q.b == x * 2 + 2 && q.c == x * 3 + 6 && q.d == x * 2 + 6);
		struct big b = cf_big((unsigned long)k);
		OUT_BAD(CF_BIG, b.w[0] == (unsigned long)k * 8 && b.w[7] == (unsigned long)k * 8 + 7);
		calls += 5;
#ifdef HAVE_VECTORS
		v2df v = cf_vector((v2df){ x, x + 1 }, (v2df){ x + 2, x + 3 }, (v2df){ x + 4, x + 5 },
				   (v2df){ x + 6, x + 7 }, (v2df){ x + 8, x + 9 }, (v2df){ x + 10, x + 11 },
				   (v2df){ x + 12, x + 13 }, (v2df){ x + 14, x + 15 });
		OUT_BAD(CF_VECTOR, v[0] == x * 8 + 56 && v[1] == x * 8 + 64);
		calls++;
#endif
#if defined(__i386__)
		OUT_BAD(CF_REGPARM, cf_regparm((unsigned long)k, (unsigned long)k + 1, (unsigned long)k + 2) ==
			(unsigned long)k * 111 + 12);
		calls++;
#ifdef HAVE_MMX
		unsigned m = cf_mmx(_mm_set_pi32(k, 2 * k), _mm_set_pi32(1, 3));
		_mm_empty();
		OUT_BAD(CF_MMX, m == (unsigned)(2 * k + 3) * 1000 + (unsigned)k + 1);
		calls++;
#endif
#ifdef HAVE_SSEREGPARM
		OUT_BAD(CF_SSEREGPARM, cf_sseregparm(x, x * 2) == x * 7);
		calls++;
#endif
#endif
#ifdef HAVE_RV_REGS
		struct dpair dp = cf_fregs(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7);
		OUT_BAD(CF_FREGS, dp.a == x * 2 + 7 && dp.b == (x + 1) * (x + 6));
		unsigned long u = (unsigned long)k;
		struct wpair wp = cf_xregs(u, u + 1, u + 2, u + 3, u + 4, u + 5, u + 6, u + 7);
		OUT_BAD(CF_XREGS, wp.a == u * 2 + 7 && wp.b == (u + 1) * (u + 6));
		calls += 2;
#endif
#ifdef HAVE_PPC_REGS
		OUT_BAD(CF_F13, cf_f13(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9, x + 10, x + 11,
				       x + 12) == x * 3 + 24);
		calls++;
#endif
#ifdef HAVE_SPARC_REGS
		OUT_BAD(CF_D16, cf_d16(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9, x + 10, x + 11,
				       x + 12, x + 13, x + 14, x + 15) == x * 3 + 30);
		calls++;
#endif
#ifdef HAVE_F128
		__float128 e = (__float128)x;
		OUT_BAD(CF_F128, cf_f128(e, e + (__float128)0.125) == e * 4 + (__float128)0.125);
		calls++;
#endif
#ifdef HAVE_NEON_QUAD
		float y = (float)k;
		struct qquad qq = cf_qquad((struct qquad){ vdupq_n_f32(y), vdupq_n_f32(y + 1), vdupq_n_f32(y + 2),
							   vsetq_lane_f32(y + 6, vdupq_n_f32(y + 3), 3) });
		OUT_BAD(CF_QQUAD, vgetq_lane_f32(qq.a, 0) == y * 2 + 3 && vgetq_lane_f32(qq.a, 3) == y * 2 + 6 &&
			vgetq_lane_f32(qq.b, 1) == y + 2 && vgetq_lane_f32(qq.c, 2) == y + 1 &&
			vgetq_lane_f32(qq.d, 0) == 3 && vgetq_lane_f32(qq.d, 3) == 6);
		calls++;
#endif
	}
	mcount_hook_unregister(h);
	mcount_hook_destroy(h);
	/* riscv64: cf_variadic's s0 is not its CFA (its frame saves the
	 * argument registers above s0), so its return is not hooked: an
	 * entry callback each call, no exit (mcount_hook(3)) */
	unsigned long want = entry_only ? calls : 2 * calls - (VARIADIC_NOEXIT ? (unsigned long)rounds : 0);
#if defined(__mips__)
	/* MIPS: a function whose prologue stores ra elsewhere than at its
	 * frame's top gets no exit callback (mcount_hook(3)): each
	 * function's are listed, for the test to hold against its
	 * prologue as objdump shows it; each call an entry callback */
	if (!entry_only)
		printf("clobber exits");
	for (int i = 0; i < CF_N && !entry_only; i++) {
		if (!cf_addr[i])
			continue;
		printf(" %s=%lu", cf_names[i], (unsigned long)cf_out[i]);
		if (cf_in[i] != (unsigned long)rounds)
			fail("entry callbacks", i, cf_in[i], (unsigned long)rounds);
		if (cf_out[i] && cf_out[i] != (unsigned long)rounds)
			fail("exit callbacks (all or none)", i, cf_out[i], (unsigned long)rounds);
		want -= (unsigned long)rounds - cf_out[i];
	}
	if (!entry_only)
		printf("\n");
#endif
	if (clobbers != want)
		fail(entry_only ? "callbacks (an entry a call)" : "callbacks (an entry and an exit a call)", -1,
		     clobbers, want);
	/* (the general registers' callbacks: each function's calls, each
	 * seen at its entry and, where hooked, its exit) */
	for (int i = 0; i < CF_N && how == 1; i++) {
		if (!cf_addr[i])
			continue;
		if (cf_in[i] != (unsigned long)rounds)
			fail("entry callbacks of a function", i, cf_in[i], (unsigned long)rounds);
		if (!entry_only && cf_out[i] != (unsigned long)rounds)
			fail("exit callbacks of a function", i, cf_out[i], (unsigned long)rounds);
	}
	for (int i = 0; i < CF_N; i++) {
		if (bad_in[i])
			printf("FAIL %s: arguments changed before the body: %lu calls\n", cf_names[i],
			       (unsigned long)bad_in[i]);
		if (bad_out[i])
			printf("FAIL %s: its value changed on the way back: %lu calls\n", cf_names[i],
			       (unsigned long)bad_out[i]);
		failed |= bad_in[i] || bad_out[i];
	}
#ifdef XREGS_ARGS
	if (xregs_read != (unsigned long)rounds || xregs_bad) {
		printf("FAIL cf_xregs: mcount_regs_arg wrong in %lu of %lu calls (%d made)\n",
		       (unsigned long)xregs_bad, (unsigned long)xregs_read, rounds);
		failed = 1;
	}
#endif
	printf("ok clobber rounds=%d calls=%lu%s%s\n", rounds, calls, entry_only ? " entry" : "",
	       how == 1 ? " general" : how == 2 ? " lie" : "");
	return failed;
}

/* ---- errors ---- */

static int in_cb_errno = -1;
static struct mcount_hook *selfish;

NI static void self_unregister(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)ip;
	(void)parent;
	(void)data;
	if (in_cb_errno < 0)
		in_cb_errno = mcount_hook_unregister(selfish) ? errno : 0;
	errno = 0;
	if (mcount_regs_return(r) || errno != EINVAL)
		fail("regs_return at an entry", -1, (unsigned long)errno, EINVAL);
}

/* A callback that ends its thread (pthread_exit inside it): the thread
 * is gone, and an unregister must not wait for it. */
static pthread_t leaver;

NI static void exit_thread(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)ip;
	(void)parent;
	(void)data;
	(void)r;
	if (pthread_equal(pthread_self(), leaver))
		pthread_exit(NULL);
}

NI static void *leave(void *arg)
{
	(void)arg;
	f6(1);
	return (void *)1;             /* (never: the callback ended the thread) */
}

NI static int expect(const char *what, int rc, int want_errno)
{
	if (rc != -1 || errno != want_errno) {
		printf("FAIL %s: %d, errno %d (%s), want -1 errno %d\n", what, rc, errno, strerror(errno), want_errno);
		failed = 1;
	}
	return 0;
}

NI static int errors(void)
{
	errno = 0;
	if (mcount_hook_create(NULL, NULL, NULL, 0) || errno != EINVAL)
		fail("create without callbacks", -1, (unsigned long)errno, EINVAL);
	errno = 0;
	if (mcount_hook_create(on_entry, NULL, NULL, 2) || errno != EINVAL)
		fail("create with flags", -1, (unsigned long)errno, EINVAL);
	errno = 0;
	if (mcount_hook_create(on_entry, NULL, NULL, ~MCOUNT_HOOK_GENERAL_REGS) || errno != EINVAL)
		fail("create with unknown flags", -1, (unsigned long)errno, EINVAL);
	struct mcount_hook *g = mcount_hook_create(on_entry, NULL, NULL, MCOUNT_HOOK_GENERAL_REGS);
	if (!g)
		fail("create with MCOUNT_HOOK_GENERAL_REGS", -1, (unsigned long)errno, 0);
	mcount_hook_destroy(g);
	static struct counts c;
	struct mcount_hook *h = mcount_hook_create(on_entry, NULL, &c, 0);
	expect("filter !f1", mcount_hook_filter(h, "!f1"), EINVAL);
	expect("notrace f1:mod:", mcount_hook_notrace(h, "f1:mod:"), EINVAL);
	expect("filter NULL hook", mcount_hook_filter(NULL, "f0"), EINVAL);
	expect("unregister, not registered", mcount_hook_unregister(h), EINVAL);
	expect("register NULL", mcount_hook_register(NULL), EINVAL);
	if (mcount_hook_register(h))
		fail("register", -1, (unsigned long)errno, 0);
	expect("register twice", mcount_hook_register(h), EINVAL);
	/* 63 at most (31 where a long is 32 bits): this one and 62 (30) more */
	enum { MAX_HOOKS = 8 * sizeof(unsigned long) - 1 };
	struct mcount_hook *more[MAX_HOOKS];
	int n = 0;
	for (; n < MAX_HOOKS; n++) {
		more[n] = mcount_hook_create(on_entry, NULL, &c, 0);
		mcount_hook_filter(more[n], "f1");
		if (mcount_hook_register(more[n]))
			break;
	}
	if (n != MAX_HOOKS - 1 || errno != ENOSPC)
		fail("hooks registered before ENOSPC", -1, (unsigned long)n, MAX_HOOKS - 1);
	for (int i = 0; i < n; i++)
		mcount_hook_unregister(more[i]);
	for (int i = 0; i <= n && i < MAX_HOOKS; i++)
		mcount_hook_destroy(more[i]);
	mcount_hook_unregister(h);
	mcount_hook_destroy(h);
	errno = 0;
	if (mcount_regs_arg(NULL, 0) || errno != EINVAL)
		fail("regs_arg NULL", -1, (unsigned long)errno, EINVAL);
	/* unregister from inside a callback */
	struct mcount_hook *s = selfish = mcount_hook_create(self_unregister, NULL, NULL, 0);
	mcount_hook_filter(s, "f2");
	mcount_hook_register(s);
	f2(1);
	if (in_cb_errno != EDEADLK)
		fail("unregister inside a callback: errno", -1, (unsigned long)in_cb_errno, EDEADLK);
	if (mcount_hook_unregister(s))
		fail("unregister after", -1, (unsigned long)errno, 0);
	mcount_hook_destroy(s);
	/* a thread that ends inside a callback */
	struct mcount_hook *x = mcount_hook_create(exit_thread, NULL, NULL, 0);
	mcount_hook_filter(x, "f6");
	mcount_hook_register(x);
	void *res = NULL;
	pthread_create(&leaver, NULL, leave, NULL);
	pthread_join(leaver, &res);
	if (res)
		fail("the thread that called pthread_exit in a callback returned", 6, 1, 0);
	alarm(20);                    /* (an unregister that waits for it: killed) */
	if (mcount_hook_unregister(x))
		fail("unregister after a thread ended in a callback", 6, (unsigned long)errno, 0);
	alarm(0);
	mcount_hook_destroy(x);
	printf("ok errors\n");
	return failed;
}

/* ---- sigjump ---- */

static sigjmp_buf sj;
static volatile unsigned long jumps, sj_seen;
static struct mcount_hook *sj_hook;

NI static void sj_cb(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)ip;
	(void)parent;
	(void)data;
	(void)r;
	sj_seen++;
}

NI static void sj_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(sj, 1);
}

NI static void *sj_unreg(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)mcount_hook_unregister(sj_hook);
}

NI static int sigjump(int seconds, int with_exit)
{
	sj_hook = mcount_hook_create(sj_cb, with_exit ? sj_cb : NULL, NULL, 0);
	if (!sj_hook || mcount_hook_filter(sj_hook, "f1") || mcount_hook_register(sj_hook)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = sj_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	time_t end = time(NULL) + seconds;
	sigsetjmp(sj, 1);
	setitimer(ITIMER_REAL, &it, NULL);
	while (time(NULL) < end)
		f1(1);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	unsigned long s0 = sj_seen, want = with_exit ? 2000 : 1000;
	for (int i = 0; i < 1000; i++)
		f1(1);
	if (sj_seen - s0 != want)
		fail("callbacks of 1,000 calls after the jumps", 1, sj_seen - s0, want);
	if (!jumps)
		fail("jumps out of the signal handler", -1, 0, 1);
	alarm(20);                    /* (an unregister that waits for ever: killed) */
	pthread_t t;
	void *rc = (void *)1;
	pthread_create(&t, NULL, sj_unreg, NULL);
	pthread_join(t, &rc);
	alarm(0);
	if (rc)
		fail("unregister from another thread after the jumps", -1, 1, 0);
	printf("ok sigjump jumps=%s\n", jumps ? "some" : "none");
	return failed;
}

/* ---- idreuse ---- */

static atomic_int ir_in, ir_go;
static _Atomic unsigned long ir_f2, ir_f5, ir_x3;
static struct mcount_hook *ir_x;

NI static void ir_block(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)ip;
	(void)parent;
	(void)data;
	(void)r;
	atomic_store(&ir_in, 1);
	while (!atomic_load(&ir_go))
		usleep(1000);
}

NI static void ir_count(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	if (ip == FN_ADDR(f2))
		atomic_fetch_add(&ir_f2, 1);
	else if (ip == FN_ADDR(f5))
		atomic_fetch_add(&ir_f5, 1);
}

NI static void ir_x_cb(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	if (ip == FN_ADDR(f3))
		atomic_fetch_add(&ir_x3, 1);
}

NI static void *ir_call(void *arg)
{
	(void)arg;
	f2(1);
	return NULL;
}

NI static void *ir_unreg(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)mcount_hook_unregister(ir_x);
}

NI static int idreuse(void)
{
	struct mcount_hook *p = mcount_hook_create(ir_block, NULL, NULL, 0);
	ir_x = mcount_hook_create(ir_x_cb, NULL, NULL, 0);
	struct mcount_hook *y = mcount_hook_create(ir_count, NULL, NULL, 0);
	if (!p || !ir_x || !y || mcount_hook_filter(p, "f2") || mcount_hook_filter(ir_x, "f2 f3") ||
	    mcount_hook_filter(y, "f5") || mcount_hook_register(p) || mcount_hook_register(ir_x)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	pthread_t t, u;
	pthread_create(&t, NULL, ir_call, NULL);
	while (!atomic_load(&ir_in))
		usleep(1000);
	/* (X's unregister waits for the call under way, in p's callback:
	 * once f3 no longer runs X's callback, X is out of the code and
	 * its id out of mt_ops, and the unregister is in its grace period) */
	pthread_create(&u, NULL, ir_unreg, NULL);
	for (unsigned long seen = ~0UL; seen != atomic_load(&ir_x3);) {
		seen = atomic_load(&ir_x3);
		f3(1);
		usleep(10000);
	}
	if (mcount_hook_register(y)) {
		printf("FAIL register: %s\n", strerror(errno));
		return 1;
	}
	atomic_store(&ir_go, 1);
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	f5(1);
	if (ir_f2)
		fail("a hook registered meanwhile saw a call of a function it does not select", 2, ir_f2, 0);
	if (ir_f5 != 1)
		fail("the hook registered meanwhile saw its function's call", 5, ir_f5, 1);
	printf("ok idreuse\n");
	return failed;
}

/* ---- unload ---- */

NI static int unload(const char *lib, int keep)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void *fix = h ? dlsym(h, "fixed_far") : NULL;
	if (!fix) {
		printf("FAIL dlopen %s: %s\n", lib, dlerror());
		return 1;
	}
	if (mcount_hook_redirect("f1", fix)) {
		printf("FAIL redirect to the library: %s\n", strerror(errno));
		return 1;
	}
	if (f1(5) != 5 * 3 + 200)
		fail("f1 redirected into the library", 1, f1(5), 5 * 3 + 200);
	if (keep && mcount_hook_unredirect("f1"))
		fail("unredirect: errno", 1, (unsigned long)errno, 0);
	if (dlclose(h))
		fail("dlclose", -1, 1, 0);
	/* (the library's code is gone: f1 must not go there) */
	if (f1(5) != 5 * 3 + 1)
		fail("f1 after its replacement was unloaded", 1, f1(5), 5 * 3 + 1);
	errno = 0;
	if (!keep && (mcount_hook_unredirect("f1") != -1 || errno != EINVAL))
		fail("unredirect of a redirect dropped: errno", 1, (unsigned long)errno, EINVAL);
	printf("ok unload\n");
	return failed;
}

NI int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	own_mode = argc >= 5 && !strcmp(argv[4], "own");
	if (argc >= 4 && !strcmp(argv[1], "count"))
		return count(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "unreg"))
		return unreg(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "unwind"))
		return unwind(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "redirect"))
		return redirect(atoi(argv[2]), argc >= 4 && !strcmp(argv[3], "enotsup"));
	if (argc >= 2 && !strcmp(argv[1], "idreuse"))
		return idreuse();
	if (argc >= 3 && !strcmp(argv[1], "sigjump"))
		return sigjump(atoi(argv[2]), argc >= 4 && !strcmp(argv[3], "exit"));
	if (argc >= 3 && !strcmp(argv[1], "unload"))
		return unload(argv[2], argc >= 4 && !strcmp(argv[3], "keep"));
	if (argc >= 2 && !strcmp(argv[1], "errors"))
		return errors();
	if (argc >= 3 && !strcmp(argv[1], "clobber")) {
		const char *how = argc >= 5 ? argv[4] : "";
		return clobber(atoi(argv[2]), argc >= 4 && !strcmp(argv[3], "entry"),
			       !strcmp(how, "general") ? 1 : !strcmp(how, "lie") ? 2 : 0);
	}
	if (argc >= 3 && !strcmp(argv[1], "frames"))
		return frames(atoi(argv[2]));
	fprintf(stderr, "usage: hooks count ROUNDS CHURN | unreg CYCLES | unwind ROUNDS | redirect ROUNDS [enotsup] | "
		"errors | clobber ROUNDS [entry|all [general|lie]] | frames ROUNDS\n");
	return 2;
}
