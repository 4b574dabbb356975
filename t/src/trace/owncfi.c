/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owncfi.c - an unwinder through a function's own trampoline
 * (rt/hook-x86_64.S: mt_own_tramp), for t/106 to drive under gdb.
 *
 * `owncfi FLAGS`: hot() hooked by a hook created with FLAGS (0, or 1:
 * MCOUNT_HOOK_GENERAL_REGS), its entry callback calling mark(), where
 * gdb stops.  caller(i) keeps 0x1234567890 + i in %rbx across its call
 * of hot(), so that %rbx as the unwinder finds it in caller's frame says
 * whether the trampoline's unwind information has the slot it saved
 * %rbx in (a wrong slot holds an earlier call's value, or none).  hot()
 * is noipa: GCC calls it with the stack aligned, so that the
 * trampoline's own path runs (not its fallback into C). */
#include <stdio.h>
#include <stdlib.h>

#include "mcount-hooks.h"

#define NI __attribute__((no_instrument_function))

__attribute__((noipa)) int hot(int x)
{
	return x + 1;
}

NI __attribute__((noinline)) void mark(void)
{
	__asm__ volatile("");
}

NI __attribute__((target("general-regs-only"))) static void on_entry(unsigned long ip, unsigned long parent,
									void *data, struct mcount_regs *r)
{
	(void)ip;
	(void)parent;
	(void)r;
	++*(unsigned long *)data;
	mark();
}

NI __attribute__((noinline)) int caller(int i)
{
	register long keep __asm__("rbx") = 0x1234567890L + i;
	__asm__ volatile("" : "+r"(keep));
	int s = hot(i);
	__asm__ volatile("" : "+r"(keep));
	return s + (keep == 0x1234567890L + i ? 0 : 1000);
}

NI int main(int argc, char **argv)
{
	static unsigned long hits;
	struct mcount_hook *h = mcount_hook_create(on_entry, NULL, &hits, argc > 1 ? (unsigned)atoi(argv[1]) : 0);
	if (!h || mcount_hook_filter(h, "hot") || mcount_hook_register(h)) {
		perror("owncfi");
		return 1;
	}
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += caller(i);
	printf("%s sum=%d hits=%lu\n", s == 15 ? "ok" : "FAIL", s, hits);
	return s != 15;
}
