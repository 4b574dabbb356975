/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profiling hook for the runtime oracle: save the caller's argument
 * registers, hand the return address to mcount_check(), restore. */
#ifdef __x86_64__
	.text
	.globl mcount, __fentry__
	.type mcount,@function
mcount:
__fentry__:
	push %rbp
	mov %rsp, %rbp
	push %rax
	push %rdi
	push %rsi
	push %rdx
	push %rcx
	push %r8
	push %r9
	push %r10
	push %r11
	mov 8(%rbp), %rdi
	and $-16, %rsp
	call mcount_check
	lea -72(%rbp), %rsp
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rcx
	pop %rdx
	pop %rsi
	pop %rdi
	pop %rax
	pop %rbp
	ret
	.size mcount, .-mcount
#else
	.text
	.globl mcount, __fentry__
	.type mcount,@function
mcount:
__fentry__:
	push %ebp
	mov %esp, %ebp
	push %eax
	push %ecx
	push %edx
	and $-16, %esp
	sub $12, %esp
	pushl 4(%ebp)
	call mcount_check
	lea -12(%ebp), %esp
	pop %edx
	pop %ecx
	pop %eax
	pop %ebp
	ret
	.size mcount, .-mcount
#endif
	.section .note.GNU-stack,"",@progbits
