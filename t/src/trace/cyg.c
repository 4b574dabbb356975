/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cyg.c - the -finstrument-functions oracle of t/71-trace-oracle.t,
 * compiled without -pg and without -finstrument-functions.  Each
 * function entered is written to $CYG_LOG as "FN CALL_SITE" (run-time
 * addresses, one write a line), after a first line "main ADDR" that
 * gives the load bias.  CALL_SITE is the return address in the caller,
 * the tracer's parent address.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
static int fd = -1;

NI void __cyg_profile_func_enter(void *fn, void *site)
{
	char b[64];
	int n;
	if (fd < 0) {
		const char *p = getenv("CYG_LOG");
		if (!p || (fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) < 0)
			return;
		n = snprintf(b, sizeof b, "main %p\n", CODE((void *)main));
		if (write(fd, b, (size_t)n) != n)
			abort();
	}
	n = snprintf(b, sizeof b, "%p %p\n", CODE(fn), site);
	if (write(fd, b, (size_t)n) != n)
		abort();
}

NI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
