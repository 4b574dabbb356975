/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hazards.c - what the function_graph tracer must survive (t/78): traced
 * frames left by longjmp and by siglongjmp out of a signal handler, a
 * fork (the child returns through the frames hijacked in the parent),
 * backtrace() from a traced frame, pthread_exit() from traced frames and
 * a thread cancelled in traced frames (with its cleanup handler).  Each
 * prints what it computed: the output must be that of a plain build.
 * noipa: each function is a real call, entered as the source says.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define F __attribute__((noipa))

static jmp_buf jb;
static sigjmp_buf sjb;

F int leaf(int x) { return x * 3 + 1; }
F int mid(int x) { return leaf(x) + leaf(x + 1); }

F void deep(int n)
{
	if (n == 0)
		longjmp(jb, 1);
	leaf(n);
	deep(n - 1);
	leaf(n);
}

F int jumper(void)
{
	if (setjmp(jb) == 0) {
		deep(5);
		return -1;
	}
	return mid(7);
}

F static void on_usr1(int s)
{
	(void)s;
	leaf(11);
	siglongjmp(sjb, 1);
}

F void spin(int n)
{
	if (n == 0)
		raise(SIGUSR1);
	else
		spin(n - 1);
	leaf(n);
}

F int sigjumper(void)
{
	if (sigsetjmp(sjb, 1) == 0) {
		spin(4);
		return -1;
	}
	return mid(9);
}

F int forker(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0)
		return mid(3);          /* returns through frames hijacked before the fork */
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) + mid(4) : -1;
}

F int bt(void)
{
	void *a[64];
	return backtrace(a, 64) >= 2;
}

F void exit_deep(int n)
{
	if (n == 0)
		pthread_exit((void *)42);
	exit_deep(n - 1);
	leaf(n);
}

F static void *exiter(void *arg)
{
	(void)arg;
	exit_deep(3);
	return NULL;
}

static int cleaned;
F static void cleanup(void *arg) { cleaned += leaf(*(int *)arg); }

F void wait_deep(int n, int fd)
{
	if (n == 0) {
		char c;
		for (;;)
			if (read(fd, &c, 1) < 0)     /* a cancellation point */
				break;
	} else {
		wait_deep(n - 1, fd);
	}
	leaf(n);
}

F static void *waiter(void *arg)
{
	int v = 5;
	pthread_cleanup_push(cleanup, &v);
	wait_deep(3, *(int *)arg);
	pthread_cleanup_pop(0);
	return NULL;
}

F static void *tester(void *arg)
{
	(void)arg;
	int v = 6;
	pthread_cleanup_push(cleanup, &v);
	for (;;) {
		mid(1);
		pthread_testcancel();
	}
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argv;
	signal(SIGUSR1, on_usr1);
	printf("jumper %d\n", jumper());
	printf("sigjumper %d\n", sigjumper());
	int f = forker();
	printf("forker %d\n", f);
	printf("backtrace %d\n", bt());

	pthread_t t;
	void *ret;
	pthread_create(&t, NULL, exiter, NULL);
	pthread_join(t, &ret);
	printf("pthread_exit %ld\n", (long)ret);

	int p[2];
	if (pipe(p))
		return 1;
	pthread_create(&t, NULL, waiter, &p[0]);
	usleep(argc > 1 ? 1000 : 50000);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("cancel read %d %d\n", ret == PTHREAD_CANCELED, cleaned);

	pthread_create(&t, NULL, tester, NULL);
	usleep(20000);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("cancel testcancel %d %d\n", ret == PTHREAD_CANCELED, cleaned);
	printf("after %d\n", mid(2));
	return 0;
}
