/* recorded.c T N HOW - T threads (T 0: main alone) each call mid() N
 * times (mid calls leaf), count their own calls and say them with
 * write(2) ("calls TID N" a line, TID the thread's), then the process
 * ends as HOW says: exit, segv (a null store), abort, kill (SIGKILL to
 * itself), _exit, or fork (a
 * child calls N more times in its main thread and exits; the parent
 * waits and exits).  For mcount-trace record's crash survival: every
 * call counted before the end must be in the recording. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long calls;
static volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) * 2;
}

static void say(long n)
{
	char buf[64];
	int k = snprintf(buf, sizeof buf, "calls %ld %ld\n", (long)syscall(SYS_gettid), n);
	if (write(1, buf, (size_t)k) != k)
		abort();
}

static void *worker(void *arg)
{
	(void)arg;
	int s = 0;
	long i;
	for (i = 0; i < calls; i++)
		s += mid((int)i);
	sink = s;
	say(i);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int nt = atoi(argv[1]);
	calls = atol(argv[2]);
	const char *how = argv[3];
	if (!strcmp(how, "fork")) {
		worker(NULL);
		pid_t c = fork();
		if (c == 0) {
			worker(NULL);
			return 0;
		}
		int st;
		waitpid(c, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	pthread_t t[64];
	if (nt > 64)
		return 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	if (!nt)
		worker(NULL);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	if (!strcmp(how, "segv")) {
		int *volatile null = NULL;
		*null = sink;
	}
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "kill"))
		kill(getpid(), SIGKILL);
	if (!strcmp(how, "_exit"))
		_exit(0);
	return 0;
}
