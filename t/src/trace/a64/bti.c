/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bti.c - function_graph's returns into code guarded by Branch Target
 * Identification (the aarch64 guest).  The library part (the default) is built with
 * -pg -mbranch-protection=bti into a shared library with no start files,
 * so that every input is marked for BTI and, on a CPU with BTI, the
 * dynamic linker maps its text guarded: there an indirect jump (br) to
 * an instruction that is no landing pad is an illegal instruction
 * (SIGILL), and a return (ret) may go anywhere.  The hijacked returns of
 * its functions go back into it from the trampoline.  With -DBTI_MAIN,
 * the program (not guarded): "bti PROBE" makes such a jump in the
 * library (it prints "bti off" where it lands), "bti run N" prints what
 * the traced functions compute, and where bleaf is (the library's load
 * bias, for naming the trace's addresses with nm).  bti_probe and
 * bti_where are not instrumented (no_instrument_function also leaves out
 * -pg's call).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F __attribute__((noipa))

#define NI __attribute__((no_instrument_function))

int bti_probe(void);
int bti_run(int n);
uintptr_t bti_where(void);

#ifndef BTI_MAIN
NI int bti_probe(void)
{
	__asm__ volatile("adr	x16, 1f\n\t"
			 "br	x16\n"
			 "1:\tnop" : : : "x16");
	return 1;
}

F int bleaf(int x) { return x * 5 + 2; }
F int bmid(int x) { return bleaf(x) + bleaf(x + 1); }

F int bti_run(int n)
{
	int r = 0;
	for (int i = 0; i < n; i++)
		r += bmid(i);
	return r;
}

/* bleaf's address in this object (not its PLT entry in the program's) */
NI uintptr_t bti_where(void) { return (uintptr_t)&bleaf; }
#else
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "probe") && bti_probe())
		puts("bti off");
	else if (argc > 2 && !strcmp(argv[1], "run"))
		printf("result %d\nbleaf %#lx\n", bti_run(atoi(argv[2])), (unsigned long)bti_where());
	return 0;
}
#endif
