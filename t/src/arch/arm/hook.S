/* SPDX-License-Identifier: GPL-2.0-or-later */
/* __gnu_mcount_nc for the arm runtime oracle.  The call site did
 * `push {lr}; bl __gnu_mcount_nc`: lr is the return point (bit 0 set in
 * Thumb code) and the function's own lr is on the stack, to be popped. */
	.syntax unified
	.arm
	.text
	.globl __gnu_mcount_nc
	.type __gnu_mcount_nc, %function
__gnu_mcount_nc:
	push {r0, r1, r2, r3, lr}
	mov r0, lr
	bl mcount_check
	pop {r0, r1, r2, r3, ip}
	pop {lr}
	bx ip
	.size __gnu_mcount_nc, .-__gnu_mcount_nc
	.section .note.GNU-stack,"",%progbits
