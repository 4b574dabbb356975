/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trapblocker.c - a program one of whose threads blocks every signal,
 * SIGTRAP too, by the system call itself (as glibc's new threads do for
 * a moment, and some programs' threads for good), and waits there;
 * the main thread counts the lines it reads (line_seen, traced), prints
 * "lines N" at the end.  "ready" once the thread blocks them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long lines;
static int ready[2], never[2];

__attribute__((noinline)) void line_seen(const char *s)
{
	lines += s[0] != '\0';
	__asm__ volatile("" : : : "memory");
}

static void *blocker(void *arg)
{
	(void)arg;
	unsigned long all = ~0ul;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof all);
	char c;
	if (write(ready[1], "r", 1) != 1)
		return NULL;
	if (read(never[0], &c, 1) < 0)                 /* never written: waits for good */
		return NULL;
	return NULL;
}

int main(void)
{
	char buf[256];
	if (pipe(ready) || pipe(never))
		return 1;
	pthread_t t;
	if (pthread_create(&t, NULL, blocker, NULL))
		return 1;
	char c;
	if (read(ready[0], &c, 1) != 1)
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (fgets(buf, sizeof buf, stdin))
		line_seen(buf);
	printf("lines %lu\n", lines);
	return 0;
}
