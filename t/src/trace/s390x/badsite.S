/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at code that is not a call to the
 * hook, for the s390x guest: the library must refuse each with a message
 * and never write it.  Each function returns 42 plus its number only
 * if its call ran (t/src/trace/sys/badsite.c prints them).  An entry
 * points at the stg of GCC's sequence, as GCC's and the kernel's
 * tables do:
 *   bad_local   stg %r14,8(%r15); brasl %r14 to a function that is no
 *               hook; lg %r14,8(%r15)
 *   bad_stub    the same to something shaped like a PLT entry (larl
 *               %r1; lg %r1,0(%r1); br %r1) whose slot holds a function
 *               that is no hook, outside the PLT
 *   bad_next    the brasl followed by something else than the lg
 *   bad_word    neither the stg nor a brasl
 *   bad_more1   brcl 0,0 (GCC's -mnop-mcount NOP) after the function's
 *               first instruction, where GCC puts none
 * Assembled as it is (not through mcount-cc). */
	.text

	.type ret_one, @function
	.p2align 3
ret_one:
	lghi	%r2, 1
	br	%r14
	.size ret_one, .-ret_one

	.globl bad_local
	.type bad_local, @function
	.p2align 3
bad_local:
	stg	%r14, 8(%r15)
	brasl	%r14, ret_one
	lg	%r14, 8(%r15)
	aghi	%r2, 41
	br	%r14
	.size bad_local, .-bad_local

	.globl bad_stub
	.type bad_stub, @function
	.p2align 3
bad_stub:
	stg	%r14, 8(%r15)
	brasl	%r14, fake_plt
	lg	%r14, 8(%r15)
	aghi	%r2, 42
	br	%r14
	.size bad_stub, .-bad_stub

	.globl bad_next
	.type bad_next, @function
	.p2align 3
bad_next:
	stg	%r14, 8(%r15)
	brasl	%r14, ret_one
	lgr	%r0, %r0
	lg	%r14, 8(%r15)
	aghi	%r2, 43
	br	%r14
	.size bad_next, .-bad_next

	.globl bad_word
	.type bad_word, @function
	.p2align 3
bad_word:
	lghi	%r2, 1
	aghi	%r2, 44
	br	%r14
	.size bad_word, .-bad_word

	.globl bad_more1
	.type bad_more1, @function
	.p2align 3
bad_more1:
	lghi	%r2, 1
bad_more1_nop:
	brcl	0, bad_more1_nop
	aghi	%r2, 45
	br	%r14
	.size bad_more1, .-bad_more1

/* The linker's PLT entry, as binutils 2.40 writes one, through a slot
 * of our own. */
	.type fake_plt, @function
	.p2align 3
fake_plt:
	larl	%r1, fake_slot
	lg	%r1, 0(%r1)
	br	%r1
	.size fake_plt, .-fake_plt

	.section .data.rel.ro, "aw", @progbits
	.p2align 3
fake_slot:
	.quad	ret_one

	.section __mcount_loc, "aw", @progbits
	.quad	bad_local
	.quad	bad_stub
	.quad	bad_next
	.quad	bad_word
	.quad	bad_more1_nop
	.section .note.GNU-stack, "", @progbits
