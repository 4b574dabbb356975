/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-riscv64.S - the profiling hook libmcount-trace provides on riscv64.
 *
 * GCC's -pg calls _mcount as an ordinary function (arch-riscv64.c):
 *	mv	a0, ra			// the caller's return address (the parent)
 *	call	_mcount			// ra := the address after the site
 * so a0 is the parent and ra the address after the site.  mt_entry gets
 * that address, a copy of the parent marked MT_SLOT_KEEP and the saved
 * registers, s0 among them (rt.h, MT_REG_FP): where the function keeps
 * s0 at its CFA, mt_entry takes s0 - 8 as the slot of its return
 * address, once that holds the parent.  GCC keeps its live values in
 * callee-saved registers around the call, but the hook keeps a0-a7
 * anyway, for code that assumes less, and ra/s0 as a frame record (s0
 * the frame's top, ra at s0 - 8, the caller's s0 at s0 - 16) so that
 * unwinders walk through it.  The floating-point registers are never
 * touched: mt_entry keeps to the callee-saved ones like any function.
 * sp stays 16-byte aligned.  The frame, 96 bytes: a0-a7 at 0-56, the
 * copy at 64, the function's s0 at 80 (regs[MT_REG_FP]), ra at 88.
 */
	.text
	.globl _mcount
	.type _mcount, %function
	.p2align 2
_mcount:
	.cfi_startproc
	addi	sp, sp, -96
	.cfi_def_cfa_offset 96
	sd	ra, 88(sp)
	sd	s0, 80(sp)
	.cfi_offset ra, -8
	.cfi_offset s0, -16
	addi	s0, sp, 96
	.cfi_def_cfa s0, 0
	sd	a0, 0(sp)
	sd	a1, 8(sp)
	sd	a2, 16(sp)
	sd	a3, 24(sp)
	sd	a4, 32(sp)
	sd	a5, 40(sp)
	sd	a6, 48(sp)
	sd	a7, 56(sp)
	sd	a0, 64(sp)		// the copy of the parent
	mv	a2, sp			// the argument registers
	addi	a1, sp, 64
	ori	a1, a1, 1		// MT_SLOT_KEEP
	mv	a0, ra			// the address after the site
	call	mt_entry
	ld	a0, 0(sp)
	ld	a1, 8(sp)
	ld	a2, 16(sp)
	ld	a3, 24(sp)
	ld	a4, 32(sp)
	ld	a5, 40(sp)
	ld	a6, 48(sp)
	ld	a7, 56(sp)
	ld	ra, 88(sp)
	ld	s0, 80(sp)
	.cfi_def_cfa sp, 96
	.cfi_restore ra
	.cfi_restore s0
	addi	sp, sp, 96
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size _mcount, .-_mcount

/* A hijacked function returns here, after its epilogue: sp is its
 * caller's again, and the slot it returned through (the key, rt.h) is
 * just below it.  a0, a1, fa0 and fa1 (the return values) are kept; ra
 * gets the original return address.  As hook-aarch64.S's: no unwind
 * information and a word of no function before it, on purpose, and
 * never unmapped. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, %function
	.p2align 2
	.option push
	.option norvc
	unimp
	.option pop
mt_return_trampoline:
	addi	sp, sp, -48
	sd	a0, 0(sp)
	sd	a1, 8(sp)
	fsd	fa0, 16(sp)
	fsd	fa1, 24(sp)
	mv	a1, a0			// the return value
	addi	a0, sp, 40		// the key: the slot, just below the caller's sp
	call	mt_exit
	mv	ra, a0
	ld	a0, 0(sp)
	ld	a1, 8(sp)
	fld	fa0, 16(sp)
	fld	fa1, 24(sp)
	addi	sp, sp, 48
	ret
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
