/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oracle.c - the program t/71-trace-oracle.t traces.  Compiled with -pg
 * (-mfentry) -finstrument-functions: every function calls the hook first
 * and then __cyg_profile_func_enter (cyg.c), whose log is the oracle.
 * noipa keeps each function a real function of its own, entered as the
 * source says (no inlining, cloning or interprocedural shortcuts).
 * Built with -DWITH_API, main switches tracing on itself with the glob in
 * $ORACLE_ENABLE (libmcount-trace.a linked in).
 * Usage: oracle [ROUNDS]; prints one result line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef WITH_API
#include "mcount-trace.h"
#endif

#define F __attribute__((noipa))

F int leaf(int x) { return x * 3 + 1; }
F int mid(int x) { return leaf(x) + leaf(x + 1); }
F static int rec(int n) { return n ? rec(n - 1) + 1 : 0; }
F int apply(int (*fn)(int), int x) { return fn(x) + 1; }

F long sum_va(int n, ...)
{
	va_list ap;
	long s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, long) * (i + 1);
	va_end(ap);
	return s;
}

/* Vector and many integer arguments: the hooks must keep them all. */
F double fmix(double a, int b, double c, float d) { return a * b + c - d; }
F long many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

struct pair { long a, b; };
F struct pair swap(struct pair p) { return (struct pair){ p.b, p.a }; }

static int from_ctor;
__attribute__((constructor)) F static void early(void) { from_ctor = leaf(4); }

int main(int argc, char **argv)
{
#ifdef WITH_API
	const char *g = getenv("ORACLE_ENABLE");
	if (g && mcount_trace_enable(g) <= 0) {
		fprintf(stderr, "oracle: mcount_trace_enable(\"%s\") switched nothing\n", g);
		return 3;
	}
#endif
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	long r = from_ctor;
	double d = 0;
	for (int i = 0; i < rounds; i++) {
		r += mid(i);
		r += rec(i + 2);
		r += apply(leaf, i);
		r += sum_va(4, 1L, 2L, (long)i, 10L);
		d += fmix(1.5, i, 0.25, 0.125f);
		r += many(1, 2, 3, 4, 5, 6, 7, i);
		struct pair p = swap((struct pair){ i, 2 * i + 1 });
		r += p.a - p.b;
	}
	printf("result %ld %.4f\n", r, d);
	return 0;
}
