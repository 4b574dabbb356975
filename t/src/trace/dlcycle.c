/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlcycle.c - a program that opens and closes a library again and again
 * while it is traced (t/116): four threads call the program's functions
 * (gen_call(), in a generated file of many, each with its site) all the
 * time, and the main thread, CYCLES times: dlopen(LIB), its functions
 * traced (plug_*) and plug_a() called, dlclose(), and a switch of the
 * tracer's filter over the program's functions, through the C API
 * (looked up at run time: the library is preloaded or linked in), whose
 * passes write the sites while the threads run.  After CYCLES / 4
 * cycles and at the end it reads in its own /proc/self files how many
 * mappings name LIB and its anonymous memory, and prints:
 *   maps of LIB: N
 *   anon growth: K kB over M cycles
 *   plug_a: S                 (the sum of what plug_a returned)
 * usage: dlcycle LIB CYCLES */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern long gen_call(long i);

static atomic_int stop;

static void *worker(void *arg)
{
	volatile long s = 0;
	for (long i = 0; !atomic_load(&stop); i++)
		s += gen_call(i);
	return arg;
}

static long anon_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char l[256];
	long kb = -1;
	while (f && fgets(l, sizeof l, f))
		if (!strncmp(l, "RssAnon:", 8))
			kb = atol(l + 8);
	if (f)
		fclose(f);
	return kb;
}

static int maps_of(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[4096];
	int n = 0;
	size_t len = strlen(path);
	while (f && fgets(l, sizeof l, f)) {
		size_t k = strlen(l);
		if (k > len && l[k - 1] == '\n' && !strncmp(l + k - 1 - len, path, len))
			n++;
	}
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dlcycle LIB CYCLES\n");
		return 2;
	}
	const char *lib = argv[1];
	int cycles = atoi(argv[2]);
	int (*enable)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_enable");
	int (*disable)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "mcount_trace_disable");
	if (!enable || !disable) {
		fprintf(stderr, "dlcycle: no mcount_trace_enable in the process\n");
		return 2;
	}
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 3;
	static const char *const globs[] = { "gen_1*", "gen_2*", "gen_3*", "gen_*5" };
	long sum = 0, anon0 = 0;
	for (int i = 0; i < cycles; i++) {
		if (i == cycles / 4)
			anon0 = anon_kb();
		void *h = dlopen(lib, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlcycle: %s\n", dlerror());
			return 3;
		}
		int (*plug_a)(int) = (int (*)(int))dlsym(h, "plug_a");
		if (!plug_a || enable("plug_*") < 0) {
			fprintf(stderr, "dlcycle: plug_a: not found, or not traced\n");
			return 3;
		}
		sum += plug_a(i);
		dlclose(h);
		if (enable(globs[i % 4]) < 0 || disable(globs[(i + 2) % 4]) < 0) {
			fprintf(stderr, "dlcycle: the filter could not be switched\n");
			return 3;
		}
	}
	long anon1 = anon_kb();
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("maps of LIB: %d\n", maps_of(lib));
	printf("anon growth: %ld kB over %d cycles\n", anon1 - anon0, cycles - cycles / 4);
	printf("plug_a: %ld\n", sum);
	return 0;
}
