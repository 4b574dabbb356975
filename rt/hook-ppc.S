/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-ppc.S - the profiling hook libmcount-trace provides on ppc32.
 *
 * GCC's -pg calls _mcount before the prologue (arch-ppc.c):
 *	mflr	r0
 *	stw	r0,4(r1)		// the parent: the slot
 *	bl	_mcount			// lr := the address after the site
 * so r1 is the caller's sp, the slot is 4(r1) and r3-r10 hold the
 * arguments as the caller passed them.  The prologue after the site
 * reads lr again, so _mcount returns to the site + 4 by ctr with lr
 * reloaded from the slot: the parent, or the return trampoline where
 * mt_entry hijacked the frame (function_graph).  Kept: r3-r10, f1-f8
 * (arguments; mt_entry is C, which may use floating point registers for
 * copies), CR (cr1 says a variadic call's floating-point arguments).
 * The frame, 112 bytes: back chain, lr save word of callees, CR at 8,
 * the address after the site at 12, r3-r10 at 16-47 (the block mt_entry
 * gets, in the ABI's order), f1-f8 at 48-111.
 */
	.text
	.globl _mcount
	.type _mcount, @function
	.p2align 4
_mcount:
	.cfi_startproc
	stwu	1, -112(1)
	.cfi_def_cfa_offset 112
	mfcr	11
	stw	11, 8(1)
	mflr	11
	stw	11, 12(1)
	stw	3, 16(1)
	stw	4, 20(1)
	stw	5, 24(1)
	stw	6, 28(1)
	stw	7, 32(1)
	stw	8, 36(1)
	stw	9, 40(1)
	stw	10, 44(1)
	stfd	1, 48(1)
	stfd	2, 56(1)
	stfd	3, 64(1)
	stfd	4, 72(1)
	stfd	5, 80(1)
	stfd	6, 88(1)
	stfd	7, 96(1)
	stfd	8, 104(1)
	mr	3, 11			// the address after the site
	addi	4, 1, 112 + 4		// the slot
	addi	5, 1, 16		// the argument registers
	bl	mt_entry
	lwz	11, 8(1)
	mtcr	11
	lwz	0, 12(1)
	mtctr	0
	lwz	3, 16(1)
	lwz	4, 20(1)
	lwz	5, 24(1)
	lwz	6, 28(1)
	lwz	7, 32(1)
	lwz	8, 36(1)
	lwz	9, 40(1)
	lwz	10, 44(1)
	lfd	1, 48(1)
	lfd	2, 56(1)
	lfd	3, 64(1)
	lfd	4, 72(1)
	lfd	5, 80(1)
	lfd	6, 88(1)
	lfd	7, 96(1)
	lfd	8, 104(1)
	addi	1, 1, 112
	.cfi_def_cfa_offset 0
	lwz	0, 4(1)			// the parent, or the trampoline
	mtlr	0
	bctr
	.cfi_endproc
	.size _mcount, .-_mcount

/* A hijacked function returns here: r1 is its caller's sp again, and the
 * slot (the key, rt.h) 4 bytes above it.  Kept: r3, r4 (the return
 * value) and f1 (a floating-point one).  As the other hooks': no unwind
 * information and a word of no function before it, on purpose.  The
 * frame, 32 bytes: back chain, lr save word, r3, r4 at 8, 12, f1 at 16. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @function
	.p2align 2
	trap
mt_return_trampoline:
	stwu	1, -32(1)
	stw	3, 8(1)
	stw	4, 12(1)
	stfd	1, 16(1)
	mr	4, 3			// the return value
	addi	3, 1, 32 + 4		// the key: the slot in the caller's frame
	bl	mt_exit
	mtlr	3
	lwz	3, 8(1)
	lwz	4, 12(1)
	lfd	1, 16(1)
	addi	1, 1, 32
	blr
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
