/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qexit.c - a program that ends as its first argument says, counting
 * its own calls (t/102).
 *
 *   qexit HOW N [DIR]
 *
 * main calls f() N times, then writes "main CALLS\n" with write(2) (no
 * stdio buffer to lose), CALLS being the entries of this file's
 * functions so far, main's own among them: as many as the calls of the
 * profiling hook the -pg code made.  Then, by HOW:
 *   return  main returns (atexit handlers and destructors run); main
 *           writes "main-ret ADDR\n" first, where it returns to, and a
 *           copy of /proc/self/maps into DIR/maps (the kernel's word on
 *           what is mapped where), and the destructor prog_dtor writes
 *           "dtor-ret ADDR\n", where it returns to (the code that
 *           called it)
 *   _exit   _exit(0): no atexit handler, no destructor
 *   _Exit   _Exit(0), the same
 *   fork    a child calls f() N times, writes "child CALLS\n" and
 *           _exits; the parent waits for it, then _exits
 *   wait    creates DIR/ready and waits for DIR/go (ready.h), then
 *           _exits
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ready.h"

static volatile int calls;

__attribute__((no_instrument_function)) static void say(const char *what, unsigned long v, int hex)
{
	char b[64];
	int n = snprintf(b, sizeof b, hex ? "%s %#lx\n" : "%s %lu\n", what, v);
	if (write(1, b, (size_t)n) != n)
		_exit(3);
}

__attribute__((no_instrument_function)) static void copy_maps(const char *dir)
{
	char p[4096], b[4096];
	snprintf(p, sizeof p, "%s/maps", dir);
	int in = open("/proc/self/maps", O_RDONLY), out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t r;
	while (in >= 0 && out >= 0 && (r = read(in, b, sizeof b)) > 0)
		if (write(out, b, (size_t)r) != r)
			_exit(3);
	close(in);
	close(out);
}

__attribute__((noinline)) int f(int x)
{
	calls++;
	__asm__ volatile("");
	return x + 1;
}

__attribute__((destructor, noinline)) void prog_dtor(void)
{
	calls++;
	say("dtor-ret", (unsigned long)(uintptr_t)__builtin_return_address(0), 1);
}

int main(int argc, char **argv)
{
	calls++;
	const char *how = argc > 1 ? argv[1] : "_exit";
	int n = argc > 2 ? atoi(argv[2]) : 10, s = 0;
	for (int i = 0; i < n; i++)
		s += f(i);
	say("main", (unsigned long)calls, 0);
	if (!strcmp(how, "return")) {
		say("main-ret", (unsigned long)(uintptr_t)__builtin_return_address(0), 1);
		if (argc > 3)
			copy_maps(argv[3]);
		return s < 0;
	}
	if (!strcmp(how, "fork")) {
		pid_t p = fork();
		if (p == 0) {
			calls = 0;
			for (int i = 0; i < n; i++)
				s += f(i);
			say("child", (unsigned long)calls, 0);
			_exit(0);
		}
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || st)
			_exit(2);
	} else if (!strcmp(how, "wait") && argc > 3) {
		ready_then_wait(argv[3]);
	} else if (!strcmp(how, "_Exit")) {
		_Exit(s < 0);
	}
	_exit(s < 0);
}
