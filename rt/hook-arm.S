/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-arm.S - the profiling hook libmcount-trace provides on 32-bit Arm.
 *
 * GCC's -pg calls __gnu_mcount_nc after the prologue (arch-arm.c):
 *	push	{lr}			// the parent
 *	bl	__gnu_mcount_nc		// lr := the address after the site
 * which is no ordinary call: r0-r3 hold the function's arguments, and
 * under the hard-float ABI d0-d7 too (q0-q3), all to be kept, around
 * mt_entry and the hooks' entry callbacks it runs (the program's code,
 * which may use them and d16-d31: those carry nothing here); the hook returns
 * to lr with lr = the parent and the pushed word dropped.  mt_entry gets
 * the address after the site (the Thumb bit cleared), the slot of the
 * pushed parent and r0-r3 as saved.  The hook is ARM code (a Thumb
 * caller reaches it by blx) and returns by bx, to either state.  sp may
 * be only 4-byte aligned at a site, so it is aligned to 8 (AAPCS) for
 * the call, kept in r4.  The frame: d0-d7 at 0-63, r0-r3 at 64-79, r4
 * at 80, the return into the function at 84, the parent at 88.
 *
 * The pushed parent is passed marked MT_SLOT_KEEP (rt.h): mt_entry finds
 * the slot and the key from the prologue before the site (arch-arm.c,
 * MT_SLOT_FRAME): where the prologue did not save lr, the slot is this
 * word, and what mt_entry writes there is what lr returns with.
 */
#include "hook-table.h"
	.syntax unified
	.arch armv7-a
	.fpu vfpv3-d16
	.arm
	.text
	MT_HOOKS .Lgnu_mcount_nc

	.globl __gnu_mcount_nc
	.type __gnu_mcount_nc, %function
	.p2align 2
.Lgnu_mcount_nc:
__gnu_mcount_nc:
	push	{r0-r4, lr}
	vpush	{d0-d7}
	bic	r0, lr, #1		@ the address after the site
	add	r1, sp, #89		@ the pushed parent, MT_SLOT_KEEP
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

/* A hijacked function returns here (bx lr, or pop {..., pc}), after its
 * epilogue: sp is its caller's again, and its key (rt.h) is the word
 * just below.  r0-r3 and d0-d7 (the return values: a homogeneous
 * aggregate of four doubles in d0-d3, of four quadword vectors in
 * q0-q3) are kept, around mt_exit and the hooks' exit callbacks it
 * runs, which are the program's code; lr gets the original return
 * address, and bx goes back to its state.
 * As the other hooks': no unwind information and a word of no function
 * before it, on purpose, and never unmapped. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, %function
	.p2align 2
	udf	#0
mt_return_trampoline:
	sub	r12, sp, #4		@ the key
	push	{r0-r4, lr}
	vpush	{d0-d7}
	mov	r1, r0			@ the return value
	mov	r0, r12
	mov	r4, sp
	bic	sp, sp, #7
	bl	mt_exit
	mov	sp, r4
	mov	r12, r0
	vpop	{d0-d7}
	pop	{r0-r4, lr}
	mov	lr, r12
	bx	r12
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
