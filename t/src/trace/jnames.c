/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a JSON trace must escape or carry as UTF-8, for the readers of
 * the trace: functions whose names are UTF-8, threads whose names have
 * quotes, backslashes, control characters and UTF-8 in them, a string
 * argument of every kind (escapes, UTF-8, bytes that are not UTF-8, cut
 * short, null, unreadable), integers as wide as they come, a longjmp out
 * of traced frames, and a function that realigns its stack through a
 * register (GCC's DRAP: built with -pg, its return is not hooked).  The
 * main thread keeps its name: its lines are the plain ones.  The other
 * thread is alive when the program exits (the tracer reads its name
 * then).
 *
 * usage: jnames ROUNDS
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static __thread volatile long sink;    /* (main's is printed) */
static jmp_buf back;

__attribute__((noinline)) long café(long x)
{
	sink += x;
	return x + 1;
}

__attribute__((noinline)) long naïve_λ(long x)
{
	return café(x) * 2;
}

__attribute__((noinline)) int say(const char *s, long n, unsigned long long u, bool b)
{
	sink += n + (long)u + b + (s != NULL);
	return n < 0;
}

__attribute__((noinline)) void leap(int d)
{
	sink += d;
	if (d < 0)
		return;
	if (!d)
		longjmp(back, 1);
	leap(d - 1);
}

__attribute__((noinline)) void jump(void)
{
	if (!setjmp(back))
		leap(3);
}

__attribute__((noinline)) long realign(long n)
{
	char vla[n];
	char big[64] __attribute__((aligned(64)));
	memset(vla, 1, (size_t)n);
	memset(big, 2, sizeof big);
	return café(vla[n - 1] + big[n & 63]);
}

static const char *const strs[] = {
	"plain", "a \"quoted\" \\back\\slashed", "new\nline\ttab\rret\x01\x1f\x7f", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e",
	"not utf-8: \xff\xfe \x80 \xc3", "/* */ {\"json\":[1,2]}, \\u0041",
	"a long one, longer than the trace keeps of a string: 0123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789",
};

static void work(long rounds)
{
	for (long i = 0; i < rounds; i++) {
		naïve_λ(i);
		for (size_t k = 0; k < sizeof strs / sizeof *strs; k++)
			say(strs[k], k & 1 ? -i : i, k == 2 ? ULLONG_MAX : (unsigned long long)i, k & 1);
		say(NULL, LONG_MIN, 0, false);
		say((const char *)16, LONG_MAX, 1ull << 53, true);
		jump();
		realign(i + 8);
	}
}

static int done[2];

static void *thread_main(void *arg)
{
	prctl(PR_SET_NAME, (unsigned long)"t\"q\\b\x01\t\xc3\xa9\xe2\x82\xac", 0, 0, 0);
	work((long)arg);
	if (write(done[1], "", 1) != 1)
		abort();
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 10;
	pthread_t t;
	char c;
	if (pipe(done) || pthread_create(&t, NULL, thread_main, (void *)rounds))
		return 1;
	work(rounds);
	if (read(done[0], &c, 1) != 1)
		return 1;
	printf("%ld\n", sink);
	return 0;
}
