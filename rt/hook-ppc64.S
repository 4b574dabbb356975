/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-ppc64.S - the profiling hook libmcount-trace provides on ppc64,
 * for both ABIs: ppc64le (ELFv2, _CALL_ELF 2) and big-endian ppc64
 * (ELFv1).
 *
 * GCC's -pg calls _mcount after the prologue (arch-ppc64.c):
 *	mflr	r0
 *	std	r0,16(r1)		// the parent, in the caller's frame
 *	stdu	r1,-N(r1)		// the function's frame, back chain at 0
 *	bl	_mcount			// lr := the address after the site
 *	nop				// or the TOC restore after a call stub:
 *					// ld r2,24(r1) (ELFv2), ld r2,40(r1) (ELFv1)
 * so lr is the address after the site, and the function's return
 * address (the parent) is in the slot 16 bytes into its caller's frame,
 * whose address is the back chain at 0(r1).  mt_entry gets the address
 * after the site, that slot (function_graph replaces the return address
 * in it: the epilogue reloads lr from there) and r3-r10 as saved.  GCC
 * treats the call as an ordinary one (its live values are in
 * non-volatile registers around it), but the hook keeps r3-r10, the
 * argument registers, anyway, for code that assumes less; the
 * floating-point and vector registers are never touched (mt_entry is C
 * that uses no floating point; it keeps f1-f13 and v2-v13 around hooks'
 * callbacks, which are the program's code: cpu.h, mt_fp_save), and the
 * non-volatile condition register
 * fields cr2-cr4 are kept by mt_entry as by any function.
 *
 * The TOC pointer.  ELFv2: reached through a call stub (another module),
 * r12 holds _mcount's global entry, which sets up this library's r2; the
 * caller's is restored after its site.  Reached from the same module
 * (linked in), the bl goes to the local entry, past that set-up, with r2
 * already the module's.  arch-ppc64.c counts on the global entry being
 * those two instructions (8 bytes).  ELFv1: _mcount is a function
 * descriptor in .opd (code, TOC pointer, environment), its code at
 * .L._mcount: a bl from the same module goes to the code, with r2
 * already the module's, and a call stub loads r2 from the descriptor the
 * .plt slot holds, the library's; either way r2 is the library's own on
 * entry, and no code sets it up.
 *
 * Function events find the arguments where the body moved them (rt.h,
 * MT_ARGS_LOCATED: non-volatile registers, the stack), so the block of
 * registers mt_entry gets holds them as they were at the site
 * (arch-ppc64.c, ppc_arg_reg, maps DWARF's numbers onto it):
 *	[0..7]   r3-r10
 *	[8]      r1 (the function's sp)
 *	[9..26]  r14-r31
 *	[27..44] f14-f31
 * It lies above the frame's header, HDR bytes: ELFv2's 32 (back chain,
 * CR, LR, TOC save); ELFv1's 48 (back chain, CR, LR, two reserved words,
 * the TOC save slot at 40) and the 64 bytes of parameter save area a
 * callee may store its register arguments in, 112.  The frame is
 * HDR + 368 bytes (16-byte aligned); lr is saved in the function's frame
 * at 16(r1), as the ABI says.  mt_entry and mt_exit are hidden, so the
 * linker binds the bl to their code in this module, and leaves the nop.
 */
#include "hook-table.h"
#if defined(_CALL_ELF) && _CALL_ELF == 2
#define HDR 32
#define CODE _mcount
	.abiversion 2
#else
#define HDR 112
#define CODE .L._mcount
	.abiversion 1
#endif
#define FRAME (HDR + 368)
#define GPR(r) (HDR + 8 * ((r) - 3))          /* r3-r10 */
#define NVGPR(r) (HDR + 8 * ((r) - 5))        /* r14-r31 */
#define NVFPR(f) (HDR + 8 * ((f) + 13))       /* f14-f31 */

/* _mcount's code (ELFv2: its global entry), not its descriptor */
	MT_HOOKS .Lhook_code

#if HDR == 112
	.section ".opd", "aw"
	.p2align 3
	.globl _mcount
_mcount:
.L.mcount_desc:
	.quad	.L._mcount, .TOC.@tocbase, 0
	.previous
#else
	.globl _mcount
#endif
	.type _mcount, @function
	.text
	.p2align 4
.Lhook_code:
CODE:
	.cfi_startproc
#if HDR == 32
	addis	2, 12, .TOC.-_mcount@ha
	addi	2, 2, .TOC.-_mcount@l
	.localentry _mcount, .-_mcount
#endif
	mflr	0
	std	0, 16(1)
	.cfi_offset lr, 16
	stdu	1, -FRAME(1)
	.cfi_def_cfa_offset FRAME
	addi	11, 1, FRAME
	std	11, HDR + 64(1)		// the function's sp
	.irp r, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	std	\r, NVGPR(\r)(1)
	stfd	\r, NVFPR(\r)(1)
	.endr
	.irp r, 3, 4, 5, 6, 7, 8, 9, 10
	std	\r, GPR(\r)(1)
	.endr
	mr	3, 0			// the address after the site
	ld	4, 0(1)			// the function's sp
	ld	4, 0(4)			// its back chain: its caller's sp
	addi	4, 4, 16		// the slot of the function's return address
	addi	5, 1, HDR		// the argument registers
	bl	mt_entry
	nop
	.irp r, 3, 4, 5, 6, 7, 8, 9, 10
	ld	\r, GPR(\r)(1)
	.endr
	addi	1, 1, FRAME
	.cfi_def_cfa_offset 0
	ld	0, 16(1)
	mtlr	0
	.cfi_restore lr
	blr
	.cfi_endproc
	.size _mcount, .-CODE

/* A hijacked function returns here, after its epilogue, by its blr: r1
 * is its caller's sp again, and the slot it returned through (the key,
 * rt.h) is 16 bytes into the caller's frame.  The return values are
 * kept: r3, r4 and f1-f8 (mt_exit, in buffer.c, is built without VSX or
 * AltiVec, so the vector registers are never touched but around hooks'
 * exit callbacks, where it keeps them), and r2, the TOC
 * pointer the function returned with (its caller may count on it: a
 * call in one module restores none).  r2 becomes the library's own, to
 * call mt_exit: ELFv2's .TOC., found from this code's address; ELFv1's,
 * read from _mcount's descriptor, found the same way.  ELFv1: not a
 * function in its sense (no descriptor), so its symbol is its code,
 * which is what buffer.c writes into a slot and compares with a return
 * address.  lr gets the original return address.  As hook-aarch64.S's:
 * no unwind information and a word of no function before it, on
 * purpose, and never unmapped.  The frame: the header, r2-r4 at HDR,
 * f1-f8 at HDR + 24, HDR + 96 bytes in all. */
#define TFRAME (HDR + 96)
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
#if HDR == 32
	.type mt_return_trampoline, @function
#else
	.type mt_return_trampoline, @notype
#endif
	.p2align 2
	trap
mt_return_trampoline:
	stdu	1, -TFRAME(1)
	.irp r, 2, 3, 4
	std	\r, HDR + 8 * (\r - 2)(1)
	.endr
	.irp f, 1, 2, 3, 4, 5, 6, 7, 8
	stfd	\f, HDR + 16 + 8 * \f(1)
	.endr
	bcl	20, 31, 1f
1:	mflr	12
#if HDR == 32
	addis	2, 12, (.TOC.-1b)@ha
	addi	2, 2, (.TOC.-1b)@l
#else
	addis	12, 12, (.L.mcount_desc-1b)@ha
	addi	12, 12, (.L.mcount_desc-1b)@l
	ld	2, 8(12)		// the descriptor's TOC pointer
#endif
	mr	4, 3			// the return value
	addi	3, 1, TFRAME + 16	// the key: the slot in the caller's frame
	bl	mt_exit
	nop
	mtlr	3
	.irp r, 2, 3, 4
	ld	\r, HDR + 8 * (\r - 2)(1)
	.endr
	.irp f, 1, 2, 3, 4, 5, 6, 7, 8
	lfd	\f, HDR + 16 + 8 * \f(1)
	.endr
	addi	1, 1, TFRAME
	blr
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
