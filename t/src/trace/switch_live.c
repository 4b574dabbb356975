/* SPDX-License-Identifier: GPL-2.0-or-later */
/* switch_live.c - a switch of the tracer while calls are in progress
 * (t/101-trace-names.t).
 *
 *   switch_live tight SECONDS   mid() calls leaf() in a loop, again and
 *                               again, for SECONDS: a thread that keeps
 *                               its buffer full while it is switched
 *   switch_live steps DIR       mid() calls leaf() STEP times, creates
 *                               DIR/ready and waits for DIR/go (the
 *                               tracer is switched then: mid is in
 *                               progress), calls leaf() STEP times more,
 *                               returns, creates DIR/done and waits for
 *                               DIR/end (the trace is read then); each
 *                               wait gives up after 60 s
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define F __attribute__((noipa))
#define STEP 100

static volatile unsigned long sink;

F void leaf(unsigned long i) { sink += i; }

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void touch(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT, 0600);
	if (fd < 0) {
		perror(p);
		exit(2);
	}
	close(fd);
}

static void await(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	double end = now() + 60;
	struct timespec d = { 0, 10000000 };
	while (access(p, F_OK)) {
		if (now() > end) {
			fprintf(stderr, "%s: never came\n", p);
			exit(3);
		}
		nanosleep(&d, NULL);
	}
}

F void mid(unsigned long n, const char *dir)
{
	for (unsigned long i = 0; i < n; i++)
		leaf(i);
	if (dir) {
		touch(dir, "ready");
		await(dir, "go");
		for (unsigned long i = 0; i < n; i++)
			leaf(i);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "tight")) {
		double end = now() + atof(argv[2]);
		do
			mid(1000, NULL);
		while (now() < end);
	} else if (argc == 3 && !strcmp(argv[1], "steps")) {
		mid(STEP, argv[2]);
		touch(argv[2], "done");
		await(argv[2], "end");
	} else {
		fprintf(stderr, "usage: switch_live tight SECONDS | steps DIR\n");
		return 2;
	}
	printf("%lu\n", sink);
	return 0;
}
