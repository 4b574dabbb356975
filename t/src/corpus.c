/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core corpus: every kind of function and section the record step has
 * to handle.  corpus_run() reaches every instrumented function, so a
 * linked test program can check that every table entry is executed. */
#include "corpus.h"

struct pair { int a, b, pad[6]; };

/* a static function only called directly: may be inlined or kept local */
static __attribute__((noinline)) int local_helper(int x)
{
	return x * 3 + 1;
}

/* .constprop: a constant argument at every call */
static __attribute__((noinline)) int scale(int x, int k)
{
	int r = 0;
	for (int i = 0; i < k; i++)
		r += x ^ i;
	return r;
}

/* .isra: only one field of the struct is used */
static __attribute__((noinline)) int first_of(const struct pair *p)
{
	return p->a * 7 + 2;
}

/* .part: a cheap early exit in front of a large body (partial inlining) */
static int slow_path(volatile int *v, int x)
{
	int acc = 0;
	for (int i = 0; i < 64; i++) {
		acc += v[i & 7] * x;
		v[(i + 3) & 7] ^= acc;
		if (acc > 100000)
			acc /= 3;
	}
	return acc;
}
static int maybe_slow(int x)
{
	static volatile int buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	if (__builtin_expect(x < 1000, 1))
		return x + 1;
	return slow_path(buf, x) + slow_path(buf, x + 1);
}

/* .cold: an unlikely branch split out of the function */
__attribute__((cold, noinline)) void corpus_fail(int code)
{
	static volatile int sink;
	sink = code;
}
int corpus_checked(int x)
{
	if (__builtin_expect(x == -12345, 0)) {
		corpus_fail(x);
		corpus_fail(x + 1);
		return -1;
	}
	return x + 5;
}

/* weak, in .text with others */
__attribute__((weak, noinline)) int corpus_weak(int x)
{
	return x - 4;
}

/* a section whose only function is weak: there is no usable anchor */
__attribute__((weak, noinline, section(".text.weakonly"))) int corpus_weak_only(int x)
{
	return x + 11;
}

/* kernel-listed sections, one holding a global, one only a static */
__attribute__((noinline, section(".sched.text"))) int corpus_sched(int x)
{
	return x * 2;
}
static __attribute__((noinline, section(".ref.text"))) int ref_only_static(int x)
{
	return x + 9;
}
__attribute__((noinline, section(".init.text"))) int corpus_init(int x)
{
	return ref_only_static(x) + 1;
}

/* a section the kernel's list leaves out: not recorded by default */
__attribute__((noinline, section("exotic_text"))) int corpus_exotic(int x)
{
	return x ^ 0x55;
}

/* never instrumented */
__attribute__((no_instrument_function)) int corpus_plain(int x)
{
	return x + 100;
}

int (*volatile corpus_ptr_checked)(int) = corpus_checked;

int corpus_run(int x)
{
	struct pair p = { x, x + 1, { 0 } };
	int r = local_helper(x);
	r += scale(x, 3) + scale(x + 1, 3);
	r += first_of(&p);
	r += maybe_slow(x) + maybe_slow(x + 2);
	r += corpus_checked(x) + corpus_ptr_checked(x);
	r += corpus_weak(x) + corpus_weak_only(x);
	r += corpus_sched(x) + corpus_init(x) + corpus_exotic(x) + corpus_plain(x);
	return r;
}
