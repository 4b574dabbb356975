/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hook-i386.S - the profiling hooks libmcount-trace provides on i386.
 *
 * A site that is switched on calls one of these.  __fentry__ (-mfentry,
 * not with -fpic) runs before the function's prologue: (%esp) is the
 * address after the call, 4(%esp) the caller's return address.
 * mcount/_mcount run after `push %ebp; mov %esp, %ebp` (and, in PIC
 * code, after %ebx was made the GOT pointer): the caller's return
 * address is at 4(%ebp).  Both keep %eax, %edx and %ecx (a regparm or
 * fastcall function's arguments, a nested function's static chain) and
 * the flags; the other registers mt_entry keeps itself (cdecl), and it is
 * compiled with general registers only.  The stack is 16-aligned for the
 * call.  mt_entry gets the address after the site, the slot that holds
 * the function's return address (which the function_graph tracer
 * replaces with mt_return_trampoline's) and the saved %eax, %edx, %ecx
 * (regparm's order).
 *
 * The frame, from %ebx (the stack pointer after the saves) up: %ebx at
 * 0, %eax 4, %edx 8, %ecx 12, the flags 16, the address after the site
 * 20, and for __fentry__ the caller's return address at 24.
 */
#include "hook-table.h"
	.text

/* HOOK name, the slot of the function's return address, and a local
 * label for the same code, which mt_hooks below lists */
	.macro HOOK name, slot, label
	.globl \name
	.type \name, @function
	.p2align 4
\label:
\name:
	.cfi_startproc
	pushfl
	.cfi_adjust_cfa_offset 4
	pushl %ecx
	.cfi_adjust_cfa_offset 4
	pushl %edx
	.cfi_adjust_cfa_offset 4
	pushl %eax
	.cfi_adjust_cfa_offset 4
	pushl %ebx
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %ebx, 0
	movl %esp, %ebx
	.cfi_def_cfa_register %ebx
	leal 4(%ebx), %eax              /* the saved registers */
	leal \slot, %ecx
	andl $-16, %esp
	subl $4, %esp                   /* three words: 16-aligned at the call */
	pushl %eax
	pushl %ecx
	pushl 20(%ebx)
	call mt_entry
	movl %ebx, %esp
	.cfi_def_cfa_register %esp
	popl %ebx
	.cfi_adjust_cfa_offset -4
	.cfi_restore %ebx
	popl %eax
	.cfi_adjust_cfa_offset -4
	popl %edx
	.cfi_adjust_cfa_offset -4
	popl %ecx
	.cfi_adjust_cfa_offset -4
	popfl
	.cfi_adjust_cfa_offset -4
	ret
	.cfi_endproc
	.size \name, .-\name
	.endm

	HOOK __fentry__, 24(%ebx), .Lfentry
	HOOK mcount, 4(%ebp), .Lmcount
	HOOK _mcount, 4(%ebp), .L_mcount

/* in arch-x86.c's order: HOOK_FENTRY, HOOK_MCOUNT, HOOK__MCOUNT */
	MT_HOOKS .Lfentry, .Lmcount, .L_mcount

/* A hijacked function returns here, with %esp just above the slot it
 * returned through.  The return values (%eax, %edx; %st(0), which
 * mt_exit never touches) are kept; %ecx is free at a return.  No unwind
 * information, on purpose (hook-x86_64.S says why), and the byte before
 * the label belongs to no function.  Never unmapped. */
	.globl mt_return_trampoline
	.hidden mt_return_trampoline
	.type mt_return_trampoline, @function
	.p2align 4
	int3
mt_return_trampoline:
	pushl %eax
	pushl %edx
	pushl %ebx
	movl %esp, %ebx
	leal 8(%esp), %ecx              /* the slot: %esp at the return, less 4 */
	andl $-16, %esp
	subl $8, %esp                   /* two words: 16-aligned at the call */
	pushl %eax                      /* the return value */
	pushl %ecx
	call mt_exit
	movl %ebx, %esp
	movl %eax, %ecx
	popl %ebx
	popl %edx
	popl %eax
	jmp *%ecx
	.size mt_return_trampoline, .-mt_return_trampoline

	.section .note.GNU-stack,"",@progbits
