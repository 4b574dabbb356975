/* SPDX-License-Identifier: GPL-2.0-or-later */
/* secure.c - a program for t/98, which turns the tracer's variables and
 * files against it and its user.  Modes (the first argument):
 *   api         enables work() through the C API, calls it 5 times and
 *               writes the trace to standard output itself
 *               (mcount_trace_write): what a privileged program keeps
 *   calls N     calls work() N times, prints the sum
 *   planted F   a forked child finds F.PID there before its first
 *               event (made here, as another user would), then calls
 *               work(); the parent calls it too, waits, prints "done"
 *   loop MS     calls work() for MS milliseconds, prints "done"
 *   wait        prints "ready", then waits (at most 30 s) for a signal
 *   chroot DIR  chroot(DIR) (a root without /proc), then as wait
 * The C API is weak: the program runs with the library preloaded or
 * linked in. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcount-trace.h"

#pragma weak mcount_trace_enable
#pragma weak mcount_trace_write

__attribute__((noinline, noipa)) long work(long x) { return x * 2 + 1; }

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int wait_here(void)
{
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 300; i++)
		usleep(100000);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long s = 0;
	if (!strcmp(mode, "api")) {
		if (!mcount_trace_enable || mcount_trace_enable("work") != 1) {
			fprintf(stderr, "secure: mcount_trace_enable failed\n");
			return 1;
		}
		for (long i = 0; i < 5; i++)
			s += work(i);
		printf("sum %ld\n", s);
		fflush(stdout);
		return mcount_trace_write(1, MCOUNT_TRACE_TEXT) == 5 ? 0 : 2;
	}
	if (!strcmp(mode, "calls") && argc > 2) {
		for (long i = 0, n = atol(argv[2]); i < n; i++)
			s += work(i);
		printf("sum %ld\n", s);
		return 0;
	}
	if (!strcmp(mode, "planted") && argc > 2) {
		s += work(1);
		pid_t c = fork();
		if (c == 0) {
			char name[4096];
			snprintf(name, sizeof name, "%s.%d", argv[2], (int)getpid());
			int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0 || write(fd, "planted\n", 8) != 8 || close(fd))
				_exit(3);
			exit(work(2) == 5 ? 0 : 4);     /* (the library writes at exit) */
		}
		int st;
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		printf("done %d\n", (int)c);
		return 0;
	}
	if (!strcmp(mode, "loop") && argc > 2) {
		double end = now() + atol(argv[2]) / 1000.0;
		while (now() < end)
			for (int i = 0; i < 1000; i++)
				s += work(i);
		printf("done\n");
		return s ? 0 : 1;
	}
	if (!strcmp(mode, "wait"))
		return wait_here();
	if (!strcmp(mode, "chroot") && argc > 2) {
		if (chroot(argv[2]) || chdir("/")) {
			perror("secure: chroot");
			return 1;
		}
		return wait_here();
	}
	fprintf(stderr, "usage: secure api|calls N|planted FILE|loop MS|wait|chroot DIR\n");
	return 2;
}
