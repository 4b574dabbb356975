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
#include "hook-offsets.h"
#include "hook-table.h"
	.text

/* The argument registers end up in the ABI's order from %rsp up: the
 * third argument of mt_entry (function events read them there).
 * OWN_SAVE: the same but %r11 (the own trampoline's). */
	.macro OWN_SAVE
	pushq %r10
	pushq %rax
	pushq %r9
	pushq %r8
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	.endm

	.macro OWN_RESTORE
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %r8
	popq %r9
	popq %rax
	popq %r10
	.endm

	.macro SAVE
	pushq %r11
	OWN_SAVE
	.endm

	.macro RESTORE
	OWN_RESTORE
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
 * __fentry__, the registers kept but %r11, which the stub has used (the
 * address after the site above them, at 64(%rsp), the function's return
 * address at 72(%rsp): its slot).  The common case is done here, as
 * mt_own_entry (buffer.c) does it, without its frame: the thread has a
 * buffer and is in no hook, holds are not fenced, and the function's
 * users are hooks alone (not the tracer, none with an exit callback, no
 * redirect, the frame not hijacked): their entry callbacks are called
 * one after the other, with the stack aligned and, where a user is one
 * of mt_ops_vecsave (not MCOUNT_HOOK_GENERAL_REGS), the vector argument
 * registers kept.  Anything else goes to mt_own_entry, given the index,
 * the address after the site and the registers.  The fields read are at
 * the offsets of hook-offsets.h, which buffer.c checks.
 *
 * The frame of the common case, from %rsp up: 0 the struct
 * mcount_regs (own: its regs not written, nor its ret, read at an exit
 * only), 48 the users left and 56 the function's address (several
 * users), 64 %xmm0-7, padding, %rbx, and the registers kept at
 * OWN_B(%rsp) where the stack
 * was aligned at the call, at OWN_B + 8 where it was not (two copies of
 * the code, each with its offsets and unwind information); the slot 72
 * above them.  %rbx holds the thread's next held count: held is written
 * by its thread alone, and read back from memory each call's two
 * increments would wait each for the store before it. */
#define OWN_B 208


/* OWN_CALL b: the entry callback of the user whose id is in %rcx (its
 * op from mt_ops; none, or none with an entry, skipped), given the ip in
 * %rdi, the registers kept at b(%rsp).  Clobbers the caller-saved
 * registers. */
	.macro OWN_CALL b
	leaq mt_ops(%rip), %rsi
	movq (%rsi,%rcx,8), %rsi
	testq %rsi, %rsi
	jz 1f
	movq MT_OP_ENTRY(%rsi), %r8
	testq %r8, %r8
	jz 1f
	movq MT_OP_DATA(%rsi), %rdx
	movq \b+72(%rsp), %rsi
	movq %rsp, %rcx
	call *%r8
1:
	.endm

/* OWN_LOOP b: OWN_CALL for each user of the mask in %rcx, the ip in %rdi */
	.macro OWN_LOOP b
	movq %rdi, 56(%rsp)
2:
	bsfq %rcx, %rsi
	leaq -1(%rcx), %rdx
	andq %rdx, %rcx
	movq %rcx, 48(%rsp)
	movq %rsi, %rcx
	OWN_CALL \b
	movq 48(%rsp), %rcx
	movq 56(%rsp), %rdi
	testq %rcx, %rcx
	jnz 2b
	.endm

/* OWN_BODY b, sfx: the common case once its checks have passed (the
 * users in %rcx, the function's entry of mt_hooktab in %rdx, the next
 * held count in %r10, the thread's buffer in %rax), its frame's
 * registers kept at b(%rsp): OWN_B where the stack was aligned at the
 * call, OWN_B + 8 (8 bytes of padding) where it was not.  Its unwind
 * state at the end is that of its frame. */
	.macro OWN_BODY b, sfx
	pushq %rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -80
	movq %r10, %rbx
	subq $\b-8, %rsp
	.cfi_adjust_cfa_offset \b-8
	leaq \b+72(%rsp), %rsi
	movq %rsi, MT_RG_ARGS(%rsp)
	movq %rsi, MT_RG_FRAME(%rsp)
	movl $0x10100, MT_RG_EXIT(%rsp) /* exit false, noexit true, own true */
	movl MT_TB_SDEPTH(%rax), %esi
	movl %esi, MT_RG_DEPTH(%rsp)
	movl $2, MT_TB_NEST(%rax)
	movq MT_FH_ADDR(%rdx), %rdi
	/* a user without MCOUNT_HOOK_GENERAL_REGS: the vector registers kept */
	testq mt_ops_vecsave(%rip), %rcx
	jnz .Lown_vec\sfx
	leaq -1(%rcx), %rsi
	testq %rsi, %rcx
	jnz .Lown_multi\sfx
	bsfq %rcx, %rcx
	OWN_CALL \b
.Lown_out\sfx:
	.cfi_remember_state
	leaq 1(%rbx), %rsi
	addq $\b-8, %rsp
	.cfi_adjust_cfa_offset -(\b-8)
	popq %rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	movq mt_self@gottpoff(%rip), %rax
	movq %fs:(%rax), %rax
	movq %rsi, MT_TB_HELD(%rax)
	movl $0, MT_TB_NEST(%rax)
	OWN_RESTORE
	.cfi_adjust_cfa_offset -64
	ret
	.cfi_restore_state
	/* several users, none of them needing the vector registers */
.Lown_multi\sfx:
	OWN_LOOP \b
	jmp .Lown_out\sfx
	/* a user needing them */
.Lown_vec\sfx:
	movaps %xmm0, 64(%rsp)
	movaps %xmm1, 80(%rsp)
	movaps %xmm2, 96(%rsp)
	movaps %xmm3, 112(%rsp)
	movaps %xmm4, 128(%rsp)
	movaps %xmm5, 144(%rsp)
	movaps %xmm6, 160(%rsp)
	movaps %xmm7, 176(%rsp)
	leaq -1(%rcx), %rsi
	testq %rsi, %rcx
	jnz 3f
	bsfq %rcx, %rcx
	OWN_CALL \b
	jmp 4f
3:
	OWN_LOOP \b
4:
	movaps 64(%rsp), %xmm0
	movaps 80(%rsp), %xmm1
	movaps 96(%rsp), %xmm2
	movaps 112(%rsp), %xmm3
	movaps 128(%rsp), %xmm4
	movaps 144(%rsp), %xmm5
	movaps 160(%rsp), %xmm6
	movaps 176(%rsp), %xmm7
	jmp .Lown_out\sfx
	.endm

	.globl mt_own_tramp
	.hidden mt_own_tramp
	.type mt_own_tramp, @function
	.p2align 4
mt_own_tramp:
	.cfi_startproc
	OWN_SAVE
	.cfi_adjust_cfa_offset 64
	movq mt_self@gottpoff(%rip), %rax
	movq %fs:(%rax), %rax
	testq %rax, %rax
	jz .Lown_c
	cmpl $0, MT_TB_NEST(%rax)
	jne .Lown_c
	cmpb $0, mt_fenced_holds(%rip)
	jne .Lown_c
	/* nest 1 and held odd (buffer.c: hold) before the users are read */
	movl $1, MT_TB_NEST(%rax)
	leaq 72(%rsp), %rcx
	movq %rcx, MT_TB_NEST_SP(%rax)
	movq MT_TB_HELD(%rax), %r10
	incq %r10
	movq %r10, MT_TB_HELD(%rax)
	movq mt_hooktab(%rip), %rdx
	testq %rdx, %rdx
	jz .Lown_back
	cmpq MT_HT_N(%rdx), %r11        /* (the stub's movl: its upper half 0) */
	jae .Lown_back
	leaq (%r11,%r11,2), %rcx
	leaq MT_HT_F(%rdx,%rcx,8), %rdx
	movq MT_FH_MASK(%rdx), %rcx
	testq %rcx, %rcx
	jz .Lown_back
	testb $1, %cl
	jnz .Lown_back
	testq mt_ops_exits(%rip), %rcx
	jnz .Lown_back
	cmpq $0, MT_FH_REDIRECT(%rdx)
	jne .Lown_back
	leaq mt_return_trampoline(%rip), %rsi
	cmpq %rsi, 72(%rsp)
	je .Lown_back
	/* (twice: the padded body's, then the fallback's) */
	.cfi_remember_state
	.cfi_remember_state
	testl $8, %esp                  /* (0 mod 16 here where it was at the call) */
	jnz .Lown_odd
	OWN_BODY OWN_B, _even
	.cfi_restore_state
.Lown_odd:
	OWN_BODY OWN_B+8, _odd
	.cfi_restore_state
	/* not the common case: as it was, for mt_own_entry to decide */
.Lown_back:
	incq %r10
	movq %r10, MT_TB_HELD(%rax)
	movl $0, MT_TB_NEST(%rax)
.Lown_c:
	movl %r11d, %edi
	movq 64(%rsp), %rsi
	movq %rsp, %rdx
	call mt_own_entry
	OWN_RESTORE
	.cfi_adjust_cfa_offset -64
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
