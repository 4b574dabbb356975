/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.c - t/73-trace-process.t: what a process does to a tracer.
 * Compiled with -pg -mfentry through mcount-cc; run with
 * libmcount-trace.so preloaded or linked with libmcount-trace.a.
 *
 *   proc fork          p_before x3, fork (a thread keeps calling bg_work);
 *                      the child calls child_work x5 and exits, the
 *                      parent parent_work x4; prints "child PID"
 *   proc exec HOW      pre_exec x3, then exec itself (HOW: execv, execl,
 *                      execvp) as "proc after": post_exec x3
 *   proc signal N      a thread sends SIGUSR1 to main N times while main
 *                      calls work(); the handler calls in_handler()
 *   proc exit          4 threads call spin_work() for ever; main exits
 *                      once each made 1000 calls
 *   proc dl LIB SYNC   dlopen LIB, plug_a x3, SYNC/loaded, wait for
 *                      SYNC/listed; dlclose, local_fn x2, SYNC/closed,
 *                      wait for SYNC/done; 20 times: dlopen, plug_a,
 *                      dlclose at once; then local_fn x1, exit
 *   proc system        p_before x3, a pause (the events are written), then
 *                      system("exit 0") (a child that execs /bin/sh), then
 *                      parent_work x4
 *   proc resethand     a SIGTRAP handler with SA_RESETHAND: the second
 *                      raise(SIGTRAP) must kill
 *   proc trap HOW      the program's own SIGTRAP handler: HOW sigaction or
 *                      signal (installed in main), early (before the
 *                      library's start-up), ign (SIG_IGN, then raise),
 *                      dfl-int3, dfl-raise (SIG_DFL: must die of SIGTRAP)
 *   proc bad           bad_fn, bad_call_fn, bad_nop_fn, bad_framed_fn
 *                      (t/src/trace/badsite.S: table entries at
 *                      non-calls) and their bytes before and after enable
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int mcount_trace_enable(const char *) __attribute__((weak));
int mcount_trace_disable(const char *) __attribute__((weak));

#define F __attribute__((noipa))
F int p_before(int x) { return x + 1; }
F int child_work(int x) { return x + 2; }
F int parent_work(int x) { return x + 3; }
F int bg_work(int x) { return x ^ 1; }
F int pre_exec(int x) { return x + 4; }
F int post_exec(int x) { return x + 5; }
F int work(int x) { return x * 7; }
F int in_handler(int x) { return x + 6; }
F int spin_work(int x) { return x + 8; }
F int local_fn(int x) { return x + 9; }

static atomic_int stop;

static void *bg(void *arg)
{
	long s = 0;
	(void)arg;
	while (!atomic_load(&stop))
		s += bg_work((int)s);
	return (void *)s;
}

static int fork_main(void)
{
	int r = 0;
	for (int i = 0; i < 3; i++)
		r += p_before(i);
	pthread_t t;
	if (pthread_create(&t, NULL, bg, NULL))
		return 1;
	usleep(10000);
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p == 0) {
		for (int i = 0; i < 5; i++)
			r += child_work(i);
		exit(r == 26 ? 0 : 1);
	}
	for (int i = 0; i < 4; i++)
		r += parent_work(i);
	int st;
	if (waitpid(p, &st, 0) != p)
		return 1;
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("child %d status %d\n", (int)p, st);
	return st == 0 && r == 24 ? 0 : 1;
}

static int system_main(void)
{
	int r = 0;
	for (int i = 0; i < 3; i++)
		r += p_before(i);
	usleep(300000);
	if (system("exit 0"))
		return 1;
	for (int i = 0; i < 4; i++)
		r += parent_work(i);
	printf("system %d\n", r);
	return 0;
}

static int exec_main(const char *how)
{
	int r = 0;
	for (int i = 0; i < 3; i++)
		r += pre_exec(i);
	printf("pre %d\n", r);
	fflush(stdout);
	char *argv[] = { "proc", "after", NULL };
	if (!strcmp(how, "execv"))
		execv("/proc/self/exe", argv);
	else if (!strcmp(how, "execl"))
		execl("/proc/self/exe", "proc", "after", (char *)NULL);
	else if (!strcmp(how, "execvp"))
		execvp("/proc/self/exe", argv);
	perror("exec");
	return 1;
}

static atomic_int handled;
static void on_usr1(int sig)
{
	(void)sig;
	in_handler(sig);
	atomic_fetch_add(&handled, 1);
}

struct sender { pthread_t main; int n; };
static void *send_usr1(void *arg)
{
	struct sender *s = arg;
	for (int i = 0; i < s->n; i++) {
		pthread_kill(s->main, SIGUSR1);
		usleep(200);
	}
	atomic_store(&stop, 1);
	return NULL;
}

static int signal_main(int n)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	struct sender s = { pthread_self(), n };
	pthread_t t;
	if (pthread_create(&t, NULL, send_usr1, &s))
		return 1;
	long sum = 0, calls = 0;
	while (!atomic_load(&stop) || calls < 1000) {
		sum += work((int)calls);
		calls++;
	}
	pthread_join(t, NULL);
	usleep(100000);
	printf("handled %d calls %ld\n", atomic_load(&handled), calls);
	return 0;
}

static atomic_int spun[4];
static void *spin(void *arg)
{
	int k = (int)(intptr_t)arg;
	for (int i = 0;; i++) {
		spin_work(i);
		if (i < 2000)
			atomic_fetch_add(&spun[k], 1);
	}
	return NULL;
}

static int exit_main(void)
{
	pthread_t t;
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t, NULL, spin, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < 4; i++)
		while (atomic_load(&spun[i]) < 1000)
			usleep(1000);
	printf("exiting\n");
	exit(0);
}

static void touch(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
}

static void wait_file(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	while (access(p, F_OK))
		usleep(10000);
}

static int dl_main(const char *lib, const char *sync)
{
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*a)(int) = (int (*)(int))dlsym(h, "plug_a");
	int r = 0;
	for (int i = 0; i < 3; i++)
		r += a(i);
	touch(sync, "loaded");
	wait_file(sync, "listed");
	if (dlclose(h))
		return 1;
	for (int i = 0; i < 2; i++)
		r += local_fn(i);
	touch(sync, "closed");
	wait_file(sync, "done");
	for (int k = 0; k < 20; k++) {
		h = dlopen(lib, RTLD_NOW);
		if (!h)
			return 1;
		a = (int (*)(int))dlsym(h, "plug_a");
		r += a(k);
		if (dlclose(h))
			return 1;
	}
	r += local_fn(5);
	printf("dl %d\n", r);
	return 0;
}

/* ---- the program's own SIGTRAP handler ---- */

static atomic_int traps, trap_sig_ok;
static void on_trap_info(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	atomic_fetch_add(&traps, 1);
	atomic_fetch_add(&trap_sig_ok, sig == SIGTRAP);
}
static void on_trap(int sig)
{
	atomic_fetch_add(&traps, 1);
	atomic_fetch_add(&trap_sig_ok, sig == SIGTRAP);
}

/* For t/src/trace/early.c's handler (the program is linked -rdynamic). */
void proc_count_trap(int sig)
{
	on_trap(sig);
}

static const char *found_before = "not installed";
static void install(int with_sigaction)
{
	struct sigaction old;
	sigaction(SIGTRAP, NULL, &old);
	found_before = old.sa_handler == SIG_DFL ? "default" : "a handler";
	if (with_sigaction) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_trap_info;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTRAP, &sa, NULL);
	} else {
		signal(SIGTRAP, on_trap);
	}
}

/* "early" modes install before the library's start-up.  Linked in,
 * that is the program's DT_PREINIT_ARRAY entry, and this object's comes
 * before it (first in the link): it is given the environment, which the
 * C library has not set up yet.  A preloaded library runs its start-up
 * before any other object's initialiser, so there the test preloads
 * t/src/trace/early.c's library, an object initialised first itself. */
static void early_install(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	for (char **e = envp; e && *e; e++)
		if (!strncmp(*e, "PROC_TRAP_EARLY=", 16) && (*e)[16])
			install(!strcmp(*e + 16, "sigaction"));
}
__attribute__((section(".preinit_array"), used)) static void (*early_entry)(int, char **, char **) = early_install;

F int toggled(int x) { return x + 10; }

static int resethand_main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_trap;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	printf("first %d\n", atomic_load(&traps));
	raise(SIGTRAP);
	printf("survived the second\n");
	return 0;
}

static int trap_main(const char *how)
{
	if (!strcmp(how, "sigaction") || !strcmp(how, "signal"))
		install(!strcmp(how, "sigaction"));
	else if (!strcmp(how, "early") && dlsym(RTLD_DEFAULT, "early_found"))
		found_before = *(const char **)dlsym(RTLD_DEFAULT, "early_found");  /* early.c's */
	else if (!strcmp(how, "ign"))
		signal(SIGTRAP, SIG_IGN);
	if (!strcmp(how, "dfl-int3")) {
		toggled(1);
		__asm__ volatile("int3");
		printf("survived int3\n");
		return 0;
	}
	if (!strcmp(how, "dfl-raise") || !strcmp(how, "ign")) {
		raise(SIGTRAP);
		printf("survived raise\n");
		return 0;
	}
	raise(SIGTRAP);
	__asm__ volatile("int3");
	int r = 0;
	for (int i = 0; i < 50; i++) {
		if (mcount_trace_enable && mcount_trace_enable("toggled") < 0)
			return 1;
		r += toggled(i);
		if (mcount_trace_disable && mcount_trace_disable("toggled") < 0)
			return 1;
	}
	raise(SIGTRAP);
	__asm__ volatile("int3");
	printf("traps %d right-signal %d found %s sum %d\n", atomic_load(&traps), atomic_load(&trap_sig_ok),
	       found_before, r);
	return 0;
}

/* ---- table entries that are not calls to the hook ---- */

extern int bad_fn(void), bad_call_fn(void), bad_nop_fn(void), bad_framed_fn(void);
extern unsigned char bad_spot[], bad_call_spot[], bad_nop_spot[], bad_framed_spot[];

static void show_bytes(const char *when)
{
	printf("%s", when);
	for (int i = 0; i < 6; i++)
		printf(" %02x", bad_spot[i]);
	printf(" |");
	for (int i = 0; i < 6; i++)
		printf(" %02x", bad_call_spot[i]);
	printf(" |");
	for (int i = 0; i < 6; i++)
		printf(" %02x", bad_nop_spot[i]);
	printf(" |");
	for (int i = 0; i < 6; i++)
		printf(" %02x", bad_framed_spot[i]);
	printf(" | local_fn");
	for (int i = 0; i < 5; i++)
		printf(" %02x", ((const unsigned char *)local_fn)[i]);
	printf("\n");
}

static int bad_main(void)
{
	show_bytes("before");
	/* A weak reference is 0 in a program linked -no-pie: ask ld.so. */
	int (*enable)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_enable");
	int n = enable ? enable("*") : -2;
	int r = bad_fn() + bad_call_fn() + bad_nop_fn() + bad_framed_fn() + local_fn(0);
	show_bytes("after");
	printf("enabled %d result %d\n", n, r);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "fork"))
		return fork_main();
	if (argc >= 2 && !strcmp(argv[1], "system"))
		return system_main();
	if (argc >= 2 && !strcmp(argv[1], "resethand"))
		return resethand_main();
	if (argc >= 3 && !strcmp(argv[1], "exec"))
		return exec_main(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "after")) {
		int r = 0;
		for (int i = 0; i < 3; i++)
			r += post_exec(i);
		printf("post %d\n", r);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "signal"))
		return signal_main(atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "exit"))
		return exit_main();
	if (argc >= 4 && !strcmp(argv[1], "dl"))
		return dl_main(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "trap"))
		return trap_main(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "bad"))
		return bad_main();
	fprintf(stderr, "proc: unknown mode\n");
	return 2;
}
