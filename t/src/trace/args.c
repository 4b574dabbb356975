/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function events' oracle: functions called with arguments from a seeded
 * generator, each writing what it was given to LOG (argv[2]), one line a
 * call, as "NAME\tvalue\tvalue..." (integers in decimal, strings as hex
 * of their bytes, "-" for NULL, "!" for an unreadable pointer), before it
 * does anything else, and "=NAME\tvalue" with what it returns, last.
 * The test reads the trace's arguments and return values back and
 * compares them with this log, call for call.
 *
 * usage: args SEED LOG [ROUNDS]
 * With -DWITH_API the program sets its prototypes itself, from argv[4]
 * (';'-separated), through mcount_trace_event().  With ARGS_GATE set,
 * the calls wait until that file exists (prototypes given live).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef WITH_API
#include "mcount-trace.h"
#endif

static FILE *logf;
static uint64_t state;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static void log_str(const char *s, size_t max)
{
	if (!s) {
		fputs("\t-", logf);
		return;
	}
	if ((uintptr_t)s < 4096) {
		fputs("\t!", logf);
		return;
	}
	fputc('\t', logf);
	size_t n = strlen(s);
	for (size_t i = 0; i < n && i < max; i++)
		fprintf(logf, "%02x", (unsigned char)s[i]);
	if (n > max)
		fputs("+", logf);       /* longer than the trace keeps */
}

__attribute__((noinline)) int ints(int a, long b, unsigned c, short d, signed char e, unsigned long long f)
{
	fprintf(logf, "ints\t%d\t%ld\t%u\t%d\t%d\t%llu\n", a, b, c, d, e, f);
	int r = (int)((unsigned)a + (unsigned)b + c + (unsigned)d + (unsigned)e + (unsigned)f);
	if (a % 5 == 0)
		r = -(int)((unsigned)b % 4095) - 1;        /* an error code now and then */
	fprintf(logf, "=ints\t%d\n", r);
	return r;
}

__attribute__((noinline)) int strs(const char *s, int n, const char *t)
{
	fputs("strs", logf);
	log_str(s, 128);
	fprintf(logf, "\t%d", n);
	log_str(t, 128);
	fputc('\n', logf);
	int r = n + (s && (uintptr_t)s >= 4096 ? (int)strlen(s) : 0);   /* small */
	fprintf(logf, "=strs\t%d\n", r);
	return r;
}

__attribute__((noinline)) long many(long a1, long a2, long a3, long a4, long a5, long a6, long a7,
				    long a8, long a9)
{
	fprintf(logf, "many\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\n", a1, a2, a3, a4, a5, a6, a7,
		a8, a9);
	long r = a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9;
	fprintf(logf, "=many\t%ld\n", r);
	return r;
}

__attribute__((noinline)) int flags(bool on, unsigned char u8, uint16_t u16, void *p)
{
	fprintf(logf, "flags\t%d\t%u\t%u\t%llu\n", on, u8, u16, (unsigned long long)(uintptr_t)p);
	int r = on + u8 + u16;                                        /* small */
	fprintf(logf, "=flags\t%d\n", r);
	return r;
}

/* A string of random length (some longer than the trace keeps) with
 * every kind of byte: escapes, quotes, bytes above 0x7f. */
static char *make_str(char *buf, size_t cap)
{
	size_t n = rnd() % 4 == 0 ? 100 + rnd() % 100 : rnd() % 24;
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)(1 + rnd() % 255);
		if (rnd() % 2)
			c = (unsigned char)("ab\"\\\n\t xyz"[rnd() % 10]);
		buf[i] = (char)c;
	}
	buf[n] = 0;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	state = strtoull(argv[1], NULL, 10) | 1;
	logf = fopen(argv[2], "w");
	if (!logf)
		return 2;
	int rounds = argc > 3 ? atoi(argv[3]) : 50;
#ifdef WITH_API
	if (argc > 4 && mcount_trace_event(argv[4]) < 0)
		return 3;
#endif
	const char *gate = getenv("ARGS_GATE");
	for (int i = 0; gate && access(gate, F_OK) && i < 6000; i++)
		usleep(10000);
	unsigned long sum = 0;
	char b1[256], b2[256];
	for (int i = 0; i < rounds; i++) {
		sum += ints((int)rnd(), (long)rnd(), (unsigned)rnd(), (short)rnd(), (signed char)rnd(), rnd());
		const char *s = i % 7 == 3 ? NULL : i % 7 == 5 ? (const char *)16 : make_str(b1, sizeof b1);
		sum += strs(s, (int)(rnd() % 1000) - 500, make_str(b2, sizeof b2));
		sum += many((long)rnd(), (long)rnd(), (long)rnd(), (long)rnd(), (long)rnd(), (long)rnd(),
			    (long)rnd(), (long)rnd(), (long)rnd());
		sum += flags(rnd() % 2, (unsigned char)rnd(), (uint16_t)rnd(), (void *)(uintptr_t)rnd());
	}
	fclose(logf);
	printf("%lu\n", sum & 0xffff);
	return 0;
}
