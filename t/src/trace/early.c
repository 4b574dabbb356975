/* SPDX-License-Identifier: GPL-2.0-or-later */
/* early.c - preloaded after libmcount-trace.so by t/73-trace-process.t,
 * and linked with -z initfirst, so that it is initialised before the
 * library (glibc initialises first the last object loaded that asks for
 * it): installs the program's SIGTRAP handler before the library starts
 * (EARLY_SO_TRAP=sigaction or signal), as a program whose handler is
 * set before the tracer's start-up would.  It counts through the
 * program's own counter, found by name, and says what it found in
 * early_found.  (Initialised first, before the C library: its
 * environment is the one it is given, and getenv has none yet.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_trap(int sig)
{
	void (*f)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "proc_count_trap");
	if (f)
		f(sig);
}

static void on_trap_info(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	on_trap(sig);
}

const char *early_found = "not installed";

__attribute__((constructor)) static void early(int argc, char **argv, char **envp)
{
	const char *m = NULL;
	(void)argc;
	(void)argv;
	for (char **e = envp; e && *e; e++)
		if (!strncmp(*e, "EARLY_SO_TRAP=", 14))
			m = *e + 14;
	/* What the kernel has, not what an interposed sigaction() says. */
	struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } old;
	if (syscall(SYS_rt_sigaction, SIGTRAP, NULL, &old, 8))
		abort();
	early_found = old.handler == SIG_DFL ? "default" : "a handler";
	if (m && !strcmp(m, "sigaction")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_trap_info;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTRAP, &sa, NULL);
	} else if (m && !strcmp(m, "signal")) {
		signal(SIGTRAP, on_trap);
	}
}
