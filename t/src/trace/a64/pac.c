/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pac.c - does this machine sign return addresses?  Built with
 * -mbranch-protection=pac-ret (the aarch64 guest): a non-leaf function's prologue
 * signs x30 (paciasp) before its frame record saves it, which is a NOP
 * on a CPU without pointer authentication.  Prints "pac on" when the
 * record's x30 differs from itself stripped of a signature (xpaclri,
 * also a NOP without it), else "pac off".  A signature is all zero bits
 * for about 1 address in 128 (7 bits with top-byte-ignore), so frames
 * at 16 stack depths are asked: one signed is enough.
 */
#include <stdint.h>
#include <stdio.h>

#define F __attribute__((noipa))

F void sink(void) { }

F int probe(void)
{
	const uintptr_t *record = __builtin_frame_address(0);
	uintptr_t saved = record[1], stripped;
	__asm__("mov x30, %1\n\thint 7\n\tmov %0, x30" : "=r"(stripped) : "r"(saved) : "x30");
	sink();
	return saved != stripped;
}

/* probe() at depth n (each level a frame of its own). */
F int probe_at(int n)
{
	volatile char pad[32];
	pad[0] = (char)n;
	return n ? probe_at(n - 1) + pad[0] - (char)n : probe();
}

int main(void)
{
	int on = 0;
	for (int n = 0; n < 16; n++)
		on |= probe_at(n);
	printf("pac %s\n", on ? "on" : "off");
	return 0;
}
