/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sigmask.c - blocks SIGUSR1 with sigprocmask and reads the mask back
 * with pthread_sigmask, printing what each returned (t/36: linked with
 * libmcount-trace.a, whose wrappers of these make the system call with
 * the kernel's size of a set, 16 bytes on mips, 8 elsewhere). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

int main(void)
{
	sigset_t s, o;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	int r = sigprocmask(SIG_BLOCK, &s, NULL);
	int r2 = pthread_sigmask(SIG_SETMASK, NULL, &o);
	printf("sigprocmask %d pthread_sigmask %d usr1 blocked %d\n", r, r2, sigismember(&o, SIGUSR1));
	return 0;
}
