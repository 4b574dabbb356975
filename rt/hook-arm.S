/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-arm.S - the profiling hook libmcount-trace provides on 32-bit Arm.
 *
 * GCC's -pg calls __gnu_mcount_nc after the prologue (arch-arm.c):
 *	push	{lr}			// the parent
 *	bl	__gnu_mcount_nc		// lr := the address after the site
 * which is no ordinary call: r0-r3 hold the function's arguments, and
 * under the hard-float ABI d0-d7 too, all to be kept; the hook returns
 * to lr with lr = the parent and the pushed word dropped.  mt_entry gets
 * the address after the site (the Thumb bit cleared), the slot of the
 * pushed parent and r0-r3 as saved.  The hook is ARM code (a Thumb
 * caller reaches it by blx) and returns by bx, to either state.  sp may
 * be only 4-byte aligned at a site, so it is aligned to 8 (AAPCS) for
 * the call, kept in r4.  The frame: d0-d7 at 0-63, r0-r3 at 64-79, r4
 * at 80, the return into the function at 84, the parent at 88.
 */
	.syntax unified
	.arch armv7-a
	.fpu vfpv3-d16
	.arm
	.text
	.globl __gnu_mcount_nc
	.type __gnu_mcount_nc, %function
	.p2align 2
__gnu_mcount_nc:
	push	{r0-r4, lr}
	vpush	{d0-d7}
	bic	r0, lr, #1		@ the address after the site
	add	r1, sp, #88		@ the slot of the parent
	add	r2, sp, #64		@ the argument registers
	mov	r4, sp
	bic	sp, sp, #7
	bl	mt_entry
	mov	sp, r4
	vpop	{d0-d7}
	pop	{r0-r4, ip}		@ ip: the return into the function
	pop	{lr}			@ the parent, its word dropped
	bx	ip
	.size __gnu_mcount_nc, .-__gnu_mcount_nc

/* function_graph is not there yet on arm (rt.h: MT_HAVE_GRAPH 0), so no
 * frame ever returns here; buffer.c compares parents with the address. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, %function
	.p2align 2
mt_return_trampoline:
	udf	#0
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
