/* SPDX-License-Identifier: GPL-2.0-or-later */
/* badsite.S - __mcount_loc entries at words that are not calls to the
 * hook, for the ppc64 guest (big-endian ppc64, ELFv1): the library must refuse each
 * with a message and never write it.  Each function returns 42 plus its
 * number only if its call ran (t/src/trace/sys/badsite.c prints them).
 *   bad_local   bl to a function that is no hook, then nop
 *   bad_stub    bl to something shaped like a PLT call stub whose slot
 *               (a descriptor) holds a function that is no hook, then
 *               ld r2,40(r1)
 *   bad_next    bl to the same function, then neither nop nor the TOC
 *               restore
 *   bad_word    not a bl at all
 * Every function is ELFv1's: a descriptor in .opd, its code apart, a
 * frame of at least 112 bytes (header and parameter save area).
 * Assembled as it is (not through mcount-cc). */
	.abiversion 1
	.text

#define DESC(name)				\
	.section ".opd", "aw";			\
	.p2align 3;				\
name:						\
	.quad	name##_code, .TOC.@tocbase, 0;	\
	.previous;				\
	.type name, @function

	DESC(ret_one)
	.p2align 2
ret_one_code:
	li	3, 1
	blr
	.size ret_one, .-ret_one_code

#define FUNC(name)				\
	.globl name;				\
	DESC(name);				\
	.p2align 4;				\
name##_code:					\
	mflr	0;				\
	std	0, 16(1);			\
	stdu	1, -112(1);			\
	li	3, 0

#define END(name, n)				\
	addi	3, 3, 42 + n - 1;		\
	addi	1, 1, 112;			\
	ld	0, 16(1);			\
	mtlr	0;				\
	blr;					\
	.size name, .-name##_code

FUNC(bad_local)
bad_local_spot:
	bl	ret_one
	nop
END(bad_local, 0)

FUNC(bad_stub)
bad_stub_spot:
	bl	fake_stub
	ld	2, 40(1)
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

/* The linker's call stub, as binutils 2.40 writes one for ELFv1 (std
 * r2,40(r1); addis r11,r2; ld r12; mtctr; ld r2; bctr), through a slot
 * of our own: a descriptor of ret_one.  The slot is 16-byte aligned, as
 * the TOC pointer is, so its low half and that of slot + 8 share one
 * high half. */
	.p2align 4
fake_stub:
	std	2, 40(1)
	addis	11, 2, fake_slot@toc@ha
	ld	12, fake_slot@toc@l(11)
	mtctr	12
	ld	2, fake_slot+8@toc@l(11)
	bctr

	.section .data.rel.ro, "aw", @progbits
	.p2align 4
fake_slot:
	.quad	ret_one_code, .TOC.@tocbase, 0

	.section __mcount_loc, "aw", @progbits
	.quad	bad_local_spot
	.quad	bad_stub_spot
	.quad	bad_next_spot
	.quad	bad_word_spot
	.section .note.GNU-stack, "", @progbits
