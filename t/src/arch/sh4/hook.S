/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcount for the sh4 runtime oracle.  The call site jumps here with
 * `jmp @r1` after `lds r0,pr`: pr is the address right after the literal
 * word holding mcount's address, and the function's own pr is saved on
 * its stack.  Keep r0-r7 (arguments in r4-r7). */
	.text
	.align 2
	.globl mcount
	.type mcount, @function
mcount:
	sts.l pr, @-r15
	mov.l r0, @-r15
	mov.l r1, @-r15
	mov.l r2, @-r15
	mov.l r3, @-r15
	mov.l r4, @-r15
	mov.l r5, @-r15
	mov.l r6, @-r15
	mov.l r7, @-r15
	mov.l .Lcheck, r0
	sts pr, r4
	jsr @r0
	 nop
	mov.l @r15+, r7
	mov.l @r15+, r6
	mov.l @r15+, r5
	mov.l @r15+, r4
	mov.l @r15+, r3
	mov.l @r15+, r2
	mov.l @r15+, r1
	mov.l @r15+, r0
	lds.l @r15+, pr
	rts
	 nop
	.align 2
.Lcheck:
	.long mcount_check
	.size mcount, .-mcount
	.section .note.GNU-stack,"",@progbits
