/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sites.c - t/100-trace-sites.t: what the library must never write,
 * and whom it must never kill.  Compiled with -pg -mfentry through
 * mcount-cc; run with libmcount-trace.so preloaded or linked with
 * libmcount-trace.a.
 *
 *   sites insite       insite_call_fn and insite_nop_fn (insite.S:
 *                      table entries inside a movabs) and their bytes
 *                      and results before and after enable("*"), and
 *                      work() once; prints "before ..." and "after ..."
 *   sites sigfd STOP   a thread blocks SIGTRAP (pthread_sigmask) and
 *                      reads it through a signalfd, calling hot() until
 *                      the file STOP exists; then it raises SIGTRAP and
 *                      must read it from the signalfd.  Prints
 *                      "ready PID" once the thread blocks SIGTRAP,
 *                      "hot N read SIGTRAP" last;
 *                      exits 0 only if the signal was read.
 *   sites raw STOP     the same thread, but it blocks SIGTRAP through the
 *                      system call itself (no wrapper sees it) and has
 *                      no signalfd; "hot N" last.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) int work(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) long hot(long x)
{
	__asm__ volatile("");
	return x * 3 + 1;
}

#if defined(__x86_64__)
extern long insite_call_fn(void), insite_nop_fn(void);
/* the entries: 2 bytes into each function, after the movabs's REX and opcode */
#define insite_call_spot ((const unsigned char *)insite_call_fn + 2)
#define insite_nop_spot ((const unsigned char *)insite_nop_fn + 2)

static void show(const char *when)
{
	printf("%s", when);
	for (int i = 0; i < 5; i++)
		printf(" %02x", insite_call_spot[i]);
	printf(" |");
	for (int i = 0; i < 5; i++)
		printf(" %02x", insite_nop_spot[i]);
	printf(" | %#lx %#lx\n", (unsigned long)insite_call_fn(), (unsigned long)insite_nop_fn());
}

static int insite_main(void)
{
	show("before");
	/* a weak reference would be 0 in a program linked without the
	 * library: ask ld.so */
	int (*enable)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_enable");
	int n = enable ? enable("*") : -2;
	show("after");
	printf("enabled %d work %d\n", n, work(41));
	return 0;
}
#else
static int insite_main(void)
{
	fprintf(stderr, "sites insite: x86_64 only\n");
	return 2;
}
#endif

static const char *stop_file;
static long hot_calls;
static bool raw;
static atomic_int armed;           /* the thread blocks SIGTRAP */

static void *sigfd_thread(void *arg)
{
	(void)arg;
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGTRAP);
	int fd = -1;
	if (raw) {
		if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, NULL, (size_t)(_NSIG / 8)))
			return "rt_sigprocmask";
	} else {
		if (pthread_sigmask(SIG_BLOCK, &m, NULL))
			return "pthread_sigmask";
		if ((fd = signalfd(-1, &m, SFD_CLOEXEC)) < 0)
			return "signalfd";
	}
	atomic_store(&armed, 1);
	long s = 0;
	while (access(stop_file, F_OK))
		for (int i = 0; i < 10000; i++, hot_calls++)
			s += hot(i);
	if (raw)
		return s ? NULL : "no call";
	/* sent to this thread, which blocks it: pending, for the signalfd */
	raise(SIGTRAP);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct signalfd_siginfo si;
	if (poll(&p, 1, 10000) != 1 || read(fd, &si, sizeof si) != sizeof si || si.ssi_signo != SIGTRAP)
		return "no SIGTRAP on the signalfd";
	close(fd);
	return s ? NULL : "no call";
}

static int sigfd_main(const char *stop)
{
	stop_file = stop;
	pthread_t t;
	if (pthread_create(&t, NULL, sigfd_thread, NULL))
		return 2;
	while (!atomic_load(&armed))
		usleep(1000);
	printf("ready %d\n", (int)getpid());
	void *why;
	pthread_join(t, &why);
	if (why) {
		printf("failed: %s\n", (const char *)why);
		return 1;
	}
	printf(raw ? "hot %ld\n" : "hot %ld read SIGTRAP\n", hot_calls);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "insite"))
		return insite_main();
	if (argc >= 3 && !strcmp(argv[1], "sigfd"))
		return sigfd_main(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "raw")) {
		raw = true;
		return sigfd_main(argv[2]);
	}
	fprintf(stderr, "sites: unknown mode\n");
	return 2;
}
