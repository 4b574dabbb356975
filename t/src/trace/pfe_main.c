/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfe_main.c - the program of t/113-trace-patchable.t's shared
 * library (pfe_lib.c): built with -fpatchable-function-entry=5 and
 * -finstrument-functions, it calls the library's functions, and one
 * of them calls back into it.  $PFE_AT names a file that gets the
 * run-time address of lib_leaf (the library's load bias, with nm);
 * with $PFE_WAIT it writes "ready" to that file after the first round
 * and waits until the file $PFE_WAIT exists (the test reads its code
 * meanwhile).  With -DWITH_API (libmcount-trace.a linked in) main
 * switches tracing on with the glob in $ORACLE_ENABLE.
 * Usage: pfe_main [ROUNDS]; prints one result line. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef WITH_API
#include "mcount-trace.h"
#endif

#define F __attribute__((noipa))

int lib_leaf(int x);
int lib_mid(int x);
int lib_rec(int n);
int lib_call(int (*fn)(int), int x);

F int back(int x) { return lib_leaf(x) + 1; }
F static int round_of(int i) { return lib_mid(i) + lib_rec(i + 1) + lib_call(back, i); }

int main(int argc, char **argv)
{
#ifdef WITH_API
	const char *g = getenv("ORACLE_ENABLE");
	if (g && mcount_trace_enable(g) <= 0) {
		fprintf(stderr, "pfe_main: mcount_trace_enable(\"%s\") switched nothing\n", g);
		return 3;
	}
#endif
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	const char *at = getenv("PFE_AT"), *wait = getenv("PFE_WAIT");
	long r = 0;
	for (int i = 0; i < rounds; i++) {
		r += round_of(i);
		if (i == 0 && at) {
			FILE *f = fopen(at, "w");
			if (!f || fprintf(f, "lib_leaf %p\n%s", (void *)lib_leaf, wait ? "ready\n" : "") < 0 || fclose(f))
				return 4;
			while (wait && access(wait, F_OK)) {
				struct timespec ts = { 0, 10000000 };
				nanosleep(&ts, NULL);
			}
		}
	}
	printf("result %ld\n", r);
	return 0;
}
