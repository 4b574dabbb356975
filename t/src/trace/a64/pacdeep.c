/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pacdeep.c - a traced function that signs its return address (built
 * with -mbranch-protection=pac-ret), entered at thousands of stack
 * depths (recursing DEPTH deep, under the function_graph tracer's
 * shadow stack of 1024, from ROUNDS starting depths that shift() sets,
 * itself not traced): each frame's signature depends on its stack pointer, and
 * where top-byte-ignore leaves 7 bits for it, about 1 in 128 is all
 * zeros, so that the saved x30 equals the return address stripped.  A
 * tracer that hijacked such a frame would have its epilogue's autiasp
 * fail on the trampoline's address.  Prints the sum.
 *
 * usage: pacdeep [DEPTH [ROUNDS]]
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long deep(long n, long acc)
{
	if (n == 0)
		return acc;
	long r = deep(n - 1, acc + n);
	__asm__ volatile("" : : : "memory");
	return r + 1;                 /* not a tail call: every frame stays */
}

static long depth;

__attribute__((noinline)) long shift(long k, long i)
{
	if (k == 0)
		return deep(depth, i);
	long r = shift(k - 1, i);
	__asm__ volatile("" : : : "memory");
	return r;
}

int main(int argc, char **argv)
{
	depth = argc > 1 ? atol(argv[1]) : 900;
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	long sum = 0;
	for (int i = 0; i < rounds; i++)
		sum += shift(7 * i, i);
	printf("%ld\n", sum);
	return 0;
}
