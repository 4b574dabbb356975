/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at words that are not calls to the
 * hook, for the ppc guest (ppc32): the library must refuse each with a message
 * and never write it.  Each function returns 42 plus its number only if
 * its call ran (t/src/trace/sys/badsite.c prints them).
 *   bad_local   mflr r0; stw r0,4(r1); bl to a function that is no hook
 *   bad_stub    the same bl after stw r0,8(r1): not the parent's slot
 *   bad_next    mflr r0; stw r0,4(r1); bl to code that is not glibc's
 *               _mcount (it does not keep r3-r10 where glibc's does)
 *   bad_word    not a bl at all
 *   bad_more1   the same bl to code that keeps them as glibc's _mcount
 *               does, but calls something other than __mcount_internal
 * (The library lists five refused entries of an object.)
 * Assembled as it is (not through mcount-cc). */
	.text

	.type ret_one, @function
	.p2align 2
ret_one:
	li	3, 1
	blr
	.size ret_one, .-ret_one

#define FUNC(name)				\
	.globl name;				\
	.type name, @function;			\
	.p2align 4;				\
name:						\
	mflr	0;				\
	stwu	1, -16(1);			\
	mflr	0;				\
	stw	0, 20(1);			\
	li	3, 0

#define END(name, n)				\
	addi	3, 3, 42 + n - 1;		\
	lwz	0, 20(1);			\
	addi	1, 1, 16;			\
	mtlr	0;				\
	blr;					\
	.size name, .-name

/* not glibc's _mcount: no registers saved */
	.type short_mcount, @function
	.p2align 2
short_mcount:
	stwu	1, -16(1)
	li	3, 1
	addi	1, 1, 16
	blr
	.size short_mcount, .-short_mcount

/* glibc's _mcount's frame, but its call is to ret_one */
	.type other_mcount, @function
	.p2align 2
other_mcount:
	stwu	1, -48(1)
	stw	3, 12(1)
	stw	4, 16(1)
	stw	5, 20(1)
	stw	6, 24(1)
	mflr	4
	stw	7, 28(1)
	stw	8, 32(1)
	stw	9, 36(1)
	stw	10, 40(1)
	stw	4, 44(1)
	bl	ret_one
	lwz	0, 44(1)
	mtlr	0
	addi	1, 1, 48
	blr
	.size other_mcount, .-other_mcount

/* the call, with the frame made: as the site it is not, it runs as a
 * call; the parent word written before it is the caller's lr slot */
FUNC(bad_local)
	stw	0, 4(1)
bad_local_spot:
	bl	ret_one
END(bad_local, 0)

FUNC(bad_stub)
	stw	0, 8(1)
bad_stub_spot:
	bl	ret_one
END(bad_stub, 1)

FUNC(bad_next)
	stw	0, 4(1)
bad_next_spot:
	bl	short_mcount
END(bad_next, 2)

FUNC(bad_word)
	li	3, 1
bad_word_spot:
	ori	3, 3, 0
END(bad_word, 3)

FUNC(bad_more1)
	stw	0, 4(1)
bad_more1_spot:
	bl	other_mcount
END(bad_more1, 4)

	.section __mcount_loc, "aw", @progbits
	.long	bad_local_spot
	.long	bad_stub_spot
	.long	bad_next_spot
	.long	bad_word_spot
	.long	bad_more1_spot
	.section .note.GNU-stack, "", @progbits
