/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfe_dl.c - dlopen()s a library built with -fpatchable-function-entry
 * (pfe_lib.c) while a second thread runs (t/113-trace-patchable.t):
 * where its NOP runs would have to become one instruction, the tracer
 * must leave them alone.  Usage: pfe_dl LIBRARY; prints one result line. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (argc != 2 || pthread_create(&t, NULL, spin, NULL))
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*mid)(int) = h ? (int (*)(int))dlsym(h, "lib_mid") : NULL;
	if (!mid) {
		fprintf(stderr, "pfe_dl: %s\n", dlerror());
		return 1;
	}
	int r = mid(3) + mid(4);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("result %d\n", r);
	return 0;
}
