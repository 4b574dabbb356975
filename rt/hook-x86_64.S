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
 * At entry %rsp is 8 mod 16; nine pushes make it 16-aligned for the call.
 */
	.text

	.macro SAVE
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	.endm

	.macro RESTORE
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	.endm

/* HOOK name, where the caller's return address is */
	.macro HOOK name, parent
	.globl \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	SAVE
	.cfi_adjust_cfa_offset 72
	movq 72(%rsp), %rdi
	movq \parent, %rsi
	call mt_entry
	RESTORE
	.cfi_adjust_cfa_offset -72
	ret
	.cfi_endproc
	.size \name, .-\name
	.endm

	HOOK __fentry__, 80(%rsp)
	HOOK mcount, 8(%rbp)
	HOOK _mcount, 8(%rbp)

	.section .note.GNU-stack,"",@progbits
