/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owncfi.c - an unwinder through a function's own trampoline
 * (rt/hook-x86_64.S: mt_own_tramp), for t/106 to drive under gdb.
 *
 * `owncfi FLAGS [odd]`: hot() (odd()) hooked by a hook created with
 * FLAGS (0, or 1: MCOUNT_HOOK_GENERAL_REGS), its entry callback calling
 * mark(), where gdb stops.  caller(i) (caller_odd(i)) keeps
 * 0x1234567890 + i in %rbx across its call, so that %rbx as the unwinder finds it in caller's
 * frame says whether the trampoline's unwind information has the slot
 * it saved %rbx in (a wrong slot holds an earlier call's value, or
 * none).  hot() is noipa: GCC calls it with the stack aligned as the
 * ABI has it.  odd() is static: GCC, which sees that it needs no
 * alignment, calls it with the stack 8 bytes off (the trampoline's
 * other copy of its frame).  Either way the callback must find the
 * stack aligned. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcount-hooks.h"

#define NI __attribute__((no_instrument_function))

__attribute__((noipa)) int hot(int x)
{
	return x + 1;
}

__attribute__((noinline)) static int odd(int x)
{
	return x + 1;
}

NI __attribute__((noinline)) void mark(void)
{
	__asm__ volatile("");
}

static unsigned long misaligned;

NI __attribute__((target("general-regs-only"))) static void on_entry(unsigned long ip, unsigned long parent,
									void *data, struct mcount_regs *r)
{
	(void)ip;
	(void)parent;
	(void)r;
	++*(unsigned long *)data;
	/* (the stack as the ABI has it at a callback's entry: its frame
	 * pointer, pushed there, 16-aligned) */
	if ((unsigned long)__builtin_frame_address(0) & 15)
		misaligned++;
	mark();
}

/* (one callee each: a call of hot() would make GCC align caller_odd's
 * stack too) */
#define CALLER(name, callee)                                                  \
	NI __attribute__((noinline)) int name(int i)                          \
	{                                                                     \
		register long keep __asm__("rbx") = 0x1234567890L + i;        \
		__asm__ volatile("" : "+r"(keep));                            \
		int s = callee(i);                                            \
		__asm__ volatile("" : "+r"(keep));                            \
		return s + (keep == 0x1234567890L + i ? 0 : 1000);            \
	}
CALLER(caller, hot)
CALLER(caller_odd, odd)

NI int main(int argc, char **argv)
{
	static unsigned long hits;
	int (*call)(int) = argc > 2 && !strcmp(argv[2], "odd") ? caller_odd : caller;
	struct mcount_hook *h = mcount_hook_create(on_entry, NULL, &hits, argc > 1 ? (unsigned)atoi(argv[1]) : 0);
	if (!h || mcount_hook_filter(h, "hot,odd") || mcount_hook_register(h)) {
		perror("owncfi");
		return 1;
	}
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += call(i);
	bool good = s == 15 && !misaligned;
	printf("%s sum=%d hits=%lu misaligned=%lu\n", good ? "ok" : "FAIL", s, hits, misaligned);
	return !good;
}
