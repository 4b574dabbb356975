/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stat.c - calls of known counts and times, for the function profiler:
 * `stat N`: top() N times, each calling mid(3) and mid(2), mid(n)
 * calling leaf() n times, leaf() sleeping 2 ms; `stat forever`: the
 * same until killed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) void leaf(void)
{
	struct timespec t = { 0, 2000000 };
	while (nanosleep(&t, &t))
		;
}

__attribute__((noinline)) void mid(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

__attribute__((noinline)) int top(void)
{
	mid(3);
	mid(2);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 && strcmp(argv[1], "forever") ? atoi(argv[1]) : -1;
	for (int i = 0; n < 0 || i < n; i++)
		top();
	return 0;
}
