/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relog.c - a program that sends its standard error to a log file of its
 * own (freopen) between two rounds of traced calls (t/77): a trace to
 * standard error (MCOUNT_TRACE_OUTPUT=-) must stay on the one it started
 * with, and the log hold only the program's line. */
#include <stdio.h>
#include <time.h>

__attribute__((noinline, noipa)) int leaf(int x) { return x * 3 + 1; }

static void pause_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };
	nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
	long s = 0;
	if (argc != 2)
		return 2;
	for (int i = 0; i < 3; i++)
		s += leaf(i);
	pause_ms(60);                  /* drained before the redirection */
	if (!freopen(argv[1], "w", stderr))
		return 1;
	fprintf(stderr, "the program's log line\n");
	for (int i = 10; i < 13; i++)
		s += leaf(i);
	pause_ms(60);                  /* and after it */
	printf("%ld\n", s);
	return 0;
}
