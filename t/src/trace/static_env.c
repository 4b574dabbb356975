/* SPDX-License-Identifier: GPL-2.0-or-later */
/* static_env.c - a program that knows nothing of the tracer (t/76): it
 * calls count_me() exactly argv[1] times and other() once, and prints
 * how often.  Linked with libmcount-trace.a, the start-up filter alone
 * must trace it. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int count_me(int x) { return x * 2 + 1; }
__attribute__((noinline)) int other(int x) { return x - 1; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long s = other(n);
	for (int i = 0; i < n; i++)
		s += count_me(i);
	printf("%d calls, %ld\n", n, s);
	return 0;
}
