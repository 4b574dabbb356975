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
 * touched: mt_entry keeps to the callee-saved ones like any function,
 * and keeps fa0-fa7 around hooks' callbacks (cpu.h, mt_fp_save), which
 * are the program's code.
 * sp stays 16-byte aligned.
 *
 * Function events find the arguments where the body moved them (rt.h,
 * MT_ARGS_LOCATED: callee-saved registers, the stack), so the block of
 * registers mt_entry gets holds them as they were at the site
 * (arch-riscv64.c, rv_arg_reg, maps DWARF's numbers onto it):
 *	[0..7]   a0-a7 (a0: the parent by then)
 *	[8]      the copy of the parent (MT_SLOT_KEEP)
 *	[9]      sp
 *	[10]     s0 (MT_REG_FP)
 *	[11]     s1
 *	[12..21] s2-s11
 *	[22..33] fs0, fs1, fs2-fs11
 * The frame, 304 bytes: the block at 0, the function's s0 at 288 and ra
 * at 296 (the frame record).
 */
#include "hook-table.h"
	MT_HOOKS .L_mcount

/* The block's callee-saved registers and arguments (s0 and sp are the
 * hook's own to put), and the arguments back. */
	.macro SAVE_BLOCK
	sd	s1, 88(sp)
	sd	s2, 96(sp)
	sd	s3, 104(sp)
	sd	s4, 112(sp)
	sd	s5, 120(sp)
	sd	s6, 128(sp)
	sd	s7, 136(sp)
	sd	s8, 144(sp)
	sd	s9, 152(sp)
	sd	s10, 160(sp)
	sd	s11, 168(sp)
	fsd	fs0, 176(sp)
	fsd	fs1, 184(sp)
	fsd	fs2, 192(sp)
	fsd	fs3, 200(sp)
	fsd	fs4, 208(sp)
	fsd	fs5, 216(sp)
	fsd	fs6, 224(sp)
	fsd	fs7, 232(sp)
	fsd	fs8, 240(sp)
	fsd	fs9, 248(sp)
	fsd	fs10, 256(sp)
	fsd	fs11, 264(sp)
	sd	a0, 0(sp)
	sd	a1, 8(sp)
	sd	a2, 16(sp)
	sd	a3, 24(sp)
	sd	a4, 32(sp)
	sd	a5, 40(sp)
	sd	a6, 48(sp)
	sd	a7, 56(sp)
	.endm

	.macro LOAD_ARGS
	ld	a0, 0(sp)
	ld	a1, 8(sp)
	ld	a2, 16(sp)
	ld	a3, 24(sp)
	ld	a4, 32(sp)
	ld	a5, 40(sp)
	ld	a6, 48(sp)
	ld	a7, 56(sp)
	.endm

	.text
	.globl _mcount
	.type _mcount, %function
	.p2align 2
.L_mcount:
_mcount:
	.cfi_startproc
	addi	sp, sp, -304
	.cfi_def_cfa_offset 304
	sd	ra, 296(sp)
	sd	s0, 288(sp)
	.cfi_offset ra, -8
	.cfi_offset s0, -16
	sd	s0, 80(sp)
	addi	s0, sp, 304
	.cfi_def_cfa s0, 0
	sd	s0, 72(sp)		// the function's sp
	SAVE_BLOCK
	sd	a0, 64(sp)		// the copy of the parent
	mv	a2, sp			// the argument registers
	addi	a1, sp, 64
	ori	a1, a1, 1		// MT_SLOT_KEEP
	mv	a0, ra			// the address after the site
	call	mt_entry
	LOAD_ARGS
	ld	ra, 296(sp)
	ld	s0, 288(sp)
	.cfi_def_cfa sp, 304
	.cfi_restore ra
	.cfi_restore s0
	addi	sp, sp, 304
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
/* -fpatchable-function-entry's site (arch-riscv64.c): `auipc t0; jalr
 * t0` (or a trampoline that jumps here) at the function's start, before
 * its prologue: t0 is the address after the site, ra the parent, a0-a7
 * the arguments, t2 a nested function's static chain, s0 and sp the
 * caller's.  The frame and the block as _mcount's (the copy of the
 * parent: ra, marked MT_SLOT_KEEP, never written), t0 and t2 kept at
 * 272 and 280; it returns through t0 with ra the parent.  Its unwind
 * information has the parent as its return address: the function has
 * no frame yet. */
	.globl mt_pfe_hook
	.hidden mt_pfe_hook
	.type mt_pfe_hook, %function
	.p2align 2
mt_pfe_hook:
	.cfi_startproc
	addi	sp, sp, -304
	.cfi_def_cfa_offset 304
	sd	ra, 296(sp)
	sd	s0, 288(sp)
	.cfi_offset ra, -8
	.cfi_offset s0, -16
	sd	t0, 272(sp)
	sd	t2, 280(sp)
	sd	s0, 80(sp)
	addi	s0, sp, 304
	.cfi_def_cfa s0, 0
	sd	s0, 72(sp)		// the function's sp
	SAVE_BLOCK
	sd	ra, 64(sp)		// the copy of the parent
	mv	a2, sp			// the argument registers
	addi	a1, sp, 64
	ori	a1, a1, 1		// MT_SLOT_KEEP
	mv	a0, t0			// the address after the site
	call	mt_entry
	LOAD_ARGS
	ld	t0, 272(sp)
	ld	t2, 280(sp)
	ld	ra, 296(sp)
	ld	s0, 288(sp)
	.cfi_def_cfa sp, 304
	.cfi_restore ra
	.cfi_restore s0
	addi	sp, sp, 304
	.cfi_def_cfa_offset 0
	jr	t0
	.cfi_endproc
	.size mt_pfe_hook, .-mt_pfe_hook

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
