/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-ppc64le.S - the profiling hook libmcount-trace provides on
 * ppc64le (ELFv2).
 *
 * GCC's -pg calls _mcount after the prologue (arch-ppc64.c):
 *	mflr	r0
 *	std	r0,16(r1)		// the parent, in the caller's frame
 *	stdu	r1,-N(r1)		// the function's frame, back chain at 0
 *	bl	_mcount			// lr := the address after the site
 *	nop				// or ld r2,24(r1) after a call stub
 * so lr is the address after the site, and the function's return
 * address (the parent) is in the slot 16 bytes into its caller's frame,
 * whose address is the back chain at 0(r1).  mt_entry gets the address
 * after the site, that slot (function_graph replaces the return address
 * in it: the epilogue reloads lr from there) and r3-r10 as saved.  GCC treats the call as
 * an ordinary one (its live values are in non-volatile registers around
 * it), but the hook keeps r3-r10, the argument registers, anyway, for
 * code that assumes less; the floating-point and vector registers are
 * never touched (mt_entry is C that uses no floating point), and the
 * non-volatile condition register fields cr2-cr4 are kept by mt_entry
 * as by any function.
 *
 * The TOC pointer: reached through a call stub (another module), r12
 * holds _mcount's global entry, which sets up this library's r2; the
 * caller's is restored by the ld r2,24(r1) after its site.  Reached
 * from the same module (linked in), the bl goes to the local entry,
 * past that set-up, with r2 already the module's.  arch-ppc64.c
 * counts on the global entry being those two instructions (8 bytes).
 * Function events find the arguments where the body moved them (rt.h,
 * MT_ARGS_LOCATED: non-volatile registers, the stack), so the block of
 * registers mt_entry gets holds them as they were at the site
 * (arch-ppc64.c, ppc_arg_reg, maps DWARF's numbers onto it):
 *	[0..7]   r3-r10
 *	[8]      r1 (the function's sp)
 *	[9..26]  r14-r31
 *	[27..44] f14-f31
 * The frame: 32 bytes of header (back chain, CR, LR, TOC save), the
 * block at 32-391, 400 bytes in all (16-byte aligned); lr saved in the
 * function's frame at 16(r1), as the ABI says.
 */
	.abiversion 2
	.text
	.globl _mcount
	.type _mcount, @function
	.p2align 4
_mcount:
	.cfi_startproc
	addis	2, 12, .TOC.-_mcount@ha
	addi	2, 2, .TOC.-_mcount@l
	.localentry _mcount, .-_mcount
	mflr	0
	std	0, 16(1)
	.cfi_offset lr, 16
	stdu	1, -400(1)
	.cfi_def_cfa_offset 400
	addi	11, 1, 400
	std	11, 96(1)		// the function's sp
	std	14, 104(1)
	std	15, 112(1)
	std	16, 120(1)
	std	17, 128(1)
	std	18, 136(1)
	std	19, 144(1)
	std	20, 152(1)
	std	21, 160(1)
	std	22, 168(1)
	std	23, 176(1)
	std	24, 184(1)
	std	25, 192(1)
	std	26, 200(1)
	std	27, 208(1)
	std	28, 216(1)
	std	29, 224(1)
	std	30, 232(1)
	std	31, 240(1)
	stfd	14, 248(1)
	stfd	15, 256(1)
	stfd	16, 264(1)
	stfd	17, 272(1)
	stfd	18, 280(1)
	stfd	19, 288(1)
	stfd	20, 296(1)
	stfd	21, 304(1)
	stfd	22, 312(1)
	stfd	23, 320(1)
	stfd	24, 328(1)
	stfd	25, 336(1)
	stfd	26, 344(1)
	stfd	27, 352(1)
	stfd	28, 360(1)
	stfd	29, 368(1)
	stfd	30, 376(1)
	stfd	31, 384(1)
	std	3, 32(1)
	std	4, 40(1)
	std	5, 48(1)
	std	6, 56(1)
	std	7, 64(1)
	std	8, 72(1)
	std	9, 80(1)
	std	10, 88(1)
	mr	3, 0			// the address after the site
	ld	4, 0(1)			// the function's sp
	ld	4, 0(4)			// its back chain: its caller's sp
	addi	4, 4, 16		// the slot of the function's return address
	addi	5, 1, 32		// the argument registers
	bl	mt_entry
	nop
	ld	3, 32(1)
	ld	4, 40(1)
	ld	5, 48(1)
	ld	6, 56(1)
	ld	7, 64(1)
	ld	8, 72(1)
	ld	9, 80(1)
	ld	10, 88(1)
	addi	1, 1, 400
	.cfi_def_cfa_offset 0
	ld	0, 16(1)
	mtlr	0
	.cfi_restore lr
	blr
	.cfi_endproc
	.size _mcount, .-_mcount

/* A hijacked function returns here, after its epilogue: r1 is its
 * caller's sp again, and the slot it returned through (the key, rt.h)
 * is 16 bytes into the caller's frame.  The return values are kept: r3,
 * r4 and f1-f8 (mt_exit, in buffer.c, is built without VSX or AltiVec,
 * so the vector registers are never touched), and r2, the TOC pointer
 * the function returned with (its caller may count on it: a call in one
 * module restores none), which this code replaces with the library's
 * own, found from its own address, to call mt_exit.  lr gets the
 * original return address.  As hook-aarch64.S's: no unwind information
 * and a word of no function before it, on purpose, and never unmapped.
 * The frame: 32 bytes of header, r2-r4 at 32-55, f1-f8 at 64-127. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @function
	.p2align 2
	trap
mt_return_trampoline:
	stdu	1, -128(1)
	std	2, 32(1)
	std	3, 40(1)
	std	4, 48(1)
	stfd	1, 64(1)
	stfd	2, 72(1)
	stfd	3, 80(1)
	stfd	4, 88(1)
	stfd	5, 96(1)
	stfd	6, 104(1)
	stfd	7, 112(1)
	stfd	8, 120(1)
	bcl	20, 31, 1f
1:	mflr	12
	addis	2, 12, (.TOC.-1b)@ha
	addi	2, 2, (.TOC.-1b)@l
	mr	4, 3			// the return value
	addi	3, 1, 128 + 16		// the key: the slot in the caller's frame
	bl	mt_exit
	nop
	mtlr	3
	ld	2, 32(1)
	ld	3, 40(1)
	ld	4, 48(1)
	lfd	1, 64(1)
	lfd	2, 72(1)
	lfd	3, 80(1)
	lfd	4, 88(1)
	lfd	5, 96(1)
	lfd	6, 104(1)
	lfd	7, 112(1)
	lfd	8, 120(1)
	addi	1, 1, 128
	blr
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
