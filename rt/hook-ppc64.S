/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-ppc64.S - the profiling hook libmcount-trace provides on
 * big-endian ppc64 (ELFv1).
 *
 * GCC's -pg calls _mcount after the prologue, as on ELFv2
 * (hook-ppc64le.S, arch-ppc64.c):
 *	mflr	r0
 *	std	r0,16(r1)		// the parent, in the caller's frame
 *	stdu	r1,-N(r1)		// the function's frame, back chain at 0
 *	bl	_mcount			// lr := the address after the site
 *	nop				// or ld r2,40(r1) after a call stub
 * What differs is the ABI around it.  _mcount is a function descriptor
 * in .opd (code, TOC pointer, environment), its code at .L._mcount: a
 * bl from the same module (linked in) goes to the code, with r2 already
 * the module's TOC pointer, and a call stub (another module) loads r2
 * from the descriptor the .plt slot holds, the library's; either way r2
 * is the library's own on entry, and no code sets it up.  The frame
 * header is 48 bytes (back chain, CR, LR, two reserved words, the TOC
 * save slot at 40), followed by the 64 bytes of parameter save area a
 * callee may store its register arguments in: 112 bytes below anything
 * of the hook's own.  The block mt_entry gets is hook-ppc64le.S's
 * (arch-ppc64.c's ppc_arg_reg maps DWARF's numbers onto it):
 *	[0..7]   r3-r10
 *	[8]      r1 (the function's sp)
 *	[9..26]  r14-r31
 *	[27..44] f14-f31
 * at 112-471 of a 480-byte frame (16-byte aligned); lr saved in the
 * function's frame at 16(r1).  mt_entry and mt_exit are hidden, so the
 * linker binds the bl to their code in this module, and leaves the nop.
 */
	.abiversion 1
	.section ".opd", "aw"
	.p2align 3
	.globl _mcount
_mcount:
.L.mcount_desc:
	.quad	.L._mcount, .TOC.@tocbase, 0
	.previous
	.type _mcount, @function
	.text
	.p2align 4
.L._mcount:
	.cfi_startproc
	mflr	0
	std	0, 16(1)
	.cfi_offset lr, 16
	stdu	1, -480(1)
	.cfi_def_cfa_offset 480
	addi	11, 1, 480
	std	11, 176(1)		// the function's sp
	std	14, 184(1)
	std	15, 192(1)
	std	16, 200(1)
	std	17, 208(1)
	std	18, 216(1)
	std	19, 224(1)
	std	20, 232(1)
	std	21, 240(1)
	std	22, 248(1)
	std	23, 256(1)
	std	24, 264(1)
	std	25, 272(1)
	std	26, 280(1)
	std	27, 288(1)
	std	28, 296(1)
	std	29, 304(1)
	std	30, 312(1)
	std	31, 320(1)
	stfd	14, 328(1)
	stfd	15, 336(1)
	stfd	16, 344(1)
	stfd	17, 352(1)
	stfd	18, 360(1)
	stfd	19, 368(1)
	stfd	20, 376(1)
	stfd	21, 384(1)
	stfd	22, 392(1)
	stfd	23, 400(1)
	stfd	24, 408(1)
	stfd	25, 416(1)
	stfd	26, 424(1)
	stfd	27, 432(1)
	stfd	28, 440(1)
	stfd	29, 448(1)
	stfd	30, 456(1)
	stfd	31, 464(1)
	std	3, 112(1)
	std	4, 120(1)
	std	5, 128(1)
	std	6, 136(1)
	std	7, 144(1)
	std	8, 152(1)
	std	9, 160(1)
	std	10, 168(1)
	mr	3, 0			// the address after the site
	ld	4, 0(1)			// the function's sp
	ld	4, 0(4)			// its back chain: its caller's sp
	addi	4, 4, 16		// the slot of the function's return address
	addi	5, 1, 112		// the argument registers
	bl	mt_entry
	nop
	ld	3, 112(1)
	ld	4, 120(1)
	ld	5, 128(1)
	ld	6, 136(1)
	ld	7, 144(1)
	ld	8, 152(1)
	ld	9, 160(1)
	ld	10, 168(1)
	addi	1, 1, 480
	.cfi_def_cfa_offset 0
	ld	0, 16(1)
	mtlr	0
	.cfi_restore lr
	blr
	.cfi_endproc
	.size _mcount, .-.L._mcount

/* A hijacked function returns here, after its epilogue, by its blr: r1
 * is its caller's sp again, and the slot it returned through (the key,
 * rt.h) is 16 bytes into the caller's frame.  Not a function in the
 * ELFv1 sense: no descriptor, so its symbol is its code, which is what
 * buffer.c writes into a slot and compares with a return address.  The
 * return values are kept: r3, r4 and f1-f8 (mt_exit, in buffer.c, is
 * built without VSX or AltiVec), and r2, the TOC pointer the function
 * returned with (a caller in its module restores none).  r2 becomes the
 * library's own, read from _mcount's descriptor, found from this code's
 * address, to call mt_exit; lr gets the original return address.  As
 * hook-ppc64le.S's: no unwind information and a word of no function
 * before it, on purpose, and never unmapped.  The frame: 112 bytes of
 * header and parameter save area, r2-r4 at 112-135, f1-f8 at 136-199,
 * 208 in all. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @notype
	.p2align 2
	trap
mt_return_trampoline:
	stdu	1, -208(1)
	std	2, 112(1)
	std	3, 120(1)
	std	4, 128(1)
	stfd	1, 136(1)
	stfd	2, 144(1)
	stfd	3, 152(1)
	stfd	4, 160(1)
	stfd	5, 168(1)
	stfd	6, 176(1)
	stfd	7, 184(1)
	stfd	8, 192(1)
	bcl	20, 31, 1f
1:	mflr	12
	addis	12, 12, (.L.mcount_desc-1b)@ha
	addi	12, 12, (.L.mcount_desc-1b)@l
	ld	2, 8(12)		// the descriptor's TOC pointer
	mr	4, 3			// the return value
	addi	3, 1, 208 + 16		// the key: the slot in the caller's frame
	bl	mt_exit
	nop
	mtlr	3
	ld	2, 112(1)
	ld	3, 120(1)
	ld	4, 128(1)
	lfd	1, 136(1)
	lfd	2, 144(1)
	lfd	3, 152(1)
	lfd	4, 160(1)
	lfd	5, 168(1)
	lfd	6, 176(1)
	lfd	7, 184(1)
	lfd	8, 192(1)
	addi	1, 1, 208
	blr
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
