/* SPDX-License-Identifier: GPL-2.0-or-later */
/* _mcount for the aarch64 runtime oracle: GCC calls it with `mov x0, x30;
 * bl _mcount`.  Hand our own return address (the bl + 4) to mcount_check,
 * keeping the argument registers. */
	.text
	.globl _mcount
	.type _mcount, %function
_mcount:
	stp x29, x30, [sp, -96]!
	mov x29, sp
	stp x0, x1, [sp, 16]
	stp x2, x3, [sp, 32]
	stp x4, x5, [sp, 48]
	stp x6, x7, [sp, 64]
	str x8, [sp, 80]
	mov x0, x30
	bl mcount_check
	ldp x0, x1, [sp, 16]
	ldp x2, x3, [sp, 32]
	ldp x4, x5, [sp, 48]
	ldp x6, x7, [sp, 64]
	ldr x8, [sp, 80]
	ldp x29, x30, [sp], 96
	ret
	.size _mcount, .-_mcount
	.section .note.GNU-stack,"",%progbits
