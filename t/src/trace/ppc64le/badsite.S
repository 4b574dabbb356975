/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at words that are not calls to the
 * hook, for the ppc64le guest (ELFv2): the library must refuse each with a
 * message and never write it.  Each function returns 42 plus its
 * number only if its call ran (t/src/trace/sys/badsite.c prints them).
 *   bad_local   bl to a function that is no hook, then nop
 *   bad_stub    bl to something shaped like a PLT call stub whose slot
 *               holds a function that is no hook, then ld r2,24(r1)
 *   bad_next    bl to the same function, then neither nop nor the TOC
 *               restore
 *   bad_word    not a bl at all
 * Assembled as it is (not through mcount-cc). */
	.abiversion 2
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
	addis	2, 12, .TOC.-name@ha;		\
	addi	2, 2, .TOC.-name@l;		\
	.localentry name, .-name;		\
	mflr	0;				\
	std	0, 16(1);			\
	stdu	1, -32(1);			\
	li	3, 0

#define END(name, n)				\
	addi	3, 3, 42 + n - 1;		\
	addi	1, 1, 32;			\
	ld	0, 16(1);			\
	mtlr	0;				\
	blr;					\
	.size name, .-name

FUNC(bad_local)
bad_local_spot:
	bl	ret_one
	nop
END(bad_local, 0)

FUNC(bad_stub)
bad_stub_spot:
	bl	fake_stub
	ld	2, 24(1)
END(bad_stub, 1)

FUNC(bad_next)
bad_next_spot:
	bl	ret_one
	ori	3, 3, 0
END(bad_next, 2)

FUNC(bad_word)
	li	3, 1
bad_word_spot:
	ori	3, 3, 0
END(bad_word, 3)

/* The linker's call stub, as binutils 2.40 writes one (std r2,24(r1);
 * addis r12,r2; ld r12; mtctr; bctr), through a slot of our own. */
	.type fake_stub, @function
	.p2align 4
fake_stub:
	std	2, 24(1)
	addis	12, 2, fake_slot@toc@ha
	ld	12, fake_slot@toc@l(12)
	mtctr	12
	bctr
	.size fake_stub, .-fake_stub

	.section .data.rel.ro, "aw", @progbits
	.p2align 3
fake_slot:
	.quad	ret_one

	.section __mcount_loc, "aw", @progbits
	.quad	bad_local_spot
	.quad	bad_stub_spot
	.quad	bad_next_spot
	.quad	bad_word_spot
	.section .note.GNU-stack, "", @progbits
