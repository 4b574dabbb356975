/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cygcount.c - GCC's -finstrument-functions counting each function's
 * calls, the oracle of t/109-trace-lua-hooks.t's profiler counts: linked
 * into a program built with -finstrument-functions (this file itself
 * without), it counts the entries and the exits of each function by its
 * address, and when the program ends writes to $CYG_COUNT a first line
 * "main ADDR" (main's run-time address: the load bias) and then a line
 * "FN ENTERS EXITS" for each function entered (run-time addresses);
 * nothing where CYG_COUNT is not set.
 * One thread only (the program it counts has one).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NI __attribute__((no_instrument_function))
#define SLOTS 16384u

extern int main(int, char **);

static struct slot {
	uintptr_t fn;
	unsigned long enters, exits;
} slots[SLOTS];

NI static struct slot *slot_of(void *fn)
{
	uintptr_t a = (uintptr_t)fn;
	unsigned i = (unsigned)((a * UINT64_C(0x9e3779b97f4a7c15)) >> 40) % SLOTS;
	for (unsigned n = 0; n < SLOTS; n++, i = (i + 1) % SLOTS) {
		if (slots[i].fn == a)
			return &slots[i];
		if (!slots[i].fn) {
			slots[i].fn = a;
			return &slots[i];
		}
	}
	abort();    /* more functions than slots */
}

NI void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	slot_of(fn)->enters++;
}

NI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	slot_of(fn)->exits++;
}

NI static void put(int fd, const char *b, int n)
{
	if (n < 0 || write(fd, b, (size_t)n) != n)
		abort();
}

NI __attribute__((destructor)) static void write_counts(void)
{
	const char *p = getenv("CYG_COUNT");
	int fd;
	char b[96];
	if (!p)
		return;
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		abort();
	put(fd, b, snprintf(b, sizeof b, "main %p\n", (void *)main));
	for (unsigned i = 0; i < SLOTS; i++)
		if (slots[i].fn)
			put(fd, b, snprintf(b, sizeof b, "%p %lu %lu\n", (void *)slots[i].fn, slots[i].enters,
					    slots[i].exits));
	if (close(fd))
		abort();
}
