/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-x86_64.S - the profiling hooks libmcount-trace provides.
 *
 * A site that is switched on calls one of these.  __fentry__ (-mfentry)
 * runs before the function's prologue: (%rsp) is the address after the
 * call, 8(%rsp) the caller's return address.  mcount/_mcount run after
 * the prologue: the caller's return address is at 8(%rbp).  Both must
 * keep every argument register (and %rax, %r10: a variadic call's vector
 * count, a nested function's static chain); mt_entry is compiled with
 * general registers only, so the vector registers are never touched.
 * At entry %rsp is 8 mod 16 (or 0: GCC calls a function of its own unit
 * that needs no alignment without aligning; buffer.c realigns before
 * it runs the program's callbacks); nine pushes make it 16-aligned.
 * mt_entry gets the address of the slot that holds the function's return
 * address, which the function_graph tracer replaces with
 * mt_return_trampoline's, and the saved argument registers.
 */
#include "hook-table.h"
	.text

/* The argument registers end up in the ABI's order from %rsp up: the
 * third argument of mt_entry (function events read them there). */
	.macro SAVE
	pushq %r11
	pushq %r10
	pushq %rax
	pushq %r9
	pushq %r8
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	.endm

	.macro RESTORE
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %r8
	popq %r9
	popq %rax
	popq %r10
	popq %r11
	.endm

/* HOOK name, the slot of the function's return address, and a local
 * label for the same code, which mt_hooks below lists */
	.macro HOOK name, parent, label
	.globl \name
	.type \name, @function
	.p2align 4
\label:
\name:
	.cfi_startproc
	SAVE
	.cfi_adjust_cfa_offset 72
	movq 72(%rsp), %rdi
	leaq \parent, %rsi
	movq %rsp, %rdx
	call mt_entry
	RESTORE
	.cfi_adjust_cfa_offset -72
	ret
	.cfi_endproc
	.size \name, .-\name
	.endm

	HOOK __fentry__, 80(%rsp), .Lfentry
	HOOK mcount, 8(%rbp), .Lmcount
	HOOK _mcount, 8(%rbp), .L_mcount

/* in arch-x86.c's order: HOOK_FENTRY, HOOK_MCOUNT, HOOK__MCOUNT */
	MT_HOOKS .Lfentry, .Lmcount, .L_mcount

/* A function's own trampoline (arch-x86.c: its stub) jumps here with
 * the function's index in %r11d, from a site at its entry: as
 * __fentry__, the registers kept, mt_own_entry given the index, the
 * address after the site and the registers (the function's return
 * address above them, at 80(%rsp)). */
	.globl mt_own_tramp
	.hidden mt_own_tramp
	.type mt_own_tramp, @function
	.p2align 4
mt_own_tramp:
	.cfi_startproc
	SAVE
	.cfi_adjust_cfa_offset 72
	movl %r11d, %edi
	movq 72(%rsp), %rsi
	movq %rsp, %rdx
	call mt_own_entry
	RESTORE
	.cfi_adjust_cfa_offset -72
	ret
	.cfi_endproc
	.size mt_own_tramp, .-mt_own_tramp

/* A hijacked function returns here, with %rsp just above the slot it
 * returned through.  The return values (%rax, %rdx; %xmm0-1 and %st(0),
 * which mt_exit never touches) are kept; the other caller-saved
 * registers are free at a return.  No unwind information, on purpose: an
 * unwinder that reaches this address stops (its end of stack), where a
 * wrong description would lead it astray; the byte before the label
 * belongs to no function, so that a lookup of (return address - 1) finds
 * nothing either.  Never unmapped: a frame hijacked under an earlier
 * tracer setting may return here at any time. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @function
	.p2align 4
	int3
mt_return_trampoline:
	pushq %rax
	pushq %rdx
	pushq %rbx
	movq %rsp, %rbx
	leaq 16(%rsp), %rdi             /* the slot: %rsp at the return, less 8 */
	movq %rax, %rsi                 /* the return value */
	andq $-16, %rsp
	call mt_exit
	movq %rbx, %rsp
	movq %rax, %r11
	popq %rbx
	popq %rdx
	popq %rax
	jmp *%r11
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
