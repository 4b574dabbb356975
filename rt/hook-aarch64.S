/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-aarch64.S - the profiling hook libmcount-trace provides on aarch64,
 * and the return trampoline of the function_graph tracer.
 *
 * GCC's -pg calls _mcount after the function's prologue, as
 *	stp	x29, x30, [sp, #-N]!	// the frame record (or sub sp + stp
 *	mov	x29, sp			//  [sp, #off] + add x29, sp, #off)
 *	...
 *	hint	7			// xpaclri: x30 without its signature
 *	mov	x0, x30			// the caller's return address (the parent)
 *	bl	_mcount			// x30 := the address after this bl
 * so x0 is the parent, x30 the address after the site, and x29 the
 * function's frame pointer: its frame record {saved x29, saved x30} is at
 * [x29], and x29 + 8 the slot of its return address.  mt_entry gets the
 * address after the site and that slot, once the slot is seen to hold
 * the parent itself (and the entry hijacks it only if the function does
 * not sign it: rt.h, mt_nohook).  It does not when pointer authentication
 * signed the saved x30 (-mbranch-protection=pac-ret on a CPU with it), or when x29
 * is no frame record of the function (below its stack pointer or
 * misaligned: code GCC did not make); mt_entry then gets a copy {saved
 * x29 or 0, parent} in this frame, marked MT_SLOT_KEEP (bit 0): the
 * function_graph tracer records the entry and never writes a return
 * address it cannot check.  GCC treats the call as an ordinary one (it
 * keeps its own live values in callee-saved registers around it), but
 * the hook keeps x0-x8 (the argument registers and x8, the indirect
 * result register) anyway, for code that assumes less, and x29/x30 in a
 * frame record so that unwinders and profilers walk through it.
 * mt_entry is compiled with general registers only: the vector
 * registers are never touched.  sp is 16-byte aligned at every call.
 *
 * Function events find the arguments where the body moved them (rt.h,
 * MT_ARGS_LOCATED: in callee-saved registers, or on the stack), so
 * mt_entry's third argument is the block of the registers as they were
 * at the site (arch-aarch64.c, a64_arg_reg, maps DWARF's numbers onto
 * it):
 *	[0..7]   x0-x7 (x0: the parent by then)
 *	[8..17]  x19-x28
 *	[18]     x29
 *	[19]     sp
 *	[20..27] d8-d15
 * The frame: {x29, x30} at 0, the block at 16 (224 bytes), x8 at 240,
 * the copy of the frame record at 256; 272 bytes.
 */
#include "hook-table.h"
	MT_HOOKS .L_mcount

/* The block's parts that both hooks fill alike: the arguments and the
 * callee-saved x19-x28 (at 16), d8-d15 and x8 (at 176); and the
 * arguments and x8 back. */
	.macro SAVE_ARGS_CALLEE
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x19, x20, [sp, #80]
	stp	x21, x22, [sp, #96]
	stp	x23, x24, [sp, #112]
	stp	x25, x26, [sp, #128]
	stp	x27, x28, [sp, #144]
	.endm

	.macro SAVE_FP_X8
	stp	d8, d9, [sp, #176]
	stp	d10, d11, [sp, #192]
	stp	d12, d13, [sp, #208]
	stp	d14, d15, [sp, #224]
	str	x8, [sp, #240]
	.endm

	.macro LOAD_ARGS
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldr	x8, [sp, #240]
	.endm

	.text
	.globl _mcount
	.type _mcount, %function
	.p2align 4
.L_mcount:
_mcount:
	.cfi_startproc
	stp	x29, x30, [sp, #-272]!
	.cfi_def_cfa_offset 272
	.cfi_offset 29, -272
	.cfi_offset 30, -264
	mov	x29, sp
	SAVE_ARGS_CALLEE
	ldr	x9, [sp]		// the function's x29: its frame record
	add	x10, sp, #272		// the function's sp
	stp	x9, x10, [sp, #160]
	SAVE_FP_X8
	add	x2, sp, #16		// the block
	mov	x11, #0			// the key, if that is no frame record
	cmp	x9, x10
	b.lo	1f			// below it: not its frame
	tst	x9, #7
	b.ne	1f
	ldr	x11, [x9]		// the record's x29: the key (rt.h)
	add	x1, x9, #8		// the record's x30: the return-address slot
	ldr	x10, [x1]
	cmp	x10, x0
	b.eq	2f			// holds the parent: the slot
1:	stp	x11, x0, [sp, #256]	// else a copy, which is never written
	add	x1, sp, #264
	orr	x1, x1, #1		// MT_SLOT_KEEP
2:	mov	x0, x30			// the address after the site
	bl	mt_entry
	LOAD_ARGS
	ldp	x29, x30, [sp], #272
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size _mcount, .-_mcount

/* -fpatchable-function-entry=2's site (arch-aarch64.c): `mov x9, x30;
 * bl` (or a trampoline that branches here through x16) at the
 * function's entry, before its prologue: x9 is the parent, x30 the
 * address after the site, x29 and sp the caller's.  The frame and the
 * block as _mcount's; mt_entry gets a copy {the caller's x29, the
 * parent} marked MT_SLOT_KEEP (never hijacked), and the hook returns to
 * the site with x30 the parent again (x9 and x10, free at a function's
 * entry, are not kept).  Its unwind information has the parent as its
 * return address: the function has no frame yet. */
	.globl mt_pfe_hook
	.hidden mt_pfe_hook
	.type mt_pfe_hook, %function
	.p2align 4
mt_pfe_hook:
	.cfi_startproc
	hint	34			// bti c (a trampoline's br x16 comes here)
	stp	x29, x30, [sp, #-272]!
	.cfi_def_cfa_offset 272
	.cfi_offset 29, -272
	mov	x29, sp
	SAVE_ARGS_CALLEE
	ldr	x11, [sp]		// the caller's x29
	add	x10, sp, #272		// the function's sp, as its caller left it
	stp	x11, x10, [sp, #160]
	SAVE_FP_X8
	stp	x11, x9, [sp, #256]	// {key, parent}: a copy, never written
	.cfi_offset 30, -8
	add	x2, sp, #16		// the block
	add	x1, sp, #264
	orr	x1, x1, #1		// MT_SLOT_KEEP
	mov	x0, x30			// the address after the site
	bl	mt_entry
	LOAD_ARGS
	ldr	x9, [sp, #264]		// the parent
	ldp	x29, x10, [sp], #272	// x10: the address after the site
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	mov	x30, x9
	.cfi_restore 30
	ret	x10
	.cfi_endproc
	.size mt_pfe_hook, .-mt_pfe_hook

/* A hijacked function returns here, after its epilogue: sp and x29 are
 * its caller's again, and x29 is the key its entry was pushed with (the
 * caller's frame pointer, which the frame record saved).  The return
 * values (x0-x7, and x8, which a callee need not keep but some code
 * assumes) are kept; the vector registers are too, as mt_exit never
 * touches them; x9-x17 are free at a return.  The original return
 * address goes back with `ret`, which BTI-guarded pages accept anywhere
 * (unlike `br`).  No unwind information, on purpose: an unwinder that
 * reaches this address stops (its end of stack), where a wrong
 * description would lead it astray; the word before the label belongs
 * to no function, so that a lookup of (return address - 1) finds
 * nothing either.  Never unmapped: a frame hijacked under an earlier
 * tracer setting may return here at any time. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, %function
	.p2align 4
	udf	#0
mt_return_trampoline:
	sub	sp, sp, #80
	stp	x0, x1, [sp]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	str	x8, [sp, #64]
	mov	x1, x0			// the return value
	mov	x0, x29			// the key
	bl	mt_exit
	mov	x30, x0
	ldp	x0, x1, [sp]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldr	x8, [sp, #64]
	add	sp, sp, #80
	ret
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",%progbits
