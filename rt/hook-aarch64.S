/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-aarch64.S - the profiling hook libmcount-trace provides on aarch64.
 *
 * GCC's -pg calls _mcount after the function's prologue, as
 *	mov	x0, x30		// the caller's return address (the parent)
 *	bl	_mcount		// x30 := the address after this bl
 * so x0 is the parent and x30 the address after the site; mt_entry gets
 * the address after the site and where the parent is kept (the saved
 * x0: the function's own return-address slot is not known here, so the
 * function_graph tracer, which replaces it, is x86_64's only).  GCC treats
 * the call as an ordinary one (it keeps its own live values in
 * callee-saved registers around it), but the hook keeps x0-x8 (the
 * argument registers and x8, the indirect result register) anyway, for
 * code that assumes less, and x29/x30 in a frame record so that
 * unwinders and profilers walk through it.  mt_entry is compiled with
 * general registers only: the vector registers are never touched.
 * sp is 16-byte aligned at every call; the frame is 96 bytes.
 */
	.text
	.globl _mcount
	.type _mcount, %function
	.p2align 4
_mcount:
	.cfi_startproc
	stp	x29, x30, [sp, #-96]!
	.cfi_def_cfa_offset 96
	.cfi_offset 29, -96
	.cfi_offset 30, -88
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	str	x8, [sp, #80]
	add	x1, sp, #16		// where the parent (x0) is kept
	mov	x0, x30			// the address after the site
	bl	mt_entry
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldr	x8, [sp, #80]
	ldp	x29, x30, [sp], #96
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size _mcount, .-_mcount

/* function_graph is x86_64's only (MT_HAVE_GRAPH in rt.h): no frame is
 * ever given this return address; the symbol is the portable code's. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, %function
mt_return_trampoline:
	udf	#0
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
