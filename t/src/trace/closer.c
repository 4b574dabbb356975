/* SPDX-License-Identifier: GPL-2.0-or-later */
/* closer.c - a program that closes every descriptor it did not open, as
 * a daemon does, then opens files of its own (which get the numbers the
 * tracer's trace file and socket had) and keeps making traced calls
 * (t/77).  It writes its own files and prints what it wrote. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }

static void pause_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };
	nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
	long s = 0;
	for (int i = 0; i < 10; i++)
		s += leaf(i);
	pause_ms(100);                 /* drained into the trace file */
	for (int fd = 3; fd < 256; fd++)
		close(fd);
	int fds[4];
	for (int i = 0; i < 4; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s.%d", argc > 1 ? argv[1] : "own", i);
		fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	}
	for (int i = 0; i < 1000; i++)
		s += leaf(i);
	pause_ms(300);                 /* several drains */
	for (int i = 0; i < 4; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "file %d of the program\n", i);
		if (write(fds[i], line, (size_t)n) != n)
			return 1;
		close(fds[i]);
	}
	printf("%ld\n", s);
	return 0;
}
