/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-s390x.S - the profiling hooks libmcount-trace provides on s390x.
 *
 * GCC's -pg calls _mcount at the function's first byte, before the
 * prologue (arch-s390x.c):
 *	stg	%r14,8(%r15)		// the parent, in the word the ABI
 *					// reserves at 8 of the callee's
 *					// register save area
 *	brasl	%r14,_mcount		// r14 := the address after the site
 *	lg	%r14,8(%r15)		// the parent back
 * so r14 is the address after the site and 8(%r15) the slot the
 * function's return address is restored from (function_graph replaces
 * it there).  With -mfentry GCC calls __fentry__ by brasl %r0 as the
 * function's first instruction: r0 is the address after the site and
 * r14 still the parent, which __fentry__ puts in that same word (the
 * ABI reserves it; nothing else stores there) and reloads into r14
 * before it returns, so both forms have the slot at 8 of the function's
 * r15.  The site has no CFI of its own there (r14 is the parent in the
 * function's frame description), so __fentry__'s says where r14 is
 * while the hook's call of mt_entry has it: an unwinder that starts in
 * a hook's callback (pthread_exit, cancellation) finds the parent
 * through it, as through the rel_offset GCC writes for _mcount's site.  Either runs before the body: the argument registers r2-r6 and
 * f0, f2, f4, f6 hold the arguments, and are kept, with f1-f7 (GCC may
 * keep general registers in the call-clobbered floating-point ones of
 * a leaf function: mt_entry may); r0 and r1 are not (the call
 * clobbers them, as a PLT entry does r1).  mt_entry gets the address
 * after the site, the slot and r2-r6 as saved.
 * The frame: the 160 bytes of the ABI's register save area for
 * mt_entry, r2-r6 at 160-199, the return address (r14 or r0) at 200,
 * f0-f7 at 208-271; 272 bytes, the back chain at 0.
 */
#include "hook-table.h"
#define FRAME 272

/* f0-f7 at 208-271 of the frame, which both hooks keep */
	.macro	SAVE_FP
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	std	%f\n, 208 + 8 * \n(%r15)
	.endr
	.endm
	.macro	LOAD_FP
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	ld	%f\n, 208 + 8 * \n(%r15)
	.endr
	.endm

	MT_HOOKS .L_mcount, .Lfentry

	.text
	.globl _mcount
	.type _mcount, @function
	.p2align 3
.L_mcount:
_mcount:
	.cfi_startproc
	lgr	%r1, %r15
	aghi	%r15, -FRAME
	.cfi_adjust_cfa_offset FRAME
	stg	%r1, 0(%r15)
	stmg	%r2, %r6, 160(%r15)
	stg	%r14, 200(%r15)
	.cfi_offset %r14, 200 - FRAME - 160
	SAVE_FP
	lgr	%r2, %r14		// the address after the site
	la	%r3, 8(%r1)		// the slot: 8 of the function's r15
	la	%r4, 160(%r15)		// the argument registers
	brasl	%r14, mt_entry
	LOAD_FP
	lmg	%r2, %r6, 160(%r15)
	lg	%r14, 200(%r15)
	aghi	%r15, FRAME
	.cfi_adjust_cfa_offset -FRAME
	.cfi_restore %r14
	br	%r14
	.cfi_endproc
	.size _mcount, .-_mcount

	.globl __fentry__
	.type __fentry__, @function
	.p2align 3
.Lfentry:
__fentry__:
	.cfi_startproc
	.cfi_return_column %r0
	stg	%r14, 8(%r15)		// the parent into the slot
	.cfi_rel_offset %r14, 8
	lgr	%r1, %r15
	aghi	%r15, -FRAME
	.cfi_adjust_cfa_offset FRAME
	stg	%r1, 0(%r15)
	stmg	%r2, %r6, 160(%r15)
	stg	%r0, 200(%r15)
	.cfi_offset %r0, 200 - FRAME - 160
	SAVE_FP
	lgr	%r2, %r0		// the address after the site
	la	%r3, 8(%r1)		// the slot
	la	%r4, 160(%r15)
	brasl	%r14, mt_entry
	LOAD_FP
	lmg	%r2, %r6, 160(%r15)
	lg	%r1, 200(%r15)		// br %r0 would be no branch (bcr 15,0)
	aghi	%r15, FRAME
	.cfi_adjust_cfa_offset -FRAME
	lg	%r14, 8(%r15)		// the parent, or the trampoline
	.cfi_restore %r14
	br	%r1
	.cfi_endproc
	.size __fentry__, .-__fentry__

/* A hijacked function returns here, after its epilogue: r15 is its
 * caller's again, the one the function was entered with, so the slot it
 * returned through (the key, rt.h) is 8(%r15).  The return values are
 * kept: r2 and f0-f7 (f0 and f2 a complex value; the rest as in the
 * hook), r3 too.  r14 gets the original return address.  As
 * hook-aarch64.S's: no unwind information and a halfword of no
 * function before it, on purpose, and never unmapped.  The frame: the
 * save area, r2-r3 at 160-175, f0-f7 at 176-239. */
#define TFRAME 240
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @function
	.p2align 3
	.byte	0, 0
mt_return_trampoline:
	lgr	%r1, %r15
	aghi	%r15, -TFRAME
	stg	%r1, 0(%r15)
	stmg	%r2, %r3, 160(%r15)
	std	%f0, 176(%r15)
	std	%f1, 184(%r15)
	std	%f2, 192(%r15)
	std	%f3, 200(%r15)
	std	%f4, 208(%r15)
	std	%f5, 216(%r15)
	std	%f6, 224(%r15)
	std	%f7, 232(%r15)
	lgr	%r3, %r2		// the return value
	la	%r2, 8(%r1)		// the key: the slot
	brasl	%r14, mt_exit
	lgr	%r14, %r2
	ld	%f0, 176(%r15)
	ld	%f1, 184(%r15)
	ld	%f2, 192(%r15)
	ld	%f3, 200(%r15)
	ld	%f4, 208(%r15)
	ld	%f5, 216(%r15)
	ld	%f6, 224(%r15)
	ld	%f7, 232(%r15)
	lmg	%r2, %r3, 160(%r15)
	aghi	%r15, TFRAME
	br	%r14
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
