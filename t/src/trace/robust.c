/* SPDX-License-Identifier: GPL-2.0-or-later */
/* robust.c - t/99-trace-robust.t: a program that a client of the control
 * socket, or the program's own doings, must not be able to hurt.
 * Compiled with -pg -mfentry through mcount-cc; run with
 * libmcount-trace.so preloaded or linked with libmcount-trace.a.  Each
 * mode prints a line when it is ready and waits for files in DIR.
 *
 *   robust show DIR    work() x200000 (events kept for a show), "ready";
 *                      at DIR/go: fork() (the child _exits), waitpid,
 *                      dlopen("libm.so.6"), "forked"; at DIR/end: exit 0
 *   robust rate DIR    tick() x1000, a 10 ms sleep, and again until
 *                      DIR/stop; then "calls N"
 *   robust guard DIR   the page of guarded() and guarded_too() made
 *                      PROT_NONE, "ready"; at DIR/go: made readable and
 *                      executable again, guarded() x3, guarded_too(),
 *                      guard_near() (on the page before), "called", exit 0
 *   robust rawfork DIR before() x1000, then syscall(SYS_fork): the child
 *                      calls child_fn() x5 and exit(0) (its atexit
 *                      handlers and destructors run); the parent waits
 *                      for it, "ready"; at DIR/go: after() x7, exit 0
 *   robust busy DIR    three threads call spin() in a loop, with a 1 ms
 *                      sleep every 10 calls, until DIR/stop; "calls N"
 *   robust closeall DIR  "ready"; at DIR/go: closes every descriptor
 *                      above 2 (the library's among them), opens
 *                      DIR/mine 16 times (the numbers just freed), waits
 *                      7 s, writes "kept" through each; "kept N"
 *   robust dtor DIR LIB N  a thread calls spin() x1000 and sleeps 1 ms,
 *                      over and over; meanwhile LIB (dtor_lib.c) is
 *                      opened, lib_work(2000) called and LIB closed
 *                      again (its destructor writes the trace through
 *                      the C API), N times; "closed N"
 *   robust ctor DIR LIB N  a thread opens and closes libm.so.6 over and
 *                      over; meanwhile LIB (enable_lib.c, whose
 *                      constructor enables enabled_fn) is opened,
 *                      enabled_fn() called once and LIB closed, N times;
 *                      "opened N"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(long i) { sink += i; __asm__ volatile(""); }
__attribute__((noinline)) void tick(long i) { sink += i; __asm__ volatile(""); }
__attribute__((noinline)) void before(long i) { sink += i; __asm__ volatile(""); }
__attribute__((noinline)) void child_fn(long i) { sink += i; __asm__ volatile(""); }
__attribute__((noinline)) void after(long i) { sink += i; __asm__ volatile(""); }
__attribute__((noinline)) void spin(long i) { sink += i; __asm__ volatile(""); }

/* guarded() and guarded_too() alone on their page: the next function
 * starts a page further; guard_near() ends the page before, its site
 * less than 256 bytes from guarded()'s (the library reads sites that
 * near as one piece of memory), after a filler that takes the rest */
__attribute__((noinline, aligned(4096), section(".text.robust_guard"))) void guard_filler(long i)
{
	sink += i;
	__asm__ volatile("jmp 1f\n\t.skip 3960, 0xcc\n1:");
}
__attribute__((noinline, section(".text.robust_guard"))) void guard_near(long i)
{
	sink += i;
	__asm__ volatile("");
}
__attribute__((noinline, aligned(4096), section(".text.robust_guard"))) void guarded(long i)
{
	sink += i;
	__asm__ volatile("");
}
__attribute__((noinline, section(".text.robust_guard"))) void guarded_too(long i)
{
	sink += i;
	__asm__ volatile("");
}
__attribute__((noinline, aligned(4096), section(".text.robust_guard"))) void guard_end(long i)
{
	sink -= i;
	__asm__ volatile("");
}

static char *dir;

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
}

/* DIR/name exists, or DIR itself is gone (the test that made it has
 * ended: the program must not outlive it). */
static int there(const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return access(p, F_OK) == 0 || access(dir, F_OK) != 0;
}

/* Wait (at most 120 s) for DIR/name. */
static void wait_file(const char *name)
{
	for (int i = 0; i < 12000 && !there(name); i++)
		nap_ms(10);
}

static void say(const char *s)
{
	printf("%s\n", s);
	fflush(stdout);
}

static atomic_long busy_calls;

static void *busy_thread(void *arg)
{
	(void)arg;
	long n = 0;
	while (!there("stop")) {
		for (int i = 0; i < 10; i++)
			spin(i);
		n += 10;
		nap_ms(1);
	}
	atomic_fetch_add(&busy_calls, n);
	return NULL;
}

static atomic_bool churn_done;

static void *reopen_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&churn_done)) {
		void *h = dlopen("libm.so.6", RTLD_NOW);
		if (h)
			dlclose(h);
	}
	return NULL;
}

static void *churn_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&churn_done)) {
		for (int i = 0; i < 1000; i++)
			spin(i);
		nap_ms(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: robust MODE DIR\n");
		return 2;
	}
	dir = argv[2];
	if (!strcmp(argv[1], "show")) {
		for (long i = 0; i < 200000; i++)
			work(i);
		say("ready");
		wait_file("go");
		pid_t c = fork();
		if (c == 0)
			_exit(0);
		int st = -1;
		if (c < 0 || waitpid(c, &st, 0) != c || st != 0)
			say("fork failed");
		void *h = dlopen("libm.so.6", RTLD_NOW);
		if (!h)
			say("dlopen failed");
		say("forked");
		wait_file("end");
		return 0;
	}
	if (!strcmp(argv[1], "rate")) {
		long n = 0;
		while (!there("stop")) {
			for (int i = 0; i < 1000; i++)
				tick(i);
			n += 1000;
			nap_ms(10);
		}
		printf("calls %ld\n", n);
		return 0;
	}
	if (!strcmp(argv[1], "busy")) {
		pthread_t t[3];
		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, busy_thread, NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		printf("calls %ld\n", atomic_load(&busy_calls));
		return 0;
	}
	if (!strcmp(argv[1], "guard")) {
		uintptr_t page = (uintptr_t)guarded & ~(uintptr_t)4095;
		if (mprotect((void *)page, 4096, PROT_NONE)) {
			perror("mprotect");
			return 1;
		}
		say("ready");
		wait_file("go");
		if (mprotect((void *)page, 4096, PROT_READ | PROT_EXEC)) {
			perror("mprotect");
			return 1;
		}
		for (int i = 0; i < 3; i++)
			guarded(i);
		guarded_too(1);
		guard_near(2);
		guard_filler(3);
		guard_end(1);
		say("called");
		return 0;
	}
	if (!strcmp(argv[1], "rawfork")) {
		for (long i = 0; i < 1000; i++)
			before(i);
		long c = syscall(SYS_fork);
		if (c == 0) {
			for (long i = 0; i < 5; i++)
				child_fn(i);
			exit(0);
		}
		int st = -1;
		if (c < 0 || waitpid((pid_t)c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
			printf("child status %d\n", st);
		say("ready");
		wait_file("go");
		for (long i = 0; i < 7; i++)
			after(i);
		return 0;
	}
	if (!strcmp(argv[1], "closeall")) {
		say("ready");
		wait_file("go");
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		char p[4096];
		snprintf(p, sizeof p, "%s/mine", dir);
		int fds[16], kept = 0;
		for (int i = 0; i < 16; i++)
			fds[i] = open(p, O_WRONLY | O_CREAT | O_APPEND, 0600);
		nap_ms(7000);
		for (int i = 0; i < 16; i++)
			kept += fds[i] >= 0 && write(fds[i], "kept\n", 5) == 5;
		printf("kept %d\n", kept);
		return 0;
	}
	if (!strcmp(argv[1], "dtor") && argc == 5) {
		long n = atol(argv[4]), closed = 0;
		pthread_t t;
		if (pthread_create(&t, NULL, churn_thread, NULL))
			return 1;
		for (long i = 0; i < n; i++) {
			void *h = dlopen(argv[3], RTLD_NOW);
			long (*work_fn)(long) = h ? (long (*)(long))dlsym(h, "lib_work") : NULL;
			if (!work_fn) {
				fprintf(stderr, "robust: %s\n", dlerror());
				return 1;
			}
			work_fn(2000);
			closed += !dlclose(h);
		}
		atomic_store(&churn_done, true);
		pthread_join(t, NULL);
		printf("closed %ld\n", closed);
		return 0;
	}
	if (!strcmp(argv[1], "ctor") && argc == 5) {
		long n = atol(argv[4]), opened = 0;
		pthread_t t;
		if (pthread_create(&t, NULL, reopen_thread, NULL))
			return 1;
		for (long i = 0; i < n; i++) {
			void *h = dlopen(argv[3], RTLD_NOW);
			void (*fn)(long) = h ? (void (*)(long))dlsym(h, "enabled_fn") : NULL;
			if (!fn) {
				fprintf(stderr, "robust: %s\n", dlerror());
				return 1;
			}
			fn(i);
			opened += !dlclose(h);
		}
		atomic_store(&churn_done, true);
		pthread_join(t, NULL);
		printf("opened %ld\n", opened);
		return 0;
	}
	fprintf(stderr, "robust: unknown mode %s\n", argv[1]);
	return 2;
}
