/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cyg_graph.c - the -finstrument-functions oracle of t/78 and the aarch64 guest,
 * compiled without -pg and without -finstrument-functions.  Each entry
 * and each exit GCC's instrumentation reports is written to $CYG_LOG as
 * "> FN CALL_SITE TID" or "< FN CALL_SITE TID" (run-time addresses, one
 * write a line), after a first line "main ADDR" that gives the load bias.
 * GCC calls the exit hook when a function returns and, in code built
 * with exceptions, when an exception unwinds it; not when longjmp skips
 * it.  Nothing else: a log of the program's own calls, made by the
 * compiler, that the tracer has no part in.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NI __attribute__((no_instrument_function))

extern int main(int, char **);
/* A function's code: on ppc64's ELFv1 a function pointer (main, and
 * the instrumentation's fn) is the address of its descriptor in .opd,
 * whose first word is the code's address, which the call sites and the
 * tracer know it by. */
#if defined(__powerpc64__) && (!defined(_CALL_ELF) || _CALL_ELF == 1)
#define CODE(p) (*(void *const *)(p))
#else
#define CODE(p) (p)
#endif
static atomic_int fd = -1;

NI static void put(char dir, void *fn, void *site)
{
	char b[96];
	int n;
	if (atomic_load(&fd) < 0) {
		const char *p = getenv("CYG_LOG");
		int f = p ? open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
		int none = -1;
		if (f < 0)
			return;
		if (!atomic_compare_exchange_strong(&fd, &none, f)) {
			close(f);
		} else {
			n = snprintf(b, sizeof b, "main %p\n", CODE((void *)main));
			if (write(f, b, (size_t)n) != n)
				abort();
		}
	}
	n = snprintf(b, sizeof b, "%c %p %p %ld\n", dir, CODE(fn), site, (long)syscall(SYS_gettid));
	/* not write(): a cancellation point, where a thread being cancelled
	 * would end inside the log */
	if (syscall(SYS_write, atomic_load(&fd), b, (size_t)n) != n)
		abort();
}

NI void __cyg_profile_func_enter(void *fn, void *site) { put('>', fn, site); }
NI void __cyg_profile_func_exit(void *fn, void *site) { put('<', fn, site); }
