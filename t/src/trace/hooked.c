/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooked.c - a program that hooks a function of its own and keeps the
 * hook until it is told (t/112: detach refused while code in the
 * process has a hook registered).  Linked with libmcount-trace.a.
 *
 * It registers an entry hook on tick(), calls tick() 100 times and
 * says "registered N" (N: the calls the hook saw); then, for each line
 * on standard input: "unreg": the hook unregistered, "unregistered";
 * "ticks": 100 calls more, "ticks N" (the hook's count); "quit": exit 0. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "mcount-hooks.h"

static atomic_long seen;

__attribute__((noinline)) void tick(int i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
}

static void on_entry(unsigned long ip, unsigned long parent_ip, void *data, struct mcount_regs *regs)
{
	(void)ip;
	(void)parent_ip;
	(void)data;
	(void)regs;
	atomic_fetch_add(&seen, 1);
}

static void ticks(void)
{
	for (int i = 0; i < 100; i++)
		tick(i);
}

int main(void)
{
	struct mcount_hook *h = mcount_hook_create(on_entry, NULL, NULL, 0);
	if (!h || mcount_hook_filter(h, "tick") || mcount_hook_register(h)) {
		perror("hooked: mcount_hook");
		return 1;
	}
	ticks();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("registered %ld\n", atomic_load(&seen));
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		if (!strncmp(line, "unreg", 5)) {
			if (mcount_hook_unregister(h)) {
				perror("hooked: mcount_hook_unregister");
				return 1;
			}
			printf("unregistered\n");
		} else if (!strncmp(line, "ticks", 5)) {
			ticks();
			printf("ticks %ld\n", atomic_load(&seen));
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return 0;
}
