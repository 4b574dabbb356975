/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pac.c - does this machine sign return addresses?  Built with
 * -mbranch-protection=pac-ret (t/79): a non-leaf function's prologue
 * signs x30 (paciasp) before its frame record saves it, which is a NOP
 * on a CPU without pointer authentication.  Prints "pac on" when the
 * record's x30 differs from itself stripped of a signature (xpaclri,
 * also a NOP without it), else "pac off".
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

int main(void)
{
	printf("pac %s\n", probe() ? "on" : "off");
	return 0;
}
