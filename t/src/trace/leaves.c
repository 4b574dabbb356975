/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leaves.c - functions that never save their return address, each with
 * another prologue (the arm guest: on 32-bit Arm they keep it in lr, and
 * function_graph hijacks it there, rt/rt.h): nothing pushed, registers
 * pushed, stack reserved, both, a variadic one's argument registers,
 * and two that end in a tail call, one after pushing registers.  Each but the last writes its
 * return value into the program's own log as it returns; main prints
 * the log, which a function_graph trace with return values must repeat
 * return for return.
 * Usage: leaves [ROUNDS]; prints the log and one result line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define F __attribute__((noipa))
#define LOGN 4096

static const char *log_fn[LOGN];
static unsigned long log_val[LOGN];
static unsigned nlog;

#define RET(name, v)                                      \
	do {                                              \
		long r_ = (v);                            \
		if (nlog < LOGN) {                        \
			log_fn[nlog] = name;              \
			log_val[nlog++] = (unsigned long)r_; \
		}                                         \
		return r_;                                \
	} while (0)

/* callee-saved registers taken: the prologue pushes them, not lr */
#define TAKE(...) __asm__ volatile("" ::: __VA_ARGS__)

F long bare(long x) { RET("bare", x * 3 + 1); }

F long saved(long a, long b)
{
	TAKE("r4", "r5", "r6");
	RET("saved", a * 5 - b);
}

F long stacked(long x)
{
	volatile long a[4] = { x, x + 1, x + 2, x + 3 };
	RET("stacked", a[x & 3] * 2 + a[(x + 1) & 3]);
}

F long both(long x, long y)
{
	volatile long a[3] = { x, y, x ^ y };
	TAKE("r4");
	RET("both", a[0] + a[1] * 7 - a[2]);
}

F long va_leaf(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	long s = n;
	while (n-- > 0)
		s = s * 3 + va_arg(ap, long);
	va_end(ap);
	RET("va_leaf", s);
}

/* not a leaf: a variadic function saves lr after its argument registers */
F long va_call(int n, ...)
{
	va_list ap;
	long s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += bare(va_arg(ap, long));
	va_end(ap);
	RET("va_call", s);
}

/* at -O2 a tail call: bare returns for both (no log of its own) */
F long tail(long x) { return bare(x + 11); }

/* the same after pushing registers (not lr), popped before the branch */
F long tail_saved(long x)
{
	TAKE("r4", "r5");
	return bare(x + 23);
}

/* an ordinary function: lr pushed first */
F long mid(long x) { RET("mid", bare(x) + saved(x, 3) + stacked(x)); }

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	long r = 0;
	for (int i = 0; i < rounds; i++) {
		r += bare(i);
		r += saved(i, i + 1);
		r += stacked(i);
		r += both(i, 2 * i);
		r += va_leaf(3, (long)i, 4L, 5L);
		r += va_call(2, (long)i, 9L);
		r += tail(i);
		r += tail_saved(i);
		r += mid(i);
	}
	for (unsigned i = 0; i < nlog; i++)
		printf("%s 0x%lx\n", log_fn[i], log_val[i]);
	printf("result %ld\n", r);
	return 0;
}
