// SPDX-License-Identifier: GPL-2.0-or-later
// hooks_cxx.cc - a hook (mcount-hooks.h) on C++ functions that throw,
// catch and rethrow across hooked frames, in several threads, checked
// against the functions' own record (t/110).
//
// Each function of namespace ex counts its calls and, just before it
// returns, notes in its thread the value it returns ("pending"); a
// frame an exception leaves notes nothing.  The hook (entry and exit,
// filter "ex::*") checks, thread by thread and event by event, what
// mcount_hook(3) promises: the exit callback of each frame that returned
// comes right after that return, once, with the value noted; a frame
// left by an exception gets no exit callback; every call, its entry
// callback.  An exit with nothing noted (doubled, or of a frame the
// exception left) or a return whose exit never came (missing) is
// counted at once; at the end, the hook's counts function by function
// against the functions' own.
//
// The exceptions: thrown and caught in the same function; caught one
// frame up, five frames up (through frames with destructors that call
// hooked functions on the way, and a handler of another type);
// rethrown (throw;) twice on the way, or a new one thrown from a
// handler; a throw and catch inside a handler (nested); and an
// exception caught in one thread, kept as a std::exception_ptr and
// rethrown in the next thread (std::rethrow_exception) through three
// hooked frames.
//
//   hooks_cxx THREADS ROUNDS
// Prints "ok ..." lines, or "FAIL ..." and exits 1.
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <pthread.h>

#include "mcount-hooks.h"

#define NI __attribute__((no_instrument_function))
#define F __attribute__((noipa))

// The exception: trivially destroyed (nothing of ex runs when a handler
// ends), outside namespace ex (no hooked member).
struct Err {
	long v;
};

enum {
	I_LEAF, I_THROWER, I_SELF, I_DEEP, I_WRONG, I_CATCH_UP, I_RETHROW1, I_RETHROW2, I_OUTER,
	I_PRODUCE, I_PTR_THROW, I_PTR_CATCH, I_GUARD_DTOR, NI_FNS
};
static const char *const fn_name[NI_FNS] = {
	"leaf", "thrower", "self_catch", "deep", "wrong_catch", "catch_up", "rethrow1", "rethrow2",
	"outer", "produce", "ptr_throw", "ptr_catch", "Guard::~Guard",
};

// The functions' own counts, and the hook's.
static std::atomic<unsigned long> entered[NI_FNS], returned[NI_FNS];
static std::atomic<unsigned long> hook_in[NI_FNS], hook_out[NI_FNS];
static std::atomic<unsigned long> bad_exit, bad_value, missing_exit, foreign, thrown, caught, rethrown,
	ptr_passed, in_handler;

// The return a thread's last function made, until its exit callback.
struct pending {
	int set, has_value, idx;
	long value;
};
__thread struct pending pend;

// A return noted before its exit callback came: the exit is missing.
NI static void no_pending(void)
{
	if (pend.set) {
		missing_exit.fetch_add(1, std::memory_order_relaxed);
		pend.set = 0;
	}
}

#define ENTER(i)                                                               \
	do {                                                                   \
		no_pending();                                                  \
		entered[i].fetch_add(1, std::memory_order_relaxed);            \
	} while (0)

NI static inline __attribute__((always_inline)) long ret_rec(int i, long v)
{
	returned[i].fetch_add(1, std::memory_order_relaxed);
	pend.idx = i;
	pend.value = v;
	pend.has_value = 1;
	pend.set = 1;
	return v;
}
#define RET(i, v) ret_rec(i, v)

namespace ex {

F long leaf(long x)
{
	ENTER(I_LEAF);
	return RET(I_LEAF, x * 3 + 1);
}

// A destructor that calls a hooked function: on the way of an exception
// (a landing pad's cleanup) as on a return.
struct Guard {
	long v;
	__attribute__((always_inline)) explicit Guard(long v_) : v(v_) {}
	~Guard();
};

// (Not inline: a COMDAT group's call site is recorded at the link only.)
F Guard::~Guard()
{
	ENTER(I_GUARD_DTOR);
	leaf(v);
	returned[I_GUARD_DTOR].fetch_add(1, std::memory_order_relaxed);
	pend = { 1, 0, I_GUARD_DTOR, 0 };
}

// Throws unless x % 3 == 1.
F long thrower(long x)
{
	ENTER(I_THROWER);
	if (x % 3 != 1) {
		thrown.fetch_add(1, std::memory_order_relaxed);
		throw Err{ x };
	}
	long r = leaf(x) + 2;
	return RET(I_THROWER, r);
}

// Thrown and caught in this frame; then caught here from one frame down.
F long self_catch(long x)
{
	ENTER(I_SELF);
	long r;
	try {
		if (x % 2 == 0) {
			thrown.fetch_add(1, std::memory_order_relaxed);
			throw Err{ x };
		}
		r = leaf(x);
	} catch (const Err &e) {
		caught.fetch_add(1, std::memory_order_relaxed);
		r = leaf(e.v) + 1;
	}
	try {
		r += thrower(x + 1);
	} catch (const Err &e) {
		caught.fetch_add(1, std::memory_order_relaxed);
		r += e.v;
	}
	return RET(I_SELF, r);
}

// n frames, each with a Guard, over thrower.
F long deep(int n, long x)
{
	ENTER(I_DEEP);
	long r;
	{
		Guard g(n);
		r = n ? deep(n - 1, x) : thrower(x);
		r += leaf(n);
	}
	return RET(I_DEEP, r);
}

// A handler of another type: the exception goes on through.
F long wrong_catch(long x)
{
	ENTER(I_WRONG);
	long r;
	try {
		r = deep(2, x);
	} catch (const std::bad_alloc &) {
		r = -1;
	}
	return RET(I_WRONG, r);
}

// Caught five frames up (wrong_catch, deep x3, thrower), and a throw
// and catch inside the handler.
F long catch_up(long x)
{
	ENTER(I_CATCH_UP);
	long r;
	try {
		r = wrong_catch(x) + 1;
	} catch (const Err &e) {
		caught.fetch_add(1, std::memory_order_relaxed);
		in_handler.fetch_add(1, std::memory_order_relaxed);
		r = e.v + self_catch(x + 2);
	}
	return RET(I_CATCH_UP, r);
}

F long rethrow1(long x)
{
	ENTER(I_RETHROW1);
	long r;
	try {
		r = deep(1, x);
	} catch (const Err &e) {
		leaf(e.v);
		rethrown.fetch_add(1, std::memory_order_relaxed);
		throw;
	}
	return RET(I_RETHROW1, r);
}

// Rethrows, or (x % 5 == 0) throws a new exception from its handler.
F long rethrow2(long x)
{
	ENTER(I_RETHROW2);
	long r;
	try {
		r = rethrow1(x) + 1;
	} catch (const Err &e) {
		leaf(x);
		if (x % 5 == 0) {
			thrown.fetch_add(1, std::memory_order_relaxed);
			throw Err{ e.v + 1 };
		}
		rethrown.fetch_add(1, std::memory_order_relaxed);
		throw;
	}
	return RET(I_RETHROW2, r);
}

// Returns from inside its handler.
F long outer(long x)
{
	ENTER(I_OUTER);
	try {
		long r = rethrow2(x);
		return RET(I_OUTER, r);
	} catch (...) {
		caught.fetch_add(1, std::memory_order_relaxed);
		long r = leaf(x) + 100;
		return RET(I_OUTER, r);
	}
}

// Keeps the exception thrown through two deep frames (x * 3: always).
F long produce(long x, std::exception_ptr *slot)
{
	ENTER(I_PRODUCE);
	long r;
	try {
		r = deep(1, x * 3);
	} catch (...) {
		caught.fetch_add(1, std::memory_order_relaxed);
		*slot = std::current_exception();
		r = leaf(x);
	}
	return RET(I_PRODUCE, r);
}

// n frames over std::rethrow_exception: never returns.
#pragma GCC diagnostic ignored "-Winfinite-recursion"
F long ptr_throw(int n, const std::exception_ptr *p)
{
	ENTER(I_PTR_THROW);
	if (n == 0) {
		rethrown.fetch_add(1, std::memory_order_relaxed);
		std::rethrow_exception(*p);
	}
	long r = ptr_throw(n - 1, p) + 1;
	return RET(I_PTR_THROW, r);
}

F long ptr_catch(const std::exception_ptr *p)
{
	ENTER(I_PTR_CATCH);
	long r;
	try {
		r = ptr_throw(3, p);
	} catch (const Err &e) {
		caught.fetch_add(1, std::memory_order_relaxed);
		ptr_passed.fetch_add(1, std::memory_order_relaxed);
		r = leaf(e.v);
	}
	return RET(I_PTR_CATCH, r);
}

} // namespace ex

// ex::Guard::~Guard(), whose address C++ does not give: by its symbol
// (the base object destructor; GCC makes the complete one its alias).
extern "C" void guard_dtor_sym(void) __asm__("_ZN2ex5GuardD2Ev");

static unsigned long addr[NI_FNS];

NI static int index_of(unsigned long ip)
{
	for (int i = 0; i < NI_FNS; i++)
		if (addr[i] == ip)
			return i;
	return -1;
}

NI static void on_entry(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	(void)r;
	int i = index_of(ip);
	if (i < 0) {
		foreign.fetch_add(1, std::memory_order_relaxed);
		return;
	}
	no_pending();
	hook_in[i].fetch_add(1, std::memory_order_relaxed);
}

NI static void on_exit_cb(unsigned long ip, unsigned long parent, void *data, struct mcount_regs *r)
{
	(void)parent;
	(void)data;
	int i = index_of(ip);
	if (i < 0) {
		foreign.fetch_add(1, std::memory_order_relaxed);
		return;
	}
	hook_out[i].fetch_add(1, std::memory_order_relaxed);
	if (!pend.set || pend.idx != i)
		bad_exit.fetch_add(1, std::memory_order_relaxed);
	else if (pend.has_value && (long)mcount_regs_return(r) != pend.value)
		bad_value.fetch_add(1, std::memory_order_relaxed);
	pend.set = 0;
}

static int nthreads, rounds;
static pthread_barrier_t bar;
static std::exception_ptr *slots;
static std::atomic<long> sum;

NI static void *worker(void *arg)
{
	long t = (long)(size_t)arg;
	long acc = 0;
	for (int k = 0; k < rounds; k++) {
		long x = t * 1000003 + k;
		acc += ex::self_catch(x);
		no_pending();
		acc += ex::catch_up(x);
		no_pending();
		acc += ex::outer(x);
		no_pending();
		if (k % 4 == 0) {
			// each thread keeps one exception; the next thread rethrows it
			acc += ex::produce(x, &slots[t]);
			no_pending();
			pthread_barrier_wait(&bar);
			acc += ex::ptr_catch(&slots[(t + 1) % nthreads]);
			no_pending();
			pthread_barrier_wait(&bar);
		}
	}
	sum.fetch_add(acc);
	return NULL;
}

NI int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (nthreads = atoi(argv[1])) < 1 || (rounds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: hooks_cxx THREADS ROUNDS\n");
		return 2;
	}
	unsigned long a[NI_FNS] = {
		(unsigned long)&ex::leaf, (unsigned long)&ex::thrower, (unsigned long)&ex::self_catch,
		(unsigned long)&ex::deep, (unsigned long)&ex::wrong_catch, (unsigned long)&ex::catch_up,
		(unsigned long)&ex::rethrow1, (unsigned long)&ex::rethrow2, (unsigned long)&ex::outer,
		(unsigned long)&ex::produce, (unsigned long)&ex::ptr_throw, (unsigned long)&ex::ptr_catch,
		(unsigned long)&guard_dtor_sym,
	};
	memcpy(addr, a, sizeof addr);
	struct mcount_hook *h = mcount_hook_create(on_entry, on_exit_cb, NULL, 0);
	if (!h || mcount_hook_filter(h, "ex::*") || mcount_hook_register(h)) {
		printf("FAIL setup: %s\n", strerror(errno));
		return 1;
	}
	slots = new std::exception_ptr[nthreads];
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	pthread_t *th = new pthread_t[nthreads];
	for (long t = 1; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(size_t)t);
	worker(0);
	for (long t = 1; t < nthreads; t++)
		pthread_join(th[t], NULL);
	if (mcount_hook_unregister(h)) {
		printf("FAIL unregister: %s\n", strerror(errno));
		return 1;
	}
	mcount_hook_destroy(h);
	int failed = 0;
	unsigned long calls = 0, returns = 0, exits = 0;
	for (int i = 0; i < NI_FNS; i++) {
		calls += entered[i];
		returns += returned[i];
		exits += hook_out[i];
		if (hook_in[i] != entered[i]) {
			printf("FAIL entries of %s: %lu, its calls %lu\n", fn_name[i], (unsigned long)hook_in[i],
			       (unsigned long)entered[i]);
			failed = 1;
		}
		if (hook_out[i] != returned[i]) {
			printf("FAIL exits of %s: %lu, its returns %lu\n", fn_name[i], (unsigned long)hook_out[i],
			       (unsigned long)returned[i]);
			failed = 1;
		}
		if (!returned[i] && i != I_PTR_THROW) {
			printf("FAIL %s never returned\n", fn_name[i]);
			failed = 1;
		}
	}
	if (entered[I_PTR_THROW] == 0 || returned[I_PTR_THROW] != 0) {
		printf("FAIL ptr_throw: %lu calls, %lu returns (want some, none)\n",
		       (unsigned long)entered[I_PTR_THROW], (unsigned long)returned[I_PTR_THROW]);
		failed = 1;
	}
	struct {
		const char *what;
		unsigned long n;
	} zero[] = { { "exits with no return before them (doubled, or of a frame left)", bad_exit },
		     { "exits with another value than the one returned", bad_value },
		     { "returns with no exit after them", missing_exit },
		     { "callbacks of functions not of ex", foreign } };
	for (auto &z : zero)
		if (z.n) {
			printf("FAIL %s: %lu\n", z.what, z.n);
			failed = 1;
		}
	unsigned long ptrs = (unsigned long)nthreads * (unsigned long)((rounds + 3) / 4);
	if (ptr_passed != ptrs) {
		printf("FAIL exceptions passed between threads: %lu, want %lu\n", (unsigned long)ptr_passed, ptrs);
		failed = 1;
	}
	if (failed)
		return 1;
	printf("ok cxx threads=%d rounds=%d calls=%lu exits=%lu unwound=%lu thrown=%lu rethrown=%lu caught=%lu "
	       "in-handler=%lu passed=%lu\n",
	       nthreads, rounds, calls, exits, calls - returns, (unsigned long)thrown, (unsigned long)rethrown,
	       (unsigned long)caught, (unsigned long)in_handler, (unsigned long)ptr_passed);
	printf("sum %ld\n", (long)sum);
	delete[] th;
	delete[] slots;
	return 0;
}
